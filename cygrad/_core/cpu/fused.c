/* Fused row kernels (declared in fused.h): one pass over a row where the
 * composed ops took several, each with its own temporary. Sums accumulate in
 * double for both dtypes, in a fixed order within the row. */
#include <math.h>
#include <string.h>
#include "fused.h"

/* As in elementwise.c: let gcc vectorise these calls through libmvec. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CG_SIMD __attribute__((simd("notinbranch")))
float expf(float) CG_SIMD; double exp(double) CG_SIMD;
float tanhf(float) CG_SIMD; double tanh(double) CG_SIMD;
float erff(float) CG_SIMD; double erf(double) CG_SIMD;
#endif

#define SQRT1_2 0.70710678118654752440
#define SQRT_2_OVER_PI 0.79788456080286535588
#define INV_SQRT_2PI 0.39894228040143267794
#define GELU_CUBIC 0.044715

#define DEF_FUSED(S, T, EXP, LOG, ERF, TANH, SQRT)                                            \
                                                                                              \
static inline T row_max_##S(const T* x, cg_index n, cg_index st) {                            \
    T m = -INFINITY;                                                                          \
    for (cg_index j = 0; j < n; j++) {                                                        \
        T v = x[j * st];                                                                      \
        if (v > m || v != v) m = v;                                                           \
        if (m != m) break;                                                                    \
    }                                                                                         \
    return m;                                                                                 \
}                                                                                             \
                                                                                              \
CG_HOT static void softmax_row_##S(const T* x, T* y, cg_index n, int is_log) {                   \
    T m = row_max_##S(x, n, 1);                                                               \
    double s = 0;                                                                             \
    if (is_log) {                                                                                \
        for (cg_index j = 0; j < n; j++) y[j] = EXP(x[j] - m);                                \
        for (cg_index j = 0; j < n; j++) s += y[j];                                           \
        T ls = (T)LOG(s);          /* (x - m) first: exact near the max */                 \
        for (cg_index j = 0; j < n; j++) y[j] = (x[j] - m) - ls;                              \
    } else {                                                                                  \
        for (cg_index j = 0; j < n; j++) y[j] = EXP(x[j] - m);                                \
        for (cg_index j = 0; j < n; j++) s += y[j];                                           \
        T inv = (T)(1.0 / s);                                                                 \
        for (cg_index j = 0; j < n; j++) y[j] *= inv;                                         \
    }                                                                                         \
}                                                                                             \
                                                                                              \
void cg_softmax_fwd_##S(cg_index r0, cg_index r1, cg_index n, cg_index inner,                 \
                        const T* x, T* y, int is_log) {                                          \
    if (inner == 1) {                                                                         \
        for (cg_index r = r0; r < r1; r++) softmax_row_##S(x + r * n, y + r * n, n, is_log);     \
        return;                                                                               \
    }                                                                                         \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        cg_index base = (r / inner) * n * inner + r % inner;                                  \
        const T* xr = x + base;                                                               \
        T* yr = y + base;                                                                     \
        T m = row_max_##S(xr, n, inner);                                                      \
        double s = 0;                                                                         \
        for (cg_index j = 0; j < n; j++) s += EXP(xr[j * inner] - m);                         \
        if (is_log) {                                                                            \
            T ls = (T)LOG(s);                                                                 \
            for (cg_index j = 0; j < n; j++) yr[j * inner] = (xr[j * inner] - m) - ls;        \
        } else {                                                                              \
            T inv = (T)(1.0 / s);                                                             \
            for (cg_index j = 0; j < n; j++) yr[j * inner] = EXP(xr[j * inner] - m) * inv;    \
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
        double s = 0;                                                                         \
        if (is_log) {                                                                            \
            for (cg_index j = 0; j < n; j++) s += gr[j * st];                                 \
            T ts = (T)s;                                                                      \
            for (cg_index j = 0; j < n; j++)                                                  \
                dr[j * st] = scale * (gr[j * st] - EXP(yr[j * st]) * ts);                     \
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
        T m = row_max_##S(pr, nk, 1);                                                         \
        if (m == -INFINITY) {      /* every key masked: zeros, as PyTorch's safe softmax */   \
            memset(pr, 0, (size_t)S * sizeof(T));                                             \
            continue;                                                                         \
        }                                                                                     \
        for (cg_index j = 0; j < nk; j++) pr[j] = EXP(pr[j] - m);                             \
        double sum = 0;                                                                       \
        for (cg_index j = 0; j < nk; j++) sum += pr[j];                                       \
        T inv = (T)(1.0 / sum);                                                               \
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
        double s = 0, ss = 0;                                                                 \
        for (cg_index j = 0; j < n; j++) s += xr[j];                                          \
        double mu = n ? s / (double)n : 0.0;                                                  \
        for (cg_index j = 0; j < n; j++) {                                                    \
            double d = xr[j] - mu;                                                            \
            ss += d * d;                                                                      \
        }                                                                                     \
        double rs = 1.0 / sqrt((n ? ss / (double)n : 0.0) + eps);                             \
        T tm = (T)mu, tr = (T)rs;                                                             \
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
        double a = 0, c = 0;       /* sums of g*w and of g*w*xhat */                          \
        for (cg_index j = 0; j < n; j++) {                                                    \
            T xh = (xr[j] - mu) * rs;                                                         \
            T gw = w ? gr[j] * w[j] : gr[j];                                                  \
            a += gw;                                                                          \
            c += (double)gw * xh;                                                             \
            if (dw_part) dw_part[j] += (double)gr[j] * xh;                                    \
            if (db_part) db_part[j] += gr[j];                                                 \
        }                                                                                     \
        if (dx) {                                                                             \
            T ma = n ? (T)(a / (double)n) : 0, mc = n ? (T)(c / (double)n) : 0;               \
            T* dr = dx + r * n;                                                               \
            for (cg_index j = 0; j < n; j++) {                                                \
                T xh = (xr[j] - mu) * rs;                                                     \
                T gw = w ? gr[j] * w[j] : gr[j];                                              \
                dr[j] = rs * (gw - ma - xh * mc);                                             \
            }                                                                                 \
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
            T pdf = (T)INV_SQRT_2PI * EXP((T)-0.5 * v * v);                                   \
            dx[i] = g[i] * (cdf + v * pdf);                                                   \
        }                                                                                     \
    }                                                                                         \
}                                                                                             \
                                                                                              \
CG_HOT void cg_xent_fwd_##S(cg_index r0, cg_index r1, cg_index C, const T* x,                 \
                            const int64_t* target, const T* w, int64_t ignore_index,          \
                            double eps, T* loss, T* lse, T* wt) {                             \
    for (cg_index r = r0; r < r1; r++) {                                                      \
        const T* xr = x + r * C;                                                              \
        T m = row_max_##S(xr, C, 1);                                                          \
        double s = 0;                                                                         \
        for (cg_index j = 0; j < C; j++) s += EXP(xr[j] - m);                                 \
        double ls = LOG(s);                                                                   \
        T l = m + (T)ls;                                                                      \
        lse[r] = l;                                                                           \
        int64_t t = target[r];                                                                \
        if (t == ignore_index) {                                                              \
            loss[r] = 0;                                                                      \
            wt[r] = 0;                                                                        \
            continue;                                                                         \
        }                                                                                     \
        T wr = w ? w[t] : (T)1;                                                               \
        wt[r] = wr;                                                                           \
        /* lse - x as (m - x) + log(s): exact near the max */                                \
        double v = (1.0 - eps) * (double)wr * ((double)(m - xr[t]) + ls);                     \
        if (eps != 0.0) {                                                                     \
            double sm = 0;                                                                    \
            if (w) for (cg_index j = 0; j < C; j++) sm += (double)w[j] * ((double)(m - xr[j]) + ls); \
            else for (cg_index j = 0; j < C; j++) sm += (double)(m - xr[j]) + ls;             \
            v += eps / (double)C * sm;                                                        \
        }                                                                                     \
        loss[r] = (T)v;                                                                       \
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
        for (cg_index j = 0; j < C; j++) dr[j] = EXP(xr[j] - l) * coef;                       \
        if (eps != 0.0) {                                                                     \
            if (w) for (cg_index j = 0; j < C; j++) dr[j] -= bb * w[j];                       \
            else for (cg_index j = 0; j < C; j++) dr[j] -= bb;                                \
        }                                                                                     \
        dr[t] -= a;                                                                           \
    }                                                                                         \
}

DEF_FUSED(f, float, expf, log, erff, tanhf, sqrtf)
DEF_FUSED(d, double, exp, log, erf, tanh, sqrt)
