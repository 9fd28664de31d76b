"""Views as Functions: ``transpose``, ``permute``, ``expand``, ``view``, slicing ...

A view shares its base's memory, so its forward is free: the core (array layer)
builds it from the base's geometry without copying.  What autograd needs is the
*backward*: how a gradient shaped like the view flows back into the base.  Three
kinds of views give three answers:

* **Reorderings** (``Permute``, ``Transpose``, ``T``): every element of the base
  appears once, in another order.  The gradient is permuted back with the inverse
  permutation (``argsort`` of the forward one).
* **Reshapes** (``View``, ``Squeeze``, ``Unsqueeze``) keep the elements and their
  order: the gradient is reshaped back.  ``Expand`` repeats elements (stride 0):
  each repeat received a gradient, so they are *summed* back.
* **Regions** (``Slice``, ``Select``, ``Narrow``, ``Diagonal``, ``AsStrided``) take
  part of the base: the gradient is written into that part of a zero tensor shaped
  like the base (``ViewScatter``; elements outside the region had no effect).

When a tensor that requires grad is viewed, the engine records the node directly
(``engine.record_view``) with what ``forward`` would have stored on ``ctx``:
``ctx._view_geometry`` (base and view shape/strides/offset) and, for reorderings,
``ctx.view_args`` (the permutation).
``forward`` itself runs only on the general path (forward-mode AD, or calling
``Permute.apply(x, dims)`` yourself).

Examples
--------
>>> import cygrad
>>> x = cygrad.ones(2, 3, requires_grad=True)
>>> y = x.t()
>>> y.grad_fn.name()
'TBackward0'
>>> (y * cygrad.tensor([[1.0, 2.0], [3.0, 4.0], [5.0, 6.0]])).sum().backward()
>>> x.grad.tolist()
[[1.0, 3.0, 5.0], [2.0, 4.0, 6.0]]
"""
from .._core import engine as _E
from ..autograd.function import Function
from ..autograd.view_nodes import AsStrided, _geometries, add_into_region

__all__ = ["Permute", "Transpose", "T", "View", "Squeeze", "Unsqueeze", "Expand", "Slice",
           "Select", "Narrow", "Diagonal", "AsStrided", "Alias"]


def _inverse(perm):
    """The permutation that undoes ``perm`` (its argsort)."""
    # course: begin permute-inverse
    inv = [0] * len(perm)
    for i, p in enumerate(perm):
        inv[p] = i
    return tuple(inv)
    # course: end permute-inverse


# ----------------------------------------------------------------------------- reorderings

class Permute(Function):
    """``x.permute(dims)``: the gradient goes back through the inverse permutation."""
    _node_name = "PermuteBackward0"

    @staticmethod
    def forward(ctx, x, dims):
        ctx.view_args = (dims,)
        return x.permute(dims)

    @staticmethod
    def backward(ctx, grad):
        (dims,) = ctx.view_args
        return grad.permute(_inverse(dims)), None

    @staticmethod
    def jvp(ctx, t, _):
        (dims,) = ctx.view_args
        return t.permute(dims)


class Transpose(Permute):
    """``x.transpose(d0, d1)``: the permutation that swaps two dims (its own inverse)."""
    _node_name = "TransposeBackward0"


class T(Permute):
    """``x.t()``: the transpose of a matrix (a vector or scalar is left as it is)."""
    _node_name = "TBackward0"


# --------------------------------------------------------------------------- reshapes

class _SameElements(AsStrided):
    """Views that keep every element once, in order: the gradient is reshaped back to
    the base's shape. ``forward`` (AsStrided's) replays the view's geometry on the base."""

    @staticmethod
    def backward(ctx, grad):
        base, _ = _geometries(ctx)
        return grad.reshape(base.shape), None, None, None

    @staticmethod
    def jvp(ctx, t, *_):
        _, view = _geometries(ctx)
        return t.reshape(view.shape)


class View(_SameElements):
    """``x.view(shape)`` / ``x.reshape(shape)`` when no copy is needed."""
    _node_name = "ViewBackward0"


class Alias(_SameElements):
    """``x.as_subclass(cls)``: the same elements under another Python object."""
    _node_name = "AliasBackward0"


class Squeeze(_SameElements):
    """``x.squeeze(dim)``: dims of size 1 removed."""
    _node_name = "SqueezeBackward0"


class Unsqueeze(_SameElements):
    """``x.unsqueeze(dim)``: a dim of size 1 inserted."""
    _node_name = "UnsqueezeBackward0"


class Expand(AsStrided):
    """``x.expand(sizes)``: size-1 dims repeated with stride 0 (and new leading dims).
    Every repeat of an element received a gradient: they are summed back. ``forward``
    (AsStrided's) replays the view's geometry on the base."""
    _node_name = "ExpandBackward0"

    @staticmethod
    def backward(ctx, grad):
        # course: begin expand-backward
        base, _ = _geometries(ctx)
        lead = grad.dim() - len(base.shape)
        dims = tuple(range(lead)) + tuple(lead + i for i, n in enumerate(base.shape)
                                          if n == 1 and grad.shape[lead + i] != 1)
        summed = grad.sum(dims, keepdim=True) if dims else grad
        return summed.reshape(base.shape), None, None, None
        # course: end expand-backward

    @staticmethod
    def jvp(ctx, t, *_):
        _, view = _geometries(ctx)
        return t.expand(view.shape)


# ---------------------------------------------------------------------------- regions

class _Region(AsStrided):
    """Views that are a part of their base: the gradient is placed into that part of
    zeros shaped like the base (``ViewScatter``), as for ``as_strided``."""


class Slice(_Region):
    """``x[a:b:s]`` and other basic indexing."""
    _node_name = "SliceBackward0"


class Select(_Region):
    """``x[i]`` / ``x.select(dim, i)``: one index of a dim, the dim removed."""
    _node_name = "SelectBackward0"


class Narrow(_Region):
    """``x.narrow(dim, start, length)``."""
    _node_name = "NarrowBackward0"


class Diagonal(_Region):
    """``x.diagonal(offset, dim1, dim2)``."""
    _node_name = "DiagonalBackward0"


def register():
    """Tell the engine which Function records each view node name (called once from
    ``cygrad/_wiring.py``)."""
    _E._set_view_function(AsStrided)
    for cls in (Permute, Transpose, T, View, Squeeze, Unsqueeze, Expand, Slice, Select,
                Narrow, Diagonal, Alias):
        _E._register_view_function(cls)
    for cls in (Slice, Select, Narrow, Diagonal):
        _E._register_region_view(cls, add_into_region)
