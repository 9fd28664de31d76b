"""Matrix products of float32/float64 CPU tensors, straight into NumPy's OpenBLAS.

:func:`matmul_into` is the BLAS route of the ``matmul_into`` kernel
(``backend_cpu/linalg.py``): ``out[...] = a @ b`` with NumPy's matmul rules (a
1-D operand is a row or a column; batch dims broadcast) by ``cblas_?gemm``
calls on the operands' own memory:

- an operand whose last two dims are row-contiguous goes as it is, one whose
  last two dims are a transposed contiguous block (``k.transpose(-2, -1)``,
  ``w.t()``) goes with BLAS's transpose flag; any row stride (a column slice
  of a wider matrix, a head of a ``(B, T, H, D)`` view) is BLAS's leading
  dimension, so neither needs a copy. An operand with neither layout
  (a stride-2 column, a flipped dim) is copied once, whole, before the loop.
- when the left operand's batch dims fold into its rows and the right one is
  not batched (``x (B, T, C) @ w (C, N)``), it is one GEMM of
  ``(B*T, C) @ (C, N)``; otherwise a C loop over the batch, broadcast dims
  having stride 0, with the GIL released.
- threads follow ``cygrad/_threading.py``'s policy: BLAS always runs on one
  thread, and cygrad's pool does the parallel work. A product from
  ``PRODUCT_SPLIT_MIN`` (2^20) multiply-adds is cut into blocks of rows or
  columns of C that the pool computes (one BLAS call per block); a batch of
  smaller products whose total reaches ``BLAS_PARALLEL_MIN`` (2^24), or of
  more products than threads, is split across the pool by products. BLAS's own
  threads would fork and join: beside a busy process the join waits for a
  core, and after a product they spin, taking the core the pool needs next.

The checks (dtypes, shapes, layouts, overlap) happen with the GIL held; any
case it does not take (another dtype, an ``out`` that is neither row- nor
column-contiguous or overlaps an operand, no ILP64 OpenBLAS found) returns False
and the caller uses NumPy's matmul.

Examples
--------
>>> import cygrad
>>> from cygrad._core import gemm
>>> a = cygrad.arange(6.0).reshape(3, 2)
>>> out = cygrad.empty(2, 2)
>>> gemm.matmul_into(a.t(), a, out, 1)     # a.t() goes with the transpose flag
True
>>> out.tolist()
[[20.0, 26.0], [26.0, 35.0]]
"""
from libc.stdint cimport int64_t, uintptr_t
from libc.string cimport memcpy

from .dtype cimport DT_FLOAT32, DT_FLOAT64
from .tensor cimport TensorBase, new_empty, pool_run, pool_contended, cg_chunk_fn, MAX_DIMS

from .._device import CPU as _CPU_DEVICE
from .tensor import _copy_into

cdef object _CPU = _CPU_DEVICE

cdef enum:
    # CBLAS's enum values
    ROW_MAJOR = 101
    NO_TRANS = 111
    TRANS = 112
    # OpenBLAS runs a product of at most 65536 * 4 multiply-adds on one thread
    # whatever its thread count (interface/gemm.c), so below this the thread count
    # need not be lowered.
    BLAS_ONE_THREAD_MAX = 1 << 18
    # Releasing the GIL costs a mutex round trip: only worth it for real work.
    GIL_RELEASE_MIN = 16384
    # A batch split across the pool goes in chunks of about this many multiply-adds
    # (at least one product): small chunks, because the caller waits for a chunk a
    # worker has started, and on a busy machine that worker may lose its core.
    CHUNK_WORK = 1 << 16
    INT32_MAX_CHUNKS = 1 << 30
    # A product of _split_min multiply-adds or more is cut into blocks of rows or
    # columns of C (at least SPLIT_CHUNK_MIN each, edges on multiples of
    # SPLIT_ALIGN) that cygrad's pool computes, BLAS on one thread in each.
    SPLIT_CHUNK_MIN = 1 << 19
    SPLIT_ALIGN = 16

ctypedef void (*sgemm_fn)(int order, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          float alpha, const float* a, int64_t lda, const float* b,
                          int64_t ldb, float beta, float* c, int64_t ldc) noexcept nogil
ctypedef void (*dgemm_fn)(int order, int ta, int tb, int64_t m, int64_t n, int64_t k,
                          double alpha, const double* a, int64_t lda, const double* b,
                          int64_t ldb, double beta, double* c, int64_t ldc) noexcept nogil
ctypedef void (*set_threads_fn)(int n) noexcept nogil

cdef sgemm_fn _sgemm = NULL
cdef dgemm_fn _dgemm = NULL
cdef set_threads_fn _set_threads = NULL
cdef int64_t _split_min = 1 << 20         # _threading.PRODUCT_SPLIT_MIN
cdef int64_t _batch_pool_min = 1 << 24    # _threading.BLAS_PARALLEL_MIN
# While no pool worker has stalled lately (cpu/parallel.c), a batch of small
# products is split from this total already: two threads then halve, for
# example, attention's (32x16)@(16x32) products over 128 heads (2M in all).
cdef int64_t _batch_pool_min_quiet = 1 << 20
# While the pool is contended, one product is cut into blocks only from this size:
# with another program on the cores, a (64 x 1000) @ (1000 x 100) product split in
# two waited for a worker that got no core.
cdef int64_t _split_min_contended = 1 << 24
# What counters() reports: products taken, BLAS calls made, operands copied,
# products cut into blocks across the pool.
cdef int64_t _n_products = 0, _n_calls = 0, _n_copies = 0, _n_split = 0


def set_blas(uintptr_t sgemm, uintptr_t dgemm, uintptr_t set_threads,
             int64_t split_min, int64_t batch_pool_min):
    """Connect the BLAS: addresses of ILP64 ``cblas_sgemm``, ``cblas_dgemm`` (64-bit
    integer arguments) and ``openblas_set_num_threads``; ``split_min``: the
    multiply-adds from which one product is cut into blocks that cygrad's pool
    computes (``_threading.PRODUCT_SPLIT_MIN``); ``batch_pool_min``: the total
    multiply-adds from which a batch of smaller products is split across the pool.
    Addresses of 0 disconnect it (every call then returns False).

    Examples
    --------
    >>> from cygrad._core import gemm
    >>> was = gemm.available()
    >>> gemm.set_blas(0, 0, 0, 1, 1)      # disconnected: every product declines
    >>> gemm.available()
    False
    >>> gemm.connect() == was
    True
    """
    global _sgemm, _dgemm, _set_threads, _split_min, _batch_pool_min
    if split_min < 1 or batch_pool_min < 1:
        raise ValueError("set_blas: the thresholds must be positive")
    if sgemm == 0 or dgemm == 0 or set_threads == 0:
        _sgemm, _dgemm, _set_threads = NULL, NULL, NULL
        return
    _sgemm = <sgemm_fn>sgemm
    _dgemm = <dgemm_fn>dgemm
    _set_threads = <set_threads_fn>set_threads
    _split_min = split_min
    _batch_pool_min = batch_pool_min


def connect():
    """Connect the ILP64 ``cblas_sgemm``/``cblas_dgemm`` of the OpenBLAS NumPy loaded
    (the one ``cygrad._threading`` found and sets the thread count of); done once,
    when this module is imported. Without them every product goes through NumPy.

    Examples
    --------
    >>> from cygrad._core import gemm
    >>> gemm.connect() == gemm.available()
    True
    """
    from .. import _threading
    blas = _threading._blas
    if blas is None:
        return False
    sgemm = blas.address("scipy_cblas_sgemm64_", "cblas_sgemm64_")
    dgemm = blas.address("scipy_cblas_dgemm64_", "cblas_dgemm64_")
    if not (sgemm and dgemm):
        return False
    # A batch of small products is split across the pool from BLAS_PARALLEL_MIN in
    # all. (On a busy 2-core machine a split batch of 2M multiply-adds took 1.5-2x
    # as long as one thread, like BLAS's own threads below that size.)
    set_blas(sgemm, dgemm, blas.set_threads_address(), _threading.PRODUCT_SPLIT_MIN,
             _threading.BLAS_PARALLEL_MIN)
    return True


def available():
    """True when a BLAS is connected (:func:`set_blas`).

    Examples
    --------
    >>> from cygrad._core import gemm
    >>> isinstance(gemm.available(), bool)
    True
    """
    return _sgemm != NULL


def blas_pointers():
    """``(sgemm, dgemm, set_threads)``: the addresses :func:`set_blas` connected
    (zeros when none is), for other kernels that call BLAS from C
    (``conv_kernels``'s convolution).

    Examples
    --------
    >>> from cygrad._core import gemm
    >>> all(gemm.blas_pointers()) == gemm.available()
    True
    """
    return (<uintptr_t>_sgemm, <uintptr_t>_dgemm, <uintptr_t>_set_threads)


def counters():
    """``{"products", "blas_calls", "copies", "split"}`` since the process started:
    products this module computed, the ``cblas_?gemm`` calls they made (a split
    product counts one), the operands it had to copy (those neither row- nor
    column-contiguous) and the products cut into blocks across the pool. Tests
    read them to check which path a product took.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import gemm
    >>> before = gemm.counters()
    >>> x = cygrad.ones(4, 8, 16)
    >>> _ = x @ cygrad.ones(32, 16).t()     # the batch folds into the rows: one call
    >>> after = gemm.counters()
    >>> {k: after[k] - before[k] for k in after} == {"products": 1, "blas_calls": 1,
    ...                                             "copies": 0, "split": 0}
    True
    """
    return {"products": _n_products, "blas_calls": _n_calls, "copies": _n_copies,
            "split": _n_split}


cdef struct Plan:
    bint f64
    int ta, tb
    int64_t m, n, k, lda, ldb, ldc       # in elements
    char* a
    char* b
    char* c
    int nd                               # batch dims left after merging
    int64_t size[MAX_DIMS]
    int64_t sa[MAX_DIMS]                 # batch strides, in bytes
    int64_t sb[MAX_DIMS]
    int64_t sc[MAX_DIMS]
    int64_t nbatch
    int64_t per_chunk
    char* bias                           # NULL, or n elements added to every row of C


cdef inline void _gemm_block(const Plan* p, int64_t m, int64_t n, char* a, char* b,
                             char* c, char* bias) noexcept nogil:
    """An ``m x n`` block of the plan's product, its operands at ``a``, ``b``, ``c``,
    plus the ``n`` elements at ``bias`` on every row (unless NULL).

    The bias is copied into the block's rows and BLAS adds the product to them
    (``beta = 1``): the block is then still in cache, where adding the bias after
    the whole product would take one more pass over memory."""
    cdef int64_t isz = 8 if p.f64 else 4
    cdef int64_t i
    cdef double beta = 0.0
    if bias != NULL:
        for i in range(m):
            memcpy(c + i * p.ldc * isz, bias, <size_t>(n * isz))
        beta = 1.0
    if p.f64:
        _dgemm(ROW_MAJOR, p.ta, p.tb, m, n, p.k, 1.0, <const double*>a, p.lda,
               <const double*>b, p.ldb, beta, <double*>c, p.ldc)
    else:
        _sgemm(ROW_MAJOR, p.ta, p.tb, m, n, p.k, 1.0, <const float*>a, p.lda,
               <const float*>b, p.ldb, <float>beta, <float*>c, p.ldc)


cdef inline void _gemm_one(const Plan* p, char* a, char* b, char* c) noexcept nogil:
    _gemm_block(p, p.m, p.n, a, b, c, p.bias)


cdef struct Split:
    const Plan* p
    bint rows            # blocks of rows of C (else of columns)
    int64_t step         # rows or columns per block


cdef void _split_chunk(void* ctx, int chunk) noexcept nogil:
    """Block ``chunk`` of a split product: rows of A and C, or columns of B and C."""
    cdef const Split* s = <const Split*>ctx
    cdef const Plan* p = s.p
    cdef int64_t isz = 8 if p.f64 else 4
    cdef int64_t lo = chunk * s.step
    cdef int64_t hi = lo + s.step
    cdef int64_t total = p.m if s.rows else p.n
    if hi > total:
        hi = total
    if s.rows:      # row i of op(A): a + i*lda, or a + i when A is read transposed
        _gemm_block(p, hi - lo, p.n, p.a + lo * (p.lda if p.ta == NO_TRANS else 1) * isz,
                    p.b, p.c + lo * p.ldc * isz, p.bias)
    else:           # column j of op(B): b + j, or b + j*ldb when read transposed
        _gemm_block(p, p.m, hi - lo, p.a, p.b + lo * (1 if p.tb == NO_TRANS else p.ldb) * isz,
                    p.c + lo * isz, p.bias + lo * isz if p.bias != NULL else NULL)


cdef bint _run_split(const Plan* p, int threads, int64_t work) noexcept nogil:
    """One product (``p.nbatch == 1``) cut into blocks across the pool; False if it
    is too narrow to cut in two."""
    cdef Split s
    cdef int64_t nchunks = work // SPLIT_CHUNK_MIN
    cdef int64_t total
    if nchunks > threads:
        nchunks = threads
    s.p = p
    s.rows = p.m >= p.n
    total = p.m if s.rows else p.n
    s.step = (total + nchunks - 1) // nchunks
    s.step = (s.step + SPLIT_ALIGN - 1) // SPLIT_ALIGN * SPLIT_ALIGN
    nchunks = (total + s.step - 1) // s.step
    if nchunks < 2:
        return False
    global _n_split
    _n_split += 1
    pool_run(<int>nchunks, _split_chunk, &s)
    return True


cdef void _gemm_range(const Plan* p, int64_t lo, int64_t hi) noexcept nogil:
    """Slices ``lo <= i < hi`` of the batch (C order over the batch dims)."""
    cdef int64_t idx[MAX_DIMS]
    cdef int64_t rem = lo, oa = 0, ob = 0, oc = 0, i
    cdef int d
    for d in range(p.nd - 1, -1, -1):
        idx[d] = rem % p.size[d]
        rem = rem // p.size[d]
        oa += idx[d] * p.sa[d]
        ob += idx[d] * p.sb[d]
        oc += idx[d] * p.sc[d]
    for i in range(lo, hi):
        _gemm_one(p, p.a + oa, p.b + ob, p.c + oc)
        d = p.nd - 1
        while d >= 0:           # the next index, odometer-wise
            idx[d] += 1
            oa += p.sa[d]
            ob += p.sb[d]
            oc += p.sc[d]
            if idx[d] < p.size[d]:
                break
            oa -= p.sa[d] * p.size[d]
            ob -= p.sb[d] * p.size[d]
            oc -= p.sc[d] * p.size[d]
            idx[d] = 0
            d -= 1


cdef void _gemm_chunk(void* ctx, int chunk) noexcept nogil:
    cdef const Plan* p = <const Plan*>ctx
    cdef int64_t lo = chunk * p.per_chunk
    cdef int64_t hi = lo + p.per_chunk
    _gemm_range(p, lo, hi if hi < p.nbatch else p.nbatch)


cdef void _element(const Plan* p, int64_t i, Plan* q) noexcept nogil:
    """``q``: the plan of batch element ``i`` alone (C order over the batch dims)."""
    cdef int d
    q[0] = p[0]
    q.nd, q.nbatch = 0, 1
    for d in range(p.nd - 1, -1, -1):
        q.a += (i % p.size[d]) * p.sa[d]
        q.b += (i % p.size[d]) * p.sb[d]
        q.c += (i % p.size[d]) * p.sc[d]
        i //= p.size[d]


cdef void _run(Plan* p, int threads) noexcept nogil:
    """Run the plan with ``threads`` (the budget), BLAS always on one thread, so
    that its own threads never spin against the pool's: with a budget above one,
    each product of ``_split_min`` multiply-adds or more (``_split_min_contended``
    while the pool is contended) is cut into blocks across cygrad's pool when the
    batch has fewer products than threads, and otherwise a
    batch whose total reaches ``_batch_pool_min`` (or of products that large) is
    split across the pool by products."""
    cdef int64_t work = p.m * p.n * p.k
    cdef bint lower = threads > 1 and work > BLAS_ONE_THREAD_MAX
    cdef int64_t nchunks, i
    cdef Plan q
    if lower:
        _set_threads(1)
    if threads <= 1:
        _gemm_range(p, 0, p.nbatch)
    elif (work >= _split_min and p.nbatch < threads
          and (work >= _split_min_contended or not pool_contended())):
        for i in range(p.nbatch):
            _element(p, i, &q)
            if not _run_split(&q, threads, work):
                _gemm_range(&q, 0, 1)
    elif p.nbatch > 1 and (work >= _split_min or work * p.nbatch >= _batch_pool_min
                           or (work * p.nbatch >= _batch_pool_min_quiet
                               and not pool_contended())):
        p.per_chunk = (CHUNK_WORK + work - 1) // work
        nchunks = (p.nbatch + p.per_chunk - 1) // p.per_chunk
        if nchunks > INT32_MAX_CHUNKS:
            p.per_chunk = (p.nbatch + INT32_MAX_CHUNKS - 1) // INT32_MAX_CHUNKS
            nchunks = (p.nbatch + p.per_chunk - 1) // p.per_chunk
        pool_run(<int>nchunks, _gemm_chunk, p)
    else:
        _gemm_range(p, 0, p.nbatch)
    if lower:
        _set_threads(threads)


cdef inline bint _layout(int64_t rows, int64_t cols, int64_t rs, int64_t cs,
                         int* trans, int64_t* ld) noexcept:
    """How BLAS reads a ``rows x cols`` matrix of element strides ``(rs, cs)``:
    row-major (no transpose, leading dim ``rs``) or column-major (transpose flag,
    leading dim ``cs``); False when neither fits. A size-1 dim's stride is free."""
    cdef int64_t mc = cols if cols > 1 else 1
    cdef int64_t mr = rows if rows > 1 else 1
    if (cols == 1 or cs == 1) and (rows == 1 or rs >= mc):
        trans[0] = NO_TRANS
        ld[0] = rs if rows > 1 else mc
        return True
    if (rows == 1 or rs == 1) and (cols == 1 or cs >= mr):
        trans[0] = TRANS
        ld[0] = cs if cols > 1 else mr
        return True
    return False


cdef inline void _extent(TensorBase t, uintptr_t* lo, uintptr_t* hi) noexcept:
    """The bytes ``[lo, hi)`` a tensor's elements can touch."""
    cdef int64_t down = 0, up = 0, span
    cdef int i
    for i in range(t._ndim):
        span = (t._shape[i] - 1) * t._strides[i]
        if span < 0:
            down += span
        else:
            up += span
    lo[0] = <uintptr_t>t.ptr() + down * t._dtype.itemsize
    hi[0] = <uintptr_t>t.ptr() + (up + 1) * t._dtype.itemsize


cdef bint _overlap(TensorBase x, TensorBase y):
    cdef uintptr_t xl, xh, yl, yh
    _extent(x, &xl, &xh)
    _extent(y, &yl, &yh)
    return xl < yh and yl < xh


cdef TensorBase _contiguous(TensorBase t):
    """A contiguous copy (the core's copy: no autograd)."""
    global _n_copies
    cdef TensorBase c = new_empty(t._dtype, t._ndim, t._shape, _CPU)
    _n_copies += 1
    _copy_into(c, t)
    return c


cdef inline bint _aligned(TensorBase t) noexcept:
    return (<uintptr_t>t.ptr()) % t._dtype.itemsize == 0


def matmul_into(TensorBase a not None, TensorBase b not None, TensorBase out not None,
                int threads, TensorBase bias=None):
    """``out[...] = a @ b`` (NumPy's matmul rules) by BLAS, if it applies; with
    ``bias``, ``out[...] = a @ b + bias``.

    ``a``, ``b`` and ``out`` are CPU tensors of one dtype, float32 or float64, with
    ``m``, ``n``, ``k`` > 0; ``out`` already has the broadcast result shape.
    ``threads`` is the thread budget (``cygrad._threading``: what BLAS is set to).
    ``bias`` (of the same dtype, ``n`` contiguous elements) is taken only where the
    product is one row-major GEMM (no batch left after folding ``a``'s batch dims
    into its rows): it is written into each block of ``out`` just before BLAS adds
    that block's product to it, so ``nn.Linear`` pays no separate pass for it.
    Returns False, having written nothing, for any case it does not take.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import gemm
    >>> x, w = cygrad.ones(2, 3, 4), cygrad.ones(5, 4)
    >>> out = cygrad.empty(2, 3, 5)
    >>> gemm.matmul_into(x, w.t(), out, 1), out[1, 2].tolist()
    (True, [4.0, 4.0, 4.0, 4.0, 4.0])
    >>> gemm.matmul_into(x.int(), w.int().t(), out.int(), 1)     # not a float product
    False
    >>> gemm.matmul_into(x, w.t(), out, 1, cygrad.arange(5.0)), out[1, 2].tolist()
    (True, [4.0, 5.0, 6.0, 7.0, 8.0])
    """
    cdef Plan p
    cdef int code = a._dtype.code
    cdef bint avec, bvec, swap = False
    cdef int64_t m, n, k, kb, ars, acs, brs, bcs, ors, ocs, size, s_a, s_b
    cdef int nb, abatch, bbatch, j, ja, jb, q, tmp_t, pos
    cdef int64_t isz
    cdef char* tmp_p
    if _sgemm == NULL or (code != DT_FLOAT32 and code != DT_FLOAT64):
        return False
    if b._dtype is not a._dtype or out._dtype is not a._dtype:
        return False
    if (a._storage.device is not _CPU or b._storage.device is not _CPU
            or out._storage.device is not _CPU):
        return False
    if a._ndim < 1 or b._ndim < 1:
        return False
    isz = a._dtype.itemsize
    avec, bvec = a._ndim == 1, b._ndim == 1

    # the matrices, copying an operand BLAS cannot read as it is
    if avec:
        m, k, ars, acs = 1, a._shape[0], 0, a._strides[0]
    else:
        m, k = a._shape[a._ndim - 2], a._shape[a._ndim - 1]
        ars, acs = a._strides[a._ndim - 2], a._strides[a._ndim - 1]
    if bvec:
        kb, n, brs, bcs = b._shape[0], 1, b._strides[0], 0
    else:
        kb, n = b._shape[b._ndim - 2], b._shape[b._ndim - 1]
        brs, bcs = b._strides[b._ndim - 2], b._strides[b._ndim - 1]
    if kb != k or m <= 0 or n <= 0 or k <= 0:
        return False
    if not _layout(m, k, ars, acs, &p.ta, &p.lda) or not _aligned(a):
        a = _contiguous(a)
        ars = 0 if avec else k
        acs = 1
        _layout(m, k, ars, acs, &p.ta, &p.lda)
    if not _layout(k, n, brs, bcs, &p.tb, &p.ldb) or not _aligned(b):
        b = _contiguous(b)
        brs = 1 if bvec else n
        bcs = 0 if bvec else 1
        _layout(k, n, brs, bcs, &p.tb, &p.ldb)

    # the result's matrix: row-major, or column-major (then C^T = B^T A^T)
    nb = out._ndim - (0 if avec else 1) - (0 if bvec else 1)
    abatch = a._ndim - (1 if avec else 2)
    bbatch = b._ndim - (1 if bvec else 2)
    if nb < 0 or abatch > nb or bbatch > nb or not _aligned(out):
        return False
    pos = out._ndim
    ors = ocs = 0
    if not bvec:
        pos -= 1
        if out._shape[pos] != n:
            return False
        ocs = out._strides[pos]
    if not avec:
        pos -= 1
        if out._shape[pos] != m:
            return False
        ors = out._strides[pos]
    if (n == 1 or ocs == 1) and (m == 1 or ors >= n):
        p.ldc = ors if m > 1 else n
    elif (m == 1 or ors == 1) and (n == 1 or ocs >= m):
        swap = True
        p.ldc = ocs if n > 1 else m
    else:
        return False
    if _overlap(out, a) or _overlap(out, b):
        return False

    # batch dims: broadcast (stride 0), size-1 dims dropped, mergeable dims merged
    p.nd = 0
    p.nbatch = 1
    for j in range(nb):
        size = out._shape[j]
        ja = j - (nb - abatch)
        jb = j - (nb - bbatch)
        s_a = s_b = 0
        if ja >= 0:
            if a._shape[ja] == size:
                s_a = a._strides[ja]
            elif a._shape[ja] != 1:
                return False
        if jb >= 0:
            if b._shape[jb] == size:
                s_b = b._strides[jb]
            elif b._shape[jb] != 1:
                return False
        if size == 1:
            continue
        if size <= 0 or out._strides[j] == 0:     # (an expanded result: one element, many writes)
            return False
        q = p.nd - 1
        if (q >= 0 and p.sa[q] == s_a * size and p.sb[q] == s_b * size
                and p.sc[q] == out._strides[j] * size):
            p.size[q] *= size
            p.sa[q], p.sb[q], p.sc[q] = s_a, s_b, out._strides[j]
        else:
            p.size[p.nd] = size
            p.sa[p.nd], p.sb[p.nd], p.sc[p.nd] = s_a, s_b, out._strides[j]
            p.nd += 1
        p.nbatch *= size
    # a's batch folds into its rows when b is not batched: one GEMM
    if (p.nd == 1 and p.sb[0] == 0 and not swap and p.ta == NO_TRANS
            and ((m == 1 and p.sa[0] >= k) or (m > 1 and p.sa[0] == m * p.lda))
            and ((m == 1 and p.sc[0] >= n) or (m > 1 and p.sc[0] == m * p.ldc))):
        if m == 1:
            p.lda, p.ldc = p.sa[0], p.sc[0]
        m *= p.size[0]
        p.nd = 0
        p.nbatch = 1
    for j in range(p.nd):
        p.sa[j] *= isz
        p.sb[j] *= isz
        p.sc[j] *= isz
    p.f64 = code == DT_FLOAT64
    p.m, p.n, p.k = m, n, k
    p.a, p.b, p.c = a.ptr(), b.ptr(), out.ptr()
    p.bias = NULL
    if bias is not None:
        if (p.nd != 0 or swap or bias._dtype is not a._dtype or bias._storage.device is not _CPU
                or bias._ndim != 1 or bias._shape[0] != n or (n > 1 and bias._strides[0] != 1)
                or not _aligned(bias) or _overlap(out, bias)):
            return False
        p.bias = bias.ptr()
    if swap:     # C^T (n x m) = B^T (n x k) @ A^T (k x m): the operands trade places
        p.m, p.n = n, m
        p.a, p.b = b.ptr(), a.ptr()
        tmp_t = p.ta
        p.ta = TRANS if p.tb == NO_TRANS else NO_TRANS
        p.tb = TRANS if tmp_t == NO_TRANS else NO_TRANS
        p.lda, p.ldb = p.ldb, p.lda
        for j in range(p.nd):
            p.sa[j], p.sb[j] = p.sb[j], p.sa[j]
    if threads < 1:
        threads = 1
    global _n_products, _n_calls
    _n_products += 1
    _n_calls += p.nbatch
    if p.m * p.n * p.k * p.nbatch >= GIL_RELEASE_MIN:
        with nogil:
            _run(&p, threads)
    else:
        _run(&p, threads)
    return True


connect()
