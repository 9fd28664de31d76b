/* Row reductions: out[r] = OP(a[r, 0:n]) over a contiguous (rows x n) block. */
#include <math.h>
#include <string.h>
#include "kernels.h"

/* GCC/Clang vector extensions: portable SIMD that compiles to AVX-512/AVX2/SSE,
 * whichever the build's -march or the run-time variant (isa.h) allows. Loads go through memcpy (unaligned-safe). */
typedef float v16f __attribute__((vector_size(64)));
typedef int32_t v16i __attribute__((vector_size(64)));
typedef double v8d __attribute__((vector_size(64)));
typedef int64_t v8l __attribute__((vector_size(64)));

static inline v16f load16f(const float* p) { v16f v; memcpy(&v, p, sizeof v); return v; }
static inline v8d load8d(const double* p) { v8d v; memcpy(&v, p, sizeof v); return v; }

/* float32 sums: four 16-lane float accumulators over blocks of 4096 elements (so
 * rounding error stays that of short sums), each block's total added in double. */
CG_HOT static double sum_f32(const float* a, cg_index n) {
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

CG_HOT static double sum_f64(const double* a, cg_index n) {
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
    CG_HOT static T NAME(const T* a, cg_index n) {                              \
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

/* Many rows: chunks of whole rows, each row reduced as in the serial loop. */
typedef struct {
    int op, dtype, nchunks;
    cg_index rows, n, isz;
    const char* a;
    char* out;
    double* parts;       /* few long rows: one partial result per piece of a row */
    cg_index piece;
} reduce_job;

static void rows_chunk(void* arg, int c) {
    const reduce_job* j = (const reduce_job*)arg;
    cg_index b = j->rows * c / j->nchunks, e = j->rows * (c + 1) / j->nchunks;
    for (cg_index r = b; r < e; r++)
        store(j->dtype, j->out, r, reduce_one(j->op, j->dtype, j->a + r * j->n * j->isz, j->n));
}

static void piece_chunk(void* arg, int c) {
    const reduce_job* j = (const reduce_job*)arg;
    cg_index b = c * j->piece, e = b + j->piece < j->n ? b + j->piece : j->n;
    j->parts[c] = reduce_one(j->op, j->dtype, j->a + b * j->isz, e - b);
}

/* Rows this few are split into pieces (and the pieces combined) rather than
 * handed out whole. The split depends on n alone, never on the thread count,
 * so a result is the same with 1 thread or many. */
#define CG_FEW_ROWS 16
#define CG_MAX_PIECES 64
#define CG_MIN_PIECE 32768

void cg_reduce_rows(int op, int dtype, cg_index rows, cg_index n, const char* a, char* out) {
    cg_index isz = dtype == CG_FLOAT32 ? 4 : 8;
    /* Whether a few long rows are cut into pieces depends on the sizes and the
     * (quiet) threshold only; whether threads run the pieces may vary. */
    int threaded = cg_parallel_worth(CG_PAR_REDUCE, rows * n);
    if (n == 0 || rows * n < cg_parallel_min[CG_PAR_REDUCE] || (rows >= CG_FEW_ROWS && !threaded)) {
        for (cg_index r = 0; r < rows; r++) store(dtype, out, r, reduce_one(op, dtype, a + r * n * isz, n));
        return;
    }
    reduce_job j = {op, dtype, 0, rows, n, isz, a, out, NULL, 0};
    if (rows >= CG_FEW_ROWS) {
        cg_index nchunks = (cg_index)cg_num_threads() * 4;
        j.nchunks = (int)(nchunks < rows ? nchunks : rows);
        cg_parallel_chunks(j.nchunks, rows_chunk, &j);
        return;
    }
    double parts[CG_MAX_PIECES];
    cg_index npieces = (n + CG_MIN_PIECE - 1) / CG_MIN_PIECE;
    if (npieces > CG_MAX_PIECES) npieces = CG_MAX_PIECES;
    j.piece = (n + npieces - 1) / npieces;
    npieces = (n + j.piece - 1) / j.piece;
    j.parts = parts;
    for (cg_index r = 0; r < rows; r++) {
        j.a = a + r * n * isz;
        if (threaded) cg_parallel_chunks((int)npieces, piece_chunk, &j);
        else for (int c = 0; c < (int)npieces; c++) piece_chunk(&j, c);
        double v = parts[0];
        int nan = v != v;
        for (cg_index t = 1; t < npieces; t++) {
            double x = parts[t];
            if (op == CG_RSUM) v += x;
            else { nan |= (x != x); v = (op == CG_RMAX) ? (x > v ? x : v) : (x < v ? x : v); }
        }
        store(dtype, out, r, (op != CG_RSUM && nan) ? NAN : v);
    }
}
