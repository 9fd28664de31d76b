"""CUDA tensors on the emulated GPU (cygrad/cuda/tensors.py): storage, copies,
factories, each kernel against NumPy, device-mixing errors and autograd.

The emulated driver is installed for this module only; the libraries it builds
from cuda_src/*.cu are cached on disk (keyed by their source), so only the
first run compiles.
"""
import os
import subprocess
import sys

import numpy as np
import pytest

import cygrad
import cygrad.cuda as cuda
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        yield d


def host(t):
    return t.cpu().numpy()


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64, cygrad.int64])
def test_round_trip(dtype):
    x = cygrad.arange(12, dtype=dtype).reshape(3, 4)
    c = x.to("cuda")
    assert c.is_cuda and not c.is_cpu and str(c.device) == "cuda:0" and c.dtype is dtype
    assert c.device == cygrad.device("cuda", 0)
    np.testing.assert_array_equal(host(c), x.numpy())
    assert host(x.cuda()).tolist() == x.tolist()
    assert c.to("cpu").device.type == "cpu"
    assert x.to(cygrad.device("cuda:0"), non_blocking=True).is_cuda
    if dtype is not cygrad.int64:      # (a non-contiguous view is copied on the device first)
        np.testing.assert_array_equal(host(c.t()), x.numpy().T)
    assert c.tolist() == x.tolist()
    assert c[1, 2].item() == 6


def test_numpy_of_a_cuda_tensor_raises_torchs_type_error():
    c = cygrad.ones(2, device="cuda")
    msg = ("can't convert cuda:0 device type tensor to numpy. Use Tensor.cpu() to copy the "
           "tensor to host memory first.")
    with pytest.raises(TypeError) as e:
        c.numpy()
    assert str(e.value) == msg
    with pytest.raises(TypeError):
        np.asarray(c)


def test_printing_copies_to_host():
    c = cygrad.tensor([1.0, 2.0], device="cuda")
    assert repr(c) == "tensor([1., 2.], device='cuda:0')"


def test_factories():
    assert host(cygrad.zeros(2, 3, device="cuda")).tolist() == [[0.0] * 3] * 2
    assert host(cygrad.ones(4, device="cuda", dtype=cygrad.float64)).tolist() == [1.0] * 4
    assert host(cygrad.full((2,), 7.5, device="cuda")).tolist() == [7.5, 7.5]
    assert cygrad.empty(3, device="cuda").shape == (3,)
    assert host(cygrad.tensor([[1, 2], [3, 4]], device="cuda")).tolist() == [[1, 2], [3, 4]]
    base = cygrad.ones(2, 2, device="cuda")
    for fn, want in ((cygrad.zeros_like, 0.0), (cygrad.ones_like, 1.0)):
        t = fn(base)
        assert t.is_cuda and host(t).tolist() == [[want] * 2] * 2
    cygrad.manual_seed(0)
    r = cygrad.randn(3, 4, device="cuda")
    cygrad.manual_seed(0)
    np.testing.assert_array_equal(host(r), host(cygrad.randn(3, 4, device="cuda")))  # on the device
    u = host(cygrad.rand(100, device="cuda"))
    assert r.is_cuda and (u >= 0).all() and (u < 1).all()
    z = cygrad.zeros(3, 4, device="cuda")
    z[:, 1].fill_(2.0)                              # a strided fill
    assert host(z)[:, 1].tolist() == [2.0] * 3 and host(z).sum() == 6.0


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
@pytest.mark.parametrize("op", ["add", "sub", "mul", "div"])
def test_binary_broadcast_and_strided(op, dtype):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((3, 1, 5))
    b = rng.standard_normal((4, 5)) + 3.0
    ta = cygrad.tensor(a, dtype=dtype, device="cuda")
    tb = cygrad.tensor(b, dtype=dtype, device="cuda")
    want = getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply", "div": "divide"}[op])(a, b)
    got = getattr(cygrad, op)(ta, tb)
    assert got.is_cuda and got.shape == (3, 4, 5) and got.dtype is dtype
    tol = 1e-6 if dtype is cygrad.float32 else 1e-12
    np.testing.assert_allclose(host(got), want, rtol=tol, atol=tol)
    # a transposed (non-contiguous) operand and a Python number
    bt = cygrad.tensor(b.T.copy(), dtype=dtype, device="cuda").t()
    np.testing.assert_allclose(host(getattr(cygrad, op)(ta, bt)), want, rtol=tol, atol=tol)
    np.testing.assert_allclose(host(getattr(cygrad, op)(tb, 2.0)),
                               getattr(np, {"add": "add", "sub": "subtract", "mul": "multiply",
                                            "div": "divide"}[op])(b, 2.0), rtol=tol, atol=tol)


def test_in_place_add_on_cuda():
    x = cygrad.ones(2, 3, device="cuda")
    x.add_(cygrad.tensor([0.0, 1.0, 2.0], device="cuda"))
    assert host(x).tolist() == [[1.0, 2.0, 3.0]] * 2


@pytest.mark.parametrize("op,ref", [("relu", lambda v: np.where(v < 0, 0.0, v)), ("neg", np.negative),
                                    ("exp", np.exp), ("tanh", np.tanh),
                                    ("sigmoid", lambda v: 1 / (1 + np.exp(-v)))])
def test_unary(op, ref):
    v = np.random.default_rng(1).standard_normal((4, 6))
    for dtype, tol in ((cygrad.float32, 1e-6), (cygrad.float64, 1e-12)):
        t = cygrad.tensor(v, dtype=dtype, device="cuda")
        np.testing.assert_allclose(host(getattr(t, op)()), ref(v), rtol=tol, atol=tol)
        np.testing.assert_allclose(host(getattr(t.t(), op)()), ref(v).T, rtol=tol, atol=tol)


def test_relu_backward_kernel():
    from cygrad._core import dispatch
    rng = np.random.default_rng(5)
    g, y = rng.standard_normal((4, 3)), rng.standard_normal((4, 3))
    y[0, 0] = 0.0                                   # at 0 the gradient is 0, as in PyTorch
    fn = dispatch.kernel("threshold_backward", "cuda")
    got = fn(cygrad.tensor(g, device="cuda"), cygrad.tensor(y.T.copy(), device="cuda").t(), 0)
    np.testing.assert_allclose(host(got), np.where(y > 0, g, 0.0), rtol=1e-6)
    x = cygrad.tensor(y, device="cuda", requires_grad=True)
    x.relu().backward(cygrad.tensor(g, device="cuda"))
    np.testing.assert_allclose(host(x.grad), np.where(y > 0, g, 0.0), rtol=1e-6)


def test_sum_all_and_over_dims():
    v = np.random.default_rng(2).standard_normal((3, 4, 5))
    t = cygrad.tensor(v, device="cuda")
    np.testing.assert_allclose(t.sum().item(), v.sum(), rtol=1e-5)
    for dim in (0, 1, 2, (0, 2), -1):
        got = t.sum(dim)
        assert got.is_cuda
        np.testing.assert_allclose(host(got), v.sum(axis=dim), rtol=1e-5, atol=1e-5)
    np.testing.assert_allclose(host(t.sum(1, keepdim=True)), v.sum(1, keepdims=True), rtol=1e-5, atol=1e-5)
    t64 = cygrad.tensor(v, dtype=cygrad.float64, device="cuda")
    np.testing.assert_allclose(host(t64.transpose(0, 2).sum(0)), v.transpose(2, 1, 0).sum(0), rtol=1e-12)


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
def test_matmul_2d_batched_and_transposed(dtype):
    rng = np.random.default_rng(3)
    tol = dict(rtol=1e-5, atol=1e-5) if dtype is cygrad.float32 else dict(rtol=1e-12, atol=1e-12)
    a, b = rng.standard_normal((20, 33)), rng.standard_normal((33, 17))
    ta, tb = (cygrad.tensor(x, dtype=dtype, device="cuda") for x in (a, b))
    np.testing.assert_allclose(host(ta @ tb), a @ b, **tol)
    bt = cygrad.tensor(b.T.copy(), dtype=dtype, device="cuda").t()       # transposed via strides
    np.testing.assert_allclose(host(ta @ bt), a @ b, **tol)
    x, w = rng.standard_normal((3, 5, 7)), rng.standard_normal((7, 4))
    tx, tw = (cygrad.tensor(v, dtype=dtype, device="cuda") for v in (x, w))
    np.testing.assert_allclose(host(tx @ tw), x @ w, **tol)                # broadcast batch
    y = rng.standard_normal((2, 3, 4, 7))
    ty = cygrad.tensor(y, dtype=dtype, device="cuda")
    np.testing.assert_allclose(host(ty @ ty.transpose(-2, -1)), y @ y.swapaxes(-2, -1), **tol)
    np.testing.assert_allclose(host(ta[0] @ tb), a[0] @ b, **tol)          # 1-D @ 2-D


def test_mixing_devices_raises_runtime_error():
    c = cygrad.ones(2, device="cuda")
    h = cygrad.ones(2)
    msg = "Expected all tensors to be on the same device, but found at least two devices, cuda:0 and cpu!"
    for fn in (lambda: c + h, lambda: h * c, lambda: c @ h, lambda: h @ c):
        with pytest.raises(RuntimeError, match=msg):
            fn()


def test_op_without_cuda_kernel_names_primitive_and_device():
    c = cygrad.ones(2, device="cuda")
    with pytest.raises(NotImplementedError, match="'cuda'.*'fft_c2c'|'fft_c2c'.*'cuda'"):
        cygrad.fft.fft(c)


def _relu_net_grad(device):
    cygrad.manual_seed(0)
    x = cygrad.randn(64, 64).to(device).requires_grad_(True)   # the same values on both
    (x @ x).relu().sum().backward()
    return x.grad


def test_backward_on_cuda_matches_cpu():
    g = _relu_net_grad("cuda")
    assert g.device.type == "cuda" and str(g.device) == "cuda:0"
    np.testing.assert_allclose(host(g), _relu_net_grad("cpu").numpy(), rtol=1e-4, atol=1e-4)


def test_gradients_accumulate_on_cuda_and_match_cpu():
    rng = np.random.default_rng(4)
    xv, wv = rng.standard_normal((5, 3)), rng.standard_normal((3,))

    def grads(device):
        x = cygrad.tensor(xv, device=device, requires_grad=True)
        w = cygrad.tensor(wv, device=device, requires_grad=True)
        for _ in range(2):                     # the second pass adds into .grad
            ((x * w - 1.0).sigmoid().sum(1) / 2.0).sum().backward()
        return x.grad, w.grad

    (gx, gw), (hx, hw) = grads("cuda"), grads("cpu")
    assert gx.is_cuda and gw.is_cuda
    np.testing.assert_allclose(host(gx), hx.numpy(), rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(host(gw), hw.numpy(), rtol=1e-5, atol=1e-6)
    gx.zero_()
    assert host(gx).tolist() == [[0.0] * 3] * 5


def test_dtype_change_on_cuda():
    c = cygrad.tensor([1.5, -2.5], device="cuda")
    d = c.to(cygrad.float64)
    assert d.is_cuda and d.dtype is cygrad.float64 and host(d).tolist() == [1.5, -2.5]
    assert host(c.to(cygrad.int64)).tolist() == [1, -2]


def test_the_issue_command_prints_cuda0():
    code = ("import cygrad; x = cygrad.randn(64, 64, device='cuda', requires_grad=True); "
            "(x @ x).relu().sum().backward(); print(x.grad.device)")
    env = dict(os.environ, CYGRAD_CUDA="emulate")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "cuda:0"


def test_device_api_before_the_first_tensor():
    # get_device_name/synchronize start the driver; the first tensor made after them must
    # still connect the CUDA tensor backend (it once found no storage hook: TypeError)
    code = ("import cygrad; print(cygrad.cuda.get_device_name(0)); cygrad.cuda.synchronize(); "
            "print(cygrad.ones(3, device='cuda').sum().item())")
    env = dict(os.environ, CYGRAD_CUDA="emulate")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, env=env,
                         cwd=ROOT, timeout=300)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split("\n")[1] == "3.0"


# ---- which primitives still lack a CUDA kernel (issue 15's listing) -----------------------

# Primitives documented as not on CUDA: docs/cuda.md's table "Not on CUDA" lists each with
# the reason, and this list must equal that table. Every other primitive of the CPU table
# is "missing" until it has a CUDA kernel.
DOCUMENTED_NOT_ON_CUDA = sorted([
    "fft_c2c", "fft_r2c", "fft_c2r",
    "linalg_eig",
])

# The count docs/cuda.md states; it may only go down. When it reaches 0, every primitive
# of the CPU table has a CUDA kernel or is documented as not on CUDA.
MISSING_CUDA_KERNELS_AT_MOST = 0


def _documented_table():
    """The primitive names of docs/cuda.md's "Not on CUDA" table."""
    with open(os.path.join(ROOT, "docs", "cuda.md")) as f:
        text = f.read()
    section = text.split("### Not on CUDA", 1)[1].split("\n#", 1)[0]
    return sorted(line.split("`")[1] for line in section.splitlines() if line.startswith("| `"))


def test_missing_cuda_kernels_are_listed_and_raise_by_name():
    from cygrad._core import dispatch
    cygrad.zeros(1, device="cuda")                 # installs the CUDA entries
    without = set(dispatch.primitives("cpu")) - set(dispatch.primitives("cuda"))
    missing = sorted(without - set(DOCUMENTED_NOT_ON_CUDA))
    print(f"{len(missing)} primitives without a CUDA kernel: {', '.join(missing)}")
    assert len(missing) <= MISSING_CUDA_KERNELS_AT_MOST
    for name in missing + DOCUMENTED_NOT_ON_CUDA:
        with pytest.raises(NotImplementedError, match=f"no 'cuda' kernel for primitive '{name}'"):
            dispatch.kernel(name, "cuda")
    with open(os.path.join(ROOT, "docs", "cuda.md")) as f:
        assert f"{MISSING_CUDA_KERNELS_AT_MOST} of the CPU table's primitives" in f.read()


def test_primitives_documented_as_not_on_cuda_match_the_docs_table():
    from cygrad._core import dispatch
    cygrad.zeros(1, device="cuda")
    assert _documented_table() == DOCUMENTED_NOT_ON_CUDA
    # each is a primitive of the CPU table that has no CUDA kernel (one that gains a kernel
    # leaves the table and this list)
    cpu, cuda = set(dispatch.primitives("cpu")), set(dispatch.primitives("cuda"))
    assert all(name in cpu and name not in cuda for name in DOCUMENTED_NOT_ON_CUDA)
