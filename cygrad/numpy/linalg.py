"""``cygrad.numpy.linalg``: the array API standard's linalg extension, with NumPy's
``norm``, ``lstsq`` and ``eigvalsh``.

Every function is differentiable, in reverse and in forward mode, on real and
complex inputs. Products come from cygrad's ops; the decompositions (``solve``,
``inv``, ``slogdet``, ``cholesky``, ``eigh``, ``svd``, ``qr``) are
the ``autograd.Function``\\ s of ``cygrad.ops.linalg.decompositions``, the same
code as ``cygrad.linalg``'s: a LAPACK kernel from the kernel table forward, a
backward and ``jvp`` written with cygrad ops (so they are differentiable again). ``det``, ``pinv``, ``lstsq``,
``matrix_rank``, the norms and ``matrix_power`` are built from those. Integer
inputs are computed in float64.

Gradients that are not defined are refused, not invented: ``svd`` with
``full_matrices=True`` on a non-square input and ``qr`` of a wide matrix raise
``NotImplementedError`` in backward and in forward mode (as PyTorch).

Examples
--------
>>> import cygrad.numpy as cnp
>>> a = cnp.asarray([[3.0, 1.0], [1.0, 2.0]], copy=True)
>>> a.requires_grad_()
tensor([[3., 1.],
        [1., 2.]], dtype=cygrad.float64, requires_grad=True)
>>> cnp.linalg.det(a).backward()
>>> [[round(v, 12) for v in row] for row in a.grad.tolist()]   # det * inv(A).T
[[2.0, -1.0], [-1.0, 3.0]]
"""
import builtins
import math
from collections import namedtuple

import cygrad
from cygrad._core import fastpath as _fast
from . import _dtypes as D
from cygrad._core import backend_cpu  # noqa: F401  (registers the linalg_* kernels)
from ._helpers import tensor, normalize_axis, operands
from ._manipulation import matrix_transpose
from cygrad.ops.linalg.decompositions import (Cholesky, Eigh, Inv, Qr, Slogdet, Solve, Svd,
                                               _mH)

__all__ = ["cholesky", "cross", "det", "diagonal", "eigh", "eigvalsh", "inv", "matmul",
           "matrix_norm", "matrix_power", "matrix_rank", "matrix_transpose", "outer", "pinv", "qr",
           "slogdet", "solve", "svd", "svdvals", "tensordot", "trace", "vecdot", "vector_norm",
           "norm", "lstsq"]

EighResult = namedtuple("EighResult", ["eigenvalues", "eigenvectors"])
QRResult = namedtuple("QRResult", ["Q", "R"])
SlogdetResult = namedtuple("SlogdetResult", ["sign", "logabsdet"])
SVDResult = namedtuple("SVDResult", ["U", "S", "Vh"])


def _float(x):
    x = tensor(x)
    return x if x.dtype.is_floating_point or x.dtype.is_complex else x.to(D.DEFAULT_FLOAT)


def _abs2(x):
    # |x|**2, real for complex x (x * x would be complex and wrong)
    if x.dtype.is_complex:
        return x.real * x.real + x.imag * x.imag
    return x * x


def _square(x, name):
    if x.dim() < 2 or x.shape[-1] != x.shape[-2]:
        raise ValueError(f"{name}: last 2 dimensions of the array must be square")


# ---- public functions -----------------------------------------------------------

def solve(x1, x2, /):
    """Solve ``x1 @ x = x2``; ``x2`` is a vector only when 1-D (as NumPy 2 and the
    standard); batch dimensions broadcast.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.solve(cnp.asarray([[2.0, 0.0], [0.0, 4.0]]), cnp.asarray([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    x = _fast.solve(x1, x2)
    if x is not None:
        return x
    a, b = operands(_float(x1), _float(x2))
    _square(a, "solve")
    vector = b.dim() == 1
    if vector:
        b = b.unsqueeze(-1)
    batch = tuple(cygrad.broadcast_shapes(a.shape[:-2], b.shape[:-2]))
    a = a.expand(*(batch + tuple(a.shape[-2:])))
    b = b.expand(*(batch + tuple(b.shape[-2:])))
    x = Solve.apply(a, b)
    return x.squeeze(-1) if vector else x


def inv(x, /):
    """Inverse of (a stack of) square matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.inv(cnp.asarray([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    x = _float(x)
    _square(x, "inv")
    return Inv.apply(x)


def slogdet(x, /):
    """Sign and log of the absolute value of the determinant (a named tuple).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> s = cnp.linalg.slogdet(cnp.asarray([[-2.0, 0.0], [0.0, 1.0]]))
    >>> s.sign.item(), round(s.logabsdet.item(), 6)
    (-1.0, 0.693147)
    """
    x = _float(x)
    _square(x, "slogdet")
    return SlogdetResult(*Slogdet.apply(x))


def det(x, /):
    """Determinant, ``sign * exp(logabsdet)``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.det(cnp.asarray([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0000000000000004
    """
    sign, logabs = slogdet(x)
    return sign * cygrad.exp(logabs)


def cholesky(x, /, *, upper=False):
    """Cholesky factor of (a stack of) symmetric positive-definite matrices (lower, or
    upper with ``upper=True``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.cholesky(cnp.asarray([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    x = _float(x)
    _square(x, "cholesky")
    lower = Cholesky.apply(x)
    return _mH(lower) if upper else lower


def eigh(x, /):
    """Eigenvalues (ascending) and eigenvectors of (a stack of) symmetric matrices; only
    the lower triangle is read (NumPy's default).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.eigh(cnp.asarray([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
    [1.0, 3.0]
    """
    x = _float(x)
    _square(x, "eigh")
    return EighResult(*Eigh.apply(x, "L"))


def eigvalsh(x, /):
    """Eigenvalues (ascending) of (a stack of) symmetric matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.eigvalsh(cnp.asarray([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    return eigh(x).eigenvalues


def svd(x, /, *, full_matrices=True):
    """Singular value decomposition ``U @ diag(S) @ Vh`` (a named tuple).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.svd(cnp.asarray([[3.0, 0.0], [0.0, -2.0]])).S.tolist()
    [3.0, 2.0]
    """
    x = _float(x)
    return SVDResult(*Svd.apply(x, builtins.bool(full_matrices)))


def svdvals(x, /):
    """Singular values, descending.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.svdvals(cnp.asarray([[0.0, 2.0], [1.0, 0.0]])).tolist()
    [2.0, 1.0]
    """
    return svd(x, full_matrices=False).S


def qr(x, /, *, mode="reduced"):
    """QR decomposition (``mode="reduced"`` or ``"complete"``; a named tuple).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> q, r = cnp.linalg.qr(cnp.asarray([[1.0, 2.0], [3.0, 4.0]]))
    >>> cnp.allclose(q @ r, [[1.0, 2.0], [3.0, 4.0]])
    True
    """
    if mode not in ("reduced", "complete"):
        raise ValueError(f"qr mode must be 'reduced' or 'complete', got {mode!r}")
    return QRResult(*Qr.apply(_float(x), mode))


def _rtol(x, rtol, s):
    if rtol is None:
        return s.max(dim=-1, keepdim=True).values * (builtins.max(x.shape[-2:]) * D.finfo(x.dtype).eps)
    rt = tensor(rtol)
    return s.max(dim=-1, keepdim=True).values * (rt.unsqueeze(-1) if rt.dim() else rt)


def pinv(x, /, *, rtol=None):
    """Moore-Penrose pseudo-inverse; singular values at most ``rtol * max(S)`` count as
    zero (default ``rtol = max(M, N) * eps``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.pinv(cnp.asarray([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    x = _float(x)
    u, s, vh = svd(x, full_matrices=False)
    keep = s > _rtol(x, rtol, s)
    s_inv = cygrad.where(keep, 1.0 / cygrad.where(keep, s, cygrad.ones_like(s)), cygrad.zeros_like(s))
    return _mH(vh) @ (s_inv.unsqueeze(-1) * _mH(u))


def matrix_rank(x, /, *, rtol=None):
    """Number of singular values above ``rtol * max(S)``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.matrix_rank(cnp.asarray([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    x = _float(x).detach()
    s = svdvals(x)
    return (s > _rtol(x, rtol, s)).to(D.int64).sum(dim=-1)


def lstsq(a, b, rcond=None):
    """NumPy's ``lstsq``: ``(x, residuals, rank, s)`` with ``x = pinv(a) @ b``
    (differentiable through ``pinv``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> a = cnp.asarray([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]])
    >>> x = cnp.linalg.lstsq(a, cnp.asarray([1.0, 2.0, 3.0]))[0]
    >>> [round(v, 6) for v in x.tolist()]
    [1.0, 1.0]
    """
    a, b = operands(_float(a), _float(b))
    x = pinv(a, rtol=rcond) @ b
    s = svdvals(a.detach())
    rank = matrix_rank(a, rtol=rcond)
    m, n = a.shape[-2:]
    if builtins.int(rank) == n and m > n:
        r = (a @ x - b).detach()
        residuals = _abs2(r).sum(dim=0) if r.dim() > 1 else _abs2(r).sum().reshape(1)
    else:
        residuals = cygrad.zeros(0, dtype=s.dtype)
    return x, residuals, builtins.int(rank), s


def matrix_power(x, n, /):
    """``x`` multiplied by itself ``n`` times (``n < 0``: of the inverse; 0: identity).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.matrix_power(cnp.asarray([[1, 1], [0, 1]]), 3).tolist()
    [[1, 3], [0, 1]]
    """
    x = tensor(x)
    _square(x, "matrix_power")
    if n == 0:
        return cygrad.eye(x.shape[-1], dtype=x.dtype).expand(*x.shape).clone()
    if n < 0:
        x, n = inv(x), -n
    result, base = None, x
    while n:
        if n & 1:
            result = base if result is None else result @ base
        n >>= 1
        if n:
            base = base @ base
    return result


def matmul(x1, x2, /):
    """Matrix product with broadcasting (promoting dtypes).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.matmul(cnp.asarray([[1, 2]]), cnp.asarray([[3], [4]])).tolist()
    [[11]]
    """
    res = _fast.matmul(x1, x2)
    if res is not None:
        return res
    a, b = operands(x1, x2)
    return cygrad.matmul(a, b)


def outer(x1, x2, /):
    """Outer product of two vectors (NumPy flattens other shapes).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.outer(cnp.asarray([1, 2]), cnp.asarray([3, 4])).tolist()
    [[3, 4], [6, 8]]
    """
    a, b = operands(x1, x2)
    return cygrad.outer(a.reshape(-1), b.reshape(-1))


def tensordot(x1, x2, /, *, axes=2):
    """Sum of products over ``axes`` (an int: the last/first ``axes`` dims; or two
    sequences of axes).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.tensordot(cnp.ones((2, 3)), cnp.ones((3, 4)), axes=1).shape
    cygrad.Size([2, 4])
    """
    a, b = operands(x1, x2)
    if not isinstance(axes, int):
        axes = [list(axes[0]) if not isinstance(axes[0], int) else [axes[0]],
                list(axes[1]) if not isinstance(axes[1], int) else [axes[1]]]
    return cygrad.tensordot(a, b, dims=axes)


def vecdot(x1, x2, /, *, axis=-1):
    """Dot product along ``axis`` (broadcasting the rest); a complex ``x1`` is
    conjugated first (the standard's ``sum(conj(x1) * x2)``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.vecdot(cnp.asarray([[1.0, 2.0], [3.0, 4.0]]), cnp.asarray([1.0, 1.0])).tolist()
    [3.0, 7.0]
    >>> cnp.vecdot(cnp.asarray([1j]), cnp.asarray([1j])).item()
    (1+0j)
    """
    a, b = operands(x1, x2)
    if a.dim() == 0 or b.dim() == 0:
        raise ValueError("vecdot: the arguments must have at least one dimension")
    nd = builtins.max(a.dim(), b.dim())
    ax = normalize_axis(axis, nd) - nd      # counted from the end, after broadcasting
    if -ax > builtins.min(a.dim(), b.dim()):
        raise ValueError(f"vecdot: axis {axis} is out of range for the shapes "
                         f"{tuple(a.shape)} and {tuple(b.shape)}")
    n1, n2 = a.shape[ax], b.shape[ax]
    if n1 != n2:
        # the contracted axis is not broadcast (the standard; NumPy raises too)
        raise ValueError(f"vecdot: the sizes of the contracted axis differ ({n1} and {n2})")
    if a.dtype.is_complex:
        a = cygrad.conj(a)
    a, b = cygrad.broadcast_tensors(a, b)
    prod = a * b
    # the standard keeps the promoted dtype; cygrad's sum of integers is int64
    return cygrad.sum(prod, dim=ax, dtype=prod.dtype)


def cross(x1, x2, /, *, axis=-1):
    """Cross product of 3-vectors along ``axis``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.cross(cnp.asarray([1, 0, 0]), cnp.asarray([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    a, b = operands(x1, x2)
    a, b = cygrad.broadcast_tensors(a, b)
    axis = normalize_axis(axis, a.dim())
    if a.shape[axis] != 3:
        raise ValueError("cross needs vectors of size 3 along axis")
    a0, a1, a2 = cygrad.unbind(a, dim=axis)
    b0, b1, b2 = cygrad.unbind(b, dim=axis)
    return cygrad.stack([a1 * b2 - a2 * b1, a2 * b0 - a0 * b2, a0 * b1 - a1 * b0], dim=axis)


def diagonal(x, /, *, offset=0):
    """The ``offset``-th diagonal of (a stack of) matrices (a view).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.diagonal(cnp.asarray([[1, 2], [3, 4]]), offset=1).tolist()
    [2]
    """
    return cygrad.diagonal(tensor(x), offset=offset, dim1=-2, dim2=-1)


def trace(x, /, *, offset=0, dtype=None):
    """Sum of the ``offset``-th diagonal of (a stack of) matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.trace(cnp.asarray([[1, 2], [3, 4]])).item()
    5
    """
    from ._statistical import sum as _sum
    return _sum(diagonal(x, offset=offset), axis=-1, dtype=dtype)


def vector_norm(x, /, *, axis=None, keepdims=False, ord=2):
    """Vector p-norm over ``axis`` (None: all elements); ``ord`` any number, ``inf``,
    ``-inf`` or 0 (the count of non-zeros).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.vector_norm(cnp.asarray([3.0, 4.0])).item()
    5.0
    """
    from ._statistical import sum as _sum, max as _max, min as _min
    x = _float(x)
    a = x.abs()
    if ord == math.inf:
        return _max(a, axis=axis, keepdims=keepdims)
    if ord == -math.inf:
        return _min(a, axis=axis, keepdims=keepdims)
    if ord == 0:
        return _sum((a != 0).to(a.dtype), axis=axis, keepdims=keepdims)
    if ord == 1:
        return _sum(a, axis=axis, keepdims=keepdims)
    if ord == 2:
        return cygrad.sqrt(_sum(_abs2(x), axis=axis, keepdims=keepdims))
    return _sum(a ** ord, axis=axis, keepdims=keepdims) ** (1.0 / ord)


def matrix_norm(x, /, *, keepdims=False, ord="fro"):
    """Matrix norm over the last two axes: ``"fro"``, ``"nuc"``, 1, -1, 2, -2, inf, -inf.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.matrix_norm(cnp.asarray([[1.0, -2.0], [3.0, 4.0]]), ord=1).item()
    6.0
    """
    from ._statistical import sum as _sum, max as _max, min as _min
    x = _float(x)
    if ord == "fro":
        res = cygrad.sqrt(_sum(_abs2(x), axis=(-2, -1)))
    elif ord == "nuc":
        res = _sum(svdvals(x), axis=-1)
    elif ord in (2, -2):
        s = svdvals(x)
        res = _max(s, axis=-1) if ord == 2 else _min(s, axis=-1)
    elif ord in (1, -1):
        cols = _sum(x.abs(), axis=-2)
        res = _max(cols, axis=-1) if ord == 1 else _min(cols, axis=-1)
    elif ord in (math.inf, -math.inf):
        rows = _sum(x.abs(), axis=-1)
        res = _max(rows, axis=-1) if ord > 0 else _min(rows, axis=-1)
    else:
        raise ValueError(f"invalid norm order {ord!r} for matrices")
    return res.unsqueeze(-1).unsqueeze(-1) if keepdims else res


def norm(x, ord=None, axis=None, keepdims=False):
    """NumPy's ``linalg.norm``: the 2-norm of the flattened array by default, a matrix
    norm when ``axis`` is a pair or ``x`` is 2-D with an ``ord`` given.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linalg.norm(cnp.asarray([[3.0, 0.0], [0.0, 4.0]])).item()
    5.0
    """
    x = _float(x)
    if axis is None and ord is None:
        res = vector_norm(x.reshape(-1))
        return res.reshape((1,) * x.dim()) if keepdims else res
    if axis is None:
        axis = tuple(range(x.dim())) if x.dim() <= 2 else None
    if isinstance(axis, int) or (isinstance(axis, tuple) and len(axis) == 1):
        return vector_norm(x, axis=axis, keepdims=keepdims, ord=2 if ord is None else ord)
    if len(axis) == 2:
        a0, a1 = (normalize_axis(a, x.dim()) for a in axis)
        moved = cygrad.movedim(x, (a0, a1), (-2, -1))
        res = matrix_norm(moved, ord="fro" if ord is None else ord)
        if keepdims:
            for a in sorted((a0, a1)):
                res = res.unsqueeze(a)
        return res
    raise ValueError("Improper number of dimensions to norm.")
