"""The values of ``arange``, ``linspace`` and ``logspace``, computed as PyTorch's CPU
kernels compute them, with their checks in their order.

The arithmetic matters, not just the ideal sequence: an integer ``arange`` counts
its length from the float bounds but its values from the bounds truncated to
int64 (``arange(1, 2.5, dtype=int8)`` is ``[1, 2]``); ``linspace`` steps in the
result dtype for floats and in double for integers, counting the second half
down from ``end``; ``logspace`` on integers raises a float32 base to double
exponents, and differences of its bounds wrap like C integers.  Values that
leave an integer dtype's range are converted like a C cast, as NumPy's
``astype`` does on the same hardware.
"""
import math

import numpy as np

from .._core import dtype as _dt
from ._argcheck import check_scalar_fits

_INT64_MAX = (1 << 63) - 1


def _wrap64(v):
    return (v + (1 << 63)) % (1 << 64) - (1 << 63)


def _to_int64(v):
    """c10's checked Scalar -> int64_t conversion (floats truncate toward zero)."""
    if isinstance(v, float) and not -2.0 ** 63 <= v < 2.0 ** 63 or \
            isinstance(v, int) and v > _INT64_MAX:
        raise RuntimeError("value cannot be converted to type int64_t without overflow")
    return int(v)


def _checked_size(size_d):
    if not 0 <= size_d <= float(_INT64_MAX):      # NaN fails too
        raise RuntimeError("invalid size, possible overflow?")
    return int(size_d)


def _as(values, dt):
    with np.errstate(over="ignore", invalid="ignore"):
        return values.astype(dt.np_dtype)


def _reduced(dt):
    return dt is _dt.float16 or dt is _dt.bfloat16


def arange_values(start, end, step, dt):
    """``arange``'s values as an ndarray of ``dt`` (numbers already parsed).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.ops._ranges import arange_values
    >>> arange_values(1, 2.5, 1, cygrad.int8).tolist()
    [1, 2]
    >>> arange_values(1, 2.5, 1, cygrad.int64).tolist()
    [1]
    """
    if dt is _dt.bool_:
        raise NotImplementedError("\"arange_cpu\" not implemented for 'Bool'")
    fstart, fend, fstep = float(start), float(end), float(step)
    if not (fstep > 0 or fstep < 0):
        raise RuntimeError("step must be nonzero")
    if not (math.isfinite(fstart) and math.isfinite(fend)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if not ((fstep > 0 and fend >= fstart) or (fstep < 0 and fend <= fstart)):
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    if dt.is_floating_point:
        acc = np.float32 if _reduced(dt) else np.float64
        if acc is np.float32:
            for v in (start, end, step):
                check_scalar_fits(v, _dt.float32)
        with np.errstate(over="ignore", invalid="ignore"):
            size = _checked_size(np.ceil((fend - fstart) / fstep))
            idx = np.arange(size, dtype=np.int64).astype(acc)
            return _as(acc(fstart) + acc(fstep) * idx, dt)
    istart, iend, istep = _to_int64(start), _to_int64(end), _to_int64(step)
    if dt is _dt.int64:
        # int64 counts in integers (doubles would lose the low bits)
        if istep == 0:
            raise ValueError("step must be nonzero")
        num = _wrap64(iend - istart + istep - (1 if istep > 0 else -1))
        size = _checked_size(abs(num) // abs(istep) * (1 if (num < 0) == (istep < 0) else -1))
    else:
        with np.errstate(over="ignore", invalid="ignore"):
            size = _checked_size(np.ceil((fend - fstart) / fstep))
    with np.errstate(over="ignore"):
        values = np.int64(_wrap64(istart)) + np.int64(istep) * np.arange(size, dtype=np.int64)
    return _as(values, dt)


def _one_value(value, dt):
    """A length-1 result: ``fill_`` of ``value``, with its overflow check."""
    check_scalar_fits(value, dt)
    return _as(np.array([value]), dt)


def _halves(first, last, step, steps, dtype):
    """PyTorch's two-sided walk: the first half up from ``first``, the rest down from
    ``last``, in ``dtype`` arithmetic (so infinite steps give what PyTorch gives)."""
    i = np.arange(steps, dtype=np.int64)
    with np.errstate(over="ignore", invalid="ignore"):
        up = first + step * i.astype(dtype)
        down = last - step * (steps - 1 - i).astype(dtype)
    return np.where(i < steps // 2, up, down)


def _bound(value, dt):
    """``value`` converted to ``dt`` (checked), as a NumPy scalar of ``dt``."""
    check_scalar_fits(value, dt)
    return _as(np.array(value), dt)[()]


def linspace_values(start, end, steps, dt):
    """``linspace``'s values as an ndarray of ``dt``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.ops._ranges import linspace_values
    >>> linspace_values(-100, 100, 5, cygrad.uint8).tolist()
    [156, 142, 128, 114, 100]
    """
    if steps > (1 << 60):
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{steps}]")
    if steps == 0:
        return np.empty(0, dt.np_dtype)
    if steps == 1:
        return _one_value(start, dt)
    if dt is _dt.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    s, e = _bound(start, dt), _bound(end, dt)
    if dt.is_floating_point:
        t = np.dtype(dt.np_dtype).type
        with np.errstate(over="ignore", invalid="ignore"):
            step = (e - s) / t(steps - 1)
        return _as(_halves(s, e, step, steps, t), dt)
    step = (float(e) - float(s)) / (steps - 1)
    return _as(_halves(float(s), float(e), step, steps, np.float64), dt)


def logspace_values(start, end, steps, base, dt):
    """``logspace``'s values as an ndarray of ``dt``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.ops._ranges import logspace_values
    >>> logspace_values(0, 3, 4, 10.0, cygrad.int8).tolist()
    [1, 10, 100, -24]
    """
    if steps > (1 << 60):
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{steps}]")
    if steps == 0:
        return np.empty(0, dt.np_dtype)
    if steps == 1:
        with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
            return _one_value(float(np.power(np.float64(base), np.float64(float(start)))), dt)
    if dt is _dt.bool_:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    s, e = _bound(start, dt), _bound(end, dt)
    if dt.is_floating_point:
        with np.errstate(over="ignore", invalid="ignore"):
            diff = float(e - s)           # the difference is taken in the dtype
        base = float(base)
    else:
        diff = int(e) - int(s)
        bits = max(32, np.dtype(dt.np_dtype).itemsize * 8)   # C promotes small ints to int
        diff = (diff + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        base = float(np.float32(base))   # PyTorch rounds the base to float for integers
    step = diff / (steps - 1)
    with np.errstate(over="ignore", invalid="ignore", divide="ignore"):
        exps = _halves(float(s), float(e), step, steps, np.float64)
        return _as(np.power(base, exps), dt)
