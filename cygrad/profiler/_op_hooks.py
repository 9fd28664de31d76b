"""Record every op while a profiler is active, at no cost when none is.

Ops are plain Python functions (``cygrad.ops``, ``cygrad.nn.functional`` ...) and
methods of ``cygrad.Tensor`` (many of them Cython fast paths on ``TensorBase``).
Rather than a test on every call, :func:`install` swaps each one, wherever cygrad's
own modules and the ``Tensor`` class hold it, for a wrapper that opens a span around
the call; :func:`uninstall` puts the originals back. An op called from inside
another (``linear`` calling ``matmul``) is recorded as its child.

Functions a user bound to a name of their own before profiling started (``from
cygrad import exp``) keep the original and are not recorded; ``cygrad.exp``,
``x.exp()`` and operators are.
"""
import sys
import types

from . import _recorder

# Where ops are defined. Public functions of these modules are ops unless listed in
# _NOT_OPS (queries and settings that do no tensor work).
_OP_MODULES = ("cygrad.ops", "cygrad.nn._ops", "cygrad.nn.functional", "cygrad.fft",
               "cygrad.random", "cygrad.linalg", "cygrad._core.tensor")
# The Cython core defines a few factories itself; its other functions are plumbing.
_CORE_MODULE = "cygrad._core.tensor"
_CORE_OPS = {"empty", "full", "ones", "zeros", "view_as_complex", "view_as_real"}
_NOT_OPS = {
    "tensor_method", "is_tensor", "is_storage", "is_floating_point", "is_complex",
    "is_nonzero", "is_conj", "is_neg", "numel", "result_type", "can_cast", "promote_types",
    "set_default_dtype", "get_default_dtype", "manual_seed", "seed", "initial_seed",
    "get_rng_state", "set_rng_state", "fork_rng", "kernel", "not_tensor", "apply_inplace",
}

# Tensor methods that are not ops (metadata, conversion, autograd bookkeeping).
_NOT_TENSOR_OPS = {
    "dim", "ndimension", "size", "stride", "numel", "nelement", "element_size",
    "is_contiguous", "is_floating_point", "is_complex", "is_signed", "is_conj", "is_neg",
    "is_inference", "is_shared", "is_pinned", "is_set_to", "data_ptr", "storage_offset",
    "untyped_storage", "storage", "get_device", "tolist", "numpy", "register_hook",
    "register_post_accumulate_grad_hook", "retain_grad", "backward", "requires_grad_",
    "share_memory_", "type", "to_device", "dim_order", "has_names", "is_leaf",
}

# Python's operator methods, recorded under the op's own name.
_DUNDER_OPS = {
    "__add__": "add", "__radd__": "add", "__iadd__": "add_",
    "__sub__": "sub", "__rsub__": "rsub", "__isub__": "sub_",
    "__mul__": "mul", "__rmul__": "mul", "__imul__": "mul_",
    "__truediv__": "div", "__rtruediv__": "div", "__itruediv__": "div_",
    "__floordiv__": "floor_divide", "__rfloordiv__": "floor_divide",
    "__ifloordiv__": "floor_divide_",
    "__mod__": "remainder", "__rmod__": "remainder", "__imod__": "remainder_",
    "__pow__": "pow", "__rpow__": "pow", "__ipow__": "pow_",
    "__matmul__": "matmul", "__rmatmul__": "matmul",
    "__neg__": "neg", "__pos__": "positive", "__abs__": "abs", "__invert__": "bitwise_not",
    "__and__": "bitwise_and", "__rand__": "bitwise_and", "__iand__": "bitwise_and_",
    "__or__": "bitwise_or", "__ror__": "bitwise_or", "__ior__": "bitwise_or_",
    "__xor__": "bitwise_xor", "__rxor__": "bitwise_xor", "__ixor__": "bitwise_xor_",
    "__lshift__": "bitwise_left_shift", "__rlshift__": "bitwise_left_shift",
    "__rshift__": "bitwise_right_shift", "__rrshift__": "bitwise_right_shift",
    "__eq__": "eq", "__ne__": "ne", "__lt__": "lt", "__le__": "le", "__gt__": "gt",
    "__ge__": "ge", "__getitem__": "__getitem__", "__setitem__": "__setitem__",
}

_CALLABLE_TYPES = (types.FunctionType, types.BuiltinFunctionType)

# (namespace, attribute, original or _ABSENT) for every swap made by install()
_swapped = []
_ABSENT = object()


def _wrap(fn, name, cat="cpu_op"):
    def op(*args, **kwargs):
        rec = _recorder.active
        if rec is None:
            return fn(*args, **kwargs)
        ev = rec.begin(name, cat, args)
        try:
            return fn(*args, **kwargs)
        finally:
            rec.end(ev)
    op.__name__ = getattr(fn, "__name__", name)
    op.__qualname__ = getattr(fn, "__qualname__", name)
    op.__doc__ = getattr(fn, "__doc__", None)
    op.__wrapped__ = fn
    return op


def _is_op_function(name, fn):
    if name.startswith("_") or name in _NOT_OPS or isinstance(fn, type):
        return False
    if not isinstance(fn, _CALLABLE_TYPES) and type(fn).__name__ != "cython_function_or_method":
        return False
    module = getattr(fn, "__module__", None) or ""
    if module == _CORE_MODULE:
        return name in _CORE_OPS
    return module.startswith(_OP_MODULES)


def _op_functions():
    """id(function) -> (function, name) for every op function cygrad defines."""
    found = {}
    for modname, mod in list(sys.modules.items()):
        if mod is None or not modname.startswith(_OP_MODULES):
            continue
        for name, fn in list(vars(mod).items()):
            if _is_op_function(name, fn):
                found.setdefault(id(fn), (fn, fn.__name__))
    return found


def _cygrad_modules():
    return [m for n, m in list(sys.modules.items())
            if m is not None and (n == "cygrad" or n.startswith("cygrad."))
            and not n.startswith("cygrad.profiler")]


def _swap(namespace, attr, new, setter):
    _swapped.append((namespace, attr, namespace.__dict__.get(attr, _ABSENT)
                     if isinstance(namespace, type) else vars(namespace)[attr]))
    setter(namespace, attr, new)


def _tensor_methods(ops):
    """(attribute, original, op name) for the ops of ``cygrad.Tensor``."""
    from .._tensor import Tensor
    out = []
    seen = set()
    for klass in Tensor.__mro__[:-1]:           # Tensor, TensorBase (not object)
        for attr, value in klass.__dict__.items():
            if attr in seen:
                continue
            seen.add(attr)
            if attr.startswith("_"):
                if attr not in _DUNDER_OPS:
                    continue
                name = _DUNDER_OPS[attr]
            elif attr in _NOT_TENSOR_OPS:
                continue
            else:
                name = attr
            if isinstance(value, (property, staticmethod, classmethod)) or not callable(value):
                continue
            if type(value).__name__ == "getset_descriptor":
                continue
            if id(value) in ops:
                name = ops[id(value)][1] if not attr.startswith("_") else name
            out.append((attr, value, name))
    return out


def install():
    """Swap every op for its recording wrapper (see the module docstring)."""
    from .._tensor import Tensor
    if _swapped:
        return
    ops = _op_functions()
    wrappers = {}
    try:
        for attr, original, name in _tensor_methods(ops):
            w = wrappers.get(id(original))
            if w is None:
                w = wrappers[id(original)] = _wrap(original, name)
            _swap(Tensor, attr, w, setattr)
        for fid, (fn, name) in ops.items():
            if fid not in wrappers:
                wrappers[fid] = _wrap(fn, name)
        for mod in _cygrad_modules():
            d = vars(mod)
            for attr, value in list(d.items()):
                w = wrappers.get(id(value))
                if w is not None and value is not Tensor and w.__wrapped__ is value:
                    _swap(mod, attr, w, setattr)
        _wrap_optimizers()
    except BaseException:
        uninstall()
        raise


def _wrap_optimizers():
    """``Optimizer.step#AdamW.step`` / ``Optimizer.zero_grad#AdamW.zero_grad`` regions,
    named as PyTorch's profiler names them."""
    from ..optim.optimizer import Optimizer
    todo = [Optimizer]
    while todo:
        klass = todo.pop()
        todo.extend(klass.__subclasses__())
        for meth in ("step", "zero_grad"):
            fn = klass.__dict__.get(meth)
            if fn is not None and isinstance(fn, types.FunctionType):
                _swap(klass, meth, _wrap_optimizer_method(fn, meth), setattr)


def _wrap_optimizer_method(fn, meth):
    def method(self, *args, **kwargs):
        rec = _recorder.active
        if rec is None:
            return fn(self, *args, **kwargs)
        ev = rec.begin(f"Optimizer.{meth}#{type(self).__name__}.{meth}", "user_annotation")
        try:
            return fn(self, *args, **kwargs)
        finally:
            rec.end(ev)
    method.__name__ = fn.__name__
    method.__qualname__ = fn.__qualname__
    method.__doc__ = fn.__doc__
    method.__wrapped__ = fn
    return method


def uninstall():
    """Put every original back, in reverse order of the swaps."""
    while _swapped:
        namespace, attr, original = _swapped.pop()
        if original is _ABSENT:
            delattr(namespace, attr)
        else:
            setattr(namespace, attr, original)
