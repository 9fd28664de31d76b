"""Small Tensor methods PyTorch has and no op family owns: ``type_as``,
``resize_as_`` (and the deprecated ``resize``/``resize_as``), ``const_data_ptr``,
and the Python-callable element loops ``apply_``, ``map_``, ``map2_`` (CPU only and
slow in PyTorch too: one Python call per element).
"""
import warnings

from .._core.tensor import TensorBase
from .._tensor import Tensor, tensor_method
from ._argcheck import not_tensor

__all__ = ["resize_as_"]


def _other(other, opname, argname="other"):
    if not isinstance(other, TensorBase):
        raise not_tensor(other, opname, argname, 1)
    return other


@tensor_method
def type_as(self, other):
    """This tensor converted to ``other``'s dtype and device (``self`` if they match).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2).type_as(cygrad.zeros(1, dtype=cygrad.int64))
    tensor([1, 1])
    """
    other = _other(other, "type_as")
    return self.to(device=other.device, dtype=other.dtype)


def resize_as_(input, the_template, *, memory_format=None):
    """``input.resize_(the_template.shape)``: reshape ``input`` in place to the
    template's shape (values unspecified where the size grows), return ``input``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(1).resize_as_(cygrad.ones(2, 3)).shape
    cygrad.Size([2, 3])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "resize_as_")
    return input.resize_(*_other(the_template, "resize_as_", "the_template").shape)


tensor_method(resize_as_)


@tensor_method
def resize(self, *sizes):
    """Deprecated (PyTorch's warning): this tensor's values with a new shape of the
    same number of elements, as ``contiguous().view(sizes)``, with gradient.

    Examples
    --------
    >>> import warnings, cygrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     cygrad.zeros(2, 3).resize(6).shape
    cygrad.Size([6])
    """
    warnings.warn("non-inplace resize is deprecated", UserWarning, stacklevel=2)
    return _resize_copy(self, sizes[0] if len(sizes) == 1 and not isinstance(sizes[0], int)
                        else sizes)


@tensor_method
def resize_as(self, tensor):
    """Deprecated (PyTorch's warning): ``resize(tensor.shape)``.

    Examples
    --------
    >>> import warnings, cygrad
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     cygrad.zeros(6).resize_as(cygrad.ones(2, 3)).shape
    cygrad.Size([2, 3])
    """
    warnings.warn("non-inplace resize_as is deprecated", UserWarning, stacklevel=2)
    return _resize_copy(self, _other(tensor, "resize_as", "tensor").shape)


def _resize_copy(self, sizes):
    n = 1
    for s in sizes:
        n *= s
    if n != self.numel():
        raise RuntimeError(f"requested resize to {'x'.join(map(str, sizes))} ({n} elements in "
                           f"total), but the given tensor has a size of "
                           f"{'x'.join(map(str, self.shape))} ({self.numel()} elements). "
                           "autograd's resize can only change the shape of a given tensor, while "
                           "preserving the number of elements. ")
    return self.contiguous().view(tuple(sizes))


@tensor_method
def const_data_ptr(self):
    """The address of this tensor's first element, as ``data_ptr()`` (PyTorch's
    read-only-access variant; cygrad has no copy-on-write storage to distinguish).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2)
    >>> x.const_data_ptr() == x.data_ptr()
    True
    """
    return self.data_ptr()


def _map(self, operands, fn, opname):
    from .creation import tensor
    for o in operands:
        if o.dtype is not self.dtype:      # (PyTorch's check: no conversion here)
            raise TypeError(f"{opname}: expected {self.type()} for 'other' (got {o.type()})")
    flat = [o.broadcast_to(self.shape).reshape(-1).tolist() for o in operands]
    values = [fn(*vals) for vals in zip(self.reshape(-1).tolist(), *flat)]
    if self.numel():
        self.copy_(tensor(values, dtype=self.dtype).reshape(self.shape))
    return self


@tensor_method
def apply_(self, callable):
    """Replace every element ``v`` by ``callable(v)`` (a Python call per element), in
    place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.0, 2.0]).apply_(lambda v: v * 10).tolist()
    [10.0, 20.0]
    """
    return _map(self, (), callable, "apply_")


@tensor_method
def map_(self, tensor, callable):
    """``self[i] = callable(self[i], tensor[i])`` for every element, ``tensor``
    broadcast to this tensor's shape, in place.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1, 2]).map_(cygrad.tensor([10]), lambda a, b: a + b).tolist()
    [11, 12]
    """
    return _map(self, (_other(tensor, "map_", "tensor"),), callable, "map_")


@tensor_method
def map2_(self, x, y, callable):
    """``self[i] = callable(self[i], x[i], y[i])`` for every element, ``x`` and ``y``
    broadcast to this tensor's shape, in place.

    Examples
    --------
    >>> import cygrad
    >>> t = cygrad.tensor([1, 2])
    >>> t.map2_(t, cygrad.tensor([5]), lambda a, b, c: a + b + c).tolist()
    [7, 9]
    """
    return _map(self, (_other(x, "map2_", "x"), _other(y, "map2_", "y")), callable, "map2_")


@tensor_method
def dim_order(self, *, ambiguity_check=False):
    """The dimensions from outermost to innermost in memory (largest stride first,
    ties in dimension order), as ``torch.Tensor.dim_order``. With
    ``ambiguity_check=True``, a tensor whose order is not unique (two equal
    strides, or a size-1 dimension) raises ``RuntimeError``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 3, 4).permute(1, 2, 0).dim_order()
    (2, 0, 1)
    """
    if not isinstance(ambiguity_check, bool):
        raise TypeError("dim_order(): ambiguity_check must be a bool (cygrad does not take a "
                        "list of memory formats)")
    strides = self.stride()
    if ambiguity_check and (len(set(strides)) < len(strides) or 1 in self.shape):
        raise RuntimeError("The tensor does not have unique dim order, or cannot map to exact one "
                           "of the given memory formats.")
    return tuple(sorted(range(self.dim()), key=lambda d: -strides[d]))


@tensor_method
def module_load(self, other, assign=False):
    """PyTorch's default of the hook ``load_state_dict`` calls when it swaps tensors:
    ``self.copy_(other).detach()``, or ``other.detach()`` with ``assign=True``.
    (cygrad's ``load_state_dict`` copies values in place and does not call it.)

    Examples
    --------
    >>> import cygrad
    >>> w = cygrad.zeros(2)
    >>> w.module_load(cygrad.ones(2)).tolist(), w.tolist()
    ([1.0, 1.0], [1.0, 1.0])
    """
    other = _other(other, "module_load")
    return other.detach() if assign else self.copy_(other).detach()


@tensor_method
def as_subclass(self, cls):
    """This tensor as an instance of ``cls`` (a subclass of ``cygrad.Tensor``): the
    same memory, recorded as an alias of this tensor so gradients flow back to it
    (``AliasBackward0``), as ``torch.Tensor.as_subclass``. ``cls.__init__`` is not
    called.

    Examples
    --------
    >>> import cygrad
    >>> class Tagged(cygrad.Tensor):
    ...     pass
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> y = x.as_subclass(Tagged)
    >>> type(y).__name__, y.grad_fn.name(), y.data_ptr() == x.data_ptr()
    ('Tagged', 'AliasBackward0', True)
    """
    from .._core import engine as _E
    from .._core import tensor as _C
    from .._tensor import Tensor
    if not (isinstance(cls, type) and issubclass(cls, Tensor)):
        raise TypeError("Creating a Tensor subclass from a class that does not inherit from "
                        "Tensor is not possible. Make sure your class inherits from Tensor.")
    out = Tensor.__new__(cls)
    _C._set_data(out, self)
    out._base = self if self._base is None else self._base
    if self.requires_grad and _C.is_grad_enabled():
        _E.record_view(self, out, "AliasBackward0")
    return out


def _copy_back(name):
    def method(self, *args, **kwargs):
        return self.copy_(getattr(self, name)(*args, **kwargs))
    method.__name__ = method.__qualname__ = name + "_"
    method.__doc__ = f"""``{name}`` written into this tensor, in place (``self.copy_(self.{name}(...))``,
    so autograd sees the op's node and then the overwrite).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros({_COPY_BACK[name][0]})
    >>> x.{name}_({_COPY_BACK[name][1]}) is x
    True
    """
    return method


# In-place forms of products whose backward never reads ``self`` (only beta times
# the gradient flows to it), so computing out of place and copying back records
# exactly PyTorch's graph.
# (name: the shape of self and the arguments of its docstring example)
_COPY_BACK = {"addmm": ("2, 2", "cygrad.ones(2, 2), cygrad.ones(2, 2)"),
              "addbmm": ("2, 2", "cygrad.ones(3, 2, 2), cygrad.ones(3, 2, 2)"),
              "baddbmm": ("3, 2, 2", "cygrad.ones(3, 2, 2), cygrad.ones(3, 2, 2)"),
              "addmv": ("2", "cygrad.ones(2, 2), cygrad.ones(2)"),
              "addr": ("2, 2", "cygrad.ones(2), cygrad.ones(2)")}
for _name in _COPY_BACK:
    if hasattr(Tensor, _name) and not hasattr(Tensor, _name + "_"):
        tensor_method(_copy_back(_name))
