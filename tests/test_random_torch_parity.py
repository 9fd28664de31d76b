"""Same seed, same numbers as PyTorch's CPU generator (``cygrad/random.py``).

After ``manual_seed(s)`` on both sides every sampler must give PyTorch's values bit
for bit (compared as raw bytes, so -0.0 vs 0.0 or a last-bit difference fails), for
sizes on both sides of 16 (where PyTorch switches to its blocked Box-Muller) and for
consecutive calls (the generator must advance exactly as PyTorch's).  PyTorch is the
reference; every test skips without it.
"""
import numpy as np
import pytest

import cygrad

SEEDS = [0, 1, 42, 2**31 + 5]
SIZES = [1, 2, 3, 7, 15, 16, 17, 31, 32, 33, 100, 1000]
FLOATS = ["float32", "float64", "float16", "bfloat16"]


def _torch():
    return pytest.importorskip("torch", reason="PyTorch reference not installed")


def bits(t):
    """The tensor's values as raw bits (uint view), for exact comparison."""
    torch = _torch()
    if isinstance(t, torch.Tensor):
        t = t.detach().contiguous()
        if t.dtype in (torch.float16, torch.bfloat16):
            return t.view(torch.int16).numpy()
        return t.numpy().copy()
    if t.dtype in (cygrad.float16, cygrad.bfloat16):
        return t.contiguous().view(cygrad.int16).numpy()
    return t.contiguous().numpy().copy()


def same(ours, ref):
    a, b = bits(ours), bits(ref)
    assert a.shape == b.shape and a.dtype.itemsize == b.dtype.itemsize, (a, b)
    assert a.tobytes() == b.tobytes(), (
        f"{int((a != b).sum())} of {a.size} differ; first: ours {ours.reshape(-1)[:6].tolist()} "
        f"torch {ref.reshape(-1)[:6].tolist()}")


def both(seed, fn):
    """``fn(lib)`` after seeding cygrad and PyTorch with the same seed."""
    torch = _torch()
    torch.manual_seed(seed)
    cygrad.manual_seed(seed)
    return fn(cygrad), fn(torch)


def dt(lib, name):
    return getattr(lib, name)


# ---------------------------------------------------------------------------
# the stream itself
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS + [2**40 + 3, -1, 2**63])
def test_seeds_including_64_bit_ones(seed):
    """PyTorch seeds mt19937 with the low 32 bits of the seed; the seed itself is
    kept whole (negative seeds wrap to 64 bits)."""
    torch = _torch()
    ours, ref = both(seed, lambda lib: lib.rand(5))
    same(ours, ref)
    assert cygrad.initial_seed() == torch.initial_seed()


@pytest.mark.parametrize("seed", SEEDS)
def test_consecutive_calls_of_mixed_samplers(seed):
    def run(lib):
        out = [lib.rand(3), lib.randn(5), lib.randn(40), lib.randint(0, 10, (7,)),
               lib.rand(2, dtype=lib.float64), lib.randn(3, dtype=lib.float64),
               lib.randperm(9), lib.empty(20).uniform_(-1, 2), lib.empty(5).normal_(1.0, 3.0),
               lib.empty(4).exponential_(), lib.empty(6).bernoulli_(0.3), lib.randn(1),
               lib.randint(-3, 3**25, (5,)), lib.rand(17)]
        return out
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


def test_state_bytes_are_pytorchs_layout():
    torch = _torch()
    torch.manual_seed(3)
    cygrad.manual_seed(3)
    assert cygrad.get_rng_state().numpy().tobytes() == torch.get_rng_state().numpy().tobytes()
    torch.randn(5)                    # leaves a cached normal in the state
    cygrad.randn(5)
    torch.rand(700)                   # crosses a twist
    cygrad.rand(700)
    assert cygrad.get_rng_state().numpy().tobytes() == torch.get_rng_state().numpy().tobytes()


def test_states_move_between_libraries():
    torch = _torch()
    torch.manual_seed(11)
    torch.randn(3)
    cygrad.set_rng_state(cygrad.tensor(torch.get_rng_state().numpy()))
    same(cygrad.randn(3), torch.randn(3))           # the cached normal moved too
    torch.set_rng_state(torch.from_numpy(cygrad.get_rng_state().numpy()))
    same(cygrad.rand(4), torch.rand(4))


def test_get_set_state_round_trip_and_fork_rng():
    _torch()
    cygrad.manual_seed(5)
    cygrad.randn(1)
    state = cygrad.get_rng_state()
    a = cygrad.randn(9)
    cygrad.set_rng_state(state)
    np.testing.assert_array_equal(cygrad.randn(9).numpy(), a.numpy())
    with cygrad.random.fork_rng():
        cygrad.rand(10)
    np.testing.assert_array_equal(cygrad.get_rng_state().numpy(), cygrad.get_rng_state().numpy())


@pytest.mark.parametrize("seed", SEEDS)
def test_generator_objects(seed):
    torch = _torch()
    g, tg = cygrad.Generator().manual_seed(seed), torch.Generator().manual_seed(seed)
    for _ in range(2):
        same(cygrad.randn(20, generator=g), torch.randn(20, generator=tg))
        same(cygrad.rand(3, generator=g), torch.rand(3, generator=tg))
        same(cygrad.randperm(12, generator=g), torch.randperm(12, generator=tg))
    # a fresh generator's default seed and its state bytes
    g, tg = cygrad.Generator(), torch.Generator()
    assert g.initial_seed() == tg.initial_seed()
    assert g.get_state().numpy().tobytes() == tg.get_state().numpy().tobytes()
    same(cygrad.rand(4, generator=g), torch.rand(4, generator=tg))


# ---------------------------------------------------------------------------
# uniform
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_rand(seed, dtype):
    ours, ref = both(seed, lambda lib: [lib.rand(n, dtype=dt(lib, dtype)) for n in SIZES]
                     + [lib.rand(3, 5, 2, dtype=dt(lib, dtype))])
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bounds", [(-1.0, 1.0), (-2.5, 1000.0), (-0.123456789, 0.123456789),
                                    (3.0, 3.0), (1e-3, 7.77)])
def test_uniform_(seed, dtype, bounds):
    ours, ref = both(seed, lambda lib: lib.empty(500, dtype=dt(lib, dtype)).uniform_(*bounds))
    same(ours, ref)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_uniform_never_returns_to(dtype):
    """A sample that rounds up to ``to`` becomes ``from`` (a one-ulp-wide range
    makes that happen half the time)."""
    torch = _torch()
    hi = float(np.nextafter(np.array(1.0, dtype), np.array(2.0, dtype)))
    ours, ref = both(0, lambda lib: lib.empty(64, dtype=dt(lib, dtype)).uniform_(1.0, hi))
    same(ours, ref)
    assert bool((ours == 1.0).all()) and bool((ref == 1.0).all()) and torch is not None


# ---------------------------------------------------------------------------
# normal
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_randn_all_sizes(seed, dtype):
    ours, ref = both(seed, lambda lib: [lib.randn(n, dtype=dt(lib, dtype)) for n in SIZES]
                     + [lib.randn(4, 4, 3, dtype=dt(lib, dtype))])
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", [0, 42])
def test_randn_float32_large(seed):
    """The float32 blocked path on many blocks (the AVX log/sincos polynomials)."""
    ours, ref = both(seed, lambda lib: lib.randn(200_003))
    same(ours, ref)


@pytest.mark.parametrize("seed", [0, 1])
def test_randn_float64_large(seed):
    ours, ref = both(seed, lambda lib: lib.randn(20_001, dtype=lib.float64))
    same(ours, ref)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("n", [5, 16, 50])
def test_normal_with_mean_and_std(seed, dtype, n):
    ours, ref = both(seed, lambda lib: [lib.empty(n, dtype=dt(lib, dtype)).normal_(0.75, 2.5),
                                        lib.normal(-3.0, 0.1, (n,), dtype=dt(lib, dtype))])
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", [0, 42])
def test_normal_on_a_noncontiguous_view(seed):
    """A non-contiguous tensor takes the scalar sampler, visited in memory order."""
    def run(lib):
        x = lib.zeros(6, 20)
        x.t().normal_()
        y = lib.zeros(8, 40)
        y[:, ::2].normal_(1.0, 2.0)
        return [x, y]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", [0, 1])
def test_normal_tensor_forms(seed):
    def run(lib):
        m = lib.arange(40, dtype=lib.float32) / 7
        s = lib.arange(1, 41, dtype=lib.float32) / 9
        return [lib.normal(m, s), lib.normal(m, 2.0), lib.normal(1.5, s),
                lib.normal(m[:5], s[:5])]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


# ---------------------------------------------------------------------------
# integers, permutations
# ---------------------------------------------------------------------------

INT_TYPES = ["int64", "int32", "int16", "int8", "uint8"]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", INT_TYPES + ["float32", "float64", "float16", "bfloat16"])
def test_randint(seed, dtype):
    def run(lib):
        d = dt(lib, dtype)
        low = 2 if dtype == "uint8" else -5
        out = [lib.randint(0, 10, (50,), dtype=d), lib.randint(low, 7, (3, 4), dtype=d),
               lib.randint(100, (17,), dtype=d)]
        if dtype in ("int64", "float32", "float64"):
            out += [lib.randint(-2**40, 2**40, (30,), dtype=d), lib.randint(0, 2**32, (30,), dtype=d)]
        if dtype in ("int64", "int32", "float64"):    # 32- vs 64-bit draws switch at 2**28
            out += [lib.randint(0, 2**28 - 1, (9,), dtype=d), lib.randint(5, 2**28 + 5, (9,), dtype=d),
                    lib.randint(-2**30, 2**30, (9,), dtype=d)]
        return out
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", INT_TYPES + ["bool", "float32", "float64", "float16", "bfloat16"])
def test_random_(seed, dtype):
    def run(lib):
        d = dt(lib, dtype)
        out = [lib.empty(40, dtype=d).random_()]
        if dtype != "bool":
            out += [lib.empty(40, dtype=d).random_(7), lib.empty(40, dtype=d).random_(2, 9)]
        if dtype in ("int32", "int64"):
            out += [lib.empty(20, dtype=d).random_(0, 2**31 - 1)]
        if dtype == "int64":
            out += [lib.empty(20, dtype=d).random_(-2**63, None),
                    lib.empty(20, dtype=d).random_(-5, None), lib.empty(20, dtype=d).random_(3, 2**62)]
        return out
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_randperm(seed):
    def run(lib):
        return [lib.randperm(n) for n in (0, 1, 2, 5, 16, 17, 100, 5000)] + \
            [lib.randperm(30, dtype=lib.int32), lib.randperm(30, dtype=lib.float32)]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


# ---------------------------------------------------------------------------
# bernoulli, dropout masks, multinomial, exponential and friends
# ---------------------------------------------------------------------------

@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64", "int64", "bool", "uint8"])
def test_bernoulli_scalar_p(seed, dtype):
    def run(lib):
        d = dt(lib, dtype)
        return [lib.empty(n, dtype=d).bernoulli_(p) for n, p in ((7, 0.5), (100, 0.3), (33, 0.9))]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("pdtype", ["float32", "float64"])
def test_bernoulli_tensor_p(seed, pdtype):
    def run(lib):
        p = lib.linspace(0, 1, 300, dtype=dt(lib, pdtype)).reshape(20, 15)
        return [lib.bernoulli(p), p.bernoulli(), lib.empty(20, 15).bernoulli_(p),
                lib.bernoulli(p, 0.25), lib.empty(5, 20, 15, dtype=lib.float64).bernoulli_(p)]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("p", [0.1, 0.5, 0.8])
def test_dropout_mask_recipe(seed, p):
    """``F.dropout`` on the CPU keeps element i iff ``bernoulli_(1 - p)`` on a fresh
    tensor of the input's shape gives 1 there, then scales by 1/(1-p)."""
    torch = _torch()
    x = np.random.default_rng(seed).standard_normal((8, 33)).astype(np.float32)
    torch.manual_seed(seed)
    ref = torch.nn.functional.dropout(torch.from_numpy(x), p, training=True)
    cygrad.manual_seed(seed)
    mask = cygrad.empty(8, 33).bernoulli_(1 - p)
    np.testing.assert_array_equal(mask.numpy() != 0, ref.numpy() != 0)
    same(cygrad.tensor(x) * mask.div_(1 - p), ref)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_multinomial(seed, dtype):
    def run(lib):
        d = dt(lib, dtype)
        w1 = lib.tensor([0.1, 2.0, 0.0, 3.5, 1.0, 0.25], dtype=d)
        w2 = (lib.arange(60, dtype=d).reshape(4, 15) % 7) + 0.5
        return [lib.multinomial(w1, 1), lib.multinomial(w1, 4), lib.multinomial(w1, 20, True),
                lib.multinomial(w2, 1), lib.multinomial(w2, 6), lib.multinomial(w2, 50, True),
                lib.multinomial(w2, 1, True)]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("dtype", FLOATS)
def test_exponential_geometric_cauchy_log_normal(seed, dtype):
    def run(lib):
        d = dt(lib, dtype)
        return [lib.empty(40, dtype=d).exponential_(), lib.empty(40, dtype=d).exponential_(2.5),
                lib.empty(30, dtype=d).geometric_(0.3), lib.empty(30, dtype=d).cauchy_(1.5, 2.0),
                lib.empty(9, dtype=d).log_normal_(0.5, 0.25), lib.empty(25, dtype=d).log_normal_()]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", SEEDS)
def test_poisson(seed):
    def run(lib):
        rates = lib.tensor([0.0, 0.5, 3.0, 9.99, 10.0, 25.0, 400.0, 1e4], dtype=lib.float64)
        return [lib.poisson(rates), lib.poisson(rates.float())]
    ours, ref = both(seed, run)
    for a, b in zip(ours, ref):
        same(a, b)


# ---------------------------------------------------------------------------
# nn.init
# ---------------------------------------------------------------------------

INITS = [
    ("uniform_", lambda lib, w: lib.nn.init.uniform_(w, -0.3, 0.4)),
    ("normal_", lambda lib, w: lib.nn.init.normal_(w, 0.1, 0.02)),
    ("xavier_uniform_", lambda lib, w: lib.nn.init.xavier_uniform_(w)),
    ("xavier_normal_", lambda lib, w: lib.nn.init.xavier_normal_(w, gain=1.5)),
    ("kaiming_uniform_", lambda lib, w: lib.nn.init.kaiming_uniform_(w, a=5 ** 0.5)),
    ("kaiming_normal_", lambda lib, w: lib.nn.init.kaiming_normal_(w, mode="fan_out",
                                                                   nonlinearity="relu")),
]


@pytest.mark.parametrize("seed", SEEDS)
@pytest.mark.parametrize("name", [n for n, _ in INITS])
@pytest.mark.parametrize("shape", [(3, 4), (64, 33), (8, 3, 5, 5)])
def test_nn_init(seed, name, shape):
    fn = dict(INITS)[name]
    ours, ref = both(seed, lambda lib: [fn(lib, lib.empty(*shape)) for _ in range(2)])
    for a, b in zip(ours, ref):
        same(a, b)


@pytest.mark.parametrize("seed", [0, 42])
def test_linear_layer_init_matches(seed):
    """``nn.Linear`` draws weight then bias with kaiming_uniform_/uniform_ as PyTorch."""
    torch = _torch()
    torch.manual_seed(seed)
    ref = torch.nn.Linear(20, 7)
    cygrad.manual_seed(seed)
    ours = cygrad.nn.Linear(20, 7)
    same(ours.weight.detach(), ref.weight.detach())
    same(ours.bias.detach(), ref.bias.detach())
