"""Shared helpers of the indexing ops: argument checks with PyTorch's errors, scalar
validation, the kernel table lookups and the ``out=`` protocol.

The computing is done by the primitives of the kernel table (the CPU ones are in
``cygrad/_core/backend_cpu/indexing.py``); :func:`_k` finds the kernel of a
primitive for a tensor's device.

Examples
--------
>>> import cygrad
>>> from cygrad.ops.indexing._common import _shape_str, _first_out_of_bounds
>>> _shape_str((2, 3))
'[2, 3]'
>>> _first_out_of_bounds(cygrad.tensor([0, 5, -1]), 0, 3)
5
"""
import math

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ..._core.backend_cpu.indexing import BOOL_TYPES, INT_TYPES, NUMBER_TYPES, ARRAY_TYPES
from .._argcheck import check_scalar_fits, not_tensor


_INDEX_DTYPES = (_dt.int32, _dt.int64)


# Names PyTorch's C++ layer prints in a few messages ("Expected out tensor to have dtype float").
_C10_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
              "int32": "int", "int64": "long int", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}


_C_TYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
            "int64": "int64_t"}


def _k(primitive, t):
    """The kernel of ``primitive`` for the device of tensor ``t`` (the table's public
    lookup: NotImplementedError names the primitive and device when there is none)."""
    return kernel(primitive, t.device.type)


def _tname(dtype):
    """PyTorch's short type name: Float, Long, Bool ..."""
    return _C._torch_type_name(dtype)


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _require_tensor(x, opname, argname, position):
    if not isinstance(x, TensorBase):
        raise not_tensor(x, opname, argname, position)


# Refuse an in-place write into a tensor whose elements alias each other (an expanded
# view): the result would depend on the order of the writes.  The core's check.
_check_no_internal_overlap = _C._check_no_internal_overlap_py


def _number_arg(value, opname, argname, position=None):
    """``value`` as the number PyTorch's parser reads as a Scalar (a 0-dim tensor gives
    its value), else the parser's TypeError."""
    if isinstance(value, NUMBER_TYPES):
        return value
    if isinstance(value, TensorBase) and value.dim() == 0:
        return value.item()
    at = f" (position {position})" if position else ""
    raise TypeError(f"{opname}(): argument '{argname}'{at} must be Number, not "
                    f"{type(value).__name__}")


def _fits(value, dtype):
    """A number about to be written into a ``dtype`` tensor, refused as c10's
    ``checked_convert`` refuses it (a complex number fits no real dtype; complex
    dtypes take it)."""
    if dtype.is_complex:
        return value
    if isinstance(value, complex) or getattr(getattr(value, "dtype", None), "kind", "") == "c":
        raise RuntimeError(f"value cannot be converted to type "
                           f"{_C10_NAMES.get(dtype.name, dtype.name)} without overflow")
    return check_scalar_fits(value, dtype)


def _dim(dim, ndim):
    """Wrap a possibly negative dim; a 0-dim tensor accepts dim 0 and -1 like a 1-D one."""
    return _C._wrap(dim, max(ndim, 1))


def _broadcast_shapes(*shapes):
    """Broadcast shape of ``shapes`` with PyTorch's error message."""
    ndim = max((len(s) for s in shapes), default=0)
    result = [1] * ndim
    for shape in shapes:
        for i, size in enumerate(shape):
            k = ndim - len(shape) + i
            if size != 1 and result[k] != 1 and result[k] != size:
                raise RuntimeError(f"The size of tensor a ({result[k]}) must match the size of "
                                   f"tensor b ({size}) at non-singleton dimension {k}")
            if size != 1:
                result[k] = size
    return tuple(result)


def _scalar_array(value, dtype):
    """A Python/NumPy number validated for writing into a ``dtype`` tensor as PyTorch
    writes it: floats truncate toward zero for integer dtypes; a value the dtype
    cannot hold is an error (negative values wrap for unsigned types, as in PyTorch).
    The result is a plain number that the kernels convert like a C cast."""
    if dtype == _dt.bool_:
        return bool(value)
    if dtype.is_complex:
        return complex(value)
    if not dtype.is_floating_point:
        if isinstance(value, float) or getattr(getattr(value, "dtype", None), "kind", "") == "f":
            if not math.isfinite(value):
                raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype.name]} "
                                   "without overflow")
        value = int(value)
        bits = 8 * dtype.itemsize
        high = (1 << bits) - 1 if dtype.name.startswith("uint") else (1 << (bits - 1)) - 1
        low = -high if dtype.name.startswith("uint") else -(1 << (bits - 1))
        if not low <= value <= high:
            raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype.name]} "
                               "without overflow")
        return value
    return float(value)


_FILL_TYPES = (TensorBase,) + NUMBER_TYPES


def _fill_arg(value, opname):
    """PyTorch's parser: the value of masked_fill/index_fill is a Tensor or a Number."""
    if not isinstance(value, _FILL_TYPES):
        raise TypeError(f"{opname}() received an invalid combination of arguments: argument "
                        f"'value' must be Number or Tensor, not {type(value).__name__}")


def _fill_value(value, dtype, opname):
    """The value of masked_fill/index_fill: a number or a 0-dim tensor, cast to ``dtype``
    (a value the dtype cannot hold is an error, as in PyTorch)."""
    if isinstance(value, TensorBase):
        if value.dim() != 0:
            raise RuntimeError(f"{opname} only supports a 0-dimensional value tensor, but got "
                               f"tensor with {value.dim()} dimension(s).")
        _fits(value.item(), dtype)
        return value
    return _scalar_array(_fits(value, dtype), dtype)


_COPY = None


def _copy_op():
    # A dispatcher entry that only copies: ``_C.unary_op(_COPY, result, out)`` gives
    # ``out=`` arguments the core's semantics (dtype check, resize with PyTorch's
    # warning, version bump).  Built on first use: the kernel table fills lazily.
    global _COPY
    if _COPY is None:
        _COPY = _C.ElementwiseOp("copy", 1, -1, kernel("copy_cast", "cpu"))
    return _COPY


def _finish(result, out):
    if out is None:
        return result
    if not isinstance(out, TensorBase):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    _C.unary_op(_copy_op(), result, out)
    if result.numel() == 0:
        out._bump_version()     # the copy had nothing to write, but out= still changed
    return out


def _check_out_dtype(out, dtype, message=None):
    """``out`` must have exactly ``dtype`` (the ops PyTorch writes as structured kernels
    say so with the default message)."""
    if out is not None and isinstance(out, TensorBase) and out.dtype != dtype:
        raise RuntimeError(message or f"Expected out tensor to have dtype "
                           f"{_C10_NAMES.get(dtype.name, dtype.name)}, but got "
                           f"{_C10_NAMES.get(out.dtype.name, out.dtype.name)} instead")


def _first_out_of_bounds(index, low, high):
    """The first value of the int tensor ``index`` (C order) outside ``[low, high)``,
    or None."""
    return _k("first_out_of_bounds", index)(index, low, high)


def _index_array(index, opname, dtypes=_INDEX_DTYPES, message=None, error=RuntimeError):
    """``index`` after its dtype check."""
    if index.dtype not in dtypes:
        raise error(message or f"{opname}(): Expected dtype int32/int64 for index")
    return index
