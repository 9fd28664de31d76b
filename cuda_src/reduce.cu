/* Row reductions of cygrad: out[r] = sum or max of in[r, 0:cols] for a dense
 * row-major rows x cols matrix, float (f32) and double (f64).
 *
 * Naming: cg_<op>_rows_<dtype>, e.g. cg_sum_rows_f32, cg_max_rows_f64.
 * Parameters: (rows, cols, out, in); out has rows elements.
 *
 * Launch: any grid (blocks take rows in a grid-stride loop) and a block of
 * blockDim.x threads, a multiple of 32 up to 1024, with blockDim.y = blockDim.z = 1.
 * No dynamic shared memory.
 *
 * Each block reduces one row at a time in three steps:
 *   1. each thread folds the columns threadIdx.x, threadIdx.x + blockDim.x, ...;
 *   2. each warp folds its 32 partials with __shfl_down_sync and lane 0 stores the
 *      warp's result in shared memory;
 *   3. after __syncthreads(), warp 0 folds the per-warp results the same way.
 * A second __syncthreads() at the end of the row keeps the next row's step 2
 * from overwriting shared results that warp 0 is still reading.
 *
 * max propagates NaN, as torch.max does. An empty row (cols == 0) gives 0 for
 * sum and -inf for max; the host rejects max over an empty dimension first.
 */

#include "cg_common.cuh"

struct cg_fold_sum {
    template <typename T> __device__ static T identity() { return T(0); }
    template <typename T> __device__ static T apply(T a, T b) { return a + b; }
};

struct cg_fold_max {
    template <typename T> __device__ static T identity() { return -T(HUGE_VAL); }
    /* a NaN on either side wins */
    template <typename T> __device__ static T apply(T a, T b) { return (a != a || a > b) ? a : b; }
};

template <typename T, typename Fold>
__device__ inline T cg_warp_fold(T v)
{
    for (int offset = 16; offset > 0; offset /= 2)
        v = Fold::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    return v;
}

template <typename T, typename Fold>
__device__ inline void cg_reduce_rows(cg_index rows, cg_index cols, T* out, const T* in)
{
    __shared__ T warp_results[32];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int nwarps = blockDim.x / 32;
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* row = in + r * cols;
        T acc = Fold::template identity<T>();
        for (cg_index c = threadIdx.x; c < cols; c += blockDim.x)
            acc = Fold::apply(acc, row[c]);
        acc = cg_warp_fold<T, Fold>(acc);
        if (lane == 0)
            warp_results[warp] = acc;
        __syncthreads();
        if (warp == 0) {
            acc = lane < nwarps ? warp_results[lane] : Fold::template identity<T>();
            acc = cg_warp_fold<T, Fold>(acc);
            if (lane == 0)
                out[r] = acc;
        }
        __syncthreads();
    }
}

#define CG_REDUCE_KERNEL(OP, SUFFIX, T)                                                    \
    extern "C" __global__ void cg_##OP##_rows_##SUFFIX(cg_index rows, cg_index cols, T* out, \
                                                       const T* in)                        \
    {                                                                                      \
        cg_reduce_rows<T, cg_fold_##OP>(rows, cols, out, in);                              \
    }

CG_REDUCE_KERNEL(sum, f32, float)
CG_REDUCE_KERNEL(sum, f64, double)
CG_REDUCE_KERNEL(max, f32, float)
CG_REDUCE_KERNEL(max, f64, double)
