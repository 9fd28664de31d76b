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
#include "isa.h"

#define CG_MAX_DIMS 64
typedef ptrdiff_t cg_index;

/* dtype codes: same order as cygrad/_core/dtype.pxd */
enum { CG_BOOL, CG_UINT8, CG_INT8, CG_INT16, CG_INT32, CG_INT64,
       CG_FLOAT16, CG_BFLOAT16, CG_FLOAT32, CG_FLOAT64, CG_COMPLEX64, CG_COMPLEX128 };

/* From CG_EQ on, the result is bool (one byte, 0 or 1) whatever the inputs' dtype. */
enum cg_binary_op { CG_ADD, CG_SUB, CG_MUL, CG_DIV, CG_MAXIMUM, CG_MINIMUM,
                    CG_EQ, CG_NE, CG_LT, CG_LE, CG_GT, CG_GE,
                    CG_LOGICAL_AND, CG_LOGICAL_OR, CG_LOGICAL_XOR, CG_NUM_BINARY };
#define CG_BINARY_BOOL_RESULT(op) ((op) >= CG_EQ)

enum cg_unary_op {
    CG_COPY, CG_NEG, CG_ABS, CG_EXP, CG_EXP2, CG_EXPM1, CG_LOG, CG_LOG2, CG_LOG10,
    CG_LOG1P, CG_SQRT, CG_RSQRT, CG_SIN, CG_COS, CG_TAN, CG_ASIN, CG_ACOS, CG_ATAN,
    CG_SINH, CG_COSH, CG_TANH, CG_SIGMOID, CG_RELU, CG_ERF, CG_ERFC, CG_FLOOR,
    CG_CEIL, CG_TRUNC, CG_ROUND, CG_FRAC, CG_RECIPROCAL, CG_SQUARE, CG_ASINH,
    CG_ACOSH, CG_ATANH, CG_NUM_UNARY
};

enum cg_reduce_op { CG_RSUM, CG_RMAX, CG_RMIN, CG_NUM_REDUCE };

/* Is there a C kernel for (op, dtype)? When not, the caller falls back to NumPy. */
int cg_has_binary(int op, int dtype);
int cg_has_unary(int op, int dtype);
int cg_has_reduce(int op, int dtype);

/* out = a OP b over `shape`; strides are per operand, in elements. a and b have
 * `dtype`; out has it too, or is bool for the ops CG_BINARY_BOOL_RESULT names. */
void cg_binary(int op, int dtype, int ndim, const cg_index* shape,
               char* out, const cg_index* so, const char* a, const cg_index* sa,
               const char* b, const cg_index* sb);

/* out = OP(a); CG_COPY works for any dtype (it only moves bytes). */
void cg_unary(int op, int dtype, int ndim, const cg_index* shape,
              char* out, const cg_index* so, const char* a, const cg_index* sa);

/* Reduce a contiguous (rows x n) block along its last axis: out[r] = OP(a[r, :]).
 * Sums of float32 accumulate in double per block, so long sums stay accurate. */
void cg_reduce_rows(int op, int dtype, cg_index rows, cg_index n, const char* a, char* out);
/* out[o, j] = OP over i of a[o, i, j] for a contiguous (outer, n, inner) block,
 * n >= 1; a sum is divided by `divisor` when it is above 0 (a mean). Returns 0,
 * or -1 when memory for the partial results of wide rows ran out. */
int cg_reduce_cols(int op, int dtype, cg_index outer, cg_index n, cg_index inner,
                    double divisor, const char* a, char* out);

/* The intra-op thread pool (parallel.c): threads the kernels may use, and
 * cg_parallel_chunks(n, fn, ctx), which calls fn(ctx, c) once for each chunk c in
 * [0, n), on the pool's threads and the caller's. Which thread runs a chunk
 * varies; what a chunk computes must not. */
int cg_num_threads(void);
void cg_set_num_threads(int n);
typedef void (*cg_chunk_fn)(void* ctx, int chunk);
void cg_parallel_chunks(int nchunks, cg_chunk_fn fn, void* ctx);
/* Whether a worker stalled (lost its core mid-chunk) in the last quarter second:
 * kernels then keep mid-sized jobs on one thread. cg_pool_stalls counts stalls;
 * cg_pool_set_contended sets or clears the state (tests, bench). */
int cg_pool_contended(void);
long cg_pool_preemptions(void);
void cg_pool_set_preemption_check(int on);
long cg_pool_stalls(void);
/* What the pool has done (diagnostics for bench/): jobs run across threads, jobs
 * that had to wake a sleeping worker, and the callers' total wait, in ns, for
 * chunks a worker had started. */
void cg_pool_counters(long* jobs, long* wakeups, int64_t* wait_ns);
void cg_pool_set_contended(int on);

/* Kernel families, each with the element count from which it uses threads on a
 * quiet machine, and the count from which it does while the pool is contended;
 * cg_parallel_worth says whether a family's job of `work` elements takes the pool
 * now (more than one thread, and above the threshold in force). */
enum { CG_PAR_BINARY, CG_PAR_UNARY_CHEAP, CG_PAR_UNARY_MATH, CG_PAR_REDUCE, CG_PAR_NUM_FAMILIES };
extern cg_index cg_parallel_min[CG_PAR_NUM_FAMILIES];
extern cg_index cg_parallel_min_contended[CG_PAR_NUM_FAMILIES];
int cg_parallel_worth(int family, cg_index work);


/* Sliding windows (conv.c) over the nsp spatial dims of an (n, c, *size) tensor:
 * window position o reads o * stride + k * dilation - pad along each dim, for
 * kernel offsets k; `out` window positions per dim. Reads outside [0, size) are
 * padding. */
typedef struct {
    int nsp;
    cg_index n, c;
    cg_index size[CG_MAX_DIMS], kernel[CG_MAX_DIMS], dilation[CG_MAX_DIMS];
    cg_index stride[CG_MAX_DIMS], pad[CG_MAX_DIMS], out[CG_MAX_DIMS];
} cg_window;

/* The pool the window kernels split their planes over (set once by their
 * wrapper module: the pool itself is linked into the tensor extension), and the
 * work (elements) from which they use it. */
typedef void (*cg_conv_pool_fn)(int nchunks, cg_chunk_fn fn, void* ctx);
void cg_conv_set_pool(cg_conv_pool_fn run);
extern cg_index cg_conv_parallel_min;

/* cols ((n, c * prod(kernel), prod(out)), strides (cn, cck, 1)) = the windows of x
 * (strides xs over (n, c, *size)); padding reads as zero. Any dtype (moves
 * itemsize bytes). */
void cg_im2col(int itemsize, const cg_window* w, const char* x, const cg_index* xs, char* cols,
               cg_index cn, cg_index cck);
/* out (contiguous (n, c, *size)) = the adjoint of cg_im2col applied to cols (strides
 * cs). float32/float64; -1 for another dtype. */
int cg_col2im(int dtype, const cg_window* w, const char* cols, const cg_index* cs, char* out);
/* Max pooling: values and idx (positions in the flattened plane), both contiguous
 * (n, c, *out). float32/float64; -1 for another dtype. */
int cg_max_pool(int dtype, const cg_window* w, const char* x, const cg_index* xs,
                char* values, int64_t* idx);
/* out (contiguous (n, c, *size)) = zeros with grad[..., o] added at idx[..., o];
 * -2 (after doing the valid ones) when an index lies outside its plane. */
int cg_max_pool_backward(int dtype, const cg_window* w, const char* grad, const cg_index* gs,
                         const int64_t* idx, const cg_index* is, char* out);

#endif
