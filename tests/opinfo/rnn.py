"""Op-table rows for the recurrent ops: the single steps (``cygrad.lstm_cell``,
``gru_cell``, ``rnn_tanh_cell``, ``rnn_relu_cell``) and the whole-sequence layers
(``lstm_layer``, ``rnn_layer`` in its three modes: ``LSTMLayer``, ``GRULayer`` and
``ElmanLayer`` over the step kernels of ``cygrad/_core/cpu/rnn.c``).

The references are short NumPy recurrences written from PyTorch's equations (LSTM
gates ``i, f, g, o``; GRU gates ``r, z, n`` with ``n = tanh(W_in x + b_in + r * (W_hn h
+ b_hn))``), independent of cygrad.  Shapes are small (``L <= 4, N <= 3, H <= 3``) so that
every sample stays under the harness's 100-element limit for the gradient checks.
PyTorch has no public function for one layer direction, so the layer rows compare with
the NumPy references only; the cells also compare with ``torch.<cell>``.
"""
import numpy as np

import cygrad
from cygrad.nn._ops.rnn import lstm_layer, rnn_layer

from .core import FLOATS, ErrorInput, OpInfo, SampleInput, make_array

AUTOGRAD_DEFAULTS = {"supports_autograd": True}


def _sigmoid(x):
    return 1.0 / (1.0 + np.exp(-x))


def _affine(x, w, b):
    out = x @ w.T
    return out if b is None else out + b


def _np_lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh):
    gates = _affine(x, w_ih, b_ih) + _affine(h, w_hh, b_hh)
    i, f, g, o = np.split(gates, 4, axis=-1)
    c = _sigmoid(f) * c + _sigmoid(i) * np.tanh(g)
    return _sigmoid(o) * np.tanh(c), c


def _np_gru_step(x, h, w_ih, w_hh, b_ih, b_hh):
    xr, xz, xn = np.split(_affine(x, w_ih, b_ih), 3, axis=-1)
    hr, hz, hn = np.split(_affine(h, w_hh, b_hh), 3, axis=-1)
    r, z = _sigmoid(xr + hr), _sigmoid(xz + hz)
    n = np.tanh(xn + r * hn)
    return (1.0 - z) * n + z * h


def _np_elman_step(x, h, w_ih, w_hh, b_ih, b_hh, relu):
    pre = _affine(x, w_ih, b_ih) + _affine(h, w_hh, b_hh)
    return np.maximum(pre, 0.0) if relu else np.tanh(pre)


def _order(L, reverse):
    if L == 0:
        # (as PyTorch's RNN modules: "Expected sequence length to be larger than 0")
        raise ValueError("empty sequence")
    return range(L - 1, -1, -1) if reverse else range(L)


def _np_lstm_layer(x, h0, c0, w_ih, w_hh, b_ih=None, b_hh=None, reverse=False):
    out = np.empty(x.shape[:2] + (h0.shape[-1],))
    h, c = h0, c0
    for t in _order(x.shape[0], reverse):
        h, c = _np_lstm_step(x[t], h, c, w_ih, w_hh, b_ih, b_hh)
        out[t] = h
    return out, h, c


def _np_rnn_layer(x, h0, w_ih, w_hh, b_ih, b_hh, reverse, mode):
    out = np.empty(x.shape[:2] + (h0.shape[-1],))
    h = h0
    for t in _order(x.shape[0], reverse):
        if mode == "GRU":
            h = _np_gru_step(x[t], h, w_ih, w_hh, b_ih, b_hh)
        else:
            h = _np_elman_step(x[t], h, w_ih, w_hh, b_ih, b_hh, mode == "RNN_RELU")
        out[t] = h
    return out, h


def _weights(dtype, rng, G, H, I, bias=True):
    w = [make_array((G * H, I), dtype, rng, -0.8, 0.8), make_array((G * H, H), dtype, rng, -0.8, 0.8)]
    if bias:
        w += [make_array((G * H,), dtype, rng, -0.5, 0.5), make_array((G * H,), dtype, rng, -0.5, 0.5)]
    return w


# ---------------------------------------------------------------- layers

def _lstm_layer_samples(op_info, dtype, rng):
    L, N, I, H = 3, 2, 2, 2
    x = make_array((L, N, I), dtype, rng, -1, 1)
    h0, c0 = (make_array((N, H), dtype, rng, -1, 1) for _ in range(2))
    w_ih, w_hh, b_ih, b_hh = _weights(dtype, rng, 4, H, I)
    x4 = make_array((4, 1, 3), dtype, rng, -1, 1)
    wide = _weights(dtype, rng, 4, 1, 3)
    return [SampleInput(x, (h0, c0, w_ih, w_hh, b_ih, b_hh), name="bias"),
            SampleInput(x, (h0, c0, w_ih, w_hh, b_ih, b_hh), {"reverse": True},
                        name="bias_reverse"),
            SampleInput(x, (h0, c0, w_ih, w_hh), name="no_bias"),
            SampleInput(x, (h0, c0, w_ih, w_hh), {"reverse": True}, name="no_bias_reverse"),
            SampleInput(x, (h0, c0, w_ih, w_hh, b_ih), name="b_ih_only"),
            SampleInput(x4, (np.zeros((1, 1), x4.dtype), np.zeros((1, 1), x4.dtype), *wide),
                        name="L4_N1_H1")]


def _lstm_layer_errors(op_info, rng):
    x = rng.standard_normal((3, 2, 2))
    h = rng.standard_normal((2, 2))
    return [ErrorInput(SampleInput(x, (h, h, rng.standard_normal((8, 3)),
                                       rng.standard_normal((8, 2))), name="input_size"),
                       RuntimeError)]


def _rnn_layer_samples(mode):
    G = 3 if mode == "GRU" else 1

    def samples(op_info, dtype, rng):
        L, N, I, H = 3, 2, 2, 3
        x = make_array((L, N, I), dtype, rng, -1, 1)
        h0 = make_array((N, H), dtype, rng, -1, 1)
        w_ih, w_hh, b_ih, b_hh = _weights(dtype, rng, G, H, I)
        x1 = make_array((4, 3, 2), dtype, rng, -1, 1)
        small = _weights(dtype, rng, G, 2, 2)
        return [SampleInput(x, (h0, w_ih, w_hh, b_ih, b_hh, False, mode), name="bias"),
                SampleInput(x, (h0, w_ih, w_hh, b_ih, b_hh, True, mode), name="bias_reverse"),
                SampleInput(x, (h0, w_ih, w_hh, None, None, False, mode), name="no_bias"),
                SampleInput(x, (h0, w_ih, w_hh, None, None, True, mode),
                            name="no_bias_reverse"),
                SampleInput(x, (h0, w_ih, w_hh, None, b_hh, False, mode), name="b_hh_only"),
                SampleInput(x1, (make_array((3, 2), dtype, rng, -1, 1), *small, True, mode),
                            name="L4_N3_H2")]
    return samples


def _rnn_layer_errors(mode):
    G = 3 if mode == "GRU" else 1

    def errors(op_info, rng):
        x = rng.standard_normal((3, 2, 2))
        return [ErrorInput(SampleInput(x, (rng.standard_normal((2, 2)),
                                           rng.standard_normal((G * 2, 3)),
                                           rng.standard_normal((G * 2, 2)), None, None, False,
                                           mode), name="input_size"), RuntimeError)]
    return errors


# ---------------------------------------------------------------- cells

def _lstm_cell(input, h, c, w_ih, w_hh, b_ih=None, b_hh=None):
    """``cygrad.lstm_cell`` with the state pair spread out (the harness turns only
    top-level arrays into tensors)."""
    return cygrad.lstm_cell(input, (h, c), w_ih, w_hh, b_ih, b_hh)


def _np_lstm_cell(x, h, c, w_ih, w_hh, b_ih=None, b_hh=None):
    return _np_lstm_step(x, h, c, w_ih, w_hh, b_ih, b_hh)


def _cell_samples(G, with_c=False):
    def samples(op_info, dtype, rng):
        N, I, H = 3, 2, 2
        x = make_array((N, I), dtype, rng, -1, 1)
        states = tuple(make_array((N, H), dtype, rng, -1, 1) for _ in range(2 if with_c else 1))
        w_ih, w_hh, b_ih, b_hh = _weights(dtype, rng, G, H, I)
        return [SampleInput(x, (*states, w_ih, w_hh, b_ih, b_hh), name="bias"),
                SampleInput(x, (*states, w_ih, w_hh), name="no_bias"),
                SampleInput(make_array((1, 3), dtype, rng, -1, 1),
                            (*(make_array((1, 1), dtype, rng) for _ in states),
                             *_weights(dtype, rng, G, 1, 3)), name="N1_H1")]
    return samples


def _cell_errors(G, with_c=False):
    def errors(op_info, rng):
        states = tuple(rng.standard_normal((3, 2)) for _ in range(2 if with_c else 1))
        return [ErrorInput(SampleInput(rng.standard_normal((3, 2)),
                                       (*states,
                                        rng.standard_normal((G * 2, 4)),
                                        rng.standard_normal((G * 2, 2))), name="input_size"),
                           RuntimeError)]
    return errors


def _np_gru_cell(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
    return _np_gru_step(x, h, w_ih, w_hh, b_ih, b_hh)


def _np_rnn_cell(relu):
    def ref(x, h, w_ih, w_hh, b_ih=None, b_hh=None):
        return _np_elman_step(x, h, w_ih, w_hh, b_ih, b_hh, relu)
    return ref


# the weight matrices share no dim 0 with the (N, I) input: a zero-size cut has no
# consistent meaning for them, so the harness finds no sample to cut
_NO_ZERO_SIZE = {"check_zero_size": False}

OPS = [
    OpInfo("lstm_layer", lstm_layer, _np_lstm_layer, FLOATS, _lstm_layer_samples,
           torch_name="", error_inputs=_lstm_layer_errors),
] + [
    OpInfo("rnn_layer", rnn_layer, _np_rnn_layer, FLOATS, _rnn_layer_samples(mode),
           variant=mode.lower(), torch_name="", error_inputs=_rnn_layer_errors(mode))
    for mode in ("RNN_TANH", "RNN_RELU", "GRU")
] + [
    OpInfo("lstm_cell", _lstm_cell, _np_lstm_cell, FLOATS, _cell_samples(4, with_c=True),
           torch_name="", error_inputs=_cell_errors(4, with_c=True), **_NO_ZERO_SIZE),
    OpInfo("gru_cell", cygrad.gru_cell, _np_gru_cell, FLOATS, _cell_samples(3),
           error_inputs=_cell_errors(3), **_NO_ZERO_SIZE),
    OpInfo("rnn_tanh_cell", cygrad.rnn_tanh_cell, _np_rnn_cell(False), FLOATS, _cell_samples(1),
           error_inputs=_cell_errors(1), **_NO_ZERO_SIZE),
    OpInfo("rnn_relu_cell", cygrad.rnn_relu_cell, _np_rnn_cell(True), FLOATS, _cell_samples(1),
           error_inputs=_cell_errors(1), **_NO_ZERO_SIZE),
]
