"""In-place overwrites (fill_, zero_, the random samplers) record a node marked dirty
with a zero gradient for the old values, as PyTorch does; before, a tracked tensor
kept its old history and the gradient flowed through values that were gone."""
import numpy as np
import pytest

import cygrad

CALLS = ["fill_(2.0)", "zero_()", "uniform_()", "normal_()", "random_(3)", "random_(1, 3)",
         "random_()", "bernoulli_(0.3)", "bernoulli_(lib.tensor([0.3, 0.2]))", "geometric_(0.5)",
         "log_normal_()", "cauchy_()", "exponential_()"]


@pytest.mark.parametrize("call", CALLS)
def test_overwrite_node_and_zero_gradient_like_torch(call):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    names, grads = [], []
    for lib in (cygrad, torch):
        leaf = lib.tensor([1.0, 2.0], requires_grad=True)
        x = leaf * 1
        assert eval("x." + call, {"x": x, "lib": lib}) is x
        names.append(x.grad_fn.name().split("::")[-1])
        (x * 3 + leaf).sum().backward()
        grads.append(leaf.grad.detach().numpy().copy())
    assert names[0] == names[1]
    np.testing.assert_array_equal(grads[0], grads[1])     # 1 from "+ leaf" only


def test_fill_with_a_tensor_value_gives_it_the_gradient_sum():
    leaf = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    value = cygrad.tensor(4.0, requires_grad=True)
    x = leaf * 1
    x.fill_(value)
    assert x.grad_fn.name() == "FillBackward3"
    (x * cygrad.tensor([1.0, 2.0, 3.0])).sum().backward()
    assert value.grad.item() == 6.0
    np.testing.assert_array_equal(leaf.grad.numpy(), [0.0, 0.0, 0.0])


def test_fill_of_a_view_reaches_the_base_through_copyslices():
    leaf = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    base = leaf * 1
    base[1:].zero_()
    assert base.grad_fn.name() == "CopySlices"
    (base * 5).sum().backward()
    np.testing.assert_array_equal(leaf.grad.numpy(), [5.0, 0.0, 0.0])


@pytest.mark.parametrize("call", ["fill_(1.0)", "zero_()", "uniform_()", "normal_()"])
def test_overwrite_of_a_leaf_is_refused(call):
    leaf = cygrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        eval("leaf." + call)
    with cygrad.no_grad():
        eval("leaf." + call)        # an update step is fine


def test_overwrite_tangent_is_zero():
    import cygrad.autograd.forward_ad as fwAD
    with fwAD.dual_level():
        x = fwAD.make_dual(cygrad.ones(3, dtype=cygrad.float64), cygrad.ones(3, dtype=cygrad.float64))
        y = x * 2
        y.fill_(7.0)
        np.testing.assert_array_equal(fwAD.unpack_dual(y).tangent.numpy(), [0.0, 0.0, 0.0])


@pytest.mark.parametrize("call", ["mul_(2)", "tril_()", "fill_(1.0)", "zero_()", "clamp_(0, 1)",
                                  "copy_(cygrad.ones(2, 3))",
                                  "index_add_(0, cygrad.tensor([0]), cygrad.ones(1, 3))"])
def test_view_of_a_leaf_that_is_itself_a_view_is_refused(call):
    """The leaf that requires grad is a view of a tensor outside autograd
    (``arange(9.).reshape(3, 3)``): its view's base does not require grad, yet writing
    into the view is writing into the leaf. PyTorch refuses it before writing."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    for lib in (cygrad, torch):
        leaf = lib.arange(9.0).reshape(3, 3).requires_grad_()
        with pytest.raises(RuntimeError, match="view of a leaf Variable"):
            eval("leaf[1:]." + call, {"leaf": leaf, "cygrad": lib})
        assert leaf[1, 1].item() == 4.0         # nothing was written
