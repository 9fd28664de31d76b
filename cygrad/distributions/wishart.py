"""``Wishart(df, covariance_matrix=None, precision_matrix=None, scale_tril=None)``.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import Wishart
>>> Wishart(cygrad.tensor(4.0), cygrad.eye(2)).mean.tolist()
[[4.0, 0.0], [0.0, 4.0]]
"""
import math
import numbers
import warnings

import cygrad
from . import constraints
from .chi2 import Chi2
from .exp_family import ExponentialFamily
from .multivariate_normal import _precision_to_scale_tril
from .utils import lazy_property, finfo_eps
from ._linalg import cholesky, solve_triangular
from ._special import digamma, mvlgamma

__all__ = ["Wishart"]

_LOG_2 = math.log(2)


def _mvdigamma(x, p):
    """Multivariate digamma: ``sum_i digamma(x - i / 2)`` for ``i < p``."""
    offsets = cygrad.arange(p, dtype=x.dtype, device=x.device) / 2
    return digamma(x.unsqueeze(-1) - offsets).sum(-1)


def _logdet_pd(m):
    """``log det`` of positive-definite matrices, from their Cholesky factors."""
    return 2 * cholesky(m).diagonal(dim1=-2, dim2=-1).log().sum(-1)


class Wishart(ExponentialFamily):
    """Wishart distribution over positive-definite ``p x p`` matrices with ``df``
    degrees of freedom (``df > p - 1``) and a scale given by exactly one of
    ``covariance_matrix``, ``precision_matrix`` and ``scale_tril``.  ``rsample``
    is Bartlett's decomposition: ``L A A^T L^T`` with ``A`` lower triangular, the
    square roots of reparameterised chi-squared samples on its diagonal and
    standard normals below it.

    Singular samples (possible only for ``p - 1 < df < p``, where construction
    warns) are redrawn by ``rsample``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import Wishart
    >>> d = Wishart(cygrad.tensor([3.0, 5.0]), scale_tril=cygrad.eye(2))
    >>> d.batch_shape, d.event_shape
    (cygrad.Size([2]), cygrad.Size([2, 2]))
    """
    support = constraints.positive_definite
    has_rsample = True
    _mean_carrier_measure = 0

    @property
    def arg_constraints(self):
        return {"covariance_matrix": constraints.positive_definite,
                "precision_matrix": constraints.positive_definite,
                "scale_tril": constraints.lower_cholesky,
                "df": constraints.greater_than(self.event_shape[-1] - 1)}

    def __init__(self, df, covariance_matrix=None, precision_matrix=None, scale_tril=None,
                 validate_args=None):
        if (covariance_matrix is not None) + (scale_tril is not None) \
                + (precision_matrix is not None) != 1:
            raise AssertionError("Exactly one of covariance_matrix or precision_matrix or "
                                 "scale_tril may be specified.")
        param = next(p for p in (covariance_matrix, precision_matrix, scale_tril)
                     if p is not None)
        if param.dim() < 2:
            raise ValueError("scale_tril must be at least two-dimensional, with optional "
                             "leading batch dimensions")
        if isinstance(df, numbers.Number):
            batch_shape = cygrad.Size(param.shape[:-2])
            self.df = cygrad.tensor(float(df), dtype=param.dtype, device=param.device)
        else:
            batch_shape = cygrad.broadcast_shapes(param.shape[:-2], df.shape)
            self.df = df.expand(batch_shape)
        event_shape = param.shape[-2:]
        p = event_shape[-1]
        if bool(self.df.le(p - 1).any()):
            raise ValueError(f"Value of df={df} expected to be greater than ndim - 1 = {p - 1}.")
        full = tuple(batch_shape) + (-1, -1)
        if scale_tril is not None:
            self.scale_tril = param.expand(full)
        elif covariance_matrix is not None:
            self.covariance_matrix = param.expand(full)
        else:
            self.precision_matrix = param.expand(full)
        if bool(self.df.lt(p).any()):
            warnings.warn("Low df values detected. Singular samples are highly likely to "
                          "occur for ndim - 1 < df < ndim.", stacklevel=2)
        super().__init__(batch_shape, event_shape, validate_args=validate_args)
        if scale_tril is not None:
            self._unbroadcasted_scale_tril = scale_tril
        elif covariance_matrix is not None:
            self._unbroadcasted_scale_tril = cholesky(covariance_matrix)
        else:
            self._unbroadcasted_scale_tril = _precision_to_scale_tril(precision_matrix)
        self._dist_chi2 = self._chi2(batch_shape)

    def _chi2(self, batch_shape):
        # the i-th diagonal entry of Bartlett's factor is sqrt(chi2(df - i))
        p = self._event_shape[-1]
        offsets = cygrad.arange(p, dtype=self._unbroadcasted_scale_tril.dtype,
                                device=self._unbroadcasted_scale_tril.device)
        return Chi2(df=(self.df.unsqueeze(-1) - offsets).expand(tuple(batch_shape) + (p,)))

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(Wishart, _instance)
        batch_shape = cygrad.Size(batch_shape)
        cov_shape = tuple(batch_shape) + tuple(self.event_shape)
        new._unbroadcasted_scale_tril = self._unbroadcasted_scale_tril.expand(cov_shape)
        new.df = self.df.expand(batch_shape)
        for name in ("covariance_matrix", "scale_tril", "precision_matrix"):
            if name in self.__dict__:
                setattr(new, name, self.__dict__[name].expand(cov_shape))
        super(Wishart, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._dist_chi2 = new._chi2(batch_shape)
        new._validate_args = self._validate_args
        return new

    def _matrix_shape(self):
        return tuple(self._batch_shape) + tuple(self._event_shape)

    @lazy_property
    def scale_tril(self):
        return self._unbroadcasted_scale_tril.expand(self._matrix_shape())

    @lazy_property
    def covariance_matrix(self):
        L = self._unbroadcasted_scale_tril
        return (L @ L.mT).expand(self._matrix_shape())

    @lazy_property
    def precision_matrix(self):
        L = self._unbroadcasted_scale_tril
        L_inv = solve_triangular(L, cygrad.eye(L.shape[-1], dtype=L.dtype), upper=False)
        return (L_inv.mT @ L_inv).expand(self._matrix_shape())

    def _df_matrix(self):
        return self.df.reshape(tuple(self._batch_shape) + (1, 1))

    @property
    def mean(self):
        return self._df_matrix() * self.covariance_matrix

    @property
    def mode(self):
        factor = self.df - self.covariance_matrix.shape[-1] - 1
        factor = cygrad.where(factor <= 0, cygrad.full_like(factor, math.nan), factor)
        return factor.reshape(tuple(self._batch_shape) + (1, 1)) * self.covariance_matrix

    @property
    def variance(self):
        V = self.covariance_matrix
        diag_V = V.diagonal(dim1=-2, dim2=-1)
        return self._df_matrix() * (V.pow(2) + diag_V.unsqueeze(-1) * diag_V.unsqueeze(-2))

    def _bartlett_sampling(self, sample_shape):
        p = self._event_shape[-1]
        diag = self._dist_chi2.rsample(sample_shape).sqrt()
        diag = diag.clamp(min=finfo_eps(diag.dtype))
        below = cygrad.randn(tuple(sample_shape) + tuple(self._batch_shape) + (p, p),
                             dtype=diag.dtype, device=diag.device).tril(-1)
        eye = cygrad.eye(p, dtype=diag.dtype, device=diag.device)
        chol = self._unbroadcasted_scale_tril @ (below + diag.unsqueeze(-1) * eye)
        return chol @ chol.mT

    def rsample(self, sample_shape=(), max_try_correction=None):
        """Bartlett samples; a sample that is not positive definite (possible for
        ``p - 1 < df < p``) is drawn again, up to ``max_try_correction`` times
        (default 10), with a warning."""
        if max_try_correction is None:
            max_try_correction = 10
        sample_shape = cygrad.Size(sample_shape)
        sample = self._bartlett_sampling(sample_shape)
        singular = ~self.support.check(sample)
        if bool(singular.any()):
            warnings.warn("Singular sample detected.", stacklevel=2)
            for _ in range(max_try_correction):
                sample = cygrad.where(singular.unsqueeze(-1).unsqueeze(-1),
                                      self._bartlett_sampling(sample_shape), sample)
                singular = ~self.support.check(sample)
                if not bool(singular.any()):
                    break
        return sample

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        # trace(Sigma^-1 X) with Sigma = L L^T: two triangular solves
        a = solve_triangular(L, value, upper=False)
        trace = solve_triangular(L.mT, a, upper=True).diagonal(dim1=-2, dim2=-1).sum(-1)
        return (-nu * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                - mvlgamma(nu / 2, p) + (nu - p - 1) / 2 * _logdet_pd(value) - trace / 2)

    def entropy(self):
        nu = self.df
        p = self._event_shape[-1]
        L = self._unbroadcasted_scale_tril
        return ((p + 1) * (p * _LOG_2 / 2 + L.diagonal(dim1=-2, dim2=-1).log().sum(-1))
                + mvlgamma(nu / 2, p) - (nu - p - 1) / 2 * _mvdigamma(nu / 2, p)
                + nu * p / 2)

    @property
    def _natural_params(self):
        nu = self.df
        p = self._event_shape[-1]
        return -self.precision_matrix / 2, (nu - p - 1) / 2

    def _log_normalizer(self, x, y):
        p = self._event_shape[-1]
        return (y + (p + 1) / 2) * (-_logdet_pd(-2 * x) + _LOG_2 * p) + mvlgamma(
            y + (p + 1) / 2, p)
