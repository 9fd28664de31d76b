"""``cygrad.distributions`` against PyTorch (``torch.distributions``) and SciPy
(``scipy.stats``): shapes, log_prob, cdf/icdf, entropy and moments of every
distribution on the same parameters and values, argument validation with PyTorch's
exception types and messages, and ``kl_divergence`` of every registered pair.
PyTorch is the reference of most tests (they skip without it); SciPy is an
independent second reference for the common distributions.
"""
import math

import numpy as np
import pytest

import cygrad
import cygrad.distributions as cd


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the reference")


def _lib(name):
    if name == "torch":
        torch = _torch()
        return torch, torch.distributions
    return cygrad, cd


def _t(lib):
    return lambda v: lib.tensor(v, dtype=lib.float64)


# Each case: id -> f(lib, dist module, T) building the same distribution in either
# library (T makes a float64 tensor).
CASES = {
    "Normal": lambda L, D, T: D.Normal(T([0.0, 1.5]), T([1.0, 2.0])),
    "Normal_scalar": lambda L, D, T: D.Normal(0.5, 2.0),
    "Uniform": lambda L, D, T: D.Uniform(T([0.0, -1.0]), T([1.0, 3.0])),
    "Exponential": lambda L, D, T: D.Exponential(T([0.5, 2.0])),
    "Laplace": lambda L, D, T: D.Laplace(T([0.0, 1.0]), T([1.0, 0.5])),
    "Cauchy": lambda L, D, T: D.Cauchy(T([0.0, 1.0]), T([1.0, 0.5])),
    "Gumbel": lambda L, D, T: D.Gumbel(T([0.0, 1.0]), T([1.0, 0.5])),
    "Bernoulli": lambda L, D, T: D.Bernoulli(probs=T([0.2, 0.7])),
    "Bernoulli_logits": lambda L, D, T: D.Bernoulli(logits=T([-1.0, 2.0])),
    "Categorical": lambda L, D, T: D.Categorical(probs=T([[0.1, 0.2, 0.7], [0.3, 0.3, 0.4]])),
    "Categorical_logits": lambda L, D, T: D.Categorical(logits=T([0.1, -2.0, 1.0, 0.5])),
    "OneHotCategorical": lambda L, D, T: D.OneHotCategorical(probs=T([[0.1, 0.2, 0.7],
                                                                        [0.3, 0.3, 0.4]])),
    "Gamma": lambda L, D, T: D.Gamma(T([0.5, 3.0]), T([1.0, 2.0])),
    "Beta": lambda L, D, T: D.Beta(T([0.5, 3.0]), T([2.0, 1.5])),
    "Dirichlet": lambda L, D, T: D.Dirichlet(T([[0.5, 1.0, 2.0], [3.0, 1.0, 1.5]])),
    "Chi2": lambda L, D, T: D.Chi2(T([1.0, 4.5])),
    "StudentT": lambda L, D, T: D.StudentT(T([1.5, 5.0]), T([0.0, 1.0]), T([1.0, 2.0])),
    "Poisson": lambda L, D, T: D.Poisson(T([0.5, 4.0])),
    "Binomial": lambda L, D, T: D.Binomial(T([5.0, 5.0]), probs=T([0.3, 0.8])),
    "Geometric": lambda L, D, T: D.Geometric(probs=T([0.3, 0.8])),
    "Multinomial": lambda L, D, T: D.Multinomial(6, probs=T([[0.2, 0.3, 0.5], [0.6, 0.2, 0.2]])),
    "LogNormal": lambda L, D, T: D.LogNormal(T([0.0, 0.5]), T([1.0, 0.3])),
    "HalfNormal": lambda L, D, T: D.HalfNormal(T([1.0, 2.5])),
    "HalfCauchy": lambda L, D, T: D.HalfCauchy(T([1.0, 2.5])),
    "Pareto": lambda L, D, T: D.Pareto(T([1.0, 2.0]), T([3.0, 1.5])),
    "Weibull": lambda L, D, T: D.Weibull(T([1.0, 2.0]), T([0.7, 3.0])),
    "MultivariateNormal_cov": lambda L, D, T: D.MultivariateNormal(
        T([0.0, 1.0, -1.0]), covariance_matrix=T([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2],
                                                   [0.1, 0.2, 1.5]])),
    "MultivariateNormal_tril_batch": lambda L, D, T: D.MultivariateNormal(
        T([[0.0, 1.0], [1.0, 2.0]]), scale_tril=T([[1.0, 0.0], [0.5, 2.0]])),
    "MultivariateNormal_precision": lambda L, D, T: D.MultivariateNormal(
        T([0.0, 1.0]), precision_matrix=T([[2.0, 0.3], [0.3, 1.0]])),
    "Independent": lambda L, D, T: D.Independent(D.Normal(T([[0.0, 1.0], [2.0, 3.0]]),
                                                          T([1.0, 2.0])), 1),
    "TransformedDistribution": lambda L, D, T: D.TransformedDistribution(
        D.Normal(T([0.0, 1.0]), T([1.0, 0.5])),
        [D.transforms.AffineTransform(T([1.0, -1.0]), T([2.0, 3.0])), D.transforms.ExpTransform()]),
    "InverseGamma": lambda L, D, T: D.InverseGamma(T([1.5, 3.0]), T([1.0, 2.0])),
    "Kumaraswamy": lambda L, D, T: D.Kumaraswamy(T([0.7, 2.0]), T([1.5, 3.0])),
    "FisherSnedecor": lambda L, D, T: D.FisherSnedecor(T([1.5, 5.0]), T([3.0, 9.0])),
    "NegativeBinomial": lambda L, D, T: D.NegativeBinomial(T([3.0, 0.5]), probs=T([0.3, 0.8])),
    "NegativeBinomial_logits": lambda L, D, T: D.NegativeBinomial(T([3.0, 2.0]),
                                                                  logits=T([-1.0, 0.5])),
    "LogisticNormal": lambda L, D, T: D.LogisticNormal(T([0.0, 1.0, -0.5]), T([1.0, 0.5, 2.0])),
    "MixtureSameFamily": lambda L, D, T: D.MixtureSameFamily(
        D.Categorical(probs=T([0.3, 0.7])), D.Normal(T([-1.0, 2.0]), T([1.0, 0.5]))),
    "MixtureSameFamily_batched_mvn": lambda L, D, T: D.MixtureSameFamily(
        D.Categorical(logits=T([[0.0, 1.0], [1.0, 0.0]])),
        D.Independent(D.Normal(T([[[0.0, 1.0], [1.0, 2.0]], [[0.5, 0.0], [-1.0, 1.0]]]),
                               T([1.0, 2.0])), 1)),
    "RelaxedBernoulli": lambda L, D, T: D.RelaxedBernoulli(T(0.7), probs=T([0.3, 0.8])),
    "RelaxedOneHotCategorical": lambda L, D, T: D.RelaxedOneHotCategorical(
        T(0.7), logits=T([[0.0, 1.0, -1.0], [0.5, 0.5, 0.0]])),
    "LowRankMultivariateNormal": lambda L, D, T: D.LowRankMultivariateNormal(
        T([[0.0, 1.0, -1.0], [1.0, 0.0, 2.0]]), T([[1.0, 0.5], [0.2, -0.3], [0.0, 1.0]]),
        T([1.0, 0.5, 2.0])),
    "ContinuousBernoulli": lambda L, D, T: D.ContinuousBernoulli(probs=T([0.2, 0.4995, 0.9])),
    "ContinuousBernoulli_logits": lambda L, D, T: D.ContinuousBernoulli(logits=T([-1.0, 0.001])),
    "LKJCholesky": lambda L, D, T: D.LKJCholesky(3, T([0.5, 1.0, 4.0])),
    "LKJCholesky_dim2": lambda L, D, T: D.LKJCholesky(2, T(2.0)),
    "Wishart": lambda L, D, T: D.Wishart(T([4.0, 6.5]), covariance_matrix=T(
        [[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])),
    "Wishart_precision": lambda L, D, T: D.Wishart(T(3.5), precision_matrix=T(
        [[2.0, 0.3], [0.3, 1.0]])),
    "TransformedDistribution_sigmoid": lambda L, D, T: D.TransformedDistribution(
        D.Uniform(T([0.0]), T([1.0])), [D.transforms.SigmoidTransform().inv,
                                        D.transforms.AffineTransform(0.0, -1.0)]),
}


def _both(case):
    torch = _torch()
    ours = CASES[case](cygrad, cd, _t(cygrad))
    ref = CASES[case](torch, torch.distributions, _t(torch))
    return ours, ref


def _np(x):
    return x.detach().numpy() if hasattr(x, "detach") else np.asarray(x)


def _close(a, b, rtol=1e-7, atol=1e-9):
    np.testing.assert_allclose(_np(a), _np(b), rtol=rtol, atol=atol, equal_nan=True)


def _values(ref, torch):
    """Points in the support: PyTorch samples (a fixed seed), as both tensors."""
    torch.manual_seed(123)
    v = ref.sample((3,)).double()
    return cygrad.tensor(v.numpy()), v


def _try(fn):
    try:
        return fn()
    except NotImplementedError:
        return NotImplementedError


@pytest.mark.parametrize("case", sorted(CASES))
def test_shapes_and_values_match_torch(case):
    torch = _torch()
    ours, ref = _both(case)
    assert tuple(ours.batch_shape) == tuple(ref.batch_shape)
    assert tuple(ours.event_shape) == tuple(ref.event_shape)
    assert ours.has_rsample == ref.has_rsample
    assert tuple(ours.sample((2, 3)).shape) == tuple(ref.sample((2, 3)).shape)
    assert tuple(ours.sample().shape) == tuple(ref.sample().shape)
    assert bool(ours.support.check(ours.sample((4,))).all())
    v_ours, v_ref = _values(ref, torch)
    _close(ours.log_prob(v_ours), ref.log_prob(v_ref))
    for name in ("mean", "variance", "stddev", "mode"):
        r = _try(lambda: getattr(ref, name))
        o = _try(lambda: getattr(ours, name))
        if r is NotImplementedError:
            continue
        _close(o, r)
    for name in ("entropy",):
        r = _try(lambda: getattr(ref, name)())
        if r is not NotImplementedError:
            _close(getattr(ours, name)(), r)
    r = _try(lambda: ref.cdf(v_ref))
    if r is not NotImplementedError:
        _close(ours.cdf(v_ours), r)
        q = torch.tensor(np.linspace(0.05, 0.95, 3)).reshape((3,) + (1,) * len(ref.batch_shape))
        q = q.expand((3,) + tuple(ref.batch_shape)).contiguous()
        r = _try(lambda: ref.icdf(q))
        if r is NotImplementedError:
            with pytest.raises(NotImplementedError):
                ours.icdf(cygrad.tensor(q.numpy()))
        else:
            _close(ours.icdf(cygrad.tensor(q.numpy())), r, rtol=1e-7)


@pytest.mark.parametrize("case", ["Normal", "Gamma", "Dirichlet", "MultivariateNormal_cov",
                                  "Bernoulli", "Categorical", "TransformedDistribution"])
def test_expand(case):
    torch = _torch()
    ours, ref = _both(case)
    new_batch = (4,) + tuple(ref.batch_shape)
    e_ours, e_ref = ours.expand(new_batch), ref.expand(new_batch)
    assert tuple(e_ours.batch_shape) == tuple(e_ref.batch_shape) == new_batch
    assert tuple(e_ours.sample((2,)).shape) == tuple(e_ref.sample((2,)).shape)
    v_ours, v_ref = _values(e_ref, torch)
    _close(e_ours.log_prob(v_ours), e_ref.log_prob(v_ref))


def test_enumerate_support():
    torch = _torch()
    for case in ("Bernoulli", "Categorical", "OneHotCategorical", "Binomial"):
        ours, ref = _both(case)
        for expand in (True, False):
            _close(ours.enumerate_support(expand), ref.enumerate_support(expand))


# ------------------------------------------------------------------ against SciPy

def _scipy_cases():
    st = pytest.importorskip("scipy.stats", reason="SciPy is the reference")
    return st


def test_log_prob_entropy_moments_against_scipy():
    st = _scipy_cases()
    f64 = lambda v: cygrad.tensor(v, dtype=cygrad.float64)
    x = np.array([0.3, 1.7, 4.2])
    k = np.array([0.0, 2.0, 5.0])
    u = np.array([0.05, 0.5, 0.93])
    cases = [
        (cd.Normal(f64(0.5), f64(2.0)), st.norm(0.5, 2.0), x),
        (cd.Gamma(f64(2.5), f64(1.5)), st.gamma(2.5, scale=1 / 1.5), x),
        (cd.Gamma(f64(0.3), f64(2.0)), st.gamma(0.3, scale=0.5), x),
        (cd.Beta(f64(0.7), f64(2.5)), st.beta(0.7, 2.5), u),
        (cd.Exponential(f64(1.5)), st.expon(scale=1 / 1.5), x),
        (cd.Laplace(f64(1.0), f64(0.5)), st.laplace(1.0, 0.5), x),
        (cd.Cauchy(f64(1.0), f64(0.5)), st.cauchy(1.0, 0.5), x),
        (cd.StudentT(f64(3.5), f64(1.0), f64(2.0)), st.t(3.5, 1.0, 2.0), x),
        (cd.Chi2(f64(3.0)), st.chi2(3.0), x),
        (cd.LogNormal(f64(0.2), f64(0.7)), st.lognorm(0.7, scale=math.exp(0.2)), x),
        (cd.HalfNormal(f64(1.5)), st.halfnorm(scale=1.5), x),
        (cd.HalfCauchy(f64(1.5)), st.halfcauchy(scale=1.5), x),
        (cd.Gumbel(f64(1.0), f64(2.0)), st.gumbel_r(1.0, 2.0), x),
        (cd.Pareto(f64(0.2), f64(3.0)), st.pareto(3.0, scale=0.2), x),
        (cd.Weibull(f64(2.0), f64(1.5)), st.weibull_min(1.5, scale=2.0), x),
        (cd.Uniform(f64(0.0), f64(5.0)), st.uniform(0.0, 5.0), x),
        (cd.Poisson(f64(3.5)), st.poisson(3.5), k),
        (cd.Binomial(f64(7.0), probs=f64(0.3)), st.binom(7, 0.3), k),
        (cd.Geometric(probs=f64(0.3)), st.geom(0.3, loc=-1), k),
    ]
    for ours, ref, pts in cases:
        name = type(ours).__name__
        if name in ("StudentT", "Poisson", "Binomial", "Geometric", "Beta"):   # no cdf in PyTorch
            with pytest.raises(NotImplementedError):
                ours.cdf(f64(pts))
        else:
            np.testing.assert_allclose(ours.cdf(f64(pts)).numpy(), ref.cdf(pts), rtol=1e-9,
                                       atol=1e-12, err_msg=name)
        logp = ref.logpdf(pts) if hasattr(ref, "logpdf") else ref.logpmf(pts)
        np.testing.assert_allclose(ours.log_prob(f64(pts)).numpy(), logp, rtol=1e-9,
                                   atol=1e-12, err_msg=name)
        mean, var = ref.stats("mv")
        if np.isfinite(mean):
            np.testing.assert_allclose(ours.mean.numpy(), mean, rtol=1e-9, err_msg=name)
        if np.isfinite(var):
            np.testing.assert_allclose(ours.variance.numpy(), var, rtol=1e-9, err_msg=name)
        if name not in ("Poisson", "Geometric"):        # PyTorch has no entropy there
            np.testing.assert_allclose(ours.entropy().numpy(), ref.entropy(), rtol=1e-8,
                                       err_msg=name)


def test_generalized_pareto_against_scipy():
    """(PyTorch's own GeneralizedPareto.log_prob fails on float64 parameters: it
    compares them with a float32 zero, so SciPy is the reference here.)"""
    st = _scipy_cases()
    f64 = lambda v: cygrad.tensor(v, dtype=cygrad.float64)
    for loc, scale, xi in ((0.0, 1.0, 0.3), (1.0, 2.0, 0.0), (-1.0, 0.5, -0.4)):
        d = cd.GeneralizedPareto(f64(loc), f64(scale), f64(xi))
        ref = st.genpareto(xi, loc=loc, scale=scale)
        pts = ref.ppf([0.1, 0.5, 0.9])
        np.testing.assert_allclose(d.log_prob(f64(pts)).numpy(), ref.logpdf(pts), rtol=1e-10)
        np.testing.assert_allclose(d.cdf(f64(pts)).numpy(), ref.cdf(pts), rtol=1e-10)
        np.testing.assert_allclose(d.icdf(f64([0.1, 0.5, 0.9])).numpy(), pts, rtol=1e-10)
        np.testing.assert_allclose(d.mean.item(), ref.mean(), rtol=1e-10)
        np.testing.assert_allclose(d.variance.item(), ref.var(), rtol=1e-10)
        np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-10)


def test_von_mises_against_scipy():
    """(PyTorch evaluates log I0 with a polynomial fit good to about 1e-7; cygrad sums
    the series, so SciPy's exact Bessel functions are the reference.)"""
    st = _scipy_cases()
    sp = pytest.importorskip("scipy.special", reason="SciPy is the reference")
    f64 = lambda v: cygrad.tensor(v, dtype=cygrad.float64)
    for loc, kappa in ((0.5, 0.01), (-2.0, 2.0), (3.0, 19.9), (1.0, 20.1), (0.0, 700.0)):
        d = cd.VonMises(f64(loc), f64(kappa))
        pts = np.array([-3.0, 0.2, 1.0, 2.5])
        np.testing.assert_allclose(d.log_prob(f64(pts)).numpy(),
                                   st.vonmises(kappa, loc=loc).logpdf(pts), rtol=1e-12)
        # (1 - I1/I0 cancels for large kappa: relative 1e-10 is what float64 leaves)
        np.testing.assert_allclose(d.variance.item(), 1 - sp.ive(1, kappa) / sp.ive(0, kappa),
                                   rtol=1e-10)
    torch = _torch()
    ours = cd.VonMises(f64([0.5, 3.0]), f64([0.3, 40.0]))
    ref = torch.distributions.VonMises(torch.tensor([0.5, 3.0], dtype=torch.float64),
                                       torch.tensor([0.3, 40.0], dtype=torch.float64))
    v = [[0.1, 2.0], [-1.0, 3.1]]
    _close(ours.log_prob(f64(v)), ref.log_prob(torch.tensor(v, dtype=torch.float64)), rtol=1e-6)
    assert cygrad.autograd.gradcheck(lambda k: cd.VonMises(f64(0.3), k).log_prob(f64(1.0)),
                                     [f64([0.5, 19.0, 25.0]).requires_grad_()])


def test_multivariate_against_scipy():
    st = _scipy_cases()
    f64 = lambda v: cygrad.tensor(v, dtype=cygrad.float64)
    cov = np.array([[2.0, 0.5, 0.1], [0.5, 1.0, 0.2], [0.1, 0.2, 1.5]])
    mean = np.array([0.0, 1.0, -1.0])
    pts = np.array([[0.1, 0.2, 0.3], [1.0, -1.0, 2.0]])
    for kw in ({"covariance_matrix": f64(cov)}, {"precision_matrix": f64(np.linalg.inv(cov))},
               {"scale_tril": f64(np.linalg.cholesky(cov))}):
        d = cd.MultivariateNormal(f64(mean), **kw)
        ref = st.multivariate_normal(mean, cov)
        np.testing.assert_allclose(d.log_prob(f64(pts)).numpy(), ref.logpdf(pts), rtol=1e-10)
        np.testing.assert_allclose(d.entropy().numpy(), ref.entropy(), rtol=1e-10)
        np.testing.assert_allclose(d.covariance_matrix.numpy(), cov, rtol=1e-10, atol=1e-12)
        np.testing.assert_allclose(d.precision_matrix.numpy(), np.linalg.inv(cov), rtol=1e-10,
                                   atol=1e-12)
    d = cd.Wishart(f64(4.5), covariance_matrix=f64(cov))
    ref = st.wishart(4.5, cov)
    x = ref.rvs(random_state=0)
    np.testing.assert_allclose(d.log_prob(f64(x)).item(), ref.logpdf(x), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.mean.numpy(), ref.mean(), rtol=1e-10)
    alpha = np.array([0.5, 1.0, 2.5])
    d = cd.Dirichlet(f64(alpha))
    ref = st.dirichlet(alpha)
    simplex = np.array([0.2, 0.3, 0.5])
    np.testing.assert_allclose(d.log_prob(f64(simplex)).item(), ref.logpdf(simplex), rtol=1e-10)
    np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-10)
    np.testing.assert_allclose(d.variance.numpy(), ref.var(), rtol=1e-10)
    d = cd.Multinomial(6, probs=f64([0.2, 0.3, 0.5]))
    ref = st.multinomial(6, [0.2, 0.3, 0.5])
    np.testing.assert_allclose(d.log_prob(f64([1.0, 2.0, 3.0])).item(), ref.logpmf([1, 2, 3]),
                               rtol=1e-10)
    np.testing.assert_allclose(d.entropy().item(), ref.entropy(), rtol=1e-10)


# ------------------------------------------------------------------ validation

def _message(exc):
    return str(exc).replace("torch.", "cygrad.").split("\n")[0]


def _same_error(build):
    """Both libraries raise the same exception type with the same first line."""
    torch = _torch()
    with pytest.raises(Exception) as ref:
        build(torch, torch.distributions, _t(torch))
    with pytest.raises(type(ref.value)) as ours:
        build(cygrad, cd, _t(cygrad))
    assert _message(ours.value) == _message(ref.value)


@pytest.mark.parametrize("build", [
    lambda L, D, T: D.Normal(T([0.0, 1.0]), T([1.0, -1.0])),
    lambda L, D, T: D.Normal(T([0.0, float("nan")]), T([1.0, 1.0])),
    lambda L, D, T: D.Exponential(T([0.0])),
    lambda L, D, T: D.Gamma(T([1.0]), T([-2.0])),
    lambda L, D, T: D.Bernoulli(probs=T([1.5])),
    lambda L, D, T: D.Bernoulli(probs=T([0.5]), logits=T([0.0])),
    lambda L, D, T: D.Bernoulli(),
    lambda L, D, T: D.Categorical(probs=T([0.5, -0.5])),
    lambda L, D, T: D.Categorical(probs=T(0.5)),
    lambda L, D, T: D.Dirichlet(T([1.0, 0.0])),
    lambda L, D, T: D.Uniform(T([1.0]), T([0.0])),
    lambda L, D, T: D.Beta(T([1.0]), T([0.0])),
    lambda L, D, T: D.Poisson(T([-1.0])),
    lambda L, D, T: D.MultivariateNormal(T([0.0, 0.0])),
    lambda L, D, T: D.MultivariateNormal(T(0.0), T([[1.0]])),
    lambda L, D, T: D.MultivariateNormal(T([0.0, 0.0]), T([[1.0, 2.0], [2.0, 1.0]])),
    lambda L, D, T: D.MultivariateNormal(T([0.0, 0.0]), scale_tril=T([[1.0, 1.0], [0.0, 1.0]])),
    lambda L, D, T: D.Normal(0.0, 1.0).log_prob(1.0),
    lambda L, D, T: D.Normal(0.0, 1.0).log_prob(T([float("nan")])),
    lambda L, D, T: D.Exponential(T([1.0])).log_prob(T([-1.0])),
    lambda L, D, T: D.Bernoulli(probs=T([0.5])).log_prob(T([0.5])),
    lambda L, D, T: D.Categorical(probs=T([0.5, 0.5])).log_prob(T([2.0])),
    lambda L, D, T: D.Normal(T([0.0, 0.0]), 1.0).log_prob(T([0.0, 0.0, 0.0])),
    lambda L, D, T: D.MultivariateNormal(T([0.0, 0.0]), T([[1.0, 0.0], [0.0, 1.0]])).log_prob(
        T([0.0, 0.0, 0.0])),
    lambda L, D, T: D.Dirichlet(T([1.0, 1.0])).log_prob(T([0.5, 0.6])),
    lambda L, D, T: D.Independent(D.Normal(T([0.0]), T([1.0])), 2),
    lambda L, D, T: D.Binomial(T([2.0]), probs=T([0.5])).log_prob(T([3.0])),
], ids=lambda f: "")
def test_invalid_arguments_raise_like_torch(build):
    _same_error(build)


def test_validation_can_be_turned_off():
    torch = _torch()
    try:
        cd.Distribution.set_default_validate_args(False)
        d = cd.Normal(cygrad.tensor([0.0]), cygrad.tensor([-1.0]))   # no error now
        assert d.scale.item() == -1.0
        assert cd.Exponential(cygrad.tensor([1.0])).log_prob(cygrad.tensor([-1.0])).item() == -0.0 - 1.0 * -1.0
    finally:
        cd.Distribution.set_default_validate_args(True)
    with pytest.raises(ValueError):
        cd.Normal(cygrad.tensor([0.0]), cygrad.tensor([-1.0]))
    cd.Normal(cygrad.tensor([0.0]), cygrad.tensor([-1.0]), validate_args=False)
    with pytest.raises(ValueError):
        cd.Distribution.set_default_validate_args(None)
    assert repr(cd.Normal(0.0, 1.0)) == repr(torch.distributions.Normal(0.0, 1.0))


def test_sample_n_warns_and_samples():
    d = cd.Normal(cygrad.zeros(2), 1.0)
    with pytest.warns(UserWarning, match="sample_n will be deprecated"):
        assert tuple(d.sample_n(4).shape) == (4, 2)


# ------------------------------------------------------------------ kl_divergence

KL_PAIRS = [
    ("Normal", "Normal_b"), ("Bernoulli", "Bernoulli_b"), ("Categorical", "Categorical_b"),
    ("OneHotCategorical", "OneHotCategorical_b"), ("Beta", "Beta_b"), ("Gamma", "Gamma_b"),
    ("Dirichlet", "Dirichlet_b"), ("Exponential", "Exponential_b"), ("Laplace", "Laplace_b"),
    ("Uniform", "Uniform_b"), ("Poisson", "Poisson_b"), ("Binomial", "Binomial_b"),
    ("MultivariateNormal", "MultivariateNormal_b"), ("Independent", "Independent_b"),
    ("LogNormal", "LogNormal_b"), ("Cauchy", "Cauchy_b"), ("Geometric", "Geometric_b"),
    ("HalfNormal", "HalfNormal_b"), ("Gumbel", "Gumbel_b"), ("Pareto", "Pareto_b"),
    ("Chi2", "Chi2_b"), ("Uniform", "Normal"), ("Uniform", "Exponential"), ("Uniform", "Gamma"),
    ("Exponential", "Gamma"), ("Exponential", "Normal"), ("Normal", "Laplace"),
    ("Laplace", "Normal"), ("Beta", "Uniform01"), ("Gamma", "Exponential"), ("Gamma", "Normal"),
    ("LowRank", "LowRank_b"), ("MultivariateNormal", "LowRank"), ("LowRank", "MultivariateNormal"),
]

KL_DISTS = {
    "Normal": lambda D, T: D.Normal(T([0.0, 1.0]), T([1.0, 2.0])),
    "Normal_b": lambda D, T: D.Normal(T([0.5, -1.0]), T([2.0, 0.7])),
    "Bernoulli": lambda D, T: D.Bernoulli(probs=T([0.2, 0.7])),
    "Bernoulli_b": lambda D, T: D.Bernoulli(logits=T([0.5, -0.3])),
    "Categorical": lambda D, T: D.Categorical(probs=T([[0.2, 0.3, 0.5], [0.1, 0.1, 0.8]])),
    "Categorical_b": lambda D, T: D.Categorical(logits=T([0.0, 1.0, -1.0])),
    "OneHotCategorical": lambda D, T: D.OneHotCategorical(probs=T([0.2, 0.3, 0.5])),
    "OneHotCategorical_b": lambda D, T: D.OneHotCategorical(probs=T([0.4, 0.4, 0.2])),
    "Beta": lambda D, T: D.Beta(T([0.5, 2.0]), T([1.5, 3.0])),
    "Beta_b": lambda D, T: D.Beta(T([1.0, 0.7]), T([2.0, 2.0])),
    "Uniform01": lambda D, T: D.Uniform(T([0.0, 0.0]), T([1.0, 1.0])),
    "Gamma": lambda D, T: D.Gamma(T([0.5, 2.0]), T([1.5, 3.0])),
    "Gamma_b": lambda D, T: D.Gamma(T([1.0, 0.7]), T([2.0, 2.0])),
    "Dirichlet": lambda D, T: D.Dirichlet(T([0.5, 2.0, 1.0])),
    "Dirichlet_b": lambda D, T: D.Dirichlet(T([1.5, 1.0, 3.0])),
    "Exponential": lambda D, T: D.Exponential(T([0.5, 2.0])),
    "Exponential_b": lambda D, T: D.Exponential(T([1.5, 1.0])),
    "Laplace": lambda D, T: D.Laplace(T([0.0, 1.0]), T([1.0, 2.0])),
    "Laplace_b": lambda D, T: D.Laplace(T([0.5, -1.0]), T([2.0, 0.7])),
    "Uniform": lambda D, T: D.Uniform(T([0.5, 1.0]), T([1.0, 2.0])),
    "Uniform_b": lambda D, T: D.Uniform(T([0.0, 0.5]), T([2.0, 2.5])),
    "Poisson": lambda D, T: D.Poisson(T([0.5, 2.0])),
    "Poisson_b": lambda D, T: D.Poisson(T([1.5, 1.0])),
    "Binomial": lambda D, T: D.Binomial(T([5.0, 5.0]), probs=T([0.2, 0.7])),
    "Binomial_b": lambda D, T: D.Binomial(T([5.0, 5.0]), probs=T([0.5, 0.5])),
    "MultivariateNormal": lambda D, T: D.MultivariateNormal(
        T([0.0, 1.0]), covariance_matrix=T([[2.0, 0.3], [0.3, 1.0]])),
    "MultivariateNormal_b": lambda D, T: D.MultivariateNormal(
        T([[1.0, 0.0], [0.0, 0.5]]), scale_tril=T([[1.0, 0.0], [0.4, 0.8]])),
    "LowRank": lambda D, T: D.LowRankMultivariateNormal(
        T([[0.0, 1.0], [1.0, -1.0]]), T([[1.0], [0.5]]), T([1.0, 2.0])),
    "LowRank_b": lambda D, T: D.LowRankMultivariateNormal(
        T([0.5, 0.0]), T([[0.2, 1.0], [0.5, -0.3]]), T([0.5, 1.5])),
    "Independent": lambda D, T: D.Independent(D.Normal(T([0.0, 1.0]), T([1.0, 2.0])), 1),
    "Independent_b": lambda D, T: D.Independent(D.Normal(T([1.0, 0.0]), T([0.5, 2.0])), 1),
    "LogNormal": lambda D, T: D.LogNormal(T([0.0, 1.0]), T([1.0, 2.0])),
    "LogNormal_b": lambda D, T: D.LogNormal(T([0.5, -1.0]), T([2.0, 0.7])),
    "Cauchy": lambda D, T: D.Cauchy(T([0.0, 1.0]), T([1.0, 2.0])),
    "Cauchy_b": lambda D, T: D.Cauchy(T([0.5, -1.0]), T([2.0, 0.7])),
    "Geometric": lambda D, T: D.Geometric(probs=T([0.2, 0.7])),
    "Geometric_b": lambda D, T: D.Geometric(probs=T([0.5, 0.4])),
    "HalfNormal": lambda D, T: D.HalfNormal(T([1.0, 2.0])),
    "HalfNormal_b": lambda D, T: D.HalfNormal(T([0.5, 3.0])),
    "Gumbel": lambda D, T: D.Gumbel(T([0.0, 1.0]), T([1.0, 2.0])),
    "Gumbel_b": lambda D, T: D.Gumbel(T([0.5, -1.0]), T([2.0, 0.7])),
    "Pareto": lambda D, T: D.Pareto(T([1.0, 2.0]), T([3.0, 1.5])),
    "Pareto_b": lambda D, T: D.Pareto(T([0.5, 2.5]), T([2.0, 2.5])),
    "Chi2": lambda D, T: D.Chi2(T([1.0, 4.0])),
    "Chi2_b": lambda D, T: D.Chi2(T([2.0, 3.0])),
}


@pytest.mark.parametrize("p,q", KL_PAIRS, ids=[f"{p}-{q}" for p, q in KL_PAIRS])
def test_kl_divergence_matches_torch(p, q):
    torch = _torch()
    ours = cd.kl_divergence(KL_DISTS[p](cd, _t(cygrad)), KL_DISTS[q](cd, _t(cygrad)))
    ref = torch.distributions.kl_divergence(KL_DISTS[p](torch.distributions, _t(torch)),
                                            KL_DISTS[q](torch.distributions, _t(torch)))
    _close(ours, ref, rtol=1e-8, atol=1e-10)


# one (p, q) pair of instances per family, for every pair PyTorch registers
KL_INSTANCES = {
    "Bernoulli": ("Bernoulli", "Bernoulli_b"), "Beta": ("Beta", "Beta_b"),
    "Binomial": ("Binomial", "Binomial_b"), "Categorical": ("Categorical", "Categorical_b"),
    "Cauchy": ("Cauchy", "Cauchy_b"), "Dirichlet": ("Dirichlet", "Dirichlet_b"),
    "Exponential": ("Exponential", "Exponential_b"), "Gamma": ("Gamma", "Gamma_b"),
    "Geometric": ("Geometric", "Geometric_b"), "Gumbel": ("Gumbel", "Gumbel_b"),
    "HalfNormal": ("HalfNormal", "HalfNormal_b"), "Independent": ("Independent", "Independent_b"),
    "Laplace": ("Laplace", "Laplace_b"), "LowRankMultivariateNormal": ("LowRank", "LowRank_b"),
    "MultivariateNormal": ("MultivariateNormal", "MultivariateNormal_b"),
    "Normal": ("Normal", "Normal_b"), "OneHotCategorical": ("OneHotCategorical", "OneHotCategorical_b"),
    "Pareto": ("Pareto", "Pareto_b"), "Poisson": ("Poisson", "Poisson_b"),
    "TransformedDistribution": ("LogNormal", "LogNormal_b"), "Uniform": ("Uniform_in01", "Uniform_wide"),
    "ContinuousBernoulli": ("ContinuousBernoulli", "ContinuousBernoulli_b"),
}
KL_DISTS.update({
    "Uniform_in01": lambda D, T: D.Uniform(T([0.2, 0.5]), T([0.7, 0.9])),
    "Uniform_wide": lambda D, T: D.Uniform(T([-0.5, -0.1]), T([2.0, 3.0])),
    "ContinuousBernoulli": lambda D, T: D.ContinuousBernoulli(probs=T([0.2, 0.4995])),
    "ContinuousBernoulli_b": lambda D, T: D.ContinuousBernoulli(logits=T([0.5, -1.0])),
    "Pareto_small": lambda D, T: D.Pareto(T([0.1, 0.2]), T([2.5, 3.0])),
})


def test_kl_divergence_every_pair_torch_registers():
    torch = _torch()
    pairs = [(p.__name__, q.__name__) for p, q in torch.distributions.kl._KL_REGISTRY
             if p.__name__ != "ExponentialFamily"]
    assert len(pairs) == 86
    for p_name, q_name in pairs:
        p_key = KL_INSTANCES[p_name][0]
        q_key = KL_INSTANCES[q_name][1]
        if (p_name, q_name) == ("Uniform", "Pareto"):
            q_key = "Pareto_small"          # a finite case too
        ours = cd.kl_divergence(KL_DISTS[p_key](cd, _t(cygrad)), KL_DISTS[q_key](cd, _t(cygrad)))
        ref = torch.distributions.kl_divergence(KL_DISTS[p_key](torch.distributions, _t(torch)),
                                                KL_DISTS[q_key](torch.distributions, _t(torch)))
        np.testing.assert_allclose(_np(ours), _np(ref), rtol=1e-8, atol=1e-10,
                                   err_msg=f"{p_name} || {q_name}")
    # where q's support ends exactly where p's does, the divergence is finite
    # (PyTorch's ContinuousBernoulli-Uniform formula returns inf there)
    p = cd.ContinuousBernoulli(probs=cygrad.tensor(0.3, dtype=cygrad.float64))
    kl = cd.kl_divergence(p, cd.Uniform(cygrad.tensor(0.0, dtype=cygrad.float64), 1.0))
    assert abs(kl.item() + p.entropy().item()) < 1e-12


def test_kl_divergence_unregistered_pair_and_register_kl():
    with pytest.raises(NotImplementedError, match="No KL"):
        cd.kl_divergence(cd.Cauchy(1.0, 1.0), cd.Normal(0.0, 1.0))
    with pytest.raises(NotImplementedError, match="different exponential families"):
        cd.kl_divergence(cd.Poisson(1.0), cd.Normal(0.0, 1.0))

    class Shifted(cd.Normal):
        pass

    @cd.register_kl(Shifted, cd.Normal)
    def _kl(p, q):
        return (p.loc - q.loc).abs()

    assert cd.kl_divergence(Shifted(3.0, 1.0), cd.Normal(1.0, 1.0)).item() == 2.0
    # the more specific registration wins only for its own types
    assert cd.kl_divergence(cd.Normal(0.0, 1.0), cd.Normal(1.0, 1.0)).item() == 0.5
    with pytest.raises(TypeError):
        cd.register_kl(int, cd.Normal)


def test_kl_gradients_flow():
    loc = cygrad.tensor([0.5], dtype=cygrad.float64, requires_grad=True)
    cd.kl_divergence(cd.Normal(loc, 1.0), cd.Normal(0.0, 1.0)).sum().backward()
    assert abs(loc.grad.item() - 0.5) < 1e-12           # d/dmu (mu^2 / 2)


def test_exponential_family_entropy_matches_closed_form():
    """The Bregman entropy of ExponentialFamily equals each closed form."""
    f64 = lambda v: cygrad.tensor(v, dtype=cygrad.float64)
    for d in (cd.Normal(f64([0.0, 1.0]), f64([1.0, 3.0])), cd.Gamma(f64([0.5, 3.0]), f64([2.0, 1.0])),
              cd.Exponential(f64([0.5, 2.0])), cd.Bernoulli(f64([0.2, 0.9]))):
        _close(cd.ExponentialFamily.entropy(d), d.entropy(), rtol=1e-9)


# ------------------------------------------------------------------ gradients of log_prob

GRAD_CASES = {
    "Normal": (lambda a, b: cd.Normal(a, b), [0.3, 1.2], 0.7),
    "Gamma": (lambda a, b: cd.Gamma(a, b), [1.3, 0.8], 1.7),
    "Beta": (lambda a, b: cd.Beta(a, b), [1.3, 0.8], 0.35),
    "StudentT": (lambda a, b: cd.StudentT(a + 2, b), [1.3, 0.8], 0.35),
    "Dirichlet": (lambda a, b: cd.Dirichlet(cygrad.stack([a, b, a + b])), [1.3, 0.8],
                  [0.2, 0.3, 0.5]),
    "Binomial": (lambda a, b: cd.Binomial(7, probs=a / (a + b)), [1.3, 0.8], 3.0),
    "MultivariateNormal": (lambda a, b: cd.MultivariateNormal(
        cygrad.stack([a, b]), scale_tril=cygrad.stack([cygrad.stack([b, a * 0]),
                                                       cygrad.stack([a, b + 1])])),
        [0.3, 1.2], [0.1, -0.4]),
    "Weibull": (lambda a, b: cd.Weibull(a, b), [1.3, 0.8], 0.9),
    "Kumaraswamy": (lambda a, b: cd.Kumaraswamy(a, b), [1.3, 0.8], 0.35),
}


@pytest.mark.parametrize("case", sorted(GRAD_CASES))
def test_log_prob_and_entropy_gradients(case):
    """gradcheck and gradgradcheck of log_prob (and entropy where it exists) in the
    parameters: the private lgamma/digamma/Cholesky paths included."""
    build, params, value = GRAD_CASES[case]
    args = [cygrad.tensor(p, dtype=cygrad.float64, requires_grad=True) for p in params]
    v = cygrad.tensor(value, dtype=cygrad.float64)
    fn = lambda a, b: build(a, b).log_prob(v)
    assert cygrad.autograd.gradcheck(fn, args)
    assert cygrad.autograd.gradgradcheck(fn, args)
    try:
        build(*args).entropy()
    except NotImplementedError:
        return
    assert cygrad.autograd.gradcheck(lambda a, b: build(a, b).entropy(), args)
