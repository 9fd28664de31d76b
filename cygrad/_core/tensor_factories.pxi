# Factories: empty, zeros, ones, full, and how their size and fill value are checked.
#
# Part of cygrad/_core/tensor.pyx (textually included there with `include`,
# so it shares the module's C-level names). In Cython so that zeros(100) costs what np.zeros(100) does.

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
        a = size[0]
        if isinstance(a, (tuple, list)):
            size = tuple(a)
        elif (isinstance(a, TensorBase) and (<TensorBase>a)._ndim == 0
              and (<TensorBase>a)._dtype._category == KIND_INT):
            size = (int(a),)        # PyTorch reads a 0-d integer tensor as one size
        else:
            # (a bytes, str, dict or set would be iterated into a wrong shape)
            raise TypeError(f"empty(): argument 'size' (position 1) must be tuple of ints, "
                            f"not {type(a).__name__}")
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

cdef object _int_fill_value(DType dt, object value, bint single=False):
    """``value`` ready to be stored into dtype ``dt``, by c10's rules: refused
    (OverflowError/RuntimeError, see ``scalars.check_scalar_fits``) when it does not
    fit; an int that fits only by wrapping (-1 into uint8) is wrapped here, as a C
    cast would. PyTorch fills a ``single``-element float16/bfloat16 tensor without
    the range check (70000 rounds to inf): only the number itself is checked then."""
    if dt._category == KIND_FLOAT and type(value) is float and dt.code == DT_FLOAT64:
        return value                  # the common case, and every float fits a double
    if single and (dt.code == DT_FLOAT16 or dt.code == DT_BFLOAT16):
        _check_scalar_fits(value, _dtype_mod.float64)
        return value
    _check_scalar_fits(value, dt)
    if dt._category != KIND_INT or not isinstance(value, (int, np.integer)) or isinstance(value, (bool, np.bool_)):
        return value
    value = int(value)
    bits = dt.itemsize * 8         # a Python int: the shifts below must not be C shifts
    value &= (1 << bits) - 1
    if np.issubdtype(dt.np_dtype, np.signedinteger) and value >= (1 << (bits - 1)):
        value -= 1 << bits
    return value


cdef void _fill_contig(TensorBase t, object value) except *:
    """Fill a contiguous CPU tensor; typed loops for the common dtypes."""
    cdef Py_ssize_t i, n = t._numel
    if n == 0:
        return          # (an empty tensor may have a dim too big for a NumPy view)
    cdef float vf
    cdef double vd
    cdef int64_t vl
    cdef int32_t vi
    cdef int code = t._dtype.code
    cdef Storage keep = t._storage     # held while the loops run without the GIL
    cdef char* p = t.ptr()
    value = _int_fill_value(t._dtype, value, n == 1)
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
        token = _quiet_enter()     # (a one-element half fill may round to inf)
        try:
            as_ndarray(t)[...] = value
        finally:
            _quiet_exit(token)


cdef inline tuple _size_of(str fn, tuple shape, object size):
    if size is not None:
        return (size,)
    if not shape:
        raise TypeError(f'{fn}() missing 1 required positional arguments: "size"')
    return shape


def empty(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None, pin_memory=False,
          memory_format=None):
    """An uninitialised tensor of the given shape.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty(2, 3).shape
    cygrad.Size([2, 3])
    """
    return _finish_factory(_factory(_size_of("empty", shape, size), dtype, device, requires_grad),
                           requires_grad, out)


def zeros(*shape, size=None, dtype=None, device=None, requires_grad=False, out=None):
    """A tensor of zeros.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, dtype=cygrad.int32)
    tensor([0, 0], dtype=cygrad.int32)
    """
    cdef TensorBase t = _factory(_size_of("zeros", shape, size), dtype, device, requires_grad)
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
    cdef TensorBase t = _factory(_size_of("ones", shape, size), dtype, device, requires_grad)
    if _on_cpu(t):
        _fill_contig(t, 1)
    else:
        t.fill_(1)
    return _finish_factory(t, requires_grad, out)


cdef void _size_args_checked(object size) except *:
    """Only the parse of a size argument (its TypeErrors), nothing allocated."""
    cdef Py_ssize_t shape[MAX_DIMS]
    _size_args(tuple(size), shape)


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
    if isinstance(size, (int, np.integer)) or not hasattr(size, "__iter__"):
        raise TypeError(f"full(): argument 'size' (position 1) must be tuple of ints, not "
                        f"{type(size).__name__}")
    cdef DType dt = to_dtype(dtype)
    cdef bint half = dt.code == DT_FLOAT16 or dt.code == DT_BFLOAT16
    # PyTorch's order: its parser reads the size (TypeError) and the number (an int
    # beyond 64 bits: OverflowError), then the fill checks the value's range
    # (RuntimeError); a half dtype's range only when more than one element is filled
    if type(fill_value) is int and not -(1 << 63) <= fill_value < (1 << 64):
        _size_args_checked(size)
        raise OverflowError("int too big to convert")
    cdef TensorBase t = _factory(tuple(size), dtype, device, requires_grad)
    if not half or t._numel != 1:
        _check_scalar_fits(fill_value, dt)
    if t._numel == 0:
        return _finish_factory(t, requires_grad, out)
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
    set_ndim(t, value._ndim)
    t._offset = value._offset
    for i in range(value._ndim):
        t._shape[i] = value._shape[i]
        t._strides[i] = value._strides[i]
    _finish_meta(t)
    t._shape_obj = None
