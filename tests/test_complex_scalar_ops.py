"""Complex tensors with complex scalars in addcmul, addcdiv, lerp, addr and the
addmm family on the CPU: values against NumPy, gradients by gradcheck and
gradgradcheck in complex128 (the backward must use the conjugates of the scalars
and of the factors), and the results against PyTorch where it is installed."""
import numpy as np
import pytest

import cygrad
from cygrad.autograd import gradcheck, gradgradcheck

ALPHA = 1.5 + 2j
BETA = 0.5 - 1.5j
SMALL = 0.25 - 0.2j     # |weight| < 0.5: lerp's other branch

# name -> (shapes of the tensor arguments, call(module, *tensors), NumPy reference)
CASES = {
    "addcmul": (((3,), (3,), (3,)),
                lambda m, a, b, c: m.addcmul(a, b, c, value=ALPHA),
                lambda a, b, c: a + ALPHA * b * c),
    "addcdiv": (((3,), (3,), (3,)),
                lambda m, a, b, c: m.addcdiv(a, b, c, value=ALPHA),
                lambda a, b, c: a + ALPHA * b / c),
    "lerp_scalar": (((3,), (3,)),
                    lambda m, a, b: m.lerp(a, b, ALPHA),
                    lambda a, b: a + ALPHA * (b - a)),
    "lerp_small": (((3,), (3,)),
                   lambda m, a, b: m.lerp(a, b, SMALL),
                   lambda a, b: a + SMALL * (b - a)),
    "lerp_tensor": (((3,), (3,), (3,)),
                    lambda m, a, b, w: m.lerp(a, b, w),
                    lambda a, b, w: a + w * (b - a)),
    "addr": (((2, 3), (2,), (3,)),
             lambda m, a, x, y: m.addr(a, x, y, beta=BETA, alpha=ALPHA),
             lambda a, x, y: BETA * a + ALPHA * np.outer(x, y)),
    "addmm": (((2, 3), (2, 4), (4, 3)),
              lambda m, a, x, y: m.addmm(a, x, y, beta=BETA, alpha=ALPHA),
              lambda a, x, y: BETA * a + ALPHA * (x @ y)),
    "addmv": (((2,), (2, 4), (4,)),
              lambda m, a, x, y: m.addmv(a, x, y, beta=BETA, alpha=ALPHA),
              lambda a, x, y: BETA * a + ALPHA * (x @ y)),
    "baddbmm": (((2, 2, 3), (2, 2, 4), (2, 4, 3)),
                lambda m, a, x, y: m.baddbmm(a, x, y, beta=BETA, alpha=ALPHA),
                lambda a, x, y: BETA * a + ALPHA * (x @ y)),
    "addbmm": (((2, 3), (2, 2, 4), (2, 4, 3)),
               lambda m, a, x, y: m.addbmm(a, x, y, beta=BETA, alpha=ALPHA),
               lambda a, x, y: BETA * a + ALPHA * (x @ y).sum(0)),
}


def _arrays(shapes, dtype):
    rng = np.random.default_rng(7)
    return [(rng.standard_normal(s) + 1j * rng.standard_normal(s)).astype(dtype)
            for s in shapes]


@pytest.mark.parametrize("name", sorted(CASES))
@pytest.mark.parametrize("dtype,tol", [(np.complex64, 1e-5), (np.complex128, 1e-12)])
def test_values_match_numpy(name, dtype, tol):
    shapes, call, reference = CASES[name]
    arrays = _arrays(shapes, dtype)
    result = call(cygrad, *(cygrad.tensor(a) for a in arrays))
    assert result.dtype is getattr(cygrad, np.dtype(dtype).name)
    np.testing.assert_allclose(result.numpy(), reference(*arrays), rtol=tol, atol=tol)


@pytest.mark.parametrize("name", sorted(CASES))
def test_gradients_pass_gradcheck(name):
    shapes, call, _ = CASES[name]
    inputs = tuple(cygrad.tensor(a, requires_grad=True)
                   for a in _arrays(shapes, np.complex128))
    fn = lambda *t: call(cygrad, *t)                    # noqa: E731
    assert gradcheck(fn, inputs)
    assert gradgradcheck(fn, inputs)


@pytest.mark.parametrize("name", sorted(CASES))
def test_values_and_gradients_match_pytorch(name):
    torch = pytest.importorskip("torch", reason="compares with PyTorch's results")
    shapes, call, _ = CASES[name]
    arrays = _arrays(shapes, np.complex128)
    ours = [cygrad.tensor(a, requires_grad=True) for a in arrays]
    theirs = [torch.tensor(a, requires_grad=True) for a in arrays]
    out, ref = call(cygrad, *ours), call(torch, *theirs)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12,
                               atol=1e-12)
    # a complex upstream gradient, so that a missing conjugate shows
    g = _arrays([tuple(out.shape)], np.complex128)[0] * (0.3 - 0.7j)
    out.backward(cygrad.tensor(g))
    ref.backward(torch.tensor(g))
    for a, b in zip(ours, theirs):
        np.testing.assert_allclose(a.grad.numpy(), b.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_integer_refusals_are_kept():
    torch = pytest.importorskip("torch", reason="compares the errors with PyTorch's")
    for m in (cygrad, torch):
        i = m.tensor([1, 2])
        with pytest.raises(RuntimeError, match="Integer division with addcdiv"):
            m.addcdiv(i, i, i)
        with pytest.raises(NotImplementedError, match="lerp_kernel_scalar"):
            m.lerp(i, i, 0.5)
        with pytest.raises(RuntimeError, match="For integral input tensors"):
            m.addr(m.tensor([[1, 2], [3, 4]]), i, i, alpha=0.5)
