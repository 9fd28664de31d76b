"""Probability distributions and transforms (``torch.distributions``).

Parameterisable distributions with sampling (``sample``; ``rsample`` for the
reparameterised ones, whose samples carry gradients to the parameters),
``log_prob``, ``entropy``, moments, ``cdf``/``icdf`` where PyTorch has them, the
constraints of their parameters and supports, invertible transforms, and
``kl_divergence``.  Samples come from cygrad's generator: ``cygrad.manual_seed``
makes them reproducible, and the samplers that PyTorch builds on its normal,
uniform, Bernoulli, multinomial, exponential, Cauchy and Poisson draws give
PyTorch's numbers for the same seed.  See ``docs/distributions.md``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Normal, kl_divergence
>>> _ = cygrad.manual_seed(0)
>>> loc = cygrad.tensor([0.0, 1.0], requires_grad=True)
>>> d = Normal(loc, 1.0)
>>> d.rsample((3,)).sum().backward()
>>> loc.grad.tolist()
[3.0, 3.0]
>>> kl_divergence(d, Normal(0.0, 1.0)).tolist()
[0.0, 0.5]
"""
from . import constraints, transforms
from .bernoulli import Bernoulli
from .beta import Beta
from .binomial import Binomial
from .categorical import Categorical
from .cauchy import Cauchy
from .chi2 import Chi2
from .constraint_registry import biject_to, transform_to
from .continuous_bernoulli import ContinuousBernoulli
from .dirichlet import Dirichlet
from .distribution import Distribution
from .exp_family import ExponentialFamily
from .exponential import Exponential
from .fishersnedecor import FisherSnedecor
from .gamma import Gamma
from .generalized_pareto import GeneralizedPareto
from .geometric import Geometric
from .gumbel import Gumbel
from .half_cauchy import HalfCauchy
from .half_normal import HalfNormal
from .independent import Independent
from .inverse_gamma import InverseGamma
from .kl import kl_divergence, register_kl
from .kumaraswamy import Kumaraswamy
from .laplace import Laplace
from .lkj_cholesky import LKJCholesky
from .log_normal import LogNormal
from .logistic_normal import LogisticNormal
from .lowrank_multivariate_normal import LowRankMultivariateNormal
from .mixture_same_family import MixtureSameFamily
from .multinomial import Multinomial
from .multivariate_normal import MultivariateNormal
from .negative_binomial import NegativeBinomial
from .normal import Normal
from .one_hot_categorical import OneHotCategorical, OneHotCategoricalStraightThrough
from .pareto import Pareto
from .poisson import Poisson
from .relaxed_bernoulli import RelaxedBernoulli
from .relaxed_categorical import RelaxedOneHotCategorical
from .studentT import StudentT
from .transformed_distribution import TransformedDistribution
from .transforms import *  # noqa: F401,F403
from .uniform import Uniform
from .von_mises import VonMises
from .weibull import Weibull
from .wishart import Wishart

__all__ = ["Bernoulli", "Beta", "Binomial", "Categorical", "Cauchy", "Chi2", "Dirichlet",
           "Distribution", "Exponential", "ExponentialFamily", "Gamma", "Geometric",
           "Gumbel", "HalfCauchy", "HalfNormal", "Independent", "Laplace", "LogNormal",
           "Multinomial", "MultivariateNormal", "Normal", "OneHotCategorical",
           "OneHotCategoricalStraightThrough", "Pareto", "Poisson", "StudentT",
           "Uniform", "Weibull", "TransformedDistribution", "biject_to",
           "kl_divergence", "register_kl", "transform_to", "FisherSnedecor", "InverseGamma",
           "Kumaraswamy", "LogisticNormal", "MixtureSameFamily", "NegativeBinomial",
           "RelaxedBernoulli", "RelaxedOneHotCategorical", "ContinuousBernoulli",
           "LowRankMultivariateNormal", "GeneralizedPareto", "VonMises", "LKJCholesky",
           "Wishart"]
__all__.extend(transforms.__all__)
