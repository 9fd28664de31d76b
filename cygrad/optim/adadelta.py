"""Adadelta: steps scaled by the ratio of running RMS of updates and of gradients.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import Adadelta
>>> w = cygrad.tensor([1.0], requires_grad=True)
>>> opt = Adadelta([w])
>>> (w * w).sum().backward(); opt.step()
>>> w.item() < 1.0
True
"""
from .optimizer import Optimizer, _addcmul_, _advance, _check_lr, _check_nonneg, _scalar

__all__ = ["Adadelta"]


class Adadelta(Optimizer):
    """Adadelta (PyTorch's ``torch.optim.Adadelta``).

    ``v = rho * v + (1 - rho) * g**2``, ``d = sqrt(u + eps) / sqrt(v + eps) * g``,
    ``u = rho * u + (1 - rho) * d**2`` and ``p -= lr * d``.

    Parameters
    ----------
    params : iterable
    lr : float, default 1.0
    rho : float, default 0.9
    eps : float, default 1e-6
    weight_decay : float, default 0
    foreach, capturable, differentiable
        Accepted for PyTorch compatibility; they do not change the arithmetic.
    maximize : bool, default False

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import Adadelta
    >>> Adadelta([cygrad.zeros(1, requires_grad=True)], rho=1.5)
    Traceback (most recent call last):
    ...
    ValueError: Invalid rho value: 1.5
    """

    def __init__(self, params, lr=1.0, rho=0.9, eps=1e-6, weight_decay=0, foreach=None, *,
                 capturable=False, maximize=False, differentiable=False):
        _check_lr(lr)
        if not 0.0 <= rho <= 1.0:
            raise ValueError(f"Invalid rho value: {rho}")
        _check_nonneg(eps, "epsilon value")
        _check_nonneg(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, rho=rho, eps=eps, weight_decay=weight_decay, maximize=maximize,
                        capturable=capturable, foreach=foreach, differentiable=differentiable)
        super().__init__(params, defaults)

    def _update(self, p, grad, group):
        state = self._lazy_state(p, ["square_avg", "acc_delta"])
        rho, eps = group["rho"], group["eps"]
        _advance(state)
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        square_avg = _addcmul_(state["square_avg"].mul_(rho), grad, grad, 1 - rho)
        std = square_avg.add(eps).sqrt_()
        delta = state["acc_delta"].add(eps).sqrt_().div_(std).mul_(grad)
        _addcmul_(state["acc_delta"].mul_(rho), delta, delta, 1 - rho)
        p.add_(delta, alpha=-_scalar(group["lr"]))
