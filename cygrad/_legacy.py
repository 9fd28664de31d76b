"""Names that older PyTorch tutorials still use: the typed constructors
(``FloatTensor``, ``LongTensor``...), ``autograd.Variable``, and
``set_default_device``/``get_default_device``.

Examples
--------
>>> import cygrad
>>> cygrad.LongTensor([1, 2]).dtype
cygrad.int64
>>> isinstance(cygrad.zeros(2), cygrad.FloatTensor)
True
"""
import numbers

from ._core import dtype as _dt
from ._core.tensor import Size, TensorBase
from ._device import device as _device
from . import autograd as _autograd
from . import cuda as _cuda
from .ops.creation import empty, tensor

__all__ = ["FloatTensor", "DoubleTensor", "HalfTensor", "BFloat16Tensor", "LongTensor",
           "IntTensor", "ShortTensor", "CharTensor", "ByteTensor", "BoolTensor",
           "set_default_device", "get_default_device"]


class _TypedTensorMeta(type):
    """``isinstance(t, cygrad.FloatTensor)`` asks whether ``t`` is a float32 CPU tensor,
    as in PyTorch."""

    def __instancecheck__(cls, obj):
        return (isinstance(obj, TensorBase) and obj.dtype is cls._dtype
                and obj.device.type == "cpu")


class _TypedTensor(metaclass=_TypedTensorMeta):
    _dtype = None

    def __new__(cls, *args, **kwargs):
        return legacy_new(cls._dtype, cls.__name__, *args, **kwargs)


def legacy_new(dt, name, *args, **kwargs):
    """The legacy constructor of dtype ``dt`` (``FloatTensor(...)``; ``t.new(...)``),
    ``name`` being the caller's name for error messages."""
    if kwargs:
        raise TypeError(f"{name}(): unexpected keyword arguments {sorted(kwargs)}")
    if not args:
        return empty(0, dtype=dt)
    if len(args) == 1 and isinstance(args[0], TensorBase):
        if args[0].dtype is not dt:
            raise TypeError(f"expected {dt} (got {args[0].dtype})")
        return args[0]
    if len(args) == 1 and (isinstance(args[0], bool)
                           or not isinstance(args[0], numbers.Integral)):
        data = args[0]
        if _is_size(data):
            return empty(*data, dtype=dt)
        if not isinstance(data, (list, tuple)) and not hasattr(data, "__array__"):
            raise TypeError(f"new(): data must be a sequence (got {type(data).__name__})")
        return tensor(data, dtype=dt)
    size = args
    for s in size:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"new(): argument 'size' must be tuple of ints, but found element "
                            f"of type {type(s).__name__}")
    return empty(*size, dtype=dt)


def _is_size(obj):
    return isinstance(obj, Size)


_TYPED_DOC = """{dt} CPU tensors (legacy constructor, ``torch.{name}``).

    ``{name}(data)`` copies ``data``; ``{name}(*sizes)`` is uninitialised; a tensor of
    this type passes through; ``isinstance(t, {name})`` checks the dtype.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.{name}(2, 3).shape
    cygrad.Size([2, 3])
    """

_TYPED = {"FloatTensor": _dt.float32, "DoubleTensor": _dt.float64, "HalfTensor": _dt.float16,
          "BFloat16Tensor": _dt.bfloat16, "LongTensor": _dt.int64, "IntTensor": _dt.int32,
          "ShortTensor": _dt.int16, "CharTensor": _dt.int8, "ByteTensor": _dt.uint8,
          "BoolTensor": _dt.bool_}

for _name, _dtype in _TYPED.items():
    globals()[_name] = _TypedTensorMeta(
        _name, (_TypedTensor,), {"_dtype": _dtype, "__module__": "cygrad",
                                 "__doc__": _TYPED_DOC.format(dt=_dtype.name, name=_name)})


class _VariableMeta(type):
    def __instancecheck__(cls, obj):
        return isinstance(obj, TensorBase)


class Variable(metaclass=_VariableMeta):
    """Deprecated: ``Variable(t)`` is a tensor sharing ``t``'s data, detached from its
    graph, with ``requires_grad`` as given (``torch.autograd.Variable``).  Every tensor
    is an instance of ``Variable``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2)
    >>> v = cygrad.autograd.Variable(x, requires_grad=True)
    >>> v.requires_grad, x.requires_grad, isinstance(x, cygrad.autograd.Variable)
    (True, False, True)
    """

    def __new__(cls, data, requires_grad=False, volatile=False):
        if not isinstance(data, TensorBase):
            raise TypeError(f"Variable data has to be a tensor, but got {type(data).__name__}")
        out = data.detach()
        if requires_grad:
            out.requires_grad_(True)
        return out


_autograd.Variable = Variable


def set_default_device(device):
    """Set the device factories use by default (``torch.set_default_device``).

    Only the CPU is supported: ``"cpu"`` (or ``None``) is accepted, and a CUDA device
    raises the ``RuntimeError`` that says why CUDA cannot be used here.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.set_default_device("cpu")
    >>> cygrad.get_default_device()
    device(type='cpu')
    """
    if device is None:
        return
    dev = _device(device)
    if dev.type == "cpu":
        return
    if dev.type == "cuda":
        _cuda._lazy_init()
    raise RuntimeError(f"set_default_device: only the CPU can be the default device in "
                       f"cygrad, got {dev}")


def get_default_device():
    """The device factories use by default: always the CPU in cygrad.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.get_default_device().type
    'cpu'
    """
    return _device("cpu")
