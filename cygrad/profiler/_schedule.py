"""``schedule``: which steps of a loop the profiler records (PyTorch's semantics)."""
import enum
import warnings

__all__ = ["ProfilerAction", "schedule"]


class ProfilerAction(enum.Enum):
    """What the profiler does during one step.

    ``NONE``: nothing; ``WARMUP``: about to record (nothing kept); ``RECORD``:
    record; ``RECORD_AND_SAVE``: record, and at the end of the step hand the
    recording to ``on_trace_ready``.

    Examples
    --------
    >>> from cygrad.profiler import ProfilerAction
    >>> ProfilerAction.RECORD_AND_SAVE.value
    3
    """

    NONE = 0
    WARMUP = 1
    RECORD = 2
    RECORD_AND_SAVE = 3


def schedule(*, wait, warmup, active, repeat=0, skip_first=0, skip_first_wait=0):
    """A ``schedule`` for :class:`~cygrad.profiler.profile`: skip ``skip_first``
    steps, then cycle through ``wait`` idle steps, ``warmup`` steps and ``active``
    recorded steps (the last of which saves), ``repeat`` times (0: forever).

    With ``skip_first_wait`` non-zero the first cycle starts without its ``wait``.

    Parameters
    ----------
    wait, warmup, active, repeat, skip_first, skip_first_wait : int
        Step counts, as in ``torch.profiler.schedule``.

    Returns
    -------
    callable
        ``fn(step) -> ProfilerAction``.

    Examples
    --------
    >>> from cygrad.profiler import schedule
    >>> s = schedule(wait=1, warmup=1, active=2, repeat=1)
    >>> [s(i).name for i in range(5)]
    ['NONE', 'WARMUP', 'RECORD', 'RECORD_AND_SAVE', 'NONE']
    """
    if wait < 0 or warmup < 0 or active <= 0 or repeat < 0 or skip_first < 0:
        raise AssertionError(
            f"Invalid profiler schedule arguments. Got wait={wait} (need >= 0), "
            f"warmup={warmup} (need >= 0), active={active} (need > 0), repeat={repeat} "
            f"(need >= 0), skip_first={skip_first} (need >= 0).")
    if warmup == 0:
        warnings.warn("Profiler won't be using warmup, this can skew profiler results",
                      stacklevel=2)
    cycle = wait + warmup + active

    def schedule_fn(step):
        if step < 0:
            raise AssertionError(f"Step must be non-negative. Got {step}.")
        if step < skip_first:
            return ProfilerAction.NONE
        step -= skip_first
        if skip_first_wait:
            step += wait            # the first cycle begins at its warmup
        if repeat > 0 and step >= repeat * cycle:
            return ProfilerAction.NONE
        pos = step % cycle
        if pos < wait:
            return ProfilerAction.NONE
        if pos < wait + warmup:
            return ProfilerAction.WARMUP
        return ProfilerAction.RECORD if pos < cycle - 1 else ProfilerAction.RECORD_AND_SAVE

    return schedule_fn


def _default_schedule_fn(step):
    """Without a schedule every step is recorded, and saved when profiling stops."""
    return ProfilerAction.RECORD
