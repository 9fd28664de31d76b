"""float16, bfloat16, complex64 and complex128 matrix products on the emulated GPU in
strict mode (cuda_src/matmul.cu's ``cg_matmul_<f16|bf16|c64|c128>`` and
``cg_matmul_bias_*``, through ``matmul_into`` and ``linear_bias``).

Half products are checked against the CPU result of the same op on float32 copies
rounded to the half dtype (the CPU sums half operands in float32 and rounds once,
as the kernel must): the two may differ by a rounding of the half dtype, so the
tolerance is its eps (relative) and eps * sqrt(k) (absolute, the size of one
rounding of a sum of k standard normal products). One k = 1024 case checks that
the kernel sums in float: within one rounding of the exact product, where a sum
kept in the half dtype drifts by many. Complex products are checked against NumPy.
Gradients of ``@``, ``nn.Linear`` and the convolutions against the CPU run."""
import math
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

HALVES = [cygrad.float16, cygrad.bfloat16]
COMPLEX = [cygrad.complex64, cygrad.complex128]
SFX = {"float16": "f16", "bfloat16": "bf16", "complex64": "c64", "complex128": "c128"}
EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7}
MANTISSA = {"float16": 10, "bfloat16": 7}


@pytest.fixture
def launched(emulated, monkeypatch):
    return _launched(emulated, monkeypatch)


def _half(rng, shape, dtype, device="cuda"):
    """A standard normal tensor rounded to ``dtype``."""
    return cygrad.tensor(rng.standard_normal(shape), dtype=cygrad.float32).to(dtype).to(device)


def _complex(rng, shape, dtype):
    a = rng.standard_normal(shape) + 1j * rng.standard_normal(shape)
    return a.astype(np.complex64 if dtype is cygrad.complex64 else np.complex128)


def _np(t):
    """A tensor's values as float64 (half dtypes) or as they are (complex), on the host."""
    t = t.detach().cpu()
    return t.double().numpy() if not t.dtype.is_complex else t.numpy()


def _assert_half_close(got, want, dtype, k):
    """``got`` (a half CUDA tensor) within a rounding of ``want`` (float values)."""
    assert got.dtype is dtype and got.is_cuda
    eps = EPS[dtype.name]
    np.testing.assert_allclose(_np(got), want, rtol=eps, atol=eps * math.sqrt(k))


def _cpu_reference(op, *cuda_args):
    """``op`` on the CPU on float32 copies of the (half) arguments, rounded to their
    dtype: the CPU's half product, summed in float32 and rounded once."""
    dtype = cuda_args[0].dtype
    res = op(*(a.cpu().float() for a in cuda_args))
    return _np(res.to(dtype))


def _complex_tol(dtype, k):
    return dict(rtol=1e-5, atol=1e-6 * math.sqrt(k)) if dtype is cygrad.complex64 else \
        dict(rtol=1e-12, atol=1e-13 * math.sqrt(k))


# ----------------------------------------------------------------------- the kernel

@pytest.mark.parametrize("dtype", HALVES + COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("m,k,n", [(70, 33, 65), (1, 40, 3), (129, 1, 3)])
def test_product_across_block_tiles(launched, dtype, m, k, n):
    rng = np.random.default_rng(m * 31 + n)
    if dtype.is_complex:
        a, b = _complex(rng, (m, k), dtype), _complex(rng, (k, n), dtype)
        ta, tb = cygrad.tensor(a, device="cuda"), cygrad.tensor(b, device="cuda")
    else:
        ta, tb = _half(rng, (m, k), dtype), _half(rng, (k, n), dtype)
    del launched[:]
    got = ta @ tb
    assert launched == [f"cg_matmul_{SFX[dtype.name]}"]
    assert got.dtype is dtype and got.shape == (m, n)
    if dtype.is_complex:
        np.testing.assert_allclose(got.cpu().numpy(), a @ b, **_complex_tol(dtype, k))
    else:
        _assert_half_close(got, _cpu_reference(cygrad.matmul, ta, tb), dtype, k)


def _ulp(x, dtype):
    """The spacing of ``dtype``'s numbers at |x| (normal numbers)."""
    return np.exp2(np.floor(np.log2(np.abs(x))) - MANTISSA[dtype.name])


@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
def test_a_long_sum_is_kept_in_float_and_rounded_once(dtype):
    rng = np.random.default_rng(5)
    k = 1024
    ta, tb = _half(rng, (8, k), dtype), _half(rng, (k, 24), dtype)
    exact = _np(ta) @ _np(tb)        # the operands are exact in float64, so is this (nearly)
    got = _np(ta @ tb)
    # one rounding of the float sum (whose own error is ~ k * 2^-24 relative): at most
    # one ulp of the half dtype from the exact value; a sum kept in the half dtype
    # rounds k times and lands many ulps away
    assert np.all(np.abs(got - exact) <= _ulp(exact, dtype))
    cpu = _cpu_reference(cygrad.matmul, ta, tb)
    assert np.mean(got == cpu) > 0.9       # the same rounding but where the sums straddle a tie


@pytest.mark.parametrize("dtype", HALVES + COMPLEX, ids=lambda d: d.name)
def test_strided_batched_and_broadcast_operands(launched, dtype):
    rng = np.random.default_rng(3)

    def make(*shape):
        if dtype.is_complex:
            return cygrad.tensor(_complex(rng, shape, dtype), device="cuda")
        return _half(rng, shape, dtype)
    cases = [
        (make(3, 40, 20)[:, ::2].transpose(1, 2), make(20, 17)),      # (3, 20, 20) @ (20, 17)
        (make(30, 25).t(), make(2, 1, 30, 9)),                        # broadcast batch
        (make(2, 3, 5, 7), make(3, 7, 4)),                            # 4-D by 3-D
        (make(3, 6, 4, 5).transpose(0, 1), make(6, 3, 5, 2)),         # batch dims folded by copies
        (make(7), make(7)),                                           # dot
        (make(7, 5).t(), make(7)),                                    # matrix @ vector
        (make(7), make(2, 7, 3)),                                     # vector @ batch
    ]
    for a, b in cases:
        got = a @ b
        assert got.is_cuda and got.dtype is dtype
        k = a.shape[-1]
        if dtype.is_complex:
            np.testing.assert_allclose(got.cpu().numpy(), a.cpu().numpy() @ b.cpu().numpy(),
                                       **_complex_tol(dtype, k))
        else:
            _assert_half_close(got, _cpu_reference(cygrad.matmul, a, b), dtype, k)
    assert launched and all(name == f"cg_matmul_{SFX[dtype.name]}" for name in launched
                            if name.startswith("cg_matmul"))


# ----------------------------------------------------------------------- the bias epilogue

@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
def test_linear_bias_adds_in_float_and_rounds_once(launched, dtype):
    rng = np.random.default_rng(7)
    x = _half(rng, (70, 40), dtype)
    w = _half(rng, (40, 66), dtype).t()                                # read transposed
    b = _half(rng, (132,), dtype)[::2]                                 # a strided bias
    del launched[:]
    got = dispatch.kernel("linear_bias", "cuda")(x, w, b)
    assert launched == [f"cg_matmul_bias_{SFX[dtype.name]}"]
    want = _np(x) @ _np(w).T + _np(b)          # float64: exact products, one sum
    assert np.all(np.abs(_np(got) - want) <= _ulp(want, dtype) + 1e-6)
    _assert_half_close(got, _cpu_reference(F.linear, x, w, b), dtype, 40)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_complex_linear_bias(launched, dtype):
    rng = np.random.default_rng(8)
    x, w, b = (_complex(rng, s, dtype) for s in ((9, 70), (66, 70), (66,)))
    del launched[:]
    got = F.linear(*(cygrad.tensor(t, device="cuda") for t in (x, w, b)))
    assert launched == [f"cg_matmul_bias_{SFX[dtype.name]}"]
    np.testing.assert_allclose(got.cpu().numpy(), x @ w.T + b, **_complex_tol(dtype, 70))


# ----------------------------------------------------------------------- ops built on it

def _ops():
    return {
        "mm": (lambda a, b: cygrad.mm(a, b), ((6, 9), (9, 5))),
        "bmm": (lambda a, b: cygrad.bmm(a, b), ((3, 6, 9), (3, 9, 5))),
        "addmm": (lambda c, a, b: cygrad.addmm(c, a, b, beta=0.5, alpha=2.0),
                  ((6, 5), (6, 9), (9, 5))),
        "linear": (lambda x, w, b: F.linear(x, w, b), ((2, 6, 9), (5, 9), (5,))),
        "linear_no_bias": (lambda x, w: F.linear(x, w), ((6, 9), (5, 9))),
    }


@pytest.mark.parametrize("dtype", HALVES + COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("name", sorted(_ops()))
def test_ops_through_the_product(dtype, name):
    op, shapes = _ops()[name]
    rng = np.random.default_rng(len(name))
    if dtype.is_complex:
        host = [_complex(rng, s, dtype) for s in shapes]
        got = op(*(cygrad.tensor(h, device="cuda") for h in host))
        want = op(*(cygrad.tensor(h.astype(np.complex128)) for h in host)).numpy()
        np.testing.assert_allclose(got.cpu().numpy(), want, **_complex_tol(dtype, 9))
    else:
        args = [_half(rng, s, dtype) for s in shapes]
        # the CPU's half result of the same op (its bias and addmm's terms are added
        # after a rounding there, at most one more rounding than the CUDA epilogue)
        got = op(*args)
        want = _np(op(*(a.cpu() for a in args)))
        _assert_half_close(got, want, dtype, 2 * 9)
    assert got.is_cuda and got.dtype is dtype


def test_integer_products_raise_naming_the_primitive_and_dtype():
    a = cygrad.ones(3, 3, dtype=cygrad.int64, device="cuda")
    with pytest.raises(NotImplementedError, match="'matmul_into' for dtype cygrad.int64"):
        a @ a
    with pytest.raises(NotImplementedError, match="'matmul_into' for dtype cygrad.int32"):
        cygrad.mm(a.int(), a.int())
    with pytest.raises(NotImplementedError, match="'linear_bias' for dtype cygrad.int64"):
        dispatch.kernel("linear_bias", "cuda")(a, a, a[0])
    with pytest.raises(NotImplementedError, match="'matmul_into' for dtype cygrad.bool"):
        dispatch.kernel("matmul_into", "cuda")(a.bool(), a.bool(), a.bool())


# ----------------------------------------------------------------------- gradients

@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
def test_gradients_of_matmul_in_half(dtype):
    rng = np.random.default_rng(11)
    x, y, g = _half(rng, (2, 10, 30), dtype), _half(rng, (30, 12), dtype), \
        _half(rng, (2, 10, 12), dtype)
    grads = []
    for dev, dt in (("cuda", dtype), ("cpu", cygrad.float32)):
        xi, yi = (t.to(dev).to(dt).detach().requires_grad_() for t in (x, y))
        (xi @ yi).backward(g.to(dev).to(dt))
        grads.append((xi.grad, yi.grad))
    (gx, gy), (rx, ry) = grads
    assert gx.is_cuda and gx.dtype is dtype and gy.dtype is dtype
    _assert_half_close(gx, _np(rx.to(dtype)), dtype, 12)
    _assert_half_close(gy, _np(ry.to(dtype)), dtype, 2 * 10)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_gradients_of_matmul_in_complex(dtype):
    rng = np.random.default_rng(12)
    x, y, g = (_complex(rng, s, dtype) for s in ((10, 30), (30, 12), (10, 12)))
    xi, yi = (cygrad.tensor(t, device="cuda", requires_grad=True) for t in (x, y))
    (xi @ yi).backward(cygrad.tensor(g, device="cuda"))
    # PyTorch's convention: grad_x = g @ conj(y).T, grad_y = conj(x).T @ g
    np.testing.assert_allclose(xi.grad.cpu().numpy(), g @ y.conj().T, **_complex_tol(dtype, 12))
    np.testing.assert_allclose(yi.grad.cpu().numpy(), x.conj().T @ g, **_complex_tol(dtype, 10))


@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
def test_half_linear_layer_forward_and_backward(launched, dtype):
    rng = np.random.default_rng(13)
    cpu = nn.Linear(24, 10)
    layer = nn.Linear(24, 10)
    layer.load_state_dict(cpu.state_dict())
    layer = (layer.half() if dtype is cygrad.float16 else layer.bfloat16()).cuda()
    with cygrad.no_grad():      # the CPU float32 layer holds the same (rounded) weights
        cpu.weight.copy_(layer.weight.cpu().float())
        cpu.bias.copy_(layer.bias.cpu().float())
    x, g = _half(rng, (6, 24), dtype), _half(rng, (6, 10), dtype)
    del launched[:]
    y = layer(x.requires_grad_())
    assert launched == [f"cg_matmul_bias_{SFX[dtype.name]}"]
    y.backward(g)
    xc = x.detach().cpu().float().requires_grad_()
    yc = cpu(xc)
    yc.backward(g.cpu().float())
    _assert_half_close(y, _np(yc.to(dtype)), dtype, 24)
    _assert_half_close(x.grad, _np(xc.grad.to(dtype)), dtype, 10)
    _assert_half_close(layer.weight.grad, _np(cpu.weight.grad.to(dtype)), dtype, 6)
    _assert_half_close(layer.bias.grad, _np(cpu.bias.grad.to(dtype)), dtype, 6)


@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
@pytest.mark.parametrize("conv", ["conv1d", "conv2d", "conv_transpose2d"])
def test_half_convolution_forward_and_backward(dtype, conv):
    rng = np.random.default_rng(len(conv))
    dims = 1 if conv == "conv1d" else 2
    w_shape = (3, 4) if conv == "conv_transpose2d" else (4, 3)
    x, w, b = _half(rng, (2, 3) + (9,) * dims, dtype), _half(rng, w_shape + (3,) * dims, dtype), \
        _half(rng, (4,), dtype)
    outs = []
    for dev, dt in (("cuda", dtype), ("cpu", cygrad.float32)):
        args = [t.to(dev).to(dt).detach().requires_grad_() for t in (x, w, b)]
        y = getattr(F, conv)(*args, stride=2, padding=1)
        y.backward(cygrad.ones_like(y))
        outs.append([y] + [a.grad for a in args])
    # the terms summed into each element: of the output at most input channels x window,
    # of the input gradient output channels x window, of the weight and bias gradients
    # every output position of both images
    positions = 2 * math.prod(outs[1][0].shape[2:])
    for got, want, terms in zip(*outs, (3 * 3 ** dims, 4 * 3 ** dims, positions, positions)):
        assert got.is_cuda and got.dtype is dtype
        _assert_half_close(got, _np(want.to(dtype)), dtype, terms)


def test_a_realistic_half_layer(launched):
    """A 128 x 512 batch through a 512 -> 256 float16 layer: one launch, values within a
    rounding of the CPU's half layer."""
    rng = np.random.default_rng(15)
    x, w, b = _half(rng, (128, 512), cygrad.float16), _half(rng, (256, 512), cygrad.float16), \
        _half(rng, (256,), cygrad.float16)
    del launched[:]
    got = F.linear(x, w, b)
    assert launched == ["cg_matmul_bias_f16"]
    _assert_half_close(got, _cpu_reference(F.linear, x, w, b), cygrad.float16, 512)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_complex_einsum_and_tensordot(dtype):
    rng = np.random.default_rng(16)
    a, b = _complex(rng, (3, 4, 5), dtype), _complex(rng, (5, 6), dtype)
    ta, tb = cygrad.tensor(a, device="cuda"), cygrad.tensor(b, device="cuda")
    got = cygrad.einsum("bij,jk->bki", ta, tb)
    assert got.is_cuda and got.dtype is dtype
    np.testing.assert_allclose(got.cpu().numpy(), np.einsum("bij,jk->bki", a, b),
                               **_complex_tol(dtype, 5))
    got = cygrad.tensordot(ta, tb, dims=1)
    np.testing.assert_allclose(got.cpu().numpy(), np.tensordot(a, b, axes=1), **_complex_tol(dtype, 5))


@pytest.mark.parametrize("dtype", HALVES, ids=lambda d: d.name)
def test_half_linear_and_product_against_pytorch(dtype):
    """PyTorch's CPU half product also sums in float and its bias epilogue adds in float
    before the one rounding: the same values but where the float sums (in another
    order) straddle a rounding of the half dtype, and there one ulp apart."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference here")
    tdt = {"float16": torch.float16, "bfloat16": torch.bfloat16}[dtype.name]
    gen = torch.Generator().manual_seed(0)
    x, w, b = (torch.randn(*s, generator=gen).to(tdt) for s in ((70, 300), (66, 300), (66,)))
    cx, cw, cb = (cygrad.tensor(t.float().numpy()).to(dtype).cuda() for t in (x, w, b))
    # two float sums of the 300 products in different orders differ by at most about
    # 2 * 300 * 2^-24 of the sum of their magnitudes (what matters where cancellation
    # leaves a small result)
    order = 600 * 2.0 ** -24 * (np.abs(_np(cx)) @ np.abs(_np(cw)).T)
    for got, want in ((F.linear(cx, cw, cb), torch.nn.functional.linear(x, w, b)),
                      (cx @ cw.t(), x @ w.t())):
        got, want = _np(got), want.double().numpy()
        assert np.mean(got == want) > 0.99
        assert np.all(np.abs(got - want) <= _ulp(want, dtype) + order)
