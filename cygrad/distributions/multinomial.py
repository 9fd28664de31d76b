"""``Multinomial(total_count=1, probs=None, logits=None)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Multinomial
>>> Multinomial(4, probs=cygrad.tensor([0.25, 0.75])).mean.tolist()
[1.0, 3.0]
"""
import math

import cygrad
from . import constraints
from .binomial import Binomial
from .categorical import Categorical
from .distribution import Distribution
from ._params import WrapsCategorical
from .utils import broadcast_all
from ._special import lgamma

__all__ = ["Multinomial"]


class Multinomial(WrapsCategorical, Distribution):
    """Counts of ``K`` categories in ``total_count`` draws of a
    :class:`Categorical`.  ``total_count`` is one int for the whole batch; it may be
    left out for ``log_prob`` alone.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Multinomial
    >>> _ = cygrad.manual_seed(0)
    >>> Multinomial(10, probs=cygrad.tensor([0.5, 0.5])).sample().sum().item()
    10.0
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}

    @property
    def mean(self):
        return self.probs * self.total_count

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        if not isinstance(total_count, int):
            raise NotImplementedError("inhomogeneous total_count is not supported")
        self.total_count = total_count
        self._categorical = Categorical(probs=probs, logits=logits)
        self._binomial = Binomial(total_count=total_count, probs=self.probs)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Multinomial, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.total_count = self.total_count
        new._categorical = self._categorical.expand(batch_shape)
        new._binomial = Binomial(total_count=self.total_count, probs=new._categorical.probs)
        super(Multinomial, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=1)
    def support(self):
        return constraints.multinomial(self.total_count)

    def sample(self, sample_shape=()):
        sample_shape = cygrad.Size(sample_shape)
        samples = self._categorical.sample(cygrad.Size((self.total_count,)) + sample_shape)
        # samples has shape (total_count, sample_shape, batch_shape): move the draws
        # last, then count each category
        samples = samples.permute(*range(1, samples.dim()), 0)
        counts = samples.new_zeros(self._extended_shape(sample_shape))
        counts = counts.scatter_add(-1, samples, cygrad.ones_like(samples))
        return counts.to(self.probs.dtype)

    def entropy(self):
        n = cygrad.tensor(float(self.total_count), dtype=self.probs.dtype)
        cat_entropy = self._categorical.entropy()
        term1 = n * cat_entropy - lgamma(n + 1)
        support = self._binomial.enumerate_support(expand=False)[1:]
        binomial_probs = cygrad.exp(self._binomial.log_prob(support))
        weights = lgamma(support + 1)
        return term1 + (binomial_probs * weights).sum(-1).sum(0)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        log_factorial_n = lgamma(value.sum(-1) + 1)
        log_factorial_xs = lgamma(value + 1).sum(-1)
        # a category of probability 0 that was not drawn contributes 0, not NaN
        logits = cygrad.where((value == 0) & (logits == -math.inf),
                              cygrad.zeros_like(logits), logits)
        log_powers = (logits * value).sum(-1)
        return log_factorial_n - log_factorial_xs + log_powers
