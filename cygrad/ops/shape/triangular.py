"""``tril``/``triu`` and their in-place forms: the lower/upper triangle of the last
two dims kept, the rest zeroed.

A copy (or, in place, the tensor itself) has the elements outside the triangle
zeroed by the "triangle_zero" kernel; the gradient is the same triangle of the
output gradient.
"""
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._argcheck import int_arg, not_tensor
from ._common import _done, _new_output, _records


def _triangle_keep(input, diagonal, lower, opname):
    """What to keep, ``(diagonal, lower)``, once ``input`` is known to have a triangle."""
    if input.dim() < 2:
        raise RuntimeError(f"{opname}: input tensor must have at least 2 dimensions")
    n, m = input.shape[-2], input.shape[-1]
    return min(max(diagonal, -n - 1), m + 1), lower   # beyond the matrix all offsets act alike


def _zero_outside(t, keep):
    """Zero the elements of ``t`` (last two dims) outside the triangle ``keep``, in place."""
    kernel("triangle_zero", t.device.type)(t, *keep)


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
