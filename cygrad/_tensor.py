"""``cygrad.Tensor``: the Python class users hold.

Its memory, geometry and hot operators are Cython (``_core/tensor.pyx``); this class
adds the long tail of methods. Each ``cygrad.ops`` module attaches its functions as
methods with ``@tensor_method``, so an op is written once and is both
``cygrad.exp(t)`` and ``t.exp()``.
"""
from ._core import tensor as _C


class Tensor(_C.TensorBase, _C._ViewMethods, _C._CopyMethods):
    """A multi-dimensional array with autograd support, as ``torch.Tensor``.

    Create tensors with factories (``cygrad.tensor``, ``cygrad.zeros``...), not by
    calling the class.

    Examples
    --------
    >>> import cygrad
    >>> t = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> (t * 2 + 1).sum().item()
    24.0
    """

    # No per-instance __dict__: keeps tensors out of the cyclic GC, so creating one
    # costs what creating a NumPy array does. (Subclasses such as nn.Parameter may
    # add attributes.)
    __slots__ = ()

    # NumPy should hand mixed ndarray/Tensor arithmetic to us.
    __array_priority__ = 1000

    def __new__(cls, *args, **kwargs):
        if args or kwargs:
            from .ops.creation import _legacy_constructor
            return _legacy_constructor(*args, **kwargs)
        return _C.TensorBase.__new__(cls)

    def __init__(self, *args, **kwargs):
        pass

    def __repr__(self):
        from ._printing import tensor_repr
        return tensor_repr(self)

    def __str__(self):
        return self.__repr__()

    def __format__(self, spec):
        if self.dim() == 0 and spec:
            return format(self.item(), spec)
        return object.__format__(self, spec)

    def __array_namespace__(self, /, *, api_version=None):
        """The array API namespace of cygrad tensors: :mod:`cygrad.numpy`.

        Examples
        --------
        >>> import cygrad
        >>> xp = cygrad.ones(3).__array_namespace__()
        >>> xp.__name__, xp.__array_api_version__
        ('cygrad.numpy', '2024.12')
        """
        if api_version not in (None, "2021.12", "2022.12", "2023.12", "2024.12"):
            raise ValueError(f"cygrad.numpy does not support array API version {api_version!r}")
        from . import numpy as cnp
        return cnp

    def to_device(self, device, /, *, stream=None):
        """The array API's ``x.to_device(device)``: ``x.to(device)``.

        Examples
        --------
        >>> import cygrad
        >>> cygrad.ones(2).to_device("cpu").device
        device(type='cpu')
        """
        if stream is not None:
            raise ValueError("to_device(): cygrad takes no stream argument on the CPU")
        return self.to(device)

    def record_stream(self, stream):
        """Mark this CUDA tensor's memory as in use by the work queued on ``stream``:
        once the tensor is freed, the caching allocator reuses its memory only after
        that work has completed (``torch.Tensor.record_stream``).

        Examples
        --------
        >>> import cygrad
        >>> try:
        ...     cygrad.ones(2).record_stream(None)
        ... except RuntimeError as e:
        ...     print(e)
        record_stream: expected a CUDA tensor, got a tensor on cpu
        """
        from .cuda.tensors import record_stream
        record_stream(self, stream)

    @property
    def __cuda_array_interface__(self):
        """The CUDA Array Interface (version 3) of a CUDA tensor on a real GPU, for
        zero-copy exchange with CuPy, Numba and PyTorch; AttributeError for CPU
        tensors and for the emulated GPU, whose pointers are not CUDA memory.

        Examples
        --------
        >>> import cygrad
        >>> hasattr(cygrad.ones(2), "__cuda_array_interface__")
        False
        """
        from .cuda.tensors import cuda_array_interface
        return cuda_array_interface(self)



def tensor_method(fn=None, *, name=None):
    """Decorator: also make ``fn`` a method of ``cygrad.Tensor`` (``t.fn(...)``).

    The first parameter of ``fn`` is the tensor. Methods the Cython base already
    defines (fast paths) are not overridden.
    """
    def register(f):
        attr = name or f.__name__
        if not _C._core_defines(attr):
            setattr(Tensor, attr, f)
        return f
    return register(fn) if fn is not None else register
