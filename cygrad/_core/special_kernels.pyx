"""The special functions' C loops (cpu/special.c) over contiguous float64 arrays.

``unary(name, x, out)`` and ``binary(name, a, b, out)`` fill ``out`` (float64,
C-contiguous, the operands' shape) with the named function of ``x`` (or of
``a`` and ``b``), releasing the GIL for large arrays. They are called by the CPU
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

# Releasing the GIL costs a mutex round trip: only worth it for real work.
cdef enum:
    GIL_RELEASE_MIN = 1024


def unary(str name, const double[::1] x, double[::1] out):
    """out[i] = name(x[i])."""
    cdef int op = UNARY[name]
    cdef Py_ssize_t n = x.shape[0]
    if out.shape[0] != n:
        raise ValueError("special_kernels.unary: x and out differ in length")
    if n == 0:
        return
    if n >= GIL_RELEASE_MIN:
        with nogil:
            cg_special_unary(op, n, &x[0], &out[0])
    else:
        cg_special_unary(op, n, &x[0], &out[0])


def binary(str name, const double[::1] a, const double[::1] b, double[::1] out):
    """out[i] = name(a[i], b[i])."""
    cdef int op = BINARY[name]
    cdef Py_ssize_t n = a.shape[0]
    if b.shape[0] != n or out.shape[0] != n:
        raise ValueError("special_kernels.binary: operands differ in length")
    if n == 0:
        return
    if n >= GIL_RELEASE_MIN:
        with nogil:
            cg_special_binary(op, n, &a[0], &b[0], &out[0])
    else:
        cg_special_binary(op, n, &a[0], &b[0], &out[0])
