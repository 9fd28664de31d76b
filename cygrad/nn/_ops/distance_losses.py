"""Distances and the losses built on them: ``pdist``, ``triplet_margin_with_distance_loss``,
``multilabel_margin_loss``, and ``conv_tbc`` (a convolution in time-batch-channel
layout).

All four are compositions of differentiable ops (indexing, norms, ``relu``,
``conv1d``), so their gradients come from those ops' Functions.
"""
from ...ops.creation import tensor
from ...ops.reduction import cumprod
from .activation import pairwise_distance
from .conv import conv1d
from .loss import _check_reduction, _reduce

__all__ = ["pdist", "triplet_margin_with_distance_loss", "multilabel_margin_loss", "conv_tbc"]


def pdist(input, p=2.0):
    """The ``p``-norm distance between every pair of rows ``i < j`` of an ``(N, M)``
    input, in row-major order of the pairs (``N * (N - 1) / 2`` values), as
    ``torch.nn.functional.pdist``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> [round(v, 4) for v in F.pdist(cygrad.tensor([[0.0, 0.0], [3.0, 4.0], [0.0, 1.0]])).tolist()]
    [5.0, 1.0, 4.2426]
    """
    if input.dim() != 2:
        raise RuntimeError(f"pdist only supports 2D tensors, got: {input.dim()}D")
    if not input.is_floating_point():
        raise RuntimeError("pdist only supports floating-point dtypes")
    if p < 0:
        raise RuntimeError("pdist only supports non-negative p values")
    n = input.size(0)
    rows = [(i, j) for i in range(n) for j in range(i + 1, n)]
    if not rows:
        return input.new_zeros((0,))
    idx = tensor(rows, device=input.device).t()
    diff = input.index_select(0, idx[0]) - input.index_select(0, idx[1])
    return diff.norm(p, dim=1)


def triplet_margin_with_distance_loss(anchor, positive, negative, *, distance_function=None,
                                      margin=1.0, swap=False, reduction="mean"):
    """``max(d(a, p) - d(a, n) + margin, 0)`` with a user distance ``d`` (default
    :func:`pairwise_distance`), as ``torch.nn.functional.triplet_margin_with_distance_loss``;
    ``swap`` uses ``min(d(a, n), d(p, n))`` as the negative distance.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> a, p, n = cygrad.zeros(1, 2), cygrad.tensor([[3.0, 4.0]]), cygrad.tensor([[0.0, 1.0]])
    >>> round(F.triplet_margin_with_distance_loss(a, p, n).item(), 4)
    5.0
    """
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"TripletMarginWithDistanceLoss: expected margin to be greater than 0, "
                         f"got {margin} instead")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    dist = pairwise_distance if distance_function is None else distance_function
    d_pos = dist(anchor, positive)
    d_neg = dist(anchor, negative)
    if swap:
        d_neg = d_neg.minimum(dist(positive, negative))
    return _reduce((d_pos - d_neg + margin).clamp(min=0.0), reduction)


def multilabel_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """Multi-label hinge loss, as ``torch.nn.functional.multilabel_margin_loss``: for
    each sample, ``sum_{j in labels} sum_{i not in labels} max(0, 1 - (x[j] - x[i])) / C``;
    a sample's labels are the entries of its ``target`` row before the first ``-1``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[0.1, 0.2, 0.4, 0.8]])
    >>> y = cygrad.tensor([[3, 0, -1, 1]])
    >>> round(F.multilabel_margin_loss(x, y).item(), 4)
    0.85
    """
    from .loss import _legacy_reduction
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input.dim() > 2 or tuple(target.shape) != tuple(input.shape):
        raise RuntimeError(f"inconsistent target size: {list(target.shape)} for input of size: "
                           f"{list(input.shape)}")
    unbatched = input.dim() <= 1
    x = input.reshape(1, -1) if unbatched else input
    y = target.reshape(1, -1) if unbatched else target
    c = x.size(1)
    if bool(((y < -1) | (y >= c)).any()):
        raise RuntimeError(f"multilabel_margin_loss: target values must be in [-1, {c - 1}]")
    # labels count up to the first -1 of each row
    valid = cumprod((y >= 0).to(x.dtype), 1)
    picked = y.clamp(min=0)
    is_target = x.new_zeros(tuple(x.shape)).scatter_add(1, picked, valid).clamp(max=1.0)
    xy = x.gather(1, picked)
    hinge = (1.0 - xy.unsqueeze(2) + x.unsqueeze(1)).relu()
    loss = (hinge * valid.unsqueeze(2) * (1.0 - is_target).unsqueeze(1)).sum((1, 2)) / c
    if unbatched:
        loss = loss.reshape(())
    return _reduce(loss, reduction)


def conv_tbc(input, weight, bias, pad=0):
    """1-D convolution of a ``(time, batch, in_channels)`` input with a
    ``(kernel, in_channels, out_channels)`` weight, as ``torch.conv_tbc``; the result
    is ``(time', batch, out_channels)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.conv_tbc(cygrad.ones(3, 1, 1), cygrad.ones(2, 1, 1), cygrad.zeros(1)).flatten().tolist()
    [2.0, 2.0]
    """
    if input.dim() != 3:
        raise RuntimeError("Input must have 3 dims: time, batch, in_channel")
    if weight.dim() != 3:
        raise RuntimeError("Weight tensor must have 3 dims: kernel_width, in_channels, "
                           "out_channels.")
    if bias.dim() != 1:
        raise RuntimeError("Bias must be 1-D")
    if input.size(2) != weight.size(1):
        raise RuntimeError("Input dim 2 (input channels) is not == dim 1 in the weight tensor")
    if weight.size(2) != bias.size(0):
        raise RuntimeError("Bias size must equal dim 2 in the weight tensor (output channels).")
    out = conv1d(input.permute(1, 2, 0), weight.permute(2, 1, 0), bias, padding=pad)
    return out.permute(2, 0, 1)
