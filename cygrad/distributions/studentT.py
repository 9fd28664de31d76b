"""``StudentT(df, loc=0.0, scale=1.0)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import StudentT
>>> StudentT(cygrad.tensor([4.0])).variance.tolist()
[2.0]
"""
import math

import cygrad
from . import constraints
from .chi2 import Chi2
from .distribution import Distribution
from .utils import broadcast_all, _standard_normal
from ._special import lgamma, digamma

__all__ = ["StudentT"]


class StudentT(Distribution):
    """Student's t-distribution with ``df`` degrees of freedom, location ``loc`` and
    scale ``scale``; ``rsample`` is ``loc + scale * X / sqrt(Z / df)`` with a
    reparameterised chi-squared ``Z``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import StudentT
    >>> round(StudentT(1.0).log_prob(cygrad.tensor(0.0)).item(), 4)  # Cauchy
    -1.1447
    """
    arg_constraints = {"df": constraints.positive, "loc": constraints.real,
                       "scale": constraints.positive}
    support = constraints.real
    has_rsample = True

    @property
    def mean(self):
        m = self.loc.clone()
        return cygrad.where(self.df <= 1, cygrad.full_like(m, math.nan), m)

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        df = self.df
        var = self.scale.pow(2) * df / (df - 2)
        var = cygrad.where((df <= 2) & (df > 1), cygrad.full_like(var, math.inf), var)
        return cygrad.where(df <= 1, cygrad.full_like(var, math.nan), var)

    def __init__(self, df, loc=0.0, scale=1.0, validate_args=None):
        self.df, self.loc, self.scale = broadcast_all(df, loc, scale)
        self._chi2 = Chi2(self.df)
        batch_shape = self.df.size()
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(StudentT, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.df = self.df.expand(batch_shape)
        new.loc = self.loc.expand(batch_shape)
        new.scale = self.scale.expand(batch_shape)
        new._chi2 = self._chi2.expand(batch_shape)
        super(StudentT, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        x = _standard_normal(shape, dtype=self.df.dtype, device=self.df.device)
        z = self._chi2.rsample(sample_shape)
        y = x * cygrad.rsqrt(z / self.df)
        return self.loc + self.scale * y

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        y = (value - self.loc) / self.scale
        Z = (self.scale.log() + 0.5 * self.df.log() + 0.5 * math.log(math.pi)
             + lgamma(0.5 * self.df) - lgamma(0.5 * (self.df + 1.0)))
        return -0.5 * (self.df + 1.0) * cygrad.log1p(y ** 2.0 / self.df) - Z

    def entropy(self):
        lbeta = (lgamma(0.5 * self.df) + math.lgamma(0.5)
                 - lgamma(0.5 * (self.df + 1)))
        return (self.scale.log()
                + 0.5 * (self.df + 1) * (digamma(0.5 * (self.df + 1)) - digamma(0.5 * self.df))
                + 0.5 * self.df.log() + lbeta)
