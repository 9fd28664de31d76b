"""``cygrad.cuda``: CUDA devices, streams, events and the caching allocator.

What is here (``torch.cuda``'s names and semantics)
    Whether a GPU is usable (:func:`is_available`, :func:`device_count`, and
    :func:`_lazy_init`, which raises a ``RuntimeError`` naming what is
    missing: PyCUDA, the NVIDIA driver, or a device); the current device and
    its properties (:mod:`cygrad.cuda.devices`); streams and events
    (:mod:`cygrad.cuda.streams`); the caching device allocator
    (:mod:`cygrad.cuda.allocator`) and its statistics
    (:mod:`cygrad.cuda.memory`). All of them run on a driver of
    :mod:`cygrad.cuda._driver` (PyCUDA or the emulator).

    CUDA tensors (:mod:`cygrad.cuda.tensors`): device storage, copies, and
    kernels for the ops listed in ``docs/cuda.md``; other ops on a CUDA tensor
    raise ``NotImplementedError`` naming the primitive and the device.

``import cygrad`` never needs CUDA: the driver is chosen only when a function
that needs it is first called.

Examples
--------
>>> import cygrad
>>> isinstance(cygrad.cuda.is_available(), bool)
True
>>> cygrad.cuda.device_count() >= 0
True
"""

import os

from . import _driver as _drv
from . import _runtime
from ._driver import use_emulator
from .allocator import OutOfMemoryError
from .devices import (current_device, device, device_of, get_device_capability, get_device_name,
                      get_device_properties, initial_seed, manual_seed, manual_seed_all, seed,
                      seed_all, set_device, synchronize)
from .memory import (caching_allocator_alloc, caching_allocator_delete, empty_cache,
                     get_allocator_backend, get_per_process_memory_fraction,
                     max_memory_allocated, max_memory_reserved, mem_get_info, memory_allocated,
                     memory_reserved, memory_stats, memory_stats_as_nested_dict, memory_summary,
                     reset_accumulated_memory_stats, reset_peak_memory_stats,
                     set_per_process_memory_fraction)
from .streams import (Event, Stream, StreamContext, current_stream, default_stream, set_stream,
                      stream)

__all__ = ["is_available", "device_count", "is_initialized", "init", "use_emulator",
           "OutOfMemoryError",
           "current_device", "set_device", "device", "device_of", "get_device_name",
           "get_device_properties", "get_device_capability", "synchronize", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed", "Stream", "Event",
           "StreamContext", "stream", "current_stream", "default_stream", "set_stream",
           "memory_stats", "memory_allocated", "max_memory_allocated", "memory_reserved",
           "max_memory_reserved", "reset_peak_memory_stats", "reset_accumulated_memory_stats",
           "empty_cache", "mem_get_info", "memory_summary", "caching_allocator_alloc",
           "caching_allocator_delete", "memory_stats_as_nested_dict",
           "set_per_process_memory_fraction", "get_per_process_memory_fraction",
           "get_allocator_backend"]

_PREFIX = "cygrad.cuda: "
_NO_PYCUDA = _PREFIX + "PyCUDA is not installed (pip install 'cygrad[cuda]')"
_NO_DRIVER = _PREFIX + "no CUDA driver found"
_NO_DEVICE = _PREFIX + "no CUDA device"
_NO_BACKEND = (_PREFIX + "a CUDA device was found, but cygrad's CUDA tensor backend "
               "is not implemented yet; only CPU tensors are supported")

# The result of probing the machine, as (device_count, reason_unavailable).
# Probing initialises the CUDA driver, which is slow and only needs doing once;
# tests reset this to None to probe again.
_probe_result = None

# The CUDA tensor backend (cygrad/cuda/tensors.py) exists; _lazy_init connects it
# to the tensor core (cygrad._core.tensor._set_cuda_empty_hook ...) on first use.
# Tests set this to False to see the message of a build without it.
_backend_ready = True

_initialized = False
# set once cygrad/cuda/tensors.py is connected to the core; apart from _initialized,
# which the device API (get_device_name, synchronize ...) sets without making a tensor
_tensors_installed = False


def _probe():
    """Find out whether PyCUDA, the driver and a device are present.

    Returns ``(count, reason)``: the number of devices and ``None`` when CUDA is
    usable, else ``(0, message)`` with the first missing piece. Never raises.
    """
    global _probe_result
    if _probe_result is None:
        _probe_result = _probe_uncached()
    return _probe_result


def _probe_uncached():
    try:
        import pycuda  # noqa: F401
    except ImportError:
        return 0, _NO_PYCUDA
    except Exception as e:  # a broken install is still "no PyCUDA" to the user
        return 0, f"{_NO_PYCUDA}; importing it failed: {e}"
    try:
        # pycuda.driver links against libcuda; without the driver the import
        # itself fails, with it init() can still fail (e.g. driver too old).
        import pycuda.driver as drv
        drv.init()
    except Exception as e:
        # cuInit also fails when the driver is fine but sees no device (e.g.
        # CUDA_VISIBLE_DEVICES=""); report that as what it is.
        if "no cuda-capable device" in str(e).lower() or "no_device" in str(e).lower():
            return 0, f"{_NO_DEVICE} ({type(e).__name__}: {e})"
        return 0, f"{_NO_DRIVER} ({type(e).__name__}: {e})"
    try:
        count = int(drv.Device.count())
    except Exception as e:
        return 0, f"{_NO_DEVICE} ({type(e).__name__}: {e})"
    if count <= 0:
        return 0, _NO_DEVICE
    return count, None


def _installed_driver():
    """The driver already in use, or the emulator when it was asked for; else None.

    Never raises: a failed emulator start means "not available" here, and the
    functions that need a driver raise its error.
    """
    d = _drv._driver
    if d is None and (_drv._want_emulator
                      or os.environ.get("CYGRAD_CUDA", "").strip().lower() == "emulate"):
        try:
            d = _drv.get_driver()
        except Exception:
            return None
    return d


def _driver_device_count(d):
    try:
        return max(int(d.device_count()), 0)
    except Exception:
        return 0


def _unavailable_reason():
    """Why CUDA cannot be used here, or ``None`` when a device is usable.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.cuda._unavailable_reason()
    >>> r is None or r.startswith("cygrad.cuda:")
    True
    """
    d = _installed_driver()
    if d is not None:
        return None if _driver_device_count(d) > 0 else _NO_DEVICE
    return _probe()[1]


def is_available():
    """Return True if a CUDA driver is usable and sees at least one device.

    That is the driver already in use (the emulator when ``CYGRAD_CUDA=emulate``
    is set or ``cygrad.cuda._driver.use_emulator()`` was called), else PyCUDA
    with the NVIDIA driver and a device. Never raises: any failure while
    probing means "not available".

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.is_available() in (True, False)
    True
    """
    return _unavailable_reason() is None


def device_count():
    """The number of CUDA devices cygrad can see (0 when CUDA is unavailable).

    Examples
    --------
    >>> import cygrad
    >>> n = cygrad.cuda.device_count()
    >>> n == 0 or cygrad.cuda.is_available()
    True
    """
    d = _installed_driver()
    if d is not None:
        return _driver_device_count(d)
    return _probe()[0]


def is_initialized():
    """Return True once cygrad's CUDA state is set up: a driver has been chosen
    by a call that needs one (:func:`init`, :func:`current_device`, a stream,
    an allocation...).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.is_initialized() in (True, False)
    True
    """
    return _initialized


def init():
    """Set up cygrad's CUDA state now rather than at first use (``torch.cuda.init``).

    Raises the driver selection's ``RuntimeError``, naming what is missing, when
    there is no usable driver.

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     cygrad.cuda.init()
    ... except RuntimeError as e:
    ...     print(str(e).startswith("cygrad.cuda:"))
    True
    """
    _runtime.driver()


def _lazy_init():
    """Make sure CUDA tensors can be created, or raise a ``RuntimeError`` saying why.

    The tensor core calls this the first time a CUDA tensor is requested
    (``cygrad.zeros(2, device="cuda")``, ``t.to("cuda")``, ``t.cuda()``). The
    device API above needs only a driver; the first call also connects the
    CUDA tensor backend (:mod:`cygrad.cuda.tensors`) to the core.

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     cygrad.cuda._lazy_init()
    ...     ok = True
    ... except RuntimeError as e:
    ...     ok = str(e).startswith("cygrad.cuda:")
    >>> ok
    True
    """
    global _tensors_installed
    if _tensors_installed and _initialized and _backend_ready:
        return
    reason = _unavailable_reason()
    if reason is not None:
        from ._driver import _HOW_TO_EMULATE
        raise RuntimeError(reason + _HOW_TO_EMULATE)
    if not _backend_ready:
        raise RuntimeError(_NO_BACKEND)
    init()
    from . import tensors
    tensors.install()
    _tensors_installed = True
