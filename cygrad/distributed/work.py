"""Waiting for MPI requests: ``Work`` handles and the one wait loop every collective uses.

MPI's blocking calls can wait forever for a rank that died or never joins. Every
collective is therefore posted non-blocking and completed here, by testing its
requests until they finish or the group's timeout passes. Testing is also what makes
progress: MPI moves data only while some rank is inside an MPI call, so a loop that
slept would stall the transfer. The loop spins, as MPI's own blocking calls do; only
when the machine has more ranks than cores does it yield the core between tests
(after a few hundred), so that ranks sharing a core do not starve each other (Open
MPI's ``mpi_yield_when_idle`` makes the same choice).

Large collectives take another road: MPI's non-blocking collectives move big buffers
at a fraction of the speed of its blocking ones (measured here with Open MPI 5: a 4 MiB
all-reduce took 3-4x longer as ``Iallreduce`` than as ``Allreduce``). From
``THREAD_BYTES`` up, a collective is therefore a blocking call made on one
communication thread (:class:`CommThread`), while the caller waits on it with the same
timeout. mpi4py releases the GIL inside MPI calls, so the caller's thread goes on
working meanwhile: DistributedDataParallel's gradient buckets are reduced while
backward runs. Every collective of the process goes through :func:`post`, which keeps
them in program order: while anything is queued on the thread, later calls are
started behind it.
"""
import os
import queue
import threading
import time
from datetime import timedelta

from ._mpi import mpi
from .errors import DistBackendError

__all__ = ["Work"]

THREAD_BYTES = 64 * 1024

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
                raise _timeout_error(group, name, limit)
            if yielding:
                os.sched_yield()
    except MPI.Exception as e:
        raise _backend_error(MPI, e, group, name) from e


def _backend_error(MPI, e, group, name):
    """The DistBackendError for MPI's error ``e`` (the group is then broken)."""
    group.mark_broken(f"{name} failed: {e}")
    failed = e.Get_error_class() in (getattr(MPI, "ERR_PROC_FAILED", None),
                                     getattr(MPI, "ERR_PROC_FAILED_PENDING", None))
    why = ("another rank died (MPI reported a process failure)" if failed
           else f"MPI error: {e.Get_error_string()}")
    return DistBackendError(f"{name} failed on rank {group.rank()} of {group.size()}: {why}. "
                            "The process group is broken; destroy it and exit.")


def _timeout_error(group, name, limit):
    group.mark_broken(f"{name} timed out")
    return DistBackendError(
        f"{name} timed out after {limit:g} s on rank {group.rank()} of {group.size()}: "
        "another rank did not join it (it may have died, hung, or called a different "
        "collective). The process group is broken; destroy it and exit.")


def wait_task(task, group, name, timeout=None):
    """Wait for a collective running on the communication thread, with the timeout."""
    limit = group.timeout if timeout is None else timeout_seconds(timeout)
    if not task.done.wait(limit):
        raise _timeout_error(group, name, limit)
    if task.error is not None:
        MPI = mpi()
        if isinstance(task.error, MPI.Exception):
            raise _backend_error(MPI, task.error, group, name) from task.error
        raise task.error


class _Task:
    __slots__ = ("call", "args", "kwargs", "done", "error", "result")

    def __init__(self, call, args, kwargs):
        self.call, self.args, self.kwargs = call, args, kwargs
        self.done = threading.Event()
        self.error = self.result = None


class CommThread:
    """One daemon thread that makes blocking MPI calls, in the order they were queued."""

    def __init__(self):
        self._queue = queue.SimpleQueue()
        self._lock = threading.Lock()
        self._pending = 0
        self._thread = threading.Thread(target=self._run, name="cygrad-mpi", daemon=True)
        self._thread.start()

    def busy(self):
        """True while a queued call has not finished."""
        return self._pending > 0

    def submit(self, call, args, kwargs):
        task = _Task(call, args, kwargs)
        with self._lock:
            self._pending += 1
        self._queue.put(task)
        return task

    def _run(self):
        while True:
            task = self._queue.get()
            try:
                task.result = task.call(*task.args, **task.kwargs)
            except BaseException as e:      # noqa: B036  (handed to the waiting thread)
                task.error = e
            with self._lock:
                self._pending -= 1
            task.done.set()


_comm_thread = None


def start_comm_thread():
    """Start the communication thread if MPI allows calls from several threads."""
    global _comm_thread
    MPI = mpi()
    if _comm_thread is None and MPI.Query_thread() == MPI.THREAD_MULTIPLE and \
            os.environ.get("CYGRAD_DISTRIBUTED_THREAD", "1") != "0":
        _comm_thread = CommThread()


# mpi4py's non-blocking name of each blocking collective
_NONBLOCKING = {m: "I" + m[0].lower() + m[1:] for m in (
    "Allreduce", "Reduce", "Bcast", "Allgather", "Allgatherv", "Reduce_scatter_block", "Gather",
    "Scatter", "Barrier")}


def post(group, name, method, args, nbytes, finish=None, outputs=(), **kwargs):
    """Start collective ``method`` (mpi4py's blocking name: ``"Allreduce"``...) on the
    group's communicator and return its :class:`Work`.

    The road depends on ``nbytes`` alone, which is the same on every rank: MPI does not
    match a blocking collective on one rank with a non-blocking one on another. From
    ``THREAD_BYTES`` up it is the blocking call on the communication thread; below, the
    non-blocking call, tested by the caller. While the thread still has calls queued, a
    non-blocking call is *started* on the thread too, behind them, so that every rank
    starts its collectives in program order."""
    thread = _comm_thread
    if thread is not None and nbytes >= THREAD_BYTES:
        task = thread.submit(getattr(group.comm, method), args, kwargs)
        return Work(name, group, (), finish, outputs, task=task)
    start = getattr(group.comm, _NONBLOCKING[method])
    if thread is not None and thread.busy():
        task = thread.submit(start, args, kwargs)
        return Work(name, group, (), finish, outputs, task=task, task_starts_request=True)
    return Work(name, group, [start(*args, **kwargs)], finish, outputs)


def drain(group, name):
    """Wait until the communication thread has finished every queued call (before a
    call that is not a collective of this module but must keep its place, such as
    creating or freeing a communicator)."""
    thread = _comm_thread
    if thread is not None and thread.busy():
        wait_task(thread.submit(lambda: None, (), {}), group, name)


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
    task : optional
        Instead of requests: the call queued on the communication thread.

    Examples
    --------
    >>> import cygrad, cygrad.distributed as dist
    >>> dist.init_process_group("mpi")            # doctest: +SKIP
    >>> t = cygrad.ones(3)                         # doctest: +SKIP
    >>> work = dist.all_reduce(t, async_op=True)   # doctest: +SKIP
    >>> work.wait()                                # doctest: +SKIP
    True
    """

    def __init__(self, name, group, requests, finish=None, outputs=(), statuses=None, task=None,
                 task_starts_request=False):
        self._name = name
        self._group = group
        self._task = task
        self._task_starts_request = task_starts_request
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
                if self._task is not None:
                    wait_task(self._task, self._group, self._name, timeout)
                    if self._task_starts_request:     # the thread only started it
                        self._requests, self._task = [self._task.result], None
                if self._task is None:
                    wait_requests(self._requests, self._statuses, self._group, self._name,
                                  timeout)
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
        if not self._done and self._exception is None and self._task is not None:
            if self._task.done.is_set() and self._task_starts_request:
                self._requests, self._task = [self._task.result], None
                return self.is_completed()
            if self._task.done.is_set():
                try:
                    self.wait()
                except DistBackendError:
                    pass
        elif not self._done and self._exception is None:
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
