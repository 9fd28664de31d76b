/* Elementwise CUDA kernels of cygrad: out = a OP b and out = OP(a).
 *
 * Naming: cg_<op>_<dtype>[_strided], dtype f32 (float) or f64 (double), e.g.
 * cg_add_f32, cg_exp_f64_strided. Every kernel is extern "C" so the loader can
 * find it by that plain name (no C++ mangling) in the PTX/cubin.
 *
 * Two shapes of kernel per op:
 *   - contiguous: all operands are dense and of the same length n; the hot path.
 *   - strided: any geometry the CPU path accepts. Strides are in elements and
 *     may be 0 (broadcast) or negative (flipped views); pointers already point at
 *     each operand's first element (the tensor's offset is applied by the host).
 *
 * Launch with any grid: every kernel uses a grid-stride loop, so a grid smaller
 * than n still covers all elements (the host can cap the grid at a few blocks
 * per SM and reuse threads instead of launching millions of them).
 *
 * No __restrict__: in-place ops (a += b) pass out == a, which restrict forbids.
 *
 * The emulated driver (docs/cuda.md) also compiles this file as host C++ with
 * cygrad/cuda/_driver/emu/cuda_emu.h, which is how CI runs it without a GPU.
 */

/* cg_geometry (cg_common.cuh) is passed by value as one kernel argument (520
 * bytes, far below the 4 KiB kernel-parameter limit); unused operands' strides
 * are ignored (a unary op has no b). */
#include "cg_common.cuh"

/* Element offsets of the i-th element (row-major over shape) in each operand. */
__device__ inline void cg_offsets(const cg_geometry& g, cg_index i,
                                  cg_index* off_out, cg_index* off_a, cg_index* off_b)
{
    cg_index o = 0, a = 0, b = 0;
    for (int d = g.ndim - 1; d >= 0; --d) {
        const cg_index size = g.shape[d];
        const cg_index k = i % size;
        i /= size;
        o += k * g.stride_out[d];
        a += k * g.stride_a[d];
        b += k * g.stride_b[d];
    }
    *off_out = o;
    *off_a = a;
    *off_b = b;
}

__device__ inline cg_index cg_first_index()
{
    return (cg_index)blockIdx.x * blockDim.x + threadIdx.x;
}

__device__ inline cg_index cg_grid_stride()
{
    return (cg_index)blockDim.x * gridDim.x;
}

/* ---- the operations, one small functor each ---------------------------- */

struct cg_op_add { template <typename T> __device__ T operator()(T a, T b) const { return a + b; } };
struct cg_op_sub { template <typename T> __device__ T operator()(T a, T b) const { return a - b; } };
struct cg_op_mul { template <typename T> __device__ T operator()(T a, T b) const { return a * b; } };
struct cg_op_div { template <typename T> __device__ T operator()(T a, T b) const { return a / b; } };

/* Overloads pick the float or double math function; the float ones keep the
 * computation in single precision, as the CPU kernels do. */
__device__ inline float cg_exp(float x) { return expf(x); }
__device__ inline double cg_exp(double x) { return exp(x); }
__device__ inline float cg_tanh(float x) { return tanhf(x); }
__device__ inline double cg_tanh(double x) { return tanh(x); }

struct cg_op_neg { template <typename T> __device__ T operator()(T x) const { return -x; } };
struct cg_op_exp { template <typename T> __device__ T operator()(T x) const { return cg_exp(x); } };
struct cg_op_tanh { template <typename T> __device__ T operator()(T x) const { return cg_tanh(x); } };
/* 1 / (1 + e^-x): for very negative x, e^-x overflows to inf and the result is
 * the correct limit 0, so no branch is needed. */
struct cg_op_sigmoid {
    template <typename T> __device__ T operator()(T x) const { return T(1) / (T(1) + cg_exp(-x)); }
};

/* relu keeps NaN and -0.0 as they are (torch.relu does): only x < 0 becomes 0. */
struct cg_op_relu { template <typename T> __device__ T operator()(T x) const { return x < T(0) ? T(0) : x; } };
struct cg_op_copy { template <typename T> __device__ T operator()(T x) const { return x; } };

/* ---- generic loops ------------------------------------------------------ */

template <typename T, typename Op>
__device__ inline void cg_binary_contig(cg_index n, T* out, const T* a, const T* b)
{
    const Op op;
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride())
        out[i] = op(a[i], b[i]);
}

template <typename T, typename Op>
__device__ inline void cg_binary_strided(cg_index n, const cg_geometry& g,
                                         T* out, const T* a, const T* b)
{
    const Op op;
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index oo, oa, ob;
        cg_offsets(g, i, &oo, &oa, &ob);
        out[oo] = op(a[oa], b[ob]);
    }
}

template <typename T, typename Op>
__device__ inline void cg_unary_contig(cg_index n, T* out, const T* a)
{
    const Op op;
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride())
        out[i] = op(a[i]);
}

template <typename T, typename Op>
__device__ inline void cg_unary_strided(cg_index n, const cg_geometry& g, T* out, const T* a)
{
    const Op op;
    for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {
        cg_index oo, oa, unused;
        cg_offsets(g, i, &oo, &oa, &unused);
        out[oo] = op(a[oa]);
    }
}

/* ---- the extern "C" entry points ---------------------------------------- */

#define CG_BINARY_KERNELS(NAME, SUFFIX, T)                                              \
    extern "C" __global__ void cg_##NAME##_##SUFFIX(cg_index n, T* out, const T* a,      \
                                                    const T* b)                         \
    {                                                                                   \
        cg_binary_contig<T, cg_op_##NAME>(n, out, a, b);                                \
    }                                                                                   \
    extern "C" __global__ void cg_##NAME##_##SUFFIX##_strided(cg_index n, cg_geometry g, \
                                                              T* out, const T* a,       \
                                                              const T* b)               \
    {                                                                                   \
        cg_binary_strided<T, cg_op_##NAME>(n, g, out, a, b);                            \
    }

#define CG_UNARY_KERNELS(NAME, SUFFIX, T)                                               \
    extern "C" __global__ void cg_##NAME##_##SUFFIX(cg_index n, T* out, const T* a)      \
    {                                                                                   \
        cg_unary_contig<T, cg_op_##NAME>(n, out, a);                                    \
    }                                                                                   \
    extern "C" __global__ void cg_##NAME##_##SUFFIX##_strided(cg_index n, cg_geometry g, \
                                                              T* out, const T* a)       \
    {                                                                                   \
        cg_unary_strided<T, cg_op_##NAME>(n, g, out, a);                                \
    }

/* out[i] = value at any geometry (only the geometry's out strides are read). */
#define CG_FILL_KERNEL(SUFFIX, T)                                                        \
    extern "C" __global__ void cg_fill_##SUFFIX##_strided(cg_index n, cg_geometry g, T* out, \
                                                          T value)                      \
    {                                                                                   \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {             \
            cg_index oo, unused_a, unused_b;                                            \
            cg_offsets(g, i, &oo, &unused_a, &unused_b);                                \
            out[oo] = value;                                                            \
        }                                                                               \
    }

/* relu's gradient: out = grad where y > threshold, else 0 (a = grad, b = y). */
#define CG_THRESHOLD_BACKWARD_KERNEL(SUFFIX, T)                                          \
    extern "C" __global__ void cg_threshold_backward_##SUFFIX##_strided(                 \
        cg_index n, cg_geometry g, T* out, const T* grad, const T* y, T threshold)       \
    {                                                                                   \
        for (cg_index i = cg_first_index(); i < n; i += cg_grid_stride()) {             \
            cg_index oo, og, oy;                                                        \
            cg_offsets(g, i, &oo, &og, &oy);                                            \
            out[oo] = y[oy] > threshold ? grad[og] : T(0);                              \
        }                                                                               \
    }

#define CG_ALL_KERNELS(SUFFIX, T)        \
    CG_BINARY_KERNELS(add, SUFFIX, T)    \
    CG_BINARY_KERNELS(sub, SUFFIX, T)    \
    CG_BINARY_KERNELS(mul, SUFFIX, T)    \
    CG_BINARY_KERNELS(div, SUFFIX, T)    \
    CG_UNARY_KERNELS(neg, SUFFIX, T)     \
    CG_UNARY_KERNELS(exp, SUFFIX, T)     \
    CG_UNARY_KERNELS(tanh, SUFFIX, T)    \
    CG_UNARY_KERNELS(sigmoid, SUFFIX, T) \
    CG_UNARY_KERNELS(relu, SUFFIX, T)    \
    CG_UNARY_KERNELS(copy, SUFFIX, T)    \
    CG_FILL_KERNEL(SUFFIX, T)            \
    CG_THRESHOLD_BACKWARD_KERNEL(SUFFIX, T)

CG_ALL_KERNELS(f32, float)
CG_ALL_KERNELS(f64, double)
