"""Autograd for views and in-place operations.

Views share memory with their base, so two things need care:

* **The gradient of a view** flows back into its base: ``AsStrided`` records a view
  with its geometry (shape, strides, offset); its backward scatters the gradient into
  a zero tensor shaped like the input (``ViewScatter``), summing where a view repeats
  memory (``expand``).
* **An in-place op** must not destroy values a backward still needs, and must change
  the history of the tensor it writes to. cygrad computes the op out of place from a
  snapshot (so saved tensors stay valid), copies the result in, and *rebases* the
  history: a plain tensor takes the new node as its ``grad_fn``; when the target is a
  view, its base gets a ``CopySlices`` node (the base's old gradient outside the
  view's region, the op's gradient inside it) and every view of that base regenerates
  its ``grad_fn`` from the base the next time it is used.
"""
import numpy as np

from .._core import engine as _E
from .._core import tensor as _C
from .._core.dispatch import kernel
from .._core.tensor import TensorBase
from .function import Function


class Geometry:
    """Where a tensor sits in its storage: shape, strides (elements) and offset."""
    __slots__ = ("shape", "strides", "offset")

    def __init__(self, t=None, shape=None, strides=None, offset=None):
        if t is not None:
            shape, strides, offset = t.shape, t.stride(), t.storage_offset()
        self.shape = tuple(shape)
        self.strides = tuple(strides)
        self.offset = offset

    def positions(self):
        """Storage position of every element, in logical (row-major) order."""
        pos = np.full(self.shape, self.offset, dtype=np.int64)
        for d, (n, s) in enumerate(zip(self.shape, self.strides)):
            shape = [1] * len(self.shape)
            shape[d] = n
            pos = pos + np.arange(n, dtype=np.int64).reshape(shape) * s
        return pos.reshape(-1)

    def is_contiguous(self):
        expected = 1
        for n, s in zip(reversed(self.shape), reversed(self.strides)):
            if n != 1 and s != expected:
                return False
            expected *= n
        return True


def _flat_index(base, view):
    """For each element of ``view``, the flat (row-major) index of the same memory in
    ``base``. Both geometries describe one storage."""
    base_pos = base.positions()
    order = np.argsort(base_pos, kind="stable")
    found = np.searchsorted(base_pos[order], view.positions())
    return order[np.minimum(found, len(order) - 1)]


def _expanded_dims(base, view):
    """If ``view`` is ``base`` broadcast (``expand``), the dims it repeats; else None."""
    lead = len(view.shape) - len(base.shape)
    if lead < 0 or view.offset != base.offset:
        return None
    dims = list(range(lead))
    for i, (n, s) in enumerate(zip(base.shape, base.strides)):
        vn, vs = view.shape[lead + i], view.strides[lead + i]
        if vn == n and (vs == s or n == 1):
            continue
        if n == 1 and vs == 0:
            dims.append(lead + i)
            continue
        return None
    return dims


def _place(g, base, view):
    """``zeros(base.shape)`` with ``g`` added at the elements ``view`` covers."""
    dims = _expanded_dims(base, view)
    if dims is not None:
        # the gradient of a broadcast: sum over the repeated dims (fast, no scatter)
        summed = g.sum(tuple(dims), keepdim=True) if dims else g
        return summed.reshape(base.shape).contiguous()
    out = _C.zeros(base.shape, dtype=g.dtype, device=g.device)
    if out.numel() == 0 or g.numel() == 0:
        return out
    if base.is_contiguous() and _no_overlap(view):
        # fast path: replay the view's geometry on a contiguous zero tensor (only when
        # no two elements of the view share memory: a copy would keep one of them)
        region = out._as_strided_any(view.shape, view.strides, view.offset - base.offset)
        _C._copy_into(region, g)
    else:
        # (the positions come from the view's geometry, known on the host)
        idx = _C.from_numpy(np.ascontiguousarray(_flat_index(base, view), dtype=np.int64)).to(out.device)
        # put(accumulate=True): the C scatter loop, repeats counted in order
        kernel("put", out.device.type)(out, idx, g.contiguous().reshape(-1), True)
    return out


def add_into_region(buffer, grad, geometry):
    """The engine's shortcut for a region view's backward (``engine._add_region``):
    add ``grad`` into the part of ``buffer`` (a gradient shaped like the base, which
    the engine owns) that the view covers, instead of placing it in zeros and
    summing. Returns False, changing nothing, where that is not a plain strided add:
    a base that was not contiguous, a view whose elements share memory, another
    dtype or device."""
    base, view = Geometry(shape=geometry[0], strides=geometry[1], offset=geometry[2]), \
        Geometry(shape=geometry[3], strides=geometry[4], offset=geometry[5])
    if (tuple(buffer.shape) != base.shape or buffer.dtype != grad.dtype
            or buffer.device != grad.device or not base.is_contiguous() or not _no_overlap(view)):
        return False
    region = buffer._as_strided_any(view.shape, view.strides, view.offset - base.offset)
    region.add_(grad)
    return True


def _no_overlap(view):
    """Is every element of ``view`` at its own storage position?  (Sufficient test:
    each stride, in increasing order, steps past everything the smaller ones reach, as
    for slices and transposes; ``unfold`` with ``step < size`` fails it.)"""
    reach = 0
    for n, s in sorted(((n, abs(s)) for n, s in zip(view.shape, view.strides) if n > 1),
                       key=lambda p: p[1]):
        if s <= reach:
            return False
        reach += (n - 1) * s
    return True


def _take(x, base, view):
    """The elements of ``x`` (shaped like ``base``) that ``view`` covers."""
    x = x.contiguous()
    if base.is_contiguous():
        return x._as_strided_any(view.shape, view.strides, x.storage_offset() + view.offset - base.offset)
    idx = _flat_index(base, view)
    flat = _C._ndarray(x).reshape(-1)[idx]
    return _C.from_numpy(np.ascontiguousarray(flat.reshape(view.shape)))


def _view_of_tangent(t, base, view):
    """Forward mode: the tangent of ``view`` from the tangent ``t`` of ``base``.

    When ``t`` is laid out like ``base`` (same strides), the view's geometry is replayed
    on ``t``'s memory, so the result is a view of ``t`` (no copy); otherwise the
    elements are gathered."""
    if all(s == bs for n, s, bs in zip(base.shape, t.stride(), base.strides) if n > 1):
        try:
            return t._as_strided_any(view.shape, view.strides,
                                t.storage_offset() + view.offset - base.offset)
        except RuntimeError:
            pass        # the view reaches outside t's memory (as_strided beyond the base)
    return _take(t, base, view)


def view_geometry(base, view):
    """What a view node keeps: base then view (shape, strides, offset), as tuples."""
    return ((tuple(base.shape), base.stride(), base.storage_offset()) +
            (tuple(view.shape), view.stride(), view.storage_offset()))


def _geometries(ctx):
    """(base, view) Geometry of a recorded view (kept as plain tuples until needed)."""
    g = ctx._view_geometry
    return Geometry(shape=g[0], strides=g[1], offset=g[2]), Geometry(shape=g[3], strides=g[4], offset=g[5])


class AsStrided(Function):
    """A view of ``base``: forward re-creates it; backward scatters into base's shape.

    Every view op (slicing, ``transpose``, ``view``, ``expand``...) is recorded as this
    Function, under the op's own node name (``SliceBackward0``...). The core has
    already built the view, so the engine records it directly
    (``engine.record_view``) instead of calling ``forward`` again.
    """
    _node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, base, shape, strides, offset):
        view = base._as_strided_any(shape, strides, offset)
        ctx._view_geometry = view_geometry(base, view)
        return view

    @staticmethod
    def backward(ctx, grad):
        base, view = _geometries(ctx)
        return ViewScatter.apply(grad, base, view), None, None, None

    @staticmethod
    def jvp(ctx, t_base, *_):
        base, view = _geometries(ctx)
        return _view_of_tangent(t_base, base, view)


class ViewScatter(Function):
    """Backward of a view, as a Function so that double backward works."""
    _node_name = "ViewScatterBackward0"

    @staticmethod
    def forward(ctx, grad, base, view):
        ctx.geometries = (base, view)
        return _place(grad, base, view)

    @staticmethod
    def backward(ctx, gg):
        base, view = ctx.geometries
        return ViewGather.apply(gg, base, view), None, None

    @staticmethod
    def jvp(ctx, t_grad, *_):
        base, view = ctx.geometries     # linear in grad: the same scatter of its tangent
        return _place(t_grad, base, view)


class ViewGather(Function):
    """Take a view's elements out of a base-shaped tensor (the adjoint of ViewScatter)."""
    _node_name = "ViewGatherBackward0"

    @staticmethod
    def forward(ctx, x, base, view):
        ctx.geometries = (base, view)
        return _take(x, base, view).clone()

    @staticmethod
    def backward(ctx, grad):
        base, view = ctx.geometries
        return ViewScatter.apply(grad, base, view), None, None

    @staticmethod
    def jvp(ctx, t_x, *_):
        base, view = ctx.geometries     # linear in x: the same gather of its tangent
        return _take(t_x, base, view).clone()


record_view = _E.record_view


def refresh_view(view):
    """Re-derive a view's grad_fn from its base (whose history changed in place)."""
    base = view._base
    fresh = AsStrided.apply(base, tuple(view.shape), view.stride(), view.storage_offset())
    view._grad_fn = fresh._grad_fn
    view._output_nr = 0
