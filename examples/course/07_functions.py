"""Lesson 07: Functions, the unit of autodiff.

Run it: ``python examples/course/07_functions.py``.

Every differentiable op in cygrad is a ``cygrad.autograd.Function``: ``forward``
computes the result and saves what the derivative needs on ``ctx``; ``backward``
turns the output's gradient into the inputs' gradients (reverse mode: grad * f'(x));
``jvp`` pushes an input *tangent* forward (forward mode: tangent * f'(x)). It is the
same API you use for your own ops, and ``gradcheck`` checks one against central
differences.

The elementwise ops share that pattern: ``UnaryFunction`` writes backward and jvp
once, and each op (Exp, Sin, Tanh ...) gives only its ``derivative``.

Exercises (``python -m cygrad.course make-assignment functions OUT/``):

* ``unary-backward`` and ``unary-jvp`` in ``cygrad/ops/elementwise/unary.py``: the
  chain rule in both directions, for every unary op at once.
* ``central-difference`` in ``cygrad/autograd/gradcheck.py``: the numerical Jacobian
  that every gradient in the project is checked against.
"""
import numpy as np

import cygrad
import cygrad.autograd.forward_ad as fwAD
from cygrad.autograd import Function, gradcheck
from cygrad.autograd.gradcheck import GradcheckError
from cygrad.ops.elementwise import unary


def section(title):
    print(f"\n== {title}")


# ---------------------------------------------------------------------------------------
section("1. A Function of your own: softplus(x) = log(1 + e^x)")


class Softplus(Function):
    """softplus' = sigmoid: saved from forward as the one thing backward needs."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x.sigmoid())
        return (x.exp() + 1).log()

    @staticmethod
    def backward(ctx, grad):
        (s,) = ctx.saved_tensors
        return grad * s

    @staticmethod
    def jvp(ctx, tangent):
        (s,) = ctx.saved_tensors
        return tangent * s


x = cygrad.tensor([-2.0, 0.0, 1.5], dtype=cygrad.float64, requires_grad=True)
y = Softplus.apply(x)
print("softplus:", np.round(y.detach().numpy(), 6).tolist(), " node:", y.grad_fn.name())
y.sum().backward()
print("grad (= sigmoid(x)):", np.round(x.grad.numpy(), 6).tolist())

# ---------------------------------------------------------------------------------------
section("2. gradcheck: the analytic Jacobian against central differences")
print("Softplus passes:", gradcheck(Softplus.apply, (x,), check_forward_ad=True))


class WrongSoftplus(Softplus):
    @staticmethod
    def backward(ctx, grad):
        (s,) = ctx.saved_tensors
        return grad * s * 2          # a wrong factor


try:
    gradcheck(WrongSoftplus.apply, (x,))
except GradcheckError as e:
    print("a wrong backward is caught:", str(e).splitlines()[0])

# ---------------------------------------------------------------------------------------
section("3. The built-in ops follow the same pattern")
print("UnaryFunction:", unary.UnaryFunction.__doc__.splitlines()[0])
for cls in (unary.Exp, unary.Sin, unary.Tanh):
    print(f"  {cls.__name__:<5} saves its {cls.saves}: {cls.__doc__}")

# ---------------------------------------------------------------------------------------
section("4. Forward mode: tangents (exercise unary-jvp)")
# A dual number x + t*eps carries a tangent t; each op maps it to f(x) + f'(x) t eps.
with fwAD.dual_level():
    d = fwAD.make_dual(cygrad.tensor([0.5, 1.0], dtype=cygrad.float64),
                       cygrad.tensor([1.0, 1.0], dtype=cygrad.float64))
    out = d.tanh()
    tangent = fwAD.unpack_dual(out).tangent
print("tangent of tanh at [0.5, 1.0]:", np.round(tangent.numpy(), 6).tolist())
print("1 - tanh^2 by NumPy:          ", np.round(1 - np.tanh([0.5, 1.0]) ** 2, 6).tolist())
