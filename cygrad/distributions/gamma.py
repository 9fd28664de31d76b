"""``Gamma(concentration, rate)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Gamma
>>> Gamma(2.0, 4.0).mean.item()
0.5
"""

import cygrad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import broadcast_all, finfo_tiny
from ._gamma import gammainc, standard_gamma
from ._special import lgamma, digamma, xlogy

__all__ = ["Gamma"]


class Gamma(ExponentialFamily):
    """Gamma distribution with shape ``concentration`` and inverse scale ``rate``.
    ``rsample`` is reparameterised by implicit differentiation (see
    ``cygrad/distributions/_gamma.py``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Gamma
    >>> a = cygrad.tensor([2.0], requires_grad=True)
    >>> Gamma(a, 1.0).rsample((3,)).sum().backward()
    >>> a.grad.shape
    cygrad.Size([1])
    """
    arg_constraints = {"concentration": constraints.positive, "rate": constraints.positive}
    support = constraints.nonnegative
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def mean(self):
        return self.concentration / self.rate

    @property
    def mode(self):
        return ((self.concentration - 1) / self.rate).clamp(min=0)

    @property
    def variance(self):
        return self.concentration / self.rate.pow(2)

    def __init__(self, concentration, rate, validate_args=None):
        self.concentration, self.rate = broadcast_all(concentration, rate)
        super().__init__(self.concentration.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        return self._expand_params(Gamma, batch_shape, _instance, ('concentration', 'rate'))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        value = standard_gamma(self.concentration.expand(shape)) / self.rate.expand(shape)
        return value.clamp(min=finfo_tiny(value.dtype))

    def log_prob(self, value):
        value = cygrad.as_tensor(value, dtype=self.rate.dtype, device=self.rate.device)
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration, self.rate) + xlogy(self.concentration - 1, value)
                - self.rate * value - lgamma(self.concentration))

    def entropy(self):
        return (self.concentration - cygrad.log(self.rate) + lgamma(self.concentration)
                + (1.0 - self.concentration) * digamma(self.concentration))

    @property
    def _natural_params(self):
        return (self.concentration - 1, -self.rate)

    def _log_normalizer(self, x, y):
        return lgamma(x + 1) + (x + 1) * cygrad.log(-y.reciprocal())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return gammainc(self.concentration, self.rate * value)
