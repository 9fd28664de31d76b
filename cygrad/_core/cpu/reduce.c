/* Row reductions: out[r] = OP(a[r, 0:n]) over a contiguous (rows x n) block. */
#include <math.h>
#include <stdlib.h>
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

/* ------------------------------------------------------------------------
 * Column reductions: out[o, j] = OP over i of a[o, i, j], for a contiguous
 * (outer, n, inner) block: x.sum(0) of a matrix, a batch statistic, a bias
 * gradient. Two layouts, chosen by the sizes alone:
 *  - narrow rows (inner < CG_COL_WIDE_MIN): each row of a tile of 4 vectors
 *    (64 float32 or 32 float64 columns) is loaded whole into 4 independent
 *    register accumulators; threads take whole tiles. NumPy's loop took 2-4x as
 *    long (float32 (1024, 192).sum(0): 31 us against 10, one thread).
 *  - wide rows: tiles would read each row's 256 bytes from its own page, so row
 *    segments of up to CG_COL_WIDE columns stream into accumulators in L1, and
 *    long columns are cut into pieces of rows (their number set by n alone)
 *    whose partial results are combined in order: threads each stream whole
 *    rows. float32 (4096, 4096).sum(0) took 4.4 ms with half-rows per thread,
 *    (256, 4096) 130 us on one thread with tiles (NumPy 3.4 ms / 80 us).
 * Either way a column's result does not depend on the thread count. float32
 * sums add blocks of CG_COL_BLOCK rows in float and the blocks in double; a
 * mean divides that double by `divisor` before rounding (divisor 0: a sum).
 * Summing 100K rows of 0.1f, 16-row blocks end 2 ulps from the exact sum
 * (128-row blocks: 10; PyTorch 1; NumPy's float32 loop 1444). */
#define CG_COL_BLOCK 16
#define CG_COL_WIDE 4096
#define CG_COL_WIDE_MIN 1024
#define CG_COL_PIECE 512         /* rows per piece of a wide column, about */
#define CG_COL_MAX_PIECES 32

#define DEF_COLS(SFX, T, VT, VI, L, LOAD)                                           \
    static inline __attribute__((always_inline)) void sum_tile_##SFX(               \
            const T* a, cg_index n, cg_index inner, const int nv, double divisor,   \
            T* out) {                                                               \
        double acc[4 * L];                                                          \
        for (int k = 0; k < nv * L; k++) acc[k] = 0.0;                              \
        for (cg_index i0 = 0; i0 < n; i0 += CG_COL_BLOCK) {                         \
            cg_index i1 = i0 + CG_COL_BLOCK < n ? i0 + CG_COL_BLOCK : n;            \
            VT s[4] = {{0}};                                                        \
            for (cg_index i = i0; i < i1; i++) {                                    \
                const T* row = a + i * inner;                                       \
                for (int v = 0; v < nv; v++) s[v] += LOAD(row + v * L);             \
            }                                                                       \
            for (int v = 0; v < nv; v++)                                            \
                for (int l = 0; l < L; l++) acc[v * L + l] += s[v][l];              \
        }                                                                           \
        for (int k = 0; k < nv * L; k++)                                            \
            out[k] = (T)(divisor > 0 ? acc[k] / divisor : acc[k]);                  \
    }                                                                               \
    /* max (is_max) or min with NaN propagating, as DEF_EXTREME */                  \
    static inline __attribute__((always_inline)) void ext_tile_##SFX(               \
            const T* a, cg_index n, cg_index inner, const int nv, const int is_max, \
            T* out) {                                                               \
        VT m[4];                                                                    \
        VI nan[4] = {{0}};                                                          \
        for (int v = 0; v < nv; v++) m[v] = LOAD(a + v * L);                        \
        for (cg_index i = 0; i < n; i++) {                                          \
            const T* row = a + i * inner;                                           \
            for (int v = 0; v < nv; v++) {                                          \
                VT x = LOAD(row + v * L);                                           \
                VI take = is_max ? (x > m[v]) : (x < m[v]);                         \
                m[v] = (VT)(((VI)x & take) | ((VI)m[v] & ~take));                   \
                nan[v] |= (x != x);                                                 \
            }                                                                       \
        }                                                                           \
        for (int v = 0; v < nv; v++)                                                \
            for (int l = 0; l < L; l++) out[v * L + l] = nan[v][l] ? (T)NAN : m[v][l]; \
    }                                                                               \
    /* One column j over rows [0, n) in double (fewer than L columns left). */      \
    static double col_##SFX(int op, const T* a, cg_index n, cg_index inner, cg_index j) { \
        if (op == CG_RSUM) {                                                        \
            double s = 0.0;                                                         \
            for (cg_index i = 0; i < n; i++) s += a[i * inner + j];                 \
            return s;                                                               \
        }                                                                           \
        T m = a[j];                                                                 \
        int isnan_ = 0;                                                             \
        for (cg_index i = 0; i < n; i++) {                                          \
            T x = a[i * inner + j];                                                 \
            if (op == CG_RMAX ? x > m : x < m) m = x;                               \
            isnan_ |= (x != x);                                                     \
        }                                                                           \
        return isnan_ ? NAN : (double)m;                                            \
    }                                                                               \
    /* Narrow rows: columns [j0, j1) of one outer slice, tile by tile. */           \
    CG_HOT static void cols_##SFX(int op, const T* a, cg_index n, cg_index inner,    \
                                  cg_index j0, cg_index j1, double divisor, T* out) { \
        cg_index j = j0;                                                            \
        for (; j + 4 * L <= j1; j += 4 * L) {                                       \
            if (op == CG_RSUM) sum_tile_##SFX(a + j, n, inner, 4, divisor, out + j); \
            else if (op == CG_RMAX) ext_tile_##SFX(a + j, n, inner, 4, 1, out + j);  \
            else ext_tile_##SFX(a + j, n, inner, 4, 0, out + j);                    \
        }                                                                           \
        for (; j + L <= j1; j += L) {                                               \
            if (op == CG_RSUM) sum_tile_##SFX(a + j, n, inner, 1, divisor, out + j); \
            else if (op == CG_RMAX) ext_tile_##SFX(a + j, n, inner, 1, 1, out + j);  \
            else ext_tile_##SFX(a + j, n, inner, 1, 0, out + j);                    \
        }                                                                           \
        for (; j < j1; j++) {                                                       \
            double v = col_##SFX(op, a, n, inner, j);                               \
            out[j] = (T)(op == CG_RSUM && divisor > 0 ? v / divisor : v);           \
        }                                                                           \
    }                                                                               \
    /* Wide rows, one block of rows (at most CG_COL_BLOCK) by nv vectors of columns \
     * in registers: sums into res (double), extremes into part/flag. */           \
    static inline __attribute__((always_inline)) void wide_block_##SFX(             \
            int op, const T* a, cg_index rows, cg_index inner, const int nv,        \
            double* res, T* part, VI* flag) {                                       \
        if (op == CG_RSUM) {                                                        \
            VT s[16];                                                               \
            for (int v = 0; v < nv; v++) s[v] = (VT){0};                            \
            for (cg_index i = 0; i < rows; i++)                                     \
                for (int v = 0; v < nv; v++) s[v] += LOAD(a + i * inner + v * L);   \
            for (int v = 0; v < nv; v++)                                            \
                for (int l = 0; l < L; l++) res[v * L + l] += s[v][l];              \
            return;                                                                 \
        }                                                                           \
        VT m[16];                                                                   \
        VI f[16];                                                                   \
        for (int v = 0; v < nv; v++) { m[v] = LOAD(part + v * L); f[v] = flag[v]; }  \
        for (cg_index i = 0; i < rows; i++)                                         \
            for (int v = 0; v < nv; v++) {                                          \
                VT x = LOAD(a + i * inner + v * L);                                 \
                VI take = op == CG_RMAX ? (x > m[v]) : (x < m[v]);                  \
                m[v] = (VT)(((VI)x & take) | ((VI)m[v] & ~take));                   \
                f[v] |= (x != x);                                                   \
            }                                                                       \
        for (int v = 0; v < nv; v++) { memcpy(part + v * L, &m[v], sizeof m[v]); flag[v] = f[v]; } \
    }                                                                               \
    /* Wide rows: columns [j0, j1) (at most CG_COL_WIDE) over rows [0, n): blocks  \
     * of rows, each swept along the columns, so every row streams in order;      \
     * res[j - j0] gets the sum (no division) or the extreme (NaN if any). */      \
    CG_HOT static void wide_##SFX(int op, const T* a, cg_index n, cg_index inner,    \
                                  cg_index j0, cg_index j1, double* res) {          \
        T part[CG_COL_WIDE];                                                        \
        VI flag[CG_COL_WIDE / L];                                                   \
        cg_index w = (j1 - j0) / L * L, k;                                          \
        a += j0;                                                                    \
        if (op == CG_RSUM) for (k = 0; k < w; k++) res[k] = 0.0;                    \
        else {                                                                      \
            memcpy(part, a, w * sizeof(T));                                         \
            for (k = 0; k < w / L; k++) flag[k] = (VI){0};                          \
        }                                                                           \
        for (cg_index i0 = 0; i0 < n; i0 += CG_COL_BLOCK) {                         \
            cg_index rows = i0 + CG_COL_BLOCK < n ? CG_COL_BLOCK : n - i0;          \
            const T* blk = a + i0 * inner;                                          \
            for (k = 0; k + 16 * L <= w; k += 16 * L)                               \
                wide_block_##SFX(op, blk + k, rows, inner, 16, res + k, part + k, flag + k / L); \
            for (; k < w; k += L)                                                   \
                wide_block_##SFX(op, blk + k, rows, inner, 1, res + k, part + k, flag + k / L); \
        }                                                                           \
        if (op != CG_RSUM)                                                          \
            for (k = 0; k < w; k++) res[k] = flag[k / L][k % L] ? NAN : (double)part[k]; \
        for (k = w; k < j1 - j0; k++) res[k] = col_##SFX(op, a, n, inner, k);       \
    }
DEF_COLS(f32, float, v16f, v16i, 16, load16f)
DEF_COLS(f64, double, v8d, v8l, 8, load8d)

/* The pool's unit. Narrow rows: a span of tiles of one outer slice. Wide rows:
 * a span of columns of one piece of rows of one outer slice, its partial
 * results in parts[(o * pieces + p) * inner + j] (with one piece, none: the
 * results go straight to out). */
typedef struct {
    int op, dtype, wide;
    cg_index outer, n, inner, span, spans, pieces;
    double divisor;
    const char* a;
    char* out;
    double* parts;
    int nchunks;
} cols_job;

static void cols_unit(const cols_job* j, cg_index u) {
    cg_index isz = j->dtype == CG_FLOAT32 ? 4 : 8;
    cg_index s = u % j->spans, rest = u / j->spans;
    cg_index p = rest % j->pieces, o = rest / j->pieces;
    cg_index j0 = s * j->span, j1 = j0 + j->span < j->inner ? j0 + j->span : j->inner;
    const char* a = j->a + o * j->n * j->inner * isz;
    if (!j->wide) {
        if (j->dtype == CG_FLOAT32)
            cols_f32(j->op, (const float*)a, j->n, j->inner, j0, j1, j->divisor,
                     (float*)j->out + o * j->inner);
        else
            cols_f64(j->op, (const double*)a, j->n, j->inner, j0, j1, j->divisor,
                     (double*)j->out + o * j->inner);
        return;
    }
    cg_index r0 = j->n * p / j->pieces, r1 = j->n * (p + 1) / j->pieces;
    double local[CG_COL_WIDE];      /* one piece: straight into out, no buffer */
    double* res = j->parts ? j->parts + (o * j->pieces + p) * j->inner + j0 : local;
    if (j->dtype == CG_FLOAT32)
        wide_f32(j->op, (const float*)a + r0 * j->inner, r1 - r0, j->inner, j0, j1, res);
    else
        wide_f64(j->op, (const double*)a + r0 * j->inner, r1 - r0, j->inner, j0, j1, res);
    if (!j->parts)
        for (cg_index c = j0; c < j1; c++) {
            double v = local[c - j0];
            if (j->op == CG_RSUM && j->divisor > 0) v /= j->divisor;
            if (j->dtype == CG_FLOAT32) ((float*)j->out)[o * j->inner + c] = (float)v;
            else ((double*)j->out)[o * j->inner + c] = v;
        }
}

static void cols_chunk(void* arg, int c) {
    const cols_job* j = (const cols_job*)arg;
    cg_index units = j->outer * j->pieces * j->spans;
    cg_index b = units * c / j->nchunks, e = units * (c + 1) / j->nchunks;
    for (cg_index u = b; u < e; u++) cols_unit(j, u);
}

/* Wide rows: each column's pieces, in order, into out. */
static void cols_combine(const cols_job* j) {
    for (cg_index o = 0; o < j->outer; o++)
        for (cg_index c = 0; c < j->inner; c++) {
            const double* q = j->parts + o * j->pieces * j->inner + c;
            double v = q[0];
            int nan = v != v;
            for (cg_index p = 1; p < j->pieces; p++) {
                double x = q[p * j->inner];
                if (j->op == CG_RSUM) v += x;
                else { nan |= x != x; v = j->op == CG_RMAX ? (x > v ? x : v) : (x < v ? x : v); }
            }
            if (j->op != CG_RSUM && nan) v = NAN;
            else if (j->op == CG_RSUM && j->divisor > 0) v /= j->divisor;
            if (j->dtype == CG_FLOAT32) ((float*)j->out)[o * j->inner + c] = (float)v;
            else ((double*)j->out)[o * j->inner + c] = v;
        }
}

int cg_reduce_cols(int op, int dtype, cg_index outer, cg_index n, cg_index inner,
                   double divisor, const char* a, char* out) {
    /* n >= 1, inner >= 1: the caller's promise (an empty reduction is not ours) */
    cg_index lanes = dtype == CG_FLOAT32 ? 16 : 8;
    cols_job j = {op, dtype, inner >= CG_COL_WIDE_MIN, outer, n, inner, 4 * lanes, 0, 1,
                  divisor, a, out, NULL, 1};
    if (j.wide) {
        j.pieces = n / CG_COL_PIECE;
        if (j.pieces < 1) j.pieces = 1;
        if (j.pieces > CG_COL_MAX_PIECES) j.pieces = CG_COL_MAX_PIECES;
        /* spans of whole vectors, as few as fit CG_COL_WIDE, but one per thread
         * when the slices and pieces alone are fewer (the span width does not
         * change any column's result) */
        cg_index threads = cg_num_threads(), spans = (inner + CG_COL_WIDE - 1) / CG_COL_WIDE;
        if (outer * j.pieces * spans < threads) spans = (threads + outer * j.pieces - 1) / (outer * j.pieces);
        j.span = ((inner + spans - 1) / spans + lanes - 1) / lanes * lanes;
        if (j.span > CG_COL_WIDE) j.span = CG_COL_WIDE;
        if (j.pieces > 1) {     /* at most 1/256 of the input's bytes */
            j.parts = malloc(sizeof(double) * outer * j.pieces * inner);
            if (!j.parts) return -1;
        }
    }
    j.spans = (inner + j.span - 1) / j.span;
    cg_index units = outer * j.pieces * j.spans;
    if (units >= 2 && cg_parallel_worth(CG_PAR_REDUCE, outer * n * inner)) {
        cg_index want = (cg_index)cg_num_threads() * 4;
        j.nchunks = (int)(units < want ? units : want);
        cg_parallel_chunks(j.nchunks, cols_chunk, &j);
    } else {
        for (cg_index u = 0; u < units; u++) cols_unit(&j, u);
    }
    if (j.parts) {
        cols_combine(&j);
        free(j.parts);
    }
    return 0;
}
