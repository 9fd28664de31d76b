"""``Distribution``: the base class of every distribution (``torch.distributions.Distribution``).

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Normal
>>> d = Normal(cygrad.zeros(3), 1.0)
>>> d.batch_shape, d.event_shape
(cygrad.Size([3]), cygrad.Size([]))
>>> d.sample((2,)).shape
cygrad.Size([2, 3])
"""
import warnings

import cygrad
from . import constraints
from .utils import lazy_property

__all__ = ["Distribution"]


def _size(shape):
    return cygrad.Size(tuple(shape))


class Distribution:
    """Base class of probability distributions.

    Parameters
    ----------
    batch_shape : cygrad.Size
        The shape over which parameters are batched.
    event_shape : cygrad.Size
        The shape of one sample (without batching).
    validate_args : bool or None
        Whether to check the parameters against ``arg_constraints`` and the values
        given to ``log_prob`` (and ``cdf``...) against ``support``.  ``None`` takes the
        default, ``True`` unless changed by :meth:`set_default_validate_args`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Bernoulli
    >>> d = Bernoulli(probs=cygrad.tensor([0.3, 0.9]))
    >>> d.mean.tolist() == d.probs.tolist()
    True
    >>> d.support
    Boolean()
    """

    has_rsample = False
    has_enumerate_support = False
    _validate_args = __debug__

    @staticmethod
    def set_default_validate_args(value):
        """Turn argument validation on or off for distributions created afterwards
        without an explicit ``validate_args``.

        Examples
        --------
        >>> from cygrad.distributions import Distribution
        >>> Distribution.set_default_validate_args(False)
        >>> Distribution.set_default_validate_args(True)
        """
        if value not in [True, False]:
            raise ValueError
        Distribution._validate_args = value

    def __init__(self, batch_shape=(), event_shape=(), validate_args=None):
        self._batch_shape = _size(batch_shape)
        self._event_shape = _size(event_shape)
        if validate_args is not None:
            self._validate_args = validate_args
        if self._validate_args:
            try:
                arg_constraints = self.arg_constraints
            except NotImplementedError:
                arg_constraints = {}
                warnings.warn(f"{self.__class__} does not define `arg_constraints`. "
                              f"Please set `arg_constraints = {{}}` or initialize the "
                              f"distribution with `validate_args=False` to turn off "
                              f"validation.")
            for param, constraint in arg_constraints.items():
                if constraints.is_dependent(constraint):
                    continue    # skip constraints that cannot be checked
                if param not in self.__dict__ and isinstance(
                        getattr(type(self), param), lazy_property):
                    continue    # skip checking lazily-constructed args
                value = getattr(self, param)
                valid = constraint.check(value)
                if not bool(valid.all()):
                    raise ValueError(
                        f"Expected parameter {param} ({type(value).__name__} of shape "
                        f"{tuple(value.shape)}) of distribution {repr(self)} to satisfy the "
                        f"constraint {repr(constraint)}, but found invalid values:\n{value}")
        super().__init__()

    def expand(self, batch_shape, _instance=None):
        """A new distribution whose batch is expanded to ``batch_shape`` (parameters
        are expanded views, not copies)."""
        raise NotImplementedError

    @property
    def batch_shape(self):
        """The shape over which parameters are batched."""
        return self._batch_shape

    @property
    def event_shape(self):
        """The shape of a single sample (without batching)."""
        return self._event_shape

    @property
    def arg_constraints(self):
        """A dict from parameter names to the constraints they must satisfy."""
        raise NotImplementedError

    @property
    def support(self):
        """The constraint of the distribution's support."""
        raise NotImplementedError

    @property
    def mean(self):
        """The mean of the distribution."""
        raise NotImplementedError

    @property
    def mode(self):
        """The mode of the distribution."""
        raise NotImplementedError(f"{self.__class__} does not implement mode")

    @property
    def variance(self):
        """The variance of the distribution."""
        raise NotImplementedError

    @property
    def stddev(self):
        """The standard deviation of the distribution."""
        return self.variance.sqrt()

    def sample(self, sample_shape=()):
        """A sample of shape ``sample_shape + batch_shape + event_shape`` (without
        gradient)."""
        with cygrad.no_grad():
            return self.rsample(sample_shape)

    def rsample(self, sample_shape=()):
        """A reparameterised sample: gradients flow to the parameters."""
        raise NotImplementedError

    def sample_n(self, n):
        """``n`` samples (deprecated in PyTorch: use ``sample((n,))``)."""
        warnings.warn("sample_n will be deprecated. Use .sample((n,)) instead", UserWarning)
        return self.sample(_size((n,)))

    def log_prob(self, value):
        """The log of the probability density (or mass) at ``value``."""
        raise NotImplementedError

    def cdf(self, value):
        """The cumulative distribution function at ``value``."""
        raise NotImplementedError

    def icdf(self, value):
        """The inverse cumulative distribution function at ``value``."""
        raise NotImplementedError

    def enumerate_support(self, expand=True):
        """All values of a discrete support, along a new leading dim."""
        raise NotImplementedError

    def entropy(self):
        """The entropy, batched over ``batch_shape``."""
        raise NotImplementedError

    def perplexity(self):
        """``exp(entropy)``."""
        return cygrad.exp(self.entropy())

    def _extended_shape(self, sample_shape=()):
        if not isinstance(sample_shape, cygrad.Size):
            sample_shape = _size(sample_shape)
        return _size(tuple(sample_shape) + tuple(self._batch_shape) + tuple(self._event_shape))

    def _validate_sample(self, value):
        if not isinstance(value, cygrad.Tensor):
            raise ValueError("The value argument to log_prob must be a Tensor")
        event_dim_start = value.dim() - len(self._event_shape)
        if tuple(value.shape[event_dim_start:]) != tuple(self._event_shape):
            raise ValueError(f"The right-most size of value must match event_shape: "
                             f"{value.shape} vs {self._event_shape}.")
        actual_shape = value.shape
        expected_shape = tuple(self._batch_shape) + tuple(self._event_shape)
        for i, j in zip(reversed(actual_shape), reversed(expected_shape)):
            if i != 1 and j != 1 and i != j:
                raise ValueError(f"Value is not broadcastable with batch_shape+event_shape: "
                                 f"{actual_shape} vs {_size(expected_shape)}.")
        try:
            support = self.support
        except NotImplementedError:
            warnings.warn(f"{self.__class__} does not define `support` to enable sample "
                          f"validation. Please initialize the distribution with "
                          f"`validate_args=False` to turn off validation.")
            return
        assert support is not None
        valid = support.check(value)
        if not bool(valid.all()):
            raise ValueError(
                f"Expected value argument ({type(value).__name__} of shape "
                f"{tuple(value.shape)}) to be within the support ({repr(support)}) of the "
                f"distribution {repr(self)}, but found invalid values:\n{value}")

    def _expand_params(self, cls, batch_shape, _instance, names):
        """``expand`` of a distribution whose state is the parameters ``names``,
        each of the batch shape: a new instance with each parameter expanded."""
        new = self._get_checked_instance(cls, _instance)
        batch_shape = _size(batch_shape)
        for name in names:
            setattr(new, name, getattr(self, name).expand(batch_shape))
        super(cls, new).__init__(batch_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def _get_checked_instance(self, cls, _instance=None):
        if _instance is None and type(self).__init__ != cls.__init__:
            raise NotImplementedError(
                f"Subclass {self.__class__.__name__} of {cls.__name__} that defines a custom "
                f"__init__ method must also define a custom .expand() method.")
        return self.__new__(type(self)) if _instance is None else _instance

    def __repr__(self):
        param_names = [k for k, _ in self.arg_constraints.items() if k in self.__dict__]
        args_string = ", ".join(f"{p}: {_param_repr(self.__dict__[p])}" for p in param_names)
        return self.__class__.__name__ + "(" + args_string + ")"


def _param_repr(value):
    # PyTorch's f-string of a 0-d tensor shows its number; others show the shape
    if value.numel() != 1:
        return value.size()
    return value.item() if value.dim() == 0 else value
