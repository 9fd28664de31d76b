"""``scatter_reduce``: reduce (sum, prod, mean, amax, amin) the values of ``src`` into
the places an index gives along one dim, with its exact gradients.

Examples
--------
>>> import cygrad
>>> cygrad.scatter_reduce(cygrad.zeros(2), 0, cygrad.tensor([1, 1]),
...                       cygrad.tensor([2.0, 5.0]), "amax").tolist()
[0.0, 5.0]
"""
from ..._core import tensor as _C
from ..._tensor import tensor_method
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from .._argcheck import bool_arg
from ._common import _check_no_internal_overlap, _check_out_dtype, _dim, _finish, _k
from ._autograd import (_apply_inplace, _copy, _differentiated, _no_out, _pad_to, _target,
                        _written, _zeros)
from .gather_scatter import _scatter_args, _scatter_into, gather, scatter_add
from .masked import masked_fill
from .where_nonzero import where

__all__ = ["scatter_reduce"]


_REDUCE_ALIASES = {"max": "amax", "min": "amin"}


def _scatter_reduce_name(reduce, opname):
    if not isinstance(reduce, str):
        raise TypeError(f"{opname}(): argument 'reduce' (position 5) must be str, not "
                        f"{type(reduce).__name__}")
    name = _REDUCE_ALIASES.get(reduce, reduce)
    if name not in ("sum", "prod", "mean", "amax", "amin"):
        raise RuntimeError(f"reduce argument must be either sum, prod, mean, amax or amin, "
                           f"got {reduce}")
    return name


def _reduce_args(opname, input, dim, index, src, reduce, include_self, inplace):
    """PyTorch's parser for scatter_reduce's arguments: ``(dim, reduce, include_self)``."""
    dim = _scatter_args(opname, input, dim, index, src, inplace, src_required=True)
    return dim, _scatter_reduce_name(reduce, opname), bool_arg(include_self, opname,
                                                               "include_self")


class ScatterReduce(Function):
    """``scatter_reduce``. Every element of ``input`` and of ``src`` feeds exactly one
    place of the result, so each gets the gradient of that place times its partial
    derivative there:

    * ``sum``: 1;  ``mean``: 1 / (number of values reduced at the place);
    * ``amax``/``amin``: 1 / (number of values equal to the result) for those values,
      0 for the others (ties share the gradient);
    * ``prod``: the product of the other values at the place (found without dividing
      by zero when a value is 0).

    With ``include_self=False`` the places ``index`` reaches pass nothing to ``input``.
    """
    _node_name = "ScatterReduceBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, dim, index, src, reduce, include_self):
        ctx.dim, ctx.reduce, ctx.include_self = dim, reduce, include_self
        ctx.shape, ctx.src_shape, ctx.dtype = tuple(x.shape), tuple(src.shape), x.dtype
        # the derivative's weights are worth computing only when a gradient is asked for
        weighed = x.dtype.is_floating_point and _differentiated(ctx, x, src)
        target = _target(ctx, x)
        # (in place, the weights still need the values x had before the write)
        old = _copy(x) if weighed and target is x else x
        result = _scatter_into(target, dim, index, src, None, reduce, include_self)
        saved = (index,)
        if weighed:
            saved += _scatter_reduce_saved(old, dim, index, src, result, reduce, include_self)
        ctx.save_for_backward(*saved)
        return _written(ctx, x, result)

    @staticmethod
    def backward(ctx, grad):
        saved = ctx.saved_tensors
        grad_x, grad_src = _scatter_reduce_vjp(ctx, saved, grad)
        if (ctx.reduce == "prod" and grad_src is not None and _C.is_grad_enabled()
                and _shared_src_zeros(saved)):
            # the zeros that share a place got the constant 0, whose own derivative is
            # wrong: differentiating this gradient again is an error (as in PyTorch)
            grad_src = _NoDoubleBackward.apply(
                grad_src, "scatter_reduce(): Double backward is unsupported for src when >1 "
                "zeros in src are scattered to the same position in self", grad, saved[3])
        return grad_x, None, None, grad_src, None, None

    @staticmethod
    def jvp(ctx, tx, _, __, ts, *___):
        if tx is None and ts is None:
            return None
        saved = _fwad.saved_for_jvp(ctx)
        # each input element feeds one place: tangent = sum of (partial derivative * tangent)
        d_x, d_src = _scatter_reduce_vjp(ctx, saved, _C.ones(ctx.shape, dtype=ctx.dtype, device=saved[0].device))
        out = None if tx is None else tx * d_x
        if ts is not None:
            added = scatter_add(_zeros(ctx.shape, ts.dtype, ts.device), ctx.dim, saved[0], ts * d_src)
            out = added if out is None else out + added
        return out


class ScatterReduceInplace(ScatterReduce):
    """``scatter_reduce_``: :class:`ScatterReduce` writing into ``x``."""
    _node_name = "ScatterReduceBackward0"
    inplace = True


def _scatter_reduce_saved(x, dim, index, src, result, reduce, include_self):
    """What the backward of ``scatter_reduce`` needs besides ``index`` (see
    :func:`_scatter_reduce_vjp`); its constant weights are computed here, once."""
    dim = _dim(dim, x.dim())
    weights = _k("scatter_reduce_weights", x)(x, dim, index, src, result, reduce, include_self)
    if reduce == "prod":
        not_reached, src_zero, lone_zero = weights
        return not_reached, x, src, result, src_zero, lone_zero
    return weights


def _scatter_reduce_vjp(ctx, saved, grad):
    """Gradients of ``scatter_reduce`` for the output gradient ``grad``: ``(to input,
    to src)``, written with differentiable ops."""
    dim, reduce, include_self = ctx.dim, ctx.reduce, ctx.include_self
    index = saved[0]
    if reduce == "sum":
        grad_x = grad if include_self else grad * saved[1]
        grad_src = gather(grad, dim, index)
    elif reduce == "mean":
        inv_count, not_reached = saved[1], saved[2]
        grad_x = grad * (inv_count if include_self else not_reached)
        grad_src = gather(grad * inv_count, dim, index)
    elif reduce in ("amax", "amin"):
        self_share, inv_hits, src_hit = saved[1:4]
        grad_x = grad * self_share
        grad_src = gather(grad * inv_hits, dim, index) * src_hit
    else:
        grad_x, grad_src = _scatter_prod_vjp(ctx, saved, grad)
    return grad_x, _pad_to(grad_src, ctx.src_shape)


def _shared_src_zeros(saved):
    """Do two zeros of src meet at one place (``prod``; see ``_scatter_reduce_saved``)?"""
    src_zero, lone_zero = saved[5], saved[6]
    return bool((src_zero & (lone_zero == 0)).any())


class _NoDoubleBackward(Function):
    """``value`` as is, in a graph whose backward raises ``message``: marks a gradient
    that is right but must not be differentiated again (``deps`` record the inputs)."""
    _node_name = "Error"

    @staticmethod
    def forward(ctx, value, message, *deps):
        ctx.message = message
        return _copy(value)

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError(ctx.message)


def _scatter_prod_vjp(ctx, saved, grad):
    dim, include_self = ctx.dim, ctx.include_self
    index, not_reached, x, src, result, src_zero, lone_zero = saved
    if include_self:
        # d(x * p)/dx = p, the product of the src values at the place (1 where none went)
        grad_x = grad * scatter_reduce(_C.ones(ctx.shape, dtype=src.dtype, device=src.device), dim, index, src,
                                       "prod")
    else:
        grad_x = grad * not_reached
    if tuple(src.shape) != tuple(index.shape):
        src = src[tuple(slice(0, n) for n in index.shape)]
    # a nonzero value: (product of all) / value; zeros are replaced by 1 before dividing
    safe_src = masked_fill(src, src_zero, 1.0)
    grad_src = gather(grad * result, dim, index) / safe_src
    if bool((lone_zero != 0).any()):
        # the only zero of src at its place: its partial derivative is the product of the
        # others (input included: a zero there is kept, as its derivative is needed)
        others = scatter_reduce(x, dim, index, safe_src, "prod", include_self=include_self)
        grad_src = where(src_zero, gather(grad * others, dim, index) * lone_zero, grad_src)
    else:
        grad_src = where(src_zero, 0.0, grad_src)
    return grad_x, grad_src


@tensor_method
def scatter_reduce_(input, dim, index, src, reduce, *, include_self=True):
    """In place: reduce the values of ``src`` into ``input`` at ``index`` along ``dim``
    with ``reduce`` = ``"sum"``, ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``.

    Every value sent to one place takes part; ``include_self=False`` leaves the values
    already in ``input`` out of the reduction at the places ``index`` reaches. Integer
    means round down, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, 2.0, 3.0])
    >>> idx, src = cygrad.tensor([0, 0, 2]), cygrad.tensor([5.0, -4.0, 1.0])
    >>> x.scatter_reduce_(0, idx, src, "amax").tolist()
    [5.0, 2.0, 3.0]
    """
    dim, reduce, include_self = _reduce_args("scatter_reduce_", input, dim, index, src, reduce,
                                             include_self, inplace=True)
    _check_no_internal_overlap(input)
    return _apply_inplace(ScatterReduceInplace, input, dim, index, src, reduce, include_self)


@tensor_method
def scatter_reduce(input, dim, index, src, reduce, *, include_self=True, out=None):
    """Out-of-place :meth:`Tensor.scatter_reduce_`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(3)
    >>> idx, src = cygrad.tensor([0, 0, 2]), cygrad.tensor([1.0, 3.0, 5.0])
    >>> cygrad.scatter_reduce(x, 0, idx, src, "mean", include_self=False).tolist()
    [2.0, 0.0, 5.0]
    """
    dim, reduce, include_self = _reduce_args("scatter_reduce", input, dim, index, src, reduce,
                                             include_self, inplace=False)
    _no_out(out, "scatter_reduce", input, src)
    _check_out_dtype(out, input.dtype)
    return _finish(ScatterReduce.apply(input, dim, index, src, reduce, include_self), out)
