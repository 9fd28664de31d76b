"""Storage: a flat buffer on one device, plus cygrad's caching host allocator.

Why a cache: a fresh 40 MB buffer from ``malloc`` is ``mmap``-ed memory, and the first
write to each 4 KiB page costs a page fault. For a 10M-element elementwise op those
faults take longer than the arithmetic. Like the CUDA caching allocator in the PyTorch
paper, freed large blocks are kept (up to a bound) and handed out again. Large blocks
are 2 MiB aligned and marked ``MADV_HUGEPAGE`` so that even first use faults 512x less.
Small blocks go straight to ``malloc``, which already caches them well.
"""
cimport cython
from libc.stdlib cimport malloc, free
from libc.string cimport memset
from libc.stdint cimport uintptr_t

cdef extern from "<stdlib.h>" nogil:
    int posix_memalign(void** memptr, size_t alignment, size_t size)

cdef extern from "<sys/mman.h>" nogil:
    int madvise(void* addr, size_t length, int advice)
    int MADV_HUGEPAGE

cdef Py_ssize_t LARGE_BLOCK = 1 << 20       # blocks from here up are cached
cdef Py_ssize_t HUGE_PAGE = 1 << 21

# size -> list of free blocks (addresses as ints). Guarded by the GIL: every
# allocation and release happens while it is held.
cdef dict _free_blocks = {}
cdef Py_ssize_t _cached_bytes = 0
cdef Py_ssize_t _cache_limit = 2 << 30
cdef Py_ssize_t _allocated_bytes = 0
cdef Py_ssize_t _peak_allocated = 0
cdef Py_ssize_t _hits = 0
cdef Py_ssize_t _misses = 0


# cygrad.profiler(profile_memory=True) sees every block taken and given back. Off,
# the allocator pays one C flag test; on, ``_memory_hook(address, bytes, allocated)``
# is called with +bytes for an allocation and -bytes for a release.
cdef bint _memory_profiling = False
cdef object _memory_hook = None


def _set_memory_hook(fn):
    """Install ``fn(address, nbytes, allocated_bytes)`` (``None`` removes it)."""
    global _memory_profiling, _memory_hook
    _memory_hook = fn
    _memory_profiling = fn is not None


cdef void _report(void* p, Py_ssize_t nbytes) noexcept:
    # called from Storage.__dealloc__ too, where an exception cannot propagate
    try:
        _memory_hook(<uintptr_t>p, nbytes, _allocated_bytes)
    except BaseException:
        pass


cdef inline Py_ssize_t _round_size(Py_ssize_t n):
    if n < LARGE_BLOCK:
        return n if n > 0 else 1
    return (n + HUGE_PAGE - 1) // HUGE_PAGE * HUGE_PAGE


cdef char* _host_alloc(Py_ssize_t size) except NULL:
    global _cached_bytes, _allocated_bytes, _peak_allocated, _hits, _misses
    cdef void* p = NULL
    cdef list bucket
    if size >= LARGE_BLOCK:
        bucket = _free_blocks.get(size)
        if bucket:
            p = <void*><uintptr_t>bucket.pop()
            _cached_bytes -= size
            _hits += 1
        else:
            _misses += 1
            if posix_memalign(&p, HUGE_PAGE, size) != 0:
                _release_cache()
                if posix_memalign(&p, HUGE_PAGE, size) != 0:
                    raise MemoryError(f"cygrad: could not allocate {size} bytes of host memory")
            madvise(p, size, MADV_HUGEPAGE)
    else:
        p = malloc(size)
        if p == NULL:
            raise MemoryError(f"cygrad: could not allocate {size} bytes of host memory")
    _allocated_bytes += size
    if _allocated_bytes > _peak_allocated:
        _peak_allocated = _allocated_bytes
    if _memory_profiling:
        _report(p, size)
    return <char*>p


cdef void _host_free(char* p, Py_ssize_t size):
    global _cached_bytes, _allocated_bytes
    _allocated_bytes -= size
    if _memory_profiling:
        _report(p, -size)
    if size >= LARGE_BLOCK and _cached_bytes + size <= _cache_limit:
        bucket = _free_blocks.get(size)
        if bucket is None:
            _free_blocks[size] = [<uintptr_t>p]
        else:
            bucket.append(<uintptr_t>p)
        _cached_bytes += size
    else:
        free(p)


cdef void _release_cache():
    global _cached_bytes
    for bucket in _free_blocks.values():
        for addr in bucket:
            free(<void*><uintptr_t>addr)
    _free_blocks.clear()
    _cached_bytes = 0


def empty_cache():
    """Return every cached (free) host block to the operating system.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.memory.empty_cache()
    >>> cygrad.memory.host_stats()["cached_bytes"]
    0
    """
    _release_cache()


def set_cache_limit(Py_ssize_t nbytes):
    """Cap the bytes the host cache may hold on to (default 2 GiB); 0 disables caching."""
    global _cache_limit
    _cache_limit = nbytes
    if _cached_bytes > nbytes:
        _release_cache()


def host_stats():
    """Counters of the host allocator: bytes in use, cached, the peak, cache hits/misses.

    Examples
    --------
    >>> import cygrad
    >>> sorted(cygrad.memory.host_stats())[:2]
    ['allocated_bytes', 'cache_limit']
    """
    return {
        "allocated_bytes": _allocated_bytes,
        "cached_bytes": _cached_bytes,
        "peak_allocated_bytes": _peak_allocated,
        "cache_limit": _cache_limit,
        "hits": _hits,
        "misses": _misses,
    }


@cython.no_gc
cdef class Storage:
    """A flat, untyped buffer on one device. Tensors are views into a Storage.

    ``version`` counts in-place writes through any view; autograd compares it with the
    version a saved tensor had to catch unsafe in-place changes.
    """

    def __dealloc__(self):
        if self.alloc_bytes and self.data != NULL:
            _host_free(self.data, self.alloc_bytes)
        self.data = NULL

    @property
    def nbytes(self):
        return self.nbytes

    def data_ptr(self):
        return <uintptr_t>self.data

    def size(self):
        return self.nbytes

    def __repr__(self):
        return f"<cygrad.Storage {self.nbytes} bytes on {self.device}>"


cdef object _cpu_device = None


def _set_cpu_device(dev):
    global _cpu_device
    _cpu_device = dev


cdef Storage new_host_storage(Py_ssize_t nbytes):
    cdef Storage s = Storage.__new__(Storage)
    cdef Py_ssize_t size = _round_size(nbytes)
    s.data = _host_alloc(size)
    s.alloc_bytes = size
    s.nbytes = nbytes
    s.device = _cpu_device
    return s


cdef Storage wrap_foreign(char* data, Py_ssize_t nbytes, object owner, object device):
    cdef Storage s = Storage.__new__(Storage)
    s.data = data
    s.nbytes = nbytes
    s.owner = owner
    s.device = device
    return s


def _device_storage(object ptr, Py_ssize_t nbytes, object owner, object device):
    """A Storage over device memory: ``ptr`` is the driver's opaque device pointer,
    ``owner`` the allocation (kept alive, and so freed, with the storage). Only the
    device backend reads ``data_ptr()`` of such a storage; CPU kernels refuse it."""
    cdef Storage s = Storage.__new__(Storage)
    s.data = <char*><uintptr_t>ptr
    s.nbytes = nbytes
    s.owner = owner
    s.device = device
    return s
