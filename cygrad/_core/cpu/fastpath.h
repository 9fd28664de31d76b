/* Small-operand kernels behind cygrad/_core/fastpath.pyx: contiguous inputs only,
 * no strides, no broadcasting, one thread. They exist because for a 10x10 product
 * or a 100-element select the call into BLAS or NumPy costs more than the work.
 * Dtype codes are those of kernels.h. */
#ifndef CYGRAD_FASTPATH_H
#define CYGRAD_FASTPATH_H
#include <stddef.h>
#include <stdint.h>

typedef ptrdiff_t cgf_index;

/* out (m x n) = a (m x k) @ b (k x n), all C-contiguous; float32/float64/complex64/
 * complex128. -1 for another dtype, 1 when out of memory. */
int cgf_matmul(int dtype, cgf_index m, cgf_index k, cgf_index n,
               const char* a, const char* b, char* out);

/* out[i] = cond[i] ? x[i] : y[i] for n elements of itemsize bytes (1, 2, 4, 8 or 16);
 * cond is bool (one byte, 0 or 1). -1 for another itemsize. */
int cgf_where(int itemsize, cgf_index n, const uint8_t* cond, const char* x, const char* y,
              char* out);

/* out = cond ? x : y over ndim (1..64) dims of `shape`, every operand with its own
 * strides (bytes for out/x/y, elements of one byte for the bool cond; 0 where an
 * operand is broadcast, so x or y with all-zero strides is a scalar). The one
 * kernel here that takes strides: masked_fill and where on training-step sizes.
 * Elements of 1, 2, 4 or 8 bytes; -1 otherwise. */
int cgf_select(int itemsize, int ndim, const cgf_index* shape,
               char* out, const cgf_index* so, const uint8_t* cond, const cgf_index* sc,
               const char* x, const cgf_index* sx, const char* y, const cgf_index* sy);

enum { CGF_SUM, CGF_MEAN, CGF_VAR, CGF_STD };

/* a viewed as (outer, n, inner), reduced over its middle axis into out (outer, inner):
 * CGF_SUM, CGF_MEAN, or CGF_VAR/CGF_STD with `correction` subtracted from n (two
 * passes: the mean, then the squared deviations). float32/float64, accumulated in
 * double. 1 for float32 values so large (finite, above 1e15) that NumPy's float32
 * accumulation could overflow where this one would not; -1 for another dtype or op.
 * n >= 1 and outer * n * inner <= 65536 are the caller's promise. */
int cgf_reduce_mid(int op, int dtype, cgf_index outer, cgf_index n, cgf_index inner,
                   double correction, const char* a, char* out);

/* x (n x k) solving a (n x n) @ x = b (n x k) by LU with partial pivoting, in the
 * dtype's precision (float32/float64); a and b are left untouched. 1 when a pivot is
 * exactly zero or an input is not finite (the caller then takes the LAPACK route,
 * which decides what to raise), -1 for another dtype, 0 on success. */
int cgf_solve(int dtype, cgf_index n, cgf_index k, const char* a, const char* b, char* out);

enum { CGF_CADD, CGF_CSUB, CGF_CMUL };

/* out = a OP b for n complex64/complex128 elements. -1 for another dtype or op. */
int cgf_complex_binary(int op, int dtype, cgf_index n, const char* a, const char* b, char* out);

/* out = |a| (a real array of the component dtype) for n complex elements, as hypot. */
int cgf_complex_abs(int dtype, cgf_index n, const char* a, char* out);

#endif
