"""``cygrad.nn.functional``: functional forms of ops, under PyTorch's names.

Each name here is the same function as elsewhere in cygrad (nothing is
reimplemented), so ``import cygrad.nn.functional as F`` ports PyTorch code that
uses these.

Examples
--------
>>> import cygrad
>>> import cygrad.nn.functional as F
>>> F.pad(cygrad.ones(2), (1, 1)).tolist()
[0.0, 1.0, 1.0, 0.0]
"""
from ..ops.elementwise import relu, sigmoid, tanh
from ..ops.linalg import einsum
from ..ops.reduction import softmax, log_softmax
from ..ops.shape import pad

__all__ = ["pad", "relu", "sigmoid", "tanh", "softmax", "log_softmax", "linear", "bilinear"]


def bilinear(input1, input2, weight, bias=None):
    """``y[..., o] = sum_ij input1[..., i] * weight[o, i, j] * input2[..., j] + bias[o]``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> w = cygrad.ones(1, 2, 2)
    >>> F.bilinear(cygrad.tensor([[1.0, 2.0]]), cygrad.tensor([[3.0, 4.0]]), w).tolist()
    [[21.0]]
    """
    if input1.dim() != input2.dim():
        raise RuntimeError(f"bilinear(): input dimensions do not match: got {input1.dim()} and "
                           f"{input2.dim()}")
    for d in range(input1.dim() - 1):
        if input1.size(d) != input2.size(d):
            raise RuntimeError(f"bilinear(): input batch dimensions do not match at dim {d}: "
                               f"got {input1.size(d)} and {input2.size(d)}")
    if input1.size(-1) != weight.size(1):
        raise RuntimeError(f"bilinear(): input1 size does not match weight size: got "
                           f"{input1.size(-1)} but expected {weight.size(1)}")
    if input2.size(-1) != weight.size(2):
        raise RuntimeError(f"bilinear(): input2 size does not match weight size: got "
                           f"{input2.size(-1)} but expected {weight.size(2)}")
    if bias is not None and bias.size(0) != weight.size(0):
        raise RuntimeError(f"bilinear(): bias size does not match weight size: got "
                           f"{bias.size(0)} but expected {weight.size(0)}")
    if input1.dim() == 1:
        # cygrad's einsum rejects "..." covering no dims in two operands of different
        # last sizes; an explicit batch of one avoids that.
        return bilinear(input1.unsqueeze(0), input2.unsqueeze(0), weight, bias).squeeze(0)
    out = einsum("...i,oij,...j->...o", input1, weight, input2)
    return out if bias is None else out + bias

# Activations (nn/_ops/activation.py); relu/softmax/log_softmax gain PyTorch's F signatures.
from ._ops.activation import (relu, relu_, relu6, hardtanh, hardtanh_, leaky_relu,  # noqa: E402,F401
                              leaky_relu_, elu, elu_, selu, selu_, celu, celu_, gelu, silu, mish,
                              softplus, softsign, hardsigmoid, hardswish, threshold, threshold_,
                              logsigmoid, tanhshrink, softshrink, hardshrink, prelu, glu, softmax,
                              log_softmax, softmin, normalize, cosine_similarity,
                              pairwise_distance, one_hot, gumbel_softmax)
from ._ops import activation as _activation  # noqa: E402
__all__ += [n for n in _activation.__all__ if n not in __all__]

# Normalization (nn/_ops/normalization.py)
from ._ops.normalization import batch_norm, layer_norm, group_norm  # noqa: E402,F401
__all__ += ["batch_norm", "layer_norm", "group_norm"]

# Losses (nn/_ops/loss.py).
from ._ops.loss import *  # noqa: E402,F401,F403  (cross_entropy, nll_loss, mse_loss...)
from ._ops import loss as _loss  # noqa: E402
__all__ += _loss.__all__

# Dropout and embeddings (nn/_ops/dropout.py, nn/_ops/sparse.py)
from ._ops.dropout import (dropout, dropout1d, dropout2d, dropout3d, alpha_dropout,  # noqa: E402,F401
                           feature_alpha_dropout)
from ._ops.sparse import embedding  # noqa: E402,F401
__all__ += ["dropout", "dropout1d", "dropout2d", "dropout3d", "alpha_dropout",
            "feature_alpha_dropout", "embedding"]

# Convolution, unfold/fold (nn/_ops/conv.py)
from ._ops.conv import (conv1d, conv2d, conv3d, conv_transpose1d, conv_transpose2d,  # noqa: E402,F401
                        conv_transpose3d, unfold, fold)
__all__ += ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
            "conv_transpose3d", "unfold", "fold"]

# Attention (nn/_ops/attention.py)
from ._ops.attention import scaled_dot_product_attention, multi_head_attention_forward  # noqa: E402,F401
__all__ += ["scaled_dot_product_attention", "multi_head_attention_forward"]

# Pooling (nn/_ops/pooling.py)
from ._ops.pooling import *  # noqa: E402,F401,F403  (max_pool2d, avg_pool2d, adaptive_*...)
from ._ops import pooling as _pooling  # noqa: E402
__all__ += _pooling.__all__

# Resizing (nn/_ops/upsampling.py)
from ._ops.upsampling import interpolate, upsample, upsample_nearest, upsample_bilinear  # noqa: E402,F401
__all__ += ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

# linear as one Function with a hand-written backward (nn/_ops/linear.py)
from ._ops.linear import linear  # noqa: E402,F401,F811

# Channel shuffles, instance/RMS/local response norm, 3-D and Lp pooling, rrelu, distances
# (nn/_ops/shuffle.py, norm_extra.py, pooling_extra.py, rrelu.py, distance_losses.py)
from ._ops.shuffle import *  # noqa: E402,F401,F403
from ._ops.norm_extra import *  # noqa: E402,F401,F403
from ._ops.pooling_extra import *  # noqa: E402,F401,F403
from ._ops.rrelu import *  # noqa: E402,F401,F403
from ._ops.distance_losses import *  # noqa: E402,F401,F403
from ._ops import (shuffle as _shuffle, norm_extra as _norm_extra,  # noqa: E402
                   pooling_extra as _pooling_extra, rrelu as _rrelu,
                   distance_losses as _distance_losses)
__all__ += (_shuffle.__all__ + _norm_extra.__all__ + _pooling_extra.__all__ + _rrelu.__all__
            + _distance_losses.__all__)

# Bags of embeddings (nn/_ops/embedding_bag.py)
from ._ops.embedding_bag import embedding_bag  # noqa: E402,F401
__all__ += ["embedding_bag"]

# Spatial transformers (nn/_ops/grid_sample.py)
from ._ops.grid_sample import affine_grid, grid_sample  # noqa: E402,F401
__all__ += ["affine_grid", "grid_sample"]

# CTC loss (nn/_ops/ctc.py)
from ._ops.ctc import ctc_loss  # noqa: E402,F401
__all__ += ["ctc_loss"]

# cross_entropy of a linear layer's logits (nn/_ops/linear_cross_entropy.py)
from ._ops.linear_cross_entropy import linear_cross_entropy  # noqa: E402,F401
__all__ += ["linear_cross_entropy"]

# Fractional max pooling (nn/_ops/fractional_pool.py)
from ._ops.fractional_pool import *  # noqa: E402,F401,F403
from ._ops import fractional_pool as _fractional_pool  # noqa: E402
__all__ += _fractional_pool.__all__
