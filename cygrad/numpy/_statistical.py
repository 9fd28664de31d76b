"""Statistical functions (reductions and scans) with NumPy's result dtypes.

``sum``/``prod`` of bool and integer arrays accumulate in int64 (NumPy's rule; the
standard asks for the default integer dtype), ``mean``/``std``/``var`` of integers
give float64, ``max``/``min`` return values only (no indices), ``std``/``var``
take the standard's ``correction=`` or NumPy's ``ddof=``.

Examples
--------
>>> import cygrad.numpy as cnp
>>> x = cnp.asarray([100, 100], dtype=cnp.int8)
>>> cnp.sum(x), cnp.sum(x).dtype
(tensor(200), cygrad.int64)
"""
import builtins

import cygrad
from cygrad._core import fastpath as _fast
from . import _dtypes as D
from ._helpers import tensor, axes_arg, normalize_axis

__all__ = ["max", "min", "amax", "amin", "mean", "prod", "std", "sum", "var", "cumulative_sum",
           "cumulative_prod", "cumsum", "cumprod", "median", "ptp", "average", "nansum",
           "nanmean"]


def _acc_dtype(dt, dtype):
    if dtype is not None:
        return D.as_dtype(dtype)
    if dt is D.bool or not (dt.is_floating_point or dt.is_complex):
        return D.DEFAULT_INT
    return dt


def _finish(out, result):
    if out is None:
        return result
    out.copy_(result)
    return out


def _reduce_args(x, axis):
    x = tensor(x)
    axes = axes_arg(axis, x.dim())
    return x, axes


def sum(x, /, axis=None, dtype=None, out=None, keepdims=False):
    """Sum over ``axis`` (None: all). Integers accumulate in int64, as NumPy.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.sum(cnp.asarray([[1.0, 2.0], [3.0, 4.0]]), axis=0).tolist()
    [4.0, 6.0]
    """
    if axis is not None and dtype is None and out is None:
        # (a sum of everything is one C call below already)
        res = _fast.reduce(x, _fast.SUM, axis, keepdims)
        if res is not None:
            return res
    x, axes = _reduce_args(x, axis)
    dt = _acc_dtype(x.dtype, dtype)
    if axes == ():
        return _finish(out, x.to(dt).clone() if x.dtype is dt else x.to(dt))
    if dt is not x.dtype:
        x = x.to(dt)
    # dtype= also for the result: cygrad's (PyTorch's) sum of integers is int64
    res = x.sum(dtype=dt) if axes is None and not keepdims else cygrad.sum(
        x, dim=axes if axes is not None else tuple(range(x.dim())), keepdim=keepdims, dtype=dt)
    return _finish(out, res)


def prod(x, /, axis=None, dtype=None, out=None, keepdims=False):
    """Product over ``axis`` (None: all). Integers accumulate in int64, as NumPy.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.prod(cnp.asarray([[1, 2], [3, 4]]), axis=1).tolist()
    [2, 12]
    """
    x, axes = _reduce_args(x, axis)
    dt = _acc_dtype(x.dtype, dtype)
    x = x.to(dt)
    if axes == ():
        return _finish(out, x.clone())
    axes = tuple(range(x.dim())) if axes is None else axes
    res = x
    # cygrad's prod reduces one dim at a time (as PyTorch's)
    for a in sorted(axes, reverse=True):
        res = cygrad.prod(res, dim=a, keepdim=keepdims, dtype=dt)
    if not axes and not keepdims:
        res = res.clone()
    return _finish(out, res)


def _extreme(name, fn):
    def f(x, /, axis=None, out=None, keepdims=False, initial=None):
        x, axes = _reduce_args(x, axis)
        if initial is not None:
            init = cygrad.full((), initial, dtype=x.dtype)
            if axes is None:
                x = cygrad.cat([x.reshape(-1), init.reshape(1)])
                axes = (0,) if not keepdims else None
            else:
                raise NotImplementedError(f"{name}(initial=) with an axis is not supported yet")
        if x.numel() == 0 and (axes is None or builtins.any(x.shape[a] == 0 for a in axes)):
            raise ValueError(f"zero-size array to reduction operation {name} which has no identity")
        if axes == ():
            return _finish(out, x.clone())
        dims = tuple(range(x.dim())) if axes is None else axes
        if x.dim() == 0:
            return _finish(out, x.clone())
        # a single int dim takes cygrad's faster path
        return _finish(out, fn(x, dim=dims[0] if len(dims) == 1 else dims, keepdim=keepdims))
    f.__name__ = f.__qualname__ = name
    return f


max = _extreme("max", cygrad.amax)
min = _extreme("min", cygrad.amin)
max.__doc__ = """Maximum over ``axis``: the values only (NaN propagates).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.max(cnp.asarray([[1, 5], [3, 2]]), axis=0).tolist()
    [3, 5]
    """
min.__doc__ = """Minimum over ``axis``: the values only (NaN propagates).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.min(cnp.asarray([[1, 5], [3, 2]]), axis=1).tolist()
    [1, 2]
    """
amax, amin = max, min


def mean(x, /, axis=None, dtype=None, out=None, keepdims=False):
    """Arithmetic mean; integers give float64.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.mean(cnp.asarray([1, 2])).item()
    1.5
    """
    if dtype is None and out is None:
        res = _fast.reduce(x, _fast.MEAN, axis, keepdims)
        if res is not None:
            return res
    x, axes = _reduce_args(x, axis)
    dt = D.as_dtype(dtype) if dtype is not None else (
        x.dtype if x.dtype.is_floating_point or x.dtype.is_complex else D.DEFAULT_FLOAT)
    if x.dtype is not dt:
        x = x.to(dt)
    if axes == ():
        return _finish(out, x.clone())
    dims = tuple(range(x.dim())) if axes is None else axes
    if x.dim() == 0:
        return _finish(out, x.clone())
    return _finish(out, cygrad.mean(x, dim=dims[0] if len(dims) == 1 else dims, keepdim=keepdims))


def _correction(correction, ddof):
    if ddof is not None:
        if correction not in (None, 0, 0.0):
            raise ValueError("pass either correction= or ddof=, not both")
        return ddof
    return 0 if correction is None else correction


def _plain_correction(correction, ddof):
    """The correction when given plainly (one of the two, an int or a float), else
    None: the general route then checks the arguments."""
    c = (0 if correction is None else correction) if ddof is None else (
        ddof if correction is None else None)
    return c if type(c) in (builtins.int, builtins.float) else None


def _abs2(d):
    """``|d|**2``, real for complex ``d``."""
    if d.dtype.is_complex:
        return cygrad.real(d) * cygrad.real(d) + cygrad.imag(d) * cygrad.imag(d)
    return d * d


def _spread(fn, x, axis, dtype, ddof, keepdims, correction):
    """var or std (``fn``, cygrad's) over ``axis`` with a correction that may be any
    number; with no degrees of freedom left the result is NumPy's (inf or NaN)."""
    if dtype is None and axis != ():
        c = _plain_correction(correction, ddof)
        if c is not None:
            res = _fast.reduce(x, _fast.VAR if fn is cygrad.var else _fast.STD, axis, keepdims, c)
            if res is not None:
                return res
    x, axes = _reduce_args(x, axis)
    c = _correction(correction, ddof)
    # complex stays complex: the spread of complex values is real (NumPy's |x - mean|**2)
    dt = D.as_dtype(dtype) if dtype is not None else (
        x.dtype if x.dtype.is_floating_point or x.dtype.is_complex else D.DEFAULT_FLOAT)
    if x.dtype is not dt:
        x = x.to(dt)
    if axes == ():
        # no axis reduced: each element is a sample of one (cygrad's dim=() would
        # reduce them all, as PyTorch's)
        res = _abs2(x - x) / (1 - c if 1 - c > 0 else 0.0)
        return res if fn is cygrad.var else cygrad.sqrt(res)
    dims = tuple(range(x.dim())) if axes is None else axes
    if x.dim() == 0:
        x = x.reshape(1)
        dims = (0,)
    n = 1
    for a in dims:
        n *= x.shape[a]
    if n - c > 0:
        return fn(x, dim=dims, correction=c, keepdim=keepdims)
    # no degrees of freedom: NumPy divides by max(n - c, 0), giving inf (NaN where the
    # sum of squares is 0); cygrad's var would warn, as PyTorch does
    d = x - cygrad.mean(x, dim=dims, keepdim=True)
    sq = _abs2(d)
    res = cygrad.sum(sq, dim=dims, keepdim=keepdims) / 0.0
    return res if fn is cygrad.var else cygrad.sqrt(res)


def var(x, /, axis=None, dtype=None, out=None, ddof=None, keepdims=False, *, correction=None):
    """Variance with ``correction`` (the standard's name) or ``ddof`` (NumPy's); 0 by
    default, as both. The variance of complex values is real: the mean of
    ``|x - mean|^2``, the real part's variance plus the imaginary part's.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.var(cnp.asarray([1.0, 2.0, 3.0, 4.0]), correction=1).item()
    1.6666666666666667
    >>> cnp.var(cnp.asarray([1 + 1j, 3 - 1j]))
    tensor(2., dtype=cygrad.float64)
    """
    return _finish(out, _spread(cygrad.var, x, axis, dtype, ddof, keepdims, correction))


def std(x, /, axis=None, dtype=None, out=None, ddof=None, keepdims=False, *, correction=None):
    """Standard deviation, ``sqrt(var(...))``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.std(cnp.asarray([1.0, 3.0])).item()
    1.0
    """
    return _finish(out, _spread(cygrad.std, x, axis, dtype, ddof, keepdims, correction))


def _scan(name, fn, identity):
    def f(x, /, *, axis=None, dtype=None, include_initial=False):
        x = tensor(x)
        if axis is None:
            if x.dim() > 1:
                raise ValueError(f"{name}: axis must be given for arrays with more than one dimension")
            x = x.reshape(-1)
            axis = 0
        axis = normalize_axis(axis, x.dim())
        x = x.to(_acc_dtype(x.dtype, dtype))
        res = fn(x, dim=axis, dtype=x.dtype)
        if include_initial:
            shape = list(x.shape)
            shape[axis] = 1
            res = cygrad.cat([cygrad.full(shape, identity, dtype=res.dtype), res], dim=axis)
        return res
    f.__name__ = f.__qualname__ = name
    return f


cumulative_sum = _scan("cumulative_sum", cygrad.cumsum, 0)
cumulative_sum.__doc__ = """Cumulative sum along ``axis``; ``include_initial`` prepends the 0.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.cumulative_sum(cnp.asarray([1, 2, 3]), include_initial=True).tolist()
    [0, 1, 3, 6]
    """
cumulative_prod = _scan("cumulative_prod", cygrad.cumprod, 1)
cumulative_prod.__doc__ = """Cumulative product along ``axis``; ``include_initial`` prepends the 1.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.cumulative_prod(cnp.asarray([1, 2, 3])).tolist()
    [1, 2, 6]
    """


def cumsum(a, axis=None, dtype=None):
    """NumPy's ``cumsum``: flattens when ``axis`` is None.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.cumsum(cnp.asarray([[1, 2], [3, 4]])).tolist()
    [1, 3, 6, 10]
    """
    a = tensor(a)
    return cumulative_sum(a.reshape(-1) if axis is None else a, axis=0 if axis is None else axis,
                          dtype=dtype)


def cumprod(a, axis=None, dtype=None):
    """NumPy's ``cumprod``: flattens when ``axis`` is None.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.cumprod(cnp.asarray([[1, 2], [3, 4]]), axis=0).tolist()
    [[1, 2], [3, 8]]
    """
    a = tensor(a)
    return cumulative_prod(a.reshape(-1) if axis is None else a, axis=0 if axis is None else axis,
                           dtype=dtype)


def median(a, axis=None, keepdims=False):
    """Median (the mean of the two middle values for even sizes, as NumPy).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.median(cnp.asarray([4.0, 1.0, 3.0, 2.0])).item()
    2.5
    """
    a = tensor(a)
    if not a.dtype.is_floating_point:
        a = a.to(D.DEFAULT_FLOAT)
    if axis is None:
        flat = a.reshape(-1)
        res = _median_1axis(flat, 0)
        return res.reshape((1,) * a.dim()) if keepdims else res
    axis = normalize_axis(axis, a.dim())
    res = _median_1axis(a, axis)
    return res.unsqueeze(axis) if keepdims else res


def _median_1axis(a, axis):
    n = a.shape[axis]
    s = cygrad.sort(a, dim=axis).values
    lo = s.narrow(axis, (n - 1) // 2, 1)
    hi = s.narrow(axis, n // 2, 1)
    res = ((lo + hi) / 2).squeeze(axis)
    # NaN sorts last; any NaN makes the median NaN (NumPy)
    nan = a.isnan().any(dim=axis)
    return cygrad.where(nan, cygrad.full((), float("nan"), dtype=res.dtype), res)


def ptp(a, axis=None, keepdims=False):
    """Peak to peak: ``max - min``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.ptp(cnp.asarray([3, 9, 1])).item()
    8
    """
    return max(a, axis=axis, keepdims=keepdims) - min(a, axis=axis, keepdims=keepdims)


def average(a, axis=None, weights=None, keepdims=False):
    """Weighted mean (``weights`` broadcast along ``axis`` when 1-D, as NumPy).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.average(cnp.asarray([1.0, 3.0]), weights=cnp.asarray([3.0, 1.0])).item()
    1.5
    """
    if weights is None:
        return mean(a, axis=axis, keepdims=keepdims)
    a, w = tensor(a), tensor(weights)
    if w.dim() == 1 and a.dim() > 1 and axis is not None:
        shape = [1] * a.dim()
        ax = normalize_axis(axis, a.dim())
        shape[ax] = w.shape[0]
        w = w.reshape(shape)
    return sum(a * w, axis=axis, keepdims=keepdims) / sum(w.expand_as(a) if w.shape != a.shape else w,
                                                          axis=axis, keepdims=keepdims)


def nansum(a, axis=None, dtype=None, keepdims=False):
    """Sum treating NaN as 0.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.nansum(cnp.asarray([1.0, float("nan")])).item()
    1.0
    """
    a = tensor(a)
    if a.dtype.is_floating_point or a.dtype.is_complex:
        a = cygrad.where(a.isnan(), cygrad.zeros((), dtype=a.dtype), a)
    return sum(a, axis=axis, dtype=dtype, keepdims=keepdims)


def nanmean(a, axis=None, keepdims=False):
    """Mean of the non-NaN values.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.nanmean(cnp.asarray([1.0, float("nan"), 3.0])).item()
    2.0
    """
    a = tensor(a)
    if not (a.dtype.is_floating_point or a.dtype.is_complex):
        return mean(a, axis=axis, keepdims=keepdims)
    keep = ~a.isnan()
    return nansum(a, axis=axis, keepdims=keepdims) / sum(keep, axis=axis, keepdims=keepdims)
