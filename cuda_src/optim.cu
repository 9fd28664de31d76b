/* Fused optimizer updates of cygrad (SGD, Adam, AdamW): one launch per parameter
 * reads and writes the parameter, its gradient and its buffers once, in a
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
