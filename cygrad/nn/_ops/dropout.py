"""Dropout ops: ``dropout``, ``dropout1d``, ``dropout2d``, ``dropout3d``, ``alpha_dropout``.

Each is ``input * mask``: the mask holds ``1/(1-p)`` where an element (or a whole
channel) is kept and 0 where it is dropped, drawn from cygrad's random generator
(``bernoulli_``), so ``cygrad.manual_seed`` makes it reproducible.  The product is
an ordinary differentiable multiplication, so the gradient is ``grad * mask``
without a Function of its own.
"""
import warnings

from ...autograd.grad_mode import no_grad
from ...ops.creation import empty

__all__ = ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
           "feature_alpha_dropout"]

# -scale * alpha of SELU: the value a dropped SELU activation is set to.
_SELU_NEG = 1.7580993408473766


def _check_p(p):
    if p < 0.0 or p > 1.0:
        raise ValueError(f"dropout probability has to be between 0 and 1, but got {p}")


def _keep_mask(shape, p, like):
    """``1/(1-p)`` with probability ``1-p``, else 0 (all 0 when ``p == 1``)."""
    with no_grad():
        mask = empty(shape, dtype=like.dtype, device=like.device).bernoulli_(1.0 - p)
        if p < 1.0:
            mask.div_(1.0 - p)
    return mask


def _apply_mask(input, mask, inplace):
    return input.mul_(mask) if inplace else input * mask


def dropout(input, p=0.5, training=True, inplace=False):
    """Zero each element with probability ``p`` and scale the rest by ``1/(1-p)``,
    as ``torch.nn.functional.dropout``; the identity when not ``training``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> _ = cygrad.manual_seed(0)
    >>> sorted(set(F.dropout(cygrad.ones(100), 0.5).tolist()))
    [0.0, 2.0]
    >>> x = cygrad.ones(3)
    >>> F.dropout(x, 0.5, training=False) is x
    True
    """
    _check_p(p)
    if not training or p == 0.0:
        return input
    return _apply_mask(input, _keep_mask(tuple(input.shape), p, input), inplace)


def _channel_dropout(input, p, training, inplace, batched):
    """Drop whole channels: the mask has shape ``(N, C, 1, ...)`` (``(C, 1, ...)``
    unbatched) and broadcasts over the positions."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    keep = 2 if batched else 1
    shape = tuple(input.shape[:keep]) + (1,) * (input.dim() - keep)
    return _apply_mask(input, _keep_mask(shape, p, input), inplace)


def dropout1d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a ``(N, C, L)`` or ``(C, L)`` input, as
    ``torch.nn.functional.dropout1d``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> y = F.dropout1d(cygrad.ones(4, 8, 5), 0.5)
    >>> all(len(set(row)) == 1 for row in y.reshape(32, 5).tolist())
    True
    """
    if input.dim() not in (2, 3):
        raise RuntimeError(
            f"dropout1d: Expected 2D or 3D input, but received a {input.dim()}D input. Note "
            "that dropout1d exists to provide channel-wise dropout on inputs with 1 spatial "
            "dimension, a channel dimension, and an optional batch dimension (i.e. 2D or 3D "
            "inputs).")
    return _channel_dropout(input, p, training, inplace, input.dim() == 3)


def dropout2d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a ``(N, C, H, W)`` or ``(C, H, W)`` input, as
    ``torch.nn.functional.dropout2d``.

    Like PyTorch, every rank is taken as ``(N, C, ...)``: a 3-D input gets
    channel-wise 1-D dropout (with PyTorch's warning), other ranks but 4 a
    deprecation warning.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.dropout2d(cygrad.ones(2, 3, 4, 4), 0.5).shape
    cygrad.Size([2, 3, 4, 4])
    """
    d = input.dim()
    if d not in (3, 4):
        warnings.warn(
            f"dropout2d: Received a {d}-D input to dropout2d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout2d exists to provide "
            "channel-wise dropout on inputs with 2 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 3D or 4D inputs).", stacklevel=2)
    if d == 3:
        warnings.warn(
            "dropout2d: Received a 3D input to dropout2d and assuming that channel-wise 1D "
            "dropout behavior is desired - input is interpreted as shape (N, C, L), where C is "
            "the channel dim. This behavior will change in a future release to interpret the "
            "input as one without a batch dimension, i.e. shape (C, H, W). To maintain the 1D "
            "channel-wise dropout behavior, please switch to using dropout1d instead.",
            stacklevel=2)
    return _channel_dropout(input, p, training, inplace, True)


def dropout3d(input, p=0.5, training=True, inplace=False):
    """Zero whole channels of a ``(N, C, D, H, W)`` or ``(C, D, H, W)`` input, as
    ``torch.nn.functional.dropout3d``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.dropout3d(cygrad.ones(2, 3, 2, 2, 2), 0.5).shape
    cygrad.Size([2, 3, 2, 2, 2])
    """
    d = input.dim()
    if d not in (4, 5):
        warnings.warn(
            f"dropout3d: Received a {d}-D input to dropout3d, which is deprecated and will "
            "result in an error in a future release. To retain the behavior and silence this "
            "warning, please use dropout instead. Note that dropout3d exists to provide "
            "channel-wise dropout on inputs with 3 spatial dimensions, a channel dimension, "
            "and an optional batch dimension (i.e. 4D or 5D inputs).", stacklevel=2)
    return _channel_dropout(input, p, training, inplace, d == 5)


def _alpha(input, p, training, inplace, shape):
    """SELU-preserving dropout: dropped values go to SELU's negative saturation, then
    an affine map ``a * y + b`` restores zero mean and unit variance."""
    _check_p(p)
    if not training or p == 0.0:
        return input
    if p == 1.0:
        return input.mul_(0.0) if inplace else input * 0.0
    with no_grad():
        keep = empty(shape, dtype=input.dtype, device=input.device).bernoulli_(1.0 - p)
        a = ((_SELU_NEG ** 2 * p + 1.0) * (1.0 - p)) ** -0.5
        # y = a * (x * keep - alpha' * (1 - keep)) + a * alpha' * p
        offset = (keep - 1.0) * (_SELU_NEG * a) + _SELU_NEG * a * p
        scale = keep * a
    if inplace:
        return input.mul_(scale).add_(offset)
    return input * scale + offset


def alpha_dropout(input, p=0.5, training=False, inplace=False):
    """Dropout for SELU networks, as ``torch.nn.functional.alpha_dropout``: keeps the
    mean and variance of standardised inputs.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.randn(100000)
    >>> y = F.alpha_dropout(x, 0.2, training=True)
    >>> abs(y.mean().item()) < 0.02, abs(y.std().item() - 1) < 0.02
    (True, True)
    """
    return _alpha(input, p, training, inplace, tuple(input.shape))


def feature_alpha_dropout(input, p=0.5, training=False, inplace=False):
    """``alpha_dropout`` of whole channels of a ``(N, C, ...)`` input, as
    ``torch.nn.functional.feature_alpha_dropout``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.feature_alpha_dropout(cygrad.randn(2, 3, 4), 0.5, training=True).shape
    cygrad.Size([2, 3, 4])
    """
    shape = tuple(input.shape[:2]) + (1,) * (input.dim() - 2)
    return _alpha(input, p, training, inplace, shape)
