"""Checks of lesson 05's exercise (counting dependencies) through the reference engine,
against derivatives worked out by hand."""
import math

from cygrad.autograd.reference import backward
import cygrad


def _leaf(v):
    return cygrad.tensor(v, dtype=cygrad.float64, requires_grad=True)


def test_diamond_graph_gradient():
    # y = x*x feeds two branches that meet again: z = y + exp(y).
    # dz/dx = 2x (1 + exp(x^2)); the node of y may run only after both branches arrived.
    x = _leaf(0.5)
    y = x * x
    z = y + y.exp()
    backward(z)
    assert math.isclose(x.grad.item(), 2 * 0.5 * (1 + math.exp(0.25)), rel_tol=1e-12)


def test_node_used_three_times():
    # f = a*b + a*c + a, f' wrt a is b + c + 1
    a, b, c = _leaf(2.0), _leaf(3.0), _leaf(-5.0)
    backward(a * b + a * c + a)
    assert (a.grad.item(), b.grad.item(), c.grad.item()) == (3.0 - 5.0 + 1.0, 2.0, 2.0)
