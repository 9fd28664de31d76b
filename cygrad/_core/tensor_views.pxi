# Views: dim wrapping, shape parsing, which strides a view may have, and the helpers that make a view (and record it for autograd).
#
# Part of cygrad/_core/tensor.pyx (textually included there with `include`,
# so it shares the module's C-level names). Views never copy.

# ------------------------------------------------------------------------ views

cdef inline int _wrap_dim(object dim, int ndim) except -100:
    """``dim`` (a Python int) wrapped into ``[0, ndim)``, with PyTorch's errors:
    IndexError when out of range, ValueError for an int beyond 64 bits."""
    cdef int n = ndim if ndim > 0 else 1
    cdef Py_ssize_t d
    if type(dim) is bool:
        raise TypeError("argument 'dim' must be int, not bool")
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


cdef object _argcheck_mod = None

cdef object _argcheck():
    """cygrad.ops._argcheck (PyTorch's argument errors), imported on the first error:
    the core reads the common case itself and only calls it to build the exception."""
    global _argcheck_mod
    if _argcheck_mod is None:
        from ..ops import _argcheck as mod
        _argcheck_mod = mod
    return _argcheck_mod

cdef Py_ssize_t _int_arg_slow(object v, str opname, str argname, int position) except? -1:
    return _argcheck().int_arg(v, opname, argname, position)

cdef inline Py_ssize_t _int_arg(object v, str opname, str argname, int position) except? -1:
    """An ``int`` argument read as PyTorch's parser reads it, before any semantic check
    (TypeError for a bool/float/str, ValueError beyond 64 bits); exact ints inline."""
    cdef int ovf = 0
    cdef long long r
    if type(v) is int:
        r = PyLong_AsLongLongAndOverflow(v, &ovf)
        if not ovf:
            return <Py_ssize_t>r
    return _int_arg_slow(v, opname, argname, position)

cdef inline int _wrap_idx(Py_ssize_t d, int ndim) except -100:
    """An already-read dim wrapped into ``[0, ndim)`` (IndexError as PyTorch)."""
    cdef int n = ndim if ndim > 0 else 1
    if d < -n or d >= n:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, {n - 1}], "
                         f"but got {d})")
    return <int>(d + n if d < 0 else d)

cdef tuple _shape_slow(object value, str opname, str argname):
    if argname is None:
        argname = "shape" if opname == "reshape" else "sizes" if opname == "unflatten" else "size"
    ac = _argcheck()
    return ac.symint_list_arg(ac.int_list_arg(value, opname, argname, 1))

cdef inline tuple _shape_tuple(tuple args, str opname, str argname):
    """A method's shape arguments (``x.view(2, 3)`` or ``x.view((2, 3))``) as a tuple
    of exact ints; anything else goes through PyTorch's int-list rules (a bool first
    element, a float, a bare bool: TypeError)."""
    cdef object a
    if len(args) == 1:
        a = args[0]
        if type(a) is int:
            if not -(1 << 63) <= a < (1 << 63):
                raise TypeError(f"{opname}(): argument '{argname or 'size'}' failed to unpack the "
                                "object at pos 1 with error \"Overflow when unpacking long long\"")
            return args
        if not isinstance(a, tuple):
            return _shape_slow(a, opname, argname)
        args = <tuple>a
    elif len(args) == 0:
        raise TypeError(f'{opname}() missing 1 required positional arguments: '
                        f'"{argname or "shape"}"')
    for a in args:
        if type(a) is not int:
            return _shape_slow(args, opname, argname)
    return args

cdef int _parse_shape(tuple args, Py_ssize_t numel, Py_ssize_t* out, str opname) except -1:
    """Shape arguments given as ints or one sequence, with at most one -1 inferred.
    Anything but exact ints is read by PyTorch's int-list rules (``_shape_slow``)."""
    cdef Py_ssize_t known = 1, v
    cdef int infer = -1, i, nd
    cdef tuple given = args
    cdef object a
    if len(args) == 1:
        a = args[0]
        if type(a) is not int:
            if not isinstance(a, tuple):
                return _parse_shape((_shape_slow(a, opname, None),), numel, out, opname)
            args = <tuple>a
    elif len(args) == 0:
        raise TypeError(f'{opname}() missing 1 required positional arguments: "shape"')
    nd = len(args)
    if nd > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions, got {nd}")
    for i in range(nd):
        a = args[i]
        if type(a) is not int:
            return _parse_shape((_shape_slow(args if len(given) == 1 else given, opname, None),),
                                numel, out, opname)
        try:
            v = a
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



cdef object _view_hook = None

def _set_view_hook(fn):
    """cygrad.autograd installs a function that records views of tensors requiring grad."""
    global _view_hook
    _view_hook = fn

cdef object _make_view(TensorBase base, int nd, const Py_ssize_t* shape,
                       const Py_ssize_t* strides, Py_ssize_t offset, str kind,
                       object args=None):
    """A view of base; ``kind`` names its autograd node (``SliceBackward0``...), whose
    Function (cygrad/ops/view_functions.py) gets ``args`` (what it needs beyond the geometry:
    a permutation) when the view is recorded."""
    cdef TensorBase v = new_view(base, nd, shape, strides, offset)
    if _tracked(base) and _view_hook is not None:
        return _view_hook(base, v, kind, args)
    return v


cdef object _transpose(TensorBase t, Py_ssize_t dim0, Py_ssize_t dim1, str kind):
    cdef int a = _wrap_idx(dim0, t._ndim), b = _wrap_idx(dim1, t._ndim)
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    perm = None
    if _tracked(t):       # the recorded node needs the permutation this transpose is
        perm = list(range(t._ndim))
        if t._ndim:
            perm[a], perm[b] = b, a
        perm = (tuple(perm),)
    if t._ndim == 0:
        return _make_view(t, 0, t._shape, t._strides, t._offset, kind, perm)
    memcpy(shape, t._shape, t._ndim * sizeof(Py_ssize_t))
    memcpy(strides, t._strides, t._ndim * sizeof(Py_ssize_t))
    shape[a], shape[b] = shape[b], shape[a]
    strides[a], strides[b] = strides[b], strides[a]
    return _make_view(t, t._ndim, shape, strides, t._offset, kind, perm)


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
    """``t.view(dtype)``: the same bytes read as ``dt``. With another item size the
    last dim (which must be contiguous) is scaled, as in PyTorch."""
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef Py_ssize_t old = t._dtype.itemsize, new = dt.itemsize, ratio, offset = t._offset
    cdef int k, last = t._ndim - 1
    cdef TensorBase v
    if new != old:
        names = f"{_torch_type_name(t._dtype)} as {_torch_type_name(dt)}"
        if t._ndim == 0:
            raise RuntimeError(f"self.dim() cannot be 0 to view {names} (different element sizes)")
        if t._strides[last] != 1:
            raise RuntimeError(f"self.stride(-1) must be 1 to view {names} (different element "
                               f"sizes), but got {t._strides[last]}")
    for k in range(t._ndim):
        shape[k] = t._shape[k]
        strides[k] = t._strides[k]
    if new < old:
        ratio = old // new
        for k in range(last):
            strides[k] *= ratio
        shape[last] *= ratio
        offset = t._offset * ratio
    elif new > old:
        ratio = new // old
        if t._shape[last] % ratio:
            raise RuntimeError(f"self.size(-1) must be divisible by {ratio} to view {names} "
                               f"(different element sizes), but got {t._shape[last]}")
        if t._offset % ratio:
            raise RuntimeError(f"self.storage_offset() must be divisible by {ratio} to view "
                               f"{names} (different element sizes), but got {t._offset}")
        for k in range(last):
            if strides[k] % ratio:
                raise RuntimeError(f"self.stride({k}) must be divisible by {ratio} to view "
                                   f"{names} (different element sizes), but got {strides[k]}")
            strides[k] //= ratio
        shape[last] //= ratio
        offset = t._offset // ratio
    v = new_view(t, t._ndim, shape, strides, offset)
    v._dtype = dt
    if new != old:                  # PyTorch: a reinterpretation across sizes has no grad
        v._requires_grad = False
        v._grad_fn = None
    return v


cdef TensorBase _reinterpret(TensorBase t, DType dt, int ndim, const Py_ssize_t* shape,
                             const Py_ssize_t* strides, Py_ssize_t offset):
    """A view of t's memory read as ``dt`` (geometry in elements of ``dt``)."""
    cdef TensorBase v = new_view(t, ndim, shape, strides, offset)
    v._dtype = dt
    return v


cdef object _view_as_real(TensorBase t):
    """``torch.view_as_real``: a complex tensor as floats with a last dim of 2
    (real, imaginary). Recorded for autograd as ``ViewAsRealBackward0``."""
    cdef Py_ssize_t shape[MAX_DIMS]
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int k
    if t._dtype._category != KIND_COMPLEX:
        raise RuntimeError("view_as_real is only supported for complex tensors")
    if t._ndim + 1 > MAX_DIMS:
        raise RuntimeError(f"cygrad supports at most {MAX_DIMS} dimensions")
    for k in range(t._ndim):
        shape[k] = t._shape[k]
        strides[k] = 2 * t._strides[k]
    shape[t._ndim] = 2
    strides[t._ndim] = 1
    v = _reinterpret(t, t._dtype.to_real(), t._ndim + 1, shape, strides, 2 * t._offset)
    if _tracked(t) and _view_hook is not None:
        return _view_hook(t, v, "ViewAsRealBackward0", (None,))
    return v


cdef object _view_as_complex(TensorBase t):
    """``torch.view_as_complex``: floats with a last dim of 2 (stride 1) as complex."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int k, last = t._ndim - 1
    if t._dtype.code != DT_FLOAT32 and t._dtype.code != DT_FLOAT64:
        raise RuntimeError("view_as_complex is only supported for float and double tensors, "
                           f"but got a tensor of scalar type: {_torch_type_name(t._dtype)}")
    if t._ndim == 0:
        raise RuntimeError("Input tensor must have one or more dimensions")
    if t._shape[last] != 2:
        raise RuntimeError("Tensor must have a last dimension of size 2")
    if t._strides[last] != 1:
        raise RuntimeError("Tensor must have a last dimension with stride 1")
    for k in range(last):
        if t._strides[k] % 2:
            raise RuntimeError("Tensor must have a stride divisible by 2 for all but last dimension")
        strides[k] = t._strides[k] // 2
    if t._offset % 2:
        raise RuntimeError("Tensor must have a storage_offset divisible by 2")
    v = _reinterpret(t, t._dtype.to_complex(), last, t._shape, strides, t._offset // 2)
    if _tracked(t) and _view_hook is not None:
        return _view_hook(t, v, "ViewAsComplexBackward0", (None,))
    return v


cdef object _complex_part(TensorBase t, int part):
    """``t.real`` (part 0) / ``t.imag`` (part 1): every other float of a complex
    tensor's memory, a view. Recorded as PyTorch records it: a select of
    ``view_as_real``."""
    cdef Py_ssize_t strides[MAX_DIMS]
    cdef int k
    if t._dtype._category != KIND_COMPLEX:
        if part == 0:
            return t
        raise RuntimeError("imag is not implemented for tensors with non-complex dtypes.")
    if _tracked(t):
        return _view_as_real(t).select(-1, part)
    for k in range(t._ndim):
        strides[k] = 2 * t._strides[k]
    return _reinterpret(t, t._dtype.to_real(), t._ndim, t._shape, strides, 2 * t._offset + part)


def view_as_real(input):
    """A view of a complex tensor as real numbers, with a last dimension of size 2
    holding the real and imaginary parts (no copy).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.view_as_real(cygrad.tensor([1 + 2j, 3 - 4j])).tolist()
    [[1.0, 2.0], [3.0, -4.0]]
    """
    return _view_as_real(<TensorBase?>input)


def view_as_complex(input):
    """A view of a float tensor whose last dimension (size 2, stride 1) holds real and
    imaginary parts, as a complex tensor (no copy).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.view_as_complex(cygrad.tensor([[1.0, 2.0], [3.0, -4.0]])).tolist()
    [(1+2j), (3-4j)]
    """
    return _view_as_complex(<TensorBase?>input)


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
