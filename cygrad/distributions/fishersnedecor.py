"""``FisherSnedecor(df1, df2)``: the F-distribution.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import FisherSnedecor
>>> FisherSnedecor(3.0, 6.0).mean.item()
1.5
"""
import math

import cygrad
from . import constraints
from .distribution import Distribution
from .gamma import Gamma
from .utils import broadcast_all, finfo_tiny
from ._special import lgamma

__all__ = ["FisherSnedecor"]


class FisherSnedecor(Distribution):
    """F-distribution with ``df1`` and ``df2`` degrees of freedom: the ratio of two
    scaled chi-squared variables (reparameterised through their Gamma samples).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import FisherSnedecor
    >>> FisherSnedecor(cygrad.tensor([1.0]), cygrad.tensor([3.0])).variance.tolist()
    [nan]
    """
    arg_constraints = {"df1": constraints.positive, "df2": constraints.positive}
    support = constraints.positive
    has_rsample = True

    def __init__(self, df1, df2, validate_args=None):
        self.df1, self.df2 = broadcast_all(df1, df2)
        self._gamma1 = Gamma(self.df1 * 0.5, self.df1)
        self._gamma2 = Gamma(self.df2 * 0.5, self.df2)
        super().__init__(self.df1.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(FisherSnedecor, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.df1 = self.df1.expand(batch_shape)
        new.df2 = self.df2.expand(batch_shape)
        new._gamma1 = self._gamma1.expand(batch_shape)
        new._gamma2 = self._gamma2.expand(batch_shape)
        super(FisherSnedecor, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        df2 = self.df2.clone()
        return cygrad.where(df2 > 2, df2 / (df2 - 2), cygrad.full_like(df2, math.nan))

    @property
    def mode(self):
        mode = (self.df1 - 2) / self.df1 * self.df2 / (self.df2 + 2)
        return cygrad.where(self.df1 > 2, mode, cygrad.full_like(mode, math.nan))

    @property
    def variance(self):
        df2 = self.df2
        var = (2 * df2.pow(2) * (self.df1 + df2 - 2)
               / (self.df1 * (df2 - 2).pow(2) * (df2 - 4)))
        return cygrad.where(df2 > 4, var, cygrad.full_like(var, math.nan))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        # X1 = chi2(df1) / (2 df1), X2 = chi2(df2) / (2 df2): their ratio is F(df1, df2)
        X1 = self._gamma1.rsample(sample_shape).reshape(shape)
        X2 = self._gamma2.rsample(sample_shape).reshape(shape)
        tiny = finfo_tiny(X2.dtype)
        X2 = X2.clamp(min=tiny)
        Y = X1 / X2
        return Y.clamp(min=tiny)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        ct1 = self.df1 * 0.5
        ct2 = self.df2 * 0.5
        ct3 = self.df1 / self.df2
        t1 = lgamma(ct1 + ct2) - lgamma(ct1) - lgamma(ct2)
        t2 = ct1 * ct3.log() + (ct1 - 1) * cygrad.log(value)
        t3 = (ct1 + ct2) * cygrad.log1p(ct3 * value)
        return t1 + t2 - t3
