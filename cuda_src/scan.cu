/* Scans of cygrad along one dim: cumsum, cumprod, cummax/cummin with indices,
 * logcumsumexp; and the row kernels of cumprod's gradient and of prod's backward
 * (the product of all the other elements of a row).
 *
 * Naming: cg_<op>_<dtype>, dtype f16, bf16, f32, f64, i8, u8, i16, i32, i64, b8;
 * cumsum, cumprod, cumprod_grad and exclusive_products also c64 and c128 (complex, cg_reduce_complex.cuh: the two
 * parts shuffled separately, products by the complex multiply).
 *
 * Geometry: the host orders the dims as [others..., scanned] and passes their
 * sizes with the input's strides (stride_a) and the output's (stride_out), in
 * elements, in a cg_geometry; cumprod_grad passes grad's strides in stride_b and
 * y's in a second geometry. A row is one position of the other dims.
 *
 * Scans (cg_cumsum, cg_cumprod, cg_cum_extreme, cg_logcumsumexp): one block per
 * row at a time (grid-stride over rows), blockDim.x a multiple of 32 up to 1024.
 * The row is walked in chunks of blockDim.x elements; each chunk is scanned
 * inside each warp with __shfl_up_sync, the warps' totals are scanned by warp 0
 * through shared memory, and the running total of the earlier chunks (the carry)
 * is combined in front. The combines are associative but not all commutative
 * (cummax's "later index wins ties"), so every combine keeps the earlier operand
 * on the left.
 *
 * cg_cumprod_grad and cg_exclusive_products: one thread per row (grid-stride
 * over rows), walking the row sequentially: O(n) per row.
 *
 * Accumulation: float16/bfloat16 in float; integer and bool sums and products in
 * and to int64, as PyTorch.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"
#include "cg_io.cuh"
#include "cg_reduce_complex.cuh"

/* Offsets of row r (row-major over every dim but the last) in out, a and b. */
__device__ inline void cg_row_offsets(const cg_geometry& g, cg_index r, cg_index* o, cg_index* a,
                                      cg_index* b)
{
    cg_index oo = 0, aa = 0, bb = 0;
    for (int d = g.ndim - 2; d >= 0; --d) {
        const cg_index k = r % g.shape[d];
        r /= g.shape[d];
        oo += k * g.stride_out[d];
        aa += k * g.stride_a[d];
        bb += k * g.stride_b[d];
    }
    *o = oo;
    *a = aa;
    *b = bb;
}

/* loads and stores: cg_load / cg_store (cg_io.cuh) */

template <typename A> __device__ inline bool cg_isnan(A v) { return v != v; }

/* ---- scan operations: identity, combine(earlier, later), shuffle ------------- */
template <typename A> struct cg_scan_sum {
    typedef A val;
    __device__ static A identity() { return A(0); }
    __device__ static A combine(A a, A b) { return a + b; }
    __device__ static A shfl_up(A v, int o) { return cg_shfl_up_val(v, o); }
};
template <typename A> struct cg_scan_prod : cg_scan_sum<A> {
    __device__ static A identity() { return A(1); }
    __device__ static A combine(A a, A b) { return a * b; }
};
/* log(exp(a) + exp(b)) without overflow; a == b covers inf + inf and -inf + -inf */
template <typename A> struct cg_scan_logaddexp : cg_scan_sum<A> {
    __device__ static A identity() { return -A(HUGE_VAL); }
    __device__ static A combine(A a, A b)
    {
        if (cg_isnan(a) || cg_isnan(b)) return a + b;
        if (a == b) return a + (A)0.69314718055994530942;
        const A m = a > b ? a : b, d = a > b ? b - a : a - b;
        return m + log1p(exp(d));
    }
};
/* cummax/cummin: (value, index); a NaN wins and stays (the latest NaN's index),
 * else the later element wins ties; index -1 marks the identity */
template <typename A> struct cg_argval {
    A v;
    long long i;
};
template <typename A, bool largest> struct cg_scan_ext {
    typedef cg_argval<A> val;
    __device__ static val identity()
    {
        const val none = {A(0), -1};
        return none;
    }
    __device__ static val combine(val a, val b)
    {
        if (b.i < 0) return a;
        if (a.i < 0) return b;
        if (cg_isnan(b.v)) return b;
        if (cg_isnan(a.v)) return a;
        return (largest ? b.v >= a.v : b.v <= a.v) ? b : a;
    }
    __device__ static val shfl_up(val v, int o)
    {
        const val u = {__shfl_up_sync(0xffffffffu, v.v, o), __shfl_up_sync(0xffffffffu, v.i, o)};
        return u;
    }
};

/* Inclusive scan of v across the block (every thread's result), and the block's total. */
template <typename Op>
__device__ inline typename Op::val cg_block_scan(typename Op::val v, typename Op::val* total)
{
    typedef typename Op::val V;
    __shared__ V warp_total[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    for (int o = 1; o < 32; o *= 2) {
        const V u = Op::shfl_up(v, o);
        if (lane >= o)
            v = Op::combine(u, v);
    }
    if (lane == 31)
        warp_total[warp] = v;
    __syncthreads();
    if (warp == 0) {
        V w = lane < nwarps ? warp_total[lane] : Op::identity();
        for (int o = 1; o < 32; o *= 2) {
            const V u = Op::shfl_up(w, o);
            if (lane >= o)
                w = Op::combine(u, w);
        }
        warp_total[lane] = w;
    }
    __syncthreads();
    if (warp > 0)
        v = Op::combine(warp_total[warp - 1], v);
    *total = warp_total[nwarps - 1];
    __syncthreads();          /* read before the next chunk overwrites warp_total */
    return v;
}

template <typename A, typename T> struct cg_scan_io {
    __device__ static A load(const T* p, cg_index) { return cg_load<A>(p); }
    template <typename O> __device__ static void store(O* out, long long*, cg_index o, A v)
    {
        cg_store(out + o, v);
    }
};
template <typename A, typename T> struct cg_scan_io_arg {
    __device__ static cg_argval<A> load(const T* p, cg_index c)
    {
        const cg_argval<A> v = {cg_load<A>(p), c};
        return v;
    }
    template <typename O>
    __device__ static void store(O* out, long long* idx, cg_index o, cg_argval<A> v)
    {
        cg_store(out + o, v.v);
        idx[o] = v.i;
    }
};

template <typename T, typename Out, typename Op, typename IO>
__device__ inline void cg_scan_rows(cg_index rows, cg_geometry g, Out* out, long long* idx,
                                    const T* in)
{
    typedef typename Op::val V;
    const int last = g.ndim - 1;
    const cg_index n = g.shape[last], so = g.stride_out[last], sa = g.stride_a[last];
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        cg_index oo, oa, ob;
        cg_row_offsets(g, r, &oo, &oa, &ob);
        V carry = Op::identity();
        for (cg_index base = 0; base < n; base += blockDim.x) {
            const cg_index c = base + threadIdx.x;
            V v = c < n ? IO::load(in + oa + c * sa, c) : Op::identity();
            V total;
            v = Op::combine(carry, cg_block_scan<Op>(v, &total));
            if (c < n)
                IO::store(out, idx, oo + c * so, v);
            carry = Op::combine(carry, total);
        }
    }
}

#define CG_SCAN_ARGS cg_index rows, cg_geometry g
#define CG_SCAN(NAME, S, T, OUT, A, OP)                                                        \
    extern "C" __global__ void cg_##NAME##_##S(CG_SCAN_ARGS, OUT* out, const T* in)           \
    {                                                                                          \
        cg_scan_rows<T, OUT, OP<A>, cg_scan_io<A, T> >(rows, g, out, (long long*)0, in);      \
    }

#define CG_FLOATS(X) X(f16, __half, float) X(bf16, __nv_bfloat16, float) X(f32, float, float) \
    X(f64, double, double)
#define CG_INTS(X) X(i8, signed char, int) X(u8, unsigned char, int) X(i16, short, int) \
    X(i32, int, int) X(i64, long long, long long) X(b8, bool, int)

#define CG_FLOAT_SCANS(S, T, A)                          \
    CG_SCAN(cumsum, S, T, T, A, cg_scan_sum)             \
    CG_SCAN(cumprod, S, T, T, A, cg_scan_prod)           \
    CG_SCAN(logcumsumexp, S, T, T, A, cg_scan_logaddexp)
CG_FLOATS(CG_FLOAT_SCANS)

/* complex cumsum and cumprod: (re, im) pairs, products by the complex multiply */
#define CG_COMPLEX_SCANS(S, T)                           \
    CG_SCAN(cumsum, S, T, T, T, cg_scan_sum)             \
    CG_SCAN(cumprod, S, T, T, T, cg_scan_prod)
CG_COMPLEX_SCANS(c64, cg_rc64)
CG_COMPLEX_SCANS(c128, cg_rc128)

#define CG_INT_SCANS(S, T, A)                                         \
    CG_SCAN(cumsum, S, T, long long, long long, cg_scan_sum)          \
    CG_SCAN(cumprod, S, T, long long, long long, cg_scan_prod)
CG_INTS(CG_INT_SCANS)

#define CG_CUM_EXTREME(S, T, A)                                                                \
    extern "C" __global__ void cg_cum_extreme_##S(CG_SCAN_ARGS, T* out, long long* idx,        \
                                                  const T* in, int largest)                    \
    {                                                                                          \
        if (largest)                                                                           \
            cg_scan_rows<T, T, cg_scan_ext<A, true>, cg_scan_io_arg<A, T> >(rows, g, out, idx, in); \
        else                                                                                   \
            cg_scan_rows<T, T, cg_scan_ext<A, false>, cg_scan_io_arg<A, T> >(rows, g, out, idx, in); \
    }
CG_FLOATS(CG_CUM_EXTREME)
CG_INTS(CG_CUM_EXTREME)

/* ---- sequential row kernels (one thread per row) ------------------------------ */
__device__ inline cg_index cg_thread_index() { return (cg_index)blockIdx.x * blockDim.x + threadIdx.x; }

/* cumprod's gradient for x holding zeros: with z the first zero of the row,
 * before z rev_cumsum(grad * y) / x; at z rev_cumsum(grad * y') with y' the
 * running product that skips x[z]; after z 0. g: out, x (a), grad (b); gy: y (a). */
template <typename T, typename A>
__device__ inline void cg_cumprod_grad_rows(cg_index rows, cg_geometry g, cg_geometry gy, T* out,
                                            const T* x, const T* grad, const T* y)
{
    const int last = g.ndim - 1;
    const cg_index n = g.shape[last];
    const cg_index so = g.stride_out[last], sx = g.stride_a[last], sg = g.stride_b[last];
    const cg_index sy = gy.stride_a[last];
    for (cg_index r = cg_thread_index(); r < rows; r += (cg_index)gridDim.x * blockDim.x) {
        cg_index oo, ox, og, oy, unused1, unused2;
        cg_row_offsets(g, r, &oo, &ox, &og);
        cg_row_offsets(gy, r, &unused1, &oy, &unused2);
        cg_index z = n;
        for (cg_index i = 0; i < n; ++i)
            if (cg_load<A>(x + ox + i * sx) == A(0)) {
                z = i;
                break;
            }
        A acc = A(0);
        for (cg_index i = n - 1; i >= 0; --i) {
            acc += cg_load<A>(grad + og + i * sg) * cg_load<A>(y + oy + i * sy);
            cg_store(out + oo + i * so, i < z ? acc / cg_load<A>(x + ox + i * sx) : A(0));
        }
        if (z < n) {
            A p = A(1);
            for (cg_index i = 0; i < z; ++i)
                p *= cg_load<A>(x + ox + i * sx);
            A s = A(0);
            for (cg_index i = z; i < n; ++i) {
                if (i > z)
                    p *= cg_load<A>(x + ox + i * sx);
                s += cg_load<A>(grad + og + i * sg) * p;
            }
            cg_store(out + oo + z * so, s);
        }
    }
}

/* out[i] = the product of every element of the row but x[i] (no division):
 * the products before i, written first, times the products after i. */
template <typename T, typename A>
__device__ inline void cg_exclusive_products_rows(cg_index rows, cg_geometry g, T* out, const T* x)
{
    const int last = g.ndim - 1;
    const cg_index n = g.shape[last], so = g.stride_out[last], sx = g.stride_a[last];
    for (cg_index r = cg_thread_index(); r < rows; r += (cg_index)gridDim.x * blockDim.x) {
        cg_index oo, ox, unused;
        cg_row_offsets(g, r, &oo, &ox, &unused);
        A before = A(1);
        for (cg_index i = 0; i < n; ++i) {
            cg_store(out + oo + i * so, before);
            before *= cg_load<A>(x + ox + i * sx);
        }
        A after = A(1);
        for (cg_index i = n - 1; i >= 0; --i) {
            cg_store(out + oo + i * so, cg_load<A>(out + oo + i * so) * after);
            after *= cg_load<A>(x + ox + i * sx);
        }
    }
}

#define CG_ROW_KERNELS(S, T, A)                                                                  \
    extern "C" __global__ void cg_cumprod_grad_##S(CG_SCAN_ARGS, cg_geometry gy, T* out,         \
                                                   const T* x, const T* grad, const T* y)        \
    {                                                                                            \
        cg_cumprod_grad_rows<T, A>(rows, g, gy, out, x, grad, y);                                \
    }                                                                                            \
    extern "C" __global__ void cg_exclusive_products_##S(CG_SCAN_ARGS, T* out, const T* x)       \
    {                                                                                            \
        cg_exclusive_products_rows<T, A>(rows, g, out, x);                                       \
    }
CG_FLOATS(CG_ROW_KERNELS)
CG_ROW_KERNELS(c64, cg_rc64, cg_rc64)
CG_ROW_KERNELS(c128, cg_rc128, cg_rc128)
