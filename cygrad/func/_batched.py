"""The batching layer under :func:`cygrad.func.vmap`: batched tensors and op dispatch.

A :class:`BatchedTensor` stands for one sample of a batch. It holds a *value*, a
tensor whose dim 0 is the batch dim, and the *level* of the ``vmap`` that made it;
the sample it stands for is ``value[i]``, so its ``shape`` is ``value.shape[1:]``.
Nested ``vmap`` calls nest the wrappers: the value of a level-2 tensor may be a
level-1 BatchedTensor, whose own value is the physical tensor ``(B1, B2, ...)``.

While a ``vmap`` runs, every op cygrad defines is swapped, wherever cygrad's
modules hold it, for a wrapper that calls :func:`dispatch` (the same mechanism as
the profiler's op hooks, ``cygrad/profiler/_op_hooks.py``, whose list of ops this
module reuses); a BatchedTensor's methods and operators call :func:`dispatch`
directly. ``dispatch`` calls the original op when no argument is batched; otherwise
it runs the op's **batching rule** (``_rules.py``): the rule rewrites the call into
one call of the op on the values (a reduction's ``dim`` shifted by one, a reshape's
shape prefixed with the batch size, operands padded so they broadcast), and wraps
the result. An op without a rule runs once per sample (``select``, call, ``stack``)
and warns, as PyTorch's vmap does. Functions a user bound to a name of their own
before vmap started (``from cygrad import exp``) are not swapped and refuse a
BatchedTensor.

Examples
--------
>>> import cygrad
>>> from cygrad.func import vmap
>>> vmap(lambda row: row.shape, out_dims=None)(cygrad.zeros(5, 3))
(3,)
"""
import sys
import threading
import warnings

from .._tensor import Tensor

__all__ = ["BatchedTensor", "dispatch", "call"]

_tls = threading.local()


def _levels():
    """The active vmap levels, outermost first: list of ``[level, size, randomness]``."""
    lv = getattr(_tls, "levels", None)
    if lv is None:
        lv = _tls.levels = []
    return lv


class BatchedTensor:
    """One sample of a batch, inside :func:`cygrad.func.vmap` (see the module docstring).

    Users do not make these: ``vmap`` passes them to the function it maps.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.func import vmap
    >>> vmap(lambda x: type(x).__name__, out_dims=None)(cygrad.zeros(2))
    'BatchedTensor'
    """
    __slots__ = ("_value", "_level", "__weakref__")

    def __init__(self, value, level):
        self._value = value
        self._level = level

    # ---------------------------------------------------------------- metadata
    @property
    def shape(self):
        return tuple(self._value.shape)[1:]

    def size(self, dim=None):
        s = self.shape
        if dim is None:
            from .. import Size
            return Size(s)
        return s[_norm_dim(dim, len(s))]

    def dim(self):
        return len(self.shape)

    ndimension = dim

    @property
    def ndim(self):
        return len(self.shape)

    def numel(self):
        n = 1
        for s in self.shape:
            n *= s
        return n

    nelement = numel

    def __len__(self):
        s = self.shape
        if not s:
            raise TypeError("len() of a 0-d tensor")
        return s[0]

    @property
    def dtype(self):
        return self._value.dtype

    @property
    def device(self):
        return self._value.device

    @property
    def is_cuda(self):
        return self._value.is_cuda

    @property
    def requires_grad(self):
        return self._value.requires_grad

    @property
    def grad_fn(self):
        return self._value.grad_fn

    def is_floating_point(self):
        return self._value.is_floating_point()

    def is_complex(self):
        return self._value.is_complex()

    def element_size(self):
        return self._value.element_size()

    def __repr__(self):
        return f"BatchedTensor(lvl={self._level}, bdim=0, value=\n{self._value!r}\n)"

    # ------------------------------------------------------- what vmap refuses
    def item(self):
        raise RuntimeError(
            "vmap: It looks like you're calling .item() on a Tensor. We don't support vmap over "
            "calling .item() on a Tensor, please try to rewrite what you're doing with other "
            "operations.")

    def _data_dependent(self, *a, **k):
        raise RuntimeError(
            "vmap: It looks like you're attempting to use a Tensor in some data-dependent control "
            "flow. We don't support that yet, please file an issue at "
            "https://github.com/pytorch/pytorch/issues .")

    __bool__ = __int__ = __float__ = __index__ = tolist = numpy = _data_dependent

    def backward(self, *a, **k):
        raise RuntimeError("vmap: calling .backward() inside vmap is not supported; use "
                           "cygrad.func.grad or cygrad.func.vjp inside the vmapped function.")

    def __iter__(self):
        return iter(self.unbind(0))

    # ------------------------------------------------------------ every op
    def __getattr__(self, name):
        if name.startswith("__"):
            raise AttributeError(name)
        attr = getattr(Tensor, name, None)
        if attr is None or not callable(attr):
            raise AttributeError(f"'Tensor' object has no attribute '{name}'")
        attr = getattr(attr, "__wrapped_by_vmap__", attr)

        def method(*args, **kwargs):
            return dispatch(name, attr, (self,) + args, kwargs)
        return method

    @property
    def T(self):
        return call("permute", self, tuple(range(self.dim() - 1, -1, -1)))

    @property
    def mT(self):
        return call("transpose", self, -2, -1)

    @property
    def data(self):
        return call("detach", self)

    __hash__ = object.__hash__


def _make_dunder(dunder, name):
    orig = getattr(Tensor, dunder)

    def op(self, *args):
        return dispatch(name, orig, (self,) + args, {})
    op.__name__ = dunder
    return op


# operator -> rule name (reflected operators keep self first: their rules are pointwise)
_DUNDERS = {
    "__add__": "add", "__radd__": "__radd__", "__sub__": "sub", "__rsub__": "__rsub__",
    "__mul__": "mul", "__rmul__": "__rmul__", "__truediv__": "div",
    "__rtruediv__": "__rtruediv__", "__floordiv__": "floor_divide",
    "__rfloordiv__": "__rfloordiv__", "__mod__": "remainder", "__rmod__": "__rmod__",
    "__pow__": "pow", "__rpow__": "__rpow__", "__neg__": "neg", "__pos__": "positive",
    "__abs__": "abs", "__invert__": "bitwise_not", "__and__": "bitwise_and",
    "__rand__": "__rand__", "__or__": "bitwise_or", "__ror__": "__ror__",
    "__xor__": "bitwise_xor", "__rxor__": "__rxor__",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__matmul__": "matmul", "__rmatmul__": "__rmatmul__",
    "__getitem__": "__getitem__", "__setitem__": "__setitem__",
    "__iadd__": "add_", "__isub__": "sub_", "__imul__": "mul_", "__itruediv__": "div_",
}
for _d, _n in _DUNDERS.items():
    if hasattr(Tensor, _d):
        setattr(BatchedTensor, _d, _make_dunder(_d, _n))


# ------------------------------------------------------------------------ helpers

def _norm_dim(d, rank):
    """A logical dim in ``[-rank, rank)`` as a non-negative int, or PyTorch's IndexError."""
    lo, hi = (-rank, rank - 1) if rank > 0 else (-1, 0)
    if not isinstance(d, int) or isinstance(d, bool) or not lo <= d <= hi:
        raise IndexError(f"Dimension out of range (expected to be in range of [{lo}, {hi}], "
                         f"but got {d})")
    return d % max(rank, 1)


def is_batched_at(x, level):
    return type(x) is BatchedTensor and x._level == level


def _scan_level(args, kwargs):
    """The highest vmap level among the BatchedTensors in the arguments (one list deep)."""
    best = 0
    for a in args:
        t = type(a)
        if t is BatchedTensor:
            if a._level > best:
                best = a._level
        elif t is list or t is tuple:
            for b in a:
                if type(b) is BatchedTensor and b._level > best:
                    best = b._level
    if kwargs:
        for a in kwargs.values():
            t = type(a)
            if t is BatchedTensor:
                if a._level > best:
                    best = a._level
            elif t is list or t is tuple:
                for b in a:
                    if type(b) is BatchedTensor and b._level > best:
                        best = b._level
    return best


def level_size(level):
    for lv, size, _ in _levels():
        if lv == level:
            return size
    raise RuntimeError(f"vmap: a BatchedTensor of level {level} outlived its vmap call")


def level_randomness(level):
    for lv, _, rnd in _levels():
        if lv == level:
            return rnd
    return "error"


# ------------------------------------------------------------------------ dispatch

_RULES = {}          # op name -> rule(level, orig, args, kwargs), filled by _rules.py
_RANDOM = {}         # op name -> rule for random ops (randomness flag), filled by _rules.py


def dispatch(name, orig, args, kwargs):
    """Run op ``name`` (``orig``, the unswapped function) on possibly batched arguments."""
    level = _scan_level(args, kwargs)
    rnd = _RANDOM.get(name)
    if rnd is not None and _levels():
        return rnd(name, level, orig, args, kwargs)
    if not level:
        return orig(*args, **kwargs)
    rule = _RULES.get(name)
    if rule is not None:
        out = rule(name, level, orig, args, kwargs)
        if out is not NotImplemented:
            return out
    return fallback(name, orig, level, args, kwargs)


_ORIG = {}           # op name -> the original public function (for rules that call ops)


def call(name, *args, **kwargs):
    """Call the public op ``name`` through :func:`dispatch` (rules use this to compose)."""
    orig = _ORIG.get(name)
    if orig is None:
        orig = _original(name)
    return dispatch(name, orig, args, kwargs)


def _original(name):
    import cygrad
    from ..nn import functional as F
    for ns in (cygrad, F):
        fn = vars(ns).get(name)
        if fn is not None:
            fn = getattr(fn, "__wrapped_by_vmap__", fn)
            _ORIG[name] = fn
            return fn
    fn = getattr(Tensor, name)
    _ORIG[name] = fn
    return fn


def _select(x, level, i):
    if is_batched_at(x, level):
        return call("select", x._value, 0, i)
    if type(x) in (list, tuple):
        return type(x)(_select(v, level, i) for v in x)
    return x


def fallback(name, orig, level, args, kwargs):
    """Run ``orig`` once per sample and stack the results (no batching rule for ``name``)."""
    warnings.warn(
        f"There is a performance drop because we have not yet implemented the batching rule "
        f"for {name}. Please file us an issue on GitHub so that we can prioritize its "
        f"implementation.", UserWarning, stacklevel=3)
    if name.endswith("_") and not name.endswith("__") or name == "__setitem__":
        self = args[0] if args else None
        if not is_batched_at(self, level):
            raise_inplace_error()
    results = []
    for i in range(level_size(level)):
        a = tuple(_select(v, level, i) for v in args)
        k = {key: _select(v, level, i) for key, v in kwargs.items()}
        results.append(dispatch(name, orig, a, k))
    return _stack_results(results, level, name)


def _stack_results(results, level, name):
    first = results[0]
    if isinstance(first, (Tensor, BatchedTensor)):
        return BatchedTensor(call("stack", results, 0), level)
    if isinstance(first, tuple) and first and all(isinstance(r, (Tensor, BatchedTensor))
                                                  for r in first):
        parts = [BatchedTensor(call("stack", [r[j] for r in results], 0), level)
                 for j in range(len(first))]
        return type(first)(*parts) if hasattr(type(first), "_fields") else tuple(parts)
    if all(r == first for r in results):
        return first
    raise RuntimeError(f"vmap: the fallback for {name} returned non-tensor values that differ "
                       f"between samples ({results[:3]}...), which cannot be batched.")


def raise_inplace_error():
    raise RuntimeError(
        "vmap: inplace arithmetic(self, *extra_args) is not possible because there exists a "
        "Tensor `other` in extra_args that has more elements than `self`. This happened due to "
        "`other` being vmapped over but `self` not being vmapped over in a vmap. Please try to "
        "use out-of-place operators instead of inplace arithmetic.")


# ----------------------------------------------------------- swapping the ops in

_ABSENT = object()    # a Tensor attribute that only TensorBase defines
_swaps = None         # built on first use: see _build_swaps
_swaps_key = 0        # len(sys.modules) when _swaps was built
_installed = 0         # vmap calls in progress, in every thread
_install_lock = threading.Lock()

# Tensor methods swapped too, so that ``plain.add_(batched)`` or ``plain.matmul(batched)``
# reach the rules (the operators need nothing: Python tries the BatchedTensor's reflected
# operator). Only methods that take a second tensor: each class attribute set costs more
# than a module's, and a method of a BatchedTensor never goes through Tensor.
_TENSOR_METHODS = {
    "add", "sub", "subtract", "mul", "multiply", "div", "divide", "true_divide", "pow",
    "floor_divide", "remainder", "fmod", "atan2", "hypot", "maximum", "minimum", "fmax",
    "fmin", "eq", "ne", "lt", "le", "gt", "ge", "logical_and", "logical_or", "logical_xor",
    "where", "masked_fill", "lerp", "addcmul", "addcdiv", "matmul", "mm", "bmm", "mv", "dot",
    "expand_as", "reshape_as", "view_as", "type_as", "gather", "index_select", "copy_",
    "add_", "sub_", "mul_", "div_", "pow_", "masked_fill_", "addcmul_", "addcdiv_", "lerp_",
    "clamp", "clamp_", "clip", "max", "min",
}


def _wrap(fn, name):
    def op(*args, **kwargs):
        return dispatch(name, fn, args, kwargs)
    op.__name__ = getattr(fn, "__name__", name)
    op.__qualname__ = getattr(fn, "__qualname__", name)
    op.__doc__ = getattr(fn, "__doc__", None)
    op.__wrapped__ = fn
    op.__wrapped_by_vmap__ = fn
    return op


# Not ops for vmap: they take no tensor, or answer about the tensor object itself.
_SKIP = {"is_tensor", "is_storage", "result_type", "can_cast", "promote_types", "numel",
         "is_floating_point", "is_complex"}


# Modules whose ops are not swapped: libraries that vmap does not reach. The ops' own
# modules are swapped too: an op function held where no swap reaches (a layer's
# ``self.activation = F.relu``) then still works when the ops it calls have rules.
_NOT_SWAPPED = ("cygrad.func", "cygrad._core", "cygrad.autograd", "cygrad.distributed",
                "cygrad.viz", "cygrad.course", "cygrad.optim", "cygrad.utils.data",
                "cygrad.multiprocessing", "cygrad.profiler")


def _unwrap(fn):
    """The function under wrappers that set ``__wrapped__`` (the profiler's op hooks)."""
    for _ in range(8):
        inner = getattr(fn, "__wrapped__", None) if callable(fn) else None
        if inner is None:
            return fn
        fn = inner
    return fn


class _Swaps:
    """Per module, the ops it holds: ``{attr: wrapper}`` and ``{attr: original}``,
    applied with one ``dict.update`` per module (setting ~1,000 attributes one by one
    made each vmap call cost milliseconds)."""

    def __init__(self):
        from ..profiler import _op_hooks
        ops = {}
        for modname, mod in list(sys.modules.items()):
            if mod is None or not modname.startswith(_op_hooks._OP_MODULES):
                continue
            for name, fn in list(vars(mod).items()):
                fn = _unwrap(fn)        # the op itself, also while the profiler is active
                if name not in _SKIP and _op_hooks._is_op_function(name, fn):
                    ops.setdefault(id(fn), (fn, fn.__name__))
        wrappers = {fid: _wrap(fn, name) for fid, (fn, name) in ops.items()}
        self.by_original = wrappers
        self.statics = []
        self.modules = []
        for mod in _op_hooks._cygrad_modules():
            if mod.__name__.startswith(_NOT_SWAPPED):
                continue
            new, old = {}, {}
            for attr, value in list(vars(mod).items()):
                w = wrappers.get(id(_unwrap(value)))
                if w is not None:
                    new[attr], old[attr] = w, value
                elif isinstance(value, type) and value.__module__ == mod.__name__:
                    self._static_ops(value, wrappers)
            if new:
                self.modules.append((vars(mod), new, old))
        self.methods = []
        for klass, attr, value, w in self.statics:
            self.methods.append((attr, value, w, klass))
        for klass in Tensor.__mro__[:-1]:
            for attr, value in vars(klass).items():
                if attr in _TENSOR_METHODS and callable(value) and \
                        attr not in {m[0] for m in self.methods if m[3] is Tensor}:
                    original = value if klass is Tensor else _ABSENT
                    self.methods.append((attr, original, _wrap(value, attr), Tensor))

    def _static_ops(self, klass, wrappers):
        """Ops that a layer class holds as static methods (``Conv2d._conv``)."""
        for attr, value in vars(klass).items():
            if isinstance(value, staticmethod):
                w = wrappers.get(id(_unwrap(value.__func__)))
                if w is not None:
                    self.statics.append((klass, attr, value, staticmethod(w)))

    def apply(self):
        # what each name holds now is what undo() puts back: while the profiler has
        # swapped the ops for its wrappers, those (reading every name costs ~0.1 ms,
        # so it is done only then)
        from ..profiler import _op_hooks
        if _op_hooks._swapped:
            self.current = [(d, {k: d.get(k, _ABSENT) for k in new})
                            for d, new, _ in self.modules]
        else:
            self.current = [(d, old) for d, _, old in self.modules]
        for d, new, _ in self.modules:
            d.update(new)
        self.current_methods = [(attr, klass.__dict__.get(attr, _ABSENT), klass)
                                for attr, _, _, klass in self.methods]
        for attr, _, w, klass in self.methods:
            setattr(klass, attr, w)

    def undo(self):
        for d, cur in self.current:
            d.update({k: v for k, v in cur.items() if v is not _ABSENT})
        for attr, original, klass in self.current_methods:
            if original is _ABSENT:
                delattr(klass, attr)
            else:
                setattr(klass, attr, original)


def install():
    """Swap every op for its vmap wrapper (nested vmaps count; the outermost swaps)."""
    global _swaps, _swaps_key, _installed
    with _install_lock:
        if _installed == 0:
            if _swaps is None or len(sys.modules) != _swaps_key:   # modules imported since
                _swaps, _swaps_key = _Swaps(), len(sys.modules)
            _swaps.apply()
        _installed += 1


def wrapper_of(fn):
    """The vmap wrapper of op ``fn`` (a function passed to vmap before the swap), or ``fn``."""
    if _swaps is None:
        return fn
    return _swaps.by_original.get(id(_unwrap(fn)), fn)


def uninstall():
    global _installed
    with _install_lock:
        _installed -= 1
        if not _installed:
            _swaps.undo()
