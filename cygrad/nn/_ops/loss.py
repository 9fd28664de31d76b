"""Loss functions with PyTorch's ``torch.nn.functional`` signatures and semantics.

``cross_entropy`` with class indices is one fused ``Function`` (``CrossEntropy``):
forward takes ``log_softmax`` once and picks the target entries; backward is
``(softmax - onehot) * scale`` (the general form with class weights and label
smoothing is ``softmax * rowsum(T) - T`` for the target weights ``T``), i.e. one
``exp`` of the saved log-probabilities and one scatter.  ``nll_loss`` shares its
target handling (``_ClassTarget``).  Pointwise losses whose fused form is more
stable or cheaper (BCE, BCE-with-logits, smooth L1, Huber) are Functions too; the
rest are short compositions of differentiable ops.

Every loss takes ``reduction`` in ``'none' | 'mean' | 'sum'`` (KL divergence also
``'batchmean'``).  The deprecated ``size_average``/``reduce`` arguments are accepted
and mapped as PyTorch maps them.
"""
import warnings

from ..._core import dtype as _dt
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ...autograd.function import Function
from ...ops import reduction as _red
from ...ops.indexing import where
from ...ops.shape import broadcast_tensors
from . import activation as _act
from ._fused import fused_kernel

__all__ = ["cross_entropy", "nll_loss", "mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss",
           "binary_cross_entropy", "binary_cross_entropy_with_logits", "kl_div",
           "cosine_embedding_loss", "margin_ranking_loss", "triplet_margin_loss",
           "soft_margin_loss", "multi_margin_loss", "poisson_nll_loss", "hinge_embedding_loss",
           "multilabel_soft_margin_loss", "gaussian_nll_loss"]

_REDUCTIONS = ("none", "mean", "sum")


def _legacy_reduction(size_average, reduce, reduction):
    """PyTorch's mapping of the deprecated ``size_average``/``reduce`` pair."""
    if size_average is None and reduce is None:
        return reduction
    warnings.warn("size_average and reduce args will be deprecated, please use "
                  "reduction='none' instead." if reduce is False else
                  "size_average and reduce args will be deprecated, please use "
                  f"reduction='{'mean' if size_average in (None, True) else 'sum'}' instead.",
                  UserWarning, stacklevel=3)
    size_average = True if size_average is None else size_average
    reduce = True if reduce is None else reduce
    if not reduce:
        return "none"
    return "mean" if size_average else "sum"


def _check_reduction(reduction, allowed=_REDUCTIONS):
    if reduction not in allowed:
        raise ValueError(f"{reduction} is not a valid value for reduction")


def _reduce(loss, reduction):
    if reduction == "mean":
        return loss.mean()
    if reduction == "sum":
        return loss.sum()
    return loss


def _reduce_back(g, reduction, shape, denom):
    """The gradient of each element of an unreduced loss of ``shape``."""
    if reduction == "none":
        return g
    return (g / denom if reduction == "mean" else g).expand(shape)


def _size_str(t):
    return f"torch.Size({list(t.shape)})"


def _warn_size_mismatch(input, target):
    if tuple(input.shape) != tuple(target.shape):
        warnings.warn(f"Using a target size ({_size_str(target)}) that is different to the input "
                      f"size ({_size_str(input)}). This will likely lead to incorrect results due "
                      f"to broadcasting. Please ensure they have the same size.",
                      UserWarning, stacklevel=3)
        return broadcast_tensors(input, target)
    return input, target


# ---------------------------------------------------------------------------
# class-index targets: nll_loss and cross_entropy
# ---------------------------------------------------------------------------
_ROW_STARTS = {}


def _row_starts(n, c, device):
    """``arange(n) * c`` (int64), kept for the last few shapes: a training loop asks
    for the same one every step, and building it costs more than the loss."""
    key = (n, c, str(device))
    starts = _ROW_STARTS.get(key)
    if starts is None:
        from ...ops.creation import arange
        if len(_ROW_STARTS) >= 8:
            _ROW_STARTS.pop(next(iter(_ROW_STARTS)))
        starts = _ROW_STARTS[key] = arange(n, device=device) * c
    return starts


def _log_softmax_dim1(x):
    """``x - max - log(sum(exp(x - max)))`` over dim 1, the stable formula, as a few
    tensor ops (cheaper than the general ``log_softmax`` on small batches)."""
    z = x - x.amax(1, keepdim=True)
    return z - z.exp().sum(1, keepdim=True).log()


class _ClassTarget:
    """The target side of an NLL-type loss, prepared once in ``forward``.

    ``index``: target with a class dim of size 1 (ignored entries point at class 0,
    so that gather/scatter stay in bounds); ``wt``: each element's weight
    (``weight[target]``, 0 where ignored) or None when every element counts 1;
    ``valid``: bool mask of counted elements, or None when none is ignored;
    ``denom``: what ``'mean'`` divides by (the sum of ``wt``).
    """
    __slots__ = ("index", "flat", "wt", "valid", "denom")

    def __init__(self, input, target, weight, ignore_index):
        n_classes = input.shape[1]
        if target.numel():
            lo, hi = (int(v) for v in target.aminmax())
        else:
            lo, hi = 0, -1
        if lo >= 0 and hi < n_classes and not lo <= ignore_index <= hi:
            self.valid = None           # the common case: nothing ignored, no mask needed
            safe = target
        else:
            self.valid = target != ignore_index
            safe = where(self.valid, target, 0)
            if lo < 0 or hi >= n_classes:
                bad = safe[(safe < 0) | (safe >= n_classes)]
                if bad.numel():
                    raise IndexError(f"Target {int(bad[0])} is out of bounds.")
        self.index = safe.unsqueeze(1)
        # (N, C): entry (i, t_i) of the flattened input, for index_select/put_, which
        # are cheaper than gather/scatter along dim 1.
        self.flat = (_row_starts(target.shape[0], n_classes, target.device) + safe
                     if input.dim() == 2 else None)
        if weight is not None:
            wt = weight[safe]
            self.wt = wt if self.valid is None else wt * self.valid
            self.denom = self.wt.sum()
        elif self.valid is not None:
            self.wt = self.valid.to(input.dtype)
            self.denom = self.wt.sum()
        else:
            self.wt = None
            self.denom = target.numel()

    def pick(self, x):
        """``x[i, target[i], ...]``: one entry per target element."""
        if self.flat is not None and x.is_contiguous():
            return x.reshape(-1).index_select(0, self.flat)
        return x.gather(1, self.index).squeeze(1)

    def add_at(self, base, coefficient):
        """``base[i, target[i], ...] += coefficient`` (in place on a fresh ``base``,
        unless a differentiable result is needed for double backward)."""
        if _C.is_grad_enabled():
            return base.scatter_add(1, self.index, coefficient.unsqueeze(1))
        if self.flat is not None and base.is_contiguous():
            base.reshape(-1).put_(self.flat, coefficient, accumulate=True)
            return base
        return base.scatter_add_(1, self.index, coefficient.unsqueeze(1))

    def mask(self, coefficient):
        """``coefficient`` with ignored elements set to exactly 0: an all-ignored
        batch has ``denom == 0``, and its nan scale must not reach the gradient."""
        return coefficient if self.valid is None else coefficient.masked_fill(~self.valid, 0.0)

    def weigh(self, loss):
        """``loss`` (per element) times each element's weight, exactly 0 where ignored."""
        if self.wt is None:
            return loss
        loss = loss * self.wt
        return loss if self.valid is None else loss.masked_fill(~self.valid, 0.0)

    def reduce(self, loss, reduction):
        if reduction == "sum":
            return loss.sum()
        if reduction == "mean":
            return loss.sum() / self.denom
        return loss


def _check_class_input(input, target, weight, opname):
    """PyTorch's argument checks for nll_loss/cross_entropy with class indices."""
    if input.dim() < 1:
        raise ValueError(f"Expected 1 or more dimensions (got {input.dim()})")
    if input.dim() == 1:
        if target.dim() > 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    else:
        if target.dim() == 0 or input.size(0) != target.size(0):
            tb = target.size(0) if target.dim() else 0
            raise ValueError(f"Expected input batch_size ({input.size(0)}) to match target "
                             f"batch_size ({tb}).")
        if input.dim() == 2 and target.dim() != 1:
            raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
        expected = [input.size(0)] + list(input.shape[2:])
        if input.dim() > 2 and list(target.shape) != expected:
            if input.dim() == 4 and opname == "nll_loss":
                raise RuntimeError(f"size mismatch (got input: {list(input.shape)} , target: "
                                   f"{list(target.shape)}")
            raise RuntimeError(f"Expected target size {expected}, got {list(target.shape)}")
    if target.dtype not in (_dt.int64, _dt.uint8):
        raise RuntimeError(f"expected target dtype to be Long or Byte, but got "
                           f"{_C._torch_type_name(target.dtype)}")
    n_classes = input.shape[1] if input.dim() > 1 else input.shape[0]
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes "
                           f"or no classes but got weight tensor of shape: {list(weight.shape)}")


def _batched(input, target):
    """A 1-D input ``(C,)`` as a batch of one: ``(1, C)`` and target ``(1,)``."""
    if input.dim() == 1:
        return input.unsqueeze(0), target.reshape(1)
    return input, target


def _zeros(shape, like):
    from ...ops.creation import zeros
    return zeros(shape, dtype=like.dtype, device=like.device)


class NllLoss(Function):
    """``-input[i, target[i]] * weight[target[i]]``, reduced; the gradient is that
    coefficient scattered back into the target entries."""
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, reduction, ignore_index):
        tgt = _ClassTarget(input, target, weight, ignore_index)
        ctx.tgt, ctx.reduction, ctx.in_shape = tgt, reduction, tuple(input.shape)
        return tgt.reduce(tgt.weigh(-tgt.pick(input)), reduction)

    @staticmethod
    def backward(ctx, grad):
        tgt = ctx.tgt
        a = -_reduce_back(grad, ctx.reduction, tgt.index.shape[:1] + tgt.index.shape[2:],
                          tgt.denom)
        if tgt.wt is not None:
            a = tgt.mask(a * tgt.wt)
        # Each target entry is hit once, so adding into zeros is the scatter.
        return tgt.add_at(_zeros(ctx.in_shape, grad), a), None, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        tgt = ctx.tgt
        return tgt.reduce(tgt.weigh(-tgt.pick(t)), ctx.reduction)


class CrossEntropy(Function):
    """``log_softmax`` + ``nll_loss`` (class-index targets) in one node, with label
    smoothing ``eps``.  Per element ``i`` the loss is ``-sum_c T[i, c] logp[i, c]``
    with target weights ``T = (1 - eps) w[t_i] onehot(t_i) + (eps / C) w``, so the
    gradient with respect to the logits is ``softmax * rowsum(T) - T``, scaled by
    the reduction; without weights or smoothing that is ``softmax - onehot``."""
    _node_name = "NllLossBackward0"

    @staticmethod
    def forward(ctx, input, target, weight, reduction, ignore_index, eps):
        ctx.reduction, ctx.eps = reduction, eps
        k = fused_kernel("cross_entropy", input, weight)
        if k is not None and input.numel():
            return _fused_xent_forward(ctx, k, input, target, weight, ignore_index)
        ctx.fused = None
        tgt = _ClassTarget(input, target, weight, ignore_index)
        logp = _log_softmax_dim1(input)
        loss = tgt.weigh(-tgt.pick(logp))
        n_classes = input.shape[1]
        w_b = None if weight is None else weight.reshape((n_classes,) + (1,) * (input.dim() - 2))
        if eps:
            smooth = -_red.sum(logp if w_b is None else logp * w_b, 1)
            if tgt.valid is not None:
                smooth = smooth.masked_fill(~tgt.valid, 0.0)
            loss = loss * (1 - eps) + smooth * (eps / n_classes)
        ctx.tgt, ctx.reduction, ctx.eps, ctx.w_b = tgt, reduction, eps, w_b
        ctx.save_for_backward(input, logp)
        return tgt.reduce(loss, reduction)

    @staticmethod
    def backward(ctx, grad):
        if ctx.fused is not None and not _C.is_grad_enabled():
            return _fused_xent_backward(ctx, grad), None, None, None, None, None
        input, logp = _xent_state(ctx)
        tgt, eps, w_b = ctx.tgt, ctx.eps, ctx.w_b
        n_classes = logp.shape[1]
        s = _reduce_back(grad, ctx.reduction, logp.shape[:1] + logp.shape[2:], tgt.denom)
        a = s if tgt.wt is None else tgt.mask(s * tgt.wt)
        if eps:
            a = a * (1 - eps)
        a = a.unsqueeze(1)
        differentiable = _C.is_grad_enabled()     # create_graph=True
        # The saved log-probabilities carry no history; double backward needs the
        # softmax recomputed from the input.
        p = _red.softmax(input, 1) if differentiable else logp.exp()
        if eps:
            b = tgt.mask(s * (eps / n_classes)).unsqueeze(1)
            w_sum = n_classes if w_b is None else w_b.sum()
            base = p * (a + b * w_sum) - (b if w_b is None else b * w_b)
        else:
            base = p * a
        return tgt.add_at(base, -a.squeeze(1)), None, None, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        input, logp = _xent_state(ctx)
        tgt, eps, w_b = ctx.tgt, ctx.eps, ctx.w_b
        pt = _red.sum(logp.exp() * t, 1)
        tangent = tgt.weigh(pt - tgt.pick(t))
        if eps:
            n_classes = logp.shape[1]
            w_sum = n_classes if w_b is None else w_b.sum()
            smooth = pt * w_sum - _red.sum(t if w_b is None else t * w_b, 1)
            if tgt.valid is not None:
                smooth = smooth.masked_fill(~tgt.valid, 0.0)
            tangent = tangent * (1 - eps) + smooth * (eps / n_classes)
        return tgt.reduce(tangent, ctx.reduction)


def _class_rows(x):
    """(N, C, d...) logits as (N*d..., C) rows (the class dim last)."""
    return x if x.dim() == 2 else x.movedim(1, -1).reshape(-1, x.shape[1])


def _fused_xent_forward(ctx, k, input, target, weight, ignore_index):
    """CrossEntropy's forward by the one-pass kernel: per-row loss, logsumexp and
    target weight; the reduction is a sum (over the counted weight for 'mean')."""
    x2 = _class_rows(input)
    t = target.reshape(-1)
    if t.dtype is not _dt.int64:
        t = t.to(_dt.int64)
    loss, lse, wt = k(x2, t, weight, ignore_index, ctx.eps)
    ctx.fused = (target, t, weight, ignore_index)
    ctx.save_for_backward(input, lse, x2)
    reduction = ctx.reduction
    if reduction == "none":
        return loss.reshape(target.shape)
    if reduction == "sum":
        return loss.sum()
    # sum(loss) / sum(wt) in one kernel; the denominator is 0 when every target is
    # ignored: nan, as PyTorch
    mean, ctx.denom = kernel("sum_ratio", loss.device.type)(loss, wt)
    return mean


def _fused_xent_backward(ctx, grad):
    """The logits' gradient by one kernel: ``softmax * (a + b W) - b w - a onehot``
    per row, scaled by the reduction's factor."""
    input, lse, x2 = ctx.saved_tensors
    target, t, weight, ignore_index = ctx.fused
    if ctx.reduction == "none":
        scale = grad.reshape(-1)
    elif ctx.reduction == "sum":
        scale = grad.reshape(1)
    else:
        scale = (grad / ctx.denom).reshape(1)
    scale = scale.to(input.dtype)
    k = kernel("cross_entropy_backward", input.device.type)
    dx = k(x2, lse, t, weight, ignore_index, ctx.eps, scale)
    if input.dim() == 2:
        return dx
    return dx.reshape((input.shape[0],) + tuple(input.shape[2:]) + (input.shape[1],)).movedim(-1, 1)


def _xent_state(ctx):
    """``(input, log-probabilities)`` for the composed backward and jvp, with the
    target prepared on ``ctx`` (the fused forward kept only each row's logsumexp)."""
    if ctx.fused is None:
        return ctx.saved_tensors
    input, lse, _ = ctx.saved_tensors
    target, _, weight, ignore_index = ctx.fused
    if getattr(ctx, "tgt", None) is None:
        ctx.tgt = _ClassTarget(input, target, weight, ignore_index)
        ctx.w_b = (None if weight is None
                   else weight.reshape((input.shape[1],) + (1,) * (input.dim() - 2)))
    lse = lse.reshape((input.shape[0],) + tuple(input.shape[2:])).unsqueeze(1)
    return input, input - lse


def _require_float_input(input, kernel):
    if not input.is_floating_point():
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_C._torch_type_name(input.dtype)}'")


def nll_loss(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
             reduction="mean"):
    """Negative log-likelihood of class indices: ``-input[n, target[n]] * weight[target[n]]``.

    ``input`` is ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)`` log-probabilities;
    ``target`` holds class indices (int64) of shape ``(N,)``, ``()`` or
    ``(N, d1, ...)``.  Entries equal to ``ignore_index`` count for nothing, and
    ``'mean'`` divides by the total weight of the counted entries.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.nll_loss(cygrad.tensor([[-1.0, -2.0], [-3.0, -4.0]]), cygrad.tensor([1, 0])).item()
    2.5
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    _check_class_input(input, target, weight, "nll_loss")
    _require_float_input(input, "nll_loss_out_frame")
    x, t = _batched(input, target)
    out = NllLoss.apply(x, t, weight, reduction, ignore_index)
    return out.reshape(target.shape) if input.dim() == 1 and reduction == "none" else out


def cross_entropy(input, target, weight=None, size_average=None, ignore_index=-100, reduce=None,
                  reduction="mean", label_smoothing=0.0):
    """Cross entropy between logits ``input`` and ``target``.

    ``input`` is ``(N, C)``, ``(C,)`` or ``(N, C, d1, ...)`` unnormalised scores.
    ``target`` is either class indices (int64, shape ``(N,)``/``()``/``(N, d1, ...)``;
    ``weight`` and ``ignore_index`` apply as in :func:`nll_loss`) or class
    probabilities (floating point, same shape as ``input``).  ``label_smoothing``
    mixes the target with the uniform distribution.  Computed as one fused,
    stable ``log_softmax`` + NLL whose gradient is ``softmax - onehot``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> logits = cygrad.tensor([[0.0, 0.0], [1000.0, 0.0]])
    >>> round(F.cross_entropy(logits, cygrad.tensor([0, 0])).item(), 4)
    0.3466
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if not 0.0 <= label_smoothing <= 1.0:
        raise RuntimeError(f"label_smoothing must be between 0.0 and 1.0. Got: {label_smoothing}")
    if input.dim() >= 1 and tuple(target.shape) == tuple(input.shape):
        if not target.is_floating_point():
            raise RuntimeError(f"Expected floating point type for target with class "
                               f"probabilities, got {_C._torch_type_name(target.dtype)}")
        _require_float_input(input, "log_softmax_lastdim_kernel_impl")
        return _soft_cross_entropy(input, target, weight, reduction, label_smoothing)
    _check_class_input(input, target, weight, "cross_entropy")
    _require_float_input(input, "log_softmax_lastdim_kernel_impl")
    x, t = _batched(input, target)
    out = CrossEntropy.apply(x, t, weight, reduction, ignore_index, label_smoothing)
    return out.reshape(target.shape) if input.dim() == 1 and reduction == "none" else out


def _soft_cross_entropy(input, target, weight, reduction, eps):
    """Cross entropy against class probabilities: ``-sum_c w_c target_c log_softmax_c``."""
    class_dim = 1 if input.dim() > 1 else 0
    n_classes = input.shape[class_dim]
    if weight is not None and weight.numel() != n_classes:
        raise RuntimeError(f"weight tensor should be defined either for all {n_classes} classes "
                           f"or no classes but got weight tensor of shape: {list(weight.shape)}")
    if eps:
        target = target * (1 - eps) + eps / n_classes
    prod = _red.log_softmax(input, class_dim) * target
    if weight is not None:
        prod = prod * weight.reshape((n_classes,) + (1,) * (input.dim() - class_dim - 1))
    loss = -_red.sum(prod, class_dim)
    if reduction == "mean":
        count = input.numel() // n_classes if n_classes else 0
        return loss.sum() / count if count else loss.sum() * float("nan")
    return _reduce(loss, reduction)


# ---------------------------------------------------------------------------
# regression losses
# ---------------------------------------------------------------------------
def _weighted(loss, weight):
    return loss if weight is None else loss * weight


def mse_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean squared error ``(input - target)^2``, reduced (``weight`` scales each element).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.mse_loss(cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 4.0])).item()
    2.0
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    input, target = _warn_size_mismatch(input, target)
    return _reduce(_weighted((input - target).square(), weight), reduction)


def l1_loss(input, target, size_average=None, reduce=None, reduction="mean", weight=None):
    """Mean absolute error ``|input - target|``, reduced.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.l1_loss(cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 4.0])).item()
    1.0
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    input, target = _warn_size_mismatch(input, target)
    return _reduce(_weighted((input - target).abs(), weight), reduction)


class _Residual(Function):
    """A pointwise loss of ``d = input - target``: ``value(d, k)``, with
    ``chain(d, g, k) = g * value'(d)``; target's gradient is the negative."""

    @staticmethod
    def forward(ctx, input, target, k):
        d = input - target
        ctx.k = k
        ctx.save_for_backward(d)
        return type(ctx)._forward_cls.value(d, k)

    @staticmethod
    def backward(ctx, grad):
        d, = ctx.saved_tensors
        gd = type(ctx)._forward_cls.chain(d, grad, ctx.k)
        return gd, -gd, None

    @staticmethod
    def jvp(ctx, t_input, t_target, _k):
        d, = ctx.saved_tensors
        t = t_input if t_target is None else (t_target * -1 if t_input is None
                                              else t_input - t_target)
        return type(ctx)._forward_cls.chain(d, t, ctx.k)


class SmoothL1(_Residual):
    """``0.5 d^2 / beta`` where ``|d| < beta``, ``|d| - 0.5 beta`` elsewhere."""
    _node_name = "SmoothL1LossBackward0"

    @staticmethod
    def value(d, beta):
        a = d.abs()
        return where(a < beta, d * d * (0.5 / beta), a - 0.5 * beta)

    @staticmethod
    def chain(d, g, beta):
        return g * (d / beta).clamp(-1, 1)


class Huber(_Residual):
    """``0.5 d^2`` where ``|d| < delta``, ``delta (|d| - 0.5 delta)`` elsewhere."""
    _node_name = "HuberLossBackward0"

    @staticmethod
    def value(d, delta):
        a = d.abs()
        return where(a < delta, d * d * 0.5, (a - 0.5 * delta) * delta)

    @staticmethod
    def chain(d, g, delta):
        return g * d.clamp(-delta, delta)


def smooth_l1_loss(input, target, size_average=None, reduce=None, reduction="mean", beta=1.0):
    """Quadratic below ``beta``, linear above (``beta=0`` is :func:`l1_loss`).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.smooth_l1_loss(cygrad.tensor([0.5, 3.0]), cygrad.zeros(2), reduction="none").tolist()
    [0.125, 2.5]
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if beta < 0:
        raise RuntimeError("smooth_l1_loss does not support negative values for beta.")
    if beta == 0:
        return l1_loss(input, target, reduction=reduction)
    input, target = _warn_size_mismatch(input, target)
    return _reduce(SmoothL1.apply(input, target, beta), reduction)


def huber_loss(input, target, reduction="mean", delta=1.0, weight=None):
    """Quadratic below ``delta``, ``delta``-sloped linear above.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.huber_loss(cygrad.tensor([0.5, 3.0]), cygrad.zeros(2), reduction="none", delta=2.0).tolist()
    [0.125, 4.0]
    """
    _check_reduction(reduction)
    if delta <= 0:
        raise RuntimeError("huber_loss does not support non-positive values for delta.")
    input, target = _warn_size_mismatch(input, target)
    return _reduce(_weighted(Huber.apply(input, target, delta), weight), reduction)


# ---------------------------------------------------------------------------
# binary classification
# ---------------------------------------------------------------------------
_LOG_FLOOR = -100.0     # PyTorch clamps BCE's logs here so that p = 0 or 1 stays finite


class BinaryCrossEntropy(Function):
    """``-(t log x + (1 - t) log(1 - x))`` with both logs clamped at -100."""
    _node_name = "BinaryCrossEntropyBackward0"

    @staticmethod
    def forward(ctx, input, target):
        ctx.save_for_backward(input, target)
        log_x = input.log().clamp(min=_LOG_FLOOR)
        log_1mx = (1 - input).log().clamp(min=_LOG_FLOOR)
        return -(target * log_x + (1 - target) * log_1mx)

    @staticmethod
    def _slopes(input, target):
        """(d/dx, d/dt); d/dx's denominator is kept off 0 as PyTorch does (1e-12)."""
        dx = (input - target) / ((1 - input) * input).clamp(min=1e-12)
        dt = (1 - input).log().clamp(min=_LOG_FLOOR) - input.log().clamp(min=_LOG_FLOOR)
        return dx, dt

    @staticmethod
    def backward(ctx, grad):
        input, target = ctx.saved_tensors
        dx, dt = BinaryCrossEntropy._slopes(input, target)
        return (grad * dx if ctx.needs_input_grad[0] else None,
                grad * dt if ctx.needs_input_grad[1] else None)

    @staticmethod
    def jvp(ctx, t_input, t_target):
        input, target = ctx.saved_tensors
        dx, dt = BinaryCrossEntropy._slopes(input, target)
        out = 0
        if t_input is not None:
            out = out + t_input * dx
        if t_target is not None:
            out = out + t_target * dt
        return out


def binary_cross_entropy(input, target, weight=None, size_average=None, reduce=None,
                         reduction="mean"):
    """Binary cross entropy between probabilities ``input`` and ``target`` (same shape).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.binary_cross_entropy(cygrad.tensor([1.0, 0.5]), cygrad.tensor([0.0, 1.0]),
    ...                        reduction="none").tolist()
    [100.0, 0.6931471824645996]
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Using a target size ({_size_str(target)}) that is different to the "
                         f"input size ({_size_str(input)}) is deprecated. Please ensure they "
                         f"have the same size.")
    if bool(((input < 0) | (input > 1) | input.isnan()).any()):
        raise RuntimeError("all elements of input should be between 0 and 1")
    return _reduce(_weighted(BinaryCrossEntropy.apply(input, target), weight), reduction)


class BinaryCrossEntropyWithLogits(Function):
    """``(1 - t) x + l softplus(-x)`` with ``l = 1 + (pos_weight - 1) t``: stable for
    any logit because ``softplus(-x) = max(-x, 0) + log1p(exp(-|x|))``."""
    _node_name = "BinaryCrossEntropyWithLogitsBackward0"

    @staticmethod
    def forward(ctx, input, target, pos_weight):
        ctx.save_for_backward(input, target, pos_weight)
        sp = _act._softplus_of(-input)
        if pos_weight is None:
            return (1 - target) * input + sp
        return (1 - target) * input + ((pos_weight - 1) * target + 1) * sp

    @staticmethod
    def _slopes(input, target, pos_weight):
        """(d/dx, d/dt, d/dpos_weight)."""
        if pos_weight is None:
            return input.sigmoid() - target, -input, None
        sp = _act._softplus_of(-input)
        lw = (pos_weight - 1) * target + 1
        return (lw * input.sigmoid() - pos_weight * target, (pos_weight - 1) * sp - input,
                target * sp)

    @staticmethod
    def backward(ctx, grad):
        slopes = BinaryCrossEntropyWithLogits._slopes(*ctx.saved_tensors)
        return tuple(None if s is None or not need else grad * s
                     for s, need in zip(slopes, ctx.needs_input_grad))

    @staticmethod
    def jvp(ctx, *tangents):
        slopes = BinaryCrossEntropyWithLogits._slopes(*ctx.saved_tensors)
        out = 0
        for t, s in zip(tangents, slopes):
            if t is not None and s is not None:
                out = out + t * s
        return out


def binary_cross_entropy_with_logits(input, target, weight=None, size_average=None, reduce=None,
                                     reduction="mean", pos_weight=None):
    """``binary_cross_entropy(sigmoid(input), target)`` computed stably from logits;
    ``pos_weight`` weighs the positive term (broadcast along the last dim).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.binary_cross_entropy_with_logits(cygrad.tensor([200.0, 0.0]), cygrad.tensor([0.0, 1.0]),
    ...                                    reduction="none").tolist()
    [200.0, 0.6931471824645996]
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if tuple(target.shape) != tuple(input.shape):
        raise ValueError(f"Target size ({_size_str(target)}) must be the same as input size "
                         f"({_size_str(input)})")
    loss = BinaryCrossEntropyWithLogits.apply(input, target, pos_weight)
    return _reduce(_weighted(loss, weight), reduction)


# ---------------------------------------------------------------------------
# divergences and likelihoods
# ---------------------------------------------------------------------------
def kl_div(input, target, size_average=None, reduce=None, reduction="mean", log_target=False):
    """KL divergence ``target * (log(target) - input)`` with ``input`` log-probabilities
    (``log_target=True``: target is given as log-probabilities too).  ``'batchmean'``
    divides the sum by the batch size, which is the mathematical KL divergence.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> p = cygrad.tensor([[0.5, 0.5]])
    >>> F.kl_div(p.log(), p, reduction="batchmean").item()
    0.0
    """
    if size_average is not None or reduce is not None:
        reduction = _legacy_reduction(size_average, reduce, reduction)
    elif reduction == "mean":
        warnings.warn("reduction: 'mean' divides the total loss by both the batch size and the "
                      "support size.'batchmean' divides only by the batch size, and aligns with "
                      "the KL div math definition.'mean' will be changed to behave the same as "
                      "'batchmean' in the next major release.", UserWarning, stacklevel=2)
    _check_reduction(reduction, _REDUCTIONS + ("batchmean",))
    if log_target:
        loss = target.exp() * (target - input)
    else:
        # xlogy(t, t): 0 where t == 0 (log's argument moved to 1 there, so that no
        # 0 * -inf appears in the value or the gradient).
        loss = target * where(target == 0, 1.0, target).log() - target * input
    if reduction == "batchmean":
        total = loss.sum()
        return total / input.size(0) if input.dim() != 0 else total
    return _reduce(loss, reduction)


def poisson_nll_loss(input, target, log_input=True, full=False, size_average=None, eps=1e-8,
                     reduce=None, reduction="mean"):
    """Negative log-likelihood of ``target ~ Poisson(rate)``: ``exp(input) - target * input``
    (``log_input=True``) or ``input - target * log(input + eps)``; ``full`` adds
    Stirling's approximation of ``log(target!)`` where ``target > 1``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.poisson_nll_loss(cygrad.tensor([0.0]), cygrad.tensor([1.0])).item()
    1.0
    """
    import math
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if log_input:
        loss = input.exp() - target * input
    else:
        loss = input - target * (input + eps).log()
    if full:
        t_safe = where(target > 1, target, 1.0)
        stirling = t_safe * t_safe.log() - t_safe + (t_safe * (2 * math.pi)).log() * 0.5
        loss = loss + where(target > 1, stirling, 0.0)
    return _reduce(loss, reduction)


def gaussian_nll_loss(input, target, var, full=False, eps=1e-6, reduction="mean"):
    """Negative log-likelihood of ``target ~ N(input, var)``:
    ``0.5 (log(var) + (input - target)^2 / var)`` (``var`` clamped at ``eps``, without
    gradient through the clamp, as PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.gaussian_nll_loss(cygrad.tensor([1.0]), cygrad.tensor([3.0]), cygrad.tensor([2.0])).item()
    1.3465735912322998
    """
    import math
    from ...ops.creation import ones_like
    if isinstance(var, (int, float)):
        if var < 0:
            raise ValueError("var has negative entry/entries")
        var = ones_like(input) * var
    elif bool((var < 0).any()):
        raise ValueError("var has negative entry/entries")
    if tuple(var.shape) != tuple(input.shape):
        if tuple(input.shape[:-1]) == tuple(var.shape):
            var = var.unsqueeze(-1)
        elif not (input.dim() == var.dim() and
                  sum(v for i, v in zip(input.shape, var.shape) if i != v) == 1):
            raise ValueError("var is of incorrect size")
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    var = var + (var.clamp(min=eps) - var).detach()
    loss = ((input - target).square() / var + var.log()) * 0.5
    if full:
        loss = loss + 0.5 * math.log(2 * math.pi)
    return _reduce(loss, reduction)


# ---------------------------------------------------------------------------
# margin and embedding losses
# ---------------------------------------------------------------------------
def margin_ranking_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                        reduction="mean"):
    """``max(0, -target * (input1 - input2) + margin)``, target in {1, -1}.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.margin_ranking_loss(cygrad.tensor([1.0]), cygrad.tensor([2.0]), cygrad.tensor([1.0])).item()
    1.0
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if input1.dim() != input2.dim() or input1.dim() != target.dim():
        raise RuntimeError(f"margin_ranking_loss : All input tensors should have same dimension "
                           f"but got sizes: input1: {_size_str(input1)}, input2: "
                           f"{_size_str(input2)}, target: {_size_str(target)} ")
    return _reduce((-target * (input1 - input2) + margin).clamp(min=0), reduction)


def hinge_embedding_loss(input, target, margin=1.0, size_average=None, reduce=None,
                         reduction="mean"):
    """``input`` where ``target == 1``, ``max(0, margin - input)`` where ``target == -1``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.hinge_embedding_loss(cygrad.tensor([0.3, 0.3]), cygrad.tensor([1.0, -1.0]),
    ...                        reduction="none").tolist()
    [0.30000001192092896, 0.699999988079071]
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    margin_part = (margin - input).clamp(min=0)
    # As PyTorch: both terms apply to any other target value.
    loss = where(target == 1, 0.0, margin_part) + where(target == -1, 0.0, input)
    return _reduce(loss, reduction)


def soft_margin_loss(input, target, size_average=None, reduce=None, reduction="mean"):
    """``log(1 + exp(-target * input))``, target in {1, -1}.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> round(F.soft_margin_loss(cygrad.tensor([0.0]), cygrad.tensor([1.0])).item(), 4)
    0.6931
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    return _reduce(_act.softplus(-target * input, 1.0, float("inf")), reduction)


def multilabel_soft_margin_loss(input, target, weight=None, size_average=None, reduce=None,
                                reduction="mean"):
    """Per-class binary cross entropy on logits, averaged over the classes (last dim).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> round(F.multilabel_soft_margin_loss(cygrad.zeros(1, 2), cygrad.tensor([[1.0, 0.0]])).item(), 4)
    0.6931
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    loss = -(target * _act.logsigmoid(input) + (1 - target) * _act.logsigmoid(-input))
    loss = _weighted(loss, weight)
    class_dim = input.dim() - 1
    loss = _red.sum(loss, class_dim) / input.size(class_dim)
    if reduction not in _REDUCTIONS:
        raise ValueError(reduction + " is not valid")
    return _reduce(loss, reduction)


def multi_margin_loss(input, target, p=1, margin=1.0, weight=None, size_average=None,
                      reduce=None, reduction="mean"):
    """Multi-class hinge loss: ``sum_{j != y} max(0, margin - x[y] + x[j])^p * w[y] / C``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.multi_margin_loss(cygrad.tensor([[0.1, 0.2, 0.4, 0.8]]), cygrad.tensor([3])).item()
    0.32499998807907104
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if p not in (1, 2):
        raise ValueError("only p == 1 and p == 2 supported")
    if weight is not None and weight.dim() != 1:
        raise ValueError("weight must be one-dimensional")
    x = input.unsqueeze(0) if input.dim() <= 1 else input
    t = target.reshape(-1)
    n_classes = x.size(1)
    lo, hi = (int(v) for v in t.aminmax()) if t.numel() else (0, 0)
    if lo < 0 or hi >= n_classes:
        raise RuntimeError("target out of range")
    idx = t.unsqueeze(1)
    z = (x - x.gather(1, idx) + margin).clamp(min=0)
    if p == 2:
        z = z * z
    if weight is not None:
        z = z * weight[t].unsqueeze(1)
    # The target's own column would add margin^p; mask it out.
    z = z.scatter(1, idx, 0.0)
    loss = _red.sum(z, 1) / n_classes
    if input.dim() <= 1:
        loss = loss.reshape(target.shape)
    return _reduce(loss, reduction)


def cosine_embedding_loss(input1, input2, target, margin=0, size_average=None, reduce=None,
                          reduction="mean"):
    """``1 - cos(x1, x2)`` where ``target == 1``, ``max(0, cos(x1, x2) - margin)`` where
    ``target == -1``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[1.0, 0.0], [0.0, 1.0]])
    >>> F.cosine_embedding_loss(x, x, cygrad.tensor([1.0, -1.0]), reduction="none").tolist()
    [0.0, 1.0]
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if target.dim() > 1:
        raise RuntimeError("0D or 1D target tensor expected, multi-target not supported")
    want = target.dim() + 1
    if input1.dim() != want or input2.dim() != want:
        raise RuntimeError(f"{target.dim()}D target tensor expects {want}D input tensors, but "
                           f"found inputs with sizes {list(input1.shape)} and "
                           f"{list(input2.shape)}.")
    d = target.dim()
    eps = 1e-12
    dot = _red.sum(input1 * input2, d)
    mag = ((_red.sum(input1 * input1, d) + eps) * (_red.sum(input2 * input2, d) + eps)).sqrt()
    cos = dot / mag
    loss = where(target == 1, 1 - cos, 0.0) + where(target == -1, (cos - margin).clamp(min=0), 0.0)
    return _reduce(loss, reduction)


def triplet_margin_loss(anchor, positive, negative, margin=1.0, p=2, eps=1e-6, swap=False,
                        size_average=None, reduce=None, reduction="mean"):
    """``max(0, margin + d(a, p) - d(a, n))`` with ``d`` the ``p``-norm distance
    (``swap``: use ``min(d(a, n), d(p, n))``).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> a = cygrad.tensor([[0.0, 0.0]])
    >>> F.triplet_margin_loss(a, a, cygrad.tensor([[3.0, 4.0]]), eps=0.0).item()
    0.0
    """
    reduction = _legacy_reduction(size_average, reduce, reduction)
    _check_reduction(reduction)
    if margin <= 0:
        raise ValueError(f"margin must be greater than 0, got {margin}")
    dims = (anchor.dim(), positive.dim(), negative.dim())
    if len(set(dims)) != 1:
        raise RuntimeError(f"The anchor, positive, and negative tensors are expected to have the "
                           f"same number of dimensions, but got: anchor {dims[0]}D, positive "
                           f"{dims[1]}D, and negative {dims[2]}D inputs")
    d_pos = _act.pairwise_distance(anchor, positive, p, eps)
    d_neg = _act.pairwise_distance(anchor, negative, p, eps)
    if swap:
        from ...ops.elementwise import minimum
        d_neg = minimum(d_neg, _act.pairwise_distance(positive, negative, p, eps))
    return _reduce((d_pos - d_neg + margin).clamp(min=0), reduction)
