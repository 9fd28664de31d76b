"""Boolean masks: ``masked_fill`` (write a value where the mask is True) and
``masked_select`` (read those elements as a 1-D tensor).

Examples
--------
>>> import cygrad
>>> x = cygrad.tensor([1, -2, 3])
>>> cygrad.masked_select(x, x > 0).tolist()
[1, 3]
"""
from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from ._common import (_C10_NAMES, _broadcast_shapes, _check_out_dtype, _fill_arg, _fill_value,
                      _finish, _k, _require_tensor, _shape_str)
from ._autograd import _apply_inplace, _differentiated, _no_out, _zeros
from .advanced import _IndexPlan, _index_get, _index_scatter

__all__ = ["masked_fill", "masked_select"]


def _check_mask(mask, message):
    if not isinstance(mask, TensorBase):
        raise TypeError(f"argument 'mask' must be Tensor, not {type(mask).__name__}")
    if mask.dtype != _dt.bool_:
        raise RuntimeError(message)


def _check_bool_mask(mask):
    if not isinstance(mask, TensorBase) or mask.dtype is not _dt.bool_:
        _check_mask(mask, f"masked_fill_ only supports boolean masks, but got mask with dtype "
                          f"{_C10_NAMES[mask.dtype.name]}")


# The common fill, a Python number into a float32/float64 tensor, needs none of the
# general checks when it is well inside the dtype's range.
_FLOAT_FILL_LIMIT = {_dt.float32: 3.4028234663852886e38, _dt.float64: 1e300}
_INT64_MIN, _INT64_MAX = -(1 << 63), (1 << 63) - 1


def _fill_array(value, dtype):
    """The fill value (a number, or a 0-dim tensor), refused as PyTorch refuses it."""
    limit = _FLOAT_FILL_LIMIT.get(dtype)
    if limit is not None and ((type(value) is float and -limit <= value <= limit)
                              or (type(value) is int and _INT64_MIN <= value <= _INT64_MAX)):
        return value
    return _fill_value(value, dtype, "masked_fill_")


def _inplace_fill(input, mask, value):
    """The fill value of ``masked_fill_``, after PyTorch's checks in its order: a bool
    mask, which may broadcast to ``input`` but not make it larger, then the value."""
    if mask.dtype is not _dt.bool_:
        _check_bool_mask(mask)
    shape = input.shape
    if mask.shape != shape:
        full = _broadcast_shapes(tuple(shape), tuple(mask.shape))
        if full != shape:
            raise RuntimeError(f"output with shape {_shape_str(shape)} doesn't match the "
                               f"broadcast shape {_shape_str(full)}")
    return _fill_array(value, input.dtype)


class MaskedFill(Function):
    """``masked_fill`` with a number: the filled places get no gradient.

    Out of place, the result is ``where(mask, value, x)``, written into a new tensor
    of the broadcast shape."""
    _node_name = "MaskedFillBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, mask, value):
        if mask.dtype is not _dt.bool_:
            _check_bool_mask(mask)
        shape = x.shape
        if mask.shape != shape:
            shape = _broadcast_shapes(tuple(mask.shape), tuple(shape))
        fill = _fill_array(value, x.dtype)
        ctx.shape, ctx.dtype = shape, x.dtype
        ctx.save_for_backward(mask)
        result = _C._empty(tuple(shape), x.dtype, x.device)
        return _k("masked_fill", result)(result, mask, fill, x)

    @staticmethod
    def backward(ctx, grad):
        mask, = ctx.saved_tensors
        keep = _C._detach(mask).logical_not().to(grad.dtype).expand(ctx.shape)
        # a 0-dim value tensor gets the gradient of every filled place (the engine sums it)
        grad_value = grad * (1 - keep) if ctx.needs_input_grad[2] else None
        return grad * keep if ctx.needs_input_grad[0] else None, None, grad_value

    @staticmethod
    def jvp(ctx, tx, _, tv):
        if tx is None and tv is None:
            return None
        base = tx if tx is not None else _zeros(ctx.shape, ctx.dtype, tv.device)
        return masked_fill(base, _fwad.saved_for_jvp(ctx)[0], 0 if tv is None else tv)


class MaskedFillTensor(MaskedFill):
    """``masked_fill`` with a 0-dim tensor value (which gets a gradient too)."""
    _node_name = "MaskedFillBackward1"


class MaskedFillInplace(MaskedFill):
    """``masked_fill_`` with a number: :class:`MaskedFill` writing into ``x`` (in one
    pass, by the "masked_fill" kernel)."""
    _node_name = "MaskedFillBackward0"
    inplace = True

    @staticmethod
    def forward(ctx, x, mask, value):
        fill = _inplace_fill(x, mask, value)
        ctx.shape, ctx.dtype = x.shape, x.dtype
        ctx.save_for_backward(mask)
        _k("masked_fill", x)(x, mask, fill)
        x._bump_version()
        ctx.mark_dirty(x)
        return x


class MaskedFillTensorInplace(MaskedFillTensor, MaskedFillInplace):
    """``masked_fill_`` with a 0-dim tensor value: :class:`MaskedFillTensor` writing
    into ``x`` (with :class:`MaskedFillInplace`'s forward)."""
    _node_name = "MaskedFillBackward1"




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
    cls = MaskedFillTensorInplace if isinstance(value, TensorBase) else MaskedFillInplace
    if input._base is None and not input.requires_grad:
        # nothing for _apply_inplace to check or redirect (the call is short: a
        # microsecond or two for a small tensor)
        return cls.apply(input, mask, value)
    return _apply_inplace(cls, input, mask, value)


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
    if not (isinstance(input, TensorBase) and isinstance(mask, TensorBase)):
        _require_tensor(input, "masked_fill", "input", 1)
        _require_tensor(mask, "masked_fill", "mask", 2)
    _fill_arg(value, "masked_fill")
    cls = MaskedFillTensor if isinstance(value, TensorBase) else MaskedFill
    return cls.apply(input, mask, value)


class MaskedSelect(Function):
    """``masked_select``; backward puts the gradient back at the selected places of a
    zero tensor (summed over broadcasting by the engine)."""
    _node_name = "MaskedSelectBackward0"

    @staticmethod
    def forward(ctx, x, mask):
        shape = _broadcast_shapes(tuple(mask.shape), tuple(x.shape))
        result = _k("masked_select", x)(x, mask, shape)
        ctx.shape = shape
        if _differentiated(ctx, x):
            # the mask as a 1-D (or more) index plan, a copy of the caller's; a 0-dim
            # result shape is restored in backward
            selected = mask.expand(shape).reshape(shape or (1,)).clone()
            ctx.plan = _IndexPlan((), (selected,), tuple(result.shape))
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
    _no_out(out, "masked_select", input)
    _check_mask(mask, "masked_select: expected BoolTensor for mask")
    _check_out_dtype(out, input.dtype, "masked_select(): self and result must have the same "
                                       "scalar type")
    return _finish(MaskedSelect.apply(input, mask), out)
