/* Sliding-window kernels of cygrad: im2col and its adjoint col2im (convolution,
 * unfold, fold), max pooling and its gradient, over any number of spatial dims of
 * an (N, C, *spatial) tensor. The CPU kernels of the same primitives
 * (cygrad/_core/cpu/conv.c) define the results; these compute them with one
 * thread per output element in grid-stride loops over 64-bit indices.
 *
 * The geometry travels by value in a cg_window (strides in elements; padding
 * before each dim, the padding after it implied by `out`). Padding is never
 * materialised: a window position outside the input reads as zero (im2col), adds
 * nothing (col2im) or is skipped (max pooling).
 *
 * im2col moves elements whatever their dtype: the kernels are named by element
 * width (u8, u16, u32, u64, u128). col2im gathers (each output element sums the columns
 * that read it), so it needs no atomics and its sums do not depend on scheduling;
 * max pooling's gradient scatters with atomicAdd (windows may overlap).
 */

#include "cg_common.cuh"

#define CG_MAX_SP 14   /* spatial dims: the tensor core's 16 dims less N and C */

struct cg_window {
    int nsp;
    cg_index n, c;
    cg_index size[CG_MAX_SP];
    cg_index kernel[CG_MAX_SP];
    cg_index dilation[CG_MAX_SP];
    cg_index stride[CG_MAX_SP];
    cg_index pad[CG_MAX_SP];
    cg_index out[CG_MAX_SP];
    cg_index xs[CG_MAX_SP + 2];   /* strides of the (N, C, *spatial) operand */
};

__device__ inline cg_index cg_first() { return (cg_index)blockIdx.x * blockDim.x + threadIdx.x; }
__device__ inline cg_index cg_step() { return (cg_index)blockDim.x * gridDim.x; }

/* The input offset (spatial part, through xs) of window position `l` (row-major
 * over out) at kernel offset `k` (row-major over kernel); -1 when it lies in the
 * padding. *plane gets the position in the flattened spatial plane. */
__device__ inline cg_index cg_window_offset(const cg_window& w, cg_index l, cg_index k,
                                            cg_index* plane)
{
    cg_index off = 0, pl = 0, plane_stride = 1;
    for (int d = w.nsp - 1; d >= 0; --d) {
        const cg_index o = l % w.out[d];
        const cg_index kk = k % w.kernel[d];
        l /= w.out[d];
        k /= w.kernel[d];
        const cg_index pos = o * w.stride[d] + kk * w.dilation[d] - w.pad[d];
        if (pos < 0 || pos >= w.size[d])
            return -1;
        off += pos * w.xs[d + 2];
        pl += pos * plane_stride;
        plane_stride *= w.size[d];
    }
    *plane = pl;
    return off;
}

/* cols[i] for i over the columns in memory order: (N, C*K, L), or with
 * channel_major (C*K, N, L). */
template <typename T>
__device__ void cg_im2col(cg_index total, const cg_window& w, const T* x, T* cols,
                          int channel_major)
{
    cg_index K = 1, L = 1;
    for (int d = 0; d < w.nsp; ++d) {
        K *= w.kernel[d];
        L *= w.out[d];
    }
    const cg_index CK = w.c * K;
    for (cg_index i = cg_first(); i < total; i += cg_step()) {
        const cg_index l = i % L;
        cg_index n, ck;
        if (channel_major) {
            n = (i / L) % w.n;
            ck = i / (L * w.n);
        } else {
            ck = (i / L) % CK;
            n = i / (L * CK);
        }
        cg_index plane;
        const cg_index off = cg_window_offset(w, l, ck % K, &plane);
        cols[i] = off < 0 ? T{} : x[n * w.xs[0] + (ck / K) * w.xs[1] + off];
    }
}

/* out (N, C, *size), contiguous: each element the sum of the columns entries
 * (n, c*K + k, l) whose window position l at kernel offset k reads it.
 * cs: the columns' strides. */
template <typename T>
__device__ void cg_col2im(cg_index total, const cg_window& w, const T* cols, cg_index cs0,
                          cg_index cs1, cg_index cs2, T* out)
{
    cg_index K = 1, P = 1;
    for (int d = 0; d < w.nsp; ++d) {
        K *= w.kernel[d];
        P *= w.size[d];
    }
    for (cg_index i = cg_first(); i < total; i += cg_step()) {
        const cg_index q = i / P;          /* the (n, c) plane */
        const cg_index n = q / w.c, c = q % w.c;
        const T* base = cols + n * cs0 + c * K * cs1;
        T acc = 0;
        for (cg_index k = 0; k < K; ++k) {
            cg_index p = i % P, kr = k, l = 0, lstride = 1;
            int hit = 1;
            for (int d = w.nsp - 1; d >= 0; --d) {
                const cg_index pos = p % w.size[d];
                const cg_index kk = kr % w.kernel[d];
                p /= w.size[d];
                kr /= w.kernel[d];
                const cg_index t = pos + w.pad[d] - kk * w.dilation[d];
                if (t < 0 || t % w.stride[d] != 0 || t / w.stride[d] >= w.out[d]) {
                    hit = 0;
                    break;
                }
                l += (t / w.stride[d]) * lstride;
                lstride *= w.out[d];
            }
            if (hit)
                acc += base[k * cs1 + l * cs2];
        }
        out[i] = acc;
    }
}

/* values and plane indices (N, C, *out), contiguous: the first maximum of each
 * window, except that a NaN always wins (so the last NaN does); a window wholly in
 * the padding gives -inf at position 0. */
template <typename T>
__device__ void cg_max_pool(cg_index total, const cg_window& w, const T* x, T* values,
                            long long* idx)
{
    cg_index K = 1, L = 1;
    for (int d = 0; d < w.nsp; ++d) {
        K *= w.kernel[d];
        L *= w.out[d];
    }
    for (cg_index i = cg_first(); i < total; i += cg_step()) {
        const cg_index q = i / L, l = i % L;
        const T* src = x + (q / w.c) * w.xs[0] + (q % w.c) * w.xs[1];
        T best = -T(HUGE_VAL);
        cg_index bi = -1;
        for (cg_index k = 0; k < K; ++k) {
            cg_index plane;
            const cg_index off = cg_window_offset(w, l, k, &plane);
            if (off < 0)
                continue;
            const T v = src[off];
            if (bi < 0 || v > best || v != v) {
                best = v;
                bi = plane;
            }
        }
        values[i] = best;
        idx[i] = bi < 0 ? 0 : bi;
    }
}

/* out (N, C, *size), zeroed by the caller: out[n, c, idx[n, c, o]] += grad[n, c, o].
 * grad and idx are contiguous (N, C, *out) of `total` elements, P = prod(size),
 * L = prod(out). An index outside [0, P) is skipped and sets *bad to 1 (bad is null
 * for indices that max_pool made and nothing has written since). */
template <typename T>
__device__ void cg_max_pool_bwd(cg_index total, cg_index L, cg_index P, const T* grad,
                                const long long* idx, T* out, int* bad)
{
    for (cg_index i = cg_first(); i < total; i += cg_step()) {
        const long long j = idx[i];
        if (j < 0 || j >= P) {
            if (bad != nullptr)
                atomicExch(bad, 1);
            continue;
        }
        atomicAdd(out + (i / L) * P + j, grad[i]);
    }
}

#define CG_IM2COL_KERNEL(SFX, T)                                                              \
    extern "C" __global__ void cg_im2col_##SFX(cg_index total, cg_window w, const T* x,      \
                                               T* cols, int channel_major)                   \
    {                                                                                         \
        cg_im2col<T>(total, w, x, cols, channel_major);                                       \
    }

CG_IM2COL_KERNEL(u8, unsigned char)
CG_IM2COL_KERNEL(u16, unsigned short)
CG_IM2COL_KERNEL(u32, unsigned int)
CG_IM2COL_KERNEL(u64, unsigned long long)

/* 16-byte elements (complex128); T{} is zero */
struct cg_u128 {
    unsigned long long lo, hi;
};
CG_IM2COL_KERNEL(u128, cg_u128)

#define CG_CONV_FLOAT_KERNELS(SFX, T)                                                         \
    extern "C" __global__ void cg_col2im_##SFX(cg_index total, cg_window w, const T* cols,   \
                                               cg_index cs0, cg_index cs1, cg_index cs2,     \
                                               T* out)                                       \
    {                                                                                         \
        cg_col2im<T>(total, w, cols, cs0, cs1, cs2, out);                                     \
    }                                                                                         \
    extern "C" __global__ void cg_max_pool_##SFX(cg_index total, cg_window w, const T* x,    \
                                                 T* values, long long* idx)                  \
    {                                                                                         \
        cg_max_pool<T>(total, w, x, values, idx);                                             \
    }                                                                                         \
    extern "C" __global__ void cg_max_pool_bwd_##SFX(cg_index total, cg_index L, cg_index P, \
                                                     const T* grad, const long long* idx,    \
                                                     T* out, int* bad)                       \
    {                                                                                         \
        cg_max_pool_bwd<T>(total, L, P, grad, idx, out, bad);                                 \
    }

CG_CONV_FLOAT_KERNELS(f32, float)
CG_CONV_FLOAT_KERNELS(f64, double)
