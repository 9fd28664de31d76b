/* cygrad's intra-op thread pool.
 *
 * Why not OpenMP: an OpenMP region ends at a barrier that every thread of the
 * team must reach, so the caller waits for a worker even when that worker never
 * got a core (another process, or BLAS's own threads, hold it), and libgomp's
 * workers then busy-spin for a long while after the region, taking the core
 * that NumPy's OpenBLAS threads need next. Measured on the two-layer-net loop
 * (2 cores), that cost 30x against one thread.
 *
 * Here the work is cut into chunks that threads claim from one atomic counter.
 * The caller claims chunks too, so a worker that wakes late finds nothing left
 * and the caller never waits for it; the caller only waits for chunks a worker
 * has already started. Idle workers spin for a few microseconds (enough to
 * catch the next op of a training step) and then sleep on a condition
 * variable, so they hold no core between ops.
 *
 * The counter packs a generation (high 32 bits) with the number of chunks not
 * yet claimed (low 32 bits): a compare-and-swap on it can only claim a chunk of
 * the job it read, never one of a job published later (no ABA). */
#define _GNU_SOURCE       /* pthread_setname_np, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <time.h>
#include <unistd.h>
#include "kernels.h"

#define CG_MAX_THREADS 256
/* How long an idle worker polls for the next job before sleeping. */
#define CG_SPIN_NS 50000

/* Element counts from which a kernel family uses more than one thread, from
 * bench/thresholds.py on the 2-core development machine (min of 3-21 repeats;
 * the machine was loaded, load average 11-17, so these lean high):
 * - binary ops and copies are memory-bound: two threads never beat one by more
 *   than a few percent up to 4M elements, so they split only from 1M, where an
 *   op takes ~100 us and waking a worker cannot cost much relative to it;
 * - exp and friends: 0.47-0.58x of one thread from 16K-64K in the quieter run;
 * - sums: 0.41-0.50x from 256K to 1M in the quieter run.
 * Changeable at run time (cygrad._core.tensor._set_parallel_min). */
cg_index cg_parallel_min[CG_PAR_NUM_FAMILIES] = {
    [CG_PAR_BINARY] = 1 << 20,
    [CG_PAR_UNARY_CHEAP] = 1 << 20,
    [CG_PAR_UNARY_MATH] = 1 << 16,
    [CG_PAR_REDUCE] = 1 << 18,
};

static int cg_threads = 0;            /* 0: not chosen yet (number of cores) */
static int pool_started = 0;          /* workers created so far */
static pthread_t pool_threads[CG_MAX_THREADS];

static pthread_mutex_t job_mu = PTHREAD_MUTEX_INITIALIZER;     /* one job at a time */
static pthread_mutex_t sleep_mu = PTHREAD_MUTEX_INITIALIZER;
static pthread_cond_t sleep_cv = PTHREAD_COND_INITIALIZER;
static atomic_int sleepers = 0;
static atomic_int helpers = 0;        /* workers allowed to take part: threads - 1 */

static _Atomic uint64_t job_counter = 0;   /* generation << 32 | chunks left */
static atomic_int job_done = 0;            /* chunks finished */
static cg_chunk_fn job_fn;
static void* job_ctx;
static int job_nchunks;

static int cores(void) {
    long n = sysconf(_SC_NPROCESSORS_ONLN);
#ifdef CPU_COUNT
    cpu_set_t set;
    if (sched_getaffinity(0, sizeof(set), &set) == 0 && CPU_COUNT(&set) > 0) n = CPU_COUNT(&set);
#endif
    if (n < 1) n = 1;
    return n > CG_MAX_THREADS ? CG_MAX_THREADS : (int)n;
}

int cg_num_threads(void) {
    if (cg_threads <= 0) cg_threads = cores();
    return cg_threads;
}

void cg_set_num_threads(int n) {
    if (n < 1) n = 1;
    cg_threads = n > CG_MAX_THREADS ? CG_MAX_THREADS : n;
}

static inline void cpu_relax(void) {
#if defined(__x86_64__) || defined(__i386__)
    __builtin_ia32_pause();
#elif defined(__aarch64__)
    __asm__ __volatile__("yield");
#endif
}

static inline int64_t now_ns(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000000000 + ts.tv_nsec;
}

/* Claim and run chunks of the current job until none is left. */
static void run_chunks(void) {
    uint64_t v = atomic_load_explicit(&job_counter, memory_order_acquire);
    while ((uint32_t)v != 0) {
        if (atomic_compare_exchange_weak_explicit(&job_counter, &v, v - 1,
                                                  memory_order_acq_rel, memory_order_acquire)) {
            /* Our chunk is unfinished, so the job's fields cannot change under us. */
            int chunk = job_nchunks - (int)(uint32_t)v;
            job_fn(job_ctx, chunk);
            atomic_fetch_add_explicit(&job_done, 1, memory_order_release);
            v = atomic_load_explicit(&job_counter, memory_order_acquire);
        }
    }
}

static int has_work(void) {
    return (uint32_t)atomic_load_explicit(&job_counter, memory_order_acquire) != 0;
}

static void* worker_main(void* arg) {
    int id = (int)(intptr_t)arg;
    for (;;) {
        if (id < atomic_load_explicit(&helpers, memory_order_relaxed)) run_chunks();
        int64_t until = now_ns() + CG_SPIN_NS;
        int found = 0;
        for (int i = 1; !found; i++) {
            if (has_work() && id < atomic_load_explicit(&helpers, memory_order_relaxed)) found = 1;
            else if ((i & 63) == 0 && now_ns() > until) break;
            else cpu_relax();
        }
        if (found) continue;
        pthread_mutex_lock(&sleep_mu);
        atomic_fetch_add(&sleepers, 1);   /* seq_cst: pairs with the caller's check */
        while (!(has_work() && id < atomic_load(&helpers)))
            pthread_cond_wait(&sleep_cv, &sleep_mu);
        atomic_fetch_sub(&sleepers, 1);
        pthread_mutex_unlock(&sleep_mu);
    }
    return NULL;
}

static void serial(int nchunks, cg_chunk_fn fn, void* ctx) {
    for (int c = 0; c < nchunks; c++) fn(ctx, c);
}

/* Start workers up to `want`; returns how many exist (fewer if creation fails). */
static int ensure_workers(int want) {
    while (pool_started < want) {
        pthread_attr_t attr;
        pthread_attr_init(&attr);
        pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
        int rc = pthread_create(&pool_threads[pool_started], &attr, worker_main,
                                (void*)(intptr_t)pool_started);
        pthread_attr_destroy(&attr);
        if (rc != 0) break;
#ifdef __linux__
        pthread_setname_np(pool_threads[pool_started], "cygrad-pool");   /* top -H, /proc */
#endif
        pool_started++;
    }
    return pool_started;
}

void cg_parallel_chunks(int nchunks, cg_chunk_fn fn, void* ctx) {
    int nt = cg_num_threads();
    if (nchunks <= 1 || nt <= 1 || pthread_mutex_trylock(&job_mu) != 0) {
        /* one thread, or the pool is busy with another caller's job (a second
         * Python thread, or a nested call): run here, same chunks, same result */
        serial(nchunks, fn, ctx);
        return;
    }
    int want = nt - 1 < nchunks - 1 ? nt - 1 : nchunks - 1;
    want = ensure_workers(want);
    job_fn = fn;
    job_ctx = ctx;
    job_nchunks = nchunks;
    atomic_store_explicit(&job_done, 0, memory_order_relaxed);
    atomic_store(&helpers, want);
    uint64_t gen = (atomic_load_explicit(&job_counter, memory_order_relaxed) >> 32) + 1;
    atomic_store(&job_counter, (gen << 32) | (uint32_t)nchunks);   /* seq_cst publish */
    if (atomic_load(&sleepers) > 0) {
        pthread_mutex_lock(&sleep_mu);
        pthread_cond_broadcast(&sleep_cv);
        pthread_mutex_unlock(&sleep_mu);
    }
    run_chunks();
    /* Only chunks a worker already started are left: wait for them, giving the
     * core away now and then in case that worker shares ours. */
    for (int i = 1; atomic_load_explicit(&job_done, memory_order_acquire) != nchunks; i++) {
        if ((i & 1023) == 0) sched_yield();
        else cpu_relax();
    }
    pthread_mutex_unlock(&job_mu);
}

/* A forked child has only the thread that forked: forget the parent's workers,
 * and start single-threaded, as a worker process should (set_num_threads can
 * raise it again). */
static void after_fork_child(void) {
    pthread_mutex_t m = PTHREAD_MUTEX_INITIALIZER;
    pthread_cond_t c = PTHREAD_COND_INITIALIZER;
    job_mu = m;
    sleep_mu = m;
    sleep_cv = c;
    pool_started = 0;
    atomic_store(&sleepers, 0);
    atomic_store(&helpers, 0);
    atomic_store(&job_counter, 0);
    atomic_store(&job_done, 0);
    cg_threads = 1;
}

__attribute__((constructor)) static void register_fork_handler(void) {
    pthread_atfork(NULL, NULL, after_fork_child);
}
