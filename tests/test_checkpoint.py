"""cygrad.utils.checkpoint: gradients equal the un-checkpointed ones (and PyTorch's on the
same weights), dropout replays its mask, activations are not kept, PyTorch's warnings."""
import gc
import warnings
import weakref

import numpy as np
import pytest

import cygrad
from cygrad import nn
from cygrad.utils.checkpoint import (checkpoint, checkpoint_sequential, detach_variable,
                                     get_device_states, CheckpointError, noop_context_fn)


def _net():
    cygrad.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 16), nn.Dropout(0.5), nn.ReLU(), nn.Linear(16, 4),
                         nn.Tanh()).double()


def _grads(net, x):
    return [p.grad.numpy().copy() for p in net.parameters()] + [x.grad.numpy().copy()]


@pytest.mark.parametrize("use_reentrant", [True, False])
def test_same_gradients_and_dropout_mask(use_reentrant, rng):
    net = _net()
    x = cygrad.from_numpy(rng.standard_normal((5, 4))).requires_grad_()
    state = cygrad.get_rng_state()
    net(x).pow(2).sum().backward()
    want = _grads(net, x)
    net.zero_grad()
    x.grad = None
    cygrad.set_rng_state(state)          # same dropout mask in the checkpointed forward
    y = checkpoint(net, x, use_reentrant=use_reentrant)
    y.pow(2).sum().backward()            # the recomputation must draw the same mask again
    for g, w in zip(_grads(net, x), want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_without_preserving_rng_the_mask_changes(rng):
    net = _net()
    x = cygrad.from_numpy(rng.standard_normal((5, 4))).requires_grad_()
    state = cygrad.get_rng_state()
    net(x).pow(2).sum().backward()
    want = _grads(net, x)
    net.zero_grad()
    x.grad = None
    cygrad.set_rng_state(state)
    checkpoint(net, x, use_reentrant=False, preserve_rng_state=False).pow(2).sum().backward()
    assert any(not np.allclose(g, w) for g, w in zip(_grads(net, x), want))


def test_matches_torch_on_the_same_weights(rng):
    torch = pytest.importorskip("torch", reason="compared with torch.utils.checkpoint")
    from torch.utils.checkpoint import checkpoint as tcheckpoint
    w1, w2 = rng.standard_normal((6, 4)), rng.standard_normal((3, 6))
    x = rng.standard_normal((5, 4))

    def run(ns, ckpt, reentrant):
        a = ns.from_numpy(w1.copy()).requires_grad_()
        b = ns.from_numpy(w2.copy()).requires_grad_()
        xi = ns.from_numpy(x.copy()).requires_grad_()
        y = ckpt(lambda t: (t @ a.T).tanh() @ b.T, xi, use_reentrant=reentrant)
        (y ** 2).sum().backward()
        return [t.grad.numpy() for t in (a, b, xi)]
    # torch's non-reentrant variant costs seconds on first use (it imports its compiler
    # stack); cygrad's non-reentrant gradients are checked against plain runs above
    for reentrant in (True,):
        for g, w in zip(run(cygrad, checkpoint, reentrant), run(torch, tcheckpoint, reentrant)):
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_non_reentrant_supports_autograd_grad_and_inputs_without_grad(rng):
    net = _net().eval()
    x = cygrad.from_numpy(rng.standard_normal((3, 4)))             # requires no grad
    y = checkpoint(net, x, use_reentrant=False)
    grads = cygrad.autograd.grad(y.sum(), list(net.parameters()))
    want = cygrad.autograd.grad(net(x).sum(), list(net.parameters()))
    for g, w in zip(grads, want):
        np.testing.assert_allclose(g.numpy(), w.numpy(), rtol=1e-12)
    # keyword arguments reach the function
    z = checkpoint(lambda t, scale=1.0: net(t) * scale, x, scale=2.0, use_reentrant=False)
    np.testing.assert_allclose(z.detach().numpy(), 2 * net(x).detach().numpy(), rtol=1e-12)


def test_activations_are_not_kept(rng):
    """The checkpointed function's intermediate tensors are freed after forward."""
    kept = []

    def block(t):
        h = t.exp()
        kept.append(weakref.ref(h))
        return h.sin()
    x = cygrad.from_numpy(rng.standard_normal(1000)).requires_grad_()
    for reentrant in (True, False):
        kept.clear()
        y = checkpoint(block, x, use_reentrant=reentrant)
        gc.collect(0)
        assert kept[0]() is None, "an intermediate activation is still alive"
        y.sum().backward()
        kept.clear()
        z = block(x)         # without checkpointing the graph keeps it
        gc.collect(0)
        assert kept[0]() is not None
        del z


def test_warnings_and_errors():
    x = cygrad.ones(3, requires_grad=True)
    with pytest.warns(UserWarning, match="use_reentrant parameter should be passed explicitly"):
        checkpoint(cygrad.sin, x)
    with pytest.warns(UserWarning, match="None of the inputs have requires_grad=True"):
        checkpoint(cygrad.sin, x.detach(), use_reentrant=True)
    with pytest.raises(ValueError, match="Unexpected keyword arguments"):
        checkpoint(cygrad.sin, x, use_reentrant=True, foo=1)
    with pytest.raises(TypeError):
        checkpoint(cygrad.sin, x, use_reentrant=False, foo=1)
    with pytest.warns(UserWarning, match="checkpoint_sequential: the use_reentrant parameter"):
        checkpoint_sequential([nn.ReLU()], 1, x)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        checkpoint(cygrad.sin, x, use_reentrant=False)


def test_checkpoint_sequential_matches_plain_run(rng):
    cygrad.manual_seed(1)
    net = nn.Sequential(*[m for _ in range(4) for m in (nn.Linear(6, 6), nn.GELU())]).double()
    x = cygrad.from_numpy(rng.standard_normal((2, 6))).requires_grad_()
    net(x).sum().backward()
    want = _grads(net, x)
    for reentrant in (True, False):
        net.zero_grad()
        x.grad = None
        out = checkpoint_sequential(net, 3, x, use_reentrant=reentrant)
        out.sum().backward()
        for g, w in zip(_grads(net, x), want):
            np.testing.assert_allclose(g, w, rtol=1e-12)


def test_helpers():
    x = cygrad.ones(2, requires_grad=True) * 2
    (d,) = detach_variable((x,))
    assert d.grad_fn is None and d.requires_grad
    with pytest.raises(RuntimeError, match="Only tuple"):
        detach_variable([x])
    assert get_device_states(x) == ([], [])
    assert issubclass(CheckpointError, RuntimeError)
    assert len(noop_context_fn()) == 2


def test_non_reentrant_double_backward_and_nesting(rng):
    x = cygrad.from_numpy(rng.standard_normal(3)).requires_grad_()
    y = checkpoint(lambda t: (t ** 3).sum(), x, use_reentrant=False)
    (g,) = cygrad.autograd.grad(y, x, create_graph=True)
    (h,) = cygrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), 6 * x.detach().numpy(), rtol=1e-12)
    w = cygrad.from_numpy(rng.standard_normal(3)).requires_grad_()

    def inner(t):
        return (t * w).exp()
    y = checkpoint(lambda t: checkpoint(inner, t * 2, use_reentrant=False).sum(), x,
                   use_reentrant=False)
    got = cygrad.autograd.grad(y, (x, w))
    want = cygrad.autograd.grad(inner(x * 2).sum(), (x, w))
    for a, b in zip(got, want):
        np.testing.assert_allclose(a.numpy(), b.numpy(), rtol=1e-12)
    # non-tensor outputs pass through
    a, idx, five = checkpoint(lambda t: ((t * w).sum(), t.argmax(), 5), x, use_reentrant=False)
    assert five == 5 and idx.item() == int(np.argmax(x.detach().numpy()))


def test_forward_mode_through_non_reentrant_checkpoint(rng):
    from cygrad.autograd import forward_ad as fw
    x = cygrad.from_numpy(rng.standard_normal(4))
    v = cygrad.from_numpy(rng.standard_normal(4))
    f = lambda t: (t.exp() * t.sin(), t.sum())                       # noqa: E731
    with fw.dual_level():
        outs = checkpoint(f, fw.make_dual(x, v), use_reentrant=False)
        got = [fw.unpack_dual(o).tangent.numpy() for o in outs]
    xn, vn = x.numpy(), v.numpy()
    want = [(np.exp(xn) * np.sin(xn) + np.exp(xn) * np.cos(xn)) * vn, vn.sum()]
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_determinism_check_and_context_fn():
    x = cygrad.ones(3, requires_grad=True)
    calls = []

    def shifty(t):                      # a different shape when recomputed
        calls.append(1)
        return t[: 4 - len(calls)] * 2
    y = checkpoint(shifty, x, use_reentrant=False)
    with pytest.raises(CheckpointError, match="different metadata"):
        y.sum().backward()
    y = checkpoint(cygrad.sin, x, use_reentrant=False, determinism_check="none")
    y.sum().backward()
    with pytest.raises(ValueError, match="determinism_check"):
        checkpoint(cygrad.sin, x, use_reentrant=False, determinism_check="x")
    entered = []

    def context_fn():
        import contextlib

        @contextlib.contextmanager
        def mark(name):
            entered.append(name)
            yield
        return mark("forward"), mark("recompute")
    checkpoint(cygrad.sin, x, use_reentrant=False, context_fn=context_fn).sum().backward()
    assert entered == ["forward", "recompute"]
    with pytest.raises(ValueError, match="context_fn"):
        checkpoint(cygrad.sin, x, use_reentrant=True, context_fn=context_fn)
