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
import operator

from .._core.scalars import BOOL_TYPES, NDARRAY_TYPE, NUMPY_SCALAR_TYPES, REAL_NUMBER_TYPES

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
    if isinstance(value, BOOL_TYPES) or not hasattr(value, "__index__"):
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
    if allow_int and not isinstance(value, BOOL_TYPES) and hasattr(value, "__index__") \
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
        # PyTorch picks the overload from the first element: a later bool reads as an int
        if (i == 0 and isinstance(v, BOOL_TYPES)) or not hasattr(v, "__index__"):
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


from .._core.scalars import check_scalar_fits  # noqa: E402,F401  (lives in the array layer)


# c10::SymInt keeps a plain int inline and reserves the values below -2**62 to
# tag a pointer to a symbolic int: a list argument holding one is not "concrete".
_SYMINT_MIN = -(1 << 62)


def symint_list_arg(values):
    """``values`` (a tuple of ints) refused as PyTorch refuses a ``SymInt[]``
    argument (shapes, repeats, shifts, pad widths) holding an int below ``-2**62``.

    Examples
    --------
    >>> from cygrad.ops._argcheck import symint_list_arg
    >>> symint_list_arg((2, -3))
    (2, -3)
    >>> symint_list_arg((1, -2**62 - 1))
    Traceback (most recent call last):
        ...
    RuntimeError: SymIntArrayRef expected to contain only concrete integers
    """
    for v in values:
        if v < _SYMINT_MIN:
            raise RuntimeError("SymIntArrayRef expected to contain only concrete integers")
    return values


def float_arg(value, opname, argname, position=None):
    """``value`` as PyTorch's parser reads a ``float`` argument: a real Python or
    NumPy number (bools and ints too) or a 0-d real tensor; anything else is a
    ``TypeError``.  The value is returned unchanged.

    Examples
    --------
    >>> from cygrad.ops._argcheck import float_arg
    >>> float_arg(2, "pad", "value", 4)
    2
    >>> float_arg((), "pad", "value", 4)
    Traceback (most recent call last):
        ...
    TypeError: pad(): argument 'value' (position 4) must be float, not tuple
    """
    if isinstance(value, REAL_NUMBER_TYPES):
        return value
    from .._core.tensor import TensorBase
    if isinstance(value, TensorBase) and value.dim() == 0 and not value.dtype.is_complex:
        return value
    raise TypeError(f"{opname}(): argument '{argname}'{_where(position)} must be float, "
                    f"not {_type_name(value)}")


def number_arg(value, opname, argname, position=None):
    """``value`` as PyTorch's parser reads a ``Scalar`` (Number) argument: a Python
    or NumPy bool/int/float or a 0-d tensor (given back as a Python number).  A
    Python int outside ``[-2**63, 2**64)`` is an ``OverflowError``, anything that
    is not a number a ``TypeError``.

    Examples
    --------
    >>> from cygrad.ops._argcheck import number_arg
    >>> number_arg(2.5, "arange", "end", 1)
    2.5
    >>> number_arg(2**64, "arange", "end", 1)
    Traceback (most recent call last):
        ...
    OverflowError: int too big to convert
    >>> number_arg("x", "arange", "end", 1)
    Traceback (most recent call last):
        ...
    TypeError: arange(): argument 'end' (position 1) must be Number, not str
    """
    if type(value) is float or type(value) is bool or type(value) is complex:
        return value
    if type(value) is int:
        if _INT64_MIN <= value <= _UINT64_MAX:
            return value
        raise OverflowError("int too big to convert")
    if isinstance(value, NUMPY_SCALAR_TYPES):
        return value.item()
    if getattr(value, "ndim", None) == 0 and not isinstance(value, NDARRAY_TYPE) \
            and hasattr(value, "item") and not getattr(value.dtype, "is_complex", False):
        return value.item()
    if isinstance(value, (int, float)):      # subclasses (IntEnum, ...)
        return number_arg(int(value) if isinstance(value, int) else float(value),
                          opname, argname, position)
    raise TypeError(f"{opname}(): argument '{argname}'{_where(position)} must be Number, "
                    f"not {_type_name(value)}")
