"""``cygrad.distributions.transforms``, ``constraints`` and
``biject_to``/``transform_to`` against PyTorch: forward values, inverses,
log-Jacobians (also against autograd's Jacobian), shapes, constraint checks."""
import numpy as np
import pytest

import cygrad
import cygrad.distributions as cd
from cygrad.distributions import constraints as C


def _torch():
    return pytest.importorskip("torch", reason="PyTorch is the reference")


def _t(lib):
    return lambda v: lib.tensor(v, dtype=lib.float64)


TRANSFORMS = {
    "Exp": (lambda T, D: T.ExpTransform(), (2, 3)),
    "Affine": (lambda T, D: T.AffineTransform(D([1.0, -1.0, 0.5]), D([2.0, -3.0, 0.5])), (2, 3)),
    "Affine_event": (lambda T, D: T.AffineTransform(0.5, D([2.0, -3.0, 0.5]), event_dim=1),
                     (2, 3)),
    "Sigmoid": (lambda T, D: T.SigmoidTransform(), (2, 3)),
    "Tanh": (lambda T, D: T.TanhTransform(), (2, 3)),
    "Softplus": (lambda T, D: T.SoftplusTransform(), (2, 3)),
    "Power": (lambda T, D: T.PowerTransform(D(2.5)), (2, 3)),
    "Abs": (lambda T, D: T.AbsTransform(), (2, 3)),
    "Softmax": (lambda T, D: T.SoftmaxTransform(), (2, 3)),
    "StickBreaking": (lambda T, D: T.StickBreakingTransform(), (2, 3)),
    "LowerCholesky": (lambda T, D: T.LowerCholeskyTransform(), (2, 3, 3)),
    "PositiveDefinite": (lambda T, D: T.PositiveDefiniteTransform(), (2, 3, 3)),
    "CorrCholesky": (lambda T, D: T.CorrCholeskyTransform(), (2, 6)),
    "Compose": (lambda T, D: T.ComposeTransform([T.AffineTransform(0.0, 2.0), T.ExpTransform(),
                                                  T.AffineTransform(1.0, 3.0)]), (2, 3)),
    "Independent": (lambda T, D: T.IndependentTransform(T.SigmoidTransform(), 1), (2, 3)),
    "Reshape": (lambda T, D: T.ReshapeTransform((6,), (2, 3)), (4, 6)),
    "Cat": (lambda T, D: T.CatTransform([T.ExpTransform(), T.AffineTransform(1.0, 2.0)],
                                        dim=-1, lengths=[1, 2]), (2, 3)),
    "Stack": (lambda T, D: T.StackTransform([T.ExpTransform(), T.SigmoidTransform(),
                                             T.AffineTransform(1.0, 2.0)], dim=-1), (2, 3)),
    "Inverse_of_Sigmoid": (lambda T, D: T.SigmoidTransform().inv, (2, 3)),
}


@pytest.mark.parametrize("name", sorted(TRANSFORMS))
def test_transform_matches_torch(name):
    torch = _torch()
    build, shape = TRANSFORMS[name]
    ours = build(cd.transforms, _t(cygrad))
    ref = build(torch.distributions.transforms, _t(torch))
    rng = np.random.default_rng(0)
    x = rng.uniform(-1.5, 1.5, size=shape)
    if name == "Power":
        x = np.abs(x) + 0.1
    if name == "Inverse_of_Sigmoid":
        x = rng.uniform(0.05, 0.95, size=shape)
    xo, xr = cygrad.tensor(x), torch.tensor(x)
    yo, yr = ours(xo), ref(xr)
    np.testing.assert_allclose(yo.numpy(), yr.numpy(), rtol=1e-10, atol=1e-12)
    assert ours.bijective == ref.bijective
    assert ours.domain.event_dim == ref.domain.event_dim
    assert ours.codomain.event_dim == ref.codomain.event_dim
    assert bool(ours.codomain.check(yo).all())
    assert tuple(ours.forward_shape(shape)) == tuple(ref.forward_shape(shape))
    assert tuple(ours.inverse_shape(tuple(yr.shape))) == tuple(ref.inverse_shape(tuple(yr.shape)))
    inv_o, inv_r = ours.inv(yo), ref.inv(yr)
    np.testing.assert_allclose(inv_o.numpy(), inv_r.numpy(), rtol=1e-8, atol=1e-10)
    if ref.bijective and name not in ("Softmax", "LowerCholesky", "PositiveDefinite"):
        np.testing.assert_allclose(ours.log_abs_det_jacobian(xo, yo).numpy(),
                                   ref.log_abs_det_jacobian(xr, yr).numpy(),
                                   rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("name", ["Exp", "Affine", "Sigmoid", "Tanh", "Softplus", "Power",
                                  "StickBreaking", "CorrCholesky"])
def test_log_abs_det_jacobian_is_the_jacobians(name):
    """Against the determinant of autograd's Jacobian (an independent reference)."""
    build, _ = TRANSFORMS[name]
    t = build(cd.transforms, _t(cygrad))
    n = {"StickBreaking": 3, "CorrCholesky": 3}.get(name, 3)
    x = cygrad.tensor(np.linspace(0.2, 0.9, n))
    if name == "StickBreaking":
        flat = lambda v: t(v)[:-1]        # the free coordinates of the simplex
    elif name == "CorrCholesky":
        keep = cygrad.ones(3, 3, dtype=cygrad.bool).tril(-1)
        flat = lambda v: t(v)[keep]
    else:
        flat = t
    jac = cygrad.autograd.functional.jacobian(flat, x).numpy()
    expected = np.linalg.slogdet(jac)[1]
    got = t.log_abs_det_jacobian(x, t(x))
    if got.dim():
        got = got.sum() if name not in ("StickBreaking", "CorrCholesky") else got
    np.testing.assert_allclose(got.numpy(), expected, rtol=1e-9, atol=1e-12)


def test_cache_returns_the_same_objects():
    t = cd.transforms.ExpTransform().with_cache(1)
    x = cygrad.tensor([0.5])
    y = t(x)
    assert t(x) is y and t.inv(y) is x
    assert t.inv.inv is t
    with pytest.raises(ValueError):
        cd.transforms.ExpTransform(cache_size=2)


def test_transformed_distribution_cdf_reverses_for_decreasing_transforms():
    torch = _torch()
    build = lambda D, T: D.TransformedDistribution(
        D.Normal(T([0.0, 1.0]), T([1.0, 0.5])), [D.transforms.AffineTransform(T(1.0), T(-2.0))])
    ours, ref = build(cd, _t(cygrad)), build(torch.distributions, _t(torch))
    v = [[-1.0, 0.5], [2.0, 0.0]]
    np.testing.assert_allclose(ours.cdf(cygrad.tensor(v)).numpy(), ref.cdf(torch.tensor(v)).numpy(),
                               rtol=1e-12)
    q = [[0.1, 0.7]]
    np.testing.assert_allclose(ours.icdf(cygrad.tensor(q)).numpy(), ref.icdf(torch.tensor(q)).numpy(),
                               rtol=1e-12)


CONSTRAINTS = ["real", "positive", "nonnegative", "unit_interval", "simplex", "boolean",
               "nonnegative_integer", "positive_integer", "real_vector", "lower_cholesky",
               "lower_triangular", "positive_definite", "positive_semidefinite", "symmetric",
               "square", "corr_cholesky", "one_hot"]


@pytest.mark.parametrize("name", CONSTRAINTS)
def test_constraint_checks_match_torch(name):
    torch = _torch()
    rng = np.random.default_rng(1)
    samples = [rng.normal(size=(4, 3)), np.abs(rng.normal(size=(4, 3))), rng.uniform(size=(4, 3)),
               np.array([[0.2, 0.3, 0.5], [0.5, 0.5, 0.1], [1.0, 0.0, 0.0], [0.0, 2.0, -1.0]]),
               np.array([[1.0, 0.0, 3.0], [2.0, 1.0, 0.0], [0.0, 0.0, 1.0], [-1.0, 0.0, 0.0]]),
               np.eye(3), np.array([[2.0, 1.0, 0.0], [1.0, 2.0, 0.0], [0.0, 0.0, 1.0]]),
               np.array([[1.0, 0.0, 0.0], [0.6, 0.8, 0.0], [0.0, 0.6, 0.8]]),
               np.array([[1.0, 0.0, 0.0], [0.0, 0.0, 0.0], [0.0, 0.0, 0.0]])]
    ours, ref = getattr(C, name), getattr(torch.distributions.constraints, name)
    assert repr(ours) == repr(ref)
    assert ours.event_dim == ref.event_dim and ours.is_discrete == ref.is_discrete
    for s in samples:
        assert ours.check(cygrad.tensor(s)).tolist() == ref.check(torch.tensor(s)).tolist(), s


def test_parametrised_constraints_match_torch():
    torch = _torch()
    TC = torch.distributions.constraints
    x = np.array([-1.0, 0.0, 0.5, 1.0, 2.0, 3.0])
    for make in (lambda c: c.greater_than(0.5), lambda c: c.greater_than_eq(0.5),
                 lambda c: c.less_than(1.0), lambda c: c.interval(0.0, 2.0),
                 lambda c: c.half_open_interval(0.0, 2.0), lambda c: c.integer_interval(0, 2),
                 lambda c: c.independent(c.positive, 1),
                 lambda c: c.cat([c.positive, c.real], 0, [3, 3]),
                 lambda c: c.stack([c.positive, c.real, c.unit_interval, c.real,
                                    c.nonnegative, c.boolean], 0)):
        ours, ref = make(C), make(TC)
        assert ours.check(cygrad.tensor(x)).tolist() == ref.check(torch.tensor(x)).tolist()
        assert repr(ours) == repr(ref)
    assert C.is_dependent(C.dependent) and not C.is_dependent(C.real)
    with pytest.raises(ValueError):
        C.dependent.check(cygrad.zeros(1))


@pytest.mark.parametrize("registry", ["biject_to", "transform_to"])
def test_biject_to_and_transform_to_reach_the_constraint(registry):
    torch = _torch()
    ours_reg = getattr(cd, registry)
    ref_reg = getattr(torch.distributions, registry)
    rng = np.random.default_rng(2)
    for name, shape in (("real", (3,)), ("positive", (3,)), ("unit_interval", (3,)),
                        ("simplex", (3,)), ("greater_than", (3,)), ("less_than", (3,)),
                        ("interval", (3,)), ("lower_cholesky", (3, 3)),
                        ("positive_definite", (3, 3)), ("corr_cholesky", (3,)),
                        ("real_vector", (3,))):
        make = {"greater_than": lambda c: c.greater_than(1.5), "less_than": lambda c: c.less_than(-1.0),
                "interval": lambda c: c.interval(-2.0, 3.0)}.get(name, lambda c: getattr(c, name))
        c_ours, c_ref = make(C), make(torch.distributions.constraints)
        try:
            t_ref = ref_reg(c_ref)
        except NotImplementedError:
            with pytest.raises(NotImplementedError):
                ours_reg(c_ours)
            continue
        t_ours = ours_reg(c_ours)
        x = rng.normal(size=shape)
        y_ours, y_ref = t_ours(cygrad.tensor(x)), t_ref(torch.tensor(x))
        np.testing.assert_allclose(y_ours.numpy(), y_ref.numpy(), rtol=1e-10, atol=1e-12)
        assert bool(c_ours.check(y_ours).all()), name


def test_compose_transform_domain_and_codomain_match_torch():
    torch = _torch()
    chains = [lambda t: [t.ExpTransform(), t.StickBreakingTransform()],
              lambda t: [t.StickBreakingTransform(), t.ExpTransform()],
              lambda t: [t.CorrCholeskyTransform(), t.ExpTransform()],
              lambda t: [t.ExpTransform(), t.ReshapeTransform((6,), (2, 3)), t.SigmoidTransform()],
              lambda t: [t.IndependentTransform(t.ExpTransform(), 2), t.AffineTransform(0.0, 1.0)],
              lambda t: []]
    for chain in chains:
        ours = cd.transforms.ComposeTransform(chain(cd.transforms))
        ref = torch.distributions.transforms.ComposeTransform(chain(torch.distributions.transforms))
        assert repr(ours.domain) == repr(ref.domain)
        assert repr(ours.codomain) == repr(ref.codomain)
        assert repr(ours) == repr(ref)
