"""CPU side of the special functions: the array functions that the dispatcher's
rows of ``cygrad.special`` call (``_core/special_table.py``), and ``frexp``.

The C loops (``special_kernels``) take contiguous float64: each function here
converts its operands (broadcasting them against ``out``), runs the loop, rounds
the result to the computing dtype (float32, float16...) as a kernel of that dtype
would, then writes it into ``out``. Ops NumPy has as ufuncs (``logaddexp``,
``gcd``, ``copysign``...) use them directly.

Examples
--------
>>> import numpy as np
>>> from cygrad._core.backend_cpu.special import unary_loop
>>> out = np.empty(2, np.float32)
>>> unary_loop("lgamma")(np.array([1.0, 3.0], np.float32), out=out).tolist()
[0.0, 0.6931471824645996]
"""
import numpy as np

from .. import special_kernels as _K
from ..dispatch import register

_TORCH_NAMES = {"float16": "Half", "bfloat16": "BFloat16"}


def _refuse_half(name, dtype):
    """PyTorch has no half kernel for most special functions: the same error."""
    raise NotImplementedError(f"\"{name}_cpu\" not implemented for "
                              f"'{_TORCH_NAMES.get(np.dtype(dtype).name, np.dtype(dtype).name)}'")


def _is_half(dtype):
    return np.dtype(dtype).name in _TORCH_NAMES


def unary_loop(name, half=True, torch_name=None):
    """``f(x, out=...)`` computing the C function ``name`` elementwise; without
    ``half``, float16/bfloat16 inputs raise as in PyTorch (naming ``torch_name``)."""
    def f(x, out=None, casting="unsafe"):
        if not half and _is_half(x.dtype):
            _refuse_half(torch_name or name, x.dtype)
        if x.dtype.kind == "c":          # (only sinc's row lets complex through)
            out[...] = _COMPLEX[name](x)
            return out
        flat = np.ascontiguousarray(x, dtype=np.float64).reshape(-1)
        res = np.empty_like(flat)
        _K.unary(name, flat, res)
        out[...] = res.reshape(x.shape).astype(x.dtype)
        return out
    f.__name__ = name
    return f


def _complex_sinc(z):
    """sin(pi z) / (pi z), 1 at 0, as PyTorch computes it for complex tensors."""
    pz = np.pi * z
    zero = z == 0
    return np.where(zero, np.ones((), z.dtype), np.sin(pz) / np.where(zero, 1, pz)).astype(z.dtype)


_COMPLEX = {"sinc": _complex_sinc}


def binary_loop(name, half=True, torch_name=None):
    """``f(a, b, out=...)`` computing the C function ``name`` of two broadcast
    operands (both already in the computing dtype)."""
    def f(a, b, out=None, casting="unsafe"):
        a, b = np.asarray(a), np.asarray(b)
        if not half and _is_half(a.dtype):
            _refuse_half(torch_name or name, a.dtype)
        a64, b64 = (np.ascontiguousarray(np.broadcast_to(v, out.shape), dtype=np.float64).reshape(-1)
                    for v in (a, b))
        res = np.empty_like(a64)
        _K.binary(name, a64, b64, res)
        out[...] = res.reshape(out.shape).astype(a.dtype)
        return out
    f.__name__ = name
    return f


def logaddexp(a, b, out=None, casting="unsafe"):
    return _rounded(np.logaddexp, a, b, out)


def logaddexp2(a, b, out=None, casting="unsafe"):
    return _rounded(np.logaddexp2, a, b, out)


def copysign(a, b, out=None, casting="unsafe"):
    return _rounded(np.copysign, a, b, out)


def nextafter(a, b, out=None, casting="unsafe"):
    a, b = np.asarray(a), np.asarray(b)
    if _is_half(a.dtype) and a.dtype != np.float16:
        # ml_dtypes has no nextafter for bfloat16: step its bit pattern
        out[...] = _nextafter_bits(a, b)
        return out
    return np.nextafter(a, b, out=out, casting=casting)


def _nextafter_bits(a, b):
    a, b = np.broadcast_arrays(a, b)
    bits = a.view(np.uint16).astype(np.int32)
    af, bf = a.astype(np.float32), b.astype(np.float32)
    up = (bf > af) == (af >= 0)                  # away from zero when moving outward
    step = np.where(up, 1, -1)
    res = (bits + step).astype(np.uint16).view(a.dtype)
    zero = af == 0
    smallest = np.where(bf > 0, 1, 0x8001).astype(np.uint16).view(a.dtype)
    res = np.where(zero, smallest, res)
    res = np.where(af == bf, b, res)
    return np.where(np.isnan(af) | np.isnan(bf), np.float32("nan"), res)


def heaviside(a, b, out=None, casting="unsafe"):
    a, b = np.asarray(a), np.asarray(b)
    # PyTorch's rule: values where x == 0, else x > 0 (so NaN gives 0, not NaN)
    out[...] = np.where(a == 0, b, a > 0)
    return out


def gcd(a, b, out=None, casting="unsafe"):
    return np.gcd(a, b, out=out, casting=casting)


def lcm(a, b, out=None, casting="unsafe"):
    return np.lcm(a, b, out=out, casting=casting)


def signbit(x, out=None, casting="unsafe"):
    if x.dtype.kind in "biu":
        out[...] = (x < 0) if x.dtype.kind == "i" else False
        return out
    out[...] = np.signbit(x.astype(np.float32) if _is_half(x.dtype) else x)
    return out


def isposinf(x, out=None, casting="unsafe"):
    out[...] = np.isposinf(x.astype(np.float64)) if x.dtype.kind not in "fc" else np.isposinf(x)
    return out


def isneginf(x, out=None, casting="unsafe"):
    out[...] = np.isneginf(x.astype(np.float64)) if x.dtype.kind not in "fc" else np.isneginf(x)
    return out


def _rounded(ufunc, a, b, out):
    """A NumPy ufunc of two operands, computed in float32 for half dtypes (ml_dtypes
    lacks some) and rounded to the computing dtype."""
    a, b = np.asarray(a), np.asarray(b)
    dt = a.dtype
    if _is_half(dt):
        out[...] = ufunc(a.astype(np.float32), b.astype(np.float32)).astype(dt)
    else:
        out[...] = ufunc(a, b)
    return out


@register("frexp", "cpu")
def frexp(input):
    """(mantissa, exponent) of a float tensor: ``input = mantissa * 2**exponent``,
    ``|mantissa|`` in [0.5, 1); the exponent is int32."""
    from ..tensor import from_numpy
    arr = np.asarray(input.numpy(force=True))
    half = _is_half(arr.dtype)
    with np.errstate(all="ignore"):
        m, e = np.frexp(arr.astype(np.float32) if half else arr)
    return (from_numpy(np.asarray(m.astype(arr.dtype))),
            from_numpy(np.asarray(e.astype(np.int32))))
