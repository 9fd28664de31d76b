"""Checks of lesson 08's exercises (nn.Linear's backward and its initialisation)
against NumPy and the distribution PyTorch documents, U(-1/sqrt(in), 1/sqrt(in))."""
import math

import numpy as np

import cygrad
from cygrad import nn


def test_linear_gradients_match_numpy(rng):
    x_np, w_np, b_np = rng.standard_normal((5, 3)), rng.standard_normal((4, 3)), \
        rng.standard_normal(4)
    g_np = rng.standard_normal((5, 4))
    x, w, b = (cygrad.tensor(a, requires_grad=True) for a in (x_np, w_np, b_np))
    nn.functional.linear(x, w, b).backward(cygrad.tensor(g_np))
    np.testing.assert_allclose(x.grad.numpy(), g_np @ w_np, rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), g_np.T @ x_np, rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), g_np.sum(axis=0), rtol=1e-12)


def test_linear_init_ranges_and_spread():
    cygrad.manual_seed(0)
    layer = nn.Linear(400, 300)
    bound = 1 / math.sqrt(400)
    w, b = layer.weight.detach().numpy(), layer.bias.detach().numpy()
    assert np.abs(w).max() <= bound and np.abs(b).max() <= bound
    # U(-c, c) has standard deviation c / sqrt(3): 120000 draws pin it within 1%
    assert abs(w.std() / (bound / math.sqrt(3)) - 1) < 0.01
    assert abs(w.mean()) < 0.01 * bound
    before = w.copy()
    layer.reset_parameters()
    assert not np.array_equal(before, layer.weight.detach().numpy())
