"""A tour of cygrad's autograd: every code example of docs/autograd.md and
docs/custom_function.md, run in order, printing what the docs show.

Run it from the repository root after ``pip install -e .`` (or with
``PYTHONPATH=.``)::

    python examples/autograd_tour.py                  # prints everything
    python examples/autograd_tour.py --write-figures  # also redraws docs/img/*.svg
                                                      # (needs Graphviz's `dot`)

Each function below is one section of the docs; the code inside it is the code the
docs show, so if this script runs, the docs' examples run.
"""
import os
import sys
import warnings

import numpy as np

import cygrad
from cygrad.autograd import Function, graph, once_differentiable

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
WRITE_FIGURES = "--write-figures" in sys.argv


def section(title):
    print(f"\n=== {title} " + "=" * max(0, 66 - len(title)))


def first_line(err):
    return str(err).splitlines()[0]


# ============================================================ docs/autograd.md

def the_example():
    """The small example used throughout docs/autograd.md."""
    x = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = cygrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    y = x * w
    z = y.sin() + x
    return x, w, y, z


def graph_building():
    section("autograd.md: the graph built by the forward pass")
    x, w, y, z = the_example()
    print("z.grad_fn:", z.grad_fn)
    print("z.grad_fn.next_functions:", z.grad_fn.next_functions)
    print("y.grad_fn.next_functions:", y.grad_fn.next_functions)
    leaf_node = y.grad_fn.next_functions[0][0]
    print("leaf_node.variable is x:", leaf_node.variable is x)
    print("x.grad_fn:", x.grad_fn, " x.is_leaf:", x.is_leaf)
    print()
    print(graph.to_text(z, params={"x": x, "w": w}))
    print()
    print(graph.to_dot(z, params={"x": x, "w": w}))
    if WRITE_FIGURES:
        path = graph.render(z, os.path.join(REPO, "docs", "img", "example_graph.svg"),
                            params={"x": x, "w": w})
        print("wrote", os.path.relpath(path, REPO))


def running_backward():
    section("autograd.md: running backward, step by step")
    x, w, y, z = the_example()
    with cygrad.autograd.trace(params={"x": x, "w": w}) as t:
        z.backward(cygrad.ones_like(z))
    print(t)
    print("x.grad:", x.grad)
    print("w.grad:", w.grad)
    with cygrad.no_grad():         # the formulas by hand: dz/dx = w cos(xw) + 1, dz/dw = x cos(xw)
        print("by hand: dz/dx =", w * (x * w).cos() + 1, " dz/dw =", x * (x * w).cos())
    if WRITE_FIGURES:
        path = graph.render(z, os.path.join(REPO, "docs", "img", "example_graph_after.svg"),
                            params={"x": x, "w": w})
        print("wrote", os.path.relpath(path, REPO))


def accumulation():
    section("autograd.md: .grad accumulates")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    for step in range(2):
        y = x * x
        y.backward(cygrad.ones_like(y))
        print(f"after backward {step + 1}: x.grad = {x.grad}")
    x.grad = None                   # what optimizer.zero_grad() does
    y = x * x
    y.backward(cygrad.ones_like(y))
    print("after x.grad = None and one more backward:", x.grad)


def retain_graph():
    section("autograd.md: saved tensors are freed; retain_graph")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    print(graph.to_text(y))
    y.backward(cygrad.ones_like(y))
    print(graph.to_text(y))
    try:
        y.backward(cygrad.ones_like(y))
    except RuntimeError as e:
        print("RuntimeError:", e)

    y = x.exp()
    y.backward(cygrad.ones_like(y), retain_graph=True)
    y.backward(cygrad.ones_like(y))               # fine: the graph was kept
    print("x.grad after two backward passes:", x.grad)


def version_counter():
    section("autograd.md: version counters and the in-place error")
    x = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    a = x * 2
    print("a._version:", a._version)
    b = a.sin()                    # sin saves its input a for backward
    a.add_(1)                      # ... which is now changed in place
    print("a._version:", a._version)
    try:
        b.backward(cygrad.ones_like(b))
    except RuntimeError as e:
        print("RuntimeError:", e)

    # An in-place change to a tensor nobody saved is fine:
    a = x * 2
    c = a + 1                      # add saves nothing
    a.mul_(10)
    c.backward(cygrad.ones_like(c))
    print("x.grad:", x.grad)

    # A leaf that requires grad cannot be changed in place while recording:
    try:
        x.add_(1)
    except RuntimeError as e:
        print("RuntimeError:", e)
    with cygrad.no_grad():
        x.add_(1)                  # an update step, not part of any graph
    print("x after the update:", x)


def views_and_inplace():
    section("autograd.md: views, and in-place ops on views")
    x = cygrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    v = x[1:3]
    print("v.grad_fn:", v.grad_fn, " v._base is x:", v._base is x)
    u = v * 10
    u.backward(cygrad.ones_like(u))
    print("x.grad:", x.grad)

    x = cygrad.tensor([1.0, 2.0, 3.0, 4.0], requires_grad=True)
    b = x * 1                      # a non-leaf we may change in place
    v = b[1:3]
    v.mul_(10)                     # writes through the view into b
    print("b:", b)
    print(graph.to_text(b, params={"x": x}, show_saved=False))
    print("v.grad_fn:", v.grad_fn)
    b.backward(cygrad.ones_like(b))
    print("x.grad:", x.grad)

    try:
        x[0:2].mul_(2)
    except RuntimeError as e:
        print("RuntimeError:", e)


def hooks():
    section("autograd.md: hooks")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    y = x * 3
    z = y * y

    def show(name):
        def hook(grad):
            print(f"  gradient reaching {name}: {grad}")
        return hook

    y.register_hook(show("y"))
    handle = x.register_hook(lambda g: g * 0.5)     # replaces x's gradient
    y.retain_grad()
    z.grad_fn.register_hook(lambda grad_inputs, grad_outputs:
                            print("  MulBackward0 of z: in", grad_outputs, "out", grad_inputs))
    x.register_post_accumulate_grad_hook(lambda t: print("  x.grad is now", t.grad))
    z.backward(cygrad.ones_like(z))
    print("y.grad (retained):", y.grad)
    print("x.grad (halved by the hook):", x.grad)
    handle.remove()


def higher_order():
    section("autograd.md: create_graph and higher derivatives")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    y = x ** 3
    (dy,) = cygrad.autograd.grad(y, x, cygrad.ones_like(y), create_graph=True)
    print("dy/dx   =", dy)
    (d2y,) = cygrad.autograd.grad(dy, x, cygrad.ones_like(dy))
    print("d2y/dx2 =", d2y)
    print(graph.to_text(dy, params={"x": x}, show_saved=False))


def grad_modes():
    section("autograd.md: grad modes")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    with cygrad.no_grad():
        y = x * 2
    print("under no_grad:      y.requires_grad =", y.requires_grad, " y.grad_fn =", y.grad_fn)
    with cygrad.no_grad():
        with cygrad.enable_grad():
            y = x * 2
    print("enable_grad inside: y.requires_grad =", y.requires_grad)
    with cygrad.set_grad_enabled(False):
        print("set_grad_enabled(False): is_grad_enabled() =", cygrad.is_grad_enabled())
    with cygrad.inference_mode():
        y = x * 2
    print("inference_mode:     y.requires_grad =", y.requires_grad)

    @cygrad.no_grad()
    def sgd_step(p, lr):
        p.sub_(p.grad * lr)

    y = x * x
    y.backward(cygrad.ones_like(y))
    sgd_step(x, 0.1)
    print("x after an SGD step:", x)
    d = (x * 2).detach()
    print("detach(): requires_grad =", d.requires_grad, " grad_fn =", d.grad_fn)


def anomaly():
    section("autograd.md: anomaly mode")
    x = cygrad.tensor([0.0, 1.0], requires_grad=True)
    y = x.sqrt() * 0               # d sqrt(x)/dx = inf at 0, and inf * 0 = nan
    y.backward(cygrad.ones_like(y))
    print("without anomaly mode, x.grad =", x.grad)

    x.grad = None
    with cygrad.autograd.detect_anomaly():
        y = x.sqrt() * 0
        try:
            y.backward(cygrad.ones_like(y))
        except RuntimeError as e:
            print("RuntimeError:", str(e).splitlines()[0])
            message = str(e)
    # (not in the docs) the rest of the message: where the forward call was made
    for line in message.splitlines()[1:]:
        if "autograd_tour.py" in line or "forward call" in line:
            print("   ", line.strip())


# ===================================================== docs/custom_function.md

class Cube(Function):
    """y = x ** 3, as a custom Function."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)       # backward needs x
        return x * x * x

    @staticmethod
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        return grad_y * 3 * x * x      # dL/dx = dL/dy * dy/dx


def custom_basics():
    section("custom_function.md: a first Function")
    x = cygrad.tensor([1.0, 2.0, -1.0], requires_grad=True)
    y = Cube.apply(x)
    print("y:", y)
    print("y.grad_fn:", y.grad_fn, " is a Node:", isinstance(y.grad_fn, cygrad.autograd.Node))
    y.backward(cygrad.ones_like(y))
    print("x.grad:", x.grad)


class CubeAttr(Function):
    """Cube, written the wrong way: x kept as an attribute."""

    @staticmethod
    def forward(ctx, x):
        ctx.x = x                      # wrong: a tensor as a plain attribute
        return x * x * x

    @staticmethod
    def backward(ctx, grad_y):
        return grad_y * 3 * ctx.x * ctx.x


def save_vs_attribute():
    section("custom_function.md: save_for_backward, not attributes")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        a = x * 1
        y = CubeAttr.apply(a)
    print("UserWarning:", caught[0].message)
    a.mul_(100)                        # a changes after y was computed from it
    y.backward(cygrad.ones_like(y))
    print("CubeAttr: x.grad =", x.grad, " (silently wrong: should be [3, 12])")

    x.grad = None
    a = x * 1
    y = Cube.apply(a)                  # the same, with save_for_backward
    a.mul_(100)
    try:
        y.backward(cygrad.ones_like(y))
    except RuntimeError as e:
        print("RuntimeError:", e)


class Scale(Function):
    """y = x * factor, with a Python number argument."""

    @staticmethod
    def forward(ctx, x, factor, *, check=True):
        if check and factor == 0:
            raise ValueError("Scale: factor must not be 0")
        ctx.factor = factor            # numbers and other non-tensors: attributes are fine
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor, None   # one entry per forward argument: None for `factor`


class WeightedSum(Function):
    """y = a * wa + b * wb; only computes the gradients that are needed."""

    @staticmethod
    def forward(ctx, a, b, wa, wb):
        ctx.weights = (wa, wb)
        print("  needs_input_grad:", ctx.needs_input_grad)
        return a * wa + b * wb

    @staticmethod
    def backward(ctx, grad):
        wa, wb = ctx.weights
        grad_a = grad * wa if ctx.needs_input_grad[0] else None
        grad_b = grad * wb if ctx.needs_input_grad[1] else None
        return grad_a, grad_b, None, None


def non_tensor_args():
    section("custom_function.md: non-tensor arguments and needs_input_grad")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    y = Scale.apply(x, 2.5)
    y.backward(cygrad.ones_like(y))
    print("x.grad:", x.grad)

    c = cygrad.tensor([10.0, 20.0])            # a constant: needs no gradient
    y = WeightedSum.apply(x, c, 2.0, 3.0)
    x.grad = None
    y.backward(cygrad.ones_like(y))
    print("x.grad:", x.grad, " c.grad:", c.grad)


class SinCos(Function):
    """Two outputs: sin(x) and cos(x)."""

    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (x,) = ctx.saved_tensors
        return grad_sin * x.cos() - grad_cos * x.sin()


class SinCosLazy(Function):
    """SinCos that skips the work for an output that got no gradient."""

    @staticmethod
    def forward(ctx, x):
        ctx.set_materialize_grads(False)
        ctx.save_for_backward(x)
        return x.sin(), x.cos()

    @staticmethod
    def backward(ctx, grad_sin, grad_cos):
        (x,) = ctx.saved_tensors
        print("  grad_sin:", grad_sin, " grad_cos:", grad_cos)
        grad = None
        if grad_sin is not None:
            grad = grad_sin * x.cos()
        if grad_cos is not None:
            term = -grad_cos * x.sin()
            grad = term if grad is None else grad + term
        return grad


def several_outputs():
    section("custom_function.md: several outputs, set_materialize_grads")
    x = cygrad.tensor([0.0, 1.0], requires_grad=True)
    s, c = SinCos.apply(x)
    print("same node:", s.grad_fn is c.grad_fn, " output_nr:", s.output_nr, c.output_nr)
    s.backward(cygrad.ones_like(s))          # c got no gradient: backward sees zeros
    print("x.grad:", x.grad)

    x.grad = None
    s, c = SinCosLazy.apply(x)
    s.backward(cygrad.ones_like(s))
    print("x.grad:", x.grad)


class AddOne_(Function):
    """x += 1, in place."""

    @staticmethod
    def forward(ctx, x):
        x.add_(1)
        ctx.mark_dirty(x)
        return x

    @staticmethod
    def backward(ctx, grad):
        return grad


def in_place():
    section("custom_function.md: in-place Functions, mark_dirty")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    a = x * 2
    b = AddOne_.apply(a)
    print("b is a:", b is a, " a:", a, " a._version:", a._version)
    print("a.grad_fn:", a.grad_fn)
    b.backward(cygrad.ones_like(b))
    print("x.grad:", x.grad)
    try:
        AddOne_.apply(x)
    except RuntimeError as e:
        print("RuntimeError:", e)


class SortWithIndices(Function):
    """Sort a 1-D tensor: returns (values, indices); the indices are not differentiable."""

    @staticmethod
    def forward(ctx, x):
        data = x.detach().numpy()
        idx = cygrad.from_numpy(np.argsort(data, kind="stable"))
        values = cygrad.from_numpy(data[idx.numpy()])
        ctx.mark_non_differentiable(idx)
        ctx.save_for_backward(idx)
        return values, idx

    @staticmethod
    @once_differentiable                 # backward uses NumPy: not differentiable itself
    def backward(ctx, grad_values, grad_idx):
        (idx,) = ctx.saved_tensors
        grad = np.zeros(tuple(grad_values.shape), dtype=grad_values.numpy().dtype)
        grad[idx.numpy()] = grad_values.numpy()    # each value's gradient goes back home
        return cygrad.from_numpy(grad)


def non_differentiable():
    section("custom_function.md: mark_non_differentiable")
    x = cygrad.tensor([3.0, 1.0, 2.0], requires_grad=True)
    values, idx = SortWithIndices.apply(x)
    print("values:", values, " requires_grad:", values.requires_grad)
    print("idx:   ", idx, " requires_grad:", idx.requires_grad)
    weights = cygrad.tensor([1.0, 10.0, 100.0])
    loss = values * weights
    loss.backward(cygrad.ones_like(loss))
    print("x.grad:", x.grad)


class CubeOnce(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    @once_differentiable
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        return grad_y * 3 * x * x


def double_backward():
    section("custom_function.md: double backward, once_differentiable")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    y = Cube.apply(x)
    (dy,) = cygrad.autograd.grad(y, x, cygrad.ones_like(y), create_graph=True)
    (d2y,) = cygrad.autograd.grad(dy, x, cygrad.ones_like(dy))
    print("Cube:     dy =", dy, " d2y =", d2y)

    y = CubeOnce.apply(x)
    z = y * y
    (dz,) = cygrad.autograd.grad(z, x, cygrad.ones_like(z), create_graph=True)
    print("CubeOnce: dz =", dz)
    try:
        dz.backward(cygrad.ones_like(dz))
    except RuntimeError as e:
        print("RuntimeError:", e)


class ScaleNoNone(Function):
    @staticmethod
    def forward(ctx, x, factor):
        ctx.factor = factor
        return x * factor

    @staticmethod
    def backward(ctx, grad):
        return grad * ctx.factor       # bug: forward took 2 arguments, so return 2 values


class BadShape(Function):
    @staticmethod
    def forward(ctx, x):
        return x * 2

    @staticmethod
    def backward(ctx, grad):
        return cygrad.ones(5)          # bug: x has shape (2,)


def rules():
    section("custom_function.md: what the engine checks")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    for fn, args in ((ScaleNoNone, (x, 3.0)), (BadShape, (x,))):
        y = fn.apply(*args)
        try:
            y.backward(cygrad.ones_like(y))
        except RuntimeError as e:
            print("RuntimeError:", e)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        Cube()
    print(f"{caught[0].category.__name__}:", caught[0].message)


class CubeWrong(Function):
    @staticmethod
    def forward(ctx, x):
        ctx.save_for_backward(x)
        return x * x * x

    @staticmethod
    def backward(ctx, grad_y):
        (x,) = ctx.saved_tensors
        return grad_y * 3 * x        # bug: should be 3 * x * x


def checking():
    section("custom_function.md: checking a Function with gradcheck")
    try:
        from cygrad.autograd import gradcheck
    except ImportError:
        print("cygrad.autograd.gradcheck is not available in this build; skipped")
        return
    if not callable(gradcheck):     # the submodule, while the package does not export it
        gradcheck = gradcheck.gradcheck
    x = cygrad.tensor([0.5, -1.5, 2.0], dtype=cygrad.float64, requires_grad=True)
    print("Cube:", gradcheck(Cube.apply, (x,), eps=1e-6, atol=1e-5, rtol=1e-3))
    try:
        gradcheck(CubeWrong.apply, (x,), eps=1e-6, atol=1e-5, rtol=1e-3)
    except RuntimeError as e:       # GradcheckError, a RuntimeError
        print(f"{type(e).__name__}: {e}")


def main():
    warnings.simplefilter("default")
    for part in (graph_building, running_backward, accumulation, retain_graph,
                 version_counter, views_and_inplace, hooks, higher_order, grad_modes,
                 anomaly, custom_basics, save_vs_attribute, non_tensor_args,
                 several_outputs, in_place, non_differentiable, double_backward, rules,
                 checking):
        part()


if __name__ == "__main__":
    main()
