"""NAdam: Adam with Nesterov momentum and a warming-up momentum schedule.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import NAdam
>>> w = cygrad.tensor([1.0], requires_grad=True)
>>> opt = NAdam([w], lr=0.1)
>>> (w * w).sum().backward(); opt.step()
>>> 0.8 < w.item() < 0.9
True
"""
from .optimizer import (Optimizer, _addcdiv_, _addcmul_, _advance, _check_betas, _check_lr,
                        _check_nonneg, _scalar)

__all__ = ["NAdam"]


class NAdam(Optimizer):
    """NAdam (PyTorch's ``torch.optim.NAdam``).

    The momentum coefficient at step ``t`` is
    ``mu_t = beta1 * (1 - 0.5 * 0.96 ** (t * momentum_decay))``; the step combines
    the current gradient (weighted by ``(1 - mu_t) / (1 - prod mu)``) and the
    first moment (weighted by ``mu_{t+1} / (1 - prod mu * mu_{t+1})``), both
    divided by ``sqrt(v / (1 - beta2**t)) + eps``. The running product of the
    ``mu`` is kept in the state (``'mu_product'``) in the step counter's dtype.

    Parameters
    ----------
    params : iterable
    lr : float, default 2e-3
    betas : (float, float), default (0.9, 0.999)
    eps : float, default 1e-8
    weight_decay : float, default 0
    momentum_decay : float, default 4e-3
    decoupled_weight_decay : bool, default False
    foreach, capturable, differentiable
        Accepted for PyTorch compatibility; they do not change the arithmetic.
    maximize : bool, default False

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import NAdam
    >>> w = cygrad.zeros(2, requires_grad=True)
    >>> opt = NAdam([w]); w.sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['exp_avg', 'exp_avg_sq', 'mu_product', 'step']
    """

    def __init__(self, params, lr=2e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=0,
                 momentum_decay=4e-3, decoupled_weight_decay=False, *, foreach=None,
                 maximize=False, capturable=False, differentiable=False):
        _check_lr(lr)
        _check_nonneg(eps, "epsilon value")
        _check_betas(betas)
        _check_nonneg(weight_decay, "weight_decay value")
        _check_nonneg(momentum_decay, "momentum_decay value")
        defaults = dict(lr=lr, betas=betas, eps=eps, weight_decay=weight_decay,
                        momentum_decay=momentum_decay,
                        decoupled_weight_decay=decoupled_weight_decay, maximize=maximize,
                        foreach=foreach, capturable=capturable, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p, grad, group):
        state = self._lazy_state(p, ["exp_avg", "exp_avg_sq"], [("mu_product", 1.0)])
        lr, wd = _scalar(group["lr"]), group["weight_decay"]
        beta1, beta2 = group["betas"]
        if group["maximize"]:
            grad = -grad
        step = _advance(state)
        bias_correction2 = 1 - beta2 ** step
        if wd != 0:
            if group["decoupled_weight_decay"]:
                p.mul_(1 - lr * wd)
            else:
                grad = grad.add(p, alpha=wd)
        mu = beta1 * (1.0 - 0.5 * 0.96 ** (step * group["momentum_decay"]))
        mu_next = beta1 * (1.0 - 0.5 * 0.96 ** ((step + 1) * group["momentum_decay"]))
        mu_product = state["mu_product"].mul_(mu).item()
        exp_avg = state["exp_avg"].lerp_(grad, 1 - beta1)
        exp_avg_sq = _addcmul_(state["exp_avg_sq"].mul_(beta2), grad, grad, 1 - beta2)
        denom = exp_avg_sq.div(bias_correction2).sqrt().add_(group["eps"])
        _addcdiv_(p, grad, denom, -lr * (1.0 - mu) / (1.0 - mu_product))
        _addcdiv_(p, exp_avg, denom, -lr * mu_next / (1.0 - mu_product * mu_next))
