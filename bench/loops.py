"""End-to-end training loops for the benchmarks: what a user's script does per step.

Each loop takes the library module (``cygrad`` or ``torch``; NumPy has its own
version of the raw loop), its inputs, and a step count, and returns the last
loss as a float. Isolated ops cannot show how kernels, BLAS and the Python
between them share the cores; these loops can.

- ``two_layer_raw``: the classic two-layer network with a hand-written backward
  (``mm``, ``clamp``, ``t().mm``, ``clone``, a boolean-mask assignment,
  ``sub_`` updates); x 64x1000, w1 1000x100, w2 100x10.
- ``two_layer_autograd``: the same network, gradients from ``backward()``.
- ``mlp_step``: an MLP 784-128-64-10 on a batch of 64 with ``relu``,
  ``log_softmax`` and a one-hot negative log-likelihood, trained by autograd.

Examples
--------
>>> import numpy as np
>>> import cygrad
>>> from loops import two_layer_inputs, two_layer_raw, two_layer_raw_numpy
>>> x, y, w1, w2 = two_layer_inputs(np.random.default_rng(0), d_in=20, hidden=8, d_out=3)
>>> ours = two_layer_raw(cygrad, *map(cygrad.tensor, (x, y, w1, w2)), steps=3)
>>> ref = two_layer_raw_numpy(x, y, w1.copy(), w2.copy(), steps=3)
>>> bool(np.isclose(ours, ref, rtol=1e-4))
True
"""
import numpy as np

LR = 1e-6


def two_layer_inputs(rng, batch=64, d_in=1000, hidden=100, d_out=10):
    """x, y, w1, w2 as float32 NumPy arrays (normal, as in the classic example)."""
    def normal(*shape):
        return rng.standard_normal(shape).astype(np.float32)
    return normal(batch, d_in), normal(batch, d_out), normal(d_in, hidden), normal(hidden, d_out)


def two_layer_raw(T, x, y, w1, w2, steps):
    """Forward, loss and a hand-written backward with raw tensor ops; in-place updates."""
    loss = None
    for _ in range(steps):
        h = x.mm(w1)
        h_relu = h.clamp(min=0)
        y_pred = h_relu.mm(w2)
        loss = (y_pred - y).pow(2).sum().item()
        grad_y_pred = 2.0 * (y_pred - y)
        grad_w2 = h_relu.t().mm(grad_y_pred)
        grad_h_relu = grad_y_pred.mm(w2.t())
        grad_h = grad_h_relu.clone()
        grad_h[h < 0] = 0
        grad_w1 = x.t().mm(grad_h)
        w1.sub_(LR * grad_w1)
        w2.sub_(LR * grad_w2)
    return loss


def two_layer_raw_numpy(x, y, w1, w2, steps):
    """The same loop in NumPy (the reference the others are checked against)."""
    loss = None
    for _ in range(steps):
        h = x.dot(w1)
        h_relu = np.maximum(h, 0)
        y_pred = h_relu.dot(w2)
        loss = float(np.square(y_pred - y).sum())
        grad_y_pred = 2.0 * (y_pred - y)
        grad_w2 = h_relu.T.dot(grad_y_pred)
        grad_h_relu = grad_y_pred.dot(w2.T)
        grad_h = grad_h_relu.copy()
        grad_h[h < 0] = 0
        grad_w1 = x.T.dot(grad_h)
        w1 -= np.float32(LR) * grad_w1
        w2 -= np.float32(LR) * grad_w2
    return loss


def two_layer_autograd(T, x, y, w1, w2, steps):
    """The two-layer network with gradients from ``backward()``."""
    w1.requires_grad_()
    w2.requires_grad_()
    loss = None
    for _ in range(steps):
        loss = (x.mm(w1).clamp(min=0).mm(w2) - y).pow(2).sum()
        loss.backward()
        with T.no_grad():
            w1.sub_(LR * w1.grad)
            w2.sub_(LR * w2.grad)
        w1.grad = None
        w2.grad = None
    return loss.item()


def mlp_inputs(rng, batch=64, sizes=(784, 128, 64, 10)):
    """x, one-hot targets, then (weight, bias) per layer, as float32 NumPy arrays."""
    x = rng.standard_normal((batch, sizes[0])).astype(np.float32)
    onehot = np.eye(sizes[-1], dtype=np.float32)[rng.integers(0, sizes[-1], batch)]
    params = []
    for fan_in, fan_out in zip(sizes[:-1], sizes[1:]):
        bound = 1 / np.sqrt(fan_in)
        params.append(rng.uniform(-bound, bound, (fan_in, fan_out)).astype(np.float32))
        params.append(np.zeros(fan_out, np.float32))
    return (x, onehot, *params)


def mlp_step(T, x, onehot, *params, steps):
    """SGD steps of an MLP: relu layers, log_softmax, one-hot negative log-likelihood."""
    F = T.nn.functional
    for p in params:
        p.requires_grad_()
    lr = 0.01
    loss = None
    for _ in range(steps):
        h = x
        for i in range(0, len(params), 2):
            h = h.mm(params[i]) + params[i + 1]
            if i + 2 < len(params):
                h = F.relu(h)
        loss = -(F.log_softmax(h, dim=1) * onehot).sum() / x.shape[0]
        loss.backward()
        with T.no_grad():
            for p in params:
                p.sub_(lr * p.grad)
                p.grad = None
    return loss.item()
