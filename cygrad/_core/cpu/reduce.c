/* Row reductions: out[r] = OP(a[r, 0:n]) over a contiguous (rows x n) block. */
#include <math.h>
#include <string.h>
#include "kernels.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* GCC/Clang vector extensions: portable SIMD that compiles to AVX-512/AVX2/SSE,
 * whichever -march allows. Loads go through memcpy (unaligned-safe). */
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));

static inline v16f load16f(const float* p) { v16f v; memcpy(&v, p, sizeof v); return v; }
static inline v8d load8d(const double* p) { v8d v; memcpy(&v, p, sizeof v); return v; }

/* float32 sums: four 16-lane float accumulators over blocks of 4096 elements (so
 * rounding error stays that of short sums), each block's total added in double. */
static double sum_f32(const float* a, cg_index n) {
    double total = 0.0;
    cg_index i = 0;
    while (i < n) {
        cg_index end = i + 4096 < n ? i + 4096 : n;
        v16f s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        cg_index j = i;
        for (; j + 64 <= end; j += 64) {
            s0 += load16f(a + j);
            s1 += load16f(a + j + 16);
            s2 += load16f(a + j + 32);
            s3 += load16f(a + j + 48);
        }
        for (; j + 16 <= end; j += 16) s0 += load16f(a + j);
        v16f s = (s0 + s1) + (s2 + s3);
        double block = 0.0;
        for (int l = 0; l < 16; l++) block += s[l];
        for (; j < end; j++) block += a[j];
        total += block;
        i = end;
    }
    return total;
}

static double sum_f64(const double* a, cg_index n) {
    double total = 0.0;
    cg_index i = 0;
    while (i < n) {
        cg_index end = i + 4096 < n ? i + 4096 : n;
        v8d s0 = {0}, s1 = {0}, s2 = {0}, s3 = {0};
        cg_index j = i;
        for (; j + 32 <= end; j += 32) {
            s0 += load8d(a + j);
            s1 += load8d(a + j + 8);
            s2 += load8d(a + j + 16);
            s3 += load8d(a + j + 24);
        }
        for (; j + 8 <= end; j += 8) s0 += load8d(a + j);
        v8d s = (s0 + s1) + (s2 + s3);
        double block = 0.0;
        for (int l = 0; l < 8; l++) block += s[l];
        for (; j < end; j++) block += a[j];
        total += block;
        i = end;
    }
    return total;
}

/* max/min propagate NaN, as torch.max does: lanes keep the running extreme with a
 * compare-and-select (a NaN never wins a compare) and, separately, whether a NaN
 * was seen. n >= 1 is the caller's promise. */
#define DEF_EXTREME(NAME, T, VT, VI, LANES, LOAD, CMP)                          \
    static T NAME(const T* a, cg_index n) {                                     \
        T m = a[0];                                                             \
        int nan = 0;                                                            \
        cg_index i = 0;                                                         \
        if (n >= LANES) {                                                       \
            VT vm = LOAD(a);                                                    \
            VI vnan = {0};                                                      \
            for (i = 0; i + LANES <= n; i += LANES) {                           \
                VT x = LOAD(a + i);                                             \
                VI take = x CMP vm;                                             \
                vm = (VT)(((VI)x & take) | ((VI)vm & ~take));                   \
                vnan |= (x != x);                                               \
            }                                                                   \
            m = vm[0];                                                          \
            for (int l = 0; l < LANES; l++) {                                   \
                if (vm[l] CMP m) m = vm[l];                                     \
                nan |= vnan[l] != 0;                                            \
            }                                                                   \
        }                                                                       \
        for (; i < n; i++) {                                                    \
            T x = a[i];                                                         \
            if (x CMP m) m = x;                                                 \
            nan |= (x != x);                                                    \
        }                                                                       \
        return nan ? (T)NAN : m;                                                \
    }
DEF_EXTREME(max_f32, float, v16f, v16i, 16, load16f, >)
DEF_EXTREME(min_f32, float, v16f, v16i, 16, load16f, <)
DEF_EXTREME(max_f64, double, v8d, v8l, 8, load8d, >)
DEF_EXTREME(min_f64, double, v8d, v8l, 8, load8d, <)

int cg_has_reduce(int op, int dtype) {
    return op >= 0 && op < CG_NUM_REDUCE && (dtype == CG_FLOAT32 || dtype == CG_FLOAT64);
}

static double reduce_one(int op, int dtype, const char* a, cg_index n) {
    if (dtype == CG_FLOAT32) {
        const float* x = (const float*)a;
        switch (op) {
        case CG_RSUM: return sum_f32(x, n);
        case CG_RMAX: return max_f32(x, n);
        default: return min_f32(x, n);
        }
    } else {
        const double* x = (const double*)a;
        switch (op) {
        case CG_RSUM: return sum_f64(x, n);
        case CG_RMAX: return max_f64(x, n);
        default: return min_f64(x, n);
        }
    }
}

static void store(int dtype, char* out, cg_index r, double v) {
    if (dtype == CG_FLOAT32) ((float*)out)[r] = (float)v;
    else ((double*)out)[r] = v;
}

void cg_reduce_rows(int op, int dtype, cg_index rows, cg_index n, const char* a, char* out) {
    cg_index isz = dtype == CG_FLOAT32 ? 4 : 8;
    int nt = cg_num_threads();
    if (nt <= 1 || rows * n < cg_parallel_threshold) {
        for (cg_index r = 0; r < rows; r++) store(dtype, out, r, reduce_one(op, dtype, a + r * n * isz, n));
        return;
    }
#ifdef _OPENMP
    if (rows >= nt) {
        #pragma omp parallel for num_threads(nt) schedule(static)
        for (cg_index r = 0; r < rows; r++)
            store(dtype, out, r, reduce_one(op, dtype, a + r * n * isz, n));
        return;
    }
    /* few long rows: split each row across threads, then combine the parts */
    for (cg_index r = 0; r < rows; r++) {
        const char* row = a + r * n * isz;
        double parts[256];
        int np = nt < 256 ? nt : 256;
        cg_index chunk = (n + np - 1) / np;
        #pragma omp parallel for num_threads(np) schedule(static)
        for (int t = 0; t < np; t++) {
            cg_index b = t * chunk, e = b + chunk < n ? b + chunk : n;
            parts[t] = b < e ? reduce_one(op, dtype, row + b * isz, e - b)
                             : (op == CG_RSUM ? 0.0 : NAN);
        }
        double v = parts[0];
        int nan = 0;
        for (int t = 0; t < np; t++) {
            cg_index b = t * chunk;
            if (b >= n) break;
            double x = parts[t];
            if (t == 0) { nan |= (x != x); continue; }
            if (op == CG_RSUM) v += x;
            else { nan |= (x != x); v = (op == CG_RMAX) ? (x > v ? x : v) : (x < v ? x : v); }
        }
        store(dtype, out, r, (op != CG_RSUM && nan) ? NAN : v);
    }
#endif
}
