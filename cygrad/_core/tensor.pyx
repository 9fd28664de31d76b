# cython: freethreading_compatible = False
"""The Tensor core: a typed, strided view into a Storage, and the per-call op path.

A tensor is ``(storage, shape, strides, offset, dtype)``; strides count elements and
may be 0 (broadcast views) or negative (flipped views). Views share their base's
Storage and therefore its version counter.

The functions ``binary``/``unary`` below are the dispatcher for elementwise ops: they
check arguments, apply PyTorch's type promotion and broadcasting, allocate the output
once and pick a kernel — a C kernel from ``cpu/`` when there is one for the dtype, else
the NumPy ufunc run on zero-copy views. When an input requires grad they hand the call
to the op's ``autograd.Function`` instead, which records the graph.
"""
cimport cython
cimport numpy as cnp
from cpython.ref cimport Py_INCREF
from cpython.mem cimport PyMem_Malloc, PyMem_Free
from cpython.slice cimport PySlice_Unpack, PySlice_AdjustIndices
from cpython.long cimport PyLong_AsLongLongAndOverflow, PyLong_AsUnsignedLongLongMask

cdef extern from "Python.h":
    void PyObject_GC_UnTrack(void* op)
    void PyObject_GC_Track(void* op)
    int PyObject_GC_IsTracked(object op)

cdef extern from *:
    """
    /* a * b, or nonzero when it overflows (sizes are checked before memory is touched) */
    static int cg_mul_overflow(Py_ssize_t a, Py_ssize_t b, Py_ssize_t* r) {
        return __builtin_mul_overflow(a, b, r);
    }
    """
    int cg_mul_overflow(Py_ssize_t a, Py_ssize_t b, Py_ssize_t* r) noexcept nogil
    int __builtin_add_overflow_ssize "__builtin_add_overflow"(Py_ssize_t a, Py_ssize_t b, Py_ssize_t* r) noexcept nogil

cdef extern from *:
    """
    /* Run a base type's tp_new for a subtype directly: skips the attribute lookup and
       argument checks of a Python-level ``Base.__new__(Sub)`` call. */
    static PyObject* cg_tp_new(PyObject* base, PyObject* sub, PyObject* args) {
        return ((PyTypeObject*)base)->tp_new((PyTypeObject*)sub, args, NULL);
    }
    """
    object cg_tp_new(object base, object sub, object args)

cdef tuple _EMPTY_TUPLE = ()
from libc.string cimport memcpy, memset
from libc.stdint cimport uintptr_t, int64_t, int32_t, int16_t, int8_t, uint8_t

import numpy as np
import warnings

from .dtype cimport (dtype as DType, DT_BOOL, DT_UINT8, DT_INT8, DT_INT16, DT_INT32,
                     DT_INT64, DT_FLOAT16, DT_BFLOAT16, DT_FLOAT32, DT_FLOAT64,
                     DT_COMPLEX64, DT_COMPLEX128, KIND_BOOL, KIND_INT, KIND_FLOAT,
                     KIND_COMPLEX, promote, default_float, default_complex, to_dtype,
                     dtype_from_code)
from .storage cimport Storage, new_host_storage, wrap_foreign
from . import dtype as _dtype_mod
from . import storage as _storage_mod
from .._device import device as Device, CPU
from .scalars import check_scalar_fits as _check_scalar_fits

cnp.import_array()

cdef extern from "numpy/arrayobject.h":
    ctypedef struct PyTypeObject_np "PyTypeObject":
        pass
    PyTypeObject_np PyArray_Type
    # Steals a reference to descr.
    object PyArray_NewFromDescr(PyTypeObject_np* subtype, cnp.dtype descr, int nd,
                                cnp.npy_intp* dims, cnp.npy_intp* strides, void* data,
                                int flags, object obj)
_storage_mod._set_cpu_device(CPU)

cdef extern from "kernels.h" nogil:
    ctypedef Py_ssize_t cg_index
    int cg_has_binary(int op, int dtype)
    int cg_has_unary(int op, int dtype)
    int cg_has_reduce(int op, int dtype)
    void cg_binary(int op, int dtype, int ndim, const cg_index* shape,
                   char* out, const cg_index* so, const char* a, const cg_index* sa,
                   const char* b, const cg_index* sb)
    void cg_unary(int op, int dtype, int ndim, const cg_index* shape,
                  char* out, const cg_index* so, const char* a, const cg_index* sa)
    void cg_reduce_rows(int op, int dtype, cg_index rows, cg_index n, const char* a, char* out)
    int cg_reduce_cols(int op, int dtype, cg_index outer, cg_index n, cg_index inner,
                       double divisor, const char* a, char* out)
    int cg_isa_variant()
    int cg_num_threads()
    void cg_set_num_threads(int n)
    int cg_pool_contended()
    long cg_pool_stalls()
    long cg_pool_preemptions()
    void cg_pool_counters(long* jobs, long* wakeups, int64_t* wait_ns)
    void cg_pool_set_preemption_check(int on)
    void cg_pool_set_contended(int on)
    enum: CG_PAR_BINARY, CG_PAR_UNARY_CHEAP, CG_PAR_UNARY_MATH, CG_PAR_REDUCE, CG_PAR_NUM_FAMILIES
    cg_index cg_parallel_min[4]
    cg_index cg_parallel_min_contended[4]
    enum: CG_ADD, CG_SUB, CG_MUL, CG_DIV, CG_MAXIMUM, CG_MINIMUM
    enum: CG_EQ, CG_NE, CG_LT, CG_LE, CG_GT, CG_GE, CG_LOGICAL_AND, CG_LOGICAL_OR, CG_LOGICAL_XOR
    enum:
        CG_COPY, CG_NEG, CG_ABS, CG_EXP, CG_EXP2, CG_EXPM1, CG_LOG, CG_LOG2, CG_LOG10,
        CG_LOG1P, CG_SQRT, CG_RSQRT, CG_SIN, CG_COS, CG_TAN, CG_ASIN, CG_ACOS, CG_ATAN,
        CG_SINH, CG_COSH, CG_TANH, CG_SIGMOID, CG_RELU, CG_ERF, CG_ERFC, CG_FLOOR,
        CG_CEIL, CG_TRUNC, CG_ROUND, CG_FRAC, CG_RECIPROCAL, CG_SQUARE, CG_ASINH, CG_ACOSH,
        CG_ATANH
    enum: CG_RSUM, CG_RMAX, CG_RMIN

# Releasing the GIL costs a mutex round trip (~50 ns): only worth it for big work.
cdef enum:
    GIL_RELEASE_MIN = 16384

# While a kernel runs without the GIL another thread may run Python code, and that code
# may drop the storages the kernel's pointers point into (``x.data = y``, ``x.resize_()``)
# or rewrite a tensor's shape/strides arrays in place. So the GIL-free path holds its
# own reference to every storage it reads or writes (``keep_*``: the storages the
# pointers were taken from) and runs on private copies of the geometry.
cdef inline void _copy_geom(int ndim, const cg_index* src, cg_index* dst) noexcept:
    memcpy(dst, src, ndim * sizeof(cg_index))

cdef inline void run_binary(int op, int dtype, int ndim, const cg_index* shape, Py_ssize_t numel,
                            char* out, const cg_index* so, const char* a, const cg_index* sa,
                            const char* b, const cg_index* sb,
                            Storage keep_out, Storage keep_a, Storage keep_b) noexcept:
    cdef Storage ko, ka, kb           # owned references, alive until we return
    cdef cg_index g[4 * MAX_DIMS]
    if numel >= GIL_RELEASE_MIN:
        ko, ka, kb = keep_out, keep_a, keep_b
        _copy_geom(ndim, shape, g)
        _copy_geom(ndim, so, g + MAX_DIMS)
        _copy_geom(ndim, sa, g + 2 * MAX_DIMS)
        _copy_geom(ndim, sb, g + 3 * MAX_DIMS)
        with nogil:
            cg_binary(op, dtype, ndim, g, out, g + MAX_DIMS, a, g + 2 * MAX_DIMS,
                      b, g + 3 * MAX_DIMS)
    else:
        cg_binary(op, dtype, ndim, shape, out, so, a, sa, b, sb)

cdef inline void run_unary(int op, int dtype, int ndim, const cg_index* shape, Py_ssize_t numel,
                           char* out, const cg_index* so, const char* a, const cg_index* sa,
                           Storage keep_out, Storage keep_a) noexcept:
    cdef Storage ko, ka
    cdef cg_index g[3 * MAX_DIMS]
    if numel >= GIL_RELEASE_MIN:
        ko, ka = keep_out, keep_a
        _copy_geom(ndim, shape, g)
        _copy_geom(ndim, so, g + MAX_DIMS)
        _copy_geom(ndim, sa, g + 2 * MAX_DIMS)
        with nogil:
            cg_unary(op, dtype, ndim, g, out, g + MAX_DIMS, a, g + 2 * MAX_DIMS)
    else:
        cg_unary(op, dtype, ndim, shape, out, so, a, sa)

cdef inline void run_reduce_rows(int op, int dtype, cg_index rows, cg_index n, const char* a,
                                 char* out, Storage keep_a, Storage keep_out) noexcept:
    cdef Storage ka, ko
    if rows * n >= GIL_RELEASE_MIN:
        ka, ko = keep_a, keep_out
        with nogil:
            cg_reduce_rows(op, dtype, rows, n, a, out)
    else:
        cg_reduce_rows(op, dtype, rows, n, a, out)

include "tensor_settings.pxi"


# The Python class users see (cygrad.Tensor subclasses TensorBase); set at import.
cdef type _TensorCls = None

def _set_tensor_class(cls):
    global _TensorCls
    _TensorCls = cls

def _core_defines(name):
    """Whether the Cython core gives ``cygrad.Tensor`` the attribute ``name`` (on
    ``TensorBase`` or its method mixins): Python op modules then leave it alone."""
    return name in TensorBase.__dict__ or name in _ViewMethods.__dict__ or name in _CopyMethods.__dict__

def _tensor_class():
    """The class set by :func:`_set_tensor_class` (``cygrad.Tensor``)."""
    return _TensorCls

# ``Function.apply`` as a C function pointer (engine.apply_function), set by the engine
# at import: an op whose inputs need autograd calls its Function through it, without
# building a Python call.
cdef apply_fn_t _apply_c = NULL

cdef void set_apply_hook(apply_fn_t fn) noexcept:
    global _apply_c
    _apply_c = fn

include "tensor_helpers.pxi"

include "tensor_dispatch.pxi"


include "tensor_views.pxi"


# New tensors are untracked by Python's cyclic GC (see _alloc_tensor): an allocation
# then costs what a NumPy array's does. The design keeps tensors, grads and graph nodes
# free of reference cycles (nodes hold saved tensors, tensors hold their grad_fn, never
# the reverse), so reference counting alone frees them. A user's hook can still close a
# cycle, so the type can be traversed and ``_gc_track`` enrols such tensors. It is never
# *cleared* (no_gc_clear): the GC breaks a cycle through the lists, closures and nodes
# in it, so a tensor never sees its storage or dtype set to None.
@cython.no_gc_clear
cdef class TensorBase:
    """The Cython half of ``cygrad.Tensor``: memory, geometry and the hot operations.

    Users never see this class directly; ``cygrad.Tensor`` subclasses it and adds the
    long tail of methods in Python.
    """

    def __cinit__(self):
        # (no parameters: Cython then passes the constructor's arguments on unchecked)
        self._shape = self._inline_geom
        self._strides = self._inline_geom + INLINE_DIMS

    def __dealloc__(self):
        if self._shape != self._inline_geom:
            PyMem_Free(self._shape)

    # ---- metadata
    @property
    def shape(self):
        """The size of each dimension, as a ``cygrad.Size`` (a tuple)."""
        if self._shape_obj is None:
            self._shape_obj = _Size([self._shape[i] for i in range(self._ndim)])
        return self._shape_obj

    def size(self, dim=None):
        """Shape of the tensor, or the size of one dimension.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, 3).size(1)
        3
        """
        if dim is None:
            return self.shape
        return self._shape[_wrap_dim(dim, self._ndim)] if self._ndim else 1

    def stride(self, dim=None):
        """Strides in elements, for all dims or one."""
        if dim is None:
            return tuple([self._strides[i] for i in range(self._ndim)])
        return self._strides[_wrap_dim(dim, self._ndim)] if self._ndim else 1

    @property
    def dtype(self):
        return self._dtype

    @property
    def device(self):
        return self._storage.device

    @property
    def is_cuda(self):
        return self._storage.device.type == "cuda"

    @property
    def is_cpu(self):
        return self._storage.device.type == "cpu"

    @property
    def ndim(self):
        return self._ndim

    def dim(self):
        """Number of dimensions (``ndim``).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, 3).dim()
        2
        """
        return self._ndim

    def ndimension(self):
        """Number of dimensions; an alias of :meth:`dim`.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, 3).ndimension()
        2
        """
        return self._ndim

    def numel(self):
        """Number of elements.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, 3).numel()
        6
        """
        return self._numel

    def nelement(self):
        """Number of elements; an alias of :meth:`numel`.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, 3).nelement()
        6
        """
        return self._numel

    def element_size(self):
        """Bytes per element (``dtype.itemsize``).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, dtype=cygrad.float64).element_size()
        8
        """
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self._numel * self._dtype.itemsize

    def storage_offset(self):
        """Where the first element sits in the storage, in elements.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6)[2:].storage_offset()
        2
        """
        return self._offset

    def untyped_storage(self):
        """The storage this tensor views, shared with all its views.

        Examples
        --------
        >>> import cygrad
        >>> x = cygrad.arange(6)
        >>> x[1:].untyped_storage() is x.untyped_storage()
        True
        """
        return self._storage

    def data_ptr(self):
        """Address of the first element (``storage start + offset * itemsize``)."""
        return <uintptr_t>self.ptr()

    def is_contiguous(self, memory_format=None):
        """Whether the elements lie in row-major order without gaps.

        ``memory_format`` is accepted for PyTorch's signature and not used: cygrad
        has one layout, row-major strides.

        Examples
        --------
        >>> import cygrad
        >>> x = cygrad.zeros(2, 3)
        >>> x.is_contiguous(), x.t().is_contiguous()
        (True, False)
        """
        return self._is_contig

    def is_floating_point(self):
        """Whether the dtype is a real floating-point type.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2).is_floating_point(), cygrad.arange(2).is_floating_point()
        (True, False)
        """
        return self._dtype._category == KIND_FLOAT

    def is_complex(self):
        """Whether the dtype is complex.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, dtype=cygrad.complex64).is_complex()
        True
        """
        return self._dtype._category == KIND_COMPLEX

    @property
    def real(self):
        """The real parts, as a view (writing to it writes into this tensor); a real
        tensor's ``real`` is the tensor itself.

        Examples
        --------
        >>> import cygrad
        >>> z = cygrad.tensor([1 + 2j, 3 - 1j])
        >>> z.real.tolist()
        [1.0, 3.0]
        >>> z.real[0] = 5
        >>> z.tolist()
        [(5+2j), (3-1j)]
        """
        return _complex_part(self, 0)

    @real.setter
    def real(self, value):
        _complex_part(self, 0).copy_(value)

    @property
    def imag(self):
        """The imaginary parts, as a view; only complex tensors have them.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1 + 2j, 3 - 1j]).imag.tolist()
        [2.0, -1.0]
        """
        return _complex_part(self, 1)

    @imag.setter
    def imag(self, value):
        _complex_part(self, 1).copy_(value)

    @property
    def _version(self):
        """How many in-place changes this tensor's memory has seen (shared by views)."""
        return self._storage.version

    def _bump_version(self):
        self._storage.version += 1

    @property
    def _is_view_flag(self):
        return self._base is not None

    def _is_view(self):
        return self._base is not None

    # ---- autograd fields (the engine lives in cygrad.autograd)
    @property
    def requires_grad(self):
        return self._requires_grad

    @requires_grad.setter
    def requires_grad(self, value):
        value = bool(value)
        if value and self._dtype._category < KIND_FLOAT:
            raise RuntimeError("only Tensors of floating point dtype can require gradients")
        if not value and self._grad_fn is not None:
            raise RuntimeError("you can only change requires_grad flags of leaf variables. If you "
                               "want to use a computed variable in a subgraph that doesn't require "
                               "differentiation use var_no_grad = var.detach().")
        self._requires_grad = value

    @property
    def is_leaf(self):
        """True for tensors not produced by a recorded op (created by the user, or not
        requiring grad)."""
        return self._grad_fn is None

    @property
    def grad(self):
        """The gradient accumulated by ``backward()`` (None until then)."""
        return self._grad

    @grad.setter
    def grad(self, value):
        if value is not None:
            if not isinstance(value, TensorBase):
                raise TypeError(f"assigned grad expected to be a Tensor or None but got grad of "
                                f"type {type(value).__name__}")
            if (<TensorBase>value).shape != self.shape:
                raise RuntimeError(f"assigned grad has data of a different size: "
                                   f"{list(value.shape)} vs {list(self.shape)}")
            if (<TensorBase>value)._dtype is not self._dtype:
                raise RuntimeError(f"assigned grad has data of a different type: "
                                   f"{value.dtype} vs {self._dtype}")
        self._grad = value

    @property
    def output_nr(self):
        return self._output_nr

    @property
    def grad_fn(self):
        return self._grad_fn

    # ---- NumPy and Python conversion
    def numpy(self, force=False):
        """A NumPy array sharing this tensor's memory (no copy).

        Examples
        --------
        >>> import cygrad
        >>> t = cygrad.zeros(2)
        >>> t.numpy()[0] = 5
        >>> t.tolist()
        [5.0, 0.0]
        """
        if self._requires_grad and not force:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        if force and not _on_cpu(self):
            return as_ndarray(self.cpu())
        return as_ndarray(self)

    def __array__(self, dtype=None, copy=None):
        arr = as_ndarray(self)
        if dtype is not None and np.dtype(dtype) != arr.dtype:
            return arr.astype(dtype)
        if copy:
            return arr.copy()
        return arr

    def tolist(self):
        """Nested Python lists of Python numbers (a number for a 0-dim tensor)."""
        return as_ndarray(self.cpu() if not _on_cpu(self) else self).tolist()

    def item(self, *args):
        """The single element as a Python number.

        NumPy's ``x.item(i)`` (a flat index) and ``x.item(i, j, ...)`` (one index per
        dim) are accepted too."""
        if args:
            if len(args) == 1 and type(args[0]) is tuple:
                args = args[0]
            if len(args) == 1:
                return self.reshape(-1)[args[0]].item()
            if len(args) != self._ndim:
                raise ValueError("incorrect number of indices for array")
            return self[args].item()
        if self._numel != 1:
            raise RuntimeError(f"a Tensor with {self._numel} elements cannot be converted to Scalar")
        return as_ndarray(self.cpu() if not _on_cpu(self) else self).reshape(()).item()

    def __float__(self):
        return float(_real_item(self, "double"))

    def __int__(self):
        return int(_real_item(self, "int64_t"))

    def __complex__(self):
        return complex(self.item())

    def __index__(self):
        if self._dtype._category >= KIND_FLOAT or self._numel != 1:
            raise TypeError("only integer tensors of a single element can be converted to an index")
        return int(self.item())

    def __bool__(self):
        if self._numel != 1:
            raise RuntimeError(f"Boolean value of Tensor with {'no' if self._numel == 0 else 'more than one'} "
                               "values is ambiguous")
        return bool(self.item())

    def __len__(self):
        if self._ndim == 0:
            raise TypeError("len() of a 0-d tensor")
        return self._shape[0]

    def __iter__(self):
        if self._ndim == 0:
            raise TypeError("iteration over a 0-d tensor")
        return iter(self.unbind(0))

    def __hash__(self):
        return id(self)

    def __reduce_ex__(self, proto):
        return (_rebuild_tensor, (as_ndarray(self.detach() if self._requires_grad else self).copy(),
                                  self._requires_grad))

    # ---- indexing
    def __getitem__(self, index):
        return _getitem(self, index)

    def __setitem__(self, index, value):
        _setitem(self, index, value)

    # ---- arithmetic
    def __add__(self, other):
        if type(other) is not _TensorCls and not _is_operand(other):
            return NotImplemented
        return binary(ADD, self, other, None)

    def __radd__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(ADD, other, self, None)

    def __iadd__(self, other):
        return _augmented(ADD, self, other, "+=")

    def __sub__(self, other):
        if type(other) is not _TensorCls and not _is_operand(other):
            return NotImplemented
        return binary(SUB, self, other, None)

    def __rsub__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(SUB, other, self, None)

    def __isub__(self, other):
        return _augmented(SUB, self, other, "-=")

    def __mul__(self, other):
        if type(other) is not _TensorCls and not _is_operand(other):
            return NotImplemented
        return binary(MUL, self, other, None)

    def __rmul__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(MUL, other, self, None)

    def __imul__(self, other):
        return _augmented(MUL, self, other, "*=")

    def __truediv__(self, other):
        if type(other) is not _TensorCls and not _is_operand(other):
            return NotImplemented
        return binary(DIV, self, other, None)

    def __rtruediv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(DIV, other, self, None)

    def __itruediv__(self, other):
        return _augmented(DIV, self, other, "/=")

    def __floordiv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(FLOOR_DIVIDE, self, other, None)

    def __rfloordiv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(FLOOR_DIVIDE, other, self, None)

    def __ifloordiv__(self, other):
        return _augmented(FLOOR_DIVIDE, self, other, "//=")

    def __mod__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(REMAINDER, self, other, None)

    def __rmod__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(REMAINDER, other, self, None)

    def __imod__(self, other):
        return _augmented(REMAINDER, self, other, "%=")

    def __pow__(self, other, mod):
        if not _is_operand(other):
            return NotImplemented
        if _pow_checks_number(self, other):
            from ..ops.elementwise import pow as pow_function
            return pow_function(self, other)
        return binary(POW, self, other, None)

    def __rpow__(self, other, mod):
        if not _is_operand(other):
            return NotImplemented
        return binary(POW, other, self, None)

    def __ipow__(self, other):
        if _pow_checks_number(self, other):
            from ..ops.elementwise import pow_ as pow_inplace
            return pow_inplace(self, other)
        return _augmented(POW, self, other, "**=")

    def __and__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_AND, self, other, None)

    def __rand__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_AND, other, self, None)

    def __iand__(self, other):
        return _augmented(BITWISE_AND, self, other, "&=")

    def __or__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_OR, self, other, None)

    def __ror__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_OR, other, self, None)

    def __ior__(self, other):
        return _augmented(BITWISE_OR, self, other, "|=")

    def __xor__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_XOR, self, other, None)

    def __rxor__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_XOR, other, self, None)

    def __ixor__(self, other):
        return _augmented(BITWISE_XOR, self, other, "^=")

    def __lshift__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(LSHIFT, self, other, None)

    def __rshift__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(RSHIFT, self, other, None)

    def __rlshift__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(LSHIFT, other, self, None)

    def __rrshift__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(RSHIFT, other, self, None)

    def __eq__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(EQ, self, _cmp_number(self, other), None)

    def __ne__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(NE, self, _cmp_number(self, other), None)

    def __lt__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(LT, self, _cmp_number(self, other), None)

    def __le__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(LE, self, _cmp_number(self, other), None)

    def __gt__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(GT, self, _cmp_number(self, other), None)

    def __ge__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(GE, self, _cmp_number(self, other), None)

    def __neg__(self):
        return unary(NEG, self, None)

    def __pos__(self):
        return self

    def __abs__(self):
        return unary(ABS, self, None)

    def __invert__(self):
        if self._dtype._category >= KIND_FLOAT:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        if self._dtype._category == KIND_BOOL:
            return unary(LOGICAL_NOT, self, None)
        return unary(BITWISE_NOT, self, None)

    # ---- the hottest unary ops and reductions (the rest live in cygrad.ops)
    def exp(self):
        """Elementwise exponential, ``cygrad.exp(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([0.0]).exp()
        tensor([1.])
        """
        return unary(EXP, self, None)

    def log(self):
        """Elementwise natural logarithm, ``cygrad.log(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1.0]).log()
        tensor([0.])
        """
        return unary(LOG, self, None)

    def tanh(self):
        """Elementwise hyperbolic tangent, ``cygrad.tanh(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([0.0]).tanh()
        tensor([0.])
        """
        return unary(TANH, self, None)

    def sigmoid(self):
        """Elementwise logistic sigmoid, ``cygrad.sigmoid(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([0.0]).sigmoid()
        tensor([0.5000])
        """
        return unary(SIGMOID, self, None)

    def relu(self):
        """Elementwise ``max(x, 0)``, ``cygrad.relu(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([-1.0, 2.0]).relu()
        tensor([0., 2.])
        """
        return unary(RELU, self, None)

    def sqrt(self):
        """Elementwise square root, ``cygrad.sqrt(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1.0, 4.0]).sqrt()
        tensor([1., 2.])
        """
        return unary(SQRT, self, None)

    def sin(self):
        """Elementwise sine, ``cygrad.sin(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([0.0]).sin()
        tensor([0.])
        """
        return unary(SIN, self, None)

    def cos(self):
        """Elementwise cosine, ``cygrad.cos(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([0.0]).cos()
        tensor([1.])
        """
        return unary(COS, self, None)

    def neg(self):
        """Elementwise negation, ``-self``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1.0, -2.0]).neg()
        tensor([-1.,  2.])
        """
        return unary(NEG, self, None)

    def abs(self):
        """Elementwise absolute value, ``cygrad.abs(self)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([-1.5, 2.0]).abs()
        tensor([1.5000, 2.0000])
        """
        return unary(ABS, self, None)

    def sum(self, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
        """Sum of all elements, or along ``dim`` (``axis``/``keepdims`` accepted too).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([[1., 2.], [3., 4.]]).sum(1).tolist()
        [3.0, 7.0]
        """
        dim = _numpy_alias("sum", "dim", dim, None, "axis", axis)
        keepdim = _numpy_alias("sum", "keepdim", keepdim, False, "keepdims", keepdims)
        if out is not None:
            return _py_reduction("sum")(self, dim, keepdim, dtype=dtype, out=out)
        if dtype is None and (keepdim is True or keepdim is False):   # (else: the TypeError)
            if dim is None and not keepdim and _sum_all_function is not None and _tracked(self):
                return _apply_c(_sum_all_function, (self,), None)    # the common loss.sum()
            res = _reduce_fast(CG_RSUM, self, dim, keepdim)
            if res is not None:
                return res
        return _py_reduction("sum")(self, dim, keepdim, dtype=dtype)

    def amax(self, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
        """Largest value over ``dim`` (all dims by default); NaN propagates.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([[1., 5.], [3., 2.]]).amax(1).tolist()
        [5.0, 3.0]
        """
        dim = _numpy_alias("amax", "dim", dim, (), "axis", axis)
        keepdim = _numpy_alias("amax", "keepdim", keepdim, False, "keepdims", keepdims)
        if out is not None:
            return _py_reduction("amax")(self, dim, keepdim, out)
        if keepdim is True or keepdim is False:
            res = _reduce_fast(CG_RMAX, self, None if dim == () else dim, keepdim)
            if res is not None:
                return res
        return _py_reduction("amax")(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
        """Smallest value over ``dim`` (all dims by default); NaN propagates."""
        dim = _numpy_alias("amin", "dim", dim, (), "axis", axis)
        keepdim = _numpy_alias("amin", "keepdim", keepdim, False, "keepdims", keepdims)
        if out is not None:
            return _py_reduction("amin")(self, dim, keepdim, out)
        if keepdim is True or keepdim is False:
            res = _reduce_fast(CG_RMIN, self, None if dim == () else dim, keepdim)
            if res is not None:
                return res
        return _py_reduction("amin")(self, dim, keepdim)

    def max(self, *args, **kwargs):
        """``max()``: the largest element; ``max(dim, keepdim=False)``: (values, indices);
        ``max(other)``: elementwise maximum. As ``torch.max``."""
        if not args and not kwargs:
            res = _reduce_fast(CG_RMAX, self, None, False)
            if res is not None:
                return res
        return _py_reduction("max")(self, *args, **kwargs)

    def min(self, *args, **kwargs):
        """``min()``: the smallest element; ``min(dim, keepdim=False)``: (values, indices);
        ``min(other)``: elementwise minimum. As ``torch.min``."""
        if not args and not kwargs:
            res = _reduce_fast(CG_RMIN, self, None, False)
            if res is not None:
                return res
        return _py_reduction("min")(self, *args, **kwargs)


cdef object _augmented(ElementwiseOp op, TensorBase self, object other, str symbol):
    """``self op= other``.  A non-operand raises Python's TypeError here: the
    NotImplemented of ``binary_inplace`` does not reach Python's fallback from this
    slot (``x += None`` bound x to NotImplemented)."""
    res = binary_inplace(op, self, other)
    if res is NotImplemented:
        raise TypeError(f"unsupported operand type(s) for {symbol}: "
                        f"'{type(self).__name__}' and '{type(other).__name__}'")
    return res


cdef object _cmp_number(TensorBase t, object other):
    """A Python number compared with a float16/bfloat16 tensor, rounded to its dtype
    first as PyTorch does (``half < 2049`` compares with 2048, ``half == 2**40`` with
    inf); the ``cygrad.lt``-style functions do the same."""
    if ((t._dtype.code == DT_FLOAT16 or t._dtype.code == DT_BFLOAT16)
            and (type(other) is float or type(other) is int and -2**63 <= other < 2**64)):
        from cygrad.ops.elementwise import _narrowed
        return _narrowed(other, t._dtype)
    return other


cdef object _numpy_alias(str opname, str name, object value, object default, str np_name,
                         object alias):
    """PyTorch's argument ``name`` given by its NumPy spelling ``np_name`` (None: not
    given); both at once is a TypeError.  The reduction functions' ``numpy_keywords``
    does the same for the methods written in Python."""
    if alias is None:
        return value
    if value is not default and not (type(value) is type(default) and value == default):
        raise TypeError(f"{opname}() got both '{name}' and its NumPy spelling '{np_name}'")
    return alias


cdef bint _pow_checks_number(TensorBase t, object e):
    """Whether ``t ** e`` (``e`` a Python number) needs the checks of cygrad.pow that
    the core's loop does not make, as PyTorch: a bool tensor to a bool power, an
    integer tensor to a negative power (the number wraps into small integer dtypes
    first), a half tensor and a number beyond its range."""
    cdef int code = t._dtype.code
    if type(e) is bool:
        return t._dtype._category <= KIND_INT
    if type(e) is int:
        return (t._dtype._category <= KIND_INT and e < 0) or code == DT_FLOAT16 or code == DT_BFLOAT16
    if type(e) is float:
        return code == DT_FLOAT16 or code == DT_BFLOAT16
    return False


include "tensor_reductions.pxi"


cdef ElementwiseOp _COPY_OP = ElementwiseOp("copy_", 1, CG_COPY, None)
# (the in-place hook's names for the two overwrites: cygrad.autograd.inplace)
cdef ElementwiseOp _FILL_OP = ElementwiseOp("fill_", 1, CG_COPY, None)
cdef ElementwiseOp _ZERO_OP = ElementwiseOp("zero_", 1, CG_COPY, None)
cdef object _clone_function = None
cdef object _to_function = None

def _set_view_functions(clone_fn, to_fn):
    global _clone_function, _to_function
    _clone_function = clone_fn
    _to_function = to_fn

cdef inline bint _is_operand(object x):
    return isinstance(x, (TensorBase, int, float, complex, np.ndarray, np.generic))


cdef object _real_item(TensorBase t, str ctype):
    """The single element for float()/int(): a complex one only if it is real, as torch."""
    v = t.item()
    if isinstance(v, complex):
        if v.imag != 0:
            raise RuntimeError(f"value cannot be converted to type {ctype} without overflow")
        return v.real
    return v


class _Size(tuple):
    """``cygrad.Size``: the shape of a tensor (a tuple of ints)."""

    def __repr__(self):
        return f"cygrad.Size({list(self)})"

    def numel(self):
        n = 1
        for d in self:
            n *= d
        return n

    def __getitem__(self, i):
        r = tuple.__getitem__(self, i)
        return _Size(r) if isinstance(i, slice) else r

Size = _Size


def _rebuild_tensor(arr, requires_grad):
    t = _from_ndarray(arr, False)
    if requires_grad:
        t.requires_grad_(True)
    return t


include "tensor_view_methods.pxi"

include "tensor_copy_methods.pxi"

include "tensor_indexing.pxi"

include "tensor_factories.pxi"
