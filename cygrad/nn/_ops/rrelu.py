"""Randomized leaky ReLU (``rrelu``, ``rrelu_``).

In training each negative element is multiplied by its own slope drawn uniformly
from ``[lower, upper]`` (cygrad's generator, so ``manual_seed`` reproduces it); in
evaluation the slope is the fixed mean ``(lower + upper) / 2``.  The result is
``input * noise``, an ordinary differentiable product.
"""
from ...autograd.grad_mode import no_grad
from ...ops.creation import empty

__all__ = ["rrelu", "rrelu_"]


def _noise(input, lower, upper, training):
    with no_grad():
        if training:
            slope = empty(tuple(input.shape), dtype=input.dtype,
                          device=input.device).uniform_(lower, upper)
        else:
            slope = (lower + upper) / 2.0
        return (input > 0).to(input.dtype) * (1.0 - slope) + slope


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, inplace=False):
    """``x`` where positive, ``a * x`` elsewhere, with ``a ~ U(lower, upper)`` per
    element in training and ``a = (lower + upper) / 2`` otherwise, as
    ``torch.nn.functional.rrelu``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.rrelu(cygrad.tensor([-2.0, 3.0]), 0.25, 0.75).tolist()
    [-1.0, 3.0]
    """
    if not input.is_floating_point():
        raise RuntimeError(f"\"rrelu_with_noise\" not implemented for '{input.dtype}'")
    noise = _noise(input, lower, upper, training)
    return input.mul_(noise) if inplace else input * noise


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False):
    """In-place :func:`rrelu`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([-2.0, 3.0])
    >>> F.rrelu_(x, 0.5, 0.5) is x, x.tolist()
    (True, [-1.0, 3.0])
    """
    return rrelu(input, lower, upper, training, inplace=True)
