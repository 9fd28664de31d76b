# Basic indexing (ints, slices, None, ...) as views, and x[...] = value.
#
# Part of cygrad/_core/tensor.pyx (textually included there with `include`,
# so it shares the module's C-level names). Advanced indices go to cygrad.ops.indexing through a hook.

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
        if type(index) is slice and (<slice>index).step is not None and (<slice>index).step == 0:
            # a lone slice is read before the dims are counted (PyTorch's order)
            raise ValueError("slice step cannot be zero")
        index = (index,)
    cdef int n_ellipsis = 0
    for idx in index:
        if idx is Ellipsis:
            n_ellipsis += 1
        elif not _is_basic(idx):
            if _advanced_getitem is None:
                raise IndexError(f"unsupported index {idx!r}")
            return _advanced_getitem(t, index)
    if n_ellipsis > 1 and _advanced_getitem is not None:
        # PyTorch moves on past every ``...``: cygrad.ops.indexing reads it that way
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
                continue            # PyTorch accepts more than one; the first takes the dims
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
    if not isinstance(value, TensorBase) and _is_scalar(value):
        # PyTorch reads a Python int as a 64-bit integer before it looks at the index
        if type(value) is int and not -(1 << 63) <= value < (1 << 63):
            raise ValueError("Overflow when unpacking long long")
        if t._dtype.code != DT_FLOAT16 and t._dtype.code != DT_BFLOAT16:
            # (PyTorch stores into half types through float: too big becomes inf)
            value = _int_fill_value(t._dtype, value)
    # PyTorch: a lone bool index writes through the whole tensor (True, as ``...``: the
    # value may have another dtype) or not at all (False, nothing else checked)
    if index is False:
        return
    if index is True:
        index = Ellipsis
    if type(index) is not tuple:
        if type(index) is slice and (<slice>index).step is not None and (<slice>index).step == 0:
            # a lone slice is read before the dims are counted (PyTorch's order)
            raise ValueError("slice step cannot be zero")
        index = (index,)
    cdef int n_ellipsis = 0
    for idx in index:
        if idx is Ellipsis:
            n_ellipsis += 1
        elif not _is_basic(idx):
            if _advanced_setitem is None:
                raise IndexError(f"unsupported index {idx!r}")
            _advanced_setitem(t, index, value)
            return
    if n_ellipsis > 1 and _advanced_setitem is not None:
        _advanced_setitem(t, index, value)       # (as in _getitem)
        return
    target = _basic_index(t, <tuple>index) if not (cg_grad_mode_enabled and t._requires_grad) else t[index]
    if isinstance(value, TensorBase):
        src = <TensorBase>value
        if src._ndim > target._ndim:
            # PyTorch drops a value's leading size-1 dims before copying
            k = 0
            while src._ndim - k > target._ndim and src._shape[k] == 1:
                k += 1
            if k:
                value = src.reshape(src.shape[k:])
        target.copy_(value)
    elif _is_scalar(value):
        if cg_grad_mode_enabled and target._requires_grad:
            target.copy_(_scalar_tensor(value, target._dtype))
        else:
            if target._numel:
                _check_no_internal_overlap(target)   # (an expanded tensor: PyTorch refuses)
            if target._numel and (t._dtype.code == DT_FLOAT16 or t._dtype.code == DT_BFLOAT16):
                token = _quiet_enter()     # too big for a half type is inf, without a warning
                try:
                    as_ndarray(target)[...] = value
                finally:
                    _quiet_exit(token)
            elif target._numel:
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
