"""The elementwise ops as autograd ``Function`` classes: one class per op.

Each class reads like a custom Function a user would write: ``forward`` runs the
op's kernel (the dispatcher's primitive, with recording off) and saves what the
derivative needs; the derivative itself is written **once** and serves both
directions of the chain rule:

* reverse mode (``backward``): ``grad_x = grad_y * conj(f'(x))``
* forward mode (``jvp``):      ``tangent_y = tangent_x * f'(x)``

(The ``conj`` is PyTorch's convention for complex inputs, where the gradient is the
conjugate Wirtinger derivative; see ``cygrad/ops/complex.py``. For real ``x`` it is
a no-op.)

For a unary op the derivative is ``derivative(s)``, where ``s`` is the saved input
``x`` or output ``y`` (whichever gives the cheaper formula: ``exp``'s derivative *is*
its output). A binary op gives its two partial derivatives, ``partials(a, b, ...)``.
Everything is written with cygrad ops, so backward is itself differentiable (double
backward works). Gradients of broadcast inputs are summed back to the input's shape
by the engine.

Reading one is enough to write your own::

    class Sin(UnaryFunction):
        \"\"\"d sin(x)/dx = cos(x).\"\"\"
        op = OPS["sin"]

        @staticmethod
        def derivative(x):
            return x.cos()
"""
import math

from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ...autograd.function import Function

OPS = _C.ELEMENTWISE_OPS
_unary_op = _C.unary_op
_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)



def conj_derivative(d):
    """conj(d) for a complex derivative (tensor or number); a real one as it is."""
    if isinstance(d, _C.TensorBase):
        return d.conj() if d.is_complex() else d
    return d.conjugate() if isinstance(d, complex) else d


# ============================================================================ unary

class UnaryFunction(Function):
    """``y = f(x)`` with the dispatcher's kernel ``op``.

    A subclass sets ``op``, says whether its derivative is written with the input or
    the output (``saves``), and writes the derivative once in ``derivative(s)``.
    """
    op = None
    saves = "input"         # or "output"
    _ctx_attributes = ("op", "saves", "derivative")

    @staticmethod
    def forward(ctx, x):
        y = _unary_op(ctx.op, x)
        ctx.save_for_backward(x if ctx.saves == "input" else y)
        return y

    @staticmethod
    def backward(ctx, grad):
        # course: begin unary-backward
        s, = ctx.saved_tensors
        return grad * conj_derivative(ctx.derivative(s))
        # course: end unary-backward

    @staticmethod
    def jvp(ctx, tangent):
        # course: begin unary-jvp
        s, = ctx.saved_tensors
        return tangent * ctx.derivative(s)
        # course: end unary-jvp

    @staticmethod
    def derivative(s):
        raise NotImplementedError("a UnaryFunction subclass writes its derivative")


class Exp(UnaryFunction):
    """exp' = exp: the output."""
    op, saves = OPS["exp"], "output"
    _node_name = "ExpBackward0"

    @staticmethod
    def derivative(y):
        return y


class Exp2(UnaryFunction):
    """(2^x)' = 2^x ln 2."""
    op, saves = OPS["exp2"], "output"
    _node_name = "Exp2Backward0"

    @staticmethod
    def derivative(y):
        return y * _LN2


class Expm1(UnaryFunction):
    """(e^x - 1)' = e^x = y + 1."""
    op, saves = OPS["expm1"], "output"
    _node_name = "Expm1Backward0"

    @staticmethod
    def derivative(y):
        return y + 1


class Log(UnaryFunction):
    """log' = 1/x."""
    op = OPS["log"]
    _node_name = "LogBackward0"

    @staticmethod
    def derivative(x):
        return x.reciprocal()


class Log2(UnaryFunction):
    """log2' = 1/(x ln 2)."""
    op = OPS["log2"]
    _node_name = "Log2Backward0"

    @staticmethod
    def derivative(x):
        return (x * _LN2).reciprocal()


class Log10(UnaryFunction):
    """log10' = 1/(x ln 10)."""
    op = OPS["log10"]
    _node_name = "Log10Backward0"

    @staticmethod
    def derivative(x):
        return (x * _LN10).reciprocal()


class Log1p(UnaryFunction):
    """log(1 + x)' = 1/(1 + x)."""
    op = OPS["log1p"]
    _node_name = "Log1PBackward0"

    @staticmethod
    def derivative(x):
        return (x + 1).reciprocal()


class Sqrt(UnaryFunction):
    """sqrt' = 1/(2 sqrt(x)) = 1/(2y)."""
    op, saves = OPS["sqrt"], "output"
    _node_name = "SqrtBackward0"

    @staticmethod
    def derivative(y):
        return (2 * y).reciprocal()


class Rsqrt(UnaryFunction):
    """(x^-1/2)' = -x^-3/2 / 2 = -y^3 / 2."""
    op, saves = OPS["rsqrt"], "output"
    _node_name = "RsqrtBackward0"

    @staticmethod
    def derivative(y):
        return -0.5 * y ** 3


class Sin(UnaryFunction):
    """sin' = cos."""
    op = OPS["sin"]
    _node_name = "SinBackward0"

    @staticmethod
    def derivative(x):
        # course: begin sin-derivative
        return x.cos()
        # course: end sin-derivative


class Cos(UnaryFunction):
    """cos' = -sin."""
    op = OPS["cos"]
    _node_name = "CosBackward0"

    @staticmethod
    def derivative(x):
        return -x.sin()


class Tan(UnaryFunction):
    """tan' = 1 + tan^2 = 1 + y^2."""
    op, saves = OPS["tan"], "output"
    _node_name = "TanBackward0"

    @staticmethod
    def derivative(y):
        return 1 + y ** 2


class Asin(UnaryFunction):
    """asin' = 1/sqrt(1 - x^2)."""
    op = OPS["asin"]
    _node_name = "AsinBackward0"

    @staticmethod
    def derivative(x):
        return (1 - x ** 2).rsqrt()


class Acos(UnaryFunction):
    """acos' = -1/sqrt(1 - x^2)."""
    op = OPS["acos"]
    _node_name = "AcosBackward0"

    @staticmethod
    def derivative(x):
        return -(1 - x ** 2).rsqrt()


class Atan(UnaryFunction):
    """atan' = 1/(1 + x^2)."""
    op = OPS["atan"]
    _node_name = "AtanBackward0"

    @staticmethod
    def derivative(x):
        return (1 + x ** 2).reciprocal()


class Sinh(UnaryFunction):
    """sinh' = cosh."""
    op = OPS["sinh"]
    _node_name = "SinhBackward0"

    @staticmethod
    def derivative(x):
        return x.cosh()


class Cosh(UnaryFunction):
    """cosh' = sinh."""
    op = OPS["cosh"]
    _node_name = "CoshBackward0"

    @staticmethod
    def derivative(x):
        return x.sinh()


class Tanh(UnaryFunction):
    """tanh' = 1 - tanh^2 = 1 - y^2."""
    op, saves = OPS["tanh"], "output"
    _node_name = "TanhBackward0"

    @staticmethod
    def derivative(y):
        return 1 - y ** 2


class Asinh(UnaryFunction):
    """asinh' = 1/sqrt(1 + x^2)."""
    op = OPS["asinh"]
    _node_name = "AsinhBackward0"

    @staticmethod
    def derivative(x):
        return (1 + x ** 2).rsqrt()


class Acosh(UnaryFunction):
    """acosh' = 1/sqrt(x^2 - 1); for complex x, 1/(sqrt(x - 1) sqrt(x + 1)), the
    principal branch's derivative (the two square roots cannot merge off the real
    line: sqrt(ab) != sqrt(a) sqrt(b) there)."""
    op = OPS["acosh"]
    _node_name = "AcoshBackward0"

    @staticmethod
    def derivative(x):
        if x.is_complex():
            return ((x - 1).rsqrt() * (x + 1).rsqrt())
        return (x ** 2 - 1).rsqrt()


class Atanh(UnaryFunction):
    """atanh' = 1/(1 - x^2)."""
    op = OPS["atanh"]
    _node_name = "AtanhBackward0"

    @staticmethod
    def derivative(x):
        return (1 - x ** 2).reciprocal()


class Sigmoid(UnaryFunction):
    """sigmoid' = y (1 - y)."""
    op, saves = OPS["sigmoid"], "output"
    _node_name = "SigmoidBackward0"

    @staticmethod
    def derivative(y):
        return y * (1 - y)


class Relu(UnaryFunction):
    """relu' = 1 where the output is positive, else 0."""
    op, saves = OPS["relu"], "output"
    _node_name = "ReluBackward0"

    @staticmethod
    def derivative(y):
        return y > 0

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        if grad.device.type != "cpu" and not grad.requires_grad:
            # a device kernel in one pass (no bool mask, no cast); create_graph keeps
            # the differentiable form below
            return kernel("threshold_backward", grad.device.type)(grad, y, 0)
        # where, not grad * (y > 0): one select pass instead of a multiply that
        # first widens the bool mask to grad's dtype (a (64,16,28,28) gradient:
        # 190 against 280 us); still differentiable in grad for create_graph
        from ..indexing.where_nonzero import where
        return where(y > 0, grad, 0.0)


class Erf(UnaryFunction):
    """erf' = 2/sqrt(pi) exp(-x^2)."""
    op = OPS["erf"]
    _node_name = "ErfBackward0"

    @staticmethod
    def derivative(x):
        return _TWO_OVER_SQRT_PI * (-x ** 2).exp()


class Erfc(UnaryFunction):
    """erfc' = -2/sqrt(pi) exp(-x^2)."""
    op = OPS["erfc"]
    _node_name = "ErfcBackward0"

    @staticmethod
    def derivative(x):
        return -_TWO_OVER_SQRT_PI * (-x ** 2).exp()


class Abs(UnaryFunction):
    """|x|' = sign(x) (0 at 0, as PyTorch). For complex z, |z| is real and not
    holomorphic: the gradient is ``g * sgn(z) = g * z/|z|``, written here as
    ``g * conj(derivative)`` with ``derivative = conj(sgn(z))``; the tangent is the
    real part of ``t * conj(sgn(z))``."""
    op = OPS["abs"]
    _node_name = "AbsBackward0"

    @staticmethod
    def derivative(x):
        return x.sgn().conj() if x.is_complex() else x.sign()

    @staticmethod
    def jvp(ctx, tangent):
        x, = ctx.saved_tensors
        return (tangent * Abs.derivative(x)).real


class Neg(UnaryFunction):
    """(-x)' = -1; backward and jvp just negate (no multiply)."""
    op = OPS["neg"]
    _node_name = "NegBackward0"

    @staticmethod
    def forward(ctx, x):
        return _unary_op(OPS["neg"], x)

    @staticmethod
    def backward(ctx, grad):
        return -grad

    @staticmethod
    def jvp(ctx, tangent):
        return -tangent


class Reciprocal(UnaryFunction):
    """(1/x)' = -1/x^2 = -y^2."""
    op, saves = OPS["reciprocal"], "output"
    _node_name = "ReciprocalBackward0"

    @staticmethod
    def derivative(y):
        return -y ** 2


class Square(UnaryFunction):
    """(x^2)' = 2x."""
    op = OPS["square"]
    _node_name = "PowBackward0"       # PyTorch records square as pow(x, 2)

    @staticmethod
    def derivative(x):
        return 2 * x


class Frac(UnaryFunction):
    """frac(x) = x - trunc(x): slope 1 between the jumps, so the gradient passes
    through (nothing saved)."""
    op = OPS["frac"]
    _node_name = "FracBackward0"

    @staticmethod
    def forward(ctx, x):
        return _unary_op(OPS["frac"], x)

    @staticmethod
    def backward(ctx, grad):
        return grad

    @staticmethod
    def jvp(ctx, tangent):
        return tangent.clone()


class _PiecewiseConstant(UnaryFunction):
    """sign, floor, ceil, trunc, round: flat between the jumps, so the derivative is 0
    almost everywhere (PyTorch's choice at the jumps too). Nothing needs saving: an
    in-place change of the input afterwards is harmless."""

    @staticmethod
    def forward(ctx, x):
        return _unary_op(ctx.op, x)

    @staticmethod
    def backward(ctx, grad):
        return grad.new_zeros(grad.shape)

    @staticmethod
    def jvp(ctx, tangent):
        return tangent.new_zeros(tangent.shape)


class Sign(_PiecewiseConstant):
    op = OPS["sign"]
    _node_name = "SignBackward0"


class Floor(_PiecewiseConstant):
    op = OPS["floor"]
    _node_name = "FloorBackward0"


class Ceil(_PiecewiseConstant):
    op = OPS["ceil"]
    _node_name = "CeilBackward0"


class Trunc(_PiecewiseConstant):
    op = OPS["trunc"]
    _node_name = "TruncBackward0"


class Round(_PiecewiseConstant):
    op = OPS["round"]
    _node_name = "RoundBackward0"
