"""One entry path (issue 8) for the elementwise ops with special forms: the values do
not depend on whether autograd records the op, and the node is the op's own."""
import numpy as np
import pytest

import cygrad


def _pair(values, requires_grad):
    return cygrad.tensor(values, dtype=cygrad.float64, requires_grad=requires_grad)


@pytest.mark.parametrize("a, b", [([1.0, 2.0, -1.0], [0.1, 0.3, 0.1]),
                                  ([7.0, -7.0, 0.5], [2.0, 2.0, -0.25])])
def test_div_floor_same_values_with_and_without_grad(a, b):
    plain = cygrad.div(_pair(a, False), _pair(b, False), rounding_mode="floor")
    tracked = cygrad.div(_pair(a, True), _pair(b, True), rounding_mode="floor")
    expected = np.floor_divide(np.array(a), np.array(b))      # exact floor division
    np.testing.assert_array_equal(plain.numpy(), expected)
    np.testing.assert_array_equal(tracked.detach().numpy(), expected)
    assert tracked.grad_fn.name() == "DivBackward2"


def test_div_floor_gradient_is_zero_like_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a, b = _pair([1.0, 2.0], True), _pair([0.1, 0.3], True)
    cygrad.div(a, b, rounding_mode="floor").sum().backward()
    ta = torch.tensor([1.0, 2.0], dtype=torch.float64, requires_grad=True)
    tb = torch.tensor([0.1, 0.3], dtype=torch.float64, requires_grad=True)
    torch.div(ta, tb, rounding_mode="floor").sum().backward()
    np.testing.assert_array_equal(a.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(b.grad.numpy(), tb.grad.numpy())


def test_inplace_ops_record_their_own_function_marked_dirty():
    leaf = _pair([1.0, 2.0, 3.0], True)
    y = _pair([2.0, 5.0, 7.0], True)
    x = leaf * 1
    x.mul_(y)
    assert x.grad_fn.name() == "MulBackward0"
    # the node's first input is x's previous history (no extra Clone node between)
    assert x.grad_fn.next_functions[0][0].name() == "MulBackward0"
    x.addcmul_(y, y, value=0.5)
    assert x.grad_fn.name() == "AddcmulBackward0"
    x.exp_()
    assert x.grad_fn.name() == "ExpBackward0"
    x.sum().backward()
    a, b = leaf.detach().numpy(), y.detach().numpy()
    inner = np.exp(a * b + 0.5 * b * b)
    np.testing.assert_allclose(leaf.grad.numpy(), inner * b)
    np.testing.assert_allclose(y.grad.numpy(), inner * (a + b))


@pytest.mark.parametrize("name, call, node", [
    ("clamp_", lambda h, o: h.clamp_(-0.5, 0.5), "ClampBackward1"),
    ("clamp_ tensor", lambda h, o: h.clamp_(min=o), "ClampBackward0"),
    ("lerp_", lambda h, o: h.lerp_(o, 0.3), "LerpBackward0"),
    ("lerp_ tensor", lambda h, o: h.lerp_(o, o), "LerpBackward1"),
    ("round_", lambda h, o: h.round_(decimals=1), "RoundBackward1"),
    ("div_ trunc", lambda h, o: h.div_(o, rounding_mode="trunc"), "DivBackward2"),
    ("div_ floor", lambda h, o: h.div_(o, rounding_mode="floor"), "DivBackward2"),
    ("nan_to_num_", lambda h, o: h.nan_to_num_(), "NanToNumBackward0"),
])
def test_compound_inplace_is_its_function_marked_dirty(name, call, node):
    """The in-place forms of the several-kernel ops record the same Function as the
    out-of-place op, under torch's node name, with torch's gradients."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    values, other = [-1.5, 0.25, 0.7, 2.0], [0.5, -0.75, 1.5, 0.9]
    leaf, o = _pair(values, True), _pair(other, True)
    h = leaf * 1
    assert call(h, o) is h and h.grad_fn.name() == node
    (h * _pair([1.0, 2.0, 3.0, 4.0], False)).sum().backward()
    tl = torch.tensor(values, dtype=torch.float64, requires_grad=True)
    to = torch.tensor(other, dtype=torch.float64, requires_grad=True)
    th = tl * 1
    call(th, to)
    assert th.grad_fn.name() == node
    (th * torch.tensor([1.0, 2.0, 3.0, 4.0], dtype=torch.float64)).sum().backward()
    np.testing.assert_allclose(h.detach().numpy(), th.detach().numpy())
    np.testing.assert_allclose(leaf.grad.numpy(), tl.grad.numpy())
    if to.grad is None:
        assert o.grad is None or not o.grad.numpy().any()
    else:
        np.testing.assert_allclose(o.grad.numpy(), to.grad.numpy())
