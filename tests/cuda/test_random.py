"""The random family's 'cuda' kernels (cuda_src/random.cu, cygrad/cuda/ops/random.py)
on the emulated GPU in strict mode: Philox4x32-10 against the published known-answer
vectors and a NumPy implementation, distributions checked statistically (means and
variances within 5 sigma for n = 1e5, Kolmogorov-Smirnov statistics), seeding and
streams, dropout."""
import math
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

N = 100_000
# the KS statistic of n samples exceeds 1.95 / sqrt(n) with probability about 0.001
KS_BOUND = 1.95 / math.sqrt(N)


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        yield d


def host(t):
    return t.cpu().numpy()


# ---- Philox4x32-10 ----------------------------------------------------------------------

def philox_numpy(counters, key):
    """Philox4x32-10 of Salmon et al. (2011) on an (n, 4) array of uint32 counters."""
    c = [counters[:, j].astype(np.uint64) for j in range(4)]
    k0, k1 = np.uint64(key[0]), np.uint64(key[1])
    mask = np.uint64(0xFFFFFFFF)
    for r in range(10):
        if r:
            k0, k1 = (k0 + np.uint64(0x9E3779B9)) & mask, (k1 + np.uint64(0xBB67AE85)) & mask
        p0 = np.uint64(0xD2511F53) * c[0]
        p1 = np.uint64(0xCD9E8D57) * c[2]
        c = [(p1 >> np.uint64(32)) ^ c[1] ^ k0, p1 & mask, (p0 >> np.uint64(32)) ^ c[3] ^ k1,
             p0 & mask]
    return np.stack(c, axis=1).astype(np.uint32)


def device_words(n, seed, offset, round_=0):
    from cygrad.cuda import kernels
    out = cygrad.empty(n, dtype=cygrad.int32, device="cuda")
    kernels.launch(0, "random.cu", "cg_philox_words", (2, 1, 1), (64, 1, 1),
                   (n, out.data_ptr(), seed, offset, round_))
    return host(out).view(np.uint32)


# Random123's kat_vectors for philox4x32_10: (counter, key) -> output
KAT = [((0, 0, 0, 0), (0, 0), (0x6627E8D5, 0xE169C58D, 0xBC57AC4C, 0x9B00DBD8)),
       ((0xFFFFFFFF,) * 4, (0xFFFFFFFF,) * 2, (0x408F276D, 0x41C83B0E, 0xA20BC7C6, 0x6D5451FD)),
       ((0x243F6A88, 0x85A308D3, 0x13198A2E, 0x03707344), (0xA4093822, 0x299F31D0),
        (0xD16CFE09, 0x94FDCCEB, 0x5001E420, 0x24126EA1))]


@pytest.mark.parametrize("ctr, key, want", KAT)
def test_philox_known_answers(ctr, key, want):
    assert philox_numpy(np.array([ctr], np.uint32), key)[0].tolist() == list(want)
    if ctr[2] == 0 and ctr[3] == 0:              # reachable through the kernel's counter
        seed = key[0] | (key[1] << 32)
        assert device_words(4, seed, ctr[0] | (ctr[1] << 32)).tolist() == list(want)


def test_philox_stream_matches_numpy_implementation():
    seed, offset = 0x123456789ABCDEF, (1 << 32) - 3     # the counter carries into word 1
    got = device_words(4 * 50, seed, offset, round_=2).reshape(50, 4)
    ctr = offset + np.arange(50, dtype=np.uint64)
    counters = np.stack([ctr & np.uint64(0xFFFFFFFF), ctr >> np.uint64(32),
                         np.full(50, 2, np.uint64), np.zeros(50, np.uint64)], axis=1)
    want = philox_numpy(counters.astype(np.uint32), (seed & 0xFFFFFFFF, seed >> 32))
    np.testing.assert_array_equal(got, want)


# ---- distributions --------------------------------------------------------------------

def ks(samples, cdf):
    x = np.sort(np.asarray(samples, np.float64))
    f = cdf(x)
    n = x.size
    return max(np.max(np.arange(1, n + 1) / n - f), np.max(f - np.arange(n) / n))


def check_moments(x, mean, var):
    x = np.asarray(x, np.float64)
    assert abs(x.mean() - mean) < 5 * math.sqrt(var / x.size), (x.mean(), mean)
    # the sample variance's standard error, taking the fourth moment from the sample
    m4 = np.mean((x - mean) ** 4)
    assert abs(x.var() - var) < 5 * math.sqrt(max(m4 - var * var, 1e-300) / x.size), (x.var(), var)


def normal_cdf(x):
    return 0.5 * (1 + np.vectorize(math.erf)(x / math.sqrt(2)))


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
def test_uniform_and_normal(dtype):
    cygrad.manual_seed(1)
    u = cygrad.rand(N, device="cuda", dtype=dtype)
    assert u.is_cuda and u.dtype is dtype
    x = host(u)
    assert (x >= 0).all() and (x < 1).all()
    check_moments(x, 0.5, 1 / 12)
    assert ks(x, lambda v: v) < KS_BOUND
    z = host(cygrad.randn(N, device="cuda", dtype=dtype))
    check_moments(z, 0.0, 1.0)
    assert ks(z, normal_cdf) < KS_BOUND
    y = host(cygrad.empty(N, device="cuda", dtype=dtype).uniform_(-2.0, 3.0))
    assert (y >= -2).all() and (y < 3).all()
    check_moments(y, 0.5, 25 / 12)
    w = host(cygrad.empty(N, device="cuda", dtype=dtype).normal_(4.0, 0.5))
    check_moments(w, 4.0, 0.25)


@pytest.mark.parametrize("dtype", [cygrad.float16, cygrad.bfloat16])
def test_half_types(dtype):
    u = cygrad.rand(N, device="cuda", dtype=dtype)
    x = host(u.to(cygrad.float32))
    assert u.dtype is dtype and (x >= 0).all() and (x < 1).all()
    check_moments(x, 0.5, 1 / 12)
    check_moments(host(cygrad.randn(N, device="cuda", dtype=dtype).to(cygrad.float32)), 0.0, 1.0)


def test_other_distributions():
    cygrad.manual_seed(2)
    e = host(cygrad.empty(N, device="cuda", dtype=cygrad.float64).exponential_(2.0))
    check_moments(e, 0.5, 0.25)
    assert ks(e, lambda v: 1 - np.exp(-2 * v)) < KS_BOUND
    g = host(cygrad.empty(N, device="cuda").geometric_(0.25))
    assert g.min() >= 1 and (g == np.round(g)).all()
    check_moments(g, 4.0, 0.75 / 0.25 ** 2)
    c = host(cygrad.empty(N, device="cuda", dtype=cygrad.float64).cauchy_(1.0, 2.0))
    assert ks(c, lambda v: 0.5 + np.arctan((v - 1.0) / 2.0) / math.pi) < KS_BOUND
    ln = host(cygrad.empty(N, device="cuda", dtype=cygrad.float64).log_normal_(0.5, 0.75))
    assert (ln > 0).all()
    check_moments(np.log(ln), 0.5, 0.75 ** 2)


@pytest.mark.parametrize("rate", [3.0, 30.0])
def test_poisson(rate):
    x = host(cygrad.poisson(cygrad.full((N,), rate, dtype=cygrad.float64).cuda()))
    assert (x == np.round(x)).all() and x.min() >= 0
    check_moments(x, rate, rate)
    with pytest.raises(RuntimeError, match="invalid Poisson rate"):
        cygrad.poisson(cygrad.tensor([1.0, -1.0]).cuda())


@pytest.mark.parametrize("dtype", [cygrad.int64, cygrad.int32, cygrad.int16, cygrad.uint8,
                                   cygrad.float32, cygrad.float64])
def test_integers(dtype):
    x = cygrad.randint(3, 13, (N,), device="cuda", dtype=dtype)
    assert x.is_cuda and x.dtype is dtype
    counts = np.bincount(host(x).astype(np.int64) - 3, minlength=10)
    assert counts.size == 10
    # each count is Binomial(N, 1/10)
    assert (np.abs(counts - N / 10) < 5 * math.sqrt(N * 0.1 * 0.9)).all(), counts
    b = host(cygrad.empty(1000, device="cuda", dtype=cygrad.bool).random_())
    assert 400 < b.sum() < 600
    big = host(cygrad.randint(-(1 << 62), 1 << 62, (1000,), device="cuda"))
    assert big.min() < -(1 << 60) and big.max() > (1 << 60)


def test_bernoulli_scalar_and_tensor_p():
    m = host(cygrad.empty(N, device="cuda").bernoulli_(0.3))
    assert set(np.unique(m).tolist()) == {0.0, 1.0}
    check_moments(m, 0.3, 0.21)
    p = cygrad.tensor([0.1, 0.9], dtype=cygrad.float64).cuda().expand(N // 2, 2)
    b = host(cygrad.bernoulli(p))
    check_moments(b[:, 0], 0.1, 0.09)
    check_moments(b[:, 1], 0.9, 0.09)
    with pytest.raises(RuntimeError, match="p_in >= 0 && p_in <= 1"):
        cygrad.bernoulli(cygrad.tensor([0.5, 1.5]).cuda())


def test_randperm():
    for n in (1, 10, 5000):                 # 5000: the key sort merges chunks
        p = cygrad.randperm(n, device="cuda")
        assert p.is_cuda and p.dtype is cygrad.int64
        assert sorted(host(p).tolist()) == list(range(n))
    p32 = host(cygrad.randperm(100, device="cuda", dtype=cygrad.int32))
    assert sorted(p32.tolist()) == list(range(100))
    firsts = [int(host(cygrad.randperm(4, device="cuda"))[0]) for _ in range(200)]
    # each count is Binomial(200, 1/4): 50 +- 5 standard deviations (6.1 each)
    assert all(19 < firsts.count(v) < 81 for v in range(4)), firsts


def test_multinomial():
    probs = cygrad.tensor([[0.1, 0.2, 0.7, 0.0], [1.0, 1.0, 1.0, 1.0]]).cuda()
    s = host(cygrad.multinomial(probs, 20000, replacement=True))
    assert s.shape == (2, 20000) and (s[0] != 3).all()
    for c, p in enumerate([0.1, 0.2, 0.7]):
        check_moments((s[0] == c).astype(float), p, p * (1 - p))
    check_moments((s[1] == 2).astype(float), 0.25, 0.1875)
    w = host(cygrad.multinomial(probs, 3))
    assert all(len(set(row)) == 3 for row in w.tolist()) and 3 not in w[0]
    first = host(cygrad.multinomial(cygrad.tensor([0.2, 0.8]).cuda().expand(5000, 2), 1))
    check_moments((first[:, 0] == 1).astype(float), 0.8, 0.16)
    with pytest.raises(RuntimeError, match="element < 0"):
        cygrad.multinomial(cygrad.tensor([0.5, -0.1]).cuda(), 1)
    with pytest.raises(RuntimeError, match="sum of probabilities <= 0"):
        cygrad.multinomial(cygrad.tensor([[0.0, 0.0]]).cuda(), 1)


def test_normal_with_tensor_mean_and_std():
    mean = cygrad.tensor([-3.0, 5.0]).cuda().expand(N // 2, 2)
    std = cygrad.tensor([0.5, 2.0]).cuda()
    z = host(cygrad.normal(mean, std))
    check_moments(z[:, 0], -3.0, 0.25)
    check_moments(z[:, 1], 5.0, 4.0)


# ---- seeds and streams ------------------------------------------------------------------

def test_same_seed_same_stream_and_consecutive_calls_differ():
    cygrad.manual_seed(123)
    a, b = host(cygrad.randn(1000, device="cuda")), host(cygrad.randn(1000, device="cuda"))
    assert not np.array_equal(a, b)
    cygrad.manual_seed(123)
    np.testing.assert_array_equal(host(cygrad.randn(1000, device="cuda")), a)
    np.testing.assert_array_equal(host(cygrad.randn(1000, device="cuda")), b)
    cygrad.cuda.manual_seed(123)             # resets the device's offset too
    np.testing.assert_array_equal(host(cygrad.randn(1000, device="cuda")), a)
    assert cygrad.cuda.initial_seed() == 123
    cygrad.cuda.manual_seed(124)
    assert not np.array_equal(host(cygrad.randn(1000, device="cuda")), a)


def test_cuda_generators_and_states():
    g = cygrad.Generator("cuda").manual_seed(5)
    a = host(cygrad.rand(100, device="cuda", generator=g))
    cygrad.manual_seed(0)
    state = g.get_state()
    assert state.dtype is cygrad.uint8 and state.numel() == 16
    b = host(cygrad.rand(100, device="cuda", generator=g))
    g.set_state(state)
    np.testing.assert_array_equal(host(cygrad.rand(100, device="cuda", generator=g)), b)
    h = cygrad.Generator("cuda").manual_seed(5)
    np.testing.assert_array_equal(host(cygrad.rand(100, device="cuda", generator=h)), a)
    with pytest.raises(RuntimeError, match="Expected a 'cuda' device type for generator"):
        cygrad.rand(3, device="cuda", generator=cygrad.Generator())
    with pytest.raises(RuntimeError, match="Expected a 'cpu' device type for generator"):
        cygrad.rand(3, generator=g)


def test_cpu_stream_is_unchanged_by_cuda_draws():
    cygrad.manual_seed(7)
    want = cygrad.rand(5).tolist()
    cygrad.manual_seed(7)
    cygrad.randn(100, device="cuda")
    assert cygrad.rand(5).tolist() == want


# ---- dropout ----------------------------------------------------------------------------

def test_dropout_on_cuda_masks_about_p_and_its_gradient_is_the_mask():
    cygrad.manual_seed(3)
    x = cygrad.ones(N, device="cuda", requires_grad=True)
    y = F.dropout(x, 0.3)
    assert y.is_cuda
    yv = host(y.detach())
    assert set(np.unique(yv.astype(np.float64)).round(5).tolist()) == {0.0, round(1 / 0.7, 5)}
    check_moments((yv == 0).astype(float), 0.3, 0.21)
    y.sum().backward()
    np.testing.assert_allclose(host(x.grad), yv, rtol=1e-6)
    cygrad.manual_seed(3)
    np.testing.assert_array_equal(host(F.dropout(cygrad.ones(N, device="cuda"), 0.3)), yv)


def test_unsupported_dtype_raises_not_implemented_naming_the_primitive():
    engine = dispatch.kernel("generator_engine", "cuda")(0)
    out = cygrad.empty(4, dtype=cygrad.int64, device="cuda")
    with pytest.raises(NotImplementedError, match="'uniform_fill'.*int64.*cuda"):
        dispatch.kernel("uniform_fill", "cuda")(engine, out, 0.0, 1.0)
