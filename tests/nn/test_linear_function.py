"""The fused ``Linear`` Function behind ``F.linear`` / ``nn.Linear``: gradients
(first and second order, forward mode) in float64, the node PyTorch records, and
the fallbacks that keep PyTorch's errors."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad.autograd import gradcheck, gradgradcheck


def _leaf(rng, *shape):
    return cygrad.from_numpy(rng.standard_normal(shape)).requires_grad_()


@pytest.mark.parametrize("x_shape", [(4, 3), (2, 3, 3)])
@pytest.mark.parametrize("bias", [True, False])
def test_linear_grads_first_second_and_forward_mode(rng, x_shape, bias):
    x, w = _leaf(rng, *x_shape), _leaf(rng, 2, 3)
    args = (x, w, _leaf(rng, 2)) if bias else (x, w)
    assert gradcheck(F.linear, args, check_forward_ad=True)
    assert gradgradcheck(F.linear, args)


def test_linear_backward_values(rng):
    x, w, b = _leaf(rng, 5, 3), _leaf(rng, 4, 3), _leaf(rng, 4)
    g = rng.standard_normal((5, 4))
    F.linear(x, w, b).backward(cygrad.from_numpy(g))
    np.testing.assert_allclose(x.grad.numpy(), g @ w.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(w.grad.numpy(), g.T @ x.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), g.sum(0), rtol=1e-12)


def test_linear_node_name_matches_torch(rng):
    torch = pytest.importorskip("torch")
    ours = F.linear(_leaf(rng, 2, 3), _leaf(rng, 4, 3), _leaf(rng, 4))
    theirs = torch.nn.functional.linear(torch.ones(2, 3, requires_grad=True), torch.ones(4, 3),
                                        torch.ones(4))
    assert type(ours.grad_fn).__name__ == type(theirs.grad_fn).__name__


@pytest.mark.parametrize("case", ["bias_size", "bias_dtype", "weight_dtype", "input_dtype",
                                  "in_features"])
def test_linear_errors_match_torch(case):
    torch = pytest.importorskip("torch")

    def args(T):
        x, w, b = T.ones(2, 3), T.ones(4, 3), T.ones(4)
        if case == "bias_size":
            b = T.ones(5)
        elif case == "bias_dtype":
            b = T.ones(4, dtype=T.float64)
        elif case == "weight_dtype":
            w = T.ones(4, 3, dtype=T.float64)
        elif case == "input_dtype":
            x = T.ones(2, 3, dtype=T.float64)
        else:
            w = T.ones(4, 5)
        return x, w, b

    with pytest.raises(RuntimeError) as theirs:
        torch.nn.functional.linear(*args(torch))
    with pytest.raises(RuntimeError) as ours:
        F.linear(*args(cygrad))
    assert str(ours.value) == str(theirs.value)
