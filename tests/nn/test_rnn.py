"""RNN, LSTM, GRU and their cells against PyTorch with copied weights: outputs, final
states and gradients for every layout (layers, directions, batch_first, unbatched,
given initial states), state_dict keys, init, errors; gradcheck of the fused LSTM
layer (with forward AD and double backward) and of one LSTM cell step."""
import math
import warnings

import numpy as np
import pytest

import cygrad
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck
from cygrad.nn._ops.rnn import lstm_cell, lstm_layer, rnn_layer

from ._torch_helpers import close, copy_state

CONFIGS = [dict(), dict(num_layers=2), dict(bidirectional=True),
           dict(num_layers=2, bidirectional=True, batch_first=True), dict(bias=False)]


def _states(torch, name, rng, shape, given):
    if not given:
        return None, None
    arrays = [rng.standard_normal(shape).astype(np.float32) for _ in range(2 if name == "LSTM" else 1)]
    if name == "LSTM":
        return tuple(map(cygrad.tensor, arrays)), tuple(map(torch.tensor, arrays))
    return cygrad.tensor(arrays[0]), torch.tensor(arrays[0])


def _flat(out):
    out, state = out
    return [out] + (list(state) if isinstance(state, tuple) else [state])


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
@pytest.mark.parametrize("config", CONFIGS)
def test_matches_torch(rng, name, config):
    torch = pytest.importorskip("torch")
    c, t = getattr(nn, name)(3, 4, **config), getattr(torch.nn, name)(3, 4, **config)
    copy_state(c, t)
    D = 2 if config.get("bidirectional") else 1
    L = config.get("num_layers", 1)
    shape = (5, 2, 3) if not config.get("batch_first") else (2, 5, 3)
    x = rng.standard_normal(shape).astype(np.float32)
    for given in (False, True):
        hc, ht = _states(torch, name, rng, (D * L, 2, 4), given)
        xc, xt = cygrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
        oc, ot = _flat(c(xc, hc)), _flat(t(xt, ht))
        for a, b in zip(oc, ot):
            assert tuple(a.shape) == tuple(b.shape)
            close(a, b)
        sum((o * (k + 1)).sum() for k, o in enumerate(oc)).backward()
        sum((o * (k + 1)).sum() for k, o in enumerate(ot)).backward()
        close(xc.grad, xt.grad, atol=1e-4)
        for (n, p), tp in zip(c.named_parameters(), t.parameters()):
            close(p.grad, tp.grad, atol=1e-4)
        c.zero_grad(), t.zero_grad()


@pytest.mark.parametrize("name", ["LSTM", "GRU", "RNN"])
def test_unbatched_input(rng, name):
    torch = pytest.importorskip("torch")
    c, t = getattr(nn, name)(3, 4, num_layers=2), getattr(torch.nn, name)(3, 4, num_layers=2)
    copy_state(c, t)
    x = rng.standard_normal((5, 3)).astype(np.float32)
    for a, b in zip(_flat(c(cygrad.tensor(x))), _flat(t(torch.tensor(x)))):
        assert tuple(a.shape) == tuple(b.shape)
        close(a, b)


def test_rnn_relu(rng):
    torch = pytest.importorskip("torch")
    c = nn.RNN(3, 4, nonlinearity="relu", bidirectional=True)
    t = torch.nn.RNN(3, 4, nonlinearity="relu", bidirectional=True)
    copy_state(c, t)
    x = rng.standard_normal((6, 2, 3)).astype(np.float32)
    for a, b in zip(_flat(c(cygrad.tensor(x))), _flat(t(torch.tensor(x)))):
        close(a, b)


@pytest.mark.parametrize("name", ["LSTMCell", "GRUCell", "RNNCell"])
def test_cells_match_torch(rng, name):
    torch = pytest.importorskip("torch")
    c, t = getattr(nn, name)(3, 5), getattr(torch.nn, name)(3, 5)
    copy_state(c, t)
    assert repr(c) == repr(t)
    x = rng.standard_normal((4, 3)).astype(np.float32)
    h = rng.standard_normal((4, 5)).astype(np.float32)
    state_c = (cygrad.tensor(h), cygrad.tensor(h * 0.5)) if name == "LSTMCell" else cygrad.tensor(h)
    state_t = (torch.tensor(h), torch.tensor(h * 0.5)) if name == "LSTMCell" else torch.tensor(h)
    for args_c, args_t in (((cygrad.tensor(x),), (torch.tensor(x),)),
                           ((cygrad.tensor(x), state_c), (torch.tensor(x), state_t)),
                           ((cygrad.tensor(x[0]),), (torch.tensor(x[0]),))):
        oc, ot = c(*args_c), t(*args_t)
        for a, b in zip(oc if isinstance(oc, tuple) else (oc,), ot if isinstance(ot, tuple) else (ot,)):
            assert tuple(a.shape) == tuple(b.shape)
            close(a, b)


def test_lstm_layer_gradcheck_forward_ad_and_double_backward(rng):
    L, N, I, H = 3, 2, 2, 3
    shapes = [(L, N, I), (N, H), (N, H), (4 * H, I), (4 * H, H), (4 * H,), (4 * H,)]
    args = tuple(cygrad.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes)
    for reverse in (False, True):
        f = lambda *a: lstm_layer(*a, reverse=reverse)  # noqa: E731
        assert gradcheck(f, args, check_forward_ad=True)
        assert gradgradcheck(f, args)


def test_lstm_cell_step_gradcheck(rng):
    H = 3
    shapes = [(2, 4), (2, H), (2, H), (4 * H, 4), (4 * H, H), (4 * H,), (4 * H,)]
    args = tuple(cygrad.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes)
    assert gradcheck(lstm_cell, args)
    assert gradgradcheck(lstm_cell, args)


def test_gru_layer_gradcheck(rng):
    shapes = [(3, 2, 2), (2, 3), (9, 2), (9, 3), (9,), (9,)]
    args = tuple(cygrad.tensor(rng.standard_normal(s), requires_grad=True) for s in shapes)
    assert gradcheck(lambda *a: rnn_layer(*a, True, "GRU"), args)


def test_fused_lstm_layer_saves_graph_nodes(rng):
    x = cygrad.randn(4, 2, 3, requires_grad=True)
    out, h, c = lstm_layer(x, cygrad.zeros(2, 5), cygrad.zeros(2, 5), cygrad.randn(20, 3),
                           cygrad.randn(20, 5))
    assert type(out.grad_fn).__name__ == "LSTMLayerBackward"
    assert out.grad_fn is h.grad_fn is c.grad_fn


@pytest.mark.parametrize("name,kwargs", [("LSTM", dict(num_layers=2, bidirectional=True)),
                                         ("GRU", dict(num_layers=3)), ("RNN", dict(bias=False)),
                                         ("LSTMCell", {}), ("GRUCell", dict(bias=False)),
                                         ("RNNCell", dict(nonlinearity="relu"))])
def test_state_dict_keys_repr_and_init(name, kwargs):
    torch = pytest.importorskip("torch")
    c, t = getattr(nn, name)(30, 40, **kwargs), getattr(torch.nn, name)(30, 40, **kwargs)
    assert list(c.state_dict()) == list(t.state_dict())
    assert [tuple(v.shape) for v in c.state_dict().values()] == \
        [tuple(v.shape) for v in t.state_dict().values()]
    assert repr(c) == repr(t)
    bound = 1 / math.sqrt(40)
    values = np.concatenate([p.detach().numpy().ravel() for p in c.parameters()])
    assert values.min() >= -bound and values.max() <= bound
    # U(-b, b) has std b/sqrt(3); thousands of samples put it within a few percent
    assert abs(values.std() - bound / math.sqrt(3)) < 0.05 * bound


def test_dropout_between_layers_only_in_training(rng):
    cygrad.manual_seed(0)
    m = nn.LSTM(3, 8, num_layers=2, dropout=0.5)
    x = cygrad.tensor(rng.standard_normal((4, 2, 3)).astype(np.float32))
    m.eval()
    a, b = m(x)[0], m(x)[0]
    close(a, b, atol=0)
    m.train()
    assert not np.allclose(m(x)[0].detach().numpy(), a.detach().numpy())


def test_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [
        lambda M: M.nn.LSTM(3, 4)(M.ones(2, 3, 5)),
        lambda M: M.nn.LSTM(3, 4)(M.ones(2, 3, 3), (M.zeros(1, 2, 4), M.zeros(1, 3, 4))),
        lambda M: M.nn.GRU(3, 4)(M.ones(2, 3, 3), M.zeros(2, 3, 4)),
        lambda M: M.nn.GRU(3, 4)(M.ones(2, 3, 3), M.zeros(3, 4)),
        lambda M: M.nn.RNN(3, 4)(M.ones(2, 3, 3, 1)),
        lambda M: M.nn.RNN(3, 4, nonlinearity="foo"),
        lambda M: M.nn.LSTM(3, 4, dropout=1.5),
        lambda M: M.nn.LSTM(3, 0),
        lambda M: M.nn.LSTMCell(3, 4)(M.ones(2, 5)),
        lambda M: M.nn.GRUCell(3, 4)(M.ones(2, 3, 3)),
    ]
    for case in cases:
        outcomes = []
        for M in (cygrad, torch):
            try:
                case(M)
            except Exception as exc:  # noqa: BLE001 - compared below
                outcomes.append((type(exc), str(exc)))
        assert len(outcomes) == 2
        assert outcomes[0] == outcomes[1]
    with warnings.catch_warnings(record=True) as w:
        warnings.simplefilter("always")
        nn.GRU(3, 4, dropout=0.2)
    assert "non-zero dropout expects num_layers greater than 1" in str(w[0].message)
