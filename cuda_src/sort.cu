/* Sorting kernels of cygrad: stable row sorts and what is built on them (topk,
 * kthvalue, mode, unique, unique_consecutive), plus a dtype-free strided copy.
 *
 * Rows are dense: a rows x n row-major matrix. Every element carries its index in
 * the row, and elements are ordered by (key, index): ascending keys, or descending
 * keys with ties still by ascending index. The pairs are distinct, so any correct
 * sorting network gives the stable order. Floating keys order NaN above +inf, as
 * PyTorch does; NaNs compare equal to each other here (ordered by index).
 *
 * Sorting a row:
 *   1. cg_sort_chunks_<T>: one block per chunk of CG_CHUNK (2048) elements of a row
 *      (the whole row when it is shorter) runs a bitonic sort in shared memory,
 *      padded to a power of two with elements that order after every real one.
 *   2. cg_merge_pass_<T>, for longer rows: merges neighbouring sorted runs of width
 *      w into runs of 2w. Each element's place in the merged run is its place in its
 *      own run plus the number of elements of the other run that order before it,
 *      found by binary search; pairs are distinct, so the places form a permutation.
 *      The host runs it with w = 2048, 4096, ... ping-ponging two buffers.
 *
 * dtype suffixes: f32, f64, f16, bf16, i64, i32, i16, i8, u8 (bool sorts as u8).
 * Launch: the chunk kernel takes grid (chunks per row, rows) in (x, y) with
 * y <= 65535 (the host loops over row groups) and a block of CG_SORT_THREADS;
 * the others take any 1-D grid (grid-stride loops).
 */
#include <cuda_fp16.h>
#include <cuda_bf16.h>

#define CG_CHUNK 2048
#define CG_SORT_THREADS 512

#include "cg_common.cuh"

#define CG_GRID_LOOP(i, n)                                                              \
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < (n);         \
         i += (cg_index)blockDim.x * gridDim.x)

/* ---- keys: a comparable value per dtype ---- */

template <typename T> struct cg_key {
    typedef T type;
    __device__ static T of(T v) { return v; }
    __device__ static bool nan(T) { return false; }
};
template <> struct cg_key<float> {
    typedef float type;
    __device__ static float of(float v) { return v; }
    __device__ static bool nan(float v) { return v != v; }
};
template <> struct cg_key<double> {
    typedef double type;
    __device__ static double of(double v) { return v; }
    __device__ static bool nan(double v) { return v != v; }
};
template <> struct cg_key<__half> {
    typedef float type;
    __device__ static float of(__half v) { return __half2float(v); }
    __device__ static bool nan(float v) { return v != v; }
};
template <> struct cg_key<__nv_bfloat16> {
    typedef float type;
    __device__ static float of(__nv_bfloat16 v) { return __bfloat162float(v); }
    __device__ static bool nan(float v) { return v != v; }
};

/* does (a, ia) order before (b, ib)? Indices >= n mark padding, after everything. */
template <typename T>
__device__ inline bool cg_before(T a, cg_index ia, T b, cg_index ib, cg_index n, int desc)
{
    typedef cg_key<T> K;
    if (ia >= n || ib >= n)
        return ia < ib;
    typename K::type ka = K::of(a), kb = K::of(b);
    bool na = K::nan(ka), nb = K::nan(kb);
    bool less, greater;
    if (na || nb) {
        less = !na && nb;
        greater = na && !nb;
    } else {
        less = ka < kb;
        greater = kb < ka;
    }
    if (desc ? greater : less)
        return true;
    if (desc ? less : greater)
        return false;
    return ia < ib;
}

/* equal as PyTorch's unique/mode see it: NaN equals nothing */
template <typename T> __device__ inline bool cg_same(T a, T b)
{
    typedef cg_key<T> K;
    return K::of(a) == K::of(b);
}

/* ---- 1. bitonic sort of one chunk per block ---- */

template <typename T>
__device__ inline void cg_sort_chunks(cg_index rows, cg_index n, cg_index row0, const T* in,
                                      T* out, cg_index* out_idx, int desc)
{
    __shared__ T keys[CG_CHUNK];
    __shared__ cg_index idx[CG_CHUNK];
    const cg_index r = row0 + blockIdx.y;
    const cg_index start = (cg_index)blockIdx.x * CG_CHUNK;
    if (r >= rows || start >= n)
        return;     /* uniform across the block: no thread reaches a barrier */
    cg_index len = n - start < CG_CHUNK ? n - start : CG_CHUNK;
    int p = 1;
    while (p < len)
        p <<= 1;
    const T* src = in + r * n + start;
    for (int t = threadIdx.x; t < p; t += blockDim.x) {
        if (t < len) {
            keys[t] = src[t];
            idx[t] = start + t;
        } else {
            keys[t] = src[0];
            idx[t] = n + t;        /* padding: orders after every real element */
        }
    }
    __syncthreads();
    for (int k = 2; k <= p; k <<= 1) {
        for (int j = k >> 1; j > 0; j >>= 1) {
            for (int t = threadIdx.x; t < p / 2; t += blockDim.x) {
                int i = 2 * j * (t / j) + (t % j);
                int l = i + j;
                bool up = (i & k) == 0;
                bool swap = up ? cg_before<T>(keys[l], idx[l], keys[i], idx[i], n, desc)
                               : cg_before<T>(keys[i], idx[i], keys[l], idx[l], n, desc);
                if (swap) {
                    T tk = keys[i];
                    keys[i] = keys[l];
                    keys[l] = tk;
                    cg_index ti = idx[i];
                    idx[i] = idx[l];
                    idx[l] = ti;
                }
            }
            __syncthreads();
        }
    }
    for (int t = threadIdx.x; t < len; t += blockDim.x) {
        out[r * n + start + t] = keys[t];
        out_idx[r * n + start + t] = idx[t];
    }
}

/* ---- 2. merging runs of width w ---- */

template <typename T>
__device__ inline void cg_merge_pass(cg_index rows, cg_index n, cg_index w, const T* in,
                                     const cg_index* in_idx, T* out, cg_index* out_idx, int desc)
{
    CG_GRID_LOOP(e, rows * n) {
        cg_index r = e / n, pos = e % n;
        cg_index pair = pos / (2 * w) * (2 * w);
        bool first = pos - pair < w;
        cg_index own = first ? pair : pair + w;
        cg_index other = first ? pair + w : pair;
        cg_index other_end = first ? (pair + 2 * w < n ? pair + 2 * w : n) : pair + w;
        if (other > n)
            other = n;
        const T* row = in + r * n;
        const cg_index* irow = in_idx + r * n;
        T v = row[pos];
        cg_index iv = irow[pos];
        /* how many elements of the other run order before (v, iv) */
        cg_index lo = other, hi = other_end;
        while (lo < hi) {
            cg_index mid = lo + (hi - lo) / 2;
            if (cg_before<T>(row[mid], irow[mid], v, iv, n, desc))
                lo = mid + 1;
            else
                hi = mid;
        }
        cg_index dst = pair + (pos - own) + (lo - other);
        out[r * n + dst] = v;
        out_idx[r * n + dst] = iv;
    }
}

/* ---- selections on sorted rows ---- */

/* kthvalue: the k-th (0-based) of each ascending row; k < 0 asks for the lower
 * median, or the first NaN when the row has one (NaNs sort last) */
template <typename T>
__device__ inline void cg_kth(cg_index rows, cg_index n, cg_index k, const T* vals,
                              const cg_index* idx, T* out, cg_index* out_idx)
{
    typedef cg_key<T> K;
    CG_GRID_LOOP(r, rows) {
        const T* row = vals + r * n;
        cg_index pick = k;
        if (k < 0) {
            if (K::nan(K::of(row[n - 1]))) {
                cg_index lo = 0, hi = n - 1;   /* first NaN */
                while (lo < hi) {
                    cg_index mid = lo + (hi - lo) / 2;
                    if (K::nan(K::of(row[mid])))
                        hi = mid;
                    else
                        lo = mid + 1;
                }
                pick = lo;
            } else {
                pick = (n - 1) / 2;
            }
        }
        out[r] = row[pick];
        out_idx[r] = idx[r * n + pick];
    }
}

/* mode: the value of the longest run of equal values in each ascending row (the
 * smallest such value) and the largest original index in that run (stable sort: the
 * run's last element). One thread per row. */
template <typename T>
__device__ inline void cg_mode(cg_index rows, cg_index n, const T* vals, const cg_index* idx,
                               T* out, cg_index* out_idx)
{
    CG_GRID_LOOP(r, rows) {
        const T* row = vals + r * n;
        const cg_index* irow = idx + r * n;
        cg_index best = 0, best_len = 0, run = 0;
        for (cg_index i = 0; i < n; ++i) {
            run = (i > 0 && cg_same<T>(row[i], row[i - 1])) ? run + 1 : 1;
            if (run > best_len) {
                best_len = run;
                best = i;
            }
        }
        out[r] = row[best];
        out_idx[r] = irow[best];
    }
}

/* ---- unique / unique_consecutive ---- */

/* flags[i] = 1 where element i starts a new group: i == 0 or differs from i - 1 */
template <typename T>
__device__ inline void cg_group_starts(cg_index n, const T* vals, cg_index* flags)
{
    CG_GRID_LOOP(i, n)
        flags[i] = (i == 0 || !cg_same<T>(vals[i], vals[i - 1])) ? 1 : 0;
}

/* the same for slices: row i of a rows x len matrix against row i - 1 */
template <typename T>
__device__ inline void cg_slice_starts(cg_index rows, cg_index len, const T* vals, cg_index* flags)
{
    CG_GRID_LOOP(i, rows) {
        cg_index f = i == 0 ? 1 : 0;
        for (cg_index j = 0; i > 0 && j < len && !f; ++j)
            f = cg_same<T>(vals[i * len + j], vals[(i - 1) * len + j]) ? 0 : 1;
        flags[i] = f;
    }
}

/* inclusive prefix sum of n int64 in place, by ONE block of 1024 threads: each
 * thread sums a contiguous span, the block scans the span totals in shared memory,
 * then each thread rewrites its span */
extern "C" __global__ void cg_scan_i64(cg_index n, cg_index* data)
{
    __shared__ cg_index part[1024];
    const int t = threadIdx.x, nt = blockDim.x;
    const cg_index span = (n + nt - 1) / nt;
    const cg_index lo = t * span < n ? t * span : n;
    const cg_index hi = lo + span < n ? lo + span : n;
    cg_index s = 0;
    for (cg_index i = lo; i < hi; ++i)
        s += data[i];
    part[t] = s;
    __syncthreads();
    for (int d = 1; d < nt; d <<= 1) {
        cg_index add = t >= d ? part[t - d] : 0;
        __syncthreads();
        part[t] += add;
        __syncthreads();
    }
    cg_index run = t > 0 ? part[t - 1] : 0;
    for (cg_index i = lo; i < hi; ++i) {
        run += data[i];
        data[i] = run;
    }
}

/* from the scanned flags (group number + 1 of each sorted element): the group's
 * first position starts[g], and inverse[orig] = g, orig = idx[i] (identity when idx
 * is NULL: unique_consecutive) */
extern "C" __global__ void cg_group_scatter(cg_index n, const cg_index* scanned,
                                            const cg_index* flags, const cg_index* idx,
                                            cg_index* starts, cg_index* inverse)
{
    CG_GRID_LOOP(i, n) {
        cg_index g = scanned[i] - 1;
        if (flags[i])
            starts[g] = i;
        inverse[idx ? idx[i] : i] = g;
    }
}

/* out[i] = i */
extern "C" __global__ void cg_iota_i64(cg_index n, cg_index* out)
{
    CG_GRID_LOOP(i, n)
        out[i] = i;
}

/* counts[g] = starts[g + 1] - starts[g] (starts[groups] taken as n) */
extern "C" __global__ void cg_group_counts(cg_index groups, cg_index n, const cg_index* starts,
                                           cg_index* counts)
{
    CG_GRID_LOOP(g, groups)
        counts[g] = (g + 1 < groups ? starts[g + 1] : n) - starts[g];
}

/* ---- histogramdd: a count (or weight sum) per sample, by atomics ---- */

template <typename T> __device__ inline double cg_real(T v) { return (double)cg_key<T>::of(v); }

/* For each sample i (row i of the dense n x D matrix x), its bin in every dim is
 * found by binary search in that dim's increasing edges (edges[edge_start[d] ..
 * edge_start[d + 1]), the last edge closing the last bin, as NumPy's histogramdd);
 * a sample outside the edges (or NaN) in any dim is skipped. The weight (1 without
 * weights) is added to hist[sum of bin * bin_stride] and to total. */
template <typename T>
__device__ inline void cg_histdd(cg_index n, int D, const T* x, const T* edges,
                                 const cg_index* edge_start, const cg_index* bin_stride,
                                 const T* w, double* hist, double* total)
{
    CG_GRID_LOOP(i, n) {
        cg_index flat = 0;
        bool inside = true;
        for (int d = 0; d < D && inside; ++d) {
            double v = cg_real<T>(x[i * D + d]);
            const T* e = edges + edge_start[d];
            cg_index m = edge_start[d + 1] - edge_start[d];
            cg_index lo = 0, hi = m;          /* first edge > v */
            while (lo < hi) {
                cg_index mid = lo + (hi - lo) / 2;
                if (cg_real<T>(e[mid]) <= v)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (m > 0 && v == cg_real<T>(e[m - 1]))
                --lo;                         /* the last edge belongs to the last bin */
            inside = lo > 0 && lo < m;
            flat += (lo - 1) * bin_stride[d];
        }
        if (inside) {
            double wt = w ? cg_real<T>(w[i]) : 1.0;
            atomicAdd(hist + flat, wt);
            atomicAdd(total, wt);
        }
    }
}

/* out[f] = hist[f], or with density hist[f] divided by each dim's bin width, then by
 * the total (NumPy's order of operations) */
template <typename T>
__device__ inline void cg_hist_finish(cg_index bins, int D, const double* hist, T* out,
                                      const T* edges, const cg_index* edge_start,
                                      const cg_index* bin_stride, const double* total,
                                      int density)
{
    CG_GRID_LOOP(f, bins) {
        double h = hist[f];
        if (density) {
            for (int d = 0; d < D; ++d) {
                cg_index k = f / bin_stride[d] % (edge_start[d + 1] - edge_start[d] - 1);
                const T* e = edges + edge_start[d];
                h = h / (cg_real<T>(e[k + 1]) - cg_real<T>(e[k]));
            }
            h = h / *total;
        }
        out[f] = (T)h;
    }
}

#define CG_HIST_KERNELS(S, T)                                                                   \
    extern "C" __global__ void cg_histdd_##S(cg_index n, int D, const T* x, const T* edges,     \
                                             const cg_index* edge_start,                        \
                                             const cg_index* bin_stride, const T* w,            \
                                             double* hist, double* total)                       \
    {                                                                                           \
        cg_histdd<T>(n, D, x, edges, edge_start, bin_stride, w, hist, total);                   \
    }                                                                                           \
    extern "C" __global__ void cg_hist_finish_##S(cg_index bins, int D, const double* hist,     \
                                                  T* out, const T* edges,                       \
                                                  const cg_index* edge_start,                   \
                                                  const cg_index* bin_stride,                   \
                                                  const double* total, int density)             \
    {                                                                                           \
        cg_hist_finish<T>(bins, D, hist, out, edges, edge_start, bin_stride, total, density);   \
    }

CG_HIST_KERNELS(f32, float)
CG_HIST_KERNELS(f64, double)

/* ---- dtype-free copies ---- */

/* out (contiguous) = a read through g.stride_a, by element size */
template <typename W>
__device__ inline void cg_gather(cg_index n, const cg_geometry& g, W* out, const W* a)
{
    CG_GRID_LOOP(i, n) {
        cg_index rem = i, off = 0;
        for (int d = g.ndim - 1; d >= 0; --d) {
            off += rem % g.shape[d] * g.stride_a[d];
            rem /= g.shape[d];
        }
        out[i] = a[off];
    }
}

/* out[j] = row starts[j] of a rows x len matrix (len elements each) */
template <typename W>
__device__ inline void cg_take_rows(cg_index groups, cg_index len, const cg_index* starts,
                                    const W* in, W* out)
{
    CG_GRID_LOOP(e, groups * len)
        out[e] = in[starts[e / len] * len + e % len];
}

#define CG_COPY_KERNELS(B, W)                                                                   \
    extern "C" __global__ void cg_gather_b##B(cg_index n, cg_geometry g, W* out, const W* a)    \
    {                                                                                           \
        cg_gather<W>(n, g, out, a);                                                             \
    }                                                                                           \
    extern "C" __global__ void cg_take_rows_b##B(cg_index groups, cg_index len,                 \
                                                 const cg_index* starts, const W* in, W* out)   \
    {                                                                                           \
        cg_take_rows<W>(groups, len, starts, in, out);                                          \
    }

CG_COPY_KERNELS(1, unsigned char)
CG_COPY_KERNELS(2, unsigned short)
CG_COPY_KERNELS(4, unsigned int)
CG_COPY_KERNELS(8, unsigned long long)

#define CG_SORT_KERNELS(S, T)                                                                   \
    extern "C" __global__ void cg_sort_chunks_##S(cg_index rows, cg_index n, cg_index row0,     \
                                                  const T* in, T* out, cg_index* out_idx,       \
                                                  int desc)                                     \
    {                                                                                           \
        cg_sort_chunks<T>(rows, n, row0, in, out, out_idx, desc);                               \
    }                                                                                           \
    extern "C" __global__ void cg_merge_pass_##S(cg_index rows, cg_index n, cg_index w,         \
                                                 const T* in, const cg_index* in_idx, T* out,   \
                                                 cg_index* out_idx, int desc)                   \
    {                                                                                           \
        cg_merge_pass<T>(rows, n, w, in, in_idx, out, out_idx, desc);                           \
    }                                                                                           \
    extern "C" __global__ void cg_kth_##S(cg_index rows, cg_index n, cg_index k, const T* vals, \
                                          const cg_index* idx, T* out, cg_index* out_idx)       \
    {                                                                                           \
        cg_kth<T>(rows, n, k, vals, idx, out, out_idx);                                         \
    }                                                                                           \
    extern "C" __global__ void cg_mode_##S(cg_index rows, cg_index n, const T* vals,            \
                                           const cg_index* idx, T* out, cg_index* out_idx)      \
    {                                                                                           \
        cg_mode<T>(rows, n, vals, idx, out, out_idx);                                           \
    }                                                                                           \
    extern "C" __global__ void cg_group_starts_##S(cg_index n, const T* vals, cg_index* flags)  \
    {                                                                                           \
        cg_group_starts<T>(n, vals, flags);                                                     \
    }                                                                                           \
    extern "C" __global__ void cg_slice_starts_##S(cg_index rows, cg_index len, const T* vals,  \
                                                   cg_index* flags)                             \
    {                                                                                           \
        cg_slice_starts<T>(rows, len, vals, flags);                                             \
    }

CG_SORT_KERNELS(f32, float)
CG_SORT_KERNELS(f64, double)
CG_SORT_KERNELS(f16, __half)
CG_SORT_KERNELS(bf16, __nv_bfloat16)
CG_SORT_KERNELS(i64, cg_index)
CG_SORT_KERNELS(i32, int)
CG_SORT_KERNELS(i16, short)
CG_SORT_KERNELS(i8, signed char)
CG_SORT_KERNELS(u8, unsigned char)
