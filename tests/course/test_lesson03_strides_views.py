"""Checks of lesson 03's exercises (strides and views): the inverse permutation that
carries a permuted view's gradient back, and the sliding-window view under conv."""
import itertools

import numpy as np

import cygrad
from cygrad.nn import functional as F


def test_inverse_permutation():
    from cygrad.ops.view_functions import _inverse
    for perm in itertools.permutations(range(4)):
        assert _inverse(perm) == tuple(int(i) for i in np.argsort(perm))


def test_permute_gradient_goes_back(rng):
    x = cygrad.tensor(rng.standard_normal((2, 3, 4)), requires_grad=True)
    w = rng.standard_normal((4, 2, 3))
    (x.permute(2, 0, 1) * cygrad.tensor(w)).sum().backward()
    # element x[i, j, k] sits at y[k, i, j], so its gradient is w[k, i, j]
    np.testing.assert_array_equal(x.grad.numpy(), w.transpose(1, 2, 0))


def test_window_view_is_the_loop(rng):
    from cygrad.nn._ops._sliding import _window_view
    xp_np = rng.standard_normal((2, 3, 11))
    kernel, dilation, stride = (3,), (2,), (2,)
    out = ((11 - dilation[0] * (kernel[0] - 1) - 1) // stride[0] + 1,)
    view = _window_view(cygrad.tensor(xp_np), kernel, dilation, stride, out)
    expect = np.empty((2, 3, kernel[0], out[0]))
    for k in range(kernel[0]):
        for o in range(out[0]):
            expect[:, :, k, o] = xp_np[:, :, o * stride[0] + k * dilation[0]]
    assert tuple(view.shape) == expect.shape
    np.testing.assert_array_equal(view.numpy(), expect)


def test_python_im2col_matches_the_c_kernel(rng):
    # The CPU registers a C im2col kernel, so F.unfold never reaches _window_view there;
    # the Python path (for devices without that kernel) must give the same columns.
    from cygrad.nn._ops._sliding import im2col
    x = cygrad.tensor(rng.standard_normal((2, 3, 7, 8)))
    kernel, dilation, stride = (2, 3), (2, 1), (1, 2)
    out = tuple((n - d * (k - 1) - 1) // s + 1 for n, k, d, s in zip((7, 8), kernel, dilation, stride))
    cols = im2col(x, kernel, dilation, stride, out)
    expect = F.unfold(x, kernel, dilation=dilation, stride=stride)
    np.testing.assert_array_equal(cols.numpy(), expect.numpy())
