/* Running sums and products (cumsum, cumprod) of float32 and float64 arrays
 * (scan.c). */
#ifndef CYGRAD_SCAN_H
#define CYGRAD_SCAN_H
#include "kernels.h"

/* y[o, i, j] = x[o, 0, j] + ... + x[o, i, j] (products when `product`) over a
 * C-contiguous (outer, n, inner) array, for the outer rows [o0, o1). The running
 * value is kept in double and rounded to the dtype at each step, as PyTorch's CPU
 * kernels do, so float32 results are PyTorch's bit for bit. */
void cg_scan_f(cg_index o0, cg_index o1, cg_index n, cg_index inner, const float* x, float* y,
               int product);
void cg_scan_d(cg_index o0, cg_index o1, cg_index n, cg_index inner, const double* x,
               double* y, int product);

#endif
