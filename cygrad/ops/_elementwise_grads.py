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

from .._core import tensor as _C
from .._core.tensor import TensorBase
from ..autograd.function import Function

OPS = _C.ELEMENTWISE_OPS
_binary_op = _C.binary_op
_unary_op = _C.unary_op
_NO_NUMBERS = (None, None)
_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def _is_tensor(x):
    return isinstance(x, TensorBase)


def _conj(d):
    """conj(d) for a complex derivative (tensor or number); a real one as it is."""
    if isinstance(d, TensorBase):
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
        s, = ctx.saved_tensors
        return grad * _conj(ctx.derivative(s))

    @staticmethod
    def jvp(ctx, tangent):
        s, = ctx.saved_tensors
        return tangent * ctx.derivative(s)

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
        return x.cos()


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
    """frac(x) = x - trunc(x): slope 1 between the jumps."""
    op = OPS["frac"]
    _node_name = "FracBackward0"

    @staticmethod
    def derivative(x):
        return 1


class _PiecewiseConstant(UnaryFunction):
    """sign, floor, ceil, trunc, round: flat between the jumps, so the derivative is 0
    almost everywhere (PyTorch's choice at the jumps too)."""

    @staticmethod
    def derivative(x):
        return 0


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


# =========================================================================== binary

def operands(ctx):
    """The two forward operands: tensors from ``saved_tensors``, numbers as given."""
    ta, tb = ctx.saved_tensors
    na, nb = getattr(ctx, "numbers", _NO_NUMBERS)
    return (ta if ta is not None else na), (tb if tb is not None else nb)


def _plus(x, y):
    """x + y where None stands for zero (an operand with no gradient or tangent)."""
    if x is None:
        return y
    if y is None:
        return x
    return x + y


class BinaryFunction(Function):
    """``z = f(a, b)``; either operand may be a Python number.

    A subclass sets ``op`` and writes its two partial derivatives once, in
    ``partials(a, b, need_a, need_b) -> (dz/da, dz/db)`` (None for one not needed);
    backward multiplies them by the output's gradient, jvp by the inputs' tangents.
    """
    op = None
    _ctx_attributes = ("op", "partials")

    @staticmethod
    def forward(ctx, a, b):
        if isinstance(a, TensorBase) and isinstance(b, TensorBase):
            ctx.save_for_backward(a, b)      # (no ctx.numbers: operands() defaults it)
        else:
            ctx.save_for_backward(a if _is_tensor(a) else None, b if _is_tensor(b) else None)
            ctx.numbers = (None if _is_tensor(a) else a, None if _is_tensor(b) else b)
        return _binary_op(ctx.op, a, b)

    @staticmethod
    def backward(ctx, grad):
        a, b = operands(ctx)
        da, db = ctx.partials(a, b, ctx.needs_input_grad[0], ctx.needs_input_grad[1])
        return (None if da is None else grad * _conj(da)), (None if db is None else grad * _conj(db))

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = operands(ctx)
        da, db = ctx.partials(a, b, ta is not None, tb is not None)
        return _plus(None if ta is None else ta * da, None if tb is None else tb * db)

    @staticmethod
    def partials(a, b, need_a, need_b):
        raise NotImplementedError("a BinaryFunction subclass writes its partial derivatives")


class Add(BinaryFunction):
    """d(a + b) = da + db: the gradient passes through unchanged (no multiply)."""
    op = OPS["add"]
    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return _binary_op(OPS["add"], a, b)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad

    @staticmethod
    def jvp(ctx, ta, tb):
        return _plus(ta, tb)


class Sub(BinaryFunction):
    """d(a - b) = da - db."""
    op = OPS["sub"]
    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return _binary_op(OPS["sub"], a, b)

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad

    @staticmethod
    def jvp(ctx, ta, tb):
        return _plus(ta, None if tb is None else -tb)


class Mul(BinaryFunction):
    """d(ab)/da = b, d(ab)/db = a."""
    op = OPS["mul"]
    _node_name = "MulBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        return b, a


class Div(BinaryFunction):
    """d(a/b)/da = 1/b, d(a/b)/db = -a/b^2."""
    op = OPS["div"]
    _node_name = "DivBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        return (1 / b if need_a else None), (-a / (b * b) if need_b else None)


class Pow(BinaryFunction):
    """d(a^b)/da = b a^(b-1); d(a^b)/db = a^b log(a), taken as 0 where a == 0 (as
    PyTorch does)."""
    op = OPS["pow"]
    _node_name = "PowBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        da = b * a ** (b - 1) if need_a else None
        db = None
        if need_b:
            log_a = (a + (a == 0)).log() if _is_tensor(a) else (math.log(a) if a != 0 else 0.0)
            db = a ** b * log_a
        return da, db


def _winner_share(a_wins, a, b):
    """How much of the gradient goes to a: all if it won, half at a tie (PyTorch)."""
    return a_wins * 1.0 + (a == b) * 0.5


class Maximum(BinaryFunction):
    """The larger operand gets the gradient; ties split it."""
    op = OPS["maximum"]
    _node_name = "MaximumBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        wa = _winner_share(a > b, a, b)
        return wa, 1 - wa


class Minimum(BinaryFunction):
    """The smaller operand gets the gradient; ties split it."""
    op = OPS["minimum"]
    _node_name = "MinimumBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        wa = _winner_share(a < b, a, b)
        return wa, 1 - wa


class Fmax(BinaryFunction):
    """fmax ignores NaN: the picked operand gets the gradient (a wins ties, and
    wins whenever b is NaN), as in PyTorch."""
    op = OPS["fmax"]
    _node_name = "FmaxBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        wa = ((a >= b) | (b != b)) * 1.0
        return wa, 1 - wa


class Fmin(BinaryFunction):
    """fmin ignores NaN: see Fmax."""
    op = OPS["fmin"]
    _node_name = "FminBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        wa = ((a <= b) | (b != b)) * 1.0
        return wa, 1 - wa


class Atan2(BinaryFunction):
    """d atan2(a, b) = (b da - a db) / (a^2 + b^2)."""
    op = OPS["atan2"]
    _node_name = "Atan2Backward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        denom = a * a + b * b
        return b / denom, -a / denom


class Hypot(BinaryFunction):
    """d hypot(a, b) = (a da + b db) / hypot(a, b)."""
    op = OPS["hypot"]
    _node_name = "HypotBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        h = _binary_op(OPS["hypot"], a, b)
        return a / h, b / h


class Fmod(BinaryFunction):
    """fmod(a, b) = a - trunc(a/b) b: partials 1 and -trunc(a/b)."""
    op = OPS["fmod"]
    _node_name = "FmodBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        return 1, (-(a / b).trunc() if need_b else None)


class Remainder(BinaryFunction):
    """remainder(a, b) = a - floor(a/b) b: partials 1 and -floor(a/b)."""
    op = OPS["remainder"]
    _node_name = "RemainderBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        return 1, (-(a / b).floor() if need_b else None)


# The dispatcher reaches each op's Function through its table row: one explicit
# wiring step, here, instead of a side effect hidden in each class.
for _cls in list(globals().values()):
    if isinstance(_cls, type) and issubclass(_cls, (UnaryFunction, BinaryFunction)) \
            and _cls.__dict__.get("op") is not None:
        _cls.op.function = _cls
