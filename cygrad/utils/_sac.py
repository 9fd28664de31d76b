"""Selective activation checkpointing: which ops a checkpoint recomputes, chosen per op.

``create_selective_checkpoint_contexts(policy)`` returns the two context managers that
``checkpoint(fn, ..., use_reentrant=False, context_fn=...)`` enters around the forward
and around the recomputation. While one is entered, cygrad's op functions are swapped,
wherever cygrad's modules and the ``Tensor`` class hold them, for wrappers (the
mechanism of the profiler's op hooks and of ``vmap``, see ``cygrad/func/_batched.py``)
that ask the policy about each op call:

* forward: an op the policy saves (``MUST_SAVE``/``PREFER_SAVE``) runs once and its
  outputs are kept, with the op's own autograd node (so also what that node saves,
  e.g. a matmul's inputs); other ops run as usual.
* recompute: a saved op returns its kept outputs instead of running, connected to the
  recomputed inputs through the kept node, so gradients flow as if it had run; other
  ops run again.

Ops called inside a saved op (``linear`` calling ``matmul``) are not seen by the policy
(they do not run again during the recompute); ops called inside a recomputed op are.
In-place ops and :data:`SAC_IGNORED_OPS` are never saved.
"""
import enum
import sys
import threading
import types

from .._tensor import Tensor
from ..autograd.engine_api import grad as _grad
from ..autograd.function import Function
from ..autograd.grad_mode import is_grad_enabled
from ..func._batched import _unwrap

__all__ = ["CheckpointPolicy", "SelectiveCheckpointContext",
           "create_selective_checkpoint_contexts", "SAC_IGNORED_OPS"]

_tls = threading.local()


class CheckpointPolicy(enum.Enum):
    """What selective checkpointing does with one op's outputs.

    ``MUST_SAVE``/``PREFER_SAVE`` keep them from the forward (the op does not run in the
    recomputation); ``MUST_RECOMPUTE``/``PREFER_RECOMPUTE`` run the op again. As in
    PyTorch outside ``torch.compile``, the ``PREFER_`` values act as the ``MUST_`` ones.

    Examples
    --------
    >>> from cygrad.utils.checkpoint import CheckpointPolicy
    >>> CheckpointPolicy.MUST_SAVE.value
    0
    """
    MUST_SAVE = 0
    PREFER_SAVE = 1
    MUST_RECOMPUTE = 2
    PREFER_RECOMPUTE = 3


def _policy_from_bool(b):
    return CheckpointPolicy.MUST_SAVE if b else CheckpointPolicy.PREFER_RECOMPUTE


class SelectiveCheckpointContext:
    """The first argument of a policy function: ``is_recompute`` tells whether the call
    is made during the original forward (``False``) or the recomputation (``True``).

    Examples
    --------
    >>> from cygrad.utils.checkpoint import SelectiveCheckpointContext
    >>> SelectiveCheckpointContext(is_recompute=True).is_recompute
    True
    """

    def __init__(self, *, is_recompute):
        self.is_recompute = is_recompute


class _OpWrapper:
    """Stands in for one op while a selective-checkpoint context is entered. It equals
    (and hashes as) the op function it stands for, so ``op == cygrad.matmul`` and
    ``op in [cygrad.matmul]`` hold whether or not the ops are swapped."""

    def __init__(self, fn, op):
        self.__wrapped__ = fn
        self.op = op                  # the op function (for a method: its namesake)
        self.key = self               # the wrapper passed to the policy (set by _Swaps)
        self.__name__ = getattr(fn, "__name__", repr(fn))
        self.__qualname__ = getattr(fn, "__qualname__", self.__name__)
        self.__doc__ = getattr(fn, "__doc__", None)
        self.inplace = self.__name__.endswith("_") and not self.__name__.endswith("__")

    def __call__(self, *args, **kwargs):
        state = getattr(_tls, "state", None)
        if state is None:
            return self.__wrapped__(*args, **kwargs)
        return state.handle(self, args, kwargs)

    def __get__(self, obj, cls=None):
        return self if obj is None else types.MethodType(self, obj)

    def __eq__(self, other):
        return _unwrap(other) is self.op or (isinstance(other, _OpWrapper)
                                             and other.op is self.op)

    def __hash__(self):
        return hash(self.op)

    def __repr__(self):
        return f"<cygrad op {getattr(self.op, '__module__', '?')}.{self.__name__}>"


_INPLACE_DUNDERS = {"__iadd__", "__isub__", "__imul__", "__itruediv__", "__ifloordiv__",
                    "__imod__", "__ipow__", "__iand__", "__ior__", "__ixor__", "__setitem__"}
_NOT_SWAPPED = ("cygrad.func", "cygrad._core", "cygrad.autograd", "cygrad.distributed",
                "cygrad.viz", "cygrad.course", "cygrad.optim", "cygrad.utils",
                "cygrad.multiprocessing", "cygrad.profiler")


class _Swaps:
    """Every op function and ``Tensor`` op method with its wrapper, and where cygrad's
    modules hold them; :meth:`apply` swaps them in, :meth:`undo` puts back what was
    there (another swap's wrappers too, e.g. vmap's)."""

    def __init__(self):
        from ..profiler import _op_hooks
        found = _op_hooks._op_functions()
        ops = {fid: _OpWrapper(fn, fn) for fid, (fn, _) in found.items()}
        self.by_original = ops
        by_name = {}
        for w in ops.values():
            by_name.setdefault(w.__name__, w)
        self.modules = []
        self.methods = []             # (class, attribute, wrapper)
        for mod in _op_hooks._cygrad_modules():
            if mod.__name__.startswith(_NOT_SWAPPED):
                continue
            new = {attr: ops[id(_unwrap(v))] for attr, v in list(vars(mod).items())
                   if id(_unwrap(v)) in ops and not isinstance(v, type)}
            if new:
                self.modules.append((vars(mod), new))
            for klass in vars(mod).values():       # ops held as static methods (nn.Tanh.fn)
                if isinstance(klass, type) and klass.__module__ == mod.__name__:
                    self.methods += [(klass, attr, staticmethod(ops[id(_unwrap(v.__func__))]))
                                     for attr, v in list(vars(klass).items())
                                     if isinstance(v, staticmethod)
                                     and id(_unwrap(v.__func__)) in ops]
        for attr, original, name in _op_hooks._tensor_methods(found):
            w = _OpWrapper(original, original)
            key = by_name.get(name)
            if key is not None:
                w.op, w.key = key.op, key
            if attr in _INPLACE_DUNDERS:
                w.inplace = True
            self.methods.append((Tensor, attr, w))

    def apply(self):
        self.saved = [(d, {k: d.get(k) for k in new}) for d, new in self.modules]
        for d, new in self.modules:
            d.update(new)
        self.saved_methods = [(klass, attr, klass.__dict__.get(attr, _ABSENT))
                              for klass, attr, _ in self.methods]
        for klass, attr, w in self.methods:
            setattr(klass, attr, w)

    def undo(self):
        for d, old in self.saved:
            d.update(old)
        for klass, attr, old in self.saved_methods:
            if old is _ABSENT:
                delattr(klass, attr)
            else:
                setattr(klass, attr, old)


_ABSENT = object()
_swaps = None
_swaps_key = 0
_installed = 0
_lock = threading.Lock()


def _install():
    global _swaps, _swaps_key, _installed
    with _lock:
        if _installed == 0:
            if _swaps is None or len(sys.modules) != _swaps_key:
                _swaps, _swaps_key = _Swaps(), len(sys.modules)
            _swaps.apply()
        _installed += 1


def wrapper_of(fn):
    """What stands for op ``fn`` while the ops are swapped (``fn`` itself otherwise), so
    that ``checkpoint(cygrad.sin, x, context_fn=...)`` is seen by the policy too."""
    if _installed == 0 or _swaps is None:
        return fn
    return _swaps.by_original.get(id(_unwrap(fn)), fn)


def _uninstall():
    global _installed
    with _lock:
        _installed -= 1
        if _installed == 0:
            _swaps.undo()


# --------------------------------------------------------------------- the kept ops

class _Entry:
    """One saved op call: its outputs computed on detached copies of its inputs (the
    op's autograd node then links outputs to those copies), and the outputs' versions."""

    def __init__(self, fn, args, kwargs):
        from ..func._pytree import tree_flatten, tree_unflatten
        leaves, spec = tree_flatten((args, kwargs))
        grad_on = is_grad_enabled()
        self.inputs = []
        fresh = []
        for x in leaves:
            if isinstance(x, Tensor):
                d = x.detach().requires_grad_(x.requires_grad and grad_on)
                self.inputs.append(d)
                fresh.append(d)
            else:
                fresh.append(x)
        a, k = tree_unflatten(fresh, spec)
        out = fn(*a, **k)
        outs, self.out_spec = tree_flatten(out)
        self.outputs = outs
        self.versions = [o._version if isinstance(o, Tensor) else None for o in outs]
        self.differentiable = any(d.requires_grad for d in self.inputs) and \
            any(isinstance(o, Tensor) and o.requires_grad for o in outs)

    def value(self, inputs, allow_mutation):
        from ..func._pytree import tree_unflatten
        if not allow_mutation:
            for o, v in zip(self.outputs, self.versions):
                if isinstance(o, Tensor) and o._version != v:
                    raise RuntimeError(
                        "Tried to mutate a tensor that was saved by selective activation "
                        "checkpointing, or is an alias of one; pass "
                        "allow_cache_entry_mutation=True to "
                        "create_selective_checkpoint_contexts to allow it.")
        if self.differentiable and len(inputs) == len(self.inputs):
            res = _Replay.apply(self, *inputs)
            res = res if isinstance(res, tuple) else (res,)
            it = iter(res)
            outs = [next(it) if isinstance(o, Tensor) else o for o in self.outputs]
        else:
            outs = [o.detach() if isinstance(o, Tensor) else o for o in self.outputs]
        return tree_unflatten(outs, self.out_spec)


class _Replay(Function):
    """The kept outputs of one op, as a function of the inputs it sees now; backward is
    the kept node's backward (the op does not run again)."""
    _node_name = "SelectiveCheckpointBackward"

    @staticmethod
    def forward(ctx, entry, *inputs):
        ctx.entry = entry
        outs = [o.detach() for o in entry.outputs if isinstance(o, Tensor)]
        nondiff = [o for o in outs if not (o.is_floating_point() or o.is_complex())]
        if nondiff:
            ctx.mark_non_differentiable(*nondiff)
        return tuple(outs) if len(outs) != 1 else outs[0]

    @staticmethod
    def backward(ctx, *grads):
        if is_grad_enabled():
            # the kept node links the outputs to copies of the inputs, not to the
            # recomputed ones: a graph of this gradient would miss their dependence
            raise NotImplementedError("selective activation checkpointing: double backward "
                                      "(create_graph=True) through a saved op is not "
                                      "supported; recompute that op instead")
        entry = ctx.entry
        outs = [o for o in entry.outputs if isinstance(o, Tensor)]
        pairs = [(o, g) for o, g in zip(outs, grads) if o.requires_grad and g is not None]
        wrt = [d for d in entry.inputs if d.requires_grad]
        got = {}
        if pairs and wrt:
            res = _grad([o for o, _ in pairs], wrt, [g for _, g in pairs], allow_unused=True,
                        retain_graph=True)
            got = {id(d): g for d, g in zip(wrt, res)}
        return (None,) + tuple(got.get(id(d)) for d in entry.inputs)

    @staticmethod
    def jvp(ctx, entry_tangent, *tangents):
        raise NotImplementedError("selective activation checkpointing: forward-mode AD "
                                  "through a saved op is not supported")


# ------------------------------------------------------------------- the two modes

def _tensor_inputs(args, kwargs):
    from ..func._pytree import tree_flatten
    return [x for x in tree_flatten((args, kwargs))[0] if isinstance(x, Tensor)]


class _Mode:
    """One of the two context managers; ``handle`` decides each op call."""

    def __init__(self, policy_fn, storage, recompute, allow_mutation=False):
        self.policy_fn = policy_fn
        self.storage = storage
        self.recompute = recompute
        self.allow_mutation = allow_mutation

    def __enter__(self):
        _install()
        self.prev = getattr(_tls, "state", None)
        _tls.state = self
        return self

    def __exit__(self, *exc):
        _tls.state = self.prev
        _uninstall()
        return False

    def _policy(self, op, args, kwargs):
        _tls.state = None              # ops the policy calls are not checkpointed
        try:
            policy = self.policy_fn(SelectiveCheckpointContext(is_recompute=self.recompute),
                                    op, *args, **kwargs)
        finally:
            _tls.state = self
        if isinstance(policy, bool):
            policy = _policy_from_bool(policy)
        if not isinstance(policy, CheckpointPolicy):
            raise TypeError(f"selective checkpoint policy_fn must return a CheckpointPolicy "
                            f"(or a bool), got {policy!r} for {op!r}")
        return policy in (CheckpointPolicy.MUST_SAVE, CheckpointPolicy.PREFER_SAVE)

    def handle(self, wrapper, args, kwargs):
        fn, op = wrapper.__wrapped__, wrapper.key
        if wrapper.inplace or op in SAC_IGNORED_OPS or not self._policy(op, args, kwargs):
            return fn(*args, **kwargs)
        _tls.state = None              # a saved op's inner ops are the op's business
        try:
            if not self.recompute:
                entry = _Entry(fn, args, kwargs)
                self.storage.setdefault(op, []).append(entry)
                return entry.value(_tensor_inputs(args, kwargs), self.allow_mutation)
            kept = self.storage.get(op)
            if kept is None:
                raise RuntimeError(f"{op!r} encountered during backward, but not found in "
                                   f"storage")
            if not kept:
                raise RuntimeError("Trying to backward an extra time. You are only allowed "
                                   "to backward once on any region computed under "
                                   "selective activation checkpoint.")
            return kept.pop(0).value(_tensor_inputs(args, kwargs), self.allow_mutation)
        finally:
            _tls.state = self


def _is_op(x):
    from ..profiler import _op_hooks
    if isinstance(x, _OpWrapper):
        return True
    fn = _unwrap(x)
    return callable(fn) and _op_hooks._is_op_function(getattr(fn, "__name__", ""), fn)


def create_selective_checkpoint_contexts(policy_fn_or_list, allow_cache_entry_mutation=False):
    """The ``context_fn`` pair for selective activation checkpointing.

    As ``torch.utils.checkpoint.create_selective_checkpoint_contexts``: pass
    ``context_fn=functools.partial(create_selective_checkpoint_contexts, policy)`` to
    ``checkpoint(..., use_reentrant=False)``. The outputs of the ops the policy saves
    are kept from the forward and not computed again in backward; the other ops are
    recomputed.

    Parameters
    ----------
    policy_fn_or_list : callable or list of ops
        ``policy_fn(ctx, op, *args, **kwargs)`` returning a :class:`CheckpointPolicy`
        (a bool: ``True`` means ``MUST_SAVE``), called for each op in the forward and in
        the recomputation (``ctx.is_recompute``); it must decide the same way both times.
        ``op`` is the cygrad op function (``cygrad.matmul``,
        ``cygrad.nn.functional.linear`` ...; a ``Tensor`` method or operator is passed as
        the op function of its name) where PyTorch passes an aten op overload. A list of
        op functions saves those (``MUST_SAVE``) and recomputes the rest.
    allow_cache_entry_mutation : bool
        Allow a kept output to be modified in place after it was kept (by default that
        raises ``RuntimeError`` when the recomputation reaches the op).

    Returns
    -------
    (forward context, recompute context)

    Raises
    ------
    ValueError
        A list entry that is not a cygrad op function.
    TypeError
        Neither a callable nor a list.

    Examples
    --------
    >>> import functools, cygrad
    >>> from cygrad.utils.checkpoint import checkpoint, create_selective_checkpoint_contexts
    >>> w = cygrad.randn(4, 4, requires_grad=True)
    >>> ctx_fn = functools.partial(create_selective_checkpoint_contexts, [cygrad.matmul])
    >>> y = checkpoint(lambda x: cygrad.matmul(x, w).relu(), cygrad.randn(2, 4),
    ...                use_reentrant=False, context_fn=ctx_fn)
    >>> y.sum().backward()
    >>> w.grad.shape
    cygrad.Size([4, 4])
    """
    if isinstance(policy_fn_or_list, list):
        ops = list(policy_fn_or_list)
        for op in ops:
            if not _is_op(op):
                raise ValueError(f"Expected op in `op_list` to be a cygrad op function (such "
                                 f"as cygrad.matmul) but got {op!r} of type {type(op)}.")

        def policy_fn(ctx, op, *args, **kwargs):
            return CheckpointPolicy.MUST_SAVE if op in ops else \
                CheckpointPolicy.PREFER_RECOMPUTE
    elif callable(policy_fn_or_list):
        policy_fn = policy_fn_or_list
    else:
        raise TypeError("policy_fn_or_list must be either a function or a list of ops.")
    storage = {}
    return (_Mode(policy_fn, storage, False),
            _Mode(policy_fn, storage, True, allow_cache_entry_mutation))


def _ignored():
    import cygrad
    # detach as in PyTorch; the empty factories because their output is filled in place
    # next (keeping it would keep garbage and then fail the mutation check)
    from ..ops._tensor_extras import detach
    names = ("empty", "empty_like", "empty_strided")
    return {detach} | {getattr(cygrad, n) for n in names if hasattr(cygrad, n)}


#: Ops that selective checkpointing never asks the policy about (they always run):
#: ``Tensor.detach`` and the ``empty`` factories.
SAC_IGNORED_OPS = _ignored()
