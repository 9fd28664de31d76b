"""Choosing and describing CUDA devices, synchronising, and the per-device seeds.

``torch.cuda``'s names and semantics: each thread has a current device (0 until
:func:`set_device` or the :class:`device` context manager changes it); calls
with a ``device=None`` argument act on it. Every function here needs a driver
and raises the driver selection's ``RuntimeError`` without one, except the
seeding functions, which keep the seed until CUDA is set up, as PyTorch does.

Examples
--------
>>> import cygrad
>>> cygrad.cuda.device.__name__
'device'
"""
from . import _runtime

__all__ = ["current_device", "set_device", "device", "device_of", "get_device_name",
           "get_device_properties", "get_device_capability", "synchronize", "manual_seed",
           "manual_seed_all", "seed", "seed_all", "initial_seed"]


def current_device():
    """Index of this thread's current device (``torch.cuda.current_device``).

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     cygrad.cuda.current_device()
    ... except RuntimeError as e:      # no CUDA driver on this machine
    ...     print(str(e).startswith("cygrad.cuda:"))
    True
    """
    return _runtime.current_device()


def set_device(device):
    """Make ``device`` (an int, ``"cuda:N"`` or a ``cygrad.device``) this thread's
    current device; a negative index does nothing, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.set_device(-1)    # no-op, needs no GPU
    """
    idx = _runtime.device_index(device)
    if idx >= 0:
        _runtime.set_current(_runtime.checked_index(idx))


class device:
    """Context manager that makes ``device`` current for its block (``torch.cuda.device``).

    An index of -1 (a CPU tensor's, through :class:`device_of`) does nothing.

    Examples
    --------
    >>> import cygrad
    >>> with cygrad.cuda.device(-1):
    ...     pass
    """

    def __init__(self, device):
        self.idx = _runtime.device_index(device)
        self.prev_idx = -1

    def __enter__(self):
        if self.idx < 0:
            return
        idx = _runtime.checked_index(self.idx)
        self.prev_idx = _runtime.current_device()
        _runtime.set_current(idx)

    def __exit__(self, *exc):
        if self.prev_idx >= 0:
            _runtime.set_current(self.prev_idx)
        return False


class device_of(device):
    """Context manager making the device of tensor ``obj`` current; nothing for a CPU tensor.

    Examples
    --------
    >>> import cygrad
    >>> with cygrad.cuda.device_of(cygrad.zeros(2)):
    ...     pass
    """

    def __init__(self, obj):
        idx = obj.get_device() if getattr(obj, "is_cuda", False) else -1
        super().__init__(idx)


class _CudaDeviceProperties:
    """What :func:`get_device_properties` returns: ``name``, ``total_memory``
    (bytes), ``major``, ``minor``, ``multi_processor_count`` and whatever else
    the driver reports (``warp_size``, ``max_threads_per_block``, ...)."""

    def __init__(self, props):
        for key, value in props.items():
            setattr(self, key, value)
        if hasattr(self, "max_shared_memory_per_block"):
            # PyTorch's attribute name for the same number
            self.shared_memory_per_block = self.max_shared_memory_per_block

    def __repr__(self):
        return (f"_CudaDeviceProperties(name='{self.name}', major={self.major}, "
                f"minor={self.minor}, total_memory={self.total_memory // 2**20}MB, "
                f"multi_processor_count={self.multi_processor_count})")


def get_device_properties(device=None):
    """The properties of ``device`` (the current one when omitted): an object with
    PyTorch's attribute names ``name``, ``total_memory``, ``major``, ``minor``,
    ``multi_processor_count``.

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.get_device_properties)
    True
    """
    idx = _runtime.checked_index(device)
    return _CudaDeviceProperties(dict(_runtime.driver().get_device_properties(idx)))


def get_device_name(device=None):
    """The name of ``device`` (the current one when omitted).

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.get_device_name)
    True
    """
    return get_device_properties(device).name


def get_device_capability(device=None):
    """``(major, minor)``, the compute capability of ``device``.

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.get_device_capability)
    True
    """
    props = get_device_properties(device)
    return props.major, props.minor


def synchronize(device=None):
    """Wait for all work queued on ``device`` (the current one when omitted).

    As in PyTorch this needs CUDA: without a driver it raises the
    ``RuntimeError`` that says what is missing.

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     cygrad.cuda.synchronize()
    ... except RuntimeError as e:
    ...     print(str(e).startswith("cygrad.cuda:"))
    True
    """
    idx = _runtime.checked_index(device)
    with _runtime.on_device(idx) as d:
        d.synchronize()
    _run_checks()


def manual_seed(seed):
    """Seed the current device's generator (``torch.cuda.manual_seed``).

    Safe without a GPU, as in PyTorch: the seed is kept and applied to the
    current device when CUDA is set up. The seeds are kept per device for the
    CUDA random kernels to come; :func:`initial_seed` reads them back.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.manual_seed(0)
    """
    _runtime.manual_seed(seed)


def manual_seed_all(seed):
    """Seed every device's generator (``torch.cuda.manual_seed_all``); safe without a GPU.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.manual_seed_all(0)
    """
    _runtime.manual_seed(seed, all_devices=True)


def seed():
    """Seed the current device's generator non-deterministically (``torch.cuda.seed``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.seed()
    """
    _runtime.random_seed()


def seed_all():
    """Seed every device's generator with one non-deterministic seed.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cuda.seed_all()
    """
    import secrets
    _runtime.manual_seed(secrets.randbits(63), all_devices=True)


def initial_seed():
    """The current device's seed: the last one set, or PyTorch's default
    (67280421310721) when never seeded. Needs CUDA.

    Examples
    --------
    >>> import cygrad
    >>> callable(cygrad.cuda.initial_seed)
    True
    """
    return _runtime.initial_seed()


def _run_checks():
    # device checks read back where the host waits anyway (kernels.check_later)
    from .kernels import run_checks
    run_checks()
