"""Resizing layers: ``Upsample``, ``UpsamplingNearest2d``, ``UpsamplingBilinear2d``."""
from .. import functional as F
from .module import Module

__all__ = ["Upsample", "UpsamplingNearest2d", "UpsamplingBilinear2d"]


class Upsample(Module):
    """Resize by ``scale_factor`` or to ``size`` (``F.interpolate`` as a layer).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> m = nn.Upsample(scale_factor=2, mode="bilinear")
    >>> m(cygrad.ones(1, 1, 2, 2)).shape
    cygrad.Size([1, 1, 4, 4])
    >>> m
    Upsample(scale_factor=2.0, mode='bilinear')
    """

    def __init__(self, size=None, scale_factor=None, mode="nearest", align_corners=None,
                 recompute_scale_factor=None):
        super().__init__()
        self.name = type(self).__name__
        self.size = size
        if isinstance(scale_factor, tuple):
            self.scale_factor = tuple(float(f) for f in scale_factor)
        else:
            self.scale_factor = float(scale_factor) if scale_factor else None
        self.mode = mode
        self.align_corners = align_corners
        self.recompute_scale_factor = recompute_scale_factor

    def forward(self, input):
        return F.interpolate(input, self.size, self.scale_factor, self.mode, self.align_corners,
                             recompute_scale_factor=self.recompute_scale_factor)

    def extra_repr(self):
        if self.scale_factor is not None:
            info = "scale_factor=" + repr(self.scale_factor)
        else:
            info = "size=" + repr(self.size)
        return info + ", mode=" + repr(self.mode)


class UpsamplingNearest2d(Upsample):
    """``Upsample(mode='nearest')`` for 4-D input.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.UpsamplingNearest2d(scale_factor=2)(cygrad.ones(1, 1, 2, 2)).shape
    cygrad.Size([1, 1, 4, 4])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="nearest")


class UpsamplingBilinear2d(Upsample):
    """``Upsample(mode='bilinear', align_corners=True)`` for 4-D input.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.UpsamplingBilinear2d(size=3)(cygrad.ones(1, 1, 2, 2)).shape
    cygrad.Size([1, 1, 3, 3])
    """

    def __init__(self, size=None, scale_factor=None):
        super().__init__(size, scale_factor, mode="bilinear", align_corners=True)
