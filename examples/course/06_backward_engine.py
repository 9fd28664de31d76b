"""Lesson 06: the backward engine.

Run it: ``python examples/course/06_backward_engine.py``.

With the dependency counts of lesson 05, backward is a work list:

1. Seed the output's node with the gradient (ones for a scalar loss); it is *ready*.
2. Pop a ready node. Call it on the gradients of its outputs; it returns one gradient
   per input edge. Add each into the buffer of the node at the other end of the edge
   and lower that node's count; at zero, all its gradients are in: it is ready.
3. An ``AccumulateGrad`` node (a leaf) adds its gradient into the leaf's ``.grad``.

One detail: if an input was broadcast, the node's gradient for it has the broadcast
shape and must be summed back to the input's shape (lesson 04's rule).

Exercises (``python -m cygrad.course make-assignment backward_engine OUT/``):

* ``ready-queue`` in ``cygrad/autograd/reference.py``: steps 2 and 3.
* ``sum-to-shape`` in ``cygrad/autograd/reference.py``: the sum back to an input's shape.
"""
import math

import numpy as np

import cygrad
from cygrad.autograd import reference
from cygrad.autograd.reference import _sum_to


def section(title):
    print(f"\n== {title}")


# ---------------------------------------------------------------------------------------
section("1. One node by hand")
# A node's apply() takes its outputs' gradients and returns its inputs' gradients.
a = cygrad.tensor([1.0, 2.0], dtype=cygrad.float64, requires_grad=True)
b = cygrad.tensor([3.0, 4.0], dtype=cygrad.float64, requires_grad=True)
out = a * b
grads = out.grad_fn.apply(cygrad.ones(2, dtype=cygrad.float64))
print("MulBackward0.apply(ones) ->", [g.tolist() for g in grads], "(b and a)")

# ---------------------------------------------------------------------------------------
section("2. The engine at work, traced")
# reference.backward calls reference._call(node, gradients) for every node it runs;
# wrapping that function shows the order in which nodes become ready.
x = cygrad.tensor(1.5, dtype=cygrad.float64, requires_grad=True)
loss = (x * x).sin() * x              # d/dx = sin(x^2) + 2x^2 cos(x^2)
original_call = reference._call


def traced_call(node, arrived):
    result = original_call(node, arrived)
    print(f"  ran {node.name():<14} with {len(arrived)} gradient(s) in, "
          f"sent {sum(g is not None for g in result)} on")
    return result


reference._call = traced_call
try:
    reference.backward(loss)
finally:
    reference._call = original_call
expect = math.sin(2.25) + 4.5 * math.cos(2.25)
print(f"x.grad = {x.grad.item():.10f}; by hand sin(x^2) + 2x^2 cos(x^2) = {expect:.10f}")

# ---------------------------------------------------------------------------------------
section("3. The reference engine and the real one agree")
print(f"reference.backward: x.grad = {x.grad.item():.10f}")
x.grad = None
loss.backward()
print(f"loss.backward():    x.grad = {x.grad.item():.10f}")
assert math.isclose(x.grad.item(), expect, rel_tol=1e-12)

# ---------------------------------------------------------------------------------------
section("4. Summing a broadcast gradient back (exercise sum-to-shape)")
g = cygrad.ones(2, 3, 4, dtype=cygrad.float64)
for shape in [(3, 1), (4,), (2, 1, 4)]:
    print(f"_sum_to(ones(2, 3, 4), {shape}) -> shape {tuple(_sum_to(g, shape).shape)}, "
          f"each entry {_sum_to(g, shape).numpy().ravel()[0]:.0f}")
c = cygrad.randn(3, 1, dtype=cygrad.float64, requires_grad=True)
r = cygrad.randn(4, dtype=cygrad.float64, requires_grad=True)
reference.backward((c + r).sum())
print("c.grad =", c.grad.numpy().ravel().tolist(), " r.grad =", r.grad.tolist())
assert np.array_equal(c.grad.numpy(), np.full((3, 1), 4.0))
