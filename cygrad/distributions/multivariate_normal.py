"""``MultivariateNormal(loc, covariance_matrix=None, precision_matrix=None, scale_tril=None)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import MultivariateNormal
>>> d = MultivariateNormal(cygrad.zeros(2), cygrad.eye(2))
>>> round(d.log_prob(cygrad.zeros(2)).item(), 4)
-1.8379
"""
import math

import cygrad
from . import constraints
from .distribution import Distribution
from .utils import lazy_property, _standard_normal
from ._linalg import cholesky, solve_triangular

__all__ = ["MultivariateNormal"]


def _batch_mv(bmat, bvec):
    """Matrix-vector products over broadcast batch dims."""
    return (bmat @ bvec.unsqueeze(-1)).squeeze(-1)


def _batch_mahalanobis(bL, bx):
    """``x^T (L L^T)^-1 x`` over broadcast batch dims: the squared norm of
    ``L^-1 x``."""
    n = bx.size(-1)
    bx = bx.unsqueeze(-1)
    batch = cygrad.broadcast_shapes(bL.shape[:-2], bx.shape[:-2])
    y = solve_triangular(bL.expand(batch + (n, n)), bx.expand(batch + (n, 1)), upper=False)
    return y.squeeze(-1).pow(2).sum(-1)


def _eye(n, like):
    return cygrad.eye(n, dtype=like.dtype, device=like.device)


def _precision_to_scale_tril(P):
    # P = U U^T with U upper (the flipped Cholesky factor of the flipped P); then
    # L = U^-T is lower and L L^T = P^-1
    Lf = cholesky(P.flip(-2).flip(-1))
    L_inv = Lf.flip(-2).flip(-1).mT
    return solve_triangular(L_inv, _eye(P.shape[-1], P), upper=False)


class MultivariateNormal(Distribution):
    """Multivariate normal distribution with mean ``loc`` and a covariance given by
    exactly one of ``covariance_matrix``, ``precision_matrix`` (its inverse) and
    ``scale_tril`` (its lower Cholesky factor, the cheapest to use).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import MultivariateNormal
    >>> cov = cygrad.tensor([[4.0, 2.0], [2.0, 5.0]])
    >>> d = MultivariateNormal(cygrad.zeros(2), covariance_matrix=cov)
    >>> d.scale_tril.tolist()
    [[2.0, 0.0], [1.0, 2.0]]
    >>> d.variance.tolist()
    [4.0, 5.0]
    """
    arg_constraints = {"loc": constraints.real_vector,
                       "covariance_matrix": constraints.positive_definite,
                       "precision_matrix": constraints.positive_definite,
                       "scale_tril": constraints.lower_cholesky}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        if (covariance_matrix is not None) + (scale_tril is not None) \
                + (precision_matrix is not None) != 1:
            raise ValueError("Exactly one of covariance_matrix or precision_matrix or "
                             "scale_tril may be specified.")
        for name, m in (("scale_tril", scale_tril), ("covariance_matrix", covariance_matrix),
                        ("precision_matrix", precision_matrix)):
            if m is not None and m.dim() < 2:
                raise ValueError(f"{name} matrix must be at least two-dimensional, "
                                 f"with optional leading batch dimensions")
        matrix = next(m for m in (scale_tril, covariance_matrix, precision_matrix)
                      if m is not None)
        batch_shape = cygrad.broadcast_shapes(matrix.shape[:-2], loc.shape[:-1])
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = scale_tril.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = covariance_matrix.expand(full)
        else:
            self.precision_matrix = precision_matrix.expand(full)
        self.loc = loc.expand(tuple(batch_shape) + (-1,))
        event_shape = self.loc.shape[-1:]
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(MultivariateNormal, _instance)
        batch_shape = cygrad.Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        cov_shape = loc_shape + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(MultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                validate_args=False)
        new._validate_args = self._validate_args
        return new

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(
            tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape))

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(
            tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape))

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        L_inv = solve_triangular(L, _eye(L.shape[-1], L), upper=False)
        return (L_inv.mT @ L_inv).expand(
            tuple(self._batch_shape) + tuple(self._event_shape) + tuple(self._event_shape))

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @property
    def variance(self):
        return self._unbroadcasted_scale_tril.pow(2).sum(-1).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        eps = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return self.loc + _batch_mv(self._unbroadcasted_scale_tril, eps)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_mahalanobis(self._unbroadcasted_scale_tril, diff)
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + M) - half_log_det

    def entropy(self):
        half_log_det = self._unbroadcasted_scale_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
        H = 0.5 * self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + half_log_det
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
