"""CPU kernels of the factories (``cygrad/ops/creation.py``): tensors from Python
data or arrays, and the fills of ``arange``, ``linspace`` and ``logspace``.

The fills reproduce PyTorch's CPU arithmetic, not just the ideal sequence:
``arange`` counts in float32 for half types, in double for other floats and in
wrapping int64 for integers; ``linspace`` steps in the result dtype for floats and
in double for integers, walking the second half down from ``end``; ``logspace`` on
integers raises a float32 base to double exponents, its bounds' difference
wrapping like a C int.  Values that leave an integer dtype are converted like a C
cast, as NumPy's ``astype`` does on the same hardware.  The ops have checked the
arguments (bounds fit the dtype, sizes are sane) before calling these.

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> out = cygrad.empty(3, dtype=cygrad.int8)
>>> kernel("linspace", "cpu")(out, -100, 100).tolist()
[-100, 0, 100]
"""
import warnings

import numpy as np

from .. import dtype as _dt
from .. import tensor as _C
from ..dispatch import register
from ._pydata import array_from_data


def _store(out, values):
    """Write the 1-D ndarray ``values`` into ``out`` converted like a C cast."""
    view = _C._ndarray(out)
    with np.errstate(over="ignore", invalid="ignore"):
        view[...] = values.astype(view.dtype)
    return out


def _halves(first, last, step, steps, dtype):
    """PyTorch's two-sided walk: the first half up from ``first``, the rest down from
    ``last``, in ``dtype`` arithmetic (so infinite steps give what PyTorch gives)."""
    i = np.arange(steps, dtype=np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        up = first + step * i.astype(dtype)
        down = last - step * (steps - 1 - i).astype(dtype)
    return np.where(i < steps // 2, up, down)


def _as(value, dt):
    """``value`` converted to ``dt``, as a NumPy scalar of ``dt``."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.array(value).astype(dt.np_dtype)[()]


@register("arange", "cpu")
def arange(out, start, step):
    """Fill the 1-D tensor ``out`` with ``start + i * step``: float bounds counted in
    float32 for float16/bfloat16 and in double for other floats, int bounds (already
    int64) in wrapping int64 for integer dtypes.

    Examples
    --------
    >>> import cygrad
    >>> arange(cygrad.empty(3, dtype=cygrad.int8), 126, 1).tolist()
    [126, 127, -128]
    """
    n = out.numel()
    if not n:
        return out
    dt = out.dtype
    if dt.is_floating_point:
        acc = np.float32 if dt is _dt.float16 or dt is _dt.bfloat16 else np.float64
        with np.errstate(over="ignore", invalid="ignore"):
            return _store(out, acc(start) + acc(step) * np.arange(n, dtype=np.int64).astype(acc))
    with np.errstate(over="ignore"):
        return _store(out, np.int64(start) + np.int64(step) * np.arange(n, dtype=np.int64))


@register("linspace", "cpu")
def linspace(out, start, end):
    """Fill the 1-D tensor ``out`` (two elements or more) with evenly spaced values
    from ``start`` to ``end`` (numbers that fit its dtype).

    Examples
    --------
    >>> import cygrad
    >>> linspace(cygrad.empty(5, dtype=cygrad.uint8), -100, 100).tolist()
    [156, 142, 128, 114, 100]
    """
    steps, dt = out.numel(), out.dtype
    s, e = _as(start, dt), _as(end, dt)
    if dt.is_floating_point:
        t = np.dtype(dt.np_dtype).type
        with np.errstate(over="ignore", invalid="ignore"):
            step = (e - s) / t(steps - 1)
        return _store(out, _halves(s, e, step, steps, t))
    step = (float(e) - float(s)) / (steps - 1)
    return _store(out, _halves(float(s), float(e), step, steps, np.float64))


@register("logspace", "cpu")
def logspace(out, start, end, base):
    """Fill the 1-D tensor ``out`` (two elements or more) with ``base`` raised to
    evenly spaced exponents from ``start`` to ``end`` (numbers that fit its dtype).

    Examples
    --------
    >>> import cygrad
    >>> logspace(cygrad.empty(4, dtype=cygrad.int8), 0, 3, 10.0).tolist()
    [1, 10, 100, -24]
    """
    steps, dt = out.numel(), out.dtype
    s, e = _as(start, dt), _as(end, dt)
    if dt.is_floating_point:
        with np.errstate(over="ignore", invalid="ignore"):
            diff = float(e - s)           # the difference is taken in the dtype
        base = float(base)
    else:
        diff = int(e) - int(s)
        bits = max(32, dt.itemsize * 8)   # C promotes small ints to int
        diff = (diff + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        base = float(np.float32(base))   # PyTorch rounds the base to float for integers
    step = diff / (steps - 1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        return _store(out, np.power(base, _halves(float(s), float(e), step, steps, np.float64)))


@register("tensor_from_data", "cpu")
def tensor_from_data(data, dtype=None):
    """A new contiguous CPU tensor holding a copy of ``data``: a NumPy array or
    scalar (its dtype kept unless ``dtype`` is given) or nested sequences of numbers
    read as ``torch.tensor`` reads them (dtype inferred, PyTorch's errors).

    Examples
    --------
    >>> tensor_from_data([[1, 2], [3, 4]]).dtype
    cygrad.int64
    >>> import numpy as np
    >>> tensor_from_data(np.float32(2.5)).shape
    cygrad.Size([])
    """
    if isinstance(data, (np.ndarray, np.generic)):
        arr = np.asarray(data)
        dtype = _dt.as_dtype(arr.dtype) if dtype is None else dtype
    else:
        arr = array_from_data(data, dtype)
        dtype = _dt.as_dtype(arr.dtype) if dtype is None else dtype
    # np.array(..., order="C") keeps 0-d data 0-d (np.ascontiguousarray would make it 1-d)
    return _C.from_numpy(np.array(arr, dtype=dtype.np_dtype, order="C", copy=True))


@register("tensor_sharing", "cpu")
def tensor_sharing(data):
    """A CPU tensor sharing ``data``'s memory when ``data`` is a NumPy array of a
    dtype cygrad has; None otherwise.

    Examples
    --------
    >>> import numpy as np
    >>> a = np.zeros(2)
    >>> tensor_sharing(a).data_ptr() == a.ctypes.data, tensor_sharing([1.0])
    (True, None)
    """
    if isinstance(data, np.ndarray) and data.dtype in _dt._BY_NP:
        return _C.from_numpy(data)
    return None


@register("round_scalar", "cpu")
def round_scalar(value, dtype):
    """The Python float ``value`` rounded to the floating ``dtype`` (to +-inf beyond
    its range, with no overflow check), as a Python float.

    Examples
    --------
    >>> import cygrad
    >>> round_scalar(70000.0, cygrad.float16), round_scalar(1.0 / 3, cygrad.bfloat16)
    (inf, 0.333984375)
    """
    return float(_as(float(value), dtype))


@register("tensor_from_buffer", "cpu")
def tensor_from_buffer(buffer, dtype, count, offset):
    """A 1-D CPU tensor sharing the memory of ``buffer`` (any object with the buffer
    protocol): ``count`` elements of ``dtype`` from byte ``offset`` (``count=-1``: all
    that follow). The op checked the sizes and warns about a read-only buffer.

    Examples
    --------
    >>> import array, cygrad
    >>> tensor_from_buffer(array.array("i", [1, 2, 3]), cygrad.int32, -1, 4).tolist()
    [2, 3]
    """
    arr = np.frombuffer(buffer, dtype=dtype.np_dtype, count=count, offset=offset)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)     # (from_numpy's read-only note)
        return _C.from_numpy(arr)
