/* Fused optimizer updates (SGD, Adam, AdamW): each parameter, its gradient and
 * its buffers are read and written once per step, instead of once per tensor
 * operation of the unfused update (about ten for Adam).
 *
 * The arithmetic follows PyTorch's single-tensor ("for-loop") update step by
 * step, in the parameter's dtype, with the hyper-parameters rounded to that
 * dtype as a tensor op rounds a Python scalar, so float64 results agree with
 * it to the last bits and float32 results to float rounding. Contraction into
 * fused multiply-adds is turned off below so the result does not depend on
 * the -march a wheel was built for.
 *
 * Work is cut into chunks of CHUNK elements of one parameter; chunks never
 * share memory, so they run on cygrad's pool without locks and the result does
 * not depend on the thread count. */
#if defined(__clang__)
#pragma clang fp contract(off)
#elif defined(__GNUC__)
#pragma GCC optimize("fp-contract=off")
#endif

#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include "isa.h"
#include "optim.h"

#define CHUNK ((cg_index)1 << 15)

static cg_optim_pool_fn pool_run = NULL;
/* A step is memory-bound (5-7 streams per element) like a binary op, and takes
 * the same threshold (cpu/parallel.c): on the loaded 2-core development machine
 * two threads never beat one on 1M-10M element steps. */
cg_index cg_optim_parallel_min = (cg_index)1 << 20;

void cg_optim_set_pool(cg_optim_pool_fn run) { pool_run = run; }

/* PyTorch's torch.maximum: NaN wins. */
#define NAN_MAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))

/* The loop bodies take their flags as arguments and every call site passes
 * constants (the CASES16 switches below), so each combination is compiled into
 * its own branch-free loop that gcc vectorises (CG_HOT: also for AVX2 and
 * AVX-512, chosen at load time); `maximize` is a multiplication by -1, which is
 * exact. */
#define INLINE static inline __attribute__((always_inline))

#define CASES16(CALL)                                                                 \
    switch (key) {                                                                    \
    case 0: CALL(0, 0, 0, 0); break;   case 1: CALL(1, 0, 0, 0); break;                \
    case 2: CALL(0, 1, 0, 0); break;   case 3: CALL(1, 1, 0, 0); break;                \
    case 4: CALL(0, 0, 1, 0); break;   case 5: CALL(1, 0, 1, 0); break;                \
    case 6: CALL(0, 1, 1, 0); break;   case 7: CALL(1, 1, 1, 0); break;                \
    case 8: CALL(0, 0, 0, 1); break;   case 9: CALL(1, 0, 0, 1); break;                \
    case 10: CALL(0, 1, 0, 1); break;  case 11: CALL(1, 1, 0, 1); break;               \
    case 12: CALL(0, 0, 1, 1); break;  case 13: CALL(1, 0, 1, 1); break;               \
    case 14: CALL(0, 1, 1, 1); break;  default: CALL(1, 1, 1, 1); break;               \
    }

#define DEFINE_SGD(NAME, T)                                                           \
INLINE void NAME##_body(const cg_optim_hyper* h, const cg_optim_item* it, cg_index lo,  \
                        cg_index hi, int has_wd, int has_mom, int first, int nesterov) { \
    T* p = (T*)it->param;                                                             \
    const T* g = (const T*)it->grad;                                                  \
    T* b = (T*)it->buf[0];                                                            \
    const T sign = h->maximize ? (T)-1 : (T)1;                                        \
    const T wd = (T)h->weight_decay, mom = (T)h->momentum;                            \
    const T damp = (T)(1.0 - h->dampening), nlr = (T)(-h->lr);                        \
    for (cg_index i = lo; i < hi; i++) {                                              \
        T gi = g[i] * sign;                                                           \
        if (has_wd) gi = gi + wd * p[i];                                              \
        if (has_mom) {                                                                \
            T bi = first ? gi : b[i] * mom + damp * gi;                               \
            b[i] = bi;                                                                \
            gi = nesterov ? gi + mom * bi : bi;                                       \
        }                                                                             \
        p[i] = p[i] + nlr * gi;                                                       \
    }                                                                                 \
}                                                                                     \
CG_HOT static void NAME(const cg_optim_hyper* h, const cg_optim_item* it, cg_index lo,      \
                 cg_index hi) {                                                       \
    int has_mom = h->momentum != 0;                                                   \
    int key = (h->weight_decay != 0) | has_mom << 1 | (has_mom && it->first) << 2     \
              | (has_mom && h->nesterov) << 3;                                        \
    CASES16(NAME##_CALL)                                                              \
}

/* exp_avg.lerp_(g, 1 - beta1) uses PyTorch's two-sided lerp formula;
 * exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2) is v*b2 + (c*g)*g;
 * param.addcdiv_(m, denom, value=-step_size) is p + s * (m / denom). */
#define DEFINE_ADAM(NAME, T, SQRT)                                                    \
INLINE void NAME##_body(const cg_optim_hyper* h, const cg_optim_item* it, cg_index lo,  \
                        cg_index hi, int has_wd, int decoupled, int amsgrad, int low_w) { \
    T* p = (T*)it->param;                                                             \
    const T* g = (const T*)it->grad;                                                  \
    T* m = (T*)it->buf[0];                                                            \
    T* v = (T*)it->buf[1];                                                            \
    T* mx = (T*)it->buf[2];                                                           \
    const T sign = h->maximize ? (T)-1 : (T)1;                                        \
    const T wd = (T)h->weight_decay, decay = (T)(1.0 - h->lr * h->weight_decay);      \
    const T w1 = (T)(1.0 - h->beta1), w1c = (T)(1.0 - (1.0 - h->beta1));              \
    const T b2 = (T)h->beta2, c2 = (T)(1.0 - h->beta2), eps = (T)h->eps;              \
    const T bc2 = (T)it->bc2_sqrt, nstep = (T)(-it->step_size);                       \
    for (cg_index i = lo; i < hi; i++) {                                              \
        T gi = g[i] * sign;                                                           \
        T pi = p[i];                                                                  \
        if (has_wd) {                                                                 \
            if (decoupled) pi = pi * decay;                                           \
            else gi = gi + wd * pi;                                                   \
        }                                                                             \
        T mi = m[i];                                                                  \
        T d = gi - mi;                                                                \
        mi = low_w ? mi + w1 * d : gi - d * w1c;                                      \
        m[i] = mi;                                                                    \
        T vi = v[i] * b2 + (c2 * gi) * gi;                                            \
        v[i] = vi;                                                                    \
        if (amsgrad) {                                                                \
            T xi = mx[i];                                                             \
            vi = NAN_MAX(vi, xi);                                                     \
            mx[i] = vi;                                                               \
        }                                                                             \
        T denom = SQRT(vi) / bc2 + eps;                                               \
        p[i] = pi + nstep * (mi / denom);                                             \
    }                                                                                 \
}                                                                                     \
CG_HOT static void NAME(const cg_optim_hyper* h, const cg_optim_item* it, cg_index lo,      \
                 cg_index hi) {                                                       \
    int key = (h->weight_decay != 0) | (h->decoupled != 0) << 1 | (h->amsgrad != 0) << 2 \
              | (fabs(1.0 - h->beta1) < 0.5) << 3;                                    \
    CASES16(NAME##_CALL)                                                              \
}

#define sgd_f32_CALL(A, B, C, D) sgd_f32_body(h, it, lo, hi, A, B, C, D)
#define sgd_f64_CALL(A, B, C, D) sgd_f64_body(h, it, lo, hi, A, B, C, D)
#define adam_f32_CALL(A, B, C, D) adam_f32_body(h, it, lo, hi, A, B, C, D)
#define adam_f64_CALL(A, B, C, D) adam_f64_body(h, it, lo, hi, A, B, C, D)

DEFINE_SGD(sgd_f32, float)
DEFINE_SGD(sgd_f64, double)
DEFINE_ADAM(adam_f32, float, sqrtf)
DEFINE_ADAM(adam_f64, double, sqrt)

static void run_range(const cg_optim_hyper* h, const cg_optim_item* it, cg_index lo,
                      cg_index hi) {
    if (h->kind == CG_OPTIM_SGD) {
        if (it->dtype == CG_OPTIM_F32) sgd_f32(h, it, lo, hi);
        else sgd_f64(h, it, lo, hi);
    } else {
        if (it->dtype == CG_OPTIM_F32) adam_f32(h, it, lo, hi);
        else adam_f64(h, it, lo, hi);
    }
}

typedef struct {
    const cg_optim_hyper* h;
    const cg_optim_item* items;
    const cg_index* starts;    /* starts[k]: the first chunk of item k; nitems + 1 entries */
    cg_index nitems;
} step_job;

static void step_chunk(void* ctx, int chunk) {
    const step_job* j = (const step_job*)ctx;
    cg_index lo = 0, hi = j->nitems;        /* the item k with starts[k] <= chunk < starts[k+1] */
    while (hi - lo > 1) {
        cg_index mid = lo + (hi - lo) / 2;
        if (j->starts[mid] <= chunk) lo = mid;
        else hi = mid;
    }
    const cg_optim_item* it = &j->items[lo];
    cg_index begin = (chunk - j->starts[lo]) * CHUNK;
    cg_index end = begin + CHUNK < it->n ? begin + CHUNK : it->n;
    run_range(j->h, it, begin, end);
}

int cg_optim_step(const cg_optim_hyper* h, const cg_optim_item* items, cg_index nitems) {
    cg_index total = 0;
    for (cg_index k = 0; k < nitems; k++) total += items[k].n;
    if (pool_run == NULL || total < cg_optim_parallel_min || total / CHUNK > INT_MAX / 2) {
        for (cg_index k = 0; k < nitems; k++) run_range(h, &items[k], 0, items[k].n);
        return 0;
    }
    cg_index* starts = (cg_index*)malloc((size_t)(nitems + 1) * sizeof(cg_index));
    if (starts == NULL) return -1;
    starts[0] = 0;
    for (cg_index k = 0; k < nitems; k++)
        starts[k + 1] = starts[k] + (items[k].n + CHUNK - 1) / CHUNK;
    step_job job = {h, items, starts, nitems};
    if (starts[nitems] > 0) pool_run((int)starts[nitems], step_chunk, &job);
    free(starts);
    return 0;
}
