"""``Weibull(scale, concentration)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Weibull
>>> Weibull(2.0, 1.0).mean.item()
2.0
"""
import cygrad
from . import constraints
from .exponential import Exponential
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, PowerTransform
from .utils import broadcast_all
from ._special import lgamma

__all__ = ["Weibull"]

_EULER_GAMMA = 0.57721566490153286060


class Weibull(TransformedDistribution):
    """Two-parameter Weibull distribution: ``scale * E ** (1 / concentration)`` with
    ``E ~ Exponential(1)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Weibull
    >>> [round(v, 4) for v in Weibull(cygrad.tensor([1.0]), cygrad.tensor([1.0])).variance.tolist()]
    [1.0]
    """
    arg_constraints = {"scale": constraints.positive, "concentration": constraints.positive}
    support = constraints.positive

    def __init__(self, scale, concentration, validate_args=None):
        self.scale, self.concentration = broadcast_all(scale, concentration)
        self.concentration_reciprocal = self.concentration.reciprocal()
        base_dist = Exponential(cygrad.ones_like(self.scale), validate_args=validate_args)
        transforms = [PowerTransform(exponent=self.concentration_reciprocal),
                      AffineTransform(loc=0, scale=self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Weibull, _instance)
        new.scale = self.scale.expand(batch_shape)
        new.concentration = self.concentration.expand(batch_shape)
        new.concentration_reciprocal = new.concentration.reciprocal()
        base_dist = self.base_dist.expand(batch_shape)
        transforms = [PowerTransform(exponent=new.concentration_reciprocal),
                      AffineTransform(loc=0, scale=new.scale)]
        super(Weibull, new).__init__(base_dist, transforms, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.scale * cygrad.exp(lgamma(1 + self.concentration_reciprocal))

    @property
    def mode(self):
        return (self.scale * ((self.concentration - 1) / self.concentration)
                ** self.concentration.reciprocal())

    @property
    def variance(self):
        return self.scale.pow(2) * (
            cygrad.exp(lgamma(1 + 2 * self.concentration_reciprocal))
            - cygrad.exp(2 * lgamma(1 + self.concentration_reciprocal)))

    def entropy(self):
        return (_EULER_GAMMA * (1 - self.concentration_reciprocal)
                + cygrad.log(self.scale * self.concentration_reciprocal) + 1)
