"""The ``*_copy`` functions (``view_copy``, ``permute_copy``, ``narrow_copy`` ...):
each is a view op followed by a copy, so the result is contiguous and owns its
memory, as PyTorch's functionalization variants are; also ``Tensor.unfold`` (a
view), ``split_with_sizes`` and the ``unsafe_*`` splits, which in cygrad are the
ordinary ``split``/``chunk`` (PyTorch's "unsafe" forms only skip view tracking).

All are compositions of differentiable view ops and ``clone``, so their gradients,
forward-mode tangents and double backward come from those ops' Functions.
"""
from .._core.tensor import TensorBase
from .._core import dtype as _dt
from .._tensor import tensor_method
from ._argcheck import int_arg, int_list_arg, not_tensor
from .shape import splitting as _splitting

__all__ = ["view_copy", "permute_copy", "expand_copy", "t_copy", "transpose_copy",
           "unsqueeze_copy", "squeeze_copy", "select_copy", "slice_copy", "split_copy",
           "split_with_sizes_copy", "unbind_copy", "diagonal_copy", "detach_copy",
           "alias_copy", "as_strided_copy", "unfold_copy", "view_as_real_copy",
           "view_as_complex_copy", "narrow_copy", "split_with_sizes", "unsafe_chunk",
           "unsafe_split", "unsafe_split_with_sizes"]


def _check(input, opname):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    return input


def _split_size(value, opname):
    """PyTorch's ``split_copy`` and ``unsafe_split`` take one int (a list of sizes is
    ``split``'s overload only): anything else is a TypeError of its argument parser."""
    return value if isinstance(value, TensorBase) else int_arg(value, opname, "split_size", 2)


@tensor_method
def unfold(self, dimension, size, step):
    """A view of every slice of length ``size`` along ``dimension``, ``step`` apart,
    as a new last dimension (``torch.Tensor.unfold``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.arange(5).unfold(0, 2, 2).tolist()
    [[0, 1], [2, 3]]
    """
    dimension = int_arg(dimension, "unfold", "dimension", 1)
    size = int_arg(size, "unfold", "size", 2)
    step = int_arg(step, "unfold", "step", 3)
    shape, strides = list(self.shape) or [1], list(self.stride()) or [1]
    nd = len(shape)
    if not -nd <= dimension < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dimension})")
    dimension %= nd
    if size > shape[dimension]:
        raise RuntimeError(f"maximum size for tensor at dimension {dimension} is "
                           f"{shape[dimension]} but size is {size}")
    if size < 0:
        raise RuntimeError(f"size is {size} but must be >= 0")
    if step <= 0:
        raise RuntimeError(f"step is {step} but must be > 0")
    new_shape = shape[:dimension] + [(shape[dimension] - size) // step + 1] + shape[dimension + 1:]
    new_strides = strides[:dimension] + [strides[dimension] * step] + strides[dimension + 1:]
    if self.dim() == 0:
        new_shape, new_strides = [], []
    # (_as_strided_any: also the negative strides of a flipped input)
    return self._as_strided_any(new_shape + [size], new_strides + [strides[dimension]],
                                self.storage_offset())


def view_copy(input, size):
    """A copy of ``input`` with shape ``size`` (``size`` may be a dtype, as ``view(dtype)``).
    The copy needs no view of the memory, so, as in PyTorch, an input whose strides
    no view of that shape can describe (an expanded one) is copied too.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.view_copy(cygrad.arange(4), (2, 2)).shape
    cygrad.Size([2, 2])
    """
    _check(input, "view_copy")
    if isinstance(size, _dt.dtype):
        return input.view(size).clone()
    return input.reshape(int_list_arg(size, "view_copy", "size", 2)).clone()


def permute_copy(input, dims):
    """``input.permute(dims)``, copied into contiguous memory.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.permute_copy(cygrad.zeros(2, 3), (1, 0)).stride()
    (2, 1)
    """
    return _check(input, "permute_copy").permute(int_list_arg(dims, "permute_copy", "dims", 2)).clone()


def expand_copy(input, size, *, implicit=False):
    """``input.expand(size)`` materialised: every repeated element gets its own memory.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.expand_copy(cygrad.tensor([1, 2]), (2, 2)).stride()
    (2, 1)
    """
    return _check(input, "expand_copy").expand(int_list_arg(size, "expand_copy", "size", 2)).clone()


def t_copy(input):
    """``input.t()``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.t_copy(cygrad.zeros(2, 3)).shape
    cygrad.Size([3, 2])
    """
    return _check(input, "t_copy").t().clone()


def transpose_copy(input, dim0, dim1):
    """``input.transpose(dim0, dim1)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.transpose_copy(cygrad.zeros(2, 3, 4), 0, 2).shape
    cygrad.Size([4, 3, 2])
    """
    return _check(input, "transpose_copy").transpose(dim0, dim1).clone()


def unsqueeze_copy(input, dim):
    """``input.unsqueeze(dim)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.unsqueeze_copy(cygrad.zeros(2), 0).shape
    cygrad.Size([1, 2])
    """
    return _check(input, "unsqueeze_copy").unsqueeze(dim).clone()


def squeeze_copy(input, dim=None):
    """``input.squeeze(dim)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.squeeze_copy(cygrad.zeros(1, 2, 1)).shape
    cygrad.Size([2])
    """
    _check(input, "squeeze_copy")
    return (input.squeeze() if dim is None else input.squeeze(dim)).clone()


def select_copy(input, dim, index):
    """``input.select(dim, index)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.select_copy(cygrad.arange(6).reshape(2, 3), 1, 2).tolist()
    [2, 5]
    """
    return _check(input, "select_copy").select(dim, index).clone()


def slice_copy(input, dim=0, start=None, end=None, step=1):
    """The slice ``start:end:step`` of dimension ``dim`` (negative bounds count from
    the end and are clamped, as in Python), copied; ``step`` must be positive.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.slice_copy(cygrad.arange(6), 0, 1, None, 2).tolist()
    [1, 3, 5]
    """
    _check(input, "slice_copy")
    dim = int_arg(dim, "slice_copy", "dim", 2)
    step = int_arg(step, "slice_copy", "step", 5)
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    nd = max(input.dim(), 1)
    if not -nd <= dim < nd:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {dim})")
    if input.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    start = None if start is None else int_arg(start, "slice_copy", "start", 3)
    end = None if end is None else int_arg(end, "slice_copy", "end", 4)
    index = (slice(None),) * (dim % nd) + (slice(start, end, step),)
    return input[index].clone()


def split_copy(input, split_size, dim=0):
    """``split(input, split_size, dim)`` with each piece copied.

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.split_copy(cygrad.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    """
    return tuple(p.clone() for p in _splitting.split(_check(input, "split_copy"),
                                                      _split_size(split_size, "split_copy"), dim))


def split_with_sizes(input, split_sizes, dim=0):
    """Views of ``input`` along ``dim`` with the given lengths, which must add up to the
    dimension's size (``torch.split_with_sizes``).

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.split_with_sizes(cygrad.arange(5), [2, 3])]
    [[0, 1], [2, 3, 4]]
    """
    _check(input, "split_with_sizes")
    sizes = int_list_arg(split_sizes, "split_with_sizes", "split_sizes", 2, allow_int=False)
    return _splitting.split(input, list(sizes), dim)


def split_with_sizes_copy(input, split_sizes, dim=0):
    """:func:`split_with_sizes` with each piece copied.

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.split_with_sizes_copy(cygrad.arange(3), [1, 2])]
    [[0], [1, 2]]
    """
    return tuple(p.clone() for p in split_with_sizes(input, split_sizes, dim))


def unsafe_split(input, split_size, dim=0):
    """:func:`split` (PyTorch's unsafe form only skips view tracking, which cygrad's
    views do not need to skip).

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.unsafe_split(cygrad.arange(5), 2))
    3
    """
    return _splitting.split(_check(input, "unsafe_split"), _split_size(split_size, "unsafe_split"),
                           dim)


def unsafe_split_with_sizes(input, split_sizes, dim=0):
    """:func:`split_with_sizes` (see :func:`unsafe_split`).

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.unsafe_split_with_sizes(cygrad.arange(3), [2, 1])]
    [[0, 1], [2]]
    """
    return split_with_sizes(input, split_sizes, dim)


def unsafe_chunk(input, chunks, dim=0):
    """:func:`chunk` (see :func:`unsafe_split`).

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.unsafe_chunk(cygrad.arange(4), 2)]
    [[0, 1], [2, 3]]
    """
    return _splitting.chunk(_check(input, "unsafe_chunk"), chunks, dim)


def unbind_copy(input, dim=0):
    """``unbind(input, dim)`` with each slice copied.

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.unbind_copy(cygrad.arange(4).reshape(2, 2), 1)]
    [[0, 2], [1, 3]]
    """
    return tuple(p.clone() for p in _splitting.unbind(_check(input, "unbind_copy"), dim))


def diagonal_copy(input, offset=0, dim1=0, dim2=1):
    """``input.diagonal(offset, dim1, dim2)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diagonal_copy(cygrad.arange(4).reshape(2, 2)).tolist()
    [0, 3]
    """
    return _check(input, "diagonal_copy").diagonal(offset, dim1, dim2).clone()


def detach_copy(input):
    """``input.detach()`` in memory of its own.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> y = cygrad.detach_copy(x)
    >>> y.requires_grad, y.data_ptr() != x.data_ptr()
    (False, True)
    """
    return _check(input, "detach_copy").detach().clone()


def alias_copy(input):
    """A copy of ``input`` (the ``_copy`` form of an alias is a plain copy), with
    gradient.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.alias_copy(cygrad.tensor([1, 2])).tolist()
    [1, 2]
    """
    return _check(input, "alias_copy").clone()


def as_strided_copy(input, size, stride, storage_offset=None):
    """``input.as_strided(size, stride, storage_offset)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.as_strided_copy(cygrad.arange(4), (2, 2), (1, 1)).tolist()
    [[0, 1], [1, 2]]
    """
    return _check(input, "as_strided_copy").as_strided(size, stride, storage_offset).clone()


def unfold_copy(input, dimension, size, step):
    """``input.unfold(dimension, size, step)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.unfold_copy(cygrad.arange(4), 0, 2, 1).tolist()
    [[0, 1], [1, 2], [2, 3]]
    """
    return unfold(_check(input, "unfold_copy"), dimension, size, step).clone()


def view_as_real_copy(input):
    """``view_as_real(input)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.view_as_real_copy(cygrad.tensor([1 + 2j])).tolist()
    [[1.0, 2.0]]
    """
    from .complex import view_as_real
    return view_as_real(_check(input, "view_as_real_copy")).clone()


def view_as_complex_copy(input):
    """``view_as_complex(input)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.view_as_complex_copy(cygrad.tensor([[1.0, 2.0]])).tolist()
    [(1+2j)]
    """
    from .complex import view_as_complex
    return view_as_complex(_check(input, "view_as_complex_copy")).clone()


@tensor_method
def narrow_copy(input, dim, start, length):
    """``input.narrow(dim, start, length)``, copied.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.arange(5).narrow_copy(0, 1, 2).tolist()
    [1, 2]
    """
    return _check(input, "narrow_copy").narrow(dim, start, length).clone()


for _name in ("split_with_sizes", "unsafe_split", "unsafe_split_with_sizes", "unsafe_chunk"):
    tensor_method(globals()[_name])
