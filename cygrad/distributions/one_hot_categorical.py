"""``OneHotCategorical``: a categorical draw written as a one-hot vector.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import OneHotCategorical
>>> OneHotCategorical(probs=cygrad.tensor([0.0, 1.0])).sample().tolist()
[0.0, 1.0]
"""
import cygrad
from cygrad.nn import functional as F
from . import constraints
from .categorical import Categorical
from .distribution import Distribution
from ._params import WrapsCategorical

__all__ = ["OneHotCategorical", "OneHotCategoricalStraightThrough"]


class OneHotCategorical(WrapsCategorical, Distribution):
    """One-hot vectors of length ``K``; ``probs``/``logits`` as in
    :class:`Categorical`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import OneHotCategorical
    >>> d = OneHotCategorical(logits=cygrad.zeros(3))
    >>> d.event_shape, [round(v, 4) for v in d.mean.tolist()]
    (cygrad.Size([3]), [0.3333, 0.3333, 0.3333])
    """
    arg_constraints = {"probs": constraints.simplex,
                       "logits": constraints.independent(constraints.real, 1)}
    support = constraints.one_hot
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        self._categorical = Categorical(probs, logits)
        batch_shape = self._categorical.batch_shape
        event_shape = self._categorical.param_shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(OneHotCategorical, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new._categorical = self._categorical.expand(batch_shape)
        super(OneHotCategorical, new).__init__(batch_shape, self.event_shape,
                                               validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self._categorical.probs

    @property
    def mode(self):
        probs = self._categorical.probs
        mode = probs.argmax(dim=-1)
        return F.one_hot(mode, num_classes=probs.shape[-1]).to(probs.dtype)

    @property
    def variance(self):
        return self._categorical.probs * (1 - self._categorical.probs)

    def sample(self, sample_shape=()):
        sample_shape = cygrad.Size(sample_shape)
        probs = self._categorical.probs
        num_events = self._categorical._num_events
        indices = self._categorical.sample(sample_shape)
        return F.one_hot(indices, num_events).to(probs.dtype)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        indices = value.max(-1)[1]
        return self._categorical.log_prob(indices)

    def entropy(self):
        return self._categorical.entropy()

    def enumerate_support(self, expand=True):
        n = self.event_shape[0]
        values = cygrad.eye(n, dtype=self._param.dtype, device=self._param.device)
        values = values.reshape((n,) + (1,) * len(self.batch_shape) + (n,))
        if expand:
            values = values.expand((n,) + tuple(self.batch_shape) + (n,))
        return values


class OneHotCategoricalStraightThrough(OneHotCategorical):
    """:class:`OneHotCategorical` whose ``rsample`` passes gradients straight through
    (the sample's value, the probabilities' gradient: ``s + p - p.detach()``).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import OneHotCategoricalStraightThrough
    >>> p = cygrad.tensor([0.5, 0.5], requires_grad=True)
    >>> OneHotCategoricalStraightThrough(probs=p).rsample().requires_grad
    True
    """
    has_rsample = True

    def rsample(self, sample_shape=()):
        samples = self.sample(sample_shape)
        probs = self._categorical.probs
        return samples + (probs - probs.detach())
