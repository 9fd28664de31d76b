"""Ops that move elements around inside the same shape: ``flip`` (with
``fliplr``/``flipud``), ``roll`` and ``rot90``.

Each copies through a strided view of the input (negative strides for ``flip``,
two swapped blocks per rolled dim for ``roll``) into a fresh tensor.  Their
``Function``s undo the move on the gradient: flipping twice, rolling back by the
opposite shifts, rotating ``-k`` quarter turns.
"""
import itertools

from ..._core import tensor as _C
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._argcheck import int_arg, int_list_arg, not_tensor, symint_list_arg
from ._common import _method_ints


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
    n = input.dim()
    wrapped = tuple([_C._wrap(d, n) for d in dims])
    if len(set(wrapped)) != len(wrapped):
        for d in wrapped:
            if wrapped.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    return Flip.apply(input, wrapped)


_REVERSED, _WHOLE = slice(None, None, -1), slice(None)


def _flip(input, dims):
    # A reversed view (negative strides) copied into a fresh tensor.
    index = tuple([_REVERSED if k in dims else _WHOLE for k in range(input.dim())])
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
        return Flip.apply(grad, ctx.dims), None

    @staticmethod
    def jvp(ctx, tangent, _dims):
        return Flip.apply(tangent, ctx.dims)


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
        return Roll.apply(input, shifts, None)
    if len(shifts) != len(dims):
        raise RuntimeError(f"shifts and dimensions must align. shifts: {len(shifts)}, "
                           f"dims:{len(dims)}")
    if input.dim() == 0:
        # (a 0-d tensor has no dim 0 or -1 here, unlike in reductions)
        raise IndexError(f"Dimension specified as {dims[0]} but tensor has no dimensions")
    if input.numel() == 0:
        return Roll.apply(input, (), ())    # PyTorch returns before it looks at the dims
    if len(dims) == 1:
        return Roll.apply(input, shifts, (_C._wrap(dims[0], input.dim()),))
    total = {}
    for s, d in zip(shifts, dims):
        d = _C._wrap(d, input.dim())
        total[d] = total.get(d, 0) + s
    return Roll.apply(input, tuple(total.values()), tuple(total))


def _roll(input, shifts, dims):
    """``input`` rolled by ``shifts[i]`` along ``dims[i]`` (wrapped and distinct);
    ``dims=None``: the flattened elements rolled by ``shifts[0]``, in the input's shape."""
    if dims is None:
        return _roll(input.flatten(), shifts, (0,)).view(input.shape)
    res = _C._empty(tuple(input.shape), input.dtype, input.device)
    if res.numel() == 0:
        return res
    # Along each rolled dim the output is two blocks of the input, swapped:
    # out[s:] = in[:n-s] and out[:s] = in[n-s:].  Every combination of blocks is one copy.
    pieces = []
    for d, s in zip(dims, shifts):
        n = input.size(d)
        s %= n
        if s:
            pieces.append(((d, s, 0, n - s), (d, 0, n - s, s)))
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
        return _roll(input, shifts, dims)

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
    return Rot90.apply(input, k, (d0, d1))


def _rot90(input, k, d0, d1):
    k %= 4
    if k == 1:
        return _flip(input, (d1,)).transpose(d0, d1)
    if k == 2:
        return _flip(input, (d0, d1))
    if k == 3:
        return _flip(input, (d0,)).transpose(d0, d1)
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
        return Rot90.apply(grad, -ctx.k % 4, ctx.dims), None, None

    @staticmethod
    def jvp(ctx, tangent, _k, _dims):
        return Rot90.apply(tangent, ctx.k, ctx.dims)
