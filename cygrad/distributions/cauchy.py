"""``Cauchy(loc, scale)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Cauchy
>>> Cauchy(0.0, 1.0).cdf(cygrad.tensor(1.0)).item()
0.75
"""
import math

import cygrad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["Cauchy"]


class Cauchy(Distribution):
    """Cauchy (Lorentz) distribution with median ``loc`` and half width ``scale``;
    its mean and variance do not exist (NaN and infinity).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Cauchy
    >>> Cauchy(cygrad.tensor([0.0]), 1.0).mean.tolist()
    [nan]
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Cauchy, batch_shape, _instance, ('loc', 'scale'))

    @property
    def mean(self):
        return cygrad.full(self._extended_shape(), math.nan, dtype=self.loc.dtype,
                           device=self.loc.device)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return cygrad.full(self._extended_shape(), math.inf, dtype=self.loc.dtype,
                           device=self.loc.device)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = self.loc.new_empty(shape).cauchy_()
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (-math.log(math.pi) - self.scale.log()
                - (((value - self.loc) / self.scale) ** 2).log1p())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return cygrad.atan((value - self.loc) / self.scale) / math.pi + 0.5

    def icdf(self, value):
        return cygrad.tan(math.pi * (value - 0.5)) * self.scale + self.loc

    def entropy(self):
        return math.log(4 * math.pi) + self.scale.log()
