"""Constraints: what values a distribution's parameters and samples may take
(``torch.distributions.constraints``).

A constraint's ``check(value)`` returns a bool tensor telling, per event, whether
``value`` satisfies it; ``event_dim`` says how many rightmost dims make one event
and ``is_discrete`` whether the space is discrete.  The module-level objects
(``real``, ``positive``, ``simplex``...) are the constraints themselves; the
parametrised ones (``interval(low, high)``, ``greater_than(x)``...) are classes.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import constraints
>>> constraints.positive.check(cygrad.tensor([1.0, -1.0])).tolist()
[True, False]
>>> constraints.interval(0.0, 2.0)
Interval(lower_bound=0.0, upper_bound=2.0)
>>> constraints.simplex.check(cygrad.tensor([0.25, 0.75])).item()
True
"""
import cygrad
from cygrad._core.dispatch import kernel

__all__ = ["Constraint", "boolean", "cat", "corr_cholesky", "dependent",
           "dependent_property", "greater_than", "greater_than_eq", "independent",
           "integer_interval", "interval", "half_open_interval", "is_dependent",
           "less_than", "lower_cholesky", "lower_triangular", "multinomial",
           "nonnegative", "nonnegative_integer", "one_hot", "positive",
           "positive_semidefinite", "positive_definite", "positive_integer", "real",
           "real_vector", "simplex", "square", "stack", "symmetric", "unit_interval"]


class Constraint:
    """Base class of constraints: a region in which a variable is valid.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions.constraints import Constraint
    >>> class Even(Constraint):
    ...     is_discrete = True
    ...     def check(self, value):
    ...         return value % 2 == 0
    >>> Even().check(cygrad.tensor([2, 3])).tolist()
    [True, False]
    """
    is_discrete = False
    event_dim = 0

    def check(self, value):
        """A bool tensor of shape ``sample_shape + batch_shape``: which events are
        in the region."""
        raise NotImplementedError

    def __repr__(self):
        return self.__class__.__name__[1:] + "()"


class _Dependent(Constraint):
    """A constraint that depends on other attributes (a distribution's support
    depending on its parameters): it cannot be checked on its own."""

    def __init__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        self._is_discrete = is_discrete
        self._event_dim = event_dim
        super().__init__()

    @property
    def is_discrete(self):
        if self._is_discrete is NotImplemented:
            raise NotImplementedError(".is_discrete cannot be determined statically")
        return self._is_discrete

    @property
    def event_dim(self):
        if self._event_dim is NotImplemented:
            raise NotImplementedError(".event_dim cannot be determined statically")
        return self._event_dim

    def __call__(self, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        if is_discrete is NotImplemented:
            is_discrete = self._is_discrete
        if event_dim is NotImplemented:
            event_dim = self._event_dim
        return _Dependent(is_discrete=is_discrete, event_dim=event_dim)

    def check(self, x):
        raise ValueError("Cannot determine validity of dependent constraint")


def is_dependent(constraint):
    """Whether ``constraint`` is a dependent one (skipped by argument validation).

    Examples
    --------
    >>> from cygrad.distributions import constraints
    >>> constraints.is_dependent(constraints.dependent), constraints.is_dependent(constraints.real)
    (True, False)
    """
    return isinstance(constraint, _Dependent)


class _DependentProperty(property, _Dependent):
    """A property whose class-level value is a dependent constraint: the support of a
    distribution whose support depends on its parameters."""

    def __init__(self, fn=None, *, is_discrete=NotImplemented, event_dim=NotImplemented):
        property.__init__(self, fn)
        _Dependent.__init__(self, is_discrete=is_discrete, event_dim=event_dim)

    def __call__(self, fn):
        return _DependentProperty(fn, is_discrete=self._is_discrete,
                                  event_dim=self._event_dim)


class _IndependentConstraint(Constraint):
    """Reinterpret ``reinterpreted_batch_ndims`` batch dims of a constraint as event
    dims: an event is valid when all its elements are."""

    def __init__(self, base_constraint, reinterpreted_batch_ndims):
        if not isinstance(base_constraint, Constraint):
            raise TypeError(f"Expected a Constraint, got {type(base_constraint).__name__}")
        if not isinstance(reinterpreted_batch_ndims, int) or reinterpreted_batch_ndims < 0:
            raise ValueError("reinterpreted_batch_ndims must be a non-negative int")
        self.base_constraint = base_constraint
        self.reinterpreted_batch_ndims = reinterpreted_batch_ndims
        super().__init__()

    @property
    def is_discrete(self):
        return self.base_constraint.is_discrete

    @property
    def event_dim(self):
        return self.base_constraint.event_dim + self.reinterpreted_batch_ndims

    def check(self, value):
        result = self.base_constraint.check(value)
        if result.dim() < self.reinterpreted_batch_ndims:
            expected = self.base_constraint.event_dim + self.reinterpreted_batch_ndims
            raise ValueError(f"Expected value.dim() >= {expected} but got {value.dim()}")
        if self.reinterpreted_batch_ndims:
            result = result.reshape(result.shape[:result.dim() - self.reinterpreted_batch_ndims]
                                    + (-1,)).all(-1)
        return result

    def __repr__(self):
        return (f"{self.__class__.__name__[1:]}({self.base_constraint!r}, "
                f"{self.reinterpreted_batch_ndims})")


class _Boolean(Constraint):
    is_discrete = True

    def check(self, value):
        return (value == 0) | (value == 1)


class _OneHot(Constraint):
    is_discrete = True
    event_dim = 1

    def check(self, value):
        is_boolean = (value == 0) | (value == 1)
        return is_boolean.all(-1) & (value.sum(-1) == 1)


class _IntegerInterval(Constraint):
    is_discrete = True

    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _IntegerLessThan(Constraint):
    is_discrete = True

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value <= self.upper_bound)

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _IntegerGreaterThan(Constraint):
    is_discrete = True

    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return (value % 1 == 0) & (value >= self.lower_bound)

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _Real(Constraint):
    def check(self, value):
        return value == value       # False only for NaN


class _GreaterThan(Constraint):
    def __init__(self, lower_bound):
        self.lower_bound = lower_bound
        super().__init__()

    def check(self, value):
        return self.lower_bound < value

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound})"


class _GreaterThanEq(_GreaterThan):
    def check(self, value):
        return self.lower_bound <= value


class _LessThan(Constraint):
    def __init__(self, upper_bound):
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return value < self.upper_bound

    def __repr__(self):
        return f"{self.__class__.__name__[1:]}(upper_bound={self.upper_bound})"


class _Interval(Constraint):
    def __init__(self, lower_bound, upper_bound):
        self.lower_bound = lower_bound
        self.upper_bound = upper_bound
        super().__init__()

    def check(self, value):
        return (self.lower_bound <= value) & (value <= self.upper_bound)

    def __repr__(self):
        return (f"{self.__class__.__name__[1:]}(lower_bound={self.lower_bound}, "
                f"upper_bound={self.upper_bound})")


class _HalfOpenInterval(_Interval):
    def check(self, value):
        return (self.lower_bound <= value) & (value < self.upper_bound)


class _Simplex(Constraint):
    event_dim = 1

    def check(self, value):
        return (value >= 0).all(-1) & ((value.sum(-1) - 1).abs() < 1e-6)


class _Multinomial(Constraint):
    """Nonnegative integer vectors summing to at most ``upper_bound`` (the sum is not
    checked to equal it, as in PyTorch, because of batching)."""
    is_discrete = True
    event_dim = 1

    def __init__(self, upper_bound):
        self.upper_bound = upper_bound

    def check(self, x):
        return (x >= 0).all(-1) & (x.sum(-1) <= self.upper_bound)


class _LowerTriangular(Constraint):
    event_dim = 2

    def check(self, value):
        return (value.tril() == value).reshape(value.shape[:-2] + (-1,)).min(-1)[0]


class _LowerCholesky(Constraint):
    event_dim = 2

    def check(self, value):
        lower = (value.tril() == value).reshape(value.shape[:-2] + (-1,)).min(-1)[0]
        positive_diagonal = (value.diagonal(dim1=-2, dim2=-1) > 0).min(-1)[0]
        return lower & positive_diagonal


class _CorrCholesky(Constraint):
    """Lower Cholesky factors of correlation matrices: rows of unit norm."""
    event_dim = 2

    def check(self, value):
        tol = 2.0 ** -23 * value.shape[-1] * 10 if value.dtype != cygrad.float64 \
            else 2.0 ** -52 * value.shape[-1] * 10
        row_norm = (value.detach() ** 2).sum(-1).sqrt()
        unit_row_norm = ((row_norm - 1.0).abs() <= tol).all(-1)
        return _LowerCholesky().check(value) & unit_row_norm


class _Square(Constraint):
    event_dim = 2

    def check(self, value):
        return cygrad.full(value.shape[:-2], value.shape[-2] == value.shape[-1],
                           dtype=cygrad.bool, device=value.device)


class _Symmetric(_Square):
    def check(self, value):
        square_check = super().check(value)
        if not square_check.all():
            return square_check
        close = (value - value.mT).abs() <= 1e-8 + 1e-5 * value.mT.abs()
        return close.all(-1).all(-1)


def _eigvalsh(value):
    w, _ = kernel("linalg_eigh", value.device.type)(value.detach().contiguous())
    return w


class _PositiveSemidefinite(_Symmetric):
    def check(self, value):
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return _eigvalsh(value).ge(0).all(-1)


class _PositiveDefinite(_Symmetric):
    def check(self, value):
        sym_check = super().check(value)
        if not sym_check.all():
            return sym_check
        return _eigvalsh(value).gt(0).all(-1)


class _Cat(Constraint):
    """Apply a sequence of constraints to consecutive slices of length ``lengths``
    along ``dim`` (as ``cygrad.cat`` joins them)."""

    def __init__(self, cseq, dim=0, lengths=None):
        self.cseq = list(cseq)
        if lengths is None:
            lengths = [1] * len(self.cseq)
        self.lengths = list(lengths)
        if len(self.lengths) != len(self.cseq):
            raise ValueError("lengths must have as many entries as cseq")
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        return max(c.event_dim for c in self.cseq)

    def check(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-value.dim()}, {value.dim() - 1}], but got {self.dim})")
        checks, start = [], 0
        for constr, length in zip(self.cseq, self.lengths):
            checks.append(constr.check(value.narrow(self.dim, start, length)))
            start += length
        return cygrad.cat(checks, self.dim)


class _Stack(Constraint):
    """Apply a sequence of constraints to the slices of ``dim`` (as
    ``cygrad.stack`` joins them)."""

    def __init__(self, cseq, dim=0):
        self.cseq = list(cseq)
        self.dim = dim
        super().__init__()

    @property
    def is_discrete(self):
        return any(c.is_discrete for c in self.cseq)

    @property
    def event_dim(self):
        dim = max(c.event_dim for c in self.cseq)
        if self.dim + dim < 0:
            dim += 1
        return dim

    def check(self, value):
        if not -value.dim() <= self.dim < value.dim():
            raise IndexError(f"Dimension out of range (expected to be in range of "
                             f"[{-value.dim()}, {value.dim() - 1}], but got {self.dim})")
        vs = [value.select(self.dim, i) for i in range(value.size(self.dim))]
        return cygrad.stack([constr.check(v) for v, constr in zip(vs, self.cseq)], self.dim)


dependent = _Dependent()
dependent_property = _DependentProperty
independent = _IndependentConstraint
boolean = _Boolean()
one_hot = _OneHot()
nonnegative_integer = _IntegerGreaterThan(0)
positive_integer = _IntegerGreaterThan(1)
integer_interval = _IntegerInterval
real = _Real()
real_vector = independent(real, 1)
positive = _GreaterThan(0.0)
nonnegative = _GreaterThanEq(0.0)
greater_than = _GreaterThan
greater_than_eq = _GreaterThanEq
less_than = _LessThan
multinomial = _Multinomial
unit_interval = _Interval(0.0, 1.0)
interval = _Interval
half_open_interval = _HalfOpenInterval
simplex = _Simplex()
lower_triangular = _LowerTriangular()
lower_cholesky = _LowerCholesky()
corr_cholesky = _CorrCholesky()
square = _Square()
symmetric = _Symmetric()
positive_semidefinite = _PositiveSemidefinite()
positive_definite = _PositiveDefinite()
cat = _Cat
stack = _Stack
