# cython: language_level=3
"""A CUDA launch plan's repeated launch, compiled (``cygrad/cuda/_driver/pycuda_driver.py``).

The PyCUDA driver's launch plan (one kernel, grid, block and shared memory size)
checks its first launch against the kernel's signature and then packs later
launches with the same argument types straight into the parameter buffer. That
repeated launch runs once per CUDA op, so its checks are here in C: the argument
types against the plan's, each pointer against the allocation the last pointer was
found in, each struct argument's byte size, then the packing and
``cuLaunchKernel``. Anything it cannot vouch for goes to the plan's ``_full``
method (Python, the driver's full check), exactly as before.

Examples
--------
>>> from cygrad._core.launch_fast import PlanBase
>>> class Plan(PlanBase):
...     def _full(self, args, stream):
...         return "checked"
>>> Plan()((1, 2), None)             # no types fixed yet: the full check
'checked'
"""
import struct as _struct

cdef object _StructError = _struct.error


cdef class PlanBase:
    """The compiled part of a launch plan: ``__call__(args, stream)``.

    A subclass sets ``driver`` (with ``_hot``: a tuple of recent allocations' first and
    last pointers, ``_in_allocation``, ``_ensure`` and
    ``_cuda.Error``), ``kernel`` (with ``launch_kernel``), ``grid``, ``block``,
    ``shared``; once a launch was checked, ``types`` (the arguments' Python types),
    ``pointers`` (indices of pointer arguments), ``structs`` (``(index, byte
    size)`` of struct arguments) and ``packer`` (a ``struct.Struct``); and defines
    ``_full(args, stream)`` (the checked launch) and ``_failed(error)`` (the
    exception to raise for the driver's error).

    Examples
    --------
    >>> from cygrad._core.launch_fast import PlanBase
    >>> PlanBase().types is None
    True
    """
    cdef public object driver, kernel, grid, block, shared, types, packer
    cdef public tuple pointers, structs

    def __init__(self):
        self.types = None
        self.pointers = ()
        self.structs = ()

    def __call__(self, args, stream=None):
        cdef tuple a = args if type(args) is tuple else tuple(args)
        cdef tuple types = self.types if type(self.types) is tuple else None
        cdef Py_ssize_t i, n
        if types is not None and len(a) == len(types):
            n = len(types)
            for i in range(n):
                if type(a[i]) is not types[i]:
                    break
            else:
                if self._packed_launch(a, stream):
                    return
        return self._full(args, stream)

    cdef bint _packed_launch(self, tuple args, stream) except -1:
        # False: the arguments need the full check (nothing was launched)
        cdef tuple hot
        cdef Py_ssize_t j, m
        cdef bint known
        d = self.driver
        hot = d._hot        # (first, last, first, last, ...) of recent allocations
        for i in self.pointers:
            p = args[i]
            known = p == 0          # (NULL: an optional argument left out, as the full check)
            m = 0 if known else len(hot)
            j = 0
            while j + 1 < m:
                if hot[j] <= p <= hot[j + 1]:
                    known = True
                    break
                j += 2
            if not known:
                if not d._in_allocation(p):
                    return False
                hot = d._hot
        for i, size in self.structs:
            if len(args[i]) != size:
                return False
        try:
            buf = self.packer.pack(*args)
        except _StructError:
            return False
        d._ensure()
        try:
            self.kernel.launch_kernel(self.grid, self.block, buf, self.shared, stream)
        except d._cuda.Error as e:
            raise self._failed(e) from e
        return True


# -- cygrad.cuda.kernels.launch's common case --------------------------------------

cdef object _driver = None          # cygrad.cuda._runtime.driver
cdef object _current = None         # cygrad.cuda._runtime._current
cdef object _current_stream = None  # cygrad.cuda.streams._current_stream
cdef object _new_plan = None        # kernels._new_plan(key): make, keep and return a plan
cdef object _elsewhere = None       # kernels._launch_elsewhere: a device not current
cdef dict _plans = None             # kernels._plans


def bind(driver, current, current_stream, plans, new_plan, elsewhere):
    """Give :func:`launch` what it calls (``cygrad/cuda/kernels.py`` does, once).

    Examples
    --------
    >>> from cygrad._core import launch_fast
    >>> callable(launch_fast.bind)
    True
    """
    global _driver, _current, _current_stream, _plans, _new_plan, _elsewhere
    _driver, _current, _current_stream = driver, current, current_stream
    _plans, _new_plan, _elsewhere = plans, new_plan, elsewhere


cdef object _drv_mod = None         # cygrad.cuda._driver (._driver: the process's driver)
cdef dict _state = None             # cygrad.cuda._runtime._state
cdef object _tls = None             # cygrad.cuda._runtime._tls (.driver, .device)
cdef object _pkg = None             # cygrad.cuda (._initialized)


def bind_runtime(drv_mod, dict state, tls, pkg):
    """Give :func:`launch` the runtime state it reads in place of calling
    ``_runtime.driver()`` and ``_runtime._current()`` (``cygrad/cuda/kernels.py``
    calls this once, after :func:`bind`).

    Examples
    --------
    >>> from cygrad._core import launch_fast
    >>> callable(launch_fast.bind_runtime)
    True
    """
    global _drv_mod, _state, _tls, _pkg
    _drv_mod, _state, _tls, _pkg = drv_mod, state, tls, pkg


def launch(device_index, file, name, grid, block, args):
    """Queue kernel ``name`` of ``cuda_src/<file>`` on ``device_index``'s current stream.

    Each (kernel, grid, block) keeps the driver's launch plan
    (:meth:`cygrad.cuda._driver.Driver.launcher`), so a repeated launch skips the
    kernel lookup and, on a driver that allows it, the per-call argument checks.

    Examples
    --------
    >>> from cygrad.cuda.kernels import launch
    >>> callable(launch)
    True
    """
    d = _drv_mod._driver if _drv_mod is not None else None
    # _runtime.driver()'s work is done when the process's driver is the one the
    # runtime state and this thread run and CUDA is marked initialised: then only
    # read it (two Python calls less per launch), else call it
    if (d is None or _state["driver"] is not d or getattr(_tls, "driver", None) is not d
            or _pkg._initialized is not True):
        d = _driver()
    stream = _current_stream(device_index).handle
    current = _tls.__dict__.get("device", 0) if _drv_mod is not None else _current()
    if current != device_index:
        _elsewhere(device_index, file, name, grid, block, args, stream)
        return
    # the common case, on every op: the device is already current
    if type(grid) is not tuple or type(block) is not tuple:
        grid, block = tuple(grid), tuple(block)
    key = (d, device_index, file, name, grid, block)
    plan = _plans.get(key)
    if plan is None:
        plan = _new_plan(key)
    plan(args, stream)
