"""Random numbers: ``Generator``, the default generator and seeding, the sampling
factories (``rand``, ``randn``, ``randint``, ``normal``, ``randperm``, ``bernoulli``,
``multinomial``...) and the in-place samplers (``Tensor.uniform_``, ``normal_``...).

Every generator wraps NumPy's ``Generator(PCG64(seed))``: a well-tested PRNG with a
small state that can be saved and restored, so cygrad writes no PRNG of its own.
Samples go straight into the output tensor's memory where NumPy allows it
(``random(out=...)`` / ``standard_normal(out=...)`` for contiguous float32/float64);
other dtypes are drawn in float32/float64 (or int64) and converted once.

The streams are cygrad's own: the same seed gives the same numbers in cygrad every
time, but not the same numbers as PyTorch.
"""
import contextlib
import numbers
import secrets

import numpy as np

from ._core import tensor as _C
from ._core import dtype as _dt
from ._core.tensor import TensorBase
from .ops._argcheck import not_tensor
from ._device import device as Device, CPU
from ._tensor import tensor_method

__all__ = ["Generator", "default_generator", "manual_seed", "seed", "initial_seed",
           "get_rng_state", "set_rng_state", "rand", "randn", "randint", "rand_like",
           "randn_like", "randint_like", "normal", "randperm", "bernoulli", "multinomial",
           "poisson"]

# PyTorch's default seed for a fresh generator (a plain number, not code).
_DEFAULT_SEED = 67280421310721
_UINT64 = 1 << 64
# Bytes of a saved state: PCG64 state (16), increment (16), the cached half of a 64-bit
# draw (has_uint32 4 + uinteger 4), and the initial seed (8).
_STATE_SIZE = 48


class Generator:
    """A random number generator with its own state, as ``torch.Generator``.

    Pass it as ``generator=`` to any sampling function to draw from its stream
    instead of the default one; two generators never affect each other.

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
        self._seed = _DEFAULT_SEED
        self._np = np.random.Generator(np.random.PCG64(_DEFAULT_SEED))

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
        self._seed = seed % _UINT64
        self._np = np.random.Generator(np.random.PCG64(self._seed))
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
        """The full state as a uint8 tensor (restore it with ``set_state``)."""
        st = self._np.bit_generator.state
        raw = (st["state"]["state"].to_bytes(16, "little")
               + st["state"]["inc"].to_bytes(16, "little")
               + int(st["has_uint32"]).to_bytes(4, "little")
               + int(st["uinteger"]).to_bytes(4, "little")
               + self._seed.to_bytes(8, "little"))
        return _C.from_numpy(np.frombuffer(raw, dtype=np.uint8).copy())

    def set_state(self, new_state):
        """Restore a state saved by ``get_state``; returns the generator."""
        if not isinstance(new_state, TensorBase) or new_state.dtype is not _dt.uint8:
            raise TypeError("RNG state must be a torch.ByteTensor")
        if new_state.numel() != _STATE_SIZE:
            raise RuntimeError(f"Expected a CPUGeneratorImplState of size {_STATE_SIZE} but found "
                               f"the input RNG state size to be {new_state.numel()}")
        raw = bytes(np.ascontiguousarray(_C._ndarray(new_state.cpu())).reshape(-1))
        bitgen = np.random.PCG64()
        bitgen.state = {"bit_generator": "PCG64",
                        "state": {"state": int.from_bytes(raw[0:16], "little"),
                                  "inc": int.from_bytes(raw[16:32], "little")},
                        "has_uint32": int.from_bytes(raw[32:36], "little"),
                        "uinteger": int.from_bytes(raw[36:40], "little")}
        self._np = np.random.Generator(bitgen)
        self._seed = int.from_bytes(raw[40:48], "little")
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


def _size_arg(size, opname):
    if len(size) == 1 and isinstance(size[0], (list, tuple)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"{opname}(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__}")
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


def _direct_view(t):
    """A writable NumPy view of ``t`` that NumPy's samplers can fill in place, or None."""
    if (t.device.type == "cpu" and t.is_contiguous()
            and t.dtype in (_dt.float32, _dt.float64)):
        return _C._ndarray(t)
    return None


# Random bits of mantissa per half type: k / 2**bits is exact and stays below 1.
_HALF_BITS = {"float16": 11, "bfloat16": 8}


def _fill_uniform(t, g, low=0.0, high=1.0):
    """t[...] = samples from U[low, high)."""
    view = _direct_view(t)
    if view is not None:
        g._np.random(dtype=view.dtype, out=view)
        if low != 0.0 or high != 1.0:
            view *= (high - low)
            view += low
        return
    bits = _HALF_BITS.get(t.dtype.name)
    if bits is not None:
        # Drawn on the half type's own grid so that rounding never produces 1.0.
        u = g._np.integers(0, 1 << bits, size=tuple(t.shape)) * (1.0 / (1 << bits))
    else:
        u = g._np.random(size=tuple(t.shape))
    _store(t, u * (high - low) + low if (low != 0.0 or high != 1.0) else u)


def _fill_normal(t, g, mean=0.0, std=1.0):
    """t[...] = samples from N(mean, std**2)."""
    view = _direct_view(t)
    if view is not None:
        g._np.standard_normal(dtype=view.dtype, out=view)
        if std != 1.0:
            view *= std
        if mean != 0.0:
            view += mean
        return
    z = g._np.standard_normal(size=tuple(t.shape), dtype=np.float32)
    _store(t, z * std + mean if (mean != 0.0 or std != 1.0) else z)


def _require_float(dtype, kernel):
    if not dtype.is_floating_point:
        name = _C._torch_type_name(dtype)
        raise NotImplementedError(f'"{kernel}" not implemented for \'{name}\'')


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
    t = _target(_size_arg(size, "rand"), dtype, device, out, _dt.get_default_dtype())
    _require_float(t.dtype, "check_uniform_bounds")
    _fill_uniform(t, _gen(generator))
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
    t = _target(_size_arg(size, "randn"), dtype, device, out, _dt.get_default_dtype())
    _require_float(t.dtype, "normal_kernel_cpu")
    _fill_normal(t, _gen(generator))
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


def _fill_integers(t, g, low, high):
    """t[...] = integers uniform in [low, high)."""
    _store(t, g._np.integers(low, high, size=tuple(t.shape), dtype=np.int64)
           if high <= (1 << 63) else
           g._np.integers(low, high, size=tuple(t.shape), dtype=np.uint64))


def _as_int(v, name):
    if isinstance(v, bool) or not isinstance(v, numbers.Integral):
        raise TypeError(f"randint(): argument '{name}' must be int, not {type(v).__name__}")
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
    low = 0 if low is None else _as_int(low, "low")
    high = _as_int(high, "high")
    t = _target(_size_arg((size,), "randint"), dtype, device, out, _dt.int64)
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
    _require_float(t.dtype, "normal_kernel_cpu")
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
        _require_float(t.dtype, "normal_kernel_cpu")
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
    # Draw z ~ N(0, 1) in float64, then scale and shift by the (broadcast) parameters.
    z = g._np.standard_normal(size=shape)
    m = _C._ndarray(mean.cpu()).astype(np.float64) if mean_t else float(mean)
    s = _C._ndarray(std.cpu()).astype(np.float64) if std_t else float(std)
    _store(t, z * s + m)
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
    _store(t, _gen(generator)._np.permutation(int(n)))
    return _finish(t, device, requires_grad, out)


def _check_probabilities(p):
    arr = _C._ndarray(p.cpu())
    if arr.size and not bool(((arr >= 0) & (arr <= 1)).all()):
        raise RuntimeError("Expected p_in >= 0 && p_in <= 1 to be true, but got false.")
    return arr


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
    _store(t, g._np.random(size=tuple(input.shape)) < prob)
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
    _store(self, g._np.random(size=tuple(self.shape)) < prob)
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
    probs = _C._ndarray(input.cpu()).astype(np.float64).reshape(-1, n_cat)
    if probs.size and not bool((np.isfinite(probs) & (probs >= 0)).all()):
        raise RuntimeError("probability tensor contains either `inf`, `nan` or element < 0")
    if probs.shape[0] and not bool((probs.sum(axis=1) > 0).all()):
        raise RuntimeError("invalid multinomial distribution (sum of probabilities <= 0)")
    g = _gen(generator)
    if replacement:
        idx = _sample_with_replacement(probs, num_samples, g)
    else:
        idx = _sample_without_replacement(probs, num_samples, g)
    shape = (num_samples,) if input.dim() == 1 else (probs.shape[0], num_samples)
    t = _target(shape, _dt.int64 if out is None else None, None, out, _dt.int64)
    _store(t, idx)
    return _finish(t, input.device, False, out)


def _sample_with_replacement(probs, k, g):
    """Inverse-CDF sampling: the first category whose cumulative probability exceeds
    a uniform draw (zero-probability categories are never chosen)."""
    cdf = np.cumsum(probs, axis=1)
    cdf /= cdf[:, -1:]
    u = g._np.random(size=(probs.shape[0], k))
    idx = np.empty((probs.shape[0], k), dtype=np.int64)
    for r in range(probs.shape[0]):
        idx[r] = np.searchsorted(cdf[r], u[r], side="right")
    return np.minimum(idx, probs.shape[1] - 1)


def _sample_without_replacement(probs, k, g):
    """The k largest ``p / E`` with E ~ Exp(1) are a sample without replacement, each
    draw proportional to the remaining probabilities (the exponential-race trick)."""
    keys = probs / g._np.standard_exponential(size=probs.shape)
    return np.argsort(-keys, axis=1, kind="stable")[:, :k]


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
    _store(t, _gen(generator)._np.poisson(rates.astype(np.float64)))
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
    _require_float(self.dtype, "normal_kernel_cpu")
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
    _fill_integers(self, _gen(generator), low, high)
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
    view = _direct_view(self)
    g = _gen(generator)
    if view is not None:
        g._np.standard_exponential(dtype=view.dtype, out=view)
        if lambd != 1.0:
            view /= lambd
    else:
        _store(self, g._np.standard_exponential(size=tuple(self.shape)) / lambd)
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
    _store(self, _gen(generator)._np.geometric(p, size=tuple(self.shape)))
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
    _store(self, _gen(generator)._np.lognormal(mean, std, size=tuple(self.shape)))
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
    _store(self, median + sigma * _gen(generator)._np.standard_cauchy(size=tuple(self.shape)))
    self._bump_version()
    return self
