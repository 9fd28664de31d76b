"""Ops that repeat elements: ``Tensor.repeat`` and ``tile`` (whole copies of the
tensor, PyTorch's meaning) and ``repeat_interleave`` (each element repeated in
place, NumPy's ``repeat``).

``Repeat`` copies the input once into a view of the output shaped
``(r0, s0, r1, s1, ...)``, broadcast over the copy dims; its gradient sums those
dims.  ``RepeatInterleave`` gathers slices along a dim; its gradient adds them back.
"""
from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.forward_ad import saved_for_jvp
from ...autograd.function import Function
from .._argcheck import int_arg, int_list_arg, not_tensor, symint_list_arg
from ._common import _INT64_MAX, _add_slices, _gather, _method_ints, _shape_error_if_negative


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
    out_shape = [r * s for r, s in zip(reps, src_shape)]
    if out_shape and (min(out_shape) < 0 or max(out_shape) > _INT64_MAX):
        _shape_error_if_negative(out_shape)
        for i, (r, s) in enumerate(zip(reps, src_shape)):
            if r * s > _INT64_MAX:
                raise RuntimeError(f"repeat: size {s} of dimension {i} repeated {r} times does "
                                   "not fit in 64 bits")
    return Repeat.apply(input, reps)


def _repeat(input, reps):
    src_shape = (1,) * (len(reps) - input.dim()) + tuple(input.shape)
    res = _C._empty(tuple([r * s for r, s in zip(reps, src_shape)]), input.dtype, input.device)
    if not res.numel():
        return res
    if not reps:        # a 0-d tensor repeated (): a copy
        _C._copy_into(res, input)
        return res
    # View the output as (r0, s0, r1, s1, ...) and copy the input, viewed as
    # (1, s0, 1, s1, ...), broadcast over the r-dims (stride 0): one pass, no
    # intermediate tiles.
    paired = _paired(reps, src_shape)
    src = input.reshape(_paired((1,) * len(reps), src_shape))
    _C._copy_into(res.view(paired), src.expand(*paired))
    return res


def _paired(reps, src_shape):
    """(r0, s0, r1, s1, ...): the repeated shape with each copy count on a dim of its own."""
    return tuple([x for r, s in zip(reps, src_shape) for x in (r, s)])


class Repeat(Function):
    """Every input element appears once in each tile: its gradient is the sum over
    the tiles (the output gradient viewed as (r0, s0, r1, s1, ...), summed over the
    r-dims)."""
    _node_name = "RepeatBackward0"

    @staticmethod
    def forward(ctx, input, reps):
        ctx.reps, ctx.shape = reps, input.shape
        return _repeat(input, reps)

    @staticmethod
    def backward(ctx, grad):
        reps, shape = ctx.reps, ctx.shape
        src_shape = (1,) * (len(reps) - len(shape)) + shape
        tiles = grad.reshape(_paired(reps, src_shape))
        return tiles.sum(tuple(range(0, 2 * len(reps), 2))).reshape(shape), None

    @staticmethod
    def jvp(ctx, tangent, _reps):
        return Repeat.apply(tangent, ctx.reps)


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
        if dim is not None:     # only the one-tensor overload takes no repeats, and no dim
            raise TypeError(
                f"repeat_interleave() received an invalid combination of arguments - got "
                f"(Tensor, NoneType, dim={type(dim).__name__}), but expected one of:\n"
                " * (Tensor input, Tensor repeats, int dim = None, *, SymInt output_size = None)\n"
                " * (Tensor input, SymInt repeats, int dim = None, *, SymInt output_size = None)\n"
                " * (Tensor repeats, *, SymInt output_size = None)")
        counts = _repeat_counts(input, input.numel() if input.dim() else 1, "input")
        return _repeat_index(counts, output_size).to(input.device)
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
        counts = _C.full((n,), repeats, dtype=_dt.int64)
    index = _repeat_index(counts, output_size)
    src = input if input.dim() else input.reshape(1)
    if not src.is_cpu:          # (the index is built on the CPU)
        index = index.to(src.device)
    return RepeatInterleave.apply(src, d, index)


class RepeatInterleave(Function):
    """Slice ``i`` of the input along ``dim`` repeated ``counts[i]`` times: the
    slices gathered at ``index`` (``0..n-1``, each ``i`` ``counts[i]`` times).

    It is linear: the tangent is gathered the same way, and the gradient is the
    gather's adjoint, each output slice added back onto the slice it copies.
    PyTorch's node for it is ``IndexSelectBackward0``."""
    _node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, input, dim, index):
        ctx.dim, ctx.size = dim, input.shape[dim]
        ctx.save_for_backward(index)
        return _gather(input, dim, index)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return _add_slices(grad, ctx.dim, index, ctx.size), None, None

    @staticmethod
    def jvp(ctx, tangent, _dim, _index):
        index, = saved_for_jvp(ctx)
        return RepeatInterleave.apply(tangent, ctx.dim, index)


def _repeat_index(counts, output_size):
    """``0..n-1`` with ``i`` repeated ``counts[i]`` times (a 1-D int64 CPU tensor of
    counts, none negative), as an int64 CPU tensor."""
    n = counts.numel()
    total = counts.sum().item() if n else 0
    if n and counts.max().item() > _INT64_MAX // n:
        total = sum(counts.tolist())     # the int64 sum may have wrapped
    if total > _INT64_MAX // 8:
        # the int64 index alone would not fit in memory (NumPy wraps the size)
        raise RuntimeError(f"repeat_interleave: cannot allocate memory for {total} elements")
    if output_size is not None and output_size != total:
        raise RuntimeError(f"repeat_interleave: Invalid output_size, expected {total} but "
                           f"got {output_size}")
    return kernel("repeat_index", "cpu")(counts)


def _repeat_counts(repeats, n, what):
    if repeats.dim() > 1:
        raise RuntimeError("repeats must be 0-dim or 1-dim tensor")
    if repeats.dtype.name not in ("int32", "int64"):
        raise NotImplementedError(f'"repeat_interleave_cpu" not implemented for '
                                  f"'{_C._torch_type_name(repeats.dtype)}'")
    counts = repeats.detach().cpu().reshape(-1).to(_dt.int64)
    if counts.numel() and (counts < 0).any().item():
        raise RuntimeError("repeats can not be negative")
    if counts.numel() == 1 and n != 1:
        return _C.full((n,), counts.item(), dtype=_dt.int64)
    if counts.numel() != n:
        raise RuntimeError(f"repeats must have the same size as input along dim, but got "
                           f"repeats.size(0) = {counts.numel()} and {what} = {n}")
    return counts.contiguous()
