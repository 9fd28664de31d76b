/* Fused optimizer updates of cygrad (SGD, Adam, AdamW): one launch per parameter
 * (cg_sgd_*, cg_adam_*) or per up to 8 parameters (the _multi_ kernels at the end)
 * reads and writes each parameter, its gradient and its buffers once, in a
 * grid-stride loop over 64-bit indices.
 *
 * The arithmetic is the CPU kernel's (cygrad/_core/cpu/optim.c), itself PyTorch's
 * single-tensor update step by step in the parameter's dtype. The host rounds
 * every hyper-parameter to that dtype after the same double-precision arithmetic
 * as the CPU kernel (1 - beta1, -lr, the bias corrections ...), and passes them as
 * T. The flags are uniform over a launch, so their branches do not diverge. A GPU
 * compiler may contract a multiply and an add into one rounding (the CPU kernel
 * turns that off): float32 results may then differ from the CPU's in the last bit.
 */

#include "cg_common.cuh"

__device__ inline float cg_sqrt(float x) { return sqrtf(x); }
__device__ inline double cg_sqrt(double x) { return sqrt(x); }

/* grad <- sign * g (+ wd * p); with momentum: buf <- g (first step) or
 * buf * mom + damp * g, and g <- buf (or g + mom * buf, nesterov);
 * p <- p + nlr * g. buf may be NULL without momentum. */
template <typename T>
__device__ void cg_sgd(cg_index n, T* p, const T* g, T* buf, T sign, T wd, T mom, T damp, T nlr,
                       int has_wd, int has_mom, int first, int nesterov)
{
    const cg_index step = (cg_index)blockDim.x * gridDim.x;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        T gi = g[i] * sign;
        if (has_wd)
            gi = gi + wd * p[i];
        if (has_mom) {
            const T bi = first ? gi : buf[i] * mom + damp * gi;
            buf[i] = bi;
            gi = nesterov ? gi + mom * bi : bi;
        }
        p[i] = p[i] + nlr * gi;
    }
}

/* Adam (decoupled: AdamW): exp_avg.lerp_(g, 1 - beta1) by PyTorch's two-sided
 * formula (low_w picks the side), exp_avg_sq * b2 + (c2 * g) * g, amsgrad's
 * running max (NaN wins, as torch.maximum), p + nstep * (m / (sqrt(v) / bc2 + eps)).
 * mx may be NULL without amsgrad. */
template <typename T>
__device__ void cg_adam(cg_index n, T* p, const T* g, T* m, T* v, T* mx, T sign, T wd, T decay,
                        T w1, T w1c, T b2, T c2, T eps, T bc2, T nstep, int has_wd,
                        int decoupled, int amsgrad, int low_w)
{
    const cg_index step = (cg_index)blockDim.x * gridDim.x;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < n; i += step) {
        T gi = g[i] * sign;
        T pi = p[i];
        if (has_wd) {
            if (decoupled)
                pi = pi * decay;
            else
                gi = gi + wd * pi;
        }
        T mi = m[i];
        const T d = gi - mi;
        mi = low_w ? mi + w1 * d : gi - d * w1c;
        m[i] = mi;
        T vi = v[i] * b2 + (c2 * gi) * gi;
        v[i] = vi;
        if (amsgrad) {
            const T xi = mx[i];
            vi = (vi > xi || vi != vi) ? vi : xi;
            mx[i] = vi;
        }
        const T denom = cg_sqrt(vi) / bc2 + eps;
        p[i] = pi + nstep * (mi / denom);
    }
}

#define CG_OPTIM_KERNELS(SFX, T)                                                              \
    extern "C" __global__ void cg_sgd_##SFX(cg_index n, T* p, const T* g, T* buf, T sign,    \
                                            T wd, T mom, T damp, T nlr, int has_wd,          \
                                            int has_mom, int first, int nesterov)            \
    {                                                                                         \
        cg_sgd<T>(n, p, g, buf, sign, wd, mom, damp, nlr, has_wd, has_mom, first, nesterov);  \
    }                                                                                         \
    extern "C" __global__ void cg_adam_##SFX(cg_index n, T* p, const T* g, T* m, T* v, T* mx, \
                                             T sign, T wd, T decay, T w1, T w1c, T b2, T c2, \
                                             T eps, T bc2, T nstep, int has_wd,              \
                                             int decoupled, int amsgrad, int low_w)          \
    {                                                                                         \
        cg_adam<T>(n, p, g, m, v, mx, sign, wd, decay, w1, w1c, b2, c2, eps, bc2, nstep,      \
                   has_wd, decoupled, amsgrad, low_w);                                        \
    }

CG_OPTIM_KERNELS(f32, float)
CG_OPTIM_KERNELS(f64, double)

/* Several parameters in one launch (the host's lists of up to CG_MULTI_MAX
 * parameters of one dtype): blockIdx.y picks the parameter, and the blocks along x
 * run the single-parameter update above over its elements in their grid-stride
 * loop (blocks past a small parameter's end find no element and return). Each
 * parameter's tensors are pointer arguments of their own (unused slots NULL), so
 * drivers see and check every device address; its element count, the bias
 * corrections of its own step count (s0: sqrt of the second, s1: the negated step
 * size, as above) and SGD's "first step" flag travel in one struct by value. The
 * host passes distinct parameters only: their updates run concurrently. */
#define CG_MULTI_MAX 8

struct cg_multi_list {
    cg_index n[CG_MULTI_MAX];
    double s0[CG_MULTI_MAX], s1[CG_MULTI_MAX];
    long long flag[CG_MULTI_MAX];
};

#define CG_PARAMS8(TYPE, NAME)                                                                  \
    TYPE NAME##0, TYPE NAME##1, TYPE NAME##2, TYPE NAME##3, TYPE NAME##4, TYPE NAME##5,        \
        TYPE NAME##6, TYPE NAME##7
#define CG_PICK8(TYPE, NAME, J)                                                                 \
    TYPE const NAME##_all[CG_MULTI_MAX] = {NAME##0, NAME##1, NAME##2, NAME##3,                 \
                                           NAME##4, NAME##5, NAME##6, NAME##7};                \
    TYPE const NAME = NAME##_all[J]

/* this block's parameter j (blocks past count return), its p and g */
#define CG_MULTI_SLOT(T)                                                                        \
    const int j = blockIdx.y;                                                                   \
    if (j >= count || j >= CG_MULTI_MAX)                                                        \
        return;                                                                                 \
    CG_PICK8(T*, p, j);                                                                         \
    CG_PICK8(const T*, g, j)

#define CG_OPTIM_MULTI_KERNELS(SFX, T)                                                          \
    extern "C" __global__ void cg_sgd_multi_##SFX(int count, cg_multi_list L, CG_PARAMS8(T*, p), \
                                                  CG_PARAMS8(const T*, g), CG_PARAMS8(T*, a),  \
                                                  T sign, T wd, T mom, T damp, T nlr,          \
                                                  int has_wd, int has_mom, int nesterov)       \
    {                                                                                           \
        CG_MULTI_SLOT(T);                                                                       \
        CG_PICK8(T*, a, j);                                                                     \
        cg_sgd<T>(L.n[j], p, g, a, sign, wd, mom, damp, nlr, has_wd, has_mom, (int)L.flag[j],   \
                  nesterov);                                                                    \
    }                                                                                           \
    extern "C" __global__ void cg_adam_multi_##SFX(int count, cg_multi_list L,                 \
                                                   CG_PARAMS8(T*, p), CG_PARAMS8(const T*, g), \
                                                   CG_PARAMS8(T*, m), CG_PARAMS8(T*, v),       \
                                                   CG_PARAMS8(T*, x), T sign, T wd, T decay,   \
                                                   T w1, T w1c, T b2, T c2, T eps, int has_wd, \
                                                   int decoupled, int amsgrad, int low_w)      \
    {                                                                                           \
        CG_MULTI_SLOT(T);                                                                       \
        CG_PICK8(T*, m, j);                                                                     \
        CG_PICK8(T*, v, j);                                                                     \
        CG_PICK8(T*, x, j);                                                                     \
        cg_adam<T>(L.n[j], p, g, m, v, x, sign, wd, decay, w1, w1c, b2, c2, eps, (T)L.s0[j],    \
                   (T)L.s1[j], has_wd, decoupled, amsgrad, low_w);                              \
    }

CG_OPTIM_MULTI_KERNELS(f32, float)
CG_OPTIM_MULTI_KERNELS(f64, double)
