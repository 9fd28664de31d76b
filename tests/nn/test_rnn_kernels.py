"""The fused recurrent layers (``LSTMLayer``, ``GRULayer``, ``ElmanLayer``) and their C
step kernels (``cygrad/_core/cpu/rnn.c``): the kernels against NumPy formulas, with
their argument checks; the layers against PyTorch in float64 with copied weights
(non-contiguous inputs and states, several layers, both directions, random output
gradients); gradcheck, forward AD and double backward of each layer."""
import numpy as np
import pytest

import cygrad
from cygrad import nn
from cygrad._core import rnn_kernels as K
from cygrad.autograd import gradcheck, gradgradcheck
from cygrad.nn._ops.rnn import lstm_layer, rnn_layer

from ._torch_helpers import copy_state


def _sig(v):
    return 1 / (1 + np.exp(-v))


def _t(a):
    return cygrad.tensor(np.ascontiguousarray(a))


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_lstm_step_and_backward_match_numpy(rng, dtype):
    N, H = 3, 5
    gh, gx = (rng.standard_normal((N, 4 * H)).astype(dtype) for _ in range(2))
    cp, dhr, go, dc0 = (rng.standard_normal((N, H)).astype(dtype) for _ in range(4))
    a, c, tc, h = (cygrad.empty(N, g * H, dtype=cygrad.tensor(gh).dtype) for g in (4, 1, 1, 1))
    K.lstm_step(_t(gh), _t(gx), _t(cp), a, c, tc, h)
    z = gh + gx
    i, f, g, o = _sig(z[:, :H]), _sig(z[:, H:2 * H]), np.tanh(z[:, 2 * H:3 * H]), _sig(z[:, 3 * H:])
    c_ref = f * cp + i * g
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    np.testing.assert_allclose(a.numpy(), np.concatenate([i, f, g, o], 1), **tol)
    np.testing.assert_allclose(c.numpy(), c_ref, **tol)
    np.testing.assert_allclose(h.numpy(), o * np.tanh(c_ref), **tol)

    dc, d = _t(dc0), cygrad.empty(N, 4 * H, dtype=a.dtype)
    K.lstm_step_backward(_t(dhr), _t(go), dc, a, _t(cp), tc, d)
    dh = dhr + go
    tcr = np.tanh(c_ref)
    dcv = dc0 + dh * o * (1 - tcr ** 2)
    ref = np.concatenate([dcv * g * i * (1 - i), dcv * cp * f * (1 - f), dcv * i * (1 - g * g),
                          dh * tcr * o * (1 - o)], 1)
    np.testing.assert_allclose(d.numpy(), ref, **tol)
    np.testing.assert_allclose(dc.numpy(), dcv * f, **tol)


def test_gru_and_elman_steps_match_numpy(rng):
    N, H = 2, 4
    gi, gh = rng.standard_normal((N, 3 * H)), rng.standard_normal((N, 3 * H))
    hp, dh = rng.standard_normal((N, H)), rng.standard_normal((N, H))
    a, ghn, h = cygrad.empty(N, 3 * H, dtype=cygrad.float64), *(
        cygrad.empty(N, H, dtype=cygrad.float64) for _ in range(2))
    K.gru_step(_t(gi), _t(gh), _t(hp), a, ghn, h)
    r = _sig(gi[:, :H] + gh[:, :H])
    z = _sig(gi[:, H:2 * H] + gh[:, H:2 * H])
    n = np.tanh(gi[:, 2 * H:] + r * gh[:, 2 * H:])
    np.testing.assert_allclose(h.numpy(), (1 - z) * n + z * hp, rtol=1e-12)
    di, dgh, dhp = (cygrad.empty(N, g * H, dtype=cygrad.float64) for g in (3, 3, 1))
    K.gru_step_backward(None, _t(dh), a, ghn, _t(hp), di, dgh, dhp)
    dn = dh * (1 - z) * (1 - n * n)
    dr = dn * gh[:, 2 * H:] * r * (1 - r)
    dz = dh * (hp - n) * z * (1 - z)
    np.testing.assert_allclose(di.numpy(), np.concatenate([dr, dz, dn], 1), rtol=1e-12)
    np.testing.assert_allclose(dgh.numpy(), np.concatenate([dr, dz, dn * r], 1), rtol=1e-12)
    np.testing.assert_allclose(dhp.numpy(), dh * z, rtol=1e-12)

    pre = gi[:, :H] + gh[:, :H]
    for relu in (False, True):
        out = cygrad.empty(N, H, dtype=cygrad.float64)
        K.elman_step(_t(gh[:, :H]), _t(gi[:, :H]), out, relu)
        ref = np.maximum(pre, 0) if relu else np.tanh(pre)
        np.testing.assert_allclose(out.numpy(), ref, rtol=1e-12)
        d = cygrad.empty(N, H, dtype=cygrad.float64)
        K.elman_step_backward(_t(dh), _t(hp), out, d, relu)
        slope = (pre > 0) if relu else 1 - ref ** 2
        np.testing.assert_allclose(d.numpy(), (dh + hp) * slope, rtol=1e-12)


def test_step_kernels_check_their_arguments():
    ok = cygrad.zeros(2, 4)
    with pytest.raises(TypeError, match="float32 and float64"):
        K.elman_step(cygrad.zeros(2, 4, dtype=cygrad.int64), ok, ok, False)
    with pytest.raises(RuntimeError, match="expected shape"):
        K.elman_step(ok, cygrad.zeros(2, 3), ok, False)
    with pytest.raises(RuntimeError, match="contiguous"):
        K.elman_step(ok, cygrad.zeros(4, 2).t(), ok, False)
    with pytest.raises(RuntimeError, match="float32 CPU tensors"):
        K.elman_step(ok, cygrad.zeros(2, 4, dtype=cygrad.float64), ok, False)
    with pytest.raises(RuntimeError, match=r"\(N, 4 \* H\)"):
        K.lstm_step(cygrad.zeros(2, 6), ok, ok, ok, ok, ok, ok)
    buf = cygrad.zeros(3, 4)
    with pytest.raises(RuntimeError, match="overlaps"):
        K.elman_step(ok, buf[1:], buf[:2], False)
    with pytest.raises(RuntimeError, match="required tensor is None"):
        K.gru_step(cygrad.zeros(2, 3), None, ok, ok, ok, ok)


def _random_like(rng, t):
    return rng.standard_normal(tuple(t.shape))


@pytest.mark.parametrize("name,kwargs", [
    ("LSTM", dict(num_layers=2, bidirectional=True)),
    ("GRU", dict(num_layers=2, bidirectional=True, batch_first=True)),
    ("RNN", dict(nonlinearity="relu", bidirectional=True)),
    ("RNN", dict(num_layers=2, bias=False, batch_first=True)),
])
def test_layers_match_torch_float64_non_contiguous(rng, name, kwargs):
    torch = pytest.importorskip("torch")
    I, H, L, N = 5, 6, 7, 3
    c = getattr(nn, name)(I, H, dtype=cygrad.float64, **kwargs)
    t = getattr(torch.nn, name)(I, H, dtype=torch.float64, **kwargs)
    copy_state(c, t)
    D = 2 if kwargs.get("bidirectional") else 1
    layers = kwargs.get("num_layers", 1)
    # x stored with its first two dims swapped, h0 with its last two: both views
    # are non-contiguous.
    x = rng.standard_normal((N, L, I) if not kwargs.get("batch_first") else (L, N, I))
    h = rng.standard_normal((D * layers, H, N))
    xc = cygrad.tensor(x).transpose(0, 1).requires_grad_()
    xt = torch.tensor(x).transpose(0, 1).requires_grad_()
    hc = cygrad.tensor(h).transpose(1, 2).requires_grad_()
    ht = torch.tensor(h).transpose(1, 2).requires_grad_()
    assert not xc.is_contiguous() and not hc.is_contiguous()
    if name == "LSTM":
        cc, ct = cygrad.tensor(h * 0.5).transpose(1, 2), torch.tensor(h * 0.5).transpose(1, 2)
        cc.requires_grad_(), ct.requires_grad_()
        oc, (hnc, cnc) = c(xc, (hc, cc))
        ot, (hnt, cnt) = t(xt, (ht, ct))
        outs_c, outs_t = [oc, hnc, cnc], [ot, hnt, cnt]
    else:
        oc, hnc = c(xc, hc)
        ot, hnt = t(xt, ht)
        outs_c, outs_t = [oc, hnc], [ot, hnt]
    weights = [_random_like(rng, o) for o in outs_t]
    for a, b in zip(outs_c, outs_t):
        np.testing.assert_allclose(a.detach().numpy(), b.detach().numpy(), rtol=1e-10, atol=1e-12)
    sum((o * cygrad.tensor(w)).sum() for o, w in zip(outs_c, weights)).backward()
    sum((o * torch.tensor(w)).sum() for o, w in zip(outs_t, weights)).backward()
    pairs = [(xc, xt), (hc, ht)] + ([(cc, ct)] if name == "LSTM" else [])
    pairs += list(zip(c.parameters(), t.parameters()))
    for a, b in pairs:
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)


def test_layer_nodes_are_fused(rng):
    x = cygrad.randn(4, 2, 3, requires_grad=True)
    h0 = cygrad.zeros(2, 5)
    out, h = rnn_layer(x, h0, cygrad.randn(15, 3), cygrad.randn(15, 5), None, None, False, "GRU")
    assert type(out.grad_fn).__name__ == "GRULayerBackward" and h.grad_fn is out.grad_fn
    out, h = rnn_layer(x, h0, cygrad.randn(5, 3), cygrad.randn(5, 5), None, None, False, "RNN_TANH")
    assert type(out.grad_fn).__name__ == "RNNLayerBackward"


@pytest.mark.parametrize("mode", ["GRU", "RNN_TANH", "RNN_RELU"])
def test_gru_and_elman_layers_gradcheck_forward_ad_double_backward(rng, mode):
    L, N, I, H = 3, 2, 2, 3
    G = 3 * H if mode == "GRU" else H
    shapes = [(L, N, I), (N, H), (G, I), (G, H), (G,), (G,)]
    args = tuple(cygrad.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes)
    for reverse in (False, True):
        f = lambda *a: rnn_layer(*a, reverse, mode)  # noqa: E731
        assert gradcheck(f, args, check_forward_ad=True)
        assert gradgradcheck(f, args)
    # without biases, and with a non-contiguous input
    x = cygrad.tensor(rng.standard_normal((N, L, I))).transpose(0, 1).requires_grad_()
    assert gradcheck(lambda x, h, wi, wh: rnn_layer(x, h, wi, wh, None, None, False, mode),
                     (x,) + args[1:4], check_forward_ad=True)


def test_lstm_layer_without_bias_non_contiguous_gradcheck(rng):
    L, N, I, H = 3, 2, 2, 3
    x = cygrad.tensor(rng.standard_normal((N, L, I))).transpose(0, 1).requires_grad_()
    state = cygrad.tensor(rng.standard_normal((H, N))).t().requires_grad_()
    rest = tuple(cygrad.tensor(rng.standard_normal(s), requires_grad=True)
                 for s in [(N, H), (4 * H, I), (4 * H, H)])
    assert gradcheck(lstm_layer, (x, state) + rest, check_forward_ad=True)


def test_layers_without_kernel_dtype_use_the_composition():
    # float16 has no step kernel: the layer is the composition of tensor ops.
    x = cygrad.randn(3, 2, 2, dtype=cygrad.float16)
    h0 = cygrad.zeros(2, 3, dtype=cygrad.float16)
    w_ih, w_hh = cygrad.randn(3, 2, dtype=cygrad.float16), cygrad.randn(3, 3, dtype=cygrad.float16)
    out, h = rnn_layer(x, h0, w_ih, w_hh, None, None, False, "RNN_TANH")
    ref, _ = rnn_layer(x.double(), h0.double(), w_ih.double(), w_hh.double(), None, None, False,
                       "RNN_TANH")
    assert out.dtype == cygrad.float16
    np.testing.assert_allclose(out.double().numpy(), ref.numpy(), atol=1e-2)


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_gradient_through_final_state_only(rng, name):
    # Only h_n (and c_n) reach the loss: the layer's backward gets no output gradient.
    torch = pytest.importorskip("torch")
    c = getattr(nn, name)(3, 4, dtype=cygrad.float64, bidirectional=True)
    t = getattr(torch.nn, name)(3, 4, dtype=torch.float64, bidirectional=True)
    copy_state(c, t)
    x = rng.standard_normal((5, 2, 3))
    xc, xt = cygrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    sc, st = c(xc)[1], t(xt)[1]
    (sc[1].sum() if name == "LSTM" else sc.sum()).backward()
    (st[1].sum() if name == "LSTM" else st.sum()).backward()
    np.testing.assert_allclose(xc.grad.numpy(), xt.grad.numpy(), rtol=1e-9, atol=1e-11)
    for a, b in zip(c.parameters(), t.parameters()):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-9, atol=1e-11)
