"""where/masked_fill above the size where the choice is made on bits, without branches
(cygrad/ops/indexing/_select.py), checked against NumPy's np.where: every dtype,
broadcasting, promotion, non-contiguous inputs, in-place fills, and bit-exact NaN
payloads and signed zeros."""
import numpy as np
import pytest

import cygrad
from cygrad.ops.indexing._select import BLEND_MIN

N = 3 * BLEND_MIN + 7          # above the threshold, not a multiple of any vector width
DTYPES = ["float32", "float64", "float16", "int8", "int16", "int32", "int64", "uint8", "bool"]


def _values(rng, dtype, shape):
    if dtype == "bool":
        return rng.random(shape) < 0.5
    if np.dtype(dtype).kind == "f":
        return (rng.standard_normal(shape) * 100).astype(dtype)
    info = np.iinfo(dtype)
    return rng.integers(info.min, info.max, shape, dtype=dtype, endpoint=True)


@pytest.mark.parametrize("dtype", DTYPES)
def test_where_matches_numpy(dtype):
    rng = np.random.default_rng(1)
    c, x, y = rng.random(N) < 0.5, _values(rng, dtype, N), _values(rng, dtype, N)
    res = cygrad.where(cygrad.from_numpy(c), cygrad.from_numpy(x), cygrad.from_numpy(y))
    np.testing.assert_array_equal(res.numpy(), np.where(c, x, y))


def test_where_bfloat16():
    rng = np.random.default_rng(2)
    bf = cygrad.bfloat16.np_dtype
    c = rng.random(N) < 0.5
    x, y = rng.standard_normal(N).astype(bf), rng.standard_normal(N).astype(bf)
    res = cygrad.where(cygrad.from_numpy(c), cygrad.from_numpy(x), cygrad.from_numpy(y))
    assert res.dtype == cygrad.bfloat16
    np.testing.assert_array_equal(res.numpy().view(np.int16), np.where(c, x, y).view(np.int16))


def test_where_keeps_nan_payloads_and_signed_zeros():
    rng = np.random.default_rng(3)
    c = rng.random(N) < 0.5
    bits = rng.integers(0x7F800001, 0x7FFFFFFF, N, dtype=np.int64).astype(np.int32)
    x = bits.view(np.float32)                      # NaNs with many payloads
    y = np.where(rng.random(N) < 0.5, np.float32(-0.0), np.float32(np.inf))
    res = cygrad.where(cygrad.from_numpy(c), cygrad.from_numpy(x), cygrad.from_numpy(y))
    np.testing.assert_array_equal(res.numpy().view(np.int32), np.where(c, x, y).view(np.int32))


def test_where_broadcasts_and_promotes():
    rng = np.random.default_rng(4)
    c = rng.random((N // 64, 1)) < 0.5
    x = rng.integers(-50, 50, (1, 64), dtype=np.int32)
    y = rng.standard_normal((N // 64, 64)).astype(np.float64)
    res = cygrad.where(cygrad.from_numpy(c), cygrad.from_numpy(x), cygrad.from_numpy(y))
    assert res.dtype == cygrad.float64
    np.testing.assert_array_equal(res.numpy(), np.where(c, x, y))
    scalar = cygrad.where(cygrad.from_numpy(c), 2.5, cygrad.from_numpy(y.astype(np.float32)))
    np.testing.assert_array_equal(scalar.numpy(), np.where(c, np.float32(2.5), y.astype(np.float32)))


def test_where_uint8_condition_and_non_contiguous():
    rng = np.random.default_rng(5)
    c = rng.integers(0, 3, (64, N // 64), dtype=np.uint8)      # 2 counts as True too
    x = rng.standard_normal((N // 64, 64)).astype(np.float32)
    y = rng.standard_normal((64, N // 64)).astype(np.float32)
    xt = cygrad.from_numpy(x).t()
    res = cygrad.where(cygrad.from_numpy(c), xt, cygrad.from_numpy(y))
    np.testing.assert_array_equal(res.numpy(), np.where(c != 0, x.T, y))


@pytest.mark.parametrize("dtype", ["float32", "int64", "bool", "float16"])
def test_masked_fill_matches_numpy(dtype):
    rng = np.random.default_rng(6)
    x, m = _values(rng, dtype, (N // 32, 32)), rng.random(32) < 0.5
    value = True if dtype == "bool" else 7
    res = cygrad.from_numpy(x).masked_fill(cygrad.from_numpy(m), value)
    np.testing.assert_array_equal(res.numpy(), np.where(m, np.asarray(value, dtype), x))


def test_masked_fill_in_place_non_contiguous():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((64, N // 64)).astype(np.float64)
    m = rng.random((N // 64, 64)) < 0.5
    expected = np.where(m, -np.inf, x.T)
    t = cygrad.from_numpy(x.copy()).t()
    version = t._version
    assert t.masked_fill_(cygrad.from_numpy(m), -float("inf")) is t
    np.testing.assert_array_equal(t.numpy(), expected)
    assert t._version > version


def test_where_gradient_large():
    rng = np.random.default_rng(8)
    c = rng.random(N) < 0.5
    x = cygrad.from_numpy(rng.standard_normal(N)).requires_grad_()
    y = cygrad.from_numpy(rng.standard_normal(N)).requires_grad_()
    cygrad.where(cygrad.from_numpy(c), x, y).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), c.astype(np.float64))
    np.testing.assert_array_equal(y.grad.numpy(), (~c).astype(np.float64))
