"""Every op family at sizes from 0 to 10**6, with gradients, checked against NumPy.

Sizes straddle the boundaries where code paths change: 0 and 1 (empty and scalar-like
loops), 256/257 (CPython's small-int cache ends at 256, so shape tuples change from
shared to owned ints), odd sizes (vector-kernel remainders) and 10**6 (OpenMP threads).
"""
import numpy as np
import pytest

import cygrad

SIZES = [0, 1, 2, 3, 7, 255, 256, 257, 511, 4097, 65537, 10**6]


def _leaf(a):
    return cygrad.tensor(a, requires_grad=True)


@pytest.fixture
def data(request):
    n = request.param
    rng = np.random.default_rng(n)
    return rng.uniform(0.5, 2.0, n), rng.uniform(0.5, 2.0, n)


@pytest.mark.parametrize("data", SIZES, indirect=True, ids=str)
def test_elementwise_with_grad(data):
    a, b = data
    x, y = _leaf(a), _leaf(b)
    out = x.exp() * y + x / y - y.sin() * x.sqrt()
    out.sum().backward()
    np.testing.assert_allclose(out.detach().numpy(), np.exp(a) * b + a / b - np.sin(b) * np.sqrt(a),
                               rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.grad.numpy(), np.exp(a) * b + 1 / b - np.sin(b) * 0.5 / np.sqrt(a),
                               rtol=1e-12, atol=1e-12)
    # atol: the terms nearly cancel for some b, where rounding differs by an ulp
    np.testing.assert_allclose(y.grad.numpy(), np.exp(a) - a / b**2 - np.cos(b) * np.sqrt(a),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("data", SIZES, indirect=True, ids=str)
def test_float32_elementwise_non_contiguous(data):
    # a strided view (every other element) through the general strided kernel path
    a, _ = data
    a32 = a.astype(np.float32)
    x = _leaf(a32)
    v = x[::2]
    (v.tanh() * 3).sum().backward()
    np.testing.assert_allclose(v.detach().numpy(), a32[::2], rtol=0)
    expect = np.zeros_like(a32)
    expect[::2] = 3 * (1 - np.tanh(a32[::2]) ** 2)
    np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("data", SIZES, indirect=True, ids=str)
def test_reductions_with_grad(data):
    a, _ = data
    n = a.size
    x = _leaf(a)
    s, m, l = x.sum(), x.mean(), x.logsumexp(0)
    np.testing.assert_allclose(s.item(), a.sum(), rtol=1e-10)
    np.testing.assert_allclose(m.item(), a.mean() if n else np.nan, rtol=1e-10)
    lse = np.log(np.exp(a - a.max()).sum()) + a.max() if n else -np.inf
    np.testing.assert_allclose(l.item(), lse, rtol=1e-10)
    (s + m).backward()
    np.testing.assert_allclose(x.grad.numpy(), np.full(n, 1 + 1 / max(n, 1)) if n else a, rtol=1e-12)
    if n:
        x.grad = None
        i = int(np.argmax(a))
        x.max().backward()
        expect = np.zeros(n)
        expect[i] = 1
        np.testing.assert_array_equal(x.grad.numpy(), expect)
    else:
        with pytest.raises(RuntimeError):
            x.max()


@pytest.mark.parametrize("n,k,m", [(0, 3, 2), (1, 1, 1), (2, 0, 3), (3, 257, 5), (257, 3, 256),
                                   (255, 256, 257), (1000, 1000, 1), (1, 1000, 1000)],
                         ids=lambda v: str(v))
def test_matmul_with_grad(n, k, m):
    rng = np.random.default_rng(n * 7 + k * 3 + m)
    a, b = rng.standard_normal((n, k)), rng.standard_normal((k, m))
    g = rng.standard_normal((n, m))
    x, y = _leaf(a), _leaf(b)
    out = x @ y
    out.backward(cygrad.tensor(g))
    np.testing.assert_allclose(out.detach().numpy(), a @ b, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(x.grad.numpy(), g @ b.T, rtol=1e-10, atol=1e-10)
    np.testing.assert_allclose(y.grad.numpy(), a.T @ g, rtol=1e-10, atol=1e-10)


@pytest.mark.parametrize("data", SIZES, indirect=True, ids=str)
def test_indexing_with_grad(data):
    a, b = data
    n = a.size
    rng = np.random.default_rng(n + 1)
    idx = rng.integers(0, n, size=n // 2 + 3) if n else np.zeros(0, np.int64)
    mask = b > 1.25
    x = _leaf(a)
    picked, masked, sliced = x[cygrad.tensor(idx)], x[cygrad.tensor(mask)], x[1::3]
    np.testing.assert_array_equal(picked.detach().numpy(), a[idx])
    np.testing.assert_array_equal(masked.detach().numpy(), a[mask])
    np.testing.assert_array_equal(sliced.detach().numpy(), a[1::3])
    (picked.sum() + 2 * masked.sum() + 3 * sliced.sum()).backward()
    expect = np.bincount(idx, minlength=n).astype(np.float64) + 2 * mask
    expect[1::3] += 3
    np.testing.assert_array_equal(x.grad.numpy(), expect)


@pytest.mark.parametrize("data", SIZES, indirect=True, ids=str)
def test_index_assignment_and_views(data):
    a, b = data
    n = a.size
    t = cygrad.tensor(a)
    t[::2] = cygrad.tensor(b[::2])
    expect = a.copy()
    expect[::2] = b[::2]
    np.testing.assert_array_equal(t.numpy(), expect)
    if n >= 2:
        m = t[: n - n % 2].reshape(2, -1).t().contiguous()
        np.testing.assert_array_equal(m.numpy(), expect[: n - n % 2].reshape(2, -1).T)
