"""``Laplace(loc, scale)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Laplace
>>> Laplace(0.0, 1.0).variance.item()
2.0
"""

import cygrad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, finfo_eps

__all__ = ["Laplace"]


class Laplace(Distribution):
    """Laplace (double exponential) distribution with location ``loc`` and scale
    ``scale``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Laplace
    >>> Laplace(cygrad.tensor([0.0]), 1.0).cdf(cygrad.tensor([0.0])).tolist()
    [0.5]
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return 2 * self.scale.pow(2)

    @property
    def stddev(self):
        return (2 ** 0.5) * self.scale

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Laplace, batch_shape, _instance, ('loc', 'scale'))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = self.loc.new_empty(shape).uniform_(finfo_eps(self.loc.dtype) - 1, 1)
        return self.loc - self.scale * u.sign() * cygrad.log1p(-u.abs())

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return -cygrad.log(2 * self.scale) - cygrad.abs(value - self.loc) / self.scale

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 - 0.5 * (value - self.loc).sign() * cygrad.expm1(
            -(value - self.loc).abs() / self.scale)

    def icdf(self, value):
        term = value - 0.5
        return self.loc - self.scale * (term).sign() * cygrad.log1p(-2 * term.abs())

    def entropy(self):
        return 1 + cygrad.log(2 * self.scale)
