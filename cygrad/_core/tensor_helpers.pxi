# Helpers of the tensor core: argument parsing, shapes, scalars, promotion and broadcasting.
#
# Part of cygrad/_core/tensor.pyx (textually included there with `include`, so it
# shares the module's C-level names).


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
