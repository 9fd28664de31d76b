"""Elementwise functions that cygrad's op set lacks (``cbrt``, ``logaddexp``,
``signbit``, ``copysign``, ``nextafter``), written with cygrad's public ops.

``cbrt`` is an ``autograd.Function``: its forward needs a few guarded branches (the
sign of zero, a Newton step) whose derivative through ``where`` would produce NaN
gradients, so the derivative is written once, in closed form, and is itself made of
cygrad ops. (``asinh``/``acosh``/``atanh`` are cygrad's core elementwise ops.)

Examples
--------
>>> import cygrad
>>> from cygrad.numpy._special import cbrt
>>> x = cygrad.tensor([8.0], dtype=cygrad.float64, requires_grad=True)
>>> cbrt(x).backward(cygrad.ones(1, dtype=cygrad.float64))
>>> round(x.grad.item(), 6)     # 1 / (3 cbrt(x)**2)
0.083333
"""
import cygrad
from cygrad.autograd import Function


class _ReciprocalDerivative(Function):
    """A function whose derivative is ``1 / denominator(saved)``: backward and jvp
    share that one formula."""

    _ctx_attributes = ("denominator",)

    @staticmethod
    def backward(ctx, g):
        return g / ctx.denominator(*ctx.saved_tensors)

    @staticmethod
    def jvp(ctx, t):
        return t / ctx.denominator(*ctx.saved_tensors)


class Cbrt(_ReciprocalDerivative):
    @staticmethod
    def forward(ctx, x):
        a = x.abs()
        r = a.pow(1.0 / 3.0)
        # pow(a, 1/3) is a few ulps off (1/3 is not exact); one Newton step fixes it
        ok = (r > 0) & r.isfinite()
        r = cygrad.where(ok, r - (r * r * r - a) / (3 * cygrad.where(ok, r * r, cygrad.ones_like(r))), r)
        out = cygrad.where(x < 0, -r, cygrad.where(x == 0, x, r))
        ctx.save_for_backward(out)
        return out

    @staticmethod
    def denominator(out):
        return 3 * out * out


def cbrt(x):
    """Real cube root of a floating tensor.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.numpy._special import cbrt
    >>> cbrt(cygrad.tensor([-8.0, 27.0], dtype=cygrad.float64)).tolist()
    [-2.0, 3.0]
    """
    return Cbrt.apply(x)


def logaddexp(a, b):
    """``log(exp(a) + exp(b))`` without overflow, for floating tensors of one dtype.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.numpy._special import logaddexp
    >>> t = cygrad.tensor([1000.0, float("-inf")], dtype=cygrad.float64)
    >>> logaddexp(t, t).tolist()
    [1000.6931471805599, -inf]
    """
    m = cygrad.maximum(a, b)
    # with a == b == +-inf, a - b is NaN; the answer is m itself
    d = cygrad.where(a == b, cygrad.zeros_like(m), -(a - b).abs())
    return cygrad.where(m.isinf() & (a == b), m, m + cygrad.log1p(cygrad.exp(d)))


_INT_OF = {2: cygrad.int16, 4: cygrad.int32, 8: cygrad.int64}


def _bits(x):
    return x.detach().view(_INT_OF[x.dtype.itemsize])


def signbit(x):
    """Whether the sign bit is set (true for ``-0.0`` and negative NaNs too).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.numpy._special import signbit
    >>> signbit(cygrad.tensor([-0.0, 0.0, -1.0])).tolist()
    [True, False, True]
    """
    if not x.dtype.is_floating_point:
        return x < 0
    return _bits(x) < 0


def copysign(x1, x2):
    """``|x1|`` with the sign bit of ``x2`` (floating tensors of one dtype).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.numpy._special import copysign
    >>> copysign(cygrad.tensor([1.0, 2.0]), cygrad.tensor([-0.0, 3.0])).tolist()
    [-1.0, 2.0]
    """
    a = x1.abs()
    neg = signbit(x2)
    return cygrad.where(neg, -a, a)


def nextafter(x1, x2):
    """The next representable float after ``x1`` towards ``x2`` (not differentiable).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.numpy._special import nextafter
    >>> one = cygrad.tensor([1.0], dtype=cygrad.float64)
    >>> (nextafter(one, one * 2) - one).item() == 2.0 ** -52
    True
    """
    x1, x2 = x1.detach(), x2.detach()
    bits = _bits(x1)
    step_up = (x1 < x2) == (x1 > 0)
    moved = cygrad.where(step_up, bits + 1, bits - 1).view(x1.dtype)
    # from zero the next float is the smallest subnormal carrying x2's sign
    tiny = cygrad.ones_like(bits).view(x1.dtype)
    from_zero = cygrad.where(signbit(x2), -tiny, tiny)
    out = cygrad.where(x1 == 0, from_zero, moved)
    out = cygrad.where(x1 == x2, x2, out)
    return cygrad.where(x1.isnan() | x2.isnan(), x1 + x2, out)
