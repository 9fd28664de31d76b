"""Batching rules: how each op runs on a whole batch at once under ``vmap``.

A rule ``rule(name, level, orig, args, kwargs)`` receives the op's arguments, some of
them :class:`~cygrad.func._batched.BatchedTensor` of vmap level ``level``, and returns
the batched result, or ``NotImplemented`` to let the per-sample fallback run. A rule
rewrites the call on the *values* (batch dim first): logical dims shift by one,
shapes get the batch size in front, operands of broadcasting ops are padded with
size-1 dims after the batch dim so the batch dims line up. The rewritten call goes
back through ``dispatch``, so a value that is itself batched at an outer level is
handled by the same rules (nested vmap).

Examples
--------
>>> import cygrad
>>> from cygrad.func import vmap
>>> x = cygrad.arange(6.0).reshape(2, 3)
>>> vmap(lambda r: r.sum(0))(x).tolist()        # the reduction rule: sum(dim=1) once
[3.0, 12.0]
"""
from .._tensor import Tensor
from . import _batched as _b
from ._batched import BatchedTensor, call, dispatch, is_batched_at, _norm_dim

RULES = _b._RULES


def _is_tensor(x):
    return isinstance(x, (Tensor, BatchedTensor))


def _wrap_out(out, level):
    if isinstance(out, (Tensor, BatchedTensor)):
        return BatchedTensor(out, level)
    if isinstance(out, tuple):
        parts = [_wrap_out(o, level) for o in out]
        return type(out)(*parts) if hasattr(type(out), "_fields") else tuple(parts)
    if isinstance(out, list):
        return [_wrap_out(o, level) for o in out]
    return out


def _pad(v, r, R):
    """Insert ``R - r`` size-1 dims after the batch dim of value ``v`` (logical rank r)."""
    for _ in range(R - r):
        v = call("unsqueeze", v, 1)
    return v


def _others_batched(level, args, kwargs, skip=0):
    return (any(is_batched_at(a, level) or (type(a) in (list, tuple)
                                          and any(is_batched_at(e, level) for e in a))
                for a in args[skip + 1:])
            or any(is_batched_at(a, level) for a in kwargs.values()))


def _arg(args, kwargs, pos, kw, default=None):
    if len(args) > pos:
        return args[pos], "pos"
    if kw in kwargs:
        return kwargs[kw], "kw"
    return default, None


def _set(args, kwargs, pos, kw, value, where):
    if where == "pos":
        args = args[:pos] + (value,) + args[pos + 1:]
    else:
        kwargs = dict(kwargs)
        kwargs[kw] = value
    return args, kwargs


def _register(names, rule):
    for n in names:
        RULES[n] = rule


# ------------------------------------------------------------------- pointwise

def pointwise(name, level, orig, args, kwargs):
    """Broadcasting ops: pad every batched operand to the highest logical rank."""
    if name.endswith("_") and not name.endswith("__"):
        return _pointwise_inplace(name, level, orig, args, kwargs)
    R = 0
    for a in args:
        if _is_tensor(a):
            R = max(R, a.dim())
    for a in kwargs.values():
        if _is_tensor(a):
            R = max(R, a.dim())

    def conv(a):
        if is_batched_at(a, level):
            return _pad(a._value, a.dim(), R)
        return a
    out = dispatch(name, orig, tuple(conv(a) for a in args),
                   {k: conv(v) for k, v in kwargs.items()})
    return _wrap_out(out, level)


def _pointwise_inplace(name, level, orig, args, kwargs):
    self = args[0]
    if not is_batched_at(self, level):
        _b.raise_inplace_error()
    R = self.dim()

    def conv(a):
        if is_batched_at(a, level):
            return _pad(a._value, a.dim(), R) if a.dim() <= R else a._value
        return a
    dispatch(name, orig, (self._value,) + tuple(conv(a) for a in args[1:]),
             {k: conv(v) for k, v in kwargs.items()})
    return self


_POINTWISE = [
    # cygrad.ops.elementwise
    'neg', 'abs', 'sign', 'exp', 'exp2', 'expm1', 'log', 'log2', 'log10', 'log1p', 'sqrt',
    'rsqrt', 'sin', 'cos', 'tan', 'asin', 'acos', 'atan', 'sinh', 'cosh', 'tanh', 'asinh',
    'acosh', 'atanh', 'sigmoid', 'relu', 'erf', 'erfc', 'floor', 'ceil', 'trunc', 'frac',
    'reciprocal', 'square', 'logical_not', 'bitwise_not', 'isnan', 'isinf', 'isfinite',
    'floor_divide', 'remainder', 'fmod', 'atan2', 'hypot', 'maximum', 'minimum', 'fmax',
    'fmin', 'eq', 'ne', 'lt', 'le', 'gt', 'ge', 'logical_and', 'logical_or', 'logical_xor',
    'bitwise_and', 'bitwise_or', 'bitwise_xor', 'bitwise_left_shift', 'bitwise_right_shift',
    'add', 'sub', 'subtract', 'mul', 'multiply', 'div', 'divide', 'true_divide', 'pow',
    'round', 'clamp', 'clip', 'lerp', 'nan_to_num', 'positive', 'negative', 'absolute',
    'arcsin', 'arccos', 'arctan', 'arctan2', 'arcsinh', 'arccosh', 'arctanh', 'greater',
    'greater_equal', 'less', 'less_equal', 'not_equal', 'isclose', 'float_power',
    'where', 'masked_fill', 'addcmul', 'addcdiv', 'xlogy', 'copysign', 'heaviside',
    'logaddexp', 'logaddexp2', 'sinc', 'deg2rad', 'rad2deg', 'signbit', 'sgn', 'fix',
    'logit', 'i0', 'lgamma', 'digamma', 'erfinv', 'polygamma', 'mvlgamma', 'isposinf',
    'isneginf', 'isreal', 'conj', 'real', 'imag', 'angle',
    # reflected operators: the Tensor method keeps the BatchedTensor first
    '__radd__', '__rsub__', '__rmul__', '__rtruediv__', '__rfloordiv__', '__rmod__',
    '__rpow__', '__rand__', '__ror__', '__rxor__',
    # nn.functional activations
    'gelu', 'silu', 'elu', 'selu', 'celu', 'leaky_relu', 'hardtanh', 'relu6', 'softplus',
    'softsign', 'mish', 'hardswish', 'hardsigmoid', 'logsigmoid', 'tanhshrink',
    'softshrink', 'hardshrink', 'threshold', 'prelu',
    # conversions and copies
    'to', 'type', 'type_as', 'float', 'double', 'half', 'bfloat16', 'int', 'long', 'short',
    'bool', 'byte', 'char', 'cpu', 'cuda', 'clone', 'contiguous', 'detach',
    'requires_grad_', 'zeros_like', 'ones_like', 'empty_like', 'full_like',
]
_POINTWISE_INPLACE = [
    'add_', 'sub_', 'mul_', 'div_', 'pow_', 'clamp_', 'clip_', 'neg_', 'abs_', 'exp_', 'log_',
    'sqrt_', 'sin_', 'cos_', 'tanh_', 'sigmoid_', 'relu_', 'copy_', 'fill_', 'zero_',
    'masked_fill_', 'addcmul_', 'addcdiv_', 'lerp_', 'floor_', 'ceil_', 'round_', 'trunc_',
    'reciprocal_', 'square_', 'remainder_', 'fmod_', 'hardtanh_', 'leaky_relu_', 'elu_',
    'celu_', 'selu_', 'threshold_', 'detach_',
]
_register(_POINTWISE + _POINTWISE_INPLACE, pointwise)


def _maxmin(name, level, orig, args, kwargs):
    """``max(x)``, ``max(x, dim)`` (a reduction) or ``max(x, other)`` (pointwise)."""
    other, _ = _arg(args, kwargs, 1, "other")
    if _is_tensor(other):
        return pointwise(name, level, orig, args, kwargs)
    return _reduction(name, level, orig, args, kwargs)


# ------------------------------------------------------------------ dims

def _map_dim(d, rank):
    if isinstance(d, (tuple, list)):
        return type(d)(_norm_dim(e, rank) + 1 for e in d)
    return _norm_dim(d, rank) + 1


_VALUES_WHEN_FULL = {"max", "min", "median", "nanmedian"}


def _reduction(name, level, orig, args, kwargs, pos=1, kw="dim"):
    x = args[0] if args else None
    if not is_batched_at(x, level) or _others_batched(level, args, kwargs):
        return NotImplemented
    r = x.dim()
    d, where = _arg(args, kwargs, pos, kw)
    if isinstance(d, bool) or r == 0:
        return NotImplemented
    v = x._value
    if d is None:
        if kwargs.get("keepdim"):
            return NotImplemented
        v = call("reshape", v, (_b.level_size(level), -1))
        a, k = _set((v,) + args[1:], kwargs, pos, kw, 1, where or "kw")
        out = dispatch(name, orig, a, k)
        if name in _VALUES_WHEN_FULL:
            out = out[0]
        return _wrap_out(out, level)
    a, k = _set((v,) + args[1:], kwargs, pos, kw, _map_dim(d, r), where)
    return _wrap_out(dispatch(name, orig, a, k), level)


def _reduction_at(pos):
    def rule(name, level, orig, args, kwargs):
        return _reduction(name, level, orig, args, kwargs, pos=pos)
    return rule


_register(["sum", "mean", "prod", "amax", "amin", "all", "any", "std", "var", "nansum",
           "nanmean", "count_nonzero", "argmax", "argmin", "median", "nanmedian", "var_mean",
           "std_mean", "logsumexp", "aminmax"], _reduction)
_register(["max", "min"], _maxmin)
_register(["norm", "vector_norm"], _reduction_at(2))


def dims_rule(*specs, insert=False):
    """A rule for ops whose dim arguments are at ``specs``: ``(position, keyword,
    default)``; with ``insert`` the dim may be one past the last (``unsqueeze``)."""
    def rule(name, level, orig, args, kwargs):
        x = args[0] if args else None
        if not is_batched_at(x, level) or _others_batched(level, args, kwargs):
            return NotImplemented
        r = x.dim() + (1 if insert else 0)
        if r == 0:
            return NotImplemented
        a, k = (x._value,) + tuple(args[1:]), kwargs
        for pos, kw, default in specs:
            d, where = _arg(a, k, pos, kw, default)
            if d is None:
                return NotImplemented
            a, k = _set(a, k, pos, kw, _map_dim(d, r), where or "kw")
        return _wrap_out(dispatch(name, orig, a, k), level)
    return rule


_register(["softmax", "log_softmax", "softmin", "cumsum", "cumprod", "cummax", "cummin",
           "logcumsumexp", "narrow", "select", "unflatten", "index_select"],
          dims_rule((1, "dim", None)))
_register(["sort", "argsort", "mode", "glu", "diff"], dims_rule((1, "dim", -1)))
_register(["unbind"], dims_rule((1, "dim", 0)))
_register(["chunk", "split", "tensor_split"], dims_rule((2, "dim", 0)))
_register(["topk", "kthvalue"], dims_rule((2, "dim", -1)))
_register(["normalize"], dims_rule((2, "dim", 1)))
_register(["transpose", "swapaxes", "swapdims"], dims_rule((1, "dim0", None), (2, "dim1", None)))
_register(["movedim", "moveaxis"], dims_rule((1, "source", None), (2, "destination", None)))
_register(["flatten"], dims_rule((1, "start_dim", 0), (2, "end_dim", -1)))
_register(["diagonal"], dims_rule((2, "dim1", 0), (3, "dim2", 1)))
_register(["flip"], dims_rule((1, "dims", None)))
_register(["roll"], dims_rule((2, "dims", None)))
_register(["unsqueeze"], dims_rule((1, "dim", None), insert=True))


def _last_dims(name, level, orig, args, kwargs):
    """Ops on the last dims only (``tril``, ``layer_norm`` with unbatched weights...)."""
    x = args[0] if args else None
    if not is_batched_at(x, level) or _others_batched(level, args, kwargs):
        return NotImplemented
    return _wrap_out(dispatch(name, orig, (x._value,) + tuple(args[1:]), kwargs), level)


_register(["tril", "triu", "layer_norm", "one_hot", "tril_", "triu_"], _last_dims)


def _embedding(name, level, orig, args, kwargs):
    idx, weight = args[0], args[1]
    if is_batched_at(weight, level):
        if is_batched_at(idx, level) or len(args) > 2 or any(
                v not in (None, False, 2.0) for v in kwargs.values()):
            return NotImplemented
        # rows of each sample's table: weight (B, V, D) indexed by idx along V
        return BatchedTensor(call("__getitem__", weight._value, (slice(None), idx)), level)
    return _last_dims(name, level, orig, args, kwargs)


RULES["embedding"] = _embedding


def _pad_rule(name, level, orig, args, kwargs):
    x = args[0]
    pad, _ = _arg(args, kwargs, 1, "pad")
    mode, _ = _arg(args, kwargs, 2, "mode", "constant")
    if mode != "constant" or pad is None or len(pad) // 2 > x.dim():
        return NotImplemented
    return _last_dims(name, level, orig, args, kwargs)


RULES["pad"] = _pad_rule


def _all_batched(name, level, orig, args, kwargs):
    """Ops whose tensor operands must agree in their leading dims
    (``scaled_dot_product_attention``): every operand expanded to the batch and padded."""
    R = max(a.dim() for a in list(args) + list(kwargs.values()) if _is_tensor(a))

    def conv(a):
        return _pad(_materialize(a, level), a.dim(), R) if _is_tensor(a) else a
    out = dispatch(name, orig, tuple(conv(a) for a in args),
                   {k: conv(v) for k, v in kwargs.items()})
    return _wrap_out(out, level)


RULES["scaled_dot_product_attention"] = _all_batched


def _pointwise_dim(pos, default):
    """Broadcasting ops with a dim (``cosine_similarity``): operands padded to one rank,
    then the dim shifted past the batch dim."""
    def rule(name, level, orig, args, kwargs):
        tensors = [a for a in args if _is_tensor(a)]
        R = max(a.dim() for a in tensors)
        d, where = _arg(args, kwargs, pos, "dim", default)
        if R == 0:
            return NotImplemented
        vals = tuple(_pad(a._value, a.dim(), R) if is_batched_at(a, level) else a for a in args)
        a, k = _set(vals, kwargs, pos, "dim", _map_dim(d, R), where or "kw")
        return _wrap_out(dispatch(name, orig, a, k), level)
    return rule


RULES["cosine_similarity"] = _pointwise_dim(2, 1)


def _squeeze(name, level, orig, args, kwargs):
    x = args[0]
    d, _ = _arg(args, kwargs, 1, "dim")
    if d is not None:
        return dims_rule((1, "dim", None))(name, level, orig, args, kwargs)
    shape = tuple(s for s in x.shape if s != 1)
    return call("reshape", x, shape)


_register(["squeeze"], _squeeze)


def _t(name, level, orig, args, kwargs):
    x = args[0]
    if x.dim() < 2:
        return x
    return call("transpose", x, 0, 1)


_register(["t"], _t)


# ------------------------------------------------------------------ shapes

def _sizes(args, kwargs, kw):
    if len(args) == 1 and kw in kwargs:
        return tuple(kwargs[kw])
    rest = args[1:]
    if len(rest) == 1 and isinstance(rest[0], (tuple, list)) or (
            len(rest) == 1 and type(rest[0]).__name__ == "Size"):
        return tuple(rest[0])
    return tuple(rest)


def _reshape(name, level, orig, args, kwargs):
    x = args[0]
    if not is_batched_at(x, level) or _others_batched(level, args, kwargs):
        return NotImplemented
    shape = (_b.level_size(level),) + _sizes(args, {k: v for k, v in kwargs.items()}, "shape")
    return BatchedTensor(dispatch(name, orig, (x._value, shape), {}), level)


_register(["reshape", "view"], _reshape)


def _as_other(target):
    def rule(name, level, orig, args, kwargs):
        x, other = args[0], args[1]
        return call(target, x, tuple(other.shape))     # x unbatched: stays unbatched
    return rule


_register(["reshape_as", "view_as"], _as_other("reshape"))
_register(["expand_as"], _as_other("expand"))


def _expand(name, level, orig, args, kwargs):
    x = args[0]
    if not is_batched_at(x, level):
        return NotImplemented
    sizes = _sizes(args, kwargs, "size")
    if len(sizes) < x.dim():
        return NotImplemented
    v = _pad(x._value, x.dim(), len(sizes))
    shape = (_b.level_size(level),) + sizes
    return BatchedTensor(dispatch(name, orig, (v, shape), {}), level)


def _repeat(name, level, orig, args, kwargs):
    x = args[0]
    if not is_batched_at(x, level):
        return NotImplemented
    sizes = _sizes(args, kwargs, "repeats")
    if len(sizes) < x.dim():
        return NotImplemented
    v = _pad(x._value, x.dim(), len(sizes))
    return BatchedTensor(dispatch(name, orig, (v, (1,) + sizes), {}), level)


def _permute(name, level, orig, args, kwargs):
    x = args[0]
    if not is_batched_at(x, level):
        return NotImplemented
    dims = _sizes(args, kwargs, "dims")
    new = (0,) + tuple(_norm_dim(d, x.dim()) + 1 for d in dims)
    return BatchedTensor(dispatch(name, orig, (x._value, new), {}), level)


def _new_factory(name, level, orig, args, kwargs):
    """``x.new_zeros(size)``: unbatched, only dtype and device come from ``x``."""
    x = args[0]
    if not is_batched_at(x, level):
        return NotImplemented
    return dispatch(name, orig, (x._value,) + tuple(args[1:]), kwargs)


_register(["expand"], _expand)
_register(["repeat"], _repeat)
_register(["permute"], _permute)
_register(["new_zeros", "new_ones", "new_empty", "new_full", "new_tensor"], _new_factory)


def _materialize(t, level):
    """An unbatched operand as a value batched at ``level`` (expanded, no copy)."""
    if is_batched_at(t, level):
        return t._value
    return call("expand", call("unsqueeze", t, 0), (_b.level_size(level),) + tuple(t.shape))


def _cat(name, level, orig, args, kwargs):
    tensors, _ = _arg(args, kwargs, 0, "tensors")
    d, _ = _arg(args, kwargs, 1, "dim", 0)
    if not isinstance(tensors, (list, tuple)) or not tensors:
        return NotImplemented
    ref = next(t for t in tensors if is_batched_at(t, level))
    r = ref.dim() + (1 if name == "stack" else 0)
    vals = [_materialize(t, level) for t in tensors]
    if r == 0:
        return NotImplemented
    out = dispatch(name, orig, (vals, _map_dim(d, r)), {k: v for k, v in kwargs.items()
                                                        if k not in ("tensors", "dim")})
    return BatchedTensor(out, level)


_register(["cat", "concat", "concatenate", "stack"], _cat)


def _index_has_batched(idx):
    return any(type(e) is BatchedTensor for e in idx)


def _getitem(name, level, orig, args, kwargs):
    x, idx = args[0], args[1]
    if not is_batched_at(x, level):
        return NotImplemented
    idx = idx if isinstance(idx, tuple) else (idx,)
    if _index_has_batched(idx):
        return NotImplemented
    adv = [i for i, e in enumerate(idx) if isinstance(e, (Tensor, list))]
    if len(adv) > 1 and adv[-1] - adv[0] != len(adv) - 1:
        return NotImplemented       # separated advanced indices move to the front
    out = dispatch(name, orig, (x._value, (slice(None),) + idx), {})
    return BatchedTensor(out, level)


def _setitem(name, level, orig, args, kwargs):
    x, idx, value = args
    if not is_batched_at(x, level):
        if is_batched_at(value, level):
            _b.raise_inplace_error()
        return NotImplemented
    idx = idx if isinstance(idx, tuple) else (idx,)
    if _index_has_batched(idx):
        return NotImplemented
    if is_batched_at(value, level):
        target = _getitem("__getitem__", level, Tensor.__getitem__, (x, idx), {})
        if target is NotImplemented:
            return NotImplemented
        value = _pad(value._value, value.dim(), target.dim())
    dispatch(name, orig, (x._value, (slice(None),) + idx, value), {})
    return None


_register(["__getitem__"], _getitem)
_register(["__setitem__"], _setitem)


def _gather(name, level, orig, args, kwargs):
    x = args[0]
    d, where = _arg(args, kwargs, 1, "dim")
    index, iwhere = _arg(args, kwargs, 2, "index")
    if x.dim() == 0 or not _is_tensor(index) or index.dim() != x.dim():
        return NotImplemented
    a, k = _set((_materialize(x, level),) + tuple(args[1:]), kwargs, 1, "dim",
                _map_dim(d, x.dim()), where)
    a, k = _set(a, k, 2, "index", _materialize(index, level), iwhere)
    return BatchedTensor(dispatch(name, orig, a, k), level)


_register(["gather", "take_along_dim"], _gather)


# ------------------------------------------------------------------ matmul

def _matmul(name, level, orig, args, kwargs):
    a, b = (args[1], args[0]) if name == "__rmatmul__" else (args[0], args[1])
    ra, rb = a.dim(), b.dim()
    if ra == 0 or rb == 0:
        return NotImplemented
    va = a._value if is_batched_at(a, level) else call("unsqueeze", a, 0)
    vb = b._value if is_batched_at(b, level) else call("unsqueeze", b, 0)
    if ra == 1:
        va, ra = call("unsqueeze", va, 1), 2
        a_vec = True
    else:
        a_vec = False
    if rb == 1:
        vb, rb = call("unsqueeze", vb, -1), 2
        b_vec = True
    else:
        b_vec = False
    R = max(ra, rb)
    out = call("matmul", _pad(va, ra, R), _pad(vb, rb, R))
    if b_vec:
        out = call("squeeze", out, -1)
    if a_vec:
        out = call("squeeze", out, -1 if b_vec else -2)
    return BatchedTensor(out, level)


def _matmul_checked(rank_a, rank_b):
    """``mm``/``bmm``/``mv``/``dot``: PyTorch's rank checks, then the matmul rule."""
    def rule(name, level, orig, args, kwargs):
        a, b = args[0], args[1]
        if a.dim() != rank_a or b.dim() != rank_b:
            return NotImplemented          # the per-sample call raises PyTorch's error
        return _matmul("matmul", level, orig, args, kwargs)
    return rule


_register(["matmul", "__rmatmul__"], _matmul)
RULES["mm"] = _matmul_checked(2, 2)
RULES["bmm"] = _matmul_checked(3, 3)
RULES["mv"] = _matmul_checked(2, 1)
RULES["dot"] = RULES["inner"] = _matmul_checked(1, 1)


def _linear(name, level, orig, args, kwargs):
    x = args[0]
    w, _ = _arg(args, kwargs, 1, "weight")
    bias, _ = _arg(args, kwargs, 2, "bias")
    if is_batched_at(x, level) and not is_batched_at(w, level) and not is_batched_at(bias, level):
        if x.dim() == 0:
            return NotImplemented
        return BatchedTensor(dispatch(name, orig, (x._value, w, bias), {}), level)
    out = call("matmul", x, call("transpose", w, -1, -2) if w.dim() == 2 else w)
    return call("add", out, bias) if bias is not None else out


RULES["linear"] = _linear


def _outer(name, level, orig, args, kwargs):
    a, b = args[0], args[1]
    if a.dim() != 1 or b.dim() != 1:
        return NotImplemented
    return call("mul", call("unsqueeze", a, -1), b)


_register(["outer", "ger"], _outer)


def _einsum(name, level, orig, args, kwargs):
    eq = args[0]
    ops = list(args[1]) if len(args) == 2 and isinstance(args[1], (list, tuple)) else list(args[1:])
    if "->" not in eq:
        return NotImplemented
    lhs, rhs = eq.replace(" ", "").split("->")
    terms = lhs.split(",")
    if len(terms) != len(ops):
        return NotImplemented
    free = [c for c in "zyxwvutsrqponmlkjihgfedcbaZYXWVUTSRQPONMLKJIHGFEDCBA" if c not in eq]
    letter = free[0]
    new_terms, vals = [], []
    for t, o in zip(terms, ops):
        if is_batched_at(o, level):
            new_terms.append(letter + t)
            vals.append(o._value)
        else:
            new_terms.append(t)
            vals.append(o)
    out = dispatch(name, orig, (",".join(new_terms) + "->" + letter + rhs, *vals), {})
    return BatchedTensor(out, level)


RULES["einsum"] = _einsum


# -------------------------------------------------------- conv, pooling, losses

def _leading(n_spatial):
    """Ops on ``(N, C, *spatial)`` or ``(C, *spatial)`` input with unbatched weights: the
    batch dim merges with N (or plays N)."""
    def rule(name, level, orig, args, kwargs):
        x = args[0]
        if not is_batched_at(x, level) or _others_batched(level, args, kwargs):
            return NotImplemented
        r, v = x.dim(), x._value
        B = _b.level_size(level)
        if r == n_spatial + 1:
            return _wrap_out(dispatch(name, orig, (v,) + tuple(args[1:]), kwargs), level)
        if r != n_spatial + 2:
            return NotImplemented
        n = x.shape[0]
        v = call("reshape", v, (B * n,) + tuple(x.shape[1:]))
        out = dispatch(name, orig, (v,) + tuple(args[1:]), kwargs)

        def back(o):
            return BatchedTensor(call("reshape", o, (B, n) + tuple(o.shape[1:])), level)
        return tuple(back(o) for o in out) if isinstance(out, tuple) else back(out)
    return rule


for _n, _names in ((1, ["conv1d", "conv_transpose1d", "max_pool1d", "avg_pool1d",
                        "adaptive_avg_pool1d", "adaptive_max_pool1d", "max_pool1d_with_indices",
                        "adaptive_max_pool1d_with_indices", "dropout1d"]),
                   (2, ["conv2d", "conv_transpose2d", "max_pool2d", "avg_pool2d",
                        "adaptive_avg_pool2d", "adaptive_max_pool2d", "max_pool2d_with_indices",
                        "adaptive_max_pool2d_with_indices", "dropout2d"]),
                   (3, ["conv3d", "conv_transpose3d", "max_pool3d", "avg_pool3d",
                        "adaptive_avg_pool3d", "dropout3d"])):
    for _name in _names:
        RULES[_name] = _leading(_n)


def _group_norm(name, level, orig, args, kwargs):
    x = args[0]
    if x.dim() < 2:
        return NotImplemented
    return _leading(x.dim() - 2)(name, level, orig, args, kwargs)


RULES["group_norm"] = _group_norm


def _reduce_loss(out, reduction, level):
    if reduction == "none":
        return BatchedTensor(out, level)
    flat = call("reshape", out, (_b.level_size(level), -1))
    return BatchedTensor(call("mean" if reduction == "mean" else "sum", flat, 1), level)


def _pointwise_loss(name, level, orig, args, kwargs):
    """Elementwise losses: computed with ``reduction='none'``, then reduced per sample."""
    if len(args) > 2 or "size_average" in kwargs or "reduce" in kwargs:
        return NotImplemented
    reduction = kwargs.get("reduction", "mean")
    k = dict(kwargs, reduction="none")
    # unbatched operands are expanded, so the op sees the shapes a sample would
    # (its warning about broadcasting input and target shows only when a sample's would)
    R = max(a.dim() for a in args if _is_tensor(a))
    vals = [_pad(_materialize(a, level), a.dim(), R) if _is_tensor(a) else a for a in args]
    out = dispatch(name, orig, tuple(vals), k)
    return _reduce_loss(out, reduction, level)


_register(["mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss", "binary_cross_entropy",
           "binary_cross_entropy_with_logits", "soft_margin_loss"], _pointwise_loss)


def _class_loss(name, level, orig, args, kwargs):
    """``cross_entropy``/``nll_loss`` with class-index targets and no class weights."""
    if len(args) > 2 or kwargs.get("weight") is not None or "size_average" in kwargs \
            or "reduce" in kwargs:
        return NotImplemented
    x, target = args[0], args[1]
    if target.is_floating_point() or x.dim() not in (1, 2):
        return NotImplemented
    reduction = kwargs.get("reduction", "mean")
    ignore = kwargs.get("ignore_index", -100)
    k = dict(kwargs, reduction="none")
    B = _b.level_size(level)
    vx, vt = _materialize(x, level), _materialize(target, level)
    if x.dim() == 1:
        out = dispatch(name, orig, (vx, vt), k)
        if reduction == "mean":
            return NotImplemented if ignore >= 0 else BatchedTensor(out, level)
        return BatchedTensor(out, level)
    n, c = x.shape
    out = dispatch(name, orig, (call("reshape", vx, (B * n, c)), call("reshape", vt, (B * n,))), k)
    out = call("reshape", out, (B, n))
    if reduction == "none":
        return BatchedTensor(out, level)
    total = call("sum", out, 1)
    if reduction == "sum":
        return BatchedTensor(total, level)
    count = call("sum", call("ne", vt, ignore), 1)
    return BatchedTensor(call("div", total, call("to", count, out.dtype)), level)


_register(["cross_entropy", "nll_loss"], _class_loss)


def _batch_norm(name, level, orig, args, kwargs):
    """Batch statistics (no running stats): the vmap batch joins the channels, so each
    sample is normalized over its own ``N`` and spatial dims."""
    names = ("input", "running_mean", "running_var", "weight", "bias", "training", "momentum",
             "eps")
    full = dict(zip(names, args))
    full.update(kwargs)
    x = full["input"]
    if full.get("running_mean") is not None or full.get("running_var") is not None \
            or x.dim() < 2:
        return NotImplemented
    B = _b.level_size(level)
    v = _materialize(x, level)                        # (B, N, C, *)
    n, c, rest = x.shape[0], x.shape[1], tuple(x.shape[2:])
    v = call("reshape", call("movedim", v, 0, 1), (n, B * c) + rest)

    def per_channel(t):
        if t is None:
            return None
        if is_batched_at(t, level):
            return call("reshape", t._value, (B * c,))
        return call("repeat", t, B)
    out = dispatch(name, orig, (v, None, None, per_channel(full.get("weight")),
                                per_channel(full.get("bias")), full.get("training", False),
                                full.get("momentum", 0.1), full.get("eps", 1e-5)), {})
    out = call("movedim", call("reshape", out, (n, B, c) + rest), 1, 0)
    return BatchedTensor(out, level)


RULES["batch_norm"] = _batch_norm


_MHA_ARGS = ("query", "key", "value", "embed_dim_to_check", "num_heads", "in_proj_weight",
             "in_proj_bias", "bias_k", "bias_v", "add_zero_attn", "dropout_p",
             "out_proj_weight", "out_proj_bias", "training", "key_padding_mask",
             "need_weights", "attn_mask", "use_separate_proj_weight", "q_proj_weight",
             "k_proj_weight", "v_proj_weight", "static_k", "static_v",
             "average_attn_weights", "is_causal")


def _multi_head_attention(name, level, orig, args, kwargs):
    """``(L, N, E)`` (or ``(L, E)``) inputs with unbatched weights: the batch joins N."""
    full = dict(zip(_MHA_ARGS, args))
    full.update(kwargs)
    q, k, v = full["query"], full["key"], full["value"]
    shared = [n for n in _MHA_ARGS if n not in ("query", "key", "value", "key_padding_mask",
                                                "attn_mask")]
    if any(is_batched_at(full.get(n), level) for n in shared + ["attn_mask"]) or \
            full.get("static_k") is not None or full.get("static_v") is not None:
        return NotImplemented
    r = q.dim()
    mask = full.get("attn_mask")
    if r not in (2, 3) or k.dim() != r or v.dim() != r or (mask is not None and mask.dim() != 2):
        return NotImplemented
    if full.get("training", True) and full.get("dropout_p", 0.0) > 0:
        rnd = _b.level_randomness(level)
        if rnd == "error":
            raise RuntimeError(
                "vmap: called random operation while in randomness error mode. Please either "
                "use the 'same' or 'different' randomness flags on vmap or perform the "
                "randomness operation out of vmap")
        if rnd == "same":
            return NotImplemented
    B = _b.level_size(level)

    def seq_first(t):                  # (B, L, [N,] E) -> (L, B*N, E) or (L, B, E)
        p = call("movedim", _materialize(t, level), 0, 1)
        shape = tuple(p.shape)
        return call("reshape", p, (shape[0], B * shape[2], shape[3])) if r == 3 else p
    full["query"], full["key"], full["value"] = seq_first(q), seq_first(k), seq_first(v)
    kpm = full.get("key_padding_mask")
    if kpm is not None:
        p = _materialize(kpm, level)
        full["key_padding_mask"] = call("reshape", p, (-1, tuple(p.shape)[-1]))
    out, weights = dispatch(name, orig, (), full)
    n = q.shape[1] if r == 3 else None
    if r == 3:
        L, _, E = tuple(out.shape)
        out = call("reshape", out, (L, B, n, E))
    out = BatchedTensor(call("movedim", out, 1, 0), level)
    if weights is not None:
        if r == 3:
            weights = call("reshape", weights, (B, n) + tuple(weights.shape)[1:])
        weights = BatchedTensor(weights, level)
    return out, weights


RULES["multi_head_attention_forward"] = _multi_head_attention
