"""``LowRankMultivariateNormal(loc, cov_factor, cov_diag)``: a Gaussian whose covariance is
``W W^T + diag(D)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import LowRankMultivariateNormal
>>> d = LowRankMultivariateNormal(cygrad.zeros(3), cygrad.ones(3, 1), cygrad.ones(3))
>>> d.variance.tolist()
[2.0, 2.0, 2.0]
"""
import math

import cygrad
from . import constraints
from .distribution import Distribution
from .multivariate_normal import _batch_mahalanobis, _batch_mv
from .utils import lazy_property, _standard_normal
from ._linalg import cholesky, solve_triangular

__all__ = ["LowRankMultivariateNormal"]


def _diag_embed(v):
    return v.unsqueeze(-1) * cygrad.eye(v.shape[-1], dtype=v.dtype, device=v.device)


def _batch_capacitance_tril(W, D):
    """Cholesky factor of the capacitance matrix ``I + W^T D^-1 W`` (m x m)."""
    m = W.size(-1)
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    K = Wt_Dinv @ W + cygrad.eye(m, dtype=W.dtype, device=W.device)
    return cholesky(K)


def _batch_lowrank_logdet(W, D, capacitance_tril):
    """``log det(W W^T + D)`` by the matrix determinant lemma."""
    return (2 * capacitance_tril.diagonal(dim1=-2, dim2=-1).log().sum(-1)
            + D.log().sum(-1))


def _batch_lowrank_mahalanobis(W, D, x, capacitance_tril):
    """``x^T (W W^T + D)^-1 x`` by the Woodbury identity."""
    Wt_Dinv = W.mT / D.unsqueeze(-2)
    Wt_Dinv_x = _batch_mv(Wt_Dinv, x)
    mahalanobis_term1 = (x.pow(2) / D).sum(-1)
    mahalanobis_term2 = _batch_mahalanobis(capacitance_tril, Wt_Dinv_x)
    return mahalanobis_term1 - mahalanobis_term2


class LowRankMultivariateNormal(Distribution):
    """Multivariate normal with mean ``loc`` and covariance
    ``cov_factor @ cov_factor.mT + diag(cov_diag)``: ``log_prob`` and ``entropy``
    cost ``O(n m^2)`` for a rank-``m`` factor (Woodbury identity and the matrix
    determinant lemma) instead of ``O(n^3)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import LowRankMultivariateNormal
    >>> d = LowRankMultivariateNormal(cygrad.zeros(2), cygrad.zeros(2, 1), cygrad.ones(2))
    >>> round(d.log_prob(cygrad.zeros(2)).item(), 4)
    -1.8379
    """
    arg_constraints = {"loc": constraints.real_vector,
                       "cov_factor": constraints.independent(constraints.real, 2),
                       "cov_diag": constraints.independent(constraints.positive, 1)}
    support = constraints.real_vector
    has_rsample = True

    def __init__(self, loc, cov_factor, cov_diag, validate_args=None):
        if loc.dim() < 1:
            raise ValueError("loc must be at least one-dimensional.")
        event_shape = loc.shape[-1:]
        if cov_factor.dim() < 2:
            raise ValueError("cov_factor must be at least two-dimensional, "
                             "with optional leading batch dimensions")
        if tuple(cov_factor.shape[-2:-1]) != tuple(event_shape):
            raise ValueError(f"cov_factor must be a batch of matrices with shape "
                             f"{event_shape[0]} x m")
        if tuple(cov_diag.shape[-1:]) != tuple(event_shape):
            raise ValueError(f"cov_diag must be a batch of vectors with shape {event_shape}")
        loc_ = loc.unsqueeze(-1)
        cov_diag_ = cov_diag.unsqueeze(-1)
        try:
            shape = cygrad.broadcast_shapes(loc_.shape, cov_factor.shape, cov_diag_.shape)
        except RuntimeError as e:
            raise ValueError(f"Incompatible batch shapes: loc {loc.shape}, cov_factor "
                             f"{cov_factor.shape}, cov_diag {cov_diag.shape}") from e
        self.loc = loc_.expand(tuple(shape[:-1]) + (1,))[..., 0]
        self.cov_factor = cov_factor.expand(shape)
        self.cov_diag = cov_diag_.expand(tuple(shape[:-1]) + (1,))[..., 0]
        batch_shape = self.loc.shape[:-1]
        self._unbroadcasted_cov_factor = cov_factor
        self._unbroadcasted_cov_diag = cov_diag
        self._capacitance_tril = _batch_capacitance_tril(cov_factor, cov_diag)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LowRankMultivariateNormal, _instance)
        batch_shape = cygrad.Size(batch_shape)
        loc_shape = tuple(batch_shape) + tuple(self.event_shape)
        new.loc = self.loc.expand(loc_shape)
        new.cov_diag = self.cov_diag.expand(loc_shape)
        new.cov_factor = self.cov_factor.expand(loc_shape + self.cov_factor.shape[-1:])
        new._unbroadcasted_cov_factor = self._unbroadcasted_cov_factor
        new._unbroadcasted_cov_diag = self._unbroadcasted_cov_diag
        new._capacitance_tril = self._capacitance_tril
        super(LowRankMultivariateNormal, new).__init__(batch_shape, self.event_shape,
                                                       validate_args=False)
        new._validate_args = self._validate_args
        return new

    @property
    def mean(self):
        return self.loc

    @property
    def mode(self):
        return self.loc

    @lazy_property
    def variance(self):
        return (self._unbroadcasted_cov_factor.pow(2).sum(-1)
                + self._unbroadcasted_cov_diag).expand(
            tuple(self._batch_shape) + tuple(self._event_shape))

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape) * 2

    @lazy_property
    def scale_tril(self):
        # L = D^1/2 chol(I + D^-1/2 W W^T D^-1/2), the Cholesky factor of W W^T + D
        n = self._event_shape[0]
        cov_diag_sqrt_unsqueeze = self._unbroadcasted_cov_diag.sqrt().unsqueeze(-1)
        Dinvsqrt_W = self._unbroadcasted_cov_factor / cov_diag_sqrt_unsqueeze
        K = Dinvsqrt_W @ Dinvsqrt_W.mT + cygrad.eye(n, dtype=Dinvsqrt_W.dtype)
        scale_tril = cov_diag_sqrt_unsqueeze * cholesky(K)
        return scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        W = self._unbroadcasted_cov_factor
        covariance_matrix = W @ W.mT + _diag_embed(self._unbroadcasted_cov_diag)
        return covariance_matrix.expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        # Woodbury: (W W^T + D)^-1 = D^-1 - D^-1 W C^-1 W^T D^-1, C = I + W^T D^-1 W
        Wt_Dinv = self._unbroadcasted_cov_factor.mT / self._unbroadcasted_cov_diag.unsqueeze(-2)
        A = solve_triangular(self._capacitance_tril, Wt_Dinv, upper=False)
        precision_matrix = _diag_embed(self._unbroadcasted_cov_diag.reciprocal()) - A.mT @ A
        return precision_matrix.expand(self._matrix_shape())

    def rsample(self, sample_shape=()):
        shape = self._extended_shape(sample_shape)
        W_shape = tuple(shape[:-1]) + tuple(self.cov_factor.shape[-1:])
        eps_W = _standard_normal(W_shape, dtype=self.loc.dtype, device=self.loc.device)
        eps_D = _standard_normal(shape, dtype=self.loc.dtype, device=self.loc.device)
        return (self.loc + _batch_mv(self._unbroadcasted_cov_factor, eps_W)
                + self._unbroadcasted_cov_diag.sqrt() * eps_D)

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diff = value - self.loc
        M = _batch_lowrank_mahalanobis(self._unbroadcasted_cov_factor,
                                       self._unbroadcasted_cov_diag, diff,
                                       self._capacitance_tril)
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                        self._unbroadcasted_cov_diag, self._capacitance_tril)
        return -0.5 * (self._event_shape[0] * math.log(2 * math.pi) + log_det + M)

    def entropy(self):
        log_det = _batch_lowrank_logdet(self._unbroadcasted_cov_factor,
                                        self._unbroadcasted_cov_diag, self._capacitance_tril)
        H = 0.5 * (self._event_shape[0] * (1.0 + math.log(2 * math.pi)) + log_det)
        if len(self._batch_shape) == 0:
            return H
        return H.expand(self._batch_shape)
