/* Row reductions: out[r] = OP(a[r, 0:n]) over a contiguous (rows x n) block. */
#include <math.h>
#include "kernels.h"
#ifdef _OPENMP
#include <omp.h>
#endif

/* float32 sums: 16 float lanes over blocks of 2048 (vectorisable), each block
 * total added into a double. Error stays near pairwise summation's. */
static double sum_f32(const float* a, cg_index n) {
    double total = 0.0;
    cg_index i = 0;
    while (i < n) {
        cg_index end = i + 2048 < n ? i + 2048 : n;
        float lanes[16] = {0};
        cg_index j = i;
        for (; j + 16 <= end; j += 16)
            for (int l = 0; l < 16; l++) lanes[l] += a[j + l];
        float block = 0.f;
        for (; j < end; j++) block += a[j];
        double bt = block;
        for (int l = 0; l < 16; l++) bt += lanes[l];
        total += bt;
        i = end;
    }
    return total;
}

static double sum_f64(const double* a, cg_index n) {
    double total = 0.0;
    cg_index i = 0;
    while (i < n) {
        cg_index end = i + 2048 < n ? i + 2048 : n;
        double lanes[8] = {0};
        cg_index j = i;
        for (; j + 8 <= end; j += 8)
            for (int l = 0; l < 8; l++) lanes[l] += a[j + l];
        double block = 0.0;
        for (; j < end; j++) block += a[j];
        for (int l = 0; l < 8; l++) block += lanes[l];
        total += block;
        i = end;
    }
    return total;
}

/* max/min propagate NaN, as torch.max does. n >= 1 is the caller's promise. */
#define DEF_EXTREME(NAME, T, CMP)                                               \
    static T NAME(const T* a, cg_index n) {                                     \
        T m = a[0];                                                             \
        int nan = 0;                                                            \
        for (cg_index i = 0; i < n; i++) {                                      \
            T x = a[i];                                                         \
            m = (x CMP m) ? x : m;                                              \
            nan |= (x != x);                                                    \
        }                                                                       \
        return nan ? (T)NAN : m;                                                \
    }
DEF_EXTREME(max_f32, float, >)
DEF_EXTREME(min_f32, float, <)
DEF_EXTREME(max_f64, double, >)
DEF_EXTREME(min_f64, double, <)

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
