"""The sort family's 'cuda' kernels (cuda_src/sort.cu, cygrad/cuda/ops/sort.py) on the
emulated GPU in strict mode: values and indices against NumPy's stable argsort and
the CPU kernels of the same primitives."""
import os
import sys

import numpy as np
import pytest

import cygrad
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

FLOATS = [cygrad.float32, cygrad.float64, cygrad.float16, cygrad.bfloat16]
INTS = [cygrad.int64, cygrad.int32, cygrad.int16, cygrad.int8, cygrad.uint8, cygrad.bool]


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        yield d


def host(t):
    return t.cpu().numpy()


def sample(shape, dtype, seed=0, nan=True):
    """Few distinct values (many ties), NaN among the floats."""
    rng = np.random.default_rng(seed)
    a = rng.integers(0, 6, size=shape)
    if dtype is cygrad.bool:
        return cygrad.tensor(a % 2 == 1)
    if dtype.is_floating_point:
        a = (a - 2.5).astype(np.float64)
        if nan:
            a[a == 2.5] = np.nan
    return cygrad.tensor(a).to(dtype)


def ref_order(a, axis, descending):
    """Stable order by NumPy: ranks of the values (NaN largest, NaNs tied), then a
    stable argsort of the ranks (negated for descending)."""
    a = np.moveaxis(np.asarray(a, dtype=np.float64), axis, -1)
    ranks = np.unique(a.reshape(-1), return_inverse=True)[1].reshape(a.shape)
    order = np.argsort(-ranks if descending else ranks, axis=-1, kind="stable")
    return np.moveaxis(order, -1, axis)


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("descending", [False, True])
def test_sort_matches_numpy_stable_order(dtype, descending):
    x = sample((5, 37), dtype)
    v, i = cygrad.sort(x.cuda(), dim=1, descending=descending)
    assert v.is_cuda and v.dtype is dtype and i.dtype is cygrad.int64
    a = x.to(cygrad.float64).numpy()
    want = ref_order(a, 1, descending)
    np.testing.assert_array_equal(host(i), want)
    np.testing.assert_array_equal(host(v.to(cygrad.float64)), np.take_along_axis(a, want, 1))


@pytest.mark.parametrize("dim", [0, 1, 2, -1])
def test_sort_any_dim_and_non_contiguous_matches_cpu(dim):
    x = sample((4, 6, 5), cygrad.float32, seed=1)
    xt = x.cuda().transpose(0, 2)                   # a non-contiguous view
    assert not xt.is_contiguous()
    for desc in (False, True):
        v, i = cygrad.sort(xt, dim=dim, descending=desc)
        cv, ci = cygrad.sort(x.transpose(0, 2), dim=dim, descending=desc)
        np.testing.assert_array_equal(host(i), ci.numpy())
        np.testing.assert_array_equal(host(v), cv.numpy())
    assert host(cygrad.argsort(xt, dim=dim)).tolist() == cygrad.argsort(x.transpose(0, 2), dim=dim).tolist()


@pytest.mark.parametrize("n", [2048, 2049, 6000])
def test_long_rows_use_merge_passes(n):
    x = sample((2, n), cygrad.float64, seed=n)
    for desc in (False, True):
        _, i = cygrad.sort(x.cuda(), dim=1, descending=desc)
        np.testing.assert_array_equal(host(i), ref_order(x.numpy(), 1, desc))


def test_sort_realistic_size():
    rng = np.random.default_rng(3)
    a = rng.standard_normal((32, 10000)).astype(np.float32)
    a[:, ::7] = a[:, :1]                            # ties across chunks
    v, i = cygrad.sort(cygrad.tensor(a).cuda(), dim=1)
    np.testing.assert_array_equal(host(i), np.argsort(a, axis=1, kind="stable"))
    np.testing.assert_array_equal(host(v), np.sort(a, axis=1))


def test_zero_dim_and_empty():
    v, i = cygrad.sort(cygrad.tensor(3.0).cuda())
    assert host(v).tolist() == 3.0 and host(i).tolist() == 0
    v, i = cygrad.sort(cygrad.zeros(3, 0).cuda(), dim=1)
    assert tuple(v.shape) == (3, 0) and tuple(i.shape) == (3, 0)


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64, cygrad.int64, cygrad.int32])
def test_topk_kthvalue_median_mode_match_cpu(dtype):
    x = sample((6, 11), dtype, seed=5, nan=False)
    c = x.cuda()
    cases = [lambda t: t.topk(4, dim=1), lambda t: t.topk(3, dim=0, largest=False),
             lambda t: t.kthvalue(5, dim=1), lambda t: t.kthvalue(2, dim=0, keepdim=True),
             lambda t: t.median(dim=1), lambda t: t.mode(dim=1),
             lambda t: t.mode(dim=0, keepdim=True)]
    for f in cases:
        (cv, ci), (gv, gi) = f(x), f(c)
        assert gv.is_cuda and tuple(gv.shape) == tuple(cv.shape)
        np.testing.assert_array_equal(host(gv), cv.numpy())
        np.testing.assert_array_equal(host(gi), ci.numpy())


def test_topk_against_numpy_and_median_with_nan():
    a = np.array([[3.0, 1.0, 3.0, 2.0, 3.0], [np.nan, 0.0, 5.0, np.nan, 1.0]])
    v, i = cygrad.tensor(a).cuda().topk(2, dim=1)
    assert host(i).tolist() == [[0, 2], [0, 3]]     # ties and NaNs in index order
    np.testing.assert_array_equal(host(v), [[3.0, 3.0], [np.nan, np.nan]])
    v, i = cygrad.tensor(a).cuda().median(dim=1)    # a row with NaN answers its first NaN
    cv, ci = cygrad.tensor(a).median(dim=1)
    assert host(i).tolist() == ci.tolist() == [0, 0]
    assert host(v)[0] == 3.0 and np.isnan(host(v)[1]) and np.isnan(cv[1].item())


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64, cygrad.int64, cygrad.uint8])
def test_unique_matches_numpy(dtype):
    x = sample((7, 9), dtype, seed=2)
    vals, inv, counts = cygrad.unique(x.cuda(), return_inverse=True, return_counts=True)
    a = x.to(cygrad.float64).numpy()
    want, winv, wcounts = np.unique(a.reshape(-1), return_inverse=True, return_counts=True,
                                    equal_nan=False)
    np.testing.assert_array_equal(host(vals.to(cygrad.float64)), want)
    np.testing.assert_array_equal(host(counts), wcounts)
    # each NaN is a group of its own; NumPy's order among them is its unstable sort's,
    # so only the other elements' groups are compared, and the NaNs' groups are distinct
    nan = np.isnan(a)
    np.testing.assert_array_equal(host(inv)[~nan], winv.reshape(a.shape)[~nan])
    nan_groups = host(inv)[nan]
    assert len(set(nan_groups.tolist())) == nan.sum() and np.isnan(want[nan_groups]).all()


def test_unique_consecutive_matches_cpu():
    x = sample((6, 8), cygrad.int64, seed=9, nan=False)
    x[1] = x[0]
    x[2] = x[0]
    c = x.cuda()
    for kw in ({}, {"dim": 0}, {"dim": 1}):
        got = cygrad.unique_consecutive(c, return_inverse=True, return_counts=True, **kw)
        want = cygrad.unique_consecutive(x, return_inverse=True, return_counts=True, **kw)
        for g, w in zip(got, want):
            assert g.is_cuda
            np.testing.assert_array_equal(host(g), w.numpy())


GRADIENT_OPS = {
    "sort": lambda x: x.sort(dim=1, descending=True)[0],
    "topk": lambda x: x.topk(3, dim=1)[0],
    "kthvalue": lambda x: x.kthvalue(2, dim=1, keepdim=True)[0],
}


@pytest.mark.parametrize("name", sorted(GRADIENT_OPS))
def test_sort_topk_kthvalue_gradients_match_cpu(name):
    # the backward scatters the gradient back with put_along_dim (the indexing
    # family's kernel) on the device
    a = np.random.default_rng(6).standard_normal((3, 5))

    def grad(device):
        x = cygrad.tensor(a, device=device, requires_grad=True)
        v = GRADIENT_OPS[name](x)
        w = cygrad.arange(1.0, v.numel() + 1.0, dtype=cygrad.float64).reshape(tuple(v.shape))
        (v * w.to(device)).sum().backward()
        return x.grad

    g = grad("cuda")
    assert g.is_cuda
    want = grad("cpu").numpy()
    assert np.count_nonzero(want) == {"sort": 15, "topk": 9, "kthvalue": 3}[name]   # selected
    np.testing.assert_array_equal(host(g), want)


@pytest.mark.parametrize("dim", [0, 1, 2])
def test_unique_along_a_dim_matches_numpy(dim):
    a = np.random.default_rng(dim).integers(0, 3, size=(9, 3, 2)).astype(np.float32)
    vals, inv, counts = cygrad.unique(cygrad.tensor(a).cuda(), dim=dim, return_inverse=True,
                                      return_counts=True)
    want, winv, wcounts = np.unique(a, axis=dim, return_inverse=True, return_counts=True)
    np.testing.assert_array_equal(host(vals), want)
    np.testing.assert_array_equal(host(inv), winv.reshape(-1))
    np.testing.assert_array_equal(host(counts), wcounts)


def test_unsupported_dtype_raises_not_implemented_naming_the_primitive():
    with pytest.raises(NotImplementedError, match="'sort'.*complex64"):
        dispatch.kernel("sort", "cuda")(cygrad.zeros(3, dtype=cygrad.complex64, device="cuda"),
                                        0, False)


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
def test_histogramdd_matches_numpy(dtype):
    rng = np.random.default_rng(8)
    a = rng.standard_normal((2000, 2))
    a[0] = np.nan                                   # skipped
    a[1, 0] = 3.0                                   # on the last edge: in the last bin
    a[2, 1] = 7.0                                   # outside: skipped
    edges = [np.linspace(-2, 3, 6), np.array([-1.0, 0.0, 0.5, 2.0])]
    w = rng.random(2000)
    x = cygrad.tensor(a).to(dtype).cuda()
    e = [cygrad.tensor(v).to(dtype).cuda() for v in edges]
    a32 = x.cpu().numpy().astype(np.float64)        # the values in the tested dtype
    e32 = [t.cpu().numpy().astype(np.float64) for t in e]
    w32 = cygrad.tensor(w).to(dtype).numpy().astype(np.float64)
    for weight, density in ((None, False), (w32, False), (None, True), (w32, True)):
        got = cygrad.histogramdd(x, e, density=density,
                                 weight=None if weight is None else cygrad.tensor(w).to(dtype).cuda())
        assert got.hist.is_cuda and got.hist.dtype is dtype
        want = np.histogramdd(a32, bins=e32, weights=weight, density=density)[0]
        rtol = 1e-6 if dtype is cygrad.float32 else 1e-12   # atomics add in any order
        np.testing.assert_allclose(host(got.hist), want, rtol=rtol)
