"""Module hooks: forward pre-hooks and hooks (order, replacement, kwargs, handles,
always_call) and full backward hooks (the gradients they see and return)."""
import warnings

import numpy as np
import pytest

import cygrad
from cygrad import nn


def _fmt(grads):
    return [None if g is None else g.tolist() for g in grads]


def test_forward_hook_order_and_prepend():
    log = []
    m = nn.Identity()
    m.register_forward_pre_hook(lambda mod, args: log.append("pre1"))
    m.register_forward_pre_hook(lambda mod, args: log.append("pre0"), prepend=True)
    m.register_forward_hook(lambda mod, args, out: log.append("post1"))
    m.register_forward_hook(lambda mod, args, kwargs, out: log.append(("post2", kwargs)),
                            with_kwargs=True)
    m.register_forward_hook(lambda mod, args, out: log.append("post0"), prepend=True)
    m(cygrad.ones(1))
    assert log == ["pre0", "pre1", "post0", "post1", ("post2", {})]


def test_hooks_replace_args_kwargs_and_output():
    class Affine(nn.Module):
        def forward(self, x, scale=1.0):
            return x * scale

    m = Affine()
    x = cygrad.tensor([1.0, 2.0])
    h1 = m.register_forward_pre_hook(lambda mod, args: args[0] + 1)       # non-tuple: wrapped
    h2 = m.register_forward_pre_hook(lambda mod, args, kw: (args, {"scale": 10.0}),
                                     with_kwargs=True)
    h3 = m.register_forward_hook(lambda mod, args, out: out - 1)
    np.testing.assert_array_equal(m(x).numpy(), (np.array([1.0, 2.0]) + 1) * 10 - 1)
    for h in (h1, h2, h3):
        h.remove()
        h.remove()                               # removing twice is harmless
    np.testing.assert_array_equal(m(x).numpy(), [1.0, 2.0])
    m.register_forward_pre_hook(lambda mod, args, kw: 5, with_kwargs=True)
    with pytest.raises(RuntimeError, match="new_args, new_kwargs"):
        m(x)


def test_handle_as_context_manager():
    m = nn.Identity()
    seen = []
    with m.register_forward_hook(lambda mod, args, out: seen.append(1)):
        m(cygrad.ones(1))
    m(cygrad.ones(1))
    assert seen == [1]
    assert not m._forward_hooks and not m._forward_hooks_with_kwargs


def test_always_call_hook_runs_when_forward_raises():
    class Boom(nn.Module):
        def forward(self, x):
            raise ValueError("boom")

    m = Boom()
    seen = []
    m.register_forward_hook(lambda mod, args, out: seen.append("always"), always_call=True)
    m.register_forward_hook(lambda mod, args, out: seen.append("normal"))
    with pytest.raises(ValueError, match="boom"):
        m(cygrad.ones(1))
    assert seen == ["always"]


def _backward_hook_log(L, case):
    """The hooks' view of one backward pass, in cygrad (L=cygrad) or PyTorch."""
    lnn = L.nn

    class TwoOut(lnn.Module):
        def forward(self, x, y, k=3):
            return x * 2 * k, y * 3

    log = []
    m = TwoOut()
    m.register_full_backward_pre_hook(lambda mod, go: log.append(("pre", _fmt(go))))
    m.register_full_backward_hook(lambda mod, gi, go: log.append(("full", _fmt(gi), _fmt(go))))
    if case == "x":
        x, y = L.ones(2, requires_grad=True), L.ones(2)
        a, _ = m(x, y, k=1)
        a.sum().backward()
    elif case == "y":
        w = L.ones(2, requires_grad=True)
        _, b = m(L.ones(2), L.ones(2) * w)
        (b * 2).sum().backward()
    else:
        lin = lnn.Linear(2, 2)
        lin.register_full_backward_hook(lambda mod, gi, go: log.append(("lin", _fmt(gi))))
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            lin(L.ones(3, 2)).sum().backward()
    return log


@pytest.mark.parametrize("case", ["x", "y", "no_input_grad"])
def test_full_backward_hooks_match_torch(case):
    torch = pytest.importorskip("torch")
    assert _backward_hook_log(cygrad, case) == _backward_hook_log(torch, case)


def test_full_backward_hook_receives_correct_grads(rng):
    lin = nn.Linear(3, 2).double()
    W = lin.weight.detach().numpy().copy()
    x_np = rng.standard_normal((4, 3))
    g_np = rng.standard_normal((4, 2))
    seen = {}

    def hook(mod, grad_input, grad_output):
        seen["gi"] = [g.numpy().copy() for g in grad_input]
        seen["go"] = [g.numpy().copy() for g in grad_output]

    lin.register_full_backward_hook(hook)
    x = cygrad.from_numpy(x_np.copy()).requires_grad_()
    out = lin(x)
    assert type(out.grad_fn).__name__ == "BackwardHookFunctionBackward"
    out.backward(cygrad.from_numpy(g_np.copy()))
    np.testing.assert_allclose(seen["go"][0], g_np)
    np.testing.assert_allclose(seen["gi"][0], g_np @ W)
    np.testing.assert_allclose(x.grad.numpy(), g_np @ W)
    np.testing.assert_allclose(lin.weight.grad.numpy(), g_np.T @ x_np)


def test_backward_hooks_replace_gradients_and_remove():
    lin = nn.Linear(2, 1, bias=False)
    nn.init.ones_(lin.weight)
    x = cygrad.ones(1, 2, requires_grad=True)
    h = lin.register_full_backward_hook(lambda mod, gi, go: (gi[0] * 100,))
    lin(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[100.0, 100.0]])
    h.remove()
    pre = lin.register_full_backward_pre_hook(lambda mod, go: (go[0] * 3,))
    x.grad = None
    lin(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[3.0, 3.0]])
    np.testing.assert_array_equal(lin.weight.grad.numpy(), [[1.0 + 3.0, 1.0 + 3.0]])
    pre.remove()
    x.grad = None
    lin(x).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [[1.0, 1.0]])


def test_backward_hook_wrong_length_is_an_error():
    m = nn.Identity()
    m.register_full_backward_hook(lambda mod, gi, go: (gi[0], gi[0]))
    with pytest.raises(RuntimeError, match="invalid number of grad_input, got 2, but expected 1"):
        m(cygrad.ones(2, requires_grad=True)).sum().backward()
    m = nn.Identity()
    m.register_full_backward_pre_hook(lambda mod, go: ())
    with pytest.raises(RuntimeError, match="invalid number of grad_output, got 0, but expected 1"):
        m(cygrad.ones(2, requires_grad=True)).sum().backward()


def test_backward_hooks_leave_no_grad_calls_alone():
    m = nn.Linear(2, 2)
    m.register_full_backward_hook(lambda mod, gi, go: None)
    with cygrad.no_grad():
        out = m(cygrad.ones(1, 2, requires_grad=True))
    assert out.grad_fn is None and not out.requires_grad


def test_gradcheck_through_hooked_module():
    lin = nn.Linear(3, 2).double()
    lin.register_full_backward_hook(lambda mod, gi, go: None)
    lin.register_full_backward_pre_hook(lambda mod, go: None)
    x = cygrad.randn(4, 3, dtype=cygrad.float64, requires_grad=True)
    assert cygrad.autograd.gradcheck(lambda t: lin(t), (x,))
