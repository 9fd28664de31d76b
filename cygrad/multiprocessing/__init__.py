"""``cygrad.multiprocessing``: Python's :mod:`multiprocessing` where tensors sent to
another process travel through shared memory, as ``torch.multiprocessing``.

Everything in :mod:`multiprocessing` is here under the same name (``Process``,
``Queue``, ``Pool``, ``get_context``...): change ``import multiprocessing`` to
``import cygrad.multiprocessing as multiprocessing``. Importing it (``import cygrad``
does) registers a pickling rule for tensors with ``multiprocessing``: a tensor put on a
queue or passed to a spawned process is moved to shared memory in place (see
``Tensor.share_memory_()``) and only its segment name and geometry are sent; the
receiver maps the same memory, so writes on either side are seen by both.

Keep a shared tensor alive in the sending process until the receiver has taken it off
the queue: the name is removed when the sender frees it (PyTorch has the same rule).

The only sharing strategy is ``"file_system"``: named files in ``/dev/shm``.

Forked children start with cygrad's kernels single-threaded (``set_num_threads(1)``):
the OpenMP runtime does not survive ``fork`` and a multi-threaded kernel in the child
would hang. Call ``cygrad.set_num_threads`` in the child to choose otherwise.

Examples
--------
>>> import cygrad
>>> import cygrad.multiprocessing as mp
>>> q = mp.get_context("fork").SimpleQueue()
>>> t = cygrad.zeros(3)
>>> q.put(t)
>>> u = q.get()
>>> u += 1                      # writes to t's memory
>>> t.tolist(), t.is_shared()
([1.0, 1.0, 1.0], True)
"""
import multiprocessing
from multiprocessing import *  # noqa: F401,F403

from .reductions import init_reductions

__all__ = ["set_sharing_strategy", "get_sharing_strategy", "get_all_sharing_strategies"]
__all__ += multiprocessing.__all__

_STRATEGIES = {"file_system"}


def get_all_sharing_strategies():
    """The sharing strategies available: ``{"file_system"}``.

    Examples
    --------
    >>> import cygrad.multiprocessing as mp
    >>> mp.get_all_sharing_strategies()
    {'file_system'}
    """
    return set(_STRATEGIES)


def get_sharing_strategy():
    """The sharing strategy in use (``"file_system"``: named files in ``/dev/shm``).

    Examples
    --------
    >>> import cygrad.multiprocessing as mp
    >>> mp.get_sharing_strategy()
    'file_system'
    """
    return "file_system"


def set_sharing_strategy(new_strategy):
    """Choose a sharing strategy; only ``"file_system"`` exists.

    Examples
    --------
    >>> import cygrad.multiprocessing as mp
    >>> mp.set_sharing_strategy("file_system")
    """
    if new_strategy not in _STRATEGIES:
        raise AssertionError(f"invalid sharing strategy {new_strategy!r}, "
                             f"expected one of {_STRATEGIES}")


init_reductions()
# Forked children start single-threaded: cygrad/_threading.py registers that policy.
