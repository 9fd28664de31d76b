/* Factory fills and tie weights of cygrad on the device.
 *
 *   cg_arange_<dtype>(n, out, start, step)          out[i] = start + i * step
 *   cg_linspace_<dtype>(n, out, start, end, step)   evenly spaced, two-sided walk
 *   cg_logspace_<dtype>(n, out, start, end, step, base)  base ** linspace
 *   cg_tie_weights_<dtype>(rows, cols, g, out, x, r, nan_ties)
 *
 * dtype: f16 (__half), bf16 (__nv_bfloat16), f32, f64, u8, i8, i16, i32, i64.
 *
 * The fills reproduce the CPU kernels' arithmetic (cygrad/_core/backend_cpu/
 * creation.py), which is PyTorch's CPU arithmetic, bit for bit:
 *   - arange counts in double for float32/float64, in float for float16/bfloat16
 *     (then rounded once), in wrapping 64-bit integers for integer dtypes;
 *   - linspace walks the first half up from start and the second half down from
 *     end, in the result dtype for floats (float16/bfloat16: each operation done
 *     in float and rounded to the dtype, as NumPy's half arithmetic does), in
 *     double for integers; logspace raises base to those exponents in double;
 *   - products and sums are the correctly rounded operations (__dmul_rn ... on the
 *     GPU, where nvcc would otherwise fuse a * b + c into one FMA and round once);
 *   - a double becomes an integer as x86-64's conversions do (the CPU reference):
 *     through a 32-bit conversion for types of 32 bits or fewer, truncated to the
 *     type's width; a value out of range (or NaN) gives INT_MIN / INT64_MIN.
 * One thread per element, grid-stride loops, 64-bit indices.
 *
 * tie_weights: for each slice (row) of x over the reduced dims, 1/k at the k
 * elements equal to the slice's result r (NaN matching NaN when nan_ties), 0
 * elsewhere; 0/0 (NaN) in a slice with no match, as the CPU kernel. One block per
 * row (grid-stride over rows): the block counts its hits in shared memory
 * (a tree over the block's threads with __syncthreads()), then writes. The
 * element offsets come from a cg_geometry (as elementwise.cu's): the kept dims
 * then the reduced dims, with the strides of out, x and r (0 along reduced dims).
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"

#define CG_TIE_BLOCK 256     /* threads per block of cg_tie_weights (kernels.BLOCK) */

__device__ inline cg_index cg_cr_first() { return (cg_index)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline cg_index cg_cr_stride() { return (cg_index)blockDim.x * gridDim.x; }

/* ---- correctly rounded operations (no FMA contraction on the GPU) ---------- */

__device__ inline double cg_mul(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dmul_rn(a, b);
#else
    return a * b;
#endif
}
__device__ inline double cg_add(double a, double b)
{
#ifdef __CUDA_ARCH__
    return __dadd_rn(a, b);
#else
    return a + b;
#endif
}
__device__ inline float cg_mul(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fmul_rn(a, b);
#else
    return a * b;
#endif
}
__device__ inline float cg_add(float a, float b)
{
#ifdef __CUDA_ARCH__
    return __fadd_rn(a, b);
#else
    return a + b;
#endif
}

/* ---- storing a value into each dtype ------------------------------------------ */

union cg_fbits { float f; unsigned int u; };
__device__ inline unsigned int cg_f2u(float f) { cg_fbits v; v.f = f; return v.u; }
__device__ inline float cg_u2f(unsigned int u) { cg_fbits v; v.u = u; return v.f; }

/* A double rounded to float with round-to-odd: rounding that float to a narrower
 * type (half, bfloat16) then gives the correctly rounded result of the double. */
__device__ inline float cg_round_odd(double d)
{
    float f = (float)d;
    if (d == d && (double)f != d) {
        if (fabs((double)f) > fabs(d))
            f = cg_u2f(cg_f2u(f) - 1u);      /* one step toward zero: the truncation */
        f = cg_u2f(cg_f2u(f) | 1u);
    }
    return f;
}

/* x86-64's double -> integer conversions (cvttsd2si), which the CPU kernels use. */
__device__ inline int cg_d2i32(double v)
{
    return (v > -2147483649.0 && v < 2147483648.0) ? (int)v : (int)0x80000000u;
}
__device__ inline long long cg_d2i64(double v)
{
    return (v >= -9223372036854775808.0 && v < 9223372036854775808.0)
        ? (long long)v : (long long)0x8000000000000000ull;
}

/* out = a double (linspace/logspace results) */
__device__ inline void cg_store_d(float* p, double v) { *p = (float)v; }
__device__ inline void cg_store_d(double* p, double v) { *p = v; }
__device__ inline void cg_store_d(__half* p, double v)
{
    *p = __float2half_rn(cg_round_odd(v));
}
__device__ inline void cg_store_d(__nv_bfloat16* p, double v)
{
    *p = __float2bfloat16_rn(cg_round_odd(v));
}
/* (the low bits of the 32-bit conversion, as a C cast from int) */
__device__ inline void cg_store_d(unsigned char* p, double v) { *p = (unsigned char)cg_d2i32(v); }
__device__ inline void cg_store_d(signed char* p, double v) { *p = (signed char)cg_d2i32(v); }
__device__ inline void cg_store_d(short* p, double v) { *p = (short)cg_d2i32(v); }
__device__ inline void cg_store_d(int* p, double v) { *p = cg_d2i32(v); }
__device__ inline void cg_store_d(long long* p, double v) { *p = cg_d2i64(v); }

/* out = a wrapped 64-bit integer (integer arange): the low bits, as a C cast */
template <typename T>
__device__ inline void cg_store_u64(T* p, unsigned long long v) { *p = (T)(long long)v; }

/* ---- arange ---------------------------------------------------------------------- */

template <typename T>
__device__ inline void cg_arange_double(cg_index n, T* out, double start, double step)
{
    for (cg_index i = cg_cr_first(); i < n; i += cg_cr_stride())
        cg_store_d(out + i, cg_add(start, cg_mul(step, (double)i)));
}

/* float16/bfloat16: counted in float, rounded once */
template <typename T>
__device__ inline void cg_arange_float(cg_index n, T* out, float start, float step)
{
    for (cg_index i = cg_cr_first(); i < n; i += cg_cr_stride())
        cg_store_d(out + i, (double)cg_add(start, cg_mul(step, (float)i)));
}

template <typename T>
__device__ inline void cg_arange_int(cg_index n, T* out, long long start, long long step)
{
    for (cg_index i = cg_cr_first(); i < n; i += cg_cr_stride())
        cg_store_u64(out + i, (unsigned long long)start
                                  + (unsigned long long)step * (unsigned long long)i);
}

/* ---- linspace ---------------------------------------------------------------------- */

/* Rounding of a float result to the dtype, for the half types' arithmetic. */
struct cg_round_id { template <typename A> __device__ A operator()(A x) const { return x; } };
struct cg_round_f16 {
    __device__ float operator()(float x) const { return __half2float(__float2half_rn(x)); }
};
struct cg_round_bf16 {
    __device__ float operator()(float x) const { return __bfloat162float(__float2bfloat16_rn(x)); }
};

/* floats: in the dtype (A is float or double; Round rounds each result to the dtype) */
template <typename T, typename A, typename Round>
__device__ inline void cg_linspace_in(cg_index n, T* out, A start, A end, A step)
{
    const Round rd;
    const cg_index half = n / 2;
    for (cg_index i = cg_cr_first(); i < n; i += cg_cr_stride()) {
        A v;
        if (i < half)
            v = rd(cg_add(start, rd(cg_mul(step, rd((A)i)))));
        else
            v = rd(cg_add(end, -rd(cg_mul(step, rd((A)(n - 1 - i))))));
        cg_store_d(out + i, (double)v);
    }
}

/* the exponents of logspace, and integer linspace: in double */
__device__ inline double cg_walk(cg_index n, cg_index i, double start, double end, double step)
{
    return i < n / 2 ? cg_add(start, cg_mul(step, (double)i))
                     : cg_add(end, -cg_mul(step, (double)(n - 1 - i)));
}

template <typename T>
__device__ inline void cg_linspace_dbl(cg_index n, T* out, double start, double end, double step)
{
    for (cg_index i = cg_cr_first(); i < n; i += cg_cr_stride())
        cg_store_d(out + i, cg_walk(n, i, start, end, step));
}

template <typename T>
__device__ inline void cg_logspace(cg_index n, T* out, double start, double end, double step,
                                   double base)
{
    for (cg_index i = cg_cr_first(); i < n; i += cg_cr_stride())
        cg_store_d(out + i, pow(base, cg_walk(n, i, start, end, step)));
}

/* ---- tie weights -------------------------------------------------------------------- */

__device__ inline double cg_load(const float* p) { return *p; }
__device__ inline double cg_load(const double* p) { return *p; }
__device__ inline double cg_load(const __half* p) { return __half2float(*p); }
__device__ inline double cg_load(const __nv_bfloat16* p) { return __bfloat162float(*p); }

__device__ inline void cg_tie_offsets(const cg_geometry& g, cg_index i, cg_index* oo,
                                      cg_index* ox, cg_index* orr)
{
    cg_index o = 0, a = 0, b = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
        const cg_index size = g.shape[d];
        const cg_index k = i % size;
        i /= size;
        o += k * g.stride_out[d];
        a += k * g.stride_a[d];
        b += k * g.stride_b[d];
    }
    *oo = o;
    *ox = a;
    *orr = b;
}

template <typename T>
__device__ inline void cg_tie_weights(cg_index rows, cg_index cols, const cg_geometry& g, T* out,
                                      const T* x, const T* r, int nan_ties)
{
    __shared__ cg_index counts[CG_TIE_BLOCK];
    const int tid = threadIdx.x;
    for (cg_index row = blockIdx.x; row < rows; row += gridDim.x) {
        cg_index hits = 0;
        for (cg_index c = tid; c < cols; c += blockDim.x) {
            cg_index oo, ox, orr;
            cg_tie_offsets(g, row * cols + c, &oo, &ox, &orr);
            const double a = cg_load(x + ox), b = cg_load(r + orr);
            hits += (a == b || (nan_ties && a != a && b != b)) ? 1 : 0;
        }
        counts[tid] = hits;
        __syncthreads();
        for (int s = blockDim.x / 2; s > 0; s >>= 1) {
            if (tid < s)
                counts[tid] += counts[tid + s];
            __syncthreads();
        }
        const double total = (double)counts[0];
        __syncthreads();             /* counts[0] is read by all before the next row */
        for (cg_index c = tid; c < cols; c += blockDim.x) {
            cg_index oo, ox, orr;
            cg_tie_offsets(g, row * cols + c, &oo, &ox, &orr);
            const double a = cg_load(x + ox), b = cg_load(r + orr);
            const bool hit = a == b || (nan_ties && a != a && b != b);
            cg_store_d(out + oo, (hit ? 1.0 : 0.0) / total);
        }
    }
}

/* ---- the extern "C" entry points ------------------------------------------------- */

#define CG_SPACE_KERNELS(SUFFIX, T)                                                             \
    extern "C" __global__ void cg_logspace_##SUFFIX(cg_index n, T* out, double start,           \
                                                    double end, double step, double base)       \
    {                                                                                           \
        cg_logspace<T>(n, out, start, end, step, base);                                         \
    }

/* A: the arithmetic type of arange (AR, the fill ARANGE) and of linspace (AL, each
 * result rounded by ROUND) */
#define CG_FLOAT_KERNELS(SUFFIX, T, AR, ARANGE, AL, ROUND)                                      \
    CG_SPACE_KERNELS(SUFFIX, T)                                                                 \
    extern "C" __global__ void cg_arange_##SUFFIX(cg_index n, T* out, AR start, AR step)        \
    {                                                                                           \
        ARANGE<T>(n, out, start, step);                                                         \
    }                                                                                           \
    extern "C" __global__ void cg_linspace_##SUFFIX(cg_index n, T* out, AL start, AL end,       \
                                                    AL step)                                    \
    {                                                                                           \
        cg_linspace_in<T, AL, ROUND>(n, out, start, end, step);                                 \
    }                                                                                           \
    extern "C" __global__ void cg_tie_weights_##SUFFIX(cg_index rows, cg_index cols,            \
                                                       cg_geometry g, T* out, const T* x,       \
                                                       const T* r, int nan_ties)                \
    {                                                                                           \
        cg_tie_weights<T>(rows, cols, g, out, x, r, nan_ties);                                  \
    }

#define CG_INT_KERNELS(SUFFIX, T)                                                               \
    CG_SPACE_KERNELS(SUFFIX, T)                                                                 \
    extern "C" __global__ void cg_arange_##SUFFIX(cg_index n, T* out, long long start,          \
                                                  long long step)                               \
    {                                                                                           \
        cg_arange_int<T>(n, out, start, step);                                                  \
    }                                                                                           \
    extern "C" __global__ void cg_linspace_##SUFFIX(cg_index n, T* out, double start,           \
                                                    double end, double step)                    \
    {                                                                                           \
        cg_linspace_dbl<T>(n, out, start, end, step);                                           \
    }

CG_FLOAT_KERNELS(f32, float, double, cg_arange_double, float, cg_round_id)
CG_FLOAT_KERNELS(f64, double, double, cg_arange_double, double, cg_round_id)
CG_FLOAT_KERNELS(f16, __half, float, cg_arange_float, float, cg_round_f16)
CG_FLOAT_KERNELS(bf16, __nv_bfloat16, float, cg_arange_float, float, cg_round_bf16)
CG_INT_KERNELS(u8, unsigned char)
CG_INT_KERNELS(i8, signed char)
CG_INT_KERNELS(i16, short)
CG_INT_KERNELS(i32, int)
CG_INT_KERNELS(i64, long long)
