"""Normalization layers over features: ``LayerNorm``, ``GroupNorm``."""
import numbers

from ...ops.creation import empty
from .. import init
from .._ops.normalization import group_norm, layer_norm
from ..parameter import Parameter
from .module import Module

__all__ = ["LayerNorm", "GroupNorm"]


class LayerNorm(Module):
    """Normalizes over the last ``len(normalized_shape)`` dims, as ``torch.nn.LayerNorm``.

    With ``elementwise_affine`` a ``weight`` (ones) and, unless ``bias=False``, a
    ``bias`` (zeros) of shape ``normalized_shape`` follow the normalization.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> ln = nn.LayerNorm(4)
    >>> y = ln(cygrad.randn(2, 3, 4))
    >>> [round(abs(v), 4) for v in y.mean(-1).reshape(-1).tolist()]
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    >>> ln
    LayerNorm((4,), eps=1e-05, elementwise_affine=True, bias=True)
    """

    def __init__(self, normalized_shape, eps=1e-5, elementwise_affine=True, bias=True,
                 device=None, dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape = tuple(normalized_shape)
        self.eps = eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            if bias:
                self.bias = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            else:
                self.register_parameter("bias", None)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """``weight`` to 1, ``bias`` to 0."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return layer_norm(input, self.normalized_shape, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}, bias={self.bias is not None}")


class GroupNorm(Module):
    """Group normalization, as ``torch.nn.GroupNorm``: ``num_channels`` split into
    ``num_groups`` groups, each normalised over its channels and positions, then a
    per-channel affine map (when ``affine``; ``bias=False`` drops its shift).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> gn = nn.GroupNorm(2, 4)
    >>> gn(cygrad.randn(3, 4, 5)).shape
    cygrad.Size([3, 4, 5])
    >>> nn.GroupNorm(3, 4)
    Traceback (most recent call last):
    ...
    ValueError: num_channels (4) must be divisible by num_groups (3)
    """

    def __init__(self, num_groups, num_channels, eps=1e-5, affine=True, device=None, dtype=None,
                 *, bias=True):
        super().__init__()
        if num_channels % num_groups != 0:
            raise ValueError(f"num_channels ({num_channels}) must be divisible by num_groups "
                             f"({num_groups})")
        self.num_groups = num_groups
        self.num_channels = num_channels
        self.eps = eps
        self.affine = affine
        if affine:
            self.weight = Parameter(empty(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("weight", None)
        if affine and bias:
            self.bias = Parameter(empty(num_channels, device=device, dtype=dtype))
        else:
            self.register_parameter("bias", None)
        self.reset_parameters()

    def reset_parameters(self):
        """``weight`` to 1, ``bias`` to 0."""
        if self.weight is not None:
            init.ones_(self.weight)
        if self.bias is not None:
            init.zeros_(self.bias)

    def forward(self, input):
        return group_norm(input, self.num_groups, self.weight, self.bias, self.eps)

    def extra_repr(self):
        return (f"{self.num_groups}, {self.num_channels}, eps={self.eps}, affine={self.affine}, "
                f"bias={self.bias is not None}")
