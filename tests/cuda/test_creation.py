"""The 'cuda' kernels of cygrad/cuda/ops/creation.py on the emulated GPU (strict mode):
``arange``, ``linspace`` and ``logspace`` filled on the device bit for bit as the CPU
kernels fill them (and against NumPy), the host-data factories uploading what the
user passed, and ``tie_weights`` against the CPU kernel.
"""
import array
import os
import sys

import numpy as np
import pytest

import cygrad
from cygrad._core import dispatch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx

FLOATS = [cygrad.float16, cygrad.bfloat16, cygrad.float32, cygrad.float64]
INTS = [cygrad.uint8, cygrad.int8, cygrad.int16, cygrad.int32, cygrad.int64]


def _bits(t):
    """The bytes of a tensor's values (compares NaN and -0.0 exactly)."""
    return t.detach().cpu().numpy().view(np.uint8).tobytes()


def _same(fn, *args, **kw):
    want = fn(*args, **kw)
    got = fn(*args, device="cuda", **kw)
    assert got.is_cuda and got.dtype is want.dtype and got.shape == want.shape
    assert _bits(got) == _bits(want), (fn.__name__, args, kw, got.cpu().tolist(), want.tolist())
    return got


# (start, end, step) per kind; lengths past the block size and past one element per thread
ARANGES_F = [(0, 10, 1), (-3.3, 17.1, 0.37), (5.0, -2.0, -0.25), (0, 1, 1e-3), (1e5, 1e5 + 70, 0.1)]
ARANGES_I = [(0, 10, 1), (-40, 100, 3), (100, -20, -7), (0, 2000, 1)]


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("bounds", ARANGES_F)
def test_arange_float_bit_exact(dtype, bounds):
    if dtype in (cygrad.float16, cygrad.bfloat16) and bounds[0] >= 1e5:
        bounds = (0, 70, 0.1)               # (the bounds must fit the dtype)
    _same(cygrad.arange, *bounds, dtype=dtype)


@pytest.mark.parametrize("dtype", INTS)
@pytest.mark.parametrize("bounds", ARANGES_I)
def test_arange_int_bit_exact_and_wrapping(dtype, bounds):
    _same(cygrad.arange, *bounds, dtype=dtype)       # int8/uint8 wrap as a C cast


def test_arange_against_numpy_and_default_dtypes():
    got = cygrad.arange(10, device="cuda")
    assert got.dtype is cygrad.int64 and str(got.device) == "cuda:0"
    assert got.cpu().tolist() == list(range(10))
    f = cygrad.arange(0, 1, 0.125, device="cuda")
    assert f.dtype is cygrad.float32
    np.testing.assert_array_equal(f.cpu().numpy(), np.arange(0, 1, 0.125, dtype=np.float32))
    big = cygrad.arange(2**40, 2**40 + 5, device="cuda")         # 64-bit values
    assert big.cpu().tolist() == [2**40 + k for k in range(5)]
    out = cygrad.empty(4, device="cuda", dtype=cygrad.float64)
    assert cygrad.arange(4, out=out) is out and out.cpu().tolist() == [0.0, 1.0, 2.0, 3.0]
    assert cygrad.arange(0, device="cuda").shape == (0,)
    with pytest.raises(NotImplementedError, match="Bool"):
        cygrad.arange(3, dtype=cygrad.bool, device="cuda")


SPACES = [(0, 1, 7), (-3.3, 17.1, 50), (1, 100, 300), (5, -5, 2), (2.5, 2.5, 4), (0, 255, 1001)]


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("bounds", SPACES)
def test_linspace_bit_exact(dtype, bounds):
    lo, hi = {cygrad.uint8: (0, 255), cygrad.int8: (-128, 127)}.get(dtype, (-1e9, 1e9))
    if not lo <= min(bounds[:2]) <= max(bounds[:2]) <= hi:
        bounds = (0, 100, bounds[2])          # (the bounds must fit the dtype)
    _same(cygrad.linspace, *bounds, dtype=dtype)


@pytest.mark.parametrize("dtype", FLOATS + INTS)
@pytest.mark.parametrize("bounds,base", [((0, 3, 4), 10.0), ((-0.33, 0.171, 50), 10.0),
                                         ((0, 9, 10), 2.0), ((-2, 2, 33), 3.5),
                                         ((0, 12, 13), 10.0)])
def test_logspace_bit_exact(dtype, bounds, base):
    if dtype is cygrad.uint8 and bounds[0] < 0:
        bounds = (0, 2, bounds[2])
    _same(cygrad.logspace, *bounds, base=base, dtype=dtype)  # int: 1000 in int8 is -24


def test_linspace_logspace_against_numpy():
    got = cygrad.linspace(-1, 1, 9, device="cuda", dtype=cygrad.float64).cpu().numpy()
    np.testing.assert_allclose(got, np.linspace(-1, 1, 9), rtol=0, atol=1e-15)
    got = cygrad.logspace(0, 2, 5, device="cuda", dtype=cygrad.float64).cpu().numpy()
    np.testing.assert_allclose(got, np.logspace(0, 2, 5), rtol=1e-15)
    assert cygrad.linspace(3, 4, 1, device="cuda").cpu().tolist() == [3.0]
    assert cygrad.logspace(0, 4, 0, device="cuda").shape == (0,)
    assert cygrad.logspace(0, 3, 4, dtype=cygrad.int8, device="cuda").cpu().tolist() == \
        [1, 10, 100, -24]


def test_fill_into_a_strided_out():
    out = cygrad.zeros(8, device="cuda", dtype=cygrad.float64)
    view = out[::2]
    dispatch.kernel("linspace", "cuda")(view, 0.0, 3.0)
    assert out.cpu().tolist() == [0.0, 0, 1.0, 0, 2.0, 0, 3.0, 0]


def test_fill_of_an_unsupported_dtype_raises():
    out = cygrad.empty(3, dtype=cygrad.complex64, device="cuda")
    with pytest.raises(NotImplementedError, match="'arange'.*complex64.*cuda"):
        dispatch.kernel("arange", "cuda")(out, 0, 1)


# ---- host data the user passed, uploaded ----------------------------------------------

def test_tensor_from_host_data():
    t = cygrad.tensor([[1, 2], [3, 4]], device="cuda")
    assert t.is_cuda and t.dtype is cygrad.int64 and t.cpu().tolist() == [[1, 2], [3, 4]]
    a = np.arange(6, dtype=np.float32).reshape(2, 3)
    c = cygrad.from_numpy(a).cuda()
    assert c.is_cuda and c.cpu().numpy().tolist() == a.tolist()
    s = cygrad.as_tensor(a, device="cuda")
    a[0, 0] = 99.0                     # a device tensor is a copy, never shares host memory
    assert s.is_cuda and s.cpu().numpy()[0, 0] == 0.0

    fn = dispatch.kernel("tensor_from_data", "cuda")
    got = fn([[1.5, 2.0]], cygrad.float64)
    assert got.is_cuda and got.dtype is cygrad.float64 and got.cpu().tolist() == [[1.5, 2.0]]
    with pytest.raises(TypeError):
        fn([1, "a"])                   # the CPU reader's errors
    assert dispatch.kernel("tensor_sharing", "cuda")(np.zeros(2)) is None


def test_tensor_from_buffer_and_as_tensor_of():
    buf = array.array("i", [1, 2, 3, 4])
    got = dispatch.kernel("tensor_from_buffer", "cuda")(buf, cygrad.int32, 2, 4)
    assert got.is_cuda and got.dtype is cygrad.int32 and got.cpu().tolist() == [2, 3]
    buf[1] = 7                         # a copy
    assert got.cpu().tolist() == [2, 3]
    got = dispatch.kernel("as_tensor_of", "cuda")([1.7, -2.2], cygrad.int64)
    assert got.is_cuda and got.cpu().tolist() == [1, -2]


def test_round_scalar_is_the_cpu_rounding():
    for value, dt in ((70000.0, cygrad.float16), (1.0 / 3, cygrad.bfloat16), (0.1, cygrad.float32)):
        got = dispatch.kernel("round_scalar", "cuda")(value, dt)
        assert got == dispatch.kernel("round_scalar", "cpu")(value, dt)
        assert got == float(cygrad.tensor(value, dtype=dt).item())


# ---- tie_weights --------------------------------------------------------------------------

def _tie_case(dtype):
    nan = float("nan")
    x = cygrad.tensor([[1.0, 3.0, 3.0, 0.5], [2.0, 2.0, 2.0, 2.0], [nan, 1.0, nan, 4.0]],
                      dtype=dtype)
    return x


@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("nan_ties", [True, False])
def test_tie_weights_matches_cpu_kernel(dtype, nan_ties):
    x = _tie_case(dtype)
    cpu, cuda = dispatch.kernel("tie_weights", "cpu"), dispatch.kernel("tie_weights", "cuda")
    for xx in (x, x.t()):                  # a transposed (strided) input too
        for axes in ((1,), (0,), None, (0, 1)):
            res = xx.amax(axes, keepdim=True) if axes else xx.amax().reshape(1, 1)
            kept = tuple(res.shape)
            want = cpu(xx, res, kept, axes, nan_ties)
            got = cuda(xx.cuda(), res.cuda(), kept, axes, nan_ties)
            assert got.is_cuda and got.dtype is dtype
            np.testing.assert_array_equal(got.cpu().float().numpy(), want.float().numpy())


def test_tie_weights_large_rows_and_slices():
    rng = np.random.default_rng(0)
    v = rng.integers(0, 4, size=(6, 700, 3)).astype(np.float64)    # many ties; rows > 1 block
    x = cygrad.tensor(v)
    res = cygrad.tensor(v.max(axis=1, keepdims=True))
    want = v == v.max(axis=1, keepdims=True)
    want = want / want.sum(axis=1, keepdims=True)
    got = dispatch.kernel("tie_weights", "cuda")(x.cuda(), res.cuda(), (6, 1, 3), (1,), True)
    np.testing.assert_allclose(got.cpu().numpy(), want, rtol=1e-15)
    with pytest.raises(NotImplementedError, match="'tie_weights'.*int64.*cuda"):
        i = cygrad.tensor([1, 2], device="cuda")
        dispatch.kernel("tie_weights", "cuda")(i, i[:1], (1,), (0,), True)
