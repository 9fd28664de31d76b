"""Lesson 03: strides and views.

Run it: ``python examples/course/03_strides_views.py``.

A tensor is (storage, shape, strides, offset): element [i, j] lives at
``offset + i * stride[0] + j * stride[1]`` in the flat storage. Changing only the
shape, strides and offset gives a new tensor over the *same* memory: a view.
Transposing swaps the strides; slicing with a step multiplies one; ``as_strided``
sets them freely (even two elements at the same address, as sliding windows do).

For autograd a view needs a backward that sends the gradient back to where each
element came from: a permutation is undone by the inverse permutation.

Exercises (``python -m cygrad.course make-assignment strides_views OUT/``):

* ``permute-inverse`` in ``cygrad/ops/view_functions.py``: the permutation that undoes another
  (PermuteBackward0 uses it).
* ``window-view`` in ``cygrad/nn/_ops/_sliding.py``: the strided view of every
  convolution window (the Python ``im2col``; on the CPU a C kernel does the same
  copy, and the grading compares the two).
"""
import numpy as np

import cygrad
from cygrad.nn import functional as F


def section(title):
    print(f"\n== {title}")


def describe(name, t):
    print(f"{name:<14} shape {tuple(t.shape)!s:<10} strides {t.stride()!s:<9} "
          f"offset {t.storage_offset()}  contiguous {t.is_contiguous()}")


# ---------------------------------------------------------------------------------------
section("1. Strides")
x = cygrad.arange(12.0).reshape(3, 4)
describe("x", x)
i, j = 2, 1
flat = x.storage_offset() + i * x.stride(0) + j * x.stride(1)
print(f"x[{i}, {j}] = {x[i, j].item()} = storage[{flat}]")

# ---------------------------------------------------------------------------------------
section("2. Views share memory")
for name, v in [("x.t()", x.t()), ("x[1:, ::2]", x[1:, ::2]), ("x[:, 1]", x[:, 1]),
                ("x.reshape(2,6)", x.reshape(2, 6))]:
    describe(name, v)
v = x.t()
v[0, 2] = -1.0            # writes x[2, 0]
print("after x.t()[0, 2] = -1: x[2, 0] =", x[2, 0].item(), "(same storage)")

# ---------------------------------------------------------------------------------------
section("3. When a view is impossible")
# x.t() is not contiguous: no strides read it row by row as shape (12,), so reshape
# copies (and view() refuses).
try:
    x.t().view(12)
except RuntimeError as e:
    print("x.t().view(12) ->", str(e).split(".")[0])
print("x.t().reshape(12) copies:", x.t().reshape(12).tolist())

# ---------------------------------------------------------------------------------------
section("4. The backward of a view: permute")
# y = x.permute(2, 0, 1) puts x[i, j, k] at y[k, i, j]. The gradient of y, permuted by
# the inverse permutation (1, 2, 0), lands back on x's layout. Exercise permute-inverse.
from cygrad.ops.view_functions import _inverse   # noqa: E402

print("inverse of (2, 0, 1) =", _inverse((2, 0, 1)))
a = cygrad.randn(2, 3, 4, dtype=cygrad.float64, requires_grad=True)
w = cygrad.randn(4, 2, 3, dtype=cygrad.float64)
(a.permute(2, 0, 1) * w).sum().backward()
print("a.grad == w.permute(1, 2, 0):", bool((a.grad == w.permute(1, 2, 0)).all()))

# ---------------------------------------------------------------------------------------
section("5. Sliding windows with as_strided (exercise window-view)")
# A 1-D convolution reads windows x[o * stride + k]. With strides that is one view:
# shape (out, kernel), strides (stride, 1): overlapping windows, no copy.
s = cygrad.arange(8.0)
windows = s.as_strided((3, 4), (2, 1))
print("windows of 4, step 2, over 0..7:", windows.tolist())
print("strides", windows.stride(), "- element 2 appears in", int((windows == 2).sum()), "windows")
# cygrad's conv lays windows out the same way, per batch and channel:
from cygrad.nn._ops._sliding import _window_view   # noqa: E402

img = cygrad.arange(10.0).reshape(1, 1, 10)
wv = _window_view(img, (3,), (1,), (2,), (4,))
print("_window_view(kernel 3, stride 2): shape", tuple(wv.shape), "strides", wv.stride())
print("unfold (the C kernel's copy):", F.unfold(img.reshape(1, 1, 1, 10), (1, 3), stride=(1, 2))
      .reshape(3, 4).tolist())
assert np.array_equal(wv[0, 0].numpy(), F.unfold(img.reshape(1, 1, 1, 10), (1, 3),
                                                  stride=(1, 2)).reshape(3, 4).numpy())
