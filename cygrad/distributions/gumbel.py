"""``Gumbel(loc, scale)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Gumbel
>>> Gumbel(0.0, 1.0).mode.item()
0.0
"""
import math
import numbers

import cygrad
from . import constraints
from .transformed_distribution import TransformedDistribution
from .transforms import AffineTransform, ExpTransform
from .uniform import Uniform
from .utils import broadcast_all, finfo_eps, finfo_tiny

__all__ = ["Gumbel"]

_EULER_GAMMA = 0.57721566490153286060


class Gumbel(TransformedDistribution):
    """Gumbel (type-I extreme value) distribution; sampled as
    ``loc - scale * log(-log(U))``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Gumbel
    >>> round(Gumbel(cygrad.tensor([0.0]), 1.0).mean.item(), 4)
    0.5772
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        dtype = self.loc.dtype
        if isinstance(loc, numbers.Number) and isinstance(scale, numbers.Number):
            base_dist = Uniform(finfo_tiny(dtype), 1 - finfo_eps(dtype),
                                validate_args=validate_args)
        else:
            base_dist = Uniform(cygrad.full_like(self.loc, finfo_tiny(dtype)),
                                cygrad.full_like(self.loc, 1 - finfo_eps(dtype)),
                                validate_args=validate_args)
        transforms = [ExpTransform().inv, AffineTransform(loc=0, scale=-cygrad.ones_like(
            self.scale)), ExpTransform().inv, AffineTransform(loc=self.loc, scale=-self.scale)]
        super().__init__(base_dist, transforms, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Gumbel, _instance)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        return super().expand(batch_shape, _instance=new)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (self.loc - value) / self.scale
        return (y - y.exp()) - self.scale.log()

    @property
    def mean(self):
        return self.loc + self.scale * _EULER_GAMMA

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return (math.pi / math.sqrt(6)) * self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def entropy(self):
        return self.scale.log() + (1 + _EULER_GAMMA)
