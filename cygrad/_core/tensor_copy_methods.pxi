# The copying and converting methods of cygrad.Tensor: contiguous, clone, copy_, to,
# the dtype shorthands (float(), long() ...), cpu() and cuda().
#
# Part of cygrad/_core/tensor.pyx (textually included there with `include`); a mixin
# of cygrad.Tensor, as in tensor_view_methods.pxi.

class _CopyMethods:
    """The copying and converting methods of ``cygrad.Tensor`` (``contiguous``, ``clone``,
    ``to``, ``float``...). A mixin of ``cygrad.Tensor`` beside ``TensorBase``; each
    method types ``self`` to reach the C fields."""

    # No per-instance __dict__ (cygrad.Tensor has none either).
    __slots__ = ()

    def contiguous(TensorBase self, memory_format=None):
        """Self if already C-contiguous, else a contiguous copy."""
        if self._is_contig:
            return self
        return self.clone()

    def clone(TensorBase self, memory_format=None):
        """A copy with its own memory (contiguous). Differentiable."""
        cdef TensorBase out
        if _tracked(self) and _apply_c != NULL:
            return _apply_c(_clone_function, (self,), None)
        out = new_empty(self._dtype, self._ndim, self._shape, self._storage.device)
        copy_into(out, self)
        return out

    def copy_(TensorBase self, src, non_blocking=False):
        """Copy ``src`` (broadcast, converted to self's dtype) into self, in place."""
        if not isinstance(src, TensorBase):
            src = _as_tensor_like(src, self)
        if (cg_grad_mode_enabled and (self._requires_grad or (<TensorBase>src)._requires_grad)
                or _dual(self) or _dual(src)):
            return _inplace_autograd(_COPY_OP, self, src)
        copy_into(self, <TensorBase>src)
        self._storage.version += 1
        return self

    def resize_(TensorBase self, *sizes):
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

    def fill_(TensorBase self, value):
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
        if self._numel and not _on_cpu(self):
            _device_op("fill", "fill", self, value, None, self._dtype)
        elif self._numel:
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

    def zero_(TensorBase self):
        """Set every element to zero, in place."""
        if _tracked(self):
            if cg_grad_mode_enabled and self._requires_grad and self._grad_fn is None:
                raise RuntimeError("a leaf Variable that requires grad is being used in an "
                                   "in-place operation.")
            return _inplace_autograd(_ZERO_OP, self, None)
        return self.fill_(0)

    def to(TensorBase self, *args, **kwargs):
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

    def type(TensorBase self, dtype=None):
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

    def float(TensorBase self):
        """``self.to(cygrad.float32)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).float().dtype
        cygrad.float32
        """
        return self.to(_dtype_mod.float32)

    def double(TensorBase self):
        """``self.to(cygrad.float64)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).double().dtype
        cygrad.float64
        """
        return self.to(_dtype_mod.float64)

    def half(TensorBase self):
        """``self.to(cygrad.float16)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).half().dtype
        cygrad.float16
        """
        return self.to(_dtype_mod.float16)

    def bfloat16(TensorBase self):
        """``self.to(cygrad.bfloat16)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).bfloat16().dtype
        cygrad.bfloat16
        """
        return self.to(_dtype_mod.bfloat16)

    def long(TensorBase self):
        """``self.to(cygrad.int64)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).long().dtype
        cygrad.int64
        """
        return self.to(_dtype_mod.int64)

    def int(TensorBase self):
        """``self.to(cygrad.int32)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).int().dtype
        cygrad.int32
        """
        return self.to(_dtype_mod.int32)

    def short(TensorBase self):
        """``self.to(cygrad.int16)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).short().dtype
        cygrad.int16
        """
        return self.to(_dtype_mod.int16)

    def char(TensorBase self):
        """``self.to(cygrad.int8)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).char().dtype
        cygrad.int8
        """
        return self.to(_dtype_mod.int8)

    def byte(TensorBase self):
        """``self.to(cygrad.uint8)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).byte().dtype
        cygrad.uint8
        """
        return self.to(_dtype_mod.uint8)

    def bool(TensorBase self):
        """``self.to(cygrad.bool)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).bool().dtype
        cygrad.bool
        """
        return self.to(_dtype_mod.bool_)

    def cfloat(TensorBase self):
        """``self.to(cygrad.complex64)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).cfloat().dtype
        cygrad.complex64
        """
        return self.to(_dtype_mod.complex64)

    def cdouble(TensorBase self):
        """``self.to(cygrad.complex128)``: the tensor itself when it already has that dtype.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.tensor([1, 0]).cdouble().dtype
        cygrad.complex128
        """
        return self.to(_dtype_mod.complex128)

    def cpu(TensorBase self):
        """``self.to('cpu')``: the tensor itself when it is already on the CPU.

        Examples
        --------
        >>> import cygrad
        >>> x = cygrad.zeros(2)
        >>> x.cpu() is x
        True
        """
        return self.to("cpu")

    def cuda(TensorBase self, device=None):
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
