"""``linear_bias`` on the emulated GPU in strict mode (cuda_src/matmul.cu's
``cg_matmul_bias_<dtype>``, cygrad/cuda/ops/linear.py): ``nn.Linear``'s forward is
one launch with the bias in the product's epilogue. Values against NumPy, the CPU
kernel of the same primitive and the CUDA product followed by the add it replaces
(the same sums, so the same bits); strided operands, tile edges, gradients against
the CPU run, and the cases that fall back to the composed ops or raise (the half
and complex dtypes: tests/cuda/test_matmul_dtypes.py)."""
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn as nn
import cygrad.nn.functional as F
from cygrad._core import dispatch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, launched as _launched, needs_cxx  # noqa: E402,F401

pytestmark = needs_cxx

SFX = {np.float32: "f32", np.float64: "f64"}
TOL = {np.float32: dict(rtol=1e-5, atol=1e-5), np.float64: dict(rtol=1e-12, atol=1e-12)}


@pytest.fixture
def launched(emulated, monkeypatch):
    return _launched(emulated, monkeypatch)


def _cuda(a):
    return cygrad.tensor(a, device="cuda")


def _composed(x, w, b):
    """The two launches the epilogue replaces: the CUDA product, then the add."""
    out = cygrad.empty(x.shape[0], w.shape[0], dtype=x.dtype, device="cuda")
    dispatch.kernel("matmul_into", "cuda")(x, w.t(), out)
    return out.add_(b)


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("m,k,n", [(1, 1, 2), (5, 3, 7), (70, 33, 65), (64, 16, 128)])
def test_one_launch_equal_to_the_product_then_the_add(launched, dtype, m, k, n):
    rng = np.random.default_rng(m * 100 + n)
    x, w, b = (rng.standard_normal(s).astype(dtype) for s in ((m, k), (n, k), (n,)))
    cx, cw, cb = _cuda(x), _cuda(w), _cuda(b)
    del launched[:]
    got = F.linear(cx, cw, cb)
    assert launched == [f"cg_matmul_bias_{SFX[dtype]}"]
    assert got.shape == (m, n) and got.dtype == cx.dtype and got.is_cuda
    np.testing.assert_array_equal(got.cpu().numpy(), _composed(cx, cw, cb).cpu().numpy())
    np.testing.assert_allclose(got.cpu().numpy(), x @ w.T + b, **TOL[dtype])
    cpu = dispatch.kernel("linear_bias", "cpu")(cygrad.tensor(x), cygrad.tensor(w), cygrad.tensor(b))
    np.testing.assert_allclose(got.cpu().numpy(), cpu.numpy(), **TOL[dtype])


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_strided_operands_are_read_in_place(launched, dtype):
    rng = np.random.default_rng(1)
    x = rng.standard_normal((12, 20)).astype(dtype)         # x: (20, 12) read transposed
    wt = rng.standard_normal((12, 22)).astype(dtype)        # w: (11, 12), every other row of .T
    b = rng.standard_normal(22).astype(dtype)               # b: every other element
    cx, cw, cb = _cuda(x).t(), _cuda(wt).t()[::2], _cuda(b)[::2]
    assert not (cx.is_contiguous() or cw.is_contiguous() or cb.is_contiguous())
    del launched[:]
    got = dispatch.kernel("linear_bias", "cuda")(cx, cw, cb)
    assert got.shape == (20, 11)
    assert launched == [f"cg_matmul_bias_{SFX[dtype]}"]
    np.testing.assert_allclose(got.cpu().numpy(), x.T @ wt.T[::2].T + b[::2], **TOL[dtype])
    np.testing.assert_array_equal(got.cpu().numpy(), _composed(cx, cw, cb).cpu().numpy())


def test_a_layer_of_the_mlp_and_its_gradients_match_the_cpu(launched):
    rng = np.random.default_rng(2)
    layer = nn.Linear(784, 256)
    x = rng.standard_normal((128, 784)).astype(np.float32)
    g = rng.standard_normal((128, 256)).astype(np.float32)
    results = []
    for device in ("cpu", "cuda"):
        lay = nn.Linear(784, 256).to(device)
        lay.load_state_dict(layer.state_dict())
        xi = cygrad.tensor(x, device=device, requires_grad=True)
        del launched[:]
        y = lay(xi)
        if device == "cuda":
            assert launched == ["cg_matmul_bias_f32"]
        y.backward(cygrad.tensor(g, device=device))
        results.append([t.detach().cpu().numpy() for t in (y, xi.grad, lay.weight.grad,
                                                           lay.bias.grad)])
    for got, want in zip(*results[::-1]):
        np.testing.assert_allclose(got, want, rtol=1e-4, atol=1e-4)
    np.testing.assert_allclose(results[1][0], x @ layer.weight.detach().numpy().T
                               + layer.bias.detach().numpy(), rtol=1e-4, atol=1e-4)


def test_what_the_kernel_does_not_take_falls_back_or_raises(launched):
    kernel = dispatch.kernel("linear_bias", "cuda")

    def ones(*shape):
        return cygrad.ones(*shape, device="cuda")
    x, w, b, w53, b4, b64 = ones(3, 4), ones(5, 4), ones(5), ones(5, 3), ones(4), ones(5).double()
    x04, x30, w50 = ones(0, 4), ones(3, 0), ones(5, 0)
    del launched[:]
    # sizes or dtypes that disagree, and empty products: None (the caller composes)
    for args in ((x, w53, b), (x, w, b4), (x, w, b64), (x04, w, b), (x30, w50, b)):
        assert kernel(*args) is None
    assert launched == []
    # through F.linear: PyTorch's errors, and an empty inner size gives the bias
    with pytest.raises(RuntimeError, match="cannot be multiplied|shapes"):
        F.linear(x, w53, b)
    with pytest.raises(RuntimeError, match="same device"):
        kernel(x, w, cygrad.ones(5))
    empty = F.linear(x30, w50, b)
    np.testing.assert_array_equal(empty.cpu().numpy(), np.ones((3, 5), np.float32))
    # float16 runs (summed in float, the bias added, rounded once: 4 + 1 is exact);
    # integers have no CUDA product, as in PyTorch
    half = kernel(x.half(), w.half(), b.half())
    assert half.dtype is cygrad.float16 and half.is_cuda
    np.testing.assert_array_equal(half.cpu().float().numpy(), np.full((3, 5), 5.0, np.float32))
    with pytest.raises(NotImplementedError, match="'linear_bias' for dtype cygrad.int64"):
        kernel(x.long(), w.long(), b.long())
