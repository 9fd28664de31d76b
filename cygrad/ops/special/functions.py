"""The special functions' derivatives as autograd ``Function`` classes.

The elementwise ones are :class:`UnaryFunction` / :class:`BinaryFunction`
subclasses (``cygrad/ops/elementwise/unary.py`` explains the pattern): the
derivative is written once, with cygrad ops, and serves backward, forward mode
and double backward. The formulas are PyTorch's: ``lgamma' = digamma``,
``digamma' = polygamma(1, x)``, ``erfinv'(x) = sqrt(pi)/2 exp(erfinv(x)^2)``,
``i0' = i1``... Where PyTorch has no derivative (``igamma`` with respect to
``a``, ``zeta`` with respect to ``x``) the partial raises its error.

Functions whose derivative is not elementwise-in-one-formula (``logit`` with
its ``eps``, ``frexp`` with two outputs) are plain ``Function`` subclasses.

Examples
--------
>>> import cygrad
>>> x = cygrad.tensor([2.0], requires_grad=True)
>>> cygrad.lgamma(x).backward()
>>> round(x.grad.item(), 6)        # digamma(2)
0.422784
"""
import math

from ..._core import tensor as _C
from ..._core import special_table as _table
from ..._core.dispatch import kernel as _kernel
from ...autograd.function import Function
from ..elementwise.unary import UnaryFunction
from ..elementwise.binary import BinaryFunction
from ..indexing.where_nonzero import where as _where

ROWS = _table.ROWS
_unary, _binary = _C.unary_op, _C.binary_op
_SQRT_PI_OVER_2 = math.sqrt(math.pi) / 2
_SQRT_2PI = math.sqrt(2 * math.pi)
_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)
_LN2 = math.log(2.0)


def _f(name, *args):
    """Row ``name`` applied through the dispatcher (records its Function when an
    argument needs autograd, so derivatives are differentiable again)."""
    row = ROWS[name]
    return _unary(row, *args) if row.arity == 1 else _binary(row, *args)


def _safe_nonzero(x):
    """x with its zeros replaced by ones: a divisor whose masked-out lanes stay finite."""
    return _where(x == 0, x.new_ones(()), x)


def _not_implemented(what):
    return NotImplementedError(f"the derivative for '{what}' is not implemented.")


# ============================================================================ unary

class Lgamma(UnaryFunction):
    """lgamma' = digamma."""
    op = ROWS["lgamma"]
    _node_name = "LgammaBackward0"

    @staticmethod
    def derivative(x):
        return _f("digamma", x)


class Digamma(UnaryFunction):
    """digamma' = polygamma(1, x)."""
    op = ROWS["digamma"]
    _node_name = "DigammaBackward0"

    @staticmethod
    def derivative(x):
        return _f("polygamma", 1, x)


class Erfinv(UnaryFunction):
    """erfinv'(x) = sqrt(pi)/2 exp(erfinv(x)^2): the output's."""
    op, saves = ROWS["erfinv"], "output"
    _node_name = "ErfinvBackward0"

    @staticmethod
    def derivative(y):
        return (y * y).exp() * _SQRT_PI_OVER_2


class I0(UnaryFunction):
    """i0' = i1."""
    op = ROWS["i0"]
    _node_name = "I0Backward0"

    @staticmethod
    def derivative(x):
        return _f("i1", x)


class I0e(UnaryFunction):
    """(i0(x) e^-|x|)' = i1e(x) - sign(x) i0e(x)."""
    op = ROWS["i0e"]
    _node_name = "SpecialI0EBackward0"

    @staticmethod
    def derivative(x):
        return _f("i1e", x) - x.sign() * _f("i0e", x)


class I1(UnaryFunction):
    """i1' = i0 - i1/x (1/2 at x = 0)."""
    op = ROWS["i1"]
    _node_name = "SpecialI1Backward0"

    @staticmethod
    def derivative(x):
        xs = _safe_nonzero(x)
        return _where(x == 0, x.new_full((), 0.5), _f("i0", x) - _f("i1", xs) / xs)


class I1e(UnaryFunction):
    """i1e' = i0e - i1e (sign(x) + 1/x) (1/2 at x = 0)."""
    op = ROWS["i1e"]
    _node_name = "SpecialI1EBackward0"

    @staticmethod
    def derivative(x):
        xs = _safe_nonzero(x)
        return _where(x == 0, x.new_full((), 0.5),
                      _f("i0e", x) - _f("i1e", xs) * (xs.sign() + xs.reciprocal()))


class Ndtr(UnaryFunction):
    """ndtr' = the normal density exp(-x^2/2) / sqrt(2 pi)."""
    op = ROWS["ndtr"]
    _node_name = "SpecialNdtrBackward0"

    @staticmethod
    def derivative(x):
        return (x * x * -0.5).exp() / _SQRT_2PI


class Ndtri(UnaryFunction):
    """ndtri'(p) = sqrt(2 pi) exp(ndtri(p)^2 / 2): the output's."""
    op, saves = ROWS["ndtri"], "output"
    _node_name = "SpecialNdtriBackward0"

    @staticmethod
    def derivative(y):
        return (y * y * 0.5).exp() * _SQRT_2PI


class LogNdtr(UnaryFunction):
    """log_ndtr' = density / ndtr = exp(-x^2/2 - log_ndtr(x)) / sqrt(2 pi)."""
    op = ROWS["log_ndtr"]
    _node_name = "SpecialLogNdtrBackward0"

    @staticmethod
    def derivative(x):
        return (x * x * -0.5 - _f("log_ndtr", x)).exp() / _SQRT_2PI


class Erfcx(UnaryFunction):
    """erfcx' = 2 x erfcx(x) - 2/sqrt(pi)."""
    op = ROWS["erfcx"]
    _node_name = "SpecialErfcxBackward0"

    @staticmethod
    def derivative(x):
        return x * _f("erfcx", x) * 2 - _TWO_OVER_SQRT_PI


class Entr(UnaryFunction):
    """(-x log x)' = -(1 + log x)."""
    op = ROWS["entr"]
    _node_name = "SpecialEntrBackward0"

    @staticmethod
    def derivative(x):
        return -(x.log() + 1)


class Sinc(UnaryFunction):
    """sinc'(x) = (cos(pi x) - sinc(x)) / x, 0 at x = 0."""
    op = ROWS["sinc"]
    _node_name = "SincBackward0"

    @staticmethod
    def derivative(x):
        xs = _safe_nonzero(x)
        d = ((xs * math.pi).cos() - _f("sinc", xs)) / xs
        return _where(x == 0, x.new_zeros(()), d)


# =========================================================================== binary

class Polygamma(BinaryFunction):
    """d/dx polygamma(n, x) = polygamma(n + 1, x); n is an integer."""
    op = ROWS["polygamma"]
    _node_name = "PolygammaBackward0"

    @staticmethod
    def partials(n, x, need_n, need_x):
        return None, (_f("polygamma", n + 1, x) if need_x else None)


class PolygammaOf(Function):
    """polygamma(n, x) as a Function of x alone (``x.polygamma_(n)`` records it)."""
    _node_name = "PolygammaBackward0"

    @staticmethod
    def forward(ctx, x, n):
        ctx.save_for_backward(x)
        ctx.n = n
        return _f("polygamma", n, x)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * _f("polygamma", ctx.n + 1, x), None

    @staticmethod
    def jvp(ctx, tangent, _n=None):
        x, = ctx.saved_tensors
        return tangent * _f("polygamma", ctx.n + 1, x)


class Xlogy(BinaryFunction):
    """d/dx = log(y) where x != 0 (else 0), d/dy = x / y."""
    op = ROWS["xlogy"]
    _node_name = "XlogyBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        da = _f("xlogy", _nonzero_mask(a), b) if need_a else None
        return da, (a / b if need_b else None)


class Xlog1py(BinaryFunction):
    """d/dx = log1p(y) where x != 0 (else 0), d/dy = x / (1 + y)."""
    op = ROWS["xlog1py"]
    _node_name = "SpecialXlog1PyBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        da = _f("xlog1py", _nonzero_mask(a), b) if need_a else None
        return da, (a / (b + 1) if need_b else None)


def _nonzero_mask(a):
    """1 where a != 0, else 0, in a's (float) dtype: d/dx of x * f(y) away from x = 0."""
    return (a != 0).to(a.dtype)


def _igamma_density(a, x):
    """x^(a-1) e^-x / Gamma(a): d/dx of the lower regularized incomplete gamma."""
    return ((a - 1) * x.log() - x - _f("lgamma", a)).exp() if isinstance(a, _C.TensorBase) \
        else ((x.log() * (a - 1)) - x - math.lgamma(a)).exp()


class Igamma(BinaryFunction):
    """d/dx P(a, x) = x^(a-1) e^-x / Gamma(a); PyTorch has no d/da."""
    op = ROWS["igamma"]
    _node_name = "IgammaBackward0"

    @staticmethod
    def partials(a, x, need_a, need_x):
        if need_a:
            raise _not_implemented("igamma: input")
        return None, (_igamma_density(a, x) if need_x else None)


class Igammac(BinaryFunction):
    """d/dx Q(a, x) = -x^(a-1) e^-x / Gamma(a); PyTorch has no d/da."""
    op = ROWS["igammac"]
    _node_name = "IgammacBackward0"

    @staticmethod
    def partials(a, x, need_a, need_x):
        if need_a:
            raise _not_implemented("igammac: input")
        return None, (-_igamma_density(a, x) if need_x else None)


class Zeta(BinaryFunction):
    """d/dq zeta(s, q) = -s zeta(s + 1, q); PyTorch has no d/ds."""
    op = ROWS["zeta"]
    _node_name = "SpecialZetaBackward0"

    @staticmethod
    def partials(s, q, need_s, need_q):
        if need_s:
            raise _not_implemented("zeta")
        return None, (-s * _f("zeta", s + 1, q) if need_q else None)


class Logaddexp(BinaryFunction):
    """d/da log(e^a + e^b) = 1 / (1 + e^(b - a)), and symmetrically."""
    op = ROWS["logaddexp"]
    _node_name = "LogaddexpBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        return (((b - a).exp() + 1).reciprocal() if need_a else None,
                ((a - b).exp() + 1).reciprocal() if need_b else None)


class Logaddexp2(BinaryFunction):
    """d/da log2(2^a + 2^b) = 1 / (1 + 2^(b - a)), and symmetrically."""
    op = ROWS["logaddexp2"]
    _node_name = "Logaddexp2Backward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        return ((((b - a) * _LN2).exp() + 1).reciprocal() if need_a else None,
                (((a - b) * _LN2).exp() + 1).reciprocal() if need_b else None)


class Copysign(BinaryFunction):
    """d/da copysign(a, b) = copysign(a, b) / a (0 at a = 0); b gets no gradient."""
    op = ROWS["copysign"]
    _node_name = "CopysignBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        da = None
        if need_a:
            a_safe = _safe_nonzero(a)
            da = _where(a == 0, a.new_zeros(()), _f("copysign", a_safe, b) / a_safe)
        return da, (0.0 if need_b else None)


class Nextafter(BinaryFunction):
    """nextafter(a, b) moves a by one ulp: PyTorch's derivatives are 1 for a, 0 for b."""
    op = ROWS["nextafter"]
    _node_name = "NextafterBackward0"

    @staticmethod
    def partials(a, b, need_a, need_b):
        return (1.0 if need_a else None), (0.0 if need_b else None)


# ======================================================================= the others

class Logit(Function):
    """logit(x) = log(x / (1 - x)), x first clamped to [eps, 1 - eps] when eps is
    given. Derivative 1 / (x (1 - x)): NaN outside [0, 1] without eps, 0 outside
    [eps, 1 - eps] with it (PyTorch's)."""
    _node_name = "LogitBackward0"

    @staticmethod
    def forward(ctx, x, eps):
        ctx.save_for_backward(x)
        ctx.eps = eps
        z = x if eps is None else x.clamp(eps, 1 - eps)
        return (z / (1 - z)).log()

    @staticmethod
    def _derivative(ctx):
        x, = ctx.saved_tensors
        d = (x * (1 - x)).reciprocal()
        if ctx.eps is None:
            outside, fill = (x < 0) | (x > 1), math.nan
        else:
            outside, fill = (x < ctx.eps) | (x > 1 - ctx.eps), 0.0
        return _where(outside, x.new_full((), fill), d)

    @staticmethod
    def backward(ctx, grad):
        return grad * Logit._derivative(ctx), None

    @staticmethod
    def jvp(ctx, tangent, _eps=None):
        return tangent * Logit._derivative(ctx)


class Frexp(Function):
    """(mantissa, exponent) = frexp(x); d mantissa / dx = 2^-exponent, the
    exponent (int32) has no gradient."""
    _node_name = "FrexpBackward0"

    @staticmethod
    def forward(ctx, x):
        m, e = _kernel("frexp", x.device.type)(x)
        ctx.mark_non_differentiable(e)
        ctx.save_for_backward(e)
        ctx.dtype = x.dtype
        return m, e

    @staticmethod
    def backward(ctx, grad_m, grad_e=None):
        e, = ctx.saved_tensors
        return grad_m / e.to(ctx.dtype).exp2()

    @staticmethod
    def jvp(ctx, tangent):
        e, = ctx.saved_tensors
        return tangent / e.to(ctx.dtype).exp2(), None


def register():
    """Point each row at its Function, so the dispatcher records it when an input
    needs autograd. Rows without one (Bessel J/Y/K, Airy, the polynomials...)
    give results without history, as PyTorch's do."""
    for cls in list(globals().values()):
        if (isinstance(cls, type) and issubclass(cls, (UnaryFunction, BinaryFunction))
                and cls.__dict__.get("op") is not None):
            cls.op.function = cls


register()
