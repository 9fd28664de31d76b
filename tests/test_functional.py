"""cygrad.autograd.functional against torch.autograd.functional.

The same Python function (written with methods both libraries share) is given to
both; results must agree in structure (tensor / tuple / tuple of tuples), shapes and
values, and errors in type and message.
"""
import numpy as np
import pytest

import cygrad
import cygrad.autograd.functional as F

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
import torch.autograd.functional as TF  # noqa: E402


def cg(a, requires_grad=False):
    return cygrad.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def tt(a, requires_grad=False):
    return torch.tensor(np.asarray(a, dtype=np.float64), requires_grad=requires_grad)


def convert(x, to):
    """np arrays (or nested tuples of them) -> tensors of one library."""
    if isinstance(x, tuple):
        return tuple(convert(e, to) for e in x)
    return to(x)


def assert_same(ours, ref, rtol=1e-10):
    """Same nesting of tuples, same shapes, same values. (torch's forward-mode jacobian
    nests lists where its reverse mode nests tuples; cygrad always gives tuples.)"""
    if isinstance(ref, (tuple, list)):
        assert isinstance(ours, tuple), f"expected a tuple, got {type(ours).__name__}"
        assert len(ours) == len(ref)
        for o, r in zip(ours, ref):
            assert_same(o, r, rtol)
        return
    assert isinstance(ours, cygrad.Tensor), f"expected a Tensor, got {type(ours).__name__}"
    assert tuple(ours.shape) == tuple(ref.shape)
    np.testing.assert_allclose(ours.detach().numpy(), ref.detach().numpy(), rtol=rtol,
                               atol=1e-12)


def both(api, func, inputs, *args, **kwargs):
    """Run ``api`` (a name in functional) in cygrad and torch on the same numbers."""
    ours = getattr(F, api)(func, convert(inputs, cg), *convert(args, cg), **kwargs)
    ref = getattr(TF, api)(func, convert(inputs, tt), *convert(args, tt), **kwargs)
    return ours, ref


def outcome(fn):
    """(result, None) or (None, (exception type, message)); messages are compared
    with whitespace removed (one of torch's lacks a space) and torch. -> cygrad."""
    try:
        return fn(), None
    except Exception as e:      # noqa: BLE001 - comparing exception types with torch
        return None, (type(e), "".join(str(e).replace("torch.", "cygrad.").split()))


def same_error(api, func, inputs, *args, **kwargs):
    """Both libraries raise the same exception type with the same message."""
    _, ours = outcome(lambda: getattr(F, api)(func, convert(inputs, cg), *convert(args, cg),
                                              **kwargs))
    _, ref = outcome(lambda: getattr(TF, api)(func, convert(inputs, tt), *convert(args, tt),
                                              **kwargs))
    assert ref is not None, "torch did not raise"
    assert ours == ref


# ------------------------------------------------------------------------- functions

def f_single(x):                    # R^3 -> R^3
    return (x * x).sin() + x.exp() * 0.5


def f_two_in(x, y):                 # (R^3, R^3) -> R^3
    return x * y.tanh() - y / (x * x + 1)


def f_two_out(x):                   # R^(2x2) -> (R^(2x2), R^2)
    return x.exp() * x, x[0] * x[1]


def f_tuple_tuple(x, y):            # (R^3, R^2) -> (R^3, R^(2x3))
    return x.sin() * y[0], y.unsqueeze(1) * x.unsqueeze(0)


def f_tuple_same_shape(x, y):       # (R^3, R^3) -> (R^3, R^(3x1)); no broadcasting
    return x.sin() * y, (y * x).reshape(3, 1)


def f_scalar(x):                    # R^3 -> R (one element)
    return x[0] * x[0] * x[1] + x[1].exp() * x[2] - x[2].sin()


def f_scalar_two(x, y):             # (R^3, R^2) -> R
    return (x[0] * y[1]).exp() + x[2] * y[0] * y[0]


RNG = np.random.default_rng(7)
X3 = RNG.uniform(-1, 1, 3)
Y3 = RNG.uniform(-1, 1, 3)
Y2 = RNG.uniform(-1, 1, 2)
X22 = RNG.uniform(-1, 1, (2, 2))


# ------------------------------------------------------------------------ vjp / jvp

@pytest.mark.parametrize("func, inputs, v", [
    (f_single, X3, Y3),
    (f_two_in, (X3, Y3), RNG.standard_normal(3)),
    (f_two_out, X22, (RNG.standard_normal((2, 2)), RNG.standard_normal(2))),
    (f_tuple_tuple, (X3, Y2), (RNG.standard_normal(3), RNG.standard_normal((2, 3)))),
    (f_scalar, X3, None),
])
def test_vjp(func, inputs, v):
    args = () if v is None else (v,)
    ours, ref = both("vjp", func, inputs, *args)
    assert_same(ours, ref)


@pytest.mark.parametrize("func, inputs, v", [
    (f_single, X3, Y3),
    (f_two_in, (X3, Y3), (RNG.standard_normal(3), RNG.standard_normal(3))),
    (f_two_out, X22, RNG.standard_normal((2, 2))),
    (f_tuple_same_shape, (X3, Y3), (RNG.standard_normal(3), RNG.standard_normal(3))),
    (lambda x: x.exp() * 2, np.array([0.3]), None),
])
def test_jvp(func, inputs, v):
    args = () if v is None else (v,)
    ours, ref = both("jvp", func, inputs, *args)
    assert_same(ours, ref)


def test_jvp_through_broadcasting():
    # the double-backward trick differentiates the engine's reduction of broadcast grads
    ours, ref = both("jvp", f_tuple_tuple, (X3, Y2), (RNG.standard_normal(3),
                                                        RNG.standard_normal(2)))
    assert_same(ours, ref)


def test_results_are_detached_unless_create_graph():
    x = cg(X3, requires_grad=True)
    out, g = F.vjp(f_single, x, cg(Y3))
    assert not out.requires_grad and not g.requires_grad
    assert x.grad is None                          # nothing accumulated into the input
    out, g = F.vjp(f_single, x, cg(Y3), create_graph=True)
    assert out.requires_grad and g.requires_grad
    # the vjp is differentiable further: d/dx of sum(vjp * w) against torch
    w = RNG.standard_normal(3)
    ours, = cygrad.autograd.grad(g, x, cg(w))
    tx = tt(X3, requires_grad=True)
    _, tg = TF.vjp(f_single, tx, tt(Y3), create_graph=True)
    ref, = torch.autograd.grad(tg, tx, tt(w))
    assert_same(ours, ref)


def test_jvp_create_graph_is_differentiable():
    x = cg(X3, requires_grad=True)
    _, t = F.jvp(f_single, x, cg(Y3), create_graph=True)
    assert t.requires_grad
    ours, = cygrad.autograd.grad(t, x, cg(np.ones(3)))
    tx = tt(X3, requires_grad=True)
    _, tt_ = TF.jvp(f_single, tx, tt(Y3), create_graph=True)
    ref, = torch.autograd.grad(tt_, tx, torch.ones(3, dtype=torch.float64))
    assert_same(ours, ref)


# ---------------------------------------------------------------------------- jacobian

@pytest.mark.parametrize("func, inputs", [
    (f_single, X3),
    (f_two_in, (X3, Y3)),
    (f_two_out, X22),
    (f_tuple_tuple, (X3, Y2)),
    (f_scalar, X3),
    (lambda x: x.t() * 2.0, X22),
    (lambda x: (x,), X3),                           # a 1-tuple output stays a tuple
    (lambda x, y: x * 2.0, (X3, Y2)),               # y unused: zeros
])
@pytest.mark.parametrize("mode", ["reverse", "reverse-vectorize", "forward"])
def test_jacobian(func, inputs, mode):
    kwargs = {"reverse": {}, "reverse-vectorize": {"vectorize": True},
              "forward": {"vectorize": True, "strategy": "forward-mode"}}[mode]
    ours, ref = both("jacobian", func, inputs, **kwargs)
    assert_same(ours, ref)


def test_jacobian_create_graph_second_derivative():
    x = cg(X3, requires_grad=True)
    J = F.jacobian(f_single, x, create_graph=True)
    assert J.requires_grad
    w = RNG.standard_normal((3, 3))
    ours, = cygrad.autograd.grad(J, x, cg(w))
    tx = tt(X3, requires_grad=True)
    TJ = TF.jacobian(f_single, tx, create_graph=True)
    ref, = torch.autograd.grad(TJ, tx, tt(w))
    assert_same(ours, ref)


def test_jacobian_of_independent_output_is_zero_and_strict_raises():
    def g(x, y):
        return x * 2.0, y.detach() * 1.0
    ours, ref = both("jacobian", g, (X3, Y2))
    assert_same(ours, ref)
    same_error("jacobian", g, (X3, Y2), strict=True)


@pytest.mark.parametrize("kwargs", [
    {"strategy": "sideways"},
    {"strategy": "forward-mode"},                               # needs vectorize=True
    {"strategy": "forward-mode", "vectorize": True, "strict": True},
    {"strategy": "forward-mode", "vectorize": True, "create_graph": True},
    {"vectorize": True, "strict": True},
])
def test_jacobian_option_errors(kwargs):
    same_error("jacobian", f_single, X3, **kwargs)


# ------------------------------------------------------------------- second order

def test_hessian_of_quadratic_form():
    A = RNG.standard_normal((3, 3))

    def quad(x):                # x^T A x, written with elementwise ops on elements
        total = x[0] * 0.0
        for i in range(3):
            for j in range(3):
                total = total + x[i] * x[j] * float(A[i, j])
        return total
    H = F.hessian(quad, cg(X3))
    np.testing.assert_allclose(H.numpy(), A + A.T, rtol=1e-12)
    ours, ref = both("hessian", quad, X3)
    assert_same(ours, ref)


@pytest.mark.parametrize("func, inputs", [(f_scalar, X3), (f_scalar_two, (X3, Y2))])
@pytest.mark.parametrize("mode", ["reverse", "forward"])
def test_hessian(func, inputs, mode):
    kwargs = {} if mode == "reverse" else {"vectorize": True,
                                           "outer_jacobian_strategy": "forward-mode"}
    ours = F.hessian(func, convert(inputs, cg), **kwargs)
    # torch's forward-mode hessian sets requires_grad on its inputs: give it copies
    ref = TF.hessian(func, convert(inputs, tt), **kwargs)
    assert_same(ours, ref)


def test_hessian_create_graph():
    x = cg(X3, requires_grad=True)
    H = F.hessian(f_scalar, x, create_graph=True)
    assert H.requires_grad
    w = RNG.standard_normal((3, 3))
    ours, = cygrad.autograd.grad(H, x, cg(w))
    tx = tt(X3, requires_grad=True)
    ref, = torch.autograd.grad(TF.hessian(f_scalar, tx, create_graph=True), tx, tt(w))
    assert_same(ours, ref)


@pytest.mark.parametrize("api", ["hvp", "vhp"])
@pytest.mark.parametrize("func, inputs, v", [
    (f_scalar, X3, RNG.standard_normal(3)),
    (f_scalar_two, (X3, Y2), (RNG.standard_normal(3), RNG.standard_normal(2))),
    (lambda x: (x * x).exp() * 3, np.array([0.4]), None),
])
def test_hvp_vhp(api, func, inputs, v):
    args = () if v is None else (v,)
    ours, ref = both(api, func, inputs, *args)
    assert_same(ours, ref)


def test_hvp_equals_hessian_times_v():
    v = RNG.standard_normal(3)
    H = F.hessian(f_scalar, cg(X3)).numpy()
    _, hv = F.hvp(f_scalar, cg(X3), cg(v))
    _, vh = F.vhp(f_scalar, cg(X3), cg(v))
    np.testing.assert_allclose(hv.numpy(), H @ v, rtol=1e-12)
    np.testing.assert_allclose(vh.numpy(), v @ H, rtol=1e-12)


# -------------------------------------------------------------------------- errors

@pytest.mark.parametrize("api, func, inputs, args, kwargs", [
    # v omitted where the output / input has more than one element
    ("vjp", f_single, X3, (), {}),
    ("jvp", f_single, X3, (), {}),
    ("hvp", f_scalar, X3, (), {}),
    ("vhp", f_scalar, X3, (), {}),
    # v of the wrong size / length
    ("vjp", f_single, X3, (np.ones(2),), {}),
    ("jvp", f_two_in, (X3, Y3), ((np.ones(3),),), {}),
    ("jvp", f_two_in, (X3, Y3), ((np.ones(3), np.ones(2)),), {}),
    ("jvp", f_single, X3, ((np.ones(3), np.ones(3)),), {}),
    # hessian-type functions need one output with one element
    ("hessian", f_single, X3, (), {}),
    ("hessian", lambda x: (x[0], x[1]), X3, (), {}),
    ("hvp", f_single, X3, (np.ones(3),), {}),
    ("vhp", lambda x: (x[0],), X3, (np.ones(3),), {}),
    # strict mode: an output independent of an input
    ("vjp", lambda x, y: x * 2.0, (X3, Y3), (np.ones(3),), {"strict": True}),
    ("vjp", lambda x: x.detach() * 1.0, X3, (np.ones(3),), {"strict": True}),
    ("jvp", lambda x, y: x * 2.0, (X3, Y3), ((np.ones(3), np.ones(3)),), {"strict": True}),
    ("jvp", lambda x: x.detach() * 1.0, X3, (np.ones(3),), {"strict": True}),
    ("hessian", lambda x, y: x[0] * x[1], (X3, Y2), (), {"strict": True}),
    ("hessian", lambda x: x[0] * 2.0, X3, (), {"strict": True}),
    ("vhp", lambda x: x[0] * 2.0, X3, (np.ones(3),), {"strict": True}),
    ("hvp", lambda x: x[0] * 2.0, X3, (np.ones(3),), {"strict": True}),     # linear
    ("hvp", lambda x, y: x[0] * x[1], (X3, Y2), ((np.ones(3), np.ones(2)),), {"strict": True}),
])
def test_errors_match_torch(api, func, inputs, args, kwargs):
    same_error(api, func, inputs, *args, **kwargs)


def test_strict_without_independence_passes():
    ours, ref = both("jvp", f_single, X3, Y3, strict=True)
    assert_same(ours, ref)
    ours, ref = both("hessian", f_scalar, X3, strict=True)
    assert_same(ours, ref)


def test_type_errors_match_torch():
    for api in ("vjp", "jvp", "jacobian", "hessian"):
        _, ours = outcome(lambda: getattr(F, api)(f_single, 3.0))
        _, ref = outcome(lambda: getattr(TF, api)(f_single, 3.0))
        assert ours == ref and ref[0] is TypeError
        _, ours = outcome(lambda: getattr(F, api)(f_two_in, (cg(X3), [1.0])))
        _, ref = outcome(lambda: getattr(TF, api)(f_two_in, (tt(X3), [1.0])))
        assert ours == ref and ref[0] is TypeError
    # outputs that are not tensors
    _, ours = outcome(lambda: F.vjp(lambda x: 3.0, cg(X3)))
    _, ref = outcome(lambda: TF.vjp(lambda x: 3.0, tt(X3)))
    assert ours == ref and ref[0] is TypeError
