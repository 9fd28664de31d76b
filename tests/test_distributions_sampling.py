"""Sampling of ``cygrad.distributions``: PyTorch's numbers for the same seed where
PyTorch's sampler is built on draws cygrad's generator reproduces, sample moments
of the others within a few standard errors, and reparameterised gradients
(``rsample``) against finite differences and the implicit-gradient formula.
"""
import math

import numpy as np
import pytest

import cygrad
import cygrad.distributions as cd


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the reference")


def _t(lib):
    return lambda v: lib.tensor(v, dtype=lib.float64)


# Distributions whose samplers give PyTorch's numbers for the same seed.
SEEDED = {
    "Normal": lambda D, T: D.Normal(T([0.0, 1.5]), T([1.0, 2.0])),
    "Uniform": lambda D, T: D.Uniform(T([0.0, -1.0]), T([1.0, 3.0])),
    "Exponential": lambda D, T: D.Exponential(T([0.5, 2.0])),
    "Laplace": lambda D, T: D.Laplace(T([0.0, 1.0]), T([1.0, 0.5])),
    "Cauchy": lambda D, T: D.Cauchy(T([0.0, 1.0]), T([1.0, 0.5])),
    "Gumbel": lambda D, T: D.Gumbel(T([0.0, 1.0]), T([1.0, 0.5])),
    "LogNormal": lambda D, T: D.LogNormal(T([0.0, 0.5]), T([1.0, 0.3])),
    "HalfNormal": lambda D, T: D.HalfNormal(T([1.0, 2.5])),
    "HalfCauchy": lambda D, T: D.HalfCauchy(T([1.0, 2.5])),
    "Pareto": lambda D, T: D.Pareto(T([1.0, 2.0]), T([3.0, 1.5])),
    "Weibull": lambda D, T: D.Weibull(T([1.0, 2.0]), T([0.7, 3.0])),
    "Bernoulli": lambda D, T: D.Bernoulli(probs=T([0.2, 0.7])),
    "Geometric": lambda D, T: D.Geometric(probs=T([0.3, 0.8])),
    "Categorical": lambda D, T: D.Categorical(probs=T([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])),
    "OneHotCategorical": lambda D, T: D.OneHotCategorical(logits=T([0.1, 0.2, -0.7])),
    "Multinomial": lambda D, T: D.Multinomial(7, probs=T([0.2, 0.3, 0.5])),
    "Poisson": lambda D, T: D.Poisson(T([0.5, 4.0, 30.0])),
    "MultivariateNormal": lambda D, T: D.MultivariateNormal(
        T([0.0, 1.0, -1.0]), covariance_matrix=T([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2],
                                                   [0.1, 0.2, 1.5]])),
    "Independent": lambda D, T: D.Independent(D.Normal(T([[0.0, 1.0]]), T([1.0, 2.0])), 1),
    "Normal_float32": lambda D, T: D.Normal(0.0, 1.0),
    "LowRankMultivariateNormal": lambda D, T: D.LowRankMultivariateNormal(
        T([0.0, 1.0, -1.0]), T([[1.0, 0.5], [0.2, -0.3], [0.0, 1.0]]), T([1.0, 0.5, 2.0])),
    "ContinuousBernoulli": lambda D, T: D.ContinuousBernoulli(probs=T([0.2, 0.4995, 0.9])),
    "GeneralizedPareto": lambda D, T: D.GeneralizedPareto(
        T([0.0, 1.0, -1.0]), T([1.0, 2.0, 0.5]), T([0.3, 0.0, -0.4])),
    "Kumaraswamy": lambda D, T: D.Kumaraswamy(T([0.7, 2.0]), T([1.5, 3.0])),
    "LogisticNormal": lambda D, T: D.LogisticNormal(T([0.0, 1.0, -0.5]), T([1.0, 0.5, 2.0])),
    "MixtureSameFamily": lambda D, T: D.MixtureSameFamily(
        D.Categorical(probs=T([0.3, 0.7])), D.Normal(T([-1.0, 2.0]), T([1.0, 0.5]))),
    "RelaxedBernoulli": lambda D, T: D.RelaxedBernoulli(T(0.7), probs=T([0.3, 0.8])),
    "RelaxedOneHotCategorical": lambda D, T: D.RelaxedOneHotCategorical(
        T(0.7), logits=T([[0.0, 1.0, -1.0], [0.5, 0.5, 0.0]])),
}


@pytest.mark.parametrize("case", sorted(SEEDED))
@pytest.mark.parametrize("shape", [(), (3, 7)], ids=str)
def test_same_seed_same_samples_as_torch(case, shape):
    torch = _torch()
    ours_d = SEEDED[case](cd, _t(cygrad))
    ref_d = SEEDED[case](torch.distributions, _t(torch))
    cygrad.manual_seed(7)
    torch.manual_seed(7)
    ours = [ours_d.sample(shape), ours_d.sample(shape)]
    ref = [ref_d.sample(shape), ref_d.sample(shape)]
    if ours_d.has_rsample:
        ours.append(ours_d.rsample(shape))
        ref.append(ref_d.rsample(shape))
    for a, b in zip(ours, ref):
        assert tuple(a.shape) == tuple(b.shape)
        assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]
        # the same draws; transforms may round differently in the last bits
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12, atol=1e-14)


def test_von_mises_same_seed_as_torch():
    """Best and Fisher's rejection sampler draws as PyTorch's: the same samples up to
    the last bits of cos/acos (which PyTorch vectorises differently)."""
    torch = _torch()
    ours_d = cd.VonMises(_t(cygrad)([0.5, -2.0, 3.0]), _t(cygrad)([0.001, 2.0, 50.0]))
    ref_d = torch.distributions.VonMises(_t(torch)([0.5, -2.0, 3.0]), _t(torch)([0.001, 2.0, 50.0]))
    cygrad.manual_seed(3)
    torch.manual_seed(3)
    for shape in ((), (40,)):
        np.testing.assert_allclose(ours_d.sample(shape).numpy(), ref_d.sample(shape).numpy(),
                                   rtol=0, atol=1e-7)


# ----------------------------------------------------------------- moments

def _check_moments(samples, mean, var, name):
    """Sample mean within 5 standard errors of ``mean``; sample variance within
    5 standard errors (from the sample's fourth central moment) of ``var``."""
    x = samples.double().numpy()
    n = x.shape[0]
    m = x.mean(0)
    assert np.all(np.abs(m - mean) <= 5 * np.sqrt(var / n)), (name, m, mean)
    c = x - x.mean(0)
    v = (c ** 2).mean(0)
    se_v = np.sqrt(((c ** 4).mean(0) - v ** 2) / n)
    assert np.all(np.abs(v - var) <= 5 * se_v + 1e-12), (name, v, var)


def test_sample_moments_of_samplers_without_torch_parity():
    cygrad.manual_seed(0)
    f64 = lambda v: cygrad.tensor(v, dtype=cygrad.float64)
    n = 10000
    cases = [
        cd.Gamma(f64([0.2, 1.0, 4.5, 50.0]), f64([1.0, 2.0, 0.5, 3.0])),
        cd.Beta(f64([0.5, 2.0, 10.0]), f64([0.5, 5.0, 1.0])),
        cd.Chi2(f64([1.0, 7.0])),
        cd.StudentT(f64([5.0, 9.0]), f64([1.0, -1.0]), f64([2.0, 0.5])),
        cd.Binomial(f64([10.0, 40.0]), probs=f64([0.3, 0.9])),
        cd.Dirichlet(f64([0.3, 1.0, 4.0])),
        cd.InverseGamma(f64([5.0, 9.0]), f64([1.0, 2.0])),
        cd.FisherSnedecor(f64([4.0, 10.0]), f64([12.0, 15.0])),
        cd.NegativeBinomial(f64([3.0, 20.0]), probs=f64([0.3, 0.6])),
    ]
    cases.append(cd.Wishart(f64([4.0, 7.5]), scale_tril=f64([[1.0, 0.0], [0.5, 2.0]])))
    for d in cases:
        _check_moments(d.sample((n,)), d.mean.numpy(), d.variance.numpy(), type(d).__name__)


def test_lkj_cholesky_samples():
    """Onion-method samples are Cholesky factors of correlation matrices whose
    off-diagonal correlations have the LKJ marginal: Beta(eta - 1 + d/2, same) on
    [-1, 1], so variance 1 / (2 eta + d - 1)."""
    cygrad.manual_seed(5)
    d, eta, n = 3, 2.0, 8000
    L = cd.LKJCholesky(d, cygrad.tensor(eta, dtype=cygrad.float64)).sample((n,))
    assert bool(cd.constraints.corr_cholesky.check(L).all())
    corr = (L @ L.mT).numpy()
    r = corr[:, 1, 0]
    _check_moments(cygrad.tensor(r), 0.0, 1 / (2 * eta + d - 1), "LKJ corr")


def test_wishart_redraws_singular_samples():
    cygrad.manual_seed(6)
    with pytest.warns(UserWarning, match="Low df values"):
        d = cd.Wishart(cygrad.tensor(2.05, dtype=cygrad.float64), cygrad.eye(3, dtype=cygrad.float64))
    s = d.rsample((200,), max_try_correction=50)
    assert bool(cd.constraints.positive_definite.check(s).all())


def test_gamma_samples_follow_the_gamma_cdf():
    st = pytest.importorskip("scipy.stats", reason="SciPy is the reference")
    cygrad.manual_seed(1)
    for alpha in (0.05, 0.7, 1.0, 3.0, 400.0):
        x = cd.Gamma(cygrad.tensor(alpha, dtype=cygrad.float64), 1.0).sample((4000,)).numpy()
        assert st.kstest(x, st.gamma(alpha).cdf).pvalue > 1e-3, alpha


def test_gamma_float32_samples_stay_positive_and_finite():
    cygrad.manual_seed(2)
    x = cd.Gamma(cygrad.tensor([1e-3, 1e3]), cygrad.tensor([1.0, 1.0])).sample((1000,))
    assert x.dtype == cygrad.float32
    assert bool((x > 0).all()) and bool(cygrad.isfinite(x).all())


# ----------------------------------------------------------------- rsample gradients

def _reseeded(fn, seed=5):
    cygrad.manual_seed(seed)
    return fn()


@pytest.mark.parametrize("name,build", [
    ("Normal", lambda p: cd.Normal(p[0], p[1])),
    ("Laplace", lambda p: cd.Laplace(p[0], p[1])),
    ("Cauchy", lambda p: cd.Cauchy(p[0], p[1])),
    ("Gumbel", lambda p: cd.Gumbel(p[0], p[1])),
    ("LogNormal", lambda p: cd.LogNormal(p[0], p[1])),
    ("Uniform", lambda p: cd.Uniform(p[0], p[0] + p[1])),
    ("Exponential", lambda p: cd.Exponential(p[0] + p[1])),
    ("Weibull", lambda p: cd.Weibull(p[1], p[0] + 1.0)),
    ("Pareto", lambda p: cd.Pareto(p[1], p[0] + 2.0)),
    ("MultivariateNormal", lambda p: cd.MultivariateNormal(
        p[0].expand(2), scale_tril=cygrad.stack([cygrad.stack([p[1], p[0] * 0]),
                                                 cygrad.stack([p[0], p[1] * 2])]))),
])
def test_rsample_gradients_match_finite_differences(name, build):
    """With the noise fixed by the seed, ``rsample`` is a smooth function of the
    parameters: its gradient must equal central differences."""
    params = [0.3, 1.4]
    grads = []
    for i in range(2):
        p = [cygrad.tensor(v, dtype=cygrad.float64, requires_grad=(j == i))
             for j, v in enumerate(params)]
        x = _reseeded(lambda: build(p).rsample((6,)))
        assert x.requires_grad, name
        weights = cygrad.linspace(0.5, 1.5, x.numel(), dtype=cygrad.float64).reshape(x.shape)
        (g,) = cygrad.autograd.grad((x * weights).sum(), [p[i]])
        h = 1e-6
        hi = [cygrad.tensor(v + (h if j == i else 0.0), dtype=cygrad.float64)
              for j, v in enumerate(params)]
        lo = [cygrad.tensor(v - (h if j == i else 0.0), dtype=cygrad.float64)
              for j, v in enumerate(params)]
        fd = ((_reseeded(lambda: build(hi).rsample((6,))) * weights).sum()
              - (_reseeded(lambda: build(lo).rsample((6,))) * weights).sum()) / (2 * h)
        grads.append((g.item(), fd.item()))
    for g, fd in grads:
        assert abs(g - fd) <= 1e-6 * max(1.0, abs(fd)), (name, grads)


def test_gamma_rsample_gradient_is_the_implicit_one():
    """d x / d alpha of a Gamma(alpha, 1) sample is -(dF/d alpha) / f at that sample
    (F the CDF, f the density), computed here with SciPy by central differences."""
    sp = pytest.importorskip("scipy.special", reason="SciPy is the reference")
    st = pytest.importorskip("scipy.stats", reason="SciPy is the reference")
    cygrad.manual_seed(3)
    for a in (0.2, 1.0, 3.5, 80.0):
        alpha = cygrad.full((300,), a, dtype=cygrad.float64, requires_grad=True)
        x = cd.Gamma(alpha, 1.0).rsample()
        x.sum().backward()
        xs = x.detach().numpy()
        h = 1e-5 * a
        ref = -(sp.gammainc(a + h, xs) - sp.gammainc(a - h, xs)) / (2 * h) / st.gamma(a).pdf(xs)
        np.testing.assert_allclose(alpha.grad.numpy(), ref, rtol=1e-5, atol=1e-9)
    # the rate enters as a plain scale: x = g / rate
    rate = cygrad.tensor([2.0], dtype=cygrad.float64, requires_grad=True)
    x = _reseeded(lambda: cd.Gamma(cygrad.tensor([3.0], dtype=cygrad.float64), rate).rsample())
    x.sum().backward()
    assert abs(rate.grad.item() + x.item() / 2.0) < 1e-12


def _per_sample_gradient_mean(make, n, a):
    """Mean of per-sample pathwise gradients d x_i / d a (a batch of n copies of a)."""
    alpha = cygrad.full((n,), a, dtype=cygrad.float64, requires_grad=True)
    make(alpha).rsample().sum().backward()
    g = alpha.grad.numpy()
    return g.mean(), g.std() / math.sqrt(n)


def test_beta_and_dirichlet_rsample_gradients_are_unbiased():
    """E[d x / d a] = d E[x] / d a: the mean of many pathwise gradients must be within
    5 standard errors of the derivative of the closed-form mean."""
    cygrad.manual_seed(4)
    n = 4000
    # Beta(a, 2): E[x] = a / (a + 2), derivative 2 / (a + 2)^2
    for a in (0.5, 3.0):
        m, se = _per_sample_gradient_mean(lambda al: cd.Beta(al, cygrad.full_like(al, 2.0)), n, a)
        assert abs(m - 2 / (a + 2) ** 2) <= 5 * se, (a, m, se)
    # Dirichlet([a, 1, 2]): E[x_0] = a / (a + 3), derivative 3 / (a + 3)^2
    a = 1.5
    alpha = cygrad.full((n, 1), a, dtype=cygrad.float64, requires_grad=True)
    rest = cygrad.tensor([[1.0, 2.0]], dtype=cygrad.float64).expand(n, 2)
    x = cd.Dirichlet(cygrad.cat([alpha, rest], -1)).rsample()
    x[:, 0].sum().backward()
    g = alpha.grad.numpy()
    assert abs(g.mean() - 3 / (a + 3) ** 2) <= 5 * g.std() / math.sqrt(n)


def test_sample_has_no_gradient_and_rsample_refused_where_torch_has_none():
    loc = cygrad.tensor([0.0], requires_grad=True)
    assert not cd.Normal(loc, 1.0).sample().requires_grad
    assert cd.Normal(loc, 1.0).rsample().requires_grad
    for d in (cd.Bernoulli(0.5), cd.Poisson(1.0), cd.Categorical(cygrad.ones(3))):
        assert not d.has_rsample
        with pytest.raises(NotImplementedError):
            d.rsample()


def test_straight_through_one_hot_passes_gradients():
    torch = _torch()
    grads = []
    for lib, dists in ((cygrad, cd), (torch, torch.distributions)):
        p = lib.tensor([0.2, 0.8], dtype=lib.float64, requires_grad=True)
        lib.manual_seed(0)
        x = dists.OneHotCategoricalStraightThrough(probs=p).rsample((3,))
        assert sorted(x.detach().sum(-1).tolist()) == [1.0, 1.0, 1.0]
        (x * lib.tensor([1.0, 2.0], dtype=lib.float64)).sum().backward()
        grads.append(p.grad.tolist())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)
