"""``cygrad.linalg``'s factorizations, inverses and solvers, with ``torch.linalg``'s
names, signatures, result tuples and errors.

Each computes through the Functions of :mod:`.decompositions` (one LAPACK kernel
forward, PyTorch's gradient formulas backward and in forward mode) or is composed
from them and other differentiable ops, so every result is differentiable.  Inputs
are batches of matrices (any leading dims); float32, float64, complex64 and
complex128 are accepted, other dtypes raise PyTorch's errors.  A singular or non
positive-definite input raises :class:`LinAlgError`, a ``RuntimeError``.
"""
import builtins
import math

import cygrad
from ..._core.linalg_error import LinAlgError
from ..._core.tensor import TensorBase
from ._checks import (CHOLESKY_EX, EIG, EIGH, INV_EX, LDL_FACTOR, LDL_FACTOR_EX, LSTSQ, LU,
                      LU_FACTOR, LU_FACTOR_EX, QR, SLOGDET, SOLVE_EX, SVD, broadcast_batch,
                      check_matrix, check_same_dtype, check_tensor)
from ._common import _into_out
from .decompositions import (Cholesky, Det, Eig, Eigh, Inv, LuFactor, Qr, Slogdet, Solve,
                             SolveTriangular, Svd, _diag_embed, _kernel, _mH, lu_unpacked,
                             permutation_from_pivots)

__all__ = ["LinAlgError", "cholesky", "cholesky_ex", "det", "eig", "eigh", "eigvals", "eigvalsh",
           "inv", "inv_ex", "ldl_factor", "ldl_factor_ex", "ldl_solve", "lstsq", "lu",
           "lu_factor", "lu_factor_ex", "lu_solve", "pinv", "qr", "slogdet", "solve", "solve_ex",
           "solve_triangular", "svd", "svdvals", "matrix_rank", "tensorinv", "tensorsolve"]


def _out(res, out, name):
    return res if out is None else _into_out(out, res, name)


def _outs(res, out, name):
    """A result tuple written into the tuple of tensors ``out`` (PyTorch's ``out=``
    of the functions with several results), as the same kind of named tuple."""
    if out is None:
        return res
    if len(out) != len(res):
        raise TypeError(f"{name}(): argument 'out' must be tuple of {len(res)} Tensors")
    values = [_into_out(o, r, name) for o, r in zip(out, res)]
    return tuple(values) if type(res) is tuple else type(res)(*values)


def _raise_info(info, name):
    """``*_ex``'s ``check_errors=True``: PyTorch raises for the first failing matrix."""
    if builtins.bool((info != 0).any()):
        raise LinAlgError(f"{name}: The factorization could not be completed "
                          f"(info = {info.reshape(-1)[(info.reshape(-1) != 0).nonzero()[0]].item()})")


# ----------------------------------------------------------------------- inverses

def inv(A, *, out=None):
    """Inverse of a square matrix (or of each matrix of a batch).

    Raises :class:`LinAlgError` when a matrix is singular.  Gradient:
    ``-A^-H G A^-H``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.inv(cygrad.tensor([[2.0, 0.0], [0.0, 4.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.25]]
    """
    check_matrix(A, "linalg.inv", square=True)
    return _out(Inv.apply(A), out, "linalg_inv")


def inv_ex(A, *, check_errors=False, out=None):
    """``(inverse, info)``: the inverse and LAPACK's ``info`` per matrix (0, or the
    1-based index of the zero pivot of a singular matrix, whose inverse is then not
    meaningful); raises only if ``check_errors``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.inv_ex(cygrad.zeros(2, 2)).info.item()
    1
    """
    check_matrix(A, "linalg.inv_ex", square=True)
    info = _kernel("linalg_inv_ex", A)(A.detach(), builtins.bool(check_errors),
                                       "linalg.inv_ex")[1]
    if builtins.bool((info == 0).all()):
        return _outs(INV_EX(Inv.apply(A), info), out, "linalg_inv_ex")
    return _outs(INV_EX(_kernel("linalg_inv_ex", A)(A.detach(), False)[0], info), out,
                 "linalg_inv_ex")


def det(A, *, out=None):
    """Determinant of a square matrix (or of each matrix of a batch); 0 for a
    singular matrix, whose gradient is then the adjugate's (from the SVD).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.det(cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])).item()
    -2.0
    """
    check_matrix(A, "linalg.det", square=True, half_kernel="lu_cpu")
    return _out(Det.apply(A), out, "linalg_det")


def slogdet(A, *, out=None):
    """``(sign, logabsdet)`` of the determinant (sign is 0 and logabsdet ``-inf``
    for a singular matrix; for complex ``A`` the sign is a unit complex number).

    Examples
    --------
    >>> import cygrad
    >>> s = cygrad.linalg.slogdet(cygrad.tensor([[-2.0, 0.0], [0.0, 1.0]]))
    >>> s.sign.item(), round(s.logabsdet.item(), 6)
    (-1.0, 0.693147)
    """
    check_matrix(A, "linalg.slogdet", square=True)
    return _outs(SLOGDET(*Slogdet.apply(A)), out, "linalg_slogdet")


# ----------------------------------------------------------------------- Cholesky

def cholesky(A, *, upper=False, out=None):
    """Cholesky factor ``L`` (``A = L L^H``, only the lower triangle of ``A`` is
    read), or ``U = L^H`` with ``upper=True``.  Raises :class:`LinAlgError` when
    ``A`` is not positive-definite.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.cholesky(cygrad.tensor([[4.0, 2.0], [2.0, 2.0]])).tolist()
    [[2.0, 0.0], [1.0, 1.0]]
    """
    check_matrix(A, "linalg.cholesky", square=True, half_kernel="cholesky_cpu")
    lower = Cholesky.apply(_mH(A) if upper else A)
    return _out(_mH(lower) if upper else lower, out, "linalg_cholesky")


def cholesky_ex(A, *, upper=False, check_errors=False, out=None):
    """``(L, info)``: the Cholesky factor and LAPACK's ``info`` per matrix (0, or the
    order of the first leading minor that is not positive-definite); raises only if
    ``check_errors``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.cholesky_ex(-cygrad.eye(2)).info.item()
    1
    """
    check_matrix(A, "linalg.cholesky_ex", square=True, half_kernel="cholesky_cpu")
    src = _mH(A) if upper else A
    lower, info = _kernel("linalg_cholesky_ex", src)(src.detach(), builtins.bool(check_errors),
                                                     "linalg.cholesky_ex")
    if builtins.bool((info == 0).all()):
        lower = Cholesky.apply(src)
    return _outs(CHOLESKY_EX(_mH(lower) if upper else lower, info), out, "linalg_cholesky_ex")


# ----------------------------------------------------------------------- eigen

def _uplo(UPLO):
    if UPLO not in ("L", "U"):
        raise RuntimeError(f"Expected UPLO argument to be 'L' or 'U', but got {UPLO}")
    return UPLO


def eigh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending, real) and orthonormal eigenvectors of a Hermitian
    matrix, reading its lower (``UPLO="L"``) or upper triangle.

    Eigenvectors are unique up to sign (a phase, for complex ``A``): a loss that
    depends on that choice has no gradient, and PyTorch's check refuses it for
    complex inputs.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.eigh(cygrad.tensor([[2.0, 1.0], [1.0, 2.0]])).eigenvalues.tolist()
    [1.0, 3.0]
    """
    check_matrix(A, "linalg.eigh", square=True, kernel="linalg_eigh_cpu")
    return _outs(EIGH(*Eigh.apply(A, _uplo(UPLO))), out, "linalg_eigh")


def eigvalsh(A, UPLO="L", *, out=None):
    """Eigenvalues (ascending) of a Hermitian matrix.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.eigvalsh(cygrad.tensor([[2.0, 0.0], [0.0, 1.0]])).tolist()
    [1.0, 2.0]
    """
    check_matrix(A, "linalg.eigvalsh", square=True, kernel="linalg_eigh_cpu")
    return _out(Eigh.apply(A, _uplo(UPLO))[0], out, "linalg_eigvalsh")


def eig(A, *, out=None):
    """Eigenvalues and eigenvectors (unit norm, complex) of a general square matrix.

    Examples
    --------
    >>> import cygrad
    >>> w, v = cygrad.linalg.eig(cygrad.tensor([[2.0, 0.0], [0.0, 3.0]]))
    >>> w.tolist()
    [(2+0j), (3+0j)]
    """
    check_matrix(A, "linalg.eig", square=True, half_kernel="linalg_eig_out_cpu")
    return _outs(EIG(*Eig.apply(A)), out, "linalg_eig")


def eigvals(A, *, out=None):
    """Eigenvalues (complex) of a general square matrix.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.eigvals(cygrad.tensor([[0.0, -1.0], [1.0, 0.0]])).tolist()
    [1j, -1j]
    """
    check_matrix(A, "linalg.eigvals", square=True, half_kernel="linalg_eig_out_cpu")
    return _out(Eig.apply(A)[0], out, "linalg_eigvals")


# ----------------------------------------------------------------------- SVD, QR

def svd(A, full_matrices=True, *, driver=None, out=None):
    """``(U, S, Vh)`` with ``A = U diag(S) Vh``, ``S`` descending.

    ``full_matrices=False`` gives the reduced factors; gradients need them (or a
    square ``A``), as in PyTorch.  ``driver`` is accepted for compatibility (it only
    selects a CUDA solver in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.svd(cygrad.tensor([[3.0, 0.0], [0.0, -2.0]])).S.tolist()
    [3.0, 2.0]
    """
    check_matrix(A, "linalg.svd", half_kernel="linalg_svd_cpu")
    return _outs(SVD(*Svd.apply(A, builtins.bool(full_matrices))), out, "linalg_svd")


def svdvals(A, *, driver=None, out=None):
    """Singular values, descending.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.svdvals(cygrad.tensor([[0.0, 2.0], [1.0, 0.0]])).tolist()
    [2.0, 1.0]
    """
    check_matrix(A, "linalg.svdvals", half_kernel="linalg_svd_cpu")
    return _out(Svd.apply(A, False)[1], out, "linalg_svdvals")


def qr(A, mode="reduced", *, out=None):
    """``(Q, R)`` with ``A = Q R``: ``mode="reduced"`` (``Q`` is ``m x k``),
    ``"complete"`` (``m x m``) or ``"r"`` (``Q`` empty).

    Examples
    --------
    >>> import cygrad
    >>> q, r = cygrad.linalg.qr(cygrad.tensor([[3.0, 0.0], [4.0, 5.0]]))
    >>> [round(v, 6) for v in r.diagonal().abs().tolist()]
    [5.0, 3.0]
    """
    check_matrix(A, "linalg.qr", half_kernel="geqrf_cpu")
    if mode not in ("reduced", "complete", "r"):
        raise RuntimeError(f"qr received unrecognized mode '{mode}' but expected one of "
                           f"'reduced' (default), 'r', or 'complete'")
    q, r = Qr.apply(A, "complete" if mode == "complete" else "reduced")
    if mode == "r":
        q = cygrad.empty(0, dtype=A.dtype, device=A.device)
    return _outs(QR(q, r), out, "linalg_qr")


# ----------------------------------------------------------------------- solvers

def _is_vector_rhs(A, B):
    """PyTorch's rule: ``B`` is a (batch of) vector(s) when it is 1-D, or has one dim
    fewer than ``A`` with ``A``'s shape minus the last dim."""
    return B.dim() == 1 or (B.dim() == A.dim() - 1 and tuple(B.shape) == tuple(A.shape[:-1]))


def _solve_checked(A, B, left, name):
    check_matrix(A, name, square=True, half_kernel="lu_cpu")
    check_tensor(B, name.replace(".", "_"), "B", 2)
    check_same_dtype(A, B, name)
    vector = _is_vector_rhs(A, B)
    b = B.unsqueeze(-1) if vector else B
    if not left:
        A, b = A.mT, b.mT
    if b.dim() < 2 or b.shape[-2] != A.shape[-1]:
        shown = (b.shape[-2] if b.dim() >= 2 else b.shape[-1]), (b.shape[-1] if b.dim() >= 2 else 1)
        raise RuntimeError(f"{name}: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({A.shape[-2]}x{A.shape[-1]} and "
                           f"{shown[0]}x{shown[1]})")
    a, b = broadcast_batch(A, b)
    return a, b, vector


def _solve_result(x, left, vector):
    if not left:
        x = x.mT
    return x.squeeze(-1) if vector else x


def solve(A, B, *, left=True, out=None):
    """The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``) for square,
    invertible ``A``; batch dims broadcast.  ``B`` is a vector (or a batch of them)
    when it is 1-D or has ``A``'s shape without its last dim.

    Raises :class:`LinAlgError` when ``A`` is singular.  Gradients:
    ``grad_B = A^-H G``, ``grad_A = -grad_B X^H``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.solve(cygrad.tensor([[2.0, 0.0], [0.0, 4.0]]), cygrad.tensor([2.0, 2.0])).tolist()
    [1.0, 0.5]
    """
    a, b, vector = _solve_checked(A, B, left, "linalg.solve")
    return _out(_solve_result(Solve.apply(a, b), left, vector), out, "linalg_solve")


def solve_ex(A, B, *, left=True, check_errors=False, out=None):
    """``(result, info)``: :func:`solve` and LAPACK's ``info`` per matrix; raises
    only if ``check_errors``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.solve_ex(cygrad.eye(2), cygrad.ones(2)).info.item()
    0
    """
    a, b, vector = _solve_checked(A, B, left, "linalg.solve_ex")
    x, info = _kernel("linalg_solve_ex", a)(a.detach(), b.detach(), builtins.bool(check_errors),
                                            "torch.linalg.solve_ex")
    if builtins.bool((info == 0).all()):
        x = Solve.apply(a, b)
    return _outs(SOLVE_EX(_solve_result(x, left, vector), info), out, "linalg_solve_ex")


def solve_triangular(A, B, *, upper, left=True, unitriangular=False, out=None):
    """The solution ``X`` of ``A X = B`` (``left=False``: ``X A = B``) for triangular
    ``A``: only its upper (``upper=True``) or lower triangle is read, and its diagonal
    is taken as ones with ``unitriangular``.  A zero on the diagonal gives
    infinities or NaNs (no error), as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[2.0, 1.0], [0.0, 4.0]])
    >>> cygrad.linalg.solve_triangular(a, cygrad.tensor([[4.0], [4.0]]), upper=True).tolist()
    [[1.5], [1.0]]
    """
    check_matrix(A, "linalg.solve_triangular", square=True, kernel="triangular_solve_cpu")
    check_tensor(B, "linalg_solve_triangular", "B", 2)
    check_matrix(B, "linalg.solve_triangular", argname="B", kernel="triangular_solve_cpu")
    check_same_dtype(A, B, "linalg.solve_triangular")
    a, b = (A, B) if left else (A.mT, B.mT)
    up = builtins.bool(upper) if left else not upper
    if b.shape[-2] != a.shape[-1]:
        raise RuntimeError(f"linalg.solve_triangular: Incompatible shapes of A and B for the "
                           f"equation {'AX = B' if left else 'XA = B'} ({A.shape[-2]}x"
                           f"{A.shape[-1]} and {B.shape[-2]}x{B.shape[-1]})")
    a, b = broadcast_batch(a, b)
    x = SolveTriangular.apply(a, b, up, builtins.bool(unitriangular))
    return _out(x if left else x.mT, out, "linalg_solve_triangular")


# ----------------------------------------------------------------------- LU

def lu_factor_ex(A, *, pivot=True, check_errors=False, out=None):
    """``(LU, pivots, info)``: LAPACK's ``getrf`` with partial pivoting: ``L`` (unit
    diagonal) and ``U`` packed in one matrix, the 1-based row interchanges (int32)
    and ``info`` (0, or the 1-based index of the first zero pivot of ``U``).

    Examples
    --------
    >>> import cygrad
    >>> lu, piv, info = cygrad.linalg.lu_factor_ex(cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> piv.tolist(), info.item()
    ([2, 2], 0)
    """
    check_matrix(A, "linalg.lu_factor_ex", kernel="lu_cpu")
    if not pivot:
        raise RuntimeError("linalg.lu_factor: LU without pivoting is not implemented on the CPU")
    lu, piv, info = LuFactor.apply(A)
    if check_errors:
        _raise_zero_pivot(info, "torch.linalg.lu_factor_ex")
    return _outs(LU_FACTOR_EX(lu, piv, info), out, "linalg_lu_factor_ex")


def _raise_zero_pivot(info, name):
    """PyTorch's RuntimeError (not a LinAlgError) for LU factors with a zero pivot."""
    if builtins.bool((info != 0).any()):
        k = info.reshape(-1)[(info.reshape(-1) != 0).nonzero()[0]].item()
        raise RuntimeError(f"{name}: U[{k},{k}] is zero and using it on lu_solve would result "
                           f"in a division by zero. If you still want to perform the "
                           f"factorization, consider calling linalg.lu(A, pivot) or "
                           f"linalg.lu_factor_ex(A, pivot)")


def lu_factor(A, *, pivot=True, out=None):
    """``(LU, pivots)`` of :func:`lu_factor_ex`; raises ``RuntimeError`` for a
    singular matrix (its ``U`` would divide by zero in :func:`lu_solve`), as PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> lu, piv = cygrad.linalg.lu_factor(cygrad.tensor([[1.0, 2.0], [3.0, 4.0]]))
    >>> lu.tolist()
    [[3.0, 4.0], [0.3333333432674408, 0.6666666269302368]]
    """
    check_matrix(A, "linalg.lu_factor", kernel="lu_cpu")
    lu, piv, info = lu_factor_ex(A, pivot=pivot)
    _raise_zero_pivot(info, "torch.linalg.lu_factor")
    return _outs(LU_FACTOR(lu, piv), out, "linalg_lu_factor")


def lu(A, *, pivot=True, out=None):
    """``(P, L, U)`` with ``A = P L U``: ``P`` a permutation matrix, ``L`` unit lower
    triangular (``m x k``), ``U`` upper triangular (``k x n``).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])
    >>> p, l, u = cygrad.linalg.lu(a)
    >>> (p @ l @ u - a).abs().max().item() < 1e-6
    True
    """
    check_matrix(A, "linalg.lu", kernel="lu_cpu")
    lu_, piv, _ = lu_factor_ex(A, pivot=pivot)
    m, n = A.shape[-2:]
    lower, upper = lu_unpacked(lu_, m, n)
    return _outs(LU(_permutation_matrix(piv, m, A.dtype), lower, upper), out, "linalg_lu")


def _permutation_matrix(pivots, m, dtype):
    """``P`` of ``A = P L U`` from getrf's pivots: ``P^T`` has rows ``e_perm[i]``."""
    perm = permutation_from_pivots(pivots, m)
    return cygrad.eye(m, dtype=dtype, device=pivots.device)[perm].mT


def lu_solve(LU, pivots, B, *, left=True, adjoint=False, out=None):
    """The solution of ``A X = B`` from ``A``'s :func:`lu_factor` (``left=False``:
    ``X A = B``; ``adjoint=True``: with ``A^H``), by two triangular solves.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=cygrad.float64)
    >>> lu, piv = cygrad.linalg.lu_factor(a)
    >>> cygrad.linalg.lu_solve(lu, piv, cygrad.tensor([[5.0], [11.0]], dtype=cygrad.float64)).tolist()
    [[1.0], [2.0]]
    """
    check_matrix(LU, "linalg.lu_solve", square=True, argname="LU")
    check_tensor(B, "linalg_lu_solve", "B", 3)
    check_same_dtype(LU, B, "linalg.lu_solve", "LU", "B")
    n = LU.shape[-1]
    if B.dim() < 2 or B.shape[-2 if left else -1] != n:
        raise RuntimeError(f"linalg.lu_solve: Incompatible shapes of A and B for the equation "
                           f"{'AX = B' if left else 'XA = B'} ({n}x{n} and "
                           f"{'x'.join(str(s) for s in B.shape[-2:])})")
    lower, upper = lu_unpacked(LU, n, n)
    b = B if left else _mH(B)
    lower, b = broadcast_batch(lower, b)
    upper = upper.expand(*lower.shape)
    perm = permutation_from_pivots(pivots, n).expand(*(tuple(lower.shape[:-1])))
    # (left and not adjoint): X = U^-1 L^-1 P^T B; with A^H: X = P L^-H U^-H B.
    # XA = B is A^H X^H = B^H: the same with adjoint flipped.
    adj = builtins.bool(adjoint) != (not left)
    if not adj:
        y = SolveTriangular.apply(lower, b.gather(-2, perm.unsqueeze(-1).expand(*b.shape)),
                                  False, True)
        x = SolveTriangular.apply(upper, y, True, False)
    else:
        y = SolveTriangular.apply(_mH(upper), b, False, False)
        y = SolveTriangular.apply(_mH(lower), y, True, True)
        x = cygrad.zeros_like(y).scatter(-2, perm.unsqueeze(-1).expand(*y.shape), y)
    return _out(x if left else _mH(x), out, "linalg_lu_solve")


# ----------------------------------------------------------------------- LDL

def ldl_factor_ex(A, *, hermitian=False, check_errors=False, out=None):
    """``(LD, pivots, info)`` of ``A = L D L^T`` for a symmetric ``A`` (its lower
    triangle is read), computed *without* pivoting: ``D`` is diagonal and
    ``pivots`` is ``1, 2, ..., n`` (LAPACK's "no interchange" code).  PyTorch's
    Bunch-Kaufman factorization (``sytrf``) gives the same result where it chooses
    no interchange (e.g. diagonally dominant or positive-definite ``A``) and other,
    equally valid, factors otherwise; :func:`ldl_solve` accepts only factors made
    here.  ``info`` is the 1-based index of the first zero of ``D``.

    Examples
    --------
    >>> import cygrad
    >>> ld, piv, info = cygrad.linalg.ldl_factor_ex(cygrad.tensor([[4.0, 2.0], [2.0, 3.0]]))
    >>> ld.tolist(), piv.tolist()
    ([[4.0, 0.0], [0.5, 2.0]], [1, 2])
    """
    check_matrix(A, "torch.linalg.ldl_factor_ex", square=True,
                 half_kernel="ldl_factor_kernel_cpu")
    if A.is_complex() and hermitian:
        raise RuntimeError("linalg.ldl_factor_ex: hermitian=True for complex inputs is not "
                           "supported by cygrad")
    # From the Cholesky-like recurrence on the lower triangle; composed of
    # differentiable ops, so LD has gradients.
    n = A.shape[-1]
    a = cygrad.tril(A)
    a = a + cygrad.tril(a, diagonal=-1).mT
    cols, d = [], []
    for j in range(n):
        col = a[..., :, j]
        for k in range(j):
            col = col - cols[k] * (d[k] * cols[k][..., j:j + 1])
        dj = col[..., j:j + 1]
        d.append(dj)
        safe = cygrad.where(dj == 0, cygrad.ones_like(dj), dj)
        lcol = cygrad.where(cygrad.arange(n, device=A.device) > j, col / safe,
                            cygrad.zeros((), dtype=A.dtype, device=A.device))
        cols.append(lcol)
    lower = cygrad.stack(cols, dim=-1) if n else cygrad.zeros_like(A)
    diag = cygrad.cat(d, dim=-1) if n else A.new_zeros(A.shape[:-1])
    ld = lower + _diag_embed(diag)
    pivots = cygrad.arange(1, n + 1, dtype=cygrad.int32, device=A.device).expand(
        *(tuple(A.shape[:-2]) + (n,))).clone()
    zero = (diag.detach() == 0).to(cygrad.int32)
    first = cygrad.where(zero.sum(dim=-1) > 0, zero.argmax(dim=-1).to(cygrad.int32) + 1,
                         cygrad.zeros((), dtype=cygrad.int32, device=A.device))
    if check_errors:
        _raise_info(first, "linalg.ldl_factor_ex")
    return _outs(LDL_FACTOR_EX(ld, pivots, first), out, "linalg_ldl_factor_ex")


def ldl_factor(A, *, hermitian=False, out=None):
    """``(LD, pivots)`` of :func:`ldl_factor_ex`, raising for a zero pivot.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.ldl_factor(cygrad.tensor([[4.0, 2.0], [2.0, 3.0]])).pivots.tolist()
    [1, 2]
    """
    ld, piv, info = ldl_factor_ex(A, hermitian=hermitian)
    _raise_info(info, "linalg.ldl_factor")
    return _outs(LDL_FACTOR(ld, piv), out, "linalg_ldl_factor")


def ldl_solve(LD, pivots, B, *, hermitian=False, out=None):
    """The solution of ``A X = B`` from ``A``'s :func:`ldl_factor`:
    ``X = L^-T D^-1 L^-1 B``.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[4.0, 2.0], [2.0, 3.0]], dtype=cygrad.float64)
    >>> ld, piv = cygrad.linalg.ldl_factor(a)
    >>> cygrad.linalg.ldl_solve(ld, piv, cygrad.tensor([[6.0], [5.0]], dtype=cygrad.float64)).tolist()
    [[1.0], [1.0]]
    """
    check_matrix(LD, "linalg.ldl_solve", square=True, argname="LD")
    check_same_dtype(LD, B, "linalg.ldl_solve", "LD", "B")
    n = LD.shape[-1]
    if builtins.bool((pivots != cygrad.arange(1, n + 1, dtype=pivots.dtype)).any()):
        raise RuntimeError("linalg.ldl_solve: cygrad solves only with the unpivoted factors of "
                           "cygrad.linalg.ldl_factor")
    lower = cygrad.tril(LD, diagonal=-1) + cygrad.eye(n, dtype=LD.dtype, device=LD.device)
    diag = LD.diagonal(dim1=-2, dim2=-1).unsqueeze(-1)
    lower, b = broadcast_batch(lower, B)
    y = SolveTriangular.apply(lower, b, False, True) / diag
    lt = lower.mH if hermitian else lower.mT
    return _out(SolveTriangular.apply(lt, y, True, True), out, "linalg_ldl_solve")


# ----------------------------------------------------------------------- pinv, lstsq, rank

# machine epsilon of the real dtypes singular values come in
_EPS = {"float32": 2.0 ** -23, "float64": 2.0 ** -52}


def _tolerance(s, A, atol, rtol):
    """PyTorch's threshold ``max(atol, rtol * max(S))`` per matrix; ``rtol`` defaults
    to ``max(m, n) * eps`` when neither is given, else to 0."""
    smax = s.amax(dim=-1, keepdim=True) if s.shape[-1] else cygrad.zeros(
        tuple(s.shape[:-1]) + (1,), dtype=s.dtype, device=s.device)
    if rtol is None:
        eps = _EPS[s.dtype.name]
        rtol = builtins.max(A.shape[-2:]) * eps if atol is None else 0.0
    atol = 0.0 if atol is None else atol
    as_t = lambda v: v.unsqueeze(-1) if isinstance(v, TensorBase) else v   # noqa: E731
    tol = as_t(rtol) * smax
    return cygrad.maximum(tol, as_t(atol) * cygrad.ones_like(tol)) if isinstance(atol, TensorBase) \
        or atol else tol


def pinv(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Moore-Penrose pseudo-inverse from the SVD (the eigendecomposition with
    ``hermitian=True``); singular values at most ``max(atol, rtol * max(S))`` count
    as zero (default ``rtol = max(m, n) * eps``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.pinv(cygrad.tensor([[2.0, 0.0], [0.0, 0.0]])).tolist()
    [[0.5, 0.0], [0.0, 0.0]]
    """
    check_tensor(A, "linalg_pinv")
    if A.dim() < 2 or not (A.dtype.is_floating_point or A.is_complex()) or \
            A.dtype.name in ("float16", "bfloat16"):
        raise RuntimeError(f"linalg.pinv({A.dtype.__repr__().split('.')[-1].capitalize()}"
                           f"{{{list(A.shape)}}}): expected a tensor with 2 or more dimensions "
                           f"of float, double, cfloat or cdouble types")
    if hermitian:
        w, v = Eigh.apply(A, "L")
        aw = w.abs()
        keep = aw > _tolerance(aw, A, atol, rtol)
        w_inv = cygrad.where(keep, 1.0 / cygrad.where(keep, w, cygrad.ones_like(w)),
                             cygrad.zeros_like(w))
        return _out((v * w_inv.to(v.dtype).unsqueeze(-2)) @ _mH(v), out, "linalg_pinv")
    u, s, vh = Svd.apply(A, False)
    keep = s > _tolerance(s, A, atol, rtol)
    s_inv = cygrad.where(keep, 1.0 / cygrad.where(keep, s, cygrad.ones_like(s)),
                         cygrad.zeros_like(s))
    return _out(_mH(vh) @ (s_inv.to(u.dtype).unsqueeze(-1) * _mH(u)), out, "linalg_pinv")


def matrix_rank(A, *, atol=None, rtol=None, hermitian=False, out=None):
    """Number of singular values (of eigenvalues' absolute values with
    ``hermitian=True``) above ``max(atol, rtol * max(S))``, as int64.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.linalg.matrix_rank(cygrad.tensor([[1.0, 2.0], [2.0, 4.0]])).item()
    1
    """
    check_matrix(A, "linalg.matrix_rank")
    a = A.detach()
    s = Eigh.apply(a, "L")[0].abs() if hermitian else Svd.apply(a, False)[1]
    rank = (s > _tolerance(s, a, atol, rtol)).sum(dim=-1)
    return _out(rank, out, "linalg_matrix_rank")


_DRIVERS = ("gels", "gelsy", "gelsd", "gelss")


def lstsq(A, B, rcond=None, *, driver=None):
    """Least-squares solution of ``A X = B``:
    ``(solution, residuals, rank, singular_values)``.

    The solution is ``pinv(A) @ B`` with singular values below ``rcond * max(S)``
    dropped (default: ``max(m, n) * eps``), so it is differentiable, and the
    minimum-norm solution for rank-deficient ``A``.  As in PyTorch on the CPU:
    ``residuals`` (squared residual norms) only when ``m > n`` and every matrix has
    full rank, for drivers other than ``"gelsy"`` (the default); ``rank`` for every
    driver but ``"gels"``; ``singular_values`` for ``"gelsd"`` and ``"gelss"``;
    an empty tensor otherwise.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[1.0, 0.0], [1.0, 1.0], [1.0, 2.0]], dtype=cygrad.float64)
    >>> x = cygrad.linalg.lstsq(a, cygrad.tensor([[1.0], [2.0], [3.0]], dtype=cygrad.float64))
    >>> [round(v, 6) for v in x.solution.reshape(-1).tolist()]
    [1.0, 1.0]
    """
    check_matrix(A, "torch.linalg.lstsq")
    check_tensor(B, "linalg_lstsq", "B", 2)
    check_same_dtype(A, B, "torch.linalg.lstsq", "A", "B")
    driver = "gelsy" if driver is None else driver
    if driver not in _DRIVERS:
        raise RuntimeError(f"parameter `driver` should be one of (gels, gelsy, gelsd, gelss)")
    vector = B.dim() == A.dim() - 1
    b = B.unsqueeze(-1) if vector else B
    if b.shape[-2] != A.shape[-2]:
        raise RuntimeError(f"torch.linalg.lstsq: input.size(-2) should match other.size(-2)")
    a, b = broadcast_batch(A, b)
    m, n = a.shape[-2:]
    s = Svd.apply(a.detach(), False)[1]
    eps = _EPS[s.dtype.name]
    rtol = builtins.max(m, n) * eps if rcond is None or rcond < 0 else rcond
    x = pinv(a, rtol=rtol) @ b
    rank = (s > _tolerance(s, a, None, rtol)).sum(dim=-1)
    empty = cygrad.empty(0, dtype=s.dtype, device=s.device)
    residuals = empty
    if driver != "gelsy" and m > n and builtins.bool((rank == n).all()):
        r = a @ x - b
        residuals = (r.abs() ** 2).sum(dim=-2)
    x = x.squeeze(-1) if vector else x
    return LSTSQ(x, residuals, rank if driver != "gels" else cygrad.empty(0, dtype=cygrad.int64),
                 s if driver in ("gelsd", "gelss") else empty)


# ----------------------------------------------------------------------- tensors

def tensorinv(A, ind=2, *, out=None):
    """The inverse of ``A`` read as a linear map from its first ``ind`` dims to the
    rest: ``tensordot(tensorinv(A, ind), A, ind)`` is the identity.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.eye(4).reshape(4, 2, 2)
    >>> cygrad.linalg.tensorinv(a, ind=1).shape
    cygrad.Size([2, 2, 4])
    """
    check_tensor(A, "linalg_tensorinv")
    if ind <= 0:
        raise RuntimeError(f"Expected a strictly positive integer for 'ind', but got {ind}")
    rows, cols = tuple(A.shape[:ind]), tuple(A.shape[ind:])
    if math.prod(rows) != math.prod(cols):
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[ind:]) == prod(self.shape[:ind]), but got "
                           f"{math.prod(cols)} != {math.prod(rows)}")
    res = inv(A.reshape(math.prod(rows), math.prod(cols))).reshape(*(cols + rows))
    return _out(res, out, "linalg_tensorinv")


def tensorsolve(A, B, dims=None, *, out=None):
    """The ``X`` with ``tensordot(A, X, X.ndim) == B``; ``dims`` are dims of ``A``
    moved to the end first.

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.eye(6).reshape(6, 2, 3)
    >>> cygrad.linalg.tensorsolve(a, cygrad.ones(6)).shape
    cygrad.Size([2, 3])
    """
    check_tensor(A, "linalg_tensorsolve")
    check_tensor(B, "linalg_tensorsolve", "B", 2)
    if dims is not None:
        dims = [d % A.dim() for d in dims]
        rest = [d for d in range(A.dim()) if d not in dims]
        A = A.permute(*(rest + dims))
    x_shape = tuple(A.shape[B.dim():])
    n = math.prod(x_shape)
    if math.prod(B.shape) != n or math.prod(A.shape[:B.dim()]) != n:
        raise RuntimeError(f"Expected self to satisfy the requirement "
                           f"prod(self.shape[other.ndim:]) == prod(self.shape[:other.ndim]), "
                           f"but got {n} != {math.prod(A.shape[:B.dim()])}")
    x = solve(A.reshape(n, n), B.reshape(n))
    return _out(x.reshape(*x_shape), out, "linalg_tensorsolve")
