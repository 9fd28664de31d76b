"""The non-differentiable ops of ``cygrad/ops/tensorops`` (searching, counting,
histograms, index generators, windows) and ``nanmedian``/``cumsum_``, against PyTorch."""
import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="these ops are checked against PyTorch")
RNG = np.random.default_rng(1)


def c(a):
    return cygrad.from_numpy(np.array(a).copy())


def t(a):
    return torch.from_numpy(np.array(a).copy())


def same(x, y, exact=True):
    xs = x if isinstance(x, (tuple, list)) else (x,)
    ys = y if isinstance(y, (tuple, list)) else (y,)
    for a, b in zip(xs, ys):
        assert tuple(a.shape) == tuple(b.shape) and str(a.dtype)[7:] == str(b.dtype)[6:]
        if exact:
            np.testing.assert_array_equal(a.numpy(), b.numpy())
        else:
            np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-6, atol=1e-7)


@pytest.mark.parametrize("right", [False, True])
def test_searchsorted_and_bucketize(right):
    s = np.sort(RNG.integers(0, 10, (3, 6)), 1)
    v = RNG.integers(0, 10, (3, 4))
    same(cygrad.searchsorted(c(s), c(v), right=right), torch.searchsorted(t(s), t(v), right=right))
    same(cygrad.searchsorted(c(s[0]), c(v), side="right" if right else "left", out_int32=True),
         torch.searchsorted(t(s[0]), t(v), side="right" if right else "left", out_int32=True))
    same(cygrad.bucketize(c(v), c(s[0]), right=right), torch.bucketize(t(v), t(s[0]), right=right))
    with pytest.raises(RuntimeError):
        cygrad.searchsorted(c(s), c(v[:2]))


def test_isin_bincount_histc_histogram():
    v, s = RNG.integers(0, 10, (3, 4)), RNG.integers(0, 10, 5)
    same(cygrad.isin(c(v), c(s), invert=True), torch.isin(t(v), t(s), invert=True))
    same(cygrad.isin(3, c(s)), torch.isin(3, t(s)))
    b, w = RNG.integers(0, 6, 20), RNG.random(20)
    same(cygrad.bincount(c(b), minlength=8), torch.bincount(t(b), minlength=8))
    same(cygrad.bincount(c(b), c(w)), torch.bincount(t(b), t(w)), exact=False)
    with pytest.raises(RuntimeError):
        cygrad.bincount(c([-1, 2]))
    x = RNG.standard_normal(50).astype(np.float32)
    same(cygrad.histc(c(x), 7), torch.histc(t(x), 7))
    same(cygrad.histc(c(x), 5, -1, 1), torch.histc(t(x), 5, -1, 1))
    same(cygrad.histogram(c(x), 6), torch.histogram(t(x), 6), exact=False)
    edges = np.array([-1.0, 0, 0.5, 2], np.float32)
    same(cygrad.histogram(c(x), c(edges), weight=c(np.abs(x)), density=True),
         torch.histogram(t(x), t(edges), weight=t(np.abs(x)), density=True), exact=False)


def test_unique_consecutive():
    u = np.array([1, 1, 2, 2, 3, 1, 1])
    same(cygrad.unique_consecutive(c(u), True, True), torch.unique_consecutive(t(u), True, True))
    m = np.array([[1, 1, 2], [1, 1, 2], [0, 0, 0]])
    same(cygrad.unique_consecutive(c(m), True, True, dim=0),
         torch.unique_consecutive(t(m), True, True, dim=0))


def test_index_generators_and_products():
    x = np.array([1.0, 2.0, 3.0])
    same(cygrad.cartesian_prod(c(x), c(x[:2])), torch.cartesian_prod(t(x), t(x[:2])))
    for r in (1, 2, 3, 4):
        for w in (False, True):
            same(cygrad.combinations(c(x), r, w), torch.combinations(t(x), r, w))
    for args in ((3, 4, 0), (4, 3, 1), (4, 3, -1), (0, 3, 0), (3, 5, -2)):
        same(cygrad.tril_indices(*args), torch.tril_indices(*args))
        same(cygrad.triu_indices(*args), torch.triu_indices(*args))


@pytest.mark.parametrize("name", ["hann_window", "hamming_window", "blackman_window",
                                  "bartlett_window", "kaiser_window"])
def test_windows(name):
    for n in (0, 1, 2, 7, 8):
        for periodic in (True, False):
            same(getattr(cygrad, name)(n, periodic), getattr(torch, name)(n, periodic),
                 exact=False)
    same(getattr(cygrad, name)(9, dtype=cygrad.float64),
         getattr(torch, name)(9, dtype=torch.float64), exact=False)
    with pytest.raises(RuntimeError):
        getattr(cygrad, name)(4, dtype=cygrad.int64)


def test_nanmedian_and_inplace_scans():
    x = RNG.standard_normal((4, 6))
    x[1, 2] = np.nan
    same(cygrad.nanmedian(c(x), 1), torch.nanmedian(t(x), 1))
    same(cygrad.nanmedian(c(x), 0, keepdim=True), torch.nanmedian(t(x), 0, keepdim=True))
    same(cygrad.nanmedian(c(x)), torch.nanmedian(t(x)))
    a, b = c(x), t(x)
    assert a.cumsum_(1) is a
    same(a, b.cumsum_(1), exact=False)
    a, b = c(x), t(x)
    same(a.cumprod_(0), b.cumprod_(0), exact=False)
