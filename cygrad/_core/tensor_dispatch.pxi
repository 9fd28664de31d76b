# Elementwise dispatch: op descriptors, broadcasting into an output, dtype rules and out=, and the table of elementwise ops.
#
# Part of cygrad/_core/tensor.pyx (textually included there with `include`,
# so it shares the module's C-level names). One job: turn `a + b` into one kernel call.

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

cdef enum OutRule:
    OUT_CAST = 0     # out= may have any dtype the result can be cast to
    OUT_EXACT = 1    # out= must have the result's dtype (abs, floor...: integer-preserving ops)
    OUT_NONE = 2     # no out= argument at all (isnan, isinf, isfinite, relu)

_TORCH_TYPE_NAMES = {"bool": "Bool", "uint8": "Byte", "int8": "Char", "int16": "Short",
                     "int32": "Int", "int64": "Long", "float16": "Half",
                     "bfloat16": "BFloat16", "float32": "Float", "float64": "Double",
                     "complex64": "ComplexFloat", "complex128": "ComplexDouble"}

# Ops PyTorch has no complex kernel for, and the error it raises (None: its generic
# '"<name>_cpu" not implemented' NotImplementedError).
_COMPLEX_REFUSED = {
    "sign": (NotImplementedError, "Unlike NumPy, torch.sign is not intended to support complex "
                                  "numbers. Please use torch.sgn instead."),
    "relu": (NotImplementedError, "clamp is not supported for complex types"),
    "floor": (NotImplementedError, "floor is not supported for complex inputs"),
    "ceil": (NotImplementedError, "ceil is not supported for complex inputs"),
    "trunc": (NotImplementedError, "trunc is not supported for complex inputs"),
    "erf": (NotImplementedError, None), "erfc": (NotImplementedError, None),
    "round": (NotImplementedError, None), "floor_divide": (NotImplementedError, None),
    "remainder": (NotImplementedError, None), "fmod": (NotImplementedError, None),
    "atan2": (NotImplementedError, None), "lt": (NotImplementedError, None),
    "le": (NotImplementedError, None), "gt": (NotImplementedError, None),
    "ge": (NotImplementedError, None),
    "maximum": (RuntimeError, "maximum not implemented for complex tensors."),
    "minimum": (RuntimeError, "minimum not implemented for complex tensors."),
    "fmax": (RuntimeError, "fmax not implemented for complex tensors."),
    "fmin": (RuntimeError, "fmin not implemented for complex tensors."),
}
# torch's kernel names where they differ from the op's
_CPU_KERNEL_NAMES = {"erf": "erf_vml_cpu", "erfc": "erfc_vml_cpu", "round": "round_vml_cpu",
                     "floor_divide": "div_floor_cpu"}


def _complex_rsqrt(x, out=None, casting="unsafe"):
    return np.divide(1, np.sqrt(x), out=out, casting=casting)


def _complex_sigmoid(x, out=None, casting="unsafe"):
    return np.divide(1, 1 + np.exp(-x), out=out, casting=casting)


# NumPy ufuncs for complex inputs of ops whose real kernels are C only
_COMPLEX_UFUNCS = {"rsqrt": _complex_rsqrt, "sigmoid": _complex_sigmoid}

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
    cdef readonly int out_rule
    cdef public object function

    def __init__(self, name, arity, c_op, ufunc, result=RES_SAME, inputs=IN_ANY, zero_check=False,
                 out_rule=OUT_CAST):
        self.name = name
        self.out_rule = out_rule
        self.arity = arity
        self.c_op = c_op
        self.ufunc = ufunc
        self.result = result
        self.inputs = inputs
        self.zero_check = zero_check

    def __repr__(self):
        return f"<elementwise op {self.name}>"

    cdef int check_dtype(self, DType ct) except -1:
        if ct._category == KIND_COMPLEX:
            self.check_complex(ct)
        if ct._category == KIND_BOOL and self.name in ("bitwise_left_shift", "bitwise_right_shift"):
            raise NotImplementedError(f"\"{self.name[8:]}_cpu\" not implemented for 'Bool'")
        # PyTorch reports a dtype an op has no kernel for as NotImplementedError.
        if self.inputs == IN_INTEGRAL and ct._category == KIND_FLOAT:
            raise NotImplementedError(f"\"{self.name}_cpu\" not implemented for '{_torch_type_name(ct)}'")
        if self.inputs == IN_FLOAT and ct._category != KIND_FLOAT:
            raise NotImplementedError(f"\"{self.name}_cpu\" not implemented for '{_torch_type_name(ct)}'")
        if self.inputs == IN_NO_BOOL and ct._category == KIND_BOOL:
            if self.name == "sub":
                raise RuntimeError("Subtraction, the `-` operator, with two bool tensors is not "
                                   "supported. Use the `^` or `logical_xor()` operator instead.")
            if self.name == "neg":
                raise RuntimeError("Negation, the `-` operator, on a bool tensor is not supported. "
                                   "If you are trying to invert a mask, use the `~` or "
                                   "`logical_not()` operator instead.")
            raise NotImplementedError(f"\"{self.name}_cpu\" not implemented for 'Bool'")
        return 0

    cdef int check_complex(self, DType ct) except -1:
        refused = _COMPLEX_REFUSED.get(self.name)
        if refused is None and self.inputs != IN_INTEGRAL and self.inputs != IN_FLOAT:
            return 0
        exc, msg = refused if refused is not None else (NotImplementedError, None)
        if msg is None:
            kernel = _CPU_KERNEL_NAMES.get(self.name, self.name + "_cpu")
            msg = f"\"{kernel}\" not implemented for '{_torch_type_name(ct)}'"
        raise exc(msg)


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
    int16_t i16
    int8_t i8
    uint8_t u8

cdef DType _BOOL = _dtype_mod.bool_

cdef int _fill_scalar(ScalarBuf* buf, object x, DType dt) except -1:
    """Store the number x, already read by :func:`_number_operand`, as one element
    of dtype dt (a stride-0 kernel operand)."""
    cdef int c = dt.code
    if c == DT_FLOAT32:
        buf.f32 = <float>float(x)
    elif c == DT_FLOAT64:
        buf.f64 = float(x)
    elif c == DT_INT64:
        buf.i64 = <int64_t>int(x)
    elif c == DT_INT32:
        buf.i32 = <int32_t>int(x)
    elif c == DT_INT16:
        buf.i16 = <int16_t>int(x)
    elif c == DT_INT8:
        buf.i8 = <int8_t>int(x)
    elif c == DT_UINT8:
        buf.u8 = <uint8_t>int(x)
    elif c == DT_BOOL:
        buf.u8 = 1 if x else 0
    else:
        return -1
    return 0

cdef object _UINT64_END = 1 << 64

cdef object _number_operand(object x, DType ct, DType tensor_dt):
    """The Python number ``x`` beside a tensor of dtype ``tensor_dt`` as PyTorch reads
    it for an op computing in ``ct``: an int outside ``[-2**63, 2**64)`` is an
    OverflowError whatever the dtype; for an integer ``ct`` the int is cast to it
    first, wrapping like C (``int32 * 2**31`` multiplies by ``-2**31``, ``uint8 // 256``
    divides by zero), as PyTorch does. Anything else is returned as it is."""
    cdef int overflow = 0
    cdef long long v
    cdef long long w
    cdef int c
    if type(x) is not int:
        if not isinstance(x, np.integer):
            return x
        x = int(x)
    v = PyLong_AsLongLongAndOverflow(x, &overflow)
    if overflow:
        if overflow < 0:
            raise OverflowError("can't convert negative int to unsigned")    # PyTorch's words
        if x >= _UINT64_END:
            raise OverflowError("int too big to convert")
        if tensor_dt is not None and tensor_dt._category == KIND_BOOL:
            # PyTorch types such an int uint64, which it cannot promote with bool
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               "attempted to promote Bool and UInt64")
        v = <long long>PyLong_AsUnsignedLongLongMask(x)
    if ct._category != KIND_INT:
        return x
    c = ct.code
    if c == DT_INT64:
        w = v
    elif c == DT_INT32:
        w = <int32_t>v
    elif c == DT_INT16:
        w = <int16_t>v
    elif c == DT_INT8:
        w = <int8_t>v
    else:
        w = <uint8_t>v
    if w == v and not overflow:
        return x
    return w

cdef object _np_operand(object x, DType ct):
    """A NumPy operand of dtype ``ct`` (a view when x is a tensor of that dtype).
    Call it with NumPy's errors quiet (:func:`_quiet_enter`): a cast may overflow."""
    if isinstance(x, TensorBase):
        arr = as_ndarray(<TensorBase>x)
        if (<TensorBase>x)._dtype is not ct:
            arr = arr.astype(ct.np_dtype)
        return arr
    # (integer scalars come wrapped to ct already: see _number_operand)
    return np.asarray(x).astype(ct.np_dtype)

# NumPy's "ignore every floating-point error" state, built once: ``np.errstate``
# builds it anew on each entry, which cost more than a small op itself. Set and
# reset through the context variable NumPy reads; other NumPy versions fall back
# to ``np.errstate``.
try:
    from numpy._core._ufunc_config import _extobj_contextvar as _np_errstate_var
    from numpy._core.umath import _make_extobj
    _np_ignore_all = _make_extobj(all="ignore")
except (ImportError, AttributeError, TypeError):
    _np_errstate_var = None

cdef object _quiet_enter():
    """Silence NumPy's floating-point warnings (PyTorch gives inf/nan without a word);
    returns the token for :func:`_quiet_exit`, to be called in a ``finally``."""
    cdef object state
    if _np_errstate_var is not None:
        return _np_errstate_var.set(_np_ignore_all)
    state = np.errstate(all="ignore")
    state.__enter__()
    return state

cdef void _quiet_exit(object token) except *:
    if _np_errstate_var is not None:
        _np_errstate_var.reset(token)
    else:
        token.__exit__(None, None, None)

cdef object _call_ufunc(ElementwiseOp op, tuple args, object nout, DType ct):
    token = _quiet_enter()
    try:
        _call_ufunc_raw(op, args, nout, ct)
    finally:
        _quiet_exit(token)

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

def _check_no_internal_overlap_py(TensorBase t):
    """:func:`_check_no_internal_overlap` for the Python layers (in-place index ops).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.tensor import _check_no_internal_overlap_py
    >>> _check_no_internal_overlap_py(cygrad.zeros(1).expand(3))
    Traceback (most recent call last):
        ...
    RuntimeError: unsupported operation: more than one element of the written-to tensor refers to a single memory location. Please clone() the tensor before performing the operation.
    """
    _check_no_internal_overlap(t)

cdef int _check_out_rule(ElementwiseOp op, object out, DType res_dt) except -1:
    """PyTorch's out= rules for unary ops that do not cast their result:
    ``isnan``-like ops take no ``out`` at all; ``abs``-like ops (integer-preserving)
    want ``out`` of exactly the result dtype."""
    if op.out_rule == OUT_NONE:
        raise TypeError(f"{op.name}() got an unexpected keyword argument 'out'")
    if isinstance(out, TensorBase) and (<TensorBase>out)._dtype is not res_dt:
        raise RuntimeError(f"Found dtype {_torch_type_name((<TensorBase>out)._dtype)} but expected "
                           f"{_torch_type_name(res_dt)}")
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
    set_ndim(t, nd)
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
                and (op.result == RES_BOOL or not (_tracked(ta) or _tracked(tb)))
                and (op.result != RES_FLOAT or ta._dtype._category == KIND_FLOAT)
                and _same_shape(ta, tb) and _on_cpu(ta) and _on_cpu(tb)
                and cg_has_binary(op.c_op, ta._dtype.code)):
            # (a comparison's bool result has no gradient: tracked inputs may come here)
            to = new_empty(_BOOL if op.result == RES_BOOL else ta._dtype, ta._ndim, ta._shape, CPU)
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
    cdef int kind = t._dtype._category
    if not (t._is_contig and _on_cpu(t) and (op.result == RES_BOOL or not _tracked(t))
            and (cg_has_binary(op.c_op, t._dtype.code) or
                 (op is POW and cg_has_binary(CG_MUL, t._dtype.code)))):
        return None
    if op is POW and (scalar_first or scalar != 2):
        return None
    # a bool tensor beside a number, or an integer one beside a float, promotes
    if kind == KIND_BOOL or (kind == KIND_INT and (type(scalar) is float or op.result == RES_FLOAT)):
        return None
    if op is POW:
        # x ** 2 is common (losses, variances): square with the multiply kernel
        to = new_empty(t._dtype, t._ndim, t._shape, CPU)
        n = t._numel
        run_binary(CG_MUL, t._dtype.code, 1, &n, n, to.ptr(), &one, t.ptr(), &one, t.ptr(), &one,
                   to._storage, t._storage, t._storage)
        return to
    scalar = _number_operand(scalar, t._dtype, t._dtype)
    to = new_empty(_BOOL if op.result == RES_BOOL else t._dtype, t._ndim, t._shape, CPU)
    n = t._numel
    _fill_scalar(&buf, scalar, t._dtype)
    if scalar_first:
        run_binary(op.c_op, t._dtype.code, 1, &n, n, to.ptr(), &one, <char*>&buf, &zero,
                   t.ptr(), &one, to._storage, None, t._storage)
    else:
        run_binary(op.c_op, t._dtype.code, 1, &n, n, to.ptr(), &one, t.ptr(), &one,
                   <char*>&buf, &zero, to._storage, t._storage, None)
    return to


cdef TensorBase _logical_not_c(TensorBase t):
    """``logical_not`` of a contiguous CPU tensor as ``t == 0`` (NaN is not zero:
    it is "true", as in PyTorch), with the comparison kernel."""
    cdef ScalarBuf zero_buf
    cdef cg_index one = 1, zero = 0
    cdef Py_ssize_t n = t._numel
    cdef TensorBase to = new_empty(_BOOL, t._ndim, t._shape, CPU)
    memset(&zero_buf, 0, sizeof(ScalarBuf))
    run_binary(CG_EQ, t._dtype.code, 1, &n, n, to.ptr(), &one, t.ptr(), &one,
               <char*>&zero_buf, &zero, to._storage, t._storage, None)
    return to


cdef inline bint _cpu_scalar(TensorBase t):
    return t._ndim == 0 and _on_cpu(t)


cdef _raise_two_devices(first, second):
    # PyTorch names the accelerator first, whichever operand it is
    if first.type == "cpu":
        first, second = second, first
    raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                       f"two devices, {first} and {second}!")


def scalars_to_device(*values):
    """``values`` with each 0-d CPU tensor moved to the device of the first tensor
    among them that is not on the CPU, as PyTorch lets a CPU scalar tensor join an
    op on another device; other values are returned as they are.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.tensor import scalars_to_device
    >>> x, s = scalars_to_device(cygrad.ones(2), cygrad.tensor(2.0))
    >>> s.device.type
    'cpu'
    """
    target = None
    for v in values:
        if isinstance(v, TensorBase) and not _on_cpu(<TensorBase>v):
            target = (<TensorBase>v)._storage.device
            break
    if target is None:
        return values
    return tuple(v.to(target) if isinstance(v, TensorBase) and _cpu_scalar(<TensorBase>v) else v
                 for v in values)


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
        # A 0-d CPU tensor may join an op on another device, as a scalar would
        # (PyTorch's rule); the copy is differentiable, so its gradient comes back.
        if _cpu_scalar(ta) and (out is None or (<TensorBase>out)._storage.device == tb._storage.device):
            ta = ta.to(tb._storage.device)
            a = ta
        elif _cpu_scalar(tb) and (out is None or (<TensorBase>out)._storage.device == ta._storage.device):
            tb = tb.to(ta._storage.device)
            b = tb
        else:
            _raise_two_devices(ta._storage.device, tb._storage.device)
    if (ta is not None and _tracked(ta)) or (tb is not None and _tracked(tb)):
        if out is not None:
            raise RuntimeError(f"{op.name}(): functions with out=... arguments don't support "
                               "automatic differentiation, but one of the arguments requires grad.")
        if op.function is not None and _apply_c != NULL:
            return _apply_c(op.function, (a, b), None)
    ct = _result_type_seq((a, b))
    if op.result == RES_FLOAT and ct._category < KIND_FLOAT:
        ct = default_float()
    op.check_dtype(ct)
    if op is SUB and ((ta is not None and ta._dtype._category == KIND_BOOL) or
                      (tb is not None and tb._dtype._category == KIND_BOOL) or
                      isinstance(a, bool) or isinstance(b, bool)):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")
    res_dt = _BOOL if op.result == RES_BOOL else ct
    if ta is None:
        a = _number_operand(a, ct, tb._dtype)
    elif tb is None:
        b = _number_operand(b, ct, ta._dtype)
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
    if op is POW and ct._category < KIND_FLOAT and tb is None and b < 0:
        raise RuntimeError("Integers to negative integer powers are not allowed.")
    # (a device tensor divisor is checked by the device kernel, which reports zeros)
    if op.zero_check and ct._category < KIND_FLOAT and (tb is None or _on_cpu(tb)):
        divisor = as_ndarray(tb) if tb is not None else b
        if not np.all(divisor):
            raise RuntimeError("ZeroDivisionError")
    if (op.c_op >= 0 and cg_has_binary(op.c_op, ct.code) and to._dtype is res_dt
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
            _device_op("binary", op.name, to, a, b, ct)
            if out is not None:
                to._storage.version += 1
            return to
        if (ct.code == DT_FLOAT16 or ct.code == DT_BFLOAT16) and (ta is None or tb is None):
            # PyTorch computes a half tensor with a Python number in float32, so
            # 0 * 1e10 is 0 (not 0 * inf) and only the result rounds to half.
            ct = _dtype_mod.float32
        token = _quiet_enter()   # the operands' casts may overflow too
        try:
            if ct._category == KIND_COMPLEX and ((ta is not None and ta._storage is to._storage)
                                            or (tb is not None and tb._storage is to._storage)):
                # NumPy rounds a complex64 0-d product written over its own input
                # differently (another loop): compute apart so that x.mul_(y) equals x * y
                tmp = new_empty(to._dtype, to._ndim, to._shape, CPU)
                _call_ufunc_raw(op, (_np_operand(a, ct), _np_operand(b, ct)), as_ndarray(tmp), ct)
                copy_into(to, tmp)
            elif (op is POW and tb is None and type(b) is float and (b == 0.5 or b == -0.5)
                    and ct._category == KIND_FLOAT):
                _pow_half(_np_operand(a, ct), b, as_ndarray(to), to._dtype.code == DT_FLOAT16)
            elif (op is POW and tb is None and (type(b) is int or type(b) is float)
                    and (b == 2 or b == 3 or b == -1 or b == -2) and ct._category == KIND_FLOAT):
                _pow_small_int(_np_operand(a, ct), <int>b, as_ndarray(to))
            else:
                _call_ufunc_raw(op, (_np_operand(a, ct), _np_operand(b, ct)), as_ndarray(to), ct)
        finally:
            _quiet_exit(token)
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
        if op is LOGICAL_NOT and tx._is_contig and _on_cpu(tx) and cg_has_binary(CG_EQ, tx._dtype.code):
            return _logical_not_c(tx)
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
    if op.result == RES_FLOAT and ct._category < KIND_FLOAT:
        ct = default_float()
    elif op is SQUARE and ct._category == KIND_BOOL:
        ct = _dtype_mod.int64          # torch: square promotes bool like pow(x, 2)
    op.check_dtype(ct)
    res_dt = _dtype_mod.bool_ if op.result == RES_BOOL else ct
    if (op is ABS or op is ANGLE) and ct._category == KIND_COMPLEX:
        res_dt = ct.to_real()          # |z| and arg z are real
    if out is None:
        to = new_empty(res_dt, tx._ndim, tx._shape, tx._storage.device)
    else:
        if op.out_rule != OUT_CAST and out is not x:      # (x.relu_() writes into x)
            _check_out_rule(op, out, res_dt)
        to = _prepare_out(out, op.name, res_dt, tx._ndim, tx._shape)
        if _overlaps(to, tx):
            tx = tx.clone()
    if to._numel == 0:
        if out is not None:
            to._storage.version += 1
        return to
    if not _on_cpu(to):
        _device_op("unary", op.name, to, tx, None, ct)
        if out is not None:
            to._storage.version += 1
        return to
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
    elif op.c_op >= 0 and ct._category == KIND_FLOAT and cg_has_unary(op.c_op, DT_FLOAT32):
        # float16/bfloat16 without a kernel or a ufunc: compute in float32
        _unary_c(op.c_op, _cast(tx, _dtype_mod.float32), to)
    elif ct._category == KIND_COMPLEX and op.name in _COMPLEX_UFUNCS:
        tmp = new_empty(to._dtype, to._ndim, to._shape, CPU)
        with np.errstate(all="ignore"):
            _COMPLEX_UFUNCS[op.name](_np_operand(tx, ct), out=as_ndarray(tmp))
        copy_into(to, tmp)
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
    if isinstance(other, TensorBase) and _cpu_scalar(<TensorBase>other) and not _on_cpu(self):
        other = other.to(self._storage.device)       # a CPU scalar tensor, as PyTorch
    if isinstance(other, TensorBase):
        to = <TensorBase>other
        nd = _broadcast(self._ndim, self._shape, to._ndim, to._shape, shape)
        if nd != self._ndim or any([shape[i] != self._shape[i] for i in range(nd)]):
            raise RuntimeError(f"output with shape {_shape_str(self._ndim, self._shape)} doesn't "
                               f"match the broadcast shape {_shape_str(nd, shape)}")
    elif not _is_scalar(other):
        return NotImplemented
    ct = _result_type_seq((self, other))
    if op.result == RES_FLOAT and ct._category < KIND_FLOAT:
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
    if op is ABS and ct._category == KIND_COMPLEX:       # |z| is real: it cannot go back into z
        raise RuntimeError("In-place abs is not supported for complex tensors.")
    if op.result == RES_FLOAT and ct._category < KIND_FLOAT:
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
    elif src._dtype._category == KIND_COMPLEX and dst._dtype._category != KIND_COMPLEX:
        warnings.warn("Casting complex values to real discards the imaginary part",
                      UserWarning, stacklevel=2)
        np.copyto(as_ndarray(dst), as_ndarray(src).real, casting="unsafe")
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

# Elementwise ops and fills on a tensor off the CPU: the device backend computes
# them through the kernel table (cygrad/cuda/tensors.py sets the hook), so no CPU
# kernel below ever reads a device pointer.
cdef object _device_op_hook = None

def _set_device_op_hook(fn):
    global _device_op_hook
    _device_op_hook = fn

cdef void _device_op(str kind, str name, TensorBase to, object a, object b, DType ct) except *:
    if _device_op_hook is None:
        from ..cuda import _lazy_init
        _lazy_init()
    _device_op_hook(kind, name, to, a, b, ct)

def _copy_into(TensorBase dst, TensorBase src):
    copy_into(dst, src)

cdef TensorBase _scalar_tensor(object x, DType dt):
    if dt._category != KIND_COMPLEX and isinstance(x, complex):
        raise RuntimeError(f"value cannot be converted to type {dt.name} without overflow")
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

cdef bint _bound_fits(object x, DType dt):
    """Does the Python number ``x`` (or None) fit ``dt`` as it is, with no promotion,
    wrapping or range error for :func:`clamp_numbers` to mimic?"""
    cdef int overflow = 0
    cdef long long v
    if x is None:
        return True
    if type(x) is float:
        if dt.code == DT_FLOAT64:
            return True
        # float32: in range, or one of the IEEE values c10 lets through
        return dt.code == DT_FLOAT32 and (x != x or -_FLOAT32_MAX <= x <= _FLOAT32_MAX
                                          or x == _INF or x == -_INF)
    if type(x) is not int:
        return False
    v = PyLong_AsLongLongAndOverflow(x, &overflow)
    if overflow:
        return False
    if dt.code == DT_INT32:
        return -2147483648 <= v <= 2147483647
    return True          # int64, float32, float64 hold every int64 without an error

cdef double _FLOAT32_MAX = 3.4028234663852886e38
cdef double _INF = float("inf")

def clamp_numbers(TensorBase t, lo, hi):
    """``clamp(t, lo, hi)`` with Python-number bounds (one may be None) in one output
    and one kernel pass per bound, when that is all it takes: a contiguous CPU tensor
    outside autograd, with a maximum/minimum kernel for its dtype, that holds both
    bounds as they are. ``None`` when it does not apply: the caller takes the
    general route (promotion, range errors, autograd).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._core.tensor import clamp_numbers
    >>> clamp_numbers(cygrad.tensor([-2.0, 0.5, 3.0]), -1, 1).tolist()
    [-1.0, 0.5, 1.0]
    >>> clamp_numbers(cygrad.tensor([1, 2]), 0.5, None) is None     # promotes to float
    True
    """
    cdef ScalarBuf buf
    cdef TensorBase to, src = t
    cdef Py_ssize_t n = t._numel
    cdef cg_index one = 1, zero = 0
    cdef int code = t._dtype.code
    if (lo is None and hi is None) or not (t._is_contig and _on_cpu(t) and not _tracked(t)
                                           and cg_has_binary(CG_MAXIMUM, code)
                                           and _bound_fits(lo, t._dtype) and _bound_fits(hi, t._dtype)):
        return None
    to = new_empty(t._dtype, t._ndim, t._shape, CPU)
    # min(max(x, lo), hi): NaN stays NaN, and lo > hi gives hi, as in PyTorch
    if lo is not None:
        _fill_scalar(&buf, lo, t._dtype)
        run_binary(CG_MAXIMUM, code, 1, &n, n, to.ptr(), &one, src.ptr(), &one, <char*>&buf, &zero,
                   to._storage, src._storage, None)
        src = to
    if hi is not None:
        _fill_scalar(&buf, hi, t._dtype)
        run_binary(CG_MINIMUM, code, 1, &n, n, to.ptr(), &one, src.ptr(), &one, <char*>&buf, &zero,
                   to._storage, src._storage, None)
    return to

def binary_op(ElementwiseOp op, a, b, out=None):
    return binary(op, a, b, out)

def unary_op(ElementwiseOp op, x, out=None):
    return unary(op, x, out)

def binary_op_(ElementwiseOp op, TensorBase self, other):
    res = binary_inplace(op, self, other)
    if res is NotImplemented:
        # (``x *= y`` wants NotImplemented back, for Python's own TypeError; a method call
        # must raise, or ``x.mul_(None)`` would change nothing and report nothing)
        raise TypeError(f"{op.name}_(): argument 'other' (position 1) must be Tensor, "
                        f"not {type(other).__name__}")
    return res

def unary_op_(ElementwiseOp op, TensorBase self):
    return unary_inplace(op, self)

# ------------------------------------------------------------------------ op table
# One ElementwiseOp per elementwise op. cygrad/ops/elementwise/ gives each its
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
        b = np.asarray(b)
        if b.dtype.kind == "f" and np.any(b == 0.5):
            # NumPy takes sqrt for an exponent of 0.5 broadcast from one value ((-0.0) ->
            # -0.0, (-inf) -> nan); PyTorch's pow by a tensor does not (a number
            # exponent is _pow_half's): an exponent array of full size has no shortcut
            b = np.array(np.broadcast_to(b, np.broadcast_shapes(np.shape(a), b.shape)))
        return np.power(a, b, out=out, casting=casting)
    a, b = np.asarray(a), np.asarray(b)
    negative = b < 0
    special = None
    if np.any(negative):
        # (read before ``out`` is written: in ``x.pow_(e)`` it is ``a`` itself)
        odd = (b % 2) != 0
        special = np.where(a == 1, 1, np.where(a == -1, np.where(odd, -1, 1), 0))
    result = np.power(a, np.maximum(b, 0), out=out, casting=casting)
    if special is not None:
        np.copyto(out, special.astype(out.dtype), where=np.broadcast_to(negative, out.shape))
    return result

def _pow_small_int(x, int e, out):
    """``x ** e`` for a number ``e`` of 2, 3, -1 or -2 as PyTorch computes it: by
    products (``x * x * x``), not C's pow, which for a negative base and an integral
    exponent takes a slow path (a 1M-element float32 ``x ** 3``: 90 ms in NumPy's
    power, 2 ms in PyTorch). ``out`` may be ``x`` itself (``x.pow_(3)``)."""
    if e == -1:
        np.divide(1, x, out=out)
        return
    if e == 2:
        np.multiply(x, x, out=out)
        return
    sq = np.multiply(x, x)        # in x's dtype (float32 for half types), apart from out
    if out.dtype.name == "bfloat16":
        sq = sq.astype(out.dtype).astype(x.dtype)    # PyTorch rounds x * x to bfloat16 first
    if e == 3:
        np.multiply(sq, x, out=out)
    else:
        np.divide(1, sq, out=out)

def _pow_half(x, double b, out, bint half):
    """``x ** b`` for a number ``b`` of +-0.5 as PyTorch computes it.  NumPy's power
    takes sqrt for 0.5 on every float dtype; PyTorch does on float32/64 and bfloat16,
    and computes ``x ** -0.5`` as rsqrt there (-0.0 -> -inf, -inf -> nan), but its
    float16 kernel has no such shortcut (C's pow: (-inf) ** 0.5 = inf)."""
    if half:
        out[...] = np.power(x, np.full(x.shape, b, x.dtype))
    elif b == -0.5:
        out[...] = np.reciprocal(np.sqrt(x))
    else:
        out[...] = np.sqrt(x)

def _isfinite(x, out=None, casting="unsafe"):
    return np.isfinite(x, out=out)

def _angle_ufunc(x, out=None, casting="unsafe"):
    if x.dtype.kind == "c":
        out[...] = np.angle(x)
    else:   # torch: pi for negatives, 0 otherwise (also for -0.0); NaN stays NaN
        out[...] = np.where(x < 0, np.pi, np.where(np.isnan(x), x, 0))
    return out

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
cdef ElementwiseOp EQ = ElementwiseOp("eq", 2, CG_EQ, np.equal, result=RES_BOOL)
cdef ElementwiseOp NE = ElementwiseOp("ne", 2, CG_NE, np.not_equal, result=RES_BOOL)
cdef ElementwiseOp LT = ElementwiseOp("lt", 2, CG_LT, np.less, result=RES_BOOL)
cdef ElementwiseOp LE = ElementwiseOp("le", 2, CG_LE, np.less_equal, result=RES_BOOL)
cdef ElementwiseOp GT = ElementwiseOp("gt", 2, CG_GT, np.greater, result=RES_BOOL)
cdef ElementwiseOp GE = ElementwiseOp("ge", 2, CG_GE, np.greater_equal, result=RES_BOOL)
cdef ElementwiseOp LOGICAL_AND = ElementwiseOp("logical_and", 2, CG_LOGICAL_AND, np.logical_and, result=RES_BOOL)
cdef ElementwiseOp LOGICAL_OR = ElementwiseOp("logical_or", 2, CG_LOGICAL_OR, np.logical_or, result=RES_BOOL)
cdef ElementwiseOp LOGICAL_XOR = ElementwiseOp("logical_xor", 2, CG_LOGICAL_XOR, np.logical_xor, result=RES_BOOL)
cdef ElementwiseOp BITWISE_AND = ElementwiseOp("bitwise_and", 2, -1, np.bitwise_and, inputs=IN_INTEGRAL)
cdef ElementwiseOp BITWISE_OR = ElementwiseOp("bitwise_or", 2, -1, np.bitwise_or, inputs=IN_INTEGRAL)
cdef ElementwiseOp BITWISE_XOR = ElementwiseOp("bitwise_xor", 2, -1, np.bitwise_xor, inputs=IN_INTEGRAL)
cdef ElementwiseOp LSHIFT = ElementwiseOp("bitwise_left_shift", 2, -1, np.left_shift, inputs=IN_INTEGRAL)
cdef ElementwiseOp RSHIFT = ElementwiseOp("bitwise_right_shift", 2, -1, np.right_shift, inputs=IN_INTEGRAL)

cdef ElementwiseOp NEG = ElementwiseOp("neg", 1, CG_NEG, np.negative, inputs=IN_NO_BOOL, out_rule=OUT_EXACT)
cdef ElementwiseOp ABS = ElementwiseOp("abs", 1, CG_ABS, np.abs, inputs=IN_NO_BOOL, out_rule=OUT_EXACT)
cdef ElementwiseOp SIGN = ElementwiseOp("sign", 1, -1, _sign_ufunc, out_rule=OUT_EXACT)
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
cdef ElementwiseOp ASINH = ElementwiseOp("asinh", 1, CG_ASINH, np.arcsinh, result=RES_FLOAT)
cdef ElementwiseOp ACOSH = ElementwiseOp("acosh", 1, CG_ACOSH, np.arccosh, result=RES_FLOAT)
cdef ElementwiseOp ATANH = ElementwiseOp("atanh", 1, CG_ATANH, np.arctanh, result=RES_FLOAT)
cdef ElementwiseOp SIGMOID = ElementwiseOp("sigmoid", 1, CG_SIGMOID, None, result=RES_FLOAT)
cdef ElementwiseOp RELU = ElementwiseOp("relu", 1, CG_RELU, _relu_ufunc, inputs=IN_NO_BOOL, out_rule=OUT_NONE)
cdef ElementwiseOp ERF = ElementwiseOp("erf", 1, CG_ERF, None, result=RES_FLOAT)
cdef ElementwiseOp ERFC = ElementwiseOp("erfc", 1, CG_ERFC, None, result=RES_FLOAT)
cdef ElementwiseOp FLOOR = ElementwiseOp("floor", 1, CG_FLOOR, np.floor, inputs=IN_NO_BOOL, out_rule=OUT_EXACT)
cdef ElementwiseOp CEIL = ElementwiseOp("ceil", 1, CG_CEIL, np.ceil, inputs=IN_NO_BOOL, out_rule=OUT_EXACT)
cdef ElementwiseOp TRUNC = ElementwiseOp("trunc", 1, CG_TRUNC, np.trunc, inputs=IN_NO_BOOL, out_rule=OUT_EXACT)
cdef ElementwiseOp ROUND = ElementwiseOp("round", 1, CG_ROUND, np.rint, inputs=IN_NO_BOOL, out_rule=OUT_EXACT)
cdef ElementwiseOp FRAC = ElementwiseOp("frac", 1, CG_FRAC, _frac_ufunc, inputs=IN_FLOAT, out_rule=OUT_EXACT)
cdef ElementwiseOp RECIPROCAL = ElementwiseOp("reciprocal", 1, CG_RECIPROCAL, np.reciprocal, result=RES_FLOAT)
cdef ElementwiseOp SQUARE = ElementwiseOp("square", 1, CG_SQUARE, np.square)
cdef ElementwiseOp LOGICAL_NOT = ElementwiseOp("logical_not", 1, -1, np.logical_not, result=RES_BOOL)
cdef ElementwiseOp BITWISE_NOT = ElementwiseOp("bitwise_not", 1, -1, np.invert, inputs=IN_INTEGRAL, out_rule=OUT_EXACT)
cdef ElementwiseOp ISNAN = ElementwiseOp("isnan", 1, -1, np.isnan, result=RES_BOOL, out_rule=OUT_NONE)
cdef ElementwiseOp ISINF = ElementwiseOp("isinf", 1, -1, np.isinf, result=RES_BOOL, out_rule=OUT_NONE)
cdef ElementwiseOp ISFINITE = ElementwiseOp("isfinite", 1, -1, _isfinite, result=RES_BOOL, out_rule=OUT_NONE)
# complex-aware ops: conj (a copy; real tensors pass through), angle and |z| (real results)
cdef ElementwiseOp CONJ = ElementwiseOp("conj_physical", 1, -1, np.conjugate)
cdef ElementwiseOp ANGLE = ElementwiseOp("angle", 1, -1, _angle_ufunc, result=RES_FLOAT)
cdef ElementwiseOp SGN = ElementwiseOp("sgn", 1, -1, _sign_ufunc, out_rule=OUT_EXACT)

ELEMENTWISE_OPS = {op.name: op for op in (
    ADD, SUB, MUL, DIV, FLOOR_DIVIDE, REMAINDER, FMOD, POW, ATAN2, HYPOT, MAXIMUM, MINIMUM,
    FMAX, FMIN, EQ, NE, LT, LE, GT, GE, LOGICAL_AND, LOGICAL_OR, LOGICAL_XOR, BITWISE_AND,
    BITWISE_OR, BITWISE_XOR, LSHIFT, RSHIFT, NEG, ABS, SIGN, EXP, EXP2, EXPM1, LOG, LOG2,
    LOG10, LOG1P, SQRT, RSQRT, SIN, COS, TAN, ASIN, ACOS, ATAN, SINH, COSH, TANH, ASINH,
    ACOSH, ATANH, SIGMOID,
    RELU, ERF, ERFC, FLOOR, CEIL, TRUNC, ROUND, FRAC, RECIPROCAL, SQUARE, LOGICAL_NOT,
    BITWISE_NOT, ISNAN, ISINF, ISFINITE, CONJ, ANGLE, SGN)}
