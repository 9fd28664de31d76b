/* Fused optimizer updates: one pass over each parameter and its buffers
 * (cpu/optim.c, reached through cygrad/_core/optim_kernels.pyx). */
#ifndef CYGRAD_OPTIM_H
#define CYGRAD_OPTIM_H

#include <stddef.h>

typedef ptrdiff_t cg_index;
typedef void (*cg_optim_chunk_fn)(void* ctx, int chunk);
typedef void (*cg_optim_pool_fn)(int nchunks, cg_optim_chunk_fn fn, void* ctx);

enum { CG_OPTIM_SGD = 0, CG_OPTIM_ADAM = 1 };
enum { CG_OPTIM_F32 = 0, CG_OPTIM_F64 = 1 };

/* The hyper-parameters of one parameter group. */
typedef struct {
    int kind;                  /* CG_OPTIM_SGD or CG_OPTIM_ADAM */
    double lr, weight_decay;
    double momentum, dampening;        /* SGD */
    double beta1, beta2, eps;          /* Adam */
    int nesterov, maximize, amsgrad, decoupled;
} cg_optim_hyper;

/* One parameter: n contiguous elements of param, grad and the buffers, all of
 * one dtype. SGD: buf[0] is the momentum buffer (unused without momentum), set
 * to the gradient when `first`. Adam: buf = exp_avg, exp_avg_sq, max_exp_avg_sq
 * (the last only with amsgrad); step_size = lr / (1 - beta1^t) and
 * bc2_sqrt = sqrt(1 - beta2^t) for this parameter's step count t. */
typedef struct {
    char* param;
    const char* grad;
    char* buf[3];
    cg_index n;
    int dtype;                 /* CG_OPTIM_F32 or CG_OPTIM_F64 */
    int first;
    double step_size, bc2_sqrt;
} cg_optim_item;

/* Update every item in place; 0 on success, -1 if out of memory. */
int cg_optim_step(const cg_optim_hyper* h, const cg_optim_item* items, cg_index nitems);
void cg_optim_set_pool(cg_optim_pool_fn run);
/* Total elements from which a step uses the thread pool. */
extern cg_index cg_optim_parallel_min;

#endif
