"""The caching device allocator: reuse freed device memory without calling the driver.

Raw ``cudaMalloc``/``cudaFree`` calls synchronise the device and cost far more
than a kernel launch, so (as in PyTorch, paper section 5.3) device memory is
taken from the driver in *segments* and handed out as *blocks* carved from
them; a freed block goes back to a pool, not to the driver.

The rules:

- Request sizes are rounded up to a multiple of 512 bytes (512 at least).
- Requests of at most 1 MiB come from the **small pool**, whose segments are
  2 MiB; larger ones from the **large pool**, whose segments are the request
  rounded up to 2 MiB.
- The smallest cached block that fits is used (best fit). A block bigger than
  the request is split and the remainder stays cached: in the small pool when
  at least 512 bytes remain, in the large pool when more than 1 MiB remains (a
  smaller remainder could never serve a large request).
- Freeing a block merges it with free neighbours of its segment.
- Pools are kept per stream: a block freed on stream ``s`` is reused only by
  allocations on ``s``, because work queued on ``s`` is ordered after the
  block's last use. :meth:`CachingAllocator.record_stream` marks a block as
  used on another stream too; when such a block is freed, an event is recorded
  on each of those streams, and the block is reused only once all have
  completed.
- When the driver runs out of memory, the cache of unused segments is given
  back (:meth:`CachingAllocator.empty_cache`) and the allocation retried once;
  if that fails too, :class:`OutOfMemoryError` says how much was asked for and
  how the device's memory is used.

Statistics follow ``torch.cuda.memory_stats``'s keys; see :meth:`stats`.

Examples
--------
>>> from cygrad.cuda.allocator import round_size, segment_size
>>> round_size(1), round_size(513), segment_size(round_size(1000))
(512, 1024, 2097152)
>>> segment_size(3 * 2**20 + 1) // 2**20
4
"""
import operator
import threading
from contextlib import nullcontext

from .._core import alloc_fast as _fast
from .._core.alloc_stats import AllocStats

__all__ = ["Block", "CachingAllocator", "OutOfMemoryError", "round_size", "segment_size",
           "record_stream", "format_size"]

MIN_BLOCK = 512                 # every block size is a multiple of this
SMALL_SIZE = 1 << 20            # requests up to this size use the small pool
SMALL_SEGMENT = 2 << 20         # the small pool's segment size
LARGE_ROUND = 2 << 20           # the large pool's segments are multiples of this

_STAT_NAMES = ("allocation", "segment", "active", "inactive_split", "allocated_bytes",
               "reserved_bytes", "active_bytes", "inactive_split_bytes", "requested_bytes")
_COUNTERS = ("num_alloc_retries", "num_ooms", "num_sync_all_streams", "num_device_alloc",
             "num_device_free")
_POOLS = ("all", "small_pool", "large_pool")
_FIELDS = ("current", "peak", "allocated", "freed")
# index of each statistic in the allocator's flat arrays: 3 * stat + pool, pool
# 0 (all), 1 (small) or 2 (large)
(ALLOCATION, SEGMENT, ACTIVE, INACTIVE_SPLIT, ALLOCATED_BYTES, RESERVED_BYTES, ACTIVE_BYTES,
 INACTIVE_SPLIT_BYTES, REQUESTED_BYTES) = range(len(_STAT_NAMES))


class OutOfMemoryError(RuntimeError):
    """The device could not provide the memory asked for (``torch.cuda.OutOfMemoryError``).

    Raised after the allocator has given its cached, unused segments back to the
    driver and retried. The message gives the request and the device's total,
    free, allocated and reserved amounts; they are also attributes, in bytes:
    ``requested``, ``total``, ``free``, ``allocated``, ``reserved``.

    Examples
    --------
    >>> from cygrad.cuda import OutOfMemoryError
    >>> issubclass(OutOfMemoryError, RuntimeError)
    True
    """

    def __init__(self, message, requested=0, total=0, free=0, allocated=0, reserved=0):
        super().__init__(message)
        self.requested, self.total, self.free = requested, total, free
        self.allocated, self.reserved = allocated, reserved


def round_size(nbytes):
    """Bytes a request of ``nbytes`` occupies: a multiple of 512, at least 512.

    Examples
    --------
    >>> from cygrad.cuda.allocator import round_size
    >>> [round_size(n) for n in (1, 512, 513, 4096)]
    [512, 512, 1024, 4096]
    """
    if nbytes < MIN_BLOCK:
        return MIN_BLOCK
    return -(-nbytes // MIN_BLOCK) * MIN_BLOCK


def segment_size(rounded):
    """Bytes asked of the driver when no cached block fits a ``rounded`` request.

    Examples
    --------
    >>> from cygrad.cuda.allocator import segment_size
    >>> segment_size(512) == segment_size(2**20) == 2**21
    True
    >>> segment_size(2**20 + 512) == 2**21
    True
    """
    if rounded <= SMALL_SIZE:
        return SMALL_SEGMENT
    return -(-rounded // LARGE_ROUND) * LARGE_ROUND


def format_size(nbytes):
    """``nbytes`` as PyTorch's memory messages write it (``"2.00 MiB"``).

    Examples
    --------
    >>> from cygrad.cuda.allocator import format_size
    >>> format_size(512), format_size(3 * 2**20), format_size(4 * 2**30)
    ('512 bytes', '3.00 MiB', '4.00 GiB')
    """
    if nbytes <= 1024:
        return f"{nbytes} bytes"
    for unit, scale in (("KiB", 2**10), ("MiB", 2**20), ("GiB", 2**30)):
        if nbytes <= scale * 1024 or unit == "GiB":
            return f"{nbytes / scale:.2f} {unit}"


# a piece of device memory handed out by a CachingAllocator (compiled: the per-op
# path follows its links without attribute lookups)
Block = _fast.Block


# one pool's cached blocks of one stream, ordered by (size, ptr) for best fit
_FreeList = _fast.FreeList


class _Critical:
    """An allocator's lock held for one call (``with allocator._critical:``).

    A CUDA tensor's storage gives its block back from a finalizer, which the
    garbage collector may run inside any allocation of this thread, also one made
    in the middle of an allocator call (the lock is re-entrant, so it does not
    keep the thread out). :meth:`CachingAllocator.free` then only queues the
    block, and the outermost call frees the queued blocks on its way out.
    """
    __slots__ = ("_alloc",)

    def __init__(self, alloc):
        self._alloc = alloc

    def __enter__(self):
        a = self._alloc
        a._lock.acquire()
        a._depth += 1

    def __exit__(self, *exc):
        a = self._alloc
        try:
            if a._depth == 1:
                while a._deferred:
                    a._free_now(a._deferred.pop())
        finally:
            a._depth -= 1
            a._lock.release()


class CachingAllocator(_fast.AllocatorState):
    """The caching allocator of one device (see the module docstring for its rules).

    ``driver`` is a :class:`cygrad.cuda._driver.Driver`; ``device`` the device
    index whose memory this allocator manages; ``on_device`` a function returning
    a context manager under which the driver's current device is ``device``
    (raw allocations and frees and events go to the current device). Streams are
    any hashable objects with a ``handle`` attribute holding the driver's stream
    handle (``cygrad.cuda.Stream``). Thread-safe.

    Examples
    --------
    >>> from cygrad.cuda.allocator import CachingAllocator
    >>> callable(CachingAllocator.malloc) and callable(CachingAllocator.record_stream)
    True
    """

    def __init__(self, driver, device=0, on_device=None):
        self.driver, self.device = driver, device
        self._on_device = on_device or (lambda: nullcontext())
        # the per-op path's state is C fields of _fast.AllocatorState (compiled:
        # cygrad/_core/alloc_fast.pyx), set here as before
        self._lock = threading.RLock()
        self._depth = 0                 # nested allocator calls of the lock's holder
        self._deferred = []             # blocks freed by a finalizer that ran inside
        self._critical = _Critical(self)
        self._pools = {}                # (small, stream) -> _FreeList
        self._live = {}                 # ptr -> allocated Block
        self._pending = []              # (block, [events]) freed, waiting on other streams
        self._spare_events = []
        self.memory_fraction = 1.0
        self._limit = None              # bytes this allocator may reserve, when limited
        # current, peak, total increase, total decrease of each statistic, as C counters;
        # _update(small, *(stat, delta)) applies changes to the pool small chooses and to
        # "all" (a bound C method: no Python frame on every malloc and free)
        self._stats = AllocStats(len(_STAT_NAMES))
        self._update = self._stats.update
        self._counters = dict.fromkeys(_COUNTERS, 0)

    # -- statistics ----------------------------------------------------------
    def stats(self):
        """The statistics as ``torch.cuda.memory_stats`` flattens them.

        For each of ``allocation`` (blocks handed out), ``allocated_bytes``,
        ``requested_bytes`` (their sizes before rounding), ``active`` and
        ``active_bytes`` (handed out, or freed and waiting on other streams'
        events), ``inactive_split`` and ``inactive_split_bytes`` (cached blocks in
        segments that are split, which :meth:`empty_cache` cannot give back),
        ``segment`` and ``reserved_bytes`` (what the driver gave): the keys
        ``"<name>.<pool>.<field>"`` with pool ``all``, ``small_pool`` or
        ``large_pool`` and field ``current``, ``peak``, ``allocated`` (total
        increase) or ``freed`` (total decrease); and the counters
        ``num_alloc_retries``, ``num_ooms``, ``num_sync_all_streams``,
        ``num_device_alloc`` and ``num_device_free``. Keys are sorted.
        """
        with self._critical:
            out = {}
            fields = self._stats.fields()
            for i, name in enumerate(_STAT_NAMES):
                for p, pool in enumerate(_POOLS):
                    for field, values in zip(_FIELDS, fields):
                        out[f"{name}.{pool}.{field}"] = values[3 * i + p]
            out.update(self._counters)
            return dict(sorted(out.items()))

    def reset_peak_stats(self):
        """Set every peak to its current value."""
        with self._critical:
            self._stats.reset_peak()

    def reset_accumulated_stats(self):
        """Zero every ``allocated``/``freed`` total and the counters."""
        with self._critical:
            self._stats.reset_accumulated()
            self._counters = dict.fromkeys(_COUNTERS, 0)

    # -- pools ---------------------------------------------------------------
    # the pool of (small, stream), made if there is none (compiled: the per-op path
    # keeps the last stream's pools beside self._pools)
    _pool = _fast.pool

    # put a free block into its pool (counting it if it is an inactive split), and
    # take it out: compiled (cygrad/_core/alloc_fast.pyx), as the per-op path below
    _cache = _fast.cache
    _uncache = _fast.uncache

    # -- allocation ----------------------------------------------------------
    # The per-op path (malloc, free, and freeing a block) is compiled:
    # cygrad/_core/alloc_fast.pyx, the same rules on this class's objects.
    malloc = _fast.malloc
    malloc.__doc__ = """A :class:`Block` of at least ``nbytes`` bytes for use on ``stream``.

        Reuses a cached block when one of this stream's pool fits; otherwise asks
        the driver for a new segment, emptying the cache and retrying once if the
        driver is out of memory. Raises :class:`OutOfMemoryError` when that fails
        too. ``nbytes == 0`` gives a block with ``ptr == 0`` that owns nothing.
        """

    @staticmethod
    def _check_size(nbytes):
        """``nbytes`` as an int >= 0 (malloc's argument check, not on its fast path)."""
        if type(nbytes) is not int:
            if isinstance(nbytes, bool):
                raise TypeError("allocation size must be an int, got bool")
            try:
                nbytes = operator.index(nbytes)     # NumPy integers too
            except TypeError:
                raise TypeError(f"allocation size must be an int, got {type(nbytes).__name__}") from None
        if nbytes < 0:
            raise ValueError(f"allocation size must be non-negative, got {nbytes}")
        return nbytes

    def _new_segment(self, size, small, stream, nbytes):
        seg = segment_size(size)
        ptr = self._raw_alloc(seg)
        if ptr is None:
            self._counters["num_alloc_retries"] += 1
            self._release_cached()
            ptr = self._raw_alloc(seg)
        if ptr is None:
            self._counters["num_ooms"] += 1
            raise self._oom_error(nbytes)
        self._update(small, (SEGMENT, 1), (RESERVED_BYTES, seg))
        return Block(self, ptr, seg, stream, small)

    def set_memory_fraction(self, fraction):
        """Reserve at most ``fraction`` (0 to 1) of the device's total memory; requests
        beyond it fail as if the device were full (after the usual cache release)."""
        with self._critical:
            with self._on_device():
                total = self.driver.mem_get_info()[1]
            self.memory_fraction = fraction
            self._limit = None if fraction >= 1.0 else int(total * fraction)

    def _raw_alloc(self, nbytes):
        limit = self._limit
        if limit is not None and self._stats.current(3 * RESERVED_BYTES) + nbytes > limit:
            return None
        try:
            with self._on_device():
                ptr = self.driver.mem_alloc(nbytes)
        except MemoryError:
            return None
        self._counters["num_device_alloc"] += 1
        return ptr

    def _oom_error(self, nbytes):
        with self._on_device():
            free, total = self.driver.mem_get_info()
        allocated = self._stats.current(3 * ALLOCATED_BYTES)
        reserved = self._stats.current(3 * RESERVED_BYTES)
        limit = "" if self._limit is None else (
            f"cygrad may reserve {format_size(self._limit)} of it "
            "(set_per_process_memory_fraction). ")
        msg = (f"CUDA out of memory. Tried to allocate {format_size(nbytes)}. GPU {self.device} "
               f"has a total capacity of {format_size(total)} of which {format_size(free)} is "
               f"free; {format_size(total - free)} is in use, by cygrad and any other user. "
               f"{limit}Of the allocated memory {format_size(allocated)} is allocated by cygrad, and "
               f"{format_size(reserved - allocated)} is reserved by cygrad but unallocated. "
               "See docs/cuda.md, section 'The caching allocator'.")
        return OutOfMemoryError(msg, requested=nbytes, total=total, free=free,
                                allocated=allocated, reserved=reserved)

    # -- freeing -------------------------------------------------------------
    def _check_live(self, block):
        if not isinstance(block, Block):
            raise TypeError(f"expected a cygrad.cuda.allocator.Block, got {type(block).__name__}")
        if block._owner is not None and (block._owner is not self
                                         or self._live.get(block.ptr) is not block):
            raise RuntimeError(f"invalid device pointer: {block.ptr:#x} is not allocated "
                               f"by cuda:{self.device}'s caching allocator (freed twice?)")

    free = _fast.free
    free.__doc__ = """Give ``block`` back: cached for its stream now, or, when
        :meth:`record_stream` marked other streams, once an event recorded on each
        of them now has completed. Freeing a block twice raises RuntimeError."""
    _free_now = _fast.free_now
    _free_block = _fast.free_block

    def _free_later(self, block):
        """Free ``block`` once the work queued now on the streams :meth:`record_stream`
        named is done: an event recorded on each, checked by :meth:`_process_events`."""
        self._update(block._small, (ALLOCATION, -1), (ALLOCATED_BYTES, -block.size),
                     (REQUESTED_BYTES, -block.requested))
        events = []
        with self._on_device():
            for s in block._stream_uses:
                ev = self._spare_events.pop() if self._spare_events \
                    else self.driver.event_create()
                self.driver.event_record(ev, s.handle)
                events.append(ev)
        block._stream_uses = None
        block._events = len(events)
        self._pending.append((block, events))

    def record_stream(self, block, stream):
        """Mark ``block`` as used by work queued on ``stream`` as well as its own.

        Its memory is then not reused after :meth:`free` until that work is done
        (``Tensor.record_stream``'s rule). Recording the block's own stream does
        nothing.
        """
        with self._critical:
            self._check_live(block)
            if block._owner is None or stream == block.stream:
                return
            other = getattr(stream, "device_index", self.device)
            if other != self.device:
                raise RuntimeError(f"record_stream: the block is on cuda:{self.device} and the "
                                   f"stream on cuda:{other}; cross-device use is not supported")
            if block._stream_uses is None:
                block._stream_uses = set()
            block._stream_uses.add(stream)

    def _process_events(self, wait=False):
        """Cache the freed blocks whose events have all completed (waiting if ``wait``)."""
        if not self._pending:
            return
        still, done = [], []
        with self._on_device():
            for block, events in self._pending:
                if wait:
                    for ev in events:
                        self.driver.event_synchronize(ev)
                elif not all(self.driver.event_query(ev) for ev in events):
                    still.append((block, events))
                    continue
                self._spare_events.extend(events)
                done.append(block)
        self._pending = still
        for block in done:
            # one at a time, so a done neighbour still waiting here is not merged
            # before it is cached
            block._events = 0
            self._free_block(block)

    # -- giving memory back --------------------------------------------------
    def _release_cached(self):
        if self._pending:
            self._counters["num_sync_all_streams"] += 1
            self._process_events(wait=True)
        for key, pool in list(self._pools.items()):
            small = key[0]
            for block in [b for b in pool.blocks.values() if not b.is_split]:
                pool.remove(block)
                with self._on_device():
                    self.driver.mem_free(block.ptr)
                self._counters["num_device_free"] += 1
                self._update(small, (SEGMENT, -1), (RESERVED_BYTES, -block.size))
            if not pool.keys:           # forget the pools of streams no longer used
                del self._pools[key]
                self._forget_pools()

    def empty_cache(self):
        """Give every cached segment with no block in use back to the driver.

        Blocks freed on one stream but waiting for another stream's work are
        waited for first. Segments of which part is in use stay.
        """
        with self._critical:
            self._release_cached()

    # -- lookups -------------------------------------------------------------
    def block_of(self, ptr):
        """The allocated :class:`Block` whose pointer is ``ptr``; RuntimeError if none."""
        with self._critical:
            block = self._live.get(ptr)
            if block is None:
                raise RuntimeError(f"invalid device pointer: {ptr:#x} is not allocated by "
                                   f"cuda:{self.device}'s caching allocator")
            return block



# a storage's finalizer frees this class's blocks without the method lookup
_fast.set_allocator_class(CachingAllocator)


def record_stream(block, stream):
    """Mark ``block`` as in use on ``stream`` until the work queued there now is done.

    The allocator-level form of ``torch.Tensor.record_stream`` (see
    :meth:`CachingAllocator.record_stream`).

    Examples
    --------
    >>> from cygrad.cuda.allocator import record_stream
    >>> callable(record_stream)
    True
    """
    if not isinstance(block, Block):
        raise TypeError(f"expected a cygrad.cuda.allocator.Block, got {type(block).__name__}")
    if block._owner is not None:
        block._owner.record_stream(block, stream)
