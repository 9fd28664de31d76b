"""Autograd plumbing shared by the indexing ops.

The backward of an indexing op is the same indexing run the other way (the gradient
of a gather is a scatter-add into zeros; of a scatter, a gather). Places an op
overwrote pass no gradient to what was there before: the gradient is multiplied by a
constant 0/1 "keep" mask (:func:`_keep_mask`), which keeps every backward
differentiable with plain elementwise ops (double backward).

An in-place op (``index_add_``, ``masked_fill_``...) is the same Function as the
out-of-place one, in its in-place form: a subclass with ``inplace = True`` whose
forward writes into the input (:func:`_target`) and marks it dirty (:func:`_written`),
so the engine makes the node the input's new ``grad_fn``; :func:`_apply_inplace` runs
it.

Examples
--------
>>> import cygrad
>>> from cygrad.ops.indexing._autograd import _keep_mask
>>> _keep_mask((3,), cygrad.float32, lambda m: m.__setitem__(1, 0)).tolist()
[1.0, 0.0, 1.0]
"""

from ..._core import tensor as _C
from ...autograd import inplace as _inplace
from ...autograd.function import Function


def _copy(x):
    """A fresh contiguous copy of ``x``, outside autograd (for use inside ``forward``)."""
    out = _C._empty(tuple(x.shape), x.dtype, x.device)
    _C._copy_into(out, x)
    return out


def _zeros(shape, dtype, device=None):
    """Zeros of ``shape`` on ``device`` (a gradient's or tangent's; None: the CPU)."""
    if device is None:
        return _C.zeros(tuple(shape), dtype=dtype)
    return _C.zeros(tuple(shape), dtype=dtype, device=device)


def _keep_mask(shape, dtype, clear, device=None):
    """A constant tensor of ones in which ``clear(mask)`` zeroes the places an op
    overwrote: multiplying a gradient by it drops the gradient of the old values there."""
    mask = _C.ones(tuple(shape), dtype=dtype) if device is None else \
        _C.ones(tuple(shape), dtype=dtype, device=device)
    if mask.numel():
        clear(mask)
    return mask


def _no_out(out, opname, *inputs):
    """PyTorch's error for ``out=`` when autograd would have to record the op."""
    if out is not None and _C.needs_autograd(*inputs):
        raise RuntimeError(f"{opname}(): functions with out=... arguments don't support automatic "
                           "differentiation, but one of the arguments requires grad.")


# (PyTorch's refusals of a write into a leaf or a view of one: one check for every
# in-place family)
_check_inplace_target = _inplace.check_inplace_target


def _differentiated(ctx, *inputs):
    """Will this node be asked for a derivative: does an input require grad, or carry
    a forward-mode tangent? Only then are a forward's costly intermediates (those the
    gradient alone needs) worth computing and saving."""
    if any(ctx.needs_input_grad):
        return True
    return any(t._fw_grad is not None for t in inputs)


def _target(ctx, x):
    """Where the forward of a writing op writes: into ``x`` itself for the in-place
    form of its Function (``inplace = True``), else into a fresh copy of ``x``."""
    return x if type(ctx)._forward_cls.inplace else _copy(x)


def _written(ctx, x, out):
    """The result ``out`` of a writing op's forward. Written into the input ``x``
    itself (in place), ``x`` gets a new version and is marked dirty, so the node the
    engine records becomes its ``grad_fn``."""
    if out is x:
        x._bump_version()
        ctx.mark_dirty(x)
    return out


def _apply_inplace(cls, input, *args):
    """``input.op_(*args)``: ``cls.apply(input, *args)``, ``cls`` being the in-place
    form of the op's Function (its forward writes into ``input`` and marks it dirty).

    Autograd's errors come before anything is written, and a gradient ``input``
    retains follows it to its new node. On a view, the engine records the write on
    the view's base too (``CopySlices``, as for any in-place op on a view).
    """
    if (input._base is not None or input.requires_grad) and _C.needs_autograd(input, *args):
        _check_inplace_target(input)
        old_node, old_nr = input._grad_fn, input._output_nr
        cls.apply(input, *args)
        _inplace._move_retained_grad(input, old_node, old_nr)
        return input
    return cls.apply(input, *args)


def _pad_kernel(x, shape):
    out = _zeros(shape, x.dtype, x.device)
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
    return _Pad.apply(x, shape)
