"""Loss layers: ``Module`` forms of the losses in ``cygrad.nn.functional``.

As in PyTorch, every loss stores ``reduction``; losses with per-class weights
register ``weight`` (and ``BCEWithLogitsLoss`` also ``pos_weight``) as buffers, so
they follow ``.to()`` and appear in ``state_dict`` when set.
"""
from .. import functional as F
from .._ops.loss import _legacy_reduction
from .module import Module

__all__ = ["L1Loss", "MSELoss", "SmoothL1Loss", "HuberLoss", "CrossEntropyLoss", "NLLLoss",
           "BCELoss", "BCEWithLogitsLoss", "KLDivLoss", "PoissonNLLLoss", "GaussianNLLLoss",
           "CosineEmbeddingLoss", "MarginRankingLoss", "HingeEmbeddingLoss", "SoftMarginLoss",
           "MultiLabelSoftMarginLoss", "MultiMarginLoss", "TripletMarginLoss"]


class _Loss(Module):
    def __init__(self, size_average=None, reduce=None, reduction="mean"):
        super().__init__()
        self.reduction = _legacy_reduction(size_average, reduce, reduction)


class _WeightedLoss(_Loss):
    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)


class L1Loss(_Loss):
    """Mean absolute error; see :func:`cygrad.nn.functional.l1_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.L1Loss()(cygrad.tensor([1.0, 2.0]), cygrad.tensor([0.0, 0.0])).item()
    1.5
    """

    def forward(self, input, target):
        return F.l1_loss(input, target, reduction=self.reduction)


class MSELoss(_Loss):
    """Mean squared error; see :func:`cygrad.nn.functional.mse_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.MSELoss()(cygrad.tensor([1.0, 2.0]), cygrad.tensor([0.0, 0.0])).item()
    2.5
    """

    def forward(self, input, target):
        return F.mse_loss(input, target, reduction=self.reduction)


class SmoothL1Loss(_Loss):
    """Quadratic below ``beta``, linear above; see :func:`cygrad.nn.functional.smooth_l1_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.SmoothL1Loss(beta=2.0)(cygrad.tensor([1.0]), cygrad.tensor([0.0])).item()
    0.25
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", beta=1.0):
        super().__init__(size_average, reduce, reduction)
        self.beta = beta

    def forward(self, input, target):
        return F.smooth_l1_loss(input, target, reduction=self.reduction, beta=self.beta)


class HuberLoss(_Loss):
    """Quadratic below ``delta``, linear above; see :func:`cygrad.nn.functional.huber_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.HuberLoss(delta=0.5)(cygrad.tensor([2.0]), cygrad.tensor([0.0])).item()
    0.875
    """

    def __init__(self, reduction="mean", delta=1.0):
        super().__init__(reduction=reduction)
        self.delta = delta

    def forward(self, input, target):
        return F.huber_loss(input, target, reduction=self.reduction, delta=self.delta)


class NLLLoss(_WeightedLoss):
    """Negative log-likelihood of class indices; see :func:`cygrad.nn.functional.nll_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.NLLLoss()(cygrad.tensor([[-1.0, -2.0]]), cygrad.tensor([1])).item()
    2.0
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index

    def forward(self, input, target):
        return F.nll_loss(input, target, weight=self.weight, ignore_index=self.ignore_index,
                          reduction=self.reduction)


class CrossEntropyLoss(_WeightedLoss):
    """Cross entropy of logits against class indices or probabilities; see
    :func:`cygrad.nn.functional.cross_entropy`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> loss = nn.CrossEntropyLoss(label_smoothing=0.1)
    >>> round(loss(cygrad.zeros(2, 3), cygrad.tensor([0, 2])).item(), 4)
    1.0986
    """

    def __init__(self, weight=None, size_average=None, ignore_index=-100, reduce=None,
                 reduction="mean", label_smoothing=0.0):
        super().__init__(weight, size_average, reduce, reduction)
        self.ignore_index = ignore_index
        self.label_smoothing = label_smoothing

    def forward(self, input, target):
        return F.cross_entropy(input, target, weight=self.weight, ignore_index=self.ignore_index,
                               reduction=self.reduction, label_smoothing=self.label_smoothing)


class BCELoss(_WeightedLoss):
    """Binary cross entropy of probabilities; see
    :func:`cygrad.nn.functional.binary_cross_entropy`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> round(nn.BCELoss()(cygrad.tensor([0.5]), cygrad.tensor([1.0])).item(), 4)
    0.6931
    """

    def forward(self, input, target):
        return F.binary_cross_entropy(input, target, weight=self.weight, reduction=self.reduction)


class BCEWithLogitsLoss(_Loss):
    """Binary cross entropy of logits, computed stably; see
    :func:`cygrad.nn.functional.binary_cross_entropy_with_logits`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> round(nn.BCEWithLogitsLoss()(cygrad.tensor([0.0]), cygrad.tensor([1.0])).item(), 4)
    0.6931
    """

    def __init__(self, weight=None, size_average=None, reduce=None, reduction="mean",
                 pos_weight=None):
        super().__init__(size_average, reduce, reduction)
        self.register_buffer("weight", weight)
        self.register_buffer("pos_weight", pos_weight)

    def forward(self, input, target):
        return F.binary_cross_entropy_with_logits(input, target, self.weight,
                                                  pos_weight=self.pos_weight,
                                                  reduction=self.reduction)


class KLDivLoss(_Loss):
    """KL divergence; see :func:`cygrad.nn.functional.kl_div`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> p = cygrad.tensor([[0.25, 0.75]])
    >>> nn.KLDivLoss(reduction="batchmean")(p.log(), p).item()
    0.0
    """

    def __init__(self, size_average=None, reduce=None, reduction="mean", log_target=False):
        super().__init__(size_average, reduce, reduction)
        self.log_target = log_target

    def forward(self, input, target):
        return F.kl_div(input, target, reduction=self.reduction, log_target=self.log_target)


class PoissonNLLLoss(_Loss):
    """Poisson negative log-likelihood; see :func:`cygrad.nn.functional.poisson_nll_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.PoissonNLLLoss()(cygrad.tensor([0.0]), cygrad.tensor([2.0])).item()
    1.0
    """

    def __init__(self, log_input=True, full=False, size_average=None, eps=1e-8, reduce=None,
                 reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.log_input = log_input
        self.full = full
        self.eps = eps

    def forward(self, log_input, target):
        return F.poisson_nll_loss(log_input, target, log_input=self.log_input, full=self.full,
                                  eps=self.eps, reduction=self.reduction)


class GaussianNLLLoss(_Loss):
    """Gaussian negative log-likelihood; see :func:`cygrad.nn.functional.gaussian_nll_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.GaussianNLLLoss()(cygrad.tensor([1.0]), cygrad.tensor([1.0]), cygrad.tensor([1.0])).item()
    0.0
    """

    def __init__(self, *, full=False, eps=1e-6, reduction="mean"):
        super().__init__(reduction=reduction)
        self.full = full
        self.eps = eps

    def forward(self, input, target, var):
        return F.gaussian_nll_loss(input, target, var, full=self.full, eps=self.eps,
                                   reduction=self.reduction)


class _MarginLoss(_Loss):
    def __init__(self, margin=0.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(size_average, reduce, reduction)
        self.margin = margin


class CosineEmbeddingLoss(_MarginLoss):
    """See :func:`cygrad.nn.functional.cosine_embedding_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> x = cygrad.tensor([[1.0, 0.0]])
    >>> nn.CosineEmbeddingLoss()(x, x, cygrad.tensor([1.0])).item()
    0.0
    """

    def forward(self, input1, input2, target):
        return F.cosine_embedding_loss(input1, input2, target, margin=self.margin,
                                       reduction=self.reduction)


class MarginRankingLoss(_MarginLoss):
    """See :func:`cygrad.nn.functional.margin_ranking_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.MarginRankingLoss(0.5)(cygrad.tensor([2.0]), cygrad.tensor([1.0]), cygrad.tensor([1.0])).item()
    0.0
    """

    def forward(self, input1, input2, target):
        return F.margin_ranking_loss(input1, input2, target, margin=self.margin,
                                     reduction=self.reduction)


class HingeEmbeddingLoss(_MarginLoss):
    """See :func:`cygrad.nn.functional.hinge_embedding_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.HingeEmbeddingLoss()(cygrad.tensor([0.25]), cygrad.tensor([-1.0])).item()
    0.75
    """

    def __init__(self, margin=1.0, size_average=None, reduce=None, reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)

    def forward(self, input, target):
        return F.hinge_embedding_loss(input, target, margin=self.margin, reduction=self.reduction)


class SoftMarginLoss(_Loss):
    """See :func:`cygrad.nn.functional.soft_margin_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> round(nn.SoftMarginLoss()(cygrad.tensor([0.0]), cygrad.tensor([-1.0])).item(), 4)
    0.6931
    """

    def forward(self, input, target):
        return F.soft_margin_loss(input, target, reduction=self.reduction)


class MultiLabelSoftMarginLoss(_WeightedLoss):
    """See :func:`cygrad.nn.functional.multilabel_soft_margin_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> round(nn.MultiLabelSoftMarginLoss()(cygrad.zeros(1, 3), cygrad.ones(1, 3)).item(), 4)
    0.6931
    """

    def forward(self, input, target):
        return F.multilabel_soft_margin_loss(input, target, weight=self.weight,
                                             reduction=self.reduction)


class MultiMarginLoss(_WeightedLoss):
    """Multi-class hinge loss; see :func:`cygrad.nn.functional.multi_margin_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> nn.MultiMarginLoss()(cygrad.tensor([[0.0, 2.0]]), cygrad.tensor([1])).item()
    0.0
    """

    def __init__(self, p=1, margin=1.0, weight=None, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(weight, size_average, reduce, reduction)
        if p not in (1, 2):
            raise ValueError("only p == 1 and p == 2 supported")
        if weight is not None and weight.dim() != 1:
            raise ValueError(f"MultiMarginLoss: expected weight to be None or 1D tensor, got "
                             f"{weight.dim()}D instead")
        self.p = p
        self.margin = margin

    def forward(self, input, target):
        return F.multi_margin_loss(input, target, p=self.p, margin=self.margin,
                                   weight=self.weight, reduction=self.reduction)


class TripletMarginLoss(_MarginLoss):
    """See :func:`cygrad.nn.functional.triplet_margin_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> a = cygrad.zeros(1, 2)
    >>> nn.TripletMarginLoss()(a, a, a + 5).item()
    0.0
    """

    def __init__(self, margin=1.0, p=2.0, eps=1e-6, swap=False, size_average=None, reduce=None,
                 reduction="mean"):
        super().__init__(margin, size_average, reduce, reduction)
        if margin <= 0:
            raise ValueError(f"TripletMarginLoss: expected margin to be greater than 0, got "
                             f"{margin} instead")
        self.p = p
        self.eps = eps
        self.swap = swap

    def forward(self, anchor, positive, negative):
        return F.triplet_margin_loss(anchor, positive, negative, margin=self.margin, p=self.p,
                                     eps=self.eps, swap=self.swap, reduction=self.reduction)


class CTCLoss(_Loss):
    """See :func:`cygrad.nn.functional.ctc_loss`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> lp = cygrad.full((2, 1, 2), 0.5).log()
    >>> round(nn.CTCLoss(reduction="sum")(lp, cygrad.tensor([[1]]), [2], [1]).item(), 4)
    0.2877
    """

    def __init__(self, blank=0, reduction="mean", zero_infinity=False):
        super().__init__(reduction=reduction)
        self.blank = blank
        self.zero_infinity = zero_infinity

    def forward(self, log_probs, targets, input_lengths, target_lengths):
        return F.ctc_loss(log_probs, targets, input_lengths, target_lengths, self.blank,
                          self.reduction, self.zero_infinity)


__all__ += ["CTCLoss"]
