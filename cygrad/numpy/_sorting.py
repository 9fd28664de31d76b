"""Sorting: ``sort`` and ``argsort`` with the standard's ``descending=`` and
``stable=`` (stable by default, as the standard asks).

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.argsort(cnp.asarray([3, 1, 2])).tolist()
[1, 2, 0]
"""
import cygrad
from ._helpers import tensor, normalize_axis

__all__ = ["argsort", "sort"]


def _sort_args(x, axis, kind, stable):
    x = tensor(x)
    if x.dim() == 0:
        x = x.reshape(1)
        axis = 0
    if stable is None:
        stable = kind in (None, "stable", "mergesort")
    return x, (None if axis is None else normalize_axis(axis, x.dim())), bool(stable)


def argsort(x, /, axis=-1, kind=None, *, descending=False, stable=None):
    """Indices that sort ``x`` along ``axis`` (None: the flattened array). Ties keep
    their order (stable) unless ``stable=False``, descending sorts included.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.argsort(cnp.asarray([1, 2, 1, 2]), descending=True).tolist()
    [1, 3, 0, 2]
    """
    x, axis, stable = _sort_args(x, axis, kind, stable)
    if axis is None:
        x, axis = x.reshape(-1), 0
    return cygrad.sort(x, dim=axis, descending=descending, stable=stable).indices


def sort(x, /, axis=-1, kind=None, *, descending=False, stable=None):
    """``x`` sorted along ``axis`` (None: flattened first); NaN last, as NumPy.
    Differentiable: the gradient goes back to where each value came from.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.sort(cnp.asarray([[3, 1], [0, 2]]), axis=0).tolist()
    [[0, 1], [3, 2]]
    """
    x, axis, stable = _sort_args(x, axis, kind, stable)
    if axis is None:
        x, axis = x.reshape(-1), 0
    return cygrad.sort(x, dim=axis, descending=descending, stable=stable).values
