/* Small-operand kernels: see fastpath.h. Plain loops the compiler vectorizes. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fastpath.h"
#include "kernels.h"

/* ---------------------------------------------------------------- matmul */

/* GCC/Clang vector extensions, 32 bytes (8 floats, 4 doubles): portable SIMD that
 * compiles to AVX/SSE as -march allows; loads and stores go through memcpy. */
typedef float v8f __attribute__((vector_size(32)));
typedef double v4d __attribute__((vector_size(32)));

/* Four rows of the result at a time, one vector of columns per step: the four
 * accumulators stay in registers over the whole k loop (independent adds, no
 * reload of the output), b's vector is loaded once for the four rows; the rows left
 * over go one at a time, the columns past the last whole vector in a plain loop. A
 * complex product is the same loop over the interleaved (re, im) floats of a row,
 * with two terms: ar * b[p, :] + ai * bs[p, :], where bs holds (-im, re) of b. */
#define DEF_MATMUL(NAME, T, VT, CPLX)                                            \
    CG_HOT static void NAME(cgf_index m, cgf_index k, cgf_index n, const T* a,          \
                     const T* b, const T* bs, T* out) {                          \
        enum { W = sizeof(VT) / sizeof(T) };                                     \
        const cgf_index s = CPLX ? 2 : 1, cols = s * n, row_a = s * k;           \
        const cgf_index full = cols - cols % W;                                  \
        cgf_index i = 0;                                                         \
        for (; i + 4 <= m; i += 4) {                                             \
            const T* a0 = a + i * row_a;                                         \
            for (cgf_index j = 0; j < full; j += W) {                            \
                VT c0 = {0}, c1 = {0}, c2 = {0}, c3 = {0}, bv, bw;               \
                for (cgf_index p = 0; p < k; p++) {                              \
                    memcpy(&bv, b + p * cols + j, sizeof bv);                    \
                    c0 += a0[s * p] * bv;                                        \
                    c1 += a0[row_a + s * p] * bv;                                \
                    c2 += a0[2 * row_a + s * p] * bv;                            \
                    c3 += a0[3 * row_a + s * p] * bv;                            \
                    if (CPLX) {                                                  \
                        memcpy(&bw, bs + p * cols + j, sizeof bw);               \
                        c0 += a0[s * p + 1] * bw;                                \
                        c1 += a0[row_a + s * p + 1] * bw;                        \
                        c2 += a0[2 * row_a + s * p + 1] * bw;                    \
                        c3 += a0[3 * row_a + s * p + 1] * bw;                    \
                    }                                                            \
                }                                                                \
                memcpy(out + i * cols + j, &c0, sizeof c0);                      \
                memcpy(out + (i + 1) * cols + j, &c1, sizeof c1);                \
                memcpy(out + (i + 2) * cols + j, &c2, sizeof c2);                \
                memcpy(out + (i + 3) * cols + j, &c3, sizeof c3);                \
            }                                                                    \
        }                                                                        \
        for (; i < m; i++) {              /* the rows left over, one at a time */ \
            const T* a0 = a + i * row_a;                                         \
            for (cgf_index j = 0; j < full; j += W) {                            \
                VT c0 = {0}, bv, bw;                                             \
                for (cgf_index p = 0; p < k; p++) {                              \
                    memcpy(&bv, b + p * cols + j, sizeof bv);                    \
                    c0 += a0[s * p] * bv;                                        \
                    if (CPLX) {                                                  \
                        memcpy(&bw, bs + p * cols + j, sizeof bw);               \
                        c0 += a0[s * p + 1] * bw;                                \
                    }                                                            \
                }                                                                \
                memcpy(out + i * cols + j, &c0, sizeof c0);                      \
            }                                                                    \
        }                                                                        \
        for (cgf_index r = 0; r < m; r++) {   /* columns past the last vector */ \
            for (cgf_index j = full; j < cols; j++) {                            \
                T acc = 0;                                                       \
                for (cgf_index p = 0; p < k; p++) {                              \
                    acc += a[r * row_a + s * p] * b[p * cols + j];               \
                    if (CPLX) acc += a[r * row_a + s * p + 1] * bs[p * cols + j]; \
                }                                                                \
                out[r * cols + j] = acc;                                         \
            }                                                                    \
        }                                                                        \
    }
DEF_MATMUL(matmul_f32, float, v8f, 0)
DEF_MATMUL(matmul_f64, double, v4d, 0)
DEF_MATMUL(matmul_c64, float, v8f, 1)
DEF_MATMUL(matmul_c128, double, v4d, 1)

/* bs = (-im, re) of each complex element of b: the term that multiplies ai. */
#define DEF_SWAP(NAME, T)                                                        \
    static T* NAME(cgf_index count, const T* b) {                                \
        T* bs = malloc(sizeof(T) * 2 * count);                                   \
        if (!bs) return NULL;                                                    \
        for (cgf_index q = 0; q < count; q++) {                                  \
            bs[2 * q] = -b[2 * q + 1];                                           \
            bs[2 * q + 1] = b[2 * q];                                            \
        }                                                                        \
        return bs;                                                               \
    }
DEF_SWAP(swapped_f32, float)
DEF_SWAP(swapped_f64, double)

int cgf_matmul(int dtype, cgf_index m, cgf_index k, cgf_index n,
               const char* a, const char* b, char* out) {
    switch (dtype) {
    case CG_FLOAT32:
        matmul_f32(m, k, n, (const float*)a, (const float*)b, NULL, (float*)out);
        return 0;
    case CG_FLOAT64:
        matmul_f64(m, k, n, (const double*)a, (const double*)b, NULL, (double*)out);
        return 0;
    case CG_COMPLEX64: {
        float* bs = swapped_f32(k * n, (const float*)b);
        if (!bs) return 1;
        matmul_c64(m, k, n, (const float*)a, (const float*)b, bs, (float*)out);
        free(bs);
        return 0;
    }
    case CG_COMPLEX128: {
        double* bs = swapped_f64(k * n, (const double*)b);
        if (!bs) return 1;
        matmul_c128(m, k, n, (const double*)a, (const double*)b, bs, (double*)out);
        free(bs);
        return 0;
    }
    default: return -1;
    }
}

/* ---------------------------------------------------------------- where */

#define DEF_WHERE(NAME, T)                                                       \
    CG_HOT static void NAME(cgf_index n, const uint8_t* c, const T* x, const T* y, T* o) { \
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

/* ------------------------------------------------- strided, broadcast select */

/* One row: n elements, each operand with its own element stride (0: broadcast).
 * The common rows (everything contiguous, or x/y a broadcast scalar) get loops of
 * their own so the compiler turns them into blends. */
#define DEF_SELECT_ROW(NAME, T)                                                  \
    CG_HOT static void NAME(cgf_index n, const uint8_t* c, cgf_index sc,         \
                            const T* x, cgf_index sx, const T* y, cgf_index sy,  \
                            T* o, cgf_index so) {                                \
        if (so == 1 && sc == 1) {                                                \
            if (sx == 1 && sy == 1) {                                            \
                for (cgf_index i = 0; i < n; i++) o[i] = c[i] ? x[i] : y[i];     \
                return;                                                          \
            }                                                                    \
            if (sx == 0 && sy == 1) {                                            \
                const T xv = x[0];                                               \
                for (cgf_index i = 0; i < n; i++) o[i] = c[i] ? xv : y[i];       \
                return;                                                          \
            }                                                                    \
            if (sx == 1 && sy == 0) {                                            \
                const T yv = y[0];                                               \
                for (cgf_index i = 0; i < n; i++) o[i] = c[i] ? x[i] : yv;       \
                return;                                                          \
            }                                                                    \
        }                                                                        \
        if (so == 1 && sc == 0) {          /* one condition for the whole row */ \
            const T* src = c[0] ? x : y;                                         \
            cgf_index ss = c[0] ? sx : sy;                                       \
            for (cgf_index i = 0; i < n; i++) o[i] = src[i * ss];                \
            return;                                                              \
        }                                                                        \
        for (cgf_index i = 0; i < n; i++)                                        \
            o[i * so] = c[i * sc] ? x[i * sx] : y[i * sy];                       \
    }
DEF_SELECT_ROW(select_row_1, uint8_t)
DEF_SELECT_ROW(select_row_2, uint16_t)
DEF_SELECT_ROW(select_row_4, uint32_t)
DEF_SELECT_ROW(select_row_8, uint64_t)

int cgf_select(int itemsize, int ndim, const cgf_index* shape,
               char* out, const cgf_index* so, const uint8_t* cond, const cgf_index* sc,
               const char* x, const cgf_index* sx, const char* y, const cgf_index* sy) {
    if (itemsize != 1 && itemsize != 2 && itemsize != 4 && itemsize != 8) return -1;
    if (ndim < 1 || ndim > 64) return -1;
    cgf_index idx[64] = {0};
    const int last = ndim - 1;
    const cgf_index n = shape[last];
    for (int d = 0; d < ndim; d++)
        if (shape[d] == 0) return 0;
    /* element strides of the row; byte offsets of the outer dims */
    const cgf_index eo = so[last] / itemsize, ec = sc[last], ex = sx[last] / itemsize,
                    ey = sy[last] / itemsize;
    char* po = out; const uint8_t* pc = cond; const char* px = x; const char* py = y;
    for (;;) {
        switch (itemsize) {
        case 1: select_row_1(n, pc, ec, (const uint8_t*)px, ex, (const uint8_t*)py, ey,
                             (uint8_t*)po, eo); break;
        case 2: select_row_2(n, pc, ec, (const uint16_t*)px, ex, (const uint16_t*)py, ey,
                             (uint16_t*)po, eo); break;
        case 4: select_row_4(n, pc, ec, (const uint32_t*)px, ex, (const uint32_t*)py, ey,
                             (uint32_t*)po, eo); break;
        default: select_row_8(n, pc, ec, (const uint64_t*)px, ex, (const uint64_t*)py, ey,
                              (uint64_t*)po, eo); break;
        }
        int d = last - 1;               /* the next row: an odometer over the outer dims */
        for (; d >= 0; d--) {
            if (++idx[d] < shape[d]) {
                po += so[d]; pc += sc[d]; px += sx[d]; py += sy[d];
                break;
            }
            idx[d] = 0;
            po -= so[d] * (shape[d] - 1); pc -= sc[d] * (shape[d] - 1);
            px -= sx[d] * (shape[d] - 1); py -= sy[d] * (shape[d] - 1);
        }
        if (d < 0) return 0;
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
    CG_HOT static int NAME(int op, cgf_index outer, cgf_index n, cgf_index inner,       \
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

/* The product as NumPy's vector loop rounds it (on machines with FMA): the first
 * product of each part fused with the other's rounded product. Spelled out with
 * fma() so the compiler cannot fuse differently in the loop's tail. */
#define DEF_CBINARY(NAME, T, FMA)                                                \
    CG_HOT static int NAME(int op, cgf_index n, const T* a, const T* b, T* o) {         \
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
                o[2 * i] = FMA(ar, br, -(ai * bi));                              \
                o[2 * i + 1] = FMA(ar, bi, ai * br);                             \
            }                                                                    \
            return 0;                                                            \
        default:                                                                 \
            return -1;                                                           \
        }                                                                        \
    }
DEF_CBINARY(cbinary_c64, float, fmaf)
DEF_CBINARY(cbinary_c128, double, fma)

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
    CG_HOT static void NAME(cgf_index n, const T* z, T* o) {                            \
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
