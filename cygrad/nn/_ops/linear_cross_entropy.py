"""``linear_cross_entropy``: ``cross_entropy(linear(input, W, b), target)`` in one call.

PyTorch's chunked path (``options``) only saves memory; its values are those of the
composition, which is what this computes, so ``options`` is accepted and ignored.
"""
from .linear import linear
from .loss import cross_entropy

__all__ = ["linear_cross_entropy"]


def linear_cross_entropy(input, linear_weight, target, *, linear_bias=None, weight=None,
                         reduction="mean", ignore_index=None, label_smoothing=0.0,
                         options=None):
    """Cross entropy of the logits ``input @ linear_weight^T + linear_bias``, as
    ``torch.nn.functional.linear_cross_entropy``.

    ``input`` is ``(in_features,)`` or ``(N, in_features)``; ``linear_weight`` is
    ``(C, in_features)``, or ``(C, d_1, ..., d_K, in_features)`` for a K-dimensional
    loss (batched input only), giving logits ``(N, C, d_1, ..., d_K)``. ``target``
    holds class indices, or class probabilities when it has the logits' shape
    (``ignore_index`` must then be ``None``; otherwise ``None`` means -100).
    ``weight``, ``reduction`` and ``label_smoothing`` are ``cross_entropy``'s.
    ``options`` (PyTorch's chunking strategy, a memory saving) is ignored.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x, w = cygrad.tensor([[1.0, 0.0]]), cygrad.tensor([[2.0, 0.0], [0.0, 0.0]])
    >>> round(F.linear_cross_entropy(x, w, cygrad.tensor([0])).item(), 4)
    0.1269
    """
    if input.dim() not in (1, 2):
        raise RuntimeError(f"expected input with dimensionality 1 or 2, got {input.dim()}")
    if linear_weight.dim() < 2:
        raise RuntimeError(f"expected linear_weight with dimensionality at least 2, got "
                           f"{linear_weight.dim()}")
    in_features = input.size(-1)
    if in_features != linear_weight.size(-1):
        raise RuntimeError("expected equal input and linear_weight last dimensions "
                           f"(in_features), got {in_features} and {linear_weight.size(-1)}, "
                           "respectively")
    classes = linear_weight.size(0)
    extra = tuple(linear_weight.shape[1:-1])
    if linear_bias is not None and tuple(linear_bias.shape) != (classes,) + extra:
        raise RuntimeError(f"expected linear_bias shape {(classes,) + extra}, got "
                           f"{tuple(linear_bias.shape)}")
    if extra and input.dim() == 1:
        raise RuntimeError(f"K-dimensional loss defined by linear_weight shape "
                           f"{tuple(linear_weight.shape)} requires batched input, "
                           f"(N, {in_features}), got unbatched input with shape "
                           f"{tuple(input.shape)}")
    logits_shape = tuple(input.shape[:-1]) + (classes,) + extra
    if tuple(target.shape) == logits_shape and ignore_index is not None:
        raise RuntimeError("ignore_index cannot be specified when target contains "
                           "probabilities")
    if extra:
        linear_weight = linear_weight.reshape(-1, in_features)
        if linear_bias is not None:
            linear_bias = linear_bias.reshape(-1)
    logits = linear(input, linear_weight, linear_bias).reshape(logits_shape)
    return cross_entropy(logits, target, weight=weight, reduction=reduction,
                         ignore_index=-100 if ignore_index is None else ignore_index,
                         label_smoothing=label_smoothing)
