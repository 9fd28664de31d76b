"""``DataLoader``: batches from a dataset, read in the main process or in worker
processes that hand batches over through shared memory.

How it works (details in ``docs/data.md``):

- A sampler chooses indices; a :class:`BatchSampler` groups them into batches; a
  fetcher reads the samples and ``collate_fn`` turns them into a batch.
- With ``num_workers=0`` all of that happens in ``__next__``.
- With ``num_workers > 0`` the loader starts that many processes (``fork`` by default
  on Linux). The main process sends each worker the index lists of the batches it
  should make, round-robin, keeping ``prefetch_factor`` batches per worker in flight;
  workers reply on one result queue and the main process puts the replies back in
  order. A batch travels as shared-memory segment names (``_transport``); an error
  travels as its type and traceback and is raised again here.
- While waiting the main process checks every few tenths of a second that its workers
  are alive: a worker that died (killed by a signal, out of memory) raises a
  ``RuntimeError`` naming it, never a hang. ``timeout`` bounds each wait.
- Workers stop when the epoch is done (or, with ``persistent_workers=True``, when the
  loader is garbage-collected); then every segment name a worker left is removed.
"""
import atexit
import itertools
import math
import multiprocessing
import queue
import signal
import time
import warnings
import weakref

from ..._core import dtype as _dt
from ...ops.creation import empty
from ...multiprocessing import _shm
from . import _transport
from . import _worker
from ._collate import default_collate, default_convert
from ._fetch import make_fetcher
from .dataset import IterableDataset
from .sampler import BatchSampler, RandomSampler, Sampler, SequentialSampler

__all__ = ["DataLoader"]

# Seconds between liveness checks of the workers while waiting for a batch.
_POLL = 0.1
# Seconds a worker gets to exit on its own at shutdown before it is terminated; after
# a timeout or a dead worker the others are not waited for (one may be stuck).
_JOIN_TIMEOUT = 5.0
_FATAL_GRACE = 0.1


# Iterators with live workers. At interpreter exit they are shut down before
# multiprocessing's own exit hook (registered earlier, so run later) would just
# terminate the daemonic workers and leave their unsent segment names behind.
_live_iterators = weakref.WeakSet()


@atexit.register
def _shutdown_all():
    for it in list(_live_iterators):
        it._shutdown_workers()


class _InfiniteConstantSampler(Sampler):
    """The "sampler" of an iterable dataset: None forever (the stream decides)."""

    def __iter__(self):
        while True:
            yield None


def _default_context():
    # PyTorch uses the platform's default start method: fork on Linux (where it exists
    # and no other method was chosen explicitly).
    if multiprocessing.get_start_method(allow_none=True) is None \
            and "fork" in multiprocessing.get_all_start_methods():
        return multiprocessing.get_context("fork")
    return multiprocessing.get_context()


class DataLoader:
    """Iterate over a dataset in batches, as ``torch.utils.data.DataLoader``.

    Parameters
    ----------
    dataset : Dataset or IterableDataset
    batch_size : int or None
        Samples per batch (default 1); None turns automatic batching off (each sample
        goes through ``default_convert``).
    shuffle : bool
        Reshuffle every epoch (a :class:`RandomSampler` drawing from ``generator``).
    sampler, batch_sampler : iterables of indices / of index lists
        Choose the order yourself (exclusive with ``shuffle``, and ``batch_sampler``
        with ``batch_size``, ``sampler`` and ``drop_last``).
    num_workers : int
        Worker processes; 0 loads in the main process.
    collate_fn : callable
        Turns a list of samples into a batch (default :func:`default_collate`).
    pin_memory : bool
        Accepted for compatibility; there is no accelerator memory to pin.
    drop_last : bool
        Drop the last batch if it is short.
    timeout : float
        Seconds to wait for one batch from the workers (0: forever); past it,
        ``RuntimeError``.
    worker_init_fn : callable
        Called as ``worker_init_fn(worker_id)`` in each worker after seeding.
    multiprocessing_context : str or context
        Start method for the workers (``"fork"``, ``"spawn"``, ``"forkserver"``).
    generator : Generator
        Draws the shuffling order and the workers' base seed.
    prefetch_factor : int
        Batches in flight per worker (default 2 with workers).
    persistent_workers : bool
        Keep the workers between epochs.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.data import DataLoader, TensorDataset
    >>> ds = TensorDataset(cygrad.arange(10.0).reshape(5, 2), cygrad.arange(5))
    >>> for x, y in DataLoader(ds, batch_size=2):
    ...     print(tuple(x.shape), y.tolist())
    (2, 2) [0, 1]
    (2, 2) [2, 3]
    (1, 2) [4]
    >>> len(DataLoader(ds, batch_size=2, drop_last=True))
    2
    """

    _FROZEN = ("batch_size", "batch_sampler", "sampler", "drop_last", "dataset",
               "persistent_workers")

    def __init__(self, dataset, batch_size=1, shuffle=None, sampler=None, batch_sampler=None,
                 num_workers=0, collate_fn=None, pin_memory=False, drop_last=False,
                 timeout=0, worker_init_fn=None, multiprocessing_context=None, generator=None,
                 *, prefetch_factor=None, persistent_workers=False, pin_memory_device=""):
        if num_workers < 0:
            raise ValueError("num_workers option should be non-negative; use num_workers=0 to "
                             "disable multiprocessing.")
        if timeout < 0:
            raise ValueError("timeout option should be non-negative")
        if num_workers == 0 and prefetch_factor is not None:
            raise ValueError("prefetch_factor option could only be specified in multiprocessing."
                             "let num_workers > 0 to enable multiprocessing, otherwise set "
                             "prefetch_factor to None.")
        if num_workers > 0 and prefetch_factor is None:
            prefetch_factor = 2
        elif prefetch_factor is not None and prefetch_factor < 0:
            raise ValueError("prefetch_factor option should be non-negative")
        if persistent_workers and num_workers == 0:
            raise ValueError("persistent_workers option needs num_workers > 0")

        if isinstance(dataset, IterableDataset):
            if shuffle not in (False, None):
                raise ValueError("DataLoader with IterableDataset: expected unspecified shuffle "
                                 f"option, but got shuffle={shuffle}")
            if sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified sampler "
                                 f"option, but got sampler={sampler}")
            if batch_sampler is not None:
                raise ValueError("DataLoader with IterableDataset: expected unspecified "
                                 f"batch_sampler option, but got batch_sampler={batch_sampler}")
        shuffle = bool(shuffle)
        if sampler is not None and shuffle:
            raise ValueError("sampler option is mutually exclusive with shuffle")
        if batch_sampler is not None:
            if batch_size != 1 or shuffle or sampler is not None or drop_last:
                raise ValueError("batch_sampler option is mutually exclusive with batch_size, "
                                 "shuffle, sampler, and drop_last")
            batch_size, drop_last = None, False
        elif batch_size is None and drop_last:
            raise ValueError("batch_size=None option disables auto-batching and is mutually "
                             "exclusive with drop_last")

        if sampler is None:
            if isinstance(dataset, IterableDataset):
                sampler = _InfiniteConstantSampler()
            elif shuffle:
                sampler = RandomSampler(dataset, generator=generator)
            else:
                sampler = SequentialSampler(dataset)
        if batch_size is not None and batch_sampler is None:
            batch_sampler = BatchSampler(sampler, batch_size, drop_last)

        self.dataset = dataset
        self.num_workers = num_workers
        self.prefetch_factor = prefetch_factor
        self.pin_memory = pin_memory
        self.pin_memory_device = pin_memory_device
        self.timeout = timeout
        self.worker_init_fn = worker_init_fn
        self.multiprocessing_context = multiprocessing_context
        self.batch_size = batch_size
        self.drop_last = drop_last
        self.sampler = sampler
        self.batch_sampler = batch_sampler
        self.generator = generator
        if collate_fn is None:
            collate_fn = default_collate if self._auto_collation else default_convert
        self.collate_fn = collate_fn
        self.persistent_workers = persistent_workers
        self._iterator = None
        self._initialized = True

    def __setattr__(self, name, value):
        if getattr(self, "_initialized", False) and name in self._FROZEN:
            raise ValueError(f"{name} attribute should not be set after "
                             f"{type(self).__name__} is initialized")
        super().__setattr__(name, value)

    @property
    def multiprocessing_context(self):
        """The ``multiprocessing`` context workers start from (None: the default)."""
        return self._mp_context

    @multiprocessing_context.setter
    def multiprocessing_context(self, ctx):
        if ctx is not None:
            if self.num_workers == 0:
                raise ValueError("multiprocessing_context can only be used with multi-process "
                                 f"loading (num_workers > 0), but got num_workers={self.num_workers}")
            if isinstance(ctx, str):
                methods = multiprocessing.get_all_start_methods()
                if ctx not in methods:
                    raise ValueError("multiprocessing_context option should specify a valid "
                                     f"start method in {methods!r}, but got "
                                     f"multiprocessing_context={ctx!r}")
                ctx = multiprocessing.get_context(ctx)
            if not isinstance(ctx, multiprocessing.context.BaseContext):
                raise TypeError("multiprocessing_context option should be a valid context object "
                                "or a string specifying the start method, but got "
                                f"multiprocessing_context={ctx}")
        self._mp_context = ctx

    @property
    def _auto_collation(self):
        return self.batch_sampler is not None

    @property
    def _index_sampler(self):
        return self.batch_sampler if self._auto_collation else self.sampler

    def _get_iterator(self):
        if self.num_workers == 0:
            return _SingleProcessIter(self)
        return _MultiProcessIter(self)

    def __iter__(self):
        if self.persistent_workers and self.num_workers > 0:
            if self._iterator is None:
                self._iterator = self._get_iterator()
            else:
                self._iterator._reset(self)
            return self._iterator
        return self._get_iterator()

    def __len__(self):
        if isinstance(self.dataset, IterableDataset):
            length = len(self.dataset)
            if self.batch_size is not None:
                length = length // self.batch_size if self.drop_last \
                    else math.ceil(length / self.batch_size)
            return length
        return len(self._index_sampler)


class _BaseIter:
    def __init__(self, loader):
        self._dataset = loader.dataset
        self._auto_collation = loader._auto_collation
        self._drop_last = loader.drop_last
        self._index_sampler = loader._index_sampler
        self._num_workers = loader.num_workers
        self._timeout = loader.timeout
        self._collate_fn = loader.collate_fn
        self._persistent_workers = loader.persistent_workers
        if loader.pin_memory:
            warnings.warn("'pin_memory' argument is set as true but no accelerator is found, "
                          "then device pinned memory won't be used.", stacklevel=3)
        self._sampler_iter = iter(self._index_sampler)
        kwargs = {} if loader.generator is None else {"generator": loader.generator}
        self._base_seed = int(empty((), dtype=_dt.int64).random_(**kwargs).item())
        self._num_yielded = 0

    def __iter__(self):
        return self

    def _reset(self, loader, first_iter=False):
        self._sampler_iter = iter(self._index_sampler)
        self._num_yielded = 0

    def _next_index(self):
        return next(self._sampler_iter)

    def __next__(self):
        data = self._next_data()
        self._num_yielded += 1
        return data

    def __len__(self):
        return len(self._index_sampler)


class _SingleProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._fetcher = make_fetcher(self._dataset, self._auto_collation, self._collate_fn,
                                     self._drop_last)

    def _next_data(self):
        return self._fetcher.fetch(self._next_index())


def _describe_exit(worker_id, proc):
    code = proc.exitcode
    how = f"exit code {code}"
    if code is not None and code < 0:
        try:
            how = f"killed by signal {signal.Signals(-code).name} (exit code {code})"
        except ValueError:
            pass
    return f"worker {worker_id} (pid {proc.pid}): {how}"


class _MultiProcessIter(_BaseIter):
    def __init__(self, loader):
        super().__init__(loader)
        self._prefetch_factor = loader.prefetch_factor
        ctx = loader.multiprocessing_context or _default_context()
        self._result_queue = ctx.Queue()
        self._done_event = ctx.Event()
        self._index_queues, self._workers = [], []
        self._shutdown = False
        self._epoch = 0
        try:
            for i in range(self._num_workers):
                iq = ctx.Queue()
                # Tasks left unread at shutdown must not block this process's exit.
                iq.cancel_join_thread()
                w = ctx.Process(target=_worker.worker_loop, daemon=True, args=(
                    self._dataset, iq, self._result_queue, self._done_event,
                    self._auto_collation, self._collate_fn, self._drop_last, self._base_seed,
                    loader.worker_init_fn, i, self._num_workers))
                w.start()
                self._index_queues.append(iq)
                self._workers.append(w)
        except BaseException:
            self._shutdown_workers()
            raise
        _live_iterators.add(self)
        self._reset(loader, first_iter=True)

    # ---- bookkeeping of tasks
    def _reset(self, loader, first_iter=False):
        super()._reset(loader, first_iter)
        self._send_idx = 0
        self._rcvd_idx = 0
        # task index -> worker id while waiting; (worker id, reply) once it arrived early
        self._task_info = {}
        self._workers_status = [True] * self._num_workers
        self._worker_cycle = itertools.cycle(range(self._num_workers))
        if not first_iter:
            self._epoch += 1
            for iq in self._index_queues:
                iq.put(_worker.Resume(self._epoch))
            waiting = self._num_workers
            while waiting:
                idx, kind, value = self._get_data()
                if kind == "resumed" and idx == self._epoch:
                    waiting -= 1
                elif kind == "batch":
                    _transport.loads(value)      # a stale batch: map it so its names go
        for _ in range(self._prefetch_factor * self._num_workers):
            self._try_put_index()

    def _try_put_index(self):
        try:
            index = self._next_index()
        except StopIteration:
            return
        for _ in range(self._num_workers):
            wid = next(self._worker_cycle)
            if self._workers_status[wid]:
                break
        else:
            return
        self._index_queues[wid].put((self._send_idx, index))
        self._task_info[self._send_idx] = (wid,)
        self._send_idx += 1

    # ---- waiting for replies
    def _check_workers(self):
        dead = [(i, w) for i, w in enumerate(self._workers)
                if self._workers_status[i] and not w.is_alive()]
        if dead:
            detail = "; ".join(_describe_exit(i, w) for i, w in dead)
            pids = ", ".join(str(w.pid) for _, w in dead)
            self._shutdown_workers(grace=_FATAL_GRACE)
            raise RuntimeError(f"DataLoader worker (pid(s) {pids}) exited unexpectedly: {detail}")

    def _get_data(self):
        deadline = time.monotonic() + self._timeout if self._timeout > 0 else None
        while True:
            wait = _POLL if deadline is None else max(0.0, min(_POLL, deadline - time.monotonic()))
            try:
                return self._result_queue.get(timeout=wait)
            except queue.Empty:
                self._check_workers()
                if deadline is not None and time.monotonic() >= deadline:
                    self._shutdown_workers(grace=_FATAL_GRACE)
                    raise RuntimeError(f"DataLoader timed out after {self._timeout} seconds") from None

    def _next_data(self):
        while True:
            # Skip tasks given to workers whose iterable dataset already ended.
            while self._rcvd_idx < self._send_idx:
                info = self._task_info[self._rcvd_idx]
                if len(info) == 2 or self._workers_status[info[0]]:
                    break
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
            else:
                if not self._persistent_workers:
                    self._shutdown_workers()
                raise StopIteration
            info = self._task_info[self._rcvd_idx]
            if len(info) == 2:
                del self._task_info[self._rcvd_idx]
                self._rcvd_idx += 1
                return self._process(info[1])
            if self._shutdown:
                raise StopIteration
            idx, kind, value = self._get_data()
            if kind == "resumed":
                continue
            if kind == "batch":
                # Map (and unlink) at once, even out of order: nothing is left named.
                value = _transport.loads(value)
            if kind == "end":
                self._stop_worker(value)
                self._try_put_index()
                continue
            if idx != self._rcvd_idx:
                self._task_info[idx] += ((kind, value),)
                continue
            del self._task_info[idx]
            self._rcvd_idx += 1
            return self._process((kind, value))

    def _process(self, reply):
        kind, value = reply
        self._try_put_index()
        if kind == "error":
            value.reraise()
        return value

    def _stop_worker(self, wid):
        # An iterable dataset's copy in worker `wid` is exhausted: send it nothing more.
        self._workers_status[wid] = False
        if not self._persistent_workers:
            self._index_queues[wid].put(None)

    # ---- shutdown
    def _shutdown_workers(self, grace=_JOIN_TIMEOUT):
        # Workers exit when they read None, or within their poll interval once the done
        # event is set (the None may never arrive: when this iterator is collected as
        # part of a reference cycle, its queues' feeder threads may already be stopped).
        if self._shutdown:
            return
        self._shutdown = True
        try:
            self._done_event.set()
            for iq in self._index_queues:
                try:
                    iq.put(None)
                except (OSError, ValueError):
                    pass
            deadline = time.monotonic() + grace
            for w in self._workers:
                w.join(timeout=max(0.0, deadline - time.monotonic()))
            for w in self._workers:
                if w.is_alive():
                    w.terminate()
                    w.join()
            for q in (*self._index_queues, self._result_queue):
                q.cancel_join_thread()
                q.close()
        finally:
            # Every worker is gone: the names they made and nobody mapped are garbage.
            for w in self._workers:
                if w.pid is not None:
                    _shm.remove_leftovers(w.pid)

    def __del__(self):
        if not getattr(self, "_shutdown", True):
            try:
                self._shutdown_workers()
            except Exception:       # at interpreter exit module globals may be gone
                pass
