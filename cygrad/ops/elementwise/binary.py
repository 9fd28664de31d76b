"""The binary elementwise ops as autograd ``Function`` classes: ``z = f(a, b)``.

As for the unary ops (``unary.py``), each class writes its derivative once: the two
partial derivatives ``partials(a, b, need_a, need_b)``. ``backward`` multiplies them
by the output's gradient, ``jvp`` by the inputs' tangents; the engine sums a
broadcast input's gradient back to its shape. Either operand may be a Python number
(``x * 2``): it is kept on ``ctx.numbers`` instead of being saved.
"""
import math

from ..._core import tensor as _C
from ..._core.tensor import TensorBase
from ...autograd.function import Function
from .unary import conj_derivative

OPS = _C.ELEMENTWISE_OPS
_binary_op = _C.binary_op
_NO_NUMBERS = (None, None)


def _is_tensor(x):
    return isinstance(x, TensorBase)


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
        return ((None if da is None else grad * conj_derivative(da)),
                (None if db is None else grad * conj_derivative(db)))

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
        # (no negation for a b that wants no gradient: mse_loss's target)
        return grad, (-grad if ctx.needs_input_grad[1] else None)

    @staticmethod
    def jvp(ctx, ta, tb):
        return _plus(ta, None if tb is None else -tb)


class Mul(BinaryFunction):
    """d(ab)/da = b, d(ab)/db = a."""
    op = OPS["mul"]
    _node_name = "MulBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        # course: begin mul-partials
        return b, a
        # course: end mul-partials


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
