"""The backward engine, checked against hand-computed gradients and PyTorch.

Most tests write one program as ``def program(lib)`` and give the gradients it must
produce, worked out by hand (the chain rule on paper, written with NumPy).
``_agree`` runs the program with ``lib=cygrad`` against them and, when PyTorch is
installed, with ``lib=torch`` too (same API: porting a script is changing the import),
so the expectations are themselves checked against PyTorch. Without torch every test
still runs; only the comparisons of exact error messages with torch's are skipped.
"""
import gc
import re
import sys
import threading
import warnings
import weakref

import numpy as np
import pytest

import cygrad
from cygrad import autograd

try:
    import torch
except ImportError:       # the hand-computed expectations still run
    torch = None

# the libraries a program runs with: cygrad, and torch as a second reference
LIBS = (cygrad,) if torch is None else (cygrad, torch)

f64 = cygrad.float64


def _np(t):
    return None if t is None else t.detach().numpy()


def _match(got, expected, what="result"):
    """A program's result equals the expectation: tensors/numbers vs arrays/numbers
    (rtol 1e-12), None is None, strings and nested tuples/lists element by element."""
    if expected is None:
        assert got is None, f"{what}: {got!r} is not None"
    elif isinstance(expected, str):
        assert got == expected, f"{what}: {got!r} != {expected!r}"
    elif isinstance(expected, (tuple, list)) and not hasattr(got, "detach"):
        assert isinstance(got, (tuple, list)) and len(got) == len(expected), \
            f"{what}: {got!r} vs {expected!r}"
        for i, (g, e) in enumerate(zip(got, expected)):
            _match(g, e, f"{what}[{i}]")
    else:
        assert got is not None, f"{what}: got None, expected {expected!r}"
        value = _np(got) if hasattr(got, "detach") else np.asarray(got)
        np.testing.assert_allclose(value, np.asarray(expected, dtype=np.float64),
                                   rtol=1e-12, atol=1e-12, err_msg=what)


def _agree(program, expected):
    """program(cygrad) gives ``expected`` (worked out by hand); so does program(torch)
    when torch is installed, which checks the expectation itself."""
    for lib in LIBS:
        _match(program(lib), expected, f"{lib.__name__}")


def _leaf(lib, values):
    return lib.tensor(np.asarray(values, dtype=np.float64), requires_grad=True)


ARR = np.array([[0.5, -1.25, 2.0], [1.5, 0.75, -0.5]])


def _backward(y, lib):
    y.backward(lib.ones_like(y))


# ---------------------------------------------------------------- basic gradients

def test_reuse_accumulates_like_torch():
    def program(lib):
        x = _leaf(lib, ARR)
        w = _leaf(lib, [2.0, -1.0, 0.5])
        y = x * x * w + x.exp() * x - x / w + (x * 3).sin() * w
        _backward(y, lib)
        return x.grad, w.grad
    x, w = ARR, np.array([2.0, -1.0, 0.5])
    _agree(program, (2 * x * w + np.exp(x) * (1 + x) - 1 / w + 3 * np.cos(3 * x) * w,
                     (x * x + x / w ** 2 + np.sin(3 * x)).sum(axis=0)))


def test_diamond_graph():
    def program(lib):
        x = _leaf(lib, [0.3, 0.7])
        a = x.exp()
        b = a * 2
        c = a.sin()
        y = b * c + a
        _backward(y, lib)
        return x.grad
    a = np.exp([0.3, 0.7])
    _agree(program, (2 * np.sin(a) + 2 * a * np.cos(a) + 1) * a)


def test_grad_accumulates_across_backward_calls_and_can_be_reset():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        grads = []
        for _ in range(3):
            y = x * x
            _backward(y, lib)
            grads.append(x.grad.clone())
        x.grad = None
        assert x.grad is None
        y = x * 5
        _backward(y, lib)
        return grads + [x.grad]
    _agree(program, [[2.0, 4.0], [4.0, 8.0], [6.0, 12.0], [5.0, 5.0]])


def test_grad_settable_to_tensor():
    x = _leaf(cygrad, [1.0, 2.0])
    x.grad = cygrad.tensor([10.0, 10.0], dtype=f64)
    _backward(x * 3, cygrad)
    np.testing.assert_array_equal(x.grad.numpy(), [13.0, 13.0])


def test_non_leaf_grad_is_none_without_retain_grad():
    x = _leaf(cygrad, [1.0])
    y = x * 2
    _backward(y * 3, cygrad)
    assert y.grad is None
    assert y.retains_grad is False


def test_backward_scalar_implicit_and_errors():
    x = _leaf(cygrad, [1.0, 2.0])
    y = x * 2
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
        y.backward()
    if torch is not None:
        with pytest.raises(RuntimeError, match="grad can be implicitly created only for scalar"):
            torch.tensor([1.0, 2.0], requires_grad=True).mul(2).backward()
    s = x[0] * x[1]
    s.backward()
    np.testing.assert_array_equal(x.grad.numpy(), [2.0, 1.0])


def test_backward_on_tensor_without_grad_raises_like_torch():
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="does not require grad and does not have a grad_fn"):
            lib.tensor([1.0]).backward(lib.ones(1))


def test_grad_output_shape_mismatch():
    x = _leaf(cygrad, [1.0, 2.0])
    with pytest.raises(RuntimeError, match="Mismatch in shape"):
        (x * 2).backward(cygrad.ones(3, dtype=f64))


# ---------------------------------------------------------------- retain_graph

def test_second_backward_without_retain_graph_raises_torch_message():
    msgs = []
    for lib in LIBS:
        x = _leaf(lib, [1.0, 2.0])
        y = x.exp() * x         # saves tensors
        _backward(y, lib)
        with pytest.raises(RuntimeError) as info:
            _backward(y, lib)
        msgs.append(str(info.value))
    assert msgs[0].startswith("Trying to backward through the graph a second time")
    assert len(set(msgs)) == 1, msgs      # torch's message, word for word


def test_retain_graph_allows_second_backward():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x.exp() * x
        y.backward(lib.ones_like(y), retain_graph=True)
        first = x.grad.clone()
        y.backward(lib.ones_like(y))
        return first, x.grad
    d = np.exp([1.0, 2.0]) * (1 + np.array([1.0, 2.0]))
    _agree(program, (d, 2 * d))


# ---------------------------------------------------------------- create_graph

def test_hessian_vector_product():
    def program(lib):
        x = _leaf(lib, [0.5, 1.0, -2.0])
        v = lib.tensor([1.0, -1.0, 2.0], dtype=lib.float64)
        y = x * x * x + x.sin() * x
        s = y[0] + y[1] + y[2]
        (g,) = lib.autograd.grad(s, x, create_graph=True)
        assert g.requires_grad
        gv = g * v
        (hv,) = lib.autograd.grad(gv[0] + gv[1] + gv[2], x)
        return g, hv
    x = np.array([0.5, 1.0, -2.0])
    _agree(program, (3 * x * x + np.sin(x) + x * np.cos(x),
                     (6 * x + 2 * np.cos(x) - x * np.sin(x)) * [1, -1, 2]))


def test_gradient_penalty():
    def program(lib):
        w = _leaf(lib, [0.5, -1.5])
        x = _leaf(lib, [1.0, 2.0])
        out = (x * w).tanh()
        (gx,) = lib.autograd.grad(out, x, lib.ones_like(out), create_graph=True)
        penalty = gx * gx
        loss = out + penalty
        _backward(loss, lib)
        return w.grad, x.grad
    # out = tanh(u), u = x w, s = 1 - out^2 = tanh'(u), ds/du = -2 out s; penalty = s^2 w^2
    w, x = np.array([0.5, -1.5]), np.array([1.0, 2.0])
    t = np.tanh(x * w)
    s = 1 - t * t
    _agree(program, (s * x - 4 * t * s * s * w * w * x + 2 * s * s * w,
                     s * w - 4 * t * s * s * w ** 3))


def test_third_derivative():
    x = _leaf(cygrad, [0.7])
    (g1,) = autograd.grad(x.sin(), x, create_graph=True)
    (g2,) = autograd.grad(g1, x, create_graph=True)
    (g3,) = autograd.grad(g2, x)
    np.testing.assert_allclose(g3.numpy(), -np.cos(0.7))


# ---------------------------------------------------------------- autograd.grad

def test_grad_allow_unused():
    for lib in LIBS:
        x = _leaf(lib, [1.0])
        unused = _leaf(lib, [2.0])
        y = x * 3
        with pytest.raises(RuntimeError, match="appears to not have been used in the graph"):
            lib.autograd.grad(y, (x, unused), retain_graph=True)
        gx, gu = lib.autograd.grad(y, (x, unused), allow_unused=True)
        assert gu is None
        assert gx.tolist() == [3.0]


def test_grad_materialize_grads():
    x, unused = _leaf(cygrad, [1.0]), _leaf(cygrad, [2.0, 3.0])
    gx, gu = autograd.grad(x * 3, (x, unused), materialize_grads=True)
    assert gu.tolist() == [0.0, 0.0]


def test_grad_does_not_touch_dot_grad_and_handles_grad_outputs():
    def program(lib):
        x = _leaf(lib, ARR)
        y = x * x.exp()
        go = lib.tensor(np.arange(6.0).reshape(2, 3), dtype=lib.float64)
        (g,) = lib.autograd.grad(y, x, grad_outputs=go)
        assert x.grad is None
        return g
    _agree(program, np.arange(6.0).reshape(2, 3) * np.exp(ARR) * (1 + ARR))


def test_grad_wrt_non_leaf_and_several_outputs():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        h = x * 2
        y1 = h * h
        y2 = h.exp()
        gh, gx = lib.autograd.grad((y1, y2), (h, x), (lib.ones_like(y1), lib.ones_like(y2) * 2))
        return gh, gx
    h = 2 * np.array([1.0, 2.0])
    gh = 2 * h + 2 * np.exp(h)
    _agree(program, (gh, 2 * gh))


def test_grad_input_not_requiring_grad():
    x = cygrad.tensor([1.0])
    y = _leaf(cygrad, [1.0]) * 2
    with pytest.raises(RuntimeError, match="does not require grad"):
        autograd.grad(y, x)


def test_backward_inputs_restricts_accumulation():
    def program(lib):
        a = _leaf(lib, [1.0, 2.0])
        b = _leaf(lib, [3.0, 4.0])
        y = a * b
        y.backward(lib.ones_like(y), inputs=[a])
        return a.grad, b.grad
    _agree(program, ([3.0, 4.0], None))


def test_backward_inputs_non_leaf():
    def program(lib):
        a = _leaf(lib, [1.0, 2.0])
        h = a * 3
        y = h * h
        y.backward(lib.ones_like(y), inputs=[h])
        return a.grad, h.grad
    _agree(program, (None, [6.0, 12.0]))


def test_backward_inputs_empty_raises():
    x = _leaf(cygrad, [1.0])
    with pytest.raises(RuntimeError, match="cannot be empty"):
        (x * 2).backward(cygrad.ones(1, dtype=f64), inputs=[])


# ---------------------------------------------------------------- hooks

def test_hook_replaces_gradient_leaf_and_non_leaf():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: g * 10)
        h = x * x
        h.register_hook(lambda g: g + 1)
        y = h * 3
        _backward(y, lib)
        return x.grad
    # dy/dh = 3, +1 by h's hook; dh/dx = 2x; x's hook multiplies by 10
    _agree(program, (3 + 1) * 2 * np.array([1.0, 2.0]) * 10)


def test_hook_returning_none_keeps_gradient_and_sees_values():
    def program(lib):
        seen = []
        x = _leaf(lib, [1.0, 2.0])
        h = x * 4
        h.register_hook(lambda g: seen.append(g.tolist()))
        _backward(h * h, lib)
        return seen, x.grad
    _agree(program, ([[8.0, 16.0]], [32.0, 64.0]))      # 2h = 8x, then * 4


def test_hook_order_with_retain_grad_matches_torch():
    # retain_grad registered before and after a user hook: PyTorch always stores
    # the gradient as seen after the tensor's hooks ran
    def program(lib, retain_first):
        x = _leaf(lib, [1.0, 2.0])
        h = x * 2
        if retain_first:
            h.retain_grad()
        h.register_hook(lambda g: g * 100)
        if not retain_first:
            h.retain_grad()
        _backward(h * 3, lib)
        return h.grad, x.grad
    for first in (True, False):
        _agree(lambda lib: program(lib, first), ([300.0, 300.0], [600.0, 600.0]))


def test_several_hooks_run_in_registration_order():
    def program(lib):
        order = []
        x = _leaf(lib, [1.0])
        h = x * 1
        h.register_hook(lambda g: order.append("a") or g * 2)
        h.register_hook(lambda g: order.append("b") or g + 1)
        _backward(h, lib)
        return order, x.grad
    _agree(program, (["a", "b"], [3.0]))                # (1 * 2) + 1


def test_hook_handle_remove():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        handle = x.register_hook(lambda g: g * 10)
        _backward(x * 1, lib)
        first = x.grad.clone()
        handle.remove()
        x.grad = None
        _backward(x * 1, lib)
        return first, x.grad
    _agree(program, ([10.0, 10.0], [1.0, 1.0]))


def test_register_hook_on_tensor_without_grad_raises():
    for lib in LIBS:
        with pytest.raises(RuntimeError, match="doesn't require gradient"):
            lib.tensor([1.0]).register_hook(lambda g: g)


# ---------------------------------------------------------------- requires_grad rules

@pytest.mark.parametrize("dtype", ["int64", "int32", "bool", "uint8"])
def test_integer_tensors_cannot_require_grad(dtype):
    for lib in LIBS:
        t = lib.zeros(2, dtype=getattr(lib, dtype))
        with pytest.raises(RuntimeError, match="only Tensors of floating point"):
            t.requires_grad_()
        with pytest.raises(RuntimeError, match="only Tensors of floating point"):
            t.requires_grad = True
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        cygrad.tensor([1, 2], requires_grad=True)


def test_setting_requires_grad_on_non_leaf_raises():
    for lib in LIBS:
        y = _leaf(lib, [1.0]) * 2
        with pytest.raises(RuntimeError, match="you can only change requires_grad flags of "
                                               "leaf variables"):
            y.requires_grad = False


def test_requires_grad_propagation_and_is_leaf():
    for lib in LIBS:
        x = _leaf(lib, [1.0])
        c = lib.tensor([2.0], dtype=lib.float64)
        y = x * c
        assert x.is_leaf and c.is_leaf and not y.is_leaf
        assert y.requires_grad and not c.requires_grad
        assert x.grad_fn is None and c.grad_fn is None
        z = c * 3
        assert z.is_leaf and not z.requires_grad and z.grad_fn is None


def test_comparisons_do_not_require_grad():
    x = _leaf(cygrad, [1.0, -1.0])
    m = x > 0
    assert not m.requires_grad and m.grad_fn is None


# ---------------------------------------------------------------- graph structure

def test_next_functions_structure_and_names():
    def structure(lib):
        x = _leaf(lib, [1.0])
        c = lib.tensor([2.0], dtype=lib.float64)
        y = (x * c).exp() + x
        root = y.grad_fn
        add_next = [type(n).__name__ if n is not None else None for n, _ in root.next_functions]
        exp_node = root.next_functions[0][0]
        mul_node = exp_node.next_functions[0][0]
        # type names: torch's AccumulateGrad.name() is "torch::autograd::AccumulateGrad"
        mul_next = [(type(n).__name__ if n is not None else None, nr)
                    for n, nr in mul_node.next_functions]
        acc = mul_node.next_functions[0][0]
        assert acc.variable is x
        assert root.next_functions[1][0] is acc      # one AccumulateGrad per leaf
        return root.name(), add_next, exp_node.name(), mul_node.name(), mul_next
    for lib in LIBS:
        assert structure(lib) == ("AddBackward0", ["ExpBackward0", "AccumulateGrad"],
                                  "ExpBackward0", "MulBackward0",
                                  [("AccumulateGrad", 0), (None, 0)]), lib.__name__


def test_node_repr_is_readable():
    y = _leaf(cygrad, [1.0]) * 2
    assert re.match(r"<MulBackward0 object at 0x[0-9a-f]+>", repr(y.grad_fn))


def test_output_nr_of_multiple_outputs_view():
    def program(lib):
        x = _leaf(lib, [[1.0, 2.0], [3.0, 4.0]])
        a, b = x.unbind(0)
        _backward(a * b, lib)
        return x.grad
    _agree(program, [[3.0, 4.0], [1.0, 2.0]])          # d(ab)/da = b, d(ab)/db = a


# ---------------------------------------------------------------- detach / data

def test_detach_shares_memory_and_cuts_graph():
    x = _leaf(cygrad, [1.0, 2.0])
    y = x * 2
    d = y.detach()
    assert not d.requires_grad and d.grad_fn is None and d.is_leaf
    d[0] = 100.0                       # shares memory (and version counter) with y
    assert y[0].item() == 100.0
    assert y._version == d._version


def test_detach_inplace():
    for lib in LIBS:
        x = _leaf(lib, [1.0])
        y = x * 2
        y.detach_()
        assert y.grad_fn is None and not y.requires_grad and y.is_leaf


def test_detach_inplace_on_view_raises():
    for lib in LIBS:
        x = _leaf(lib, [[1.0, 2.0]])
        v = (x * 1)[0]
        with pytest.raises(RuntimeError, match="Can't detach views in-place"):
            v.detach_()


def test_data_is_detached_and_invisible_to_version_checks():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x.exp()
        y.data.mul_(0)                     # torch: .data changes are not tracked
        _backward(y * x, lib)
        return x.grad
    # d(y x)/dx = y + x * exp'(x), where exp' reads the saved output y: zeroed, unnoticed
    _agree(program, [0.0, 0.0])
    x = _leaf(cygrad, [1.0])
    assert not x.data.requires_grad and x.data.grad_fn is None


# ---------------------------------------------------------------- versions & in-place

def test_modified_saved_tensor_error_names_op_and_versions():
    for lib, name in zip(LIBS, ("ExpBackward0", "Exp")):
        x = _leaf(lib, [1.0, 2.0])
        y = x.exp()
        y.mul_(2)
        with pytest.raises(RuntimeError) as info:
            _backward(y, lib)
        msg = str(info.value)
        assert "modified by an inplace operation" in msg
        assert f"output 0 of {name}" in msg
        assert "is at version 1; expected version 0 instead" in msg


def test_modified_saved_input_error():
    for lib in LIBS:
        x = _leaf(lib, [1.0, 2.0])
        h = x * 1
        y = h * h              # saves h (an input)
        h.add_(1)
        with pytest.raises(RuntimeError, match=r"is at version 1; expected version 0"):
            _backward(y, lib)


def test_inplace_on_leaf_requiring_grad_raises():
    for lib in LIBS:
        x = _leaf(lib, [1.0])
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being "
                                               "used in an in-place operation"):
            x.mul_(2)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x[0] = 3.0


def test_inplace_on_leaf_under_no_grad_is_allowed():
    for lib in LIBS:
        x = _leaf(lib, [1.0])
        with lib.no_grad():
            x.mul_(2)
        assert x.tolist() == [2.0] and x.is_leaf and x.requires_grad


def test_inplace_on_non_leaf():
    def program(lib):
        x = _leaf(lib, ARR)
        y = x * 2
        y.add_(x)
        y.mul_(x)                  # needs y's value before the change
        y.div_(x * x + 1)
        y.exp_()
        _backward(y * x, lib)
        return x.grad, y.grad_fn.name(), y._version
    # y = exp(3x^2 / (x^2 + 1)) =: f; d(x f)/dx = f + x f 6x / (x^2 + 1)^2
    x = ARR
    f = np.exp(3 * x * x / (x * x + 1))
    _agree(program, (f + x * f * 6 * x / (x * x + 1) ** 2, "ExpBackward0", 4))


def test_setitem_on_non_leaf_column():
    def program(lib):
        x = _leaf(lib, ARR)
        y = x * 1
        y[:, 0] = x[:, 1] * 3
        _backward(y * y, lib)
        return x.grad
    # column 0 no longer depends on x[:, 0]; x[:, 1] reaches y twice: 2x + 2(3x)3
    expected = 2 * ARR
    expected[:, 0] = 0
    expected[:, 1] = 20 * ARR[:, 1]
    _agree(program, expected)


def test_inplace_through_transposed_view():
    def program(lib):
        x = _leaf(lib, ARR)
        y = x * 1
        y.t().mul_(2)
        _backward(y * x, lib)
        return x.grad
    _agree(program, 4 * ARR)                           # d(2x x)/dx


def test_inplace_on_row_view_updates_base_grad_fn():
    def program(lib):
        x = _leaf(lib, ARR)
        y = x * 1
        v = y[1]
        v.exp_()
        out = y * y + v[0]
        _backward(out, lib)
        return x.grad
    # row 1 became exp(x[1]): d y^2 = 2 exp(2 x[1]); v[0] = exp(x[1, 0]) is added to all 6
    expected = 2 * ARR
    expected[1] = 2 * np.exp(2 * ARR[1])
    expected[1, 0] += 6 * np.exp(ARR[1, 0])
    _agree(program, expected)


def test_view_of_leaf_modified_in_place():
    def program(lib):
        x = _leaf(lib, ARR)
        y = x.clone()
        y[0].mul_(3)
        y[:, 2].add_(y[:, 0])
        _backward(y.sin(), lib)
        return x.grad
    x = ARR
    y = x.copy()
    y[0] *= 3
    y[:, 2] += y[:, 0]
    c = np.cos(y)
    _agree(program, [[3 * c[0, 0] + 3 * c[0, 2], 3 * c[0, 1], 3 * c[0, 2]],
                     [c[1, 0] + c[1, 2], c[1, 1], c[1, 2]]])


def test_version_counter_shared_by_views():
    x = cygrad.zeros(3, dtype=f64)
    v = x[1:]
    before = x._version
    v.add_(1)
    assert x._version == v._version == before + 1


# ---------------------------------------------------------------- grad modes

def test_grad_modes_as_context_managers():
    x = _leaf(cygrad, [1.0])
    with cygrad.no_grad():
        assert not cygrad.is_grad_enabled()
        assert not (x * 2).requires_grad
        with cygrad.enable_grad():
            assert cygrad.is_grad_enabled()
            assert (x * 2).requires_grad
        with cygrad.set_grad_enabled(True):
            assert (x * 2).requires_grad
    assert cygrad.is_grad_enabled()
    with cygrad.set_grad_enabled(False):
        assert not (x * 2).requires_grad
    assert cygrad.is_grad_enabled()
    with cygrad.inference_mode():
        assert not (x * 2).requires_grad
        assert autograd.grad_mode.is_inference_mode_enabled()
    assert not autograd.grad_mode.is_inference_mode_enabled()
    with cygrad.inference_mode(False):
        assert (x * 2).requires_grad


def test_is_inference_mode_enabled_top_level():
    with cygrad.inference_mode():
        assert cygrad.is_inference_mode_enabled()
    assert not cygrad.is_inference_mode_enabled()


def test_set_grad_enabled_as_function():
    try:
        cygrad.set_grad_enabled(False)
        assert not cygrad.is_grad_enabled()
    finally:
        cygrad.set_grad_enabled(True)
    assert cygrad.is_grad_enabled()


def test_grad_modes_as_decorators():
    x = _leaf(cygrad, [1.0])

    @cygrad.no_grad()
    def f1():
        return x * 2

    @cygrad.no_grad
    def f2():
        return x * 2

    @cygrad.enable_grad()
    def f3():
        return x * 2

    @cygrad.set_grad_enabled(False)
    def f4():
        return x * 2

    @cygrad.inference_mode()
    def f5():
        return x * 2

    assert not f1().requires_grad and not f2().requires_grad and not f4().requires_grad
    assert not f5().requires_grad
    with cygrad.no_grad():
        assert f3().requires_grad
    assert cygrad.is_grad_enabled()
    assert f1.__name__ == "f1"


def test_grad_mode_restored_after_exception():
    with pytest.raises(ValueError):
        with cygrad.no_grad():
            raise ValueError
    assert cygrad.is_grad_enabled()


def test_grad_mode_is_thread_local():
    x = _leaf(cygrad, [1.0])
    inside = threading.Event()
    release = threading.Event()
    seen = {}

    def worker():
        with cygrad.no_grad():
            inside.set()
            release.wait(5)
            seen["worker"] = (cygrad.is_grad_enabled(), (x * 2).requires_grad)

    th = threading.Thread(target=worker)
    th.start()
    assert inside.wait(5)
    # the other thread is inside no_grad right now; this one is not affected
    seen["main"] = (cygrad.is_grad_enabled(), (x * 2).requires_grad)
    release.set()
    th.join()
    assert seen["main"] == (True, True)
    assert seen["worker"] == (False, False)

    # and a new thread starts with grad mode on even if the main thread disabled it
    result = {}
    with cygrad.no_grad():
        th = threading.Thread(target=lambda: result.setdefault("e", cygrad.is_grad_enabled()))
        th.start()
        th.join()
    assert result["e"] is True


# ---------------------------------------------------------------- anomaly mode

def _forward_with_nan(x):
    return (x * 0).sqrt() * 0          # d sqrt at 0 is inf; inf * 0 = nan  # FORWARD-LINE


def test_anomaly_mode_names_node_and_forward_line():
    x = _leaf(cygrad, [0.0, 1.0])
    with autograd.detect_anomaly():
        y = _forward_with_nan(x)
        with pytest.raises(RuntimeError) as info:
            _backward(y, cygrad)
    msg = str(info.value)
    assert "SqrtBackward0" in msg and "nan" in msg
    assert "FORWARD-LINE" in msg           # the source line of the forward call
    assert "_forward_with_nan" in msg
    assert not autograd.is_anomaly_enabled()


def test_anomaly_mode_names_backward_node():
    x = _leaf(cygrad, [0.0, 1.0])
    with autograd.detect_anomaly():
        y = _forward_with_nan(x)
        with pytest.raises(RuntimeError) as info:
            _backward(y, cygrad)
    msg = str(info.value)
    assert msg.startswith("Function 'SqrtBackward0' returned nan values in its 0th output.")
    assert "The forward call that created this node was" in msg
    if torch is None:
        return          # the rest compares with torch's message
    # torch's message for the same program names the same node
    tx = _leaf(torch, [0.0, 1.0])
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # torch warns that anomaly mode is slow
        with torch.autograd.detect_anomaly():
            ty = _forward_with_nan(tx)
            with pytest.raises(RuntimeError, match="'SqrtBackward0' returned nan values in "
                                                   "its 0th output"):
                _backward(ty, torch)


def test_anomaly_mode_off_gives_nan_silently():
    x = _leaf(cygrad, [0.0])
    _backward(_forward_with_nan(x), cygrad)
    assert np.isnan(x.grad.numpy()[0])


def test_set_detect_anomaly():
    autograd.set_detect_anomaly(True)
    try:
        assert autograd.is_anomaly_enabled()
    finally:
        autograd.set_detect_anomaly(False)
    assert not autograd.is_anomaly_enabled()


# ---------------------------------------------------------------- deep graphs & memory

def test_deep_chain_backward_and_free():
    limit = sys.getrecursionlimit()
    x = _leaf(cygrad, [1.0])
    y = x
    n = 100_000
    for _ in range(n):
        y = y * 1.0001
    node = weakref.ref(y.grad_fn)
    y.backward(cygrad.ones_like(y))
    np.testing.assert_allclose(x.grad.numpy(), [1.0001 ** n], rtol=1e-9)
    # dropping the last reference frees 100 000 nodes, each the only owner of the
    # next: this must not recurse 100 000 deep in C
    del y
    assert node() is None
    assert sys.getrecursionlimit() == limit


def test_graph_freed_by_reference_counting():
    was_enabled = gc.isenabled()
    gc.disable()
    try:
        x = _leaf(cygrad, [1.0, 2.0])
        h = x.exp()
        y = h * x
        z = y.sin()
        refs = [weakref.ref(t) for t in (h, y)] + [weakref.ref(n) for n in
                                                   (h.grad_fn, y.grad_fn, z.grad_fn)]
        del h, y
        assert all(r() is not None for r in refs[2:])    # z's graph still holds the nodes
        del z
        assert [r() for r in refs] == [None] * len(refs)
        # a graph after backward is freed too (saved tensors released)
        h = x * 2
        y = h * h
        ref_h, ref_node = weakref.ref(h), weakref.ref(y.grad_fn)
        _backward(y, cygrad)
        del h, y
        assert ref_h() is None and ref_node() is None
        # the leaf itself: its AccumulateGrad node dies with it
        acc = weakref.ref((x * 1).grad_fn.next_functions[0][0])
        ref_x = weakref.ref(x)
        del x
        assert ref_x() is None and acc() is None
    finally:
        if was_enabled:
            gc.enable()


def test_custom_function_graph_freed_without_gc():
    class Sq(autograd.Function):
        @staticmethod
        def forward(ctx, x):
            y = x * x
            ctx.save_for_backward(x, y)     # saving an output must not create a cycle
            return y

        @staticmethod
        def backward(ctx, g):
            x, y = ctx.saved_tensors
            return 2 * x * g

    was_enabled = gc.isenabled()
    gc.disable()
    try:
        x = _leaf(cygrad, [3.0])
        y = Sq.apply(x)
        r_y, r_node = weakref.ref(y), weakref.ref(y.grad_fn)
        del y
        assert r_y() is None and r_node() is None
    finally:
        if was_enabled:
            gc.enable()


# ---------------------------------------------------------------- more hook semantics

def test_hook_called_once_with_summed_gradient():
    def program(lib):
        calls = []
        x = _leaf(lib, [1.0, 2.0])
        x.register_hook(lambda g: calls.append(("leaf", g.tolist())))
        h = x * 2
        h.register_hook(lambda g: calls.append(("h", g.tolist())))
        y = h * h + h * 3 + x
        _backward(y, lib)
        return calls, x.grad
    # dy/dh = 2h + 3 = 4x + 3 (h's hook, once); x gets 2 (4x + 3) + 1 (leaf hook, once)
    _agree(program, ([("h", [7.0, 11.0]), ("leaf", [15.0, 23.0])], [15.0, 23.0]))


def test_hook_registered_before_inplace_sees_old_value_gradient():
    def program(lib):
        seen = []
        x = _leaf(lib, [1.0, 2.0])
        y = x * 1
        y.register_hook(lambda g: seen.append(g.tolist()))
        y.mul_(2)
        _backward(y * y, lib)
        return seen, x.grad
    # the hook sees the gradient of the old y (= x): 2 y_new * 2 = 8x
    _agree(program, ([[8.0, 16.0]], [8.0, 16.0]))


def test_retain_grad_follows_inplace_modification():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x * 1
        y.retain_grad()
        y.mul_(2)
        _backward(y * y, lib)
        return y.grad
    _agree(program, [4.0, 8.0])                        # 2 y_new = 4x


def test_node_hooks_and_prehooks_match_torch():
    def program(lib):
        x = _leaf(lib, [1.0, 2.0])
        y = x.exp()
        y.grad_fn.register_hook(lambda gin, gout: (gin[0] * 3,))
        z = y * 2
        z.grad_fn.register_prehook(lambda gout: (gout[0] * 5,))
        _backward(z, lib)
        return x.grad
    _agree(program, 5 * 2 * np.exp([1.0, 2.0]) * 3)


def test_post_accumulate_grad_hook():
    def program(lib):
        seen = []
        x = _leaf(lib, [1.0, 2.0])
        x.register_post_accumulate_grad_hook(lambda t: seen.append(t.grad.tolist()))
        _backward(x * 3, lib)
        _backward(x * 3, lib)
        return seen
    _agree(program, [[3.0, 3.0], [6.0, 6.0]])


def test_gradients_of_views_match_torch():
    def program(lib):
        x = _leaf(lib, ARR)
        parts = [x.t() * 2, x[1:, ::2] * 3, x.unsqueeze(0).expand(4, 2, 3) * 1,
                 x.reshape(6)[2:5] * x.reshape(6)[:3], x.diagonal() * 5, x.unbind(1)[2] * 7]
        for p in parts:
            p.backward(lib.ones_like(p))
        return x.grad
    expected = np.full((2, 3), 2.0 + 4.0)              # t() * 2, expand over 4 copies
    expected[1, ::2] += 3
    flat = ARR.reshape(6)
    g = np.zeros(6)
    g[2:5] += flat[:3]                                 # d(a b) = b da + a db
    g[:3] += flat[2:5]
    expected += g.reshape(2, 3)
    expected[[0, 1], [0, 1]] += 5
    expected[:, 2] += 7
    _agree(program, expected)


def test_assigning_grad_of_wrong_shape_or_dtype_raises():
    for lib in LIBS:
        x = _leaf(lib, [1.0, 2.0])
        with pytest.raises(RuntimeError):
            x.grad = lib.ones(3, dtype=lib.float64)
        with pytest.raises(RuntimeError):
            x.grad = lib.ones(2, dtype=lib.float32)


def test_view_node_names_match_torch():
    def names(lib):
        h = _leaf(lib, ARR) * 1
        views = [h.t(), h.transpose(0, 1), h[0], h[1:], h.view(3, 2), h.unsqueeze(0),
                 h.permute(1, 0), h.diagonal(), h.expand(2, 2, 3)]
        return [v.grad_fn.name() for v in views]
    for lib in LIBS:
        assert names(lib) == ["TBackward0", "TransposeBackward0", "SelectBackward0",
                              "SliceBackward0", "ViewBackward0", "UnsqueezeBackward0",
                              "PermuteBackward0", "DiagonalBackward0", "ExpandBackward0"]


def test_assigning_data_replaces_values_keeps_autograd_identity():
    """``w.data = t`` (as optimizers and init code do): new memory, shape and values;
    still the same leaf requiring grad; gradients flow to the new values. Same as torch."""
    for lib in LIBS:
        w = lib.ones(2, 3, requires_grad=True)
        w.data = lib.arange(4.0)
        (w * w).sum().backward()
        assert (tuple(w.shape), w.requires_grad, w.is_leaf, w.grad.tolist()) == \
            ((4,), True, True, [0.0, 2.0, 4.0, 6.0]), lib.__name__
        with pytest.raises(TypeError):
            w.data = [1.0, 2.0]


# ---- AccumulateGrad keeps an unshared first gradient without copying it -----------------

def _data_ptr(t):
    return t.numpy().__array_interface__["data"][0]


def test_first_gradient_is_kept_without_a_copy_when_nothing_else_holds_it():
    seen = []
    x = cygrad.randn(64, 32, requires_grad=True)
    w = cygrad.randn(32, 16, requires_grad=True)
    # the hook records where MmBackward0's gradient lives, keeping no reference to it
    x.register_hook(lambda g: seen.append(_data_ptr(g)))
    (x @ w).sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), np.ones((64, 16)) @ w.detach().numpy().T,
                               rtol=1e-5)
    assert seen == [_data_ptr(x.grad)]


def test_a_gradient_a_hook_kept_is_copied():
    kept = []
    x = cygrad.randn(8, 4, requires_grad=True)
    x.register_hook(lambda g: kept.append(g))
    (x * 3.0).sum().backward()
    assert _data_ptr(x.grad) != _data_ptr(kept[0])
    x.grad.add_(1.0)                        # .grad is the leaf's own memory
    np.testing.assert_array_equal(kept[0].numpy(), np.full((8, 4), 3.0, np.float32))


def test_one_gradient_tensor_reaching_two_leaves_is_not_shared():
    a = cygrad.randn(5, requires_grad=True)
    b = cygrad.randn(5, requires_grad=True)
    (a + b).exp().sum().backward()          # AddBackward0 hands the same tensor to both
    assert _data_ptr(a.grad) != _data_ptr(b.grad)
    a.grad.zero_()
    np.testing.assert_allclose(b.grad.numpy(), np.exp((a + b).detach().numpy()), rtol=1e-6)


def test_a_view_gradient_is_copied():
    x = cygrad.randn(4, requires_grad=True)
    y = cygrad.randn(4, requires_grad=True)
    cygrad.cat([x, y]).pow(2).sum().backward()    # each grad is a slice of one buffer
    np.testing.assert_allclose(x.grad.numpy(), 2 * x.detach().numpy(), rtol=1e-6)
    x.grad.zero_()
    np.testing.assert_allclose(y.grad.numpy(), 2 * y.detach().numpy(), rtol=1e-6)


def test_kept_gradients_accumulate_over_a_long_loop():
    # thousands of steps: a kept buffer must never be reused under a live .grad
    w = cygrad.randn(300, 300, requires_grad=True)
    x = cygrad.randn(20, 300)
    want = np.zeros((300, 300))
    for i in range(2000):
        if i % 100 == 0:
            w.grad = None
            want[:] = 0
        (x @ w).sum().backward()
        want += x.numpy().sum(0)[:, None]
    np.testing.assert_allclose(w.grad.numpy(), want, rtol=1e-4)
