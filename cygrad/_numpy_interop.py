"""NumPy's override protocols: NumPy functions called on cygrad tensors return tensors.

NumPy lets other array types take over its functions:

* ``__array_ufunc__`` is called for every ufunc (``np.exp``, ``np.add``...), including
  the ones NumPy's operators call, so ``ndarray + tensor`` lands here too.
* ``__array_function__`` is called for the other public functions (``np.sum``,
  ``np.concatenate``...).

Both first try the cygrad op that means the same thing (so results follow cygrad's
PyTorch-style dtype rules and stay on the autograd tape); anything without a cygrad
twin is computed by NumPy on zero-copy views of the tensors and wrapped back into a
tensor (``from_numpy``, again no copy). cygrad ops are looked up by name on the
``cygrad`` module at call time, so op families may be added in any order.

Importing this module installs both methods on ``cygrad.Tensor``.
"""
import inspect
import sys
import warnings

import numpy as np

from ._core import tensor as _C
from ._core.tensor import TensorBase
from ._core.dtype import as_dtype
from ._tensor import Tensor

__all__ = []

# Returned by a handler that cannot take a call (unsupported keyword, missing op):
# the call then goes to NumPy.
_FALLBACK = object()


def _cygrad_fn(name):
    """The public cygrad function ``name``, or None when no op family defines it."""
    return getattr(sys.modules["cygrad"], name, None)


# ---------------------------------------------------------------- value conversions

def _cygrad_can_hold(dtype):
    if not dtype.isnative:
        return False
    try:
        as_dtype(dtype)
    except (TypeError, ValueError, KeyError):
        return False
    return True


def _ndarray_to_tensor(arr):
    """Wrap an ndarray as a tensor (no copy), or None when cygrad can't represent it."""
    if not _cygrad_can_hold(arr.dtype):
        return None
    isz = arr.dtype.itemsize
    if any(s % isz for s in arr.strides):
        return None
    if not arr.flags.writeable:
        # Operands are only read; cygrad's read-only warning is about writes.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return _C.from_numpy(arr)
    return _C.from_numpy(arr)


def _as_operand(x):
    """An operand a cygrad op accepts (tensor or Python scalar), or None."""
    if isinstance(x, TensorBase) or isinstance(x, (bool, int, float)):
        return x
    if isinstance(x, np.generic):
        return x.item() if x.dtype.kind in "biuf" and _cygrad_can_hold(x.dtype) else None
    if isinstance(x, (np.ndarray, list, tuple)):
        arr = np.asarray(x)
        return None if arr.dtype == object else _ndarray_to_tensor(arr)
    return None


def _to_ndarray(x):
    """A NumPy view of a tensor (other values pass through), refusing what torch refuses."""
    if isinstance(x, TensorBase):
        if x.requires_grad:
            raise RuntimeError("Can't call numpy() on Tensor that requires grad. Use "
                               "tensor.detach().numpy() instead.")
        return _C._ndarray(x)
    if isinstance(x, (list, tuple)):
        return type(x)(_to_ndarray(v) for v in x)
    return x


def _wrap(result):
    """Turn NumPy's arrays (also inside tuples/lists) into tensors; scalars stay as they are."""
    if isinstance(result, np.ndarray):
        t = _ndarray_to_tensor(result)
        return result if t is None else t
    if isinstance(result, (tuple, list)):
        return type(result)(_wrap(r) for r in result)
    return result


def _mark_written(x):
    if isinstance(x, TensorBase):
        x._bump_version()


def _foreign_override(values):
    """True when some value is another library's array that has its own override."""
    for v in values:
        if isinstance(v, (TensorBase, np.ndarray)):
            continue
        if hasattr(type(v), "__array_ufunc__"):
            return True
    return False


# -------------------------------------------------------------------------- ufuncs

# NumPy ufunc name -> cygrad function name, where both compute the same thing.
_UFUNC_NAMES = {
    "add": "add", "subtract": "sub", "multiply": "mul", "divide": "div",
    "true_divide": "div", "floor_divide": "floor_divide", "remainder": "remainder",
    "fmod": "fmod", "power": "pow", "float_power": "float_power", "arctan2": "atan2",
    "hypot": "hypot", "maximum": "maximum", "minimum": "minimum", "fmax": "fmax",
    "fmin": "fmin", "equal": "eq", "not_equal": "ne", "less": "lt", "less_equal": "le",
    "greater": "gt", "greater_equal": "ge", "logical_and": "logical_and",
    "logical_or": "logical_or", "logical_xor": "logical_xor", "logical_not": "logical_not",
    "bitwise_and": "bitwise_and", "bitwise_or": "bitwise_or", "bitwise_xor": "bitwise_xor",
    "left_shift": "bitwise_left_shift", "right_shift": "bitwise_right_shift",
    "invert": "bitwise_not", "negative": "neg", "positive": "positive", "absolute": "abs",
    "sign": "sign", "exp": "exp", "exp2": "exp2", "expm1": "expm1", "log": "log",
    "log2": "log2", "log10": "log10", "log1p": "log1p", "sqrt": "sqrt", "square": "square",
    "reciprocal": "reciprocal", "sin": "sin", "cos": "cos", "tan": "tan", "arcsin": "asin",
    "arccos": "acos", "arctan": "atan", "sinh": "sinh", "cosh": "cosh", "tanh": "tanh",
    "arcsinh": "asinh", "arccosh": "acosh", "arctanh": "atanh", "floor": "floor",
    "ceil": "ceil", "trunc": "trunc", "rint": "round", "isnan": "isnan", "isinf": "isinf",
    "isfinite": "isfinite", "signbit": "signbit", "copysign": "copysign",
    "heaviside": "heaviside", "logaddexp": "logaddexp", "logaddexp2": "logaddexp2",
    "nextafter": "nextafter", "ldexp": "ldexp", "deg2rad": "deg2rad", "rad2deg": "rad2deg",
    "gcd": "gcd", "lcm": "lcm", "matmul": "matmul",
}

_accepts_out = {}


def _takes_out(fn):
    key = id(fn)
    if key not in _accepts_out:
        try:
            _accepts_out[key] = "out" in inspect.signature(fn).parameters
        except (TypeError, ValueError):
            _accepts_out[key] = False
    return _accepts_out[key]


def _shape_of(x):
    return tuple(x.shape) if isinstance(x, TensorBase) else ()


def _ufunc_with_cygrad(ufunc, inputs, kwargs):
    """Run a ufunc call with the cygrad op of the same meaning, or return _FALLBACK."""
    name = _UFUNC_NAMES.get(ufunc.__name__)
    fn = _cygrad_fn(name) if name else None
    out = kwargs.pop("out", None)
    if fn is None or kwargs or len(inputs) != ufunc.nin:
        return _FALLBACK
    operands = [_as_operand(x) for x in inputs]
    if any(o is None for o in operands):
        return _FALLBACK
    if out is None:
        return _call_op(name, fn, operands)
    if len(out) != 1 or not _takes_out(fn) or ufunc.__name__ == "matmul":
        return _FALLBACK
    target = out[0] if isinstance(out[0], TensorBase) else (
        _ndarray_to_tensor(out[0]) if isinstance(out[0], np.ndarray) else None)
    # cygrad resizes a wrongly shaped out= (PyTorch's rule), which would detach it from
    # an ndarray's memory; NumPy's own broadcasting rules handle that case instead.
    if target is None or tuple(target.shape) != np.broadcast_shapes(*map(_shape_of, operands)):
        return _FALLBACK
    _call_op(name, fn, operands, out=target)
    return out[0]


def _call_op(name, fn, operands, out=None):
    """Call the cygrad function; an elementwise ufunc with a number operand goes
    straight to the dispatcher instead: NumPy takes a number for any operand
    (``np.maximum(t, 1)``), where some of PyTorch's function forms want tensors."""
    op = _C.ELEMENTWISE_OPS.get(name)
    if (op is not None and op.arity == len(operands)
            and not all(isinstance(o, TensorBase) for o in operands)):
        if op.arity == 1:
            return _C.unary_op(op, operands[0], out)
        return _C.binary_op(op, operands[0], operands[1], out)
    return fn(*operands) if out is None else fn(*operands, out=out)


def _ufunc_with_numpy(ufunc, method, inputs, kwargs):
    arrays = [_to_ndarray(x) for x in inputs]
    out = kwargs.get("out")
    if out is not None:
        kwargs["out"] = tuple(_to_ndarray(o) for o in out)
    result = getattr(ufunc, method)(*arrays, **kwargs)
    if method == "at":
        _mark_written(inputs[0])
        return None
    if out is not None:
        for o in out:
            _mark_written(o)
        return out[0] if len(out) == 1 else out
    if method == "__call__" and ufunc.nout == 1 and isinstance(result, np.generic):
        # Elementwise results have the inputs' shape: a 0-dim tensor, not a NumPy scalar.
        result = np.asarray(result)
    return _wrap(result)


def _array_ufunc(self, ufunc, method, *inputs, **kwargs):
    """NumPy ufunc override: ``np.exp(t)``, ``ndarray + t`` ... return cygrad tensors.

    Examples
    --------
    >>> import numpy as np, cygrad
    >>> np.exp(cygrad.zeros(2))
    tensor([1., 1.])
    >>> np.ones(2) + cygrad.tensor([1.0, 2.0])
    tensor([2., 3.], dtype=cygrad.float64)
    """
    if _foreign_override(inputs + tuple(kwargs.get("out", ()))):
        return NotImplemented
    if method == "__call__":
        result = _ufunc_with_cygrad(ufunc, inputs, dict(kwargs))
        if result is not _FALLBACK:
            return result
    return _ufunc_with_numpy(ufunc, method, inputs, kwargs)


# ------------------------------------------------------------------ array functions

_HANDLERS = {}


def _implements(*np_functions):
    def register(handler):
        for f in np_functions:
            _HANDLERS[f] = handler
        return handler
    return register


def _given(kwargs):
    """The keyword arguments really passed (NumPy forwards ``np._NoValue`` defaults)."""
    return {k: v for k, v in kwargs.items() if v is not np._NoValue}


def _tensor_arg(x):
    t = _as_operand(x)
    return t if isinstance(t, TensorBase) else None


def _reduction(name, *, float_only=False, has_dtype=True, has_ddof=False):
    """Handler for ``np.<reduction>(a, axis=None, dtype=None, out=None, keepdims=False)``."""
    def handler(a, axis=None, dtype=None, out=None, keepdims=False, ddof=0, **extra):
        fn = _cygrad_fn(name)
        if (fn is None or out is not None or _given(extra) or not isinstance(a, TensorBase)
                or (dtype is not None and not has_dtype)):
            return _FALLBACK
        # NumPy averages integers in float64; cygrad (like PyTorch) wants a float input.
        if float_only and dtype is None and not a.is_floating_point():
            a = a.to(as_dtype(np.float64))
        kw = {}
        if axis is not None:
            kw["dim"] = axis
        elif name in ("amax", "amin"):
            kw["dim"] = ()
        if keepdims is True:
            kw["keepdim"] = True
        if dtype is not None:
            kw["dtype"] = as_dtype(dtype)
        if has_ddof:
            kw["correction"] = ddof
        return fn(a, **kw)
    return handler


for _np_name, _cg_name, _opts in [
        ("sum", "sum", {}), ("prod", "prod", {}), ("mean", "mean", {"float_only": True}),
        ("nansum", "nansum", {}), ("nanmean", "nanmean", {"float_only": True}),
        ("max", "amax", {"has_dtype": False}), ("amax", "amax", {"has_dtype": False}),
        ("min", "amin", {"has_dtype": False}), ("amin", "amin", {"has_dtype": False}),
        ("any", "any", {"has_dtype": False}), ("all", "all", {"has_dtype": False}),
        ("std", "std", {"float_only": True, "has_ddof": True}),
        ("var", "var", {"float_only": True, "has_ddof": True})]:
    if hasattr(np, _np_name):
        _implements(getattr(np, _np_name))(_reduction(_cg_name, **_opts))


def _arg_reduction(name):
    def handler(a, axis=None, out=None, *, keepdims=False):
        fn = _cygrad_fn(name)
        if fn is None or out is not None or not isinstance(a, TensorBase):
            return _FALLBACK
        return fn(a, dim=axis, keepdim=bool(keepdims))
    return handler


_HANDLERS[np.argmax] = _arg_reduction("argmax")
_HANDLERS[np.argmin] = _arg_reduction("argmin")


def _cumulative(name):
    def handler(a, axis=None, dtype=None, out=None):
        fn = _cygrad_fn(name)
        if fn is None or out is not None or not isinstance(a, TensorBase):
            return _FALLBACK
        if axis is None:
            a, axis = a.reshape(-1), 0
        return fn(a, axis, dtype=None if dtype is None else as_dtype(dtype))
    return handler


_HANDLERS[np.cumsum] = _cumulative("cumsum")
_HANDLERS[np.cumprod] = _cumulative("cumprod")


def _tensor_list(arrays):
    tensors = [_tensor_arg(a) for a in arrays]
    return None if any(t is None for t in tensors) else tensors


@_implements(np.concatenate)
def _concatenate(arrays, axis=0, out=None, **extra):
    tensors = _tensor_list(arrays)
    fn = _cygrad_fn("cat")
    if fn is None or tensors is None or out is not None or _given(extra):
        return _FALLBACK
    if axis is None:
        tensors, axis = [t.reshape(-1) for t in tensors], 0
    return fn(tensors, dim=axis)


@_implements(np.stack)
def _stack(arrays, axis=0, out=None, **extra):
    tensors = _tensor_list(arrays)
    fn = _cygrad_fn("stack")
    if fn is None or tensors is None or out is not None or _given(extra):
        return _FALLBACK
    return fn(tensors, dim=axis)


def _vh(name):
    def handler(tup, **extra):
        tensors = _tensor_list(tup)
        fn = _cygrad_fn(name)
        if fn is None or tensors is None or _given(extra):
            return _FALLBACK
        return fn(tensors)
    return handler


_HANDLERS[np.vstack] = _vh("vstack")
_HANDLERS[np.hstack] = _vh("hstack")


@_implements(np.reshape)
def _reshape(a, *args, **kwargs):
    kwargs = _given(kwargs)
    shape = args[0] if args else kwargs.pop("shape", kwargs.pop("newshape", None))
    order = args[1] if len(args) > 1 else kwargs.pop("order", "C")
    if not isinstance(a, TensorBase) or shape is None or order != "C" or kwargs.get("copy") is not None:
        return _FALLBACK
    return a.reshape(shape)


@_implements(np.transpose)
def _transpose(a, axes=None):
    if not isinstance(a, TensorBase):
        return _FALLBACK
    if axes is None:
        axes = tuple(range(a.dim() - 1, -1, -1))
    return a.permute(*axes)


@_implements(np.swapaxes)
def _swapaxes(a, axis1, axis2):
    return a.transpose(axis1, axis2) if isinstance(a, TensorBase) else _FALLBACK


@_implements(np.moveaxis)
def _moveaxis(a, source, destination):
    return a.movedim(source, destination) if isinstance(a, TensorBase) else _FALLBACK


@_implements(np.squeeze)
def _squeeze(a, axis=None):
    if not isinstance(a, TensorBase):
        return _FALLBACK
    return a.squeeze() if axis is None else a.squeeze(axis)


@_implements(np.expand_dims)
def _expand_dims(a, axis):
    if not isinstance(a, TensorBase) or not isinstance(axis, int):
        return _FALLBACK
    return a.unsqueeze(axis)


@_implements(np.ravel)
def _ravel(a, order="C"):
    if not isinstance(a, TensorBase) or order != "C":
        return _FALLBACK
    return a.reshape(-1)


@_implements(np.broadcast_to)
def _broadcast_to(array, shape, subok=False):
    if not isinstance(array, TensorBase):
        return _FALLBACK
    return array.expand(*((shape,) if isinstance(shape, int) else shape))


@_implements(np.where)
def _where(condition, *xy):
    fn = _cygrad_fn("where")
    if fn is None or len(xy) != 2:
        return _FALLBACK
    cond = _tensor_arg(condition)
    x, y = (_as_operand(v) for v in xy)
    if cond is None or x is None or y is None:
        return _FALLBACK
    return fn(cond, x, y)


@_implements(np.dot)
def _dot(a, b, out=None):
    ta, tb = _tensor_arg(a), _tensor_arg(b)
    if ta is None or tb is None or out is not None:
        return _FALLBACK
    if ta.dim() == 0 or tb.dim() == 0:
        return ta * tb
    if ta.dim() == 1 and tb.dim() == 1 and _cygrad_fn("dot") is not None:
        return _cygrad_fn("dot")(ta, tb)
    if ta.dim() <= 2 and tb.dim() <= 2 and _cygrad_fn("matmul") is not None:
        return _cygrad_fn("matmul")(ta, tb)
    return _FALLBACK


@_implements(np.outer)
def _outer(a, b, out=None):
    ta, tb = _tensor_arg(a), _tensor_arg(b)
    fn = _cygrad_fn("outer")
    if fn is None or ta is None or tb is None or out is not None:
        return _FALLBACK
    # np.outer flattens its inputs first.
    return fn(ta.reshape(-1), tb.reshape(-1))


@_implements(np.tensordot)
def _tensordot(a, b, axes=2):
    ta, tb = _tensor_arg(a), _tensor_arg(b)
    fn = _cygrad_fn("tensordot")
    if fn is None or ta is None or tb is None:
        return _FALLBACK
    return fn(ta, tb, dims=axes)


@_implements(np.einsum)
def _einsum(subscripts, *operands, **kwargs):
    fn = _cygrad_fn("einsum")
    tensors = _tensor_list(operands)
    if fn is None or tensors is None or not isinstance(subscripts, str) or _given(kwargs):
        return _FALLBACK
    return fn(subscripts, *tensors)


@_implements(np.clip)
def _clip(a, a_min=np._NoValue, a_max=np._NoValue, out=None, **kwargs):
    kwargs = _given(kwargs)
    lo = kwargs.pop("min", None) if a_min is np._NoValue else a_min
    hi = kwargs.pop("max", None) if a_max is np._NoValue else a_max
    fn = _cygrad_fn("clamp")
    if fn is None or not isinstance(a, TensorBase) or out is not None or kwargs:
        return _FALLBACK
    if lo is None and hi is None:
        return _FALLBACK
    lo = lo if lo is None else _as_operand(lo)
    hi = hi if hi is None else _as_operand(hi)
    return fn(a, lo, hi)


def _sort_like(name):
    def handler(a, axis=-1, kind=None, order=None, *, stable=None):
        fn = _cygrad_fn(name)
        if fn is None or not isinstance(a, TensorBase) or order is not None:
            return _FALLBACK
        if axis is None:
            a, axis = a.reshape(-1), 0
        is_stable = bool(stable) or kind == "stable" or kind == "mergesort"
        result = fn(a, dim=axis, stable=is_stable)
        return result[0] if name == "sort" else result
    return handler


_HANDLERS[np.sort] = _sort_like("sort")
_HANDLERS[np.argsort] = _sort_like("argsort")


@_implements(np.flip)
def _flip(m, axis=None):
    fn = _cygrad_fn("flip")
    if fn is None or not isinstance(m, TensorBase):
        return _FALLBACK
    dims = tuple(range(m.dim())) if axis is None else (axis if isinstance(axis, tuple) else (axis,))
    return fn(m, dims)


@_implements(np.roll)
def _roll(a, shift, axis=None):
    fn = _cygrad_fn("roll")
    if fn is None or not isinstance(a, TensorBase):
        return _FALLBACK
    return fn(a, shift, axis)


@_implements(np.allclose)
def _allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    fn = _cygrad_fn("isclose")
    ta, tb = _tensor_arg(a), _tensor_arg(b)
    if fn is None or ta is None or tb is None:
        return _FALLBACK
    # NumPy's answer is a Python bool, whatever the dtypes.
    return bool(fn(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan).all())


@_implements(np.isclose)
def _isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    fn = _cygrad_fn("isclose")
    ta, tb = _tensor_arg(a), _tensor_arg(b)
    if fn is None or ta is None or tb is None:
        return _FALLBACK
    return fn(ta, tb, rtol=rtol, atol=atol, equal_nan=equal_nan)


@_implements(np.array_equal)
def _array_equal(a1, a2, equal_nan=False):
    fn = _cygrad_fn("equal")
    ta, tb = _tensor_arg(a1), _tensor_arg(a2)
    if fn is None or ta is None or tb is None or equal_nan:
        return _FALLBACK
    if tuple(ta.shape) != tuple(tb.shape):
        return False
    return bool(fn(ta, tb))


@_implements(np.shape)
def _shape(a):
    return tuple(a.shape) if isinstance(a, TensorBase) else _FALLBACK


@_implements(np.ndim)
def _ndim(a):
    return a.dim() if isinstance(a, TensorBase) else _FALLBACK


@_implements(np.size)
def _size(a, axis=None):
    if not isinstance(a, TensorBase):
        return _FALLBACK
    return a.numel() if axis is None else a.shape[axis]


@_implements(np.copy)
def _copy(a, order="K", subok=False):
    return a.clone() if isinstance(a, TensorBase) else _FALLBACK


@_implements(np.round, np.around)
def _round(a, decimals=0, out=None):
    fn = _cygrad_fn("round")
    if fn is None or not isinstance(a, TensorBase) or out is not None:
        return _FALLBACK
    return fn(a, decimals=decimals)


def _like(name, with_fill):
    def handler(a, *args, **kwargs):
        fn = _cygrad_fn(name)
        kwargs = _given(kwargs)
        fill = ()
        if with_fill:
            if args:
                fill, args = (args[0],), args[1:]
            elif "fill_value" in kwargs:
                fill = (kwargs.pop("fill_value"),)
        dtype = args[0] if args else kwargs.pop("dtype", None)
        if (fn is None or not isinstance(a, TensorBase) or len(args) > 1
                or kwargs.get("shape") is not None
                or (dtype is not None and not _cygrad_can_hold(np.dtype(dtype)))):
            return _FALLBACK
        return fn(a, *fill, dtype=None if dtype is None else as_dtype(np.dtype(dtype)))
    return handler


_HANDLERS[np.zeros_like] = _like("zeros_like", False)
_HANDLERS[np.ones_like] = _like("ones_like", False)
_HANDLERS[np.empty_like] = _like("empty_like", False)
_HANDLERS[np.full_like] = _like("full_like", True)


def _function_with_numpy(func, args, kwargs):
    np_args = [_to_ndarray(a) for a in args]
    np_kwargs = {k: _to_ndarray(v) for k, v in kwargs.items()}
    # _implementation skips dispatch, so a tensor NumPy finds somewhere we did not look
    # is simply converted with __array__ instead of coming back here.
    impl = getattr(func, "_implementation", func)
    result = impl(*np_args, **np_kwargs)
    out = kwargs.get("out")
    if out is not None:
        for o in (out if isinstance(out, tuple) else (out,)):
            _mark_written(o)
        return out
    if isinstance(result, np.ndarray) and not result.flags.writeable:
        # A read-only view (np.diagonal...) of tensor memory: cygrad has no read-only
        # tensors, like PyTorch's diagonal view.
        with warnings.catch_warnings():
            warnings.simplefilter("ignore", UserWarning)
            return _wrap(result)
    return _wrap(result)


def _array_function(self, func, types, args, kwargs):
    """NumPy function override: ``np.sum(t)``, ``np.concatenate([t, u])`` ... return tensors.

    Examples
    --------
    >>> import numpy as np, cygrad
    >>> np.concatenate([cygrad.zeros(1), cygrad.ones(2)])
    tensor([0., 1., 1.])
    >>> np.shape(cygrad.zeros(2, 3))
    (2, 3)
    """
    if not all(issubclass(t, (TensorBase, np.ndarray)) for t in types):
        return NotImplemented
    handler = _HANDLERS.get(func)
    if handler is not None:
        result = handler(*args, **kwargs)
        if result is not _FALLBACK:
            return result
    return _function_with_numpy(func, args, kwargs)


Tensor.__array_ufunc__ = _array_ufunc
Tensor.__array_function__ = _array_function
