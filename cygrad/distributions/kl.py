"""``kl_divergence(p, q)`` and ``register_kl``: KL divergences between pairs of
distributions, looked up by their types.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Normal, kl_divergence
>>> kl_divergence(Normal(0.0, 1.0), Normal(1.0, 1.0)).item()
0.5
"""
import math

import cygrad
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .gamma import Gamma
from .geometric import Geometric
from .gumbel import Gumbel
from .half_normal import HalfNormal
from .independent import Independent
from .laplace import Laplace
from .lowrank_multivariate_normal import (LowRankMultivariateNormal, _batch_lowrank_logdet,
                                          _batch_lowrank_mahalanobis)
from .multivariate_normal import MultivariateNormal, _batch_mahalanobis
from .normal import Normal
from .one_hot_categorical import OneHotCategorical
from .pareto import Pareto
from .poisson import Poisson
from .transformed_distribution import TransformedDistribution
from .uniform import Uniform
from .utils import _sum_rightmost
from ._linalg import solve_triangular
from ._special import lgamma, digamma

__all__ = ["register_kl", "kl_divergence"]

_KL_REGISTRY = {}
_KL_MEMOIZE = {}

_EULER_GAMMA = 0.57721566490153286060


def register_kl(type_p, type_q):
    """Decorator registering ``fn(p, q)`` as the KL divergence of a
    ``type_p`` distribution from a ``type_q`` one.  The most specific registered
    pair (by the types' method resolution order) is used.

    Examples
    --------
    >>> from cygrad.distributions import register_kl, Normal
    >>> class MyNormal(Normal):
    ...     pass
    >>> @register_kl(MyNormal, MyNormal)
    ... def _kl_mine(p, q):
    ...     return (p.loc - q.loc).abs()
    >>> kl_divergence(MyNormal(0.0, 1.0), MyNormal(2.0, 1.0)).item()
    2.0
    """
    if not isinstance(type_p, type) or not issubclass(type_p, Distribution):
        raise TypeError(f"Expected type_p to be a Distribution subclass but got {type_p}")
    if not isinstance(type_q, type) or not issubclass(type_q, Distribution):
        raise TypeError(f"Expected type_q to be a Distribution subclass but got {type_q}")

    def decorator(fun):
        _KL_REGISTRY[type_p, type_q] = fun
        _KL_MEMOIZE.clear()
        return fun

    return decorator


def _dispatch_kl(type_p, type_q):
    matches = [(super_p, super_q) for super_p, super_q in _KL_REGISTRY
               if issubclass(type_p, super_p) and issubclass(type_q, super_q)]
    if not matches:
        return NotImplemented
    # the pair closest to the actual types in their MROs wins (left type first)
    mro_p, mro_q = type_p.__mro__, type_q.__mro__
    best = min(matches, key=lambda m: (mro_p.index(m[0]), mro_q.index(m[1])))
    return _KL_REGISTRY[best]


def kl_divergence(p, q):
    """``KL(p || q) = E_p[log p(x) - log q(x)]``, batched over the batch shape.

    Raises ``NotImplementedError`` when no divergence is registered for the pair.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Bernoulli, kl_divergence
    >>> round(kl_divergence(Bernoulli(0.5), Bernoulli(0.25)).item(), 4)
    0.1438
    """
    try:
        fun = _KL_MEMOIZE[type(p), type(q)]
    except KeyError:
        fun = _dispatch_kl(type(p), type(q))
        _KL_MEMOIZE[type(p), type(q)] = fun
    if fun is NotImplemented:
        raise NotImplementedError(
            f"No KL(p || q) is implemented for p type {p.__class__.__name__} and "
            f"q type {q.__class__.__name__}")
    return fun(p, q)


def _infinite_like(tensor):
    return cygrad.full_like(tensor, math.inf)


def _x_log_x(tensor):
    return tensor * tensor.log()


@register_kl(Bernoulli, Bernoulli)
def _kl_bernoulli_bernoulli(p, q):
    t1 = p.probs * (cygrad.nn.functional.softplus(-q.logits)
                    - cygrad.nn.functional.softplus(-p.logits))
    t1 = cygrad.where(q.probs == 0, _infinite_like(t1), t1)
    t1 = cygrad.where(p.probs == 0, cygrad.zeros_like(t1), t1)
    t2 = (1 - p.probs) * (cygrad.nn.functional.softplus(q.logits)
                          - cygrad.nn.functional.softplus(p.logits))
    t2 = cygrad.where(q.probs == 1, _infinite_like(t2), t2)
    t2 = cygrad.where(p.probs == 1, cygrad.zeros_like(t2), t2)
    return t1 + t2


@register_kl(Beta, Beta)
def _kl_beta_beta(p, q):
    sum_params_p = p.concentration1 + p.concentration0
    sum_params_q = q.concentration1 + q.concentration0
    t1 = lgamma(q.concentration1) + lgamma(q.concentration0) + lgamma(sum_params_p)
    t2 = lgamma(p.concentration1) + lgamma(p.concentration0) + lgamma(sum_params_q)
    t3 = (p.concentration1 - q.concentration1) * digamma(p.concentration1)
    t4 = (p.concentration0 - q.concentration0) * digamma(p.concentration0)
    t5 = (sum_params_q - sum_params_p) * digamma(sum_params_p)
    return t1 - t2 + t3 + t4 + t5


@register_kl(Binomial, Binomial)
def _kl_binomial_binomial(p, q):
    if bool((p.total_count < q.total_count).any()):
        raise NotImplementedError("KL between Binomials where q.total_count > "
                                  "p.total_count is not implemented")
    kl = p.total_count * (p.probs * (p.logits - q.logits)
                          + (-p.probs).log1p() - (-q.probs).log1p())
    return cygrad.where(p.total_count > q.total_count, _infinite_like(kl), kl)


@register_kl(Categorical, Categorical)
def _kl_categorical_categorical(p, q):
    t = p.probs * (p.logits - q.logits)
    t = cygrad.where(q.probs == 0, _infinite_like(t), t)
    t = cygrad.where(p.probs == 0, cygrad.zeros_like(t), t)
    return t.sum(-1)


@register_kl(OneHotCategorical, OneHotCategorical)
def _kl_onehotcategorical_onehotcategorical(p, q):
    return _kl_categorical_categorical(p._categorical, q._categorical)


@register_kl(Dirichlet, Dirichlet)
def _kl_dirichlet_dirichlet(p, q):
    sum_p_concentration = p.concentration.sum(-1)
    sum_q_concentration = q.concentration.sum(-1)
    t1 = lgamma(sum_p_concentration) - lgamma(sum_q_concentration)
    t2 = (lgamma(p.concentration) - lgamma(q.concentration)).sum(-1)
    t3 = p.concentration - q.concentration
    t4 = digamma(p.concentration) - digamma(sum_p_concentration).unsqueeze(-1)
    return t1 - t2 + (t3 * t4).sum(-1)


@register_kl(Exponential, Exponential)
def _kl_exponential_exponential(p, q):
    rate_ratio = q.rate / p.rate
    t1 = -rate_ratio.log()
    return t1 + rate_ratio - 1


@register_kl(ExponentialFamily, ExponentialFamily)
def _kl_expfamily_expfamily(p, q):
    if type(p) is not type(q):
        raise NotImplementedError("The cross KL-divergence between different exponential "
                                  "families cannot be computed using Bregman divergences")
    p_nparams = [np_.detach().requires_grad_() for np_ in p._natural_params]
    q_nparams = q._natural_params
    with cygrad.enable_grad():
        lg_normal = p._log_normalizer(*p_nparams)
        gradients = cygrad.autograd.grad(lg_normal.sum(), p_nparams, create_graph=True)
    result = q._log_normalizer(*q_nparams) - lg_normal
    for pnp, qnp, g in zip(p_nparams, q_nparams, gradients):
        term = (qnp - pnp) * g
        result = result - _sum_rightmost(term, len(q.event_shape))
    return result


@register_kl(Gamma, Gamma)
def _kl_gamma_gamma(p, q):
    t1 = q.concentration * cygrad.log(p.rate / q.rate)
    t2 = lgamma(q.concentration) - lgamma(p.concentration)
    t3 = (p.concentration - q.concentration) * digamma(p.concentration)
    t4 = (q.rate - p.rate) * (p.concentration / p.rate)
    return t1 + t2 + t3 + t4


@register_kl(Gumbel, Gumbel)
def _kl_gumbel_gumbel(p, q):
    ct1 = p.scale / q.scale
    ct2 = q.loc / q.scale
    ct3 = p.loc / q.scale
    t1 = -ct1.log() - ct2 + ct3
    t2 = ct1 * _EULER_GAMMA
    t3 = cygrad.exp(ct2 + lgamma(1 + ct1) - ct3)
    return t1 + t2 + t3 - (1 + _EULER_GAMMA)


@register_kl(Geometric, Geometric)
def _kl_geometric_geometric(p, q):
    return -p.entropy() - cygrad.log1p(-q.probs) / p.probs - q.logits


@register_kl(HalfNormal, HalfNormal)
def _kl_halfnormal_halfnormal(p, q):
    return _kl_normal_normal(p.base_dist, q.base_dist)


@register_kl(Laplace, Laplace)
def _kl_laplace_laplace(p, q):
    scale_ratio = p.scale / q.scale
    loc_abs_diff = (p.loc - q.loc).abs()
    t1 = -scale_ratio.log()
    t2 = loc_abs_diff / q.scale
    t3 = scale_ratio * cygrad.exp(-loc_abs_diff / p.scale)
    return t1 + t2 + t3 - 1


@register_kl(MultivariateNormal, MultivariateNormal)
def _kl_multivariatenormal_multivariatenormal(p, q):
    if p.event_shape != q.event_shape:
        raise ValueError("KL-divergence between two Multivariate Normals with "
                         "different event shapes cannot be computed")
    Lp, Lq = p._unbroadcasted_scale_tril, q._unbroadcasted_scale_tril
    half_term1 = (Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1)
                  - Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    combined_batch_shape = cygrad.broadcast_shapes(Lq.shape[:-2], Lp.shape[:-2])
    n = p.event_shape[0]
    q_scale_tril = Lq.expand(tuple(combined_batch_shape) + (n, n))
    p_scale_tril = Lp.expand(tuple(combined_batch_shape) + (n, n))
    term2 = solve_triangular(q_scale_tril, p_scale_tril, upper=False).pow(2).sum((-2, -1))
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    return half_term1 + 0.5 * (term2 + term3 - n)


def _sum_squares(m):
    """``trace(M M^T)`` over the last two dims."""
    return m.pow(2).sum(-1).sum(-1)


def _lowrank_parts(d):
    return (d._unbroadcasted_cov_factor, d._unbroadcasted_cov_diag, d._capacitance_tril)


def _woodbury_factor(q):
    """``A = C^-1/2 W^T D^-1`` of a low-rank ``q``: ``Sigma_q^-1 = D^-1 - A^T A``."""
    W, D, C = _lowrank_parts(q)
    return solve_triangular(C, W.mT / D.unsqueeze(-2), upper=False)


def _check_event_shapes(p, q, kind):
    if p.event_shape != q.event_shape:
        raise ValueError(f"KL-divergence between two {kind} with different event shapes "
                         f"cannot be computed")


@register_kl(LowRankMultivariateNormal, LowRankMultivariateNormal)
def _kl_lowrank_lowrank(p, q):
    # KL = (log|Sq| - log|Sp| + tr(Sq^-1 Sp) + (mq - mp)^T Sq^-1 (mq - mp) - n) / 2,
    # with Sp = Wp Wp^T + Dp and Sq^-1 = Dq^-1 - A^T A (Woodbury)
    _check_event_shapes(p, q, "Low Rank Multivariate Normals")
    (pW, pD, pC), (qW, qD, qC) = _lowrank_parts(p), _lowrank_parts(q)
    term1 = _batch_lowrank_logdet(qW, qD, qC) - _batch_lowrank_logdet(pW, pD, pC)
    term3 = _batch_lowrank_mahalanobis(qW, qD, q.loc - p.loc, qC)
    A = _woodbury_factor(q)
    term2 = ((pD / qD).sum(-1) + _sum_squares(pW * qD.rsqrt().unsqueeze(-1))
             - _sum_squares(A * pD.sqrt().unsqueeze(-2)) - _sum_squares(A @ pW))
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(MultivariateNormal, LowRankMultivariateNormal)
def _kl_multivariatenormal_lowrank(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    qW, qD, qC = _lowrank_parts(q)
    Lp = p._unbroadcasted_scale_tril
    term1 = (_batch_lowrank_logdet(qW, qD, qC)
             - 2 * Lp.diagonal(dim1=-2, dim2=-1).log().sum(-1))
    term3 = _batch_lowrank_mahalanobis(qW, qD, q.loc - p.loc, qC)
    A = _woodbury_factor(q)
    term2 = _sum_squares(Lp * qD.rsqrt().unsqueeze(-1)) - _sum_squares(A @ Lp)
    return 0.5 * (term1 + term2 + term3 - p.event_shape[0])


@register_kl(LowRankMultivariateNormal, MultivariateNormal)
def _kl_lowrank_multivariatenormal(p, q):
    _check_event_shapes(p, q, "(Low Rank) Multivariate Normals")
    pW, pD, pC = _lowrank_parts(p)
    Lq = q._unbroadcasted_scale_tril
    term1 = (2 * Lq.diagonal(dim1=-2, dim2=-1).log().sum(-1)
             - _batch_lowrank_logdet(pW, pD, pC))
    term3 = _batch_mahalanobis(Lq, q.loc - p.loc)
    n = p.event_shape[0]
    batch = cygrad.broadcast_shapes(Lq.shape[:-2], pW.shape[:-2])
    Lq = Lq.expand(tuple(batch) + (n, n))
    pW = pW.expand(tuple(batch) + (n, pW.size(-1)))
    p_diag = (pD.sqrt().unsqueeze(-1) * cygrad.eye(n, dtype=pD.dtype)).expand(
        tuple(batch) + (n, n))
    term2 = (_sum_squares(solve_triangular(Lq, pW, upper=False))
             + _sum_squares(solve_triangular(Lq, p_diag, upper=False)))
    return 0.5 * (term1 + term2 + term3 - n)


@register_kl(Normal, Normal)
def _kl_normal_normal(p, q):
    var_ratio = (p.scale / q.scale).pow(2)
    t1 = ((p.loc - q.loc) / q.scale).pow(2)
    return 0.5 * (var_ratio + t1 - 1 - var_ratio.log())


@register_kl(Pareto, Pareto)
def _kl_pareto_pareto(p, q):
    scale_ratio = p.scale / q.scale
    alpha_ratio = q.alpha / p.alpha
    t1 = q.alpha * scale_ratio.log()
    t2 = -alpha_ratio.log()
    result = t1 + t2 + alpha_ratio - 1
    return cygrad.where(p.support.lower_bound < q.support.lower_bound,
                        _infinite_like(result), result)


@register_kl(Poisson, Poisson)
def _kl_poisson_poisson(p, q):
    return p.rate * (p.rate.log() - q.rate.log()) - (p.rate - q.rate)


@register_kl(TransformedDistribution, TransformedDistribution)
def _kl_transformed_transformed(p, q):
    if p.transforms != q.transforms:
        raise NotImplementedError
    if p.event_shape != q.event_shape:
        raise NotImplementedError
    return kl_divergence(p.base_dist, q.base_dist)


@register_kl(Uniform, Uniform)
def _kl_uniform_uniform(p, q):
    result = ((q.high - q.low) / (p.high - p.low)).log()
    outside = (q.low > p.low) | (q.high < p.high)
    return cygrad.where(outside, _infinite_like(result), result)


@register_kl(Cauchy, Cauchy)
def _kl_cauchy_cauchy(p, q):
    t1 = ((p.scale + q.scale).pow(2) + (p.loc - q.loc).pow(2)).log()
    t2 = (4 * p.scale * q.scale).log()
    return t1 - t2


@register_kl(Independent, Independent)
def _kl_independent_independent(p, q):
    if p.reinterpreted_batch_ndims != q.reinterpreted_batch_ndims:
        raise NotImplementedError
    result = kl_divergence(p.base_dist, q.base_dist)
    return _sum_rightmost(result, p.reinterpreted_batch_ndims)


# the pairs of different families register themselves on import
from . import _kl_cross  # noqa: E402,F401
