"""``Kumaraswamy(concentration1, concentration0)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Kumaraswamy
>>> round(Kumaraswamy(1.0, 1.0).mean.item(), 4)
0.5
"""
import math

import cygrad
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .uniform import Uniform
from .utils import broadcast_all
from ._special import lgamma, digamma

__all__ = ["Kumaraswamy"]

_EULER_GAMMA = 0.57721566490153286060


def _moments(a, b, n):
    """``E[X^n]`` of Kumaraswamy(a, b): ``b B(1 + n / a, b)``."""
    arg1 = 1 + n / a
    log_value = lgamma(arg1) + lgamma(b) - lgamma(arg1 + b)
    return b * cygrad.exp(log_value)


class Kumaraswamy(TransformedDistribution):
    """Kumaraswamy distribution on ``(0, 1)``: density
    ``a b x^(a-1) (1 - x^a)^(b-1)`` with ``a = concentration1``,
    ``b = concentration0``; sampled as ``(1 - U^(1/b))^(1/a)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Kumaraswamy
    >>> round(Kumaraswamy(cygrad.tensor([2.0]), 2.0).log_prob(cygrad.tensor([0.5])).item(), 4)
    0.4055
    """
    arg_constraints = {"concentration1": constraints.positive,
                       "concentration0": constraints.positive}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, concentration1, concentration0, validate_args=None):
        self.concentration1, self.concentration0 = broadcast_all(concentration1, concentration0)
        base_dist = Uniform(cygrad.zeros_like(self.concentration0),
                            cygrad.ones_like(self.concentration0), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration0.reciprocal()),
                      AffineTransform(loc=1.0, scale=-1.0),
                      PowerTransform(exponent=self.concentration1.reciprocal())]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Kumaraswamy, _instance)
        new.concentration1 = self.concentration1.expand(batch_shape)
        new.concentration0 = self.concentration0.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    @property
    def mean(self):
        return _moments(self.concentration1, self.concentration0, 1)

    @property
    def mode(self):
        # the density is unimodal only when both concentrations are at least 1
        log_mode = (self.concentration0.reciprocal() * (-self.concentration0).log1p()
                    - (-self.concentration0 * self.concentration1).log1p())
        bad = (self.concentration0 < 1) | (self.concentration1 < 1)
        return cygrad.where(bad, cygrad.full_like(log_mode, math.nan), log_mode.exp())

    @property
    def variance(self):
        return (_moments(self.concentration1, self.concentration0, 2)
                - self.mean.pow(2))

    def entropy(self):
        t1 = 1 - self.concentration1.reciprocal()
        t0 = 1 - self.concentration0.reciprocal()
        H0 = digamma(self.concentration0 + 1) + _EULER_GAMMA
        return t0 + t1 * H0 - cygrad.log(self.concentration1) - cygrad.log(self.concentration0)
