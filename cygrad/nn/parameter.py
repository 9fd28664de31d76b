"""``Parameter``: a tensor that a ``Module`` registers as one of its weights."""
from .._tensor import Tensor

__all__ = ["Parameter"]


class Parameter(Tensor):
    """A tensor that is a module parameter, as ``torch.nn.Parameter``.

    Assigning a ``Parameter`` as an attribute of a ``Module`` registers it, so it
    shows up in ``parameters()`` and ``state_dict()``. It shares memory (and the
    version counter) with ``data`` and is a leaf; it requires grad unless told
    otherwise. Operations on a parameter return plain tensors.

    Parameters
    ----------
    data : Tensor, optional
        The values; an empty tensor when omitted.
    requires_grad : bool, default True
        Whether autograd should record operations on it.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn import Parameter
    >>> p = Parameter(cygrad.ones(2))
    >>> p
    Parameter containing:
    tensor([1., 1.], requires_grad=True)
    >>> type(p * 2).__name__
    'Tensor'
    """

    def __new__(cls, data=None, requires_grad=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        if not isinstance(data, Tensor):
            raise TypeError(f"Parameter(): argument 'data' must be Tensor, not "
                            f"{type(data).__name__}")
        # A blank instance of this class, then made to show data's memory through the
        # public ``.data`` setter: the same storage and version counter, no history.
        param = Tensor.__new__(cls)
        param.data = data.detach()
        param.requires_grad_(requires_grad)
        return param

    def __init__(self, data=None, requires_grad=True):
        pass

    def __repr__(self):
        return "Parameter containing:\n" + super().__repr__()

    def __deepcopy__(self, memo):
        if id(self) in memo:
            return memo[id(self)]
        result = type(self)(self.data.clone(), self.requires_grad)
        memo[id(self)] = result
        return result

    def __reduce_ex__(self, proto):
        # Pickles (and copy.copy) rebuild a Parameter rather than a plain tensor.
        return (_rebuild_parameter, (self.data, self.requires_grad))


def _rebuild_parameter(data, requires_grad):
    return Parameter(data, requires_grad)
