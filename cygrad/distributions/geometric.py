"""``Geometric(probs=None, logits=None)``: failures before the first success.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Geometric
>>> Geometric(probs=cygrad.tensor(0.25)).mean.item()
3.0
"""
import cygrad
from cygrad.nn import functional as F
from . import constraints
from .distribution import Distribution
from ._params import BinaryProbsLogits
from .utils import broadcast_all, finfo_tiny

__all__ = ["Geometric"]


class Geometric(BinaryProbsLogits, Distribution):
    """Number of failures before the first success in Bernoulli trials of
    probability ``probs``: ``P(k) = (1 - p)^k p``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Geometric
    >>> round(Geometric(probs=cygrad.tensor(0.5)).log_prob(cygrad.tensor(1.0)).item(), 4)
    -1.3863
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.nonnegative_integer

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._set_probs_or_logits(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)
        if self._validate_args and probs is not None:
            # probs must also be nonzero (unit_interval allows 0)
            value = self.probs
            valid = value > 0
            if not bool(valid.all()):
                invalid_value = value.detach()[~valid]
                raise ValueError(
                    "Expected parameter probs "
                    f"({type(value).__name__} of shape {tuple(value.shape)}) "
                    f"of distribution {repr(self)} "
                    f"to be positive but found invalid values:\n{invalid_value}")

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Geometric, _instance)
        batch_shape = cygrad.Size(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(Geometric, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return 1.0 / self.probs - 1.0

    @property
    def mode(self):
        return cygrad.zeros_like(self.probs)

    @property
    def variance(self):
        return (1.0 / self.probs - 1.0) / self.probs

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        tiny = finfo_tiny(self.probs.dtype)
        with cygrad.no_grad():
            u = self.probs.new_empty(shape).uniform_(tiny, 1)
            return (u.log() / (-self.probs).log1p()).floor()

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value, probs = broadcast_all(value, self.probs)
        # p == 1 and k == 0: the term k * log(1 - p) is 0, not NaN
        probs = cygrad.where((probs == 1) & (value == 0), cygrad.zeros_like(probs), probs)
        return value * (-probs).log1p() + self.probs.log()

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs,
                                                  reduction="none") / self.probs
