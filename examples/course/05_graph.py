"""Lesson 05: the graph.

Run it: ``python examples/course/05_graph.py``.

Every op on a tensor that requires grad records a *node* (``grad_fn``). A node knows
where its inputs came from: ``next_functions``, one ``(node, output_index)`` edge per
input, ending at ``AccumulateGrad`` nodes for the leaves (the tensors you created
with ``requires_grad=True``). Together they form a directed acyclic graph from the
output back to the leaves.

Before backward can run a node, *all* gradients flowing into it must have arrived: a
node used twice gets two contributions, which add. So the engine first counts, for
every node, how many edges point at it (its dependencies).

Exercise (``python -m cygrad.course make-assignment graph OUT/``):

* ``count-dependencies`` in ``cygrad/autograd/reference.py``: step 1 of the
  one-page reference engine.
"""
import math
from collections import Counter

import cygrad
from cygrad.autograd.reference import backward as reference_backward


def section(title):
    print(f"\n== {title}")


def walk(node, depth=0, seen=None):
    """Print the graph below ``node``, each node once."""
    seen = set() if seen is None else seen
    label = type(node).__name__ if not hasattr(node, "name") else node.name()
    again = " (already shown)" if node in seen else ""
    print("    " * depth + label + again)
    if again:
        return
    seen.add(node)
    for child, _ in node.next_functions:
        if child is not None:
            walk(child, depth + 1, seen)


# ---------------------------------------------------------------------------------------
section("1. Nodes and edges")
x = cygrad.tensor(0.5, dtype=cygrad.float64, requires_grad=True)
y = x * x
z = y + y.exp()           # y reaches z along two paths: a diamond
print("z.grad_fn =", z.grad_fn.name())
print("its edges:", [(n.name(), k) for n, k in z.grad_fn.next_functions])
walk(z.grad_fn)

# ---------------------------------------------------------------------------------------
section("2. Counting dependencies")
# Collect every node once, then count the edges that end at each. (The reference
# engine does this in one walk: that is the exercise.)
nodes, stack = [z.grad_fn], [z.grad_fn]
while stack:
    for child, _ in stack.pop().next_functions:
        if child is not None and child not in nodes:
            nodes.append(child)
            stack.append(child)
edges_into = Counter(child for node in nodes for child, _ in node.next_functions)
counts = {node: edges_into[node] for node in nodes}
for node, n in counts.items():
    print(f"{node.name():<18} {n} edge(s) in")
print("MulBackward0 waits for 2 gradients (from AddBackward0 and ExpBackward0)")

# ---------------------------------------------------------------------------------------
section("3. The reference engine uses these counts")
# cygrad/autograd/reference.py is the whole algorithm on one page; the real engine
# (compiled, cygrad/_core/engine.pyx) computes the same gradients.
reference_backward(z)
expect = 2 * 0.5 * (1 + math.exp(0.25))
print(f"reference engine: dz/dx = {x.grad.item():.10f}; by hand 2x(1 + e^(x^2)) = {expect:.10f}")
ref = x.grad.item()
x.grad = None
z.backward()
print(f"real engine:      dz/dx = {x.grad.item():.10f}")
assert math.isclose(ref, expect, rel_tol=1e-12) and ref == x.grad.item()
