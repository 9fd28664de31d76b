"""Function forms of the views the Cython core defines as Tensor methods
(``cygrad.transpose(t, 0, 1)`` for ``t.transpose(0, 1)``), plus ``ravel``, ``t``
and ``clone``.

The functions read their arguments as PyTorch's parser does (``TypeError`` for a
bool, a float or a bare int where a list is due, ``ValueError`` for an int beyond
64 bits) and then hand them to the method, which does the work and the semantic
checks.
"""
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from .._argcheck import int_arg, int_list_arg, not_tensor
from ._common import _is_single_int


def reshape(input, shape):
    """``input.reshape(shape)``: a view when the strides allow it, else a copy.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.reshape(cygrad.arange(6), (2, 3)).shape
    cygrad.Size([2, 3])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "reshape")
    return input.reshape(int_list_arg(shape, "reshape", "shape", 2, allow_int=False))


def _two_dims(input, a, b, opname, names):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    return int_arg(a, opname, names[0], 2), int_arg(b, opname, names[1], 3)


def transpose(input, dim0, dim1):
    """``input.transpose(dim0, dim1)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.transpose(cygrad.zeros(2, 3), 0, 1).shape
    cygrad.Size([3, 2])
    """
    dim0, dim1 = _two_dims(input, dim0, dim1, "transpose", ("dim0", "dim1"))
    return input.transpose(dim0, dim1)


def swapaxes(input, axis0, axis1):
    """``input.swapaxes(axis0, axis1)``: NumPy's name for :func:`transpose`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.swapaxes(cygrad.zeros(2, 3, 4), 0, 2).shape
    cygrad.Size([4, 3, 2])
    """
    dim0, dim1 = _two_dims(input, axis0, axis1, "swapaxes", ("axis0", "axis1"))
    return input.transpose(dim0, dim1)


def swapdims(input, dim0, dim1):
    """``input.swapdims(dim0, dim1)``: another name for :func:`transpose`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.swapdims(cygrad.zeros(2, 3), 1, 0).shape
    cygrad.Size([3, 2])
    """
    dim0, dim1 = _two_dims(input, dim0, dim1, "swapdims", ("dim0", "dim1"))
    return input.transpose(dim0, dim1)


def permute(input, dims):
    """``input.permute(dims)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.permute(cygrad.zeros(2, 3, 4), (2, 0, 1)).shape
    cygrad.Size([4, 2, 3])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "permute")
    return input.permute(int_list_arg(dims, "permute", "dims", 2, allow_int=False))


class _AllDims:
    """``squeeze``'s default: no ``dim`` given (PyTorch refuses an explicit None)."""

    def __repr__(self):
        return "<all dims>"


_ALL_DIMS = _AllDims()


def squeeze(input, dim=_ALL_DIMS):
    """``input.squeeze(dim)``: drop size-1 dims (all of them when ``dim`` is not
    given; ``dim`` may be an int or a tuple of ints) (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.squeeze(cygrad.zeros(1, 2, 1)).shape
    cygrad.Size([2])
    >>> cygrad.squeeze(cygrad.zeros(1, 2, 1), (0,)).shape
    cygrad.Size([2, 1])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "squeeze")
    if dim is _ALL_DIMS:
        return input.squeeze()
    if dim is None:
        raise TypeError("squeeze() received an invalid combination of arguments - got "
                        "(Tensor, NoneType), but expected (Tensor input, int dim) or "
                        "(Tensor input, tuple of ints dim)")
    dims = int_list_arg(dim, "squeeze", "dim", 2)
    return input.squeeze(dims[0] if _is_single_int(dim) else dims)


def unsqueeze(input, dim):
    """``input.unsqueeze(dim)``: insert a size-1 dim (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.unsqueeze(cygrad.zeros(2), 0).shape
    cygrad.Size([1, 2])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "unsqueeze")
    return input.unsqueeze(int_arg(dim, "unsqueeze", "dim", 2))


def flatten(input, start_dim=0, end_dim=-1):
    """``input.flatten(start_dim, end_dim)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.flatten(cygrad.zeros(2, 3, 4), 1).shape
    cygrad.Size([2, 12])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "flatten")
    return input.flatten(int_arg(start_dim, "flatten", "start_dim", 2),
                         int_arg(end_dim, "flatten", "end_dim", 3))


def unflatten(input, dim, sizes):
    """``input.unflatten(dim, sizes)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.unflatten(cygrad.zeros(6), 0, (2, 3)).shape
    cygrad.Size([2, 3])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "unflatten")
    dim = int_arg(dim, "unflatten", "dim", 2)
    return input.unflatten(dim, int_list_arg(sizes, "unflatten", "sizes", 3, allow_int=False))


@tensor_method
def ravel(input):
    """The elements as a 1-D tensor (a view when the tensor is contiguous).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ravel(cygrad.zeros(2, 3)).shape
    cygrad.Size([6])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "ravel")
    return input.reshape(-1)


def movedim(input, source, destination):
    """``input.movedim(source, destination)`` (a view); ``source`` and
    ``destination`` are both ints or both sequences of ints.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.movedim(cygrad.zeros(2, 3, 4), 0, -1).shape
    cygrad.Size([3, 4, 2])
    """
    return _movedim(input, source, destination, "movedim")


def moveaxis(input, source, destination):
    """NumPy's name for :func:`movedim`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.moveaxis(cygrad.zeros(2, 3, 4), (0, 1), (2, 0)).shape
    cygrad.Size([3, 4, 2])
    """
    return _movedim(input, source, destination, "moveaxis")


def _movedim(input, source, destination, opname):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    return input.movedim(*_movedim_args(source, destination, opname, 2))


def _movedim_args(source, destination, opname, position):
    """``source`` and ``destination`` read as PyTorch's two overloads read them (both
    ints or both int lists), as tuples; ``position`` is the place of ``source``.
    The core's ``Tensor.movedim`` calls this when it is not given two ints."""
    single = _is_single_int(source), _is_single_int(destination)
    if single == (True, True):
        return ((int_arg(source, opname, "source", position),),
                (int_arg(destination, opname, "destination", position + 1),))
    if single == (False, False):
        try:
            return (int_list_arg(source, opname, "source", position, allow_int=False),
                    int_list_arg(destination, opname, "destination", position + 1,
                                 allow_int=False))
        except TypeError:
            pass
    raise TypeError(f"{opname}() received an invalid combination of arguments - got (Tensor, "
                    f"{type(source).__name__}, {type(destination).__name__}), but expected "
                    f"(Tensor input, int source, int destination) or (Tensor input, tuple of "
                    f"ints source, tuple of ints destination)")


def narrow(input, dim, start, length):
    """``input.narrow(dim, start, length)`` (a view); ``start`` may be a 0-d tensor.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.narrow(cygrad.arange(5), 0, 1, 2).tolist()
    [1, 2]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "narrow")
    return input.narrow(int_arg(dim, "narrow", "dim", 2), int_arg(start, "narrow", "start", 3),
                        int_arg(length, "narrow", "length", 4))


def select(input, dim, index):
    """``input.select(dim, index)`` (a view without ``dim``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.select(cygrad.zeros(2, 3), 1, 0).shape
    cygrad.Size([2])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "select")
    return input.select(int_arg(dim, "select", "dim", 2), int_arg(index, "select", "index", 3))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """``input.diagonal(offset, dim1, dim2)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diagonal(cygrad.eye(3)).tolist()
    [1.0, 1.0, 1.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "diagonal")
    return input.diagonal(int_arg(offset, "diagonal", "offset", 2),
                          int_arg(dim1, "diagonal", "dim1", 3),
                          int_arg(dim2, "diagonal", "dim2", 4))


def as_strided(input, size, stride, storage_offset=None):
    """``input.as_strided(size, stride, storage_offset)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.as_strided(cygrad.arange(4), (2, 2), (1, 1)).tolist()
    [[0, 1], [1, 2]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "as_strided")
    size = int_list_arg(size, "as_strided", "size", 2, allow_int=False)
    stride = int_list_arg(stride, "as_strided", "stride", 3, allow_int=False)
    if storage_offset is not None:
        storage_offset = int_arg(storage_offset, "as_strided", "storage_offset", 4)
    # PyTorch has no negative strides.  Only the user-facing function refuses them: the
    # method stays open because cygrad's own reversed views (t[::-1]) are rebuilt through
    # it by the autograd layer.
    if len(size) == len(stride) and any(s < 0 for s in stride):
        raise RuntimeError(f"as_strided: Negative strides are not supported at the moment, "
                           f"got strides: {list(stride)}")
    return input.as_strided(size, stride, storage_offset)


def t(input):
    """``input.t()``: transpose of a tensor with at most 2 dims.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.t(cygrad.zeros(2, 3)).shape
    cygrad.Size([3, 2])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "t")
    return input.t()


def clone(input, *, memory_format=None):
    """``input.clone()``: a copy with its own memory.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2)
    >>> cygrad.clone(x).data_ptr() != x.data_ptr()
    True
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "clone")
    return input.clone()
