"""Nested Python data (lists, tuples, numbers) read the way ``torch.tensor`` reads it
(the CPU kernel "tensor_from_data" of :mod:`.creation` calls it).

PyTorch first measures the shape by following the *first* element of each
level, then infers the dtype from every element, then stores each element,
refusing what does not fit: a ragged level is a ``ValueError`` ("expected
sequence of length N at dim D"), a list where a number belongs a ``TypeError``,
an int beyond 64 bits a ``ValueError``, a number out of an integer dtype's
range a ``RuntimeError``.  NumPy reads regular numeric data much faster and
gives the same values, so :func:`array_from_data` lets NumPy try first and
range-checks its result in bulk; only data NumPy cannot read as a plain numeric
array (ragged, mixed with strings or None, ints beyond int64) takes the
element-by-element walk that reproduces PyTorch's errors.
"""
import math
import operator

import numpy as np

from .. import dtype as _dt

_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1
_MAX_DIMS = 64          # PyTorch's limit while measuring nested data


def _range(dt):
    info = np.iinfo(dt.np_dtype)
    return int(info.min), int(info.max)


def _overflow(dt):
    # torch.tensor names the dtype ("int16"), not the C type as fill_ does
    return RuntimeError(f"value cannot be converted to type {dt.name} without overflow")


def infer_dtype(arr):
    """The dtype PyTorch infers for numeric Python data NumPy read as ``arr``.

    Examples
    --------
    >>> import numpy as np
    >>> from cygrad._core.backend_cpu._pydata import infer_dtype
    >>> infer_dtype(np.asarray([1, 2])), infer_dtype(np.asarray([1.5]))
    (cygrad.int64, cygrad.float32)
    """
    # course: begin infer-dtype
    if arr.dtype == np.bool_:
        return _dt.bool_
    if arr.dtype.kind in "iu":
        return _dt.int64
    if arr.dtype.kind == "f":
        return _dt.get_default_dtype()
    if arr.dtype.kind == "c":
        return _dt.get_default_dtype().to_complex()
    raise TypeError(f"Could not infer dtype of {type(arr).__name__}")
    # course: end infer-dtype


def array_from_data(data, dt=None):
    """``data`` (nested lists/tuples of numbers) as an ndarray of dtype ``dt``
    (inferred as PyTorch does when None), with PyTorch's errors.

    Examples
    --------
    >>> from cygrad._core.backend_cpu._pydata import array_from_data
    >>> array_from_data([[1, 2], [3, 4]]).tolist()
    [[1, 2], [3, 4]]
    >>> array_from_data([[1, 2], [3]])
    Traceback (most recent call last):
        ...
    ValueError: expected sequence of length 2 at dim 1 (got 1)
    """
    try:
        arr = np.asarray(data)
    except (ValueError, TypeError, OverflowError):
        arr = None
    if (arr is None or arr.dtype.kind not in "biufc" or arr.dtype == np.uint64
            or (arr.dtype.kind == "c" and dt is not None and not dt.is_complex)):
        return _walk(data, dt)
    if dt is None:
        dt = _infer(data) if _has_numpy_scalars(data, arr) else infer_dtype(arr)
    _check_fits(arr, dt)
    with np.errstate(over="ignore", invalid="ignore"):
        return arr.astype(dt.np_dtype)


def _first_leaf(data):
    while isinstance(data, (list, tuple)) and data:
        data = data[0]
    return data


def _has_numpy_scalars(data, arr):
    """Whether ``data`` holds NumPy scalars, whose dtype PyTorch keeps
    (``tensor([np.int32(1)])`` is int32) where NumPy's array would not tell.

    A non-default array dtype proves it; otherwise small data is scanned in full
    and large data judged by its first element (a full scan of a million-element
    list would cost more than reading it)."""
    if arr.dtype not in (np.int64, np.float64, np.bool_):
        return isinstance(data, (list, tuple))
    if not isinstance(data, (list, tuple)):
        return False
    if arr.size > 10_000:
        return isinstance(_first_leaf(data), np.generic)
    stack = [data]
    while stack:
        x = stack.pop()
        if isinstance(x, (list, tuple)):
            stack.extend(x)
        elif isinstance(x, np.generic):
            return True
    return False


def _check_fits(arr, dt):
    """Bulk form of the per-element check: floats must lie in an integer dtype's
    range (NaN never does); ints may also wrap into an unsigned dtype from -max."""
    if (dt.is_floating_point or dt.is_complex or dt is _dt.bool_ or arr.size == 0
            or arr.dtype.kind == "b"):
        return
    lo, hi = _range(dt)
    if arr.dtype.kind == "f":
        with np.errstate(invalid="ignore"):
            ok = bool(np.all((arr >= lo) & (arr <= hi)))
    else:
        amin, amax = int(arr.min()), int(arr.max())
        ok = amax <= hi and (amin >= lo or (lo == 0 and amin >= -hi))
    if not ok:
        raise _overflow(dt)


def _is_seq(x):
    return isinstance(x, (list, tuple, range, str))


def _sizes(data):
    """PyTorch's shape of nested data: follow the first element of each level."""
    sizes = []
    seq = data
    while _is_seq(seq) or isinstance(seq, np.ndarray):
        if isinstance(seq, np.ndarray):
            return sizes + list(seq.shape)
        sizes.append(len(seq))
        if len(sizes) > _MAX_DIMS:
            raise ValueError(f"too many dimensions '{type(seq).__name__}'")
        if not sizes[-1]:
            break
        seq = seq[0]
    return sizes


def _infer(obj):
    """PyTorch's dtype of nested data: the promotion of every element's dtype."""
    if isinstance(obj, (bool, np.bool_)):
        return _dt.bool_
    if isinstance(obj, (np.floating, np.integer, np.complexfloating)):  # (np.float64 is also a float)
        return _dt.as_dtype(obj.dtype)
    if isinstance(obj, float):
        return _dt.get_default_dtype()
    if isinstance(obj, int):
        return _dt.int64
    if isinstance(obj, complex):
        return _dt.get_default_dtype().to_complex()
    if isinstance(obj, str):
        raise TypeError(f"new(): invalid data type '{type(obj).__name__}'")
    if isinstance(obj, np.ndarray):
        return _dt.as_dtype(obj.dtype)
    if _is_seq(obj):
        if not len(obj):
            return _dt.get_default_dtype()
        found = None
        for item in obj:
            if item is obj:
                raise TypeError("new(): self-referential lists are incompatible")
            d = _infer(item)
            found = d if found is None else _dt.promote_types(found, d)
        return found
    raise RuntimeError(f"Could not infer dtype of {type(obj).__name__}")


def _unpack_long(x):
    try:
        v = operator.index(x)
    except TypeError:
        raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer") from None
    if not _INT64_MIN <= v <= _INT64_MAX:
        raise ValueError("Overflow when unpacking long long")
    return v


def _unpack_double(x):
    if isinstance(x, (str, bytes, list, tuple, range)) or not hasattr(x, "__float__"):
        raise TypeError(f"must be real number, not {type(x).__name__}")
    return float(x)


def _unpack_complex(x):
    if isinstance(x, (str, bytes, list, tuple, range)) or not hasattr(x, "__complex__") \
            and not hasattr(x, "__float__"):
        raise TypeError(f"must be real number, not {type(x).__name__}")
    return complex(x)


def _unpack_bool(x):
    if isinstance(x, (float, np.floating)):
        return bool(x)
    try:
        return bool(operator.index(x))      # any int, even beyond 64 bits, as PyTorch
    except TypeError:
        raise TypeError(f"'{type(x).__name__}' object cannot be interpreted as an integer") from None


def _storer(dt):
    """The function that turns one leaf element into the value stored in ``dt``."""
    if dt.is_floating_point:
        return _unpack_double
    if dt.is_complex:
        return _unpack_complex
    if dt is _dt.bool_:
        return _unpack_bool
    lo, hi = _range(dt)
    bits = np.dtype(dt.np_dtype).itemsize * 8

    def store(x):
        if isinstance(x, (float, np.floating)):
            v = float(x)
            if not lo <= v <= hi:        # NaN fails too
                raise _overflow(dt)
            return int(v)
        v = _unpack_long(x)
        if not (lo <= v <= hi or (lo == 0 and -hi <= v < 0)):
            raise _overflow(dt)
        return v & ((1 << bits) - 1) if lo == 0 else v
    return store


def _walk(data, dt):
    sizes = _sizes(data)
    if dt is None:
        dt = _infer(data)
    flat = []
    if math.prod(sizes):
        _store(data, sizes, 0, _storer(dt), flat)
    with np.errstate(over="ignore"):
        return np.array(flat, dtype=dt.np_dtype).reshape(sizes)


def _store(obj, sizes, dim, store, flat):
    if dim == len(sizes):
        flat.append(store(obj))
        return
    if isinstance(obj, np.ndarray):
        obj = obj.tolist()
    if not _is_seq(obj):
        raise TypeError("not a sequence")
    if len(obj) != sizes[dim]:
        raise ValueError(f"expected sequence of length {sizes[dim]} at dim {dim} (got {len(obj)})")
    for item in obj:
        _store(item, sizes, dim + 1, store, flat)
