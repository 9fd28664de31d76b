"""Lesson 01: scalars and the chain rule.

Run it: ``python examples/course/01_chain_rule.py`` (from the repository root).

A derivative says how much an output moves when an input is nudged. For a chain of
operations y = f(g(x)), the chain rule multiplies the local derivatives:
dy/dx = f'(g(x)) * g'(x). Reverse-mode autodiff (what ``.backward()`` does) applies
that rule from the output back to the inputs, one operation at a time; each
operation only has to know its *own* local derivative.

Exercises of this lesson (``python -m cygrad.course make-assignment chain_rule OUT/``):

* ``mul-partials`` in ``cygrad/ops/elementwise/binary.py``: the two partial
  derivatives of a * b.
* ``sin-derivative`` in ``cygrad/ops/elementwise/unary.py``: sin'(x).
"""
import math

import cygrad


def section(title):
    print(f"\n== {title}")


# ---------------------------------------------------------------------------------------
section("1. A derivative by nudging the input")
# The definition itself: (f(x + h) - f(x - h)) / 2h for a small h (a central
# difference). It costs two evaluations per input, and it is only approximate.


def f(x):
    return math.sin(x * x)


x0, h = 1.3, 1e-6
numeric = (f(x0 + h) - f(x0 - h)) / (2 * h)
by_hand = math.cos(x0 * x0) * 2 * x0            # chain rule: sin'(u) * u', u = x^2
print(f"f(x) = sin(x^2) at x = {x0}: central difference {numeric:.8f}, chain rule {by_hand:.8f}")

# ---------------------------------------------------------------------------------------
section("2. The same derivative by autograd")
# cygrad records each operation as it runs; backward() walks the record in reverse,
# multiplying local derivatives: the chain rule, mechanised.
x = cygrad.tensor(x0, dtype=cygrad.float64, requires_grad=True)
u = x * x            # MulBackward0 will send grad * x to each of its two inputs
y = u.sin()          # SinBackward0 will send grad * cos(u) to u
y.backward()
print(f"y.grad_fn = {y.grad_fn.name()}, its input's node = {y.grad_fn.next_functions[0][0].name()}")
print(f"x.grad = {x.grad.item():.8f}  (exact, no h)")
assert math.isclose(x.grad.item(), by_hand, rel_tol=1e-12)

# ---------------------------------------------------------------------------------------
section("3. Where the local derivatives live")
# Each op's derivative is written once, in the op's Function class. For a product the
# two partial derivatives are d(ab)/da = b and d(ab)/db = a (exercise mul-partials);
# for sin it is cos (exercise sin-derivative). Read them:
from cygrad.ops.elementwise import binary, unary   # noqa: E402  (after the prose)

print("Mul:", binary.Mul.__doc__)
print("Sin:", unary.Sin.__doc__)
a = cygrad.tensor(3.0, dtype=cygrad.float64, requires_grad=True)
b = cygrad.tensor(-2.0, dtype=cygrad.float64, requires_grad=True)
(a * b).backward()
print(f"d(ab)/da = {a.grad.item()} (= b), d(ab)/db = {b.grad.item()} (= a)")

# ---------------------------------------------------------------------------------------
section("4. Two paths add up")
# When x reaches the output along two paths, the gradients of the paths are summed:
# z = x*x + 3x has dz/dx = 2x + 3.
x = cygrad.tensor(2.0, dtype=cygrad.float64, requires_grad=True)
z = x * x + x * 3
z.backward()
print(f"z = x^2 + 3x at 2: dz/dx = {x.grad.item()} (2*2 + 3 = 7)")
assert x.grad.item() == 7.0

# ---------------------------------------------------------------------------------------
section("5. Checking a derivative: gradcheck")
# The project checks every op's derivative against central differences with
# cygrad.autograd.gradcheck (float64 inputs, all elements nudged one by one).
from cygrad.autograd import gradcheck   # noqa: E402

t = cygrad.tensor([0.3, -1.1, 2.0], dtype=cygrad.float64, requires_grad=True)
print("gradcheck(sin(x*x)) ->", gradcheck(lambda v: (v * v).sin(), (t,)))
