"""Waiting for MPI requests: ``Work`` handles and the one wait loop every collective uses.

MPI's blocking calls can wait forever for a rank that died or never joins. Every
collective is therefore posted non-blocking and completed here, by testing its
requests until they finish or the group's timeout passes. Testing is also what makes
progress: MPI moves data only while some rank is inside an MPI call, so a loop that
slept would stall the transfer. The loop spins, as MPI's own blocking calls do; only
when the machine has more ranks than cores does it yield the core between tests
(after a few hundred), so that ranks sharing a core do not starve each other (Open
MPI's ``mpi_yield_when_idle`` makes the same choice).
"""
import os
import time
from datetime import timedelta

from ._mpi import mpi
from .errors import DistBackendError

__all__ = ["Work"]

_SPINS = 256


def timeout_seconds(timeout):
    """A ``timedelta`` (PyTorch's type) or a number of seconds, as float seconds."""
    if isinstance(timeout, timedelta):
        return timeout.total_seconds()
    if isinstance(timeout, (int, float)) and not isinstance(timeout, bool) and timeout > 0:
        return float(timeout)
    raise TypeError(f"timeout must be a datetime.timedelta (or a positive number of seconds), "
                    f"got {timeout!r}")


def wait_requests(requests, statuses, group, name, timeout=None):
    """Complete ``requests`` or raise :class:`DistBackendError` (a failed peer, or the
    timeout passed: the group is then marked broken)."""
    MPI = mpi()
    limit = group.timeout if timeout is None else timeout_seconds(timeout)
    done = _tester(MPI, requests, statuses)
    yielding = group.oversubscribed
    spins = 0
    start = None
    try:
        while not done():
            spins += 1
            # Past the first spins: look at the clock (and yield, if sharing cores) after
            # every test when yielding, else after every 256th.
            if spins < _SPINS or (not yielding and spins % _SPINS):
                continue
            now = time.monotonic()
            if start is None:
                start = now
            elif now - start > limit:
                group.mark_broken(f"{name} timed out")
                raise DistBackendError(
                    f"{name} timed out after {limit:g} s on rank {group.rank()} of {group.size()}: "
                    "another rank did not join it (it may have died, hung, or called a different "
                    "collective). The process group is broken; destroy it and exit.")
            if yielding:
                os.sched_yield()
    except MPI.Exception as e:
        group.mark_broken(f"{name} failed: {e}")
        failed = e.Get_error_class() in (getattr(MPI, "ERR_PROC_FAILED", None),
                                         getattr(MPI, "ERR_PROC_FAILED_PENDING", None))
        why = ("another rank died (MPI reported a process failure)" if failed
               else f"MPI error: {e.Get_error_string()}")
        raise DistBackendError(f"{name} failed on rank {group.rank()} of {group.size()}: {why}. "
                               "The process group is broken; destroy it and exit.") from e


def _tester(MPI, requests, statuses):
    """A function testing ``requests`` for completion. One request (every collective
    posts one) is tested by itself, so that its error, not MPI_ERR_IN_STATUS, is raised."""
    if len(requests) == 1:
        req, status = requests[0], statuses[0] if statuses else None
        return (lambda: req.Test(status)) if status is not None else req.Test
    if statuses:
        return lambda: MPI.Request.Testall(requests, statuses)
    return lambda: MPI.Request.Testall(requests)


class Work:
    """The handle of an asynchronous collective (``async_op=True``), as PyTorch's.

    Parameters
    ----------
    name : str
        The collective's name, for error messages.
    group : ProcessGroup
        The group it runs on.
    requests : list of mpi4py.MPI.Request
        The MPI requests that make it up.
    finish : callable, optional
        Run once the requests complete (writing results back, dividing for AVG).
    outputs : list of Tensor, optional
        What :meth:`result` returns.
    statuses : list of mpi4py.MPI.Status, optional
        Filled in by the requests (point-to-point receives read them).

    Examples
    --------
    >>> import cygrad, cygrad.distributed as dist
    >>> dist.init_process_group("mpi")            # doctest: +SKIP
    >>> t = cygrad.ones(3)                         # doctest: +SKIP
    >>> work = dist.all_reduce(t, async_op=True)   # doctest: +SKIP
    >>> work.wait()                                # doctest: +SKIP
    True
    """

    def __init__(self, name, group, requests, finish=None, outputs=(), statuses=None):
        self._name = name
        self._group = group
        self._requests = list(requests)
        self._statuses = statuses
        self._finish = finish
        self._outputs = list(outputs)
        self._done = False
        self._exception = None

    def _complete(self):
        self._done = True
        if self._finish is not None:
            finish, self._finish = self._finish, None
            finish()

    def wait(self, timeout=None):
        """Block until the collective is done; return True.

        Parameters
        ----------
        timeout : datetime.timedelta, optional
            Wait at most this long (default: the group's timeout); past it raise
            :class:`DistBackendError`.

        Examples
        --------
        >>> work.wait()                                # doctest: +SKIP
        True
        """
        if self._exception is not None:
            raise self._exception
        if not self._done:
            try:
                wait_requests(self._requests, self._statuses, self._group, self._name, timeout)
            except DistBackendError as e:
                self._exception = e
                raise
            self._complete()
        return True

    def is_completed(self):
        """True once the collective has finished (tests without blocking; makes progress).

        Examples
        --------
        >>> work.is_completed()                        # doctest: +SKIP
        True
        """
        if not self._done and self._exception is None:
            MPI = mpi()
            try:
                done = _tester(MPI, self._requests, self._statuses)()
            except MPI.Exception:
                try:
                    self.wait()
                except DistBackendError:
                    pass
                return True
            if done:
                self._complete()
        return self._done or self._exception is not None

    def is_success(self):
        """True if the collective completed without error.

        Examples
        --------
        >>> work.is_success()                          # doctest: +SKIP
        True
        """
        return self.is_completed() and self._exception is None

    def exception(self):
        """The error that ended the collective, or None.

        Examples
        --------
        >>> work.exception() is None                   # doctest: +SKIP
        True
        """
        return self._exception

    def result(self):
        """The output tensors of the collective (after :meth:`wait`).

        Examples
        --------
        >>> work.result()                              # doctest: +SKIP
        [tensor([2., 2., 2.])]
        """
        self.wait()
        return list(self._outputs)

    def __repr__(self):
        state = "failed" if self._exception else ("completed" if self._done else "pending")
        return f"<Work {self._name} {state}>"
