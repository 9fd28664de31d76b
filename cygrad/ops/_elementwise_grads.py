"""Backward formulas of the elementwise ops, each a ``Function`` subclass.

Every class reads like a user's custom Function: ``forward`` runs the kernel (through
the dispatcher, with recording off) and saves what ``backward`` needs; ``backward``
is written with cygrad ops, so it is itself differentiable (double backward works).
Gradients of broadcast inputs are reduced to the input's shape by the engine.
"""
import math

from .._core import tensor as _C
from .._core.tensor import TensorBase
from ..autograd.function import Function

OPS = _C.ELEMENTWISE_OPS
_binary_op = _C.binary_op
_unary_op = _C.unary_op
_NO_NUMBERS = (None, None)
_ADD, _SUB = OPS["add"], OPS["sub"]


def _is_tensor(x):
    return isinstance(x, TensorBase)


class _Unary(Function):
    """Unary op whose backward needs the input ``x``."""
    op = None

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return _unary_op(ctx.op, x)


class _UnaryOut(Function):
    """Unary op whose backward is cheapest from the output ``y``."""
    op = None

    @staticmethod
    def forward(ctx, x):
        y = _unary_op(ctx.op, x)
        ctx.save_for_backward(y)
        return y


def _define(name, base, backward, node_name=None):
    """Make the Function for op ``name`` and register it with the dispatcher."""
    cls_name = "".join(p.capitalize() for p in name.split("_"))
    cls = type(base)(cls_name, (base,), {
        "op": OPS[name], "backward": staticmethod(backward),
        "_node_name": node_name or f"{cls_name}Backward0",
        "__doc__": f"autograd Function of ``{name}``."})
    cls._backward_cls.op = OPS[name]      # so forward can read it as ``ctx.op``
    OPS[name].function = cls
    return cls


# ---- unary: d/dx written with the saved input x or output y
Exp = _define("exp", _UnaryOut, lambda ctx, g: g * ctx.saved_tensors[0])
Exp2 = _define("exp2", _UnaryOut, lambda ctx, g: g * ctx.saved_tensors[0] * math.log(2.0))
Expm1 = _define("expm1", _UnaryOut, lambda ctx, g: g * (ctx.saved_tensors[0] + 1))
Log = _define("log", _Unary, lambda ctx, g: g / ctx.saved_tensors[0])
Log2 = _define("log2", _Unary, lambda ctx, g: g / (ctx.saved_tensors[0] * math.log(2.0)))
Log10 = _define("log10", _Unary, lambda ctx, g: g / (ctx.saved_tensors[0] * math.log(10.0)))
Log1p = _define("log1p", _Unary, lambda ctx, g: g / (ctx.saved_tensors[0] + 1))
Sqrt = _define("sqrt", _UnaryOut, lambda ctx, g: g / (2 * ctx.saved_tensors[0]))
Rsqrt = _define("rsqrt", _UnaryOut, lambda ctx, g: -0.5 * g * ctx.saved_tensors[0] ** 3)
Sin = _define("sin", _Unary, lambda ctx, g: g * ctx.saved_tensors[0].cos())
Cos = _define("cos", _Unary, lambda ctx, g: -g * ctx.saved_tensors[0].sin())
Tan = _define("tan", _UnaryOut, lambda ctx, g: g * (1 + ctx.saved_tensors[0] ** 2))
Asin = _define("asin", _Unary, lambda ctx, g: g / (1 - ctx.saved_tensors[0] ** 2).sqrt())
Acos = _define("acos", _Unary, lambda ctx, g: -g / (1 - ctx.saved_tensors[0] ** 2).sqrt())
Atan = _define("atan", _Unary, lambda ctx, g: g / (1 + ctx.saved_tensors[0] ** 2))
Sinh = _define("sinh", _Unary, lambda ctx, g: g * ctx.saved_tensors[0].cosh())
Cosh = _define("cosh", _Unary, lambda ctx, g: g * ctx.saved_tensors[0].sinh())
Tanh = _define("tanh", _UnaryOut, lambda ctx, g: g * (1 - ctx.saved_tensors[0] ** 2))
Sigmoid = _define("sigmoid", _UnaryOut,
                  lambda ctx, g: g * ctx.saved_tensors[0] * (1 - ctx.saved_tensors[0]))
Relu = _define("relu", _UnaryOut, lambda ctx, g: g * (ctx.saved_tensors[0] > 0))
Erf = _define("erf", _Unary,
              lambda ctx, g: g * (2 / math.sqrt(math.pi)) * (-ctx.saved_tensors[0] ** 2).exp())
Erfc = _define("erfc", _Unary,
               lambda ctx, g: -g * (2 / math.sqrt(math.pi)) * (-ctx.saved_tensors[0] ** 2).exp())
Abs = _define("abs", _Unary, lambda ctx, g: g * ctx.saved_tensors[0].sign())
Neg = _define("neg", _Unary, lambda ctx, g: -g)
Reciprocal = _define("reciprocal", _UnaryOut, lambda ctx, g: -g * ctx.saved_tensors[0] ** 2)
Square = _define("square", _Unary, lambda ctx, g: 2 * g * ctx.saved_tensors[0])
Frac = _define("frac", _Unary, lambda ctx, g: g)
# Piecewise-constant ops have a zero gradient almost everywhere (as in PyTorch).
for _name in ("sign", "floor", "ceil", "trunc", "round"):
    _define(_name, _Unary, lambda ctx, g: g * 0)


# ---- binary ops: inputs may be tensors or Python numbers

class _Binary(Function):
    """Binary op; saves both operands (numbers are kept as plain attributes)."""
    op = None

    @staticmethod
    def forward(ctx, a, b):
        if isinstance(a, TensorBase) and isinstance(b, TensorBase):
            ctx.save_for_backward(a, b)      # (no ctx.numbers: operands() defaults it)
        else:
            ctx.save_for_backward(a if _is_tensor(a) else None, b if _is_tensor(b) else None)
            ctx.numbers = (None if _is_tensor(a) else a, None if _is_tensor(b) else b)
        return _binary_op(ctx.op, a, b)


def operands(ctx):
    """The two forward operands, tensors from ``saved_tensors`` and numbers as given."""
    ta, tb = ctx.saved_tensors
    na, nb = getattr(ctx, "numbers", _NO_NUMBERS)
    return (ta if ta is not None else na), (tb if tb is not None else nb)


class Add(Function):
    """d(a + b) = da + db."""
    _node_name = "AddBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return _binary_op(_ADD, a, b)

    @staticmethod
    def backward(ctx, grad):
        return grad, grad


class Sub(Function):
    """d(a - b) = da - db."""
    _node_name = "SubBackward0"

    @staticmethod
    def forward(ctx, a, b):
        return _binary_op(_SUB, a, b)

    @staticmethod
    def backward(ctx, grad):
        return grad, -grad


OPS["add"].function = Add
OPS["sub"].function = Sub


def _mul_backward(ctx, g):
    a, b = operands(ctx)
    return g * b, g * a


def _div_backward(ctx, g):
    a, b = operands(ctx)
    return g / b, -g * a / (b * b)


def _pow_backward(ctx, g):
    a, b = operands(ctx)
    grad_a = grad_b = None
    if ctx.needs_input_grad[0]:
        grad_a = g * b * a ** (b - 1)
    if ctx.needs_input_grad[1]:
        # d(a^b)/db = a^b log(a), taken as 0 where a == 0 (as PyTorch does)
        log_a = (a + (a == 0)).log() if _is_tensor(a) else (math.log(a) if a != 0 else 0.0)
        grad_b = g * a ** b * log_a
    return grad_a, grad_b


def _extreme_backward(wins):
    def backward(ctx, g):
        a, b = operands(ctx)
        # the winning operand gets the gradient; ties split it in half, as in PyTorch
        wa = wins(a, b).to(g.dtype) + (a == b).to(g.dtype) * 0.5
        return g * wa, g * (1 - wa)
    return backward


def _atan2_backward(ctx, g):
    a, b = operands(ctx)
    denom = a * a + b * b
    return g * b / denom, -g * a / denom


def _hypot_backward(ctx, g):
    a, b = operands(ctx)
    h = _C.binary_op(OPS["hypot"], a, b)
    return g * a / h, g * b / h


def _fmod_backward(ctx, g):
    a, b = operands(ctx)
    return g, -g * (a / b).trunc()


def _remainder_backward(ctx, g):
    a, b = operands(ctx)
    return g, -g * (a / b).floor()


Mul = _define("mul", _Binary, _mul_backward)
Div = _define("div", _Binary, _div_backward)
Pow = _define("pow", _Binary, _pow_backward)
Maximum = _define("maximum", _Binary, _extreme_backward(lambda a, b: a > b))
Minimum = _define("minimum", _Binary, _extreme_backward(lambda a, b: a < b))
Atan2 = _define("atan2", _Binary, _atan2_backward)
Hypot = _define("hypot", _Binary, _hypot_backward)
Fmod = _define("fmod", _Binary, _fmod_backward)
Remainder = _define("remainder", _Binary, _remainder_backward)


# ---- forward mode: each op's ``jvp`` maps input tangents to the output tangent
# (see cygrad/autograd/forward_ad.py for the contract). A tangent is None where an
# operand has none (a number, or a tensor without tangent); None terms are skipped.
# The jvp runs before the node is recorded, so it reads the tensors forward saved
# from ``ctx._to_save`` (``ctx.saved_tensors`` is not filled yet).

def _jvp_saved(ctx):
    """The tensor forward saved (input x for _Unary ops, output y for _UnaryOut ops)."""
    return ctx._to_save[0]


def _jvp_operands(ctx):
    """The two forward operands during jvp: saved tensors, or numbers as given."""
    ta, tb = ctx._to_save
    na, nb = getattr(ctx, "numbers", _NO_NUMBERS)
    return (ta if ta is not None else na), (tb if tb is not None else nb)


def _plus(x, y):
    """x + y where None stands for zero."""
    if x is None:
        return y
    if y is None:
        return x
    return x + y


_LN2, _LN10 = math.log(2.0), math.log(10.0)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)

# unary ops: tangent * f'(x), written with the saved input x or output y
_UNARY_JVP = {
    "exp": lambda ctx, t: t * _jvp_saved(ctx),
    "exp2": lambda ctx, t: t * _jvp_saved(ctx) * _LN2,
    "expm1": lambda ctx, t: t * (_jvp_saved(ctx) + 1),
    "log": lambda ctx, t: t / _jvp_saved(ctx),
    "log2": lambda ctx, t: t / (_jvp_saved(ctx) * _LN2),
    "log10": lambda ctx, t: t / (_jvp_saved(ctx) * _LN10),
    "log1p": lambda ctx, t: t / (_jvp_saved(ctx) + 1),
    "sqrt": lambda ctx, t: t / (2 * _jvp_saved(ctx)),
    "rsqrt": lambda ctx, t: -0.5 * t * _jvp_saved(ctx) ** 3,
    "sin": lambda ctx, t: t * _jvp_saved(ctx).cos(),
    "cos": lambda ctx, t: -t * _jvp_saved(ctx).sin(),
    "tan": lambda ctx, t: t * (1 + _jvp_saved(ctx) ** 2),
    "asin": lambda ctx, t: t / (1 - _jvp_saved(ctx) ** 2).sqrt(),
    "acos": lambda ctx, t: -t / (1 - _jvp_saved(ctx) ** 2).sqrt(),
    "atan": lambda ctx, t: t / (1 + _jvp_saved(ctx) ** 2),
    "sinh": lambda ctx, t: t * _jvp_saved(ctx).cosh(),
    "cosh": lambda ctx, t: t * _jvp_saved(ctx).sinh(),
    "tanh": lambda ctx, t: t * (1 - _jvp_saved(ctx) ** 2),
    "sigmoid": lambda ctx, t: t * _jvp_saved(ctx) * (1 - _jvp_saved(ctx)),
    "relu": lambda ctx, t: t * (_jvp_saved(ctx) > 0),
    "erf": lambda ctx, t: t * _TWO_OVER_SQRT_PI * (-_jvp_saved(ctx) ** 2).exp(),
    "erfc": lambda ctx, t: -t * _TWO_OVER_SQRT_PI * (-_jvp_saved(ctx) ** 2).exp(),
    "abs": lambda ctx, t: t * _jvp_saved(ctx).sign(),
    "neg": lambda ctx, t: -t,
    "reciprocal": lambda ctx, t: -t * _jvp_saved(ctx) ** 2,
    "square": lambda ctx, t: 2 * t * _jvp_saved(ctx),
    "frac": lambda ctx, t: t,
}
for _name in ("sign", "floor", "ceil", "trunc", "round"):
    _UNARY_JVP[_name] = lambda ctx, t: t * 0


def _mul_jvp(ctx, ta, tb):
    a, b = _jvp_operands(ctx)
    return _plus(None if ta is None else ta * b, None if tb is None else a * tb)


def _div_jvp(ctx, ta, tb):
    a, b = _jvp_operands(ctx)
    return _plus(None if ta is None else ta / b, None if tb is None else -tb * a / (b * b))


def _pow_jvp(ctx, ta, tb):
    a, b = _jvp_operands(ctx)
    da = None if ta is None else ta * b * a ** (b - 1)
    db = None
    if tb is not None:
        # a^b log(a), taken as 0 where a == 0 (as in backward)
        log_a = (a + (a == 0)).log() if _is_tensor(a) else (math.log(a) if a != 0 else 0.0)
        db = tb * a ** b * log_a
    return _plus(da, db)


def _extreme_jvp(wins):
    def jvp(ctx, ta, tb):
        a, b = _jvp_operands(ctx)
        # the winner's tangent; the mean of both at ties (consistent with backward)
        wa = wins(a, b) * 1.0 + (a == b) * 0.5
        return _plus(None if ta is None else ta * wa, None if tb is None else tb * (1 - wa))
    return jvp


def _atan2_jvp(ctx, ta, tb):
    a, b = _jvp_operands(ctx)
    denom = a * a + b * b
    return _plus(None if ta is None else ta * b / denom, None if tb is None else -tb * a / denom)


def _hypot_jvp(ctx, ta, tb):
    a, b = _jvp_operands(ctx)
    h = _C.binary_op(OPS["hypot"], a, b)
    return _plus(None if ta is None else ta * a / h, None if tb is None else tb * b / h)


def _fmod_jvp(ctx, ta, tb):
    a, b = _jvp_operands(ctx)
    return _plus(ta, None if tb is None else -tb * (a / b).trunc())


def _remainder_jvp(ctx, ta, tb):
    a, b = _jvp_operands(ctx)
    return _plus(ta, None if tb is None else -tb * (a / b).floor())


_BINARY_JVP = {
    "add": lambda ctx, ta, tb: _plus(ta, tb),
    "sub": lambda ctx, ta, tb: _plus(ta, None if tb is None else -tb),
    "mul": _mul_jvp,
    "div": _div_jvp,
    "pow": _pow_jvp,
    "maximum": _extreme_jvp(lambda a, b: a > b),
    "minimum": _extreme_jvp(lambda a, b: a < b),
    "atan2": _atan2_jvp,
    "hypot": _hypot_jvp,
    "fmod": _fmod_jvp,
    "remainder": _remainder_jvp,
}

for _name, _jvp in {**_UNARY_JVP, **_BINARY_JVP}.items():
    OPS[_name].function.jvp = staticmethod(_jvp)


def _fextreme_backward(wins):
    def backward(ctx, g):
        a, b = operands(ctx)
        # fmax/fmin ignore NaN: the gradient goes to the operand that was picked
        # (a wins ties, and wins whenever b is NaN), as in PyTorch
        wa = (wins(a, b) | (b != b)).to(g.dtype)
        return g * wa, g * (1 - wa)
    return backward


Fmax = _define("fmax", _Binary, _fextreme_backward(lambda a, b: a >= b))
Fmin = _define("fmin", _Binary, _fextreme_backward(lambda a, b: a <= b))
