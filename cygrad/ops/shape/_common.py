"""Helpers shared by the shape functions: reading tensor-list and int-list
arguments as PyTorch's parser does, checking and filling ``out=`` tensors (the
result is computed by the op's Function, then copied in), zero tangents, and
gathering slices along a dim (the forward of ``repeat_interleave`` and the copying
pad modes) with its adjoint.
"""
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from .._argcheck import int_list_arg
from ..indexing import index_add


def _tensor_seq(tensors, opname, nonempty=False):
    """The list of tensors a joining op was given (a tuple or list, as in PyTorch);
    ``nonempty``: an empty one is PyTorch's RuntimeError (``stack``, ``vstack``...)."""
    if isinstance(tensors, TensorBase) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{opname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    if nonempty and not tensors:
        raise RuntimeError(f"{opname} expects a non-empty TensorList")
    for i, x in enumerate(tensors):
        if not isinstance(x, TensorBase):
            raise TypeError(f"{opname}(): expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def _method_ints(args, keyword, opname, argname):
    """The int list of a method taking ``t.f(2, 3)``, ``t.f((2, 3))`` or
    ``t.f(argname=(2, 3))`` (PyTorch's methods whose only argument is an int list)."""
    if keyword is not None:
        if args:
            raise TypeError(f"{opname}() got multiple values for argument '{argname}'")
        return int_list_arg(keyword, opname, argname, allow_int=False)
    if not args:
        raise TypeError(f'{opname}() missing 1 required positional arguments: "{argname}"')
    if len(args) == 1:
        a = args[0]
        if type(a) is int and -(1 << 63) <= a < (1 << 63):
            return (a,)             # the common ``t.flip(0)``
    if len(args) == 1 and not _is_single_int(args[0]):
        return int_list_arg(args[0], opname, argname, 1)
    # ``t.f(2**63)`` fails as the varargs list it is: "failed to unpack ... at pos 1"
    if len(args) == 1 and (args[0] is True or args[0] is False):
        raise TypeError(f"{opname}(): argument '{argname}' (position 1) must be tuple of ints, "
                        "not bool")
    return int_list_arg(args, opname, argname, 1)


def _check_devices(tensors):
    if all([x.is_cpu for x in tensors]):
        return
    dev = tensors[0].device
    for x in tensors[1:]:
        if x.device != dev:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                               f"two devices, {dev} and {x.device}!")


_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _refuse_tracked(opname, res):
    """``out=`` is refused for a result that autograd tracks (an argument requires
    grad, or carries a tangent), as in PyTorch."""
    if _C.needs_autograd(res):
        raise RuntimeError(f"{opname}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")


def _write_out(out, res, opname, exact=False):
    """Copy an op's result ``res`` into the caller's ``out`` after PyTorch's checks:
    its dtype equal to the result's when ``exact``, else one the result can be cast
    to; resized when its shape is wrong.  Writing into ``out`` is an in-place change
    (its version moves)."""
    _refuse_tracked(opname, res)
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    dtype = res.dtype
    if exact and out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[dtype.name]}, but got "
                           f"{_CPP_NAMES[out.dtype.name]} instead")
    if not _C._can_cast(dtype, out.dtype):
        raise TypeError(f"torch.{opname}(): input types can't be cast to the desired output type "
                        f"{_C._torch_type_name(out.dtype)}")
    if tuple(out.shape) != tuple(res.shape):
        resize = getattr(out, "resize_", None)
        if resize is None:
            raise RuntimeError(f"{opname}(): out= has shape {list(out.shape)} but the result has "
                               f"shape {list(res.shape)}")
        resize(tuple(res.shape))
    if res.numel():
        _C._copy_into(out, res)
    out._bump_version()
    return out


def _zero_tangents(tangents, shapes):
    """The tangents with zeros for the missing ones (None if all are missing)."""
    present = [t for t in tangents if t is not None]
    if not present:
        return None
    return [t if t is not None else _C.zeros(shape, dtype=present[0].dtype,
                                             device=present[0].device)
            for t, shape in zip(tangents, shapes)]


_INT64_MAX = (1 << 63) - 1


def _shape_error_if_negative(shape):
    if any(s < 0 for s in shape):
        bad = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(shape)}")


def _is_single_int(value):
    """Whether an int-or-int-list argument was given as one int."""
    return hasattr(value, "__index__") and getattr(value, "ndim", 0) == 0




def _int_list_not_tensor(value, opname, argname, position):
    """An int list argument; PyTorch's parser refuses a whole tensor there."""
    if isinstance(value, TensorBase):
        raise TypeError(f"{opname}(): argument '{argname}' (position {position}) must be tuple "
                        f"of ints, not Tensor")
    return int_list_arg(value, opname, argname, position, allow_int=False)




def _gather(input, dim, index):
    """``input``'s slices along ``dim`` at the positions ``index`` (a 1-D int64 tensor)."""
    if not (index.is_cpu and input.is_cpu):     # (a no-op .to() still costs a call)
        index = index.to(input.device)
    return kernel("gather_slices", input.device.type)(input, dim, index)


def _add_slices(src, dim, index, size):
    """Zeros with ``size`` slices along ``dim``, slice ``j`` of ``src`` added at
    ``index[j]`` (a 1-D int64 tensor): the adjoint of :func:`_gather`, differentiable."""
    shape = list(src.shape)
    shape[dim] = size
    return index_add(_C.zeros(tuple(shape), dtype=src.dtype, device=src.device), dim,
                     index, src)
