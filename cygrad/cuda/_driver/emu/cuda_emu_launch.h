/* cuda_emu_launch.h: the block scheduler and launch entry of the emulated driver.
 *
 * Included by the generated trampoline file after the kernel source; every kernel
 * gets `extern "C" int cg_emu_launch_<name>(Config*, void** args)` calling
 * cg_emu::launch with a function that unpacks args into the kernel's parameters.
 * Returns 0, or 1 with cfg->error set (divergence, bad lanes, deadlock), or 2 with
 * cfg->fault_addr/fault_signal set when the kernel touched memory it may not.
 */
#ifndef CYGRAD_CUDA_EMU_LAUNCH_H
#define CYGRAD_CUDA_EMU_LAUNCH_H
#include <cstdarg>
#include <utility>

namespace cg_emu {

static const size_t kStackBytes = 64 * 1024;
static const size_t kAltStackBytes = 64 * 1024;

struct Failure {};

static void set_error(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
static void set_error(const char* fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(st.cfg->error, sizeof st.cfg->error, fmt, ap);
    va_end(ap);
}

static void on_fault(int sig, siginfo_t* info, void*)
{
    if (!st.in_kernel) {            /* not ours: let the previous handler see it again */
        signal(sig, SIG_DFL);
        return;
    }
    st.in_kernel = 0;
    st.cfg->fault_signal = sig;
    st.cfg->fault_addr = (unsigned long long)(uintptr_t)info->si_addr;
    siglongjmp(st.fault_jump, 1);
}

/* Fiber stacks for up to `n` threads, each with a PROT_NONE page below it so a
 * stack overflow faults instead of running into the neighbour's stack. */
static bool ensure_stacks(int n)
{
#if CG_EMU_ASM_SWITCH
    if ((size_t)n <= st.stacks_cap) return true;
    if (st.stacks) munmap(st.stacks, st.stacks_cap * st.stack_bytes);
    long page = sysconf(_SC_PAGESIZE);
    st.stack_bytes = kStackBytes + (size_t)page;
    void* p = mmap(nullptr, (size_t)n * st.stack_bytes, PROT_READ | PROT_WRITE,
                   MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
    if (p == MAP_FAILED) { st.stacks = nullptr; st.stacks_cap = 0; return false; }
    st.stacks = (char*)p;
    st.stacks_cap = (size_t)n;
    for (int i = 0; i < n; ++i) mprotect(st.stacks + (size_t)i * st.stack_bytes, (size_t)page, PROT_NONE);
    return true;
#else
    if ((size_t)n <= st.stacks_cap) return true;
    free(st.stacks);
    free(st.ucs);
    st.stack_bytes = kStackBytes;
    st.stacks = (char*)malloc((size_t)n * st.stack_bytes);
    st.ucs = (ucontext_t*)malloc(sizeof(ucontext_t) * (size_t)n);
    st.stacks_cap = st.stacks && st.ucs ? (size_t)n : 0;
    return st.stacks_cap != 0;
#endif
}

/* Thread t starts on stack `k`. A thread that finishes without waiting gives its
 * stack back, so a kernel without barriers runs every thread on one warm stack. */
static void start_fiber(int t, int k)
{
    st.slots[t].stack = k;
#if CG_EMU_ASM_SWITCH
    char* top = st.stacks + (size_t)(k + 1) * st.stack_bytes;
    void** sp = (void**)((uintptr_t)top & ~(uintptr_t)15);
    *--sp = nullptr;                              /* fiber_entry's return slot: keeps the ABI alignment */
    *--sp = (void*)&fiber_entry;                  /* popped by cg_emu_swap's ret */
    for (int i = 0; i < 6; ++i) *--sp = nullptr;  /* rbp rbx r12-r15 */
    st.slots[t].sp = sp;
#else
    getcontext(&st.ucs[t]);
    st.ucs[t].uc_stack.ss_sp = st.stacks + (size_t)k * st.stack_bytes;
    st.ucs[t].uc_stack.ss_size = st.stack_bytes;
    st.ucs[t].uc_link = nullptr;
    makecontext(&st.ucs[t], (void (*)())fiber_entry, 0);
#endif
}

static void run_fiber(int t)
{
    const unsigned bx = st.block_dim.x, by = st.block_dim.y;
    st.current = t;
    if (by == 1 && st.block_dim.z == 1) {       /* 1-D blocks: no divisions */
        st.thread_idx.x = (unsigned)t;
    } else {
        st.thread_idx.x = (unsigned)t % bx;
        st.thread_idx.y = ((unsigned)t / bx) % by;
        st.thread_idx.z = (unsigned)t / (bx * by);
    }
#if CG_EMU_ASM_SWITCH
    cg_emu_swap(&st.main_sp, st.slots[t].sp);
#else
    swapcontext(&st.main_uc, &st.ucs[t]);
#endif
}

static void where(const Slot& s, char* buf, size_t n)
{
    snprintf(buf, n, "%s:%d", s.file ? s.file : "?", s.line);
}

/* Complete every warp operation whose lanes have all arrived; returns how many
 * lanes were released. Throws Failure (after set_error) on what cannot complete
 * or, in strict mode, on inactive or out-of-range lanes. */
static int resolve_warps()
{
    const int n = st.nthreads;
    const bool strict = st.cfg->strict != 0;
    int released = 0;
    for (int base = 0; base < n; base += 32) {
        const int lanes = n - base < 32 ? n - base : 32;
        for (int l0 = 0; l0 < lanes; ++l0) {
            const Slot& first = st.slots[base + l0];
            if (first.state != ST_WARP) continue;
            const unsigned mask = first.mask;
            const int op = first.op;
            char site[300];
            where(first, site, sizeof site);
            if (strict && !(mask >> l0 & 1u)) {
                set_error("%s at %s: lane %d (thread %d) calls it with mask 0x%08x, which does not "
                          "include itself", op_names[op], site, l0, base + l0, mask);
                throw Failure();
            }
            if (strict && lanes < 32 && (mask >> lanes) != 0u) {
                set_error("%s at %s: mask 0x%08x names lanes past the last thread of the block "
                          "(warp %d has %d lanes)", op_names[op], site, mask, base / 32, lanes);
                throw Failure();
            }
            bool ready = true;
            for (int l = 0; l < lanes && ready; ++l) {
                if (!(mask >> l & 1u)) continue;
                const Slot& s = st.slots[base + l];
                if (s.state == ST_WARP && (s.mask != mask || s.op != op)) ready = false;
                else if (s.state == ST_BAR || s.state == ST_READY) ready = false;
                else if (s.state == ST_DONE && strict) {
                    set_error("%s at %s: mask 0x%08x names lane %d (thread %d), which has exited",
                              op_names[op], site, mask, l, base + l);
                    throw Failure();
                }
            }
            if (!ready) continue;
            unsigned ballot = 0;
            int active = 0;
            for (int l = 0; l < lanes; ++l) {
                const Slot& s = st.slots[base + l];
                if ((mask >> l & 1u) && s.state == ST_WARP) {
                    ++active;
                    if (s.value) ballot |= 1u << l;
                }
            }
            unsigned long long results[32];
            for (int l = 0; l < lanes; ++l) {
                const Slot& s = st.slots[base + l];
                if (!((mask >> l & 1u) && s.state == ST_WARP)) continue;
                unsigned long long r = 0;
                if (op <= OP_SHFL_XOR) {
                    const int w = s.width;
                    if (w <= 0 || w > 32 || (w & (w - 1))) {
                        set_error("%s at %s: width %d is not a power of two in [1, 32]", op_names[op], site, w);
                        throw Failure();
                    }
                    const int start = l / w * w;
                    int src;
                    if (op == OP_SHFL_IDX) src = start + ((s.arg % w) + w) % w;
                    else if (op == OP_SHFL_UP) src = l - s.arg < start ? l : l - s.arg;
                    else if (op == OP_SHFL_DOWN) src = l + s.arg >= start + w ? l : l + s.arg;
                    else src = ((l ^ s.arg) >= start + w || (l ^ s.arg) < start) ? l : (l ^ s.arg);
                    if (src >= lanes || !(mask >> src & 1u) || st.slots[base + src].state != ST_WARP) {
                        if (strict) {
                            set_error("%s at %s: lane %d (thread %d) reads lane %d, which is %s", op_names[op],
                                      site, l, base + l, src,
                                      src >= lanes ? "past the last thread of the block"
                                                   : "not active in the mask");
                            throw Failure();
                        }
                        r = src < lanes ? st.slots[base + src].value : s.value;  /* undefined on a GPU */
                    } else {
                        r = st.slots[base + src].value;
                    }
                } else if (op == OP_BALLOT) {
                    r = ballot;
                } else if (op == OP_ANY) {
                    r = ballot != 0;
                } else if (op == OP_ALL) {
                    r = __builtin_popcount(ballot) == active;
                }
                results[l] = r;
            }
            for (int l = 0; l < lanes; ++l) {
                Slot& s = st.slots[base + l];
                if ((mask >> l & 1u) && s.state == ST_WARP) {
                    s.result = results[l];
                    s.state = ST_READY;
                    ++released;
                }
            }
        }
    }
    return released;
}

static void run_block()
{
    const int n = st.nthreads;
    const bool strict = st.cfg->strict != 0;
    static int free_stacks[1024];
    int nfree = 0;
    for (int k = n - 1; k >= 0; --k) free_stacks[nfree++] = k;
    for (int t = 0; t < n; ++t) {
        st.slots[t].state = ST_NEW;
        st.slots[t].file = nullptr;
        st.slots[t].line = 0;
    }
    st.thread_idx.x = st.thread_idx.y = st.thread_idx.z = 0;
    for (;;) {
        int waiting = 0;
        for (int t = 0; t < n; ++t) {
            Slot& s = st.slots[t];
            if (s.state == ST_NEW) {
                start_fiber(t, free_stacks[--nfree]);
                s.state = ST_READY;
            }
            if (s.state == ST_READY) {
                run_fiber(t);
                if (s.state == ST_DONE) free_stacks[nfree++] = s.stack;
                else ++waiting;
            } else if (s.state != ST_DONE) {
                ++waiting;
            }
        }
        if (!waiting) return;                   /* every thread has finished */
        if (resolve_warps()) continue;
        int nbar = 0, ndone = 0, nwarp = 0, first_bar = -1;
        for (int t = 0; t < n; ++t) {
            const int s = st.slots[t].state;
            if (s == ST_BAR) { ++nbar; if (first_bar < 0) first_bar = t; }
            else if (s == ST_DONE) ++ndone;
            else if (s == ST_WARP) ++nwarp;
        }
        char site[300];
        if (nwarp) {
            int t = 0;
            while (st.slots[t].state != ST_WARP) ++t;
            where(st.slots[t], site, sizeof site);
            set_error("%s at %s in thread %d can never complete: lanes of its mask wait at a barrier, "
                      "at another warp operation, or have exited", op_names[st.slots[t].op], site, t);
            throw Failure();
        }
        if (nbar == 0) return;
        where(st.slots[first_bar], site, sizeof site);
        if (strict && ndone) {
            set_error("barrier divergence: %d thread(s) of block (%u,%u,%u) wait at __syncthreads() at %s "
                      "while %d have exited", nbar, st.block_idx.x, st.block_idx.y, st.block_idx.z, site, ndone);
            throw Failure();
        }
        if (strict) {
            for (int t = 0; t < n; ++t) {
                const Slot& s = st.slots[t];
                if (s.state == ST_BAR && (s.line != st.slots[first_bar].line ||
                                          strcmp(s.file, st.slots[first_bar].file) != 0)) {
                    char other[300];
                    where(s, other, sizeof other);
                    set_error("barrier divergence: threads of block (%u,%u,%u) wait at different "
                              "__syncthreads() calls: thread %d at %s, thread %d at %s",
                              st.block_idx.x, st.block_idx.y, st.block_idx.z, first_bar, site, t, other);
                    throw Failure();
                }
            }
        }
        for (int t = 0; t < n; ++t)
            if (st.slots[t].state == ST_BAR) st.slots[t].state = ST_READY;
    }
}

static int launch(Config* cfg, void (*body)(void**), void** args)
{
    const int n = (int)(cfg->block[0] * cfg->block[1] * cfg->block[2]);
    st.cfg = cfg;
    cfg->error[0] = 0;
    cfg->fault_addr = 0;
    cfg->fault_signal = 0;
    if (n <= 0 || !ensure_stacks(n)) {
        set_error("could not reserve fiber stacks for %d threads", n);
        return 1;
    }
    static Slot slots[1024];
    st.slots = slots;
    st.nthreads = n;
    st.body = body;
    st.args = args;
    st.block_dim = dim3(cfg->block[0], cfg->block[1], cfg->block[2]);
    st.grid_dim = dim3(cfg->grid[0], cfg->grid[1], cfg->grid[2]);

    /* Faults inside the kernel (a wild pointer, a guard page in strict mode, a fiber
     * stack overflow) come back here as an error instead of killing the process. */
    static char* alt_stack = nullptr;
    if (!alt_stack) alt_stack = (char*)malloc(kAltStackBytes);
    stack_t alt = {}, old_alt;
    alt.ss_sp = alt_stack;
    alt.ss_size = kAltStackBytes;
    sigaltstack(&alt, &old_alt);
    struct sigaction sa = {}, old_segv, old_bus, old_fpe;
    sa.sa_sigaction = on_fault;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK | SA_NODEFER;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, &old_segv);
    sigaction(SIGBUS, &sa, &old_bus);
    sigaction(SIGFPE, &sa, &old_fpe);
    int rc = 0;
    if (sigsetjmp(st.fault_jump, 1) == 0) {
        st.in_kernel = 1;
        try {
            for (unsigned z = 0; z < cfg->grid[2]; ++z)
                for (unsigned y = 0; y < cfg->grid[1]; ++y)
                    for (unsigned x = 0; x < cfg->grid[0]; ++x) {
                        st.block_idx.x = x;
                        st.block_idx.y = y;
                        st.block_idx.z = z;
                        run_block();
                    }
        } catch (const Failure&) {
            rc = 1;
        }
        st.in_kernel = 0;
    } else {
        rc = 2;
    }
    sigaction(SIGSEGV, &old_segv, nullptr);
    sigaction(SIGBUS, &old_bus, nullptr);
    sigaction(SIGFPE, &old_fpe, nullptr);
    sigaltstack(&old_alt, nullptr);
    return rc;
}

template <typename T>
static T arg_as(void* p)
{
    return *static_cast<T*>(p);
}

template <typename... P, size_t... I>
static void call_with(void (*f)(P...), void** args, std::index_sequence<I...>)
{
    f(arg_as<P>(args[I])...);
}

/* sizeof of each parameter, so the driver can check the parser's reading of the
 * signature against the compiler's. */
template <typename... P>
static int param_sizes(void (*)(P...), long long* out, int cap)
{
    const long long sizes[] = {0, (long long)sizeof(P)...};
    const int n = (int)sizeof...(P);
    for (int i = 0; i < n && i < cap; ++i) out[i] = sizes[i + 1];
    return n;
}

}  // namespace cg_emu

#define CG_EMU_TRAMPOLINE(NAME, ...)                                                           \
    static void cg_emu_body_##NAME(void** args)                                                \
    {                                                                                          \
        ::cg_emu::call_with(&NAME, args,                                                       \
                            std::make_index_sequence<::cg_emu::arity(&NAME)>());               \
    }                                                                                          \
    extern "C" __attribute__((visibility("default"))) int cg_emu_launch_##NAME(                \
        ::cg_emu::Config* cfg, void** args)                                                    \
    {                                                                                          \
        return ::cg_emu::launch(cfg, &cg_emu_body_##NAME, args);                               \
    }                                                                                          \
    extern "C" __attribute__((visibility("default"))) int cg_emu_params_##NAME(long long* out, \
                                                                               int cap)        \
    {                                                                                          \
        return ::cg_emu::param_sizes(&NAME, out, cap);                                         \
    }

namespace cg_emu {
template <typename... P>
constexpr size_t arity(void (*)(P...)) { return sizeof...(P); }
}
#endif
