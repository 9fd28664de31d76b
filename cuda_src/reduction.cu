/* Reductions of cygrad over any set of dims: sum, mean, nansum, nanmean, prod, max/min,
 * all/any, count_nonzero, var_mean, logsumexp, vector norms, argmax/argmin (with the
 * values), plus the atomic histograms bincount and histc.
 *
 * Naming: cg_<op>_<dtype>, dtype f16 (__half), bf16 (__nv_bfloat16), f32, f64,
 * i8, u8, i16, i32, i64, b8 (bool), c64 and c128 (complex: sum, mean, prod,
 * all, any, count_nonzero, var_mean with a real variance);
 * bincount's weighted kernels add the weights' dtype (cg_bincount_w_i64_f32).
 *
 * Geometry: the host orders the input's dims as [kept..., reduced...] and passes
 * their sizes and the input's strides (in elements) in a cg_geometry (stride_a),
 * with nk = the number of kept dims. Row r (0 <= r < rows, row-major over the kept
 * dims) is one output element; column c (row-major over the reduced dims) is one
 * element of the row. Strided and transposed inputs are read in place, so any
 * dtype works without a copy kernel. Outputs are dense: out[r].
 *
 * Launch: any grid (blocks take rows in a grid-stride loop), blockDim.x a multiple
 * of 32 up to 1024, blockDim.y = blockDim.z = 1, no dynamic shared memory (the
 * _cols_ kernels: blockDim (32, 1..8, 1), see cg_fold_cols; the _split_ and
 * _merge_ pairs: see cg_fold_split). Each
 * block folds one row at a time: each thread folds the columns threadIdx.x,
 * threadIdx.x + blockDim.x, ...; warps combine with __shfl_xor_sync, lane 0 of
 * each warp stores its result in shared memory, and after __syncthreads() warp 0
 * combines those; the row's result is broadcast back through shared memory, so
 * two-pass reductions (variance: the mean first; logsumexp: the max first) run
 * their second pass in the same launch.
 *
 * Accumulation: float16/bfloat16 in float, float32 in float, float64 in double;
 * sums, products and counts of integers and bool in 64-bit integers, as PyTorch;
 * complex values as (re, im) pairs (cg_reduce_complex.cuh): the two parts are
 * shuffled separately in the same trees, and products are complex multiplies.
 * max/min propagate NaN; argmax/argmin give the first index of the extreme, and a
 * NaN wins (its first index), as PyTorch.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"
#include "cg_io.cuh"
#include "cg_reduce_complex.cuh"

/* Element offset in the input of index i, row-major over dims [lo, hi). */
__device__ inline cg_index cg_offset(const cg_geometry& g, cg_index i, int lo, int hi)
{
    cg_index off = 0;
    for (int d = hi - 1; d >= lo; --d) {
        const cg_index size = g.shape[d];
        off += (i % size) * g.stride_a[d];
        i /= size;
    }
    return off;
}

/* ---- loads and stores: cg_load / cg_store (cg_io.cuh) ------------------------ */

template <typename A> struct cg_lim;
template <> struct cg_lim<float> {
    __device__ static float lo() { return -HUGE_VALF; }
    __device__ static float hi() { return HUGE_VALF; }
};
template <> struct cg_lim<double> {
    __device__ static double lo() { return -HUGE_VAL; }
    __device__ static double hi() { return HUGE_VAL; }
};
template <> struct cg_lim<int> {
    __device__ static int lo() { return -2147483647 - 1; }
    __device__ static int hi() { return 2147483647; }
};
template <> struct cg_lim<long long> {
    __device__ static long long lo() { return -9223372036854775807LL - 1; }
    __device__ static long long hi() { return 9223372036854775807LL; }
};

template <typename A> __device__ inline bool cg_isnan(A v) { return v != v; }
template <typename A> __device__ inline A cg_abs(A v) { return v < A(0) ? -v : v; }

/* ---- fold operations: init, step (one element), combine, finish -------------- */
template <typename A> struct cg_op_sum {
    typedef A acc;
    __device__ static A init() { return A(0); }
    __device__ static A step(A a, A x, double) { return a + x; }
    __device__ static A combine(A a, A b) { return a + b; }
    __device__ static A finish(A a, double) { return a; }
};
template <typename A> struct cg_op_mean : cg_op_sum<A> {
    /* param: the number of elements per result (0 gives 0/0 = NaN) */
    __device__ static A finish(A a, double n) { return a / A(n); }
};
/* a complex mean divides each part by the real count */
template <typename R> struct cg_op_mean<cg_rcomplex<R> > : cg_op_sum<cg_rcomplex<R> > {
    __device__ static cg_rcomplex<R> finish(cg_rcomplex<R> a, double n)
    {
        return cg_rcomplex<R>(a.re / R(n), a.im / R(n));
    }
};
template <typename A> struct cg_op_nansum : cg_op_sum<A> {
    __device__ static A step(A a, A x, double) { return cg_isnan(x) ? a : a + x; }
};
template <typename A> struct cg_op_nancount : cg_op_sum<A> {
    __device__ static A step(A a, A x, double) { return cg_isnan(x) ? a : a + A(1); }
};
template <typename A> struct cg_op_prod {
    typedef A acc;
    __device__ static A init() { return A(1); }
    __device__ static A step(A a, A x, double) { return a * x; }
    __device__ static A combine(A a, A b) { return a * b; }
    __device__ static A finish(A a, double) { return a; }
};
/* max (or min with largest false); a NaN on either side wins */
template <typename A, bool largest> struct cg_op_ext {
    typedef A acc;
    __device__ static A init() { return largest ? cg_lim<A>::lo() : cg_lim<A>::hi(); }
    __device__ static A combine(A a, A b)
    {
        if (cg_isnan(a)) return a;
        if (cg_isnan(b)) return b;
        return (largest ? b > a : b < a) ? b : a;
    }
    __device__ static A step(A a, A x, double) { return combine(a, x); }
    __device__ static A finish(A a, double) { return a; }
};
template <typename A, bool is_all> struct cg_op_logic {
    typedef int acc;
    __device__ static int init() { return is_all ? 1 : 0; }
    __device__ static int step(int a, A x, double) { return is_all ? (a && x != A(0)) : (a || x != A(0)); }
    __device__ static int combine(int a, int b) { return is_all ? (a && b) : (a || b); }
    __device__ static int finish(int a, double) { return a; }
};
template <typename A> struct cg_op_count {
    typedef long long acc;
    __device__ static long long init() { return 0; }
    __device__ static long long step(long long a, A x, double) { return a + (x != A(0)); }
    __device__ static long long combine(long long a, long long b) { return a + b; }
    __device__ static long long finish(long long a, double) { return a; }
};
/* vector norms: param p */
template <typename A> struct cg_op_norm1 : cg_op_sum<A> {
    __device__ static A step(A a, A x, double) { return a + cg_abs(x); }
};
template <typename A> struct cg_op_norm2 : cg_op_sum<A> {
    __device__ static A step(A a, A x, double) { return a + x * x; }
    __device__ static A finish(A a, double) { return sqrt(a); }
};
template <typename A> struct cg_op_norm0 : cg_op_sum<A> {
    __device__ static A step(A a, A x, double) { return a + (x != A(0) ? A(1) : A(0)); }
};
template <typename A> struct cg_op_normp : cg_op_sum<A> {
    __device__ static A step(A a, A x, double p) { return a + (A)pow(cg_abs(x), (A)p); }
    __device__ static A finish(A a, double p) { return (A)pow(a, (A)(1.0 / p)); }
};
template <typename A, bool largest> struct cg_op_normext : cg_op_ext<A, largest> {
    /* max |x| starts at 0 (an empty norm is 0); min |x| at +inf */
    __device__ static A init() { return largest ? A(0) : cg_lim<A>::hi(); }
    __device__ static A step(A a, A x, double) { return cg_op_ext<A, largest>::combine(a, cg_abs(x)); }
};

/* ---- block-wide combine ------------------------------------------------------ */
/* Every thread passes its partial; every thread gets the block's result. */
template <typename Op>
__device__ inline typename Op::acc cg_block_fold(typename Op::acc v)
{
    typedef typename Op::acc A;
    __shared__ A partial[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    for (int m = 16; m > 0; m /= 2)
        v = Op::combine(v, cg_shfl_xor_val(v, m));
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? partial[lane] : Op::init();
        for (int m = 16; m > 0; m /= 2)
            v = Op::combine(v, cg_shfl_xor_val(v, m));
    }
    __syncthreads();          /* everyone has read partial[] before lane 0 reuses it */
    if (threadIdx.x == 0)
        partial[0] = v;
    __syncthreads();
    v = partial[0];
    __syncthreads();          /* the next fold may overwrite partial[0] */
    return v;
}

/* One row's fold of f(x) over its columns, result in every thread. */
template <typename Op, typename A, typename In, typename F>
__device__ inline typename Op::acc cg_row_fold(const cg_geometry& g, int nk, cg_index cols,
                                               const In* row, double param, F f)
{
    typename Op::acc acc = Op::init();
    for (cg_index c = threadIdx.x; c < cols; c += blockDim.x)
        acc = Op::step(acc, f(cg_load<A>(row + cg_offset(g, c, nk, g.ndim))), param);
    return cg_block_fold<Op>(acc);
}

template <typename A> struct cg_identity_fn {
    __device__ A operator()(A x) const { return x; }
};

template <typename In, typename Out, typename A, typename Op>
__device__ inline void cg_fold_rows(cg_index rows, cg_index cols, int nk, const cg_geometry& g,
                                    Out* out, const In* in, double param)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const In* row = in + cg_offset(g, r, 0, nk);
        typename Op::acc v = cg_row_fold<Op, A>(g, nk, cols, row, param, cg_identity_fn<A>());
        if (threadIdx.x == 0)
            cg_store(out + r, Op::finish(v, param));
    }
}

/* The column form, for plans whose innermost kept dim has stride 1 (a sum over
 * dim 0, say): one-per-row blocks would read a column with a stride, so here a
 * block of (32, blockDim.y <= 8) threads takes 32 consecutive rows: threadIdx.x
 * picks the row, so a warp reads 32 neighbouring elements at each step, and
 * threadIdx.y one of blockDim.y interleaved shares of the columns; the shares
 * meet in shared memory and thread y = 0 finishes the row. */
template <typename In, typename Out, typename A, typename Op>
__device__ inline void cg_fold_cols(cg_index rows, cg_index cols, int nk, const cg_geometry& g,
                                    Out* out, const In* in, double param)
{
    typedef typename Op::acc R;
    __shared__ R share[8][32];
    for (cg_index r0 = (cg_index)blockIdx.x * 32; r0 < rows; r0 += (cg_index)gridDim.x * 32) {
        const cg_index r = r0 + threadIdx.x;
        R acc = Op::init();
        if (r < rows) {
            const In* row = in + cg_offset(g, r, 0, nk);
            for (cg_index c = threadIdx.y; c < cols; c += blockDim.y)
                acc = Op::step(acc, cg_load<A>(row + cg_offset(g, c, nk, g.ndim)), param);
        }
        share[threadIdx.y][threadIdx.x] = acc;
        __syncthreads();
        if (threadIdx.y == 0 && r < rows) {
            for (unsigned k = 1; k < blockDim.y; ++k)
                acc = Op::combine(acc, share[k][threadIdx.x]);
            cg_store(out + r, Op::finish(acc, param));
        }
        __syncthreads();      /* the next 32 rows overwrite share[][] */
    }
}

template <typename In, typename Out, typename A, typename Op, bool columns>
__device__ inline void cg_fold(cg_index rows, cg_index cols, int nk, const cg_geometry& g, Out* out,
                               const In* in, double param)
{
    if (columns)
        cg_fold_cols<In, Out, A, Op>(rows, cols, nk, g, out, in, param);
    else
        cg_fold_rows<In, Out, A, Op>(rows, cols, nk, g, out, in, param);
}

/* The split form, for a few long rows (a full reduction, say), which would keep
 * only a few blocks busy: each row's columns are cut into nseg segments of
 * ceil(cols / nseg); block b folds segment b % nseg of row b / nseg into the
 * accumulator part[b] (the operation's own accumulator type, not finished),
 * and cg_merge_rows then combines each row's nseg accumulators and finishes. */
template <typename In, typename A, typename Op>
__device__ inline void cg_fold_split(cg_index rows, cg_index cols, int nk, const cg_geometry& g,
                                     void* part_, const In* in, double param, cg_index nseg)
{
    typedef typename Op::acc R;
    R* part = (R*)part_;
    const cg_index seg = (cols + nseg - 1) / nseg;
    for (cg_index b = blockIdx.x; b < rows * nseg; b += gridDim.x) {
        const In* row = in + cg_offset(g, b / nseg, 0, nk);
        const cg_index lo = (b % nseg) * seg, hi = lo + seg < cols ? lo + seg : cols;
        R acc = Op::init();
        for (cg_index c = lo + threadIdx.x; c < hi; c += blockDim.x)
            acc = Op::step(acc, cg_load<A>(row + cg_offset(g, c, nk, g.ndim)), param);
        acc = cg_block_fold<Op>(acc);
        if (threadIdx.x == 0)
            part[b] = acc;
    }
}

template <typename Out, typename Op>
__device__ inline void cg_merge_rows(cg_index rows, cg_index nseg, Out* out, const void* part_,
                                     double param)
{
    typedef typename Op::acc R;
    const R* part = (const R*)part_;
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        R acc = Op::init();
        for (cg_index s = threadIdx.x; s < nseg; s += blockDim.x)
            acc = Op::combine(acc, part[r * nseg + s]);
        acc = cg_block_fold<Op>(acc);
        if (threadIdx.x == 0)
            cg_store(out + r, Op::finish(acc, param));
    }
}

#define CG_FOLD_ARGS cg_index rows, cg_index cols, int nk, cg_geometry g
/* cg_<name>_<sfx> (rows), cg_<name>_cols_<sfx> (columns), cg_<name>_split_<sfx>
 * and cg_<name>_merge_<sfx> (split rows); the operation comes last, as its
 * template arguments hold commas */
#define CG_FOLD(NAME, SFX, IN, OUT, A, ...)                                                       \
    extern "C" __global__ void cg_##NAME##_##SFX(CG_FOLD_ARGS, OUT* out, const IN* in, double param) \
    {                                                                                             \
        cg_fold<IN, OUT, A, __VA_ARGS__, false>(rows, cols, nk, g, out, in, param);               \
    }                                                                                             \
    extern "C" __global__ void cg_##NAME##_cols_##SFX(CG_FOLD_ARGS, OUT* out, const IN* in,       \
                                                      double param)                               \
    {                                                                                             \
        cg_fold<IN, OUT, A, __VA_ARGS__, true>(rows, cols, nk, g, out, in, param);                \
    }                                                                                             \
    extern "C" __global__ void cg_##NAME##_split_##SFX(CG_FOLD_ARGS, void* part, const IN* in,    \
                                                       double param, cg_index nseg)               \
    {                                                                                             \
        cg_fold_split<IN, A, __VA_ARGS__>(rows, cols, nk, g, part, in, param, nseg);              \
    }                                                                                             \
    extern "C" __global__ void cg_##NAME##_merge_##SFX(cg_index rows, cg_index nseg, OUT* out,    \
                                                       const void* part, double param)            \
    {                                                                                             \
        cg_merge_rows<OUT, __VA_ARGS__>(rows, nseg, out, part, param);                            \
    }

/* the dtype lists: X(suffix, storage type, compute type) */
#define CG_FLOATS(X) X(f16, __half, float) X(bf16, __nv_bfloat16, float) X(f32, float, float) \
    X(f64, double, double)
#define CG_INTS(X) X(i8, signed char, int) X(u8, unsigned char, int) X(i16, short, int) \
    X(i32, int, int) X(i64, long long, long long)
#define CG_BOOL(X) X(b8, bool, int)

/* sum (of half types: tensors.py's reduce_sum has float and double), mean,
 * nansum, prod of floating types: out in the input's dtype */
#define CG_FLOAT_FOLDS(S, T, A)                          \
    CG_FOLD(sum, S, T, T, A, cg_op_sum<A>)               \
    CG_FOLD(mean, S, T, T, A, cg_op_mean<A>)             \
    CG_FOLD(nansum, S, T, T, A, cg_op_nansum<A>)         \
    CG_FOLD(prod, S, T, T, A, cg_op_prod<A>)
CG_FLOATS(CG_FLOAT_FOLDS)

/* complex sum, mean and prod: the parts accumulate in their own precision */
#define CG_COMPLEX(X) X(c64, cg_rc64, cg_rc64) X(c128, cg_rc128, cg_rc128)
#define CG_COMPLEX_FOLDS(S, T, A)                        \
    CG_FOLD(sum, S, T, T, A, cg_op_sum<A>)               \
    CG_FOLD(mean, S, T, T, A, cg_op_mean<A>)             \
    CG_FOLD(prod, S, T, T, A, cg_op_prod<A>)
CG_COMPLEX(CG_COMPLEX_FOLDS)
/* all, any and count_nonzero: an element is nonzero when either part is */
#define CG_COMPLEX_LOGIC(S, T, A)                                        \
    CG_FOLD(all, S, T, unsigned char, A, cg_op_logic<A, true>)           \
    CG_FOLD(any, S, T, unsigned char, A, cg_op_logic<A, false>)          \
    CG_FOLD(count_nonzero, S, T, long long, A, cg_op_count<A>)
CG_COMPLEX(CG_COMPLEX_LOGIC)

/* integer and bool sums and products accumulate in and give int64 */
#define CG_INT_FOLDS(S, T, A)                                     \
    CG_FOLD(nansum, S, T, long long, long long, cg_op_sum<long long>) \
    CG_FOLD(prod, S, T, long long, long long, cg_op_prod<long long>)
CG_INTS(CG_INT_FOLDS)
CG_BOOL(CG_INT_FOLDS)

/* max, min, all, any, count_nonzero of every dtype (all/any write 0/1 bytes:
 * bool and uint8 results alike) */
#define CG_ANY_FOLDS(S, T, A)                                            \
    CG_FOLD(max, S, T, T, A, cg_op_ext<A, true>)                         \
    CG_FOLD(min, S, T, T, A, cg_op_ext<A, false>)                        \
    CG_FOLD(all, S, T, unsigned char, A, cg_op_logic<A, true>)           \
    CG_FOLD(any, S, T, unsigned char, A, cg_op_logic<A, false>)          \
    CG_FOLD(count_nonzero, S, T, long long, A, cg_op_count<A>)
CG_FLOATS(CG_ANY_FOLDS)
CG_INTS(CG_ANY_FOLDS)
CG_BOOL(CG_ANY_FOLDS)

/* ---- two-pass reductions of floating types --------------------------------- */
template <typename A> struct cg_minus {
    A m;
    __device__ A operator()(A x) const { return x - m; }
};
template <typename A> struct cg_sq_dev {
    A m;
    __device__ A operator()(A x) const { return (x - m) * (x - m); }
};
template <typename A> struct cg_exp_shifted {
    A m;
    __device__ A operator()(A x) const { return exp(x - m); }
};

/* nanmean: the sum of the non-NaN elements over their count */
template <typename T, typename A>
__device__ inline void cg_nanmean_rows(CG_FOLD_ARGS, T* out, const T* in)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = in + cg_offset(g, r, 0, nk);
        A total = cg_row_fold<cg_op_nansum<A>, A>(g, nk, cols, row, 0.0, cg_identity_fn<A>());
        A count = cg_row_fold<cg_op_nancount<A>, A>(g, nk, cols, row, 0.0, cg_identity_fn<A>());
        if (threadIdx.x == 0)
            cg_store(out + r, total / count);
    }
}

/* logsumexp: max m, then m + log(sum(exp(x - m))); an infinite m shifts by 0 */
template <typename T, typename A>
__device__ inline void cg_logsumexp_rows(CG_FOLD_ARGS, T* out, const T* in)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = in + cg_offset(g, r, 0, nk);
        A m = cg_row_fold<cg_op_ext<A, true>, A>(g, nk, cols, row, 0.0, cg_identity_fn<A>());
        if (m == cg_lim<A>::hi() || m == cg_lim<A>::lo())
            m = A(0);
        cg_exp_shifted<A> f = {m};
        A s = cg_row_fold<cg_op_sum<A>, A>(g, nk, cols, row, 0.0, f);
        if (threadIdx.x == 0)
            cg_store(out + r, log(s) + m);
    }
}

/* var_mean: the mean, then the sum of squared deviations over dof (two passes:
 * no cancellation); the standard deviation when take_sqrt */
template <typename T, typename A>
__device__ inline void cg_var_mean_rows(CG_FOLD_ARGS, T* out_var, T* out_mean, const T* in,
                                        double n, double dof, int take_sqrt)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = in + cg_offset(g, r, 0, nk);
        A mean = cg_row_fold<cg_op_sum<A>, A>(g, nk, cols, row, 0.0, cg_identity_fn<A>()) / A(n);
        cg_sq_dev<A> f = {mean};
        A var = cg_row_fold<cg_op_sum<A>, A>(g, nk, cols, row, 0.0, f) / A(dof);
        if (threadIdx.x == 0) {
            cg_store(out_var + r, take_sqrt ? sqrt(var) : var);
            cg_store(out_mean + r, mean);
        }
    }
}

/* complex var_mean: the complex mean, then the real sum of |x - mean|^2 over dof */
template <typename R> struct cg_csq_dev {
    cg_rcomplex<R> m;
    __device__ R operator()(cg_rcomplex<R> x) const
    {
        const R re = x.re - m.re, im = x.im - m.im;
        return re * re + im * im;
    }
};
template <typename R>
__device__ inline void cg_cvar_mean_rows(CG_FOLD_ARGS, R* out_var, cg_rcomplex<R>* out_mean,
                                         const cg_rcomplex<R>* in, double n, double dof,
                                         int take_sqrt)
{
    typedef cg_rcomplex<R> C;
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const C* row = in + cg_offset(g, r, 0, nk);
        const C mean = cg_op_mean<C>::finish(
            cg_row_fold<cg_op_sum<C>, C>(g, nk, cols, row, 0.0, cg_identity_fn<C>()), n);
        cg_csq_dev<R> f = {mean};
        R var = cg_row_fold<cg_op_sum<R>, C>(g, nk, cols, row, 0.0, f) / R(dof);
        if (threadIdx.x == 0) {
            out_var[r] = take_sqrt ? sqrt(var) : var;
            out_mean[r] = mean;
        }
    }
}
#define CG_COMPLEX_VAR_MEAN(S, R)                                                              \
    extern "C" __global__ void cg_var_mean_##S(CG_FOLD_ARGS, R* out_var, cg_rcomplex<R>* out_mean, \
                                               const cg_rcomplex<R>* in, double n, double dof,  \
                                               int take_sqrt)                                   \
    {                                                                                          \
        cg_cvar_mean_rows<R>(rows, cols, nk, g, out_var, out_mean, in, n, dof, take_sqrt);     \
    }
CG_COMPLEX_VAR_MEAN(c64, float)
CG_COMPLEX_VAR_MEAN(c128, double)

/* vector_norm: mode 0 (p = 0), 1, 2, 3 (inf), 4 (-inf), 5 (any other p) */
template <typename T, typename A, bool columns>
__device__ inline void cg_norm(CG_FOLD_ARGS, T* out, const T* in, int mode, double p)
{
    switch (mode) {
    case 0: cg_fold<T, T, A, cg_op_norm0<A>, columns>(rows, cols, nk, g, out, in, p); break;
    case 1: cg_fold<T, T, A, cg_op_norm1<A>, columns>(rows, cols, nk, g, out, in, p); break;
    case 2: cg_fold<T, T, A, cg_op_norm2<A>, columns>(rows, cols, nk, g, out, in, p); break;
    case 3: cg_fold<T, T, A, cg_op_normext<A, true>, columns>(rows, cols, nk, g, out, in, p); break;
    case 4: cg_fold<T, T, A, cg_op_normext<A, false>, columns>(rows, cols, nk, g, out, in, p); break;
    default: cg_fold<T, T, A, cg_op_normp<A>, columns>(rows, cols, nk, g, out, in, p); break;
    }
}

/* the split form of the norms: cg_fold_split, then cg_merge_rows, with the mode's operation */
template <typename T, typename A>
__device__ inline void cg_norm_split(CG_FOLD_ARGS, void* part, const T* in, int mode, double p,
                                     cg_index nseg)
{
    switch (mode) {
    case 0: cg_fold_split<T, A, cg_op_norm0<A> >(rows, cols, nk, g, part, in, p, nseg); break;
    case 1: cg_fold_split<T, A, cg_op_norm1<A> >(rows, cols, nk, g, part, in, p, nseg); break;
    case 2: cg_fold_split<T, A, cg_op_norm2<A> >(rows, cols, nk, g, part, in, p, nseg); break;
    case 3: cg_fold_split<T, A, cg_op_normext<A, true> >(rows, cols, nk, g, part, in, p, nseg); break;
    case 4: cg_fold_split<T, A, cg_op_normext<A, false> >(rows, cols, nk, g, part, in, p, nseg); break;
    default: cg_fold_split<T, A, cg_op_normp<A> >(rows, cols, nk, g, part, in, p, nseg); break;
    }
}
template <typename T, typename A>
__device__ inline void cg_norm_merge(cg_index rows, cg_index nseg, T* out, const void* part,
                                     int mode, double p)
{
    switch (mode) {
    case 0: cg_merge_rows<T, cg_op_norm0<A> >(rows, nseg, out, part, p); break;
    case 1: cg_merge_rows<T, cg_op_norm1<A> >(rows, nseg, out, part, p); break;
    case 2: cg_merge_rows<T, cg_op_norm2<A> >(rows, nseg, out, part, p); break;
    case 3: cg_merge_rows<T, cg_op_normext<A, true> >(rows, nseg, out, part, p); break;
    case 4: cg_merge_rows<T, cg_op_normext<A, false> >(rows, nseg, out, part, p); break;
    default: cg_merge_rows<T, cg_op_normp<A> >(rows, nseg, out, part, p); break;
    }
}

#define CG_TWO_PASS(S, T, A)                                                                     \
    extern "C" __global__ void cg_nanmean_##S(CG_FOLD_ARGS, T* out, const T* in)                 \
    {                                                                                            \
        cg_nanmean_rows<T, A>(rows, cols, nk, g, out, in);                                       \
    }                                                                                            \
    extern "C" __global__ void cg_logsumexp_##S(CG_FOLD_ARGS, T* out, const T* in)               \
    {                                                                                            \
        cg_logsumexp_rows<T, A>(rows, cols, nk, g, out, in);                                     \
    }                                                                                            \
    extern "C" __global__ void cg_var_mean_##S(CG_FOLD_ARGS, T* out_var, T* out_mean,            \
                                               const T* in, double n, double dof, int take_sqrt) \
    {                                                                                            \
        cg_var_mean_rows<T, A>(rows, cols, nk, g, out_var, out_mean, in, n, dof, take_sqrt);     \
    }                                                                                            \
    extern "C" __global__ void cg_vector_norm_##S(CG_FOLD_ARGS, T* out, const T* in, int mode,   \
                                                  double p)                                      \
    {                                                                                            \
        cg_norm<T, A, false>(rows, cols, nk, g, out, in, mode, p);                               \
    }                                                                                            \
    extern "C" __global__ void cg_vector_norm_cols_##S(CG_FOLD_ARGS, T* out, const T* in,        \
                                                       int mode, double p)                       \
    {                                                                                            \
        cg_norm<T, A, true>(rows, cols, nk, g, out, in, mode, p);                                \
    }                                                                                            \
    extern "C" __global__ void cg_vector_norm_split_##S(CG_FOLD_ARGS, void* part, const T* in,   \
                                                        int mode, double p, cg_index nseg)       \
    {                                                                                            \
        cg_norm_split<T, A>(rows, cols, nk, g, part, in, mode, p, nseg);                         \
    }                                                                                            \
    extern "C" __global__ void cg_vector_norm_merge_##S(cg_index rows, cg_index nseg, T* out,    \
                                                        const void* part, int mode, double p)    \
    {                                                                                            \
        cg_norm_merge<T, A>(rows, nseg, out, part, mode, p);                                     \
    }
CG_FLOATS(CG_TWO_PASS)

/* ---- argmax / argmin with the values ---------------------------------------- */
template <typename A> struct cg_argval {
    A v;
    long long i;
};

/* The better of two (value, index) pairs: NaN first, then the larger (smaller)
 * value, then the smaller index; an order, so the combine is associative. */
template <typename A>
__device__ inline cg_argval<A> cg_arg_pick(cg_argval<A> a, cg_argval<A> b, bool largest)
{
    const bool na = cg_isnan(a.v), nb = cg_isnan(b.v);
    if (na || nb) {
        if (na && nb) return a.i <= b.i ? a : b;
        return na ? a : b;
    }
    if (a.v == b.v) return a.i <= b.i ? a : b;
    return ((a.v > b.v) == largest) ? a : b;
}

template <typename T, typename A>
__device__ inline void cg_arg_rows(CG_FOLD_ARGS, T* out_val, long long* out_idx, const T* in,
                                   int largest)
{
    __shared__ A pv[32];
    __shared__ long long pi[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    const cg_argval<A> none = {largest ? cg_lim<A>::lo() : cg_lim<A>::hi(), cg_lim<long long>::hi()};
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = in + cg_offset(g, r, 0, nk);
        cg_argval<A> best = none;
        for (cg_index c = threadIdx.x; c < cols; c += blockDim.x) {
            const cg_argval<A> x = {cg_load<A>(row + cg_offset(g, c, nk, g.ndim)), c};
            best = cg_arg_pick(best, x, largest != 0);
        }
        for (int m = 16; m > 0; m /= 2) {
            const cg_argval<A> o = {__shfl_xor_sync(0xffffffffu, best.v, m),
                                    __shfl_xor_sync(0xffffffffu, best.i, m)};
            best = cg_arg_pick(best, o, largest != 0);
        }
        if (lane == 0) {
            pv[warp] = best.v;
            pi[warp] = best.i;
        }
        __syncthreads();
        if (warp == 0) {
            if (lane < nwarps) {
                best.v = pv[lane];
                best.i = pi[lane];
            } else {
                best = none;
            }
            for (int m = 16; m > 0; m /= 2) {
                const cg_argval<A> o = {__shfl_xor_sync(0xffffffffu, best.v, m),
                                        __shfl_xor_sync(0xffffffffu, best.i, m)};
                best = cg_arg_pick(best, o, largest != 0);
            }
            if (lane == 0) {
                if (out_val)
                    cg_store(out_val + r, best.v);
                out_idx[r] = best.i;
            }
        }
        __syncthreads();
    }
}

#define CG_ARG(S, T, A)                                                                      \
    extern "C" __global__ void cg_arg_extreme_##S(CG_FOLD_ARGS, T* out_val, long long* out_idx, \
                                                  const T* in, int largest)                  \
    {                                                                                        \
        cg_arg_rows<T, A>(rows, cols, nk, g, out_val, out_idx, in, largest);                 \
    }
CG_FLOATS(CG_ARG)
CG_INTS(CG_ARG)
CG_BOOL(CG_ARG)

/* ---- histograms (atomics) --------------------------------------------------- */
/* bincount: out[x[i]] += 1 (or weights[i]) for n elements of a 1-D input with
 * element stride sx (weights: sw); the host sized out past the largest value. */
template <typename T>
__device__ inline void cg_bincount(cg_index n, unsigned long long* out, const T* x, cg_index sx)
{
    const cg_index step = (cg_index)gridDim.x * blockDim.x;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        atomicAdd(out + (cg_index)x[i * sx], 1ULL);
}
template <typename T, typename W>
__device__ inline void cg_bincount_w(cg_index n, W* out, const T* x, cg_index sx, const W* w,
                                     cg_index sw)
{
    const cg_index step = (cg_index)gridDim.x * blockDim.x;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step)
        atomicAdd(out + (cg_index)x[i * sx], w[i * sw]);
}
#define CG_BINCOUNT(S, T, A)                                                                   \
    extern "C" __global__ void cg_bincount_##S(cg_index n, unsigned long long* out, const T* x, \
                                               cg_index sx)                                    \
    {                                                                                          \
        cg_bincount<T>(n, out, x, sx);                                                         \
    }                                                                                          \
    extern "C" __global__ void cg_bincount_w_##S##_f32(cg_index n, float* out, const T* x,      \
                                                       cg_index sx, const float* w, cg_index sw) \
    {                                                                                          \
        cg_bincount_w<T, float>(n, out, x, sx, w, sw);                                         \
    }                                                                                          \
    extern "C" __global__ void cg_bincount_w_##S##_f64(cg_index n, double* out, const T* x,     \
                                                       cg_index sx, const double* w, cg_index sw) \
    {                                                                                          \
        cg_bincount_w<T, double>(n, out, x, sx, w, sw);                                        \
    }
CG_INTS(CG_BINCOUNT)

/* histc: counts of the n elements (any strides: g over all dims, nk = 0 layout) in
 * bins equal bins over [lo, hi], the last bin closed; the bin is found as NumPy's
 * histogram finds it (scaled position, then corrected against the edges
 * lo + k * (hi - lo) / bins), in double. */
template <typename T>
__device__ inline void cg_histc(cg_index n, cg_geometry g, T* out, const T* x, cg_index bins,
                                double lo, double hi)
{
    const cg_index step = (cg_index)gridDim.x * blockDim.x;
    const double width = (hi - lo) / (double)bins;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        const double v = (double)x[cg_offset(g, i, 0, g.ndim)];
        if (!(v >= lo && v <= hi))
            continue;
        cg_index b = (cg_index)((v - lo) / (hi - lo) * (double)bins);
        if (b >= bins)
            b = bins - 1;
        if (v < (double)b * width + lo)
            --b;
        if (b < bins - 1 && v >= (double)(b + 1) * width + lo)
            ++b;
        atomicAdd(out + b, T(1));
    }
}
#define CG_HISTC(S, T)                                                                          \
    extern "C" __global__ void cg_histc_##S(cg_index n, cg_geometry g, T* out, const T* x,     \
                                            cg_index bins, double lo, double hi)                \
    {                                                                                           \
        cg_histc<T>(n, g, out, x, bins, lo, hi);                                                \
    }
CG_HISTC(f32, float)
CG_HISTC(f64, double)
