"""Adam, with AMSGrad and (for AdamW) decoupled weight decay.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import Adam
>>> w = cygrad.tensor([1.0, -1.0], requires_grad=True)
>>> opt = Adam([w], lr=0.1)
>>> (w * w).sum().backward(); opt.step()
>>> [round(v, 4) for v in w.tolist()]   # the first Adam step moves each entry by ~lr
[0.9, -0.9]
"""
from . import _fused
from .optimizer import (Optimizer, _addcmul_, _advance, _check_betas, _check_lr, _check_nonneg,
                        _scalar)

__all__ = ["Adam"]


class Adam(Optimizer):
    """Adam (PyTorch's ``torch.optim.Adam``).

    ``m = beta1 * m + (1 - beta1) * g``, ``v = beta2 * v + (1 - beta2) * g**2``, then
    ``p -= lr / (1 - beta1**t) * m / (sqrt(v) / sqrt(1 - beta2**t) + eps)``; with
    ``amsgrad`` the running maximum of ``v`` replaces ``v`` in the denominator.
    ``weight_decay`` adds ``wd * p`` to the gradient, or with
    ``decoupled_weight_decay=True`` (AdamW) scales ``p`` by ``1 - lr * wd`` first.

    Parameters
    ----------
    params : iterable
    lr : float, default 1e-3
    betas : (float, float), default (0.9, 0.999)
    eps : float, default 1e-8
    weight_decay : float, default 0
    amsgrad : bool, default False
    maximize : bool, default False
    decoupled_weight_decay : bool, default False
    foreach : bool, optional
        ``False`` forces the per-parameter for-loop; ``None`` (default) and
        ``True`` use the fused C kernel for the parameters it takes.
    capturable : bool, default False
        Accepted for PyTorch compatibility; no effect on the CPU.
    differentiable : bool, default False
        ``True`` takes the for-loop.
    fused : bool, optional
        ``True``: the fused C kernel (the ``step`` counters are then float32);
        a parameter that is not floating point or not on the CPU raises
        ``RuntimeError`` at the step. ``False``: the for-loop. ``None``: as
        ``foreach``. See ``docs/optim.md``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import Adam
    >>> w = cygrad.tensor([3.0], requires_grad=True)
    >>> opt = Adam([w], lr=0.5, amsgrad=True)
    >>> for _ in range(20):
    ...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
    >>> abs(w.item()) < 1.0
    True
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 amsgrad=False, *, foreach=None, maximize=False, capturable=False,
                 differentiable=False, fused=None, decoupled_weight_decay=False):
        _check_lr(lr)
        _check_nonneg(eps, "epsilon value")
        _check_betas(betas)
        _check_nonneg(weight_decay, "weight_decay value")
        betas = tuple(_scalar(b) for b in betas)
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        amsgrad=amsgrad, maximize=maximize, foreach=foreach,
                        capturable=capturable, differentiable=differentiable, fused=fused,
                        decoupled_weight_decay=decoupled_weight_decay)
        super().__init__(params, defaults)
        _fused.check_flags(fused, foreach, differentiable)

    def _fused_step(self, group):
        return _fused.adam_group(self, group) if _fused.wanted(group) else group["params"]

    def _update(self, p, grad, group):
        # course: begin adam-update
        state = self._lazy_state(p, ["exp_avg", "exp_avg_sq"]
                                 + (["max_exp_avg_sq"] if group["amsgrad"] else []))
        lr, wd, eps = _scalar(group["lr"]), group["weight_decay"], group["eps"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        step = _advance(state)
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        exp_avg, exp_avg_sq = state["exp_avg"], state["exp_avg_sq"]
        exp_avg.lerp_(grad, 1 - beta1)
        _addcmul_(exp_avg_sq.mul_(beta2), grad, grad, 1 - beta2)
        step_size = lr / (1 - beta1 ** step)
        bias_correction2_sqrt = (1 - beta2 ** step) ** 0.5
        if group["amsgrad"]:
            second = state["max_exp_avg_sq"].maximum_(exp_avg_sq)
        else:
            second = exp_avg_sq
        denom = (second.sqrt() / bias_correction2_sqrt).add_(eps)
        p.add_(exp_avg / denom, alpha=-step_size)
        # course: end adam-update
