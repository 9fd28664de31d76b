"""The interface every CUDA driver of cygrad implements (PyCUDA and the emulator).

Everything above this seam (the caching allocator, streams and events, the
kernel table, launch configuration, argument packing) is the same code for both
drivers; a driver only moves bytes, runs kernels and keeps time.

Device pointers are plain Python ``int`` handles. They are opaque: the
emulator's are never host addresses, so a host pointer cannot pass for a device
one. Stream and event handles are opaque objects owned by the driver; ``None``
names the device's default (legacy) stream.

Examples
--------
>>> from cygrad.cuda._driver.base import Driver
>>> sorted(Driver.__abstractmethods__)[:3]
['activate', 'device_count', 'event_create']
"""
from abc import ABC, abstractmethod

__all__ = ["Driver", "Module", "Kernel", "DriverError"]


class DriverError(RuntimeError):
    """A driver call failed (the message names the call and the driver's reason).

    Examples
    --------
    >>> from cygrad.cuda._driver.base import DriverError
    >>> issubclass(DriverError, RuntimeError)
    True
    """


class Kernel(ABC):
    """One ``extern "C" __global__`` function of a loaded module.

    ``param_types`` lists its parameters as written in the ``.cu`` source
    (``"float*"``, ``"const double*"``, ``"long long"``, ``"int"``, ...), parsed
    once from the source; :meth:`Driver.launch` checks and packs arguments by it.
    ``params`` holds the same parameters as
    :class:`~cygrad.cuda._driver.signature.Param` records (name, type, kind,
    NumPy dtype).

    Examples
    --------
    >>> from cygrad.cuda._driver.base import Kernel
    >>> Kernel.__abstractmethods__ == frozenset()
    True
    """
    name: str
    param_types: tuple
    params: tuple


class Module(ABC):
    """A compiled ``.cu`` file loaded into the current context.

    Examples
    --------
    >>> from cygrad.cuda._driver.base import Module
    >>> 'get_function' in Module.__abstractmethods__
    True
    """

    @abstractmethod
    def get_function(self, name):
        """The :class:`Kernel` called ``name``; KeyError names the module if absent."""


class Driver(ABC):
    """What cygrad needs from a CUDA driver.

    Examples
    --------
    >>> from cygrad.cuda._driver.base import Driver
    >>> 'launch' in Driver.__abstractmethods__
    True
    """
    #: ``"pycuda"`` or ``"emulated"``
    name = None
    #: True where every call has finished when it returns (the emulator): a flag a
    #: kernel wrote can be read back then without waiting for queued work
    synchronous = False

    # -- devices -------------------------------------------------------------
    @abstractmethod
    def device_count(self):
        """Number of devices this driver can use."""

    @abstractmethod
    def get_device_properties(self, index):
        """A dict: name, total_memory (bytes), major, minor, multi_processor_count,
        warp_size, max_threads_per_block, max_shared_memory_per_block."""

    @abstractmethod
    def activate(self, index):
        """Make device ``index`` current for this thread (its primary context)."""

    @abstractmethod
    def synchronize(self):
        """Wait for all work on the current device."""

    # -- memory --------------------------------------------------------------
    @abstractmethod
    def mem_alloc(self, nbytes):
        """A device pointer to ``nbytes`` fresh bytes; raises :class:`MemoryError`
        (nothing else) when the device is out of memory."""

    @abstractmethod
    def mem_free(self, ptr):
        """Give back memory from :meth:`mem_alloc` (``ptr`` exactly as returned)."""

    @abstractmethod
    def mem_get_info(self):
        """``(free, total)`` bytes of the current device."""

    @abstractmethod
    def memcpy_htod(self, dst, src, stream=None):
        """Copy the C-contiguous NumPy array ``src`` to device pointer ``dst``.
        Asynchronous on ``stream`` only if ``src`` is page-locked; the emulator
        honours stream order either way."""

    @abstractmethod
    def memcpy_dtoh(self, dst, src, stream=None):
        """Copy ``dst.nbytes`` bytes from device pointer ``src`` into the
        C-contiguous NumPy array ``dst``."""

    @abstractmethod
    def memcpy_dtod(self, dst, src, nbytes, stream=None):
        """Copy ``nbytes`` between device pointers."""

    @abstractmethod
    def memset_d8(self, ptr, value, nbytes, stream=None):
        """Set ``nbytes`` bytes at ``ptr`` to the byte ``value``."""

    # -- streams and events --------------------------------------------------
    @abstractmethod
    def stream_create(self):
        """A new non-default stream handle."""

    @abstractmethod
    def stream_synchronize(self, stream):
        """Wait for all work queued on ``stream`` (None: the default stream)."""

    @abstractmethod
    def stream_query(self, stream):
        """True when all work queued on ``stream`` has finished."""

    @abstractmethod
    def stream_wait_event(self, stream, event):
        """Later work on ``stream`` waits for ``event``."""

    @abstractmethod
    def event_create(self, enable_timing=False):
        """A new event handle."""

    @abstractmethod
    def event_record(self, event, stream=None):
        """Record ``event`` on ``stream``."""

    @abstractmethod
    def event_synchronize(self, event):
        """Wait until ``event`` has happened."""

    @abstractmethod
    def event_query(self, event):
        """True when ``event`` has happened."""

    @abstractmethod
    def event_elapsed_time(self, start, end):
        """Milliseconds between two recorded, completed timing events."""

    def register_external(self, ptr, nbytes):
        """Accept ``[ptr, ptr + nbytes)``, device memory another library allocated
        (imported through DLPack), as kernel arguments until :meth:`unregister_external`.
        Raises :class:`DriverError` when this driver cannot address it."""
        raise DriverError(f"{self.name} driver: cannot import memory allocated elsewhere")

    def unregister_external(self, ptr):
        """Forget an external range registered at ``ptr``."""

    # -- kernels -------------------------------------------------------------
    @abstractmethod
    def load_module(self, source_path):
        """Compile (or take from the on-disk cache) and load one ``.cu`` file;
        returns a :class:`Module`."""

    @abstractmethod
    def launch(self, kernel, grid, block, args, shared_mem=0, stream=None):
        """Queue ``kernel`` on ``stream`` with ``grid``/``block`` 3-tuples.

        ``args`` are Python ints/floats/bools and device pointers, one per entry
        of ``kernel.param_types``; a count or type mismatch raises TypeError
        naming the kernel and parameter before anything runs."""

    def launcher(self, kernel, grid, block, shared_mem=0):
        """A callable ``run(args, stream)`` that does :meth:`launch` of ``kernel``
        with this ``grid``, ``block`` and ``shared_mem``: a launch plan, kept by the
        caller for repeated launches of one configuration. A driver may check the
        arguments' types once per plan instead of on every call; this default
        checks every call."""
        def run(args, stream=None):
            self.launch(kernel, grid, block, args, shared_mem, stream)
        return run
