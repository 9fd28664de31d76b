"""Checks of lesson 09's exercises (the SGD and Adam update rules) against steps
worked out by hand. The exercises are the for-loop path (``_update``), so the
optimizers here ask for it with ``foreach=False``: by default SGD and Adam take
their fused C kernel."""
import math

import numpy as np

import cygrad
from cygrad.optim import SGD, Adam


def _grad_of_square(w, opt):
    """One step on loss = sum(w^2): gradient 2w."""
    opt.zero_grad()
    (w * w).sum().backward()
    opt.step()


def test_sgd_steps_by_hand():
    w = cygrad.tensor([1.0, -2.0], dtype=cygrad.float64, requires_grad=True)
    opt = SGD([w], lr=0.1, momentum=0.5, foreach=False)
    _grad_of_square(w, opt)     # g = [2, -4], b = g, w -= 0.1 b -> [0.8, -1.6]
    np.testing.assert_allclose(w.detach().numpy(), [0.8, -1.6], rtol=1e-12)
    _grad_of_square(w, opt)     # g = [1.6, -3.2], b = 0.5 b + g = [2.6, -5.2]
    np.testing.assert_allclose(w.detach().numpy(), [0.8 - 0.26, -1.6 + 0.52], rtol=1e-12)
    v = cygrad.tensor([1.0], dtype=cygrad.float64, requires_grad=True)
    _grad_of_square(v, SGD([v], lr=0.1, weight_decay=1.0, foreach=False))   # g = 2 + 1 = 3
    assert math.isclose(v.item(), 0.7, rel_tol=1e-12)


def test_adam_first_steps_by_hand():
    w = cygrad.tensor([3.0, -0.5], dtype=cygrad.float64, requires_grad=True)
    opt = Adam([w], lr=0.1, betas=(0.9, 0.99), eps=1e-8, foreach=False)
    m = v = np.zeros(2)
    p = np.array([3.0, -0.5])
    for t in (1, 2, 3):
        _grad_of_square(w, opt)
        g = 2 * p
        m = 0.9 * m + 0.1 * g
        v = 0.99 * v + 0.01 * g * g
        p = p - 0.1 * (m / (1 - 0.9 ** t)) / (np.sqrt(v / (1 - 0.99 ** t)) + 1e-8)
        np.testing.assert_allclose(w.detach().numpy(), p, rtol=1e-10)
