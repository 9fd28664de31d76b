"""One threading policy for cygrad's CPU work: its kernels and BLAS share a budget.

cygrad's elementwise kernels and reductions run on its own small thread pool
(``cygrad/_core/cpu/parallel.c``); matrix products run in NumPy's BLAS
(OpenBLAS in NumPy's wheels). Left alone the two fight: each library's workers
spin on the cores after a parallel region and wait for each other, and a
two-thread product of a training-step size waits milliseconds for a core that
another process holds. So:

- ``set_num_threads(n)`` sets both cygrad's pool and the BLAS to ``n`` threads.
- Each kernel family uses more than one thread only above a size measured to pay
  (``bench/thresholds.py``). Matrix products (``cygrad/_core/gemm.pyx``) call BLAS
  on one thread and do their parallel work on cygrad's pool: a product from
  :data:`PRODUCT_SPLIT_MIN` multiply-adds is cut into blocks of rows or columns,
  a batch of smaller products from :data:`BLAS_PARALLEL_MIN` in all is split by
  products. Only the products NumPy computes (complex, integer) use BLAS's
  threads, from :data:`BLAS_PARALLEL_MIN` multiply-adds.
- cygrad's idle workers sleep after a few microseconds instead of spinning.
- A worker process (``multiprocessing``, a DataLoader worker) starts with one
  thread; :func:`worker_init` is the hook such a worker calls at start.

The initial count is ``CYGRAD_NUM_THREADS``, else ``OMP_NUM_THREADS``, else the
cores this process may use (1 in a worker process).

Examples
--------
>>> import cygrad
>>> old = cygrad.get_num_threads()
>>> cygrad.set_num_threads(1)
>>> cygrad.get_num_threads()
1
>>> cygrad.set_num_threads(old)
"""
import ctypes
import glob
import multiprocessing
import os
import sys

from ._core import tensor as _C

__all__ = ["set_num_threads", "get_num_threads", "set_num_interop_threads",
           "get_num_interop_threads", "worker_init"]

# A product of m*k*n multiply-adds below this runs in BLAS with one thread. Two
# threads halve a quiet 64x1000x100 product (6.4M) but, with one other busy
# process on a 2-core machine, make it 20-40x slower (the BLAS's fork-join waits
# for a core); from 256x256x256 (16.8M) on, a product is long enough that two
# threads win even then.
BLAS_PARALLEL_MIN = 1 << 24
# A float product of this many multiply-adds or more is cut into blocks that
# cygrad's pool computes, BLAS on one thread in each: the pool's caller takes the
# blocks a late worker has not started, where BLAS's fork-join would wait for it.
# The LSTM's per-step 32x128x512 product (2M) took 57 us on one thread, 31 us on
# two; from 2^19 per block a split pays on the 2-core development machine.
PRODUCT_SPLIT_MIN = 1 << 20


class _OpenBLAS:
    """NumPy's OpenBLAS, reached through its own thread-count calls (ctypes)."""

    def __init__(self, path):
        lib = ctypes.CDLL(path)
        self._lib = lib
        self.path = path
        self._set = self._get = None
        for prefix in ("scipy_openblas", "openblas"):
            for suffix in ("64_", ""):
                setter = getattr(lib, f"{prefix}_set_num_threads{suffix}", None)
                getter = getattr(lib, f"{prefix}_get_num_threads{suffix}", None)
                if setter is not None and getter is not None:
                    setter.argtypes, setter.restype = [ctypes.c_int], None
                    getter.argtypes, getter.restype = [], ctypes.c_int
                    self._set, self._get = setter, getter
                    return
        raise OSError(f"no OpenBLAS thread calls in {path}")

    def set(self, n):
        self._set(n)

    def get(self):
        return self._get()

    def address(self, *names):
        """The address of the first of ``names`` this library exports, or None."""
        for name in names:
            fn = getattr(self._lib, name, None)
            if fn is not None:
                return ctypes.cast(fn, ctypes.c_void_p).value
        return None

    def set_threads_address(self):
        """The address of the thread-count call :meth:`set` makes."""
        return ctypes.cast(self._set, ctypes.c_void_p).value


def _find_blas():
    """The BLAS NumPy loaded, or None when it is not an OpenBLAS found here."""
    import numpy as np
    here = os.path.dirname(os.path.dirname(np.__file__))
    candidates = sorted(glob.glob(os.path.join(here, "numpy.libs", "*openblas*.so*")))
    try:   # a NumPy linked to a system OpenBLAS: whatever this process mapped
        with open("/proc/self/maps") as f:
            candidates += sorted({line.split()[-1] for line in f
                                  if "openblas" in line and ".so" in line})
    except OSError:
        pass
    for path in candidates:
        try:
            return _OpenBLAS(path)
        except OSError:
            continue
    return None


def _available_cores():
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def _env_threads():
    for name in ("CYGRAD_NUM_THREADS", "OMP_NUM_THREADS"):
        value = os.environ.get(name, "").split(",")[0].strip()
        if value.isdigit() and int(value) > 0:
            return int(value)
    return None


_blas = _find_blas()
_interop_threads = None
# Threads a matrix product uses in BLAS (set_num_threads keeps it in step).
_blas_threads = 1


def _check_count(n, name):
    if isinstance(n, bool) or not isinstance(n, int):
        raise RuntimeError(f"{name} expects an int, but got {type(n).__name__}")
    if n < 1:
        raise RuntimeError(f"{name} expects a positive integer")


def set_num_threads(n):
    """Set the number of threads for intra-op parallelism on CPU.

    Both cygrad's kernels and the BLAS behind matrix products use at most ``n``
    threads.

    Parameters
    ----------
    n : int
        At least 1.

    Raises
    ------
    RuntimeError
        If ``n`` is not a positive int (as PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> old = cygrad.get_num_threads()
    >>> cygrad.set_num_threads(2)
    >>> cygrad.get_num_threads()
    2
    >>> cygrad.set_num_threads(old)
    """
    global _blas_threads
    _check_count(n, "set_num_threads")
    _C.set_num_threads(n)
    _blas_threads = n
    if _blas is not None:
        _blas.set(n)


def get_num_threads():
    """The number of threads used for intra-op parallelism on CPU.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_num_threads() >= 1
    True
    """
    return _C.get_num_threads()


def set_num_interop_threads(n):
    """Set the number of threads for inter-op parallelism (once, as in PyTorch).

    cygrad runs ops one after another, so the value is only recorded; like
    PyTorch, it can be set once, before it is read.

    Raises
    ------
    RuntimeError
        If ``n`` is not a positive int, or on a second call.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_num_interop_threads() >= 1
    True
    """
    global _interop_threads
    _check_count(n, "set_num_interop_threads")
    if _interop_threads is not None:
        raise RuntimeError("Error: cannot set number of interop threads after parallel work "
                           "has started or set_num_interop_threads called")
    _interop_threads = n


def get_num_interop_threads():
    """The number of inter-op threads (the cores available, unless set).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_num_interop_threads() >= 1
    True
    """
    global _interop_threads
    if _interop_threads is None:
        _interop_threads = _available_cores()
    return _interop_threads


def worker_init(num_threads=1):
    """Hook for a worker process to call first: ``num_threads`` threads (default 1).

    A DataLoader or ``multiprocessing`` worker runs beside its siblings; one
    thread each keeps them from competing for the cores. A worker process
    already starts with one thread; call this to make sure (e.g. from a
    ``worker_init_fn``) or to give it more.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._threading import worker_init
    >>> old = cygrad.get_num_threads()
    >>> worker_init()
    >>> cygrad.get_num_threads()
    1
    >>> cygrad.set_num_threads(old)
    """
    set_num_threads(num_threads)


def blas_threads_for(work):
    """Threads a product of ``work`` multiply-adds should use in BLAS.

    Examples
    --------
    >>> from cygrad._threading import blas_threads_for
    >>> blas_threads_for(64 * 1000 * 100)
    1
    """
    return _blas_threads if work >= BLAS_PARALLEL_MIN else 1


def matmul_into(a, b, out, work):
    """``np.matmul(a, b, out=out)`` with the BLAS thread count the policy picks."""
    import numpy as np
    if _blas is None or _blas_threads == 1 or work >= BLAS_PARALLEL_MIN:
        np.matmul(a, b, out=out)
        return
    _blas.set(1)
    try:
        np.matmul(a, b, out=out)
    finally:
        _blas.set(_blas_threads)


def policy():
    """What :func:`cygrad.info` reports: the thread counts and thresholds.

    Examples
    --------
    >>> from cygrad._threading import policy
    >>> sorted(policy())[:2]
    ['blas', 'blas_parallel_min']
    """
    return {
        "num_threads": get_num_threads(),
        "num_interop_threads": get_num_interop_threads(),
        "blas": None if _blas is None else f"OpenBLAS, {_blas.get()} threads ({_blas.path})",
        "blas_parallel_min": BLAS_PARALLEL_MIN,
        "product_split_min": PRODUCT_SPLIT_MIN,
        "parallel_min": _C._get_parallel_min(),
        "worker_process": _in_worker_process(),
    }


def _in_worker_process():
    """True in a multiprocessing child, also while it is still importing its target
    (spawn and forkserver set parent_process() only after unpickling it)."""
    return (multiprocessing.parent_process() is not None
            or getattr(multiprocessing.current_process(), "_inheriting", False)
            or "--multiprocessing-fork" in sys.argv)


def _initial_threads():
    n = _env_threads()
    if n is not None:
        return n
    if _in_worker_process():
        return 1
    return _available_cores()


def _after_fork_in_child():
    # The C pool already dropped to one thread in the child; the BLAS follows.
    global _blas_threads
    _blas_threads = 1
    if _blas is not None:
        _blas.set(1)


set_num_threads(_initial_threads())
os.register_at_fork(after_in_child=_after_fork_in_child)
