"""CPU kernels of the ops added for issue 18 (``cygrad/ops/tensorops``): running
extremes with their indices, binary search, counting and histograms, membership,
runs of equal values.

The ops check their arguments and work out dtypes; these kernels compute with
NumPy on zero-copy views of the tensors' memory and return fresh tensors.
"""
import numpy as np

from .. import tensor as _C
from ..dispatch import register
from ._quiet import quiet_enter, quiet_exit


def _np(x):
    return _C._ndarray(x)


def _out(arr):
    return _C.from_numpy(np.ascontiguousarray(arr))


@register("cum_extreme", "cpu")
def cum_extreme(x, d, largest):
    """Running max (``largest``) or min along ``d`` and the index where it was last
    reached; a NaN wins and stays, as in PyTorch."""
    a = np.moveaxis(_np(x), d, -1)
    vals = np.empty_like(a)
    idx = np.empty(a.shape, dtype=np.int64)
    if a.shape[-1]:
        best, at = a[..., 0].copy(), np.zeros(a.shape[:-1], np.int64)
        vals[..., 0], idx[..., 0] = best, at
        for i in range(1, a.shape[-1]):
            cur = a[..., i]
            better = (cur >= best) if largest else (cur <= best)
            take = (better | np.isnan(cur)) & ~(np.isnan(best) & ~np.isnan(cur))
            best = np.where(take, cur, best)
            at = np.where(take, i, at)
            vals[..., i], idx[..., i] = best, at
    return _out(np.moveaxis(vals, -1, d)), _out(np.moveaxis(idx, -1, d))


@register("searchsorted", "cpu")
def searchsorted(sorted_seq, values, right, sorter, out_int32):
    """Insertion points of ``values`` in each row of ``sorted_seq`` (1-D: one row for
    every value)."""
    s, v = _np(sorted_seq), _np(values)
    if sorter is not None:
        s = np.take_along_axis(s, _np(sorter), -1)
    side = "right" if right else "left"
    if s.ndim == 1:
        res = np.searchsorted(s, v, side=side)
    else:
        flat_s = s.reshape(-1, s.shape[-1])
        flat_v = v.reshape(-1, v.shape[-1])
        res = np.stack([np.searchsorted(r, q, side=side) for r, q in zip(flat_s, flat_v)])
        res = res.reshape(v.shape)
    return _out(np.asarray(res, dtype=np.int32 if out_int32 else np.int64))


@register("bincount", "cpu")
def bincount(x, weights, minlength, dt):
    w = None if weights is None else _np(weights).astype(np.float64)
    res = np.bincount(_np(x), weights=w, minlength=minlength)
    return _out(res.astype(dt.np_dtype))


@register("histc", "cpu")
def histc(x, bins, lo, hi):
    """Counts of ``bins`` equal bins over ``[lo, hi]`` (the last bin closed); values
    outside are ignored."""
    a = _np(x).reshape(-1)
    a = a[(a >= lo) & (a <= hi)]
    counts = np.histogram(a.astype(np.float64), bins=bins, range=(lo, hi))[0]
    return _out(counts.astype(_np(x).dtype))


@register("histogramdd", "cpu")
def histogramdd(x, edges, weights, density):
    """Counts (or weight sums) of the rows of ``x`` ``(N, D)`` in the bins of the given
    edges (one 1-D tensor per dim)."""
    a = _np(x).astype(np.float64)
    e = [_np(t).astype(np.float64) for t in edges]
    w = None if weights is None else _np(weights).reshape(-1).astype(np.float64)
    token = quiet_enter()
    try:
        hist = np.histogramdd(a, bins=e, weights=w, density=density)[0]
    finally:
        quiet_exit(token)
    return _out(hist.astype(_np(x).dtype))


@register("isin", "cpu")
def isin(elements, test_elements, invert):
    return _out(np.isin(_np(elements), _np(test_elements), invert=invert))


@register("unique_consecutive", "cpu")
def unique_consecutive(x, d):
    """Runs of equal values (elements, or slices along ``d``): the first slice of each
    run, the run index of every slice, and the run lengths."""
    a = _np(x)
    if d is None:
        a = a.reshape(-1)
        axis = 0
    else:
        axis = d
    moved = np.moveaxis(a, axis, 0)
    n = moved.shape[0]
    if n == 0:
        starts = np.zeros(0, dtype=np.int64)
    else:
        rows = moved.reshape(n, -1)
        change = np.any(rows[1:] != rows[:-1], axis=1) if rows.shape[1] else np.zeros(n - 1, bool)
        starts = np.concatenate([[0], np.nonzero(change)[0] + 1]).astype(np.int64)
    values = np.moveaxis(moved[starts], 0, axis)
    inverse = np.cumsum(np.isin(np.arange(n), starts)) - 1 if n else np.zeros(0, np.int64)
    counts = np.diff(np.concatenate([starts, [n]])) if n else np.zeros(0, np.int64)
    return _out(values), _out(inverse.astype(np.int64)), _out(counts.astype(np.int64))


@register("logcumsumexp", "cpu")
def logcumsumexp(x, d):
    """``log(cumsum(exp(x)))`` along ``d`` by ``logaddexp`` accumulation (no overflow)."""
    token = quiet_enter()
    try:
        a = _np(x)
        acc = np.float32 if a.dtype.itemsize < 4 else a.dtype
        res = np.logaddexp.accumulate(a.astype(acc), axis=d).astype(a.dtype)
    finally:
        quiet_exit(token)
    return _out(res)
