"""Values on complex inputs against NumPy where complex needs its own formula: the
linalg functions that need conjugate transposes (pinv, lstsq, cholesky(upper=True)),
slogdet's complex sign, and the statistics that take |x|**2 or work per component
(var, std, nansum, nanmean, nan_to_num). (Their gradients: the complex rows of
tests/numpy_cases.py.)"""
import numpy as np
import pytest

import cygrad.numpy as cnp

R = np.random.default_rng(5)
TALL = R.standard_normal((4, 3)) + 1j * R.standard_normal((4, 3))
WIDE = TALL.T.copy()
HERM = TALL.conj().T @ TALL + np.eye(3)


@pytest.mark.parametrize("a", [TALL, WIDE], ids=["tall", "wide"])
def test_pinv(a):
    np.testing.assert_allclose(cnp.linalg.pinv(cnp.asarray(a)).numpy(), np.linalg.pinv(a),
                               rtol=1e-10, atol=1e-12)


def test_lstsq_solution_and_real_residuals():
    b = R.standard_normal(4) + 1j * R.standard_normal(4)
    x, res, rank, s = cnp.linalg.lstsq(cnp.asarray(TALL), cnp.asarray(b))
    want_x, want_res, want_rank, want_s = np.linalg.lstsq(TALL, b)
    np.testing.assert_allclose(x.numpy(), want_x, rtol=1e-10, atol=1e-12)
    assert res.numpy().dtype == want_res.dtype == np.float64
    np.testing.assert_allclose(res.numpy(), want_res, rtol=1e-10)
    assert rank == want_rank
    np.testing.assert_allclose(s.numpy(), want_s, rtol=1e-10)


def test_cholesky_upper_is_the_conjugate_transpose():
    got = cnp.linalg.cholesky(cnp.asarray(HERM), upper=True).numpy()
    np.testing.assert_allclose(got, np.linalg.cholesky(HERM, upper=True), rtol=1e-10, atol=1e-12)
    np.testing.assert_allclose(got.conj().T @ got, HERM, rtol=1e-10)


def test_slogdet_and_det():
    a = HERM + 1j * np.triu(np.ones((3, 3)))
    sign, logabs = cnp.linalg.slogdet(cnp.asarray(a))
    want_sign, want_logabs = np.linalg.slogdet(a)
    np.testing.assert_allclose(sign.numpy(), want_sign, rtol=1e-10)
    np.testing.assert_allclose(logabs.numpy(), want_logabs, rtol=1e-10)
    np.testing.assert_allclose(cnp.linalg.det(cnp.asarray(a)).numpy(), np.linalg.det(a), rtol=1e-10)


Z = np.array([[complex(np.nan, 1), 2 + 1j, 3j, -1 - 1j],
              [1, complex(0, np.nan), 2 - 1j, 0.5j],
              [complex(np.inf, -2), 1 + 1j, complex(-np.inf, np.inf), 2]])
FINITE = R.standard_normal((3, 4)) + 1j * R.standard_normal((3, 4))


@pytest.mark.parametrize("name", ["var", "std"])
@pytest.mark.parametrize("kw", [{}, {"axis": 0}, {"axis": 1, "ddof": 1}, {"axis": (0, 1)}])
def test_spread_is_real(name, kw):
    got = getattr(cnp, name)(cnp.asarray(FINITE), **kw)
    want = getattr(np, name)(FINITE, **kw)
    assert got.numpy().dtype == want.dtype == np.float64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("name", ["nansum", "nanmean"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_nan_reductions_skip_complex_nans(name, axis):
    a = Z[:2]       # NaNs only: infinities would make both results infinite or NaN
    got = getattr(cnp, name)(cnp.asarray(a), axis=axis)
    want = getattr(np, name)(a, axis=axis)
    assert got.numpy().dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("kw", [{}, {"nan": 1.5, "posinf": 2.0, "neginf": -3.0}])
def test_nan_to_num_works_per_component(kw):
    got = cnp.nan_to_num(cnp.asarray(Z), **kw).numpy()
    want = np.nan_to_num(Z, **kw)
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
