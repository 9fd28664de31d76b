"""``profile``: the profiler's context manager (``torch.profiler.profile``)."""
import enum
import warnings

from . import _recorder
from ._events import EventList
from ._record_function import record_function
from ._schedule import ProfilerAction, _default_schedule_fn

__all__ = ["profile", "ProfilerActivity", "supported_activities"]


class ProfilerActivity(enum.Enum):
    """What to record: host (``CPU``) ops, or device (``CUDA``) work too.

    Examples
    --------
    >>> from cygrad.profiler import ProfilerActivity
    >>> ProfilerActivity.CPU.name
    'CPU'
    """

    CPU = 0
    CUDA = 2


def supported_activities():
    """The activities this build can record: ``{CPU}``, plus ``CUDA`` when
    ``cygrad.cuda.is_available()``.

    Examples
    --------
    >>> from cygrad.profiler import supported_activities, ProfilerActivity
    >>> ProfilerActivity.CPU in supported_activities()
    True
    """
    from .. import cuda
    acts = {ProfilerActivity.CPU}
    if cuda.is_available():
        acts.add(ProfilerActivity.CUDA)
    return acts


class profile:
    """Record the ops, backward nodes and ``record_function`` regions run inside
    it, with their CPU time (and host memory with ``profile_memory=True``).

    Parameters
    ----------
    activities : iterable of ProfilerActivity, optional
        Default: :func:`supported_activities`. ``CUDA`` without a usable device
        warns and records CPU only (device events need cygrad's CUDA backend).
    schedule : callable, optional
        ``fn(step) -> ProfilerAction`` (see :func:`schedule`); without one every
        step is recorded and the recording is saved when profiling stops.
    on_trace_ready : callable, optional
        Called with this profiler each time a recording is complete (see
        :func:`tensorboard_trace_handler`).
    record_shapes : bool
        Keep each op's input shapes and dtypes.
    profile_memory : bool
        Record host allocations and releases of tensor storage.
    with_stack : bool
        Keep each op's Python call site (frames outside cygrad).
    with_flops, with_modules : bool
        Not supported: True raises ``NotImplementedError``.
    use_cuda : bool, optional
        Deprecated, as in PyTorch: use ``activities``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.profiler import profile
    >>> x = cygrad.randn(8, 8, requires_grad=True)
    >>> with profile() as prof:
    ...     (x @ x).sum().backward()
    >>> names = [e.name for e in prof.events()]
    >>> "matmul" in names and "MmBackward0" in names
    True
    >>> print(prof.key_averages().table(sort_by="cpu_time_total", row_limit=3))  # doctest: +SKIP
    """

    def __init__(self, *, activities=None, schedule=None, on_trace_ready=None,
                 record_shapes=False, profile_memory=False, with_stack=False,
                 with_flops=False, with_modules=False, experimental_config=None,
                 execution_trace_observer=None, acc_events=False, use_cuda=None):
        acts = set(activities) if activities is not None else supported_activities()
        for a in acts:
            if not isinstance(a, ProfilerActivity):
                raise TypeError(f"activities must be ProfilerActivity values, got {a!r}")
        if use_cuda is not None:
            warnings.warn("`use_cuda` is deprecated, use `activities` argument instead",
                          FutureWarning, stacklevel=2)
            if use_cuda:
                acts.add(ProfilerActivity.CUDA)
            else:
                acts.discard(ProfilerActivity.CUDA)
        if not acts:
            raise AssertionError("No valid profiler activities found")
        if ProfilerActivity.CUDA in acts:
            from .. import cuda
            if not cuda.is_available():
                warnings.warn("CUDA is not available, disabling CUDA profiling", stacklevel=2)
                acts.discard(ProfilerActivity.CUDA)
        if with_flops or with_modules:
            raise NotImplementedError("cygrad.profiler does not record FLOPs or modules "
                                      "(with_flops / with_modules)")
        if execution_trace_observer is not None:
            raise NotImplementedError("cygrad.profiler has no execution trace observer")
        self.activities = acts
        self.record_shapes = record_shapes
        self.profile_memory = profile_memory
        self.with_stack = with_stack
        self.on_trace_ready = on_trace_ready
        self.record_steps = schedule is not None
        self.schedule = schedule if schedule is not None else _default_schedule_fn
        self.step_num = 0
        self.current_action = self.schedule(self.step_num)
        self._recorder = None       # the recording under way, if any
        self._result = None         # EventList of the last finished recording
        self._step_span = None

    # ------------------------------------------------------------ context manager

    def __enter__(self):
        self.start()
        return self

    def __exit__(self, exc_type, exc, tb):
        self.stop()
        return False

    def start(self):
        """Begin profiling (what ``with profile(...)`` does on entry)."""
        self._transit(ProfilerAction.NONE, self.current_action)
        self._open_step_span()

    def stop(self):
        """End profiling; a recording under way is finished and handed to
        ``on_trace_ready``."""
        self._close_step_span()
        self._transit(self.current_action, None)

    def step(self):
        """Mark the start of the next step of the loop being profiled."""
        self._close_step_span()
        prev = self.current_action
        self.step_num += 1
        self.current_action = self.schedule(self.step_num)
        self._transit(prev, self.current_action)
        self._open_step_span()

    # -------------------------------------------------------------- results

    def events(self):
        """The events of the last finished recording (an :class:`EventList`)."""
        if self._result is None:
            raise AssertionError("No events recorded yet: profile some steps first "
                                 "(the profiler has not finished a recording)")
        return self._result

    def key_averages(self, group_by_input_shape=False, group_by_stack_n=0):
        """The events grouped by name (and shapes / call stack); see
        :meth:`EventList.key_averages`."""
        return self.events().key_averages(group_by_input_shape, group_by_stack_n)

    def export_chrome_trace(self, path):
        """Write the last recording as a Chrome / Perfetto trace (JSON; ``.gz``
        compresses)."""
        return self.events().export_chrome_trace(path)

    def export_stacks(self, path, metric="self_cpu_time_total"):
        """Write collapsed stacks (``frame;frame;op value`` lines, the input of
        ``flamegraph.pl`` and speedscope); needs ``with_stack=True``."""
        from ._stacks import export_stacks
        export_stacks(self.events(), path, metric)

    # ------------------------------------------------------------ internals

    def _start_recording(self):
        if self._recorder is None:
            self._recorder = _recorder.Recorder(self.record_shapes, self.profile_memory,
                                                self.with_stack)
            _recorder.start(self._recorder)

    def _stop_recording(self):
        rec, self._recorder = self._recorder, None
        if rec is not None:
            _recorder.stop(rec)
            self._result = EventList(rec.events, rec.memory_events, rec.device_events,
                                     profile_memory=self.profile_memory,
                                     base_ns=rec.base_ns, with_stack=self.with_stack)
            self._result._base_epoch_ns = rec.base_epoch_ns

    def _trace_ready(self):
        if self.on_trace_ready is not None:
            self.on_trace_ready(self)

    def _transit(self, prev, cur):
        """Act on a change of action (PyTorch's transition table; warm-up needs no
        preparation here, as installing the hooks is cheap)."""
        A = ProfilerAction
        recording = (A.RECORD, A.RECORD_AND_SAVE)
        if (prev, cur) in ((A.WARMUP, A.NONE), (A.RECORD, A.NONE), (A.RECORD, A.WARMUP)):
            warnings.warn(f"Incorrect schedule: {prev.name} followed by {cur.name}",
                          stacklevel=3)
        if prev is A.RECORD_AND_SAVE or (prev is A.RECORD and cur is None):
            self._stop_recording()
            self._trace_ready()
        elif prev is A.RECORD and cur not in recording:
            self._stop_recording()
        if cur in recording:
            self._start_recording()

    def _open_step_span(self):
        if self.record_steps and self._recorder is not None:
            ev = self._recorder.begin("ProfilerStep*", "user_annotation")
            # PyTorch's naming: one "ProfilerStep*" row in tables, the step number in traces
            ev.trace_name = f"ProfilerStep#{self.step_num}"
            self._step_span = (self._recorder, ev)

    def _close_step_span(self):
        span, self._step_span = self._step_span, None
        if span is not None:
            span[0].end(span[1])
