"""``x ** e`` for a number ``e`` of 2, 3, -1 or -2 is computed by products, as
PyTorch does (C's pow takes a slow path for negative bases with integral
exponents); values, special values, dtypes and in-place use against PyTorch."""
import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="PyTorch is the reference for pow's values")

SPECIAL = [0.0, -0.0, float("inf"), -float("inf"), float("nan"), 1e-30, -1e20, -3.5, 2.0]


@pytest.mark.filterwarnings("ignore:overflow encountered in cast")
@pytest.mark.parametrize("e", [2, 3, -1, -2, 2.0, 3.0, -1.0, -2.0])
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_small_integral_exponents_match_pytorch_bitwise(e, dtype):
    rng = np.random.default_rng(0)
    base = np.concatenate([rng.standard_normal(300) * 4, SPECIAL])
    x = cygrad.tensor(base, dtype=getattr(cygrad, dtype))
    tx = torch.tensor(base, dtype=getattr(torch, dtype))
    got, want = x ** e, tx ** e
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.float().numpy(), want.float().numpy())


@pytest.mark.parametrize("e", [2, 3, -1, -2])
def test_in_place_pow_reads_the_base_before_writing(e):
    base = np.linspace(-3, 3, 1001).astype(np.float32)
    x = cygrad.tensor(base)
    x.pow_(e)
    np.testing.assert_array_equal(x.numpy(), (torch.tensor(base) ** e).numpy())


def test_cube_of_a_strided_view_and_its_gradient():
    a = np.random.default_rng(1).standard_normal((40, 30))
    x = cygrad.tensor(a, requires_grad=True)
    y = x.t() ** 3
    np.testing.assert_allclose(y.detach().numpy(), a.T ** 3, rtol=1e-12)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 3 * a ** 2, rtol=1e-12)
