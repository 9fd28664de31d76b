"""The fused steps of SGD, Adam and AdamW: one C call updates every parameter of a
group (the kernels ``fused_sgd_`` / ``fused_adam_`` of the kernel table,
``cygrad/_core/cpu/optim.c``).

A group takes this path unless it asks for the for-loop (``foreach=False`` or
``fused=False``) or for ``differentiable=True``. Inside it, a parameter goes to
its device's kernel (CPU, or CUDA: ``cygrad/cuda/ops/optim.py``) when it, its
gradient and its buffers are tensors of that device, of one floating dtype
(float32 or float64), one shape and C-contiguous; the others
(float16, non-contiguous gradients, other devices, ...) are handed back and take
the optimizer's ``_update``, the per-parameter for-loop. The arithmetic is the
for-loop's, step by step, so both paths agree to float rounding
(``tests/test_optim_fused.py``); the state keys are the same.

Examples
--------
>>> import cygrad
>>> from cygrad.optim import SGD
>>> w = cygrad.tensor([1.0, 2.0], requires_grad=True)
>>> opt = SGD([w], lr=0.5, momentum=0.9)        # foreach=None, fused=None: the fused kernel
>>> (w * w).sum().backward(); opt.step()
>>> w.tolist(), opt.state[w]["momentum_buffer"].tolist()
([0.0, 0.0], [2.0, 4.0])
"""
from .._core import dispatch
from .._core.dtype import float32, float64
from ..ops.creation import empty_like, tensor, zeros_like
from .optimizer import _scalar, _scalar_state_dtype

__all__ = ["wanted", "check_flags", "sgd_group", "adam_group"]

_SUPPORTED_DEVICES = ["cpu", "cuda"]
_STEP_DTYPES = (float32, float64)


def wanted(group):
    """Whether ``group`` takes the fused path: not asked for the for-loop
    (``foreach=False`` or ``fused=False``) nor ``differentiable``.

    Examples
    --------
    >>> from cygrad.optim._fused import wanted
    >>> wanted({"foreach": None, "fused": None}), wanted({"foreach": False, "fused": None})
    (True, False)
    """
    return (group.get("fused") is not False and group.get("foreach") is not False
            and not group.get("differentiable", False))


def check_flags(fused, foreach, differentiable):
    """PyTorch's refusals of ``fused=True`` with ``foreach=True`` or ``differentiable``.

    Examples
    --------
    >>> from cygrad.optim._fused import check_flags
    >>> check_flags(True, True, False)
    Traceback (most recent call last):
        ...
    RuntimeError: `fused` and `foreach` cannot be `True` together.
    """
    if fused:
        if differentiable:
            raise RuntimeError("`fused` does not support `differentiable`")
        if foreach:
            raise RuntimeError("`fused` and `foreach` cannot be `True` together.")


def _refuse_unless_supported(p):
    # fused=True promises the fused kernels: PyTorch refuses, at the step, a
    # parameter no fused kernel exists for (non-floating, or on another device).
    if not (p.device.type in _SUPPORTED_DEVICES and p.is_floating_point()):
        raise RuntimeError("`fused=True` requires all the params to be floating point Tensors "
                           f"of supported devices: {_SUPPORTED_DEVICES} but {p.dtype} and "
                           f"{p.device.type}")


def _fusable(found, p, *others):
    """Whether the fused kernel of ``p``'s device takes ``p`` with ``others``; ``found``
    keeps the step's table lookups (one per device and dtype, not one per parameter:
    this runs for every parameter of every step)."""
    key = (p.device.type, p.dtype)
    fusable = found.get(key, _UNSEEN)
    if fusable is _UNSEEN:
        fusable = found[key] = dispatch.lookup("fused_optim_fusable", *key)
    return fusable is not None and fusable(p, *others)


_UNSEEN = object()


def _by_device(params, *lists):
    """``{device type: (params, *lists)}``: the parameters split by device type,
    each list keeping its entries beside its parameter's."""
    if not params:
        return {}
    first = params[0].device.type
    if all(p.device.type == first for p in params):    # the usual case: one device
        return {first: (params, *lists)}
    out = {}
    for i, p in enumerate(params):
        cols = out.setdefault(p.device.type, tuple([] for _ in range(len(lists) + 1)))
        cols[0].append(p)
        for col, lst in zip(cols[1:], lists):
            col.append(lst[i])
    return out


def sgd_group(opt, group):
    """One SGD step of the parameters of ``group`` that the kernel takes; returns the
    others (with a gradient), for the caller's for-loop.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import SGD
    >>> from cygrad.optim._fused import sgd_group
    >>> a = cygrad.tensor([1.0], requires_grad=True)
    >>> b = cygrad.tensor([1.0], dtype=cygrad.float16, requires_grad=True)
    >>> opt = SGD([a, b], lr=0.5)
    >>> (a + b.float()).sum().backward()
    >>> sgd_group(opt, opt.param_groups[0]) == [b], a.item()
    (True, 0.5)
    """
    momentum = group["momentum"]
    strict = group.get("fused") is True
    states = opt.state
    found = {}
    params, grads, bufs, first, rest = [], [], [], [], []
    for p in group["params"]:
        g = p.grad
        if g is None:
            continue
        buf = None
        if momentum != 0:
            state = states[p]
            buf = state.get("momentum_buffer")
        if not (_fusable(found, p, g) if buf is None else _fusable(found, p, g, buf)):
            if strict:
                _refuse_unless_supported(p)
            rest.append(p)
            continue
        params.append(p)
        grads.append(g)
        first.append(buf is None)
        if buf is None and momentum != 0:
            buf = state["momentum_buffer"] = empty_like(p)    # the kernel copies g into it
        bufs.append(buf)
    for dev, (params, grads, bufs, first) in _by_device(params, grads, bufs, first).items():
        dispatch.kernel("fused_sgd_", dev)(
            params, grads, bufs, first, float(_scalar(group["lr"])),
            float(_scalar(group["weight_decay"])), float(momentum),
            float(group["dampening"]), bool(group["nesterov"]), bool(group["maximize"]))
    return rest


def adam_group(opt, group):
    """One Adam/AdamW step of the parameters of ``group`` that the kernel takes;
    returns the others (with a gradient), for the caller's for-loop.

    New state is PyTorch's: ``step`` (a 0-d float32 tensor with ``fused=True``,
    else float32 or float64 as the default dtype), ``exp_avg``, ``exp_avg_sq``
    and, with ``amsgrad``, ``max_exp_avg_sq``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.optim import Adam
    >>> from cygrad.optim._fused import adam_group
    >>> w = cygrad.tensor([1.0, -1.0], requires_grad=True)
    >>> opt = Adam([w], lr=0.1)
    >>> w.sum().backward()
    >>> adam_group(opt, opt.param_groups[0]), [round(v, 4) for v in w.tolist()]
    ([], [0.9, -1.1])
    """
    amsgrad = group["amsgrad"]
    strict = group.get("fused") is True
    step_dtype = float32 if strict else _scalar_state_dtype()
    states = opt.state
    found = {}
    params, grads, ms, vs, xs, steps, rest = [], [], [], [], [], [], []
    for p in group["params"]:
        g = p.grad
        if g is None:
            continue
        state = states[p]
        if len(state) == 0:
            if not _fusable(found, p, g):
                if strict:
                    _refuse_unless_supported(p)
                rest.append(p)
                continue
            state["step"] = tensor(0.0, dtype=step_dtype)
            state["exp_avg"] = zeros_like(p)
            state["exp_avg_sq"] = zeros_like(p)
            if amsgrad:
                state["max_exp_avg_sq"] = zeros_like(p)
        m, v = state.get("exp_avg"), state.get("exp_avg_sq")
        x = state.get("max_exp_avg_sq") if amsgrad else None
        step = state.get("step")
        ok = (_fusable(found, p, g, m, v, x) if amsgrad else _fusable(found, p, g, m, v))
        if not ok or getattr(step, "dtype", None) not in _STEP_DTYPES or step.numel() != 1:
            rest.append(p)
            continue
        params.append(p)
        grads.append(g)
        ms.append(m)
        vs.append(v)
        xs.append(x)
        steps.append(step)
    beta1, beta2 = group["betas"]
    for dev, (params, grads, ms, vs, xs, steps) in _by_device(params, grads, ms, vs, xs,
                                                              steps).items():
        dispatch.kernel("fused_adam_", dev)(
            params, grads, ms, vs, xs, steps, float(_scalar(group["lr"])),
            float(_scalar(beta1)), float(_scalar(beta2)), float(group["eps"]),
            float(_scalar(group["weight_decay"])), bool(amsgrad), bool(group["maximize"]),
            bool(group.get("decoupled_weight_decay", False)))
    return rest
