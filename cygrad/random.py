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

The samplers check their arguments here and draw through the kernel table
(:mod:`cygrad._core.dispatch`): for CPU tensors the generator's engine and the
fills (``uniform_fill``, ``normal_fill``, ``integers_fill``, ``bernoulli_fill``...)
are the CPU backend's (``cygrad/_core/backend_cpu/random.py``), which computes with
NumPy plus exact fused multiply-add emulation and glibc's ``log``/``sin``/``cos``
where PyTorch calls them, so the values match PyTorch's x86-64 builds (AVX2 or
AVX-512).  Not matched: CUDA generators, and PyTorch builds for other CPUs (their
float32 normals use libm).  CUDA tensors (``device="cuda"``, or an in-place sampler
on a CUDA tensor) are drawn on the device by the 'cuda' fills
(``cygrad/cuda/ops/random.py``: Philox4x32-10, state ``(seed, offset)`` per device);
``manual_seed`` seeds every CUDA device as well (docs/cuda.md).
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

from ._core import tensor as _C
from ._core import dtype as _dt
from ._core.dispatch import kernel
from ._core.tensor import TensorBase
from .ops._argcheck import not_tensor, number_arg
from ._device import device as Device, CPU
from ._tensor import tensor_method
from .autograd.inplace import apply_inplace
from .ops.shape.copying import Overwrite

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "rand_like",
           "randn_like", "randint_like", "normal", "randperm", "bernoulli", "multinomial",
           "poisson"]

# PyTorch's default seed for a fresh generator (a plain number, not code).
_DEFAULT_SEED = 67280421310721
_UINT64 = 1 << 64
# CPU tensors draw with the CPU backend's engine and fills; CUDA tensors draw on the
# device with the 'cuda' ones (a Philox engine per generator, see _fill).
_SAMPLER_DEVICE = "cpu"


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
        engine_device = _SAMPLER_DEVICE
        if self._device.type == "cuda":
            from . import cuda
            cuda._lazy_init()      # registers the 'cuda' kernels, the Philox engine among them
            engine_device = "cuda"
        self._engine = kernel("generator_engine", engine_device)(_DEFAULT_SEED)

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
        self._engine.reseed(seed % _UINT64)
        return self

    def seed(self):
        """Seed from the operating system's entropy; returns the seed used."""
        s = secrets.randbits(63)
        self.manual_seed(s)
        return s

    def initial_seed(self):
        """The seed this generator was last seeded with."""
        return self._engine.seed

    def get_state(self):
        """The full state as a uint8 tensor in PyTorch's layout (restore it with
        ``set_state``; ``torch.Generator.set_state`` accepts it too)."""
        return self._engine.get_state()

    def set_state(self, new_state):
        """Restore a state saved by ``get_state`` (or by PyTorch); returns the generator."""
        if not isinstance(new_state, TensorBase) or new_state.dtype is not _dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        self._engine.set_state(new_state)
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
    g = default_generator.manual_seed(seed)
    # as torch.manual_seed: every CUDA device too (kept until CUDA is set up)
    from . import cuda
    cuda.manual_seed_all(seed)
    return g


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
    if device is not None and Device(device).type == "cuda":
        return _C.empty(tuple(shape), dtype=dt, device=device)    # drawn on the device
    return _C._empty(tuple(shape), dt, CPU)


def _finish(t, device, requires_grad, out):
    if out is not None:
        t._bump_version()
        return t
    if device is not None and Device(device).type != "cpu" and t.device.type == "cpu":
        t = t.to(Device(device))
    if requires_grad:
        t.requires_grad_(True)
    return t


def _fill(primitive, g, t, *args):
    """Fill ``t`` with the sampling kernel ``primitive`` from ``g``'s stream (the
    arguments checked: kernels check nothing)."""
    dev = t.device
    if dev.type != "cuda":
        if g.device.type == "cuda":
            raise RuntimeError("Expected a 'cpu' device type for generator but found 'cuda'")
        kernel(primitive, _SAMPLER_DEVICE)(g._engine, t, *args)
        return
    if g is default_generator:       # the device's own default generator (Philox)
        engine = kernel("generator_engine", dev.type).default(dev.index)
    elif g.device.type != dev.type:
        raise RuntimeError(f"Expected a '{dev.type}' device type for generator but found "
                           f"'{g.device.type}'")
    else:
        engine = g._engine
    kernel(primitive, dev.type)(engine, t, *args)


def _float_parts(t):
    """What a random fill writes: a complex tensor's (real, imag) pairs, as PyTorch
    fills them (``view_as_real``), else the tensor itself."""
    return _C.view_as_real(t) if t.dtype.is_complex else t


def _require_float(dtype, kernel_name):
    if not dtype.is_floating_point:
        name = _C._torch_type_name(dtype)
        raise NotImplementedError(f'"{kernel_name}" not implemented for \'{name}\'')


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
    _fill("uniform_fill", _gen(generator), parts, 0.0, 1.0)
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
    _fill("normal_fill", _gen(generator), parts, 0.0, 1.0 if parts is t else 1 / math.sqrt(2))
    return _finish(t, device, requires_grad, out)


def _int_bounds_check(low, high, dtype):
    """PyTorch's checks that [low, high) fits the dtype."""
    if low >= high:
        raise RuntimeError(f"random_ expects 'from' to be less than 'to', but got from={low} >= "
                           f"to={high}")
    if dtype.is_floating_point:
        return
    if dtype.is_complex:
        raise RuntimeError("check_random_bounds handles only integral, floating-point and "
                           "boolean types")
    lo, hi = _int_range(dtype)
    cname = {"uint8": "unsigned char", "int8": "signed char", "int16": "short",
             "int32": "int", "int64": "long", "bool": "bool"}[dtype.name]
    if not lo <= low <= hi:
        raise RuntimeError(f"from is out of bounds for {cname}")
    if not lo <= high - 1 <= hi:
        raise RuntimeError(f"to - 1 is out of bounds for {cname}")


def _int_range(dtype):
    """The smallest and largest value of an integer (or bool) ``dtype``."""
    if dtype is _dt.bool_:
        return 0, 1
    bits = 8 * dtype.itemsize
    if dtype.is_signed:
        return -(1 << (bits - 1)), (1 << (bits - 1)) - 1
    return 0, (1 << bits) - 1


def _fill_integers(t, g, low, high, whole_dtype=False):
    """t[...] = integers uniform in [low, high)."""
    _fill("integers_fill", g, t, low, high, whole_dtype)


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
    dev = input.device if device is None else device
    return _target(tuple(input.shape), dt, dev, None, dt), dev


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
    _fill("uniform_fill", _gen(generator), t, 0.0, 1.0)
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
    _fill("normal_fill", _gen(generator), t, 0.0, 1.0)
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
        _fill("normal_fill", g, t, float(mean), float(std))
        return _finish(t, device, requires_grad, out)
    tensors = [x for x in (mean, std) if isinstance(x, TensorBase)]
    for x in tensors:
        _require_float(x.dtype, "normal_kernel_cpu")
    if not std_t:
        _check_std(std)
    elif std.device.type == "cpu" and bool((std < 0).any()):
        raise RuntimeError("normal expects all elements of std >= 0.0")
    from .ops.shape import broadcast_tensors
    shape = tuple(broadcast_tensors(*tensors)[0].shape)
    dt = _C.result_type(*tensors)
    t = _target(shape, None if out is not None else dt, tensors[0].device, out, dt)
    # PyTorch fills the output with N(0, std) (std=1 when std is a tensor), then
    # multiplies by a tensor std and adds the mean, each step rounded in the dtype.
    _fill("normal_fill", g, t, mean if mean_t else float(mean), std if std_t else float(std))
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
    if t.dtype is _dt.bool_ or t.dtype.is_complex:
        raise NotImplementedError(f"\"randperm\" not implemented for "
                                  f"'{_C._torch_type_name(t.dtype)}'")
    if not t.dtype.is_floating_point and n > 0 and n - 1 > _int_range(t.dtype)[1]:
        raise RuntimeError(f"n is too large for result tensor type: "
                           f"'{_C._torch_type_name(t.dtype)}'")
    _fill("randperm_fill", _gen(generator), t)
    return _finish(t, device, requires_grad, out)


def _check_probabilities(p):
    """``p`` as the kernel compares it with its uniform draws: float64 stays, other
    dtypes become float32; every value must lie in [0, 1]."""
    if p.dtype is not _dt.float64:
        p = p.to(_dt.float32)
    # (a CUDA p is checked by the CUDA kernel, on the device)
    if p.device.type == "cpu" and not bool(((p >= 0) & (p <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return p


# ------------------------------------------------------------- in-place samplers
# Each in-place sampler is a Function marked dirty (cygrad.autograd.inplace): the
# samples overwrite the old values, which get a zero gradient (PyTorch's nodes).

class _Sample(Overwrite):
    """Fill ``x`` from the sampling primitive of the kernel table."""

    @staticmethod
    def forward(ctx, x, primitive, g, *args):
        _fill(primitive, g, _float_parts(x), *args)
        return x


class Uniform(_Sample):
    _node_name = "UniformBackward0"


class Normal(_Sample):
    _node_name = "NormalBackward0"


class Bernoulli(_Sample):
    _node_name = "BernoulliBackward2"


class BernoulliTensor(_Sample):
    _node_name = "BernoulliBackward1"


class Exponential(_Sample):
    _node_name = "ExponentialBackward0"


class Geometric(_Sample):
    _node_name = "GeometricBackward0"


class LogNormal(_Sample):
    _node_name = "LogNormalBackward0"


class Cauchy(_Sample):
    _node_name = "CauchyBackward0"


class Random(Overwrite):
    """``random_()``: integers spanning the dtype."""
    _node_name = "RandomBackward2"

    @staticmethod
    def forward(ctx, x, g, low, high, whole_dtype):
        _fill_integers(x, g, low, high, whole_dtype=whole_dtype)
        return x


class RandomTo(Random):
    _node_name = "RandomBackward1"


class RandomFromTo(Random):
    _node_name = "RandomBackward0"


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
    t = _target(tuple(input.shape), input.dtype if out is None else None, input.device, out,
                input.dtype)
    _fill("bernoulli_fill", g, t, prob)
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
    cls = BernoulliTensor if isinstance(prob, TensorBase) else Bernoulli
    return apply_inplace(cls, self, "bernoulli_fill", g, prob)


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
    rows = input.shape[0] if input.dim() == 2 else 1
    if (not replacement or num_samples == 1) and rows and not n_cat:
        # PyTorch's sampler without replacement takes the extrema of the probabilities
        raise RuntimeError("aminmax(): cannot compute aminmax over an empty dimension as the "
                           "operation has no identity.")
    if input.device.type == "cpu":       # (the CUDA kernel checks these on the device)
        p64 = input.to(_dt.float64)
        if not bool((p64.isfinite() & (p64 >= 0)).all()):
            raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
        if not bool((p64.sum(-1) > 0).all()):
            raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = _gen(generator)
    shape = (num_samples,) if input.dim() == 1 else (rows, num_samples)
    t = _target(shape, _dt.int64 if out is None else None, input.device, out, _dt.int64)
    _fill("multinomial_fill", g, t, input, replacement)
    return _finish(t, input.device, False, out)


def poisson(input, generator=None):
    """Poisson samples with the rates in ``input`` (same shape and dtype).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.poisson(cygrad.zeros(3)).tolist()
    [0.0, 0.0, 0.0]
    """
    _require_float(input.dtype, "poisson_cpu")
    # (a CUDA input's rates are checked by the CUDA kernel, on the device)
    if input.device.type == "cpu" and not bool((input >= 0).all()):
        raise RuntimeError("invalid Poisson rate, expected rate to be non-negative")
    t = _target(tuple(input.shape), input.dtype, input.device, None, input.dtype)
    _fill("poisson_fill", _gen(generator), t, input)
    return _finish(t, input.device, False, None)


# ----------------------------------------------------------------------- in-place samplers

def _range_args(kwargs, first, second, defaults):
    """PyTorch spells these arguments ``from``/``to``, which Python cannot name
    directly; accept them through ``**kwargs`` too."""
    a = kwargs.pop("from", first)
    b = kwargs.pop("to", second)
    if kwargs:
        raise TypeError(f"unexpected keyword arguments {sorted(kwargs)}")
    return tuple(default if v is _NOT_GIVEN else number_arg(v, "uniform_", name, i + 1)
                 for i, (v, default, name) in enumerate(((a, defaults[0], "from"),
                                                         (b, defaults[1], "to"))))


class _NotGiven:
    """``uniform_``'s bounds when not given (an explicit None is PyTorch's TypeError)."""
    __slots__ = ()

    def __repr__(self):
        return "<default>"      # what help() shows


_NOT_GIVEN = _NotGiven()


@tensor_method
def uniform_(self, from_=_NOT_GIVEN, to=_NOT_GIVEN, *, generator=None, **kwargs):
    """Fill with samples from U[from, to), in place (defaults 0 and 1).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.empty(100).uniform_(-1, 1)
    >>> bool(((x >= -1) & (x < 1)).all())
    True
    """
    low, high = _range_args(kwargs, from_, to, (0.0, 1.0))
    # a complex tensor's real and imaginary parts are each drawn from [from, to)
    _require_float(_float_parts(self).dtype, "check_uniform_bounds")
    if low > high:
        raise RuntimeError(f"uniform_ expects to return a [from, to) range, but found "
                           f"from={_fmt(low)} > to={_fmt(high)}")
    _check_inplace(self)
    return apply_inplace(Uniform, self, "uniform_fill", _gen(generator), float(low), float(high))


@tensor_method
def normal_(self, mean=0.0, std=1.0, *, generator=None):
    """Fill with samples from N(mean, std**2), in place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty(3).normal_(5.0, 0.0).tolist()
    [5.0, 5.0, 5.0]
    """
    mean, std = number_arg(mean, "normal_", "mean", 1), number_arg(std, "normal_", "std", 2)
    _require_float_normal(_float_parts(self))
    _check_std(std)
    _check_inplace(self)
    # complex: each part N(mean, std**2 / 2), so that E|z - mean|^2 = std**2 (PyTorch)
    part_std = std / math.sqrt(2) if self.dtype.is_complex else std
    return apply_inplace(Normal, self, "normal_fill", _gen(generator), float(mean),
                         float(part_std))


def _full_range(dtype):
    """[low, high) that ``random_()`` with no bounds draws from for ``dtype``."""
    if dtype.is_floating_point:
        digits = {"float16": 11, "bfloat16": 8, "float32": 24, "float64": 53}[dtype.name]
        return 0, (1 << digits) + 1
    if dtype is _dt.bool_:
        return 0, 2
    return 0, _int_range(dtype)[1] + 1


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
    from_given = len(args) == 2 or "from" in kwargs or (len(args) == 1 and "to" in kwargs)
    if len(args) == 2:
        low, high = args
    elif len(args) == 1 and "to" not in kwargs:
        low, high = 0, args[0]        # random_(to)
        if high is None:
            raise TypeError("random_(): argument 'to' (position 1) must be int, not NoneType")
    elif len(args) == 1:
        low, high = args[0], kwargs.pop("to")
    else:
        low, high = kwargs.pop("from", 0), kwargs.pop("to", None)
    if kwargs:
        raise TypeError(f"random_(): unexpected keyword arguments {sorted(kwargs)}")
    if self.dtype.is_complex and high is None:
        if not bounded:
            raise NotImplementedError(f"\"random_kernel_cpu\" not implemented for "
                                      f"'{_C._torch_type_name(self.dtype)}'")
        raise RuntimeError("random_from_to_impl handles only integral, floating-point and "
                           "boolean types")
    low = int(number_arg(low, "random_", "from", 1))
    high = hi_default if high is None else int(number_arg(high, "random_", "to", 2))
    _int_bounds_check(low, high, self.dtype)
    _check_inplace(self)
    cls = RandomFromTo if from_given else (RandomTo if bounded else Random)
    return apply_inplace(cls, self, _gen(generator), low, high, not bounded)


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
    return apply_inplace(Exponential, self, "exponential_fill", _gen(generator), float(lambd))


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
    return apply_inplace(Geometric, self, "geometric_fill", _gen(generator), p)


@tensor_method
def log_normal_(self, mean=1.0, std=2.0, *, generator=None):
    """Fill with ``exp(N(mean, std**2))`` samples, in place.

    Examples
    --------
    >>> import cygrad
    >>> bool((cygrad.empty(5).log_normal_() > 0).all())
    True
    """
    mean = number_arg(mean, "log_normal_", "mean", 1)
    std = number_arg(std, "log_normal_", "std", 2)
    _require_float(self.dtype, "log_normal_cpu")
    if not std > 0:
        raise RuntimeError(f"log_normal_ expects std > 0.0, but found std={_fmt(std)}")
    _check_inplace(self)
    return apply_inplace(LogNormal, self, "log_normal_fill", _gen(generator), float(mean), float(std))


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
    return apply_inplace(Cauchy, self, "cauchy_fill", _gen(generator), median, sigma)
