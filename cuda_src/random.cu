/* Random sampling kernels of cygrad: counter-based Philox4x32-10 (Salmon, Moraes,
 * Dror and Shaw, "Parallel random numbers: as easy as 1, 2, 3", SC 2011) and the
 * fills built on it.
 *
 * Stream: a generator is (seed, offset). Element i of a launch (logical row-major
 * index) draws from Philox blocks with counter (offset + i, round, 0) and key
 * (seed low 32 bits, seed high 32 bits); "round" counts the blocks one element
 * needs (0 for most fills; rejection samplers take more). The host advances the
 * generator's offset by n after each launch, so consecutive launches never share
 * a counter and the values do not depend on the grid or on thread order.
 *
 * Naming: cg_<fill>_<dtype> with dtype f32, f64, f16, bf16, i64, i32, i16, i8, u8,
 * b8 (bool). Outputs are written through a cg_geometry (any strides); tensor
 * operands (probabilities, rates) are read through its stride_a.
 * Launch: any 1-D grid (grid-stride loops), any block size.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"

typedef unsigned long long cg_u64;

__device__ inline void cg_rand_offsets(const cg_geometry& g, cg_index i, cg_index* off_out,
                                       cg_index* off_a)
{
    cg_index o = 0, a = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
        cg_index s = g.shape[d];
        cg_index c = i % s;
        i /= s;
        o += c * g.stride_out[d];
        a += c * g.stride_a[d];
    }
    *off_out = o;
    *off_a = a;
}

/* ---- Philox4x32-10 ---- */

struct cg_u4 {
    unsigned int x, y, z, w;
};

__device__ inline unsigned int cg_mulhilo(unsigned int a, unsigned int b, unsigned int* hi)
{
    cg_u64 p = (cg_u64)a * (cg_u64)b;
    *hi = (unsigned int)(p >> 32);
    return (unsigned int)p;
}

__device__ inline cg_u4 cg_philox4x32_10(cg_u4 c, unsigned int k0, unsigned int k1)
{
    for (int r = 0; r < 10; ++r) {
        if (r) {
            k0 += 0x9E3779B9u;
            k1 += 0xBB67AE85u;
        }
        unsigned int hi0, hi1;
        unsigned int lo0 = cg_mulhilo(0xD2511F53u, c.x, &hi0);
        unsigned int lo1 = cg_mulhilo(0xCD9E8D57u, c.z, &hi1);
        cg_u4 n;
        n.x = hi1 ^ c.y ^ k0;
        n.y = lo1;
        n.z = hi0 ^ c.w ^ k1;
        n.w = lo0;
        c = n;
    }
    return c;
}

/* the block of element `ctr` (offset + i) in round `round` */
__device__ inline cg_u4 cg_draw(cg_u64 seed, cg_u64 ctr, unsigned int round)
{
    cg_u4 c;
    c.x = (unsigned int)ctr;
    c.y = (unsigned int)(ctr >> 32);
    c.z = round;
    c.w = 0u;
    return cg_philox4x32_10(c, (unsigned int)seed, (unsigned int)(seed >> 32));
}

/* uniforms on [0, 1): 24 bits for float, 53 bits for double */
__device__ inline float cg_u24(unsigned int a) { return (float)(a >> 8) * 5.9604644775390625e-8f; }

__device__ inline double cg_u53(unsigned int hi, unsigned int lo)
{
    cg_u64 b = ((cg_u64)hi << 32) | lo;
    return (double)(b >> 11) * 1.1102230246251565e-16;
}

/* raw Philox words: out[i] = word (i % 4) of block (offset + i / 4); the known-answer
 * tests of the test suite read the generator through this kernel */
extern "C" __global__ void cg_philox_words(cg_index n, unsigned int* out, cg_u64 seed,
                                           cg_u64 offset, unsigned int round)
{
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < n;
         i += (cg_index)blockDim.x * gridDim.x) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)(i / 4), round);
        unsigned int w[4] = {b.x, b.y, b.z, b.w};
        out[i] = w[i % 4];
    }
}

/* ---- storing a value in any dtype ---- */

template <typename T> __device__ inline void cg_put(T* p, double v) { *p = (T)v; }
template <> __device__ inline void cg_put<__half>(__half* p, double v) { *p = __float2half_rn((float)v); }
template <> __device__ inline void cg_put<__nv_bfloat16>(__nv_bfloat16* p, double v)
{
    *p = __float2bfloat16_rn((float)v);
}
template <> __device__ inline void cg_put<bool>(bool* p, double v) { *p = v != 0.0; }

template <typename T> __device__ inline double cg_get(const T* p) { return (double)*p; }
template <> __device__ inline double cg_get<__half>(const __half* p) { return (double)__half2float(*p); }
template <> __device__ inline double cg_get<__nv_bfloat16>(const __nv_bfloat16* p)
{
    return (double)__bfloat162float(*p);
}

/* the float value a store of v into T gives back (for the [low, high) check) */
template <typename T> __device__ inline double cg_round_trip(double v)
{
    T t;
    cg_put<T>(&t, v);
    return cg_get<T>(&t);
}

#define CG_GRID_LOOP(i, n)                                                              \
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < (n);         \
         i += (cg_index)blockDim.x * gridDim.x)

/* ---- uniform: U[low, high), float arithmetic except for double ---- */

template <typename T>
__device__ inline void cg_uniform(cg_index n, const cg_geometry& g, T* out, cg_u64 seed,
                                  cg_u64 offset, double low, double high, bool wide)
{
    const double hi_t = cg_round_trip<T>(high), lo_t = cg_round_trip<T>(low);
    CG_GRID_LOOP(i, n) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)i, 0u);
        double v;
        if (wide)
            v = cg_u53(b.x, b.y) * (high - low) + low;
        else
            v = (double)(cg_u24(b.x) * ((float)high - (float)low) + (float)low);
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        /* a sample that rounds up to `high` becomes `low`, as on the CPU */
        cg_put<T>(out + oo, cg_round_trip<T>(v) >= hi_t && hi_t > lo_t ? low : v);
    }
}

/* ---- normal: Box-Muller, the cos branch of one pair per element ---- */

template <typename T>
__device__ inline void cg_normal(cg_index n, const cg_geometry& g, T* out, cg_u64 seed,
                                 cg_u64 offset, double mean, double std, bool wide)
{
    CG_GRID_LOOP(i, n) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)i, 0u);
        double z;
        if (wide) {
            double u1 = 1.0 - cg_u53(b.x, b.y);         /* (0, 1]: log stays finite */
            double u2 = cg_u53(b.z, b.w);
            z = sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2);
        } else {
            float u1 = 1.0f - cg_u24(b.x);
            float u2 = cg_u24(b.y);
            z = (double)(sqrtf(-2.0f * logf(u1)) * cosf(6.2831853f * u2));
        }
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        cg_put<T>(out + oo, z * std + mean);
    }
}

/* ---- distributions computed in double from one 53-bit uniform u in [0, 1) ---- */

struct cg_exponential {   /* a = rate */
    __device__ static double apply(double u, double a, double) { return -log1p(-u) / a; }
};
struct cg_geometric {     /* a = p: trials up to the first success (u in (0, 1]) */
    __device__ static double apply(double u, double a, double)
    {
        return ceil(log(1.0 - u) / log1p(-a));
    }
};
struct cg_cauchy {        /* a = median, b = sigma */
    __device__ static double apply(double u, double a, double b)
    {
        return a + b * tan(3.141592653589793 * (u - 0.5));
    }
};

template <typename T, typename D>
__device__ inline void cg_dist(cg_index n, const cg_geometry& g, T* out, cg_u64 seed,
                               cg_u64 offset, double a, double b)
{
    CG_GRID_LOOP(i, n) {
        cg_u4 w = cg_draw(seed, offset + (cg_u64)i, 0u);
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        cg_put<T>(out + oo, D::apply(cg_u53(w.x, w.y), a, b));
    }
}

template <typename T>
__device__ inline void cg_log_normal(cg_index n, const cg_geometry& g, T* out, cg_u64 seed,
                                     cg_u64 offset, double mean, double std)
{
    CG_GRID_LOOP(i, n) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)i, 0u);
        double z = sqrt(-2.0 * log(1.0 - cg_u53(b.x, b.y))) * cos(6.283185307179586 * cg_u53(b.z, b.w));
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        cg_put<T>(out + oo, exp(z * std + mean));
    }
}

/* ---- integers: low + draw % span (span 0: the whole 64-bit range) ---- */

template <typename T> __device__ inline void cg_put_int(T* p, cg_index v) { *p = (T)v; }
template <> __device__ inline void cg_put_int<__half>(__half* p, cg_index v) { cg_put<__half>(p, (double)v); }
template <> __device__ inline void cg_put_int<__nv_bfloat16>(__nv_bfloat16* p, cg_index v)
{
    cg_put<__nv_bfloat16>(p, (double)v);
}

template <typename T>
__device__ inline void cg_integers(cg_index n, const cg_geometry& g, T* out, cg_u64 seed,
                                   cg_u64 offset, cg_u64 span, cg_index low, int wide)
{
    CG_GRID_LOOP(i, n) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)i, 0u);
        cg_u64 raw = wide ? (((cg_u64)b.x << 32) | b.y) : (cg_u64)b.x;
        cg_u64 v = span ? raw % span : raw;
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        cg_put_int<T>(out + oo, (cg_index)(v + (cg_u64)low));
    }
}

/* ---- Bernoulli: u < p, p a number or a tensor read through stride_a ---- */

template <typename T>
__device__ inline void cg_bernoulli_scalar(cg_index n, const cg_geometry& g, T* out,
                                           cg_u64 seed, cg_u64 offset, double p)
{
    CG_GRID_LOOP(i, n) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)i, 0u);
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        cg_put<T>(out + oo, cg_u53(b.x, b.y) < p ? 1.0 : 0.0);
    }
}

/* bad (one int) is set to 1 when a probability lies outside [0, 1] (or is NaN) */
template <typename T, typename P>
__device__ inline void cg_bernoulli_tensor(cg_index n, const cg_geometry& g, T* out,
                                           const P* p, cg_u64 seed, cg_u64 offset, int* bad)
{
    CG_GRID_LOOP(i, n) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)i, 0u);
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        double q = cg_get<P>(p + oa);
        if (!(q >= 0.0 && q <= 1.0))
            atomicExch(bad, 1);
        cg_put<T>(out + oo, cg_u53(b.x, b.y) < q ? 1.0 : 0.0);
    }
}

/* ---- Poisson: Hormann's transformed rejection (PTRS) for rates >= 10, products of
 * uniforms below; each element draws rounds 0, 1, 2 ... of its own counter ---- */

struct cg_uniform_source {
    cg_u64 seed, ctr;
    unsigned int round;
    int used;
    cg_u4 block;
    __device__ double next()
    {
        if (used == 0 || used == 2) {
            if (used == 2)
                ++round;
            block = cg_draw(seed, ctr, round);
            used = 0;
        }
        double u = used == 0 ? cg_u53(block.x, block.y) : cg_u53(block.z, block.w);
        ++used;
        return u;
    }
};

__device__ inline double cg_poisson_one(double rate, cg_uniform_source& src)
{
    if (rate >= 10.0) {
        double slam = sqrt(rate), loglam = log(rate);
        double b = 0.931 + 2.53 * slam;
        double a = -0.059 + 0.02483 * b;
        double invalpha = 1.1239 + 1.1328 / (b - 3.4);
        double vr = 0.9277 - 3.6224 / (b - 2.0);
        for (;;) {
            double u = src.next() - 0.5;
            double v = src.next();
            double us = 0.5 - fabs(u);
            double k = floor((2.0 * a / us + b) * u + rate + 0.43);
            if (us >= 0.07 && v <= vr)
                return k;
            if (k < 0.0 || (us < 0.013 && v > us))
                continue;
            if (log(v) + log(invalpha) - log(a / (us * us) + b) <= -rate + k * loglam - lgamma(k + 1.0))
                return k;
        }
    }
    if (rate == 0.0)
        return 0.0;
    double enlam = exp(-rate), prod = 1.0, count = 0.0;
    for (;;) {
        prod *= src.next();
        if (prod > enlam)
            count += 1.0;
        else
            return count;
    }
}

/* bad (one int) is set to 1 for a negative (or NaN) rate, whose element gets 0 */
template <typename T>
__device__ inline void cg_poisson(cg_index n, const cg_geometry& g, T* out, const T* rates,
                                  cg_u64 seed, cg_u64 offset, int* bad)
{
    CG_GRID_LOOP(i, n) {
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        cg_uniform_source src = {seed, offset + (cg_u64)i, 0u, 0, {0u, 0u, 0u, 0u}};
        double rate = cg_get<T>(rates + oa);
        if (!(rate >= 0.0)) {
            atomicExch(bad, 1);
            rate = 0.0;
        }
        cg_put<T>(out + oo, cg_poisson_one(rate, src));
    }
}

/* ---- multinomial ---- */

/* with replacement: one block per row (grid-stride over rows); thread 0 writes the
 * row's running sum into cdf (rows x ncat, double), then every thread draws samples
 * j = threadIdx.x, threadIdx.x + blockDim.x ... by binary search (first category
 * whose cumulative probability is >= u). */
template <typename P>
__device__ inline void cg_multinomial_rep(cg_index rows, cg_index ncat, cg_index k,
                                          const P* probs, double* cdf, cg_index* out,
                                          cg_u64 seed, cg_u64 offset)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        double* c = cdf + r * ncat;
        if (threadIdx.x == 0) {
            double acc = 0.0;
            for (cg_index j = 0; j < ncat; ++j) {
                acc += cg_get<P>(probs + r * ncat + j);
                c[j] = acc;
            }
            for (cg_index j = 0; j < ncat; ++j)
                c[j] /= acc;
            c[ncat - 1] = 1.0;
        }
        __syncthreads();
        for (cg_index j = threadIdx.x; j < k; j += blockDim.x) {
            cg_u4 b = cg_draw(seed, offset + (cg_u64)(r * k + j), 0u);
            double u = cg_u53(b.x, b.y);
            cg_index lo = 0, hi = ncat - 1;
            while (lo < hi) {
                cg_index mid = lo + (hi - lo) / 2;
                if (c[mid] >= u)
                    hi = mid;
                else
                    lo = mid + 1;
            }
            out[r * k + j] = lo;
        }
        __syncthreads();
    }
}

/* without replacement: keys p / E with E ~ Exp(1) (the exponential race); the host
 * sorts the keys of each row descending and keeps the first k indices */
template <typename P>
__device__ inline void cg_race_keys(cg_index n, const P* probs, double* keys, cg_u64 seed,
                                    cg_u64 offset)
{
    CG_GRID_LOOP(i, n) {
        cg_u4 b = cg_draw(seed, offset + (cg_u64)i, 0u);
        double e = -log1p(-cg_u53(b.x, b.y));
        /* u == 0 gives e == 0: a tiny e instead keeps 0 / e at 0 (never NaN) */
        keys[i] = cg_get<P>(probs + i) / (e > 0.0 ? e : 4.9406564584124654e-324);
    }
}

/* bad |= 1 for a negative or non-finite probability, |= 2 for a row summing to <= 0;
 * one thread per row */
template <typename P>
__device__ inline void cg_prob_check(cg_index rows, cg_index ncat, const P* probs, int* bad)
{
    CG_GRID_LOOP(r, rows) {
        double s = 0.0;
        int f = 0;
        for (cg_index j = 0; j < ncat; ++j) {
            double q = cg_get<P>(probs + r * ncat + j);
            if (!(q >= 0.0 && q - q == 0.0))     /* negative, NaN or infinite */
                f |= 1;
            s += q;
        }
        if (!(s > 0.0))
            f |= 2;
        if (f)
            atomicOr(bad, f);
    }
}

/* int64 -> any dtype, written through a geometry (randperm's output) */
template <typename T>
__device__ inline void cg_from_i64(cg_index n, const cg_geometry& g, T* out, const cg_index* in)
{
    CG_GRID_LOOP(i, n) {
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        cg_put<T>(out + oo, (double)in[i]);
    }
}

template <> __device__ inline void cg_from_i64<cg_index>(cg_index n, const cg_geometry& g,
                                                         cg_index* out, const cg_index* in)
{
    CG_GRID_LOOP(i, n) {
        cg_index oo, oa;
        cg_rand_offsets(g, i, &oo, &oa);
        out[oo] = in[i];
    }
}

/* ---- the extern "C" kernels ---- */

#define CG_FLOAT_FILLS(S, T, WIDE)                                                                \
    extern "C" __global__ void cg_uniform_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed,     \
                                              cg_u64 offset, double low, double high)             \
    {                                                                                             \
        cg_uniform<T>(n, g, out, seed, offset, low, high, WIDE);                                  \
    }                                                                                             \
    extern "C" __global__ void cg_normal_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed,      \
                                             cg_u64 offset, double mean, double std)              \
    {                                                                                             \
        cg_normal<T>(n, g, out, seed, offset, mean, std, WIDE);                                   \
    }                                                                                             \
    extern "C" __global__ void cg_exponential_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed, \
                                                  cg_u64 offset, double a, double b)              \
    {                                                                                             \
        cg_dist<T, cg_exponential>(n, g, out, seed, offset, a, b);                                \
    }                                                                                             \
    extern "C" __global__ void cg_cauchy_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed,      \
                                             cg_u64 offset, double a, double b)                   \
    {                                                                                             \
        cg_dist<T, cg_cauchy>(n, g, out, seed, offset, a, b);                                     \
    }                                                                                             \
    extern "C" __global__ void cg_log_normal_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed,  \
                                                 cg_u64 offset, double mean, double std)          \
    {                                                                                             \
        cg_log_normal<T>(n, g, out, seed, offset, mean, std);                                     \
    }                                                                                             \
    extern "C" __global__ void cg_poisson_##S(cg_index n, cg_geometry g, T* out, const T* rates,  \
                                              cg_u64 seed, cg_u64 offset, int* bad)               \
    {                                                                                             \
        cg_poisson<T>(n, g, out, rates, seed, offset, bad);                                       \
    }

#define CG_ANY_FILLS(S, T)                                                                        \
    extern "C" __global__ void cg_geometric_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed,   \
                                                cg_u64 offset, double a, double b)                \
    {                                                                                             \
        cg_dist<T, cg_geometric>(n, g, out, seed, offset, a, b);                                  \
    }                                                                                             \
    extern "C" __global__ void cg_integers_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed,    \
                                               cg_u64 offset, cg_u64 span, cg_index low, int wide) \
    {                                                                                             \
        cg_integers<T>(n, g, out, seed, offset, span, low, wide);                                 \
    }                                                                                             \
    extern "C" __global__ void cg_bernoulli_##S(cg_index n, cg_geometry g, T* out, cg_u64 seed,   \
                                                cg_u64 offset, double p)                          \
    {                                                                                             \
        cg_bernoulli_scalar<T>(n, g, out, seed, offset, p);                                       \
    }                                                                                             \
    extern "C" __global__ void cg_bernoulli_##S##_pf32(cg_index n, cg_geometry g, T* out,         \
                                                       const float* p, cg_u64 seed,               \
                                                       cg_u64 offset, int* bad)                   \
    {                                                                                             \
        cg_bernoulli_tensor<T, float>(n, g, out, p, seed, offset, bad);                           \
    }                                                                                             \
    extern "C" __global__ void cg_bernoulli_##S##_pf64(cg_index n, cg_geometry g, T* out,         \
                                                       const double* p, cg_u64 seed,              \
                                                       cg_u64 offset, int* bad)                   \
    {                                                                                             \
        cg_bernoulli_tensor<T, double>(n, g, out, p, seed, offset, bad);                          \
    }                                                                                             \
    extern "C" __global__ void cg_from_i64_##S(cg_index n, cg_geometry g, T* out,                 \
                                               const cg_index* in)                                \
    {                                                                                             \
        cg_from_i64<T>(n, g, out, in);                                                            \
    }

CG_FLOAT_FILLS(f32, float, false)
CG_FLOAT_FILLS(f64, double, true)
CG_FLOAT_FILLS(f16, __half, false)
CG_FLOAT_FILLS(bf16, __nv_bfloat16, false)

CG_ANY_FILLS(f32, float)
CG_ANY_FILLS(f64, double)
CG_ANY_FILLS(f16, __half)
CG_ANY_FILLS(bf16, __nv_bfloat16)
CG_ANY_FILLS(i64, cg_index)
CG_ANY_FILLS(i32, int)
CG_ANY_FILLS(i16, short)
CG_ANY_FILLS(i8, signed char)
CG_ANY_FILLS(u8, unsigned char)
CG_ANY_FILLS(b8, bool)

#define CG_MULTINOMIAL(S, P)                                                                      \
    extern "C" __global__ void cg_multinomial_rep_##S(cg_index rows, cg_index ncat, cg_index k,   \
                                                      const P* probs, double* cdf,                \
                                                      cg_index* out, cg_u64 seed, cg_u64 offset)  \
    {                                                                                             \
        cg_multinomial_rep<P>(rows, ncat, k, probs, cdf, out, seed, offset);                      \
    }                                                                                             \
    extern "C" __global__ void cg_race_keys_##S(cg_index n, const P* probs, double* keys,         \
                                                cg_u64 seed, cg_u64 offset)                       \
    {                                                                                             \
        cg_race_keys<P>(n, probs, keys, seed, offset);                                            \
    }                                                                                             \
    extern "C" __global__ void cg_prob_check_##S(cg_index rows, cg_index ncat, const P* probs,    \
                                                 int* bad)                                        \
    {                                                                                             \
        cg_prob_check<P>(rows, ncat, probs, bad);                                                 \
    }

CG_MULTINOMIAL(f32, float)
CG_MULTINOMIAL(f64, double)
CG_MULTINOMIAL(f16, __half)
CG_MULTINOMIAL(bf16, __nv_bfloat16)
