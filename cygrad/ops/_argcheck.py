"""PyTorch's argument errors, written once for every op.

PyTorch parses each op's arguments against its signature before the op runs;
the exception *type* a wrong argument gets is part of the API (ported code
catches it).  These helpers reproduce those rules so that every op raises the
same thing for the same mistake:

- a tensor argument given something else: ``TypeError`` naming op, argument
  and position (:func:`not_tensor`);
- an ``int`` argument given a bool, float or string: ``TypeError``; an int beyond
  64 bits: ``ValueError("Overflow when unpacking long long")`` (:func:`int_arg`);
- an int-list argument (``dim=(0, 1)``, a shape) with a bad element: ``TypeError``
  "failed to unpack the object at pos N" (:func:`int_list_arg`);
- a ``bool`` argument given anything but a Python bool: ``TypeError``
  (:func:`bool_arg`);
- a number that will be stored in a tensor of ``dtype``: ``OverflowError`` when
  a Python int does not fit 64 bits, ``RuntimeError`` when the value does not fit
  the dtype (:func:`check_scalar_fits`), exactly where c10's ``checked_convert``
  refuses it.

Call sites test the normal case themselves when they are on a hot path and
only call these helpers to build the error.
"""
import math
import numbers
import operator

import numpy as np

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1


def not_tensor(value, opname, argname="input", position=1):
    """The exception to raise when ``value`` should have been a tensor.

    Examples
    --------
    >>> from cygrad.ops._argcheck import not_tensor
    >>> str(not_tensor(1.5, "clone"))
    "clone(): argument 'input' (position 1) must be Tensor, not float"
    """
    where = f" (position {position})" if position else ""
    return TypeError(f"{opname}(): argument '{argname}'{where} must be Tensor, "
                     f"not {type(value).__name__}")


def _type_name(value):
    t = type(value)
    return t.__name__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__name__}"


def _where(position):
    return f" (position {position})" if position else ""


def int_arg(value, opname, argname, position=None):
    """``value`` as a Python int, refused as PyTorch's parser refuses it.

    Accepts ints, NumPy integers and 0-d integer tensors (anything with
    ``__index__`` that is not a bool).

    Examples
    --------
    >>> from cygrad.ops._argcheck import int_arg
    >>> int_arg(3, "chunk", "chunks", 1)
    3
    >>> int_arg(True, "chunk", "chunks", 1)
    Traceback (most recent call last):
        ...
    TypeError: chunk(): argument 'chunks' (position 1) must be int, not bool
    """
    if type(value) is int:
        if _INT64_MIN <= value <= _INT64_MAX:
            return value
        raise ValueError("Overflow when unpacking long long")
    if isinstance(value, (bool, np.bool_)) or not hasattr(value, "__index__"):
        raise TypeError(f"{opname}(): argument '{argname}'{_where(position)} must be int, "
                        f"not {_type_name(value)}")
    try:
        return int_arg(operator.index(value), opname, argname, position)
    except TypeError:       # a tensor of floats, or of more than one element
        raise TypeError(f"{opname}(): argument '{argname}'{_where(position)} must be int, "
                        f"not {_type_name(value)}") from None


def int_list_arg(value, opname, argname, position=None, allow_int=True):
    """``value`` (an int or a sequence of ints) as a tuple of Python ints.

    Examples
    --------
    >>> from cygrad.ops._argcheck import int_list_arg
    >>> int_list_arg([0, 1], "sum", "dim", 2)
    (0, 1)
    >>> int_list_arg(1, "sum", "dim", 2)
    (1,)
    >>> int_list_arg((0, 2.5), "sum", "dim", 2)
    Traceback (most recent call last):
        ...
    TypeError: sum(): argument 'dim' (position 2) must be tuple of ints, but found element of type float at pos 1
    """
    if allow_int and not isinstance(value, (bool, np.bool_)) and hasattr(value, "__index__") \
            and getattr(value, "ndim", 0) == 0:
        return (int_arg(value, opname, argname, position),)
    if isinstance(value, (str, bytes)) or not hasattr(value, "__iter__"):
        raise TypeError(f"{opname}(): argument '{argname}'{_where(position)} must be tuple of "
                        f"ints, not {_type_name(value)}")
    out = []
    for i, v in enumerate(value):
        if type(v) is int and _INT64_MIN <= v <= _INT64_MAX:
            out.append(v)
            continue
        if isinstance(v, (bool, np.bool_)) or not hasattr(v, "__index__"):
            raise TypeError(f"{opname}(): argument '{argname}'{_where(position)} must be tuple "
                            f"of ints, but found element of type {_type_name(v)} at pos {i}")
        v = operator.index(v)
        if not _INT64_MIN <= v <= _INT64_MAX:
            raise TypeError(f"{opname}(): argument '{argname}' failed to unpack the object at "
                            f"pos {i + 1} with error \"Overflow when unpacking long long\"")
        out.append(v)
    return tuple(out)


def bool_arg(value, opname, argname, position=None):
    """``value`` if it is a Python bool (PyTorch refuses ints and NumPy bools).

    Examples
    --------
    >>> from cygrad.ops._argcheck import bool_arg
    >>> bool_arg(True, "sum", "keepdim")
    True
    >>> bool_arg(1, "sum", "keepdim")
    Traceback (most recent call last):
        ...
    TypeError: sum(): argument 'keepdim' must be bool, not int
    """
    if value is True or value is False:
        return value
    raise TypeError(f"{opname}(): argument '{argname}'{_where(position)} must be bool, "
                    f"not {_type_name(value)}")


# c10's names for the C type behind each dtype, as its overflow message prints them.
_C_TYPE_NAMES = {"float32": "float", "float64": "double", "float16": "c10::Half",
                 "bfloat16": "c10::BFloat16", "int8": "int8_t", "uint8": "uint8_t",
                 "int16": "int16_t", "int32": "int", "int64": "int64_t",
                 "uint16": "uint16_t", "uint32": "uint32_t", "uint64": "uint64_t"}


def _limits(dtype_name):
    if dtype_name == "bfloat16":
        return -3.3895313892515355e38, 3.3895313892515355e38
    if dtype_name.startswith("float"):
        info = np.finfo(dtype_name)
        return float(info.min), float(info.max)
    info = np.iinfo(dtype_name)
    return int(info.min), int(info.max)


def check_scalar_fits(value, dtype):
    """Raise as PyTorch does when the number ``value`` cannot be stored in ``dtype``.

    A Python int outside ``[-2**63, 2**64)`` is an ``OverflowError`` whatever the
    dtype (PyTorch cannot even read it).  Otherwise the value must lie in the
    dtype's range: NaN and infinity fit only floating dtypes, unsigned integer
    dtypes also take negatives down to ``-max`` (they wrap), bool takes anything.
    The value is returned unchanged.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.ops._argcheck import check_scalar_fits
    >>> check_scalar_fits(300, cygrad.int16)
    300
    >>> check_scalar_fits(300, cygrad.uint8)
    Traceback (most recent call last):
        ...
    RuntimeError: value cannot be converted to type uint8_t without overflow
    """
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, numbers.Integral):
        value = int(value)
        if not _INT64_MIN <= value <= _UINT64_MAX:
            raise OverflowError("int too big to convert")
    elif isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        return value
    name = str(dtype).rsplit(".", 1)[-1]
    if name == "bool" or name not in _C_TYPE_NAMES:
        return value
    lo, hi = _limits(name)
    if name.startswith(("float", "bfloat")):
        v = float(value)
        if math.isnan(v) or math.isinf(v) or lo <= v <= hi:
            return value
    elif isinstance(value, int):
        if lo <= value <= hi or (lo == 0 and -hi <= value < 0):
            return value
    else:
        v = float(value)
        if not (math.isnan(v) or math.isinf(v)) and (lo <= v <= hi or (lo == 0 and -hi <= v < 0)):
            return value
    raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[name]} without overflow")
