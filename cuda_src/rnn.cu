/* Recurrent cells' elementwise work on the device, one time step at a time: the
 * gate nonlinearities and state update (forward) and the gradient of the gates'
 * pre-activations (backward) of LSTM, GRU and Elman (tanh / ReLU) layers; the
 * same arithmetic as the CPU loops of cygrad/_core/cpu/rnn.c, element by element.
 *
 * Naming: cg_<cell>_<fwd|bwd>_<dtype>, dtype f32 (float) or f64 (double).
 * Every array is contiguous: rows of n (batch) by G*hs (gates) or hs values.
 * Gate order is PyTorch's: LSTM i, f, g, o; GRU r, z, n. An optional input
 * passed as a NULL pointer (0) reads as zero.
 *
 * One thread per (row, column) of the n x hs state, in a grid-stride loop over
 * the n * hs elements (64-bit indices), so any grid covers the step. A thread
 * reads and writes only its own element's slots (the G gate slots of column j of
 * row b), so no barrier is needed and the result does not depend on thread order.
 */

#include "cg_common.cuh"

__device__ inline float cg_rnn_exp(float x) { return expf(x); }
__device__ inline double cg_rnn_exp(double x) { return exp(x); }
__device__ inline float cg_rnn_tanh(float x) { return tanhf(x); }
__device__ inline double cg_rnn_tanh(double x) { return tanh(x); }

template <typename T>
__device__ inline T cg_rnn_sig(T x) { return T(1) / (T(1) + cg_rnn_exp(-x)); }

/* p[k] + q[k] where a NULL operand reads as zero. */
template <typename T>
__device__ inline T cg_rnn_sum2(const T* p, const T* q, cg_index k)
{
    return (p ? p[k] : T(0)) + (q ? q[k] : T(0));
}

__device__ inline cg_index cg_rnn_first()
{
    return (cg_index)blockIdx.x * blockDim.x + threadIdx.x;
}
__device__ inline cg_index cg_rnn_stride() { return (cg_index)blockDim.x * gridDim.x; }

/* a = [sig(i), sig(f), tanh(g), sig(o)] of gh + gx; c = f cprev + i g; tc = tanh(c);
 * h = o tc. */
template <typename T>
__device__ inline void cg_lstm_fwd(cg_index n, cg_index hs, const T* gh, const T* gx,
                                   const T* cprev, T* a, T* c, T* tc, T* h)
{
    const cg_index total = n * hs;
    for (cg_index e = cg_rnn_first(); e < total; e += cg_rnn_stride()) {
        const cg_index b = e / hs, j = e - b * hs;
        const cg_index g0 = b * 4 * hs + j;
        const T i = cg_rnn_sig(gh[g0] + gx[g0]);
        const T f = cg_rnn_sig(gh[g0 + hs] + gx[g0 + hs]);
        const T g = cg_rnn_tanh(gh[g0 + 2 * hs] + gx[g0 + 2 * hs]);
        const T o = cg_rnn_sig(gh[g0 + 3 * hs] + gx[g0 + 3 * hs]);
        a[g0] = i;
        a[g0 + hs] = f;
        a[g0 + 2 * hs] = g;
        a[g0 + 3 * hs] = o;
        const T cv = f * cprev[e] + i * g;
        const T t = cg_rnn_tanh(cv);
        c[e] = cv;
        tc[e] = t;
        h[e] = o * t;
    }
}

/* dh = dh_rec + g_out; dc += dh o (1 - tc^2); d = [dc g i(1-i), dc cprev f(1-f),
 * dc i (1-g^2), dh tc o(1-o)]; then dc *= f (the gradient reaching cprev). */
template <typename T>
__device__ inline void cg_lstm_bwd(cg_index n, cg_index hs, const T* dhr, const T* gout, T* dc,
                                   const T* a, const T* cprev, const T* tc, T* d)
{
    const cg_index total = n * hs;
    for (cg_index e = cg_rnn_first(); e < total; e += cg_rnn_stride()) {
        const cg_index b = e / hs, j = e - b * hs;
        const cg_index g0 = b * 4 * hs + j;
        const T dh = cg_rnn_sum2(dhr, gout, e);
        const T i = a[g0], f = a[g0 + hs], g = a[g0 + 2 * hs], o = a[g0 + 3 * hs];
        const T t = tc[e];
        const T dcv = dc[e] + dh * o * (T(1) - t * t);
        d[g0] = dcv * g * i * (T(1) - i);
        d[g0 + hs] = dcv * cprev[e] * f * (T(1) - f);
        d[g0 + 2 * hs] = dcv * i * (T(1) - g * g);
        d[g0 + 3 * hs] = dh * t * o * (T(1) - o);
        dc[e] = dcv * f;
    }
}

/* a = [r, z, n] with r, z = sig(gi + gh), n = tanh(gi_n + r gh_n); ghn = gh_n;
 * h = n + z (hprev - n). */
template <typename T>
__device__ inline void cg_gru_fwd(cg_index n, cg_index hs, const T* gi, const T* gh,
                                  const T* hprev, T* a, T* ghn, T* h)
{
    const cg_index total = n * hs;
    for (cg_index e = cg_rnn_first(); e < total; e += cg_rnn_stride()) {
        const cg_index b = e / hs, j = e - b * hs;
        const cg_index g0 = b * 3 * hs + j;
        const T r = cg_rnn_sig(gi[g0] + gh[g0]);
        const T z = cg_rnn_sig(gi[g0 + hs] + gh[g0 + hs]);
        const T hn = gh[g0 + 2 * hs];
        const T nv = cg_rnn_tanh(gi[g0 + 2 * hs] + r * hn);
        a[g0] = r;
        a[g0 + hs] = z;
        a[g0 + 2 * hs] = nv;
        ghn[e] = hn;
        h[e] = nv + z * (hprev[e] - nv);
    }
}

/* dh = dh_rec + g_out; di = [dr, dz, dn] and dgh = [dr, dz, dn r] are the gradients of
 * gi and gh; dhp = dh z is the direct part of the gradient reaching hprev. */
template <typename T>
__device__ inline void cg_gru_bwd(cg_index n, cg_index hs, const T* dhr, const T* gout,
                                  const T* a, const T* ghn, const T* hprev, T* di, T* dgh,
                                  T* dhp)
{
    const cg_index total = n * hs;
    for (cg_index e = cg_rnn_first(); e < total; e += cg_rnn_stride()) {
        const cg_index b = e / hs, j = e - b * hs;
        const cg_index g0 = b * 3 * hs + j;
        const T dh = cg_rnn_sum2(dhr, gout, e);
        const T r = a[g0], z = a[g0 + hs], nv = a[g0 + 2 * hs];
        const T dn = dh * (T(1) - z) * (T(1) - nv * nv);
        const T dz = dh * (hprev[e] - nv) * z * (T(1) - z);
        const T dr = dn * ghn[e] * r * (T(1) - r);
        di[g0] = dr;
        dgh[g0] = dr;
        di[g0 + hs] = dz;
        dgh[g0 + hs] = dz;
        di[g0 + 2 * hs] = dn;
        dgh[g0 + 2 * hs] = dn * r;
        dhp[e] = dh * z;
    }
}

/* h = act(gh + gx) over m values, act tanh (relu == 0) or ReLU. */
template <typename T>
__device__ inline void cg_elman_fwd(cg_index m, int relu, const T* gh, const T* gx, T* h)
{
    for (cg_index e = cg_rnn_first(); e < m; e += cg_rnn_stride()) {
        const T v = gh[e] + gx[e];
        h[e] = relu ? (v > T(0) ? v : T(0)) : cg_rnn_tanh(v);
    }
}

/* d = (dh_rec + g_out) act'(pre), written through h = act(pre). */
template <typename T>
__device__ inline void cg_elman_bwd(cg_index m, int relu, const T* dhr, const T* gout,
                                    const T* h, T* d)
{
    for (cg_index e = cg_rnn_first(); e < m; e += cg_rnn_stride()) {
        const T dh = cg_rnn_sum2(dhr, gout, e);
        const T hv = h[e];
        d[e] = relu ? (hv > T(0) ? dh : T(0)) : dh * (T(1) - hv * hv);
    }
}

#define CG_RNN_KERNELS(SUFFIX, T)                                                              \
    extern "C" __global__ void cg_lstm_fwd_##SUFFIX(cg_index n, cg_index hs, const T* gh,      \
                                                    const T* gx, const T* cprev, T* a, T* c,   \
                                                    T* tc, T* h)                               \
    {                                                                                          \
        cg_lstm_fwd<T>(n, hs, gh, gx, cprev, a, c, tc, h);                                     \
    }                                                                                          \
    extern "C" __global__ void cg_lstm_bwd_##SUFFIX(cg_index n, cg_index hs, const T* dhr,     \
                                                    const T* gout, T* dc, const T* a,          \
                                                    const T* cprev, const T* tc, T* d)         \
    {                                                                                          \
        cg_lstm_bwd<T>(n, hs, dhr, gout, dc, a, cprev, tc, d);                                 \
    }                                                                                          \
    extern "C" __global__ void cg_gru_fwd_##SUFFIX(cg_index n, cg_index hs, const T* gi,       \
                                                   const T* gh, const T* hprev, T* a, T* ghn,  \
                                                   T* h)                                       \
    {                                                                                          \
        cg_gru_fwd<T>(n, hs, gi, gh, hprev, a, ghn, h);                                        \
    }                                                                                          \
    extern "C" __global__ void cg_gru_bwd_##SUFFIX(cg_index n, cg_index hs, const T* dhr,      \
                                                   const T* gout, const T* a, const T* ghn,    \
                                                   const T* hprev, T* di, T* dgh, T* dhp)      \
    {                                                                                          \
        cg_gru_bwd<T>(n, hs, dhr, gout, a, ghn, hprev, di, dgh, dhp);                          \
    }                                                                                          \
    extern "C" __global__ void cg_elman_fwd_##SUFFIX(cg_index m, int relu, const T* gh,        \
                                                     const T* gx, T* h)                        \
    {                                                                                          \
        cg_elman_fwd<T>(m, relu, gh, gx, h);                                                   \
    }                                                                                          \
    extern "C" __global__ void cg_elman_bwd_##SUFFIX(cg_index m, int relu, const T* dhr,       \
                                                     const T* gout, const T* h, T* d)          \
    {                                                                                          \
        cg_elman_bwd<T>(m, relu, dhr, gout, h, d);                                             \
    }

CG_RNN_KERNELS(f32, float)
CG_RNN_KERNELS(f64, double)
