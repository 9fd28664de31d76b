"""``logsumexp`` of a complex tensor: a complex result, as PyTorch's (it used to
drop the imaginary part and return float32). Values against NumPy in float64
and against PyTorch where it is installed; gradients by finite differences
(gradcheck/gradgradcheck, forward mode); the shift by the largest real part keeps
large inputs finite."""
import numpy as np
import pytest

import cygrad
from cygrad.autograd import gradcheck, gradgradcheck


def _reference(a, axis):
    return np.log(np.sum(np.exp(a.astype(np.complex128)), axis=axis))


@pytest.mark.parametrize("dtype,tol", [(cygrad.complex64, 2e-6), (cygrad.complex128, 1e-13)])
def test_values_against_numpy(dtype, tol):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((5, 7)) + 1j * rng.standard_normal((5, 7))
    x = cygrad.tensor(a, dtype=dtype)
    for dim, keepdim in ((1, False), (0, True), ((0, 1), False)):
        y = cygrad.logsumexp(x, dim, keepdim=keepdim)
        assert y.dtype == dtype
        ref = _reference(a, dim if isinstance(dim, tuple) else (dim,))
        if keepdim:
            ref = np.expand_dims(ref, dim)
        np.testing.assert_allclose(y.numpy(), ref, rtol=tol, atol=tol)


def test_large_real_parts_stay_finite():
    x = cygrad.tensor([[1000 + 1j, 1000 - 1j, 999 + 0.5j]], dtype=cygrad.complex128)
    y = cygrad.logsumexp(x, 1)
    shifted = np.log(np.sum(np.exp(x.numpy() - 1000))) + 1000
    np.testing.assert_allclose(y.numpy(), [shifted], rtol=1e-15)


def test_gradients_by_finite_differences():
    rng = np.random.default_rng(1)
    x = cygrad.tensor(rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4)),
                      requires_grad=True)
    fn = lambda t: cygrad.logsumexp(t, 1)       # noqa: E731
    assert gradcheck(fn, (x,), check_forward_ad=True)
    assert gradgradcheck(fn, (x,))


def test_out_takes_a_complex_tensor():
    x = cygrad.tensor([[1 + 1j, 2 - 1j]])
    out = cygrad.empty(1, dtype=cygrad.complex64)
    cygrad.logsumexp(x, 1, out=out)
    np.testing.assert_allclose(out.numpy(), _reference(x.numpy(), (1,)), rtol=1e-6)


def test_matches_pytorch_values_and_gradients():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for the gradient convention")
    a = np.array([[1 + 1j, 2 - 1j, 0.3 + 0.2j], [0.5j, -1 + 0j, 3 - 2j]])
    g = np.array([1 + 2j, 0.5 - 1j])
    x = cygrad.tensor(a, requires_grad=True)
    tx = torch.tensor(a, requires_grad=True)
    cygrad.logsumexp(x, 1).backward(cygrad.tensor(g))
    ty = torch.logsumexp(tx, 1)
    ty.backward(torch.tensor(g))
    np.testing.assert_allclose(cygrad.logsumexp(x, 1).detach().numpy(), ty.detach().numpy(),
                               rtol=1e-14)
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-13, atol=1e-15)
