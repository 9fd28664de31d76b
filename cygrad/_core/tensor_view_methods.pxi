# The view methods of cygrad.Tensor: reshape, transpose, expand, narrow, split ...
#
# Part of cygrad/_core/tensor.pyx (textually included there with `include`, so it
# shares the module's C-level names). Cython cannot split one cdef class across
# files, so these methods live in a plain mixin class that cygrad.Tensor also
# derives from (cygrad/_tensor.py); they are compiled like the class's own.

class _ViewMethods:
    """The view methods of ``cygrad.Tensor`` (``view``, ``transpose``, ``expand``...): no copy,
    the result shares this tensor's memory. A mixin of ``cygrad.Tensor`` beside
    ``TensorBase``; each method types ``self`` to reach the C fields."""

    # No per-instance __dict__ (cygrad.Tensor has none either).
    __slots__ = ()

    def view(TensorBase self, *shape):
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

    def reshape(TensorBase self, *shape):
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

    def view_as(TensorBase self, other):
        """``self.view(other.shape)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6).view_as(cygrad.zeros(2, 3)).shape
        cygrad.Size([2, 3])
        """
        return self.view(other.shape)

    def reshape_as(TensorBase self, other):
        """``self.reshape(other.shape)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(6).reshape_as(cygrad.zeros(3, 2)).shape
        cygrad.Size([3, 2])
        """
        return self.reshape(other.shape)

    def flatten(TensorBase self, start_dim=0, end_dim=-1, *, order=None):
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

    def unflatten(TensorBase self, dim, sizes):
        """Split dim ``dim`` into ``sizes`` (one may be -1)."""
        if len(sizes) == 0:
            raise RuntimeError("unflatten: sizes must be non-empty")
        cdef int d = _wrap_dim(dim, self._ndim)
        cdef Py_ssize_t inner[MAX_DIMS]
        n = _parse_shape((tuple(sizes),), self._shape[d], inner, "unflatten")
        shape = list(self.shape)
        return self.view(shape[:d] + [inner[i] for i in range(n)] + shape[d + 1:])

    def transpose(TensorBase self, dim0, dim1):
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

    def t(TensorBase self):
        """Transpose of a tensor with at most 2 dims."""
        if self._ndim > 2:
            raise RuntimeError(f"t() expects a tensor with <= 2 dimensions, but self is {self._ndim}D")
        return _transpose(self, 0, self._ndim - 1 if self._ndim else 0, "TBackward0")

    @property
    def T(TensorBase self):
        """All dims reversed (as NumPy's ``.T``)."""
        return self.permute(*range(self._ndim - 1, -1, -1))

    @property
    def mT(TensorBase self):
        """The last two dims swapped (batched matrix transpose)."""
        if self._ndim == 0:
            return self.view(())       # PyTorch lets a 0-d tensor through unchanged
        if self._ndim < 2:
            raise RuntimeError("tensor.mT is only supported on matrices or batches of matrices. "
                               f"Got {self._ndim}-D tensor.")
        return self.transpose(-2, -1)

    def permute(TensorBase self, *dims):
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

    def movedim(TensorBase self, source, destination):
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

    def expand(TensorBase self, *sizes):
        """Broadcast to a larger shape without copying (stride 0 on new dims).

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 2]).expand(3, -1).stride()
        (0, 1)
        """
        return _expand(self, _shape_tuple(sizes, "expand", "size"))

    def expand_as(TensorBase self, other):
        """``self.expand(other.shape)``: a view, no copy.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(3).expand_as(cygrad.zeros(2, 3)).shape
        cygrad.Size([2, 3])
        """
        return self.expand(other.shape)

    def broadcast_to(TensorBase self, *shape):
        """``self.expand(*shape)`` under NumPy's name: a view, no copy.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.arange(3).broadcast_to(2, 3).shape
        cygrad.Size([2, 3])
        """
        return _expand(self, _shape_tuple(shape, "broadcast_to", "size"))

    def squeeze(TensorBase self, dim=_ALL_DIMS):
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

    def unsqueeze(TensorBase self, dim):
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

    def narrow(TensorBase self, dim, start, length):
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

    def select(TensorBase self, dim, index):
        """The slice at ``index`` along ``dim``, with that dim removed (a view)."""
        cdef Py_ssize_t dd = _int_arg(dim, "select", "dim", 1)
        index = _int_arg(index, "select", "index", 2)
        cdef int d = _wrap_idx(dd, self._ndim)
        if self._ndim == 0:
            raise IndexError("select() cannot be applied to a 0-dim tensor.")
        return _select(self, d, index)

    def diagonal(TensorBase self, offset=0, dim1=0, dim2=1):
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

    def as_strided(TensorBase self, size, stride, storage_offset=None):
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

    def _as_strided_any(TensorBase self, size, stride, storage_offset=None):
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

    def unbind(TensorBase self, dim=0):
        """All slices along ``dim`` as a tuple of views."""
        if type(dim) is not int:            # read before the 0-d check, as PyTorch's parser
            dim = _int_arg(dim, "unbind", "dim", 1)
        if self._ndim == 0:
            raise IndexError("Dimension specified as 0 but tensor has no dimensions")
        cdef int d = _wrap_dim(dim, self._ndim)
        return tuple([_select(self, d, i) for i in range(self._shape[d])])

    def split(TensorBase self, split_size_or_sections, dim=0):
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

    def chunk(TensorBase self, chunks, dim=0):
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
