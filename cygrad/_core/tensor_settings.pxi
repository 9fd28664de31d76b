# The per-thread grad modes and the thread pool's settings, included by tensor.pyx.
# (cpu/parallel.c is the pool; bench/thresholds.py and the tests use the setters.)

# Grad mode is per thread, as in PyTorch: a no_grad block in one thread does not
# switch recording off in another.
cdef extern from *:
    """
    static __thread int cg_grad_mode_enabled = 1;
    static __thread int cg_fw_mode_enabled = 1;
    """
    int cg_grad_mode_enabled
    int cg_fw_mode_enabled

cdef void pool_run(int nchunks, cg_chunk_fn fn, void* ctx) noexcept nogil:
    cg_parallel_chunks(nchunks, fn, ctx)

cdef bint pool_contended() noexcept nogil:
    return cg_pool_contended() != 0


cdef bint grad_enabled() noexcept nogil:
    return cg_grad_mode_enabled != 0

cdef void set_grad_enabled(bint mode) noexcept nogil:
    global cg_grad_mode_enabled
    cg_grad_mode_enabled = 1 if mode else 0

def is_grad_enabled():
    """True when operations are being recorded for autograd (thread-local).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_grad_enabled()
    True
    """
    return cg_grad_mode_enabled != 0

def _set_grad_enabled(bint mode):
    global cg_grad_mode_enabled
    cg_grad_mode_enabled = 1 if mode else 0

def _set_fw_grad_enabled(bint mode):
    """Switch forward-mode tangent propagation on/off for this thread; returns the
    previous setting. An op's forward and jvp run with it off, so the plain ops they
    call compute values only."""
    global cg_fw_mode_enabled
    prev = cg_fw_mode_enabled != 0
    cg_fw_mode_enabled = 1 if mode else 0
    return prev

def _is_fw_grad_enabled():
    return cg_fw_mode_enabled != 0

cdef bint set_fw_enabled(bint mode) noexcept nogil:
    global cg_fw_mode_enabled
    cdef bint prev = cg_fw_mode_enabled != 0
    cg_fw_mode_enabled = 1 if mode else 0
    return prev

def get_num_threads():
    """Number of threads cygrad's CPU kernels use."""
    return cg_num_threads()

def set_num_threads(int n):
    """Set the number of threads cygrad's CPU kernels use (at least 1)."""
    if n < 1:
        raise ValueError(f"set_num_threads expects a positive integer, got {n}")
    cg_set_num_threads(n)

_PARALLEL_FAMILIES = ("binary", "unary_cheap", "unary_math", "reduce")

def _get_parallel_min(contended=False):
    """{kernel family: element count from which it uses more than one thread} on a
    quiet machine, or (``contended=True``) while the pool reports contention; the
    larger of the two applies then (cpu/parallel.c)."""
    cdef cg_index* table = &cg_parallel_min_contended[0] if contended else &cg_parallel_min[0]
    return {name: table[i] for i, name in enumerate(_PARALLEL_FAMILIES)}

def _set_parallel_min(family, Py_ssize_t n, contended=False):
    """Set one family's quiet (or contended) threshold (tests and
    bench/thresholds.py use this)."""
    if n < 1:
        raise ValueError(f"threshold must be positive, got {n}")
    cdef cg_index* table = &cg_parallel_min_contended[0] if contended else &cg_parallel_min[0]
    table[_PARALLEL_FAMILIES.index(family)] = n

def _pool_contention():
    """``(contended, stalls)``: whether a pool worker stalled (lost its core
    mid-chunk) in the last quarter second, so that mid-sized jobs now stay on one
    thread, and how many stalls the pool has seen (cpu/parallel.c)."""
    return bool(cg_pool_contended()), cg_pool_stalls()

def _pool_counters():
    """What the thread pool has done so far (cpu/parallel.c), for bench/ and
    diagnosis: ``jobs`` run across threads, ``wakeups`` (jobs that found every
    worker asleep and woke them through the kernel), ``wait_ms`` (the callers'
    total wait for chunks a worker had started), ``stalls`` and ``preemptions``.

    Examples
    --------
    >>> from cygrad._core import tensor
    >>> sorted(tensor._pool_counters())
    ['jobs', 'preemptions', 'stalls', 'wait_ms', 'wakeups']
    """
    cdef long jobs, wakeups
    cdef int64_t wait_ns
    cg_pool_counters(&jobs, &wakeups, &wait_ns)
    return {"jobs": jobs, "wakeups": wakeups, "wait_ms": wait_ns / 1e6,
            "stalls": cg_pool_stalls(), "preemptions": cg_pool_preemptions()}

def _pool_preemptions():
    """How many times the calling threads' preemptions marked the pool contended
    (the machine oversubscribed; cpu/parallel.c)."""
    return cg_pool_preemptions()

def _set_preemption_check(bint on):
    """Let the pool read its callers' preemptions (on, the default), or not, so
    that only stalls and :func:`_set_pool_contended` decide (tests)."""
    cg_pool_set_preemption_check(on)

def _set_pool_contended(bint on):
    """Mark the pool contended for a quarter second, or clear it (tests, bench)."""
    cg_pool_set_contended(on)

_ISA_VARIANTS = {0: None, 1: "x86-64 baseline", 3: "x86-64-v3 (AVX2, FMA)",
                 4: "x86-64-v4 (AVX-512)"}

def _kernel_variant():
    """The instruction set the hot CPU loops run with here, or None for a build
    compiled for one CPU (``CYGRAD_ARCH=...``), which has no variants (cpu/isa.h)."""
    return _ISA_VARIANTS[cg_isa_variant()]
