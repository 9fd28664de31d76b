/* Small dense linear algebra of cygrad on the device, one block per matrix of a
 * batch (blocks take matrices in a grid-stride loop, so any grid covers the
 * batch): f32 (float), f64 (double), c64 and c128 (complex64, complex128:
 * cg_rcomplex of cg_reduce_complex.cuh).
 *
 *   cg_lu_<dtype>(batch, m, n, nb, gj, w, x, piv, info, det, sign, logabs)
 *       Gaussian elimination with partial pivoting (the largest |value| of the
 *       column on or below the diagonal, the first on ties, as LAPACK's getrf) on
 *       each m x n matrix of w (contiguous, overwritten). gj = 0: LU, w becomes
 *       the packed factors (multipliers of the unit-diagonal L below the
 *       diagonal, U on and above it), piv the 1-based row interchanges (int32),
 *       info getrf's info (0, or the 1-based index of the first exactly zero
 *       pivot), det the product of U's diagonal with the interchanges' sign,
 *       sign and logabs as slogdet (complex: sign = the product of the pivots'
 *       phases p / |p| with the interchanges' sign, of the matrix's dtype;
 *       logabs is real). A complex pivot is the largest modulus |a| (hypot),
 *       as the CPU's lu_factor (NumPy's abs), not BLAS izamax's |re| + |im|. gj = 1 (square w): Gauss-Jordan on [w | x]
 *       where x is m x nb (contiguous): x becomes w^-1 x (NaN for a singular
 *       matrix); w keeps the pivots on its diagonal and multipliers elsewhere.
 *       Pointers that are not needed may be NULL (0).
 *   cg_cholesky_<dtype>(batch, n, a, l, info)
 *       the lower Cholesky factor l of each matrix of a (only its lower triangle
 *       is read), column by column; info = potrf's (the order of the first
 *       leading minor that is not positive-definite); a failed matrix's l is NaN.
 *       Complex: Hermitian, l l^H = a (the diagonal's imaginary part is not read,
 *       as LAPACK's potrf).
 *   cg_qr_<dtype>(batch, m, n, qcols, rrows, w, tau, q, r)
 *       Householder QR (LAPACK's geqrf, then Q and R as LAPACK's orgqr and triu).
 *   cg_eigh_<dtype>(batch, n, lower, tol, max_sweeps, a, w, v, order, eig, vec)
 *       symmetric (complex: Hermitian) eigenvalues (ascending, real) and
 *       eigenvectors by cyclic Jacobi sweeps.
 *   cg_svd_<dtype>(batch, m, n, ucols, tol, max_sweeps, a, w, v, order, u, s, vt)
 *       singular values (descending, real) and vectors by one-sided Jacobi rotations.
 *   cg_trsm_<dtype>(batch, n, k, upper, unit, a, x)
 *       x = a^-1 x for triangular a (its upper or lower triangle; unit: ones on the
 *       diagonal), one thread per column of x in a grid-stride loop over all the
 *       batch's columns; a zero on the diagonal gives inf/NaN, as LAPACK's trsm.
 *
 * Within a block, each elimination step is: thread 0 picks the pivot (a serial
 * scan: the matrices are small) and publishes it in shared memory; barrier; the
 * threads swap the two rows; barrier; they store the column's multipliers;
 * barrier; they update the rest of the matrix; barrier. Every thread of the block
 * runs the same loops, so all reach every __syncthreads().
 */

#include "cg_common.cuh"
#include "cg_reduce_complex.cuh"

/* The element helpers LU, Cholesky and the triangular solve are written once
 * through, T float, double or a cg_rcomplex of them; cg_la_real<T>::type is the
 * type of |T|. On a real T they are the identity (conj, re) or the plain formula,
 * so the real kernels compute exactly what they did before complex came in. */
template <typename T> struct cg_la_real { typedef T type; };
template <typename R> struct cg_la_real<cg_rcomplex<R> > { typedef R type; };

template <typename T> __device__ inline T cg_la_conj(T v) { return v; }
template <typename R> __device__ inline cg_rcomplex<R> cg_la_conj(cg_rcomplex<R> v)
{
    return cg_rcomplex<R>(v.re, -v.im);
}
template <typename T> __device__ inline T cg_la_re(T v) { return v; }
template <typename R> __device__ inline R cg_la_re(cg_rcomplex<R> v) { return v.re; }
template <typename T> __device__ inline T cg_la_im(T) { return T(0); }
template <typename R> __device__ inline R cg_la_im(cg_rcomplex<R> v) { return v.im; }
template <typename T> __device__ inline T cg_la_abs2(T v) { return v * v; }
template <typename R> __device__ inline R cg_la_abs2(cg_rcomplex<R> v)
{
    return v.re * v.re + v.im * v.im;
}

__device__ inline float cg_la_abs(float v) { return fabsf(v); }
__device__ inline double cg_la_abs(double v) { return fabs(v); }
/* the modulus without overflow or underflow of re^2 + im^2 */
__device__ inline float cg_la_abs(cg_rc64 v) { return hypotf(v.re, v.im); }
__device__ inline double cg_la_abs(cg_rc128 v) { return hypot(v.re, v.im); }
/* det *= p, the running product of the pivots. A complex product is kept as
 * det * 2^e with det's larger part in [0.5, 1) (scaling by a power of two is exact):
 * a product of parts near the overflow threshold would give inf - inf = NaN where the
 * determinant's true value is only past the dtype's range, which the final ldexp
 * then writes as infinite parts, as the CPU's cast of NumPy's determinant. */
template <typename T> __device__ inline void cg_la_det_mul(T& det, int& e, T p)
{
    (void)e;
    det *= p;
}
template <typename T> __device__ inline T cg_la_det_value(T det, int e)
{
    (void)e;
    return det;
}
__device__ inline float cg_la_frexp(float v, int* e) { return frexpf(v, e); }
__device__ inline double cg_la_frexp(double v, int* e) { return frexp(v, e); }
__device__ inline float cg_la_ldexp(float v, int e) { return ldexpf(v, e); }
__device__ inline double cg_la_ldexp(double v, int e) { return ldexp(v, e); }
template <typename R> __device__ inline void cg_la_det_mul(cg_rcomplex<R>& det, int& e,
                                                           cg_rcomplex<R> p)
{
    int ep = 0, k = 0;
    const R pr = p.re < R(0) ? -p.re : p.re, pi = p.im < R(0) ? -p.im : p.im;
    cg_la_frexp(pr > pi ? pr : pi, &ep);          /* (0 or not finite: ep is unspecified) */
    if (!(pr > R(0) || pi > R(0)) || !(pr + pi < R(1) / R(0)))
        ep = 0;
    det *= cg_rcomplex<R>(cg_la_ldexp(p.re, -ep), cg_la_ldexp(p.im, -ep));
    const R dr = det.re < R(0) ? -det.re : det.re, di = det.im < R(0) ? -det.im : det.im;
    cg_la_frexp(dr > di ? dr : di, &k);
    if (!(dr > R(0) || di > R(0)) || !(dr + di < R(1) / R(0)))
        k = 0;
    det = cg_rcomplex<R>(cg_la_ldexp(det.re, -k), cg_la_ldexp(det.im, -k));
    e += ep + k;
}
template <typename R> __device__ inline cg_rcomplex<R> cg_la_det_value(cg_rcomplex<R> det, int e)
{
    return cg_rcomplex<R>(cg_la_ldexp(det.re, e), cg_la_ldexp(det.im, e));
}
/* p / |p| of a nonzero pivot: the factor slogdet's sign collects (+-1 when real) */
template <typename T> __device__ inline T cg_la_phase(T v) { return v < T(0) ? T(-1) : T(1); }
template <typename R> __device__ inline cg_rcomplex<R> cg_la_phase(cg_rcomplex<R> v)
{
    const R m = cg_la_abs(v);
    return cg_rcomplex<R>(v.re / m, v.im / m);
}
__device__ inline float cg_la_log(float v) { return logf(v); }
__device__ inline double cg_la_log(double v) { return log(v); }
__device__ inline float cg_la_sqrt(float v) { return sqrtf(v); }
__device__ inline double cg_la_sqrt(double v) { return sqrt(v); }

template <typename T>
__device__ inline T cg_la_nan() { return T(0) / T(0); }

template <typename T, typename R>
__device__ inline void cg_lu(cg_index batch, cg_index m, cg_index n, cg_index nb, int gj, T* w,
                             T* x, int* piv, int* info, T* det, T* sign, R* logabs)
{
    __shared__ cg_index s_piv;
    __shared__ T s_pv;
    __shared__ int s_info;
    __shared__ T s_det;
    __shared__ int s_det_exp;
    __shared__ R s_log;
    __shared__ T s_sgn;
    const cg_index steps = m < n ? m : n;
    const cg_index tid = threadIdx.x, nt = blockDim.x;
    for (cg_index b = blockIdx.x; b < batch; b += gridDim.x) {
        T* a = w + b * m * n;
        T* y = x ? x + b * m * nb : x;
        if (tid == 0) {
            s_info = 0;
            s_det = T(1);
            s_det_exp = 0;
            s_log = R(0);
            s_sgn = T(1);
        }
        __syncthreads();
        for (cg_index j = 0; j < steps; ++j) {
            if (tid == 0) {
                cg_index p = j;
                R best = cg_la_abs(a[j * n + j]);
                for (cg_index i = j + 1; i < m; ++i) {
                    const R v = cg_la_abs(a[i * n + j]);
                    if (v > best) {
                        best = v;
                        p = i;
                    }
                }
                s_piv = p;
                if (piv)
                    piv[b * steps + j] = (int)(p + 1);
                if (p != j) {
                    s_det = -s_det;
                    s_sgn = -s_sgn;
                }
            }
            __syncthreads();
            const cg_index p = s_piv;
            if (p != j) {
                for (cg_index c = tid; c < n; c += nt) {
                    const T t = a[j * n + c];
                    a[j * n + c] = a[p * n + c];
                    a[p * n + c] = t;
                }
                for (cg_index c = tid; c < nb; c += nt) {
                    const T t = y[j * nb + c];
                    y[j * nb + c] = y[p * nb + c];
                    y[p * nb + c] = t;
                }
            }
            __syncthreads();
            if (tid == 0) {
                const T pv = a[j * n + j];
                s_pv = pv;
                cg_la_det_mul(s_det, s_det_exp, pv);
                if (pv == T(0)) {
                    if (s_info == 0)
                        s_info = (int)(j + 1);
                } else {
                    s_log += cg_la_log(cg_la_abs(pv));
                    s_sgn *= cg_la_phase(pv);
                }
            }
            __syncthreads();
            const T pv = s_pv;
            if (pv != T(0)) {
                /* the multipliers: below the pivot (LU), and above it too (Gauss-Jordan),
                 * kept in column j; row j itself is not written in this step */
                const cg_index first = gj ? 0 : j + 1;
                for (cg_index i = first + tid; i < m; i += nt)
                    if (i != j)
                        a[i * n + j] /= pv;
                __syncthreads();
                const cg_index cols = (n - j - 1) + nb;         /* right of the pivot, then x */
                const cg_index rows = m - first;
                for (cg_index e = tid; e < rows * cols; e += nt) {
                    const cg_index i = first + e / cols, c = e % cols;
                    if (i == j)
                        continue;
                    const T f = a[i * n + j];
                    if (c < n - j - 1)
                        a[i * n + j + 1 + c] -= f * a[j * n + j + 1 + c];
                    else
                        y[i * nb + c - (n - j - 1)] -= f * y[j * nb + c - (n - j - 1)];
                }
                __syncthreads();
            }
        }
        /* Gauss-Jordan left each row of w with its pivot alone in w's square part:
         * dividing by it gives the solution */
        if (gj)
            for (cg_index e = tid; e < m * nb; e += nt)
                y[e] = s_info ? cg_la_nan<T>() : y[e] / a[(e / nb) * n + e / nb];
        if (tid == 0) {
            if (info)
                info[b] = s_info;
            if (det)
                det[b] = cg_la_det_value(s_det, s_det_exp);
            if (sign)
                sign[b] = s_info ? T(0) : s_sgn;
            if (logabs)
                logabs[b] = s_info ? -R(1) / R(0) : s_log;
        }
        __syncthreads();              /* the shared values are reset for the next matrix */
    }
}

template <typename T>
__device__ inline void cg_cholesky(cg_index batch, cg_index n, const T* a, T* l, int* info)
{
    typedef typename cg_la_real<T>::type R;
    __shared__ int s_fail;
    __shared__ R s_d;
    const cg_index tid = threadIdx.x, nt = blockDim.x;
    for (cg_index b = blockIdx.x; b < batch; b += gridDim.x) {
        const T* ab = a + b * n * n;
        T* lb = l + b * n * n;
        if (tid == 0)
            s_fail = 0;
        __syncthreads();
        for (cg_index j = 0; j < n; ++j) {
            if (tid == 0) {
                R d = cg_la_re(ab[j * n + j]);
                for (cg_index k = 0; k < j; ++k)
                    d -= cg_la_abs2(lb[j * n + k]);
                if (!(d > R(0)))                   /* also NaN */
                    s_fail = (int)(j + 1);
                else
                    lb[j * n + j] = T(s_d = cg_la_sqrt(d));
            }
            __syncthreads();
            if (s_fail)
                break;                             /* (the same for every thread) */
            const T djj = T(s_d);
            for (cg_index i = j + 1 + tid; i < n; i += nt) {
                T v = ab[i * n + j];
                for (cg_index k = 0; k < j; ++k)
                    v -= lb[i * n + k] * cg_la_conj(lb[j * n + k]);
                lb[i * n + j] = v / djj;
            }
            __syncthreads();
        }
        const int fail = s_fail;
        for (cg_index e = tid; e < n * n; e += nt) {
            if (fail)
                lb[e] = cg_la_nan<T>();
            else if (e % n > e / n)
                lb[e] = T(0);
        }
        if (tid == 0)
            info[b] = fail;
        __syncthreads();
    }
}

template <typename T>
__device__ inline void cg_trsm(cg_index batch, cg_index n, cg_index k, int upper, int unit,
                               const T* a, T* x)
{
    const cg_index total = batch * k;
    for (cg_index e = (cg_index)blockIdx.x * blockDim.x + threadIdx.x; e < total;
         e += (cg_index)blockDim.x * gridDim.x) {
        const cg_index b = e / k, c = e % k;
        const T* ab = a + b * n * n;
        T* xb = x + b * n * k;
        for (cg_index s = 0; s < n; ++s) {
            const cg_index i = upper ? n - 1 - s : s;
            T v = xb[i * k + c];
            const cg_index lo = upper ? i + 1 : 0, hi = upper ? n : i;
            for (cg_index j = lo; j < hi; ++j)
                v -= ab[i * n + j] * xb[j * k + c];
            xb[i * k + c] = unit ? v : v / ab[i * n + i];
        }
    }
}

/* Householder QR as LAPACK's geqrf (unblocked, dgeqr2 with dlarfg's reflectors:
 * beta = -sign(alpha) ||(alpha, x)||, tau = (beta - alpha) / beta, v = x / (alpha - beta),
 * tau = 0 where x is zero) on each m x n matrix of w, in place; tau gets the k = min(m, n)
 * scales. Then, when q is not NULL, q (m x qcols) = H_0 ... H_{k-1} applied to the first
 * qcols columns of the identity (dorg2r), and r (rrows x n) = the upper triangle of
 * w's first rrows rows. Per column j: thread 0 forms the reflector; barrier; the
 * threads scale v; barrier; each thread applies H_j to its own trailing columns;
 * barrier. Complex, as zgeqr2 with zlarfg: alpha complex, beta = -sign(re alpha)
 * ||(alpha, x)|| real, tau = (beta - alpha) / beta (complex), tau = 0 only where x
 * is zero and alpha real; the trailing columns get H_j^H (conj(tau)) and Q the
 * H_j (zung2r). */
/* x = H_j x for the column x (element i at x[i * xs]): H_j = I - t v v^H with v_j = 1
 * and v_i = a[i][j] below (the reflector geqrf stores in column j of a, m x n). */
template <typename T>
__device__ inline void cg_reflect(const T* a, cg_index m, cg_index n, cg_index j, T t, T* x,
                                  cg_index xs)
{
    T d = x[j * xs];
    for (cg_index i = j + 1; i < m; ++i)
        d += cg_la_conj(a[i * n + j]) * x[i * xs];
    d *= t;
    x[j * xs] -= d;
    for (cg_index i = j + 1; i < m; ++i)
        x[i * xs] -= a[i * n + j] * d;
}

template <typename T>
__device__ inline void cg_qr(cg_index batch, cg_index m, cg_index n, cg_index qcols,
                             cg_index rrows, T* w, T* tau, T* q, T* r)
{
    typedef typename cg_la_real<T>::type R;
    __shared__ T s_tau;
    __shared__ T s_scale;
    const cg_index k = m < n ? m : n;
    const cg_index tid = threadIdx.x, nt = blockDim.x;
    for (cg_index b = blockIdx.x; b < batch; b += gridDim.x) {
        T* a = w + b * m * n;
        T* tb = tau + b * k;
        for (cg_index j = 0; j < k; ++j) {
            if (tid == 0) {
                R ss = R(0);
                for (cg_index i = j + 1; i < m; ++i)
                    ss += cg_la_abs2(a[i * n + j]);
                const T alpha = a[j * n + j];
                if (ss == R(0) && cg_la_im(alpha) == R(0)) {
                    s_tau = T(0);
                    s_scale = T(1);
                } else {
                    const R norm = cg_la_sqrt(cg_la_abs2(alpha) + ss);
                    const T beta = T(cg_la_re(alpha) >= R(0) ? -norm : norm);
                    s_tau = (beta - alpha) / beta;
                    s_scale = T(1) / (alpha - beta);
                    a[j * n + j] = beta;
                }
                tb[j] = s_tau;
            }
            __syncthreads();
            const T t = s_tau, scale = s_scale;
            for (cg_index i = j + 1 + tid; i < m; i += nt)
                a[i * n + j] *= scale;
            __syncthreads();
            if (t != T(0)) {
                const T th = cg_la_conj(t);               /* H_j^H */
                for (cg_index c = j + 1 + tid; c < n; c += nt)
                    cg_reflect(a, m, n, j, th, a + c, n);
            }
            __syncthreads();
        }
        if (q) {
            T* qb = q + b * m * qcols;
            for (cg_index e = tid; e < m * qcols; e += nt)
                qb[e] = (e / qcols == e % qcols) ? T(1) : T(0);
            __syncthreads();
            for (cg_index j = k - 1; j >= 0; --j) {
                const T t = tb[j];
                if (t != T(0)) {
                    for (cg_index c = tid; c < qcols; c += nt)
                        cg_reflect(a, m, n, j, t, qb + c, qcols);
                }
                __syncthreads();
            }
            T* rb = r + b * rrows * n;
            for (cg_index e = tid; e < rrows * n; e += nt) {
                const cg_index i = e / n, c = e % n;
                rb[e] = (i <= c && i < m) ? a[i * n + c] : T(0);
            }
        }
        __syncthreads();
    }
}

/* Symmetric eigenvalues and eigenvectors by cyclic Jacobi rotations: the matrix made
 * symmetric from its lower (lower = 1) or upper triangle into w (n x n, a workspace),
 * v (n x n) starting as the identity; each rotation (p, q) zeroes w[p][q]: thread 0
 * computes it (the stable formulas of Golub & Van Loan, 8.5.2), then the threads
 * rotate columns p and q of w and v, then rows p and q of w, with barriers between.
 * Sweeps repeat until the off-diagonal squared norm is at most tol times the
 * matrix's (or max_sweeps). Then thread 0 orders the eigenvalues ascending into
 * order (int, n per matrix) and the threads write eig (n) and vec (n x n, columns).
 * Hermitian (complex T): the triangle not read is the conjugate of the one read,
 * the diagonal's imaginary part is dropped (as LAPACK's heevd); with
 * w_pq = r e (r = |w_pq|, |e| = 1) the rotation is the unitary
 * U = [[c, s e], [-s conj(e), c]] with c, s the real formulas on r (U = D R D^H,
 * D = diag(1, conj(e)) making w_pq real): columns by U, rows by U^H. For a real T,
 * e = +-1 and U is the real rotation. */
template <typename T, typename R>
__device__ inline void cg_eigh(cg_index batch, cg_index n, int lower, R tol, int max_sweeps,
                               const T* a, T* w, T* v, int* order, R* eig, T* vec)
{
    __shared__ R s_c;
    __shared__ T s_se;             /* s e */
    __shared__ int s_done;
    const cg_index tid = threadIdx.x, nt = blockDim.x;
    for (cg_index b = blockIdx.x; b < batch; b += gridDim.x) {
        const T* ab = a + b * n * n;
        T* wb = w + b * n * n;
        T* vb = v + b * n * n;
        for (cg_index e = tid; e < n * n; e += nt) {
            const cg_index i = e / n, j = e % n;
            const cg_index hi = i > j ? i : j, lo = i > j ? j : i;
            const T x = lower ? ab[hi * n + lo] : ab[lo * n + hi];
            /* (i, j) outside the triangle read: the conjugate of its mirror */
            wb[e] = i == j ? T(cg_la_re(x)) : ((i > j) == (lower != 0) ? x : cg_la_conj(x));
            vb[e] = i == j ? T(1) : T(0);
        }
        __syncthreads();
        for (int sweep = 0; sweep < max_sweeps; ++sweep) {
            if (tid == 0) {
                R off = R(0), all = R(0);
                for (cg_index i = 0; i < n; ++i)
                    for (cg_index j = 0; j < n; ++j) {
                        const R x = cg_la_abs2(wb[i * n + j]);
                        all += x;
                        if (i != j)
                            off += x;
                    }
                s_done = !(off > tol * all);       /* (also for an all-zero matrix) */
            }
            __syncthreads();
            if (s_done)
                break;                                /* (the same for every thread) */
            for (cg_index p = 0; p + 1 < n; ++p) {
                for (cg_index q = p + 1; q < n; ++q) {
                    if (tid == 0) {
                        const T apq = wb[p * n + q];
                        if (apq == T(0)) {
                            s_c = R(1);
                            s_se = T(0);
                        } else {
                            const R r = cg_la_abs(apq);
                            const R theta = (cg_la_re(wb[q * n + q]) - cg_la_re(wb[p * n + p]))
                                / (R(2) * r);
                            const R t = (theta >= R(0) ? R(1) : R(-1))
                                / (cg_la_abs(theta) + cg_la_sqrt(theta * theta + R(1)));
                            s_c = R(1) / cg_la_sqrt(t * t + R(1));
                            s_se = T(t * s_c) * cg_la_phase(apq);
                        }
                    }
                    __syncthreads();
                    const T c = T(s_c), se = s_se, sec = cg_la_conj(s_se);
                    if (se != T(0)) {
                        for (cg_index k = tid; k < n; k += nt) {
                            const T wp = wb[k * n + p], wq = wb[k * n + q];
                            wb[k * n + p] = c * wp - sec * wq;
                            wb[k * n + q] = se * wp + c * wq;
                            const T vp = vb[k * n + p], vq = vb[k * n + q];
                            vb[k * n + p] = c * vp - sec * vq;
                            vb[k * n + q] = se * vp + c * vq;
                        }
                        __syncthreads();
                        for (cg_index k = tid; k < n; k += nt) {
                            const T wp = wb[p * n + k], wq = wb[q * n + k];
                            wb[p * n + k] = c * wp - se * wq;
                            wb[q * n + k] = sec * wp + c * wq;
                        }
                    }
                    __syncthreads();
                }
            }
        }
        int* ob = order + b * n;
        if (tid == 0) {
            for (cg_index i = 0; i < n; ++i)
                ob[i] = (int)i;
            for (cg_index i = 1; i < n; ++i) {        /* insertion sort: stable, small n */
                const int x = ob[i];
                cg_index j = i;
                for (; j > 0 && cg_la_re(wb[ob[j - 1] * (n + 1)]) > cg_la_re(wb[x * (n + 1)]); --j)
                    ob[j] = ob[j - 1];
                ob[j] = x;
            }
        }
        __syncthreads();
        for (cg_index e = tid; e < n * n; e += nt) {
            const cg_index k = e / n, i = e % n;
            vec[b * n * n + e] = vb[k * n + ob[i]];
            if (k == 0)
                eig[b * n + i] = cg_la_re(wb[(cg_index)ob[i] * (n + 1)]);
        }
        __syncthreads();
    }
}

/* Column p of an m-row, ld-column array dotted with column q: x_p^H x_q (the
 * conjugate of column p's elements when complex). */
template <typename T>
__device__ inline T cg_coldot(const T* x, cg_index m, cg_index ld, cg_index p, cg_index q)
{
    T d = T(0);
    for (cg_index i = 0; i < m; ++i)
        d += cg_la_conj(x[i * ld + p]) * x[i * ld + q];
    return d;
}

/* Column j of x (m x ld) = the unit vector e_cand less its components along the
 * other columns (Gram-Schmidt, twice); returns its norm. */
template <typename T>
__device__ inline typename cg_la_real<T>::type cg_orth_unit(T* x, cg_index m, cg_index ld,
                                                           cg_index j, cg_index cand)
{
    for (cg_index i = 0; i < m; ++i)
        x[i * ld + j] = i == cand ? T(1) : T(0);
    for (int pass = 0; pass < 2; ++pass)
        for (cg_index o = 0; o < ld; ++o) {
            if (o == j)
                continue;
            const T d = cg_coldot(x, m, ld, o, j);
            for (cg_index i = 0; i < m; ++i)
                x[i * ld + j] -= d * x[i * ld + o];
        }
    return cg_la_sqrt(cg_la_re(cg_coldot(x, m, ld, j, j)));
}

/* The singular value decomposition of each m x n matrix of a (m >= n: the caller
 * transposes a wide one) by one-sided Jacobi rotations (Hestenes): w = a (m x n) and
 * v = I (n x n) are rotated by column pairs until every pair of w's columns is
 * orthogonal to tol (|w_p . w_q| <= tol ||w_p|| ||w_q||) or max_sweeps; then
 * s = the columns' norms (descending, order: int, n per matrix), vt = the rows of
 * v^T in that order, and u (m x ucols, ucols = n or m) the normalized columns;
 * the columns of u that no singular value defines (zero singular values, and
 * those past n when ucols = m) are completed by thread 0 with unit vectors made
 * orthogonal to the others (Gram-Schmidt, twice). Thread 0 forms each rotation;
 * the block applies it to the rows of w and v. Complex: with g = w_p^H w_q = r e
 * (r = |g|, |e| = 1) the rotation is the unitary [[c, s e], [-s conj(e), c]], c and
 * s the real formulas on r (as in cg_eigh); vt is the conjugate transpose of v and
 * s real. */
template <typename T, typename R>
__device__ inline void cg_svd(cg_index batch, cg_index m, cg_index n, cg_index ucols, R tol,
                              int max_sweeps, const T* a, T* w, T* v, int* order, T* u, R* s,
                              T* vt)
{
    __shared__ R s_c;
    __shared__ T s_se;             /* s e */
    __shared__ int s_rotated;
    const cg_index tid = threadIdx.x, nt = blockDim.x;
    for (cg_index b = blockIdx.x; b < batch; b += gridDim.x) {
        T* wb = w + b * m * n;
        T* vb = v + b * n * n;
        for (cg_index e = tid; e < m * n; e += nt)
            wb[e] = a[b * m * n + e];
        for (cg_index e = tid; e < n * n; e += nt)
            vb[e] = (e / n == e % n) ? T(1) : T(0);
        __syncthreads();
        for (int sweep = 0; sweep < max_sweeps; ++sweep) {
            if (tid == 0)
                s_rotated = 0;
            __syncthreads();
            for (cg_index p = 0; p + 1 < n; ++p) {
                for (cg_index q = p + 1; q < n; ++q) {
                    if (tid == 0) {
                        const R al = cg_la_re(cg_coldot(wb, m, n, p, p));
                        const R be = cg_la_re(cg_coldot(wb, m, n, q, q));
                        const T ga = cg_coldot(wb, m, n, p, q);
                        const R r = cg_la_abs(ga);
                        if (r > tol * cg_la_sqrt(al * be) && ga != T(0)) {
                            const R zeta = (be - al) / (R(2) * r);
                            const R t = (zeta >= R(0) ? R(1) : R(-1))
                                / (cg_la_abs(zeta) + cg_la_sqrt(R(1) + zeta * zeta));
                            s_c = R(1) / cg_la_sqrt(R(1) + t * t);
                            s_se = T(s_c * t) * cg_la_phase(ga);
                            s_rotated = 1;
                        } else {
                            s_c = R(1);
                            s_se = T(0);
                        }
                    }
                    __syncthreads();
                    const T c = T(s_c), se = s_se, sec = cg_la_conj(s_se);
                    if (se != T(0)) {
                        for (cg_index k = tid; k < m + n; k += nt) {
                            T* x = k < m ? wb + k * n : vb + (k - m) * n;
                            const T xp = x[p], xq = x[q];
                            x[p] = c * xp - sec * xq;
                            x[q] = se * xp + c * xq;
                        }
                    }
                    __syncthreads();
                }
            }
            if (!s_rotated)
                break;                                /* (the same for every thread) */
            __syncthreads();                          /* before s_rotated is reset */
        }
        int* ob = order + b * n;
        R* sb = s + b * n;
        if (tid == 0) {
            for (cg_index j = 0; j < n; ++j) {
                sb[j] = cg_la_sqrt(cg_la_re(cg_coldot(wb, m, n, j, j)));
                ob[j] = (int)j;
            }
            for (cg_index i = 1; i < n; ++i) {        /* insertion sort, descending, stable */
                const int x = ob[i];
                cg_index j = i;
                for (; j > 0 && sb[ob[j - 1]] < sb[x]; --j)
                    ob[j] = ob[j - 1];
                ob[j] = x;
            }
        }
        __syncthreads();
        T* ub = u + b * m * ucols;
        T* vtb = vt + b * n * n;
        for (cg_index e = tid; e < m * ucols; e += nt) {
            const cg_index i = e / ucols, j = e % ucols;
            const R sj = j < n ? sb[ob[j]] : R(0);
            ub[e] = sj > R(0) ? wb[i * n + ob[j]] / T(sj) : T(0);
        }
        for (cg_index e = tid; e < n * n; e += nt)
            vtb[e] = cg_la_conj(vb[(e % n) * n + ob[e / n]]);
        __syncthreads();
        if (tid == 0) {
            for (cg_index j = 0; j < n; ++j)         /* s sorted, through w (done with) */
                wb[j] = T(sb[ob[j]]);
            for (cg_index j = 0; j < n; ++j)
                sb[j] = cg_la_re(wb[j]);
            for (cg_index j = 0; j < ucols; ++j) {
                if (j < n && sb[j] > R(0))
                    continue;
                /* column j: the unit vector with the largest part left once the other
                 * columns' components are removed (columns still to complete are zero;
                 * fewer than m columns are set, so some unit vector keeps a part) */
                cg_index best = 0;
                R best_norm = R(-1);
                for (cg_index cand = 0; cand < m; ++cand) {
                    const R nrm = cg_orth_unit(ub, m, ucols, j, cand);
                    if (nrm > best_norm) {
                        best_norm = nrm;
                        best = cand;
                    }
                }
                const T nrm = T(cg_orth_unit(ub, m, ucols, j, best));
                for (cg_index i = 0; i < m; ++i)
                    ub[i * ucols + j] /= nrm;
            }
        }
        __syncthreads();
    }
}

/* Every kernel, real and complex (R: the type of |T|) */
#define CG_LINALG_KERNELS(SUFFIX, T, R)                                                     \
    extern "C" __global__ void cg_lu_##SUFFIX(cg_index batch, cg_index m, cg_index n,          \
                                              cg_index nb, int gj, T* w, T* x, int* piv,       \
                                              int* info, T* det, T* sign, R* logabs)           \
    {                                                                                          \
        cg_lu<T, R>(batch, m, n, nb, gj, w, x, piv, info, det, sign, logabs);                  \
    }                                                                                          \
    extern "C" __global__ void cg_cholesky_##SUFFIX(cg_index batch, cg_index n, const T* a,    \
                                                    T* l, int* info)                           \
    {                                                                                          \
        cg_cholesky<T>(batch, n, a, l, info);                                                  \
    }                                                                                          \
    extern "C" __global__ void cg_trsm_##SUFFIX(cg_index batch, cg_index n, cg_index k,        \
                                                int upper, int unit, const T* a, T* x)         \
    {                                                                                          \
        cg_trsm<T>(batch, n, k, upper, unit, a, x);                                            \
    }                                                                                          \
    extern "C" __global__ void cg_eigh_##SUFFIX(cg_index batch, cg_index n, int lower, R tol,   \
                                                int max_sweeps, const T* a, T* w, T* v,        \
                                                int* order, R* eig, T* vec)                    \
    {                                                                                          \
        cg_eigh<T, R>(batch, n, lower, tol, max_sweeps, a, w, v, order, eig, vec);             \
    }                                                                                          \
    extern "C" __global__ void cg_qr_##SUFFIX(cg_index batch, cg_index m, cg_index n,          \
                                              cg_index qcols, cg_index rrows, T* w, T* tau,    \
                                              T* q, T* r)                                      \
    {                                                                                          \
        cg_qr<T>(batch, m, n, qcols, rrows, w, tau, q, r);                                     \
    }                                                                                          \
    extern "C" __global__ void cg_svd_##SUFFIX(cg_index batch, cg_index m, cg_index n,         \
                                               cg_index ucols, R tol, int max_sweeps,          \
                                               const T* a, T* w, T* v, int* order, T* u, R* s, \
                                               T* vt)                                          \
    {                                                                                          \
        cg_svd<T, R>(batch, m, n, ucols, tol, max_sweeps, a, w, v, order, u, s, vt);           \
    }

CG_LINALG_KERNELS(f32, float, float)
CG_LINALG_KERNELS(f64, double, double)
CG_LINALG_KERNELS(c64, cg_rc64, float)
CG_LINALG_KERNELS(c128, cg_rc128, double)
