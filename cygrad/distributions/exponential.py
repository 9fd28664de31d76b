"""``Exponential(rate)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Exponential
>>> Exponential(2.0).mean.item()
0.5
"""

import cygrad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all

__all__ = ["Exponential"]


class Exponential(ExponentialFamily):
    """Exponential distribution with rate ``rate`` (density ``rate * exp(-rate x)``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Exponential
    >>> round(Exponential(cygrad.tensor([1.0])).cdf(cygrad.tensor([1.0])).item(), 4)
    0.6321
    """
    arg_constraints = {"rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.rate.reciprocal()

    @property
    def mode(self):
        return cygrad.zeros_like(self.rate)

    @property
    def stddev(self):
        return self.rate.reciprocal()

    @property
    def variance(self):
        return self.rate.pow(-2)

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Exponential, batch_shape, _instance, ('rate',))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        return self.rate.new_empty(shape).exponential_() / self.rate

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return self.rate.log() - self.rate * value

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 1 - cygrad.exp(-self.rate * value)

    def icdf(self, value):
        return -cygrad.log1p(-value) / self.rate

    def entropy(self):
        return 1.0 - cygrad.log(self.rate)

    @property
    def _natural_params(self):
        return (-self.rate,)

    def _log_normalizer(self, x):
        return -cygrad.log(-x)
