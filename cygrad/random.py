"""Random numbers: ``Generator``, the default generator and seeding, the sampling
factories (``rand``, ``randn``, ``randint``, ``normal``, ``randperm``, ``bernoulli``,
``multinomial``...) and the in-place samplers (``Tensor.uniform_``, ``normal_``...).

Same seed, same numbers as PyTorch's CPU generator
--------------------------------------------------
Every generator is a 32-bit Mersenne Twister (mt19937) seeded the way PyTorch seeds
its CPU generator (``init_genrand`` with the low 32 bits of the seed), and every
sampler turns its output into values with PyTorch's CPU algorithms, so after
``cygrad.manual_seed(s)`` the samplers below give PyTorch's numbers digit for digit,
and leave the generator where PyTorch leaves it:

* ``rand``/``uniform_``: float32 (and float16/bfloat16, which round a float32
  sample) take the low 24 bits of one 32-bit draw, float64 the low 53 bits of a
  64-bit draw made of two 32-bit draws (first one high); ``x * (to - from) + from``
  is one fused multiply-add, and a result that rounds to ``to`` becomes ``from``.
* ``randn``/``normal_``: 16 or more elements of a contiguous tensor are filled with
  uniforms, then Box-Muller runs on blocks of 16 (element j pairs with j + 8), the
  last block redrawn and recomputed when the size is not a multiple of 16; float32
  (and float16/bfloat16, rounded at the end) uses the AVX2 kernel's Cephes
  ``log``/``sincos`` polynomials.  Fewer elements (or a non-contiguous tensor,
  visited in memory order) use the scalar sampler in float64, whose second value is
  cached in the generator for the next normal draw.
* ``randint``/``random_``: a 32-bit draw modulo the range (a 64-bit draw once the
  range reaches 2**28; bound-less ``random_()`` draws 64 bits for int64/float64).
* ``bernoulli``/``bernoulli_``: ``u < p``, ``u`` a float64 uniform for a scalar or
  float64 ``p``, a float32 uniform for a float32 ``p`` tensor.
* ``exponential_`` (``-log1p(-u) / lambda``), ``geometric_``, ``cauchy_``,
  ``log_normal_``, ``randperm`` (PyTorch's swap shuffle), ``multinomial`` (an
  exponential race without replacement, inverse CDF with replacement), ``poisson``.

Values are computed with NumPy (plus exact fused multiply-add emulation and glibc's
``log``/``sin``/``cos`` where PyTorch calls them; see ``cygrad/_core/backend_cpu/random.py``), so
they match PyTorch's x86-64 builds (AVX2 or AVX-512).  Not matched: CUDA
generators, and PyTorch builds for other CPUs (their float32 normals use libm).
Dropout: ``F.dropout(x, p)`` keeps exactly where ``empty_like(x).bernoulli_(1 - p)``
gives 1.  ``get_rng_state`` returns
PyTorch's byte layout (5056 bytes): a state from ``torch.get_rng_state()`` can be
loaded with ``cygrad.set_rng_state`` and the other way round.

Examples
--------
>>> import cygrad
>>> _ = cygrad.manual_seed(0)
>>> [round(v, 4) for v in cygrad.rand(3).tolist()]
[0.4963, 0.7682, 0.0885]
"""
import contextlib
import math
import numbers
import secrets
import struct

import numpy as np

from ._core import tensor as _C
from ._core import dtype as _dt
from ._core.tensor import TensorBase
from .ops._argcheck import not_tensor
from ._device import device as Device, CPU
from ._tensor import tensor_method
from ._core.backend_cpu import random as _K

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "rand_like",
           "randn_like", "randint_like", "normal", "randperm", "bernoulli", "multinomial",
           "poisson"]

# PyTorch's default seed for a fresh generator (a plain number, not code).
_DEFAULT_SEED = 67280421310721
_UINT64 = 1 << 64
_MT_N = 624
# PyTorch's CPUGeneratorImplState: initial seed (u64), left (i32), seeded (i32), next
# (u64), the 624 state words (each stored as u64), normal_x/y/rho (f64), normal valid
# (i32 + 4 padding), the cached float normal (f32), its valid flag (bool + 3 padding).
_STATE_LAYOUT = struct.Struct("<QiiQ624Qdddiif?3x")
_STATE_SIZE = _STATE_LAYOUT.size
_MASK53 = np.uint64((1 << 53) - 1)


def _init_genrand(seed):
    """mt19937's state words for ``seed`` (Matsumoto and Nishimura's ``init_genrand``,
    on the low 32 bits of the seed as PyTorch does)."""
    key = [seed & 0xFFFFFFFF]
    for i in range(1, _MT_N):
        prev = key[-1]
        key.append((1812433253 * (prev ^ (prev >> 30)) + i) & 0xFFFFFFFF)
    return np.array(key, dtype=np.uint32)


class Generator:
    """A random number generator with its own state, as ``torch.Generator``.

    Pass it as ``generator=`` to any sampling function to draw from its stream
    instead of the default one; two generators never affect each other.  Seeded with
    the same number, it gives the same numbers as a ``torch.Generator`` on the CPU.

    Examples
    --------
    >>> import cygrad
    >>> g = cygrad.Generator().manual_seed(42)
    >>> a = cygrad.rand(3, generator=g)
    >>> b = cygrad.rand(3, generator=cygrad.Generator().manual_seed(42))
    >>> a.tolist() == b.tolist()
    True
    """

    def __init__(self, device="cpu"):
        self._device = Device(device)
        self._bits = np.random.MT19937()
        self._reseed(_DEFAULT_SEED)

    def _reseed(self, seed):
        self._seed = seed
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": _init_genrand(seed), "pos": _MT_N}}
        # PyTorch writes next=0 into a freshly seeded state and next=624 into one that
        # has used up its block; both mean "twist before the next draw".
        self._fresh = True
        self._next_double = None     # the cached second value of scalar Box-Muller
        self._next_float = None

    def _u32(self, n):
        """``n`` 32-bit draws (as uint64)."""
        if n:
            self._fresh = False
        return self._bits.random_raw(n)

    def _u64(self, n):
        """``n`` 64-bit draws, each two 32-bit draws with the first one high."""
        r = self._u32(2 * n)
        return (r[0::2] << np.uint64(32)) | r[1::2]

    def _uniform53(self, n):
        """``n`` float64 uniforms on [0, 1) (PyTorch's ``uniform_real_distribution<double>``)."""
        return (self._u64(n) & _MASK53).astype(np.float64) * (1.0 / (1 << 53))

    def _uniform24(self, n):
        """``n`` float32 uniforms on [0, 1) (PyTorch's ``uniform_real_distribution<float>``)."""
        return (self._u32(n) & np.uint64(0xFFFFFF)).astype(np.float32) * np.float32(2.0 ** -24)

    @property
    def device(self):
        """The device this generator's samples are meant for."""
        return self._device

    def manual_seed(self, seed):
        """Reset the stream from ``seed`` (an int; negatives wrap around to 64 bits).
        Returns the generator itself, so ``Generator().manual_seed(0)`` chains."""
        if isinstance(seed, bool) or not isinstance(seed, numbers.Integral):
            raise RuntimeError(f"manual_seed expected a long, but got {type(seed).__name__}")
        seed = int(seed)
        if not -(1 << 63) <= seed < _UINT64:
            raise ValueError("Overflow when unpacking long long")
        self._reseed(seed % _UINT64)
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the seed used."""
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed this generator was last seeded with."""
        return self._seed

    def get_state(self):
        """The full state as a uint8 tensor in PyTorch's layout (restore it with
        ``set_state``; ``torch.Generator.set_state`` accepts it too)."""
        st = self._bits.state["state"]
        pos = int(st["pos"])
        nd = self._next_double
        nf = self._next_float
        raw = _STATE_LAYOUT.pack(self._seed, _MT_N + 1 - pos, 1, 0 if self._fresh else pos,
                                 *st["key"].tolist(), 0.0, 0.0 if nd is None else nd, 0.0,
                                 nd is not None, 0, 0.0 if nf is None else nf, nf is not None)
        return _C.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state saved by ``get_state`` (or by PyTorch); returns the generator."""
        if not isinstance(new_state, TensorBase) or new_state.dtype is not _dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                               f"the input RNG state size to be {new_state.numel()}")
        raw = bytes(np.ascontiguousarray(_C._ndarray(new_state.cpu())).reshape(-1))
        fields = _STATE_LAYOUT.unpack(raw)
        seed, left, seeded, nxt = fields[:4]
        key = np.array(fields[4:4 + _MT_N], dtype=np.uint64).astype(np.uint32)
        _, normal_y, _, normal_valid, _, next_float, float_valid = fields[4 + _MT_N:]
        if not (seeded == 1 and 0 < left <= _MT_N and nxt <= _MT_N):
            raise RuntimeError("Invalid mt19937 state")
        self._bits.state = {"bit_generator": "MT19937",
                            "state": {"key": key, "pos": _MT_N + 1 - left}}
        self._seed = seed
        self._fresh = left == 1 and nxt == 0
        self._next_double = float(normal_y) if normal_valid else None
        self._next_float = float(next_float) if float_valid else None
        return self

    def __repr__(self):
        return f"<cygrad.Generator device={self._device}>"


default_generator = Generator()


def manual_seed(seed):
    """Seed the default generator (``torch.manual_seed``); returns it.

    Examples
    --------
    >>> import cygrad
    >>> _ = cygrad.manual_seed(0)
    >>> a = cygrad.randn(2)
    >>> _ = cygrad.manual_seed(0)
    >>> cygrad.randn(2).tolist() == a.tolist()
    True
    """
    return default_generator.manual_seed(seed)


def seed():
    """Seed the default generator non-deterministically; returns the seed.

    Examples
    --------
    >>> import cygrad
    >>> s = cygrad.seed()
    >>> cygrad.initial_seed() == s
    True
    """
    return default_generator.seed()


def initial_seed():
    """The seed of the default generator.

    Examples
    --------
    >>> import cygrad
    >>> _ = cygrad.manual_seed(7)
    >>> cygrad.initial_seed()
    7
    """
    return default_generator.initial_seed()


def get_rng_state():
    """The default generator's state as a uint8 tensor.

    Examples
    --------
    >>> import cygrad
    >>> state = cygrad.get_rng_state()
    >>> a = cygrad.rand(2)
    >>> cygrad.set_rng_state(state)
    >>> cygrad.rand(2).tolist() == a.tolist()
    True
    """
    return default_generator.get_state()


def set_rng_state(new_state):
    """Restore the default generator's state from ``get_rng_state``."""
    default_generator.set_state(new_state)


@contextlib.contextmanager
def fork_rng(devices=None, enabled=True):
    """Context manager: random draws inside it leave the default generator's state as
    it was on entry (``torch.random.fork_rng``).

    Examples
    --------
    >>> import cygrad
    >>> state = cygrad.get_rng_state()
    >>> with cygrad.random.fork_rng():
    ...     _ = cygrad.rand(3)
    >>> cygrad.get_rng_state().tolist() == state.tolist()
    True
    """
    if not enabled:
        yield
        return
    saved = default_generator.get_state()
    try:
        yield
    finally:
        default_generator.set_state(saved)


# ----------------------------------------------------------------------- helpers

def _gen(generator):
    if generator is None:
        return default_generator
    if not isinstance(generator, Generator):
        raise TypeError(f"expected a cygrad.Generator for 'generator', got "
                        f"{type(generator).__name__}")
    return generator


def _size_arg(size, opname, required=False):
    """``size`` (ints, or one list/tuple of ints) checked the way PyTorch's argument
    parser checks it: type errors name the 1-based position of the bad element."""
    if required and not size:
        raise TypeError(f'{opname}() missing 1 required positional arguments: "size"')
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for pos, s in enumerate(size, 1):
        if s is None:
            raise TypeError(f"{opname}(): argument 'size' failed to unpack the object at pos "
                            f"{pos} with error \"type must be tuple of ints,but got NoneType\"")
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"{opname}(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__} at pos {pos}")
        if not -(1 << 63) <= int(s) < (1 << 63):
            raise TypeError(f"{opname}(): argument 'size' failed to unpack the object at pos "
                            f"{pos} with error \"Overflow when unpacking long long\"")
    shape = tuple(int(s) for s in size)
    for s in shape:
        if s < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {s}: "
                               f"{list(shape)}")
    return shape


def _target(shape, dtype, device, out, default_dtype):
    """The tensor a factory fills: ``out`` (resized if needed) or a new CPU tensor."""
    if out is not None:
        if not isinstance(out, TensorBase):
            raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
        if dtype is not None and _dt.as_dtype(dtype) is not out.dtype:
            raise RuntimeError(f"dtype {_dt.as_dtype(dtype)} does not match the out= tensor's "
                               f"dtype {out.dtype}")
        if tuple(out.shape) != tuple(shape):
            resize = getattr(out, "resize_", None)
            if resize is None:
                raise RuntimeError(f"out= has shape {list(out.shape)} but the result has shape "
                                   f"{list(shape)}")
            resize(tuple(shape))
        return out
    dt = default_dtype if dtype is None else _dt.as_dtype(dtype)
    return _C._empty(tuple(shape), dt, CPU)


def _finish(t, device, requires_grad, out):
    if out is not None:
        t._bump_version()
        return t
    if device is not None and Device(device).type != "cpu":
        t = t.to(Device(device))
    if requires_grad:
        t.requires_grad_(True)
    return t


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


_HALF_TYPES = ("float16", "bfloat16")


def _uniform_values(g, n, dtype, low=0.0, high=1.0):
    """PyTorch's ``uniform_`` samples for ``n`` elements of ``dtype``."""
    if dtype is _dt.float64:
        x = g._uniform53(n)
        f, t = float(low), float(high)
        if f != 0.0 or t != 1.0:
            x = _K.fma64(x, t - f, f)
    else:
        # float32 arithmetic (PyTorch's opmath type for the half types as well)
        x = g._uniform24(n)
        f, t = np.float32(low), np.float32(high)
        if f != 0 or t != 1:
            x = _K.fma32(x, t - f, f)
        if dtype.name in _HALF_TYPES:
            x = _round_to(x, dtype)
            f, t = _round_to(np.array([f, t], np.float32), dtype)
    # PyTorch keeps samples inside [from, to): one that rounds up to `to` becomes `from`.
    x[x == t] = f
    return x


def _fill_uniform(t, g, low=0.0, high=1.0):
    """t[...] = samples from U[low, high)."""
    _place(t, _uniform_values(g, t.numel(), t.dtype, low, high))


def _scalar_normals(g, n):
    """``n`` values of PyTorch's scalar ``normal_distribution<double>`` (N(0, 1)),
    using and refilling the generator's cached second Box-Muller value."""
    out = np.empty(n)
    i = 0
    if n and g._next_double is not None:
        out[0], g._next_double, i = g._next_double, None, 1
    pairs = (n - i + 1) // 2
    if pairs:
        u = g._uniform53(2 * pairs)
        c, s = _K.box_muller_pairs_f64(u[0::2], u[1::2])
        both = np.empty(2 * pairs)
        both[0::2], both[1::2] = c, s
        out[i:] = both[:n - i]
        if (n - i) % 2:
            g._next_double = float(s[-1])
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
            z = _K.fma64(z, float(std), float(mean))
        return z if dtype is _dt.float64 else _round_to(z.astype(np.float32), dtype)
    if dtype is _dt.float64:
        return _blockwise(n, g._uniform53,
                          lambda u: _K.box_muller16_f64(u, float(mean), float(std)))
    if dtype is _dt.float32:
        return _blockwise(n, g._uniform24,
                          lambda u: _K.box_muller16_f32(u, float(mean), float(std)))
    # float16/bfloat16 run the float32 sampler (drawing uniforms for the whole blocks
    # only, then 16 for a ragged end) and round once at the end.
    return _round_to(_blockwise(n, g._uniform24,
                                lambda u: _K.box_muller16_f32(u, float(mean), float(std)),
                                head_draws=n // 16 * 16), dtype)


def _fill_normal(t, g, mean=0.0, std=1.0):
    """t[...] = samples from N(mean, std**2)."""
    _place(t, _normal_values(g, t, mean, std))


def _float_parts(t):
    """What a random fill writes: a complex tensor's (real, imag) pairs, as PyTorch
    fills them (``view_as_real``), else the tensor itself."""
    return _C.view_as_real(t) if t.dtype.is_complex else t


def _require_float(dtype, kernel):
    if not dtype.is_floating_point:
        name = _C._torch_type_name(dtype)
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


def _require_float_normal(t):
    # PyTorch's normal kernel checks the dtype only when it has elements to fill.
    if t.numel():
        _require_float(t.dtype, "normal_kernel_cpu")


def _check_inplace(t):
    if t.requires_grad and t.is_leaf and _C.is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _fmt(x):
    """A number the way PyTorch's messages print it (-1.0 -> -1)."""
    return f"{x:g}" if isinstance(x, float) else str(x)


# ----------------------------------------------------------------------- factories

def rand(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
         layout=None, pin_memory=False):
    """Samples from the uniform distribution on [0, 1).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.rand(2, 3, generator=cygrad.Generator().manual_seed(0))
    >>> x.shape, bool(((x >= 0) & (x < 1)).all())
    (cygrad.Size([2, 3]), True)
    """
    t = _target(_size_arg(size, "rand", required=True), dtype, device, out, _dt.get_default_dtype())
    parts = _float_parts(t)
    _require_float(parts.dtype, "check_uniform_bounds")
    _fill_uniform(parts, _gen(generator))
    return _finish(t, device, requires_grad, out)


def randn(*size, generator=None, dtype=None, device=None, requires_grad=False, out=None,
          layout=None, pin_memory=False):
    """Samples from the standard normal distribution N(0, 1).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.randn(4, dtype=cygrad.float64).dtype
    cygrad.float64
    """
    t = _target(_size_arg(size, "randn", required=True), dtype, device, out, _dt.get_default_dtype())
    parts = _float_parts(t)
    _require_float_normal(parts)
    # complex: real and imaginary parts each N(0, 1/2), so that E|z|^2 = 1 (PyTorch)
    _fill_normal(parts, _gen(generator), std=1.0 if parts is t else 1 / math.sqrt(2))
    return _finish(t, device, requires_grad, out)


def _int_bounds_check(low, high, dtype):
    """PyTorch's checks that [low, high) fits the dtype."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    if dtype.is_floating_point:
        return
    if dtype is _dt.bool_:
        lo, hi = 0, 1
    else:
        info = np.iinfo(dtype.np_dtype)
        lo, hi = int(info.min), int(info.max)
    cname = {"uint8": "unsigned char", "int8": "signed char", "int16": "short",
             "int32": "int", "int64": "long", "bool": "bool"}[dtype.name]
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {cname}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {cname}")


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
        return g._u64(n).view(np.int64)
    wide = dtype in (_dt.int64, _dt.float64) if whole_dtype else span >= (1 << 28)
    raw = g._u64(n) if wide else g._u32(n)
    return ((raw % np.uint64(span)) + np.uint64(low % _UINT64)).view(np.int64)


def _fill_integers(t, g, low, high, whole_dtype=False):
    """t[...] = integers uniform in [low, high)."""
    if t.dtype.is_floating_point and high - low < _UINT64 and not whole_dtype:
        low, high = _float_bounds(low, high, t.dtype)
    _place(t, _integer_values(g, t.numel(), t.dtype, low, high, whole_dtype))


def _int_type(v, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"randint(): argument '{name}' must be int, not {type(v).__name__}")


def _as_int(v, name):
    _int_type(v, name)
    v = int(v)
    if not -(1 << 63) <= v < (1 << 63):
        raise ValueError("Overflow when unpacking long long")
    return v


def randint(*args, size=None, generator=None, dtype=None, device=None, requires_grad=False,
            out=None, low=None, high=None, layout=None, pin_memory=False):
    """Integers uniform in ``[low, high)``: ``randint(high, size)`` or
    ``randint(low, high, size)``; int64 unless ``dtype`` says otherwise.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.randint(3, 7, (100,))
    >>> x.dtype, 3 <= x.min().item() and x.max().item() < 7
    (cygrad.int64, True)
    """
    pos = list(args)
    if size is None and pos and isinstance(pos[-1], (tuple, list)):
        size = pos.pop()
    if high is None and pos:
        high = pos.pop()
    if low is None and pos:
        low = pos.pop()
    if pos or high is None or size is None:
        raise TypeError("randint() expects (high, size) or (low, high, size) with size a tuple "
                        "of ints")
    if isinstance(size, numbers.Integral):
        raise TypeError(f"randint(): argument 'size' (position 2) must be tuple of ints, not int")
    # PyTorch's order: the bounds' types, the size's elements, the bounds' range,
    # and only then a negative size
    if low is not None:
        _int_type(low, "low")
    _int_type(high, "high")
    try:
        shape, negative = _size_arg((size,), "randint"), None
    except RuntimeError as e:
        negative = e
    low = 0 if low is None else _as_int(low, "low")
    high = _as_int(high, "high")
    if negative is not None:
        raise negative
    t = _target(shape, dtype, device, out, _dt.int64)
    _int_bounds_check(low, high, t.dtype)
    _fill_integers(t, _gen(generator), low, high)
    return _finish(t, device, requires_grad, out)


def _like(input, dtype, device):
    dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
    return _C._empty(tuple(input.shape), dt, CPU), (input.device if device is None else device)


def rand_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
              memory_format=None, layout=None):
    """``rand`` with ``input``'s shape (and dtype/device unless given).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.rand_like(cygrad.zeros(2, 2)).shape
    cygrad.Size([2, 2])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "rand_like")
    t, dev = _like(input, dtype, device)
    _require_float(t.dtype, "check_uniform_bounds")
    _fill_uniform(t, _gen(generator))
    return _finish(t, dev, requires_grad, None)


def randn_like(input, *, generator=None, dtype=None, device=None, requires_grad=False,
               memory_format=None, layout=None):
    """``randn`` with ``input``'s shape (and dtype/device unless given).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.randn_like(cygrad.zeros(3), dtype=cygrad.float64).dtype
    cygrad.float64
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "randn_like")
    t, dev = _like(input, dtype, device)
    _require_float_normal(t)
    _fill_normal(t, _gen(generator))
    return _finish(t, dev, requires_grad, None)


def randint_like(input, low=0, high=None, *, generator=None, dtype=None, device=None,
                 requires_grad=False, memory_format=None, layout=None):
    """``randint`` with ``input``'s shape and dtype: ``randint_like(x, high)`` or
    ``randint_like(x, low, high)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.randint_like(cygrad.zeros(3), 5).dtype
    cygrad.float32
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "randint_like")
    if high is None:
        low, high = 0, low
    low, high = _as_int(low, "low"), _as_int(high, "high")
    t, dev = _like(input, dtype, device)
    _int_bounds_check(low, high, t.dtype)
    _fill_integers(t, _gen(generator), low, high)
    return _finish(t, dev, requires_grad, None)


def normal(mean=0.0, std=1.0, size=None, *, generator=None, out=None, dtype=None, device=None,
           requires_grad=False, layout=None, pin_memory=False):
    """Normal samples with the given mean and standard deviation.

    Forms (as ``torch.normal``): tensor ``mean`` and/or tensor ``std`` (broadcast
    together; the result takes their shape and floating dtype), or float ``mean``
    and ``std`` with a ``size``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.normal(cygrad.zeros(3), 1.0).shape
    cygrad.Size([3])
    >>> cygrad.normal(2.0, 0.5, (2, 2)).shape
    cygrad.Size([2, 2])
    """
    g = _gen(generator)
    mean_t, std_t = isinstance(mean, TensorBase), isinstance(std, TensorBase)
    if not mean_t and not std_t:
        if size is None:
            raise TypeError("normal(): with a float mean and std, 'size' is required")
        _check_std(std)
        t = _target(_size_arg((size,), "normal"), dtype, device, out, _dt.get_default_dtype())
        _require_float_normal(t)
        _fill_normal(t, g, float(mean), float(std))
        return _finish(t, device, requires_grad, out)
    tensors = [x for x in (mean, std) if isinstance(x, TensorBase)]
    for x in tensors:
        _require_float(x.dtype, "normal_kernel_cpu")
    if not std_t:
        _check_std(std)
    elif std.numel() and bool((_C._ndarray(std.cpu()) < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    from .ops.shape import broadcast_tensors
    shape = tuple(broadcast_tensors(*tensors)[0].shape)
    dt = _C.result_type(*tensors)
    t = _target(shape, None if out is not None else dt, None, out, dt)
    # PyTorch fills the output with N(0, std) (std=1 when std is a tensor), then
    # multiplies by a tensor std and adds the mean, each step rounded in the dtype.
    z = _logical(t, _normal_values(g, t, 0.0, 1.0 if std_t else float(std)))
    z = z.astype(np.float64 if t.dtype is _dt.float64 else np.float32)
    if std_t:
        z = _round_to(z * _C._ndarray(std.cpu()).astype(z.dtype), t.dtype)
    z = _round_to(z + (_C._ndarray(mean.cpu()).astype(z.dtype) if mean_t else z.dtype.type(mean)),
                  t.dtype)
    _store(t, z)
    return _finish(t, tensors[0].device, False, out)


def _check_std(std):
    if std < 0:
        raise RuntimeError(f"normal expects std >= 0.0, but found std {_fmt(float(std))}")


def randperm(n, *, generator=None, out=None, dtype=None, device=None, requires_grad=False,
             layout=None, pin_memory=False):
    """A random permutation of ``0..n-1`` (int64 unless ``dtype`` says otherwise).

    Examples
    --------
    >>> import cygrad
    >>> sorted(cygrad.randperm(5).tolist())
    [0, 1, 2, 3, 4]
    """
    if isinstance(n, bool) or not isinstance(n, numbers.Integral):
        raise TypeError(f"randperm(): argument 'n' must be int, not {type(n).__name__}")
    t = _target(_size_arg((n,), "randperm"), dtype, device, out, _dt.int64)
    if t.dtype is _dt.bool_:
        raise NotImplementedError("\"randperm\" not implemented for 'Bool'")
    if not t.dtype.is_floating_point and n > 0 and n - 1 > np.iinfo(t.dtype.np_dtype).max:
        raise RuntimeError(f"n is too large for result tensor type: "
                           f"'{_C._torch_type_name(t.dtype)}'")
    _store(t, _permutation(_gen(generator), int(n)))
    return _finish(t, device, requires_grad, out)


def _permutation(g, n):
    """PyTorch's CPU ``randperm``: for n below 2**32 / 20 the swap shuffle
    ``swap(p[i], p[i + draw % (n - i)])`` with 32-bit draws, else the inside-out
    Fisher-Yates shuffle with 64-bit draws."""
    if n < 2:
        return np.arange(n, dtype=np.int64)
    if n < 0xFFFFFFFF // 20:
        offsets = g._u32(n - 1) % np.arange(n, 1, -1, dtype=np.uint64)
        return _swap_shuffle(offsets.astype(np.int64))
    else:
        picks = (g._u64(n) % np.arange(1, n + 1, dtype=np.uint64)).tolist()
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


def _check_probabilities(p):
    """``p`` as a float64 array (float64 ``p``) or float32 array (other dtypes), which
    is how PyTorch compares it with its uniform draws."""
    if p.dtype is not _dt.float64:
        p = p.to(_dt.float32)
    arr = _C._ndarray(p.cpu())
    if arr.size and not bool(((arr >= 0) & (arr <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return arr


def _bernoulli_mask(g, t, prob):
    """PyTorch's Bernoulli draws for the elements of ``t``: ``u < p`` with a float64
    uniform, or a float32 one against a float32 probability tensor."""
    if isinstance(prob, np.ndarray) and prob.dtype == np.float32:
        u = g._uniform24(t.numel())
    else:
        u = g._uniform53(t.numel())
    return _logical(t, u) < prob


@tensor_method
def bernoulli(input, p=None, *, generator=None, out=None):
    """0/1 samples: ``result[i] = 1`` with probability ``input[i]`` (or ``p`` for every
    element when given); same shape and dtype as ``input``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.bernoulli(cygrad.tensor([0.0, 1.0])).tolist()
    [0.0, 1.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "bernoulli")
    g = _gen(generator)
    if p is None:
        _require_float(input.dtype, "bernoulli_tensor_cpu_p_")
        prob = _check_probabilities(input)
    else:
        _check_scalar_p(p)
        prob = float(p)
    t = _target(tuple(input.shape), input.dtype if out is None else None, None, out, input.dtype)
    _store(t, _bernoulli_mask(g, t, prob))
    return _finish(t, input.device, False, out)


def _check_scalar_p(p):
    if not 0 <= p <= 1:
        raise RuntimeError(f"bernoulli_ expects p to be in [0, 1], but got p={_fmt(float(p))}")


@tensor_method
def bernoulli_(self, p=0.5, *, generator=None):
    """Fill with 0/1 samples, 1 with probability ``p`` (a float or a tensor broadcast to
    this tensor's shape), in place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(4).bernoulli_(1.0).tolist()
    [1.0, 1.0, 1.0, 1.0]
    """
    _check_inplace(self)
    g = _gen(generator)
    if isinstance(p, TensorBase):
        prob = _check_probabilities(p.expand(*self.shape))
    else:
        _check_scalar_p(p)
        prob = float(p)
    _store(self, _bernoulli_mask(g, self, prob))
    self._bump_version()
    return self


@tensor_method
def multinomial(input, num_samples, replacement=False, *, generator=None, out=None):
    """Category indices drawn from the (unnormalised) probabilities in each row of
    ``input`` (1-D: one distribution, 2-D: one per row).  Without replacement each
    row's samples are distinct.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.multinomial(cygrad.tensor([0.0, 1.0, 0.0]), 2, replacement=True).tolist()
    [1, 1]
    >>> sorted(cygrad.multinomial(cygrad.ones(4), 4).tolist())
    [0, 1, 2, 3]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "multinomial")
    if isinstance(num_samples, bool) or not isinstance(num_samples, numbers.Integral):
        raise TypeError(f"multinomial(): argument 'num_samples' (position 2) must be int, not "
                        f"{type(num_samples).__name__}")
    if input.dim() not in (1, 2):
        raise RuntimeError("prob_dist must be 1 or 2 dim")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"multinomial only supports floating-point dtypes for input, got: "
                           f"{_C._torch_type_name(input.dtype)}")
    if num_samples <= 0:
        raise RuntimeError("cannot sample n_sample <= 0 samples")
    n_cat = input.shape[-1]
    if not replacement and num_samples > n_cat:
        raise RuntimeError("cannot sample n_sample > prob_dist.size(-1) samples without "
                           "replacement")
    work = np.float64 if input.dtype is _dt.float64 else np.float32
    probs = _C._ndarray(input.to(_dt.float64).cpu()).reshape(-1, n_cat)
    if probs.size and not bool((np.isfinite(probs) & (probs >= 0)).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if probs.shape[0] and not bool((probs.sum(axis=1) > 0).all()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    probs = _round_to(probs.astype(work), input.dtype)
    g = _gen(generator)
    if replacement and num_samples > 1:
        idx = _sample_with_replacement(probs, num_samples, g)
    else:
        idx = _exponential_race(probs, num_samples, g, input.dtype)
    shape = (num_samples,) if input.dim() == 1 else (probs.shape[0], num_samples)
    t = _target(shape, _dt.int64 if out is None else None, None, out, _dt.int64)
    _store(t, idx)
    return _finish(t, input.device, False, out)


def _sample_with_replacement(probs, k, g):
    """PyTorch's inverse-CDF sampler: per row, the running sum in the input's precision
    divided by the total (last entry forced to 1), then for each float64 uniform the
    first category whose cumulative probability is >= it."""
    u = g._uniform53(probs.shape[0] * k).reshape(-1, k)
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


def _exponential_values(g, n, lambd):
    """PyTorch's ``exponential_distribution<double>``: ``-1/lambda * log1p(-u)``."""
    return (-1.0 / lambd) * _K.libm(math.log1p, -g._uniform53(n))


def _poisson_value(rate, g):
    """One Poisson sample with PyTorch's CPU algorithm: Hormann's transformed
    rejection for rates >= 10, multiplying uniforms below."""
    def uniform():
        return float(g._uniform53(1)[0])
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


def poisson(input, generator=None):
    """Poisson samples with the rates in ``input`` (same shape and dtype).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.poisson(cygrad.zeros(3)).tolist()
    [0.0, 0.0, 0.0]
    """
    _require_float(input.dtype, "poisson_cpu")
    rates = _C._ndarray(input.cpu())
    if rates.size and not bool((rates >= 0).all()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    t = _C._empty(tuple(input.shape), input.dtype, CPU)
    g = _gen(generator)
    _store(t, np.array([_poisson_value(r, g) for r in rates.astype(np.float64).ravel().tolist()],
                       dtype=np.float64))
    return _finish(t, input.device, False, None)


# ----------------------------------------------------------------------- in-place samplers

def _range_args(kwargs, first, second, defaults):
    """PyTorch spells these arguments ``from``/``to``, which Python cannot name
    directly; accept them through ``**kwargs`` too."""
    a = kwargs.pop("from", first)
    b = kwargs.pop("to", second)
    if kwargs:
        raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}")
    return (defaults[0] if a is None else a), (defaults[1] if b is None else b)


@tensor_method
def uniform_(self, from_=None, to=None, *, generator=None, **kwargs):
    """Fill with samples from U[from, to), in place (defaults 0 and 1).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.empty(100).uniform_(-1, 1)
    >>> bool(((x >= -1) & (x < 1)).all())
    True
    """
    low, high = _range_args(kwargs, from_, to, (0.0, 1.0))
    _require_float(self.dtype, "check_uniform_bounds")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(low)} > to={_fmt(high)}")
    _check_inplace(self)
    _fill_uniform(self, _gen(generator), float(low), float(high))
    self._bump_version()
    return self


@tensor_method
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples from N(mean, std**2), in place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty(3).normal_(5.0, 0.0).tolist()
    [5.0, 5.0, 5.0]
    """
    _require_float_normal(self)
    _check_std(std)
    _check_inplace(self)
    _fill_normal(self, _gen(generator), float(mean), float(std))
    self._bump_version()
    return self


def _full_range(dtype):
    """[low, high) that ``random_()`` with no bounds draws from for ``dtype``."""
    if dtype.is_floating_point:
        digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[dtype.name]
        return 0, (1 << digits) + 1
    if dtype is _dt.bool_:
        return 0, 2
    return 0, int(np.iinfo(dtype.np_dtype).max) + 1


@tensor_method
def random_(self, *args, generator=None, **kwargs):
    """Fill with integers in place: ``random_()`` spans the dtype (for floats the
    integers exactly representable, up to 2**mantissa), ``random_(to)`` is [0, to),
    ``random_(from, to)`` is [from, to), ``random_(from, None)`` is [from, dtype max].

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.empty(50).random_(3, 5)
    >>> sorted(set(x.tolist())) in ([3.0], [4.0], [3.0, 4.0])
    True
    """
    lo_default, hi_default = _full_range(self.dtype)
    if len(args) > 2:
        raise TypeError(f"random_() takes at most 2 positional arguments ({len(args)} given)")
    bounded = bool(args) or "from" in kwargs or "to" in kwargs
    if len(args) == 2:
        low, high = args
    elif len(args) == 1 and "to" not in kwargs:
        low, high = 0, args[0]        # random_(to)
    elif len(args) == 1:
        low, high = args[0], kwargs.pop("to")
    else:
        low, high = kwargs.pop("from", 0), kwargs.pop("to", None)
    if kwargs:
        raise TypeError(f"random_(): unexpected keyword arguments {sorted(kwargs)}")
    low = int(low)
    high = hi_default if high is None else int(high)
    _int_bounds_check(low, high, self.dtype)
    _check_inplace(self)
    _fill_integers(self, _gen(generator), low, high, whole_dtype=not bounded)
    self._bump_version()
    return self


@tensor_method
def exponential_(self, lambd=1.0, *, generator=None):
    """Fill with samples from the exponential distribution of rate ``lambd``, in place.

    Examples
    --------
    >>> import cygrad
    >>> bool((cygrad.empty(10).exponential_(2.0) >= 0).all())
    True
    """
    if not self.dtype.is_floating_point:
        raise RuntimeError(f"Exponential distribution is a continuous probability distribution. "
                           f"dtype must be a floating point but you specified "
                           f"{_C._torch_type_name(self.dtype)}")
    if not lambd > 0:
        raise RuntimeError(f"exponential_ expects lambda > 0.0, but found lambda={_fmt(lambd)}")
    _check_inplace(self)
    _place(self, _exponential_values(_gen(generator), self.numel(), float(lambd)))
    self._bump_version()
    return self


@tensor_method
def geometric_(self, p, *, generator=None):
    """Fill with the number of Bernoulli(p) trials up to the first success (1, 2, ...).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty(3).geometric_(1 - 1e-12).tolist()
    [1.0, 1.0, 1.0]
    """
    if not 0 < p < 1:
        raise RuntimeError(f"geometric_ expects p to be in (0, 1), but got p={_fmt(p)}")
    _check_inplace(self)
    u = _gen(generator)._uniform53(self.numel())
    _place(self, np.ceil(_K.libm(math.log, u) / math.log1p(-p)))
    self._bump_version()
    return self


@tensor_method
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with ``exp(N(mean, std**2))`` samples, in place.

    Examples
    --------
    >>> import cygrad
    >>> bool((cygrad.empty(5).log_normal_() > 0).all())
    True
    """
    _require_float(self.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    _check_inplace(self)
    z = _K.fma64(_scalar_normals(_gen(generator), self.numel()), float(std), float(mean))
    _place(self, _K.libm(math.exp, z))
    self._bump_version()
    return self


@tensor_method
def cauchy_(self, median=0.0, sigma=1.0, *, generator=None):
    """Fill with Cauchy samples ``median + sigma * tan(pi * (U - 1/2))``, in place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty(4).cauchy_().shape
    cygrad.Size([4])
    """
    _require_float(self.dtype, "cauchy_cpu")
    if not sigma > 0:
        raise RuntimeError(f"cauchy_ expects sigma > 0.0, but found sigma={_fmt(sigma)}")
    _check_inplace(self)
    u = _gen(generator)._uniform53(self.numel())
    _place(self, median + sigma * _K.libm(math.tan, math.pi * (u - 0.5)))
    self._bump_version()
    return self
