"""Scans: ``cumsum`` and ``cumprod`` along one dim (integers accumulate in int64).
"""
from ..._core import tensor as _C
from ..._tensor import tensor_method
from ...autograd.function import Function
from ..creation import ones
from ._common import numpy_keywords, _accumulate_dtype, _check_tensor, _emit, _kernel, _single_dim
from ._autograd import _no_out, _saved
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
    return t._as_strided_any(tuple(t.shape), tuple(strides), offset)


def _rev_cumsum(t, d):
    """``out[i] = t[i] + t[i+1] + ...`` along ``d``: the adjoint of ``cumsum``."""
    return _flip(cumsum(_flip(t, d), d), d)


def _scan_args(input, dim, dtype, out, opname):
    """cumsum/cumprod's checked arguments: (wrapped dim, result dtype)."""
    _check_tensor(input, opname)
    _no_out(out, opname, input)
    return _single_dim(input, dim, opname), _accumulate_dtype(input, dtype, out, opname)


@tensor_method
@numpy_keywords
def cumsum(input, dim, *, dtype=None, out=None):
    """Running sum along ``dim``: ``out[i] = input[0] + ... + input[i]``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cumsum(cygrad.tensor([1, 2, 3, 4]), dim=0).tolist()
    [1, 3, 6, 10]
    """
    d, dt = _scan_args(input, dim, dtype, out, "cumsum")
    result = Cumsum.apply(input, d, dt)
    return result if out is None else _emit(result, dt, out, "cumsum")


class Cumsum(Function):
    """``x[k]`` appears in ``out[k], out[k+1], ...``: its gradient is the sum of their
    gradients, a cumsum running backwards.

    ``forward(input, d, dt)``: ``d`` the wrapped dim, ``dt`` the result dtype."""
    _node_name = "CumsumBackward0"

    @staticmethod
    def forward(ctx, input, d, dt):
        ctx.d, ctx.dtype = d, dt
        return _kernel("scan", input)(input, d, dt, False)

    @staticmethod
    def backward(ctx, grad):
        return (grad if grad.dim() == 0 else _rev_cumsum(grad, ctx.d)), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return cumsum(t, ctx.d, dtype=ctx.dtype)


@tensor_method
@numpy_keywords
def cumprod(input, dim, *, dtype=None, out=None):
    """Running product along ``dim``: ``out[i] = input[0] * ... * input[i]``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.0, 2.0, 3.0, 4.0]).cumprod(0).tolist()
    [1.0, 2.0, 6.0, 24.0]
    """
    d, dt = _scan_args(input, dim, dtype, out, "cumprod")
    result = Cumprod.apply(input, d, dt)
    return result if out is None else _emit(result, dt, out, "cumprod")


def _omitted_cumprods(x, d):
    """``C[..., k, i]``: the running product up to ``i`` along ``d`` with the factor
    ``x[k]`` left out (``d`` moved last).  ``d out[i] / d x[k]`` is ``C[k, i]`` for
    ``k <= i``.  O(n^2) memory: only used where zeros rule out dividing by ``x[k]``."""
    return cumprod(_omit_each(x.movedim(d, -1)), -1)


def _upper(n, dt):
    """``U[k, i] = 1`` where ``i >= k`` (output ``i`` depends on input ``k``)."""
    return ones((n, n), dtype=dt).triu()


def _cumprod_backward(grad, x, y, d):
    if not (x.detach() == 0).any():
        return _rev_cumsum(grad * y, d) / x
    if _C.is_grad_enabled() and (x.requires_grad or grad.requires_grad):
        # a differentiable formula is needed (double backward): the O(n^2) one
        n = x.shape[d]
        rows = _omitted_cumprods(x, d) * _upper(n, x.dtype) * grad.movedim(d, -1).unsqueeze(-2)
        return sum(rows, -1).movedim(-1, d)
    # zeros allowed, in O(n) per row (see the kernel)
    return _kernel("cumprod_grad", x)(x.detach(), grad.detach(), y.detach(), d)


class Cumprod(Function):
    """``out[i] = x[0] * ... * x[i]``: ``d out[i] / d x[k]`` (``k <= i``) is ``out[i]``
    without the factor ``x[k]``, i.e. ``out[i] / x[k]`` when ``x[k] != 0``; zeros are
    handled without dividing (``_cumprod_backward``)."""
    _node_name = "CumprodBackward0"

    @staticmethod
    def forward(ctx, input, d, dt):
        ctx.d = d
        result = _kernel("scan", input)(input, d, dt, True)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, y = ctx.saved_tensors
        if x.dim() == 0:
            return grad, None, None
        if x.is_complex():
            # PyTorch's convention: grad times the conjugate derivative, which is the
            # same polynomial in conj(x) (and conj(y))
            x, y = x.conj(), y.conj()
        return _cumprod_backward(grad, x, y, ctx.d), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, y = _saved(ctx)
        d = ctx.d
        if x.dim() == 0:
            return t
        if not (x.detach() == 0).any():
            return cumsum(t / x, d) * y
        n = x.shape[d]
        cols = _omitted_cumprods(x, d) * _upper(n, x.dtype) * t.movedim(d, -1).unsqueeze(-1)
        return sum(cols, -2).movedim(-1, d)
