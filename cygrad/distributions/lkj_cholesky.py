"""``LKJCholesky(dim, concentration=1.0)``: Cholesky factors of random correlation matrices.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import LKJCholesky
>>> _ = cygrad.manual_seed(0)
>>> L = LKJCholesky(3, 0.5).sample()
>>> [round(v, 6) for v in (L @ L.mT).diagonal().tolist()]
[1.0, 1.0, 1.0]
"""
import math

import cygrad
from . import constraints
from .beta import Beta
from .distribution import Distribution
from .utils import broadcast_all, finfo_tiny
from ._special import lgamma, mvlgamma

__all__ = ["LKJCholesky"]


class LKJCholesky(Distribution):
    """LKJ distribution over the lower Cholesky factors ``L`` of ``dim x dim``
    correlation matrices ``L L^T``: density proportional to
    ``det(L L^T)^(concentration - 1)``.  Sampled by the onion method: row ``i``
    of ``L`` is a uniformly random direction scaled by the square root of a Beta
    sample, the diagonal completing each row to unit norm.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import LKJCholesky
    >>> d = LKJCholesky(2, cygrad.tensor([1.0, 3.0]))
    >>> d.batch_shape, d.event_shape
    (cygrad.Size([2]), cygrad.Size([2, 2]))
    """
    arg_constraints = {"concentration": constraints.positive}
    support = constraints.corr_cholesky

    def __init__(self, dim, concentration=1.0, validate_args=None):
        if dim < 2:
            raise ValueError(f"Expected dim to be an integer greater than or equal to 2. "
                             f"Found dim={dim}.")
        self.dim = dim
        (self.concentration,) = broadcast_all(concentration)
        batch_shape = self.concentration.size()
        event_shape = cygrad.Size((dim, dim))
        # the Beta parameters of the onion method, one per row
        marginal_conc = self.concentration + 0.5 * (self.dim - 2)
        offset = cygrad.arange(self.dim - 1, dtype=self.concentration.dtype,
                               device=self.concentration.device)
        offset = cygrad.cat([offset.new_zeros((1,)), offset])
        beta_conc1 = offset + 0.5
        beta_conc0 = marginal_conc.unsqueeze(-1) - 0.5 * offset
        self._beta = Beta(beta_conc1, beta_conc0)
        super().__init__(batch_shape, event_shape, validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LKJCholesky, _instance)
        batch_shape = cygrad.Size(batch_shape)
        new.dim = self.dim
        new.concentration = self.concentration.expand(batch_shape)
        new._beta = self._beta.expand(tuple(batch_shape) + (self.dim,))
        super(LKJCholesky, new).__init__(batch_shape, self.event_shape, validate_args=False)
        new._validate_args = self._validate_args
        return new

    def sample(self, sample_shape=()):
        with cygrad.no_grad():
            y = self._beta.sample(sample_shape).unsqueeze(-1)
            u_normal = cygrad.randn(self._extended_shape(sample_shape), dtype=y.dtype,
                                    device=y.device).tril(-1)
            norm = u_normal.pow(2).sum(-1, keepdim=True).sqrt()
            # row 0 has no free entries (0 / 0): its direction is 0
            u_hypersphere = cygrad.where(norm > 0, u_normal / cygrad.where(
                norm > 0, norm, cygrad.ones_like(norm)), cygrad.zeros_like(u_normal))
            w = cygrad.sqrt(y) * u_hypersphere
            diag_elems = (1 - (w ** 2).sum(-1)).clamp(min=finfo_tiny(w.dtype)).sqrt()
            eye = cygrad.eye(self.dim, dtype=w.dtype, device=w.device)
            return w + diag_elems.unsqueeze(-1) * eye

    def log_prob(self, value):
        if self._validate_args:
            self._validate_sample(value)
        diag_elems = value.diagonal(dim1=-1, dim2=-2)[..., 1:]
        order = cygrad.arange(2, self.dim + 1, dtype=self.concentration.dtype,
                              device=self.concentration.device)
        order = 2 * (self.concentration - 1).unsqueeze(-1) + self.dim - order
        unnormalized_log_pdf = (order * diag_elems.log()).sum(-1)
        # the normaliser, from the Beta integrals of the onion construction
        dm1 = self.dim - 1
        alpha = self.concentration + 0.5 * dm1
        denominator = lgamma(alpha) * dm1
        numerator = mvlgamma(alpha - 0.5, dm1)
        pi_constant = 0.5 * dm1 * math.log(math.pi)
        normalize_term = pi_constant + numerator - denominator
        return unnormalized_log_pdf - normalize_term
