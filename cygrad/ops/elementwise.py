"""Elementwise ops: every function here is one row of the dispatcher's op table
(``_core/tensor.pyx``) plus the PyTorch signature around it."""
import math as _math   # plain ``abs``/``round`` are this module's tensor ops

from .._core import tensor as _C
from .._core import dtype as _dt
from .._core.tensor import TensorBase
from ._argcheck import not_tensor
from .._tensor import Tensor, tensor_method

OPS = _C.ELEMENTWISE_OPS

_UNARY = ["neg", "abs", "sign", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
          "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan", "sinh", "cosh",
          "tanh", "sigmoid", "relu", "erf", "erfc", "floor", "ceil", "trunc", "frac",
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
    "arcsin", "arccos", "arctan", "arctan2", "greater", "greater_equal", "less",
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


def _make_binary(name):
    op = OPS[name]
    number_input_ok, tensor_other = name in _NUMBER_INPUT_OK, name in _TENSOR_OTHER

    def fn(input, other, *, out=None):
        if not (number_input_ok or isinstance(input, TensorBase)):
            raise not_tensor(input, name)
        if tensor_other and not isinstance(other, TensorBase):
            raise not_tensor(other, name, "other", 2)
        return _C.binary_op(op, input, other, out)

    def fn_(self, other):
        return _C.binary_op_(op, self, other)

    fn.__name__ = name
    fn.__qualname__ = name
    fn.__doc__ = (f"Elementwise ``{name}`` with broadcasting and type promotion, as "
                  f"``torch.{name}``.\n\nExamples\n--------\n>>> import cygrad\n"
                  f">>> z = cygrad.{name}(cygrad.tensor({_example_values(name)}), "
                  f"cygrad.tensor({_example_values(name)}))\n")
    fn_.__name__ = name + "_"
    return fn, fn_


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


def _alpha_scaled(other, alpha):
    return other if alpha == 1 else _C.binary_op(OPS["mul"], other, alpha)


@tensor_method
def add(input, other, *, alpha=1, out=None):
    """``input + alpha * other`` with broadcasting.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.add(cygrad.tensor([1, 2]), 10, alpha=2).tolist()
    [21, 22]
    """
    return _C.binary_op(OPS["add"], input, _alpha_scaled(other, alpha), out)


@tensor_method
def add_(self, other, *, alpha=1):
    """In-place ``self += alpha * other``."""
    return _C.binary_op_(OPS["add"], self, _alpha_scaled(other, alpha))


@tensor_method
def sub(input, other, *, alpha=1, out=None):
    """``input - alpha * other`` with broadcasting.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.sub(cygrad.tensor([5.0]), 1.0).tolist()
    [4.0]
    """
    return _C.binary_op(OPS["sub"], input, _alpha_scaled(other, alpha), out)


@tensor_method
def sub_(self, other, *, alpha=1):
    """In-place ``self -= alpha * other``."""
    return _C.binary_op_(OPS["sub"], self, _alpha_scaled(other, alpha))


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
    return _C.binary_op(OPS["mul"], input, other, out)


@tensor_method
def mul_(self, other):
    """In-place ``self *= other``."""
    return _C.binary_op_(OPS["mul"], self, other)


multiply = tensor_method(mul, name="multiply")


def _int_trunc_divide(a, b):
    """Integer division rounding toward zero, exact for all of int64 (a float
    round trip would lose bits above 2**24/2**53): the floor quotient, plus one where
    the division was inexact and the operands' signs differ."""
    q = _C.binary_op(OPS["floor_divide"], a, b)
    inexact = _C.binary_op(OPS["ne"], _C.binary_op(OPS["remainder"], a, b), 0)
    signs_differ = _C.binary_op(OPS["logical_xor"], _C.binary_op(OPS["lt"], a, 0),
                                _C.binary_op(OPS["lt"], b, 0))
    return _C.binary_op(OPS["add"], q, _C.binary_op(OPS["logical_and"], inexact, signs_differ))


@tensor_method
def div(input, other, *, rounding_mode=None, out=None):
    """Division: true division, or ``rounding_mode='trunc'``/``'floor'``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.div(cygrad.tensor([7, -7]), 2, rounding_mode="trunc").tolist()
    [3, -3]
    """
    if rounding_mode is None:
        return _C.binary_op(OPS["div"], input, other, out)
    if rounding_mode in ("floor", "trunc") and _C.result_type(input, other).name == "bool":
        raise NotImplementedError(f"\"div_{rounding_mode}_cpu\" not implemented for 'Bool'")
    if rounding_mode == "floor":
        if out is None and _C.needs_autograd(input, other) and _C.result_type(input, other).is_floating_point:
            # differentiable form (zero gradient almost everywhere, as in PyTorch)
            return _C.unary_op(OPS["floor"], _C.binary_op(OPS["div"], input, other))
        return _C.binary_op(OPS["floor_divide"], input, other, out)
    if rounding_mode == "trunc":
        dt = _C.result_type(input, other)
        if dt.is_floating_point:
            res = _C.unary_op(OPS["trunc"], _C.binary_op(OPS["div"], input, other))
        else:
            res = _int_trunc_divide(input, other)
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
    return self.copy_(div(self, other, rounding_mode=rounding_mode))


divide = tensor_method(div, name="divide")
true_divide = tensor_method(div, name="true_divide")


@tensor_method
def pow(input, exponent, *, out=None):
    """``input ** exponent`` elementwise; integer tensors can't take negative integer powers.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.pow(cygrad.tensor([2, 3]), 2).tolist()
    [4, 9]
    """
    return _C.binary_op(OPS["pow"], input, exponent, out)


@tensor_method
def pow_(self, exponent):
    """In-place power."""
    return _C.binary_op_(OPS["pow"], self, exponent)


@tensor_method
def float_power(input, exponent, *, out=None):
    """``input ** exponent`` computed in float64.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.float_power(cygrad.tensor([2, 3]), 2).dtype
    cygrad.float64
    """
    a = input.double() if isinstance(input, TensorBase) else input
    b = exponent.double() if isinstance(exponent, TensorBase) else float(exponent)
    return _C.binary_op(OPS["pow"], a, b, out)


@tensor_method
def float_power_(self, exponent):
    """In-place ``float_power``; like PyTorch, only for float64 tensors."""
    from .._core.dtype import float64
    if self.dtype != float64:
        raise RuntimeError(f"the base given to float_power_ has dtype {_C._torch_type_name(self.dtype)} "
                           "but the operation's result requires dtype Double")
    b = exponent.double() if isinstance(exponent, TensorBase) else float(exponent)
    return _C.binary_op_(OPS["pow"], self, b)


@tensor_method
def round(input, *, decimals=0, out=None):
    """Round half to even (as ``torch.round``), optionally to ``decimals`` places.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.round(cygrad.tensor([0.5, 1.5, 2.5])).tolist()
    [0.0, 2.0, 2.0]
    """
    if decimals == 0:
        return _C.unary_op(OPS["round"], input, out)
    scale = 10.0 ** decimals
    res = _C.unary_op(OPS["round"], input * scale) / scale
    if out is not None:
        return _write_out(out, res, "round")
    return res


@tensor_method
def round_(self, *, decimals=0):
    """In-place rounding."""
    if decimals == 0:
        return _C.unary_op_(OPS["round"], self)
    return self.copy_(round(self, decimals=decimals))


@tensor_method
def clamp(input, min=None, max=None, *, out=None):
    """Limit values to ``[min, max]`` (either bound may be None or a tensor).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.clamp(cygrad.tensor([-2.0, 0.5, 3.0]), -1, 1).tolist()
    [-1.0, 0.5, 1.0]
    """
    if min is None and max is None:
        raise RuntimeError("torch.clamp: At least one of 'min' or 'max' must not be None")
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "clamp")
    # the result dtype is promoted over the bounds too (a float bound makes an int
    # tensor float), and number bounds must fit that dtype, as in PyTorch
    dtype = input.dtype
    for bound in (min, max):
        if bound is not None:
            dtype = _C.result_type(_C.empty((), dtype=dtype), bound)
    if dtype is _dt.bool_:
        raise NotImplementedError("\"clamp_scalar_cpu\" not implemented for 'Bool'")
    res = input if input.dtype is dtype else input.to(dtype)
    if min is not None:
        res = _C.binary_op(OPS["maximum"], res, _checked_bound(min, dtype))
    if max is not None:
        res = _C.binary_op(OPS["minimum"], res, _checked_bound(max, dtype))
    if res is input:
        res = input.clone()
    if out is not None:
        return _write_out(out, res, "clamp")
    return res


def _checked_bound(bound, dtype):
    """A number bound that ``dtype`` cannot hold is an error; uint8 takes -255..-1 wrapped."""
    if isinstance(bound, TensorBase) or isinstance(bound, bool):
        return bound
    import numpy as np
    npdt = np.dtype(dtype.np_dtype)
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        low = -int(info.max) if info.min == 0 else int(info.min)
        if not low <= int(bound) <= int(info.max):
            raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    elif dtype.name in _FLOAT_MAX and _FLOAT_MAX[dtype.name] < _math.fabs(bound) < _math.inf:
        raise RuntimeError(f"value cannot be converted to type {dtype.name} without overflow")
    return bound


_FLOAT_MAX = {"float16": 65504.0, "bfloat16": 3.3895313892515355e38, "float32": 3.4028234663852886e38}


@tensor_method
def clamp_(self, min=None, max=None):
    """In-place clamp.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.0, 5.0]).clamp_(max=2.0).tolist()
    [1.0, 2.0]
    """
    res = clamp(self, min, max)
    if res.dtype is not self.dtype and not _C._can_cast(res.dtype, self.dtype):
        raise RuntimeError(f"result type {_C._torch_type_name(res.dtype)} can't be cast to the "
                           f"desired output type {self.dtype.name}")
    return self.copy_(res)


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
    res = input + weight * (end - input)
    if out is not None:
        return _write_out(out, res, "lerp")
    return res


@tensor_method
def lerp_(self, end, weight):
    """In-place lerp."""
    return self.copy_(lerp(self, end, weight))


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
    import ml_dtypes
    import numpy as np
    res = input.clone()
    if input.is_floating_point():
        arr = res.numpy(force=True)
        info = ml_dtypes.finfo(arr.dtype)     # np.finfo does not know bfloat16
        if arr.dtype in (np.float16, np.float32, np.float64):
            np.nan_to_num(arr, copy=False, nan=nan,
                          posinf=float(info.max) if posinf is None else posinf,
                          neginf=float(info.min) if neginf is None else neginf)
        else:
            # NumPy's nan_to_num rejects bfloat16: replace through masks instead
            nan_mask, pos_mask, neg_mask = np.isnan(arr), np.isposinf(arr), np.isneginf(arr)
            arr[nan_mask] = nan
            arr[pos_mask] = float(info.max) if posinf is None else posinf
            arr[neg_mask] = float(info.min) if neginf is None else neginf
    if out is not None:
        return _write_out(out, res, "nan_to_num")
    return res


@tensor_method
def nan_to_num_(self, nan=0.0, posinf=None, neginf=None):
    """In-place nan_to_num."""
    return self.copy_(nan_to_num(self, nan, posinf, neginf))


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
    if rtol < 0 or atol < 0:
        name, value = ("rtol", rtol) if rtol < 0 else ("atol", atol)
        raise RuntimeError(f"{name} must be greater than or equal to zero, but got {value:g}")
    from .shape import _broadcast_pair_error
    _broadcast_pair_error([tuple(input.shape), tuple(other.shape)])
    import numpy as np
    from .creation import from_numpy
    a, b = input.numpy(force=True), other.numpy(force=True) if isinstance(other, TensorBase) else other
    return from_numpy(np.asarray(np.isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan)))


@tensor_method
def allclose(input, other, rtol=1e-05, atol=1e-08, equal_nan=False):
    """True when every element of ``input`` is close to ``other`` (see ``isclose``)."""
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "allclose")
    if not isinstance(other, TensorBase):
        raise not_tensor(other, "allclose", "other", 2)
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
    from .._core.dtype import bool_
    if input.dtype == bool_:
        raise RuntimeError("The `+` operator, on a bool tensor is not supported.")
    return input


negative = tensor_method(globals()["neg"], name="negative")
absolute = tensor_method(globals()["abs"], name="absolute")
arcsin = tensor_method(globals()["asin"], name="arcsin")
arccos = tensor_method(globals()["acos"], name="arccos")
arctan = tensor_method(globals()["atan"], name="arctan")
arctan2 = tensor_method(globals()["atan2"], name="arctan2")
greater = tensor_method(globals()["gt"], name="greater")
greater_equal = tensor_method(globals()["ge"], name="greater_equal")
less = tensor_method(globals()["lt"], name="less")
less_equal = tensor_method(globals()["le"], name="less_equal")
not_equal = tensor_method(globals()["ne"], name="not_equal")

# In-place spellings of the aliases above (``t.absolute_()`` is ``t.abs_()``)
for _alias, _target in (("negative_", "neg_"), ("absolute_", "abs_"), ("arcsin_", "asin_"),
                        ("arccos_", "acos_"), ("arctan_", "atan_"), ("arctan2_", "atan2_"),
                        ("greater_", "gt_"), ("greater_equal_", "ge_"), ("less_", "lt_"),
                        ("less_equal_", "le_"), ("not_equal_", "ne_"), ("subtract_", "sub_"),
                        ("multiply_", "mul_"), ("divide_", "div_"), ("true_divide_", "div_")):
    tensor_method(getattr(Tensor, _target), name=_alias)
