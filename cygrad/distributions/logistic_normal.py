"""``LogisticNormal(loc, scale)``: a normal vector mapped onto the simplex by stick breaking.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions import LogisticNormal
>>> LogisticNormal(cygrad.zeros(2), cygrad.ones(2)).event_shape
cygrad.Size([3])
"""
from . import constraints
from .normal import Normal
from .transformed_distribution import TransformedDistribution
from .transforms import StickBreakingTransform

__all__ = ["LogisticNormal"]


class LogisticNormal(TransformedDistribution):
    """Distribution on the ``K``-simplex: ``StickBreakingTransform`` of a normal
    vector of length ``K - 1`` with mean ``loc`` and scale ``scale``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.distributions import LogisticNormal
    >>> _ = cygrad.manual_seed(0)
    >>> round(LogisticNormal(cygrad.zeros(2), 1.0).sample().sum().item(), 6)
    1.0
    """
    arg_constraints = {"loc": constraints.real, "scale": constraints.positive}
    support = constraints.simplex
    has_rsample = True

    def __init__(self, loc, scale, validate_args=None):
        base_dist = Normal(loc, scale, validate_args=validate_args)
        if not base_dist.batch_shape:
            base_dist = base_dist.expand([1])
        super().__init__(base_dist, StickBreakingTransform(), validate_args=validate_args)

    def expand(self, batch_shape, _instance=None):
        new = self._get_checked_instance(LogisticNormal, _instance)
        return super().expand(batch_shape, _instance=new)

    @property
    def loc(self):
        return self.base_dist.base_dist.loc

    @property
    def scale(self):
        return self.base_dist.base_dist.scale
