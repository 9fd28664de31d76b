"""Standard Gamma samples with implicit reparameterisation gradients, drawn from
cygrad's generator (used by Gamma, Beta, Dirichlet, Chi2, StudentT...), and the
regularised incomplete gamma function ``P(a, x)`` (``Gamma.cdf``; to be replaced by
``cygrad.special.gammainc`` when it lands, which :func:`gammainc` then uses).

Sampling is Marsaglia and Tsang's squeeze-rejection method on normal and uniform
draws (for ``alpha < 1`` a sample of ``alpha + 1`` scaled by ``u ** (1 / alpha)``),
vectorised: every pending element draws, accepted ones leave.  PyTorch's sampler
makes its draws in another order, so the numbers differ from PyTorch's for the same
seed (the distribution is the same).

The gradient of a sample ``x`` with respect to ``alpha`` is the implicit one (as in
PyTorch's ``_standard_gamma``): ``dx/dalpha = -(dP(alpha, x)/dalpha) / p(x; alpha)``,
with ``P`` the regularised lower incomplete gamma function and ``p`` the density.
``dP/dalpha`` comes from differentiating ``P``'s power series term by term; the
ratio to the density is summed directly, so nothing underflows:
``dx/dalpha = -sum_n x^(n+1) Gamma(alpha) / Gamma(alpha+n+1) * (log x - digamma(alpha+n+1))``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions._gamma import standard_gamma
>>> _ = cygrad.manual_seed(0)
>>> standard_gamma(cygrad.full((4,), 2.0)).shape
cygrad.Size([4])
"""
import cygrad
from cygrad.autograd import Function
from cygrad.autograd.function import once_differentiable
from .utils import finfo_tiny
from ._special import lgamma, digamma

_BLOCK = 128
_MAX_TERMS = 20000


def _draw(alpha):
    """Samples of Gamma(alpha, 1) in float64, flat."""
    a = alpha.double().reshape(-1)
    boost = a < 1
    a1 = cygrad.where(boost, a + 1, a)
    d = a1 - 1.0 / 3
    c = 1.0 / cygrad.sqrt(9 * d)
    out = cygrad.zeros_like(a)
    pending = cygrad.arange(a.numel())
    while pending.numel():
        dp, cp = d[pending], c[pending]
        x = cygrad.randn(pending.numel(), dtype=cygrad.float64)
        u = cygrad.rand(pending.numel(), dtype=cygrad.float64)
        v = (1 + cp * x) ** 3
        safe_v = cygrad.where(v > 0, v, cygrad.ones_like(v))
        accept = (v > 0) & (cygrad.log(u) < 0.5 * x * x + dp - dp * safe_v + dp * cygrad.log(safe_v))
        out[pending[accept]] = (dp * v)[accept]
        pending = pending[~accept]
    if bool(boost.any()):
        u = cygrad.rand(a.numel(), dtype=cygrad.float64)
        out = cygrad.where(boost, out * u ** (1 / a), out)
    return out


def _series(x, alpha, terms):
    """``sum_n terms(n)`` over ``n = 0, 1, ...`` for each element, in blocks of
    ``_BLOCK`` (``terms`` maps a block of ``n``, shaped to broadcast against
    ``x.unsqueeze(-1)``, to its terms).  The terms of the incomplete gamma series
    peak near ``n = x - alpha`` and then fall off within a few ``sqrt(x)``: a block
    ends the sum once every element is past its peak and its last term is
    negligible."""
    total = cygrad.zeros_like(x)
    start = 0
    while start < _MAX_TERMS:
        n = cygrad.arange(start, start + _BLOCK, dtype=cygrad.float64)
        block = terms(n)
        total = total + block.sum(-1)
        start += _BLOCK
        past_peak = (start > x - alpha)
        small = block[..., -1].abs() <= 1e-17 * total.abs() + 1e-300
        if bool((past_peak & small).all()):
            break
    return total


def _dsample_dalpha(x, alpha):
    """``dx/dalpha`` of Gamma(alpha, 1) samples ``x`` (float64, same shape)."""
    logx = cygrad.log(x).unsqueeze(-1)
    lg_a = lgamma(alpha).unsqueeze(-1)
    a = alpha.unsqueeze(-1)

    def terms(n):
        ap = a + n + 1
        return cygrad.exp((n + 1) * logx + lg_a - lgamma(ap)) * (logx - digamma(ap))
    return -_series(x, alpha, terms)


def _regularized_gamma_p(a, x):
    """``P(a, x)``, the regularised lower incomplete gamma function (float64):
    ``sum_n exp((a + n) log x - x - lgamma(a + n + 1))``, a sum of positive terms.
    Where ``x`` is more than ``40 sqrt(a) + 40`` above ``a`` the upper tail is below
    double precision and the result is 1 without summing."""
    x, a = cygrad.broadcast_tensors(x, a)
    far = x > a + 40 * cygrad.sqrt(a) + 40
    zero = x <= 0
    xs = cygrad.where(far | zero, cygrad.ones_like(x), x)
    logx = cygrad.log(xs).unsqueeze(-1)
    head = (a * cygrad.log(xs) - xs).unsqueeze(-1)
    a1 = a.unsqueeze(-1) + 1

    def terms(n):
        return cygrad.exp(head + n * logx - lgamma(a1 + n))
    p = _series(xs, a, terms).clamp(max=1.0)
    p = cygrad.where(far, cygrad.ones_like(p), p)
    return cygrad.where(zero, cygrad.zeros_like(p), p)


class GammaInc(Function):
    """``P(a, x)`` (``torch.special.gammainc``); differentiable in ``x`` only, as in
    PyTorch: ``dP/dx = x^(a-1) exp(-x) / Gamma(a)``."""

    @staticmethod
    def forward(ctx, a, x):
        with cygrad.no_grad():
            p = _regularized_gamma_p(a.double(), x.double())
        ctx.save_for_backward(a, x)
        return p.to(cygrad.promote_types(a.dtype, x.dtype))

    @staticmethod
    def backward(ctx, grad):
        a, x = ctx.saved_tensors
        if ctx.needs_input_grad[0]:
            raise RuntimeError("the derivative for 'self' is not implemented.")
        return None, (grad * _gamma_density(a, x)).sum_to_size(x.shape)

    @staticmethod
    def jvp(ctx, ta, tx):
        a, x = ctx.saved_tensors
        if ta is not None:
            raise RuntimeError("the derivative for 'self' is not implemented.")
        return tx * _gamma_density(a, x)


def _gamma_density(a, x):
    return cygrad.exp((a - 1) * cygrad.log(x) - x - lgamma(a))


def gammainc(a, x):
    """The regularised lower incomplete gamma function ``P(a, x)`` for ``a > 0``."""
    if hasattr(cygrad, "special") and hasattr(cygrad.special, "gammainc"):
        return cygrad.special.gammainc(a, x)
    return GammaInc.apply(a, x)


class StandardGamma(Function):
    """Gamma(alpha, 1) samples; backward and jvp by implicit reparameterisation."""

    @staticmethod
    def forward(ctx, alpha):
        x = _draw(alpha).reshape(alpha.shape)
        x = x.clamp(min=finfo_tiny(alpha.dtype)).to(alpha.dtype)
        ctx.save_for_backward(alpha, x)
        return x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        alpha, x = ctx.saved_tensors
        return grad * _dsample_dalpha(x.double(), alpha.double()).to(grad.dtype)

    @staticmethod
    def jvp(ctx, t):
        alpha, x = ctx.saved_tensors
        with cygrad.no_grad():
            return t * _dsample_dalpha(x.double(), alpha.double()).to(t.dtype)


def standard_gamma(alpha):
    """Samples of Gamma(``alpha``, 1), one per element; reparameterised."""
    return StandardGamma.apply(alpha)
