"""``torch.compile`` and the control-flow operators ``torch.cond`` /
``torch.while_loop``, for an eager-only library.

cygrad has no graph compiler: ``compile`` returns the model or function unchanged,
so a script written for PyTorch 2 runs (at eager speed, with the same results).
``cond`` and ``while_loop`` run their Python branches directly, which is what
PyTorch's eager mode does with them too.

Examples
--------
>>> import cygrad
>>> f = cygrad.compile(lambda x: x * 2)
>>> f(cygrad.ones(2)).tolist()
[2.0, 2.0]
"""
from ._core.tensor import TensorBase

__all__ = ["compile", "cond", "while_loop"]


def compile(model=None, *, fullgraph=False, dynamic=None, backend="inductor", mode=None,
            options=None, disable=False):
    """Return ``model`` unchanged (``torch.compile``'s signature; cygrad runs
    eagerly). With no model, a decorator doing the same.

    Examples
    --------
    >>> import cygrad
    >>> net = cygrad.nn.Linear(2, 1)
    >>> cygrad.compile(net, mode="reduce-overhead") is net
    True
    """
    if mode is not None and options is not None:
        raise RuntimeError("Either mode or options can be specified, but both can't be specified "
                           "at the same time.")
    if model is None:
        return lambda fn: compile(fn, fullgraph=fullgraph, dynamic=dynamic, backend=backend,
                                  mode=mode, options=options, disable=disable)
    if not callable(model):
        raise RuntimeError("torch.compile() expects a callable or nn.Module")
    return model


def _predicate(pred, opname):
    if isinstance(pred, TensorBase):
        if pred.numel() != 1:
            raise RuntimeError(f"{opname}: expected the predicate to be a boolean tensor with a "
                               f"single element, got shape {list(pred.shape)}")
        return bool(pred.item())
    if isinstance(pred, (bool, int)):
        return bool(pred)
    raise RuntimeError(f"{opname}: expected the predicate to be a bool or a one-element tensor, "
                       f"got {type(pred).__name__}")


def cond(pred, true_fn, false_fn, operands=()):
    """``true_fn(*operands)`` if ``pred`` else ``false_fn(*operands)``
    (``torch.cond``); ``pred`` is a bool or a one-element tensor.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, -2.0])
    >>> cygrad.cond(x.sum() > 0, lambda a: a + 1, lambda a: a - 1, (x,)).tolist()
    [0.0, -3.0]
    """
    operands = tuple(operands) if isinstance(operands, (list, tuple)) else (operands,)
    return (true_fn if _predicate(pred, "cond") else false_fn)(*operands)


def while_loop(cond_fn, body_fn, carried_inputs):
    """Run ``carried = body_fn(*carried)`` while ``cond_fn(*carried)`` holds, and
    return the final ``carried`` tuple (``torch.while_loop``).

    Examples
    --------
    >>> import cygrad
    >>> i, x = cygrad.while_loop(lambda i, x: i < 3, lambda i, x: (i + 1, x * 2),
    ...                          (cygrad.tensor(0), cygrad.ones(2)))
    >>> i.item(), x.tolist()
    (3, [8.0, 8.0])
    """
    if not isinstance(carried_inputs, (list, tuple)):
        raise RuntimeError("carried_inputs must be a tuple or list, got "
                           f"{type(carried_inputs).__name__}")
    carried = tuple(carried_inputs)
    while _predicate(cond_fn(*carried), "while_loop"):
        out = body_fn(*carried)
        out = tuple(out) if isinstance(out, (list, tuple)) else (out,)
        if len(out) != len(carried):
            raise RuntimeError(f"body_fn should return as many values as carried_inputs "
                               f"({len(carried)}), got {len(out)}")
        carried = out
    return carried
