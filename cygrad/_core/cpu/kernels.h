/* CPU kernels of cygrad: plain C, called from Cython with the GIL released.
 *
 * Every kernel walks an n-dimensional index space through cg_nd_loop, which
 * drops size-1 dimensions, merges dimensions that are contiguous in every
 * operand, and hands the innermost run to a typed inner loop. Strides are in
 * elements and may be 0 (broadcast) or negative (flipped views). Large loops
 * are split across the threads of cygrad's pool (parallel.c). */
#ifndef CYGRAD_KERNELS_H
#define CYGRAD_KERNELS_H
#include <stddef.h>
#include <stdint.h>

#define CG_MAX_DIMS 16
typedef ptrdiff_t cg_index;

/* dtype codes: same order as cygrad/_core/dtype.pxd */
enum { CG_BOOL, CG_UINT8, CG_INT8, CG_INT16, CG_INT32, CG_INT64,
       CG_FLOAT16, CG_BFLOAT16, CG_FLOAT32, CG_FLOAT64, CG_COMPLEX64, CG_COMPLEX128 };

enum cg_binary_op { CG_ADD, CG_SUB, CG_MUL, CG_DIV, CG_MAXIMUM, CG_MINIMUM, CG_NUM_BINARY };

enum cg_unary_op {
    CG_COPY, CG_NEG, CG_ABS, CG_EXP, CG_EXP2, CG_EXPM1, CG_LOG, CG_LOG2, CG_LOG10,
    CG_LOG1P, CG_SQRT, CG_RSQRT, CG_SIN, CG_COS, CG_TAN, CG_ASIN, CG_ACOS, CG_ATAN,
    CG_SINH, CG_COSH, CG_TANH, CG_SIGMOID, CG_RELU, CG_ERF, CG_ERFC, CG_FLOOR,
    CG_CEIL, CG_TRUNC, CG_ROUND, CG_FRAC, CG_RECIPROCAL, CG_SQUARE, CG_NUM_UNARY
};

enum cg_reduce_op { CG_RSUM, CG_RMAX, CG_RMIN, CG_NUM_REDUCE };

/* Is there a C kernel for (op, dtype)? When not, the caller falls back to NumPy. */
int cg_has_binary(int op, int dtype);
int cg_has_unary(int op, int dtype);
int cg_has_reduce(int op, int dtype);

/* out = a OP b over `shape`; strides are per operand, in elements. */
void cg_binary(int op, int dtype, int ndim, const cg_index* shape,
               char* out, const cg_index* so, const char* a, const cg_index* sa,
               const char* b, const cg_index* sb);

/* out = OP(a); CG_COPY works for any dtype (it only moves bytes). */
void cg_unary(int op, int dtype, int ndim, const cg_index* shape,
              char* out, const cg_index* so, const char* a, const cg_index* sa);

/* Reduce a contiguous (rows x n) block along its last axis: out[r] = OP(a[r, :]).
 * Sums of float32 accumulate in double per block, so long sums stay accurate. */
void cg_reduce_rows(int op, int dtype, cg_index rows, cg_index n, const char* a, char* out);

/* The intra-op thread pool (parallel.c): threads the kernels may use, and
 * cg_parallel_chunks(n, fn, ctx), which calls fn(ctx, c) once for each chunk c in
 * [0, n), on the pool's threads and the caller's. Which thread runs a chunk
 * varies; what a chunk computes must not. */
int cg_num_threads(void);
void cg_set_num_threads(int n);
typedef void (*cg_chunk_fn)(void* ctx, int chunk);
void cg_parallel_chunks(int nchunks, cg_chunk_fn fn, void* ctx);

/* Kernel families, each with the element count from which it uses threads. */
enum { CG_PAR_BINARY, CG_PAR_UNARY_CHEAP, CG_PAR_UNARY_MATH, CG_PAR_REDUCE, CG_PAR_NUM_FAMILIES };
extern cg_index cg_parallel_min[CG_PAR_NUM_FAMILIES];

#endif
