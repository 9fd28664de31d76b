"""``GeneralizedPareto(loc, scale, concentration)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import GeneralizedPareto
>>> GeneralizedPareto(0.0, 1.0, 0.0).mean.item()   # Exponential(1)
1.0
"""
import math
import numbers

import cygrad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all

__all__ = ["GeneralizedPareto"]


class GeneralizedPareto(Distribution):
    """Generalised Pareto distribution: survival function
    ``(1 + xi z)^(-1/xi)`` of ``z = (x - loc) / scale`` for concentration ``xi``
    (``exp(-z)`` at ``xi = 0``).  Exponential, Pareto and uniform distributions
    are special cases; ``rsample`` inverts the CDF of a uniform draw.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import GeneralizedPareto
    >>> d = GeneralizedPareto(cygrad.tensor([0.0]), cygrad.tensor([1.0]), cygrad.tensor([-1.0]))
    >>> d.support.upper_bound.tolist()    # concentration -1: uniform on [0, 1]
    [1.0]
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive,
                       "concentration": constraints.real}
    has_rsample = True

    def __init__(self, loc, scale, concentration, validate_args=None):
        self.loc, self.scale, self.concentration = broadcast_all(loc, scale, concentration)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(GeneralizedPareto, batch_shape, _instance, ('loc', 'scale', 'concentration'))

    def _at_zero(self):
        """Where the concentration is (close to) 0, and a concentration safe to
        divide by everywhere."""
        zero = cygrad.isclose(self.concentration, cygrad.zeros_like(self.concentration))
        return zero, cygrad.where(zero, cygrad.ones_like(self.concentration),
                                  self.concentration)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = cygrad.rand(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._at_zero()
        y = 1 / xi + cygrad.ones_like(z)
        # (1 / xi + 1) log(1 + xi z), with the 0 * log(0) of xi = -1 taken as 0
        nonzero = cygrad.where(y == 0, y, y * cygrad.log1p(xi * z))
        log_scale = (math.log(self.scale) if isinstance(self.scale, numbers.Real)
                     else self.scale.log())
        return -log_scale - cygrad.where(zero, z, nonzero)

    def log_survival_function(self, value):
        """``log P(X > value)``."""
        if self._validate_args:
            self._validate_sample(value)
        z = (value - self.loc) / self.scale
        zero, xi = self._at_zero()
        return cygrad.where(zero, -z, -cygrad.log1p(xi * z) / xi)

    def log_cdf(self, value):
        """``log P(X <= value)``."""
        return cygrad.log1p(-cygrad.exp(self.log_survival_function(value)))

    def cdf(self, value):
        return cygrad.exp(self.log_cdf(value))

    def icdf(self, value):
        zero, xi = self._at_zero()
        logu = cygrad.log1p(-value)
        nonzero = self.loc + self.scale / xi * cygrad.expm1(-xi * logu)
        return cygrad.where(zero, self.loc - self.scale * logu, nonzero)

    @property
    def mean(self):
        valid = self.concentration < 1
        xi = cygrad.where(valid, self.concentration, cygrad.full_like(self.concentration, 0.5))
        result = self.loc + self.scale / (1 - xi)
        return cygrad.where(valid, result, cygrad.full_like(result, math.nan))

    @property
    def variance(self):
        valid = self.concentration < 0.5
        xi = cygrad.where(valid, self.concentration, cygrad.full_like(self.concentration, 0.25))
        result = self.scale ** 2 / ((1 - xi) ** 2 * (1 - 2 * xi))
        return cygrad.where(valid, result, cygrad.full_like(result, math.nan))

    @property
    def mode(self):
        return self.loc

    def entropy(self):
        ans = cygrad.log(self.scale) + self.concentration + 1
        return ans.expand(self._batch_shape) if ans.shape != self._batch_shape else ans

    @constraints.dependent_property(is_discrete=False, event_dim=0)
    def support(self):
        lower = self.loc
        upper = cygrad.where(self.concentration < 0, lower - self.scale / self.concentration,
                             cygrad.full_like(lower, math.inf))
        return constraints.interval(lower, upper)
