/* Small-operand kernels: see fastpath.h. Plain loops the compiler vectorizes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fastpath.h"
#include "kernels.h"

/* ---------------------------------------------------------------- matmul */

/* Row i of the result accumulates a[i, p] * b[p, :] for p in order: the inner loop
 * runs along contiguous rows of b and out, so it vectorizes. */
#define DEF_MATMUL(NAME, T)                                                      \
    static void NAME(cgf_index m, cgf_index k, cgf_index n, const T* a,          \
                     const T* b, T* out) {                                       \
        for (cgf_index i = 0; i < m; i++) {                                      \
            T* o = out + i * n;                                                  \
            for (cgf_index j = 0; j < n; j++) o[j] = 0;                          \
            for (cgf_index p = 0; p < k; p++) {                                  \
                const T av = a[i * k + p];                                       \
                const T* br = b + p * n;                                         \
                for (cgf_index j = 0; j < n; j++) o[j] += av * br[j];            \
            }                                                                    \
        }                                                                        \
    }
DEF_MATMUL(matmul_f32, float)
DEF_MATMUL(matmul_f64, double)

/* Complex numbers as (re, im) pairs, multiplied by the textbook formula (NumPy's
 * too): C's complex '*' would call a library routine for its inf/NaN rules. */
#define DEF_CMATMUL(NAME, T)                                                     \
    static void NAME(cgf_index m, cgf_index k, cgf_index n, const T* a,          \
                     const T* b, T* out) {                                       \
        for (cgf_index i = 0; i < m; i++) {                                      \
            T* o = out + 2 * i * n;                                              \
            for (cgf_index j = 0; j < 2 * n; j++) o[j] = 0;                      \
            for (cgf_index p = 0; p < k; p++) {                                  \
                const T ar = a[2 * (i * k + p)], ai = a[2 * (i * k + p) + 1];    \
                const T* br = b + 2 * p * n;                                     \
                for (cgf_index j = 0; j < n; j++) {                              \
                    o[2 * j] += ar * br[2 * j] - ai * br[2 * j + 1];             \
                    o[2 * j + 1] += ar * br[2 * j + 1] + ai * br[2 * j];         \
                }                                                                \
            }                                                                    \
        }                                                                        \
    }
DEF_CMATMUL(matmul_c64, float)
DEF_CMATMUL(matmul_c128, double)

int cgf_matmul(int dtype, cgf_index m, cgf_index k, cgf_index n,
               const char* a, const char* b, char* out) {
    switch (dtype) {
    case CG_FLOAT32: matmul_f32(m, k, n, (const float*)a, (const float*)b, (float*)out); return 0;
    case CG_FLOAT64: matmul_f64(m, k, n, (const double*)a, (const double*)b, (double*)out); return 0;
    case CG_COMPLEX64: matmul_c64(m, k, n, (const float*)a, (const float*)b, (float*)out); return 0;
    case CG_COMPLEX128: matmul_c128(m, k, n, (const double*)a, (const double*)b, (double*)out); return 0;
    default: return -1;
    }
}

/* ---------------------------------------------------------------- where */

#define DEF_WHERE(NAME, T)                                                       \
    static void NAME(cgf_index n, const uint8_t* c, const T* x, const T* y, T* o) { \
        for (cgf_index i = 0; i < n; i++) o[i] = c[i] ? x[i] : y[i];             \
    }
DEF_WHERE(where_1, uint8_t)
DEF_WHERE(where_2, uint16_t)
DEF_WHERE(where_4, uint32_t)
DEF_WHERE(where_8, uint64_t)

int cgf_where(int itemsize, cgf_index n, const uint8_t* cond, const char* x, const char* y,
              char* out) {
    switch (itemsize) {
    case 1: where_1(n, cond, (const uint8_t*)x, (const uint8_t*)y, (uint8_t*)out); return 0;
    case 2: where_2(n, cond, (const uint16_t*)x, (const uint16_t*)y, (uint16_t*)out); return 0;
    case 4: where_4(n, cond, (const uint32_t*)x, (const uint32_t*)y, (uint32_t*)out); return 0;
    case 8: where_8(n, cond, (const uint64_t*)x, (const uint64_t*)y, (uint64_t*)out); return 0;
    case 16:
        for (cgf_index i = 0; i < n; i++)
            memcpy(out + 16 * i, (cond[i] ? x : y) + 16 * i, 16);
        return 0;
    default: return -1;
    }
}

/* ---------------------------------------------------------------- reductions */

static double finish(int op, double sum, double ssd, cgf_index n, double correction) {
    if (op == CGF_SUM) return sum;
    if (op == CGF_MEAN) return sum / (double)n;
    double var = ssd / ((double)n - correction);
    return op == CGF_STD ? sqrt(var) : var;
}

/* Contiguous runs (inner == 1): four accumulators keep the adds independent.
 * Along a strided middle axis: one double accumulator per inner position, rows
 * added in order. The deviations' pass (var/std) reuses the same shapes. */
#define DEF_REDUCE(NAME, T)                                                      \
    static int NAME(int op, cgf_index outer, cgf_index n, cgf_index inner,       \
                    double correction, const T* a, T* out) {                     \
        int spread = op == CGF_VAR || op == CGF_STD;                             \
        if (inner == 1) {                                                        \
            for (cgf_index o = 0; o < outer; o++) {                              \
                const T* row = a + o * n;                                        \
                double s[4] = {0, 0, 0, 0}, ssd = 0;                             \
                cgf_index p = 0;                                                 \
                for (; p + 4 <= n; p += 4)                                       \
                    for (int l = 0; l < 4; l++) s[l] += row[p + l];              \
                for (; p < n; p++) s[0] += row[p];                               \
                double sum = (s[0] + s[1]) + (s[2] + s[3]);                      \
                if (spread) {                                                    \
                    double mean = sum / (double)n;                               \
                    for (p = 0; p < n; p++) {                                    \
                        double d = row[p] - mean;                                \
                        ssd += d * d;                                            \
                    }                                                            \
                }                                                                \
                out[o] = (T)finish(op, sum, ssd, n, correction);                 \
            }                                                                    \
            return 0;                                                            \
        }                                                                        \
        double* acc = malloc(sizeof(double) * 2 * inner);                        \
        if (!acc) return 1;                                                      \
        double* dev = acc + inner;                                               \
        for (cgf_index o = 0; o < outer; o++) {                                  \
            const T* block = a + o * n * inner;                                  \
            for (cgf_index j = 0; j < inner; j++) acc[j] = dev[j] = 0;           \
            for (cgf_index p = 0; p < n; p++)                                    \
                for (cgf_index j = 0; j < inner; j++) acc[j] += block[p * inner + j]; \
            if (spread) {                                                        \
                for (cgf_index j = 0; j < inner; j++) acc[j] /= (double)n;       \
                for (cgf_index p = 0; p < n; p++)                                \
                    for (cgf_index j = 0; j < inner; j++) {                      \
                        double d = block[p * inner + j] - acc[j];                \
                        dev[j] += d * d;                                         \
                    }                                                            \
                for (cgf_index j = 0; j < inner; j++)                            \
                    out[o * inner + j] = (T)finish(op, 0, dev[j], n, correction); \
            } else {                                                             \
                for (cgf_index j = 0; j < inner; j++)                            \
                    out[o * inner + j] = (T)finish(op, acc[j], 0, n, correction); \
            }                                                                    \
        }                                                                        \
        free(acc);                                                               \
        return 0;                                                                \
    }
DEF_REDUCE(reduce_f32, float)
DEF_REDUCE(reduce_f64, double)

/* float32 data is accumulated in double here, in float32 by NumPy (the general
 * route): the results agree but where a float32 sum or square could overflow to
 * inf. Below this bound neither can, for the sizes the caller lets through. */
#define F32_SAFE_MAGNITUDE 1e15f

static int f32_sums_safe(const float* a, cgf_index count) {
    int safe = 1;
    for (cgf_index i = 0; i < count; i++) {
        const float m = fabsf(a[i]);
        safe &= !(m > F32_SAFE_MAGNITUDE && m != INFINITY);
    }
    return safe;
}

int cgf_reduce_mid(int op, int dtype, cgf_index outer, cgf_index n, cgf_index inner,
                   double correction, const char* a, char* out) {
    if (op < CGF_SUM || op > CGF_STD) return -1;
    switch (dtype) {
    case CG_FLOAT32:
        if (!f32_sums_safe((const float*)a, outer * n * inner)) return 1;
        return reduce_f32(op, outer, n, inner, correction, (const float*)a, (float*)out);
    case CG_FLOAT64: return reduce_f64(op, outer, n, inner, correction, (const double*)a, (double*)out);
    default: return -1;
    }
}

/* ---------------------------------------------------------------- solve */

#define DEF_SOLVE(NAME, T)                                                       \
    static int NAME(cgf_index n, cgf_index k, const T* a, const T* b, T* x) {    \
        for (cgf_index i = 0; i < n * n; i++) if (!isfinite(a[i])) return 1;     \
        for (cgf_index i = 0; i < n * k; i++) if (!isfinite(b[i])) return 1;     \
        T* lu = malloc(sizeof(T) * n * n);                                       \
        if (!lu) return 1;                                                       \
        memcpy(lu, a, sizeof(T) * n * n);                                        \
        memcpy(x, b, sizeof(T) * n * k);                                         \
        for (cgf_index c = 0; c < n; c++) {                                      \
            cgf_index piv = c;                                                   \
            T best = (T)fabs(lu[c * n + c]);                                     \
            for (cgf_index r = c + 1; r < n; r++) {                              \
                T v = (T)fabs(lu[r * n + c]);                                    \
                if (v > best) { best = v; piv = r; }                             \
            }                                                                    \
            if (best == 0) { free(lu); return 1; }                               \
            if (piv != c) {                                                      \
                for (cgf_index j = 0; j < n; j++) {                              \
                    T t = lu[c * n + j]; lu[c * n + j] = lu[piv * n + j]; lu[piv * n + j] = t; \
                }                                                                \
                for (cgf_index j = 0; j < k; j++) {                              \
                    T t = x[c * k + j]; x[c * k + j] = x[piv * k + j]; x[piv * k + j] = t; \
                }                                                                \
            }                                                                    \
            const T d = lu[c * n + c];                                           \
            for (cgf_index r = c + 1; r < n; r++) {                              \
                const T f = lu[r * n + c] / d;                                   \
                if (f == 0) continue;                                            \
                for (cgf_index j = c + 1; j < n; j++) lu[r * n + j] -= f * lu[c * n + j]; \
                for (cgf_index j = 0; j < k; j++) x[r * k + j] -= f * x[c * k + j]; \
            }                                                                    \
        }                                                                        \
        for (cgf_index r = n - 1; r >= 0; r--) {                                 \
            for (cgf_index q = r + 1; q < n; q++) {                              \
                const T f = lu[r * n + q];                                       \
                for (cgf_index j = 0; j < k; j++) x[r * k + j] -= f * x[q * k + j]; \
            }                                                                    \
            const T d = lu[r * n + r];                                           \
            for (cgf_index j = 0; j < k; j++) x[r * k + j] /= d;                 \
        }                                                                        \
        free(lu);                                                                \
        return 0;                                                                \
    }
DEF_SOLVE(solve_f32, float)
DEF_SOLVE(solve_f64, double)

int cgf_solve(int dtype, cgf_index n, cgf_index k, const char* a, const char* b, char* out) {
    switch (dtype) {
    case CG_FLOAT32: return solve_f32(n, k, (const float*)a, (const float*)b, (float*)out);
    case CG_FLOAT64: return solve_f64(n, k, (const double*)a, (const double*)b, (double*)out);
    default: return -1;
    }
}

/* ---------------------------------------------------------------- complex elementwise */

#define DEF_CBINARY(NAME, T)                                                     \
    static int NAME(int op, cgf_index n, const T* a, const T* b, T* o) {         \
        switch (op) {                                                            \
        case CGF_CADD:                                                           \
            for (cgf_index i = 0; i < 2 * n; i++) o[i] = a[i] + b[i];            \
            return 0;                                                            \
        case CGF_CSUB:                                                           \
            for (cgf_index i = 0; i < 2 * n; i++) o[i] = a[i] - b[i];            \
            return 0;                                                            \
        case CGF_CMUL:                                                           \
            for (cgf_index i = 0; i < n; i++) {                                  \
                const T ar = a[2 * i], ai = a[2 * i + 1];                        \
                const T br = b[2 * i], bi = b[2 * i + 1];                        \
                o[2 * i] = ar * br - ai * bi;                                    \
                o[2 * i + 1] = ar * bi + ai * br;                                \
            }                                                                    \
            return 0;                                                            \
        default:                                                                 \
            return -1;                                                           \
        }                                                                        \
    }
DEF_CBINARY(cbinary_c64, float)
DEF_CBINARY(cbinary_c128, double)

int cgf_complex_binary(int op, int dtype, cgf_index n, const char* a, const char* b, char* out) {
    switch (dtype) {
    case CG_COMPLEX64: return cbinary_c64(op, n, (const float*)a, (const float*)b, (float*)out);
    case CG_COMPLEX128: return cbinary_c128(op, n, (const double*)a, (const double*)b, (double*)out);
    default: return -1;
    }
}

/* |re + i im| by NumPy's formula for contiguous arrays (its SIMD loop), so results
 * are NumPy's to the bit, not libm hypot's (which can differ in the last place):
 * larger * sqrt(ratio * ratio + 1) with one fused multiply-add, ratio = smaller /
 * larger. An infinite part makes the result inf even beside a NaN; a NaN part
 * otherwise makes it NaN; 0 / 0 and inf / inf are avoided (ratio 0). */
#define DEF_CABS(NAME, T, SQRT, FMA, FABS)                                       \
    static void NAME(cgf_index n, const T* z, T* o) {                            \
        for (cgf_index i = 0; i < n; i++) {                                      \
            T re = FABS(z[2 * i]), im = FABS(z[2 * i + 1]);                      \
            const int re_inf = re == (T)INFINITY, im_inf = im == (T)INFINITY;    \
            if (re_inf) im = (T)INFINITY;                                        \
            if (im_inf) re = (T)INFINITY;                                        \
            const int re_nan = re != re, im_nan = im != im;                      \
            if (re_nan) im = (T)NAN;                                             \
            if (im_nan) re = (T)NAN;                                             \
            const T larger = re > im ? re : im, smaller = re > im ? im : re;     \
            const T ratio = (larger == 0 || smaller == (T)INFINITY) ? 0 : smaller / larger; \
            o[i] = SQRT(FMA(ratio, ratio, (T)1)) * larger;                       \
        }                                                                        \
    }
DEF_CABS(cabs_c64, float, sqrtf, fmaf, fabsf)
DEF_CABS(cabs_c128, double, sqrt, fma, fabs)

int cgf_complex_abs(int dtype, cgf_index n, const char* a, char* out) {
    switch (dtype) {
    case CG_COMPLEX64: cabs_c64(n, (const float*)a, (float*)out); return 0;
    case CG_COMPLEX128: cabs_c128(n, (const double*)a, (double*)out); return 0;
    default: return -1;
    }
}
