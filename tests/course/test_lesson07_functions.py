"""Checks of lesson 07's exercises (a Function's backward and jvp, and gradcheck's
central differences) against NumPy's derivatives. The backward and jvp checks do not
use gradcheck, so each exercise is graded on its own."""
import numpy as np
import pytest

import cygrad
import cygrad.autograd.forward_ad as fwAD
from cygrad.autograd import Function, gradcheck
from cygrad.autograd.gradcheck import GradcheckError

# op name -> its derivative in NumPy
DERIVATIVES = {
    "exp": np.exp,
    "log": lambda x: 1 / x,
    "sin": np.cos,
    "tanh": lambda x: 1 - np.tanh(x) ** 2,
    "sigmoid": lambda x: np.exp(-x) / (1 + np.exp(-x)) ** 2,
}


@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_unary_backward_matches_numpy(name, rng):
    x_np = rng.uniform(0.2, 2.0, 6)
    g_np = rng.standard_normal(6)
    x = cygrad.tensor(x_np, requires_grad=True)
    getattr(x, name)().backward(cygrad.tensor(g_np))
    np.testing.assert_allclose(x.grad.numpy(), g_np * DERIVATIVES[name](x_np), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(DERIVATIVES))
def test_unary_jvp_matches_numpy(name, rng):
    x_np = rng.uniform(0.2, 2.0, 6)
    t_np = rng.standard_normal(6)
    with fwAD.dual_level():
        y = getattr(fwAD.make_dual(cygrad.tensor(x_np), cygrad.tensor(t_np)), name)()
        tangent = fwAD.unpack_dual(y).tangent
    np.testing.assert_allclose(tangent.numpy(), t_np * DERIVATIVES[name](x_np), rtol=1e-12)


def test_numerical_jacobian_of_a_known_function():
    from cygrad.autograd.gradcheck import _numerical_jacobians
    x = cygrad.tensor([0.3, -1.2, 2.0], dtype=cygrad.float64)
    # f(x) = x^3 has the diagonal Jacobian 3x^2; central differences are exact up to
    # eps^2 * f''' / 6 = eps^2 here
    jac = _numerical_jacobians(lambda t: t * t * t, (x,), [(0, x)], 1e-6)
    np.testing.assert_allclose(jac[0][0], np.diag(3 * x.numpy() ** 2), atol=1e-7)


class _WrongSquare(Function):
    """x^2 with the factor 2 forgotten in backward."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x

    @staticmethod
    def backward(ctx, grad):
        (x,) = ctx.saved_tensors
        return grad * x


def test_gradcheck_catches_a_wrong_backward():
    x = cygrad.tensor([0.5, -1.5], dtype=cygrad.float64, requires_grad=True)
    with pytest.raises(GradcheckError):
        gradcheck(_WrongSquare.apply, (x,))
    assert gradcheck(lambda t: t * t, (x,))
