"""Matrix products: matmul and its special cases (mm, bmm, mv, dot), outer, einsum,
tensordot, and the ``addmm`` family.

Every product ends in one primitive, ``matmul_into`` (through ``_product_into``),
which writes straight into the output tensor; its CPU kernel
(``cygrad/_core/backend_cpu/linalg.py``) runs NumPy's ``matmul`` on zero-copy views:
BLAS for float32/float64, NumPy's own loop for integers (PyTorch supports them too),
float32 for float16/bfloat16, rounded once at the end (how PyTorch accumulates
half-precision products on CPU).  ``einsum`` has a primitive of its own.

The public functions only check arguments the way PyTorch does (same exception
types, same messages) and call their product's ``Function`` (``Mm``, ``Bmm``,
``Matmul``, ``Outer``, ``Tensordot``, ``Einsum``, ``Addmm``...), whose forward
computes it; the engine records a node only when autograd needs one.  ``out=``
gets the result copied in.

All the gradients come from one identity: for ``C = A @ B``,
``dC = dA @ B + A @ dB``, so ``grad_A = grad_C @ B^T`` and ``grad_B = A^T @ grad_C``
(the ``jvp`` is ``dC`` itself).  The backward formulas are written with these same
products, so they are differentiable again (double backward).
"""
import math
import numbers

from .._core import tensor as _C
from .._core import dtype as _dt
from .._core.dispatch import kernel
from .._core.tensor import TensorBase
from .._device import CPU
from .._tensor import Tensor, tensor_method
from ..autograd.function import Function
from ..autograd.forward_ad import saved_for_jvp
from ._argcheck import check_scalar_fits, not_tensor
from .elementwise import _write_out
from .shape._common import _refuse_tracked

__all__ = ["matmul", "mm", "bmm", "mv", "dot", "vdot", "inner", "outer", "ger", "einsum",
           "tensordot", "addmm", "addmv", "addbmm", "baddbmm", "addr"]

_HALF_TYPES = ("float16", "bfloat16")

# C++ spellings PyTorch uses in some messages ("float != double").
_CPP_NAMES = {"bool": "bool", "uint8": "unsigned char", "int8": "signed char",
              "int16": "short int", "int32": "int", "int64": "long int",
              "float16": "c10::Half", "bfloat16": "c10::BFloat16", "float32": "float",
              "float64": "double", "complex64": "c10::complex<float>",
              "complex128": "c10::complex<double>"}


def _tname(dtype):
    """PyTorch's ScalarType name ("Float", "Long"...)."""
    return _C._torch_type_name(dtype)


def _cname(dtype):
    return _CPP_NAMES[dtype.name]


def _dims_str(shape):
    return "x".join(str(s) for s in shape)


def _check_tensor(x, opname, argname):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{opname}(): argument '{argname}' must be Tensor, not {type(x).__name__}")


def _check_same_device(a, b):
    if a.is_cpu and b.is_cpu:
        return
    if a.device != b.device:
        raise RuntimeError(f"Expected all tensors to be on the same device, but found at least two "
                           f"devices, {a.device} and {b.device}!")


def _check_not_bool(dtype, kernel):
    # PyTorch has no boolean matrix product; it raises NotImplementedError (a RuntimeError).
    if dtype is _dt.bool_:
        raise NotImplementedError(f'"{kernel}" not implemented for \'Bool\'')


# ----------------------------------------------------------------------- out= handling

def _resize_out(out, shape):
    """Give ``out`` the required shape the way PyTorch's out= does (warning when a
    non-empty tensor is resized)."""
    resize = getattr(out, "resize_", None)
    if resize is None:
        raise RuntimeError(f"out= tensor has shape {list(out.shape)} but the result has shape "
                           f"{list(shape)} (resizing out= tensors is not supported)")
    if out.numel() != 0:
        import warnings
        warnings.warn(f"An output with one or more elements was resized since it had shape "
                      f"{list(out.shape)}, which does not match the required output shape "
                      f"{list(shape)}.", UserWarning, stacklevel=4)
    resize(shape)


def _copy_out(out, res):
    """``out=`` of ``inner``/``tensordot``: PyTorch builds them from other ops and
    copies the result into ``out`` with ``copy_``, which autograd records (no
    refusal with grad)."""
    return _output(out, res.shape, res.dtype, res.device).copy_(res)


def _output(out, shape, dtype, device):
    """The tensor a product writes into: ``out`` after PyTorch's checks, or a new one."""
    if out is None:
        return _C._empty(tuple(shape), dtype, device)
    _check_tensor(out, "matmul", "out")
    if out.dtype is not dtype:
        raise RuntimeError(f"Expected out tensor to have dtype {_cname(dtype)}, but got "
                           f"{_cname(out.dtype)} instead")
    if tuple(out.shape) != tuple(shape):
        _resize_out(out, tuple(shape))
    return out


def _into_out(out, res, opname, same_dtype=True):
    """Copy a product ``res`` into the caller's ``out`` after PyTorch's checks: refused
    when autograd tracks the result; the same dtype (``same_dtype``, else the
    elementwise ops' rule: one the result can be cast to); resized, with a warning,
    when its shape differs.  Writing into a user's tensor is an in-place change: its
    version moves."""
    _refuse_tracked(opname, res)
    if not same_dtype:
        return _write_out(out, res, opname)
    out = _output(out, res.shape, res.dtype, res.device)
    if res.numel():
        _C._copy_into(out, res)
    out._bump_version()
    return out


def _conj_saved(ctx):
    """The saved operands, conjugated: a product's gradients use conj(A), conj(B)
    (PyTorch's convention for complex tensors; real ones pass unchanged)."""
    return tuple(x.conj() for x in ctx.saved_tensors)


def _add_terms(*terms):
    """Sum of the terms that are not None (None if all are: a zero tangent)."""
    total = None
    for x in terms:
        if x is not None:
            total = x if total is None else total + x
    return total


def _scale(t, factor):
    return t if factor == 1 else t * factor


# ----------------------------------------------------------------------- the kernel

_matmul_into_cpu = None          # the CPU kernel, looked up once (small products are hot)


def _product_into(a, b, result):
    """``result[...] = a @ b`` with NumPy's matmul rules, on views (no copies for
    float32/float64/integers).  ``result`` must already have the right shape."""
    global _matmul_into_cpu
    if result.numel() == 0:
        return result
    if a.is_cpu:
        if _matmul_into_cpu is None:
            _matmul_into_cpu = kernel("matmul_into", "cpu")
        return _matmul_into_cpu(a, b, result)
    device_kernel = _device_kernel("matmul_into", a.device)
    if device_kernel is not None:
        return device_kernel(a, b, result)
    # Until a device kernel exists: compute on the host, copy back.
    host = _C._empty(tuple(result.shape), result.dtype, CPU)
    _product_into(a.cpu(), b.cpu(), host)
    result.copy_(host)
    return result


def _device_kernel(primitive, device):
    """The kernel of ``primitive`` on ``device``, or None where it has none yet."""
    try:
        return kernel(primitive, device.type)
    except NotImplementedError:
        return None


def _product(a, b, shape):
    """``a @ b`` (NumPy's matmul rules) in a new tensor of ``shape`` (a tuple)."""
    global _mm_small_cpu
    if len(shape) == 2 and a.is_cpu:
        if _mm_small_cpu is None:
            _mm_small_cpu = kernel("mm_small", "cpu")
        res = _mm_small_cpu(a, b)       # small contiguous matrices: the core's C loop
        if res is not None:
            return res
    return _product_into(a, b, _C._empty(shape, a.dtype, a.device))


_mm_small_cpu = None


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


# ----------------------------------------------------------------------- einsum

def _label_code(c, equation, pos):
    if not (("a" <= c <= "z") or ("A" <= c <= "Z")):
        raise RuntimeError(f"einsum(): invalid subscript given at index {pos} in the equation "
                           f"string, subscripts must be in [a-zA-Z]")
    return c


def _parse_term(term, equation, start):
    """Labels of one operand (or the output): a list of letters and at most one '...'."""
    labels, i = [], 0
    while i < len(term):
        c = term[i]
        if c == " ":
            i += 1
        elif c == ".":
            if term[i:i + 3] != "..." or "..." in labels:
                raise RuntimeError(f"einsum(): found '.' for operand at position {start + i} "
                                   f"that is not part of any ellipsis")
            labels.append("...")
            i += 3
        else:
            labels.append(_label_code(c, equation, start + i))
            i += 1
    return labels


def _sublist_equation(args):
    """einsum(op0, [0, 1], op1, [1, 2], [0, 2]) -> ("ab,bc->ac", [op0, op1])."""
    def letters(sub):
        out = []
        for s in sub:
            if s is Ellipsis:
                out.append("...")
            elif isinstance(s, numbers.Integral) and 0 <= s < 52:
                out.append(chr(ord("A") + s) if s < 26 else chr(ord("a") + s - 26))
            else:
                raise ValueError(f"einsum(): expected subscript to be in [0, 52) but got {s}")
        return "".join(out)
    operands = list(args[0::2])
    subs = list(args[1::2])
    eq = ",".join(letters(s) for s in subs[:len(operands)])
    if len(subs) > len(operands):
        raise ValueError("einsum(): more sublists than operands")
    if len(args) % 2 == 1:
        # an odd number of arguments: the last one is the output sublist
        operands, out_sub = operands[:-1], args[-1]
        eq = ",".join(letters(s) for s in subs) + "->" + letters(out_sub)
    return eq, operands


def einsum(*args):
    """Einstein summation: ``einsum("ij,jk->ik", a, b)`` multiplies matrices.

    Accepts operands as separate arguments or as one list, the ``...`` ellipsis
    (broadcast batch dims), implicit output (labels seen once, alphabetically), the
    sublist form ``einsum(a, [0, 1], b, [1, 2])``, and size-1 dims broadcasting
    against a label's size, as PyTorch does.  All operands must share a dtype.

    Examples
    --------
    >>> import cygrad
    >>> a, b = cygrad.ones(2, 3), cygrad.ones(3, 4)
    >>> cygrad.einsum("ij,jk->ik", a, b).shape
    cygrad.Size([2, 4])
    >>> cygrad.einsum("ii", cygrad.eye(3)).item()
    3.0
    >>> cygrad.einsum("bij,bjk->bik", [cygrad.ones(5, 2, 3), cygrad.ones(5, 3, 4)]).shape
    cygrad.Size([5, 2, 4])
    """
    if args and not isinstance(args[0], (str, TensorBase)) and len(args) > 1:
        raise TypeError(f"einsum(): argument 'equation' (position 1) must be str, not "
                        f"{type(args[0]).__name__}")
    if isinstance(args[0] if args else None, str):
        equation, operands = args[0], list(args[1:])
        if len(operands) == 1 and isinstance(operands[0], (list, tuple)):
            operands = list(operands[0])
    elif len(args) > 1:
        equation, operands = _sublist_equation(args)
    else:
        operands = []
    if not operands:
        raise ValueError("einsum(): must specify the equation string and at least one operand, "
                         "or at least one operand and its subscripts list")
    for i, op in enumerate(operands):
        if not isinstance(op, TensorBase):
            raise TypeError(f"einsum(): operand {i} must be a Tensor, not {type(op).__name__}")
    terms, out_labels = _parse_equation(equation, operands)
    if len({op.dtype for op in operands}) > 1 and not _multiplies_away(terms, out_labels,
                                                                        operands):
        # PyTorch multiplies operands elementwise (promoting) unless a label must be
        # contracted by a matrix product, which needs one dtype.
        dtype = _C.result_type(*operands)
        operands = [op.to(dtype) for op in operands]
    _check_einsum_operands(operands)
    terms, out_labels = _name_ellipsis_dims(terms, out_labels, operands)
    sizes, plain = _label_sizes(terms, operands)
    plan = (sizes,) + _einsum_dtypes(terms, out_labels, operands)
    if not plain:
        terms, operands = _plain_form(terms, operands, sizes)
    return Einsum.apply(tuple(map(tuple, terms)), tuple(out_labels), plan, *operands)


def _plain_form(terms, operands, sizes):
    """The operands in the plain form where every label names exactly one dim, of
    the label's full size: the dims of a repeated label become their diagonal,
    size-1 dims are expanded.  Both are views, which autograd differentiates (a
    diagonal's gradient lands on the diagonal, an expanded dim's gradient is
    summed), so ``Einsum`` itself only deals with the plain case."""
    plain_terms, plain_ops = [], []
    for labels, op in zip(terms, operands):
        op, labels = _diagonal_view(op, labels)
        full = tuple(sizes[x] for x in labels)
        if op.shape != full:
            op = op.expand(*full)
        plain_terms.append(labels)
        plain_ops.append(op)
    return plain_terms, plain_ops


def _parse_equation(equation, operands):
    lhs, arrow, rhs = equation.partition("->")
    pieces = lhs.split(",")
    if len(pieces) > len(operands):
        raise RuntimeError("einsum(): fewer operands were provided than specified in the equation")
    if len(pieces) < len(operands):
        raise RuntimeError("einsum(): more operands were provided than specified in the equation")
    terms, pos = [], 0
    for i, (piece, op) in enumerate(zip(pieces, operands)):
        labels = _parse_term(piece, equation, pos)
        pos += len(piece) + 1
        n_named = len([x for x in labels if x != "..."])
        if "..." in labels:
            if n_named > op.dim():
                raise RuntimeError(f"einsum(): the number of subscripts in the equation "
                                   f"({n_named}) is more than the number of dimensions "
                                   f"({op.dim()}) for operand {i}")
        elif n_named != op.dim():
            raise RuntimeError(f"einsum(): the number of subscripts in the equation ({n_named}) "
                               f"does not match the number of dimensions ({op.dim()}) for "
                               f"operand {i} and no ellipsis was given")
        terms.append(labels)
    counts = {}
    for labels in terms:
        for x in labels:
            counts[x] = counts.get(x, 0) + 1
    if arrow:
        out_labels = _parse_term(rhs, equation, len(lhs) + 2)
        seen = set()
        for x in out_labels:
            if x in seen and x != "...":
                raise RuntimeError(f"einsum(): output subscript {x} appears more than once in "
                                   f"the output")
            if x != "..." and x not in counts:
                raise RuntimeError(f"einsum(): output subscript {x} does not appear in the "
                                   f"equation for any input operand")
            seen.add(x)
    else:
        # Implicit output: ellipsis dims first, then labels seen exactly once, sorted
        # (upper case before lower case, as in PyTorch).
        out_labels = (["..."] if "..." in counts else []) + sorted(
            x for x, n in counts.items() if n == 1 and x != "...")
    return terms, out_labels


def _check_einsum_operands(operands):
    dtype = operands[0].dtype
    for op in operands[1:]:
        if op.dtype is not dtype:
            raise RuntimeError(f"expected scalar type {_tname(dtype)} but found {_tname(op.dtype)}")
        _check_same_device(operands[0], op)


def _einsum_dtypes(terms, out_labels, operands):
    """PyTorch's dtypes for an einsum of operands of one dtype: the result's, and
    the one the contraction runs in (None: the operands')."""
    dtype = operands[0].dtype
    if dtype.name in _HALF_TYPES:
        return dtype, _dt.float32
    if not (dtype.is_floating_point or dtype.is_complex) and _sums_a_label(terms, out_labels, operands):
        # PyTorch sums a label away with torch.sum, which turns integers/bools into int64.
        return _dt.int64, _dt.int64
    if dtype is _dt.bool_ and any(x not in out_labels for t in terms for x in t):
        _check_not_bool(dtype, "bmm")
    return dtype, None


def _contract(terms, out_labels, operands, sizes, result_dtype, compute_dtype):
    """The einsum primitive: ``operands`` checked, their labels named, ``sizes`` the
    labels' sizes, the dtypes as :func:`_einsum_dtypes` says."""
    dev = operands[0].device
    device_kernel = _device_kernel("einsum", dev)
    if device_kernel is not None:
        return device_kernel(terms, out_labels, operands, sizes, result_dtype, compute_dtype)
    # Until a device kernel exists: contract on the host, move the result back.
    host = kernel("einsum", "cpu")(terms, out_labels, [op.cpu() for op in operands], sizes,
                                   result_dtype, compute_dtype)
    return host.to(dev)


def _label_sizes_of(labels, op):
    """``{label: size}`` of one operand's named labels (around an ellipsis)."""
    if "..." not in labels:
        return dict(zip(labels, op.shape))
    cut = labels.index("...")
    before, after = labels[:cut], labels[cut + 1:]
    sizes = dict(zip(before, op.shape))
    sizes.update(zip(after, op.shape[op.dim() - len(after):]))
    return sizes


def _multiplies_away(terms, out_labels, operands):
    """Does PyTorch's einsum contract some label by a matrix product: a label missing
    from the output that two or more operands hold with a size above 1?"""
    sized = [_label_sizes_of(labels, op) for labels, op in zip(terms, operands)]
    reduced = {x for labels in terms for x in labels if x not in out_labels}
    if "..." in reduced and sum("..." in labels for labels in terms) > 1:
        return True
    return any(sum(s.get(x, 1) > 1 for s in sized) > 1 for x in reduced)


def _sums_a_label(terms, out_labels, operands):
    """Does PyTorch's einsum reduce some label with a sum rather than a product?

    It does for a label missing from the output that only one operand holds with
    a size above 1 (the others lack it or broadcast it): that operand is summed over
    it before any product.  A lone operand's reduction is a sum too."""
    sized = [dict(zip(labels, op.shape)) for labels, op in zip(terms, operands)]
    reduced = {x for labels in terms for x in labels if x not in out_labels}
    if len(operands) == 1:
        return bool(reduced)
    return any(sum(s.get(x, 1) > 1 for s in sized) == 1 for x in reduced)


def _spec(terms, out_labels):
    return ",".join("".join(t) for t in terms) + "->" + "".join(out_labels)


def _diagonal_view(op, labels):
    """``op`` viewed with each repeated label's dims collapsed into one (the diagonal:
    its stride is the sum of theirs), and the labels without repeats."""
    if len(set(labels)) == len(labels):
        return op, list(labels)
    order, shape, strides = [], [], []
    for x, n, st in zip(labels, op.shape, op.stride()):
        if x in order:
            strides[order.index(x)] += st
        else:
            order.append(x)
            shape.append(n)
            strides.append(st)
    return op._as_strided_any(tuple(shape), tuple(strides), op.storage_offset()), order


class Einsum(Function):
    """einsum of operands whose labels are all distinct and full-sized (``plan``:
    the labels' sizes, the result's dtype and the dtype it is computed in, worked
    out by :func:`einsum`).

    The result is linear in each operand, and the gradient of operand ``i`` is
    another einsum: the output gradient contracted with the other operands, giving
    back operand ``i``'s labels.
    """
    _node_name = "EinsumBackward0"

    @staticmethod
    def forward(ctx, terms, out_labels, plan, *operands):
        ctx.save_for_backward(*operands)
        ctx.terms, ctx.out_labels = terms, out_labels
        return _contract(terms, out_labels, operands, *plan)

    @staticmethod
    def backward(ctx, grad):
        operands = ctx.saved_tensors
        if operands and operands[0].is_complex():
            # PyTorch's convention: the gradient uses the conjugate of the other operands
            operands = tuple(o.conj() for o in operands)
        grads = [None, None, None]
        for i in range(len(operands)):
            if ctx.needs_input_grad[i + 3]:
                grads.append(_einsum_operand_grad(grad, i, ctx.terms, ctx.out_labels, operands))
            else:
                grads.append(None)
        return tuple(grads)

    @staticmethod
    def jvp(ctx, _terms, _out_labels, _plan, *tangents):
        # Linear in each operand: the sum over operands of einsum with the tangent in
        # that operand's place.
        operands = saved_for_jvp(ctx)
        spec = _spec(ctx.terms, ctx.out_labels)
        parts = []
        for i, tangent in enumerate(tangents):
            if tangent is not None:
                parts.append(einsum(spec, *operands[:i], tangent, *operands[i + 1:]))
        return _add_terms(*parts)


def _einsum_operand_grad(grad, i, terms, out_labels, operands):
    """Gradient of operand ``i`` of a plain einsum.  A label that only operand ``i``
    has was summed away in the forward; the gradient is constant along it, so it is
    left out of the einsum and the result expanded back."""
    others = [t for j, t in enumerate(terms) if j != i]
    seen = set(out_labels).union(*others)
    kept = [x for x in terms[i] if x in seen]
    g = einsum(_spec([out_labels] + others, kept), grad,
               *[op for j, op in enumerate(operands) if j != i])
    if len(kept) < len(terms[i]):
        full = tuple(operands[i].shape)
        g = g.reshape(tuple(n if x in seen else 1 for x, n in zip(terms[i], full))).expand(*full)
    return g


def _name_ellipsis_dims(terms, out_labels, operands):
    """Replace each '...' by letters of its own, right-aligned across operands, so
    that ellipsis dims broadcast like named ones and may be summed away when the
    output leaves them out (NumPy's einsum refuses that, PyTorch allows it)."""
    n_ell = 0
    for labels, op in zip(terms, operands):
        if "..." in labels:
            n_ell = max(n_ell, op.dim() - (len(labels) - 1))
    if n_ell == 0:
        return terms, [x for x in out_labels if x != "..."]
    used = {x for t in terms for x in t} | set(out_labels)
    free = [c for c in "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz" if c not in used]
    if len(free) < n_ell:
        raise RuntimeError("einsum(): too many subscripts and ellipsis dims for 52 letters")
    ell = free[:n_ell]
    named = []
    for labels, op in zip(terms, operands):
        if "..." in labels:
            k = labels.index("...")
            own = op.dim() - (len(labels) - 1)
            labels = labels[:k] + ell[n_ell - own:] + labels[k + 1:]
        named.append(labels)
    out = []
    for x in out_labels:
        out.extend(ell if x == "..." else [x])
    return named, out


def _label_sizes(terms, operands):
    """Size of every label; size-1 dims broadcast against a larger size, other
    mismatches raise PyTorch's errors.  Also says whether the operands are in the
    plain form already (no repeated label, nothing to broadcast)."""
    sizes, plain = {}, True
    for i, (labels, op) in enumerate(zip(terms, operands)):
        own = {}
        for x, n in zip(labels, op.shape):
            if x in own:
                if own[x] != n:
                    raise RuntimeError(f"einsum(): subscript {x} is repeated for operand {i} "
                                       f"but the sizes don't match, {n} != {own[x]}")
                plain = False
            own[x] = n
            prev = sizes.get(x)
            if prev is None or prev == 1:
                sizes[x] = n
                plain = plain and (prev is None or n == 1)
            elif n != prev:
                if n != 1:
                    raise RuntimeError(f"einsum(): subscript {x} has size {n} for operand {i} "
                                       f"which does not broadcast with previously seen size "
                                       f"{prev}")
                plain = False
    return sizes, plain


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


# ----------------------------------------------------------------------- add* family

def _scaled_sum(input, product, beta, alpha):
    """``beta * input + alpha * product``; with ``beta == 0`` the input is ignored
    (NaNs in it do not propagate), as PyTorch documents."""
    ops = _C.ELEMENTWISE_OPS
    if input.shape != product.shape:
        # input only broadcasts to the product's shape, never the other way round;
        # expand raises PyTorch's error for anything else.
        input = input.expand(product.shape)
    if alpha != 1:
        product = _C.binary_op(ops["mul"], product, alpha)
    if beta == 0:
        return product
    scaled = input if beta == 1 else _C.binary_op(ops["mul"], input, beta)
    return _C.binary_op(ops["add"], scaled, product)


class _ScaledProductSum(Function):
    """``beta * input + alpha * product(x, y)`` for a product linear in ``x`` and in
    ``y``.  Each subclass names its ``product`` and the product's gradients
    ``grad_x(g, x, y)``, ``grad_y(g, x, y)``; the rest is shared:

    * ``input`` gets ``beta * g`` (the engine sums it down to input's broadcast shape);
    * ``x`` and ``y`` get the product's gradients of ``alpha * g``.
    """

    @staticmethod
    def forward(ctx, input, x, y, beta, alpha):
        cls = type(ctx)._forward_cls
        ctx.save_for_backward(x, y)
        ctx.beta, ctx.alpha = beta, alpha
        return _scaled_sum(input, cls.product(x, y), beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        cls = type(ctx)._forward_cls
        x, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        g = _scale(grad, ctx.alpha)
        return (_scale(grad, ctx.beta) if need[0] else None,
                cls.grad_x(g, x, y) if need[1] else None,
                cls.grad_y(g, x, y) if need[2] else None, None, None)

    @staticmethod
    def jvp(ctx, t_input, tx, ty, _beta, _alpha):
        cls = type(ctx)._forward_cls
        x, y = saved_for_jvp(ctx)
        product = _add_terms(cls.product(tx, y) if tx is not None else None,
                             cls.product(x, ty) if ty is not None else None)
        return _add_terms(_scale(t_input, ctx.beta) if t_input is not None else None,
                          _scale(product, ctx.alpha) if product is not None else None)


class Addmm(_ScaledProductSum):
    _node_name = "AddmmBackward0"
    product = staticmethod(lambda x, y: mm(x, y))
    grad_x = staticmethod(lambda g, x, y: mm(g, y.mT))
    grad_y = staticmethod(lambda g, x, y: mm(x.mT, g))


class Addmv(_ScaledProductSum):
    _node_name = "AddmvBackward0"
    product = staticmethod(lambda x, y: mv(x, y))
    grad_x = staticmethod(lambda g, x, y: outer(g, y))
    grad_y = staticmethod(lambda g, x, y: mv(x.mT, g))


class Baddbmm(_ScaledProductSum):
    _node_name = "BaddbmmBackward0"
    product = staticmethod(lambda x, y: bmm(x, y))
    grad_x = staticmethod(lambda g, x, y: bmm(g, y.mT))
    grad_y = staticmethod(lambda g, x, y: bmm(x.mT, g))


class Addbmm(_ScaledProductSum):
    # sum_i x_i @ y_i: each batch gets mm's gradients of the same g.
    _node_name = "AddbmmBackward0"
    product = staticmethod(lambda x, y: _batch_product_sum(x, y))
    grad_x = staticmethod(lambda g, x, y: matmul(g, y.mT))
    grad_y = staticmethod(lambda g, x, y: matmul(x.mT, g))


class Addr(_ScaledProductSum):
    _node_name = "AddrBackward0"
    product = staticmethod(lambda x, y: outer(x, y))
    grad_x = staticmethod(lambda g, x, y: mv(g, y))
    grad_y = staticmethod(lambda g, x, y: mv(g.mT, x))


# The names PyTorch gives the two factors of each op (its error messages use them).
_FACTOR_NAMES = {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
                 "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2")}


def _check_add_dtypes(opname, input, x, y):
    """addmm & co. multiply without promoting: all three dtypes must agree (addr
    promotes, like an elementwise op)."""
    if opname in ("addmm", "addbmm"):
        if x.dtype is not y.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{_tname(x.dtype)} and {_tname(y.dtype)}")
        if input.dtype is not y.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{_tname(input.dtype)} and {_tname(y.dtype)}")
    elif input.dtype is not x.dtype or x.dtype is not y.dtype:
        if opname == "addmv":
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{_tname(input.dtype)}, {_tname(x.dtype)}, and {_tname(y.dtype)}")
        if opname == "baddbmm":
            _check_baddbmm_dtypes(input, x, y)


def _check_baddbmm_dtypes(input, batch1, batch2):
    """PyTorch compares input with batch1 first, then picks the kernel by that dtype
    (none for bool), and only the kernel compares batch2."""
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cname(input.dtype)}, "
                           f"batch1: {_cname(batch1.dtype)}, batch2: {_cname(batch2.dtype)}")
    _check_not_bool(batch1.dtype, "baddbmm")
    raise RuntimeError(f"expected scalar type {_tname(batch1.dtype)} but found "
                       f"{_tname(batch2.dtype)}")


def _add_scalars(opname, dtype, beta, alpha):
    """``beta`` and ``alpha`` as the op will use them on a result of ``dtype``.

    They must fit ``dtype``.  An integer result takes them converted to integers
    (truncated: ``addmm`` of int8 with ``beta=0.5`` ignores ``input``) -- except in
    ``addr``, which refuses a float for an integral result."""
    scalars = []
    for name, value in (("beta", beta), ("alpha", alpha)):
        if not isinstance(value, numbers.Number):
            raise TypeError(f"{opname}(): argument '{name}' must be Number, not "
                            f"{type(value).__name__}")
        check_scalar_fits(value, dtype)
        if not dtype.is_floating_point and not isinstance(value, numbers.Integral):
            if opname == "addr":
                raise RuntimeError(f"For integral input tensors, argument {name} must not be "
                                   f"a floating point number.")
            value = int(value.real)
        scalars.append(value)
    return scalars


def _add_product(fn, opname, input, x, y, beta, alpha, out, check_shapes=None):
    """Shared body of addmm, addmv, baddbmm, addbmm and addr: PyTorch's argument
    checks (``check_shapes(x, y)`` for the op's own), then
    ``beta * input + alpha * product(x, y)``."""
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    for position, (name, value) in enumerate(zip(_FACTOR_NAMES[opname], (x, y)), 2):
        if not isinstance(value, TensorBase):
            raise not_tensor(value, opname, name, position)
    if check_shapes is not None:
        check_shapes(x, y)
    _check_add_dtypes(opname, input, x, y)
    dtype = _C.result_type(input, x, y) if opname == "addr" else x.dtype
    beta, alpha = _add_scalars(opname, dtype, beta, alpha)
    if opname == "addr":
        # The product is taken in the promoted dtype: integer vectors times a float
        # alpha must not turn into the default float dtype.
        x, y = x.to(dtype), y.to(dtype)
    res = fn.apply(input, x, y, beta, alpha)
    return res if out is None else _into_out(out, res, opname, same_dtype=False)


@tensor_method
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcasting to the result.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addmm(cygrad.ones(3), cygrad.ones(2, 4), cygrad.ones(4, 3)).tolist()
    [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]
    """
    return _add_product(Addmm, "addmm", input, mat1, mat2, beta, alpha, out)


@tensor_method
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addmv(cygrad.zeros(2), cygrad.ones(2, 3), cygrad.ones(3)).tolist()
    [3.0, 3.0]
    """
    return _add_product(Addmv, "addmv", input, mat, vec, beta, alpha, out,
                        lambda m, v: _check_addmv_ranks(input, m, v))


def _check_addmv_ranks(input, mat, vec):
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, "
                           f"{mat.dim()}, {vec.dim()}")


@tensor_method
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.baddbmm(cygrad.zeros(1), cygrad.ones(2, 2, 3), cygrad.ones(2, 3, 2)).shape
    cygrad.Size([2, 2, 2])
    """
    return _add_product(Baddbmm, "baddbmm", input, batch1, batch2, beta, alpha, out,
                        _check_batches)


@tensor_method
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addbmm(cygrad.zeros(2, 2), cygrad.ones(3, 2, 4), cygrad.ones(3, 4, 2)).tolist()
    [[12.0, 12.0], [12.0, 12.0]]
    """
    return _add_product(Addbmm, "addbmm", input, batch1, batch2, beta, alpha, out,
                        _check_same_batches)


def _check_batches(batch1, batch2):
    """Both factors of baddbmm/addbmm are 3-D.  PyTorch reads the result's sizes
    (``batch1.size(0)``, ``batch1.size(1)``, ``batch2.size(2)``) before checking the
    ranks: a factor of too few dims is an IndexError."""
    _size_at(batch1, 0)                 # (raises PyTorch's IndexError on too few dims)
    _size_at(batch1, 1)
    _size_at(batch2, 2)
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def _check_same_batches(batch1, batch2):
    _check_batches(batch1, batch2)
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")


def _batch_product_sum(batch1, batch2):
    """``sum_i batch1[i] @ batch2[i]`` as one matrix product:
    [A_0 .. A_b] (n x b*k) @ [B_0; ..; B_b] (b*k x m)."""
    b, n, k = batch1.shape
    m = batch2.shape[2]
    wide = batch1.permute(1, 0, 2).reshape(n, b * k)
    tall = batch2.reshape(b * k, m)
    return mm(wide, tall)


@tensor_method
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``.

    Examples
    --------
    >>> import cygrad
    >>> v, w = cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 3.0])
    >>> cygrad.addr(cygrad.zeros(2, 2), v, w).tolist()
    [[1.0, 3.0], [2.0, 6.0]]
    """
    return _add_product(Addr, "addr", input, vec1, vec2, beta, alpha, out)
