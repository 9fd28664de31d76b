"""``ExponentialFamily``: distributions whose density is
``exp(<t(x), theta> - F(theta) + k(x))`` (``torch.distributions.ExponentialFamily``).

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import ExponentialFamily, Exponential
>>> isinstance(Exponential(1.0), ExponentialFamily)
True
"""
import cygrad
from .distribution import Distribution

__all__ = ["ExponentialFamily"]


class ExponentialFamily(Distribution):
    """Base class of exponential-family distributions: subclasses give
    ``_natural_params``, ``_log_normalizer`` and ``_mean_carrier_measure``, from
    which :meth:`entropy` follows by Bregman divergence (autograd of the log
    normaliser), as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Poisson
    >>> d = Poisson(cygrad.tensor([2.0]))
    >>> len(d._natural_params)
    1
    """

    @property
    def _natural_params(self):
        """The natural parameters, a tuple of tensors."""
        raise NotImplementedError

    def _log_normalizer(self, *natural_params):
        """The log normaliser ``F(theta)`` of the natural parameters."""
        raise NotImplementedError

    @property
    def _mean_carrier_measure(self):
        """The expected carrier measure ``E[k(x)]``."""
        raise NotImplementedError

    def entropy(self):
        """Entropy by Bregman divergence of the log normaliser."""
        result = -self._mean_carrier_measure
        nparams = [p.detach().requires_grad_() for p in self._natural_params]
        with cygrad.enable_grad():
            lg_normal = self._log_normalizer(*nparams)
            gradients = cygrad.autograd.grad(lg_normal.sum(), nparams, create_graph=True)
        result = result + lg_normal
        for np_, g in zip(nparams, gradients):
            result = result - (np_ * g).reshape(self._batch_shape + (-1,)).sum(-1)
        return result
