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
    int cg_isa_variant()
    int cg_num_threads()
    void cg_set_num_threads(int n)
    enum: CG_PAR_BINARY, CG_PAR_UNARY_CHEAP, CG_PAR_UNARY_MATH, CG_PAR_REDUCE, CG_PAR_NUM_FAMILIES
    cg_index cg_parallel_min[4]
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

# Grad mode is per thread, as in PyTorch: a no_grad block in one thread does not
# switch recording off in another.
cdef extern from *:
    """
    static __thread int cg_grad_mode_enabled = 1;
    static __thread int cg_fw_mode_enabled = 1;
    """
    int cg_grad_mode_enabled
    int cg_fw_mode_enabled

cdef void pool_run(int nchunks, cg_chunk_fn fn, void* ctx) noexcept nogil:
    cg_parallel_chunks(nchunks, fn, ctx)


cdef bint grad_enabled() noexcept nogil:
    return cg_grad_mode_enabled != 0

cdef void set_grad_enabled(bint mode) noexcept nogil:
    global cg_grad_mode_enabled
    cg_grad_mode_enabled = 1 if mode else 0

def is_grad_enabled():
    """True when operations are being recorded for autograd (thread-local).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_grad_enabled()
    True
    """
    return cg_grad_mode_enabled != 0

def _set_grad_enabled(bint mode):
    global cg_grad_mode_enabled
    cg_grad_mode_enabled = 1 if mode else 0

def _set_fw_grad_enabled(bint mode):
    """Switch forward-mode tangent propagation on/off for this thread; returns the
    previous setting. An op's forward and jvp run with it off, so the plain ops they
    call compute values only."""
    global cg_fw_mode_enabled
    prev = cg_fw_mode_enabled != 0
    cg_fw_mode_enabled = 1 if mode else 0
    return prev

def _is_fw_grad_enabled():
    return cg_fw_mode_enabled != 0

cdef bint set_fw_enabled(bint mode) noexcept nogil:
    global cg_fw_mode_enabled
    cdef bint prev = cg_fw_mode_enabled != 0
    cg_fw_mode_enabled = 1 if mode else 0
    return prev

def get_num_threads():
    """Number of threads cygrad's CPU kernels use."""
    return cg_num_threads()

def set_num_threads(int n):
    """Set the number of threads cygrad's CPU kernels use (at least 1)."""
    if n < 1:
        raise ValueError(f"set_num_threads expects a positive integer, got {n}")
    cg_set_num_threads(n)

_PARALLEL_FAMILIES = ("binary", "unary_cheap", "unary_math", "reduce")

def _get_parallel_min():
    """{kernel family: element count from which it uses more than one thread}."""
    return {name: cg_parallel_min[i] for i, name in enumerate(_PARALLEL_FAMILIES)}

def _set_parallel_min(family, Py_ssize_t n):
    """Set one family's threshold (tests and bench/thresholds.py use this)."""
    if n < 1:
        raise ValueError(f"threshold must be positive, got {n}")
    cg_parallel_min[_PARALLEL_FAMILIES.index(family)] = n

_ISA_VARIANTS = {0: None, 1: "x86-64 baseline", 3: "x86-64-v3 (AVX2, FMA)",
                 4: "x86-64-v4 (AVX-512)"}

def _kernel_variant():
    """The instruction set the hot CPU loops run with here, or None for a build
    compiled for one CPU (``CYGRAD_ARCH=...``), which has no variants (cpu/isa.h)."""
    return _ISA_VARIANTS[cg_isa_variant()]

# The Python class users see (cygrad.Tensor subclasses TensorBase); set at import.
cdef type _TensorCls = None

def _set_tensor_class(cls):
    global _TensorCls
    _TensorCls = cls

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

# --------------------------------------------------------------------------- helpers

cdef inline bint _is_scalar(object x):
    return isinstance(x, (int, float, complex)) or isinstance(x, np.generic)

cdef str _shape_str(int ndim, const Py_ssize_t* shape):
    return "[" + ", ".join([str(shape[i]) for i in range(ndim)]) + "]"

cdef inline void _contig_strides(int ndim, const Py_ssize_t* shape, Py_ssize_t* strides) noexcept:
    cdef Py_ssize_t s = 1
    cdef int i
    for i in range(ndim - 1, -1, -1):
        strides[i] = s
        s *= shape[i] if shape[i] > 0 else 1

cdef inline bint _compute_contig(int ndim, const Py_ssize_t* shape, const Py_ssize_t* strides) noexcept:
    cdef Py_ssize_t expected = 1
    cdef int i
    for i in range(ndim - 1, -1, -1):
        if shape[i] == 1:
            continue
        if shape[i] == 0:
            return True
        if strides[i] != expected:
            return False
        expected *= shape[i]
    return True

cdef Py_ssize_t _checked_numel(int ndim, const Py_ssize_t* shape) except -1:
    """The number of elements of ``shape``; RuntimeError (as PyTorch) if it overflows."""
    cdef Py_ssize_t n = 1
    cdef int i
    for i in range(ndim):
        if cg_mul_overflow(n, shape[i], &n):
            raise RuntimeError("numel: integer multiplication overflow")
    return n

cdef inline int _finish_meta(TensorBase t) except -1:
    t._numel = _checked_numel(t._ndim, t._shape)
    t._is_contig = _compute_contig(t._ndim, t._shape, t._strides)

cdef inline TensorBase _alloc_tensor():
    """A blank instance of cygrad.Tensor. Python subclasses are always GC-tracked;
    tensors are kept out of reference cycles by design, so untrack them: the cyclic
    GC then has nothing to scan for them, as for NumPy arrays."""
    if _TensorCls is None:
        raise RuntimeError("cygrad._core used before cygrad was imported (import cygrad first)")
    cdef TensorBase t = <TensorBase>cg_tp_new(TensorBase, _TensorCls, _EMPTY_TUPLE)
    PyObject_GC_UnTrack(<void*>t)
    return t


def _gc_track(TensorBase t):
    """Let the cyclic GC see ``t`` from now on. Tensors start untracked (cheap, like
    NumPy arrays); one that gets hooks may end up in a cycle through a closure
    (``x.register_hook(lambda g: x ...)``), which only the GC can free."""
    if not PyObject_GC_IsTracked(t):
        PyObject_GC_Track(<void*>t)

cdef int set_ndim(TensorBase t, int ndim) except -1:
    """Give ``t`` room for ``ndim`` dims and set its ``_ndim`` (the sizes and strides
    are then the caller's to write). The old values are not kept."""
    cdef Py_ssize_t* block
    if ndim > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {ndim}")
    if ndim > INLINE_DIMS and t._shape == t._inline_geom:
        block = <Py_ssize_t*>PyMem_Malloc(2 * MAX_DIMS * sizeof(Py_ssize_t))
        if block == NULL:
            raise MemoryError()
        t._shape = block
        t._strides = block + MAX_DIMS
    t._ndim = ndim
    return 0

cdef TensorBase new_empty(DType dt, int ndim, const Py_ssize_t* shape, object device):
    """A fresh contiguous tensor (uninitialised memory) on ``device``."""
    cdef TensorBase t = _alloc_tensor()
    cdef Py_ssize_t n = 1, nbytes, nbytes_stride
    cdef int i
    cdef bint overflow = False
    set_ndim(t, ndim)
    for i in range(ndim):
        if shape[i] < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {shape[i]}: {_shape_str(ndim, shape)}")
        t._shape[i] = shape[i]
        overflow |= cg_mul_overflow(n, shape[i], &n)
    # a wrapped size would allocate a tiny block that kernels then overrun (issue 6)
    if overflow or cg_mul_overflow(n, dt.itemsize, &nbytes):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_shape_str(ndim, shape)}")
    if n == 0:
        # an empty tensor's strides still multiply its other sizes (PyTorch: the
        # product of the sizes behind each dim, sizes 0 read as 1) and may not wrap
        nbytes_stride = 1
        for i in range(ndim - 1, 0, -1):
            if cg_mul_overflow(nbytes_stride, shape[i] if shape[i] > 0 else 1, &nbytes_stride):
                raise RuntimeError("Stride calculation overflowed")
    _contig_strides(ndim, shape, t._strides)
    t._numel = n
    t._is_contig = True
    t._dtype = dt
    if device is not None and device is not CPU and (<object>device).type != "cpu":
        return _device_empty(t, device)
    t._storage = new_host_storage(nbytes)
    return t

cdef object _cuda_empty_hook = None

def _set_cuda_empty_hook(fn):
    global _cuda_empty_hook
    _cuda_empty_hook = fn

cdef TensorBase _device_empty(TensorBase t, object device):
    if _cuda_empty_hook is None:
        from ..cuda import _lazy_init
        _lazy_init()   # raises a clear error naming what is missing
    t._storage = _cuda_empty_hook(t._numel * t._dtype.itemsize, device)
    return t

cdef TensorBase new_view(TensorBase base, int ndim, const Py_ssize_t* shape,
                         const Py_ssize_t* strides, Py_ssize_t offset):
    """A view of ``base``'s storage with new geometry; shares its version counter."""
    cdef TensorBase t = _alloc_tensor()
    cdef int i
    set_ndim(t, ndim)
    t._storage = base._storage
    t._dtype = base._dtype
    t._offset = offset
    for i in range(ndim):
        t._shape[i] = shape[i]
        t._strides[i] = strides[i]
    _finish_meta(t)
    t._base = base if base._base is None else base._base
    return t

cdef inline TensorBase _empty_like_shape(TensorBase like, DType dt):
    return new_empty(dt, like._ndim, like._shape, like._storage.device)

cdef object as_ndarray(TensorBase t):
    """A NumPy array over the same memory (no copy). Its base keeps the storage alive."""
    cdef cnp.npy_intp shape[MAX_DIMS]
    cdef cnp.npy_intp strides[MAX_DIMS]
    cdef int i
    cdef Py_ssize_t isz = t._dtype.itemsize
    if t._storage.device is not CPU and t._storage.device.type != "cpu":
        raise TypeError(f"can't convert {t._storage.device} device type tensor to numpy. "
                        "Use Tensor.cpu() to copy the tensor to host memory first.")
    for i in range(t._ndim):
        shape[i] = t._shape[i]
        strides[i] = t._strides[i] * isz
    descr = t._dtype.np_dtype
    Py_INCREF(descr)   # PyArray_NewFromDescr steals a reference
    arr = PyArray_NewFromDescr(&PyArray_Type, <cnp.dtype>descr, t._ndim, shape, strides,
                               <void*>t.ptr(), cnp.NPY_ARRAY_WRITEABLE, None)
    Py_INCREF(t._storage)
    cnp.PyArray_SetBaseObject(<cnp.ndarray>arr, t._storage)
    return arr

def _ndarray(TensorBase t):
    return as_ndarray(t)

cdef TensorBase _from_ndarray(object arr, bint warn_readonly=True):
    """Wrap a NumPy array's memory (no copy). Its strides must be whole elements."""
    cdef cnp.ndarray a = <cnp.ndarray?>arr
    cdef DType dt = to_dtype(a.dtype)
    cdef int ndim = cnp.PyArray_NDIM(a)
    cdef Py_ssize_t isz = dt.itemsize
    cdef Py_ssize_t lo = 0, hi = 0, st, i
    cdef TensorBase t
    if ndim > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {ndim}")
    t = _alloc_tensor()
    set_ndim(t, ndim)
    t._dtype = dt
    for i in range(ndim):
        st = cnp.PyArray_STRIDE(a, i)
        if st % isz != 0:
            raise ValueError(f"from_numpy: array strides {arr.strides} are not multiples of the "
                             f"element size {isz}; copy the array first (np.ascontiguousarray)")
        t._shape[i] = cnp.PyArray_DIM(a, i)
        t._strides[i] = st // isz
        if t._shape[i] == 0:
            lo = hi = 0
    _finish_meta(t)
    if t._numel > 0:
        for i in range(ndim):
            if t._strides[i] < 0:
                lo += t._strides[i] * (t._shape[i] - 1)
            else:
                hi += t._strides[i] * (t._shape[i] - 1)
    if warn_readonly and not a.flags.writeable:
        warnings.warn("The given NumPy array is not writable, and cygrad does not support "
                      "non-writable tensors: writing to the tensor is undefined behaviour. "
                      "Copy the array first (arr.copy()) to silence this warning.",
                      UserWarning, stacklevel=3)
    base_ptr = <char*>cnp.PyArray_DATA(a) + lo * isz
    t._storage = wrap_foreign(base_ptr, (hi - lo + 1) * isz if t._numel else 0, a, CPU)
    t._offset = -lo
    return t

def from_numpy(ndarray):
    """A tensor that shares memory with a NumPy array: writes show through both ways.

    Examples
    --------
    >>> import numpy as np, cygrad
    >>> a = np.arange(3.0)
    >>> t = cygrad.from_numpy(a)
    >>> t[0] = 7
    >>> a
    array([7., 1., 2.])
    """
    if not isinstance(ndarray, np.ndarray):
        raise TypeError(f"expected np.ndarray (got {type(ndarray).__name__})")
    return _from_ndarray(ndarray)

# --------------------------------------------------------------- promotion & broadcasting

cdef inline DType _scalar_dtype(object x):
    if isinstance(x, bool) or isinstance(x, np.bool_):
        return _dtype_mod.bool_
    if isinstance(x, int) or isinstance(x, np.integer):
        return _dtype_mod.int64
    if isinstance(x, float) or isinstance(x, np.floating):
        return default_float()
    if isinstance(x, complex) or isinstance(x, np.complexfloating):
        return default_complex()
    raise TypeError(f"unsupported operand type {type(x).__name__}")

cdef inline DType _combine(DType higher, DType lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher._category == KIND_COMPLEX:
        return higher
    if lower._category == KIND_COMPLEX:
        # a lower-priority complex keeps a floating operand's precision (torch)
        return higher.to_complex() if higher._category == KIND_FLOAT else lower
    if higher._category == KIND_FLOAT:
        return higher
    if higher._category == KIND_BOOL or lower._category == KIND_FLOAT:
        return promote(higher, lower)
    return higher

cdef DType _result_type_seq(tuple operands):
    cdef DType dim_r = None, zero_r = None, wrapped_r = None, d
    cdef TensorBase t
    for x in operands:
        if isinstance(x, TensorBase):
            t = <TensorBase>x
            if t._ndim > 0:
                dim_r = t._dtype if dim_r is None else promote(dim_r, t._dtype)
            else:
                zero_r = t._dtype if zero_r is None else promote(zero_r, t._dtype)
        else:
            d = _scalar_dtype(x)
            wrapped_r = d if wrapped_r is None else promote(wrapped_r, d)
    return _combine(dim_r, _combine(zero_r, wrapped_r))

def result_type(*operands):
    """The dtype an elementwise op on these tensors/scalars produces (``torch.result_type``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.result_type(cygrad.tensor([1, 2]), 1.0)
    cygrad.float32
    """
    if not operands:
        raise TypeError("result_type() needs at least one operand")
    return _result_type_seq(operands)

cdef bint can_cast(DType src, DType dst):
    """torch.can_cast: no casts down a category (complex->float, float->int, int->bool)."""
    return src._category <= dst._category

def _can_cast(src, dst):
    """``cygrad.can_cast(from_, to)``: whether PyTorch's casting rules allow ``from_``
    to become ``to`` in an in-place op or ``out=`` (no float to integer, no complex
    to real, no number to bool).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.can_cast(cygrad.int32, cygrad.float32), cygrad.can_cast(cygrad.float32, cygrad.int32)
    (True, False)
    """
    return can_cast(to_dtype(src), to_dtype(dst))

cdef int _broadcast(int nda, const Py_ssize_t* sa, int ndb, const Py_ssize_t* sb,
                    Py_ssize_t* out) except -1:
    cdef int nd = nda if nda > ndb else ndb
    cdef int i, ia, ib
    cdef Py_ssize_t da, db
    for i in range(nd):
        ia = nda - nd + i
        ib = ndb - nd + i
        da = sa[ia] if ia >= 0 else 1
        db = sb[ib] if ib >= 0 else 1
        if da == db or db == 1:
            out[i] = da
        elif da == 1:
            out[i] = db
        else:
            raise RuntimeError(f"The size of tensor a ({da}) must match the size of tensor b ({db}) "
                               f"at non-singleton dimension {i}")
    return nd

cdef inline void _expand_strides(TensorBase t, int nd, const Py_ssize_t* shape,
                                 Py_ssize_t* strides) noexcept:
    """Strides of ``t`` broadcast to ``shape`` (0 where it is broadcast)."""
    cdef int i, j
    for i in range(nd):
        j = t._ndim - nd + i
        if j < 0 or (t._shape[j] == 1 and shape[i] != 1):
            strides[i] = 0
        else:
            strides[i] = t._strides[j]

include "tensor_dispatch.pxi"


include "tensor_views.pxi"


# the most views chunk() hands back (PyTorch's vector of results fails to allocate)
cdef Py_ssize_t _MAX_VIEWS = (1 << 31) - 1
_INT64_MAX = (1 << 63) - 1

# squeeze()'s default: PyTorch refuses an explicit None
cdef object _ALL_DIMS = object()

cdef object _expand(TensorBase self, tuple sizes):
    """``self.expand(*sizes)`` once the sizes are read (a tuple of ints)."""
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int nd, i, j
    nd = len(sizes)
    if nd < self._ndim:
        raise RuntimeError(f"expand(): the number of sizes provided ({nd}) must be greater or "
                           f"equal to the number of dimensions in the tensor ({self._ndim})")
    if nd > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {nd}")
    for i in range(nd):
        if not -9223372036854775808 <= sizes[i] <= 9223372036854775807:
            raise _size_overflow("expand", "size", i)
    for i in range(nd):
        j = i - (nd - self._ndim)
        v = sizes[i]
        if j < 0:
            if v < 0:
                raise RuntimeError(f"expand(): the expanded size of the tensor ({v}) isn't "
                                   "allowed in a leading, non-existing dimension 0")
            shape[i] = v
            strides[i] = 0
        elif v == -1 or v == self._shape[j]:
            shape[i] = self._shape[j]
            strides[i] = self._strides[j]
        elif self._shape[j] == 1:
            if v < 0:
                raise RuntimeError(f"expand(): invalid size {v}")
            shape[i] = v
            strides[i] = 0
        else:
            raise RuntimeError(f"The expanded size of the tensor ({v}) must match the existing "
                               f"size ({self._shape[j]}) at non-singleton dimension {i}.  "
                               f"Target sizes: {list(sizes)}.  Tensor sizes: {list(self.shape)}")
    return _make_view(self, nd, shape, strides, self._offset, "ExpandBackward0")


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

    # ---- views
    def view(self, *shape):
        """A view with a new shape (no copy); raises if the strides don't allow one.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6).view(2, -1).shape
        cygrad.Size([2, 3])
        """
        cdef Py_ssize_t new_shape[MAX_DIMS]
        cdef Py_ssize_t new_strides[MAX_DIMS]
        if len(shape) == 1 and isinstance(shape[0], DType):
            return _view_dtype(self, shape[0])
        if not shape:
            raise TypeError("view() received an invalid combination of arguments - got (), but "
                            "expected one of:\n * (torch.dtype dtype)\n * (tuple of ints size)")
        cdef int nd = _parse_shape(shape, self._numel, new_shape, "view")
        if not _view_strides(self, nd, new_shape, new_strides):
            raise RuntimeError("view size is not compatible with input tensor's size and stride (at "
                               "least one dimension spans across two contiguous subspaces). Use "
                               ".reshape(...) instead.")
        return _make_view(self, nd, new_shape, new_strides, self._offset, "ViewBackward0")

    def reshape(self, *shape):
        """Like ``view`` when the memory layout allows it, else a contiguous copy.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6).reshape(3, 2).t().reshape(-1).tolist()
        [0, 2, 4, 1, 3, 5]
        """
        cdef Py_ssize_t new_shape[MAX_DIMS]
        cdef Py_ssize_t new_strides[MAX_DIMS]
        cdef int nd = _parse_shape(shape, self._numel, new_shape, "reshape")
        if _view_strides(self, nd, new_shape, new_strides):
            return _make_view(self, nd, new_shape, new_strides, self._offset, "ViewBackward0")
        return self.contiguous().view(*[new_shape[i] for i in range(nd)])

    def view_as(self, other):
        """``self.view(other.shape)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6).view_as(cygrad.zeros(2, 3)).shape
        cygrad.Size([2, 3])
        """
        return self.view(other.shape)

    def reshape_as(self, other):
        """``self.reshape(other.shape)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6).reshape_as(cygrad.zeros(3, 2)).shape
        cygrad.Size([3, 2])
        """
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1, *, order=None):
        """Merge dims ``start_dim..end_dim`` into one (a view when possible).

        NumPy's ``x.flatten(order)`` (``'C'``, ``'F'``, ``'A'``, ``'K'``) is accepted too,
        with PyTorch's result: a view when possible."""
        if order is not None or type(start_dim) is str:
            from cygrad._numpy_methods import numpy_order_flat
            return numpy_order_flat(self, start_dim if order is None else order, "flatten")
        cdef Py_ssize_t sd = _int_arg(start_dim, "flatten", "start_dim", 1)
        cdef Py_ssize_t ed = _int_arg(end_dim, "flatten", "end_dim", 2)
        cdef int s = _wrap_idx(sd, self._ndim), e = _wrap_idx(ed, self._ndim)
        if self._ndim == 0:
            return self.reshape(1)
        if s > e:
            raise RuntimeError("flatten() has invalid args: start_dim cannot come after end_dim")
        if s == e:
            return self
        shape = list(self.shape)
        merged = 1
        for d in shape[s:e + 1]:
            merged *= d
        return self.reshape(shape[:s] + [merged] + shape[e + 1:])

    def unflatten(self, dim, sizes):
        """Split dim ``dim`` into ``sizes`` (one may be -1)."""
        if len(sizes) == 0:
            raise RuntimeError("unflatten: sizes must be non-empty")
        cdef int d = _wrap_dim(dim, self._ndim)
        cdef Py_ssize_t inner[MAX_DIMS]
        n = _parse_shape((tuple(sizes),), self._shape[d], inner, "unflatten")
        shape = list(self.shape)
        return self.view(shape[:d] + [inner[i] for i in range(n)] + shape[d + 1:])

    def transpose(self, dim0, dim1):
        """Swap two dimensions (a view).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2, 3).transpose(0, 1).shape
        cygrad.Size([3, 2])
        """
        return _transpose(self, _int_arg(dim0, "transpose", "dim0", 1),
                          _int_arg(dim1, "transpose", "dim1", 2), "TransposeBackward0")

    swapaxes = transpose
    swapdims = transpose

    def t(self):
        """Transpose of a tensor with at most 2 dims."""
        if self._ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._ndim}D")
        return _transpose(self, 0, self._ndim - 1 if self._ndim else 0, "TBackward0")

    @property
    def T(self):
        """All dims reversed (as NumPy's ``.T``)."""
        return self.permute(*range(self._ndim - 1, -1, -1))

    @property
    def mT(self):
        """The last two dims swapped (batched matrix transpose)."""
        if self._ndim == 0:
            return self.view(())       # PyTorch lets a 0-d tensor through unchanged
        if self._ndim < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self._ndim}-D tensor.")
        return self.transpose(-2, -1)

    def permute(self, *dims):
        """Reorder dims (a view): ``permute(2, 0, 1)``."""
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
        cdef int i, d
        if len(dims) == 1 and not isinstance(dims[0], (int, np.integer)):
            dims = tuple(dims[0])
        for v in dims:
            if type(v) is not int or not -(1 << 63) <= v < (1 << 63):
                # PyTorch's parser: an element that is no int, or beyond 64 bits, is a
                # TypeError naming it ("failed to unpack the object at pos N")
                from ..ops._argcheck import int_list_arg
                dims = int_list_arg(dims, "permute", "dims", 1, allow_int=False)
                break
        if len(dims) != self._ndim:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                               f"not match the length of the desired ordering of dimensions i.e. "
                               f"input.dim() = {self._ndim} is not equal to len(dims) = {len(dims)}")
        seen = []
        for i in range(self._ndim):
            d = _wrap_dim(dims[i], self._ndim)
            if d in seen:
                raise RuntimeError("permute(): duplicate dims are not allowed.")
            seen.append(d)
            shape[i] = self._shape[d]
            strides[i] = self._strides[d]
        return _make_view(self, self._ndim, shape, strides, self._offset, "PermuteBackward0",
                          (tuple(seen),))

    def movedim(self, source, destination):
        """Move dims from ``source`` positions to ``destination`` positions (a view)."""
        if type(source) is int and type(destination) is int:
            src = [_int_arg(source, "movedim", "source", 1)]
            dst = [_int_arg(destination, "movedim", "destination", 2)]
        else:
            from ..ops.shape.functional_views import _movedim_args
            src, dst = _movedim_args(source, destination, "movedim", 1)
            src, dst = list(src), list(dst)
        if len(src) != len(dst):
            raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                               f"should contain the same number of dims as destination ({dst} dims)")
        wsrc = [_wrap_idx(d, self._ndim) for d in src]
        wdst = [_wrap_idx(d, self._ndim) for d in dst]
        if len(set(wsrc)) != len(wsrc):
            raise RuntimeError(f"movedim: repeated dim in `source` ({src})")
        if len(set(wdst)) != len(wdst):
            raise RuntimeError(f"movedim: repeated dim in `destination` ({dst})")
        if self._ndim == 0:
            return self.view(())
        # the dims not moved keep their order in the places no destination names
        rest = iter([d for d in range(self._ndim) if d not in wsrc])
        perm = [None] * self._ndim
        for s, d in zip(wsrc, wdst):
            perm[d] = s
        return self.permute([p if p is not None else next(rest) for p in perm])

    moveaxis = movedim

    def expand(self, *sizes):
        """Broadcast to a larger shape without copying (stride 0 on new dims).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 2]).expand(3, -1).stride()
        (0, 1)
        """
        return _expand(self, _shape_tuple(sizes, "expand", "size"))

    def expand_as(self, other):
        """``self.expand(other.shape)``: a view, no copy.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(3).expand_as(cygrad.zeros(2, 3)).shape
        cygrad.Size([2, 3])
        """
        return self.expand(other.shape)

    def broadcast_to(self, *shape):
        """``self.expand(*shape)`` under NumPy's name: a view, no copy.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(3).broadcast_to(2, 3).shape
        cygrad.Size([2, 3])
        """
        return _expand(self, _shape_tuple(shape, "broadcast_to", "size"))

    def squeeze(self, dim=_ALL_DIMS):
        """Remove size-1 dims (all, or those named in ``dim``)."""
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
        cdef int i, n = 0
        if dim is _ALL_DIMS:
            dims = set(range(self._ndim))
        elif type(dim) is int:
            dims = {_wrap_idx(_int_arg(dim, "squeeze", "dim", 1), self._ndim)}
        else:
            if dim is None or isinstance(dim, (bool, np.bool_)):
                raise TypeError(f"squeeze() received an invalid combination of arguments - got "
                                f"({type(dim).__name__}), but expected one of: (), (int dim), "
                                f"(tuple of ints dim)")
            dims = set()
            for d in _argcheck().int_list_arg(dim, "squeeze", "dim", 1):
                i = _wrap_idx(d, self._ndim)
                if i in dims:
                    raise RuntimeError(f"dim {i} appears multiple times in the list of dims")
                dims.add(i)
        for i in range(self._ndim):
            if i in dims and self._shape[i] == 1:
                continue
            shape[n] = self._shape[i]
            strides[n] = self._strides[i]
            n += 1
        return _make_view(self, n, shape, strides, self._offset, "SqueezeBackward0")

    def unsqueeze(self, dim):
        """Insert a size-1 dim at position ``dim`` (a view)."""
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
        cdef int d = _wrap_dim(dim, self._ndim + 1), i, j = 0
        if self._ndim + 1 > MAX_DIMS:
            raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions")
        for i in range(self._ndim + 1):
            if i == d:
                shape[i] = 1
                strides[i] = self._strides[j] * self._shape[j] if j < self._ndim else 1
            else:
                shape[i] = self._shape[j]
                strides[i] = self._strides[j]
                j += 1
        return _make_view(self, self._ndim + 1, shape, strides, self._offset, "UnsqueezeBackward0")

    def narrow(self, dim, start, length):
        """Elements ``start:start+length`` along ``dim`` (a view)."""
        # read as PyTorch's parser does, then checked in its order: 0-dim, length, dim, start
        dim = _int_arg(dim, "narrow", "dim", 1)
        start = _int_arg(start, "narrow", "start", 2)
        length = _int_arg(length, "narrow", "length", 3)
        if self._ndim == 0:
            raise RuntimeError("narrow() cannot be applied to a 0-dim tensor.")
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        cdef int d = _wrap_dim(dim, self._ndim)
        cdef Py_ssize_t size = self._shape[d], s = start, n = length
        if s < -size or s > size:
            raise IndexError(f"start out of range (expected to be in range of [{-size}, {size}], "
                             f"but got {start})")
        if s < 0:
            s += size
        if n < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        if s + n > size:
            raise RuntimeError(f"start ({start}) + length ({length}) exceeds dimension size ({size}).")
        cdef Py_ssize_t shape[MAX_DIMS]
        memcpy(shape, self._shape, self._ndim * sizeof(Py_ssize_t))
        shape[d] = n
        return _make_view(self, self._ndim, shape, self._strides, self._offset + s * self._strides[d], "NarrowBackward0")

    def select(self, dim, index):
        """The slice at ``index`` along ``dim``, with that dim removed (a view)."""
        cdef Py_ssize_t dd = _int_arg(dim, "select", "dim", 1)
        index = _int_arg(index, "select", "index", 2)
        cdef int d = _wrap_idx(dd, self._ndim)
        if self._ndim == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        return _select(self, d, index)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The diagonal of the (dim1, dim2) matrices, as the last dim (a view)."""
        offset = _int_arg(offset, "diagonal", "offset", 1)
        dim1 = _int_arg(dim1, "diagonal", "dim1", 2)
        dim2 = _int_arg(dim2, "diagonal", "dim2", 3)
        cdef int a = _wrap_idx(dim1, self._ndim), b = _wrap_idx(dim2, self._ndim), i, n = 0
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
        cdef Py_ssize_t off = self._offset, length
        if a == b:
            raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
        if offset >= 0:
            length = max(0, min(self._shape[a], self._shape[b] - offset))
            if length > 0:
                off += offset * self._strides[b]
        else:
            length = max(0, min(self._shape[a] + offset, self._shape[b]))
            if length > 0:
                off -= offset * self._strides[a]
        for i in range(self._ndim):
            if i != a and i != b:
                shape[n] = self._shape[i]
                strides[n] = self._strides[i]
                n += 1
        shape[n] = length
        strides[n] = self._strides[a] + self._strides[b]
        return _make_view(self, n + 1, shape, strides, off, "DiagonalBackward0")

    def as_strided(self, size, stride, storage_offset=None):
        """A view with explicit geometry; it must stay inside the storage. Negative
        strides are refused, as in PyTorch.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6).as_strided((2, 2), (3, 1), 1).tolist()
        [[1, 2], [4, 5]]
        """
        if any([isinstance(s, int) and s < 0 for s in stride]) if hasattr(stride, "__iter__") else False:
            raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, "
                               f"got strides: {list(stride)}")
        return self._as_strided_any(size, stride, storage_offset)

    def _as_strided_any(self, size, stride, storage_offset=None):
        """``as_strided`` that also takes negative strides: cygrad's own code rebuilds
        views of negative-step slices (``x[::-1]``, which PyTorch lacks) through it."""
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
        size = _argcheck().int_list_arg(size, "as_strided", "size", 1, allow_int=False)
        stride = _argcheck().int_list_arg(stride, "as_strided", "stride", 2, allow_int=False)
        if storage_offset is not None:
            storage_offset = _int_arg(storage_offset, "as_strided", "storage_offset", 3)
        cdef int nd = len(size), i
        cdef Py_ssize_t off = self._offset if storage_offset is None else storage_offset
        cdef Py_ssize_t lo = off, hi = off
        if len(stride) != nd:
            raise RuntimeError(f"mismatch in length of strides and shape")
        if nd > MAX_DIMS:
            raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {nd}")
        empty = False
        cdef Py_ssize_t reach, need
        cdef bint overflow = False
        for i in range(nd):
            shape[i] = size[i]
            strides[i] = stride[i]
            if shape[i] < 0:
                raise RuntimeError(f"as_strided: negative size {shape[i]}")
            if shape[i] == 0:
                empty = True
            else:
                # checked: a wrapped extent would pass the bounds test below (issue 6)
                overflow |= cg_mul_overflow(strides[i], shape[i] - 1, &reach)
                if strides[i] < 0:
                    overflow |= __builtin_add_overflow_ssize(lo, reach, &lo)
                else:
                    overflow |= __builtin_add_overflow_ssize(hi, reach, &hi)
        if off < 0:
            raise RuntimeError(f"Tensor: invalid storage offset {off}")
        if not empty and (overflow or cg_mul_overflow(hi + 1, self._dtype.itemsize, &need)):
            raise RuntimeError(f"Storage size calculation overflowed with sizes={list(size)} "
                               f"and strides={list(stride)}")
        if not empty and (lo < 0 or (hi + 1) * self._dtype.itemsize > self._storage.nbytes):
            raise RuntimeError(f"setStorage: sizes {list(size)}, strides {list(stride)}, storage "
                               f"offset {off}, and itemsize {self._dtype.itemsize} requiring a "
                               f"storage size of {(hi + 1) * self._dtype.itemsize} are out of bounds "
                               f"for storage of size {self._storage.nbytes}")
        return _make_view(self, nd, shape, strides, off, "AsStridedBackward0")

    def unbind(self, dim=0):
        """All slices along ``dim`` as a tuple of views."""
        if type(dim) is not int:            # read before the 0-d check, as PyTorch's parser
            dim = _int_arg(dim, "unbind", "dim", 1)
        if self._ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        cdef int d = _wrap_dim(dim, self._ndim)
        return tuple([_select(self, d, i) for i in range(self._shape[d])])

    def split(self, split_size_or_sections, dim=0):
        """Views of consecutive chunks along ``dim``: of a given size, or of listed sizes."""
        sizes = split_size_or_sections
        if type(dim) is not int or not (type(sizes) is int or (type(sizes) is tuple and all(
                [type(v) is int for v in <tuple>sizes]))):
            # read as PyTorch's parser does; it calls back with an int/tuple of ints
            from ..ops.shape.splitting import split as split_function
            return split_function(self, sizes, dim)
        dim = _int_arg(dim, "split", "dim", 2)
        if type(sizes) is int:
            step = _int_arg(sizes, "split", "split_size", 1)
        if self._ndim == 0:
            raise RuntimeError("split expects at least a 1-dimensional tensor")
        if type(sizes) is int and step < 0:
            raise RuntimeError(f"split expects split_size be non-negative, but got "
                               f"split_size={step}")
        cdef int d = _wrap_idx(dim, self._ndim)
        size = self._shape[d]
        if type(sizes) is int:
            if step == 0 and size > 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                                   f"dimension size of {size}")
            sections = [min(step, size - s) for s in range(0, size, step)] if size else [0]
        else:
            sections = list(sizes)
            if any([n < 0 for n in sections]):
                raise RuntimeError(f"split_with_sizes expects split_sizes have only non-negative "
                                   f"entries, but got split_sizes={sections}")
            if sum(sections) != size:
                raise RuntimeError(f"split_with_sizes expects split_sizes to sum exactly to {size} "
                                   f"(input tensor's size at dimension {d}), but got "
                                   f"split_sizes={sections}")
        out, start = [], 0
        for n in sections:
            out.append(self.narrow(d, start, n))
            start += n
        return tuple(out)

    def chunk(self, chunks, dim=0):
        """Split into ``chunks`` nearly equal views along ``dim`` (the last may be smaller)."""
        cdef Py_ssize_t n = _int_arg(chunks, "chunk", "chunks", 1)
        cdef Py_ssize_t dd = _int_arg(dim, "chunk", "dim", 2)
        if self._ndim == 0:
            raise RuntimeError("chunk expects at least a 1-dimensional tensor")
        if n <= 0:
            raise RuntimeError(f"chunk expects `chunks` to be greater than 0, got: {n}")
        cdef int d = _wrap_idx(dd, self._ndim)
        size = self._shape[d]
        # PyTorch's int64 ceil-division, wrap-around included (it decides which error a
        # huge ``chunks`` gets), truncating toward zero
        total = size + n - 1
        if total > _INT64_MAX:
            total -= 1 << 64
        step = -(-total // n) if total < 0 else total // n
        if size == 0 and step == 0:
            if n > _MAX_VIEWS:      # one view object per chunk: PyTorch's vector fails too
                raise RuntimeError(f"chunk: cannot return {n} chunks (std::bad_alloc)")
            return tuple([self.narrow(d, 0, 0) for _ in range(n)])
        return self.split(step, d)

    # ---- copies
    def contiguous(self, memory_format=None):
        """Self if already C-contiguous, else a contiguous copy."""
        if self._is_contig:
            return self
        return self.clone()

    def clone(self, memory_format=None):
        """A copy with its own memory (contiguous). Differentiable."""
        cdef TensorBase out
        if _tracked(self) and _apply_c != NULL:
            return _apply_c(_clone_function, (self,), None)
        out = new_empty(self._dtype, self._ndim, self._shape, self._storage.device)
        copy_into(out, self)
        return out

    def copy_(self, src, non_blocking=False):
        """Copy ``src`` (broadcast, converted to self's dtype) into self, in place."""
        if not isinstance(src, TensorBase):
            src = _as_tensor_like(src, self)
        if (cg_grad_mode_enabled and (self._requires_grad or (<TensorBase>src)._requires_grad)
                or _dual(self) or _dual(src)):
            return _inplace_autograd(_COPY_OP, self, src)
        copy_into(self, <TensorBase>src)
        self._storage.version += 1
        return self

    def resize_(self, *sizes):
        """Change this tensor's shape in place to a fresh contiguous layout, as
        ``torch.Tensor.resize_``: memory is reused when large enough, values are
        unspecified afterwards (used for ``out=`` arguments of the wrong shape)."""
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef int nd = _size_args(sizes, shape), i
        cdef Py_ssize_t n = 1, nbytes
        if self._requires_grad and cg_grad_mode_enabled:
            raise RuntimeError("cannot resize variables that require grad")
        for i in range(nd):
            if shape[i] < 0:
                raise RuntimeError(f"Trying to create tensor with negative dimension {shape[i]}: "
                                   f"{_shape_str(nd, shape)}")
            if cg_mul_overflow(n, shape[i], &n):
                n = -1
                break
        if n < 0 or cg_mul_overflow(n, self._dtype.itemsize, &nbytes):
            raise RuntimeError(f"Storage size calculation overflowed with sizes={_shape_str(nd, shape)}")
        if self._base is None and self._offset == 0 and nbytes <= self._storage.nbytes:
            set_ndim(self, nd)
            for i in range(nd):
                self._shape[i] = shape[i]
            _contig_strides(nd, shape, self._strides)
            _finish_meta(self)
            self._shape_obj = None
        else:
            _resize(self, nd, shape)
        return self

    def fill_(self, value):
        """Set every element to ``value``, in place."""
        if not isinstance(value, (TensorBase, int, float, complex, np.number, np.bool_)):
            raise TypeError(f"fill_(): argument 'value' (position 1) must be Number, not "
                            f"{type(value).__name__}")
        if cg_grad_mode_enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if isinstance(value, TensorBase):
            if (<TensorBase>value)._ndim != 0:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{(<TensorBase>value)._ndim} dimensions.")
            if _tracked(<TensorBase>value) or _tracked(self):
                return _inplace_autograd(_FILL_OP, self, value)     # (value gets a gradient)
            value = value.item()
        elif _tracked(self):
            # an overwrite: autograd must see it (the old values get no gradient)
            _int_fill_value(self._dtype, value, self._numel == 1)   # (its checks first)
            return _inplace_autograd(_FILL_OP, self, value)
        value = _int_fill_value(self._dtype, value, self._numel == 1)
        if self._numel:
            token = _quiet_enter()     # (a one-element half fill may round to inf)
            try:
                as_ndarray(self)[...] = value
            except OverflowError:
                raise RuntimeError(f"value cannot be converted to type {self._dtype.name}_t without "
                                   "overflow") from None
            finally:
                _quiet_exit(token)
        self._storage.version += 1
        return self

    def zero_(self):
        """Set every element to zero, in place."""
        if _tracked(self):
            if cg_grad_mode_enabled and self._requires_grad and self._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an "
                                   "in-place operation.")
            return _inplace_autograd(_ZERO_OP, self, None)
        return self.fill_(0)

    def to(self, *args, **kwargs):
        """Convert dtype and/or device: ``t.to(cygrad.float64)``, ``t.to("cuda")``, ``t.to(other)``.

        Returns self when nothing changes (as PyTorch does), unless ``copy=True``.
        """
        dt, dev = None, None
        copy = kwargs.pop("copy", False)
        kwargs.pop("non_blocking", None)
        if "dtype" in kwargs:
            dt = kwargs.pop("dtype")
        if "device" in kwargs:
            dev = kwargs.pop("device")
        if kwargs:
            raise TypeError(f"to() got unexpected keyword arguments {list(kwargs)}")
        for a in args:
            if isinstance(a, DType):
                dt = a
            elif isinstance(a, TensorBase):
                dt, dev = a.dtype, a.device
            elif isinstance(a, (str, Device)):
                dev = a
            elif a is None:
                continue
            else:
                dt = to_dtype(a)
        cdef DType target = self._dtype if dt is None else to_dtype(dt)
        target_dev = self._storage.device if dev is None else Device(dev)
        if target is self._dtype and target_dev == self._storage.device and not copy:
            return self
        if _tracked(self) and _apply_c != NULL:
            return _apply_c(_to_function, (self, target, target_dev), None)
        return _convert(self, target, target_dev)

    def type(self, dtype=None):
        """With no argument, the legacy type name (``'cygrad.FloatTensor'`` ...);
        with a dtype, ``self.to(dtype)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.zeros(2).type()
        'cygrad.FloatTensor'
        >>> cygrad.zeros(2).type(cygrad.int64).dtype
        cygrad.int64
        """
        if dtype is None:
            return "cygrad." + {"float32": "FloatTensor", "float64": "DoubleTensor",
                                "int64": "LongTensor", "int32": "IntTensor",
                                "bool": "BoolTensor", "complex64": "ComplexFloatTensor",
                                "complex128": "ComplexDoubleTensor"}.get(self._dtype.name, self._dtype.name)
        return self.to(dtype)

    def float(self):
        """``self.to(cygrad.float32)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).float().dtype
        cygrad.float32
        """
        return self.to(_dtype_mod.float32)

    def double(self):
        """``self.to(cygrad.float64)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).double().dtype
        cygrad.float64
        """
        return self.to(_dtype_mod.float64)

    def half(self):
        """``self.to(cygrad.float16)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).half().dtype
        cygrad.float16
        """
        return self.to(_dtype_mod.float16)

    def bfloat16(self):
        """``self.to(cygrad.bfloat16)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).bfloat16().dtype
        cygrad.bfloat16
        """
        return self.to(_dtype_mod.bfloat16)

    def long(self):
        """``self.to(cygrad.int64)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).long().dtype
        cygrad.int64
        """
        return self.to(_dtype_mod.int64)

    def int(self):
        """``self.to(cygrad.int32)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).int().dtype
        cygrad.int32
        """
        return self.to(_dtype_mod.int32)

    def short(self):
        """``self.to(cygrad.int16)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).short().dtype
        cygrad.int16
        """
        return self.to(_dtype_mod.int16)

    def char(self):
        """``self.to(cygrad.int8)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).char().dtype
        cygrad.int8
        """
        return self.to(_dtype_mod.int8)

    def byte(self):
        """``self.to(cygrad.uint8)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).byte().dtype
        cygrad.uint8
        """
        return self.to(_dtype_mod.uint8)

    def bool(self):
        """``self.to(cygrad.bool)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).bool().dtype
        cygrad.bool
        """
        return self.to(_dtype_mod.bool_)

    def cfloat(self):
        """``self.to(cygrad.complex64)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).cfloat().dtype
        cygrad.complex64
        """
        return self.to(_dtype_mod.complex64)

    def cdouble(self):
        """``self.to(cygrad.complex128)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).cdouble().dtype
        cygrad.complex128
        """
        return self.to(_dtype_mod.complex128)

    def cpu(self):
        """``self.to('cpu')``: the tensor itself when it is already on the CPU.

        Examples
        --------
        >>> import cygrad
        >>> x = cygrad.zeros(2)
        >>> x.cpu() is x
        True
        """
        return self.to("cpu")

    def cuda(self, device=None):
        """``self.to('cuda')``; raises ``RuntimeError`` saying what is missing while
        CUDA tensors cannot be made (see :mod:`cygrad.cuda`).

        Examples
        --------
        >>> import cygrad
        >>> try:
        ...     cygrad.zeros(2).cuda()
        ... except RuntimeError as e:
        ...     print(str(e).startswith('cygrad.cuda:'))
        True
        """
        return self.to("cuda" if device is None else (f"cuda:{device}" if isinstance(device, int) else device))

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
        return binary(POW, self, other, None)

    def __rpow__(self, other, mod):
        if not _is_operand(other):
            return NotImplemented
        return binary(POW, other, self, None)

    def __ipow__(self, other):
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


cdef object _reduce_fast(int op, TensorBase t, object dim, bint keepdim):
    """C path for a full reduction, or one over the last dim, of a contiguous float
    tensor; None when it does not apply (the Python implementation then runs)."""
    cdef Py_ssize_t rows, n, shape[MAX_DIMS]
    cdef int d, i
    cdef TensorBase out
    if not (t._is_contig and t._numel > 0 and _on_cpu(t) and not _tracked(t)
            and cg_has_reduce(op, t._dtype.code)):
        return None
    if dim is None:
        if keepdim:
            return None
        rows, n = 1, t._numel
        out = new_empty(t._dtype, 0, NULL, CPU)
    elif type(dim) is int and t._ndim > 0:
        d = _wrap_dim(dim, t._ndim)
        if d != t._ndim - 1:
            return None
        n = t._shape[d]
        rows = t._numel // n
        for i in range(t._ndim):
            shape[i] = t._shape[i]
        shape[d] = 1
        out = new_empty(t._dtype, t._ndim if keepdim else t._ndim - 1, shape, CPU)
    else:
        return None
    run_reduce_rows(op, t._dtype.code, rows, n, t.ptr(), out.ptr(), t._storage, out._storage)
    return out


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

cdef dict _py_reductions = {}
cdef object _sum_all_function = None

def _set_sum_all_function(cls):
    """cygrad.ops.reduction's ``SumAll`` Function: ``x.sum()`` of a tensor that needs
    autograd goes straight to it."""
    global _sum_all_function
    _sum_all_function = cls

def _register_reduction(name, fn):
    _py_reductions[name] = fn

cdef object _py_reduction(str name):
    try:
        return _py_reductions[name]
    except KeyError:
        raise RuntimeError(f"cygrad.ops is not loaded: no implementation of {name}") from None

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


include "tensor_indexing.pxi"

include "tensor_factories.pxi"
