"""PyTorch's ``TypeError`` for an operand that is not a tensor.

Call sites test ``isinstance(x, TensorBase)`` themselves (cheap on the normal
path) and raise the error built here, so the message names the op, the argument
and its position exactly as PyTorch's argument parser does.
"""


def not_tensor(value, opname, argname="input", position=1):
    """The exception to raise when ``value`` should have been a tensor.

    Examples
    --------
    >>> from cygrad.ops._argcheck import not_tensor
    >>> str(not_tensor(1.5, "clone"))
    "clone(): argument 'input' (position 1) must be Tensor, not float"
    """
    where = f" (position {position})" if position else ""
    return TypeError(f"{opname}(): argument '{argname}'{where} must be Tensor, "
                     f"not {type(value).__name__}")
