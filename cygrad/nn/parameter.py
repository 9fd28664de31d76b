"""``Parameter`` and ``Buffer``: tensors that a ``Module`` registers when assigned."""
import weakref

from .._tensor import Tensor

__all__ = ["Parameter", "Buffer"]


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


# id of a tensor made by Buffer(...) -> (weak reference to it, its ``persistent`` flag).
# cygrad tensors carry no per-instance attributes, so the mark lives here. Keyed by id:
# a WeakKeyDictionary would compare tensors with ``==``, which is elementwise.
_buffer_flags = {}


def _buffer_entry(t):
    entry = _buffer_flags.get(id(t))
    return entry if entry is not None and entry[0]() is t else None


class _BufferMeta(type):
    def __instancecheck__(cls, instance):
        if cls is Buffer:
            return isinstance(instance, Tensor) and _buffer_entry(instance) is not None
        return super().__instancecheck__(instance)


class Buffer(Tensor, metaclass=_BufferMeta):
    """Marks a tensor as module state that is not a parameter, as ``torch.nn.Buffer``.

    ``Buffer(data)`` returns a plain tensor sharing ``data``'s memory, marked so that
    assigning it as a module attribute registers it as a buffer (like
    ``register_buffer``; ``persistent=False`` keeps it out of ``state_dict``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> m = nn.Module()
    >>> m.running = nn.Buffer(cygrad.zeros(2))
    >>> [name for name, _ in m.named_buffers()]
    ['running']
    >>> type(m.running).__name__
    'Tensor'
    """

    def __new__(cls, data=None, *, persistent=True):
        if data is None:
            from ..ops.creation import empty
            data = empty(0)
        t = data.detach().requires_grad_(data.requires_grad)
        key = id(t)
        _buffer_flags[key] = (weakref.ref(t, lambda _: _buffer_flags.pop(key, None)), persistent)
        return t


def _buffer_persistent(t):
    """The ``persistent`` flag ``Buffer(...)`` gave ``t``."""
    return _buffer_entry(t)[1]
