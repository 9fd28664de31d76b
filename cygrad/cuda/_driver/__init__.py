"""CUDA drivers behind one interface (:mod:`cygrad.cuda._driver.base`).

``get_driver()`` returns the process's driver, chosen once: the emulator when
``CYGRAD_CUDA=emulate`` is set or :func:`use_emulator` was called before first
use, else PyCUDA when it, the NVIDIA driver and a device are present; otherwise
it raises RuntimeError saying which part is missing and how to use the emulator.

Examples
--------
>>> from cygrad.cuda import _driver
>>> callable(_driver.get_driver)
True
"""
from .base import Driver, DriverError, Kernel, Module

__all__ = ["Driver", "DriverError", "Kernel", "Module", "get_driver", "use_emulator"]

import os
import threading

_driver = None
_want_emulator = False
_choose_lock = threading.Lock()
_HOW_TO_EMULATE = ("; to run cygrad's CUDA kernels on the emulated GPU instead, set CYGRAD_CUDA=emulate "
                   "or call cygrad.cuda.use_emulator()")


def use_emulator():
    """Use the emulated driver for this process (call before the first CUDA use).

    Examples
    --------
    >>> from cygrad.cuda import _driver
    >>> callable(_driver.use_emulator)
    True
    """
    global _want_emulator
    if _driver is not None and _driver.name != "emulated":
        raise RuntimeError("cygrad.cuda.use_emulator() must be called before the first CUDA use "
                           f"(the {_driver.name} driver is already in use)")
    _want_emulator = True


def get_driver():
    """The process's CUDA driver, chosen on first call (see the module docstring).

    Examples
    --------
    >>> from cygrad.cuda import _driver
    >>> callable(_driver.get_driver)
    True
    """
    global _driver
    if _driver is not None:
        return _driver
    with _choose_lock:
        if _driver is None:
            if _want_emulator or os.environ.get("CYGRAD_CUDA", "").strip().lower() == "emulate":
                from .emulated import EmulatedDriver
                _driver = EmulatedDriver()
            else:
                _driver = _pycuda_driver()
    return _driver


def _pycuda_driver():
    from .. import _probe_uncached
    count, reason = _probe_uncached()
    if reason is not None:
        raise RuntimeError(reason + _HOW_TO_EMULATE)
    from .pycuda_driver import PyCudaDriver
    try:
        return PyCudaDriver()
    except Exception as e:
        raise RuntimeError(f"cygrad.cuda: PyCUDA could not start ({type(e).__name__}: {e})"
                           + _HOW_TO_EMULATE) from e


def _set_driver(driver):
    """Install ``driver`` (a :class:`Driver`, or None to choose again): for tests."""
    global _driver
    _driver = driver
