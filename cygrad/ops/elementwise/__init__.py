"""Elementwise ops: every function here is one row of the dispatcher's op table
(``_core/tensor_dispatch.pxi``) plus the PyTorch signature around it.

Their derivatives are ``Function`` classes, one per op, beside this module:
``unary.py`` (``Exp``, ``Sin``, ``Sigmoid`` ...) and ``binary.py`` (``Mul``,
``Div``, ``Pow`` ...). :func:`register` points each op's table row at its class, so
the dispatcher records it when an input requires grad.

Examples
--------
>>> import cygrad
>>> x = cygrad.tensor([0.0, 1.0], requires_grad=True)
>>> y = cygrad.exp(x)
>>> type(y.grad_fn)._forward_cls.__qualname__, y.grad_fn.name()
('Exp', 'ExpBackward0')
"""
import math as _math   # plain ``abs``/``round`` are this module's tensor ops
import struct as _struct

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from .._argcheck import not_tensor, int_arg, bool_arg, float_arg, number_arg, check_scalar_fits
from ..._tensor import Tensor, tensor_method
from ...autograd.function import Function
from ...autograd.inplace import apply_inplace
from ..._core.dispatch import kernel as _kernel

OPS = _C.ELEMENTWISE_OPS

_UNARY = ["neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
          "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
          "tanh", "asinh", "acosh", "atanh", "sigmoid", "relu", "erf", "erfc", "floor", "ceil", "trunc", "frac",
          "reciprocal", "square", "logical_not", "bitwise_not", "isnan", "isinf", "isfinite"]
_BINARY = ["floor_divide", "remainder", "fmod", "atan2", "hypot", "maximum",
           "minimum", "fmax", "fmin", "eq", "ne", "lt", "le", "gt", "ge", "logical_and",
           "logical_or", "logical_xor", "bitwise_and", "bitwise_or", "bitwise_xor",
           "bitwise_left_shift", "bitwise_right_shift"]
# In-place versions PyTorch has (``t.exp_()``); comparisons/tests keep no in-place form here.
_NO_INPLACE = {"isnan", "isinf", "isfinite", "logical_not_x"}

__all__ = list(_UNARY) + list(_BINARY) + [
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow",
    "round", "clamp", "clip", "lerp", "nan_to_num", "positive", "negative", "absolute",
    "arcsin", "arccos", "arctan", "arctan2", "arcsinh", "arccosh", "arctanh", "greater", "greater_equal", "less",
    "less_equal", "not_equal", "equal", "allclose", "isclose", "float_power"]


# PyTorch's argument rules for the function forms (the operators are looser:
# ``2 + t`` is fine): a number may stand for ``input`` only in these ops, and
# ``other`` must be a tensor in these.
_NUMBER_INPUT_OK = {"remainder", "floor_divide", "bitwise_and", "bitwise_or", "bitwise_xor",
                    "bitwise_left_shift", "bitwise_right_shift"}
_TENSOR_OTHER = {"maximum", "minimum", "fmax", "fmin", "atan2", "hypot", "logical_and",
                 "logical_or", "logical_xor"}


def _make_unary(name):
    op = OPS[name]

    def fn(input, *, out=None):
        if not isinstance(input, TensorBase):
            raise not_tensor(input, name)
        return _C.unary_op(op, input, out)

    example = "[0, 1]" if name == "bitwise_not" else "[0.5, 1.0]"   # bitwise ops reject floats

    def fn_(self):
        return _C.unary_op_(op, self)

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{name}``, as ``torch.{name}``.\n\n"
                  f"Examples\n--------\n>>> import cygrad\n>>> y = cygrad.{name}(cygrad.tensor({example}))\n")
    fn_.__name__ = name + "_"
    return fn, fn_


def _example_values(name):
    """Docstring example inputs: integers for bitwise ops, floats otherwise."""
    return "[1, 2]" if name.startswith(("bitwise", "logical")) else "[1.0, 2.0]"


# Ops whose result keeps an integer tensor's dtype when the other operand is a
# Python int: PyTorch casts the int to that dtype first, wrapping it like C.
_WRAPS_INT = {"add", "sub", "mul", "floor_divide", "remainder", "fmod", "bitwise_and",
              "bitwise_or", "bitwise_xor", "bitwise_left_shift", "bitwise_right_shift", "pow"}
_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


_FLOATS = frozenset((_dt.float16, _dt.bfloat16, _dt.float32, _dt.float64))
_WIDE_FLOATS = frozenset((_dt.float32, _dt.float64))


def _int_operand(value, other, wrap):
    """A Python int operand as PyTorch reads it beside ``other``: refused beyond
    ``[-2**63, 2**64)``; with ``wrap`` and an integer tensor ``other``, cast to its
    dtype the way PyTorch does before computing (``int8 + 1000`` adds -24,
    ``uint8 // 256`` divides by zero)."""
    if not _INT64_MIN <= value <= _UINT64_MAX:
        raise OverflowError("int too big to convert" if value > 0 else
                            "can't convert negative int to unsigned")
    if not isinstance(other, TensorBase):
        if value > _INT64_MAX and type(other) in (int, bool) and (other is True or other is False
                                                                 or other <= _INT64_MAX):
            # PyTorch makes both numbers tensors: 2**63 is a uint64 one, which promotes with nothing
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               f"attempted to promote UInt64 and "
                               f"{'Bool' if type(other) is bool else 'Long'}")
        return value
    dt = other.dtype
    if dt in _FLOATS:
        return value
    if dt is _dt.bool_:
        if value > _INT64_MAX:
            raise RuntimeError("Promotion for uint16, uint32, uint64 types is not supported, "
                               "attempted to promote Bool and UInt64")
        return value
    if wrap:
        bits = dt.itemsize * 8
        value &= (1 << bits) - 1
        if dt is not _dt.uint8 and value >= 1 << (bits - 1):
            value -= 1 << bits
    return value


def _no_tensor_overload(name, *args):
    """PyTorch's parser error when no overload of ``name`` takes these arguments."""
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{name}() received an invalid combination of arguments - got ({got}), "
                     f"but expected one of:\n * (Tensor input, Tensor other, *, Tensor out)\n"
                     f" * (Number self, Tensor other)\n * (Tensor input, Number other)")


# Ops whose kernel reads a number operand in a float16/bfloat16 tensor's dtype
# (PyTorch casts it there first: ``half > 1e30`` compares with inf, ``fmod(half, 1e-30)``
# divides by 0); the others compute with the number in float32.
_NARROWS_NUMBER = {"eq", "ne", "lt", "le", "gt", "ge", "fmod", "remainder"}
_NARROW_FLOATS = frozenset((_dt.float16, _dt.bfloat16))


def _narrowed(value, dt):
    """Python number ``value`` rounded to float16/bfloat16 ``dt`` as C++ casts it
    (beyond the range: an infinity)."""
    v = float(value)
    try:
        if dt is _dt.float16:
            return _struct.unpack("e", _struct.pack("e", v))[0]
        if v != v or v in (_math.inf, -_math.inf):
            return v
        bits = _struct.unpack("<I", _struct.pack("<f", v))[0]   # double -> float -> bfloat16
    except OverflowError:
        return _math.copysign(_math.inf, v)
    bits = ((bits + 0x7FFF + ((bits >> 16) & 1)) >> 16) << 16
    return _struct.unpack("<f", _struct.pack("<I", bits & 0xFFFFFFFF))[0]


def _make_binary(name):
    op = OPS[name]
    number_input_ok, tensor_other = name in _NUMBER_INPUT_OK, name in _TENSOR_OTHER
    wrap = name in _WRAPS_INT
    narrows_other = name in _NARROWS_NUMBER
    # a number in the first place is always cast to the tensor's dtype
    narrows_input = narrows_other or name == "floor_divide"

    def fn(input, other, *, out=None):
        if not isinstance(input, TensorBase):
            if not number_input_ok:
                raise not_tensor(input, name)
            if not isinstance(other, TensorBase):
                if name != "floor_divide":
                    raise _no_tensor_overload(name, input, other)
                # floor_divide(Number, Number): PyTorch makes the first a tensor
                input = number_arg(input, name, "input", 1)
                if type(input) is int:
                    _int_operand(input, other, False)   # 2**63 (a uint64) beside an int
                return fn(_C.full((), input), other, out=out)
            if type(input) is int:
                input = _int_operand(input, other, wrap)
            if narrows_input and other.dtype in _NARROW_FLOATS and type(input) in (int, float):
                input = _narrowed(input, other.dtype)
        elif tensor_other:
            if not isinstance(other, TensorBase):
                raise not_tensor(other, name, "other", 2)
        else:
            if type(other) is int:
                other = _int_operand(other, input, wrap)
            if narrows_other and type(other) in (int, float) and input.dtype in _NARROW_FLOATS:
                other = _narrowed(other, input.dtype)
        return _C.binary_op(op, input, other, out)

    def fn_(self, other):
        if tensor_other and not isinstance(other, TensorBase):
            # PyTorch's parser refuses the number before any check of ``self``
            raise not_tensor(other, name + "_", "other", 1)
        if narrows_other and type(other) in (int, float) and self.dtype in _NARROW_FLOATS:
            other = _narrowed(other, self.dtype)
        return _C.binary_op_(op, self, other)

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{name}`` with broadcasting and type promotion, as "
                  f"``torch.{name}``.\n\nExamples\n--------\n>>> import cygrad\n"
                  f">>> z = cygrad.{name}(cygrad.tensor({_example_values(name)}), "
                  f"cygrad.tensor({_example_values(name)}))\n")
    fn_.__name__ = name + "_"
    return fn, fn_


def _operands(input, other, opname):
    """``(input, other)`` of an arithmetic op with Python int operands read as PyTorch
    reads them (see :func:`_int_operand`); callers test ``type(x) is int`` first."""
    wrap = opname in _WRAPS_INT
    if type(other) is int:
        other = _int_operand(other, input, wrap)
    if type(input) is int:
        input = _int_operand(input, other, wrap)
    return input, other


for _name in _UNARY:
    _f, _f_ = _make_unary(_name)
    globals()[_name] = tensor_method(_f)
    if _name not in _NO_INPLACE:
        tensor_method(_f_)
for _name in _BINARY:
    _f, _f_ = _make_binary(_name)
    globals()[_name] = tensor_method(_f)
    tensor_method(_f_)


def _write_out(out, res, opname):
    """Copy a composite op's result into ``out`` with the dispatcher's rule: the result
    dtype must be castable to out's dtype (no float -> int), as in PyTorch."""
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if not _C._can_cast(res.dtype, out.dtype):
        raise RuntimeError(f"result type {_C._torch_type_name(res.dtype)} can't be cast to the "
                           f"desired output type {_C._torch_type_name(out.dtype)}")
    _resize_out(out, res.shape)
    out.copy_(res)
    return out


def _resize_out(out, shape):
    """Give ``out`` the result's shape, warning (as PyTorch does) when a non-empty
    tensor had to be resized."""
    if tuple(out.shape) == tuple(shape):
        return
    if out.numel() != 0:
        import warnings
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(out.shape)}, which does not match the required output shape "
                      f"{list(shape)}.", UserWarning, stacklevel=3)
    out.resize_(tuple(shape))


def _alpha_scaled(input, other, alpha, opname):
    """``alpha * other`` after PyTorch's checks of ``alpha`` against the result dtype
    (callers skip the call for the default ``alpha=1``)."""
    alpha = number_arg(alpha, opname, "alpha")
    dt = _C.result_type(input, other)
    if isinstance(alpha, bool) and dt is not _dt.bool_:
        raise RuntimeError("Boolean alpha only supported for Boolean results.")
    if isinstance(alpha, float) and not (dt.is_floating_point or dt.is_complex):
        raise RuntimeError("For integral input tensors, argument alpha must not be a floating "
                           "point number.")
    if isinstance(alpha, complex) and not dt.is_complex:
        raise RuntimeError("For non-complex input tensors, argument alpha must not be a complex "
                           "number.")
    check_scalar_fits(alpha, dt)
    return _C.binary_op(OPS["mul"], other, alpha)


def _refuse_bool_sub(input, other):
    if any(isinstance(x, bool) or (isinstance(x, TensorBase) and x.dtype is _dt.bool_)
           for x in (input, other)):
        raise RuntimeError("Subtraction, the `-` operator, with a bool tensor is not supported. "
                           "If you are trying to invert a mask, use the `~` or `logical_not()` "
                           "operator instead.")


@tensor_method
def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.add(cygrad.tensor([1, 2]), 10, alpha=2).tolist()
    [21, 22]
    """
    if type(other) is int or type(input) is int:
        input, other = _operands(input, other, "add")
    if not (type(alpha) is int and alpha == 1):
        other = _alpha_scaled(input, other, alpha, "add")
    return _C.binary_op(OPS["add"], input, other, out)


@tensor_method
def add_(self, other, *, alpha=1):
    """In-place ``self += alpha * other``."""
    if not (type(alpha) is int and alpha == 1):
        other = _alpha_scaled(self, other, alpha, "add_")
    return _C.binary_op_(OPS["add"], self, other)


@tensor_method
def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` with broadcasting.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.sub(cygrad.tensor([5.0]), 1.0).tolist()
    [4.0]
    """
    if type(other) is int or type(input) is int:
        input, other = _operands(input, other, "sub")
    if not (type(alpha) is int and alpha == 1):
        _refuse_bool_sub(input, other)
        other = _alpha_scaled(input, other, alpha, "sub")
    return _C.binary_op(OPS["sub"], input, other, out)


@tensor_method
def sub_(self, other, *, alpha=1):
    """In-place ``self -= alpha * other``."""
    if not (type(alpha) is int and alpha == 1):
        _refuse_bool_sub(self, other)
        other = _alpha_scaled(self, other, alpha, "sub_")
    return _C.binary_op_(OPS["sub"], self, other)


subtract = tensor_method(sub, name="subtract")


@tensor_method
def mul(input, other, *, out=None):
    """Elementwise product with broadcasting.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.mul(cygrad.tensor([1, 2]), 3).tolist()
    [3, 6]
    """
    if type(other) is int or type(input) is int:
        input, other = _operands(input, other, "mul")
    return _C.binary_op(OPS["mul"], input, other, out)


@tensor_method
def mul_(self, other):
    """In-place ``self *= other``."""
    return _C.binary_op_(OPS["mul"], self, other)


multiply = tensor_method(mul, name="multiply")


@tensor_method
def div(input, other, *, rounding_mode=None, out=None):
    """Division: true division, or ``rounding_mode='trunc'``/``'floor'``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.div(cygrad.tensor([7, -7]), 2, rounding_mode="trunc").tolist()
    [3, -3]
    """
    if rounding_mode is not None and not isinstance(rounding_mode, str):
        raise TypeError(f"div(): argument 'rounding_mode' must be str or None, not "
                        f"{type(rounding_mode).__name__}")
    if type(other) is int or type(input) is int:
        input, other = _operands(input, other, "div" if rounding_mode is None else "floor_divide")
    if rounding_mode is None:
        return _C.binary_op(OPS["div"], input, other, out)
    if rounding_mode in ("floor", "trunc") and _C.result_type(input, other).name == "bool":
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for 'Bool'")
    if rounding_mode == "floor":
        if type(input) in (int, float) and isinstance(other, TensorBase) \
                and other.dtype in _NARROW_FLOATS:
            input = _narrowed(input, other.dtype)   # as floor_divide reads a first-place number
        if out is None:
            return _compound.DivFloor.apply(input, other)
        return _C.binary_op(OPS["floor_divide"], input, other, out)
    if rounding_mode == "trunc":
        res = _compound.DivTrunc.apply(input, other)
        if out is not None:
            return _write_out(out, res, "div")
        return res
    raise RuntimeError(f"div expected rounding_mode to be one of None, 'trunc', or 'floor' but "
                       f"found '{rounding_mode}'")


@tensor_method
def div_(self, other, *, rounding_mode=None):
    """In-place division."""
    if rounding_mode is None:
        return _C.binary_op_(OPS["div"], self, other)
    if rounding_mode not in ("floor", "trunc"):
        div(self, other, rounding_mode=rounding_mode)       # (its error)
    if type(other) is int:
        _, other = _operands(self, other, "floor_divide")
    if _C.result_type(self, other).name == "bool":
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for 'Bool'")
    _check_castable(_C.result_type(self, other), self)
    cls = _compound.DivFloor if rounding_mode == "floor" else _compound.DivTrunc
    return apply_inplace(cls, self, other)


def _check_castable(dtype, target):
    """PyTorch's rule for an in-place result: it must cast to the target's dtype."""
    if dtype is not target.dtype and not _C._can_cast(dtype, target.dtype):
        raise RuntimeError(f"result type {_C._torch_type_name(dtype)} can't be cast to the "
                           f"desired output type {_C._torch_type_name(target.dtype)}")


divide = tensor_method(div, name="divide")
true_divide = tensor_method(div, name="true_divide")


def _both_numbers(opname, input, other):
    got = ", ".join(type(a).__name__ for a in (input, other))
    return TypeError(f"{opname}() received an invalid combination of arguments - got ({got}), "
                     "but expected one of:\n * (Tensor input, Tensor exponent, *, Tensor out)\n"
                     " * (Number self, Tensor exponent)\n * (Tensor input, Number exponent)")


def _pow_exponent(base, exponent):
    """PyTorch's checks of a number exponent against tensor ``base``.

    Returns the exponent to use, or a finished result where PyTorch does not run
    the kernel at all (a bool tensor to the power True/False)."""
    exponent = number_arg(exponent, "pow", "exponent", 2)
    dt = base.dtype
    if not (dt.is_floating_point or dt.is_complex) and type(exponent) in (int, bool):
        if exponent > _INT64_MAX:
            raise RuntimeError("value cannot be converted to type int64_t without overflow")
        if exponent < 0:
            raise RuntimeError("Integers to negative integer powers are not allowed.")
        if type(exponent) is bool and dt is _dt.bool_:
            # PyTorch fills with 1 for a zero exponent and copies for one
            return _C.binary_op(OPS["logical_or"], base, True) if not exponent else base.clone(), True
        check_scalar_fits(exponent, dt if dt is not _dt.bool_ else _dt.int64)
    elif dt is _dt.float16 or dt is _dt.bfloat16:
        check_scalar_fits(exponent, dt)     # the kernel reads the exponent in the dtype
    return exponent, False


@tensor_method
def pow(input, exponent, *, out=None):
    """``input ** exponent`` elementwise; integer tensors can't take negative integer powers.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.pow(cygrad.tensor([2, 3]), 2).tolist()
    [4, 9]
    """
    if (type(exponent) is float or type(exponent) is int
            and -0x7FFFFFFFFFFFFFFF <= exponent <= 0x7FFFFFFFFFFFFFFF) \
            and type(input) is Tensor and input.dtype in _WIDE_FLOATS:
        return _C.binary_op(OPS["pow"], input, exponent, out)   # x ** 2 on float32/64: no check
    if isinstance(input, TensorBase):
        if not isinstance(exponent, TensorBase):
            exponent, done = _pow_exponent(input, exponent)
            if done:
                return exponent if out is None else _write_out(out, exponent, "pow")
    elif not isinstance(exponent, TensorBase):
        raise _both_numbers("pow", input, exponent)
    else:
        input = number_arg(input, "pow", "self", 1)
        if type(input) is int:
            input = _int_operand(input, exponent, True)
    return _C.binary_op(OPS["pow"], input, exponent, out)


@tensor_method
def pow_(self, exponent):
    """In-place power."""
    if not isinstance(exponent, TensorBase):
        exponent, done = _pow_exponent(self, exponent)
        if done:
            return self.copy_(exponent)
    return _C.binary_op_(OPS["pow"], self, exponent)


def _float_power_operands(input, exponent):
    if isinstance(input, TensorBase):
        a = input.double()
    elif isinstance(exponent, TensorBase):
        a = float(number_arg(input, "float_power", "self", 1))
    else:
        raise _both_numbers("float_power", input, exponent)
    if isinstance(exponent, TensorBase):
        return a, exponent.double()
    return a, float(number_arg(exponent, "float_power", "exponent", 2))


@tensor_method
def float_power(input, exponent, *, out=None):
    """``input ** exponent`` computed in float64.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.float_power(cygrad.tensor([2, 3]), 2).dtype
    cygrad.float64
    """
    a, b = _float_power_operands(input, exponent)
    if isinstance(out, TensorBase) and out.dtype is not _dt.float64:
        raise RuntimeError(f"the output given to float_power has dtype "
                           f"{_C._torch_type_name(out.dtype)} but the operation's result "
                           f"requires dtype Double")
    return _C.binary_op(OPS["pow"], a, b, out)


@tensor_method
def float_power_(self, exponent):
    """In-place ``float_power``; like PyTorch, only for float64 tensors."""
    _, b = _float_power_operands(self, exponent)      # (its TypeError comes first)
    if self.dtype is not _dt.float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_C._torch_type_name(self.dtype)} "
                           "but the operation's result requires dtype Double")
    return _C.binary_op_(OPS["pow"], self, b)


def _decimals_arg(input, decimals):
    decimals = int_arg(decimals, "round", "decimals")
    if not input.dtype.is_floating_point:
        raise NotImplementedError(f"\"round_cpu\" not implemented for "
                                  f"'{_C._torch_type_name(input.dtype)}'")
    return decimals


@tensor_method
def round(input, *, decimals=None, out=None):
    """Round half to even (as ``torch.round``), optionally to ``decimals`` places.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.round(cygrad.tensor([0.5, 1.5, 2.5])).tolist()
    [0.0, 2.0, 2.0]
    >>> cygrad.round(cygrad.tensor([1.234, 56.78]), decimals=-1).tolist()
    [0.0, 60.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "round")
    if decimals is None:
        return _C.unary_op(OPS["round"], input, out)
    decimals = _decimals_arg(input, decimals)
    if isinstance(out, TensorBase) and out.dtype is not input.dtype:
        raise RuntimeError(f"Found dtype {_C._torch_type_name(out.dtype)} but expected "
                           f"{_C._torch_type_name(input.dtype)}")
    if decimals == 0:
        return _C.unary_op(OPS["round"], input, out)
    res = _compound.RoundDecimals.apply(input, decimals)
    if out is not None:
        return _write_out(out, res, "round")
    return res


@tensor_method
def round_(self, *, decimals=None):
    """In-place rounding."""
    if decimals is None:
        return _C.unary_op_(OPS["round"], self)
    decimals = _decimals_arg(self, decimals)
    if decimals == 0:
        return _C.unary_op_(OPS["round"], self)
    return apply_inplace(_compound.RoundDecimals, self, decimals)


@tensor_method
def clamp(input, min=None, max=None, *, out=None):
    """Limit values to ``[min, max]`` (either bound may be None or a tensor).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.clamp(cygrad.tensor([-2.0, 0.5, 3.0]), -1, 1).tolist()
    [-1.0, 0.5, 1.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "clamp")
    if input.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    if out is None and type(min) in _NUMBER_OR_NONE and type(max) in _NUMBER_OR_NONE:
        res = _C.clamp_numbers(input, min, max)      # one C pass when nothing else is needed
        if res is not None:
            return res
    input, min, max = _C.scalars_to_device(input, min, max)
    min, max, dtype = _clamp_args(input, min, max, out)
    res = _clamp_function(min, max).apply(input, min, max, dtype)
    if out is not None:
        return _write_out(out, res, "clamp")
    return res


def _clamp_args(input, min, max, out=None):
    """clamp's checked bounds (numbers that fit the result dtype, or tensors) and
    result dtype, with PyTorch's errors."""
    # the Tensor overload (every bound given is a tensor) writes into any ``out`` it can
    # cast to; the Number one wants ``out`` of the result dtype exactly
    tensor_overload = all(isinstance(b, TensorBase) for b in (min, max) if b is not None)
    min, max = _clamp_bounds(min, max)
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    # the result dtype is promoted over the bounds too (a float bound makes an int
    # tensor float), and number bounds must fit that dtype, as in PyTorch
    dtype = _C.result_type(input, *(b for b in (min, max) if b is not None))
    if dtype is _dt.bool_:
        raise NotImplementedError("\"clamp_scalar_cpu\" not implemented for 'Bool'")
    if isinstance(out, TensorBase) and out.dtype is not dtype and not tensor_overload:
        raise RuntimeError(f"Found dtype {_C._torch_type_name(out.dtype)} but expected "
                           f"{_C._torch_type_name(dtype)}")
    return _checked_bound(min, dtype), _checked_bound(max, dtype), dtype


def _clamp_function(min, max):
    """PyTorch's two overloads are two nodes: ClampBackward1 (numbers), ClampBackward0."""
    tensors = any(isinstance(b, TensorBase) for b in (min, max))
    return _compound.ClampTensor if tensors else _compound.Clamp


_NUMBER_OR_NONE = frozenset((int, float, type(None)))


def _clamp_bounds(min, max):
    """PyTorch's two clamp overloads: both bounds tensors (None fits either; a 0-d
    tensor then promotes as a 0-d tensor), or both numbers (a 0-d tensor beside a
    number counts as one); a number beside a tensor of 1+ dims matches neither."""
    given = [b for b in (min, max) if b is not None]
    if all(isinstance(b, TensorBase) for b in given):
        return min, max
    kinds = {isinstance(b, TensorBase) and b.ndim > 0 for b in given}
    if len(kinds) == 2:
        got = ", ".join(type(b).__name__ for b in (min, max))
        raise TypeError(f"clamp() received an invalid combination of arguments - got (Tensor, "
                        f"{got}), but expected one of:\n * (Tensor input, Tensor min, Tensor max)"
                        f"\n * (Tensor input, Number min, Number max)")
    if kinds == {False}:
        min, max = (None if b is None else number_arg(b, "clamp", name)
                    for b, name in ((min, "min"), (max, "max")))
    return min, max


def _checked_bound(bound, dtype):
    """A number bound that ``dtype`` cannot hold is an error; uint8 takes -255..-1 wrapped."""
    if bound is None or isinstance(bound, TensorBase) or isinstance(bound, bool):
        return bound
    check_scalar_fits(bound, dtype)
    return _int_operand(bound, _C.empty((), dtype=dtype), True) if type(bound) is int else bound


@tensor_method
def clamp_(self, min=None, max=None):
    """In-place clamp.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.0, 5.0]).clamp_(max=2.0).tolist()
    [1.0, 2.0]
    """
    if not isinstance(self, TensorBase):
        raise not_tensor(self, "clamp_")
    if self.dtype.is_complex:
        raise NotImplementedError("clamp is not supported for complex types")
    if type(min) in _NUMBER_OR_NONE and type(max) in _NUMBER_OR_NONE:
        res = _C.clamp_numbers(self, min, max)      # the C kernel, when nothing records
        if res is not None:
            _C._copy_into(self, res)
            self._bump_version()
            return self
    min, max, dtype = _clamp_args(self, min, max)
    if dtype is not self.dtype and not _C._can_cast(dtype, self.dtype):
        raise RuntimeError(f"result type {_C._torch_type_name(dtype)} can't be cast to the "
                           f"desired output type {self.dtype.name}")
    return apply_inplace(_clamp_function(min, max), self, min, max, dtype)


clip = tensor_method(clamp, name="clip")
tensor_method(clamp_, name="clip_")


@tensor_method
def lerp(input, end, weight, *, out=None):
    """Linear interpolation ``input + weight * (end - input)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.lerp(cygrad.tensor([0.0]), cygrad.tensor([10.0]), 0.25).tolist()
    [2.5]
    """
    weight = _lerp_args(input, end, weight, out)
    res = _lerp_function(weight).apply(input, end, weight)
    if out is not None:
        return _write_out(out, res, "lerp")
    return res


def _lerp_args(input, end, weight, out=None):
    """lerp's checks (PyTorch's order and errors); the weight, read as a number
    unless it is a tensor."""
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "lerp")
    if not isinstance(end, TensorBase):
        raise not_tensor(end, "lerp", "end", 2)
    if not isinstance(weight, TensorBase):
        # the parser reads the number before any dtype check (2**70 is an OverflowError)
        weight = number_arg(weight, "lerp", "weight", 3)
    dt = input.dtype
    if end.dtype is not dt:
        raise RuntimeError(f"expected dtype {_c_type(dt)} for `end` but got dtype {_c_type(end.dtype)}")
    tensor_weight = isinstance(weight, TensorBase) and weight.ndim > 0
    if tensor_weight and weight.dtype is not dt:
        raise RuntimeError(f"expected dtype {_c_type(dt)} for `weight` but got dtype "
                           f"{_c_type(weight.dtype)}")
    if not dt.is_floating_point and not dt.is_complex:
        raise NotImplementedError(f"\"lerp_kernel_{'tensor' if tensor_weight else 'scalar'}\" not "
                                  f"implemented for '{_C._torch_type_name(dt)}'")
    if not isinstance(weight, TensorBase):
        # the weight is read in the op's opmath type (float for half/bfloat16)
        check_scalar_fits(weight, dt if dt in (_dt.float64, _dt.complex64, _dt.complex128)
                          else _dt.float32)
    if isinstance(out, TensorBase) and out.dtype is not dt:
        raise RuntimeError(f"Found dtype {_C._torch_type_name(out.dtype)} but expected "
                           f"{_C._torch_type_name(dt)}")
    return weight


def _lerp_function(weight):
    return _compound.LerpTensor if isinstance(weight, TensorBase) else _compound.Lerp



def _c_type(dt):
    from ..._core.scalars import _C_TYPE_NAMES
    return _C_TYPE_NAMES.get(dt.name, dt.name)


@tensor_method
def lerp_(self, end, weight):
    """In-place lerp.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([0.0]).lerp_(cygrad.tensor([10.0]), 0.25).tolist()
    [2.5]
    """
    weight = _lerp_args(self, end, weight)
    return apply_inplace(_lerp_function(weight), self, end, weight)


def _nan_to_num_values(input, nan, posinf, neginf):
    """nan_to_num's values (no autograd): the device's ``nan_to_num`` kernel."""
    nan, posinf, neginf = (float(v.item() if isinstance(v, TensorBase) else v)
                           if v is not None else None for v in (nan, posinf, neginf))
    return _kernel("nan_to_num", input.device.type)(input, nan, posinf, neginf)


def _check_replacements(nan, posinf, neginf):
    for name, value in (("nan", nan), ("posinf", posinf), ("neginf", neginf)):
        if value is not None:
            float_arg(value, "nan_to_num", name)


class NanToNum(Function):
    """``nan_to_num``: the gradient passes where the input was finite and is 0 where
    a NaN or infinity was replaced by a constant (as PyTorch)."""
    _node_name = "NanToNumBackward0"

    @staticmethod
    def forward(ctx, input, nan, posinf, neginf):
        ctx.save_for_backward(input)
        return _nan_to_num_values(input, nan, posinf, neginf)

    @staticmethod
    def backward(ctx, grad):
        input, = ctx.saved_tensors
        return grad * input.isfinite(), None, None, None

    @staticmethod
    def jvp(ctx, tangent, *_):
        input, = ctx.saved_tensors
        return tangent * input.isfinite()


@tensor_method
def nan_to_num(input, nan=0.0, posinf=None, neginf=None, *, out=None):
    """Replace NaN with ``nan`` and infinities with ``posinf``/``neginf`` (default: the
    dtype's largest/smallest finite values).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nan_to_num(cygrad.tensor([float('nan'), 1.0])).tolist()
    [0.0, 1.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "nan_to_num")
    _check_replacements(nan, posinf, neginf)
    if isinstance(out, TensorBase) and out.dtype is not input.dtype:
        raise RuntimeError(f"nan_to_num: dtype of out: {_C._torch_type_name(out.dtype)} should be "
                           f"same as input: {_C._torch_type_name(input.dtype)}")
    res = NanToNum.apply(input, nan, posinf, neginf)
    if out is not None:
        return _write_out(out, res, "nan_to_num")
    return res


@tensor_method
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    """In-place nan_to_num; integer and bool tensors hold no NaN and are left as they are."""
    _check_replacements(nan, posinf, neginf)
    if self.is_floating_point():
        return apply_inplace(NanToNum, self, nan, posinf, neginf)
    self._bump_version()       # written (with its own values), as PyTorch counts it
    return self


@tensor_method
def isclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Elementwise ``|input - other| <= atol + rtol * |other|``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.isclose(cygrad.tensor([1.0]), cygrad.tensor([1.0 + 1e-9])).tolist()
    [True]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "isclose")
    if not isinstance(other, TensorBase):
        raise not_tensor(other, "isclose", "other", 2)
    if input.dtype != other.dtype:
        raise RuntimeError(f"{_C._torch_type_name(input.dtype)} did not match "
                           f"{_C._torch_type_name(other.dtype)}")
    rtol = float(_real(float_arg(rtol, "isclose", "rtol", 3)))
    atol = float(_real(float_arg(atol, "isclose", "atol", 4)))
    equal_nan = bool_arg(equal_nan, "isclose", "equal_nan", 5)
    if not (rtol >= 0 and atol >= 0):       # (a NaN tolerance is refused too)
        name, value = ("atol", atol) if rtol >= 0 else ("rtol", rtol)
        raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value:g}")
    from ..shape import _broadcast_pair_error
    _broadcast_pair_error([tuple(input.shape), tuple(other.shape)])
    # PyTorch's formula, in its dtypes: equal, or a finite error within tolerance
    close = eq(input, other)
    if equal_nan:
        close = logical_or(close, logical_and(isnan(input), isnan(other)))
    if rtol == 0 and atol == 0:
        return close
    # integers are compared in the default float dtype (no wrapping difference)
    exact = input.dtype.is_floating_point or input.dtype.is_complex
    a = input if exact else input.to(_dt.get_default_dtype())
    b = other if exact else other.to(_dt.get_default_dtype())
    allowed = _C.binary_op(OPS["add"], abs(_C.binary_op(OPS["mul"], b, rtol)), atol)
    actual = abs(_C.binary_op(OPS["sub"], a, b))
    return logical_or(close, logical_and(isfinite(actual), le(actual, allowed)))


def _real(value):
    return value.item() if isinstance(value, TensorBase) else value


@tensor_method
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of ``input`` is close to ``other`` (see ``isclose``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.allclose(cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 2.0 + 1e-7]))
    True
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "allclose")
    if not isinstance(other, TensorBase):
        raise not_tensor(other, "allclose", "other", 2)
    bool_arg(equal_nan, "allclose", "equal_nan")
    return bool(isclose(input, other, rtol, atol, equal_nan).all())


@tensor_method
def equal(input, other):
    """True if both tensors have the same shape and elements."""
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "equal")
    if not isinstance(other, TensorBase):
        raise not_tensor(other, "equal", "other", 2)
    return tuple(input.shape) == tuple(other.shape) and bool(eq(input, other).all())


@tensor_method
def positive(input):
    """Returns ``input`` itself (``+input``); bool tensors are rejected as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.positive(cygrad.tensor([-1, 2])).tolist()
    [-1, 2]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "positive")
    from ..._core.dtype import bool_
    if input.dtype == bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


negative = tensor_method(globals()["neg"], name="negative")
absolute = tensor_method(globals()["abs"], name="absolute")
arcsin = tensor_method(globals()["asin"], name="arcsin")
arccos = tensor_method(globals()["acos"], name="arccos")
arctan = tensor_method(globals()["atan"], name="arctan")
arctan2 = tensor_method(globals()["atan2"], name="arctan2")
arcsinh = tensor_method(globals()["asinh"], name="arcsinh")
arccosh = tensor_method(globals()["acosh"], name="arccosh")
arctanh = tensor_method(globals()["atanh"], name="arctanh")
greater = tensor_method(globals()["gt"], name="greater")
greater_equal = tensor_method(globals()["ge"], name="greater_equal")
less = tensor_method(globals()["lt"], name="less")
less_equal = tensor_method(globals()["le"], name="less_equal")
not_equal = tensor_method(globals()["ne"], name="not_equal")

# In-place spellings of the aliases above (``t.absolute_()`` is ``t.abs_()``)
for _alias, _target in (("negative_", "neg_"), ("absolute_", "abs_"), ("arcsin_", "asin_"),
                        ("arccos_", "acos_"), ("arctan_", "atan_"), ("arctan2_", "atan2_"),
                        ("arcsinh_", "asinh_"), ("arccosh_", "acosh_"), ("arctanh_", "atanh_"),
                        ("greater_", "gt_"), ("greater_equal_", "ge_"), ("less_", "lt_"),
                        ("less_equal_", "le_"), ("not_equal_", "ne_"), ("subtract_", "sub_"),
                        ("multiply_", "mul_"), ("divide_", "div_"), ("true_divide_", "div_")):
    tensor_method(getattr(Tensor, _target), name=_alias)


# ------------------------------------------------------------- the ops' Function classes

from ..._core import engine as _E  # noqa: E402
from . import binary as _binary, compound as _compound, unary as _unary  # noqa: E402
from .binary import BinaryFunction  # noqa: E402,F401
from .unary import UnaryFunction  # noqa: E402,F401


def register():
    """Point each op's table row at its Function, so the dispatcher reaches it
    (called once, from ``cygrad/_wiring.py``)."""
    for module in (_unary, _binary):
        for cls in list(vars(module).values()):
            if not (isinstance(cls, type) and issubclass(cls, (UnaryFunction, BinaryFunction))
                    and cls.__dict__.get("op") is not None):
                continue
            cls.op.function = cls
            # the engine may run a forward that is exactly the base class's itself
            if cls.forward is UnaryFunction.forward:
                _E._register_fast_forward(cls, 1, cls.op, cls.saves == "output")
            elif cls.forward is BinaryFunction.forward:
                _E._register_fast_forward(cls, 2, cls.op, False)
