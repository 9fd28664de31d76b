"""``key_averages``: events grouped by name (and input shapes, call stack), with
summed times and memory, one row per group as in PyTorch's table."""
from ._events import EventList

__all__ = ["FunctionEventAvg", "KeyAverages", "key_averages", "total_average"]


class FunctionEventAvg:
    """One row of ``key_averages()``: the sum over the events of one key.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.profiler import profile
    >>> with profile() as prof:
    ...     for _ in range(3):
    ...         y = cygrad.ones(2).exp()
    >>> row = [r for r in prof.key_averages() if r.key == "exp"][0]
    >>> row.count, abs(row.cpu_time - row.cpu_time_total / 3) < 1e-6
    (3, True)
    """

    def __init__(self, key, input_shapes=None, stack=None):
        self.key = key
        self.input_shapes = input_shapes
        self.stack = stack
        self.count = 0
        self.cpu_time_total = 0.0
        self.self_cpu_time_total = 0.0
        self.cpu_memory_usage = 0
        self.self_cpu_memory_usage = 0
        self.device_time_total = 0.0
        self.self_device_time_total = 0.0
        self.device_memory_usage = 0
        self.self_device_memory_usage = 0
        self.is_user_annotation = False

    def add(self, ev):
        self.count += ev.count
        self.cpu_time_total += ev.cpu_time_total
        self.self_cpu_time_total += ev.self_cpu_time_total
        self.cpu_memory_usage += ev.cpu_memory_usage
        self.self_cpu_memory_usage += ev.self_cpu_memory_usage
        self.device_time_total += ev.device_time_total
        self.self_device_time_total += ev.self_device_time_total
        self.is_user_annotation = ev.is_user_annotation
        return self

    @property
    def cpu_time(self):
        """Average CPU time per call, in microseconds."""
        return self.cpu_time_total / self.count if self.count else 0.0

    @property
    def device_time(self):
        return self.device_time_total / self.count if self.count else 0.0

    name = property(lambda self: self.key)

    def __repr__(self):
        return (f"<FunctionEventAvg key={self.key} self_cpu_time={self.self_cpu_time_total:.3f}us "
                f"cpu_time={self.cpu_time:.3f}us count={self.count} "
                f"input_shapes={self.input_shapes} cpu_memory_usage={self.cpu_memory_usage}>")


class KeyAverages(EventList):
    """The rows of ``key_averages()`` (an :class:`EventList` of
    :class:`FunctionEventAvg`); ``table()`` prints them.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.profiler import profile
    >>> with profile() as prof:
    ...     y = cygrad.ones(2).exp()
    >>> "exp" in prof.key_averages().table(sort_by="self_cpu_time_total")
    True
    """

    def __init__(self, rows, profile_memory=False, group_by_input_shape=False,
                 with_stack=False):
        super().__init__(rows, profile_memory=profile_memory)
        self._group_by_input_shape = group_by_input_shape
        self._with_stack = with_stack

    def table(self, sort_by=None, row_limit=100, max_src_column_width=75,
              max_name_column_width=55, max_shapes_column_width=80, header=None,
              top_level_events_only=False):
        """The rows as PyTorch's text table: Name, Self CPU %, Self CPU, CPU total %,
        CPU total, CPU time avg, (CPU Mem, Self CPU Mem), # of Calls, (Input Shapes).

        Parameters
        ----------
        sort_by : str, optional
            An attribute to sort by, descending: ``"cpu_time_total"``,
            ``"self_cpu_time_total"``, ``"cpu_time"``, ``"cpu_memory_usage"``,
            ``"self_cpu_memory_usage"``, ``"count"`` (``cuda``/``device`` keys too).
        row_limit : int
            At most this many rows (-1: all).
        """
        from ._table import build_table
        return build_table(self, sort_by=sort_by, row_limit=row_limit, header=header,
                           max_name_column_width=max_name_column_width,
                           max_shapes_column_width=max_shapes_column_width,
                           max_src_column_width=max_src_column_width,
                           top_level_events_only=top_level_events_only,
                           profile_memory=self._profile_memory,
                           with_shapes=self._group_by_input_shape)


def _shape_key(shapes):
    return repr(shapes) if shapes is not None else ""


def key_averages(events, group_by_input_shape=False, group_by_stack_n=0):
    """Group ``events`` (an EventList) by name, and optionally by input shapes
    and the innermost ``group_by_stack_n`` frames of their call stack."""
    groups = {}
    for ev in events:
        key = [ev.name]
        if group_by_input_shape:
            key.append(_shape_key(ev.input_shapes))
        if group_by_stack_n > 0:
            key.append(tuple((ev.stack or [])[:group_by_stack_n]))
        key = tuple(key)
        row = groups.get(key)
        if row is None:
            row = groups[key] = FunctionEventAvg(
                ev.name, ev.input_shapes if group_by_input_shape else None,
                (ev.stack or [])[:group_by_stack_n] if group_by_stack_n > 0 else None)
        row.add(ev)
    _add_unattributed_memory(events, groups)
    return KeyAverages(list(groups.values()), profile_memory=events._profile_memory,
                       group_by_input_shape=group_by_input_shape)


def _add_unattributed_memory(events, groups):
    """Allocations and releases outside every op: a ``[memory]`` row, as PyTorch."""
    loose = [m for m in events.memory_events if m.op is None]
    if not loose:
        return
    row = groups.setdefault(("[memory]",), FunctionEventAvg("[memory]"))
    for m in loose:
        row.count += 1
        row.cpu_memory_usage += m.nbytes
        row.self_cpu_memory_usage += m.nbytes


def total_average(events):
    """One row summing every event (key ``"Total"``)."""
    total = FunctionEventAvg("Total")
    for ev in events:
        total.add(ev)
    return total
