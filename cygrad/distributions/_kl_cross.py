"""KL divergences between distributions of different families, registered with
:func:`cygrad.distributions.register_kl` (imported by ``kl.py``).

Each is ``-H(p) - E_p[log q(x)]`` in closed form; where ``p``'s support reaches
outside ``q``'s the divergence is infinite.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Normal, Uniform, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Uniform(-1.0, 1.0)).item()
inf
"""
import math

import cygrad
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .continuous_bernoulli import ContinuousBernoulli
from .exponential import Exponential
from .gamma import Gamma
from .gumbel import Gumbel
from .kl import register_kl, _infinite_like, _x_log_x, _EULER_GAMMA
from .laplace import Laplace
from .normal import Normal
from .pareto import Pareto
from .poisson import Poisson
from .uniform import Uniform
from ._special import lgamma, digamma


def _normal_cross_term(mean, var, q):
    """``-E_p[log q(x)]`` for a Normal ``q``, from ``p``'s mean and variance."""
    return (0.5 * cygrad.log(2 * math.pi * q.scale.pow(2))
            + (var + (mean - q.loc).pow(2)) / (2 * q.scale.pow(2)))


def _gumbel_cross_term(mean, exp_neg, q):
    """``-E_p[log q(x)]`` for a Gumbel ``q`` from ``E_p[x]`` and
    ``E_p[exp(-x / q.scale)]``: ``log b + E[z] + E[exp(-z)]``, ``z = (x - loc) / b``."""
    return (q.scale.log() + (mean - q.loc) / q.scale
            + cygrad.exp(q.loc / q.scale) * exp_neg)


def _uniform_mean_log(low, high):
    """``E[log x]`` of ``x ~ Uniform(low, high)``, ``low >= 0``."""
    return (_x_log_x(high) - _x_log_x(low) - (high - low)) / (high - low)


@register_kl(Uniform, Normal)
def _kl_uniform_normal(p, q):
    common_term = p.high - p.low
    t1 = (math.sqrt(math.pi * 2) * q.scale / common_term).log()
    t2 = (common_term).pow(2) / 12
    t3 = ((p.high + p.low - 2 * q.loc) / 2).pow(2)
    return t1 + 0.5 * (t2 + t3) / q.scale.pow(2)


@register_kl(Uniform, Exponential)
def _kl_uniform_exponential(p, q):
    result = q.rate * (p.high + p.low) / 2 - ((p.high - p.low) * q.rate).log()
    return cygrad.where(p.low < q.support.lower_bound, _infinite_like(result), result)


@register_kl(Uniform, Gamma)
def _kl_uniform_gamma(p, q):
    common_term = p.high - p.low
    t1 = common_term.log()
    t2 = lgamma(q.concentration) - q.concentration * q.rate.log()
    t3 = (1 - q.concentration) * (_x_log_x(p.high) - _x_log_x(p.low) - common_term) \
        / common_term
    t4 = q.rate * (p.high + p.low) / 2
    result = -t1 + t2 + t3 + t4
    return cygrad.where(p.low < q.support.lower_bound, _infinite_like(result), result)


@register_kl(Exponential, Gamma)
def _kl_exponential_gamma(p, q):
    ratio = q.rate / p.rate
    t1 = -q.concentration * cygrad.log(ratio)
    return (t1 + ratio + lgamma(q.concentration) + q.concentration * _EULER_GAMMA
            - (1 + _EULER_GAMMA))


@register_kl(Exponential, Normal)
def _kl_exponential_normal(p, q):
    var_normal = q.scale.pow(2)
    rate_sqr = p.rate.pow(2)
    t1 = 0.5 * cygrad.log(rate_sqr * var_normal * 2 * math.pi)
    t2 = rate_sqr.reciprocal()
    t3 = q.loc / p.rate
    t4 = q.loc.pow(2) * 0.5
    return t1 - 1 + (t2 - t3 + t4) / var_normal


@register_kl(Normal, Laplace)
def _kl_normal_laplace(p, q):
    loc_diff = p.loc - q.loc
    scale_ratio = p.scale / q.scale
    loc_diff_scale_ratio = loc_diff / p.scale
    t1 = cygrad.log(scale_ratio)
    t2 = math.sqrt(2 / math.pi) * p.scale * cygrad.exp(-0.5 * loc_diff_scale_ratio.pow(2))
    t3 = loc_diff * cygrad.erf(math.sqrt(0.5) * loc_diff_scale_ratio)
    return -t1 + (t2 + t3) / q.scale - (0.5 * (1 + math.log(0.5 * math.pi)))


@register_kl(Laplace, Normal)
def _kl_laplace_normal(p, q):
    var_normal = q.scale.pow(2)
    scale_sqr_var_ratio = p.scale.pow(2) / var_normal
    t1 = 0.5 * cygrad.log(2 * scale_sqr_var_ratio / math.pi)
    t2 = 0.5 * p.loc.pow(2)
    t3 = p.loc * q.loc
    t4 = 0.5 * q.loc.pow(2)
    return -t1 + scale_sqr_var_ratio + (t2 - t3 + t4) / var_normal - 1


@register_kl(Beta, Uniform)
def _kl_beta_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low > p.support.lower_bound) | (q.high < p.support.upper_bound)
    return cygrad.where(outside, _infinite_like(result), result)


@register_kl(Gamma, Exponential)
def _kl_gamma_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * (p.concentration / p.rate)


@register_kl(Gamma, Normal)
def _kl_gamma_normal(p, q):
    var_normal = q.scale.pow(2)
    beta_sqr = p.rate.pow(2)
    t1 = (0.5 * cygrad.log(beta_sqr * var_normal * 2 * math.pi) - p.concentration
          - lgamma(p.concentration))
    t2 = 0.5 * (p.concentration.pow(2) + p.concentration) / beta_sqr
    t3 = q.loc * p.concentration / p.rate
    t4 = 0.5 * q.loc.pow(2)
    return (t1 + (p.concentration - 1) * digamma(p.concentration)
            + (t2 - t3 + t4) / var_normal)



@register_kl(Bernoulli, Poisson)
def _kl_bernoulli_poisson(p, q):
    return -p.entropy() - (p.probs * q.rate.log() - q.rate)


@register_kl(Beta, ContinuousBernoulli)
def _kl_beta_continuous_bernoulli(p, q):
    return (-p.entropy() - p.mean * q.logits - cygrad.log1p(-q.probs)
            - q._cont_bern_log_norm())


@register_kl(Beta, Exponential)
@register_kl(ContinuousBernoulli, Exponential)
def _kl_unit_interval_exponential(p, q):
    return -p.entropy() - q.rate.log() + q.rate * p.mean


@register_kl(Beta, Gamma)
def _kl_beta_gamma(p, q):
    a, b = p.concentration1, p.concentration0
    mean_log = digamma(a) - digamma(a + b)
    return (-p.entropy() - q.concentration * q.rate.log() + lgamma(q.concentration)
            - (q.concentration - 1) * mean_log + q.rate * p.mean)


@register_kl(Beta, Normal)
@register_kl(ContinuousBernoulli, Normal)
@register_kl(Gumbel, Normal)
def _kl_moments_normal(p, q):
    return -p.entropy() + _normal_cross_term(p.mean, p.variance, q)


@register_kl(ContinuousBernoulli, ContinuousBernoulli)
def _kl_continuous_bernoulli_continuous_bernoulli(p, q):
    return (p.mean * (p.logits - q.logits) + p._cont_bern_log_norm() + cygrad.log1p(-p.probs)
            - q._cont_bern_log_norm() - cygrad.log1p(-q.probs))


@register_kl(ContinuousBernoulli, Uniform)
def _kl_continuous_bernoulli_uniform(p, q):
    result = -p.entropy() + (q.high - q.low).log()
    outside = (q.low > 0) | (q.high < 1)
    return cygrad.where(outside, _infinite_like(result), result)


@register_kl(Exponential, Gumbel)
def _kl_exponential_gumbel(p, q):
    # E[exp(-x / b)] of Exponential(rate) is rate / (rate + 1 / b)
    exp_neg = p.rate * q.scale / (p.rate * q.scale + 1)
    return -p.entropy() + _gumbel_cross_term(p.mean, exp_neg, q)


@register_kl(Gamma, Gumbel)
def _kl_gamma_gumbel(p, q):
    exp_neg = (1 + 1 / (p.rate * q.scale)).pow(-p.concentration)
    return -p.entropy() + _gumbel_cross_term(p.mean, exp_neg, q)


@register_kl(Normal, Gumbel)
def _kl_normal_gumbel(p, q):
    exp_neg = cygrad.exp(-p.loc / q.scale + p.scale.pow(2) / (2 * q.scale.pow(2)))
    return -p.entropy() + _gumbel_cross_term(p.loc, exp_neg, q)


@register_kl(Uniform, Gumbel)
def _kl_uniform_gumbel(p, q):
    exp_neg = q.scale * (cygrad.exp(-p.low / q.scale) - cygrad.exp(-p.high / q.scale)) \
        / (p.high - p.low)
    return -p.entropy() + _gumbel_cross_term(p.mean, exp_neg, q)


def _pareto_moments(p):
    """``E[x]`` (inf for alpha <= 1) and ``E[x^2]`` (inf for alpha <= 2)."""
    a = p.alpha
    m1 = cygrad.where(a > 1, a * p.scale / (a - 1).clamp(min=1e-300), _infinite_like(a))
    m2 = cygrad.where(a > 2, a * p.scale.pow(2) / (a - 2).clamp(min=1e-300),
                      _infinite_like(a))
    return m1, m2


@register_kl(Pareto, Exponential)
def _kl_pareto_exponential(p, q):
    m1, _ = _pareto_moments(p)
    return -p.entropy() - q.rate.log() + q.rate * m1


@register_kl(Pareto, Gamma)
def _kl_pareto_gamma(p, q):
    m1, _ = _pareto_moments(p)
    mean_log = p.scale.log() + p.alpha.reciprocal()
    return (-p.entropy() - q.concentration * q.rate.log() + lgamma(q.concentration)
            - (q.concentration - 1) * mean_log + q.rate * m1)


@register_kl(Pareto, Normal)
def _kl_pareto_normal(p, q):
    m1, m2 = _pareto_moments(p)
    var_normal = q.scale.pow(2)
    result = (-p.entropy() + 0.5 * cygrad.log(2 * math.pi * var_normal)
              + (m2 - 2 * q.loc * m1 + q.loc.pow(2)) / (2 * var_normal))
    return cygrad.where(p.alpha <= 2, _infinite_like(result), result)


@register_kl(Uniform, Beta)
def _kl_uniform_beta(p, q):
    a, b = q.concentration1, q.concentration0
    low, high = p.low.clamp(min=0, max=1), p.high.clamp(min=0, max=1)
    mean_log = _uniform_mean_log(low, high)
    mean_log1m = _uniform_mean_log(1 - high, 1 - low)
    lbeta = lgamma(a) + lgamma(b) - lgamma(a + b)
    result = (-p.entropy() - (a - 1) * mean_log - (b - 1) * mean_log1m + lbeta)
    outside = (p.low < 0) | (p.high > 1)
    return cygrad.where(outside, _infinite_like(result), result)


@register_kl(Uniform, ContinuousBernoulli)
def _kl_uniform_continuous_bernoulli(p, q):
    result = (-p.entropy() - p.mean * q.logits - cygrad.log1p(-q.probs)
              - q._cont_bern_log_norm())
    outside = (p.low < 0) | (p.high > 1)
    return cygrad.where(outside, _infinite_like(result), result)


@register_kl(Uniform, Pareto)
def _kl_uniform_pareto(p, q):
    low = cygrad.where(p.low > 0, p.low, cygrad.ones_like(p.low))
    mean_log = _uniform_mean_log(low, cygrad.where(p.low > 0, p.high, low + 1))
    result = (-p.entropy() - q.alpha.log() - q.alpha * q.scale.log()
              + (q.alpha + 1) * mean_log)
    return cygrad.where(p.low < q.scale, _infinite_like(result), result)


# p's support reaches where q has no mass
_INFINITE = {
    Beta: (Pareto,), ContinuousBernoulli: (Pareto,),
    Exponential: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gamma: (Beta, ContinuousBernoulli, Pareto, Uniform),
    Gumbel: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Laplace: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Normal: (Beta, ContinuousBernoulli, Exponential, Gamma, Pareto, Uniform),
    Pareto: (Beta, ContinuousBernoulli, Uniform),
    Poisson: (Bernoulli, Binomial),
}


def _kl_infinity(p, q):
    return _infinite_like(p.mean)


for _p, _qs in _INFINITE.items():
    for _q in _qs:
        register_kl(_p, _q)(_kl_infinity)
