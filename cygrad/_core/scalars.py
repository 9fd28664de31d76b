"""How a Python number is stored into a tensor of a given dtype: c10's rules.

The array layer needs them (``x[i] = v``, ``fill_``, factories) and so does the
argument checking of ops (``cygrad/ops/_argcheck.py`` re-exports
:func:`check_scalar_fits`).
"""
import math
import numbers

import numpy as np

_INT64_MIN, _INT64_MAX, _UINT64_MAX = -(1 << 63), (1 << 63) - 1, (1 << 64) - 1

# The host's scalar types as the layers above recognise them (Python's and NumPy's),
# so that argument checking needs no NumPy import of its own.
BOOL_TYPES = (bool, np.bool_)
REAL_NUMBER_TYPES = (int, float, np.bool_, np.integer, np.floating)
NUMPY_SCALAR_TYPES = (np.bool_, np.integer, np.floating, np.complexfloating)
NDARRAY_TYPE = np.ndarray


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
    dtypes also take negative *integers* down to ``-max`` (they wrap; a negative
    float overflows), bool takes anything.
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
    # Fast path: a Python float or int and a dtype seen before (the common call);
    # anything out of these bounds takes the full rules below.
    kind = type(value)
    if kind is float or kind is int:
        try:
            bounds = _BOUNDS_BY_DTYPE[dtype]
        except (KeyError, TypeError):
            pass
        else:
            if kind is float:
                if bounds[0] <= value <= bounds[1]:
                    return value
            elif bounds[2] <= value <= bounds[3]:
                return value
    return _check_scalar_fits_slow(value, dtype)


# dtype -> (lowest float, highest float, lowest int, highest int) that surely fit.
# An integer dtype sends every float to the full rules (no comparison with NaN holds).
_BOUNDS_BY_DTYPE = {}


def _remember_bounds(dtype, name):
    if name == "bool":
        bounds = (-math.inf, math.inf, _INT64_MIN, _UINT64_MAX)
    else:
        lo, hi = _limits(name)
        if name.startswith(("float", "bfloat")):
            bounds = (lo, hi, max(int(lo), _INT64_MIN), min(int(hi), _UINT64_MAX))
        else:
            bounds = (math.nan, math.nan, lo, hi)
    try:
        _BOUNDS_BY_DTYPE[dtype] = bounds
    except TypeError:          # an unhashable dtype-like: no fast path for it
        pass


def _check_scalar_fits_slow(value, dtype):
    if isinstance(value, (bool, np.bool_)):
        return value
    if isinstance(value, numbers.Integral):
        value = int(value)
        if value < _INT64_MIN:
            raise OverflowError("can't convert negative int to unsigned")    # PyTorch's words
        if value > _UINT64_MAX:
            raise OverflowError("int too big to convert")
    elif isinstance(value, numbers.Complex) and not isinstance(value, numbers.Real):
        name = str(dtype).rsplit(".", 1)[-1]
        if value.imag == 0 or name not in _C_TYPE_NAMES:     # (complex dtypes take it)
            return value
        raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[name]} without "
                           "overflow")
    name = str(dtype).rsplit(".", 1)[-1]
    if name == "bool":
        _remember_bounds(dtype, name)
        return value
    if name not in _C_TYPE_NAMES:
        return value
    _remember_bounds(dtype, name)
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
        # (c10 lets only integers wrap into an unsigned type: -0.5 into uint8 overflows)
        if not (math.isnan(v) or math.isinf(v)) and lo <= v <= hi:
            return value
    raise RuntimeError(f"value cannot be converted to type {_C_TYPE_NAMES[name]} without overflow")
