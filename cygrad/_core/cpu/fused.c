/* Fused row kernels (declared in fused.h): one pass over a row where the
 * composed ops took several, each with its own temporary. Row sums accumulate in
 * the row's dtype over 8 lanes, in a fixed order
 * within the row; the cross entropy loss and layer norm's weight and bias
 * gradients accumulate in double. */
#include <math.h>
#include <string.h>
#include "fused.h"

/* As in elementwise.c: let gcc vectorise these calls through libmvec. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CG_SIMD __attribute__((simd("notinbranch")))
float expf(float) CG_SIMD; double exp(double) CG_SIMD;
float logf(float) CG_SIMD; double log(double) CG_SIMD;
float tanhf(float) CG_SIMD; double tanh(double) CG_SIMD;
float erff(float) CG_SIMD; double erf(double) CG_SIMD;
#endif

#define SQRT1_2 0.70710678118654752440
#define SQRT_2_OVER_PI 0.79788456080286535588
#define INV_SQRT_2PI 0.39894228040143267794
#define GELU_CUBIC 0.044715
/* 8 lanes of each dtype, and the integer vectors of their comparisons */
typedef float cg_vf8 __attribute__((vector_size(32)));
typedef int32_t cg_vi8 __attribute__((vector_size(32)));
typedef double cg_vd8 __attribute__((vector_size(64)));
typedef int64_t cg_vl8 __attribute__((vector_size(64)));
#define BLOCK 256
#define RBLOCK 64          /* rows whose logs are taken together */
/* The row helpers must be compiled inside each CG_HOT variant, not once for the
 * baseline: gcc would otherwise keep the larger ones out of line. */
#define CG_INLINE static inline __attribute__((always_inline))          /* elements of a row handled per buffer */

#define DEF_FUSED(S, T, V, VI, EXP, LOG, ERF, TANH, SQRT, EXP_LOW)                                           \
                                                                                              \
/* Max, sum and dot product of a contiguous row in one vector of 8 lanes of T     \
 * (gcc's vector types, as in reduce.c), lanes combined in a fixed order: the same   \
 * result on every instruction-set variant. A NaN is not propagated by the max; it    \
 * reaches the result through the exp or sum that follows. */                         \
CG_INLINE V load_##S(const T* p) {                                                        \
    V v;                                                                                      \
    memcpy(&v, p, sizeof v);                                                                  \
    return v;                                                                                 \
}                                                                                             \
                                                                                              \
CG_INLINE T hsum_##S(V a) {                                                               \
    return ((a[0] + a[4]) + (a[1] + a[5])) + ((a[2] + a[6]) + (a[3] + a[7]));                 \
}                                                                                             \
                                                                                              \
CG_INLINE T row_max_##S(const T* x, cg_index n) {                                         \
    V acc = (V){0} - (T)INFINITY;                                                             \
    cg_index j = 0;                                                                           \
    for (; j + 8 <= n; j += 8) {                                                              \
        V v = load_##S(x + j);                                                                \
        VI gt = v > acc;                                                                      \
        acc = (V)(((VI)v & gt) | ((VI)acc & ~gt));                                            \
    }                                                                                         \
    T m = -INFINITY;                                                                          \
    for (int l = 0; l < 8; l++) m = acc[l] > m ? acc[l] : m;                                  \
    for (; j < n; j++) m = x[j] > m ? x[j] : m;                                               \
    return m;                                                                                 \
}                                                                                             \
                                                                                              \
/* Whether exp(x - max(x)) over the row x[0:n] reaches arguments below EXP_LOW. */            \
/* In vectors of 8 lanes: a scalar loop here cost a 131K-element row 5x its softmax. */     \
CG_INLINE int row_needs_clamp_##S(const T* x, cg_index n) {                                   \
    /* two accumulators each: one chain of compare-and-blend was latency-bound */            \
    V lo = (V){0} + (T)INFINITY, hi = (V){0} - (T)INFINITY, lo2 = lo, hi2 = hi;               \
    cg_index j = 0;                                                                           \
    for (; j + 16 <= n; j += 16) {                                                            \
        V v = load_##S(x + j), w = load_##S(x + j + 8);                                       \
        VI lt = v < lo, gt = v > hi, lt2 = w < lo2, gt2 = w > hi2;                            \
        lo = (V)(((VI)v & lt) | ((VI)lo & ~lt));                                              \
        hi = (V)(((VI)v & gt) | ((VI)hi & ~gt));                                              \
        lo2 = (V)(((VI)w & lt2) | ((VI)lo2 & ~lt2));                                          \
        hi2 = (V)(((VI)w & gt2) | ((VI)hi2 & ~gt2));                                          \
    }                                                                                         \
    T mn = INFINITY, mx = -INFINITY;                                                          \
    for (int l = 0; l < 8; l++) {                                                             \
        mn = lo[l] < mn ? lo[l] : mn;                                                         \
        mn = lo2[l] < mn ? lo2[l] : mn;                                                       \
        mx = hi[l] > mx ? hi[l] : mx;                                                         \
        mx = hi2[l] > mx ? hi2[l] : mx;                                                       \
    }                                                                                         \
    for (; j < n; j++) {                                                                      \
        mn = x[j] < mn ? x[j] : mn;                                                           \
        mx = x[j] > mx ? x[j] : mx;                                                           \
    }                                                                                         \
    return mn - mx < EXP_LOW;                                                                 \
}                                                                                             \
                                                                                              \
/* Whether rows r0..r1 of n elements are likely to need exp's clamp: judged from their        \
 * first, middle and last rows, which a causal or padding mask reaches. Only speed            \
 * depends on the guess: an unclamped row gives the same values, slower. */                   \
CG_INLINE int rows_need_clamp_##S(const T* x, cg_index r0, cg_index r1, cg_index n) {         \
    if (r1 <= r0) return 0;                                                                   \
    if (row_needs_clamp_##S(x + r0 * n, n)) return 1;                                          \
    if (r1 - r0 > 1 && row_needs_clamp_##S(x + (r1 - 1) * n, n)) return 1;                    \
    return r1 - r0 > 2 && row_needs_clamp_##S(x + ((r0 + r1) / 2) * n, n);                    \
}                                                                                             \
                                                                                              \
CG_INLINE T row_sum_##S(const T* x, cg_index n) {                                         \
    V acc = {0};                                                                              \
    cg_index j = 0;                                                                           \
    for (; j + 8 <= n; j += 8) acc += load_##S(x + j);                                        \
    T s = hsum_##S(acc);                                                                      \
    for (; j < n; j++) s += x[j];                                                             \
    return s;                                                                                 \
}                                                                                             \
                                                                                              \
CG_INLINE T row_dot_##S(const T* x, const T* y, cg_index n) {                             \
    V acc = {0};                                                                              \
    cg_index j = 0;                                                                           \
    for (; j + 8 <= n; j += 8) acc += load_##S(x + j) * load_##S(y + j);                      \
    T s = hsum_##S(acc);                                                                      \
    for (; j < n; j++) s += x[j] * y[j];                                                      \
    return s;                                                                                 \
}                                                                                             \
                                                                                              \
/* out[k] = exp(x[k] - m) for x[k] <= m. libmvec's vector exp leaves its fast path  \
 * for arguments below EXP_LOW (results turning subnormal) and for -inf, at 6-16x the    \
 * cost per element: a causal mask, half -inf, made softmax 3x slower. So the argument  \
 * is clamped at EXP_LOW and results of the clamp, exp(EXP_LOW) ~ the smallest normal   \
 * number, become 0: values that small flush to zero. Two loops through a buffer,             \
 * because gcc folds a clamp written around the call back into an unclamped call; the           \
 * caller says whether a clamp can be needed. NaN stays NaN. out may be x. */                  \
CG_INLINE void exp_block_##S(const T* x, T m, T* out, cg_index n) {                       \
    T buf[BLOCK] __attribute__((aligned(64)));                                                \
    for (cg_index k = 0; k < n; k++) {                                                        \
        T d = x[k] - m;                                                                       \
        buf[k] = d < EXP_LOW ? EXP_LOW : d;                                                   \
    }                                                                                         \
    for (cg_index k = 0; k < n; k++) out[k] = buf[k] == EXP_LOW ? (T)0 : EXP(buf[k]);         \
}                                                                                             \
                                                                                              \
CG_INLINE void exp_shifted_##S(const T* x, T m, T* out, cg_index n, int clamp) {              \
    if (!clamp) {                                                                             \
        for (cg_index k = 0; k < n; k++) out[k] = EXP(x[k] - m);                              \
        return;                                                                               \
    }                                                                                         \
    for (cg_index j0 = 0; j0 < n; j0 += BLOCK)                                                \
        exp_block_##S(x + j0, m, out + j0, n - j0 < BLOCK ? n - j0 : BLOCK);                  \
}                                                                                             \
                                                                                              \
/* sum(exp(x - m)) through a block buffer, so the exp loop vectorises */              \
CG_INLINE T row_sumexp_##S(const T* x, cg_index n, T m) {                                 \
    T buf[BLOCK];                                                                             \
    T s = 0;                                                                                  \
    for (cg_index j0 = 0; j0 < n; j0 += BLOCK) {                                              \
        cg_index len = n - j0 < BLOCK ? n - j0 : BLOCK;                                       \
        for (cg_index k = 0; k < len; k++) buf[k] = EXP(x[j0 + k] - m);                                          \
        s += row_sum_##S(buf, len);                                                           \
    }                                                                                         \
    return s;                                                                                 \
}                                                                                             \
                                                                                              \
/* sum((x - mu)^2) */                                                                         \
CG_INLINE T row_sqdev_##S(const T* x, cg_index n, T mu) {                                 \
    V acc = {0};                                                                              \
    cg_index j = 0;                                                                           \
    for (; j + 8 <= n; j += 8) {                                                              \
        V d = load_##S(x + j) - mu;                                                           \
        acc += d * d;                                                                         \
    }                                                                                         \
    T s = hsum_##S(acc);                                                                      \
    for (; j < n; j++) s += (x[j] - mu) * (x[j] - mu);                                        \
    return s;                                                                                 \
}                                                                                             \
                                                                                              \
CG_INLINE T strided_max_##S(const T* x, cg_index n, cg_index st) {                        \
    T m = -INFINITY;                                                                          \
    for (cg_index j = 0; j < n; j++) m = x[j * st] > m ? x[j * st] : m;                       \
    return m;                                                                                 \
}                                                                                             \
                                                                                              \
CG_HOT static void softmax_row_##S(const T* restrict x, T* restrict y, cg_index n) {          \
    T m = row_max_##S(x, n);                                                                  \
    for (cg_index j = 0; j < n; j++) y[j] = EXP(x[j] - m);                                    \
    T inv = (T)1 / row_sum_##S(y, n);                                                         \
    for (cg_index j = 0; j < n; j++) y[j] *= inv;                                             \
}                                                                                             \
                                                                                              \
/* the same for rows where exp needs its clamp (a separate function: the test inside          \
 * one cost the plain rows 10%) */                                                            \
CG_HOT static void softmax_row_clamped_##S(const T* restrict x, T* restrict y, cg_index n) {  \
    T m = row_max_##S(x, n);                                                                  \
    exp_shifted_##S(x, m, y, n, 1);                                                           \
    T inv = (T)1 / row_sum_##S(y, n);                                                         \
    for (cg_index j = 0; j < n; j++) y[j] *= inv;                                             \
}                                                                                             \
                                                                                              \
/* log_softmax of contiguous rows, RBLOCK rows at a time: the rows' logs of their   \
 * sums are one vector loop (a scalar log per short row cost as much as the row) */  \
CG_HOT static void log_softmax_rows_##S(cg_index r0, cg_index r1, cg_index n,                 \
                                        const T* restrict x, T* restrict y, int clamp) {      \
    T m[RBLOCK], ls[RBLOCK];                                                                  \
    for (cg_index b0 = r0; b0 < r1; b0 += RBLOCK) {                                           \
        int nb = r1 - b0 < RBLOCK ? (int)(r1 - b0) : RBLOCK;                                  \
        for (int i = 0; i < nb; i++) {                                                        \
            const T* xr = x + (b0 + i) * n;                                                   \
            T* yr = y + (b0 + i) * n;                                                         \
            m[i] = row_max_##S(xr, n);                                                        \
            exp_shifted_##S(xr, m[i], yr, n, clamp);                                          \
            ls[i] = row_sum_##S(yr, n);                                                       \
        }                                                                                     \
        for (int i = 0; i < nb; i++) ls[i] = LOG(ls[i]);                                      \
        for (int i = 0; i < nb; i++) {                                                        \
            const T* xr = x + (b0 + i) * n;                                                   \
            T* yr = y + (b0 + i) * n;                                                         \
            for (cg_index j = 0; j < n; j++) yr[j] = (xr[j] - m[i]) - ls[i];                  \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_softmax_fwd_##S(cg_index r0, cg_index r1, cg_index n, cg_index inner,          \
                        const T* x, T* y, int is_log) {                                          \
    if (inner == 1 && is_log) {                                                               \
        log_softmax_rows_##S(r0, r1, n, x, y, rows_need_clamp_##S(x, r0, r1, n));             \
        return;                                                                               \
    }                                                                                         \
    if (inner == 1) {                                                                         \
        if (rows_need_clamp_##S(x, r0, r1, n))                                                \
            for (cg_index r = r0; r < r1; r++) softmax_row_clamped_##S(x + r * n, y + r * n, n);\
        else                                                                                  \
            for (cg_index r = r0; r < r1; r++) softmax_row_##S(x + r * n, y + r * n, n);      \
        return;                                                                               \
    }                                                                                         \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        cg_index base = (r / inner) * n * inner + r % inner;                                  \
        const T* xr = x + base;                                                               \
        T* yr = y + base;                                                                     \
        T m = strided_max_##S(xr, n, inner);                                                  \
        double s = 0;                                                                         \
        for (cg_index j = 0; j < n; j++) s += EXP(xr[j * inner] - m);                  \
        if (is_log) {                                                                            \
            T ls = (T)LOG(s);                                                                 \
            for (cg_index j = 0; j < n; j++) yr[j * inner] = (xr[j * inner] - m) - ls;        \
        } else {                                                                              \
            T inv = (T)(1.0 / s);                                                             \
            for (cg_index j = 0; j < n; j++) yr[j * inner] = EXP(xr[j * inner] - m) * inv; \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_softmax_bwd_##S(cg_index r0, cg_index r1, cg_index n, cg_index inner,          \
                               const T* y, const T* g, T* dx, int is_log, T scale) {             \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        cg_index base = inner == 1 ? r * n : (r / inner) * n * inner + r % inner;             \
        cg_index st = inner;                                                                  \
        const T* yr = y + base;                                                               \
        const T* gr = g + base;                                                               \
        T* dr = dx + base;                                                                    \
        if (inner == 1) {                                                                     \
            if (is_log) {                                                                     \
                T ts = row_sum_##S(gr, n);                                                    \
                for (cg_index j = 0; j < n; j++) dr[j] = scale * (gr[j] - EXP(yr[j]) * ts); \
            } else {                                                                          \
                T ts = row_dot_##S(gr, yr, n);                                                \
                for (cg_index j = 0; j < n; j++) dr[j] = scale * (yr[j] * (gr[j] - ts));      \
            }                                                                                 \
            continue;                                                                         \
        }                                                                                     \
        double s = 0;                                                                         \
        if (is_log) {                                                                            \
            for (cg_index j = 0; j < n; j++) s += gr[j * st];                                 \
            T ts = (T)s;                                                                      \
            for (cg_index j = 0; j < n; j++)                                                  \
                dr[j * st] = scale * (gr[j * st] - EXP(yr[j * st]) * ts);              \
        } else {                                                                              \
            for (cg_index j = 0; j < n; j++) s += (double)gr[j * st] * yr[j * st];            \
            T ts = (T)s;                                                                      \
            for (cg_index j = 0; j < n; j++)                                                  \
                dr[j * st] = scale * (yr[j * st] * (gr[j * st] - ts));                        \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_attn_softmax_##S(cg_index r0, cg_index r1, cg_index L, cg_index S,             \
                                const T* s, T* p, T scale, int causal, const T* mask,          \
                                cg_index mask_rows) {                                         \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        const T* sr = s + r * S;                                                              \
        T* pr = p + r * S;                                                                    \
        /* keys [0, nk) take part; the causal mask drops keys after the query */              \
        cg_index nk = causal ? (r % L) + 1 : S;                                               \
        if (nk > S) nk = S;                                                                   \
        if (mask) {                                                                           \
            const T* mr = mask + (r % mask_rows) * S;                                         \
            for (cg_index j = 0; j < nk; j++) pr[j] = sr[j] * scale + mr[j];                  \
        } else {                                                                              \
            for (cg_index j = 0; j < nk; j++) pr[j] = sr[j] * scale;                          \
        }                                                                                     \
        T m = row_max_##S(pr, nk);                                                            \
        if (m == -INFINITY) {      /* every key masked: zeros, as PyTorch's safe softmax */   \
            memset(pr, 0, (size_t)S * sizeof(T));                                             \
            continue;                                                                         \
        }                                                                                     \
        exp_shifted_##S(pr, m, pr, nk, mask && row_needs_clamp_##S(pr, nk));                  \
        T inv = (T)1 / row_sum_##S(pr, nk);                                                   \
        for (cg_index j = 0; j < nk; j++) pr[j] *= inv;                                       \
        for (cg_index j = nk; j < S; j++) pr[j] = 0;                                          \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_layer_norm_fwd_##S(cg_index r0, cg_index r1, cg_index n, const T* x,           \
                                  const T* w, const T* b, double eps, T* y, T* mean,          \
                                  T* rstd) {                                                  \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        const T* xr = x + r * n;                                                              \
        T* yr = y + r * n;                                                                    \
        T tm = n ? row_sum_##S(xr, n) / (T)n : (T)0;                                          \
        double var = n ? (double)row_sqdev_##S(xr, n, tm) / (double)n : 0.0;                  \
        T tr = (T)(1.0 / sqrt(var + eps));                                                    \
        mean[r] = tm;                                                                         \
        rstd[r] = tr;                                                                         \
        if (w && b) for (cg_index j = 0; j < n; j++) yr[j] = (xr[j] - tm) * tr * w[j] + b[j]; \
        else if (w) for (cg_index j = 0; j < n; j++) yr[j] = (xr[j] - tm) * tr * w[j];        \
        else if (b) for (cg_index j = 0; j < n; j++) yr[j] = (xr[j] - tm) * tr + b[j];        \
        else for (cg_index j = 0; j < n; j++) yr[j] = (xr[j] - tm) * tr;                      \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_layer_norm_bwd_##S(cg_index r0, cg_index r1, cg_index n, const T* g,           \
                                  const T* x, const T* mean, const T* rstd, const T* w,       \
                                  T* dx, double* dw_part, double* db_part) {                  \
    if (dw_part) memset(dw_part, 0, (size_t)n * sizeof(double));                              \
    if (db_part) memset(db_part, 0, (size_t)n * sizeof(double));                              \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        const T* gr = g + r * n;                                                              \
        const T* xr = x + r * n;                                                              \
        T mu = mean[r], rs = rstd[r];                                                         \
        T xh[BLOCK], gw[BLOCK];                                                               \
        T a = 0, c = 0;            /* sums of g*w and of g*w*xhat */                          \
        for (cg_index j0 = 0; j0 < n; j0 += BLOCK) {                                          \
            cg_index len = n - j0 < BLOCK ? n - j0 : BLOCK;                                   \
            for (cg_index k = 0; k < len; k++) xh[k] = (xr[j0 + k] - mu) * rs;                \
            if (w) for (cg_index k = 0; k < len; k++) gw[k] = gr[j0 + k] * w[j0 + k];         \
            else for (cg_index k = 0; k < len; k++) gw[k] = gr[j0 + k];                       \
            a += row_sum_##S(gw, len);                                                        \
            c += row_dot_##S(gw, xh, len);                                                    \
            if (dw_part)                                                                      \
                for (cg_index k = 0; k < len; k++) dw_part[j0 + k] += (double)(gr[j0 + k] * xh[k]); \
            if (db_part)                                                                      \
                for (cg_index k = 0; k < len; k++) db_part[j0 + k] += gr[j0 + k];             \
        }                                                                                     \
        if (dx) {                                                                             \
            T ma = a / (T)n, mc = c / (T)n;                                                   \
            T* dr = dx + r * n;                                                               \
            if (w)                                                                            \
                for (cg_index j = 0; j < n; j++)                                              \
                    dr[j] = rs * (gr[j] * w[j] - ma - (xr[j] - mu) * rs * mc);                \
            else                                                                              \
                for (cg_index j = 0; j < n; j++)                                              \
                    dr[j] = rs * (gr[j] - ma - (xr[j] - mu) * rs * mc);                       \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_gelu_fwd_##S(cg_index i0, cg_index i1, const T* x, T* y, int tanh_approx) {    \
    if (tanh_approx) {                                                                        \
        for (cg_index i = i0; i < i1; i++) {                                                  \
            T v = x[i];                                                                       \
            T t = TANH((T)SQRT_2_OVER_PI * (v + (T)GELU_CUBIC * v * v * v));                  \
            y[i] = (T)0.5 * v * ((T)1 + t);                                                   \
        }                                                                                     \
    } else {                                                                                  \
        for (cg_index i = i0; i < i1; i++) {                                                  \
            T v = x[i];                                                                       \
            y[i] = (T)0.5 * v * ((T)1 + ERF(v * (T)SQRT1_2));                                 \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_gelu_bwd_##S(cg_index i0, cg_index i1, const T* g, const T* x, T* dx,          \
                            int tanh_approx) {                                                \
    if (tanh_approx) {                                                                        \
        for (cg_index i = i0; i < i1; i++) {                                                  \
            T v = x[i], v2 = v * v;                                                           \
            T t = TANH((T)SQRT_2_OVER_PI * (v + (T)GELU_CUBIC * v2 * v));                     \
            T d_inner = (T)SQRT_2_OVER_PI * ((T)1 + (T)(3 * GELU_CUBIC) * v2);                \
            dx[i] = g[i] * ((T)0.5 * ((T)1 + t) + (T)0.5 * v * ((T)1 - t * t) * d_inner);     \
        }                                                                                     \
    } else {                                                                                  \
        for (cg_index i = i0; i < i1; i++) {                                                  \
            T v = x[i];                                                                       \
            T cdf = (T)0.5 * ((T)1 + ERF(v * (T)SQRT1_2));                                    \
            T pdf = (T)INV_SQRT_2PI * EXP((T)-0.5 * v * v);                            \
            dx[i] = g[i] * (cdf + v * pdf);                                                   \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_xent_fwd_##S(cg_index r0, cg_index r1, cg_index C, const T* x,                 \
                            const int64_t* target, const T* w, int64_t ignore_index,          \
                            double eps, T* loss, T* lse, T* wt) {                             \
    T mb[RBLOCK], lsb[RBLOCK];                                                                \
    for (cg_index b0 = r0; b0 < r1; b0 += RBLOCK) {                                           \
        int nb = r1 - b0 < RBLOCK ? (int)(r1 - b0) : RBLOCK;                                  \
        for (int i = 0; i < nb; i++) {                                                        \
            const T* xr = x + (b0 + i) * C;                                                   \
            mb[i] = row_max_##S(xr, C);                                                       \
            lsb[i] = row_sumexp_##S(xr, C, mb[i]);                                            \
        }                                                                                     \
        for (int i = 0; i < nb; i++) lsb[i] = LOG(lsb[i]);     /* one vector loop */          \
        for (int i = 0; i < nb; i++) {                                                        \
            cg_index r = b0 + i;                                                              \
            const T* xr = x + r * C;                                                          \
            T m = mb[i];                                                                      \
            double ls = lsb[i];                                                               \
            lse[r] = m + lsb[i];                                                              \
            int64_t t = target[r];                                                            \
            if (t == ignore_index) {                                                          \
                loss[r] = 0;                                                                  \
                wt[r] = 0;                                                                    \
                continue;                                                                     \
            }                                                                                 \
            T wr = w ? w[t] : (T)1;                                                           \
            wt[r] = wr;                                                                       \
            /* lse - x as (m - x) + log(s): exact near the max */                            \
            double v = (1.0 - eps) * (double)wr * ((double)(m - xr[t]) + ls);                 \
            if (eps != 0.0) {                                                                 \
                double sm = 0;                                                                \
                if (w)                                                                        \
                    for (cg_index j = 0; j < C; j++) sm += (double)w[j] * ((double)(m - xr[j]) + ls); \
                else                                                                          \
                    for (cg_index j = 0; j < C; j++) sm += (double)(m - xr[j]) + ls;          \
                v += eps / (double)C * sm;                                                    \
            }                                                                                 \
            loss[r] = (T)v;                                                                   \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_xent_bwd_##S(cg_index r0, cg_index r1, cg_index C, const T* x, const T* lse,   \
                            const int64_t* target, const T* w, int64_t ignore_index,          \
                            double eps, const T* scale, cg_index scale_step, T* dx) {         \
    double W = (double)C;                                                                     \
    if (w && eps != 0.0) {                                                                    \
        W = 0;                                                                                \
        for (cg_index j = 0; j < C; j++) W += w[j];                                           \
    }                                                                                         \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        const T* xr = x + r * C;                                                              \
        T* dr = dx + r * C;                                                                   \
        int64_t t = target[r];                                                                \
        if (t == ignore_index) {                                                              \
            memset(dr, 0, (size_t)C * sizeof(T));                                             \
            continue;                                                                         \
        }                                                                                     \
        double sc = scale[r * scale_step];                                                    \
        T a = (T)((1.0 - eps) * (w ? (double)w[t] : 1.0) * sc);                               \
        T bb = (T)(eps / (double)C * sc);                                                     \
        T coef = a + (T)((double)bb * W);                                                     \
        T l = lse[r];                                                                         \
        for (cg_index j = 0; j < C; j++) dr[j] = EXP(xr[j] - l) * coef;                \
        if (eps != 0.0) {                                                                     \
            if (w) for (cg_index j = 0; j < C; j++) dr[j] -= bb * w[j];                       \
            else for (cg_index j = 0; j < C; j++) dr[j] -= bb;                                \
        }                                                                                     \
        dr[t] -= a;                                                                           \
    }                                                                                         \
}

DEF_FUSED(f, float, cg_vf8, cg_vi8, expf, logf, erff, tanhf, sqrtf, -87.0f)
DEF_FUSED(d, double, cg_vd8, cg_vl8, exp, log, erf, tanh, sqrt, -708.0)
