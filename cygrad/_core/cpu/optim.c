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
#include "optim.h"

#define CHUNK ((cg_index)1 << 15)

static cg_optim_pool_fn pool_run = NULL;
/* A step moves 5-7 streams of memory per element: below ~256K elements in all,
 * waking a worker costs more than it saves. */
cg_index cg_optim_parallel_min = (cg_index)1 << 18;

void cg_optim_set_pool(cg_optim_pool_fn run) { pool_run = run; }

/* PyTorch's torch.maximum: NaN wins. */
#define NAN_MAX(a, b) (((a) > (b) || (a) != (a)) ? (a) : (b))

/* The loop bodies branch on flags that are fixed for the whole loop; gcc's
 * -O3 unswitches them into straight vectorisable loops. */
#define DEFINE_SGD(NAME, T)                                                           \
static void NAME(const cg_optim_hyper* h, const cg_optim_item* it, cg_index lo,      \
                 cg_index hi) {                                                       \
    T* p = (T*)it->param;                                                    \
    const T* g = (const T*)it->grad;                                         \
    T* b = (T*)it->buf[0];                                                   \
    const T wd = (T)h->weight_decay, mom = (T)h->momentum;                            \
    const T damp = (T)(1.0 - h->dampening), nlr = (T)(-h->lr);                        \
    const int has_wd = h->weight_decay != 0, has_mom = h->momentum != 0;              \
    const int first = it->first, nesterov = h->nesterov, maximize = h->maximize;      \
    for (cg_index i = lo; i < hi; i++) {                                              \
        T gi = maximize ? -g[i] : g[i];                                               \
        if (has_wd) gi = gi + wd * p[i];                                              \
        if (has_mom) {                                                                \
            T bi = first ? gi : b[i] * mom + damp * gi;                               \
            b[i] = bi;                                                                \
            gi = nesterov ? gi + mom * bi : bi;                                       \
        }                                                                             \
        p[i] = p[i] + nlr * gi;                                                       \
    }                                                                                 \
}

/* exp_avg.lerp_(g, 1 - beta1) uses PyTorch's two-sided lerp formula;
 * exp_avg_sq.mul_(beta2).addcmul_(g, g, value=1 - beta2) is v*b2 + (c*g)*g;
 * param.addcdiv_(m, denom, value=-step_size) is p + s * (m / denom). */
#define DEFINE_ADAM(NAME, T, SQRT)                                                    \
static void NAME(const cg_optim_hyper* h, const cg_optim_item* it, cg_index lo,      \
                 cg_index hi) {                                                       \
    T* p = (T*)it->param;                                                    \
    const T* g = (const T*)it->grad;                                         \
    T* m = (T*)it->buf[0];                                                   \
    T* v = (T*)it->buf[1];                                                   \
    T* mx = (T*)it->buf[2];                                                  \
    const T wd = (T)h->weight_decay, decay = (T)(1.0 - h->lr * h->weight_decay);      \
    const T w1 = (T)(1.0 - h->beta1), w1c = (T)(1.0 - (1.0 - h->beta1));              \
    const T b2 = (T)h->beta2, c2 = (T)(1.0 - h->beta2), eps = (T)h->eps;              \
    const T bc2 = (T)it->bc2_sqrt, nstep = (T)(-it->step_size);                       \
    const int low_w = fabs(1.0 - h->beta1) < 0.5;                                     \
    const int has_wd = h->weight_decay != 0, decoupled = h->decoupled;                \
    const int maximize = h->maximize, amsgrad = h->amsgrad;                           \
    for (cg_index i = lo; i < hi; i++) {                                              \
        T gi = maximize ? -g[i] : g[i];                                               \
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
}

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
