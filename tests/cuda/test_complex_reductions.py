"""complex64/complex128 in the CUDA reductions and scans (cuda_src/reduction.cu,
cuda_src/scan.cu, cuda_src/cg_reduce_complex.cuh, cygrad/cuda/ops/reduction.py)
on the emulated GPU in strict mode.

Values are checked against NumPy on contiguous, transposed and sliced inputs,
with one realistic size per path (300 x 300: many blocks; a full sum of 90,000
elements: the split form; 2,100 rows: the column form; rows longer than a block:
the scans' carry). Gradients through the ops built on these kernels (sum, mean,
prod, cumsum, cumprod, linear's bias, conv2d, einsum, abs) are compared with the
CPU run of the same op, which follows PyTorch's convention for complex gradients.
"""
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

COMPLEX = [cygrad.complex64, cygrad.complex128]
NP = {cygrad.complex64: np.complex64, cygrad.complex128: np.complex128}
# complex64 sums in float (tree order differs from NumPy's pairwise sum)
TOL = {cygrad.complex64: dict(rtol=2e-5, atol=2e-5),
       cygrad.complex128: dict(rtol=1e-12, atol=1e-12)}


@pytest.fixture(scope="module", autouse=True)
def emulated():
    """The emulated GPU in strict mode (guard pages, divergence checks)."""
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        cygrad.zeros(1, device="cuda")          # installs the 'cuda' kernels
        yield d


def cdata(dtype, shape, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(NP[dtype])


def on_cuda(a, layout="contiguous"):
    """``a``'s values on the device: contiguous, as a transposed view, or as every
    other element of a bigger buffer."""
    if layout == "transposed":
        return cygrad.tensor(np.ascontiguousarray(a.T)).cuda().T
    if layout == "sliced":
        big = np.zeros(tuple(2 * n for n in a.shape), a.dtype)
        sl = tuple(slice(None, None, 2) for _ in a.shape)
        big[sl] = a
        return cygrad.tensor(big).cuda()[sl]
    return cygrad.tensor(a).cuda()


def check(got, want, dtype, scale=1.0):
    got = got.cpu().numpy()
    assert got.dtype == np.asarray(want).dtype
    tol = {k: v * scale for k, v in TOL[dtype].items()}
    np.testing.assert_allclose(got, want, **tol)


# ---------------------------------------------------------------- values against NumPy

@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("layout", ["contiguous", "transposed", "sliced"])
@pytest.mark.parametrize("dim", [None, 0, 1, (0, 2), -1])
def test_sum_mean_prod_over_dims(dtype, layout, dim):
    a = cdata(dtype, (3, 4, 5))
    if layout == "transposed":
        a = np.ascontiguousarray(a.transpose(2, 1, 0)).transpose(2, 1, 0)
    x = on_cuda(a, layout)
    for keepdim in (False, True):
        kw = {} if dim is None else dict(dim=dim, keepdim=keepdim)
        np_kw = dict(axis=dim, keepdims=keepdim)
        check(x.sum(**kw), a.sum(**np_kw), dtype)
        check(x.mean(**kw), a.mean(**np_kw), dtype)
        # (products of up to 60 factors of size ~1: relative error grows with the count)
        check(x.prod() if dim is None else x.prod(dim if isinstance(dim, int) else 0, keepdim),
              a.prod(axis=dim if isinstance(dim, int) or dim is None else 0,
                     keepdims=keepdim and dim is not None), dtype, scale=10)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_realistic_sizes_use_every_fold_form(dtype):
    a = cdata(dtype, (300, 300), seed=1)
    x = on_cuda(a)
    scale = 20 if dtype is cygrad.complex64 else 100
    check(x.sum(), a.sum(), dtype, scale)              # one row of 90,000: the split form
    check(x.mean(), a.mean(), dtype, scale)
    check(x.sum(0), a.sum(0), dtype, scale)            # 300 rows, one block each
    check(x.sum(1), a.sum(1), dtype, scale)
    b = cdata(dtype, (5, 2100), seed=2)                # 2,100 rows of stride 1: the column form
    check(on_cuda(b).sum(0), b.sum(0), dtype)
    check(on_cuda(b).mean(0, keepdim=True), b.mean(0, keepdims=True), dtype)
    check(on_cuda(b).prod(0), b.prod(0), dtype)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
@pytest.mark.parametrize("layout", ["contiguous", "sliced"])
def test_cumsum_cumprod(dtype, layout):
    a = cdata(dtype, (4, 700), seed=3)                 # rows longer than a block: the carry
    x = on_cuda(a, layout)
    check(x.cumsum(1), np.cumsum(a, 1), dtype, scale=50)
    check(x.cumsum(0), np.cumsum(a, 0), dtype)
    # unit-modulus factors keep a 700-long running product finite
    u = (a / np.abs(a)).astype(a.dtype)
    check(on_cuda(u, layout).cumprod(1), np.cumprod(u, 1), dtype, scale=200)
    check(x.cumprod(0), np.cumprod(a, 0), dtype, scale=10)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_var_std_are_real(dtype):
    a = cdata(dtype, (6, 40), seed=4)
    x = on_cuda(a, "sliced")
    v = x.var(1)
    assert v.dtype is dtype.to_real()
    check(v, a.var(1, ddof=1), dtype)
    check(x.std(0, correction=0), a.std(0), dtype)
    var, mean = cygrad.var_mean(x, 1)
    check(var, a.var(1, ddof=1), dtype)
    check(mean, a.mean(1), dtype)


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_all_any_count_nonzero(dtype):
    a = np.array([[1 + 1j, 0, 2j], [0, 0, 0], [3, 1j, -1 - 1j]], NP[dtype])
    x = on_cuda(a)
    assert x.all(1).tolist() == np.all(a, 1).tolist()
    assert x.any(1).tolist() == np.any(a, 1).tolist()
    assert x.any().item() is True and x.all().item() is False
    assert x.count_nonzero(0).tolist() == np.count_nonzero(a, 0).tolist()


@pytest.mark.parametrize("dtype", COMPLEX, ids=lambda d: d.name)
def test_integer_dtype_sum_drops_imaginary_parts(dtype):
    # PyTorch: x.sum(dtype=torch.int32) converts each element (real part, truncated)
    a = np.array([[1.7 + 1j, 0, 2 - 1j], [1, 2j, 3.9]], NP[dtype])
    with pytest.warns(UserWarning, match="discards the imaginary part"):     # as PyTorch
        got = on_cuda(a).sum(dtype=cygrad.int32)
    assert got.dtype is cygrad.int32 and got.item() == int(a.real.astype(np.int64).sum())
    f = cygrad.tensor([1.5, 2.7, -0.5], device="cuda").sum(dtype=cygrad.int64)
    assert f.item() == 3


def test_nansum_of_complex_raises_as_pytorch():
    # PyTorch has no complex nansum on any device: the op refuses before a kernel
    x = cygrad.ones(3, dtype=cygrad.complex64, device="cuda")
    with pytest.raises(RuntimeError, match="nansum on CUDA does not support complex inputs"):
        x.nansum()


# ---------------------------------------------------------------- gradients against the CPU run

def _grads(fn, arrays, device):
    leaves = [cygrad.tensor(a).to(device).requires_grad_(True) for a in arrays]
    y = fn(*leaves)
    # a real loss of the complex output (both parts weighted: every part is checked)
    loss = (y.real * 1.3 + y.imag * 0.7).sum() if y.is_complex() else y.sum()
    loss.backward()
    return y.detach().cpu().numpy(), [t.grad.cpu().numpy() for t in leaves]


def _zero_in(a):
    a = a.copy()
    a[..., 1] = 0
    return a


def _c(shape, seed):
    return cdata(cygrad.complex128, shape, seed)


GRAD_CASES = {
    "sum": (lambda x: x.sum(), [(4, 5)]),
    "sum_dim_keepdim": (lambda x: x.sum((0, 2), keepdim=True), [(3, 4, 5)]),
    "mean": (lambda x: x.mean(1), [(4, 5)]),
    "prod": (lambda x: x.prod(1), [(4, 5)]),
    "prod_with_zero": (lambda x: x.prod(1), "zero"),
    "cumsum": (lambda x: x.cumsum(0), [(4, 5)]),
    "cumprod": (lambda x: x.cumprod(1), [(4, 5)]),
    "cumprod_with_zero": (lambda x: x.cumprod(1), "zero"),
    "var": (lambda x: x.var(0), [(4, 5)]),
    "abs_sum": (lambda x: x.abs().sum(), [(4, 5)]),
    "linear_bias": (lambda x, w, b: F.linear(x, w, b), [(6, 4), (3, 4), (3,)]),
    "conv2d": (lambda x, w, b: F.conv2d(x, w, b, padding=1), [(2, 2, 5, 5), (3, 2, 3, 3), (3,)]),
    "einsum_sums_a_label": (lambda a, b: cygrad.einsum("ij,jk->i", a, b), [(3, 4), (4, 5)]),
}


@pytest.mark.parametrize("case", list(GRAD_CASES))
def test_gradients_match_the_cpu_run(case):
    fn, shapes = GRAD_CASES[case]
    arrays = [_zero_in(_c((3, 5), 5))] if shapes == "zero" else \
        [_c(s, 10 + i) for i, s in enumerate(shapes)]
    y_cpu, g_cpu = _grads(fn, arrays, "cpu")
    y_dev, g_dev = _grads(fn, arrays, "cuda")
    np.testing.assert_allclose(y_dev, y_cpu, rtol=1e-10, atol=1e-12)
    for gd, gc in zip(g_dev, g_cpu):
        assert gd.dtype == gc.dtype
        np.testing.assert_allclose(gd, gc, rtol=1e-10, atol=1e-12)


def test_complex_linear_module_bias_gradient():
    cygrad.manual_seed(0)
    ref = cygrad.nn.Linear(4, 3).to(cygrad.complex64)
    dev = cygrad.nn.Linear(4, 3).to(cygrad.complex64)
    dev.load_state_dict(ref.state_dict())
    dev = dev.cuda()
    x = cdata(cygrad.complex64, (5, 4), seed=6)
    for m, device in ((ref, "cpu"), (dev, "cuda")):
        m(cygrad.tensor(x).to(device)).abs().sum().backward()
    assert dev.bias.grad.device.type == "cuda" and dev.bias.grad.dtype is cygrad.complex64
    np.testing.assert_allclose(dev.bias.grad.cpu().numpy(), ref.bias.grad.numpy(),
                               rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(dev.weight.grad.cpu().numpy(), ref.weight.grad.numpy(),
                               rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("dtype", [cygrad.complex64, cygrad.complex128])
def test_complex_logsumexp_matches_the_cpu(dtype):
    # composed from the device's kernels (max of the real parts, complex exp/sum/log)
    rng = np.random.default_rng(11)
    a = rng.standard_normal((5, 7)) + 1j * rng.standard_normal((5, 7))
    tol = 1e-6 if dtype is cygrad.complex64 else 1e-13
    x = cygrad.tensor(a, dtype=dtype)
    for dim, keepdim in ((1, False), (0, True), ((0, 1), False)):
        got = cygrad.logsumexp(x.cuda(), dim, keepdim=keepdim)
        assert got.device.type == "cuda" and got.dtype == dtype
        np.testing.assert_allclose(got.cpu().numpy(),
                                   cygrad.logsumexp(x, dim, keepdim=keepdim).numpy(),
                                   rtol=tol, atol=tol)
    big = cygrad.tensor([[1000 + 1j, 1000 - 1j]], dtype=dtype, device="cuda")
    np.testing.assert_allclose(cygrad.logsumexp(big, 1).cpu().numpy(),
                               np.log(np.sum(np.exp(big.cpu().numpy() - 1000))) + 1000,
                               rtol=1e-6)
    _, (g_cuda,) = _grads(lambda t: cygrad.logsumexp(t, 1), [a], "cuda")
    _, (g_cpu,) = _grads(lambda t: cygrad.logsumexp(t, 1), [a], "cpu")
    np.testing.assert_allclose(g_cuda, g_cpu, rtol=1e-12, atol=1e-14)
