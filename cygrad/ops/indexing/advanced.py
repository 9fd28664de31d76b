"""Indexing: advanced ``t[idx]`` / ``t[idx] = v`` and the gather/scatter family.

The Cython core handles basic indexing (ints, slices, ``None``, ``...``) as views.
When an index holds anything else (an integer tensor, a list, an ndarray, a bool mask,
a Python bool) the core calls :func:`_getitem_hook` / :func:`_setitem_hook` below.

How an advanced index is computed (PyTorch's rules, which are NumPy's except that a
plain int is always applied first as a view, the way ``select`` does):

1. :func:`_plan_index` sorts the index into a *basic* part (ints, slices, ``None``;
   NumPy applies it as a zero-copy view) and *advanced* arrays, one per indexed dim
   of that view. Bool masks become the integer arrays of their ``True`` positions and
   a Python ``True``/``False`` becomes a new axis indexed by ``[0]`` / ``[]``.
2. Every index value is checked against its dim *before* any memory is read or
   written, and errors are raised with PyTorch's types and messages.
3. The advanced arrays broadcast together; their dims replace the indexed dims in
   place when the indexed dims are adjacent, and go first otherwise (NumPy's rule).

All kernels run NumPy on zero-copy views of the tensors (``_C._ndarray``) and write
into outputs cygrad allocated.

Autograd: each differentiable op has its ``Function`` right next to it. The backward
of an indexing op is the same indexing run the other way: the gradient of a gather is
a scatter-add into zeros (repeated indices add up), the gradient of a scatter is a
gather. Places an op overwrote pass no gradient to what was there before: the
gradient is multiplied by a constant 0/1 "keep" mask, which keeps every backward
differentiable with plain elementwise ops (double backward). An in-place op on a
tensor autograd tracks is computed out of place by its Function, then copied into
the target, whose history is rebased onto the new node (:func:`_write_back`).
"""
import math
import warnings

import numpy as np

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase, from_numpy
from ..._tensor import tensor_method
from ...autograd import views as _views
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from .._argcheck import bool_arg, check_scalar_fits, int_arg, not_tensor

__all__ = ["index_select", "gather", "scatter", "scatter_add", "scatter_reduce", "masked_fill",
           "masked_select", "where", "nonzero", "argwhere", "take", "take_along_dim",
           "index_fill", "index_copy", "index_add", "index_put", "put"]

_INDEX_DTYPES = (_dt.int32, _dt.int64)

# Names PyTorch's C++ layer prints in a few messages ("Expected out tensor to have dtype float").
_C10_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char", "int16": "short int",
              "int32": "int", "int64": "long int", "float16": "c10::Half",
              "bfloat16": "c10::BFloat16", "float32": "float", "float64": "double"}
_C_TYPES = {"uint8": "uint8_t", "int8": "int8_t", "int16": "int16_t", "int32": "int32_t",
            "int64": "int64_t"}


# --------------------------------------------------------------------------- helpers

def _np(t):
    """Zero-copy NumPy view of a CPU tensor (any strides)."""
    return _C._ndarray(t)


def _tname(dtype):
    """PyTorch's short type name: Float, Long, Bool ..."""
    return _C._torch_type_name(dtype)


def _shape_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _empty(shape, dtype, like):
    return _C._empty(tuple(int(s) for s in shape), dtype, like.device)


def _wrap(arr):
    """Tensor owning a fresh NumPy result (C-contiguous, writable)."""
    arr = np.asarray(arr)       # NumPy returns some 0-dim results as scalars
    return from_numpy(arr if arr.flags.c_contiguous else arr.copy())


def _require_tensor(x, opname, argname, position):
    if not isinstance(x, TensorBase):
        raise not_tensor(x, opname, argname, position)


def _check_no_internal_overlap(t):
    """Refuse an in-place write into a tensor whose elements alias each other (an
    expanded view): the result would depend on the order of the writes. PyTorch's
    check (the one it can always detect: stride 0 on a dim of size > 1)."""
    if any(st == 0 and n > 1 for st, n in zip(t.stride(), t.shape)):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")


def _number_arg(value, opname, argname, position=None):
    """``value`` as the number PyTorch's parser reads as a Scalar (a 0-dim tensor gives
    its value), else the parser's TypeError."""
    if isinstance(value, (bool, int, float, complex, np.generic)):
        return value
    if isinstance(value, TensorBase) and value.dim() == 0:
        return value.item()
    where = f" (position {position})" if position else ""
    raise TypeError(f"{opname}(): argument '{argname}'{where} must be Number, not "
                    f"{type(value).__name__}")


def _fits(value, dtype):
    """A number about to be written into a ``dtype`` tensor, refused as c10's
    ``checked_convert`` refuses it (a complex number fits no real dtype)."""
    if isinstance(value, complex) or (isinstance(value, np.generic)
                                      and np.iscomplexobj(value)):
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
    """A Python/NumPy number cast to ``dtype`` as PyTorch does when writing it into a
    tensor: floats truncate toward zero for integer dtypes; a value the dtype cannot
    hold is an error (negative values wrap for unsigned types, as in PyTorch)."""
    npdt = np.dtype(dtype.np_dtype)
    if dtype == _dt.bool_:
        return np.asarray(bool(value))
    if npdt.kind in "iu":
        if isinstance(value, (float, np.floating)):
            if not np.isfinite(value):
                raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype.name]} "
                                   "without overflow")
            value = int(value)
        value = int(value)
        info = np.iinfo(npdt)
        low = -int(info.max) if info.min == 0 else int(info.min)
        if not low <= value <= int(info.max):
            raise RuntimeError(f"value cannot be converted to type {_C_TYPES[dtype.name]} "
                               "without overflow")
        return np.asarray(value).astype(npdt)
    with np.errstate(over="ignore"):
        return np.asarray(value, dtype=np.float64).astype(npdt)


def _fill_arg(value, opname):
    """PyTorch's parser: the value of masked_fill/index_fill is a Tensor or a Number."""
    if not isinstance(value, (TensorBase, bool, int, float, complex, np.generic)):
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
        return _np(value).astype(dtype.np_dtype)
    return _scalar_array(_fits(value, dtype), dtype)


def _identity(x, out=None, casting="unsafe"):
    np.copyto(out, x, casting=casting)
    return out


# A dispatcher entry that only copies: ``_C.unary_op(_COPY, result, out)`` gives ``out=``
# arguments the core's semantics (dtype check, resize with PyTorch's warning, version bump).
_COPY = _C.ElementwiseOp("copy", 1, -1, _identity)


def _finish(result, out):
    if out is None:
        return result
    if not isinstance(out, TensorBase):
        raise TypeError(f"argument 'out' must be Tensor, not {type(out).__name__}")
    _C.unary_op(_COPY, result, out)
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


def _first_out_of_bounds(idx, low, high):
    """The first value of ``idx`` (C order) outside ``[low, high)``, or None."""
    bad = (idx < low) | (idx >= high)
    if not bad.any():
        return None
    return int(idx.reshape(-1)[np.argmax(bad.reshape(-1))])


def _index_array(index, opname, dtypes=_INDEX_DTYPES, message=None, error=RuntimeError):
    """The NumPy view of an index tensor after its dtype check."""
    if index.dtype not in dtypes:
        raise error(message or f"{opname}(): Expected dtype int32/int64 for index")
    return _np(index)


# --------------------------------------------------------------------------- autograd helpers

def _copy(x):
    """A fresh contiguous copy of ``x``, outside autograd (for use inside ``forward``)."""
    out = _empty(x.shape, x.dtype, x)
    _C._copy_into(out, x)
    return out


def _zeros(shape, dtype):
    return _C.zeros(tuple(shape), dtype=dtype)


def _keep_mask(shape, dtype, clear):
    """A constant tensor of ones in which ``clear(mask)`` zeroes the places an op
    overwrote: multiplying a gradient by it drops the gradient of the old values there."""
    mask = _C.ones(tuple(shape), dtype=dtype)
    if mask.numel():
        clear(mask)
    return mask


def _no_out(out, opname):
    if out is not None:
        raise RuntimeError(f"{opname}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _check_inplace_target(self):
    """PyTorch's errors for an in-place write into a leaf that requires grad (its
    ``.grad`` would describe values that no longer exist), or into a view of one."""
    root = self._base
    if root is None:
        if self.requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
    elif root.requires_grad and root.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _write_back(self, result):
    """Finish an in-place op that autograd must see.

    ``result`` is the op computed out of place by its Function (so every tensor the
    graph saved is still intact); copy it into ``self`` and continue ``self``'s history
    from ``result``'s node. For a view, the base records the write (``CopySlices``) and
    the view re-derives its ``grad_fn`` from the base when next used — the same steps
    as ``cygrad.autograd.views.inplace`` for the elementwise ops.
    """
    if self._base is not None:
        region = _C._detach(self).as_strided(tuple(self.shape), self.stride(),
                                             self.storage_offset())
        _views.CopySlices.apply(self._base, result, region)
        if result.requires_grad and not self.requires_grad:
            # the view was untracked (its base too, until now): it is a tracked view now
            _views.refresh_view(self)
            self._view_version = self._version
            _views._set_requires_grad(self)
        return self
    _C._copy_into(self, result)
    self._bump_version()
    if result.requires_grad:
        self._grad_fn = result.grad_fn
        self._output_nr = result.output_nr
        _views._set_requires_grad(self)
    if result._fw_grad is not None:
        self._fw_grad = result._fw_grad
        _fwad._remember(self)
    return self


def _pad_kernel(x, shape):
    out = _zeros(shape, x.dtype)
    if x.numel():
        _np(out)[tuple(slice(0, n) for n in x.shape)] = _np(x)
    return out


class _Pad(Function):
    """``x`` placed in the leading corner of a zero tensor of ``shape``: the gradient
    of a scatter's ``src`` that is larger than its index (its extra values are unused)."""
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.region, ctx.out_shape = tuple(slice(0, n) for n in x.shape), shape
        return _pad_kernel(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.region], None

    @staticmethod
    def jvp(ctx, tx, _):
        return _pad_to(tx, ctx.out_shape)


def _pad_to(x, shape):
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    return _Pad.apply(x, shape) if _C.needs_autograd(x) else _pad_kernel(x, shape)


# --------------------------------------------------------------------------- t[index]

class _IndexPlan:
    """An advanced index resolved against one tensor.

    ``basic`` is applied first (a NumPy view), then ``advanced`` (a tuple holding one
    int array per indexed dim of that view and ``slice(None)`` elsewhere). ``shape`` is
    the shape of the result.
    """
    __slots__ = ("basic", "advanced", "shape")

    def __init__(self, basic, advanced, shape):
        self.basic = basic
        self.advanced = advanced
        self.shape = shape

    def numel(self):
        return math.prod(self.shape)

    def owned(self):
        """This plan with private copies of its index arrays. Autograd keeps a plan
        until backward; the caller's index tensors (which the arrays may view) could
        change before then."""
        advanced = tuple(a.copy() if isinstance(a, np.ndarray) else a for a in self.advanced)
        return _IndexPlan(self.basic, advanced, self.shape)

    def _view(self, arr):
        """``arr[basic]``, always an ndarray view (an index of ints only would give a
        NumPy scalar, i.e. a copy, without the trailing ``...``)."""
        if any(item is Ellipsis for item in self.basic):
            return arr[self.basic]
        return arr[self.basic + (Ellipsis,)]

    def get(self, arr):
        """Copy of ``arr[index]``."""
        if self.numel() == 0:
            return np.empty(self.shape, dtype=arr.dtype)
        view = self._view(arr)
        return view[self.advanced] if self.advanced else view.copy()

    def put(self, arr, values, accumulate=False):
        """``arr[index] = values`` (``+=`` with repeats counted when ``accumulate``)."""
        if self.numel() == 0:
            return
        target = self._view(arr)
        if not self.advanced:       # a plain view: nothing can repeat
            if accumulate:
                target += values
            else:
                target[...] = values
        elif accumulate:
            index = self.advanced
            if len(index) == 1 and index[0].dtype == np.bool_:
                index = np.nonzero(index[0])     # ufunc.at takes integer positions
            np.add.at(target, index, values)
        else:
            target[self.advanced] = values


def _is_int(x):
    return isinstance(x, (int, np.integer)) and not isinstance(x, (bool, np.bool_))


def _nested_to_list(seq):
    return [(_nested_to_list(x) if isinstance(x, (list, tuple)) else
             (x.tolist() if isinstance(x, TensorBase) else x)) for x in seq]


def _mask_warning(dtype_name):
    warnings.warn(f"indexing with dtype {dtype_name} is now deprecated, please use a dtype "
                  "cygrad.bool instead.", UserWarning, stacklevel=4)


def _classify(idx):
    """One index item as ("basic", item), ("int", i), ("bool", b), ("mask", ndarray) or
    ("array", int64 ndarray)."""
    if idx is None or idx is Ellipsis or isinstance(idx, slice):
        return "basic", idx
    if isinstance(idx, (bool, np.bool_)):
        return "bool", bool(idx)
    if _is_int(idx):
        return "int", int(idx)
    if isinstance(idx, TensorBase):
        if idx.dtype in (_dt.bool_, _dt.uint8):
            if idx.dtype == _dt.uint8:
                _mask_warning("cygrad.uint8")
            if idx.dim() == 0:
                return "bool", bool(idx.item())
            return "mask", _np(idx).astype(bool, copy=False)
        if idx.dtype not in _INDEX_DTYPES:
            raise IndexError("tensors used as indices must be long, int, byte or bool tensors")
        if idx.dim() == 0:          # PyTorch treats a 0-dim integer tensor like an int
            return "int", int(idx.item())
        return "array", _np(idx)
    if isinstance(idx, (list, tuple, np.ndarray)):
        arr = idx if isinstance(idx, np.ndarray) else np.asarray(_nested_to_list(idx))
        # A uint8 ndarray is a (deprecated) mask, as a uint8 tensor; a list of small ints is not.
        if arr.dtype == np.bool_ or (arr.dtype == np.uint8 and isinstance(idx, np.ndarray)):
            if arr.dtype == np.uint8:
                _mask_warning("uint8")
            return ("bool", bool(arr)) if arr.ndim == 0 else ("mask", arr.astype(bool, copy=False))
        if arr.dtype.kind not in "iuf":
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or "
                             f"byte Variables are valid indices (got {type(idx).__name__})")
        # Like PyTorch, numeric sequences become int64 indices (floats truncate).
        arr = arr.astype(np.int64, copy=False)
        return ("int", int(arr)) if arr.ndim == 0 else ("array", arr)
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {type(idx).__name__})")


def _consumed(kind, item):
    if kind in ("int", "array"):
        return 1
    if kind == "mask":
        return item.ndim
    if kind == "basic" and isinstance(item, slice):
        return 1
    return 0


def _plan_index(t, index):
    """Resolve ``index`` (a tuple) against tensor ``t``: an :class:`_IndexPlan`, or a
    tuple of basic items when nothing advanced is left (0-dim int tensors are ints)."""
    if (len(index) == 1 and isinstance(index[0], list)
            and any(x is None or x is Ellipsis or isinstance(x, slice) for x in index[0])):
        index = tuple(index[0])      # PyTorch reads t[[0, slice(None)]] as t[0, :]
    items = [_classify(idx) for idx in index]
    if len(items) == 1 and items[0][0] in ("array", "mask") and t.dim() > 0:
        return _plan_single(t, *items[0])
    if not any(kind in ("bool", "mask", "array") for kind, _ in items):
        return tuple(item for _, item in items)

    ndim = t.dim()
    consumed = sum(_consumed(kind, item) for kind, item in items)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")
    if sum(1 for _, item in items if item is Ellipsis) > 1:
        raise IndexError("an index can only have a single ellipsis ('...')")

    shape = tuple(t.shape)
    basic = []            # NumPy basic index applied to t's ndarray
    view_shape = []       # shape of the basic view
    adv = []              # (view dim, int array, size of that dim)
    masks = []            # (view dim, mask, its place in adv), checked once view_shape is known
    d = 0                 # next dim of t
    for kind, item in items:
        if kind == "basic" and item is Ellipsis:
            for _ in range(ndim - consumed):
                basic.append(slice(None))
                view_shape.append(shape[d])
                d += 1
        elif kind == "basic" and item is None:
            basic.append(None)
            view_shape.append(1)
        elif kind == "basic":
            start, stop, step = item.indices(shape[d])
            if step == 0:
                raise ValueError("slice step cannot be zero")
            basic.append(item)
            view_shape.append(len(range(start, stop, step)))
            d += 1
        elif kind == "int":
            if not -shape[d] <= item < shape[d]:
                raise IndexError(f"index {item} is out of bounds for dimension {d} "
                                 f"with size {shape[d]}")
            basic.append(item)
            d += 1
        elif kind == "bool":
            # A Python bool is a 0-dim mask: a new axis of size 1, indexed by [0] or [].
            basic.append(None)
            adv.append((len(view_shape), np.zeros(1 if item else 0, dtype=np.int64), 1))
            view_shape.append(1)
        elif kind == "array":
            basic.append(slice(None))
            adv.append((len(view_shape), item, shape[d]))
            view_shape.append(shape[d])
            d += 1
        else:
            masks.append((len(view_shape), item, len(adv)))
            for _ in range(item.ndim):
                basic.append(slice(None))
                view_shape.append(shape[d])
                d += 1
    view_shape.extend(shape[d:])

    for v, mask, _ in masks:
        for j, size in enumerate(mask.shape):
            if size != view_shape[v + j]:
                raise IndexError(f"The shape of the mask {_shape_str(mask.shape)} at index {j} "
                                 f"does not match the shape of the indexed tensor "
                                 f"{_shape_str(view_shape)} at index {v + j}")
    # Masks become the integer arrays of their True positions, in order with the rest
    # (inserted back to front so the recorded positions stay valid).
    for v, mask, pos in reversed(masks):
        adv[pos:pos] = [(v + j, nz, view_shape[v + j]) for j, nz in enumerate(np.nonzero(mask))]

    arrays = [a for _, a, _ in adv]
    try:
        bshape = np.broadcast_shapes(*(a.shape for a in arrays)) if len(arrays) > 1 \
            else arrays[0].shape
    except ValueError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(_shape_str(a.shape) for a in arrays)) from None

    dims = [v for v, _, _ in adv]
    rest = [s for i, s in enumerate(view_shape) if i not in dims]
    if dims == list(range(dims[0], dims[0] + len(dims))):
        result_shape = tuple(view_shape[:dims[0]]) + bshape + tuple(view_shape[dims[-1] + 1:])
    else:
        result_shape = bshape + tuple(rest)

    if math.prod(result_shape) > 0:
        _check_advanced_bounds(adv, bshape)
    advanced = [slice(None)] * len(view_shape)
    for v, a, _ in adv:
        advanced[v] = a
    return _IndexPlan(tuple(basic), tuple(advanced), result_shape)


def _plan_single(t, kind, item):
    """Fast path of :func:`_plan_index` for ``t[int_array]`` and ``t[mask]`` (same rules)."""
    shape = tuple(t.shape)
    if kind == "mask":
        k = item.ndim
        if k > len(shape):
            raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
        for j in range(k):
            if item.shape[j] != shape[j]:
                raise IndexError(f"The shape of the mask {_shape_str(item.shape)} at index {j} "
                                 f"does not match the shape of the indexed tensor "
                                 f"{_shape_str(shape)} at index {j}")
        # a leading mask alone: NumPy's own mask indexing has the same meaning
        return _IndexPlan((), (item,), (int(np.count_nonzero(item)),) + shape[k:])
    result_shape = item.shape + shape[1:]
    if math.prod(result_shape) > 0:
        _check_advanced_bounds([(0, item, shape[0])], item.shape)
    return _IndexPlan((), (item,), result_shape)


def _check_advanced_bounds(adv, bshape):
    """Raise PyTorch's IndexError for the first bad index (broadcast C order; within one
    position, the first index array). Skipped by the caller for empty results, where
    PyTorch reads nothing and checks nothing."""
    if any(size == 0 and a.size for _, a, size in adv):
        raise IndexError("index is out of bounds for dimension with size 0")
    if all(a.size == 0 or (a.min() >= -size and a.max() < size) for _, a, size in adv):
        return
    bad = [(a < -size) | (a >= size) for _, a, size in adv]
    any_bad = np.zeros(bshape, dtype=bool)
    for b in bad:
        any_bad |= b
    pos = np.unravel_index(np.argmax(any_bad), bshape)
    for k, ((_, a, size), b) in enumerate(zip(adv, bad)):
        if np.broadcast_to(b, bshape)[pos]:
            value = int(np.broadcast_to(a, bshape)[pos])
            raise IndexError(f"index {value} is out of bounds for dimension {k} with size {size}")


def _getitem_hook(t, index):
    plan = _plan_index(t, index)
    if isinstance(plan, tuple):
        return t[plan]
    if _C.needs_autograd(t):
        return Index.apply(t, plan.owned())
    return _wrap(plan.get(_np(t)))


class Index(Function):
    """``x[index]`` with an advanced index: a gather. Backward: scatter-add the
    gradient into zeros shaped like ``x`` (an element picked twice gets both parts)."""
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, x, plan):
        ctx.plan, ctx.shape = plan, tuple(x.shape)
        return _wrap(plan.get(_np(x)))

    @staticmethod
    def backward(ctx, grad):
        return _index_scatter(grad, ctx.plan, ctx.shape), None

    @staticmethod
    def jvp(ctx, tx, _):
        return _index_get(tx, ctx.plan)


def _index_scatter_kernel(values, plan, shape):
    out = _zeros(shape, values.dtype)
    plan.put(_np(out), _np(values), accumulate=True)
    return out


class IndexScatter(Function):
    """``zeros(shape)`` with ``values`` added at ``plan``'s places: the backward of
    :class:`Index` (and its adjoint: the backward of this one gathers again)."""
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, values, plan, shape):
        ctx.plan, ctx.shape = plan, shape
        return _index_scatter_kernel(values, plan, shape)

    @staticmethod
    def backward(ctx, grad):
        return _index_get(grad, ctx.plan), None, None

    @staticmethod
    def jvp(ctx, tv, _, __):
        return _index_scatter(tv, ctx.plan, ctx.shape)


def _index_get(x, plan):
    if _C.needs_autograd(x):
        return Index.apply(x, plan)
    return _wrap(plan.get(_np(x)))


def _index_scatter(values, plan, shape):
    if _C.needs_autograd(values):
        return IndexScatter.apply(values, plan, shape)
    return _index_scatter_kernel(values, plan, shape)


def _strip_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _value_array(t, value, plan, single_mask):
    """The NumPy array written by ``t[index] = value`` (dtype rules as PyTorch)."""
    if isinstance(value, TensorBase):
        if value.dtype != t.dtype and not (single_mask and value.dim() == 0):
            raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                               f"got {_tname(t.dtype)} for the destination and "
                               f"{_tname(value.dtype)} for the source.")
        arr = _np(value).astype(t.dtype.np_dtype, copy=False)
    elif isinstance(value, (bool, int, float, np.generic)):
        arr = _scalar_array(value, t.dtype)
    elif isinstance(value, (list, np.ndarray)):
        arr = np.asarray(value).astype(t.dtype.np_dtype)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a "
                        f"cygrad.{_tname(t.dtype)}Tensor")
    vshape = _strip_leading_ones(arr.shape)
    rshape = plan.shape
    if len(vshape) > len(rshape) or any(v != 1 and v != r for v, r in
                                         zip(vshape[::-1], rshape[::-1])):
        raise RuntimeError(f"shape mismatch: value tensor of shape {_shape_str(vshape)} cannot be "
                           f"broadcast to indexing result of shape {_shape_str(rshape)}")
    arr = arr.reshape(vshape)
    if np.may_share_memory(arr, _np(t)):
        arr = arr.copy()     # the write must not see its own partial results
    return arr


def _single_mask(index):
    """Is ``index`` one bool mask (which lets a 0-dim value of another dtype through)?"""
    return len(index) == 1 and (
        isinstance(index[0], (bool, np.bool_))
        or isinstance(index[0], TensorBase) and index[0].dtype in (_dt.bool_, _dt.uint8))


def _setitem_hook(t, index, value):
    plan = _plan_index(t, index)
    if isinstance(plan, tuple):
        t[plan] = value
        return
    if _C.needs_autograd(t, value):
        _check_inplace_target(t)
        _write_back(t, IndexPut.apply(t, value, plan.owned(), _single_mask(index), False))
        return
    arr = _value_array(t, value, plan, _single_mask(index))
    plan.put(_np(t), arr)
    t._bump_version()


_C._set_indexing_hooks(_getitem_hook, _setitem_hook)


def _index_put_kernel(x, values, plan, single_mask, accumulate):
    """``x[plan] = values`` (``+=`` if ``accumulate``) in place, after the dtype/shape checks."""
    plan.put(_np(x), _value_array(x, values, plan, single_mask), accumulate)


class IndexPut(Function):
    """``x[index] = values`` (``+=`` when ``accumulate``), computed out of place.

    Backward: the written places of ``x`` get no gradient (unless accumulating); the
    values get the gradient at the places they went to, summed over broadcasting."""
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, x, values, plan, single_mask, accumulate):
        ctx.plan, ctx.single_mask, ctx.accumulate = plan, single_mask, accumulate
        ctx.shape, ctx.dtype = tuple(x.shape), x.dtype
        ctx.value_dim = values.dim() if isinstance(values, TensorBase) else 0
        result = _copy(x)
        _index_put_kernel(result, values, plan, single_mask, accumulate)
        return result

    @staticmethod
    def backward(ctx, grad):
        plan = ctx.plan
        grad_x = grad_values = None
        if ctx.needs_input_grad[0]:
            grad_x = grad if ctx.accumulate else grad * _keep_mask(
                grad.shape, grad.dtype, lambda m: plan.put(_np(m), 0))
        if ctx.needs_input_grad[1]:
            grad_values = _index_get(grad, plan)
            missing = ctx.value_dim - grad_values.dim()
            if missing > 0:     # values had extra leading 1s: the engine sums the rest
                grad_values = grad_values.reshape((1,) * missing + tuple(grad_values.shape))
        return grad_x, grad_values, None, None, None

    @staticmethod
    def jvp(ctx, tx, tv, *_):
        if tv is None and (tx is None or ctx.accumulate):
            return tx
        base = tx if tx is not None else _zeros(ctx.shape, ctx.dtype)
        return _index_put(base, 0 if tv is None else tv, ctx.plan, ctx.single_mask,
                          ctx.accumulate)


def _index_put(x, values, plan, single_mask, accumulate):
    """Out-of-place ``x[plan] = values`` through autograd when needed."""
    if _C.needs_autograd(x, values):
        return IndexPut.apply(x, values, plan, single_mask, accumulate)
    result = _copy(x)
    _index_put_kernel(result, values, plan, single_mask, accumulate)
    return result


def _as_index_tuple(indices):
    if not isinstance(indices, (tuple, list)):
        raise TypeError(f"index_put_(): argument 'indices' must be tuple of Tensors, not "
                        f"{type(indices).__name__}")
    return tuple(slice(None) if i is None else i for i in indices)


def _put_plan(t, index):
    """The plan of ``t[index] = ...``; an index of basic items only becomes a plan
    without advanced part (a view)."""
    plan = _plan_index(t, index)
    if isinstance(plan, tuple):
        plan = _IndexPlan(plan, (), tuple(_C._detach(t)[plan].shape))
    return plan


@tensor_method
def index_put_(input, indices, values, accumulate=False):
    """In place: ``input[indices] = values``, or ``+=`` (repeats add up) when ``accumulate``.

    ``indices`` is a tuple of index tensors (``None`` stands for ``:``).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(3)
    >>> x.index_put_((cygrad.tensor([0, 0, 2]),), cygrad.tensor(1.0), accumulate=True).tolist()
    [2.0, 0.0, 1.0]
    """
    _require_tensor(input, "index_put_", "input", 1)
    _require_tensor(values, "index_put_", "values", 3)
    index = _as_index_tuple(indices)
    if not bool_arg(accumulate, "index_put_", "accumulate"):
        _setitem_hook(input, index, values)
        return input
    plan = _put_plan(input, index)
    if _C.needs_autograd(input, values):
        _check_inplace_target(input)
        return _write_back(input, IndexPut.apply(input, values, plan.owned(), False, True))
    _index_put_kernel(input, values, plan, False, True)
    input._bump_version()
    return input


@tensor_method
def index_put(input, indices, values, accumulate=False):
    """Out-of-place :meth:`index_put_`: a copy of ``input`` with ``values`` written at ``indices``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.index_put(cygrad.zeros(3), (cygrad.tensor([1]),), cygrad.tensor(5.0)).tolist()
    [0.0, 5.0, 0.0]
    """
    _require_tensor(input, "index_put", "input", 1)
    _require_tensor(values, "index_put", "values", 3)
    accumulate = bool_arg(accumulate, "index_put", "accumulate")
    if _C.needs_autograd(input, values):
        index = _as_index_tuple(indices)
        return IndexPut.apply(input, values, _put_plan(input, index).owned(),
                              _single_mask(index), accumulate)
    return index_put_(input.clone(), indices, values, accumulate)


# --------------------------------------------------------------------------- select / gather

def _index_select_kernel(input, dim, index, out=None):
    _require_tensor(index, "index_select", "index", 3)
    idx = _index_array(index, "index_select",
                       message="index_select(): Expected dtype int32 or int64 for index")
    if idx.ndim > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    dim = _dim(dim, input.dim())
    _check_out_dtype(out, input.dtype, "index_select(): self and result must have the same "
                                       "scalar type")
    arr = _np(input)
    size = arr.shape[dim] if arr.ndim else 1
    if size == 0 and idx.size:
        raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = _first_out_of_bounds(idx, 0, size)
    if bad is not None:
        if dim == 1:
            # PyTorch's CPU kernel for dim 1 has its own check, with its own error type
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        raise IndexError("index out of range in self")
    idx = idx.reshape(-1)
    if arr.ndim == 0:
        if idx.size != 1:
            # a 0-d result needs exactly one index; none used to return uninitialised memory
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{idx.size} value(s)")
        result = _empty((), input.dtype, input)
        _np(result)[...] = arr
        return result
    shape = arr.shape[:dim] + (idx.size,) + arr.shape[dim + 1:]
    result = _empty(shape, input.dtype, input)
    np.take(arr, idx, axis=dim, out=_np(result))
    return result


class IndexSelect(Function):
    """``index_select``; backward adds the gradient's slices back at their places."""
    _node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.dim, ctx.shape = dim, tuple(x.shape)
        ctx.save_for_backward(index)
        return _index_select_kernel(x, dim, index)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return index_add(_zeros(ctx.shape, grad.dtype), ctx.dim, index, grad), None, None

    @staticmethod
    def jvp(ctx, tx, *_):
        return index_select(tx, ctx.dim, _fwad.saved_for_jvp(ctx)[0])


@tensor_method
def index_select(input, dim, index, *, out=None):
    """The slices of ``input`` along ``dim`` at positions ``index`` (a 1-D int tensor).

    Equivalent to ``np.take(input, index, axis=dim)``; negative indices are an error.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.arange(6).reshape(2, 3)
    >>> cygrad.index_select(x, 1, cygrad.tensor([2, 0])).tolist()
    [[2, 0], [5, 3]]
    """
    _require_tensor(input, "index_select", "input", 1)
    dim = int_arg(dim, "index_select", "dim", 2)
    if _C.needs_autograd(input):
        _no_out(out, "index_select")
        return IndexSelect.apply(input, dim, index)
    return _finish(_index_select_kernel(input, dim, index, out), out)


def _check_same_ndim(input, index, what):
    if max(input.dim(), 1) != max(index.dim(), 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")


def _along(arr):
    """``arr`` seen as at least 1-D (PyTorch treats 0-dim tensors as 1-D in gather/scatter)."""
    return arr.reshape(1) if arr.ndim == 0 else arr


def _gather_kernel(input, dim, index, out=None):
    _require_tensor(index, "gather", "index", 3)
    dim = _dim(dim, input.dim())
    _check_out_dtype(out, input.dtype)
    result = _empty(tuple(index.shape), input.dtype, input)
    if index.numel() == 0:      # PyTorch checks nothing more for an empty index
        return result
    idx = _index_array(index, "gather")
    _check_same_ndim(input, index, "input")
    arr = _np(input)
    a1, i1 = _along(arr), _along(idx)
    for d in range(a1.ndim):
        if d != dim and i1.shape[d] > a1.shape[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{_shape_str(idx.shape)} to be no larger than self "
                               f"{_shape_str(arr.shape)} apart from dimension {dim}")
    if idx.size:
        bad = _first_out_of_bounds(i1, 0, a1.shape[dim])
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                               f"{a1.shape[dim]}")
        src = a1[tuple(slice(None) if d == dim else slice(0, i1.shape[d]) for d in range(a1.ndim))]
        _np(result).reshape(i1.shape)[...] = np.take_along_axis(src, i1, axis=dim)
    return result


class Gather(Function):
    """``gather``; backward scatter-adds the gradient back (repeated indices add up)."""
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.dim, ctx.shape = dim, tuple(x.shape)
        ctx.save_for_backward(index)
        return _gather_kernel(x, dim, index)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return scatter_add(_zeros(ctx.shape, grad.dtype), ctx.dim, index, grad), None, None

    @staticmethod
    def jvp(ctx, tx, *_):
        return gather(tx, ctx.dim, _fwad.saved_for_jvp(ctx)[0])


@tensor_method
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Values of ``input`` along ``dim`` picked by ``index``:
    ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (``np.take_along_axis``).

    ``index`` has ``input``'s number of dims and is no larger than ``input`` on the other
    dims; the result has ``index``'s shape.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2], [3, 4]])
    >>> cygrad.gather(x, 1, cygrad.tensor([[0, 0], [1, 0]])).tolist()
    [[1, 1], [4, 3]]
    """
    _require_tensor(input, "gather", "input", 1)
    dim = int_arg(dim, "gather", "dim", 2)
    bool_arg(sparse_grad, "gather", "sparse_grad")
    if _C.needs_autograd(input):
        _no_out(out, "gather")
        return Gather.apply(input, dim, index)
    return _finish(_gather_kernel(input, dim, index, out), out)


def _scatter_positions(idx, dim):
    """Index arrays addressing ``out[..., idx[...], ...]``: ``idx`` along ``dim`` and the
    position itself along every other dim."""
    grid = list(np.indices(idx.shape, sparse=True))
    grid[dim] = idx
    return tuple(grid)


# reduce name -> (ufunc applied with .at, identity used when include_self=False)
_SCATTER_UFUNCS = {"add": np.add, "sum": np.add, "mean": np.add, "multiply": np.multiply,
                   "prod": np.multiply, "amax": np.maximum, "amin": np.minimum}


def _reduce_identity(reduce, dtype):
    npdt = np.dtype(dtype.np_dtype)
    if reduce in ("sum", "mean"):
        return np.zeros((), npdt)
    if reduce == "prod":
        return np.ones((), npdt)
    if npdt == np.bool_:
        return np.asarray(reduce == "amin")
    if npdt.kind in "iu":
        info = np.iinfo(npdt)
        return np.asarray(info.min if reduce == "amax" else info.max, npdt)
    return np.asarray(-np.inf if reduce == "amax" else np.inf).astype(npdt)


def _scatter_into(self, dim, index, src, value, reduce=None, include_self=True):
    """The kernel shared by the scatter family: writes into ``self`` in place.

    ``reduce``: None (plain writes), "add"/"sum", "multiply"/"prod", "mean", "amax",
    "amin"; every write to a repeated position counts.
    """
    dim = _dim(dim, self.dim())
    if src is not None and src.dtype != self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if value is not None:
        value = _scalar_array(_fits(value, self.dtype), self.dtype)
    if reduce == "mean" and self.dtype == _dt.bool_:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for "
                                  "'Bool'")
    if index.numel() == 0:      # PyTorch checks nothing more for an empty index
        return self
    idx = _index_array(index, "scatter")
    _check_same_ndim(self, index, "self")
    if src is not None:
        _check_same_ndim(src, index, "src")
    arr = _np(self)
    a1, i1 = _along(arr), _along(idx)
    s1 = None if src is None else _along(_np(src))
    too_big = any(d != dim and i1.shape[d] > a1.shape[d] for d in range(a1.ndim))
    if s1 is not None:
        too_big = too_big or any(i1.shape[d] > s1.shape[d] for d in range(a1.ndim))
    if too_big:
        msg = (f"Expected index {_shape_str(idx.shape)} to be no larger than self "
               f"{_shape_str(arr.shape)} apart from dimension {dim}")
        if s1 is not None:
            msg += f" and to be no larger size than src {_shape_str(src.shape)}"
        raise RuntimeError(msg)
    bad = _first_out_of_bounds(i1, 0, a1.shape[dim])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                           f"{a1.shape[dim]}")
    if s1 is not None:
        vals = s1[tuple(slice(0, n) for n in i1.shape)]
        if np.may_share_memory(vals, arr):
            vals = vals.copy()
    else:
        vals = value
    pos = _scatter_positions(i1, dim)
    if reduce is None:
        a1[pos] = vals
        return self
    if not include_self:
        a1[pos] = _reduce_identity(reduce, self.dtype)
    _SCATTER_UFUNCS[reduce].at(a1, pos, np.broadcast_to(vals, i1.shape))
    if reduce == "mean":
        # divide by how many values met at each place (self counting as one)
        count = np.zeros(a1.shape, dtype=np.int64)
        np.add.at(count, pos, 1)
        count += 1 if include_self else (count == 0)
        if a1.dtype.kind in "iu":
            a1[...] = np.floor_divide(a1, count).astype(a1.dtype)
        else:
            a1[...] = (a1 / count).astype(a1.dtype)
    return self


_warned = {"scatter_reduce": False}
_SCATTER_REDUCE_WARNING = ("The reduce argument of cygrad.scatter with Tensor src is deprecated "
                           "and will be removed in a future release. Use cygrad.scatter_reduce "
                           "instead for more reduction options.")


class _Unset:
    """The default of ``scatter``'s ``reduce``: PyTorch's signature gives it none, so an
    explicit ``reduce=None`` is an error there, unlike leaving it out."""
    __slots__ = ()

    def __repr__(self):
        return "<no reduce>"


_NO_REDUCE = _Unset()


def _scatter_reduce_arg(reduce, src, opname):
    if reduce is _NO_REDUCE:
        return None
    if not isinstance(reduce, str):
        raise TypeError(f"{opname}() received an invalid combination of arguments: argument "
                        f"'reduce' must be str, not {type(reduce).__name__}")
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if src is not None and not _warned["scatter_reduce"]:
        _warned["scatter_reduce"] = True       # once per process, as PyTorch
        warnings.warn(_SCATTER_REDUCE_WARNING, UserWarning, stacklevel=3)
    return reduce


def _split_src_value(src, value, opname):
    if src is not None and value is not None:
        raise TypeError(f"{opname}() got both 'src' and 'value'")
    if isinstance(src, TensorBase):
        return src, None
    if src is None and value is None:
        raise TypeError(f"{opname}() missing required argument 'src' or 'value'")
    value = src if value is None else value
    if isinstance(value, TensorBase):
        return value, None
    if not isinstance(value, (bool, int, float, np.generic)):
        raise TypeError(f"{opname}(): argument 'value' must be Number, not {type(value).__name__}")
    return None, value


class Scatter(Function):
    """``scatter`` with a ``src`` tensor. Backward: the overwritten places of ``input``
    get no gradient; ``src`` gets the gradient of the places its values went to."""
    _node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim, ctx.shape, ctx.src_shape = dim, tuple(x.shape), tuple(src.shape)
        ctx.save_for_backward(index)
        return _scatter_into(_copy(x), dim, index, src, None)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return (_scattered_cleared(grad, ctx.dim, index) if ctx.needs_input_grad[0] else None,
                None, None,
                _pad_to(gather(grad, ctx.dim, index), ctx.src_shape)
                if ctx.needs_input_grad[3] else None)

    @staticmethod
    def jvp(ctx, tx, _, __, ts):
        index = _fwad.saved_for_jvp(ctx)[0]
        if ts is None:
            return None if tx is None else scatter(tx, ctx.dim, index, 0)
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype)
        return scatter(base, ctx.dim, index, ts)


class ScatterValue(Scatter):
    """``scatter`` with a number: the written places of ``input`` get no gradient."""
    _node_name = "ScatterBackward1"

    @staticmethod
    def forward(ctx, x, dim, index, value):
        ctx.dim = dim
        ctx.save_for_backward(index)
        return _scatter_into(_copy(x), dim, index, None, value)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return _scattered_cleared(grad, ctx.dim, index), None, None, None

    @staticmethod
    def jvp(ctx, tx, *_):
        return scatter(tx, ctx.dim, _fwad.saved_for_jvp(ctx)[0], 0)


class ScatterWithReduce(Function):
    """``scatter(..., reduce=...)``: PyTorch defines no derivative for it (use
    ``scatter_reduce``); the error comes when the gradient is needed, as in PyTorch."""
    _node_name = "NotImplemented"

    @staticmethod
    def forward(ctx, x, dim, index, src, value, reduce):
        return _scatter_into(_copy(x), dim, index, src, value, reduce)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::scatter is not implemented")


def _scattered_cleared(grad, dim, index):
    """``grad`` with the places ``index`` writes to (along ``dim``) set to zero."""
    return grad * _keep_mask(grad.shape, grad.dtype,
                             lambda m: _scatter_into(m, dim, index, None, 0))


def _scatter_autograd(input, dim, index, src, value, reduce):
    if reduce is not None:
        return ScatterWithReduce.apply(input, dim, index, src, value, reduce)
    if src is not None:
        return Scatter.apply(input, dim, index, src)
    return ScatterValue.apply(input, dim, index, value)


@tensor_method
def scatter_(input, dim, index, src=None, *, value=None, reduce=_NO_REDUCE):
    """In place: write ``src`` (a tensor) or ``value`` (a number) into ``input`` at the
    positions ``index`` gives along ``dim`` (the inverse of :func:`gather`):
    ``self[index[i][j]][j] = src[i][j]`` for ``dim=0``.

    ``reduce='add'`` or ``'multiply'`` combines with the existing values instead (repeated
    indices all count). Without ``reduce``, which of several writes to one place wins is
    unspecified (here: the last).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 3)
    >>> x.scatter_(1, cygrad.tensor([[2], [0]]), 1.0).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    _require_tensor(input, "scatter_", "input", 1)
    dim = int_arg(dim, "scatter_", "dim", 1)
    _require_tensor(index, "scatter_", "index", 2)
    src, value = _split_src_value(src, value, "scatter_")
    reduce = _scatter_reduce_arg(reduce, src, "scatter_")
    _check_no_internal_overlap(input)
    if _C.needs_autograd(input, src):
        _check_inplace_target(input)
        return _write_back(input, _scatter_autograd(input, dim, index, src, value, reduce))
    _scatter_into(input, dim, index, src, value, reduce)
    input._bump_version()
    return input


@tensor_method
def scatter(input, dim, index, src=None, *, value=None, reduce=_NO_REDUCE, out=None):
    """Out-of-place :meth:`Tensor.scatter_`: a copy of ``input`` with ``src``/``value``
    written at ``index`` along ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> src = cygrad.tensor([[1.0, 2.0, 3.0]])
    >>> cygrad.scatter(cygrad.zeros(2, 3), 0, cygrad.tensor([[1, 0, 1]]), src).tolist()
    [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]]
    """
    _require_tensor(input, "scatter", "input", 1)
    dim = int_arg(dim, "scatter", "dim", 2)
    _require_tensor(index, "scatter", "index", 3)
    src, value = _split_src_value(src, value, "scatter")
    reduce = _scatter_reduce_arg(reduce, src, "scatter")
    if _C.needs_autograd(input, src):
        _no_out(out, "scatter")
        return _scatter_autograd(input, dim, index, src, value, reduce)
    _check_out_dtype(out, input.dtype)
    result = input.clone()
    _scatter_into(result, dim, index, src, value, reduce)
    return _finish(result, out)


class ScatterAdd(Function):
    """``scatter_add``: ``input``'s gradient passes unchanged; ``src`` gets the
    gradient of the places its values were added to."""
    _node_name = "ScatterAddBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src):
        ctx.dim, ctx.shape, ctx.src_shape = dim, tuple(x.shape), tuple(src.shape)
        ctx.save_for_backward(index)
        return _scatter_into(_copy(x), dim, index, src, None, "add")

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_src = None
        if ctx.needs_input_grad[3]:
            grad_src = _pad_to(gather(grad, ctx.dim, index), ctx.src_shape)
        return grad, None, None, grad_src

    @staticmethod
    def jvp(ctx, tx, _, __, ts):
        if ts is None:
            return tx
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype)
        return scatter_add(base, ctx.dim, _fwad.saved_for_jvp(ctx)[0], ts)


@tensor_method
def scatter_add_(input, dim, index, src):
    """In place: add ``src`` into ``input`` at ``index`` along ``dim``; repeated indices
    all add up. ``self[index[i][j]][j] += src[i][j]`` for ``dim=0``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(3)
    >>> x.scatter_add_(0, cygrad.tensor([0, 0, 2]), cygrad.tensor([1.0, 2.0, 3.0])).tolist()
    [3.0, 0.0, 3.0]
    """
    _require_tensor(input, "scatter_add_", "input", 1)
    dim = int_arg(dim, "scatter_add_", "dim", 1)
    _require_tensor(index, "scatter_add_", "index", 2)
    _require_tensor(src, "scatter_add_", "src", 3)
    _check_no_internal_overlap(input)
    if _C.needs_autograd(input, src):
        _check_inplace_target(input)
        return _write_back(input, ScatterAdd.apply(input, dim, index, src))
    _scatter_into(input, dim, index, src, None, "add")
    input._bump_version()
    return input


@tensor_method
def scatter_add(input, dim, index, src, *, out=None):
    """Out-of-place :meth:`Tensor.scatter_add_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.scatter_add(cygrad.zeros(2), 0, cygrad.tensor([1, 1]), cygrad.ones(2)).tolist()
    [0.0, 2.0]
    """
    _require_tensor(input, "scatter_add", "input", 1)
    dim = int_arg(dim, "scatter_add", "dim", 2)
    _require_tensor(index, "scatter_add", "index", 3)
    _require_tensor(src, "scatter_add", "src", 4)
    if _C.needs_autograd(input, src):
        _no_out(out, "scatter_add")
        return ScatterAdd.apply(input, dim, index, src)
    _check_out_dtype(out, input.dtype)
    result = input.clone()
    _scatter_into(result, dim, index, src, None, "add")
    return _finish(result, out)


_REDUCE_ALIASES = {"max": "amax", "min": "amin"}


def _scatter_reduce_name(reduce, opname):
    if not isinstance(reduce, str):
        raise TypeError(f"{opname}(): argument 'reduce' (position 5) must be str, not "
                        f"{type(reduce).__name__}")
    name = _REDUCE_ALIASES.get(reduce, reduce)
    if name not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    return name


def _as_float_tensor(arr, dtype):
    return _wrap(np.asarray(arr).astype(dtype.np_dtype))


class ScatterReduce(Function):
    """``scatter_reduce``. Every element of ``input`` and of ``src`` feeds exactly one
    place of the result, so each gets the gradient of that place times its partial
    derivative there:

    * ``sum``: 1;  ``mean``: 1 / (number of values reduced at the place);
    * ``amax``/``amin``: 1 / (number of values equal to the result) for those values,
      0 for the others (ties share the gradient);
    * ``prod``: the product of the other values at the place (found without dividing
      by zero when a value is 0).

    With ``include_self=False`` the places ``index`` reaches pass nothing to ``input``.
    """
    _node_name = "ScatterReduceBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        ctx.shape, ctx.src_shape, ctx.dtype = tuple(x.shape), tuple(src.shape), x.dtype
        result = _scatter_into(_copy(x), dim, index, src, None, reduce, include_self)
        saved = (index,)
        if x.dtype.is_floating_point:
            saved += _scatter_reduce_saved(x, dim, index, src, result, reduce, include_self)
        ctx.save_for_backward(*saved)
        return result

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors
        grad_x, grad_src = _scatter_reduce_vjp(ctx, saved, grad)
        if (ctx.reduce == "prod" and grad_src is not None and _C.is_grad_enabled()
                and _shared_src_zeros(saved)):
            # the zeros that share a place got the constant 0, whose own derivative is
            # wrong: differentiating this gradient again is an error (as in PyTorch)
            grad_src = _NoDoubleBackward.apply(
                grad_src, "scatter_reduce(): Double backward is unsupported for src when >1 "
                "zeros in src are scattered to the same position in self", grad, saved[3])
        return grad_x, None, None, grad_src, None, None

    @staticmethod
    def jvp(ctx, tx, _, __, ts, *___):
        if tx is None and ts is None:
            return None
        saved = _fwad.saved_for_jvp(ctx)
        # each input element feeds one place: tangent = sum of (partial derivative * tangent)
        d_x, d_src = _scatter_reduce_vjp(ctx, saved, _C.ones(ctx.shape, dtype=ctx.dtype))
        out = None if tx is None else tx * d_x
        if ts is not None:
            added = scatter_add(_zeros(ctx.shape, ts.dtype), ctx.dim, saved[0], ts * d_src)
            out = added if out is None else out + added
        return out


def _scatter_reduce_saved(x, dim, index, src, result, reduce, include_self):
    """What the backward of ``scatter_reduce`` needs besides ``index`` (see
    :func:`_scatter_reduce_vjp`); constants are computed here, once."""
    dtype = x.dtype
    dim = _dim(dim, x.dim())
    i1 = _along(_np(index))
    pos = _scatter_positions(i1, dim)
    reached = np.zeros(_along(_np(x)).shape, dtype=bool)
    reached[pos] = True
    if reduce == "sum":
        return (_as_float_tensor(~reached, dtype).reshape(x.shape),)
    if reduce == "mean":
        count = np.zeros(reached.shape, dtype=np.int64)
        np.add.at(count, pos, 1)
        count += 1 if include_self else 0
        inv = 1.0 / np.maximum(count, 1)
        return (_as_float_tensor(inv, dtype).reshape(x.shape),
                _as_float_tensor(~reached, dtype).reshape(x.shape))
    src_part = _along(_np(src))[tuple(slice(0, n) for n in i1.shape)]
    res = _along(_np(result))
    if reduce in ("amax", "amin"):
        self_hit = res == _along(_np(x))
        if not include_self:
            self_hit &= ~reached
        src_hit = src_part == res[pos]
        hits = self_hit.astype(np.int64)
        np.add.at(hits, pos, src_hit)
        inv = 1.0 / np.maximum(hits, 1)
        return (_as_float_tensor(self_hit * inv, dtype).reshape(x.shape),
                _as_float_tensor(inv, dtype).reshape(x.shape),
                _as_float_tensor(src_hit, dtype).reshape(index.shape))
    # prod: the zeros of src at each place decide how the products are taken
    src_zero = src_part == 0
    zeros_at = np.zeros(reached.shape, dtype=np.int64)
    np.add.at(zeros_at, pos, src_zero)
    lone_zero = src_zero & (zeros_at[pos] == 1)
    return (_as_float_tensor(~reached, dtype).reshape(x.shape), x, src, result,
            _wrap(src_zero.reshape(index.shape)),
            _as_float_tensor(lone_zero, dtype).reshape(index.shape))


def _scatter_reduce_vjp(ctx, saved, grad):
    """Gradients of ``scatter_reduce`` for the output gradient ``grad``: ``(to input,
    to src)``, written with differentiable ops."""
    dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
    index = saved[0]
    if reduce == "sum":
        grad_x = grad if include_self else grad * saved[1]
        grad_src = gather(grad, dim, index)
    elif reduce == "mean":
        inv_count, not_reached = saved[1], saved[2]
        grad_x = grad * (inv_count if include_self else not_reached)
        grad_src = gather(grad * inv_count, dim, index)
    elif reduce in ("amax", "amin"):
        self_share, inv_hits, src_hit = saved[1:4]
        grad_x = grad * self_share
        grad_src = gather(grad * inv_hits, dim, index) * src_hit
    else:
        grad_x, grad_src = _scatter_prod_vjp(ctx, saved, grad)
    return grad_x, _pad_to(grad_src, ctx.src_shape)


def _shared_src_zeros(saved):
    """Do two zeros of src meet at one place (``prod``; see ``_scatter_reduce_saved``)?"""
    src_zero, lone_zero = saved[5], saved[6]
    return bool((_np(src_zero) & (_np(lone_zero) == 0)).any())


class _NoDoubleBackward(Function):
    """``value`` as is, in a graph whose backward raises ``message``: marks a gradient
    that is right but must not be differentiated again (``deps`` record the inputs)."""
    _node_name = "Error"

    @staticmethod
    def forward(ctx, value, message, *deps):
        ctx.message = message
        return _copy(value)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(ctx.message)


def _scatter_prod_vjp(ctx, saved, grad):
    dim, include_self = ctx.dim, ctx.include_self
    index, not_reached, x, src, result, src_zero, lone_zero = saved
    if include_self:
        # d(x * p)/dx = p, the product of the src values at the place (1 where none went)
        grad_x = grad * scatter_reduce(_C.ones(ctx.shape, dtype=src.dtype), dim, index, src,
                                       "prod")
    else:
        grad_x = grad * not_reached
    if tuple(src.shape) != tuple(index.shape):
        src = src[tuple(slice(0, n) for n in index.shape)]
    # a nonzero value: (product of all) / value; zeros are replaced by 1 before dividing
    safe_src = masked_fill(src, src_zero, 1.0)
    grad_src = gather(grad * result, dim, index) / safe_src
    if bool(_np(lone_zero).any()):
        # the only zero of src at its place: its partial derivative is the product of the
        # others (input included: a zero there is kept, as its derivative is needed)
        others = scatter_reduce(x, dim, index, safe_src, "prod", include_self=include_self)
        grad_src = where(src_zero, gather(grad * others, dim, index) * lone_zero, grad_src)
    else:
        grad_src = where(src_zero, 0.0, grad_src)
    return grad_x, grad_src


@tensor_method
def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """In place: reduce the values of ``src`` into ``input`` at ``index`` along ``dim``
    with ``reduce`` = ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.

    Every value sent to one place takes part; ``include_self=False`` leaves the values
    already in ``input`` out of the reduction at the places ``index`` reaches. Integer
    means round down, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, 2.0, 3.0])
    >>> idx, src = cygrad.tensor([0, 0, 2]), cygrad.tensor([5.0, -4.0, 1.0])
    >>> x.scatter_reduce_(0, idx, src, "amax").tolist()
    [5.0, 2.0, 3.0]
    """
    _require_tensor(input, "scatter_reduce_", "input", 1)
    dim = int_arg(dim, "scatter_reduce_", "dim", 1)
    _require_tensor(index, "scatter_reduce_", "index", 2)
    _require_tensor(src, "scatter_reduce_", "src", 3)
    reduce = _scatter_reduce_name(reduce, "scatter_reduce_")
    include_self = bool_arg(include_self, "scatter_reduce_", "include_self")
    _check_no_internal_overlap(input)
    if _C.needs_autograd(input, src):
        _check_inplace_target(input)
        # "prod" saves the input for backward: give it a snapshot, not the tensor written to
        old = input.clone() if reduce == "prod" else input
        return _write_back(input, ScatterReduce.apply(old, dim, index, src, reduce,
                                                      include_self))
    _scatter_into(input, dim, index, src, None, reduce, include_self)
    input._bump_version()
    return input


@tensor_method
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Out-of-place :meth:`Tensor.scatter_reduce_`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(3)
    >>> idx, src = cygrad.tensor([0, 0, 2]), cygrad.tensor([1.0, 3.0, 5.0])
    >>> cygrad.scatter_reduce(x, 0, idx, src, "mean", include_self=False).tolist()
    [2.0, 0.0, 5.0]
    """
    _require_tensor(input, "scatter_reduce", "input", 1)
    dim = int_arg(dim, "scatter_reduce", "dim", 2)
    _require_tensor(index, "scatter_reduce", "index", 3)
    _require_tensor(src, "scatter_reduce", "src", 4)
    reduce = _scatter_reduce_name(reduce, "scatter_reduce")
    include_self = bool_arg(include_self, "scatter_reduce", "include_self")
    if _C.needs_autograd(input, src):
        _no_out(out, "scatter_reduce")
        return ScatterReduce.apply(input, dim, index, src, reduce, include_self)
    _check_out_dtype(out, input.dtype)
    result = input.clone()
    _scatter_into(result, dim, index, src, None, reduce, include_self)
    return _finish(result, out)


@tensor_method
def take_along_dim(input, indices, dim=None, *, out=None):
    """Values of ``input`` at ``indices`` along ``dim`` (``np.take_along_axis``).

    ``input`` and ``indices`` broadcast against each other on every dim but ``dim``;
    negative indices count from the end. With ``dim=None`` both are flattened.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[10, 30, 20], [60, 40, 50]])
    >>> cygrad.take_along_dim(x, cygrad.tensor([[1], [0]]), dim=1).tolist()
    [[30], [60]]
    """
    _require_tensor(input, "take_along_dim", "input", 1)
    _require_tensor(indices, "take_along_dim", "indices", 2)
    if dim is not None:
        dim = int_arg(dim, "take_along_dim", "dim")
    if indices.dtype != _dt.int64:
        raise RuntimeError(f"take_along_dim(): dtype of indices should be Long but got "
                           f"{_tname(indices.dtype)}")
    if dim is None:
        return gather(input.reshape(-1), 0, indices.reshape(-1), out=out)
    if input.dim() != indices.dim():
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.dim()} dimensions for input, and "
                           f"{indices.dim()} dimensions for indices")
    dim = _dim(dim, input.dim())
    arr, idx = _np(input), _np(indices)
    if arr.ndim == 0:
        return gather(input, 0, indices, out=out)
    _check_out_dtype(out, input.dtype)
    ishape, xshape = list(arr.shape), list(idx.shape)
    ishape[dim] = xshape[dim] = 1
    common = list(_broadcast_shapes(ishape, xshape))
    size = arr.shape[dim]
    out_shape = common[:dim] + [idx.shape[dim]] + common[dim + 1:]
    if math.prod(out_shape):
        bad = _first_out_of_bounds(idx, -size, size)
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    if _C.needs_autograd(input):
        # as PyTorch: a gather from the broadcast input (the broadcast is a view, so the
        # gradient of the repeated elements sums up through it)
        _no_out(out, "take_along_dim")
        wide = input.expand(tuple(common[:dim] + [size] + common[dim + 1:]))
        positions = np.where(idx < 0, idx + size, idx)
        return gather(wide, dim, _wrap(np.broadcast_to(positions, out_shape).copy()))
    result = _empty(out_shape, input.dtype, input)
    if result.numel():
        src = np.broadcast_to(arr, common[:dim] + [size] + common[dim + 1:])
        np.copyto(_np(result), np.take_along_axis(src, np.broadcast_to(idx, out_shape), axis=dim))
    return _finish(result, out)


def _take_kernel(input, index):
    _require_tensor(index, "take", "index", 2)
    if index.dtype != _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_tname(index.dtype)}")
    arr, idx = _np(input), _np(index)
    n = arr.size
    bad = _first_out_of_bounds(idx, -n, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    result = _empty(idx.shape, input.dtype, input)
    if idx.size:
        _np(result)[...] = arr[np.unravel_index(idx % n, arr.shape)] if arr.ndim else arr
    return result


class Take(Function):
    """``take``; backward puts the gradient back with ``accumulate=True``."""
    _node_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, x, index):
        ctx.shape = tuple(x.shape)
        ctx.save_for_backward(index)
        return _take_kernel(x, index)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return put(_zeros(ctx.shape, grad.dtype), index, grad, accumulate=True), None

    @staticmethod
    def jvp(ctx, tx, _):
        return take(tx, _fwad.saved_for_jvp(ctx)[0])


@tensor_method
def take(input, index):
    """``input`` read as a flat 1-D tensor (in row-major order) at positions ``index``;
    the result has ``index``'s shape. Negative indices count from the end.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[4, 3], [5, 7]])
    >>> cygrad.take(x, cygrad.tensor([0, 3, -1])).tolist()
    [4, 7, 7]
    """
    _require_tensor(input, "take", "input", 1)
    if _C.needs_autograd(input):
        return Take.apply(input, index)
    return _take_kernel(input, index)


def _flat_places(input, index):
    """``(array, positions)``: NumPy indices of the flat (row-major) places ``index``
    names in ``input``, bounds-checked."""
    arr, idx = _np(input), _np(index).reshape(-1)
    n = arr.size
    bad = _first_out_of_bounds(idx, -n, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")
    target = arr.reshape(1) if arr.ndim == 0 else arr
    return target, np.unravel_index(idx % n, target.shape)


def _put_kernel(input, index, source, accumulate):
    """``put_`` without the version bump: checks, then writes into ``input``."""
    _require_tensor(index, "put_", "index", 1)
    _require_tensor(source, "put_", "source", 2)
    if index.dtype != _dt.int64:
        raise RuntimeError(f"put_(): Expected a long tensor for index, but got "
                           f"{_tname(index.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"put_(): self and source expected to have the same dtype, but got "
                           f"self.dtype = {_tname(input.dtype)} and source.dtype = "
                           f"{_tname(source.dtype)}")
    if source.numel() != index.numel():
        raise IndexError(f"put_(): Expected source and index to have the same number of "
                         f"elements, but got source.numel() = {source.numel()}, index.numel() = "
                         f"{index.numel()}")
    target, pos = _flat_places(input, index)
    if index.numel():
        vals = _np(source).reshape(-1)
        if np.may_share_memory(vals, target):
            vals = vals.copy()
        if accumulate:
            np.add.at(target, pos, vals)
        else:
            target[pos] = vals
    return input


def _clear_flat(mask, index):
    target, pos = _flat_places(mask, index)
    target[pos] = 0


class Put(Function):
    """``put``. Backward: without ``accumulate`` the overwritten places of ``input`` get
    no gradient; ``source`` gets the gradient at the places its values went to."""
    _node_name = "PutBackward0"

    @staticmethod
    def forward(ctx, x, index, source, accumulate):
        ctx.accumulate, ctx.shape = accumulate, tuple(x.shape)
        ctx.source_shape = tuple(source.shape)
        ctx.save_for_backward(index)
        return _put_kernel(_copy(x), index, source, accumulate)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_x = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_x = grad if ctx.accumulate else grad * _keep_mask(
                grad.shape, grad.dtype, lambda m: _clear_flat(m, index))
        if ctx.needs_input_grad[2]:
            grad_source = take(grad, index).reshape(ctx.source_shape)
        return grad_x, None, grad_source, None

    @staticmethod
    def jvp(ctx, tx, _, ts, __):
        index = _fwad.saved_for_jvp(ctx)[0]
        if ts is None and (tx is None or ctx.accumulate):
            return tx
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype)
        if ts is None:
            ts = _zeros(ctx.source_shape, tx.dtype)
        return put(base, index, ts, ctx.accumulate)


@tensor_method
def put_(input, index, source, accumulate=False):
    """In place: write ``source`` at the flat (row-major) positions ``index`` of ``input``;
    with ``accumulate=True`` add instead (repeated positions all add up).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 2)
    >>> x.put_(cygrad.tensor([0, -1]), cygrad.tensor([1.0, 2.0])).tolist()
    [[1.0, 0.0], [0.0, 2.0]]
    """
    accumulate = bool_arg(accumulate, "put_", "accumulate")
    _check_no_internal_overlap(input)
    if _C.needs_autograd(input, source):
        _check_inplace_target(input)
        return _write_back(input, Put.apply(input, index, source, accumulate))
    _put_kernel(input, index, source, accumulate)
    input._bump_version()
    return input


@tensor_method
def put(input, index, source, accumulate=False):
    """Out-of-place :meth:`Tensor.put_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.put(cygrad.zeros(3), cygrad.tensor([1]), cygrad.tensor([9.0])).tolist()
    [0.0, 9.0, 0.0]
    """
    _require_tensor(input, "put", "input", 1)
    accumulate = bool_arg(accumulate, "put", "accumulate")
    if _C.needs_autograd(input, source):
        return Put.apply(input, index, source, accumulate)
    return put_(input.clone(), index, source, accumulate)


# --------------------------------------------------------------------------- index_* family

def _index_vector(index, opname, dtypes, dtype_msg, error=RuntimeError):
    idx = _index_array(index, opname, dtypes, dtype_msg, error)
    if idx.ndim > 1:
        # PyTorch's wording and type differ per op
        if opname == "index_add_":
            raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                             f"{idx.ndim} with type: {_tname(index.dtype)} and size: "
                             f"{list(idx.shape)}")
        raise RuntimeError("Index has to be a vector/scalar")
    return idx.reshape(-1)


def _moved(arr, dim):
    """``arr`` with ``dim`` moved first (a view); 0-dim arrays as 1-D."""
    return np.moveaxis(arr.reshape(1) if arr.ndim == 0 else arr, dim, 0)


def _index_fill_kernel(input, dim, index, value):
    _require_tensor(index, "index_fill_", "index", 2)
    idx = _index_vector(index, "index_fill_", (_dt.int64,),
                        "index_fill_(): Expected dtype int64 for index.", IndexError)
    dim = _dim(dim, input.dim())
    fill = _fill_value(value, input.dtype, "index_fill_")
    arr = _moved(_np(input), dim)
    size = arr.shape[0]
    bad = _first_out_of_bounds(idx, -size, size)
    if bad is not None:
        raise IndexError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    arr[idx] = fill
    return input


def _clear_slices(mask, dim, index):
    """Zero the slices of ``mask`` at ``index`` (checked already) along ``dim``."""
    _moved(_np(mask), _dim(dim, mask.dim()))[_np(index).reshape(-1)] = 0


class IndexFill(Function):
    """``index_fill`` with a number: the filled slices get no gradient."""
    _node_name = "IndexFillBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, value):
        ctx.dim, ctx.shape, ctx.dtype = dim, tuple(x.shape), x.dtype
        ctx.save_for_backward(index)
        return _index_fill_kernel(_copy(x), dim, index, value)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        keep = _keep_mask(grad.shape, grad.dtype, lambda m: _clear_slices(m, ctx.dim, index))
        # a 0-dim value tensor gets the gradient of every filled place (the engine sums it)
        grad_value = grad * (1 - keep) if ctx.needs_input_grad[3] else None
        return grad * keep if ctx.needs_input_grad[0] else None, None, None, grad_value

    @staticmethod
    def jvp(ctx, tx, _, __, tv):
        if tx is None and tv is None:
            return None
        base = tx if tx is not None else _zeros(ctx.shape, ctx.dtype)
        return index_fill(base, ctx.dim, _fwad.saved_for_jvp(ctx)[0], 0 if tv is None else tv)


class IndexFillTensor(IndexFill):
    """``index_fill`` with a 0-dim tensor value (which gets a gradient too)."""
    _node_name = "IndexFillBackward1"


def _index_fill_function(value):
    return IndexFillTensor if isinstance(value, TensorBase) else IndexFill


@tensor_method
def index_fill_(input, dim, index, value):
    """In place: fill the slices of ``input`` at positions ``index`` along ``dim`` with
    ``value`` (a number or a 0-dim tensor). Negative indices count from the end.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 3)
    >>> x.index_fill_(1, cygrad.tensor([0, -1]), 7.0).tolist()
    [[7.0, 0.0, 7.0], [7.0, 0.0, 7.0]]
    """
    dim = int_arg(dim, "index_fill_", "dim", 1)
    _fill_arg(value, "index_fill_")
    if _C.needs_autograd(input, value):
        _check_inplace_target(input)
        return _write_back(input, _index_fill_function(value).apply(input, dim, index, value))
    _index_fill_kernel(input, dim, index, value)
    input._bump_version()
    return input


@tensor_method
def index_fill(input, dim, index, value):
    """Out-of-place :meth:`Tensor.index_fill_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.index_fill(cygrad.zeros(3), 0, cygrad.tensor([1]), 2.0).tolist()
    [0.0, 2.0, 0.0]
    """
    _require_tensor(input, "index_fill", "input", 1)
    dim = int_arg(dim, "index_fill", "dim", 2)
    _fill_arg(value, "index_fill")
    if _C.needs_autograd(input, value):
        return _index_fill_function(value).apply(input, dim, index, value)
    return index_fill_(input.clone(), dim, index, value)


def _slices(t, dim):
    """The shape of ``t`` without ``dim`` (a 0-dim tensor has none)."""
    shape = tuple(t.shape)
    return shape[:dim] + shape[dim + 1:] if shape else ()


def _moved_pair(input, dim, source):
    """``(target, source)`` NumPy views with ``dim`` moved first (0-dim as 1-D); the
    source is copied when it shares memory with the target."""
    arr, src = _moved(_np(input), dim), _np(source)
    src = _moved(src, dim) if src.ndim else src.reshape(1)
    if np.may_share_memory(src, arr):
        src = src.copy()
    return arr, src


def _index_copy_checks(input, dim, index, source):
    """PyTorch's checks of ``index_copy_``, in its order: ``(dim, index array)``."""
    _require_tensor(index, "index_copy_", "index", 2)
    _require_tensor(source, "index_copy_", "source", 3)
    dim = _dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    n = index.numel()
    if source.dim() == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {n})")
    if source.dim() != input.dim() and source.dim() != 0 and input.dim() != 0:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.dim()}), "
                         f"destination dimensionality ({input.dim()})")
    if index.dtype != _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_tname(index.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_tname(input.dtype)} and (source) {_tname(source.dtype)}")
    if _slices(input, dim) != _slices(source, dim):
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {_shape_str(_slices(input, dim))} at "
                           f"dimension {dim} and source slice shape: "
                           f"{_shape_str(_slices(source, dim))} at dimension 0.")
    if source.dim() and n != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    return dim, _np(index).reshape(-1)


def _index_copy_kernel(input, dim, index, source):
    dim, idx = _index_copy_checks(input, dim, index, source)
    arr, src = _moved_pair(input, dim, source)
    bad = _first_out_of_bounds(idx, 0, arr.shape[0])
    if bad is not None:
        raise IndexError(f"index_copy_(): index {bad} is out of bounds for dimension {dim} with "
                         f"size {arr.shape[0]}")
    arr[idx] = src
    return input


class IndexCopy(Function):
    """``index_copy``: the overwritten slices of ``input`` get no gradient; ``source``
    gets the gradient of the slices it went to."""
    _node_name = "IndexCopyBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, source):
        ctx.dim, ctx.shape, ctx.source_shape = dim, tuple(x.shape), tuple(source.shape)
        ctx.save_for_backward(index)
        return _index_copy_kernel(_copy(x), dim, index, source)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_x = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_x = grad * _keep_mask(grad.shape, grad.dtype,
                                       lambda m: _clear_slices(m, ctx.dim, index))
        if ctx.needs_input_grad[3]:
            grad_source = index_select(grad, ctx.dim, index).reshape(ctx.source_shape)
        return grad_x, None, None, grad_source

    @staticmethod
    def jvp(ctx, tx, _, __, ts):
        index = _fwad.saved_for_jvp(ctx)[0]
        if ts is None and tx is None:
            return None
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype)
        if ts is None:
            ts = _zeros(ctx.source_shape, tx.dtype)
        return index_copy(base, ctx.dim, index, ts)


@tensor_method
def index_copy_(input, dim, index, source):
    """In place: copy the slices of ``source`` into ``input`` along ``dim`` at positions
    ``index``: ``self[:, index[i]] = source[:, i]`` for ``dim=1``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 3)
    >>> x.index_copy_(1, cygrad.tensor([2, 0]), cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[2.0, 0.0, 1.0], [4.0, 0.0, 3.0]]
    """
    dim = int_arg(dim, "index_copy_", "dim", 1)
    _check_no_internal_overlap(input)
    if _C.needs_autograd(input, source):
        _check_inplace_target(input)
        return _write_back(input, IndexCopy.apply(input, dim, index, source))
    _index_copy_kernel(input, dim, index, source)
    input._bump_version()
    return input


@tensor_method
def index_copy(input, dim, index, source):
    """Out-of-place :meth:`Tensor.index_copy_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.index_copy(cygrad.zeros(3), 0, cygrad.tensor([2]), cygrad.tensor([5.0])).tolist()
    [0.0, 0.0, 5.0]
    """
    _require_tensor(input, "index_copy", "input", 1)
    dim = int_arg(dim, "index_copy", "dim", 2)
    if _C.needs_autograd(input, source):
        return IndexCopy.apply(input, dim, index, source)
    return index_copy_(input.clone(), dim, index, source)


def _index_add_checks(input, dim, index, source):
    """PyTorch's checks of ``index_add_``, in its order: ``(dim, index array)``."""
    _require_tensor(index, "index_add_", "index", 2)
    _require_tensor(source, "index_add_", "source", 3)
    dim = _dim(dim, input.dim())
    idx = _index_vector(index, "index_add_", _INDEX_DTYPES,
                        "index_add_(): Expected dtype int32/int64 for index")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_add_(): self ({_tname(input.dtype)}) and source "
                           f"({_tname(source.dtype)}) must have the same scalar type")
    if dim != 0 and dim >= source.dim():
        raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source "
                           f"tensor with dim {source.dim()}")
    size = source.shape[dim] if source.dim() else 1
    if idx.size != size:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.size}) should be equal to "
                           f"source.size(dim): ({size}), for dim: {dim}")
    if source.dim() != input.dim() or _slices(source, dim) != _slices(input, dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {_shape_str(input.shape)} "
                           f"source.shape = {_shape_str(source.shape)}")
    return dim, idx


def _index_add_kernel(input, dim, index, source, alpha):
    dim, idx = _index_add_checks(input, dim, index, source)
    arr, src = _moved_pair(input, dim, source)
    bad = _first_out_of_bounds(idx, 0, arr.shape[0])
    if bad is not None:
        if input.dim() <= 1:    # PyTorch's 1-D kernel has its own check, with its own type
            raise IndexError("index out of range in self")
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                           f"{arr.shape[0]}")
    if alpha != 1:
        src = (src * _scalar_array(alpha, input.dtype)).astype(arr.dtype)
    np.add.at(arr, idx, src)
    return input


class IndexAdd(Function):
    """``index_add``: ``input``'s gradient passes unchanged; ``source`` gets
    ``alpha`` times the gradient of the slices it was added to."""
    _node_name = "IndexAddBackward0"

    @staticmethod
    def forward(ctx, x, dim, index, source, alpha):
        ctx.dim, ctx.alpha, ctx.shape = dim, alpha, tuple(x.shape)
        ctx.source_shape = tuple(source.shape)
        ctx.save_for_backward(index)
        return _index_add_kernel(_copy(x), dim, index, source, alpha)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_source = None
        if ctx.needs_input_grad[3]:
            grad_source = index_select(grad, ctx.dim, index).reshape(ctx.source_shape)
            if ctx.alpha != 1:
                grad_source = grad_source * ctx.alpha
        return grad, None, None, grad_source, None

    @staticmethod
    def jvp(ctx, tx, _, __, ts, ___):
        if ts is None:
            return tx
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype)
        return index_add(base, ctx.dim, _fwad.saved_for_jvp(ctx)[0], ts, alpha=ctx.alpha)


@tensor_method
def index_add_(input, dim, index, source, *, alpha=1):
    """In place: add ``alpha * source`` into the slices of ``input`` at ``index`` along
    ``dim``; repeated indices all add up.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(3)
    >>> x.index_add_(0, cygrad.tensor([0, 0]), cygrad.tensor([1.0, 2.0])).tolist()
    [3.0, 0.0, 0.0]
    """
    dim = int_arg(dim, "index_add_", "dim", 1)
    alpha = _fits(_number_arg(alpha, "index_add_", "alpha"), input.dtype)
    _check_no_internal_overlap(input)
    if _C.needs_autograd(input, source):
        _check_inplace_target(input)
        return _write_back(input, IndexAdd.apply(input, dim, index, source, alpha))
    _index_add_kernel(input, dim, index, source, alpha)
    input._bump_version()
    return input


@tensor_method
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Out-of-place :meth:`Tensor.index_add_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.index_add(cygrad.ones(2), 0, cygrad.tensor([1]), cygrad.tensor([2.0])).tolist()
    [1.0, 3.0]
    """
    _require_tensor(input, "index_add", "input", 1)
    dim = int_arg(dim, "index_add", "dim", 2)
    alpha = _fits(_number_arg(alpha, "index_add", "alpha"), input.dtype)
    if _C.needs_autograd(input, source):
        _no_out(out, "index_add")
        return IndexAdd.apply(input, dim, index, source, alpha)
    _check_out_dtype(out, input.dtype)
    return _finish(index_add_(input.clone(), dim, index, source, alpha=alpha), out)


# --------------------------------------------------------------------------- masks

def _check_mask(mask, message):
    if not isinstance(mask, TensorBase):
        raise TypeError(f"argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask.dtype != _dt.bool_:
        raise RuntimeError(message)


def _masked_fill_kernel(input, mask, value):
    """Fill ``input`` in place where ``mask`` (broadcast to ``input``) is True."""
    _check_mask(mask, f"masked_fill_ only supports boolean masks, but got mask with dtype "
                      f"{_C10_NAMES[mask.dtype.name]}")
    fill = _fill_value(value, input.dtype, "masked_fill_")
    shape = tuple(input.shape)
    full = _broadcast_shapes(shape, tuple(mask.shape))
    if full != shape:
        raise RuntimeError(f"output with shape {_shape_str(shape)} doesn't match the broadcast "
                           f"shape {_shape_str(full)}")
    if input.numel():
        np.copyto(_np(input), fill, where=np.broadcast_to(_np(mask), shape))
    return input


def _masked_fill_out_of_place(input, mask, value):
    _check_mask(mask, f"masked_fill_ only supports boolean masks, but got mask with dtype "
                      f"{_C10_NAMES[mask.dtype.name]}")
    shape = _broadcast_shapes(tuple(mask.shape), tuple(input.shape))
    result = _empty(shape, input.dtype, input)
    _C._copy_into(result, input)
    return _masked_fill_kernel(result, mask, value)


class MaskedFill(Function):
    """``masked_fill`` with a number: the filled places get no gradient."""
    _node_name = "MaskedFillBackward0"

    @staticmethod
    def forward(ctx, x, mask, value):
        result = _masked_fill_out_of_place(x, mask, value)
        ctx.shape, ctx.dtype = tuple(result.shape), result.dtype
        ctx.save_for_backward(mask)
        return result

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        filled = np.broadcast_to(_np(mask), ctx.shape)
        keep = _wrap((~filled).astype(grad.dtype.np_dtype))
        # a 0-dim value tensor gets the gradient of every filled place (the engine sums it)
        grad_value = grad * (1 - keep) if ctx.needs_input_grad[2] else None
        return grad * keep if ctx.needs_input_grad[0] else None, None, grad_value

    @staticmethod
    def jvp(ctx, tx, _, tv):
        if tx is None and tv is None:
            return None
        base = tx if tx is not None else _zeros(ctx.shape, ctx.dtype)
        return masked_fill(base, _fwad.saved_for_jvp(ctx)[0], 0 if tv is None else tv)


class MaskedFillTensor(MaskedFill):
    """``masked_fill`` with a 0-dim tensor value (which gets a gradient too)."""
    _node_name = "MaskedFillBackward1"


def _masked_fill_function(value):
    return MaskedFillTensor if isinstance(value, TensorBase) else MaskedFill


@tensor_method
def masked_fill_(input, mask, value):
    """In place: set ``input`` to ``value`` where the bool ``mask`` (broadcastable to
    ``input``) is True. ``value`` is a number or a 0-dim tensor.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 2)
    >>> x.masked_fill_(cygrad.tensor([True, False]), 1.0).tolist()
    [[1.0, 0.0], [1.0, 0.0]]
    """
    _require_tensor(mask, "masked_fill_", "mask", 2)
    _fill_arg(value, "masked_fill_")
    if _C.needs_autograd(input, value):
        _check_inplace_target(input)
        shape = tuple(input.shape)
        full = (_broadcast_shapes(shape, tuple(mask.shape)) if isinstance(mask, TensorBase)
                else shape)
        if full != shape:     # the Function would broadcast; in place must not grow
            raise RuntimeError(f"output with shape {_shape_str(shape)} doesn't match the "
                               f"broadcast shape {_shape_str(full)}")
        return _write_back(input, _masked_fill_function(value).apply(input, mask, value))
    _masked_fill_kernel(input, mask, value)
    input._bump_version()
    return input


@tensor_method
def masked_fill(input, mask, value):
    """``input`` with ``value`` where ``mask`` is True; ``input`` and ``mask`` broadcast.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, -2.0, 3.0])
    >>> cygrad.masked_fill(x, x < 0, 0.0).tolist()
    [1.0, 0.0, 3.0]
    """
    _require_tensor(input, "masked_fill", "input", 1)
    _require_tensor(mask, "masked_fill", "mask", 2)
    _fill_arg(value, "masked_fill")
    if _C.needs_autograd(input, value):
        return _masked_fill_function(value).apply(input, mask, value)
    return _masked_fill_out_of_place(input, mask, value)


def _masked_select_kernel(input, mask, out=None):
    _check_mask(mask, "masked_select: expected BoolTensor for mask")
    _check_out_dtype(out, input.dtype, "masked_select(): self and result must have the same "
                                       "scalar type")
    shape = _broadcast_shapes(tuple(mask.shape), tuple(input.shape))
    m = np.broadcast_to(_np(mask), shape)
    result = _empty((int(np.count_nonzero(m)),), input.dtype, input)
    if result.numel():
        _np(result)[...] = np.broadcast_to(_np(input), shape)[m]
    return result


class MaskedSelect(Function):
    """``masked_select``; backward puts the gradient back at the selected places of a
    zero tensor (summed over broadcasting by the engine)."""
    _node_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, x, mask):
        result = _masked_select_kernel(x, mask)
        shape = _broadcast_shapes(tuple(mask.shape), tuple(x.shape))
        # as a 1-D (or more) mask plan; a 0-dim result shape is restored in backward
        selected = np.broadcast_to(_np(mask), shape).reshape(shape or (1,)).copy()
        ctx.shape, ctx.plan = shape, _IndexPlan((), (selected,), tuple(result.shape))
        return result

    @staticmethod
    def backward(ctx, grad):
        grad_x = _index_scatter(grad, ctx.plan, ctx.shape or (1,))
        return (grad_x.reshape(ctx.shape) if not ctx.shape else grad_x), None

    @staticmethod
    def jvp(ctx, tx, _):
        wide = tx.expand(ctx.shape) if tuple(tx.shape) != ctx.shape else tx
        return _index_get(wide.reshape(ctx.shape or (1,)), ctx.plan)


@tensor_method
def masked_select(input, mask, *, out=None):
    """The elements of ``input`` where the bool ``mask`` is True, as a 1-D tensor
    (``input`` and ``mask`` broadcast).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2], [3, 4]])
    >>> cygrad.masked_select(x, x > 1).tolist()
    [2, 3, 4]
    """
    _require_tensor(input, "masked_select", "input", 1)
    if _C.needs_autograd(input):
        _check_out_dtype(out, input.dtype, "masked_select(): self and result must have the "
                                           "same scalar type")
        _no_out(out, "masked_select")
        return MaskedSelect.apply(input, mask)
    return _finish(_masked_select_kernel(input, mask, out), out)


# --------------------------------------------------------------------------- where / nonzero

@tensor_method
def nonzero(input, *, out=None, as_tuple=False):
    """Positions of the non-zero elements of ``input``.

    ``as_tuple=False``: an int64 tensor of shape ``(n, input.dim())``, one row per
    element in row-major order. ``as_tuple=True``: one 1-D int64 tensor per dim, as
    ``np.nonzero`` (a 0-dim input counts as 1-D).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[0, 1], [2, 0]])
    >>> cygrad.nonzero(x).tolist()
    [[0, 1], [1, 0]]
    >>> [t.tolist() for t in cygrad.nonzero(x, as_tuple=True)]
    [[0, 1], [1, 0]]
    """
    _require_tensor(input, "nonzero", "input", 1)
    arr = _np(input)
    if bool_arg(as_tuple, "nonzero", "as_tuple"):
        return tuple(_wrap(a.astype(np.int64, copy=False)) for a in np.nonzero(np.atleast_1d(arr)))
    if isinstance(out, TensorBase) and out.dtype != _dt.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar "
                           f"type {_tname(out.dtype)}")
    result = _wrap(np.argwhere(arr).astype(np.int64, copy=False))
    return _finish(result, out)


@tensor_method
def argwhere(input):
    """Same as ``nonzero(input)``: an ``(n, input.dim())`` int64 tensor of positions.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.argwhere(cygrad.tensor([0, 3, 0, 4])).tolist()
    [[1], [3]]
    """
    return nonzero(input)


def _where_operand(x):
    """A tensor for a ``where`` branch; Python numbers become 0-dim tensors of their
    default dtype (the promotion is decided separately, with scalars as weak types)."""
    if isinstance(x, TensorBase):
        return x
    if isinstance(x, (bool, np.bool_)):
        dtype = _dt.bool_
    elif isinstance(x, np.generic):
        dtype = _dt.as_dtype(x.dtype)
    elif isinstance(x, int):
        dtype = _dt.int64
    elif isinstance(x, float):
        dtype = _dt.get_default_dtype()
    else:
        raise TypeError(f"where(): expected Tensor or Number, got {type(x).__name__}")
    return from_numpy(np.asarray(x, dtype=dtype.np_dtype))


def _where_kernel(condition, input, other):
    if isinstance(input, TensorBase) or isinstance(other, TensorBase):
        dtype = _C.result_type(input, other)
    else:
        dtype = _C.result_type(_where_operand(input), _where_operand(other))
    x, y = _where_operand(input), _where_operand(other)
    shape = _broadcast_shapes(tuple(condition.shape), tuple(x.shape), tuple(y.shape))
    result = _empty(shape, dtype, x)
    if result.numel():
        res = _np(result)
        np.copyto(res, np.broadcast_to(_np(y), shape), casting="unsafe")
        np.copyto(res, np.broadcast_to(_np(x), shape), casting="unsafe",
                  where=np.broadcast_to(_np(condition).astype(bool, copy=False), shape))
    return result


class Where(Function):
    """``where``: each branch gets the gradient where it was chosen, zero elsewhere
    (summed over broadcasting by the engine)."""
    _node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, condition, x, y):
        ctx.save_for_backward(condition)
        return _where_kernel(condition, x, y)

    @staticmethod
    def backward(ctx, grad):
        condition, = ctx.saved_tensors
        return (None,
                where(condition, grad, 0.0) if ctx.needs_input_grad[1] else None,
                where(condition, 0.0, grad) if ctx.needs_input_grad[2] else None)

    @staticmethod
    def jvp(ctx, _, tx, ty):
        if tx is None and ty is None:
            return None
        condition = _fwad.saved_for_jvp(ctx)[0]
        return where(condition, 0.0 if tx is None else tx, 0.0 if ty is None else ty)


def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` is True, else ``other`` (all three broadcast).

    ``input``/``other`` may be Python numbers; the result dtype follows type promotion
    (``cygrad.result_type``). ``where(condition)`` is ``nonzero(condition, as_tuple=True)``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, -2.0, 3.0])
    >>> cygrad.where(x > 0, x, 0).tolist()
    [1.0, 0.0, 3.0]
    >>> cygrad.where(x > 0)[0].tolist()
    [0, 2]
    """
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() expected 1 or 3 arguments (condition, input, other)")
    if not isinstance(condition, TensorBase):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not "
                        f"{type(condition).__name__}")
    if condition.dtype not in (_dt.bool_, _dt.uint8):
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_tname(condition.dtype)}")
    if out is not None:
        # only where(Tensor, Tensor, Tensor) has an out= overload in PyTorch
        _require_tensor(input, "where", "input", 2)
        _require_tensor(other, "where", "other", 3)
    if _C.needs_autograd(input, other):
        _no_out(out, "where")
        return Where.apply(condition, input, other)
    result = _where_kernel(condition, input, other)
    if isinstance(out, TensorBase) and out.dtype != result.dtype:
        raise RuntimeError(f"Expected out type to be {_tname(result.dtype)} but got "
                           f"{_tname(out.dtype)}")
    return _finish(result, out)


@tensor_method(name="where")
def _where_method(self, condition, other):
    """``self`` where ``condition`` is True, else ``other``
    (``cygrad.where(condition, self, other)``).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1, -2])
    >>> x.where(x > 0, 0).tolist()
    [1, 0]
    """
    return where(condition, self, other)
