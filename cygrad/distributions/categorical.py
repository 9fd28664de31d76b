"""``Categorical(probs=None, logits=None)``: one of ``K`` categories.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Categorical
>>> round(Categorical(probs=cygrad.tensor([0.2, 0.8])).log_prob(cygrad.tensor(1)).item(), 4)
-0.2231
"""
import math

import cygrad
from . import constraints
from .distribution import Distribution
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits

__all__ = ["Categorical"]


class Categorical(Distribution):
    """Distribution over ``{0, ..., K-1}`` with probabilities ``probs`` (normalised
    along the last dim) or ``logits`` (log-probabilities up to a constant).  Give
    exactly one of them.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Categorical
    >>> d = Categorical(logits=cygrad.zeros(2, 4))
    >>> d.batch_shape, d.sample((3,)).shape
    (cygrad.Size([2]), cygrad.Size([3, 2]))
    """
    arg_constraints = {"probs": constraints.simplex, "logits": constraints.independent(
        constraints.real, 1)}
    has_enumerate_support = True

    def __init__(self, probs=None, logits=None, validate_args=None):
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        if probs is not None:
            if probs.dim() < 1:
                raise ValueError("`probs` parameter must be at least one-dimensional.")
            self.probs = probs / probs.sum(-1, keepdim=True)
        else:
            if logits.dim() < 1:
                raise ValueError("`logits` parameter must be at least one-dimensional.")
            self.logits = logits - logits.logsumexp(dim=-1, keepdim=True)
        self._param = self.probs if probs is not None else self.logits
        self._num_events = self._param.size()[-1]
        batch_shape = (self._param.size()[:-1] if self._param.dim() > 1 else cygrad.Size())
        super().__init__(batch_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Categorical, _instance)
        batch_shape = cygrad.Size(batch_shape)
        param_shape = tuple(batch_shape) + (self._num_events,)
        if "probs" in self.__dict__:
            new.probs = self.probs.expand(param_shape)
            new._param = new.probs
        if "logits" in self.__dict__:
            new.logits = self.logits.expand(param_shape)
            new._param = new.logits
        new._num_events = self._num_events
        super(Categorical, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _new(self, *args, **kwargs):
        return self._param.new_empty(*args, **kwargs)

    @constraints.dependent_property(is_discrete=True, event_dim=0)
    def support(self):
        return constraints.integer_interval(0, self._num_events - 1)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits)

    @property
    def param_shape(self):
        return self._param.size()

    @property
    def mean(self):
        return cygrad.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                           device=self.probs.device)

    @property
    def mode(self):
        return self.probs.argmax(dim=-1)

    @property
    def variance(self):
        return cygrad.full(self._extended_shape(), math.nan, dtype=self.probs.dtype,
                           device=self.probs.device)

    def sample(self, sample_shape=()):
        if not isinstance(sample_shape, cygrad.Size):
            sample_shape = cygrad.Size(sample_shape)
        probs_2d = self.probs.reshape(-1, self._num_events)
        with cygrad.no_grad():
            samples_2d = cygrad.multinomial(probs_2d, sample_shape.numel(), True).T
        return samples_2d.reshape(self._extended_shape(sample_shape))

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        value = value.long().unsqueeze(-1)
        value, log_pmf = broadcast_all(value, self.logits)
        value = value[..., :1]
        return log_pmf.gather(-1, value).squeeze(-1)

    def entropy(self):
        min_real = -_max_float(self.logits.dtype)
        logits = self.logits.clamp(min=min_real)
        p_log_p = logits * self.probs
        return -p_log_p.sum(-1)

    def enumerate_support(self, expand=True):
        num_events = self._num_events
        values = cygrad.arange(num_events, dtype=cygrad.int64, device=self._param.device)
        values = values.reshape((-1,) + (1,) * len(self._batch_shape))
        if expand:
            values = values.expand((-1,) + tuple(self._batch_shape))
        return values


def _max_float(dtype):
    """The largest finite value of a float dtype (``torch.finfo(dtype).max``)."""
    name = str(dtype).split(".")[-1]
    return {"float16": 65504.0, "bfloat16": 3.3895313892515355e38,
            "float32": 3.4028234663852886e38, "float64": 1.7976931348623157e308}[name]
