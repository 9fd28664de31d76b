"""``Poisson(rate)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Poisson
>>> round(Poisson(2.0).log_prob(cygrad.tensor(0.0)).item(), 4)
-2.0
"""

import cygrad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all
from ._special import lgamma, xlogy

__all__ = ["Poisson"]


class Poisson(ExponentialFamily):
    """Poisson distribution with mean ``rate``; samples are counts.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Poisson
    >>> Poisson(cygrad.tensor([3.5])).mode.tolist()
    [3.0]
    """
    arg_constraints = {"rate": constraints.nonnegative}
    support = constraints.nonnegative_integer

    @property
    def mean(self):
        return self.rate

    @property
    def mode(self):
        return self.rate.floor()

    @property
    def variance(self):
        return self.rate

    def __init__(self, rate, validate_args=None):
        (self.rate,) = broadcast_all(rate)
        super().__init__(self.rate.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Poisson, batch_shape, _instance, ('rate',))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with cygrad.no_grad():
            return cygrad.poisson(self.rate.expand(shape).contiguous())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        rate, value = broadcast_all(self.rate, value)
        return xlogy(value, rate) - rate - lgamma(value + 1)

    @property
    def _natural_params(self):
        return (cygrad.log(self.rate),)

    def _log_normalizer(self, x):
        return cygrad.exp(x)
