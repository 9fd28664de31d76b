"""The CUDA runtime state above the driver: the driver in use, each thread's
current device, the per-device caching allocators and the per-device seeds.

Everything here gets the driver through :func:`driver`, so a process without
CUDA fails on first use with the driver selection's ``RuntimeError`` (which
names the missing part), and nothing is probed at ``import cygrad``.

Examples
--------
>>> from cygrad.cuda import _runtime
>>> _runtime.DEFAULT_SEED
67280421310721
"""
import contextlib
import numbers
import sys
import threading

from . import _driver as _drv

# the cygrad.cuda package (importing this module), whose is_initialized() flag
# the first driver use sets
_pkg = sys.modules[__package__]

# PyTorch's default seed for CUDA generators (c10::default_rng_seed_val), so an
# unseeded program reports the same initial_seed() as under PyTorch.
DEFAULT_SEED = 67280421310721
_UINT64 = 1 << 64

_tls = threading.local()        # .driver (the one this thread activated), .device, .streams
_lock = threading.RLock()
_allocators = {}                # device index -> CachingAllocator
_seeds = {}                     # device index -> seed
_offsets = {}                   # device index -> Philox offset of its default generator
_queued_seeds = []              # ("current" | "all", seed) set before CUDA was initialised
_state = {"driver": None, "count": None}    # the driver the state above belongs to,
#                                             and its device count


def _reset():
    """Forget every allocator, stream, seed and the calling thread's device: for tests
    that install a driver with ``cygrad.cuda._driver._set_driver``."""
    with _lock:
        _allocators.clear()
        _seeds.clear()
        _offsets.clear()
        del _queued_seeds[:]
        _state["driver"] = _state["count"] = None
    _tls.__dict__.clear()


def driver():
    """The process's driver, with this thread's current device activated.

    The first call initialises cygrad's CUDA state (``cygrad.cuda.is_initialized()``
    becomes True) and applies seeds set before it. Raises the driver selection's
    ``RuntimeError`` when there is no driver.
    """
    d = _drv._driver
    if d is None:
        d = _drv.get_driver()
    if _state["driver"] is not d:
        with _lock:
            if _state["driver"] is not d:
                _allocators.clear()
                _seeds.clear()
                _offsets.clear()
                _state["driver"] = d
                _state["count"] = None
                _apply_queued_seeds(d)
    if getattr(_tls, "driver", None) is not d:
        _tls.driver = d
        _tls.streams = {}
        d.activate(_current())
    _pkg._initialized = True
    return d


def _current():
    # (the thread's own dict: getattr with a default costs an AttributeError, 0.4 us,
    # on every launch of a thread that never set a device)
    return _tls.__dict__.get("device", 0)


def current_device():
    """Index of this thread's current device (initialising CUDA if needed)."""
    driver()
    return _current()


def device_index(device, optional=True):
    """The device index ``device`` names: an int, ``"cuda"``/``"cuda:N"`` or a
    ``cygrad.device``; ``None`` (when ``optional``) or an index-less ``"cuda"``
    means the current device. Other device types raise ValueError, as in PyTorch."""
    if device is None:
        if not optional:
            raise ValueError("Expected a cygrad.device with a specified index or an integer, "
                             "but got:None")
        return current_device()
    from cygrad._device import device as _device_cls
    if isinstance(device, str):
        device = _device_cls(device)
    if isinstance(device, _device_cls):
        if device.type != "cuda":
            raise ValueError(f"Expected a cuda device, but got: {device}")
        idx = device.index
    elif isinstance(device, numbers.Integral) and not isinstance(device, bool):
        idx = int(device)
    else:
        raise ValueError("Expected a cygrad.device with a specified index or an integer, "
                         f"but got:{device!r}")
    if idx is None:
        if not optional:
            raise ValueError("Expected a cygrad.device with a specified index or an integer, "
                             f"but got:{device!r}")
        return current_device()
    return idx


def checked_index(device, optional=True):
    """:func:`device_index`, checked against the driver's device count."""
    idx = device_index(device, optional)
    d = driver()
    n = _state.get("count")
    if n is None:
        n = _state["count"] = d.device_count()
    if not 0 <= idx < n:
        raise RuntimeError(f"cygrad.cuda: invalid device ordinal {idx} "
                           f"(this machine has {n} CUDA device{'s' if n != 1 else ''})")
    return idx


def set_current(idx):
    """Make ``idx`` (already checked) this thread's current device."""
    d = driver()
    if idx != _current():
        d.activate(idx)
        _tls.device = idx


@contextlib.contextmanager
def on_device(idx):
    """Run the block with device ``idx`` current, restoring the previous one."""
    d = driver()
    prev = _current()
    if prev == idx:
        yield d
        return
    set_current(idx)
    try:
        yield d
    finally:
        set_current(prev)


def allocator(idx):
    """The caching allocator of device ``idx`` (already checked), made on first use."""
    a = _allocators.get(idx)
    if a is not None and _state["driver"] is _drv._driver:
        return a
    from .allocator import CachingAllocator
    d = driver()
    with _lock:
        a = _allocators.get(idx)
        if a is None:
            a = _allocators[idx] = CachingAllocator(d, idx, on_device=lambda: on_device(idx))
        return a


def existing_allocators():
    """The allocators made so far, by device index (none before CUDA is initialised)."""
    with _lock:
        return dict(_allocators)


def thread_streams():
    """This thread's current streams, by device index (set by ``set_stream``)."""
    driver()
    return _tls.streams


# -- seeds --------------------------------------------------------------------

def _check_seed(seed):
    if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
        raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
    seed = int(seed)
    if not -(1 << 63) <= seed < _UINT64:
        raise ValueError("Overflow when unpacking long long")
    return seed % _UINT64


def _apply_queued_seeds(d):
    n = d.device_count()
    for which, seed in _queued_seeds:
        for idx in (range(n) if which == "all" else (_current(),)):
            _seeds[idx] = seed
            _offsets[idx] = 0
    del _queued_seeds[:]


def _initialised():
    return _state["driver"] is not None and _state["driver"] is _drv._driver


def manual_seed(seed, all_devices=False):
    """Store ``seed`` for the current device (or all); queued until CUDA is set up."""
    seed = _check_seed(seed)
    with _lock:
        if not _initialised():
            if all_devices:     # overrides every seed queued before it (cygrad.manual_seed
                del _queued_seeds[:]    # queues one per call: the queue stays short)
            _queued_seeds.append(("all" if all_devices else "current", seed))
            return
    idxs = range(driver().device_count()) if all_devices else (current_device(),)
    with _lock:
        for idx in idxs:
            _seeds[idx] = seed
            _offsets[idx] = 0


def random_seed():
    """A non-deterministic seed for the current device (``torch.cuda.seed``)."""
    import secrets      # only here: importing it costs more than the rest of cygrad.cuda
    manual_seed(secrets.randbits(63))


def initial_seed():
    """The current device's seed (PyTorch's default one when never seeded)."""
    idx = current_device()
    with _lock:
        return _seeds.get(idx, DEFAULT_SEED)
