"""Device memory statistics and control (``torch.cuda.memory``'s functions).

Each device's memory comes from its caching allocator
(:mod:`cygrad.cuda.allocator`). As in PyTorch, the statistics functions return
zeros (and :func:`memory_stats` an empty dict) before CUDA is initialised, so
CPU-only programs may call them; the functions that act on a device
(:func:`reset_peak_memory_stats`, :func:`mem_get_info`, ...) need a driver and
raise its ``RuntimeError`` otherwise.

Examples
--------
>>> import cygrad
>>> cygrad.cuda.memory_allocated() >= 0
True
"""
import collections

from . import _runtime
from .allocator import format_size

__all__ = ["memory_stats", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_peak_memory_stats", "reset_accumulated_memory_stats",
           "empty_cache", "mem_get_info", "memory_summary", "caching_allocator_alloc",
           "caching_allocator_delete", "allocate", "set_per_process_memory_fraction",
           "get_per_process_memory_fraction", "memory_stats_as_nested_dict",
           "get_allocator_backend"]


def _initialized():
    from cygrad import cuda
    return cuda.is_initialized()


def _allocator(device):
    return _runtime.allocator(_runtime.checked_index(device))


def memory_stats(device=None):
    """The caching allocator's statistics for ``device``, a dict sorted by key.

    The keys are PyTorch's: ``"allocated_bytes.all.current"``, ``".peak"``,
    ``".allocated"``, ``".freed"``, the same for ``allocation``, ``active``,
    ``active_bytes``, ``inactive_split``, ``inactive_split_bytes``,
    ``requested_bytes``, ``reserved_bytes`` and ``segment``, each also for
    ``small_pool`` and ``large_pool`` in place of ``all``; and
    ``num_alloc_retries``, ``num_ooms``, ``num_sync_all_streams``,
    ``num_device_alloc``, ``num_device_free``. Empty before CUDA is initialised.
    See :meth:`cygrad.cuda.allocator.CachingAllocator.stats`.

    Examples
    --------
    >>> import cygrad
    >>> isinstance(cygrad.cuda.memory_stats(), dict)
    True
    """
    if not _initialized():
        return collections.OrderedDict()
    return collections.OrderedDict(_allocator(device).stats())


def memory_stats_as_nested_dict(device=None):
    """:func:`memory_stats` as nested dicts: ``d["allocated_bytes"]["all"]["peak"]``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.memory_stats_as_nested_dict() == {} or cygrad.cuda.is_initialized()
    True
    """
    nested = {}
    for key, value in memory_stats(device).items():
        *path, last = key.split(".")
        node = nested
        for part in path:
            node = node.setdefault(part, {})
        node[last] = value
    return nested


def set_per_process_memory_fraction(fraction, device=None):
    """Let ``device``'s caching allocator reserve at most ``fraction`` of its total memory.

    ``torch.cuda.set_per_process_memory_fraction``: ``fraction`` is a float from
    0 to 1; an allocation that would take the reserved memory past
    ``fraction * total`` fails with :class:`~cygrad.cuda.OutOfMemoryError`
    (after the cache of unused segments is given back and the request retried).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.set_per_process_memory_fraction)
    True
    """
    alloc = _allocator(device)
    if not isinstance(fraction, float):
        raise TypeError("Invalid type for fraction argument, must be `float`")
    if not 0.0 <= fraction <= 1.0:
        raise ValueError(f"Invalid fraction value: {fraction}. Allowed range: 0~1")
    alloc.set_memory_fraction(fraction)


def get_per_process_memory_fraction(device=None):
    """The fraction set by :func:`set_per_process_memory_fraction` (1.0 when never set).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.get_per_process_memory_fraction)
    True
    """
    return _allocator(device).memory_fraction


def get_allocator_backend():
    """``"native"``: cygrad's own caching allocator (``torch.cuda.get_allocator_backend``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.get_allocator_backend()
    'native'
    """
    return "native"


def memory_allocated(device=None):
    """Bytes of ``device`` memory held by allocated blocks (0 before CUDA is initialised).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.memory_allocated() >= 0
    True
    """
    return memory_stats(device).get("allocated_bytes.all.current", 0)


def max_memory_allocated(device=None):
    """Peak of :func:`memory_allocated` since the start or :func:`reset_peak_memory_stats`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.max_memory_allocated() >= 0
    True
    """
    return memory_stats(device).get("allocated_bytes.all.peak", 0)


def memory_reserved(device=None):
    """Bytes of ``device`` memory the caching allocator holds from the driver.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.memory_reserved() >= cygrad.cuda.memory_allocated()
    True
    """
    return memory_stats(device).get("reserved_bytes.all.current", 0)


def max_memory_reserved(device=None):
    """Peak of :func:`memory_reserved` since the start or :func:`reset_peak_memory_stats`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.max_memory_reserved() >= 0
    True
    """
    return memory_stats(device).get("reserved_bytes.all.peak", 0)


def reset_peak_memory_stats(device=None):
    """Set every peak statistic of ``device`` to its current value (needs CUDA).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.reset_peak_memory_stats)
    True
    """
    _allocator(device).reset_peak_stats()


def reset_accumulated_memory_stats(device=None):
    """Zero the ``allocated``/``freed`` totals and the counters of ``device`` (needs CUDA).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.reset_accumulated_memory_stats)
    True
    """
    _allocator(device).reset_accumulated_stats()


def empty_cache():
    """Give every device's cached, unused segments back to the driver.

    Memory in use stays. Does nothing before CUDA is initialised, so CPU-only
    programs may call it.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.empty_cache()
    """
    if not _initialized():
        return
    for alloc in _runtime.existing_allocators().values():
        alloc.empty_cache()


def mem_get_info(device=None):
    """``(free, total)`` bytes of ``device`` as the driver reports them (needs CUDA).

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     free, total = cygrad.cuda.mem_get_info()
    ... except RuntimeError as e:
    ...     print(str(e).startswith("cygrad.cuda:"))
    True
    """
    idx = _runtime.checked_index(device)
    with _runtime.on_device(idx) as d:
        free, total = d.mem_get_info()
    return int(free), int(total)


def allocate(nbytes, device=None, stream=None):
    """A :class:`~cygrad.cuda.allocator.Block` of ``nbytes`` from ``device``'s caching
    allocator, for use on ``stream`` (the device's current stream when omitted).

    This is what CUDA storage will hold; ``block.free()`` gives it back.

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.memory.allocate)
    True
    """
    from .streams import Stream, _current_stream
    idx = _runtime.checked_index(device)
    if stream is None:
        stream = _current_stream(idx)
    elif not isinstance(stream, Stream):
        raise TypeError(f"stream must be a cygrad.cuda.Stream, got {type(stream).__name__}")
    elif stream.device_index != idx:
        raise ValueError(f"stream is on cuda:{stream.device_index}, not cuda:{idx}")
    return _runtime.allocator(idx).malloc(nbytes, stream)


def caching_allocator_alloc(size, device=None, stream=None):
    """Allocate ``size`` bytes with the caching allocator; returns the device pointer.

    ``torch.cuda.caching_allocator_alloc``: give the pointer back with
    :func:`caching_allocator_delete`.

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.caching_allocator_alloc)
    True
    """
    return allocate(size, device, stream).ptr


def caching_allocator_delete(mem_ptr):
    """Free memory from :func:`caching_allocator_alloc` (``torch.cuda.caching_allocator_delete``).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.caching_allocator_delete)
    True
    """
    if mem_ptr == 0:
        return
    for alloc in _runtime.existing_allocators().values():
        try:
            block = alloc.block_of(mem_ptr)
        except RuntimeError:
            continue
        alloc.free(block)
        return
    raise RuntimeError(f"invalid device pointer: {mem_ptr:#x}")


_SUMMARY_ROWS = (
    ("Allocated memory", "allocated_bytes", True),
    ("Active memory", "active_bytes", True),
    ("Requested memory", "requested_bytes", True),
    ("GPU reserved memory", "reserved_bytes", True),
    ("Non-releasable memory", "inactive_split_bytes", True),
    ("Allocations", "allocation", False),
    ("Active allocs", "active", False),
    ("GPU reserved segments", "segment", False),
    ("Non-releasable allocs", "inactive_split", False),
)


def memory_summary(device=None, abbreviated=False):
    """A table of :func:`memory_stats` for ``device`` (``torch.cuda.memory_summary``).

    Rows are the byte and count statistics, each split by pool unless
    ``abbreviated``; columns are the current value, the peak, the total
    allocated and the total freed. Needs CUDA, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.memory_summary)
    True
    """
    idx = _runtime.checked_index(device)
    stats = _runtime.allocator(idx).stats()
    width = 87
    rule, thick = "|" + "-" * (width - 2) + "|", "|" + "=" * (width - 2) + "|"
    lines = [thick, "|" + f"cygrad CUDA memory summary, device ID {idx}".center(width - 2) + "|",
             rule,
             "|" + f" CUDA OOMs: {stats['num_ooms']}".ljust(42) + "|"
             + f" driver allocation retries: {stats['num_alloc_retries']}".ljust(42) + "|",
             thick,
             f"| {'Metric':<24}| {'Cur Usage':>12} | {'Peak Usage':>12} | {'Tot Alloc':>12} "
             f"| {'Tot Freed':>12} |", rule]
    pools = (("all", ""),) if abbreviated else (
        ("all", ""), ("large_pool", "      from large pool"), ("small_pool", "      from small pool"))
    for title, name, is_bytes in _SUMMARY_ROWS:
        for pool, label in pools:
            vals = [stats[f"{name}.{pool}.{f}"] for f in ("current", "peak", "allocated", "freed")]
            cells = [format_size(v) if is_bytes else str(v) for v in vals]
            lines.append(f"| {(label or title):<24}| " + " | ".join(f"{c:>12}" for c in cells) + " |")
        lines.append(rule)
    lines[-1] = thick
    return "\n".join(lines) + "\n"
