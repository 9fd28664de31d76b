"""Questions about a tensor or object that PyTorch answers at the top level and as
Tensor methods: ``is_tensor``, ``is_storage``, ``is_nonzero``, ``is_signed``,
``is_same_size``, ``numel``, ``typename``, ``get_device``, and the flags of tensor
kinds cygrad does not have (sparse, quantized, nested, meta, pinned, inference,
negative-bit), which are always ``False`` for a cygrad tensor.

None of these records autograd history: they read metadata or one element.
"""
from .._core.storage import Storage
from .._core import tensor as _C
from .._core.tensor import TensorBase
from .._tensor import Tensor, tensor_method
from ._argcheck import not_tensor

__all__ = ["is_tensor", "is_storage", "is_floating_point", "is_nonzero", "is_signed",
           "is_same_size", "numel", "typename", "get_device", "is_inference", "is_neg",
           "is_distributed"]


def _tensor(input, opname, argname="input", position=1):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname, argname, position)
    return input


def is_tensor(obj):
    """True if ``obj`` is a cygrad tensor (``torch.is_tensor``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_tensor(cygrad.zeros(2)), cygrad.is_tensor([1.0])
    (True, False)
    """
    return isinstance(obj, TensorBase)


def is_storage(obj):
    """True if ``obj`` is a storage object, as ``tensor.untyped_storage()`` returns
    (``torch.is_storage``); a tensor is not a storage.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2)
    >>> cygrad.is_storage(x.untyped_storage()), cygrad.is_storage(x)
    (True, False)
    """
    return isinstance(obj, Storage)


def is_floating_point(input):
    """True if ``input``'s dtype is a floating-point type (``torch.is_floating_point``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_floating_point(cygrad.zeros(2)), cygrad.is_floating_point(cygrad.arange(2))
    (True, False)
    """
    return _tensor(input, "is_floating_point").is_floating_point()


@tensor_method
def is_nonzero(input):
    """Whether the single element of ``input`` is nonzero (``torch.is_nonzero``).

    Raises ``RuntimeError`` unless ``input`` has exactly one element.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_nonzero(cygrad.tensor([0.5])), cygrad.is_nonzero(cygrad.tensor(0))
    (True, False)
    """
    n = _tensor(input, "is_nonzero").numel()
    if n != 1:
        raise RuntimeError(f"Boolean value of Tensor with {'no values' if n == 0 else 'more than one value'}"
                           " is ambiguous")
    return input.item() != 0


@tensor_method
def is_signed(input):
    """True if ``input``'s dtype can hold negative values: everything but ``uint8``
    and ``bool`` (``torch.is_signed``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.is_signed(cygrad.zeros(2)), cygrad.zeros(2, dtype=cygrad.uint8).is_signed()
    (True, False)
    """
    return bool(_tensor(input, "is_signed").dtype.is_signed)


@tensor_method
def is_same_size(input, other):
    """True if ``input`` and ``other`` have the same shape (``torch.is_same_size``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 3).is_same_size(cygrad.ones(2, 3))
    True
    """
    _tensor(input, "is_same_size")
    return tuple(input.shape) == tuple(_tensor(other, "is_same_size", "other", 2).shape)


def numel(input):
    """The number of elements of ``input`` (``torch.numel``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.numel(cygrad.zeros(2, 3))
    6
    """
    return _tensor(input, "numel").numel()


def typename(obj):
    """A type name for ``obj`` (``torch.typename``): a tensor's legacy type name
    (``'cygrad.FloatTensor'`` where PyTorch says ``'torch.FloatTensor'``), else the
    object's qualified class name.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.typename(cygrad.zeros(2)), cygrad.typename(3), cygrad.typename(cygrad.nn.Linear(1, 1))
    ('cygrad.FloatTensor', 'int', 'cygrad.nn.modules.linear.Linear')
    """
    if isinstance(obj, TensorBase):
        return obj.type()
    cls = obj if isinstance(obj, type) else type(obj)
    module = cls.__module__
    return cls.__qualname__ if module in (None, "builtins") else f"{module}.{cls.__qualname__}"


@tensor_method
def get_device(input):
    """The device index of ``input``: ``-1`` on the CPU (``torch.get_device``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).get_device()
    -1
    """
    dev = _tensor(input, "get_device").device
    return -1 if dev.type == "cpu" else (dev.index or 0)


@tensor_method
def is_inference(input):
    """Always ``False``: cygrad's ``inference_mode`` works as ``no_grad`` and makes no
    separate inference tensors (in PyTorch a tensor created under inference mode
    answers ``True``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).is_inference()
    False
    """
    _tensor(input, "is_inference")
    return False


@tensor_method
def is_neg(input):
    """Always ``False``: cygrad negates eagerly, so no tensor carries PyTorch's lazy
    negative bit (``resolve_neg`` returns its input).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).is_neg()
    False
    """
    _tensor(input, "is_neg")
    return False


@tensor_method
def is_distributed(input):
    """Always ``False``, as for every dense tensor in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).is_distributed()
    False
    """
    _tensor(input, "is_distributed")
    return False


@tensor_method
def is_pinned(self, device=None):
    """Always ``False``: cygrad allocates no page-locked host memory (there is no
    CUDA copy engine to feed), so no tensor is pinned.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2).is_pinned()
    False
    """
    return False


@tensor_method
def pin_memory(self, device=None):
    """Raises ``RuntimeError``, as PyTorch does where no accelerator is available:
    pinned memory only speeds up copies to a GPU, which cygrad does not make. Data
    loaders accept ``pin_memory=True`` and ignore it.

    Examples
    --------
    >>> import cygrad
    >>> try:
    ...     cygrad.zeros(2).pin_memory()
    ... except RuntimeError as e:
    ...     print(e)
    Cannot access accelerator device when none is available.
    """
    raise RuntimeError("Cannot access accelerator device when none is available.")


def _false_flag(name, what):
    prop = property(lambda self: False,
                    doc=f"Always ``False``: cygrad tensors are never {what}.")
    setattr(Tensor, name, prop)


# Kinds of tensor PyTorch has and cygrad does not: scripts test these flags before
# taking a dense-tensor path, so they exist and say no.
for _name, _what in (("is_sparse", "sparse"), ("is_sparse_csr", "sparse CSR"),
                     ("is_quantized", "quantized"), ("is_nested", "nested"),
                     ("is_meta", "on the meta device"), ("is_mkldnn", "oneDNN tensors"),
                     ("is_mps", "on an MPS device"), ("is_xla", "on an XLA device"),
                     ("is_xpu", "on an XPU device"), ("is_ipu", "on an IPU device"),
                     ("is_mtia", "on an MTIA device"), ("is_maia", "on a MAIA device"),
                     ("is_vulkan", "Vulkan tensors")):
    if not _C._core_defines(_name):
        _false_flag(_name, _what)


def _layout(self):
    from .._dtype_info import strided
    return strided


if not _C._core_defines("layout"):
    Tensor.layout = property(_layout, doc="``cygrad.strided``: the only layout of cygrad tensors.")
