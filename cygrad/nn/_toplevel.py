"""The ``torch.`` top-level forms of nn ops (``torch.conv2d``, ``torch.layer_norm``,
``torch.dropout``, ``torch.kl_div``, ``torch.native_layer_norm``, ...).

Each is a thin alias of the ``cygrad.nn.functional`` op with PyTorch's top-level
signature, which often differs from ``F.``'s: losses take ``reduction`` as an int
(0 none, 1 mean, 2 sum), ``dropout`` takes ``(input, p, train)`` with no defaults,
``embedding`` takes the weight first, ``batch_norm`` puts ``weight, bias`` before
the running statistics, pooling's ``stride=()`` means the kernel size, and the
``native_*`` forms return PyTorch's tuples.  Nothing is recomputed here: the
gradients are those of the ``F.`` ops.
"""
from .. import _tensor
from .._core.dtype import bool_
from ..autograd.grad_mode import no_grad
from ..ops.creation import empty, ones
from ..ops.reduction import var_mean
from . import functional as F
from ._ops import rnn as _rnn

__all__ = [
    "conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d", "conv_transpose3d",
    "convolution", "conv_tbc", "layer_norm", "group_norm", "instance_norm", "batch_norm",
    "rms_norm", "embedding", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_",
    "feature_dropout", "feature_dropout_", "feature_alpha_dropout", "feature_alpha_dropout_",
    "celu", "celu_", "selu", "selu_", "rrelu", "rrelu_", "threshold", "threshold_", "prelu",
    "hardshrink", "pixel_shuffle", "pixel_unshuffle", "channel_shuffle",
    "native_channel_shuffle", "pdist", "pairwise_distance", "cosine_similarity", "bilinear",
    "cosine_embedding_loss", "hinge_embedding_loss", "margin_ranking_loss",
    "triplet_margin_loss", "poisson_nll_loss", "kl_div", "binary_cross_entropy_with_logits",
    "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices", "avg_pool1d",
    "adaptive_avg_pool1d", "adaptive_max_pool1d", "constant_pad_nd", "native_layer_norm",
    "native_batch_norm", "native_group_norm", "native_dropout", "lstm_cell",
    "gru_cell", "rnn_tanh_cell", "rnn_relu_cell"]

# the same functions as F's where the signatures agree
conv1d, conv2d, conv3d = F.conv1d, F.conv2d, F.conv3d
conv_transpose1d, conv_transpose2d, conv_transpose3d = (F.conv_transpose1d, F.conv_transpose2d,
                                                        F.conv_transpose3d)
conv_tbc = F.conv_tbc
pixel_shuffle, pixel_unshuffle = F.pixel_shuffle, F.pixel_unshuffle
channel_shuffle, native_channel_shuffle = F.channel_shuffle, F.native_channel_shuffle
pdist, pairwise_distance, cosine_similarity = F.pdist, F.pairwise_distance, F.cosine_similarity
bilinear, prelu, hardshrink = F.bilinear, F.prelu, F.hardshrink
adaptive_avg_pool1d = F.adaptive_avg_pool1d
rms_norm = F.rms_norm
gru_cell, rnn_tanh_cell, rnn_relu_cell = _rnn.gru_cell, _rnn.rnn_tanh_cell, _rnn.rnn_relu_cell

_REDUCTION = {0: "none", 1: "mean", 2: "sum"}
# PyTorch 2.13's Python bindings of these losses give an unreduced result when
# ``reduction`` is left out (the schema says 1, the binding passes 0): the defaults
# below follow the behaviour, which is what ported code relies on.


def _reduction(value):
    """PyTorch's top-level losses take the reduction enum as an int; ATen reduces
    only for 1 (mean) and 2 (sum), and any other int leaves the loss unreduced."""
    if isinstance(value, bool) or not isinstance(value, int):
        raise TypeError(f"reduction must be an int (0 none, 1 mean, 2 sum), "
                        f"not {type(value).__name__}")
    return _REDUCTION.get(value, "none")


def convolution(input, weight, bias, stride, padding, dilation, transposed, output_padding,
                groups):
    """``torch.convolution``: the N-d (transposed) convolution chosen by the weight's rank.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.convolution(cygrad.ones(1, 1, 3), cygrad.ones(1, 1, 2), None, [1], [0], [1],
    ...                    False, [0], 1).tolist()
    [[[2.0, 2.0]]]
    """
    n = weight.dim() - 2
    if n not in (1, 2, 3):
        raise RuntimeError(f"Expected 3D, 4D or 5D weight for convolution, but got "
                           f"{weight.dim()}D weight")
    if transposed:
        fn = (F.conv_transpose1d, F.conv_transpose2d, F.conv_transpose3d)[n - 1]
        return fn(input, weight, bias, stride, padding, output_padding, groups, dilation)
    fn = (F.conv1d, F.conv2d, F.conv3d)[n - 1]
    return fn(input, weight, bias, stride, padding, dilation, groups)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5, cudnn_enable=True):
    """``torch.layer_norm`` (``F.layer_norm`` plus the ignored ``cudnn_enable``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.layer_norm(cygrad.tensor([[1.0, 3.0]]), [2], eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5, cudnn_enabled=True):
    """``torch.group_norm`` (``F.group_norm`` plus the ignored ``cudnn_enabled``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.group_norm(cygrad.tensor([[[1.0], [3.0]]]), 1, eps=0.0).flatten().tolist()
    [-1.0, 1.0]
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled):
    """``torch.batch_norm``: ``F.batch_norm`` with weight and bias first, every argument
    required.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0], [3.0]])
    >>> cygrad.batch_norm(x, None, None, None, None, True, 0.1, 0.0, False).flatten().tolist()
    [-1.0, 1.0]
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def instance_norm(input, weight, bias, running_mean, running_var, use_input_stats, momentum,
                  eps, cudnn_enabled):
    """``torch.instance_norm``: ``F.instance_norm`` with weight and bias first.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[[1.0, 3.0]]])
    >>> cygrad.instance_norm(x, None, None, None, None, True, 0.1, 0.0, False).flatten().tolist()
    [-1.0, 1.0]
    """
    return F.instance_norm(input, running_mean, running_var, weight, bias, use_input_stats,
                           momentum, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``torch.embedding``: the weight first; ``padding_idx=-1`` means none.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.embedding(cygrad.eye(3), cygrad.tensor([2, 0])).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def dropout(input, p, train):
    """``torch.dropout(input, p, train)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.dropout(cygrad.ones(3), 0.5, False).tolist()
    [1.0, 1.0, 1.0]
    """
    return F.dropout(input, p, train)


def dropout_(input, p, train):
    """In-place ``torch.dropout``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(3)
    >>> cygrad.dropout_(x, 1.0, True).tolist()
    [0.0, 0.0, 0.0]
    """
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    """``torch.alpha_dropout(input, p, train)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.alpha_dropout(cygrad.ones(2), 0.5, False).tolist()
    [1.0, 1.0]
    """
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """In-place ``torch.alpha_dropout``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.alpha_dropout_(cygrad.ones(2), 0.5, False).tolist()
    [1.0, 1.0]
    """
    return F.alpha_dropout(input, p, train, inplace=True)


def _feature_shape(input, opname):
    if input.dim() < 2:
        raise RuntimeError(f"{opname}: expected an input with at least 2 dims (N, C, ...), got "
                           f"{input.dim()}")
    return tuple(input.shape[:2]) + (1,) * (input.dim() - 2)


def feature_dropout(input, p, train):
    """``torch.feature_dropout``: dropout of whole channels of ``(N, C, ...)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.feature_dropout(cygrad.ones(1, 2, 2), 0.0, True).tolist()
    [[[1.0, 1.0], [1.0, 1.0]]]
    """
    return feature_dropout_(input, p, train, _inplace=False)


def feature_dropout_(input, p, train, _inplace=True):
    """In-place ``torch.feature_dropout``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(1, 2, 2)
    >>> cygrad.feature_dropout_(x, 1.0, True).tolist()
    [[[0.0, 0.0], [0.0, 0.0]]]
    """
    from ._ops.dropout import _apply_mask, _check_p, _keep_mask
    _check_p(p)
    if not train or p == 0.0:
        return input
    mask = _keep_mask(_feature_shape(input, "feature_dropout"), p, input)
    return _apply_mask(input, mask, _inplace)


def feature_alpha_dropout(input, p, train):
    """``torch.feature_alpha_dropout(input, p, train)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.feature_alpha_dropout(cygrad.ones(1, 2), 0.5, False).tolist()
    [[1.0, 1.0]]
    """
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """In-place ``torch.feature_alpha_dropout``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.feature_alpha_dropout_(cygrad.ones(1, 2), 0.5, False).tolist()
    [[1.0, 1.0]]
    """
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def celu(input, alpha=1.0):
    """``torch.celu``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.celu(cygrad.tensor([1.0])).tolist()
    [1.0]
    """
    return F.celu(input, alpha)


def celu_(input, alpha=1.0):
    """In-place ``torch.celu``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.celu_(cygrad.tensor([1.0])).tolist()
    [1.0]
    """
    return F.celu(input, alpha, inplace=True)


def selu(input):
    """``torch.selu``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.selu(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    return F.selu(input)


def selu_(input):
    """In-place ``torch.selu``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.selu_(cygrad.tensor([0.0])).tolist()
    [0.0]
    """
    return F.selu(input, inplace=True)


def rrelu(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """``torch.rrelu`` (``generator`` must be None: cygrad draws from its default
    generator).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.rrelu(cygrad.tensor([-2.0, 1.0]), 0.5, 0.5).tolist()
    [-1.0, 1.0]
    """
    if generator is not None:
        raise NotImplementedError("rrelu: generator= is not supported; use cygrad.manual_seed")
    return F.rrelu(input, lower, upper, training)


def rrelu_(input, lower=1.0 / 8, upper=1.0 / 3, training=False, generator=None):
    """In-place ``torch.rrelu``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.rrelu_(cygrad.tensor([-2.0, 1.0]), 0.5, 0.5).tolist()
    [-1.0, 1.0]
    """
    if generator is not None:
        raise NotImplementedError("rrelu_: generator= is not supported; use cygrad.manual_seed")
    return F.rrelu_(input, lower, upper, training)


def threshold(input, threshold, value):
    """``torch.threshold``: ``value`` where ``input <= threshold``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.threshold(cygrad.tensor([1.0, 3.0]), 2.0, 0.0).tolist()
    [0.0, 3.0]
    """
    return F.threshold(input, threshold, value)


def threshold_(input, threshold, value):
    """In-place ``torch.threshold``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.threshold_(cygrad.tensor([1.0, 3.0]), 2.0, 0.0).tolist()
    [0.0, 3.0]
    """
    return F.threshold_(input, threshold, value)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.cosine_embedding_loss`` (``reduction`` an int: 0 none, the default, 1 mean, 2 sum).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 0.0]])
    >>> cygrad.cosine_embedding_loss(x, x, cygrad.tensor([1.0]), 0.0, 1).item()
    0.0
    """
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``torch.hinge_embedding_loss`` (``reduction`` an int).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.hinge_embedding_loss(cygrad.tensor([0.5]), cygrad.tensor([-1.0])).tolist()
    [0.5]
    """
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``torch.margin_ranking_loss`` (``reduction`` an int).

    Examples
    --------
    >>> import cygrad
    >>> t = cygrad.tensor
    >>> cygrad.margin_ranking_loss(t([1.0]), t([2.0]), t([1.0]), 0.0, 1).item()
    1.0
    """
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-6, swap=False,
                        reduction=0):
    """``torch.triplet_margin_loss`` (``reduction`` an int).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.zeros(1, 2)
    >>> cygrad.triplet_margin_loss(a, a, a).tolist()
    [1.0]
    """
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``torch.poisson_nll_loss``: every argument required, ``reduction`` an int.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.poisson_nll_loss(cygrad.zeros(2), cygrad.zeros(2), True, False, 1e-8, 1).item()
    1.0
    """
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))


def kl_div(input, target, reduction=0, *, log_target=False):
    """``torch.kl_div`` (``reduction`` an int; 1 is the elementwise mean).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.kl_div(cygrad.zeros(2), cygrad.ones(2), 2).item()
    0.0
    """
    return F.kl_div(input, target, reduction=_reduction(reduction), log_target=log_target)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``torch.binary_cross_entropy_with_logits`` (``reduction`` an int).

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.binary_cross_entropy_with_logits(cygrad.zeros(1), cygrad.ones(1), None, None, 1).item(), 4)
    0.6931
    """
    return F.binary_cross_entropy_with_logits(input, target, weight,
                                              reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def _stride(stride):
    """Top-level pooling's ``stride=()`` (its default) means the kernel size."""
    return None if stride is None or (isinstance(stride, (tuple, list)) and not stride) else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool1d`` (``stride=()``: the kernel size).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool1d(cygrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[3.0, 2.0]]
    """
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1,
                            ceil_mode=False):
    """``torch.max_pool1d_with_indices``: ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool1d_with_indices(cygrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2)[1].tolist()
    [[1, 2]]
    """
    return F.max_pool1d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode, True)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool2d`` (``stride=()``: the kernel size).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool2d(cygrad.arange(4.0).reshape(1, 2, 2), 2).tolist()
    [[[3.0]]]
    """
    return F.max_pool2d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``torch.max_pool3d`` (``stride=()``: the kernel size).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool3d(cygrad.arange(8.0).reshape(1, 2, 2, 2), 2).flatten().tolist()
    [7.0]
    """
    return F.max_pool3d(input, kernel_size, _stride(stride), padding, dilation, ceil_mode)


def avg_pool1d(input, kernel_size, stride=(), padding=0, ceil_mode=False,
               count_include_pad=True):
    """``torch.avg_pool1d`` (``stride=()``: the kernel size).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.avg_pool1d(cygrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[2.0, 1.0]]
    """
    return F.avg_pool1d(input, kernel_size, _stride(stride), padding, ceil_mode,
                        count_include_pad)


def adaptive_max_pool1d(input, output_size):
    """``torch.adaptive_max_pool1d``: always ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.adaptive_max_pool1d(cygrad.tensor([[1.0, 5.0, 2.0, 4.0]]), 2)[1].tolist()
    [[1, 3]]
    """
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def constant_pad_nd(input, pad, value=0):
    """``torch.constant_pad_nd``: ``F.pad`` in constant mode (negative pads crop).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.constant_pad_nd(cygrad.ones(2), [1, 0], 5.0).tolist()
    [5.0, 1.0, 1.0]
    """
    return F.pad(input, tuple(pad), value=value)


def native_layer_norm(input, normalized_shape, weight, bias, eps):
    """``torch.native_layer_norm``: ``(out, mean, rstd)``, the statistics shaped as the
    input with the normalized dims kept as size 1.

    Examples
    --------
    >>> import cygrad
    >>> out, mean, rstd = cygrad.native_layer_norm(cygrad.tensor([[1.0, 3.0]]), [2], None, None, 0.0)
    >>> out.tolist(), mean.tolist(), rstd.tolist()
    ([[-1.0, 1.0]], [[2.0]], [[1.0]])
    """
    out = F.layer_norm(input, normalized_shape, weight, bias, eps)
    k = len(normalized_shape) if not isinstance(normalized_shape, int) else 1
    dims = tuple(range(input.dim() - k, input.dim()))
    with no_grad():
        var, mean = var_mean(input, dims, correction=0, keepdim=True)
        rstd = (var + eps).rsqrt()
    return out, mean, rstd


def native_batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps):
    """``torch.native_batch_norm``: ``(out, save_mean, save_invstd)``; the saved
    statistics are the batch's (per channel) in training and empty otherwise.

    Examples
    --------
    >>> import cygrad
    >>> out, m, s = cygrad.native_batch_norm(cygrad.tensor([[1.0], [3.0]]), None, None, None,
    ...                                      None, True, 0.1, 0.0)
    >>> out.flatten().tolist(), m.tolist(), s.tolist()
    ([-1.0, 1.0], [2.0], [1.0])
    """
    use_batch = training or running_mean is None or running_var is None
    if use_batch:
        dims = (0,) + tuple(range(2, input.dim()))
        with no_grad():
            var, mean = var_mean(input, dims, correction=0)
            invstd = (var + eps).rsqrt()
    out = F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)
    if not use_batch:
        mean = empty((0,), dtype=input.dtype, device=input.device)
        invstd = empty((0,), dtype=input.dtype, device=input.device)
    return out, mean, invstd


def native_group_norm(input, weight, bias, N, C, HxW, group, eps):
    """``torch.native_group_norm``: ``(out, mean, rstd)``, the statistics ``(N, group)``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[[1.0], [3.0]]])
    >>> out, mean, rstd = cygrad.native_group_norm(x, None, None, 1, 2, 1, 1, 0.0)
    >>> out.flatten().tolist(), mean.tolist(), rstd.tolist()
    ([-1.0, 1.0], [[2.0]], [[1.0]])
    """
    if input.numel() != N * C * HxW:
        raise RuntimeError(f"Expected input to have {N * C * HxW} elements, got {input.numel()}")
    out = F.group_norm(input, group, weight, bias, eps)
    with no_grad():
        var, mean = var_mean(input.reshape(N, group, -1), 2, correction=0)
        rstd = (var + eps).rsqrt()
    return out, mean, rstd


def native_dropout(input, p, train):
    """``torch.native_dropout``: ``(out, mask)`` with the boolean keep mask; with
    ``train=False`` the output is a copy and the mask all True.

    Examples
    --------
    >>> import cygrad
    >>> out, mask = cygrad.native_dropout(cygrad.ones(3), 0.5, False)
    >>> out.tolist(), mask.tolist()
    ([1.0, 1.0, 1.0], [True, True, True])
    """
    if train is not None and not train:
        return input.clone(), ones(tuple(input.shape), dtype=bool_,
                                   device=input.device)
    from ._ops.dropout import _check_p, _keep_mask
    _check_p(p)
    scaled = _keep_mask(tuple(input.shape), p, input)
    return input * scaled, scaled != 0


def lstm_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """``torch.lstm_cell``: ``hx`` is the pair ``(h, c)``; returns ``(h', c')``.

    Examples
    --------
    >>> import cygrad
    >>> h, c = cygrad.lstm_cell(cygrad.ones(1, 2), [cygrad.zeros(1, 3), cygrad.zeros(1, 3)],
    ...                         cygrad.zeros(12, 2), cygrad.zeros(12, 3))
    >>> c.tolist()
    [[0.0, 0.0, 0.0]]
    """
    if len(hx) != 2:
        raise RuntimeError(f"lstm_cell expects two hidden states, got {len(hx)}")
    return _rnn.lstm_cell(input, hx[0], hx[1], w_ih, w_hh, b_ih, b_hh)


# Tensor.prelu / Tensor.hardshrink, as PyTorch's methods
_tensor.tensor_method(prelu)
_tensor.tensor_method(hardshrink)


def embedding_bag(weight, indices, offsets, scale_grad_by_freq=False, mode=0, sparse=False,
                  per_sample_weights=None, include_last_offset=False, padding_idx=None):
    """``torch.embedding_bag``: the weight first, ``mode`` as an int (0 sum, 1 mean,
    2 max), 1-D ``indices``; returns ``(output, offset2bag, bag_size, max_indices)``.

    The three index tensors are those PyTorch's CPU kernel returns: ``offset2bag`` is
    the bag of each index; ``bag_size`` is each bag's size without its padding
    entries (zeros for ``sum``); ``max_indices`` is ``bag_size`` again for ``mean``,
    zeros for ``sum``, and for ``max`` the table row each maximum came from.
    (PyTorch's float32 ``sum`` without ``padding_idx`` returns an empty
    ``offset2bag`` instead.)

    Examples
    --------
    >>> import cygrad
    >>> w = cygrad.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
    >>> out, offset2bag, bag_size, _ = cygrad.embedding_bag(w, cygrad.tensor([0, 1, 2]),
    ...                                                     cygrad.tensor([0, 2]), mode=1)
    >>> out.tolist(), offset2bag.tolist(), bag_size.tolist()
    ([[0.5, 1.0], [3.0, 4.0]], [0, 0, 1], [2, 1])
    """
    from ._ops import embedding_bag as _eb
    names = {v: k for k, v in _eb._MODES.items()}
    if mode not in names:
        raise RuntimeError(f"embedding_bag: unknown mode {mode}")
    _eb._check_index_dtype(indices, "indices")
    _eb._check_index_dtype(offsets, "offsets")
    if indices.dim() != 1 or offsets.dim() != 1:
        raise RuntimeError("embedding_bag: indices and offsets have to be 1-D tensors")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported by cygrad")
    if per_sample_weights is not None and names[mode] != "sum":
        raise NotImplementedError("embedding_bag: per_sample_weights is only supported for "
                                  "mode='sum'")
    return _eb._embedding_bag(weight, indices, offsets, scale_grad_by_freq, names[mode],
                              per_sample_weights, include_last_offset,
                              _eb._padding_index(padding_idx, weight.size(0)))


__all__ += ["embedding_bag"]


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction=0,
             zero_infinity=False):
    """``torch.ctc_loss`` (``reduction`` an int; unreduced when left out, as PyTorch's
    binding behaves).

    Examples
    --------
    >>> import cygrad
    >>> lp = cygrad.full((2, 1, 2), 0.5).log()
    >>> [round(v, 4) for v in cygrad.ctc_loss(lp, cygrad.tensor([[1]]), [2], [1]).tolist()]
    [0.2877]
    """
    return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, blank,
                      _reduction(reduction), zero_infinity)


__all__ += ["ctc_loss"]
