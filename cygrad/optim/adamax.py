"""Adamax: Adam with the infinity norm of past gradients in the denominator.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import Adamax
>>> w = cygrad.tensor([1.0, -2.0], requires_grad=True)
>>> opt = Adamax([w], lr=0.1)
>>> (w * w).sum().backward(); opt.step()
>>> [round(v, 4) for v in w.tolist()]
[0.9, -1.9]
"""
from .optimizer import (Optimizer, _addcdiv_, _advance, _check_betas, _check_lr, _check_nonneg,
                        _scalar)

__all__ = ["Adamax"]


class Adamax(Optimizer):
    """Adamax (PyTorch's ``torch.optim.Adamax``).

    ``m = beta1 * m + (1 - beta1) * g``, ``u = max(beta2 * u, |g| + eps)`` and
    ``p -= lr / (1 - beta1**t) * m / u``.

    Parameters
    ----------
    params : iterable
    lr : float, default 2e-3
    betas : (float, float), default (0.9, 0.999)
    eps : float, default 1e-8
    weight_decay : float, default 0
    foreach, differentiable, capturable
        Accepted for PyTorch compatibility; they do not change the arithmetic.
    maximize : bool, default False

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import Adamax
    >>> w = cygrad.zeros(2, requires_grad=True)
    >>> opt = Adamax([w]); w.sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['exp_avg', 'exp_inf', 'step']
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 foreach=None, *, maximize=False, differentiable=False, capturable=False):
        _check_lr(lr)
        _check_nonneg(eps, "epsilon value")
        _check_betas(betas)
        _check_nonneg(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, capturable=capturable)
        super().__init__(params, defaults)

    def _update(self, p, grad, group):
        state = self._lazy_state(p, ["exp_avg", "exp_inf"])
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        step = _advance(state)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        exp_avg = state["exp_avg"].lerp_(grad, 1 - beta1)
        exp_inf = state["exp_inf"].mul_(beta2).maximum_(grad.abs().add_(group["eps"]))
        clr = _scalar(group["lr"]) / (1 - beta1 ** step)
        _addcdiv_(p, exp_avg, exp_inf, -clr)
