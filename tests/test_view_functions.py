"""Every view op is recorded as its own Function class from cygrad/ops/view_functions.py,
under PyTorch's node name, and its gradient (reverse and forward mode) is right."""
import numpy as np
import pytest

import cygrad
from cygrad.autograd import gradcheck
from cygrad.ops import view_functions as V

VIEWS = [
    ("t", lambda x: x.t(), V.T),
    ("transpose", lambda x: x.transpose(0, 2), V.Transpose),
    ("permute", lambda x: x.permute(2, 0, 1), V.Permute),
    ("view", lambda x: x.view(4, 3), V.View),
    ("squeeze", lambda x: x.unsqueeze(1).squeeze(1), V.Squeeze),
    ("unsqueeze", lambda x: x.unsqueeze(0), V.Unsqueeze),
    ("expand", lambda x: x[:, :1].expand(4, 3, 5, 2), V.Expand),
    ("slice", lambda x: x[1:, ::2], V.Slice),
    ("select", lambda x: x[1], V.Select),
    ("narrow", lambda x: x.narrow(2, 1, 1), V.Narrow),
    ("diagonal", lambda x: x.diagonal(0, 1, 2), V.Diagonal),
    ("as_strided", lambda x: x.as_strided((2, 2), (3, 1), 1), V.AsStrided),
]


def _input(name):
    shape = (3, 2) if name == "t" else (3, 2, 2)
    rng = np.random.default_rng(0)
    return cygrad.tensor(rng.standard_normal(shape), dtype=cygrad.float64, requires_grad=True)


@pytest.mark.parametrize("name,fn,cls", VIEWS, ids=[v[0] for v in VIEWS])
def test_node_is_the_view_function(name, fn, cls):
    y = fn(_input(name))
    node = y.grad_fn
    # the last node is the view's own (for expand/squeeze, the outermost view)
    assert node.name() == cls._node_name
    assert type(node)._forward_cls is cls
    assert cls.__module__ == "cygrad.ops.view_functions" or cls is V.AsStrided


@pytest.mark.parametrize("name,fn,cls", VIEWS, ids=[v[0] for v in VIEWS])
def test_view_gradients(name, fn, cls):
    # a non-linear use of the view, so the gradient depends on where elements went
    assert gradcheck(lambda x: fn(x).pow(2), (_input(name),))
    assert gradcheck(lambda x: fn(x).exp(), (_input(name),), check_forward_ad=True)


def test_permute_backward_is_the_inverse_permutation():
    x = cygrad.arange(24.0).reshape(2, 3, 4).requires_grad_()
    w = cygrad.arange(24.0).reshape(4, 2, 3)
    (x.permute(2, 0, 1) * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.transpose(w.numpy(), (1, 2, 0)))


def test_expand_backward_sums_the_repeats():
    x = cygrad.tensor([[1.0], [2.0]], requires_grad=True)
    w = cygrad.arange(8.0).reshape(4, 2, 1).expand(4, 2, 3)
    (x.expand(4, 2, 3) * w).sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), w.numpy().sum(axis=(0, 2))[:, None])


def test_view_function_apply_directly():
    x = cygrad.randn(2, 3, dtype=cygrad.float64, requires_grad=True)
    y = V.Permute.apply(x, (1, 0))
    assert y.shape == (3, 2) and y.grad_fn.name() == "PermuteBackward0"
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((2, 3)))


@pytest.mark.parametrize("cls,shape", [(V.View, (3, 2)), (V.Expand, (4, 2, 3)), (V.Slice, (2, 2))])
def test_general_path_forward_then_backward(cls, shape):
    # calling apply directly runs forward (not the engine's fast path); backward then
    # needs what forward stored
    x = cygrad.randn(2, 3, dtype=cygrad.float64, requires_grad=True)
    if cls is V.Expand:
        x = cygrad.randn(2, 1, dtype=cygrad.float64, requires_grad=True)
        y = cls.apply(x, shape, (0, 1, 0), 0)
    elif cls is V.View:
        y = cls.apply(x, shape, (2, 1), 0)
    else:
        y = cls.apply(x, shape, (3, 1), 1)
    assert y.grad_fn.name() == cls._node_name
    y.sum().backward()
    expected = {V.View: np.ones((2, 3)), V.Expand: np.full((2, 1), 12.0),
                V.Slice: np.array([[0, 1, 1], [0, 1, 1]], dtype=float)}[cls]
    np.testing.assert_array_equal(x.grad.numpy(), expected)
