"""Activation checkpointing, as ``torch.utils.checkpoint``: trade compute for memory.

``checkpoint(fn, *args)`` runs ``fn`` without keeping its intermediate results for
backward; backward runs ``fn`` again (with the random state it had the first time, so
dropout draws the same mask) and differentiates that recomputation. A stack of
checkpointed blocks then holds only the blocks' inputs between forward and backward,
not every activation inside them.

Both of PyTorch's variants exist:

* ``use_reentrant=True`` (PyTorch's historical default): the forward runs under
  ``no_grad``; backward recomputes and calls ``backward`` on the recomputed outputs,
  which accumulates into the parameters' ``.grad``. As in PyTorch, gradients reach
  the parameters only if some tensor argument requires grad, and ``autograd.grad``
  through it is refused.
* ``use_reentrant=False`` (recommended): the forward runs once with grad on, finds the
  leaf tensors the result depends on (the parameters ``fn`` uses), and drops that
  graph; backward recomputes and returns gradients for the arguments and those
  leaves, so ``autograd.grad`` works and arguments need not require grad; double
  backward and forward-mode AD (``J v`` of a recomputation) work too. Tensors that
  ``fn`` reads from its closure and that have a history (non-leaf tensors requiring
  grad) must be passed as arguments instead.

With ``determinism_check='default'`` the non-reentrant variant checks that the
recomputed outputs have the shapes and dtypes of the original ones and raises
:class:`CheckpointError` otherwise (``'none'`` skips the check).

Exclusions: ``debug=True`` raises ``ValueError`` (there is no operator trace to
print), as does a ``context_fn`` with the reentrant variant (as in PyTorch);
``GraphExecGroup`` (PyTorch's grouping of several backward calls over one
recomputation) is not provided; cygrad has no accelerator states to save, so
``get_device_states`` returns empty lists.

Selective checkpointing (``create_selective_checkpoint_contexts``,
``CheckpointPolicy``, ``SelectiveCheckpointContext``, ``SAC_IGNORED_OPS``, from
``cygrad/utils/_sac.py``) chooses per op which outputs the non-reentrant variant keeps
and which it recomputes.
"""
import contextlib
import warnings

from .._tensor import Tensor
from ..autograd.engine_api import backward as _backward, grad as _grad
from ..autograd.function import Function
from ..autograd.grad_mode import enable_grad, no_grad, is_grad_enabled
from ..random import get_rng_state, set_rng_state
from ._sac import wrapper_of as _op_wrapper
from ._sac import (CheckpointPolicy, SelectiveCheckpointContext,
                   create_selective_checkpoint_contexts, SAC_IGNORED_OPS)

__all__ = ["checkpoint", "checkpoint_sequential", "CheckpointError", "CheckpointFunction",
           "check_backward_validity", "detach_variable", "get_device_states",
           "set_device_states", "noop_context_fn", "set_checkpoint_early_stop",
           "DefaultDeviceType", "set_checkpoint_debug_enabled", "CheckpointPolicy",
           "SelectiveCheckpointContext", "create_selective_checkpoint_contexts",
           "SAC_IGNORED_OPS"]


class CheckpointError(RuntimeError):
    """Raised when a recomputation does not match the original forward.

    Examples
    --------
    >>> from cygrad.utils.checkpoint import CheckpointError
    >>> issubclass(CheckpointError, RuntimeError)
    True
    """


def noop_context_fn():
    """The default ``context_fn``: two null context managers.

    Examples
    --------
    >>> from cygrad.utils.checkpoint import noop_context_fn
    >>> len(noop_context_fn())
    2
    """
    return contextlib.nullcontext(), contextlib.nullcontext()


def check_backward_validity(inputs):
    """Warn when no tensor in ``inputs`` requires grad (then checkpoint gives no gradients
    in the reentrant variant).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.checkpoint import check_backward_validity
    >>> check_backward_validity((cygrad.ones(1, requires_grad=True),))
    """
    if not any(isinstance(i, Tensor) and i.requires_grad for i in inputs):
        warnings.warn("None of the inputs have requires_grad=True. Gradients will be None",
                      stacklevel=3)


def detach_variable(inputs):
    """Detached copies (same memory) of the tensors in the tuple ``inputs``, each
    requiring grad as the original did; other values unchanged.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.checkpoint import detach_variable
    >>> x = cygrad.ones(2, requires_grad=True) * 2
    >>> (y,) = detach_variable((x,))
    >>> y.grad_fn is None, y.requires_grad
    (True, True)
    """
    if not isinstance(inputs, tuple):
        raise RuntimeError(f"Only tuple of tensors is supported. Got Unsupported input type: "
                           f"{type(inputs).__name__}")
    out = []
    for x in inputs:
        if isinstance(x, Tensor):
            out.append(x.detach().requires_grad_(x.requires_grad))
        else:
            out.append(x)
    return tuple(out)


def get_device_states(*args):
    """``(devices, states)`` of the accelerators the tensors in ``args`` live on.

    cygrad computes on the CPU only, whose state ``checkpoint`` saves itself, so both
    lists are empty.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.checkpoint import get_device_states
    >>> get_device_states(cygrad.ones(1))
    ([], [])
    """
    return [], []


def set_device_states(devices, states, *, device_type=None):
    """Restore accelerator random states from :func:`get_device_states` (nothing to do
    on the CPU).

    Examples
    --------
    >>> from cygrad.utils.checkpoint import set_device_states
    >>> set_device_states([], [])
    """
    if devices:
        raise RuntimeError("set_device_states: cygrad has no accelerator random states")


class DefaultDeviceType:
    """The device type whose random state checkpoint saves besides the CPU's ('cuda' by
    default, as in PyTorch; cygrad has none to save).

    Examples
    --------
    >>> from cygrad.utils.checkpoint import DefaultDeviceType
    >>> DefaultDeviceType.get_device_type()
    'cuda'
    """
    _default_device_type = "cuda"

    @staticmethod
    def set_device_type(device="cuda"):
        DefaultDeviceType._default_device_type = device

    @staticmethod
    def get_device_type():
        return DefaultDeviceType._default_device_type


_early_stop = True
_debug = False


@contextlib.contextmanager
def set_checkpoint_early_stop(enable):
    """Context manager kept for PyTorch's API. PyTorch stops a recomputation early once
    every needed tensor is regenerated; cygrad always recomputes the whole function,
    so this only records the flag.

    Examples
    --------
    >>> from cygrad.utils.checkpoint import set_checkpoint_early_stop
    >>> with set_checkpoint_early_stop(False):
    ...     pass
    """
    global _early_stop
    prev, _early_stop = _early_stop, bool(enable)
    try:
        yield
    finally:
        _early_stop = prev


@contextlib.contextmanager
def set_checkpoint_debug_enabled(enabled):
    """Context manager kept for PyTorch's API: records the flag (cygrad's checkpoint has
    no operator trace to print).

    Examples
    --------
    >>> from cygrad.utils.checkpoint import set_checkpoint_debug_enabled
    >>> with set_checkpoint_debug_enabled(True):
    ...     pass
    """
    global _debug
    prev, _debug = _debug, enabled
    try:
        yield
    finally:
        _debug = prev


# ------------------------------------------------------------------ the Functions

class _RngState:
    def __init__(self, preserve):
        self.state = get_rng_state() if preserve else None

    @contextlib.contextmanager
    def replay(self):
        if self.state is None:
            yield
            return
        outer = get_rng_state()
        set_rng_state(self.state)
        try:
            yield
        finally:
            set_rng_state(outer)


def _split(args):
    """Tensor positions and the other arguments, for ``Function.apply``."""
    return [i for i, a in enumerate(args) if isinstance(a, Tensor)]


class CheckpointFunction(Function):
    """The reentrant checkpoint: ``forward`` under ``no_grad``, ``backward`` recomputes
    and runs an inner backward pass.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.checkpoint import checkpoint
    >>> x = cygrad.ones(2, requires_grad=True)
    >>> checkpoint(cygrad.exp, x, use_reentrant=True).grad_fn.name()
    'CheckpointFunctionBackward'
    """

    @staticmethod
    def forward(ctx, run_function, preserve_rng_state, *args):
        ctx.run_function = run_function
        ctx.rng = _RngState(preserve_rng_state)
        ctx.tensor_indices = _split(args)
        ctx.inputs = [None if isinstance(a, Tensor) else a for a in args]
        ctx.save_for_backward(*[args[i] for i in ctx.tensor_indices])
        with no_grad():
            return run_function(*args)

    @staticmethod
    def backward(ctx, *grads):
        inputs = list(ctx.inputs)
        for i, t in zip(ctx.tensor_indices, ctx.saved_tensors):
            inputs[i] = t
        detached = detach_variable(tuple(inputs))
        with ctx.rng.replay(), enable_grad():
            outputs = ctx.run_function(*detached)
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        if not pairs:
            raise RuntimeError("none of output has requires_grad=True, this checkpoint() is "
                               "not necessary")
        _backward([o for o, _ in pairs], [g for _, g in pairs])
        return (None, None) + tuple(d.grad if isinstance(d, Tensor) else None
                                    for d in detached)


def _leaves_of(outputs, exclude):
    """The leaf tensors requiring grad that ``outputs`` depend on (not those in
    ``exclude``), by walking the graph from the outputs."""
    seen, found, stack = set(), [], []
    excluded = {id(t) for t in exclude}
    for o in outputs:
        if isinstance(o, Tensor) and o.grad_fn is not None:
            stack.append(o.grad_fn)
        elif isinstance(o, Tensor) and o.requires_grad and id(o) not in excluded:
            found.append(o)
    while stack:
        node = stack.pop()
        if node is None or id(node) in seen:
            continue
        seen.add(id(node))
        var = getattr(node, "variable", None) if node.name() == "AccumulateGrad" else None
        if var is not None:
            if id(var) not in excluded and all(var is not f for f in found):
                found.append(var)
            continue
        for nxt, _ in node.next_functions:
            if nxt is not None:
                stack.append(nxt)
    return found


def _metadata(t):
    return (tuple(t.shape), t.dtype) if isinstance(t, Tensor) else None


def _check_recomputed(expected, outputs):
    """PyTorch's default determinism check: recomputed tensors match in shape and dtype."""
    if expected is None:
        return
    got = [_metadata(o) for o in outputs]
    if got != expected:
        bad = [f"output {i}: saved {e}, recomputed {g}"
               for i, (e, g) in enumerate(zip(expected, got)) if e != g]
        if len(got) != len(expected):
            bad.append(f"{len(expected)} outputs saved, {len(got)} recomputed")
        raise CheckpointError("torch.utils.checkpoint: Recomputed values for the following "
                              "tensors have different metadata than during the forward pass.\n"
                              + "\n".join(bad))


class _NonReentrant(Function):
    """The non-reentrant checkpoint: inputs are the tensor arguments and the leaves the
    result depends on; outputs are the values computed beforehand (graph dropped)."""
    _node_name = "CheckpointBackward"

    @staticmethod
    def forward(ctx, spec, *tensors):
        ctx.spec = spec
        ctx.n_args = len(spec["indices"])
        ctx.save_for_backward(*tensors[:ctx.n_args])
        ctx.leaves = tensors[ctx.n_args:]
        return spec.pop("outputs")

    @staticmethod
    def backward(ctx, *grads):
        spec = ctx.spec
        args = list(spec["args"])
        arg_tensors = ctx.saved_tensors
        fresh = []
        higher_order = is_grad_enabled()      # backward(create_graph=True)
        for i, t in zip(spec["indices"], arg_tensors):
            if higher_order and t.requires_grad:
                d = t.view_as(t)              # the gradient stays a function of t
            else:
                d = t.detach().requires_grad_(t.requires_grad)
            args[i] = d
            fresh.append(d)
        with spec["rng"].replay(), enable_grad(), spec["recompute_ctx"]:
            outputs = _op_wrapper(spec["fn"])(*args, **spec["kwargs"])
        outputs = outputs if isinstance(outputs, tuple) else (outputs,)
        _check_recomputed(spec["metadata"], outputs)
        pairs = [(o, g) for o, g in zip(outputs, grads)
                 if isinstance(o, Tensor) and o.requires_grad and g is not None]
        wrt = [t for t in fresh + list(ctx.leaves) if t.requires_grad]
        res = {}
        if pairs and wrt:
            got = _grad([o for o, _ in pairs], wrt, [g for _, g in pairs], allow_unused=True,
                        create_graph=higher_order)
            res = {id(t): g for t, g in zip(wrt, got)}
        return (None,) + tuple(res.get(id(t)) for t in fresh + list(ctx.leaves))

    @staticmethod
    def jvp(ctx, spec_tangent, *tangents):
        """Forward mode: ``J v`` of a recomputation, by the double-vjp product (the
        function's own ops may lack forward formulas, and their values are gone)."""
        from ..func._eager import _double_vjp
        spec = ctx.spec
        if any(t is not None for t in tangents[ctx.n_args:]):
            raise NotImplementedError("checkpoint: forward-mode AD with tangents on tensors "
                                      "the function reads from its closure (not arguments) "
                                      "is not supported")
        args = list(spec["args"])
        fresh, tans = [], []
        for i, t, tan in zip(spec["indices"], ctx.saved_tensors, tangents[:ctx.n_args]):
            d = t.detach().requires_grad_(tan is not None)
            args[i] = d
            if tan is not None:
                fresh.append(d)
                tans.append(tan)
        with spec["rng"].replay(), enable_grad():
            outputs = spec["fn"](*args, **spec["kwargs"])
            outs = outputs if isinstance(outputs, tuple) else (outputs,)
            tensors = [o for o in outs if isinstance(o, Tensor) and o.is_floating_point()]
            jv = _double_vjp(tensors, fresh, tans, False) if fresh else [None] * len(tensors)
        it = iter(jv)
        res = tuple(next(it) if isinstance(o, Tensor) and o.is_floating_point() else None
                    for o in outs)
        return res if len(res) > 1 else res[0]


def _checkpoint_non_reentrant(function, preserve, context_fn, args, kwargs, check):
    rng = _RngState(preserve)
    forward_ctx, recompute_ctx = context_fn()
    indices = _split(args)
    fresh = list(args)
    for i in indices:
        fresh[i] = args[i].detach().requires_grad_(args[i].requires_grad)
    with forward_ctx:
        outputs = _op_wrapper(function)(*fresh, **kwargs)
    single = not isinstance(outputs, tuple)
    outs = (outputs,) if single else outputs
    if not is_grad_enabled():
        return outputs
    leaves = _leaves_of(outs, [fresh[i] for i in indices])
    spec = {"fn": function, "kwargs": kwargs, "rng": rng, "indices": indices,
            "args": [None if i in indices else a for i, a in enumerate(args)],
            "recompute_ctx": recompute_ctx,
            "metadata": [_metadata(o) for o in outs] if check else None,
            "outputs": tuple(o.detach() if isinstance(o, Tensor) else o for o in outs)}
    del outs, outputs, fresh
    result = _NonReentrant.apply(spec, *[args[i] for i in indices], *leaves)
    if single:
        return result[0] if isinstance(result, tuple) else result
    return result


_USE_REENTRANT_WARNING = (
    "torch.utils.checkpoint: the use_reentrant parameter should be passed explicitly. "
    "Starting in PyTorch 2.9, calling checkpoint without use_reentrant will raise an "
    "exception. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants.")


def checkpoint(function, *args, use_reentrant=None, context_fn=noop_context_fn,
               determinism_check="default", debug=False, early_stop=True, **kwargs):
    """Run ``function(*args)`` without keeping its activations; recompute them in backward.

    As ``torch.utils.checkpoint.checkpoint`` (see the module docstring for the two
    variants). The random state at the call is restored for the recomputation
    (``preserve_rng_state=True``, the default), so dropout masks match.

    Parameters
    ----------
    function : callable
        The part of the model to checkpoint.
    *args
        Its positional arguments.
    use_reentrant : bool
        Which variant; not passing it warns (PyTorch's warning) and selects ``True``.
    context_fn : callable
        Returns two context managers, entered around the forward and the recomputation
        (non-reentrant variant only).
    determinism_check : {'default', 'none'}
        Check the recomputed outputs' shapes and dtypes (non-reentrant variant).
    debug : bool
        Only ``False`` is supported.
    early_stop : bool
        Accepted; cygrad always recomputes the whole function.
    preserve_rng_state : bool, keyword
        Restore the random state for the recomputation (default True).
    **kwargs
        Keyword arguments of ``function`` (non-reentrant variant only).

    Returns
    -------
    What ``function`` returns.

    Raises
    ------
    ValueError
        Unexpected keyword arguments or a ``context_fn`` with ``use_reentrant=True``, an
        unknown ``determinism_check``, or ``debug=True``.
    CheckpointError
        In backward, when the recomputation's outputs differ in shape or dtype.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.checkpoint import checkpoint
    >>> lin = cygrad.nn.Linear(3, 3)
    >>> x = cygrad.randn(2, 3, requires_grad=True)
    >>> y = checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False)
    >>> y.sum().backward()
    >>> x.grad.shape, lin.weight.grad.shape
    (cygrad.Size([2, 3]), cygrad.Size([3, 3]))
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if use_reentrant is None:
        warnings.warn(_USE_REENTRANT_WARNING, stacklevel=2)
        use_reentrant = True
    if determinism_check not in ("default", "none"):
        raise ValueError(f"determinism_check should be one of ['default', 'none'], but got "
                         f"{determinism_check}")
    if debug:
        raise ValueError("checkpoint(debug=True) is not supported by cygrad (no operator "
                         "trace to print)")
    if use_reentrant:
        if context_fn is not noop_context_fn or debug:
            raise ValueError("Passing `context_fn` or `debug` is only supported when "
                             "use_reentrant=False.")
        if kwargs:
            raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
        if is_grad_enabled():
            check_backward_validity(args)
        return CheckpointFunction.apply(function, preserve, *args)
    return _checkpoint_non_reentrant(function, preserve, context_fn, args, kwargs,
                                     determinism_check == "default")


_SEQ_WARNING = (
    "torch.utils.checkpoint.checkpoint_sequential: the use_reentrant parameter should be "
    "passed explicitly. In version 2.9 we will raise an exception if use_reentrant is not "
    "passed. use_reentrant=False is recommended, but if you need to preserve the current "
    "default behavior, you can pass use_reentrant=True. Refer to docs for more details on "
    "the differences between the two variants.")


def checkpoint_sequential(functions, segments, input, use_reentrant=None, **kwargs):
    """Run a sequence of modules in ``segments`` checkpointed chunks.

    As ``torch.utils.checkpoint.checkpoint_sequential``: ``functions`` (an
    ``nn.Sequential`` or a list of modules/functions, each taking one input) is split
    into ``segments`` chunks; every chunk but the last is checkpointed, so only the
    chunk boundaries are kept for backward.

    Parameters
    ----------
    functions : nn.Sequential or list of callables
    segments : int
        Number of chunks.
    input : Tensor
        The input of the first function.
    use_reentrant : bool
        As for :func:`checkpoint` (not passing it warns and selects ``True``).
    preserve_rng_state : bool, keyword
        As for :func:`checkpoint`.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> from cygrad.utils.checkpoint import checkpoint_sequential
    >>> net = nn.Sequential(nn.Linear(4, 4), nn.ReLU(), nn.Linear(4, 4), nn.ReLU())
    >>> x = cygrad.randn(3, 4, requires_grad=True)
    >>> out = checkpoint_sequential(net, 2, x, use_reentrant=False)
    >>> out.shape
    cygrad.Size([3, 4])
    """
    preserve = kwargs.pop("preserve_rng_state", True)
    if kwargs:
        raise ValueError("Unexpected keyword arguments: " + ",".join(kwargs))
    if use_reentrant is None:
        warnings.warn(_SEQ_WARNING, stacklevel=2)
        use_reentrant = True
    from ..nn import Sequential
    if isinstance(functions, Sequential):
        functions = list(functions.children())
    functions = list(functions)
    if not isinstance(segments, int) or segments <= 0:
        raise ValueError(f"checkpoint_sequential: segments must be a positive int, got "
                         f"{segments!r}")
    size = len(functions) // segments
    if size == 0:
        raise ValueError(f"checkpoint_sequential: {segments} segments for "
                         f"{len(functions)} functions")

    def run(start, end):
        def forward(x):
            for j in range(start, end + 1):
                x = functions[j](x)
            return x
        return forward

    end = -1
    for start in range(0, size * (segments - 1), size):
        end = start + size - 1
        input = checkpoint(run(start, end), input, use_reentrant=use_reentrant,
                           preserve_rng_state=preserve)
    return run(end + 1, len(functions) - 1)(input)
