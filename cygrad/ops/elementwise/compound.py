"""Elementwise ops whose forward runs several kernels: ``clamp``, ``lerp``, ``round``
to decimals and truncating ``div``.

Each is still one ``Function`` with ``forward``, ``backward`` and ``jvp`` side by
side, so that its in-place form (``clamp_``, ``lerp_``...) is the same Function
marked dirty (``cygrad.autograd.inplace.apply_inplace``) and its node carries
PyTorch's name. The public functions in ``__init__.py`` check the arguments (dtypes,
number bounds that must fit) once and pass checked values in.

Rounding ops are step functions: their derivative is 0 wherever it exists, which
is PyTorch's convention too.
"""
import math

from ..._core import dtype as _dt
from ..._core import tensor as _C
from ...autograd.function import Function

OPS = _C.ELEMENTWISE_OPS
_binary_op, _unary_op = _C.binary_op, _C.unary_op


def _where(mask, a, b):
    from ..indexing import where
    return where(mask, a, b)


_NARROW = (_dt.float16, _dt.bfloat16)


def _opmath(*args):
    """float16/bfloat16 tensors as float32, the precision PyTorch computes them in."""
    for x in args:
        if isinstance(x, _C.TensorBase) and x.dtype in _NARROW:
            return tuple(y.float() if isinstance(y, _C.TensorBase) and y.dtype in _NARROW
                         else y for y in args)
    return args


def _as(res, dtype):
    return res if res.dtype is dtype else res.to(dtype)


# ----------------------------------------------------------------------------- clamp

def _inside(x, lo, hi):
    """Where ``lo <= x <= hi`` (a None bound is no limit; NaN is never inside)."""
    mask = None
    if lo is not None:
        mask = x >= lo
    if hi is not None:
        upper = x <= hi
        mask = upper if mask is None else mask & upper
    return mask


class Clamp(Function):
    """``clamp(x, min, max)`` with number bounds: ``min(max(x, lo), hi)``.

    The gradient passes where ``lo <= x <= hi`` and is 0 where a bound took over.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([-2.0, 0.5, 3.0], requires_grad=True)
    >>> y = Clamp.apply(x, -1.0, 1.0, x.dtype)
    >>> y.sum().backward(); x.grad.tolist()
    [0.0, 1.0, 0.0]
    """
    _node_name = "ClampBackward1"

    @staticmethod
    def forward(ctx, x, lo, hi, dtype):
        ctx.save_for_backward(x)
        ctx.bounds = (lo, hi)
        res = _as(x, dtype)
        if lo is not None:
            res = _binary_op(OPS["maximum"], res, lo)
        if hi is not None:
            res = _binary_op(OPS["minimum"], res, hi)
        return x.clone() if res is x else res

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return _where(_inside(x, *ctx.bounds), grad, 0), None, None, None

    @staticmethod
    def jvp(ctx, t, *_):
        x, = ctx.saved_tensors
        return _where(_inside(x, *ctx.bounds), t, 0)


class ClampTensor(Function):
    """``clamp(x, min, max)`` with tensor bounds: each bound gets the gradient where
    it took over (``max`` wins where ``min > max``, as in PyTorch)."""
    _node_name = "ClampBackward0"

    @staticmethod
    def forward(ctx, x, lo, hi, dtype):
        res = Clamp.forward(ctx, x, lo, hi, dtype)
        ctx.save_for_backward(x, lo, hi)
        return res

    @staticmethod
    def _masks(x, lo, hi):
        """Where the gradient goes: to x, to lo, to hi (None for an absent bound)."""
        to_lo = to_hi = None
        if lo is not None:
            to_lo = x < lo if hi is None else (x < lo) & (lo < hi)
        if hi is not None:
            to_hi = x > hi if lo is None else (x > hi) | (hi < lo)
        return _inside(x, lo, hi), to_lo, to_hi

    @staticmethod
    def backward(ctx, grad):
        x, lo, hi = ctx.saved_tensors
        need = ctx.needs_input_grad
        to_x, to_lo, to_hi = ClampTensor._masks(x, lo, hi)
        return (_where(to_x, grad, 0) if need[0] else None,
                _where(to_lo, grad, 0) if need[1] else None,
                _where(to_hi, grad, 0) if need[2] else None, None)

    @staticmethod
    def jvp(ctx, t_x, t_lo, t_hi, _):
        x, lo, hi = ctx.saved_tensors
        total = None
        for mask, t in zip(ClampTensor._masks(x, lo, hi), (t_x, t_lo, t_hi)):
            if t is not None and mask is not None:
                term = _where(mask, t, 0)
                total = term if total is None else total + term
        return total


# ------------------------------------------------------------------------------ lerp

def lerp_formula(start, end, weight):
    """PyTorch's lerp: from ``start`` for weights below 0.5 in magnitude, from ``end``
    otherwise, so that weight 1 gives ``end`` exactly."""
    diff = end - start
    if not isinstance(weight, _C.TensorBase):
        if abs(weight) < 0.5:       # (the modulus, for a complex weight)
            return start + weight * diff
        return end - diff * (1 - weight)
    return _where(abs(weight) < 0.5, start + weight * diff, end - diff * (1 - weight))


def _conj(v):
    # a tensor or a Python number (whose conjugate() is itself unless complex)
    return v.conj() if isinstance(v, _C.TensorBase) else v.conjugate()


class Lerp(Function):
    """``start + weight * (end - start)``; weight a number (``LerpBackward0``) or a
    tensor (``LerpBackward1``, which gets ``grad * (end - start)``).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([0.0], requires_grad=True)
    >>> Lerp.apply(a, cygrad.tensor([10.0]), 0.25).tolist()
    [2.5]
    """
    _node_name = "LerpBackward0"

    @staticmethod
    def forward(ctx, start, end, weight):
        ctx.save_for_backward(start, end, weight if isinstance(weight, _C.TensorBase) else None)
        ctx.weight = weight
        return _as(lerp_formula(*_opmath(start, end, weight)), start.dtype)

    @staticmethod
    def backward(ctx, grad):
        start, end, w = ctx.saved_tensors
        w = ctx.weight if w is None else w
        need = ctx.needs_input_grad
        # conjugated factors: the conjugate Wirtinger gradient of complex inputs
        return (grad * _conj(1 - w) if need[0] else None,
                grad * _conj(w) if need[1] else None,
                grad * (end - start).conj() if len(need) > 2 and need[2] else None)

    @staticmethod
    def jvp(ctx, t_start, t_end, t_w=None):
        start, end, w = ctx.saved_tensors
        w = ctx.weight if w is None else w
        total = None
        for t, factor in ((t_start, lambda: 1 - w), (t_end, lambda: w),
                          (t_w, lambda: end - start)):
            if t is not None:
                term = t * factor()
                total = term if total is None else total + term
        return total


class LerpTensor(Lerp):
    """``lerp`` with a tensor weight."""
    _node_name = "LerpBackward1"


# ------------------------------------------------------------------- rounding forms

class _Step(Function):
    """A rounding op: forward is ``_values``; the derivative is 0."""

    @staticmethod
    def backward(ctx, grad):
        zero = grad.new_zeros(ctx.out_shape)    # the engine sums it to each input's shape
        return tuple(zero if need else None for need in ctx.needs_input_grad)

    @staticmethod
    def jvp(ctx, *tangents):
        t = next(t for t in tangents if t is not None)
        return t.new_zeros(ctx.out_shape)


class RoundDecimals(_Step):
    """``round(x, decimals=d)``: PyTorch's scaling by ``10**|d|`` (in float32 for
    float16/bfloat16), round half to even, scale back."""
    _node_name = "RoundBackward1"

    @staticmethod
    def forward(ctx, x, decimals):
        ctx.out_shape = tuple(x.shape)
        if decimals == 0:
            return _unary_op(OPS["round"], x)
        y, = _opmath(x)
        try:
            ten = 10.0 ** abs(decimals)
        except OverflowError:
            ten = math.inf
        if decimals > 0:
            res = _binary_op(OPS["div"], _unary_op(OPS["round"], _binary_op(OPS["mul"], y, ten)), ten)
        else:
            res = _binary_op(OPS["mul"], _unary_op(OPS["round"], _binary_op(OPS["div"], y, ten)), ten)
        return _as(res, x.dtype)


def int_trunc_divide(a, b):
    """Integer division rounding toward zero, exact for all of int64 (a float round
    trip would lose bits above 2**24/2**53): the floor quotient, plus one where the
    division was inexact and the operands' signs differ."""
    q = _binary_op(OPS["floor_divide"], a, b)
    inexact = _binary_op(OPS["ne"], _binary_op(OPS["remainder"], a, b), 0)
    signs_differ = _binary_op(OPS["logical_xor"], _binary_op(OPS["lt"], a, 0),
                              _binary_op(OPS["lt"], b, 0))
    return _binary_op(OPS["add"], q, _binary_op(OPS["logical_and"], inexact, signs_differ))


class DivTrunc(_Step):
    """``div(a, b, rounding_mode="trunc")``: the quotient rounded toward zero
    (computed in float32 for float16/bfloat16, exactly for integers)."""
    _node_name = "DivBackward2"

    @staticmethod
    def forward(ctx, a, b):
        dt = _C.result_type(a, b)
        if dt.is_floating_point:
            res = _as(_unary_op(OPS["trunc"], _binary_op(OPS["div"], *_opmath(a, b))), dt)
        else:
            res = int_trunc_divide(a, b)
        ctx.out_shape = tuple(res.shape)
        return res


class DivFloor(_Step):
    """``div(a, b, rounding_mode="floor")``: floor division, computed exactly
    (``floor(a / b)`` would round ``1.0 / 0.1`` up to 10)."""
    _node_name = "DivBackward2"

    @staticmethod
    def forward(ctx, a, b):
        out = _binary_op(OPS["floor_divide"], a, b)
        ctx.out_shape = tuple(out.shape)
        return out
