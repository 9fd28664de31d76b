"""What runs inside a DataLoader worker process, and what the main process needs to
talk to it: :func:`get_worker_info`, the worker loop, and :class:`ExceptionWrapper`
(an error in a worker, re-raised in the main process with the worker's traceback).

A worker starts single-threaded (``cygrad.set_num_threads(1)``: several workers each
running multi-threaded kernels would oversubscribe the cores, and the OpenMP runtime
does not survive ``fork``), seeds its random number generators, runs
``worker_init_fn(worker_id)``, then serves the tasks it is sent: fetch and collate a
batch, pickle it through shared memory (``_transport``), put the small result on the
result queue.

Seeding: worker ``i`` gets ``seed = base_seed + i``, where the main process draws
``base_seed`` once per iterator from the loader's generator. Like PyTorch, the worker
seeds cygrad's default generator and Python's ``random`` with it, and seeds NumPy's
global generator (``np.random``) with a state derived from ``(base_seed, i)``; the
NumPy state is cygrad's own derivation (``np.random.SeedSequence``), so NumPy draws in a
worker differ from PyTorch's, but are distinct per worker and reproducible.
"""
import os
import pickle
import queue
import random
import sys
import traceback

import numpy as np

__all__ = ["WorkerInfo", "get_worker_info", "ExceptionWrapper", "worker_loop"]

# How often (seconds) an idle worker checks that it should stop (the done event, or its
# parent gone).
POLL_INTERVAL = 0.2

_info = None


class WorkerInfo:
    """Facts about the current DataLoader worker: ``id``, ``num_workers``, ``seed`` and
    ``dataset`` (this worker's copy). Read-only.

    Examples
    --------
    >>> from cygrad.utils.data._worker import WorkerInfo
    >>> info = WorkerInfo(id=0, num_workers=2, seed=5, dataset=None)
    >>> info
    WorkerInfo(id=0, num_workers=2, seed=5, dataset=None)
    >>> info.id = 1
    Traceback (most recent call last):
      ...
    RuntimeError: Cannot assign attributes to WorkerInfo objects
    """

    _FIELDS = ("id", "num_workers", "seed", "dataset")

    def __init__(self, **kwargs):
        for k in self._FIELDS:
            object.__setattr__(self, k, kwargs[k])

    def __setattr__(self, key, value):
        raise RuntimeError(f"Cannot assign attributes to {type(self).__name__} objects")

    def __repr__(self):
        items = ", ".join(f"{k}={getattr(self, k)!r}" for k in self._FIELDS)
        return f"{type(self).__name__}({items})"


def get_worker_info():
    """In a DataLoader worker, its :class:`WorkerInfo`; in the main process, None.

    Use it in ``IterableDataset.__iter__`` or ``worker_init_fn`` to give each worker
    its own share of the data.

    Examples
    --------
    >>> from cygrad.utils.data import get_worker_info
    >>> get_worker_info() is None
    True
    """
    return _info


class _KeyErrorMessage(str):
    # KeyError shows repr() of its argument, which would print the traceback as one
    # line full of "\n": show the text as it is.
    def __repr__(self):
        return str(self)


class ExceptionWrapper:
    """An exception caught in a worker, carried to the main process as its type and
    formatted traceback; :meth:`reraise` raises the same type there.

    Examples
    --------
    >>> from cygrad.utils.data._worker import ExceptionWrapper
    >>> try:
    ...     {}["missing"]
    ... except KeyError:
    ...     w = ExceptionWrapper(where="in DataLoader worker process 0")
    >>> w.reraise()
    Traceback (most recent call last):
      ...
    KeyError: Caught KeyError in DataLoader worker process 0.
    Original Traceback (most recent call last):
    ...
    """

    def __init__(self, exc_info=None, where="in background"):
        if exc_info is None:
            exc_info = sys.exc_info()
        exc_type = exc_info[0]
        try:
            # The type travels by reference: one the main process cannot import (a
            # class defined inside a function) comes back as RuntimeError.
            pickle.loads(pickle.dumps(exc_type))
        except Exception:
            exc_type = RuntimeError
        self.exc_type = exc_type
        self.exc_msg = "".join(traceback.format_exception(*exc_info))
        self.where = where

    def reraise(self):
        """Raise the wrapped exception type here, its message holding the traceback."""
        msg = f"Caught {self.exc_type.__name__} {self.where}.\nOriginal {self.exc_msg}"
        if self.exc_type is KeyError:
            msg = _KeyErrorMessage(msg)
        try:
            exc = self.exc_type(msg)
        except Exception:
            # The type needs other constructor arguments: say what happened anyway.
            raise RuntimeError(msg) from None
        raise exc


class Resume:
    """Tells a persistent worker a new epoch starts: rebuild its fetcher (restart the
    iterable dataset's stream)."""

    def __init__(self, epoch):
        self.epoch = epoch


def numpy_seed(base_seed, worker_id):
    """The 128-bit state worker ``worker_id`` seeds ``np.random`` with."""
    mask = (1 << 32) - 1
    return np.random.SeedSequence([worker_id, base_seed & mask, (base_seed >> 32) & mask]) \
        .generate_state(4)


def _seed_everything(base_seed, worker_id):
    from ... import random as cg_random
    seed = base_seed + worker_id
    random.seed(seed)
    cg_random.manual_seed(seed)
    np.random.seed(numpy_seed(base_seed, worker_id))
    return seed


def worker_loop(dataset, index_queue, result_queue, done_event, auto_collation, collate_fn,
                drop_last, base_seed, init_fn, worker_id, num_workers):
    """The body of worker process ``worker_id`` (see the module docstring).

    Tasks arrive on ``index_queue`` as ``(task_idx, index)``, a :class:`Resume`, or
    None (exit). Replies go to ``result_queue`` as ``(task_idx, kind, value)`` with
    ``kind`` one of ``"batch"`` (pickled batch bytes), ``"error"``
    (:class:`ExceptionWrapper`), ``"end"`` (an iterable dataset is exhausted) or
    ``"resumed"``.
    """
    global _info
    from ..._core.tensor import set_num_threads
    from . import _transport
    from ._fetch import IterableFetcher, make_fetcher
    try:
        set_num_threads(1)
        seed = _seed_everything(base_seed, worker_id)
        _info = WorkerInfo(id=worker_id, num_workers=num_workers, seed=seed, dataset=dataset)
        where = f"in DataLoader worker process {worker_id}"
        init_error = fetcher = None
        try:
            if init_fn is not None:
                init_fn(worker_id)
            fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
        except Exception:
            init_error = ExceptionWrapper(where=where)
        exhausted = False
        parent = os.getppid()
        while True:
            try:
                msg = index_queue.get(timeout=POLL_INTERVAL)
            except queue.Empty:
                if done_event.is_set() or os.getppid() != parent:
                    break
                continue
            if msg is None:
                break
            if isinstance(msg, Resume):
                exhausted = False
                if init_error is None:
                    fetcher = make_fetcher(dataset, auto_collation, collate_fn, drop_last)
                result_queue.put((msg.epoch, "resumed", None))
                continue
            if done_event.is_set() or exhausted:
                continue
            task_idx, index = msg
            if init_error is not None:
                reply = ("error", init_error)
            else:
                try:
                    reply = ("batch", _transport.dumps(fetcher.fetch(index)))
                except StopIteration:
                    if not isinstance(fetcher, IterableFetcher):
                        reply = ("error", ExceptionWrapper(where=where))
                    else:
                        reply = ("end", worker_id)
                        exhausted = True
                except Exception:
                    reply = ("error", ExceptionWrapper(where=where))
            result_queue.put((task_idx, *reply))
            del reply, msg
    except KeyboardInterrupt:
        pass
    if done_event.is_set():
        # The main process is shutting down and may not read what is left: exit
        # without waiting for the queue's feeder thread to flush it.
        result_queue.cancel_join_thread()
        result_queue.close()
