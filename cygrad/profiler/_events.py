"""What the profiler records: one :class:`FunctionEvent` per op, backward node or
``record_function`` region, one :class:`MemoryEvent` per host allocation or release,
and :class:`EventList`, the list of them that ``prof.events()`` returns.

Times are kept in integer nanoseconds from ``time.perf_counter_ns`` and shown in
microseconds, as PyTorch's ``FunctionEvent`` does.
"""

__all__ = ["Interval", "FunctionEvent", "MemoryEvent", "EventList"]


class Interval:
    """A start and an end time in microseconds.

    Examples
    --------
    >>> from cygrad.profiler._events import Interval
    >>> Interval(2.0, 5.5).elapsed_us()
    3.5
    """

    __slots__ = ("start", "end")

    def __init__(self, start, end):
        self.start = start
        self.end = end

    def elapsed_us(self):
        return self.end - self.start


class FunctionEvent:
    """One recorded span: an op (``cat="cpu_op"``), a backward node (also
    ``"cpu_op"``, named like its ``grad_fn``) or a ``record_function`` region
    (``"user_annotation"``).

    ``cpu_children`` are the spans that ran inside this one on the same thread;
    ``self_cpu_time_total`` is its time minus theirs. ``device_time_total`` stays 0
    until a device backend reports kernels (``kernels``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.profiler import profile
    >>> with profile() as prof:
    ...     y = cygrad.ones(3).exp()
    >>> ev = [e for e in prof.events() if e.name == "exp"][0]
    >>> ev.count, ev.cpu_time_total >= ev.self_cpu_time_total >= 0
    (1, True)
    """

    __slots__ = ("id", "name", "cat", "thread", "start_ns", "end_ns", "cpu_parent",
                 "cpu_children", "input_shapes", "input_dtypes", "stack",
                 "self_cpu_memory_usage", "cpu_memory_usage", "kernels", "record_args", "trace_name", "_depth")

    def __init__(self, id, name, cat, thread, start_ns, parent=None):
        self.id = id
        self.name = name
        self.cat = cat
        self.thread = thread
        self.start_ns = start_ns
        self.end_ns = start_ns
        self.cpu_parent = parent
        self.cpu_children = []
        self.input_shapes = None
        self.input_dtypes = None
        self.stack = None
        self.self_cpu_memory_usage = 0
        self.cpu_memory_usage = 0
        self.kernels = []
        self.record_args = None
        self.trace_name = None      # the name in the Chrome trace, if not ``name``
        self._depth = 0 if parent is None else parent._depth + 1

    count = 1
    key = property(lambda self: self.name)
    is_user_annotation = property(lambda self: self.cat == "user_annotation")
    is_async = False
    device_type = "CPU"

    @property
    def time_range(self):
        return Interval(self.start_ns / 1000.0, self.end_ns / 1000.0)

    @property
    def cpu_time_total(self):
        """Wall time of the span in microseconds, children included."""
        return (self.end_ns - self.start_ns) / 1000.0

    @property
    def self_cpu_time_total(self):
        """``cpu_time_total`` minus that of the direct children."""
        return (self.end_ns - self.start_ns
                - sum(c.end_ns - c.start_ns for c in self.cpu_children)) / 1000.0

    cpu_time = cpu_time_total

    @property
    def device_time_total(self):
        return sum(k.duration_us for k in self.kernels)

    self_device_time_total = device_time_total
    device_memory_usage = 0
    self_device_memory_usage = 0

    def __repr__(self):
        return (f"<FunctionEvent id={self.id} name={self.name} thread={self.thread} "
                f"cpu_time_total={self.cpu_time_total:.3f}us "
                f"self_cpu_time_total={self.self_cpu_time_total:.3f}us "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class MemoryEvent:
    """One host allocation (``nbytes > 0``) or release (``nbytes < 0``) of the
    caching host allocator, with the bytes allocated after it and the op that was
    running on the thread (``None`` outside any op).

    Examples
    --------
    >>> from cygrad.profiler._events import MemoryEvent
    >>> MemoryEvent(0, 1, 4096, 4096, 8192, None).nbytes
    4096
    """

    __slots__ = ("ts_ns", "thread", "address", "nbytes", "total_allocated", "op")

    def __init__(self, ts_ns, thread, address, nbytes, total_allocated, op):
        self.ts_ns = ts_ns
        self.thread = thread
        self.address = address
        self.nbytes = nbytes
        self.total_allocated = total_allocated
        self.op = op


class EventList(list):
    """The recorded events (``prof.events()``), in the order they started.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.profiler import profile
    >>> with profile() as prof:
    ...     y = cygrad.ones(2, 2).sum()
    >>> [row.key for row in prof.events().key_averages()][:2]
    ['ones', 'sum']
    """

    def __init__(self, events=(), memory_events=(), device_events=(), profile_memory=False,
                 base_ns=0, with_stack=False):
        super().__init__(events)
        self.memory_events = list(memory_events)
        self.device_events = list(device_events)
        self._profile_memory = profile_memory
        self._with_stack = with_stack
        self._base_ns = base_ns

    @property
    def self_cpu_time_total(self):
        """Sum of every event's self CPU time, in microseconds."""
        return sum(e.self_cpu_time_total for e in self)

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """Events grouped by name (and input shapes, and the top ``group_by_stack_n``
        frames of their call stack), with summed times: a :class:`~cygrad.profiler.
        _averages.KeyAverages` list."""
        from ._averages import key_averages
        return key_averages(self, group_by_input_shape, group_by_stack_n)

    def total_average(self):
        """One row summing every event."""
        from ._averages import total_average
        return total_average(self)

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The events as a text table, one row per event (see ``key_averages().table``)."""
        from ._table import build_table
        return build_table(self, sort_by=sort_by, row_limit=row_limit, header=header,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           max_src_column_width=max_src_column_width,
                           top_level_events_only=top_level_events_only,
                           profile_memory=self._profile_memory)

    def export_chrome_trace(self, path):
        """Write the events as a Chrome trace (``traceEvents`` JSON) to ``path``;
        a name ending in ``.gz`` is gzip-compressed."""
        from ._chrome import export_chrome_trace
        export_chrome_trace(self, path)


class DeviceEvent:
    """Work on a device (a kernel or a copy), timed by device events and linked to
    the host op that launched it (``correlation_id`` is that op's ``id``).

    cygrad has no device backend yet, so nothing creates these today; the Chrome
    trace and the timeline draw them on a device row when they exist.

    Examples
    --------
    >>> from cygrad.profiler._events import DeviceEvent
    >>> DeviceEvent("add_kernel", 1000, 4000, device=0, stream=7, correlation_id=3).duration_us
    3.0
    """

    __slots__ = ("name", "start_ns", "end_ns", "device", "stream", "correlation_id")

    def __init__(self, name, start_ns, end_ns, device=0, stream=0, correlation_id=None):
        self.name = name
        self.start_ns = start_ns
        self.end_ns = end_ns
        self.device = device
        self.stream = stream
        self.correlation_id = correlation_id

    @property
    def duration_us(self):
        return (self.end_ns - self.start_ns) / 1000.0
