"""Values of cygrad.numpy.linalg on complex inputs against NumPy: the functions
whose formulas need conjugate transposes (pinv, lstsq, cholesky(upper=True)) and the
complex sign of slogdet. (Their gradients: the complex rows of tests/numpy_cases.py.)"""
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
