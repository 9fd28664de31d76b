"""Adagrad: per-coordinate steps scaled by the root of the summed squared gradients.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import Adagrad
>>> w = cygrad.tensor([1.0, -3.0], requires_grad=True)
>>> opt = Adagrad([w], lr=0.5)
>>> (w * w).sum().backward(); opt.step()
>>> [round(v, 4) for v in w.tolist()]   # the first step moves each entry by lr
[0.5, -2.5]
"""
from .. import full_like, tensor
from .optimizer import (Optimizer, _addcdiv_, _addcmul_, _advance, _check_lr, _check_nonneg,
                        _scalar, _scalar_state_dtype)

__all__ = ["Adagrad"]


class Adagrad(Optimizer):
    """Adagrad (PyTorch's ``torch.optim.Adagrad``).

    ``s += g**2`` and ``p -= clr * g / (sqrt(s) + eps)`` with the decayed rate
    ``clr = lr / (1 + (t - 1) * lr_decay)``. The sums start at
    ``initial_accumulator_value`` and are created when the optimizer is.

    Parameters
    ----------
    params : iterable
    lr : float, default 1e-2
    lr_decay : float, default 0
    weight_decay : float, default 0
    initial_accumulator_value : float, default 0
    eps : float, default 1e-10
    foreach, differentiable, fused
        Accepted for PyTorch compatibility; they do not change the arithmetic.
    maximize : bool, default False

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import Adagrad
    >>> w = cygrad.zeros(2, requires_grad=True)
    >>> opt = Adagrad([w], initial_accumulator_value=0.5)
    >>> opt.state[w]["sum"].tolist()
    [0.5, 0.5]
    """

    def __init__(self, params, lr=1e-2, lr_decay=0, weight_decay=0, initial_accumulator_value=0,
                 eps=1e-10, foreach=None, *, maximize=False, differentiable=False, fused=None):
        _check_lr(lr)
        _check_nonneg(lr_decay, "lr_decay value")
        _check_nonneg(weight_decay, "weight_decay value")
        _check_nonneg(initial_accumulator_value, "initial_accumulator_value value")
        _check_nonneg(eps, "epsilon value")
        defaults = dict(lr=lr, lr_decay=lr_decay, eps=eps, weight_decay=weight_decay,
                        initial_accumulator_value=initial_accumulator_value, foreach=foreach,
                        maximize=maximize, differentiable=differentiable, fused=fused)
        super().__init__(params, defaults)
        for group in self.param_groups:
            for p in group["params"]:
                self._init_state(p)

    def _init_state(self, p):
        state = self.state[p]
        state["step"] = tensor(0.0, dtype=_scalar_state_dtype())
        state["sum"] = full_like(p, self.defaults["initial_accumulator_value"])

    def _update(self, p, grad, group):
        state = self.state[p]
        if len(state) == 0:    # a group added after construction
            self._init_state(p)
        step = _advance(state)
        if group["maximize"]:
            grad = -grad
        if group["weight_decay"] != 0:
            grad = grad.add(p, alpha=group["weight_decay"])
        clr = _scalar(group["lr"]) / (1 + (step - 1) * group["lr_decay"])
        state_sum = _addcmul_(state["sum"], grad, grad)
        _addcdiv_(p, grad, state_sum.sqrt().add_(group["eps"]), -clr)
