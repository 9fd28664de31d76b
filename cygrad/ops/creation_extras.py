"""The factories and small whole-tensor ops no other family owns: ``empty_strided``,
``empty_permuted``, ``frombuffer``, the deprecated end-inclusive ``range``,
``Tensor.new``/``new_empty_strided``, and the function forms ``fill``, ``fill_``,
``zero_``, ``rsub``, ``detach``, ``detach_``.

Strided factories allocate one flat buffer and then take the tensor's geometry over
it (``_C._set_data``), so the result owns its memory (``_base`` is None) as in
PyTorch. ``fill`` and ``rsub`` are built from differentiable ops (``clone`` +
``fill_``, ``sub``), so their gradients come from those ops' Functions.
"""
import builtins
import math
import numbers
import warnings

from .._core import dtype as _dt
from .._core import tensor as _C
from .._core.dispatch import kernel
from .._core.tensor import TensorBase, empty
from .._tensor import Tensor, tensor_method
from ._argcheck import int_arg, int_list_arg, not_tensor
from .elementwise import sub

__all__ = ["empty_strided", "empty_permuted", "frombuffer", "range", "fill", "fill_", "zero_",
           "rsub", "detach", "detach_", "tril_indices", "triu_indices", "to_dlpack"]


def _dtype(dtype):
    return _dt.get_default_dtype() if dtype is None else _dt.as_dtype(dtype)


def _strided(size, stride, dtype, device, requires_grad, opname):
    size = int_list_arg(size, opname, "size", 1)
    stride = int_list_arg(stride, opname, "stride", 2)
    if len(size) != len(stride):
        raise RuntimeError(f"dimensionality of sizes ({len(size)}) must match dimensionality of "
                           f"strides ({len(stride)})")
    for n in size:
        if n < 0:
            raise RuntimeError(f"Trying to create tensor with negative dimension {n}: {list(size)}")
    for s in stride:
        if s < 0:
            raise RuntimeError(f"{opname}: negative strides are not supported, got {list(stride)}")
    # the storage must reach the last element: 1 + sum((n - 1) * s), none if empty
    extent = 0 if 0 in size else 1 + sum((n - 1) * s for n, s in zip(size, stride))
    out = empty(extent, dtype=_dtype(dtype), device=device)
    _C._set_data(out, out.as_strided(size, stride, 0))
    if requires_grad:
        out.requires_grad_(True)
    return out


def empty_strided(size, stride, *, dtype=None, layout=None, device=None, requires_grad=False,
                  pin_memory=False):
    """An uninitialised tensor with the given shape and strides (in elements), as
    ``torch.empty_strided``; its storage holds just the elements the strides reach.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty_strided((2, 3), (1, 2)).stride()
    (1, 2)
    """
    return _strided(size, stride, dtype, device, requires_grad, "empty_strided")


@tensor_method
def new_empty_strided(self, size, stride, *, dtype=None, device=None, requires_grad=False):
    """``empty_strided`` with this tensor's dtype and device unless given.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(1, dtype=cygrad.float64).new_empty_strided((2, 2), (1, 2))
    >>> x.dtype, x.stride()
    (cygrad.float64, (1, 2))
    """
    return _strided(size, stride, self.dtype if dtype is None else dtype,
                    self.device if device is None else device, requires_grad, "new_empty_strided")


def empty_permuted(size, physical_layout, *, dtype=None, layout=None, device=None,
                   requires_grad=False, pin_memory=False):
    """An uninitialised tensor of shape ``size`` whose dimensions lie in memory in the
    order ``physical_layout`` (outermost first), as ``torch.empty_permuted``:
    ``physical_layout=(0, 2, 3, 1)`` on an NCHW shape gives channels-last strides.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.empty_permuted((2, 3, 4), (2, 0, 1)).stride()
    (3, 1, 6)
    """
    size = int_list_arg(size, "empty_permuted", "size", 1)
    order = int_list_arg(physical_layout, "empty_permuted", "physical_layout", 2)
    if len(order) != len(size):
        raise RuntimeError(f"Number of dimensions in size does not match the length of the "
                           f"physical_layout; i.e. len(size) = {len(size)} is not equal to "
                           f"len(physical_layout) = {len(order)}")
    if sorted(order) != list(builtins.range(len(size))):
        raise RuntimeError("Duplicate dim not allowed" if len(set(order)) < len(order)
                           else f"Dimension out of range (got {order})")
    stride = [0] * len(size)
    step = 1
    for d in reversed(order):
        stride[d] = step
        step *= max(size[d], 1)
    return _strided(size, stride, dtype, device, requires_grad, "empty_permuted")


def frombuffer(buffer, *, dtype, count=-1, offset=0, requires_grad=False):
    """A 1-D tensor sharing the memory of a Python buffer (``bytearray``,
    ``array.array``, ``memoryview`` ...), as ``torch.frombuffer``: ``count`` elements
    (-1: all) of ``dtype`` starting ``offset`` bytes in. Writes through the tensor
    change the buffer; a read-only buffer warns, as in PyTorch.

    Examples
    --------
    >>> import array, cygrad
    >>> buf = array.array("f", [1.0, 2.0, 3.0])
    >>> t = cygrad.frombuffer(buf, dtype=cygrad.float32, offset=4)
    >>> t[0] = 9.0
    >>> t.tolist(), buf.tolist()
    ([9.0, 3.0], [1.0, 9.0, 3.0])
    """
    dt = _dt.as_dtype(dtype)
    count = int_arg(count, "frombuffer", "count")
    offset = int_arg(offset, "frombuffer", "offset")
    view = memoryview(buffer)
    nbytes = view.nbytes
    if nbytes == 0 or count == 0:
        raise ValueError(f"both buffer length ({nbytes}) and count ({count}) must not be 0")
    if offset < 0 or offset >= nbytes:
        raise ValueError(f"offset ({offset} bytes) must be non-negative and no greater than "
                         f"buffer length ({nbytes} bytes) minus 1")
    if count < 0:
        if (nbytes - offset) % dt.itemsize:
            raise ValueError(f"buffer length ({nbytes - offset} bytes) after offset ({offset} bytes) "
                             f"must be a multiple of element size ({dt.itemsize})")
    elif offset + count * dt.itemsize > nbytes:
        raise ValueError(f"requested buffer length ({count} * {dt.itemsize} bytes) after offset "
                         f"({offset} bytes) must not be greater than actual buffer length "
                         f"({nbytes} bytes)")
    if view.readonly:
        warnings.warn("The given buffer is not writable, and PyTorch does not support non-writable "
                      "tensors. This means you can write to the underlying (supposedly non-writable) "
                      "buffer using the tensor. You may want to copy the buffer to protect its data "
                      "or make it writable before converting it to a tensor.", UserWarning,
                      stacklevel=2)
    out = kernel("tensor_from_buffer", "cpu")(buffer, dt, count, offset)
    if requires_grad:
        out.requires_grad_(True)
    return out


def range(start, end, step=1, *, out=None, dtype=None, layout=None, device=None,
          requires_grad=False):
    """Deprecated (with PyTorch's warning): the values ``start, start + step, ...``
    up to and **including** ``end``, in the default dtype unless ``dtype`` is given.
    Use :func:`arange`, whose end is exclusive.

    Examples
    --------
    >>> import warnings, cygrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     cygrad.range(1, 2, 0.5).tolist()
    [1.0, 1.5, 2.0]
    """
    warnings.warn("torch.range is deprecated and will be removed in a future release because "
                  "its behavior is inconsistent with Python's range builtin. Instead, use "
                  "torch.arange, which produces values in [start, end).", UserWarning,
                  stacklevel=2)
    start, end, step = (v.item() if isinstance(v, TensorBase) else v for v in (start, end, step))
    for name, value in (("start", start), ("end", end), ("step", step)):
        if isinstance(value, bool) or not isinstance(value, numbers.Real):
            raise TypeError(f"range(): argument '{name}' must be Number, not {type(value).__name__}")
    if step == 0:
        raise RuntimeError("step must be nonzero")
    if not all(math.isfinite(v) for v in (start, end)):
        raise RuntimeError(f"unsupported range: {start} -> {end}")
    if (end - start) * step < 0:
        raise RuntimeError("upper bound and lower bound inconsistent with step sign")
    n = int(math.floor((end - start) / step)) + 1
    from .creation import arange
    values = arange(n, dtype=_dt.float64) * step + start
    result = values.to(_dtype(dtype))
    if out is not None:
        if not isinstance(out, TensorBase):
            raise not_tensor(out, "range", "out")
        out.resize_(n).copy_(result)
        result = out
    if requires_grad:
        result.requires_grad_(True)
    return result


def fill(input, value):
    """A new tensor shaped like ``input`` with every element ``value`` (the
    out-of-place ``fill_``); a 0-d tensor ``value`` receives the gradient.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fill(cygrad.zeros(2, dtype=cygrad.int32), 7)
    tensor([7, 7], dtype=cygrad.int32)
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "fill")
    return input.clone().fill_(value)


def fill_(input, value):
    """``input.fill_(value)``: set every element in place, return ``input``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fill_(cygrad.zeros(2), 1.5).tolist()
    [1.5, 1.5]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "fill_")
    return input.fill_(value)


def zero_(input):
    """``input.zero_()``: set every element to zero in place, return ``input``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zero_(cygrad.ones(2)).tolist()
    [0.0, 0.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "zero_")
    return input.zero_()


def rsub(input, other, *, alpha=1):
    """``other - alpha * input`` (``torch.rsub``: :func:`sub` with its operands swapped).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.rsub(cygrad.tensor([1.0, 2.0]), 3, alpha=2).tolist()
    [1.0, -1.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "rsub")
    return sub(other, input, alpha=alpha)


def detach(input):
    """``input.detach()``: the same memory, cut off from the autograd graph.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.detach(cygrad.ones(2, requires_grad=True)).requires_grad
    False
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "detach")
    return input.detach()


def detach_(input):
    """``input.detach_()``: detach ``input`` from the graph in place (it becomes a leaf).

    Examples
    --------
    >>> import cygrad
    >>> y = cygrad.ones(2, requires_grad=True) * 2
    >>> cygrad.detach_(y).is_leaf
    True
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "detach_")
    return input.detach_()


@tensor_method
def new(self, *args, **kwargs):
    """Legacy constructor with this tensor's dtype (``torch.Tensor.new``):
    ``t.new(2, 3)`` is uninitialised, ``t.new([1, 2])`` copies data, ``t.new()`` is
    empty, ``t.new(other)`` returns ``other`` if its dtype matches (else TypeError).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(1, dtype=cygrad.float64)
    >>> x.new([1, 2]), x.new(2, 3).shape
    (tensor([1., 2.], dtype=cygrad.float64), cygrad.Size([2, 3]))
    """
    from .._legacy import legacy_new
    device = kwargs.pop("device", None)
    if device is not None and str(device) != str(self.device):
        raise RuntimeError(f"new(): expected device {self.device} but got {device}")
    return legacy_new(self.dtype, "new", *args, **kwargs)


def _triangle_indices(row, col, offset, dtype, opname, lower):
    row = int_arg(row, opname, "row", 1)
    col = int_arg(col, opname, "col", 2)
    offset = int_arg(offset, opname, "offset", 3)
    dt = _dt.int64 if dtype is None else _dt.as_dtype(dtype)
    if dt not in (_dt.int32, _dt.int64):
        raise NotImplementedError(f'"{opname}" not implemented for \'{dt.name.capitalize()}\'')
    if row < 0:
        raise RuntimeError(f"row must be non-negative, got{row}")
    if col < 0:
        raise RuntimeError(f"col must be non-negative, got{col}")
    mask = empty(row, col, dtype=_dt.bool_).fill_(True)
    mask = mask.tril(offset) if lower else mask.triu(offset)
    return mask.nonzero().t().to(dt).contiguous()


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the lower triangle of a ``row x col`` matrix, as
    a ``2 x N`` tensor in row-major order (``torch.tril_indices``); ``offset`` moves
    the diagonal as in :func:`tril`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    return _triangle_indices(row, col, offset, dtype, "tril_indices", True)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The (row, column) indices of the upper triangle of a ``row x col`` matrix
    (``torch.triu_indices``); see :func:`tril_indices`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.triu_indices(2, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """
    return _triangle_indices(row, col, offset, dtype, "triu_indices", False)


def to_dlpack(tensor):
    """A DLPack capsule sharing ``tensor``'s memory (``torch.to_dlpack``, the legacy
    form of ``tensor.__dlpack__()``); :func:`from_dlpack` reads it back.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.arange(3)
    >>> cygrad.from_dlpack(cygrad.to_dlpack(x)).data_ptr() == x.data_ptr()
    True
    """
    if not isinstance(tensor, TensorBase):
        raise not_tensor(tensor, "to_dlpack", "tensor")
    return tensor.__dlpack__()
