"""AdamW: Adam with weight decay applied to the parameters, not the gradient.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import AdamW
>>> w = cygrad.tensor([2.0], requires_grad=True)
>>> opt = AdamW([w], lr=0.1, weight_decay=0.5)
>>> (w * 0).sum().backward(); opt.step()   # zero gradient: only the decay acts
>>> round(w.item(), 4)
1.9
"""
from .adam import Adam

__all__ = ["AdamW"]


class AdamW(Adam):
    """Adam with decoupled weight decay (PyTorch's ``torch.optim.AdamW``).

    Each step first scales the parameter by ``1 - lr * weight_decay``, then
    takes the Adam step of the plain gradient (see :class:`Adam`).

    Parameters
    ----------
    params : iterable
    lr : float, default 1e-3
    betas : (float, float), default (0.9, 0.999)
    eps : float, default 1e-8
    weight_decay : float, default 1e-2
    amsgrad : bool, default False
    maximize, foreach, capturable, differentiable, fused
        As for :class:`Adam`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import AdamW
    >>> opt = AdamW([cygrad.zeros(2, requires_grad=True)])
    >>> opt.param_groups[0]["weight_decay"], opt.param_groups[0]["decoupled_weight_decay"]
    (0.01, True)
    """

    def __init__(self, params, lr=1e-3, betas=(0.9, 0.999), eps=1e-8, weight_decay=1e-2,
                 amsgrad=False, *, maximize=False, foreach=None, capturable=False,
                 differentiable=False, fused=None):
        super().__init__(params, lr, betas, eps, weight_decay, amsgrad, foreach=foreach,
                         maximize=maximize, capturable=capturable,
                         differentiable=differentiable, fused=fused,
                         decoupled_weight_decay=True)
