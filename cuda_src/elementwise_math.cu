/* Every elementwise op of cygrad's dispatcher table on CUDA, in every dtype it
 * applies to, plus dtype casts, fills, masked assignment, nan_to_num, frexp and
 * tril/triu's zeroing (cygrad/cuda/ops/elementwise.py launches them).
 *
 * Naming: cg_<op>_<dtype>_strided with dtype b8 (bool), u8, i8, i16, i32, i64,
 * f16, bf16, f32, f64, c64, c128; casts are cg_cast_<from>_<to>_strided. Kernels
 * that only move bytes (same-dtype copy, masked assignment, triangle zeroing)
 * exist once per element size and carry the suffix of an integer type of that
 * size (u8, i16, i32, i64) or c128 for 16 bytes.
 *
 * Every kernel takes (n, cg_geometry g, out, a[, b], ...): g holds the shape and
 * each operand's strides in elements (0 = broadcast, negative = flipped); the
 * pointers already include the tensors' offsets. Grid-stride loops with 64-bit
 * indices, so any grid covers any n. The host merges dims that are contiguous in
 * every operand, so a dense tensor is one dim and its index arithmetic is cheap.
 *
 * Storage and compute types: float16 and bfloat16 are stored as __half and
 * __nv_bfloat16 and computed in float (PyTorch's opmath); bool is one byte,
 * read as "nonzero"; complex numbers are pairs of float or double. Integer add,
 * sub, mul, neg, abs, square and pow wrap around (through unsigned arithmetic:
 * signed overflow is undefined in C++), as on the CPU.
 *
 * Integer floor_divide/remainder/fmod write 0 where the divisor is 0 and set
 * *err, which the host reads back to raise PyTorch's CPU error.
 *
 * No __restrict__: in-place ops (x.sin_()) pass out == a.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"
#include "cg_io.cuh"

struct cg_bool { unsigned char v; };
typedef unsigned char cg_u8;
typedef signed char cg_i8;
typedef long long cg_i64;
template <typename R> struct alignas(2 * sizeof(R)) cg_complex { R re, im; };
typedef cg_complex<float> cg_c64;
typedef cg_complex<double> cg_c128;

/* Element offsets of the i-th element (row-major over shape) in each operand. The
 * outermost dim needs no division (i is below its size by then), so a tensor the
 * host merged into one dim costs no 64-bit division at all. */
__device__ inline void cg_offsets(const cg_geometry& g, cg_index i,
                                  cg_index* off_out, cg_index* off_a, cg_index* off_b)
{
    cg_index o = 0, a = 0, b = 0;
    for (int d = g.ndim - 1; d > 0; --d) {
        const cg_index size = g.shape[d];
        const cg_index k = i % size;
        i /= size;
        o += k * g.stride_out[d];
        a += k * g.stride_a[d];
        b += k * g.stride_b[d];
    }
    if (g.ndim > 0) {
        o += i * g.stride_out[0];
        a += i * g.stride_a[0];
        b += i * g.stride_b[0];
    }
    *off_out = o;
    *off_a = a;
    *off_b = b;
}

__device__ inline cg_index cg_first_index() { return (cg_index)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline cg_index cg_grid_stride() { return (cg_index)blockDim.x * gridDim.x; }

/* ---- storage <-> compute types ------------------------------------------------ */

/* cg_io (cg_io.cuh), and this file's bool: a byte computed as bool */
template <> struct cg_io<cg_bool> {
    typedef bool C;
    __device__ static bool ld(cg_bool v) { return v.v != 0; }
    __device__ static cg_bool st(bool v) { cg_bool r; r.v = v ? 1 : 0; return r; }
};

/* 0: integer, 1: floating, 2: bool, 3: complex (of the compute type) */
template <typename T> struct cg_kind { static const int value = 0; };
template <> struct cg_kind<float> { static const int value = 1; };
template <> struct cg_kind<double> { static const int value = 1; };
template <> struct cg_kind<bool> { static const int value = 2; };
template <typename R> struct cg_kind<cg_complex<R> > { static const int value = 3; };

/* x < 0, spelled so that no unsigned instantiation compares with zero */
template <typename T> __device__ inline bool cg_neg(T x)
{
    if constexpr (T(-1) > T(0)) return false;
    else return x < T(0);
}

/* the unsigned type that integer arithmetic wraps in */
template <typename T> struct cg_wrap { typedef T U; };
template <> struct cg_wrap<int> { typedef unsigned int U; };
template <> struct cg_wrap<long long> { typedef unsigned long long U; };
template <> struct cg_wrap<short> { typedef unsigned int U; };
template <> struct cg_wrap<signed char> { typedef unsigned int U; };
template <> struct cg_wrap<unsigned char> { typedef unsigned int U; };

/* A value of compute type S converted to compute type D, as the CPU's casts do:
 * to bool is "nonzero" (NaN is true), complex to real keeps the real part, and
 * floating to integer goes through int64 (so out-of-range values wrap the way
 * the host's conversions do, instead of being undefined). */
template <typename D, typename S> __device__ inline D cg_convert(S v)
{
    if constexpr (cg_kind<S>::value == 3) {
        if constexpr (cg_kind<D>::value == 3) {
            D r; r.re = v.re; r.im = v.im; return r;
        } else if constexpr (cg_kind<D>::value == 2) {
            return v.re != 0 || v.im != 0;
        } else {
            return cg_convert<D>(v.re);
        }
    } else if constexpr (cg_kind<D>::value == 3) {
        D r; r.re = (decltype(r.re))v; r.im = 0; return r;
    } else if constexpr (cg_kind<D>::value == 2) {
        return v != S(0);
    } else if constexpr (cg_kind<D>::value == 0 && cg_kind<S>::value == 1) {
        return (D)(long long)v;
    } else {
        return (D)v;
    }
}

/* ---- float/double math --------------------------------------------------------- */

#define CG_M1(NAME, F, D)                                             \
    __device__ inline float cg_##NAME(float x) { return F(x); }      \
    __device__ inline double cg_##NAME(double x) { return D(x); }
CG_M1(exp, expf, exp) CG_M1(exp2, exp2f, exp2) CG_M1(expm1, expm1f, expm1)
CG_M1(log, logf, log) CG_M1(log2, log2f, log2) CG_M1(log10, log10f, log10)
CG_M1(log1p, log1pf, log1p) CG_M1(sqrt, sqrtf, sqrt) CG_M1(sin, sinf, sin)
CG_M1(cos, cosf, cos) CG_M1(tan, tanf, tan) CG_M1(asin, asinf, asin)
CG_M1(acos, acosf, acos) CG_M1(atan, atanf, atan) CG_M1(sinh, sinhf, sinh)
CG_M1(cosh, coshf, cosh) CG_M1(tanh, tanhf, tanh) CG_M1(asinh, asinhf, asinh)
CG_M1(acosh, acoshf, acosh) CG_M1(atanh, atanhf, atanh) CG_M1(erf, erff, erf)
CG_M1(erfc, erfcf, erfc) CG_M1(floor, floorf, floor) CG_M1(ceil, ceilf, ceil)
CG_M1(trunc, truncf, trunc) CG_M1(rint, rintf, rint) CG_M1(fabs, fabsf, fabs)
CG_M1(lgamma, lgammaf, lgamma)
#define CG_M2(NAME, F, D)                                                        \
    __device__ inline float cg_##NAME(float x, float y) { return F(x, y); }     \
    __device__ inline double cg_##NAME(double x, double y) { return D(x, y); }
CG_M2(fmod, fmodf, fmod) CG_M2(atan2, atan2f, atan2) CG_M2(hypot, hypotf, hypot)
CG_M2(pow, powf, pow) CG_M2(copysign, copysignf, copysign)
CG_M2(nextafter, nextafterf, nextafter)

/* x - x is 0 for finite x and NaN for inf and NaN (no <cmath> macros needed) */
template <typename T> __device__ inline bool cg_isnan(T x) { return x != x; }
template <typename T> __device__ inline bool cg_isfinite(T x) { return x - x == T(0); }
template <typename T> __device__ inline bool cg_isinf(T x) { return x == x && !(x - x == T(0)); }

/* ---- complex arithmetic ---------------------------------------------------------- */

template <typename R> __device__ inline cg_complex<R> cg_cx(R re, R im)
{
    cg_complex<R> z; z.re = re; z.im = im; return z;
}
template <typename R> __device__ inline cg_complex<R> cg_cmul(cg_complex<R> a, cg_complex<R> b)
{
    return cg_cx<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}
/* Smith's division: no overflow of |b|^2 for large b */
template <typename R> __device__ inline cg_complex<R> cg_cdiv(cg_complex<R> a, cg_complex<R> b)
{
    if (cg_fabs(b.re) >= cg_fabs(b.im)) {
        if (b.re == R(0) && b.im == R(0))
            return cg_cx<R>(a.re / cg_fabs(b.re), a.im / cg_fabs(b.im));
        const R r = b.im / b.re, d = b.re + b.im * r;
        return cg_cx<R>((a.re + a.im * r) / d, (a.im - a.re * r) / d);
    }
    const R r = b.re / b.im, d = b.im + b.re * r;
    return cg_cx<R>((a.re * r + a.im) / d, (a.im * r - a.re) / d);
}
template <typename R> __device__ inline R cg_cabs(cg_complex<R> z) { return cg_hypot(z.re, z.im); }
template <typename R> __device__ inline cg_complex<R> cg_cexp(cg_complex<R> z)
{
    const R e = cg_exp(z.re);
    if (z.im == R(0)) return cg_cx<R>(e, z.im);
    return cg_cx<R>(e * cg_cos(z.im), e * cg_sin(z.im));
}
template <typename R> __device__ inline cg_complex<R> cg_clog(cg_complex<R> z)
{
    return cg_cx<R>(cg_log(cg_cabs(z)), cg_atan2(z.im, z.re));
}
template <typename R> __device__ inline cg_complex<R> cg_csqrt(cg_complex<R> z)
{
    if (z.re == R(0) && z.im == R(0)) return cg_cx<R>(R(0), z.im);
    const R t = cg_sqrt((cg_fabs(z.re) + cg_cabs(z)) * R(0.5));
    if (z.re >= R(0)) return cg_cx<R>(t, z.im / (R(2) * t));
    return cg_cx<R>(cg_fabs(z.im) / (R(2) * t), cg_copysign(t, z.im));
}
template <typename R> __device__ inline cg_complex<R> cg_csinh(cg_complex<R> z)
{
    return cg_cx<R>(cg_sinh(z.re) * cg_cos(z.im), cg_cosh(z.re) * cg_sin(z.im));
}
template <typename R> __device__ inline cg_complex<R> cg_ccosh(cg_complex<R> z)
{
    return cg_cx<R>(cg_cosh(z.re) * cg_cos(z.im), cg_sinh(z.re) * cg_sin(z.im));
}
/* tanh(a+bi) = (sinh 2a + i sin 2b) / (cosh 2a + cos 2b); past |a| = 20 the real
 * part is +-1 and the imaginary part underflows, where the formula gives inf/inf */
template <typename R> __device__ inline cg_complex<R> cg_ctanh(cg_complex<R> z)
{
    if (cg_fabs(z.re) > R(20)) {
        const R e = cg_exp(R(-2) * cg_fabs(z.re));
        return cg_cx<R>(cg_copysign(R(1), z.re), R(4) * cg_sin(z.im) * cg_cos(z.im) * e);
    }
    const R d = cg_cosh(R(2) * z.re) + cg_cos(R(2) * z.im);
    return cg_cx<R>(cg_sinh(R(2) * z.re) / d, cg_sin(R(2) * z.im) / d);
}
template <typename R> __device__ inline cg_complex<R> cg_cone() { return cg_cx<R>(R(1), R(0)); }

/* ---- the operations: one functor each ---------------------------------------------
 * A template operator() serves the real compute types it is instantiated for;
 * an overload on cg_complex<R> serves the complex ones. */

#define CG_REAL_U(NAME, EXPR) \
    struct cg_u_##NAME { template <typename T> __device__ T operator()(T x) const { return EXPR; } };
#define CG_CPLX_U(NAME, EXPR, CEXPR)                                                    \
    struct cg_u_##NAME {                                                                \
        template <typename T> __device__ T operator()(T x) const { return EXPR; }       \
        template <typename R> __device__ cg_complex<R> operator()(cg_complex<R> z) const \
        {                                                                               \
            return CEXPR;                                                               \
        }                                                                               \
    };

CG_CPLX_U(exp, cg_exp(x), cg_cexp(z))
CG_CPLX_U(exp2, cg_exp2(x), cg_cexp(cg_cx<R>(z.re * R(0.6931471805599453), z.im * R(0.6931471805599453))))
/* expm1(a+bi) = expm1(a) cos b - 2 sin^2(b/2) + i e^a sin b: exact near 0 */
CG_CPLX_U(expm1, cg_expm1(x),
          cg_cx<R>(cg_expm1(z.re) * cg_cos(z.im) - R(2) * cg_sin(z.im / R(2)) * cg_sin(z.im / R(2)),
                   cg_exp(z.re) * cg_sin(z.im)))
CG_CPLX_U(log, cg_log(x), cg_clog(z))
CG_CPLX_U(log2, cg_log2(x), cg_cx<R>(cg_clog(z).re * R(1.4426950408889634), cg_clog(z).im * R(1.4426950408889634)))
CG_CPLX_U(log10, cg_log10(x), cg_cx<R>(cg_clog(z).re * R(0.4342944819032518), cg_clog(z).im * R(0.4342944819032518)))
CG_CPLX_U(log1p, cg_log1p(x), cg_cx<R>(cg_log(cg_hypot(z.re + R(1), z.im)), cg_atan2(z.im, z.re + R(1))))
CG_CPLX_U(sqrt, cg_sqrt(x), cg_csqrt(z))
CG_CPLX_U(rsqrt, T(1) / cg_sqrt(x), cg_cdiv(cg_cone<R>(), cg_csqrt(z)))
CG_CPLX_U(sin, cg_sin(x), cg_cx<R>(cg_sin(z.re) * cg_cosh(z.im), cg_cos(z.re) * cg_sinh(z.im)))
CG_CPLX_U(cos, cg_cos(x), cg_cx<R>(cg_cos(z.re) * cg_cosh(z.im), -cg_sin(z.re) * cg_sinh(z.im)))
/* tan z = -i tanh(iz) */
CG_CPLX_U(tan, cg_tan(x), cg_cx<R>(cg_ctanh(cg_cx<R>(-z.im, z.re)).im, -cg_ctanh(cg_cx<R>(-z.im, z.re)).re))
CG_CPLX_U(sinh, cg_sinh(x), cg_csinh(z))
CG_CPLX_U(cosh, cg_cosh(x), cg_ccosh(z))
CG_CPLX_U(tanh, cg_tanh(x), cg_ctanh(z))
/* 1 / (1 + e^-x): e^-x overflows to inf for very negative x and gives the limit 0 */
CG_CPLX_U(sigmoid, T(1) / (T(1) + cg_exp(-x)),
          cg_cdiv(cg_cone<R>(), cg_cx<R>(R(1) + cg_cexp(cg_cx<R>(-z.re, -z.im)).re,
                                         cg_cexp(cg_cx<R>(-z.re, -z.im)).im)))
CG_CPLX_U(reciprocal, T(1) / x, cg_cdiv(cg_cone<R>(), z))
/* The inverse functions of complex numbers by Kahan's formulas ("Branch cuts for
 * complex elementary functions", 1987), which keep the branch cuts of C99 and
 * NumPy and lose no accuracy near 0 or 1: asin(z) = atan2(x, Re(s- s+)) +
 * i asinh(Im(conj(s-) s+)) with s-+ = sqrt(1 -+ z), and so on. */
template <typename R> __device__ inline cg_complex<R> cg_casin(cg_complex<R> z)
{
    const cg_complex<R> a = cg_csqrt(cg_cx<R>(R(1) - z.re, -z.im)), b = cg_csqrt(cg_cx<R>(R(1) + z.re, z.im));
    return cg_cx<R>(cg_atan2(z.re, a.re * b.re - a.im * b.im), cg_asinh(a.re * b.im - a.im * b.re));
}
template <typename R> __device__ inline cg_complex<R> cg_cacos(cg_complex<R> z)
{
    const cg_complex<R> a = cg_csqrt(cg_cx<R>(R(1) - z.re, -z.im)), b = cg_csqrt(cg_cx<R>(R(1) + z.re, z.im));
    return cg_cx<R>(R(2) * cg_atan2(a.re, b.re), cg_asinh(b.re * a.im - b.im * a.re));
}
template <typename R> __device__ inline cg_complex<R> cg_cacosh(cg_complex<R> z)
{
    const cg_complex<R> a = cg_csqrt(cg_cx<R>(z.re - R(1), z.im)), b = cg_csqrt(cg_cx<R>(z.re + R(1), z.im));
    return cg_cx<R>(cg_asinh(a.re * b.re + a.im * b.im), R(2) * cg_atan2(a.im, b.re));
}
/* atanh(x + iy) = log1p(4x / ((1 - x)^2 + y^2)) / 4 + i atan2(2y, (1 - x)(1 + x) - y^2) / 2 */
template <typename R> __device__ inline cg_complex<R> cg_catanh(cg_complex<R> z)
{
    const R x = z.re, y = z.im;
    return cg_cx<R>(cg_log1p(R(4) * x / ((R(1) - x) * (R(1) - x) + y * y)) / R(4),
                    cg_atan2(R(2) * y, (R(1) - x) * (R(1) + x) - y * y) / R(2));
}
/* asinh(z) = -i asin(iz), atan(z) = -i atanh(iz) */
template <typename R> __device__ inline cg_complex<R> cg_times_minus_i(cg_complex<R> w)
{
    return cg_cx<R>(w.im, -w.re);
}
CG_CPLX_U(asin, cg_asin(x), cg_casin(z))
CG_CPLX_U(acos, cg_acos(x), cg_cacos(z))
CG_CPLX_U(atan, cg_atan(x), cg_times_minus_i(cg_catanh(cg_cx<R>(-z.im, z.re))))
CG_CPLX_U(asinh, cg_asinh(x), cg_times_minus_i(cg_casin(cg_cx<R>(-z.im, z.re))))
CG_CPLX_U(acosh, cg_acosh(x), cg_cacosh(z))
CG_CPLX_U(atanh, cg_atanh(x), cg_catanh(z))
CG_REAL_U(erf, cg_erf(x)) CG_REAL_U(erfc, cg_erfc(x))
CG_REAL_U(floor, cg_floor(x)) CG_REAL_U(ceil, cg_ceil(x)) CG_REAL_U(trunc, cg_trunc(x))
CG_REAL_U(round, cg_rint(x))     /* half to even, as torch.round */
CG_REAL_U(frac, x - cg_trunc(x))
/* relu keeps NaN and -0.0 (only x < 0 becomes 0), as torch.relu */
CG_REAL_U(relu, cg_neg(x) ? T(0) : x)
struct cg_u_bitwise_not {
    template <typename T> __device__ T operator()(T x) const
    {
        if constexpr (cg_kind<T>::value == 2) return !x;
        else return (T)~x;
    }
};
CG_CPLX_U(neg, (T)(-(typename cg_wrap<T>::U)x), cg_cx<R>(-z.re, -z.im))
CG_CPLX_U(square, (T)((typename cg_wrap<T>::U)x * (typename cg_wrap<T>::U)x), cg_cmul(z, z))
CG_CPLX_U(conj_physical, x, cg_cx<R>(z.re, -z.im))
/* sign: NaN gives 0 (PyTorch), and never -0.0; bools are their own sign */
CG_REAL_U(sign, (T)((T(0) < x) - cg_neg(x)))
struct cg_u_abs {
    template <typename T> __device__ T operator()(T x) const
    {
        if constexpr (cg_kind<T>::value == 1) return cg_fabs(x);
        else return cg_neg(x) ? (T)(-(typename cg_wrap<T>::U)x) : x;
    }
    template <typename R> __device__ R operator()(cg_complex<R> z) const { return cg_cabs(z); }
};
/* sgn: z / |z| (0 for 0); the sign of a real number */
struct cg_u_sgn {
    template <typename T> __device__ T operator()(T x) const { return cg_u_sign()(x); }
    template <typename R> __device__ cg_complex<R> operator()(cg_complex<R> z) const
    {
        const R m = cg_cabs(z);
        if (m == R(0)) return cg_cx<R>(R(0), R(0));
        return cg_cx<R>(z.re / m, z.im / m);
    }
};
/* angle: pi for negative numbers, 0 otherwise (also -0.0), NaN stays NaN */
struct cg_u_angle {
    template <typename T> __device__ T operator()(T x) const
    {
        return x < T(0) ? T(3.141592653589793) : (x != x ? x : T(0));
    }
    template <typename R> __device__ R operator()(cg_complex<R> z) const { return cg_atan2(z.im, z.re); }
};
struct cg_u_logical_not {
    template <typename T> __device__ bool operator()(T x) const { return !cg_convert<bool>(x); }
};
struct cg_u_isnan {
    template <typename T> __device__ bool operator()(T x) const { return cg_isnan(x); }
    template <typename R> __device__ bool operator()(cg_complex<R> z) const
    {
        return cg_isnan(z.re) || cg_isnan(z.im);
    }
};
struct cg_u_isinf {
    template <typename T> __device__ bool operator()(T x) const { return cg_isinf(x); }
    template <typename R> __device__ bool operator()(cg_complex<R> z) const
    {
        return cg_isinf(z.re) || cg_isinf(z.im);
    }
};
struct cg_u_isfinite {
    template <typename T> __device__ bool operator()(T x) const { return cg_isfinite(x); }
    template <typename R> __device__ bool operator()(cg_complex<R> z) const
    {
        return cg_isfinite(z.re) && cg_isfinite(z.im);
    }
};

/* ---- binary ops ---- */

#define CG_WRAP2(OPR) (T)((typename cg_wrap<T>::U)a OPR (typename cg_wrap<T>::U)b)
#define CG_REAL_B(NAME, EXPR) \
    struct cg_b_##NAME { template <typename T> __device__ auto operator()(T a, T b) const { return EXPR; } };
#define CG_CPLX_B(NAME, EXPR, CEXPR)                                                        \
    struct cg_b_##NAME {                                                                    \
        template <typename T> __device__ T operator()(T a, T b) const { return EXPR; }      \
        template <typename R>                                                               \
        __device__ cg_complex<R> operator()(cg_complex<R> a, cg_complex<R> b) const          \
        {                                                                                   \
            return CEXPR;                                                                   \
        }                                                                                   \
    };

CG_CPLX_B(add, CG_WRAP2(+), cg_cx<R>(a.re + b.re, a.im + b.im))
CG_CPLX_B(sub, CG_WRAP2(-), cg_cx<R>(a.re - b.re, a.im - b.im))
CG_CPLX_B(mul, CG_WRAP2(*), cg_cmul(a, b))
CG_CPLX_B(div, a / b, cg_cdiv(a, b))
CG_REAL_B(atan2, cg_atan2(a, b))
CG_REAL_B(hypot, cg_hypot(a, b))
/* maximum/minimum propagate NaN; fmax/fmin take the other operand */
CG_REAL_B(maximum, (a != a) ? a : ((b != b) ? b : (a < b ? b : a)))
CG_REAL_B(minimum, (a != a) ? a : ((b != b) ? b : (b < a ? b : a)))
CG_REAL_B(fmax, (a != a) ? b : ((b != b) ? a : (a < b ? b : a)))
CG_REAL_B(fmin, (a != a) ? b : ((b != b) ? a : (b < a ? b : a)))
CG_REAL_B(lt, a < b) CG_REAL_B(le, a <= b) CG_REAL_B(gt, a > b) CG_REAL_B(ge, a >= b)
struct cg_b_eq {
    template <typename T> __device__ bool operator()(T a, T b) const { return a == b; }
    template <typename R> __device__ bool operator()(cg_complex<R> a, cg_complex<R> b) const
    {
        return a.re == b.re && a.im == b.im;
    }
};
struct cg_b_ne {
    template <typename T> __device__ bool operator()(T a, T b) const { return !cg_b_eq()(a, b); }
};
CG_REAL_B(logical_and, cg_convert<bool>(a) && cg_convert<bool>(b))
CG_REAL_B(logical_or, cg_convert<bool>(a) || cg_convert<bool>(b))
CG_REAL_B(logical_xor, cg_convert<bool>(a) != cg_convert<bool>(b))
CG_REAL_B(bitwise_and, (T)(a & b)) CG_REAL_B(bitwise_or, (T)(a | b)) CG_REAL_B(bitwise_xor, (T)(a ^ b))
/* shifts by the bit width or more (or by a negative amount) give 0, or the
 * sign for a right shift of a negative number, as NumPy's and PyTorch's do */
CG_REAL_B(bitwise_left_shift,
          (unsigned long long)b < 8 * sizeof(T) ? (T)((typename cg_wrap<T>::U)a << b) : T(0))
CG_REAL_B(bitwise_right_shift,
          (T)((unsigned long long)b < 8 * sizeof(T) ? (a >> b) : (cg_neg(a) ? T(-1) : T(0))))

/* Python's floor division and modulo (the result takes the divisor's sign), with
 * NumPy's float algorithm (fmod first, so the quotient is exact). Integer
 * divisors of 0 give 0 and are reported through *err. */
template <typename T> __device__ inline T cg_floor_divide(T a, T b, int* err)
{
    if constexpr (cg_kind<T>::value == 1) {
        if (b == T(0)) return a / b;
        const T mod = cg_fmod(a, b);
        T div = (a - mod) / b;
        if (mod != T(0) && ((b < T(0)) != (mod < T(0)))) div -= T(1);
        if (div == T(0)) return cg_copysign(T(0), a / b);
        T fl = cg_floor(div);
        if (div - fl > T(0.5)) fl += T(1);
        return fl;
    } else {
        if (b == T(0)) { *err = 1; return T(0); }
        if (b == T(-1)) return (T)(-(typename cg_wrap<T>::U)a);   /* INT_MIN / -1 traps */
        T q = (T)(a / b);
        if ((a % b != 0) && (cg_neg(a) != cg_neg(b))) q -= 1;
        return q;
    }
}
template <typename T> __device__ inline T cg_remainder(T a, T b, int* err)
{
    if constexpr (cg_kind<T>::value == 1) {
        if (b == T(0)) return cg_fmod(a, b);
        T mod = cg_fmod(a, b);
        if (mod != T(0)) {
            if ((b < T(0)) != (mod < T(0))) mod += b;
        } else {
            mod = cg_copysign(T(0), b);
        }
        return mod;
    } else {
        if (b == T(0)) { *err = 1; return T(0); }
        if (b == T(-1)) return T(0);
        T r = (T)(a % b);
        if (r != 0 && (cg_neg(r) != cg_neg(b))) r += b;
        return r;
    }
}
template <typename T> __device__ inline T cg_fmod(T a, T b, int* err)
{
    if constexpr (cg_kind<T>::value == 1) {
        return cg_fmod(a, b);
    } else {
        if (b == T(0)) { *err = 1; return T(0); }
        if (b == T(-1)) return T(0);
        return (T)(a % b);
    }
}
struct cg_e_floor_divide {
    template <typename T> __device__ T operator()(T a, T b, int* e) const { return cg_floor_divide(a, b, e); }
};
struct cg_e_remainder {
    template <typename T> __device__ T operator()(T a, T b, int* e) const { return cg_remainder(a, b, e); }
};
struct cg_e_fmod {
    template <typename T> __device__ T operator()(T a, T b, int* e) const { return cg_fmod(a, b, e); }
};

/* Integer powers by squaring, wrapping; a negative exponent gives 1 ** -n = 1,
 * (-1) ** -n = +-1 and 0 otherwise (PyTorch's integer pow). */
template <typename T> __device__ inline T cg_ipow(T a, T b)
{
    if (cg_neg(b)) {
        if (a == T(1)) return T(1);
        if (a == T(-1)) return (b % 2) ? T(-1) : T(1);
        return T(0);
    }
    typedef unsigned long long U;
    U base = (U)(long long)a, result = 1;
    unsigned long long e = (unsigned long long)b;
    while (e) {
        if (e & 1) result *= base;
        base *= base;
        e >>= 1;
    }
    return (T)result;
}
template <typename R> __device__ inline cg_complex<R> cg_cpow(cg_complex<R> a, cg_complex<R> b)
{
    if (b.re == R(0) && b.im == R(0)) return cg_cone<R>();
    if (a.re == R(0) && a.im == R(0)) {
        if (b.im == R(0) && b.re > R(0)) return cg_cx<R>(R(0), R(0));
    }
    if (b.im == R(0) && b.re == R(1)) return a;
    if (b.im == R(0) && b.re == R(2)) return cg_cmul(a, a);
    return cg_cexp(cg_cmul(b, cg_clog(a)));
}
struct cg_b_pow {
    template <typename T> __device__ T operator()(T a, T b) const
    {
        if constexpr (cg_kind<T>::value == 1) return cg_pow(a, b);
        else return cg_ipow(a, b);
    }
    template <typename R> __device__ cg_complex<R> operator()(cg_complex<R> a, cg_complex<R> b) const
    {
        return cg_cpow(a, b);
    }
};

/* ---- special functions (rows of cygrad/_core/special_table.py) ---------------------- */

/* digamma as the CPU's cpu/special.c computes it: reflection for x < 0, the
 * recurrence up to x >= 10, then the asymptotic series; digamma(+-0) = -+inf,
 * NaN at the negative integers and -inf */
template <typename T> __device__ inline T cg_digamma(T x)
{
    if (x != x) return x;
    if (x == T(0)) return T(-1) / x;
    T result = T(0);
    if (x < T(0)) {
        if (x == cg_trunc(x) || !cg_isfinite(x)) return cg_sqrt(T(-1));
        const T r = x - cg_rint(x);
        result = -T(3.141592653589793) / cg_tan(T(3.141592653589793) * r);
        x = T(1) - x;
    }
    if (!cg_isfinite(x)) return x;
    while (x < T(10)) {
        result -= T(1) / x;
        x += T(1);
    }
    const T z = T(1) / (x * x);
    const T poly = z * (T(1.0 / 12) + z * (T(-1.0 / 120) + z * (T(1.0 / 252) + z * (T(-1.0 / 240)
                   + z * (T(1.0 / 132) + z * (T(-691.0 / 32760) + z * T(1.0 / 12)))))));
    return result + cg_log(x) - T(0.5) / x - poly;
}
template <typename R> __device__ inline cg_complex<R> cg_csin(cg_complex<R> z)
{
    return cg_cx<R>(cg_sin(z.re) * cg_cosh(z.im), cg_cos(z.re) * cg_sinh(z.im));
}
/* erfinv: Winitzki's closed form (a = 0.147) as the first guess, then Newton
 * steps on erf(x) = y, or on erfc(x) = 1 - |y| past |y| = 0.5 (1 - |y| is exact
 * there, so the tail keeps its relative accuracy); a fixed number of steps, so
 * the threads of a warp stay together */
template <typename T> __device__ inline T cg_erfinv(T y)
{
    if (y != y) return y;
    const T ay = cg_fabs(y);
    if (ay >= T(1)) return ay == T(1) ? cg_copysign(-cg_log(T(0)), y) : cg_sqrt(T(-1));
    const T l = cg_log((T(1) - y) * (T(1) + y)), a = T(0.147);
    const T u = T(2) / (T(3.141592653589793) * a) + l / T(2);
    T x = cg_sqrt(cg_sqrt(u * u - l / a) - u);
    const T k = T(1.1283791670955126);       /* 2 / sqrt(pi) */
    const int steps = sizeof(T) == 8 ? 4 : 3;
    for (int s = 0; s < steps; ++s) {
        const T f = ay > T(0.5) ? (T(1) - ay) - cg_erfc(x) : cg_erf(x) - ay;
        x -= f / (k * cg_exp(-x * x));
    }
    return cg_copysign(x, y);
}
/* Hurwitz zeta sum_k (k + q)^-s: the first N terms summed, the rest by the
 * Euler-Maclaurin formula with w = q + N >= max(10, (s + 24) / 1.9), where 12
 * Bernoulli terms converge; the special cases as PyTorch orders them */
template <typename T> __device__ inline T cg_zeta(T s, T q)
{
    const T inf = -cg_log(T(0)), nan = cg_sqrt(T(-1));
    if (s == T(1)) return inf;
    if (s < T(1)) return nan;
    if (q <= T(0)) {
        if (q == cg_floor(q)) return inf;
        if (s != cg_floor(s)) return nan;
    }
    if (cg_isinf(s) && q == q) return q == T(1) ? T(1) : (q < T(1) ? inf : nan);
    if (s != s || !cg_isfinite(q)) return nan;
    const T target = (s + T(24)) / T(1.9) < T(10) ? T(10) : (s + T(24)) / T(1.9);
    const T need = cg_ceil(target - q);
    const long long terms = need < T(0) ? 0 : (need > T(2000) ? 2000 : (long long)need);
    T sum = T(0);
    for (long long k = 0; k < terms; ++k) sum += cg_pow(q + T(k), -s);
    const T w = q + T(terms), wpow = cg_pow(w, -s);
    if (wpow == T(0)) return sum;
    sum += w * wpow / (s - T(1)) + wpow / T(2);
    /* B_2j / (2j)!, j = 1..12 */
    const double bern[12] = {1.0 / 12, -1.0 / 720, 1.0 / 30240, -1.0 / 1209600, 1.0 / 47900160,
                             -691.0 / 1307674368000.0, 1.0 / 74724249600.0,
                             -3617.0 / 10670622842880000.0, 43867.0 / 5109094217170944000.0,
                             -174611.0 / 802857662698291200000.0,
                             77683.0 / 14101100039391805440000.0,
                             -236364091.0 / 1693824136731743669452800000.0};
    T rising = s, wp = wpow / w;
    const T winv2 = T(1) / (w * w), eps = sizeof(T) == 8 ? T(1e-17) : T(1e-8);
    for (int j = 0; j < 12; ++j) {
        const T term = T(bern[j]) * rising * wp;
        sum += term;
        if (cg_fabs(term) < eps * cg_fabs(sum)) break;
        rising *= (s + T(2 * j + 1)) * (s + T(2 * j + 2));
        wp *= winv2;
    }
    return sum;
}
/* psi^(n)(x) = (-1)^(n+1) n! zeta(n + 1, x); n = 0 is digamma */
template <typename T> __device__ inline T cg_polygamma(T n, T x)
{
    if (n != n || x != x) return n + x;
    if (n == T(0)) return cg_digamma(x);
    const T sign = cg_fmod(n, T(2)) != T(0) ? T(1) : T(-1);
    return sign * cg_exp(cg_lgamma(n + T(1))) * cg_zeta(n + T(1), x);
}
/* Modified Bessel functions I0 and I1 (and e^-|x| times them): the power series,
 * whose terms are all positive, up to |x| = 30; past it the asymptotic series
 * of I_nu(x) e^-x in 1/(8x), cut where its terms stop shrinking. I0 and I1 of
 * +-inf are NaN, as PyTorch's. */
template <typename T> __device__ inline T cg_bessel_i_series(int nu, T x)
{
    const T q = x * x / T(4), eps = sizeof(T) == 8 ? T(1.1e-16) : T(6e-8);
    T term = T(1), sum = T(1);
    for (int k = 1; k < 500; ++k) {
        term *= q / (T(k) * T(k + nu));
        sum += term;
        if (term < eps * sum) break;
    }
    return nu ? x / T(2) * sum : sum;
}
template <typename T> __device__ inline T cg_bessel_i_asym(int nu, T x)
{
    const T mu = T(4 * nu * nu), eps = sizeof(T) == 8 ? T(1.1e-16) : T(6e-8);
    T term = T(1), sum = T(1);
    for (int k = 1; k < 60; ++k) {
        const T next = term * -(mu - T((2 * k - 1) * (2 * k - 1))) / (T(8 * k) * x);
        if (cg_fabs(next) >= cg_fabs(term)) break;
        term = next;
        sum += term;
        if (cg_fabs(term) < eps * cg_fabs(sum)) break;
    }
    return sum / cg_sqrt(T(6.283185307179586) * x);
}
/* I_nu(x) (scaled: times e^-|x|) for nu = 0 or 1 */
template <typename T> __device__ inline T cg_bessel_i(int nu, T x, bool scaled)
{
    if (x != x) return x;
    const T ax = cg_fabs(x);
    T r;
    if (ax <= T(30)) {
        r = cg_bessel_i_series(nu, ax);
        if (scaled) r *= cg_exp(-ax);
    } else if (!cg_isfinite(x)) {
        r = scaled ? T(0) : cg_sqrt(T(-1));
    } else {
        r = cg_bessel_i_asym(nu, ax);
        if (!scaled) r = sizeof(T) == 8 && ax > T(715) ? -cg_log(T(0)) : r * cg_exp(ax);
    }
    return nu ? cg_copysign(r, x) : r;
}
CG_REAL_U(i0, cg_bessel_i(0, x, false))
CG_REAL_U(i0e, cg_bessel_i(0, x, true))
CG_REAL_U(i1, cg_bessel_i(1, x, false))
CG_REAL_U(i1e, cg_bessel_i(1, x, true))
/* erfcx(x) = e^(x^2) erfc(x): directly (x^2 split into hi + lo by fma, so exp's
 * argument keeps all its bits) while erfc(x) has not underflowed, then the
 * asymptotic series 1/(x sqrt(pi)) sum_k (-1)^k (2k-1)!! / (2x^2)^k; below 0 by
 * erfcx(x) = 2 e^(x^2) - erfcx(-x) */
__device__ inline float cg_fma(float a, float b, float c) { return fmaf(a, b, c); }
__device__ inline double cg_fma(double a, double b, double c) { return fma(a, b, c); }
template <typename T> __device__ inline T cg_erfcx_positive(T x)
{
    if (x < (sizeof(T) == 8 ? T(26) : T(9))) {
        const T hi = x * x, lo = cg_fma(x, x, -hi);
        return cg_exp(hi) * cg_exp(lo) * cg_erfc(x);
    }
    const T r = T(1) / (T(2) * x * x);
    T sum = T(1), term = T(1);
    for (int k = 1; k < 13; ++k) {
        term *= -T(2 * k - 1) * r;
        sum += term;
    }
    return sum / (x * T(1.7724538509055159));
}
template <typename T> __device__ inline T cg_erfcx(T x)
{
    if (x != x || x >= T(0)) return x != x ? x : cg_erfcx_positive(x);
    const T hi = x * x, lo = cg_fma(x, x, -hi);
    if (cg_isinf(hi)) return hi;        /* x^2 overflowed (x = -inf too): lo is NaN or -inf */
    return T(2) * cg_exp(hi) * cg_exp(lo) - cg_erfcx_positive(-x);
}
/* x > 0 with erfc(x) = t (0 < t <= 0.1): Winitzki's guess, then Newton steps on
 * log(erfcx(x)) - x^2 = log(t), whose derivative -2 / (sqrt(pi) erfcx(x)) never
 * underflows */
template <typename T> __device__ inline T cg_erfc_solve(T t)
{
    const T l = cg_log(t) + cg_log(T(2) - t), a = T(0.147);
    const T u = T(2) / (T(3.141592653589793) * a) + l / T(2);
    T x = cg_sqrt(cg_sqrt(u * u - l / a) - u);
    const T logt = cg_log(t);
    for (int s = 0; s < (sizeof(T) == 8 ? 6 : 4); ++s) {
        const T ex = cg_erfcx(x);
        x += (cg_log(ex) - x * x - logt) * T(1.7724538509055159) * ex / T(2);
    }
    return x;
}
/* the standard normal quantile: the tails through erfc, the middle through erfinv */
template <typename T> __device__ inline T cg_ndtri(T p)
{
    if (p != p) return p;
    if (p <= T(0)) return p == T(0) ? cg_log(T(0)) : cg_sqrt(T(-1));
    if (p >= T(1)) return p == T(1) ? -cg_log(T(0)) : cg_sqrt(T(-1));
    const T sqrt2 = T(1.4142135623730951);
    if (p < T(0.05)) return -sqrt2 * cg_erfc_solve(T(2) * p);
    if (p > T(0.95)) return sqrt2 * cg_erfc_solve(T(2) * (T(1) - p));
    return sqrt2 * cg_erfinv(T(2) * p - T(1));
}
/* log of the standard normal CDF; far left through erfcx, so it never underflows */
template <typename T> __device__ inline T cg_log_ndtr(T x)
{
    const T t = x * T(0.7071067811865476);
    if (x < T(-1)) return cg_log(cg_erfcx(-t) / T(2)) - t * t;
    return cg_log1p(-cg_erfc(t) / T(2));
}
CG_REAL_U(erfinv, cg_erfinv(x))
CG_REAL_U(erfcx, cg_erfcx(x))
CG_REAL_U(ndtri, cg_ndtri(x))
CG_REAL_U(log_ndtr, cg_log_ndtr(x))
CG_REAL_U(ndtr, T(0.5) * cg_erfc(-x * T(0.7071067811865476)))
/* -x log x, 0 at 0, -inf below 0 */
CG_REAL_U(entr, x != x ? x : (x > T(0) ? -x * cg_log(x) : (x == T(0) ? T(0) : cg_log(T(0)))))
CG_REAL_U(lgamma, cg_lgamma(x))
CG_REAL_U(digamma, cg_digamma(x))
/* sin(pi x) / (pi x), 1 at 0 */
CG_CPLX_U(sinc, x == T(0) ? T(1) : cg_sin(T(3.141592653589793) * x) / (T(3.141592653589793) * x),
          (z.re == R(0) && z.im == R(0)) ? cg_cone<R>()
              : cg_cdiv(cg_csin(cg_cx<R>(R(3.141592653589793) * z.re, R(3.141592653589793) * z.im)),
                        cg_cx<R>(R(3.141592653589793) * z.re, R(3.141592653589793) * z.im)))
struct cg_u_signbit {
    template <typename T> __device__ bool operator()(T x) const
    {
        if constexpr (cg_kind<T>::value == 1) return cg_copysign(T(1), x) < T(0);
        else return cg_neg(x);
    }
};
struct cg_u_isposinf { template <typename T> __device__ bool operator()(T x) const { return cg_isinf(x) && x > T(0); } };
struct cg_u_isneginf { template <typename T> __device__ bool operator()(T x) const { return cg_isinf(x) && x < T(0); } };

/* x * log(y) (log1p(y)), 0 where x is 0 unless y is NaN */
CG_REAL_B(xlogy, b != b ? b : (a == T(0) ? T(0) : a * cg_log(b)))
CG_REAL_B(xlog1py, b != b ? b : (a == T(0) ? T(0) : a * cg_log1p(b)))
/* NumPy's logaddexp: equal operands (infinities too) give a + log 2 */
template <typename T> __device__ inline T cg_logaddexp(T a, T b, bool base2)
{
    const T ln2 = T(0.6931471805599453);
    if (a == b) return base2 ? a + T(1) : a + ln2;
    const T d = a - b;
    if (d != d) return d;
    const T m = d > T(0) ? a : b, e = d > T(0) ? -d : d;
    return base2 ? m + cg_log1p(cg_exp2(e)) / ln2 : m + cg_log1p(cg_exp(e));
}
CG_REAL_B(logaddexp, cg_logaddexp(a, b, false))
CG_REAL_B(logaddexp2, cg_logaddexp(a, b, true))
CG_REAL_B(copysign, cg_copysign(a, b))
CG_REAL_B(nextafter, cg_nextafter(a, b))
/* PyTorch's heaviside: the values where x == 0, else x > 0 (NaN gives 0) */
CG_REAL_B(heaviside, a == T(0) ? b : (T)(a > T(0)))
template <typename T> __device__ inline T cg_gcd(T a, T b)
{
    typedef unsigned long long U;
    U x = cg_neg(a) ? (U)0 - (U)(long long)a : (U)(long long)a;
    U y = cg_neg(b) ? (U)0 - (U)(long long)b : (U)(long long)b;
    while (y) {
        const U t = x % y;
        x = y;
        y = t;
    }
    return (T)x;
}
template <typename T> __device__ inline T cg_lcm(T a, T b)
{
    const T g = cg_gcd(a, b);
    if (g == T(0)) return T(0);
    const T r = (T)(a / g * b);
    return cg_neg(r) ? (T)(-(typename cg_wrap<T>::U)r) : r;
}
CG_REAL_B(zeta, cg_zeta(a, b))
CG_REAL_B(polygamma, cg_polygamma(a, b))
CG_REAL_B(gcd, cg_gcd(a, b))
CG_REAL_B(lcm, cg_lcm(a, b))

/* ---- loops ---------------------------------------------------------------------- */

template <typename SO, typename SA, typename F>
__device__ inline void cg_map1(cg_index n, const cg_geometry& g, SO* out, const SA* a, F f)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index oo, oa, unused;
        cg_offsets(g, i, &oo, &oa, &unused);
        out[oo] = cg_io<SO>::st(f(cg_io<SA>::ld(a[oa])));
    }
}

template <typename SO, typename SA, typename F>
__device__ inline void cg_map2(cg_index n, const cg_geometry& g, SO* out, const SA* a,
                               const SA* b, F f)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index oo, oa, ob;
        cg_offsets(g, i, &oo, &oa, &ob);
        out[oo] = cg_io<SO>::st(f(cg_io<SA>::ld(a[oa]), cg_io<SA>::ld(b[ob])));
    }
}

template <typename S, typename F>
__device__ inline void cg_map2_err(cg_index n, const cg_geometry& g, S* out, const S* a,
                                   const S* b, int* err, F f)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index oo, oa, ob;
        cg_offsets(g, i, &oo, &oa, &ob);
        out[oo] = cg_io<S>::st(f(cg_io<S>::ld(a[oa]), cg_io<S>::ld(b[ob]), err));
    }
}

template <typename CO> struct cg_cast_fn {
    template <typename T> __device__ CO operator()(T x) const { return cg_convert<CO>(x); }
};

/* ---- the extern "C" entry points ------------------------------------------------------ */

/* unary: out of the input's type (SAME), bool (BOOL) or the real type (REAL) */
#define CG_U_SAME(OP, SFX, T)                                                                  \
    extern "C" __global__ void cg_##OP##_##SFX##_strided(cg_index n, cg_geometry g, T* out,    \
                                                         const T* a)                           \
    {                                                                                          \
        cg_map1(n, g, out, a, cg_u_##OP());                                                    \
    }
#define CG_U_OUT(OP, SFX, TO, T)                                                               \
    extern "C" __global__ void cg_##OP##_##SFX##_strided(cg_index n, cg_geometry g, TO* out,   \
                                                         const T* a)                           \
    {                                                                                          \
        cg_map1(n, g, out, a, cg_u_##OP());                                                    \
    }
#define CG_B_SAME(OP, SFX, T)                                                                  \
    extern "C" __global__ void cg_##OP##_##SFX##_strided(cg_index n, cg_geometry g, T* out,    \
                                                         const T* a, const T* b)               \
    {                                                                                          \
        cg_map2(n, g, out, a, b, cg_b_##OP());                                                 \
    }
#define CG_B_BOOL(OP, SFX, T)                                                                  \
    extern "C" __global__ void cg_##OP##_##SFX##_strided(cg_index n, cg_geometry g,            \
                                                         cg_bool* out, const T* a, const T* b) \
    {                                                                                          \
        cg_map2(n, g, out, a, b, cg_b_##OP());                                                 \
    }
#define CG_B_ERR(OP, SFX, T)                                                                   \
    extern "C" __global__ void cg_##OP##_##SFX##_strided(cg_index n, cg_geometry g, T* out,    \
                                                         const T* a, const T* b, int* err)     \
    {                                                                                          \
        cg_map2_err(n, g, out, a, b, err, cg_e_##OP());                                        \
    }

/* dtype lists: X(SFX, T) for each */
#define CG_FLOATS(X) X(f16, __half) X(bf16, __nv_bfloat16) X(f32, float) X(f64, double)
#define CG_INTS(X) X(u8, cg_u8) X(i8, cg_i8) X(i16, short) X(i32, int) X(i64, cg_i64)
#define CG_COMPLEX(X) X(c64, cg_c64) X(c128, cg_c128)
#define CG_BOOL(X) X(b8, cg_bool)

/* -- unary -- */
#define CG_FLOAT_MATH(SFX, T)                                                                   \
    CG_U_SAME(exp, SFX, T) CG_U_SAME(exp2, SFX, T) CG_U_SAME(expm1, SFX, T)                     \
    CG_U_SAME(log, SFX, T) CG_U_SAME(log2, SFX, T) CG_U_SAME(log10, SFX, T)                     \
    CG_U_SAME(log1p, SFX, T) CG_U_SAME(sqrt, SFX, T) CG_U_SAME(rsqrt, SFX, T)                   \
    CG_U_SAME(sin, SFX, T) CG_U_SAME(cos, SFX, T) CG_U_SAME(tan, SFX, T)                        \
    CG_U_SAME(sinh, SFX, T) CG_U_SAME(cosh, SFX, T) CG_U_SAME(tanh, SFX, T)                     \
    CG_U_SAME(sigmoid, SFX, T) CG_U_SAME(reciprocal, SFX, T) CG_U_SAME(neg, SFX, T)             \
    CG_U_SAME(asin, SFX, T) CG_U_SAME(acos, SFX, T) CG_U_SAME(atan, SFX, T)                     \
    CG_U_SAME(asinh, SFX, T) CG_U_SAME(acosh, SFX, T) CG_U_SAME(atanh, SFX, T)                  \
    CG_U_SAME(square, SFX, T) CG_U_SAME(sgn, SFX, T)                                            \
    CG_U_OUT(isnan, SFX, cg_bool, T) CG_U_OUT(isinf, SFX, cg_bool, T)                           \
    CG_U_OUT(isfinite, SFX, cg_bool, T) CG_U_OUT(logical_not, SFX, cg_bool, T)
#define CG_REAL_FLOAT(SFX, T)                                                                   \
    CG_U_SAME(erf, SFX, T) CG_U_SAME(erfc, SFX, T) CG_U_SAME(floor, SFX, T)                     \
    CG_U_SAME(ceil, SFX, T) CG_U_SAME(trunc, SFX, T) CG_U_SAME(round, SFX, T)                   \
    CG_U_SAME(frac, SFX, T) CG_U_SAME(relu, SFX, T) CG_U_SAME(abs, SFX, T)                      \
    CG_U_SAME(sign, SFX, T) CG_U_SAME(angle, SFX, T)
#define CG_INT_UNARY(SFX, T)                                                                    \
    CG_U_SAME(neg, SFX, T) CG_U_SAME(abs, SFX, T) CG_U_SAME(sign, SFX, T)                       \
    CG_U_SAME(square, SFX, T) CG_U_SAME(relu, SFX, T) CG_U_SAME(bitwise_not, SFX, T)            \
    CG_U_OUT(logical_not, SFX, cg_bool, T)
CG_FLOATS(CG_FLOAT_MATH)
CG_FLOATS(CG_REAL_FLOAT)
CG_COMPLEX(CG_FLOAT_MATH)
CG_U_SAME(conj_physical, c64, cg_c64)
CG_U_SAME(conj_physical, c128, cg_c128)
CG_U_OUT(abs, c64, float, cg_c64)
CG_U_OUT(abs, c128, double, cg_c128)
CG_U_OUT(angle, c64, float, cg_c64)
CG_U_OUT(angle, c128, double, cg_c128)
CG_INTS(CG_INT_UNARY)
CG_U_OUT(logical_not, b8, cg_bool, cg_bool)
CG_U_SAME(bitwise_not, b8, cg_bool)

/* -- binary -- */
#define CG_ARITH(SFX, T) CG_B_SAME(add, SFX, T) CG_B_SAME(sub, SFX, T) CG_B_SAME(mul, SFX, T)
#define CG_EQUALITY(SFX, T)                                                                     \
    CG_B_BOOL(eq, SFX, T) CG_B_BOOL(ne, SFX, T) CG_B_BOOL(logical_and, SFX, T)                  \
    CG_B_BOOL(logical_or, SFX, T) CG_B_BOOL(logical_xor, SFX, T)
#define CG_ORDERED(SFX, T)                                                                      \
    CG_B_BOOL(lt, SFX, T) CG_B_BOOL(le, SFX, T) CG_B_BOOL(gt, SFX, T) CG_B_BOOL(ge, SFX, T)     \
    CG_B_SAME(maximum, SFX, T) CG_B_SAME(minimum, SFX, T) CG_B_SAME(fmax, SFX, T)               \
    CG_B_SAME(fmin, SFX, T)
#define CG_DIVMOD(SFX, T)                                                                       \
    CG_B_ERR(floor_divide, SFX, T) CG_B_ERR(remainder, SFX, T) CG_B_ERR(fmod, SFX, T)               \
    CG_B_SAME(pow, SFX, T)
#define CG_FLOAT_BINARY(SFX, T) CG_B_SAME(div, SFX, T) CG_B_SAME(atan2, SFX, T) CG_B_SAME(hypot, SFX, T)
#define CG_BITS(SFX, T)                                                                         \
    CG_B_SAME(bitwise_and, SFX, T) CG_B_SAME(bitwise_or, SFX, T) CG_B_SAME(bitwise_xor, SFX, T)
#define CG_SHIFTS(SFX, T) CG_B_SAME(bitwise_left_shift, SFX, T) CG_B_SAME(bitwise_right_shift, SFX, T)
#define CG_CPLX_BINARY(SFX, T) CG_B_SAME(div, SFX, T) CG_B_SAME(pow, SFX, T)

CG_FLOATS(CG_ARITH) CG_INTS(CG_ARITH) CG_BOOL(CG_ARITH) CG_COMPLEX(CG_ARITH)
CG_FLOATS(CG_EQUALITY) CG_INTS(CG_EQUALITY) CG_BOOL(CG_EQUALITY) CG_COMPLEX(CG_EQUALITY)
CG_FLOATS(CG_ORDERED) CG_INTS(CG_ORDERED) CG_BOOL(CG_ORDERED)
CG_FLOATS(CG_DIVMOD) CG_INTS(CG_DIVMOD)
CG_FLOATS(CG_FLOAT_BINARY) CG_COMPLEX(CG_CPLX_BINARY)
CG_INTS(CG_BITS) CG_BOOL(CG_BITS) CG_INTS(CG_SHIFTS)

/* -- special functions -- */
#define CG_SPECIAL_FLOAT(SFX, T)                                                                \
    CG_U_SAME(lgamma, SFX, T) CG_U_SAME(digamma, SFX, T) CG_U_SAME(sinc, SFX, T)                \
    CG_U_SAME(erfinv, SFX, T) CG_U_SAME(ndtr, SFX, T) CG_U_SAME(entr, SFX, T)                   \
    CG_U_SAME(i0, SFX, T) CG_U_SAME(i0e, SFX, T) CG_U_SAME(i1, SFX, T) CG_U_SAME(i1e, SFX, T)   \
    CG_U_OUT(isposinf, SFX, cg_bool, T) CG_U_OUT(isneginf, SFX, cg_bool, T)                     \
    CG_B_SAME(xlogy, SFX, T) CG_B_SAME(xlog1py, SFX, T) CG_B_SAME(logaddexp, SFX, T)            \
    CG_B_SAME(logaddexp2, SFX, T) CG_B_SAME(copysign, SFX, T)
#define CG_SPECIAL_REAL(SFX, T) CG_U_OUT(signbit, SFX, cg_bool, T) CG_B_SAME(heaviside, SFX, T)
#define CG_POLYGAMMA(SFX, T) CG_B_SAME(polygamma, SFX, T)
#define CG_NO_HALF(SFX, T) CG_U_SAME(erfcx, SFX, T) CG_U_SAME(ndtri, SFX, T) CG_U_SAME(log_ndtr, SFX, T)
#define CG_SPECIAL_INT(SFX, T) CG_B_SAME(gcd, SFX, T) CG_B_SAME(lcm, SFX, T)
CG_FLOATS(CG_SPECIAL_FLOAT) CG_FLOATS(CG_SPECIAL_REAL) CG_INTS(CG_SPECIAL_REAL) CG_INTS(CG_SPECIAL_INT)
CG_B_SAME(heaviside, b8, cg_bool)
CG_U_SAME(sinc, c64, cg_c64)
CG_U_SAME(sinc, c128, cg_c128)
CG_B_SAME(nextafter, f32, float)
CG_B_SAME(nextafter, f64, double)
CG_NO_HALF(f32, float)
CG_NO_HALF(f64, double)
CG_B_SAME(zeta, f32, float)
CG_B_SAME(zeta, f64, double)
CG_FLOATS(CG_POLYGAMMA)

/* ---- casts and fills -------------------------------------------------------------------- */

#define CG_CAST(SFXA, TA, SFXO, TO)                                                              \
    extern "C" __global__ void cg_cast_##SFXA##_##SFXO##_strided(cg_index n, cg_geometry g,      \
                                                                 TO* out, const TA* a)          \
    {                                                                                            \
        cg_map1(n, g, out, a, cg_cast_fn<typename cg_io<TO>::C>());                              \
    }
#define CG_ALL(X, ...)                                                                           \
    X(__VA_ARGS__, b8, cg_bool) X(__VA_ARGS__, u8, cg_u8) X(__VA_ARGS__, i8, cg_i8) \
    X(__VA_ARGS__, i16, short) X(__VA_ARGS__, i32, int) X(__VA_ARGS__, i64, cg_i64)            \
    X(__VA_ARGS__, f16, __half) X(__VA_ARGS__, bf16, __nv_bfloat16) X(__VA_ARGS__, f32, float)  \
    X(__VA_ARGS__, f64, double) X(__VA_ARGS__, c64, cg_c64) X(__VA_ARGS__, c128, cg_c128)
#define CG_CASTS_FROM(SFXA, TA) CG_ALL(CG_CAST, SFXA, TA)
CG_CASTS_FROM(b8, cg_bool) CG_CASTS_FROM(u8, cg_u8) CG_CASTS_FROM(i8, cg_i8)
CG_CASTS_FROM(i16, short) CG_CASTS_FROM(i32, int) CG_CASTS_FROM(i64, cg_i64)
CG_CASTS_FROM(f16, __half) CG_CASTS_FROM(bf16, __nv_bfloat16) CG_CASTS_FROM(f32, float)
CG_CASTS_FROM(f64, double) CG_CASTS_FROM(c64, cg_c64) CG_CASTS_FROM(c128, cg_c128)

/* out[...] = value: (re, im) for floating and complex dtypes, iv for integers and bool */
template <typename C> __device__ inline C cg_fill_value(double re, double im, long long iv)
{
    if constexpr (cg_kind<C>::value == 3) return cg_cx<decltype(C().re)>(re, im);
    else if constexpr (cg_kind<C>::value == 1) return (C)re;
    else if constexpr (cg_kind<C>::value == 2) return iv != 0;
    else return (C)iv;
}
#define CG_FILL(SFX, T)                                                                          \
    extern "C" __global__ void cg_fill_##SFX##_strided(cg_index n, cg_geometry g, T* out,        \
                                                       double re, double im, long long iv)      \
    {                                                                                            \
        const T v = cg_io<T>::st(cg_fill_value<typename cg_io<T>::C>(re, im, iv));               \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {                     \
            cg_index oo, unused_a, unused_b;                                                     \
            cg_offsets(g, i, &oo, &unused_a, &unused_b);                                         \
            out[oo] = v;                                                                         \
        }                                                                                        \
    }
CG_FLOATS(CG_FILL) CG_INTS(CG_FILL) CG_BOOL(CG_FILL) CG_COMPLEX(CG_FILL)
/* out[i] = value where mask[i] is nonzero (bool or uint8, in the geometry's a strides), out
 * unchanged elsewhere: masked_fill and where() with a Python number, the value by value as
 * the fills take it (no 0-d tensor filled first, then assigned) */
#define CG_MASKED_FILL(SFX, T)                                                                   \
    extern "C" __global__ void cg_masked_fill_##SFX##_strided(cg_index n, cg_geometry g, T* out, \
                                                              const unsigned char* mask,        \
                                                              double re, double im,             \
                                                              long long iv)                     \
    {                                                                                            \
        const T v = cg_io<T>::st(cg_fill_value<typename cg_io<T>::C>(re, im, iv));               \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {                     \
            cg_index oo, om, unused;                                                             \
            cg_offsets(g, i, &oo, &om, &unused);                                                 \
            if (mask[om]) out[oo] = v;                                                           \
        }                                                                                        \
    }
CG_FLOATS(CG_MASKED_FILL) CG_INTS(CG_MASKED_FILL) CG_BOOL(CG_MASKED_FILL)
CG_COMPLEX(CG_MASKED_FILL)

/* ---- byte movers: one kernel per element size ------------------------------------------------ */

/* out[...] = a (same dtype) */
#define CG_COPY(SFX, T)                                                                          \
    extern "C" __global__ void cg_copy_##SFX##_strided(cg_index n, cg_geometry g, T* out,        \
                                                       const T* a)                              \
    {                                                                                            \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {                     \
            cg_index oo, oa, unused;                                                             \
            cg_offsets(g, i, &oo, &oa, &unused);                                                 \
            out[oo] = a[oa];                                                                     \
        }                                                                                        \
    }
/* out[i] = src[i] where mask[i] is nonzero (bool or uint8), out unchanged elsewhere:
 * where() and masked_fill() (mask in the geometry's a strides, src in b's) */
#define CG_MASKED_ASSIGN(SFX, T)                                                                 \
    extern "C" __global__ void cg_masked_assign_##SFX##_strided(cg_index n, cg_geometry g,       \
                                                                T* out,                         \
                                                                const unsigned char* mask,      \
                                                                const T* src)                   \
    {                                                                                            \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {                     \
            cg_index oo, om, os;                                                                 \
            cg_offsets(g, i, &oo, &om, &os);                                                     \
            if (mask[om]) out[oo] = src[os];                                                     \
        }                                                                                        \
    }
/* Zero, in place, the elements outside the lower triangle j <= i + diagonal (lower)
 * or the upper one j >= i + diagonal, over the last two dims (rows x cols). */
#define CG_TRIANGLE_ZERO(SFX, T)                                                                 \
    extern "C" __global__ void cg_triangle_zero_##SFX##_strided(cg_index n, cg_geometry g, T* t, \
                                                                cg_index rows, cg_index cols,   \
                                                                cg_index diagonal, int lower)   \
    {                                                                                            \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {                     \
            const cg_index j = i % cols, r = (i / cols) % rows;                                 \
            if (lower ? (j > r + diagonal) : (j < r + diagonal)) {                               \
                cg_index oo, unused_a, unused_b;                                                 \
                cg_offsets(g, i, &oo, &unused_a, &unused_b);                                     \
                t[oo] = T();                                                                     \
            }                                                                                    \
        }                                                                                        \
    }
#define CG_BY_SIZE(X) X(u8, cg_u8) X(i16, short) X(i32, int) X(i64, cg_i64) X(c128, cg_c128)
CG_BY_SIZE(CG_COPY) CG_BY_SIZE(CG_MASKED_ASSIGN) CG_BY_SIZE(CG_TRIANGLE_ZERO)

/* ---- nan_to_num and frexp (floating dtypes) ------------------------------------------------------ */

#define CG_NAN_TO_NUM(SFX, T)                                                                    \
    extern "C" __global__ void cg_nan_to_num_##SFX##_strided(cg_index n, cg_geometry g, T* out,  \
                                                             const T* a, double nan,            \
                                                             double posinf, double neginf)      \
    {                                                                                            \
        typedef typename cg_io<T>::C C;                                                          \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {                     \
            cg_index oo, oa, unused;                                                             \
            cg_offsets(g, i, &oo, &oa, &unused);                                                 \
            const C x = cg_io<T>::ld(a[oa]);                                                     \
            C y = x;                                                                             \
            if (x != x) y = (C)nan;                                                              \
            else if (cg_isinf(x)) y = x > C(0) ? (C)posinf : (C)neginf;                          \
            out[oo] = cg_io<T>::st(y);                                                           \
        }                                                                                        \
    }
/* input = mantissa * 2**exponent, |mantissa| in [0.5, 1); inf/NaN: (x, 0) as NumPy */
__device__ inline float cg_frexp(float x, int* e) { return frexpf(x, e); }
__device__ inline double cg_frexp(double x, int* e) { return frexp(x, e); }
#define CG_FREXP(SFX, T)                                                                         \
    extern "C" __global__ void cg_frexp_##SFX##_strided(cg_index n, cg_geometry g, T* mantissa,  \
                                                        const T* a, int* exponent)              \
    {                                                                                            \
        typedef typename cg_io<T>::C C;                                                          \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {                     \
            cg_index om, oa, oe;                                                                 \
            cg_offsets(g, i, &om, &oa, &oe);                                                     \
            const C x = cg_io<T>::ld(a[oa]);                                                     \
            int e = 0;                                                                           \
            C m = x;                                                                             \
            if (cg_isfinite(x) && x != C(0)) m = cg_frexp(x, &e);                                \
            mantissa[om] = cg_io<T>::st(m);                                                      \
            exponent[oe] = e;                                                                    \
        }                                                                                        \
    }
CG_FLOATS(CG_NAN_TO_NUM) CG_FLOATS(CG_FREXP)

/* ---- a tensor with a Python number ---------------------------------------------------------- */

/* op(a, number) or, where first != 0, op(number, a) (1 - x, 2 / x, 2 ** x, x > 0): the number comes
 * by value as the fills take it (re, im for floating and complex dtypes, iv for integers and
 * bool) and is converted to the compute type once, so x * 0.5 is one launch instead of a fill
 * of a 0-d tensor and the op. The value is the one the fill would store, except that a half
 * tensor's number stays a float as PyTorch's opmath keeps it (the host computed half with a
 * number in float32 before). `first` is the same for every thread: no divergence. */
template <typename SO, typename S, typename F>
__device__ inline void cg_map2_number(cg_index n, const cg_geometry& g, SO* out, const S* a,
                                      typename cg_io<S>::C s, int first, F f)
{
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index oo, oa, unused;
        cg_offsets(g, i, &oo, &oa, &unused);
        const typename cg_io<S>::C x = cg_io<S>::ld(a[oa]);
        out[oo] = cg_io<SO>::st(first ? f(s, x) : f(x, s));
    }
}
#define CG_B_NUMBER_OUT(OP, SFX, TO, T)                                                          \
    extern "C" __global__ void cg_##OP##_##SFX##_number(cg_index n, cg_geometry g, TO* out,      \
                                                        const T* a, double re, double im,        \
                                                        long long iv, int first)                 \
    {                                                                                            \
        cg_map2_number(n, g, out, a, cg_fill_value<typename cg_io<T>::C>(re, im, iv), first,     \
                       cg_b_##OP());                                                             \
    }
#define CG_B_NUMBER(OP, SFX, T) CG_B_NUMBER_OUT(OP, SFX, T, T)
#define CG_B_NUMBER_BOOL(OP, SFX, T) CG_B_NUMBER_OUT(OP, SFX, cg_bool, T)
#define CG_ARITH_NUMBER(SFX, T)                                                                  \
    CG_B_NUMBER(add, SFX, T) CG_B_NUMBER(sub, SFX, T) CG_B_NUMBER(mul, SFX, T)
#define CG_DIV_POW_NUMBER(SFX, T) CG_B_NUMBER(div, SFX, T) CG_B_NUMBER(pow, SFX, T)
#define CG_POW_NUMBER(SFX, T) CG_B_NUMBER(pow, SFX, T)
CG_FLOATS(CG_ARITH_NUMBER) CG_INTS(CG_ARITH_NUMBER) CG_BOOL(CG_ARITH_NUMBER) CG_COMPLEX(CG_ARITH_NUMBER)
CG_FLOATS(CG_DIV_POW_NUMBER) CG_COMPLEX(CG_DIV_POW_NUMBER) CG_INTS(CG_POW_NUMBER)
#define CG_EQUALITY_NUMBER(SFX, T) CG_B_NUMBER_BOOL(eq, SFX, T) CG_B_NUMBER_BOOL(ne, SFX, T)
#define CG_ORDERED_NUMBER(SFX, T)                                                                \
    CG_B_NUMBER_BOOL(lt, SFX, T) CG_B_NUMBER_BOOL(le, SFX, T) CG_B_NUMBER_BOOL(gt, SFX, T)       \
    CG_B_NUMBER_BOOL(ge, SFX, T) CG_B_NUMBER(maximum, SFX, T) CG_B_NUMBER(minimum, SFX, T)
CG_FLOATS(CG_EQUALITY_NUMBER) CG_INTS(CG_EQUALITY_NUMBER) CG_BOOL(CG_EQUALITY_NUMBER)
CG_COMPLEX(CG_EQUALITY_NUMBER)
CG_FLOATS(CG_ORDERED_NUMBER) CG_INTS(CG_ORDERED_NUMBER) CG_BOOL(CG_ORDERED_NUMBER)
/* floor_divide, remainder and fmod of a tensor by a number (x % 2, x // 4): the host takes
 * this kernel only where no error can arise (first == 0, and a floating dtype or a nonzero
 * divisor; an integer divisor of 0 goes to the checked kernels above), so the error
 * report of cg_floor_divide & co. is dropped */
#define CG_DIVMOD_BY_NUMBER_OP(NAME)                                                             \
    struct cg_b_##NAME {                                                                         \
        template <typename T> __device__ T operator()(T a, T b) const                            \
        {                                                                                        \
            int unused = 0;                                                                      \
            return cg_##NAME(a, b, &unused);                                                     \
        }                                                                                        \
    };
CG_DIVMOD_BY_NUMBER_OP(floor_divide) CG_DIVMOD_BY_NUMBER_OP(remainder) CG_DIVMOD_BY_NUMBER_OP(fmod)
#define CG_DIVMOD_NUMBER(SFX, T)                                                                 \
    CG_B_NUMBER(floor_divide, SFX, T) CG_B_NUMBER(remainder, SFX, T) CG_B_NUMBER(fmod, SFX, T)
CG_FLOATS(CG_DIVMOD_NUMBER) CG_INTS(CG_DIVMOD_NUMBER)
