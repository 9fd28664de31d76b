"""Flatten parameters into one vector and back (for optimisers that work on vectors)."""
from ..._tensor import Tensor
from ...ops.shape import cat

__all__ = ["parameters_to_vector", "vector_to_parameters"]


def _check_param_device(param, old_device):
    """The index of ``param``'s device (-1 for CPU); TypeError if it differs from
    ``old_device`` (None: first parameter)."""
    device = param.device.index if param.is_cuda else -1
    if old_device is not None and device != old_device:
        raise TypeError("Found two parameters on different devices, this is currently not "
                        "supported.")
    return device


def parameters_to_vector(parameters):
    """One 1-D tensor holding every parameter's values, in order.

    Examples
    --------
    >>> from cygrad import nn
    >>> nn.utils.parameters_to_vector(nn.Linear(3, 2).parameters()).shape
    cygrad.Size([8])
    """
    device = None
    flat = []
    for param in parameters:
        device = _check_param_device(param, device)
        flat.append(param.reshape(-1))
    return cat(flat)


def vector_to_parameters(vec, parameters):
    """Make each parameter show its slice of the 1-D tensor ``vec`` (in order).

    The parameters' ``.data`` becomes a view of ``vec``, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> lin = nn.Linear(2, 1)
    >>> nn.utils.vector_to_parameters(cygrad.arange(3.0), lin.parameters())
    >>> lin.weight.tolist(), lin.bias.tolist()
    ([[0.0, 1.0]], [2.0])
    """
    if not isinstance(vec, Tensor):
        raise TypeError(f"expected cygrad.Tensor, but got: {type(vec).__name__}")
    device = None
    pointer = 0
    for param in parameters:
        device = _check_param_device(param, device)
        n = param.numel()
        param.data = vec[pointer:pointer + n].view_as(param).data
        pointer += n
