"""Parameter handling shared by several distributions: binary ``probs``/``logits``
pairs, and distributions that wrap a :class:`Categorical`.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Bernoulli
>>> d = Bernoulli(logits=cygrad.tensor([0.0]))
>>> d.probs.tolist(), d.param_shape
([0.5], cygrad.Size([1]))
"""
from .utils import broadcast_all, lazy_property, logits_to_probs, probs_to_logits


class BinaryProbsLogits:
    """Mixin: exactly one of ``probs`` and ``logits`` (log-odds) is given, the other
    is computed on first use."""

    def _set_probs_or_logits(self, probs, logits, *others):
        """Store the given one of ``probs``/``logits`` broadcast with ``others``;
        return the broadcast ``others``."""
        if (probs is None) == (logits is None):
            raise ValueError("Either `probs` or `logits` must be specified, but not both.")
        name, value = ("probs", probs) if probs is not None else ("logits", logits)
        *others, value = broadcast_all(*others, value)
        setattr(self, name, value)
        self._param = value
        return others

    def _expand_probs_or_logits(self, new, batch_shape):
        for name in ("probs", "logits"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(batch_shape))
                new._param = new.__dict__[name]

    def _new(self, *args, **kwargs):
        return self._param.new_empty(*args, **kwargs)

    @lazy_property
    def logits(self):
        return probs_to_logits(self.probs, is_binary=True)

    @lazy_property
    def probs(self):
        return logits_to_probs(self.logits, is_binary=True)

    @property
    def param_shape(self):
        return self._param.size()


class WrapsCategorical:
    """Mixin for distributions built on a :class:`Categorical` kept in
    ``self._categorical``: its parameters, seen through this distribution."""

    def _new(self, *args, **kwargs):
        return self._categorical._new(*args, **kwargs)

    @property
    def _param(self):
        return self._categorical._param

    @property
    def probs(self):
        return self._categorical.probs

    @property
    def logits(self):
        return self._categorical.logits

    @property
    def param_shape(self):
        return self._categorical.param_shape
