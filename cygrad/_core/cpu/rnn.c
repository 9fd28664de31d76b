/* Recurrent cells' elementwise work, one time step at a time: the gate
 * nonlinearities and state update (forward) and the gradient of the gates'
 * pre-activations (backward) of LSTM, GRU and Elman (tanh / ReLU) layers.
 *
 * The matrix products of a step (h @ W_hh^T forwards, D @ W_hh backwards) run in
 * BLAS; these loops do everything between two products in one pass over the
 * step's N x H elements, where a composition of tensor ops made 7 to 15 passes
 * and as many temporaries. A step is a few thousand elements, too small for the
 * thread pool, so each runs on the calling thread, with the GIL released by the
 * caller (rnn_kernels.pyx), which has checked every shape.
 *
 * Every array is contiguous: rows of N (batch) by G*H (gates) or H. Gate order is
 * PyTorch's: LSTM i, f, g, o; GRU r, z, n. A NULL optional input reads as zero. */
#include <math.h>
#include "isa.h"
#include "rnn.h"

/* As in elementwise.c: let gcc vectorise exp/tanh through glibc's libmvec (with
 * -fno-math-errno; special values stay IEEE). Scalar tanhf made a step of
 * LSTM(128, 128) batch 32 take 0.3 ms, most of the layer's time. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CG_SIMD __attribute__((simd("notinbranch")))
float expf(float) CG_SIMD; double exp(double) CG_SIMD;
float tanhf(float) CG_SIMD; double tanh(double) CG_SIMD;
#endif

/* Restrict-qualified element pointers: no argument overlaps another (the caller,
 * rnn_kernels.pyx, checks it), which lets gcc vectorise without run-time alias
 * checks (the LSTM step ran 5x slower without them). */
#define CR(T) const T* restrict
#define R(T) T* restrict
#define CG_RNN_KERNELS(T, SFX, EXP, TANH)                                               \
static inline T sig_##SFX(T x) { return (T)1 / ((T)1 + EXP(-x)); }                      \
                                                                                        \
/* out = p + q over m values; a NULL operand reads as zero. Kept out of the main        \
 * loops: their tests of NULL stopped gcc from vectorising them (3x slower). */         \
static inline void sum_rows_##SFX(cg_index m, CR(T) p, CR(T) q, R(T) out) {             \
    if (p && q) for (cg_index j = 0; j < m; j++) out[j] = p[j] + q[j];                  \
    else if (p) for (cg_index j = 0; j < m; j++) out[j] = p[j];                         \
    else if (q) for (cg_index j = 0; j < m; j++) out[j] = q[j];                         \
    else for (cg_index j = 0; j < m; j++) out[j] = 0;                                   \
}                                                                                       \
                                                                                        \
/* a = [sig(i), sig(f), tanh(g), sig(o)] of gh + gx; c = f c_prev + i g;                \
 * tc = tanh(c); h = o tc. */                                                           \
CG_HOT static void lstm_fwd_##SFX(cg_index n, cg_index hs, CR(T) gh, CR(T) gx, CR(T) cprev, \
                                 R(T) a, R(T) c, R(T) tc, R(T) h) {                     \
    for (cg_index b = 0; b < n; b++) {                                                  \
        const T* p = gh + b * 4 * hs; const T* q = gx + b * 4 * hs;                     \
        T* ab = a + b * 4 * hs;                                                         \
        for (cg_index j = 0; j < 4 * hs; j++) ab[j] = p[j] + q[j];                      \
        for (cg_index j = 0; j < 2 * hs; j++) ab[j] = sig_##SFX(ab[j]);                 \
        for (cg_index j = 2 * hs; j < 3 * hs; j++) ab[j] = TANH(ab[j]);                 \
        for (cg_index j = 3 * hs; j < 4 * hs; j++) ab[j] = sig_##SFX(ab[j]);            \
        const T* cp = cprev + b * hs; T* cb = c + b * hs;                               \
        T* tb = tc + b * hs; T* hb = h + b * hs;                                        \
        for (cg_index j = 0; j < hs; j++) {                                             \
            T cv = ab[hs + j] * cp[j] + ab[j] * ab[2 * hs + j];                         \
            cb[j] = cv;                                                                 \
            tb[j] = TANH(cv);                                                           \
            hb[j] = ab[3 * hs + j] * tb[j];                                             \
        }                                                                               \
    }                                                                                   \
}                                                                                       \
                                                                                        \
/* dh = dh_rec + g_out; dc += dh o (1 - tc^2); d = [dc g i(1-i), dc c_prev f(1-f),      \
 * dc i (1-g^2), dh tc o(1-o)]; then dc *= f (the gradient reaching c_prev). */         \
CG_HOT static void lstm_bwd_##SFX(cg_index n, cg_index hs, CR(T) dhr, CR(T) gout, R(T) dc, \
                                 CR(T) a, CR(T) cprev, CR(T) tc, R(T) d) {              \
    for (cg_index b = 0; b < n; b++) {                                                  \
        const T* ab = a + b * 4 * hs; T* db = d + b * 4 * hs;                           \
        const T* cp = cprev + b * hs; const T* tb = tc + b * hs;                        \
        T* dcb = dc + b * hs;                                                           \
        T* dhb = db + 3 * hs;          /* dh, until its own slot is written */          \
        sum_rows_##SFX(hs, dhr ? dhr + b * hs : NULL, gout ? gout + b * hs : NULL, dhb); \
        for (cg_index j = 0; j < hs; j++) {                                             \
            T dh = dhb[j];                                                              \
            T i = ab[j], f = ab[hs + j], g = ab[2 * hs + j], o = ab[3 * hs + j];        \
            T t = tb[j];                                                                \
            T dcv = dcb[j] + dh * o * ((T)1 - t * t);                                   \
            db[j] = dcv * g * i * ((T)1 - i);                                           \
            db[hs + j] = dcv * cp[j] * f * ((T)1 - f);                                  \
            db[2 * hs + j] = dcv * i * ((T)1 - g * g);                                  \
            db[3 * hs + j] = dh * t * o * ((T)1 - o);                                   \
            dcb[j] = dcv * f;                                                           \
        }                                                                               \
    }                                                                                   \
}                                                                                       \
                                                                                        \
/* gi = x W_ih^T + b_ih and gh = h W_hh^T + b_hh of this step: a = [r, z, n] with       \
 * r, z = sig(gi + gh), n = tanh(gi_n + r gh_n); ghn = gh_n (kept for backward);        \
 * h = n + z (h_prev - n). */                                                           \
CG_HOT static void gru_fwd_##SFX(cg_index n, cg_index hs, CR(T) gi, CR(T) gh, CR(T) hprev, \
                                R(T) a, R(T) ghn, R(T) h) {                             \
    for (cg_index b = 0; b < n; b++) {                                                  \
        const T* ib = gi + b * 3 * hs; const T* hb = gh + b * 3 * hs;                   \
        T* ab = a + b * 3 * hs;                                                         \
        for (cg_index j = 0; j < 2 * hs; j++) ab[j] = sig_##SFX(ib[j] + hb[j]);         \
        const T* hp = hprev + b * hs; T* gn = ghn + b * hs; T* ho = h + b * hs;         \
        for (cg_index j = 0; j < hs; j++) {                                             \
            T hn = hb[2 * hs + j];                                                      \
            T nv = TANH(ib[2 * hs + j] + ab[j] * hn);                                   \
            ab[2 * hs + j] = nv;                                                        \
            gn[j] = hn;                                                                 \
            ho[j] = nv + ab[hs + j] * (hp[j] - nv);                                     \
        }                                                                               \
    }                                                                                   \
}                                                                                       \
                                                                                        \
/* dh = dh_rec + g_out; di = [dr, dz, dn] and dgh = [dr, dz, dn r] are the gradients    \
 * of gi and gh; dhp = dh z is the direct part of the gradient reaching h_prev. */      \
CG_HOT static void gru_bwd_##SFX(cg_index n, cg_index hs, CR(T) dhr, CR(T) gout, CR(T) a, \
                                CR(T) ghn, CR(T) hprev, R(T) di, R(T) dgh, R(T) dhp) {  \
    for (cg_index b = 0; b < n; b++) {                                                  \
        const T* ab = a + b * 3 * hs; const T* gn = ghn + b * hs;                       \
        const T* hp = hprev + b * hs;                                                   \
        T* ib = di + b * 3 * hs; T* hb = dgh + b * 3 * hs; T* ob = dhp + b * hs;        \
        sum_rows_##SFX(hs, dhr ? dhr + b * hs : NULL, gout ? gout + b * hs : NULL, ob); \
        for (cg_index j = 0; j < hs; j++) {                                             \
            T dh = ob[j];                                                               \
            T r = ab[j], z = ab[hs + j], nv = ab[2 * hs + j];                           \
            T dn = dh * ((T)1 - z) * ((T)1 - nv * nv);                                  \
            T dz = dh * (hp[j] - nv) * z * ((T)1 - z);                                  \
            T dr = dn * gn[j] * r * ((T)1 - r);                                         \
            ib[j] = dr; hb[j] = dr;                                                     \
            ib[hs + j] = dz; hb[hs + j] = dz;                                           \
            ib[2 * hs + j] = dn; hb[2 * hs + j] = dn * r;                               \
            ob[j] = dh * z;                                                             \
        }                                                                               \
    }                                                                                   \
}                                                                                       \
                                                                                        \
/* h = act(gh + gx), act tanh (relu == 0) or ReLU. */                                   \
CG_HOT static void elman_fwd_##SFX(cg_index m, int relu, CR(T) gh, CR(T) gx, R(T) h) {  \
    if (relu) {                                                                         \
        for (cg_index j = 0; j < m; j++) { T v = gh[j] + gx[j]; h[j] = v > 0 ? v : 0; } \
    } else {                                                                            \
        for (cg_index j = 0; j < m; j++) h[j] = TANH(gh[j] + gx[j]);                    \
    }                                                                                   \
}                                                                                       \
                                                                                        \
/* d = (dh_rec + g_out) act'(pre), written through h = act(pre). */                     \
CG_HOT static void elman_bwd_##SFX(cg_index m, int relu, CR(T) dhr, CR(T) gout, CR(T) h, \
                                  R(T) d) {                                             \
    sum_rows_##SFX(m, dhr, gout, d);                                                    \
    if (relu) {                                                                         \
        for (cg_index j = 0; j < m; j++) d[j] = h[j] > 0 ? d[j] : (T)0;                 \
    } else {                                                                            \
        for (cg_index j = 0; j < m; j++) d[j] *= (T)1 - h[j] * h[j];                    \
    }                                                                                   \
}

CG_RNN_KERNELS(float, f32, expf, tanhf)
CG_RNN_KERNELS(double, f64, exp, tanh)
#undef CR
#undef R

void cg_lstm_fwd(int dbl, cg_index n, cg_index hs, const void* gh, const void* gx,
                 const void* cprev, void* a, void* c, void* tc, void* h) {
    if (dbl) lstm_fwd_f64(n, hs, gh, gx, cprev, a, c, tc, h);
    else lstm_fwd_f32(n, hs, gh, gx, cprev, a, c, tc, h);
}

void cg_lstm_bwd(int dbl, cg_index n, cg_index hs, const void* dhr, const void* gout,
                 void* dc, const void* a, const void* cprev, const void* tc, void* d) {
    if (dbl) lstm_bwd_f64(n, hs, dhr, gout, dc, a, cprev, tc, d);
    else lstm_bwd_f32(n, hs, dhr, gout, dc, a, cprev, tc, d);
}

void cg_gru_fwd(int dbl, cg_index n, cg_index hs, const void* gi, const void* gh,
                const void* hprev, void* a, void* ghn, void* h) {
    if (dbl) gru_fwd_f64(n, hs, gi, gh, hprev, a, ghn, h);
    else gru_fwd_f32(n, hs, gi, gh, hprev, a, ghn, h);
}

void cg_gru_bwd(int dbl, cg_index n, cg_index hs, const void* dhr, const void* gout,
                const void* a, const void* ghn, const void* hprev, void* di, void* dgh,
                void* dhp) {
    if (dbl) gru_bwd_f64(n, hs, dhr, gout, a, ghn, hprev, di, dgh, dhp);
    else gru_bwd_f32(n, hs, dhr, gout, a, ghn, hprev, di, dgh, dhp);
}

void cg_elman_fwd(int dbl, cg_index m, int relu, const void* gh, const void* gx, void* h) {
    if (dbl) elman_fwd_f64(m, relu, gh, gx, h);
    else elman_fwd_f32(m, relu, gh, gx, h);
}

void cg_elman_bwd(int dbl, cg_index m, int relu, const void* dhr, const void* gout,
                  const void* h, void* d) {
    if (dbl) elman_bwd_f64(m, relu, dhr, gout, h, d);
    else elman_bwd_f32(m, relu, dhr, gout, h, d);
}
