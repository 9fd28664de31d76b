"""Joining tensors: ``cat`` (and its aliases ``concat``/``concatenate``),
``stack`` and the NumPy-style ``hstack``/``vstack``/``dstack``/``column_stack``.

The output is allocated once and each input copied into its slice of it
(``_C._copy_into(out.narrow(...), x)``); the copy kernel converts dtypes and
follows strides, so no input is copied first.  ``Cat``'s and ``Stack``'s backward
hand each input its slice of the output gradient (views).
"""
import numpy as np

from ..._core import tensor as _C
from ..._core.tensor import TensorBase
from ...autograd.function import Function
from .._argcheck import int_arg
from ._common import (_check_devices, _done, _new_output, _records, _tensor_seq,
                      _zero_tangents)
from .broadcasting import atleast_1d, atleast_2d, atleast_3d


def _is_legacy_empty(x):
    # PyTorch still accepts (and skips) 1-D empty tensors in cat, whatever the others' shape.
    return x.dim() == 1 and x.shape[0] == 0


def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dim; dtypes are promoted as in PyTorch.

    All tensors need the same number of dims and the same sizes except along
    ``dim``; 1-D empty tensors are skipped (PyTorch's legacy rule).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cat([cygrad.zeros(2, 1), cygrad.ones(2, 2)], dim=1).tolist()
    [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    >>> cygrad.cat([cygrad.tensor([1, 2]), cygrad.tensor([0.5])]).dtype
    cygrad.float32
    """
    return _cat(tensors, dim, out, "cat")


def concat(tensors, dim=0, *, out=None):
    """Alias of :func:`cat`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.concat([cygrad.tensor([1]), cygrad.tensor([2, 3])]).tolist()
    [1, 2, 3]
    """
    return _cat(tensors, dim, out, "concat")


def concatenate(tensors, dim=0, *, out=None):
    """Alias of :func:`cat` (NumPy's name).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.concatenate([cygrad.zeros(1, 2), cygrad.ones(1, 2)], 1).tolist()
    [[0.0, 0.0, 1.0, 1.0]]
    """
    return _cat(tensors, dim, out, "concatenate")


def _cat_fast(tensors, dim):
    """``cat`` of CPU tensors of one dtype and rank that need no autograd, with every
    check in one loop; None when the call is anything else (the general path then
    runs, and raises PyTorch's errors)."""
    if type(tensors) is not list and type(tensors) is not tuple or not tensors:
        return None
    ref = tensors[0]
    if not isinstance(ref, TensorBase) or type(dim) is not int:
        return None
    shape, dt = tuple(ref.shape), ref.dtype
    nd = len(shape)
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < nd:
        return None
    before, after = shape[:d], shape[d + 1:]
    total = 0
    for x in tensors:
        if not isinstance(x, TensorBase) or x.dtype is not dt or not x.is_cpu:
            return None
        s = tuple(x.shape)
        if len(s) != nd or (nd > 1 and (s[:d] != before or s[d + 1:] != after)):
            return None
        total += s[d]
    if _C.needs_autograd(*tensors):
        return None
    res = _C._empty(before + (total,) + after, dt, ref.device)
    if total:
        _concatenate(res, tensors, d)
    return res


def _cat(tensors, dim, out, opname):
    if out is None:
        res = _cat_fast(tensors, dim)
        if res is not None:
            return res
    tensors = _tensor_seq(tensors, opname)
    if type(dim) is not int:
        dim = int_arg(dim, opname, "dim")
    if not tensors:
        raise ValueError(f"torch.{opname}(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    _check_devices(tensors)
    dtype = _C.result_type(*tensors)
    kept = [(i, x) for i, x in enumerate(tensors) if not _is_legacy_empty(x)]
    if not kept:
        if _records("cat", out, *tensors):
            return Cat.apply(0, *tensors)
        return _done(_new_output(out, (0,), dtype, tensors[0].device, "cat"), out)
    ref = kept[0][1]
    d = _C._wrap(dim, ref.dim())
    total = 0
    for i, x in kept:
        if x.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} "
                               f"and {x.dim()}")
        for k in range(ref.dim()):
            if k != d and x.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref.shape[k]} but got size {x.shape[k]} for "
                                   f"tensor number {i} in the list.")
        total += x.shape[d]
    if _records("cat", out, *tensors):
        return Cat.apply(d, *tensors)
    shape = list(ref.shape)
    shape[d] = total
    res = _new_output(out, shape, dtype, ref.device, "cat")
    _cat_into(res, [x for _, x in kept], d)
    return _done(res, out)


def _concatenate(res, tensors, d):
    """The CPU kernel for inputs of ``res``'s dtype: one NumPy call, no temporary."""
    np.concatenate([_C._ndarray(x) for x in tensors], axis=d, out=_C._ndarray(res))


def _cat_into(res, tensors, d):
    if res.is_cpu and all(x.is_cpu and x.dtype is res.dtype for x in tensors):
        if res.numel():
            _concatenate(res, tensors, d)
        return
    offset = 0
    for x in tensors:
        n = x.shape[d]
        _C._copy_into(res.narrow(d, offset, n), x)
        offset += n


class Cat(Function):
    """``cat``: each input's gradient is its slice of the output gradient (a view).
    Inputs of other dtypes get theirs converted back by the engine."""
    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        ctx.shapes = [tuple(x.shape) for x in tensors]
        return cat(tensors, dim)

    @staticmethod
    def backward(ctx, grad):
        grads, offset = [None], 0
        for shape in ctx.shapes:
            if len(shape) == 1 and shape[0] == 0:
                # a skipped 1-D empty tensor (legacy rule): an empty gradient
                grads.append(_C._empty((0,), grad.dtype, grad.device))
                continue
            n = shape[ctx.dim]
            grads.append(grad.narrow(ctx.dim, offset, n))
            offset += n
        return tuple(grads)

    @staticmethod
    def jvp(ctx, _dim, *tangents):
        tangents = _zero_tangents(tangents, ctx.shapes)
        return None if tangents is None else cat(tangents, ctx.dim)


def stack(tensors, dim=0, *, out=None):
    """Join equally shaped tensors along a new dim ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.stack([cygrad.zeros(2), cygrad.ones(2)], dim=1).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    tensors = _tensor_seq(tensors, "stack")
    if type(dim) is not int:
        dim = int_arg(dim, "stack", "dim")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    _C._wrap(dim, ref.dim() + 1)        # PyTorch checks the dim before the sizes
    for i, x in enumerate(tensors[1:], 1):
        if tuple(x.shape) != tuple(ref.shape):
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(ref.shape)} at entry 0 and {list(x.shape)} at entry {i}")
    _check_devices(tensors)
    d = _C._wrap(dim, ref.dim() + 1)
    if _records("stack", out, *tensors):
        return Stack.apply(d, *tensors)
    shape = list(ref.shape)
    shape.insert(d, len(tensors))
    res = _new_output(out, shape, _C.result_type(*tensors), ref.device, "stack")
    for i, x in enumerate(tensors):
        _C._copy_into(res.select(d, i), x)
    return _done(res, out)


class Stack(Function):
    """``stack``: input ``i`` gets slice ``i`` of the output gradient along the new dim."""
    _node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        ctx.shape = tuple(tensors[0].shape)
        return stack(tensors, dim)

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(grad.unbind(ctx.dim))

    @staticmethod
    def jvp(ctx, _dim, *tangents):
        tangents = _zero_tangents(tangents, [ctx.shape] * len(tangents))
        return None if tangents is None else stack(tangents, ctx.dim)


def hstack(tensors, *, out=None):
    """Join along the second dim (the first for 1-D tensors).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.hstack([cygrad.tensor([1, 2]), cygrad.tensor([3])]).tolist()
    [1, 2, 3]
    """
    tensors = atleast_1d(_tensor_seq(tensors, "hstack"))
    return cat(tensors, 0 if tensors and tensors[0].dim() == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """Join along the first dim, 1-D tensors counting as rows.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.vstack([cygrad.tensor([1, 2]), cygrad.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """
    return cat(atleast_2d(_tensor_seq(tensors, "vstack")), 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    """Join along the third dim (depth), after making every tensor at least 3-D.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.dstack([cygrad.tensor([1, 2]), cygrad.tensor([3, 4])]).shape
    cygrad.Size([1, 2, 2])
    """
    return cat(atleast_3d(_tensor_seq(tensors, "dstack")), 2, out=out)


def column_stack(tensors, *, out=None):
    """Join as columns: 0-D and 1-D tensors become (n, 1) columns, then ``hstack``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.column_stack([cygrad.tensor([1, 2]), cygrad.tensor([3, 4])]).tolist()
    [[1, 3], [2, 4]]
    """
    tensors = _tensor_seq(tensors, "column_stack")
    cols = [x.reshape(x.numel(), 1) if x.dim() <= 1 else x for x in tensors]
    return cat(cols, 1, out=out)
