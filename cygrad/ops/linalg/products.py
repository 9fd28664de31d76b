"""Matrix products: matmul and its special cases (mm, bmm, mv, dot, vdot), outer,
inner and tensordot, each with its Function (``Mm``, ``Bmm``, ``Matmul``, ``Outer``,
``Tensordot``...).  Their gradients are ``mm``'s: for ``C = A @ B``,
``grad_A = grad_C @ B^T`` and ``grad_B = A^T @ grad_C``.
"""
import math
import numbers

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import Tensor, tensor_method
from ...autograd.function import Function
from ...autograd.forward_ad import saved_for_jvp
from ._common import (_add_terms, _cname, _check_not_bool, _check_same_device, _check_tensor,
                      _conj_saved, _copy_out, _dims_str, _into_out, _product, _product_into,
                      _tname)

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "tensordot"]


# ----------------------------------------------------------------------- special cases

def _check_dot_args(a, b):
    if a.dim() != 1 or b.dim() != 1:
        raise RuntimeError(f"1D tensors expected, but got {a.dim()}D and {b.dim()}D tensors")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"dot : expected both vectors to have same dtype, but found "
                           f"{_tname(a.dtype)} and {_tname(b.dtype)}")
    if a.size(0) != b.size(0):
        raise RuntimeError(f"inconsistent tensor size, expected tensor [{a.shape[0]}] and src "
                           f"[{b.shape[0]}] to have the same number of elements, but got "
                           f"{a.shape[0]} and {b.shape[0]} elements respectively")
    _check_not_bool(a.dtype, "dot")
    if not (a.is_cpu and b.is_cpu):
        _check_same_device(a, b)


@tensor_method
def dot(input, tensor, *, out=None):
    """Dot product of two 1-D tensors of the same dtype (a 0-dim tensor).

    Unlike ``matmul``, no type promotion happens: both must have the same dtype.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.dot(cygrad.tensor([1.0, 2.0]), cygrad.tensor([3.0, 4.0])).item()
    11.0
    """
    _check_tensor(input, "dot", "input")
    _check_tensor(tensor, "dot", "tensor")
    _check_dot_args(input, tensor)
    res = Dot.apply(input, tensor)
    return res if out is None else _into_out(out, res, "dot")


class Dot(Function):
    """``a . b``: ``grad_a = g * b``, ``grad_b = g * a`` (``g`` is a 0-dim tensor)."""
    _node_name = "DotBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _product(a, b, ())

    @staticmethod
    def backward(ctx, grad):
        a, b = _conj_saved(ctx)
        grad_a = grad * b if ctx.needs_input_grad[0] else None
        grad_b = grad * a if ctx.needs_input_grad[1] else None
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = saved_for_jvp(ctx)
        return _add_terms(dot(ta, b) if ta is not None else None,
                          dot(a, tb) if tb is not None else None)


class Vdot(Dot):
    """``vdot`` of real tensors is ``dot``: the same formulas, PyTorch's node name."""
    _node_name = "VdotBackward0"


@tensor_method
def vdot(input, other, *, out=None):
    """Dot product of two 1-D tensors, conjugating the first (the same as ``dot`` for
    real tensors).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.vdot(cygrad.tensor([1, 2]), cygrad.tensor([3, 4])).item()
    11
    """
    _check_tensor(input, "vdot", "input")
    _check_tensor(other, "vdot", "other")
    _check_dot_args(input, other)
    if input.is_complex():
        return dot(input.conj(), other, out=out)
    res = Vdot.apply(input, other)
    return res if out is None else _into_out(out, res, "vdot")


@tensor_method
def mm(input, mat2, *, out=None):
    """Matrix product of two 2-D tensors (no broadcasting; see ``matmul``).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> cygrad.mm(a, a).tolist()
    [[7.0, 10.0], [15.0, 22.0]]
    """
    _check_tensor(input, "mm", "input")
    _check_tensor(mat2, "mm", "mat2")
    if input.dim() != 2:
        raise RuntimeError("self must be a matrix")
    if mat2.dim() != 2:
        raise RuntimeError("mat2 must be a matrix")
    return _mm_checked(input, mat2, out)


def _mm_checked(a, b, out, shape_for_error=None):
    """mm after the rank checks; ``shape_for_error`` is what the error message shows
    for ``a`` when a caller reshaped it."""
    n, k = a.shape          # (unpacking a Size is its cheapest read: small mm is hot)
    k2, m = b.shape
    if k != k2:
        shown = shape_for_error or tuple(a.shape)
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_dims_str(shown)} and {_dims_str(b.shape)})")
    dtype = a.dtype
    if dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_cname(dtype)} != {_cname(b.dtype)}")
    if dtype is _dt.bool_ and n * m:             # an empty result needs no kernel
        _check_not_bool(dtype, "addmm_impl_cpu_")
    if not (a.is_cpu and b.is_cpu):
        _check_same_device(a, b)
    res = Mm.apply(a, b)
    return res if out is None else _into_out(out, res, "mm")


class Mm(Function):
    """``A @ B`` of matrices: ``grad_A = G @ B^T``, ``grad_B = A^T @ G``."""
    _node_name = "MmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _product(a, b, (a.size(0), b.size(1)))

    @staticmethod
    def backward(ctx, grad):
        a, b = _conj_saved(ctx)
        grad_a = mm(grad, b.mT) if ctx.needs_input_grad[0] else None
        grad_b = mm(a.mT, grad) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = saved_for_jvp(ctx)
        return _add_terms(mm(ta, b) if ta is not None else None,
                          mm(a, tb) if tb is not None else None)


@tensor_method
def mv(input, vec, *, out=None):
    """Matrix-vector product: ``input`` is (n, m), ``vec`` is (m,), the result (n,).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.mv(cygrad.tensor([[1, 2], [3, 4]]), cygrad.tensor([1, 1])).tolist()
    [3, 7]
    """
    _check_tensor(input, "mv", "input")
    _check_tensor(vec, "mv", "vec")
    return _mv_checked(input, vec, out)


def _size_at(t, d):
    """``t.shape[d]`` with PyTorch's IndexError where ``t`` has no dim ``d`` (a 0-d
    tensor has none at all: ``size(0)`` of a scalar is refused)."""
    if t.dim() == 0:
        raise IndexError(f"Dimension specified as {d} but tensor has no dimensions")
    return t.shape[_C._wrap(d, t.dim())]


def _mv_checked(mat, vec, out):
    _size_at(mat, 0)            # PyTorch sizes its result from mat before checking ranks
    if mat.dim() != 2 or vec.dim() != 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got 1, {mat.dim()}, {vec.dim()}")
    n, k = mat.shape
    if k != vec.size(0):
        raise RuntimeError(f"size mismatch, got input ({n}), mat "
                           f"({_dims_str(mat.shape)}), vec ({vec.shape[0]})")
    if mat.dtype is not vec.dtype:
        # PyTorch names the dtypes of (bias, matrix, vector) of its addmv kernel.
        raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                           f"{_tname(vec.dtype)}, {_tname(mat.dtype)}, and {_tname(vec.dtype)}")
    if n:
        _check_not_bool(mat.dtype, "addmv_impl_cpu")
    if not (mat.is_cpu and vec.is_cpu):
        _check_same_device(mat, vec)
    res = Mv.apply(mat, vec)
    return res if out is None else _into_out(out, res, "mv")


class Mv(Function):
    """``M @ v``: ``grad_M = outer(g, v)``, ``grad_v = M^T @ g``."""
    _node_name = "MvBackward0"

    @staticmethod
    def forward(ctx, mat, vec):
        ctx.save_for_backward(mat, vec)
        return _product(mat, vec, (mat.size(0),))

    @staticmethod
    def backward(ctx, grad):
        mat, vec = _conj_saved(ctx)
        grad_mat = outer(grad, vec) if ctx.needs_input_grad[0] else None
        grad_vec = mv(mat.mT, grad) if ctx.needs_input_grad[1] else None
        return grad_mat, grad_vec

    @staticmethod
    def jvp(ctx, tmat, tvec):
        mat, vec = saved_for_jvp(ctx)
        return _add_terms(mv(tmat, vec) if tmat is not None else None,
                          mv(mat, tvec) if tvec is not None else None)


@tensor_method
def bmm(input, mat2, *, out=None):
    """Batched matrix product of two 3-D tensors with the same batch size:
    (b, n, k) @ (b, k, m) -> (b, n, m).  No broadcasting (see ``matmul``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.bmm(cygrad.ones(4, 2, 3), cygrad.ones(4, 3, 5)).shape
    cygrad.Size([4, 2, 5])
    """
    _check_tensor(input, "bmm", "input")
    _check_tensor(mat2, "bmm", "mat2")
    if input.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if mat2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")
    return _bmm_checked(input, mat2, out)


def _check_batched(a, b, batch):
    """Inner sizes must agree (PyTorch's bmm message), dtypes must be equal."""
    if a.size(-1) != b.size(-2):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{batch}, {a.shape[-1]}] but got: [{batch}, {b.shape[-2]}].")
    if a.dtype is _dt.bool_ and a.size(0) * a.size(-2) * b.size(-1):
        _check_not_bool(a.dtype, "bmm")         # (an empty result needs no kernel)
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected scalar type {_tname(a.dtype)} but found {_tname(b.dtype)}")
    if not (a.is_cpu and b.is_cpu):
        _check_same_device(a, b)


def _bmm_checked(a, b, out):
    if a.size(0) != b.size(0):
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{a.shape[0]}, {a.shape[2]}] but got: [{b.shape[0]}, {b.shape[1]}].")
    _check_batched(a, b, a.shape[0])
    res = Bmm.apply(a, b)
    return res if out is None else _into_out(out, res, "bmm")


class Bmm(Function):
    """``A_i @ B_i`` for each batch ``i``: ``mm``'s formulas, batch by batch."""
    _node_name = "BmmBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _product(a, b, (a.size(0), a.size(1), b.size(2)))

    @staticmethod
    def backward(ctx, grad):
        a, b = _conj_saved(ctx)
        grad_a = bmm(grad, b.mT) if ctx.needs_input_grad[0] else None
        grad_b = bmm(a.mT, grad) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = saved_for_jvp(ctx)
        return _add_terms(bmm(ta, b) if ta is not None else None,
                          bmm(a, tb) if tb is not None else None)


def _broadcast_batch(sa, sb):
    """Broadcast two batch shapes (PyTorch's elementwise message on mismatch)."""
    n = max(len(sa), len(sb))
    sa = (1,) * (n - len(sa)) + tuple(sa)
    sb = (1,) * (n - len(sb)) + tuple(sb)
    result = []
    for i, (x, y) in enumerate(zip(sa, sb)):
        if x != y and x != 1 and y != 1:
            raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b ({y}) "
                               f"at non-singleton dimension {i}")
        result.append(y if x == 1 else x)
    return tuple(result)


@tensor_method
def matmul(input, other, *, out=None):
    """Matrix product with PyTorch's (and NumPy's) rules for every rank.

    - 1-D @ 1-D: dot product, a 0-dim tensor.
    - 2-D @ 2-D: matrix product.
    - 1-D @ N-D: a 1 is prepended to the vector's shape, then removed from the result.
    - N-D @ 1-D: matrix-vector product over the last dim.
    - batched: dims before the last two broadcast, ``(j, 1, n, k) @ (m, k, p)``
      gives ``(j, m, n, p)``.

    Both operands must have the same dtype (no type promotion, as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.matmul(cygrad.ones(3), cygrad.ones(3)).item()
    3.0
    >>> cygrad.matmul(cygrad.ones(5, 1, 2, 3), cygrad.ones(4, 3, 6)).shape
    cygrad.Size([5, 4, 2, 6])
    >>> (cygrad.ones(2, 3) @ cygrad.ones(3)).shape
    cygrad.Size([2])
    """
    if not isinstance(input, TensorBase) or not isinstance(other, TensorBase):
        _check_tensor(input, "matmul", "input")
        _check_tensor(other, "matmul", "other")
    da, db = input.dim(), other.dim()
    if da == 2 and db == 2:
        return _mm_checked(input, other, out)
    if da == 0 or db == 0:
        raise RuntimeError(f"both arguments to matmul need to be at least 1D, but they are "
                           f"{da}D and {db}D")
    if da == 1 and db == 1:
        _check_dot_args(input, other)
        res = Dot.apply(input, other)
        return res if out is None else _into_out(out, res, "matmul")
    if da == 2 and db == 1:
        return _mv_checked(input, other, out)
    if da == 1 and db == 2:
        # Checked as the (1, k) @ (k, m) product it is.
        _mm_checks_only(input.unsqueeze(0), other)
        return _matmul_product(input, other, (other.shape[1],), out)
    if db <= 2:
        # (..., n, k) @ (k, m) or (..., k): the batch dims fold into the rows.
        lead = tuple(input.shape[:-1])
        rows = 1
        for s in lead:
            rows *= s
        folded = (rows, input.shape[-1])
        if db == 2:
            _mm_checks_only(input, other, folded)
            return _matmul_product(input, other, lead + (other.shape[1],), out)
        if input.shape[-1] != other.shape[0]:
            raise RuntimeError(f"size mismatch, got input ({rows}), mat ({_dims_str(folded)}), "
                               f"vec ({other.shape[0]})")
        if input.dtype is not other.dtype:
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{_tname(other.dtype)}, {_tname(input.dtype)}, and "
                               f"{_tname(other.dtype)}")
        _check_not_bool(input.dtype, "addmv_impl_cpu")
        return _matmul_product(input, other, lead, out)
    return _batched_matmul(input, other, out)


def _mm_checks_only(a, b, shape_for_error=None):
    """The checks of mm (shapes, dtypes) for an ``a`` that may have more dims."""
    if a.shape[-1] != b.shape[0]:
        shown = shape_for_error or tuple(a.shape)
        raise RuntimeError(f"mat1 and mat2 shapes cannot be multiplied "
                           f"({_dims_str(shown)} and {_dims_str(b.shape)})")
    if a.dtype is not b.dtype:
        raise RuntimeError(f"expected m1 and m2 to have the same dtype, but got: "
                           f"{_cname(a.dtype)} != {_cname(b.dtype)}")
    _check_not_bool(a.dtype, "addmm_impl_cpu_")
    _check_same_device(a, b)


def _batched_matmul(a, b, out):
    """matmul when ``b`` has 3+ dims (or ``a`` does and ``b`` is a batch too)."""
    a_vec, b_vec = a.dim() == 1, b.dim() == 1
    a2 = a.unsqueeze(0) if a_vec else a
    b2 = b.unsqueeze(-1) if b_vec else b
    batch = _broadcast_batch(a2.shape[:-2], b2.shape[:-2])
    nbatch = 1
    for s in batch:
        nbatch *= s
    _check_batched(a2, b2, nbatch)
    shape = batch + (a2.shape[-2], b2.shape[-1])
    if a_vec:
        shape = shape[:-2] + shape[-1:]
    if b_vec:
        shape = shape[:-1]
    # NumPy's matmul applies the same 1-D promotion and batch broadcasting.
    return _matmul_product(a, b, shape, out)


def _matmul_product(a, b, shape, out):
    """The cases of matmul that are not plain dot/mv/mm (checked, result ``shape``)."""
    res = Matmul.apply(a, b, tuple(shape))
    return res if out is None else _into_out(out, res, "matmul")


class Matmul(Function):
    """matmul with a vector operand or batch dims (dot/mv/mm have their own Functions).

    A vector is a matrix with a size-1 dim (``a``: a row, ``b``: a column), and batch
    dims broadcast, so the gradients are ``mm``'s, batch by batch:
    ``grad_a = g @ b^T``, ``grad_b = a^T @ g``.  Where an operand was broadcast over
    batch dims, its gradient comes out with those dims and the engine sums them away.
    """
    _node_name = "MatmulBackward0"

    @staticmethod
    def forward(ctx, a, b, shape):
        ctx.save_for_backward(a, b)
        return _product(a, b, shape)

    @staticmethod
    def backward(ctx, grad):
        a, b = _conj_saved(ctx)
        a_vec, b_vec = a.dim() == 1, b.dim() == 1
        # Put back the size-1 dims matmul removed for vectors: g becomes batch + (n, m).
        a2 = a.unsqueeze(0) if a_vec else a
        b2 = b.unsqueeze(-1) if b_vec else b
        g2 = grad.unsqueeze(-1) if b_vec else grad
        g2 = g2.unsqueeze(-2) if a_vec else g2
        grad_a = grad_b = None
        if ctx.needs_input_grad[0]:
            grad_a = matmul(g2, b2.mT)
            grad_a = grad_a.squeeze(-2) if a_vec else grad_a
        if ctx.needs_input_grad[1]:
            if b.dim() <= 2 and a.dim() >= 3:
                # ``b`` was shared by every batch: fold the batch into the rows, one mm
                # sums the products (no batch-sized intermediate to reduce).
                rows = math.prod(a.shape[:-1])
                grad_b = matmul(a.reshape(rows, a.shape[-1]).mT,
                                g2.reshape(rows, g2.shape[-1]))
            else:
                grad_b = matmul(a2.mT, g2)
            grad_b = grad_b.squeeze(-1) if b_vec else grad_b
        return grad_a, grad_b, None

    @staticmethod
    def jvp(ctx, ta, tb, _):
        a, b = saved_for_jvp(ctx)
        return _add_terms(matmul(ta, b) if ta is not None else None,
                          matmul(a, tb) if tb is not None else None)


def _matmul_dunder(self, other):
    if not isinstance(other, TensorBase):
        return NotImplemented
    return matmul(self, other)


def _rmatmul_dunder(self, other):
    if not isinstance(other, TensorBase):
        return NotImplemented
    return matmul(other, self)


# The Cython base class has no ``@`` operator; the Python class gets it here.
Tensor.__matmul__ = _matmul_dunder
Tensor.__rmatmul__ = _rmatmul_dunder


@tensor_method
def inner(input, other, *, out=None):
    """Sum of products over the last dim of both tensors (``dot`` for 1-D).

    Result shape: ``input.shape[:-1] + other.shape[:-1]``; a 0-dim operand scales
    the other one.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.inner(cygrad.ones(2, 3), cygrad.ones(4, 3)).shape
    cygrad.Size([2, 4])
    """
    _check_tensor(input, "inner", "input")
    _check_tensor(other, "inner", "other")
    if input.dim() == 0 or other.dim() == 0:
        # a scalar operand: the product is a multiplication (PyTorch's too)
        return _C.binary_op(_C.ELEMENTWISE_OPS["mul"], input, other, out)
    if input.shape[-1] != other.shape[-1]:
        raise RuntimeError(f"inner() the last dimension must match on both input tensors but got "
                           f"shapes {list(input.shape)} and {list(other.shape)}")
    ca, cb = _contracted(input, other, [-1], [-1])
    res = Inner.apply(input, other, ca, cb)
    return res if out is None else _copy_out(out, res)


@tensor_method
def outer(input, vec2, *, out=None):
    """Outer product of two 1-D tensors: ``result[i, j] = input[i] * vec2[j]``.

    The dtypes are promoted as in elementwise multiplication.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.outer(cygrad.tensor([1, 2]), cygrad.tensor([1, 10, 100])).tolist()
    [[1, 10, 100], [2, 20, 200]]
    """
    if not isinstance(input, TensorBase) or not isinstance(vec2, TensorBase):
        _check_tensor(input, "outer", "input")
        _check_tensor(vec2, "outer", "vec2")
    if input.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument self, but got {input.dim()}-D")
    if vec2.dim() != 1:
        raise RuntimeError(f"outer: Expected 1-D argument vec2, but got {vec2.dim()}-D")
    res = Outer.apply(input, vec2)
    # (PyTorch's outer is a multiplication: its out= follows mul's rules, and names it)
    return res if out is None else _into_out(out, res, "mul", same_dtype=False)


_MUL = _C.ELEMENTWISE_OPS["mul"]


class Outer(Function):
    """``outer(a, b)[i, j] = a[i] * b[j]``: a column times a row, broadcast (dtypes
    promoted as in a multiplication).

    ``d outer(a, b) = outer(da, b) + outer(a, db)``, so ``grad_a = G @ b`` and
    ``grad_b = G^T @ a`` (conjugated for complex operands).  PyTorch's node for it is
    the multiplication's, ``MulBackward0``."""
    _node_name = "MulBackward0"

    @staticmethod
    def forward(ctx, a, b):
        ctx.save_for_backward(a, b)
        return _C.binary_op(_MUL, a.unsqueeze(1), b)

    @staticmethod
    def backward(ctx, grad):
        a, b = _conj_saved(ctx)
        grad_a = mv(grad, b.to(grad.dtype)) if ctx.needs_input_grad[0] else None
        grad_b = mv(grad.mT, a.to(grad.dtype)) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b

    @staticmethod
    def jvp(ctx, ta, tb):
        a, b = saved_for_jvp(ctx)
        return _add_terms(Outer.apply(ta, b) if ta is not None else None,
                          Outer.apply(a, tb) if tb is not None else None)


ger = tensor_method(outer, name="ger")


# ----------------------------------------------------------------------- tensordot

def _tensordot_dims(a, b, dims):
    if isinstance(dims, TensorBase):
        dims = dims.tolist() if dims.numel() > 1 else dims.item()
    if isinstance(dims, numbers.Integral):
        if dims < 0:
            raise RuntimeError(f"tensordot expects dims >= 0, but got dims={dims}")
        if dims > a.dim() or dims > b.dim():
            raise RuntimeError(f"tensordot expects dims < ndim_a or ndim_b, but got dims={dims}")
        return list(range(-dims, 0)), list(range(dims))
    if not isinstance(dims, (list, tuple)):
        raise RuntimeError(f"tensordot expects dims to be int or tuple[list[int], list[int]] or "
                           f"list[list[int]] containing two lists, but got dims={dims}")
    da, db = dims           # (a ValueError for a sequence of another length, as PyTorch)
    if isinstance(da, numbers.Integral) or isinstance(db, numbers.Integral):
        raise TypeError("tensordot(): argument 'dims_self' must be tuple of ints, not int")
    da, db = list(da), list(db)
    if len(da) != len(db):
        raise RuntimeError("both dimension lists should have same length")
    return da, db


def tensordot(a, b, dims=2, out=None):
    """Contract dims of ``a`` with dims of ``b`` (sum of products over them).

    ``dims=n`` pairs the last ``n`` dims of ``a`` with the first ``n`` of ``b``;
    ``dims=([1, 2], [0, 1])`` names them.  The result has ``a``'s free dims then
    ``b``'s.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensordot(cygrad.ones(2, 3, 4), cygrad.ones(3, 4, 5), dims=2).shape
    cygrad.Size([2, 5])
    >>> cygrad.tensordot(cygrad.ones(2, 3), cygrad.ones(4, 3), dims=([1], [1])).shape
    cygrad.Size([2, 4])
    """
    _check_tensor(a, "tensordot", "a")
    _check_tensor(b, "tensordot", "b")
    given_a, given_b = _tensordot_dims(a, b, dims)
    ca, cb = _contracted(a, b, given_a, given_b)
    res = Tensordot.apply(a, b, ca, cb)
    return res if out is None else _copy_out(out, res)


def _contracted(a, b, given_a, given_b):
    """PyTorch's checks of the dims ``tensordot`` contracts; the dims, wrapped, as
    two tuples."""
    if a.dtype is not b.dtype:
        raise RuntimeError("both inputs should have same dtype")
    ca, cb = [], []
    for gx, gy in zip(given_a, given_b):
        # pair by pair, as PyTorch: a size mismatch is found before a later bad dim
        x, y = _C._wrap(gx, a.dim()), _C._wrap(gy, b.dim())
        ca.append(x)
        cb.append(y)
        if a.shape[x] != b.shape[y] and a.shape[x] != 1 and b.shape[y] != 1:
            raise RuntimeError(f"contracted dimensions need to match, but first has size "
                               f"{a.shape[x]} in dim {gx} and second has size {b.shape[y]} in "
                               f"dim {gy}")
    for dims_list in (ca, cb):
        for d in dims_list:
            if dims_list.count(d) > 1:
                raise RuntimeError(f"dim {d} appears multiple times in the list of dims")
    _check_not_bool(a.dtype, "addmm_impl_cpu_")
    _check_same_device(a, b)
    return tuple(ca), tuple(cb)


def _as_matrices(a, b, ca, cb):
    """A contraction as one matrix product ``(m, k) @ (k, n)``: each operand moved to
    (free dims, contracted dims), resp. (contracted, free), and flattened (reshape
    copies only if the layout needs it).  A size-1 contracted dim broadcasts against
    the other side, as in PyTorch.  Returns the two matrices, the result's shape
    and, for each operand, its broadcast shape and the order of its dims in its
    matrix."""
    sa, sb = list(a.shape), list(b.shape)
    for x, y in zip(ca, cb):
        sa[x] = sb[y] = max(sa[x], sb[y])
    free_a = [d for d in range(len(sa)) if d not in ca]
    free_b = [d for d in range(len(sb)) if d not in cb]
    rows, cols = [sa[d] for d in free_a], [sb[d] for d in free_b]
    k = math.prod([sa[d] for d in ca])
    order_a, order_b = free_a + list(ca), list(cb) + free_b
    a2 = _moved(a, sa, order_a).reshape(math.prod(rows), k)
    b2 = _moved(b, sb, order_b).reshape(k, math.prod(cols))
    return a2, b2, tuple(rows + cols), (sa, order_a), (sb, order_b)


def _moved(t, shape, order):
    """``t`` broadcast to ``shape``, its dims permuted to ``order`` (views)."""
    if list(t.shape) != shape:
        t = t.expand(tuple(shape))
    return t if order == list(range(len(order))) else t.permute(order)


def _unflatten(matrix, shape, order):
    """A matrix of :func:`_as_matrices` back to its operand's (broadcast) ``shape``."""
    moved = matrix.reshape(tuple(shape[d] for d in order))
    if order == list(range(len(order))):
        return moved
    inverse = [0] * len(order)
    for i, d in enumerate(order):
        inverse[d] = i
    return moved.permute(inverse)


class Tensordot(Function):
    """Contraction of dims ``ca`` of ``a`` with dims ``cb`` of ``b``: moved together
    and flattened, it is one matrix product ``A (m, k) @ B (k, n)``, reshaped to
    ``a``'s free dims then ``b``'s.  So its gradients are ``mm``'s,
    ``grad_A = G @ B^T`` and ``grad_B = A^T @ G``, reshaped and moved back (a
    contracted dim broadcast from size 1 is summed back by the engine), and its
    tangent is ``tensordot(da, b) + tensordot(a, db)``.  PyTorch builds tensordot
    from ``mm`` and views: its node is ``ViewBackward0``."""
    _node_name = "ViewBackward0"

    @staticmethod
    def forward(ctx, a, b, ca, cb):
        ctx.save_for_backward(a, b)
        ctx.dims = ca, cb
        a2, b2, shape, _, _ = _as_matrices(a, b, ca, cb)
        res = _C._empty(shape, a.dtype, a.device)
        _product_into(a2, b2, res.view(a2.size(0), b2.size(1)))
        return res

    @staticmethod
    def backward(ctx, grad):
        a, b = _conj_saved(ctx)
        a2, b2, _, layout_a, layout_b = _as_matrices(a, b, *ctx.dims)
        g = grad.reshape(a2.size(0), b2.size(1))
        grad_a = _unflatten(mm(g, b2.mT), *layout_a) if ctx.needs_input_grad[0] else None
        grad_b = _unflatten(mm(a2.mT, g), *layout_b) if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None, None

    @staticmethod
    def jvp(ctx, ta, tb, _ca, _cb):
        a, b = saved_for_jvp(ctx)
        return _add_terms(Tensordot.apply(ta, b, *ctx.dims) if ta is not None else None,
                          Tensordot.apply(a, tb, *ctx.dims) if tb is not None else None)


class Inner(Tensordot):
    """``inner`` is ``tensordot`` over the last dim of both operands: the same
    Function (PyTorch's node for it is ``ViewBackward0`` too)."""
