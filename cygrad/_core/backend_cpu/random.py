"""NumPy kernels that turn mt19937 output into the floating-point values PyTorch's
CPU sampling kernels produce, bit for bit.

PyTorch's CPU kernels are compiled for AVX2/AVX-512 with fused multiply-add
contraction, so ``x * (to - from) + from`` is one rounding, not two; NumPy has no
FMA, so :func:`fma32` and :func:`fma64` emulate it exactly.  The float32 normal
sampler runs a vectorised Box-Muller whose ``log`` and ``sincos`` are the Cephes
polynomials of ``avx_mathfun.h`` (with the FMA contractions GCC applies);
:func:`log8_ps` and :func:`sincos8_ps` evaluate the same polynomials in the same
order.  The float64 paths call glibc's ``log``/``log1p``/``sin``/``cos`` through
:mod:`math`, as PyTorch does through ``std::``, because NumPy's SIMD ``log`` can
differ from glibc's in the last bit.

Examples
--------
>>> import numpy as np
>>> from cygrad._core.backend_cpu.random import fma64
>>> float(fma64(np.array([0.1]), np.array([10.0]), np.array([-1.0]))[0]) != 0.1 * 10.0 - 1.0
True
"""
import math

import numpy as np

_F32 = np.float32
_SPLIT = 134217729.0          # 2**27 + 1: Dekker's splitter for float64
_TWO_PI = 2.0 * math.pi


# ----------------------------------------------------------------------- fused multiply-add

def _two_sum(a, b):
    """s, e with s = fl(a + b) and s + e == a + b exactly (Knuth)."""
    s = a + b
    bb = s - a
    return s, (a - (s - bb)) + (b - bb)


def _two_prod(a, b):
    """p, e with p = fl(a * b) and p + e == a * b exactly (Dekker)."""
    p = a * b
    t = _SPLIT * a
    ah = t - (t - a)
    al = a - ah
    t = _SPLIT * b
    bh = t - (t - b)
    bl = b - bh
    return p, ((ah * bh - p) + ah * bl + al * bh) + al * bl


def _round_to_odd(s, e):
    """The round-to-odd value of s + e, given s = fl(s + e) from a two-sum."""
    fix = (e != 0) & ((s.view(np.int64) & 1) == 0)
    if fix.any():
        s = np.where(fix, np.nextafter(s, np.where(e > 0, np.inf, -np.inf)), s)
    return s


def fma64(a, b, c):
    """``a * b + c`` rounded once, in float64 (Boldo and Melquiond's emulation).

    Examples
    --------
    >>> import numpy as np
    >>> a = np.array([1.0 + 2.0**-30])
    >>> float(fma64(a, a, np.array([-1.0]))[0]) == 2.0**-29 + 2.0**-60
    True
    """
    a, b, c = np.broadcast_arrays(np.asarray(a, np.float64), np.asarray(b, np.float64),
                                  np.asarray(c, np.float64))
    uh, ul = _two_prod(a, b)
    th, tl = _two_sum(c, uh)
    s, e = _two_sum(tl, ul)
    return th + _round_to_odd(s, e)


def fma32(a, b, c):
    """``a * b + c`` rounded once to float32.

    The product of two float32 values is exact in float64; the float64 sum is then
    made round-to-odd (53 >= 24 + 2 bits), which makes its rounding to float32 the
    correctly rounded fused result.

    Examples
    --------
    >>> import numpy as np
    >>> x = np.float32(1 + 2**-12)
    >>> float(fma32(x, x, np.float32(-1))) == 2**-11 + 2**-24
    True
    """
    s = np.multiply(a, b, dtype=np.float64)
    s += c
    # Only a float64 sum lying exactly halfway between two float32 values can be
    # rounded wrongly by the second rounding; fix those few with the exact error.
    tie = (s.view(np.int64) & 0x1FFFFFFF) == 0x10000000
    if tie.any():
        p = np.multiply(a, b, dtype=np.float64)
        s = np.where(tie, _round_to_odd(*_two_sum(p, np.asarray(c, np.float64) + 0 * p)), s)
    return s.astype(_F32)


# ----------------------------------------------------------------------- avx_mathfun

_LOG_P = [7.0376836292E-2, -1.1514610310E-1, 1.1676998740E-1, -1.2420140846E-1,
          1.4249322787E-1, -1.6668057665E-1, 2.0000714765E-1, -2.4999993993E-1,
          3.3333331174E-1]


def log8_ps(x):
    """float32 natural log of positive normal ``x`` with avx_mathfun's ``log256_ps``
    polynomial and evaluation order.

    Examples
    --------
    >>> import numpy as np
    >>> abs(float(log8_ps(np.array([2.0], np.float32))[0]) - 0.6931472) < 1e-6
    True
    """
    x = np.maximum(np.asarray(x, _F32), _F32(1.17549435e-38))
    bits = x.view(np.int32)
    e = ((bits >> 23) - 126).astype(_F32)
    m = ((bits & ~0x7f800000) | 0x3f000000).view(_F32)   # mantissa in [0.5, 1)
    small = m < _F32(0.707106781186547524)
    e = e - small.astype(_F32)
    m = (m - _F32(1)) + np.where(small, m, _F32(0))
    z = m * m
    y = np.full_like(m, _F32(_LOG_P[0]))
    for p in _LOG_P[1:]:
        y = fma32(y, m, _F32(p))
    y = y * m
    y = fma32(y, z, e * _F32(-2.12194440e-4))
    y = fma32(-z, _F32(0.5), y)
    return fma32(e, _F32(0.693359375), m + y)


def sincos8_ps(x):
    """float32 ``(sin(x), cos(x))`` with avx_mathfun's ``sincos256_ps``.

    Examples
    --------
    >>> import numpy as np
    >>> s, c = sincos8_ps(np.array([0.5], np.float32))
    >>> abs(float(s[0]) - 0.47942555) < 1e-6 and abs(float(c[0]) - 0.87758255) < 1e-6
    True
    """
    x = np.asarray(x, _F32)
    sign_sin = np.signbit(x)
    x = np.abs(x)
    j = (x * _F32(1.27323954473516)).astype(np.int32)
    j = (j + 1) & ~1
    y = j.astype(_F32)
    sign_sin ^= (j & 4) != 0
    sign_cos = (~(j - 2) & 4) != 0
    poly = (j & 2) == 0
    x = fma32(y, _F32(-0.78515625), x)
    x = fma32(y, _F32(-2.4187564849853515625e-4), x)
    x = fma32(y, _F32(-3.77489497744594108e-8), x)
    z = x * x
    yc = fma32(_F32(2.443315711809948E-005), z, _F32(-1.388731625493765E-003))
    yc = fma32(yc, z, _F32(4.166664568298827E-002))
    yc = yc * z
    yc = fma32(yc, z, -(z * _F32(0.5))) + _F32(1)
    ys = fma32(_F32(-1.9515295891E-4), z, _F32(8.3321608736E-3))
    ys = fma32(ys, z, _F32(-1.6666654611E-1))
    ys = fma32(ys * z, x, x)
    s = np.where(poly, ys, yc)
    c = np.where(poly, yc, ys)
    return np.where(sign_sin, -s, s), np.where(sign_cos, -c, c)


# ----------------------------------------------------------------------- Box-Muller

_CHUNK_ROWS = 2048      # rows of 16 per pass: keeps the temporaries in cache


def box_muller16_f32(u, mean, std):
    """PyTorch's AVX2 ``normal_fill_16``: rows of 16 float32 uniforms become 16
    normals, element j pairing with j + 8.

    Examples
    --------
    >>> import numpy as np
    >>> box_muller16_f32(np.full((1, 16), 0.25, np.float32), 0.0, 1.0).shape
    (1, 16)
    """
    out = np.empty(u.shape, _F32)
    mean, std = _F32(mean), _F32(std)
    for r in range(0, u.shape[0], _CHUNK_ROWS):
        blk = u[r:r + _CHUNK_ROWS]
        radius = np.sqrt(_F32(-2) * log8_ps(_F32(1) - blk[:, :8]))
        s, c = sincos8_ps(_F32(_TWO_PI) * blk[:, 8:])
        out[r:r + _CHUNK_ROWS, :8] = fma32(radius * c, std, mean)
        out[r:r + _CHUNK_ROWS, 8:] = fma32(radius * s, std, mean)
    return out


def libm(f, a):
    """``f`` (a :mod:`math` function, i.e. glibc's) applied to every element of the
    float64 array ``a``.

    Examples
    --------
    >>> import math, numpy as np
    >>> libm(math.log, np.array([1.0, math.e])).tolist()
    [0.0, 1.0]
    """
    a = np.asarray(a, np.float64)
    return np.fromiter(map(f, a.ravel().tolist()), np.float64, a.size).reshape(a.shape)


_map = libm


def box_muller16_f64(u, mean, std):
    """PyTorch's generic ``normal_fill_16`` for float64 (glibc ``log``/``sin``/``cos``).

    Examples
    --------
    >>> import numpy as np
    >>> box_muller16_f64(np.full((2, 16), 0.5), 0.0, 1.0).shape
    (2, 16)
    """
    radius = np.sqrt(-2.0 * _map(math.log, 1.0 - u[:, :8]))
    theta = _TWO_PI * u[:, 8:]
    c = radius * _map(math.cos, theta)
    s = radius * _map(math.sin, theta)
    return np.concatenate([fma64(c, std, mean), fma64(s, std, mean)], axis=1)


def box_muller_pairs_f64(u_theta, u_radius):
    """PyTorch's scalar ``normal_distribution<double>``: each pair of uniforms gives
    ``r cos(theta)`` (returned first) and ``r sin(theta)`` (cached for the next draw).

    Examples
    --------
    >>> import numpy as np
    >>> c, s = box_muller_pairs_f64(np.array([0.0]), np.array([0.5]))
    >>> float(s[0]) == 0.0
    True
    """
    r = np.sqrt(-2.0 * _map(math.log1p, -u_radius))
    theta = _TWO_PI * u_theta
    return r * _map(math.cos, theta), r * _map(math.sin, theta)
