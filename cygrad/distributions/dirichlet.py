"""``Dirichlet(concentration)``: distributions on the simplex.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Dirichlet
>>> Dirichlet(cygrad.tensor([1.0, 3.0])).mean.tolist()
[0.25, 0.75]
"""
import cygrad
from . import constraints
from .exp_family import ExponentialFamily
from .utils import finfo_eps, finfo_tiny
from ._gamma import standard_gamma
from ._special import lgamma, digamma, xlogy

__all__ = ["Dirichlet"]


class Dirichlet(ExponentialFamily):
    """Dirichlet distribution with concentration vector ``concentration`` (last dim).
    ``rsample`` normalises reparameterised Gamma samples (implicit gradients, see
    ``cygrad/distributions/_gamma.py``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Dirichlet
    >>> d = Dirichlet(cygrad.ones(2, 3))
    >>> d.batch_shape, d.event_shape
    (cygrad.Size([2]), cygrad.Size([3]))
    """
    arg_constraints = {"concentration": constraints.independent(constraints.positive, 1)}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, concentration, validate_args=None):
        if concentration.dim() < 1:
            raise ValueError("`concentration` parameter must be at least one-dimensional.")
        self.concentration = concentration
        batch_shape, event_shape = concentration.shape[:-1], concentration.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Dirichlet, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.concentration = self.concentration.expand(tuple(batch_shape) + tuple(self.event_shape))
        super(Dirichlet, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        concentration = self.concentration.expand(shape)
        gammas = standard_gamma(concentration)
        x = gammas / gammas.sum(-1, keepdim=True)
        return x.clamp(min=finfo_tiny(x.dtype), max=1 - finfo_eps(x.dtype))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (xlogy(self.concentration - 1.0, value).sum(-1)
                + lgamma(self.concentration.sum(-1)) - lgamma(self.concentration).sum(-1))

    @property
    def mean(self):
        return self.concentration / self.concentration.sum(-1, True)

    @property
    def mode(self):
        concentrationm1 = (self.concentration - 1).clamp(min=0.0)
        mode = concentrationm1 / concentrationm1.sum(-1, True)
        # with every concentration below 1 the density peaks at a vertex
        all_below = (self.concentration < 1).all(dim=-1, keepdim=True)
        k = self.concentration.shape[-1]
        vertex = (cygrad.arange(k, device=mode.device)
                  == self.concentration.argmax(-1, keepdim=True)).to(mode.dtype)
        return cygrad.where(all_below, vertex, mode)

    @property
    def variance(self):
        con0 = self.concentration.sum(-1, True)
        return (self.concentration * (con0 - self.concentration)
                / (con0.pow(2) * (con0 + 1)))

    def entropy(self):
        k = self.concentration.size(-1)
        a0 = self.concentration.sum(-1)
        return (lgamma(self.concentration).sum(-1) - lgamma(a0)
                - (k - a0) * digamma(a0)
                - ((self.concentration - 1.0) * digamma(self.concentration)).sum(-1))

    @property
    def _natural_params(self):
        return (self.concentration,)

    def _log_normalizer(self, x):
        return lgamma(x).sum(-1) - lgamma(x.sum(-1))
