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

    A subclass sets ``driver`` (with ``_hot``, ``_in_allocation``, ``_ensure`` and
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
        d = self.driver
        lo, hi = d._hot
        for i in self.pointers:
            p = args[i]
            if not lo <= p <= hi and not d._in_allocation(p):
                return False
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
