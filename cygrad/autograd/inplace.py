"""How autograd records an in-place op: the op's own Function, marked dirty.

``x.mul_(y)`` is recorded by the same ``Mul`` Function as ``x * y``, exactly as a
user's Function would do it: its forward's result is written into ``x`` and ``x`` is
declared modified (``ctx.mark_dirty``), so ``x``'s ``grad_fn`` becomes the new
``MulBackward0`` node. The engine's ``apply_inplace`` does this; one thing needs care:
``Mul`` saves ``x`` for its backward, but ``x`` is about to be overwritten, so the saved
``x`` is a copy of its old value.

When ``x`` is a **view**, its base must see the write too. Then the Function computes
the new values out of place and the base records ``CopySlices``: its old gradient
outside the view's region, the op's gradient inside it. Every view of that base
regenerates its ``grad_fn`` from the base the next time it is used.

Examples
--------
>>> import cygrad
>>> leaf = cygrad.tensor([1.0, 2.0], requires_grad=True)
>>> x = leaf * 1
>>> x.exp_().grad_fn.name()
'ExpBackward0'
>>> v = leaf.clone()[:1]
>>> v.mul_(2)._base.grad_fn.name()
'CopySlices'
"""
from .._core import engine as _E
from .._core import tensor as _C
from .function import Function
from .view_nodes import Geometry, ViewGather, _place, refresh_view


def apply_inplace(cls, target, *args):
    """``target`` set to ``cls.apply(target, *args)`` in place, recorded as ``cls``'s
    node (or, for a view, as ``CopySlices`` of its base over that node).

    The public in-place ops of every family (``mul_``, ``index_add_``, ``tril_``...)
    call this when autograd must see them; without grad they run their kernel in
    place directly.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.ops.elementwise.binary import Mul
    >>> x = cygrad.ones(2, requires_grad=True).clone()
    >>> apply_inplace(Mul, x, cygrad.tensor([2.0, 3.0])).tolist()
    [2.0, 3.0]
    """
    if target._base is None:
        if _C.is_grad_enabled():
            _check_not_leaf(target)
        old_node, old_nr = target._grad_fn, target._output_nr
        _E.apply_inplace(cls, target, (target,) + args)
        _move_retained_grad(target, old_node, old_nr)
        return target
    check_view_target(target)
    value = _E.apply_inplace(cls, target, (target,) + args, False)
    write_into_view(target, value)
    return target


def write_into_view(view, value):
    """Copy ``value`` into the view ``view``; its base records ``CopySlices``."""
    region = _C._detach(view)._as_strided_any(tuple(view.shape), view.stride(),
                                             view.storage_offset())
    CopySlices.apply(view._base, value, region)
    # view's grad_fn is re-derived from its base on next use (its version changed);
    # a view of an untracked base starts being tracked now
    if value.requires_grad and not view.requires_grad:
        refresh_view(view)
        view._view_version = view._version
        _set_requires_grad(view)
    if value._fw_grad is not None or view._fw_grad is not None:
        from .forward_ad import _set_tangent
        _set_tangent(view, value._fw_grad)


def rebase_dirty_view(view):
    """A Function marked the view ``view`` dirty (the engine calls this): its base
    records the write too, as ``CopySlices`` over the Function's node (the values are
    already in place, so nothing is copied)."""
    check_view_target(view)
    region = _C._detach(view)._as_strided_any(tuple(view.shape), view.stride(),
                                             view.storage_offset())
    WrittenSlices.apply(view._base, view, region)
    if view.requires_grad:
        # the view's history now runs through its base, as PyTorch regenerates it
        refresh_view(view)
        view._view_version = view._version


def check_view_target(view):
    """Refuse an in-place write into ``view`` (a view) when it is a view of a leaf that
    requires grad, as PyTorch does (with grad mode on).

    The leaf is usually ``view._base``; but when the leaf is itself a view of a tensor
    outside autograd (``arange(9.).reshape(3, 3).requires_grad_()``), the base does not
    require grad, and the leaf shows as the first node past the view nodes of
    ``view``'s history: an ``AccumulateGrad``."""
    if not _C.is_grad_enabled():
        return
    root = view._base
    leaf_view = root.requires_grad and root.grad_fn is None
    if not leaf_view and not root.requires_grad and view.requires_grad:
        node = view.grad_fn
        while node is not None and getattr(node, "_view_geometry", None) is not None:
            node = node.next_functions[0][0] if node.next_functions else None
        leaf_view = node is not None and type(node).__name__ == "AccumulateGrad"
    if leaf_view:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def check_inplace_target(t):
    """PyTorch's refusals of an in-place write, before anything is written (with grad
    mode on): into a leaf that requires grad, or into a view of one."""
    if t._base is None:
        if _C.is_grad_enabled():
            _check_not_leaf(t)
    else:
        check_view_target(t)


def _check_not_leaf(t):
    if t.requires_grad and t.grad_fn is None:
        raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                           "operation.")


def _move_retained_grad(t, old_node, old_nr):
    """``retain_grad`` follows the tensor to its new history (its value changed)."""
    if not t._retains_grad or old_node is None or not old_node._retain_grad:
        return
    ref = old_node._retain_grad.pop(old_nr, None)
    node = t._grad_fn
    if ref is not None and node is not None:
        if node._retain_grad is None:
            node._retain_grad = {}
        node._retain_grad[t._output_nr] = ref


def _set_requires_grad(t):
    # bypass the setter's "only leaves" check: t just got a grad_fn
    gf = t._grad_fn
    t._grad_fn = None
    t.requires_grad = True
    t._grad_fn = gf


class CopySlices(Function):
    """Write ``value`` into the region ``view`` of ``base`` (in place)."""
    _node_name = "CopySlices"

    @staticmethod
    def forward(ctx, base, value, view):
        _C._copy_into(view, value)
        base._bump_version()
        ctx.geometries = (Geometry(base), Geometry(view))
        ctx.mark_dirty(base)
        return base

    @staticmethod
    def backward(ctx, grad):
        base, view = ctx.geometries
        inside = ViewGather.apply(grad, base, view)
        mask = _place(_C.ones(view.shape, dtype=grad.dtype, device=grad.device), base, view)
        return grad * (1 - mask), inside, None

    @staticmethod
    def jvp(ctx, t_base, t_value, _):
        # base's tangent outside the view's region, value's tangent inside it
        base, view = ctx.geometries
        dtype = (t_base if t_base is not None else t_value).dtype
        mask = _place(_C.ones(view.shape, dtype=dtype), base, view)
        outside = None if t_base is None else t_base * (1 - mask)
        if t_value is None:
            return outside
        inside = _place(t_value.expand(view.shape).to(dtype), base, view)
        return inside if outside is None else outside + inside


class WrittenSlices(CopySlices):
    """``CopySlices`` for a write that already happened: a Function wrote into a view
    of ``base`` and marked it dirty."""
    _node_name = "CopySlices"

    @staticmethod
    def forward(ctx, base, value, view):
        ctx.geometries = (Geometry(base), Geometry(view))
        ctx.mark_dirty(base)
        return base


def elementwise_inplace(op, self, other):
    """``self.op_(other)`` when autograd must see it (the core calls this): the op's
    Function (``op.function``), or ``copy_``'s, applied in place."""
    if op.name in ("copy_", "fill_", "zero_"):
        from ..ops.shape import copying
        if op.name == "copy_":
            return apply_inplace(copying.Copy, self, other)
        if op.name == "zero_":
            return apply_inplace(copying.Zero, self)
        cls = copying.FillTensor if isinstance(other, _C.TensorBase) else copying.Fill
        return apply_inplace(cls, self, other)
    if op.function is None:
        raise RuntimeError(f"{op.name}_: this op has no derivative for autograd to record")
    return apply_inplace(op.function, self) if op.arity == 1 else apply_inplace(op.function, self, other)
