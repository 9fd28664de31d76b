"""The 'cuda' kernels of the factories and of the plumbing primitives
(``cuda_src/creation.cu``).

- ``arange``, ``linspace``, ``logspace`` fill their output on the device, with the
  CPU kernels' arithmetic (``cygrad/_core/backend_cpu/creation.py``): the same
  values bit for bit, for float16, bfloat16, float32, float64, uint8, int8,
  int16, int32 and int64. The few scalars a fill starts from (the bounds rounded
  to the dtype, the step) are worked out on the host, as on the CPU.
- ``tensor_from_data``, ``tensor_from_buffer`` and ``as_tensor_of`` turn host data
  that the caller passed (Python sequences, arrays, buffers) into a new tensor
  on the current CUDA device: the CPU entry reads the data, then one upload.
  This is no host fallback: the data is on the host to begin with.
- ``round_scalar`` rounds a Python number to a dtype (a fill value the caller
  passed): the CPU entry's rounding, on the host, where the number is.
- ``tensor_sharing`` returns None: a CUDA tensor cannot share host memory, so the
  caller copies (``as_tensor(array, device="cuda")`` copies in PyTorch too).
- ``tie_weights`` (the gradient weights of max/min/norms over ties) runs on the
  device: one block per slice counts the slice's matches, then writes ``1/k``.

Examples
--------
>>> from cygrad.cuda.ops import creation
>>> "arange" in creation.PRIMITIVES
True
"""
import math

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core import tensor as _C
from ..._device import device as _Device
from .. import kernels as _k

_CUDA = _Device("cuda")          # (no index: the current device)

#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = ("arange", "linspace", "logspace", "tensor_from_data", "tensor_from_buffer",
              "as_tensor_of", "tensor_sharing", "tie_weights", "round_scalar")

_SUFFIX = {"float16": "f16", "bfloat16": "bf16", "float32": "f32", "float64": "f64",
           "uint8": "u8", "int8": "i8", "int16": "i16", "int32": "i32", "int64": "i64"}
_TIE_SUFFIX = ("f16", "bf16", "f32", "f64")


def _suffix(primitive, dtype, allowed=None):
    sfx = _SUFFIX.get(dtype.name)
    if sfx is None or (allowed is not None and sfx not in allowed):
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype "
                                  f"{dtype} on cuda")
    return sfx


def _fill(primitive, out, *args):
    """Launch ``cg_<primitive>_<dtype>`` over the 1-D ``out`` (through a contiguous
    buffer when ``out`` is a strided view)."""
    sfx = _suffix(primitive, out.dtype)
    n = out.numel()
    if not n:
        return out
    target = out if out.is_contiguous() else _C._empty((n,), out.dtype, out.device)
    _k.launch(out.device.index, "creation.cu", f"cg_{primitive}_{sfx}", _k.grid_1d(n),
              (_k.BLOCK, 1, 1), (n, target.data_ptr()) + args)
    if target is not out:
        out.copy_(target)
    return out


def _round(value, dt):
    """``value`` rounded to the floating dtype ``dt`` (the CPU's scalar rounding)."""
    return dispatch.kernel("round_scalar", "cpu")(float(value), dt)


def _as(value, dt):
    """A bound converted to ``dt`` as the CPU kernels convert it (floats rounded,
    integers truncated toward zero)."""
    if dt.is_floating_point:
        return _round(value, dt)
    return int(value)


def arange(out, start, step):
    """Fill the 1-D CUDA tensor ``out`` with ``start + i * step`` on the device (the CPU
    entry's arithmetic: double for float32/float64, float for float16/bfloat16,
    wrapping int64 for integers).

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import arange
    >>> arange.__name__
    'arange'
    """
    if out.dtype.is_floating_point:
        return _fill("arange", out, float(start), float(step))
    return _fill("arange", out, int(start), int(step))


def linspace(out, start, end):
    """Fill the 1-D CUDA tensor ``out`` (two elements or more) with evenly spaced values
    from ``start`` to ``end`` on the device, as the CPU entry does.

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import linspace
    >>> linspace.__name__
    'linspace'
    """
    steps, dt = out.numel(), out.dtype
    _suffix("linspace", dt)
    s, e = _as(start, dt), _as(end, dt)
    if dt.is_floating_point:
        # the step in the dtype's arithmetic: each operation correctly rounded
        diff = e - s if dt is _dt.float64 else _round(e - s, dt)
        # (steps - 1 is itself rounded to the dtype: 299 is 300 in bfloat16)
        step = diff / (steps - 1) if dt is _dt.float64 else \
            _round(diff / _round(steps - 1, dt), dt)
    else:
        step = (float(e) - float(s)) / (steps - 1)
    return _fill("linspace", out, float(s), float(e), step)


def logspace(out, start, end, base):
    """Fill the 1-D CUDA tensor ``out`` (two elements or more) with ``base`` raised to
    evenly spaced exponents from ``start`` to ``end``, on the device, as the CPU
    entry does.

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import logspace
    >>> logspace.__name__
    'logspace'
    """
    steps, dt = out.numel(), out.dtype
    _suffix("logspace", dt)
    s, e = _as(start, dt), _as(end, dt)
    if dt.is_floating_point:
        diff = e - s if dt is _dt.float64 else _round(e - s, dt)    # taken in the dtype
        base = float(base)
    else:
        bits = max(32, dt.itemsize * 8)           # C promotes small ints to int
        diff = (e - s + (1 << (bits - 1))) % (1 << bits) - (1 << (bits - 1))
        base = _round(base, _dt.float32)          # PyTorch rounds the base to float here
    return _fill("logspace", out, float(s), float(e), diff / (steps - 1), base)


def _upload(host):
    """A new tensor on the current CUDA device holding the CPU tensor ``host``."""
    return _C._convert_tensor(host, host.dtype, _CUDA)


def tensor_from_data(data, dtype=None):
    """A new contiguous tensor on the current CUDA device holding a copy of the host
    ``data`` (read as the CPU entry reads it, then uploaded).

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import tensor_from_data
    >>> tensor_from_data.__name__
    'tensor_from_data'
    """
    return _upload(dispatch.kernel("tensor_from_data", "cpu")(data, dtype))


def tensor_from_buffer(buffer, dtype, count, offset):
    """A 1-D tensor on the current CUDA device holding a copy of ``count`` elements of
    ``dtype`` of the host ``buffer`` from byte ``offset`` (a device tensor cannot
    share host memory).

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import tensor_from_buffer
    >>> tensor_from_buffer.__name__
    'tensor_from_buffer'
    """
    return _upload(dispatch.kernel("tensor_from_buffer", "cpu")(buffer, dtype, count, offset))


def as_tensor_of(value, dtype):
    """A list or ndarray (``t[idx] = [...]`` on a CUDA tensor) as a ``dtype`` tensor on
    the current CUDA device.

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import as_tensor_of
    >>> as_tensor_of.__name__
    'as_tensor_of'
    """
    return _upload(dispatch.kernel("as_tensor_of", "cpu")(value, dtype))


def tensor_sharing(data):
    """None: a CUDA tensor cannot share the memory of host ``data``, so the caller
    copies it (the CPU entry returns a tensor sharing a NumPy array's memory).

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import tensor_sharing
    >>> tensor_sharing([1.0]) is None
    True
    """
    return None


def round_scalar(value, dtype):
    """The Python float ``value`` rounded to the floating ``dtype``, as a Python float:
    a number of the caller's (a fill value), not device data, so the CPU entry's
    rounding is the answer on every device.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.cuda.ops.creation import round_scalar
    >>> round_scalar(70000.0, cygrad.float16)
    inf
    """
    return _round(value, dtype)


def tie_weights(x, result, kept_shape, axes, nan_ties):
    """``1/k`` at each of the ``k`` elements of a slice of the CUDA tensor ``x`` equal to
    its ``result`` (shaped ``kept_shape``: the reduced dims as size 1), 0 elsewhere;
    a NaN result matches NaN elements when ``nan_ties``. Float dtypes; any strides.

    Examples
    --------
    >>> from cygrad.cuda.ops.creation import tie_weights
    >>> tie_weights.__name__
    'tie_weights'
    """
    sfx = _suffix("tie_weights", x.dtype, _TIE_SUFFIX)
    if result.dtype is not x.dtype:
        result = result.to(x.dtype)
    nd = x.dim()
    out = _C._empty(tuple(x.shape), x.dtype, x.device)
    if not out.numel():
        return out
    shape = tuple(x.shape)
    axes = tuple(range(nd)) if axes is None else tuple(sorted({a % nd for a in axes}))
    kept = [d for d in range(nd) if d not in axes]
    r = result.reshape(tuple(kept_shape)) if nd else result.reshape(())
    r_strides = [0 if d in axes else st for d, st in enumerate(r.stride())]
    order = kept + list(axes)
    rows = math.prod(shape[d] for d in kept)
    cols = math.prod(shape[d] for d in axes)
    geo = _k.geometry(tuple(shape[d] for d in order) or (1,),
                      [out.stride()[d] for d in order] or [0],
                      [x.stride()[d] for d in order] or [0],
                      [r_strides[d] for d in order] or [0])
    _k.launch(x.device.index, "creation.cu", f"cg_tie_weights_{sfx}",
              (max(1, min(rows, _k.MAX_BLOCKS)), 1, 1), (_k.BLOCK, 1, 1),
              (rows, cols, geo, out.data_ptr(), x.data_ptr(), r.data_ptr(), int(bool(nan_ties))))
    return out


def register():
    """Register this module's kernels as the 'cuda' entries of the kernel table.

    Examples
    --------
    >>> from cygrad.cuda.ops import creation
    >>> callable(creation.register)
    True
    """
    for name in PRIMITIVES:
        dispatch.register(name, "cuda")(globals()[name])
