"""Op-table rows for ``cygrad.linalg`` and the ``torch``-level linear-algebra names
(``cygrad/ops/linalg/linalg_api.py``, ``matrix_functions.py``, ``torch_api.py``),
checked against NumPy (values) and PyTorch (dtypes, values, errors, autograd).

Matrices are well conditioned (``A + n I`` for uniform entries), so float32 results
agree and finite differences are accurate.  Decompositions that read one triangle
(``cholesky``, ``eigh``) are called on the Hermitian part of their input, as
PyTorch's own op-table does: gradcheck then perturbs a function of every entry.
"""
import numpy as np
import pytest

import cygrad

from .core import COMPLEX, FLOATS, ErrorInput, OpInfo, SampleInput, make_array

L = cygrad.linalg
F_AND_C = FLOATS + COMPLEX
_SQUARE = {"mat": (3, 3), "batch": (2, 3, 3)}


def _wc(shape, dtype, rng):
    """A well-conditioned (batch of) square matrix: ``A + n I``."""
    a = make_array(shape, dtype, rng)
    return (a + shape[-1] * np.eye(shape[-1])).astype(a.dtype)


def _spd(shape, dtype, rng):
    """A Hermitian positive-definite (batch of) matrix."""
    a = make_array(shape, dtype, rng)
    return (a @ np.conj(np.swapaxes(a, -1, -2)) + shape[-1] * np.eye(shape[-1])).astype(a.dtype)


def _square_samples(make=_wc, kwargs=None):
    def samples(op_info, dtype, rng):
        return [SampleInput(make(s, dtype, rng), kwargs=dict(kwargs or {}), name=n)
                for n, s in _SQUARE.items()]
    return samples


def _rect_samples(op_info, dtype, rng):
    return [SampleInput(make_array((4, 3), dtype, rng), name="tall"),
            SampleInput(make_array((2, 3, 5), dtype, rng), name="wide_batch")]


def _hermitian(a):
    return (a + a.mH) / 2


def _sym_np(a):
    return (a + np.conj(np.swapaxes(a, -1, -2))) / 2


# ----------------------------------------------------------------------- references

def _slogdet_ref(a):
    s, l = np.linalg.slogdet(a)
    return s, l


def _solve_samples(op_info, dtype, rng):
    return [SampleInput(_wc((3, 3), dtype, rng), (make_array((3,), dtype, rng),), name="vec"),
            SampleInput(_wc((2, 3, 3), dtype, rng), (make_array((3, 2), dtype, rng),),
                        name="broadcast_rhs"),
            SampleInput(_wc((3, 3), dtype, rng), (make_array((2, 3), dtype, rng),),
                        {"left": False}, name="right")]


def _solve_ref(a, b, left=True):
    if not left:
        return np.swapaxes(np.linalg.solve(np.swapaxes(a, -1, -2), np.swapaxes(b, -1, -2)), -1, -2)
    if b.ndim == 1:
        return np.linalg.solve(a, b)
    return np.linalg.solve(a, b)


def _tri_samples(op_info, dtype, rng):
    return [SampleInput(_wc((3, 3), dtype, rng), (make_array((3, 2), dtype, rng),),
                        {"upper": True}, name="upper"),
            SampleInput(_wc((2, 3, 3), dtype, rng), (make_array((2, 3, 2), dtype, rng),),
                        {"upper": False, "unitriangular": True}, name="lower_unit"),
            SampleInput(_wc((3, 3), dtype, rng), (make_array((2, 3), dtype, rng),),
                        {"upper": True, "left": False}, name="right")]


def _tri_ref(a, b, upper, left=True, unitriangular=False):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        idx = np.arange(a.shape[-1])
        t = t.copy()
        t[..., idx, idx] = 1
    return _solve_ref(t, b, left)


def _eigh_op(a, UPLO="L"):
    return L.eigh(_hermitian(a), UPLO)


def _eigh_ref(a, UPLO="L"):
    return np.linalg.eigh(_sym_np(a), UPLO)


def _herm_samples(op_info, dtype, rng):
    out = []
    for n, s in _SQUARE.items():
        a = make_array(s, dtype, rng)
        # distinct eigenvalues: a spread diagonal
        a = _sym_np(a) + np.diag(np.arange(s[-1]) * 2.0)
        out.append(SampleInput(a.astype(make_array((1,), dtype, rng).dtype), name=n))
    return out


def _chol_op(a, upper=False):
    return L.cholesky(_hermitian(a), upper=upper)


def _chol_ref(a, upper=False):
    lower = np.linalg.cholesky(_sym_np(a))
    return np.conj(np.swapaxes(lower, -1, -2)) if upper else lower


def _spd_samples(op_info, dtype, rng):
    return [SampleInput(_spd((3, 3), dtype, rng), name="mat"),
            SampleInput(_spd((2, 3, 3), dtype, rng), kwargs={"upper": True},
                        name="batch_upper")]


def _qr_samples(op_info, dtype, rng):
    return [SampleInput(make_array((4, 3), dtype, rng), name="tall"),
            SampleInput(make_array((2, 3, 3), dtype, rng), kwargs={"mode": "complete"},
                        name="batch_complete")]


def _svd_samples(op_info, dtype, rng):
    # distinct singular values: a spread diagonal
    a = make_array((4, 3), dtype, rng)
    a[:3, :3] += np.diag([3.0, 2.0, 1.0]).astype(a.dtype) * 2
    b = make_array((2, 3, 3), dtype, rng) + np.diag([6.0, 4.0, 2.0]).astype(a.dtype)
    return [SampleInput(a, kwargs={"full_matrices": False}, name="tall"),
            SampleInput(b.astype(a.dtype), kwargs={"full_matrices": False}, name="batch")]


def _svd_ref(a, full_matrices=True):
    return tuple(np.linalg.svd(a, full_matrices=full_matrices))


def _lu_factor_ref(a):
    scipy_linalg = pytest.importorskip("scipy.linalg", reason="SciPy is the reference here")
    lus = [scipy_linalg.lu_factor(m) for m in a.reshape((-1,) + a.shape[-2:])]
    lu = np.stack([x[0] for x in lus]).reshape(a.shape)
    piv = np.stack([x[1] + 1 for x in lus]).reshape(a.shape[:-1]).astype(np.int32)
    return lu, piv


def _lu_ref(a):
    scipy_linalg = pytest.importorskip("scipy.linalg", reason="SciPy is the reference here")
    res = [scipy_linalg.lu(m) for m in a.reshape((-1,) + a.shape[-2:])]
    return tuple(np.stack([r[i] for r in res]).reshape(a.shape[:-2] + res[0][i].shape)
                 for i in range(3))


def _lu_solve_op(a, b, left=True, adjoint=False):
    return L.lu_solve(*L.lu_factor(a), b, left=left, adjoint=adjoint)


def _lu_solve_ref(a, b, left=True, adjoint=False):
    if adjoint:
        a = np.conj(np.swapaxes(a, -1, -2))
    return _solve_ref(a, b, left)


def _lu_solve_samples(op_info, dtype, rng):
    return [SampleInput(_wc((3, 3), dtype, rng), (make_array((3, 2), dtype, rng),), name="mat"),
            SampleInput(_wc((2, 3, 3), dtype, rng), (make_array((2, 3, 1), dtype, rng),),
                        {"adjoint": True}, name="batch_adjoint"),
            SampleInput(_wc((3, 3), dtype, rng), (make_array((2, 3), dtype, rng),),
                        {"left": False}, name="right")]


def _pinv_ref(a, hermitian=False):
    return np.linalg.pinv(a, hermitian=hermitian)


def _lstsq_op(a, b):
    res = L.lstsq(a, b, driver="gelsd")
    return res.solution, res.residuals, res.rank, res.singular_values


def _lstsq_ref(a, b):
    """PyTorch's gelsd: residuals only for tall matrices of full rank."""
    x = np.linalg.pinv(a) @ b
    rank = np.linalg.matrix_rank(a)
    m, n = a.shape[-2:]
    full = m > n and np.all(rank == n)
    r = ((np.abs(a @ x - b)) ** 2).sum(-2) if full else np.zeros(0, a.dtype)
    return x, r, rank, np.linalg.svd(a, compute_uv=False)


def _lstsq_samples(op_info, dtype, rng):
    return [SampleInput(make_array((5, 3), dtype, rng), (make_array((5, 2), dtype, rng),),
                        name="tall"),
            SampleInput(make_array((2, 4, 3), dtype, rng), (make_array((2, 4, 1), dtype, rng),),
                        name="batch")]


def _rank_samples(op_info, dtype, rng):
    a = make_array((4, 2), dtype, rng)
    low = (a @ make_array((2, 3), dtype, rng)).astype(a.dtype)
    return [SampleInput(low, name="rank2"),
            SampleInput(make_array((2, 3, 4), dtype, rng), kwargs={"hermitian": False},
                        name="batch")]


# ----------------------------------------------------------------------- norms and functions

def _vnorm_samples(op_info, dtype, rng):
    x = make_array((3, 4), dtype, rng)
    return [SampleInput(x, name="all"), SampleInput(x, (3,), {"dim": 1}, name="p3_dim1"),
            SampleInput(x, (float("inf"),), {"dim": (0, 1), "keepdim": True}, name="inf"),
            SampleInput(x, (1,), {"dim": 0}, name="p1")]


def _vnorm_ref(x, ord=2, dim=None, keepdim=False):
    a = np.abs(x).astype(np.float64)
    axes = tuple(range(x.ndim)) if dim is None else (dim if isinstance(dim, tuple) else (dim,))
    if np.isinf(ord):
        return a.max(axis=axes, keepdims=keepdim)
    return (a ** ord).sum(axis=axes, keepdims=keepdim) ** (1 / ord)


def _mnorm_samples(op_info, dtype, rng):
    a = _svd_samples(op_info, dtype, rng)[1].input
    return [SampleInput(a, name="fro"), SampleInput(a, ("nuc",), name="nuc"),
            SampleInput(a, (2,), name="2"), SampleInput(a, (-2,), {"keepdim": True}, name="m2"),
            SampleInput(a, (1,), name="1"), SampleInput(a, (float("-inf"),), {"dim": (0, 2)},
                                                        name="minf_dims")]


def _mnorm_ref(a, ord="fro", dim=(-2, -1), keepdim=False):
    r = np.linalg.norm(np.moveaxis(a, dim, (-2, -1)), ord=ord, axis=(-2, -1))
    if keepdim:
        for d in sorted(x % a.ndim for x in dim):
            r = np.expand_dims(r, d)
    return r


def _norm_samples(op_info, dtype, rng):
    a = _svd_samples(op_info, dtype, rng)[0].input
    return [SampleInput(a, name="flat"), SampleInput(a, (2,), name="matrix_2"),
            SampleInput(a, (3,), {"dim": 1}, name="vector_dim"),
            SampleInput(a.reshape(-1), (1,), name="vector_1")]


def _norm_ref(a, ord=None, dim=None, keepdim=False):
    if dim is None and ord is None:
        return np.linalg.norm(a.reshape(-1))
    return np.linalg.norm(a, ord=ord, axis=dim, keepdims=keepdim)


def _cond_ref(a, p=None):
    return np.linalg.cond(a, p)


def _cond_samples(op_info, dtype, rng):
    a = _svd_samples(op_info, dtype, rng)[1].input
    return [SampleInput(a, name="2"), SampleInput(a, ("fro",), name="fro"),
            SampleInput(a, (1,), name="1")]


def _power_samples(op_info, dtype, rng):
    a = (make_array((2, 3, 3), dtype, rng) / 2 + np.eye(3)).astype(make_array((1,), dtype, rng).dtype)
    return [SampleInput(a, (3,), name="3"), SampleInput(a[0], (-2,), name="minus2"),
            SampleInput(a, (1,), name="1")]


def _exp_ref(a):
    scipy_linalg = pytest.importorskip("scipy.linalg", reason="SciPy is the reference here")
    return np.stack([scipy_linalg.expm(m) for m in a.reshape((-1,) + a.shape[-2:])]).reshape(a.shape)


def _exp_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3, 3), dtype, rng) * 0.1, name="small"),
            SampleInput(make_array((2, 3, 3), dtype, rng) * 3, name="scaled")]


def _multi_dot_op(a, b, c):
    return L.multi_dot([a, b, c])


def _multi_dot_ref(a, b, c):
    return np.linalg.multi_dot([a, b, c])


def _multi_dot_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3,), dtype, rng), (make_array((3, 4), dtype, rng),
                        make_array((4, 2), dtype, rng)), name="vec_first"),
            SampleInput(make_array((2, 5), dtype, rng), (make_array((5, 3), dtype, rng),
                        make_array((3,), dtype, rng)), name="vec_last")]


def _cross_samples(op_info, dtype, rng):
    return [SampleInput(make_array((4, 3), dtype, rng), (make_array((4, 3), dtype, rng),),
                        name="rows"),
            SampleInput(make_array((3, 2), dtype, rng), (make_array((3, 1), dtype, rng),),
                        {"dim": 0}, name="dim0_broadcast")]


def _cross_ref(a, b, dim=-1):
    return np.cross(a, b, axis=dim)


def _vecdot_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3, 4), dtype, rng), (make_array((4,), dtype, rng),),
                        name="broadcast"),
            SampleInput(make_array((3, 4), dtype, rng), (make_array((3, 1), dtype, rng),),
                        {"dim": 0}, name="dim0")]


def _vecdot_ref(x, y, dim=-1):
    return (np.conj(x) * y).sum(axis=dim)


def _vander_samples(op_info, dtype, rng):
    x = make_array((2, 3), dtype, rng)
    return [SampleInput(x, name="square"), SampleInput(x[0], kwargs={"N": 5}, name="N5")]


def _vander_ref(x, N=None):
    n = x.shape[-1] if N is None else N
    return x[..., None] ** np.arange(n)


def _householder_samples(op_info, dtype, rng):
    return [SampleInput(make_array((4, 3), dtype, rng), (make_array((2,), dtype, rng),),
                        name="k2"),
            SampleInput(make_array((2, 3, 3), dtype, rng), (make_array((2, 3), dtype, rng),),
                        name="batch")]


def _householder_ref(a, tau):
    m, n = a.shape[-2:]
    flat_a = a.reshape((-1, m, n))
    flat_t = tau.reshape((-1, tau.shape[-1]))
    out = []
    for h, t in zip(flat_a, flat_t):
        q = np.eye(m, dtype=np.result_type(h.dtype, np.float64))
        for i in range(len(t)):
            v = np.concatenate([np.zeros(i), [1.0], h[i + 1:, i]])
            q = q @ (np.eye(m) - t[i] * np.outer(v, np.conj(v)))
        out.append(q[:, :n])
    return np.stack(out).reshape(a.shape)


def _tensorinv_samples(op_info, dtype, rng):
    return [SampleInput(_wc((4, 4), dtype, rng).reshape(4, 2, 2), kwargs={"ind": 1}, name="ind1")]


def _tensorsolve_samples(op_info, dtype, rng):
    return [SampleInput(_wc((6, 6), dtype, rng).reshape(6, 2, 3),
                        (make_array((6,), dtype, rng),), name="2x3")]


def _ldl_samples(op_info, dtype, rng):
    return [SampleInput(_spd((3, 3), dtype, rng), name="mat"),
            SampleInput(_spd((2, 4, 4), dtype, rng), name="batch")]


def _ldl_op(a):
    return L.ldl_factor(_hermitian(a))


def _ldl_ref(a):
    a = _sym_np(a)
    scipy_linalg = pytest.importorskip("scipy.linalg", reason="SciPy is the reference here")
    lus = []
    for m in a.reshape((-1,) + a.shape[-2:]):
        lower, d, _ = scipy_linalg.ldl(m, lower=True)
        lus.append(np.tril(lower, -1) + d)
    n = a.shape[-1]
    piv = np.broadcast_to(np.arange(1, n + 1, dtype=np.int32), a.shape[:-1])
    return np.stack(lus).reshape(a.shape), piv


# ----------------------------------------------------------------------- torch-level

def _kron_samples(op_info, dtype, rng):
    return [SampleInput(make_array((2, 3), dtype, rng), (make_array((3, 2), dtype, rng),),
                        name="mats"),
            SampleInput(make_array((2,), dtype, rng), (make_array((2, 2, 2), dtype, rng),),
                        name="ranks")]


def _kron_ref(a, b):
    return np.kron(a, b)


def _cov_samples(op_info, dtype, rng):
    x = make_array((3, 5), dtype, rng)
    return [SampleInput(x, name="default"), SampleInput(x, kwargs={"correction": 0}, name="c0"),
            SampleInput(x[0], name="vector"),
            SampleInput(x, kwargs={"fweights": np.array([1, 2, 1, 3, 1]),
                                   "aweights": np.array([0.5, 1.0, 2.0, 1.0, 0.25])},
                        name="weights")]


def _cov_ref(x, correction=1, fweights=None, aweights=None):
    return np.cov(x, ddof=correction, fweights=fweights, aweights=aweights)


def _diag_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3,), dtype, rng), (1,), name="vec_offset"),
            SampleInput(make_array((3, 4), dtype, rng), (-1,), name="mat_offset")]


def _diag_ref(x, k=0):
    return np.diag(x, k)


def _diag_embed_samples(op_info, dtype, rng):
    return [SampleInput(make_array((2, 3), dtype, rng), name="last"),
            SampleInput(make_array((2, 3), dtype, rng), (1, 0, 2), name="offset_dims")]


def _diag_embed_ref(x, offset=0, dim1=-2, dim2=-1):
    n = x.shape[-1] + abs(offset)
    out = np.zeros(x.shape[:-1] + (n, n), dtype=x.dtype)
    idx = np.arange(x.shape[-1])
    rows, cols = (idx, idx + offset) if offset >= 0 else (idx - offset, idx)
    out[..., rows, cols] = x
    return np.moveaxis(out, (-2, -1), (dim1, dim2))


def _block_diag_samples(op_info, dtype, rng):
    return [SampleInput(make_array((2, 3), dtype, rng), (make_array((2,), dtype, rng),
                        make_array((1, 1), dtype, rng)), name="mixed")]


def _block_diag_ref(*xs):
    scipy_linalg = pytest.importorskip("scipy.linalg", reason="SciPy is the reference here")
    return scipy_linalg.block_diag(*[x.reshape(1, -1) if x.ndim < 2 else x for x in xs])


def _chol_inverse_op(a, upper=False):
    return cygrad.cholesky_inverse(a, upper)


def _chol_inverse_ref(a, upper=False):
    f = np.triu(a) if upper else np.tril(a)
    return np.linalg.inv(np.conj(f.T) @ f if upper else f @ np.conj(f.T))


def _tri_factor_samples(op_info, dtype, rng):
    lower = np.tril(_wc((3, 3), dtype, rng))
    return [SampleInput(lower, name="lower"),
            SampleInput(np.ascontiguousarray(lower.T), (True,), name="upper")]


def _chol_solve_samples(op_info, dtype, rng):
    lower = np.tril(_wc((3, 3), dtype, rng))
    return [SampleInput(make_array((3, 2), dtype, rng), (lower,), name="lower"),
            SampleInput(make_array((2, 3, 1), dtype, rng), (np.ascontiguousarray(lower.T), True),
                        name="upper_batch")]


def _chol_solve_ref(b, f, upper=False):
    a = np.conj(f.T) @ f if upper else f @ np.conj(f.T)
    return np.linalg.solve(a, b)


def _tri_solve_op(b, a, upper=True, transpose=False, unitriangular=False):
    return cygrad.triangular_solve(b, a, upper, transpose, unitriangular)


def _tri_solve_ref(b, a, upper=True, transpose=False, unitriangular=False):
    t = np.triu(a) if upper else np.tril(a)
    if unitriangular:
        t = t.copy()
        idx = np.arange(a.shape[-1])
        t[..., idx, idx] = 1
    if transpose:
        t = np.swapaxes(t, -1, -2)
    return np.linalg.solve(t, b), a


def _tri_solve_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3, 2), dtype, rng), (_wc((3, 3), dtype, rng),), name="upper"),
            SampleInput(make_array((2, 3, 2), dtype, rng), (_wc((2, 3, 3), dtype, rng), False,
                                                            True, True), name="lower_T_unit")]


def _renorm_samples(op_info, dtype, rng):
    x = make_array((3, 4), dtype, rng) * 3
    return [SampleInput(x, (2, 0, 2.0), name="p2_dim0"), SampleInput(x, (1, 1, 3.0), name="p1")]


def _renorm_ref(x, p, dim, maxnorm):
    others = tuple(i for i in range(x.ndim) if i != dim)
    n = (np.abs(x) ** p).sum(axis=others, keepdims=True) ** (1 / p)
    return x * np.where(n > maxnorm, maxnorm / (n + 1e-7), 1.0)


def _dist_samples(op_info, dtype, rng):
    return [SampleInput(make_array((3, 4), dtype, rng), (make_array((4,), dtype, rng),),
                        name="p2"),
            SampleInput(make_array((3, 4), dtype, rng), (make_array((3, 4), dtype, rng), 3),
                        name="p3")]


def _dist_ref(a, b, p=2):
    return (np.abs(a - b) ** p).sum() ** (1 / p)


def _torch_svd_op(a, some=True):
    u, s, v = cygrad.svd(a, some)
    return u, s, v


def _torch_svd_ref(a, some=True):
    u, s, vh = np.linalg.svd(a, full_matrices=not some)
    return u, s, np.conj(np.swapaxes(vh, -1, -2))


def _ormqr_op(a, tau, other, left=True, transpose=False):
    return cygrad.ormqr(a, tau, other, left, transpose)


def _ormqr_ref(a, tau, other, left=True, transpose=False):
    m = a.shape[-2]
    full = np.concatenate([a, np.zeros(a.shape[:-1] + (m - a.shape[-1],), a.dtype)], -1)
    q = _householder_ref(full, tau)
    if transpose:
        q = np.conj(np.swapaxes(q, -1, -2))
    return q @ other if left else other @ q


def _ormqr_samples(op_info, dtype, rng):
    return [SampleInput(make_array((4, 2), dtype, rng), (make_array((2,), dtype, rng),
                        make_array((4, 3), dtype, rng)), name="left"),
            SampleInput(make_array((3, 3), dtype, rng), (make_array((3,), dtype, rng),
                        make_array((2, 3), dtype, rng), False, True), name="right_T")]


# ----------------------------------------------------------------------- errors

def _square_errors(op_info, rng):
    f = lambda *s: rng.standard_normal(s).astype(np.float32)   # noqa: E731
    return [ErrorInput(SampleInput(f(2, 3), name="not_square"), RuntimeError,
                       "must be batches of square matrices"),
            ErrorInput(SampleInput(f(3), name="vector"), RuntimeError,
                       "must have at least 2 dimensions"),
            ErrorInput(SampleInput(np.ones((2, 2), np.int64), name="integer"), RuntimeError,
                       "Expected a floating point or complex tensor as input. Got Long")]


def _solve_errors(op_info, rng):
    f = lambda *s: rng.standard_normal(s).astype(np.float32)   # noqa: E731
    return [ErrorInput(SampleInput(f(3, 3), (f(2),), name="shapes"), RuntimeError,
                       r"Incompatible shapes of A and B for the equation AX = B \(3x3 and 2x1\)"),
            ErrorInput(SampleInput(f(3, 3), (f(3).astype(np.float64),), name="dtypes"),
                       RuntimeError, "Expected A and B to have the same dtype")]


def _norm_errors(op_info, rng):
    f = lambda *s: rng.standard_normal(s).astype(np.float32)   # noqa: E731
    return [ErrorInput(SampleInput(f(3, 3), (3,), name="order"), RuntimeError,
                       "Order 3 not supported"),
            ErrorInput(SampleInput(f(3), name="vector"), RuntimeError,
                       "must have at least 2 dimensions")]


def _cross_errors(op_info, rng):
    f = lambda *s: rng.standard_normal(s).astype(np.float32)   # noqa: E731
    return [ErrorInput(SampleInput(f(2), (f(2),), name="length"), RuntimeError,
                       "must have length 3"),
            ErrorInput(SampleInput(f(2, 3), (f(3),), name="ndim"), RuntimeError,
                       "same number of dimensions")]


_SELF_GRAD = "the row's op wraps the decomposition in its Hermitian part (one triangle is read)"
_NO_TORCH_FN = "the row's op is a wrapper; the values are compared with PyTorch in test_linalg_api.py"

# (the eigenvector and singular vector signs LAPACK picks differ between PyTorch's build
# and NumPy's: those rows compare with NumPy here and with PyTorch in test_linalg_api.py,
# on sign-independent quantities)
_TORCH_CONJ = ("PyTorch returns left=False's complex result with its conjugate bit set, "
               "which the harness cannot read (.numpy() refuses it)")

AUTOGRAD_DEFAULTS = {"supports_autograd": True}

OPS = [
    OpInfo("linalg.inv", L.inv, np.linalg.inv, dtypes=F_AND_C, sample_inputs=_square_samples(),
           error_inputs=_square_errors, supports_out=True),
    OpInfo("linalg.det", L.det, np.linalg.det, dtypes=F_AND_C, sample_inputs=_square_samples(),
           error_inputs=_square_errors),
    OpInfo("linalg.slogdet", L.slogdet, _slogdet_ref, dtypes=F_AND_C,
           sample_inputs=_square_samples()),
    OpInfo("linalg.solve", L.solve, _solve_ref, dtypes=F_AND_C, sample_inputs=_solve_samples,
           error_inputs=_solve_errors,
           skips={"test_function_class": "a vector right-hand side is squeezed (a view)",
                  "test_dtype_vs_torch:complex64": _TORCH_CONJ, "test_dtype_vs_torch:complex128":
                  _TORCH_CONJ}),
    OpInfo("linalg.solve_triangular", L.solve_triangular, _tri_ref, dtypes=F_AND_C,
           sample_inputs=_tri_samples),
    OpInfo("linalg.cholesky", _chol_op, _chol_ref, dtypes=F_AND_C, sample_inputs=_spd_samples,
           skips={"test_function_class": _SELF_GRAD}),
    OpInfo("linalg.eigh", _eigh_op, _eigh_ref, dtypes=FLOATS, sample_inputs=_herm_samples,
           torch_name="", skips={"test_function_class": _SELF_GRAD}),
    OpInfo("linalg.eigvalsh", lambda a: L.eigvalsh(_hermitian(a)), lambda a: np.linalg.eigvalsh(
        _sym_np(a)), dtypes=F_AND_C, sample_inputs=_herm_samples,
           skips={"test_function_class": _SELF_GRAD}),
    OpInfo("linalg.eigvals", lambda a: cygrad.view_as_real(L.eigvals(a)),
           lambda a: np.stack([np.linalg.eigvals(a).real, np.linalg.eigvals(a).imag], -1),
           dtypes=FLOATS, sample_inputs=_herm_samples, atol=1e-4, torch_name="",
           skips={"test_function_class": "view_as_real of the complex eigenvalues (gradcheck "
                                         "needs a real output)"}),
    OpInfo("linalg.svd", L.svd, _svd_ref, dtypes=FLOATS, sample_inputs=_svd_samples,
           torch_name=""),
    OpInfo("linalg.svdvals", L.svdvals, lambda a: np.linalg.svd(a, compute_uv=False),
           dtypes=F_AND_C, sample_inputs=_rect_samples),
    OpInfo("linalg.qr", L.qr, lambda a, mode="reduced": tuple(np.linalg.qr(a, mode=mode)),
           dtypes=F_AND_C, sample_inputs=_qr_samples),
    OpInfo("linalg.lu_factor", L.lu_factor, _lu_factor_ref, dtypes=FLOATS, check_zero_size=False,
           sample_inputs=_square_samples(make=lambda s, d, r: make_array(s, d, r))),
    OpInfo("linalg.lu", L.lu, _lu_ref, dtypes=FLOATS, check_zero_size=False,
           sample_inputs=lambda o, d, r: [SampleInput(make_array((3, 3), d, r), name="square"),
                                          SampleInput(make_array((2, 4, 3), d, r), name="tall")],
           skips={"test_gradcheck": "the LU backward of a non-square matrix is not implemented",
                  "test_gradcheck_noncontiguous": "as test_gradcheck",
                  "test_gradgradcheck": "as test_gradcheck", "test_forward_ad": "as test_gradcheck",
                  "test_reference_engine": "as test_gradcheck",
                  "test_function_class": "L and U are unpacked from the factors with views"}),
    OpInfo("linalg.lu_solve", _lu_solve_op, _lu_solve_ref, dtypes=FLOATS,
           sample_inputs=_lu_solve_samples, torch_name="",
           skips={"test_function_class": "composed of lu_factor and triangular solves"}),
    OpInfo("linalg.ldl_factor", _ldl_op, _ldl_ref, dtypes=FLOATS, sample_inputs=_ldl_samples,
           torch_name="",      # (PyTorch has no derivative for it; values: test_linalg_api.py)
           check_zero_size=False,
           skips={"test_function_class": "composed of differentiable ops (a recurrence)"}),
    OpInfo("linalg.pinv", L.pinv, _pinv_ref, dtypes=F_AND_C, sample_inputs=_rect_samples),
    OpInfo("linalg.lstsq", _lstsq_op, _lstsq_ref, dtypes=FLOATS, sample_inputs=_lstsq_samples,
           torch_name="", skips={"test_function_class": "composed of pinv and products"}),
    OpInfo("linalg.matrix_rank", L.matrix_rank, np.linalg.matrix_rank, dtypes=F_AND_C,
           sample_inputs=_rank_samples, supports_autograd=False),
    OpInfo("linalg.vector_norm", L.vector_norm, _vnorm_ref, dtypes=F_AND_C,
           sample_inputs=_vnorm_samples, skips={"test_function_class": "reduction family's Norm"}),
    OpInfo("linalg.matrix_norm", L.matrix_norm, _mnorm_ref, dtypes=F_AND_C,
           sample_inputs=_mnorm_samples, error_inputs=_norm_errors,
           skips={"test_function_class": "composed of norms, sums and svdvals"}),
    OpInfo("linalg.norm", L.norm, _norm_ref, dtypes=FLOATS, sample_inputs=_norm_samples,
           skips={"test_function_class": "composed of vector and matrix norms"}),
    OpInfo("linalg.cond", L.cond, _cond_ref, dtypes=FLOATS, sample_inputs=_cond_samples,
           skips={"test_function_class": "composed of svdvals, inv and norms"}),
    OpInfo("linalg.matrix_power", L.matrix_power, np.linalg.matrix_power, dtypes=F_AND_C,
           sample_inputs=_power_samples,
           skips={"test_function_class": "composed of matmul and inv"}),
    OpInfo("linalg.matrix_exp", L.matrix_exp, _exp_ref, dtypes=F_AND_C, check_zero_size=False,
           sample_inputs=_exp_samples, skips={"test_function_class": "composed of matmul and solve"}),
    OpInfo("linalg.multi_dot", _multi_dot_op, _multi_dot_ref, dtypes=FLOATS,
           sample_inputs=_multi_dot_samples, torch_name="", check_zero_size=False,
           skips={"test_function_class": "composed of matmuls"}),
    OpInfo("linalg.cross", L.cross, _cross_ref, dtypes=FLOATS, sample_inputs=_cross_samples,
           error_inputs=_cross_errors, skips={"test_function_class": "composed of elementwise ops"}),
    OpInfo("linalg.vecdot", L.vecdot, _vecdot_ref, dtypes=F_AND_C, sample_inputs=_vecdot_samples,
           skips={"test_function_class": "a product and a sum"}),
    OpInfo("linalg.vander", L.vander, _vander_ref, dtypes=FLOATS, sample_inputs=_vander_samples,
           skips={"test_function_class": "cumprod and cat"}),
    OpInfo("linalg.householder_product", L.householder_product, _householder_ref, dtypes=F_AND_C,
           sample_inputs=_householder_samples,
           skips={"test_function_class": "composed of products"}),
    OpInfo("linalg.tensorinv", L.tensorinv, lambda a, ind=2: np.linalg.tensorinv(a, ind),
           dtypes=FLOATS, sample_inputs=_tensorinv_samples, check_zero_size=False,
           skips={"test_function_class": "inv of a reshape: the node is the reshape's"}),
    OpInfo("linalg.tensorsolve", L.tensorsolve, np.linalg.tensorsolve, dtypes=FLOATS,
           sample_inputs=_tensorsolve_samples, check_zero_size=False,
           skips={"test_function_class": "solve of a reshape: the node is the reshape's"}),
    # ---- torch-level names
    OpInfo("det", cygrad.det, np.linalg.det, dtypes=FLOATS, sample_inputs=_square_samples(),
           method="det"),
    OpInfo("inverse", cygrad.inverse, np.linalg.inv, dtypes=FLOATS,
           sample_inputs=_square_samples(), method="inverse"),
    OpInfo("logdet", cygrad.logdet, lambda a: np.log(np.linalg.det(a)), dtypes=FLOATS,
           sample_inputs=_square_samples(make=_spd), method="logdet",
           skips={"test_function_class": "a where() over slogdet"}),
    OpInfo("cholesky_inverse", _chol_inverse_op, _chol_inverse_ref, dtypes=FLOATS,
           sample_inputs=_tri_factor_samples, torch_name="cholesky_inverse", check_zero_size=False,
           skips={"test_function_class": "composed of triangular solves and a product"}),
    OpInfo("cholesky_solve", cygrad.cholesky_solve, _chol_solve_ref, dtypes=FLOATS,
           sample_inputs=_chol_solve_samples, method="cholesky_solve", check_zero_size=False),
    OpInfo("triangular_solve", _tri_solve_op, _tri_solve_ref, dtypes=FLOATS,
           sample_inputs=_tri_solve_samples, torch_name="triangular_solve",
           skips={"test_function_class": "cloned_coefficient is a clone of A"}),
    OpInfo("svd", _torch_svd_op, _torch_svd_ref, dtypes=FLOATS,
           sample_inputs=lambda o, d, r: [SampleInput(x.input, name=x.name)
                                          for x in _svd_samples(o, d, r)],
           torch_name="", skips={"test_function_class": "V is Vh's conjugate transpose (a view)"}),
    OpInfo("kron", cygrad.kron, _kron_ref, dtypes=FLOATS, sample_inputs=_kron_samples,
           method="kron", skips={"test_function_class": "a product of views"}),
    OpInfo("trace", cygrad.trace, np.trace, dtypes=FLOATS,
           sample_inputs=lambda o, d, r: [SampleInput(make_array((3, 4), d, r), name="rect")],
           method="trace", skips={"test_function_class": "a sum of the diagonal"}),
    OpInfo("diag", cygrad.diag, _diag_ref, dtypes=FLOATS, sample_inputs=_diag_samples,
           method="diag", skips={"test_function_class": "composed of views and copies"}),
    OpInfo("diag_embed", cygrad.diag_embed, _diag_embed_ref, dtypes=FLOATS,
           sample_inputs=_diag_embed_samples, method="diag_embed",
           skips={"test_function_class": "a copy into a diagonal view"}),
    OpInfo("block_diag", cygrad.block_diag, _block_diag_ref, dtypes=FLOATS,
           sample_inputs=_block_diag_samples, check_zero_size=False,
           skips={"test_function_class": "copies into slices"}),
    OpInfo("cov", cygrad.cov, _cov_ref, dtypes=FLOATS, sample_inputs=_cov_samples, method="cov",
           skips={"test_function_class": "composed of means and a product"}),
    OpInfo("corrcoef", cygrad.corrcoef, np.corrcoef, dtypes=FLOATS,
           sample_inputs=lambda o, d, r: [SampleInput(make_array((3, 5), d, r), name="rows")],
           method="corrcoef", skips={"test_function_class": "composed of cov and a clamp"}),
    OpInfo("dist", cygrad.dist, _dist_ref, dtypes=FLOATS, sample_inputs=_dist_samples,
           method="dist", skips={"test_function_class": "the reduction family's Norm"}),
    OpInfo("renorm", cygrad.renorm, _renorm_ref, dtypes=FLOATS, sample_inputs=_renorm_samples,
           method="renorm", inplace="renorm_", atol=1e-5,
           skips={"test_function_class": "a product with the scale"}),
    OpInfo("ormqr", _ormqr_op, _ormqr_ref, dtypes=FLOATS, sample_inputs=_ormqr_samples,
           torch_name="ormqr", skips={"test_function_class": "composed of products"}),
]
