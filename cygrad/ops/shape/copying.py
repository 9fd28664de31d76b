"""The Functions of the copying ops: ``clone()``, ``to(dtype/device)`` and ``copy_``.

Each moves values unchanged (or converted), so each backward passes the gradient
straight back, converted to the input's dtype and device where needed.  The core
reaches ``Clone`` and ``ToCopy`` through ``cygrad/_wiring.py``; ``Copy`` is applied in
place by ``cygrad.autograd.inplace`` (``x.copy_(src)`` marks ``x`` dirty).
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
