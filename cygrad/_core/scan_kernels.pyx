"""CPU kernel of the running sums and products (``cumsum``, ``cumprod``) of float32
and float64 tensors (cpu/scan.c): the running value is kept in double, as in
PyTorch's CPU kernels, so float32 results match PyTorch's bit for bit; rows are
computed one after another in the same order on any thread count.

Examples
--------
>>> import cygrad
>>> from cygrad._core import scan_kernels as K
>>> K.scan(cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]), 0, False).tolist()
[[1.0, 2.0], [4.0, 6.0]]
>>> K.scan(cygrad.tensor([1.0, 2.0, 3.0]), 0, True).tolist()
[1.0, 2.0, 6.0]
"""
from .dtype cimport DT_FLOAT32, DT_FLOAT64
from .tensor cimport TensorBase, new_empty, pool_run, cg_chunk_fn

from .._device import CPU as _CPU_DEVICE

cdef extern from "scan.h" nogil:
    ctypedef Py_ssize_t cg_index
    void cg_scan_f(cg_index o0, cg_index o1, cg_index n, cg_index inner, const float* x,
                   float* y, int product)
    void cg_scan_d(cg_index o0, cg_index o1, cg_index n, cg_index inner, const double* x,
                   double* y, int product)

cdef object _CPU = _CPU_DEVICE

cdef enum:
    # From this many elements the outer rows are split across cygrad's pool (each
    # row whole on one thread, so the result does not depend on the split).
    PARALLEL_MIN = 1 << 16
    GIL_RELEASE_MIN = 4096


cdef struct Job:
    bint f64
    int product
    cg_index outer, n, inner, per_chunk
    char* x
    char* y


cdef void _rows(const Job* j, cg_index o0, cg_index o1) noexcept nogil:
    if j.f64:
        cg_scan_d(o0, o1, j.n, j.inner, <const double*>j.x, <double*>j.y, j.product)
    else:
        cg_scan_f(o0, o1, j.n, j.inner, <const float*>j.x, <float*>j.y, j.product)


cdef void _chunk(void* ctx, int c) noexcept nogil:
    cdef const Job* j = <const Job*>ctx
    cdef cg_index o0 = c * j.per_chunk
    cdef cg_index o1 = o0 + j.per_chunk
    _rows(j, o0, o1 if o1 < j.outer else j.outer)


def scan(TensorBase x not None, int d, bint product):
    """Running sum (``product``: product) of the contiguous float32/float64 CPU
    tensor ``x`` (at least 1-d) along dim ``d`` (wrapped), in a new tensor.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core import scan_kernels as K
    >>> K.scan(cygrad.ones(2, 3), 1, False).tolist()
    [[1.0, 2.0, 3.0], [1.0, 2.0, 3.0]]
    """
    cdef Job j
    cdef int code = x._dtype.code
    cdef int i, nchunks
    cdef TensorBase out
    if code != DT_FLOAT32 and code != DT_FLOAT64:
        raise TypeError(f"scan: expected a float32 or float64 tensor, got {x._dtype}")
    if x._storage.device is not _CPU or not x._is_contig or x._ndim < 1:
        raise ValueError("scan: expected a contiguous CPU tensor of at least one dim")
    if d < 0 or d >= x._ndim:
        raise IndexError(f"scan: dim {d} out of range for {x._ndim} dims")
    j.f64 = code == DT_FLOAT64
    j.product = product
    j.outer, j.inner = 1, 1
    for i in range(d):
        j.outer *= x._shape[i]
    for i in range(d + 1, x._ndim):
        j.inner *= x._shape[i]
    j.n = x._shape[d]
    out = new_empty(x._dtype, x._ndim, x._shape, _CPU)
    if x._numel == 0:
        return out
    j.x, j.y = x.ptr(), out.ptr()
    nchunks = 1
    if x._numel >= PARALLEL_MIN and j.outer > 1:
        # about 2^15 elements a chunk, whole outer rows
        j.per_chunk = max(1, (1 << 15) // (j.n * j.inner))
        nchunks = <int>((j.outer + j.per_chunk - 1) // j.per_chunk)
    if nchunks > 1:
        with nogil:
            pool_run(nchunks, <cg_chunk_fn>_chunk, &j)
    elif x._numel >= GIL_RELEASE_MIN:
        with nogil:
            _rows(&j, 0, j.outer)
    else:
        _rows(&j, 0, j.outer)
    return out
