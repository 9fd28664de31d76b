"""The core's reductions over one dim that is not the last (cpu/reduce.c,
``cg_reduce_cols``): ``x.sum(0)``, ``x.mean(0)``, ``amax``/``amin`` of contiguous
float32/float64 CPU tensors, against NumPy in float64 and PyTorch's NaN rules."""
import numpy as np
import pytest

import cygrad
from cygrad._core import tensor as core

SHAPES_DIMS = [((7, 5), 0), ((1000, 3), 0), ((130, 77), 0), ((300, 192), 0),
               ((3, 257, 33), 1), ((2, 40, 1030), 1), ((4, 3, 5, 70), 1),
               ((256, 1300), 0), ((1100, 1030), 0), ((1, 9), 0), ((9, 1, 4), 1), ((6, 4), -2)]
REFS = {"sum": np.sum, "mean": np.mean, "amax": np.max, "amin": np.min}


def _data(shape, dtype, seed=0):
    return np.random.default_rng(seed).standard_normal(shape).astype(dtype)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", SHAPES_DIMS)
@pytest.mark.parametrize("keepdim", [False, True])
def test_values_match_numpy_in_float64(shape, dim, dtype, keepdim):
    a = _data(shape, dtype)
    x = cygrad.tensor(a)
    n = shape[dim]
    for name, ref in REFS.items():
        got = getattr(x, name)(dim, keepdim=keepdim)
        want = ref(a.astype(np.float64), axis=dim, keepdims=keepdim)
        assert got.dtype == x.dtype and tuple(got.shape) == want.shape
        if name in ("amax", "amin"):
            np.testing.assert_array_equal(got.numpy(), want.astype(dtype))
        else:
            # float32: a sum of n terms of size ~1 is good to a few ulps of sqrt(n)
            scale = 1.0 if name == "sum" else 1.0 / n
            atol = (2e-6 * np.sqrt(n) * scale if dtype == np.float32 else 1e-13 * n * scale)
            np.testing.assert_allclose(got.numpy(), want, rtol=1e-6 if dtype == np.float32
                                       else 1e-13, atol=atol)


def test_the_kernel_is_the_path_taken():
    # the C path and not NumPy: _reduce_dim answers for these inputs
    x = cygrad.tensor(_data((300, 192), np.float32))
    assert core._reduce_dim("sum", x, 0, False) is not None
    assert core._reduce_dim("sum", x[:, ::2], 0, False) is None        # not contiguous
    assert core._reduce_dim("sum", x.to(cygrad.float16), 0, False) is None
    with pytest.raises(ValueError):
        core._reduce_dim("prod", x, 0, False)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape", [(200, 300), (1100, 1030)])     # narrow rows, wide rows
def test_nan_and_inf_follow_torch(dtype, shape):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for NaN rules")
    a = _data(shape, dtype)
    a[5, 7] = np.nan            # a tile column
    a[shape[0] - 50, shape[1] - 2] = np.nan    # a column after the last whole vector
    a[10, 3] = np.inf
    a[11, 3] = -np.inf          # inf - inf in a sum: NaN
    a[20, 100] = -np.inf
    for name in ("sum", "mean", "amax", "amin"):
        got = getattr(cygrad.tensor(a), name)(0).numpy()
        want = getattr(torch.from_numpy(a), name)(0).numpy()
        np.testing.assert_array_equal(np.isnan(got), np.isnan(want), err_msg=name)
        finite = np.isfinite(want)
        np.testing.assert_array_equal(got[~finite & ~np.isnan(want)],
                                      want[~finite & ~np.isnan(want)], err_msg=name)
        np.testing.assert_allclose(got[finite], want[finite], rtol=1e-5, atol=1e-4,
                                   err_msg=name)


@pytest.mark.parametrize("shape,dim", [((4096, 256), 0), ((256, 4096), 0), ((2048, 1100), 0),
                                       ((64, 100, 48), 1)])
def test_same_result_on_one_thread_and_two(shape, dim):
    a = cygrad.tensor(_data(shape, np.float32, seed=3))
    before = cygrad.get_num_threads()
    try:
        cygrad.set_num_threads(1)
        one = [getattr(a, f)(dim).numpy() for f in ("sum", "mean", "amax")]
        cygrad.set_num_threads(2)
        two = [getattr(a, f)(dim).numpy() for f in ("sum", "mean", "amax")]
    finally:
        cygrad.set_num_threads(before)
    for p, q in zip(one, two):
        np.testing.assert_array_equal(p, q)


def test_long_float32_columns_stay_accurate():
    # 100K rows of 0.1: float32 running sums drift by ~1e-3 relative; blocks of 128
    # rows in float and the blocks in double stay within a few ulps
    x = cygrad.full((100_000, 20), 0.1, dtype=cygrad.float32)
    got = x.sum(0).numpy()
    want = np.float64(np.float32(0.1)) * 100_000
    np.testing.assert_allclose(got, want, rtol=2e-7)


def test_gradients_through_the_kernel_path():
    a = _data((70, 40), np.float64)
    x = cygrad.tensor(a, requires_grad=True)
    w = _data((40,), np.float64)
    ((x.sum(0) * cygrad.tensor(w)).sum() + x.mean(0).sum() + x.amax(0).sum()).backward()
    want = np.broadcast_to(w, a.shape) + 1.0 / 70
    want = want + (a == a.max(0, keepdims=True))
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-12)
    assert cygrad.autograd.gradcheck(lambda t: t.sum(1).mean(0), (cygrad.tensor(
        _data((3, 5, 4), np.float64), requires_grad=True),))
