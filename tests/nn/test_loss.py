"""Losses (functional and Module forms) against PyTorch: values and gradients for
every reduction, class weights, ignore_index (including an all-ignored batch),
label smoothing, N-d inputs, extreme logits; gradcheck/gradgradcheck in float64,
forward-mode tangents against finite differences, error types and messages."""
import warnings

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck
import cygrad.autograd.forward_ad as fwAD

REDUCTIONS = ["none", "mean", "sum"]


def _pair(a):
    """(cygrad leaf, torch leaf) holding the same float64 values."""
    torch = pytest.importorskip("torch")
    return (cygrad.from_numpy(np.array(a, dtype=np.float64)).requires_grad_(),
            torch.tensor(np.array(a, dtype=np.float64), requires_grad=True))


def _compare(fn_ours, fn_torch, float_args, n_grad=None, rtol=1e-10, atol=1e-12):
    """Values, and gradients of the first ``n_grad`` float arguments (all by default),
    of one loss against PyTorch."""
    torch = pytest.importorskip("torch")
    pairs = [_pair(a) for a in float_args]
    n_grad = len(pairs) if n_grad is None else n_grad
    for ours, theirs in pairs[n_grad:]:
        ours.requires_grad_(False)
        theirs.requires_grad_(False)
    y = fn_ours(*[p[0] for p in pairs])
    yt = fn_torch(*[p[1] for p in pairs])
    np.testing.assert_allclose(y.detach().numpy(), yt.detach().numpy(), rtol=rtol, atol=atol,
                               equal_nan=True)
    g = np.random.default_rng(7).standard_normal(tuple(yt.shape))
    y.backward(cygrad.from_numpy(g))
    yt.backward(torch.tensor(g))
    for ours, theirs in pairs[:n_grad]:
        np.testing.assert_allclose(ours.grad.numpy(), theirs.grad.numpy(), rtol=rtol, atol=atol,
                                   equal_nan=True)


def _classes(rng, shape, n_classes, ignore=None, n_ignored=0):
    t = rng.integers(0, n_classes, shape)
    if n_ignored:
        t.flat[rng.choice(t.size, n_ignored, replace=False)] = ignore
    return t


CLASS_CASES = [
    # (input shape, n_ignored, use weight, kwargs)
    ((6, 5), 0, False, {}),
    ((6, 5), 2, False, {"ignore_index": 3}),
    ((6, 5), 2, False, {}),                              # -100 entries ignored
    ((6, 5), 0, True, {}),
    ((6, 5), 2, True, {"ignore_index": 1}),
    ((3, 4, 5), 3, True, {"ignore_index": 0}),
    ((2, 3, 4, 2), 2, False, {}),
    ((2, 3, 2, 2, 2), 0, True, {}),
    ((5,), 0, False, {}),
    ((5,), 0, True, {}),
    ((0, 5), 0, False, {}),
]


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("shape,n_ignored,use_weight,kwargs", CLASS_CASES)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_class_index_losses_match_torch(rng, name, shape, n_ignored, use_weight, kwargs,
                                        reduction):
    torch = pytest.importorskip("torch")
    n_classes = shape[0] if len(shape) == 1 else shape[1]
    tshape = () if len(shape) == 1 else (shape[0],) + shape[2:]
    t = _classes(rng, tshape, n_classes, kwargs.get("ignore_index", -100), n_ignored)
    w = rng.uniform(0.2, 2.0, n_classes)
    extra = {"reduction": reduction, **kwargs}
    _compare(lambda x: getattr(F, name)(x, cygrad.from_numpy(t),
                                        weight=cygrad.from_numpy(w) if use_weight else None,
                                        **extra),
             lambda x: getattr(torch.nn.functional, name)(x, torch.tensor(t),
                                                          weight=torch.tensor(w) if use_weight
                                                          else None, **extra),
             [rng.standard_normal(shape) * 3])


@pytest.mark.parametrize("smoothing", [0.35, 1.0])
@pytest.mark.parametrize("shape,n_ignored,use_weight,kwargs", CLASS_CASES[:8])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_label_smoothing_matches_torch(rng, smoothing, shape, n_ignored, use_weight, kwargs,
                                       reduction):
    torch = pytest.importorskip("torch")
    n_classes = shape[1]
    t = _classes(rng, (shape[0],) + shape[2:], n_classes, kwargs.get("ignore_index", -100),
                 n_ignored)
    w = rng.uniform(0.2, 2.0, n_classes)
    extra = {"reduction": reduction, "label_smoothing": smoothing, **kwargs}
    _compare(lambda x: F.cross_entropy(x, cygrad.from_numpy(t),
                                       weight=cygrad.from_numpy(w) if use_weight else None,
                                       **extra),
             lambda x: torch.nn.functional.cross_entropy(x, torch.tensor(t),
                                                         weight=torch.tensor(w) if use_weight
                                                         else None, **extra),
             [rng.standard_normal(shape) * 3])


@pytest.mark.parametrize("name", ["cross_entropy", "nll_loss"])
@pytest.mark.parametrize("use_weight", [False, True])
def test_all_ignored_batch_like_torch(name, use_weight):
    torch = pytest.importorskip("torch")
    x = np.random.default_rng(0).standard_normal((3, 4))
    w = np.array([1.0, 2.0, 3.0, 4.0])
    for reduction in REDUCTIONS:
        for smoothing in ([0.0, 0.2] if name == "cross_entropy" else [0.0]):
            extra = {"reduction": reduction}
            if smoothing:
                extra["label_smoothing"] = smoothing
            _compare(lambda x: getattr(F, name)(x, cygrad.tensor([-100, -100, -100]),
                                                weight=cygrad.from_numpy(w) if use_weight
                                                else None, **extra),
                     lambda x: getattr(torch.nn.functional, name)(
                         x, torch.tensor([-100, -100, -100]),
                         weight=torch.tensor(w) if use_weight else None, **extra), [x])
    assert np.isnan(F.cross_entropy(cygrad.from_numpy(x), cygrad.tensor([-100] * 3)).item())


def test_cross_entropy_extreme_logits_are_finite_and_exact():
    torch = pytest.importorskip("torch")
    x = np.array([[1e4, 0.0, -1e4], [-1e4, 1e4, 0.0], [50.0, 50.0, 50.0], [-3e38, 0.0, 3e38]])
    t = np.array([2, 1, 0, 0])
    for smoothing in (0.0, 0.1):
        _compare(lambda x: F.cross_entropy(x, cygrad.from_numpy(t), reduction="none",
                                           label_smoothing=smoothing),
                 lambda x: torch.nn.functional.cross_entropy(
                     x, torch.tensor(t), reduction="none", label_smoothing=smoothing), [x])
    xf = cygrad.tensor(x[:3].astype(np.float32), requires_grad=True)
    loss = F.cross_entropy(xf, cygrad.from_numpy(t[:3]))
    loss.backward()
    assert np.isfinite(loss.item()) and np.isfinite(xf.grad.numpy()).all()


@pytest.mark.parametrize("smoothing", [0.0, 0.25])
@pytest.mark.parametrize("use_weight", [False, True])
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 4), (3,)])
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_probability_targets_match_torch(rng, smoothing, use_weight, shape, reduction):
    torch = pytest.importorskip("torch")
    class_dim = 1 if len(shape) > 1 else 0
    p = rng.random(shape)
    p = p / p.sum(class_dim, keepdims=True)
    w = rng.uniform(0.2, 2.0, shape[class_dim])
    extra = {"reduction": reduction, "label_smoothing": smoothing}
    # gradients with respect to both the logits and the target probabilities
    _compare(lambda x, t: F.cross_entropy(x, t, weight=cygrad.from_numpy(w) if use_weight
                                          else None, **extra),
             lambda x, t: torch.nn.functional.cross_entropy(
                 x, t, weight=torch.tensor(w) if use_weight else None, **extra),
             [rng.standard_normal(shape) * 2, p])


def test_cross_entropy_gradient_is_softmax_minus_onehot(rng):
    x = rng.standard_normal((6, 5))
    t = rng.integers(0, 5, 6)
    xc = cygrad.from_numpy(x).requires_grad_()
    F.cross_entropy(xc, cygrad.from_numpy(t), reduction="sum").backward()
    softmax = np.exp(x - x.max(1, keepdims=True))
    softmax /= softmax.sum(1, keepdims=True)
    np.testing.assert_allclose(xc.grad.numpy(), softmax - np.eye(5)[t], rtol=1e-12, atol=1e-15)
    assert type(F.cross_entropy(xc, cygrad.from_numpy(t)).grad_fn).__name__ == "NllLossBackward0"


GRAD_CASES = [
    ("cross_entropy", {}), ("cross_entropy", {"reduction": "none"}),
    ("cross_entropy", {"ignore_index": 1}), ("cross_entropy", {"label_smoothing": 0.2}),
    ("cross_entropy", {"label_smoothing": 0.2, "weight": True, "ignore_index": 2,
                       "reduction": "sum"}),
    ("nll_loss", {}), ("nll_loss", {"weight": True, "ignore_index": 0, "reduction": "none"}),
]


@pytest.mark.parametrize("name,kwargs", GRAD_CASES)
@pytest.mark.parametrize("shape", [(4, 3), (2, 3, 2)])
def test_class_losses_gradcheck_and_forward_mode(rng, name, kwargs, shape):
    kwargs = dict(kwargs)
    if kwargs.pop("weight", False):
        kwargs["weight"] = cygrad.from_numpy(rng.uniform(0.5, 2.0, 3))
    t = cygrad.from_numpy(_classes(rng, (shape[0],) + shape[2:], 3, kwargs.get("ignore_index"),
                                   1 if "ignore_index" in kwargs else 0))
    fn = lambda x: getattr(F, name)(x, t, **kwargs)   # noqa: E731
    x = cygrad.from_numpy(rng.standard_normal(shape)).requires_grad_()
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))
    v = cygrad.from_numpy(rng.standard_normal(shape))
    x0 = x.detach()
    with fwAD.dual_level():
        tangent = fwAD.unpack_dual(fn(fwAD.make_dual(x0, v))).tangent
    fd = (fn(x0 + 1e-6 * v) - fn(x0 - 1e-6 * v)) / 2e-6
    np.testing.assert_allclose(tangent.numpy(), fd.numpy(), rtol=1e-6, atol=1e-8)


@pytest.mark.parametrize("call", [
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([0, 1, 5])),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([0, 1, -3])),
    lambda f, m: f.nll_loss(m.ones(3, 4), m.tensor([0, 4, 1])),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([0, 1])),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([0.0, 1.0, 2.0])),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.zeros(3, 4, dtype=m.int64)),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.zeros(3, 5)),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([0, 1, 2]), weight=m.ones(3)),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([[0, 1, 2]])),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([0, 1, 2]), reduction="bad"),
    lambda f, m: f.cross_entropy(m.ones(3, 4), m.tensor([0, 1, 2]), label_smoothing=1.5),
    lambda f, m: f.nll_loss(m.ones(3, 4, 5), m.zeros(3, 2, dtype=m.int64)),
    lambda f, m: f.nll_loss(m.ones(2, 3, 4, 5), m.zeros(2, 4, 4, dtype=m.int64)),
    lambda f, m: f.cross_entropy(m.ones(2, 3, 4), m.zeros(2, 3, dtype=m.int64)),
    lambda f, m: f.nll_loss(m.ones(3, 4, dtype=m.int32), m.tensor([1, 1, 1])),
    lambda f, m: f.cross_entropy(m.ones(3, 4, dtype=m.int32), m.tensor([1, 1, 1])),
    lambda f, m: f.binary_cross_entropy(m.tensor([0.5, 1.5]), m.tensor([0.0, 1.0])),
    lambda f, m: f.binary_cross_entropy(m.tensor([[0.5], [0.5]]), m.tensor([0.0, 1.0])),
    lambda f, m: f.binary_cross_entropy_with_logits(m.ones(2, 1), m.ones(2)),
    lambda f, m: f.smooth_l1_loss(m.ones(2), m.ones(2), beta=-1.0),
    lambda f, m: f.kl_div(m.ones(2), m.ones(2), reduction="bad"),
    lambda f, m: f.triplet_margin_loss(m.ones(2, 3), m.ones(3), m.ones(2, 3)),
    lambda f, m: f.triplet_margin_loss(m.ones(2, 3), m.ones(2, 3), m.ones(2, 3), margin=0.0),
    lambda f, m: f.margin_ranking_loss(m.ones(2), m.ones(2, 1), m.ones(2)),
    lambda f, m: f.cosine_embedding_loss(m.ones(2, 3), m.ones(2, 3), m.ones(())),
    lambda f, m: f.cosine_embedding_loss(m.ones(3), m.ones(3), m.ones(2)),
    lambda f, m: f.multi_margin_loss(m.ones(2, 3), m.tensor([0, 1]), p=3),
    lambda f, m: f.gaussian_nll_loss(m.ones(2, 3), m.ones(2, 3), m.ones(3, 3)),
    lambda f, m: f.gaussian_nll_loss(m.ones(2), m.ones(2), -m.ones(2)),
], ids=lambda c: "")
def test_errors_match_torch(call):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        call(torch.nn.functional, torch)
    with pytest.raises(type(theirs.value)) as ours:
        call(F, cygrad)
    assert str(ours.value).replace("cygrad", "torch") == str(theirs.value)


def _targets_pm1(rng, shape):
    return np.where(rng.random(shape) < 0.5, -1.0, 1.0)


# (name, float args maker, integer/other args maker, kwargs); float args get gradients.
POINTWISE_LOSSES = [
    ("mse_loss", lambda r: [r.standard_normal((4, 3)), r.standard_normal((4, 3))], {}),
    ("l1_loss", lambda r: [r.standard_normal((4, 3)), r.standard_normal((4, 3))], {}),
    ("smooth_l1_loss", lambda r: [r.standard_normal((4, 3)) * 2, r.standard_normal((4, 3))], {}),
    ("smooth_l1_loss", lambda r: [r.standard_normal((4, 3)) * 2, r.standard_normal((4, 3))],
     {"beta": 0.5}),
    ("smooth_l1_loss", lambda r: [r.standard_normal((4, 3)), r.standard_normal((4, 3))],
     {"beta": 0.0}),
    ("huber_loss", lambda r: [r.standard_normal((4, 3)) * 2, r.standard_normal((4, 3))], {}),
    ("huber_loss", lambda r: [r.standard_normal((4, 3)) * 2, r.standard_normal((4, 3))],
     {"delta": 0.3}),
    ("binary_cross_entropy", lambda r: [r.uniform(0.05, 0.95, (4, 3)), r.random((4, 3))], {}),
    ("binary_cross_entropy_with_logits",
     lambda r: [r.standard_normal((4, 3)) * 3, r.random((4, 3))], {}),
    ("kl_div", lambda r: [np.log(r.dirichlet(np.ones(3), 4)), r.dirichlet(np.ones(3), 4)],
     {"reduction": "batchmean"}),
    ("kl_div", lambda r: [np.log(r.dirichlet(np.ones(3), 4)), np.log(r.dirichlet(np.ones(3), 4))],
     {"log_target": True}),
    ("poisson_nll_loss", lambda r: [r.standard_normal((4, 3)), r.poisson(2.0, (4, 3)) * 1.0],
     {}),
    ("poisson_nll_loss", lambda r: [r.uniform(0.5, 3, (4, 3)), r.poisson(2.0, (4, 3)) * 1.0],
     {"log_input": False, "full": True}),
    ("gaussian_nll_loss", lambda r: [r.standard_normal((4, 3)), r.standard_normal((4, 3)),
                                     r.uniform(0.5, 2, (4, 3))], {"full": True}),
    ("gaussian_nll_loss", lambda r: [r.standard_normal((4, 3)), r.standard_normal((4, 3)),
                                     r.uniform(0.5, 2, (4,))], {}),
    ("soft_margin_loss", lambda r: [r.standard_normal((4, 3)), _targets_pm1(r, (4, 3))], {}),
    ("multilabel_soft_margin_loss", lambda r: [r.standard_normal((4, 3)),
                                               (r.random((4, 3)) < 0.5) * 1.0], {}),
    ("hinge_embedding_loss", lambda r: [r.standard_normal((4, 3)), _targets_pm1(r, (4, 3))],
     {"margin": 0.7}),
    ("margin_ranking_loss", lambda r: [r.standard_normal(5), r.standard_normal(5),
                                       _targets_pm1(r, 5)], {"margin": 0.3}),
    ("cosine_embedding_loss", lambda r: [r.standard_normal((5, 3)), r.standard_normal((5, 3)),
                                         _targets_pm1(r, 5)], {"margin": 0.2}),
    ("cosine_embedding_loss", lambda r: [r.standard_normal(3), r.standard_normal(3),
                                         np.array(-1.0)], {}),
    ("triplet_margin_loss", lambda r: [r.standard_normal((5, 3)), r.standard_normal((5, 3)),
                                       r.standard_normal((5, 3))], {}),
    ("triplet_margin_loss", lambda r: [r.standard_normal((5, 3)), r.standard_normal((5, 3)),
                                       r.standard_normal((5, 3))],
     {"p": 1.0, "swap": True, "margin": 3.0}),
]
PW_IDS = [f"{n}{k}" for n, _, k in POINTWISE_LOSSES]
# PyTorch does not differentiate these losses with respect to the target (the last
# argument); Poisson's full form gives it nan target gradients at target 0.
NO_TARGET_GRAD = {"soft_margin_loss", "hinge_embedding_loss", "margin_ranking_loss",
                  "cosine_embedding_loss", "poisson_nll_loss"}


@pytest.mark.parametrize("name,make,kwargs", POINTWISE_LOSSES, ids=PW_IDS)
@pytest.mark.parametrize("reduction", REDUCTIONS)
def test_losses_match_torch(rng, name, make, kwargs, reduction):
    torch = pytest.importorskip("torch")
    kwargs = {"reduction": reduction, **kwargs} if "reduction" not in kwargs else kwargs
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")     # kl_div's 'mean' warning, checked elsewhere
        args = make(rng)
        _compare(lambda *a: getattr(F, name)(*a, **kwargs),
                 lambda *a: getattr(torch.nn.functional, name)(*a, **kwargs), args,
                 n_grad=len(args) - 1 if name in NO_TARGET_GRAD else None)


@pytest.mark.parametrize("name,make,kwargs", POINTWISE_LOSSES, ids=PW_IDS)
def test_losses_gradcheck(rng, name, make, kwargs):
    args = [cygrad.from_numpy(np.asarray(a, dtype=np.float64)).requires_grad_()
            for a in make(rng)]
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        fn = lambda *a: getattr(F, name)(*a, **kwargs)   # noqa: E731
        if name in ("binary_cross_entropy", "kl_div", "poisson_nll_loss"):
            # keep probabilities inside (0, 1) and counts integral under the steps
            assert gradcheck(lambda x: fn(x, args[1].detach()), (args[0],))
        elif name in ("margin_ranking_loss", "cosine_embedding_loss", "hinge_embedding_loss",
                      "soft_margin_loss"):
            assert gradcheck(lambda *a: fn(*a, args[-1].detach()), tuple(args[:-1]))
        else:
            assert gradcheck(fn, tuple(args))


def test_weighted_binary_losses_match_torch(rng):
    torch = pytest.importorskip("torch")
    w = rng.uniform(0.5, 2, 3)
    pw = rng.uniform(0.5, 3, 3)
    for reduction in REDUCTIONS:
        _compare(lambda x, t: F.binary_cross_entropy(x, t, weight=cygrad.from_numpy(w),
                                                     reduction=reduction),
                 lambda x, t: torch.nn.functional.binary_cross_entropy(
                     x, t, weight=torch.tensor(w), reduction=reduction),
                 [rng.uniform(0.05, 0.95, (4, 3)), rng.random((4, 3))])
        # gradients for the logits, the targets and pos_weight
        _compare(lambda x, t, p: F.binary_cross_entropy_with_logits(
                     x, t, weight=cygrad.from_numpy(w), pos_weight=p, reduction=reduction),
                 lambda x, t, p: torch.nn.functional.binary_cross_entropy_with_logits(
                     x, t, weight=torch.tensor(w), pos_weight=p, reduction=reduction),
                 [rng.standard_normal((4, 3)) * 3, rng.random((4, 3)), pw], n_grad=2)
    x, t, p = (cygrad.from_numpy(a).requires_grad_()
               for a in (rng.standard_normal((3, 2)), rng.random((3, 2)), rng.uniform(1, 2, 2)))
    assert gradcheck(lambda *a: F.binary_cross_entropy_with_logits(a[0], a[1], pos_weight=a[2]),
                     (x, t, p))
    assert gradgradcheck(lambda a: F.binary_cross_entropy_with_logits(a, t.detach(),
                                                                      pos_weight=p.detach()),
                         (x,))


def test_binary_losses_at_the_edges_like_torch():
    torch = pytest.importorskip("torch")
    # BCE's logs are clamped at -100: p in {0, 1} gives 100, never inf
    _compare(lambda x, t: F.binary_cross_entropy(x, t, reduction="none"),
             lambda x, t: torch.nn.functional.binary_cross_entropy(x, t, reduction="none"),
             [[0.0, 1.0, 0.0, 1.0, 1e-30], [1.0, 0.0, 0.0, 1.0, 1.0]], n_grad=1, rtol=1e-7)
    # The target's gradient is that of the clamped forward (finite); PyTorch's
    # leaves its logs unclamped there (inf), so it is checked against the formula.
    x = cygrad.tensor([0.0, 1.0, 0.5], dtype=cygrad.float64)
    t = cygrad.tensor([1.0, 0.0, 0.2], dtype=cygrad.float64, requires_grad=True)
    F.binary_cross_entropy(x, t, reduction="sum").backward()
    np.testing.assert_allclose(t.grad.numpy(), [100.0, -100.0, 0.0], atol=1e-12)
    # logits of any size stay finite with the stable formula
    x = [-1e4, -500.0, -30.0, 0.0, 30.0, 500.0, 1e4]
    _compare(lambda x, t: F.binary_cross_entropy_with_logits(x, t, reduction="none"),
             lambda x, t: torch.nn.functional.binary_cross_entropy_with_logits(
                 x, t, reduction="none"), [x, [1.0, 0.0, 1.0, 0.5, 0.0, 1.0, 0.0]])


def test_kl_div_zero_targets_and_mean_warning():
    torch = pytest.importorskip("torch")
    x, t = np.log([[0.2, 0.3, 0.5]]), np.array([[0.0, 0.4, 0.6]])
    # (PyTorch's target gradient is nan at target 0; only the input's is compared)
    _compare(lambda x, t: F.kl_div(x, t, reduction="sum"),
             lambda x, t: torch.nn.functional.kl_div(x, t, reduction="sum"), [x, t], n_grad=1)
    with pytest.warns(UserWarning, match="'batchmean' divides only by the batch size"):
        F.kl_div(cygrad.from_numpy(x), cygrad.from_numpy(t))


def test_size_mismatch_warns_and_broadcasts():
    torch = pytest.importorskip("torch")
    for name in ("mse_loss", "l1_loss", "smooth_l1_loss", "huber_loss"):
        with pytest.warns(UserWarning) as ours:
            y = getattr(F, name)(cygrad.ones(3, 1), cygrad.tensor([0.0, 1.0, 2.0]))
        with pytest.warns(UserWarning) as theirs:
            yt = getattr(torch.nn.functional, name)(torch.ones(3, 1), torch.tensor([0.0, 1, 2]))
        assert str(ours[0].message) == str(theirs[0].message)
        assert np.isclose(y.item(), yt.item())


def test_multi_margin_loss_matches_torch(rng):
    torch = pytest.importorskip("torch")
    t = rng.integers(0, 4, 5)
    w = rng.uniform(0.5, 2, 4)
    for p in (1, 2):
        for reduction in REDUCTIONS:
            for weight in (None, w):
                _compare(lambda x: F.multi_margin_loss(
                             x, cygrad.from_numpy(t), p=p, margin=0.7, reduction=reduction,
                             weight=None if weight is None else cygrad.from_numpy(weight)),
                         lambda x: torch.nn.functional.multi_margin_loss(
                             x, torch.tensor(t), p=p, margin=0.7, reduction=reduction,
                             weight=None if weight is None else torch.tensor(weight)),
                         [rng.standard_normal((5, 4))])
    _compare(lambda x: F.multi_margin_loss(x, cygrad.tensor(2)),
             lambda x: torch.nn.functional.multi_margin_loss(x, torch.tensor(2)),
             [rng.standard_normal(4)])


LOSS_MODULES = [
    ("L1Loss", {}), ("MSELoss", {"reduction": "sum"}), ("SmoothL1Loss", {"beta": 0.5}),
    ("HuberLoss", {"delta": 2.0}), ("NLLLoss", {"weight": "W", "ignore_index": 1}),
    ("CrossEntropyLoss", {"weight": "W", "label_smoothing": 0.1}), ("BCELoss", {"weight": "W"}),
    ("BCEWithLogitsLoss", {"weight": "W", "pos_weight": "W"}), ("BCEWithLogitsLoss", {}),
    ("KLDivLoss", {"reduction": "batchmean"}), ("PoissonNLLLoss", {"full": True}),
    ("GaussianNLLLoss", {"eps": 1e-3}), ("CosineEmbeddingLoss", {"margin": 0.1}),
    ("MarginRankingLoss", {}), ("HingeEmbeddingLoss", {}), ("SoftMarginLoss", {}),
    ("MultiLabelSoftMarginLoss", {"weight": "W"}), ("MultiMarginLoss", {"p": 2}),
    ("TripletMarginLoss", {"swap": True}),
]


@pytest.mark.parametrize("name,kwargs", LOSS_MODULES, ids=[n for n, _ in LOSS_MODULES])
def test_loss_modules_match_torch(rng, name, kwargs):
    torch = pytest.importorskip("torch")
    w = rng.uniform(0.5, 2, 3)
    # "W": a weight tensor of 3 classes
    ours_kw = {k: cygrad.from_numpy(w) if v == "W" else v for k, v in kwargs.items()}
    theirs_kw = {k: torch.tensor(w) if v == "W" else v for k, v in kwargs.items()}
    ours, theirs = getattr(nn, name)(**ours_kw), getattr(torch.nn, name)(**theirs_kw)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict())
    assert ours.reduction == theirs.reduction
    x = rng.standard_normal((4, 3))
    if name in ("NLLLoss", "CrossEntropyLoss", "MultiMarginLoss"):
        args = [x, rng.integers(0, 3, 4)]
    elif name in ("BCELoss",):
        args = [rng.uniform(0.1, 0.9, (4, 3)), rng.random((4, 3))]
    elif name in ("CosineEmbeddingLoss", "MarginRankingLoss"):
        args = [x, rng.standard_normal((4, 3)), _targets_pm1(rng, 4 if name[0] == "C" else (4, 3))]
    elif name in ("GaussianNLLLoss", "TripletMarginLoss"):
        args = [x, rng.standard_normal((4, 3)), rng.uniform(0.5, 2, (4, 3))]
    elif name in ("HingeEmbeddingLoss", "SoftMarginLoss"):
        args = [x, _targets_pm1(rng, (4, 3))]
    else:
        args = [x, rng.random((4, 3))]
    y = ours(*[cygrad.from_numpy(a) for a in args])
    yt = theirs(*[torch.tensor(a) for a in args])
    np.testing.assert_allclose(y.numpy(), yt.numpy(), rtol=1e-10)


def test_deprecated_size_average_and_reduce_map_like_torch(rng):
    torch = pytest.importorskip("torch")
    x, t = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    for size_average, reduce in [(False, None), (None, False), (True, True), (False, True)]:
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            ours = F.mse_loss(cygrad.from_numpy(x), cygrad.from_numpy(t), size_average, reduce)
            theirs = torch.nn.functional.mse_loss(torch.tensor(x), torch.tensor(t), size_average,
                                                  reduce)
            module = nn.L1Loss(size_average, reduce)
            module_t = torch.nn.L1Loss(size_average, reduce)
        np.testing.assert_allclose(ours.numpy(), theirs.numpy(), rtol=1e-12)
        assert module.reduction == module_t.reduction


def test_training_step_with_cross_entropy_reduces_the_loss(rng):
    """A small classifier trained with CrossEntropyLoss: the loss falls."""
    cygrad.manual_seed(0)
    x = cygrad.from_numpy(rng.standard_normal((64, 5)).astype(np.float32))
    y = cygrad.from_numpy((rng.standard_normal((64, 5)) @ rng.standard_normal(5) > 0)
                          .astype(np.int64))
    model = nn.Sequential(nn.Linear(5, 16), nn.GELU(), nn.Linear(16, 2))
    opt = cygrad.optim.Adam(model.parameters(), lr=0.05)
    criterion = nn.CrossEntropyLoss()
    first = None
    for _ in range(40):
        opt.zero_grad()
        loss = criterion(model(x), y)
        loss.backward()
        opt.step()
        first = loss.item() if first is None else first
    assert loss.item() < 0.5 * first
