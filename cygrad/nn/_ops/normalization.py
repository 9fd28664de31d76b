"""Normalization ops: ``batch_norm``, ``layer_norm``, ``group_norm``.

All three standardise ``x`` over some dims (``xhat = (x - mean) * invstd``) and then
apply a per-feature affine map (``y = xhat * weight + bias``).  They differ only in
which dims the statistics are taken over and which dims the affine map is shared
across, so one Function, :class:`Normalize`, serves them all, driven by a
:class:`_Layout`.

With batch statistics the derivative of ``xhat`` is the classic fused formula
(one pass, no autograd graph through ``mean``/``var``)::

    dx = invstd * (gh - mean(gh) - xhat * mean(gh * xhat)),   gh = g * weight

where the means run over the statistics dims.  The same linear map sends a
tangent ``t`` of ``x`` to the tangent of ``xhat`` (it is self-adjoint), so
``backward`` and ``jvp`` share :func:`_standardize_grad`.
"""
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ._fused import fused_kernel
from ...ops.reduction import var_mean

__all__ = ["batch_norm", "layer_norm", "group_norm", "Normalize"]


class _Layout:
    """Where the statistics and the affine parameters live for one call.

    ``view`` is the shape ``x`` is reshaped to for the statistics and ``red`` the dims
    of that view that are reduced; ``aff_shape`` is the shape ``weight``/``bias`` are
    viewed as to broadcast against ``x`` and ``aff_sum`` the dims of ``x`` their
    gradients are summed over.  ``batch_stats`` is False when the statistics are
    constants (batch norm in eval mode): then ``xhat`` is an affine map of ``x``.
    """
    __slots__ = ("view", "red", "aff_shape", "aff_sum", "batch_stats", "eps", "param_shape")

    def __init__(self, view, red, aff_shape, aff_sum, batch_stats, eps, param_shape):
        self.view, self.red, self.aff_shape, self.aff_sum = view, red, aff_shape, aff_sum
        self.batch_stats, self.eps, self.param_shape = batch_stats, eps, param_shape


def _standardize_grad(gv, xv, invstd, red):
    """The fused derivative of ``xhat`` w.r.t. ``x`` applied to ``gv`` (both in the
    statistics view)."""
    mg = gv.mean(red, keepdim=True)
    mgx = (gv * xv).mean(red, keepdim=True)
    return (gv - mg - xv * mgx) * invstd


def _sum_to_param(t, lay):
    """Sum ``t`` (shaped like ``x``) down to the shape of ``weight``/``bias``."""
    return (t.sum(lay.aff_sum) if lay.aff_sum else t).reshape(lay.param_shape)


def _xhat_from_input(x, mean, invstd, lay):
    """``xhat`` recomputed from ``x`` with differentiable ops, so that a backward run
    under ``create_graph=True`` is itself differentiable w.r.t. ``x``."""
    xv = x.reshape(lay.view)
    if lay.batch_stats:
        mean = xv.mean(lay.red, keepdim=True)
        var = (xv - mean).square().mean(lay.red, keepdim=True)
        invstd = (var + lay.eps).rsqrt()
    return (xv - mean) * invstd, invstd


class Normalize(Function):
    """``y = (x - mean) * invstd * weight + bias`` with ``mean``/``invstd`` given
    (computed by the caller, which also needs them for running statistics).
    ``weight``/``bias`` may be None."""
    _node_name = "NativeBatchNormBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, mean, invstd, lay):
        xv = x.reshape(lay.view)
        xhat = ((xv - mean) * invstd).reshape(x.shape)
        y = xhat
        if weight is not None:
            y = y * weight.reshape(lay.aff_shape)
        if bias is not None:
            y = y + bias.reshape(lay.aff_shape)
        elif weight is None:
            y = xhat.clone()
        ctx.lay = lay
        ctx.save_for_backward(x, xhat, weight, mean, invstd)
        return y

    @staticmethod
    def backward(ctx, g):
        x, xhat, weight, mean, invstd = ctx.saved_tensors
        lay = ctx.lay
        if _C.is_grad_enabled():
            # create_graph: the same formulas on an xhat that knows it depends on x
            xv, invstd = _xhat_from_input(x, mean, invstd, lay)
            xhat = xv.reshape(x.shape)
        needs = ctx.needs_input_grad
        gw = gb = gx = None
        if needs[1]:
            gw = _sum_to_param(g * xhat, lay)
        if needs[2]:
            gb = _sum_to_param(g, lay)
        if needs[0]:
            gh = g * weight.reshape(lay.aff_shape) if weight is not None else g
            gv = gh.reshape(lay.view)
            if lay.batch_stats:
                gx = _standardize_grad(gv, xhat.reshape(lay.view), invstd, lay.red)
            else:
                gx = gv * invstd
            gx = gx.reshape(x.shape)
        return gx, gw, gb, None, None, None

    @staticmethod
    def jvp(ctx, tx, tw, tb, *unused):
        x, xhat, weight, mean, invstd = (ctx._to_save if ctx._to_save is not None
                                         else ctx.saved_tensors)
        lay = ctx.lay
        if xhat is None:        # (the fused layer norm keeps only mean and 1/std)
            xhat = ((x.reshape(lay.view) - mean) * invstd).reshape(x.shape)
        out = None
        if tx is not None:
            tv = tx.reshape(lay.view)
            if lay.batch_stats:
                dxhat = _standardize_grad(tv, xhat.reshape(lay.view), invstd, lay.red)
            else:
                dxhat = tv * invstd
            dxhat = dxhat.reshape(x.shape)
            out = dxhat * weight.reshape(lay.aff_shape) if weight is not None else dxhat
        if tw is not None:
            term = xhat * tw.reshape(lay.aff_shape)
            out = term if out is None else out + term
        if tb is not None:
            term = tb.reshape(lay.aff_shape).expand(x.shape)
            out = term if out is None else out + term
        return out


class _LayerNormFn(Normalize):
    """Layer norm. Called with ``mean``/``invstd`` None (float32/float64 on a device
    with the kernels), forward is one fused kernel that also returns each row's
    mean and 1/std, and backward one kernel giving dx, dweight and dbias; otherwise,
    and for ``create_graph=True``, it is :class:`Normalize`."""
    _node_name = "NativeLayerNormBackward0"

    @staticmethod
    def forward(ctx, x, weight, bias, mean, invstd, lay):
        if mean is not None:
            return Normalize.forward(ctx, x, weight, bias, mean, invstd, lay)
        k = len(lay.param_shape)
        n = 1
        for s in lay.param_shape:
            n *= s
        y, mean, rstd = kernel("layer_norm", x.device.type)(x, n, weight, bias, lay.eps)
        stat_shape = tuple(x.shape[:x.dim() - k]) + (1,) * k
        ctx.lay, ctx.fused = lay, True
        # xhat is not kept: backward's kernel recomputes it from x, mean and rstd
        ctx.save_for_backward(x, None, weight, mean.reshape(stat_shape),
                              rstd.reshape(stat_shape))
        return y

    @staticmethod
    def backward(ctx, g):
        if not getattr(ctx, "fused", False) or _C.is_grad_enabled():
            return Normalize.backward(ctx, g)
        x, _, weight, mean, rstd = ctx.saved_tensors
        needs = ctx.needs_input_grad
        dx, dw, db = kernel("layer_norm_backward", x.device.type)(
            g.to(x.dtype), x, mean.reshape(-1), rstd.reshape(-1), weight, needs[0], needs[1],
            needs[2])
        shape = ctx.lay.param_shape
        return (None if dx is None else dx.reshape(x.shape), None if dw is None else dw.reshape(shape),
                None if db is None else db.reshape(shape), None, None, None)

    @staticmethod
    def jvp(ctx, tx, tw, tb, *unused):
        return Normalize.jvp(ctx, tx, tw, tb, *unused)


class _GroupNormFn(Normalize):
    _node_name = "NativeGroupNormBackward0"


def _stats(xv, red, eps):
    """Biased variance and mean over ``red`` (keepdim), as constants, and ``invstd``."""
    with no_grad():
        var, mean = var_mean(xv.detach(), red, correction=0, keepdim=True)
        return mean, (var + eps).rsqrt(), var


def _check_param(t, n, name):
    if t is not None and t.numel() != n:
        raise RuntimeError(f"{name} should contain {n} elements not {t.numel()}")


def batch_norm(input, running_mean, running_var, weight=None, bias=None, training=False,
               momentum=0.1, eps=1e-5):
    """Batch normalization over dim 1 of ``(N, C, *)`` inputs, as ``torch.nn.functional.batch_norm``.

    In training (or without running statistics) the batch's own mean and biased
    variance normalise the input, and ``running_mean``/``running_var`` (when given)
    are updated in place: ``r = (1 - momentum) * r + momentum * batch_stat``, with
    the *unbiased* variance for ``running_var``.  Otherwise the running
    statistics are used.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[1.0, 10.0], [3.0, 30.0]])
    >>> rm, rv = cygrad.zeros(2), cygrad.ones(2)
    >>> [[round(v, 3) for v in row] for row in F.batch_norm(x, rm, rv, training=True).tolist()]
    [[-1.0, -1.0], [1.0, 1.0]]
    >>> [round(v, 2) for v in rm.tolist()], [round(v, 2) for v in rv.tolist()]
    ([0.2, 2.0], [1.1, 20.9])
    """
    if input.dim() < 2:
        raise ValueError(f"Expected 2D or higher input (got {input.dim()}D input)")
    C = input.size(1)
    _check_param(running_mean, C, "running_mean")
    _check_param(running_var, C, "running_var")
    _check_param(weight, C, "weight")
    _check_param(bias, C, "bias")
    red = (0,) + tuple(range(2, input.dim()))
    aff_shape = (C,) + (1,) * (input.dim() - 2)
    use_batch = training or running_mean is None or running_var is None
    if use_batch:
        count = input.numel() // C if C else 0
        if training and count == 1:
            raise ValueError("Expected more than 1 value per channel when training, got input "
                             f"size {input.size()}")
        mean, invstd, var = _stats(input, red, eps)
        if training and running_mean is not None:
            with no_grad():
                unbiased = var.reshape(-1) * (count / max(count - 1, 1))
                running_mean.mul_(1 - momentum).add_(mean.reshape(-1) * momentum)
                running_var.mul_(1 - momentum).add_(unbiased * momentum)
    else:
        with no_grad():
            mean = running_mean.reshape(aff_shape)
            invstd = (running_var + eps).rsqrt().reshape(aff_shape)
    lay = _Layout(tuple(input.shape), red, aff_shape, red, use_batch, eps, (C,))
    return Normalize.apply(input, weight, bias, mean, invstd, lay)


def layer_norm(input, normalized_shape, weight=None, bias=None, eps=1e-5):
    """Layer normalization over the last ``len(normalized_shape)`` dims, as
    ``torch.nn.functional.layer_norm``; ``weight``/``bias`` have ``normalized_shape``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> y = F.layer_norm(cygrad.tensor([[1.0, 3.0], [0.0, 10.0]]), (2,))
    >>> [[round(v, 3) for v in row] for row in y.tolist()]
    [[-1.0, 1.0], [-1.0, 1.0]]
    """
    if isinstance(normalized_shape, int):
        normalized_shape = (normalized_shape,)
    normalized_shape = tuple(normalized_shape)
    k = len(normalized_shape)
    shape = tuple(input.shape)
    if k == 0 or input.dim() < k or shape[input.dim() - k:] != normalized_shape:
        raise RuntimeError(
            f"Given normalized_shape={list(normalized_shape)}, expected input with shape "
            f"[*, {', '.join(str(s) for s in normalized_shape)}], but got input of size"
            f"{list(input.shape)}")
    for t, name in ((weight, "weight"), (bias, "bias")):
        if t is not None and tuple(t.shape) != normalized_shape:
            raise RuntimeError(
                f"Expected {name} to be of same shape as normalized_shape, but got {name} of "
                f"shape {list(t.shape)} and normalized_shape = {list(normalized_shape)}")
    red = tuple(range(input.dim() - k, input.dim()))
    if input.numel() and fused_kernel("layer_norm", input, weight, bias) is not None:
        mean = invstd = None        # computed by the fused kernel
    else:
        mean, invstd, _ = _stats(input, red, eps)
    lay = _Layout(shape, red, normalized_shape, tuple(range(input.dim() - k)), True, eps,
                  normalized_shape)
    return _LayerNormFn.apply(input, weight, bias, mean, invstd, lay)


def group_norm(input, num_groups, weight=None, bias=None, eps=1e-5):
    """Group normalization, as ``torch.nn.functional.group_norm``: the ``C`` channels
    of an ``(N, C, *)`` input are split into ``num_groups`` groups, each normalised
    over its channels and all spatial positions; ``weight``/``bias`` are per channel.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[[1.0], [3.0], [5.0], [9.0]]])
    >>> [round(v, 3) for v in F.group_norm(x, 2).reshape(-1).tolist()]
    [-1.0, 1.0, -1.0, 1.0]
    """
    if input.dim() < 2:
        raise RuntimeError(f"Expected at least 2 dimensions for input tensor but received "
                           f"{input.dim()}")
    N, C = input.size(0), input.size(1)
    if num_groups <= 0 or C % num_groups:
        raise RuntimeError(
            "Expected number of channels in input to be divisible by num_groups, but got input "
            f"of shape {list(input.shape)} and num_groups={num_groups}")
    _check_param(weight, C, "weight")
    _check_param(bias, C, "bias")
    view = (N, num_groups, input.numel() // max(N * num_groups, 1))
    xv = input.reshape(view)
    mean, invstd, _ = _stats(xv, (2,), eps)
    aff_shape = (C,) + (1,) * (input.dim() - 2)
    aff_sum = (0,) + tuple(range(2, input.dim()))
    lay = _Layout(view, (2,), aff_shape, aff_sum, True, eps, (C,))
    return _GroupNormFn.apply(input, weight, bias, mean, invstd, lay)

