"""Autograd pieces the reductions' backward formulas share: ``_Reduced`` (how an
output lines up with its input), the gather/scatter pair behind every "pick an
element" op, and the two gradient rules of such ops (``_Selection``: the gradient
goes to the picked index; ``_TieSplit``: it is split evenly among tied elements).
"""
import math

from ..._core import tensor as _C
from ...autograd.function import Function
from ._common import _kernel


def _no_out(out, opname, input, *others):
    """PyTorch refuses ``out=`` when autograd would have to record the op: when
    ``input`` (or one of ``others``) requires grad or carries a tangent.  Called
    before the op computes, so that the error comes first, as in PyTorch."""
    if out is not None and _C.needs_autograd(input, *others):
        raise RuntimeError(f"{opname}(): functions with out=... arguments don't support "
                           f"automatic differentiation, but one of the arguments requires grad.")


def _saved(ctx):
    """The tensors ``forward`` saved.  ``jvp`` runs before the node is recorded, while
    they still sit in ``ctx._to_save``; ``backward`` reads ``ctx.saved_tensors`` (which
    checks them for in-place changes)."""
    return ctx._to_save if ctx._to_save is not None else ctx.saved_tensors


def _rest(ctx, grad):
    """``grad`` for the first forward argument, None for all the others."""
    return (grad,) + (None,) * (len(ctx.needs_input_grad) - 1)


class _Reduced:
    """How a reduction's output lines up with its input, for backward and jvp.

    ``dims`` are the reduced dims (all of them for a full reduction, none for a 0-d
    input); ``keepdim`` says whether the output kept them as size-1 dims.
    """
    __slots__ = ("shape", "_given", "keepdim")

    def __init__(self, input, dims, keepdim):
        # Only stores: every forward builds one, with or without grad, so the work
        # is left to the properties, which only backward and jvp read.
        self.shape, self._given, self.keepdim = input.shape, dims, keepdim

    @property
    def dims(self):
        """The reduced dims, sorted."""
        ndim, given = len(self.shape), self._given
        return () if ndim == 0 else tuple(range(ndim)) if given is None else tuple(sorted(given))

    @property
    def count(self):
        """How many input elements fold into each output element."""
        return math.prod(self.shape[d] for d in self.dims)

    @property
    def axes(self):
        """The reduced dims as a ``dim``/``axis`` argument (None: every dim)."""
        return self.dims or None

    def unreduce(self, t):
        """An output-shaped tensor with the reduced dims put back as size-1 dims, so
        that it broadcasts against the input."""
        if not self.keepdim:
            for d in self.dims:
                t = t.unsqueeze(d)
        return t

    def expand(self, t):
        """An output-shaped tensor broadcast to the input's shape (a view, no copy)."""
        return self.unreduce(t).expand(self.shape)

    def sum(self, t):
        """Sum an input-shaped tensor over the reduced dims, as the forward reduced."""
        from .sums import sum as _sum     # (sums imports this module)
        return _sum(t, self.axes, self.keepdim)

    @property
    def kept_shape(self):
        """The input's shape with the reduced dims as size 1 (the output, unreduced)."""
        dims = self.dims
        return tuple(1 if d in dims else n for d, n in enumerate(self.shape))

    def _order(self):
        dims = self.dims
        return [d for d in range(len(self.shape)) if d not in dims] + list(dims)

    def rows(self, t):
        """An input-shaped tensor with the reduced dims moved last and merged into one
        dim: shape ``(kept dims..., count)``."""
        order = self._order()
        kept = tuple(self.shape[d] for d in order[:len(order) - len(self.dims)])
        return t.permute(order).reshape(kept + (self.count,))

    def unrows(self, r):
        """The inverse of ``rows``."""
        order = self._order()
        r = r.reshape(tuple(self.shape[d] for d in order))
        return r.permute([order.index(d) for d in range(len(order))])


def _mask(cond, dt):
    """A constant tensor (no history) of dtype ``dt``: 1 where ``cond`` holds, else 0."""
    return cond.to(dt)


def _tie_weights(x, result, red, nan_ties=True):
    """Weights splitting a max/min-style gradient evenly among ties: ``1/k`` at each
    of the ``k`` elements of a slice equal to the slice's result, 0 elsewhere, as
    PyTorch does.  A NaN result matches the NaN elements when ``nan_ties``; otherwise
    (PyTorch's amax/amin) nothing matches it and the slice's weights are NaN."""
    return _kernel("tie_weights", x)(x.detach(), result.detach(), red.kept_shape, red.axes,
                                     nan_ties)


class _GatherAlong(Function):
    """``out[..., j, ...] = x[..., idx[..., j, ...], ...]`` along dim ``d``: the elements
    a sort/topk/max(dim) picked.  Linear in ``x``; ``_ScatterAlong`` is its adjoint."""
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, idx, d):
        ctx.save_for_backward(idx)
        ctx.d, ctx.shape = d, tuple(x.shape)
        return _kernel("take_along_dim", x)(x, idx, d)

    @staticmethod
    def backward(ctx, grad):
        idx, = ctx.saved_tensors
        return _ScatterAlong.apply(grad, idx, ctx.d, ctx.shape), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _GatherAlong.apply(t, _saved(ctx)[0], ctx.d)


class _ScatterAlong(Function):
    """Zeros of ``shape`` with ``src`` written at ``idx`` along dim ``d``.  The indices
    are distinct within each slice (they come from a sort or an arg-extreme), so this
    is exactly the adjoint of ``_GatherAlong``."""
    _node_name = "ScatterBackward0"

    @staticmethod
    def forward(ctx, src, idx, d, shape):
        ctx.save_for_backward(idx)
        ctx.d, ctx.shape = d, shape
        return _kernel("put_along_dim", src)(src, idx, d, shape)

    @staticmethod
    def backward(ctx, grad):
        idx, = ctx.saved_tensors
        return _GatherAlong.apply(grad, idx, ctx.d), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _ScatterAlong.apply(t, _saved(ctx)[0], ctx.d, ctx.shape)


class _Selection(Function):
    """Base of the ops whose values are elements of the input picked at ``indices``
    along one dim (max/min with dim, sort, topk, median/kthvalue/mode with dim): each
    value's gradient goes back to the element it came from; the indices are not
    differentiable.

    A subclass's ``forward`` computes ``(values, indices)`` and calls ``_selected``.
    """

    @staticmethod
    def _selected(ctx, input, values, indices, d, squeezed):
        """Record what backward needs and return the outputs; ``squeezed`` means the
        output dropped dim ``d`` (a reduction without keepdim).  (``indices`` need no
        ``mark_non_differentiable``: the engine never gives an int64 tensor a grad.)"""
        ctx.save_for_backward(indices)
        ctx.d, ctx.shape, ctx.squeezed = d, input.shape, squeezed
        return values, indices

    @staticmethod
    def _kept(ctx, t):
        """``t`` with dim ``d`` back if the output dropped it (a 0-d input, whose
        output is the input itself, never gets here)."""
        return t.unsqueeze(ctx.d) if ctx.squeezed else t

    @staticmethod
    def backward(ctx, grad, *unused):
        if not ctx.shape:                       # a 0-d input is its own single value
            return _rest(ctx, grad)
        idx, = ctx.saved_tensors
        kept = _Selection._kept
        return _rest(ctx, _ScatterAlong.apply(kept(ctx, grad), kept(ctx, idx), ctx.d, ctx.shape))

    @staticmethod
    def jvp(ctx, t, *unused):
        if not ctx.shape:
            return t, None
        idx = _Selection._kept(ctx, _saved(ctx)[0])
        values = _GatherAlong.apply(t, idx, ctx.d)
        return (values.squeeze(ctx.d) if ctx.squeezed else values), None

class _TieSplit(Function):
    """Base of the reductions whose result is an element of its slice picked by value
    (amax/amin, max()/min(), median()): the gradient is split evenly among the
    elements equal to the result (ties), as PyTorch does.

    A subclass's ``forward`` computes the result and returns ``_chosen(...)``.
    """

    @staticmethod
    def _chosen(ctx, input, dims, keepdim, result, nan_ties=True):
        ctx.red, ctx.nan_ties = _Reduced(input, dims, keepdim), nan_ties
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        weights = _tie_weights(x, result, ctx.red, ctx.nan_ties)
        return _rest(ctx, ctx.red.unreduce(grad) * weights)

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        return ctx.red.sum(t * _tie_weights(x, result, ctx.red, ctx.nan_ties))
