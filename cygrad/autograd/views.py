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
from .._core.tensor import TensorBase
from .function import Function


class Geometry:
    """Where a tensor sits in its storage: shape, strides (elements) and offset."""
    __slots__ = ("shape", "strides", "offset")

    def __init__(self, t):
        self.shape = tuple(t.shape)
        self.strides = t.stride()
        self.offset = t.storage_offset()

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


def _place(g, base, view):
    """``zeros(base.shape)`` with ``g`` added at the elements ``view`` covers."""
    out = _C.zeros(base.shape, dtype=g.dtype)
    if out.numel() == 0 or g.numel() == 0:
        return out
    if base.is_contiguous() and 0 not in view.strides:
        # fast path: replay the view's geometry on a contiguous zero tensor
        region = out.as_strided(view.shape, view.strides, view.offset - base.offset)
        _C._copy_into(region, g)
    else:
        idx = _flat_index(base, view)
        np.add.at(_C._ndarray(out).reshape(-1), idx, _C._ndarray(g.contiguous()).reshape(-1))
    return out


def _take(x, base, view):
    """The elements of ``x`` (shaped like ``base``) that ``view`` covers."""
    x = x.contiguous()
    if base.is_contiguous():
        return x.as_strided(view.shape, view.strides, x.storage_offset() + view.offset - base.offset)
    idx = _flat_index(base, view)
    flat = _C._ndarray(x).reshape(-1)[idx]
    return _C.from_numpy(np.ascontiguousarray(flat.reshape(view.shape)))


class AsStrided(Function):
    """A view of ``base``: forward re-creates it; backward scatters into base's shape."""
    _node_name = "AsStridedBackward0"

    @staticmethod
    def forward(ctx, base, shape, strides, offset):
        view = base.as_strided(shape, strides, offset)
        ctx.geometries = (Geometry(base), Geometry(view))
        return view

    @staticmethod
    def backward(ctx, grad):
        base, view = ctx.geometries
        return ViewScatter.apply(grad, base, view), None, None, None


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


def record_view(base, view):
    """Called by the core for every view of a tensor that requires grad."""
    return AsStrided.apply(base, tuple(view.shape), view.stride(), view.storage_offset())


def refresh_view(view):
    """Re-derive a view's grad_fn from its base (whose history changed in place)."""
    base = view._base
    fresh = AsStrided.apply(base, tuple(view.shape), view.stride(), view.storage_offset())
    view._grad_fn = fresh._grad_fn
    view._output_nr = 0


class Clone(Function):
    """``x.clone()``: the gradient passes through unchanged."""
    _node_name = "CloneBackward0"

    @staticmethod
    def forward(ctx, x):
        return x.clone()

    @staticmethod
    def backward(ctx, grad):
        return grad


class ToCopy(Function):
    """``x.to(dtype/device)``: the gradient is converted back."""
    _node_name = "ToCopyBackward0"

    @staticmethod
    def forward(ctx, x, dtype, device):
        ctx.source = (x.dtype, x.device)
        return _C._convert_tensor(x, dtype, device)

    @staticmethod
    def backward(ctx, grad):
        dtype, device = ctx.source
        return grad.to(dtype=dtype, device=device), None, None


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
        mask = _place(_C.ones(view.shape, dtype=grad.dtype), base, view)
        return grad * (1 - mask), inside, None


def inplace(op, self, other):
    """``self.op_(other)`` when autograd must see it (the core calls this)."""
    if op.name == "copy_":
        result = other.expand(tuple(self.shape)).to(self.dtype)
        result = Clone.apply(result) if result is other else result
    else:
        old = Clone.apply(self) if self.requires_grad else self.clone()
        result = (_C.unary_op(op, old) if op.arity == 1 else _C.binary_op(op, old, other))
        if result.dtype != self.dtype:
            result = result.to(self.dtype)
    if self._base is not None:
        root = self._base
        if root.grad_fn is None and root.requires_grad:
            raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                               "in-place operation.")
        CopySlices.apply(root, result, _C._detach(self).as_strided(
            tuple(self.shape), self.stride(), self.storage_offset()))
        # self's grad_fn is re-derived from root on next use (its version changed)
        return self
    from .grad_mode import no_grad
    with no_grad():
        _C._copy_into(self, result)
    self._bump_version()
    if result.requires_grad:
        self._grad_fn = result.grad_fn
        self._output_nr = result.output_nr
        _set_requires_grad(self)
    return self


def _set_requires_grad(t):
    # bypass the setter's "only leaves" check: t just got a grad_fn
    gf = t._grad_fn
    t._grad_fn = None
    t.requires_grad = True
    t._grad_fn = gf
