/* cuda_emu.h: enough of CUDA's device language to run cuda_src/*.cu on the host.
 *
 * cygrad's emulated driver (cygrad/cuda/_driver/emulated.py) compiles a .cu file as
 * C++ with this header in front and a generated launch trampoline per kernel
 * behind it. Model:
 *   - blocks run one after another on the launching OS thread;
 *   - each CUDA thread of a block is a fiber with its own stack; fibers switch only
 *     at __syncthreads() and the warp-synchronous calls (shuffles, votes,
 *     __syncwarp), so between those points a thread runs alone and atomics are
 *     trivially atomic (they still use the compiler's atomic builtins);
 *   - __shared__ variables are static storage, so every thread of the running block
 *     sees the same object; `extern __shared__` arrays are rewritten by the driver
 *     to point at one dynamic shared-memory buffer.
 * The scheduler runs every ready fiber in turn, then completes warp operations whose
 * lanes have all arrived, then releases a block barrier once every live thread waits
 * at one. Strict mode (cfg->strict) turns divergence and bad lanes into errors.
 */
#ifndef CYGRAD_CUDA_EMU_H
#define CYGRAD_CUDA_EMU_H
/* The drivers' signature pass preprocesses a .cu file with -DCG_EMU_SIGNATURES and
 * this directory on the include path, so that <cuda_fp16.h> and friends resolve
 * to nothing and __global__ stays a visible token. */
#ifndef CG_EMU_SIGNATURES

#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <csetjmp>
#include <csignal>
#include <sys/mman.h>
#include <unistd.h>
/* x86-64 switches fibers with a few instructions; elsewhere (or with
 * -DCG_EMU_UCONTEXT) ucontext's swapcontext, slower but portable. */
#if defined(__x86_64__) && !defined(CG_EMU_UCONTEXT)
#define CG_EMU_ASM_SWITCH 1
#else
#define CG_EMU_ASM_SWITCH 0
#endif
#if !CG_EMU_ASM_SWITCH
#include <ucontext.h>
#endif

#define CYGRAD_CUDA_EMU 1

/* ---- qualifiers ---------------------------------------------------------- */
#define __global__
#define __device__
#define __host__
#define __forceinline__ inline __attribute__((always_inline))
#define __noinline__ __attribute__((noinline))
#define __shared__ static
#define __constant__ static
#define __align__(n) alignas(n)
#define __launch_bounds__(...)

/* ---- vector index types --------------------------------------------------- */
struct uint3 { unsigned int x, y, z; };
struct dim3 {
    unsigned int x, y, z;
    dim3(unsigned int x_ = 1, unsigned int y_ = 1, unsigned int z_ = 1) : x(x_), y(y_), z(z_) {}
};
static const int warpSize = 32;

namespace cg_emu {
struct Config {                 /* filled by the Python driver, see emulated.py */
    unsigned int grid[3];
    unsigned int block[3];
    unsigned long long shared_bytes;
    int strict;
    unsigned long long fault_addr;
    int fault_signal;
    char error[512];
};
enum { ST_READY, ST_BAR, ST_WARP, ST_DONE, ST_NEW };
enum { OP_SHFL_IDX, OP_SHFL_UP, OP_SHFL_DOWN, OP_SHFL_XOR, OP_BALLOT, OP_ANY, OP_ALL, OP_SYNCWARP };
static const char* const op_names[] = {"__shfl_sync", "__shfl_up_sync", "__shfl_down_sync",
                                       "__shfl_xor_sync", "__ballot_sync", "__any_sync",
                                       "__all_sync", "__syncwarp"};
struct Slot {
    void* sp;
    int state, op, arg, width, stack;
    unsigned int mask;
    unsigned long long value, result;
    const char* file;
    int line;
};
struct State {
    uint3 thread_idx, block_idx;
    dim3 block_dim, grid_dim;
    Slot* slots;
    int nthreads, current;
    void* main_sp;
    char* stacks;
    size_t stack_bytes, stacks_cap;
    void (*body)(void**);
    void** args;
    Config* cfg;
    sigjmp_buf fault_jump;
    volatile sig_atomic_t in_kernel;
#if !CG_EMU_ASM_SWITCH
    ucontext_t main_uc;
    ucontext_t* ucs;
#endif
};
static State st;
alignas(256) static unsigned char dynamic_shared[48 * 1024];
}  // namespace cg_emu

#define threadIdx (::cg_emu::st.thread_idx)
#define blockIdx (::cg_emu::st.block_idx)
#define blockDim (::cg_emu::st.block_dim)
#define gridDim (::cg_emu::st.grid_dim)

/* ---- context switch -------------------------------------------------------- */
#if CG_EMU_ASM_SWITCH
extern "C" void cg_emu_swap(void** save_sp, void* new_sp);
/* Saves the callee-saved registers on the current stack, stores the stack pointer
 * in *save_sp, loads new_sp and pops the registers saved there: a switch costs a
 * few nanoseconds, against a system call for swapcontext's signal mask. */
__asm__(
    ".text\n"
    ".p2align 4\n"
    ".globl cg_emu_swap\n"
    ".hidden cg_emu_swap\n"
    ".type cg_emu_swap,@function\n"
    "cg_emu_swap:\n"
    "  pushq %rbp\n  pushq %rbx\n  pushq %r12\n  pushq %r13\n  pushq %r14\n  pushq %r15\n"
    "  movq %rsp, (%rdi)\n"
    "  movq %rsi, %rsp\n"
    "  popq %r15\n  popq %r14\n  popq %r13\n  popq %r12\n  popq %rbx\n  popq %rbp\n"
    "  ret\n"
    ".size cg_emu_swap, .-cg_emu_swap\n");
#endif

namespace cg_emu {

static inline void to_scheduler()
{
#if CG_EMU_ASM_SWITCH
    cg_emu_swap(&st.slots[st.current].sp, st.main_sp);
#else
    swapcontext(&st.ucs[st.current], &st.main_uc);
#endif
}

static void fiber_entry()
{
    st.body(st.args);
    st.slots[st.current].state = ST_DONE;
    to_scheduler();
    __builtin_unreachable();
}

/* ---- warp-synchronous operations ------------------------------------------ */
template <typename T>
static inline unsigned long long to_bits(T v)
{
    static_assert(sizeof(T) <= 8, "warp operations take values of at most 8 bytes");
    unsigned long long b = 0;
    std::memcpy(&b, &v, sizeof(T));
    return b;
}
template <typename T>
static inline T from_bits(unsigned long long b)
{
    T v;
    std::memcpy(&v, &b, sizeof(T));
    return v;
}

static inline unsigned long long warp_op(int op, unsigned int mask, unsigned long long value,
                                         int arg, int width, const char* file, int line)
{
    Slot& s = st.slots[st.current];
    s.state = ST_WARP;
    s.op = op;
    s.mask = mask;
    s.value = value;
    s.arg = arg;
    s.width = width;
    s.file = file;
    s.line = line;
    to_scheduler();
    return st.slots[st.current].result;
}
}  // namespace cg_emu

static inline void __syncthreads(const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    cg_emu::Slot& s = cg_emu::st.slots[cg_emu::st.current];
    s.state = cg_emu::ST_BAR;
    s.file = file;
    s.line = line;
    cg_emu::to_scheduler();
}
static inline void __syncwarp(unsigned int mask = 0xffffffffu, const char* file = __builtin_FILE(),
                              int line = __builtin_LINE())
{
    cg_emu::warp_op(cg_emu::OP_SYNCWARP, mask, 0, 0, 32, file, line);
}
template <typename T>
static inline T __shfl_sync(unsigned int mask, T var, int src_lane, int width = 32,
                            const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    return cg_emu::from_bits<T>(
        cg_emu::warp_op(cg_emu::OP_SHFL_IDX, mask, cg_emu::to_bits(var), src_lane, width, file, line));
}
template <typename T>
static inline T __shfl_up_sync(unsigned int mask, T var, unsigned int delta, int width = 32,
                               const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    return cg_emu::from_bits<T>(
        cg_emu::warp_op(cg_emu::OP_SHFL_UP, mask, cg_emu::to_bits(var), (int)delta, width, file, line));
}
template <typename T>
static inline T __shfl_down_sync(unsigned int mask, T var, unsigned int delta, int width = 32,
                                 const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    return cg_emu::from_bits<T>(
        cg_emu::warp_op(cg_emu::OP_SHFL_DOWN, mask, cg_emu::to_bits(var), (int)delta, width, file, line));
}
template <typename T>
static inline T __shfl_xor_sync(unsigned int mask, T var, int lane_mask, int width = 32,
                                const char* file = __builtin_FILE(), int line = __builtin_LINE())
{
    return cg_emu::from_bits<T>(
        cg_emu::warp_op(cg_emu::OP_SHFL_XOR, mask, cg_emu::to_bits(var), lane_mask, width, file, line));
}
static inline unsigned int __ballot_sync(unsigned int mask, int pred, const char* file = __builtin_FILE(),
                                         int line = __builtin_LINE())
{
    return (unsigned int)cg_emu::warp_op(cg_emu::OP_BALLOT, mask, pred != 0, 0, 32, file, line);
}
static inline int __any_sync(unsigned int mask, int pred, const char* file = __builtin_FILE(),
                             int line = __builtin_LINE())
{
    return (int)cg_emu::warp_op(cg_emu::OP_ANY, mask, pred != 0, 0, 32, file, line);
}
static inline int __all_sync(unsigned int mask, int pred, const char* file = __builtin_FILE(),
                             int line = __builtin_LINE())
{
    return (int)cg_emu::warp_op(cg_emu::OP_ALL, mask, pred != 0, 0, 32, file, line);
}
static inline void __threadfence() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
static inline void __threadfence_block() { __atomic_thread_fence(__ATOMIC_SEQ_CST); }
template <typename T> static inline T __ldg(const T* p) { return *p; }

/* ---- atomics ----------------------------------------------------------------- */
#define CG_EMU_INT_ATOMICS(T)                                                                       \
    static inline T atomicAdd(T* p, T v) { return __atomic_fetch_add(p, v, __ATOMIC_SEQ_CST); }   \
    static inline T atomicSub(T* p, T v) { return __atomic_fetch_sub(p, v, __ATOMIC_SEQ_CST); }   \
    static inline T atomicAnd(T* p, T v) { return __atomic_fetch_and(p, v, __ATOMIC_SEQ_CST); }   \
    static inline T atomicOr(T* p, T v) { return __atomic_fetch_or(p, v, __ATOMIC_SEQ_CST); }     \
    static inline T atomicXor(T* p, T v) { return __atomic_fetch_xor(p, v, __ATOMIC_SEQ_CST); }   \
    static inline T atomicExch(T* p, T v) { return __atomic_exchange_n(p, v, __ATOMIC_SEQ_CST); } \
    static inline T atomicCAS(T* p, T expected, T desired)                                          \
    {                                                                                               \
        __atomic_compare_exchange_n(p, &expected, desired, false, __ATOMIC_SEQ_CST,                 \
                                    __ATOMIC_SEQ_CST);                                              \
        return expected;                                                                            \
    }                                                                                               \
    static inline T atomicMax(T* p, T v)                                                            \
    {                                                                                               \
        T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                               \
        while (old < v && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST,          \
                                                       __ATOMIC_SEQ_CST)) {}                        \
        return old;                                                                                 \
    }                                                                                               \
    static inline T atomicMin(T* p, T v)                                                            \
    {                                                                                               \
        T old = __atomic_load_n(p, __ATOMIC_SEQ_CST);                                               \
        while (v < old && !__atomic_compare_exchange_n(p, &old, v, true, __ATOMIC_SEQ_CST,          \
                                                       __ATOMIC_SEQ_CST)) {}                        \
        return old;                                                                                 \
    }
CG_EMU_INT_ATOMICS(int)
CG_EMU_INT_ATOMICS(unsigned int)
CG_EMU_INT_ATOMICS(long long)
CG_EMU_INT_ATOMICS(unsigned long long)
#undef CG_EMU_INT_ATOMICS

/* Floating-point atomics work on the value's bits with a compare-and-swap loop. */
#define CG_EMU_FLOAT_ATOMICS(T, U)                                                                  \
    static inline T cg_emu_float_rmw_##T(T* p, T v, int kind)                                       \
    {                                                                                               \
        U* q = reinterpret_cast<U*>(p);                                                             \
        U old_bits = __atomic_load_n(q, __ATOMIC_SEQ_CST);                                          \
        for (;;) {                                                                                  \
            T old;                                                                                  \
            std::memcpy(&old, &old_bits, sizeof(T));                                                \
            T nv = kind == 0 ? old + v : kind == 1 ? (old < v ? v : old)                            \
                 : kind == 2 ? (v < old ? v : old) : v;                                             \
            U new_bits;                                                                             \
            std::memcpy(&new_bits, &nv, sizeof(T));                                                 \
            if (__atomic_compare_exchange_n(q, &old_bits, new_bits, true, __ATOMIC_SEQ_CST,         \
                                            __ATOMIC_SEQ_CST))                                      \
                return old;                                                                         \
        }                                                                                           \
    }                                                                                               \
    static inline T atomicAdd(T* p, T v) { return cg_emu_float_rmw_##T(p, v, 0); }                 \
    static inline T atomicMax(T* p, T v) { return cg_emu_float_rmw_##T(p, v, 1); }                 \
    static inline T atomicMin(T* p, T v) { return cg_emu_float_rmw_##T(p, v, 2); }                 \
    static inline T atomicExch(T* p, T v) { return cg_emu_float_rmw_##T(p, v, 3); }
CG_EMU_FLOAT_ATOMICS(float, unsigned int)
CG_EMU_FLOAT_ATOMICS(double, unsigned long long)
#undef CG_EMU_FLOAT_ATOMICS

/* ---- math ------------------------------------------------------------------------ */
static inline float rsqrtf(float x) { return 1.0f / sqrtf(x); }
static inline double rsqrt(double x) { return 1.0 / sqrt(x); }
/* glibc already declares __expf and friends as its own aliases: macros, not functions */
#define __expf(x) expf(x)
#define __logf(x) logf(x)
#define __sinf(x) sinf(x)
#define __cosf(x) cosf(x)
#define __powf(x, y) powf(x, y)
static inline float __fdividef(float x, float y) { return x / y; }
static inline float __saturatef(float x) { return x < 0.0f ? 0.0f : (x > 1.0f ? 1.0f : x); }
static inline float __fmaf_rn(float x, float y, float z) { return fmaf(x, y, z); }
static inline double __fma_rn(double x, double y, double z) { return fma(x, y, z); }
#define CG_EMU_MINMAX(T)                                            \
    static inline T min(T a, T b) { return b < a ? b : a; }         \
    static inline T max(T a, T b) { return a < b ? b : a; }
CG_EMU_MINMAX(int)
CG_EMU_MINMAX(unsigned int)
CG_EMU_MINMAX(long long)
CG_EMU_MINMAX(unsigned long long)
CG_EMU_MINMAX(float)
CG_EMU_MINMAX(double)
#undef CG_EMU_MINMAX

/* ---- half and bfloat16: storage types with round-to-nearest-even conversions ---- */
static inline unsigned short cg_emu_f2h(float f)
{
    unsigned int x;
    std::memcpy(&x, &f, 4);
    unsigned int sign = (x >> 16) & 0x8000u;
    unsigned int mag = x & 0x7fffffffu;
    if (mag >= 0x7f800000u)                                       /* inf or nan */
        return (unsigned short)(sign | 0x7c00u | (mag > 0x7f800000u ? 0x200u : 0u));
    if (mag >= 0x477ff000u) return (unsigned short)(sign | 0x7c00u);   /* rounds to inf */
    if (mag < 0x38800000u) {                                       /* subnormal or zero */
        if (mag < 0x33000000u) return (unsigned short)sign;
        unsigned int e = mag >> 23, m = (mag & 0x7fffffu) | 0x800000u;
        unsigned int shift = 126 - e;                 /* value in units of 2^-24 is m >> shift */
        unsigned int r = m >> shift;
        unsigned int rem = m & ((1u << shift) - 1u), half = 1u << (shift - 1);
        if (rem > half || (rem == half && (r & 1u))) ++r;
        return (unsigned short)(sign | r);
    }
    unsigned int r = ((mag - 0x38000000u) >> 13);
    unsigned int rem = mag & 0x1fffu;
    if (rem > 0x1000u || (rem == 0x1000u && (r & 1u))) ++r;
    return (unsigned short)(sign | r);
}
static inline float cg_emu_h2f(unsigned short h)
{
    unsigned int sign = (unsigned int)(h & 0x8000u) << 16, e = (h >> 10) & 0x1fu, m = h & 0x3ffu, x;
    if (e == 0x1f) x = sign | 0x7f800000u | (m << 13);
    else if (e != 0) x = sign | ((e + 112) << 23) | (m << 13);
    else if (m == 0) x = sign;
    else {
        e = 113;
        while (!(m & 0x400u)) { m <<= 1; --e; }
        x = sign | (e << 23) | ((m & 0x3ffu) << 13);
    }
    float f;
    std::memcpy(&f, &x, 4);
    return f;
}
struct __half {
    unsigned short x;
    __half() = default;
    __half(float f) : x(cg_emu_f2h(f)) {}
    operator float() const { return cg_emu_h2f(x); }
};
struct __nv_bfloat16 {
    unsigned short x;
    __nv_bfloat16() = default;
    __nv_bfloat16(float f)
    {
        unsigned int u;
        std::memcpy(&u, &f, 4);
        if ((u & 0x7fffffffu) > 0x7f800000u) x = (unsigned short)((u >> 16) | 0x40u);
        else x = (unsigned short)((u + 0x7fffu + ((u >> 16) & 1u)) >> 16);
    }
    operator float() const
    {
        unsigned int u = (unsigned int)x << 16;
        float f;
        std::memcpy(&f, &u, 4);
        return f;
    }
};
static inline float __half2float(__half h) { return (float)h; }
static inline __half __float2half(float f) { return __half(f); }
static inline __half __float2half_rn(float f) { return __half(f); }
static inline float __bfloat162float(__nv_bfloat16 h) { return (float)h; }
static inline __nv_bfloat16 __float2bfloat16(float f) { return __nv_bfloat16(f); }
static inline __nv_bfloat16 __float2bfloat16_rn(float f) { return __nv_bfloat16(f); }

#endif  /* CG_EMU_SIGNATURES */
#endif  /* CYGRAD_CUDA_EMU_H */
