/* 2-d convolution forward and weight gradient as im2col + BLAS per block of
 * output rows (conv_gemm.c). */
#ifndef CYGRAD_CONV_GEMM_H
#define CYGRAD_CONV_GEMM_H
#include <stdint.h>
#include "kernels.h"

/* ILP64 cblas_?gemm and openblas_set_num_threads (the ones gemm.pyx uses). */
typedef void (*cg_sgemm_fn)(int order, int ta, int tb, int64_t m, int64_t n, int64_t k,
                            float alpha, const float* a, int64_t lda, const float* b,
                            int64_t ldb, float beta, float* c, int64_t ldc);
typedef void (*cg_dgemm_fn)(int order, int ta, int tb, int64_t m, int64_t n, int64_t k,
                            double alpha, const double* a, int64_t lda, const double* b,
                            int64_t ldb, double beta, double* c, int64_t ldc);
typedef void (*cg_set_threads_fn)(int n);

/* The geometry: input (n, c, h, w) with element strides xs, weight (cout, c /
 * groups, kh, kw), output (n, cout, oh, ow); ph, pw: padding before each dim. */
typedef struct {
    cg_index n, c, h, w, cout, groups, kh, kw, oh, ow;
    cg_index sh, sw, dh, dw, ph, pw;
    cg_index xs[4];
} cg_conv_geom;

void cg_conv_gemm_set(cg_conv_pool_fn run, cg_sgemm_fn s, cg_dgemm_fn d, cg_set_threads_fn t);
int cg_conv_gemm_ready(void);
/* out (contiguous (n, cout, oh, ow)) = conv2d(x, w) + bias (NULL: none); w is
 * contiguous (cout, c / groups * kh * kw). 0, or -1 when out of memory. */
int cg_conv2d_gemm_forward(const cg_conv_geom* g, int f64, const char* x, const char* w,
                           const char* bias, char* out, int threads);
/* out (contiguous (cout, c / groups * kh * kw)) = the weight gradient for the
 * output gradient dy (contiguous (n, cout, oh * ow)). 0, or -1 when out of memory. */
int cg_conv2d_gemm_weight(const cg_conv_geom* g, int f64, const char* x, const char* dy,
                          char* out, int threads);
/* out (contiguous (n, c, h, w)) = the input gradient for the output gradient dy
 * (contiguous (n, cout, oh * ow)); w as for the forward. 0, or -1 when out of memory. */
int cg_conv2d_gemm_input(const cg_conv_geom* g, int f64, const char* dy, const char* w,
                         char* out, int threads);
#endif
