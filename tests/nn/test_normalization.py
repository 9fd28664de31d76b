"""batch_norm / layer_norm / group_norm and BatchNorm*, LayerNorm, GroupNorm: values,
gradients and running statistics against PyTorch, gradcheck/gradgradcheck in float64."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close, copy_state


def _leaf(rng, *shape):
    return cygrad.from_numpy(rng.standard_normal(shape)).requires_grad_()


def _functional_pairs():
    return [
        ("batch_norm", lambda m, x, w, b: m.batch_norm(x, None, None, w, b, True), (4, 3, 5), 3),
        ("batch_norm_2d", lambda m, x, w, b: m.batch_norm(x, None, None, w, b, True), (3, 2), 2),
        ("layer_norm", lambda m, x, w, b: m.layer_norm(x, (5,), w, b), (4, 3, 5), 5),
        ("group_norm", lambda m, x, w, b: m.group_norm(x, 3, w, b), (2, 6, 4), 6),
    ]


@pytest.mark.parametrize("name,fn,shape,nparam", _functional_pairs())
def test_values_and_gradients_match_torch(rng, name, fn, shape, nparam):
    torch = pytest.importorskip("torch")
    x, w, b = rng.standard_normal(shape), rng.standard_normal(nparam), rng.standard_normal(nparam)
    g = rng.standard_normal(shape)
    cy = [cygrad.tensor(a, requires_grad=True) for a in (x, w, b)]
    th = [torch.tensor(a, requires_grad=True) for a in (x, w, b)]
    out_c, out_t = fn(F, *cy), fn(torch.nn.functional, *th)
    close(out_c, out_t, atol=1e-10)
    grads_c = cygrad.autograd.grad(out_c, cy, cygrad.tensor(g))
    grads_t = torch.autograd.grad(out_t, th, torch.tensor(g))
    for a, b in zip(grads_c, grads_t):
        close(a, b, atol=1e-10)


@pytest.mark.parametrize("name,fn,shape,nparam", _functional_pairs())
def test_gradcheck_and_gradgradcheck(rng, name, fn, shape, nparam):
    args = (_leaf(rng, *shape), _leaf(rng, nparam), _leaf(rng, nparam))
    f = lambda x, w, b: fn(F, x, w, b)  # noqa: E731
    assert gradcheck(f, args, check_forward_ad=True)
    assert gradgradcheck(f, args)
    assert gradcheck(lambda x: fn(F, x, None, None), (args[0],))


def test_node_names(rng):
    x = _leaf(rng, 2, 3, 4)
    assert type(F.batch_norm(x, None, None, training=True).grad_fn).__name__ == \
        "NativeBatchNormBackward0"
    assert type(F.layer_norm(x, (4,)).grad_fn).__name__ == "NativeLayerNormBackward0"
    assert type(F.group_norm(x, 3).grad_fn).__name__ == "NativeGroupNormBackward0"


def test_batch_norm_eval_uses_running_stats_and_gradcheck(rng):
    rm, rv = cygrad.tensor(rng.standard_normal(3)), cygrad.tensor(rng.random(3) + 0.5)
    x = rng.standard_normal((4, 3, 2))
    out = F.batch_norm(cygrad.tensor(x), rm, rv, eps=1e-5)
    expected = (x - rm.numpy()[:, None]) / np.sqrt(rv.numpy()[:, None] + 1e-5)
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    f = lambda x, w, b: F.batch_norm(x, rm, rv, w, b, training=False)  # noqa: E731
    args = (_leaf(rng, 4, 3, 2), _leaf(rng, 3), _leaf(rng, 3))
    assert gradcheck(f, args, check_forward_ad=True)
    assert gradgradcheck(f, args)


def test_layer_norm_is_stable_for_large_offsets():
    x = cygrad.tensor([[1e4 + 1.0, 1e4 + 2.0, 1e4 + 3.0]], dtype=cygrad.float32)
    np.testing.assert_allclose(F.layer_norm(x, (3,)).numpy(), [[-1.2247, 0.0, 1.2247]],
                               atol=1e-3)


@pytest.mark.parametrize("momentum", [0.1, 0.5, None])
@pytest.mark.parametrize("cls,shape", [("BatchNorm1d", (6, 3)), ("BatchNorm1d", (4, 3, 5)),
                                        ("BatchNorm2d", (4, 3, 2, 2)),
                                        ("BatchNorm3d", (2, 3, 2, 2, 2))])
def test_batchnorm_running_stats_over_three_steps(rng, momentum, cls, shape):
    torch = pytest.importorskip("torch")
    c, t = getattr(nn, cls)(3, momentum=momentum), getattr(torch.nn, cls)(3, momentum=momentum)
    copy_state(c, t)
    for _ in range(3):
        x = rng.standard_normal(shape).astype(np.float32) * 2 + 1
        close(c(cygrad.tensor(x)), t(torch.tensor(x)))
    for k, v in t.state_dict().items():
        close(c.state_dict()[k], v, atol=1e-6)
    c.eval(), t.eval()
    x = rng.standard_normal(shape).astype(np.float32)
    close(c(cygrad.tensor(x)), t(torch.tensor(x)))
    assert c.num_batches_tracked.item() == 3


def test_batchnorm_without_running_stats_or_affine(rng):
    torch = pytest.importorskip("torch")
    c = nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    t = torch.nn.BatchNorm1d(3, affine=False, track_running_stats=False)
    assert list(c.state_dict()) == list(t.state_dict()) == []
    x = rng.standard_normal((5, 3)).astype(np.float32)
    c.eval(), t.eval()     # still batch statistics: there are no running ones
    close(c(cygrad.tensor(x)), t(torch.tensor(x)))


def test_batchnorm_train_and_eval_differ(rng):
    bn = nn.BatchNorm1d(2)
    x = cygrad.tensor(rng.standard_normal((8, 2)).astype(np.float32) * 3 + 5)
    train_out = bn(x)
    np.testing.assert_allclose(train_out.mean(0).detach().numpy(), 0, atol=1e-5)
    bn.eval()
    assert not np.allclose(bn(x).detach().numpy(), train_out.detach().numpy(), atol=1e-2)


def test_batchnorm_gradients_match_torch(rng):
    torch = pytest.importorskip("torch")
    c, t = nn.BatchNorm2d(3), torch.nn.BatchNorm2d(3)
    copy_state(c, t)
    x = rng.standard_normal((2, 3, 4, 4)).astype(np.float32)
    xc, xt = cygrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    (c(xc) ** 3).sum().backward()
    (t(xt) ** 3).sum().backward()
    close(xc.grad, xt.grad, atol=1e-4)
    close(c.weight.grad, t.weight.grad, atol=1e-4)
    close(c.bias.grad, t.bias.grad, atol=1e-4)


@pytest.mark.parametrize("kwargs", [{}, {"elementwise_affine": False}, {"bias": False}])
def test_layernorm_module(rng, kwargs):
    torch = pytest.importorskip("torch")
    c, t = nn.LayerNorm((3, 4), **kwargs), torch.nn.LayerNorm((3, 4), **kwargs)
    copy_state(c, t)
    assert repr(c) == repr(t)
    x = rng.standard_normal((2, 3, 4)).astype(np.float32)
    close(c(cygrad.tensor(x)), t(torch.tensor(x)))


@pytest.mark.parametrize("kwargs", [{}, {"affine": False}, {"bias": False}])
def test_groupnorm_module(rng, kwargs):
    torch = pytest.importorskip("torch")
    c, t = nn.GroupNorm(2, 4, **kwargs), torch.nn.GroupNorm(2, 4, **kwargs)
    copy_state(c, t)
    assert repr(c) == repr(t)
    x = rng.standard_normal((3, 4, 5)).astype(np.float32)
    close(c(cygrad.tensor(x)), t(torch.tensor(x)))


def test_state_dict_keys_and_reprs_match_torch():
    torch = pytest.importorskip("torch")
    for args in [("BatchNorm1d", 3), ("BatchNorm2d", 4), ("BatchNorm3d", 2)]:
        c, t = getattr(nn, args[0])(args[1]), getattr(torch.nn, args[0])(args[1])
        assert list(c.state_dict()) == list(t.state_dict())
        assert repr(c) == repr(t)
        assert c.num_batches_tracked.dtype == cygrad.int64
    assert repr(nn.BatchNorm1d(3, momentum=None)) == repr(torch.nn.BatchNorm1d(3, momentum=None))
    assert list(nn.BatchNorm1d(3, bias=False).state_dict()) == \
        list(torch.nn.BatchNorm1d(3, bias=False).state_dict())


def _error(fn):
    try:
        fn()
    except Exception as exc:  # noqa: BLE001 - compared by type and text below
        return type(exc), str(exc)
    return None


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        lambda m, T: m.nn.functional.batch_norm(T.ones(1, 3), T.zeros(3), T.ones(3), training=True),
        lambda m, T: m.nn.functional.batch_norm(T.ones(2, 3), T.zeros(4), T.ones(4), training=True),
        lambda m, T: m.nn.functional.batch_norm(T.ones(2, 3), T.zeros(3), T.ones(3),
                                                weight=T.ones(4)),
        lambda m, T: m.nn.functional.layer_norm(T.ones(2, 3), (4,)),
        lambda m, T: m.nn.functional.layer_norm(T.ones(2, 3), (3,), weight=T.ones(4)),
        lambda m, T: m.nn.functional.group_norm(T.ones(2, 3, 4), 2),
        lambda m, T: m.nn.GroupNorm(2, 3),
        lambda m, T: m.nn.BatchNorm1d(3)(T.ones(2, 3, 4, 5)),
        lambda m, T: m.nn.BatchNorm2d(3)(T.ones(2, 3, 4)),
    ]
    for case in cases:
        got = _error(lambda: case(cygrad, cygrad))
        want = _error(lambda: case(torch, torch))
        assert want is not None
        assert got[0] is want[0]
        assert got[1] == want[1].replace("torch.", "cygrad.")
