/* Scatter reductions: see scatter.h for what is computed and why the result does
 * not depend on the thread count.
 *
 * The index space is first simplified (size-1 dims off `dim` dropped, neighbours
 * that are contiguous in target, source and index merged). Then either
 *   - `dim` is the innermost dim: each position off `dim` is a line, and a line's
 *     updates run in index order ("line" mode, e.g. scatter along the last dim);
 *   - or the innermost dim c is another one: for each position off (dim, c), the
 *     updates run for i along dim, and for a block of columns j along c inside
 *     ("column" mode, e.g. index_add of rows: the embedding gradient). When the
 *     index does not vary along c (index_add), it is read once per i and the
 *     column loop is a plain strided (often contiguous) update.
 * Chunks for the pool are ranges of (position off dim and c, column) pairs. */
#include <string.h>
#include "scatter.h"

static cg_scatter_pool_fn pool_run = NULL;
cg_index cg_scatter_parallel_min = 1 << 18;

void cg_scatter_set_pool(cg_scatter_pool_fn run) { pool_run = run; }

/* Fewest columns a chunk covers: each chunk reads the whole index along dim. */
#define MIN_CHUNK_UNITS 16
#define MAX_CHUNKS 64

typedef struct {
    int nouter;                     /* outer dims (all but dim and the column dim) */
    cg_index oshape[CG_MAX_DIMS];
    cg_index ot[CG_MAX_DIMS], os[CG_MAX_DIMS], oi[CG_MAX_DIMS];
    cg_index n, td, sd, id;         /* along dim */
    cg_index ncol, tc, sc, ic;      /* along the column dim (ncol 1 in line mode) */
    cg_index units;                 /* outer positions * ncol */
    cg_index wrap;
    char* t;
    const char* s;
    const char* idx;
    void (*fn)(const void* job, cg_index o, cg_index j0, cg_index j1);
    int nchunks;
} scatter_job;

/* Offsets (elements) of outer position o in target, source and index. */
static inline void outer_offsets(const scatter_job* j, cg_index o, cg_index* tb, cg_index* sb,
                                 cg_index* ib) {
    if (j->nouter <= 1) {           /* the usual case: no division */
        *tb = j->nouter ? o * j->ot[0] : 0;
        *sb = j->nouter ? o * j->os[0] : 0;
        *ib = j->nouter ? o * j->oi[0] : 0;
        return;
    }
    cg_index t = 0, s = 0, i = 0;
    for (int k = j->nouter - 1; k >= 0; k--) {
        cg_index n = j->oshape[k], c = o % n;
        o /= n;
        t += c * j->ot[k];
        s += c * j->os[k];
        i += c * j->oi[k];
    }
    *tb = t;
    *sb = s;
    *ib = i;
}

#define ADD_F(a, b) ((a) + (b))
#define MUL_F(a, b) ((a) * (b))
/* NaN wins, as in PyTorch's scatter_reduce and NumPy's maximum/minimum */
#define MAX_F(a, b) (((a) != (a) || (a) > (b)) ? (a) : (b))
#define MIN_F(a, b) (((a) != (a) || (a) < (b)) ? (a) : (b))
#define MAX_I(a, b) ((a) > (b) ? (a) : (b))
#define MIN_I(a, b) ((a) < (b) ? (a) : (b))

/* One (outer position, column range) of updates, for element type T and index
 * type IT; UPDATE(a, b) is the new value of target element a given source value b.
 * A negative index value v stands for v + wrap (wrap is 0 when there are none). */
#define DEF_SCATTER_IDX(NAME, T, IT, UPDATE)                                               \
    CG_HOT static void NAME(const void* p, cg_index o, cg_index j0, cg_index j1) {         \
        const scatter_job* j = (const scatter_job*)p;                                      \
        cg_index tb, sb, ib;                                                               \
        outer_offsets(j, o, &tb, &sb, &ib);                                                \
        T* t = (T*)j->t + tb;                                                              \
        const T* s = (const T*)j->s + sb;                                                  \
        const IT* idx = (const IT*)j->idx + ib;                                            \
        const cg_index n = j->n, td = j->td, sd = j->sd, id = j->id;                      \
        const cg_index tc = j->tc, sc = j->sc, ic = j->ic, m = j1 - j0, wrap = j->wrap;   \
        if (j->ncol == 1) {             /* line mode: one update per index value */       \
            for (cg_index i = 0; i < n; i++) {                                             \
                cg_index v = (cg_index)idx[i * id];                                        \
                v += v < 0 ? wrap : 0;                                                     \
                t[v * td] = UPDATE(t[v * td], s[i * sd]);                                  \
            }                                                                              \
        } else if (ic == 0) {           /* one index value per column block */            \
            for (cg_index i = 0; i < n; i++) {                                             \
                cg_index v = (cg_index)idx[i * id];                                        \
                v += v < 0 ? wrap : 0;                                                     \
                T* tp = t + v * td + j0 * tc;                                              \
                const T* sp = s + i * sd + j0 * sc;                                        \
                if (tc == 1 && sc == 1) {                                                  \
                    for (cg_index c = 0; c < m; c++) tp[c] = UPDATE(tp[c], sp[c]);         \
                } else {                                                                   \
                    for (cg_index c = 0; c < m; c++)                                       \
                        tp[c * tc] = UPDATE(tp[c * tc], sp[c * sc]);                       \
                }                                                                          \
            }                                                                              \
        } else {                        /* an index value per element */                  \
            for (cg_index i = 0; i < n; i++) {                                             \
                const IT* ip = idx + i * id;                                               \
                const T* sp = s + i * sd;                                                  \
                for (cg_index c = j0; c < j1; c++) {                                       \
                    cg_index v = (cg_index)ip[c * ic];                                     \
                    v += v < 0 ? wrap : 0;                                                 \
                    T* tp = t + v * td + c * tc;                                           \
                    *tp = UPDATE(*tp, sp[c * sc]);                                         \
                }                                                                          \
            }                                                                              \
        }                                                                                  \
    }

#define DEF_SCATTER(NAME, T, UPDATE)                                                       \
    DEF_SCATTER_IDX(NAME##_i32, T, int32_t, UPDATE)                                        \
    DEF_SCATTER_IDX(NAME##_i64, T, int64_t, UPDATE)

/* Integer sums and products wrap around (as PyTorch's do): computed unsigned, in a
 * type no narrower than unsigned int so that no promotion to int can overflow. */
#define DEF_INT(SUFFIX, T, U)                                                              \
    static inline T add_##SUFFIX(T a, T b) { return (T)((U)a + (U)b); }                    \
    static inline T mul_##SUFFIX(T a, T b) { return (T)((U)a * (U)b); }                    \
    DEF_SCATTER(sc_add_##SUFFIX, T, add_##SUFFIX)                                          \
    DEF_SCATTER(sc_mul_##SUFFIX, T, mul_##SUFFIX)                                          \
    DEF_SCATTER(sc_max_##SUFFIX, T, MAX_I)                                                 \
    DEF_SCATTER(sc_min_##SUFFIX, T, MIN_I)

#define DEF_FLOAT(SUFFIX, T)                                                               \
    DEF_SCATTER(sc_add_##SUFFIX, T, ADD_F)                                                 \
    DEF_SCATTER(sc_mul_##SUFFIX, T, MUL_F)                                                 \
    DEF_SCATTER(sc_max_##SUFFIX, T, MAX_F)                                                 \
    DEF_SCATTER(sc_min_##SUFFIX, T, MIN_F)

DEF_FLOAT(f32, float)
DEF_FLOAT(f64, double)
DEF_INT(u8, uint8_t, unsigned int)
DEF_INT(i8, int8_t, unsigned int)
DEF_INT(i16, int16_t, unsigned int)
DEF_INT(i32, int32_t, uint32_t)
DEF_INT(i64, int64_t, uint64_t)

typedef void (*scatter_fn)(const void* job, cg_index o, cg_index j0, cg_index j1);

#define ROW(SUFFIX, I)                                                                     \
    {sc_add_##SUFFIX##_##I, sc_mul_##SUFFIX##_##I, sc_max_##SUFFIX##_##I, sc_min_##SUFFIX##_##I}
#define ROWS(I) {ROW(u8, I), ROW(i8, I), ROW(i16, I), ROW(i32, I), ROW(i64, I), ROW(f32, I),  \
                 ROW(f64, I)}

static scatter_fn pick(int op, int dtype, int index64) {
    static const scatter_fn table[2][7][CG_SCATTER_NUM_OPS] = {ROWS(i32), ROWS(i64)};
    int row;
    switch (dtype) {
        case CG_UINT8: row = 0; break;
        case CG_INT8: row = 1; break;
        case CG_INT16: row = 2; break;
        case CG_INT32: row = 3; break;
        case CG_INT64: row = 4; break;
        case CG_FLOAT32: row = 5; break;
        case CG_FLOAT64: row = 6; break;
        default: return NULL;
    }
    if (op < 0 || op >= CG_SCATTER_NUM_OPS) return NULL;
    return table[index64 != 0][row][op];
}

int cg_has_scatter(int op, int dtype) { return pick(op, dtype, 1) != NULL; }

/* Run units [u0, u1) of the job: each outer position's columns in one call. */
static void run_units(const scatter_job* j, cg_index u0, cg_index u1) {
    while (u0 < u1) {
        cg_index o = u0 / j->ncol, c0 = u0 % j->ncol;
        cg_index c1 = j->ncol;
        if (u1 - u0 < c1 - c0) c1 = c0 + (u1 - u0);
        j->fn(j, o, c0, c1);
        u0 += c1 - c0;
    }
}

static void scatter_chunk(void* p, int chunk) {
    const scatter_job* j = (const scatter_job*)p;
    run_units(j, j->units * chunk / j->nchunks, j->units * (chunk + 1) / j->nchunks);
}

int cg_scatter(int op, int dtype, const cg_scatter_geom* g, char* target, const char* src,
               const char* index) {
    scatter_fn fn = pick(op, dtype, g->index64);
    if (fn == NULL) return -1;
    /* simplify: drop size-1 dims off dim, merge contiguous neighbours off dim */
    int nd = 0, d = -1;
    cg_index sh[CG_MAX_DIMS], ts[CG_MAX_DIMS], ss[CG_MAX_DIMS], is[CG_MAX_DIMS];
    for (int k = 0; k < g->ndim; k++) {
        if (g->shape[k] == 0) return 0;
        if (k != g->dim && g->shape[k] == 1) continue;
        if (k != g->dim && nd > 0 && nd - 1 != d && ts[nd - 1] == g->tstride[k] * g->shape[k]
                && ss[nd - 1] == g->sstride[k] * g->shape[k]
                && is[nd - 1] == g->istride[k] * g->shape[k]) {
            sh[nd - 1] *= g->shape[k];
            ts[nd - 1] = g->tstride[k];
            ss[nd - 1] = g->sstride[k];
            is[nd - 1] = g->istride[k];
            continue;
        }
        if (k == g->dim) d = nd;
        sh[nd] = g->shape[k];
        ts[nd] = g->tstride[k];
        ss[nd] = g->sstride[k];
        is[nd] = g->istride[k];
        nd++;
    }
    scatter_job j;
    memset(&j, 0, sizeof j);
    j.n = sh[d];
    j.td = ts[d];
    j.sd = ss[d];
    j.id = is[d];
    int c = (d == nd - 1) ? -1 : nd - 1;
    if (c >= 0) {
        j.ncol = sh[c];
        j.tc = ts[c];
        j.sc = ss[c];
        j.ic = is[c];
    } else {
        j.ncol = 1;
    }
    cg_index outer = 1;
    for (int k = 0; k < nd; k++) {
        if (k == d || k == c) continue;
        j.oshape[j.nouter] = sh[k];
        j.ot[j.nouter] = ts[k];
        j.os[j.nouter] = ss[k];
        j.oi[j.nouter] = is[k];
        j.nouter++;
        outer *= sh[k];
    }
    j.units = outer * j.ncol;
    j.wrap = g->wrap;
    j.t = target;
    j.s = src;
    j.idx = index;
    j.fn = fn;
    cg_index work = j.units * j.n;
    cg_index most = j.units / MIN_CHUNK_UNITS;
    if (pool_run != NULL && work >= cg_scatter_parallel_min && most > 1) {
        j.nchunks = most < MAX_CHUNKS ? (int)most : MAX_CHUNKS;
        pool_run(j.nchunks, scatter_chunk, &j);
    } else {
        run_units(&j, 0, j.units);
    }
    return 0;
}

/* Is any of the n values at p (step `step`) outside [low, high)? Branch-free, so the
 * common all-good case runs as a vector loop. */
#define DEF_ANY_BAD(NAME, IT)                                                              \
    CG_HOT static int NAME(const IT* p, cg_index n, cg_index step, int64_t low,            \
                           int64_t high) {                                                 \
        const uint64_t span = (uint64_t)high - (uint64_t)low;   /* v - low < span: inside */ \
        int bad = 0;                                                                       \
        if (step == 1) {                                                                   \
            for (cg_index k = 0; k < n; k++)                                               \
                bad |= (uint64_t)(int64_t)p[k] - (uint64_t)low >= span;                     \
        } else {                                                                           \
            for (cg_index k = 0; k < n; k++)                                               \
                bad |= (uint64_t)(int64_t)p[k * step] - (uint64_t)low >= span;             \
        }                                                                                  \
        return bad;                                                                        \
    }
DEF_ANY_BAD(any_bad_i32, int32_t)
DEF_ANY_BAD(any_bad_i64, int64_t)

int cg_index_first_bad(int ndim, const cg_index* shape, const cg_index* strides, int index64,
                       const char* index, int64_t low, int64_t high, int64_t* bad) {
    cg_index rows = 1, pos[CG_MAX_DIMS];
    if (ndim == 0) return 0;
    for (int k = 0; k < ndim; k++) {
        if (shape[k] == 0) return 0;
        pos[k] = 0;
    }
    for (int k = 0; k < ndim - 1; k++) rows *= shape[k];
    const cg_index n = shape[ndim - 1], step = strides[ndim - 1];
    cg_index off = 0;               /* of the current row, in elements */
    for (cg_index r = 0; r < rows; r++) {
        int found = index64 ? any_bad_i64((const int64_t*)index + off, n, step, low, high)
                            : any_bad_i32((const int32_t*)index + off, n, step, low, high);
        if (found) {                /* the first bad value of this row, C order */
            for (cg_index k = 0; k < n; k++) {
                int64_t v = index64 ? ((const int64_t*)index)[off + k * step]
                                    : ((const int32_t*)index)[off + k * step];
                if (v < low || v >= high) {
                    *bad = v;
                    return 1;
                }
            }
        }
        for (int k = ndim - 2; k >= 0; k--) {      /* next row, C order */
            off += strides[k];
            if (++pos[k] < shape[k]) break;
            off -= strides[k] * shape[k];
            pos[k] = 0;
        }
    }
    return 0;
}
