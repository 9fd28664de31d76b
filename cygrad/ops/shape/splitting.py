"""Splitting a tensor into views along a dim: ``unbind``, ``split``, ``chunk``,
``tensor_split`` and ``hsplit``/``vsplit``/``dsplit``.

Every piece is a ``narrow`` view of the input, so the gradient flows through the
core's view tracking.  ``split``/``chunk`` call the core's methods after reading
their arguments; ``tensor_split`` (NumPy's ``array_split``) and the h/v/d forms
are written here.
"""
from ..._core import tensor as _C
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from .._argcheck import int_arg, not_tensor, symint_list_arg
from ._common import _int_list_not_tensor, _is_single_int


def unbind(input, dim=0):
    """``input.unbind(dim)``: the slices along ``dim`` (views).

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.unbind(cygrad.zeros(3, 2)))
    3
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "unbind")
    return input.unbind(int_arg(dim, "unbind", "dim", 2))


def split(tensor, split_size_or_sections, dim=0):
    """``tensor.split(split_size_or_sections, dim)`` (views): pieces of
    ``split_size`` elements along ``dim`` (the last one shorter), or of the listed sizes.

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.split(cygrad.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    >>> [p.tolist() for p in cygrad.split(cygrad.arange(5), [1, 4])]
    [[0], [1, 2, 3, 4]]
    """
    sizes = split_size_or_sections
    if _is_single_int(sizes):       # bools too: PyTorch's parser then refuses them
        sizes = int_arg(sizes, "split", "split_size", 2)
        return tensor.split(sizes, int_arg(dim, "split", "dim", 3))
    sizes = symint_list_arg(_int_list_not_tensor(sizes, "split_with_sizes", "split_sizes", 2))
    return tensor.split(sizes, int_arg(dim, "split_with_sizes", "dim", 3))


def chunk(input, chunks, dim=0):
    """``input.chunk(chunks, dim)`` (views).

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.chunk(cygrad.arange(6), 3))
    3
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "chunk")
    return input.chunk(int_arg(chunks, "chunk", "chunks", 2), int_arg(dim, "chunk", "dim", 3))


_MAX_SECTIONS = (1 << 31) - 1


@tensor_method
def tensor_split(input, indices_or_sections, dim=0):
    """Split into views: ``n`` nearly equal parts (the first ``size % n`` one longer,
    as NumPy's ``array_split``), or at the given indices.

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.tensor_split(cygrad.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    >>> [p.tolist() for p in cygrad.tensor_split(cygrad.arange(5), [1, 4])]
    [[0], [1, 2, 3], [4]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "tensor_split")
    if isinstance(indices_or_sections, TensorBase):
        indices_or_sections = _sections_tensor(indices_or_sections)
    else:
        indices_or_sections = _sections_arg(indices_or_sections, "tensor_split", 2)
    dim = int_arg(dim, "tensor_split", "dim", 3)
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _C._wrap(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        if n > _MAX_SECTIONS:
            # one view object per section: PyTorch's vector of results fails to allocate
            raise RuntimeError(f"tensor_split: cannot return {n} sections (std::bad_alloc)")
        base, extra = divmod(size, n)
        bounds = [i * base + min(i, extra) for i in range(n + 1)]
    else:
        bounds = [0, *indices_or_sections, size]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        lo = min(max(lo if lo >= 0 else lo + size, 0), size)
        hi = min(max(hi if hi >= 0 else hi + size, 0), size)
        parts.append(input.narrow(d, lo, max(hi - lo, 0)))
    return tuple(parts)


def _sections_arg(value, opname, position):
    """An int (how many sections) or a tuple of ints (where to split): PyTorch's two
    overloads of the split functions."""
    if _is_single_int(value) or isinstance(value, (str, bytes, float)):
        return int_arg(value, opname, "sections", position)
    return _int_list_not_tensor(value, opname, "indices", position)


def _sections_tensor(value):
    """``tensor_split``'s third overload: a 0-d (sections) or 1-d (indices) int64 tensor."""
    if value.dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {_C._torch_type_name(value.dtype)}")
    if value.dim() > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                           f"zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{value.dim()} dims")
    return value.item() if value.dim() == 0 else tuple(value.tolist())


def _split_at(input, sections, dim, opname, min_dim):
    sections = _sections_arg(sections, opname, 2)
    if input.dim() < min_dim:
        raise RuntimeError(f"torch.{opname} requires a tensor with at least {min_dim} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(sections, int) and (sections == 0 or input.shape[dim] % sections):
        raise RuntimeError(f"torch.{opname} attempted to split along dimension {dim}, but the "
                           f"size of the dimension {input.shape[dim]} is not divisible by the "
                           f"split_size {sections}!")
    return tensor_split(input, sections, dim)


@tensor_method
def hsplit(input, indices_or_sections):
    """Split along dim 1 (dim 0 for 1-D tensors); an int must divide the size.

    Examples
    --------
    >>> import cygrad
    >>> [p.shape for p in cygrad.hsplit(cygrad.zeros(2, 4), 2)]
    [cygrad.Size([2, 2]), cygrad.Size([2, 2])]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "hsplit")
    return _split_at(input, indices_or_sections, 1 if input.dim() > 1 else 0, "hsplit", 1)


@tensor_method
def vsplit(input, indices_or_sections):
    """Split along dim 0 of a tensor with at least 2 dims.

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.vsplit(cygrad.zeros(4, 2), 2))
    2
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "vsplit")
    return _split_at(input, indices_or_sections, 0, "vsplit", 2)


@tensor_method
def dsplit(input, indices_or_sections):
    """Split along dim 2 of a tensor with at least 3 dims.

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.dsplit(cygrad.zeros(1, 2, 4), [1]))
    2
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "dsplit")
    return _split_at(input, indices_or_sections, 2, "dsplit", 3)
