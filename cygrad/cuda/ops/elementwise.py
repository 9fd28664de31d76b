"""The 'cuda' kernels of the elementwise family: every op of the core's
elementwise table (``ElementwiseOp`` rows: ``sin``, ``pow``, ``eq``,
``bitwise_and`` ...), dtype casts, fills, ``where``/``masked_fill``,
``nan_to_num``, ``frexp`` and tril/triu's zeroing, launched from
``cuda_src/elementwise_math.cu``.

The core's elementwise dispatcher has already checked the arguments, promoted
the dtypes and allocated the output when it calls :func:`device_op` (through
``cygrad.cuda.tensors``' hook): here the operands are cast to the computing
dtype ``ct`` on the device, the kernel of ``(op, ct)`` runs over the broadcast
geometry (dims contiguous in every operand merged into one), and a result of
another dtype than ``out``'s (an ``out=`` of a wider dtype) is cast into
``out`` by the cast kernel.

Dtypes: bool, uint8, int8/16/32/64, float16 and bfloat16 (computed in float32),
float32, float64, complex64 and complex128, each where the op applies;
a dtype an op has no kernel for raises ``NotImplementedError`` naming the
primitive, the dtype and the device.

Examples
--------
>>> from cygrad.cuda.ops import elementwise
>>> "sin" in elementwise.PRIMITIVES and "copy_cast" in elementwise.PRIMITIVES
True
"""
import warnings

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core import tensor as _C
from .. import kernels as _k
from .. import tensors as _tensors
from ..tensors import _expanded_strides, _same_device

FILE = "elementwise_math.cu"

_SFX = {"bool": "b8", "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32",
        "int64": "i64", "float16": "f16", "bfloat16": "bf16", "float32": "f32",
        "float64": "f64", "complex64": "c64", "complex128": "c128"}
# kernels that only move bytes exist once per element size
_SIZE_SFX = {1: "u8", 2: "i16", 4: "i32", 8: "i64", 16: "c128"}

_F = ("float16", "bfloat16", "float32", "float64")
_I = ("uint8", "int8", "int16", "int32", "int64")
_B = ("bool",)
_CX = ("complex64", "complex128")
_ALL = _B + _I + _F + _CX

_COMPLEX_MATH = ("exp", "exp2", "expm1", "log", "log2", "log10", "log1p", "sqrt", "rsqrt", "sin",
                 "cos", "tan", "sinh", "cosh", "tanh", "sigmoid", "reciprocal", "asin", "acos",
                 "atan", "asinh", "acosh", "atanh")
_REAL_MATH = ("erf", "erfc", "frac")

#: op name -> the dtypes its kernel covers (the computing dtype)
UNARY_DTYPES = {
    **{name: _F + _CX for name in _COMPLEX_MATH},
    **{name: _F for name in _REAL_MATH},
    "neg": _I + _F + _CX, "square": _I + _F + _CX, "abs": _I + _F + _CX,
    "sign": _B + _I + _F, "sgn": _B + _I + _F + _CX, "angle": _F + _CX,
    "floor": _I + _F, "ceil": _I + _F, "trunc": _I + _F, "round": _I + _F,
    "relu": _I + _F, "bitwise_not": _B + _I, "logical_not": _ALL,
    "isnan": _ALL, "isinf": _ALL, "isfinite": _ALL, "conj_physical": _ALL,
    # rows of cygrad/_core/special_table.py
    "lgamma": _F, "digamma": _F, "erfinv": _F, "ndtr": _F, "entr": _F, "sinc": _F + _CX,
    "i0": _F, "i0e": _F, "i1": _F, "i1e": _F,
    **{name: ("float32", "float64") for name in ("erfcx", "ndtri", "log_ndtr")},
    "modified_bessel_i0": ("float32", "float64"), "modified_bessel_i1": ("float32", "float64"),
    "signbit": _B + _I + _F, "isposinf": _B + _I + _F, "isneginf": _B + _I + _F,
}
BINARY_DTYPES = {
    **{name: _ALL for name in ("add", "mul", "eq", "ne", "logical_and", "logical_or",
                               "logical_xor")},
    "sub": _I + _F + _CX, "div": _F + _CX, "pow": _I + _F + _CX,
    **{name: _I + _F for name in ("floor_divide", "remainder", "fmod")},
    **{name: _F for name in ("atan2", "hypot")},
    **{name: _B + _I + _F for name in ("maximum", "minimum", "fmax", "fmin", "lt", "le", "gt",
                                      "ge")},
    **{name: _B + _I for name in ("bitwise_and", "bitwise_or", "bitwise_xor")},
    **{name: _I for name in ("bitwise_left_shift", "bitwise_right_shift")},
    # rows of cygrad/_core/special_table.py
    **{name: _F for name in ("xlogy", "xlog1py", "logaddexp", "logaddexp2", "copysign")},
    "nextafter": ("float32", "float64"), "zeta": ("float32", "float64"), "polygamma": _F,
    "heaviside": _B + _I + _F, "gcd": _I, "lcm": _I,
}
_BOOL_RESULT = {"eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
                "logical_not", "isnan", "isinf", "isfinite", "signbit", "isposinf", "isneginf"}
_ZERO_CHECKED = {"floor_divide", "remainder", "fmod"}
# ops that leave a value of these dtypes as it is: a copy
_IDENTITY = {"floor": _I, "ceil": _I, "trunc": _I, "round": _I, "sign": _B, "sgn": _B,
             "conj_physical": _B + _I + _F}
# ops computed by another op's kernel
_SAME_KERNEL = {"modified_bessel_i0": "i0", "modified_bessel_i1": "i1"}
# tests whose answer for these dtypes is a constant: (value, dtypes)
_CONSTANT = {"isnan": (False, _B + _I), "isinf": (False, _B + _I), "isfinite": (True, _B + _I),
             "isposinf": (False, _B + _I), "isneginf": (False, _B + _I), "signbit": (False, _B)}

#: every primitive this module gives a 'cuda' kernel
PRIMITIVES = (tuple(UNARY_DTYPES) + tuple(BINARY_DTYPES)
              + ("fill", "copy_cast", "where_select", "where_small", "masked_fill",
                 "nan_to_num", "round_scalar", "frexp", "triangle_zero"))

_FINFO_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
              "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}


def _no_kernel(primitive, dtype):
    return NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype {dtype} "
                               f"on device cuda (docs/cuda.md lists the dtypes of each op)")


# ---------------------------------------------------------------- launching

def _collapse(shape, strides):
    """``shape`` and each operand's strides with size-1 dims dropped and each dim
    merged into the one before it where that is contiguous in every operand, so a
    dense tensor is one dim and the kernels' index arithmetic stays cheap."""
    dims = [(size, [st[d] for st in strides]) for d, size in enumerate(shape) if size != 1]
    merged = []
    for size, sts in dims:
        if merged and all(p == s * size for p, s in zip(merged[-1][1], sts)):
            merged[-1] = (merged[-1][0] * size, sts)
        else:
            merged.append((size, sts))
    return (tuple(m[0] for m in merged),
            [tuple(m[1][i] for m in merged) for i in range(len(strides))])


_geometries = {}        # (out shape, out strides, (shape, strides) of each operand) -> (n, geometry, grid)
_MAX_GEOMETRIES = 4096
_BLOCK = (_k.BLOCK, 1, 1)


def _geometry(out, operands):
    """``(n, geometry bytes, grid)`` of a launch over ``out`` with ``operands``
    broadcast to its shape; kept per shapes and strides, so a repeated op skips
    the collapsing and packing."""
    shape = out.shape
    key = (shape, out.stride())
    for t in operands:          # (no list comprehension's frame on every op)
        key += ((t.shape, t.stride()),)
    hit = _geometries.get(key)
    if hit is None:
        n = out.numel()
        shape = tuple(shape)
        strides = [tuple(out.stride())] + [_expanded_strides(t, shape) for t in operands]
        shape, strides = _collapse(shape, strides)
        if len(_geometries) >= _MAX_GEOMETRIES:
            _geometries.clear()
        hit = _geometries[key] = (n, _k.geometry(shape, *strides), _k.grid_1d(n))
    return hit


def _launch(kernel, out, operands, extra=(), file=FILE):
    """Run ``kernel`` of ``cuda_src/<file>`` over ``out``'s elements:
    ``(n, geometry, out, *operands, *extra)``, the operands (at most two tensors)
    broadcast to ``out``'s shape."""
    n, geo, grid = _geometry(out, operands)
    if n == 0:
        return out
    _k.launch(out.device.index, file, kernel, grid, _BLOCK,
              (n, geo, out.data_ptr(), *[t.data_ptr() for t in operands], *extra))
    return out


def _empty(shape, dtype, device):
    return _C._empty(tuple(shape), dtype, device)


# ---------------------------------------------------------------- casts and fills

def cast_into(out, src):
    """``out[...] = src`` on one device: ``src`` broadcast to ``out``'s shape and
    converted to its dtype (to bool: nonzero; complex to real: the real part, with
    PyTorch's warning; floating to integer: through int64).

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import cast_into
    >>> callable(cast_into)
    True
    """
    if src.dtype is out.dtype:
        kernel = f"cg_copy_{_SIZE_SFX[out.dtype.itemsize]}_strided"
    else:
        if src.dtype.is_complex and not out.dtype.is_complex:
            warnings.warn("Casting complex values to real discards the imaginary part",
                          UserWarning, stacklevel=3)
        kernel = f"cg_cast_{_SFX[src.dtype.name]}_{_SFX[out.dtype.name]}_strided"
    if _partly_overlap(out, src):
        src = cast(src, src.dtype)          # (read a source that out overwrites first)
    return _launch(kernel, out, (src,))


def _span(t):
    """The bytes [first, last) that ``t``'s elements occupy."""
    lo = hi = t.data_ptr()
    for size, st in zip(t.shape, t.stride()):
        if size == 0:
            return lo, lo
        step = (size - 1) * st * t.dtype.itemsize
        lo, hi = (lo + step, hi) if step < 0 else (lo, hi + step)
    return lo, hi + t.dtype.itemsize


def _partly_overlap(out, src):
    """Do ``out`` and ``src`` share memory without being the same view?"""
    if (src.data_ptr() == out.data_ptr() and tuple(src.shape) == tuple(out.shape)
            and tuple(src.stride()) == tuple(out.stride())):
        return False
    (a0, a1), (b0, b1) = _span(out), _span(src)
    return a0 < b1 and b0 < a1


def cast(t, dtype):
    """``t`` converted to ``dtype`` in a new contiguous tensor on its device.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import cast
    >>> callable(cast)
    True
    """
    return cast_into(_empty(t.shape, dtype, t.device), t)


def copy_cast(x, out=None, casting="unsafe"):
    """``out[...] = x`` with a dtype conversion, on the device (the 'cuda' form of
    the CPU kernel of the same name); returns ``out``.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda.ops import elementwise
    >>> elementwise.register()
    >>> dispatch.kernel("copy_cast", "cuda") is elementwise.copy_cast
    True
    """
    return cast_into(out, x)


def fill(out, value):
    """``out[...] = value`` (any dtype, any strides); returns ``out``.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import fill
    >>> callable(fill)
    True
    """
    dt = out.dtype
    return _launch(f"cg_fill_{_SFX[dt.name]}_strided", out, (), _number_args(value, dt))


def _scalar(value, dtype, device):
    """A 0-d tensor of ``dtype`` on ``device`` holding the number ``value``."""
    return fill(_empty((), dtype, device), value)


def _operand(x, ct, device):
    """A tensor operand in dtype ``ct`` on ``device``; a number becomes a 0-d tensor."""
    if isinstance(x, _C.TensorBase):
        return x if x.dtype is ct else cast(x, ct)
    return _scalar(x, ct, device)


# ---------------------------------------------------------------- the ops

def _result_dtype(name, ct):
    if name in _BOOL_RESULT:
        return _dt.bool_
    if name in ("abs", "angle") and ct.is_complex:
        return ct.to_real()
    return ct


def unary(name, out, x):
    """``out[...] = name(x)``: ``x`` in the computing dtype, ``out`` of the op's
    result dtype (bool for tests, real for ``abs``/``angle`` of complex numbers).

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import unary
    >>> callable(unary)
    True
    """
    ct = x.dtype
    if ct.name in _IDENTITY.get(name, ()):
        return cast_into(out, x)
    value, dtypes = _CONSTANT.get(name, (None, ()))
    if ct.name in dtypes:
        return fill(out, value)
    if ct.name not in UNARY_DTYPES.get(name, ()):
        raise _no_kernel(name, ct)
    kernel = _SAME_KERNEL.get(name, name)
    if name == "sgn" and not ct.is_complex:
        kernel = "sign"
    return _launch(f"cg_{kernel}_{_SFX[ct.name]}_strided", out, (x,))


def binary(name, out, a, b):
    """``out[...] = name(a, b)``, ``a`` and ``b`` tensors of one computing dtype
    broadcast to ``out``'s shape; integer division by zero raises PyTorch's CPU
    error (``RuntimeError: ZeroDivisionError``), read back from one device flag.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import binary
    >>> callable(binary)
    True
    """
    ct = a.dtype
    if ct.name not in BINARY_DTYPES.get(name, ()):
        raise _no_kernel(name, ct)
    kernel = f"cg_{name}_{_SFX[ct.name]}_strided"
    if name not in _ZERO_CHECKED:
        return _launch(kernel, out, (a, b))
    if ct.is_floating_point:
        return _launch(kernel, out, (a, b), (0,))       # (no flag: x / 0 is inf or NaN)
    flag = _scalar(0, _dt.int32, out.device)
    _launch(kernel, out, (a, b), (flag.data_ptr(),))
    if flag.item():
        raise RuntimeError("ZeroDivisionError")
    return out


#: binary ops with a kernel that takes a Python number as an argument (``cg_<op>_<dtype>_number``)
_NUMBER_KERNELS = ("add", "sub", "mul", "div", "pow", "eq", "ne", "lt", "le", "gt", "ge",
                   "maximum", "minimum", "floor_divide", "remainder", "fmod")


def _number_args(value, dt):
    """A number as the fill kernels and the number kernels take it: ``(re, im, iv)``."""
    if dt.is_complex or dt.is_floating_point:
        z = complex(value)
        return z.real, z.imag, 0
    # (the core has already checked and wrapped integer values)
    return 0.0, 0.0, int(bool(value)) if dt is _dt.bool_ else int(value)


def with_number(name, out, x, value, first=False, ct=None):
    """``out[...] = name(x, value)``, or ``name(value, x)`` where ``first``: ``x`` a
    tensor (cast to the computing dtype ``ct``, by default ``out``'s, if it is not
    of it; ``out`` is bool for a comparison), ``value`` a Python number passed to
    the kernel as an argument (one launch: no fill of a 0-d tensor); a float16 or
    bfloat16 ``x`` computes in float32 with the number unrounded, as on the CPU.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import with_number
    >>> callable(with_number)
    True
    """
    ct = out.dtype if ct is None else ct
    if x.dtype is not ct:
        x = cast(x, ct)
    return _launch(f"cg_{name}_{_SFX[ct.name]}_number", out, (x,),
                   _number_args(value, ct) + (1 if first else 0,))


def _divides_safely(a, number, ct):
    """Can ``floor_divide``/``remainder``/``fmod`` of tensor ``a`` by ``number`` take the
    number kernel, which has no division-by-zero report? Yes for a number divisor that
    is nonzero or floating (x / 0 is inf or NaN there); a number dividend divides by
    the tensor's elements, which the checked kernel reads."""
    return isinstance(a, _C.TensorBase) and (ct.is_floating_point or number != 0)


def _kernel_for(name, arity):
    def run(out, *args):
        return unary(name, out, *args) if arity == 1 else binary(name, out, *args)
    run.__name__ = f"cuda_{name}"
    run.__doc__ = (f"out[...] = {name}({'x' if arity == 1 else 'a, b'}) on the device "
                   f"(cuda_src/{FILE}).")
    return run


def _table_kernel(name, ct):
    """The kernel table's 'cuda' entry of ``name`` (this module's, unless one was
    registered over it), or ``NotImplementedError`` naming the op, dtype and device."""
    fn = dispatch.lookup(name, "cuda", ct)
    if fn is None:
        raise _no_kernel(name, ct)
    return fn


def device_op(kind, name, out, a, b, ct):
    """The core's hook for an elementwise op or fill whose output is a CUDA tensor:
    ``kind`` is ``"unary"``, ``"binary"`` or ``"fill"``; ``a``/``b`` are tensors or
    numbers (already checked and wrapped by the dispatcher), ``ct`` the computing dtype.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import device_op
    >>> callable(device_op)
    True
    """
    if kind == "fill":
        fill(out, a)
        return
    _same_device(out, a, b)
    dev = out.device
    if kind == "unary":
        if name == "copy":                     # the out= copy of other ops' results
            cast_into(out, a)
            return
        x = _operand(a, ct, dev)
        res_dt = _result_dtype(name, ct)
        target = out if out.dtype is res_dt else _empty(out.shape, res_dt, dev)
        _table_kernel(name, ct)(target, x)
    else:
        number = b if not isinstance(b, _C.TensorBase) else a if not isinstance(a, _C.TensorBase) \
            else None
        if (name == "pow" and isinstance(b, float) and b in (0.5, -0.5)
                and ct.name in ("float32", "float64", "bfloat16")):
            # PyTorch takes sqrt / rsqrt for these exponents ((-0.0) ** 0.5 = -0.0)
            res_dt = ct
            target = out if out.dtype is res_dt else _empty(out.shape, res_dt, dev)
            root = "sqrt" if b > 0 else "rsqrt"
            _table_kernel(root, ct)(target, _operand(a, ct, dev))
        elif (number is not None and name in _NUMBER_KERNELS and ct.name in BINARY_DTYPES[name]
              and (name not in _ZERO_CHECKED or _divides_safely(a, number, ct))):
            res_dt = _result_dtype(name, ct)
            target = out if out.dtype is res_dt else _empty(out.shape, res_dt, dev)
            first = not isinstance(a, _C.TensorBase)
            with_number(name, target, b if first else a, number, first, ct)
        else:
            if number is not None and ct.name in ("float16", "bfloat16"):
                # a half tensor with a Python number computes in float32 (0 * 1e10 is 0)
                ct = _dt.float32
            res_dt = _result_dtype(name, ct)
            target = out if out.dtype is res_dt else _empty(out.shape, res_dt, dev)
            _table_kernel(name, ct)(target, _operand(a, ct, dev), _operand(b, ct, dev))
    if target is not out:
        cast_into(out, target)


# ---------------------------------------------------------------- selection

def _masked_assign(out, mask, src):
    """``out[mask] = src``: ``src`` a tensor on ``out``'s device or a Python number
    (the kernel's argument: one launch, no 0-d tensor filled first)."""
    if mask.dtype.itemsize != 1:
        mask = cast(mask, _dt.bool_)
    if isinstance(src, _C.TensorBase):
        kernel = f"cg_masked_assign_{_SIZE_SFX[out.dtype.itemsize]}_strided"
        return _launch(kernel, out, (mask, src))
    return _launch(f"cg_masked_fill_{_SFX[out.dtype.name]}_strided", out, (mask,),
                   _number_args(src, out.dtype))


def _value(value, dtype, device):
    """A fill value as ``_masked_assign`` takes it: a tensor of ``dtype`` on ``device``,
    or a Python number (also a 0-d tensor's value from another device)."""
    if isinstance(value, _C.TensorBase):
        if value.device != device:
            return value.item()            # (a CPU 0-d value: one number from the host)
        return value if value.dtype is dtype else cast(value, dtype)
    return value


def where_select(out, cond, x, y):
    """``out[...] = where(cond, x, y)``: ``cond`` a bool or uint8 tensor, ``x``/``y``
    tensors or numbers, broadcast to ``out`` and cast to its dtype.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import where_select
    >>> callable(where_select)
    True
    """
    _same_device(out, cond, x, y)
    if isinstance(y, _C.TensorBase):
        cast_into(out, y)
    else:
        fill(out, y)
    return _masked_assign(out, cond, _value(x, out.dtype, out.device))


def where_small(cond, x, y):
    """``where(cond, x, y)`` in a new tensor, ``x`` and ``y`` of one dtype and shape.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import where_small
    >>> callable(where_small)
    True
    """
    return where_select(_empty(x.shape, x.dtype, x.device), cond, x, y)


def masked_fill(out, mask, value, input=None):
    """``out`` set to ``value`` (a number or a 0-d tensor) where ``mask`` is True and
    to ``input`` elsewhere (``input=None``: in place, ``out`` kept there).

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import masked_fill
    >>> callable(masked_fill)
    True
    """
    _same_device(out, mask, input)
    if input is not None:
        cast_into(out, input)
    return _masked_assign(out, mask, _value(value, out.dtype, out.device))


# ---------------------------------------------------------------- other primitives

def nan_to_num(input, nan, posinf, neginf):
    """A copy of ``input`` with NaN/+inf/-inf replaced (None: the dtype's largest or
    smallest finite value); a complex tensor has each part replaced (through its
    real view, by the float kernel), as by the CPU kernel; integer and bool tensors
    are copied unchanged.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import nan_to_num
    >>> callable(nan_to_num)
    True
    """
    dt = input.dtype
    if dt.is_complex:
        import cygrad
        parts = nan_to_num(cygrad.view_as_real(input), nan, posinf, neginf)
        return cygrad.view_as_complex(parts)
    out = _empty(input.shape, dt, input.device)
    if not dt.is_floating_point:
        return cast_into(out, input)
    big = _FINFO_MAX[dt.name]
    posinf = big if posinf is None else posinf
    neginf = -big if neginf is None else neginf
    return _launch(f"cg_nan_to_num_{_SFX[dt.name]}_strided", out, (input,),
                   (float(nan), float(posinf), float(neginf)))


def frexp(input):
    """(mantissa, exponent) of a floating tensor: ``input = mantissa * 2**exponent``,
    ``|mantissa|`` in [0.5, 1), the exponent int32; inf and NaN give (x, 0).

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import frexp
    >>> callable(frexp)
    True
    """
    dt = input.dtype
    if dt.name not in _F:
        raise _no_kernel("frexp", dt)
    mantissa = _empty(input.shape, dt, input.device)
    exponent = _empty(input.shape, _dt.int32, input.device)
    # the geometry's b strides are the exponent's: it is passed as the second operand
    _launch(f"cg_frexp_{_SFX[dt.name]}_strided", mantissa, (input, exponent))
    return mantissa, exponent


def triangle_zero(t, diagonal, lower):
    """Zero, in place, the elements of ``t`` (over its last two dims) outside the
    lower triangle ``j <= i + diagonal`` (``lower``) or the upper one
    ``j >= i + diagonal``; returns ``t``.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import triangle_zero
    >>> callable(triangle_zero)
    True
    """
    if t.numel():
        rows, cols = t.shape[-2], t.shape[-1]
        _launch(f"cg_triangle_zero_{_SIZE_SFX[t.dtype.itemsize]}_strided", t, (),
                (rows, cols, int(diagonal), 1 if lower else 0))
    return t


def round_scalar(value, dtype):
    """The Python float ``value`` rounded to the floating ``dtype`` on the current
    CUDA device (to +-inf beyond its range), read back as a Python float.

    Examples
    --------
    >>> from cygrad.cuda.ops.elementwise import round_scalar
    >>> callable(round_scalar)
    True
    """
    from ... import cuda
    dev = _tensors._device(cuda.current_device())
    rounded = cast(_scalar(float(value), _dt.float64, dev), dtype)
    return float(cast(rounded, _dt.float64).item())


# ---------------------------------------------------------------- the table

def register():
    """Register this family's 'cuda' kernels with the kernel table.

    Examples
    --------
    >>> from cygrad._core import dispatch
    >>> from cygrad.cuda.ops import elementwise
    >>> elementwise.register()
    >>> dispatch.kernel("sin", "cuda").__name__
    'cuda_sin'
    """
    for name in UNARY_DTYPES:
        dispatch.register(name, "cuda")(_kernel_for(name, 1))
    for name in BINARY_DTYPES:
        dispatch.register(name, "cuda")(_kernel_for(name, 2))
    for fn in (fill, copy_cast, where_select, where_small, masked_fill, nan_to_num,
               round_scalar, frexp, triangle_zero):
        dispatch.register(fn.__name__, "cuda")(fn)
