/* Test-only kernels for tests/cuda/test_emulator.py: each one exercises one
 * feature of the emulated driver, or (the strict_* ones) breaks one CUDA rule on
 * purpose so strict mode has something to catch. Also compiled with nvcc by the
 * tests when nvcc is present, so it stays valid CUDA. */

#include <cuda_bf16.h>
#include <cuda_fp16.h>

extern "C" __global__ void empty_kernel() {}

/* Tree sum of blockDim.x ints (a power of two) in static shared memory: without
 * a real barrier a thread reads partial sums its neighbours have not written. */
extern "C" __global__ void barrier_tree_sum(int* out, const int* in)
{
    __shared__ int buf[1024];
    const int t = threadIdx.x;
    buf[t] = in[blockIdx.x * blockDim.x + t];
    __syncthreads();
    for (int stride = blockDim.x / 2; stride > 0; stride /= 2) {
        if (t < stride)
            buf[t] += buf[t + stride];
        __syncthreads();
    }
    if (t == 0)
        out[blockIdx.x] = buf[0];
}

/* One warp: every warp operation on the value v[lane]; 8 results per lane. */
extern "C" __global__ void warp_ops(int* out, const int* v, int src, int delta, int width)
{
    const unsigned full = 0xffffffffu;
    const int lane = threadIdx.x % 32;
    const int x = v[threadIdx.x];
    int* o = out + 8 * threadIdx.x;
    o[0] = __shfl_sync(full, x, src, width);
    o[1] = __shfl_up_sync(full, x, delta, width);
    o[2] = __shfl_down_sync(full, x, delta, width);
    o[3] = __shfl_xor_sync(full, x, delta, width);
    o[4] = (int)__ballot_sync(full, x > 0);
    o[5] = __any_sync(full, x > 100);
    o[6] = __all_sync(full, x >= 0);
    __syncwarp();
    o[7] = (int)__shfl_down_sync(full, (double)x + 0.5, 1) + lane * 0;
}

/* Every thread adds into a few counters: heavy contention on the same words. */
extern "C" __global__ void atomic_histogram(int n, const int* in, int* bins_i, unsigned* bins_u,
                                            unsigned long long* bins_ull, float* sum_f,
                                            double* sum_d, int* max_i, int* min_i, int* exch)
{
    for (int i = blockIdx.x * blockDim.x + threadIdx.x; i < n; i += blockDim.x * gridDim.x) {
        const int b = in[i];
        atomicAdd(&bins_i[b], 1);
        atomicAdd(&bins_u[b], 2u);
        atomicAdd(&bins_ull[b], 3ull);
        atomicAdd(sum_f, (float)b);
        atomicAdd(sum_d, (double)b);
        atomicMax(max_i, b * 7 - 3);
        atomicMin(min_i, b * 7 - 3);
        atomicExch(exch, 1);
        /* a CAS loop increment: counts every element once more in bins_i[0] */
        int old = bins_i[0], assumed;
        do {
            assumed = old;
            old = atomicCAS(&bins_i[0], assumed, assumed + 1);
        } while (old != assumed);
    }
}

/* Reverses each block's chunk through dynamic shared memory. */
extern "C" __global__ void dynamic_shared_reverse(int n, float* out, const float* in)
{
    extern __shared__ float chunk[];
    const int i = blockIdx.x * blockDim.x + threadIdx.x;
    chunk[threadIdx.x] = i < n ? in[i] : 0.0f;
    __syncthreads();
    const int j = blockIdx.x * blockDim.x + (blockDim.x - 1 - threadIdx.x);
    if (j < n)
        out[j] = chunk[threadIdx.x];
}

/* 2-D blocks and grids: out[y, x] = linear thread id within the block + 1000 * block id. */
extern "C" __global__ void index_2d(int width, int* out)
{
    const int x = blockIdx.x * blockDim.x + threadIdx.x;
    const int y = blockIdx.y * blockDim.y + threadIdx.y;
    out[y * width + x] = (threadIdx.y * blockDim.x + threadIdx.x)
                         + 1000 * (blockIdx.y * gridDim.x + blockIdx.x);
}

extern "C" __global__ void typed_args(int i, unsigned u, long long ll, unsigned long long ull,
                                      float f, double d, bool flag, double* out)
{
    out[0] = i;
    out[1] = u;
    out[2] = (double)ll;
    out[3] = (double)ull;
    out[4] = f;
    out[5] = d;
    out[6] = flag ? 1.0 : 0.0;
}

/* half and bfloat16 round trips through float. */
extern "C" __global__ void half_round_trip(int n, float* out_h, float* out_b, const float* in)
{
    for (int i = threadIdx.x; i < n; i += blockDim.x) {
        out_h[i] = __half2float(__float2half(in[i]));
        out_b[i] = __bfloat162float(__float2bfloat16(in[i]));
    }
}

/* ---- deliberately wrong kernels, for strict mode -------------------------- */

/* threads >= 16 skip the barrier and exit while the others wait at it */
extern "C" __global__ void strict_barrier_exit(int* out)
{
    if (threadIdx.x < 16)
        __syncthreads();
    out[threadIdx.x] = 1;
}

/* even and odd threads wait at two different barriers */
extern "C" __global__ void strict_barrier_split(int* out)
{
    if (threadIdx.x % 2 == 0) {
        __syncthreads();
    } else {
        __syncthreads();
    }
    out[threadIdx.x] = 1;
}

/* writes one element past the end of out (n elements) */
extern "C" __global__ void strict_out_of_bounds(int n, float* out)
{
    if (threadIdx.x == 0)
        out[n] = 1.0f;
}

/* lanes 16..31 exit, lanes 0..15 shuffle with a full mask */
extern "C" __global__ void strict_shuffle_inactive(int* out)
{
    if (threadIdx.x < 16)
        out[threadIdx.x] = __shfl_sync(0xffffffffu, (int)threadIdx.x, 31);
}

/* each lane reads a lane outside its mask of lanes 0..15 */
extern "C" __global__ void strict_shuffle_outside_mask(int* out)
{
    if (threadIdx.x < 16)
        out[threadIdx.x] = __shfl_sync(0x0000ffffu, (int)threadIdx.x, 20, 32);
}
