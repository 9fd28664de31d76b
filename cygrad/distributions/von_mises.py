"""``VonMises(loc, concentration)``: the circular normal distribution.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import VonMises
>>> round(VonMises(0.0, 1.0).log_prob(cygrad.tensor(0.0)).item(), 4)
-1.0738
"""
import math

import cygrad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property

__all__ = ["VonMises"]

# below this argument the power series of I_nu is summed, above it the asymptotic
# expansion (both then reach double precision within the term counts below)
_SERIES_LIMIT = 20.0
_SERIES_TERMS = 60
_ASYMPTOTIC_TERMS = 20


def _log_bessel_i(nu, x):
    """``log I_nu(x)`` for ``nu`` 0 or 1 and ``x > 0``, composed from
    differentiable ops: the power series ``sum (x/2)^(2m+nu) / (m! (m+nu)!)`` for
    small ``x``, the expansion ``e^x / sqrt(2 pi x) sum_j c_j / x^j`` for large ``x``."""
    small_x = x.clamp(max=_SERIES_LIMIT)
    q = (small_x / 2) ** 2
    term = (small_x / 2) ** nu / math.factorial(nu)
    series = term
    for m in range(1, _SERIES_TERMS):
        term = term * q / (m * (m + nu))
        series = series + term
    large_x = x.clamp(min=_SERIES_LIMIT)
    term = cygrad.ones_like(large_x)
    expansion = term
    for j in range(1, _ASYMPTOTIC_TERMS):
        term = term * -(4 * nu * nu - (2 * j - 1) ** 2) / (8 * j * large_x)
        expansion = expansion + term
    log_large = large_x - 0.5 * cygrad.log(2 * math.pi * large_x) + cygrad.log(expansion)
    return cygrad.where(x < _SERIES_LIMIT, cygrad.log(series), log_large)


class VonMises(Distribution):
    """Von Mises distribution of angles: density ``exp(k cos(x - loc)) / (2 pi
    I0(k))`` with concentration ``k``.  ``loc`` and values may be any real
    numbers (angles modulo ``2 pi``); samples lie in ``[-pi, pi)``.  ``mean`` and
    ``variance`` are the circular ones.  Sampling is Best and Fisher's rejection
    method (in float64), drawing as PyTorch does, so it gives PyTorch's samples
    for the same seed.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import VonMises
    >>> f64 = cygrad.float64
    >>> d = VonMises(cygrad.tensor([0.0], dtype=f64), cygrad.tensor([1e3], dtype=f64))
    >>> round(d.variance.item(), 6)
    0.0005
    """
    arg_constraints = {"loc": constraints.real, "concentration": constraints.positive}
    support = constraints.real
    has_rsample = False

    def __init__(self, loc, concentration, validate_args=None):
        self.loc, self.concentration = broadcast_all(loc, concentration)
        super().__init__(self.loc.shape, (), validate_args)

    def expand(self, batch_shape, _instance=None):
        validate_args = self.__dict__.get("_validate_args")
        return type(self)(self.loc.expand(batch_shape), self.concentration.expand(batch_shape),
                          validate_args=validate_args)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        return (self.concentration * cygrad.cos(value - self.loc) - math.log(2 * math.pi)
                - _log_bessel_i(0, self.concentration))

    @lazy_property
    def _proposal_r(self):
        """Best and Fisher's envelope parameter ``r`` (float64)."""
        kappa = self.concentration.double()
        tau = 1 + (1 + 4 * kappa ** 2).sqrt()
        rho = (tau - (2 * tau).sqrt()) / (2 * kappa)
        r = (1 + rho ** 2) / (2 * rho)
        # r = 1 / kappa + kappa to second order, where the formula cancels
        return cygrad.where(kappa < 1e-5, 1 / kappa + kappa, r)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with cygrad.no_grad():
            loc = self.loc.double()
            kappa = self.concentration.double()
            r = self._proposal_r
            x = cygrad.zeros(shape, dtype=cygrad.float64)
            done = cygrad.zeros(shape, dtype=cygrad.bool)
            while not bool(done.all()):
                # every element draws three uniforms each round, until all have
                # accepted one; its latest accepted candidate is kept (each is a
                # draw from the distribution), as PyTorch keeps it
                u1, u2, u3 = cygrad.rand((3,) + tuple(shape), dtype=cygrad.float64).unbind()
                z = cygrad.cos(math.pi * u1)
                f = (1 + r * z) / (r + z)
                c = kappa * (r - f)
                accept = ((c * (2 - c) - u2) > 0) | ((c / u2).log() + 1 - c >= 0)
                x = cygrad.where(accept, (u3 - 0.5).sign() * f.acos(), x)
                done = done | accept
            return ((x + math.pi + loc) % (2 * math.pi) - math.pi).to(self.loc.dtype)

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return 1 - (_log_bessel_i(1, self.concentration)
                    - _log_bessel_i(0, self.concentration)).exp()
