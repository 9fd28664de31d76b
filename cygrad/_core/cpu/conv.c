/* Sliding-window kernels: im2col / col2im (convolution, unfold, fold) and max
 * pooling with its gradient scatter, over any number of spatial dims.
 *
 * Every kernel works plane by plane (one (n, c) pair of an (N, C, *spatial)
 * tensor): planes never share output memory, so chunks of planes run on the
 * pool's threads without locks, and the result does not depend on how they
 * were split.
 *
 * Padding is never materialised: a window position outside the input reads as
 * zero (im2col), is dropped (col2im) or is skipped (max pooling). Along the
 * innermost spatial dim the in-bounds range of window positions is computed
 * once per row, so the inner loops have no bounds tests. All offsets are
 * computed as integers and only in-bounds ones become pointers. */
#include <math.h>
#include <stdatomic.h>
#include <string.h>
#include "kernels.h"

static cg_conv_pool_fn pool_run = NULL;
cg_index cg_conv_parallel_min = 1 << 15;

void cg_conv_set_pool(cg_conv_pool_fn run) { pool_run = run; }

/* ------------------------------------------------------------ plane chunks */

typedef void (*plane_fn)(const void* ctx, cg_index plane);

typedef struct {
    plane_fn fn;
    const void* ctx;
    cg_index planes;
    int nchunks;
} plane_job;

static void plane_chunk(void* p, int chunk) {
    const plane_job* j = (const plane_job*)p;
    cg_index begin = j->planes * chunk / j->nchunks;
    cg_index end = j->planes * (chunk + 1) / j->nchunks;
    for (cg_index q = begin; q < end; q++) j->fn(j->ctx, q);
}

/* fn(ctx, q) for every plane q; on the pool when there is `work` enough. */
static void for_planes(cg_index planes, cg_index work, plane_fn fn, const void* ctx) {
    plane_job job = {fn, ctx, planes, 1};
    if (pool_run != NULL && work >= cg_conv_parallel_min && planes > 1)
        job.nchunks = planes < 64 ? (int)planes : 64;
    if (job.nchunks == 1) {
        for (cg_index q = 0; q < planes; q++) fn(ctx, q);
    } else {
        pool_run(job.nchunks, plane_chunk, &job);
    }
}

static cg_index prod(int n, const cg_index* v) {
    cg_index p = 1;
    for (int i = 0; i < n; i++) p *= v[i];
    return p;
}

/* Window positions o in [lo, hi) of one dim whose read o * stride + off lies in
 * [0, size) (off = k * dilation - pad_before). */
static inline void inner_range(cg_index size, cg_index stride, cg_index off, cg_index out,
                               cg_index* lo, cg_index* hi) {
    cg_index l = off < 0 ? (-off + stride - 1) / stride : 0;
    cg_index h = size - off <= 0 ? 0 : (size - off + stride - 1) / stride;
    if (h > out) h = out;
    if (l > h) l = h;
    *lo = l;
    *hi = h;
}

/* Advance a row-major counter over dims [0, n) of `shape`. */
static inline void bump(int n, cg_index* cnt, const cg_index* shape) {
    for (int d = n - 1; d >= 0; d--) {
        if (++cnt[d] < shape[d]) return;
        cnt[d] = 0;
    }
}

/* Whether every read of the row whose outer window positions (all dims but the
 * last) are oo lies inside the input; if so *base is its offset along those
 * dims, with `st` their strides in the source or destination (any sign). */
static inline int row_base(const cg_window* w, const cg_index* oo, const cg_index* off,
                           const cg_index* st, cg_index* base) {
    cg_index b = 0;
    for (int d = 0; d < w->nsp - 1; d++) {
        cg_index pos = oo[d] * w->stride[d] + off[d];
        if (pos < 0 || pos >= w->size[d]) return 0;
        b += pos * st[d];
    }
    *base = b;
    return 1;
}

/* ------------------------------------------------------------------ im2col */

typedef struct {
    const cg_window* w;
    int itemsize;
    const char* x;
    const cg_index* xs;      /* strides of x, (N, C, *spatial), in elements */
    char* cols;
    cg_index cn, cck;        /* strides of cols along N and C * K (L's is 1) */
    cg_index nblocks;        /* 0, or image blocks per channel-major job */
} im2col_ctx;

/* The images [n0, n1) and the channel c of job q. A job is one (n, c) plane,
 * or, when the columns are channel-major ((C * K, N, L) in memory), one channel
 * of a block of images: then each kernel offset's rows for those images are one
 * contiguous block, written (or read) in order as a single stream, while the
 * block's input planes of that channel stay in cache across the kernel offsets. */
static inline void job_planes(const cg_window* w, cg_index nblocks, cg_index q, cg_index* n0,
                              cg_index* n1, cg_index* c) {
    if (nblocks) {       /* channel-major: the images in nblocks blocks per channel */
        cg_index b = q % nblocks;
        *c = q / nblocks;
        *n0 = w->n * b / nblocks;
        *n1 = w->n * (b + 1) / nblocks;
    } else {
        *n0 = q / w->c;
        *n1 = *n0 + 1;
        *c = q % w->c;
    }
}

/* Blocks of images per channel for channel-major jobs: enough jobs (8) to share
 * among threads even when there are few channels. */
static cg_index image_blocks(const cg_window* w) {
    cg_index b = w->c >= 8 ? 1 : (8 + w->c - 1) / w->c;
    return b < w->n ? b : (w->n > 0 ? w->n : 1);
}

/* One typed copy per element size: the rows are short (a feature map's width), so
 * plain loops the compiler vectorises beat a memcpy call per row. */
#define DEF_IM2COL(NAME, T)                                                            \
    CG_HOT static void NAME(const void* p, cg_index q) {                               \
        const im2col_ctx* c = (const im2col_ctx*)p;                                    \
        const cg_window* w = c->w;                                                     \
        const int nd = w->nsp, last = nd - 1;                                          \
        const cg_index K = prod(nd, w->kernel), L = prod(nd, w->out), olast = w->out[last]; \
        const cg_index rows = L / olast;                                               \
        const cg_index* sst = c->xs + 2;                                               \
        cg_index n0, n1, ch;                                                           \
        job_planes(w, c->nblocks, q, &n0, &n1, &ch);                                   \
        const cg_index step = w->stride[last] * sst[last];                             \
        cg_index kk[CG_MAX_DIMS] = {0}, oo[CG_MAX_DIMS], off[CG_MAX_DIMS];             \
        for (cg_index k = 0; k < K; k++, bump(nd, kk, w->kernel)) {                    \
          for (int d = 0; d < nd; d++) off[d] = kk[d] * w->dilation[d] - w->pad[d];    \
          cg_index lo, hi;                                                             \
          inner_range(w->size[last], w->stride[last], off[last], olast, &lo, &hi);     \
          const cg_index first = off[last] * sst[last];                                \
          for (cg_index n = n0; n < n1; n++) {                                         \
            const T* restrict src = (const T*)c->x + n * c->xs[0] + ch * c->xs[1];     \
            T* restrict dst = (T*)c->cols + n * c->cn + (ch * K + k) * c->cck;         \
            memset(oo, 0, sizeof oo);                                                  \
            for (cg_index r = 0; r < rows; r++, bump(last, oo, w->out), dst += olast) { \
                cg_index base;                                                         \
                if (!row_base(w, oo, off, sst, &base)) {                               \
                    for (cg_index o = 0; o < olast; o++) dst[o] = 0;                   \
                    continue;                                                          \
                }                                                                      \
                const T* restrict s = src + base + first;                              \
                for (cg_index o = 0; o < lo; o++) dst[o] = 0;                          \
                if (step == 1) {                                                       \
                    for (cg_index o = lo; o < hi; o++) dst[o] = s[o];                  \
                } else {                                                               \
                    for (cg_index o = lo; o < hi; o++) dst[o] = s[o * step];           \
                }                                                                      \
                for (cg_index o = hi; o < olast; o++) dst[o] = 0;                      \
            }                                                                          \
          }                                                                            \
        }                                                                              \
    }

/* The 2-d case (1-d runs as height 1) without per-row bookkeeping: for each
 * kernel offset the valid window rows and columns are two ranges, so the rows
 * outside them are zero blocks and the rest are plain strided copies. Feature
 * maps are small (rows of 7-32 elements), so this overhead is what counts. */
#define DEF_IM2COL_2D(NAME, T)                                                         \
    CG_HOT static void NAME(const void* p, cg_index q) {                               \
        const im2col_ctx* c = (const im2col_ctx*)p;                                    \
        const cg_window* w = c->w;                                                     \
        const cg_index H = w->size[0], W = w->size[1], OH = w->out[0], OW = w->out[1]; \
        const cg_index KH = w->kernel[0], KW = w->kernel[1];                           \
        const cg_index sh = w->stride[0], sw = w->stride[1];                           \
        const cg_index xh = c->xs[2], xw = c->xs[3], L = OH * OW;                      \
        cg_index n0, n1, ch;                                                           \
        job_planes(w, c->nblocks, q, &n0, &n1, &ch);                                   \
        for (cg_index kh = 0; kh < KH; kh++) {                                         \
          const cg_index offh = kh * w->dilation[0] - w->pad[0];                       \
          cg_index hlo, hhi;                                                           \
          inner_range(H, sh, offh, OH, &hlo, &hhi);                                    \
          for (cg_index kw = 0; kw < KW; kw++) {                                       \
            const cg_index offw = kw * w->dilation[1] - w->pad[1];                     \
            cg_index wlo, whi;                                                         \
            inner_range(W, sw, offw, OW, &wlo, &whi);                                  \
            const cg_index k = kh * KW + kw, step = sw * xw;                           \
            for (cg_index n = n0; n < n1; n++) {                                       \
              const T* restrict src = (const T*)c->x + n * c->xs[0] + ch * c->xs[1];   \
              T* restrict dst = (T*)c->cols + n * c->cn + (ch * (KH * KW) + k) * c->cck; \
              for (cg_index i = 0; i < hlo * OW; i++) dst[i] = 0;                      \
              for (cg_index i = hhi * OW; i < L; i++) dst[i] = 0;                      \
              for (cg_index oh = hlo; oh < hhi; oh++) {                                \
                T* restrict d = dst + oh * OW;                                         \
                const cg_index base = (oh * sh + offh) * xh + offw * xw;               \
                for (cg_index o = 0; o < wlo; o++) d[o] = 0;                           \
                if (step == 1) {                                                       \
                  for (cg_index o = wlo; o < whi; o++) d[o] = src[base + o];           \
                } else {                                                               \
                  for (cg_index o = wlo; o < whi; o++) d[o] = src[base + o * step];    \
                }                                                                      \
                for (cg_index o = whi; o < OW; o++) d[o] = 0;                          \
              }                                                                        \
            }                                                                          \
          }                                                                            \
        }                                                                              \
    }

DEF_IM2COL_2D(im2col_2d_1, uint8_t)
DEF_IM2COL_2D(im2col_2d_2, uint16_t)
DEF_IM2COL_2D(im2col_2d_4, uint32_t)
DEF_IM2COL_2D(im2col_2d_8, uint64_t)

DEF_IM2COL(im2col_plane_1, uint8_t)
DEF_IM2COL(im2col_plane_2, uint16_t)
DEF_IM2COL(im2col_plane_4, uint32_t)
DEF_IM2COL(im2col_plane_8, uint64_t)

void cg_im2col(int itemsize, const cg_window* w, const char* x, const cg_index* xs, char* cols,
               cg_index cn, cg_index cck) {
    cg_index work = w->n * w->c * prod(w->nsp, w->kernel) * prod(w->nsp, w->out);
    if (work == 0) return;
    cg_index nb = cn < cck ? image_blocks(w) : 0;
    im2col_ctx c = {w, itemsize, x, xs, cols, cn, cck, nb};
    cg_index jobs = nb ? w->c * nb : w->n * w->c;
    plane_fn fn;
    if (w->nsp == 2)
        fn = itemsize == 1 ? im2col_2d_1 : itemsize == 2 ? im2col_2d_2
           : itemsize == 4 ? im2col_2d_4 : im2col_2d_8;
    else
        fn = itemsize == 1 ? im2col_plane_1 : itemsize == 2 ? im2col_plane_2
           : itemsize == 4 ? im2col_plane_4 : im2col_plane_8;
    for_planes(jobs, work, fn, &c);
}

/* ------------------------------------------------------------------ col2im */

typedef struct {
    const cg_window* w;
    const char* cols;        /* (N, C * K, L) */
    const cg_index* cs;      /* its strides */
    char* out;               /* contiguous (N, C, *size) */
    cg_index nblocks;        /* 0, or image blocks per channel-major job */
} col2im_ctx;

#define COL2IM_PLANE(T)                                                                \
    do {                                                                               \
        cg_index n0, n1, ch;                                                           \
        job_planes(w, c->nblocks, q, &n0, &n1, &ch);                                   \
        const cg_index cl = c->cs[2];                                                  \
        for (cg_index n = n0; n < n1; n++)                                             \
            memset((T*)c->out + (n * w->c + ch) * P, 0, (size_t)P * sizeof(T));        \
        cg_index kk[CG_MAX_DIMS] = {0}, oo[CG_MAX_DIMS], off[CG_MAX_DIMS];             \
        for (cg_index k = 0; k < K; k++, bump(nd, kk, w->kernel)) {                    \
          for (int d = 0; d < nd; d++) off[d] = kk[d] * w->dilation[d] - w->pad[d];    \
          cg_index lo, hi;                                                             \
          inner_range(w->size[last], st, off[last], olast, &lo, &hi);                  \
          for (cg_index n = n0; n < n1; n++) {                                         \
            T* restrict dst = (T*)c->out + (n * w->c + ch) * P;                        \
            const T* restrict src = (const T*)c->cols + n * c->cs[0] + (ch * K + k) * c->cs[1]; \
            memset(oo, 0, sizeof oo);                                                  \
            for (cg_index r = 0; r < rows; r++, bump(last, oo, w->out), src += olast * cl) { \
                cg_index base;                                                         \
                if (!row_base(w, oo, off, ps, &base)) continue;                        \
                base += off[last];                                                     \
                if (st == 1 && cl == 1) {                                              \
                    T* restrict d = dst + base;                                        \
                    for (cg_index o = lo; o < hi; o++) d[o] += src[o];                 \
                } else {                                                               \
                    for (cg_index o = lo; o < hi; o++) dst[base + o * st] += src[o * cl]; \
                }                                                                      \
            }                                                                          \
          }                                                                            \
        }                                                                              \
    } while (0)

#define DEF_COL2IM(NAME, T)                                                            \
    CG_HOT static void NAME(const void* p, cg_index q) {                               \
        const col2im_ctx* c = (const col2im_ctx*)p;                                    \
        const cg_window* w = c->w;                                                     \
        const int nd = w->nsp, last = nd - 1;                                          \
        const cg_index K = prod(nd, w->kernel), L = prod(nd, w->out);                  \
        const cg_index P = prod(nd, w->size), olast = w->out[last];                    \
        const cg_index rows = olast ? L / olast : 0, st = w->stride[last];             \
        cg_index ps[CG_MAX_DIMS];                                                      \
        ps[last] = 1;                                                                  \
        for (int d = last - 1; d >= 0; d--) ps[d] = ps[d + 1] * w->size[d + 1];        \
        COL2IM_PLANE(T);                                                               \
    }

/* The 2-d case, as DEF_IM2COL_2D. */
#define DEF_COL2IM_2D(NAME, T)                                                         \
    CG_HOT static void NAME(const void* p, cg_index q) {                               \
        const col2im_ctx* c = (const col2im_ctx*)p;                                    \
        const cg_window* w = c->w;                                                     \
        const cg_index H = w->size[0], W = w->size[1], OH = w->out[0], OW = w->out[1]; \
        const cg_index KH = w->kernel[0], KW = w->kernel[1], P = H * W;                \
        const cg_index sh = w->stride[0], sw = w->stride[1], cl = c->cs[2];            \
        cg_index n0, n1, ch;                                                           \
        job_planes(w, c->nblocks, q, &n0, &n1, &ch);                                   \
        for (cg_index n = n0; n < n1; n++)                                             \
            memset((T*)c->out + (n * w->c + ch) * P, 0, (size_t)P * sizeof(T));        \
        for (cg_index kh = 0; kh < KH; kh++) {                                         \
          const cg_index offh = kh * w->dilation[0] - w->pad[0];                       \
          cg_index hlo, hhi;                                                           \
          inner_range(H, sh, offh, OH, &hlo, &hhi);                                    \
          for (cg_index kw = 0; kw < KW; kw++) {                                       \
            const cg_index offw = kw * w->dilation[1] - w->pad[1];                     \
            cg_index wlo, whi;                                                         \
            inner_range(W, sw, offw, OW, &wlo, &whi);                                  \
            const cg_index k = kh * KW + kw;                                           \
            for (cg_index n = n0; n < n1; n++) {                                       \
              T* restrict dst = (T*)c->out + (n * w->c + ch) * P;                      \
              const T* restrict src = (const T*)c->cols + n * c->cs[0]                 \
                                      + (ch * (KH * KW) + k) * c->cs[1];               \
              for (cg_index oh = hlo; oh < hhi; oh++) {                                \
                const cg_index base = (oh * sh + offh) * W + offw;                     \
                const T* restrict s = src + oh * OW * cl;                              \
                if (sw == 1 && cl == 1) {                                              \
                  for (cg_index o = wlo; o < whi; o++) dst[base + o] += s[o];          \
                } else {                                                               \
                  for (cg_index o = wlo; o < whi; o++) dst[base + o * sw] += s[o * cl]; \
                }                                                                      \
              }                                                                        \
            }                                                                          \
          }                                                                            \
        }                                                                              \
    }

DEF_COL2IM_2D(col2im_2d_f32, float)
DEF_COL2IM_2D(col2im_2d_f64, double)

DEF_COL2IM(col2im_plane_f32, float)
DEF_COL2IM(col2im_plane_f64, double)

int cg_col2im(int dtype, const cg_window* w, const char* cols, const cg_index* cs, char* out) {
    cg_index nb = cs[0] < cs[1] ? image_blocks(w) : 0;
    col2im_ctx c = {w, cols, cs, out, nb};
    plane_fn fn;
    if (dtype == CG_FLOAT32) fn = w->nsp == 2 ? col2im_2d_f32 : col2im_plane_f32;
    else if (dtype == CG_FLOAT64) fn = w->nsp == 2 ? col2im_2d_f64 : col2im_plane_f64;
    else return -1;
    cg_index planes = w->n * w->c;
    cg_index work = planes * (prod(w->nsp, w->kernel) * prod(w->nsp, w->out) + prod(w->nsp, w->size));
    if (planes == 0) return 0;
    for_planes(nb ? w->c * nb : planes, work, fn, &c);
    return 0;
}

/* ---------------------------------------------------------- max pooling */

typedef struct {
    const cg_window* w;
    const char* x;
    const cg_index* xs;      /* strides of x, (N, C, *spatial) */
    char* values;            /* contiguous (N, C, *out) */
    int64_t* idx;            /* contiguous (N, C, *out): positions in the flattened plane */
} maxpool_ctx;

/* As PyTorch: the first maximum of the window, except that a NaN always wins (so
 * the last NaN does); a window with no element inside the input gives -inf at
 * position 0. */
#define MAXPOOL_PLANE(T)                                                               \
    do {                                                                               \
        const T* src = (const T*)c->x + (q / w->c) * c->xs[0] + (q % w->c) * c->xs[1]; \
        T* val = (T*)c->values + q * L;                                                \
        int64_t* arg = c->idx + q * L;                                                 \
        cg_index oo[CG_MAX_DIMS] = {0}, kk[CG_MAX_DIMS], start[CG_MAX_DIMS];           \
        for (cg_index j = 0; j < L; j++, bump(nd, oo, w->out)) {                       \
            for (int d = 0; d < nd; d++) start[d] = oo[d] * w->stride[d] - w->pad[d];  \
            T best = -INFINITY;                                                        \
            int64_t bi = -1;                                                           \
            memset(kk, 0, sizeof(cg_index) * nd);                                      \
            for (cg_index k = 0; k < K; k++, bump(nd, kk, w->kernel)) {                \
                cg_index so = 0, po = 0;                                               \
                int inside = 1;                                                        \
                for (int d = 0; d < nd; d++) {                                         \
                    cg_index pos = start[d] + kk[d] * w->dilation[d];                  \
                    if (pos < 0 || pos >= w->size[d]) { inside = 0; break; }           \
                    so += pos * sst[d];                                                \
                    po += pos * ps[d];                                                 \
                }                                                                      \
                if (!inside) continue;                                                 \
                T v = src[so];                                                         \
                if (bi < 0 || v > best || isnan(v)) { best = v; bi = po; }             \
            }                                                                          \
            val[j] = best;                                                             \
            arg[j] = bi < 0 ? 0 : bi;                                                  \
        }                                                                              \
    } while (0)

/* The common 2-d case (1-d runs as height 1): the loop over a row of windows is
 * innermost, so the compare-and-select vectorises (a branch per element would
 * mispredict on random data). Each window still sees its kernel offsets in
 * row-major order, so the first maximum wins as above. */
#define MAXPOOL_PLANE_2D(T)                                                            \
    do {                                                                               \
        const T* restrict src = (const T*)c->x + (q / w->c) * c->xs[0] + (q % w->c) * c->xs[1]; \
        const cg_index H = w->size[0], W = w->size[1], sh = sst[0], sw = sst[1];       \
        const cg_index OH = w->out[0], OW = w->out[1], KH = w->kernel[0], KW = w->kernel[1]; \
        const cg_index th = w->stride[0], tw = w->stride[1], ph = w->pad[0], pw = w->pad[1]; \
        const cg_index dh = w->dilation[0], dw = w->dilation[1];                       \
        for (cg_index oh = 0; oh < OH; oh++) {                                         \
            T* restrict val = (T*)c->values + q * L + oh * OW;                         \
            int64_t* restrict arg = c->idx + q * L + oh * OW;                          \
            for (cg_index ow = 0; ow < OW; ow++) { val[ow] = -INFINITY; arg[ow] = -1; } \
            for (cg_index a = 0; a < KH; a++) {                                        \
                const cg_index h = oh * th - ph + a * dh;                              \
                if (h < 0 || h >= H) continue;                                         \
                const T* restrict row = src + h * sh;                                  \
                for (cg_index b = 0; b < KW; b++) {                                    \
                    const cg_index off = b * dw - pw;                                  \
                    cg_index lo, hi;                                                   \
                    inner_range(W, tw, off, OW, &lo, &hi);                             \
                    for (cg_index ow = lo; ow < hi; ow++) {                            \
                        const cg_index u = ow * tw + off;                              \
                        const T v = row[u * sw];                                       \
                        const int take = (arg[ow] < 0) | (v > val[ow]) | (v != v);     \
                        val[ow] = take ? v : val[ow];                                  \
                        arg[ow] = take ? h * W + u : arg[ow];                          \
                    }                                                                  \
                }                                                                      \
            }                                                                          \
            for (cg_index ow = 0; ow < OW; ow++) arg[ow] = arg[ow] < 0 ? 0 : arg[ow];  \
        }                                                                              \
    } while (0)

/* 2-d without padding and with every window inside the input (floor mode):
 * no bounds tests, and for the usual kernel sizes a loop the compiler unrolls.
 * The first element seeds the maximum; the rest replace it when larger or NaN. */
#define MAXPOOL_INTERIOR(T, KH, KW)                                                    \
    do {                                                                               \
        const T* restrict src = (const T*)c->x + (q / w->c) * c->xs[0] + (q % w->c) * c->xs[1]; \
        T* restrict val = (T*)c->values + q * L;                                       \
        int64_t* restrict arg = c->idx + q * L;                                        \
        const cg_index W = w->size[1], sh = sst[0], sw = sst[1];                       \
        const cg_index OH = w->out[0], OW = w->out[1];                                 \
        const cg_index th = w->stride[0], tw = w->stride[1];                           \
        const cg_index dh = w->dilation[0], dw = w->dilation[1];                       \
        for (cg_index oh = 0; oh < OH; oh++) {                                         \
            for (cg_index ow = 0; ow < OW; ow++) {                                     \
                const cg_index h0 = oh * th, w0 = ow * tw;                             \
                const T* restrict s = src + h0 * sh + w0 * sw;                         \
                T best = s[0];                                                         \
                int64_t bi = h0 * W + w0;                                              \
                for (cg_index a = 0; a < (KH); a++) {                                  \
                    for (cg_index b = 0; b < (KW); b++) {                              \
                        const T v = s[a * dh * sh + b * dw * sw];                      \
                        const int take = (v > best) | (v != v);                        \
                        best = take ? v : best;                                        \
                        bi = take ? (h0 + a * dh) * W + w0 + b * dw : bi;              \
                    }                                                                  \
                }                                                                      \
                val[oh * OW + ow] = best;                                              \
                arg[oh * OW + ow] = bi;                                                \
            }                                                                          \
        }                                                                              \
    } while (0)

static inline int interior_2d(const cg_window* w) {
    for (int d = 0; d < 2; d++)
        if (w->pad[d] != 0 || w->out[d] < 1
            || (w->out[d] - 1) * w->stride[d] + (w->kernel[d] - 1) * w->dilation[d] >= w->size[d])
            return 0;
    return 1;
}

#define DEF_MAXPOOL(NAME, T)                                                           \
    CG_HOT static void NAME(const void* p, cg_index q) {                               \
        const maxpool_ctx* c = (const maxpool_ctx*)p;                                  \
        const cg_window* w = c->w;                                                     \
        const int nd = w->nsp;                                                         \
        const cg_index K = prod(nd, w->kernel), L = prod(nd, w->out);                  \
        const cg_index* sst = c->xs + 2;                                               \
        cg_index ps[CG_MAX_DIMS];                                                      \
        ps[nd - 1] = 1;                                                                \
        for (int d = nd - 2; d >= 0; d--) ps[d] = ps[d + 1] * w->size[d + 1];          \
        if (nd == 2 && interior_2d(w)) {                                               \
            if (w->kernel[0] == 2 && w->kernel[1] == 2) MAXPOOL_INTERIOR(T, 2, 2);     \
            else if (w->kernel[0] == 3 && w->kernel[1] == 3) MAXPOOL_INTERIOR(T, 3, 3); \
            else MAXPOOL_INTERIOR(T, w->kernel[0], w->kernel[1]);                      \
        } else if (nd == 2) {                                                          \
            MAXPOOL_PLANE_2D(T);                                                       \
        } else {                                                                       \
            MAXPOOL_PLANE(T);                                                          \
        }                                                                              \
    }

DEF_MAXPOOL(maxpool_plane_f32, float)
DEF_MAXPOOL(maxpool_plane_f64, double)

int cg_max_pool(int dtype, const cg_window* w, const char* x, const cg_index* xs,
                char* values, int64_t* idx) {
    maxpool_ctx c = {w, x, xs, values, idx};
    plane_fn fn;
    if (dtype == CG_FLOAT32) fn = maxpool_plane_f32;
    else if (dtype == CG_FLOAT64) fn = maxpool_plane_f64;
    else return -1;
    cg_index planes = w->n * w->c;
    cg_index work = planes * prod(w->nsp, w->out) * prod(w->nsp, w->kernel);
    if (work == 0) return 0;
    for_planes(planes, work, fn, &c);
    return 0;
}

/* ------------------------------------------------- max pooling's gradient */

typedef struct {
    const cg_window* w;      /* only n, c, nsp, size and out are used */
    const char* grad;
    const cg_index* gs;      /* strides of grad, (N, C, *out) */
    const int64_t* idx;
    const cg_index* is;      /* strides of idx, (N, C, *out) */
    char* out;               /* contiguous (N, C, *size), zeroed here */
    atomic_int bad;          /* set when an index lies outside its plane */
} spread_ctx;

#define DEF_SPREAD(NAME, T)                                                            \
    CG_HOT static void NAME(const void* p, cg_index q) {                               \
        spread_ctx* c = (spread_ctx*)p;                                                \
        const cg_window* w = c->w;                                                     \
        const int nd = w->nsp;                                                         \
        const cg_index L = prod(nd, w->out), P = prod(nd, w->size);                    \
        const cg_index n = q / w->c, ch = q % w->c;                                    \
        const T* g = (const T*)c->grad + n * c->gs[0] + ch * c->gs[1];                 \
        const int64_t* ix = c->idx + n * c->is[0] + ch * c->is[1];                     \
        T* dst = (T*)c->out + q * P;                                                   \
        memset(dst, 0, (size_t)P * sizeof(T));                                         \
        cg_index cnt[CG_MAX_DIMS] = {0}, go = 0, io = 0;                               \
        for (cg_index j = 0; j < L; j++) {                                             \
            int64_t i = ix[io];                                                        \
            if (i < 0 || i >= P) atomic_store_explicit(&c->bad, 1, memory_order_relaxed); \
            else dst[i] += g[go];                                                      \
            for (int d = nd - 1; d >= 0; d--) {                                        \
                go += c->gs[2 + d];                                                    \
                io += c->is[2 + d];                                                    \
                if (++cnt[d] < w->out[d]) break;                                       \
                go -= c->gs[2 + d] * w->out[d];                                        \
                io -= c->is[2 + d] * w->out[d];                                        \
                cnt[d] = 0;                                                            \
            }                                                                          \
        }                                                                              \
    }

DEF_SPREAD(spread_plane_f32, float)
DEF_SPREAD(spread_plane_f64, double)

int cg_max_pool_backward(int dtype, const cg_window* w, const char* grad, const cg_index* gs,
                         const int64_t* idx, const cg_index* is, char* out) {
    spread_ctx c = {w, grad, gs, idx, is, out, 0};
    plane_fn fn;
    if (dtype == CG_FLOAT32) fn = spread_plane_f32;
    else if (dtype == CG_FLOAT64) fn = spread_plane_f64;
    else return -1;
    cg_index planes = w->n * w->c;
    cg_index work = planes * (prod(w->nsp, w->out) + prod(w->nsp, w->size));
    if (planes == 0) return 0;
    for_planes(planes, work, (plane_fn)fn, &c);
    return atomic_load(&c.bad) ? -2 : 0;
}
