"""CUDA streams and events (``torch.cuda.Stream``, ``torch.cuda.Event``).

A stream is a queue of device work run in order; work on different streams may
overlap. Each thread has a current stream per device, the device's default
stream until :func:`set_stream` or the :func:`stream` context manager changes
it; the caching allocator keeps its pools per stream
(:mod:`cygrad.cuda.allocator`). An event marks a point in a stream's queue:
other streams can wait for it, the host can wait for or poll it, and two
timing events give the device time between them.

Examples
--------
>>> import cygrad
>>> cygrad.cuda.Stream.__name__, cygrad.cuda.Event.__name__
('Stream', 'Event')
"""
import itertools
import threading

from .._core import alloc_fast as _alloc_fast
from . import _runtime

__all__ = ["Stream", "Event", "StreamContext", "stream", "current_stream", "default_stream",
           "set_stream"]

_CUDA_DEVICE_TYPE = 1           # PyTorch's DeviceType::CUDA, as Stream.device_type gives it
_next_id = itertools.count(1)   # stream ids; 0 is each device's default stream
_id_lock = threading.Lock()


_DEFAULT_STREAMS = {}      # device index -> its default Stream (it has no driver handle)


class Stream:
    """A CUDA stream on ``device`` (``torch.cuda.Stream``).

    ``priority`` is accepted and kept (lower numbers mean higher priority in
    CUDA); the drivers do not schedule by it. Two ``Stream`` objects are equal
    when they name the same stream of the same device.

    Parameters
    ----------
    device : int, str or cygrad.device, optional
        The device; the current one when omitted.
    priority : int, optional
        The stream's priority, 0 by default.

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     s = cygrad.cuda.Stream()
    ... except RuntimeError as e:     # no CUDA driver on this machine
    ...     print(str(e).startswith("cygrad.cuda:"))
    True
    """

    def __init__(self, device=None, priority=0, **kwargs):
        if kwargs:
            raise TypeError(f"Stream() got an unexpected keyword argument {next(iter(kwargs))!r}")
        if isinstance(priority, bool) or not isinstance(priority, int):
            raise TypeError(f"priority must be an int, got {type(priority).__name__}")
        idx = _runtime.checked_index(device)
        with _runtime.on_device(idx) as d:
            handle = d.stream_create()
        with _id_lock:
            sid = next(_next_id)
        self._set(idx, handle, sid, priority)

    def _set(self, idx, handle, sid, priority):
        self.device_index, self.handle, self.stream_id, self.priority = idx, handle, sid, priority
        self._hash = hash((idx, sid))       # streams key the allocator's pools: hash once

    @classmethod
    def _default(cls, idx):
        # one object per device: the allocator keys its pools by stream, and an
        # identical key skips Stream.__eq__ on every allocation
        s = _DEFAULT_STREAMS.get(idx)
        if s is None:
            s = cls.__new__(cls)
            s._set(idx, None, 0, 0)
            s = _DEFAULT_STREAMS.setdefault(idx, s)
        return s

    @property
    def device(self):
        """The stream's device, a ``cygrad.device``."""
        from cygrad._device import device
        return device("cuda", self.device_index)

    @property
    def device_type(self):
        """1, PyTorch's code for a CUDA device."""
        return _CUDA_DEVICE_TYPE

    @property
    def cuda_stream(self):
        """The driver's stream handle (0 for the default stream)."""
        return 0 if self.handle is None else self.handle

    def query(self):
        """True when all work queued on this stream has finished."""
        with _runtime.on_device(self.device_index) as d:
            return bool(d.stream_query(self.handle))

    def synchronize(self):
        """Wait until all work queued on this stream has finished."""
        with _runtime.on_device(self.device_index) as d:
            d.stream_synchronize(self.handle)
        _run_checks()

    def wait_event(self, event):
        """Make work queued on this stream from now on wait for ``event``."""
        if not isinstance(event, Event):
            raise TypeError(f"wait_event expected a cygrad.cuda.Event, got {type(event).__name__}")
        event.wait(self)

    def wait_stream(self, stream):
        """Make work queued on this stream from now on wait for the work queued on
        ``stream`` so far."""
        if not isinstance(stream, Stream):
            raise TypeError(f"wait_stream expected a cygrad.cuda.Stream, got {type(stream).__name__}")
        self.wait_event(stream.record_event())

    def record_event(self, event=None):
        """Record ``event`` (a new :class:`Event` when omitted) on this stream; returns it."""
        if event is None:
            event = Event()
        event.record(self)
        return event

    def __eq__(self, other):
        return (isinstance(other, Stream) and self.device_index == other.device_index
                and self.stream_id == other.stream_id)

    def __hash__(self):
        return self._hash

    def __repr__(self):
        return f"<cygrad.cuda.Stream device=cuda:{self.device_index} stream_id={self.stream_id}>"


class Event:
    """A CUDA event (``torch.cuda.Event``): a marker in a stream's queue.

    The event is created on the device of the first stream it is recorded on.
    An event never recorded counts as complete, as in PyTorch.

    Parameters
    ----------
    enable_timing : bool, optional
        Whether :meth:`elapsed_time` may use this event.
    blocking : bool, optional
        Accepted for PyTorch's signature; :meth:`synchronize` always waits.
    interprocess, external : bool, optional
        Events shared between processes, and external events, are not
        supported (NotImplementedError).

    Examples
    --------
    >>> import cygrad
    >>> e = cygrad.cuda.Event(enable_timing=True)
    >>> e.query()           # not recorded yet: nothing to wait for
    True
    """

    def __init__(self, enable_timing=False, blocking=False, interprocess=False, external=False):
        if interprocess or external:
            raise NotImplementedError("cygrad.cuda: interprocess and external events are not "
                                      "supported")
        self.enable_timing, self.blocking = bool(enable_timing), bool(blocking)
        self.handle = None
        self.device_index = None

    @property
    def device(self):
        """The event's device (``None`` until it is first recorded)."""
        from cygrad._device import device
        return None if self.device_index is None else device("cuda", self.device_index)

    @property
    def cuda_event(self):
        """The driver's event handle (0 until the event is first recorded)."""
        return 0 if self.handle is None else self.handle

    def record(self, stream=None):
        """Record the event on ``stream`` (the current stream when omitted)."""
        if stream is None:
            stream = current_stream()
        if not isinstance(stream, Stream):
            raise TypeError(f"record expected a cygrad.cuda.Stream, got {type(stream).__name__}")
        if self.device_index is not None and self.device_index != stream.device_index:
            raise RuntimeError(f"Event device cuda:{self.device_index} does not match recording "
                               f"stream's device cuda:{stream.device_index}.")
        with _runtime.on_device(stream.device_index) as d:
            if self.handle is None:
                self.handle = d.event_create(enable_timing=self.enable_timing)
                self.device_index = stream.device_index
            d.event_record(self.handle, stream.handle)

    def wait(self, stream=None):
        """Make work queued on ``stream`` (the current stream) from now on wait for
        this event; nothing to wait for if it was never recorded."""
        if stream is None:
            stream = current_stream()
        if not isinstance(stream, Stream):
            raise TypeError(f"wait expected a cygrad.cuda.Stream, got {type(stream).__name__}")
        if self.handle is None:
            return
        with _runtime.on_device(stream.device_index) as d:
            d.stream_wait_event(stream.handle, self.handle)

    def query(self):
        """True when the work recorded before this event has finished."""
        if self.handle is None:
            return True
        with _runtime.on_device(self.device_index) as d:
            return bool(d.event_query(self.handle))

    def synchronize(self):
        """Wait until the work recorded before this event has finished."""
        if self.handle is None:
            return
        with _runtime.on_device(self.device_index) as d:
            d.event_synchronize(self.handle)
        _run_checks()

    def elapsed_time(self, end_event):
        """Milliseconds of device time from this event to ``end_event`` (both
        recorded with ``enable_timing=True`` and complete)."""
        if not isinstance(end_event, Event):
            raise TypeError(f"elapsed_time expected a cygrad.cuda.Event, "
                            f"got {type(end_event).__name__}")
        if not (self.enable_timing and end_event.enable_timing):
            raise RuntimeError("Both events must be created with argument 'enable_timing=True'.")
        if self.handle is None or end_event.handle is None:
            raise RuntimeError("Both events must be recorded before calculating elapsed time.")
        if self.device_index != end_event.device_index:
            raise RuntimeError("Both events must be recorded on the same device.")
        with _runtime.on_device(self.device_index) as d:
            return float(d.event_elapsed_time(self.handle, end_event.handle))

    def __repr__(self):
        if self.handle is None:
            return "<cygrad.cuda.Event uninitialized>"
        return f"<cygrad.cuda.Event device=cuda:{self.device_index}>"


def default_stream(device=None):
    """The default stream of ``device`` (the current device when omitted).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.default_stream)
    True
    """
    return Stream._default(_runtime.checked_index(device))


def current_stream(device=None):
    """This thread's current stream on ``device`` (the current device when omitted).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.current_stream)
    True
    """
    return _current_stream(_runtime.checked_index(device))


# :func:`current_stream` of device ``idx``, already checked: runs for every op, so it
# is compiled (cygrad/_core/alloc_fast.pyx, current_stream): this thread's streams
# read directly when it already runs the process's driver (what _runtime.driver()
# would check before handing them out), else through _runtime.thread_streams(); a
# device without a current stream set gets its default stream.
_alloc_fast.bind_streams(_runtime._drv, _runtime._tls, _runtime.thread_streams,
                         _DEFAULT_STREAMS, Stream._default)
_current_stream = _alloc_fast.current_stream


def set_stream(stream):
    """Make ``stream`` current on its device, and its device current; ``None`` does nothing.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.set_stream(None)
    """
    if stream is None:
        return
    if not isinstance(stream, Stream):
        raise TypeError(f"set_stream expected a cygrad.cuda.Stream, got {type(stream).__name__}")
    _runtime.set_current(stream.device_index)
    _runtime.thread_streams()[stream.device_index] = stream


class StreamContext:
    """Context manager making ``stream`` current (and its device) for its block.

    ``None`` makes it do nothing. On exit the previous streams and device are
    current again.

    Examples
    --------
    >>> import cygrad
    >>> with cygrad.cuda.StreamContext(None):
    ...     pass
    """

    def __init__(self, stream):
        if stream is not None and not isinstance(stream, Stream):
            raise TypeError(f"expected a cygrad.cuda.Stream or None, got {type(stream).__name__}")
        self.stream = stream
        self._saved = None

    def __enter__(self):
        if self.stream is None:
            return self.stream
        src = current_stream()
        dst = None
        if src.device_index != self.stream.device_index:
            dst = current_stream(self.stream.device_index)
        self._saved = (src, dst)
        set_stream(self.stream)
        return self.stream

    def __exit__(self, *exc):
        if self.stream is None:
            return False
        src, dst = self._saved
        if dst is not None:
            set_stream(dst)
        set_stream(src)
        return False


def stream(stream):
    """Context manager that runs its block with ``stream`` current (``torch.cuda.stream``).

    Examples
    --------
    >>> import cygrad
    >>> with cygrad.cuda.stream(None):   # None: nothing changes
    ...     pass
    """
    return StreamContext(stream)


def _run_checks():
    # device checks read back where the host waits anyway (kernels.check_later)
    from .kernels import run_checks
    run_checks()
