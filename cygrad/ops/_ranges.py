"""``arange``, ``linspace`` and ``logspace``: their checks in PyTorch's order, the
length of the result, and the fill by the device's kernel ("arange",
"linspace", "logspace" in the kernel table).

An integer ``arange`` counts its length from the float bounds but its values
from the bounds truncated to int64 (``arange(1, 2.5, dtype=int8)`` is
``[1, 2]``); a one-element ``linspace``/``logspace`` is a ``fill_`` of the first
value (with ``fill_``'s overflow check, none for float16/bfloat16: a plain
rounding).
"""
import math

from .._core import dtype as _dt
from .._core import tensor as _C
from .._core.dispatch import kernel
from .._device import CPU
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


def _checked_size(quotient):
    """The length ``ceil(quotient)`` of a float range, refused as PyTorch refuses it."""
    if not -math.inf < quotient < math.inf or not 0 <= math.ceil(quotient) <= 1 << 63:
        raise RuntimeError("invalid size, possible overflow?")
    return math.ceil(quotient)


def _reduced(dt):
    return dt is _dt.float16 or dt is _dt.bfloat16


def _new(size, dt, device=CPU):
    """The 1-D result on ``device``, refused where PyTorch's storage size would overflow."""
    if size * dt.itemsize > _INT64_MAX:
        raise RuntimeError(f"Storage size calculation overflowed with sizes=[{size}]")
    return _C._empty((size,), dt, device)


def arange_values(start, end, step, dt, device=CPU):
    """``arange``'s values as a tensor of ``dt`` filled on ``device`` (numbers already
    parsed).

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
        if _reduced(dt):                 # counted in float32
            for v in (start, end, step):
                check_scalar_fits(v, _dt.float32)
        return _arange_fill(_new(_checked_size((fend - fstart) / fstep), dt, device), fstart,
                            fstep)
    istart, iend, istep = _to_int64(start), _to_int64(end), _to_int64(step)
    if dt is _dt.int64:
        # int64 counts in integers (doubles would lose the low bits)
        if istep == 0:
            raise ValueError("step must be nonzero")
        num = _wrap64(iend - istart + istep - (1 if istep > 0 else -1))
        size = _checked_size(abs(num) // abs(istep) * (1 if (num < 0) == (istep < 0) else -1))
    else:
        size = _checked_size((fend - fstart) / fstep)
    return _arange_fill(_new(size, dt, device), _wrap64(istart), istep)


def _arange_fill(out, start, step):
    return kernel("arange", out.device.type)(out, start, step) if out.numel() else out


def _one_value(value, dt, device):
    """A length-1 result: ``fill_`` of ``value``, with its overflow check (PyTorch
    rounds into float16/bfloat16 without one: 70000 becomes inf)."""
    if _reduced(dt):
        value = kernel("round_scalar", "cpu")(value, dt)
    else:
        check_scalar_fits(value, dt)
    return _C.full((1,), value, dtype=dt, device=device)


def linspace_values(start, end, steps, dt, device=CPU):
    """``linspace``'s values as a tensor of ``dt`` filled on ``device``.

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
        return _new(0, dt, device)
    if steps == 1:
        return _one_value(start, dt, device)
    if dt is _dt.bool_:
        raise NotImplementedError("\"linspace_cpu\" not implemented for 'Bool'")
    check_scalar_fits(start, dt)
    check_scalar_fits(end, dt)
    out = _new(steps, dt, device)       # (first: a CUDA tensor installs the 'cuda' kernels)
    return kernel("linspace", out.device.type)(out, start, end)


def logspace_values(start, end, steps, base, dt, device=CPU):
    """``logspace``'s values as a tensor of ``dt`` filled on ``device``.

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
        return _new(0, dt, device)
    if steps == 1:
        # base ** start as the C library computes it in double (pow's IEEE cases)
        power = _C.full((), float(base), dtype=_dt.float64) ** float(start)
        return _one_value(power.item(), dt, device)
    if dt is _dt.bool_:
        raise NotImplementedError("\"logspace_cpu\" not implemented for 'Bool'")
    check_scalar_fits(start, dt)
    check_scalar_fits(end, dt)
    out = _new(steps, dt, device)
    return kernel("logspace", out.device.type)(out, start, end, base)
