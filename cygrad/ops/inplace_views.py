"""In-place view changes: ``t_``, ``transpose_``, ``swapaxes_``, ``swapdims_``,
``unsqueeze_``, ``squeeze_`` and ``as_strided_`` change a tensor's shape and strides
in place (its memory and values stay), as PyTorch's do.

Autograd follows PyTorch: on a leaf that requires grad they raise (in grad mode);
on a tensor with history the tensor takes the node of the view op (``x.t_()``
behaves like ``x = x.t()`` for gradients, forward-mode tangents included), and the
version counter is bumped, so a backward that saved the tensor before the change
refuses to run.
"""
from .._core import tensor as _C
from .._core.tensor import TensorBase, is_grad_enabled
from .._tensor import tensor_method
from ._argcheck import not_tensor

__all__ = ["as_strided_"]


def _restride(self, view, opname):
    """Give ``self`` the geometry and autograd identity of ``view``, a view of it."""
    _C._set_data(self, view)
    if view._grad_fn is not None:
        self._grad_fn = view._grad_fn
        self._output_nr = view._output_nr
    if view._fw_grad is not None or self._fw_grad is not None:
        self._fw_grad = view._fw_grad
    self._bump_version()
    if self._base is not None:
        self._view_version = self._version
    return self


def _start(self, opname):
    if not isinstance(self, TensorBase):
        raise not_tensor(self, opname)
    if self.requires_grad and self.grad_fn is None and is_grad_enabled():
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")
    return self


@tensor_method
def t_(self):
    """``t()`` in place: a tensor of at most 2 dimensions becomes its transpose.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 3)
    >>> x.t_() is x, x.shape
    (True, cygrad.Size([3, 2]))
    """
    return _restride(self, _start(self, "t_").t(), "t_")


@tensor_method
def transpose_(self, dim0, dim1):
    """``transpose(dim0, dim1)`` in place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 3, 4).transpose_(0, 2).shape
    cygrad.Size([4, 3, 2])
    """
    return _restride(self, _start(self, "transpose_").transpose(dim0, dim1), "transpose_")


@tensor_method
def swapaxes_(self, axis0, axis1):
    """``swapaxes(axis0, axis1)`` in place (NumPy's name for ``transpose_``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 3).swapaxes_(0, 1).shape
    cygrad.Size([3, 2])
    """
    return _restride(self, _start(self, "swapaxes_").transpose(axis0, axis1), "swapaxes_")


@tensor_method
def swapdims_(self, dim0, dim1):
    """``swapdims(dim0, dim1)`` in place (another name for ``transpose_``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 3).swapdims_(0, 1).shape
    cygrad.Size([3, 2])
    """
    return _restride(self, _start(self, "swapdims_").transpose(dim0, dim1), "swapdims_")


@tensor_method
def unsqueeze_(self, dim):
    """``unsqueeze(dim)`` in place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).unsqueeze_(0).shape
    cygrad.Size([1, 2])
    """
    return _restride(self, _start(self, "unsqueeze_").unsqueeze(dim), "unsqueeze_")


_ALL_DIMS = object()      # squeeze_() with no dim; an explicit None is a TypeError


@tensor_method
def squeeze_(self, dim=_ALL_DIMS):
    """``squeeze(dim)`` in place (every size-1 dimension when no ``dim`` is given).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(1, 2, 1).squeeze_().shape
    cygrad.Size([2])
    """
    if dim is not _ALL_DIMS and (isinstance(dim, bool) or not isinstance(dim, (int, tuple, list))):
        raise TypeError(f"squeeze_() received an invalid combination of arguments - got "
                        f"({type(dim).__name__}), but expected one of: (), (int dim), "
                        f"(tuple of ints dim)")
    _start(self, "squeeze_")
    return _restride(self, self.squeeze() if dim is _ALL_DIMS else self.squeeze(dim),
                     "squeeze_")


@tensor_method
def as_strided_(self, size, stride, storage_offset=None):
    """``as_strided(size, stride, storage_offset)`` in place: the tensor now shows its
    storage with the given geometry.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.arange(4)
    >>> cygrad.as_strided_(x, (2, 2), (1, 1)).tolist()
    [[0, 1], [1, 2]]
    """
    _start(self, "as_strided_")
    return _restride(self, self.as_strided(size, stride, storage_offset), "as_strided_")
