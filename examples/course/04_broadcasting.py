"""Lesson 04: broadcasting.

Run it: ``python examples/course/04_broadcasting.py``.

Elementwise ops accept operands of different shapes when they *broadcast*: align the
shapes on the right; in each position the sizes must be equal or one of them 1, and
a missing leading dim counts as 1. The size-1 dims are stretched without copying:
``expand`` gives them stride 0, so every "copy" reads the same element.

Backward goes the other way. An element that was read k times received k gradients;
they add up. So the gradient of a broadcast operand is the output's gradient *summed*
over the dims broadcasting added or stretched.

Exercises (``python -m cygrad.course make-assignment broadcasting OUT/``):

* ``broadcast-shapes`` in ``cygrad/ops/shape/broadcasting.py``: the result shape, or
  PyTorch's RuntimeError.
* ``expand-backward`` in ``cygrad/ops/view_functions.py``: ExpandBackward0, the sum back.
"""
import numpy as np

import cygrad


def section(title):
    print(f"\n== {title}")


# ---------------------------------------------------------------------------------------
section("1. The rule")
for shapes in [((3, 1), (4,)), ((5, 1, 4), (3, 1)), ((), (2, 2)), ((2, 3), (4,))]:
    try:
        got = tuple(cygrad.broadcast_shapes(*shapes))
    except RuntimeError as e:
        got = f"RuntimeError: {str(e)[:60]}..."
    print(f"{' and '.join(map(str, shapes)):<22} -> {got}")

# ---------------------------------------------------------------------------------------
section("2. Stretching is a stride of 0")
col = cygrad.tensor([[1.0], [2.0], [3.0]])
wide = col.expand(3, 4)
print("col.expand(3, 4): shape", tuple(wide.shape), "strides", wide.stride(),
      "(stride 0: the 4 columns are one element)")
print("same memory:", wide.data_ptr() == col.data_ptr())
row = cygrad.arange(4.0)
print("col + row =", (col + row).tolist())
assert np.array_equal((col + row).numpy(), col.numpy() + row.numpy())

# ---------------------------------------------------------------------------------------
section("3. The gradient of a broadcast operand is a sum")
# out[i, j] = col[i] + row[j]: col[i] was used 4 times, row[j] 3 times.
col.requires_grad_()
row.requires_grad_()
(col + row).sum().backward()
print("col.grad =", col.grad.tolist(), "(4 uses each)")
print("row.grad =", row.grad.tolist(), "(3 uses each)")

# ---------------------------------------------------------------------------------------
section("4. ExpandBackward0 (exercise expand-backward)")
x = cygrad.randn(3, 1, dtype=cygrad.float64, requires_grad=True)
w = cygrad.randn(2, 3, 4, dtype=cygrad.float64)
y = x.expand(2, 3, 4)
print("y.grad_fn:", y.grad_fn.name())
(y * w).sum().backward()
expect = w.numpy().sum(axis=(0, 2))[:, None]      # summed over the added and the stretched dim
print("x.grad      =", np.round(x.grad.numpy().ravel(), 6).tolist())
print("sum of w    =", np.round(expect.ravel(), 6).tolist())
assert np.allclose(x.grad.numpy(), expect)
