"""The complex64/complex128 'cuda' kernels of cygrad/cuda/ops/linalg.py on the emulated
GPU (strict mode): the LU family (solve, inv, det, slogdet, lu_factor) against NumPy's
complex128 results and the CPU kernels of the same primitives, batched and
non-contiguous inputs, singular matrices (the CPU's errors), the ops built on the
complex kernels (Cholesky's and the triangular solve's too) against the CPU. (The
complex Cholesky and triangular solve kernels themselves, and the complex gradients
of solve, inv and det against the CPU's, are checked in test_linalg.py.)
"""
import os
import sys

import numpy as np
import pytest

import cygrad
from cygrad._core import dispatch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import both_devices as _both  # noqa: E402
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx

DTYPES = [cygrad.complex64, cygrad.complex128]


def _tol(dtype, scale=1.0):
    return dict(rtol=2e-4 * scale, atol=2e-5 * scale) if dtype is cygrad.complex64 else \
        dict(rtol=1e-10 * scale, atol=1e-11 * scale)


def _cn(rng, shape):
    """A complex128 array of independent standard normal parts."""
    return rng.standard_normal(shape) + 1j * rng.standard_normal(shape)


def _hermitian_pd(rng, shape):
    m = _cn(rng, shape)
    return m @ np.conj(np.swapaxes(m, -1, -2)) + shape[-1] * np.eye(shape[-1])


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", [((1, 1), 1), ((4, 4), 3), ((3, 5, 5), 2),
                                     ((2, 3, 7, 7), 1), ((64, 64), 2)])
def test_solve_inv_det_slogdet_against_numpy_and_cpu(dtype, shape, k):
    rng = np.random.default_rng(shape[-1])
    a = cygrad.tensor(_cn(rng, shape), dtype=dtype)     # no dominant diagonal: pivoting matters
    b = cygrad.tensor(_cn(rng, shape[:-1] + (k,)), dtype=dtype)
    a_np, b_np = a.numpy().astype(np.complex128), b.numpy().astype(np.complex128)
    tol = _tol(dtype, max(1.0, float(np.max(np.linalg.cond(a_np))) / 100))
    want, got = _both("linalg_solve_ex", a, b, False)
    assert got[0].dtype == dtype.np_dtype and got[1].dtype == np.int32 and not got[1].any()
    np.testing.assert_allclose(got[0], np.linalg.solve(a_np, b_np), **tol)
    np.testing.assert_allclose(got[0], want[0], **tol)
    want, got = _both("linalg_inv_ex", a, False)
    np.testing.assert_allclose(got[0], np.linalg.inv(a_np), **tol)
    np.testing.assert_allclose(got[0], want[0], **tol)
    # the determinant in complex128, rounded to the dtype: a 64 x 64 one is past
    # complex64's range (|det| ~ 1e53), so its parts are infinite with their signs
    det = np.linalg.det(a_np)
    with np.errstate(over="ignore"):
        want = det.astype(dtype.np_dtype)
    got = dispatch.kernel("linalg_det", "cuda")(a.cuda()).cpu().numpy()
    atol = tol["atol"] * min(np.abs(det).max(), np.finfo(want.real.dtype).max)
    for part in ("real", "imag"):
        np.testing.assert_allclose(getattr(got, part), getattr(want, part), rtol=tol["rtol"],
                                   atol=atol)
    want, got = _both("linalg_slogdet", a)
    sign, logabs = np.linalg.slogdet(a_np)
    assert got[0].dtype == dtype.np_dtype and got[1].dtype == dtype.to_real().np_dtype
    assert [g.shape for g in got] == [w.shape for w in want]
    np.testing.assert_allclose(got[0], sign, **tol)            # the phase, |sign| = 1
    np.testing.assert_allclose(got[1], logabs, **tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 6, 6), (5, 3), (3, 5), (2, 1, 4, 4), (40, 40)])
def test_lu_factor_matches_cpu_getrf(dtype, shape):
    a = cygrad.tensor(_cn(np.random.default_rng(7), shape), dtype=dtype)
    want, got = _both("linalg_lu_factor", a)
    np.testing.assert_array_equal(got[1], want[1])         # the same pivots
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_allclose(got[0], want[0], **_tol(dtype, 100))


def test_lu_pivot_is_the_largest_modulus():
    # |3+3j| = 4.24 < |5| = 5, but |re| + |im| = 6 > 5: the modulus (the CPU's
    # lu_factor, NumPy's abs) picks row 2, BLAS izamax's |re| + |im| would keep row 1
    a = cygrad.tensor([[3 + 3j, 1], [5, 2j]], dtype=cygrad.complex128)
    want, got = _both("linalg_lu_factor", a)
    assert got[1].tolist() == want[1].tolist() == [2, 2]
    np.testing.assert_allclose(got[0], want[0], rtol=1e-15)


@pytest.mark.parametrize("dtype", DTYPES)
def test_non_contiguous_inputs(dtype):
    rng = np.random.default_rng(2)
    base = cygrad.tensor(_cn(rng, (3, 8, 8)), dtype=dtype)
    rhs = cygrad.tensor(_cn(rng, (3, 8, 6)), dtype=dtype)
    views = [(lambda t: t.mT, lambda t: t[..., ::2]),              # transposed; strided columns
             (lambda t: t[:, 1:7, 2:8], lambda t: t[:, 1:7, :3])]  # offset slices
    for av, bv in views:
        a_cpu, b_cpu = av(base), bv(rhs)
        a_cuda, b_cuda = av(base.cuda()), bv(rhs.cuda())
        assert not a_cuda.is_contiguous()
        a_np, b_np = a_cpu.numpy().astype(np.complex128), b_cpu.numpy().astype(np.complex128)
        tol = _tol(dtype, 100)
        for fn, ref in ((lambda a, b: cygrad.linalg.solve(a, b), np.linalg.solve),
                        (lambda a, b: cygrad.linalg.inv(a) @ b, lambda a, b: np.linalg.inv(a) @ b)):
            np.testing.assert_allclose(fn(a_cuda, b_cuda).cpu().numpy(), ref(a_np, b_np), **tol)
        np.testing.assert_allclose(cygrad.linalg.det(a_cuda).cpu().numpy(), np.linalg.det(a_np),
                                   **tol)
        lu_c, piv_c = cygrad.linalg.lu_factor(a_cuda)
        lu_h, piv_h = cygrad.linalg.lu_factor(a_cpu)
        assert piv_c.cpu().tolist() == piv_h.tolist()
        np.testing.assert_allclose(lu_c.cpu().numpy(), lu_h.numpy(), **tol)


def test_singular_complex_matrices_info_nan_and_errors():
    rng = np.random.default_rng(1)
    a_np = _cn(rng, (3, 4, 4))
    a_np[1, :, 2] = 0.0                  # a zero column: LU's third pivot is exactly zero
    a_np[2] = 0.0                        # all zero: the first pivot is zero
    a = cygrad.tensor(a_np)
    b = cygrad.tensor(_cn(rng, (3, 4, 2)))
    want, got = _both("linalg_lu_factor", a)
    assert got[2].tolist() == want[2].tolist() == [0, 3, 1]
    want, got = _both("linalg_inv_ex", a, False)
    assert got[1].tolist() == want[1].tolist()
    assert np.isnan(got[0][1:]).all() and not np.isnan(got[0][0]).any()
    np.testing.assert_allclose(got[0][0], want[0][0], rtol=1e-10)
    want, got = _both("linalg_solve_ex", a, b, False)
    assert got[1].tolist() == want[1].tolist() and np.isnan(got[0][1:]).all()
    want, got = _both("linalg_slogdet", a)
    assert got[0][1:].tolist() == [0j, 0j] and got[1][1:].tolist() == [-np.inf, -np.inf]
    np.testing.assert_allclose(got[0][0], want[0][0], rtol=1e-12)
    assert _both("linalg_det", a)[1][0][1:].tolist() == [0j, 0j]
    for fn, args in ((cygrad.linalg.inv, (a,)), (cygrad.linalg.solve, (a, b)),
                     (cygrad.linalg.inv_ex, (a,)), (cygrad.linalg.lu_factor, (a,))):
        kw = {"check_errors": True} if fn is cygrad.linalg.inv_ex else {}
        # (LinAlgError, a RuntimeError, except lu_factor's plain RuntimeError, as PyTorch)
        with pytest.raises(RuntimeError) as cpu_err:
            fn(*args, **kw)
        with pytest.raises(RuntimeError) as cuda_err:
            fn(*[t.cuda() for t in args], **kw)
        assert type(cuda_err.value) is type(cpu_err.value)
        assert str(cuda_err.value) == str(cpu_err.value)


def _ops_cases(rng):
    a = _cn(rng, (2, 4, 4)) + 3 * np.eye(4)
    b = _cn(rng, (2, 4, 3))
    chol = np.linalg.cholesky(_hermitian_pd(rng, (2, 4, 4)))
    a8, b8 = _cn(rng, (8, 8)) + 4 * np.eye(8), _cn(rng, (8,))
    la = cygrad.linalg
    return [
        ("solve_triangular_left_false", lambda a, b: la.solve_triangular(a, b, upper=False,
                                                                          left=False),
         (a, np.swapaxes(b, -1, -2))),
        ("cholesky_solve", lambda b, l: cygrad.cholesky_solve(b, l), (b, chol)),
        ("cholesky_solve_upper", lambda b, l: cygrad.cholesky_solve(b, l.mH, upper=True),
         (b, chol)),
        ("cholesky_inverse", lambda l: cygrad.cholesky_inverse(l), (chol,)),
        ("triangular_solve_transpose", lambda b, a: cygrad.triangular_solve(b, a,
                                                                             transpose=True)[0],
         (b, a)),
        ("lu", lambda a: la.lu(a)[1] @ la.lu(a)[2], (a,)),
        ("lu_solve_adjoint", lambda a, b: la.lu_solve(*la.lu_factor(a), b, adjoint=True), (a, b)),
        ("matrix_exp", lambda a: la.matrix_exp(a / 4), (a,)),
        ("tensorinv", lambda a: la.tensorinv(a.reshape(4, 2, 8), ind=2), (a8,)),
        ("tensorsolve", lambda a, b: la.tensorsolve(a.reshape(2, 4, 2, 4), b.reshape(2, 4)),
         (a8, b8)),
        ("logdet", lambda a: cygrad.logdet(a), (a,)),
    ]


@pytest.mark.parametrize("case", range(11))
def test_ops_built_on_the_kernels_match_cpu(case):
    name, fn, args = _ops_cases(np.random.default_rng(9))[case]
    got = fn(*[cygrad.tensor(x, device="cuda") for x in args])
    want = fn(*[cygrad.tensor(x) for x in args])
    assert got.is_cuda, name
    np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-10, atol=1e-12,
                               err_msg=name)
