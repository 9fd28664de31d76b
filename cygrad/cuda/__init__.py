"""``cygrad.cuda``: is a GPU usable, and if not, why not.

This module is deliberately small for now. It answers one question honestly —
can cygrad use a CUDA GPU on this machine? — and gives the tensor core a single
place to ask it (:func:`_lazy_init`) before any CUDA tensor is made.

What is here
    :func:`is_available`, :func:`device_count`, :func:`is_initialized` (the
    ``torch.cuda`` names) and :func:`_lazy_init`, which raises a
    ``RuntimeError`` naming what is missing: PyCUDA, the NVIDIA driver, or a
    device.

What is not here yet
    The GPU tensor backend: the driver interface (PyCUDA and an emulated
    host-memory driver), the caching device allocator, streams and the kernel
    loader for ``cuda_src/*.cu`` (see ``docs/cuda.md``). Until it lands, asking
    for a CUDA tensor raises a ``RuntimeError`` even on a machine with a GPU.

``import cygrad`` never needs CUDA: PyCUDA is imported only when one of these
functions is first called.

Examples
--------
>>> import cygrad
>>> isinstance(cygrad.cuda.is_available(), bool)
True
>>> cygrad.cuda.device_count() >= 0
True
"""

__all__ = ["is_available", "device_count", "is_initialized", "manual_seed", "manual_seed_all",
           "synchronize", "empty_cache"]

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

# Set to True by the GPU backend once it has registered its allocation and copy
# hooks with the tensor core (cygrad._core.tensor._set_cuda_empty_hook ...).
_backend_ready = False

_initialized = False


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


def _unavailable_reason():
    """Why CUDA cannot be used here, or ``None`` when a device is usable.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.cuda._unavailable_reason()
    >>> r is None or r.startswith("cygrad.cuda:")
    True
    """
    return _probe()[1]


def is_available():
    """Return True if PyCUDA imports and at least one CUDA device is present.

    Never raises: any failure while probing means "not available".

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.is_available() in (True, False)
    True
    """
    return _probe()[1] is None


def device_count():
    """The number of CUDA devices cygrad can see (0 when CUDA is unavailable).

    Examples
    --------
    >>> import cygrad
    >>> n = cygrad.cuda.device_count()
    >>> n == 0 or cygrad.cuda.is_available()
    True
    """
    return _probe()[0]


def is_initialized():
    """Return True once a CUDA tensor has been successfully set up.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.is_initialized() in (True, False)
    True
    """
    return _initialized


def _lazy_init():
    """Make sure CUDA tensors can be created, or raise a ``RuntimeError`` saying why.

    The tensor core calls this the first time a CUDA tensor is requested
    (``cygrad.zeros(2, device="cuda")``, ``t.to("cuda")``, ``t.cuda()``).

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
    global _initialized
    if _initialized:
        return
    reason = _unavailable_reason()
    if reason is not None:
        raise RuntimeError(reason)
    if not _backend_ready:
        raise RuntimeError(_NO_BACKEND)
    _initialized = True


def manual_seed(seed):
    """Seed the current GPU's generator (``torch.cuda.manual_seed``).

    Safe to call without a GPU, as in PyTorch: the seed is kept for when CUDA is set
    up, and nothing happens now.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.manual_seed(0)
    """
    global _pending_seed
    _pending_seed = int(seed)


def manual_seed_all(seed):
    """Seed every GPU's generator (``torch.cuda.manual_seed_all``); safe without a GPU.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.manual_seed_all(0)
    """
    manual_seed(seed)


_pending_seed = None


def synchronize(device=None):
    """Wait for all queued GPU work (``torch.cuda.synchronize``).

    As in PyTorch this needs CUDA: without it, it raises the ``RuntimeError`` that
    says what is missing.

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     cygrad.cuda.synchronize()
    ... except RuntimeError as e:
    ...     print(str(e).startswith("cygrad.cuda:"))
    True
    """
    _lazy_init()


def empty_cache():
    """Release cached, unused GPU memory (``torch.cuda.empty_cache``); does nothing
    when CUDA has not been set up, so CPU-only programs may call it.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.empty_cache()
    """
    if not _initialized:
        return


# The emulated GPU (cygrad/cuda/_driver/emulated.py, docs/cuda.md): the name
# get_driver()'s error message tells users to call.
from ._driver import use_emulator  # noqa: E402

__all__.append("use_emulator")
