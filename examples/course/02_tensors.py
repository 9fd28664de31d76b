"""Lesson 02: tensors, from numbers to arrays.

Run it: ``python examples/course/02_tensors.py``.

A tensor is a block of numbers of one dtype, laid out in a flat buffer (its storage),
with a shape that says how to read the buffer as an n-dimensional array. Everything
lesson 01 did on single numbers works elementwise on whole tensors, and the gradient
of a tensor has the same shape as the tensor.

The tensor core itself is compiled Cython (``cygrad/_core/tensor.pyx``), which cannot
be blanked and still import; the exercise is in the Python that reads nested lists
into a tensor.

Exercise (``python -m cygrad.course make-assignment tensors OUT/``):

* ``infer-dtype`` in ``cygrad/_core/backend_cpu/_pydata.py``: the dtype
  ``cygrad.tensor(data)`` picks for Python data, as ``torch.tensor`` does.
"""
import numpy as np

import cygrad


def section(title):
    print(f"\n== {title}")


# ---------------------------------------------------------------------------------------
section("1. Making tensors")
a = cygrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
print(a)
print("shape", tuple(a.shape), "dtype", a.dtype, "bytes per element", a.element_size(),
      "elements", a.numel())
print(cygrad.zeros(2, 2), cygrad.arange(5), cygrad.linspace(0, 1, 3), sep="\n")

# ---------------------------------------------------------------------------------------
section("2. The dtype tensor() infers (exercise infer-dtype)")
for data in ([True, False], [1, 2], [1, 2.5], [1j]):
    print(f"cygrad.tensor({data!r:<14}) -> {cygrad.tensor(data).dtype}")
print("floats follow cygrad.get_default_dtype() =", cygrad.get_default_dtype())

# ---------------------------------------------------------------------------------------
section("3. dtypes and promotion")
# Mixing dtypes follows PyTorch's promotion rules: int + float -> float, and a Python
# number does not widen a tensor's float dtype.
i = cygrad.tensor([1, 2, 3])
print("int64 + float32 ->", (i + cygrad.ones(3)).dtype)
print("float32 tensor * 2.5 ->", (cygrad.ones(3) * 2.5).dtype)
print("int64 / int64 ->", (i / i).dtype, "(true division gives the default float dtype)")

# ---------------------------------------------------------------------------------------
section("4. One storage, shared with NumPy")
# .numpy() returns a NumPy array over the same memory: no copy. Writing through one
# is seen by the other.
n = a.numpy()
n[0, 0] = 100.0
print("after n[0, 0] = 100, a[0, 0] =", a[0, 0].item())
arr = np.arange(4.0)
b = cygrad.from_numpy(arr)
arr[0] = 7.0
print("from_numpy shares too: after arr[0] = 7, b[0] =", b[0].item())

# ---------------------------------------------------------------------------------------
section("5. Elementwise ops, reductions, matrix products")
x = cygrad.arange(6, dtype=cygrad.float64).reshape(2, 3)
print("x * x + 1 =", (x * x + 1).tolist())
print("sum over dim 1:", x.sum(1).tolist(), " mean:", x.mean().item())
print("x @ x.T =", (x @ x.t()).tolist())
assert np.allclose((x @ x.t()).numpy(), x.numpy() @ x.numpy().T)

# ---------------------------------------------------------------------------------------
section("6. Gradients have the tensor's shape")
# For a scalar loss L(x), x.grad[i, j] = dL/dx[i, j]. L = sum(x^2) gives 2x.
x.requires_grad_()
(x * x).sum().backward()
print("x.grad =", x.grad.tolist())
assert np.array_equal(x.grad.numpy(), 2 * x.detach().numpy())
