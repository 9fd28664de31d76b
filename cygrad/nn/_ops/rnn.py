"""Recurrent ops: single steps (``rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``,
``gru_cell``) and whole layers over a sequence (``lstm_layer``, ``rnn_layer``).

Gate order is PyTorch's: LSTM rows of ``weight_ih``/``weight_hh`` are ``i, f, g, o``;
GRU rows ``r, z, n`` with the reset gate applied to ``W_hn h + b_hn``.

A layer projects the whole input sequence at once (one ``(L*N, I) @ (I, G*H)``
product) and then runs one ``(N, H) @ (H, G*H)`` product per step.  Each layer
direction is a single Function (:class:`LSTMLayer`, :class:`GRULayer`,
:class:`ElmanLayer`) with a hand-written backpropagation through time: per step,
one C kernel of the kernel table (``lstm_step``, ``gru_step``, ``elman_step`` and
their ``_backward``, in ``cygrad/_core/cpu/rnn.c``) does all the elementwise work
between two products, and the weight gradients are a few large products over all
steps at the end, instead of an autograd graph of ~15 nodes per step.  Where the
device has no step kernel for the dtype, and for double backward, the layers are
compositions of differentiable ops (``_lstm_reference``, ``_rnn_reference``), as
are the single-step cells.
"""
from ..._core import dispatch
from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad
from ..._core import tensor as _C
from ...ops.creation import empty, zeros
from ...ops.linalg import addmm
from ...ops.shape import stack
from .linear import _column_sums

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "lstm_layer",
           "rnn_layer", "LSTMLayer", "GRULayer", "ElmanLayer"]


def _gates(input, hx, w_ih, w_hh, b_ih, b_hh):
    """``input @ w_ih.T + b_ih + hx @ w_hh.T + b_hh``."""
    gi = input.matmul(w_ih.t()) if b_ih is None else addmm(b_ih, input, w_ih.t())
    gh = hx.matmul(w_hh.t()) if b_hh is None else addmm(b_hh, hx, w_hh.t())
    return gi + gh


def rnn_tanh_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step: ``tanh(x W_ih^T + b_ih + h W_hh^T + b_hh)`` on ``(N, *)`` inputs.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops.rnn import rnn_tanh_cell
    >>> rnn_tanh_cell(cygrad.ones(2, 3), cygrad.zeros(2, 4), cygrad.ones(4, 3),
    ...               cygrad.ones(4, 4)).shape
    cygrad.Size([2, 4])
    """
    return _gates(input, hx, w_ih, w_hh, b_ih, b_hh).tanh()


def rnn_relu_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One Elman step with ReLU: ``relu(x W_ih^T + b_ih + h W_hh^T + b_hh)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops.rnn import rnn_relu_cell
    >>> rnn_relu_cell(-cygrad.ones(1, 2), cygrad.zeros(1, 2), cygrad.eye(2),
    ...               cygrad.eye(2)).tolist()
    [[0.0, 0.0]]
    """
    return _gates(input, hx, w_ih, w_hh, b_ih, b_hh).relu()


def lstm_cell(input, hx, cx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One LSTM step; returns ``(h, c)``.  Gates ``i, f, g, o`` (PyTorch's order):
    ``c' = f * c + i * g``, ``h' = o * tanh(c')``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops.rnn import lstm_cell
    >>> h, c = lstm_cell(cygrad.ones(2, 3), cygrad.zeros(2, 4), cygrad.zeros(2, 4),
    ...                  cygrad.zeros(16, 3), cygrad.zeros(16, 4))
    >>> h.shape, c.tolist()[0]
    (cygrad.Size([2, 4]), [0.0, 0.0, 0.0, 0.0])
    """
    gates = _gates(input, hx, w_ih, w_hh, b_ih, b_hh)
    H = hx.size(-1)
    act = gates.sigmoid()
    i, f, o = act[:, :H], act[:, H:2 * H], act[:, 3 * H:]
    g = gates[:, 2 * H:3 * H].tanh()
    c = f * cx + i * g
    return o * c.tanh(), c


def gru_cell(input, hx, w_ih, w_hh, b_ih=None, b_hh=None):
    """One GRU step: ``r, z = sigmoid(...)``, ``n = tanh(x W_in^T + b_in + r * (h W_hn^T
    + b_hn))``, ``h' = (1 - z) * n + z * h``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops.rnn import gru_cell
    >>> gru_cell(cygrad.ones(2, 3), cygrad.ones(2, 4), cygrad.zeros(12, 3),
    ...          cygrad.zeros(12, 4)).tolist()[0]
    [0.5, 0.5, 0.5, 0.5]
    """
    gi = input.matmul(w_ih.t()) if b_ih is None else addmm(b_ih, input, w_ih.t())
    gh = hx.matmul(w_hh.t()) if b_hh is None else addmm(b_hh, hx, w_hh.t())
    return _gru_combine(gi, gh, hx)


def _gru_combine(gi, gh, hx):
    H = hx.size(-1)
    rz = (gi[:, :2 * H] + gh[:, :2 * H]).sigmoid()
    r, z = rz[:, :H], rz[:, H:]
    n = (gi[:, 2 * H:] + r * gh[:, 2 * H:]).tanh()
    return n + z * (hx - n)


def _project(x, w_ih, bias):
    """The input projection of every step at once: ``(L, N, I) -> (L, N, G*H)``."""
    L, N, I = x.shape
    x2 = x.reshape(L * N, I)
    out = x2.matmul(w_ih.t()) if bias is None else addmm(bias, x2, w_ih.t())
    return out.reshape(L, N, w_ih.size(0))


def _steps(L, reverse):
    return range(L - 1, -1, -1) if reverse else range(L)


def _rnn_reference(x, h0, w_ih, w_hh, b_ih, b_hh, reverse, mode):
    """One Elman or GRU layer as a composition of differentiable ops (double backward,
    and dtypes or devices without step kernels)."""
    L = x.size(0)
    h = h0
    outs = [None] * L
    if mode == "GRU":
        xp = _project(x, w_ih, b_ih)
        for t in _steps(L, reverse):
            gh = h.matmul(w_hh.t()) if b_hh is None else addmm(b_hh, h, w_hh.t())
            h = outs[t] = _gru_combine(xp[t], gh, h)
    else:
        bias = _sum_bias(b_ih, b_hh)
        xp = _project(x, w_ih, bias)
        whT = w_hh.t()
        for t in _steps(L, reverse):
            pre = addmm(xp[t], h, whT)
            h = outs[t] = pre.tanh() if mode == "RNN_TANH" else pre.relu()
    return stack(outs), h


def _sum_bias(b_ih, b_hh):
    return b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)


def _lstm_reference(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
    """The LSTM layer as a composition of differentiable ops (for double backward)."""
    xp = _project(x, w_ih, _sum_bias(b_ih, b_hh))
    H = h0.size(-1)
    h, c = h0, c0
    outs = [None] * x.size(0)
    for t in _steps(x.size(0), reverse):
        gates = addmm(xp[t], h, w_hh.t())
        act = gates.sigmoid()
        c = act[:, H:2 * H] * c + act[:, :H] * gates[:, 2 * H:3 * H].tanh()
        h = outs[t] = act[:, 3 * H:] * c.tanh()
    return stack(outs), h, c


class _Loop:
    """The step loop of one layer direction: step order, the previous step of each
    step, and the kernels; every buffer it hands out is contiguous ``(L, N, .)``."""

    def __init__(self, x, reverse):
        self.L, self.N = x.shape[0], x.shape[1]
        self.reverse, self.dtype, self.device = reverse, x.dtype, x.device
        self.mm = dispatch.kernel("matmul_into", x.device)

    def steps(self, backward=False):
        return _steps(self.L, self.reverse != backward)

    def prev(self, seq, first, t):
        """``seq`` at the step before ``t`` (``first`` before the first step)."""
        p = t + 1 if self.reverse else t - 1
        return first if p < 0 or p >= self.L else seq[p]

    def empty(self, *shape):
        return empty(shape, dtype=self.dtype, device=self.device)

    def grad_state(self, g):
        """A fresh contiguous copy of an incoming state gradient, or None."""
        if g is None:
            return None
        res = self.empty(*g.shape)
        res.copy_(g)
        return res


def _fused(name, x, *tensors):
    """Whether the step kernel ``name`` runs this layer (its device has one for the
    dtype, and the sequence and batch are not empty)."""
    return (x.size(0) > 0 and x.size(1) > 0 and all(t is not None and t.dtype == x.dtype
                                                     for t in tensors)
            and dispatch.lookup(name, x.device, x.dtype) is not None)


def _contiguous(t):
    return None if t is None else t.contiguous()


class LSTMLayer(Function):
    """One direction of one LSTM layer over a whole sequence: ``(output, h_n, c_n)``.

    The input projection of every step is one product up front; then each step is
    one ``(N, H) @ (H, 4H)`` product and one C kernel (``lstm_step``) that applies
    the gate nonlinearities and updates the state, writing into ``(L, N, .)``
    buffers: ``A`` the gate activations ``[i, f, g, o]`` (sigmoid, ``tanh`` in the
    ``g`` slot), ``C`` the cell states, ``T = tanh(C)`` and the output.  Backwards,
    each step is one kernel (``lstm_step_backward``: the gradient ``D`` of the gate
    pre-activations and of the previous cell state) and one ``(N, 4H) @ (4H, H)``
    product; the weight gradients are three large products over all steps at the
    end.
    """
    _node_name = "LSTMLayerBackward"

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
        loop = _Loop(x, reverse)
        H = h0.size(-1)
        xp = _project(x, w_ih, _sum_bias(b_ih, b_hh))
        # BLAS runs the per-step product ~1.5x faster on a contiguous right operand
        # than on the transposed view; one copy up front pays for itself in 2 steps.
        whT = w_hh.t().contiguous()
        L, N = loop.L, loop.N
        out, A, C, T = loop.empty(L, N, H), loop.empty(L, N, 4 * H), loop.empty(L, N, H), \
            loop.empty(L, N, H)
        gh = loop.empty(N, 4 * H)
        step = dispatch.kernel("lstm_step", x.device)
        h, c = h0, c0.contiguous()
        for t in loop.steps():
            loop.mm(h, whT, gh)
            step(gh, xp[t], c, A[t], C[t], T[t], out[t])
            h, c = out[t], C[t]
        ctx.reverse = reverse
        ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, out, A, C, T)
        return out, h, c

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, out, A, C, T = ctx.saved_tensors
        if _C.is_grad_enabled():
            return _backward_by_recompute(ctx, _lstm_reference, (x, h0, c0, w_ih, w_hh, b_ih, b_hh),
                                          (g_out, g_h, g_c), (ctx.reverse,))
        loop = _Loop(x, ctx.reverse)
        L, N, H = loop.L, loop.N, h0.size(-1)
        g_out = _contiguous(g_out)
        dh = loop.grad_state(g_h)
        dc = loop.grad_state(g_c)
        if dc is None:
            dc = zeros(N, H, dtype=x.dtype, device=x.device)
        c0 = c0.contiguous()
        D = loop.empty(L, N, 4 * H)
        dh_next = loop.empty(N, H)
        step = dispatch.kernel("lstm_step_backward", x.device)
        for t in loop.steps(backward=True):
            step(dh, None if g_out is None else g_out[t], dc, A[t], loop.prev(C, c0, t), T[t],
                 D[t])
            loop.mm(D[t], w_hh, dh_next)
            dh = dh_next
        return _input_and_weight_grads(ctx, x, h0, w_ih, D, D, out, (dh, dc), 3) + (None,)

    @staticmethod
    def jvp(ctx, tx, th0, tc0, tw_ih, tw_hh, tb_ih, tb_hh, _):
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, out, A, C, T = ctx._to_save
        L, N, _ = x.shape
        H = h0.size(-1)
        dxp = _projection_tangent(x, w_ih, tx, tw_ih, (tb_ih, tb_hh), 4 * H)
        dh = th0 if th0 is not None else zeros(N, H, dtype=x.dtype)
        dc = tc0 if tc0 is not None else zeros(N, H, dtype=x.dtype)
        h, c = h0, c0
        douts = [None] * L
        for t in _steps(L, ctx.reverse):
            dg = addmm(dxp[t], dh, w_hh.t())
            if tw_hh is not None:
                dg = addmm(dg, h, tw_hh.t())
            a = A[t]
            i, f, g, o = a[:, :H], a[:, H:2 * H], a[:, 2 * H:3 * H], a[:, 3 * H:]
            da = dg * (a - a * a)          # the g slot of da is unused
            ddg = dg[:, 2 * H:3 * H] * (1 - g * g)
            dc = da[:, H:2 * H] * c + f * dc + da[:, :H] * g + i * ddg
            dh = douts[t] = da[:, 3 * H:] * T[t] + o * (1 - T[t] * T[t]) * dc
            h, c = out[t], C[t]
        return stack(douts), dh, dc


class GRULayer(Function):
    """One direction of one GRU layer over a whole sequence: ``(output, h_n)``.

    As :class:`LSTMLayer`: the input projection ``gi`` (with ``b_ih``) of every step
    up front, then per step one product ``gh = h W_hh^T + b_hh`` and one C kernel
    (``gru_step``) that keeps the activations ``A = [r, z, n]`` and ``gh``'s ``n``
    slot (``GHN``: the reset gate multiplies it).  Backwards, per step one kernel
    (``gru_step_backward``: the gradients ``DI`` of ``gi`` and ``DG`` of ``gh``) and
    one product ``DG[t] @ W_hh``.
    """
    _node_name = "GRULayerBackward"

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, reverse):
        loop = _Loop(x, reverse)
        L, N, H = loop.L, loop.N, h0.size(-1)
        xp = _project(x, w_ih, b_ih)
        whT = w_hh.t().contiguous()
        out, A, GHN = loop.empty(L, N, H), loop.empty(L, N, 3 * H), loop.empty(L, N, H)
        gh = loop.empty(N, 3 * H)
        step = dispatch.kernel("gru_step", x.device)
        h = h0 = h0.contiguous()
        for t in loop.steps():
            loop.mm(h, whT, gh)
            if b_hh is not None:
                gh.add_(b_hh)
            h = step(xp[t], gh, h, A[t], GHN[t], out[t])
        ctx.reverse = reverse
        ctx.save_for_backward(x, h0, w_ih, w_hh, b_ih, b_hh, out, A, GHN)
        return out, h

    @staticmethod
    def backward(ctx, g_out, g_h):
        x, h0, w_ih, w_hh, b_ih, b_hh, out, A, GHN = ctx.saved_tensors
        if _C.is_grad_enabled():
            return _backward_by_recompute(ctx, _rnn_reference, (x, h0, w_ih, w_hh, b_ih, b_hh),
                                          (g_out, g_h), (ctx.reverse, "GRU"))
        loop = _Loop(x, ctx.reverse)
        L, N, H = loop.L, loop.N, h0.size(-1)
        g_out = _contiguous(g_out)
        dh = loop.grad_state(g_h)
        DI, DG = loop.empty(L, N, 3 * H), loop.empty(L, N, 3 * H)
        direct, dh_next = loop.empty(N, H), loop.empty(N, H)
        step = dispatch.kernel("gru_step_backward", x.device)
        for t in loop.steps(backward=True):
            step(dh, None if g_out is None else g_out[t], A[t], GHN[t], loop.prev(out, h0, t),
                 DI[t], DG[t], direct)
            loop.mm(DG[t], w_hh, dh_next)
            dh = dh_next.add_(direct)
        return _input_and_weight_grads(ctx, x, h0, w_ih, DI, DG, out, (dh,), 2) + (None,)

    @staticmethod
    def jvp(ctx, tx, th0, tw_ih, tw_hh, tb_ih, tb_hh, _):
        x, h0, w_ih, w_hh, b_ih, b_hh, out, A, GHN = ctx._to_save
        L, N, _ = x.shape
        H = h0.size(-1)
        dgi = _projection_tangent(x, w_ih, tx, tw_ih, (tb_ih,), 3 * H)
        dh = th0 if th0 is not None else zeros(N, H, dtype=x.dtype)
        h = h0
        douts = [None] * L
        for t in _steps(L, ctx.reverse):
            dgh = dh.matmul(w_hh.t())
            if tw_hh is not None:
                dgh = addmm(dgh, h, tw_hh.t())
            if tb_hh is not None:
                dgh = dgh + tb_hh
            a = A[t]
            r, z, n = a[:, :H], a[:, H:2 * H], a[:, 2 * H:]
            drz = (dgi[t, :, :2 * H] + dgh[:, :2 * H]) * (a[:, :2 * H] - a[:, :2 * H] ** 2)
            dr, dz = drz[:, :H], drz[:, H:]
            dn = (dgi[t, :, 2 * H:] + dr * GHN[t] + r * dgh[:, 2 * H:]) * (1 - n * n)
            dh = douts[t] = dn + dz * (h - n) + z * (dh - dn)
            h = out[t]
        return stack(douts), dh


class ElmanLayer(Function):
    """One direction of one Elman RNN layer (``tanh``, or ReLU with ``relu``) over a
    whole sequence: ``(output, h_n)``. Per step one product and one C kernel
    (``elman_step``) forwards, one kernel (``elman_step_backward``: the gradient
    ``D`` of the pre-activation) and one product backwards."""
    _node_name = "RNNLayerBackward"

    @staticmethod
    def forward(ctx, x, h0, w_ih, w_hh, b_ih, b_hh, reverse, relu):
        loop = _Loop(x, reverse)
        L, N, H = loop.L, loop.N, h0.size(-1)
        xp = _project(x, w_ih, _sum_bias(b_ih, b_hh))
        whT = w_hh.t().contiguous()
        out, gh = loop.empty(L, N, H), loop.empty(N, H)
        step = dispatch.kernel("elman_step", x.device)
        h = h0
        for t in loop.steps():
            loop.mm(h, whT, gh)
            h = step(gh, xp[t], out[t], relu)
        ctx.reverse, ctx.relu = reverse, relu
        ctx.save_for_backward(x, h0, w_ih, w_hh, b_ih, b_hh, out)
        return out, h

    @staticmethod
    def backward(ctx, g_out, g_h):
        x, h0, w_ih, w_hh, b_ih, b_hh, out = ctx.saved_tensors
        if _C.is_grad_enabled():
            mode = "RNN_RELU" if ctx.relu else "RNN_TANH"
            return _backward_by_recompute(ctx, _rnn_reference, (x, h0, w_ih, w_hh, b_ih, b_hh),
                                          (g_out, g_h), (ctx.reverse, mode))
        loop = _Loop(x, ctx.reverse)
        L, N, H = loop.L, loop.N, h0.size(-1)
        g_out = _contiguous(g_out)
        dh = loop.grad_state(g_h)
        D, dh_next = loop.empty(L, N, H), loop.empty(N, H)
        step = dispatch.kernel("elman_step_backward", x.device)
        for t in loop.steps(backward=True):
            step(dh, None if g_out is None else g_out[t], out[t], D[t], ctx.relu)
            loop.mm(D[t], w_hh, dh_next)
            dh = dh_next
        return _input_and_weight_grads(ctx, x, h0, w_ih, D, D, out, (dh,), 2) + (None, None)

    @staticmethod
    def jvp(ctx, tx, th0, tw_ih, tw_hh, tb_ih, tb_hh, *_):
        x, h0, w_ih, w_hh, b_ih, b_hh, out = ctx._to_save
        L, N, _ = x.shape
        H = h0.size(-1)
        dxp = _projection_tangent(x, w_ih, tx, tw_ih, (tb_ih, tb_hh), H)
        dh = th0 if th0 is not None else zeros(N, H, dtype=x.dtype)
        h = h0
        douts = [None] * L
        for t in _steps(L, ctx.reverse):
            dpre = addmm(dxp[t], dh, w_hh.t())
            if tw_hh is not None:
                dpre = addmm(dpre, h, tw_hh.t())
            h = out[t]
            slope = (h > 0).to(h.dtype) if ctx.relu else 1 - h * h
            dh = douts[t] = dpre * slope
        return stack(douts), dh


def _projection_tangent(x, w_ih, tx, tw_ih, tbiases, G):
    """The tangent of ``x W_ih^T + biases``: ``dx W^T + x dW^T + sum(db)``, ``(L, N, G)``."""
    L, N, _ = x.shape
    dxp = zeros(L, N, G, dtype=x.dtype)
    if tx is not None:
        dxp = dxp + _project(tx, w_ih, None)
    if tw_ih is not None:
        dxp = dxp + _project(x, tw_ih, None)
    for tb in tbiases:
        if tb is not None:
            dxp = dxp + tb
    return dxp


def _input_and_weight_grads(ctx, x, h0, w_ih, DI, DH, out, state_grads, first_weight):
    """The gradients a layer Function returns, from the gradients of the gates'
    pre-activations of every step: ``DI`` (input side) and ``DH`` (hidden side; the
    same tensor for LSTM and Elman layers): ``(x, *states, w_ih, w_hh, b_ih, b_hh)``;
    ``first_weight`` is ``w_ih``'s position."""
    L, N, G = DI.shape
    needs = ctx.needs_input_grad
    k = first_weight
    DI2, DH2 = DI.reshape(L * N, G), DH.reshape(L * N, G)
    gx = DI2.mm(w_ih).reshape(x.shape) if needs[0] else None
    states = tuple(g if needs[1 + j] else None for j, g in enumerate(state_grads))
    gw_ih = DI2.t().mm(x.reshape(L * N, x.size(2))) if needs[k] else None
    gw_hh = _hidden_weight_grad(DH, out, h0, ctx.reverse) if needs[k + 1] else None
    gb_ih = _column_sums(DI2) if needs[k + 2] else None
    if not needs[k + 3]:
        gb_hh = None
    else:
        gb_hh = gb_ih if DH is DI and gb_ih is not None else _column_sums(DH2)
    return (gx,) + states + (gw_ih, gw_hh, gb_ih, gb_hh)


def _hidden_weight_grad(D, out, h0, reverse):
    """``sum_t D[t].T @ h_prev[t]`` as two products, without building ``h_prev``:
    every step but the first starts from the previous step's output."""
    L, N, G = D.shape
    H = h0.size(-1)
    first, rest = (L - 1, slice(0, L - 1)) if reverse else (0, slice(1, L))
    prev = slice(1, L) if reverse else slice(0, L - 1)
    g = D[first].t().mm(h0)
    if L > 1:
        g = g.add_(D[rest].reshape(-1, G).t().mm(out[prev].reshape(-1, H)))
    return g


def _backward_by_recompute(ctx, reference, inputs, grads, extra):
    """``create_graph=True``: rebuild the layer from differentiable ops
    (``reference(*inputs, *extra)``) and differentiate that, so the gradient is
    itself differentiable."""
    from ...autograd import grad as _grad
    wanted = [k for k, t in enumerate(inputs)
              if t is not None and ctx.needs_input_grad[k]]
    with enable_grad():
        outs = reference(*inputs, *extra)
        pairs = [(o, g) for o, g in zip(outs, grads) if g is not None]
        got = _grad([o for o, _ in pairs], [inputs[k] for k in wanted],
                    [g for _, g in pairs], create_graph=True, allow_unused=True)
    result = [None] * (len(inputs) + len(extra))
    for k, gk in zip(wanted, got):
        result[k] = gk
    return tuple(result)


def lstm_layer(x, h0, c0, w_ih, w_hh, b_ih=None, b_hh=None, reverse=False):
    """One direction of one LSTM layer over ``x`` ``(L, N, I)``: returns ``(output, h_n,
    c_n)`` with ``output`` ``(L, N, H)``; ``reverse`` runs from the last step to the first.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops.rnn import lstm_layer
    >>> out, h, c = lstm_layer(cygrad.randn(5, 2, 3), cygrad.zeros(2, 4), cygrad.zeros(2, 4),
    ...                        cygrad.randn(16, 3), cygrad.randn(16, 4))
    >>> out.shape, bool((out[-1] == h).all())
    (cygrad.Size([5, 2, 4]), True)
    """
    if not _fused("lstm_step", x, h0, c0, w_ih, w_hh):
        return _lstm_reference(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse)
    return LSTMLayer.apply(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse)


def rnn_layer(x, h0, w_ih, w_hh, b_ih, b_hh, reverse, mode):
    """One direction of one layer of an Elman RNN (``mode`` ``"RNN_TANH"`` or
    ``"RNN_RELU"``) or GRU over ``x`` ``(L, N, I)``; returns ``(output, h_n)``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops.rnn import rnn_layer
    >>> out, h = rnn_layer(cygrad.ones(5, 2, 3), cygrad.zeros(2, 4), cygrad.ones(12, 3),
    ...                    cygrad.ones(12, 4), None, None, False, "GRU")
    >>> out.shape, h.shape
    (cygrad.Size([5, 2, 4]), cygrad.Size([2, 4]))
    """
    if mode == "GRU":
        if _fused("gru_step", x, h0, w_ih, w_hh):
            return GRULayer.apply(x, h0, w_ih, w_hh, b_ih, b_hh, reverse)
    elif _fused("elman_step", x, h0, w_ih, w_hh):
        return ElmanLayer.apply(x, h0, w_ih, w_hh, b_ih, b_hh, reverse, mode == "RNN_RELU")
    return _rnn_reference(x, h0, w_ih, w_hh, b_ih, b_hh, reverse, mode)
