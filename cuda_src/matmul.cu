/* Matrix products of cygrad: C[b] = A[b] @ B[b], in float16 (f16, stored as
 * __half), bfloat16 (bf16, __nv_bfloat16), float (f32), double (f64), complex64
 * (c64) and complex128 (c128).
 *
 * Naming: cg_matmul_<dtype>. Parameters: (batch, m, n, k, c, a, b, strides),
 * where A[b] is m x k, B[b] is k x n and C[b] is m x n, and strides (in
 * elements, one struct by value) give each operand's batch, row and column
 * step. Any strides work, so a transposed operand (w.t(), k.transpose(-2, -1))
 * or a broadcast batch (stride 0) is read in place, never copied.
 *
 * Launch: block (CG_THREADS, CG_THREADS, 1) = 16 x 16; grid
 * (ceil(n / CG_BLOCK_TILE), ceil(m / CG_BLOCK_TILE), z) with any z: blocks take
 * batch elements in a grid-stride loop over z.
 *
 * Register-blocked: each block computes one 64 x 64 tile of C, each thread a 4 x 4
 * piece of it held in registers, rows ty + 16 i and columns tx + 16 j (so a warp's
 * reads of shared memory and its writes of C fall on consecutive addresses). For
 * each step of CG_K along k, the 256 threads copy a 64 x CG_K panel of A and a
 * CG_K x 64 panel of B into shared memory (4 elements of each per thread;
 * consecutive threads read consecutive k of A and consecutive columns of B, which
 * are adjacent in memory for row-major operands; zeros past the edges) and wait
 * at __syncthreads(). Each thread then reads 4 values of A and 4 of B per k and
 * does 16 multiply-adds with them: 4x fewer shared-memory reads per product than
 * one element per thread. The second __syncthreads() keeps the next step's copies
 * from overwriting panels that other threads still read. A's panel is stored
 * k-major (As[k][row]), so both reads in the inner loop index by k first.
 * Each element is summed in k order, in the operands' precision, except the
 * half types: their elements are converted to float as the panels are loaded
 * (the panels hold floats), summed in float and rounded to the half type once,
 * when stored, as PyTorch's cuBLAS products accumulate them. A complex element is
 * a (re, im) pair of float or double, laid out as NumPy's and the tensors'
 * complex64/complex128; the panels hold such pairs and each step is a complex
 * multiply-add.
 *
 * cg_matmul_bias_<dtype> (nn.Linear's forward, the linear_bias primitive) takes
 * two more parameters, (bias, bias_step): each element of column j gets
 * bias[j * bias_step] added to its finished sum before it is stored, the
 * epilogue of the same launch (the same value as the product followed by a
 * broadcast add, one launch and one pass over C fewer). For the half types the
 * bias is added in float to the float sum and the total rounded once, as
 * cuBLAS's bias epilogue does (so there it can differ in the last bit from the
 * rounded product followed by the add).
 */

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"
#include "cg_io.cuh"

#define CG_THREADS 16                          /* threads per block side */
#define CG_PER_THREAD 4                        /* C elements per thread side */
#define CG_BLOCK_TILE (CG_THREADS * CG_PER_THREAD)
#define CG_K 16                                /* k per shared-memory step */

struct cg_mm_strides {
    cg_index a_batch, a_row, a_col;
    cg_index b_batch, b_row, b_col;
    cg_index c_batch, c_row, c_col;
};

/* A complex element: the two parts side by side, aligned as the pair. */
template <typename R> struct alignas(2 * sizeof(R)) cg_mm_complex { R re, im; };
typedef cg_mm_complex<float> cg_mm_c64;
typedef cg_mm_complex<double> cg_mm_c128;

/* A product accumulates in cg_io<T>::C (cg_io.cuh): half types in float, the
 * others as they are stored. */

/* acc += x * y, and x + y (the bias epilogue), real and complex. */
template <typename A> __device__ inline void cg_mm_madd(A& acc, A x, A y) { acc += x * y; }
template <typename R>
__device__ inline void cg_mm_madd(cg_mm_complex<R>& acc, cg_mm_complex<R> x, cg_mm_complex<R> y)
{
    acc.re += x.re * y.re - x.im * y.im;
    acc.im += x.re * y.im + x.im * y.re;
}
template <typename A> __device__ inline A cg_mm_plus(A x, A y) { return x + y; }
template <typename R>
__device__ inline cg_mm_complex<R> cg_mm_plus(cg_mm_complex<R> x, cg_mm_complex<R> y)
{
    cg_mm_complex<R> z;
    z.re = x.re + y.re;
    z.im = x.im + y.im;
    return z;
}

template <typename T>
__device__ inline void cg_matmul_blocked(cg_index batch, cg_index m, cg_index n, cg_index k,
                                         T* c, const T* a, const T* b, const cg_mm_strides& s,
                                         const T* bias, cg_index bias_step)
{
    typedef cg_io<T> io;
    typedef typename io::C A;     /* the panels and sums hold A (value-initialised: zero) */
    __shared__ A panel_a[CG_K][CG_BLOCK_TILE];
    __shared__ A panel_b[CG_K][CG_BLOCK_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const int tid = ty * CG_THREADS + tx;
    const cg_index row0 = (cg_index)blockIdx.y * CG_BLOCK_TILE;
    const cg_index col0 = (cg_index)blockIdx.x * CG_BLOCK_TILE;
    for (cg_index z = blockIdx.z; z < batch; z += gridDim.z) {
        const T* az = a + z * s.a_batch;
        const T* bz = b + z * s.b_batch;
        A acc[CG_PER_THREAD][CG_PER_THREAD];
        for (int i = 0; i < CG_PER_THREAD; ++i)
            for (int j = 0; j < CG_PER_THREAD; ++j)
                acc[i][j] = A();
        for (cg_index k0 = 0; k0 < k; k0 += CG_K) {
            for (int e = tid; e < CG_K * CG_BLOCK_TILE; e += CG_THREADS * CG_THREADS) {
                const int ra = e / CG_K, ka = e % CG_K;              /* A: k fastest */
                const cg_index gr = row0 + ra, gka = k0 + ka;
                panel_a[ka][ra] = (gr < m && gka < k)
                                      ? io::ld(az[gr * s.a_row + gka * s.a_col]) : A();
                const int kb = e / CG_BLOCK_TILE, cb = e % CG_BLOCK_TILE;  /* B: columns fastest */
                const cg_index gkb = k0 + kb, gc = col0 + cb;
                panel_b[kb][cb] = (gkb < k && gc < n)
                                      ? io::ld(bz[gkb * s.b_row + gc * s.b_col]) : A();
            }
            __syncthreads();
            for (int kk = 0; kk < CG_K; ++kk) {
                A fa[CG_PER_THREAD], fb[CG_PER_THREAD];
                for (int i = 0; i < CG_PER_THREAD; ++i) fa[i] = panel_a[kk][ty + CG_THREADS * i];
                for (int j = 0; j < CG_PER_THREAD; ++j) fb[j] = panel_b[kk][tx + CG_THREADS * j];
                for (int i = 0; i < CG_PER_THREAD; ++i)
                    for (int j = 0; j < CG_PER_THREAD; ++j)
                        cg_mm_madd(acc[i][j], fa[i], fb[j]);
            }
            __syncthreads();
        }
        for (int i = 0; i < CG_PER_THREAD; ++i) {
            const cg_index row = row0 + ty + CG_THREADS * i;
            if (row >= m) continue;
            for (int j = 0; j < CG_PER_THREAD; ++j) {
                const cg_index col = col0 + tx + CG_THREADS * j;
                if (col < n)    /* (bias: the same for every thread of the launch) */
                    c[z * s.c_batch + row * s.c_row + col * s.c_col] = io::st(
                        bias ? cg_mm_plus(acc[i][j], io::ld(bias[col * bias_step])) : acc[i][j]);
            }
        }
    }
}

#define CG_MATMUL_KERNEL(SUFFIX, T)                                                        \
    extern "C" __global__ void cg_matmul_##SUFFIX(cg_index batch, cg_index m, cg_index n,  \
                                                  cg_index k, T* c, const T* a,            \
                                                  const T* b, cg_mm_strides s)             \
    {                                                                                      \
        cg_matmul_blocked<T>(batch, m, n, k, c, a, b, s, (const T*)nullptr, 0);           \
    }                                                                                      \
    extern "C" __global__ void cg_matmul_bias_##SUFFIX(cg_index batch, cg_index m,         \
                                                       cg_index n, cg_index k, T* c,       \
                                                       const T* a, const T* b,             \
                                                       cg_mm_strides s, const T* bias,     \
                                                       cg_index bias_step)                 \
    {                                                                                      \
        cg_matmul_blocked<T>(batch, m, n, k, c, a, b, s, bias, bias_step);                 \
    }

CG_MATMUL_KERNEL(f16, __half)
CG_MATMUL_KERNEL(bf16, __nv_bfloat16)
CG_MATMUL_KERNEL(f32, float)
CG_MATMUL_KERNEL(f64, double)
CG_MATMUL_KERNEL(c64, cg_mm_c64)
CG_MATMUL_KERNEL(c128, cg_mm_c128)
