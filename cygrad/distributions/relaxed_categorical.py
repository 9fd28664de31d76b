"""``RelaxedOneHotCategorical`` and ``ExpRelaxedCategorical``: the Concrete
(Gumbel-softmax) relaxation of one-hot categorical variables.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import RelaxedOneHotCategorical
>>> _ = cygrad.manual_seed(0)
>>> d = RelaxedOneHotCategorical(cygrad.tensor(0.5), probs=cygrad.tensor([0.2, 0.8]))
>>> round(d.rsample().sum().item(), 6)
1.0
"""
import cygrad
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from ._params import WrapsCategorical
from .transformed_distribution import TransformedDistribution
from .transforms import ExpTransform
from .utils import clamp_probs
from ._special import lgamma

__all__ = ["ExpRelaxedCategorical", "RelaxedOneHotCategorical"]


class ExpRelaxedCategorical(WrapsCategorical, Distribution):
    """The log of a :class:`RelaxedOneHotCategorical` sample:
    ``log_softmax((logits + gumbel) / temperature)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.relaxed_categorical import ExpRelaxedCategorical
    >>> ExpRelaxedCategorical(cygrad.tensor(1.0), logits=cygrad.zeros(3)).event_shape
    cygrad.Size([3])
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        self.temperature = temperature
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(ExpRelaxedCategorical, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.temperature = self.temperature
        new._categorical = self._categorical.expand(batch_shape)
        super(ExpRelaxedCategorical, new).__init__(batch_shape, self.event_shape,
                                                   validate_args=False)
        new._validate_args = self._validate_args
        return new

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        uniforms = clamp_probs(cygrad.rand(shape, dtype=self.logits.dtype,
                                           device=self.logits.device))
        gumbels = -((-(uniforms.log())).log())
        scores = (self.logits + gumbels) / self.temperature
        return scores - scores.logsumexp(dim=-1, keepdim=True)

    def log_prob(self, value):
        K = self._categorical._num_events
        if self._validate_args:
            self._validate_sample(value)
        logits, value = self.logits, value
        temperature = self.temperature
        if not isinstance(temperature, cygrad.Tensor):
            temperature = cygrad.tensor(float(temperature), dtype=logits.dtype)
        log_scale = (lgamma(cygrad.full_like(temperature, float(K)))
                     - temperature.log() * -(K - 1))
        score = logits - value * temperature
        score = (score - score.logsumexp(dim=-1, keepdim=True)).sum(-1)
        return score + log_scale


class RelaxedOneHotCategorical(TransformedDistribution):
    """Relaxed one-hot categorical distribution on the simplex with ``temperature``
    and ``probs``/``logits``: ``exp`` of an :class:`ExpRelaxedCategorical`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import RelaxedOneHotCategorical
    >>> RelaxedOneHotCategorical(cygrad.tensor(1.0), logits=cygrad.zeros(2, 4)).batch_shape
    cygrad.Size([2])
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.real_vector}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, temperature, probs=None, logits=None, validate_args=None):
        base_dist = ExpRelaxedCategorical(temperature, probs, logits,
                                          validate_args=validate_args)
        super().__init__(base_dist, ExpTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(RelaxedOneHotCategorical, _instance)
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
