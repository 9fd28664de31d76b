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


def _outcome(f):
    try:
        r = f()
    except Exception as e:          # the reference's error is part of the semantics
        return type(e).__name__, str(e)
    return str(r.dtype).split(".")[-1], r.tolist()


@pytest.mark.parametrize("dtype,values,e", [
    ("bool", [True, False], True), ("bool", [True, False], False), ("bool", [True, False], 2),
    ("uint8", [2, 3], -2), ("int8", [2, -3], -1), ("int16", [2, 3], -2), ("int64", [2, 3], -2),
    ("uint8", [2, 3], 2), ("float16", [2.0, 3.0], 1e5), ("bfloat16", [2.0, 3.0], 1e39),
    ("float16", [2.0, 3.0], 70000), ("float16", [2.0, 3.0], 2.5)])
def test_operator_and_inplace_pow_check_a_number_as_pytorch(dtype, values, e):
    # ``x ** e`` and ``x **= e`` make cygrad.pow's checks (they once wrapped -2 into a
    # uint8 254, refused bool ** True, and overflowed a float16 exponent to inf)
    x = lambda: cygrad.tensor(values, dtype=getattr(cygrad, dtype))       # noqa: E731
    t = lambda: torch.tensor(values, dtype=getattr(torch, dtype))         # noqa: E731

    def inplace(v):
        v **= e
        return v
    assert _outcome(lambda: x() ** e) == _outcome(lambda: t() ** e)
    assert _outcome(lambda: inplace(x())) == _outcome(lambda: inplace(t()))
