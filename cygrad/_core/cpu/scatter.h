/* Scatter reductions (scatter.c): the accumulating writes of the indexing ops
 * (index_add, scatter_add / scatter_reduce, index_put and put with accumulate,
 * and the counts behind scatter_reduce's mean and its derivative).
 *
 * One loop serves them all. An index space of `ndim` dims (the source's shape)
 * is walked; at each position p the target element at p, with coordinate `dim`
 * replaced by the index value idx[p], becomes OP(target, src[p]):
 *
 *     t[p with p[dim] := idx[p]] = OP(t[...], s[p])
 *
 * Strides are in elements; the index and the source may have stride 0 (a 1-D
 * index broadcast over the other dims, as index_add has; a number as source).
 * tstride[dim] is the target's step per unit of index value: the target's stride
 * along dim, or 1 when the index values are element offsets already.
 *
 * Determinism: every target element receives its updates in increasing order of
 * p[dim], one thread per element. Threads split the positions off `dim` (whole
 * lines, or blocks of the innermost dim), never one line's updates, so the
 * result is bit-identical for any thread count. */
#ifndef CYGRAD_SCATTER_H
#define CYGRAD_SCATTER_H
#include "kernels.h"

enum cg_scatter_op { CG_SCATTER_ADD, CG_SCATTER_MUL, CG_SCATTER_MAX, CG_SCATTER_MIN,
                     CG_SCATTER_NUM_OPS };

typedef struct {
    int ndim, dim;
    cg_index shape[CG_MAX_DIMS];    /* the index space */
    cg_index tstride[CG_MAX_DIMS];  /* target */
    cg_index sstride[CG_MAX_DIMS];  /* source (0: broadcast) */
    cg_index istride[CG_MAX_DIMS];  /* index (0: broadcast) */
    cg_index wrap;                  /* > 0: a negative index value v means v + wrap */
    int index64;                    /* index values are int64 (else int32) */
} cg_scatter_geom;

typedef void (*cg_scatter_pool_fn)(int nchunks, cg_chunk_fn fn, void* ctx);
void cg_scatter_set_pool(cg_scatter_pool_fn run);
/* Updates from which the pool is used. */
extern cg_index cg_scatter_parallel_min;

/* Is there a C loop for (op, dtype)? (float32/64 and the integer dtypes; bool,
 * float16, bfloat16 and complex are left to the caller.) */
int cg_has_scatter(int op, int dtype);

/* Apply the updates (see above); -1 for an (op, dtype) without a loop. The index
 * values must have been checked: this loop reads and writes where they say. */
int cg_scatter(int op, int dtype, const cg_scatter_geom* g, char* target, const char* src,
               const char* index);

/* Bounds check of an index (shape/strides of its own, int32 or int64) against
 * [low, high): 1 and the first bad value (C order) in *bad, or 0. */
int cg_index_first_bad(int ndim, const cg_index* shape, const cg_index* strides, int index64,
                       const char* index, int64_t low, int64_t high, int64_t* bad);

#endif
