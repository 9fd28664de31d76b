"""Turning arguments into tensors of the right dtype: the one place where
``cygrad.numpy`` decides what a Python scalar, a list or a NumPy array becomes.

Everything here uses cygrad's public tensor API, so the graph is kept: a tensor
that requires grad stays in the graph through ``.to(dtype)``.

Examples
--------
>>> import cygrad
>>> from cygrad.numpy._helpers import operands
>>> a, b = operands(cygrad.tensor([1, 2], dtype=cygrad.int8), cygrad.tensor([1.5], dtype=cygrad.float32))
>>> a.dtype, b.dtype
(cygrad.float32, cygrad.float32)
"""
import builtins
import operator

import numpy as _np

import cygrad
from . import _dtypes as D

Tensor = cygrad.Tensor
_SCALARS = (builtins.bool, builtins.int, builtins.float, builtins.complex)
_INT_RANGE = {D.int8: (-2**7, 2**7 - 1), D.int16: (-2**15, 2**15 - 1),
              D.int32: (-2**31, 2**31 - 1), D.int64: (-2**63, 2**63 - 1), D.uint8: (0, 255)}


def _device_arg(device):
    if device is None:
        return None
    return cygrad.device(device) if isinstance(device, str) else device


def asarray(obj, /, *, dtype=None, device=None, copy=None):
    """Convert ``obj`` (a tensor, NumPy array, Python scalar, nested sequence, or an
    object with ``__dlpack__``) to a cygrad tensor.

    ``copy=None`` copies only when needed, ``copy=True`` always copies (for a tensor
    the copy stays in the graph), ``copy=False`` never copies and raises
    ``ValueError`` when it would have to. Python floats become float64 and ints
    int64, as in NumPy.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.asarray([1.0, 2.0])
    tensor([1., 2.], dtype=cygrad.float64)
    >>> cnp.asarray([1, 2], dtype=cnp.float32)
    tensor([1., 2.])
    """
    dt = None if dtype is None else D.as_dtype(dtype)
    dev = _device_arg(device)
    if isinstance(obj, Tensor):
        out = obj
        if dt is not None and dt is not obj.dtype:
            if copy is False:
                raise ValueError("asarray(copy=False) would have to copy to change the dtype")
            out = obj.to(dt)
            copied = True
        else:
            copied = False
        if dev is not None and dev != out.device:
            if copy is False:
                raise ValueError("asarray(copy=False) would have to copy to change the device")
            out = out.to(dev)
            copied = True
        if copy and not copied:
            out = out.clone()
        return out
    if hasattr(obj, "__dlpack__") and not isinstance(obj, _np.ndarray):
        return asarray(cygrad.from_dlpack(obj), dtype=dt, device=dev, copy=copy)
    if isinstance(obj, (list, tuple)) and _contains_tensor(obj):
        return asarray(cygrad.stack([asarray(o) for o in obj]), dtype=dt, device=dev, copy=copy)
    if isinstance(obj, _np.ndarray) or hasattr(obj, "__array__") or isinstance(obj, memoryview):
        arr = _np.asarray(obj)
        if dt is not None and arr.dtype != dt.np_dtype:
            if copy is False:
                raise ValueError("asarray(copy=False) would have to copy to change the dtype")
            arr = arr.astype(dt.np_dtype)
        elif copy:
            arr = arr.copy()
        out = cygrad.as_tensor(arr) if arr.flags.writeable else cygrad.tensor(arr)
    else:
        if copy is False:
            raise ValueError(f"asarray(copy=False) cannot wrap a {type(obj).__name__} without copying")
        arr = _np.asarray(obj, dtype=None if dt is None else dt.np_dtype)
        if arr.dtype.kind in "OUSV":
            raise TypeError(f"cannot make a numeric array from {type(obj).__name__}")
        out = cygrad.from_numpy(arr)
    if dt is None:
        D.as_dtype(out.dtype)            # refuses dtypes the namespace lacks
    return out if dev is None else out.to(dev)


def _contains_tensor(seq):
    for o in seq:
        if isinstance(o, Tensor) or (isinstance(o, (list, tuple)) and _contains_tensor(o)):
            return True
    return False


def tensor(x):
    """``x`` as a tensor: tensors pass through, everything else goes through ``asarray``."""
    return x if isinstance(x, Tensor) else asarray(x)


def scalar_tensor(value, dt, like):
    return cygrad.full((), value, dtype=dt, device=like.device if like is not None else None)


def _check_int_range(value, dt):
    lo_hi = _INT_RANGE.get(dt)
    if lo_hi is not None and not (lo_hi[0] <= value <= lo_hi[1]):
        raise OverflowError(f"Python integer {value} out of bounds for {dt.name}")


def operands(x1, x2):
    """Both operands as tensors of their common dtype (the standard's promotion)."""
    t1, t2 = isinstance(x1, Tensor), isinstance(x2, Tensor)
    if t1 and t2:
        d1, d2 = x1.dtype, x2.dtype
        if d1 is d2:
            return x1, x2
        dt = D._promote_pair(d1, d2)
        return (x1 if d1 is dt else x1.to(dt)), (x2 if d2 is dt else x2.to(dt))
    if t1 and isinstance(x2, _SCALARS):
        dt = D.result_type(x1.dtype, x2)
        if isinstance(x2, builtins.int) and not isinstance(x2, builtins.bool):
            _check_int_range(x2, dt)
        x1 = x1 if x1.dtype is dt else x1.to(dt)
        return x1, scalar_tensor(x2, dt, x1)
    if t2 and isinstance(x1, _SCALARS):
        b, a = operands(x2, x1)
        return a, b
    return operands(tensor(x1), tensor(x2))


def operands_scalar_ok(x1, x2):
    """Like ``operands``, but a Python scalar whose kind fits the tensor's dtype stays a
    Python number (cygrad's arithmetic takes numbers, and making a 0-d tensor per call
    would cost more than the op on a small array)."""
    if isinstance(x1, Tensor):
        if isinstance(x2, Tensor):
            if x1.dtype is x2.dtype:
                return x1, x2
            return operands(x1, x2)
        if isinstance(x2, _SCALARS) and _scalar_fits(x2, x1.dtype):
            return x1, x2
    return operands(x1, x2)


def _scalar_fits(value, dt):
    if isinstance(value, builtins.bool):
        return True
    if isinstance(value, builtins.int):
        if dt is D.bool:
            return False
        if not dt.is_floating_point:
            _check_int_range(value, dt)
        return True
    if isinstance(value, builtins.complex):
        return dt.is_complex
    return dt.is_floating_point or dt.is_complex


def floating(x):
    """``x`` as a tensor in the float dtype NumPy computes float-valued functions in."""
    x = tensor(x)
    dt = x.dtype
    return x if dt.is_floating_point or dt.is_complex else x.to(D.float_for(dt))


def normalize_axis(axis, ndim):
    """``axis`` (int) in ``[0, ndim)``; ``IndexError`` as NumPy's AxisError does."""
    axis = operator.index(axis)
    if not -ndim <= axis < builtins.max(ndim, 1):
        raise IndexError(f"axis {axis} is out of bounds for array of dimension {ndim}")
    return axis % ndim if ndim else 0


def axes_arg(axis, ndim):
    """``axis`` (None, int or tuple) as a tuple of normalized axes, or None for all."""
    if axis is None:
        return None
    if isinstance(axis, (tuple, list)):
        axes = tuple(normalize_axis(a, ndim) for a in axis)
        if len(set(axes)) != len(axes):
            raise ValueError("repeated axis")
        return axes
    return (normalize_axis(axis, ndim),)
