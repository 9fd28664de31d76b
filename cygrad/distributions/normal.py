"""``Normal(loc, scale)``: the Gaussian distribution.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Normal
>>> round(Normal(0.0, 1.0).log_prob(cygrad.tensor(0.0)).item(), 4)
-0.9189
"""
import math
import numbers

import cygrad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, _standard_normal
from ._special import erfinv

__all__ = ["Normal"]


class Normal(ExponentialFamily):
    """Normal (Gaussian) distribution with mean ``loc`` and standard deviation
    ``scale``.

    Parameters
    ----------
    loc : float or Tensor
        Mean.
    scale : float or Tensor
        Standard deviation, positive.
    validate_args : bool, optional
        See :class:`Distribution`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Normal
    >>> _ = cygrad.manual_seed(0)
    >>> d = Normal(cygrad.tensor([0.0, 10.0]), cygrad.tensor([1.0, 2.0]))
    >>> d.sample((5,)).shape
    cygrad.Size([5, 2])
    >>> d.variance.tolist()
    [1.0, 4.0]
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.real
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def stddev(self):
        return self.scale

    @property
    def variance(self):
        return self.stddev.pow(2)

    def __init__(self, loc, scale, validate_args=None):
        self.loc, self.scale = broadcast_all(loc, scale)
        super().__init__(self.loc.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Normal, batch_shape, _instance, ('loc', 'scale'))

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with cygrad.no_grad():
            return cygrad.normal(self.loc.expand(shape), self.scale.expand(shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + eps * self.scale

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        var = self.scale ** 2
        log_scale = (math.log(self.scale) if isinstance(self.scale, numbers.Real)
                     else self.scale.log())
        return (-((value - self.loc) ** 2) / (2 * var) - log_scale
                - math.log(math.sqrt(2 * math.pi)))

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return 0.5 * (1 + cygrad.erf((value - self.loc) * self.scale.reciprocal()
                                     / math.sqrt(2)))

    def icdf(self, value):
        return self.loc + self.scale * erfinv(2 * value - 1) * math.sqrt(2)

    def entropy(self):
        return 0.5 + 0.5 * math.log(2 * math.pi) + cygrad.log(self.scale)

    @property
    def _natural_params(self):
        return (self.loc / self.scale.pow(2), -0.5 * self.scale.pow(2).reciprocal())

    def _log_normalizer(self, x, y):
        return -0.25 * x.pow(2) / y + 0.5 * cygrad.log(-math.pi / y)
