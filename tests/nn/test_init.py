"""nn.init: fan computations against their formulas, gains against PyTorch,
sample statistics at sizes where sampling error is well below the tolerance,
deterministic initialisations against PyTorch's output."""
import math
import warnings

import numpy as np
import pytest

import cygrad
from cygrad import nn
from cygrad.nn import init
from cygrad.nn.init import _calculate_fan_in_and_fan_out

N = 400_000   # samples per statistic: relative std error of a std estimate ~0.1%


def gen(seed=0):
    """A seeded generator: the statistics tests are deterministic and leave the
    global stream alone."""
    return cygrad.Generator().manual_seed(seed)


@pytest.mark.parametrize("shape", [(7, 3), (8, 3, 5), (6, 4, 3, 2), (2, 5, 1, 2, 3)])
def test_fans_match_formula(shape):
    receptive = int(np.prod(shape[2:])) if len(shape) > 2 else 1
    assert _calculate_fan_in_and_fan_out(cygrad.empty(*shape)) == (shape[1] * receptive,
                                                                    shape[0] * receptive)


def test_fans_need_two_dims():
    with pytest.raises(ValueError, match="fewer than 2 dimensions"):
        _calculate_fan_in_and_fan_out(cygrad.empty(5))


def test_calculate_gain_matches_torch():
    torch = pytest.importorskip("torch")
    cases = [("linear", None), ("conv2d", None), ("sigmoid", None), ("tanh", None),
             ("relu", None), ("leaky_relu", None), ("leaky_relu", 0.2), ("leaky_relu", 3),
             ("selu", None)]
    for name, param in cases:
        assert init.calculate_gain(name, param) == torch.nn.init.calculate_gain(name, param)
    for bad in [("leaky_relu", True), ("leaky_relu", "x"), ("swish", None)]:
        with pytest.raises(ValueError) as ours:
            init.calculate_gain(*bad)
        with pytest.raises(ValueError) as theirs:
            torch.nn.init.calculate_gain(*bad)
        assert str(ours.value) == str(theirs.value)


def _stats(t):
    v = t.detach().numpy().astype(np.float64).ravel()
    return v.mean(), v.std(), v.min(), v.max()


def test_uniform_and_normal_statistics():
    mean, std, lo, hi = _stats(init.uniform_(cygrad.empty(N), -3.0, 1.0, generator=gen()))
    assert lo >= -3.0 and hi < 1.0
    assert abs(mean - (-1.0)) < 0.01 and abs(std / (4 / math.sqrt(12)) - 1) < 0.01
    mean, std, _, _ = _stats(init.normal_(cygrad.empty(N), 2.0, 0.5, generator=gen()))
    assert abs(mean - 2.0) < 0.005 and abs(std / 0.5 - 1) < 0.01


@pytest.mark.parametrize("shape", [(800, 500), (200, 100, 5, 4)])
def test_xavier_statistics(shape):
    fan_in, fan_out = _calculate_fan_in_and_fan_out(cygrad.empty(*shape))
    gain = 1.7
    std = gain * math.sqrt(2.0 / (fan_in + fan_out))
    mean, s, lo, hi = _stats(init.xavier_uniform_(cygrad.empty(*shape), gain=gain, generator=gen()))
    assert -math.sqrt(3) * std <= lo and hi <= math.sqrt(3) * std
    assert abs(s / std - 1) < 0.01 and abs(mean) < 0.01 * std
    mean, s, _, _ = _stats(init.xavier_normal_(cygrad.empty(*shape), gain=gain, generator=gen()))
    assert abs(s / std - 1) < 0.01 and abs(mean) < 0.01 * std


@pytest.mark.parametrize("mode", ["fan_in", "fan_out"])
@pytest.mark.parametrize("nonlinearity,a", [("relu", 0), ("leaky_relu", 0.3), ("tanh", 0)])
def test_kaiming_statistics(mode, nonlinearity, a):
    shape = (300, 150, 3, 3)
    fan_in, fan_out = _calculate_fan_in_and_fan_out(cygrad.empty(*shape))
    fan = fan_in if mode == "fan_in" else fan_out
    std = init.calculate_gain(nonlinearity, a) / math.sqrt(fan)
    _, s, lo, hi = _stats(init.kaiming_uniform_(cygrad.empty(*shape), a=a, mode=mode,
                                                nonlinearity=nonlinearity, generator=gen()))
    assert -math.sqrt(3) * std <= lo and hi <= math.sqrt(3) * std
    assert abs(s / std - 1) < 0.01
    _, s, _, _ = _stats(init.kaiming_normal_(cygrad.empty(*shape), a=a, mode=mode,
                                             nonlinearity=nonlinearity, generator=gen()))
    assert abs(s / std - 1) < 0.01


def test_kaiming_errors_and_zero_element_warning():
    with pytest.raises(ValueError, match="Mode fan_avg not supported"):
        init.kaiming_uniform_(cygrad.empty(3, 3), mode="fan_avg")
    with pytest.warns(UserWarning, match="zero-element tensors is a no-op"):
        init.kaiming_normal_(cygrad.empty(0, 3))


def _truncnorm_moments(mean, std, a, b):
    alpha, beta = (a - mean) / std, (b - mean) / std
    pdf = lambda x: math.exp(-x * x / 2) / math.sqrt(2 * math.pi)   # noqa: E731
    cdf = lambda x: (1 + math.erf(x / math.sqrt(2))) / 2            # noqa: E731
    z = cdf(beta) - cdf(alpha)
    m = (pdf(alpha) - pdf(beta)) / z
    var = 1 + (alpha * pdf(alpha) - beta * pdf(beta)) / z - m * m
    return mean + std * m, std * math.sqrt(var)


@pytest.mark.parametrize("mean,std,a,b", [(0.0, 1.0, -2.0, 2.0), (1.0, 2.0, 0.0, 6.0),
                                          (0.0, 1.0, 0.5, 3.0)])
def test_trunc_normal_moments(mean, std, a, b):
    n = 100_000     # the inverse-CDF sampler costs ~40 elementwise ops per draw
    t = init.trunc_normal_(cygrad.empty(n, dtype=cygrad.float64), mean, std, a, b, generator=gen())
    m, s, lo, hi = _stats(t)
    exp_mean, exp_std = _truncnorm_moments(mean, std, a, b)
    assert a <= lo and hi <= b
    assert abs(m - exp_mean) < 0.01 * std and abs(s / exp_std - 1) < 0.01


def test_trunc_normal_warns_far_mean():
    with pytest.warns(UserWarning, match="more than 2 std"):
        init.trunc_normal_(cygrad.empty(10), mean=10.0, std=1.0, a=-1.0, b=1.0)


@pytest.mark.parametrize("shape", [(6, 6), (10, 4), (4, 10), (5, 2, 3, 2)])
def test_orthogonal(shape):
    t = init.orthogonal_(cygrad.empty(*shape, dtype=cygrad.float64), gain=2.0)
    q = t.detach().numpy().reshape(shape[0], -1) / 2.0
    rows, cols = q.shape
    gram = q.T @ q if rows >= cols else q @ q.T
    np.testing.assert_allclose(gram, np.eye(min(rows, cols)), atol=1e-12)
    with pytest.raises(ValueError, match="2 or more dimensions"):
        init.orthogonal_(cygrad.empty(3))


def test_deterministic_inits_match_torch():
    torch = pytest.importorskip("torch")
    for shape, groups in [((4, 2, 3), 1), ((6, 3, 3, 3), 2), ((2, 4, 3, 2, 5), 1)]:
        ours = init.dirac_(cygrad.empty(*shape), groups).numpy()
        theirs = torch.nn.init.dirac_(torch.empty(*shape), groups).numpy()
        np.testing.assert_array_equal(ours, theirs)
    for shape in [(3, 5), (4, 2)]:
        np.testing.assert_array_equal(init.eye_(cygrad.empty(*shape)).numpy(),
                                      torch.nn.init.eye_(torch.empty(*shape)).numpy())
    with pytest.raises(ValueError, match="divisible by groups"):
        init.dirac_(cygrad.empty(3, 3, 3), groups=2)
    with pytest.raises(ValueError, match="Only tensors with 2 dimensions"):
        init.eye_(cygrad.empty(2, 2, 2))


def test_fills_and_no_grad_on_parameters():
    p = nn.Parameter(cygrad.empty(3, 4))
    for fn, value in [(init.zeros_, 0.0), (init.ones_, 1.0), (lambda t: init.constant_(t, 2.5), 2.5)]:
        out = fn(p)
        assert out is p and p.is_leaf and p.grad_fn is None
        np.testing.assert_array_equal(p.detach().numpy(), np.full((3, 4), value))
    for fn in (init.kaiming_uniform_, init.xavier_normal_, init.orthogonal_, init.trunc_normal_):
        assert fn(p) is p and p.grad_fn is None


def test_generator_makes_inits_reproducible():
    def draw(fn):
        return fn(cygrad.empty(20, 10), generator=cygrad.Generator().manual_seed(7)).numpy()

    for fn in (init.uniform_, init.normal_, init.xavier_uniform_, init.kaiming_normal_,
               init.trunc_normal_, init.orthogonal_):
        a, b = draw(fn), draw(fn)
        np.testing.assert_array_equal(a, b)
        assert np.unique(a).size > 100


def test_sparse():
    t = init.sparse_(cygrad.empty(20, 6), sparsity=0.3, std=0.5)
    zeros_per_column = (t.numpy() == 0).sum(0)
    np.testing.assert_array_equal(zeros_per_column, [math.ceil(0.3 * 20)] * 6)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        init.sparse_(cygrad.empty(4, 2), 0.5)
