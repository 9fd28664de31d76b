"""Invertible transforms with log-Jacobians (``torch.distributions.transforms``).

A :class:`Transform` maps ``x`` to ``y = t(x)``, inverts with ``t.inv(y)`` and gives
``log|det dy/dx|`` with ``t.log_abs_det_jacobian(x, y)``; ``domain`` and
``codomain`` are constraints.  ``t.inv`` is itself a transform and ``t1 * ...``
composes with :class:`ComposeTransform`.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions.transforms import ExpTransform, AffineTransform
>>> t = ExpTransform()
>>> t(cygrad.tensor([0.0])).tolist(), t.inv(cygrad.tensor([1.0])).tolist()
([1.0], [0.0])
>>> AffineTransform(1.0, 2.0)(cygrad.tensor([3.0])).tolist()
[7.0]
"""
import functools
import math
import numbers
import weakref

import cygrad
from . import constraints
from .utils import _sum_rightmost, finfo_eps, finfo_tiny, \
    tril_matrix_to_vec, vec_to_tril_matrix
from ._linalg import cholesky

__all__ = ["AbsTransform", "AffineTransform", "CatTransform", "ComposeTransform",
           "CorrCholeskyTransform", "CumulativeDistributionTransform", "ExpTransform",
           "IndependentTransform", "LowerCholeskyTransform", "PositiveDefiniteTransform",
           "PowerTransform", "ReshapeTransform", "SigmoidTransform", "SoftplusTransform",
           "TanhTransform", "SoftmaxTransform", "StackTransform", "StickBreakingTransform",
           "Transform", "identity_transform"]


class Transform:
    """Base class of invertible transforms with computable log-det-Jacobians.

    Parameters
    ----------
    cache_size : int
        0 (no cache) or 1: remember the latest ``(x, y)`` pair, so that
        ``t.inv(t(x))`` returns ``x`` itself.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import Transform
    >>> from cygrad.distributions import constraints
    >>> class Double(Transform):
    ...     domain = codomain = constraints.real
    ...     bijective = True
    ...     def _call(self, x):
    ...         return 2 * x
    ...     def _inverse(self, y):
    ...         return y / 2
    >>> Double().inv(cygrad.tensor([4.0])).tolist()
    [2.0]
    """
    bijective = False
    domain = constraints.real
    codomain = constraints.real

    def __init__(self, cache_size=0):
        self._cache_size = cache_size
        self._inv = None
        if cache_size == 0:
            pass
        elif cache_size == 1:
            self._cached_x_y = None, None
        else:
            raise ValueError("cache_size must be 0 or 1")
        super().__init__()

    def __getstate__(self):
        state = self.__dict__.copy()
        state["_inv"] = None
        return state

    @property
    def event_dim(self):
        if self.domain.event_dim == self.codomain.event_dim:
            return self.domain.event_dim
        raise ValueError("Please use either .domain.event_dim or .codomain.event_dim")

    @property
    def inv(self):
        """The inverse transform (``inv.inv`` is this one)."""
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = _InverseTransform(self)
            self._inv = weakref.ref(inv)
        return inv

    @property
    def sign(self):
        """The sign of the Jacobian's determinant, for bijective univariate
        transforms."""
        raise NotImplementedError

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        if type(self).__init__ is Transform.__init__:
            return type(self)(cache_size=cache_size)
        raise NotImplementedError(f"{type(self)}.with_cache is not implemented")

    def __eq__(self, other):
        return self is other

    def __ne__(self, other):
        return not self.__eq__(other)

    def __call__(self, x):
        if self._cache_size == 0:
            return self._call(x)
        x_old, y_old = self._cached_x_y
        if x is x_old:
            return y_old
        y = self._call(x)
        self._cached_x_y = x, y
        return y

    def _inv_call(self, y):
        if self._cache_size == 0:
            return self._inverse(y)
        x_old, y_old = self._cached_x_y
        if y is y_old:
            return x_old
        x = self._inverse(y)
        self._cached_x_y = x, y
        return x

    def _call(self, x):
        raise NotImplementedError

    def _inverse(self, y):
        raise NotImplementedError

    def log_abs_det_jacobian(self, x, y):
        """``log|det dy/dx|`` at ``x`` (with ``y = t(x)``)."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__ + "()"

    def forward_shape(self, shape):
        """The output shape for an input of ``shape``."""
        return shape

    def inverse_shape(self, shape):
        """The input shape for an output of ``shape``."""
        return shape


class _InverseTransform(Transform):
    """The inverse of a transform: calls its ``_inverse`` (never instantiated directly)."""

    def __init__(self, transform):
        super().__init__(cache_size=transform._cache_size)
        self._inv = transform

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._inv.codomain

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._inv.domain

    @property
    def bijective(self):
        return self._inv.bijective

    @property
    def sign(self):
        return self._inv.sign

    @property
    def inv(self):
        return self._inv

    def with_cache(self, cache_size=1):
        return self.inv.with_cache(cache_size).inv

    def __eq__(self, other):
        if not isinstance(other, _InverseTransform):
            return False
        return self._inv == other._inv

    def __repr__(self):
        return f"{self.__class__.__name__}({repr(self._inv)})"

    def __call__(self, x):
        return self._inv._inv_call(x)

    def log_abs_det_jacobian(self, x, y):
        return -self._inv.log_abs_det_jacobian(y, x)

    def forward_shape(self, shape):
        return self._inv.inverse_shape(shape)

    def inverse_shape(self, shape):
        return self._inv.forward_shape(shape)


class ComposeTransform(Transform):
    """Apply ``parts`` one after another (the first one first).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import ComposeTransform, ExpTransform, AffineTransform
    >>> t = ComposeTransform([AffineTransform(0.0, 2.0), ExpTransform()])
    >>> round(t(cygrad.tensor([0.5])).item(), 4)
    2.7183
    """

    def __init__(self, parts, cache_size=0):
        if cache_size:
            parts = [part.with_cache(cache_size) for part in parts]
        super().__init__(cache_size=cache_size)
        self.parts = list(parts)

    def __eq__(self, other):
        if not isinstance(other, ComposeTransform):
            return False
        return self.parts == other.parts

    def _end_event_dim(self, forward):
        """Event dims at the input (``forward=False``) or output (``forward=True``)
        end of the chain: walking from the other end, each part turns its
        ``domain.event_dim`` into its ``codomain.event_dim`` (or back) and needs at
        least its own."""
        parts = self.parts if forward else self.parts[::-1]
        start, end = ("domain", "codomain") if forward else ("codomain", "domain")
        event_dim = getattr(parts[0], start).event_dim
        for part in parts:
            source = getattr(part, start).event_dim
            target = getattr(part, end).event_dim
            event_dim = max(event_dim - source + target, target)
        return event_dim

    def _end_constraint(self, forward):
        if not self.parts:
            return constraints.real
        constraint = self.parts[-1].codomain if forward else self.parts[0].domain
        extra = self._end_event_dim(forward) - constraint.event_dim
        return constraints.independent(constraint, extra) if extra > 0 else constraint

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return self._end_constraint(forward=False)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return self._end_constraint(forward=True)

    @functools.cached_property
    def bijective(self):
        return all(p.bijective for p in self.parts)

    @functools.cached_property
    def sign(self):
        sign = 1
        for p in self.parts:
            sign = sign * p.sign
        return sign

    @property
    def inv(self):
        inv = None
        if self._inv is not None:
            inv = self._inv()
        if inv is None:
            inv = ComposeTransform([p.inv for p in reversed(self.parts)])
            self._inv = weakref.ref(inv)
            inv._inv = weakref.ref(self)
        return inv

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ComposeTransform(self.parts, cache_size=cache_size)

    def __call__(self, x):
        for part in self.parts:
            x = part(x)
        return x

    def log_abs_det_jacobian(self, x, y):
        if not self.parts:
            return cygrad.zeros_like(x)
        # compute intermediates, avoiding a recomputation when a part caches
        xs = [x]
        for part in self.parts[:-1]:
            xs.append(part(xs[-1]))
        xs.append(y)
        terms = []
        event_dim = self.domain.event_dim
        for part, x, y in zip(self.parts, xs[:-1], xs[1:]):
            terms.append(_sum_rightmost(part.log_abs_det_jacobian(x, y),
                                        event_dim - part.domain.event_dim))
            event_dim += part.codomain.event_dim - part.domain.event_dim
        result = terms[0]
        for t in terms[1:]:
            result = result + t
        return result

    def forward_shape(self, shape):
        for part in self.parts:
            shape = part.forward_shape(shape)
        return shape

    def inverse_shape(self, shape):
        for part in reversed(self.parts):
            shape = part.inverse_shape(shape)
        return shape

    def __repr__(self):
        inner = ",\n    ".join(repr(p) for p in self.parts)
        return f"{type(self).__name__}(\n    {inner}\n)"


identity_transform = ComposeTransform([])


class IndependentTransform(Transform):
    """Treat ``reinterpreted_batch_ndims`` batch dims of ``base_transform`` as event
    dims: the log-Jacobian is summed over them.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import IndependentTransform, ExpTransform
    >>> t = IndependentTransform(ExpTransform(), 1)
    >>> x = cygrad.tensor([[1.0, 2.0]])
    >>> t.log_abs_det_jacobian(x, t(x)).tolist()
    [3.0]
    """

    def __init__(self, base_transform, reinterpreted_batch_ndims, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.base_transform = base_transform.with_cache(cache_size)
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return IndependentTransform(self.base_transform, self.reinterpreted_batch_ndims,
                                    cache_size=cache_size)

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        return constraints.independent(self.base_transform.domain,
                                       self.reinterpreted_batch_ndims)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        return constraints.independent(self.base_transform.codomain,
                                       self.reinterpreted_batch_ndims)

    @property
    def bijective(self):
        return self.base_transform.bijective

    @property
    def sign(self):
        return self.base_transform.sign

    def _call(self, x):
        if x.dim() < self.domain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform(x)

    def _inverse(self, y):
        if y.dim() < self.codomain.event_dim:
            raise ValueError("Too few dimensions on input")
        return self.base_transform.inv(y)

    def log_abs_det_jacobian(self, x, y):
        result = self.base_transform.log_abs_det_jacobian(x, y)
        return _sum_rightmost(result, self.reinterpreted_batch_ndims)

    def __repr__(self):
        return (f"{self.__class__.__name__}({repr(self.base_transform)}, "
                f"{self.reinterpreted_batch_ndims})")

    def forward_shape(self, shape):
        return self.base_transform.forward_shape(shape)

    def inverse_shape(self, shape):
        return self.base_transform.inverse_shape(shape)


class ReshapeTransform(Transform):
    """Reshape the rightmost ``in_shape`` into ``out_shape`` (same number of
    elements); the Jacobian is 1.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import ReshapeTransform
    >>> ReshapeTransform((4,), (2, 2))(cygrad.zeros(3, 4)).shape
    cygrad.Size([3, 2, 2])
    """
    bijective = True

    def __init__(self, in_shape, out_shape, cache_size=0):
        self.in_shape = cygrad.Size(in_shape)
        self.out_shape = cygrad.Size(out_shape)
        if self.in_shape.numel() != self.out_shape.numel():
            raise ValueError("in_shape, out_shape have different numbers of elements")
        super().__init__(cache_size=cache_size)

    @constraints.dependent_property
    def domain(self):
        return constraints.independent(constraints.real, len(self.in_shape))

    @constraints.dependent_property
    def codomain(self):
        return constraints.independent(constraints.real, len(self.out_shape))

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return ReshapeTransform(self.in_shape, self.out_shape, cache_size=cache_size)

    def _call(self, x):
        batch_shape = x.shape[:x.dim() - len(self.in_shape)]
        return x.reshape(tuple(batch_shape) + tuple(self.out_shape))

    def _inverse(self, y):
        batch_shape = y.shape[:y.dim() - len(self.out_shape)]
        return y.reshape(tuple(batch_shape) + tuple(self.in_shape))

    def log_abs_det_jacobian(self, x, y):
        batch_shape = x.shape[:x.dim() - len(self.in_shape)]
        return x.new_zeros(batch_shape)

    def forward_shape(self, shape):
        if len(shape) < len(self.in_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.in_shape)
        if tuple(shape[cut:]) != tuple(self.in_shape):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.in_shape}")
        return cygrad.Size(tuple(shape[:cut]) + tuple(self.out_shape))

    def inverse_shape(self, shape):
        if len(shape) < len(self.out_shape):
            raise ValueError("Too few dimensions on input")
        cut = len(shape) - len(self.out_shape)
        if tuple(shape[cut:]) != tuple(self.out_shape):
            raise ValueError(f"Shape mismatch: expected {shape[cut:]} but got {self.out_shape}")
        return cygrad.Size(tuple(shape[:cut]) + tuple(self.in_shape))


class ExpTransform(Transform):
    """``y = exp(x)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import ExpTransform
    >>> ExpTransform().log_abs_det_jacobian(cygrad.tensor([2.0]), None).tolist()
    [2.0]
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, ExpTransform)

    def _call(self, x):
        return x.exp()

    def _inverse(self, y):
        return y.log()

    def log_abs_det_jacobian(self, x, y):
        return x


class PowerTransform(Transform):
    """``y = x ** exponent`` on positive ``x``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import PowerTransform
    >>> PowerTransform(cygrad.tensor(2.0))(cygrad.tensor([3.0])).tolist()
    [9.0]
    """
    domain = constraints.positive
    codomain = constraints.positive
    bijective = True

    def __init__(self, exponent, cache_size=0):
        super().__init__(cache_size=cache_size)
        (self.exponent,) = _broadcast_params(exponent)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return PowerTransform(self.exponent, cache_size=cache_size)

    @functools.cached_property
    def sign(self):
        return self.exponent.sign()

    def __eq__(self, other):
        if not isinstance(other, PowerTransform):
            return False
        return bool(self.exponent.eq(other.exponent).all())

    def _call(self, x):
        return x.pow(self.exponent)

    def _inverse(self, y):
        return y.pow(1 / self.exponent)

    def log_abs_det_jacobian(self, x, y):
        return (self.exponent * y / x).abs().log()

    def forward_shape(self, shape):
        return cygrad.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))

    def inverse_shape(self, shape):
        return cygrad.broadcast_shapes(shape, getattr(self.exponent, "shape", ()))


def _broadcast_params(*values):
    return [v if isinstance(v, cygrad.Tensor) else cygrad.tensor(float(v)) for v in values]


class SigmoidTransform(Transform):
    """``y = 1 / (1 + exp(-x))``, clamped away from 0 and 1 on the way back.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import SigmoidTransform
    >>> SigmoidTransform()(cygrad.tensor([0.0])).tolist()
    [0.5]
    """
    domain = constraints.real
    codomain = constraints.unit_interval
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SigmoidTransform)

    def _call(self, x):
        y = cygrad.sigmoid(x)
        return y.clamp(min=finfo_tiny(y.dtype), max=1.0 - finfo_eps(y.dtype))

    def _inverse(self, y):
        y = y.clamp(min=finfo_tiny(y.dtype), max=1.0 - finfo_eps(y.dtype))
        return y.log() - (-y).log1p()

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x) - _softplus(x)


def _softplus(x):
    """``log(1 + exp(x))`` without overflow."""
    return x.clamp(min=0) + cygrad.log1p(cygrad.exp(-x.abs()))


class SoftplusTransform(Transform):
    """``y = log(1 + exp(x))``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import SoftplusTransform
    >>> round(SoftplusTransform()(cygrad.tensor([0.0])).item(), 4)
    0.6931
    """
    domain = constraints.real
    codomain = constraints.positive
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, SoftplusTransform)

    def _call(self, x):
        return _softplus(x)

    def _inverse(self, y):
        return (-y).expm1().neg().log() + y

    def log_abs_det_jacobian(self, x, y):
        return -_softplus(-x)


class TanhTransform(Transform):
    """``y = tanh(x)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import TanhTransform
    >>> TanhTransform().inv(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    domain = constraints.real
    codomain = constraints.interval(-1.0, 1.0)
    bijective = True
    sign = +1

    def __eq__(self, other):
        return isinstance(other, TanhTransform)

    def _call(self, x):
        return x.tanh()

    def _inverse(self, y):
        # no clamping: NaN/inf at +-1 tell the caller, as PyTorch leaves it
        return y.atanh()

    def log_abs_det_jacobian(self, x, y):
        # log(1 - tanh(x)^2) = 2 (log 2 - x - softplus(-2x)), stable for large |x|
        return 2.0 * (math.log(2.0) - x - _softplus(-2.0 * x))


class AbsTransform(Transform):
    """``y = |x|`` (not bijective: ``inv`` returns the positive root).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import AbsTransform
    >>> AbsTransform()(cygrad.tensor([-2.0])).tolist()
    [2.0]
    """
    domain = constraints.real
    codomain = constraints.positive

    def __eq__(self, other):
        return isinstance(other, AbsTransform)

    def _call(self, x):
        return x.abs()

    def _inverse(self, y):
        return y


class AffineTransform(Transform):
    """``y = loc + scale * x``; ``event_dim`` says how many rightmost dims one event
    has (the log-Jacobian sums over them).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import AffineTransform
    >>> t = AffineTransform(0.0, cygrad.tensor([2.0, 4.0]), event_dim=1)
    >>> round(t.log_abs_det_jacobian(cygrad.zeros(2), None).item(), 4)
    2.0794
    """
    bijective = True

    def __init__(self, loc, scale, event_dim=0, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.loc = loc
        self.scale = scale
        self._event_dim = event_dim

    @property
    def event_dim(self):
        return self._event_dim

    @constraints.dependent_property(is_discrete=False)
    def domain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    @constraints.dependent_property(is_discrete=False)
    def codomain(self):
        if self.event_dim == 0:
            return constraints.real
        return constraints.independent(constraints.real, self.event_dim)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return AffineTransform(self.loc, self.scale, self.event_dim, cache_size=cache_size)

    def __eq__(self, other):
        if not isinstance(other, AffineTransform):
            return False
        for a, b in ((self.loc, other.loc), (self.scale, other.scale)):
            if isinstance(a, numbers.Number) and isinstance(b, numbers.Number):
                if a != b:
                    return False
            elif not bool((cygrad.as_tensor(a) == cygrad.as_tensor(b)).all()):
                return False
        return self.event_dim == other.event_dim

    @property
    def sign(self):
        if isinstance(self.scale, numbers.Real):
            return 1 if float(self.scale) > 0 else -1 if float(self.scale) < 0 else 0
        return self.scale.sign()

    def _call(self, x):
        return self.loc + self.scale * x

    def _inverse(self, y):
        return (y - self.loc) / self.scale

    def log_abs_det_jacobian(self, x, y):
        shape = x.shape
        scale = self.scale
        if isinstance(scale, numbers.Real):
            result = cygrad.full_like(x, math.log(abs(scale)))
        else:
            result = cygrad.abs(scale).log()
        if self.event_dim:
            result_size = tuple(result.shape[:result.dim() - self.event_dim]) + (-1,)
            result = result.reshape(result_size).sum(-1)
            shape = shape[:len(shape) - self.event_dim]
        return result.expand(shape)

    def forward_shape(self, shape):
        return cygrad.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                       getattr(self.scale, "shape", ()))

    def inverse_shape(self, shape):
        return cygrad.broadcast_shapes(shape, getattr(self.loc, "shape", ()),
                                       getattr(self.scale, "shape", ()))


class SoftmaxTransform(Transform):
    """From unconstrained vectors to the simplex by ``exp`` and normalising (not
    bijective: no log-Jacobian).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import SoftmaxTransform
    >>> SoftmaxTransform()(cygrad.zeros(2)).tolist()
    [0.5, 0.5]
    """
    domain = constraints.real_vector
    codomain = constraints.simplex

    def __eq__(self, other):
        return isinstance(other, SoftmaxTransform)

    def _call(self, x):
        logprobs = x
        probs = (logprobs - logprobs.max(-1, True)[0]).exp()
        return probs / probs.sum(-1, True)

    def _inverse(self, y):
        return y.log()

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return shape


class StickBreakingTransform(Transform):
    """From unconstrained vectors of length ``K - 1`` to the ``K``-simplex by stick
    breaking (bijective, with a log-Jacobian).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import StickBreakingTransform
    >>> y = StickBreakingTransform()(cygrad.zeros(2))
    >>> [round(v, 4) for v in y.tolist()]
    [0.3333, 0.3333, 0.3333]
    """
    domain = constraints.real_vector
    codomain = constraints.simplex
    bijective = True

    def __eq__(self, other):
        return isinstance(other, StickBreakingTransform)

    def _call(self, x):
        offset = x.shape[-1] + 1 - cygrad.ones(x.shape[-1], dtype=x.dtype).cumsum(-1)
        z = cygrad.sigmoid(x - offset.log())
        z_cumprod = (1 - z).cumprod(-1)
        pad_one = cygrad.ones(z.shape[:-1] + (1,), dtype=z.dtype)
        return cygrad.cat([z, pad_one], -1) * cygrad.cat([pad_one, z_cumprod], -1)

    def _inverse(self, y):
        y_crop = y[..., :-1]
        offset = y.shape[-1] - cygrad.ones(y_crop.shape[-1], dtype=y.dtype).cumsum(-1)
        sf = 1 - y_crop.cumsum(-1)
        # clamp to the dtype's tiny so the logit stays finite near the boundary
        sf = sf.clamp(min=finfo_tiny(y.dtype))
        x = y_crop.log() - sf.log() + offset.log()
        return x

    def log_abs_det_jacobian(self, x, y):
        offset = x.shape[-1] + 1 - cygrad.ones(x.shape[-1], dtype=x.dtype).cumsum(-1)
        x = x - offset.log()
        # log|det J| = sum(-softplus(x) - softplus(-x) ... ) written with log of y
        detJ = (-x + cygrad.nn.functional.logsigmoid(x) + y[..., :-1].log()).sum(-1)
        return detJ

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return cygrad.Size(tuple(shape[:-1]) + (shape[-1] + 1,))

    def inverse_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        return cygrad.Size(tuple(shape[:-1]) + (shape[-1] - 1,))


class LowerCholeskyTransform(Transform):
    """From square matrices to lower-triangular ones with a positive diagonal: the
    strict lower triangle is kept, the diagonal exponentiated (no log-Jacobian).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import LowerCholeskyTransform
    >>> LowerCholeskyTransform()(cygrad.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.lower_cholesky

    def __eq__(self, other):
        return isinstance(other, LowerCholeskyTransform)

    def _call(self, x):
        eye = cygrad.eye(x.shape[-1], dtype=x.dtype, device=x.device)
        return x.tril(-1) + x.diagonal(dim1=-2, dim2=-1).exp().unsqueeze(-1) * eye

    def _inverse(self, y):
        eye = cygrad.eye(y.shape[-1], dtype=y.dtype, device=y.device)
        return y.tril(-1) + y.diagonal(dim1=-2, dim2=-1).log().unsqueeze(-1) * eye


class PositiveDefiniteTransform(Transform):
    """From square matrices to positive-definite ones: ``L L^T`` of the
    :class:`LowerCholeskyTransform` of ``x``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import PositiveDefiniteTransform
    >>> PositiveDefiniteTransform()(cygrad.zeros(2, 2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    domain = constraints.independent(constraints.real, 2)
    codomain = constraints.positive_definite

    def __eq__(self, other):
        return isinstance(other, PositiveDefiniteTransform)

    def _call(self, x):
        x = LowerCholeskyTransform()(x)
        return x @ x.mT

    def _inverse(self, y):
        y = cholesky(y)
        return LowerCholeskyTransform().inv(y)


class CorrCholeskyTransform(Transform):
    """From unconstrained vectors of length ``D * (D - 1) / 2`` to Cholesky factors
    of ``D x D`` correlation matrices (rows of unit norm), through ``tanh`` and
    stick breaking on each row.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import CorrCholeskyTransform
    >>> CorrCholeskyTransform()(cygrad.zeros(1)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    domain = constraints.real_vector
    codomain = constraints.corr_cholesky
    bijective = True

    def _call(self, x):
        x = cygrad.tanh(x)
        eps = finfo_eps(x.dtype)
        x = x.clamp(min=-1 + eps, max=1 - eps)
        r = vec_to_tril_matrix(x, diag=-1)
        # the diagonal of the stick-breaking remainders: z1m_cumprod_sqrt
        z = r ** 2
        z1m_cumprod_sqrt = (1 - z).sqrt().cumprod(-1)
        eye = cygrad.eye(r.shape[-1], dtype=r.dtype, device=r.device)
        r = r + eye
        pad = cygrad.ones(r.shape[:-1] + (1,), dtype=r.dtype, device=r.device)
        shifted = cygrad.cat([pad, z1m_cumprod_sqrt[..., :-1]], -1)
        return r * shifted

    def _inverse(self, y):
        y_cumsum = 1 - cygrad.cumsum(y * y, dim=-1)
        pad = cygrad.ones(y.shape[:-1] + (1,), dtype=y.dtype, device=y.device)
        y_cumsum_shifted = cygrad.cat([pad, y_cumsum[..., :-1]], -1)
        y_vec = tril_matrix_to_vec(y, diag=-1)
        y_cumsum_vec = tril_matrix_to_vec(y_cumsum_shifted, diag=-1)
        t = y_vec / y_cumsum_vec.sqrt()
        return 0.5 * ((1 + t).log() - (1 - t).log())

    def log_abs_det_jacobian(self, x, y, intermediates=None):
        # the Jacobian of stick breaking is triangular: its log-det is half the sum
        # of log(1 - cumulative squares), plus tanh's
        y1m_cumsum = 1 - (y * y).cumsum(dim=-1)
        y1m_cumsum_tril = tril_matrix_to_vec(y1m_cumsum, diag=-2)
        stick_breaking_logdet = 0.5 * (y1m_cumsum_tril).log().sum(-1)
        tanh_logdet = -2 * (x + _softplus(-2 * x) - math.log(2.0)).sum(dim=-1)
        return stick_breaking_logdet + tanh_logdet

    def forward_shape(self, shape):
        if len(shape) < 1:
            raise ValueError("Too few dimensions on input")
        n = shape[-1]
        d = round((0.25 + 2 * n) ** 0.5 + 0.5)
        if d * (d - 1) // 2 != n:
            raise ValueError("Input is not a flattend lower-diagonal number")
        return cygrad.Size(tuple(shape[:-1]) + (d, d))

    def inverse_shape(self, shape):
        if len(shape) < 2:
            raise ValueError("Too few dimensions on input")
        if shape[-2] != shape[-1]:
            raise ValueError("Input is not square")
        d = shape[-1]
        return cygrad.Size(tuple(shape[:-2]) + (d * (d - 1) // 2,))


class CatTransform(Transform):
    """Apply a sequence of transforms to consecutive slices of ``dim`` of lengths
    ``lengths``, as :class:`constraints.cat` does.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import CatTransform, ExpTransform, AffineTransform
    >>> t = CatTransform([ExpTransform(), AffineTransform(1.0, 2.0)], dim=0, lengths=[1, 1])
    >>> t(cygrad.tensor([0.0, 1.0])).tolist()
    [1.0, 3.0]
    """

    def __init__(self, tseq, dim=0, lengths=None, cache_size=0):
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        if lengths is None:
            lengths = [1] * len(self.transforms)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.transforms):
            raise ValueError("lengths must have as many entries as tseq")
        self.dim = dim

    @functools.cached_property
    def event_dim(self):
        return max(t.event_dim for t in self.transforms)

    @functools.cached_property
    def length(self):
        return sum(self.lengths)

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return CatTransform(self.transforms, self.dim, self.lengths, cache_size)

    def _pieces(self, x):
        start = 0
        for trans, length in zip(self.transforms, self.lengths):
            yield trans, x.narrow(self.dim, start, length)
            start += length

    def _check(self, x):
        if not -x.dim() <= self.dim < x.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-x.dim()}, {x.dim() - 1}], but got {self.dim})")
        if x.size(self.dim) != self.length:
            raise ValueError(f"CatTransform expects a dim of size {self.length}, "
                             f"got {x.size(self.dim)}")

    def _call(self, x):
        self._check(x)
        return cygrad.cat([t(piece) for t, piece in self._pieces(x)], dim=self.dim)

    def _inverse(self, y):
        self._check(y)
        return cygrad.cat([t.inv(piece) for t, piece in self._pieces(y)], dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        self._check(x)
        self._check(y)
        logdetjacs, start = [], 0
        for trans, length in zip(self.transforms, self.lengths):
            xslice = x.narrow(self.dim, start, length)
            yslice = y.narrow(self.dim, start, length)
            logdetjac = trans.log_abs_det_jacobian(xslice, yslice)
            if trans.event_dim < self.event_dim:
                logdetjac = _sum_rightmost(logdetjac, self.event_dim - trans.event_dim)
            logdetjacs.append(logdetjac)
            start += length
        dim = self.dim
        if dim >= 0:
            dim = dim - x.dim()
        dim = dim + self.event_dim
        if dim < 0:
            return cygrad.cat(logdetjacs, dim=dim)
        total = logdetjacs[0]
        for t in logdetjacs[1:]:
            total = total + t
        return total

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.cat([t.domain for t in self.transforms], self.dim, self.lengths)

    @constraints.dependent_property
    def codomain(self):
        return constraints.cat([t.codomain for t in self.transforms], self.dim, self.lengths)


class StackTransform(Transform):
    """Apply a sequence of transforms to the slices of ``dim``, as
    :class:`constraints.stack` does.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.transforms import StackTransform, ExpTransform, AffineTransform
    >>> t = StackTransform([ExpTransform(), AffineTransform(1.0, 2.0)], dim=0)
    >>> t(cygrad.tensor([0.0, 1.0])).tolist()
    [1.0, 3.0]
    """

    def __init__(self, tseq, dim=0, cache_size=0):
        if cache_size:
            tseq = [t.with_cache(cache_size) for t in tseq]
        super().__init__(cache_size=cache_size)
        self.transforms = list(tseq)
        self.dim = dim

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return StackTransform(self.transforms, self.dim, cache_size)

    def _slice(self, z):
        if not -z.dim() <= self.dim < z.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-z.dim()}, {z.dim() - 1}], but got {self.dim})")
        if z.size(self.dim) != len(self.transforms):
            raise ValueError(f"StackTransform expects a dim of size {len(self.transforms)}, "
                             f"got {z.size(self.dim)}")
        return [z.select(self.dim, i) for i in range(z.size(self.dim))]

    def _call(self, x):
        return cygrad.stack([t(s) for s, t in zip(self._slice(x), self.transforms)],
                            dim=self.dim)

    def _inverse(self, y):
        return cygrad.stack([t.inv(s) for s, t in zip(self._slice(y), self.transforms)],
                            dim=self.dim)

    def log_abs_det_jacobian(self, x, y):
        return cygrad.stack([t.log_abs_det_jacobian(xs, ys) for xs, ys, t
                             in zip(self._slice(x), self._slice(y), self.transforms)],
                            dim=self.dim)

    @property
    def bijective(self):
        return all(t.bijective for t in self.transforms)

    @constraints.dependent_property
    def domain(self):
        return constraints.stack([t.domain for t in self.transforms], self.dim)

    @constraints.dependent_property
    def codomain(self):
        return constraints.stack([t.codomain for t in self.transforms], self.dim)


class CumulativeDistributionTransform(Transform):
    """``y = distribution.cdf(x)``: from the distribution's support to ``[0, 1]``;
    the log-Jacobian is the log-density.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Normal
    >>> from cygrad.distributions.transforms import CumulativeDistributionTransform
    >>> CumulativeDistributionTransform(Normal(0.0, 1.0))(cygrad.tensor([0.0])).tolist()
    [0.5]
    """
    bijective = True
    codomain = constraints.unit_interval
    sign = +1

    def __init__(self, distribution, cache_size=0):
        super().__init__(cache_size=cache_size)
        self.distribution = distribution

    @property
    def domain(self):
        return self.distribution.support

    def with_cache(self, cache_size=1):
        if self._cache_size == cache_size:
            return self
        return type(self)(self.distribution, cache_size=cache_size)

    def _call(self, x):
        return self.distribution.cdf(x)

    def _inverse(self, y):
        return self.distribution.icdf(y)

    def log_abs_det_jacobian(self, x, y):
        return self.distribution.log_prob(x)
