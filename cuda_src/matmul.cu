/* Matrix products of cygrad: C[b] = A[b] @ B[b], float (f32) and double (f64).
 *
 * Naming: cg_matmul_<dtype>. Parameters: (batch, m, n, k, c, a, b, strides),
 * where A[b] is m x k, B[b] is k x n and C[b] is m x n, and strides (in
 * elements, one struct by value) give each operand's batch, row and column
 * step. Any strides work, so a transposed operand (w.t(), k.transpose(-2, -1))
 * or a broadcast batch (stride 0) is read in place, never copied.
 *
 * Launch: block (CG_TILE, CG_TILE, 1); grid (ceil(n / CG_TILE), ceil(m / CG_TILE), z)
 * with any z: blocks take batch elements in a grid-stride loop over z.
 *
 * Tiled: each block computes one CG_TILE x CG_TILE tile of C. For each step along k,
 * its threads load one tile of A and one of B into shared memory (one element
 * each, zero past the edges), wait at __syncthreads(), and each thread adds
 * CG_TILE products to its own element. The second __syncthreads() keeps the next
 * step's loads from overwriting tiles that other threads still read.
 * Each element is summed in k order, in the operands' precision.
 */

typedef long long cg_index;

#define CG_TILE 16

struct cg_mm_strides {
    cg_index a_batch, a_row, a_col;
    cg_index b_batch, b_row, b_col;
    cg_index c_batch, c_row, c_col;
};

template <typename T>
__device__ inline void cg_matmul_tiled(cg_index batch, cg_index m, cg_index n, cg_index k,
                                       T* c, const T* a, const T* b, const cg_mm_strides& s)
{
    __shared__ T tile_a[CG_TILE][CG_TILE];
    __shared__ T tile_b[CG_TILE][CG_TILE];
    const int tx = threadIdx.x, ty = threadIdx.y;
    const cg_index row = (cg_index)blockIdx.y * CG_TILE + ty;
    const cg_index col = (cg_index)blockIdx.x * CG_TILE + tx;
    for (cg_index z = blockIdx.z; z < batch; z += gridDim.z) {
        const T* az = a + z * s.a_batch;
        const T* bz = b + z * s.b_batch;
        T acc = T(0);
        for (cg_index k0 = 0; k0 < k; k0 += CG_TILE) {
            const cg_index ka = k0 + tx, kb = k0 + ty;
            tile_a[ty][tx] = (row < m && ka < k) ? az[row * s.a_row + ka * s.a_col] : T(0);
            tile_b[ty][tx] = (kb < k && col < n) ? bz[kb * s.b_row + col * s.b_col] : T(0);
            __syncthreads();
            for (int j = 0; j < CG_TILE; ++j)
                acc += tile_a[ty][j] * tile_b[j][tx];
            __syncthreads();
        }
        if (row < m && col < n)
            c[z * s.c_batch + row * s.c_row + col * s.c_col] = acc;
    }
}

#define CG_MATMUL_KERNEL(SUFFIX, T)                                                        \
    extern "C" __global__ void cg_matmul_##SUFFIX(cg_index batch, cg_index m, cg_index n,  \
                                                  cg_index k, T* c, const T* a,            \
                                                  const T* b, cg_mm_strides s)             \
    {                                                                                      \
        cg_matmul_tiled<T>(batch, m, n, k, c, a, b, s);                                    \
    }

CG_MATMUL_KERNEL(f32, float)
CG_MATMUL_KERNEL(f64, double)
