"""Checks of lesson 01's exercises (scalars and the chain rule) against hand-derived
derivatives: d(ab) = b da + a db, sin' = cos, sin'' = -sin."""
import math

import numpy as np

import cygrad


def test_mul_gradients_are_the_other_factor(rng):
    a_np, b_np = rng.standard_normal(5), rng.standard_normal(5)
    a = cygrad.tensor(a_np, requires_grad=True)
    b = cygrad.tensor(b_np, requires_grad=True)
    (a * b).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), b_np)
    np.testing.assert_allclose(b.grad.numpy(), a_np)


def test_product_rule_through_a_chain():
    # f(x) = (3x)(x + 1) = 3x^2 + 3x, so f'(2) = 6*2 + 3 = 15; a Python number operand too
    x = cygrad.tensor(2.0, dtype=cygrad.float64, requires_grad=True)
    y = (x * 3) * (x + 1)
    y.backward()
    assert x.grad.item() == 15.0


def test_sin_gradient_is_cos(rng):
    x_np = rng.uniform(-3, 3, 7)
    x = cygrad.tensor(x_np, requires_grad=True)
    x.sin().sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.cos(x_np), rtol=1e-12)


def test_sin_second_derivative():
    # the derivative is built from cygrad ops, so it can itself be differentiated
    x = cygrad.tensor(0.7, dtype=cygrad.float64, requires_grad=True)
    (g,) = cygrad.autograd.grad(x.sin(), x, create_graph=True)
    (gg,) = cygrad.autograd.grad(g, x)
    assert math.isclose(g.item(), math.cos(0.7), rel_tol=1e-12)
    assert math.isclose(gg.item(), -math.sin(0.7), rel_tol=1e-12)
