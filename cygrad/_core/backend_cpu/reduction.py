"""CPU kernels of the reduction family (``cygrad/ops/reduction``): sums, means and
products, extremes and their indices, variance, boolean reductions, scans,
softmax and logsumexp, norms, sorting and selection, and the constant weights
some backward formulas need (ties, gather/scatter along a dim).

The ops have checked every argument and worked out the result dtype (passed as a
cygrad dtype ``dt``) and the reduced axes (``axes``: a sorted tuple of wrapped dims,
or None for every dim); these kernels only compute, with NumPy on zero-copy views
of the tensors' memory (``_ndarray``), and return fresh tensors.  float16/bfloat16
accumulate in float32 and are rounded once at the end; NumPy's floating-point
warnings are silenced (PyTorch gives ``inf``/``nan`` without a word).

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> kernel("reduce_sum", "cpu")(cygrad.tensor([[1, 2], [3, 4]]), (1,), False,
...                             cygrad.int64).tolist()
[3, 7]
>>> values, indices = kernel("sort", "cpu")(cygrad.tensor([3.0, 1.0, 2.0]), 0, False)
>>> values.tolist(), indices.tolist()
([1.0, 2.0, 3.0], [1, 2, 0])
"""
import numpy as np

from .. import fastpath as _fastpath
from .. import tensor as _C
from .. import dtype as _dt
from ..dispatch import register
from ._quiet import quiet, quiet_enter, quiet_exit

_BF16 = np.dtype(_dt.bfloat16.np_dtype)
_HALF_NP = (np.dtype(np.float16), _BF16)
_NP_DTYPES = {}          # cygrad dtype -> NumPy dtype


def _npdt(dt):
    npdt = _NP_DTYPES.get(dt)
    if npdt is None:
        npdt = _NP_DTYPES[dt] = np.dtype(dt.np_dtype)
    return npdt


def acc_dtype(dt):
    """NumPy dtype to accumulate in for a result of cygrad dtype ``dt``."""
    npdt = _npdt(dt)
    return np.dtype(np.float32) if npdt in _HALF_NP else npdt


def _cast_input(a, acc):
    """Convert to ``acc`` first where NumPy would refuse a ufunc's ``dtype=`` (float
    data summed as integers truncates each element first, as PyTorch does)."""
    if a.dtype.kind == "f" and acc.kind in "biu":
        return a.astype(acc)
    return a


def _float_view(a):
    """``a`` with bfloat16 widened to float32 (exactly): several NumPy routines
    (sort inside ``unique``, partition, isnan) mishandle ml_dtypes' bfloat16."""
    return a.astype(np.float32) if a.dtype == _BF16 else a


def _wrap(arr, dt):
    """A fresh tensor of cygrad dtype ``dt`` holding ``arr`` (a NumPy result we own)."""
    arr = np.asarray(arr)
    npdt = _npdt(dt)
    if arr.dtype != npdt:
        with np.errstate(invalid="ignore"):     # NaN into an integer dtype, as torch
            arr = arr.astype(npdt)
    if not arr.flags.c_contiguous:
        arr = arr.copy()
    return _C.from_numpy(arr)


def _as_1d(x):
    """The tensor's NumPy view, with a 0-d tensor seen as one element."""
    a = _C._ndarray(x)
    return a.reshape(1) if x.dim() == 0 else a


# ----------------------------------------------------------------------- sums

@register("reduce_sum", "cpu")
def reduce_sum(x, axes, keepdim, dt):
    """Sum over ``axes`` into dtype ``dt`` (integers converted first)."""
    if dt is x.dtype:
        res = _core_reduce("sum", x, axes, keepdim)
        if res is not None:
            return res
    return _ufunc_reduce(np.add, x, axes, keepdim, dt)


def _core_reduce(name, x, axes, keepdim):
    """The core's C reduction over one dim or all of a contiguous float32/float64
    tensor (tensor._reduce_dim; cpu/reduce.c), or None. Over a dim that is not the
    last, NumPy's loop took 2-4x PyTorch's time ((1024, 192).sum(0): 29 against
    11 us); the core streams whole rows into 4-vector column tiles."""
    if x.dtype not in _C_ROW_SUMMED:
        return None
    axis = _one_axis(x, axes)
    if axis is False:
        return None
    return _C._reduce_dim(name, x, axis, keepdim)


def _ufunc_reduce(ufunc, x, axes, keepdim, dt):
    """``ufunc.reduce`` over ``axes`` in ``dt``'s accumulation dtype: np.sum's and
    np.prod's loops without their Python wrappers (which cost more per call)."""
    acc = acc_dtype(dt)
    token = quiet_enter()
    try:
        res = ufunc.reduce(_cast_input(_C._ndarray(x), acc), axis=axes, dtype=acc,
                           keepdims=keepdim)
    finally:
        quiet_exit(token)
    return _wrap(res, dt)


@register("reduce_nansum", "cpu")
def reduce_nansum(x, axes, keepdim, dt):
    """Sum over ``axes`` with NaN counted as 0."""
    acc = acc_dtype(dt)
    with quiet():
        a = _cast_input(_float_view(_C._ndarray(x)), acc)
        res = np.nansum(a, axis=axes, keepdims=keepdim, dtype=acc)
    return _wrap(res, dt)


def _one_axis(x, axes):
    """``axes`` as the core's C loops take them: None for all dims, an int for one;
    False when it is neither (several but not all dims)."""
    if axes is None or type(axes) is int:
        return axes
    if len(axes) == 1:
        return axes[0]
    return None if len(axes) == x.dim() else False


_C_ROW_SUMMED = (_dt.float32, _dt.float64)


@register("reduce_mean", "cpu")
def reduce_mean(x, axes, keepdim, dt, n):
    """Mean over ``axes`` (``n`` elements per result; NaN when ``n`` is 0)."""
    if dt is x.dtype:
        if n:
            # Contiguous float32/float64: the core's sums divided by n (a full mean, or
            # over one dim). NumPy's pairwise loop took 3-4x as long (1000 x 1000:
            # 160 us against 42 us).
            res = _core_reduce("mean", x, axes, keepdim)
            if res is not None:
                return res
    acc = acc_dtype(dt)
    token = quiet_enter()
    try:
        # np.add.reduce: np.sum's loop (pairwise summation) without its Python wrapper
        total = np.add.reduce(_C._ndarray(x), axis=axes, dtype=acc, keepdims=keepdim)
        res = total / acc.type(n) if n else np.full_like(total, np.nan)
    finally:
        quiet_exit(token)
    return _wrap(res, dt)


@register("reduce_nanmean", "cpu")
def reduce_nanmean(x, axes, keepdim, dt):
    """Mean of the non-NaN elements over ``axes``."""
    acc = acc_dtype(dt)
    with quiet():
        a = _C._ndarray(x)
        valid = ~np.isnan(a)
        total = np.sum(np.where(valid, a, 0), axis=axes, keepdims=keepdim, dtype=acc)
        res = total / np.sum(valid, axis=axes, keepdims=keepdim).astype(acc)
    return _wrap(res, dt)


@register("reduce_prod", "cpu")
def reduce_prod(x, axes, keepdim, dt):
    """Product over ``axes`` into dtype ``dt``."""
    return _ufunc_reduce(np.multiply, x, axes, keepdim, dt)


@register("exclusive_products", "cpu")
def exclusive_products(rows):
    """For each element along the last dim, the product of all the others (no
    division: (product of those before) * (product of those after)).

    Examples
    --------
    >>> import cygrad
    >>> exclusive_products(cygrad.tensor([[2.0, 0.0, 3.0]])).tolist()
    [[0.0, 6.0, 0.0]]
    """
    r = _C._ndarray(rows).astype(acc_dtype(rows.dtype))
    ones = np.ones(r.shape[:-1] + (1,), r.dtype)
    with quiet():
        before = np.cumprod(np.concatenate([ones, r[..., :-1]], axis=-1), axis=-1)
        after = np.cumprod(np.concatenate([ones, r[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
        return _wrap(before * after, rows.dtype)


# ----------------------------------------------------------------------- extremes

_EXTREME_DIM = {True: (np.maximum.reduce, np.ndarray.argmax),
                False: (np.minimum.reduce, np.ndarray.argmin)}


@register("reduce_extreme", "cpu")
def reduce_extreme(x, axes, keepdim, largest):
    """max (``largest``) or min over ``axes`` (NaN propagates); non-empty input."""
    res = _core_reduce("amax" if largest else "amin", x, axes, keepdim)
    if res is not None:
        return res
    reduce = np.maximum.reduce if largest else np.minimum.reduce
    token = quiet_enter()
    try:
        res = reduce(_C._ndarray(x), axis=axes, keepdims=keepdim)
    finally:
        quiet_exit(token)
    return _wrap(res, x.dtype)


@register("extreme_dim", "cpu")
def extreme_dim(x, d, keepdim, largest):
    """``(values, indices)`` of max/min along dim ``d`` (NaN wins, first index on ties)."""
    a = _C._ndarray(x)
    if x.dim() == 0:
        return _wrap(a.copy(), x.dtype), _wrap(np.zeros((), np.int64), _dt.int64)
    reduce, arg = _EXTREME_DIM[largest]
    token = quiet_enter()
    try:
        values = reduce(a, axis=d, keepdims=keepdim)
    finally:
        quiet_exit(token)
    indices = arg(a, axis=d, keepdims=keepdim)
    if type(values) is np.ndarray and values.dtype == a.dtype and indices.dtype == np.int64:
        # fresh contiguous results of the right dtypes: no _wrap checks (per call cost)
        return _C.from_numpy(values), _C.from_numpy(indices)
    return _wrap(values, x.dtype), _wrap(indices, _dt.int64)


@register("aminmax", "cpu")
def aminmax(x, axes, keepdim):
    """``(min, max)`` over ``axes``."""
    a = _C._ndarray(x)
    with quiet():
        return (_wrap(np.min(a, axis=axes, keepdims=keepdim), x.dtype),
                _wrap(np.max(a, axis=axes, keepdims=keepdim), x.dtype))


@register("arg_extreme", "cpu")
def arg_extreme(x, d, keepdim, largest):
    """argmax (``largest``) or argmin along ``d``, or of the flattened tensor when ``d``
    is None (then ``keepdim`` gives all dims size 1)."""
    a = _C._ndarray(x)
    fn = np.argmax if largest else np.argmin
    if d is None:
        res = np.asarray(fn(a))
        if keepdim:
            res = res.reshape((1,) * x.dim())
    elif x.dim() == 0:
        res = np.zeros((), np.int64)
    else:
        res = fn(a, axis=d, keepdims=keepdim)
    return _wrap(res, _dt.int64)


@register("tie_weights", "cpu")
def tie_weights(x, result, kept_shape, axes, nan_ties):
    """``1/k`` at each of the ``k`` elements of a slice equal to its ``result`` (shaped
    ``kept_shape``: the reduced dims as size 1), 0 elsewhere; a NaN result matches
    the NaN elements when ``nan_ties``.

    Examples
    --------
    >>> import cygrad
    >>> tie_weights(cygrad.tensor([2.0, 1.0, 2.0]), cygrad.tensor(2.0), (1,), None,
    ...             True).tolist()
    [0.5, 0.0, 0.5]
    """
    a = _float_view(_C._ndarray(x))
    r = np.reshape(_float_view(_C._ndarray(result)), kept_shape)
    with np.errstate(invalid="ignore"):
        hit = (a == r) | (np.isnan(a) & np.isnan(r)) if nan_ties else a == r
        weights = hit / np.sum(hit, axis=axes, keepdims=True)
    return _wrap(weights, x.dtype)


@register("take_along_dim", "cpu")
def take_along_dim(x, idx, d):
    """``out[..., j, ...] = x[..., idx[..., j, ...], ...]`` along dim ``d``."""
    return _wrap(np.take_along_axis(_C._ndarray(x), _C._ndarray(idx), axis=d), x.dtype)


@register("put_along_dim", "cpu")
def put_along_dim(src, idx, d, shape):
    """Zeros of ``shape`` with ``src`` written at ``idx`` along dim ``d``."""
    out = np.zeros(shape, _npdt(src.dtype))
    np.put_along_axis(out, _C._ndarray(idx), _C._ndarray(src), axis=d)
    return _wrap(out, src.dtype)


# ----------------------------------------------------------------------- statistics

@register("var_mean", "cpu")
def var_mean(x, axes, keepdim, n, dof, take_sqrt):
    """``(variance, mean)`` over ``axes`` (``n`` elements per result, divided by
    ``dof``); the standard deviation in place of the variance when ``take_sqrt``.
    The variance of complex values is real: the mean of ``|z - mean|^2``."""
    axis = _one_axis(x, axes)
    if axis is not False and dof > 0:
        spread = _fastpath.reduce(x, _fastpath.STD if take_sqrt else _fastpath.VAR, axis,
                                  keepdim, float(n - dof))
        if spread is not None:      # small contiguous float: the core's C loop
            return spread, _fastpath.reduce(x, _fastpath.MEAN, axis, keepdim)
    acc = acc_dtype(x.dtype)
    token = quiet_enter()
    try:
        # ufuncs called directly, the squares in place: np.sum's and np.var's Python
        # layers cost more than the arithmetic on small tensors
        a = _C._ndarray(x)
        mu = np.add.reduce(a, axis=axes, dtype=acc, keepdims=True)
        mu /= acc.type(n)
        dev = np.subtract(a, mu, dtype=acc)
        if x.dtype.is_complex:
            dev = dev.real * dev.real + dev.imag * dev.imag
        else:
            dev *= dev          # (a 0-d input gives NumPy scalars: these rebind then)
        variance = np.add.reduce(dev, axis=axes, dtype=dev.dtype, keepdims=keepdim)
        variance /= dev.dtype.type(dof)
        if take_sqrt:
            variance = np.sqrt(variance)
    finally:
        quiet_exit(token)
    if not keepdim:
        mu = mu.reshape(np.shape(variance))
    return _wrap(variance, x.dtype.to_real()), _wrap(mu, x.dtype)


# ----------------------------------------------------------------------- logical

@register("all_any", "cpu")
def all_any(x, axes, keepdim, is_all, dt):
    """all (``is_all``) or any over ``axes`` (``()``: elementwise), as dtype ``dt``."""
    fn = np.all if is_all else np.any
    return _wrap(fn(_C._ndarray(x), axis=axes, keepdims=keepdim), dt)


@register("count_nonzero", "cpu")
def count_nonzero(x, axes):
    """Number of nonzero elements over ``axes`` (int64)."""
    return _wrap(np.count_nonzero(_C._ndarray(x), axis=axes), _dt.int64)


# ----------------------------------------------------------------------- scans

@register("scan", "cpu")
def scan(x, d, dt, product):
    """Running sum (or product when ``product``) along ``d``, in dtype ``dt``:
    float32/float64 by the C kernel (``scan_kernels``, the running value in double
    as PyTorch keeps it), other dtypes by NumPy's accumulate loops."""
    if x.dtype is dt and dt in _C_ROW_SUMMED and x.dim():
        from .. import scan_kernels
        return scan_kernels.scan(x.contiguous(), d, product)
    acc = acc_dtype(dt)
    fn = np.multiply.accumulate if product else np.add.accumulate    # (np.cumsum's loops)
    token = quiet_enter()
    try:
        a = _cast_input(_C._ndarray(x), acc)
        res = fn(a.reshape(1) if x.dim() == 0 else a, axis=d, dtype=acc)
    finally:
        quiet_exit(token)
    return _wrap(res.reshape(tuple(x.shape)), dt)


def _rev_cumsum(v):
    return np.flip(np.cumsum(np.flip(v, -1), -1), -1)


@register("cumprod_grad", "cpu")
def cumprod_grad(x, grad, y, d):
    """Cumprod's gradient along ``d`` for ``x`` holding zeros, in O(n) per row.

    With ``z`` the first zero of a row: before ``z`` the usual formula
    ``rev_cumsum(g * y) / x`` holds (later outputs are 0 anyway); at ``z`` the
    gradient is ``rev_cumsum(g * y')`` with ``y'`` the running product skipping
    ``x[z]``; after ``z`` every path to the output goes through the zero: 0.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([2.0, 0.0, 3.0])
    >>> cumprod_grad(x, cygrad.ones(3), x.cumprod(0), 0).tolist()
    [1.0, 8.0, 0.0]
    """
    acc = np.result_type(acc_dtype(x.dtype), acc_dtype(grad.dtype), acc_dtype(y.dtype))
    a, g, out = (np.moveaxis(_C._ndarray(t), d, -1).astype(acc) for t in (x, grad, y))
    n = a.shape[-1]
    zero = a == 0
    first = np.where(zero.any(-1), zero.argmax(-1), n)[..., None]
    pos = np.arange(n)
    before, at = pos < first, pos == first
    with quiet():
        res = np.where(before, _rev_cumsum(g * out) / np.where(before, a, 1), 0)
        skip_zero = np.cumprod(np.where(at, 1, a), axis=-1)
        res = res + np.where(at, _rev_cumsum(g * skip_zero), 0)
    return _wrap(np.moveaxis(res, -1, d), x.dtype)


# ----------------------------------------------------------------------- softmax

@register("softmax", "cpu")
def softmax(x, d, dt, log):
    """softmax (or log_softmax when ``log``) along ``d`` in dtype ``dt``, stably;
    float32/float64 by the fused C kernel (one pass per row)."""
    if dt is _dt.float32 or dt is _dt.float64:
        from .. import fused_kernels
        if x.dtype is not dt:
            x = _wrap(_C._ndarray(x), dt)
        y = fused_kernels.softmax_forward(x.contiguous(), d if x.dim() else 0, log)
        return y if x.dim() else y.reshape(())
    a = _C._ndarray(x).astype(acc_dtype(dt), copy=False)
    if x.dim() == 0:
        a = a.reshape(1)
    with quiet():
        shifted = a - np.max(a, axis=d, keepdims=True, initial=-np.inf)
        if log:
            res = shifted - np.log(np.sum(np.exp(shifted), axis=d, keepdims=True))
        else:
            e = np.exp(shifted)
            res = e / np.sum(e, axis=d, keepdims=True)
    return _wrap(res.reshape(tuple(x.shape)), dt)


@register("logsumexp", "cpu")
def logsumexp(x, axes, keepdim, dt):
    """``log(sum(exp(x)))`` over ``axes`` in dtype ``dt``, stably."""
    acc = acc_dtype(dt)
    with quiet():
        a = _C._ndarray(x).astype(acc, copy=False)
        # complex: shift by the largest real part (|exp(z)| is exp(z.real))
        shift = np.max(a.real, axis=axes, keepdims=True, initial=-np.inf)
        # An infinite max cannot be subtracted (inf - inf is NaN); shift by 0 there.
        shift = np.where(np.isinf(shift), 0, shift).astype(acc)
        res = np.log(np.sum(np.exp(a - shift), axis=axes, keepdims=True)) + shift
    if axes is None and not keepdim:
        res = res.reshape(())
    elif not keepdim:
        res = np.squeeze(res, axis=axes)
    return _wrap(res, dt)


# ----------------------------------------------------------------------- norms

@register("vector_norm", "cpu")
def vector_norm(x, p, axes, keepdim, dt):
    """The ``p``-norm (a float; inf, -inf, 0 counts nonzeros) over ``axes``."""
    acc = acc_dtype(dt)
    with quiet():
        mag = np.abs(_C._ndarray(x).astype(acc, copy=False))
        if p == np.inf:
            res = np.max(mag, axis=axes, keepdims=keepdim, initial=0)
        elif p == -np.inf:
            res = np.min(mag, axis=axes, keepdims=keepdim)
        elif p == 0:
            res = np.sum(mag != 0, axis=axes, keepdims=keepdim, dtype=acc)
        elif p == 1:
            res = np.sum(mag, axis=axes, keepdims=keepdim, dtype=acc)
        elif p == 2:
            res = np.sqrt(np.sum(mag * mag, axis=axes, keepdims=keepdim, dtype=acc))
        else:
            res = np.sum(mag ** acc.type(p), axis=axes, keepdims=keepdim,
                         dtype=acc) ** acc.type(1 / p)
    return _wrap(res, dt)


@register("matrix_norm", "cpu")
def matrix_norm(x, ord, dims, keepdim, dt):
    """The Frobenius (``ord='fro'``) or nuclear (``'nuc'``) norm over the two ``dims``."""
    a = _C._ndarray(x).astype(acc_dtype(dt))
    return _wrap(np.linalg.norm(a, ord=ord, axis=dims, keepdims=keepdim), dt)


@register("nuclear_weights", "cpu")
def nuclear_weights(x, dims):
    """``U V^T`` of each matrix of ``x`` over ``dims``, from its SVD ``U S V^T``."""
    a = np.moveaxis(_C._ndarray(x).astype(acc_dtype(x.dtype)), dims, (-2, -1))
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return _wrap(np.moveaxis(u @ vh, (-2, -1), dims), x.dtype)


# ----------------------------------------------------------------------- sorting

def _sort_indices(a, d, descending):
    """Stable argsort of ``a`` along ``d`` (NaN sorts as the largest value).

    Descending keeps equal elements in their original order: sort the reversed
    array ascending, reverse the answer, and map positions back."""
    a = _float_view(a)
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    n = a.shape[d]
    rev = np.flip(a, axis=d)
    idx = np.flip(np.argsort(rev, axis=d, kind="stable"), axis=d)
    return (n - 1) - idx


@register("sort", "cpu")
def sort(x, d, descending, values=True):
    """Stable sort along ``d``: ``(values, indices)``, or the indices alone when not
    ``values``."""
    a = _as_1d(x)
    idx = _sort_indices(a, d, descending)
    shape = tuple(x.shape)
    indices = _wrap(idx.reshape(shape), _dt.int64)
    if not values:
        return indices
    return _wrap(np.take_along_axis(a, idx, axis=d).reshape(shape), x.dtype), indices


@register("topk", "cpu")
def topk(x, k, d, largest):
    """The first ``k`` of a stable sort along ``d`` (descending when ``largest``)."""
    a = _as_1d(x)
    idx = np.take(_sort_indices(a, d, largest), np.arange(k), axis=d)
    values = np.take_along_axis(a, idx, axis=d)
    if x.dim() == 0:
        values, idx = values.reshape(()), idx.reshape(())
    return _wrap(values, x.dtype), _wrap(idx, _dt.int64)


@register("kthvalue", "cpu")
def kthvalue(x, d, keepdim, k):
    """``(values, indices)`` of the ``k``-th smallest (0-based) along ``d``; with ``k``
    None, the lower median (a row holding NaN answers with its first NaN)."""
    a = _as_1d(x)
    n = a.shape[d]
    if n == 0:                  # only median() of an empty tensor gets here: NaN
        return _wrap(np.array(np.nan), x.dtype), None
    order = _sort_indices(a, d, False)
    if k is None:
        nans = (np.sum(np.isnan(_float_view(a)), axis=d, keepdims=True)
                if x.dtype.is_floating_point else np.zeros(1, np.int64))
        pick = np.where(nans > 0, n - nans, (n - 1) // 2)
    else:
        pick = np.asarray(k)
    pos = np.broadcast_to(pick, order.shape[:d] + (1,) + order.shape[d + 1:])
    idx = np.take_along_axis(order, pos, axis=d)
    values = np.take_along_axis(a, idx, axis=d)
    if x.dim() == 0 or not keepdim:
        shape = () if x.dim() == 0 else values.shape[:d] + values.shape[d + 1:]
        values, idx = values.reshape(shape), idx.reshape(shape)
    return _wrap(values, x.dtype), _wrap(idx, _dt.int64)


@register("mode", "cpu")
def mode(x, d, keepdim):
    """Most frequent value along ``d`` (the smallest of equally frequent ones) and the
    index of its last occurrence."""
    a = _as_1d(x)
    rows = np.moveaxis(_float_view(a), d, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    values = np.empty(flat.shape[0], flat.dtype)
    indices = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        # NaN != NaN, so each NaN is a value of its own (PyTorch's count of equal runs)
        uniq, inverse, counts = np.unique(row, return_inverse=True, return_counts=True,
                                          equal_nan=False)
        best = int(np.argmax(counts))
        values[r] = uniq[best]
        indices[r] = np.flatnonzero(inverse.reshape(-1) == best)[-1]
    shape = rows.shape[:-1]
    values, indices = values.reshape(shape), indices.reshape(shape)
    if keepdim and x.dim() > 0:
        values, indices = np.expand_dims(values, d), np.expand_dims(indices, d)
    return _wrap(values, x.dtype), _wrap(indices, _dt.int64)


@register("unique", "cpu")
def unique(x, d):
    """``(values, inverse, counts)``: the distinct elements (or slices along ``d``) in
    ascending order, NaNs all distinct; ``inverse`` has ``x``'s shape (or ``(size,)``
    along ``d``)."""
    a = _float_view(_C._ndarray(x))
    if d is None:
        res = np.unique(a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        inverse_shape = tuple(x.shape)
    else:
        res = np.unique(a, return_inverse=True, return_counts=True, axis=d, equal_nan=False)
        inverse_shape = (x.shape[d],)
    values, inverse, counts = res
    return (_wrap(values, x.dtype), _wrap(inverse.reshape(inverse_shape), _dt.int64),
            _wrap(counts, _dt.int64))
