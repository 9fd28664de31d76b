"""Random numbers (``cygrad/random.py``): reproducibility, generator independence,
saved states, and distribution sanity with fixed seeds and generous bounds (1e5
samples: a mean is off by more than ~5 standard errors about once in 10**6 runs, and
the seeds are fixed anyway).  Error types are checked against PyTorch."""
import math

import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")

N = 100_000


def gen(seed=0):
    return cygrad.Generator().manual_seed(seed)


def arr(t):
    return t.to(cygrad.float64).numpy() if t.dtype in (cygrad.float16, cygrad.bfloat16) else t.numpy()


# ---------------------------------------------------------------------------
# seeding and generators
# ---------------------------------------------------------------------------
SAMPLERS = {
    "rand": lambda g: cygrad.rand(3, 4, generator=g),
    "randn": lambda g: cygrad.randn(5, generator=g, dtype=cygrad.float64),
    "randint": lambda g: cygrad.randint(-5, 5, (6,), generator=g),
    "randperm": lambda g: cygrad.randperm(10, generator=g),
    "normal": lambda g: cygrad.normal(cygrad.zeros(4), cygrad.ones(4), generator=g),
    "bernoulli": lambda g: cygrad.bernoulli(cygrad.full((8,), 0.5), generator=g),
    "multinomial": lambda g: cygrad.multinomial(cygrad.ones(2, 6), 3, generator=g),
    "uniform_": lambda g: cygrad.empty(5).uniform_(-2, 3, generator=g),
    "exponential_": lambda g: cygrad.empty(5).exponential_(generator=g),
    "rand_half": lambda g: cygrad.rand(6, dtype=cygrad.bfloat16, generator=g),
}


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_same_seed_same_stream(name):
    draw = SAMPLERS[name]
    a, b = draw(gen(123)), draw(gen(123))
    np.testing.assert_array_equal(arr(a), arr(b))
    c = draw(gen(124))
    if name not in ("bernoulli",):
        assert not np.array_equal(arr(a), arr(c)), "different seeds gave the same numbers"


@pytest.mark.parametrize("name", list(SAMPLERS))
def test_default_generator_reproducible_with_manual_seed(name):
    draw = SAMPLERS[name]
    cygrad.manual_seed(2024)
    a = draw(None)
    cygrad.manual_seed(2024)
    np.testing.assert_array_equal(arr(draw(None)), arr(a))


def test_generators_are_independent():
    g1, g2 = gen(5), gen(5)
    first = cygrad.rand(4, generator=g1)
    cygrad.rand(1000, generator=g2)               # advances g2 only
    cygrad.manual_seed(0)
    cygrad.rand(1000)                             # the default stream: touches neither
    second = cygrad.rand(4, generator=g1)
    h = gen(5)
    np.testing.assert_array_equal(cygrad.rand(4, generator=h).numpy(), first.numpy())
    np.testing.assert_array_equal(cygrad.rand(4, generator=h).numpy(), second.numpy())


def test_explicit_generator_leaves_default_stream_alone():
    cygrad.manual_seed(11)
    expected = cygrad.rand(3)
    cygrad.manual_seed(11)
    cygrad.randn(100, generator=gen(1))
    np.testing.assert_array_equal(cygrad.rand(3).numpy(), expected.numpy())


def test_state_round_trip():
    g = gen(9)
    cygrad.randn(7, generator=g)
    state = g.get_state()
    assert state.dtype == cygrad.uint8 and state.dim() == 1
    a = cygrad.randint(0, 100, (10,), generator=g)
    g.set_state(state)
    np.testing.assert_array_equal(cygrad.randint(0, 100, (10,), generator=g).numpy(), a.numpy())
    # a state moves between generators, initial seed included
    other = cygrad.Generator().set_state(state)
    assert other.initial_seed() == 9
    np.testing.assert_array_equal(cygrad.randint(0, 100, (10,), generator=other).numpy(), a.numpy())


def test_rng_state_functions_and_fork_rng():
    cygrad.manual_seed(3)
    state = cygrad.get_rng_state()
    a = cygrad.rand(5)
    cygrad.set_rng_state(state)
    np.testing.assert_array_equal(cygrad.rand(5).numpy(), a.numpy())
    before = cygrad.get_rng_state()
    with cygrad.random.fork_rng():
        cygrad.rand(10)
    np.testing.assert_array_equal(cygrad.get_rng_state().numpy(), before.numpy())


def test_seed_functions():
    assert cygrad.manual_seed(42) is cygrad.default_generator
    assert cygrad.initial_seed() == 42
    s = cygrad.seed()
    assert isinstance(s, int) and cygrad.initial_seed() == s
    g = cygrad.Generator()
    assert g.initial_seed() == torch.Generator().initial_seed()   # the same default seed
    assert g.manual_seed(-1).initial_seed() == torch.Generator().manual_seed(-1).initial_seed()
    assert g.device == cygrad.device("cpu")
    assert isinstance(g.seed(), int)


@pytest.mark.parametrize("bad", [1.5, 2 ** 64], ids=str)
def test_manual_seed_errors_match_torch(bad):
    with pytest.raises(Exception) as t_err:
        torch.Generator().manual_seed(bad)
    with pytest.raises(type(t_err.value)):
        cygrad.Generator().manual_seed(bad)


def test_set_state_errors_match_torch():
    for bad_c, bad_t in [(cygrad.zeros(3, dtype=cygrad.uint8), torch.zeros(3, dtype=torch.uint8)),
                         (cygrad.zeros(3), torch.zeros(3))]:
        with pytest.raises(Exception) as t_err:
            torch.Generator().set_state(bad_t)
        with pytest.raises(type(t_err.value)):
            cygrad.Generator().set_state(bad_c)


# ---------------------------------------------------------------------------
# distributions
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("dtype", ["float32", "float64", "float16", "bfloat16"])
def test_rand_uniform_moments_and_range(dtype):
    x = arr(cygrad.rand(N, generator=gen(1), dtype=getattr(cygrad, dtype))).astype(np.float64)
    assert x.min() >= 0.0 and x.max() < 1.0
    assert abs(x.mean() - 0.5) < 0.01
    assert abs(x.std() - math.sqrt(1 / 12)) < 0.01


@pytest.mark.parametrize("dtype", ["float32", "float64", "bfloat16"])
def test_randn_moments(dtype):
    x = arr(cygrad.randn(N, generator=gen(2), dtype=getattr(cygrad, dtype))).astype(np.float64)
    assert abs(x.mean()) < 0.02 and abs(x.std() - 1) < 0.02
    # tails: about 4.6% of standard normal samples lie beyond 2 sigma
    assert 0.04 < np.mean(np.abs(x) > 2) < 0.052


def test_randint_covers_the_range_uniformly():
    x = cygrad.randint(-3, 4, (N,), generator=gen(3)).numpy()
    assert x.dtype == np.int64 and x.min() == -3 and x.max() == 3
    counts = np.bincount(x + 3)
    assert np.all(np.abs(counts / N - 1 / 7) < 0.01)
    y = cygrad.randint(5, (10, 10), generator=gen(3), dtype=cygrad.uint8)
    assert y.dtype == cygrad.uint8 and y.shape == (10, 10) and int(y.numpy().max()) < 5
    f = cygrad.randint(2, 4, (1000,), dtype=cygrad.float32, generator=gen(3)).numpy()
    assert set(np.unique(f).tolist()) == {2.0, 3.0}


def test_randint_keyword_forms():
    a = cygrad.randint(high=3, size=(5,), generator=gen(1))
    b = cygrad.randint(0, 3, (5,), generator=gen(1))
    np.testing.assert_array_equal(a.numpy(), b.numpy())
    assert cygrad.randint(10, size=(2, 2)).shape == (2, 2)


def test_randperm_is_a_permutation():
    for n in (0, 1, 17, 1000):
        p = cygrad.randperm(n, generator=gen(n))
        assert p.dtype == cygrad.int64
        assert sorted(p.numpy().tolist()) == list(range(n))
    assert cygrad.randperm(5, dtype=cygrad.float32).dtype == cygrad.float32


def test_normal_forms():
    m = cygrad.tensor([0.0, 10.0, -5.0])
    s = cygrad.tensor([1.0, 0.1, 2.0])
    x = cygrad.normal(m.expand(N, 3), s, generator=gen(4)).numpy()
    assert x.shape == (N, 3)
    np.testing.assert_allclose(x.mean(0), [0, 10, -5], atol=0.03)
    np.testing.assert_allclose(x.std(0), [1, 0.1, 2], rtol=0.02)
    y = cygrad.normal(3.0, 0.5, (N,), generator=gen(4)).numpy()
    assert abs(y.mean() - 3) < 0.01 and abs(y.std() - 0.5) < 0.01
    z = cygrad.normal(m, 2.0, generator=gen(4))
    assert z.shape == (3,) and z.dtype == cygrad.float32
    w = cygrad.normal(1.0, cygrad.ones(2, 2, dtype=cygrad.float64), generator=gen(4))
    assert w.shape == (2, 2) and w.dtype == cygrad.float64
    assert cygrad.normal(cygrad.zeros(2, 1), cygrad.ones(3)).shape == (2, 3)


def test_bernoulli_mean_and_shapes():
    p = cygrad.tensor([0.0, 0.2, 0.9, 1.0], dtype=cygrad.float64)
    x = cygrad.bernoulli(p.expand(N, 4), generator=gen(5)).numpy()
    assert set(np.unique(x).tolist()) <= {0.0, 1.0}
    np.testing.assert_allclose(x.mean(0), [0, 0.2, 0.9, 1], atol=0.01)
    assert x[:, 0].max() == 0 and x[:, 3].min() == 1
    y = cygrad.bernoulli(cygrad.zeros(N, dtype=cygrad.float16), 0.3, generator=gen(5))
    assert y.dtype == cygrad.float16 and abs(arr(y).mean() - 0.3) < 0.01
    z = cygrad.zeros(N, dtype=cygrad.int64)
    v0 = z._version
    assert z.bernoulli_(0.25, generator=gen(5)) is z and z._version == v0 + 1
    assert abs(z.numpy().mean() - 0.25) < 0.01
    w = cygrad.zeros(N, 2).bernoulli_(cygrad.tensor([0.1, 0.7]), generator=gen(5)).numpy()
    np.testing.assert_allclose(w.mean(0), [0.1, 0.7], atol=0.01)


def test_multinomial_with_replacement_frequencies():
    probs = cygrad.tensor([[1.0, 0.0, 3.0, 4.0], [0.0, 0.0, 1.0, 0.0]])
    x = cygrad.multinomial(probs, N, replacement=True, generator=gen(6)).numpy()
    assert x.shape == (2, N) and x.dtype == np.int64
    freq = np.bincount(x[0], minlength=4) / N
    np.testing.assert_allclose(freq, [0.125, 0, 0.375, 0.5], atol=0.01)
    assert (x[0] != 1).all(), "a zero-probability category was drawn"
    assert (x[1] == 2).all()


def test_multinomial_without_replacement():
    rows = cygrad.multinomial(cygrad.rand(50, 10, generator=gen(7)) + 0.01, 10, generator=gen(7))
    for row in rows.numpy():
        assert sorted(row.tolist()) == list(range(10))
    # first draws follow the probabilities
    p = cygrad.tensor([0.7, 0.2, 0.1], dtype=cygrad.float64)
    first = cygrad.multinomial(p.expand(20000, 3), 2, generator=gen(8)).numpy()
    np.testing.assert_allclose(np.bincount(first[:, 0], minlength=3) / 20000, [0.7, 0.2, 0.1],
                               atol=0.015)
    assert (first[:, 0] != first[:, 1]).all()
    one = cygrad.multinomial(cygrad.tensor([0.0, 1.0, 0.0]), 1)
    assert one.numpy().tolist() == [1]


def test_poisson_mean():
    x = cygrad.poisson(cygrad.full((N,), 3.0), generator=gen(9)).numpy()
    assert abs(x.mean() - 3) < 0.03 and (x == np.round(x)).all()


# ---------------------------------------------------------------------------
# in-place samplers
# ---------------------------------------------------------------------------
def test_uniform_normal_exponential_inplace():
    x = cygrad.empty(N, dtype=cygrad.float64)
    v0 = x._version
    assert x.uniform_(-2, 3, generator=gen(10)) is x and x._version == v0 + 1
    a = x.numpy()
    assert a.min() >= -2 and a.max() < 3 and abs(a.mean() - 0.5) < 0.02
    x.normal_(5, 2, generator=gen(10))
    assert abs(x.numpy().mean() - 5) < 0.03 and abs(x.numpy().std() - 2) < 0.03
    x.exponential_(4.0, generator=gen(10))
    assert x.numpy().min() >= 0 and abs(x.numpy().mean() - 0.25) < 0.005
    x.geometric_(0.25, generator=gen(10))
    assert x.numpy().min() >= 1 and abs(x.numpy().mean() - 4) < 0.06
    x.log_normal_(0.0, 0.5, generator=gen(10))
    assert abs(np.log(x.numpy()).std() - 0.5) < 0.01
    x.cauchy_(1.0, 2.0, generator=gen(10))
    assert abs(np.median(x.numpy()) - 1.0) < 0.05


def test_inplace_fill_on_a_noncontiguous_view():
    base = cygrad.zeros(6, 8)
    view = base[::2, 1::2]
    view.uniform_(1, 2, generator=gen(11))
    b = base.numpy()
    assert (b[::2, 1::2] >= 1).all() and (b[::2, 1::2] < 2).all()
    mask = np.ones_like(b, dtype=bool)
    mask[::2, 1::2] = False
    assert (b[mask] == 0).all()
    view.normal_(generator=gen(11))
    assert (b[mask] == 0).all() and (b[::2, 1::2] != 0).all()


def test_inplace_half_uniform_stays_below_one():
    x = cygrad.empty(N, dtype=cygrad.float16).uniform_(generator=gen(12))
    assert float(arr(x).max()) < 1.0


def test_random_inplace_ranges():
    x = cygrad.empty(N, dtype=cygrad.int64)
    assert set(np.unique(x.random_(3, generator=gen(13)).numpy()).tolist()) == {0, 1, 2}
    assert set(np.unique(x.random_(-2, 1, generator=gen(13)).numpy()).tolist()) == {-2, -1, 0}
    u = cygrad.empty(N, dtype=cygrad.uint8).random_(generator=gen(13)).numpy()
    assert u.min() == 0 and u.max() == 255
    b = cygrad.empty(1000, dtype=cygrad.bool).random_(generator=gen(13)).numpy()
    assert set(np.unique(b).tolist()) == {False, True}
    f = cygrad.empty(1000).random_(generator=gen(13)).numpy()
    assert (f == np.round(f)).all() and f.min() >= 0 and f.max() <= 2 ** 24
    g = cygrad.empty(1000).random_(5, None, generator=gen(13)).numpy()
    assert g.min() >= 5
    h = cygrad.empty(1000).random_(**{"from": 2, "to": 4}, generator=gen(13)).numpy()
    assert set(np.unique(h).tolist()) == {2.0, 3.0}


def test_inplace_on_leaf_requiring_grad_is_refused():
    x = cygrad.zeros(3, requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable"):
        x.uniform_()


# ---------------------------------------------------------------------------
# factories: dtype, shape, device, out=, requires_grad
# ---------------------------------------------------------------------------
def test_factory_signatures(default_dtype_guard):
    assert cygrad.rand((2, 3)).shape == (2, 3)
    assert cygrad.rand([]).shape == ()
    assert cygrad.rand(2, dtype=cygrad.float64).dtype == cygrad.float64
    assert cygrad.randn(2, requires_grad=True).requires_grad
    assert cygrad.rand_like(cygrad.zeros(2, 2, dtype=cygrad.float64)).dtype == cygrad.float64
    assert cygrad.randn_like(cygrad.zeros(3), dtype=cygrad.float64).dtype == cygrad.float64
    r = cygrad.randint_like(cygrad.zeros(4, dtype=cygrad.int16), 2, 5)
    assert r.dtype == cygrad.int16 and r.numpy().min() >= 2 and r.numpy().max() < 5
    out = cygrad.empty(2, 3)
    v0 = out._version
    assert cygrad.rand(2, 3, out=out, generator=gen(1)) is out and out._version > v0
    np.testing.assert_array_equal(out.numpy(), cygrad.rand(2, 3, generator=gen(1)).numpy())
    cygrad.set_default_dtype(cygrad.float64)
    assert cygrad.rand(2).dtype == cygrad.float64


ERROR_CASES = {
    "rand_int": lambda m: m.rand(2, dtype=m.int64),
    "randn_int": lambda m: m.randn(2, dtype=m.int64),
    "rand_negative": lambda m: m.rand(-1),
    "randint_empty_range": lambda m: m.randint(5, 5, (3,)),
    "randint_size_int": lambda m: m.randint(5, 3),
    "randint_uint8_low": lambda m: m.randint(-1, 3, (3,), dtype=m.uint8),
    "randint_uint8_high": lambda m: m.randint(0, 300, (3,), dtype=m.uint8),
    "randint_bool": lambda m: m.randint(0, 3, (3,), dtype=m.bool),
    "normal_std": lambda m: m.normal(0.0, -1.5, (3,)),
    "normal_tensor_std": lambda m: m.normal(m.ones(3), -m.ones(3)),
    "normal_int_mean": lambda m: m.normal(m.ones(3, dtype=m.int64), 1.0),
    "normal_shapes": lambda m: m.normal(m.ones(3), m.ones(4)),
    "randperm_negative": lambda m: m.randperm(-1),
    "randperm_bool": lambda m: m.randperm(3, dtype=m.bool),
    "bernoulli_p": lambda m: m.bernoulli(m.ones(3) * 2),
    "bernoulli_int": lambda m: m.bernoulli(m.ones(3, dtype=m.int64)),
    "bernoulli_scalar_p": lambda m: m.bernoulli(m.ones(3), 1.3),
    "multinomial_too_many": lambda m: m.multinomial(m.ones(3), 4),
    "multinomial_zero": lambda m: m.multinomial(m.ones(3), 0),
    "multinomial_3d": lambda m: m.multinomial(m.ones(2, 3, 4), 1),
    "multinomial_negative": lambda m: m.multinomial(m.tensor([1.0, -1.0]), 1),
    "multinomial_nan": lambda m: m.multinomial(m.tensor([1.0, float("nan")]), 1),
    "multinomial_sum_zero": lambda m: m.multinomial(m.tensor([0.0, 0.0]), 1),
    "multinomial_int": lambda m: m.multinomial(m.tensor([1, 1]), 1),
    "multinomial_float_n": lambda m: m.multinomial(m.ones(3), 2.0),
    "uniform_int": lambda m: m.ones(3, dtype=m.int64).uniform_(),
    "uniform_order": lambda m: m.ones(3).uniform_(2, 1),
    "normal_inplace_std": lambda m: m.ones(3).normal_(0, -1),
    "exponential_lambda": lambda m: m.ones(3).exponential_(-1),
    "exponential_int": lambda m: m.ones(3, dtype=m.int64).exponential_(),
    "random_empty_range": lambda m: m.ones(3).random_(4, 4),
    "random_uint8_from": lambda m: m.ones(3, dtype=m.uint8).random_(-1, 4),
    "geometric_p": lambda m: m.ones(3).geometric_(1.5),
    "log_normal_std": lambda m: m.ones(3).log_normal_(1, -1),
    "cauchy_sigma": lambda m: m.ones(3).cauchy_(0, -1),
    "poisson_negative": lambda m: m.poisson(-m.ones(3)),
}

# messages we reproduce word for word
SAME_MESSAGE = {"randint_empty_range", "randint_uint8_low", "randint_bool", "normal_std",
                "normal_tensor_std", "rand_negative", "bernoulli_scalar_p", "multinomial_too_many",
                "multinomial_zero", "multinomial_3d", "multinomial_negative", "multinomial_sum_zero",
                "multinomial_int", "uniform_order", "normal_inplace_std", "exponential_lambda",
                "exponential_int", "random_empty_range", "random_uint8_from", "geometric_p",
                "log_normal_std", "cauchy_sigma", "poisson_negative", "normal_shapes",
                "rand_int", "randn_int", "bernoulli_int"}


@pytest.mark.parametrize("case", list(ERROR_CASES))
def test_errors_match_torch(case):
    with pytest.raises(Exception) as t_err:
        ERROR_CASES[case](torch)
    with pytest.raises(type(t_err.value)) as c_err:
        ERROR_CASES[case](cygrad)
    if case in SAME_MESSAGE:
        assert str(c_err.value) == str(t_err.value)


# ---------------------------------------------------------------------------
# the exact arithmetic behind PyTorch parity (cygrad/_core/backend_cpu/random.py), checked
# against rational arithmetic
# ---------------------------------------------------------------------------

def _exact_round32(q):
    """The float32 nearest (ties to even) to the rational ``q``."""
    from fractions import Fraction
    lo = np.float32(float(q))                     # within an ulp or two of q
    cands = [np.nextafter(lo, np.float32(-np.inf)), lo, np.nextafter(lo, np.float32(np.inf))]
    best = min(cands, key=lambda c: (abs(Fraction(float(c)) - q),
                                     int(np.array(c, np.float32).view(np.int32)) & 1))
    return best


def test_fused_multiply_add_emulation_is_exact():
    from fractions import Fraction
    from cygrad._core.backend_cpu.random import fma32, fma64
    rng = np.random.default_rng(7)
    n = 3000
    a = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
    b = rng.standard_normal(n)
    c = rng.standard_normal(n) * 10.0 ** rng.integers(-6, 6, n)
    z = fma64(a, b, c)
    for i in range(n):
        assert z[i] == float(Fraction(a[i]) * Fraction(b[i]) + Fraction(c[i])), i
    a32, b32, c32 = a.astype(np.float32), b.astype(np.float32), c.astype(np.float32)
    # (1 + 2**-12)**2 lies exactly halfway between two float32 values; adding a tiny
    # c makes the float64 sum round back onto that midpoint, the one case where
    # rounding twice goes wrong, so fma32 must use the exact error there.
    a32[:50] = b32[:50] = np.float32(1) + np.float32(2.0 ** -12)
    c32[:50] = np.float32(2.0 ** -80) * rng.choice([-1, 1], 50)
    z32 = fma32(a32, b32, c32)
    assert len(set(z32[:50].tolist())) == 2
    for i in range(n):
        q = Fraction(float(a32[i])) * Fraction(float(b32[i])) + Fraction(float(c32[i]))
        assert z32[i] == _exact_round32(q), i


def test_state_is_pytorchs_5056_bytes_and_rejects_broken_states():
    state = cygrad.Generator().manual_seed(1).get_state()
    assert state.dtype == cygrad.uint8 and state.numel() == torch.get_rng_state().numel() == 5056
    broken = state.clone()
    broken[8:12] = 0                   # mt19937's `left` must be in 1..624
    with pytest.raises(RuntimeError) as t_err:
        torch.Generator().set_state(torch.from_numpy(broken.numpy()))
    with pytest.raises(type(t_err.value), match="Invalid mt19937 state"):
        cygrad.Generator().set_state(broken)
