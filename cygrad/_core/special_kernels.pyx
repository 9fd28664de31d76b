"""The special functions' C loops (cpu/special.c) over contiguous float64 arrays.

``unary(name, x, out)`` and ``binary(name, a, b, out)`` fill ``out`` (float64,
C-contiguous, the operands' shape) with the named function of ``x`` (or of
``a`` and ``b``), releasing the GIL for large arrays and splitting very large
ones over cygrad's thread pool. They are called by the CPU
backend (``backend_cpu/special.py``), which converts, broadcasts and rounds
around them; the names are the keys of :data:`UNARY` and :data:`BINARY`.

Examples
--------
>>> import numpy as np
>>> from cygrad._core import special_kernels as K
>>> out = np.empty(2)
>>> K.unary("digamma", np.array([1.0, 2.0]), out)
>>> [round(float(v), 6) for v in out]
[-0.577216, 0.422784]
"""
from .tensor cimport pool_run, cg_chunk_fn

cdef extern from "special.h" nogil:
    ctypedef Py_ssize_t cg_sindex
    void cg_special_unary(int op, cg_sindex n, const double* x, double* out)
    void cg_special_binary(int op, cg_sindex n, const double* a, const double* b, double* out)

# same order as enum cg_special_unary / cg_special_binary in special.h
UNARY = {name: code for code, name in enumerate((
    "lgamma", "digamma", "erfinv", "ndtri", "ndtr", "log_ndtr", "erfcx", "i0", "i0e", "i1",
    "i1e", "modified_bessel_k0", "scaled_modified_bessel_k0", "modified_bessel_k1",
    "scaled_modified_bessel_k1", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1",
    "airy_ai", "spherical_bessel_j0", "sinc", "entr"))}
BINARY = {name: code for code, name in enumerate((
    "polygamma", "zeta", "gammainc", "gammaincc", "xlogy", "xlog1py",
    "chebyshev_polynomial_t", "chebyshev_polynomial_u", "chebyshev_polynomial_v",
    "chebyshev_polynomial_w", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "hermite_polynomial_h", "hermite_polynomial_he",
    "laguerre_polynomial_l", "legendre_polynomial_p"))}

# Releasing the GIL costs a mutex round trip: only worth it for real work. From
# PARALLEL_MIN elements the loop is cut into chunks for cygrad's thread pool (each
# element is computed alone, so the result does not depend on the thread count).
cdef enum:
    GIL_RELEASE_MIN = 1024
    PARALLEL_MIN = 16384
    CHUNK_MIN = 4096
    CHUNKS_PER_THREAD = 4

ctypedef struct Job:
    int op
    Py_ssize_t n
    int nchunks
    const double* a
    const double* b      # NULL for a unary function
    double* out


cdef void _run_chunk(void* ctx, int c) noexcept nogil:
    cdef Job* j = <Job*>ctx
    cdef Py_ssize_t start = j.n * c // j.nchunks, end = j.n * (c + 1) // j.nchunks
    if j.b == NULL:
        cg_special_unary(j.op, end - start, j.a + start, j.out + start)
    else:
        cg_special_binary(j.op, end - start, j.a + start, j.b + start, j.out + start)


cdef void _run(Job* job) noexcept nogil:
    if job.nchunks > 1:
        pool_run(job.nchunks, <cg_chunk_fn>_run_chunk, job)
    else:
        _run_chunk(job, 0)


cdef int _chunks(Py_ssize_t n):
    if n < PARALLEL_MIN:
        return 1
    from .._threading import get_num_threads
    return <int>max(1, min(get_num_threads() * CHUNKS_PER_THREAD, n // CHUNK_MIN))


def unary(str name, const double[::1] x, double[::1] out):
    """out[i] = name(x[i])."""
    cdef Job job
    job.op = UNARY[name]
    job.n = x.shape[0]
    if out.shape[0] != job.n:
        raise ValueError("special_kernels.unary: x and out differ in length")
    if job.n == 0:
        return
    job.a, job.b, job.out, job.nchunks = &x[0], NULL, &out[0], _chunks(job.n)
    if job.n >= GIL_RELEASE_MIN:
        with nogil:
            _run(&job)
    else:
        _run(&job)


def binary(str name, const double[::1] a, const double[::1] b, double[::1] out):
    """out[i] = name(a[i], b[i])."""
    cdef Job job
    job.op = BINARY[name]
    job.n = a.shape[0]
    if b.shape[0] != job.n or out.shape[0] != job.n:
        raise ValueError("special_kernels.binary: operands differ in length")
    if job.n == 0:
        return
    job.a, job.b, job.out, job.nchunks = &a[0], &b[0], &out[0], _chunks(job.n)
    if job.n >= GIL_RELEASE_MIN:
        with nogil:
            _run(&job)
    else:
        _run(&job)
