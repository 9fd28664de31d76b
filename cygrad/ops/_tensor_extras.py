"""Small Tensor methods that glue the Cython core to the Python API."""
from .._core import tensor as _C
from .._tensor import Tensor, tensor_method


@tensor_method
def detach(self):
    """A tensor sharing this one's memory, cut off from the autograd graph.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> x.detach().requires_grad
    False
    """
    return _C._detach(self)


@tensor_method
def requires_grad_(self, requires_grad=True):
    """Set ``requires_grad`` in place and return self."""
    if type(requires_grad) is not bool:
        # (setting it from None or a string would pass silently)
        raise TypeError(f"requires_grad_(): argument 'requires_grad' (position 1) must be bool, "
                        f"not {type(requires_grad).__name__}")
    self.requires_grad = requires_grad
    return self


def _get_data(self):
    return _C._data_alias(self)


def _set_data(self, value):
    if not isinstance(value, Tensor):
        raise TypeError(f"Variable data has to be a tensor, but got {type(value).__name__}")
    if self.requires_grad and not (value.is_floating_point() or value.is_complex()):
        raise RuntimeError("data set to a tensor that requires gradients must be floating point")
    _C._set_data(self, value)


Tensor.data = property(_get_data, _set_data, doc="This tensor's values, detached from autograd.")
