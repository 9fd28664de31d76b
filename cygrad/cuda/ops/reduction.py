"""The 'cuda' kernels of the reduction family: reductions over any set of dims,
extremes and their indices, variance, logsumexp, norms, counts, scans, and the
histograms bincount and histc (kernels in ``cuda_src/reduction.cu`` and
``cuda_src/scan.cu``).

Each function has the signature and return convention of the 'cpu' kernel of the
same primitive (``cygrad/_core/backend_cpu/reduction.py``, ``tensorops.py``,
``indexing.py``). The kernels read their input through its strides: the host
orders the dims as ``[kept..., reduced...]`` (a scan: ``[others..., scanned]``)
in a ``cg_geometry``, so transposed and sliced inputs of every dtype are reduced
in place, without a copy. float16/bfloat16 compute in float; integer and bool
sums, products and cumulative sums give int64, as in PyTorch; complex64 and
complex128 have sum, mean, prod, all, any, count_nonzero, var_mean (a real
variance), cumsum, cumprod and the two product gradients (cumprod_grad,
exclusive_products).

Examples
--------
>>> from cygrad.cuda.ops import reduction
>>> "reduce_mean" in reduction.PRIMITIVES and "scan" in reduction.PRIMITIVES
True
"""
import math

from ..._core import dispatch
from ..._core import tensor as _C
from ..._core import dtype as _dt
from .. import _runtime
from .. import kernels as _k

#: every primitive this module registers for 'cuda'
PRIMITIVES = ("reduce_mean", "reduce_nansum", "reduce_nanmean", "reduce_prod", "reduce_extreme",
              "extreme_dim", "aminmax", "arg_extreme", "var_mean", "all_any", "count_nonzero",
              "count_true", "logsumexp", "vector_norm", "matrix_norm", "scan", "cum_extreme",
              "logcumsumexp", "cumprod_grad", "exclusive_products", "histc", "bincount")

_SUFFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
           "int8": "i8", "uint8": "u8", "int16": "i16", "int32": "i32", "int64": "i64",
           "bool": "b8", "complex64": "c64", "complex128": "c128"}
FLOATS = ("float16", "bfloat16", "float32", "float64")
#: sum, mean, prod, var_mean, all/any, count_nonzero, cumsum/cumprod and the
#: product gradients also take these
COMPLEX = ("complex64", "complex128")
INTS = ("int8", "uint8", "int16", "int32", "int64", "bool")
ALL = FLOATS + INTS
#: folds whose innermost kept dim has stride 1 use the column kernels from this
#: many rows on (fewer rows would leave most of a GPU idle in them)
COLUMN_ROWS = 2048
#: folds of fewer rows than SPLIT_ROWS, each of SPLIT_COLS elements or more, cut
#: each row into segments of about SPLIT_SEGMENT elements, one block each
#: (cg_fold_split), and then combine each row's segments (cg_merge_rows)
SPLIT_ROWS = 256
SPLIT_COLS = 16384
SPLIT_SEGMENT = 4096
#: at most this many blocks for the segments of all rows together
SPLIT_BLOCKS = 1024


def _suffix(primitive, dtype, allowed):
    if dtype.name not in allowed:
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype {dtype} "
                                  f"(its CUDA kernels cover {', '.join(allowed)})")
    return _SUFFIX[dtype.name]


def _block(n):
    """Threads per block for rows of ``n`` elements: a multiple of 32, at most 256."""
    b = 32
    while b < n and b < 256:
        b *= 2
    return b


def _zeros(shape, dtype, device):
    """A zero-filled tensor made on the device (the driver's memset)."""
    out = _C._empty(tuple(shape), dtype, device)
    nbytes = out.numel() * out.element_size()
    if nbytes:
        with _runtime.on_device(device.index) as d:
            d.memset_d8(out.data_ptr(), 0, nbytes)
    return out


def _to(x, dt):
    return x if x.dtype is dt else x.to(dt)


# ---------------------------------------------------------------- folds over dims

def _coalesce(sizes, strides):
    """The same row-major walk over fewer dims: size-1 dims dropped, and a dim
    merged into the one before it where that one steps over it exactly (each
    dim costs the kernels a division per element)."""
    out_sizes, out_strides = [], []
    for size, stride in zip(sizes, strides):
        if size == 1:
            continue
        if out_sizes and out_strides[-1] == stride * size:
            out_sizes[-1] *= size
            out_strides[-1] = stride
        else:
            out_sizes.append(size)
            out_strides.append(stride)
    return out_sizes, out_strides


class _Plan:
    """``x`` seen as ``rows`` x ``cols``: kept dims first, reduced dims last."""
    __slots__ = ("rows", "cols", "nk", "geo", "out_shape", "columns")

    def __init__(self, x, axes, keepdim):
        nd = x.dim()
        if axes is None:
            red = tuple(range(nd))
        else:
            axes = (axes,) if isinstance(axes, int) else axes
            red = tuple(sorted({a % nd for a in axes})) if nd else ()
        kept = [d for d in range(nd) if d not in red]
        shape, strides = tuple(x.shape), x.stride()
        self.rows = math.prod(shape[d] for d in kept)
        self.cols = math.prod(shape[d] for d in red)
        ks, kst = _coalesce([shape[d] for d in kept], [strides[d] for d in kept])
        rs, rst = _coalesce([shape[d] for d in red], [strides[d] for d in red])
        self.nk = len(ks)
        self.columns = bool(kst) and kst[-1] == 1 and self.rows >= COLUMN_ROWS
        self.geo = _k.geometry(tuple(ks + rs), (), tuple(kst + rst))
        self.out_shape = (tuple(1 if d in red else shape[d] for d in range(nd)) if keepdim
                          else tuple(shape[d] for d in kept))

    def segments(self):
        """How many segments the split form cuts each row into (1: no split)."""
        if self.columns or self.rows >= SPLIT_ROWS or self.cols < SPLIT_COLS:
            return 1
        return max(1, min(-(-self.cols // SPLIT_SEGMENT), SPLIT_BLOCKS // self.rows))

    def launch(self, x, file, name, outs, extra=(), columns=False):
        """Launch ``name``; with ``columns``, the one-pass folds' other forms
        (``_cols_``, or ``_split_`` then ``_merge_``) where the plan calls for them."""
        if not self.rows:
            return
        nseg = self.segments() if columns else 1
        if nseg > 1:
            op, _, sfx = name.rpartition("_")
            # 8 bytes per accumulator, 16 for complex128's (re, im) pair of doubles
            width = 2 if x.dtype is _dt.complex128 else 1
            part = _C._empty((self.rows * nseg * width,), _dt.int64, x.device)
            _k.launch(x.device.index, file, f"{op}_split_{sfx}",
                      (min(self.rows * nseg, _k.MAX_BLOCKS), 1, 1),
                      (_block(-(-self.cols // nseg)), 1, 1),
                      (self.rows, self.cols, self.nk, self.geo, part.data_ptr(), x.data_ptr(),
                       *extra, nseg))
            _k.launch(x.device.index, file, f"{op}_merge_{sfx}", (min(self.rows, _k.MAX_BLOCKS), 1, 1),
                      (_block(nseg), 1, 1), (self.rows, nseg, *outs, part.data_ptr(), *extra))
            return
        if columns and self.columns:
            op, _, sfx = name.rpartition("_")
            name = f"{op}_cols_{sfx}"
            grid = (min(-(-self.rows // 32), _k.MAX_BLOCKS), 1, 1)
            block = (32, max(1, min(8, self.cols)), 1)
        else:
            grid, block = (min(self.rows, _k.MAX_BLOCKS), 1, 1), (_block(self.cols), 1, 1)
        _k.launch(x.device.index, file, name, grid, block,
                  (self.rows, self.cols, self.nk, self.geo, *outs, x.data_ptr(), *extra))


_plans = {}             # (shape, strides, axes, keepdim) -> _Plan
_MAX_PLANS = 4096


def _plan(x, axes, keepdim):
    """The :class:`_Plan` of ``x``'s shape and strides, kept: a repeated fold
    (a bias gradient every step) skips collapsing the dims and packing them."""
    key = (x.shape, x.stride(), axes if type(axes) is not list else tuple(axes), keepdim)
    try:
        plan = _plans.get(key)
    except TypeError:           # (axes of a type that does not hash: not kept)
        return _Plan(x, axes, keepdim)
    if plan is None:
        if len(_plans) >= _MAX_PLANS:
            _plans.clear()
        plan = _plans[key] = _Plan(x, axes, keepdim)
    return plan


_ROW_ONLY = ("nanmean", "logsumexp")     # two-pass kernels: no column form


def _fold(op, x, axes, keepdim, out_dtype, param=0.0, allowed=ALL, primitive=None, extra=None):
    """One launch of ``cg_<op>_<dtype>``: ``out[r] = fold(row r)``; the kernel's
    trailing arguments are ``extra``, else the one double ``param``."""
    sfx = _suffix(primitive or op, x.dtype, allowed)
    plan = _plan(x, axes, keepdim)
    # made in its final shape, not as a view of a flat result: a gradient made
    # here becomes a leaf's .grad without a copy (the engine keeps no views)
    out = _C._empty(plan.out_shape, out_dtype, x.device)
    plan.launch(x, "reduction.cu", f"cg_{op}_{sfx}", (out.data_ptr(),),
                (float(param),) if extra is None else extra,
                columns=op not in _ROW_ONLY)
    return out


def reduce_mean(x, axes, keepdim, dt, n):
    """Mean over ``axes`` (``n`` elements per result; NaN when ``n`` is 0).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.ones(2, 3, device="cuda").mean(1).tolist()  # doctest: +SKIP
    [1.0, 1.0]
    """
    return _fold("mean", _to(x, dt), axes, keepdim, dt, n, FLOATS + COMPLEX, "reduce_mean")


def _int_or_float(primitive, op, x, axes, keepdim, dt):
    """A sum-like fold: integers and bool accumulate in int64, floats in their dtype."""
    if dt.name in INTS:
        # an integer result (x.sum(dtype=torch.int32) of floats or complex values:
        # each element converted to int64 first, as the CPU kernel does; integer
        # sums share the nansum kernels: no NaN to skip)
        x = x if x.dtype.name in INTS else _to(x, _dt.int64)
        res = _fold("nansum" if op == "sum" else op, x, axes, keepdim, _dt.int64, allowed=INTS,
                    primitive=primitive)
        return _to(res, dt)
    # (complex: sum and prod; nansum has no complex kernels, as PyTorch has none)
    allowed = FLOATS if op == "nansum" else FLOATS + COMPLEX
    return _fold(op, _to(x, dt), axes, keepdim, dt, allowed=allowed, primitive=primitive)


def fold_sum(x, axes, keepdim):
    """``reduce_sum`` of a float32/float64 ``x`` into its own dtype through the fold,
    which reads ``x`` through its strides (:func:`cygrad.cuda.tensors.reduce_sum`
    sends the sums whose reduced dims are not contiguous here directly: a bias or
    weight gradient every step, without the dtype dispatch of :func:`sum_other_dtypes`).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.ones(3, 2, device="cuda").sum(0).tolist()  # doctest: +SKIP
    [3.0, 3.0]
    """
    return _fold("sum", x, axes, keepdim, x.dtype, allowed=FLOATS, primitive="reduce_sum")


def sum_other_dtypes(x, axes, keepdim, dt):
    """``reduce_sum`` where the input or the result is not float32/float64
    (:func:`cygrad.cuda.tensors.reduce_sum` sends those here): integers and bool
    accumulate in int64, float16/bfloat16 in float, complex as (re, im) pairs.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([True, False, True], device="cuda").sum().item()  # doctest: +SKIP
    2
    """
    return _int_or_float("reduce_sum", "sum", x, axes, keepdim, dt)


def reduce_nansum(x, axes, keepdim, dt):
    """Sum over ``axes`` with NaN counted as 0.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1.0, float("nan")], device="cuda").nansum().item()  # doctest: +SKIP
    1.0
    """
    return _int_or_float("reduce_nansum", "nansum", x, axes, keepdim, dt)


def reduce_prod(x, axes, keepdim, dt):
    """Product over ``axes`` into dtype ``dt``.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([2.0, 3.0], device="cuda").prod().item()  # doctest: +SKIP
    6.0
    """
    return _int_or_float("reduce_prod", "prod", x, axes, keepdim, dt)


def reduce_nanmean(x, axes, keepdim, dt):
    """Mean of the non-NaN elements over ``axes``.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1.0, float("nan"), 3.0], device="cuda").nanmean().item()  # doctest: +SKIP
    2.0
    """
    _suffix("reduce_nanmean", dt, FLOATS)
    return _fold("nanmean", _to(x, dt), axes, keepdim, dt, allowed=FLOATS, extra=())


def reduce_extreme(x, axes, keepdim, largest):
    """max (``largest``) or min over ``axes``; NaN propagates.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1.0, 5.0, 2.0], device="cuda").amax().item()  # doctest: +SKIP
    5.0
    """
    return _fold("max" if largest else "min", x, axes, keepdim, x.dtype,
                 primitive="reduce_extreme")


def aminmax(x, axes, keepdim):
    """``(min, max)`` over ``axes``.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> [t.item() for t in cygrad.aminmax(cygrad.tensor([3, 1, 2], device="cuda"))]  # doctest: +SKIP
    [1, 3]
    """
    return (_fold("min", x, axes, keepdim, x.dtype, primitive="aminmax"),
            _fold("max", x, axes, keepdim, x.dtype, primitive="aminmax"))


def _arg(primitive, x, axes, keepdim, largest, values):
    sfx = _suffix(primitive, x.dtype, ALL)
    plan = _Plan(x, axes, keepdim)
    idx = _C._empty((plan.rows,), _dt.int64, x.device)
    val = _C._empty((plan.rows,), x.dtype, x.device) if values else None
    plan.launch(x, "reduction.cu", f"cg_arg_extreme_{sfx}",
                (0 if val is None else val.data_ptr(), idx.data_ptr()), (int(bool(largest)),))
    idx = idx.reshape(plan.out_shape)
    return idx if val is None else (val.reshape(plan.out_shape), idx)


def extreme_dim(x, d, keepdim, largest):
    """``(values, indices)`` of max/min along dim ``d`` (NaN wins, first index on ties).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([[1.0, 3.0, 3.0]], device="cuda").max(1).indices.tolist()  # doctest: +SKIP
    [1]
    """
    return _arg("extreme_dim", x, (d,) if x.dim() else (), keepdim, largest, True)


def arg_extreme(x, d, keepdim, largest):
    """argmax (``largest``) or argmin along ``d``, or of the flattened tensor when ``d``
    is None (then ``keepdim`` gives all dims size 1).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([[1.0, 7.0], [9.0, 2.0]], device="cuda").argmax().item()  # doctest: +SKIP
    2
    """
    if d is None:
        return _arg("arg_extreme", x, None, keepdim, largest, False)
    return _arg("arg_extreme", x, (d,) if x.dim() else (), keepdim, largest, False)


def var_mean(x, axes, keepdim, n, dof, take_sqrt):
    """``(variance, mean)`` over ``axes`` (two passes: the mean, then the squared
    deviations over ``dof``); the standard deviation when ``take_sqrt``.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1.0, 2.0, 3.0], device="cuda").var().item()  # doctest: +SKIP
    1.0
    """
    sfx = _suffix("var_mean", x.dtype, FLOATS + COMPLEX)
    plan = _Plan(x, axes, keepdim)
    # (the variance of complex values is real: the mean of |x - mean|^2)
    var = _C._empty((plan.rows,), x.dtype.to_real(), x.device)
    mean = _C._empty((plan.rows,), x.dtype, x.device)
    plan.launch(x, "reduction.cu", f"cg_var_mean_{sfx}", (var.data_ptr(), mean.data_ptr()),
                (float(n), float(dof), int(bool(take_sqrt))))
    return var.reshape(plan.out_shape), mean.reshape(plan.out_shape)


def all_any(x, axes, keepdim, is_all, dt):
    """all (``is_all``) or any over ``axes`` (``()``: elementwise), as dtype ``dt``
    (bool or uint8: the kernel writes 0/1 bytes).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1, 0], device="cuda").any().item()  # doctest: +SKIP
    True
    """
    if dt.name not in ("bool", "uint8"):
        raise NotImplementedError(f"no 'cuda' kernel for primitive 'all_any' giving {dt}")
    return _fold("all" if is_all else "any", x, axes, keepdim, dt, allowed=ALL + COMPLEX,
                 primitive="all_any")


def count_nonzero(x, axes):
    """Number of nonzero elements over ``axes`` (int64).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1, 0, 2], device="cuda").count_nonzero().item()  # doctest: +SKIP
    2
    """
    return _fold("count_nonzero", x, axes, False, _dt.int64, allowed=ALL + COMPLEX)


def count_true(mask):
    """How many elements of the bool tensor ``mask`` are True (a Python int: the one
    number read back, as it decides the shape of what follows).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> from cygrad._core.dispatch import kernel
    >>> m = cygrad.tensor([True, False, True], device="cuda")  # doctest: +SKIP
    >>> kernel("count_true", "cuda")(m)  # doctest: +SKIP
    2
    """
    return int(_fold("count_nonzero", mask, None, False, _dt.int64, primitive="count_true").item())


def logsumexp(x, axes, keepdim, dt):
    """``log(sum(exp(x)))`` over ``axes`` in dtype ``dt``, shifted by the max.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> round(cygrad.zeros(2, device="cuda").logsumexp(0).item(), 4)  # doctest: +SKIP
    0.6931
    """
    if dt.is_complex:
        return _complex_logsumexp(_to(x, dt), axes, keepdim)
    _suffix("logsumexp", dt, FLOATS)
    return _fold("logsumexp", _to(x, dt), axes, keepdim, dt, allowed=FLOATS, extra=())


def _complex_logsumexp(x, axes, keepdim):
    """Complex ``logsumexp`` from the device's own kernels (the max of the real
    parts, complex ``exp``, ``sum`` and ``log``), as the CPU kernel computes it:
    ``|exp(z)|`` is ``exp(z.real)``, so the largest real part is the shift."""
    dims = tuple(range(x.dim())) if axes is None else tuple(axes)
    shift = x.real.amax(dims, keepdim=True) if x.numel() else x.real.sum(dims, keepdim=True)
    shift = shift.masked_fill(shift.isinf(), 0)     # inf - inf would be NaN
    res = (x - shift).exp().sum(dims, keepdim=True).log() + shift
    return res if keepdim else res.squeeze(dims)


def _norm_mode(p):
    if p == 0:
        return 0
    if p == 1:
        return 1
    if p == 2:
        return 2
    if p == math.inf:
        return 3
    if p == -math.inf:
        return 4
    return 5


def vector_norm(x, p, axes, keepdim, dt):
    """The ``p``-norm (a float; inf, -inf, 0 counts nonzeros) over ``axes``.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([3.0, 4.0], device="cuda").norm().item()  # doctest: +SKIP
    5.0
    """
    _suffix("vector_norm", dt, FLOATS)
    return _fold("vector_norm", _to(x, dt), axes, keepdim, dt, allowed=FLOATS,
                 extra=(_norm_mode(p), float(p)))


def matrix_norm(x, ord, dims, keepdim, dt):
    """The matrix norm ``ord`` over the two ``dims``: 'fro', 1, -1, inf, -inf (the
    largest or smallest column or row sum of ``|x|``); 2, -2 and 'nuc' need a
    singular value decomposition, which the CUDA kernels do not have.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> from cygrad._core.dispatch import kernel
    >>> x = cygrad.tensor([[1.0, -2.0], [3.0, 4.0]], device="cuda")  # doctest: +SKIP
    >>> kernel("matrix_norm", "cuda")(x, 1, (0, 1), False, cygrad.float32).item()  # doctest: +SKIP
    6.0
    """
    if ord == "fro":
        return vector_norm(x, 2.0, tuple(dims), keepdim, dt)
    if ord in ("nuc", 2, -2):
        raise NotImplementedError(f"no 'cuda' kernel for primitive 'matrix_norm' with ord={ord!r}: "
                                  "it needs a singular value decomposition, which cygrad's CUDA "
                                  "kernels do not have")
    if ord not in (1, -1, math.inf, -math.inf):
        raise RuntimeError(f"linalg.matrix_norm: Order {ord} not supported.")
    # ord +-1: extreme over columns of the sums down each column; +-inf: over rows
    summed, other = (dims[0], dims[1]) if abs(ord) == 1 else (dims[1], dims[0])
    sums = vector_norm(x, 1.0, (summed,), True, dt)
    res = _fold("max" if ord > 0 else "min", sums, (other,), True, dt, primitive="matrix_norm")
    if keepdim:
        return res
    return res.reshape(tuple(s for d, s in enumerate(res.shape) if d not in dims))


# ---------------------------------------------------------------- scans

def _scan_geometry(x, d, out, extra=()):
    """rows, the scanned length and the geometry with dim ``d`` moved last
    (``stride_out`` from ``out``, ``stride_a`` from ``x``, ``stride_b`` from ``extra``)."""
    nd = x.dim()
    perm = [k for k in range(nd) if k != d] + [d]
    shape = tuple(x.shape)
    n = shape[d]
    rows = x.numel() // n if n else 0

    def st(t):
        s = t.stride()
        return tuple(s[k] for k in perm)
    geo = _k.geometry(tuple(shape[k] for k in perm), st(out), st(x), st(extra[0]) if extra else ())
    return rows, n, geo


def _scan_launch(name, x, d, out, idx=None, extra=()):
    rows, n, geo = _scan_geometry(x, d, out)
    if rows:
        args = (rows, geo, out.data_ptr()) + (() if idx is None else (idx.data_ptr(),))
        _k.launch(x.device.index, "scan.cu", name, (min(rows, _k.MAX_BLOCKS), 1, 1),
                  (_block(n), 1, 1), args + (x.data_ptr(),) + extra)


def _as_1d(x):
    return x.reshape(1) if x.dim() == 0 else x


def scan(x, d, dt, product):
    """Running sum (or product when ``product``) along ``d``, in dtype ``dt``.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1, 2, 3], device="cuda").cumsum(0).tolist()  # doctest: +SKIP
    [1, 3, 6]
    """
    shape = tuple(x.shape)
    x = _as_1d(x)
    op = "cumprod" if product else "cumsum"
    if x.dtype.name in INTS and dt.name in INTS:
        sfx = _suffix("scan", x.dtype, INTS)
        out = _C._empty(tuple(x.shape), _dt.int64, x.device)
        _scan_launch(f"cg_{op}_{sfx}", x, d, out)
        return _to(out, dt).reshape(shape)
    sfx = _suffix("scan", dt, FLOATS + COMPLEX)
    x = _to(x, dt)
    out = _C._empty(tuple(x.shape), dt, x.device)
    _scan_launch(f"cg_{op}_{sfx}", x, d, out)
    return out.reshape(shape)


def cum_extreme(x, d, largest):
    """Running max (``largest``) or min along ``d`` and the index where it was last
    reached; a NaN wins and stays.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1, 3, 2, 3], device="cuda").cummax(0).indices.tolist()  # doctest: +SKIP
    [0, 1, 1, 3]
    """
    sfx = _suffix("cum_extreme", x.dtype, ALL)
    shape = tuple(x.shape)
    x = _as_1d(x)
    vals = _C._empty(tuple(x.shape), x.dtype, x.device)
    idx = _C._empty(tuple(x.shape), _dt.int64, x.device)
    _scan_launch(f"cg_cum_extreme_{sfx}", x, d, vals, idx, (int(bool(largest)),))
    return vals.reshape(shape), idx.reshape(shape)


def logcumsumexp(x, d):
    """``log(cumsum(exp(x)))`` along ``d`` (a scan of ``logaddexp``: no overflow).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.zeros(2, device="cuda").logcumsumexp(0)[1].item()  # doctest: +SKIP
    0.6931471824645996
    """
    sfx = _suffix("logcumsumexp", x.dtype, FLOATS)
    shape = tuple(x.shape)
    x = _as_1d(x)
    out = _C._empty(tuple(x.shape), x.dtype, x.device)
    _scan_launch(f"cg_logcumsumexp_{sfx}", x, d, out)
    return out.reshape(shape)


def _row_grid(rows):
    return _k.grid_1d(rows), (_k.BLOCK, 1, 1)


def cumprod_grad(x, grad, y, d):
    """Cumprod's gradient along ``d`` for ``x`` holding zeros, in O(n) per row (one
    thread per row).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> from cygrad._core.dispatch import kernel
    >>> x = cygrad.tensor([2.0, 0.0, 3.0], device="cuda")  # doctest: +SKIP
    >>> kernel("cumprod_grad", "cuda")(x, cygrad.ones_like(x), x.cumprod(0), 0).tolist()  # doctest: +SKIP
    [1.0, 8.0, 0.0]
    """
    sfx = _suffix("cumprod_grad", x.dtype, FLOATS + COMPLEX)
    shape = tuple(x.shape)
    x, grad, y = _as_1d(x), _as_1d(_to(grad, x.dtype)), _as_1d(_to(y, x.dtype))
    out = _C._empty(tuple(x.shape), x.dtype, x.device)
    rows, n, geo = _scan_geometry(x, d, out, (grad,))
    _, _, geo_y = _scan_geometry(y, d, out)
    if rows:
        _k.launch(x.device.index, "scan.cu", f"cg_cumprod_grad_{sfx}", *_row_grid(rows),
                  (rows, geo, geo_y, out.data_ptr(), x.data_ptr(), grad.data_ptr(), y.data_ptr()))
    return out.reshape(shape)


def exclusive_products(rows):
    """For each element along the last dim, the product of all the others (no
    division: the products before it times the products after it).

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> from cygrad._core.dispatch import kernel
    >>> x = cygrad.tensor([[2.0, 0.0, 3.0]], device="cuda")  # doctest: +SKIP
    >>> kernel("exclusive_products", "cuda")(x).tolist()  # doctest: +SKIP
    [[0.0, 6.0, 0.0]]
    """
    sfx = _suffix("exclusive_products", rows.dtype, FLOATS + COMPLEX)
    shape = tuple(rows.shape)
    x = _as_1d(rows)
    out = _C._empty(tuple(x.shape), x.dtype, x.device)
    nrows, n, geo = _scan_geometry(x, x.dim() - 1, out)
    if nrows:
        _k.launch(x.device.index, "scan.cu", f"cg_exclusive_products_{sfx}", *_row_grid(nrows),
                  (nrows, geo, out.data_ptr(), x.data_ptr()))
    return out.reshape(shape)


# ---------------------------------------------------------------- histograms

def histc(x, bins, lo, hi):
    """Counts of ``bins`` equal bins over ``[lo, hi]`` (the last bin closed); values
    outside are ignored. One atomic add per counted element.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([1.0, 2.0, 1.0], device="cuda").histc(4, 0, 3).tolist()  # doctest: +SKIP
    [0.0, 2.0, 1.0, 0.0]
    """
    sfx = _suffix("histc", x.dtype, ("float32", "float64"))
    out = _zeros((bins,), x.dtype, x.device)
    n = x.numel()
    if n:
        sizes, strides = _coalesce(x.shape, x.stride())
        geo = _k.geometry(tuple(sizes), (), tuple(strides))
        _k.launch(x.device.index, "reduction.cu", f"cg_histc_{sfx}", _k.grid_1d(n),
                  (_k.BLOCK, 1, 1), (n, geo, out.data_ptr(), x.data_ptr(), int(bins),
                                     float(lo), float(hi)))
    return out


def bincount(x, weights, minlength, dt):
    """Counts (int64) or sums of ``weights`` (dtype ``dt``) of each value of the 1-D
    non-negative integer ``x``, by atomic adds; the largest value, which decides
    the length, is the one number read back.

    Examples
    --------
    >>> import cygrad  # doctest: +SKIP
    >>> cygrad.tensor([0, 1, 1, 3], device="cuda").bincount().tolist()  # doctest: +SKIP
    [1, 2, 0, 1]
    """
    sfx = _suffix("bincount", x.dtype, INTS[:-1])
    n = x.numel()
    length = max(int(minlength), int(_fold("max", x, None, False, x.dtype).item()) + 1 if n else 0)
    grid, block = _k.grid_1d(n), (_k.BLOCK, 1, 1)
    if weights is None:
        out = _zeros((length,), _dt.int64, x.device)
        if n:
            _k.launch(x.device.index, "reduction.cu", f"cg_bincount_{sfx}", grid, block,
                      (n, out.data_ptr(), x.data_ptr(), x.stride()[0]))
        return _to(out, dt)
    wsfx = _suffix("bincount", dt, ("float32", "float64"))
    w = _to(weights, dt)
    out = _zeros((length,), dt, x.device)
    if n:
        _k.launch(x.device.index, "reduction.cu", f"cg_bincount_w_{sfx}_{wsfx}", grid, block,
                  (n, out.data_ptr(), x.data_ptr(), x.stride()[0], w.data_ptr(), w.stride()[0]))
    return out


def register():
    """Register this family's 'cuda' kernels with the kernel table.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda.ops import reduction
    >>> reduction.register()
    >>> dispatch.kernel("scan", "cuda") is reduction.scan
    True
    """
    for name in PRIMITIVES:
        dispatch.register(name, "cuda")(globals()[name])
