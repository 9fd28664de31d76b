"""Searching functions: ``argmax``/``argmin``, ``nonzero`` (a tuple, as NumPy),
``searchsorted``, ``where`` and ``count_nonzero``.

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.nonzero(cnp.asarray([[0, 1], [2, 0]]))
(tensor([0, 1]), tensor([1, 0]))
"""
import cygrad
from cygrad._core import fastpath as _fast
from . import _dtypes as D
from ._helpers import tensor, operands, normalize_axis, axes_arg

__all__ = ["argmax", "argmin", "count_nonzero", "nonzero", "searchsorted", "where", "argwhere",
           "flatnonzero"]


def _arg(fn):
    def f(x, /, axis=None, out=None, *, keepdims=False):
        x = tensor(x)
        if x.numel() == 0:
            raise ValueError(f"attempt to get {fn.__name__} of an empty sequence")
        if axis is None:
            res = fn(x.reshape(-1), dim=0)
            res = res.reshape((1,) * x.dim()) if keepdims else res
        else:
            res = fn(x, dim=normalize_axis(axis, x.dim()), keepdim=keepdims)
        if out is not None:
            out.copy_(res)
            return out
        return res
    return f


argmax = _arg(cygrad.argmax)
argmax.__name__ = argmax.__qualname__ = "argmax"
argmax.__doc__ = """Index of the (first) maximum along ``axis`` (None: of the flattened array).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.argmax(cnp.asarray([[1, 9], [7, 3]]), axis=0).tolist()
    [1, 0]
    """
argmin = _arg(cygrad.argmin)
argmin.__name__ = argmin.__qualname__ = "argmin"
argmin.__doc__ = """Index of the (first) minimum along ``axis`` (None: of the flattened array).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.argmin(cnp.asarray([3, 1, 1])).item()
    1
    """


def count_nonzero(x, /, axis=None, *, keepdims=False):
    """Number of non-zero elements along ``axis`` (int64).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.count_nonzero(cnp.asarray([[0, 1], [2, 3]]), axis=1).tolist()
    [1, 2]
    """
    x = tensor(x)
    axes = axes_arg(axis, x.dim())
    nz = (x != 0).to(D.int64)
    if axes is None:
        return nz.sum().reshape((1,) * x.dim()) if keepdims else nz.sum()
    return cygrad.sum(nz, dim=axes, keepdim=keepdims) if axes else nz


def nonzero(x, /):
    """Indices of the non-zero elements: a tuple with one int64 array per dimension.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.nonzero(cnp.asarray([0, 3, 0, 4]))
    (tensor([1, 3]),)
    """
    x = tensor(x)
    if x.dim() == 0:
        raise ValueError("Calling nonzero on 0d arrays is not allowed. Use atleast_1d(x).nonzero().")
    return tuple(cygrad.nonzero(x, as_tuple=True))


def flatnonzero(a):
    """Indices of the non-zero elements of the flattened array.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.flatnonzero(cnp.asarray([[0, 1], [1, 0]])).tolist()
    [1, 2]
    """
    return nonzero(tensor(a).reshape(-1))[0]


def argwhere(a):
    """Indices of the non-zero elements, one row per element.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.argwhere(cnp.asarray([[0, 1], [1, 0]])).tolist()
    [[0, 1], [1, 0]]
    """
    return cygrad.argwhere(tensor(a))


def _before(sorted_, v, side):
    # NaN sorts after every number (NumPy's order), so it needs its own rule
    if not sorted_.dtype.is_floating_point:
        return sorted_ < v if side == "left" else sorted_ <= v
    v_nan, s_nan = v.isnan(), sorted_.isnan()
    if side == "left":
        return (sorted_ < v) | (v_nan & ~s_nan)
    return (sorted_ <= v) | v_nan


def searchsorted(x1, x2, /, *, side="left", sorter=None):
    """Insertion indices of ``x2`` in the sorted 1-D ``x1`` (``side="left"``: before
    equal values, ``"right"``: after them). Computed by comparing every pair, so it
    suits the small and medium sizes it is used at; not differentiable (indices).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> s = cnp.asarray([1.0, 2.0, 2.0, 3.0])
    >>> cnp.searchsorted(s, cnp.asarray([2.0, 5.0])).tolist()
    [1, 4]
    >>> cnp.searchsorted(s, cnp.asarray([2.0]), side="right").tolist()
    [3]
    """
    if side not in ("left", "right"):
        raise ValueError(f"side must be 'left' or 'right' (got {side!r})")
    x1 = tensor(x1)
    if x1.dim() != 1:
        raise ValueError("searchsorted needs a 1-D sorted array")
    if sorter is not None:
        x1 = x1[tensor(sorter)]
    s, v = operands(x1.detach(), tensor(x2).detach())
    flat = v.reshape(-1, 1)
    counts = _before(s.reshape(1, -1), flat, side).to(D.int64).sum(dim=1)
    return counts.reshape(v.shape)


def where(condition, x1=None, x2=None, /):
    """``x1`` where ``condition`` is true, else ``x2`` (promoted to a common dtype);
    with the condition alone, NumPy's ``nonzero(condition)``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.where(cnp.asarray([True, False]), cnp.asarray([1, 2]), 0.5).tolist()
    [1.0, 0.5]
    """
    res = _fast.where(condition, x1, x2)
    if res is not None:
        return res
    if x1 is None and x2 is None:
        return nonzero(condition)
    if x1 is None or x2 is None:
        raise ValueError("either both or neither of x and y should be given")
    cond = tensor(condition)
    if cond.dtype is not D.bool:
        cond = cond != 0
    a, b = operands(x1, x2)
    return cygrad.where(cond, a, b)
