"""Recurrent ops: single steps (``rnn_tanh_cell``, ``rnn_relu_cell``, ``lstm_cell``,
``gru_cell``) and whole layers over a sequence (``lstm_layer``, ``rnn_layer``).

Gate order is PyTorch's: LSTM rows of ``weight_ih``/``weight_hh`` are ``i, f, g, o``;
GRU rows ``r, z, n`` with the reset gate applied to ``W_hn h + b_hn``.

A layer projects the whole input sequence at once (one ``(L*N, I) @ (I, G*H)``
product) and then runs one ``(N, H) @ (H, G*H)`` product per step.  The LSTM layer,
the one in every language-model training step, is a single Function
(:class:`LSTMLayer`) with a hand-written backpropagation through time: the
per-step work of the backward pass is seven small ops, and the weight gradients
are three large products over all steps at the end, instead of an autograd graph
of ~15 nodes per step.  The cells and the RNN/GRU layers are compositions of
differentiable ops.
"""
from ...autograd.function import Function
from ...autograd.grad_mode import enable_grad
from ..._core import tensor as _C
from ...ops.creation import empty, ones, zeros
from ...ops.elementwise import mul, sigmoid, tanh
from ...ops.linalg import addmm
from ...ops.shape import cat, stack

__all__ = ["rnn_tanh_cell", "rnn_relu_cell", "lstm_cell", "gru_cell", "lstm_layer",
           "rnn_layer", "LSTMLayer"]


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
    L = x.size(0)
    h = h0
    outs = [None] * L
    if mode == "GRU":
        xp = _project(x, w_ih, b_ih)
        for t in _steps(L, reverse):
            gh = h.matmul(w_hh.t()) if b_hh is None else addmm(b_hh, h, w_hh.t())
            h = outs[t] = _gru_combine(xp[t], gh, h)
    else:
        bias = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
        xp = _project(x, w_ih, bias)
        whT = w_hh.t()
        for t in _steps(L, reverse):
            pre = addmm(xp[t], h, whT)
            h = outs[t] = pre.tanh() if mode == "RNN_TANH" else pre.relu()
    return stack(outs), h


def _lstm_reference(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
    """The LSTM layer as a composition of differentiable ops (for double backward)."""
    bias = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
    xp = _project(x, w_ih, bias)
    H = h0.size(-1)
    h, c = h0, c0
    outs = [None] * x.size(0)
    for t in _steps(x.size(0), reverse):
        gates = addmm(xp[t], h, w_hh.t())
        act = gates.sigmoid()
        c = act[:, H:2 * H] * c + act[:, :H] * gates[:, 2 * H:3 * H].tanh()
        h = outs[t] = act[:, 3 * H:] * c.tanh()
    return stack(outs), h, c


class LSTMLayer(Function):
    """One direction of one LSTM layer over a whole sequence: ``(output, h_n, c_n)``.

    The forward pass writes each step's results straight into preallocated
    ``(L, N, .)`` buffers (``out=`` views, no per-step allocation or final stack):
    ``A`` holds the gate activations ``[i, f, g, o]`` (sigmoid, with ``tanh`` in
    the ``g`` slot), ``C`` the cell states and ``T = tanh(C)``.  With ``dc`` and
    ``dh`` the gradients reaching a step's cell and hidden state, the gradient of
    its pre-activation gates is ``[dc, dc, dc, dh] * P`` where ``P = [g i(1-i),
    c_prev f(1-f), i (1-g^2), T o(1-o)]`` is computed for all steps at once before
    the loop; each step of the loop is then five small ops and one product.
    """
    _node_name = "LSTMLayerBackward"

    @staticmethod
    def forward(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse):
        L, N, _ = x.shape
        H = h0.size(-1)
        bias = b_ih if b_hh is None else (b_hh if b_ih is None else b_ih + b_hh)
        xp = _project(x, w_ih, bias)
        # BLAS runs the per-step product ~1.5x faster on a contiguous right operand
        # than on the transposed view; one copy up front pays for itself in 2 steps.
        whT = w_hh.t().contiguous()
        out, A = _empty((L, N, H), x), _empty((L, N, 4 * H), x)
        C, T = _empty((L, N, H), x), _empty((L, N, H), x)
        h, c = h0, c0
        for t in _steps(L, reverse):
            gates = h.mm(whT).add_(xp[t])
            a, c_t, tc = A[t], C[t], T[t]
            sigmoid(gates, out=a)
            tanh(gates[:, 2 * H:3 * H], out=a[:, 2 * H:3 * H])
            mul(a[:, H:2 * H], c, out=c_t).add_(a[:, :H] * a[:, 2 * H:3 * H])
            tanh(c_t, out=tc)
            h, c = mul(a[:, 3 * H:], tc, out=out[t]), c_t
        ctx.reverse = reverse
        ctx.save_for_backward(x, h0, c0, w_ih, w_hh, b_ih, b_hh, out, A, C, T)
        return out, h, c

    @staticmethod
    def backward(ctx, g_out, g_h, g_c):
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, out, A, C, T = ctx.saved_tensors
        reverse = ctx.reverse
        if _C.is_grad_enabled():
            return _lstm_backward_by_recompute(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, g_out,
                                               g_h, g_c)
        L, N, _ = x.shape
        H = h0.size(-1)
        P = _gate_factors(A, C, T, c0, reverse)
        Q = A[..., 3 * H:] * (1 - T * T)
        f = A[..., H:2 * H]
        dh = g_h if g_h is not None else zeros(N, H, dtype=x.dtype)
        dc = g_c if g_c is not None else zeros(N, H, dtype=x.dtype)
        D = _empty((L, N, 4 * H), x)
        # [dc, dc, dc] * P[:3] as one broadcast product over a (N, 3, H) view
        D_ifg, P_ifg = D[..., :3 * H].unflatten(2, (3, H)), P[..., :3 * H].unflatten(2, (3, H))
        for t in _steps(L, not reverse):
            if g_out is not None:
                dh = dh + g_out[t]
            dc = dc + dh * Q[t]
            mul(dc.unsqueeze(1), P_ifg[t], out=D_ifg[t])
            mul(dh, P[t, :, 3 * H:], out=D[t, :, 3 * H:])
            dh = D[t].mm(w_hh)
            dc = dc * f[t]
        D2 = D.reshape(L * N, 4 * H)
        needs = ctx.needs_input_grad
        gx = D2.mm(w_ih).reshape(x.shape) if needs[0] else None
        gw_ih = D2.t().mm(x.reshape(L * N, x.size(2))) if needs[3] else None
        gw_hh = _hidden_weight_grad(D, out, h0, reverse) if needs[4] else None
        gb = _column_sums(D2) if (needs[5] or needs[6]) else None
        return (gx, dh if needs[1] else None, dc if needs[2] else None, gw_ih, gw_hh,
                gb if needs[5] else None, gb if needs[6] else None, None)

    @staticmethod
    def jvp(ctx, tx, th0, tc0, tw_ih, tw_hh, tb_ih, tb_hh, _):
        x, h0, c0, w_ih, w_hh, b_ih, b_hh, out, A, C, T = ctx._to_save
        L, N, _ = x.shape
        H = h0.size(-1)
        # tangent of the projected input: dx W^T + x dW^T + db
        dxp = zeros(L, N, 4 * H, dtype=x.dtype)
        if tx is not None:
            dxp = dxp + _project(tx, w_ih, None)
        if tw_ih is not None:
            dxp = dxp + _project(x, tw_ih, None)
        for tb in (tb_ih, tb_hh):
            if tb is not None:
                dxp = dxp + tb
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


def _empty(shape, like):
    return empty(shape, dtype=like.dtype, device=like.device)


def _gate_factors(A, C, T, c0, reverse):
    """``P = [g i(1-i), c_prev f(1-f), i (1-g^2), T o(1-o)]`` for every step, built in
    one buffer: ``A(1-A)`` for all four slots, then each slot's own factor in place
    (``c_prev`` is ``C`` shifted by one step, with ``c0`` at the sequence start)."""
    H = C.size(-1)
    P = A - A * A
    i, g = A[..., :H], A[..., 2 * H:3 * H]
    P[..., :H].mul_(g)
    Pf = P[..., H:2 * H]
    if reverse:
        Pf[:-1].mul_(C[1:])
        Pf[-1].mul_(c0)
    else:
        Pf[1:].mul_(C[:-1])
        Pf[0].mul_(c0)
    mul(i, 1 - g * g, out=P[..., 2 * H:3 * H])
    P[..., 3 * H:].mul_(T)
    return P


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


def _column_sums(m):
    """``m.sum(0)`` of a 2-D tensor as one BLAS matrix-vector product."""
    return m.t().mv(ones(m.shape[0], dtype=m.dtype, device=m.device))


def _lstm_backward_by_recompute(ctx, x, h0, c0, w_ih, w_hh, b_ih, b_hh, g_out, g_h, g_c):
    """``create_graph=True``: rebuild the layer from differentiable ops and differentiate
    that, so the gradient is itself differentiable."""
    from ...autograd import grad as _grad
    inputs = (x, h0, c0, w_ih, w_hh, b_ih, b_hh)
    wanted = [k for k, t in enumerate(inputs)
              if t is not None and ctx.needs_input_grad[k]]
    with enable_grad():
        outs = _lstm_reference(*inputs, ctx.reverse)
        pairs = [(o, g) for o, g in zip(outs, (g_out, g_h, g_c)) if g is not None]
        grads = _grad([o for o, _ in pairs], [inputs[k] for k in wanted],
                      [g for _, g in pairs], create_graph=True, allow_unused=True)
    result = [None] * 8
    for k, gk in zip(wanted, grads):
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
    return LSTMLayer.apply(x, h0, c0, w_ih, w_hh, b_ih, b_hh, reverse)
