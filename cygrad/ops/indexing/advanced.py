"""Advanced indexing: ``t[idx]``, ``t[idx] = v`` and ``index_put``.

The Cython core handles basic indexing (ints, slices, ``None``, ``...``) as views.
When an index holds anything else (an integer tensor, a list, an ndarray, a bool mask,
a Python bool) the core calls :func:`_getitem_hook` / :func:`_setitem_hook` below.

How an advanced index is computed (PyTorch's rules, which are NumPy's except that a
plain int is always applied first as a view, the way ``select`` does):

1. :func:`_plan_index` sorts the index into a *basic* part (ints, slices, ``None``;
   applied as a zero-copy view) and *advanced* int64 tensors, one per indexed dim of
   that view. Bool masks become the integer tensors of their ``True`` positions and
   a Python ``True``/``False`` becomes a new axis indexed by ``[0]`` / ``[]``.
2. Every index value is checked against its dim *before* any memory is read or
   written, and errors are raised with PyTorch's types and messages (a write checks
   its value's shape and dtype first, as PyTorch does).
3. The advanced arrays broadcast together; their dims replace the indexed dims in
   place when the indexed dims are adjacent, and go first otherwise (NumPy's rule).

Examples
--------
>>> import cygrad
>>> x = cygrad.arange(6).reshape(2, 3)
>>> x[cygrad.tensor([1, 0]), 2].tolist()
[5, 2]
"""
import math
import warnings

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._argcheck import bool_arg
from ._common import (ARRAY_TYPES, BOOL_TYPES, INT_TYPES, NUMBER_TYPES, _INDEX_DTYPES,
                      _broadcast_shapes, _k, _require_tensor, _scalar_array, _shape_str, _tname)
from ._autograd import _apply_inplace, _keep_mask, _target, _written, _zeros

__all__ = ["index_put"]


class _IndexPlan:
    """An advanced index resolved against one tensor.

    ``basic`` is applied first (a view), then ``advanced`` (a tuple holding one int64
    tensor, or one bool mask, per indexed dim of that view and ``slice(None)``
    elsewhere). ``shape`` is the shape of the result. ``bounds`` holds what
    :meth:`check_bounds` still has to check (None once checked). ``private``: the
    index tensors are the plan's own copies (see :meth:`owned`).
    """
    __slots__ = ("basic", "advanced", "shape", "bounds", "private")

    def __init__(self, basic, advanced, shape, bounds=None, private=False):
        self.basic = basic
        self.advanced = advanced
        self.shape = shape
        self.bounds = bounds
        self.private = private

    def numel(self):
        return math.prod(self.shape)

    def check_bounds(self):
        """Raise PyTorch's IndexError for an index out of range (once)."""
        if self.bounds is not None:
            bounds, self.bounds = self.bounds, None
            _check_advanced_bounds(*bounds)

    def owned(self):
        """This plan with private copies of its index tensors. Autograd keeps a plan
        until backward; the caller's index tensors could change before then."""
        if self.private:
            return self
        advanced = tuple(a.clone() if isinstance(a, TensorBase) else a for a in self.advanced)
        return _IndexPlan(self.basic, advanced, self.shape, self.bounds, True)

    def get(self, x):
        """A new tensor ``x[index]``."""
        return _k("index_get", x)(x, self.basic, self.advanced, self.shape)

    def put(self, x, values, accumulate=False):
        """In place: ``x[index] = values`` (``+=`` with repeats counted when
        ``accumulate``); ``values`` a tensor of ``x``'s dtype or a number."""
        if self.numel():
            _k("index_put", x)(x, self.basic, self.advanced, values, accumulate)


def _is_int(x):
    return isinstance(x, INT_TYPES) and not isinstance(x, BOOL_TYPES)


def _mask_warning(dtype_name):
    warnings.warn(f"indexing with dtype {dtype_name} is now deprecated, please use a dtype "
                  "cygrad.bool instead.", UserWarning, stacklevel=4)


def _classify(idx):
    """One index item as ("basic", item), ("int", i), ("bool", b), ("mask", ndarray) or
    ("array", int64 ndarray)."""
    if idx is None or idx is Ellipsis or isinstance(idx, slice):
        return "basic", idx
    if isinstance(idx, BOOL_TYPES):
        return "bool", bool(idx)
    if _is_int(idx):
        return "int", int(idx)
    if isinstance(idx, TensorBase):
        if idx.dtype in (_dt.bool_, _dt.uint8):
            if idx.dtype == _dt.uint8:
                _mask_warning("cygrad.uint8")
            if idx.dim() == 0:
                return "bool", bool(idx.item())
            return "mask", idx if idx.dtype == _dt.bool_ else idx.to(_dt.bool_)
        if idx.dtype not in _INDEX_DTYPES:
            # raised once the slices and ints are read (PyTorch checks index dtypes last)
            return "invalid", IndexError("tensors used as indices must be long, int, byte or "
                                         "bool tensors")
        if idx.dim() == 0:          # PyTorch treats a 0-dim integer tensor like an int
            return "int", int(idx.item())
        return "array", idx
    if isinstance(idx, (list, tuple) + ARRAY_TYPES):
        # A uint8 ndarray is a (deprecated) mask, as a uint8 tensor; a list of small ints
        # is not. Like PyTorch, numeric sequences become int64 indices (floats truncate).
        kind, arr = kernel("index_from_sequence", "cpu")(idx)     # Python data: CPU
        if kind == "bad":
            raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or "
                             f"byte Variables are valid indices (got {type(idx).__name__})")
        if kind == "uint8":
            _mask_warning("uint8")
        if kind in ("bool", "uint8"):
            return ("bool", bool(arr.item())) if arr.dim() == 0 else ("mask", arr)
        return ("int", int(arr.item())) if arr.dim() == 0 else ("array", arr)
    raise IndexError(f"only integers, slices (`:`), ellipsis (`...`), None and long or byte "
                     f"Variables are valid indices (got {type(idx).__name__})")


def _consumed(kind, item):
    if kind in ("int", "array", "invalid"):
        return 1
    if kind == "mask":
        return item.dim()
    if kind == "basic" and isinstance(item, slice):
        return 1
    return 0


def _plan_index(t, index, defer_bounds=False):
    """Resolve ``index`` (a tuple) against tensor ``t``: an :class:`_IndexPlan`, or a
    tuple of basic items when nothing advanced is left (0-dim int tensors are ints).
    With ``defer_bounds`` the index values are checked by ``plan.check_bounds()``
    (a write checks its value first, as PyTorch does)."""
    if (len(index) == 1 and isinstance(index[0], list)
            and any(x is None or x is Ellipsis or isinstance(x, slice) for x in index[0])):
        index = tuple(index[0])      # PyTorch reads t[[0, slice(None)]] as t[0, :]
    if len(index) == 1:
        kind, item = _classify(index[0])
        if (kind == "array" or kind == "mask") and t.dim() > 0:
            return _plan_single(t, kind, item, defer_bounds)
        items = [(kind, item)]
    else:
        items = [_classify(idx) for idx in index]
    if not any(kind in ("bool", "mask", "array", "invalid") for kind, _ in items):
        return tuple(item for _, item in items)

    ndim = t.dim()
    consumed = sum(_consumed(kind, item) for kind, item in items)
    if consumed > ndim:
        raise IndexError(f"too many indices for tensor of dimension {ndim}")

    shape = tuple(t.shape)
    basic = []            # NumPy basic index applied to t's ndarray
    view_shape = []       # shape of the basic view
    adv = []              # (view dim, int array, size of that dim)
    masks = []            # (view dim, mask, its place in adv), checked once view_shape is known
    d = 0                 # next dim of t
    invalid = None        # the first index tensor of a wrong dtype
    for kind, item in items:
        if item is not Ellipsis and d + _consumed(kind, item) > ndim:
            # PyTorch lets every ``...`` skip the unindexed dims: past a second one
            # nothing is left to index
            raise IndexError(f"too many indices for tensor of dimension {ndim}")
        if kind == "basic" and item is Ellipsis:
            for _ in range(ndim - consumed):
                if d < ndim:
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
            adv.append((len(view_shape), _C.zeros((1 if item else 0,), dtype=_dt.int64), 1))
            view_shape.append(1)
        elif kind == "array":
            basic.append(slice(None))
            adv.append((len(view_shape), item, shape[d]))
            view_shape.append(shape[d])
            d += 1
        elif kind == "invalid":
            invalid = invalid or item
            d += 1
        else:
            masks.append((len(view_shape), item, len(adv)))
            for _ in range(item.dim()):
                basic.append(slice(None))
                view_shape.append(shape[d])
                d += 1
    view_shape.extend(shape[min(d, ndim):])
    if invalid is not None:
        raise invalid

    for v, mask, _ in masks:
        for j, size in enumerate(mask.shape):
            if v + j >= len(view_shape) or size != view_shape[v + j]:
                raise IndexError(f"The shape of the mask {_shape_str(mask.shape)} at index {j} "
                                 f"does not match the shape of the indexed tensor "
                                 f"{_shape_str(view_shape)} at index {v + j}")
    # Masks become the integer arrays of their True positions, in order with the rest
    # (inserted back to front so the recorded positions stay valid).
    for v, mask, pos in reversed(masks):
        nonzero = _k("nonzero", mask)(mask, True)
        adv[pos:pos] = [(v + j, nz, view_shape[v + j]) for j, nz in enumerate(nonzero)]

    arrays = [a for _, a, _ in adv]
    try:
        bshape = _broadcast_shapes(*(tuple(a.shape) for a in arrays)) if len(arrays) > 1 \
            else tuple(arrays[0].shape)
    except RuntimeError:
        raise IndexError("shape mismatch: indexing tensors could not be broadcast together with "
                         "shapes " + ", ".join(_shape_str(a.shape) for a in arrays)) from None

    dims = [v for v, _, _ in adv]
    rest = [s for i, s in enumerate(view_shape) if i not in dims]
    if dims == list(range(dims[0], dims[0] + len(dims))):
        result_shape = tuple(view_shape[:dims[0]]) + bshape + tuple(view_shape[dims[-1] + 1:])
    else:
        result_shape = bshape + tuple(rest)

    advanced = [slice(None)] * len(view_shape)
    for v, a, _ in adv:
        advanced[v] = a
    return _planned(tuple(basic), tuple(advanced), result_shape, (adv, bshape, result_shape),
                    defer_bounds)


def _planned(basic, advanced, shape, bounds, defer_bounds):
    adv, bshape, _ = bounds
    if 0 not in bshape and any(size == 0 for _, _, size in adv):
        # refused before anything else, a write's value included (PyTorch's order)
        raise IndexError("index is out of bounds for dimension with size 0")
    plan = _IndexPlan(basic, advanced, shape, bounds)
    if not defer_bounds:
        plan.check_bounds()
    return plan


def _plan_single(t, kind, item, defer_bounds=False):
    """Fast path of :func:`_plan_index` for ``t[int_array]`` and ``t[mask]`` (same rules)."""
    shape = tuple(t.shape)
    if kind == "mask":
        k = item.dim()
        if k > len(shape):
            raise IndexError(f"too many indices for tensor of dimension {len(shape)}")
        if tuple(item.shape) != shape[:k]:
            for j in range(k):
                if item.shape[j] != shape[j]:
                    raise IndexError(f"The shape of the mask {_shape_str(item.shape)} at index "
                                     f"{j} does not match the shape of the indexed tensor "
                                     f"{_shape_str(shape)} at index {j}")
        # a leading mask alone: a mask index of the kernel has the same meaning
        return _IndexPlan((), (item,), (_k("count_true", item)(item),) + shape[k:])
    result_shape = tuple(item.shape) + shape[1:]
    return _planned((), (item,), result_shape, ([(0, item, shape[0])], tuple(item.shape),
                                                 result_shape), defer_bounds)


def _check_advanced_bounds(adv, bshape, result_shape):
    """Raise PyTorch's IndexError for the first bad index (broadcast C order; within one
    position, the first index array).  An indexed dim of size 0 with a non-empty index
    shape is refused up front, as PyTorch does even when another dim empties the
    result; otherwise an empty result reads nothing and checks nothing."""
    if 0 not in bshape and any(size == 0 for _, _, size in adv):
        raise IndexError("index is out of bounds for dimension with size 0")
    if math.prod(result_shape) == 0:
        return
    arrays = [a for _, a, _ in adv]
    found = _k("first_bad_index", arrays[0])(arrays, [size for _, _, size in adv], bshape)
    if found is not None:
        k, value = found
        raise IndexError(f"index {value} is out of bounds for dimension {k} with size "
                         f"{adv[k][2]}")


def _several_ellipses(index):
    """Does ``index`` hold basic items only, with more than one ``...``?"""
    n = 0
    for idx in index:
        if idx is Ellipsis:
            n += 1
        elif not (idx is None or isinstance(idx, slice) or _is_int(idx)):
            return False
    return n > 1


def _in_range(dim, ndim):
    if dim >= ndim:
        raise IndexError(f"Dimension out of range (expected to be in range of [{-ndim}, "
                         f"{ndim - 1}], but got {dim})")
    return dim


def _index_past_ellipses(t, index):
    """``t[index]`` (basic items, several ``...``) as PyTorch reads it: each ``...`` moves
    the indexed dim on by the dims it stands for, so past a second one that stands for
    any, later items meet dims further on, or none (IndexError)."""
    skip = t.dim() - sum(1 for idx in index if idx is not None and idx is not Ellipsis)
    if skip < 0:
        raise IndexError(f"too many indices for tensor of dimension {t.dim()}")
    result, dim = t, 0
    for idx in index:
        if idx is Ellipsis:
            dim += skip
        elif idx is None:
            result = result.unsqueeze(_in_range(dim, result.dim() + 1))
            dim += 1
        elif isinstance(idx, slice):
            if idx.step == 0:           # (checked before the dim, as PyTorch does)
                raise ValueError("slice step cannot be zero")
            # PyTorch passes over a slice from the start with step 1 and no stop without
            # reading its dim (even one out of range)
            if not (idx.start in (None, 0) and idx.step in (None, 1) and idx.stop is None):
                result = result[(slice(None),) * _in_range(dim, result.dim()) + (idx,)]
            dim += 1
        else:
            result = result.select(_in_range(dim, result.dim()), idx)
    return result


def _getitem_hook(t, index):
    if len(index) > 1 and _several_ellipses(index):
        return _index_past_ellipses(t, index)
    plan = _plan_index(t, index)
    if isinstance(plan, tuple):
        return t[plan]
    return Index.apply(t, plan)


class Index(Function):
    """``x[index]`` with an advanced index: a gather. Backward: scatter-add the
    gradient into zeros shaped like ``x`` (an element picked twice gets both parts)."""
    _node_name = "IndexBackward0"

    @staticmethod
    def forward(ctx, x, plan):
        # backward comes later: by then the caller may have changed its index tensors
        ctx.plan = plan.owned() if ctx.needs_input_grad[0] else plan
        ctx.shape = tuple(x.shape)
        return plan.get(x)

    @staticmethod
    def backward(ctx, grad):
        return _index_scatter(grad, ctx.plan, ctx.shape), None

    @staticmethod
    def jvp(ctx, tx, _):
        return _index_get(tx, ctx.plan)


def _index_scatter_kernel(values, plan, shape):
    out = _zeros(shape, values.dtype, values.device)
    plan.put(out, values, accumulate=True)
    return out


class IndexScatter(Function):
    """``zeros(shape)`` with ``values`` added at ``plan``'s places: the backward of
    :class:`Index` (and its adjoint: the backward of this one gathers again)."""
    _node_name = "IndexPutBackward0"

    @staticmethod
    def forward(ctx, values, plan, shape):
        ctx.plan = plan.owned() if ctx.needs_input_grad[0] else plan
        ctx.shape = shape
        return _index_scatter_kernel(values, plan, shape)

    @staticmethod
    def backward(ctx, grad):
        return _index_get(grad, ctx.plan), None, None

    @staticmethod
    def jvp(ctx, tv, _, __):
        return _index_scatter(tv, ctx.plan, ctx.shape)


def _index_get(x, plan):
    return Index.apply(x, plan)


def _index_scatter(values, plan, shape):
    return IndexScatter.apply(values, plan, shape)


def _strip_leading_ones(shape):
    shape = tuple(shape)
    while shape and shape[0] == 1:
        shape = shape[1:]
    return shape


def _value_array(t, value, plan, single_mask):
    """What ``t[index] = value`` writes (a tensor of ``t``'s dtype shaped to broadcast,
    or a number), after PyTorch's checks in its order: shape, then dtype."""
    if isinstance(value, TensorBase):
        shape = tuple(value.shape)
    elif isinstance(value, NUMBER_TYPES) and (t.dtype.is_complex or not isinstance(value, complex)):
        shape = ()
    elif isinstance(value, (list,) + ARRAY_TYPES):
        value = _k("as_tensor_of", t)(value, t.dtype)
        shape = tuple(value.shape)
    else:
        raise TypeError(f"can't assign a {type(value).__name__} to a "
                        f"cygrad.{_tname(t.dtype)}Tensor")
    vshape = _strip_leading_ones(shape)
    rshape = plan.shape
    if vshape and (len(vshape) > len(rshape) or any(v != 1 and v != r for v, r in
                                                    zip(vshape[::-1], rshape[::-1]))):
        raise RuntimeError(f"shape mismatch: value tensor of shape {_shape_str(vshape)} cannot be "
                           f"broadcast to indexing result of shape {_shape_str(rshape)}")
    if single_mask == "uint8" and (not isinstance(value, TensorBase) or value.numel() == 1):
        # PyTorch writes one value through a lone mask with masked_fill_, which takes
        # bool masks only
        raise RuntimeError("masked_fill_ only supports boolean masks, but got mask with dtype "
                           "unsigned char")
    if not isinstance(value, TensorBase):
        return _scalar_array(value, t.dtype)
    if value.dtype != t.dtype:
        if not (single_mask and value.numel() == 1):
            raise RuntimeError(f"Index put requires the source and destination dtypes match, "
                               f"got {_tname(t.dtype)} for the destination and "
                               f"{_tname(value.dtype)} for the source.")
        value = value.to(t.dtype)
    return _C._detach(value).reshape(vshape)


def _single_mask(index):
    """Is ``index`` one mask tensor among ints, slices, ``None`` and ``...`` (or a lone
    Python bool)?  Then PyTorch writes a one-element value with ``masked_fill_``,
    whatever the value's dtype.  The mask's kind, ``"bool"`` or ``"uint8"``, or False."""
    if len(index) == 1 and isinstance(index[0], BOOL_TYPES):
        return "bool"
    found = False
    for idx in index:
        if isinstance(idx, TensorBase) and idx.dtype in (_dt.bool_, _dt.uint8):
            if found:
                return False
            found = "bool" if idx.dtype == _dt.bool_ else "uint8"
        elif not (idx is None or idx is Ellipsis or isinstance(idx, slice) or _is_int(idx)):
            return False
    return found


def _setitem_hook(t, index, value):
    if len(index) > 1 and _several_ellipses(index):
        _index_past_ellipses(t, index)[...] = value
        return
    plan = _plan_index(t, index, defer_bounds=True)
    if isinstance(plan, tuple):
        t[plan] = value
        return
    _apply_inplace(IndexPutInplace, t, value, plan, _single_mask(index), False)




def _index_put_kernel(x, values, plan, single_mask, accumulate):
    """``x[plan] = values`` (``+=`` if ``accumulate``) in place, after the checks of
    the value's shape and dtype, then of the index values."""
    values = _value_array(x, values, plan, single_mask)
    plan.check_bounds()
    plan.put(x, values, accumulate)


class IndexPut(Function):
    """``x[index] = values`` (``+=`` when ``accumulate``), computed out of place.

    Backward: the written places of ``x`` get no gradient (unless accumulating); the
    values get the gradient at the places they went to, summed over broadcasting."""
    _node_name = "IndexPutBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, values, plan, single_mask, accumulate):
        out = _target(ctx, x)
        _index_put_kernel(out, values, plan, single_mask, accumulate)
        # backward comes later: by then the caller may have changed its index tensors
        ctx.plan = plan.owned() if any(ctx.needs_input_grad) else plan
        ctx.single_mask, ctx.accumulate = single_mask, accumulate
        ctx.shape, ctx.dtype = tuple(x.shape), x.dtype
        ctx.value_dim = values.dim() if isinstance(values, TensorBase) else 0
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        plan = ctx.plan
        grad_x = grad_values = None
        if ctx.needs_input_grad[0]:
            grad_x = grad if ctx.accumulate else grad * _keep_mask(
                grad.shape, grad.dtype, lambda m: plan.put(m, 0), grad.device)
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
        base = tx if tx is not None else _zeros(ctx.shape, ctx.dtype, tv.device)
        return _index_put(base, 0 if tv is None else tv, ctx.plan, ctx.single_mask,
                          ctx.accumulate)


class IndexPutInplace(IndexPut):
    """``x[index] = values`` and ``index_put_``: :class:`IndexPut` writing into ``x``."""
    _node_name = "IndexPutBackward0"
    inplace = True


def _index_put(x, values, plan, single_mask, accumulate):
    """Out-of-place ``x[plan] = values``."""
    return IndexPut.apply(x, values, plan, single_mask, accumulate)


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
    return _apply_inplace(IndexPutInplace, input, values, _put_plan(input, index), False, True)


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
    # as in PyTorch, index_put_ on a copy (its node is then IndexPutBackward0 too)
    return index_put_(input.clone(), indices, values, accumulate)
