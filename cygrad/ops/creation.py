"""Factories: tensors from data, filled tensors, ranges, identity."""
import numbers

from .._core import tensor as _C
from .._core import dtype as _dt
from .._core.dispatch import kernel
from .._core.tensor import TensorBase, from_numpy, empty, zeros, ones, full
from ._argcheck import not_tensor, int_arg, number_arg, float_arg, check_scalar_fits
from ._ranges import arange_values, linspace_values, logspace_values
from .._device import device as Device, CPU
from .._tensor import Tensor

__all__ = ["tensor", "as_tensor", "asarray", "from_numpy", "empty", "zeros", "ones", "full",
           "empty_like", "zeros_like", "ones_like", "full_like", "arange", "linspace",
           "logspace", "eye", "scalar_tensor"]


def _shape_arg(size):
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = tuple(size[0])
    for s in size:
        if not isinstance(s, numbers.Integral):
            raise TypeError(f"size must be a sequence of ints, got {type(s).__name__}")
    return tuple(int(s) for s in size)


def _finish(t, requires_grad):
    if requires_grad:
        t.requires_grad_(True) if hasattr(t, "requires_grad_") else setattr(t, "requires_grad", True)
    return t


# How deep PyTorch reads nested sequences before "too many dimensions" (a ValueError;
# a list that contains itself ends there too, not in a RecursionError).
_MAX_NESTING = 128


def _too_deep(seq):
    return ValueError(f"too many dimensions '{type(seq).__name__}'")


def _flat(seq, depth=1):
    if depth > _MAX_NESTING:
        raise _too_deep(seq)
    for x in seq:
        if isinstance(x, (list, tuple)):
            yield from _flat(x, depth + 1)
        else:
            yield x


def _nested_items(seq, depth=1):
    if depth > _MAX_NESTING:
        raise _too_deep(seq)
    return [(_nested_items(x, depth + 1) if isinstance(x, (list, tuple)) else
             (x.tolist() if isinstance(x, TensorBase) else x)) for x in seq]


def tensor(data, dtype=None, device=None, requires_grad=False, pin_memory=False):
    """A new tensor holding a copy of ``data`` (nested lists, numbers, arrays, tensors).

    Python floats become the default dtype (float32), ints int64, bools bool; NumPy
    arrays keep their dtype.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[1, 2], [3, 4]]).dtype
    cygrad.int64
    >>> cygrad.tensor([1.5, 2.0])
    tensor([1.5000, 2.0000])
    """
    dt = None if dtype is None else _dt.as_dtype(dtype)
    if isinstance(data, TensorBase):
        out = data.detach().clone() if hasattr(data, "detach") else data.clone()
        out = out.to(dtype=dt, device=device) if (dt or device) else out
        return _finish(out, requires_grad)
    if isinstance(data, str):
        raise TypeError(f"new(): invalid data type '{type(data).__name__}'")
    if isinstance(data, (list, tuple)) and any(isinstance(x, TensorBase) for x in _flat(data)):
        data = _nested_items(data)
    global _from_data
    if _from_data is None:
        _from_data = kernel("tensor_from_data", "cpu")
    out = _from_data(data, dt)           # a new CPU tensor
    if device is not None:
        out = _C._convert_tensor(out, out.dtype, device)
    return _finish(out, requires_grad)


_from_data = None       # the CPU "tensor_from_data" kernel, looked up on first use


def as_tensor(data, dtype=None, device=None):
    """Like ``tensor`` but shares memory with ``data`` when it can (NumPy arrays, tensors).

    Examples
    --------
    >>> import numpy as np, cygrad
    >>> a = np.zeros(3)
    >>> cygrad.as_tensor(a).data_ptr() == a.ctypes.data
    True
    """
    dt = None if dtype is None else _dt.as_dtype(dtype)
    if isinstance(data, TensorBase):
        return data.to(dtype=dt, device=device) if (dt or device) else data
    t = kernel("tensor_sharing", "cpu")(data)
    if t is not None:
        return t.to(dtype=dt, device=device) if (dt or device) else t
    return tensor(data, dtype=dt, device=device)


asarray = as_tensor


def _new(size, dtype, device):
    dt = _dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype)
    shape = _shape_arg(size)
    return _C._empty(shape, dt, Device(device) if device is not None else CPU)


def _fill_number(value, dt, opname, argname, position, single=False):
    """A fill value checked as PyTorch's parser and c10 check it, in the form the
    array layer stores: an int bound for a floating dtype is read as a double
    first, as c10 does (so 2**63 fills a bfloat16 tensor).  PyTorch fills a
    ``single``-element float16/bfloat16 tensor without the range check (a plain
    rounding, so 70000 becomes inf): that value is rounded here."""
    value = number_arg(value, opname, argname, position)
    if single and (dt is _dt.float16 or dt is _dt.bfloat16):
        return kernel("round_scalar", "cpu")(value, dt)
    check_scalar_fits(value, dt)
    if dt.is_floating_point and type(value) is int:
        return float(value)
    return value


def scalar_tensor(s, dtype=None, device=None, requires_grad=False):
    """A 0-dim tensor holding ``s`` (default float dtype).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.scalar_tensor(3)
    tensor(3.)
    """
    dt = _dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype)
    return full((), _fill_number(s, dt, "scalar_tensor", "s", 1, single=True), dtype=dt, device=device,
                requires_grad=requires_grad)


def _like(t, dtype, device):
    return _new((tuple(t.shape),), t.dtype if dtype is None else dtype,
                t.device if device is None else device)


def empty_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """An uninitialised tensor with ``input``'s shape (and dtype/device unless given)."""
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "empty_like")
    return _finish(_like(input, dtype, device), requires_grad)


def zeros_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Zeros with ``input``'s shape, dtype and device.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros_like(cygrad.ones(2, 2)).sum().item()
    0.0
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "zeros_like")
    t = _like(input, dtype, device)
    _C._fill_zero(t)
    return _finish(t, requires_grad)


def ones_like(input, *, dtype=None, device=None, requires_grad=False, memory_format=None):
    """Ones with ``input``'s shape, dtype and device."""
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "ones_like")
    return _finish(_like(input, dtype, device).fill_(1), requires_grad)


def full_like(input, fill_value, *, dtype=None, device=None, requires_grad=False,
              memory_format=None):
    """``fill_value`` everywhere, with ``input``'s shape, dtype and device.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.full_like(cygrad.zeros(2, dtype=cygrad.int32), 7)
    tensor([7, 7], dtype=cygrad.int32)
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "full_like")
    t = _like(input, dtype, device)
    value = _fill_number(fill_value, t.dtype, "full_like", "fill_value", 2, single=t.numel() == 1)
    return _finish(t.fill_(value), requires_grad)


def arange(start, end=None, step=1, *, dtype=None, device=None, requires_grad=False, out=None):
    """Values from ``start`` to ``end`` (exclusive) by ``step``; int64 unless any bound is a float.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.arange(5).tolist()
    [0, 1, 2, 3, 4]
    >>> cygrad.arange(0, 1, 0.25).tolist()
    [0.0, 0.25, 0.5, 0.75]
    """
    if end is None:
        start, end = 0, number_arg(start, "arange", "end", 1)
    else:
        start, end = number_arg(start, "arange", "start", 1), number_arg(end, "arange", "end", 2)
    step = number_arg(step, "arange", "step", 3)
    if dtype is None and out is not None:
        dtype = out.dtype
    if dtype is None:
        integral = all(isinstance(v, int) for v in (start, end, step))   # bools count, as in torch
        dt = _dt.int64 if integral else _dt.get_default_dtype()
    else:
        dt = _dt.as_dtype(dtype)
    res = arange_values(start, end, step, dt, _device_arg(device, out))
    return _finish(_result_into(res, out, "arange"), requires_grad)


def _device_arg(device, out):
    """The device a factory fills its result on: ``device``, else ``out=``'s, else the CPU."""
    if device is None:
        return out.device if isinstance(out, TensorBase) else CPU
    return Device(device)


def _result_into(res, out, opname):
    """Factories' ``out=``: write ``res`` into ``out`` (same shape) and return ``out``."""
    if out is None:
        return res
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if tuple(out.shape) != tuple(res.shape):
        # PyTorch resizes out= tensors of the wrong shape (factories don't warn)
        out.resize_(tuple(res.shape))
    out.copy_(res)
    return out


def _space_args(opname, start, end, steps, dtype, out):
    # a steps that is no int fails the parse before a bound's value is converted
    steps = int_arg(steps, opname, "steps", 3)
    start, end = number_arg(start, opname, "start", 1), number_arg(end, opname, "end", 2)
    if steps < 0:
        raise RuntimeError("number of steps must be non-negative")
    if dtype is None and out is not None:
        dtype = out.dtype
    return start, end, steps, _dt.as_dtype(dtype) if dtype is not None else _dt.get_default_dtype()


def linspace(start, end, steps, *, dtype=None, device=None, requires_grad=False, out=None):
    """``steps`` evenly spaced values from ``start`` to ``end`` inclusive.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linspace(0, 1, 5).tolist()
    [0.0, 0.25, 0.5, 0.75, 1.0]
    """
    start, end, steps, dt = _space_args("linspace", start, end, steps, dtype, out)
    res = linspace_values(start, end, steps, dt, _device_arg(device, out))
    return _finish(_result_into(res, out, "linspace"), requires_grad)


def logspace(start, end, steps, base=10.0, *, dtype=None, device=None, requires_grad=False,
             out=None):
    """``steps`` values from ``base**start`` to ``base**end``, evenly spaced in log scale.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    start, end, steps, dt = _space_args("logspace", start, end, steps, dtype, out)
    base = float_arg(base, "logspace", "base", 4)
    base = float(base.item() if isinstance(base, TensorBase) else base)
    res = logspace_values(start, end, steps, base, dt, _device_arg(device, out))
    return _finish(_result_into(res, out, "logspace"), requires_grad)


def eye(n, m=None, *, dtype=None, device=None, requires_grad=False, out=None):
    """A 2-D tensor with ones on the diagonal.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.eye(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    n = int_arg(n, "eye", "n", 1)
    if m is not None:
        m = int_arg(m, "eye", "m", 2)
    if n < 0:
        raise RuntimeError(f"n must be greater or equal to 0, got {n}")
    if m is not None and m < 0:
        raise RuntimeError(f"m must be greater or equal to 0, got {m}")
    m = n if m is None else m
    if dtype is None and out is not None:
        dtype = out.dtype
    t = zeros(n, m, dtype=dtype, device=device)
    if min(n, m):
        t.diagonal().fill_(1)
    return _finish(_result_into(t, out, "eye"), requires_grad)


def _legacy_constructor(*args, **kwargs):
    """``cygrad.Tensor(data)`` / ``cygrad.Tensor(2, 3)``, as ``torch.Tensor(...)``."""
    if len(args) == 1 and not isinstance(args[0], numbers.Integral):
        return tensor(args[0], dtype=_dt.float32)
    return empty(*args, dtype=_dt.float32)


# ----------------------------------------------------------------- Tensor.new_* factories
# PyTorch's ``t.new_zeros(size)`` & co.: a new tensor with ``t``'s dtype and device
# unless given, handy in code that must not hard-code either (backward formulas).

def _new_size(size, name):
    if len(size) == 1 and not isinstance(size[0], numbers.Integral):
        size = tuple(size[0])
    return size


def _new_kwargs(self, dtype, device):
    return {"dtype": self.dtype if dtype is None else dtype,
            "device": self.device if device is None else device}


def _tensor_new_zeros(self, *size, dtype=None, device=None, requires_grad=False):
    """A tensor of zeros with this tensor's dtype and device (unless given).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2, dtype=cygrad.int32).new_zeros(3)
    tensor([0, 0, 0], dtype=cygrad.int32)
    """
    return zeros(_new_size(size, "new_zeros"), requires_grad=requires_grad,
                 **_new_kwargs(self, dtype, device))


def _tensor_new_ones(self, *size, dtype=None, device=None, requires_grad=False):
    """A tensor of ones with this tensor's dtype and device (unless given).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(1, dtype=cygrad.float64).new_ones((2,))
    tensor([1., 1.], dtype=cygrad.float64)
    """
    return ones(_new_size(size, "new_ones"), requires_grad=requires_grad,
                **_new_kwargs(self, dtype, device))


def _tensor_new_empty(self, *size, dtype=None, device=None, requires_grad=False):
    """An uninitialised tensor with this tensor's dtype and device (unless given).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(1).new_empty(2, 3).shape
    cygrad.Size([2, 3])
    """
    return empty(_new_size(size, "new_empty"), requires_grad=requires_grad,
                 **_new_kwargs(self, dtype, device))


def _tensor_new_full(self, size, fill_value, *, dtype=None, device=None, requires_grad=False):
    """A tensor filled with ``fill_value``, with this tensor's dtype and device.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(1, dtype=cygrad.int64).new_full((2,), 7)
    tensor([7, 7])
    """
    return full(size, fill_value, requires_grad=requires_grad, **_new_kwargs(self, dtype, device))


def _tensor_new_tensor(self, data, *, dtype=None, device=None, requires_grad=False):
    """``data`` copied into a new tensor with this tensor's dtype and device.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(1, dtype=cygrad.float64).new_tensor([1, 2])
    tensor([1., 2.], dtype=cygrad.float64)
    """
    return tensor(data, requires_grad=requires_grad, **_new_kwargs(self, dtype, device))


for _name, _fn in (("new_zeros", _tensor_new_zeros), ("new_ones", _tensor_new_ones),
                   ("new_empty", _tensor_new_empty), ("new_full", _tensor_new_full),
                   ("new_tensor", _tensor_new_tensor)):
    _fn.__name__ = _fn.__qualname__ = _name
    setattr(Tensor, _name, _fn)
