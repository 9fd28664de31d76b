"""Scans: ``cumsum`` and ``cumprod`` along one dim (integers accumulate in int64).
"""
import numpy as np

from ..._core import tensor as _C
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._quiet import quiet
from ._common import _acc_np, _accumulate_dtype, _cast_input, _check_tensor, _emit, _single_dim
from ._autograd import _const, _no_out, _saved
from .sums import _omit_each, sum


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


def _scan(input, dim, dtype, out, opname, np_scan):
    _check_tensor(input, opname)
    d = _single_dim(input, dim, opname)
    dt = _accumulate_dtype(input, dtype, out, opname)
    acc = _acc_np(dt)
    with quiet():
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
    with quiet():
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
