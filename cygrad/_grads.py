"""Clearing ``.grad``: the one loop behind ``Module.zero_grad`` and ``Optimizer.zero_grad``."""


def zero_grads(params, set_to_none=True):
    """Reset the ``.grad`` of every tensor in ``params``, as PyTorch's ``zero_grad``.

    With ``set_to_none`` the gradient is dropped (the next backward allocates a fresh
    one); otherwise it is detached from any graph and filled with zeros in place.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad._grads import zero_grads
    >>> w = cygrad.ones(2, requires_grad=True)
    >>> (w * 3).sum().backward()
    >>> zero_grads([w], set_to_none=False); w.grad.tolist()
    [0.0, 0.0]
    >>> zero_grads([w]); w.grad is None
    True
    """
    for p in params:
        if p.grad is None:
            continue
        if set_to_none:
            p.grad = None
            continue
        if p.grad.grad_fn is not None:
            p.grad.detach_()
        else:
            p.grad.requires_grad_(False)
        p.grad.zero_()
