"""``ContinuousBernoulli(probs=None, logits=None, lims=(0.499, 0.501))``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import ContinuousBernoulli
>>> ContinuousBernoulli(cygrad.tensor([0.5])).mean.tolist()
[0.5]
"""
import math

import cygrad
from cygrad.nn import functional as F
from . import constraints
from .exp_family import ExponentialFamily
from ._params import BinaryProbsLogits
from .utils import broadcast_all, clamp_probs, lazy_property, logits_to_probs

__all__ = ["ContinuousBernoulli"]


class ContinuousBernoulli(BinaryProbsLogits, ExponentialFamily):
    """Continuous Bernoulli distribution on ``[0, 1]``: density proportional to
    ``p^x (1 - p)^(1 - x)``.  Near ``p = 1/2`` (between ``lims``) the normaliser and
    moments use their Taylor expansions, where the closed forms cancel.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import ContinuousBernoulli
    >>> d = ContinuousBernoulli(probs=cygrad.tensor([0.2, 0.5], dtype=cygrad.float64))
    >>> [round(v, 4) for v in d.log_prob(cygrad.tensor([0.5, 0.5], dtype=cygrad.float64)).tolist()]
    [-0.0788, 0.0]
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    _mean_carrier_measure = 0
    has_rsample = True

    def __init__(self, probs=None, logits=None, lims=(0.499, 0.501), validate_args=None):
        self._set_probs_or_logits(probs, logits)
        if probs is not None:
            # checked here because clamping below would hide invalid values
            if validate_args is not None and not bool(
                    self.arg_constraints["probs"].check(self.probs).all()):
                raise ValueError("The parameter probs has invalid values")
            self.probs = clamp_probs(self.probs)
            self._param = self.probs
        self._lims = lims
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ContinuousBernoulli, _instance)
        new._lims = self._lims
        batch_shape = cygrad.Size(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(ContinuousBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def probs(self):
        return clamp_probs(logits_to_probs(self.logits, is_binary=True))

    def _outside_unstable_region(self):
        return (self.probs <= self._lims[0]) | (self.probs > self._lims[1])

    def _cut_probs(self):
        return cygrad.where(self._outside_unstable_region(), self.probs,
                            self._lims[0] * cygrad.ones_like(self.probs))

    def _cont_bern_log_norm(self):
        """The log normaliser ``log(2 atanh(1 - 2p) / (1 - 2p))``, by Taylor series
        near ``p = 1/2``."""
        cut_probs = self._cut_probs()
        below = cygrad.where(cut_probs <= 0.5, cut_probs, cygrad.zeros_like(cut_probs))
        above = cygrad.where(cut_probs >= 0.5, cut_probs, cygrad.ones_like(cut_probs))
        log_norm = (cygrad.log(cygrad.abs(cygrad.log1p(-cut_probs) - cygrad.log(cut_probs)))
                    - cygrad.where(cut_probs <= 0.5, cygrad.log1p(-2.0 * below),
                                   cygrad.log(2.0 * above - 1.0)))
        x = (self.probs - 0.5) ** 2
        taylor = math.log(2.0) + (4.0 / 3.0 + 104.0 / 45.0 * x) * x
        return cygrad.where(self._outside_unstable_region(), log_norm, taylor)

    @property
    def mean(self):
        cut_probs = self._cut_probs()
        mus = cut_probs / (2.0 * cut_probs - 1.0) + 1.0 / (
            cygrad.log1p(-cut_probs) - cygrad.log(cut_probs))
        x = self.probs - 0.5
        taylor = 0.5 + (1.0 / 3.0 + 16.0 / 45.0 * x ** 2) * x
        return cygrad.where(self._outside_unstable_region(), mus, taylor)

    @property
    def stddev(self):
        return cygrad.sqrt(self.variance)

    @property
    def variance(self):
        cut_probs = self._cut_probs()
        vars_ = (cut_probs * (cut_probs - 1.0) / (1.0 - 2.0 * cut_probs) ** 2
                 + 1.0 / (cygrad.log1p(-cut_probs) - cygrad.log(cut_probs)) ** 2)
        x = (self.probs - 0.5) ** 2
        taylor = 1.0 / 12.0 - (1.0 / 15.0 - 128.0 / 945.0 * x) * x
        return cygrad.where(self._outside_unstable_region(), vars_, taylor)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = cygrad.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        with cygrad.no_grad():
            return self.icdf(u)

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        u = cygrad.rand(shape, dtype=self.probs.dtype, device=self.probs.device)
        return self.icdf(u)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return (-F.binary_cross_entropy_with_logits(logits, value, reduction="none")
                + self._cont_bern_log_norm())

    def cdf(self, value):
        if self._validate_args:
            self._validate_sample(value)
        cut_probs = self._cut_probs()
        cdfs = ((cut_probs ** value) * ((1.0 - cut_probs) ** (1.0 - value)) + cut_probs - 1.0) \
            / (2.0 * cut_probs - 1.0)
        unbounded_cdfs = cygrad.where(self._outside_unstable_region(), cdfs, value)
        return cygrad.where(value <= 0.0, cygrad.zeros_like(value),
                            cygrad.where(value >= 1.0, cygrad.ones_like(value), unbounded_cdfs))

    def icdf(self, value):
        cut_probs = self._cut_probs()
        inverted = ((cygrad.log1p(-cut_probs + value * (2.0 * cut_probs - 1.0))
                     - cygrad.log1p(-cut_probs))
                    / (cygrad.log(cut_probs) - cygrad.log1p(-cut_probs)))
        return cygrad.where(self._outside_unstable_region(), inverted, value)

    def entropy(self):
        log_probs0 = cygrad.log1p(-self.probs)
        log_probs1 = cygrad.log(self.probs)
        return (self.mean * (log_probs0 - log_probs1) - self._cont_bern_log_norm()
                - log_probs0)

    @property
    def _natural_params(self):
        return (self.logits,)

    def _log_normalizer(self, x):
        """The log normaliser of the natural parameter, by Taylor series near 0."""
        out_unst_reg = (x <= self._lims[0] - 0.5) | (x > self._lims[1] - 0.5)
        cut_nat_params = cygrad.where(out_unst_reg, x,
                                      (self._lims[0] - 0.5) * cygrad.ones_like(x))
        log_norm = (cygrad.log(cygrad.abs(cygrad.exp(cut_nat_params) - 1.0))
                    - cygrad.log(cygrad.abs(cut_nat_params)))
        taylor = 0.5 * x + x ** 2 / 24.0 - x ** 4 / 2880.0
        return cygrad.where(out_unst_reg, log_norm, taylor)
