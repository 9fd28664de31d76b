/* Storage and compute types of the kernel files. float16 and bfloat16 are loaded
 * as float and stored rounded to nearest even (they have no arithmetic of their own
 * before sm_80, and a sum kept in float loses less); every other type is computed
 * as it is stored.
 *
 * cg_io<S> (elementwise_math.cu, matmul.cu, indexing.cu): C is the type an element
 * stored as S is computed in, ld turns a stored value into it and st rounds it back.
 * A file adds specialisations for its own storage types (elementwise_math.cu: its
 * bool).
 *
 * cg_load<A>(p) / cg_store(p, v) (reduction.cu, scan.cu): the same through a
 * pointer, for a fold or scan that accumulates in a type A of its choosing (the
 * element converted to A; A converted back, through float for the half types; a
 * bool stores whether v is non-zero).
 *
 * Included after <cuda_fp16.h> and <cuda_bf16.h>, which both drivers provide (the
 * emulator's own copies under cygrad/cuda/_driver/emu/). */
#ifndef CG_IO_CUH
#define CG_IO_CUH

#include <cuda_fp16.h>
#include <cuda_bf16.h>

template <typename S> struct cg_io {
    typedef S C;
    __device__ static C ld(S v) { return v; }
    __device__ static S st(C v) { return v; }
};
template <> struct cg_io<__half> {
    typedef float C;
    __device__ static float ld(__half v) { return __half2float(v); }
    __device__ static __half st(float v) { return __float2half_rn(v); }
};
template <> struct cg_io<__nv_bfloat16> {
    typedef float C;
    __device__ static float ld(__nv_bfloat16 v) { return __bfloat162float(v); }
    __device__ static __nv_bfloat16 st(float v) { return __float2bfloat16_rn(v); }
};

template <typename A, typename T> __device__ inline A cg_load(const T* p) { return (A)(*p); }
template <typename A> __device__ inline A cg_load(const __half* p) { return (A)__half2float(*p); }
template <typename A> __device__ inline A cg_load(const __nv_bfloat16* p)
{
    return (A)__bfloat162float(*p);
}
template <typename T, typename A> __device__ inline void cg_store(T* p, A v) { *p = (T)v; }
template <typename A> __device__ inline void cg_store(__half* p, A v) { *p = __float2half_rn((float)v); }
template <typename A> __device__ inline void cg_store(__nv_bfloat16* p, A v)
{
    *p = __float2bfloat16_rn((float)v);
}
template <typename A> __device__ inline void cg_store(bool* p, A v) { *p = v != A(0); }

#endif
