/* Elementwise kernels: the n-d loop driver, binary and unary inner loops. */
#include <math.h>
#include <string.h>
#include "kernels.h"

/* Ask gcc to vectorise these calls through glibc's libmvec (e.g. _ZGVdN8v_expf).
 * With -fno-math-errno this keeps IEEE special values, unlike -ffast-math. */
#if defined(__GNUC__) && !defined(__clang__) && defined(__x86_64__)
#define CG_SIMD __attribute__((simd("notinbranch")))
float expf(float) CG_SIMD; double exp(double) CG_SIMD;
float exp2f(float) CG_SIMD; double exp2(double) CG_SIMD;
float expm1f(float) CG_SIMD; double expm1(double) CG_SIMD;
float logf(float) CG_SIMD; double log(double) CG_SIMD;
float log2f(float) CG_SIMD; double log2(double) CG_SIMD;
float log10f(float) CG_SIMD; double log10(double) CG_SIMD;
float log1pf(float) CG_SIMD; double log1p(double) CG_SIMD;
float sinf(float) CG_SIMD; double sin(double) CG_SIMD;
float cosf(float) CG_SIMD; double cos(double) CG_SIMD;
float tanf(float) CG_SIMD; double tan(double) CG_SIMD;
float asinf(float) CG_SIMD; double asin(double) CG_SIMD;
float acosf(float) CG_SIMD; double acos(double) CG_SIMD;
float atanf(float) CG_SIMD; double atan(double) CG_SIMD;
float sinhf(float) CG_SIMD; double sinh(double) CG_SIMD;
float coshf(float) CG_SIMD; double cosh(double) CG_SIMD;
float tanhf(float) CG_SIMD; double tanh(double) CG_SIMD;
float erff(float) CG_SIMD; double erf(double) CG_SIMD;
float erfcf(float) CG_SIMD; double erfc(double) CG_SIMD;
#endif

/* ---------------------------------------------------------------- n-d driver */

typedef struct { uint64_t w[2]; } cg_bytes16_t;     /* a complex128 item */

typedef void (*cg_inner_fn)(char** p, const cg_index* s, cg_index n, int op);

typedef struct {
    int nops, ndim;
    cg_index shape[CG_MAX_DIMS];
    cg_index strides[3][CG_MAX_DIMS];   /* elements */
    cg_index itemsize[3];
    int copy;                           /* the op only moves items (cg_unary's copies) */
} cg_iter;

/* Drop size-1 dims and merge dims that are contiguous with their inner neighbour
 * in every operand. Returns 0 if the space is empty. */
static int cg_iter_init(cg_iter* it, int nops, int ndim, const cg_index* shape,
                        const cg_index* const* strides) {
    int d, k, nd = 0;
    it->nops = nops;
    for (d = 0; d < ndim; d++) {
        if (shape[d] == 0) return 0;
        if (shape[d] == 1) continue;
        it->shape[nd] = shape[d];
        for (k = 0; k < nops; k++) it->strides[k][nd] = strides[k][d];
        nd++;
    }
    if (nd == 0) {  /* a single element */
        it->shape[0] = 1;
        for (k = 0; k < nops; k++) it->strides[k][0] = 0;
        nd = 1;
    }
    /* merge from the inside out */
    int out = nd - 1;
    cg_index sh[CG_MAX_DIMS], st[3][CG_MAX_DIMS];
    sh[out] = it->shape[nd - 1];
    for (k = 0; k < nops; k++) st[k][out] = it->strides[k][nd - 1];
    for (d = nd - 2; d >= 0; d--) {
        int can = 1;
        for (k = 0; k < nops; k++)
            if (it->strides[k][d] != st[k][out] * sh[out]) { can = 0; break; }
        if (can) {
            sh[out] *= it->shape[d];
        } else {
            out--;
            sh[out] = it->shape[d];
            for (k = 0; k < nops; k++) st[k][out] = it->strides[k][d];
        }
    }
    it->ndim = nd - out;
    for (d = 0; d < it->ndim; d++) {
        it->shape[d] = sh[out + d];
        for (k = 0; k < nops; k++) it->strides[k][d] = st[k][out + d];
    }
    return 1;
}

/* Run outer indices [begin, end) of the iterator; the innermost dim is the inner loop. */
static void cg_iter_range(const cg_iter* it, char** base, cg_inner_fn fn, int op,
                          cg_index begin, cg_index end) {
    int nd = it->ndim, nops = it->nops, k, d;
    cg_index idx[CG_MAX_DIMS];
    cg_index step[3][CG_MAX_DIMS];    /* bytes per step along each outer dim */
    char* p[3];
    char* q[3];
    cg_index inner_s[3];
    cg_index n = it->shape[nd - 1];
    for (k = 0; k < nops; k++) {
        inner_s[k] = it->strides[k][nd - 1];
        for (d = 0; d < nd - 1; d++) step[k][d] = it->strides[k][d] * it->itemsize[k];
    }
    /* multi-index and pointers of `begin` over the outer dims */
    cg_index rem = begin;
    for (d = nd - 2; d >= 0; d--) { idx[d] = rem % it->shape[d]; rem /= it->shape[d]; }
    for (k = 0; k < nops; k++) {
        p[k] = base[k];
        for (d = 0; d < nd - 1; d++) p[k] += idx[d] * step[k][d];
    }
    /* A copy of contiguous rows is a memcpy per row, without the inner loop's
     * dispatch: rows are often short (a transposing copy of attention heads moves
     * rows of 16 values), where that dispatch cost more than the copy. */
    size_t row_bytes = it->copy && nops == 2 && inner_s[0] == 1 && inner_s[1] == 1
                       ? (size_t)(n * it->itemsize[0]) : 0;
    /* Then each row's pointers follow from the last one's: one add per operand,
     * and a carry into the next dim out when a dim wraps. */
    for (cg_index o = begin; o < end; o++) {
        if (row_bytes) {
            memcpy(p[0], p[1], row_bytes);
        } else {
            for (k = 0; k < nops; k++) q[k] = p[k];
            fn(q, inner_s, n, op);
        }
        for (d = nd - 2; d >= 0; d--) {
            if (++idx[d] < it->shape[d]) {
                for (k = 0; k < nops; k++) p[k] += step[k][d];
                break;
            }
            idx[d] = 0;
            for (k = 0; k < nops; k++) p[k] -= (it->shape[d] - 1) * step[k][d];
        }
    }
}

/* One parallel run: chunk c covers outer rows [c*outer/nchunks, ...), or, for a
 * single long row, a 64-element-aligned piece of it. */
typedef struct {
    const cg_iter* it;
    char** base;
    cg_inner_fn fn;
    int op, nchunks;
    cg_index chunk;      /* elements per chunk when outer == 1, else 0 */
} cg_run_job;

static void cg_run_chunk(void* arg, int c) {
    const cg_run_job* j = (const cg_run_job*)arg;
    const cg_iter* it = j->it;
    if (j->chunk) {
        cg_index n = it->shape[0], start = c * j->chunk;
        if (start >= n) return;
        cg_index len = n - start < j->chunk ? n - start : j->chunk;
        cg_index inner_s[3];
        char* p[3];
        for (int k = 0; k < it->nops; k++) {
            inner_s[k] = it->strides[k][0];
            p[k] = j->base[k] + start * inner_s[k] * it->itemsize[k];
        }
        j->fn(p, inner_s, len, j->op);
    } else {
        cg_index outer = 1;
        for (int d = 0; d < it->ndim - 1; d++) outer *= it->shape[d];
        cg_iter_range(it, j->base, j->fn, j->op, outer * c / j->nchunks,
                      outer * (c + 1) / j->nchunks);
    }
}

/* Chunks per thread: a few, so a thread that loses its core to another process
 * holds up only a small piece. */
#define CG_CHUNKS_PER_THREAD 4
#define CG_MIN_CHUNK 8192

/* A copy that transposes its two innermost dims (the destination's rows are
 * contiguous, the source's columns are: x.t().contiguous(), a permuted copy)
 * walks the plane in TILE x TILE tiles: each tile's reads and writes stay in L1,
 * where the row-by-row walk read every element from a different cache line. A
 * unit of work is one TILE-row band of one plane. */
#define CG_TILE 32

typedef struct {
    const cg_iter* it;
    char* dst;
    const char* src;
    cg_index bands, units;       /* row bands per plane; bands * planes */
    int nchunks;
} cg_tile_job;

#define TILE_LOOP(T)                                                              \
    for (cg_index c0 = 0; c0 < cols; c0 += CG_TILE) {                             \
        cg_index c1 = c0 + CG_TILE < cols ? c0 + CG_TILE : cols;                  \
        for (cg_index r = r0; r < r1; r++) {                                      \
            T* o = (T*)(d + r * dr);                                              \
            const T* a = (const T*)(sp + r * sr);                                 \
            for (cg_index c = c0; c < c1; c++) o[c] = a[c * sc];                  \
        }                                                                         \
    }

/* 4-byte items (float32, int32) go through 8 x 8 blocks: eight contiguous
 * 8-item reads down the source's columns, transposed in a local block, eight
 * contiguous 8-item writes along the destination's rows; gcc turns the fixed-size
 * loops into vector loads, shuffles and stores. Edges take TILE_LOOP's way. */
#define BLOCK8_LOOP(T)                                                            \
    for (cg_index c0 = 0; c0 < cols; c0 += CG_TILE) {                             \
        cg_index c1 = c0 + CG_TILE < cols ? c0 + CG_TILE : cols;                  \
        cg_index r = r0;                                                          \
        for (; r + 8 <= r1; r += 8) {                                             \
            cg_index c = c0;                                                      \
            for (; c + 8 <= c1; c += 8) {                                         \
                T blk[8][8];                                                      \
                for (int u = 0; u < 8; u++) {                                     \
                    const T* col = (const T*)(sp + r * sr) + (c + u) * sc;        \
                    for (int v = 0; v < 8; v++) blk[v][u] = col[v];              \
                }                                                                 \
                for (int v = 0; v < 8; v++) {                                     \
                    T* o = (T*)(d + (r + v) * dr) + c;                            \
                    for (int u = 0; u < 8; u++) o[u] = blk[v][u];                 \
                }                                                                 \
            }                                                                     \
            for (cg_index v = r; v < r + 8; v++) {                                \
                T* o = (T*)(d + v * dr);                                          \
                const T* a = (const T*)(sp + v * sr);                             \
                for (cg_index cc = c; cc < c1; cc++) o[cc] = a[cc * sc];          \
            }                                                                     \
        }                                                                         \
        for (; r < r1; r++) {                                                     \
            T* o = (T*)(d + r * dr);                                              \
            const T* a = (const T*)(sp + r * sr);                                 \
            for (cg_index c = c0; c < c1; c++) o[c] = a[c * sc];                  \
        }                                                                         \
    }

CG_HOT static void cg_tile_units(const cg_tile_job* j, cg_index u0, cg_index u1) {
    const cg_iter* it = j->it;
    int nd = it->ndim;
    cg_index isz = it->itemsize[0];
    cg_index rows = it->shape[nd - 2], cols = it->shape[nd - 1];
    cg_index dr = it->strides[0][nd - 2] * isz, sr = it->strides[1][nd - 2] * isz;
    cg_index sc = it->strides[1][nd - 1];            /* elements */
    for (cg_index u = u0; u < u1; u++) {
        cg_index plane = u / j->bands, band = u % j->bands;
        char* d = j->dst;
        const char* sp = j->src;
        cg_index rem = plane;
        for (int k = nd - 3; k >= 0; k--) {          /* the plane's offset */
            cg_index i = rem % it->shape[k];
            rem /= it->shape[k];
            d += i * it->strides[0][k] * isz;
            sp += i * it->strides[1][k] * isz;
        }
        cg_index r0 = band * CG_TILE, r1 = r0 + CG_TILE < rows ? r0 + CG_TILE : rows;
        switch (isz) {
        case 1: TILE_LOOP(uint8_t) break;
        case 2: TILE_LOOP(uint16_t) break;
        case 4: BLOCK8_LOOP(uint32_t) break;
        case 8: TILE_LOOP(uint64_t) break;
        default: TILE_LOOP(cg_bytes16_t) break;
        }
    }
}

static void cg_tile_chunk(void* arg, int c) {
    const cg_tile_job* j = (const cg_tile_job*)arg;
    cg_tile_units(j, j->units * c / j->nchunks, j->units * (c + 1) / j->nchunks);
}

/* Whether the copy is a transposing one that cg_tile_units takes. */
static int cg_tiles_pay(const cg_iter* it) {
    int nd = it->ndim;
    return it->copy && it->nops == 2 && nd >= 2 && it->strides[0][nd - 1] == 1
           && it->strides[1][nd - 1] != 1 && it->strides[1][nd - 2] == 1
           && it->shape[nd - 1] >= CG_TILE / 2 && it->shape[nd - 2] >= CG_TILE / 2;
}

static void cg_run_tiles(const cg_iter* it, char** base, int family) {
    int nd = it->ndim;
    cg_tile_job j = {it, base[0], base[1], 0, 0, 1};
    cg_index planes = 1;
    for (int k = 0; k < nd - 2; k++) planes *= it->shape[k];
    j.bands = (it->shape[nd - 2] + CG_TILE - 1) / CG_TILE;
    j.units = planes * j.bands;
    cg_index total = planes * it->shape[nd - 2] * it->shape[nd - 1];
    if (cg_parallel_worth(family, total) && j.units > 1) {
        cg_index want = (cg_index)cg_num_threads() * CG_CHUNKS_PER_THREAD;
        j.nchunks = (int)(want < j.units ? want : j.units);
        cg_parallel_chunks(j.nchunks, cg_tile_chunk, &j);
    } else {
        cg_tile_units(&j, 0, j.units);
    }
}

static void cg_run(int nops, char** base, const cg_index* itemsize, int ndim,
                   const cg_index* shape, const cg_index* const* strides,
                   cg_inner_fn fn, int op, int family, int copy) {
    cg_iter it;
    if (!cg_iter_init(&it, nops, ndim, shape, strides)) return;
    for (int k = 0; k < nops; k++) it.itemsize[k] = itemsize[k];
    it.copy = copy;
    if (cg_tiles_pay(&it)) {
        cg_run_tiles(&it, base, family);
        return;
    }
    cg_index n = it.shape[it.ndim - 1];
    cg_index outer = 1;
    for (int d = 0; d < it.ndim - 1; d++) outer *= it.shape[d];
    int nt = cg_num_threads();
    if (!cg_parallel_worth(family, outer * n)) {
        cg_iter_range(&it, base, fn, op, 0, outer);
        return;
    }
    cg_index most = outer * n / CG_MIN_CHUNK;
    cg_index nchunks = (cg_index)nt * CG_CHUNKS_PER_THREAD;
    if (nchunks > most) nchunks = most;
    if (nchunks < 2) {
        cg_iter_range(&it, base, fn, op, 0, outer);
        return;
    }
    cg_run_job job = {&it, base, fn, op, 0, 0};
    if (outer == 1) {
        cg_index chunk = (n + nchunks - 1) / nchunks;
        job.chunk = (chunk + 63) & ~(cg_index)63;
        nchunks = (n + job.chunk - 1) / job.chunk;
    } else if (nchunks > outer) {
        nchunks = outer;
    }
    job.nchunks = (int)nchunks;
    cg_parallel_chunks(job.nchunks, cg_run_chunk, &job);
}

/* ------------------------------------------------------------ binary loops */

/* TO is the output's C type: T itself, or uint8_t for the bool-valued ops. */
#define BIN_BODY_TO(TO, T, EXPR)                                                 \
    TO* o = (TO*)p[0]; const T* a = (const T*)p[1]; const T* b = (const T*)p[2]; \
    cg_index so = s[0], sa = s[1], sb = s[2], i;                                 \
    if (so == 1 && sa == 1 && sb == 1) {                                         \
        for (i = 0; i < n; i++) { T x = a[i], y = b[i]; o[i] = (EXPR); }         \
    } else if (so == 1 && sa == 1 && sb == 0) {                                  \
        T y = b[0];                                                              \
        for (i = 0; i < n; i++) { T x = a[i]; o[i] = (EXPR); }                   \
    } else if (so == 1 && sa == 0 && sb == 1) {                                  \
        T x = a[0];                                                              \
        for (i = 0; i < n; i++) { T y = b[i]; o[i] = (EXPR); }                   \
    } else {                                                                     \
        for (i = 0; i < n; i++) { T x = a[i * sa], y = b[i * sb]; o[i * so] = (EXPR); } \
    }
#define BIN_BODY(T, EXPR) BIN_BODY_TO(T, T, EXPR)

/* NaN-propagating max/min, as torch.maximum/minimum */
#define CG_MAXF(x, y) ((x) != (x) ? (x) : ((y) != (y) ? (y) : ((x) > (y) ? (x) : (y))))
#define CG_MINF(x, y) ((x) != (x) ? (x) : ((y) != (y) ? (y) : ((x) < (y) ? (x) : (y))))

#define DEF_BINARY(SUFFIX, T)                                                    \
    CG_HOT static void bin_##SUFFIX(char** p, const cg_index* s, cg_index n, int op) {  \
        switch (op) {                                                            \
        case CG_ADD: { BIN_BODY(T, x + y) break; }                               \
        case CG_SUB: { BIN_BODY(T, x - y) break; }                               \
        case CG_MUL: { BIN_BODY(T, x * y) break; }                               \
        case CG_DIV: { BIN_BODY(T, x / y) break; }                               \
        case CG_MAXIMUM: { BIN_BODY(T, CG_MAXF(x, y)) break; }                   \
        case CG_MINIMUM: { BIN_BODY(T, CG_MINF(x, y)) break; }                   \
        }                                                                        \
    }

DEF_BINARY(f32, float)
DEF_BINARY(f64, double)
/* Integer division is never done here (true division promotes to float);
 * integer max/min have no NaN, so the float macros are exact for them. */
DEF_BINARY(i32, int32_t)
DEF_BINARY(i64, int64_t)

/* Comparisons and logical ops: a bool (0/1 byte) result. C's float comparisons are
 * IEEE's: every comparison with a NaN is false but `!=`, which is true; a NaN is
 * "true" for the logical ops (it is not zero). */
#define CMP_BODY(T, EXPR) BIN_BODY_TO(uint8_t, T, (uint8_t)(EXPR))
#define DEF_COMPARE(SUFFIX, T)                                                       CG_HOT static void cmp_##SUFFIX(char** p, const cg_index* s, cg_index n, int op) {          switch (op) {                                                                    case CG_EQ: { CMP_BODY(T, x == y) break; }                                       case CG_NE: { CMP_BODY(T, x != y) break; }                                       case CG_LT: { CMP_BODY(T, x < y) break; }                                        case CG_LE: { CMP_BODY(T, x <= y) break; }                                       case CG_GT: { CMP_BODY(T, x > y) break; }                                        case CG_GE: { CMP_BODY(T, x >= y) break; }                                       case CG_LOGICAL_AND: { CMP_BODY(T, (x != 0) & (y != 0)) break; }                 case CG_LOGICAL_OR: { CMP_BODY(T, (x != 0) | (y != 0)) break; }                  case CG_LOGICAL_XOR: { CMP_BODY(T, (x != 0) ^ (y != 0)) break; }                 }                                                                            }

DEF_COMPARE(b8, uint8_t)      /* bool and uint8: bools are stored as 0/1 bytes */
DEF_COMPARE(i8, int8_t)
DEF_COMPARE(i16, int16_t)
DEF_COMPARE(i32, int32_t)
DEF_COMPARE(i64, int64_t)
DEF_COMPARE(f32, float)
DEF_COMPARE(f64, double)

int cg_has_binary(int op, int dtype) {
    if (op < 0 || op >= CG_NUM_BINARY) return 0;
    if (CG_BINARY_BOOL_RESULT(op))
        return dtype >= CG_BOOL && dtype <= CG_FLOAT64 && dtype != CG_FLOAT16 && dtype != CG_BFLOAT16;
    switch (dtype) {
    case CG_FLOAT32: case CG_FLOAT64: return 1;
    case CG_INT32: case CG_INT64: return op != CG_DIV;
    default: return 0;
    }
}

void cg_binary(int op, int dtype, int ndim, const cg_index* shape,
               char* out, const cg_index* so, const char* a, const cg_index* sa,
               const char* b, const cg_index* sb) {
    char* base[3] = {out, (char*)a, (char*)b};
    const cg_index* strides[3] = {so, sa, sb};
    cg_inner_fn fn;
    cg_index isz;
    if (CG_BINARY_BOOL_RESULT(op)) {
        switch (dtype) {
        case CG_BOOL: case CG_UINT8: fn = cmp_b8; isz = 1; break;
        case CG_INT8: fn = cmp_i8; isz = 1; break;
        case CG_INT16: fn = cmp_i16; isz = 2; break;
        case CG_INT32: fn = cmp_i32; isz = 4; break;
        case CG_INT64: fn = cmp_i64; isz = 8; break;
        case CG_FLOAT32: fn = cmp_f32; isz = 4; break;
        case CG_FLOAT64: fn = cmp_f64; isz = 8; break;
        default: return;
        }
        cg_index itemsize[3] = {1, isz, isz};
        cg_run(3, base, itemsize, ndim, shape, strides, fn, op, CG_PAR_BINARY, 0);
        return;
    }
    switch (dtype) {
    case CG_FLOAT32: fn = bin_f32; isz = 4; break;
    case CG_FLOAT64: fn = bin_f64; isz = 8; break;
    case CG_INT32: fn = bin_i32; isz = 4; break;
    case CG_INT64: fn = bin_i64; isz = 8; break;
    default: return;
    }
    cg_index itemsize[3] = {isz, isz, isz};
    cg_run(3, base, itemsize, ndim, shape, strides, fn, op, CG_PAR_BINARY, 0);
}

/* ------------------------------------------------------------- unary loops */

#define UN_BODY(T, EXPR)                                                         \
    T* o = (T*)p[0]; const T* a = (const T*)p[1];                               \
    cg_index so = s[0], sa = s[1], i;                                            \
    if (so == 1 && sa == 1) {                                                    \
        for (i = 0; i < n; i++) { T x = a[i]; o[i] = (EXPR); }                   \
    } else {                                                                     \
        for (i = 0; i < n; i++) { T x = a[i * sa]; o[i * so] = (EXPR); }         \
    }

#define DEF_UNARY(SUFFIX, T, F)                                                  \
    CG_HOT static void un_##SUFFIX(char** p, const cg_index* s, cg_index n, int op) {   \
        const T one = 1, zero = 0;                                               \
        switch (op) {                                                            \
        case CG_COPY: { UN_BODY(T, x) break; }                                   \
        case CG_NEG: { UN_BODY(T, -x) break; }                                   \
        case CG_ABS: { UN_BODY(T, fabs##F(x)) break; }                           \
        case CG_EXP: { UN_BODY(T, exp##F(x)) break; }                            \
        case CG_EXP2: { UN_BODY(T, exp2##F(x)) break; }                          \
        case CG_EXPM1: { UN_BODY(T, expm1##F(x)) break; }                        \
        case CG_LOG: { UN_BODY(T, log##F(x)) break; }                            \
        case CG_LOG2: { UN_BODY(T, log2##F(x)) break; }                          \
        case CG_LOG10: { UN_BODY(T, log10##F(x)) break; }                        \
        case CG_LOG1P: { UN_BODY(T, log1p##F(x)) break; }                        \
        case CG_SQRT: { UN_BODY(T, sqrt##F(x)) break; }                          \
        case CG_RSQRT: { UN_BODY(T, one / sqrt##F(x)) break; }                   \
        case CG_SIN: { UN_BODY(T, sin##F(x)) break; }                            \
        case CG_COS: { UN_BODY(T, cos##F(x)) break; }                            \
        case CG_TAN: { UN_BODY(T, tan##F(x)) break; }                            \
        case CG_ASIN: { UN_BODY(T, asin##F(x)) break; }                          \
        case CG_ACOS: { UN_BODY(T, acos##F(x)) break; }                          \
        case CG_ATAN: { UN_BODY(T, atan##F(x)) break; }                          \
        case CG_SINH: { UN_BODY(T, sinh##F(x)) break; }                          \
        case CG_COSH: { UN_BODY(T, cosh##F(x)) break; }                          \
        case CG_TANH: { UN_BODY(T, tanh##F(x)) break; }                          \
        case CG_SIGMOID: { UN_BODY(T, one / (one + exp##F(-x))) break; }         \
        case CG_RELU: { UN_BODY(T, x < zero ? zero : x) break; }                 \
        case CG_ERF: { UN_BODY(T, erf##F(x)) break; }                            \
        case CG_ERFC: { UN_BODY(T, erfc##F(x)) break; }                          \
        case CG_FLOOR: { UN_BODY(T, floor##F(x)) break; }                        \
        case CG_CEIL: { UN_BODY(T, ceil##F(x)) break; }                          \
        case CG_TRUNC: { UN_BODY(T, trunc##F(x)) break; }                        \
        case CG_ROUND: { UN_BODY(T, nearbyint##F(x)) break; }                    \
        case CG_FRAC: { UN_BODY(T, x - trunc##F(x)) break; }                     \
        case CG_RECIPROCAL: { UN_BODY(T, one / x) break; }                       \
        case CG_SQUARE: { UN_BODY(T, x * x) break; }                             \
        case CG_ASINH: { UN_BODY(T, asinh##F(x)) break; }                        \
        case CG_ACOSH: { UN_BODY(T, acosh##F(x)) break; }                        \
        case CG_ATANH: { UN_BODY(T, atanh##F(x)) break; }                        \
        }                                                                        \
    }

DEF_UNARY(f32, float, f)
DEF_UNARY(f64, double, )

/* Copies of any dtype only move bytes: one loop per item size. */
#define DEF_COPY(BITS)                                                           \
    CG_HOT static void copy_##BITS(char** p, const cg_index* s, cg_index n, int op) {   \
        (void)op; UN_BODY(uint##BITS##_t, x)                                     \
    }
DEF_COPY(8)
DEF_COPY(16)
DEF_COPY(32)
DEF_COPY(64)

/* complex128 items: 16 bytes, moved as a pair of words (cg_bytes16_t) */
CG_HOT static void copy_128(char** p, const cg_index* s, cg_index n, int op) {
    (void)op; UN_BODY(cg_bytes16_t, x)
}

/* Ops whose cost is mostly moving memory use threads later than ops that
 * compute a transcendental function per element. */
static int cg_unary_family(int op) {
    switch (op) {
    case CG_COPY: case CG_NEG: case CG_ABS: case CG_RELU: case CG_FLOOR: case CG_CEIL:
    case CG_TRUNC: case CG_ROUND: case CG_FRAC: case CG_SQUARE: case CG_RECIPROCAL:
    case CG_SQRT: case CG_RSQRT:
        return CG_PAR_UNARY_CHEAP;
    default:
        return CG_PAR_UNARY_MATH;
    }
}

static const int cg_dtype_size[] = {1, 1, 1, 2, 4, 8, 2, 2, 4, 8, 8, 16};

int cg_has_unary(int op, int dtype) {
    if (op < 0 || op >= CG_NUM_UNARY || dtype < 0 || dtype > CG_COMPLEX128) return 0;
    if (op == CG_COPY) return 1;
    return dtype == CG_FLOAT32 || dtype == CG_FLOAT64;
}

void cg_unary(int op, int dtype, int ndim, const cg_index* shape,
              char* out, const cg_index* so, const char* a, const cg_index* sa) {
    char* base[2] = {out, (char*)a};
    const cg_index* strides[2] = {so, sa};
    cg_index isz = cg_dtype_size[dtype];
    cg_index itemsize[2] = {isz, isz};
    cg_inner_fn fn;
    if (op == CG_COPY && dtype != CG_FLOAT32 && dtype != CG_FLOAT64) {
        switch (isz) {
        case 1: fn = copy_8; break;
        case 2: fn = copy_16; break;
        case 4: fn = copy_32; break;
        case 8: fn = copy_64; break;
        default: fn = copy_128; break;
        }
    } else if (dtype == CG_FLOAT32) {
        fn = un_f32;
    } else if (dtype == CG_FLOAT64) {
        fn = un_f64;
    } else {
        return;
    }
    cg_run(2, base, itemsize, ndim, shape, strides, fn, op, cg_unary_family(op), op == CG_COPY);
}
