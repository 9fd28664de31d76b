"""The 'cuda' kernels of the fused optimizer steps (``cuda_src/optim.cu``), with the
signatures and conventions of the CPU entries (``cygrad/_core/backend_cpu/optim.py``):

* ``fused_sgd_(params, grads, momentum_buffers, first, lr, weight_decay, momentum,
  dampening, nesterov, maximize)``;
* ``fused_adam_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr,
  beta1, beta2, eps, weight_decay, amsgrad, maximize, decoupled)``;
* ``fused_optim_fusable(param, *grad_and_buffers)``: whether the two above take
  this parameter: all CUDA tensors on one device, float32 or float64,
  C-contiguous, one dtype and shape.

One launch updates up to :data:`MULTI_MAX` parameters of one dtype and their
buffers in place (``cg_sgd_multi`` / ``cg_adam_multi``: the parameter is the
grid's y index); a single parameter, or a list naming one parameter twice, takes
one launch per parameter. The ``step``
counters of Adam may live on the host (as the optimizers make them) or on the
device; each is advanced by one before the step, and the bias corrections are
computed on the host from the new count, in double precision, as the CPU kernel
does.

Examples
--------
>>> from cygrad.cuda.ops import optim
>>> optim.PRIMITIVES
('fused_sgd_', 'fused_adam_', 'fused_optim_fusable')
"""
import struct

from ..._core import dispatch
from ..._core.optim_kernels import advance_host_steps, first_misfit, fusable_on as _fusable_on
from ..._core.tensor import TensorBase
from .. import kernels as _k

#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = ("fused_sgd_", "fused_adam_", "fused_optim_fusable")

_FLOATS = ("float32", "float64")


def _ok(t, like):
    # the rule the compiled checks apply (optim_kernels.fusable_on / first_misfit);
    # here only to name what a refused argument is
    return (isinstance(t, TensorBase) and t.dtype is like.dtype and t.shape == like.shape
            and t.is_contiguous() and (t.device is like.device or t.device == like.device))


def fusable(param, *others):
    """Whether :func:`sgd_` / :func:`adam_` can update ``param`` with ``others`` (its
    gradient and buffers; None entries are not allowed).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.cuda.ops.optim import fusable
    >>> fusable(cygrad.zeros(2), cygrad.zeros(2))          # CPU tensors: not these kernels
    False
    """
    # (compiled: the optimizers ask this for every parameter of every step)
    return _fusable_on("cuda", param, *others)


def _checked(t, like, what):
    if not _ok(t, like):
        raise RuntimeError(f"fused optimizer step: {what} must be a C-contiguous float32 or "
                           f"float64 CUDA tensor of the parameter's dtype, shape and device")
    return t


def _param(p):
    if not isinstance(p, TensorBase) or p.device.type != "cuda" or p.dtype.name not in _FLOATS:
        raise RuntimeError("fused optimizer step: a parameter must be a float32 or float64 "
                           "CUDA tensor")
    return _checked(p, p, "a parameter")


def _launch(p, name, args):
    n = p.numel()
    if n:
        sfx = _k.suffix(p.dtype.name)
        _k.launch(p.device.index, "optim.cu", f"cg_{name}_{sfx}", _k.grid_1d(n),
                  (_k.BLOCK, 1, 1), (n,) + tuple(args))


#: parameters per launch of the ``_multi`` kernels (optim.cu's CG_MULTI_MAX)
MULTI_MAX = 8
_MULTI_LIST = struct.Struct(f"<{MULTI_MAX}q{2 * MULTI_MAX}d{MULTI_MAX}q")


def _batches(items):
    """``items`` (tuples starting with the parameter) in runs for one ``_multi``
    launch each (one dtype and device, at most :data:`MULTI_MAX`), or None when some
    parameter appears twice (their updates would run concurrently: one launch each
    instead)."""
    if len({it[0].data_ptr() for it in items}) != len(items):
        return None
    runs = {}
    for it in items:
        p = it[0]
        if p.numel():
            lists = runs.setdefault((p.dtype, p.device.index), [[]])
            if len(lists[-1]) == MULTI_MAX:
                lists.append([])
            lists[-1].append(it)
    return [run for lists in runs.values() for run in lists]


def _launch_multi(name, run, tensors, scalars, args):
    """One launch of ``cg_<name>_multi_<dtype>`` over the parameters of ``run``:
    ``tensors(item)`` gives a parameter's tensors (None: none), one pointer argument
    each per slot, ``scalars(item)`` its (s0, s1, flag)."""
    p0 = run[0][0]
    pad = [0] * (MULTI_MAX - len(run))
    sizes = [it[0].numel() for it in run]
    sc = [list(c) + pad for c in zip(*[scalars(it) for it in run])]
    ptrs = []
    for col in zip(*[tensors(it) for it in run]):
        ptrs += [0 if t is None else t.data_ptr() for t in col] + pad
    grid = (_k.grid_1d(max(sizes))[0], len(run), 1)
    _k.launch(p0.device.index, "optim.cu", f"cg_{name}_multi_{_k.suffix(p0.dtype.name)}", grid,
              (_k.BLOCK, 1, 1),
              (len(run), _MULTI_LIST.pack(*sizes, *pad, *sc[0], *sc[1], *sc[2]), *ptrs) + args)


def sgd_(params, grads, momentum_buffers, first, lr, weight_decay, momentum, dampening,
         nesterov, maximize):
    """One SGD step of every parameter in ``params``, in place; ``first[i]`` says
    buffer i is new (it is then set from the gradient).

    Examples
    --------
    >>> from cygrad.cuda.ops.optim import sgd_
    >>> callable(sgd_)
    True
    """
    n = len(params)
    if len(grads) != n or len(momentum_buffers) != n or len(first) != n:
        raise ValueError("sgd_: params, grads, momentum_buffers and first differ in length")
    has_mom = momentum != 0
    if first_misfit("cuda", params, (grads, momentum_buffers) if has_mom else (grads,)):
        for i in range(n):          # (compiled above; this names what is refused)
            p = _param(params[i])
            _checked(grads[i], p, "a gradient")
            if has_mom:
                _checked(momentum_buffers[i], p, "a momentum buffer")
    items = [(params[i], grads[i], momentum_buffers[i] if has_mom else None, bool(first[i]))
             for i in range(n)]
    shared = (-1.0 if maximize else 1.0, weight_decay, momentum, 1.0 - dampening, -lr)
    flags = (int(weight_decay != 0), int(has_mom), int(has_mom and bool(nesterov)))
    runs = _batches(items) if len(items) > 1 else None
    for run in runs or ():
        _launch_multi("sgd", run, lambda it: it[:3], lambda it: (0.0, 0.0, int(has_mom and it[3])),
                      shared + flags)
    for p, g, b, fst in items:
        if runs is None:
            _launch(p, "sgd", (p.data_ptr(), g.data_ptr(), 0 if b is None else b.data_ptr(),
                               *shared, flags[0], flags[1], int(has_mom and fst), flags[2]))
        p._bump_version()
        if b is not None:
            b._bump_version()


def _advance(s):
    """Add one to a one-element float step counter (host or device); the new count."""
    s.fill_(float(s.item()) + 1.0)
    return float(s.item())


def adam_(params, grads, exp_avgs, exp_avg_sqs, max_exp_avg_sqs, steps, lr, beta1, beta2, eps,
          weight_decay, amsgrad, maximize, decoupled):
    """One Adam (``decoupled=True``: AdamW) step of every parameter, in place; each
    ``steps[i]`` is incremented first and the bias corrections use the new count.

    Examples
    --------
    >>> from cygrad.cuda.ops.optim import adam_
    >>> callable(adam_)
    True
    """
    n = len(params)
    if (len(grads) != n or len(exp_avgs) != n or len(exp_avg_sqs) != n or len(steps) != n
            or (amsgrad and len(max_exp_avg_sqs) != n)):
        raise ValueError("adam_: the lists of parameters, gradients and state differ in length")
    columns = (grads, exp_avgs, exp_avg_sqs) + ((max_exp_avg_sqs,) if amsgrad else ())
    if first_misfit("cuda", params, columns, steps):
        for i in range(n):          # (compiled above; this names what is refused)
            p = _param(params[i])
            for col, what in zip(columns, ("a gradient", "exp_avg", "exp_avg_sq",
                                           "max_exp_avg_sq")):
                _checked(col[i], p, what)
            s = steps[i]
            if (not isinstance(s, TensorBase) or s.numel() != 1
                    or s.dtype.name not in _FLOATS):
                raise RuntimeError("fused optimizer step: 'step' must be a one-element "
                                   "float32 or float64 tensor")
    items = [(params[i], grads[i], exp_avgs[i], exp_avg_sqs[i],
              max_exp_avg_sqs[i] if amsgrad else None, steps[i]) for i in range(n)]
    low_w = abs(1.0 - beta1) < 0.5
    shared = (-1.0 if maximize else 1.0, weight_decay, 1.0 - lr * weight_decay, 1.0 - beta1,
              1.0 - (1.0 - beta1), beta2, 1.0 - beta2, eps)
    flags = (int(weight_decay != 0), int(bool(decoupled)), int(bool(amsgrad)), int(low_w))
    # the counters on the host (as the optimizers make them) advanced in C, else each
    # with fill_ (a device counter)
    counts = advance_host_steps(steps)
    if counts is None:
        counts = [_advance(s) for s in steps]
    # (sqrt of the second bias correction, -step size) of each
    corrections = [((1.0 - beta2 ** t) ** 0.5, -(lr / (1.0 - beta1 ** t))) for t in counts]
    runs = _batches([it + (c,) for it, c in zip(items, corrections)]) if len(items) > 1 \
        else None
    for run in runs or ():
        _launch_multi("adam", run, lambda it: it[:5], lambda it: (it[6][0], it[6][1], 0),
                      shared + flags)
    for (p, g, m, v, x, s), c in zip(items, corrections):
        if runs is None:
            _launch(p, "adam", (p.data_ptr(), g.data_ptr(), m.data_ptr(), v.data_ptr(),
                                0 if x is None else x.data_ptr(), *shared, *c, *flags))
        for t_ in (p, m, v, x):
            if t_ is not None:
                t_._bump_version()


def register():
    """Register the fused optimizer steps as 'cuda' entries of the kernel table.

    Examples
    --------
    >>> from cygrad.cuda.ops import optim
    >>> callable(optim.register)
    True
    """
    dispatch.register("fused_sgd_", "cuda")(sgd_)
    dispatch.register("fused_adam_", "cuda")(adam_)
    dispatch.register("fused_optim_fusable", "cuda")(fusable)
