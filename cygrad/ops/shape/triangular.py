"""``tril``/``triu`` and their in-place forms: the lower/upper triangle of the last
two dims kept, the rest zeroed.

``Tril``/``Triu`` copy the input and zero the elements outside the triangle with
the "triangle_zero" kernel; ``TrilInplace``/``TriuInplace`` zero the tensor
itself.  The gradient (and the tangent) is the same triangle of the output
gradient.
"""
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from ...autograd.inplace import check_inplace_target
from .._argcheck import int_arg, not_tensor
from ._common import _write_out


def _clamped_diagonal(input, diagonal, opname):
    """``diagonal`` once ``input`` is known to have a triangle, clamped to the range
    where offsets differ (beyond the matrix all offsets act alike)."""
    if input.dim() < 2:
        raise RuntimeError(f"{opname}: input tensor must have at least 2 dimensions")
    n, m = input.shape[-2], input.shape[-1]
    return min(max(diagonal, -n - 1), m + 1)


def _zero_outside(t, diagonal, lower):
    """Zero the elements of ``t`` (last two dims) outside the triangle, in place."""
    kernel("triangle_zero", t.device.type)(t, diagonal, lower)


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
    return _triangle(Tril, input, diagonal, out, "tril")


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
    return _triangle(Triu, input, diagonal, out, "triu")


def _triangle(fn, input, diagonal, out, opname):
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    diagonal = _clamped_diagonal(input, int_arg(diagonal, opname, "diagonal", 2), opname)
    res = fn.apply(input, diagonal)
    return res if out is None else _write_out(out, res, opname, exact=True)


class Tril(Function):
    """Elements outside the triangle are constant zeros: the gradient is the output
    gradient's triangle, and so is the tangent."""
    _node_name = "TrilBackward0"
    lower = True

    @staticmethod
    def forward(ctx, input, diagonal):
        ctx.diagonal = diagonal
        res = _C._empty(tuple(input.shape), input.dtype, input.device)
        _C._copy_into(res, input)
        _zero_outside(res, diagonal, type(ctx)._forward_cls.lower)
        return res

    @staticmethod
    def backward(ctx, grad):
        return Tril._same_triangle(ctx, grad), None

    @staticmethod
    def jvp(ctx, tangent, _diagonal):
        return Tril._same_triangle(ctx, tangent)

    @staticmethod
    def _same_triangle(ctx, t):
        # the out-of-place Function of the same triangle (also for the in-place ones)
        return (Tril if type(ctx)._forward_cls.lower else Triu).apply(t, ctx.diagonal)


class Triu(Tril):
    _node_name = "TriuBackward0"
    lower = False


class _TriangleInplace(Tril):
    """``tril_``/``triu_``: zero the tensor in place and mark it dirty (the engine
    gives it this node as its new history).  The gradient is the out-of-place one."""

    @staticmethod
    def forward(ctx, x, diagonal):
        ctx.diagonal = diagonal
        _zero_outside(x, diagonal, type(ctx)._forward_cls.lower)
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
    diagonal = _clamped_diagonal(self, int_arg(diagonal, opname + "_", "diagonal", 1), opname)
    check_inplace_target(self)
    # marked dirty; on a view, the engine records the write on its base (CopySlices)
    return (TrilInplace if lower else TriuInplace).apply(self, diagonal)


@tensor_method
def tril_(self, diagonal=0):
    """In-place ``tril``."""
    return _triangle_inplace(self, diagonal, True)


@tensor_method
def triu_(self, diagonal=0):
    """In-place ``triu``."""
    return _triangle_inplace(self, diagonal, False)
