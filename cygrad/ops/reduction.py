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

Autograd: every differentiable op has its ``Function`` right below it (forward runs
the NumPy implementation, backward is written with cygrad ops so that it is itself
differentiable, jvp pushes a tangent forward).  The public function goes through
``Xxx.apply`` only when an input requires grad or carries a tangent
(``_C.needs_autograd``), so plain calls pay nothing.  Most backward formulas share
one idea: put the reduced dims back as size-1 dims (``_Reduced.unreduce``) and
broadcast the output's gradient over the elements that were reduced.
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
from ..autograd.function import Function, once_differentiable
from . import elementwise as _ew
from ._argcheck import bool_arg, check_scalar_fits, int_arg, int_list_arg

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


class _Unset:
    """The default of an argument whose absence PyTorch tells apart from an explicit
    None, because its overloads differ: ``max(x)`` is the whole tensor's max but
    ``max(x, None)`` matches no overload; ``var(x, unbiased=False, out=o)`` is refused
    but ``var(x, None, False, out=o)`` is not.  It means what None means."""
    __slots__ = ()

    def __repr__(self):
        return "None"       # what help() should say leaving the argument out means


_UNSET = _Unset()


def _alias(value, alias):
    """Resolve a NumPy alias (``axis``/``keepdims``) against PyTorch's name."""
    return value if alias is None else alias


def _keepdim(value, opname):
    """``keepdim`` must be a Python bool (PyTorch refuses 1, None, ...)."""
    return value if value is True or value is False else bool_arg(value, opname, "keepdim")


def _parse_dims(dim, opname):
    """``dim`` checked as PyTorch's parser checks it, before the op looks at the
    input: an int, or a tuple/list of ints (returned as a tuple), or None.

    PyTorch reads a bool after the first element of a dim list as an int (only the
    first element decides which overload matches)."""
    if dim is None:
        return None
    if isinstance(dim, (tuple, list)):
        if len(dim) > 1 and _builtins.any(type(d) is bool for d in dim[1:]):
            dim = (dim[0],) + tuple(int(d) if type(d) is bool else d for d in dim[1:])
        return int_list_arg(dim, opname, "dim", allow_int=False)
    return int_arg(dim, opname, "dim")


def _wrap_dims(input, dim):
    """Parsed ``dim`` as a sorted tuple of wrapped ints, or None for "all dims" (an
    empty tuple/list also means every dim, as in PyTorch)."""
    if dim is None:
        return None
    if type(dim) is not tuple:
        return (_C._wrap(dim, input.dim()),)
    if not dim:
        return None
    dims = [_C._wrap(d, input.dim()) for d in dim]
    for d in dims:
        if dims.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return tuple(sorted(dims))


def _dims(input, dim, opname):
    """Reduction dims as a sorted tuple of wrapped ints, or None for "all dims"."""
    return _wrap_dims(input, _parse_dims(dim, opname))




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
    return _C._wrap(int_arg(dim, opname, "dim"), input.dim())


def _squeeze(arr, dims, keepdim):
    """Drop kept reduction dims unless ``keepdim``."""
    if keepdim or dims is None:
        return arr
    return np.squeeze(arr, axis=dims)


# ---------------------------------------------------------------------------
# autograd helpers shared by the backward formulas
# ---------------------------------------------------------------------------
def _no_out(out, opname):
    """PyTorch refuses ``out=`` when autograd would have to record the op."""
    if out is not None:
        raise RuntimeError(f"{opname}(): functions with out=... arguments don't support "
                           f"automatic differentiation, but one of the arguments requires grad.")


def _saved(ctx):
    """The tensors ``forward`` saved.  ``jvp`` runs before the node is recorded, while
    they still sit in ``ctx._to_save``; ``backward`` reads ``ctx.saved_tensors`` (which
    checks them for in-place changes)."""
    return ctx._to_save if ctx._to_save is not None else ctx.saved_tensors


def _rest(ctx, grad):
    """``grad`` for the first forward argument, None for all the others."""
    return (grad,) + (None,) * (len(ctx.needs_input_grad) - 1)


class _Reduced:
    """How a reduction's output lines up with its input, for backward and jvp.

    ``dims`` are the reduced dims (all of them for a full reduction, none for a 0-d
    input); ``keepdim`` says whether the output kept them as size-1 dims.
    """
    __slots__ = ("shape", "dims", "keepdim")

    def __init__(self, input, dims, keepdim):
        self.shape = tuple(input.shape)
        ndim = len(self.shape)
        self.dims = () if ndim == 0 else tuple(range(ndim)) if dims is None else tuple(sorted(dims))
        self.keepdim = bool(keepdim)

    @property
    def count(self):
        """How many input elements fold into each output element."""
        return math.prod(self.shape[d] for d in self.dims)

    @property
    def axes(self):
        """The reduced dims as a ``dim``/``axis`` argument (None: every dim)."""
        return self.dims or None

    def unreduce(self, t):
        """An output-shaped tensor with the reduced dims put back as size-1 dims, so
        that it broadcasts against the input."""
        if not self.keepdim:
            for d in self.dims:
                t = t.unsqueeze(d)
        return t

    def expand(self, t):
        """An output-shaped tensor broadcast to the input's shape (a view, no copy)."""
        return self.unreduce(t).expand(self.shape)

    def sum(self, t):
        """Sum an input-shaped tensor over the reduced dims, as the forward reduced."""
        return sum(t, self.axes, self.keepdim)

    def unreduce_np(self, a):
        """``unreduce`` for a NumPy array holding the output's values."""
        return np.reshape(a, tuple(1 if d in self.dims else n for d, n in enumerate(self.shape)))

    def _order(self):
        return [d for d in range(len(self.shape)) if d not in self.dims] + list(self.dims)

    def rows(self, t):
        """An input-shaped tensor with the reduced dims moved last and merged into one
        dim: shape ``(kept dims..., count)``."""
        order = self._order()
        kept = tuple(self.shape[d] for d in order[:len(order) - len(self.dims)])
        return t.permute(order).reshape(kept + (self.count,))

    def unrows(self, r):
        """The inverse of ``rows``."""
        order = self._order()
        r = r.reshape(tuple(self.shape[d] for d in order))
        return r.permute([order.index(d) for d in range(len(order))])


def _const(arr, dt):
    """A constant tensor (no history) of cygrad dtype ``dt`` holding NumPy ``arr``."""
    return _wrap(arr, dt)


def _tie_weights(x, result, red, nan_ties=True):
    """Weights splitting a max/min-style gradient evenly among ties: ``1/k`` at each
    of the ``k`` elements of a slice equal to the slice's result, 0 elsewhere, as
    PyTorch does.  A NaN result matches the NaN elements when ``nan_ties``; otherwise
    (PyTorch's amax/amin) nothing matches it and the slice's weights are NaN."""
    a = _float_view(_C._ndarray(x))
    r = red.unreduce_np(_float_view(_C._ndarray(result)))
    with np.errstate(invalid="ignore"):
        hit = (a == r) | (np.isnan(a) & np.isnan(r)) if nan_ties else a == r
        weights = hit / np.sum(hit, axis=red.axes, keepdims=True)
    return _const(weights, x.dtype)


def _flip(t, d):
    """``t`` reversed along dim ``d`` as a view (a negative stride), so autograd
    sees an ordinary view."""
    n = t.shape[d]
    if n <= 1:
        return t
    strides = list(t.stride())
    offset = t.storage_offset() + (n - 1) * strides[d]
    strides[d] = -strides[d]
    return t.as_strided(tuple(t.shape), tuple(strides), offset)


def _rev_cumsum(t, d):
    """``out[i] = t[i] + t[i+1] + ...`` along ``d``: the adjoint of ``cumsum``."""
    return _flip(cumsum(_flip(t, d), d), d)


class _GatherAlong(Function):
    """``out[..., j, ...] = x[..., idx[..., j, ...], ...]`` along dim ``d``: the elements
    a sort/topk/max(dim) picked.  Linear in ``x``; ``_ScatterAlong`` is its adjoint."""
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, idx, d):
        ctx.save_for_backward(idx)
        ctx.d, ctx.shape = d, tuple(x.shape)
        return _wrap(np.take_along_axis(_C._ndarray(x), _C._ndarray(idx), axis=d), x.dtype)

    @staticmethod
    def backward(ctx, grad):
        idx, = ctx.saved_tensors
        return _ScatterAlong.apply(grad, idx, ctx.d, ctx.shape), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _GatherAlong.apply(t, _saved(ctx)[0], ctx.d)


class _ScatterAlong(Function):
    """Zeros of ``shape`` with ``src`` written at ``idx`` along dim ``d``.  The indices
    are distinct within each slice (they come from a sort or an arg-extreme), so this
    is exactly the adjoint of ``_GatherAlong``."""
    _node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, src, idx, d, shape):
        ctx.save_for_backward(idx)
        ctx.d, ctx.shape = d, shape
        out = np.zeros(shape, np.dtype(src.dtype.np_dtype))
        np.put_along_axis(out, _C._ndarray(idx), _C._ndarray(src), axis=d)
        return _wrap(out, src.dtype)

    @staticmethod
    def backward(ctx, grad):
        idx, = ctx.saved_tensors
        return _GatherAlong.apply(grad, idx, ctx.d), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _ScatterAlong.apply(t, _saved(ctx)[0], ctx.d, ctx.shape)


class _Selection(Function):
    """Base of the ops whose values are elements of the input picked at ``indices``
    along one dim (max/min with dim, sort, topk, median/kthvalue/mode with dim): each
    value's gradient goes back to the element it came from; the indices are not
    differentiable.

    A subclass's ``forward`` computes ``(values, indices)`` and calls ``_selected``.
    """

    @staticmethod
    def _selected(ctx, input, values, indices, d, squeezed):
        """Record what backward needs and return the outputs; ``squeezed`` means the
        output dropped dim ``d`` (a reduction without keepdim)."""
        ctx.mark_non_differentiable(indices)
        ctx.save_for_backward(indices)
        ctx.d, ctx.shape, ctx.squeezed = d, tuple(input.shape), squeezed and input.dim() > 0
        return values, indices

    @staticmethod
    def _kept(ctx, t):
        return t.unsqueeze(ctx.d) if ctx.squeezed else t

    @staticmethod
    def backward(ctx, grad, *unused):
        if not ctx.shape:                       # a 0-d input is its own single value
            return _rest(ctx, grad)
        idx, = ctx.saved_tensors
        kept = _Selection._kept
        return _rest(ctx, _ScatterAlong.apply(kept(ctx, grad), kept(ctx, idx), ctx.d, ctx.shape))

    @staticmethod
    def jvp(ctx, t, *unused):
        if not ctx.shape:
            return t, None
        idx = _Selection._kept(ctx, _saved(ctx)[0])
        values = _GatherAlong.apply(t, idx, ctx.d)
        return (values.squeeze(ctx.d) if ctx.squeezed else values), None


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
    dim, keepdim = _alias(dim, axis), _keepdim(_alias(keepdim, keepdims), "sum")
    if out is None:
        # Through the method so cygrad.sum(x) and x.sum() share the C fast path (and
        # its rounding); the method comes back to _sum_entry for everything else.
        return TensorBase.sum(input, dim, keepdim, dtype=dtype)
    return _sum_entry(input, dim, keepdim, dtype, out)


def _sum_entry(input, dim=None, keepdim=False, dtype=None, out=None):
    """``sum`` when the core's C fast path does not apply (registered with the core)."""
    _keepdim(keepdim, "sum")
    if _C.needs_autograd(input):
        _no_out(out, "sum")
        if dim is None and not keepdim and dtype is None:
            return SumAll.apply(input)
        return (Sum if dim is None else SumDim).apply(input, dim, keepdim, dtype)
    return _sum(input, dim, keepdim, dtype, out)


def _sum(input, dim=None, keepdim=False, dtype=None, out=None):
    """The NumPy implementation behind ``sum``."""
    dims = _dims(input, dim, "sum")
    dt = _accumulate_dtype(input, dtype, out, "sum")
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        a = _cast_input(_C._ndarray(input), acc)
        res = np.sum(a, axis=_axes(input, dims), keepdims=bool(keepdim), dtype=acc)
    return _emit(res, dt, out, "sum")


class Sum(Function):
    """Every summed element has derivative 1: its gradient is the output's gradient,
    broadcast back over the summed dims."""
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim, dtype):
        ctx.red, ctx.dtype = _Reduced(input, _dims(input, dim, "sum"), keepdim), dtype
        if dtype is None:
            return input.sum(dim, keepdim)   # the core's C kernel where it applies
        return _sum(input, dim, keepdim, dtype)

    @staticmethod
    def backward(ctx, grad):
        return ctx.red.expand(grad), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return sum(t, ctx.red.axes, ctx.red.keepdim, dtype=ctx.dtype)


class SumAll(Function):
    """``x.sum()``: the gradient of every element is the output's gradient."""
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, input):
        ctx.shape = input.shape
        return input.sum()

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)

    @staticmethod
    def jvp(ctx, t):
        return t.sum()


_C._set_sum_all_function(SumAll)


class SumDim(Sum):
    """``sum`` over given dims (PyTorch's second overload, hence the node's name)."""
    _node_name = "SumBackward1"


def _not_nan(x):
    """1 where ``x`` is a number, 0 where it is NaN (a constant of x's dtype)."""
    return _const(~np.isnan(_float_view(_C._ndarray(x))), x.dtype)


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
    _keepdim(keepdim, "nansum")
    if _C.needs_autograd(input):
        _no_out(out, "nansum")
        return Nansum.apply(input, dim, keepdim, dtype)
    return _nansum(input, dim, keepdim, dtype, out)


def _nansum(input, dim, keepdim, dtype, out=None):
    dims = _dims(input, dim, "nansum")
    dt = _accumulate_dtype(input, dtype, out, "nansum")
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        # (NumPy's NaN test skips ml_dtypes' bfloat16, hence the float32 view)
        a = _cast_input(_float_view(_C._ndarray(input)), acc)
        res = np.nansum(a, axis=_axes(input, dims), keepdims=bool(keepdim), dtype=acc)
    return _emit(res, dt, out, "nansum")


class Nansum(Function):
    """Like ``sum``, but a NaN element (counted as 0) gets no gradient."""
    _node_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim, dtype):
        ctx.red = _Reduced(input, _dims(input, dim, "nansum"), keepdim)
        ctx.save_for_backward(input)
        return _nansum(input, dim, keepdim, dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx.red.expand(grad) * _not_nan(x), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return ctx.red.sum(t * _not_nan(_saved(ctx)[0]))


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
    dim, keepdim = _parse_dims(_alias(dim, axis), "mean"), _keepdim(_alias(keepdim, keepdims), "mean")
    _mean_dtype(input, dtype, "mean")       # PyTorch checks the dtype before the dims
    if _C.needs_autograd(input):
        _no_out(out, "mean")
        return (Mean if dim is None else MeanDim).apply(input, dim, keepdim, dtype)
    return _mean(input, dim, keepdim, dtype, out)


def _mean(input, dim, keepdim, dtype, out=None):
    dims = _dims(input, dim, "mean")
    dt = _mean_dtype(input, dtype, "mean")
    acc = _acc_np(dt)
    n = _reduced_count(input, dims)
    with np.errstate(all="ignore"):
        total = np.sum(_C._ndarray(input), axis=_axes(input, dims), keepdims=bool(keepdim),
                       dtype=acc)
        res = total / acc.type(n) if n else np.full_like(total, np.nan)
    return _emit(res, dt, out, "mean")


class Mean(Function):
    """Each element contributes ``1/n`` of the mean of its ``n``-element slice."""
    _node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim, dtype):
        ctx.red, ctx.dtype = _Reduced(input, _dims(input, dim, "mean"), keepdim), dtype
        return _mean(input, dim, keepdim, dtype)

    @staticmethod
    def backward(ctx, grad):
        return ctx.red.expand(grad / ctx.red.count), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return mean(t, ctx.red.axes, ctx.red.keepdim, dtype=ctx.dtype)


class MeanDim(Mean):
    """``mean`` over given dims (PyTorch's second overload)."""
    _node_name = "MeanBackward1"


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
    dim, keepdim = _parse_dims(dim, "nanmean"), _keepdim(keepdim, "nanmean")
    _mean_dtype(input, dtype, "nanmean")
    if _C.needs_autograd(input):
        _no_out(out, "nanmean")
        return Nanmean.apply(input, dim, keepdim, dtype)
    return _nanmean(input, dim, keepdim, dtype, out)


def _nanmean(input, dim, keepdim, dtype, out=None):
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


class Nanmean(Function):
    """Each number in a slice with ``k`` numbers contributes ``1/k``; NaNs nothing."""
    _node_name = "NanmeanBackward0"

    @staticmethod
    def _weights(x, red):
        valid = ~np.isnan(_float_view(_C._ndarray(x)))
        with np.errstate(all="ignore"):     # an all-NaN slice: 0/0, NaN as in PyTorch
            return _const(valid / np.sum(valid, axis=red.axes, keepdims=True), x.dtype)

    @staticmethod
    def forward(ctx, input, dim, keepdim, dtype):
        ctx.red = _Reduced(input, _dims(input, dim, "nanmean"), keepdim)
        ctx.save_for_backward(input)
        return _nanmean(input, dim, keepdim, dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx.red.unreduce(grad) * Nanmean._weights(x, ctx.red), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return ctx.red.sum(t * Nanmean._weights(_saved(ctx)[0], ctx.red))


@tensor_method
def prod(input, dim=None, keepdim=False, *, dtype=None, out=None, axis=None, keepdims=None):
    """Product of all elements, or over ``dim``.

    Bool and integer tensors multiply into int64; an empty product is 1.
    ``dim`` is a single int, as in PyTorch.

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
    dim, keepdim = _alias(dim, axis), _keepdim(_alias(keepdim, keepdims), "prod")
    if dim is not None:
        dim = int_arg(dim, "prod", "dim")   # PyTorch's prod has no dim-list overload
    if _C.needs_autograd(input):
        _no_out(out, "prod")
        return (Prod if dim is None else ProdDim).apply(input, dim, keepdim, dtype)
    return _prod(input, dim, keepdim, dtype, out)


def _prod(input, dim, keepdim, dtype, out=None):
    dims = _dims(input, dim, "prod")
    dt = _accumulate_dtype(input, dtype, out, "prod")
    acc = _acc_np(dt)
    with np.errstate(all="ignore"):
        a = _cast_input(_C._ndarray(input), acc)
        res = np.prod(a, axis=_axes(input, dims), keepdims=bool(keepdim), dtype=acc)
    return _emit(res, dt, out, "prod")


def _omit_each(r):
    """``(..., n) -> (..., n, n)``: row ``k`` is ``r`` with its element ``k`` replaced
    by 1 (differentiable; used where zeros rule out dividing by an element)."""
    eye = _const(np.eye(r.shape[-1]), r.dtype)
    return r.unsqueeze(-2) * (1 - eye) + eye


def _np_exclusive_products(rows):
    """Product of all the other elements along the last axis, without dividing:
    (product of those before) * (product of those after)."""
    ones = np.ones(rows.shape[:-1] + (1,), rows.dtype)
    before = np.cumprod(np.concatenate([ones, rows[..., :-1]], axis=-1), axis=-1)
    after = np.cumprod(np.concatenate([ones, rows[..., :0:-1]], axis=-1), axis=-1)[..., ::-1]
    return before * after


def _prod_others(x, result, red):
    """For each element of ``x``, the product of the other elements of its slice: the
    derivative of ``prod``.

    Without zeros it is ``result / x``.  With zeros (one zero: only that element gets
    a nonzero derivative; two or more: none does) it is computed directly: in NumPy,
    or, when the formula must itself be differentiable (double backward), as the
    product of each slice with one element at a time replaced by 1 (O(n^2) memory,
    as PyTorch does in that case).
    """
    if not red.dims:                            # 0-d input: prod(x) = x
        return _const(np.ones(()), x.dtype)
    if not (_C._ndarray(x) == 0).any():
        return red.unreduce(result) / x
    if _C.is_grad_enabled() and x.requires_grad:
        return red.unrows(prod(_omit_each(red.rows(x)), -1))
    rows = _C._ndarray(red.rows(x)).astype(_acc_np(x.dtype))
    return red.unrows(_const(_np_exclusive_products(rows), x.dtype))


class Prod(Function):
    """The derivative of a product by one factor is the product of the others."""
    _node_name = "ProdBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim, dtype):
        ctx.red = _Reduced(input, _dims(input, dim, "prod"), keepdim)
        result = _prod(input, dim, keepdim, dtype)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        return ctx.red.unreduce(grad) * _prod_others(x, result, ctx.red), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        return ctx.red.sum(t * _prod_others(x, result, ctx.red))


class ProdDim(Prod):
    """``prod`` over a dim (PyTorch's second overload)."""
    _node_name = "ProdBackward1"


# ---------------------------------------------------------------------------
# extremes
# ---------------------------------------------------------------------------
_EXTREME_NP = {"max": (np.max, np.argmax, _MaxResult), "min": (np.min, np.argmin, _MinResult)}


def _extreme(input, dim, keepdim, out, opname):
    """The NumPy implementation of max/min (no ``other``): the whole tensor's extreme,
    or ``(values, indices)`` along ``dim``."""
    np_reduce, np_arg, result_cls = _EXTREME_NP[opname]
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


def _no_overload(opname, args):
    """PyTorch's error for arguments that match none of an op's overloads."""
    got = ", ".join(type(a).__name__ for a in args)
    return TypeError(f"{opname}() received an invalid combination of arguments - got ({got})")


def _extreme_entry(input, dim, keepdim, out, opname):
    """Shared body of max/min: the three PyTorch call forms, with or without autograd."""
    if dim is _UNSET or isinstance(dim, TensorBase):
        if keepdim is not False:                # only max(input, dim) takes keepdim
            raise _no_overload(opname, (input, dim, keepdim))
        if dim is _UNSET:
            dim = None
    elif dim is None:
        raise _no_overload(opname, (input, dim))
    else:
        bool_arg(keepdim, opname, "keepdim")
    if isinstance(dim, TensorBase):
        # max(input, other): elementwise maximum/minimum with broadcasting
        other_fn = _ew.maximum if opname == "max" else _ew.minimum
        return other_fn(input, dim, out=out)
    if not _C.needs_autograd(input):
        return _extreme(input, dim, keepdim, out, opname)
    _no_out(out, opname)
    whole, along = (MaxAll, MaxDim) if opname == "max" else (MinAll, MinDim)
    if dim is None:
        return whole.apply(input)
    return _EXTREME_NP[opname][2](*along.apply(input, dim, keepdim))


@tensor_method
def max(input, dim=_UNSET, keepdim=False, *, out=None, axis=None, keepdims=None):
    """Largest element; or ``(values, indices)`` along ``dim``; or, given a tensor
    ``other`` in place of ``dim``, the elementwise maximum.

    NaN propagates: a row holding NaN has max NaN and the NaN's index.  Gradients:
    ``max()`` splits its gradient evenly among tied maxima; along ``dim`` it goes to
    the element at ``indices``.

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
    return _extreme_entry(input, dim, keepdim, out, "max")


@tensor_method
def min(input, dim=_UNSET, keepdim=False, *, out=None, axis=None, keepdims=None):
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
    return _extreme_entry(input, dim, keepdim, out, "min")


class _TieSplit(Function):
    """Base of the reductions whose result is an element of its slice picked by value
    (amax/amin, max()/min(), median()): the gradient is split evenly among the
    elements equal to the result (ties), as PyTorch does.

    A subclass's ``forward`` computes the result and returns ``_chosen(...)``.
    """

    @staticmethod
    def _chosen(ctx, input, dims, keepdim, result, nan_ties=True):
        ctx.red, ctx.nan_ties = _Reduced(input, dims, keepdim), nan_ties
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        weights = _tie_weights(x, result, ctx.red, ctx.nan_ties)
        return _rest(ctx, ctx.red.unreduce(grad) * weights)

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        return ctx.red.sum(t * _tie_weights(x, result, ctx.red, ctx.nan_ties))


class MaxAll(_TieSplit):
    """``max()`` of the whole tensor."""
    _node_name = "MaxBackward1"

    @staticmethod
    def forward(ctx, input):
        return MaxAll._chosen(ctx, input, None, False, _extreme(input, None, False, None, "max"))


class MinAll(_TieSplit):
    """``min()`` of the whole tensor."""
    _node_name = "MinBackward1"

    @staticmethod
    def forward(ctx, input):
        return MinAll._chosen(ctx, input, None, False, _extreme(input, None, False, None, "min"))


class MaxDim(_Selection):
    """``max(dim)``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "MaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        values, indices = _extreme(input, dim, keepdim, None, "max")
        d = _single_dim(input, dim, "max")
        return MaxDim._selected(ctx, input, values, indices, d, not keepdim)


class MinDim(_Selection):
    """``min(dim)``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "MinBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        values, indices = _extreme(input, dim, keepdim, None, "min")
        d = _single_dim(input, dim, "min")
        return MinDim._selected(ctx, input, values, indices, d, not keepdim)


def _amax_amin(input, dim, keepdim, out, opname):
    np_reduce = np.max if opname == "amax" else np.min
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


def _amax_amin_entry(input, dim, keepdim, out, opname):
    dim, keepdim = _parse_dims(dim, opname), _keepdim(keepdim, opname)
    if _C.needs_autograd(input):
        _no_out(out, opname)
        return (Amax if opname == "amax" else Amin).apply(input, dim, keepdim)
    return _amax_amin(input, dim, keepdim, out, opname)


@tensor_method
def amax(input, dim=(), keepdim=False, *, out=None, axis=None, keepdims=None):
    """Largest value over ``dim`` (an int or a tuple; ``()`` means every dim).

    The gradient is split evenly among tied maxima.

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
    return _amax_amin_entry(input, dim, keepdim, out, "amax")


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
    return _amax_amin_entry(input, dim, keepdim, out, "amin")


class Amax(_TieSplit):
    """``amax``: the gradient is shared evenly by the tied maxima of each slice."""
    _node_name = "AmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        result = _amax_amin(input, dim, keepdim, None, "amax")
        return Amax._chosen(ctx, input, _dims(input, dim, "amax"), keepdim, result, False)


class Amin(_TieSplit):
    """``amin``: the gradient is shared evenly by the tied minima of each slice."""
    _node_name = "AminBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        result = _amax_amin(input, dim, keepdim, None, "amin")
        return Amin._chosen(ctx, input, _dims(input, dim, "amin"), keepdim, result, False)


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
    _keepdim(keepdim, "aminmax")
    if _C.needs_autograd(input):
        _no_out(out, "aminmax")
        return _AminmaxResult(*Aminmax.apply(input, dim, keepdim))
    lo, hi = _aminmax(input, dim, keepdim)
    if out is None:
        return _AminmaxResult(_wrap(lo, input.dtype), _wrap(hi, input.dtype))
    return _AminmaxResult(_emit(lo, input.dtype, out[0], "aminmax", exact=True),
                          _emit(hi, input.dtype, out[1], "aminmax", exact=True))


def _aminmax(input, dim, keepdim):
    """(min, max) as NumPy arrays."""
    dims = None if dim is None else (_single_dim(input, dim, "aminmax"),)
    _check_nonempty(input, dims, "aminmax")
    a, axes = _C._ndarray(input), _axes(input, dims)
    with np.errstate(all="ignore"):
        return (np.min(a, axis=axes, keepdims=bool(keepdim)),
                np.max(a, axis=axes, keepdims=bool(keepdim)))


class Aminmax(Function):
    """Both results split their gradients among their ties, like amin and amax."""
    _node_name = "AminmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        lo, hi = (_wrap(r, input.dtype) for r in _aminmax(input, dim, keepdim))
        dims = None if dim is None else (_single_dim(input, dim, "aminmax"),)
        ctx.red = _Reduced(input, dims, keepdim)
        ctx.save_for_backward(input, lo, hi)
        return lo, hi

    @staticmethod
    def backward(ctx, grad_min, grad_max):
        x, lo, hi = ctx.saved_tensors
        red = ctx.red
        return (red.unreduce(grad_min) * _tie_weights(x, lo, red, False)
                + red.unreduce(grad_max) * _tie_weights(x, hi, red, False)), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, lo, hi = _saved(ctx)
        red = ctx.red
        return (red.sum(t * _tie_weights(x, lo, red, False)),
                red.sum(t * _tie_weights(x, hi, red, False)))


def _arg_extreme(input, dim, keepdim, out, opname, np_arg):
    _keepdim(keepdim, opname)
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
def _correction(opname, correction):
    """``correction`` as a number (any real; an int must fit PyTorch's Scalar)."""
    if correction is None:
        return 1
    if isinstance(correction, numbers.Integral):
        return int(check_scalar_fits(correction, _dt.float64))
    if isinstance(correction, numbers.Complex):
        return correction.real
    raise TypeError(f"{opname}(): argument 'correction' must be Number, not "
                    f"{type(correction).__name__}")


def _var_args(input, dim, unbiased, correction, keepdim, out, opname):
    """``(dims, correction, keepdim)`` from var/std's arguments, refused where they
    match none of PyTorch's three overloads: ``(dim, unbiased, keepdim, out)``,
    ``(dim=None, *, correction, keepdim, out)`` and the legacy ``(unbiased)``."""
    _check_tensor(input, opname)
    if isinstance(dim, bool):          # var(x, True): the legacy ``unbiased`` overload
        if unbiased is not _UNSET or correction is not None or keepdim is not False \
                or out is not None:
            raise _no_overload(opname, (input, dim, unbiased, keepdim))
        dim, unbiased = None, dim
    elif unbiased is not _UNSET:
        bool_arg(unbiased, opname, "unbiased")
        if correction is not None:
            raise TypeError(f"{opname}(): pass either 'unbiased' or 'correction', not both")
        if dim is _UNSET and (keepdim is not False or out is not None):
            # without dim only the legacy (input, unbiased) form takes unbiased
            raise _no_overload(opname, (input, unbiased, keepdim))
    dim = _parse_dims(None if dim is _UNSET else dim, opname)
    keepdim = _keepdim(keepdim, opname)
    corr = (1 if unbiased else 0) if unbiased is not _UNSET else _correction(opname, correction)
    _require_float(input, opname, f"{opname} only support floating point and complex dtypes"
                   if opname.endswith("_mean") else
                   "std and var only support floating point and complex dtypes")
    return _wrap_dims(input, dim), corr, keepdim


def _var_and_mean(input, dims, corr, keepdim, opname):
    """(variance, mean) as NumPy arrays in the accumulation dtype."""
    axes = _axes(input, dims)
    acc = _acc_np(input.dtype)
    n = _reduced_count(input, dims)
    dof = n - corr
    if not dof > 0:             # also a NaN correction: no degrees of freedom, as PyTorch
        dof = 0
        warnings.warn(f"{opname}(): degrees of freedom is <= 0. Correction should be strictly "
                      f"less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=3)
    with np.errstate(all="ignore"):
        a = _C._ndarray(input)
        mu = np.sum(a, axis=axes, keepdims=True, dtype=acc) / acc.type(n)
        dev = a.astype(acc) - mu
        sq = np.sum(dev * dev, axis=axes, keepdims=bool(keepdim), dtype=acc)
        variance = sq / acc.type(dof)
    if not keepdim:
        mu = mu.reshape(variance.shape)
    return variance, mu


def _var_backward(grad, x, red, corr):
    """Gradient of the variance: ``2 (x_i - mean) / (n - correction)`` per element,
    times the output's gradient (written with cygrad ops: twice differentiable)."""
    dof = red.count - corr
    centered = x - mean(x, red.axes, keepdim=True)
    return red.unreduce(grad) * centered * (2.0 / dof if dof else math.inf)


def _var_jvp(t, x, red, corr):
    dof = red.count - corr
    centered = x - mean(x, red.axes, keepdim=True)
    return red.sum(centered * t) * (2.0 / dof if dof else math.inf)


def _over_twice(grad, std):
    """``grad / (2 std)``, taken as 0 where ``std`` is 0 (a constant slice has no
    direction to move in: PyTorch's choice too)."""
    zero = _const(_C._ndarray(std) == 0, std.dtype)
    return grad / (2 * (std + zero)) * (1 - zero)


@tensor_method
def var(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None, out=None,
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
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, out, "var")
    if _C.needs_autograd(input):
        _no_out(out, "var")
        return Var.apply(input, dims, corr, keepdim)
    v, _ = _var_and_mean(input, dims, corr, keepdim, "var")
    return _emit(v, input.dtype, out, "var")


class Var(Function):
    """``var``; see ``_var_backward``."""
    _node_name = "VarBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        ctx.save_for_backward(input)
        return _wrap(_var_and_mean(input, dims, corr, keepdim, "var")[0], input.dtype)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return _var_backward(grad, x, ctx.red, ctx.corr), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _var_jvp(t, _saved(ctx)[0], ctx.red, ctx.corr)


@tensor_method
def std(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None, out=None,
        axis=None, keepdims=None):
    """Standard deviation over ``dim``: the square root of ``var``.

    Its gradient is taken as 0 where the result is 0.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.std(cygrad.tensor([2.0, 4.0, 6.0])).item()
    2.0
    """
    dim, keepdim = _alias(dim, axis), _alias(keepdim, keepdims)
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, out, "std")
    if _C.needs_autograd(input):
        _no_out(out, "std")
        return Std.apply(input, dims, corr, keepdim)
    v, _ = _var_and_mean(input, dims, corr, keepdim, "std")
    return _emit(np.sqrt(v), input.dtype, out, "std")


class Std(Function):
    """``std = sqrt(var)``: d std = d var / (2 std)."""
    _node_name = "StdBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        v, _ = _var_and_mean(input, dims, corr, keepdim, "std")
        result = _wrap(np.sqrt(v), input.dtype)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        return _var_backward(_over_twice(grad, result), x, ctx.red, ctx.corr), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        return _over_twice(_var_jvp(t, x, ctx.red, ctx.corr), result)


def var_mean(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one pass (a plain tuple, as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> v, m = cygrad.var_mean(cygrad.tensor([1.0, 2.0, 3.0]))
    >>> v.item(), m.item()
    (1.0, 2.0)
    """
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, None, "var_mean")
    if _C.needs_autograd(input):
        return VarMean.apply(input, dims, corr, keepdim)
    v, mu = _var_and_mean(input, dims, corr, keepdim, "var_mean")
    return _wrap(v, input.dtype), _wrap(mu, input.dtype)


class VarMean(Function):
    """``(var, mean)``: the gradients of both parts add up."""
    _node_name = "VarMeanBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        ctx.save_for_backward(input)
        v, mu = _var_and_mean(input, dims, corr, keepdim, "var_mean")
        return _wrap(v, input.dtype), _wrap(mu, input.dtype)

    @staticmethod
    def backward(ctx, grad_var, grad_mean):
        x, = ctx.saved_tensors
        red = ctx.red
        grad = _var_backward(grad_var, x, red, ctx.corr) + red.expand(grad_mean / red.count)
        return grad, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        red = ctx.red
        return _var_jvp(t, _saved(ctx)[0], red, ctx.corr), mean(t, red.axes, red.keepdim)


def std_mean(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` (a plain tuple, as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> s, m = cygrad.std_mean(cygrad.tensor([2.0, 4.0, 6.0]))
    >>> s.item(), m.item()
    (2.0, 4.0)
    """
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, None, "std_mean")
    if _C.needs_autograd(input):
        return StdMean.apply(input, dims, corr, keepdim)
    v, mu = _var_and_mean(input, dims, corr, keepdim, "std_mean")
    return _wrap(np.sqrt(v), input.dtype), _wrap(mu, input.dtype)


class StdMean(Function):
    """``(std, mean)``: the gradients of both parts add up."""
    _node_name = "StdMeanBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        v, mu = _var_and_mean(input, dims, corr, keepdim, "std_mean")
        result = _wrap(np.sqrt(v), input.dtype)
        ctx.save_for_backward(input, result)
        return result, _wrap(mu, input.dtype)

    @staticmethod
    def backward(ctx, grad_std, grad_mean):
        x, result = ctx.saved_tensors
        red = ctx.red
        grad = (_var_backward(_over_twice(grad_std, result), x, red, ctx.corr)
                + red.expand(grad_mean / red.count))
        return grad, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        red = ctx.red
        return (_over_twice(_var_jvp(t, x, red, ctx.corr), result),
                mean(t, red.axes, red.keepdim))




# ---------------------------------------------------------------------------
# norms and logsumexp
# ---------------------------------------------------------------------------
@tensor_method
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector or matrix norm, as ``torch.norm``.

    ``p`` is a number (``inf``, ``-inf``, ``0`` counts nonzeros, any other value gives
    ``sum(|x|^p)^(1/p)``), ``'fro'`` (the 2-norm of the elements) or ``'nuc'`` (sum
    of singular values over a 2-tuple ``dim``, or of a 2-D input).  ``dtype``
    converts the input before computing.  Where a vector norm is not differentiable
    (at 0, at ties of the inf-norms) its gradient is PyTorch's subgradient.

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
    if p is None:
        p = "fro"
    # (linalg_vector_norm takes a dim list only: a bool there is not read as an int)
    dim = _parse_dims((dim,) if isinstance(dim, bool) else dim, "linalg_vector_norm")
    keepdim = _keepdim(keepdim, "linalg_vector_norm")
    dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
    if not (input.dtype.is_floating_point and dt.is_floating_point):
        bad = input.dtype if not input.dtype.is_floating_point else dt
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_C._torch_type_name(bad)}")
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if p == "nuc" and _C.needs_autograd(input):
            _no_out(out, "norm")
            return NuclearNorm.apply(input, dim, keepdim, dt)
        if p == "nuc" or (dim is not None and not isinstance(dim, numbers.Integral)
                          and len(dim) > 2):
            return _matrix_norm(input, p, dim, keepdim, out, dt)
        p = 2
    p = float(p)
    if _C.needs_autograd(input):
        _no_out(out, "norm")
        return Norm.apply(input, p, dim, keepdim, dt)
    return _vector_norm(input, p, dim, keepdim, out, dt)


def _vector_norm(input, p, dim, keepdim, out, dt):
    dims = _dims(input, dim, "norm")
    axes = _axes(input, dims)
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


def _norm_weights(x, norm, p, red):
    """``d ||x||_p / d x_i`` for every element ``x_i`` (written with cygrad ops).

    Where the norm is not differentiable this is PyTorch's choice of subgradient:
    0 at ``x_i = 0`` for p = 1 and p < 1, 0 for a whole slice whose norm is 0, and
    for p = +-inf the gradient split evenly among the elements whose ``|x_i|`` is
    the norm.  (The 0-"norm" counts nonzeros: it has no gradient at all.)
    """
    if p == 1:
        return x.sign()
    if math.isinf(p):
        return x.sign() * _tie_weights(x.abs(), norm, red)
    n = red.unreduce(norm)
    zero = _const(_C._ndarray(n) == 0, n.dtype)
    if p == 2:
        return x / (n + zero) * (1 - zero)
    if p < 1:
        # |x|^(p-1) is infinite at x = 0: that element gets 0
        x_zero = _const(_C._ndarray(x) == 0, x.dtype)
        return x.sign() * (x.abs() + x_zero) ** (p - 1) * (1 - x_zero) * n ** (1 - p)
    return x.sign() * x.abs() ** (p - 1) / (n + zero) ** (p - 1) * (1 - zero)


class Norm(Function):
    """Vector p-norms over ``dim``; see ``_norm_weights`` for the derivative."""
    _node_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, input, p, dim, keepdim, dt):
        ctx.red, ctx.p = _Reduced(input, _dims(input, dim, "norm"), keepdim), p
        result = _vector_norm(input, p, dim, keepdim, None, dt)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        if ctx.p == 0:                          # a count: no gradient (as in PyTorch)
            return None, None, None, None, None
        x, result = ctx.saved_tensors
        weights = _norm_weights(x, result, ctx.p, ctx.red)
        return ctx.red.unreduce(grad) * weights, None, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        if ctx.p == 0:
            return None
        x, result = _saved(ctx)
        return ctx.red.sum(t * _norm_weights(x, result, ctx.p, ctx.red))


def _matrix_dims(input, dim):
    """The two wrapped dims a matrix norm reduces (its rows and columns)."""
    if dim is None:
        dim = (-2, -1) if input.dim() == 2 else tuple(range(input.dim()))
    if isinstance(dim, numbers.Integral) or len(dim) != 2:
        shown = " ".join(str(d) for d in ((dim,) if isinstance(dim, numbers.Integral) else dim))
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    dims = tuple(_C._wrap(d, input.dim()) for d in dim)
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return dims


def _matrix_norm(input, p, dim, keepdim, out, dt):
    """'nuc' (and 'fro' given too many dims): norms over exactly two dims."""
    if dt.name in ("float16", "bfloat16"):
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. "
                           f"Got {_C._torch_type_name(dt)}")
    dims = _matrix_dims(input, dim)
    a = _C._ndarray(input).astype(_acc_np(dt))
    res = np.linalg.norm(a, ord="nuc" if p == "nuc" else "fro", axis=dims, keepdims=bool(keepdim))
    return _emit(res, dt, out, "norm", exact=True)


def _nuclear_weights(x, dims):
    """``U V^T`` of each matrix of ``x`` (over ``dims``), from its SVD ``U S V^T``."""
    a = np.moveaxis(_C._ndarray(x).astype(_acc_np(x.dtype)), dims, (-2, -1))
    u, _, vh = np.linalg.svd(a, full_matrices=False)
    return _const(np.moveaxis(u @ vh, (-2, -1), dims), x.dtype)


class NuclearNorm(Function):
    """``norm(p='nuc')``: the sum of the singular values of each matrix over two dims.

    With ``x = U S V^T``, ``d sum(S) = tr(U^T dx V)``: the gradient is ``U V^T`` (a
    subgradient where singular values vanish).  Only once differentiable: a second
    derivative would need the derivative of the SVD itself.
    """
    _node_name = "NuclearNormBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim, dt):
        ctx.dims = _matrix_dims(input, dim)
        ctx.red = _Reduced(input, ctx.dims, keepdim)
        ctx.save_for_backward(input)
        return _matrix_norm(input, "nuc", dim, keepdim, None, dt)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx.red.unreduce(grad) * _nuclear_weights(x, ctx.dims), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return ctx.red.sum(t * _nuclear_weights(_saved(ctx)[0], ctx.dims))


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
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' (position 2) must be tuple of ints, "
                        "not NoneType")
    dim, keepdim = _parse_dims(dim, "logsumexp"), _keepdim(keepdim, "logsumexp")
    if _C.needs_autograd(input):
        _no_out(out, "logsumexp")
        return Logsumexp.apply(input, dim, keepdim)
    return _logsumexp(input, dim, keepdim, out)


def _logsumexp(input, dim, keepdim, out=None):
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


class Logsumexp(Function):
    """``d logsumexp / d x_i = exp(x_i - logsumexp)``: the slice's softmax."""
    _node_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        ctx.red = _Reduced(input, _dims(input, dim, "logsumexp"), keepdim)
        result = _logsumexp(input, dim, keepdim)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        red = ctx.red
        return red.unreduce(grad) * (x - red.unreduce(result)).exp(), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        red = ctx.red
        return red.sum(t * (x - red.unreduce(result)).exp())




# ---------------------------------------------------------------------------
# boolean reductions and counting
# ---------------------------------------------------------------------------
def _all_any(input, dim, keepdim, out, opname, np_fn):
    _check_tensor(input, opname)
    dim, keepdim = _parse_dims(dim, opname), _keepdim(keepdim, opname)
    # Unlike sum's, all/any's empty dim list reduces nothing (an elementwise test).
    dims = () if dim == () else _wrap_dims(input, dim)
    # uint8 keeps its dtype, a leftover of PyTorch's pre-bool days
    dt = _dt.uint8 if input.dtype == _dt.uint8 else _dt.bool_
    if isinstance(out, TensorBase) and out.dtype not in (_dt.bool_, _dt.uint8):
        raise RuntimeError(f"{opname} only supports bool tensor for result, got: "
                           f"{_C._torch_type_name(out.dtype)}")
    axes = dims if dims == () else _axes(input, dims)
    res = np_fn(_C._ndarray(input), axis=axes, keepdims=keepdim)
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
    if _C.needs_autograd(input):
        _no_out(out, "cumsum")
        return Cumsum.apply(input, dim, dtype)
    return _scan(input, dim, dtype, out, "cumsum", np.cumsum)


class Cumsum(Function):
    """``x[k]`` appears in ``out[k], out[k+1], ...``: its gradient is the sum of their
    gradients, a cumsum running backwards."""
    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.d, ctx.dtype = _single_dim(input, dim, "cumsum"), dtype
        return _scan(input, dim, dtype, None, "cumsum", np.cumsum)

    @staticmethod
    def backward(ctx, grad):
        return (grad if grad.dim() == 0 else _rev_cumsum(grad, ctx.d)), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return cumsum(t, ctx.d, dtype=ctx.dtype)


@tensor_method
def cumprod(input, dim, *, dtype=None, out=None):
    """Running product along ``dim``: ``out[i] = input[0] * ... * input[i]``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.0, 2.0, 3.0, 4.0]).cumprod(0).tolist()
    [1.0, 2.0, 6.0, 24.0]
    """
    if _C.needs_autograd(input):
        _no_out(out, "cumprod")
        return Cumprod.apply(input, dim, dtype)
    return _scan(input, dim, dtype, out, "cumprod", np.cumprod)


def _omitted_cumprods(x, d):
    """``C[..., k, i]``: the running product up to ``i`` along ``d`` with the factor
    ``x[k]`` left out (``d`` moved last).  ``d out[i] / d x[k]`` is ``C[k, i]`` for
    ``k <= i``.  O(n^2) memory: only used where zeros rule out dividing by ``x[k]``."""
    return cumprod(_omit_each(x.movedim(d, -1)), -1)


def _upper(n, dt):
    """``U[k, i] = 1`` where ``i >= k`` (output ``i`` depends on input ``k``)."""
    return _const(np.triu(np.ones((n, n))), dt)


def _np_rev_cumsum(v):
    return np.flip(np.cumsum(np.flip(v, -1), -1), -1)


def _np_cumprod_grad(a, g, y):
    """Cumprod's gradient along the last axis, zeros allowed, in O(n).

    With ``z`` the first zero of a row: before ``z`` the usual formula
    ``rev_cumsum(g * y) / x`` holds (later outputs are 0 anyway); at ``z`` the
    gradient is ``rev_cumsum(g * y')`` with ``y'`` the running product skipping ``x[z]``;
    after ``z`` every path to the output goes through the zero ``x[z]``: 0.
    """
    n = a.shape[-1]
    zero = a == 0
    first = np.where(zero.any(-1), zero.argmax(-1), n)[..., None]
    pos = np.arange(n)
    before, at = pos < first, pos == first
    with np.errstate(all="ignore"):
        grad = np.where(before, _np_rev_cumsum(g * y) / np.where(before, a, 1), 0)
        skip_zero = np.cumprod(np.where(at, 1, a), axis=-1)
        return grad + np.where(at, _np_rev_cumsum(g * skip_zero), 0)


def _cumprod_backward(grad, x, y, d):
    if not (_C._ndarray(x) == 0).any():
        return _rev_cumsum(grad * y, d) / x
    if _C.is_grad_enabled() and (x.requires_grad or grad.requires_grad):
        # a differentiable formula is needed (double backward): the O(n^2) one
        n = x.shape[d]
        rows = _omitted_cumprods(x, d) * _upper(n, x.dtype) * grad.movedim(d, -1).unsqueeze(-2)
        return sum(rows, -1).movedim(-1, d)
    acc = np.result_type(_acc_np(x.dtype), _acc_np(grad.dtype), _acc_np(y.dtype))
    a, g, out = (np.moveaxis(_C._ndarray(t), d, -1).astype(acc) for t in (x, grad, y))
    return _const(np.moveaxis(_np_cumprod_grad(a, g, out), -1, d), x.dtype)


class Cumprod(Function):
    """``out[i] = x[0] * ... * x[i]``: ``d out[i] / d x[k]`` (``k <= i``) is ``out[i]``
    without the factor ``x[k]``, i.e. ``out[i] / x[k]`` when ``x[k] != 0``; zeros are
    handled without dividing (``_cumprod_backward``)."""
    _node_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.d = _single_dim(input, dim, "cumprod")
        result = _scan(input, dim, dtype, None, "cumprod", np.cumprod)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        if x.dim() == 0:
            return grad, None, None
        return _cumprod_backward(grad, x, y, ctx.d), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, y = _saved(ctx)
        d = ctx.d
        if x.dim() == 0:
            return t
        if not (_C._ndarray(x) == 0).any():
            return cumsum(t / x, d) * y
        n = x.shape[d]
        cols = _omitted_cumprods(x, d) * _upper(n, x.dtype) * t.movedim(d, -1).unsqueeze(-1)
        return sum(cols, -2).movedim(-1, d)


# ---------------------------------------------------------------------------
# softmax
# ---------------------------------------------------------------------------
def _softmax_dim(input, dim, opname):
    """``dim``, or PyTorch's old implicit choice (with its deprecation warning)."""
    _check_tensor(input, opname)
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
        warnings.warn(f"Implicit dimension choice for {opname} has been deprecated. Change "
                      f"the call to include dim=X as an argument.", UserWarning, stacklevel=3)
    return dim


def _softmax_setup(input, dim, dtype, opname):
    """(float NumPy array to work on, dim, result dtype)."""
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
    dim = _softmax_dim(input, dim, "softmax")
    if _C.needs_autograd(input):
        return Softmax.apply(input, dim, dtype)
    return _softmax(input, dim, dtype)


def _softmax(input, dim, dtype):
    a, d, dt = _softmax_setup(input, dim, dtype, "softmax")
    with np.errstate(all="ignore"):
        e = np.exp(a - np.max(a, axis=d, keepdims=True, initial=-np.inf))
        res = e / np.sum(e, axis=d, keepdims=True)
    return _wrap(res.reshape(input.shape), dt)


class Softmax(Function):
    """With ``y = softmax(x)``: ``dy_i/dx_j = y_i (delta_ij - y_j)``, so the gradient is
    ``y * (g - sum(g * y))``."""
    _node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.d = _single_dim(input, dim, "softmax")
        y = _softmax(input, dim, dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return y * (grad - sum(grad * y, ctx.d, keepdim=True)), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        y, = _saved(ctx)
        return y * (t - sum(y * t, ctx.d, keepdim=True))


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
    dim = _softmax_dim(input, dim, "log_softmax")
    if _C.needs_autograd(input):
        return LogSoftmax.apply(input, dim, dtype)
    return _log_softmax(input, dim, dtype)


def _log_softmax(input, dim, dtype):
    a, d, dt = _softmax_setup(input, dim, dtype, "log_softmax")
    with np.errstate(all="ignore"):
        shifted = a - np.max(a, axis=d, keepdims=True, initial=-np.inf)
        res = shifted - np.log(np.sum(np.exp(shifted), axis=d, keepdims=True))
    return _wrap(res.reshape(input.shape), dt)


class LogSoftmax(Function):
    """With ``y = log_softmax(x)``: ``dy_i/dx_j = delta_ij - exp(y_j)``, so the gradient is
    ``g - exp(y) * sum(g)``."""
    _node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.d = _single_dim(input, dim, "log_softmax")
        y = _log_softmax(input, dim, dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad - y.exp() * sum(grad, ctx.d, keepdim=True), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        y, = _saved(ctx)
        return t - sum(y.exp() * t, ctx.d, keepdim=True)




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
    bool_arg(descending, "sort", "descending")
    if stable is not None:
        bool_arg(stable, "sort", "stable")
    if _C.needs_autograd(input):
        _no_out(out, "sort")
        return _SortResult(*Sort.apply(input, dim, descending))
    return _sort(input, dim, descending, out)


def _sort(input, dim, descending, out=None):
    d = _single_dim(input, dim, "sort")
    a = _as_1d(input)
    idx = _sort_indices(a, d, descending)
    values = np.take_along_axis(a, idx, axis=d)
    return _emit_pair(_SortResult, values.reshape(input.shape), idx.reshape(input.shape),
                      input.dtype, out, "sort")


class Sort(_Selection):
    """``sort``: each sorted value's gradient goes back to the position it came from."""
    _node_name = "SortBackward0"

    @staticmethod
    def forward(ctx, input, dim, descending):
        values, indices = _sort(input, dim, descending)
        return Sort._selected(ctx, input, values, indices, _single_dim(input, dim, "sort"), False)


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
    bool_arg(descending, "argsort", "descending")
    bool_arg(stable, "argsort", "stable")
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
    if _C.needs_autograd(input):
        _no_out(out, "msort")
        return Sort.apply(input, 0, False)[0]
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
    k = int_arg(k, "topk", "k", 2)
    bool_arg(largest, "topk", "largest")
    bool_arg(sorted, "topk", "sorted")
    if _C.needs_autograd(input):
        _no_out(out, "topk")
        return _TopkResult(*Topk.apply(input, k, dim, largest, sorted))
    return _topk(input, k, dim, largest, sorted, out)


def _topk(input, k, dim, largest, sorted, out=None):
    if input.dtype == _dt.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _single_dim(input, dim, "topk")
    a = _as_1d(input)
    if not 0 <= k <= a.shape[d]:
        raise RuntimeError("selected index k out of range")
    idx = np.take(_sort_indices(a, d, largest), np.arange(k), axis=d)
    values = np.take_along_axis(a, idx, axis=d)
    if input.dim() == 0:
        values, idx = values.reshape(()), idx.reshape(())
    return _emit_pair(_TopkResult, values, idx, input.dtype, out, "topk")


class Topk(_Selection):
    """``topk``: each value's gradient goes back to the position it came from."""
    _node_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, input, k, dim, largest, sorted):
        values, indices = _topk(input, k, dim, largest, sorted)
        return Topk._selected(ctx, input, values, indices, _single_dim(input, dim, "topk"), False)


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
    _keepdim(keepdim, "median")
    _no_bool(input, "median")
    if _C.needs_autograd(input):
        _no_out(out, "median")
        if dim is None:
            return MedianAll.apply(input)
        return _MedianResult(*MedianDim.apply(input, dim, keepdim))
    return _median(input, dim, keepdim, out)


def _median_position(n, nans):
    """Where the lower median sits in a sorted row; a NaN-holding row answers with its
    first NaN (sorted just after the numbers)."""
    return np.where(nans > 0, n - nans, (n - 1) // 2)


def _median(input, dim, keepdim, out=None):
    if dim is None:
        if input.numel() == 0:
            return _emit(np.array(np.nan), input.dtype, out, "median")
        flat = input.reshape(-1)
        values, _ = _select_sorted(flat, 0, False, "median", _median_position)
        return _emit(values, input.dtype, out, "median", exact=True)
    values, idx = _select_sorted(input, dim, keepdim, "median", _median_position)
    return _emit_pair(_MedianResult, values, idx, input.dtype, out, "median")


class MedianAll(_TieSplit):
    """``median()`` of the whole tensor: like ``max()``, the gradient is split evenly
    among the elements equal to the median (PyTorch's rule)."""
    _node_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, input):
        return MedianAll._chosen(ctx, input, None, False, _median(input, None, False))


class MedianDim(_Selection):
    """``median(dim)``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "MedianBackward1"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        values, indices = _median(input, dim, keepdim)
        d = _single_dim(input, dim, "median")
        return MedianDim._selected(ctx, input, values, indices, d, not keepdim)


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
    k = int_arg(k, "kthvalue", "k", 2)
    _keepdim(keepdim, "kthvalue")
    _single_dim(input, dim, "kthvalue")     # a bad dim is reported before a bool input
    _no_bool(input, "kthvalue")
    if _C.needs_autograd(input):
        _no_out(out, "kthvalue")
        return _KthvalueResult(*Kthvalue.apply(input, k, dim, keepdim))
    return _kthvalue(input, k, dim, keepdim, out)


def _kthvalue(input, k, dim, keepdim, out=None):
    d = _single_dim(input, dim, "kthvalue")
    size = 1 if input.dim() == 0 else input.shape[d]
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, idx = _select_sorted(input, d, keepdim, "kthvalue",
                                 lambda n, nans: np.asarray(k - 1))
    return _emit_pair(_KthvalueResult, values, idx, input.dtype, out, "kthvalue")


class Kthvalue(_Selection):
    """``kthvalue``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "KthvalueBackward0"

    @staticmethod
    def forward(ctx, input, k, dim, keepdim):
        values, indices = _kthvalue(input, k, dim, keepdim)
        d = _single_dim(input, dim, "kthvalue")
        return Kthvalue._selected(ctx, input, values, indices, d, not keepdim)


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
    _keepdim(keepdim, "mode")
    if _C.needs_autograd(input):
        _no_out(out, "mode")
        return _ModeResult(*Mode.apply(input, dim, keepdim))
    return _mode(input, dim, keepdim, out)


def _mode(input, dim, keepdim, out=None):
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


class Mode(_Selection):
    """``mode``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        values, indices = _mode(input, dim, keepdim)
        return Mode._selected(ctx, input, values, indices, _single_dim(input, dim, "mode"),
                              not keepdim)


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
    for name, flag in (("sorted", sorted), ("return_inverse", return_inverse),
                       ("return_counts", return_counts)):
        bool_arg(flag, "unique", name)
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
_C._register_reduction("sum", _sum_entry)
for _fn in (amax, amin, max, min):
    _C._register_reduction(_fn.__name__, _fn)
del _fn
