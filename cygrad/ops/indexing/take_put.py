"""``take`` and ``put``: ``input`` read or written as a flat, row-major 1-D tensor.

Examples
--------
>>> import cygrad
>>> cygrad.take(cygrad.tensor([[1, 2], [3, 4]]), cygrad.tensor([3, 0])).tolist()
[4, 1]
"""
from ..._core import dtype as _dt
from ..._tensor import tensor_method
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from .._argcheck import bool_arg
from ._common import _check_no_internal_overlap, _first_out_of_bounds, _k, _require_tensor, _tname
from ._autograd import _apply_inplace, _keep_mask, _target, _written, _zeros

__all__ = ["take", "put"]


def _take_kernel(input, index):
    _require_tensor(index, "take", "index", 2)
    if index.dtype != _dt.int64:
        raise RuntimeError(f"take(): Expected a long tensor for index, but got "
                           f"{_tname(index.dtype)}")
    _check_flat_bounds(input, index)
    return _k("take", input)(input, index)


class Take(Function):
    """``take``; backward puts the gradient back with ``accumulate=True``."""
    _node_name = "TakeBackward0"

    @staticmethod
    def forward(ctx, x, index):
        result = _take_kernel(x, index)
        ctx.shape = tuple(x.shape)
        ctx.save_for_backward(index)
        return result

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return put(_zeros(ctx.shape, grad.dtype, grad.device), index, grad, accumulate=True), None

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
    return Take.apply(input, index)


def _check_flat_bounds(input, index):
    """PyTorch's error for an index outside the flat (row-major) ``input``."""
    n = input.numel()
    bad = _first_out_of_bounds(index, -n, n)
    if bad is not None:
        raise IndexError(f"out of range: tried to access index {bad} on a tensor of {n} elements.")


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
    _check_flat_bounds(input, index)
    return _k("put", input)(input, index, source, accumulate)


def _clear_flat(mask, index):
    _check_flat_bounds(mask, index)
    _k("put", mask)(mask, index, 0, False)


class Put(Function):
    """``put``. Backward: without ``accumulate`` the overwritten places of ``input`` get
    no gradient; ``source`` gets the gradient at the places its values went to."""
    _node_name = "PutBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, index, source, accumulate):
        out = _put_kernel(_target(ctx, x), index, source, accumulate)
        ctx.accumulate, ctx.shape = accumulate, tuple(x.shape)
        ctx.source_shape = tuple(source.shape)
        ctx.save_for_backward(index)
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_x = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_x = grad if ctx.accumulate else grad * _keep_mask(
                grad.shape, grad.dtype, lambda m: _clear_flat(m, index), grad.device)
        if ctx.needs_input_grad[2]:
            grad_source = take(grad, index).reshape(ctx.source_shape)
        return grad_x, None, grad_source, None

    @staticmethod
    def jvp(ctx, tx, _, ts, __):
        index = _fwad.saved_for_jvp(ctx)[0]
        if ts is None and (tx is None or ctx.accumulate):
            return tx
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype, ts.device)
        if ts is None:
            ts = _zeros(ctx.source_shape, tx.dtype, tx.device)
        return put(base, index, ts, ctx.accumulate)


class PutInplace(Put):
    """``put_``: :class:`Put` writing into ``x``."""
    _node_name = "PutBackward0"
    inplace = True


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
    return _apply_inplace(PutInplace, input, index, source, accumulate)


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
    return Put.apply(input, index, source, accumulate)
