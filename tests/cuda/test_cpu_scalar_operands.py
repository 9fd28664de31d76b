"""A 0-d CPU tensor in an op on a CUDA tensor (emulated GPU): PyTorch treats it as
a scalar, so ``cuda_x * torch.tensor(0.5)`` works, with type promotion of a 0-d
tensor and a gradient back to the CPU tensor; tensors of one or more dims on
another device still raise PyTorch's RuntimeError."""
import os
import sys

import numpy as np
import pytest

import cygrad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx

MIXED = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"


def _data():
    return np.random.default_rng(0).standard_normal((3, 4))


@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "maximum", "lt", "eq"])
@pytest.mark.parametrize("scalar_first", [False, True])
def test_binary_ops_take_a_cpu_scalar_tensor(op, scalar_first):
    x = np.abs(_data()) + 0.1 if op == "pow" else _data()
    s = 1.5
    fn = getattr(cygrad, op)
    ref_args = (np.float64(s), x) if scalar_first else (x, np.float64(s))
    ref = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "pow": np.power, "maximum": np.maximum, "lt": np.less, "eq": np.equal}[op](*ref_args)
    if op == "pow" and scalar_first:
        ref = np.power(s, x)
    xc, sc = cygrad.tensor(x, device="cuda"), cygrad.tensor(s, dtype=cygrad.float64)
    out = fn(sc, xc) if scalar_first else fn(xc, sc)
    assert out.device.type == "cuda"
    np.testing.assert_allclose(out.cpu().numpy(), ref, rtol=1e-12)


def test_promotion_follows_the_zero_dim_rule():
    # a 0-d float64 tensor does not promote a float32 tensor (same category);
    # a 0-d float tensor does promote an int tensor to the default float
    x32 = cygrad.ones(3, device="cuda")
    assert (x32 * cygrad.tensor(2.0, dtype=cygrad.float64)).dtype == cygrad.float32
    xi = cygrad.ones(3, dtype=cygrad.int64, device="cuda")
    assert (xi * cygrad.tensor(2.5)).dtype == cygrad.float32
    assert (xi * cygrad.tensor(2.5)).cpu().tolist() == [2.5, 2.5, 2.5]


def test_gradient_reaches_the_cpu_scalar():
    x = _data()
    xc = cygrad.tensor(x, device="cuda", requires_grad=True)
    s = cygrad.tensor(0.75, dtype=cygrad.float64, requires_grad=True)
    (xc * s + s).sum().backward()
    assert s.grad.device.type == "cpu"
    np.testing.assert_allclose(s.grad.item(), x.sum() + x.size, rtol=1e-12)
    assert xc.grad.device.type == "cuda"
    np.testing.assert_allclose(xc.grad.cpu().numpy(), np.full_like(x, 0.75))


def test_in_place_where_and_clamp():
    x = _data()
    xc = cygrad.tensor(x, device="cuda")
    xc.mul_(cygrad.tensor(2.0, dtype=cygrad.float64))
    np.testing.assert_allclose(xc.cpu().numpy(), 2 * x)
    w = cygrad.where(xc > 0, xc, cygrad.tensor(-1.0, dtype=cygrad.float64))
    np.testing.assert_allclose(w.cpu().numpy(), np.where(x > 0, 2 * x, -1.0))
    c = xc.clamp(min=cygrad.tensor(-0.5, dtype=cygrad.float64),
                 max=cygrad.tensor(0.5, dtype=cygrad.float64))
    np.testing.assert_allclose(c.cpu().numpy(), np.clip(2 * x, -0.5, 0.5))


def test_tensors_with_dims_on_another_device_still_raise():
    xc = cygrad.ones(3, device="cuda")
    with pytest.raises(RuntimeError, match=MIXED):
        xc + cygrad.ones(1)
    with pytest.raises(RuntimeError, match=MIXED):
        cygrad.where(xc > 0, xc, cygrad.zeros(3))
    with pytest.raises(RuntimeError, match=MIXED):
        xc @ cygrad.ones(3, 3)
    # the output of an in-place op stays where it is: a CPU tensor cannot take CUDA values
    with pytest.raises(RuntimeError, match=MIXED):
        cygrad.ones(3).add_(cygrad.tensor(1.0).cuda() + xc)
