/* Special functions of cygrad.special (special.c): float64 scalar functions and
 * two loops over contiguous float64 arrays, called without the GIL from
 * cygrad/_core/special_kernels.pyx. Float32/half results are these values
 * rounded by the caller. */
#ifndef CYGRAD_SPECIAL_H
#define CYGRAD_SPECIAL_H
#include <stddef.h>

typedef ptrdiff_t cg_sindex;

/* out[i] = f(x[i]) */
enum cg_special_unary {
    CG_S_LGAMMA, CG_S_DIGAMMA, CG_S_ERFINV, CG_S_NDTRI, CG_S_NDTR, CG_S_LOG_NDTR,
    CG_S_ERFCX, CG_S_I0, CG_S_I0E, CG_S_I1, CG_S_I1E, CG_S_K0, CG_S_K0E, CG_S_K1,
    CG_S_K1E, CG_S_J0, CG_S_J1, CG_S_Y0, CG_S_Y1, CG_S_AIRY_AI, CG_S_SPHERICAL_J0,
    CG_S_SINC, CG_S_ENTR, CG_S_NUM_UNARY
};

/* out[i] = f(a[i], b[i]); for the polynomials a is x and b is the degree n. */
enum cg_special_binary {
    CG_S_POLYGAMMA,   /* a = order n, b = x */
    CG_S_ZETA, CG_S_GAMMAINC, CG_S_GAMMAINCC, CG_S_XLOGY, CG_S_XLOG1PY,
    CG_S_CHEBYSHEV_T, CG_S_CHEBYSHEV_U, CG_S_CHEBYSHEV_V, CG_S_CHEBYSHEV_W,
    CG_S_SHIFTED_T, CG_S_SHIFTED_U, CG_S_SHIFTED_V, CG_S_SHIFTED_W,
    CG_S_HERMITE_H, CG_S_HERMITE_HE, CG_S_LAGUERRE, CG_S_LEGENDRE, CG_S_NUM_BINARY
};

double cg_digamma(double x);
double cg_zeta(double s, double q);
double cg_erfinv(double y);
double cg_ndtri(double p);

void cg_special_unary(int op, cg_sindex n, const double* x, double* out);
void cg_special_binary(int op, cg_sindex n, const double* a, const double* b, double* out);

#endif
