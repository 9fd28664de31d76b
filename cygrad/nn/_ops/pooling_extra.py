"""The 3-D forms missing from ``pooling.py`` (``adaptive_max_pool3d``,
``max_pool3d_with_indices``, ``max_unpool3d``) and power-average pooling
(``lp_pool1d/2d/3d``).

The 3-D forms reuse ``pooling.py``'s dimension-generic helpers.  Lp pooling is
``(sum over the window of x**p) ** (1/p)``, written as average pooling of ``x**p``
times the window size, so its gradient comes from the average pooling and power
Functions without one of its own.
"""
import math

from . import pooling as _P

__all__ = ["adaptive_max_pool3d", "adaptive_max_pool3d_with_indices", "max_pool3d_with_indices",
           "max_unpool3d", "lp_pool1d", "lp_pool2d", "lp_pool3d"]


def adaptive_max_pool3d(input, output_size, return_indices=False):
    """Max pooling of ``(N, C, D, H, W)`` (or ``(C, D, H, W)``) to a fixed output size
    ``(oD, oH, oW)``, as ``torch.nn.functional.adaptive_max_pool3d``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.adaptive_max_pool3d(cygrad.arange(8.0).reshape(1, 2, 2, 2), 1).flatten().tolist()
    [7.0]
    """
    return _P._adaptive_max(input, output_size, 3, return_indices, "adaptive_max_pool3d")


def adaptive_max_pool3d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool3d`` returning ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.adaptive_max_pool3d_with_indices(cygrad.arange(8.0).reshape(1, 2, 2, 2), 1)[1].flatten().tolist()
    [7]
    """
    return _P._adaptive_max(input, output_size, 3, True, "adaptive_max_pool3d")


def max_pool3d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool3d`` returning ``(values, indices)`` (positions in the flattened
    ``D * H * W`` volume, what ``max_unpool3d`` takes).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.max_pool3d_with_indices(cygrad.arange(8.0).reshape(1, 1, 2, 2, 2), 2)[1].flatten().tolist()
    [7]
    """
    return _P._max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, True,
                        "max_pool3d")


def max_unpool3d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool3d``: each value goes back to the position
    ``indices`` recorded; everything else is zero.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> v, i = F.max_pool3d(cygrad.arange(8.0).reshape(1, 1, 2, 2, 2), 2, return_indices=True)
    >>> F.max_unpool3d(v, i, 2).flatten().tolist()
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 0.0, 7.0]
    """
    return _P._max_unpool(input, indices, 3, kernel_size, stride, padding, output_size,
                          "max_unpool3d")


def _lp_pool(input, n, norm_type, kernel_size, stride, ceil_mode, avg):
    kernel = _P._pool_tuple(kernel_size, n, "kernel_size", f"lp_pool{n}d")
    out = avg(input.pow(norm_type), kernel, stride, 0, ceil_mode)
    # sign * relu(|.|) as PyTorch: exactly the value, but a zero window gets gradient 0
    # instead of the NaN of 0 ** (1/p - 1)
    out = out.sign() * out.abs().relu()
    return out.mul(math.prod(kernel)).pow(1.0 / norm_type)


def lp_pool1d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over ``(N, C, L)``: ``(sum_window x**p) ** (1/p)``, as
    ``torch.nn.functional.lp_pool1d`` (``p = norm_type``; ``stride`` defaults to
    ``kernel_size``).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.lp_pool1d(cygrad.tensor([[3.0, 4.0]]), 2, 2).tolist()
    [[5.0]]
    """
    return _lp_pool(input, 1, norm_type, kernel_size, stride, ceil_mode, _P.avg_pool1d)


def lp_pool2d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over ``(N, C, H, W)``; see :func:`lp_pool1d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.lp_pool2d(cygrad.ones(1, 1, 2, 2), 1, 2).flatten().tolist()
    [4.0]
    """
    return _lp_pool(input, 2, norm_type, kernel_size, stride, ceil_mode, _P.avg_pool2d)


def lp_pool3d(input, norm_type, kernel_size, stride=None, ceil_mode=False):
    """Power-average pooling over ``(N, C, D, H, W)``; see :func:`lp_pool1d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.lp_pool3d(cygrad.ones(1, 1, 2, 2, 2), 1, 2).flatten().tolist()
    [8.0]
    """
    return _lp_pool(input, 3, norm_type, kernel_size, stride, ceil_mode, _P.avg_pool3d)
