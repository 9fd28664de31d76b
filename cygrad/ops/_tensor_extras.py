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
    self.requires_grad = requires_grad
    return self


def _get_data(self):
    return _C._data_alias(self)


def _set_data(self, value):
    raise RuntimeError("assigning to .data is not supported in cygrad; copy values in with "
                       "`with cygrad.no_grad(): t.copy_(value)`")


Tensor.data = property(_get_data, _set_data, doc="This tensor's values, detached from autograd.")
