"""CPU kernels of the random family (``cygrad/random.py``): the mt19937 engine behind
every ``cygrad.Generator`` and the fills that turn its output into the values
PyTorch's CPU sampling kernels produce, bit for bit.

Primitives (each fill takes the generator's engine first and writes every element
of ``out``, a tensor of any dtype, in the order PyTorch's CPU kernels visit it:
memory order, largest stride first; the op has checked the arguments, values of
probability/rate tensors included):

=======================  ==================================================================
``generator_engine``     ``(seed)`` -> a new :class:`MT19937Engine` (state, seed, normal cache)
``uniform_fill``         ``(gen, out, low, high)``: U[low, high)
``normal_fill``          ``(gen, out, mean, std)``: N(mean, std**2); a tensor ``mean``/``std``
                         (``torch.normal``'s forms) scales and shifts N(0, 1) samples
``integers_fill``        ``(gen, out, low, high, whole_dtype)``: ``random_``'s integers
``bernoulli_fill``       ``(gen, out, p)``: ``u < p``, ``p`` a number or a float32/float64
                         tensor broadcast to ``out``
``exponential_fill``     ``(gen, out, lambd)``
``geometric_fill``       ``(gen, out, p)``
``log_normal_fill``      ``(gen, out, mean, std)``
``cauchy_fill``          ``(gen, out, median, sigma)``
``poisson_fill``         ``(gen, out, rates)``
``multinomial_fill``     ``(gen, out, probs, replacement)``: ``out.shape[-1]`` samples a row
``randperm_fill``        ``(gen, out)``: a permutation of ``0..out.numel()-1``
=======================  ==================================================================

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
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> gen = kernel("generator_engine", "cpu")(0)
>>> out = cygrad.empty(3)
>>> [round(v, 4) for v in kernel("uniform_fill", "cpu")(gen, out, 0.0, 1.0).tolist()]
[0.4963, 0.7682, 0.0885]
>>> from cygrad._core.backend_cpu.random import fma64
>>> float(fma64(np.array([0.1]), np.array([10.0]), np.array([-1.0]))[0]) != 0.1 * 10.0 - 1.0
True
"""
import math
import struct

import numpy as np

from .. import dtype as _dt
from .. import tensor as _C
from ..dispatch import register

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


# ----------------------------------------------------------------------- the engine

_MT_N = 624
_UINT64 = 1 << 64
_MASK53 = np.uint64((1 << 53) - 1)
# PyTorch's CPUGeneratorImplState: initial seed (u64), left (i32), seeded (i32), next
# (u64), the 624 state words (each stored as u64), normal_x/y/rho (f64), normal valid
# (i32 + 4 padding), the cached float normal (f32), its valid flag (bool + 3 padding).
_STATE_LAYOUT = struct.Struct("<QiiQ624Qdddiif?3x")
_STATE_SIZE = _STATE_LAYOUT.size


def _init_genrand(seed):
    """mt19937's state words for ``seed`` (Matsumoto and Nishimura's ``init_genrand``,
    on the low 32 bits of the seed as PyTorch does)."""
    key = [seed & 0xFFFFFFFF]
    for i in range(1, _MT_N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


@register("generator_engine", "cpu")
class MT19937Engine:
    """What one CPU generator holds, as PyTorch's ``CPUGeneratorImpl`` does: an mt19937
    stream seeded by ``init_genrand`` with the low 32 bits of ``seed``, the seed itself,
    and the cached second values of the scalar Box-Muller samplers.

    ``cygrad.Generator`` keeps one and passes it to the fills; its state in PyTorch's
    5056-byte layout goes through :meth:`get_state`/:meth:`set_state`.

    Examples
    --------
    >>> e = MT19937Engine(5489)
    >>> int(e.u32(1)[0])        # mt19937's first output for its reference seed
    3499211612
    >>> e.set_state(MT19937Engine(0).get_state()).seed
    0
    """

    def __init__(self, seed):
        self._bits = np.random.MT19937()
        self.reseed(seed)

    def reseed(self, seed):
        """Restart the stream from ``seed`` (an int in [0, 2**64))."""
        self.seed = seed
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _init_genrand(seed), "pos": _MT_N}}
        # PyTorch writes next=0 into a freshly seeded state and next=624 into one that
        # has used up its block; both mean "twist before the next draw".
        self._fresh = True
        self.next_double = None     # the cached second value of scalar Box-Muller
        self.next_float = None

    def u32(self, n):
        """``n`` 32-bit draws (as uint64)."""
        if n:
            self._fresh = False
        return self._bits.random_raw(n)

    def u64(self, n):
        """``n`` 64-bit draws, each two 32-bit draws with the first one high."""
        r = self.u32(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    def uniform53(self, n):
        """``n`` float64 uniforms on [0, 1) (PyTorch's ``uniform_real_distribution<double>``)."""
        return (self.u64(n) & _MASK53).astype(np.float64) * (1.0 / (1 << 53))

    def uniform24(self, n):
        """``n`` float32 uniforms on [0, 1) (PyTorch's ``uniform_real_distribution<float>``)."""
        return (self.u32(n) & np.uint64(0xFFFFFF)).astype(np.float32) * np.float32(2.0 ** -24)

    def get_state(self):
        """The whole state as a uint8 tensor in PyTorch's ``CPUGeneratorImplState`` layout."""
        st = self._bits.state["state"]
        pos = int(st["pos"])
        nd = self.next_double
        nf = self.next_float
        raw = _STATE_LAYOUT.pack(self.seed, _MT_N + 1 - pos, 1, 0 if self._fresh else pos,
                                 *st["key"].tolist(), 0.0, 0.0 if nd is None else nd, 0.0,
                                 nd is not None, 0, 0.0 if nf is None else nf, nf is not None)
        return _C.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, state):
        """Load a uint8 tensor from :meth:`get_state` (or ``torch.get_rng_state()``);
        PyTorch's errors for a wrong size or an impossible state.  Returns the engine."""
        if state.numel() != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                               f"the input RNG state size to be {state.numel()}")
        raw = bytes(np.ascontiguousarray(_C._ndarray(state.cpu())).reshape(-1))
        fields = _STATE_LAYOUT.unpack(raw)
        seed, left, seeded, nxt = fields[:4]
        key = np.array(fields[4:4 + _MT_N], dtype=np.uint64).astype(np.uint32)
        _, normal_y, _, normal_valid, _, next_float, float_valid = fields[4 + _MT_N:]
        if not (seeded == 1 and 0 < left <= _MT_N and nxt <= _MT_N):
            raise RuntimeError("Invalid mt19937 state")
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": key, "pos": _MT_N + 1 - left}}
        self.seed = seed
        self._fresh = left == 1 and nxt == 0
        self.next_double = float(normal_y) if normal_valid else None
        self.next_float = float(next_float) if float_valid else None
        return self


# ----------------------------------------------------------------------- writing samples

def _store(t, arr):
    """Copy a NumPy array of samples into tensor ``t`` (converting its dtype)."""
    if t.numel():
        _C._copy_into(t, _C.from_numpy(np.ascontiguousarray(arr).reshape(tuple(t.shape))))


def _logical(t, values):
    """``values`` (one per element of ``t``, in the order PyTorch's CPU kernels visit
    it: memory order, largest stride first) rearranged to ``t``'s logical shape."""
    values = np.asarray(values)
    shape = tuple(t.shape)
    if t.is_contiguous() or values.size <= 1:
        return values.reshape(shape)
    strides = tuple(t.stride())
    perm = sorted(range(len(shape)), key=lambda d: (-strides[d] if shape[d] > 1 else 0, d))
    return values.reshape(tuple(shape[d] for d in perm)).transpose(np.argsort(perm))


def _place(t, values):
    """Write ``values`` (in PyTorch's visiting order, see :func:`_logical`) into ``t``."""
    if t.numel():
        _store(t, _logical(t, values))


def _round_to(values, dtype):
    """float32 ``values`` rounded to float16/bfloat16 (to nearest, ties to even), kept
    as float32; other dtypes pass through."""
    if dtype is _dt.float16:
        return values.astype(np.float16).astype(np.float32)
    if dtype is _dt.bfloat16:
        bits = np.ascontiguousarray(values, dtype=np.float32).view(np.uint32)
        bits = (bits + np.uint32(0x7FFF) + ((bits >> np.uint32(16)) & np.uint32(1))) \
            & np.uint32(0xFFFF0000)
        return bits.view(np.float32)
    return values


# ----------------------------------------------------------------------- uniform

_HALF_TYPES = ("float16", "bfloat16")


def _uniform_values(g, n, dtype, low=0.0, high=1.0):
    """PyTorch's ``uniform_`` samples for ``n`` elements of ``dtype``."""
    if dtype is _dt.float64:
        x = g.uniform53(n)
        f, t = float(low), float(high)
        if f != 0.0 or t != 1.0:
            x = fma64(x, t - f, f)
    else:
        # float32 arithmetic (PyTorch's opmath type for the half types as well)
        x = g.uniform24(n)
        f, t = np.float32(low), np.float32(high)
        if f != 0 or t != 1:
            x = fma32(x, t - f, f)
        if dtype.name in _HALF_TYPES:
            x = _round_to(x, dtype)
            f, t = _round_to(np.array([f, t], np.float32), dtype)
    # PyTorch keeps samples inside [from, to): one that rounds up to `to` becomes `from`.
    x[x == t] = f
    return x


@register("uniform_fill", "cpu")
def uniform_fill(gen, out, low, high):
    """out[...] = samples from U[low, high) (a floating ``out``)."""
    _place(out, _uniform_values(gen, out.numel(), out.dtype, low, high))
    return out


# ----------------------------------------------------------------------- normal

def _scalar_normals(g, n):
    """``n`` values of PyTorch's scalar ``normal_distribution<double>`` (N(0, 1)),
    using and refilling the generator's cached second Box-Muller value."""
    out = np.empty(n)
    i = 0
    if n and g.next_double is not None:
        out[0], g.next_double, i = g.next_double, None, 1
    pairs = (n - i + 1) // 2
    if pairs:
        u = g.uniform53(2 * pairs)
        c, s = box_muller_pairs_f64(u[0::2], u[1::2])
        both = np.empty(2 * pairs)
        both[0::2], both[1::2] = c, s
        out[i:] = both[:n - i]
        if (n - i) % 2:
            g.next_double = float(s[-1])
    return out


def _blockwise(n, draw, block, head_draws=None):
    """PyTorch's ``normal_fill``: n uniforms (``head_draws`` if given), Box-Muller on
    each block of 16, and for a ragged end 16 fresh uniforms recomputing the last 16
    elements."""
    full = n // 16 * 16
    head = block(draw(n if head_draws is None else head_draws)[:full].reshape(-1, 16)).ravel()
    out = np.empty(n, dtype=head.dtype)
    out[:full] = head
    if n % 16:
        out[n - 16:] = block(draw(16).reshape(1, 16)).ravel()
    return out


def _normal_values(g, t, mean=0.0, std=1.0):
    """PyTorch's ``normal_(mean, std)`` samples for tensor ``t`` (as float32/float64)."""
    n, dtype = t.numel(), t.dtype
    if n < 16 or not t.is_contiguous():
        z = _scalar_normals(g, n)
        if mean != 0.0 or std != 1.0:
            z = fma64(z, float(std), float(mean))
        return z if dtype is _dt.float64 else _round_to(z.astype(np.float32), dtype)
    if dtype is _dt.float64:
        return _blockwise(n, g.uniform53, lambda u: box_muller16_f64(u, float(mean), float(std)))
    if dtype is _dt.float32:
        return _blockwise(n, g.uniform24, lambda u: box_muller16_f32(u, float(mean), float(std)))
    # float16/bfloat16 run the float32 sampler (drawing uniforms for the whole blocks
    # only, then 16 for a ragged end) and round once at the end.
    return _round_to(_blockwise(n, g.uniform24,
                                lambda u: box_muller16_f32(u, float(mean), float(std)),
                                head_draws=n // 16 * 16), dtype)


@register("normal_fill", "cpu")
def normal_fill(gen, out, mean, std):
    """out[...] = samples from N(mean, std**2) (a floating ``out``).

    With a tensor ``mean`` or ``std`` (broadcastable to ``out``), PyTorch's
    ``torch.normal``: N(0, std) samples (std=1 when it is a tensor), multiplied by a
    tensor std, then the mean added, each step rounded in ``out``'s dtype.
    """
    mean_t, std_t = isinstance(mean, _C.TensorBase), isinstance(std, _C.TensorBase)
    if not mean_t and not std_t:
        _place(out, _normal_values(gen, out, mean, std))
        return out
    z = _logical(out, _normal_values(gen, out, 0.0, 1.0 if std_t else float(std)))
    z = z.astype(np.float64 if out.dtype is _dt.float64 else np.float32)
    if std_t:
        z = _round_to(z * _C._ndarray(std.cpu()).astype(z.dtype), out.dtype)
    z = _round_to(z + (_C._ndarray(mean.cpu()).astype(z.dtype) if mean_t else z.dtype.type(mean)),
                  out.dtype)
    _store(out, z)
    return out


@register("log_normal_fill", "cpu")
def log_normal_fill(gen, out, mean, std):
    """out[...] = ``exp(N(mean, std**2))`` samples (the scalar float64 sampler)."""
    z = fma64(_scalar_normals(gen, out.numel()), float(std), float(mean))
    _place(out, libm(math.exp, z))
    return out


# ----------------------------------------------------------------------- integers

_DIGITS = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}


def _as_float_int(v, dtype):
    """int64 ``v`` cast to floating ``dtype`` and back (C casts: round, then truncate)."""
    if dtype is _dt.float64:
        return int(np.float64(v))
    return int(_round_to(np.array([v], np.float32), dtype)[0])


def _float_bounds(low, high, dtype):
    """PyTorch's adjustment of [low, high) for a floating dtype: bounds whose
    neighbours are not representable are moved inward to representable ones."""
    digits = _DIGITS[dtype.name]
    up = _as_float_int(low + 1, dtype)
    if up < low:
        low = up + (1 << (abs(low + 1).bit_length() - 1 - digits + 1))
    down = _as_float_int(high - 1, dtype)
    if down >= high:
        high = down - (1 << (abs(high - 1).bit_length() - 1 - digits + 1))
    return low, high


def _integer_values(g, n, dtype, low, high, whole_dtype=False):
    """PyTorch's ``random_`` samples as int64: ``draw % (high - low) + low``.

    With explicit bounds the draw is 64-bit once the range reaches 2**28; the
    bound-less ``random_()`` (``whole_dtype``) draws 64 bits for int64/float64 only.
    """
    span = high - low
    if span >= _UINT64:          # the whole int64 range: the draw itself
        return g.u64(n).view(np.int64)
    wide = dtype in (_dt.int64, _dt.float64) if whole_dtype else span >= (1 << 28)
    raw = g.u64(n) if wide else g.u32(n)
    return ((raw % np.uint64(span)) + np.uint64(low % _UINT64)).view(np.int64)


@register("integers_fill", "cpu")
def integers_fill(gen, out, low, high, whole_dtype):
    """out[...] = integers uniform in [low, high) (ints; the op has checked that they
    fit ``out``'s dtype).  ``whole_dtype``: the bound-less ``random_()``, whose draw
    width depends on the dtype, not on the range; a floating ``out`` otherwise has its
    bounds moved inward to representable neighbours, as PyTorch does."""
    if out.dtype.is_floating_point and high - low < _UINT64 and not whole_dtype:
        low, high = _float_bounds(low, high, out.dtype)
    _place(out, _integer_values(gen, out.numel(), out.dtype, low, high, whole_dtype))
    return out


@register("randperm_fill", "cpu")
def randperm_fill(gen, out):
    """out[...] = PyTorch's CPU random permutation of ``0..out.numel()-1`` (1-D ``out``)."""
    _store(out, _permutation(gen, out.numel()))
    return out


def _permutation(g, n):
    """PyTorch's CPU ``randperm``: for n below 2**32 / 20 the swap shuffle
    ``swap(p[i], p[i + draw % (n - i)])`` with 32-bit draws, else the inside-out
    Fisher-Yates shuffle with 64-bit draws."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    if n < 0xFFFFFFFF // 20:
        offsets = g.u32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)
        return _swap_shuffle(offsets.astype(np.int64))
    picks = (g.u64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
    perm = [0] * n
    for i, z in enumerate(picks):
        perm[i] = perm[z]
        perm[z] = i
    return np.array(perm, dtype=np.int64)


def _swap_shuffle(offsets):
    """The permutation left by ``for i: swap(p[i], p[i + offsets[i]])`` on the identity,
    without a Python loop.

    Position i is final after step i, and holds what position ``k = i + offsets[i]``
    held then: the value moved there by the latest earlier step j aiming at k (which
    is what position j held at step j), or k itself when no earlier step aimed there.
    "What position j held at step j" follows a chain of such earlier steps back to an
    untouched position, resolved for all j at once by pointer jumping.
    """
    n = offsets.size + 1
    idx = np.arange(n, dtype=np.int64)
    target = idx[:-1] + offsets
    # Steps sorted by (target, step): each step's predecessor aiming at the same place.
    keys = np.sort(target * n + idx[:-1])
    step, aim = keys % n, keys // n
    same_before = np.full(n - 1, -1, dtype=np.int64)
    linked = aim[1:] == aim[:-1]
    same_before[step[1:][linked]] = step[:-1][linked]
    # The latest step before j aiming at position j: the last of j's group, or the one
    # before it when that last one is step j itself (a step aims at or after itself,
    # so no later step can be in j's group).
    last = np.flatnonzero(np.append(aim[1:] != aim[:-1], True))
    own = step[last] == aim[last]
    before = last - own
    ok = before >= 0
    ok[ok] = aim[before[ok]] == aim[last[ok]]
    held = idx.copy()
    held[aim[last[ok]]] = step[before[ok]]
    while True:
        nxt = held[held]
        if np.array_equal(nxt, held):
            break
        held = nxt
    perm = np.empty(n, dtype=np.int64)
    perm[:-1] = np.where(same_before >= 0, held[np.maximum(same_before, 0)], target)
    perm[-1] = held[-1]
    return perm


# ----------------------------------------------------------------------- Bernoulli

@register("bernoulli_fill", "cpu")
def bernoulli_fill(gen, out, p):
    """out[...] = 1 where ``u < p``, else 0: ``u`` a float64 uniform for a number ``p``
    or a float64 tensor, a float32 one for a float32 tensor (broadcastable to ``out``,
    values in [0, 1])."""
    n = out.numel()
    if isinstance(p, _C.TensorBase):
        prob = _C._ndarray(p.cpu())
        u = gen.uniform24(n) if prob.dtype == np.float32 else gen.uniform53(n)
    else:
        prob, u = p, gen.uniform53(n)
    _store(out, _logical(out, u) < prob)
    return out


# ----------------------------------------------------------------------- multinomial

@register("multinomial_fill", "cpu")
def multinomial_fill(gen, out, probs, replacement):
    """``out.shape[-1]`` category indices per row of the 1-D/2-D floating ``probs``
    (non-negative, finite, positive row sums): PyTorch's inverse-CDF sampler with
    replacement, its exponential race without (and for a single sample)."""
    if not out.numel():
        return out
    n_cat = probs.shape[-1]
    k = out.shape[-1]
    work = np.float64 if probs.dtype is _dt.float64 else np.float32
    arr = _C._ndarray(probs.to(_dt.float64).cpu()).reshape(-1, n_cat)
    arr = _round_to(arr.astype(work), probs.dtype)
    if replacement and k > 1:
        idx = _sample_with_replacement(arr, k, gen)
    else:
        idx = _exponential_race(arr, k, gen, probs.dtype)
    _store(out, idx)
    return out


def _sample_with_replacement(probs, k, g):
    """PyTorch's inverse-CDF sampler: per row, the running sum in the input's precision
    divided by the total (last entry forced to 1), then for each float64 uniform the
    first category whose cumulative probability is >= it."""
    u = g.uniform53(probs.shape[0] * k).reshape(-1, k)
    idx = np.empty((probs.shape[0], k), dtype=np.int64)
    for r in range(probs.shape[0]):
        cdf = np.cumsum(probs[r])
        cdf = cdf / cdf[-1]
        cdf[-1] = 1
        idx[r] = np.searchsorted(cdf.astype(np.float64), u[r], side="left")
    return idx


def _exponential_race(probs, k, g, dtype):
    """PyTorch's sampler without replacement (and for one sample): the k largest
    ``p / E``, E ~ Exp(1) drawn like ``exponential_`` in the input's dtype."""
    e = _round_to(_exponential_values(g, probs.size, 1.0).astype(probs.dtype), dtype)
    keys = _round_to(probs / e.reshape(probs.shape), dtype)
    if k == 1:
        return np.argmax(keys, axis=1)[:, None]
    return np.argsort(-keys, axis=1, kind="stable")[:, :k]


# ----------------------------------------------------------------------- other distributions

def _exponential_values(g, n, lambd):
    """PyTorch's ``exponential_distribution<double>``: ``-1/lambda * log1p(-u)``."""
    return (-1.0 / lambd) * libm(math.log1p, -g.uniform53(n))


@register("exponential_fill", "cpu")
def exponential_fill(gen, out, lambd):
    """out[...] = samples of the exponential distribution of rate ``lambd``."""
    _place(out, _exponential_values(gen, out.numel(), float(lambd)))
    return out


@register("geometric_fill", "cpu")
def geometric_fill(gen, out, p):
    """out[...] = trials up to the first success, ``ceil(log(u) / log1p(-p))``."""
    u = gen.uniform53(out.numel())
    _place(out, np.ceil(libm(math.log, u) / math.log1p(-p)))
    return out


@register("cauchy_fill", "cpu")
def cauchy_fill(gen, out, median, sigma):
    """out[...] = ``median + sigma * tan(pi * (u - 1/2))`` (a floating ``out``)."""
    u = gen.uniform53(out.numel())
    _place(out, median + sigma * libm(math.tan, math.pi * (u - 0.5)))
    return out


def _poisson_value(rate, g):
    """One Poisson sample with PyTorch's CPU algorithm: Hormann's transformed
    rejection for rates >= 10, multiplying uniforms below."""
    def uniform():
        return float(g.uniform53(1)[0])
    if rate >= 10:
        slam, loglam = math.sqrt(rate), math.log(rate)
        b = 0.931 + 2.53 * slam
        a = -0.059 + 0.02483 * b
        invalpha = 1.1239 + 1.1328 / (b - 3.4)
        vr = 0.9277 - 3.6224 / (b - 2)
        while True:
            u = uniform() - 0.5
            v = uniform()
            us = 0.5 - abs(u)
            k = math.floor((2 * a / us + b) * u + rate + 0.43)
            if us >= 0.07 and v <= vr:
                return k
            if k < 0 or (us < 0.013 and v > us):
                continue
            if (math.log(v) + math.log(invalpha) - math.log(a / (us * us) + b)
                    <= -rate + k * loglam - math.lgamma(k + 1)):
                return k
    if rate == 0:
        return 0
    enlam, count, prod = math.exp(-rate), 0, 1.0
    while True:
        prod *= uniform()
        if prod > enlam:
            count += 1
        else:
            return count


@register("poisson_fill", "cpu")
def poisson_fill(gen, out, rates):
    """out[...] = one Poisson sample per (non-negative) rate of ``rates`` (``out``'s
    shape), drawn in C order."""
    r = _C._ndarray(rates.cpu())
    _store(out, np.array([_poisson_value(v, gen) for v in r.astype(np.float64).ravel().tolist()],
                         dtype=np.float64))
    return out
