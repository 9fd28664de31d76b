/* The special functions of cygrad/_core/special_table.py that elementwise_math.cu
 * does not have (cygrad/cuda/ops/special.py launches them): Bessel J0, J1, Y0, Y1,
 * modified Bessel K0, K1 and their scaled forms, spherical_bessel_j0, airy_ai,
 * igamma and igammac (the regularized incomplete gamma functions) and the twelve
 * orthogonal polynomials.
 *
 * Each is the method of the CPU's cygrad/_core/cpu/special.c, with its special
 * values (n < 0 for the polynomials, x <= 0 for K and Y, a <= 0 or x < 0 for
 * igamma, the values at +-inf and NaN). The CPU computes every dtype in float64
 * and rounds the result, so the kernels here compute in double as well and
 * round once (float16 and bfloat16, which only igamma and igammac take, through
 * float: a result within a float rounding of a tie between two values of the
 * half dtype may land one ulp of that dtype from the CPU's direct rounding).
 * J0, J1, Y0 and Y1 are the math library's j0, j1, y0, y1 on either side (the
 * C library's on the CPU and on the emulator, CUDA's on a GPU).
 *
 * Calling convention: elementwise_math.cu's, so that elementwise.py's launcher
 * runs these too: cg_<op>_<f32|f64>_strided(n, cg_geometry g, out, a[, b]),
 * g holding the shape and each operand's strides in elements, the pointers
 * already offset; grid-stride loops with 64-bit indices. The polynomials take
 * (out, x, n), n in the computing dtype and read as PyTorch reads a degree (cast
 * to an integer).
 *
 * Loops that run until a series converges or a recurrence reaches its degree
 * leave a warp's threads apart for a while; they meet again at the store.
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"

#define CG_PI 3.14159265358979323846
#define CG_SQRTPI 1.77245385090551602730
#define CG_EULER 0.57721566490153286061
#define CG_EPS 1.1102230246251565e-16

__device__ inline double cg_inf() { return INFINITY; }
__device__ inline double cg_nan() { return NAN; }
__device__ inline bool cg_isnan(double x) { return x != x; }
__device__ inline bool cg_isinf(double x) { return x == x && !(x - x == 0.0); }

/* ------------------------------------------------------------ Bessel J, Y */

/* PyTorch's values at +-inf are NaN */
__device__ inline double cg_bessel_j(int nu, double x)
{
    if (cg_isinf(x)) return cg_nan();
    return nu ? j1(x) : j0(x);
}

__device__ inline double cg_bessel_y(int nu, double x)
{
    if (x < 0.0 || cg_isinf(x)) return cg_nan();
    if (x == 0.0) return -cg_inf();
    return nu ? y1(x) : y0(x);
}

__device__ inline double cg_spherical_j0(double x)
{
    if (cg_isinf(x)) return 0.0;
    if (x == 0.0) return 1.0;
    return sin(x) / x;
}

/* ------------------------------------------------------- modified Bessel K */

/* K_nu(x) e^x = int_0^inf exp(-x (cosh t - 1)) cosh(nu t) dt by the trapezoidal
 * rule (step min(0.1, 0.35 / sqrt(x)): the integrand is analytic in a strip, so
 * the error is far below double precision), summed until the terms are negligible */
__device__ inline double cg_bessel_k_scaled_integral(double nu, double x)
{
    double h = 0.35 / sqrt(x);
    if (h > 0.1) h = 0.1;
    double sum = 0.5;
    for (int j = 1; j < 100000; j++) {
        const double t = j * h;
        const double sh = sinh(0.5 * t);    /* cosh t - 1 = 2 sinh(t/2)^2, exact for small t */
        const double f = exp(-2.0 * x * sh * sh) * cosh(nu * t);
        sum += f;
        if (f < 1e-18 * sum) break;
    }
    return h * sum;
}

/* K0 and K1 near 0 (x <= 1): the series in q = x^2/4 whose terms q^k / (k! (k+nu)!)
 * are also those of I_nu's series, so one loop sums both:
 *   K0 = -(ln(x/2) + gamma) I0 + sum_k H_k q^k / (k!)^2,
 *   K1 = 1/x + ln(x/2) I1 - (x/4) sum_k (psi(k+1) + psi(k+2)) q^k / (k! (k+1)!),
 *   I0 = sum_k q^k / (k!)^2, I1 = (x/2) sum_k q^k / (k! (k+1)!) */
__device__ inline double cg_k0_series(double x)
{
    const double q = x * x / 4.0;
    double term = 1.0, harmonic = 0.0, sum = 0.0, i0 = 1.0;
    bool i0_done = false, sum_done = false;
    for (int k = 1; k < 500 && !(i0_done && sum_done); k++) {
        term *= q / ((double)k * k);
        harmonic += 1.0 / k;
        if (!sum_done) {
            sum += term * harmonic;
            sum_done = k >= 99 || term * harmonic < CG_EPS * sum;
        }
        if (!i0_done) {
            i0 += term;
            i0_done = term < CG_EPS * i0;
        }
    }
    return -(log(x / 2.0) + CG_EULER) * i0 + sum;
}

__device__ inline double cg_k1_series(double x)
{
    const double q = x * x / 4.0;
    double term = 1.0, psi1 = -CG_EULER, psi2 = 1.0 - CG_EULER, i1 = 1.0;
    double sum = psi1 + psi2;
    bool i1_done = false, sum_done = false;
    for (int k = 1; k < 500 && !(i1_done && sum_done); k++) {
        term *= q / ((double)k * (k + 1));
        if (!sum_done) {
            psi1 += 1.0 / k;
            psi2 += 1.0 / (k + 1);
            const double add = term * (psi1 + psi2);
            sum += add;
            sum_done = k >= 99 || fabs(add) < CG_EPS * fabs(sum);
        }
        if (!i1_done) {
            i1 += term;
            i1_done = term < CG_EPS * i1;
        }
    }
    return 1.0 / x + log(x / 2.0) * (0.5 * x * i1) - 0.25 * x * sum;
}

/* K0/K1 (nu = 0, 1), times e^x when scaled */
__device__ inline double cg_bessel_k(int nu, double x, bool scaled)
{
    if (cg_isnan(x)) return x;
    if (x < 0.0) return cg_nan();
    if (x == 0.0) return cg_inf();
    if (cg_isinf(x)) return 0.0;
    if (x <= 1.0) {
        const double k = nu ? cg_k1_series(x) : cg_k0_series(x);
        return scaled ? k * exp(x) : k;
    }
    const double ks = cg_bessel_k_scaled_integral(nu, x);
    return scaled ? ks : ks * exp(-x);
}

/* ------------------------------------------------------------------- Airy */

/* x > 1.5: sqrt(x/3) / pi K_{1/3}(zeta), zeta = 2/3 x^{3/2}; -7 <= x <= 1.5: the
 * Maclaurin series c1 f(x) - c2 g(x); x < -7: the oscillating asymptotic form,
 * cut where its terms stop shrinking. NaN at +-inf, as PyTorch's. */
__device__ inline double cg_airy_ai(double x)
{
    if (cg_isnan(x) || cg_isinf(x)) return cg_nan();
    if (x > 1.5) {
        const double zeta = 2.0 / 3.0 * x * sqrt(x);
        if (zeta > 745.0) return 0.0;
        return sqrt(x / 3.0) / CG_PI * cg_bessel_k_scaled_integral(1.0 / 3.0, zeta) * exp(-zeta);
    }
    if (x >= -7.0) {
        const double c1 = 0.355028053887817239260, c2 = 0.258819403792806798405;
        const double x3 = x * x * x;
        double f = 1.0, g = x, tf = 1.0, tg = x;
        for (int k = 1; k < 200; k++) {
            tf *= x3 / ((3.0 * k - 1.0) * (3.0 * k));
            tg *= x3 / ((3.0 * k) * (3.0 * k + 1.0));
            f += tf;
            g += tg;
            if (fabs(tf) < CG_EPS * 1e-3 && fabs(tg) < CG_EPS * 1e-3) break;
        }
        return c1 * f - c2 * g;
    }
    const double z = -x, zeta = 2.0 / 3.0 * z * sqrt(z);
    double p = 0.0, q = 0.0, u = 1.0, zp = 1.0, last = cg_inf();
    for (int k = 0; k < 60; k++) {
        if (k > 0) u *= (6.0 * k - 5.0) * (6.0 * k - 3.0) * (6.0 * k - 1.0) / ((2.0 * k - 1.0) * 216.0 * k);
        const double term = u * zp;
        if (fabs(term) > last) break;
        last = fabs(term);
        /* even k into p, odd k into q, alternating in sign within each */
        const double sgn = ((k / 2) % 2) ? -1.0 : 1.0;
        if (k % 2 == 0) p += sgn * term; else q += sgn * term;
        if (term < CG_EPS * 1e-2) break;
        zp /= zeta;
    }
    const double phase = zeta + CG_PI / 4.0;
    return (sin(phase) * p - cos(phase) * q) / (CG_SQRTPI * pow(z, 0.25));
}

/* ----------------------------------------------- incomplete gamma functions */

/* exp(a log x - x - lgamma(a)): the prefactor of both */
__device__ inline double cg_igamma_prefactor(double a, double x)
{
    return exp(a * log(x) - x - lgamma(a));
}

/* lower regularized P(a, x) by its series (x < a + 1) */
__device__ inline double cg_igamma_series(double a, double x)
{
    double term = 1.0 / a, sum = term;
    for (int n = 1; n < 100000; n++) {
        term *= x / (a + n);
        sum += term;
        if (term < sum * CG_EPS) break;
    }
    return sum * cg_igamma_prefactor(a, x);
}

/* upper regularized Q(a, x) by its continued fraction, Lentz's method (x >= a + 1) */
__device__ inline double cg_igammac_cf(double a, double x)
{
    const double tiny = 1e-300;
    double b = x + 1.0 - a, c = 1.0 / tiny, d = 1.0 / b, h = d;
    for (int i = 1; i < 100000; i++) {
        const double an = -i * (i - a);
        b += 2.0;
        d = an * d + b;
        if (fabs(d) < tiny) d = tiny;
        c = b + an / c;
        if (fabs(c) < tiny) c = tiny;
        d = 1.0 / d;
        const double del = d * c;
        h *= del;
        if (fabs(del - 1.0) < CG_EPS) break;
    }
    return h * cg_igamma_prefactor(a, x);
}

/* lgamma(1 + a) for |a| <= 0.2 by its series -gamma a + sum_k (-a)^k zeta(k) / k
 * (lgamma(1 + a) itself loses a's low bits when 1 + a rounds); zeta(k) for
 * k = 2..39, correctly rounded (mpmath, 40 digits) */
__device__ inline double cg_lgamma1p_small(double a)
{
    const double zeta[38] = {
        1.6449340668482264, 1.2020569031595942, 1.0823232337111381, 1.03692775514337,
        1.0173430619844492, 1.008349277381923, 1.0040773561979444, 1.0020083928260821,
        1.000994575127818, 1.0004941886041194, 1.000246086553308, 1.0001227133475785,
        1.0000612481350588, 1.000030588236307, 1.0000152822594086, 1.0000076371976379,
        1.000003817293265, 1.0000019082127165, 1.0000009539620338, 1.0000004769329869,
        1.0000002384505027, 1.000000119219926, 1.000000059608189, 1.0000000298035034,
        1.0000000149015549, 1.0000000074507118, 1.000000003725334, 1.0000000018626598,
        1.0000000009313275, 1.0000000004656628, 1.000000000232831, 1.0000000001164155,
        1.0000000000582077, 1.0000000000291038, 1.000000000014552, 1.000000000007276,
        1.000000000003638, 1.000000000001819};
    double sum = -CG_EULER * a, ak = -a;     /* ak = (-a)^k */
    for (int k = 2; k < 40; k++) {
        ak *= -a;
        const double term = ak * zeta[k - 2] / k;
        sum += term;
        if (fabs(term) <= CG_EPS * fabs(sum)) break;
    }
    return sum;
}

/* Q(a, x) for a <= 0.2 and x < a + 1, where 1 - P would cancel: from
 * P = e^u (1 + a S), u = a ln x - lgamma(1 + a), S = sum_{n>=1} (-x)^n / ((a + n) n!),
 * Q = -expm1(u) - e^u a S */
__device__ inline double cg_igammac_small_a(double a, double x)
{
    const double u = a * log(x) - cg_lgamma1p_small(a);
    double term = 1.0, sum = 0.0;
    for (int n = 1; n < 200; n++) {
        term *= -x / n;
        const double add = term / (a + n);
        sum += add;
        if (fabs(add) <= CG_EPS * fabs(sum)) break;
    }
    return -expm1(u) - exp(u) * a * sum;
}

/* PyTorch's order of checks: a NaN beside x = 0 or x = inf gives the limit */
__device__ inline double cg_igamma(double a, double x)
{
    if (a < 0.0 || x < 0.0) return cg_nan();
    if (a == 0.0) return x > 0.0 ? 1.0 : cg_nan();
    if (x == 0.0) return 0.0;
    if (cg_isinf(a)) return cg_isinf(x) ? cg_nan() : 0.0;
    if (cg_isinf(x)) return 1.0;
    if (cg_isnan(a) || cg_isnan(x)) return cg_nan();
    if (x < a + 1.0) return cg_igamma_series(a, x);
    return 1.0 - cg_igammac_cf(a, x);
}

__device__ inline double cg_igammac(double a, double x)
{
    if (a < 0.0 || x < 0.0) return cg_nan();
    if (a == 0.0) return x > 0.0 ? 0.0 : cg_nan();
    if (x == 0.0) return 1.0;
    if (cg_isinf(a)) return cg_isinf(x) ? cg_nan() : 1.0;
    if (cg_isinf(x)) return 0.0;
    if (cg_isnan(a) || cg_isnan(x)) return cg_nan();
    if (x < a + 1.0) return a <= 0.2 ? cg_igammac_small_a(a, x) : 1.0 - cg_igamma_series(a, x);
    return cg_igammac_cf(a, x);
}

/* ----------------------------------------------------- orthogonal polynomials */

/* the degree as PyTorch reads it: the value cast to an integer; NaN and values
 * out of int64's range give INT64_MIN (x86's conversion), so a degree < 0 */
__device__ inline long long cg_degree(double n)
{
    if (!(n > -9.2e18 && n < 9.2e18)) return (long long)(-9223372036854775807LL - 1);
    return (long long)n;
}

/* y_n of a three-term recurrence y_{k+1} = step(k, y_k, y_{k-1}) from y_0 = 1
 * and y_1 (n >= 1); after an overflow NaN stays NaN, so the loop stops there */
template <typename F> __device__ inline double cg_recurrence(long long n, double y1, F step)
{
    double p = 1.0, q = y1;
    for (long long k = 1; k < n; k++) {
        const double r = step((double)k, q, p);
        p = q;
        q = r;
        if (cg_isnan(q)) break;
    }
    return q;
}

/* Chebyshev T, U, V, W: y_{k+1} = 2x y_k - y_{k-1}, from their own y_1 */
__device__ inline double cg_chebyshev(double x, long long n, double y1)
{
    if (n < 0) return 0.0;
    if (n == 0) return 1.0;
    return cg_recurrence(n, y1, [x](double, double q, double p) { return 2.0 * x * q - p; });
}

__device__ inline double cg_chebyshev_t(double x, long long n)
{
    if (n < 0) return 0.0;
    if (fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
    if (n > 6 && fabs(x) < 1.0) return cos((double)n * acos(x));
    return cg_chebyshev(x, n, x);
}

__device__ inline double cg_chebyshev_u(double x, long long n)
{
    if (n < 0) return 0.0;
    if (fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? n + 1.0 : -(n + 1.0);
    if (n > 8 && fabs(x) < 1.0) {
        const double th = acos(x);
        if (sin(th) != 0.0) return sin((n + 1.0) * th) / sin(th);
        return (n + 1.0) * cos((n + 1.0) * th) / x;
    }
    return cg_chebyshev(x, n, 2.0 * x);
}

__device__ inline double cg_chebyshev_v(double x, long long n)
{
    if (n < 0) return 0.0;
    if (fabs(x) == 1.0) return x > 0 ? 1.0 : (n % 2 == 0 ? n + n + 1.0 : -(n + n + 1.0));
    return cg_chebyshev(x, n, 2.0 * x - 1.0);
}

__device__ inline double cg_chebyshev_w(double x, long long n)
{
    if (n < 0) return 0.0;
    if (fabs(x) == 1.0) return x > 0 ? n + n + 1.0 : (n % 2 == 0 ? 1.0 : -1.0);
    return cg_chebyshev(x, n, 2.0 * x + 1.0);
}

__device__ inline double cg_hermite_h(double x, long long n)
{
    if (n < 0) return 0.0;
    if (n == 0) return 1.0;
    return cg_recurrence(n, 2.0 * x,
                         [x](double k, double q, double p) { return 2.0 * x * q - 2.0 * k * p; });
}

__device__ inline double cg_hermite_he(double x, long long n)
{
    if (n < 0) return 0.0;
    if (n == 0) return 1.0;
    return cg_recurrence(n, x, [x](double k, double q, double p) { return x * q - k * p; });
}

__device__ inline double cg_laguerre(double x, long long n)
{
    if (n < 0) return 0.0;
    if (x == 0.0 || n == 0) return 1.0;
    return cg_recurrence(n, 1.0 - x, [x](double k, double q, double p) {
        return ((2.0 * k + 1.0 - x) * q - k * p) / (k + 1.0);
    });
}

__device__ inline double cg_legendre(double x, long long n)
{
    if (n < 0) return 0.0;
    if (fabs(x) == 1.0) return (x > 0 || n % 2 == 0) ? 1.0 : -1.0;
    if (n == 0) return 1.0;
    return cg_recurrence(n, x, [x](double k, double q, double p) {
        return ((2.0 * k + 1.0) * x * q - k * p) / (k + 1.0);
    });
}

/* ------------------------------------------------------------------ loops */

/* offsets of the i-th element (row-major over g.shape) in out, a and b */
__device__ inline void cg_special_offsets(const cg_geometry& g, cg_index i, cg_index off[3])
{
    off[0] = off[1] = off[2] = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
        /* the outermost dim needs no division: i is below its size by then */
        const cg_index k = d > 0 ? i % g.shape[d] : i;
        if (d > 0) i /= g.shape[d];
        off[0] += k * g.stride_out[d];
        off[1] += k * g.stride_a[d];
        off[2] += k * g.stride_b[d];
    }
}

/* storage <-> double; float16 and bfloat16 (igamma's only) round through float */
template <typename S> __device__ inline double cg_load(S v) { return (double)v; }
template <> __device__ inline double cg_load(__half v) { return (double)__half2float(v); }
template <> __device__ inline double cg_load(__nv_bfloat16 v) { return (double)__bfloat162float(v); }
template <typename S> __device__ inline S cg_store(double v) { return (S)v; }
template <> __device__ inline __half cg_store(double v) { return __float2half_rn((float)v); }
template <> __device__ inline __nv_bfloat16 cg_store(double v) { return __float2bfloat16_rn((float)v); }

template <typename S, typename F>
__device__ inline void cg_special_map(cg_index n, const cg_geometry& g, S* out, const S* a,
                                      const S* b, F f)
{
    const cg_index step = (cg_index)blockDim.x * gridDim.x;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        cg_index off[3];
        cg_special_offsets(g, i, off);
        /* in double for every dtype, then rounded to S, as the CPU does */
        const double x = cg_load(a[off[1]]);
        out[off[0]] = cg_store<S>(b ? f(x, cg_load(b[off[2]])) : f(x, 0.0));
    }
}

/* one functor per op, then its f32 and f64 entry points */
#define CG_SPECIAL(OP, EXPR)                                                                     \
    struct cg_sf_##OP {                                                                          \
        __device__ double operator()(double x, double y) const { (void)y; return EXPR; }         \
    };
#define CG_UNARY_ENTRY(OP, SFX, T)                                                               \
    extern "C" __global__ void cg_##OP##_##SFX##_strided(cg_index n, cg_geometry g, T* out,      \
                                                         const T* a)                             \
    {                                                                                            \
        cg_special_map<T>(n, g, out, a, (const T*)0, cg_sf_##OP());                              \
    }
#define CG_BINARY_ENTRY(OP, SFX, T)                                                              \
    extern "C" __global__ void cg_##OP##_##SFX##_strided(cg_index n, cg_geometry g, T* out,      \
                                                         const T* a, const T* b)                 \
    {                                                                                            \
        cg_special_map<T>(n, g, out, a, b, cg_sf_##OP());                                        \
    }
#define CG_UNARY(OP, EXPR) CG_SPECIAL(OP, EXPR) CG_UNARY_ENTRY(OP, f32, float) CG_UNARY_ENTRY(OP, f64, double)
#define CG_BINARY(OP, EXPR) CG_SPECIAL(OP, EXPR) CG_BINARY_ENTRY(OP, f32, float) CG_BINARY_ENTRY(OP, f64, double)

CG_UNARY(bessel_j0, cg_bessel_j(0, x))
CG_UNARY(bessel_j1, cg_bessel_j(1, x))
CG_UNARY(bessel_y0, cg_bessel_y(0, x))
CG_UNARY(bessel_y1, cg_bessel_y(1, x))
CG_UNARY(modified_bessel_k0, cg_bessel_k(0, x, false))
CG_UNARY(modified_bessel_k1, cg_bessel_k(1, x, false))
CG_UNARY(scaled_modified_bessel_k0, cg_bessel_k(0, x, true))
CG_UNARY(scaled_modified_bessel_k1, cg_bessel_k(1, x, true))
CG_UNARY(spherical_bessel_j0, cg_spherical_j0(x))
CG_UNARY(airy_ai, cg_airy_ai(x))
CG_BINARY(igamma, cg_igamma(x, y))
CG_BINARY(igammac, cg_igammac(x, y))
/* the CPU's igamma rows also take float16 and bfloat16 (the other rows refuse them) */
CG_BINARY_ENTRY(igamma, f16, __half) CG_BINARY_ENTRY(igamma, bf16, __nv_bfloat16)
CG_BINARY_ENTRY(igammac, f16, __half) CG_BINARY_ENTRY(igammac, bf16, __nv_bfloat16)
/* the polynomials: x, then the degree n; the shifted ones at 2x - 1 */
CG_BINARY(chebyshev_polynomial_t, cg_chebyshev_t(x, cg_degree(y)))
CG_BINARY(chebyshev_polynomial_u, cg_chebyshev_u(x, cg_degree(y)))
CG_BINARY(chebyshev_polynomial_v, cg_chebyshev_v(x, cg_degree(y)))
CG_BINARY(chebyshev_polynomial_w, cg_chebyshev_w(x, cg_degree(y)))
CG_BINARY(shifted_chebyshev_polynomial_t, cg_chebyshev_t(2.0 * x - 1.0, cg_degree(y)))
CG_BINARY(shifted_chebyshev_polynomial_u, cg_chebyshev_u(2.0 * x - 1.0, cg_degree(y)))
CG_BINARY(shifted_chebyshev_polynomial_v, cg_chebyshev_v(2.0 * x - 1.0, cg_degree(y)))
CG_BINARY(shifted_chebyshev_polynomial_w, cg_chebyshev_w(2.0 * x - 1.0, cg_degree(y)))
CG_BINARY(hermite_polynomial_h, cg_hermite_h(x, cg_degree(y)))
CG_BINARY(hermite_polynomial_he, cg_hermite_he(x, cg_degree(y)))
CG_BINARY(laguerre_polynomial_l, cg_laguerre(x, cg_degree(y)))
CG_BINARY(legendre_polynomial_p, cg_legendre(x, cg_degree(y)))
