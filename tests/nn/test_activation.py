"""Activations (functional and Module forms): values and gradients against PyTorch,
gradcheck/gradgradcheck in float64, forward-mode tangents against finite
differences, in-place forms, reprs and error messages against PyTorch."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck
import cygrad.autograd.forward_ad as fwAD

# (functional name, positional args, keyword args); every op PyTorch has under the same name.
POINTWISE = [
    ("relu", (), {}), ("relu6", (), {}), ("hardtanh", (), {}), ("hardtanh", (-2.0, 0.5), {}),
    ("leaky_relu", (), {}), ("leaky_relu", (0.2,), {}), ("threshold", (0.5, -2.0), {}),
    ("elu", (), {}), ("elu", (0.7,), {}), ("selu", (), {}), ("celu", (), {}),
    ("celu", (0.7,), {}), ("gelu", (), {}), ("gelu", (), {"approximate": "tanh"}),
    ("silu", (), {}), ("mish", (), {}), ("softplus", (), {}), ("softplus", (2.0, 5.0), {}),
    ("softsign", (), {}), ("tanh", (), {}), ("sigmoid", (), {}), ("hardsigmoid", (), {}),
    ("hardswish", (), {}), ("logsigmoid", (), {}), ("tanhshrink", (), {}),
    ("softshrink", (), {}), ("softshrink", (1.2,), {}), ("hardshrink", (), {}),
    ("hardshrink", (1.2,), {}),
]
IDS = [f"{n}{a}{k}" for n, a, k in POINTWISE]
# Inputs away from the kinks, where finite differences are well defined.
SMOOTH_POINTS = np.array([-6.1, -3.4, -2.3, -1.7, -0.8, -0.3, 0.2, 0.7, 1.6, 2.4, 3.3, 6.2])


def _values(rng):
    """Random values plus the kinks of every op and large magnitudes."""
    kinks = [0.0, -3.0, 3.0, 6.0, -1.0, 1.0, 0.5, -0.5, 1.2, -1.2, -2.0, 20.0, -20.0,
             60.0, -60.0, 800.0, -800.0]
    return np.concatenate([rng.standard_normal(23) * 4, kinks])


@pytest.mark.parametrize("name,args,kwargs", POINTWISE, ids=IDS)
def test_pointwise_values_and_grads_match_torch(rng, name, args, kwargs):
    torch = pytest.importorskip("torch")
    xn = _values(rng)
    for dtype in (np.float64, np.float32):
        x = cygrad.from_numpy(xn.astype(dtype)).requires_grad_()
        xt = torch.tensor(xn.astype(dtype), requires_grad=True)
        y = getattr(F, name)(x, *args, **kwargs)
        yt = getattr(torch.nn.functional, name)(xt, *args, **kwargs)
        assert y.dtype == getattr(cygrad, str(yt.dtype).split(".")[1])
        tol = dict(rtol=1e-12, atol=1e-12) if dtype == np.float64 else dict(rtol=2e-6, atol=1e-6)
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), **tol)
        g = rng.standard_normal(xn.shape).astype(dtype)
        y.backward(cygrad.from_numpy(g))
        yt.backward(torch.tensor(g))
        if name in ("celu", "hardsigmoid") and dtype == np.float64:
            tol = dict(rtol=1e-6, atol=1e-12)   # PyTorch rounds 1/alpha, 1/6 to float32
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), **tol)


@pytest.mark.parametrize("name,args,kwargs", POINTWISE, ids=IDS)
def test_pointwise_gradcheck(name, args, kwargs):
    x = cygrad.from_numpy(SMOOTH_POINTS.reshape(3, 4).copy()).requires_grad_()
    fn = getattr(F, name)
    assert gradcheck(lambda t: fn(t, *args, **kwargs), (x,))
    assert gradgradcheck(lambda t: fn(t, *args, **kwargs), (x,))


@pytest.mark.parametrize("name,args,kwargs", POINTWISE, ids=IDS)
def test_pointwise_forward_mode_matches_finite_differences(rng, name, args, kwargs):
    x = cygrad.from_numpy(SMOOTH_POINTS.copy())
    v = cygrad.from_numpy(rng.standard_normal(SMOOTH_POINTS.shape))
    fn = getattr(F, name)
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(fn(fwAD.make_dual(x, v), *args, **kwargs)).tangent
    h = 1e-6
    fd = (fn(x + h * v, *args, **kwargs) - fn(x - h * v, *args, **kwargs)) / (2 * h)
    np.testing.assert_allclose(tangent.numpy(), fd.numpy(), rtol=1e-6, atol=1e-7)


def test_node_names_match_torch():
    torch = pytest.importorskip("torch")
    for name, args, kwargs in POINTWISE:
        if name in ("softsign", "tanhshrink"):    # compositions in both libraries
            continue
        x = cygrad.tensor([0.3, -0.4], requires_grad=True)
        xt = torch.tensor([0.3, -0.4], requires_grad=True)
        ours = type(getattr(F, name)(x, *args, **kwargs).grad_fn).__name__
        theirs = type(getattr(torch.nn.functional, name)(xt, *args, **kwargs).grad_fn).__name__
        assert ours == theirs, name


def test_extreme_inputs_stay_finite():
    x = cygrad.tensor([-1e4, -100.0, 100.0, 1e4], dtype=cygrad.float64, requires_grad=True)
    for fn in (F.softplus, F.logsigmoid, F.mish, F.silu, F.elu, F.selu, F.gelu):
        y = fn(x)
        y.sum().backward()
        assert np.isfinite(y.detach().numpy()).all(), fn.__name__
        assert np.isfinite(x.grad.numpy()).all(), fn.__name__
        x.grad = None
    np.testing.assert_allclose(F.logsigmoid(x).detach().numpy(), [-1e4, -100.0, -3.7e-44, 0.0],
                               atol=1e-40)


INPLACE = [("relu", {}), ("relu6", {}), ("hardtanh", {}), ("leaky_relu", {}), ("elu", {}),
           ("selu", {}), ("celu", {}), ("silu", {}), ("mish", {}), ("hardsigmoid", {}),
           ("hardswish", {}), ("threshold", {"threshold": 0.1, "value": 2.0})]


@pytest.mark.parametrize("name,kwargs", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_matches_torch(rng, name, kwargs):
    torch = pytest.importorskip("torch")
    xn = rng.standard_normal((3, 4)) * 4
    a = cygrad.from_numpy(xn.copy()).requires_grad_()
    at = torch.tensor(xn, requires_grad=True)
    x, xt = a * 1.5, at * 1.5
    y = getattr(F, name)(x, inplace=True, **kwargs)
    yt = getattr(torch.nn.functional, name)(xt, inplace=True, **kwargs)
    assert y is x
    np.testing.assert_allclose(x.detach().numpy(), xt.detach().numpy(), rtol=1e-12, atol=1e-12)
    g = rng.standard_normal(xn.shape)
    (x * cygrad.from_numpy(g)).sum().backward()
    (xt * torch.tensor(g)).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), at.grad.numpy(), rtol=1e-7, atol=1e-12)
    # without autograd the input is simply overwritten
    plain = cygrad.from_numpy(xn.copy())
    assert getattr(F, name)(plain, inplace=True, **kwargs) is plain
    np.testing.assert_allclose(plain.numpy(),
                               getattr(torch.nn.functional, name)(torch.tensor(xn), **kwargs),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name,kwargs", INPLACE, ids=[n for n, _ in INPLACE])
def test_inplace_on_leaf_refused_like_torch(name, kwargs):
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as ours:
        getattr(F, name)(cygrad.ones(2, requires_grad=True), inplace=True, **kwargs)
    with pytest.raises(RuntimeError) as theirs:
        getattr(torch.nn.functional, name)(torch.ones(2, requires_grad=True), inplace=True,
                                           **kwargs)
    assert str(ours.value) == str(theirs.value)


def test_underscore_functions_are_inplace():
    torch = pytest.importorskip("torch")
    xn = np.array([-2.0, -0.5, 0.5, 2.0])
    for name, args in [("relu_", ()), ("elu_", (0.5,)), ("selu_", ()), ("celu_", (2.0,)),
                       ("leaky_relu_", (0.3,)), ("hardtanh_", (-1.5, 1.0)),
                       ("threshold_", (0.1, 7.0))]:
        x = cygrad.from_numpy(xn.copy())
        assert getattr(F, name)(x, *args) is x
        expected = getattr(torch.nn.functional, name)(torch.tensor(xn), *args)
        np.testing.assert_allclose(x.numpy(), expected.numpy(), rtol=1e-12)


def test_integer_inputs_like_torch():
    torch = pytest.importorskip("torch")
    for name in ("relu", "relu6", "hardtanh", "threshold", "softsign", "gelu", "silu",
                 "leaky_relu", "elu", "softplus", "logsigmoid", "hardsigmoid", "hardswish",
                 "mish", "softshrink"):
        args = (0, 5) if name == "threshold" else ()
        try:
            expected = getattr(torch.nn.functional, name)(torch.tensor([1, -2]), *args)
        except (NotImplementedError, RuntimeError) as e:
            with pytest.raises(type(e)) as ours:
                getattr(F, name)(cygrad.tensor([1, -2]), *args)
            assert str(ours.value) == str(e), name
        else:
            got = getattr(F, name)(cygrad.tensor([1, -2]), *args)
            assert str(got.dtype).split(".")[1] == str(expected.dtype).split(".")[1], name
            np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6)


@pytest.mark.parametrize("call", [
    lambda f, m: f.softshrink(m.randn(2), -1.0),
    lambda f, m: f.glu(m.randn(2, 3), 1),
    lambda f, m: f.glu(m.tensor(1.0)),
    lambda f, m: f.gelu(m.randn(2), approximate="foo"),
    lambda f, m: f.hardtanh(m.randn(2), 2.0, 1.0),
    lambda f, m: f.prelu(m.randn(2, 4), m.ones(3)),
    lambda f, m: f.prelu(m.randn(4), m.ones(4)),
    lambda f, m: f.prelu(m.randn(2, 4), m.ones(2, 2)),
    lambda f, m: f.one_hot(m.tensor([1.0, 2.0])),
    lambda f, m: f.one_hot(m.tensor([1, -2])),
    lambda f, m: f.one_hot(m.tensor([1, 4]), 3),
    lambda f, m: f.one_hot(m.zeros(0, dtype=m.int64)),
    lambda f, m: f.normalize(m.tensor([1, 2])),
    lambda f, m: f.softmax(m.ones(2, 3, dtype=m.int32), 1),
], ids=["softshrink-neg", "glu-odd", "glu-scalar", "gelu-approx", "hardtanh-range",
        "prelu-channels", "prelu-1d", "prelu-2d-weight", "one_hot-float", "one_hot-negative",
        "one_hot-too-large", "one_hot-empty", "normalize-int", "softmax-int"])
def test_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch.nn.functional, torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(F, cygrad)
    assert str(ours.value) == str(theirs.value)


@pytest.mark.parametrize("dim", [0, 1, -1])
def test_softmax_family_with_dtype(rng, dim):
    torch = pytest.importorskip("torch")
    xn = rng.standard_normal((3, 4)).astype(np.float32) * 5
    for name in ("softmax", "log_softmax", "softmin"):
        for dtype in (None, "float64"):
            ours = getattr(F, name)(cygrad.from_numpy(xn), dim,
                                    dtype=dtype and getattr(cygrad, dtype))
            theirs = getattr(torch.nn.functional, name)(torch.tensor(xn), dim,
                                                        dtype=dtype and getattr(torch, dtype))
            assert str(ours.dtype).split(".")[1] == str(theirs.dtype).split(".")[1]
            np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-6, atol=1e-7)
    x = cygrad.from_numpy(rng.standard_normal((3, 4))).requires_grad_()
    assert gradcheck(lambda t: F.softmin(t, dim), (x,))


def test_glu_and_prelu_match_torch(rng):
    torch = pytest.importorskip("torch")
    xn = rng.standard_normal((2, 4, 3))
    for dim in (1, -1, 0):
        if xn.shape[dim] % 2:
            continue
        x = cygrad.from_numpy(xn.copy()).requires_grad_()
        xt = torch.tensor(xn, requires_grad=True)
        F.glu(x, dim).sum().backward()
        torch.nn.functional.glu(xt, dim).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
    wn = rng.standard_normal(4)
    for shape, w in [((2, 4, 3), wn), ((5, 4), wn), ((5, 4), wn[:1]), ((3,), wn[:1]),
                     ((), wn[:1])]:
        xn = rng.standard_normal(shape)
        x, xt = cygrad.from_numpy(xn.copy()).requires_grad_(), torch.tensor(xn, requires_grad=True)
        wc = cygrad.from_numpy(w.copy()).requires_grad_()
        wt = torch.tensor(w, requires_grad=True)
        y, yt = F.prelu(x, wc), torch.nn.functional.prelu(xt, wt)
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-12)
        y.sum().backward()
        yt.sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), xt.grad.numpy(), rtol=1e-12)
        np.testing.assert_allclose(wc.grad.numpy(), wt.grad.numpy(), rtol=1e-12)
    x = cygrad.from_numpy(rng.standard_normal((3, 4, 2))).requires_grad_()
    w = cygrad.from_numpy(rng.uniform(0.1, 0.5, 4)).requires_grad_()
    assert gradcheck(F.prelu, (x, w))
    assert gradcheck(lambda t: F.glu(t, 1), (x,))


def test_distances_match_torch(rng):
    torch = pytest.importorskip("torch")
    a, b = rng.standard_normal((4, 5)), rng.standard_normal((4, 5))
    a[0] = 0.0        # a zero vector: the eps clamps decide
    b[1] = 1e-10
    cases = [("cosine_similarity", {}), ("cosine_similarity", {"dim": 0}),
             ("pairwise_distance", {}), ("pairwise_distance", {"p": 1.0, "keepdim": True}),
             ("pairwise_distance", {"p": 3.0})]
    for name, kwargs in cases:
        x1, x2 = (cygrad.from_numpy(v.copy()).requires_grad_() for v in (a, b))
        t1, t2 = (torch.tensor(v, requires_grad=True) for v in (a, b))
        y = getattr(F, name)(x1, x2, **kwargs)
        yt = getattr(torch.nn.functional, name)(t1, t2, **kwargs)
        np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-10,
                                   atol=1e-12)
        g = rng.standard_normal(tuple(yt.shape))
        y.backward(cygrad.from_numpy(g))
        yt.backward(torch.tensor(g))
        np.testing.assert_allclose(x1.grad.numpy(), t1.grad.numpy(), rtol=1e-7, atol=1e-9)
        np.testing.assert_allclose(x2.grad.numpy(), t2.grad.numpy(), rtol=1e-7, atol=1e-9)
    for p, dim in [(2.0, 1), (1.0, 0), (3.0, -1)]:
        ours = F.normalize(cygrad.from_numpy(a), p, dim).numpy()
        theirs = torch.nn.functional.normalize(torch.tensor(a), p, dim).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-12)
    x1, x2 = (cygrad.from_numpy(rng.standard_normal((3, 4))).requires_grad_() for _ in "ab")
    assert gradcheck(F.cosine_similarity, (x1, x2))
    assert gradcheck(F.pairwise_distance, (x1, x2))
    assert gradcheck(lambda t: F.normalize(t, dim=0), (x1,))


def test_one_hot_matches_numpy(rng):
    idx = rng.integers(0, 5, (3, 4))
    got = F.one_hot(cygrad.from_numpy(idx))
    assert got.dtype == cygrad.int64
    np.testing.assert_array_equal(got.numpy(), np.eye(5, dtype=np.int64)[idx])
    np.testing.assert_array_equal(F.one_hot(cygrad.from_numpy(idx), 7).numpy(),
                                  np.eye(7, dtype=np.int64)[idx])
    assert tuple(F.one_hot(cygrad.zeros(0, dtype=cygrad.int64), 3).shape) == (0, 3)


def test_gumbel_softmax(rng):
    cygrad.manual_seed(0)
    logits = cygrad.from_numpy(rng.standard_normal((500, 4))).requires_grad_()
    soft = F.gumbel_softmax(logits, tau=0.5)
    np.testing.assert_allclose(soft.detach().sum(1).numpy(), np.ones(500), rtol=1e-12)
    hard = F.gumbel_softmax(logits, hard=True)
    h = hard.detach().numpy()
    assert set(np.unique(h)) == {0.0, 1.0} and (h.sum(1) == 1).all()
    # the straight-through estimator: hard's gradient is the soft sample's
    cygrad.manual_seed(3)
    g = cygrad.from_numpy(rng.standard_normal((500, 4)))
    (F.gumbel_softmax(logits, hard=True) * g).sum().backward()
    hard_grad = logits.grad.numpy().copy()
    logits.grad = None
    cygrad.manual_seed(3)
    (F.gumbel_softmax(logits) * g).sum().backward()
    np.testing.assert_allclose(hard_grad, logits.grad.numpy(), rtol=1e-12)
    # samples follow softmax(logits): the argmax frequencies of the Gumbel-max trick
    probs = np.exp([0.0, 1.0, 2.0]) / np.exp([0.0, 1.0, 2.0]).sum()
    draws = F.gumbel_softmax(cygrad.tensor([[0.0, 1.0, 2.0]] * 4000), hard=True).sum(0).numpy()
    np.testing.assert_allclose(draws / 4000, probs, atol=0.04)


MODULES = [
    ("ReLU", (), {}), ("ReLU", (True,), {}), ("ReLU6", (), {}), ("ReLU6", (True,), {}),
    ("LeakyReLU", (), {}), ("LeakyReLU", (0.2, True), {}), ("ELU", (), {}),
    ("ELU", (0.5, True), {}), ("SELU", (), {}), ("SELU", (True,), {}), ("CELU", (1.5,), {}),
    ("CELU", (), {"inplace": True}), ("GELU", (), {}), ("GELU", ("tanh",), {}), ("SiLU", (), {}),
    ("SiLU", (True,), {}), ("Mish", (), {}), ("Mish", (True,), {}), ("Softplus", (), {}),
    ("Softplus", (2, 10), {}), ("Softsign", (), {}), ("Tanh", (), {}), ("Sigmoid", (), {}),
    ("Hardtanh", (), {}), ("Hardtanh", (-2.0, 3.0, True), {}), ("Hardsigmoid", (), {}),
    ("Hardsigmoid", (True,), {}), ("Hardswish", (), {}), ("Hardswish", (True,), {}),
    ("Softmax", (1,), {}), ("Softmax", (), {"dim": -1}), ("LogSoftmax", (1,), {}),
    ("Softmin", (0,), {}), ("Softmax2d", (), {}), ("Threshold", (0.1, 20), {}),
    ("Threshold", (0.1, 20.0, True), {}), ("LogSigmoid", (), {}), ("Tanhshrink", (), {}),
    ("Softshrink", (), {}), ("Softshrink", (1.5,), {}), ("Hardshrink", (), {}), ("GLU", (), {}),
    ("GLU", (1,), {}), ("PReLU", (), {}), ("PReLU", (4, 0.1), {}),
]


@pytest.mark.parametrize("name,args,kwargs", MODULES, ids=[f"{n}{a}{k}" for n, a, k in MODULES])
def test_modules_match_torch(rng, name, args, kwargs):
    torch = pytest.importorskip("torch")
    ours, theirs = getattr(nn, name)(*args, **kwargs), getattr(torch.nn, name)(*args, **kwargs)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    for key, value in theirs.state_dict().items():
        np.testing.assert_array_equal(ours.state_dict()[key].numpy(), value.numpy())
    xn = rng.standard_normal((2, 4, 3, 2)) * 3
    y = ours.double()(cygrad.from_numpy(xn.copy()))
    yt = theirs.double()(torch.tensor(xn))
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=1e-12, atol=1e-12)


def test_prelu_module_trains_per_channel(rng):
    torch = pytest.importorskip("torch")
    m, mt = nn.PReLU(3).double(), torch.nn.PReLU(3).double()
    xn = rng.standard_normal((5, 3, 2))
    m(cygrad.from_numpy(xn)).sum().backward()
    mt(torch.tensor(xn)).sum().backward()
    np.testing.assert_allclose(m.weight.grad.numpy(), mt.weight.grad.numpy(), rtol=1e-12)
    assert isinstance(m.weight, nn.Parameter) and tuple(m.weight.shape) == (3,)


def test_relu_keeps_its_old_call_forms():
    x = cygrad.tensor([-1.0, 2.0])
    assert F.relu(x).tolist() == [0.0, 2.0]
    assert F.sigmoid is cygrad.sigmoid and F.tanh is cygrad.tanh
    assert F.softmax(x, 0).tolist() == cygrad.softmax(x, 0).tolist()


@pytest.mark.parametrize("name", ["softmax", "log_softmax", "softmin"])
def test_softmax_without_dim_picks_pytorchs_implicit_dim(name):
    # nn.functional's forms (not cygrad.softmax) still accept a missing dim, with a warning
    x = cygrad.tensor(np.random.default_rng(0).standard_normal((2, 3)))
    with pytest.warns(UserWarning, match="Implicit dimension"):
        got = getattr(F, name)(x)
    np.testing.assert_allclose(got.numpy(), getattr(F, name)(x, dim=1).numpy())
