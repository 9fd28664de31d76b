"""The 'cuda' kernels of the random family (``cuda_src/random.cu``): the Philox
generator engine and the sampling fills.

Each fill has the signature of the CPU kernel of the same name
(``cygrad/_core/backend_cpu/random.py``): the generator's engine first, then the
output tensor (any strides) and the distribution's parameters. The engine is a
:class:`PhiloxEngine`: the state is ``(seed, offset)``; a launch filling ``n``
elements reserves the counters ``offset .. offset + n - 1`` (element ``i`` draws
from Philox4x32-10 blocks with counter ``offset + i``) and moves the offset past
them, so a seed reproduces the stream and consecutive calls never repeat it. Each
device's default generator keeps its seed in :mod:`cygrad.cuda._runtime` (set by
``cygrad.cuda.manual_seed`` and ``cygrad.manual_seed``), which also resets its
offset. The values differ from the CPU generator's, as PyTorch's CUDA streams do.

Examples
--------
>>> from cygrad.cuda.ops.random import PhiloxEngine
>>> e = PhiloxEngine(7)
>>> e.reserve(10), e.reserve(1)
((7, 0), (7, 10))
"""
import struct

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core import tensor as _C
from .. import _runtime
from .. import kernels as _k
from ..tensors import _expanded_strides
from . import sort as _sort

PRIMITIVES = ("generator_engine", "uniform_fill", "normal_fill", "log_normal_fill",
              "exponential_fill", "geometric_fill", "cauchy_fill", "integers_fill",
              "bernoulli_fill", "poisson_fill", "multinomial_fill", "randperm_fill")

_FILE = "random.cu"
_UINT64 = 1 << 64
_FLOATS = {"float32": "f32", "float64": "f64", "float16": "f16", "bfloat16": "bf16"}
_ANY = dict(_FLOATS, int64="i64", int32="i32", int16="i16", int8="i8", uint8="u8", bool="b8")
_STATE = struct.Struct("<QQ")


def _suffix(primitive, dtype, table=_ANY):
    sfx = table.get(dtype.name)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype "
                                  f"{dtype} on device cuda")
    return sfx


class PhiloxEngine:
    """A CUDA generator's state: ``seed`` and the Philox counter ``offset``.

    Examples
    --------
    >>> e = PhiloxEngine(3)
    >>> _ = e.reserve(5)
    >>> e.offset
    5
    >>> e.reseed(4).offset
    0
    """

    def __init__(self, seed):
        self.seed = int(seed) % _UINT64
        self.offset = 0

    @classmethod
    def default(cls, index):
        """The engine of device ``index``'s default generator.

        Examples
        --------
        >>> from cygrad.cuda.ops.random import PhiloxEngine
        >>> isinstance(PhiloxEngine.default(0), PhiloxEngine)
        True
        """
        return _DeviceDefault(index)

    def reseed(self, seed):
        """Restart the stream from ``seed``; returns the engine."""
        self.seed = int(seed) % _UINT64
        self.offset = 0
        return self

    def reserve(self, n):
        """``(seed, first counter)`` for a launch of ``n`` elements; moves the offset."""
        start = self.offset
        self.offset = (start + int(n)) % _UINT64
        return self.seed, start

    def get_state(self):
        """The state as 16 bytes (seed, offset; little-endian uint64), a uint8 tensor."""
        from ...ops.creation import tensor
        return tensor(list(_STATE.pack(self.seed, self.offset)), dtype=_dt.uint8)

    def set_state(self, state):
        """Load a state from :meth:`get_state`; returns the engine."""
        if state.numel() != _STATE.size:
            raise RuntimeError(f"RNG state is wrong size: expected {_STATE.size} bytes, got "
                               f"{state.numel()}")
        self.seed, self.offset = _STATE.unpack(bytes(state.cpu().tolist()))
        return self


class _DeviceDefault(PhiloxEngine):
    """The default generator of one device: seed and offset live in
    :mod:`cygrad.cuda._runtime`, where ``manual_seed`` sets them."""

    def __init__(self, index):       # pylint: disable=super-init-not-called
        self.index = index

    @property
    def seed(self):
        with _runtime._lock:
            return _runtime._seeds.get(self.index, _runtime.DEFAULT_SEED)

    @seed.setter
    def seed(self, value):
        with _runtime._lock:
            _runtime._seeds[self.index] = value

    @property
    def offset(self):
        with _runtime._lock:
            return _runtime._offsets.get(self.index, 0)

    @offset.setter
    def offset(self, value):
        with _runtime._lock:
            _runtime._offsets[self.index] = value

    def reserve(self, n):
        with _runtime._lock:
            return PhiloxEngine.reserve(self, n)


# ---------------------------------------------------------------- launching

def _launch(out, name, n, *args):
    _k.launch(out.device.index, _FILE, name, _k.grid_1d(n), (_k.BLOCK, 1, 1), args)


def _fill(gen, out, name, *params, a=None):
    """One launch of ``name`` over ``out`` (geometry first; ``a`` an operand read
    through the geometry's ``stride_a``) with ``(seed, offset)`` after ``params``'s
    tensor pointers."""
    n = out.numel()
    if not n:
        return out
    shape = tuple(out.shape)
    a_strides = _expanded_strides(a, shape) if a is not None else ()
    geo = _k.geometry(shape, out.stride(), a_strides)
    seed, offset = gen.reserve(n)
    ptrs = () if a is None else (a.data_ptr(),)
    _launch(out, name, n, n, geo, out.data_ptr(), *ptrs, seed, offset, *params)
    return out


def _flag(like):
    flag = _C._empty((1,), _dt.int32, like.device)
    dispatch.kernel("fill", "cuda")(flag, 0)
    return flag


def _flag_value(flag):
    """The error flag a kernel set, read back (the device-side check PyTorch does too)."""
    return int(flag.cpu().item())


# ---------------------------------------------------------------- fills

def uniform_fill(gen, out, low, high):
    """out[...] = samples from U[low, high) (floating ``out``).

    Examples
    --------
    >>> from cygrad.cuda.ops.random import uniform_fill
    >>> callable(uniform_fill)
    True
    """
    sfx = _suffix("uniform_fill", out.dtype, _FLOATS)
    return _fill(gen, out, f"cg_uniform_{sfx}", float(low), float(high))


def normal_fill(gen, out, mean, std):
    """out[...] = N(mean, std**2) samples (Box-Muller); a tensor ``mean``/``std``
    (``torch.normal``'s forms) scales and shifts N(0, 1) samples with the 'cuda'
    ``mul``/``add`` kernels.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import normal_fill
    >>> callable(normal_fill)
    True
    """
    sfx = _suffix("normal_fill", out.dtype, _FLOATS)
    mean_t, std_t = isinstance(mean, _C.TensorBase), isinstance(std, _C.TensorBase)
    _fill(gen, out, f"cg_normal_{sfx}", 0.0 if mean_t else float(mean),
          1.0 if std_t else float(std))
    if std_t:
        dispatch.kernel("mul", "cuda")(out, out, _same_dtype(std, out))
    if mean_t:
        dispatch.kernel("add", "cuda")(out, out, _same_dtype(mean, out))
    return out


def _same_dtype(t, out):
    return t if t.dtype is out.dtype else t.to(out.dtype)


def log_normal_fill(gen, out, mean, std):
    """out[...] = ``exp(N(mean, std**2))`` samples.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import log_normal_fill
    >>> callable(log_normal_fill)
    True
    """
    sfx = _suffix("log_normal_fill", out.dtype, _FLOATS)
    return _fill(gen, out, f"cg_log_normal_{sfx}", float(mean), float(std))


def exponential_fill(gen, out, lambd):
    """out[...] = exponential samples of rate ``lambd``: ``-log1p(-u) / lambd``.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import exponential_fill
    >>> callable(exponential_fill)
    True
    """
    sfx = _suffix("exponential_fill", out.dtype, _FLOATS)
    return _fill(gen, out, f"cg_exponential_{sfx}", float(lambd), 0.0)


def geometric_fill(gen, out, p):
    """out[...] = trials up to the first success, ``ceil(log(u) / log1p(-p))``.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import geometric_fill
    >>> callable(geometric_fill)
    True
    """
    sfx = _suffix("geometric_fill", out.dtype)
    return _fill(gen, out, f"cg_geometric_{sfx}", float(p), 0.0)


def cauchy_fill(gen, out, median, sigma):
    """out[...] = ``median + sigma * tan(pi * (u - 1/2))``.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import cauchy_fill
    >>> callable(cauchy_fill)
    True
    """
    sfx = _suffix("cauchy_fill", out.dtype, _FLOATS)
    return _fill(gen, out, f"cg_cauchy_{sfx}", float(median), float(sigma))


def integers_fill(gen, out, low, high, whole_dtype):
    """out[...] = integers uniform in [low, high): ``low + draw % (high - low)``, the
    draw 64-bit once the range reaches 2**28 (bound-less ``random_()``: for
    int64/float64), as the CPU kernel chooses; a floating ``out`` has its bounds moved
    inward to representable neighbours.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import integers_fill
    >>> callable(integers_fill)
    True
    """
    sfx = _suffix("integers_fill", out.dtype)
    if out.dtype.is_floating_point and high - low < _UINT64 and not whole_dtype:
        from ..._core.backend_cpu.random import _float_bounds     # scalar bound arithmetic
        low, high = _float_bounds(low, high, out.dtype)
    span = high - low
    if whole_dtype:
        wide = out.dtype in (_dt.int64, _dt.float64)
    else:
        wide = span >= (1 << 28)
    if span >= _UINT64:
        span, wide = 0, True
    return _fill(gen, out, f"cg_integers_{sfx}", span, int(low), 1 if wide else 0)


_BERNOULLI_P = {"float32": "pf32", "float64": "pf64"}


def bernoulli_fill(gen, out, p):
    """out[...] = 1 where ``u < p`` (``p`` a number, or a tensor broadcast to ``out``
    whose values the kernel checks lie in [0, 1]), else 0.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import bernoulli_fill
    >>> callable(bernoulli_fill)
    True
    """
    sfx = _suffix("bernoulli_fill", out.dtype)
    if not isinstance(p, _C.TensorBase):
        return _fill(gen, out, f"cg_bernoulli_{sfx}", float(p))
    if p.dtype.name not in _BERNOULLI_P:
        p = p.to(_dt.float32)
    flag = _flag(out)
    _fill(gen, out, f"cg_bernoulli_{sfx}_{_BERNOULLI_P[p.dtype.name]}", flag.data_ptr(), a=p)
    if out.numel() and _flag_value(flag):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return out


def poisson_fill(gen, out, rates):
    """out[...] = one Poisson sample per rate of ``rates`` (``out``'s shape and dtype):
    transformed rejection for rates >= 10, products of uniforms below.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import poisson_fill
    >>> callable(poisson_fill)
    True
    """
    sfx = _suffix("poisson_fill", out.dtype, _FLOATS)
    if rates.dtype is not out.dtype:
        rates = rates.to(out.dtype)
    flag = _flag(out)
    _fill(gen, out, f"cg_poisson_{sfx}", flag.data_ptr(), a=rates)
    if out.numel() and _flag_value(flag):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    return out


def multinomial_fill(gen, out, probs, replacement):
    """``out.shape[-1]`` category indices per row of the 1-D/2-D floating ``probs``:
    inverse CDF with replacement, the exponential race (keys ``p / E`` sorted
    descending by the sort family's kernels) without replacement and for one sample.

    Examples
    --------
    >>> from cygrad.cuda.ops.random import multinomial_fill
    >>> callable(multinomial_fill)
    True
    """
    if not out.numel():
        return out
    sfx = _suffix("multinomial_fill", probs.dtype, _FLOATS)
    ncat = probs.shape[-1]
    rows = out.numel() // out.shape[-1]
    k = out.shape[-1]
    p = _sort.dense(probs).reshape(rows, ncat)
    flag = _flag(out)
    _k.launch(out.device.index, _FILE, f"cg_prob_check_{sfx}", _k.grid_1d(rows),
              (_k.BLOCK, 1, 1), (rows, ncat, p.data_ptr(), flag.data_ptr()))
    bad = _flag_value(flag)
    if bad & 1:
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if bad & 2:
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    target = out if out.is_contiguous() else _C._empty(tuple(out.shape), out.dtype, out.device)
    if replacement and k > 1:
        cdf = _C._empty((rows, ncat), _dt.float64, out.device)
        seed, offset = gen.reserve(rows * k)
        _k.launch(out.device.index, _FILE, f"cg_multinomial_rep_{sfx}",
                  (max(1, min(rows, _k.MAX_BLOCKS)), 1, 1), (_k.BLOCK, 1, 1),
                  (rows, ncat, k, p.data_ptr(), cdf.data_ptr(), target.data_ptr(), seed, offset))
    else:
        keys = _C._empty((rows, ncat), _dt.float64, out.device)
        seed, offset = gen.reserve(rows * ncat)
        _launch(out, f"cg_race_keys_{sfx}", rows * ncat, rows * ncat, p.data_ptr(),
                keys.data_ptr(), seed, offset)
        _, idx = _sort.sort_rows(keys, True)
        _sort_copy(target, idx[:, :k])
    if target is not out:
        out.copy_(target)
    return out


def _sort_copy(dst, src):
    """dst[...] = src (int64, dst dense, src any strides) with sort.cu's gather."""
    n = src.numel()
    geo = _k.geometry(tuple(src.shape), (), src.stride())
    _k.launch(dst.device.index, "sort.cu", "cg_gather_b8", _k.grid_1d(n), (_k.BLOCK, 1, 1),
              (n, geo, dst.data_ptr(), src.data_ptr()))


def randperm_fill(gen, out):
    """out[...] = a random permutation of ``0..out.numel()-1``: one random 64-bit key
    per element, sorted (stable, so equal keys still give a permutation).

    Examples
    --------
    >>> from cygrad.cuda.ops.random import randperm_fill
    >>> callable(randperm_fill)
    True
    """
    sfx = _suffix("randperm_fill", out.dtype)
    n = out.numel()
    if not n:
        return out
    keys = _C._empty((1, n), _dt.int64, out.device)
    _fill(gen, keys, "cg_integers_i64", 0, 0, 1)
    _, idx = _sort.sort_rows(keys, False)
    geo = _k.geometry(tuple(out.shape), out.stride())
    _launch(out, f"cg_from_i64_{sfx}", n, n, geo, out.data_ptr(), idx.data_ptr())
    return out


def register():
    """Register this family's 'cuda' kernels (the engine class as ``generator_engine``).

    Examples
    --------
    >>> from cygrad.cuda.ops import random as family
    >>> family.register()
    """
    for name in PRIMITIVES:
        fn = PhiloxEngine if name == "generator_engine" else globals()[name]
        dispatch.register(name, "cuda")(fn)

