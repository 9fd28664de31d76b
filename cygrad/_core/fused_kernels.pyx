"""The fused row kernels of cpu/fused.c over C-contiguous float32/float64 CPU tensors.

Each function checks its operands (contiguous, one float dtype, CPU, shapes),
allocates its results, then runs the C loop with the GIL released, its rows cut
into chunks for cygrad's thread pool when the work is large enough to pay for
waking it. The CPU backend (``backend_cpu/fused.py``) calls them for the
primitives of softmax, attention, layer norm, GELU and cross entropy.

Examples
--------
>>> import cygrad
>>> from cygrad._core import fused_kernels as K
>>> K.softmax_forward(cygrad.zeros(2, 4), 1, False).tolist()[0]
[0.25, 0.25, 0.25, 0.25]
"""
from libc.stdint cimport int64_t
from libc.stdlib cimport malloc, free
from .dtype cimport dtype as DType, DT_FLOAT32, DT_FLOAT64, DT_INT64
from .tensor cimport TensorBase, new_empty, pool_run, pool_contended, cg_chunk_fn
from .._device import CPU as _CPU_DEVICE

cdef object _CPU = _CPU_DEVICE

cdef extern from "fused.h" nogil:
    ctypedef Py_ssize_t cg_index
    void cg_softmax_fwd_f(cg_index r0, cg_index r1, cg_index n, cg_index inner, const float* x,
                          float* y, int log)
    void cg_softmax_fwd_d(cg_index r0, cg_index r1, cg_index n, cg_index inner, const double* x,
                          double* y, int log)
    void cg_softmax_bwd_f(cg_index r0, cg_index r1, cg_index n, cg_index inner, const float* y,
                          const float* g, float* dx, int log, float scale)
    void cg_softmax_bwd_d(cg_index r0, cg_index r1, cg_index n, cg_index inner, const double* y,
                          const double* g, double* dx, int log, double scale)
    void cg_attn_softmax_f(cg_index r0, cg_index r1, cg_index L, cg_index S, const float* s,
                           float* p, float scale, int causal, const float* mask, cg_index mrows)
    void cg_attn_softmax_d(cg_index r0, cg_index r1, cg_index L, cg_index S, const double* s,
                           double* p, double scale, int causal, const double* mask,
                           cg_index mrows)
    void cg_layer_norm_fwd_f(cg_index r0, cg_index r1, cg_index n, const float* x,
                             const float* w, const float* b, double eps, float* y, float* mean,
                             float* rstd)
    void cg_layer_norm_fwd_d(cg_index r0, cg_index r1, cg_index n, const double* x,
                             const double* w, const double* b, double eps, double* y,
                             double* mean, double* rstd)
    void cg_layer_norm_bwd_f(cg_index r0, cg_index r1, cg_index n, const float* g, const float* x,
                             const float* mean, const float* rstd, const float* w, float* dx,
                             double* dw_part, double* db_part)
    void cg_layer_norm_bwd_d(cg_index r0, cg_index r1, cg_index n, const double* g,
                             const double* x, const double* mean, const double* rstd,
                             const double* w, double* dx, double* dw_part, double* db_part)
    void cg_gelu_fwd_f(cg_index i0, cg_index i1, const float* x, float* y, int tanh_approx)
    void cg_gelu_fwd_d(cg_index i0, cg_index i1, const double* x, double* y, int tanh_approx)
    void cg_gelu_bwd_f(cg_index i0, cg_index i1, const float* g, const float* x, float* dx,
                       int tanh_approx)
    void cg_gelu_bwd_d(cg_index i0, cg_index i1, const double* g, const double* x, double* dx,
                       int tanh_approx)
    void cg_xent_fwd_f(cg_index r0, cg_index r1, cg_index C, const float* x,
                       const int64_t* target, const float* w, int64_t ignore_index, double eps,
                       float* loss, float* lse, float* wt)
    void cg_xent_fwd_d(cg_index r0, cg_index r1, cg_index C, const double* x,
                       const int64_t* target, const double* w, int64_t ignore_index, double eps,
                       double* loss, double* lse, double* wt)
    void cg_xent_bwd_f(cg_index r0, cg_index r1, cg_index C, const float* x, const float* lse,
                       const int64_t* target, const float* w, int64_t ignore_index, double eps,
                       const float* scale, cg_index scale_step, float* dx)
    void cg_xent_bwd_d(cg_index r0, cg_index r1, cg_index C, const double* x, const double* lse,
                       const int64_t* target, const double* w, int64_t ignore_index, double eps,
                       const double* scale, cg_index scale_step, double* dx)

# The GIL is released from GIL_RELEASE_MIN elements (it costs a mutex round trip).
# From PARALLEL_MIN elements the rows are split over cygrad's pool: each element
# costs an exp, tanh or erf, so on a quiet 2-core machine two threads halve a
# softmax of 131K or a GELU of 262K elements (a 4-layer 64-wide transformer at
# batch 32 x 32). Beside a busy process, though, a split GELU of 2^18 elements
# waited for the busy core (that model's step went from 59 to 129 ms in
# bench/models.py's busy row). So while the pool reports contention (a worker
# lost its core mid-chunk in the last quarter second, cpu/parallel.c), the split
# starts above 2^19 elements instead.
# Layer norm's backward sums its weight gradient over row blocks of LN_BLOCK
# rows whatever the thread count, then adds the blocks in order, so the result
# does not depend on how many threads ran.
cdef enum:
    GIL_RELEASE_MIN = 2048
    CHUNKS_PER_THREAD = 4
    ROW_ALIGN = 64        # = RBLOCK of cpu/fused.c
    LN_BLOCK = 64

cdef Py_ssize_t PARALLEL_MIN = 1 << 15
cdef Py_ssize_t PARALLEL_MIN_CONTENDED = 524289


def _get_parallel_min():
    """The element count from which the fused kernels split rows over the pool
    (while it reports no contention).

    Examples
    --------
    >>> from cygrad._core.fused_kernels import _get_parallel_min
    >>> _get_parallel_min() > 0
    True
    """
    return PARALLEL_MIN


def _set_parallel_min(Py_ssize_t n):
    """Change :func:`_get_parallel_min` (bench/thresholds.py, tests).

    Examples
    --------
    >>> from cygrad._core.fused_kernels import _get_parallel_min, _set_parallel_min
    >>> old = _get_parallel_min(); _set_parallel_min(1); _set_parallel_min(old)
    """
    global PARALLEL_MIN
    PARALLEL_MIN = max(n, 1)


cdef enum Kind:
    SM_FWD, SM_BWD, ATTN, LN_FWD, LN_BWD, GELU_FWD, GELU_BWD, XE_FWD, XE_BWD

ctypedef struct Job:
    int kind
    bint dbl
    int flag              # log softmax / tanh GELU / causal attention
    Py_ssize_t rows, n, inner, nchunks, step, n_part
    int64_t ignore
    double eps, scale
    const void* a
    const void* b
    const void* c
    const void* d
    const void* e
    const int64_t* target
    void* o1
    void* o2
    void* o3
    double* part          # layer norm backward: nchunks blocks of (dw, db), n each
    bint aligned          # chunks start at multiples of ROW_ALIGN rows (see _run)


cdef void _chunk(void* ctx, int ci) noexcept nogil:
    cdef Job* j = <Job*>ctx
    cdef Py_ssize_t r0, r1, blocks
    if j.aligned:
        blocks = (j.rows + ROW_ALIGN - 1) // ROW_ALIGN
        r0 = min(j.rows, blocks * ci // j.nchunks * ROW_ALIGN)
        r1 = min(j.rows, blocks * (ci + 1) // j.nchunks * ROW_ALIGN)
    else:
        r0, r1 = j.rows * ci // j.nchunks, j.rows * (ci + 1) // j.nchunks
    cdef double* dwp = NULL
    cdef double* dbp = NULL
    if j.kind == SM_FWD:
        if j.dbl:
            cg_softmax_fwd_d(r0, r1, j.n, j.inner, <const double*>j.a, <double*>j.o1, j.flag)
        else:
            cg_softmax_fwd_f(r0, r1, j.n, j.inner, <const float*>j.a, <float*>j.o1, j.flag)
    elif j.kind == SM_BWD:
        if j.dbl:
            cg_softmax_bwd_d(r0, r1, j.n, j.inner, <const double*>j.a, <const double*>j.b,
                             <double*>j.o1, j.flag, j.scale)
        else:
            cg_softmax_bwd_f(r0, r1, j.n, j.inner, <const float*>j.a, <const float*>j.b,
                             <float*>j.o1, j.flag, <float>j.scale)
    elif j.kind == ATTN:
        if j.dbl:
            cg_attn_softmax_d(r0, r1, j.inner, j.n, <const double*>j.a, <double*>j.o1, j.scale,
                              j.flag, <const double*>j.b, j.step)
        else:
            cg_attn_softmax_f(r0, r1, j.inner, j.n, <const float*>j.a, <float*>j.o1,
                              <float>j.scale, j.flag, <const float*>j.b, j.step)
    elif j.kind == LN_FWD:
        if j.dbl:
            cg_layer_norm_fwd_d(r0, r1, j.n, <const double*>j.a, <const double*>j.b,
                                <const double*>j.c, j.eps, <double*>j.o1, <double*>j.o2,
                                <double*>j.o3)
        else:
            cg_layer_norm_fwd_f(r0, r1, j.n, <const float*>j.a, <const float*>j.b,
                                <const float*>j.c, j.eps, <float*>j.o1, <float*>j.o2,
                                <float*>j.o3)
    elif j.kind == LN_BWD:
        if j.part != NULL:
            dwp = j.part + 2 * j.n * ci
            dbp = dwp + j.n
        if j.dbl:
            cg_layer_norm_bwd_d(r0, r1, j.n, <const double*>j.a, <const double*>j.b,
                                <const double*>j.c, <const double*>j.d, <const double*>j.e,
                                <double*>j.o1, dwp, dbp)
        else:
            cg_layer_norm_bwd_f(r0, r1, j.n, <const float*>j.a, <const float*>j.b,
                                <const float*>j.c, <const float*>j.d, <const float*>j.e,
                                <float*>j.o1, dwp, dbp)
    elif j.kind == GELU_FWD:
        if j.dbl:
            cg_gelu_fwd_d(r0, r1, <const double*>j.a, <double*>j.o1, j.flag)
        else:
            cg_gelu_fwd_f(r0, r1, <const float*>j.a, <float*>j.o1, j.flag)
    elif j.kind == GELU_BWD:
        if j.dbl:
            cg_gelu_bwd_d(r0, r1, <const double*>j.a, <const double*>j.b, <double*>j.o1, j.flag)
        else:
            cg_gelu_bwd_f(r0, r1, <const float*>j.a, <const float*>j.b, <float*>j.o1, j.flag)
    elif j.kind == XE_FWD:
        if j.dbl:
            cg_xent_fwd_d(r0, r1, j.n, <const double*>j.a, j.target, <const double*>j.b,
                          j.ignore, j.eps, <double*>j.o1, <double*>j.o2, <double*>j.o3)
        else:
            cg_xent_fwd_f(r0, r1, j.n, <const float*>j.a, j.target, <const float*>j.b,
                          j.ignore, j.eps, <float*>j.o1, <float*>j.o2, <float*>j.o3)
    elif j.kind == XE_BWD:
        if j.dbl:
            cg_xent_bwd_d(r0, r1, j.n, <const double*>j.a, <const double*>j.b, j.target,
                          <const double*>j.c, j.ignore, j.eps, <const double*>j.d, j.step,
                          <double*>j.o1)
        else:
            cg_xent_bwd_f(r0, r1, j.n, <const float*>j.a, <const float*>j.b, j.target,
                          <const float*>j.c, j.ignore, j.eps, <const float*>j.d, j.step,
                          <float*>j.o1)


cdef void _run_all(Job* j, bint parallel) noexcept nogil:
    cdef int c
    if j.nchunks > 1 and parallel:
        pool_run(<int>j.nchunks, <cg_chunk_fn>_chunk, j)
    else:
        for c in range(<int>j.nchunks):
            _chunk(j, c)


cdef void _run(Job* j, Py_ssize_t work, bint fixed_chunks=False):
    """Run ``j`` over its rows; ``work`` is the element count that sizes the job.
    With ``fixed_chunks`` the caller has set ``nchunks`` already (chunks that fix
    the summation order); they run on the pool only from PARALLEL_MIN too."""
    if j.rows == 0:
        return
    cdef bint parallel = work >= PARALLEL_MIN and (work >= PARALLEL_MIN_CONTENDED
                                                   or not pool_contended())
    # Chunks of whole ROW_ALIGN-row blocks: the row kernels take the logs of up to
    # 64 rows together (RBLOCK in cpu/fused.c), and a block cut differently by a
    # chunk boundary gave different last bits for some rows with 1 and 2 threads.
    j.aligned = not fixed_chunks
    if not fixed_chunks:
        j.nchunks = 1
        if parallel:
            from .._threading import get_num_threads
            j.nchunks = max(1, min(get_num_threads() * CHUNKS_PER_THREAD,
                                   (j.rows + ROW_ALIGN - 1) // ROW_ALIGN))
    if work >= GIL_RELEASE_MIN:
        with nogil:
            _run_all(j, parallel)
    else:
        _run_all(j, parallel)


cdef bint _check(object t, int code, str what) except -1:
    if not isinstance(t, TensorBase):
        raise TypeError(f"fused kernel: {what} must be a tensor")
    cdef TensorBase tb = <TensorBase>t
    if not tb._is_contig or tb._dtype.code != code or tb._storage.device is not _CPU:
        raise ValueError(f"fused kernel: {what} must be a contiguous CPU tensor of the "
                         f"operation's dtype")
    return True


cdef int _float_code(TensorBase x) except -1:
    cdef int code = x._dtype.code
    if code != DT_FLOAT32 and code != DT_FLOAT64:
        raise ValueError("fused kernel: float32 or float64 only")
    _check(x, code, "input")
    return code


cdef TensorBase _like(TensorBase x):
    return new_empty(x._dtype, x._ndim, x._shape, _CPU)


cdef TensorBase _vec(TensorBase x, Py_ssize_t n):
    return new_empty(x._dtype, 1, &n, _CPU)


cdef void _geometry(TensorBase x, int dim, Py_ssize_t* outer, Py_ssize_t* n,
                    Py_ssize_t* inner):
    cdef int i
    outer[0], n[0], inner[0] = 1, 1, 1
    if x._ndim == 0:
        return
    for i in range(x._ndim):
        if i < dim:
            outer[0] *= x._shape[i]
        elif i > dim:
            inner[0] *= x._shape[i]
    n[0] = x._shape[dim]


def softmax_forward(TensorBase x, int dim, bint log):
    """softmax (log_softmax when ``log``) of ``x`` along the wrapped ``dim``."""
    cdef Job j
    cdef Py_ssize_t outer, inner
    _float_code(x)
    _geometry(x, dim, &outer, &j.n, &inner)
    cdef TensorBase y = _like(x)
    j.kind, j.dbl, j.flag = SM_FWD, x._dtype.code == DT_FLOAT64, log
    j.rows, j.inner, j.a, j.o1 = outer * inner, inner, x.ptr(), y.ptr()
    _run(&j, x._numel)
    return y


def softmax_backward(TensorBase y, TensorBase g, int dim, bint log, double scale=1.0):
    """The input gradient of softmax (``scale * y * (g - sum(g * y))``) or of
    log_softmax (``g - exp(y) * sum(g)``) from its output ``y``."""
    cdef Job j
    cdef Py_ssize_t outer, inner
    cdef int code = _float_code(y)
    _check(g, code, "grad")
    if g._numel != y._numel:
        raise ValueError("fused kernel: grad and output differ in size")
    _geometry(y, dim, &outer, &j.n, &inner)
    cdef TensorBase dx = _like(y)
    j.kind, j.dbl, j.flag, j.scale = SM_BWD, code == DT_FLOAT64, log, scale
    j.rows, j.inner, j.a, j.b, j.o1 = outer * inner, inner, y.ptr(), g.ptr(), dx.ptr()
    _run(&j, y._numel)
    return dx


def attn_softmax(TensorBase s, double scale, bint causal, mask):
    """softmax over the last dim of scores ``s`` (..., L, S) after ``s * scale +
    mask``; keys after the query masked when ``causal``; a fully masked row gives
    zeros. ``mask``: None or a contiguous (M, S) tensor whose row ``r % M`` is row
    ``r``'s (M divides the number of rows)."""
    cdef Job j
    cdef int code = _float_code(s)
    cdef TensorBase m
    if s._ndim < 2:
        raise ValueError("fused kernel: scores must be at least 2-D")
    j.n, j.inner = s._shape[s._ndim - 1], s._shape[s._ndim - 2]
    j.rows = s._numel // j.n if j.n else 0
    j.b, j.step = NULL, 1
    if mask is not None:
        _check(mask, code, "mask")
        m = <TensorBase>mask
        if m._ndim != 2 or m._shape[1] != j.n or m._shape[0] == 0 or j.rows % m._shape[0]:
            raise ValueError("fused kernel: mask rows do not tile the scores")
        j.b, j.step = m.ptr(), m._shape[0]
    cdef TensorBase p = _like(s)
    j.kind, j.dbl, j.flag, j.scale = ATTN, code == DT_FLOAT64, causal, scale
    j.a, j.o1 = s.ptr(), p.ptr()
    _run(&j, s._numel)
    return p


def layer_norm_forward(TensorBase x, Py_ssize_t n, weight, bias, double eps):
    """Layer norm over the last ``n`` elements of each row: ``(y, mean, rstd)`` with
    ``mean``/``rstd`` of shape (rows,)."""
    cdef Job j
    cdef int code = _float_code(x)
    j.b = j.c = NULL
    if weight is not None:
        _check(weight, code, "weight")
        j.b = (<TensorBase>weight).ptr()
    if bias is not None:
        _check(bias, code, "bias")
        j.c = (<TensorBase>bias).ptr()
    j.rows = x._numel // n if n else 0
    cdef TensorBase y = _like(x), mean = _vec(x, j.rows), rstd = _vec(x, j.rows)
    j.kind, j.dbl, j.n, j.eps = LN_FWD, code == DT_FLOAT64, n, eps
    j.a, j.o1, j.o2, j.o3 = x.ptr(), y.ptr(), mean.ptr(), rstd.ptr()
    _run(&j, x._numel)
    return y, mean, rstd


def layer_norm_backward(TensorBase g, TensorBase x, TensorBase mean, TensorBase rstd, weight,
                        bint need_dx, bint need_dw, bint need_db):
    """``(dx, dweight, dbias)`` of layer norm over rows of ``mean.numel()``; an
    output not asked for is None."""
    cdef Job j
    cdef int code = _float_code(x)
    cdef Py_ssize_t i, k
    cdef double* acc
    cdef TensorBase dx = None, dw = None, db = None
    _check(g, code, "grad")
    _check(mean, code, "mean")
    _check(rstd, code, "rstd")
    j.rows = mean._numel
    j.n = x._numel // j.rows if j.rows else 0
    if g._numel != x._numel or rstd._numel != j.rows:
        raise ValueError("fused kernel: layer norm operands differ in size")
    j.e = NULL
    if weight is not None:
        _check(weight, code, "weight")
        j.e = (<TensorBase>weight).ptr()
    j.kind, j.dbl = LN_BWD, code == DT_FLOAT64
    j.a, j.b, j.c, j.d = g.ptr(), x.ptr(), mean.ptr(), rstd.ptr()
    j.o1 = NULL
    if need_dx:
        dx = _like(x)
        j.o1 = dx.ptr()
    j.nchunks = max(1, (j.rows + LN_BLOCK - 1) // LN_BLOCK)
    j.part = NULL
    if need_dw or need_db:
        j.part = <double*>malloc(sizeof(double) * 2 * j.n * j.nchunks + 1)
        if j.part == NULL:
            raise MemoryError()
    try:
        _run(&j, x._numel, True)
        if need_dw or need_db:
            # block sums added in block order: the same result on any thread count
            for i in range(1, j.nchunks):
                acc = j.part + 2 * j.n * i
                for k in range(2 * j.n):
                    j.part[k] += acc[k]
            if need_dw:
                dw = _vec(x, j.n)
                _store(dw, j.part, j.n)
            if need_db:
                db = _vec(x, j.n)
                _store(db, j.part + j.n, j.n)
    finally:
        free(j.part)
    return dx, dw, db


cdef void _store(TensorBase t, const double* src, Py_ssize_t n):
    cdef Py_ssize_t k
    cdef float* f
    cdef double* d
    if t._dtype.code == DT_FLOAT64:
        d = <double*>t.ptr()
        for k in range(n):
            d[k] = src[k]
    else:
        f = <float*>t.ptr()
        for k in range(n):
            f[k] = <float>src[k]


def gelu_forward(TensorBase x, bint tanh_approx):
    """GELU of ``x`` (exact, or the tanh approximation)."""
    cdef Job j
    cdef int code = _float_code(x)
    cdef TensorBase y = _like(x)
    j.kind, j.dbl, j.flag, j.rows = GELU_FWD, code == DT_FLOAT64, tanh_approx, x._numel
    j.a, j.o1 = x.ptr(), y.ptr()
    _run(&j, x._numel)
    return y


def gelu_backward(TensorBase g, TensorBase x, bint tanh_approx):
    """``g * gelu'(x)``."""
    cdef Job j
    cdef int code = _float_code(x)
    _check(g, code, "grad")
    if g._numel != x._numel:
        raise ValueError("fused kernel: grad and input differ in size")
    cdef TensorBase dx = _like(x)
    j.kind, j.dbl, j.flag, j.rows = GELU_BWD, code == DT_FLOAT64, tanh_approx, x._numel
    j.a, j.b, j.o1 = g.ptr(), x.ptr(), dx.ptr()
    _run(&j, x._numel)
    return dx


cdef Py_ssize_t _check_targets(TensorBase x, TensorBase target, int64_t ignore) except -1:
    cdef Py_ssize_t R = x._shape[0], C = x._shape[1], r
    cdef const int64_t* t
    _check(target, DT_INT64, "target")
    if x._ndim != 2 or target._numel != R:
        raise ValueError("fused kernel: cross entropy takes (R, C) logits and R targets")
    t = <const int64_t*>target.ptr()
    for r in range(R):
        if t[r] != ignore and (t[r] < 0 or t[r] >= C):
            raise IndexError(f"Target {t[r]} is out of bounds.")
    return R


def cross_entropy_forward(TensorBase x, TensorBase target, weight, int64_t ignore_index,
                          double eps):
    """Per-row cross entropy of (R, C) logits: ``(loss, lse, wt)``, each (R,):
    the loss (label smoothing ``eps``), the row's logsumexp and its target's
    weight (0 where ignored)."""
    cdef Job j
    cdef int code = _float_code(x)
    j.rows = _check_targets(x, target, ignore_index)
    j.b = NULL
    if weight is not None:
        _check(weight, code, "weight")
        j.b = (<TensorBase>weight).ptr()
    cdef TensorBase loss = _vec(x, j.rows), lse = _vec(x, j.rows), wt = _vec(x, j.rows)
    j.kind, j.dbl, j.n, j.ignore, j.eps = XE_FWD, code == DT_FLOAT64, x._shape[1], ignore_index, eps
    j.a, j.target, j.o1, j.o2, j.o3 = x.ptr(), <const int64_t*>target.ptr(), loss.ptr(), lse.ptr(), wt.ptr()
    _run(&j, x._numel)
    return loss, lse, wt


def cross_entropy_backward(TensorBase x, TensorBase lse, TensorBase target, weight,
                           int64_t ignore_index, double eps, TensorBase scale):
    """The logits' gradient of the per-row losses times ``scale`` (one value, or
    one per row)."""
    cdef Job j
    cdef int code = _float_code(x)
    j.rows = _check_targets(x, target, ignore_index)
    _check(lse, code, "lse")
    _check(scale, code, "scale")
    if scale._numel != 1 and scale._numel != j.rows:
        raise ValueError("fused kernel: scale must have 1 or R elements")
    j.c = NULL
    if weight is not None:
        _check(weight, code, "weight")
        j.c = (<TensorBase>weight).ptr()
    cdef TensorBase dx = _like(x)
    j.kind, j.dbl, j.n, j.ignore, j.eps = XE_BWD, code == DT_FLOAT64, x._shape[1], ignore_index, eps
    j.a, j.b, j.target, j.d = x.ptr(), lse.ptr(), <const int64_t*>target.ptr(), scale.ptr()
    j.step, j.o1 = 0 if scale._numel == 1 else 1, dx.ptr()
    _run(&j, x._numel)
    return dx
