"""RMSprop, optionally centered and with momentum.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import RMSprop
>>> w = cygrad.tensor([1.0], requires_grad=True)
>>> opt = RMSprop([w], lr=0.01)
>>> (w * w).sum().backward(); opt.step()
>>> round(w.item(), 4)   # first step: lr * g / sqrt(0.01 * g**2) = 10 * lr
0.9
"""
from .optimizer import Optimizer, _addcdiv_, _addcmul_, _advance, _check_lr, _check_nonneg, _scalar

__all__ = ["RMSprop"]


class RMSprop(Optimizer):
    """RMSprop (PyTorch's ``torch.optim.RMSprop``).

    ``v = alpha * v + (1 - alpha) * g**2``; the step divides the gradient by
    ``sqrt(v) + eps`` (``sqrt(v - mean_g**2) + eps`` when ``centered``, with
    ``mean_g`` a running mean of the gradient). With ``momentum`` the quotient
    goes through a momentum buffer first.

    Parameters
    ----------
    params : iterable
    lr : float, default 1e-2
    alpha : float, default 0.99
    eps : float, default 1e-8
    weight_decay : float, default 0
    momentum : float, default 0
    centered : bool, default False
    capturable, foreach, differentiable
        Accepted for PyTorch compatibility; they do not change the arithmetic.
    maximize : bool, default False

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import RMSprop
    >>> w = cygrad.zeros(2, requires_grad=True)
    >>> opt = RMSprop([w], centered=True, momentum=0.9)
    >>> w.sum().backward(); opt.step()
    >>> sorted(opt.state[w])
    ['grad_avg', 'momentum_buffer', 'square_avg', 'step']
    """

    def __init__(self, params, lr=1e-2, alpha=0.99, eps=1e-8, weight_decay=0, momentum=0,
                 centered=False, capturable=False, foreach=None, maximize=False,
                 differentiable=False):
        _check_lr(lr)
        _check_nonneg(eps, "epsilon value")
        _check_nonneg(momentum, "momentum value")
        _check_nonneg(weight_decay, "weight_decay value")
        _check_nonneg(alpha, "alpha value")
        defaults = dict(lr=lr, momentum=momentum, alpha=alpha, eps=eps, centered=centered,
                        weight_decay=weight_decay, capturable=capturable, foreach=foreach,
                        maximize=maximize, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p, grad, group):
        state = self._lazy_state(p, ["square_avg"]
                                 + (["momentum_buffer"] if group["momentum"] > 0 else [])
                                 + (["grad_avg"] if group["centered"] else []))
        alpha, lr = group["alpha"], _scalar(group["lr"])
        if group["maximize"]:
            grad = -grad
        _advance(state)
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        square_avg = _addcmul_(state["square_avg"].mul_(alpha), grad, grad, 1 - alpha)
        if group["centered"]:
            grad_avg = state["grad_avg"].lerp_(grad, 1 - alpha)
            avg = (square_avg - grad_avg * grad_avg).sqrt_()
        else:
            avg = square_avg.sqrt()
        avg.add_(group["eps"])
        if group["momentum"] > 0:
            buf = _addcdiv_(state["momentum_buffer"].mul_(group["momentum"]), grad, avg)
            p.add_(buf, alpha=-lr)
        else:
            _addcdiv_(p, grad, avg, -lr)
