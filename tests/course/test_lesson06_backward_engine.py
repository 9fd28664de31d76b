"""Checks of lesson 06's exercises (the ready queue and summing a broadcast gradient
back) through the reference engine, against NumPy and hand-derived derivatives."""
import math

import numpy as np

import cygrad
from cygrad.autograd.reference import _sum_to, backward


def test_reference_matches_hand_derivatives():
    x = cygrad.tensor(1.5, dtype=cygrad.float64, requires_grad=True)
    backward((x * x).sin() * x)         # d/dx x sin(x^2) = sin(x^2) + 2x^2 cos(x^2)
    assert math.isclose(x.grad.item(), math.sin(2.25) + 4.5 * math.cos(2.25), rel_tol=1e-12)


def test_leaf_gradients_accumulate():
    x = cygrad.tensor([1.0, 2.0], dtype=cygrad.float64, requires_grad=True)
    backward((x * x).sum())
    backward((x * 3).sum())             # a second backward adds into .grad
    np.testing.assert_array_equal(x.grad.numpy(), [2 + 3, 4 + 3])


def test_sum_to_matches_numpy(rng):
    g = rng.standard_normal((2, 3, 4))
    for shape in [(3, 1), (4,), (1, 4), (2, 1, 1), (2, 3, 4), ()]:
        expect = g.sum(axis=tuple(range(3 - len(shape))))
        axes = tuple(i for i, n in enumerate(shape) if n == 1)
        expect = expect.sum(axis=axes, keepdims=True) if axes else expect
        got = _sum_to(cygrad.tensor(g), shape)
        assert tuple(got.shape) == shape
        np.testing.assert_allclose(got.numpy(), expect, rtol=1e-12)


def test_reference_broadcast_gradients(rng):
    a = cygrad.tensor(rng.standard_normal((3, 1)), requires_grad=True)
    b = cygrad.tensor(rng.standard_normal(4), requires_grad=True)
    w = rng.standard_normal((3, 4))
    backward(((a + b) * cygrad.tensor(w)).sum())
    np.testing.assert_allclose(a.grad.numpy(), w.sum(axis=1, keepdims=True), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), w.sum(axis=0), rtol=1e-12)
