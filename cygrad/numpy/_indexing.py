"""Indexing functions: ``take`` and ``take_along_axis`` (both differentiable with
respect to ``x``).

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.take(cnp.asarray([[1, 2], [3, 4]]), cnp.asarray([1, 0]), axis=1).tolist()
[[2, 1], [4, 3]]
"""
import cygrad
from . import _dtypes as D
from ._helpers import tensor, normalize_axis

__all__ = ["take", "take_along_axis"]


def _indices(indices):
    idx = tensor(indices)
    if idx.dtype.is_floating_point or idx.dtype is D.bool:
        raise TypeError("array indices must be integers")
    return idx if idx.dtype is D.int64 else idx.to(D.int64)


def take(x, indices, /, *, axis=None):
    """Elements of ``x`` at ``indices`` along ``axis`` (None: of the flattened array);
    negative indices count from the end, out-of-range ones raise ``IndexError``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.take(cnp.asarray([5, 6, 7]), cnp.asarray([[0, -1]])).tolist()
    [[5, 7]]
    """
    x = tensor(x)
    idx = _indices(indices)
    if axis is None:
        x, axis = x.reshape(-1), 0
    axis = normalize_axis(axis, x.dim())
    n = x.shape[axis]
    if idx.numel() and (bool((idx >= n).any()) or bool((idx < -n).any())):
        raise IndexError(f"index out of range for axis {axis} with size {n}")
    flat = cygrad.remainder(idx.reshape(-1), n) if n else idx.reshape(-1)
    picked = cygrad.index_select(x, axis, flat)
    shape = tuple(x.shape[:axis]) + tuple(idx.shape) + tuple(x.shape[axis + 1:])
    return picked.reshape(shape)


def take_along_axis(x, indices, /, *, axis=-1):
    """Pick values along ``axis`` with an index array of the same number of dimensions
    (e.g. from ``argsort``); the other axes broadcast.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> a = cnp.asarray([[3, 1], [0, 2]])
    >>> cnp.take_along_axis(a, cnp.argsort(a, axis=1), axis=1).tolist()
    [[1, 3], [0, 2]]
    """
    x = tensor(x)
    idx = _indices(indices)
    if x.dim() != idx.dim():
        raise ValueError("`indices` and `arr` must have the same number of dimensions")
    axis = normalize_axis(axis, x.dim())
    n = x.shape[axis]
    idx = cygrad.where(idx < 0, idx + n, idx)
    return cygrad.take_along_dim(x, idx, dim=axis)
