"""Joining, copying-reshaping and view functions: cat/stack and friends, flip, roll,
repeat/tile, tril/triu, pad, broadcasting helpers, meshgrid, and the function forms
of the views the Cython core defines as methods (``cygrad.transpose(t, 0, 1)``).

Ops that build a new tensor allocate the output once and copy each input into a
view of it (``_C._copy_into(out.narrow(...), src)``); the copy kernel converts
dtypes and follows any strides, so inputs are never copied first.

Autograd: an op that copies elements around has a ``Function`` next to it whose
backward moves the gradient back the opposite way: ``cat``'s gradient is split
(narrow views of it), ``flip``'s is flipped, ``roll``'s rolled back, ``repeat``'s
tiles are summed, a padded border is cropped (constant) or added back onto the
elements it copied (reflect/replicate/circular).  Each backward is written with
cygrad ops, so it is differentiable again.  Views (``transpose``, ``expand``,
``broadcast_to``, ``meshgrid``...) need nothing here: the core records every view
of a tensor that requires grad, and the ops built from views and the ops above
(``hstack``, ``tile``, ``atleast_2d``...) are differentiable through them.
"""
import itertools
import numbers

import numpy as np

from .._core import tensor as _C
from .._core.tensor import TensorBase
from ._argcheck import float_arg, int_arg, int_list_arg, not_tensor, symint_list_arg
from .._tensor import tensor_method
from ..autograd.function import Function
from .indexing import IndexSelect, index_add, index_select

__all__ = ["cat", "concat", "concatenate", "stack", "hstack", "vstack", "row_stack", "dstack",
           "column_stack", "flip", "fliplr", "flipud", "roll", "rot90", "repeat_interleave",
           "tile", "tril", "triu", "broadcast_tensors", "broadcast_shapes",
           "broadcast_to", "atleast_1d", "atleast_2d", "atleast_3d", "meshgrid", "reshape",
           "transpose", "swapaxes", "swapdims", "permute", "squeeze", "unsqueeze", "flatten",
           "unflatten", "ravel", "movedim", "moveaxis", "narrow", "select", "diagonal",
           "as_strided", "unbind", "split", "tensor_split", "hsplit", "vsplit", "dsplit",
           "chunk", "t", "clone"]


# ----------------------------------------------------------------------- helpers

def _tensor_seq(tensors, opname):
    """The list of tensors a joining op was given (a tuple or list, as in PyTorch)."""
    if isinstance(tensors, TensorBase) or not isinstance(tensors, (list, tuple)):
        raise TypeError(f"{opname}(): argument 'tensors' (position 1) must be tuple of Tensors, "
                        f"not {type(tensors).__name__}")
    for i, x in enumerate(tensors):
        if not isinstance(x, TensorBase):
            raise TypeError(f"{opname}(): expected Tensor as element {i} in argument 0, but got "
                            f"{type(x).__name__}")
    return list(tensors)


def _method_ints(args, keyword, opname, argname):
    """The int list of a method taking ``t.f(2, 3)``, ``t.f((2, 3))`` or
    ``t.f(argname=(2, 3))`` (PyTorch's methods whose only argument is an int list)."""
    if keyword is not None:
        if args:
            raise TypeError(f"{opname}() got multiple values for argument '{argname}'")
        return int_list_arg(keyword, opname, argname, allow_int=False)
    if not args:
        raise TypeError(f'{opname}() missing 1 required positional arguments: "{argname}"')
    return int_list_arg(args[0] if len(args) == 1 else args, opname, argname, 1)


def _check_devices(tensors):
    dev = tensors[0].device
    for x in tensors[1:]:
        if x.device != dev:
            raise RuntimeError(f"Expected all tensors to be on the same device, but found at least "
                               f"two devices, {dev} and {x.device}!")


_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double"}


def _new_output(out, shape, dtype, device, opname, exact=False):
    """``out`` checked (its dtype equal to ``dtype`` when ``exact``, else one the
    result can be cast to; resized when its shape is wrong) or a new tensor."""
    if out is None:
        return _C._empty(tuple(shape), dtype, device)
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if exact and out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_CPP_NAMES[dtype.name]}, but got "
                           f"{_CPP_NAMES[out.dtype.name]} instead")
    if not _C._can_cast(dtype, out.dtype):
        raise TypeError(f"torch.{opname}(): input types can't be cast to the desired output type "
                        f"{_C._torch_type_name(out.dtype)}")
    if tuple(out.shape) != tuple(shape):
        resize = getattr(out, "resize_", None)
        if resize is None:
            raise RuntimeError(f"{opname}(): out= has shape {list(out.shape)} but the result has "
                               f"shape {list(shape)}")
        resize(tuple(shape))
    return out


def _done(res, out):
    if out is not None:
        res._bump_version()   # writing into a caller's tensor is an in-place change
    return res


def _records(opname, out, *tensors):
    """Must this call go through the op's autograd Function?  (``out=`` is refused
    then, as in PyTorch.)"""
    if not _C.needs_autograd(*tensors):
        return False
    if out is not None:
        raise RuntimeError(f"{opname}(): functions with out=... arguments don't support "
                           "automatic differentiation, but one of the arguments requires grad.")
    return True


def _zero_tangents(tangents, shapes):
    """The tangents with zeros for the missing ones (None if all are missing)."""
    present = [t for t in tangents if t is not None]
    if not present:
        return None
    return [t if t is not None else _C.zeros(shape, dtype=present[0].dtype,
                                             device=present[0].device)
            for t, shape in zip(tangents, shapes)]


_INT64_MAX = (1 << 63) - 1


def _shape_error_if_negative(shape):
    if any(s < 0 for s in shape):
        bad = next(s for s in shape if s < 0)
        raise RuntimeError(f"Trying to create tensor with negative dimension {bad}: {list(shape)}")


# ----------------------------------------------------------------------- cat / stack

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


def _cat(tensors, dim, out, opname):
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


def _cat_into(res, tensors, d):
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


# ----------------------------------------------------------------------- flip / roll

def flip(input, dims):
    """A copy with the order of elements reversed along ``dims``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.flip(cygrad.tensor([[1, 2], [3, 4]]), [1]).tolist()
    [[2, 1], [4, 3]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "flip")
    return _flip_dims(input, int_list_arg(dims, "flip", "dims", 2, allow_int=False))


@tensor_method(name="flip")
def _flip_method(self, *args, dims=None):
    """``t.flip(0, 1)`` or ``t.flip((0, 1))``: ``cygrad.flip`` as a method."""
    return _flip_dims(self, _method_ints(args, dims, "flip", "dims"))


def _flip_dims(input, dims):
    wrapped = [_C._wrap(d, input.dim()) for d in dims]
    for d in wrapped:
        if wrapped.count(d) > 1:
            raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    if _C.needs_autograd(input):
        return Flip.apply(input, tuple(wrapped))
    return _flip(input, wrapped)


def _flip(input, wrapped):
    # A reversed view (negative strides) copied into a fresh tensor.
    index = tuple(slice(None, None, -1) if k in wrapped else slice(None)
                  for k in range(input.dim()))
    view = input[index] if index else input
    res = _C._empty(tuple(input.shape), input.dtype, input.device)
    _C._copy_into(res, view)
    return res


class Flip(Function):
    """Flipping twice is the identity: the gradient is flipped back."""
    _node_name = "FlipBackward0"

    @staticmethod
    def forward(ctx, input, dims):
        ctx.dims = dims
        return _flip(input, dims)

    @staticmethod
    def backward(ctx, grad):
        return flip(grad, ctx.dims), None

    @staticmethod
    def jvp(ctx, tangent, _dims):
        return flip(tangent, ctx.dims)


@tensor_method
def fliplr(input):
    """Reverse the second dim (left/right) of a tensor with at least 2 dims.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.fliplr(cygrad.tensor([[1, 2], [3, 4]])).tolist()
    [[2, 1], [4, 3]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "fliplr")
    if input.dim() < 2:
        raise RuntimeError("Input must be >= 2-d.")
    return flip(input, [1])


@tensor_method
def flipud(input):
    """Reverse the first dim (up/down) of a tensor with at least 1 dim.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.flipud(cygrad.tensor([1, 2, 3])).tolist()
    [3, 2, 1]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "flipud")
    if input.dim() < 1:
        raise RuntimeError("Input must be >= 1-d.")
    return flip(input, [0])


@tensor_method
def roll(input, shifts, dims=None):
    """Shift elements cyclically along ``dims`` (the flattened tensor when ``dims`` is None).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.roll(cygrad.tensor([1, 2, 3, 4]), 1).tolist()
    [4, 1, 2, 3]
    >>> cygrad.roll(cygrad.tensor([[1, 2], [3, 4]]), shifts=(1, 1), dims=(0, 1)).tolist()
    [[4, 3], [2, 1]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "roll")
    shifts = symint_list_arg(int_list_arg(shifts, "roll", "shifts", 2))
    dims = () if dims is None else int_list_arg(dims, "roll", "dims", 3)
    if not shifts:
        raise RuntimeError("`shifts` required")
    if not dims and len(shifts) == 1:
        if _C.needs_autograd(input):
            return Roll.apply(input, shifts, None)
        return _roll_flat(input, shifts[0])
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if input.numel() == 0:
        return input.clone()    # PyTorch returns before it looks at the dims
    total = {}
    for s, d in zip(shifts, dims):
        d = _C._wrap(d, input.dim())
        total[d] = total.get(d, 0) + s
    if _C.needs_autograd(input):
        return Roll.apply(input, tuple(total.values()), tuple(total))
    return _roll(input, total)


def _roll_flat(input, shift):
    """``roll`` without dims: the flattened elements rolled, in the input's shape."""
    return _roll(input.flatten(), {0: shift}).view(input.shape)


def _roll(input, total):
    """``roll`` with ``total`` = {dim: shift} (dims wrapped and distinct)."""
    res = _C._empty(tuple(input.shape), input.dtype, input.device)
    if res.numel() == 0:
        return res
    # Along each rolled dim the output is two blocks of the input, swapped:
    # out[s:] = in[:n-s] and out[:s] = in[n-s:].  Every combination of blocks is one copy.
    pieces = []
    for d, s in total.items():
        n = input.shape[d]
        s %= n
        pieces.append([(d, s, 0, n - s), (d, 0, n - s, s)])
    for combo in itertools.product(*pieces):
        dst, src = res, input
        for d, dst_start, src_start, length in combo:
            dst = dst.narrow(d, dst_start, length)
            src = src.narrow(d, src_start, length)
        if dst.numel():
            _C._copy_into(dst, src)
    return res


class Roll(Function):
    """The gradient is rolled back by the opposite shifts (``dims=None``: the
    flattened tensor is rolled)."""
    _node_name = "RollBackward0"

    @staticmethod
    def forward(ctx, input, shifts, dims):
        ctx.shifts, ctx.dims = shifts, dims
        if dims is None:
            return _roll_flat(input, shifts[0])
        return _roll(input, dict(zip(dims, shifts)))

    @staticmethod
    def backward(ctx, grad):
        # straight to the Function: -shift may lie outside the range the
        # argument parser accepts (a shift of 2**63 - 1)
        return Roll.apply(grad, tuple(-s for s in ctx.shifts), ctx.dims), None, None

    @staticmethod
    def jvp(ctx, tangent, _shifts, _dims):
        return Roll.apply(tangent, ctx.shifts, ctx.dims)


@tensor_method
def rot90(input, k=1, dims=(0, 1)):
    """Rotate by 90 degrees ``k`` times in the plane of ``dims`` (from the first toward
    the second).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.rot90(cygrad.tensor([[1, 2], [3, 4]])).tolist()
    [[2, 4], [1, 3]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "rot90")
    k = int_arg(k, "rot90", "k", 2)
    dims = int_list_arg(dims, "rot90", "dims", 3, allow_int=False)
    if len(dims) != 2:
        raise RuntimeError(f"expected total rotation dims == 2, but got dims = {len(dims)}")
    if input.dim() < 2:
        raise RuntimeError(f"expected total dims >= 2, but got total dims = {input.dim()}")
    d0, d1 = _C._wrap(dims[0], input.dim()), _C._wrap(dims[1], input.dim())
    if d0 == d1:
        raise RuntimeError(f"expected rotation dims to be different, but got dim0 = {d0} and "
                           f"dim1 = {d1}")
    if _C.needs_autograd(input):
        return Rot90.apply(input, k, (d0, d1))
    return _rot90(input, k, d0, d1)


def _rot90(input, k, d0, d1):
    k %= 4
    if k == 1:
        return flip(input, [d1]).transpose(d0, d1)
    if k == 2:
        return flip(input, [d0, d1])
    if k == 3:
        return flip(input, [d0]).transpose(d0, d1)
    return input.clone()


class Rot90(Function):
    """Rotating back (``-k`` quarter turns) undoes the rotation: so does the gradient."""
    _node_name = "Rot90Backward0"

    @staticmethod
    def forward(ctx, input, k, dims):
        ctx.k, ctx.dims = k, dims
        return _rot90(input, k, *dims)

    @staticmethod
    def backward(ctx, grad):
        return rot90(grad, -ctx.k % 4, ctx.dims), None, None

    @staticmethod
    def jvp(ctx, tangent, _k, _dims):
        return rot90(tangent, ctx.k, ctx.dims)


# ----------------------------------------------------------------------- repeat / tile

@tensor_method
def repeat(input, *sizes, repeats=None):
    """Tile the tensor: ``sizes[i]`` copies along dim ``i`` (PyTorch's ``Tensor.repeat``,
    not NumPy's ``repeat``; see ``repeat_interleave`` for that).  Extra leading sizes
    add new dims.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1, 2]).repeat(2, 2).tolist()
    [[1, 2, 1, 2], [1, 2, 1, 2]]
    """
    return _repeat_checked(input, symint_list_arg(_method_ints(sizes, repeats, "repeat",
                                                               "repeats")))


def _repeat_checked(input, reps):
    """``repeat`` with ``reps`` a parsed tuple of ints."""
    if len(reps) < input.dim():
        raise RuntimeError("Number of dimensions of repeat dims can not be smaller than number of "
                           "dimensions of tensor")
    src_shape = (1,) * (len(reps) - input.dim()) + tuple(input.shape)
    out_shape = tuple(r * s for r, s in zip(reps, src_shape))
    _shape_error_if_negative(out_shape)
    for i, (r, s) in enumerate(zip(reps, src_shape)):
        if r * s > _INT64_MAX:
            raise RuntimeError(f"repeat: size {s} of dimension {i} repeated {r} times does not "
                               "fit in 64 bits")
    if _C.needs_autograd(input):
        return Repeat.apply(input, reps)
    return _repeat(input, reps, src_shape, out_shape)


def _repeat(input, reps, src_shape, out_shape):
    res = _C._empty(out_shape, input.dtype, input.device)
    if res.numel() == 0:
        return res
    # View the output as (r0, s0, r1, s1, ...) and copy the input broadcast over
    # the r-dims (stride 0): one pass, no intermediate tiles.
    paired = _paired(reps, src_shape)
    src = input.reshape(src_shape)
    for k in range(len(reps)):
        src = src.unsqueeze(2 * k)
    _C._copy_into(res.view(paired), src.expand(*paired))
    return res


def _paired(reps, src_shape):
    """(r0, s0, r1, s1, ...): the repeated shape with each copy count on a dim of its own."""
    return tuple(x for r, s in zip(reps, src_shape) for x in (r, s))


class Repeat(Function):
    """Every input element appears once in each tile: its gradient is the sum over
    the tiles (the output gradient viewed as (r0, s0, r1, s1, ...), summed over the
    r-dims)."""
    _node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, input, reps):
        ctx.reps, ctx.shape = reps, tuple(input.shape)
        return repeat(input, reps)

    @staticmethod
    def backward(ctx, grad):
        reps, shape = ctx.reps, ctx.shape
        src_shape = (1,) * (len(reps) - len(shape)) + shape
        tiles = grad.reshape(_paired(reps, src_shape))
        return tiles.sum(tuple(range(0, 2 * len(reps), 2))).reshape(shape), None

    @staticmethod
    def jvp(ctx, tangent, _reps):
        return repeat(tangent, ctx.reps)


def tile(input, dims):
    """Repeat the tensor ``dims[i]`` times along dim ``i``; a shorter ``dims`` is
    padded with leading ones.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tile(cygrad.tensor([[1, 2]]), (2,)).tolist()
    [[1, 2, 1, 2]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "tile")
    return _tile(input, int_list_arg(dims, "tile", "dims", 2, allow_int=False))


@tensor_method(name="tile")
def _tile_method(self, *args, dims=None):
    """``t.tile(2, 3)`` or ``t.tile((2, 3))``: ``cygrad.tile`` as a method."""
    return _tile(self, _method_ints(args, dims, "tile", "dims"))


def _tile(input, dims):
    dims = (1,) * (input.dim() - len(dims)) + dims
    return _repeat_checked(input, symint_list_arg(dims))


@tensor_method
def repeat_interleave(input, repeats=None, dim=None, *, output_size=None):
    """Repeat each element ``repeats`` times (NumPy's ``repeat``); ``repeats`` is an int
    or a tensor with one count per element along ``dim``.  Without ``dim`` the input
    is flattened.  ``repeat_interleave(counts)`` repeats the indices ``0..n-1``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.repeat_interleave(cygrad.tensor([1, 2]), 2).tolist()
    [1, 1, 2, 2]
    >>> x = cygrad.tensor([[1, 2], [3, 4]])
    >>> cygrad.repeat_interleave(x, cygrad.tensor([1, 2]), dim=0).tolist()
    [[1, 2], [3, 4], [3, 4]]
    >>> cygrad.repeat_interleave(cygrad.tensor([2, 1])).tolist()
    [0, 0, 1]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "repeat_interleave")
    if output_size is not None:
        output_size = int_arg(output_size, "repeat_interleave", "output_size")
    if repeats is None:
        counts = _repeat_counts(input, input.numel() if input.dim() else 1, "input")
        return _from_array(_repeat_index(counts, output_size), input.device)
    if not isinstance(repeats, TensorBase):
        repeats = int_arg(repeats, "repeat_interleave", "repeats", 2)
    if dim is None:
        input, d = input.flatten(), 0
    else:
        dim = int_arg(dim, "repeat_interleave", "dim", 3)
        if input.dim() == 0:
            raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
        d = _C._wrap(dim, input.dim())
    n = input.shape[d] if input.dim() else 1
    if isinstance(repeats, TensorBase):
        counts = _repeat_counts(repeats, n, f"input.size({d})")
    else:
        if repeats < 0:
            raise RuntimeError("Repeats must be non-negative")
        counts = np.full(n, repeats, dtype=np.int64)
    index = _repeat_index(counts, output_size)
    src = input if input.dim() else input.reshape(1)
    if _C.needs_autograd(src):
        return IndexSelect.apply(src, d, _C.from_numpy(index))
    return _gather(src, d, index)


def _gather(input, dim, index):
    """``input``'s slices along ``dim`` at the positions ``index`` (a NumPy int array)."""
    if input.device.type != "cpu":
        return _gather(input.cpu(), dim, index).to(input.device)
    shape = list(input.shape)
    shape[dim] = len(index)
    res = _C._empty(tuple(shape), input.dtype, input.device)
    if res.numel():
        np.take(_C._ndarray(input), index, axis=dim, out=_C._ndarray(res))
    return res


def _add_slices(src, dim, index, size):
    """Zeros with ``size`` slices along ``dim``, slice ``j`` of ``src`` added at
    ``index[j]`` (a NumPy int array): the adjoint of :func:`_gather`, differentiable."""
    shape = list(src.shape)
    shape[dim] = size
    return index_add(_C.zeros(tuple(shape), dtype=src.dtype, device=src.device), dim,
                     _C.from_numpy(index), src)


def _repeat_index(counts, output_size):
    """``0..n-1`` with ``i`` repeated ``counts[i]`` times (NumPy ints, none negative)."""
    total = int(counts.sum())
    if counts.size and int(counts.max()) > _INT64_MAX // counts.size:
        total = sum(int(c) for c in counts)     # the int64 sum may have wrapped
    if total > _INT64_MAX // 8:
        # the int64 index alone would not fit in memory (NumPy wraps the size)
        raise RuntimeError(f"repeat_interleave: cannot allocate memory for {total} elements")
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but "
                           f"got {output_size}")
    return np.repeat(np.arange(counts.size, dtype=np.int64), counts)


def _repeat_counts(repeats, n, what):
    if repeats.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.dtype.name not in ("int32", "int64"):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{_C._torch_type_name(repeats.dtype)}'")
    counts = np.asarray(_C._ndarray(repeats.cpu()), dtype=np.int64).reshape(-1)
    if (counts < 0).any():
        raise RuntimeError("repeats can not be negative")
    if counts.size == 1 and n != 1:
        return np.full(n, counts[0], dtype=np.int64)
    if counts.size != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.size} and {what} = {n}")
    return counts


def _from_array(arr, device):
    t = _C.from_numpy(arr)
    return t if device.type == "cpu" else t.to(device)


# ----------------------------------------------------------------------- tril / triu

def _triangle_keep(input, diagonal, lower, opname):
    if input.dim() < 2:
        raise RuntimeError(f"{opname}: input tensor must have at least 2 dimensions")
    n, m = input.shape[-2], input.shape[-1]
    diagonal = min(max(diagonal, -n - 1), m + 1)    # beyond the matrix all offsets act alike
    lower_mask = np.tri(n, m, k=diagonal if lower else diagonal - 1, dtype=bool)
    return lower_mask if lower else ~lower_mask


def _zero_outside(t, keep):
    """Zero the elements of ``t`` (last two dims) where ``keep`` is False, in place."""
    if t.numel():
        view = _C._ndarray(t)
        np.copyto(view, np.zeros((), view.dtype), where=~keep)


@tensor_method
def tril(input, diagonal=0, *, out=None):
    """The lower triangle of the last two dims (elements with ``j <= i + diagonal``);
    the rest set to zero.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tril(cygrad.ones(3, 3, dtype=cygrad.int64)).tolist()
    [[1, 0, 0], [1, 1, 0], [1, 1, 1]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "tril")
    diagonal = int_arg(diagonal, "tril", "diagonal", 2)
    keep = _triangle_keep(input, diagonal, True, "tril")
    if _records("tril", out, input):
        return Tril.apply(input, diagonal)
    return _triangle(input, keep, out, "tril")


@tensor_method
def triu(input, diagonal=0, *, out=None):
    """The upper triangle of the last two dims (elements with ``j >= i + diagonal``);
    the rest set to zero.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.triu(cygrad.ones(2, 3, dtype=cygrad.int64), 1).tolist()
    [[0, 1, 1], [0, 0, 1]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "triu")
    diagonal = int_arg(diagonal, "triu", "diagonal", 2)
    keep = _triangle_keep(input, diagonal, False, "triu")
    if _records("triu", out, input):
        return Triu.apply(input, diagonal)
    return _triangle(input, keep, out, "triu")


def _triangle(input, keep, out, opname):
    res = _new_output(out, tuple(input.shape), input.dtype, input.device, opname, exact=True)
    _C._copy_into(res, input)
    _zero_outside(res, keep)
    return _done(res, out)


class Tril(Function):
    """Elements outside the triangle are constant zeros: the gradient is the output
    gradient's triangle."""
    _node_name = "TrilBackward0"
    lower = True

    @staticmethod
    def forward(ctx, input, diagonal):
        ctx.diagonal = diagonal
        lower = type(ctx)._forward_cls.lower
        return _triangle(input, _triangle_keep(input, diagonal, lower, "tril"), None, "tril")

    @staticmethod
    def backward(ctx, grad):
        triangle = tril if type(ctx)._forward_cls.lower else triu
        return triangle(grad, ctx.diagonal), None

    @staticmethod
    def jvp(ctx, tangent, _diagonal):
        triangle = tril if type(ctx)._forward_cls.lower else triu
        return triangle(tangent, ctx.diagonal)


class Triu(Tril):
    _node_name = "TriuBackward0"
    lower = False


class _TriangleInplace(Tril):
    """``tril_``/``triu_`` of a non-leaf tensor that is not a view: zero it in place
    and mark it dirty; the engine gives it this node as its new history.  The
    gradient is the out-of-place one."""

    @staticmethod
    def forward(ctx, x, diagonal):
        ctx.diagonal = diagonal
        _zero_outside(x, _triangle_keep(x, diagonal, type(ctx)._forward_cls.lower, "tril"))
        x._bump_version()
        ctx.mark_dirty(x)
        return x


class TrilInplace(_TriangleInplace):
    _node_name = "TrilBackward0"
    lower = True


class TriuInplace(_TriangleInplace):
    _node_name = "TriuBackward0"
    lower = False


def _triangle_inplace(self, diagonal, lower):
    opname = "tril" if lower else "triu"
    diagonal = int_arg(diagonal, opname + "_", "diagonal", 1)
    keep = _triangle_keep(self, diagonal, lower, opname)
    if _C.needs_autograd(self):
        if self.is_leaf and self.requires_grad and _C.is_grad_enabled():
            raise RuntimeError("a leaf Variable that requires grad is being used in an in-place "
                               "operation.")
        if self._base is not None:
            # A view: copy_ takes the core's in-place path, which records the write
            # into the base (CopySlices) and refreshes the views' histories.
            return self.copy_((tril if lower else triu)(self, diagonal))
        return (TrilInplace if lower else TriuInplace).apply(self, diagonal)
    _zero_outside(self, keep)
    self._bump_version()
    return self


@tensor_method
def tril_(self, diagonal=0):
    """In-place ``tril``."""
    return _triangle_inplace(self, diagonal, True)


@tensor_method
def triu_(self, diagonal=0):
    """In-place ``triu``."""
    return _triangle_inplace(self, diagonal, False)


# ----------------------------------------------------------------------- pad

_COPY_PAD_MODES = ("reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    """Pad the last dims: ``pad = (left, right)`` for the last dim, then
    ``(top, bottom)`` for the one before, and so on (PyTorch's order, reversed from
    NumPy's).  Negative amounts crop.  Modes: ``"constant"`` (``value``, default 0),
    ``"reflect"``, ``"replicate"``, ``"circular"``.

    Not exported as ``cygrad.pad`` (PyTorch has no ``torch.pad``): it is
    ``cygrad.nn.functional.pad``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.ops.shape import pad
    >>> pad(cygrad.tensor([[1, 2]]), (1, 0), value=9).tolist()
    [[9, 1, 2]]
    >>> pad(cygrad.tensor([[1, 2, 3]]), (-1, 1)).tolist()
    [[2, 3, 0]]
    >>> pad(cygrad.tensor([[[1., 2., 3.]]]), (2, 0), mode="reflect").tolist()
    [[[3.0, 2.0, 1.0, 2.0, 3.0]]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "pad")
    amounts = int_list_arg(pad, "pad", "pad", 2, allow_int=False)
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not "
                        f"{type(mode).__name__}")
    if value is not None:
        float_arg(value, "pad", "value", 4)
    symint_list_arg(amounts)
    if len(amounts) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(amounts) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(amounts)} and input of "
                           f"dimension {input.dim()}")
    # (dim, before, after) for each padded dim, last dim first.
    widths = _pad_widths(input, amounts)
    if mode == "constant":
        value = 0 if value is None else value
        for d, before, after in widths:
            if not 0 <= input.shape[d] + before + after <= _INT64_MAX:
                raise RuntimeError(f"The input size {input.shape[d]}, plus negative padding "
                                   f"{before} and {after} resulted in a negative output size, "
                                   f"which is invalid. Check dimension {d} of your input.")
        if _C.needs_autograd(input):
            return ConstantPadNd.apply(input, amounts, value)
        return _pad_constant(input, widths, value)
    if mode not in _COPY_PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return _pad_copying(input, widths, mode)


def _pad_widths(input, amounts):
    return [(input.dim() - 1 - i, amounts[2 * i], amounts[2 * i + 1])
            for i in range(len(amounts) // 2)]


class ConstantPadNd(Function):
    """Constant padding adds elements that do not depend on the input and crops
    (negative amounts) elements that vanish: the gradient is the output gradient
    padded by the opposite amounts (the border cropped, the cropped part zero)."""
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, input, amounts, value):
        ctx.amounts = amounts
        return _pad_constant(input, _pad_widths(input, amounts), value)

    @staticmethod
    def backward(ctx, grad):
        return pad(grad, tuple(-a for a in ctx.amounts)), None, None

    @staticmethod
    def jvp(ctx, tangent, _amounts, _value):
        return pad(tangent, ctx.amounts)


def _crop_negative(input, widths):
    """Apply the negative pad amounts as crops (narrow views)."""
    for d, before, after in widths:
        start = max(-before, 0)
        length = input.shape[d] - start - max(-after, 0)
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        input = input.narrow(d, start, length)
    return input


def _pad_constant(input, widths, value):
    core = _crop_negative(input, widths)
    shape = list(core.shape)
    for d, before, after in widths:
        shape[d] += max(before, 0) + max(after, 0)
    res = _C._empty(tuple(shape), input.dtype, input.device)
    res.fill_(value)
    inner = res
    for d, before, _ in widths:
        inner = inner.narrow(d, max(before, 0), core.shape[d])
    if inner.numel():
        _C._copy_into(inner, core)
    return res


def _pad_copying(input, widths, mode):
    n = len(widths)
    if not (n + 1 <= input.dim() <= n + 2):
        raise NotImplementedError(
            f"Padding size {2 * n} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    for d, before, after in widths:
        size = input.shape[d]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({before}, {after}) at "
                               f"dimension {d} of input {list(input.shape)}")
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    sources = [(d, _pad_source(input.shape[d], before, after, mode)) for d, before, after in widths]
    if _C.needs_autograd(input):
        return _pad_function(mode, len(widths)).apply(input, sources)
    return _gather_along(input, sources)


def _pad_source(size, before, after, mode):
    """For each position along a padded dim, the input position it copies.

    Negative amounts crop.  As in PyTorch, ``reflect`` mirrors the whole dim and then
    crops, while ``replicate`` and ``circular`` crop first and pad what is left."""
    if mode == "reflect":            # mirror around the first and last element
        pos = np.abs(np.arange(-before, size + after, dtype=np.int64))
        return np.where(pos >= size, 2 * (size - 1) - pos, pos)
    start, stop = max(-before, 0), size - max(-after, 0)
    if stop - start <= 0:
        raise RuntimeError(f"{mode} padding: the negative padding ({before}, {after}) leaves no "
                           f"element of a dimension of size {size}")
    pos = np.arange(-max(before, 0), stop - start + max(after, 0), dtype=np.int64)
    if mode == "replicate":          # repeat the edge element
        return start + np.clip(pos, 0, stop - start - 1)
    return start + pos % (stop - start)   # circular: wrap around


def _gather_along(input, sources):
    for d, source in sources:
        input = _gather(input, d, source)
    return input


class _PadCopies(Function):
    """reflect/replicate/circular padding: along each padded dim every output slice
    copies one input slice (``_pad_source``): the padded tensor is a gather along each
    dim, and the gradient adds each output element back onto the element it copied
    (``index_add``, dim by dim)."""

    @staticmethod
    def forward(ctx, input, sources):
        ctx.sources = [(d, source, input.shape[d]) for d, source in sources]
        return _gather_along(input, sources)

    @staticmethod
    def backward(ctx, grad):
        for d, source, size in ctx.sources:
            grad = _add_slices(grad, d, source, size)
        return grad, None

    @staticmethod
    def jvp(ctx, tangent, _sources):
        for d, source, _ in ctx.sources:
            tangent = index_select(tangent, d, _C.from_numpy(source))
        return tangent


_PAD_NODE_NAMES = {"reflect": "ReflectionPad{}DBackward0",
                   "replicate": "ReplicationPad{}DBackward0",
                   "circular": "CircularPad{}DBackward0"}
_PAD_FUNCTIONS = {}


def _pad_function(mode, n):
    """The ``_PadCopies`` subclass for ``mode`` over ``n`` dims: one Function each,
    only so that the node has PyTorch's name (``ReflectionPad2DBackward0``)."""
    key = (mode, n)
    if key not in _PAD_FUNCTIONS:
        name = _PAD_NODE_NAMES[mode].format(n)
        _PAD_FUNCTIONS[key] = type(_PadCopies)(name.replace("Backward0", ""), (_PadCopies,),
                                               {"_node_name": name})
    return _PAD_FUNCTIONS[key]


# ----------------------------------------------------------------------- broadcasting

def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (without making tensors).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.broadcast_shapes((2, 1), (3,))
    cygrad.Size([2, 3])
    """
    norm = []
    for s in shapes:
        s = (int(s),) if isinstance(s, numbers.Integral) else tuple(int(x) for x in s)
        if any(x < 0 for x in s):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        norm.append(s)
    ndim = max((len(s) for s in norm), default=0)
    result = [1] * ndim
    for i, s in enumerate(norm):
        for k in range(1, len(s) + 1):
            size = s[-k]
            if size == 1 or size == result[-k]:
                continue
            if result[-k] == 1:
                result[-k] = size
            else:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at -{k}! "
                                   f"Mismatching argument at index {i} had {s}; but expected shape "
                                   f"should be broadcastable to {result}")
    return _C.Size(result)


def _broadcast_pair_error(shapes):
    """PyTorch's elementwise message for the first mismatching pair of shapes."""
    acc = shapes[0]
    for s in shapes[1:]:
        n = max(len(acc), len(s))
        a = (1,) * (n - len(acc)) + tuple(acc)
        b = (1,) * (n - len(s)) + tuple(s)
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                                   f"({y}) at non-singleton dimension {i}")
        acc = tuple(y if x == 1 else x for x, y in zip(a, b))
    return acc


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape.

    Examples
    --------
    >>> import cygrad
    >>> a, b = cygrad.broadcast_tensors(cygrad.zeros(2, 1), cygrad.zeros(3))
    >>> a.shape, b.shape
    (cygrad.Size([2, 3]), cygrad.Size([2, 3]))
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        return ()
    _tensor_seq(tensors, "broadcast_tensors")
    shape = _broadcast_pair_error([tuple(x.shape) for x in tensors])
    return tuple(x.expand(*shape) for x in tensors)


def broadcast_to(input, size):
    """A view of ``input`` broadcast to ``size`` (``Tensor.expand``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.broadcast_to(cygrad.tensor([1, 2]), (2, 2)).tolist()
    [[1, 2], [1, 2]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "broadcast_to")
    return input.expand(int_list_arg(size, "broadcast_to", "size", 2, allow_int=False))


def _atleast(args, fn, opname):
    seq = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    for x in seq:
        if not isinstance(x, TensorBase):
            raise not_tensor(x, opname, "tensors", None)
    if len(args) == 1 and not isinstance(args[0], (list, tuple)):
        return fn(args[0])
    return tuple(fn(x) for x in seq)


def atleast_1d(*tensors):
    """Each tensor as a view with at least 1 dim (0-dim -> shape (1,)).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.atleast_1d(cygrad.full((), 5.0)).shape
    cygrad.Size([1])
    """
    return _atleast(tensors, lambda x: x.reshape(1) if x.dim() == 0 else x, "atleast_1d")


def atleast_2d(*tensors):
    """Each tensor as a view with at least 2 dims: 1-D (n,) becomes (1, n).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.atleast_2d(cygrad.zeros(3)).shape
    cygrad.Size([1, 3])
    """
    def to2(x):
        if x.dim() == 0:
            return x.reshape(1, 1)
        return x.unsqueeze(0) if x.dim() == 1 else x
    return _atleast(tensors, to2, "atleast_2d")


def atleast_3d(*tensors):
    """Each tensor as a view with at least 3 dims: (n,) -> (1, n, 1), (m, n) -> (m, n, 1).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.atleast_3d(cygrad.zeros(2, 3)).shape
    cygrad.Size([2, 3, 1])
    """
    def to3(x):
        if x.dim() == 0:
            return x.reshape(1, 1, 1)
        if x.dim() == 1:
            return x.unsqueeze(0).unsqueeze(-1)
        return x.unsqueeze(-1) if x.dim() == 2 else x
    return _atleast(tensors, to3, "atleast_3d")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: with ``indexing="ij"`` (the default) output
    ``k`` varies along dim ``k``; ``"xy"`` swaps the first two dims (Cartesian, as
    NumPy's default).  The outputs are expanded views.

    Examples
    --------
    >>> import cygrad
    >>> x, y = cygrad.meshgrid(cygrad.tensor([1, 2]), cygrad.tensor([3, 4, 5]))
    >>> x.shape, x[:, 0].tolist(), y[0].tolist()
    (cygrad.Size([2, 3]), [1, 2], [3, 4, 5])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = _tensor_seq(tensors, "meshgrid")
    indexing = "ij" if indexing is None else indexing
    if not isinstance(indexing, str):
        raise TypeError(f"meshgrid(): argument 'indexing' must be str, not "
                        f"{type(indexing).__name__}")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for x in tensors:
        if x.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got a {x.dim()}D tensor of shape {list(x.shape)}")
        if x.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    _check_devices(list(tensors))
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(range(len(tensors)))
    if swap:
        order[0], order[1] = 1, 0
    # Output dim j holds tensor order[j].
    shape = [tensors[k].numel() for k in order]
    grids = []
    for k, x in enumerate(tensors):
        where = order.index(k)
        view_shape = [1] * len(tensors)
        view_shape[where] = -1
        grids.append(x.reshape(view_shape).expand(*shape))
    return tuple(grids)


# ----------------------------------------------------------------------- function forms of views
#
# The Cython core implements these views as Tensor methods; the functions below
# only read their arguments as PyTorch's parser does (TypeError for a bool, a float
# or a bare int where a list is due; ValueError for an int beyond 64 bits) before
# handing them to the method.

def reshape(input, shape):
    """``input.reshape(shape)``: a view when the strides allow it, else a copy.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.reshape(cygrad.arange(6), (2, 3)).shape
    cygrad.Size([2, 3])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "reshape")
    return input.reshape(int_list_arg(shape, "reshape", "shape", 2, allow_int=False))


def _two_dims(input, a, b, opname, names):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    return int_arg(a, opname, names[0], 2), int_arg(b, opname, names[1], 3)


def transpose(input, dim0, dim1):
    """``input.transpose(dim0, dim1)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.transpose(cygrad.zeros(2, 3), 0, 1).shape
    cygrad.Size([3, 2])
    """
    dim0, dim1 = _two_dims(input, dim0, dim1, "transpose", ("dim0", "dim1"))
    return input.transpose(dim0, dim1)


def swapaxes(input, axis0, axis1):
    """``input.swapaxes(axis0, axis1)``: NumPy's name for :func:`transpose`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.swapaxes(cygrad.zeros(2, 3, 4), 0, 2).shape
    cygrad.Size([4, 3, 2])
    """
    dim0, dim1 = _two_dims(input, axis0, axis1, "swapaxes", ("axis0", "axis1"))
    return input.transpose(dim0, dim1)


def swapdims(input, dim0, dim1):
    """``input.swapdims(dim0, dim1)``: another name for :func:`transpose`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.swapdims(cygrad.zeros(2, 3), 1, 0).shape
    cygrad.Size([3, 2])
    """
    dim0, dim1 = _two_dims(input, dim0, dim1, "swapdims", ("dim0", "dim1"))
    return input.transpose(dim0, dim1)


def permute(input, dims):
    """``input.permute(dims)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.permute(cygrad.zeros(2, 3, 4), (2, 0, 1)).shape
    cygrad.Size([4, 2, 3])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "permute")
    return input.permute(int_list_arg(dims, "permute", "dims", 2, allow_int=False))


class _AllDims:
    """``squeeze``'s default: no ``dim`` given (PyTorch refuses an explicit None)."""

    def __repr__(self):
        return "<all dims>"


_ALL_DIMS = _AllDims()


def squeeze(input, dim=_ALL_DIMS):
    """``input.squeeze(dim)``: drop size-1 dims (all of them when ``dim`` is not
    given; ``dim`` may be an int or a tuple of ints) (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.squeeze(cygrad.zeros(1, 2, 1)).shape
    cygrad.Size([2])
    >>> cygrad.squeeze(cygrad.zeros(1, 2, 1), (0,)).shape
    cygrad.Size([2, 1])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "squeeze")
    if dim is _ALL_DIMS:
        return input.squeeze()
    if dim is None:
        raise TypeError("squeeze() received an invalid combination of arguments - got "
                        "(Tensor, NoneType), but expected (Tensor input, int dim) or "
                        "(Tensor input, tuple of ints dim)")
    dims = int_list_arg(dim, "squeeze", "dim", 2)
    return input.squeeze(dims[0] if _is_single_int(dim) else dims)


def _is_single_int(value):
    """Whether an int-or-int-list argument was given as one int."""
    return hasattr(value, "__index__") and getattr(value, "ndim", 0) == 0


def unsqueeze(input, dim):
    """``input.unsqueeze(dim)``: insert a size-1 dim (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.unsqueeze(cygrad.zeros(2), 0).shape
    cygrad.Size([1, 2])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "unsqueeze")
    return input.unsqueeze(int_arg(dim, "unsqueeze", "dim", 2))


def flatten(input, start_dim=0, end_dim=-1):
    """``input.flatten(start_dim, end_dim)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.flatten(cygrad.zeros(2, 3, 4), 1).shape
    cygrad.Size([2, 12])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "flatten")
    return input.flatten(int_arg(start_dim, "flatten", "start_dim", 2),
                         int_arg(end_dim, "flatten", "end_dim", 3))


def unflatten(input, dim, sizes):
    """``input.unflatten(dim, sizes)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.unflatten(cygrad.zeros(6), 0, (2, 3)).shape
    cygrad.Size([2, 3])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "unflatten")
    dim = int_arg(dim, "unflatten", "dim", 2)
    return input.unflatten(dim, int_list_arg(sizes, "unflatten", "sizes", 3, allow_int=False))


@tensor_method
def ravel(input):
    """The elements as a 1-D tensor (a view when the tensor is contiguous).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ravel(cygrad.zeros(2, 3)).shape
    cygrad.Size([6])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "ravel")
    return input.reshape(-1)


def movedim(input, source, destination):
    """``input.movedim(source, destination)`` (a view); ``source`` and
    ``destination`` are both ints or both sequences of ints.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.movedim(cygrad.zeros(2, 3, 4), 0, -1).shape
    cygrad.Size([3, 4, 2])
    """
    return _movedim(input, source, destination, "movedim")


def moveaxis(input, source, destination):
    """NumPy's name for :func:`movedim`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.moveaxis(cygrad.zeros(2, 3, 4), (0, 1), (2, 0)).shape
    cygrad.Size([3, 4, 2])
    """
    return _movedim(input, source, destination, "moveaxis")


def _movedim(input, source, destination, opname):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    single = _is_single_int(source), _is_single_int(destination)
    if single == (True, True):
        return input.movedim(int_arg(source, opname, "source", 2),
                             int_arg(destination, opname, "destination", 3))
    if single == (False, False):
        return input.movedim(int_list_arg(source, opname, "source", 2, allow_int=False),
                             int_list_arg(destination, opname, "destination", 3, allow_int=False))
    raise TypeError(f"{opname}() received an invalid combination of arguments - got (Tensor, "
                    f"{type(source).__name__}, {type(destination).__name__}), but expected "
                    f"(Tensor input, int source, int destination) or (Tensor input, tuple of "
                    f"ints source, tuple of ints destination)")


def narrow(input, dim, start, length):
    """``input.narrow(dim, start, length)`` (a view); ``start`` may be a 0-d tensor.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.narrow(cygrad.arange(5), 0, 1, 2).tolist()
    [1, 2]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "narrow")
    return input.narrow(int_arg(dim, "narrow", "dim", 2), int_arg(start, "narrow", "start", 3),
                        int_arg(length, "narrow", "length", 4))


def select(input, dim, index):
    """``input.select(dim, index)`` (a view without ``dim``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.select(cygrad.zeros(2, 3), 1, 0).shape
    cygrad.Size([2])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "select")
    return input.select(int_arg(dim, "select", "dim", 2), int_arg(index, "select", "index", 3))


def diagonal(input, offset=0, dim1=0, dim2=1):
    """``input.diagonal(offset, dim1, dim2)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diagonal(cygrad.eye(3)).tolist()
    [1.0, 1.0, 1.0]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "diagonal")
    return input.diagonal(int_arg(offset, "diagonal", "offset", 2),
                          int_arg(dim1, "diagonal", "dim1", 3),
                          int_arg(dim2, "diagonal", "dim2", 4))


def as_strided(input, size, stride, storage_offset=None):
    """``input.as_strided(size, stride, storage_offset)`` (a view).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.as_strided(cygrad.arange(4), (2, 2), (1, 1)).tolist()
    [[0, 1], [1, 2]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "as_strided")
    size = int_list_arg(size, "as_strided", "size", 2, allow_int=False)
    stride = int_list_arg(stride, "as_strided", "stride", 3, allow_int=False)
    if storage_offset is not None:
        storage_offset = int_arg(storage_offset, "as_strided", "storage_offset", 4)
    return input.as_strided(size, stride, storage_offset)


def unbind(input, dim=0):
    """``input.unbind(dim)``: the slices along ``dim`` (views).

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.unbind(cygrad.zeros(3, 2)))
    3
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "unbind")
    return input.unbind(int_arg(dim, "unbind", "dim", 2))


def split(tensor, split_size_or_sections, dim=0):
    """``tensor.split(split_size_or_sections, dim)`` (views): pieces of
    ``split_size`` elements along ``dim`` (the last one shorter), or of the listed sizes.

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.split(cygrad.arange(5), 2)]
    [[0, 1], [2, 3], [4]]
    >>> [p.tolist() for p in cygrad.split(cygrad.arange(5), [1, 4])]
    [[0], [1, 2, 3, 4]]
    """
    sizes = split_size_or_sections
    if _is_single_int(sizes):       # bools too: PyTorch's parser then refuses them
        sizes = int_arg(sizes, "split", "split_size", 2)
        return tensor.split(sizes, int_arg(dim, "split", "dim", 3))
    sizes = symint_list_arg(_int_list_not_tensor(sizes, "split_with_sizes", "split_sizes", 2))
    return tensor.split(sizes, int_arg(dim, "split_with_sizes", "dim", 3))


def _int_list_not_tensor(value, opname, argname, position):
    """An int list argument; PyTorch's parser refuses a whole tensor there."""
    if isinstance(value, TensorBase):
        raise TypeError(f"{opname}(): argument '{argname}' (position {position}) must be tuple "
                        f"of ints, not Tensor")
    return int_list_arg(value, opname, argname, position, allow_int=False)


def chunk(input, chunks, dim=0):
    """``input.chunk(chunks, dim)`` (views).

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.chunk(cygrad.arange(6), 3))
    3
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "chunk")
    return input.chunk(int_arg(chunks, "chunk", "chunks", 2), int_arg(dim, "chunk", "dim", 3))


_MAX_SECTIONS = (1 << 31) - 1


@tensor_method
def tensor_split(input, indices_or_sections, dim=0):
    """Split into views: ``n`` nearly equal parts (the first ``size % n`` one longer,
    as NumPy's ``array_split``), or at the given indices.

    Examples
    --------
    >>> import cygrad
    >>> [p.tolist() for p in cygrad.tensor_split(cygrad.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    >>> [p.tolist() for p in cygrad.tensor_split(cygrad.arange(5), [1, 4])]
    [[0], [1, 2, 3], [4]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "tensor_split")
    if isinstance(indices_or_sections, TensorBase):
        indices_or_sections = _sections_tensor(indices_or_sections)
    else:
        indices_or_sections = _sections_arg(indices_or_sections, "tensor_split", 2)
    dim = int_arg(dim, "tensor_split", "dim", 3)
    if input.dim() == 0:
        raise RuntimeError("tensor_split expected at least a 1-dimensional tensor, but got a "
                           "tensor with 0 dims")
    d = _C._wrap(dim, input.dim())
    size = input.shape[d]
    if isinstance(indices_or_sections, int):
        n = indices_or_sections
        if n <= 0:
            raise RuntimeError(f"number of sections must be larger than 0, got {n}")
        if n > _MAX_SECTIONS:
            # one view object per section: PyTorch's vector of results fails to allocate
            raise RuntimeError(f"tensor_split: cannot return {n} sections (std::bad_alloc)")
        base, extra = divmod(size, n)
        bounds = [i * base + min(i, extra) for i in range(n + 1)]
    else:
        bounds = [0, *indices_or_sections, size]
    parts = []
    for lo, hi in zip(bounds[:-1], bounds[1:]):
        lo = min(max(lo if lo >= 0 else lo + size, 0), size)
        hi = min(max(hi if hi >= 0 else hi + size, 0), size)
        parts.append(input.narrow(d, lo, max(hi - lo, 0)))
    return tuple(parts)


def _sections_arg(value, opname, position):
    """An int (how many sections) or a tuple of ints (where to split): PyTorch's two
    overloads of the split functions."""
    if _is_single_int(value) or isinstance(value, (str, bytes, float)):
        return int_arg(value, opname, "sections", position)
    return _int_list_not_tensor(value, opname, "indices", position)


def _sections_tensor(value):
    """``tensor_split``'s third overload: a 0-d (sections) or 1-d (indices) int64 tensor."""
    if value.dtype.name != "int64":
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to have dtype of "
                           f"long, but got {_C._torch_type_name(value.dtype)}")
    if value.dim() > 1:
        raise RuntimeError(f"tensor_split expected tensor_indices_or_sections to be a "
                           f"zero-dimensional or one-dimensional tensor, but got a tensor with "
                           f"{value.dim()} dims")
    return value.item() if value.dim() == 0 else tuple(value.tolist())


def _split_at(input, sections, dim, opname, min_dim):
    sections = _sections_arg(sections, opname, 2)
    if input.dim() < min_dim:
        raise RuntimeError(f"torch.{opname} requires a tensor with at least {min_dim} dimension, "
                           f"but got a tensor with {input.dim()} dimensions!")
    if isinstance(sections, int) and (sections == 0 or input.shape[dim] % sections):
        raise RuntimeError(f"torch.{opname} attempted to split along dimension {dim}, but the "
                           f"size of the dimension {input.shape[dim]} is not divisible by the "
                           f"split_size {sections}!")
    return tensor_split(input, sections, dim)


@tensor_method
def hsplit(input, indices_or_sections):
    """Split along dim 1 (dim 0 for 1-D tensors); an int must divide the size.

    Examples
    --------
    >>> import cygrad
    >>> [p.shape for p in cygrad.hsplit(cygrad.zeros(2, 4), 2)]
    [cygrad.Size([2, 2]), cygrad.Size([2, 2])]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "hsplit")
    return _split_at(input, indices_or_sections, 1 if input.dim() > 1 else 0, "hsplit", 1)


@tensor_method
def vsplit(input, indices_or_sections):
    """Split along dim 0 of a tensor with at least 2 dims.

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.vsplit(cygrad.zeros(4, 2), 2))
    2
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "vsplit")
    return _split_at(input, indices_or_sections, 0, "vsplit", 2)


@tensor_method
def dsplit(input, indices_or_sections):
    """Split along dim 2 of a tensor with at least 3 dims.

    Examples
    --------
    >>> import cygrad
    >>> len(cygrad.dsplit(cygrad.zeros(1, 2, 4), [1]))
    2
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "dsplit")
    return _split_at(input, indices_or_sections, 2, "dsplit", 3)


def t(input):
    """``input.t()``: transpose of a tensor with at most 2 dims.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.t(cygrad.zeros(2, 3)).shape
    cygrad.Size([3, 2])
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "t")
    return input.t()


def clone(input, *, memory_format=None):
    """``input.clone()``: a copy with its own memory.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2)
    >>> cygrad.clone(x).data_ptr() != x.data_ptr()
    True
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "clone")
    return input.clone()
