"""Lesson 08: nn, modules and parameters.

Run it: ``python examples/course/08_nn.py``.

``nn.Module`` is bookkeeping around Functions: it registers ``Parameter`` tensors
(leaves with ``requires_grad=True``) and sub-modules, so ``model.parameters()``
finds every weight. ``nn.Linear(in, out)`` holds ``weight`` (out, in) and ``bias``
(out); its forward is one Function, ``y = x @ W.T + b``, whose backward is three
matrix products: grad_x = g @ W, grad_W = g.T @ x, grad_b = column sums of g.
Initialisation matters too: PyTorch (and cygrad) draw both from
U(-1/sqrt(in), 1/sqrt(in)), so the layer's outputs start at a sensible scale.

Exercises (``python -m cygrad.course make-assignment nn OUT/``):

* ``linear-backward`` in ``cygrad/nn/_ops/linear.py``.
* ``linear-init`` in ``cygrad/nn/modules/linear.py`` (``reset_parameters``).
"""
import math

import numpy as np

import cygrad
from cygrad import nn


def section(title):
    print(f"\n== {title}")


cygrad.manual_seed(0)

# ---------------------------------------------------------------------------------------
section("1. A module and its parameters")
model = nn.Sequential(nn.Linear(1, 16), nn.Tanh(), nn.Linear(16, 1))
print(model)
for name, p in model.named_parameters():
    print(f"  {name:<9} shape {tuple(p.shape)!s:<8} requires_grad {p.requires_grad}")

# ---------------------------------------------------------------------------------------
section("2. Initialisation (exercise linear-init)")
layer = nn.Linear(400, 300)
bound = 1 / math.sqrt(400)
w = layer.weight.detach().numpy()
print(f"weight in [{w.min():.4f}, {w.max():.4f}], bound 1/sqrt(400) = {bound:.4f}")
print(f"std {w.std():.5f}, a uniform's c/sqrt(3) = {bound / math.sqrt(3):.5f}")

# ---------------------------------------------------------------------------------------
section("3. Linear's backward (exercise linear-backward)")
x = cygrad.randn(5, 3, dtype=cygrad.float64, requires_grad=True)
lin = nn.Linear(3, 2, dtype=cygrad.float64)
y = lin(x)
print("y.grad_fn:", y.grad_fn.name())
g = cygrad.randn(5, 2, dtype=cygrad.float64)
y.backward(g)
print("weight.grad == g.T @ x:", np.allclose(lin.weight.grad.numpy(), g.numpy().T @ x.detach().numpy()))
print("bias.grad   == g.sum(0):", np.allclose(lin.bias.grad.numpy(), g.numpy().sum(0)))

# ---------------------------------------------------------------------------------------
section("4. Training it: fit sin(3x) on [-1, 1]")
xs = cygrad.linspace(-1, 1, 64).reshape(64, 1)
ys = (xs * 3).sin()
loss_fn = nn.MSELoss()
for step in range(301):
    model.zero_grad()
    loss = loss_fn(model(xs), ys)
    loss.backward()
    with cygrad.no_grad():
        for p in model.parameters():
            p -= 0.2 * p.grad            # plain gradient descent; lesson 09 does it properly
    if step % 100 == 0:
        print(f"  step {step:3d}  loss {loss.item():.5f}")
