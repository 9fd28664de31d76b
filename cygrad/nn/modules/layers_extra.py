"""The modules of the functional ops added for issue 18: ``PixelShuffle``,
``PixelUnshuffle``, ``ChannelShuffle``, ``InstanceNorm1d/2d/3d``, ``RMSNorm``,
``LocalResponseNorm``, ``LPPool1d/2d/3d``, ``AdaptiveMaxPool3d``, ``MaxUnpool3d``,
``RReLU``, ``PairwiseDistance``, ``CosineSimilarity``, ``MultiLabelMarginLoss`` and
``TripletMarginWithDistanceLoss``, each as its ``torch.nn`` namesake.
"""
import numbers

from ...ops.creation import empty
from .. import functional as F
from .. import init
from ..parameter import Parameter
from .loss import _Loss
from .module import Module

__all__ = ["PixelShuffle", "PixelUnshuffle", "ChannelShuffle", "InstanceNorm1d",
           "InstanceNorm2d", "InstanceNorm3d", "RMSNorm", "LocalResponseNorm", "LPPool1d",
           "LPPool2d", "LPPool3d", "AdaptiveMaxPool3d", "MaxUnpool3d", "RReLU",
           "PairwiseDistance", "CosineSimilarity", "MultiLabelMarginLoss",
           "TripletMarginWithDistanceLoss"]


class PixelShuffle(Module):
    """``(*, C * r**2, H, W) -> (*, C, H * r, W * r)``, as ``torch.nn.PixelShuffle``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.PixelShuffle(2)(cygrad.ones(1, 8, 3, 3)).shape
    cygrad.Size([1, 2, 6, 6])
    """

    def __init__(self, upscale_factor):
        super().__init__()
        self.upscale_factor = upscale_factor

    def forward(self, input):
        return F.pixel_shuffle(input, self.upscale_factor)

    def extra_repr(self):
        return f"upscale_factor={self.upscale_factor}"


class PixelUnshuffle(Module):
    """``(*, C, H * r, W * r) -> (*, C * r**2, H, W)``, as ``torch.nn.PixelUnshuffle``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.PixelUnshuffle(2)(cygrad.ones(1, 2, 6, 6)).shape
    cygrad.Size([1, 8, 3, 3])
    """

    def __init__(self, downscale_factor):
        super().__init__()
        self.downscale_factor = downscale_factor

    def forward(self, input):
        return F.pixel_unshuffle(input, self.downscale_factor)

    def extra_repr(self):
        return f"downscale_factor={self.downscale_factor}"


class ChannelShuffle(Module):
    """Interleave channels across ``groups``, as ``torch.nn.ChannelShuffle``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.ChannelShuffle(2)(cygrad.arange(4.0).reshape(1, 4, 1)).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """

    def __init__(self, groups):
        super().__init__()
        self.groups = groups

    def forward(self, input):
        return F.channel_shuffle(input, self.groups)

    def extra_repr(self):
        return f"groups={self.groups}"


class _InstanceNorm(Module):
    _ndim = 0

    def __init__(self, num_features, eps=1e-5, momentum=0.1, affine=False,
                 track_running_stats=False, device=None, dtype=None):
        super().__init__()
        self.num_features, self.eps, self.momentum = num_features, eps, momentum
        self.affine, self.track_running_stats = affine, track_running_stats
        if affine:
            self.weight = Parameter(empty((num_features,), device=device, dtype=dtype))
            self.bias = Parameter(empty((num_features,), device=device, dtype=dtype))
            init.ones_(self.weight)
            init.zeros_(self.bias)
        else:
            self.register_parameter("weight", None)
            self.register_parameter("bias", None)
        if track_running_stats:
            self.register_buffer("running_mean", empty((num_features,), device=device,
                                                       dtype=dtype).zero_())
            self.register_buffer("running_var", empty((num_features,), device=device,
                                                      dtype=dtype).fill_(1.0))
        else:
            self.register_buffer("running_mean", None)
            self.register_buffer("running_var", None)

    def forward(self, input):
        n = type(self)._ndim
        if input.dim() not in (n + 1, n + 2):
            raise ValueError(f"expected {n + 1}D or {n + 2}D input (got {input.dim()}D input)")
        unbatched = input.dim() == n + 1
        x = input.unsqueeze(0) if unbatched else input
        out = F.instance_norm(x, self.running_mean, self.running_var, self.weight, self.bias,
                              self.training or not self.track_running_stats, self.momentum,
                              self.eps)
        return out.squeeze(0) if unbatched else out

    def extra_repr(self):
        return (f"{self.num_features}, eps={self.eps}, momentum={self.momentum}, "
                f"affine={self.affine}, track_running_stats={self.track_running_stats}")


class InstanceNorm1d(_InstanceNorm):
    """Instance normalization of ``(N, C, L)`` or ``(C, L)``, as ``torch.nn.InstanceNorm1d``.

    Examples
    --------
    >>> import cygrad
    >>> y = cygrad.nn.InstanceNorm1d(2)(cygrad.randn(3, 2, 5))
    >>> [round(abs(v), 4) for v in y.mean(-1).flatten().tolist()]
    [0.0, 0.0, 0.0, 0.0, 0.0, 0.0]
    """
    _ndim = 1


class InstanceNorm2d(_InstanceNorm):
    """Instance normalization of ``(N, C, H, W)`` or ``(C, H, W)``, as
    ``torch.nn.InstanceNorm2d``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.InstanceNorm2d(2, affine=True)(cygrad.randn(1, 2, 3, 3)).shape
    cygrad.Size([1, 2, 3, 3])
    """
    _ndim = 2


class InstanceNorm3d(_InstanceNorm):
    """Instance normalization of ``(N, C, D, H, W)`` or ``(C, D, H, W)``, as
    ``torch.nn.InstanceNorm3d``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.InstanceNorm3d(2)(cygrad.randn(1, 2, 2, 2, 2)).shape
    cygrad.Size([1, 2, 2, 2, 2])
    """
    _ndim = 3


class RMSNorm(Module):
    """Root-mean-square normalization over the last dims, as ``torch.nn.RMSNorm``.

    Examples
    --------
    >>> import cygrad
    >>> [round(v, 4) for v in cygrad.nn.RMSNorm(2, eps=0.0)(cygrad.tensor([[3.0, 4.0]])).flatten().tolist()]
    [0.8485, 1.1314]
    """

    def __init__(self, normalized_shape, eps=None, elementwise_affine=True, device=None,
                 dtype=None):
        super().__init__()
        if isinstance(normalized_shape, numbers.Integral):
            normalized_shape = (normalized_shape,)
        self.normalized_shape, self.eps = tuple(normalized_shape), eps
        self.elementwise_affine = elementwise_affine
        if elementwise_affine:
            self.weight = Parameter(empty(self.normalized_shape, device=device, dtype=dtype))
            init.ones_(self.weight)
        else:
            self.register_parameter("weight", None)

    def forward(self, x):
        return F.rms_norm(x, self.normalized_shape, self.weight, self.eps)

    def extra_repr(self):
        return (f"{self.normalized_shape}, eps={self.eps}, "
                f"elementwise_affine={self.elementwise_affine}")


class LocalResponseNorm(Module):
    """Normalization across neighbouring channels, as ``torch.nn.LocalResponseNorm``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.LocalResponseNorm(2)(cygrad.ones(1, 3, 2)).shape
    cygrad.Size([1, 3, 2])
    """

    def __init__(self, size, alpha=1e-4, beta=0.75, k=1.0):
        super().__init__()
        self.size, self.alpha, self.beta, self.k = size, alpha, beta, k

    def forward(self, input):
        return F.local_response_norm(input, self.size, self.alpha, self.beta, self.k)

    def extra_repr(self):
        return f"{self.size}, alpha={self.alpha}, beta={self.beta}, k={self.k}"


class _LPPool(Module):
    _fn = None

    def __init__(self, norm_type, kernel_size, stride=None, ceil_mode=False):
        super().__init__()
        self.norm_type, self.kernel_size = norm_type, kernel_size
        self.stride, self.ceil_mode = stride, ceil_mode

    def forward(self, input):
        return type(self)._fn(input, float(self.norm_type), self.kernel_size, self.stride,
                              self.ceil_mode)

    def extra_repr(self):
        return (f"norm_type={self.norm_type}, kernel_size={self.kernel_size}, "
                f"stride={self.stride}, ceil_mode={self.ceil_mode}")


class LPPool1d(_LPPool):
    """Power-average pooling of ``(N, C, L)``, as ``torch.nn.LPPool1d``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.LPPool1d(2, 2)(cygrad.tensor([[3.0, 4.0]])).tolist()
    [[5.0]]
    """
    _fn = staticmethod(F.lp_pool1d)


class LPPool2d(_LPPool):
    """Power-average pooling of ``(N, C, H, W)``, as ``torch.nn.LPPool2d``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.LPPool2d(1, 2)(cygrad.ones(1, 1, 2, 2)).flatten().tolist()
    [4.0]
    """
    _fn = staticmethod(F.lp_pool2d)


class LPPool3d(_LPPool):
    """Power-average pooling of ``(N, C, D, H, W)``, as ``torch.nn.LPPool3d``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.LPPool3d(1, 2)(cygrad.ones(1, 1, 2, 2, 2)).flatten().tolist()
    [8.0]
    """
    _fn = staticmethod(F.lp_pool3d)


class AdaptiveMaxPool3d(Module):
    """Max pooling to a fixed ``(oD, oH, oW)``, as ``torch.nn.AdaptiveMaxPool3d``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.AdaptiveMaxPool3d(1)(cygrad.arange(8.0).reshape(1, 2, 2, 2)).flatten().tolist()
    [7.0]
    """

    def __init__(self, output_size, return_indices=False):
        super().__init__()
        self.output_size, self.return_indices = output_size, return_indices

    def forward(self, input):
        return F.adaptive_max_pool3d(input, self.output_size, self.return_indices)

    def extra_repr(self):
        return f"output_size={self.output_size}"


class MaxUnpool3d(Module):
    """The partial inverse of ``MaxPool3d``, as ``torch.nn.MaxUnpool3d``.

    Examples
    --------
    >>> import cygrad
    >>> v, i = cygrad.nn.functional.max_pool3d(cygrad.ones(1, 1, 2, 2, 2), 2, return_indices=True)
    >>> cygrad.nn.MaxUnpool3d(2)(v, i).sum().item()
    1.0
    """

    def __init__(self, kernel_size, stride=None, padding=0):
        super().__init__()
        self.kernel_size, self.stride, self.padding = kernel_size, stride, padding

    def forward(self, input, indices, output_size=None):
        return F.max_unpool3d(input, indices, self.kernel_size, self.stride, self.padding,
                              output_size)

    def extra_repr(self):
        return f"kernel_size={self.kernel_size}, stride={self.stride}, padding={self.padding}"


class RReLU(Module):
    """Randomized leaky ReLU, as ``torch.nn.RReLU`` (random slopes in training mode).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nn.RReLU(0.5, 0.5)(cygrad.tensor([-2.0, 1.0])).tolist()
    [-1.0, 1.0]
    """

    def __init__(self, lower=1.0 / 8, upper=1.0 / 3, inplace=False):
        super().__init__()
        self.lower, self.upper, self.inplace = lower, upper, inplace

    def forward(self, input):
        return F.rrelu(input, self.lower, self.upper, self.training, self.inplace)

    def extra_repr(self):
        return f"lower={self.lower}, upper={self.upper}" + (", inplace=True" if self.inplace
                                                             else "")


class PairwiseDistance(Module):
    """``||x1 - x2 + eps||_p`` over the last dim, as ``torch.nn.PairwiseDistance``.

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.nn.PairwiseDistance(eps=0.0)(cygrad.zeros(1, 2), cygrad.tensor([[3.0, 4.0]])).item(), 4)
    5.0
    """

    def __init__(self, p=2.0, eps=1e-6, keepdim=False):
        super().__init__()
        self.norm, self.eps, self.keepdim = p, eps, keepdim

    def forward(self, x1, x2):
        return F.pairwise_distance(x1, x2, self.norm, self.eps, self.keepdim)


class CosineSimilarity(Module):
    """Cosine similarity along ``dim``, as ``torch.nn.CosineSimilarity``.

    Examples
    --------
    >>> import cygrad
    >>> [round(v, 4) for v in cygrad.nn.CosineSimilarity()(cygrad.ones(1, 2), cygrad.ones(1, 2)).tolist()]
    [1.0]
    """

    def __init__(self, dim=1, eps=1e-8):
        super().__init__()
        self.dim, self.eps = dim, eps

    def forward(self, x1, x2):
        return F.cosine_similarity(x1, x2, self.dim, self.eps)


class MultiLabelMarginLoss(_Loss):
    """Multi-label hinge loss, as ``torch.nn.MultiLabelMarginLoss``.

    Examples
    --------
    >>> import cygrad
    >>> x, y = cygrad.tensor([[0.1, 0.2, 0.4, 0.8]]), cygrad.tensor([[3, 0, -1, 1]])
    >>> round(cygrad.nn.MultiLabelMarginLoss()(x, y).item(), 4)
    0.85
    """

    def forward(self, input, target):
        return F.multilabel_margin_loss(input, target, reduction=self.reduction)


class TripletMarginWithDistanceLoss(_Loss):
    """Triplet loss with a user distance, as ``torch.nn.TripletMarginWithDistanceLoss``.

    Examples
    --------
    >>> import cygrad
    >>> loss = cygrad.nn.TripletMarginWithDistanceLoss()
    >>> a = cygrad.zeros(1, 2)
    >>> round(loss(a, a, a).item(), 4)
    1.0
    """

    def __init__(self, *, distance_function=None, margin=1.0, swap=False, reduction="mean"):
        super().__init__(reduction=reduction)
        self.distance_function, self.margin, self.swap = distance_function, margin, swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_with_distance_loss(
            anchor, positive, negative, distance_function=self.distance_function,
            margin=self.margin, swap=self.swap, reduction=self.reduction)
