"""The Functions of the copying ops: ``clone()``, ``to(dtype/device)``, ``copy_``, and
the overwrites ``fill_`` and ``zero_``.

A copy moves values unchanged (or converted), so its backward passes the gradient
straight back, converted to the input's dtype and device where needed. An
overwrite replaces the old values, which therefore get a zero gradient.  The core
reaches ``Clone`` and ``ToCopy`` through ``cygrad/_wiring.py``; ``Copy``, ``Fill`` and
``Zero`` are applied in place by ``cygrad.autograd.inplace`` (``x.copy_(src)`` marks
``x`` dirty).
"""
from ..._core import tensor as _C
from ...autograd.function import Function


class Clone(Function):
    """``x.clone()``: the gradient passes through unchanged.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> x.clone().grad_fn.name()
    'CloneBackward0'
    """
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, t):
        return t.clone()


def _back_to(grad, dtype, device):
    """``grad`` converted to an input's dtype and device; a real input's gradient is
    the real part of a complex one (no warning, as in PyTorch)."""
    if grad.is_complex() and not dtype.is_complex:
        grad = grad.real
    return grad.to(dtype=dtype, device=device)


class ToCopy(Function):
    """``x.to(dtype/device)``: the gradient is converted back.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> x.to(cygrad.float64).grad_fn.name()
    'ToCopyBackward0'
    """
    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, dtype, device):
        ctx.source = (x.dtype, x.device)
        return _C._convert_tensor(x, dtype, device)

    @staticmethod
    def backward(ctx, grad):
        return _back_to(grad, *ctx.source), None, None

    @staticmethod
    def jvp(ctx, t, *_):
        # forward AD converts each tangent to its output's dtype and device
        return t.clone()


class Copy(Function):
    """``self.copy_(src)``: ``src`` broadcast to ``self``'s shape and converted to its
    dtype. ``self``'s old values are gone, so its gradient is zero; ``src`` gets the
    gradient, summed over the broadcast dims and converted back.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, requires_grad=True).clone()
    >>> x.copy_(cygrad.tensor([1.0, 2.0], requires_grad=True)).grad_fn.name()
    'CopyBackwards'
    """
    _node_name = "CopyBackwards"

    @staticmethod
    def forward(ctx, self, src):
        ctx.source = (src.dtype, src.device)
        ctx.shape = tuple(self.shape)
        return src.expand(ctx.shape)

    @staticmethod
    def backward(ctx, grad):
        # the engine sums the gradient over src's broadcast dims
        return grad.new_zeros(ctx.shape), _back_to(grad, *ctx.source)

    @staticmethod
    def jvp(ctx, t_self, t_src):
        if t_src is None:       # self's old tangent is overwritten too
            return t_self.new_zeros(ctx.shape)
        return t_src.expand(ctx.shape)


class Overwrite(Function):
    """An in-place op whose result does not depend on the old values (fills, random
    samples): the gradient of those is 0. Subclasses write their values into ``x``
    in ``forward`` and return ``x``."""

    @staticmethod
    def backward(ctx, grad, *_):
        return (grad.new_zeros(tuple(grad.shape)),) + (None,) * (len(ctx.needs_input_grad) - 1)

    @staticmethod
    def jvp(ctx, t, *_):
        return t.new_zeros(tuple(t.shape)) if t is not None else None


class Fill(Overwrite):
    """``x.fill_(value)`` with a number.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2, requires_grad=True) * 1
    >>> x.fill_(3.0).grad_fn.name()
    'FillBackward2'
    """
    _node_name = "FillBackward2"

    @staticmethod
    def forward(ctx, x, value):
        return x.fill_(value)       # (recording is off inside forward: the plain fill)


class FillTensor(Function):
    """``x.fill_(value)`` with a 0-dim tensor, which gets the sum of the gradient."""
    _node_name = "FillBackward3"

    @staticmethod
    def forward(ctx, x, value):
        ctx.out_shape = tuple(x.shape)
        return x.fill_(value)

    @staticmethod
    def backward(ctx, grad):
        need_x, need_value = ctx.needs_input_grad
        return (grad.new_zeros(tuple(grad.shape)) if need_x else None,
                grad.sum() if need_value else None)

    @staticmethod
    def jvp(ctx, t_x, t_value):
        zeros = (t_x if t_x is not None else t_value).new_zeros(ctx.out_shape)
        return zeros if t_value is None else zeros + t_value


class Zero(Overwrite):
    """``x.zero_()``."""
    _node_name = "ZeroBackward0"

    @staticmethod
    def forward(ctx, x):
        return x.zero_()
