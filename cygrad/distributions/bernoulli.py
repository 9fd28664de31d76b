"""``Bernoulli(probs=None, logits=None)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Bernoulli
>>> round(Bernoulli(probs=cygrad.tensor(0.25)).log_prob(cygrad.tensor(1.0)).item(), 4)
-1.3863
"""
import cygrad
from cygrad.nn import functional as F
from . import constraints
from .exp_family import ExponentialFamily
from ._params import BinaryProbsLogits
from .utils import broadcast_all

__all__ = ["Bernoulli"]


class Bernoulli(BinaryProbsLogits, ExponentialFamily):
    """Bernoulli distribution: 1 with probability ``probs`` (or ``sigmoid(logits)``),
    else 0.  Give exactly one of ``probs`` and ``logits``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Bernoulli
    >>> d = Bernoulli(logits=cygrad.tensor([0.0]))
    >>> d.probs.tolist(), d.variance.tolist()
    ([0.5], [0.25])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.boolean
    has_enumerate_support = True
    _mean_carrier_measure = 0

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._set_probs_or_logits(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Bernoulli, _instance)
        batch_shape = cygrad.Size(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(Bernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.probs

    @property
    def mode(self):
        mode = (self.probs >= 0.5).to(self.probs.dtype)
        return cygrad.where(self.probs == 0.5, cygrad.full_like(mode, float("nan")), mode)

    @property
    def variance(self):
        return self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with cygrad.no_grad():
            return cygrad.bernoulli(self.probs.expand(shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        return -F.binary_cross_entropy_with_logits(logits, value, reduction="none")

    def entropy(self):
        return F.binary_cross_entropy_with_logits(self.logits, self.probs, reduction="none")

    def enumerate_support(self, expand=True):
        values = cygrad.arange(2, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values

    @property
    def _natural_params(self):
        return (cygrad.log(self.probs / (1 - self.probs)),)

    def _log_normalizer(self, x):
        return cygrad.log1p(cygrad.exp(x))
