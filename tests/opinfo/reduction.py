"""Op-table rows for ``cygrad/ops/reduction.py``: reductions, scans, sorting, softmax.

References are NumPy, written to follow PyTorch's semantics where NumPy differs:
integer sums are int64, ``max(dim)`` returns ``(values, indices)``, sorting is
stable and puts NaN last (first when descending), softmax is checked against
``np.logaddexp.reduce`` (an independent way to get the normaliser).
"""
import math
import warnings

import numpy as np

import cygrad

from .core import (ALL, ALL_FLOATS, ALL_NUMERIC, ErrorInput, OpInfo, SampleInput,
                   binary_samples, is_float, make_array, np_dtype, special_array)


# ---------------------------------------------------------------------------
# reference helpers
# ---------------------------------------------------------------------------
def _quiet(f):
    """``f`` with NumPy's floating-point warnings silenced (NaN/inf are expected)."""
    def ref(*args, **kwargs):
        with np.errstate(all="ignore"):
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", RuntimeWarning)
                return f(*args, **kwargs)
    return ref


def _axis(a, dim):
    """PyTorch ``dim`` -> NumPy ``axis`` (0-d arrays reduce with axis=None; an empty
    tuple means every dim)."""
    if dim is None or a.ndim == 0:
        return None
    if isinstance(dim, (tuple, list)):
        return tuple(dim) if len(dim) else None
    return dim


def _int64_if_integral(a):
    return np.int64 if a.dtype.kind in "biu" else None


def _reduction_ref(np_fn, int64=False):
    def ref(a, dim=None, keepdim=False, dtype=None):
        kw = {}
        if dtype is not None:
            # PyTorch converts the input to dtype first (floats truncate into ints)
            a = a.astype(np_dtype(dtype))
        elif int64:
            kw["dtype"] = _int64_if_integral(a)
        return np_fn(a, axis=_axis(a, dim), keepdims=keepdim, **kw)
    return _quiet(ref)


def _arg_ref(np_arg):
    def ref(a, dim=None, keepdim=False):
        if dim is None:
            r = np.asarray(np_arg(a))
            return r.reshape((1,) * a.ndim) if keepdim else r
        if a.ndim == 0:
            return np.asarray(0)
        return np_arg(a, axis=dim, keepdims=keepdim)
    return ref


def _values_indices_ref(np_arg):
    """max/min along a dim: values gathered at the arg index (NaN wins in both)."""
    def ref(a, dim, keepdim=False):
        if a.ndim == 0:
            return a.copy(), np.asarray(0)
        idx = np_arg(a, axis=dim, keepdims=True)
        vals = np.take_along_axis(a, idx, axis=dim)
        if not keepdim:
            vals, idx = np.squeeze(vals, dim), np.squeeze(idx, dim)
        return vals, idx
    return ref


def _correction_of(unbiased, correction):
    if unbiased is not None:
        return int(unbiased)
    return 1 if correction is None else correction


@_quiet
def _var_ref(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    a = a.astype(np.float64)
    ddof = _correction_of(unbiased, correction)
    axis = _axis(a, dim)
    n = a.size if axis is None else math.prod(a.shape[d] for d in np.atleast_1d(axis))
    dev = a - a.mean(axis=axis, keepdims=True)
    return (dev ** 2).sum(axis=axis, keepdims=keepdim) / max(n - ddof, 0)


@_quiet
def _std_ref(a, *args, **kwargs):
    return np.sqrt(_var_ref(a, *args, **kwargs))


@_quiet
def _var_mean_ref(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    return (_var_ref(a, dim, unbiased, keepdim, correction=correction),
            np.mean(a.astype(np.float64), axis=_axis(a, dim), keepdims=keepdim))


@_quiet
def _std_mean_ref(a, dim=None, unbiased=None, keepdim=False, *, correction=None):
    v, m = _var_mean_ref(a, dim, unbiased, keepdim, correction=correction)
    return np.sqrt(v), m


@_quiet
def _norm_ref(a, p="fro", dim=None, keepdim=False):
    if p == "nuc":
        return np.linalg.norm(a.astype(np.float64), "nuc", axis=dim, keepdims=keepdim)
    a = np.abs(a.astype(np.float64))
    axis = _axis(a, dim)
    if p == "fro":
        p = 2
    if p == math.inf:
        return np.max(a, axis=axis, keepdims=keepdim)
    if p == -math.inf:
        return np.min(a, axis=axis, keepdims=keepdim)
    if p == 0:
        return np.sum(a != 0, axis=axis, keepdims=keepdim).astype(np.float64)
    return np.sum(a ** p, axis=axis, keepdims=keepdim) ** (1.0 / p)


@_quiet
def _logsumexp_ref(a, dim, keepdim=False):
    return np.logaddexp.reduce(a.astype(np.float64), axis=_axis(a, dim), keepdims=keepdim)


@_quiet
def _softmax_ref(a, dim, dtype=None):
    a = a.astype(np.float64)
    if a.ndim == 0:
        return np.ones(())
    return np.exp(a - np.logaddexp.reduce(a, axis=dim, keepdims=True))


@_quiet
def _log_softmax_ref(a, dim, dtype=None):
    a = a.astype(np.float64)
    if a.ndim == 0:
        return np.zeros(())
    return a - np.logaddexp.reduce(a, axis=dim, keepdims=True)


def _bool_ref(np_fn):
    def ref(a, dim=None, keepdim=False):
        return np_fn(a, axis=_axis(a, dim), keepdims=keepdim)
    return ref


def _count_nonzero_ref(a, dim=None):
    return np.asarray(np.count_nonzero(a, axis=_axis(a, dim)), dtype=np.int64)


def _scan_ref(np_fn):
    @_quiet
    def ref(a, dim, dtype=None):
        acc = np_dtype(dtype) if dtype is not None else (_int64_if_integral(a) or a.dtype)
        if a.ndim == 0:
            return np_fn(a.reshape(1).astype(acc), axis=0).reshape(())
        return np_fn(a.astype(acc), axis=dim)
    return ref


def _stable_order(a, dim, descending):
    """Stable sort order along ``dim``; NaN is the largest value."""
    a = np.moveaxis(a if a.ndim else a.reshape(1), dim if a.ndim else 0, -1)
    key = a.astype(np.float64)
    nan = np.isnan(key)
    out = np.empty(a.shape, np.int64)
    for pos in np.ndindex(a.shape[:-1]):
        k, n = key[pos], nan[pos]
        if descending:
            # lexsort's last key is the primary one; it is stable for the rest
            out[pos] = np.lexsort((-np.where(n, 0, k), ~n))
        else:
            out[pos] = np.lexsort((np.where(n, 0, k), n))
    return out


def _sort_ref(a, dim=-1, descending=False, stable=False):
    order = _stable_order(a, dim, descending)
    vals = np.take_along_axis(np.moveaxis(a if a.ndim else a.reshape(1), dim if a.ndim else 0, -1),
                              order, axis=-1)
    if a.ndim == 0:
        return vals.reshape(()), order.reshape(())
    return np.moveaxis(vals, -1, dim), np.moveaxis(order, -1, dim)


def _argsort_ref(a, dim=-1, descending=False, stable=False):
    return _sort_ref(a, dim, descending)[1]


def _topk_ref(a, k, dim=-1, largest=True, sorted=True):
    size = a.shape[dim] if a.ndim else 1
    if not 0 <= k <= size:
        raise ValueError("k out of range")
    vals, idx = _sort_ref(a, dim, largest)
    if a.ndim == 0:
        return vals, idx
    take = np.arange(k)
    return np.take(vals, take, axis=dim), np.take(idx, take, axis=dim)


def _kthvalue_ref(a, k, dim=-1, keepdim=False):
    size = a.shape[dim] if a.ndim else 1
    if not 1 <= k <= size:
        raise ValueError("k out of range")
    vals, idx = _sort_ref(a, dim, False)
    if a.ndim == 0:
        return vals, idx
    v, i = np.take(vals, [k - 1], axis=dim), np.take(idx, [k - 1], axis=dim)
    return (v, i) if keepdim else (np.squeeze(v, dim), np.squeeze(i, dim))


@_quiet
def _median_ref(a, dim=None, keepdim=False):
    """Lower median; samples hold no NaN."""
    if dim is None:
        flat = np.sort(a.reshape(-1))
        # PyTorch's median of nothing is NaN converted to the dtype
        return flat[(flat.size - 1) // 2] if flat.size else np.asarray(np.nan).astype(a.dtype)
    size = a.shape[dim] if a.ndim else 1
    return _kthvalue_ref(a, (size + 1) // 2, dim, keepdim) if size else _raise()


def _raise():
    raise ValueError("empty reduction")


def _mode_ref(a, dim=-1, keepdim=False):
    rows = np.moveaxis(a if a.ndim else a.reshape(1), dim if a.ndim else 0, -1)
    if rows.shape[-1] == 0:
        _raise()
    vals = np.empty(rows.shape[:-1], a.dtype)
    idx = np.empty(rows.shape[:-1], np.int64)
    for pos in np.ndindex(rows.shape[:-1]):
        row = list(rows[pos])
        counts = {v: row.count(v) for v in row}
        best = min(counts, key=lambda v: (-counts[v], v))
        vals[pos] = best
        idx[pos] = max(i for i, v in enumerate(row) if v == best)
    if keepdim and a.ndim:
        vals, idx = np.expand_dims(vals, dim), np.expand_dims(idx, dim)
    return vals, idx


def _unique_ref(a, sorted=True, return_inverse=False, return_counts=False, dim=None):
    if dim is None:
        vals, inv, cnt = np.unique(a.reshape(-1), return_inverse=True, return_counts=True)
        inv = inv.reshape(a.shape)
    else:
        vals, inv, cnt = np.unique(a, return_inverse=True, return_counts=True, axis=dim)
        inv = inv.reshape(-1)
    out = [vals]
    if return_inverse:
        out.append(inv)
    if return_counts:
        out.append(cnt)
    return out[0] if len(out) == 1 else tuple(out)


def _aminmax_ref(a, *, dim=None, keepdim=False):
    axis = None if dim is None or a.ndim == 0 else dim
    return (np.min(a, axis=axis, keepdims=keepdim), np.max(a, axis=axis, keepdims=keepdim))


# ---------------------------------------------------------------------------
# samples
# ---------------------------------------------------------------------------
def _reduce_samples(op_info, dtype, rng, *, tuples=True, zero_d_dim=True, low=None,
                    high=None, extra=None):
    """full / int dim / negative dim / tuple dim / keepdim / 0-d inputs."""
    mk = lambda shape: make_array(shape, dtype, rng, low, high)          # noqa: E731
    out = [SampleInput(mk((3, 4)), name="full"),
           SampleInput(mk(()), name="0d"),
           SampleInput(mk((3, 4)), kwargs={"dim": 1}, name="dim1"),
           SampleInput(mk((2, 3, 4)), kwargs={"dim": -1}, name="dim_neg"),
           SampleInput(mk((2, 3, 4)), kwargs={"dim": 1, "keepdim": True}, name="keepdim"),
           SampleInput(mk((5,)), kwargs={"dim": 0}, name="vec")]
    if tuples:
        out += [SampleInput(mk((2, 3, 4)), kwargs={"dim": (0, 2)}, name="dim_tuple"),
                SampleInput(mk((2, 3, 4)), kwargs={"dim": (-1, 0), "keepdim": True},
                            name="dim_tuple_keep")]
    if zero_d_dim:
        out.append(SampleInput(mk(()), kwargs={"dim": -1}, name="0d_dim"))
    if is_float(dtype):
        out.append(SampleInput(special_array(dtype).reshape(2, 5), kwargs={"dim": 1},
                               name="special"))
    return out + list(extra(dtype, rng) if extra else [])


def _dim_samples(op_info, dtype, rng, *, low=None, high=None, special=True, extra=None):
    """Ops with a single required dim (max(dim), cumsum, softmax, sort...)."""
    mk = lambda shape: make_array(shape, dtype, rng, low, high)          # noqa: E731
    out = [SampleInput(mk((3, 4)), (1,), name="dim1"),
           SampleInput(mk((3, 4)), (0,), name="dim0"),
           SampleInput(mk((2, 3, 4)), (-2,), name="dim_neg"),
           SampleInput(mk((5,)), (0,), name="vec"),
           SampleInput(mk(()), (0,), name="0d")]
    if special and is_float(dtype):
        out.append(SampleInput(special_array(dtype).reshape(2, 5), (1,), name="special"))
    return out + list(extra(dtype, rng) if extra else [])


def _keepdim_extra(dtype, rng):
    return [SampleInput(make_array((2, 3, 4), dtype, rng), (1,), {"keepdim": True},
                        name="keepdim")]


def _distinct(shape, dtype, rng):
    """Distinct values (a shuffled range) so ties cannot make indices ambiguous."""
    n = math.prod(shape)
    vals = rng.permutation(n) - (0 if dtype in (cygrad.uint8,) else n // 2)
    if is_float(dtype):
        vals = vals * 0.25
    return vals.reshape(shape).astype(np_dtype(dtype))


def _distinct_dim_samples(op_info, dtype, rng, extra_kwargs=({},)):
    out = []
    for shape, args, name in (((3, 4), (1,), "dim1"), ((2, 3, 4), (-2,), "dim_neg"),
                              ((5,), (0,), "vec"), ((), (0,), "0d")):
        for kw in extra_kwargs:
            label = name + "".join(f"_{k}" for k in kw)
            out.append(SampleInput(_distinct(shape, dtype, rng), args, dict(kw), name=label))
    return out


def _max_full_samples(op_info, dtype, rng):
    out = [SampleInput(make_array(s, dtype, rng), name=n)
           for n, s in (("mat", (3, 4)), ("0d", ()), ("3d", (2, 3, 4)))]
    if is_float(dtype):
        out.append(SampleInput(special_array(dtype), name="special"))
    return out


def _max_other_samples(op_info, dtype, rng):
    return binary_samples(op_info, dtype, rng, scalars=False)


def _var_samples(op_info, dtype, rng):
    mk = lambda shape: make_array(shape, dtype, rng)          # noqa: E731
    return [SampleInput(mk((3, 4)), name="full"),
            SampleInput(mk((3, 4)), (1,), name="dim1"),
            SampleInput(mk((2, 3, 4)), ((0, 2),), name="dim_tuple"),
            SampleInput(mk((2, 3, 4)), (-1,), {"keepdim": True}, name="keepdim"),
            SampleInput(mk((3, 4)), (1,), {"correction": 0}, name="correction0"),
            SampleInput(mk((3, 4)), (0,), {"correction": 2}, name="correction2"),
            SampleInput(mk((3, 4)), (1, False), name="unbiased_false"),
            SampleInput(mk((3, 4)), (1, True, True), name="unbiased_keepdim"),
            # (with a dim: PyTorch has no out= for the legacy var(x, unbiased=...) form)
            SampleInput(mk((5,)), (0,), {"unbiased": False}, name="unbiased_kw")]


def _norm_samples(op_info, dtype, rng):
    mk = lambda shape: make_array(shape, dtype, rng)          # noqa: E731
    out = [SampleInput(mk((3, 4)), name="default"),
           SampleInput(mk((2, 3, 4)), name="3d_fro"),
           SampleInput(mk((3, 4)), (1,), name="p1"),
           SampleInput(mk((3, 4)), (2, 1), name="p2_dim1"),
           SampleInput(mk((3, 4)), (math.inf,), name="inf"),
           SampleInput(mk((3, 4)), (-math.inf, 0), name="neg_inf_dim0"),
           SampleInput(mk((3, 4)), (0,), name="p0"),
           SampleInput(mk((2, 3, 4)), (3, (0, 2), True), name="p3_tuple_keepdim"),
           SampleInput(mk((3, 4)), (0.5, -1), name="p_half"),
           SampleInput(mk((3, 4)), ("fro", (0, 1)), name="fro_tuple"),
           SampleInput(mk(()), name="0d")]
    if dtype in (cygrad.float32, cygrad.float64):
        out.append(SampleInput(mk((2, 3, 4)), ("nuc", (1, 2)), name="nuc"))
    return out


def _logsumexp_samples(op_info, dtype, rng):
    def big(dtype, rng):
        if not is_float(dtype):
            return []
        # e^1000 overflows every float: only a max-shifted computation survives
        return [SampleInput(make_array((3, 4), dtype, rng, 990.0, 1010.0), kwargs={"dim": 1},
                            name="large"),
                SampleInput(np.full((2, 3), -np.inf).astype(np_dtype(dtype)),
                            kwargs={"dim": 1}, name="all_neg_inf")]
    out = _reduce_samples(op_info, dtype, rng, extra=big)
    return [s for s in out if "dim" in s.kwargs]      # dim is required


def _softmax_samples(op_info, dtype, rng):
    def big(dtype, rng):
        return [SampleInput(make_array((3, 4), dtype, rng, 990.0, 1010.0), (1,), name="large"),
                SampleInput(make_array((3, 4), dtype, rng, -1010.0, -990.0), (0,),
                            name="large_neg"),
                SampleInput(make_array((3, 4), cygrad.float32, rng).astype(np_dtype(dtype)),
                            (1,), {"dtype": cygrad.float64}, name="dtype_kw")]
    return _dim_samples(op_info, dtype, rng, special=False, extra=big)


def _sort_samples(op_info, dtype, rng):
    mk = lambda shape: make_array(shape, dtype, rng)          # noqa: E731
    out = [SampleInput(mk((3, 4)), name="default"),
           SampleInput(mk((3, 4)), (0,), name="dim0"),
           SampleInput(mk((2, 3, 4)), (1, True), name="descending"),
           SampleInput(mk((2, 3, 4)), kwargs={"dim": -1, "descending": True, "stable": True},
                       name="stable_desc"),
           SampleInput(mk((8,)), name="vec"),
           SampleInput(mk(()), name="0d")]
    if is_float(dtype):
        out += [SampleInput(special_array(dtype), name="special"),
                SampleInput(special_array(dtype), kwargs={"descending": True},
                            name="special_desc")]
    return out


def _topk_samples(op_info, dtype, rng):
    return [SampleInput(_distinct((3, 5), dtype, rng), (2,), name="k2"),
            SampleInput(_distinct((3, 5), dtype, rng), (3, 0, False), name="smallest_dim0"),
            SampleInput(_distinct((2, 3, 4), dtype, rng), (4, -1), name="all"),
            SampleInput(_distinct((2, 3, 4), dtype, rng), (0, 1), name="k0"),
            SampleInput(_distinct((), dtype, rng), (1,), name="0d")]


def _kthvalue_samples(op_info, dtype, rng):
    return [SampleInput(_distinct((3, 5), dtype, rng), (2,), name="k2"),
            SampleInput(_distinct((3, 5), dtype, rng), (3, 0, True), name="dim0_keepdim"),
            SampleInput(_distinct((2, 3, 4), dtype, rng), (4, -1), name="last"),
            SampleInput(_distinct((), dtype, rng), (1,), name="0d")]


def _median_samples(op_info, dtype, rng):
    return ([SampleInput(_distinct((3, 4), dtype, rng), name="full"),
             SampleInput(_distinct((5,), dtype, rng), name="odd"),
             SampleInput(_distinct((), dtype, rng), name="0d")]
            + _distinct_dim_samples(op_info, dtype, rng, ({}, {"keepdim": True})))


def _mode_samples(op_info, dtype, rng):
    def small(shape):
        return make_array(shape, dtype, rng, 0, 3)
    return [SampleInput(small((3, 6)), name="default"),
            SampleInput(small((4, 3)), (0,), name="dim0"),
            SampleInput(small((2, 3, 5)), (1, True), name="keepdim"),
            SampleInput(small(()), name="0d")]


def _unique_samples(op_info, dtype, rng):
    def small(shape):
        return make_array(shape, dtype, rng, 0, 4)
    rows = small((2, 3))
    return [SampleInput(small((10,)), name="plain"),
            SampleInput(small((3, 4)), kwargs={"return_inverse": True}, name="inverse"),
            SampleInput(small((3, 4)), kwargs={"return_counts": True}, name="counts"),
            SampleInput(small((2, 3, 2)), kwargs={"return_inverse": True,
                                                  "return_counts": True}, name="both"),
            SampleInput(np.concatenate([rows, rows[::-1], rows]), kwargs={
                "dim": 0, "return_inverse": True, "return_counts": True}, name="dim0"),
            SampleInput(small(()), name="0d")]


def _scan_samples(op_info, dtype, rng):
    def extra(dtype, rng):
        return [SampleInput(make_array((3, 4), dtype, rng, -1, 2), (1,),
                            {"dtype": cygrad.float64}, name="dtype_kw")]
    return _dim_samples(op_info, dtype, rng, low=-1.5 if is_float(dtype) else -2,
                        high=1.5 if is_float(dtype) else 3, extra=extra)


def _aminmax_samples(op_info, dtype, rng):
    mk = lambda shape: make_array(shape, dtype, rng)          # noqa: E731
    return [SampleInput(mk((3, 4)), name="full"),
            SampleInput(mk((3, 4)), kwargs={"dim": 1}, name="dim1"),
            SampleInput(mk((2, 3, 4)), kwargs={"dim": -1, "keepdim": True}, name="keepdim"),
            SampleInput(mk(()), name="0d")]


# ---------------------------------------------------------------------------
# error samples (torch must raise the same exception type)
# ---------------------------------------------------------------------------
def _arr(shape, dtype=np.float32):
    return np.arange(math.prod(shape), dtype=dtype).reshape(shape)


def _errors(*specs):
    def gen(op_info, rng):
        return [ErrorInput(SampleInput(inp, args, kwargs, name=name), err, match)
                for name, inp, args, kwargs, err, match in specs]
    return gen


_EMPTY = np.zeros((2, 0), np.float32)
_COMMON_DIM_ERRORS = (
    ("dim_out_of_range", _arr((2, 3)), (), {"dim": 2}, IndexError, "Dimension out of range"),
    ("dim_repeated", _arr((2, 3)), (), {"dim": (0, 0)}, RuntimeError, "appears multiple times"),
)


# ---------------------------------------------------------------------------
# the rows
# ---------------------------------------------------------------------------
_NO_INT_OUT = ("PyTorch computes sum/prod/cumsum into out's dtype (a float result into an "
               "int64 out is allowed), so the generated int-out check does not apply; "
               "out= is tested in tests/test_reduction.py")

# Value reductions are differentiable; index results (argmax, argsort...), bool/count
# results and unique (torch: not implemented) say supports_autograd=False.
AUTOGRAD_DEFAULTS = {"supports_autograd": True}

OPS = [
    OpInfo("sum", cygrad.sum, _reduction_ref(np.sum, int64=True), ALL, _reduce_samples,
           method="sum", error_inputs=_errors(*_COMMON_DIM_ERRORS)),
    OpInfo("sum", cygrad.sum, _reduction_ref(np.sum), ALL_NUMERIC,
           lambda op, dt, rng: [SampleInput(make_array((3, 4), dt, rng), (1,),
                                            {"dtype": cygrad.float64}, name="to_f64"),
                                SampleInput(make_array((3, 4), dt, rng), (),
                                            {"dtype": cygrad.int32}, name="to_i32")],
           method="sum", variant="dtype"),
    OpInfo("nansum", cygrad.nansum, _reduction_ref(np.nansum, int64=True), ALL_FLOATS,
           _reduce_samples, method="nansum"),
    OpInfo("mean", cygrad.mean, _reduction_ref(np.mean), ALL_FLOATS, _reduce_samples,
           method="mean", supports_out=True,
           error_inputs=_errors(
               ("int_input", _arr((2, 3), np.int64), (), {}, RuntimeError,
                "mean\\(\\): could not infer output dtype. Input dtype must be either a "
                "floating point or complex dtype. Got: Long"),
               ("int_dtype", _arr((2, 3)), (), {"dtype": cygrad.int64}, RuntimeError,
                "Optional dtype"),
               *_COMMON_DIM_ERRORS)),
    OpInfo("nanmean", cygrad.nanmean, _reduction_ref(np.nanmean), ALL_FLOATS,
           _reduce_samples, method="nanmean"),
    OpInfo("prod", cygrad.prod, _reduction_ref(np.prod, int64=True), ALL,
           lambda op, dt, rng: [s for s in _reduce_samples(op, dt, rng, tuples=False,
                                                           low=-1.5 if is_float(dt) else -3,
                                                           high=1.5 if is_float(dt) else 4)],
           method="prod"),
    OpInfo("max", cygrad.max, _quiet(np.max), ALL, _max_full_samples, method="max",
           variant="full", error_inputs=_errors(
               ("empty", _EMPTY, (), {}, RuntimeError, "Expected reduction dim to be specified"))),
    OpInfo("max", cygrad.max, _values_indices_ref(np.argmax), ALL,
           lambda op, dt, rng: _dim_samples(op, dt, rng, extra=_keepdim_extra),
           method="max", variant="dim", error_inputs=_errors(
               ("empty_dim", _EMPTY, (1,), {}, IndexError, "to have non-zero size"),
               ("tuple_dim", _arr((2, 3)), (), {"dim": (0,)}, TypeError, None))),
    OpInfo("max", cygrad.max, _quiet(np.maximum), ALL, _max_other_samples, method="max",
           variant="other"),
    OpInfo("min", cygrad.min, _quiet(np.min), ALL, _max_full_samples, method="min",
           variant="full"),
    OpInfo("min", cygrad.min, _values_indices_ref(np.argmin), ALL,
           lambda op, dt, rng: _dim_samples(op, dt, rng, extra=_keepdim_extra),
           method="min", variant="dim"),
    OpInfo("min", cygrad.min, _quiet(np.minimum), ALL, _max_other_samples, method="min",
           variant="other"),
    OpInfo("amax", cygrad.amax, _reduction_ref(np.max), ALL, _reduce_samples, method="amax",
           supports_out=True, error_inputs=_errors(
               ("empty_dim", _EMPTY, (1,), {}, IndexError, "to have non-zero size"),
               ("empty_all", _EMPTY, (), {}, RuntimeError, "Expected reduction dim"))),
    OpInfo("amin", cygrad.amin, _reduction_ref(np.min), ALL, _reduce_samples, method="amin",
           supports_out=True),
    OpInfo("aminmax", cygrad.aminmax, _aminmax_ref, ALL, _aminmax_samples, method="aminmax"),
    OpInfo("argmax", cygrad.argmax, _arg_ref(np.argmax), ALL_NUMERIC,
           lambda op, dt, rng: _reduce_samples(op, dt, rng, tuples=False) + [
               SampleInput(make_array((2, 3), dt, rng), kwargs={"keepdim": True},
                           name="flat_keepdim")],
           method="argmax", supports_out=True, supports_autograd=False, error_inputs=_errors(
               ("bool", np.array([True, False]), (), {}, RuntimeError, "does not support bool"),
               ("empty", _EMPTY, (), {}, IndexError, "input.numel\\(\\) == 0"),
               ("empty_dim", _EMPTY, (1,), {}, IndexError, "to have non-zero size"))),
    OpInfo("argmin", cygrad.argmin, _arg_ref(np.argmin), ALL_NUMERIC,
           lambda op, dt, rng: _reduce_samples(op, dt, rng, tuples=False),
           method="argmin", supports_out=True, supports_autograd=False),
    OpInfo("var", cygrad.var, _var_ref, ALL_FLOATS, _var_samples, method="var",
           supports_out=True, error_inputs=_errors(
               ("int_input", _arr((2, 3), np.int64), (), {}, RuntimeError,
                "std and var only support floating point"))),
    OpInfo("std", cygrad.std, _std_ref, ALL_FLOATS, _var_samples, method="std",
           supports_out=True),
    OpInfo("var_mean", cygrad.var_mean, _var_mean_ref, ALL_FLOATS, _var_samples),
    OpInfo("std_mean", cygrad.std_mean, _std_mean_ref, ALL_FLOATS, _var_samples),
    OpInfo("norm", cygrad.norm, _norm_ref, ALL_FLOATS, _norm_samples, method="norm",
           rtol=1e-4, atol=1e-4, error_inputs=_errors(
               ("int_input", _arr((2, 3), np.int64), (), {}, RuntimeError,
                "Expected a floating point"),
               ("bad_order", _arr((2, 3)), ("abc",), {}, RuntimeError, "not supported"),
               ("inf_empty", _EMPTY, (math.inf,), {}, RuntimeError, "empty"),
               ("nuc_one_dim", _arr((2, 3)), ("nuc", 0), {}, RuntimeError, "2-tuple"))),
    OpInfo("logsumexp", cygrad.logsumexp, _logsumexp_ref, ALL, _logsumexp_samples,
           method="logsumexp", supports_out=True),
    OpInfo("all", cygrad.all, _bool_ref(np.all), ALL, _reduce_samples, method="all",
           supports_autograd=False),
    OpInfo("any", cygrad.any, _bool_ref(np.any), ALL, _reduce_samples, method="any",
           supports_autograd=False),
    OpInfo("count_nonzero", cygrad.count_nonzero, _count_nonzero_ref, ALL,
           lambda op, dt, rng: [s for s in _reduce_samples(op, dt, rng)
                                if "keepdim" not in s.kwargs], method="count_nonzero",
           supports_autograd=False),
    OpInfo("cumsum", cygrad.cumsum, _scan_ref(np.cumsum), ALL, _scan_samples, method="cumsum"),
    OpInfo("cumprod", cygrad.cumprod, _scan_ref(np.cumprod), ALL, _scan_samples,
           method="cumprod"),
    OpInfo("softmax", cygrad.softmax, _softmax_ref, ALL_FLOATS, _softmax_samples,
           method="softmax", error_inputs=_errors(
               ("int_input", _arr((2, 3), np.int64), (0,), {}, NotImplementedError,
                "not implemented for 'Long'"))),
    OpInfo("log_softmax", cygrad.log_softmax, _log_softmax_ref, ALL_FLOATS, _softmax_samples,
           method="log_softmax"),
    OpInfo("sort", cygrad.sort, _sort_ref, ALL, _sort_samples, method="sort"),
    OpInfo("argsort", cygrad.argsort, _argsort_ref, ALL, _sort_samples, method="argsort",
           supports_autograd=False),
    OpInfo("msort", cygrad.msort, lambda a: _sort_ref(a, 0)[0], ALL,
           lambda op, dt, rng: [SampleInput(make_array((4, 3), dt, rng), name="mat"),
                                SampleInput(make_array((6,), dt, rng), name="vec")],
           supports_out=True, method="msort"),
    OpInfo("topk", cygrad.topk, _topk_ref, ALL_NUMERIC, _topk_samples, method="topk",
           error_inputs=_errors(
               ("k_too_big", _arr((2, 3)), (4,), {}, RuntimeError, "selected index k out of range"),
               ("k_negative", _arr((2, 3)), (-1,), {}, RuntimeError, "out of range"))),
    OpInfo("kthvalue", cygrad.kthvalue, _kthvalue_ref, ALL_NUMERIC, _kthvalue_samples,
           method="kthvalue", error_inputs=_errors(
               ("k_zero", _arr((2, 3)), (0,), {}, RuntimeError, "out of range"))),
    OpInfo("median", cygrad.median, _median_ref, ALL_NUMERIC, _median_samples,
           method="median"),
    OpInfo("mode", cygrad.mode, _mode_ref, ALL_NUMERIC, _mode_samples, method="mode"),
    OpInfo("unique", cygrad.unique, _unique_ref, ALL, _unique_samples, method="unique",
           supports_autograd=False),      # torch: the derivative for '_unique2' is not implemented
]
