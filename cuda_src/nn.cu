/* Fused nn kernels of cygrad: softmax / log_softmax and their gradient, the
 * attention softmax, layer norm (forward, input gradient, weight and bias
 * gradients), GELU (exact and tanh) and its gradient, and cross entropy with
 * class-index targets (forward, gradient and the mean's sum ratio). float (f32)
 * and double (f64).
 *
 * The CPU kernels of the same primitives (cygrad/_core/cpu/fused.c) define the
 * arithmetic; these follow them formula by formula.
 *
 * Row kernels (softmax, attention, layer norm, cross entropy): one block per row,
 * the rows taken in a grid-stride loop, so any grid covers them all. The block
 * must be blockDim.x threads, a multiple of 32 up to 1024, blockDim.y = 1. Each
 * row reduction (max, sum) is cg_block_fold: a warp fold by __shfl_down_sync,
 * the warps' results through shared memory, then warp 0's fold, the result
 * broadcast through shared memory. Every thread of a block runs the same number
 * of row iterations and every branch around a fold depends only on the row, so
 * all threads reach each __syncthreads().
 *
 * Elementwise kernels (GELU): grid-stride loops over 64-bit indices.
 *
 * Pointers may be NULL where a parameter is optional (weight, bias, mask, the
 * layer-norm gradients not asked for).
 */

#include <cuda_fp16.h>
#include <cuda_bf16.h>

#include "cg_common.cuh"

/* Element access: half and bfloat16 are storage types, read into float and
 * rounded back to nearest even; float and double are read as they are. */
template <typename T> __device__ inline T cg_load(const T* p) { return *p; }
__device__ inline float cg_load(const __half* p) { return __half2float(*p); }
__device__ inline float cg_load(const __nv_bfloat16* p) { return __bfloat162float(*p); }
template <typename T> __device__ inline void cg_store(T* p, T v) { *p = v; }
__device__ inline void cg_store(__half* p, float v) { *p = __float2half_rn(v); }
__device__ inline void cg_store(__nv_bfloat16* p, float v) { *p = __float2bfloat16_rn(v); }

/* Math overloads: float keeps single precision, as the CPU kernels do. */
__device__ inline float cg_exp(float x) { return expf(x); }
__device__ inline double cg_exp(double x) { return exp(x); }
__device__ inline float cg_log(float x) { return logf(x); }
__device__ inline double cg_log(double x) { return log(x); }
__device__ inline float cg_erf(float x) { return erff(x); }
__device__ inline double cg_erf(double x) { return erf(x); }
__device__ inline float cg_tanh(float x) { return tanhf(x); }
__device__ inline double cg_tanh(double x) { return tanh(x); }

#define CG_SQRT1_2 0.70710678118654752440
#define CG_SQRT_2_OVER_PI 0.79788456080286535588
#define CG_INV_SQRT_2PI 0.39894228040143267794
#define CG_GELU_CUBIC 0.044715

struct cg_fold_sum {
    template <typename T> __device__ static T identity() { return T(0); }
    template <typename T> __device__ static T apply(T a, T b) { return a + b; }
};

/* The CPU row max skips NaN (a NaN reaches the result through the exp and sum
 * that follow); so does this one. */
struct cg_fold_max {
    template <typename T> __device__ static T identity() { return -T(HUGE_VAL); }
    template <typename T> __device__ static T apply(T a, T b) { return b > a ? b : a; }
};

/* The fold of v over the block, returned to every thread. The trailing barrier
 * keeps a following fold from overwriting `partial` before all have read it. */
template <typename T, typename Fold>
__device__ T cg_block_fold(T v)
{
    __shared__ T partial[32];
    const int lane = threadIdx.x % 32;
    const int warp = threadIdx.x / 32;
    const int nwarps = blockDim.x / 32;
    for (int offset = 16; offset > 0; offset /= 2)
        v = Fold::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
    if (lane == 0)
        partial[warp] = v;
    __syncthreads();
    if (warp == 0) {
        v = lane < nwarps ? partial[lane] : Fold::template identity<T>();
        for (int offset = 16; offset > 0; offset /= 2)
            v = Fold::apply(v, __shfl_down_sync(0xffffffffu, v, offset));
        if (lane == 0)
            partial[0] = v;
    }
    __syncthreads();
    v = partial[0];
    __syncthreads();
    return v;
}

template <typename T> __device__ inline T cg_block_sum(T v) { return cg_block_fold<T, cg_fold_sum>(v); }
template <typename T> __device__ inline T cg_block_max(T v) { return cg_block_fold<T, cg_fold_max>(v); }

/* ---- softmax ----------------------------------------------------------------
 * rows = outer * inner rows of n elements each, `inner` apart (the softmax dim
 * of a contiguous tensor whose trailing dims hold `inner` elements). Elements
 * are stored as S and computed as T (half and bfloat16: float). */
template <typename S, typename T>
__device__ void cg_softmax_fwd(cg_index rows, cg_index n, cg_index inner, const S* x, S* y,
                               int is_log)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const cg_index base = (r / inner) * n * inner + r % inner;
        const S* xr = x + base;
        S* yr = y + base;
        T m = cg_fold_max::identity<T>();
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x)
            m = cg_fold_max::apply(m, (T)cg_load(xr + j * inner));
        m = cg_block_max(m);
        T s = 0;
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x)
            s += cg_exp((T)cg_load(xr + j * inner) - m);
        s = cg_block_sum(s);
        if (is_log) {
            const T ls = cg_log(s);
            for (cg_index j = threadIdx.x; j < n; j += blockDim.x)
                cg_store(yr + j * inner, ((T)cg_load(xr + j * inner) - m) - ls);
        } else {
            const T inv = T(1) / s;
            for (cg_index j = threadIdx.x; j < n; j += blockDim.x)
                cg_store(yr + j * inner, cg_exp((T)cg_load(xr + j * inner) - m) * inv);
        }
    }
}

/* The same rows, one thread per row: when the rows' elements lie `inner` apart
 * (a dim before the last), neighbouring threads then read neighbouring elements,
 * where a block per row would read one element per row stride. */
template <typename S, typename T>
__device__ void cg_softmax_fwd_cols(cg_index rows, cg_index n, cg_index inner, const S* x, S* y,
                                    int is_log)
{
    const cg_index step = (cg_index)blockDim.x * gridDim.x;
    for (cg_index r = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += step) {
        const cg_index base = (r / inner) * n * inner + r % inner;
        const S* xr = x + base;
        S* yr = y + base;
        T m = cg_fold_max::identity<T>();
        for (cg_index j = 0; j < n; ++j)
            m = cg_fold_max::apply(m, (T)cg_load(xr + j * inner));
        T s = 0;
        for (cg_index j = 0; j < n; ++j)
            s += cg_exp((T)cg_load(xr + j * inner) - m);
        const T ls = cg_log(s), inv = T(1) / s;
        for (cg_index j = 0; j < n; ++j) {
            const T v = (T)cg_load(xr + j * inner) - m;
            cg_store(yr + j * inner, is_log ? v - ls : cg_exp(v) * inv);
        }
    }
}

template <typename T>
__device__ void cg_softmax_bwd_cols(cg_index rows, cg_index n, cg_index inner, const T* y,
                                    const T* g, T* dx, int is_log, T scale)
{
    const cg_index step = (cg_index)blockDim.x * gridDim.x;
    for (cg_index r = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; r < rows; r += step) {
        const cg_index base = (r / inner) * n * inner + r % inner;
        T s = 0;
        for (cg_index j = 0; j < n; ++j) {
            const cg_index o = base + j * inner;
            s += is_log ? g[o] : g[o] * y[o];
        }
        for (cg_index j = 0; j < n; ++j) {
            const cg_index o = base + j * inner;
            dx[o] = is_log ? scale * (g[o] - cg_exp(y[o]) * s) : scale * (y[o] * (g[o] - s));
        }
    }
}

/* dx = scale * y * (g - sum(g * y)), or for log_softmax scale * (g - exp(y) * sum(g)) */
template <typename T>
__device__ void cg_softmax_bwd(cg_index rows, cg_index n, cg_index inner, const T* y,
                               const T* g, T* dx, int is_log, T scale)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const cg_index base = (r / inner) * n * inner + r % inner;
        const T* yr = y + base;
        const T* gr = g + base;
        T* dr = dx + base;
        T s = 0;
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x)
            s += is_log ? gr[j * inner] : gr[j * inner] * yr[j * inner];
        s = cg_block_sum(s);
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x) {
            const cg_index o = j * inner;
            dr[o] = is_log ? scale * (gr[o] - cg_exp(yr[o]) * s) : scale * (yr[o] * (gr[o] - s));
        }
    }
}

/* softmax(s * scale + mask) over rows of S keys; row r is query r % L. With
 * `causal` only keys 0..r % L take part; a row whose kept keys are all -inf
 * gives zeros (PyTorch's safe softmax). mask: NULL or mrows rows of S, row r
 * using mask row r % mrows. */
template <typename T>
__device__ void cg_attn_softmax(cg_index rows, cg_index L, cg_index S, const T* s, T* p, T scale,
                                int causal, const T* mask, cg_index mrows)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* sr = s + r * S;
        T* pr = p + r * S;
        cg_index nk = causal ? r % L + 1 : S;
        if (nk > S)
            nk = S;
        const T* mr = mask ? mask + (r % mrows) * S : 0;
        T m = cg_fold_max::identity<T>();
        for (cg_index j = threadIdx.x; j < nk; j += blockDim.x) {
            const T v = mr ? sr[j] * scale + mr[j] : sr[j] * scale;
            pr[j] = v;
            m = cg_fold_max::apply(m, v);
        }
        m = cg_block_max(m);
        if (m == -T(HUGE_VAL)) {
            for (cg_index j = threadIdx.x; j < S; j += blockDim.x)
                pr[j] = 0;
            continue;
        }
        /* each thread rereads only the entries it wrote above: no barrier needed */
        T sum = 0;
        for (cg_index j = threadIdx.x; j < nk; j += blockDim.x) {
            const T e = cg_exp(pr[j] - m);
            pr[j] = e;
            sum += e;
        }
        const T inv = T(1) / cg_block_sum(sum);
        for (cg_index j = threadIdx.x; j < nk; j += blockDim.x)
            pr[j] *= inv;
        for (cg_index j = nk + threadIdx.x; j < S; j += blockDim.x)
            pr[j] = 0;
    }
}

/* ---- layer norm --------------------------------------------------------------
 * Rows of n elements: mean, rstd = 1 / sqrt(biased variance + eps), and
 * y = (x - mean) * rstd * w + b (w, b optional). */
template <typename T>
__device__ void cg_layer_norm_fwd(cg_index rows, cg_index n, const T* x, const T* w, const T* b,
                                  double eps, T* y, T* mean, T* rstd)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* xr = x + r * n;
        T* yr = y + r * n;
        T s = 0;
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x)
            s += xr[j];
        s = cg_block_sum(s);
        const T mu = n ? s / T(n) : T(0);
        T sq = 0;
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x)
            sq += (xr[j] - mu) * (xr[j] - mu);
        sq = cg_block_sum(sq);
        const double var = n ? (double)sq / (double)n : 0.0;
        const T rs = (T)(1.0 / sqrt(var + eps));
        if (threadIdx.x == 0) {
            mean[r] = mu;
            rstd[r] = rs;
        }
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x) {
            T v = (xr[j] - mu) * rs;
            if (w)
                v = v * w[j];
            if (b)
                v = v + b[j];
            yr[j] = v;
        }
    }
}

/* dx = rstd * (g w - mean(g w) - xhat * mean(g w xhat)), xhat = (x - mean) * rstd */
template <typename T>
__device__ void cg_layer_norm_bwd_dx(cg_index rows, cg_index n, const T* g, const T* x,
                                     const T* mean, const T* rstd, const T* w, T* dx)
{
    for (cg_index r = blockIdx.x; r < rows; r += gridDim.x) {
        const T* gr = g + r * n;
        const T* xr = x + r * n;
        T* dr = dx + r * n;
        const T mu = mean[r], rs = rstd[r];
        T a = 0, c = 0;
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x) {
            const T gw = w ? gr[j] * w[j] : gr[j];
            a += gw;
            c += gw * ((xr[j] - mu) * rs);
        }
        a = cg_block_sum(a);
        c = cg_block_sum(c);
        const T ma = a / T(n), mc = c / T(n);
        for (cg_index j = threadIdx.x; j < n; j += blockDim.x) {
            const T gw = w ? gr[j] * w[j] : gr[j];
            dr[j] = rs * (gw - ma - (xr[j] - mu) * rs * mc);
        }
    }
}

/* dw[j] = sum over rows of g * xhat, db[j] = sum of g, accumulated in double.
 * Block (32, CG_LN_ROWS): threadIdx.x picks a column of a 32-column strip (reads
 * coalesced along the row), threadIdx.y a residue class of rows; the CG_LN_ROWS
 * partial sums are added through shared memory. Strips in a grid-stride loop. */
#define CG_LN_ROWS 8
template <typename T>
__device__ void cg_layer_norm_bwd_wb(cg_index rows, cg_index n, const T* g, const T* x,
                                     const T* mean, const T* rstd, T* dw, T* db)
{
    __shared__ double part_w[CG_LN_ROWS][33];
    __shared__ double part_b[CG_LN_ROWS][33];
    for (cg_index j0 = (cg_index)blockIdx.x * 32; j0 < n; j0 += (cg_index)gridDim.x * 32) {
        const cg_index j = j0 + threadIdx.x;
        double sw = 0, sb = 0;
        if (j < n) {
            for (cg_index r = threadIdx.y; r < rows; r += CG_LN_ROWS) {
                const T gv = g[r * n + j];
                sw += (double)(gv * ((x[r * n + j] - mean[r]) * rstd[r]));
                sb += (double)gv;
            }
        }
        part_w[threadIdx.y][threadIdx.x] = sw;
        part_b[threadIdx.y][threadIdx.x] = sb;
        __syncthreads();
        if (threadIdx.y == 0 && j < n) {
            for (int k = 1; k < CG_LN_ROWS; k++) {
                sw += part_w[k][threadIdx.x];
                sb += part_b[k][threadIdx.x];
            }
            if (dw)
                dw[j] = (T)sw;
            if (db)
                db[j] = (T)sb;
        }
        __syncthreads();
    }
}

/* ---- GELU --------------------------------------------------------------------- */
template <typename T>
__device__ void cg_gelu_fwd(cg_index count, const T* x, T* y, int tanh_approx)
{
    const cg_index step = (cg_index)blockDim.x * gridDim.x;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
        const T v = x[i];
        if (tanh_approx) {
            const T t = cg_tanh((T)CG_SQRT_2_OVER_PI * (v + (T)CG_GELU_CUBIC * v * v * v));
            y[i] = (T)0.5 * v * ((T)1 + t);
        } else {
            y[i] = (T)0.5 * v * ((T)1 + cg_erf(v * (T)CG_SQRT1_2));
        }
    }
}

template <typename T>
__device__ void cg_gelu_bwd(cg_index count, const T* g, const T* x, T* dx, int tanh_approx)
{
    const cg_index step = (cg_index)blockDim.x * gridDim.x;
    for (cg_index i = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; i < count; i += step) {
        const T v = x[i];
        if (tanh_approx) {
            const T v2 = v * v;
            const T t = cg_tanh((T)CG_SQRT_2_OVER_PI * (v + (T)CG_GELU_CUBIC * v2 * v));
            const T d_inner = (T)CG_SQRT_2_OVER_PI * ((T)1 + (T)(3 * CG_GELU_CUBIC) * v2);
            dx[i] = g[i] * ((T)0.5 * ((T)1 + t) + (T)0.5 * v * ((T)1 - t * t) * d_inner);
        } else {
            const T cdf = (T)0.5 * ((T)1 + cg_erf(v * (T)CG_SQRT1_2));
            const T pdf = (T)CG_INV_SQRT_2PI * cg_exp((T)-0.5 * v * v);
            dx[i] = g[i] * (cdf + v * pdf);
        }
    }
}

/* ---- cross entropy -------------------------------------------------------------
 * (R, C) logits, R int64 targets. A target that is neither ignore_index nor in
 * [0, C) is treated as ignored and reported: *bad becomes the largest R - r over
 * such rows r (so the host finds the first bad row; 0: none); bad is null for
 * targets the host has checked and nothing has written since. */
__device__ inline int cg_target_ok(long long t, long long ignore_index, cg_index C, cg_index r,
                                   cg_index R, long long* bad)
{
    if (t == ignore_index)
        return 0;
    if (t < 0 || t >= C) {
        if (threadIdx.x == 0 && bad != nullptr)
            atomicMax(bad, (long long)(R - r));
        return 0;
    }
    return 1;
}

/* loss = (1 - eps) w[t] (lse - x[t]) + eps / C * sum_j w[j] (lse - x[j]) (w = 1
 * without weights), lse - x computed as (m - x) + log(sum exp(x - m)); also the
 * row's logsumexp and its target's weight (0 where ignored). */
template <typename T>
__device__ void cg_xent_fwd(cg_index R, cg_index C, const T* x, const long long* target,
                            const T* w, long long ignore_index, double eps, T* loss, T* lse,
                            T* wt, long long* bad)
{
    for (cg_index r = blockIdx.x; r < R; r += gridDim.x) {
        const T* xr = x + r * C;
        T m = cg_fold_max::identity<T>();
        for (cg_index j = threadIdx.x; j < C; j += blockDim.x)
            m = cg_fold_max::apply(m, xr[j]);
        m = cg_block_max(m);
        T s = 0;
        for (cg_index j = threadIdx.x; j < C; j += blockDim.x)
            s += cg_exp(xr[j] - m);
        s = cg_block_sum(s);
        const T lst = cg_log(s);
        const double ls = (double)lst;
        double sm = 0;
        if (eps != 0.0) {
            for (cg_index j = threadIdx.x; j < C; j += blockDim.x)
                sm += (w ? (double)w[j] : 1.0) * ((double)(m - xr[j]) + ls);
            sm = cg_block_sum(sm);
        }
        /* the row's three results, written by thread 0 (no thread skips ahead to
           the next row's folds) */
        if (threadIdx.x == 0) {
            const long long t = target[r];
            lse[r] = m + lst;
            if (cg_target_ok(t, ignore_index, C, r, R, bad)) {
                const T wr = w ? w[t] : (T)1;
                double v = (1.0 - eps) * (double)wr * ((double)(m - xr[t]) + ls);
                if (eps != 0.0)
                    v += eps / (double)C * sm;
                wt[r] = wr;
                loss[r] = (T)v;
            } else {
                wt[r] = 0;
                loss[r] = 0;
            }
        }
    }
}

/* dx = softmax * (a + b W) - b w - a onehot(t) per row, a = (1 - eps) w[t] scale,
 * b = eps / C scale, W = sum(w) (C without weights); scale[r * scale_step]. */
template <typename T>
__device__ void cg_xent_bwd(cg_index R, cg_index C, const T* x, const T* lse,
                            const long long* target, const T* w, long long ignore_index,
                            double eps, const T* scale, cg_index scale_step, T* dx,
                            long long* bad)
{
    double W = (double)C;
    if (w && eps != 0.0) {
        W = 0;
        for (cg_index j = threadIdx.x; j < C; j += blockDim.x)
            W += (double)w[j];
        W = cg_block_sum(W);
    }
    for (cg_index r = blockIdx.x; r < R; r += gridDim.x) {
        const T* xr = x + r * C;
        T* dr = dx + r * C;
        const long long t = target[r];
        /* (every thread checks; only thread 0 reports) */
        if (!cg_target_ok(t, ignore_index, C, r, R, bad)) {
            for (cg_index j = threadIdx.x; j < C; j += blockDim.x)
                dr[j] = 0;
            continue;
        }
        const double sc = (double)scale[r * scale_step];
        const T a = (T)((1.0 - eps) * (w ? (double)w[t] : 1.0) * sc);
        const T bb = (T)(eps / (double)C * sc);
        const T coef = a + (T)((double)bb * W);
        const T l = lse[r];
        for (cg_index j = threadIdx.x; j < C; j += blockDim.x) {
            T d = cg_exp(xr[j] - l) * coef;
            if (eps != 0.0)
                d -= w ? bb * w[j] : bb;
            if (j == t)
                d -= a;
            dr[j] = d;
        }
    }
}

/* ---- the extern "C" kernels ----------------------------------------------------- */
/* softmax forward of elements stored as S and computed as T */
#define CG_SOFTMAX_FWD_KERNELS(SFX, S, T)                                                       \
    extern "C" __global__ void cg_softmax_fwd_##SFX(cg_index rows, cg_index n, cg_index inner,  \
                                                    const S* x, S* y, int is_log)               \
    {                                                                                           \
        cg_softmax_fwd<S, T>(rows, n, inner, x, y, is_log);                                     \
    }                                                                                           \
    extern "C" __global__ void cg_softmax_fwd_cols_##SFX(cg_index rows, cg_index n,             \
                                                         cg_index inner, const S* x, S* y,      \
                                                         int is_log)                            \
    {                                                                                           \
        cg_softmax_fwd_cols<S, T>(rows, n, inner, x, y, is_log);                                \
    }

#define CG_NN_KERNELS(SFX, T)                                                                   \
    CG_SOFTMAX_FWD_KERNELS(SFX, T, T)                                                           \
    extern "C" __global__ void cg_softmax_bwd_cols_##SFX(cg_index rows, cg_index n,             \
                                                         cg_index inner, const T* y,            \
                                                         const T* g, T* dx, int is_log,         \
                                                         T scale)                               \
    {                                                                                           \
        cg_softmax_bwd_cols<T>(rows, n, inner, y, g, dx, is_log, scale);                        \
    }                                                                                           \
    extern "C" __global__ void cg_softmax_bwd_##SFX(cg_index rows, cg_index n, cg_index inner,  \
                                                    const T* y, const T* g, T* dx, int is_log,  \
                                                    T scale)                                    \
    {                                                                                           \
        cg_softmax_bwd<T>(rows, n, inner, y, g, dx, is_log, scale);                             \
    }                                                                                           \
    extern "C" __global__ void cg_attn_softmax_##SFX(cg_index rows, cg_index L, cg_index S,     \
                                                     const T* s, T* p, T scale, int causal,     \
                                                     const T* mask, cg_index mrows)             \
    {                                                                                           \
        cg_attn_softmax<T>(rows, L, S, s, p, scale, causal, mask, mrows);                       \
    }                                                                                           \
    extern "C" __global__ void cg_layer_norm_fwd_##SFX(cg_index rows, cg_index n, const T* x,   \
                                                       const T* w, const T* b, double eps,      \
                                                       T* y, T* mean, T* rstd)                  \
    {                                                                                           \
        cg_layer_norm_fwd<T>(rows, n, x, w, b, eps, y, mean, rstd);                             \
    }                                                                                           \
    extern "C" __global__ void cg_layer_norm_bwd_dx_##SFX(cg_index rows, cg_index n,            \
                                                          const T* g, const T* x,               \
                                                          const T* mean, const T* rstd,         \
                                                          const T* w, T* dx)                    \
    {                                                                                           \
        cg_layer_norm_bwd_dx<T>(rows, n, g, x, mean, rstd, w, dx);                              \
    }                                                                                           \
    extern "C" __global__ void cg_layer_norm_bwd_wb_##SFX(cg_index rows, cg_index n,            \
                                                          const T* g, const T* x,               \
                                                          const T* mean, const T* rstd,         \
                                                          T* dw, T* db)                         \
    {                                                                                           \
        cg_layer_norm_bwd_wb<T>(rows, n, g, x, mean, rstd, dw, db);                             \
    }                                                                                           \
    extern "C" __global__ void cg_gelu_fwd_##SFX(cg_index count, const T* x, T* y,              \
                                                 int tanh_approx)                               \
    {                                                                                           \
        cg_gelu_fwd<T>(count, x, y, tanh_approx);                                               \
    }                                                                                           \
    extern "C" __global__ void cg_gelu_bwd_##SFX(cg_index count, const T* g, const T* x,        \
                                                 T* dx, int tanh_approx)                        \
    {                                                                                           \
        cg_gelu_bwd<T>(count, g, x, dx, tanh_approx);                                           \
    }                                                                                           \
    extern "C" __global__ void cg_xent_fwd_##SFX(cg_index R, cg_index C, const T* x,            \
                                                 const long long* target, const T* w,           \
                                                 long long ignore_index, double eps, T* loss,   \
                                                 T* lse, T* wt, long long* bad)                 \
    {                                                                                           \
        cg_xent_fwd<T>(R, C, x, target, w, ignore_index, eps, loss, lse, wt, bad);              \
    }                                                                                           \
    extern "C" __global__ void cg_xent_bwd_##SFX(cg_index R, cg_index C, const T* x,            \
                                                 const T* lse, const long long* target,         \
                                                 const T* w, long long ignore_index,            \
                                                 double eps, const T* scale,                    \
                                                 cg_index scale_step, T* dx, long long* bad)    \
    {                                                                                           \
        cg_xent_bwd<T>(R, C, x, lse, target, w, ignore_index, eps, scale, scale_step, dx, bad); \
    }

CG_NN_KERNELS(f32, float)
CG_NN_KERNELS(f64, double)

/* ---- sum ratio: the mean of cross entropy's per-row losses over the counted weight
 * *ratio = sum(a) / sum(w) and *denom = sum(w), a and w contiguous of n elements, in
 * one block (launched with one block: a batch's rows, a few thousand at most in
 * practice, each thread strides over them); 0 / 0 is NaN, as PyTorch's mean over
 * all-ignored targets. */
template <typename T>
__device__ void cg_sum_ratio(cg_index n, const T* a, const T* w, T* ratio, T* denom)
{
    T sa = T(0), sw = T(0);
    for (cg_index i = threadIdx.x; i < n; i += blockDim.x) {
        sa += a[i];
        sw += w[i];
    }
    sa = cg_block_sum(sa);
    sw = cg_block_sum(sw);
    if (threadIdx.x == 0) {
        *ratio = sa / sw;
        *denom = sw;
    }
}
#define CG_SUM_RATIO_KERNEL(SFX, T)                                                             \
    extern "C" __global__ void cg_sum_ratio_##SFX(cg_index n, const T* a, const T* w,          \
                                                  T* ratio, T* denom)                          \
    {                                                                                           \
        if (blockIdx.x == 0)                                                                    \
            cg_sum_ratio<T>(n, a, w, ratio, denom);                                             \
    }
CG_SUM_RATIO_KERNEL(f32, float)
CG_SUM_RATIO_KERNEL(f64, double)

/* softmax of half and bfloat16 tensors, computed in float */
CG_SOFTMAX_FWD_KERNELS(f16, __half, float)
CG_SOFTMAX_FWD_KERNELS(bf16, __nv_bfloat16, float)
