"""Selective activation checkpointing: gradients equal plain training, saved ops do not run
again in backward (counted on the op's own Function), dropout, PyTorch's errors."""
import functools

import numpy as np
import pytest

import cygrad
from cygrad import nn
import cygrad.nn.functional as F
from cygrad.ops.linalg import Mm
from cygrad.utils.checkpoint import (checkpoint, CheckpointPolicy, SAC_IGNORED_OPS,
                                     create_selective_checkpoint_contexts)


def _ctx(policy, **kw):
    return functools.partial(create_selective_checkpoint_contexts, policy, **kw)


def _net():
    cygrad.manual_seed(0)
    return nn.Sequential(nn.Linear(4, 16), nn.Dropout(0.5), nn.GELU(), nn.Linear(16, 4),
                         nn.Tanh()).double()


def _grads(net, x):
    return [p.grad.numpy().copy() for p in net.parameters()] + [x.grad.numpy().copy()]


def _save_mm(ctx, op, *args, **kwargs):
    return CheckpointPolicy.MUST_SAVE if op == cygrad.matmul else \
        CheckpointPolicy.PREFER_RECOMPUTE


@pytest.mark.parametrize("policy", [[F.linear], [F.dropout, cygrad.tanh], _save_mm,
                                    lambda ctx, op, *a, **k: True])
def test_values_and_gradients_equal_plain_training(policy, rng):
    net = _net()
    x = cygrad.from_numpy(rng.standard_normal((5, 4))).requires_grad_()
    state = cygrad.get_rng_state()
    want_y = net(x)
    want_y.pow(2).sum().backward()
    want = _grads(net, x)
    net.zero_grad()
    x.grad = None
    cygrad.set_rng_state(state)          # same dropout mask as the plain forward
    y = checkpoint(net, x, use_reentrant=False, context_fn=_ctx(policy))
    np.testing.assert_allclose(y.detach().numpy(), want_y.detach().numpy(), rtol=1e-13)
    y.pow(2).sum().backward()
    for g, w in zip(_grads(net, x), want):
        np.testing.assert_allclose(g, w, rtol=1e-12, atol=1e-14)


def test_gradients_match_pytorch_sac():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    from torch.utils.checkpoint import (checkpoint as tcheckpoint,
                                        create_selective_checkpoint_contexts as tcreate)
    a = np.random.default_rng(1).standard_normal((3, 5))
    b = np.random.default_rng(2).standard_normal((5, 5))

    def run(lib, ck, create, ops):
        x = lib.tensor(a, requires_grad=True)
        w = lib.tensor(b, requires_grad=True)
        fn = lambda t: (t @ w).sin().matmul(w).exp().sum(1)   # noqa: E731
        y = ck(fn, x, use_reentrant=False,
               context_fn=functools.partial(create, ops))
        y.pow(2).sum().backward()
        return y.detach().numpy(), x.grad.numpy(), w.grad.numpy()

    got = run(cygrad, checkpoint, create_selective_checkpoint_contexts, [cygrad.matmul])
    want = run(torch, tcheckpoint, tcreate, [torch.ops.aten.mm.default])
    for g, w in zip(got, want):
        np.testing.assert_allclose(g, w, rtol=1e-12)


def test_saved_op_is_not_recomputed_and_others_are(monkeypatch):
    counts = {"mm": 0, "sin": 0}
    mm_forward = Mm.forward
    sin = cygrad.sin.__wrapped__ if hasattr(cygrad.sin, "__wrapped__") else cygrad.sin

    def counting_mm(ctx, *args, **kwargs):
        counts["mm"] += 1
        return mm_forward(ctx, *args, **kwargs)
    monkeypatch.setattr(Mm, "forward", staticmethod(counting_mm))
    x = cygrad.randn(3, 4, dtype=cygrad.float64, requires_grad=True)
    w = cygrad.randn(4, 4, dtype=cygrad.float64, requires_grad=True)
    seen = []

    def policy(ctx, op, *args, **kwargs):
        seen.append((ctx.is_recompute, op.__name__))
        if op == sin:
            counts["sin"] += 1
        return _save_mm(ctx, op)

    def fn(t):
        return cygrad.matmul(t, w).sin().sum()

    def run(context_fn):
        counts.update(mm=0, sin=0)
        x.grad = w.grad = None
        if context_fn is None:
            fn(x).backward()
        else:
            checkpoint(fn, x, use_reentrant=False, context_fn=context_fn).backward()
        return dict(counts), x.grad.numpy().copy(), w.grad.numpy().copy()

    # Mm also runs in backward (the gradients are products); count relative to no checkpoint
    plain, gx, gw = run(None)
    recomputed, _, _ = run(lambda: create_selective_checkpoint_contexts(lambda *a: False))
    assert recomputed["mm"] == plain["mm"] + 1           # forward + recomputation
    sac_counts, sx, sw = run(_ctx(policy))
    assert sac_counts == {"mm": plain["mm"], "sin": 2}   # matmul kept; sin asked twice
    assert (False, "matmul") in seen and (True, "matmul") in seen
    np.testing.assert_allclose(sx, gx, rtol=1e-13)
    np.testing.assert_allclose(sw, gw, rtol=1e-13)


def test_ops_inside_a_saved_op_are_not_seen(monkeypatch):
    calls = []

    def policy(ctx, op, *args, **kwargs):
        calls.append(op.__name__)
        return CheckpointPolicy.MUST_SAVE if op == F.linear else \
            CheckpointPolicy.MUST_RECOMPUTE
    lin = nn.Linear(3, 3)
    x = cygrad.randn(2, 3, requires_grad=True)
    checkpoint(lambda t: lin(t).relu(), x, use_reentrant=False,
               context_fn=_ctx(policy)).sum().backward()
    assert calls.count("linear") == 2 and calls.count("relu") == 2
    assert "matmul" not in calls and "addmm" not in calls


@pytest.mark.parametrize("save_dropout", [True, False])
def test_dropout_mask_with_and_without_saving(save_dropout, rng):
    x = cygrad.from_numpy(rng.standard_normal((6, 8))).requires_grad_()
    fn = lambda t: F.dropout(t.sin(), 0.5, training=True).exp()   # noqa: E731
    cygrad.manual_seed(3)
    fn(x).sum().backward()
    want = x.grad.numpy().copy()
    x.grad = None
    cygrad.manual_seed(3)
    ops = [F.dropout] if save_dropout else [cygrad.sin]
    y = checkpoint(fn, x, use_reentrant=False, context_fn=_ctx(ops))
    cygrad.randn(100)                     # moves the global random state before backward
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), want, rtol=1e-13)


def test_errors_as_pytorch():
    with pytest.raises(ValueError, match="op"):
        create_selective_checkpoint_contexts([cygrad.matmul, lambda t: t])
    with pytest.raises(ValueError):
        create_selective_checkpoint_contexts(["matmul"])
    with pytest.raises(TypeError, match="function or a list"):
        create_selective_checkpoint_contexts(3)
    with pytest.raises(ValueError, match="use_reentrant=False"):
        checkpoint(cygrad.sin, cygrad.ones(2, requires_grad=True), use_reentrant=True,
                   context_fn=_ctx([cygrad.sin]))
    # a second backward through the same region: the kept outputs were used up
    x = cygrad.randn(3, 3, requires_grad=True)
    y = checkpoint(lambda t: (t @ t).sin(), x, use_reentrant=False,
                   context_fn=_ctx([cygrad.matmul]))
    y.sum().backward(retain_graph=True)
    with pytest.raises(RuntimeError, match="backward an extra time"):
        y.sum().backward()
    # a policy returning something else than a CheckpointPolicy or a bool
    with pytest.raises(TypeError, match="CheckpointPolicy"):
        checkpoint(cygrad.sin, x, use_reentrant=False, context_fn=_ctx(lambda *a: "save"))
    assert cygrad.sin(x).grad_fn is not None   # the ops were put back after the error


def test_mutating_a_kept_output():
    def fn(t):
        h = cygrad.matmul(t, t)
        h.mul_(2)                         # changes the kept matmul output
        return h.sin()
    x = cygrad.randn(3, 3, dtype=cygrad.float64, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=False, context_fn=_ctx([cygrad.matmul]))
    with pytest.raises(RuntimeError, match="mutate"):
        y.sum().backward()


def test_policy_contract_and_ignored_ops():
    assert [p.value for p in CheckpointPolicy] == [0, 1, 2, 3]
    assert cygrad.Tensor.detach in SAC_IGNORED_OPS and cygrad.empty in SAC_IGNORED_OPS
    seen = []

    def policy(ctx, op, *args, **kwargs):
        seen.append(op.__name__)
        return False
    x = cygrad.randn(3, requires_grad=True)
    checkpoint(lambda t: t.detach() * t.exp(), x, use_reentrant=False,
               context_fn=_ctx(policy)).sum().backward()
    assert "detach" not in seen and "exp" in seen
    assert cygrad.matmul.__module__.startswith("cygrad.ops")     # the swap was undone


def test_mutation_allowed_when_asked():
    def fn(t):
        h = cygrad.matmul(t, t)
        h.mul_(2)
        return h.sin()
    x = cygrad.randn(3, 3, dtype=cygrad.float64, requires_grad=True)
    y = checkpoint(fn, x, use_reentrant=False,
                   context_fn=_ctx([cygrad.matmul], allow_cache_entry_mutation=True))
    y.sum().backward()
    assert x.grad.shape == (3, 3)


def test_double_backward_through_a_saved_op_is_refused():
    x = cygrad.randn(3, 3, dtype=cygrad.float64, requires_grad=True)
    y = checkpoint(lambda t: (t @ t).sin().sum(), x, use_reentrant=False,
                   context_fn=_ctx([cygrad.matmul]))
    with pytest.raises(NotImplementedError, match="double backward"):
        cygrad.autograd.grad(y, x, create_graph=True)
    # recomputed ops keep double backward: d/dx sum(sin(x)) twice gives -sin(x)
    z = checkpoint(lambda t: t.sin().sum(), x, use_reentrant=False,
                   context_fn=_ctx([cygrad.matmul]))
    (g,) = cygrad.autograd.grad(z, x, create_graph=True)
    (h,) = cygrad.autograd.grad(g.sum(), x)
    np.testing.assert_allclose(h.numpy(), -np.sin(x.detach().numpy()), rtol=1e-12)
