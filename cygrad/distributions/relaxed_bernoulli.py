"""``RelaxedBernoulli`` and ``LogitRelaxedBernoulli``: continuous relaxations of
Bernoulli variables (Concrete / Gumbel-softmax with two classes).

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import RelaxedBernoulli
>>> d = RelaxedBernoulli(cygrad.tensor(0.5), probs=cygrad.tensor([0.3]))
>>> d.has_rsample
True
"""
import cygrad
from cygrad.nn import functional as F
from . import constraints
from .distribution import Distribution
from .transformed_distribution import TransformedDistribution
from .transforms import SigmoidTransform
from ._params import BinaryProbsLogits
from .utils import broadcast_all, clamp_probs

__all__ = ["LogitRelaxedBernoulli", "RelaxedBernoulli"]


class LogitRelaxedBernoulli(BinaryProbsLogits, Distribution):
    """The logit of a :class:`RelaxedBernoulli` sample: ``(logit(u) + logits) /
    temperature`` with ``u`` uniform.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.relaxed_bernoulli import LogitRelaxedBernoulli
    >>> LogitRelaxedBernoulli(cygrad.tensor(1.0), logits=cygrad.zeros(3)).sample().shape
    cygrad.Size([3])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.real

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self.temperature = temperature
        self._set_probs_or_logits(probs, logits)
        super().__init__(self._param.size(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogitRelaxedBernoulli, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.temperature = self.temperature
        self._expand_probs_or_logits(new, batch_shape)
        super(LogitRelaxedBernoulli, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        probs = clamp_probs(self.probs.expand(shape))
        uniforms = clamp_probs(cygrad.rand(shape, dtype=probs.dtype, device=probs.device))
        return (uniforms.log() - (-uniforms).log1p() + probs.log()
                - (-probs).log1p()) / self.temperature

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        logits, value = broadcast_all(self.logits, value)
        diff = logits - value * self.temperature
        return self.temperature.log() + diff - 2 * F.softplus(diff)


class RelaxedBernoulli(TransformedDistribution):
    """Relaxed Bernoulli distribution on ``(0, 1)`` with ``temperature`` and
    ``probs``/``logits``: the sigmoid of a :class:`LogitRelaxedBernoulli`; samples
    approach Bernoulli draws as the temperature goes to 0.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import RelaxedBernoulli
    >>> d = RelaxedBernoulli(cygrad.tensor(0.1), logits=cygrad.tensor([0.0, 2.0]))
    >>> d.batch_shape
    cygrad.Size([2])
    """
    arg_constraints = {"probs": constraints.unit_interval, "logits": constraints.real}
    support = constraints.unit_interval
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = LogitRelaxedBernoulli(temperature, probs, logits)
        super().__init__(base_dist, SigmoidTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedBernoulli, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def temperature(self):
        return self.base_dist.temperature

    @property
    def logits(self):
        return self.base_dist.logits

    @property
    def probs(self):
        return self.base_dist.probs
