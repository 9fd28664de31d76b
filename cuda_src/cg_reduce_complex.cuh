/* The complex element of the reductions and scans (reduction.cu, scan.cu) and of
 * the small linear algebra (linalg.cu): complex64 and complex128 as (re, im) pairs
 * of float or double, laid out and aligned as the tensors store them.
 *
 * The folds and scans are written once for every dtype through the operators
 * (+, -, *, /, their compound assignments, == and !=) and the shuffles below: a sum adds the parts, a product is the complex
 * multiply, and a shuffle moves the two parts as two shuffles (the hardware
 * shuffles 32-bit words, and a double as two of them). The default constructor
 * is trivial, so the type can sit in __shared__ arrays. */
#ifndef CG_REDUCE_COMPLEX_CUH
#define CG_REDUCE_COMPLEX_CUH

template <typename R> struct alignas(2 * sizeof(R)) cg_rcomplex {
    R re, im;
    cg_rcomplex() = default;
    /* a real value (the folds' identities 0 and 1) */
    __device__ cg_rcomplex(double r) : re((R)r), im(R(0)) {}
    __device__ cg_rcomplex(R r, R i) : re(r), im(i) {}
};
typedef cg_rcomplex<float> cg_rc64;
typedef cg_rcomplex<double> cg_rc128;

template <typename R>
__device__ inline cg_rcomplex<R> operator+(cg_rcomplex<R> a, cg_rcomplex<R> b)
{
    return cg_rcomplex<R>(a.re + b.re, a.im + b.im);
}
template <typename R>
__device__ inline cg_rcomplex<R> operator-(cg_rcomplex<R> a, cg_rcomplex<R> b)
{
    return cg_rcomplex<R>(a.re - b.re, a.im - b.im);
}
template <typename R> __device__ inline cg_rcomplex<R> operator-(cg_rcomplex<R> a)
{
    return cg_rcomplex<R>(-a.re, -a.im);
}
template <typename R>
__device__ inline cg_rcomplex<R> operator*(cg_rcomplex<R> a, cg_rcomplex<R> b)
{
    return cg_rcomplex<R>(a.re * b.re - a.im * b.im, a.re * b.im + a.im * b.re);
}

/* a / b by Smith's scaling (no overflow of |b|^2), as NumPy divides complex numbers */
template <typename R>
__device__ inline cg_rcomplex<R> operator/(cg_rcomplex<R> a, cg_rcomplex<R> b)
{
    const R abs_re = b.re < R(0) ? -b.re : b.re, abs_im = b.im < R(0) ? -b.im : b.im;
    if (abs_re >= abs_im) {
        if (abs_re == R(0))     /* 0 divisor: the parts divided by 0 give inf or NaN */
            return cg_rcomplex<R>(a.re / abs_re, a.im / abs_re);
        const R t = b.im / b.re, d = b.re + b.im * t;
        return cg_rcomplex<R>((a.re + a.im * t) / d, (a.im - a.re * t) / d);
    }
    const R t = b.re / b.im, d = b.re * t + b.im;
    return cg_rcomplex<R>((a.re * t + a.im) / d, (a.im * t - a.re) / d);
}
template <typename R>
__device__ inline cg_rcomplex<R>& operator+=(cg_rcomplex<R>& a, cg_rcomplex<R> b)
{
    return a = a + b;
}
template <typename R>
__device__ inline cg_rcomplex<R>& operator-=(cg_rcomplex<R>& a, cg_rcomplex<R> b)
{
    return a = a - b;
}
template <typename R>
__device__ inline cg_rcomplex<R>& operator*=(cg_rcomplex<R>& a, cg_rcomplex<R> b)
{
    return a = a * b;
}
template <typename R>
__device__ inline cg_rcomplex<R>& operator/=(cg_rcomplex<R>& a, cg_rcomplex<R> b)
{
    return a = a / b;
}
template <typename R> __device__ inline bool operator==(cg_rcomplex<R> a, cg_rcomplex<R> b)
{
    return a.re == b.re && a.im == b.im;
}
template <typename R> __device__ inline bool operator!=(cg_rcomplex<R> a, cg_rcomplex<R> b)
{
    return !(a == b);
}

/* The warp shuffles of the folds and scans: one per part for a complex value. */
template <typename T> __device__ inline T cg_shfl_xor_val(T v, int m)
{
    return __shfl_xor_sync(0xffffffffu, v, m);
}
template <typename R> __device__ inline cg_rcomplex<R> cg_shfl_xor_val(cg_rcomplex<R> v, int m)
{
    return cg_rcomplex<R>(__shfl_xor_sync(0xffffffffu, v.re, m),
                          __shfl_xor_sync(0xffffffffu, v.im, m));
}
template <typename T> __device__ inline T cg_shfl_up_val(T v, int o)
{
    return __shfl_up_sync(0xffffffffu, v, o);
}
template <typename R> __device__ inline cg_rcomplex<R> cg_shfl_up_val(cg_rcomplex<R> v, int o)
{
    return cg_rcomplex<R>(__shfl_up_sync(0xffffffffu, v.re, o), __shfl_up_sync(0xffffffffu, v.im, o));
}

#endif
