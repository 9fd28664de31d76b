"""cumsum/cumprod of float32/float64 CPU tensors through the C scan kernel
(cygrad/_core/cpu/scan.c): the running value is kept in double, as PyTorch's CPU
kernels keep it, so results equal PyTorch's bit for bit; any dim, non-contiguous
inputs, special values, realistic sizes, and the same result on any thread count."""
import numpy as np
import pytest

import cygrad
from cygrad._core import scan_kernels as K

torch = pytest.importorskip("torch", reason="PyTorch is the reference (bitwise)")

SHAPES = [((100_000,), 0), ((300, 50), 0), ((300, 50), 1), ((7, 600, 9), 1),
          ((4, 5, 1030), 2), ((3, 1, 4), 1), ((2, 3, 700), 1)]


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dim", SHAPES)
def test_cumsum_and_cumprod_equal_pytorch_bitwise(dtype, shape, dim):
    rng = np.random.default_rng(0)
    x = rng.standard_normal(shape).astype(dtype)
    near_one = (1 + x * 1e-2).astype(dtype)
    np.testing.assert_array_equal(cygrad.tensor(x).cumsum(dim).numpy(),
                                  torch.tensor(x).cumsum(dim).numpy())
    np.testing.assert_array_equal(cygrad.tensor(near_one).cumprod(dim).numpy(),
                                  torch.tensor(near_one).cumprod(dim).numpy())


def test_float32_accumulates_in_double():
    # 100,000 float32 values: a float32 running sum drifts by about 1e-3 from the
    # double one; PyTorch's (and now cygrad's) is the double one rounded each step
    x = np.random.default_rng(1).standard_normal(100_000).astype(np.float32)
    want = np.cumsum(x.astype(np.float64)).astype(np.float32)
    np.testing.assert_array_equal(cygrad.tensor(x).cumsum(0).numpy(), want)


def test_non_contiguous_and_negative_dims():
    x = np.random.default_rng(2).standard_normal((40, 30, 20)).astype(np.float32)
    view = cygrad.tensor(x).permute(2, 0, 1)[:, ::2]
    ref = torch.tensor(x).permute(2, 0, 1)[:, ::2]
    for d in (0, 1, -1):
        np.testing.assert_array_equal(view.cumsum(d).numpy(), ref.cumsum(d).numpy())


def test_special_values_follow_pytorch():
    x = np.array([[1.0, np.inf, -np.inf, 2.0], [np.nan, 1.0, 0.0, 3.0],
                  [0.0, -0.0, 5.0, np.inf], [1e38, 1e38, -1e38, 1.0]], np.float32)
    for f in ("cumsum", "cumprod"):
        for d in (0, 1):
            np.testing.assert_array_equal(getattr(cygrad.tensor(x), f)(d).numpy(),
                                          getattr(torch.tensor(x), f)(d).numpy())


def test_same_result_on_one_and_two_threads():
    x = cygrad.tensor(np.random.default_rng(3).standard_normal((64, 300, 8)).astype(np.float32))
    old = cygrad.get_num_threads()
    try:
        results = []
        for n in (1, 2):
            cygrad.set_num_threads(n)
            results.append([x.cumsum(d).numpy().copy() for d in range(3)])
    finally:
        cygrad.set_num_threads(old)
    for a, b in zip(*results):
        np.testing.assert_array_equal(a, b)


def test_gradients_through_the_kernel():
    x = cygrad.tensor(np.random.default_rng(4).standard_normal((5, 6)), requires_grad=True)
    assert cygrad.autograd.gradcheck(lambda t: t.cumsum(1), (x,))
    assert cygrad.autograd.gradcheck(lambda t: t.cumprod(0), (x,))


def test_kernel_refuses_what_it_does_not_take():
    with pytest.raises(TypeError):
        K.scan(cygrad.tensor([1, 2, 3]), 0, False)
    with pytest.raises(ValueError):
        K.scan(cygrad.ones(3, 4).t(), 0, False)
    with pytest.raises(IndexError):
        K.scan(cygrad.ones(3), 1, False)
    assert K.scan(cygrad.ones(0, 3), 1, False).shape == (0, 3)


def test_other_dtypes_keep_their_accumulation():
    # integers accumulate in int64 (NumPy's loop), half types in float32
    assert cygrad.tensor([1, 2, 3], dtype=cygrad.int32).cumsum(0).dtype == cygrad.int64
    h = np.random.default_rng(5).standard_normal(50).astype(np.float16)
    np.testing.assert_allclose(cygrad.tensor(h).cumsum(0).numpy().astype(np.float32),
                               torch.tensor(h).cumsum(0).numpy().astype(np.float32),
                               rtol=2e-3, atol=2e-2)
