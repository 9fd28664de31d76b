"""The ``torch``-level linear-algebra functions (also ``Tensor`` methods where PyTorch
has them): ``det``, ``inverse``, ``slogdet``, ``logdet``, ``cholesky`` and its
``_inverse``/``_solve``, ``lu``/``lu_solve``/``lu_unpack``, ``qr`` and ``svd`` with
their ``some=`` semantics, ``pinverse``, ``matrix_power``, ``matrix_exp``,
``triangular_solve``, ``geqrf``/``orgqr``/``ormqr``, ``kron``, ``cross``, ``trace``,
``diag``/``diag_embed``/``diagflat``, ``block_diag``, ``chain_matmul``, ``cov``,
``corrcoef``, ``dist``, the norms, ``renorm``, ``vander`` and the randomized
``svd_lowrank``/``pca_lowrank``.

They are the ``cygrad.linalg`` functions under PyTorch's older names and argument
orders, or compositions of differentiable ops.  ``solve``, ``lstsq``, ``eig``,
``symeig`` and ``matrix_rank``, removed from PyTorch 2, raise its ``RuntimeError``
pointing to their ``linalg`` replacement.
"""
import builtins
import math
import numbers

import cygrad
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from .._argcheck import bool_arg, int_arg, number_arg
from ..reduction._common import _result_type
from . import linalg_api as LA
from . import matrix_functions as MF
from ._checks import check_kernel_dtype, check_matrix, check_tensor, tname
from .decompositions import _kernel, _mH, lu_unpacked
from .products import matmul

__all__ = ["det", "inverse", "slogdet", "logdet", "cholesky", "cholesky_inverse",
           "cholesky_solve", "lu", "lu_solve", "lu_unpack", "qr", "svd", "pinverse",
           "matrix_power", "matrix_exp", "solve", "lstsq", "eig", "symeig", "matrix_rank",
           "triangular_solve", "geqrf", "orgqr", "ormqr", "kron", "cross", "trace", "diag",
           "diag_embed", "diagflat", "block_diag", "chain_matmul", "cov", "corrcoef", "dist",
           "nuclear_norm", "frobenius_norm", "renorm", "renorm_", "vander", "svd_lowrank",
           "pca_lowrank"]

_SLOGDET = _result_type("slogdet", ("sign", "logabsdet"))
_QR = _result_type("qr", ("Q", "R"))
_SVD = _result_type("svd", ("U", "S", "V"))
_GEQRF = _result_type("geqrf", ("a", "tau"))
_TRIANGULAR_SOLVE = _result_type("triangular_solve", ("solution", "cloned_coefficient"))
_LU_UNPACK = _result_type("lu_unpack", ("P", "L", "U"))
_LU_WITH_INFO = _result_type("_lu_with_info", ("LU", "pivots", "info"))


# ----------------------------------------------------------------------- determinants

@tensor_method
def det(input):
    """Determinant (``cygrad.linalg.det``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]).det().item()
    -2.0
    """
    return LA.det(input)


@tensor_method
def slogdet(input):
    """``(sign, logabsdet)`` of the determinant (``cygrad.linalg.slogdet``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.slogdet(cygrad.tensor([[-2.0, 0.0], [0.0, 1.0]])).sign.item()
    -1.0
    """
    return _SLOGDET(*LA.slogdet(input))


@tensor_method
def logdet(input):
    """``log(det(input))``: NaN where a real determinant is negative, ``-inf`` where
    it is 0; ``log(sign) + logabsdet`` for complex input.

    Examples
    --------
    >>> import cygrad
    >>> round(cygrad.logdet(cygrad.tensor([[2.0, 0.0], [0.0, 3.0]])).item(), 6)
    1.791759
    """
    sign, logabs = LA.slogdet(input)
    if input.is_complex():
        return cygrad.log(sign) + logabs
    return cygrad.where(sign < 0, cygrad.full((), math.nan, dtype=logabs.dtype, device=logabs.device),
                        logabs)


@tensor_method
def inverse(input, *, out=None):
    """Inverse of a square matrix (``cygrad.linalg.inv``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[2.0, 0.0], [0.0, 4.0]]).inverse().tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    return LA.inv(input, out=out)


@tensor_method
def pinverse(input, rcond=1e-15):
    """Pseudo-inverse with singular values below ``rcond * max(S)`` dropped
    (``cygrad.linalg.pinv(input, rtol=rcond)``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[2.0, 0.0], [0.0, 0.0]]).pinverse().tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    return LA.pinv(input, rtol=rcond)


@tensor_method
def matrix_power(input, n):
    """``input`` to the integer power ``n`` (``cygrad.linalg.matrix_power``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[1, 1], [0, 1]]).matrix_power(2).tolist()
    [[1, 2], [0, 1]]
    """
    return MF.matrix_power(input, n)


@tensor_method
def matrix_exp(input):
    """Matrix exponential (``cygrad.linalg.matrix_exp``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 2).matrix_exp().tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return MF.matrix_exp(input)


# ----------------------------------------------------------------------- Cholesky

@tensor_method
def cholesky(input, upper=False, *, out=None):
    """Cholesky factor, lower or (``upper=True``) upper (``cygrad.linalg.cholesky``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[4.0, 2.0], [2.0, 2.0]]).cholesky().tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    check_matrix(input, "linalg.cholesky", argname="A", kernel="cholesky_cpu")
    return LA.cholesky(input, upper=upper, out=out)


def _tri_solve(a, b, upper, unit=False):
    return LA.solve_triangular(a, b, upper=upper, unitriangular=unit)


@tensor_method
def cholesky_inverse(input, upper=False, *, out=None):
    """The inverse of ``A = L L^H`` from its Cholesky factor ``L`` (``upper=True``:
    from ``U`` with ``A = U^H U``): ``L^-H L^-1``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cholesky_inverse(cygrad.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [[0.25, 0.0], [0.0, 1.0]]
    """
    check_matrix(input, "cholesky_inverse", square=True, argname="input",
                 kernel="cholesky_inverse_out_cpu")
    eye = cygrad.eye(input.shape[-1], dtype=input.dtype, device=input.device)
    x = _tri_solve(input, eye.expand(*input.shape), upper)     # L^-1 (or U^-1)
    res = (_mH(x) @ x) if not upper else (x @ _mH(x))
    return res if out is None else LA._out(res, out, "cholesky_inverse")


@tensor_method
def cholesky_solve(input, input2, upper=False, *, out=None):
    """The solution of ``A X = B`` (``B`` is ``input``) from ``A``'s Cholesky factor
    ``input2``: two triangular solves.

    Examples
    --------
    >>> import cygrad
    >>> l = cygrad.tensor([[2.0, 0.0], [1.0, 1.0]], dtype=cygrad.float64)
    >>> cygrad.cholesky_solve(cygrad.tensor([[6.0], [4.0]], dtype=cygrad.float64), l).tolist()
    [[1.0], [1.0]]
    """
    check_tensor(input, "cholesky_solve", "input")
    check_tensor(input2, "cholesky_solve", "input2", 2)
    upper = bool_arg(upper, "cholesky_solve", "upper", 3)
    if input.dim() < 2 or input2.dim() < 2:
        raise RuntimeError(f"b should have at least 2 dimensions, but has {input.dim()} dimensions "
                           f"instead" if input.dim() < 2 else
                           f"u should have at least 2 dimensions, but has {input2.dim()} "
                           f"dimensions instead")
    if input.dtype is not input2.dtype:
        raise RuntimeError(f"Expected b and A to have the same dtype, but found b of type "
                           f"{tname(input.dtype)} and A of type {tname(input2.dtype)} instead.")
    check_kernel_dtype(input, "cholesky_solve_cpu")
    if upper:
        y = _tri_solve(_mH(input2), input, False)
        x = _tri_solve(input2, y, True)
    else:
        y = _tri_solve(input2, input, False)
        x = _tri_solve(_mH(input2), y, True)
    return x if out is None else LA._out(x, out, "cholesky_solve")


# ----------------------------------------------------------------------- LU

@tensor_method
def lu(A, pivot=True, get_infos=False, out=None):
    """``(LU, pivots)`` of ``A`` (``cygrad.linalg.lu_factor``), and the ``info``
    tensor too with ``get_infos=True`` (then a singular ``A`` does not raise).

    Examples
    --------
    >>> import cygrad
    >>> lu, piv = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]).lu()
    >>> piv.tolist()
    [2, 2]
    """
    res = LA.lu_factor_ex(A, pivot=pivot, check_errors=not get_infos)
    return LA._outs(_LU_WITH_INFO(*res) if get_infos else (res.LU, res.pivots), out, "lu")


@tensor_method
def lu_solve(input, LU_data, LU_pivots, *, out=None):
    """The solution of ``A X = b`` (``b`` is ``input``) from ``A``'s LU factors
    (``cygrad.linalg.lu_solve(LU_data, LU_pivots, input)``).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=cygrad.float64)
    >>> x = cygrad.tensor([[5.0], [11.0]], dtype=cygrad.float64).lu_solve(*a.lu())
    >>> x.tolist()
    [[1.0], [2.0]]
    """
    return LA.lu_solve(LU_data, LU_pivots, input, out=out)


def lu_unpack(LU_data, LU_pivots, unpack_data=True, unpack_pivots=True, *, out=None):
    """``(P, L, U)`` from packed LU factors; an empty tensor for what is not unpacked.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> p, l, u = cygrad.lu_unpack(*cygrad.linalg.lu_factor(a))
    >>> p.tolist()
    [[0.0, 1.0], [1.0, 0.0]]
    """
    check_tensor(LU_data, "lu_unpack", "LU_data")
    m, n = LU_data.shape[-2:]
    empty = cygrad.empty(0, dtype=LU_data.dtype, device=LU_data.device)
    lower, upper = lu_unpacked(LU_data, m, n) if unpack_data else (empty, empty)
    p = LA._permutation_matrix(LU_pivots, m, LU_data.dtype) if unpack_pivots else empty
    return LA._outs(_LU_UNPACK(p, lower, upper), out, "lu_unpack")


# ----------------------------------------------------------------------- QR, SVD

@tensor_method
def qr(input, some=True, *, out=None):
    """``(Q, R)``: reduced with ``some=True``, complete otherwise
    (``cygrad.linalg.qr``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(3, 2).qr(some=False).Q.shape
    cygrad.Size([3, 3])
    """
    return LA._outs(_QR(*LA.qr(input, "reduced" if some else "complete")), out, "qr")


@tensor_method
def svd(input, some=True, compute_uv=True, *, out=None):
    """``(U, S, V)`` with ``input = U diag(S) V^H`` -- ``V``, not ``V^H`` as in
    ``cygrad.linalg.svd``; ``some=False`` gives square ``U`` and ``V``.  With
    ``compute_uv=False``, ``U`` and ``V`` are zero-filled (``m x m``, ``n x n``).

    Examples
    --------
    >>> import cygrad
    >>> u, s, v = cygrad.tensor([[3.0, 0.0], [0.0, -2.0]]).svd()
    >>> s.tolist()
    [3.0, 2.0]
    """
    check_matrix(input, "linalg.svd", argname="A", half_kernel="linalg_svd_cpu")
    if not compute_uv:
        m, n = input.shape[-2:]
        batch = tuple(input.shape[:-2])
        zeros = lambda k: cygrad.zeros(*(batch + (k, k)), dtype=input.dtype,   # noqa: E731
                                       device=input.device)
        return LA._outs(_SVD(zeros(m), LA.svdvals(input), zeros(n)), out, "svd")
    u, s, vh = LA.svd(input, full_matrices=not some)
    return LA._outs(_SVD(u, s, _mH(vh)), out, "svd")


# ----------------------------------------------------------------------- removed in PyTorch 2

def _removed(name, replacement):
    def removed(*args, **kwargs):
        raise RuntimeError(f"This function was deprecated since version 1.9 and is now removed. "
                           f"Use {replacement} instead.")
    removed.__name__ = removed.__qualname__ = name
    removed.__doc__ = f"""Removed from PyTorch 2: raises ``RuntimeError`` (as PyTorch does),
    naming the replacement, ``{replacement}``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.{name}(cygrad.eye(2))
    Traceback (most recent call last):
    ...
    RuntimeError: This function was deprecated since version 1.9 and is now removed. Use {replacement} instead.
    """
    return removed


solve = tensor_method(_removed("solve", "cygrad.linalg.solve(A, B)"), name="solve")
lstsq = tensor_method(_removed("lstsq", "cygrad.linalg.lstsq(A, B)"), name="lstsq")
eig = tensor_method(_removed("eig", "cygrad.linalg.eig(A)"), name="eig")
symeig = tensor_method(_removed("symeig", "cygrad.linalg.eigh(A, UPLO)"), name="symeig")
matrix_rank = _removed("matrix_rank", "cygrad.linalg.matrix_rank(A)")


# ----------------------------------------------------------------------- triangular, Householder

@tensor_method
def triangular_solve(b, A, upper=True, transpose=False, unitriangular=False, *, out=None):
    """``(solution, cloned_coefficient)``: the solution of ``A X = b`` (``A^T X = b``
    with ``transpose``) for triangular ``A``, and a copy of ``A``.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> cygrad.triangular_solve(cygrad.tensor([[4.0], [4.0]]), a).solution.tolist()
    [[1.5], [1.0]]
    """
    check_tensor(b, "triangular_solve", "input")
    check_tensor(A, "triangular_solve", "A", 2)
    for name, t in (("b", b), ("A", A)):
        if t.dim() < 2:
            raise RuntimeError(f"torch.triangular_solve: The input tensor {name} must have at "
                               f"least 2 dimensions.")
    a = A.mT if transpose else A
    up = builtins.bool(upper) != builtins.bool(transpose)
    x = LA.solve_triangular(a, b, upper=up, unitriangular=unitriangular)
    return LA._outs(_TRIANGULAR_SOLVE(x, A.clone()), out, "triangular_solve")


@tensor_method
def geqrf(input, *, out=None):
    """LAPACK's ``geqrf``: ``(a, tau)``, ``R`` on and above the diagonal of ``a``, the
    Householder vectors below it, their scales in ``tau`` (not differentiable, as in
    PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> a, tau = cygrad.tensor([[3.0, 1.0], [4.0, 2.0]], dtype=cygrad.float64).geqrf()
    >>> round(abs(a[0, 0].item()), 6)
    5.0
    """
    check_matrix(input, "torch.geqrf", argname="input", kernel="geqrf_cpu")
    return LA._outs(_GEQRF(*_kernel("linalg_geqrf", input)(input.detach())), out, "geqrf")


@tensor_method
def orgqr(input, tau):
    """``Q`` from :func:`geqrf`'s result (``cygrad.linalg.householder_product``).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[3.0, 1.0], [4.0, 2.0]], dtype=cygrad.float64)
    >>> q = cygrad.orgqr(*cygrad.geqrf(a))
    >>> (q @ q.mT - cygrad.eye(2, dtype=cygrad.float64)).abs().max().item() < 1e-12
    True
    """
    return MF.householder_product(input, tau)


@tensor_method
def ormqr(input, tau, other, left=True, transpose=False, *, out=None):
    """``other`` multiplied by the full ``Q`` (``m x m``) of :func:`geqrf`'s result:
    ``Q @ other`` (``left``) or ``other @ Q``, with ``Q^H`` if ``transpose``.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[3.0, 1.0], [4.0, 2.0]], dtype=cygrad.float64)
    >>> h, tau = cygrad.geqrf(a)
    >>> r = cygrad.ormqr(h, tau, a, transpose=True)        # Q^T A = R
    >>> abs(r[1, 0].item()) < 1e-12
    True
    """
    check_tensor(input, "ormqr", "input")
    m = input.shape[-2]
    pad = m - input.shape[-1]
    full = input
    if pad > 0:
        full = cygrad.cat([input, cygrad.zeros(*(tuple(input.shape[:-1]) + (pad,)),
                                               dtype=input.dtype, device=input.device)], dim=-1)
    q = MF.householder_product(full[..., :, :m], tau)
    if transpose:
        q = _mH(q)
    res = matmul(q, other) if left else matmul(other, q)
    return res if out is None else LA._out(res, out, "ormqr")


# ----------------------------------------------------------------------- products

@tensor_method
def kron(input, other, *, out=None):
    """Kronecker product: ``result[i * other.shape + j] = input[i] * other[j]`` over
    every dim (the shorter shape padded with leading ones).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.kron(cygrad.tensor([1, 2]), cygrad.tensor([1, 10])).tolist()
    [1, 10, 2, 20]
    """
    check_tensor(input, "kron", "input")
    check_tensor(other, "kron", "other", 2)
    nd = builtins.max(input.dim(), other.dim())
    sa = (1,) * (nd - input.dim()) + tuple(input.shape)
    sb = (1,) * (nd - other.dim()) + tuple(other.shape)
    a = input.reshape(*[x for s in sa for x in (s, 1)]) if nd else input
    b = other.reshape(*[x for s in sb for x in (1, s)]) if nd else other
    res = (a * b).reshape(*[x * y for x, y in zip(sa, sb)]) if nd else a * b
    return res if out is None else LA._out(res, out, "kron")


@tensor_method
def cross(input, other, dim=None, *, out=None):
    """Cross product of 3-vectors along ``dim`` (None: the first dim of size 3, as
    PyTorch's deprecated default).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cross(cygrad.tensor([1, 0, 0]), cygrad.tensor([0, 1, 0])).tolist()
    [0, 0, 1]
    """
    check_tensor(input, "cross", "input")
    check_tensor(other, "cross", "other", 2)
    if dim is None:
        shape = cygrad.broadcast_shapes(tuple(input.shape), tuple(other.shape))
        dim = next((i for i, s in enumerate(shape) if s == 3), None)
        if dim is None:
            raise RuntimeError(f"no dimension of size 3 in input")
    return MF.cross(input, other, dim=dim, out=out)


@tensor_method
def trace(input):
    """Sum of the main diagonal of a matrix (integers sum to int64).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[1, 2], [3, 4]]).trace().item()
    5
    """
    check_tensor(input, "trace", "input")
    if input.dim() != 2:
        raise RuntimeError(f"trace: expected a matrix, but got tensor with dim {input.dim()}")
    if input.dtype is cygrad.bool:
        raise NotImplementedError("\"trace\" not implemented for 'Bool'")
    return input.diagonal().sum()


@tensor_method
def diag_embed(input, offset=0, dim1=-2, dim2=-1):
    """A tensor whose ``offset``-th diagonals over ``dim1``, ``dim2`` hold the last dim
    of ``input``; zero elsewhere.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diag_embed(cygrad.tensor([1, 2])).tolist()
    [[1, 0], [0, 2]]
    """
    check_tensor(input, "diag_embed", "input")
    offset = int_arg(offset, "diag_embed", "offset", 2)
    dim1 = int_arg(dim1, "diag_embed", "dim1", 3)
    dim2 = int_arg(dim2, "diag_embed", "dim2", 4)
    nd = input.dim() + 1
    d1 = dim1 % nd if -nd <= dim1 < nd else None
    d2 = dim2 % nd if -nd <= dim2 < nd else None
    if d1 is None or d2 is None:
        bad = dim1 if d1 is None else dim2
        raise IndexError(f"Dimension out of range (expected to be in range of [{-nd}, {nd - 1}], "
                         f"but got {bad})")
    if d1 == d2:
        raise RuntimeError(f"diagonal dimensions cannot be identical {dim1}, {dim2}")
    n = input.shape[-1] + builtins.abs(offset) if input.dim() else 1 + builtins.abs(offset)
    shape = list(input.shape[:-1])
    for d in sorted((d1, d2)):
        shape.insert(d, n)
    res = cygrad.zeros(*shape, dtype=input.dtype, device=input.device)
    res.diagonal(offset, d1, d2).copy_(input)
    return res


@tensor_method
def diag(input, diagonal=0, *, out=None):
    """A 1-D ``input`` as the ``diagonal``-th diagonal of a square matrix; the
    ``diagonal``-th diagonal of a 2-D ``input`` (a copy).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diag(cygrad.tensor([1, 2]), 1).tolist()
    [[0, 1, 0], [0, 0, 2], [0, 0, 0]]
    >>> cygrad.diag(cygrad.tensor([[1, 2], [3, 4]])).tolist()
    [1, 4]
    """
    check_tensor(input, "diag", "input")
    diagonal = int_arg(diagonal, "diag", "diagonal", 2)
    if input.dim() == 1:
        res = diag_embed(input, diagonal)
    elif input.dim() == 2:
        res = input.diagonal(diagonal).clone()
    else:
        raise RuntimeError("diag(): Supports 1D or 2D tensors. Got " + f"{input.dim()}D")
    return res if out is None else LA._out(res, out, "diag")


@tensor_method
def diagflat(input, offset=0):
    """``input`` flattened, as the ``offset``-th diagonal of a square matrix.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diagflat(cygrad.tensor([[1, 2]])).tolist()
    [[1, 0], [0, 2]]
    """
    check_tensor(input, "diagflat", "input")
    offset = int_arg(offset, "diagflat", "offset", 2)
    return diag_embed(input.reshape(-1), offset)


def block_diag(*tensors):
    """The block-diagonal matrix of the given tensors (0-d: a 1x1 block, 1-D: a row);
    dtypes promoted.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.block_diag(cygrad.tensor([[1, 2]]), cygrad.tensor(3)).tolist()
    [[1, 2, 0], [0, 0, 3]]
    """
    mats = []
    for i, t in enumerate(tensors):
        check_tensor(t, "block_diag", "tensors", i + 1)
        if t.dim() > 2:
            raise RuntimeError(f"torch.block_diag: Input tensors must have 2 or fewer "
                               f"dimensions. Input {i} has {t.dim()} dimensions")
        mats.append(t.reshape(1, 1) if t.dim() == 0 else t.reshape(1, -1) if t.dim() == 1 else t)
    dtype = cygrad.result_type(*tensors) if tensors else cygrad.get_default_dtype()
    if not mats:
        return cygrad.zeros(1, 0, dtype=dtype)          # (PyTorch's shape for no blocks)
    rows = builtins.sum(m.shape[0] for m in mats)
    cols = builtins.sum(m.shape[1] for m in mats)
    res = cygrad.zeros(rows, cols, dtype=dtype, device=tensors[0].device)
    r = c = 0
    for m in mats:
        res[r:r + m.shape[0], c:c + m.shape[1]] = m.to(dtype)
        r, c = r + m.shape[0], c + m.shape[1]
    return res


def chain_matmul(*matrices, out=None):
    """The product of the matrices, in the cheapest order (deprecated in PyTorch for
    ``cygrad.linalg.multi_dot``); one matrix is returned as a copy.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.chain_matmul(cygrad.ones(2, 3), cygrad.ones(3, 4), cygrad.ones(4, 1)).tolist()
    [[12.0], [12.0]]
    """
    if not matrices:
        raise RuntimeError("chain_matmul(): Expected one or more matrices")
    for i, m in enumerate(matrices):
        check_tensor(m, "chain_matmul", "matrices", i + 1)
        if m.dim() != 2:
            raise RuntimeError(f"Tensor dimension is {m.dim()}, expected 2 instead.")
    if len(matrices) == 1:
        return matrices[0].clone()
    return MF.multi_dot(matrices, out=out)


# ----------------------------------------------------------------------- statistics

@tensor_method
def cov(input, *, correction=1, fweights=None, aweights=None):
    """Covariance matrix of the variables in the rows of ``input`` (observations in
    columns), with integer frequency weights ``fweights``, observation weights
    ``aweights`` and the ``correction`` (1: unbiased).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cov(cygrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    check_tensor(input, "cov", "input")
    correction = int_arg(correction, "cov", "correction")
    for name, w in (("fweights", fweights), ("aweights", aweights)):
        if w is not None:
            check_tensor(w, "cov", name)
            if w.numel() and builtins.bool((w < 0).any()):
                raise RuntimeError(f"cov(): {name} cannot be negative")
    if input.dim() > 2:
        raise RuntimeError(f"cov(): expected input to have two or fewer dimensions but got an "
                           f"input with {input.dim()} dimensions")
    if input.dtype is cygrad.bool:
        raise RuntimeError("cov(): bool dtype is not supported for input")
    x = input.reshape(1, -1) if input.dim() < 2 else input
    if aweights is not None and isinstance(aweights, TensorBase):
        x = x.to(cygrad.result_type(x, aweights))    # (int8 data, float16 weights: float16)
    if not (x.dtype.is_floating_point or x.is_complex()):
        x = x.to(cygrad.get_default_dtype())
    n = x.shape[1]
    w = None
    if fweights is not None:
        if fweights.dim() > 1 or fweights.numel() != n:
            raise RuntimeError(f"cov(): expected fweights to have one dimension and size {n}")
        if fweights.dtype.is_floating_point or fweights.is_complex():
            raise RuntimeError("cov(): expected fweights to have integral dtype but got "
                               f"fweights with {tname(fweights.dtype)} dtype")
        w = fweights
    if aweights is not None:
        if aweights.dim() > 1 or aweights.numel() != n:
            raise RuntimeError(f"cov(): expected aweights to have one dimension and size {n}")
        if not aweights.dtype.is_floating_point:
            raise RuntimeError("cov(): expected aweights to have floating point dtype but got "
                               f"aweights with {tname(aweights.dtype)} dtype")
        w = aweights if w is None else w * aweights
    if w is None:
        avg = x.mean(dim=1)
        w_sum = n
        norm = n - correction
    else:
        w = w.to(x.dtype) if not x.is_complex() else w
        w_sum = w.sum()
        avg = (x * w).sum(dim=1) / w_sum
        if correction == 0:
            norm = w_sum
        elif aweights is None:
            norm = w_sum - correction
        else:
            norm = w_sum - correction * (w * aweights).sum() / w_sum
    if isinstance(norm, numbers.Number):
        norm = builtins.max(norm, 0)
    else:
        norm = cygrad.clamp(norm, min=0)
    xm = x - avg.unsqueeze(1)
    xw = xm if w is None else xm * w
    c = matmul(xm, _mH(xw)) / norm
    return c.squeeze()


@tensor_method
def corrcoef(input):
    """Pearson correlation coefficients of the rows of ``input`` (clipped to
    ``[-1, 1]``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.corrcoef(cygrad.tensor([[0.0, 1.0, 2.0], [2.0, 1.0, 0.0]])).tolist()
    [[1.0, -1.0], [-1.0, 1.0]]
    """
    c = cov(input)
    if c.dim() == 0:
        return c / c
    d = c.diagonal()
    std = cygrad.sqrt(d.real if c.is_complex() else d)
    c = c / std.unsqueeze(1) / std.unsqueeze(0)
    if c.is_complex():
        return cygrad.complex(cygrad.clamp(c.real, -1, 1), cygrad.clamp(c.imag, -1, 1))
    return cygrad.clamp(c, -1, 1)


# ----------------------------------------------------------------------- norms

@tensor_method
def dist(input, other, p=2):
    """The ``p``-norm of ``input - other`` (broadcast).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.dist(cygrad.tensor([0.0, 3.0]), cygrad.tensor([4.0, 0.0])).item()
    5.0
    """
    check_tensor(input, "dist", "input")
    check_tensor(other, "dist", "other", 2)
    p = number_arg(p, "dist", "p", 3)
    return MF.vector_norm(input - other, p)


def nuclear_norm(input, dim=None, keepdim=False, *, out=None):
    """Sum of the singular values over ``dim`` (a pair; default: a 2-D input's two).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nuclear_norm(cygrad.tensor([[3.0, 0.0], [0.0, -2.0]])).item()
    5.0
    """
    if isinstance(dim, builtins.bool):
        dim, keepdim = None, dim                   # nuclear_norm(input, keepdim)
    if dim is None:
        check_tensor(input, "nuclear_norm", "input")
        if input.dim() != 2:
            raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got "
                               f"{' '.join(str(d) for d in range(input.dim()))}")
        dim = (0, 1)
    return MF.matrix_norm(input, "nuc", tuple(dim), keepdim, out=out)


def frobenius_norm(input, dim, keepdim=False, *, out=None):
    """The 2-norm of the elements over ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.frobenius_norm(cygrad.tensor([[3.0, 0.0], [0.0, 4.0]]), (0, 1)).item()
    5.0
    """
    return MF.vector_norm(input, 2, dim, keepdim, out=out)


def _renorm_factor(input, p, dim, maxnorm):
    check_tensor(input, "renorm", "input")
    p = number_arg(p, "renorm", "p", 2)
    dim = int_arg(dim, "renorm", "dim", 3)
    maxnorm = number_arg(maxnorm, "renorm", "maxnorm", 4)
    if p <= 0:
        raise RuntimeError(f"renorm: non-positive-norm not supported")
    if maxnorm < 0:
        raise RuntimeError(f"renorm: expected maxnorm to be >= 0 but got {maxnorm}")
    if input.dim() < 2:
        raise RuntimeError(f"renorm: input needs at least 2 dimensions, got {input.dim()} "
                           f"dimensions")
    if not -input.dim() <= dim < input.dim():
        raise IndexError(f"Dimension out of range (expected to be in range of "
                         f"[{-input.dim()}, {input.dim() - 1}], but got {dim})")
    d = dim % input.dim()
    others = [i for i in range(input.dim()) if i != d]
    norms = MF.vector_norm(input, p, others, keepdim=True)
    # (PyTorch's 1e-7 keeps the scaled norms just under maxnorm)
    return cygrad.where(norms > maxnorm, maxnorm / (norms + 1e-7), cygrad.ones_like(norms))


@tensor_method
def renorm(input, p, dim, maxnorm, *, out=None):
    """``input`` with each slice along ``dim`` whose ``p``-norm exceeds ``maxnorm``
    scaled down to norm ``maxnorm``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[3.0, 4.0], [0.3, 0.4]])
    >>> [round(v, 4) for v in cygrad.renorm(x, 2, 0, 1.0).reshape(-1).tolist()]
    [0.6, 0.8, 0.3, 0.4]
    """
    res = input * _renorm_factor(input, p, dim, maxnorm)
    return res if out is None else LA._out(res, out, "renorm")


@tensor_method
def renorm_(input, p, dim, maxnorm):
    """In-place :func:`renorm`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[3.0, 4.0]]).renorm_(2, 0, 1.0).tolist()
    [[0.6000000238418579, 0.800000011920929]]
    """
    # the scale is computed from a copy: the norm saves it, and input is overwritten
    return input.mul_(_renorm_factor(input.clone(), p, dim, maxnorm))


def vander(x, N=None, increasing=False):
    """Vandermonde matrix of a 1-D ``x``: powers ``N-1 .. 0`` (``increasing``: ``0 ..
    N-1``) in the columns.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.vander(cygrad.tensor([1, 2, 3]), N=3).tolist()
    [[1, 1, 1], [4, 2, 1], [9, 3, 1]]
    """
    check_tensor(x, "vander", "x")
    if x.dim() != 1:
        raise RuntimeError("x must be a one-dimensional tensor.")
    if N is not None and N < 0:
        raise RuntimeError("N must be non-negative.")
    res = MF._vander(x, N)
    return res if increasing else res.flip(-1)


# ----------------------------------------------------------------------- randomized SVD

def _approximate_basis(A, q, niter, M=None):
    """An orthonormal ``Q`` (``m x q``) whose range approximates ``A``'s (Halko,
    Martinsson and Tropp 2011, algorithm 4.4: subspace iteration)."""
    r = cygrad.randn(A.shape[-1], q, dtype=A.dtype, device=A.device)
    x = matmul(A, r) if M is None else matmul(A, r) - matmul(M, r)
    qm = LA.qr(x).Q
    for _ in range(niter):
        x = matmul(_mH(A), qm) if M is None else matmul(_mH(A), qm) - matmul(_mH(M), qm)
        qm = LA.qr(x).Q
        x = matmul(A, qm) if M is None else matmul(A, qm) - matmul(M, qm)
        qm = LA.qr(x).Q
    return qm


def svd_lowrank(A, q=6, niter=2, M=None):
    """A rank-``q`` SVD ``(U, S, V)`` of ``A`` (of ``A - M``) by randomized subspace
    iteration with ``niter`` power steps: exact (up to signs) when the rank is at
    most ``q``.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.outer(cygrad.arange(1.0, 5.0), cygrad.arange(1.0, 4.0))   # rank 1
    >>> u, s, v = cygrad.svd_lowrank(a, q=2)
    >>> round(s[0].item(), 4), s.shape
    (20.4939, cygrad.Size([2]))
    """
    check_tensor(A, "svd_lowrank", "A")
    q = 6 if q is None else q
    m, n = A.shape[-2:]
    if m < n:
        u, s, v = svd_lowrank(_mH(A), q, niter, None if M is None else _mH(M))
        return v, s, u
    qm = _approximate_basis(A, q, 2 if niter is None else niter, M)
    b = matmul(_mH(qm), A) if M is None else matmul(_mH(qm), A - M)
    u, s, vh = LA.svd(b, full_matrices=False)
    return matmul(qm, u), s, _mH(vh)


def pca_lowrank(A, q=None, center=True, niter=2):
    """Principal components of the rows of ``A``: :func:`svd_lowrank` of ``A`` minus
    its column means (``center``), ``q`` default ``min(6, m, n)``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 1.0], [2.0, 2.0], [3.0, 3.0]])
    >>> u, s, v = cygrad.pca_lowrank(x, q=1)
    >>> round(s[0].item(), 6)
    2.0
    """
    check_tensor(A, "pca_lowrank", "A")
    m, n = A.shape[-2:]
    q = builtins.min(6, m, n) if q is None else q
    if not 0 <= q <= builtins.min(m, n):
        raise ValueError(f"q(={q}) must be non-negative integer and not greater than "
                         f"min(m, n)={builtins.min(m, n)}")
    if center:
        A = A - A.mean(dim=-2, keepdim=True)
    return svd_lowrank(A, q, niter)
