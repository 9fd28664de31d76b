/* Fused row kernels of the transformer's hot ops (fused.c): softmax and
 * log_softmax, the attention softmax (scale, additive mask, causal mask), layer
 * norm, GELU and cross entropy, forward and backward, float32 (suffix f) and
 * float64 (suffix d). Every operand is C-contiguous. A kernel handles the rows
 * [r0, r1) (elements [r0, r1) for GELU), so the caller can hand disjoint row
 * ranges to the threads of cygrad's pool; each row is computed the same way on
 * any thread, so results do not depend on the thread count. */
#ifndef CYGRAD_FUSED_H
#define CYGRAD_FUSED_H
#include <stdint.h>
#include "kernels.h"

#define CG_FUSED_DECL(S, T)                                                                 \
    /* (outer, n, inner) input, softmax along n; rows are (outer, inner) pairs */           \
    void cg_softmax_fwd_##S(cg_index r0, cg_index r1, cg_index n, cg_index inner,           \
                            const T* x, T* y, int log);                                     \
    /* softmax: dx = scale * y * (g - sum(g * y)); log: dx = g - exp(y) * sum(g) */         \
    void cg_softmax_bwd_##S(cg_index r0, cg_index r1, cg_index n, cg_index inner,           \
                            const T* y, const T* g, T* dx, int log, T scale);               \
    /* rows of (..., L, S) scores: p = softmax(scale * s + mask), keys j > i masked when     \
     * causal; a row with every key masked gives zeros. mask: NULL, or rows of S with       \
     * row r at mask + (r % mask_rows) * S */                                               \
    void cg_attn_softmax_##S(cg_index r0, cg_index r1, cg_index L, cg_index S,              \
                             const T* s, T* p, T scale, int causal, const T* mask,           \
                             cg_index mask_rows);                                            \
    /* y = (x - mean) * rstd * w + b over rows of n; w, b may be NULL */                    \
    void cg_layer_norm_fwd_##S(cg_index r0, cg_index r1, cg_index n, const T* x,             \
                               const T* w, const T* b, double eps, T* y, T* mean, T* rstd);  \
    /* dx of rows [r0, r1); dw_part/db_part (n each, may be NULL) get those rows' sums */    \
    void cg_layer_norm_bwd_##S(cg_index r0, cg_index r1, cg_index n, const T* g,             \
                               const T* x, const T* mean, const T* rstd, const T* w, T* dx,  \
                               double* dw_part, double* db_part);                            \
    void cg_gelu_fwd_##S(cg_index i0, cg_index i1, const T* x, T* y, int tanh_approx);      \
    void cg_gelu_bwd_##S(cg_index i0, cg_index i1, const T* g, const T* x, T* dx,           \
                         int tanh_approx);                                                   \
    /* rows of (R, C) logits; target in [0, C) or ignore_index (checked by the caller);      \
     * loss = (1-eps) w[t] (lse - x[t]) + eps/C sum_c w_c (lse - x_c), 0 where ignored */    \
    void cg_xent_fwd_##S(cg_index r0, cg_index r1, cg_index C, const T* x,                  \
                         const int64_t* target, const T* w, int64_t ignore_index, double eps, \
                         T* loss, T* lse, T* wt);                                            \
    /* dx = softmax * (a + b W) - b w - a onehot(t), a = (1-eps) w[t] s, b = eps/C s,        \
     * s = scale[r * scale_step], W = sum(w) */                                              \
    void cg_xent_bwd_##S(cg_index r0, cg_index r1, cg_index C, const T* x, const T* lse,     \
                         const int64_t* target, const T* w, int64_t ignore_index, double eps, \
                         const T* scale, cg_index scale_step, T* dx);

CG_FUSED_DECL(f, float)
CG_FUSED_DECL(d, double)

#endif
