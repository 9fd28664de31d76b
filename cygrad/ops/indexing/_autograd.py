"""Autograd plumbing shared by the indexing ops.

The backward of an indexing op is the same indexing run the other way (the gradient
of a gather is a scatter-add into zeros; of a scatter, a gather). Places an op
overwrote pass no gradient to what was there before: the gradient is multiplied by a
constant 0/1 "keep" mask (:func:`_keep_mask`), which keeps every backward
differentiable with plain elementwise ops (double backward). An in-place op on a
tensor autograd tracks is computed out of place by its Function, then copied into the
target, whose history is rebased onto the new node (:func:`_write_back`).

Examples
--------
>>> import cygrad
>>> from cygrad.ops.indexing._autograd import _keep_mask
>>> _keep_mask((3,), cygrad.float32, lambda m: m.__setitem__(1, 0)).tolist()
[1.0, 0.0, 1.0]
"""

from ..._core import tensor as _C
from ...autograd import inplace as _inplace
from ...autograd import views as _views
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from ._common import _empty


def _copy(x):
    """A fresh contiguous copy of ``x``, outside autograd (for use inside ``forward``)."""
    out = _empty(x.shape, x.dtype, x)
    _C._copy_into(out, x)
    return out


def _zeros(shape, dtype):
    return _C.zeros(tuple(shape), dtype=dtype)


def _keep_mask(shape, dtype, clear):
    """A constant tensor of ones in which ``clear(mask)`` zeroes the places an op
    overwrote: multiplying a gradient by it drops the gradient of the old values there."""
    mask = _C.ones(tuple(shape), dtype=dtype)
    if mask.numel():
        clear(mask)
    return mask


def _no_out(out, opname):
    if out is not None:
        raise RuntimeError(f"{opname}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


def _check_inplace_target(self):
    """PyTorch's errors for an in-place write into a leaf that requires grad (its
    ``.grad`` would describe values that no longer exist), or into a view of one."""
    root = self._base
    if root is None:
        if self.requires_grad and self.grad_fn is None:
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
    elif root.requires_grad and root.grad_fn is None:
        raise RuntimeError("a view of a leaf Variable that requires grad is being used in an "
                           "in-place operation.")


def _write_back(self, result):
    """Finish an in-place op that autograd must see.

    ``result`` is the op computed out of place by its Function (so every tensor the
    graph saved is still intact); copy it into ``self`` and continue ``self``'s history
    from ``result``'s node. For a view, the base records the write (``CopySlices``) and
    the view re-derives its ``grad_fn`` from the base when next used — the same steps
    as ``cygrad.autograd.inplace`` does for the elementwise ops.
    """
    if self._base is not None:
        region = _C._detach(self)._as_strided_any(tuple(self.shape), self.stride(),
                                             self.storage_offset())
        _inplace.CopySlices.apply(self._base, result, region)
        if result.requires_grad and not self.requires_grad:
            # the view was untracked (its base too, until now): it is a tracked view now
            _views.refresh_view(self)
            self._view_version = self._version
            _inplace._set_requires_grad(self)
        return self
    _C._copy_into(self, result)
    self._bump_version()
    if result.requires_grad:
        self._grad_fn = result.grad_fn
        self._output_nr = result.output_nr
        _inplace._set_requires_grad(self)
    if result._fw_grad is not None:
        self._fw_grad = result._fw_grad
        _fwad._remember(self)
    return self


def _pad_kernel(x, shape):
    out = _zeros(shape, x.dtype)
    if x.numel():
        out[tuple(slice(0, n) for n in x.shape)] = _C._detach(x)
    return out


class _Pad(Function):
    """``x`` placed in the leading corner of a zero tensor of ``shape``: the gradient
    of a scatter's ``src`` that is larger than its index (its extra values are unused)."""
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, x, shape):
        ctx.region, ctx.out_shape = tuple(slice(0, n) for n in x.shape), shape
        return _pad_kernel(x, shape)

    @staticmethod
    def backward(ctx, grad):
        return grad[ctx.region], None

    @staticmethod
    def jvp(ctx, tx, _):
        return _pad_to(tx, ctx.out_shape)


def _pad_to(x, shape):
    shape = tuple(shape)
    if tuple(x.shape) == shape:
        return x
    return _Pad.apply(x, shape) if _C.needs_autograd(x) else _pad_kernel(x, shape)
