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
 * Contention. The caller still waits for a chunk a worker has started, and a
 * worker whose core another process takes can be descheduled mid-chunk for a
 * whole time slice (milliseconds). Mid-sized jobs (tens of microseconds) gain
 * from a second thread only while that does not happen, so the pool notes it:
 * a worker's last chunk taking much longer, from its claim, than the caller's own
 * chunks took is a stall, and a second stall within CG_CONTENDED_NS marks the
 * pool contended for CG_CONTENDED_NS; kernels with a mid-size threshold
 * (cg_pool_contended) keep such jobs on one thread meanwhile.
 * A worker that never gets a core leaves no such trace (the caller runs every
 * chunk itself and waits for nothing), yet each job still pays the wake-up and
 * the worker's spin takes a core from the other programs: a loaded machine
 * also shows in the calling thread being preempted. So cg_pool_contended reads
 * that thread's involuntary context switches (getrusage, at most every
 * CG_PREEMPT_CHECK_NS) and marks the pool contended when it was preempted
 * CG_PREEMPT_SWITCHES times or more since the last look. Measured with a test
 * suite running beside it (load 3.6 on 2 cores), bench/run.py's two-layer net
 * took 47 ms per 100 steps with the quiet thresholds, 36 ms on one thread.
 *
 * The counter packs a generation (high 32 bits) with the number of chunks not
 * yet claimed (low 32 bits): a compare-and-swap on it can only claim a chunk of
 * the job it read, never one of a job published later (no ABA). */
#define _GNU_SOURCE       /* pthread_setname_np, CPU_COUNT */
#include <pthread.h>
#include <sched.h>
#include <stdatomic.h>
#include <stdint.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>
#include "kernels.h"

#define CG_MAX_THREADS 256
/* How long an idle worker polls for the next job before sleeping. Longer spins
 * (200 us, 1 ms) left the LSTM and transformer steps of bench/models.py no faster
 * on the 2-core machine, though they woke the workers 5-20x less often. */
#define CG_SPIN_NS 50000

/* A worker's chunk this much longer than twice the caller's average chunk is a
 * stall: the worker lost its core mid-chunk. */
#define CG_STALL_NS 100000
/* After a second stall within this long, mid-sized jobs stay on one thread this
 * long. */
#define CG_CONTENDED_NS 250000000
/* How often the calling thread's preemptions are read, and how many since the
 * last look mean the machine is oversubscribed. Measured on the 2-core machine
 * over 50 ms windows of transformer inference steps: quiet, a median of 0
 * involuntary switches (at most 5 in 40 windows); beside one spinning process a
 * median of 8; beside two, 186. */
#define CG_PREEMPT_CHECK_NS 50000000
#define CG_PREEMPT_SWITCHES 8
static _Atomic int64_t contended_until = 0;
static atomic_long stalls = 0;
static _Atomic int64_t last_stall_ns = 0;
static atomic_long preemptions = 0;     /* times a preemption check marked the pool */
/* cg_pool_counters: written only by the caller holding job_mu. */
static long n_jobs = 0, n_wakeups = 0;
static int64_t wait_total_ns = 0;

/* Element counts from which a kernel family uses more than one thread.
 * cg_parallel_min holds them for a quiet machine: on the 2-core development
 * machine, two threads nearly halve a 65K- to 262K-element add, scalar multiply
 * or transposing copy (8.2 -> 5.3 us, 34 -> 20 us, 201 -> 105 us at 262K),
 * whose operands sit in cache, and transcendental ops from fewer elements still.
 * While the pool is contended (a worker stalled lately, see above) a family
 * splits only from the larger of its two counts: cg_parallel_min_contended holds
 * the counts measured with bench/thresholds.py on a loaded machine (load average
 * 11-17), where binary ops and copies never gained more than a few percent up to
 * 4M elements, exp and friends gained from 16K-64K and sums from 256K-1M.
 * Changeable at run time (cygrad._core.tensor._set_parallel_min). */
cg_index cg_parallel_min[CG_PAR_NUM_FAMILIES] = {
    [CG_PAR_BINARY] = 1 << 15,
    [CG_PAR_UNARY_CHEAP] = 1 << 15,
    [CG_PAR_UNARY_MATH] = 1 << 14,
    [CG_PAR_REDUCE] = 1 << 15,
};
cg_index cg_parallel_min_contended[CG_PAR_NUM_FAMILIES] = {
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

/* When a worker last claimed a chunk: the chunk a caller waits for started then. */
static _Atomic int64_t worker_claimed_ns = 0;

/* Claim and run chunks of the current job until none is left; returns how many
 * this thread ran. */
static int run_chunks(int is_worker) {
    int ran = 0;
    uint64_t v = atomic_load_explicit(&job_counter, memory_order_acquire);
    while ((uint32_t)v != 0) {
        if (atomic_compare_exchange_weak_explicit(&job_counter, &v, v - 1,
                                                  memory_order_acq_rel, memory_order_acquire)) {
            /* Our chunk is unfinished, so the job's fields cannot change under us. */
            int chunk = job_nchunks - (int)(uint32_t)v;
            if (is_worker) atomic_store_explicit(&worker_claimed_ns, now_ns(), memory_order_relaxed);
            job_fn(job_ctx, chunk);
            atomic_fetch_add_explicit(&job_done, 1, memory_order_release);
            ran++;
            v = atomic_load_explicit(&job_counter, memory_order_acquire);
        }
    }
    return ran;
}

/* Per calling thread: RUSAGE_THREAD counts that thread's switches only. */
static __thread int64_t preempt_next_check = 0;
static __thread long preempt_last = -1;

static atomic_int preempt_check_on = 1;

void cg_pool_set_preemption_check(int on) {
    atomic_store_explicit(&preempt_check_on, on != 0, memory_order_relaxed);
}

static void check_preemption(int64_t now) {
#ifdef RUSAGE_THREAD
    struct rusage ru;
    /* Judge only a window that just ended: since an older look, the thread may
     * have spent the time outside cygrad's kernels (another library's threads
     * spinning beside it, a sleep), which says nothing about now. */
    int fresh = preempt_last >= 0 && now - preempt_next_check < CG_PREEMPT_CHECK_NS;
    preempt_next_check = now + CG_PREEMPT_CHECK_NS;
    if (getrusage(RUSAGE_THREAD, &ru) != 0) return;
    if (fresh && ru.ru_nivcsw - preempt_last >= CG_PREEMPT_SWITCHES) {
        atomic_store_explicit(&contended_until, now + CG_CONTENDED_NS, memory_order_relaxed);
        atomic_fetch_add_explicit(&preemptions, 1, memory_order_relaxed);
    }
    preempt_last = ru.ru_nivcsw;
#else
    preempt_next_check = now + CG_PREEMPT_CHECK_NS * 1000;    /* no per-thread count */
#endif
}

int cg_pool_contended(void) {
    int64_t now = now_ns();
    if (now >= preempt_next_check && atomic_load_explicit(&preempt_check_on, memory_order_relaxed))
        check_preemption(now);
    return now < atomic_load_explicit(&contended_until, memory_order_relaxed);
}

long cg_pool_preemptions(void) {
    return atomic_load_explicit(&preemptions, memory_order_relaxed);
}

long cg_pool_stalls(void) {
    return atomic_load_explicit(&stalls, memory_order_relaxed);
}

void cg_pool_counters(long* jobs, long* wakeups, int64_t* wait_ns) {
    pthread_mutex_lock(&job_mu);
    *jobs = n_jobs;
    *wakeups = n_wakeups;
    *wait_ns = wait_total_ns;
    pthread_mutex_unlock(&job_mu);
}

int cg_parallel_worth(int family, cg_index work) {
    if (work < cg_parallel_min[family] || cg_num_threads() <= 1) return 0;
    return work >= cg_parallel_min_contended[family] || !cg_pool_contended();
}

void cg_pool_set_contended(int on) {
    atomic_store_explicit(&contended_until, on ? now_ns() + CG_CONTENDED_NS : 0,
                          memory_order_relaxed);
}

static int has_work(void) {
    return (uint32_t)atomic_load_explicit(&job_counter, memory_order_acquire) != 0;
}

static void* worker_main(void* arg) {
    int id = (int)(intptr_t)arg;
    for (;;) {
        if (id < atomic_load_explicit(&helpers, memory_order_relaxed)) run_chunks(1);
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
    n_jobs++;
    if (atomic_load(&sleepers) > 0) {
        n_wakeups++;
        pthread_mutex_lock(&sleep_mu);
        pthread_cond_broadcast(&sleep_cv);
        pthread_mutex_unlock(&sleep_mu);
    }
    int64_t t0 = now_ns();
    int mine = run_chunks(0);
    /* Only chunks a worker already started are left: wait for them, giving the
     * core away now and then in case that worker shares ours. */
    if (atomic_load_explicit(&job_done, memory_order_acquire) != nchunks) {
        int64_t t1 = now_ns();
        for (int i = 1; atomic_load_explicit(&job_done, memory_order_acquire) != nchunks; i++) {
            if ((i & 1023) == 0) sched_yield();
            else cpu_relax();
        }
        /* A worker's chunk normally takes about as long as one of ours (with none
         * of ours to compare, the wait says nothing). Timed from when the worker
         * claimed it, not from when we began waiting: a worker that woke late and
         * then ran at full speed did not lose its core (on the quiet 2-core
         * machine, timing the wait marked half the transformer's rounds). */
        int64_t end = now_ns();
        wait_total_ns += end - t1;
        int64_t claimed = atomic_load_explicit(&worker_claimed_ns, memory_order_relaxed);
        int64_t ran = end - (claimed > t0 ? claimed : t0);
        if (mine > 0 && ran > 2 * (t1 - t0) / mine + CG_STALL_NS) {
            /* One stall alone marks nothing: on the quiet machine a worker's chunk
             * now and then ran long (a page fault, an interrupt) in about one of
             * three transformer rounds; a lost core stalls again and again. */
            int64_t prev = atomic_exchange_explicit(&last_stall_ns, end, memory_order_relaxed);
            if (prev > 0 && end - prev < CG_CONTENDED_NS)
                atomic_store_explicit(&contended_until, end + CG_CONTENDED_NS,
                                      memory_order_relaxed);
            atomic_fetch_add_explicit(&stalls, 1, memory_order_relaxed);
        }
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
