/* Indexing kernels of cygrad: gathers and scatters through element offsets, bounds
 * checks, stream compaction (nonzero, masked_select), and the index builders
 * (repeat_interleave's, padding's), binary search and membership.
 *
 * One scheme serves gather, index_select, take, t[idx], scatter, index_add, put ...:
 *   1. cg_offsets_<i32|i64> turns each index tensor into element offsets
 *      (index, wrapped when negative, times the stride of the dim it indexes), summed
 *      over the index tensors into one contiguous int64 tensor over their broadcast
 *      shape (cg_flat_offsets_* does the same for flat, row-major positions);
 *   2. cg_gather_b<W> / cg_put_b<W> / cg_scatter_<op>_<dtype> walk an output (or
 *      update) space given by a cg_geometry: for element i they add the geometry's
 *      strided offsets and, when the dims [b0, b1) are the index's dims, the offset
 *      read from step 1 at the row-major position over those dims.
 *
 * Pure data movement is typed by element width only (W = 1, 2, 4, 8, 16 bytes), so
 * every dtype is covered; arithmetic (atomic add, multiply, max, min) is typed
 * (f32, f64, i32, i64, the half and small integer types, and complex64/complex128 for
 * add and multiply). Atomics: atomicAdd on float/double/int/unsigned long long (a
 * complex sum adds its two parts, each atomically); multiply/max/min as
 * compare-and-swap loops on the value's bits (a NaN wins max and min, as in PyTorch);
 * complex128 multiply has no compare-and-swap wide enough and runs without atomics,
 * one thread per line of updates (cg_scatter_mul_lines, section 2b).
 *
 * An offset that failed its bounds check is CG_BAD (the ops check the index values
 * before any kernel runs; a bad one is then skipped here, never dereferenced).
 *
 * Launch: any grid for the grid-stride kernels. The compaction kernels
 * (cg_count_*, cg_compact_*, cg_repeat_*) are launched with exactly
 * ceil(n / chunk) blocks of blockDim.x threads (a multiple of 32, at most 1024);
 * block b owns elements [b * chunk, (b + 1) * chunk) and keeps their order.
 * cg_scan_blocks is one thread.
 */

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"
#include "cg_io.cuh"
#include "cg_reduce_complex.cuh"

#define CG_BAD (-0x7fffffffffffffffLL - 1)

struct cg_b16 { unsigned long long lo, hi; };

__device__ inline cg_index cg_first_index() { return (cg_index)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline cg_index cg_grid_stride() { return (cg_index)blockDim.x * gridDim.x; }

/* Offsets of element i (row-major over g.shape) in the three operands, and its
 * row-major position over the dims [b0, b1). */
__device__ inline void cg_decode(const cg_geometry& g, cg_index i, int b0, int b1, cg_index* o,
                                 cg_index* a, cg_index* b, cg_index* bi)
{
    cg_index oo = 0, aa = 0, bb = 0, flat = 0, mul = 1;
    for (int d = g.ndim - 1; d >= 0; --d) {
        const cg_index size = g.shape[d];
        const cg_index k = i % size;
        i /= size;
        oo += k * g.stride_out[d];
        aa += k * g.stride_a[d];
        bb += k * g.stride_b[d];
        if (d >= b0 && d < b1) {
            flat += k * mul;
            mul *= size;
        }
    }
    *o = oo;
    *a = aa;
    *b = bb;
    *bi = flat;
}

/* ---- 1. index values to element offsets ------------------------------------ */

/* offsets[i] (+)= wrap(idx[i]) * stride over g.shape (idx's strides in stride_a). */
template <typename I>
__device__ void cg_offsets(cg_index n, const cg_geometry& g, cg_index* offsets, const I* idx,
                           cg_index size, cg_index stride, int accumulate)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, 0, 0, &o, &a, &b, &bi);
        cg_index v = (cg_index)idx[a];
        if (v < 0)
            v += size;
        cg_index off = (v >= 0 && v < size) ? v * stride : CG_BAD;
        if (accumulate) {
            const cg_index prev = offsets[i];
            off = (prev == CG_BAD || off == CG_BAD) ? CG_BAD : prev + off;
        }
        offsets[i] = off;
    }
}

/* offsets[i] = the element offset, in a tensor of geometry t (shape, stride_out), of
 * the flat row-major position wrap(idx[i]) (idx's strides: gi.stride_a). */
template <typename I>
__device__ void cg_flat_offsets(cg_index n, const cg_geometry& gi, const cg_geometry& t,
                                cg_index numel, cg_index* offsets, const I* idx)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(gi, i, 0, 0, &o, &a, &b, &bi);
        cg_index v = (cg_index)idx[a];
        if (v < 0)
            v += numel;
        if (v < 0 || v >= numel) {
            offsets[i] = CG_BAD;
            continue;
        }
        cg_index off = 0;
        for (int d = t.ndim - 1; d >= 0; --d) {
            off += (v % t.shape[d]) * t.stride_out[d];
            v /= t.shape[d];
        }
        offsets[i] = off;
    }
}

/* pos[0] = min over i of the i whose idx value lies outside [low, high) (pos[0]
 * starts at n: none). */
template <typename I>
__device__ void cg_first_bad(cg_index n, const cg_geometry& g, const I* idx, cg_index low,
                             cg_index high, cg_index* pos)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, 0, 0, &o, &a, &b, &bi);
        const cg_index v = (cg_index)idx[a];
        if (v < low || v >= high)
            atomicMin(pos, i);
    }
}

#define CG_INDEX_KERNELS(IS, I)                                                                   \
    extern "C" __global__ void cg_offsets_##IS(cg_index n, cg_geometry g, cg_index* offsets,      \
                                               const I* idx, cg_index size, cg_index stride,      \
                                               int accumulate)                                    \
    {                                                                                             \
        cg_offsets<I>(n, g, offsets, idx, size, stride, accumulate);                              \
    }                                                                                             \
    extern "C" __global__ void cg_flat_offsets_##IS(cg_index n, cg_geometry gi, cg_geometry t,    \
                                                    cg_index numel, cg_index* offsets,            \
                                                    const I* idx)                                 \
    {                                                                                             \
        cg_flat_offsets<I>(n, gi, t, numel, offsets, idx);                                        \
    }                                                                                             \
    extern "C" __global__ void cg_first_bad_##IS(cg_index n, cg_geometry g, const I* idx,         \
                                                 cg_index low, cg_index high, cg_index* pos)      \
    {                                                                                             \
        cg_first_bad<I>(n, g, idx, low, high, pos);                                               \
    }

CG_INDEX_KERNELS(i32, int)
CG_INDEX_KERNELS(i64, long long)

/* ---- 2. gathers and writes through offsets ---------------------------------- */

/* Through=false (gather): out[o] = src[a + offsets[bi]];
 * Through=true (put):     out[o + offsets[bi]] = src[a];
 * no offsets when b0 == b1 (a strided copy). */
template <typename W, bool Through>
__device__ void cg_move(cg_index n, const cg_geometry& g, int b0, int b1, W* out, const W* src,
                        const cg_index* offsets)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, b0, b1, &o, &a, &b, &bi);
        if (b0 < b1) {
            const cg_index off = offsets[bi];
            if (off == CG_BAD)
                continue;
            if (Through)
                o += off;
            else
                a += off;
        }
        out[o] = src[a];
    }
}

#define CG_MOVE_KERNELS(WS, W)                                                                    \
    extern "C" __global__ void cg_gather_##WS(cg_index n, cg_geometry g, int b0, int b1, W* out,  \
                                              const W* src, const cg_index* offsets)              \
    {                                                                                             \
        cg_move<W, false>(n, g, b0, b1, out, src, offsets);                                            \
    }                                                                                             \
    extern "C" __global__ void cg_put_##WS(cg_index n, cg_geometry g, int b0, int b1, W* dst,     \
                                           const W* vals, const cg_index* offsets)                \
    {                                                                                             \
        cg_move<W, true>(n, g, b0, b1, dst, vals, offsets);                                              \
    }

CG_MOVE_KERNELS(b1, unsigned char)
CG_MOVE_KERNELS(b2, unsigned short)
CG_MOVE_KERNELS(b4, unsigned int)
CG_MOVE_KERNELS(b8, unsigned long long)
CG_MOVE_KERNELS(b16, cg_b16)

/* ---- element types: storage and compute ------------------------------------ */

/* cg_val<S>: how an element stored as S is computed with (C) and stored back.
 * float16/bfloat16 compute in float, 8/16-bit integers and bool in int. */
template <typename S> struct cg_val {
    typedef S C;
    static const bool is_float = false;
    __device__ static C load(S s) { return s; }
    __device__ static S store(C c) { return c; }
};
#define CG_FLOAT_VAL(S, CT, LOAD, STORE)                                                          \
    template <> struct cg_val<S> {                                                                \
        typedef CT C;                                                                             \
        static const bool is_float = true;                                                        \
        __device__ static C load(S s) { return LOAD(s); }                                         \
        __device__ static S store(C c) { return STORE(c); }                                       \
    };
#define CG_SAME(x) (x)
CG_FLOAT_VAL(float, float, CG_SAME, CG_SAME)
CG_FLOAT_VAL(double, double, CG_SAME, CG_SAME)
CG_FLOAT_VAL(__half, float, cg_io<__half>::ld, cg_io<__half>::st)
CG_FLOAT_VAL(__nv_bfloat16, float, cg_io<__nv_bfloat16>::ld, cg_io<__nv_bfloat16>::st)
#define CG_SMALL_INT(S)                                                                           \
    template <> struct cg_val<S> {                                                                \
        typedef int C;                                                                            \
        static const bool is_float = false;                                                       \
        __device__ static C load(S s) { return (int)s; }                                          \
        __device__ static S store(C c) { return (S)c; }                                           \
    };
CG_SMALL_INT(signed char)
CG_SMALL_INT(unsigned char)
CG_SMALL_INT(short)
template <> struct cg_val<bool> {
    typedef int C;
    static const bool is_float = false;
    __device__ static C load(bool s) { return (int)s; }
    __device__ static bool store(C c) { return c != 0; }
};
/* complex64/complex128 compute as themselves (cg_reduce_complex.cuh's operators) */
template <typename R> struct cg_val<cg_rcomplex<R> > {
    typedef cg_rcomplex<R> C;
    static const bool is_float = true;
    __device__ static C load(C s) { return s; }
    __device__ static C store(C c) { return c; }
};

/* ---- atomic read-modify-writes ---------------------------------------------- */

template <typename T, typename U> __device__ inline U cg_to_bits(T v)
{
    U u;
    memcpy(&u, &v, sizeof(T));
    return u;
}

template <typename T, typename U> __device__ inline T cg_from_bits(U u)
{
    T v;
    memcpy(&v, &u, sizeof(T));
    return v;
}

template <typename T> __device__ inline bool cg_isnan(T v) { return v != v; }

struct cg_rmw_add { template <typename C> __device__ static C apply(C cur, C v) { return cur + v; } };
struct cg_rmw_mul { template <typename C> __device__ static C apply(C cur, C v) { return cur * v; } };
/* a NaN already there stays; a NaN arriving wins */
struct cg_rmw_max {
    template <typename C> __device__ static C apply(C cur, C v)
    {
        return (cg_isnan(cur) || !(cg_isnan(v) || v > cur)) ? cur : v;
    }
};
struct cg_rmw_min {
    template <typename C> __device__ static C apply(C cur, C v)
    {
        return (cg_isnan(cur) || !(cg_isnan(v) || v < cur)) ? cur : v;
    }
};

/* *p = Op(*p, v) for 4- and 8-byte elements: compare-and-swap on the bits. */
template <typename S, typename U, typename Op>
__device__ inline void cg_cas_word(S* p, typename cg_val<S>::C v)
{
    U* q = reinterpret_cast<U*>(p);
    U old = *q, assumed;
    do {
        assumed = old;
        const S next = cg_val<S>::store(Op::apply(cg_val<S>::load(cg_from_bits<S, U>(assumed)), v));
        old = atomicCAS(q, assumed, cg_to_bits<S, U>(next));
    } while (old != assumed);
}

/* The same for 1- and 2-byte elements: compare-and-swap on the aligned 32-bit word
 * that holds them (allocations are 512-byte aligned, so the word is inside one). */
template <typename S, typename Op>
__device__ inline void cg_cas_subword(S* p, typename cg_val<S>::C v)
{
    typedef unsigned short B;   /* wide enough for 1 or 2 bytes */
    const unsigned long long addr = (unsigned long long)p;
    unsigned int* word = reinterpret_cast<unsigned int*>(addr & ~3ULL);
    const unsigned int shift = (unsigned int)(addr & 3ULL) * 8u;
    const unsigned int mask = (sizeof(S) == 1 ? 0xffu : 0xffffu) << shift;
    unsigned int old = *word, assumed;
    do {
        assumed = old;
        const B bits = (B)((assumed & mask) >> shift);
        const S cur = cg_from_bits<S, B>(bits);
        const S next = cg_val<S>::store(Op::apply(cg_val<S>::load(cur), v));
        B nb = 0;
        memcpy(&nb, &next, sizeof(S));
        const unsigned int replaced = (assumed & ~mask) | (((unsigned int)nb << shift) & mask);
        old = atomicCAS(word, assumed, replaced);
    } while (old != assumed);
}

template <typename Op> __device__ inline void cg_rmw(float* p, float v) { cg_cas_word<float, unsigned int, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(double* p, double v) { cg_cas_word<double, unsigned long long, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(int* p, int v) { cg_cas_word<int, unsigned int, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(long long* p, long long v) { cg_cas_word<long long, unsigned long long, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(__half* p, float v) { cg_cas_subword<__half, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(__nv_bfloat16* p, float v) { cg_cas_subword<__nv_bfloat16, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(short* p, int v) { cg_cas_subword<short, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(signed char* p, int v) { cg_cas_subword<signed char, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(unsigned char* p, int v) { cg_cas_subword<unsigned char, Op>(p, v); }
template <typename Op> __device__ inline void cg_rmw(bool* p, int v) { cg_cas_subword<bool, Op>(p, v); }
/* complex64 is 8 bytes: one 64-bit compare-and-swap covers both parts */
template <typename Op> __device__ inline void cg_rmw(cg_rc64* p, cg_rc64 v) { cg_cas_word<cg_rc64, unsigned long long, Op>(p, v); }

/* Adds use the hardware's atomicAdd where it has one for the type. */
template <typename S, typename C> __device__ inline void cg_atomic_add(S* p, C v) { cg_rmw<cg_rmw_add>(p, v); }
__device__ inline void cg_atomic_add(float* p, float v) { atomicAdd(p, v); }
__device__ inline void cg_atomic_add(double* p, double v) { atomicAdd(p, v); }
__device__ inline void cg_atomic_add(int* p, int v) { atomicAdd(p, v); }
/* two's complement: an unsigned add is the signed one */
__device__ inline void cg_atomic_add(long long* p, long long v)
{
    atomicAdd(reinterpret_cast<unsigned long long*>(p), (unsigned long long)v);
}
/* A complex sum adds the two parts, each with its own atomicAdd: every update is
 * counted in both parts; the pair is not updated as one, which no reader inside the
 * kernel needs (the sum is read after the launch). */
template <typename R> __device__ inline void cg_atomic_add(cg_rcomplex<R>* p, cg_rcomplex<R> v)
{
    atomicAdd(&p->re, v.re);
    atomicAdd(&p->im, v.im);
}

struct cg_scatter_add { template <typename S, typename C> __device__ static void at(S* p, C v) { cg_atomic_add(p, v); } };
struct cg_scatter_mul { template <typename S, typename C> __device__ static void at(S* p, C v) { cg_rmw<cg_rmw_mul>(p, v); } };
struct cg_scatter_max { template <typename S, typename C> __device__ static void at(S* p, C v) { cg_rmw<cg_rmw_max>(p, v); } };
struct cg_scatter_min { template <typename S, typename C> __device__ static void at(S* p, C v) { cg_rmw<cg_rmw_min>(p, v); } };

/* alpha of a real dtype: a float dtype takes falpha, an integer one ialpha */
template <typename S> __device__ inline typename cg_val<S>::C cg_real_alpha(double falpha, cg_index ialpha)
{
    typedef typename cg_val<S>::C C;
    return cg_val<S>::is_float ? C(falpha) : C(ialpha);
}

/* dst[o + offsets[bi]] op= alpha * vals[a] (alpha only for add). */
template <typename S, typename Op>
__device__ void cg_scatter(cg_index n, const cg_geometry& g, int b0, int b1, S* dst,
                           const S* vals, const cg_index* offsets,
                           const typename cg_val<S>::C alpha, int scaled)
{
    typedef typename cg_val<S>::C C;
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, b0, b1, &o, &a, &b, &bi);
        if (b0 < b1) {
            const cg_index off = offsets[bi];
            if (off == CG_BAD)
                continue;
            o += off;
        }
        C v = cg_val<S>::load(vals[a]);
        if (scaled)     /* rounded to the dtype first, as the CPU kernel's src * alpha */
            v = cg_val<S>::load(cg_val<S>::store(v * alpha));
        Op::at(dst + o, v);
    }
}

/* x / c for scatter-mean: in double for the float dtypes, floor division for the
 * integers, as the CPU kernel. */
template <typename S> __device__ inline S cg_divided(S x, cg_index c)
{
    typedef typename cg_val<S>::C C;
    if (cg_val<S>::is_float)
        return cg_val<S>::store(C((double)cg_val<S>::load(x) / (double)c));
    const cg_index v = (cg_index)cg_val<S>::load(x);
    cg_index q = v / c;
    if ((v % c != 0) && ((v < 0) != (c < 0)))
        --q;
    return cg_val<S>::store(C(q));
}
/* complex: each part times 1/c in double, as the CPU divides by the count (a
 * complex128 over a real divisor: NumPy and PyTorch scale by the reciprocal) */
template <typename R> __device__ inline cg_rcomplex<R> cg_divided(cg_rcomplex<R> x, cg_index c)
{
    const double inv = 1.0 / (double)c;
    return cg_rcomplex<R>((R)((double)x.re * inv), (R)((double)x.im * inv));
}

/* Scatter-mean's last step: x /= count (+1 for self when include_self, else a place
 * nothing reached keeps its value). */
template <typename S>
__device__ void cg_mean_finish(cg_index n, const cg_geometry& g, S* x, const cg_index* count,
                               int include_self)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, 0, 0, &o, &a, &b, &bi);
        cg_index c = count[a];
        c += include_self ? 1 : (c == 0);
        x[o] = cg_divided(x[o], c);
    }
}

/* ---- 2b. complex128 multiply: no atomics ------------------------------------- */

/* A complex128 is 16 bytes and a compare-and-swap covers at most 8 before sm_90, so
 * the product is not made atomic: one thread owns one line of the update space along
 * the scattered dim (g.shape has 1 there; stride_out: the destination's strides with
 * that dim 0, stride_a: vals', stride_b: the offsets' over the full update space) and
 * multiplies the line's len updates in index order. Lines differ in the other
 * coordinates, which place the destination element, so no two threads ever touch
 * one element, and the result is the CPU's, in the CPU's order. */
template <typename S>
__device__ void cg_scatter_mul_lines(cg_index n, const cg_geometry& g, cg_index len, S* dst,
                                     const S* vals, cg_index vstride, const cg_index* offsets,
                                     cg_index ostride)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, 0, 0, &o, &a, &b, &bi);
        for (cg_index k = 0; k < len; ++k) {
            const cg_index off = offsets[b + k * ostride];
            if (off == CG_BAD)
                continue;
            S* p = dst + o + off;
            *p = *p * vals[a + k * vstride];
        }
    }
}

/* A scatter kernel whose alpha arrives as (double A1, A2) and is made by ALPHA. */
#define CG_SCATTER_KERNEL_OF(OP, TS, T, A1, A2, ALPHA)                                            \
    extern "C" __global__ void cg_scatter_##OP##_##TS(cg_index n, cg_geometry g, int b0, int b1,  \
                                                      T* dst, const T* vals,                      \
                                                      const cg_index* offsets, double A1, A2,     \
                                                      int scaled)                                 \
    {                                                                                             \
        cg_scatter<T, cg_scatter_##OP>(n, g, b0, b1, dst, vals, offsets, ALPHA, scaled);          \
    }
/* real dtypes: falpha for a float dtype, ialpha for an integer one */
#define CG_SCATTER_KERNEL(OP, TS, T)                                                              \
    CG_SCATTER_KERNEL_OF(OP, TS, T, falpha, cg_index ialpha, (cg_real_alpha<T>(falpha, ialpha)))

#define CG_TYPED_KERNELS(TS, T)                                                                   \
    CG_SCATTER_KERNEL(add, TS, T)                                                                 \
    CG_SCATTER_KERNEL(mul, TS, T)                                                                 \
    CG_SCATTER_KERNEL(max, TS, T)                                                                 \
    CG_SCATTER_KERNEL(min, TS, T)                                                                 \
    extern "C" __global__ void cg_mean_finish_##TS(cg_index n, cg_geometry g, T* x,               \
                                                   const cg_index* count, int include_self)       \
    {                                                                                             \
        cg_mean_finish<T>(n, g, x, count, include_self);                                          \
    }

CG_TYPED_KERNELS(f32, float)
CG_TYPED_KERNELS(f64, double)
CG_TYPED_KERNELS(i32, int)
CG_TYPED_KERNELS(i64, long long)
CG_TYPED_KERNELS(f16, __half)
CG_TYPED_KERNELS(bf16, __nv_bfloat16)
CG_TYPED_KERNELS(i16, short)
CG_TYPED_KERNELS(i8, signed char)
CG_TYPED_KERNELS(u8, unsigned char)
CG_TYPED_KERNELS(bool, bool)

/* complex: add (index_add's alpha is complex: its two parts) and scatter-mean's last
 * step; multiply by compare-and-swap for complex64, by lines for complex128 */
#define CG_COMPLEX_SCATTER_KERNEL(OP, TS, T, R)                                                   \
    CG_SCATTER_KERNEL_OF(OP, TS, T, alpha_re, double alpha_im, (T((R)alpha_re, (R)alpha_im)))
#define CG_COMPLEX_KERNELS(TS, T, R)                                                              \
    CG_COMPLEX_SCATTER_KERNEL(add, TS, T, R)                                                      \
    extern "C" __global__ void cg_mean_finish_##TS(cg_index n, cg_geometry g, T* x,               \
                                                   const cg_index* count, int include_self)       \
    {                                                                                             \
        cg_mean_finish<T>(n, g, x, count, include_self);                                          \
    }

CG_COMPLEX_KERNELS(c64, cg_rc64, float)
CG_COMPLEX_KERNELS(c128, cg_rc128, double)
CG_COMPLEX_SCATTER_KERNEL(mul, c64, cg_rc64, float)

extern "C" __global__ void cg_scatter_mul_lines_c128(cg_index n, cg_geometry g, cg_index len,
                                                     cg_rc128* dst, const cg_rc128* vals,
                                                     cg_index vstride, const cg_index* offsets,
                                                     cg_index ostride)
{
    cg_scatter_mul_lines<cg_rc128>(n, g, len, dst, vals, vstride, offsets, ostride);
}

/* ---- 3. stream compaction: nonzero, masked_select ----------------------------- */

/* Is an element non-zero? kind 0: integer or bool; 1: float (-0.0 is zero, NaN is
 * not); 2: complex (either part). Read as unsigned integers of the element's width. */
__device__ inline bool cg_nz(unsigned char v, int) { return v != 0; }
__device__ inline bool cg_nz(unsigned short v, int kind) { return (kind ? (v & 0x7fffu) : v) != 0; }
__device__ inline bool cg_nz(unsigned int v, int kind) { return (kind ? (v & 0x7fffffffu) : v) != 0; }
__device__ inline bool cg_nz(unsigned long long v, int kind)
{
    const unsigned long long m = kind == 1 ? 0x7fffffffffffffffULL
                                 : kind == 2 ? 0x7fffffff7fffffffULL : ~0ULL;
    return (v & m) != 0;
}
__device__ inline bool cg_nz(cg_b16 v, int)
{
    const unsigned long long m = 0x7fffffffffffffffULL;
    return ((v.lo & m) | (v.hi & m)) != 0;
}

/* Exclusive scan of v over the block; *total gets the block's sum. Every thread of
 * the block must call it (it has barriers). */
__device__ inline cg_index cg_block_scan(cg_index v, cg_index* total)
{
    __shared__ cg_index warp_sums[32];
    const int lane = threadIdx.x % 32, warp = threadIdx.x / 32, nwarps = blockDim.x / 32;
    cg_index x = v;
    for (int off = 1; off < 32; off *= 2) {
        const cg_index y = __shfl_up_sync(0xffffffffu, x, off);
        if (lane >= off)
            x += y;
    }
    if (lane == 31)
        warp_sums[warp] = x;
    __syncthreads();
    if (warp == 0) {
        cg_index s = lane < nwarps ? warp_sums[lane] : 0;
        for (int off = 1; off < 32; off *= 2) {
            const cg_index y = __shfl_up_sync(0xffffffffu, s, off);
            if (lane >= off)
                s += y;
        }
        if (lane < nwarps)
            warp_sums[lane] = s;
    }
    __syncthreads();
    const cg_index before = warp ? warp_sums[warp - 1] : 0;
    *total = warp_sums[nwarps - 1];
    __syncthreads();    /* the next call rewrites warp_sums */
    return before + x - v;
}

/* counts[block] = how many of the block's elements are non-zero (pred read through
 * g.stride_a). */
template <typename W>
__device__ void cg_count(cg_index n, const cg_geometry& g, int kind, const W* pred,
                         cg_index chunk, cg_index* counts)
{
    const cg_index lo = (cg_index)blockIdx.x * chunk;
    const cg_index hi = lo + chunk < n ? lo + chunk : n;
    cg_index mine = 0;
    for (cg_index i = lo + threadIdx.x; i < hi; i += blockDim.x) {
        cg_index o, a, b, bi;
        cg_decode(g, i, 0, 0, &o, &a, &b, &bi);
        mine += cg_nz(pred[a], kind);
    }
    cg_index total;
    cg_block_scan(mine, &total);
    if (threadIdx.x == 0)
        counts[blockIdx.x] = total;
}

/* counts[0:nb] -> exclusive prefix sums in place; counts[nb] = the total. */
extern "C" __global__ void cg_scan_blocks(cg_index nb, cg_index* counts)
{
    if (threadIdx.x == 0 && blockIdx.x == 0) {
        cg_index acc = 0;
        for (cg_index b = 0; b < nb; ++b) {
            const cg_index c = counts[b];
            counts[b] = acc;
            acc += c;
        }
        counts[nb] = acc;
    }
}

/* Walks the block's elements in tiles of blockDim.x, in order; each non-zero one
 * (pred through g.stride_a) gets its place by a block scan, and
 *   mode 0: its coordinates go to row `place` of coords (ndim columns);
 *   mode 1: vals[b] (g.stride_b) goes to out[place]. */
template <typename W, typename V>
__device__ void cg_compact(cg_index n, const cg_geometry& g, int kind, const W* pred,
                           cg_index chunk, const cg_index* starts, int mode, cg_index* coords,
                           const V* vals, V* out)
{
    const cg_index lo = (cg_index)blockIdx.x * chunk;
    const cg_index hi = lo + chunk < n ? lo + chunk : n;
    cg_index base = starts[blockIdx.x];
    for (cg_index t = lo; t < hi; t += blockDim.x) {
        const cg_index i = t + threadIdx.x;
        cg_index o = 0, a = 0, b = 0, bi = 0;
        bool keep = false;
        if (i < hi) {
            cg_decode(g, i, 0, 0, &o, &a, &b, &bi);
            keep = cg_nz(pred[a], kind);
        }
        cg_index total;
        const cg_index place = base + cg_block_scan(keep ? 1 : 0, &total);
        if (keep) {
            if (mode == 0) {
                cg_index rest = i;
                for (int d = g.ndim - 1; d >= 0; --d) {
                    coords[place * g.ndim + d] = rest % g.shape[d];
                    rest /= g.shape[d];
                }
            } else {
                out[place] = vals[b];
            }
        }
        base += total;
    }
}

#define CG_COMPACT_KERNELS(WS, W)                                                                 \
    extern "C" __global__ void cg_count_##WS(cg_index n, cg_geometry g, int kind, const W* pred,  \
                                             cg_index chunk, cg_index* counts)                    \
    {                                                                                             \
        cg_count<W>(n, g, kind, pred, chunk, counts);                                             \
    }                                                                                             \
    extern "C" __global__ void cg_compact_coords_##WS(cg_index n, cg_geometry g, int kind,        \
                                                      const W* pred, cg_index chunk,              \
                                                      const cg_index* starts, cg_index* coords)   \
    {                                                                                             \
        cg_compact<W, W>(n, g, kind, pred, chunk, starts, 0, coords, (const W*)0, (W*)0);         \
    }                                                                                             \
    extern "C" __global__ void cg_compact_values_##WS(cg_index n, cg_geometry g,                  \
                                                      const unsigned char* mask, cg_index chunk,  \
                                                      const cg_index* starts, const W* vals,      \
                                                      W* out)                                     \
    {                                                                                             \
        cg_compact<unsigned char, W>(n, g, 0, mask, chunk, starts, 1, (cg_index*)0, vals, out);   \
    }

CG_COMPACT_KERNELS(b1, unsigned char)
CG_COMPACT_KERNELS(b2, unsigned short)
CG_COMPACT_KERNELS(b4, unsigned int)
CG_COMPACT_KERNELS(b8, unsigned long long)
CG_COMPACT_KERNELS(b16, cg_b16)

/* ---- 4. index builders ------------------------------------------------------- */

/* sums[block] = the sum of counts over the block's chunk (counts contiguous int64). */
extern "C" __global__ void cg_repeat_sums(cg_index n, const cg_index* counts, cg_index chunk,
                                          cg_index* sums)
{
    const cg_index lo = (cg_index)blockIdx.x * chunk;
    const cg_index hi = lo + chunk < n ? lo + chunk : n;
    cg_index mine = 0;
    for (cg_index i = lo + threadIdx.x; i < hi; i += blockDim.x)
        mine += counts[i];
    cg_index total;
    cg_block_scan(mine, &total);
    if (threadIdx.x == 0)
        sums[blockIdx.x] = total;
}

/* out[start_i : start_i + counts[i]] = i, start_i the prefix sum of counts. */
extern "C" __global__ void cg_repeat_write(cg_index n, const cg_index* counts, cg_index chunk,
                                           const cg_index* starts, cg_index* out)
{
    const cg_index lo = (cg_index)blockIdx.x * chunk;
    const cg_index hi = lo + chunk < n ? lo + chunk : n;
    cg_index base = starts[blockIdx.x];
    for (cg_index t = lo; t < hi; t += blockDim.x) {
        const cg_index i = t + threadIdx.x;
        const cg_index c = i < hi ? counts[i] : 0;
        cg_index total;
        const cg_index start = base + cg_block_scan(c, &total);
        for (cg_index k = 0; k < c; ++k)
            out[start + k] = i;
        base += total;
    }
}

/* The input position each of the n padded positions copies (mode 0 reflect,
 * 1 replicate, 2 circular; negative before/after crop). */
extern "C" __global__ void cg_pad_source(cg_index n, int mode, cg_index size, cg_index before,
                                         cg_index after, cg_index* out)
{
    const cg_index start = before < 0 ? -before : 0;
    const cg_index stop = size - (after < 0 ? -after : 0);
    const cg_index lead = before > 0 ? before : 0;
    for (cg_index j = cg_first_index(); j < n; j += cg_grid_stride()) {
        cg_index v;
        if (mode == 0) {
            v = j - before;
            v = v < 0 ? -v : v;
            if (v >= size)
                v = 2 * (size - 1) - v;
        } else {
            const cg_index p = j - lead, len = stop - start;
            if (mode == 1)
                v = start + (p < 0 ? 0 : (p >= len ? len - 1 : p));
            else
                v = start + ((p % len) + len) % len;
        }
        out[j] = v;
    }
}

/* ---- 5. binary search and membership ------------------------------------------ */

/* NumPy's and PyTorch's order: NaN after every number. */
template <typename C> __device__ inline bool cg_less(C a, C b) { return a < b || (b != b && a == a); }

/* For value i of v (contiguous, rows of `inner` values), its insertion point in row
 * (per_row ? i / inner : 0) of s (contiguous rows of len values); to out64 or out32. */
template <typename S>
__device__ void cg_searchsorted(cg_index n, cg_index inner, cg_index len, int per_row,
                                const S* s, const S* v, int right, cg_index* out64, int* out32)
{
    typedef cg_val<S> V;
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        const S* row = s + (per_row ? (i / inner) * len : 0);
        const typename V::C x = V::load(v[i]);
        cg_index lo = 0, hi = len;
        while (lo < hi) {
            const cg_index mid = lo + (hi - lo) / 2;
            const typename V::C r = V::load(row[mid]);
            const bool go_right = right ? !cg_less(x, r) : cg_less(r, x);
            if (go_right)
                lo = mid + 1;
            else
                hi = mid;
        }
        if (out64)
            out64[i] = lo;
        else
            out32[i] = (int)lo;
    }
}

/* out[i] = (e[i] equals some t[j]) != invert; t is staged through shared memory. */
template <typename S>
__device__ void cg_isin(cg_index n, const S* e, cg_index m, const S* t, int invert,
                        unsigned char* out)
{
    typedef cg_val<S> V;
    typedef typename V::C C;
    __shared__ C tile[256];
    /* every thread of the block runs the same number of rounds (barriers inside) */
    const cg_index rounds_end = ((n + cg_grid_stride() - 1) / cg_grid_stride()) * cg_grid_stride();
    for (cg_index i0 = (cg_index)blockIdx.x * blockDim.x; i0 < rounds_end; i0 += cg_grid_stride()) {
        const cg_index i = i0 + threadIdx.x;
        const C x = i < n ? V::load(e[i]) : C(0);
        bool found = false;
        for (cg_index j0 = 0; j0 < m; j0 += 256) {
            for (cg_index k = threadIdx.x; k < 256 && j0 + k < m; k += blockDim.x)
                tile[k] = V::load(t[j0 + k]);
            __syncthreads();
            const cg_index count = m - j0 < 256 ? m - j0 : 256;
            for (cg_index k = 0; k < count; ++k)
                found = found || (tile[k] == x);
            __syncthreads();
        }
        if (i < n)
            out[i] = found != (invert != 0);
    }
}

#define CG_SEARCH_KERNELS(TS, T)                                                                  \
    extern "C" __global__ void cg_searchsorted_##TS(cg_index n, cg_index inner, cg_index len,     \
                                                    int per_row, const T* s, const T* v,          \
                                                    int right, cg_index* out64, int* out32)       \
    {                                                                                             \
        cg_searchsorted<T>(n, inner, len, per_row, s, v, right, out64, out32);                    \
    }                                                                                             \
    extern "C" __global__ void cg_isin_##TS(cg_index n, const T* e, cg_index m, const T* t,       \
                                            int invert, unsigned char* out)                       \
    {                                                                                             \
        cg_isin<T>(n, e, m, t, invert, out);                                                      \
    }

CG_SEARCH_KERNELS(f32, float)
CG_SEARCH_KERNELS(f64, double)
CG_SEARCH_KERNELS(i32, int)
CG_SEARCH_KERNELS(i64, long long)
CG_SEARCH_KERNELS(f16, __half)
CG_SEARCH_KERNELS(bf16, __nv_bfloat16)
CG_SEARCH_KERNELS(i16, short)
CG_SEARCH_KERNELS(i8, signed char)
CG_SEARCH_KERNELS(u8, unsigned char)
CG_SEARCH_KERNELS(bool, bool)

/* ---- 6. scatter_reduce's derivative weights ----------------------------------- */

/* Per index position p (g over the index's shape: stride_out the contiguous x's
 * strides with 0 along dim, stride_a src's strides), its target t = o + offsets[p]:
 *   count[t] += 1 (every mode);
 *   mode 1 (amax/amin): hit = src == res[t]; hit_out[p] = hit; hits[t] += hit;
 *   mode 2 (prod):      z = src == 0;        zero_out[p] = z; hits[t] += z. */
template <typename T>
__device__ void cg_srw_scatter(cg_index n, const cg_geometry& g, int mode,
                               const cg_index* offsets, const T* src, const T* res,
                               cg_index* count, cg_index* hits, T* hit_out,
                               unsigned char* zero_out)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, 0, g.ndim, &o, &a, &b, &bi);
        const cg_index off = offsets[bi];
        if (off == CG_BAD)
            continue;
        const cg_index t = o + off;
        cg_atomic_add(&count[t], 1LL);
        if (mode == 1) {
            const bool hit = src[a] == res[t];
            hit_out[i] = T(hit);
            if (hit)
                cg_atomic_add(&hits[t], 1LL);
        } else if (mode == 2) {
            const bool z = src[a] == T(0);
            zero_out[i] = z;
            if (z)
                cg_atomic_add(&hits[t], 1LL);
        }
    }
}

/* Per element of x (all contiguous):
 *   mode 0 (sum, prod): w0 = not reached;
 *   mode 1 (mean):      w0 = 1 / max(count + include_self, 1), w1 = not reached;
 *   mode 2 (amax/amin): self_hit = res == x (and not reached unless include_self),
 *                       inv = 1 / max(self_hit + hits, 1), w0 = self_hit * inv, w1 = inv. */
template <typename T>
__device__ void cg_srw_finish(cg_index n, int mode, const T* x, const T* res,
                              const cg_index* count, const cg_index* hits, int include_self,
                              T* w0, T* w1)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        const cg_index c = count[i];
        if (mode == 0) {
            w0[i] = T(c == 0);
        } else if (mode == 1) {
            const cg_index k = c + (include_self ? 1 : 0);
            w0[i] = T(1.0 / (double)(k > 1 ? k : 1));
            w1[i] = T(c == 0);
        } else {
            const bool self_hit = res[i] == x[i] && (include_self || c == 0);
            const cg_index k = (cg_index)self_hit + hits[i];
            const double inv = 1.0 / (double)(k > 1 ? k : 1);
            w0[i] = T(self_hit ? inv : 0.0);
            w1[i] = T(inv);
        }
    }
}

/* prod: lone[p] = src[p] is the only zero that reaches its target. */
template <typename T>
__device__ void cg_srw_lone(cg_index n, const cg_geometry& g, const cg_index* offsets,
                            const unsigned char* zero_out, const cg_index* zeros, T* lone)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index o, a, b, bi;
        cg_decode(g, i, 0, g.ndim, &o, &a, &b, &bi);
        const cg_index off = offsets[bi];
        lone[i] = T(off != CG_BAD && zero_out[i] && zeros[o + off] == 1);
    }
}

#define CG_SRW_KERNELS(TS, T)                                                                     \
    extern "C" __global__ void cg_srw_scatter_##TS(cg_index n, cg_geometry g, int mode,           \
                                                   const cg_index* offsets, const T* src,         \
                                                   const T* res, cg_index* count,                 \
                                                   cg_index* hits, T* hit_out,                    \
                                                   unsigned char* zero_out)                       \
    {                                                                                             \
        cg_srw_scatter<T>(n, g, mode, offsets, src, res, count, hits, hit_out, zero_out);         \
    }                                                                                             \
    extern "C" __global__ void cg_srw_finish_##TS(cg_index n, int mode, const T* x, const T* res, \
                                                  const cg_index* count, const cg_index* hits,    \
                                                  int include_self, T* w0, T* w1)                 \
    {                                                                                             \
        cg_srw_finish<T>(n, mode, x, res, count, hits, include_self, w0, w1);                     \
    }                                                                                             \
    extern "C" __global__ void cg_srw_lone_##TS(cg_index n, cg_geometry g,                        \
                                                const cg_index* offsets,                          \
                                                const unsigned char* zero_out,                    \
                                                const cg_index* zeros, T* lone)                   \
    {                                                                                             \
        cg_srw_lone<T>(n, g, offsets, zero_out, zeros, lone);                                     \
    }

CG_SRW_KERNELS(f32, float)
CG_SRW_KERNELS(f64, double)
