"""Reductions, scans, sorting and softmax, with PyTorch's signatures and semantics.

Each op is one function.  It checks its arguments, works out the result dtype the
way PyTorch does, runs NumPy on a zero-copy view of the input (``_C._ndarray``) and
wraps the fresh result (or copies it into ``out=``).  Rules shared by the family:

* ``dim`` may be an int (negative counts from the end), a tuple/list of ints, or
  ``None`` (every dim); ``axis=``/``keepdims=`` are accepted as NumPy aliases.
  A 0-d tensor accepts ``dim=0`` and ``dim=-1``.
* ``sum``/``prod``/``cumsum``/``cumprod`` of bool or integer tensors give int64.
* float16/bfloat16 accumulate in float32 and are rounded back at the end.
* max/min/argmax/argmin/sort propagate NaN: NaN counts as larger than everything.

Ops returning two tensors return a named tuple from ``cygrad.return_types``
(``values``, ``indices``), like ``torch.return_types``.
"""
import builtins as _builtins
import collections
import math
import numbers
import sys
import types
import warnings

import numpy as np

from .._core import tensor as _C
from .._core import dtype as _dt
from .._core.tensor import TensorBase, from_numpy
from .._tensor import tensor_method
from . import elementwise as _ew

__all__ = ["return_types", "sum", "mean", "prod", "max", "min", "amax", "amin", "aminmax",
           "argmax", "argmin", "var", "std", "var_mean", "std_mean", "norm", "logsumexp",
           "all", "any", "cumsum", "cumprod", "softmax", "log_softmax", "sort", "argsort",
           "msort", "topk", "unique", "count_nonzero", "median", "kthvalue", "mode",
           "nansum", "nanmean"]


# ---------------------------------------------------------------------------
# cygrad.return_types: the named tuples ops with two results return
# ---------------------------------------------------------------------------
return_types = types.ModuleType(
    "cygrad.return_types",
    "Named tuples returned by ops with several results (``values``, ``indices``).")
# Registered so that pickle finds the classes by their module name.
sys.modules["cygrad.return_types"] = return_types


def _result_type(name, fields=("values", "indices")):
    cls = collections.namedtuple(name, fields, module="cygrad.return_types")

    def __repr__(self):
        body = ",\n".join(f"{f}={getattr(self, f)!r}" for f in fields)
        return f"cygrad.return_types.{name}(\n{body})"

    cls.__repr__ = __repr__
    setattr(return_types, name, cls)
    return cls


_MaxResult = _result_type("max")
_MinResult = _result_type("min")
_SortResult = _result_type("sort")
_TopkResult = _result_type("topk")
_MedianResult = _result_type("median")
_KthvalueResult = _result_type("kthvalue")
_ModeResult = _result_type("mode")
_AminmaxResult = _result_type("aminmax", ("min", "max"))


# ---------------------------------------------------------------------------
# shared helpers
# ---------------------------------------------------------------------------
_BF16 = np.dtype(_dt.bfloat16.np_dtype)
_HALF_NP = (np.dtype(np.float16), _BF16)
# C++ spellings PyTorch uses in "Expected out tensor to have dtype ..." messages.
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double"}


def _check_tensor(input, opname):
    if not isinstance(input, TensorBase):
        raise TypeError(f"{opname}(): argument 'input' (position 1) must be Tensor, "
                        f"not {type(input).__name__}")


def _alias(value, alias):
    """Resolve a NumPy alias (``axis``/``keepdims``) against PyTorch's name."""
    return value if alias is None else alias


def _dims(input, dim, opname):
    """Reduction dims as a sorted tuple of wrapped ints, or None for "all dims".

    An empty tuple/list also means every dim, as in PyTorch."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) == 0:
            return None
        dims = [_one_dim(input, d, opname) for d in dim]
        for d in dims:
            if dims.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
        return tuple(sorted(dims))
    return (_one_dim(input, dim, opname),)


def _one_dim(input, dim, opname):
    if isinstance(dim, bool) or not isinstance(dim, numbers.Integral):
        raise TypeError(f"{opname}(): argument 'dim' must be int or tuple of ints, "
                        f"not {type(dim).__name__}")
    return _C._wrap(int(dim), input.dim())


def _axes(input, dims):
    """NumPy ``axis`` for wrapped ``dims`` (a 0-d array only takes axis=None)."""
    return None if dims is None or input.dim() == 0 else dims


def _reduced_count(input, dims):
    """How many input elements fold into each output element."""
    if dims is None or input.dim() == 0:
        return input.numel()
    return math.prod(input.shape[d] for d in dims)


def _acc_np(dt):
    """NumPy dtype to accumulate in for a result of cygrad dtype ``dt``."""
    npdt = np.dtype(dt.np_dtype)
    return np.dtype(np.float32) if npdt in _HALF_NP else npdt


def _cast_input(a, acc):
    """Convert to ``acc`` first where NumPy would refuse a ufunc's ``dtype=`` (float
    data summed as integers truncates each element first, as PyTorch does)."""
    if a.dtype.kind == "f" and acc.kind in "biu":
        return a.astype(acc)
    return a


def _float_view(a):
    """``a`` with bfloat16 widened to float32 (exactly): several NumPy routines
    (sort inside ``unique``, partition) mishandle ml_dtypes' bfloat16."""
    return a.astype(np.float32) if a.dtype == _BF16 else a


def _wrap(arr, dt):
    """A fresh tensor of dtype ``dt`` holding ``arr`` (a NumPy result we own)."""
    arr = np.asarray(arr)
    npdt = np.dtype(dt.np_dtype)
    if arr.dtype != npdt:
        with np.errstate(invalid="ignore"):     # NaN into an integer dtype, as torch
            arr = arr.astype(npdt)
    if not arr.flags.c_contiguous:
        arr = arr.copy()
    return from_numpy(arr)


def _emit(arr, dt, out, opname, exact=False):
    """Return ``arr`` as a tensor of dtype ``dt``, or write it into ``out``.

    ``exact`` demands ``out.dtype == dt`` (PyTorch's rule for max/sort/argmax...);
    otherwise the result only has to be castable to ``out``'s dtype."""
    result = _wrap(arr, dt)
    if out is None:
        return result
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if exact and out.dtype != dt:
        raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[dt.name]}, but got "
                           f"{_CPP_NAMES[out.dtype.name]} instead")
    if not _C._can_cast(dt, out.dtype):
        raise RuntimeError(f"result type {_C._torch_type_name(dt)} can't be cast to the desired "
                           f"output type {_C._torch_type_name(out.dtype)}")
    if tuple(out.shape) != tuple(result.shape):
        _resize_out(out, result.shape, opname)
    _C._copy_into(out, result)
    out._bump_version()
    return out


def _resize_out(out, shape, opname):
    # PyTorch resizes a mismatched out= (warning when it held elements).  The core
    # has no Python-visible resize yet, so a mismatch is an error until it does.
    resize = getattr(out, "resize_", None)
    if resize is None:
        raise RuntimeError(f"{opname}(): out= has shape {list(out.shape)} but the result has "
                           f"shape {list(shape)}; pass an out tensor of the result's shape")
    if out.numel() != 0:
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(out.shape)}, which does not match the required output shape "
                      f"{list(shape)}.", UserWarning, stacklevel=4)
    resize(tuple(shape))


def _emit_pair(cls, values, indices, dt, out, opname):
    """(values, indices) named tuple; ``out`` is an optional (values, indices) pair."""
    if out is None:
        return cls(_wrap(values, dt), _wrap(indices, _dt.int64))
    if not isinstance(out, (tuple, list)) or len(out) != 2:
        raise TypeError(f"{opname}(): argument 'out' must be a tuple of two Tensors")
    return cls(_emit(values, dt, out[0], opname, exact=True),
               _emit(indices, _dt.int64, out[1], opname, exact=True))


def _int_result(dt):
    """Integer and bool inputs sum/multiply/scan into int64 (PyTorch's rule)."""
    return dt if dt.is_floating_point else _dt.int64


def _accumulate_dtype(input, dtype, out, opname):
    """Result dtype of sum/prod/cumsum/cumprod: ``dtype=``, else ``out``'s, else the
    input's with integers widened to int64."""
    if dtype is not None:
        dt = _dt.as_dtype(dtype)
        if out is not None and isinstance(out, TensorBase) and out.dtype != dt:
            raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[dt.name]}, "
                               f"but got {_CPP_NAMES[out.dtype.name]} instead")
        return dt
    if isinstance(out, TensorBase):
        return out.dtype
    return _int_result(input.dtype)


def _require_float(input, opname, message=None):
    if not input.dtype.is_floating_point:
        raise RuntimeError(message or f"{opname}(): expected a floating point tensor as input, "
                                      f"got {_C._torch_type_name(input.dtype)}")


def _check_nonempty(input, dims, opname, raw_dim=None):
    """max/min-style reductions have no identity: an empty reduction is an error."""
    if input.numel() != 0:
        return
    if dims is None or input.dim() == 0:
        raise RuntimeError(f"{opname}(): Expected reduction dim to be specified for "
                           f"input.numel() == 0. Specify the reduction dim with the 'dim' "
                           f"argument.")
    for d in dims:
        if input.shape[d] == 0:
            shown = d if raw_dim is None else raw_dim
            raise IndexError(f"{opname}(): Expected reduction dim {shown} to have "
                             f"non-zero size.")


def _single_dim(input, dim, opname):
    """A single wrapped dim for ops that take exactly one (max(dim), sort, cumsum...)."""
    if isinstance(dim, (tuple, list)):
        raise TypeError(f"{opname}(): argument 'dim' must be int, not {type(dim).__name__}")
    return _one_dim(input, dim, opname)


def _squeeze(arr, dims, keepdim):
    """Drop kept reduction dims unless ``keepdim``."""
    if keepdim or dims is None:
        return arr
    return np.squeeze(arr, axis=dims)


# ---------------------------------------------------------------------------
# sums and products
# ---------------------------------------------------------------------------
@tensor_method
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints).

    Bool and integer tensors sum into int64 unless ``dtype`` says otherwise; with
    ``dtype`` the input is converted first.  An empty reduction gives 0.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2, 3], [4, 5, 6]])
    >>> cygrad.sum(x, dim=0).tolist()
    [5, 7, 9]
    >>> x.sum((0, 1), keepdim=True).tolist()
    [[21]]
    """
    _check_tensor(input, "sum")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    if out is None:
        # Through the method so cygrad.sum(x) and x.sum() share the C fast path (and
        # its rounding); the method comes back to _sum for everything else.
        return TensorBase.sum(input, dim, keepdim, dtype=dtype)
    return _sum(input, dim, keepdim, dtype, out)


def _sum(input, dim=None, keepdim=False, dtype=None, out=None):
    """The NumPy implementation behind ``sum`` (registered with the core)."""
    dims = _dims(input, dim, "sum")
    dt = _accumulate_dtype(input, dtype, out, "sum")
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        a = _cast_input(_C._ndarray(input), acc)
        res = np.sum(a, axis=_axes(input, dims), keepdims=bool(keepdim), dtype=acc)
    return _emit(res, dt, out, "sum")


@tensor_method
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum treating NaN as zero.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nansum(cygrad.tensor([1.0, float("nan"), 2.0])).item()
    3.0
    """
    _check_tensor(input, "nansum")
    dims = _dims(input, dim, "nansum")
    dt = _accumulate_dtype(input, dtype, out, "nansum")
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        # (NumPy's NaN test skips ml_dtypes' bfloat16, hence the float32 view)
        a = _cast_input(_float_view(_C._ndarray(input)), acc)
        res = np.nansum(a, axis=_axes(input, dims), keepdims=bool(keepdim), dtype=acc)
    return _emit(res, dt, out, "nansum")


def _mean_dtype(input, dtype, opname):
    if dtype is not None:
        dt = _dt.as_dtype(dtype)
        if not dt.is_floating_point:
            raise RuntimeError(f"{opname}(): could not infer output dtype. Optional dtype must "
                               f"be either a floating point or complex dtype. Got: "
                               f"{_C._torch_type_name(dt)}")
        return dt
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"{opname}(): could not infer output dtype. Input dtype must be "
                           f"either a floating point or complex dtype. Got: "
                           f"{_C._torch_type_name(input.dtype)}")
    return input.dtype


@tensor_method
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Arithmetic mean of all elements, or over ``dim``.

    Needs a floating point input (or ``dtype``); the mean of nothing is NaN.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> x.mean().item()
    2.75
    >>> cygrad.mean(x, dim=1).tolist()
    [1.5, 4.0]
    """
    _check_tensor(input, "mean")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    dims = _dims(input, dim, "mean")
    dt = _mean_dtype(input, dtype, "mean")
    acc = _acc_np(dt)
    n = _reduced_count(input, dims)
    with np.errstate(all="ignore"):
        total = np.sum(_C._ndarray(input), axis=_axes(input, dims), keepdims=bool(keepdim),
                       dtype=acc)
        res = total / acc.type(n) if n else np.full_like(total, np.nan)
    return _emit(res, dt, out, "mean")


@tensor_method
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN elements (NaN where there are none).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nanmean(cygrad.tensor([1.0, float("nan"), 3.0])).item()
    2.0
    """
    _check_tensor(input, "nanmean")
    dims = _dims(input, dim, "nanmean")
    dt = _mean_dtype(input, dtype, "nanmean")
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        a = _C._ndarray(input)
        valid = ~np.isnan(a)
        axes = _axes(input, dims)
        total = np.sum(np.where(valid, a, 0), axis=axes, keepdims=bool(keepdim), dtype=acc)
        res = total / np.sum(valid, axis=axes, keepdims=bool(keepdim)).astype(acc)
    return _emit(res, dt, out, "nanmean")


@tensor_method
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Product of all elements, or over ``dim``.

    Bool and integer tensors multiply into int64; an empty product is 1.
    PyTorch takes a single int ``dim``; a tuple is accepted here too.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2], [3, 4]])
    >>> x.prod().item()
    24
    >>> cygrad.prod(x, 1).tolist()
    [2, 12]
    """
    _check_tensor(input, "prod")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    dims = _dims(input, dim, "prod")
    dt = _accumulate_dtype(input, dtype, out, "prod")
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        a = _cast_input(_C._ndarray(input), acc)
        res = np.prod(a, axis=_axes(input, dims), keepdims=bool(keepdim), dtype=acc)
    return _emit(res, dt, out, "prod")


# ---------------------------------------------------------------------------
# extremes
# ---------------------------------------------------------------------------
def _extreme(input, dim, keepdim, out, opname, np_reduce, np_arg, other_fn, result_cls):
    """Shared body of max/min: the three PyTorch call forms."""
    if isinstance(dim, TensorBase):
        # max(input, other): elementwise maximum/minimum with broadcasting
        return other_fn(input, dim, out=out)
    if dim is None:
        _check_nonempty(input, None, opname)
        with np.errstate(all="ignore"):
            res = np_reduce(_C._ndarray(input))
        return _emit(res, input.dtype, out, opname, exact=True)
    d = _single_dim(input, dim, opname)
    _check_nonempty(input, (d,), opname)
    a = _C._ndarray(input)
    if input.dim() == 0:
        return _emit_pair(result_cls, a.copy(), np.zeros((), np.int64), input.dtype, out, opname)
    idx = np_arg(a, axis=d, keepdims=True)
    values = np.take_along_axis(a, idx, axis=d)
    if not keepdim:
        values, idx = np.squeeze(values, axis=d), np.squeeze(idx, axis=d)
    return _emit_pair(result_cls, values, idx, input.dtype, out, opname)


@tensor_method
def max(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Largest element; or ``(values, indices)`` along ``dim``; or, given a tensor
    ``other`` in place of ``dim``, the elementwise maximum.

    NaN propagates: a row holding NaN has max NaN and the NaN's index.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    >>> x.max().item()
    7.0
    >>> values, indices = cygrad.max(x, dim=1)
    >>> values.tolist(), indices.tolist()
    ([5.0, 7.0], [1, 0])
    >>> cygrad.max(x, cygrad.tensor(4.0)).tolist()
    [[4.0, 5.0, 4.0], [7.0, 4.0, 4.0]]
    """
    _check_tensor(input, "max")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _extreme(input, dim, keepdim, out, "max", np.max, np.argmax, _ew.maximum,
                    _MaxResult)


@tensor_method
def min(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Smallest element; or ``(values, indices)`` along ``dim``; or, given a tensor
    ``other`` in place of ``dim``, the elementwise minimum.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    >>> x.min().item()
    0.0
    >>> cygrad.min(x, 0).indices.tolist()
    [0, 1, 0]
    """
    _check_tensor(input, "min")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _extreme(input, dim, keepdim, out, "min", np.min, np.argmin, _ew.minimum,
                    _MinResult)


def _amax_amin(input, dim, keepdim, out, opname, np_reduce):
    dims = _dims(input, dim, opname)
    raw = dim if isinstance(dim, numbers.Integral) else None
    _check_nonempty(input, dims, opname, raw)
    with np.errstate(all="ignore"):
        res = np_reduce(_C._ndarray(input), axis=_axes(input, dims), keepdims=bool(keepdim))
    if out is not None and isinstance(out, TensorBase) and out.dtype != input.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got "
                           f"{_C._torch_type_name(input.dtype)} for input's dtype and "
                           f"{_C._torch_type_name(out.dtype)} for out's dtype.")
    return _emit(res, input.dtype, out, opname)


@tensor_method
def amax(input, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
    """Largest value over ``dim`` (an int or a tuple; ``()`` means every dim).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 5], [7, 0]])
    >>> cygrad.amax(x, 0).tolist()
    [7, 5]
    >>> x.amax((0, 1)).item()
    7
    """
    _check_tensor(input, "amax")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _amax_amin(input, dim, keepdim, out, "amax", np.max)


@tensor_method
def amin(input, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
    """Smallest value over ``dim`` (an int or a tuple; ``()`` means every dim).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.amin(cygrad.tensor([[1, 5], [7, 0]]), 1).tolist()
    [1, 0]
    """
    _check_tensor(input, "amin")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _amax_amin(input, dim, keepdim, out, "amin", np.min)


@tensor_method
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``(min, max)`` in one call, over ``dim`` or every element.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.aminmax(cygrad.tensor([3, 1, 4]))
    >>> r.min.item(), r.max.item()
    (1, 4)
    """
    _check_tensor(input, "aminmax")
    dims = None if dim is None else (_single_dim(input, dim, "aminmax"),)
    _check_nonempty(input, dims, "aminmax")
    a, axes = _C._ndarray(input), _axes(input, dims)
    with np.errstate(all="ignore"):
        lo = np.min(a, axis=axes, keepdims=bool(keepdim))
        hi = np.max(a, axis=axes, keepdims=bool(keepdim))
    if out is None:
        return _AminmaxResult(_wrap(lo, input.dtype), _wrap(hi, input.dtype))
    return _AminmaxResult(_emit(lo, input.dtype, out[0], "aminmax", exact=True),
                          _emit(hi, input.dtype, out[1], "aminmax", exact=True))


def _arg_extreme(input, dim, keepdim, out, opname, np_arg):
    if input.dtype == _dt.bool_:
        raise RuntimeError(f"{opname}(): does not support bool input")
    a = _C._ndarray(input)
    if dim is None:
        if input.numel() == 0:
            raise IndexError(f"{opname}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.")
        res = np.asarray(np_arg(a))
        if keepdim:
            res = res.reshape((1,) * input.dim())
        return _emit(res, _dt.int64, out, opname, exact=True)
    d = _single_dim(input, dim, opname)
    if input.dim() == 0:
        return _emit(np.zeros((), np.int64), _dt.int64, out, opname, exact=True)
    if input.shape[d] == 0:
        raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")
    return _emit(np_arg(a, axis=d, keepdims=bool(keepdim)), _dt.int64, out, opname, exact=True)


@tensor_method
def argmax(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Index of the largest element (of the flattened tensor when ``dim`` is None).

    The first maximum wins ties; a NaN counts as the maximum.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 9.0], [7.0, 3.0]])
    >>> x.argmax().item()
    1
    >>> cygrad.argmax(x, dim=0).tolist()
    [1, 0]
    """
    _check_tensor(input, "argmax")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _arg_extreme(input, dim, keepdim, out, "argmax", np.argmax)


@tensor_method
def argmin(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Index of the smallest element (of the flattened tensor when ``dim`` is None).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.argmin(cygrad.tensor([[1.0, 9.0], [7.0, 3.0]]), dim=1).tolist()
    [0, 1]
    """
    _check_tensor(input, "argmin")
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _arg_extreme(input, dim, keepdim, out, "argmin", np.argmin)


# ---------------------------------------------------------------------------
# variance and standard deviation
# ---------------------------------------------------------------------------
def _correction(opname, unbiased, correction):
    if unbiased is not None and correction is not None:
        raise TypeError(f"{opname}(): pass either 'unbiased' or 'correction', not both")
    if unbiased is not None:
        return 1 if unbiased else 0
    return 1 if correction is None else correction


def _var_and_mean(input, dim, unbiased, keepdim, correction, opname):
    """(variance, mean, dtype) as NumPy arrays in the accumulation dtype."""
    _check_tensor(input, opname)
    if isinstance(dim, bool):          # var(x, True): the legacy ``unbiased`` overload
        dim, unbiased = None, dim
    _require_float(input, opname, "std and var only support floating point and complex dtypes")
    corr = _correction(opname, unbiased, correction)
    dims = _dims(input, dim, opname)
    axes = _axes(input, dims)
    acc = _acc_np(input.dtype)
    n = _reduced_count(input, dims)
    if n - corr <= 0:
        warnings.warn(f"{opname}(): degrees of freedom is <= 0. Correction should be strictly "
                      f"less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    with np.errstate(all="ignore"):
        a = _C._ndarray(input)
        mu = np.sum(a, axis=axes, keepdims=True, dtype=acc) / acc.type(n)
        dev = a.astype(acc) - mu
        sq = np.sum(dev * dev, axis=axes, keepdims=bool(keepdim), dtype=acc)
        variance = sq / acc.type(_builtins.max(n - corr, 0))
    if not keepdim:
        mu = mu.reshape(variance.shape)
    return variance, mu, input.dtype


@tensor_method
def var(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None,
        axis=None, keepdims=None):
    """Variance over ``dim``: ``sum((x - mean)^2) / (N - correction)``.

    ``correction=1`` (the default) is Bessel's unbiased estimate, ``0`` the population
    variance; the legacy ``unbiased`` bool means ``correction = int(unbiased)``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])
    >>> cygrad.var(x, dim=1).tolist()
    [1.0, 4.0]
    >>> x.var(1, correction=0, keepdim=True).shape
    cygrad.Size([2, 1])
    """
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    v, _, dt = _var_and_mean(input, dim, unbiased, keepdim, correction, "var")
    return _emit(v, dt, out, "var")


@tensor_method
def std(input, dim=None, unbiased=None, keepdim=False, *, correction=None, out=None,
        axis=None, keepdims=None):
    """Standard deviation over ``dim``: the square root of ``var``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.std(cygrad.tensor([2.0, 4.0, 6.0])).item()
    2.0
    """
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    v, _, dt = _var_and_mean(input, dim, unbiased, keepdim, correction, "std")
    return _emit(np.sqrt(v), dt, out, "std")


def var_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one pass (a plain tuple, as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> v, m = cygrad.var_mean(cygrad.tensor([1.0, 2.0, 3.0]))
    >>> v.item(), m.item()
    (1.0, 2.0)
    """
    v, mu, dt = _var_and_mean(input, dim, unbiased, keepdim, correction, "var_mean")
    return _wrap(v, dt), _wrap(mu, dt)


def std_mean(input, dim=None, unbiased=None, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` (a plain tuple, as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> s, m = cygrad.std_mean(cygrad.tensor([2.0, 4.0, 6.0]))
    >>> s.item(), m.item()
    (2.0, 4.0)
    """
    v, mu, dt = _var_and_mean(input, dim, unbiased, keepdim, correction, "std_mean")
    return _wrap(np.sqrt(v), dt), _wrap(mu, dt)


# ---------------------------------------------------------------------------
# norms and logsumexp
# ---------------------------------------------------------------------------
@tensor_method
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector or matrix norm, as ``torch.norm``.

    ``p`` is a number (``inf``, ``-inf``, ``0`` counts nonzeros, any other value gives
    ``sum(|x|^p)^(1/p)``), ``'fro'`` (the 2-norm of the elements) or ``'nuc'`` (sum
    of singular values over a 2-tuple ``dim``, or of a 2-D input).  ``dtype``
    converts the input before computing.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[3.0, -4.0], [0.0, 0.0]])
    >>> x.norm().item()
    5.0
    >>> cygrad.norm(x, p=1, dim=1).tolist()
    [7.0, 0.0]
    >>> cygrad.norm(x, p=float("inf")).item()
    4.0
    """
    _check_tensor(input, "norm")
    dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
    if not (input.dtype.is_floating_point and dt.is_floating_point):
        bad = input.dtype if not input.dtype.is_floating_point else dt
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_C._torch_type_name(bad)}")
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if p == "nuc" or (dim is not None and not isinstance(dim, numbers.Integral)
                          and len(dim) > 2):
            return _matrix_norm(input, p, dim, keepdim, out, dt)
        p = 2
    dims = _dims(input, dim, "norm")
    axes = _axes(input, dims)
    p = float(p)
    if (p < 0 or math.isinf(p)) and _reduced_count(input, dims) == 0:
        where = "tensor" if dims is None else f"dimension {dim}"
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty "
                           f"{where} because the operation does not have an identity")
    acc = _acc_np(dt)
    keep = bool(keepdim)
    with np.errstate(all="ignore"):
        mag = np.abs(_C._ndarray(input).astype(acc, copy=False))
        if p == math.inf:
            res = np.max(mag, axis=axes, keepdims=keep, initial=0)
        elif p == -math.inf:
            res = np.min(mag, axis=axes, keepdims=keep)
        elif p == 0:
            res = np.sum(mag != 0, axis=axes, keepdims=keep, dtype=acc)
        elif p == 1:
            res = np.sum(mag, axis=axes, keepdims=keep, dtype=acc)
        elif p == 2:
            res = np.sqrt(np.sum(mag * mag, axis=axes, keepdims=keep, dtype=acc))
        else:
            res = np.sum(mag ** acc.type(p), axis=axes, keepdims=keep, dtype=acc) ** acc.type(1 / p)
    return _emit(res, dt, out, "norm", exact=True)


def _matrix_norm(input, p, dim, keepdim, out, dt):
    """'nuc' (and 'fro' given too many dims): norms over exactly two dims."""
    if dim is None:
        dim = (-2, -1) if input.dim() == 2 else tuple(range(input.dim()))
    if isinstance(dim, numbers.Integral) or len(dim) != 2:
        shown = " ".join(str(d) for d in ((dim,) if isinstance(dim, numbers.Integral) else dim))
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    dims = _dims(input, dim, "norm")
    if len(dims) != 2:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    a = _C._ndarray(input).astype(_acc_np(dt))
    res = np.linalg.norm(a, ord="nuc" if p == "nuc" else "fro", axis=dims, keepdims=bool(keepdim))
    return _emit(res, dt, out, "norm", exact=True)


@tensor_method
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed stably: the max is
    subtracted before ``exp`` and added back after ``log``.

    Integer inputs give the default float dtype; a row of only ``-inf`` gives
    ``-inf``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1000.0, 1000.0], dtype=cygrad.float64)
    >>> round(cygrad.logsumexp(x, 0).item(), 4)
    1000.6931
    """
    _check_tensor(input, "logsumexp")
    dims = _dims(input, dim, "logsumexp")
    dt = input.dtype if input.dtype.is_floating_point else _dt.get_default_dtype()
    if isinstance(out, TensorBase) and not out.dtype.is_floating_point:
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, "
                           f"but got: {_C._torch_type_name(out.dtype)}")
    acc = _acc_np(dt)
    axes = _axes(input, dims)
    with np.errstate(all="ignore"):
        a = _C._ndarray(input).astype(acc, copy=False)
        shift = np.max(a, axis=axes, keepdims=True, initial=-np.inf)
        # An infinite max cannot be subtracted (inf - inf is NaN); shift by 0 there.
        shift = np.where(np.isinf(shift), acc.type(0), shift)
        res = np.log(np.sum(np.exp(a - shift), axis=axes, keepdims=True)) + shift
    res = res.reshape(()) if axes is None and not keepdim else _squeeze(res, axes, keepdim)
    return _emit(res, dt, out, "logsumexp")


# ---------------------------------------------------------------------------
# boolean reductions and counting
# ---------------------------------------------------------------------------
def _all_any(input, dim, keepdim, out, opname, np_fn):
    _check_tensor(input, opname)
    dims = _dims(input, dim, opname)
    # uint8 keeps its dtype, a leftover of PyTorch's pre-bool days
    dt = _dt.uint8 if input.dtype == _dt.uint8 else _dt.bool_
    if isinstance(out, TensorBase) and out.dtype not in (_dt.bool_, _dt.uint8):
        raise RuntimeError(f"{opname} only supports bool tensor for result, got: "
                           f"{_C._torch_type_name(out.dtype)}")
    res = np_fn(_C._ndarray(input), axis=_axes(input, dims), keepdims=bool(keepdim))
    return _emit(res, dt, out, opname)


@tensor_method
def all(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """True when every element (over ``dim``) is nonzero; an empty reduction is True.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 0], [2, 3]])
    >>> cygrad.all(x).item()
    False
    >>> x.all(dim=1).tolist()
    [False, True]
    """
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _all_any(input, dim, keepdim, out, "all", np.all)


@tensor_method
def any(input, dim=None, keepdim=False, *, out=None, axis=None, keepdims=None):
    """True when some element (over ``dim``) is nonzero; an empty reduction is False.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[0, 0], [2, 0]])
    >>> x.any().item()
    True
    >>> cygrad.any(x, 1).tolist()
    [False, True]
    """
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    return _all_any(input, dim, keepdim, out, "any", np.any)


@tensor_method
def count_nonzero(input, dim=None):
    """Number of nonzero elements, over ``dim`` (int or tuple) or the whole tensor.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[0, 1, 2], [3, 0, 0]])
    >>> cygrad.count_nonzero(x).item()
    3
    >>> x.count_nonzero(dim=0).tolist()
    [1, 1, 1]
    """
    _check_tensor(input, "count_nonzero")
    dims = _dims(input, dim, "count_nonzero")
    a = _C._ndarray(input)
    res = np.count_nonzero(a, axis=_axes(input, dims))
    return _wrap(res, _dt.int64)


# ---------------------------------------------------------------------------
# scans
# ---------------------------------------------------------------------------
def _scan(input, dim, dtype, out, opname, np_scan):
    _check_tensor(input, opname)
    d = _single_dim(input, dim, opname)
    dt = _accumulate_dtype(input, dtype, out, opname)
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        a = _cast_input(_C._ndarray(input), acc)
        res = np_scan(a.reshape(1) if input.dim() == 0 else a, axis=d, dtype=acc)
    return _emit(res.reshape(input.shape), dt, out, opname)


@tensor_method
def cumsum(input, dim, *, dtype=None, out=None):
    """Running sum along ``dim``: ``out[i] = input[0] + ... + input[i]``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cumsum(cygrad.tensor([1, 2, 3, 4]), dim=0).tolist()
    [1, 3, 6, 10]
    """
    return _scan(input, dim, dtype, out, "cumsum", np.cumsum)


@tensor_method
def cumprod(input, dim, *, dtype=None, out=None):
    """Running product along ``dim``: ``out[i] = input[0] * ... * input[i]``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.0, 2.0, 3.0, 4.0]).cumprod(0).tolist()
    [1.0, 2.0, 6.0, 24.0]
    """
    return _scan(input, dim, dtype, out, "cumprod", np.cumprod)


# ---------------------------------------------------------------------------
# softmax
# ---------------------------------------------------------------------------
def _softmax_setup(input, dim, dtype, opname):
    """(float NumPy array to work on, dim, result dtype); warns on a missing dim."""
    _check_tensor(input, opname)
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
        warnings.warn(f"Implicit dimension choice for {opname} has been deprecated. Change "
                      f"the call to include dim=X as an argument.", UserWarning, stacklevel=3)
    d = _single_dim(input, dim, opname)
    dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{opname}_kernel_impl" not implemented for '
                                  f"'{_C._torch_type_name(dt)}'")
    a = _C._ndarray(input).astype(_acc_np(dt), copy=False)
    return (a.reshape(1) if input.dim() == 0 else a), d, dt


@tensor_method
def softmax(input, dim=None, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably (the max along ``dim``
    is subtracted first, so large inputs do not overflow).

    ``dtype`` converts the input first.  Leaving out ``dim`` warns and picks one
    the way PyTorch's old implicit rule did.

    Examples
    --------
    >>> import cygrad
    >>> p = cygrad.softmax(cygrad.tensor([[1000.0, 1000.0], [0.0, 0.0]]), dim=1)
    >>> p.tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    a, d, dt = _softmax_setup(input, dim, dtype, "softmax")
    with np.errstate(all="ignore"):
        e = np.exp(a - np.max(a, axis=d, keepdims=True, initial=-np.inf))
        res = e / np.sum(e, axis=d, keepdims=True)
    return _wrap(res.reshape(input.shape), dt)


@tensor_method
def log_softmax(input, dim=None, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably as
    ``(x - max) - log(sum(exp(x - max)))``.

    Examples
    --------
    >>> import cygrad
    >>> y = cygrad.log_softmax(cygrad.tensor([1000.0, 1000.0]), dim=0)
    >>> [round(v, 4) for v in y.tolist()]
    [-0.6931, -0.6931]
    """
    a, d, dt = _softmax_setup(input, dim, dtype, "log_softmax")
    with np.errstate(all="ignore"):
        shifted = a - np.max(a, axis=d, keepdims=True, initial=-np.inf)
        res = shifted - np.log(np.sum(np.exp(shifted), axis=d, keepdims=True))
    return _wrap(res.reshape(input.shape), dt)


# ---------------------------------------------------------------------------
# sorting and selection
# ---------------------------------------------------------------------------
def _sort_indices(a, d, descending):
    """Stable argsort of ``a`` along ``d`` (NaN sorts as the largest value).

    Descending keeps equal elements in their original order: sort the reversed
    array ascending, reverse the answer, and map positions back."""
    a = _float_view(a)
    if not descending:
        return np.argsort(a, axis=d, kind="stable")
    n = a.shape[d]
    rev = np.flip(a, axis=d)
    idx = np.flip(np.argsort(rev, axis=d, kind="stable"), axis=d)
    return (n - 1) - idx


def _as_1d(input):
    """The input's NumPy view, with a 0-d tensor seen as one element."""
    a = _C._ndarray(input)
    return a.reshape(1) if input.dim() == 0 else a


@tensor_method
def sort(input, dim=-1, descending=False, *, stable=False, out=None):
    """Sort along ``dim``; returns ``(values, indices)``.

    The sort is always stable (equal elements keep their order, also when
    ``descending``); NaN sorts as larger than every number.

    Examples
    --------
    >>> import cygrad
    >>> values, indices = cygrad.sort(cygrad.tensor([3, 1, 2, 1]))
    >>> values.tolist(), indices.tolist()
    ([1, 1, 2, 3], [1, 3, 2, 0])
    >>> cygrad.tensor([3, 1, 2]).sort(descending=True).values.tolist()
    [3, 2, 1]
    """
    _check_tensor(input, "sort")
    d = _single_dim(input, dim, "sort")
    a = _as_1d(input)
    idx = _sort_indices(a, d, descending)
    values = np.take_along_axis(a, idx, axis=d)
    return _emit_pair(_SortResult, values.reshape(input.shape), idx.reshape(input.shape),
                      input.dtype, out, "sort")


@tensor_method
def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim`` (stable, NaN last when ascending).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.argsort(cygrad.tensor([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    _check_tensor(input, "argsort")
    d = _single_dim(input, dim, "argsort")
    idx = _sort_indices(_as_1d(input), d, descending)
    return _wrap(idx.reshape(input.shape), _dt.int64)


def msort(input, *, out=None):
    """Sort along the first dim (values only).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.msort(cygrad.tensor([[2, 1], [1, 3]])).tolist()
    [[1, 1], [2, 3]]
    """
    _check_tensor(input, "msort")
    a = _as_1d(input)
    values = np.take_along_axis(a, _sort_indices(a, 0, False), axis=0)
    return _emit(values.reshape(input.shape), input.dtype, out, "msort", exact=True)


@tensor_method
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim``: ``(values, indices)``.

    Results come sorted (largest first when ``largest``); NaN counts as the
    largest value.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.topk(cygrad.tensor([1.0, 5.0, 3.0, 4.0]), 2)
    >>> r.values.tolist(), r.indices.tolist()
    ([5.0, 4.0], [1, 3])
    """
    _check_tensor(input, "topk")
    if input.dtype == _dt.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _single_dim(input, dim, "topk")
    a = _as_1d(input)
    if not isinstance(k, numbers.Integral) or not 0 <= k <= a.shape[d]:
        raise RuntimeError("selected index k out of range")
    idx = np.take(_sort_indices(a, d, largest), np.arange(k), axis=d)
    values = np.take_along_axis(a, idx, axis=d)
    if input.dim() == 0:
        values, idx = values.reshape(()), idx.reshape(())
    return _emit_pair(_TopkResult, values, idx, input.dtype, out, "topk")


def _no_bool(input, opname):
    if input.dtype == _dt.bool_:
        raise NotImplementedError(f'"{opname}_cpu" not implemented for \'Bool\'')


def _select_sorted(input, dim, keepdim, opname, pick):
    """Shared body of median/kthvalue: sort along ``dim`` and take the position
    ``pick(row_length, nan_count)`` (an int array, one per row) from each row."""
    d = _single_dim(input, dim, opname)
    a = _as_1d(input)
    if a.shape[d] == 0:
        raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")
    order = _sort_indices(a, d, False)
    nans = (np.sum(np.isnan(_float_view(a)), axis=d, keepdims=True)
            if input.dtype.is_floating_point else np.zeros(1, np.int64))
    pos = np.broadcast_to(pick(a.shape[d], nans), order.shape[:d] + (1,) + order.shape[d + 1:])
    idx = np.take_along_axis(order, pos, axis=d)
    values = np.take_along_axis(a, idx, axis=d)
    if input.dim() == 0 or not keepdim:
        shape = () if input.dim() == 0 else values.shape[:d] + values.shape[d + 1:]
        values, idx = values.reshape(shape), idx.reshape(shape)
    return values, idx


@tensor_method
def median(input, dim=None, keepdim=False, *, out=None):
    """The lower median (no averaging of the two middle values); with ``dim``,
    ``(values, indices)``.  NaN propagates: a row holding NaN has median NaN.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[4.0, 1.0, 3.0, 2.0], [5.0, 9.0, 7.0, 8.0]])
    >>> x.median().item()
    4.0
    >>> cygrad.median(x, dim=1).values.tolist()
    [2.0, 7.0]
    """
    _check_tensor(input, "median")
    _no_bool(input, "median")

    def middle(n, nans):
        # a NaN-holding row answers with its first NaN (sorted just after the numbers)
        return np.where(nans > 0, n - nans, (n - 1) // 2)

    if dim is None:
        if input.numel() == 0:
            return _emit(np.array(np.nan), input.dtype, out, "median")
        flat = input.reshape(-1)
        values, _ = _select_sorted(flat, 0, False, "median", middle)
        return _emit(values, input.dtype, out, "median", exact=True)
    values, idx = _select_sorted(input, dim, keepdim, "median", middle)
    return _emit_pair(_MedianResult, values, idx, input.dtype, out, "median")


@tensor_method
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element (1-based) along ``dim``: ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.kthvalue(cygrad.tensor([5.0, 1.0, 4.0, 2.0]), 2)
    >>> r.values.item(), r.indices.item()
    (2.0, 3)
    """
    _check_tensor(input, "kthvalue")
    _no_bool(input, "kthvalue")
    d = _single_dim(input, dim, "kthvalue")
    size = 1 if input.dim() == 0 else input.shape[d]
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not isinstance(k, numbers.Integral) or not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, idx = _select_sorted(input, d, keepdim, "kthvalue",
                                 lambda n, nans: np.asarray(k - 1))
    return _emit_pair(_KthvalueResult, values, idx, input.dtype, out, "kthvalue")


@tensor_method
def mode(input, dim=-1, keepdim=False, *, out=None):
    """Most frequent value along ``dim`` (the smallest among equally frequent ones)
    and the index of its last occurrence: ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.mode(cygrad.tensor([2, 1, 2, 1, 3]))
    >>> r.values.item(), r.indices.item()
    (1, 3)
    """
    _check_tensor(input, "mode")
    d = _single_dim(input, dim, "mode")
    a = _as_1d(input)
    if a.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    rows = np.moveaxis(_float_view(a), d, -1)
    flat = rows.reshape(-1, rows.shape[-1])
    values = np.empty(flat.shape[0], flat.dtype)
    indices = np.empty(flat.shape[0], np.int64)
    for r, row in enumerate(flat):
        uniq, inverse, counts = np.unique(row, return_inverse=True, return_counts=True)
        best = int(np.argmax(counts))
        values[r] = uniq[best]
        indices[r] = np.flatnonzero(inverse.reshape(-1) == best)[-1]
    shape = rows.shape[:-1]
    values, indices = values.reshape(shape), indices.reshape(shape)
    if keepdim and input.dim() > 0:
        values, indices = np.expand_dims(values, d), np.expand_dims(indices, d)
    return _emit_pair(_ModeResult, values, indices, input.dtype, out, "mode")


@tensor_method
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or, with ``dim``, distinct slices along ``dim``), in
    ascending order.

    ``return_inverse`` adds, for each input element, the index of its value in the
    result; ``return_counts`` adds how often each value occurs.  NaNs are all
    distinct, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> values, inverse, counts = cygrad.unique(cygrad.tensor([3, 1, 3, 2]),
    ...                                         return_inverse=True, return_counts=True)
    >>> values.tolist(), inverse.tolist(), counts.tolist()
    ([1, 2, 3], [2, 0, 2, 1], [1, 1, 2])
    """
    _check_tensor(input, "unique")
    a = _float_view(_C._ndarray(input))
    if dim is None:
        res = np.unique(a.reshape(-1), return_inverse=True, return_counts=True, equal_nan=False)
        inverse_shape = tuple(input.shape)
    else:
        d = _single_dim(input, dim, "unique")
        res = np.unique(a, return_inverse=True, return_counts=True, axis=d, equal_nan=False)
        inverse_shape = (input.shape[d],)
    values, inverse, counts = res
    result = [_wrap(values, input.dtype)]
    if return_inverse:
        result.append(_wrap(inverse.reshape(inverse_shape), _dt.int64))
    if return_counts:
        result.append(_wrap(counts, _dt.int64))
    return result[0] if len(result) == 1 else tuple(result)


# Tensor.sum/amax/amin/max/min have C fast paths in the core; every other case
# comes back to these functions.
_C._register_reduction("sum", _sum)
for _fn in (amax, amin, max, min):
    _C._register_reduction(_fn.__name__, _fn)
del _fn
