# cython: language_level=3
"""The CUDA caching allocator's per-op path, compiled (``cygrad/cuda/allocator.py``).

Every CUDA op allocates its output and gives a dead tensor's block back. Done in
interpreted Python, ``malloc`` and ``free`` of a cached block were about 5 us of a
small op's 13 us on the host. Here are the pieces that run on every op: the
allocator's blocks (:class:`Block`, C structs whose links the per-op path follows
without attribute lookups), the pools' free lists (:class:`FreeList`),
:func:`malloc`, :func:`free`, the freeing and merging of a block, and the owner of
a CUDA storage's block (:class:`DeviceAllocation`). ``cygrad/cuda/allocator.py``
installs them as ``CachingAllocator``'s methods and ``Block``, derives
``CachingAllocator`` from :class:`AllocatorState` (the state these functions read
on every call, as C fields: the lock, its depth, the pools, the live blocks, the
statistics), and stays the one place of everything else: the
size check and its errors, new segments and the out-of-memory retry, events of
``record_stream``, ``empty_cache`` and the statistics' reading. The objects are the
allocator's own (its dicts, lock, statistics), so the rules and the statistics are
exactly those the module docstring of ``cygrad.cuda.allocator`` states.

Examples
--------
>>> from cygrad._core.alloc_fast import FreeList
>>> class B:
...     def __init__(self, size, ptr):
...         self.size, self.ptr = size, ptr
>>> pool = FreeList()
>>> for size, ptr in ((2048, 0x1000), (512, 0x3000), (1024, 0x2000)):
...     pool.add(B(size, ptr))
>>> hex(pool.best_fit(600).ptr), pool.best_fit(4096)
('0x2000', None)
"""
cimport cython
from libc.stdint cimport uintptr_t
from cpython.mem cimport PyMem_Free, PyMem_Realloc
from libc.string cimport memmove

from cygrad._core.alloc_stats cimport AllocStats
from cygrad._core.storage cimport wrap_foreign

# the statistics' indices (cygrad/cuda/allocator.py's _STAT_NAMES)
cdef enum:
    ALLOCATION = 0
    SEGMENT = 1
    ACTIVE = 2
    INACTIVE_SPLIT = 3
    ALLOCATED_BYTES = 4
    RESERVED_BYTES = 5
    ACTIVE_BYTES = 6
    INACTIVE_SPLIT_BYTES = 7
    REQUESTED_BYTES = 8

cdef long long MIN_BLOCK = 512
cdef long long SMALL_SIZE = 1 << 20


@cython.freelist(64)
cdef class Block:
    """A piece of device memory handed out by a
    :class:`cygrad.cuda.allocator.CachingAllocator`.

    ``ptr`` is the device pointer (an ``int``), ``size`` the bytes it spans
    (the request rounded up, or more when the remainder was too small to split
    off), ``requested`` the bytes asked for, ``stream`` the stream it was
    allocated on and ``device`` its device index. :meth:`free` gives it back to
    its allocator, which caches it. (The attributes with a leading underscore
    are the allocator's: its owner, pool, neighbours in the segment and state.)

    Examples
    --------
    >>> from cygrad.cuda.allocator import Block
    >>> b = Block(None, 0, 0, None, True)
    >>> b.ptr, b.size, b.is_split
    (0, 0, False)
    """
    cdef public object ptr, size, requested, stream, device
    cdef public object _owner, _small, _prev, _next, _stream_uses, _events
    cdef public bint _allocated

    def __init__(self, owner, ptr, size, stream, small, prev=None, next=None):
        self.ptr, self.size, self.requested, self.stream = ptr, size, 0, stream
        self.device = owner.device if owner is not None else None
        self._owner, self._small = owner, small
        self._prev, self._next = prev, next
        self._allocated = False
        self._stream_uses = None    # a set once record_stream names another stream
        self._events = 0            # events still to complete before reuse

    @property
    def is_split(self):
        """True when this block shares its segment with other blocks."""
        return self._prev is not None or self._next is not None

    def free(self):
        """Give the block back to its allocator (see
        :meth:`cygrad.cuda.allocator.CachingAllocator.free`)."""
        if self._owner is not None:
            self._owner.free(self)

    def __repr__(self):
        state = "allocated" if self._allocated else "free"
        return f"Block(ptr={self.ptr:#x}, size={self.size}, device={self.device}, {state})"


cdef Block _new_block(owner, device, ptr, size, stream, small, prev, nxt):
    # Block(owner, ...) without the call's argument parsing
    cdef Block b = Block.__new__(Block)
    b.ptr, b.size, b.requested, b.stream, b.device = ptr, size, 0, stream, device
    b._owner, b._small, b._prev, b._next = owner, small, prev, nxt
    b._allocated = False
    b._stream_uses = None
    b._events = 0
    return b


ctypedef struct _Key:
    long long size
    unsigned long long ptr


cdef class FreeList:
    """One pool's cached blocks of one stream, ordered by (size, ptr) for best fit.

    The keys are a C array sorted by ``(size, ptr)`` (device pointers are unsigned
    64-bit) beside a list of the blocks in the same order: a lookup is a binary
    search over C integers, where Python tuples cost about half a microsecond per
    op. ``keys`` (the sorted ``(size, ptr)`` tuples) and ``blocks`` (each key to its
    block) are copies made when read.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import FreeList
    >>> FreeList().keys
    []
    """
    cdef _Key* _keys
    cdef Py_ssize_t _n, _cap
    cdef list _blocks

    def __cinit__(self):
        self._keys, self._n, self._cap = NULL, 0, 0
        self._blocks = []

    def __dealloc__(self):
        PyMem_Free(self._keys)

    @property
    def keys(self):
        """The cached blocks' ``(size, ptr)``, sorted (a new list)."""
        return [(self._keys[i].size, self._keys[i].ptr) for i in range(self._n)]

    @property
    def blocks(self):
        """``{(size, ptr): block}`` of the cached blocks (a new dict)."""
        return {(self._keys[i].size, self._keys[i].ptr): self._blocks[i]
                for i in range(self._n)}

    def __len__(self):
        return self._n

    cdef Py_ssize_t _lower(self, long long size, unsigned long long ptr) noexcept:
        # the first index whose key is not below (size, ptr)
        cdef Py_ssize_t lo = 0, hi = self._n, mid
        cdef _Key* k
        while lo < hi:
            mid = (lo + hi) >> 1
            k = &self._keys[mid]
            if k.size < size or (k.size == size and k.ptr < ptr):
                lo = mid + 1
            else:
                hi = mid
        return lo

    cpdef add(self, block):
        """Cache ``block``."""
        cdef long long size = block.size
        cdef unsigned long long ptr = block.ptr
        cdef Py_ssize_t i, cap
        cdef _Key* grown
        if self._n == self._cap:
            cap = 16 if self._cap == 0 else 2 * self._cap
            grown = <_Key*>PyMem_Realloc(self._keys, cap * sizeof(_Key))
            if grown == NULL:
                raise MemoryError("FreeList: out of memory")
            self._keys, self._cap = grown, cap
        i = self._lower(size, ptr)
        while i < self._n and self._keys[i].size == size and self._keys[i].ptr == ptr:
            i += 1                                  # (after equal keys, as insort_right)
        self._blocks.insert(i, block)
        memmove(&self._keys[i + 1], &self._keys[i], (self._n - i) * sizeof(_Key))
        self._keys[i].size, self._keys[i].ptr = size, ptr
        self._n += 1

    cpdef remove(self, block):
        """Take ``block`` out (KeyError when it is not cached; nothing changes)."""
        cdef long long size = block.size
        cdef unsigned long long ptr = block.ptr
        cdef Py_ssize_t i = self._lower(size, ptr)
        if i == self._n or self._keys[i].size != size or self._keys[i].ptr != ptr:
            raise KeyError((size, ptr))
        del self._blocks[i]
        memmove(&self._keys[i], &self._keys[i + 1], (self._n - i - 1) * sizeof(_Key))
        self._n -= 1

    cpdef best_fit(self, size):
        """The smallest cached block of at least ``size`` bytes, or None."""
        cdef long long want
        try:
            want = size
        except OverflowError:           # (beyond any block: malloc goes on to its OOM)
            return None
        cdef Py_ssize_t i = self._lower(want, 0)
        return self._blocks[i] if i < self._n else None


# -- the allocator's state (CachingAllocator's base class) ---------------------------

cdef class AllocatorState:
    """The state of a :class:`cygrad.cuda.allocator.CachingAllocator` that its
    per-op path reads, as C fields (``CachingAllocator``'s base class).

    ``_lock`` is the allocator's re-entrant lock and ``_depth`` how deeply its
    holder's calls are nested; ``_deferred`` holds the blocks a finalizer freed in
    the middle of a call; ``_pools`` maps ``(small, stream)`` to that pool's
    :class:`FreeList`; ``_live`` maps each allocated block's pointer to it;
    ``_pending`` holds the freed blocks waiting on other streams' events;
    ``_stats`` the statistics' counters. As attributes of a Python object they
    cost a dictionary lookup each, about a dozen per ``malloc`` and ``free``. The
    pools of the stream last looked up are kept beside ``_pools``, so the per-op
    path hashes no ``(small, stream)`` key (a ``Stream``'s ``__hash__`` is Python).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import AllocatorState
    >>> from cygrad.cuda.allocator import CachingAllocator
    >>> issubclass(CachingAllocator, AllocatorState)
    True
    """
    cdef object _lock_obj, _acquire, _release
    cdef public int _depth
    cdef public list _deferred, _pending
    cdef public dict _pools, _live
    cdef public AllocStats _stats
    # the pools of the stream the last lookup named (None: none made yet); forgotten
    # whenever pools leave _pools (_forget_pools)
    cdef object _last_stream
    cdef FreeList _last_small, _last_large

    def __cinit__(self, *args, **kwargs):
        self._depth = 0
        self._deferred, self._pending = [], []
        self._pools, self._live = {}, {}

    @property
    def _lock(self):
        """The allocator's re-entrant lock (the per-op path keeps its bound
        ``acquire`` and ``release``)."""
        return self._lock_obj

    @_lock.setter
    def _lock(self, lock):
        self._lock_obj, self._acquire, self._release = lock, lock.acquire, lock.release

    def _forget_pools(self):
        """Forget the pools kept beside ``_pools`` (call it after taking pools out
        of ``_pools``)."""
        self._last_stream = self._last_small = self._last_large = None


cdef FreeList _find_pool(AllocatorState alloc, bint small, stream, bint create):
    # alloc._pools[(small, stream)]: made when ``create``, else None when there is none
    cdef FreeList pool
    if stream is not alloc._last_stream:
        alloc._last_small = alloc._pools.get((True, stream))
        alloc._last_large = alloc._pools.get((False, stream))
        alloc._last_stream = stream
    pool = alloc._last_small if small else alloc._last_large
    if pool is None and create:
        pool = alloc._pools.setdefault((small, stream), FreeList())
        if small:
            alloc._last_small = pool
        else:
            alloc._last_large = pool
    return pool


def pool(AllocatorState alloc, small, stream):
    """``alloc._pool``: the pool of ``stream``'s small or large blocks, made if
    there is none.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import pool
    >>> callable(pool)
    True
    """
    return _find_pool(alloc, small, stream, True)


# -- the allocator's lock, held for one call (allocator.py's _Critical) -------------

cdef inline int _enter(AllocatorState alloc) except -1:
    alloc._acquire()
    alloc._depth += 1
    return 0


cdef int _leave(AllocatorState alloc) except -1:
    # the outermost call frees what finalizers freed in the middle of the call
    cdef list deferred
    try:
        if alloc._depth == 1:
            deferred = alloc._deferred
            while deferred:
                _free_now(alloc, deferred.pop())
    finally:
        alloc._depth -= 1
        alloc._release()
    return 0


cdef inline bint _is_split(Block block):
    return block._prev is not None or block._next is not None


def cache(AllocatorState alloc, Block block):
    """``alloc._cache``: put a free block into its pool (counting it if it is an
    inactive split).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import cache
    >>> callable(cache)
    True
    """
    small = block._small
    _find_pool(alloc, small, block.stream, True).add(block)
    if _is_split(block):
        _split_changed(alloc, small, 1, block.size)


def uncache(AllocatorState alloc, Block block):
    """``alloc._uncache``: take a free block out of its pool.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import uncache
    >>> callable(uncache)
    True
    """
    small = block._small
    _find_pool(alloc, small, block.stream, True).remove(block)
    if _is_split(block):
        _split_changed(alloc, small, -1, -block.size)


cdef inline void _split_changed(AllocatorState alloc, bint small, long long count,
                                long long nbytes):
    cdef AllocStats st = alloc._stats
    cdef int pool = 1 if small else 2
    st.add(pool, INACTIVE_SPLIT, count)
    st.add(pool, INACTIVE_SPLIT_BYTES, nbytes)


def malloc(AllocatorState alloc, nbytes, stream):
    """A block of at least ``nbytes`` bytes for use on ``stream``
    (:meth:`cygrad.cuda.allocator.CachingAllocator.malloc`).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import malloc
    >>> callable(malloc)
    True
    """
    return _malloc(alloc, nbytes, stream)


cdef Block _malloc(AllocatorState alloc, nbytes, stream):
    if type(nbytes) is not int or nbytes <= 0:
        nbytes = alloc._check_size(nbytes)      # TypeError/ValueError, or an int >= 0
        if nbytes == 0:
            return Block(None, 0, 0, stream, True)
    size = -(-nbytes // MIN_BLOCK) * MIN_BLOCK      # round_size (nbytes > 0)
    cdef bint small = size <= SMALL_SIZE
    cdef int p = 1 if small else 2
    cdef AllocStats st = alloc._stats
    cdef FreeList pool
    cdef Block block, rest, nxt
    _enter(alloc)
    try:
        if alloc._pending:
            alloc._process_events()
        pool = _find_pool(alloc, small, stream, False)
        cached = pool.best_fit(size) if pool is not None else None
        if cached is not None:
            block = <Block?>cached
            pool.remove(block)
            if _is_split(block):
                st.add(p, INACTIVE_SPLIT, -1)
                st.add(p, INACTIVE_SPLIT_BYTES, -block.size)
            block = _reissue(block)
        else:
            block = <Block?>alloc._new_segment(size, small, stream, nbytes)
            pool = _find_pool(alloc, small, stream, True)  # (after: a cache release drops pools)
        remaining = block.size - size
        if remaining >= MIN_BLOCK if small else remaining > SMALL_SIZE:
            rest = _new_block(alloc, block.device, block.ptr + size, remaining, stream, small,
                              block, block._next)
            if block._next is not None:
                nxt = <Block?>block._next
                nxt._prev = rest
            block._next = rest
            block.size = size
            pool.add(rest)                      # a split block: counted as inactive split
            st.add(p, INACTIVE_SPLIT, 1)
            st.add(p, INACTIVE_SPLIT_BYTES, remaining)
        block._allocated = True
        block.requested = nbytes
        alloc._live[block.ptr] = block
        size = block.size
        st.add(p, ALLOCATION, 1)
        st.add(p, ALLOCATED_BYTES, size)
        st.add(p, ACTIVE, 1)
        st.add(p, ACTIVE_BYTES, size)
        st.add(p, REQUESTED_BYTES, nbytes)
        return block
    finally:
        _leave(alloc)


cdef Block _reissue(Block old):
    # a new Block object in old's place, so a stale handle to old (a double free) is
    # refused instead of freeing its new owner's memory
    cdef Block block = _new_block(old._owner, old.device, old.ptr, old.size, old.stream,
                                  old._small, old._prev, old._next)
    if old._prev is not None:
        (<Block?>old._prev)._next = block
    if old._next is not None:
        (<Block?>old._next)._prev = block
    old._prev = old._next = None
    return block


def free(AllocatorState alloc, block):
    """Give ``block`` back (:meth:`cygrad.cuda.allocator.CachingAllocator.free`).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import free
    >>> callable(free)
    True
    """
    _free(alloc, block)


cdef int _free(AllocatorState alloc, block) except -1:
    _enter(alloc)
    try:
        if alloc._depth > 1:
            # a finalizer the garbage collector ran in the middle of this thread's own
            # allocator call: changing the pools now would corrupt them
            alloc._deferred.append(block)
            return 0
        _free_now(alloc, block)
    finally:
        _leave(alloc)
    return 0


def free_now(AllocatorState alloc, obj):
    """``alloc._free_now``: free a block with the lock held and no call under way.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import free_now
    >>> callable(free_now)
    True
    """
    _free_now(alloc, obj)


cdef int _free_now(AllocatorState alloc, obj) except -1:
    cdef Block block
    if not isinstance(obj, Block):
        alloc._check_live(obj)                  # raises TypeError
    block = <Block>obj
    if block._owner is not alloc or alloc._live.get(block.ptr) is not block:
        alloc._check_live(block)                # raises, unless the zero-size block
        if block._owner is None:
            return 0
    del alloc._live[block.ptr]
    block._allocated = False
    if block._stream_uses:
        alloc._free_later(block)
        return 0
    cdef AllocStats st = alloc._stats
    cdef int p = 1 if block._small else 2
    st.add(p, ALLOCATION, -1)
    st.add(p, ALLOCATED_BYTES, -block.size)
    st.add(p, REQUESTED_BYTES, -block.requested)
    _free_block(alloc, block)
    return 0


def free_block(AllocatorState alloc, Block block):
    """``alloc._free_block``: return a no-longer-active block to its pool, merged
    with its free neighbours.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import free_block
    >>> callable(free_block)
    True
    """
    _free_block(alloc, block)


cdef int _free_block(AllocatorState alloc, Block block) except -1:
    cdef Block neighbour
    small = block._small
    cdef long long active = block.size
    for other in (block._prev, block._next):
        if other is None:
            continue
        neighbour = <Block?>other
        if neighbour._allocated or neighbour._events:
            continue
        alloc._uncache(neighbour)         # (an attribute: tests hook it to re-enter)
        if neighbour is block._prev:
            block.ptr, block._prev = neighbour.ptr, neighbour._prev
            if neighbour._prev is not None:
                (<Block?>neighbour._prev)._next = block
        else:
            block._next = neighbour._next
            if neighbour._next is not None:
                (<Block?>neighbour._next)._prev = block
        block.size += neighbour.size
    _find_pool(alloc, small, block.stream, True).add(block)
    cdef AllocStats st = alloc._stats
    cdef int p = 1 if small else 2
    st.add(p, ACTIVE, -1)
    st.add(p, ACTIVE_BYTES, -active)
    if _is_split(block):
        st.add(p, INACTIVE_SPLIT, 1)
        st.add(p, INACTIVE_SPLIT_BYTES, block.size)
    return 0


# -- the owner of a CUDA storage's block (cygrad/cuda/tensors.py) --------------------

cdef bint _exiting = False
cdef object _caching_allocator = None      # cygrad.cuda.allocator.CachingAllocator


def set_allocator_class(cls):
    """Name the allocator class whose ``free`` is this module's :func:`free`, so a
    storage's finalizer calls it directly (``cygrad/cuda/allocator.py`` calls this).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import set_allocator_class
    >>> callable(set_allocator_class)
    True
    """
    global _caching_allocator
    if cls.free is not free:
        raise ValueError("the class's free must be alloc_fast.free")
    _caching_allocator = cls


def interpreter_exiting():
    """Stop giving blocks back: at interpreter exit the driver goes away with the
    process (``cygrad/cuda/tensors.py`` calls this from ``atexit``).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import interpreter_exiting
    >>> callable(interpreter_exiting)
    True
    """
    global _exiting
    _exiting = True


# (no freelist: an object reused from one keeps its "finalized" mark, and its next
# owner's __del__ would never run)
@cython.no_gc_clear         # (the finalizer needs the block, also inside a garbage cycle)
cdef class DeviceAllocation:
    """Owner of a CUDA storage's block: gives it back to the allocator with the storage.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import DeviceAllocation
    >>> DeviceAllocation(None).exclusive_device_memory
    True
    """
    cdef public object block

    def __init__(self, block):
        self.block = block

    @property
    def exclusive_device_memory(self):
        """True: the memory is this storage's alone (not imported from another
        library), so the autograd engine may keep a leaf's first gradient as
        ``.grad`` without copying it."""
        return True

    def __del__(self):
        # a finalizer (not __dealloc__): it runs, as a Python __del__ would, before
        # the collector clears anything of a garbage cycle
        if _exiting:
            return
        block = self.block
        if block is not None:
            owner = (<Block?>block)._owner
            if type(owner) is _caching_allocator:
                _free(<AllocatorState>owner, block)     # (its free, without the method call)
            elif owner is not None:
                owner.free(block)


# -- a CUDA storage's allocation: the core's empty hook (cygrad/cuda/tensors.py) -----
#
# Every CUDA op's output comes through here: the stream current on the device, a
# block from its allocator and a Storage owning it. Only the common case is here
# (the device and driver of the last allocation, that driver's allocator, this
# thread's streams made for it); every other case, and every check, is the Python
# function bound as _empty_slow (tensors._empty_storage), which also fills the
# shared _last_checked list this path reads.

cdef object _drv_mod = None         # cygrad.cuda._driver: ._driver is the process's driver
cdef object _tls = None             # cygrad.cuda._runtime._tls (.driver, .streams)
cdef object _thread_streams = None  # cygrad.cuda._runtime.thread_streams
cdef dict _default_streams = None   # cygrad.cuda.streams._DEFAULT_STREAMS
cdef object _stream_default = None  # cygrad.cuda.streams.Stream._default
cdef list _last_checked = None      # tensors._last_checked: (device, driver, index, Device)
cdef dict _allocators = None        # cygrad.cuda._runtime._allocators
cdef dict _runtime_state = None     # cygrad.cuda._runtime._state
cdef object _empty_slow = None      # tensors._empty_storage


def bind_streams(drv_mod, tls, thread_streams, dict default_streams, stream_default):
    """Give :func:`current_stream` the objects it reads (``cygrad/cuda/streams.py``
    calls this once).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import bind_streams
    >>> callable(bind_streams)
    True
    """
    global _drv_mod, _tls, _thread_streams, _default_streams, _stream_default
    _drv_mod, _tls, _thread_streams = drv_mod, tls, thread_streams
    _default_streams, _stream_default = default_streams, stream_default


def current_stream(idx):
    """This thread's current stream on device ``idx`` (already checked): the
    compiled ``cygrad.cuda.streams._current_stream``, run for every op.

    This thread's streams are read directly when it already runs the process's
    driver, else through ``_runtime.thread_streams()``, which activates it.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import current_stream
    >>> callable(current_stream)
    True
    """
    return _current_stream(idx)


cdef object _current_stream(idx):
    d = _drv_mod._driver
    if d is not None and getattr(_tls, "driver", None) is d:
        streams = _tls.streams
    else:
        streams = _thread_streams()
    s = streams.get(idx)
    if s is None:
        s = _default_streams.get(idx)
        if s is None:
            s = _stream_default(idx)
    return s


def bind_empty(list last_checked, dict allocators, dict runtime_state, empty_slow):
    """Give :func:`empty_storage` the objects it reads (``cygrad/cuda/tensors.py``
    calls this once, after :func:`bind_streams`).

    Examples
    --------
    >>> from cygrad._core.alloc_fast import bind_empty
    >>> callable(bind_empty)
    True
    """
    global _last_checked, _allocators, _runtime_state, _empty_slow
    if len(last_checked) != 4:
        raise ValueError("last_checked must be a list of 4 items")
    _last_checked, _allocators, _runtime_state = last_checked, allocators, runtime_state
    _empty_slow = empty_slow


def empty_storage(nbytes, device):
    """A Storage of ``nbytes`` bytes on CUDA ``device`` for the current stream: the
    core's empty hook. The common case is compiled; the rest is
    ``tensors._empty_storage``'s.

    Examples
    --------
    >>> from cygrad._core.alloc_fast import empty_storage
    >>> callable(empty_storage)
    True
    """
    cdef list last = _last_checked
    drv = _drv_mod._driver
    # (the list may be refilled by the Python path at any call: read it once)
    if (drv is None or type(nbytes) is not int or device is not last[0]
            or drv is not last[1]):
        return _empty_slow(nbytes, device)
    idx, dev = last[2], last[3]
    alloc = _allocators.get(idx)
    if (alloc is None or type(alloc) is not _caching_allocator
            or _runtime_state["driver"] is not drv):
        return _empty_slow(nbytes, device)
    cdef Block block = _malloc(<AllocatorState>alloc, nbytes if nbytes > 1 else 1,
                               _current_stream(idx))
    cdef DeviceAllocation owner = DeviceAllocation.__new__(DeviceAllocation)
    owner.block = block
    return wrap_foreign(<char*><uintptr_t>block.ptr, nbytes, owner, dev)
