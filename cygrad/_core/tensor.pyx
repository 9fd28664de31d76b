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
from cpython.slice cimport PySlice_Unpack, PySlice_AdjustIndices

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
                     KIND_BOOL, KIND_INT, KIND_FLOAT, promote, default_float, to_dtype,
                     dtype_from_code)
from .storage cimport Storage, new_host_storage, wrap_foreign
from . import dtype as _dtype_mod
from . import storage as _storage_mod
from .._device import device as Device, CPU

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
    int cg_num_threads()
    void cg_set_num_threads(int n)
    enum: CG_PAR_BINARY, CG_PAR_UNARY_CHEAP, CG_PAR_UNARY_MATH, CG_PAR_REDUCE, CG_PAR_NUM_FAMILIES
    cg_index cg_parallel_min[4]
    enum: CG_ADD, CG_SUB, CG_MUL, CG_DIV, CG_MAXIMUM, CG_MINIMUM
    enum:
        CG_COPY, CG_NEG, CG_ABS, CG_EXP, CG_EXP2, CG_EXPM1, CG_LOG, CG_LOG2, CG_LOG10,
        CG_LOG1P, CG_SQRT, CG_RSQRT, CG_SIN, CG_COS, CG_TAN, CG_ASIN, CG_ACOS, CG_ATAN,
        CG_SINH, CG_COSH, CG_TANH, CG_SIGMOID, CG_RELU, CG_ERF, CG_ERFC, CG_FLOOR,
        CG_CEIL, CG_TRUNC, CG_ROUND, CG_FRAC, CG_RECIPROCAL, CG_SQUARE
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

# The Python class users see (cygrad.Tensor subclasses TensorBase); set at import.
cdef type _TensorCls = None

def _set_tensor_class(cls):
    global _TensorCls
    _TensorCls = cls

# ``Function.apply`` as a C function pointer (engine.apply_function), set by the engine
# at import: an op whose inputs need autograd calls its Function through it, without
# building a Python call.
cdef apply_fn_t _apply_c = NULL

cdef void set_apply_hook(apply_fn_t fn) noexcept:
    global _apply_c
    _apply_c = fn

# --------------------------------------------------------------------------- helpers

cdef inline bint _is_scalar(object x):
    return isinstance(x, (int, float)) or isinstance(x, np.generic)

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

cdef TensorBase new_empty(DType dt, int ndim, const Py_ssize_t* shape, object device):
    """A fresh contiguous tensor (uninitialised memory) on ``device``."""
    cdef TensorBase t = _alloc_tensor()
    cdef Py_ssize_t n = 1, nbytes
    cdef int i
    cdef bint overflow = False
    if ndim > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {ndim}")
    for i in range(ndim):
        if shape[i] < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {shape[i]}: {_shape_str(ndim, shape)}")
        t._shape[i] = shape[i]
        overflow |= cg_mul_overflow(n, shape[i], &n)
    # a wrapped size would allocate a tiny block that kernels then overrun (issue 6)
    if overflow or cg_mul_overflow(n, dt.itemsize, &nbytes):
        raise RuntimeError(f"Storage size calculation overflowed with sizes={_shape_str(ndim, shape)}")
    t._ndim = ndim
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
    if ndim > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {ndim}")
    t._storage = base._storage
    t._dtype = base._dtype
    t._ndim = ndim
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
    t._ndim = ndim
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
    if isinstance(x, complex):
        raise TypeError("cygrad does not support complex numbers")
    raise TypeError(f"unsupported operand type {type(x).__name__}")

cdef inline DType _combine(DType higher, DType lower):
    if higher is None:
        return lower
    if lower is None:
        return higher
    if higher.kind == KIND_FLOAT:
        return higher
    if higher.kind == KIND_BOOL or lower.kind == KIND_FLOAT:
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
    """torch.can_cast: no casts down a category (float->int, int->bool)."""
    return src.kind <= dst.kind

def _can_cast(src, dst):
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

# ------------------------------------------------------------------- op descriptors

cdef enum ResultRule:
    RES_SAME = 0     # the promoted dtype
    RES_FLOAT = 1    # the promoted dtype, but integers/bools become the default float
    RES_BOOL = 2     # always bool (comparisons, logical ops)

cdef enum InputRule:
    IN_ANY = 0
    IN_NO_BOOL = 1   # e.g. subtraction/negation of bools is an error in PyTorch
    IN_INTEGRAL = 2  # bitwise ops: integers and bools only
    IN_FLOAT = 3     # floating point only (frac, hypot)

_TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                     "int32": "Int", "int64": "Long", "float16": "Half",
                     "bfloat16": "BFloat16", "float32": "Float", "float64": "Double"}

def _torch_type_name(DType d):
    return _TORCH_TYPE_NAMES[d.name]


cdef class ElementwiseOp:
    """Describes one elementwise op for the dispatcher: its C kernel (or -1), the NumPy
    ufunc that serves dtypes without one, and its dtype rules. ``function`` is the
    op's ``autograd.Function`` (set by ``cygrad.ops``), used when grad is needed."""
    cdef readonly str name
    cdef readonly int arity
    cdef readonly int c_op
    cdef readonly object ufunc
    cdef readonly int result
    cdef readonly int inputs
    cdef readonly bint zero_check
    cdef public object function

    def __init__(self, name, arity, c_op, ufunc, result=RES_SAME, inputs=IN_ANY, zero_check=False):
        self.name = name
        self.arity = arity
        self.c_op = c_op
        self.ufunc = ufunc
        self.result = result
        self.inputs = inputs
        self.zero_check = zero_check

    def __repr__(self):
        return f"<elementwise op {self.name}>"

    cdef int check_dtype(self, DType ct) except -1:
        if ct.kind == KIND_BOOL and self.name in ("bitwise_left_shift", "bitwise_right_shift"):
            raise NotImplementedError(f"\"{self.name[8:]}_cpu\" not implemented for 'Bool'")
        # PyTorch reports a dtype an op has no kernel for as NotImplementedError.
        if self.inputs == IN_INTEGRAL and ct.kind == KIND_FLOAT:
            raise NotImplementedError(f"\"{self.name}_cpu\" not implemented for '{_torch_type_name(ct)}'")
        if self.inputs == IN_FLOAT and ct.kind != KIND_FLOAT:
            raise NotImplementedError(f"\"{self.name}_cpu\" not implemented for '{_torch_type_name(ct)}'")
        if self.inputs == IN_NO_BOOL and ct.kind == KIND_BOOL:
            if self.name == "sub":
                raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                                   "supported. Use the `^` or `logical_xor()` operator instead.")
            if self.name == "neg":
                raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                                   "If you are trying to invert a mask, use the `~` or "
                                   "`logical_not()` operator instead.")
            raise NotImplementedError(f"\"{self.name}_cpu\" not implemented for 'Bool'")
        return 0


cdef inline bint _on_cpu(TensorBase t):
    return t._storage.device is CPU

cdef inline bint _tracked(TensorBase t):
    """Must an op on t go through autograd (reverse-mode recording or a forward-mode
    tangent)? Fast paths only run when it need not."""
    return (t._requires_grad and cg_grad_mode_enabled) or (t._fw_grad is not None and cg_fw_mode_enabled)

cdef inline bint _dual(object x):
    """Does x carry a forward-mode tangent that ops must see?"""
    return (isinstance(x, TensorBase) and (<TensorBase>x)._fw_grad is not None
            and cg_fw_mode_enabled)

cdef inline bint _same_shape(TensorBase a, TensorBase b):
    cdef int i
    if a._ndim != b._ndim:
        return False
    for i in range(a._ndim):
        if a._shape[i] != b._shape[i]:
            return False
    return True

cdef union ScalarBuf:
    double f64
    float f32
    int64_t i64
    int32_t i32

cdef int _fill_scalar(ScalarBuf* buf, object x, DType dt) except -1:
    if dt.code == DT_FLOAT32:
        buf.f32 = <float>float(x)
    elif dt.code == DT_FLOAT64:
        buf.f64 = float(x)
    elif dt.code == DT_INT64:
        buf.i64 = <int64_t>int(x)
    elif dt.code == DT_INT32:
        buf.i32 = <int32_t>int(x)
    else:
        return -1
    return 0

cdef object _np_operand(object x, DType ct):
    """A NumPy operand of dtype ``ct`` (a view when x is a tensor of that dtype)."""
    if isinstance(x, TensorBase):
        arr = as_ndarray(<TensorBase>x)
        if (<TensorBase>x)._dtype is not ct:
            arr = arr.astype(ct.np_dtype)
        return arr
    # Python scalars wrap around like a cast in C (int8 tensor + 1000), as in PyTorch.
    return np.asarray(x).astype(ct.np_dtype)

cdef object _call_ufunc(ElementwiseOp op, tuple args, object nout, DType ct):
    with np.errstate(all="ignore"):   # IEEE results (inf, nan) are the answer, not a warning
        _call_ufunc_raw(op, args, nout, ct)

cdef object _call_ufunc_raw(ElementwiseOp op, tuple args, object nout, DType ct):
    try:
        op.ufunc(*args, out=nout, casting="unsafe")
    except TypeError:
        if ct.code not in (DT_BFLOAT16, DT_FLOAT16):
            raise
        # ml_dtypes does not register every ufunc for bfloat16: compute in float32.
        f32 = [a.astype(np.float32) if isinstance(a, np.ndarray) else a for a in args]
        nout[...] = op.ufunc(*f32)

cdef inline bint _overlaps(TensorBase out, TensorBase x):
    """Out and input share memory but are not the exact same view."""
    cdef int i
    if x._storage is not out._storage:
        return False
    if x._offset != out._offset or x._ndim != out._ndim:
        return True
    for i in range(x._ndim):
        if x._shape[i] != out._shape[i] or x._strides[i] != out._strides[i]:
            return True
    return False

cdef int _check_no_internal_overlap(TensorBase t) except -1:
    """Refuse to write into a tensor whose elements alias each other (an expanded view):
    the result would depend on the order the kernel writes in. PyTorch's check and
    message; stride 0 on a dim of size > 1 is the case it can always detect."""
    cdef int i
    for i in range(t._ndim):
        if t._strides[i] == 0 and t._shape[i] > 1:
            raise RuntimeError("unsupported operation: more than one element of the written-to "
                               "tensor refers to a single memory location. Please clone() the "
                               "tensor before performing the operation.")
    return 0

cdef TensorBase _prepare_out(object out, str opname, DType res_dt, int nd, const Py_ssize_t* shape):
    cdef TensorBase o
    cdef int i
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    o = <TensorBase>out
    if not can_cast(res_dt, o._dtype):
        raise RuntimeError(f"result type {_torch_type_name(res_dt)} can't be cast to the desired "
                           f"output type {_torch_type_name(o._dtype)}")
    if o._ndim != nd or any([o._shape[i] != shape[i] for i in range(nd)]):
        if o._numel != 0:
            warnings.warn(f"An output with one or more elements was resized since it had shape "
                          f"{_shape_str(o._ndim, o._shape)}, which does not match the required "
                          f"output shape {_shape_str(nd, shape)}.", UserWarning, stacklevel=3)
        _resize(o, nd, shape)
    _check_no_internal_overlap(o)
    return o

cdef void _resize(TensorBase t, int nd, const Py_ssize_t* shape) except *:
    cdef TensorBase fresh = new_empty(t._dtype, nd, shape, t._storage.device)
    t._storage = fresh._storage
    t._shape_obj = None
    t._ndim = nd
    t._offset = 0
    for i in range(nd):
        t._shape[i] = fresh._shape[i]
        t._strides[i] = fresh._strides[i]
    _finish_meta(t)


cdef object binary(ElementwiseOp op, object a, object b, object out):
    """Dispatch ``op(a, b)``: the fast path is two same-dtype contiguous CPU tensors
    of one shape with a C kernel and no autograd; everything else goes the long way."""
    cdef TensorBase ta, tb, to
    cdef Py_ssize_t n
    cdef cg_index one = 1
    if out is None and type(a) is _TensorCls and type(b) is _TensorCls:
        ta = <TensorBase>a
        tb = <TensorBase>b
        if (ta._dtype is tb._dtype and ta._is_contig and tb._is_contig
                and not (_tracked(ta) or _tracked(tb))
                and op.result != RES_BOOL and (op.result == RES_SAME or ta._dtype.kind == KIND_FLOAT)
                and _same_shape(ta, tb) and _on_cpu(ta) and _on_cpu(tb)
                and cg_has_binary(op.c_op, ta._dtype.code)):
            to = new_empty(ta._dtype, ta._ndim, ta._shape, CPU)
            n = ta._numel
            run_binary(op.c_op, ta._dtype.code, 1, &n, n, to.ptr(), &one, ta.ptr(), &one,
                       tb.ptr(), &one, to._storage, ta._storage, tb._storage)
            return to
    if out is None:
        if (type(a) is _TensorCls and type(b) is _TensorCls and op.function is not None
                and (_tracked(<TensorBase>a) or _tracked(<TensorBase>b)) and _apply_c != NULL
                and (<TensorBase>a)._storage.device is (<TensorBase>b)._storage.device):
            return _apply_c(op.function, (a, b), None)     # straight to autograd
        if type(a) is _TensorCls and (type(b) is float or type(b) is int):
            res = _binary_scalar_fast(op, <TensorBase>a, b, False)
            if res is not None:
                return res
        elif type(b) is _TensorCls and (type(a) is float or type(a) is int):
            res = _binary_scalar_fast(op, <TensorBase>b, a, True)
            if res is not None:
                return res
    return _binary_general(op, a, b, out)


cdef object _binary_scalar_fast(ElementwiseOp op, TensorBase t, object scalar, bint scalar_first):
    """``t op 2.0`` / ``2.0 op t`` when the scalar keeps t's dtype (torch's rule for
    Python numbers): the scalar becomes a stride-0 operand. None if not applicable."""
    cdef ScalarBuf buf
    cdef TensorBase to
    cdef Py_ssize_t n
    cdef cg_index one = 1, zero = 0
    cdef int kind = t._dtype.kind
    if not (t._is_contig and _on_cpu(t) and not _tracked(t) and op.result != RES_BOOL
            and (cg_has_binary(op.c_op, t._dtype.code) or
                 (op is POW and cg_has_binary(CG_MUL, t._dtype.code)))):
        return None
    if op is POW and (scalar_first or scalar != 2):
        return None
    if kind == KIND_INT and (type(scalar) is float or op.result == RES_FLOAT):
        return None
    to = new_empty(t._dtype, t._ndim, t._shape, CPU)
    n = t._numel
    if op is POW and not scalar_first and scalar == 2:
        # x ** 2 is common (losses, variances): square with the multiply kernel
        run_binary(CG_MUL, t._dtype.code, 1, &n, n, to.ptr(), &one, t.ptr(), &one, t.ptr(), &one,
                   to._storage, t._storage, t._storage)
        return to
    _fill_scalar(&buf, scalar, t._dtype)
    if scalar_first:
        run_binary(op.c_op, t._dtype.code, 1, &n, n, to.ptr(), &one, <char*>&buf, &zero,
                   t.ptr(), &one, to._storage, None, t._storage)
    else:
        run_binary(op.c_op, t._dtype.code, 1, &n, n, to.ptr(), &one, t.ptr(), &one,
                   <char*>&buf, &zero, to._storage, t._storage, None)
    return to


cdef object _binary_general(ElementwiseOp op, object a, object b, object out):
    cdef TensorBase ta = None, tb = None, to
    cdef DType ct, res_dt
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t so[MAX_DIMS]
    cdef Py_ssize_t sa[MAX_DIMS]
    cdef Py_ssize_t sb[MAX_DIMS]
    cdef ScalarBuf bufa, bufb
    cdef char* pa
    cdef char* pb
    cdef int nd = 0, i
    if isinstance(a, np.ndarray):
        a = _from_ndarray(a, False)
    if isinstance(b, np.ndarray):
        b = _from_ndarray(b, False)
    if isinstance(a, TensorBase):
        ta = <TensorBase>a
    elif not _is_scalar(a):
        raise TypeError(f"{op.name}(): expected Tensor or number, got {type(a).__name__}")
    if isinstance(b, TensorBase):
        tb = <TensorBase>b
    elif not _is_scalar(b):
        raise TypeError(f"{op.name}(): expected Tensor or number, got {type(b).__name__}")
    if ta is None and tb is None:
        ta = _scalar_tensor(a, _scalar_dtype(a))
        a = ta
    if (ta is not None and tb is not None and ta._storage.device is not tb._storage.device
            and ta._storage.device != tb._storage.device):
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                           f"two devices, {ta._storage.device} and {tb._storage.device}!")
    if (ta is not None and _tracked(ta)) or (tb is not None and _tracked(tb)):
        if out is not None:
            raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        if op.function is not None and _apply_c != NULL:
            return _apply_c(op.function, (a, b), None)
    ct = _result_type_seq((a, b))
    if op.result == RES_FLOAT and ct.kind != KIND_FLOAT:
        ct = default_float()
    op.check_dtype(ct)
    if op is SUB and ((ta is not None and ta._dtype.kind == KIND_BOOL) or
                      (tb is not None and tb._dtype.kind == KIND_BOOL) or
                      isinstance(a, bool) or isinstance(b, bool)):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    res_dt = _dtype_mod.bool_ if op.result == RES_BOOL else ct
    if ta is not None and tb is not None:
        nd = _broadcast(ta._ndim, ta._shape, tb._ndim, tb._shape, shape)
    elif ta is not None:
        nd = ta._ndim
        memcpy(shape, ta._shape, nd * sizeof(Py_ssize_t))
    else:
        nd = tb._ndim
        memcpy(shape, tb._shape, nd * sizeof(Py_ssize_t))
    if out is None:
        to = new_empty(res_dt, nd, shape, (ta if ta is not None else tb)._storage.device)
    else:
        to = _prepare_out(out, op.name, res_dt, nd, shape)
        # Reading an input that the output partly overwrites would give garbage.
        if ta is not None and _overlaps(to, ta):
            ta = ta.clone()
            a = ta
        if tb is not None and _overlaps(to, tb):
            tb = tb.clone()
            b = tb
    if to._numel == 0:
        if out is not None:
            to._storage.version += 1
        return to
    if op is POW and ct.kind != KIND_FLOAT and tb is None and b < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    if op.zero_check and ct.kind != KIND_FLOAT:
        divisor = as_ndarray(tb) if tb is not None else b
        if not np.all(divisor):
            raise RuntimeError("ZeroDivisionError")
    if (op.c_op >= 0 and cg_has_binary(op.c_op, ct.code) and res_dt is ct and to._dtype is ct
            and (ta is None or ta._dtype is ct) and (tb is None or tb._dtype is ct)
            and _on_cpu(to)):
        _expand_strides(to, nd, shape, so)
        if ta is not None:
            _expand_strides(ta, nd, shape, sa)
            pa = ta.ptr()
        else:
            _fill_scalar(&bufa, a, ct)
            memset(sa, 0, nd * sizeof(Py_ssize_t))
            pa = <char*>&bufa
        if tb is not None:
            _expand_strides(tb, nd, shape, sb)
            pb = tb.ptr()
        else:
            _fill_scalar(&bufb, b, ct)
            memset(sb, 0, nd * sizeof(Py_ssize_t))
            pb = <char*>&bufb
        run_binary(op.c_op, ct.code, nd, shape, to._numel, to.ptr(), so, pa, sa, pb, sb,
                   to._storage, ta._storage if ta is not None else None,
                   tb._storage if tb is not None else None)
    else:
        if not _on_cpu(to):
            raise NotImplementedError(f"{op.name} has no kernel for {to._storage.device}")
        _call_ufunc(op, (_np_operand(a, ct), _np_operand(b, ct)), as_ndarray(to), ct)
    if out is not None:
        to._storage.version += 1
    return to


cdef object unary(ElementwiseOp op, object x, object out):
    """Dispatch ``op(x)``; same shape as ``binary``."""
    cdef TensorBase tx, to
    cdef DType ct
    cdef Py_ssize_t so[MAX_DIMS]
    cdef Py_ssize_t n
    cdef cg_index one = 1
    if out is None and type(x) is _TensorCls:
        tx = <TensorBase>x
        if _tracked(tx) and op.function is not None and _apply_c != NULL:
            return _apply_c(op.function, (tx,), None)     # straight to autograd
        if (tx._is_contig and not _tracked(tx) and _on_cpu(tx)
                and cg_has_unary(op.c_op, tx._dtype.code) and op.c_op >= 0):
            to = new_empty(tx._dtype, tx._ndim, tx._shape, CPU)
            n = tx._numel
            run_unary(op.c_op, tx._dtype.code, 1, &n, n, to.ptr(), &one, tx.ptr(), &one,
                      to._storage, tx._storage)
            return to
    if isinstance(x, np.ndarray):
        x = _from_ndarray(x, False)
    if not isinstance(x, TensorBase):
        if _is_scalar(x):
            x = _scalar_tensor(x, _scalar_dtype(x))
        else:
            raise TypeError(f"{op.name}(): argument 'input' must be Tensor, not {type(x).__name__}")
    tx = <TensorBase>x
    if _tracked(tx):
        if out is not None:
            raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        if op.function is not None and _apply_c != NULL:
            return _apply_c(op.function, (tx,), None)
    ct = tx._dtype
    if op.result == RES_FLOAT and ct.kind != KIND_FLOAT:
        ct = default_float()
    elif op is SQUARE and ct.kind == KIND_BOOL:
        ct = _dtype_mod.int64          # torch: square promotes bool like pow(x, 2)
    op.check_dtype(ct)
    res_dt = _dtype_mod.bool_ if op.result == RES_BOOL else ct
    if out is None:
        to = new_empty(res_dt, tx._ndim, tx._shape, tx._storage.device)
    else:
        to = _prepare_out(out, op.name, res_dt, tx._ndim, tx._shape)
        if _overlaps(to, tx):
            tx = tx.clone()
    if to._numel == 0:
        if out is not None:
            to._storage.version += 1
        return to
    if not _on_cpu(to):
        raise NotImplementedError(f"{op.name} has no kernel for {to._storage.device}")
    if op.c_op >= 0 and cg_has_unary(op.c_op, ct.code):
        _unary_c(op.c_op, _cast(tx, ct), to)
    elif op.ufunc is not None and to._storage is tx._storage:
        # In place through NumPy: compute into fresh memory, then copy. NumPy 2.4's
        # negative gives wrong values in place at some negative strides (a -16-byte
        # stride for 4-byte ints, found by the fuzzer).
        tmp = new_empty(to._dtype, to._ndim, to._shape, CPU)
        _call_ufunc(op, (_np_operand(tx, ct),), as_ndarray(tmp), ct)
        copy_into(to, tmp)
    elif op.ufunc is not None:
        _call_ufunc(op, (_np_operand(tx, ct),), as_ndarray(to), ct)
    elif op.c_op >= 0 and ct.kind == KIND_FLOAT and cg_has_unary(op.c_op, DT_FLOAT32):
        # float16/bfloat16 without a kernel or a ufunc: compute in float32
        _unary_c(op.c_op, _cast(tx, _dtype_mod.float32), to)
    else:
        raise RuntimeError(f"\"{op.name}_cpu\" not implemented for '{_torch_type_name(ct)}'")
    if out is not None:
        to._storage.version += 1
    return to


cdef object binary_inplace(ElementwiseOp op, TensorBase self, object other):
    """``self.op_(other)``: result must keep self's shape and dtype category."""
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef TensorBase to
    cdef DType ct
    if isinstance(other, np.ndarray):
        other = _from_ndarray(other, False)
    if isinstance(other, TensorBase):
        to = <TensorBase>other
        nd = _broadcast(self._ndim, self._shape, to._ndim, to._shape, shape)
        if nd != self._ndim or any([shape[i] != self._shape[i] for i in range(nd)]):
            raise RuntimeError(f"output with shape {_shape_str(self._ndim, self._shape)} doesn't "
                               f"match the broadcast shape {_shape_str(nd, shape)}")
    elif not _is_scalar(other):
        return NotImplemented
    ct = _result_type_seq((self, other))
    if op.result == RES_FLOAT and ct.kind != KIND_FLOAT:
        ct = default_float()
    if op.result == RES_BOOL:
        ct = _dtype_mod.bool_
    if not can_cast(ct, self._dtype):
        raise RuntimeError(f"result type {_torch_type_name(ct)} can't be cast to the desired "
                           f"output type {_torch_type_name(self._dtype)}")
    if (cg_grad_mode_enabled and (self._requires_grad or
                                  (isinstance(other, TensorBase) and (<TensorBase>other)._requires_grad))
            or _dual(self) or _dual(other)):
        return _inplace_autograd(op, self, other)
    return binary(op, self, other, self)


cdef object unary_inplace(ElementwiseOp op, TensorBase self):
    cdef DType ct = self._dtype
    if op.result == RES_FLOAT and ct.kind != KIND_FLOAT:
        raise RuntimeError(f"result type {_torch_type_name(default_float())} can't be cast to the "
                           f"desired output type {_torch_type_name(ct)}")
    if (cg_grad_mode_enabled and self._requires_grad) or _dual(self):
        return _inplace_autograd(op, self, None)
    return unary(op, self, self)


cdef object _inplace_hook = None

def _set_inplace_hook(fn):
    global _inplace_hook
    _inplace_hook = fn

cdef object _inplace_autograd(ElementwiseOp op, TensorBase self, object other):
    if cg_grad_mode_enabled and self._grad_fn is None and self._requires_grad:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
    if _inplace_hook is None:
        raise RuntimeError(f"in-place {op.name} on a tensor that requires grad needs cygrad.autograd")
    return _inplace_hook(op, self, other)


cdef TensorBase _cast(TensorBase t, DType dt):
    """``t`` itself if it already has dtype ``dt``, else a converted copy."""
    cdef TensorBase c
    if t._dtype is dt:
        return t
    c = new_empty(dt, t._ndim, t._shape, t._storage.device)
    copy_into(c, t)
    return c

cdef void _unary_c(int c_op, TensorBase src, TensorBase dst) except *:
    """Run C unary kernel ``c_op`` from src (its dtype) into dst, casting if needed."""
    cdef Py_ssize_t so[MAX_DIMS]
    cdef TensorBase target = dst if dst._dtype is src._dtype else new_empty(src._dtype, dst._ndim, dst._shape, CPU)
    _expand_strides(target, src._ndim, src._shape, so)
    run_unary(c_op, src._dtype.code, src._ndim, src._shape, target._numel, target.ptr(), so,
              src.ptr(), src._strides, target._storage, src._storage)
    if target is not dst:
        copy_into(dst, target)

cdef void copy_into(TensorBase dst, TensorBase src) except *:
    """dst[...] = src, broadcasting src and converting its dtype (no version bump)."""
    cdef Py_ssize_t ss[MAX_DIMS]
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef int nd = _broadcast(dst._ndim, dst._shape, src._ndim, src._shape, shape)
    if nd != dst._ndim or any([shape[i] != dst._shape[i] for i in range(nd)]):
        raise RuntimeError(f"The size of tensor a ({dst._shape[dst._ndim - 1] if dst._ndim else 1}) must match the "
                           f"size of tensor b ({src._shape[src._ndim - 1] if src._ndim else 1}): cannot copy a tensor "
                           f"of shape {_shape_str(src._ndim, src._shape)} into one of shape "
                           f"{_shape_str(dst._ndim, dst._shape)}")
    if dst._numel == 0:
        return
    _check_no_internal_overlap(dst)
    if not (_on_cpu(dst) and _on_cpu(src)):
        _device_copy(dst, src)
        return
    if _overlaps(dst, src):
        src = src.clone()
    if src._dtype is dst._dtype:
        _expand_strides(src, dst._ndim, dst._shape, ss)
        run_unary(CG_COPY, dst._dtype.code, dst._ndim, dst._shape, dst._numel, dst.ptr(),
                  dst._strides, src.ptr(), ss, dst._storage, src._storage)
    else:
        np.copyto(as_ndarray(dst), as_ndarray(src), casting="unsafe")

cdef object _device_copy_hook = None

def _set_device_copy_hook(fn):
    global _device_copy_hook
    _device_copy_hook = fn

cdef void _device_copy(TensorBase dst, TensorBase src) except *:
    if _device_copy_hook is None:
        from ..cuda import _lazy_init
        _lazy_init()
    _device_copy_hook(dst, src)

def _copy_into(TensorBase dst, TensorBase src):
    copy_into(dst, src)

cdef TensorBase _scalar_tensor(object x, DType dt):
    cdef TensorBase t = new_empty(dt, 0, NULL, CPU)
    as_ndarray(t)[()] = x
    return t


# Public entry points used by cygrad.ops (Python) to reach the dispatcher.
def needs_autograd(*args):
    """True if an op on these arguments must go through its autograd ``Function``:
    some tensor argument requires grad (with grad mode on) or carries a tangent."""
    for a in args:
        if isinstance(a, TensorBase) and _tracked(<TensorBase>a):
            return True
    return False

def binary_op(ElementwiseOp op, a, b, out=None):
    return binary(op, a, b, out)

def unary_op(ElementwiseOp op, x, out=None):
    return unary(op, x, out)

def binary_op_(ElementwiseOp op, TensorBase self, other):
    return binary_inplace(op, self, other)

def unary_op_(ElementwiseOp op, TensorBase self):
    return unary_inplace(op, self)

# ------------------------------------------------------------------------ op table
# One ElementwiseOp per elementwise op. cygrad/ops/elementwise.py gives each its
# public function and autograd Function; the Tensor dunders below use them directly.

def _relu_ufunc(x, out=None, casting="unsafe"):
    # where() rather than maximum(): keeps -0.0 and NaN as they are, like torch.relu
    out[...] = np.where(x < 0, np.zeros((), x.dtype), x)
    return out

def _sign_ufunc(x, out=None, casting="unsafe"):
    if x.dtype == np.bool_:
        out[...] = x
        return out
    r = np.sign(x)
    if r.dtype.kind == "f" or r.dtype.name == "bfloat16":
        r = np.where(np.isnan(r), np.zeros((), r.dtype), r) + np.zeros((), r.dtype)  # sign(nan)=0, no -0
    out[...] = r
    return out

def _frac_ufunc(x, out=None, casting="unsafe"):
    return np.subtract(x, np.trunc(x), out=out, casting=casting)

def _pow_ufunc(a, b, out=None, casting="unsafe"):
    """np.power, except that integer bases take negative integer exponents the way
    PyTorch computes them (1 ** -n = 1, (-1) ** -n = +-1, anything else ** -n = 0)."""
    if out.dtype.kind not in "iu":
        return np.power(a, b, out=out, casting=casting)
    a, b = np.asarray(a), np.asarray(b)
    result = np.power(a, np.maximum(b, 0), out=out, casting=casting)
    negative = b < 0
    if np.any(negative):
        odd = (b % 2) != 0
        special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
        np.copyto(out, special.astype(out.dtype), where=np.broadcast_to(negative, out.shape))
    return result

def _isfinite(x, out=None, casting="unsafe"):
    return np.isfinite(x, out=out)

cdef ElementwiseOp ADD = ElementwiseOp("add", 2, CG_ADD, np.add)
cdef ElementwiseOp SUB = ElementwiseOp("sub", 2, CG_SUB, np.subtract, inputs=IN_NO_BOOL)
cdef ElementwiseOp MUL = ElementwiseOp("mul", 2, CG_MUL, np.multiply)
cdef ElementwiseOp DIV = ElementwiseOp("div", 2, CG_DIV, np.true_divide, result=RES_FLOAT)
cdef ElementwiseOp FLOOR_DIVIDE = ElementwiseOp("floor_divide", 2, -1, np.floor_divide, zero_check=True, inputs=IN_NO_BOOL)
cdef ElementwiseOp REMAINDER = ElementwiseOp("remainder", 2, -1, np.remainder, zero_check=True, inputs=IN_NO_BOOL)
cdef ElementwiseOp FMOD = ElementwiseOp("fmod", 2, -1, np.fmod, zero_check=True, inputs=IN_NO_BOOL)
cdef ElementwiseOp POW = ElementwiseOp("pow", 2, -1, _pow_ufunc, inputs=IN_NO_BOOL)
cdef ElementwiseOp ATAN2 = ElementwiseOp("atan2", 2, -1, np.arctan2, result=RES_FLOAT)
cdef ElementwiseOp HYPOT = ElementwiseOp("hypot", 2, -1, np.hypot, inputs=IN_FLOAT)
cdef ElementwiseOp MAXIMUM = ElementwiseOp("maximum", 2, CG_MAXIMUM, np.maximum)
cdef ElementwiseOp MINIMUM = ElementwiseOp("minimum", 2, CG_MINIMUM, np.minimum)
cdef ElementwiseOp FMAX = ElementwiseOp("fmax", 2, -1, np.fmax)
cdef ElementwiseOp FMIN = ElementwiseOp("fmin", 2, -1, np.fmin)
cdef ElementwiseOp EQ = ElementwiseOp("eq", 2, -1, np.equal, result=RES_BOOL)
cdef ElementwiseOp NE = ElementwiseOp("ne", 2, -1, np.not_equal, result=RES_BOOL)
cdef ElementwiseOp LT = ElementwiseOp("lt", 2, -1, np.less, result=RES_BOOL)
cdef ElementwiseOp LE = ElementwiseOp("le", 2, -1, np.less_equal, result=RES_BOOL)
cdef ElementwiseOp GT = ElementwiseOp("gt", 2, -1, np.greater, result=RES_BOOL)
cdef ElementwiseOp GE = ElementwiseOp("ge", 2, -1, np.greater_equal, result=RES_BOOL)
cdef ElementwiseOp LOGICAL_AND = ElementwiseOp("logical_and", 2, -1, np.logical_and, result=RES_BOOL)
cdef ElementwiseOp LOGICAL_OR = ElementwiseOp("logical_or", 2, -1, np.logical_or, result=RES_BOOL)
cdef ElementwiseOp LOGICAL_XOR = ElementwiseOp("logical_xor", 2, -1, np.logical_xor, result=RES_BOOL)
cdef ElementwiseOp BITWISE_AND = ElementwiseOp("bitwise_and", 2, -1, np.bitwise_and, inputs=IN_INTEGRAL)
cdef ElementwiseOp BITWISE_OR = ElementwiseOp("bitwise_or", 2, -1, np.bitwise_or, inputs=IN_INTEGRAL)
cdef ElementwiseOp BITWISE_XOR = ElementwiseOp("bitwise_xor", 2, -1, np.bitwise_xor, inputs=IN_INTEGRAL)
cdef ElementwiseOp LSHIFT = ElementwiseOp("bitwise_left_shift", 2, -1, np.left_shift, inputs=IN_INTEGRAL)
cdef ElementwiseOp RSHIFT = ElementwiseOp("bitwise_right_shift", 2, -1, np.right_shift, inputs=IN_INTEGRAL)

cdef ElementwiseOp NEG = ElementwiseOp("neg", 1, CG_NEG, np.negative, inputs=IN_NO_BOOL)
cdef ElementwiseOp ABS = ElementwiseOp("abs", 1, CG_ABS, np.abs, inputs=IN_NO_BOOL)
cdef ElementwiseOp SIGN = ElementwiseOp("sign", 1, -1, _sign_ufunc)
cdef ElementwiseOp EXP = ElementwiseOp("exp", 1, CG_EXP, np.exp, result=RES_FLOAT)
cdef ElementwiseOp EXP2 = ElementwiseOp("exp2", 1, CG_EXP2, np.exp2, result=RES_FLOAT)
cdef ElementwiseOp EXPM1 = ElementwiseOp("expm1", 1, CG_EXPM1, np.expm1, result=RES_FLOAT)
cdef ElementwiseOp LOG = ElementwiseOp("log", 1, CG_LOG, np.log, result=RES_FLOAT)
cdef ElementwiseOp LOG2 = ElementwiseOp("log2", 1, CG_LOG2, np.log2, result=RES_FLOAT)
cdef ElementwiseOp LOG10 = ElementwiseOp("log10", 1, CG_LOG10, np.log10, result=RES_FLOAT)
cdef ElementwiseOp LOG1P = ElementwiseOp("log1p", 1, CG_LOG1P, np.log1p, result=RES_FLOAT)
cdef ElementwiseOp SQRT = ElementwiseOp("sqrt", 1, CG_SQRT, np.sqrt, result=RES_FLOAT)
cdef ElementwiseOp RSQRT = ElementwiseOp("rsqrt", 1, CG_RSQRT, None, result=RES_FLOAT)
cdef ElementwiseOp SIN = ElementwiseOp("sin", 1, CG_SIN, np.sin, result=RES_FLOAT)
cdef ElementwiseOp COS = ElementwiseOp("cos", 1, CG_COS, np.cos, result=RES_FLOAT)
cdef ElementwiseOp TAN = ElementwiseOp("tan", 1, CG_TAN, np.tan, result=RES_FLOAT)
cdef ElementwiseOp ASIN = ElementwiseOp("asin", 1, CG_ASIN, np.arcsin, result=RES_FLOAT)
cdef ElementwiseOp ACOS = ElementwiseOp("acos", 1, CG_ACOS, np.arccos, result=RES_FLOAT)
cdef ElementwiseOp ATAN = ElementwiseOp("atan", 1, CG_ATAN, np.arctan, result=RES_FLOAT)
cdef ElementwiseOp SINH = ElementwiseOp("sinh", 1, CG_SINH, np.sinh, result=RES_FLOAT)
cdef ElementwiseOp COSH = ElementwiseOp("cosh", 1, CG_COSH, np.cosh, result=RES_FLOAT)
cdef ElementwiseOp TANH = ElementwiseOp("tanh", 1, CG_TANH, np.tanh, result=RES_FLOAT)
cdef ElementwiseOp SIGMOID = ElementwiseOp("sigmoid", 1, CG_SIGMOID, None, result=RES_FLOAT)
cdef ElementwiseOp RELU = ElementwiseOp("relu", 1, CG_RELU, _relu_ufunc, inputs=IN_NO_BOOL)
cdef ElementwiseOp ERF = ElementwiseOp("erf", 1, CG_ERF, None, result=RES_FLOAT)
cdef ElementwiseOp ERFC = ElementwiseOp("erfc", 1, CG_ERFC, None, result=RES_FLOAT)
cdef ElementwiseOp FLOOR = ElementwiseOp("floor", 1, CG_FLOOR, np.floor, inputs=IN_NO_BOOL)
cdef ElementwiseOp CEIL = ElementwiseOp("ceil", 1, CG_CEIL, np.ceil, inputs=IN_NO_BOOL)
cdef ElementwiseOp TRUNC = ElementwiseOp("trunc", 1, CG_TRUNC, np.trunc, inputs=IN_NO_BOOL)
cdef ElementwiseOp ROUND = ElementwiseOp("round", 1, CG_ROUND, np.rint, inputs=IN_NO_BOOL)
cdef ElementwiseOp FRAC = ElementwiseOp("frac", 1, CG_FRAC, _frac_ufunc, inputs=IN_FLOAT)
cdef ElementwiseOp RECIPROCAL = ElementwiseOp("reciprocal", 1, CG_RECIPROCAL, np.reciprocal, result=RES_FLOAT)
cdef ElementwiseOp SQUARE = ElementwiseOp("square", 1, CG_SQUARE, np.square)
cdef ElementwiseOp LOGICAL_NOT = ElementwiseOp("logical_not", 1, -1, np.logical_not, result=RES_BOOL)
cdef ElementwiseOp BITWISE_NOT = ElementwiseOp("bitwise_not", 1, -1, np.invert, inputs=IN_INTEGRAL)
cdef ElementwiseOp ISNAN = ElementwiseOp("isnan", 1, -1, np.isnan, result=RES_BOOL)
cdef ElementwiseOp ISINF = ElementwiseOp("isinf", 1, -1, np.isinf, result=RES_BOOL)
cdef ElementwiseOp ISFINITE = ElementwiseOp("isfinite", 1, -1, _isfinite, result=RES_BOOL)

ELEMENTWISE_OPS = {op.name: op for op in (
    ADD, SUB, MUL, DIV, FLOOR_DIVIDE, REMAINDER, FMOD, POW, ATAN2, HYPOT, MAXIMUM, MINIMUM,
    FMAX, FMIN, EQ, NE, LT, LE, GT, GE, LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR, BITWISE_AND,
    BITWISE_OR, BITWISE_XOR, LSHIFT, RSHIFT, NEG, ABS, SIGN, EXP, EXP2, EXPM1, LOG, LOG2,
    LOG10, LOG1P, SQRT, RSQRT, SIN, COS, TAN, ASIN, ACOS, ATAN, SINH, COSH, TANH, SIGMOID,
    RELU, ERF, ERFC, FLOOR, CEIL, TRUNC, ROUND, FRAC, RECIPROCAL, SQUARE, LOGICAL_NOT,
    BITWISE_NOT, ISNAN, ISINF, ISFINITE)}


# ------------------------------------------------------------------------ views

cdef inline int _wrap_dim(object dim, int ndim) except -100:
    """``dim`` (a Python int) wrapped into ``[0, ndim)``, with PyTorch's errors:
    IndexError when out of range, ValueError for an int beyond 64 bits."""
    cdef int n = ndim if ndim > 0 else 1
    cdef Py_ssize_t d
    try:
        d = dim
    except OverflowError:
        raise ValueError("Overflow when unpacking long long") from None
    if d < -n or d >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return <int>(d + n if d < 0 else d)

def _wrap(dim, ndim):
    return _wrap_dim(dim, ndim)

cdef int _parse_shape(tuple args, Py_ssize_t numel, Py_ssize_t* out, str opname) except -1:
    """Shape arguments given as ints or one sequence, with at most one -1 inferred."""
    cdef Py_ssize_t known = 1, v
    cdef int infer = -1, i, nd
    if len(args) == 1 and not isinstance(args[0], (int, np.integer)):
        args = tuple(args[0])
    nd = len(args)
    if nd > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {nd}")
    for i in range(nd):
        try:
            v = args[i]
        except OverflowError:
            raise _size_overflow(opname, "size", i) from None
        if v == -1:
            if infer >= 0:
                raise RuntimeError("only one dimension can be inferred")
            infer = i
        elif v < 0:
            raise RuntimeError(f"invalid shape dimension {v}")
        elif cg_mul_overflow(known, v, &known):
            raise RuntimeError("numel: integer multiplication overflow")
        out[i] = v
    if infer >= 0:
        if known == 0 or numel % known != 0:
            raise RuntimeError(f"shape '{list(args)}' is invalid for input of size {numel}")
        out[infer] = numel // known
    elif known != numel:
        raise RuntimeError(f"shape '{list(args)}' is invalid for input of size {numel}")
    return nd

cdef bint _view_strides(TensorBase t, int nd, const Py_ssize_t* shape, Py_ssize_t* strides):
    """Strides that let ``shape`` view t's memory, if any (else False: a copy is needed).

    Walks t's dims from the innermost, grouping runs of dims that are contiguous with
    each other; each group of the new shape must fit exactly inside one such run."""
    cdef int vd = nd - 1, td
    cdef Py_ssize_t base_stride, t_numel = 1, v_numel = 1
    if t._is_contig or t._numel <= 1:
        _contig_strides(nd, shape, strides)
        return True
    base_stride = t._strides[t._ndim - 1]
    for td in range(t._ndim - 1, -1, -1):
        t_numel *= t._shape[td]
        if td == 0 or (t._shape[td - 1] != 1 and t._strides[td - 1] != t_numel * base_stride):
            while vd >= 0 and (v_numel < t_numel or shape[vd] == 1):
                strides[vd] = v_numel * base_stride
                v_numel *= shape[vd]
                vd -= 1
            if v_numel != t_numel:
                return False
            if td > 0:
                base_stride = t._strides[td - 1]
                t_numel = 1
                v_numel = 1
    return vd == -1


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
        return self._ndim

    def ndimension(self):
        return self._ndim

    def numel(self):
        return self._numel

    def nelement(self):
        return self._numel

    def element_size(self):
        return self._dtype.itemsize

    @property
    def itemsize(self):
        return self._dtype.itemsize

    @property
    def nbytes(self):
        return self._numel * self._dtype.itemsize

    def storage_offset(self):
        return self._offset

    def untyped_storage(self):
        return self._storage

    def data_ptr(self):
        """Address of the first element (``storage start + offset * itemsize``)."""
        return <uintptr_t>self.ptr()

    def is_contiguous(self, memory_format=None):
        return self._is_contig

    def is_floating_point(self):
        return self._dtype.kind == KIND_FLOAT

    def is_complex(self):
        return False

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
        if value and self._dtype.kind != KIND_FLOAT:
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
        return self.view(other.shape)

    def reshape_as(self, other):
        return self.reshape(other.shape)

    def flatten(self, start_dim=0, end_dim=-1):
        """Merge dims ``start_dim..end_dim`` into one (a view when possible)."""
        if self._ndim == 0:
            return self.reshape(1)
        cdef int s = _wrap_dim(start_dim, self._ndim), e = _wrap_dim(end_dim, self._ndim)
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
        return _transpose(self, dim0, dim1, "TransposeBackward0")

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
        if len(dims) != self._ndim:
            raise RuntimeError(f"permute(sparse_coo): number of dimensions in the tensor input does "
                               f"not match the length of the desired ordering of dimensions i.e. "
                               f"input.dim() = {self._ndim} is not equal to len(dims) = {len(dims)}")
        seen = set()
        for i in range(self._ndim):
            d = _wrap_dim(dims[i], self._ndim)
            if d in seen:
                raise RuntimeError("permute(): duplicate dims are not allowed.")
            seen.add(d)
            shape[i] = self._shape[d]
            strides[i] = self._strides[d]
        return _make_view(self, self._ndim, shape, strides, self._offset, "PermuteBackward0")

    def movedim(self, source, destination):
        """Move dims from ``source`` positions to ``destination`` positions (a view)."""
        src = [source] if isinstance(source, int) else list(source)
        dst = [destination] if isinstance(destination, int) else list(destination)
        if len(src) != len(dst):
            raise RuntimeError(f"movedim: Invalid source or destination dims: source ({src} dims) "
                               f"should contain the same number of dims as destination ({dst} dims)")
        src = [_wrap_dim(d, self._ndim) for d in src]
        dst = [_wrap_dim(d, self._ndim) for d in dst]
        if self._ndim == 0:
            return self.view(())
        order = [d for d in range(self._ndim) if d not in src]
        perm = [None] * self._ndim
        for s, d in zip(src, dst):
            perm[d] = s
        it = iter(order)
        perm = [p if p is not None else next(it) for p in perm]
        return self.permute(perm)

    moveaxis = movedim

    def expand(self, *sizes):
        """Broadcast to a larger shape without copying (stride 0 on new dims).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 2]).expand(3, -1).stride()
        (0, 1)
        """
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
        cdef int nd, i, j
        if len(sizes) == 1 and not isinstance(sizes[0], (int, np.integer)):
            sizes = tuple(sizes[0])
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

    def expand_as(self, other):
        return self.expand(other.shape)

    def broadcast_to(self, *shape):
        return self.expand(*shape)

    def squeeze(self, dim=None):
        """Remove size-1 dims (all, or those named in ``dim``)."""
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
        cdef int i, n = 0
        if dim is None:
            dims = set(range(self._ndim))
        elif isinstance(dim, (int, np.integer)):
            dims = {_wrap_dim(dim, self._ndim)}
        else:
            dims = {_wrap_dim(d, self._ndim) for d in dim}
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
        # checked in PyTorch's order: 0-dim, length, dim, start
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
        cdef int d = _wrap_dim(dim, self._ndim)
        if self._ndim == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        return _select(self, d, index)

    def diagonal(self, offset=0, dim1=0, dim2=1):
        """The diagonal of the (dim1, dim2) matrices, as the last dim (a view)."""
        cdef int a = _wrap_dim(dim1, self._ndim), b = _wrap_dim(dim2, self._ndim), i, n = 0
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
        """A view with explicit geometry; it must stay inside the storage."""
        cdef Py_ssize_t shape[MAX_DIMS]
        cdef Py_ssize_t strides[MAX_DIMS]
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
        if self._ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        cdef int d = _wrap_dim(dim, self._ndim)
        return tuple([_select(self, d, i) for i in range(self._shape[d])])

    def split(self, split_size_or_sections, dim=0):
        """Views of consecutive chunks along ``dim``: of a given size, or of listed sizes."""
        cdef int d = _wrap_dim(dim, self._ndim)
        size = self._shape[d]
        if isinstance(split_size_or_sections, (int, np.integer)):
            step = int(split_size_or_sections)
            if step <= 0 and size > 0:
                raise RuntimeError(f"split_size can only be 0 if dimension size is 0, but got "
                                   f"dimension size of {size}")
            sections = [min(step, size - s) for s in range(0, size, step)] if size else [0]
        else:
            sections = list(split_size_or_sections)
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
        if chunks <= 0:
            raise RuntimeError("chunk expects `chunks` to be greater than 0, got: " + str(chunks))
        cdef int d = _wrap_dim(dim, self._ndim)
        size = self._shape[d]
        if size == 0:
            return tuple([self.narrow(d, 0, 0) for _ in range(chunks)])
        step = max(1, -(-size // chunks))
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
            self._ndim = nd
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
        if cg_grad_mode_enabled and self._requires_grad and self._grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place operation.")
        if isinstance(value, TensorBase):
            if (<TensorBase>value)._ndim != 0:
                raise RuntimeError(f"fill_ only supports 0-dimension value tensor but got tensor with "
                                   f"{(<TensorBase>value)._ndim} dimensions.")
            value = value.item()
        value = _int_fill_value(self._dtype, value)
        if self._numel:
            try:
                as_ndarray(self)[...] = value
            except OverflowError:
                raise RuntimeError(f"value cannot be converted to type {self._dtype.name}_t without "
                                   "overflow") from None
        self._storage.version += 1
        return self

    def zero_(self):
        """Set every element to zero, in place."""
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
        if dtype is None:
            return "cygrad." + {"float32": "FloatTensor", "float64": "DoubleTensor",
                                "int64": "LongTensor", "int32": "IntTensor",
                                "bool": "BoolTensor"}.get(self._dtype.name, self._dtype.name)
        return self.to(dtype)

    def float(self):
        return self.to(_dtype_mod.float32)

    def double(self):
        return self.to(_dtype_mod.float64)

    def half(self):
        return self.to(_dtype_mod.float16)

    def bfloat16(self):
        return self.to(_dtype_mod.bfloat16)

    def long(self):
        return self.to(_dtype_mod.int64)

    def int(self):
        return self.to(_dtype_mod.int32)

    def short(self):
        return self.to(_dtype_mod.int16)

    def char(self):
        return self.to(_dtype_mod.int8)

    def byte(self):
        return self.to(_dtype_mod.uint8)

    def bool(self):
        return self.to(_dtype_mod.bool_)

    def cpu(self):
        return self.to("cpu")

    def cuda(self, device=None):
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

    def item(self):
        """The single element as a Python number."""
        if self._numel != 1:
            raise RuntimeError(f"a Tensor with {self._numel} elements cannot be converted to Scalar")
        return as_ndarray(self.cpu() if not _on_cpu(self) else self).reshape(()).item()

    def __float__(self):
        return float(self.item())

    def __int__(self):
        return int(self.item())

    def __index__(self):
        if self._dtype.kind == KIND_FLOAT or self._numel != 1:
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
        return binary_inplace(ADD, self, other)

    def __sub__(self, other):
        if type(other) is not _TensorCls and not _is_operand(other):
            return NotImplemented
        return binary(SUB, self, other, None)

    def __rsub__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(SUB, other, self, None)

    def __isub__(self, other):
        return binary_inplace(SUB, self, other)

    def __mul__(self, other):
        if type(other) is not _TensorCls and not _is_operand(other):
            return NotImplemented
        return binary(MUL, self, other, None)

    def __rmul__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(MUL, other, self, None)

    def __imul__(self, other):
        return binary_inplace(MUL, self, other)

    def __truediv__(self, other):
        if type(other) is not _TensorCls and not _is_operand(other):
            return NotImplemented
        return binary(DIV, self, other, None)

    def __rtruediv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(DIV, other, self, None)

    def __itruediv__(self, other):
        return binary_inplace(DIV, self, other)

    def __floordiv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(FLOOR_DIVIDE, self, other, None)

    def __rfloordiv__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(FLOOR_DIVIDE, other, self, None)

    def __ifloordiv__(self, other):
        return binary_inplace(FLOOR_DIVIDE, self, other)

    def __mod__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(REMAINDER, self, other, None)

    def __rmod__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(REMAINDER, other, self, None)

    def __imod__(self, other):
        return binary_inplace(REMAINDER, self, other)

    def __pow__(self, other, mod):
        if not _is_operand(other):
            return NotImplemented
        return binary(POW, self, other, None)

    def __rpow__(self, other, mod):
        if not _is_operand(other):
            return NotImplemented
        return binary(POW, other, self, None)

    def __ipow__(self, other):
        return binary_inplace(POW, self, other)

    def __and__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_AND, self, other, None)

    def __rand__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_AND, other, self, None)

    def __iand__(self, other):
        return binary_inplace(BITWISE_AND, self, other)

    def __or__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_OR, self, other, None)

    def __ror__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_OR, other, self, None)

    def __ior__(self, other):
        return binary_inplace(BITWISE_OR, self, other)

    def __xor__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_XOR, self, other, None)

    def __rxor__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(BITWISE_XOR, other, self, None)

    def __ixor__(self, other):
        return binary_inplace(BITWISE_XOR, self, other)

    def __lshift__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(LSHIFT, self, other, None)

    def __rshift__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(RSHIFT, self, other, None)

    def __eq__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(EQ, self, other, None)

    def __ne__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(NE, self, other, None)

    def __lt__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(LT, self, other, None)

    def __le__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(LE, self, other, None)

    def __gt__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(GT, self, other, None)

    def __ge__(self, other):
        if not _is_operand(other):
            return NotImplemented
        return binary(GE, self, other, None)

    def __neg__(self):
        return unary(NEG, self, None)

    def __pos__(self):
        return self

    def __abs__(self):
        return unary(ABS, self, None)

    def __invert__(self):
        if self._dtype.kind == KIND_FLOAT:
            raise TypeError("~ (operator.invert) is only implemented on integer and Boolean-type tensors")
        if self._dtype.kind == KIND_BOOL:
            return unary(LOGICAL_NOT, self, None)
        return unary(BITWISE_NOT, self, None)

    # ---- the hottest unary ops and reductions (the rest live in cygrad.ops)
    def exp(self):
        return unary(EXP, self, None)

    def log(self):
        return unary(LOG, self, None)

    def tanh(self):
        return unary(TANH, self, None)

    def sigmoid(self):
        return unary(SIGMOID, self, None)

    def relu(self):
        return unary(RELU, self, None)

    def sqrt(self):
        return unary(SQRT, self, None)

    def sin(self):
        return unary(SIN, self, None)

    def cos(self):
        return unary(COS, self, None)

    def neg(self):
        return unary(NEG, self, None)

    def abs(self):
        return unary(ABS, self, None)

    def sum(self, dim=None, keepdim=False, *, dtype=None, axis=None, keepdims=None):
        """Sum of all elements, or along ``dim`` (``axis``/``keepdims`` accepted too).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([[1., 2.], [3., 4.]]).sum(1).tolist()
        [3.0, 7.0]
        """
        if axis is not None:
            dim = axis
        if keepdims is not None:
            keepdim = keepdims
        if dtype is None:
            if dim is None and not keepdim and _sum_all_function is not None and _tracked(self):
                return _apply_c(_sum_all_function, (self,), None)    # the common loss.sum()
            res = _reduce_fast(CG_RSUM, self, dim, keepdim)
            if res is not None:
                return res
        return _py_reduction("sum")(self, dim, keepdim, dtype=dtype)

    def amax(self, dim=(), keepdim=False):
        """Largest value over ``dim`` (all dims by default); NaN propagates.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([[1., 5.], [3., 2.]]).amax(1).tolist()
        [5.0, 3.0]
        """
        res = _reduce_fast(CG_RMAX, self, None if dim == () else dim, keepdim)
        if res is not None:
            return res
        return _py_reduction("amax")(self, dim, keepdim)

    def amin(self, dim=(), keepdim=False):
        """Smallest value over ``dim`` (all dims by default); NaN propagates."""
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
    return isinstance(x, (TensorBase, int, float, np.ndarray, np.generic))


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


cdef object _view_hook = None

def _set_view_hook(fn):
    """cygrad.autograd installs a function that records views of tensors requiring grad."""
    global _view_hook
    _view_hook = fn

cdef object _make_view(TensorBase base, int nd, const Py_ssize_t* shape,
                       const Py_ssize_t* strides, Py_ssize_t offset, str kind):
    """A view of base; ``kind`` names its autograd node (``SliceBackward0``...)."""
    cdef TensorBase v = new_view(base, nd, shape, strides, offset)
    if _tracked(base) and _view_hook is not None:
        return _view_hook(base, v, kind)
    return v


cdef object _transpose(TensorBase t, object dim0, object dim1, str kind):
    cdef int a = _wrap_dim(dim0, t._ndim), b = _wrap_dim(dim1, t._ndim)
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    if t._ndim == 0:
        return _make_view(t, 0, t._shape, t._strides, t._offset, kind)
    memcpy(shape, t._shape, t._ndim * sizeof(Py_ssize_t))
    memcpy(strides, t._strides, t._ndim * sizeof(Py_ssize_t))
    shape[a], shape[b] = shape[b], shape[a]
    strides[a], strides[b] = strides[b], strides[a]
    return _make_view(t, t._ndim, shape, strides, t._offset, kind)


cdef object _select(TensorBase t, int d, object index):
    cdef Py_ssize_t i = index, size = t._shape[d]
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int k, n = 0
    if i < -size or i >= size:
        raise IndexError(f"index {index} is out of bounds for dimension {d} with size {size}")
    if i < 0:
        i += size
    for k in range(t._ndim):
        if k != d:
            shape[n] = t._shape[k]
            strides[n] = t._strides[k]
            n += 1
    return _make_view(t, n, shape, strides, t._offset + i * t._strides[d], "SelectBackward0")


cdef object _view_dtype(TensorBase t, DType dt):
    if dt.itemsize != t._dtype.itemsize:
        raise RuntimeError("view(dtype): only dtypes of the same size are supported")
    cdef TensorBase v = new_view(t, t._ndim, t._shape, t._strides, t._offset)
    v._dtype = dt
    return v


cdef TensorBase _convert(TensorBase t, DType dt, object dev):
    cdef TensorBase out = new_empty(dt, t._ndim, t._shape, dev)
    copy_into(out, t)
    return out

def _convert_tensor(TensorBase t, dt, dev):
    return _convert(t, to_dtype(dt), Device(dev))


cdef TensorBase _as_tensor_like(object value, TensorBase like):
    if _is_scalar(value):
        return _scalar_tensor(value, like._dtype)
    if isinstance(value, np.ndarray):
        return _from_ndarray(value, False)
    return _from_ndarray(np.asarray(value), False)


# ------------------------------------------------------------------ basic indexing

cdef object _advanced_getitem = None
cdef object _advanced_setitem = None

def _set_indexing_hooks(getitem, setitem):
    """cygrad.ops.indexing handles tensor/list/bool-mask indices (advanced indexing)."""
    global _advanced_getitem, _advanced_setitem
    _advanced_getitem = getitem
    _advanced_setitem = setitem

cdef inline bint _is_basic(object idx):
    return (idx is None or idx is Ellipsis or isinstance(idx, slice)
            or (isinstance(idx, (int, np.integer)) and not isinstance(idx, (bool, np.bool_))))

cdef object _getitem(TensorBase t, object index):
    cdef Py_ssize_t start, stop, step, length
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    # Fast path: t[a:b] and t[i] on the first dim.
    if type(index) is slice and t._ndim > 0:
        if PySlice_Unpack(index, &start, &stop, &step) < 0:
            raise
        length = PySlice_AdjustIndices(t._shape[0], &start, &stop, step)
        memcpy(shape, t._shape, t._ndim * sizeof(Py_ssize_t))
        memcpy(strides, t._strides, t._ndim * sizeof(Py_ssize_t))
        shape[0] = length
        strides[0] = t._strides[0] * step
        return _make_view(t, t._ndim, shape, strides,
                          t._offset + (start * t._strides[0] if length else 0), "SliceBackward0")
    if type(index) is int:
        if t._ndim == 0:
            raise IndexError("invalid index of a 0-dim tensor. Use `tensor.item()` in Python or "
                             "`tensor.item<T>()` in C++ to convert a 0-dim tensor to a number")
        return _select(t, 0, index)
    if type(index) is not tuple:
        index = (index,)
    for idx in index:
        if not _is_basic(idx):
            if _advanced_getitem is None:
                raise IndexError(f"unsupported index {idx!r}")
            return _advanced_getitem(t, index)
    return _basic_index(t, <tuple>index)

cdef object _basic_index(TensorBase t, tuple index):
    """ints, slices (any step), None and one Ellipsis: always a view."""
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t offset = t._offset, start, stop, step, length, i
    cdef int d = 0, n = 0, consumed = 0, k, n_none = 0, n_int = 0
    for idx in index:
        if idx is None:
            n_none += 1
        elif idx is not Ellipsis:
            consumed += 1
            if not isinstance(idx, slice):
                n_int += 1
    if consumed > t._ndim:
        raise IndexError(f"too many indices for tensor of dimension {t._ndim}")
    # The result's rank is known before any dim is written: check it against the
    # fixed-size shape arrays here, once (issue 6: a stack overflow past 16 dims).
    if n_none + t._ndim - n_int > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, but indexing a "
                           f"{t._ndim}-d tensor with {index!r} would give "
                           f"{n_none + t._ndim - n_int}")
    seen_ellipsis = False
    for idx in index:
        if idx is None:
            shape[n] = 1
            strides[n] = 1
            n += 1
        elif idx is Ellipsis:
            if seen_ellipsis:
                raise IndexError("an index can only have a single ellipsis ('...')")
            seen_ellipsis = True
            for k in range(t._ndim - consumed):
                shape[n] = t._shape[d]
                strides[n] = t._strides[d]
                n += 1
                d += 1
        elif isinstance(idx, slice):
            if PySlice_Unpack(idx, &start, &stop, &step) < 0:
                raise
            length = PySlice_AdjustIndices(t._shape[d], &start, &stop, step)
            if length:
                offset += start * t._strides[d]
            shape[n] = length
            strides[n] = t._strides[d] * step
            n += 1
            d += 1
        else:
            i = idx
            if i < -t._shape[d] or i >= t._shape[d]:
                raise IndexError(f"index {idx} is out of bounds for dimension {d} with size {t._shape[d]}")
            if i < 0:
                i += t._shape[d]
            offset += i * t._strides[d]
            d += 1
    while d < t._ndim:
        shape[n] = t._shape[d]
        strides[n] = t._strides[d]
        n += 1
        d += 1
    return _make_view(t, n, shape, strides, offset, "SliceBackward0")

cdef void _setitem(TensorBase t, object index, object value) except *:
    cdef TensorBase target, src
    if type(index) is not tuple:
        index = (index,)
    for idx in index:
        if not _is_basic(idx):
            if _advanced_setitem is None:
                raise IndexError(f"unsupported index {idx!r}")
            _advanced_setitem(t, index, value)
            return
    target = _basic_index(t, <tuple>index) if not (cg_grad_mode_enabled and t._requires_grad) else t[index]
    if isinstance(value, TensorBase):
        target.copy_(value)
    elif _is_scalar(value):
        if cg_grad_mode_enabled and target._requires_grad:
            target.copy_(_scalar_tensor(value, target._dtype))
        else:
            if target._numel:
                as_ndarray(target)[...] = value
            t._storage.version += 1
    else:
        target.copy_(_as_tensor_like(value, t))


def _empty(tuple shape, DType dt, device):
    cdef Py_ssize_t cshape[MAX_DIMS]
    cdef int i
    if len(shape) > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {len(shape)}")
    for i in range(len(shape)):
        cshape[i] = shape[i]
    return new_empty(dt, len(shape), cshape, device)

def _fill_zero(TensorBase t):
    if t._is_contig and _on_cpu(t):
        memset(t.ptr(), 0, t._numel * t._dtype.itemsize)
    else:
        t.fill_(0)
    return t


def _detach(TensorBase t):
    """A tensor sharing t's memory and version counter, outside the autograd graph."""
    cdef TensorBase d = new_view(t, t._ndim, t._shape, t._strides, t._offset)
    d._base = None
    return d


# ------------------------------------------------------------------------ factories
# The common factories are Cython so that ``cygrad.zeros(100)`` costs about what
# ``np.zeros(100)`` does; cygrad/ops/creation.py re-exports them.

cdef object _size_overflow(str fn, str arg, int pos):
    """PyTorch's error for a size that does not fit in 64 bits."""
    return TypeError(f"{fn}(): argument '{arg}' failed to unpack the object at pos {pos + 1} "
                     "with error \"Overflow when unpacking long long\"")

cdef int _size_args(tuple size, Py_ssize_t* out) except -1:
    cdef int i, nd
    if len(size) == 1 and type(size[0]) is int:     # zeros(100): the common case first
        try:
            out[0] = <Py_ssize_t>size[0]
        except OverflowError:
            raise _size_overflow("empty", "size", 0) from None
        if out[0] < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {out[0]}: [{out[0]}]")
        return 1
    if len(size) == 1 and not isinstance(size[0], (int, np.integer)):
        size = tuple(size[0])
    nd = len(size)
    if nd > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {nd}")
    for i in range(nd):
        v = size[i]
        if not isinstance(v, (int, np.integer)) or isinstance(v, bool):
            raise TypeError(f"empty(): argument 'size' must be tuple of ints, but found element of "
                            f"type {type(v).__name__} at pos {i}")
        try:
            out[i] = v
        except OverflowError:
            raise _size_overflow("empty", "size", i) from None
    return nd

cdef inline DType _factory_dtype(object dtype):
    return default_float() if dtype is None else to_dtype(dtype)

cdef inline object _factory_device(object device):
    if device is None or device is CPU:
        return CPU
    return device if isinstance(device, Device) else Device(device)

cdef TensorBase _factory(tuple size, object dtype, object device, bint requires_grad):
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef int nd = _size_args(size, shape)
    cdef TensorBase t = new_empty(_factory_dtype(dtype), nd, shape, _factory_device(device))
    return t

cdef object _finish_factory(TensorBase t, bint requires_grad, object out):
    if requires_grad:
        t.requires_grad = True
    if out is not None:
        (<TensorBase?>out).copy_(t)
        return out
    return t

cdef object _int_fill_value(DType dt, object value):
    """A Python int checked against dtype ``dt`` as PyTorch does: signed types need the
    value in range; uint8 also accepts -255..-1 (wrapping). Other values pass through."""
    if dt.kind != KIND_INT or not isinstance(value, (int, np.integer)) or isinstance(value, bool):
        return value
    info = np.iinfo(dt.np_dtype)
    lo = -int(info.max) if dt.code == DT_UINT8 else int(info.min)
    if not lo <= value <= int(info.max):
        raise RuntimeError(f"value cannot be converted to type {dt.name}_t without overflow")
    return int(value) % 256 if dt.code == DT_UINT8 else value


cdef void _fill_contig(TensorBase t, object value) except *:
    """Fill a contiguous CPU tensor; typed loops for the common dtypes."""
    cdef Py_ssize_t i, n = t._numel
    cdef float vf
    cdef double vd
    cdef int64_t vl
    cdef int32_t vi
    cdef int code = t._dtype.code
    cdef Storage keep = t._storage     # held while the loops run without the GIL
    cdef char* p = t.ptr()
    value = _int_fill_value(t._dtype, value)
    if code == DT_FLOAT32:
        vf = value
        with nogil:
            for i in range(n):
                (<float*>p)[i] = vf
    elif code == DT_FLOAT64:
        vd = value
        with nogil:
            for i in range(n):
                (<double*>p)[i] = vd
    elif code == DT_INT64 and not isinstance(value, float):
        vl = value
        with nogil:
            for i in range(n):
                (<int64_t*>p)[i] = vl
    elif code == DT_INT32 and not isinstance(value, float):
        vi = value
        with nogil:
            for i in range(n):
                (<int32_t*>p)[i] = vi
    else:
        as_ndarray(t)[...] = value


def empty(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False,
          memory_format=None):
    """An uninitialised tensor of the given shape.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty(2, 3).shape
    cygrad.Size([2, 3])
    """
    return _finish_factory(_factory(shape if size is None else (size,), dtype, device, requires_grad),
                           requires_grad, out)


def zeros(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of zeros.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, dtype=cygrad.int32)
    tensor([0, 0], dtype=cygrad.int32)
    """
    cdef TensorBase t = _factory(shape if size is None else (size,), dtype, device, requires_grad)
    if _on_cpu(t):
        memset(t.ptr(), 0, t._numel * t._dtype.itemsize)
    else:
        t.fill_(0)
    return _finish_factory(t, requires_grad, out)


def ones(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of ones.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2).tolist()
    [1.0, 1.0]
    """
    cdef TensorBase t = _factory(shape if size is None else (size,), dtype, device, requires_grad)
    if _on_cpu(t):
        _fill_contig(t, 1)
    else:
        t.fill_(1)
    return _finish_factory(t, requires_grad, out)


def full(size, fill_value, *, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor filled with ``fill_value``; without ``dtype`` it is inferred from the value
    (bool, int64, or the default float dtype), as ``torch.full``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.full((2,), 7).dtype
    cygrad.int64
    """
    if isinstance(fill_value, TensorBase):
        fill_value = fill_value.item()
    if dtype is None:
        dtype = _scalar_dtype(fill_value)
    cdef TensorBase t = _factory((size,) if isinstance(size, (int, np.integer)) else tuple(size),
                                 dtype, device, requires_grad)
    if _on_cpu(t):
        _fill_contig(t, fill_value)
    else:
        t.fill_(fill_value)
    return _finish_factory(t, requires_grad, out)


def _data_alias(TensorBase t):
    """``t.data``: the same memory under a *new* version counter and no history, so
    changes through it are invisible to autograd (PyTorch's documented semantics)."""
    cdef Storage s = wrap_foreign(t._storage.data, t._storage.nbytes, t._storage, t._storage.device)
    cdef TensorBase d = new_view(t, t._ndim, t._shape, t._strides, t._offset)
    d._storage = s
    d._base = None
    return d


def _set_data(TensorBase t, TensorBase value):
    """``t.data = value``: t now shows value's memory, shape and dtype (PyTorch's
    ``set_data``); its autograd identity (requires_grad, grad_fn) is unchanged."""
    t._storage = value._storage
    t._dtype = value._dtype
    t._ndim = value._ndim
    t._offset = value._offset
    for i in range(value._ndim):
        t._shape[i] = value._shape[i]
        t._strides[i] = value._strides[i]
    _finish_meta(t)
    t._shape_obj = None
