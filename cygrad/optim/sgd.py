"""Stochastic gradient descent with optional momentum, Nesterov momentum and weight decay.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import SGD
>>> w = cygrad.tensor([1.0, 2.0], requires_grad=True)
>>> opt = SGD([w], lr=0.5)
>>> (w * w).sum().backward(); opt.step()
>>> w.tolist()
[0.0, 0.0]
"""
from . import _fused
from .optimizer import Optimizer, _check_lr, _check_nonneg, _scalar

__all__ = ["SGD"]


class SGD(Optimizer):
    """Stochastic gradient descent (PyTorch's ``torch.optim.SGD``).

    With momentum ``mu`` and dampening ``tau`` the update is
    ``b = mu * b + (1 - tau) * g`` (``b = g`` on the first step), then
    ``p -= lr * (g + mu * b if nesterov else b)``, where ``g`` is the
    gradient plus ``weight_decay * p`` (negated when ``maximize``).

    Parameters
    ----------
    params : iterable
        Tensors or parameter-group dicts.
    lr : float, default 1e-3
    momentum : float, default 0
    dampening : float, default 0
    weight_decay : float, default 0
    nesterov : bool, default False
    maximize : bool, default False
    foreach : bool, optional
        ``False`` forces the per-parameter for-loop; ``None`` (default) and
        ``True`` use the fused C kernel for the parameters it takes.
    differentiable : bool, default False
        ``True`` takes the for-loop.
    fused : bool, optional
        ``True``: the fused C kernel; a parameter that is not floating point or
        not on the CPU raises ``RuntimeError`` at the step. ``False``: the
        for-loop. ``None``: as ``foreach``. See ``docs/optim.md``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import SGD
    >>> w = cygrad.tensor([1.0], requires_grad=True)
    >>> opt = SGD([w], lr=0.1, momentum=0.9, nesterov=True)
    >>> for _ in range(2):
    ...     opt.zero_grad(); (w * w).sum().backward(); opt.step()
    >>> round(w.item(), 4)
    0.2224
    """

    def __init__(self, params, lr=1e-3, momentum=0, dampening=0, weight_decay=0,
                 nesterov=False, *, maximize=False, foreach=None, differentiable=False,
                 fused=None):
        _check_lr(lr)
        _check_nonneg(momentum, "momentum value")
        _check_nonneg(weight_decay, "weight_decay value")
        defaults = dict(lr=lr, momentum=momentum, dampening=dampening,
                        weight_decay=weight_decay, nesterov=nesterov, maximize=maximize,
                        foreach=foreach, differentiable=differentiable, fused=fused)
        if nesterov and (momentum <= 0 or dampening != 0):
            raise ValueError("Nesterov momentum requires a momentum and zero dampening")
        super().__init__(params, defaults)
        _fused.check_flags(fused, foreach, differentiable)

    def _fused_step(self, group):
        return _fused.sgd_group(self, group) if _fused.wanted(group) else group["params"]

    def _update(self, p, grad, group):
        # Plain tensor ops in place; a scaled copy (``x * lr``) instead of ``alpha=``
        # skips add_'s per-call argument checks and is the same two kernel passes.
        # course: begin sgd-update
        if group["maximize"]:
            grad = -grad
        wd = group["weight_decay"]
        if wd != 0:
            grad = grad + p * wd
        momentum = group["momentum"]
        if momentum != 0:
            state = self.state[p]
            buf = state.get("momentum_buffer")
            if buf is None:
                buf = state["momentum_buffer"] = grad.detach().clone()
            else:
                dampening = group["dampening"]
                buf.mul_(momentum).add_(grad if dampening == 0 else grad * (1 - dampening))
            grad = grad + buf * momentum if group["nesterov"] else buf
        p.sub_(grad * _scalar(group["lr"]))
        # course: end sgd-update
