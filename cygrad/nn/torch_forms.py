"""The ``torch.*`` forms of neural-network functions (``torch.conv2d``,
``torch.dropout``, ``torch.layer_norm``, ``torch.kl_div`` ...), as thin wrappers of
:mod:`cygrad.nn.functional`.

PyTorch's top-level forms are its ATen operators, whose signatures differ from the
``F.`` functions in places: losses take ``reduction`` as an int (1 ``"mean"``, 2
``"sum"``, anything else ``"none"``, which is also the default: PyTorch 2.13's
top-level loss forms return the unreduced losses unless told otherwise), dropout takes ``train`` positionally, ``batch_norm`` puts
``weight, bias`` before the running statistics, ``embedding`` takes the weight
first and ``padding_idx=-1`` for none, and the normalisations take a trailing
``cudnn_enabled`` flag (ignored). Where the signatures agree the ``F.`` function is
exported as is.

Examples
--------
>>> import cygrad
>>> x = cygrad.ones(1, 1, 3)
>>> cygrad.conv1d(x, cygrad.ones(1, 1, 2)).tolist()
[[[2.0, 2.0]]]
"""
from . import functional as F

_SAME = ("adaptive_avg_pool1d", "avg_pool1d", "bilinear", "conv1d", "conv2d", "conv3d",
         "conv_transpose1d", "conv_transpose2d", "conv_transpose3d", "cosine_similarity",
         "hardshrink", "pairwise_distance", "prelu", "celu", "celu_", "selu", "selu_",
         "threshold", "threshold_")

__all__ = list(_SAME) + [
    "adaptive_max_pool1d", "dropout", "dropout_", "alpha_dropout", "alpha_dropout_",
    "feature_alpha_dropout", "feature_alpha_dropout_", "batch_norm", "group_norm", "layer_norm",
    "embedding", "max_pool1d", "max_pool2d", "max_pool3d", "max_pool1d_with_indices",
    "binary_cross_entropy_with_logits", "cosine_embedding_loss", "hinge_embedding_loss", "kl_div",
    "margin_ranking_loss", "poisson_nll_loss", "triplet_margin_loss"]

for _name in _SAME:
    globals()[_name] = getattr(F, _name)

def _reduction(reduction):
    # ATen's rule: Mean (1) and Sum (2) reduce, any other value leaves the losses as they are
    return {1: "mean", 2: "sum"}.get(reduction, "none")


def adaptive_max_pool1d(input, output_size):
    """``F.adaptive_max_pool1d(input, output_size, return_indices=True)``: values and
    indices.

    Examples
    --------
    >>> import cygrad
    >>> v, i = cygrad.adaptive_max_pool1d(cygrad.tensor([[[1.0, 3.0, 2.0, 0.0]]]), 2)
    >>> v.tolist(), i.tolist()
    ([[[3.0, 2.0]]], [[[1, 2]]])
    """
    return F.adaptive_max_pool1d(input, output_size, return_indices=True)


def dropout(input, p, train):
    """``F.dropout(input, p, training=train)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.dropout(cygrad.ones(3), 0.5, False).tolist()
    [1.0, 1.0, 1.0]
    """
    return F.dropout(input, p, train)


def dropout_(input, p, train):
    """In-place :func:`dropout`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2)
    >>> cygrad.dropout_(x, 0.0, True) is x
    True
    """
    return F.dropout(input, p, train, inplace=True)


def alpha_dropout(input, p, train):
    """``F.alpha_dropout(input, p, training=train)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.alpha_dropout(cygrad.ones(2), 0.5, False).tolist()
    [1.0, 1.0]
    """
    return F.alpha_dropout(input, p, train)


def alpha_dropout_(input, p, train):
    """In-place :func:`alpha_dropout`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(2)
    >>> cygrad.alpha_dropout_(x, 0.5, False) is x
    True
    """
    return F.alpha_dropout(input, p, train, inplace=True)


def feature_alpha_dropout(input, p, train):
    """``F.feature_alpha_dropout(input, p, training=train)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.feature_alpha_dropout(cygrad.ones(1, 2, 2), 0.5, False).shape
    cygrad.Size([1, 2, 2])
    """
    return F.feature_alpha_dropout(input, p, train)


def feature_alpha_dropout_(input, p, train):
    """In-place :func:`feature_alpha_dropout`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(1, 2, 2)
    >>> cygrad.feature_alpha_dropout_(x, 0.5, False) is x
    True
    """
    return F.feature_alpha_dropout(input, p, train, inplace=True)


def batch_norm(input, weight, bias, running_mean, running_var, training, momentum, eps,
               cudnn_enabled=True):
    """``F.batch_norm`` with ATen's argument order (weight and bias first).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0], [3.0]])
    >>> cygrad.batch_norm(x, None, None, None, None, True, 0.1, 0.0, False).tolist()
    [[-1.0], [1.0]]
    """
    return F.batch_norm(input, running_mean, running_var, weight, bias, training, momentum, eps)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-05, cudnn_enabled=True):
    """``F.group_norm`` (``cudnn_enabled`` is ignored).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.group_norm(cygrad.tensor([[1.0, 3.0]]), 1, eps=0.0).tolist()
    [[-1.0, 1.0]]
    """
    return F.group_norm(input, num_groups, weight, bias, eps)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-05, cudnn_enable=True):
    """``F.layer_norm`` (``cudnn_enable`` is ignored).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.layer_norm(cygrad.tensor([1.0, 3.0]), (2,), eps=0.0).tolist()
    [-1.0, 1.0]
    """
    return F.layer_norm(input, normalized_shape, weight, bias, eps)


def embedding(weight, indices, padding_idx=-1, scale_grad_by_freq=False, sparse=False):
    """``F.embedding(indices, weight, ...)``: ATen's order, and ``padding_idx=-1``
    means no padding row.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.embedding(cygrad.eye(3), cygrad.tensor([2, 0])).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    return F.embedding(indices, weight, None if padding_idx == -1 else padding_idx,
                       scale_grad_by_freq=scale_grad_by_freq, sparse=sparse)


def _pool_stride(stride):
    return None if stride is None or (isinstance(stride, (list, tuple)) and len(stride) == 0) \
        else stride


def max_pool1d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool1d`` (an empty ``stride`` means the kernel size).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool1d(cygrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[3.0, 2.0]]
    """
    return F.max_pool1d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def max_pool1d_with_indices(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """:func:`max_pool1d` returning values and indices.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool1d_with_indices(cygrad.tensor([[1.0, 3.0]]), 2)[1].tolist()
    [[1]]
    """
    return F.max_pool1d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode,
                        return_indices=True)


def max_pool2d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool2d`` (an empty ``stride`` means the kernel size).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool2d(cygrad.arange(4.0).reshape(1, 2, 2), 2).tolist()
    [[[3.0]]]
    """
    return F.max_pool2d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def max_pool3d(input, kernel_size, stride=(), padding=0, dilation=1, ceil_mode=False):
    """``F.max_pool3d`` (an empty ``stride`` means the kernel size).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.max_pool3d(cygrad.arange(8.0).reshape(1, 2, 2, 2), 2).tolist()
    [[[[7.0]]]]
    """
    return F.max_pool3d(input, kernel_size, _pool_stride(stride), padding, dilation, ceil_mode)


def binary_cross_entropy_with_logits(input, target, weight=None, pos_weight=None, reduction=0):
    """``F.binary_cross_entropy_with_logits`` with an int ``reduction``.

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.binary_cross_entropy_with_logits(cygrad.zeros(2), cygrad.ones(2), reduction=1).item(), 4)
    0.6931
    """
    return F.binary_cross_entropy_with_logits(input, target, weight, reduction=_reduction(reduction),
                                              pos_weight=pos_weight)


def cosine_embedding_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.cosine_embedding_loss`` with an int ``reduction``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cosine_embedding_loss(cygrad.ones(1, 2), cygrad.ones(1, 2), cygrad.ones(1)).item()
    0.0
    """
    return F.cosine_embedding_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def hinge_embedding_loss(input, target, margin=1.0, reduction=0):
    """``F.hinge_embedding_loss`` with an int ``reduction``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.hinge_embedding_loss(cygrad.tensor([0.5]), cygrad.tensor([-1.0])).item()
    0.5
    """
    return F.hinge_embedding_loss(input, target, margin, reduction=_reduction(reduction))


def kl_div(input, target, reduction=0, *, log_target=False):
    """ATen's ``kl_div``: the pointwise KL terms, reduced by an int ``reduction``
    (``1``: the mean over all elements, without ``F.kl_div``'s warning).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.kl_div(cygrad.zeros(2), cygrad.ones(2), 1).item()
    0.0
    """
    terms = F.kl_div(input, target, reduction="none", log_target=log_target)
    mode = _reduction(reduction)
    return terms if mode == "none" else (terms.mean() if mode == "mean" else terms.sum())


def margin_ranking_loss(input1, input2, target, margin=0.0, reduction=0):
    """``F.margin_ranking_loss`` with an int ``reduction``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.margin_ranking_loss(cygrad.tensor([1.0]), cygrad.tensor([2.0]), cygrad.tensor([1.0])).item()
    1.0
    """
    return F.margin_ranking_loss(input1, input2, target, margin, reduction=_reduction(reduction))


def poisson_nll_loss(input, target, log_input, full, eps, reduction):
    """``F.poisson_nll_loss`` with every argument positional and an int ``reduction``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.poisson_nll_loss(cygrad.zeros(2), cygrad.zeros(2), True, False, 1e-8, 1).item()
    1.0
    """
    return F.poisson_nll_loss(input, target, log_input, full, eps=eps,
                              reduction=_reduction(reduction))


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2.0, eps=1e-06, swap=False,
                        reduction=0):
    """``F.triplet_margin_loss`` with an int ``reduction``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(1, 2)
    >>> round(cygrad.triplet_margin_loss(x, x, x).item(), 4)
    1.0
    """
    return F.triplet_margin_loss(anchor, positive, negative, margin, p, eps, swap,
                                 reduction=_reduction(reduction))
