"""The 'cuda' kernels of cygrad/cuda/ops/linalg.py on the emulated GPU (strict mode):
solve, inv, det, slogdet, lu_factor, cholesky, solve_triangular, qr, geqrf, eigh, svd
and nuclear_weights against the CPU kernels of the same primitives and NumPy, their
errors (PyTorch's LinAlgError messages, as the CPU's), and gradients through the ops
on the device against the CPU. Cholesky, solve_triangular, QR, eigh and svd also in
complex64 and complex128 here; the complex LU family is in test_linalg_complex.py.
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

DTYPES = [cygrad.float32, cygrad.float64]
# the kernels that also take complex (Cholesky and the triangular solve here; the LU
# family in test_linalg_complex.py)
ALL_DTYPES = DTYPES + [cygrad.complex64, cygrad.complex128]


def _tol(dtype, scale=1.0):
    return dict(rtol=2e-4 * scale, atol=2e-5 * scale) \
        if dtype in (cygrad.float32, cygrad.complex64) else \
        dict(rtol=1e-10 * scale, atol=1e-11 * scale)


def _normal(rng, shape, dtype=cygrad.float64):
    """Standard normal values, with an independent imaginary part for a complex dtype."""
    x = rng.standard_normal(shape)
    return x + 1j * rng.standard_normal(shape) if dtype.is_complex else x


def _positive_definite(rng, shape, dtype=cygrad.float64):
    """m m^H + n I: symmetric (Hermitian for a complex dtype) positive-definite."""
    m = _normal(rng, shape, dtype)
    return m @ np.conj(np.swapaxes(m, -1, -2)) + shape[-1] * np.eye(shape[-1])


def _well_conditioned(rng, shape):
    a = rng.standard_normal(shape)
    return a + shape[-1] * np.eye(shape[-1]) * np.sign(rng.standard_normal(shape[:-2] + (1, 1)))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape,k", [((1, 1), 1), ((4, 4), 3), ((3, 5, 5), 2), ((2, 3, 7, 7), 1),
                                     ((40, 40), 5)])
def test_solve_inv_det_slogdet_against_cpu_and_numpy(dtype, shape, k):
    rng = np.random.default_rng(shape[-1])
    a_np = rng.standard_normal(shape)           # pivoting matters: no dominant diagonal
    b_np = rng.standard_normal(shape[:-1] + (k,))
    a, b = cygrad.tensor(a_np, dtype=dtype), cygrad.tensor(b_np, dtype=dtype)
    cond = float(np.max(np.linalg.cond(a_np)))
    tol = _tol(dtype, max(1.0, cond / 100))
    want, got = _both("linalg_solve", a, b)
    np.testing.assert_allclose(got[0], want[0], **tol)
    want, got = _both("linalg_solve_ex", a, b, False)
    np.testing.assert_allclose(got[0], np.linalg.solve(a_np, b_np), **tol)
    assert got[1].dtype == np.int32 and not got[1].any() and got[1].shape == shape[:-2]
    want, got = _both("linalg_inv_ex", a, False)
    np.testing.assert_allclose(got[0], np.linalg.inv(a_np), **tol)
    want, got = _both("linalg_det", a)
    np.testing.assert_allclose(got[0], np.linalg.det(a_np), **tol)
    want, got = _both("linalg_slogdet", a)
    sign, logabs = np.linalg.slogdet(a_np)
    np.testing.assert_array_equal(got[0], sign)
    np.testing.assert_allclose(got[1], logabs, **tol)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (2, 6, 6), (5, 3), (3, 5), (2, 1, 4, 4)])
def test_lu_factor_matches_cpu_getrf(dtype, shape):
    rng = np.random.default_rng(7)
    a = cygrad.tensor(rng.standard_normal(shape), dtype=dtype)
    want, got = _both("linalg_lu_factor", a)
    np.testing.assert_array_equal(got[1], want[1])         # the same pivots
    assert got[1].dtype == np.int32 and got[2].dtype == np.int32
    np.testing.assert_array_equal(got[2], want[2])
    np.testing.assert_allclose(got[0], want[0], **_tol(dtype, 10))


def test_singular_matrices_info_nan_and_errors():
    rng = np.random.default_rng(1)
    a_np = rng.standard_normal((3, 4, 4))
    a_np[1, :, 2] = 0.0                  # a zero column: LU's third pivot is exactly zero
    a_np[2, 3] = a_np[2, 0]              # two equal rows
    a = cygrad.tensor(a_np)
    b = cygrad.tensor(rng.standard_normal((3, 4, 2)))
    want, got = _both("linalg_lu_factor", a)
    np.testing.assert_array_equal(got[2], want[2])
    want, got = _both("linalg_inv_ex", a, False)
    assert got[1].tolist() == want[1].tolist() and got[1][1] == 3
    assert np.isnan(got[0][1]).all() and not np.isnan(got[0][0]).any()
    np.testing.assert_allclose(got[0][0], want[0][0], rtol=1e-10)
    want, got = _both("linalg_solve_ex", a, b, False)
    assert got[1].tolist() == want[1].tolist() and np.isnan(got[0][1]).all()
    want, got = _both("linalg_slogdet", a)
    assert got[0][1] == 0.0 and got[1][1] == -np.inf
    assert _both("linalg_det", a)[1][0][1] == 0.0
    for fn, args in ((cygrad.linalg.inv, (a,)), (cygrad.linalg.solve, (a, b)),
                     (cygrad.linalg.inv_ex, (a,))):
        kw = {"check_errors": True} if fn is cygrad.linalg.inv_ex else {}
        with pytest.raises(cygrad.linalg.LinAlgError) as cpu_err:
            fn(*args, **kw)
        with pytest.raises(cygrad.linalg.LinAlgError) as cuda_err:
            fn(*[t.cuda() for t in args], **kw)
        assert str(cuda_err.value) == str(cpu_err.value)
    single = cygrad.zeros(2, 2, device="cuda", dtype=cygrad.float64)
    with pytest.raises(cygrad.linalg.LinAlgError, match=r"^linalg.inv: The diagonal element 1"):
        cygrad.linalg.inv(single)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (5, 5), (3, 6, 6), (33, 33), (48, 48)])
def test_cholesky_against_cpu_and_numpy(dtype, shape):
    rng = np.random.default_rng(3)
    spd = _positive_definite(rng, shape, dtype)
    junk = np.triu(_normal(rng, shape, dtype), 1)        # only the lower triangle is read
    if dtype.is_complex:                 # nor the diagonal's imaginary part (as potrf)
        junk = junk + 1j * np.diag(rng.standard_normal(shape[-1]))
    a = cygrad.tensor(spd + junk, dtype=dtype)
    want, got = _both("linalg_cholesky_ex", a, False)
    np.testing.assert_allclose(got[0], np.linalg.cholesky(spd), **_tol(dtype, 10))
    np.testing.assert_allclose(got[0], want[0], **_tol(dtype, 10))
    assert not got[1].any()
    assert np.array_equal(np.triu(got[0], 1), np.zeros(shape))
    assert not np.diagonal(got[0], axis1=-2, axis2=-1).imag.any()    # (complex: real, > 0)


@pytest.mark.parametrize("dtype", [cygrad.float64, cygrad.complex128])
def test_cholesky_not_positive_definite(dtype):
    rng = np.random.default_rng(4)
    spd = _positive_definite(rng, (3, 5, 5), dtype)
    spd[1, 3, 3] = -50.0
    spd[2] = -np.eye(5)
    a = cygrad.tensor(spd)
    want, got = _both("linalg_cholesky_ex", a, False)
    assert got[1].tolist() == want[1].tolist() == [0, 4, 1]
    assert np.isnan(got[0][1:]).all()
    np.testing.assert_allclose(got[0][0], want[0][0], rtol=1e-12)
    with pytest.raises(cygrad.linalg.LinAlgError) as cpu_err:
        cygrad.linalg.cholesky(a)
    with pytest.raises(cygrad.linalg.LinAlgError) as cuda_err:
        cygrad.linalg.cholesky(a.cuda())
    assert str(cuda_err.value) == str(cpu_err.value)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("upper", [True, False])
@pytest.mark.parametrize("unit", [True, False])
def test_solve_triangular_against_cpu(dtype, upper, unit):
    rng = np.random.default_rng(5)
    a = cygrad.tensor(_normal(rng, (2, 6, 6), dtype) + 4 * np.eye(6), dtype=dtype)
    b = cygrad.tensor(_normal(rng, (2, 6, 3), dtype), dtype=dtype)
    want, got = _both("linalg_solve_triangular", a, b, upper, unit)
    np.testing.assert_allclose(got[0], want[0], **_tol(dtype, 10))
    tri = np.triu(a.numpy()) if upper else np.tril(a.numpy())
    if unit:
        tri = tri - np.diag(np.diag(tri[0]))[None] * 0 - tri * np.eye(6) + np.eye(6)
    np.testing.assert_allclose(got[0], np.linalg.solve(tri, b.numpy()), **_tol(dtype, 10))
    zero = a.clone()
    zero[0, 2, 2] = 0.0                            # no error: infinities and NaNs, as trsm
    want, got = _both("linalg_solve_triangular", zero, b, upper, False)
    assert not np.isfinite(got[0][0]).all() and np.isfinite(got[0][1]).all()


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(4, 4), (6, 3), (3, 6), (2, 5, 5), (7, 1), (1, 1), (30, 30)])
def test_qr_and_geqrf_match_lapack(dtype, shape):
    rng = np.random.default_rng(10)
    a = cygrad.tensor(_normal(rng, shape, dtype), dtype=dtype)
    a_np = a.numpy()
    want, got = _both("linalg_geqrf", a)               # LAPACK's reflectors and signs
    for g, w in zip(got, want):
        assert g.shape == w.shape
        np.testing.assert_allclose(g, w, **_tol(dtype, 10))
    for mode in ("reduced", "complete"):
        want, got = _both("linalg_qr", a, mode)
        ref = np.linalg.qr(a_np, mode=mode)
        for g, w, r in zip(got, want, ref):
            assert g.shape == w.shape == r.shape
            np.testing.assert_allclose(g, w, **_tol(dtype, 10))
            np.testing.assert_allclose(g, r, **_tol(dtype, 10))
    q, r = cygrad.linalg.qr(a.cuda())
    assert q.is_cuda and r.is_cuda
    np.testing.assert_allclose((q @ r).cpu().numpy(), a_np, **_tol(dtype, 10))


def test_complex_qr_of_a_triangular_matrix_keeps_lapacks_reflectors():
    # x = 0 below a non-real diagonal: zlarfg still reflects (tau != 0, beta real); only
    # a real diagonal (the last column's 2.0) gives tau = 0
    a_np = np.triu(_normal(np.random.default_rng(15), (4, 4), cygrad.complex128))
    a_np[3, 3] = 2.0
    a = cygrad.tensor(a_np)
    want, got = _both("linalg_geqrf", a)
    assert want[1][3] == got[1][3] == 0 and (got[1][:3] != 0).all()
    np.testing.assert_array_equal(np.diagonal(got[0]).imag, 0)
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (2, 2), (5, 5), (3, 6, 6), (24, 24)])
@pytest.mark.parametrize("uplo", ["L", "U"])
def test_eigh_against_cpu_and_numpy(dtype, shape, uplo):
    rng = np.random.default_rng(11)
    m = _normal(rng, shape, dtype)
    sym = m + np.conj(np.swapaxes(m, -1, -2))            # symmetric; complex: Hermitian
    # the other triangle holds junk: only the uplo triangle is read (and, complex, not
    # the diagonal's imaginary part, as LAPACK's heevd)
    junk = np.triu(_normal(rng, shape, dtype), 1) if uplo == "L" else \
        np.tril(_normal(rng, shape, dtype), -1)
    if dtype.is_complex:
        junk = junk + 1j * np.diag(rng.standard_normal(shape[-1]))
    a = cygrad.tensor(sym + junk, dtype=dtype)
    wide = np.complex128 if dtype.is_complex else np.float64
    sym = cygrad.tensor(sym, dtype=dtype).numpy().astype(wide)         # (rounded as a is)
    want, got = _both("linalg_eigh_uplo", a, uplo)
    tol = _tol(dtype, 100)
    w_ref, v_ref = np.linalg.eigh(sym)
    w, v = got
    assert w.dtype == dtype.to_real().np_dtype and v.dtype == dtype.np_dtype
    np.testing.assert_allclose(w, want[0], **tol)
    np.testing.assert_allclose(w, w_ref, **tol)
    assert np.all(np.diff(w, axis=-1) >= 0)                    # ascending
    vh = np.conj(np.swapaxes(v, -1, -2))
    np.testing.assert_allclose((v * w[..., None, :]) @ vh, sym, **tol)
    eye = np.broadcast_to(np.eye(shape[-1]), v.shape)
    np.testing.assert_allclose(vh @ v, eye, **tol)
    # distinct eigenvalues: each eigenvector is the CPU's up to its sign (complex: phase)
    np.testing.assert_allclose(np.abs(np.sum(np.conj(v) * v_ref, axis=-2)), 1.0, **tol)


def test_eigh_repeated_eigenvalues_and_ops():
    a = cygrad.tensor(np.diag([2.0, 1.0, 2.0, -3.0]))
    w, v = dispatch.kernel("linalg_eigh", "cuda")(a.cuda())
    assert w.cpu().tolist() == [-3.0, 1.0, 2.0, 2.0]
    np.testing.assert_array_equal(np.abs(v.cpu().numpy()),
                                  np.eye(4)[:, [3, 1, 0, 2]])  # (stable order of the ties)
    zero = dispatch.kernel("linalg_eigh", "cuda")(cygrad.zeros(3, 3, device="cuda"))
    assert zero[0].cpu().tolist() == [0.0] * 3
    rng = np.random.default_rng(12)
    m = rng.standard_normal((2, 5, 5))
    sym = cygrad.tensor(m + np.swapaxes(m, -1, -2))
    herm = cygrad.tensor(sym.numpy() + 1j * (m - np.swapaxes(m, -1, -2)))     # Hermitian
    for x in (sym, herm):
        got = cygrad.linalg.eigvalsh(x.cuda())
        assert got.is_cuda and got.dtype is cygrad.float64
        np.testing.assert_allclose(got.cpu().numpy(), cygrad.linalg.eigvalsh(x).numpy(),
                                   rtol=1e-12, atol=1e-12)


def _h(x):
    """The conjugate transpose of the last two dims."""
    return np.conj(np.swapaxes(x, -1, -2))


@pytest.mark.parametrize("dtype", ALL_DTYPES)
@pytest.mark.parametrize("shape", [(1, 1), (4, 4), (6, 3), (3, 6), (2, 5, 4), (2, 4, 5), (7, 1),
                                   (16, 16)])
@pytest.mark.parametrize("full", [False, True])
def test_svd_against_cpu_and_numpy(dtype, shape, full):
    rng = np.random.default_rng(13)
    a = cygrad.tensor(_normal(rng, shape, dtype), dtype=dtype)
    a_np = a.numpy().astype(np.complex128 if dtype.is_complex else np.float64)
    want, got = _both("linalg_svd", a, full)
    u, s, vh = got
    assert [g.shape for g in got] == [w.shape for w in want]
    assert s.dtype == dtype.to_real().np_dtype and u.dtype == vh.dtype == dtype.np_dtype
    tol = _tol(dtype, 100)
    np.testing.assert_allclose(s, want[1], **tol)
    np.testing.assert_allclose(s, np.linalg.svd(a_np, compute_uv=False), **tol)
    assert np.all(np.diff(s, axis=-1) <= 0)                   # descending
    k = min(shape[-2:])
    np.testing.assert_allclose((u[..., :k] * s[..., None, :]) @ vh[..., :k, :], a_np, **tol)
    for q in (_h(u) @ u, vh @ _h(vh)):
        np.testing.assert_allclose(q, np.broadcast_to(np.eye(q.shape[-1]), q.shape), **tol)
    # distinct singular values: each singular vector is the CPU's up to its sign (phase)
    np.testing.assert_allclose(np.abs(np.sum(np.conj(u[..., :k]) * want[0][..., :k], axis=-2)),
                               1.0, **tol)


@pytest.mark.parametrize("dtype", [cygrad.float64, cygrad.complex128])
def test_svd_of_a_rank_deficient_matrix_and_nuclear_weights(dtype):
    rng = np.random.default_rng(14)
    a_np = _normal(rng, (6, 2), dtype) @ _normal(rng, (2, 4), dtype)          # rank 2
    for full in (False, True):
        u, s, vh = [t.cpu().numpy() for t in
                    dispatch.kernel("linalg_svd", "cuda")(cygrad.tensor(a_np).cuda(), full)]
        np.testing.assert_allclose(s, np.linalg.svd(a_np, compute_uv=False), atol=1e-12)
        # the columns no singular value defines are completed to an orthonormal basis
        np.testing.assert_allclose(_h(u) @ u, np.eye(u.shape[1]), atol=1e-12)
        np.testing.assert_allclose((u[:, :4] * s) @ vh[:4], a_np, atol=1e-12)
    x = cygrad.tensor(_normal(rng, (3, 4, 2), dtype))
    want, got = _both("nuclear_weights", x, (0, 1))
    np.testing.assert_allclose(got[0], want[0], rtol=1e-10, atol=1e-12)
    got = cygrad.linalg.svdvals(cygrad.tensor(a_np).cuda())
    assert got.is_cuda
    np.testing.assert_allclose(got.cpu().numpy(), np.linalg.svd(a_np, compute_uv=False),
                               atol=1e-12)


def test_unsupported_dtype_raises_not_implemented():
    # the kernels take the two real and the two complex dtypes, no integers or halves
    for dt, name, args in ((cygrad.int32, "linalg_inv_ex", (False,)),
                           (cygrad.float16, "linalg_qr", ("reduced",))):
        a = cygrad.eye(2, dtype=dt).cuda()
        with pytest.raises(NotImplementedError,
                           match=f"'{name}'.*{dt.name} on cuda "
                                 r"\(float32, float64, complex64 and complex128 only"):
            dispatch.kernel(name, "cuda")(a, *args)


# ---- gradients through the ops on the device --------------------------------------------

def _grads(fn, arrays, device):
    ts = [cygrad.tensor(x, device=device, requires_grad=True) for x in arrays]
    out = fn(*ts)
    # |out|^2 summed: a real loss of a complex out too
    (out * out.conj()).real.sum().backward() if out.is_complex() else (out * out).sum().backward()
    return out, [t.grad for t in ts]


@pytest.mark.parametrize("dtype", [cygrad.float64, cygrad.complex128])
@pytest.mark.parametrize("fn", [
    lambda a, b: cygrad.linalg.solve(a, b),
    lambda a, b: cygrad.linalg.inv(a) @ b,
    lambda a, b: cygrad.linalg.det(a)[:, None, None] * b,
], ids=["solve", "inv", "det"])
def test_gradients_on_cuda_match_cpu(fn, dtype):
    rng = np.random.default_rng(8)
    arrays = [_normal(rng, (2, 4, 4), dtype) + 3 * np.eye(4), _normal(rng, (2, 4, 3), dtype)]
    out, grads = _grads(fn, arrays, "cuda")
    want_out, want = _grads(fn, arrays, "cpu")
    assert out.is_cuda and all(g.is_cuda for g in grads)
    np.testing.assert_allclose(out.detach().cpu().numpy(), want_out.detach().numpy(), rtol=1e-10)
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-9, atol=1e-12)


def _eye4(a):
    return cygrad.eye(4, dtype=a.dtype, device=a.device)


# real scalar losses of the decompositions' outputs (phase- and sign-free for eigh,
# svd and qr: eigenvalues, singular values, |R|)
@pytest.mark.parametrize("dtype", [cygrad.float64, cygrad.complex128])
@pytest.mark.parametrize("fn", [
    lambda a: cygrad.linalg.eigvalsh(a + a.mH).square().sum(),
    lambda a: cygrad.linalg.svdvals(a).square().sum(),
    lambda a: cygrad.linalg.slogdet(a)[1].sum(),
    lambda a: cygrad.linalg.qr(a)[1].abs().sum(),
    lambda a: cygrad.linalg.cholesky(a @ a.mH + 4 * _eye4(a)).abs().sum(),
    lambda a: cygrad.linalg.solve_triangular(a + 4 * _eye4(a), a.mH, upper=True).abs().sum(),
], ids=["eigvalsh", "svdvals", "slogdet", "qr", "cholesky", "solve_triangular"])
def test_decomposition_gradients_on_cuda_match_cpu(fn, dtype):
    x = _normal(np.random.default_rng(16), (2, 4, 4), dtype)
    grads = []
    for device in ("cuda", "cpu"):
        t = cygrad.tensor(x, device=device, requires_grad=True)
        fn(t).backward()
        grads.append(t.grad)
    assert grads[0].is_cuda
    np.testing.assert_allclose(grads[0].cpu().numpy(), grads[1].numpy(), rtol=1e-9, atol=1e-12)


def test_ops_forward_on_cuda_match_cpu():
    rng = np.random.default_rng(9)
    a_np, b_np = rng.standard_normal((2, 4, 4)) + 3 * np.eye(4), rng.standard_normal((2, 4, 3))
    spd = a_np @ np.swapaxes(a_np, -1, -2)
    for fn, args in ((lambda a, b: cygrad.linalg.solve_triangular(a, b, upper=True), (a_np, b_np)),
                     (lambda a, b: cygrad.linalg.solve_triangular(a, b, upper=False, left=False),
                      (a_np, np.swapaxes(b_np, -1, -2))),
                     (cygrad.linalg.cholesky, (spd,)), (cygrad.linalg.det, (a_np,))):
        got = fn(*[cygrad.tensor(x, device="cuda") for x in args])
        want = fn(*[cygrad.tensor(x) for x in args])
        assert got.is_cuda
        np.testing.assert_allclose(got.cpu().numpy(), want.numpy(), rtol=1e-10, atol=1e-12)
