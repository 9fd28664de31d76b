"""Your own differentiable op inside an ``nn.Module``, checked with ``gradcheck``.

The op is Swish with a learnable slope, ``f(x, beta) = x * sigmoid(beta * x)``,
written as an ``autograd.Function`` with a hand-derived backward pass:

    s = sigmoid(beta x)
    df/dx    = s + beta x s (1 - s)
    df/dbeta = x^2 s (1 - s)

What it shows:

* ``Function.forward`` saves what the backward needs with ``ctx.save_for_backward``;
  ``backward`` returns one gradient per input (``beta``'s is summed down to its
  shape, since it was broadcast);
* ``autograd.gradcheck`` compares that backward with finite differences (in
  float64, where finite differences are accurate);
* a ``Swish`` module owns ``beta`` as an ``nn.Parameter`` and calls
  ``SwishFunction.apply``; a small network using it learns ``y = sin(3x)`` with
  ``optim.Adam``, and ``beta`` is trained along with the weights.
"""
import argparse

import cygrad
from cygrad import nn


class SwishFunction(cygrad.autograd.Function):
    """``x * sigmoid(beta * x)`` with its gradients for ``x`` and ``beta``."""

    @staticmethod
    def forward(ctx, x, beta):
        s = (beta * x).sigmoid()
        ctx.save_for_backward(x, beta, s)
        return x * s

    @staticmethod
    def backward(ctx, grad):
        x, beta, s = ctx.saved_tensors
        ds = s * (1 - s)                      # sigmoid's derivative at beta x
        grad_x = grad * (s + beta * x * ds)
        grad_beta = grad * x * x * ds
        # beta (one value per feature, the last dim) was broadcast over the
        # leading dims of x: sum its gradient over them to get beta's shape
        # (an empty dim tuple would mean "all dims", hence the test)
        if x.dim() > beta.dim():
            grad_beta = grad_beta.sum(dim=tuple(range(x.dim() - beta.dim())))
        return grad_x, grad_beta


class Swish(nn.Module):
    """Swish with one learnable slope per feature."""

    def __init__(self, num_features):
        super().__init__()
        self.beta = nn.Parameter(cygrad.ones(num_features))

    def forward(self, x):
        return SwishFunction.apply(x, self.beta)


def check_gradients():
    """gradcheck on random float64 inputs (raises with details if a gradient is wrong)."""
    x = cygrad.randn(5, 3, dtype=cygrad.float64, requires_grad=True)
    beta = cygrad.randn(3, dtype=cygrad.float64, requires_grad=True)
    return cygrad.autograd.gradcheck(SwishFunction.apply, (x, beta))


def build_model(hidden=32):
    return nn.Sequential(nn.Linear(1, hidden), Swish(hidden), nn.Linear(hidden, 1))


def fit(model, steps, lr=1e-2):
    """Regress ``sin(3x)`` on [-2, 2]; returns the loss of every step."""
    x = cygrad.linspace(-2, 2, 256)[:, None]
    y = (3 * x).sin()
    opt = cygrad.optim.Adam(model.parameters(), lr=lr)
    losses = []
    for _ in range(steps):
        loss = nn.functional.mse_loss(model(x), y)
        opt.zero_grad()
        loss.backward()
        opt.step()
        losses.append(loss.item())
    return losses


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--steps", type=int, default=600)
    p.add_argument("--seed", type=int, default=0)
    args = p.parse_args(argv)

    cygrad.manual_seed(args.seed)
    print("gradcheck(SwishFunction):", check_gradients())
    model = build_model()
    beta_before = model[1].beta.detach().clone()
    losses = fit(model, args.steps)
    print(f"MSE on sin(3x): {losses[0]:.4f} -> {losses[-1]:.5f} after {args.steps} steps")
    moved = (model[1].beta.detach() - beta_before).abs().mean().item()
    print(f"beta moved by {moved:.3f} on average (it is trained too)")
    return losses


if __name__ == "__main__":
    main()
