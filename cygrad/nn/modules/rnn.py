"""Recurrent layers: ``RNN``, ``LSTM``, ``GRU`` and their single-step cells
``RNNCell``, ``LSTMCell``, ``GRUCell``, with PyTorch's parameter names, shapes and
initialisation (every weight and bias from U(-1/sqrt(hidden), 1/sqrt(hidden)))."""
import math
import numbers
import warnings

from ...ops.creation import empty, zeros
from ...ops.shape import cat, stack
from .. import init
from .._ops import rnn as _R
from .._ops.dropout import dropout as _dropout
from ..parameter import Parameter
from .module import Module

__all__ = ["RNNBase", "RNN", "LSTM", "GRU", "RNNCellBase", "RNNCell", "LSTMCell", "GRUCell"]

_GATES = {"LSTM": 4, "GRU": 3, "RNN_TANH": 1, "RNN_RELU": 1}


class RNNBase(Module):
    """What ``RNN``, ``LSTM`` and ``GRU`` share: the per-layer, per-direction
    parameters (``weight_ih_l{k}[_reverse]``, ``weight_hh_l{k}``, ``bias_ih_l{k}``,
    ``bias_hh_l{k}``), argument checks and the stacking of layers and directions.

    Examples
    --------
    >>> from cygrad import nn
    >>> [n for n, _ in nn.GRU(2, 3, bidirectional=True).named_parameters()][:5]
    ['weight_ih_l0', 'weight_hh_l0', 'bias_ih_l0', 'bias_hh_l0', 'weight_ih_l0_reverse']
    """

    def __init__(self, mode, input_size, hidden_size, num_layers=1, bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, proj_size=0,
                 device=None, dtype=None):
        super().__init__()
        self.mode = mode
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.num_layers = num_layers
        self.bias = bias
        self.batch_first = batch_first
        self.dropout = float(dropout)
        self.bidirectional = bidirectional
        self.proj_size = proj_size
        if (not isinstance(dropout, numbers.Number) or not 0 <= dropout <= 1
                or isinstance(dropout, bool)):
            raise ValueError("dropout should be a number in range [0, 1] representing the "
                             "probability of an element being zeroed")
        if dropout > 0 and num_layers == 1:
            warnings.warn("dropout option adds dropout after all but last recurrent layer, so "
                          "non-zero dropout expects num_layers greater than 1, but got "
                          f"dropout={dropout} and num_layers={num_layers}")
        if not isinstance(hidden_size, int):
            raise TypeError(f"hidden_size should be of type int, got: {type(hidden_size).__name__}")
        if hidden_size <= 0:
            raise ValueError("hidden_size must be greater than zero")
        if num_layers <= 0:
            raise ValueError("num_layers must be greater than zero")
        if proj_size != 0:
            raise NotImplementedError("proj_size is not supported by cygrad's LSTM")
        if mode not in _GATES:
            raise ValueError(f"Unrecognized RNN mode: {mode}")
        gate_size = _GATES[mode] * hidden_size
        num_directions = 2 if bidirectional else 1
        self._flat_weights_names = []
        self._all_weights = []
        for layer in range(num_layers):
            for direction in range(num_directions):
                layer_in = input_size if layer == 0 else hidden_size * num_directions
                suffix = "_reverse" if direction == 1 else ""
                shapes = [("weight_ih", (gate_size, layer_in)), ("weight_hh", (gate_size, hidden_size))]
                if bias:
                    shapes += [("bias_ih", (gate_size,)), ("bias_hh", (gate_size,))]
                names = []
                for kind, shape in shapes:
                    name = f"{kind}_l{layer}{suffix}"
                    setattr(self, name, Parameter(empty(shape, device=device, dtype=dtype)))
                    names.append(name)
                self._flat_weights_names.extend(names)
                self._all_weights.append(names)
        self.reset_parameters()

    def reset_parameters(self):
        """Every weight and bias from U(-1/sqrt(hidden_size), 1/sqrt(hidden_size))."""
        stdv = 1.0 / math.sqrt(self.hidden_size) if self.hidden_size > 0 else 0
        for weight in self.parameters():
            init.uniform_(weight, -stdv, stdv)

    @property
    def _flat_weights(self):
        return [getattr(self, name) for name in self._flat_weights_names]

    @property
    def all_weights(self):
        """The parameters grouped per layer and direction."""
        return [[getattr(self, name) for name in names] for names in self._all_weights]

    def flatten_parameters(self):
        """A no-op kept for PyTorch compatibility (cuDNN weight packing)."""

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.num_layers != 1:
            s += f", num_layers={self.num_layers}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if self.batch_first is not False:
            s += f", batch_first={self.batch_first}"
        if self.dropout != 0:
            s += f", dropout={self.dropout}"
        if self.bidirectional is not False:
            s += f", bidirectional={self.bidirectional}"
        return s

    # ---- forward -------------------------------------------------------------------

    def _prepare_input(self, input):
        name = type(self).__name__
        if input.dim() not in (2, 3):
            raise ValueError(f"{name}: Expected input to be 2D or 3D, got {input.dim()}D tensor "
                             "instead")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input.size(-1) must be equal to input_size. Expected "
                               f"{self.input_size}, got {input.size(-1)}")
        batched = input.dim() == 3
        if not batched:
            input = input.unsqueeze(1)
        elif self.batch_first:
            input = input.transpose(0, 1)
        return input, batched

    def _state_shape(self, batch):
        return (self.num_layers * (2 if self.bidirectional else 1), batch, self.hidden_size)

    def _check_hidden(self, hx, batch, what="hidden"):
        expected = self._state_shape(batch)
        if tuple(hx.shape) != expected:
            raise RuntimeError(f"Expected {what} size {expected}, got {list(hx.shape)}")

    def _batched_state(self, hx, batched, what):
        """An explicit ``hx`` with the batch dim the layers expect (checked for rank)."""
        if batched and hx.dim() != 3:
            raise RuntimeError(f"For batched 3-D input, hx should also be 3-D but got "
                               f"{hx.dim()}-D tensor")
        if not batched and hx.dim() != 2:
            raise RuntimeError(f"For unbatched 2-D input, hx should also be 2-D but got "
                               f"{hx.dim()}-D tensor")
        return hx if batched else hx.unsqueeze(1)

    def _run(self, x, states, layer_fn):
        """Stack the layers: ``states`` holds one tuple of initial states per
        (layer, direction); ``layer_fn(x, state, weights, reverse)`` returns
        ``(output, final_states_tuple)``."""
        D = 2 if self.bidirectional else 1
        finals = []
        for layer in range(self.num_layers):
            outs = []
            for d in range(D):
                k = layer * D + d
                weights = self._layer_weights(k)
                out, final = layer_fn(x, states[k], weights, d == 1)
                outs.append(out)
                finals.append(final)
            x = outs[0] if D == 1 else cat(outs, 2)
            if self.dropout and self.training and layer < self.num_layers - 1:
                x = _dropout(x, self.dropout, True)
        return x, finals

    def _layer_weights(self, k):
        w = [getattr(self, name) for name in self._all_weights[k]]
        return (w[0], w[1], w[2], w[3]) if self.bias else (w[0], w[1], None, None)

    def _finish(self, output, batched):
        if not batched:
            return output.squeeze(1)
        return output.transpose(0, 1) if self.batch_first else output


class RNN(RNNBase):
    """A multi-layer Elman RNN, ``h_t = tanh(x_t W_ih^T + b_ih + h_{t-1} W_hh^T + b_hh)``
    (or ``relu``), as ``torch.nn.RNN``.  Returns ``(output, h_n)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> rnn = nn.RNN(10, 20, 2)
    >>> output, hn = rnn(cygrad.randn(5, 3, 10), cygrad.randn(2, 3, 20))
    >>> output.shape, hn.shape
    (cygrad.Size([5, 3, 20]), cygrad.Size([2, 3, 20]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, nonlinearity="tanh", bias=True,
                 batch_first=False, dropout=0.0, bidirectional=False, device=None, dtype=None):
        if nonlinearity == "tanh":
            mode = "RNN_TANH"
        elif nonlinearity == "relu":
            mode = "RNN_RELU"
        else:
            raise ValueError(f"Unknown nonlinearity '{nonlinearity}'. Select from 'tanh' or "
                             "'relu'.")
        self.nonlinearity = nonlinearity
        super().__init__(mode, input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)

    def forward(self, input, hx=None):
        x, batched = self._prepare_input(input)
        N = x.size(1)
        if hx is None:
            hx = zeros(self._state_shape(N), dtype=x.dtype, device=x.device)
        else:
            hx = self._batched_state(hx, batched, "hidden")
            self._check_hidden(hx, N)
        mode = self.mode

        def layer(x, h0, w, reverse):
            out, h = _R.rnn_layer(x, h0, *w, reverse, mode)
            return out, h

        output, finals = self._run(x, list(hx.unbind(0)), layer)
        h_n = stack(finals)
        return self._finish(output, batched), (h_n if batched else h_n.squeeze(1))


class GRU(RNNBase):
    """A multi-layer gated recurrent unit, as ``torch.nn.GRU`` (gates ``r, z, n``; the
    reset gate multiplies ``W_hn h + b_hn``).  Returns ``(output, h_n)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> gru = nn.GRU(10, 20, 2, batch_first=True)
    >>> output, hn = gru(cygrad.randn(3, 5, 10))
    >>> output.shape, hn.shape
    (cygrad.Size([3, 5, 20]), cygrad.Size([2, 3, 20]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, device=None, dtype=None):
        super().__init__("GRU", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, 0, device, dtype)

    forward = RNN.forward


class LSTM(RNNBase):
    """A multi-layer long short-term memory RNN, as ``torch.nn.LSTM`` (gates ``i, f, g,
    o``).  ``forward(input, (h_0, c_0))`` returns ``(output, (h_n, c_n))``; each layer
    and direction is one fused :class:`~cygrad.nn._ops.rnn.LSTMLayer` op.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> lstm = nn.LSTM(10, 20, 2, bidirectional=True)
    >>> output, (hn, cn) = lstm(cygrad.randn(5, 3, 10))
    >>> output.shape, hn.shape, cn.shape
    (cygrad.Size([5, 3, 40]), cygrad.Size([4, 3, 20]), cygrad.Size([4, 3, 20]))
    """

    def __init__(self, input_size, hidden_size, num_layers=1, bias=True, batch_first=False,
                 dropout=0.0, bidirectional=False, proj_size=0, device=None, dtype=None):
        super().__init__("LSTM", input_size, hidden_size, num_layers, bias, batch_first, dropout,
                         bidirectional, proj_size, device, dtype)

    def forward(self, input, hx=None):
        x, batched = self._prepare_input(input)
        N = x.size(1)
        if hx is None:
            h0 = zeros(self._state_shape(N), dtype=x.dtype, device=x.device)
            c0 = h0
        else:
            h0, c0 = hx
            if batched and (h0.dim() != 3 or c0.dim() != 3):
                raise RuntimeError(f"For batched 3-D input, hx and cx should also be 3-D but "
                                   f"got ({h0.dim()}-D, {c0.dim()}-D) tensors")
            if not batched and (h0.dim() != 2 or c0.dim() != 2):
                raise RuntimeError(f"For unbatched 2-D input, hx and cx should also be 2-D "
                                   f"but got ({h0.dim()}-D, {c0.dim()}-D) tensors")
            if not batched:
                h0, c0 = h0.unsqueeze(1), c0.unsqueeze(1)
            self._check_hidden(h0, N, "hidden[0]")
            self._check_hidden(c0, N, "hidden[1]")

        def layer(x, state, w, reverse):
            out, h, c = _R.lstm_layer(x, state[0], state[1], *w, reverse)
            return out, (h, c)

        states = list(zip(h0.unbind(0), c0.unbind(0)))
        output, finals = self._run(x, states, layer)
        h_n = stack([f[0] for f in finals])
        c_n = stack([f[1] for f in finals])
        if not batched:
            h_n, c_n = h_n.squeeze(1), c_n.squeeze(1)
        return self._finish(output, batched), (h_n, c_n)


class RNNCellBase(Module):
    """What the cells share: ``weight_ih`` ``(G*H, input_size)``, ``weight_hh``
    ``(G*H, H)``, ``bias_ih``/``bias_hh`` ``(G*H,)``, all from U(-1/sqrt(H), 1/sqrt(H)).

    Examples
    --------
    >>> from cygrad import nn
    >>> nn.LSTMCell(3, 5).weight_hh.shape
    cygrad.Size([20, 5])
    """

    def __init__(self, input_size, hidden_size, bias, num_chunks, device=None, dtype=None):
        super().__init__()
        self.input_size = input_size
        self.hidden_size = hidden_size
        self.bias = bias
        kw = dict(device=device, dtype=dtype)
        self.weight_ih = Parameter(empty((num_chunks * hidden_size, input_size), **kw))
        self.weight_hh = Parameter(empty((num_chunks * hidden_size, hidden_size), **kw))
        if bias:
            self.bias_ih = Parameter(empty(num_chunks * hidden_size, **kw))
            self.bias_hh = Parameter(empty(num_chunks * hidden_size, **kw))
        else:
            self.register_parameter("bias_ih", None)
            self.register_parameter("bias_hh", None)
        self.reset_parameters()

    reset_parameters = RNNBase.reset_parameters

    def extra_repr(self):
        s = f"{self.input_size}, {self.hidden_size}"
        if self.bias is not True:
            s += f", bias={self.bias}"
        if getattr(self, "nonlinearity", "tanh") != "tanh":
            s += f", nonlinearity={self.nonlinearity}"
        return s

    def _prepare(self, input, hx):
        name = type(self).__name__
        if input.dim() not in (1, 2):
            raise ValueError(f"{name}: Expected input to be 1D or 2D, got {input.dim()}D instead")
        if input.size(-1) != self.input_size:
            raise RuntimeError(f"input has inconsistent input_size: got {input.size(-1)} "
                               f"expected {self.input_size}")
        batched = input.dim() == 2
        if not batched:
            input = input.unsqueeze(0)
        if hx is None:
            return input, None, batched
        if hx.dim() != input.dim() and batched:
            raise ValueError(f"{name}: Expected hidden to be 2D, got {hx.dim()}D instead")
        if not batched:
            if hx.dim() != 1:
                raise ValueError(f"{name}: Expected hidden to be 1D, got {hx.dim()}D instead")
            hx = hx.unsqueeze(0)
        if hx.size(-1) != self.hidden_size:
            raise RuntimeError(f"hidden0 has inconsistent hidden_size: got {hx.size(-1)}, "
                               f"expected {self.hidden_size}")
        return input, hx, batched

    def _zeros(self, input):
        return zeros(input.size(0), self.hidden_size, dtype=input.dtype, device=input.device)


class RNNCell(RNNCellBase):
    """One Elman step, as ``torch.nn.RNNCell``: ``h' = tanh(x W_ih^T + b_ih + h W_hh^T +
    b_hh)`` (``nonlinearity="relu"``: relu).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> cell = nn.RNNCell(10, 20)
    >>> cell(cygrad.randn(3, 10)).shape
    cygrad.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, nonlinearity="tanh", device=None,
                 dtype=None):
        if nonlinearity not in ("tanh", "relu"):
            raise RuntimeError(f"Unknown nonlinearity: {nonlinearity}")
        super().__init__(input_size, hidden_size, bias, 1, device, dtype)
        self.nonlinearity = nonlinearity

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx)
        if hx is None:
            hx = self._zeros(input)
        fn = _R.rnn_tanh_cell if self.nonlinearity == "tanh" else _R.rnn_relu_cell
        h = fn(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)


class LSTMCell(RNNCellBase):
    """One LSTM step, as ``torch.nn.LSTMCell``: ``forward(input, (h, c))`` returns
    ``(h', c')``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> cell = nn.LSTMCell(10, 20)
    >>> h, c = cell(cygrad.randn(3, 10))
    >>> h.shape, c.shape
    (cygrad.Size([3, 20]), cygrad.Size([3, 20]))
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 4, device, dtype)

    def forward(self, input, hx=None):
        if hx is None:
            input, _, batched = self._prepare(input, None)
            h0 = c0 = self._zeros(input)
        else:
            input, h0, batched = self._prepare(input, hx[0])
            _, c0, _ = self._prepare(input if batched else input.squeeze(0), hx[1])
        h, c = _R.lstm_cell(input, h0, c0, self.weight_ih, self.weight_hh, self.bias_ih,
                            self.bias_hh)
        return (h, c) if batched else (h.squeeze(0), c.squeeze(0))


class GRUCell(RNNCellBase):
    """One GRU step, as ``torch.nn.GRUCell``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad import nn
    >>> cell = nn.GRUCell(10, 20)
    >>> cell(cygrad.randn(3, 10), cygrad.randn(3, 20)).shape
    cygrad.Size([3, 20])
    """

    def __init__(self, input_size, hidden_size, bias=True, device=None, dtype=None):
        super().__init__(input_size, hidden_size, bias, 3, device, dtype)

    def forward(self, input, hx=None):
        input, hx, batched = self._prepare(input, hx)
        if hx is None:
            hx = self._zeros(input)
        h = _R.gru_cell(input, hx, self.weight_ih, self.weight_hh, self.bias_ih, self.bias_hh)
        return h if batched else h.squeeze(0)
