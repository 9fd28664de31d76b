"""Private ``lgamma``/``digamma`` for positive arguments, composed from cygrad's
differentiable elementwise ops.

To be replaced by ``cygrad.lgamma`` / ``cygrad.digamma`` when the special-functions
work lands: :func:`lgamma` and :func:`digamma` already use them when ``cygrad`` has
them.  The fallback shifts the argument up by ``_SHIFT`` with the recurrences
``lgamma(x) = lgamma(x + n) - sum(log(x + k))`` and
``digamma(x) = digamma(x + n) - sum(1 / (x + k))`` and evaluates the asymptotic
(Stirling) series there, where its first omitted term is below 1e-15; autograd
through the composition gives the derivatives (digamma, trigamma) to the same
accuracy.  Valid for ``x > 0`` only, which is all the distributions need.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions._special import lgamma, digamma
>>> round(lgamma(cygrad.tensor(5.0, dtype=cygrad.float64)).item(), 10)  # log(24)
3.1780538303
>>> round(digamma(cygrad.tensor(1.0, dtype=cygrad.float64)).item(), 10)  # -gamma
-0.5772156649
"""
import math

import cygrad
from cygrad.autograd import Function
from cygrad.autograd.forward_ad import saved_for_jvp
from .utils import broadcast_all

_SHIFT = 10
_HALF_LOG_2PI = 0.5 * math.log(2 * math.pi)


def lgamma(x):
    """``log(|Gamma(x)|)`` for ``x > 0``."""
    if hasattr(cygrad, "lgamma"):
        return cygrad.lgamma(x)
    z = x + _SHIFT
    shift = sum(cygrad.log(x + k) for k in range(_SHIFT))
    r = 1.0 / z
    r2 = r * r
    series = r * (1 / 12 - r2 * (1 / 360 - r2 * (1 / 1260 - r2 * (1 / 1680 - r2 / 1188))))
    return (z - 0.5) * cygrad.log(z) - z + _HALF_LOG_2PI + series - shift


def digamma(x):
    """``d/dx log(Gamma(x))`` for ``x > 0``."""
    if hasattr(cygrad, "digamma"):
        return cygrad.digamma(x)
    z = x + _SHIFT
    shift = sum(1.0 / (x + k) for k in range(_SHIFT))
    r2 = 1.0 / (z * z)
    series = r2 * (1 / 12 - r2 * (1 / 120 - r2 * (1 / 252 - r2 * (1 / 240 - r2 / 132))))
    return cygrad.log(z) - 0.5 / z - series - shift


def mvlgamma(x, p):
    """Multivariate ``lgamma`` of dimension ``p`` (``torch.mvlgamma``) for
    ``x > (p - 1) / 2``."""
    offsets = cygrad.arange(p, dtype=x.dtype, device=x.device) * -0.5
    return (p * (p - 1) / 4 * math.log(math.pi)
            + lgamma(x.unsqueeze(-1) + offsets).sum(-1))


def xlogy(x, y):
    """``x * log(y)``, 0 where ``x == 0`` (``torch.xlogy`` for the distributions)."""
    if hasattr(cygrad, "xlogy"):
        return cygrad.xlogy(x, y)
    x, y = broadcast_all(x, y)
    zero = x == 0
    safe_y = cygrad.where(zero, cygrad.ones_like(y), y)
    return cygrad.where(zero, cygrad.zeros_like(x), x * cygrad.log(safe_y))


class _Erfinv(Function):
    """Inverse error function: Winitzki's closed-form estimate refined by Newton
    steps on ``erf``; ``d erfinv(y) / dy = sqrt(pi) / 2 * exp(erfinv(y)^2)``."""

    @staticmethod
    def forward(ctx, y):
        yd = y.double()
        ln = cygrad.log1p(-yd * yd)
        t = 2 / (math.pi * 0.147) + 0.5 * ln
        x = cygrad.sign(yd) * cygrad.sqrt(cygrad.sqrt(t * t - ln / 0.147) - t)
        sgn, ay = cygrad.sign(yd), yd.abs()
        far = ay > 0.5
        for _ in range(4):
            ax = x.abs()
            # near |y| = 1 the residual is taken with erfc, whose 1 - |y| is exact
            residual = cygrad.where(far, sgn * ((1 - ay) - cygrad.erfc(ax)), cygrad.erf(x) - yd)
            step = residual / (_TWO_OVER_SQRT_PI * cygrad.exp(-x * x))
            # at |y| == 1 the estimate is already +-inf and the step NaN
            x = cygrad.where(cygrad.isfinite(step), x - step, x)
        x = x.to(y.dtype)
        ctx.save_for_backward(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return grad * (0.5 * math.sqrt(math.pi)) * cygrad.exp(x * x)

    @staticmethod
    def jvp(ctx, t):
        x, = saved_for_jvp(ctx)
        return t * (0.5 * math.sqrt(math.pi)) * cygrad.exp(x * x)


_TWO_OVER_SQRT_PI = 2 / math.sqrt(math.pi)


def erfinv(y):
    """Inverse error function on ``[-1, 1]`` (NaN outside)."""
    if hasattr(cygrad, "erfinv"):
        return cygrad.erfinv(y)
    return _Erfinv.apply(y)
