"""CPU sliding-window kernels (cpu/conv.c): im2col, col2im, max pooling and its
gradient, for any number of spatial dims; and the fused 2-d convolution kernels
(cpu/conv_gemm.c, through the BLAS of ``gemm.pyx``): :func:`conv2d_gemm`,
:func:`conv2d_gemm_weight` and :func:`conv2d_gemm_input`.

Each function checks its arguments with the GIL held (shapes, dtypes, devices,
geometry that fits in 64-bit offsets), raising a Python exception, then runs the
C loop without the GIL, split over cygrad's thread pool for large sizes. They
are the CPU entries of the kernel table (``backend_cpu/conv.py``); the ops above call
them through :func:`cygrad._core.dispatch.lookup`.

Geometry arguments are tuples with one int per spatial dim: ``kernel``,
``dilation``, ``pads`` (zero/-inf padding before each dim; the padding after it
is implied by ``out``), ``stride`` and ``out`` (window positions per dim).

Examples
--------
>>> import cygrad
>>> from cygrad._core import conv_kernels as K
>>> x = cygrad.arange(4.0).reshape(1, 1, 4)
>>> K.im2col(x, (2,), (1,), (0,), (2,), (2,)).tolist()
[[[0.0, 2.0], [1.0, 3.0]]]
"""
from libc.stdint cimport int64_t, uintptr_t
from libc.string cimport memcpy

from .dtype cimport dtype as DType, DT_FLOAT32, DT_FLOAT64, DT_INT64, dtype_from_code
from .storage cimport Storage
from .tensor cimport TensorBase, new_empty, pool_run, MAX_DIMS, cg_chunk_fn

cdef extern from "kernels.h" nogil:
    ctypedef Py_ssize_t cg_index
    ctypedef struct cg_window:
        int nsp
        cg_index n, c
        cg_index size[MAX_DIMS]
        cg_index kernel[MAX_DIMS]
        cg_index dilation[MAX_DIMS]
        cg_index stride[MAX_DIMS]
        cg_index pad[MAX_DIMS]
        cg_index out[MAX_DIMS]
    ctypedef void (*cg_conv_pool_fn)(int nchunks, cg_chunk_fn fn, void* ctx) noexcept nogil
    void cg_conv_set_pool(cg_conv_pool_fn run)
    cg_index cg_conv_parallel_min
    void cg_im2col(int itemsize, const cg_window* w, const char* x, const cg_index* xs,
                   char* cols, cg_index cn, cg_index cck)
    int cg_col2im(int dtype, const cg_window* w, const char* cols, const cg_index* cs,
                  char* out)
    int cg_max_pool(int dtype, const cg_window* w, const char* x, const cg_index* xs,
                    char* values, int64_t* idx)
    int cg_max_pool_backward(int dtype, const cg_window* w, const char* grad,
                             const cg_index* gs, const int64_t* idx, const cg_index* is_,
                             char* out)

cdef extern from "conv_gemm.h" nogil:
    ctypedef void (*cg_sgemm_fn)(int order, int ta, int tb, int64_t m, int64_t n, int64_t k,
                                 float alpha, const float* a, int64_t lda, const float* b,
                                 int64_t ldb, float beta, float* c, int64_t ldc)
    ctypedef void (*cg_dgemm_fn)(int order, int ta, int tb, int64_t m, int64_t n, int64_t k,
                                 double alpha, const double* a, int64_t lda, const double* b,
                                 int64_t ldb, double beta, double* c, int64_t ldc)
    ctypedef void (*cg_set_threads_fn)(int n)
    ctypedef struct cg_conv_geom:
        cg_index n, c, h, w, cout, groups, kh, kw, oh, ow
        cg_index sh, sw, dh, dw, ph, pw
        cg_index xs[4]
    void cg_conv_gemm_set(cg_conv_pool_fn run, cg_sgemm_fn s, cg_dgemm_fn d,
                          cg_set_threads_fn t)
    int cg_conv_gemm_ready()
    int cg_conv2d_gemm_forward(const cg_conv_geom* g, int f64, const char* x, const char* w,
                               const char* bias, char* out, int threads)
    int cg_conv2d_gemm_weight(const cg_conv_geom* g, int f64, const char* x, const char* dy,
                              char* out, int threads)
    int cg_conv2d_gemm_input(const cg_conv_geom* g, int f64, const char* dy, const char* w,
                             char* out, int threads)

cg_conv_set_pool(pool_run)


def _connect_blas():
    from .gemm import blas_pointers
    cdef uintptr_t s, d, t
    s, d, t = blas_pointers()
    if s and d:
        cg_conv_gemm_set(pool_run, <cg_sgemm_fn>s, <cg_dgemm_fn>d, <cg_set_threads_fn>t)


_connect_blas()

# Releasing the GIL costs a mutex round trip: only worth it for real work.
cdef enum:
    GIL_RELEASE_MIN = 16384

# Offsets are products of sizes, strides and geometry; keeping every factor below
# this bound (and checking the sums in Python ints) keeps them inside int64.
cdef object _LIMIT = 1 << 62

#: dtypes with a C kernel, per primitive (im2col moves bytes: every dtype).
FLOAT_DTYPES = ("float32", "float64")


cdef _cpu(TensorBase t, str what):
    if t.device.type != "cpu":
        raise RuntimeError(f"{what}: expected a CPU tensor, got one on {t.device}")


cdef tuple _ints(object values, int n, str name, str what, long low):
    cdef tuple res
    try:
        res = tuple(int(v) for v in values)
    except TypeError:
        raise TypeError(f"{what}: {name} must be a tuple of {n} ints, got {values!r}") from None
    if len(res) != n:
        raise RuntimeError(f"{what}: {name} must have {n} values (one per spatial dim), "
                           f"got {list(res)}")
    for v in res:
        if v < low or v >= _LIMIT:
            raise RuntimeError(f"{what}: {name} must be at least {low}, got {list(res)}")
    return res


cdef int _window(cg_window* w, tuple shape, tuple size, kernel, dilation, pads, stride,
                 out, str what) except -1:
    """Fill ``w`` for an ``(N, C, *size)`` tensor; ``shape`` gives N and C."""
    cdef int n = len(size), d
    if n < 1 or n > MAX_DIMS - 2:
        raise RuntimeError(f"{what}: expected 1 to {MAX_DIMS - 2} spatial dims, got {n}")
    k = _ints(kernel, n, "kernel", what, 1)
    dl = _ints(dilation, n, "dilation", what, 1)
    p = _ints(pads, n, "pads", what, 0)
    s = _ints(stride, n, "stride", what, 1)
    o = _ints(out, n, "out", what, 0)
    _ints(size, n, "size", what, 0)
    for d in range(n):
        if (o[d] * s[d] + k[d] * dl[d] + p[d] + size[d]) >= _LIMIT:
            raise RuntimeError(f"{what}: window geometry too large")
    w.nsp = n
    w.n = shape[0]
    w.c = shape[1]
    for d in range(n):
        w.size[d] = size[d]
        w.kernel[d] = k[d]
        w.dilation[d] = dl[d]
        w.pad[d] = p[d]
        w.stride[d] = s[d]
        w.out[d] = o[d]
    return 0


cdef TensorBase _empty(DType dt, tuple shape, object device):
    cdef Py_ssize_t dims[MAX_DIMS]
    cdef int i
    for i in range(len(shape)):
        dims[i] = shape[i]
    return new_empty(dt, len(shape), dims, device)


cdef inline Py_ssize_t _prod(tuple v):
    cdef Py_ssize_t p = 1
    for x in v:
        p *= <Py_ssize_t>x
    return p


cdef DType _float_dtype(TensorBase t, str what):
    cdef DType dt = t._dtype
    if dt.code != DT_FLOAT32 and dt.code != DT_FLOAT64:
        raise TypeError(f"{what}: no CPU kernel for dtype {dt.name} (float32 and float64 only)")
    return dt


def im2col(TensorBase x not None, kernel, dilation, pads, stride, out, bint channel_major=False):
    """Window columns of ``x`` (``(N, C, *size)``, any strides, any dtype):
    ``(N, C * prod(kernel), prod(out))``; positions in the padding read as zero.

    ``channel_major`` lays the same tensor out in memory as ``(C * prod(kernel), N,
    prod(out))`` (the result is then a permuted view): what one matrix product over
    the whole batch wants.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.conv_kernels import im2col
    >>> im2col(cygrad.ones(1, 1, 2), (2,), (1,), (1,), (1,), (3,)).tolist()
    [[[0.0, 1.0, 1.0], [1.0, 1.0, 0.0]]]
    """
    cdef cg_window w
    cdef cg_index xs[MAX_DIMS]
    cdef int i
    _cpu(x, "im2col")
    if x._ndim < 3:
        raise RuntimeError(f"im2col: expected an (N, C, *spatial) tensor, got {x._ndim} dims")
    shape = tuple(x.shape)
    _window(&w, shape, shape[2:], kernel, dilation, pads, stride, out, "im2col")
    cdef Py_ssize_t ck = shape[1] * _prod(tuple(kernel)), L = _prod(tuple(out))
    cdef Py_ssize_t cn, cck
    cdef TensorBase res
    if channel_major:
        res = _empty(x._dtype, (ck, shape[0], L), x.device)
        cn, cck = L, shape[0] * L
    else:
        res = _empty(x._dtype, (shape[0], ck, L), x.device)
        cn, cck = ck * L, L
    for i in range(x._ndim):
        xs[i] = x._strides[i]
    cdef Storage keep_x = x._storage, keep_res = res._storage
    cdef const char* src = x.ptr()
    cdef char* dst = res.ptr()
    cdef int itemsize = x._dtype.itemsize
    if res._numel >= GIL_RELEASE_MIN:
        with nogil:
            cg_im2col(itemsize, &w, src, xs, dst, cn, cck)
    else:
        cg_im2col(itemsize, &w, src, xs, dst, cn, cck)
    return res.permute(1, 0, 2) if channel_major else res


def col2im(TensorBase cols not None, Py_ssize_t channels, size, kernel, dilation, pads, stride,
           out):
    """The adjoint of :func:`im2col`: ``(N, channels * prod(kernel), prod(out))``
    columns (any strides) summed back onto a contiguous ``(N, channels, *size)``
    tensor (float32/float64).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.conv_kernels import col2im
    >>> col2im(cygrad.ones(1, 2, 3), 1, (4,), (2,), (1,), (0,), (1,), (3,)).tolist()
    [[[1.0, 2.0, 2.0, 1.0]]]
    """
    cdef cg_window w
    cdef int i
    _cpu(cols, "col2im")
    cdef DType dt = _float_dtype(cols, "col2im")
    size = tuple(int(s) for s in size)
    if cols._ndim != 3 or channels < 0:
        raise RuntimeError(f"col2im: expected (N, C * prod(kernel), L) columns, got shape "
                           f"{list(cols.shape)}")
    n = cols.shape[0]
    _window(&w, (n, channels), size, kernel, dilation, pads, stride, out, "col2im")
    want = (n, channels * _prod(tuple(kernel)), _prod(tuple(out)))
    if tuple(cols.shape) != want:
        raise RuntimeError(f"col2im: columns of shape {list(cols.shape)} do not match the "
                           f"geometry (expected {list(want)})")
    cdef cg_index cs[3]
    for i in range(3):
        cs[i] = cols._strides[i]
    cdef TensorBase res = _empty(dt, (n, channels) + size, cols.device)
    cdef Storage keep_c = cols._storage, keep_res = res._storage
    cdef const char* src = cols.ptr()
    cdef char* dst = res.ptr()
    cdef int code = dt.code
    if cols._numel + res._numel >= GIL_RELEASE_MIN:
        with nogil:
            cg_col2im(code, &w, src, cs, dst)
    else:
        cg_col2im(code, &w, src, cs, dst)
    return res


def max_pool(TensorBase x not None, kernel, dilation, pads, stride, out):
    """Max pooling of ``x`` (``(N, C, *size)``, float32/float64, any strides):
    ``(values, indices)``, both ``(N, C, *out)``; an index is the position of the
    window's maximum in the flattened ``size`` plane (PyTorch's convention: the
    first maximum, a NaN always wins; padding is never chosen).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.conv_kernels import max_pool
    >>> v, i = max_pool(cygrad.tensor([[[1.0, 3.0, 2.0]]]), (2,), (1,), (1,), (2,), (2,))
    >>> v.tolist(), i.tolist()
    ([[[1.0, 3.0]]], [[[0, 1]]])
    """
    cdef cg_window w
    cdef cg_index xs[MAX_DIMS]
    cdef int i
    _cpu(x, "max_pool")
    cdef DType dt = _float_dtype(x, "max_pool")
    if x._ndim < 3:
        raise RuntimeError(f"max_pool: expected an (N, C, *spatial) tensor, got {x._ndim} dims")
    shape = tuple(x.shape)
    _window(&w, shape, shape[2:], kernel, dilation, pads, stride, out, "max_pool")
    oshape = shape[:2] + tuple(int(o) for o in out)
    cdef TensorBase values = _empty(dt, oshape, x.device)
    cdef TensorBase idx = _empty(dtype_from_code(DT_INT64), oshape, x.device)
    for i in range(x._ndim):
        xs[i] = x._strides[i]
    cdef Storage keep_x = x._storage, keep_v = values._storage, keep_i = idx._storage
    cdef const char* src = x.ptr()
    cdef char* vp = values.ptr()
    cdef int64_t* ip = <int64_t*>idx.ptr()
    cdef int code = dt.code
    if values._numel * _prod(w_kernel(&w)) >= GIL_RELEASE_MIN:
        with nogil:
            cg_max_pool(code, &w, src, xs, vp, ip)
    else:
        cg_max_pool(code, &w, src, xs, vp, ip)
    return values, idx


cdef tuple w_kernel(cg_window* w):
    return tuple(w.kernel[d] for d in range(w.nsp))


def max_pool_backward(TensorBase grad not None, TensorBase idx not None, size):
    """Max pooling's gradient: a contiguous ``(N, C, *size)`` zero tensor with each
    ``grad[n, c, o]`` added at plane position ``idx[n, c, o]`` (``grad`` and ``idx``:
    ``(N, C, *out)``, any strides). An index outside the plane raises
    ``RuntimeError``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.conv_kernels import max_pool_backward
    >>> g = cygrad.tensor([[[1.0, 2.0]]])
    >>> max_pool_backward(g, cygrad.tensor([[[2, 2]]]), (3,)).tolist()
    [[[0.0, 0.0, 3.0]]]
    """
    cdef cg_window w
    cdef cg_index gs[MAX_DIMS]
    cdef cg_index is_[MAX_DIMS]
    cdef int i
    _cpu(grad, "max_pool_backward")
    _cpu(idx, "max_pool_backward")
    cdef DType dt = _float_dtype(grad, "max_pool_backward")
    if idx._dtype.code != DT_INT64:
        raise TypeError(f"max_pool_backward: indices must be int64, got {idx._dtype.name}")
    if grad._ndim < 3 or tuple(grad.shape) != tuple(idx.shape):
        raise RuntimeError(f"max_pool_backward: gradient {list(grad.shape)} and indices "
                           f"{list(idx.shape)} must have one (N, C, *out) shape")
    shape = tuple(grad.shape)
    size = tuple(int(s) for s in size)
    nsp = len(shape) - 2
    _window(&w, shape, size, (1,) * nsp, (1,) * nsp, (0,) * nsp, (1,) * nsp, shape[2:],
            "max_pool_backward")
    cdef TensorBase res = _empty(dt, shape[:2] + size, grad.device)
    for i in range(grad._ndim):
        gs[i] = grad._strides[i]
        is_[i] = idx._strides[i]
    cdef Storage keep_g = grad._storage, keep_i = idx._storage, keep_r = res._storage
    cdef const char* gp = grad.ptr()
    cdef const int64_t* ip = <const int64_t*>idx.ptr()
    cdef char* rp = res.ptr()
    cdef int code = dt.code, rc
    if grad._numel + res._numel >= GIL_RELEASE_MIN:
        with nogil:
            rc = cg_max_pool_backward(code, &w, gp, gs, ip, is_, rp)
    else:
        rc = cg_max_pool_backward(code, &w, gp, gs, ip, is_, rp)
    if rc == -2:
        raise RuntimeError(f"max_pool_backward: an index lies outside the plane of "
                           f"{_prod(size)} elements")
    return res


def _get_parallel_min():
    """Elements of work from which these kernels use the thread pool.

    Examples
    --------
    >>> from cygrad._core.conv_kernels import _get_parallel_min
    >>> _get_parallel_min() > 0
    True
    """
    return cg_conv_parallel_min


def _set_parallel_min(Py_ssize_t n):
    """Change :func:`_get_parallel_min` (bench/thresholds.py, tests).

    Examples
    --------
    >>> from cygrad._core.conv_kernels import _get_parallel_min, _set_parallel_min
    >>> old = _get_parallel_min(); _set_parallel_min(1); _set_parallel_min(old)
    """
    global cg_conv_parallel_min
    cg_conv_parallel_min = max(n, 1)


def gemm_ready():
    """True when the BLAS-backed convolution kernels (:func:`conv2d_gemm`,
    :func:`conv2d_gemm_weight`) are connected (an ILP64 OpenBLAS was found).

    Examples
    --------
    >>> from cygrad._core import conv_kernels, gemm
    >>> conv_kernels.gemm_ready() == gemm.available()
    True
    """
    return bool(cg_conv_gemm_ready())


cdef int _geom(cg_conv_geom* g, tuple xshape, tuple xstrides, tuple wshape, stride, pads,
               dilation, Py_ssize_t groups, out, str what) except -1:
    """Fill ``g`` for an input of shape ``xshape`` (element strides ``xstrides``) and
    a weight of shape ``wshape``, checking both."""
    if len(xshape) != 4 or len(wshape) != 4:
        raise RuntimeError(f"{what}: expected a 4-d input and weight, got {len(xshape)}-d and "
                           f"{len(wshape)}-d")
    _ints(xshape, 4, "input shape", what, 0)
    k = _ints(wshape[2:], 2, "kernel", what, 1)
    s = _ints(stride, 2, "stride", what, 1)
    p = _ints(pads, 2, "pads", what, 0)
    dl = _ints(dilation, 2, "dilation", what, 1)
    o = _ints(out, 2, "out", what, 0)
    if groups < 1 or xshape[1] % groups or wshape[0] % groups \
            or wshape[1] * groups != xshape[1]:
        raise RuntimeError(f"{what}: weight {list(wshape)} and groups={groups} do not fit "
                           f"an input of {xshape[1]} channels")
    for d in range(2):
        if (o[d] * s[d] + k[d] * dl[d] + p[d] + xshape[2 + d]) >= _LIMIT:
            raise RuntimeError(f"{what}: window geometry too large")
    if xshape[0] * xshape[1] * _prod(tuple(k)) * _prod(tuple(o)) >= _LIMIT:
        raise RuntimeError(f"{what}: window geometry too large")
    g.n, g.c, g.h, g.w = xshape
    g.cout, g.groups = wshape[0], groups
    g.kh, g.kw = k
    g.oh, g.ow = o
    g.sh, g.sw = s
    g.dh, g.dw = dl
    g.ph, g.pw = p
    for d in range(4):
        g.xs[d] = xstrides[d]
    return 0


cdef tuple _strides(TensorBase t):
    return tuple(t._strides[d] for d in range(t._ndim))


cdef int _threads():
    from .. import _threading
    return max(int(_threading._blas_threads), 1)


def conv2d_gemm(TensorBase x not None, TensorBase weight not None, bias, stride, pads, dilation,
                Py_ssize_t groups, out):
    """``conv2d(x, weight, bias)`` of an ``(N, C, H, W)`` float32/float64 input (any
    strides) with a contiguous ``(Cout, C / groups, kH, kW)`` weight and an optional
    contiguous ``(Cout,)`` bias: the contiguous ``(N, Cout, *out)`` result. ``pads``
    is the padding before each spatial dim (after it is implied by ``out``).

    Each block of output rows of an image is unfolded into a cache-sized buffer
    and multiplied there by BLAS (``cpu/conv_gemm.c``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.conv_kernels import conv2d_gemm
    >>> y = conv2d_gemm(cygrad.ones(1, 1, 3, 3), cygrad.ones(1, 1, 2, 2), None,
    ...                 (1, 1), (0, 0), (1, 1), 1, (2, 2))
    >>> y.tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    cdef cg_conv_geom g
    cdef str what = "conv2d_gemm"
    if not cg_conv_gemm_ready():
        raise RuntimeError(f"{what}: no BLAS connected")
    _cpu(x, what)
    _float_dtype(x, what)
    _geom(&g, tuple(x.shape), _strides(x), tuple(weight.shape), stride, pads, dilation, groups,
          out, what)
    _cpu(weight, what)
    if weight._dtype is not x._dtype or not weight.is_contiguous():
        raise RuntimeError(f"{what}: the weight must be contiguous, of the input's dtype")
    cdef TensorBase b = None
    if bias is not None:
        b = bias
        _cpu(b, what)
        if b._dtype is not x._dtype or b._ndim != 1 or b.shape[0] != g.cout \
                or not b.is_contiguous():
            raise RuntimeError(f"{what}: the bias must be a contiguous ({g.cout},) tensor "
                               f"of the input's dtype")
    cdef TensorBase res = _empty(x._dtype, (g.n, g.cout, g.oh, g.ow), x.device)
    cdef Storage keep_x = x._storage, keep_w = weight._storage, keep_r = res._storage
    cdef Storage keep_b = b._storage if b is not None else None
    cdef const char* xp = x.ptr()
    cdef const char* wp = weight.ptr()
    cdef const char* bp = b.ptr() if b is not None else NULL
    cdef char* rp = res.ptr()
    cdef int f64 = x._dtype.code == DT_FLOAT64, threads = _threads(), rc
    with nogil:
        rc = cg_conv2d_gemm_forward(&g, f64, xp, wp, bp, rp, threads)
    if rc:
        raise MemoryError(f"{what}: out of memory for the column buffer")
    return res


def conv2d_gemm_weight(TensorBase x not None, TensorBase grad not None, weight_shape, stride,
                       pads, dilation, Py_ssize_t groups):
    """The weight gradient of :func:`conv2d_gemm`: for the input ``x`` and the
    contiguous output gradient ``grad`` (``(N, Cout, oH, oW)``), the contiguous
    ``weight_shape`` tensor ``sum_n grad[n] @ im2col(x[n])^T``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.conv_kernels import conv2d_gemm_weight
    >>> gw = conv2d_gemm_weight(cygrad.ones(1, 1, 3, 3), cygrad.ones(1, 1, 2, 2),
    ...                         (1, 1, 2, 2), (1, 1), (0, 0), (1, 1), 1)
    >>> gw.tolist()
    [[[[4.0, 4.0], [4.0, 4.0]]]]
    """
    cdef cg_conv_geom g
    cdef str what = "conv2d_gemm_weight"
    if not cg_conv_gemm_ready():
        raise RuntimeError(f"{what}: no BLAS connected")
    wshape = tuple(int(v) for v in weight_shape)
    if len(wshape) != 4 or grad._ndim != 4:
        raise RuntimeError(f"{what}: expected a 4-d weight shape and gradient")
    _cpu(x, what)
    _cpu(grad, what)
    _float_dtype(x, what)
    _geom(&g, tuple(x.shape), _strides(x), wshape, stride, pads, dilation, groups,
          tuple(grad.shape)[2:], what)
    if grad._dtype is not x._dtype or not grad.is_contiguous() \
            or tuple(grad.shape) != (g.n, g.cout, g.oh, g.ow):
        raise RuntimeError(f"{what}: the gradient must be a contiguous "
                           f"{[g.n, g.cout, g.oh, g.ow]} tensor of the input's dtype")
    cdef TensorBase res = _empty(x._dtype, wshape, x.device)
    cdef Storage keep_x = x._storage, keep_g = grad._storage, keep_r = res._storage
    cdef const char* xp = x.ptr()
    cdef const char* gp = grad.ptr()
    cdef char* rp = res.ptr()
    cdef int f64 = x._dtype.code == DT_FLOAT64, threads = _threads(), rc
    with nogil:
        rc = cg_conv2d_gemm_weight(&g, f64, xp, gp, rp, threads)
    if rc:
        raise MemoryError(f"{what}: out of memory for the column buffer")
    return res


def conv2d_gemm_input(TensorBase grad not None, TensorBase weight not None, size, stride, pads,
                      dilation, Py_ssize_t groups):
    """The input gradient of :func:`conv2d_gemm`: for the contiguous output gradient
    ``grad`` (``(N, Cout, oH, oW)``) and the contiguous weight, the contiguous
    ``(N, C, *size)`` tensor ``col2im(W^T @ grad)`` (also ``conv_transpose2d``'s
    forward). Each block of output rows multiplies in a cache-sized buffer and is
    added onto the image's gradient at once.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.conv_kernels import conv2d_gemm_input
    >>> gx = conv2d_gemm_input(cygrad.ones(1, 1, 2, 2), cygrad.ones(1, 1, 2, 2), (3, 3),
    ...                        (1, 1), (0, 0), (1, 1), 1)
    >>> gx.tolist()
    [[[[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]]]
    """
    cdef cg_conv_geom g
    cdef str what = "conv2d_gemm_input"
    if not cg_conv_gemm_ready():
        raise RuntimeError(f"{what}: no BLAS connected")
    _cpu(grad, what)
    _cpu(weight, what)
    cdef DType dt = _float_dtype(grad, what)
    size = tuple(int(v) for v in size)
    if grad._ndim != 4 or weight._ndim != 4 or len(size) != 2:
        raise RuntimeError(f"{what}: expected a 4-d gradient and weight and 2 sizes")
    xshape = (grad.shape[0], weight.shape[1] * groups) + size
    _geom(&g, xshape, (0, 0, 0, 0), tuple(weight.shape), stride, pads, dilation, groups,
          tuple(grad.shape)[2:], what)
    if weight._dtype is not dt or not weight.is_contiguous() or not grad.is_contiguous() \
            or grad.shape[1] != g.cout:
        raise RuntimeError(f"{what}: the gradient and weight must be contiguous, of one "
                           f"dtype, the gradient with {g.cout} channels")
    cdef TensorBase res = _empty(dt, xshape, grad.device)
    cdef Storage keep_g = grad._storage, keep_w = weight._storage, keep_r = res._storage
    cdef const char* gp = grad.ptr()
    cdef const char* wp = weight.ptr()
    cdef char* rp = res.ptr()
    cdef int f64 = dt.code == DT_FLOAT64, threads = _threads(), rc
    with nogil:
        rc = cg_conv2d_gemm_input(&g, f64, gp, wp, rp, threads)
    if rc:
        raise MemoryError(f"{what}: out of memory for the column buffer")
    return res
