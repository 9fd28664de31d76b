"""``Binomial(total_count=1, probs=None, logits=None)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Binomial
>>> Binomial(10, probs=cygrad.tensor(0.5)).mean.item()
5.0
"""
import cygrad
from . import constraints
from .distribution import Distribution
from ._params import BinaryProbsLogits
from ._special import lgamma

__all__ = ["Binomial"]

# bernoulli trials drawn at once per element when sampling (bounds the memory)
_TRIALS_BLOCK = 256


def _clamp_by_zero(x):
    # x.clamp(min=0) with gradient 1/2 at 0, as PyTorch's
    return (x.clamp(min=0) + x - x.clamp(max=0)) / 2


class Binomial(BinaryProbsLogits, Distribution):
    """Number of successes in ``total_count`` independent trials of probability
    ``probs`` (or ``sigmoid(logits)``).

    Sampling sums Bernoulli draws (in blocks of trials), so it costs time in
    proportion to ``total_count``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Binomial
    >>> d = Binomial(cygrad.tensor([4.0, 6.0]), probs=cygrad.tensor([0.5, 0.5]))
    >>> d.variance.tolist()
    [1.0, 1.5]
    """
    arg_constraints = {"total_count": constraints.nonnegative_integer,
                       "probs": constraints.unit_interval, "logits": constraints.real}
    has_enumerate_support = True

    def __init__(self, total_count=1, probs=None, logits=None, validate_args=None):
        (total_count,) = self._set_probs_or_logits(probs, logits, total_count)
        self.total_count = total_count.to(self._param.dtype)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Binomial, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.total_count = self.total_count.expand(batch_shape)
        self._expand_probs_or_logits(new, batch_shape)
        super(Binomial, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self.total_count)

    @property
    def mean(self):
        return self.total_count * self.probs

    @property
    def mode(self):
        return ((self.total_count + 1) * self.probs).floor().clamp(max=self.total_count)

    @property
    def variance(self):
        return self.total_count * self.probs * (1 - self.probs)

    def sample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        with cygrad.no_grad():
            n = self.total_count.expand(shape)
            p = self.probs.expand(shape)
            count = cygrad.zeros(shape, dtype=p.dtype, device=p.device)
            most = int(n.max().item()) if n.numel() else 0
            for start in range(0, most, _TRIALS_BLOCK):
                width = min(_TRIALS_BLOCK, most - start)
                trial = cygrad.arange(start, start + width, dtype=p.dtype, device=p.device)
                draws = cygrad.bernoulli(p.unsqueeze(-1).expand(tuple(shape) + (width,))
                                         .contiguous())
                count = count + (draws * (trial < n.unsqueeze(-1))).sum(-1)
            return count

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        log_factorial_n = lgamma(self.total_count + 1)
        log_factorial_k = lgamma(value + 1)
        log_factorial_nmk = lgamma(self.total_count - value + 1)
        # n * log(1 + exp(logits)) written to stay finite for large |logits|
        normalize_term = (self.total_count * _clamp_by_zero(self.logits)
                          + self.total_count * cygrad.log1p(cygrad.exp(-cygrad.abs(self.logits)))
                          - log_factorial_n)
        return value * self.logits - log_factorial_k - log_factorial_nmk - normalize_term

    def entropy(self):
        total_count = int(self.total_count.max().item())
        if not self.total_count.min().item() == total_count:
            raise NotImplementedError("Inhomogeneous total count not supported by `entropy`.")
        log_prob = self.log_prob(self.enumerate_support(False))
        return -(cygrad.exp(log_prob) * log_prob).sum(0)

    def enumerate_support(self, expand=True):
        total_count = int(self.total_count.max().item())
        if not self.total_count.min().item() == total_count:
            raise NotImplementedError(
                "Inhomogeneous total count not supported by `enumerate_support`.")
        values = cygrad.arange(1 + total_count, dtype=self._param.dtype,
                               device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values
