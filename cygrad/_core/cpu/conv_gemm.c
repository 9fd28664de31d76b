/* 2-d convolution forward and weight gradient as im2col + BLAS, one block of
 * output rows at a time.
 *
 * The unfused route (conv.c's im2col over the whole batch, then a batched
 * product) writes every window column of the batch to memory and streams it
 * back for the product: for a 32-image 16->32 channel 32x32 layer that is 19 MB
 * each way. Here each unit of work (one image's block of output rows) unfolds its
 * windows into a buffer that stays in the core's L2 cache, patch-major
 * (rows = window positions, columns = channel x kernel offset), and multiplies it
 * there at once:
 *
 *   forward:  obuf (Lb, Cout) = buf (Lb, CK) @ W^T, then written transposed
 *             into the (Cout, L) output plane with the bias added;
 *   weight:   dW (Cout, CK) += dy[:, block] (Cout, Lb) @ buf (Lb, CK).
 *
 * These shapes (a tall left operand, contiguous) are the ones OpenBLAS runs
 * fastest (see docs/nn.md). Groups are column blocks of buf and row blocks of W.
 *
 * Units are split over cygrad's pool in contiguous ranges, one range per chunk;
 * BLAS runs on one thread inside them. The weight gradient of each chunk goes to
 * its own partial, summed in chunk order at the end, so a given chunk count
 * always adds in the same order. */
#include <stdlib.h>
#include <string.h>
#include "kernels.h"
#include "isa.h"
#include "conv_gemm.h"

static cg_conv_pool_fn pool = NULL;
static cg_sgemm_fn sgemm = NULL;
static cg_dgemm_fn dgemm = NULL;
static cg_set_threads_fn set_threads = NULL;

void cg_conv_gemm_set(cg_conv_pool_fn run, cg_sgemm_fn s, cg_dgemm_fn d, cg_set_threads_fn t) {
    pool = run;
    sgemm = s;
    dgemm = d;
    set_threads = t;
}

int cg_conv_gemm_ready(void) { return pool != NULL && sgemm != NULL && dgemm != NULL; }

enum { ROW_MAJOR = 101, NO_TRANS = 111, TRANS = 112 };
enum { FORWARD, WEIGHT, INPUT };

/* About this many bytes of window columns per unit: with the output block and W
 * it stays inside a 1 MB L2. */
#define BUF_BYTES (640 * 1024)
/* At most this many chunks (partial weight gradients). */
#define MAX_CHUNKS 64

typedef struct {
    const cg_conv_geom* g;
    int f64;
    int mode;                /* FORWARD, WEIGHT or INPUT (gradients) */
    const char* x;           /* (N, C, H, W), strides g->xs (elements) */
    const char* w;           /* (Cout, C/groups * K) contiguous */
    const char* bias;        /* (Cout,) or NULL */
    const char* dy;          /* (N, Cout, L) contiguous (weight gradient) */
    char* out;               /* forward: (N, Cout, L); weight: (Cout, CK); input: (N, C, H, W) */
    char** partial;          /* weight: one (Cout, CK) result per chunk (chunk 0: out) */
    cg_index rows;           /* output rows per unit */
    cg_index blocks;         /* units per image */
    cg_index units;
    cg_index isz, L, CK;     /* element size, positions per image, columns per position */
    cg_index cog, ckg;       /* output channels and columns per group */
    cg_index wsize;          /* elements of the weight */
    int nchunks;
    int failed;              /* a chunk could not get its buffer */
} job;

/* The window columns of output rows [oh0, oh1) of one image, patch-major with
 * each row ordered (group, kh, kw, channel of the group):
 *   buf[(oh - oh0) * OW + ow][((gi * KH + kh) * KW + kw) * Cg + cg]
 *     <-> img[h - hlo][u][gi * Cg + cg],  h = oh*sh - ph + kh*dh,  u = ow*sw - pw + kw*dw,
 * where img holds the image's rows [hlo, hhi) transposed to (h, w, c), so that
 * each window row is a run of channels (KW * C values in a row when there is one
 * group and no dilation): copies, not a gather per element. `fold` 0 fills buf
 * from img (the unfold; zero in the padding), 1 adds buf onto img (its adjoint;
 * entries in the padding are dropped). */
#define WINDOW_RUN(e, r, n, inside)                                                    \
    do {                                                                               \
        if (fold) {                                                                    \
            if (inside) for (cg_index i = 0; i < (n); i++) (r)[i] += (e)[i];           \
        } else if (inside) {                                                           \
            for (cg_index i = 0; i < (n); i++) (e)[i] = (r)[i];                        \
        } else {                                                                       \
            for (cg_index i = 0; i < (n); i++) (e)[i] = 0;                             \
        }                                                                              \
    } while (0)

#define DEF_WINDOWS(NAME, T)                                                           \
    CG_HOT NO_MEMCPY static void NAME(const cg_conv_geom* g, cg_index oh0, cg_index oh1, \
                                      cg_index hlo, cg_index hhi, T* restrict img,     \
                                      T* restrict buf, int fold) {                     \
        const cg_index C = g->c, W = g->w, OW = g->ow, G = g->groups;                  \
        const cg_index KH = g->kh, KW = g->kw, Cg = C / G, CK = C * KH * KW;           \
        const cg_index sh = g->sh, sw = g->sw, dh = g->dh, dw = g->dw;                 \
        for (cg_index oh = oh0; oh < oh1; oh++) {                                      \
            T* restrict d = buf + (oh - oh0) * OW * CK;                                \
            for (cg_index ow = 0; ow < OW; ow++, d += CK) {                            \
                const cg_index w0 = ow * sw - g->pw;                                   \
                if (G == 1 && dw == 1 && w0 >= 0 && w0 + KW <= W) {                    \
                    for (cg_index kh = 0; kh < KH; kh++) {                             \
                        const cg_index h = oh * sh - g->ph + kh * dh;                  \
                        const int in = h >= hlo && h < hhi;                            \
                        T* restrict r = img + ((in ? h - hlo : 0) * W + w0) * C;       \
                        WINDOW_RUN(d + kh * KW * C, r, KW * C, in);                    \
                    }                                                                  \
                    continue;                                                          \
                }                                                                      \
                for (cg_index gi = 0; gi < G; gi++)                                    \
                    for (cg_index kh = 0; kh < KH; kh++) {                             \
                        const cg_index h = oh * sh - g->ph + kh * dh;                  \
                        for (cg_index kw = 0; kw < KW; kw++) {                         \
                            const cg_index u = w0 + kw * dw;                           \
                            const int in = h >= hlo && h < hhi && u >= 0 && u < W;     \
                            T* restrict r = img + ((in ? h - hlo : 0) * W + (in ? u : 0)) * C \
                                            + gi * Cg;                                 \
                            WINDOW_RUN(d + ((gi * KH + kh) * KW + kw) * Cg, r, Cg, in); \
                        }                                                              \
                    }                                                                  \
            }                                                                          \
        }                                                                              \
    }

/* The unfold of rows [oh0, oh1) of image x (strides g->xs): the input rows its
 * windows read transposed into xt, then the windows copied into buf. */
#define DEF_UNFOLD(NAME, WINDOWS, T)                                                   \
    CG_HOT static void NAME(const cg_conv_geom* g, const T* restrict x, cg_index oh0,  \
                            cg_index oh1, T* restrict xt, T* restrict buf) {           \
        const cg_index C = g->c, W = g->w;                                             \
        const cg_index xc = g->xs[1], xh = g->xs[2], xw = g->xs[3];                    \
        cg_index hlo = oh0 * g->sh - g->ph;                                            \
        cg_index hhi = (oh1 - 1) * g->sh - g->ph + (g->kh - 1) * g->dh + 1;            \
        if (hlo < 0) hlo = 0;                                                          \
        if (hhi > g->h) hhi = g->h;                                                    \
        for (cg_index h = hlo; h < hhi; h++)                                           \
            for (cg_index c = 0; c < C; c++) {                                         \
                const T* restrict s = x + c * xc + h * xh;                             \
                T* restrict d = xt + (h - hlo) * W * C + c;                            \
                for (cg_index u = 0; u < W; u++) d[u * C] = s[u * xw];                 \
            }                                                                          \
        WINDOWS(g, oh0, oh1, hlo, hhi, xt, buf, 0);                                    \
    }

/* The copies are a few dozen values: inline loops, not a memcpy call each
 * (gcc turns copy loops into memcpy calls otherwise). */
#if defined(__GNUC__) && !defined(__clang__)
#define NO_MEMCPY __attribute__((optimize("no-tree-loop-distribute-patterns")))
#else
#define NO_MEMCPY
#endif

DEF_WINDOWS(windows_f32, float)
DEF_WINDOWS(windows_f64, double)
DEF_UNFOLD(unfold_f32, windows_f32, float)
DEF_UNFOLD(unfold_f64, windows_f64, double)

/* Between the weight's layout (cout, cg, kh * kw) and the columns' order
 * (cout, kh * kw, cg); `to_cols` picks the direction. */
#define DEF_REORDER(NAME, T)                                                           \
    static void NAME(const T* restrict src, T* restrict dst, cg_index cout, cg_index cg, \
                     cg_index k, int to_cols) {                                        \
        for (cg_index o = 0; o < cout; o++)                                            \
            for (cg_index c = 0; c < cg; c++)                                          \
                for (cg_index j = 0; j < k; j++) {                                     \
                    const cg_index a = (o * cg + c) * k + j, b = (o * k + j) * cg + c; \
                    if (to_cols) dst[b] = src[a]; else dst[a] = src[b];                \
                }                                                                      \
    }

DEF_REORDER(reorder_f32, float)
DEF_REORDER(reorder_f64, double)

/* out[co][l0 + j] = obuf[j][co] + bias[co] for j < lb, in tiles of TILE
 * positions: a tile's rows of obuf stay in L1 while each output row gets TILE
 * contiguous values (walking all of obuf per output channel was 40% of the
 * forward's time outside BLAS). */
#define TILE 16
#define DEF_SCATTER(NAME, T)                                                           \
    CG_HOT static void NAME(const T* restrict obuf, cg_index lb, cg_index cout,        \
                            const T* restrict bias, T* restrict out, cg_index L) {     \
        for (cg_index j0 = 0; j0 < lb; j0 += TILE) {                                   \
            const cg_index j1 = j0 + TILE < lb ? j0 + TILE : lb;                       \
            for (cg_index co = 0; co < cout; co++) {                                   \
                const T b = bias ? bias[co] : (T)0;                                    \
                T* restrict o = out + co * L;                                          \
                for (cg_index j = j0; j < j1; j++) o[j] = obuf[j * cout + co] + b;     \
            }                                                                          \
        }                                                                              \
    }

DEF_SCATTER(scatter_f32, float)
DEF_SCATTER(scatter_f64, double)

/* C (m x n, ldc) = alpha-free op(A) @ op(B) + beta * C in the job's dtype. */
static void gemm(int f64, int ta, int tb, cg_index m, cg_index n, cg_index k, const char* a,
                 cg_index lda, const char* b, cg_index ldb, int beta, char* c, cg_index ldc) {
    if (f64)
        dgemm(ROW_MAJOR, ta, tb, m, n, k, 1.0, (const double*)a, lda, (const double*)b,
              ldb, beta ? 1.0 : 0.0, (double*)c, ldc);
    else
        sgemm(ROW_MAJOR, ta, tb, m, n, k, 1.0f, (const float*)a, lda, (const float*)b,
              ldb, beta ? 1.0f : 0.0f, (float*)c, ldc);
}

static void unit_range(const job* j, int chunk, cg_index* lo, cg_index* hi) {
    *lo = j->units * chunk / j->nchunks;
    *hi = j->units * (chunk + 1) / j->nchunks;
}

/* Input rows one unit reads, at most. */
static cg_index input_rows(const job* j) {
    const cg_conv_geom* g = j->g;
    const cg_index r = (j->rows - 1) * g->sh + (g->kh - 1) * g->dh + 1;
    return r < g->h ? r : g->h;
}

/* A chunk's buffers: the transposed input rows (for the input gradient, the
 * whole transposed image), the columns and (forward) the output block, in one
 * allocation. */
static char* buffers(const job* j, int with_out, char** xt, char** cols, char** out) {
    const cg_conv_geom* g = j->g;
    const cg_index isz = j->f64 ? 8 : 4, lmax = j->rows * g->ow;
    const cg_index nxt = (j->mode == INPUT ? g->h : input_rows(j)) * g->w * g->c;
    const cg_index ncols = lmax * g->c * g->kh * g->kw;
    char* p = malloc((size_t)((nxt + ncols + (with_out ? lmax * g->cout : 0)) * isz));
    if (!p) return NULL;
    *xt = p;
    *cols = p + nxt * isz;
    if (with_out) *out = *cols + ncols * isz;
    return p;
}

/* Unit u: image *n, output rows [*oh0, *oh1). */
static void unit_rows(const job* j, cg_index u, cg_index* n, cg_index* oh0, cg_index* oh1) {
    *n = u / j->blocks;
    *oh0 = (u % j->blocks) * j->rows;
    *oh1 = *oh0 + j->rows < j->g->oh ? *oh0 + j->rows : j->g->oh;
}

static void unfold(const job* j, cg_index n, cg_index oh0, cg_index oh1, char* xt, char* buf) {
    const cg_conv_geom* g = j->g;
    if (j->f64)
        unfold_f64(g, (const double*)j->x + n * g->xs[0], oh0, oh1, (double*)xt, (double*)buf);
    else
        unfold_f32(g, (const float*)j->x + n * g->xs[0], oh0, oh1, (float*)xt, (float*)buf);
}

/* The forward's products of one unit (its columns in buf) and their transposed
 * write into the output, with the bias. */
static void forward_unit(const job* j, cg_index n, cg_index oh0, cg_index lb, const char* buf,
                         char* obuf) {
    const cg_conv_geom* g = j->g;
    const cg_index isz = j->isz, cog = j->cog, ckg = j->ckg;
    for (cg_index gi = 0; gi < g->groups; gi++)
        gemm(j->f64, NO_TRANS, TRANS, lb, cog, ckg, buf + gi * ckg * isz, j->CK,
             j->w + gi * cog * ckg * isz, ckg, 0, obuf + gi * cog * isz, g->cout);
    char* o = j->out + (n * g->cout * j->L + oh0 * g->ow) * isz;
    if (j->f64)
        scatter_f64((const double*)obuf, lb, g->cout, (const double*)j->bias, (double*)o, j->L);
    else
        scatter_f32((const float*)obuf, lb, g->cout, (const float*)j->bias, (float*)o, j->L);
}

/* The weight gradient's products of one unit, added to dst unless `first`. */
static void weight_unit(const job* j, cg_index n, cg_index oh0, cg_index lb, const char* buf,
                        char* dst, int first) {
    const cg_conv_geom* g = j->g;
    const cg_index isz = j->isz, cog = j->cog, ckg = j->ckg;
    for (cg_index gi = 0; gi < g->groups; gi++)
        gemm(j->f64, NO_TRANS, NO_TRANS, cog, ckg, lb,
             j->dy + ((n * g->cout + gi * cog) * j->L + oh0 * g->ow) * isz, j->L,
             buf + gi * ckg * isz, j->CK, !first, dst + gi * cog * ckg * isz, ckg);
}

/* The input gradient's products of one unit: its columns' gradient
 * buf (Lb, CK) = dy[:, block]^T @ W, added back onto the transposed image acc. */
static void input_unit(const job* j, cg_index n, cg_index oh0, cg_index oh1, char* buf,
                       char* acc) {
    const cg_conv_geom* g = j->g;
    const cg_index isz = j->isz, cog = j->cog, ckg = j->ckg, lb = (oh1 - oh0) * g->ow;
    for (cg_index gi = 0; gi < g->groups; gi++)
        gemm(j->f64, TRANS, NO_TRANS, lb, ckg, cog,
             j->dy + ((n * g->cout + gi * cog) * j->L + oh0 * g->ow) * isz, j->L,
             j->w + gi * cog * ckg * isz, ckg, 0, buf + gi * ckg * isz, j->CK);
    if (j->f64)
        windows_f64(g, oh0, oh1, 0, g->h, (double*)acc, (double*)buf, 1);
    else
        windows_f32(g, oh0, oh1, 0, g->h, (float*)acc, (float*)buf, 1);
}

/* Image n of the input gradient: every block of its rows folded onto acc, which
 * is then written transposed into the (C, H, W) output plane. */
static void input_image(const job* j, cg_index n, char* acc, char* buf) {
    const cg_conv_geom* g = j->g;
    const cg_index hw = g->h * g->w;
    memset(acc, 0, (size_t)(hw * g->c * j->isz));
    for (cg_index b = 0; b < j->blocks; b++) {
        const cg_index oh0 = b * j->rows, oh1 = oh0 + j->rows < g->oh ? oh0 + j->rows : g->oh;
        input_unit(j, n, oh0, oh1, buf, acc);
    }
    char* o = j->out + n * g->c * hw * j->isz;
    if (j->f64)
        scatter_f64((const double*)acc, hw, g->c, NULL, (double*)o, hw);
    else
        scatter_f32((const float*)acc, hw, g->c, NULL, (float*)o, hw);
}

/* Chunk `chunk` of the job: its range of units (whole images for the input
 * gradient, whose row blocks overlap in the image), each unfolded into the
 * chunk's buffer, or folded from it, and multiplied there. */
static void run_chunk(void* p, int chunk) {
    job* j = (job*)p;
    cg_index lo, hi, n, oh0, oh1;
    unit_range(j, chunk, &lo, &hi);
    if (lo >= hi) {
        if (j->mode == WEIGHT)
            memset(j->partial[chunk], 0, (size_t)(j->g->cout * j->ckg * j->isz));
        return;
    }
    char *xt, *buf, *obuf = NULL;
    char* mem = buffers(j, j->mode == FORWARD, &xt, &buf, &obuf);
    if (!mem) { j->failed = 1; return; }
    for (cg_index u = lo; u < hi; u++) {
        if (j->mode == INPUT) {
            input_image(j, u, xt, buf);
            continue;
        }
        unit_rows(j, u, &n, &oh0, &oh1);
        const cg_index lb = (oh1 - oh0) * j->g->ow;
        unfold(j, n, oh0, oh1, xt, buf);
        if (j->mode == WEIGHT)
            weight_unit(j, n, oh0, lb, buf, j->partial[chunk], u == lo);
        else
            forward_unit(j, n, oh0, lb, buf, obuf);
    }
    free(mem);
}

/* Output rows per unit so that a unit's columns take about BUF_BYTES. */
static cg_index rows_per_unit(const cg_conv_geom* g, int f64) {
    if (g->oh < 1) return 1;
    const cg_index row = g->ow * g->c * g->kh * g->kw * (f64 ? 8 : 4);
    cg_index blocks = (g->oh * row + BUF_BYTES - 1) / BUF_BYTES;
    if (blocks < 1) blocks = 1;
    if (blocks > g->oh) blocks = g->oh;
    return (g->oh + blocks - 1) / blocks;
}

static void setup(job* j, const cg_conv_geom* g, int f64, int threads) {
    j->g = g;
    j->f64 = f64;
    j->rows = rows_per_unit(g, f64);
    j->blocks = (g->oh + j->rows - 1) / j->rows;
    j->units = g->n * j->blocks;
    j->isz = f64 ? 8 : 4;
    j->L = g->oh * g->ow;
    j->CK = g->c * g->kh * g->kw;
    j->cog = g->cout / g->groups;
    j->ckg = j->CK / g->groups;
    j->wsize = g->cout * j->ckg;
    j->nchunks = threads > 1 ? (j->units < threads ? (int)j->units : threads) : 1;
    if (j->nchunks > MAX_CHUNKS) j->nchunks = MAX_CHUNKS;
}

static void run(job* j, int threads) {
    if (j->nchunks <= 1) {
        run_chunk(j, 0);
        return;
    }
    /* BLAS on one thread inside the pool's chunks (cygrad/_threading.py's policy) */
    if (set_threads) set_threads(1);
    pool(j->nchunks, run_chunk, j);
    if (set_threads) set_threads(threads);
}

static void reorder(int f64, const char* src, char* dst, const cg_conv_geom* g, int to_cols) {
    const cg_index cg = g->c / g->groups, k = g->kh * g->kw;
    if (f64) reorder_f64((const double*)src, (double*)dst, g->cout, cg, k, to_cols);
    else reorder_f32((const float*)src, (float*)dst, g->cout, cg, k, to_cols);
}

/* The weight reordered to the columns' order (malloc'ed; NULL when out of memory). */
static char* weight_as_cols(const job* j, const char* w) {
    char* wc = malloc((size_t)(j->wsize * j->isz + 1));
    if (wc) reorder(j->f64, w, wc, j->g, 1);
    return wc;
}

int cg_conv2d_gemm_forward(const cg_conv_geom* g, int f64, const char* x, const char* w,
                           const char* bias, char* out, int threads) {
    job j;
    memset(&j, 0, sizeof j);
    setup(&j, g, f64, threads);
    if (j.units == 0 || g->cout == 0 || j.L == 0) return 0;
    if (j.CK == 0) {         /* no input channels: the output is the bias */
        for (cg_index i = 0; i < g->n * g->cout * j.L; i++) {
            const cg_index co = i / j.L % g->cout;
            if (f64) ((double*)out)[i] = bias ? ((const double*)bias)[co] : 0.0;
            else ((float*)out)[i] = bias ? ((const float*)bias)[co] : 0.0f;
        }
        return 0;
    }
    char* wc = weight_as_cols(&j, w);
    if (!wc) return -1;
    j.x = x;
    j.w = wc;
    j.bias = bias;
    j.out = out;
    run(&j, threads);
    free(wc);
    return j.failed ? -1 : 0;
}

int cg_conv2d_gemm_weight(const cg_conv_geom* g, int f64, const char* x, const char* dy,
                          char* out, int threads) {
    job j;
    memset(&j, 0, sizeof j);
    setup(&j, g, f64, threads);
    const cg_index isz = j.isz, size = j.wsize;
    if (size == 0) return 0;
    if (j.units == 0 || j.L == 0) {
        memset(out, 0, (size_t)(size * isz));
        return 0;
    }
    char* parts[MAX_CHUNKS];
    int got = 0, ok = 1;
    for (; got < j.nchunks && ok; got++) {
        parts[got] = malloc((size_t)(size * isz));
        ok = parts[got] != NULL;
    }
    if (ok) {
        j.x = x;
        j.dy = dy;
        j.partial = parts;
        j.mode = WEIGHT;
        run(&j, threads);
        for (int i = 1; i < j.nchunks; i++) {
            if (f64) {
                double* o = (double*)parts[0];
                const double* s = (const double*)parts[i];
                for (cg_index e = 0; e < size; e++) o[e] += s[e];
            } else {
                float* o = (float*)parts[0];
                const float* s = (const float*)parts[i];
                for (cg_index e = 0; e < size; e++) o[e] += s[e];
            }
        }
        reorder(f64, parts[0], out, g, 0);
    }
    for (int i = 0; i < got; i++) if (parts[i]) free(parts[i]);
    return ok && !j.failed ? 0 : -1;
}

int cg_conv2d_gemm_input(const cg_conv_geom* g, int f64, const char* dy, const char* w,
                         char* out, int threads) {
    job j;
    memset(&j, 0, sizeof j);
    setup(&j, g, f64, threads);
    if (g->n * g->c * g->h * g->w == 0) return 0;
    if (j.units == 0 || j.wsize == 0 || j.L == 0) {
        memset(out, 0, (size_t)(g->n * g->c * g->h * g->w * j.isz));
        return 0;
    }
    char* wc = weight_as_cols(&j, w);
    if (!wc) return -1;
    j.mode = INPUT;
    j.units = g->n;          /* whole images: their row blocks overlap in the input */
    j.nchunks = threads > 1 ? (g->n < threads ? (int)g->n : threads) : 1;
    if (j.nchunks > MAX_CHUNKS) j.nchunks = MAX_CHUNKS;
    j.dy = dy;
    j.w = wc;
    j.out = out;
    run(&j, threads);
    free(wc);
    return j.failed ? -1 : 0;
}
