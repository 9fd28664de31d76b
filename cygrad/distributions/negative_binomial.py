"""``NegativeBinomial(total_count, probs=None, logits=None)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import NegativeBinomial
>>> NegativeBinomial(4.0, probs=cygrad.tensor(0.5)).mean.item()
4.0
"""
import cygrad
from cygrad.nn import functional as F
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from ._params import BinaryProbsLogits
from .utils import lazy_property
from ._special import lgamma

__all__ = ["NegativeBinomial"]


class NegativeBinomial(BinaryProbsLogits, Distribution):
    """Number of successes before ``total_count`` failures in Bernoulli trials of
    success probability ``probs``; sampled as a Poisson of Gamma-distributed rate.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import NegativeBinomial
    >>> NegativeBinomial(cygrad.tensor([2.0]), probs=cygrad.tensor([0.5])).variance.tolist()
    [4.0]
    """
    arg_constraints = {"total_count": constraints.greater_than_eq(0),
                       "probs": constraints.half_open_interval(0.0, 1.0),
                       "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, total_count, probs=None, logits=None, validate_args=None):
        (total_count,) = self._set_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.to(self._param.dtype)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(NegativeBinomial, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(NegativeBinomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.total_count * cygrad.exp(self.logits)

    @property
    def mode(self):
        return ((self.total_count - 1) * self.logits.exp()).floor().clamp(min=0.0)

    @property
    def variance(self):
        return self.mean / cygrad.sigmoid(-self.logits)

    @lazy_property
    def _gamma(self):
        return Gamma(concentration=self.total_count, rate=cygrad.exp(-self.logits),
                     validate_args=False)

    def sample(self, sample_shape=()):
        with cygrad.no_grad():
            rate = self._gamma.sample(sample_shape=sample_shape)
            return cygrad.poisson(rate.contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_unnormalized_prob = (self.total_count * F.logsigmoid(-self.logits)
                                 + value * F.logsigmoid(self.logits))
        total = self.total_count + value
        # lgamma(0) terms cancel when total_count + value == 0 (the mass is 1 at 0)
        empty = total == 0
        safe = cygrad.where(empty, cygrad.ones_like(total), total)
        safe_count = cygrad.where(empty, cygrad.ones_like(total), self.total_count + 0 * total)
        log_normalization = -lgamma(safe) + lgamma(1.0 + value) + lgamma(safe_count)
        log_normalization = cygrad.where(empty, cygrad.zeros_like(log_normalization),
                                         log_normalization)
        return log_unnormalized_prob - log_normalization
