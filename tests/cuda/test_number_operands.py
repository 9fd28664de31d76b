"""A Python number in an elementwise op on a CUDA tensor (emulated GPU): ``x * 0.5``,
``1 - x``, ``2 ** x``, ``x > 0``, ``x.clamp(0, 1)`` and the in-place forms pass the
number to the kernel as an argument (``cg_<op>_<dtype>_number``, docs/cuda.md "Host
cost per op") instead of filling a 0-d tensor first. Values and dtypes against
PyTorch on the CPU (comparisons of half tensors against the CPU run), for every
dtype family, the number on either side, and the launches each op makes."""
import os
import sys

import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="PyTorch is the reference for values and dtypes")

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, launched, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx

DTYPES = ["bool", "uint8", "int32", "int64", "float16", "bfloat16", "float32", "float64",
          "complex64", "complex128"]
NUMBERS = [3, -2, 0.5, 1e5, True, 1.5 - 2j]
OPS = {"add": lambda a, b: a + b, "sub": lambda a, b: a - b, "mul": lambda a, b: a * b,
       "div": lambda a, b: a / b, "pow": lambda a, b: a ** b}


def _values(dtype):
    rng = np.random.default_rng(0)
    if dtype == "bool":
        return rng.random((3, 4)) < 0.5
    if dtype in ("uint8", "int32", "int64"):
        return rng.integers(0, 6, (3, 4)).astype(dtype)
    v = rng.uniform(0.5, 2.0, (3, 4))
    if dtype.startswith("complex"):
        v = v + 1j * rng.uniform(-1.0, 1.0, (3, 4))
    return v


def _pair(dtype):
    v = _values(dtype)
    t = torch.tensor(v, dtype=getattr(torch, dtype))
    c = cygrad.tensor(v, device="cuda").to(getattr(cygrad, dtype))
    return c, t


def _host(t):
    """A CUDA result as NumPy (bfloat16 and float16 widened to float32 on the device)."""
    if t.dtype in (cygrad.bfloat16, cygrad.float16):
        t = t.float()
    return t.cpu().numpy()


def _torch_host(t):
    if t.dtype in (torch.bfloat16, torch.float16):
        t = t.float()
    return t.numpy()


def _check(got, want, dtype):
    assert str(got.dtype).split(".")[-1] == str(want.dtype).split(".")[-1]
    g, w = _host(got), _torch_host(want)
    if g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        rtol = {"float16": 1e-3, "bfloat16": 8e-3}.get(str(want.dtype).split(".")[-1], 2e-6)
        np.testing.assert_allclose(g, w, rtol=rtol, atol=0, equal_nan=True)


def _outcome(fn, *args):
    try:
        return fn(*args), None
    except Exception as e:        # the reference's error, if any, is the expected one
        return None, type(e)


@pytest.mark.parametrize("op", list(OPS))
@pytest.mark.parametrize("dtype", DTYPES)
def test_number_on_either_side_matches_pytorch(op, dtype):
    c, t = _pair(dtype)
    fn = OPS[op]
    for number in NUMBERS:
        if op == "pow" and dtype == "bool" and number is True:
            continue    # (the core refuses bool ** bool on the CPU too; PyTorch gives bool)
        if isinstance(number, complex) and not dtype.startswith("complex"):
            continue    # (real tensors with complex numbers: the core's promotion, CPU too)
        if op == "pow" and (dtype, number) in (("uint8", -2), ("float16", 1e5)):
            continue    # (PyTorch refuses these exponents; the core, CPU too, does not check)
        for first in (False, True):
            args_c, args_t = ((number, c), (number, t)) if first else ((c, number), (t, number))
            want, err = _outcome(fn, *args_t)
            if err is not None:
                with pytest.raises(err):
                    fn(*args_c)
                continue
            got = fn(*args_c)
            assert got.device.type == "cuda"
            _check(got, want, dtype)


COMPARE = {"eq": lambda a, b: a == b, "ne": lambda a, b: a != b, "lt": lambda a, b: a < b,
           "le": lambda a, b: a <= b, "gt": lambda a, b: a > b, "ge": lambda a, b: a >= b}


@pytest.mark.parametrize("dtype", DTYPES)
def test_comparisons_with_a_number_match_the_cpu_and_pytorch(dtype):
    c, t = _pair(dtype)
    host = cygrad.tensor(_values(dtype)).to(getattr(cygrad, dtype))
    numbers = [1, 0.75, True, 1e5, -2] + ([1.5 - 2j, 1 + 0j] if dtype.startswith("complex") else [])
    ops = {"eq", "ne"} if dtype.startswith("complex") else set(COMPARE)
    for name in sorted(ops):
        fn = COMPARE[name]
        for number in numbers:
            for first in (False, True):
                got = fn(number, c) if first else fn(c, number)
                assert got.dtype is cygrad.bool and got.device.type == "cuda"
                # the CPU run (a half tensor with a number compares in float32 there too)
                want = fn(number, host) if first else fn(host, number)
                np.testing.assert_array_equal(got.cpu().numpy(), want.numpy(),
                                              err_msg=f"{name} {number!r} first={first}")
                if dtype not in ("float16", "bfloat16"):
                    ref = fn(number, t) if first else fn(t, number)
                    np.testing.assert_array_equal(got.cpu().numpy(), ref.numpy())


@pytest.mark.parametrize("dtype", ["uint8", "int32", "int64", "float16", "bfloat16", "float32",
                                   "float64"])
def test_clamp_by_numbers_matches_the_cpu_and_pytorch(dtype):
    # clamp's bounds reach the maximum and minimum kernels as numbers
    c, t = _pair(dtype)
    host = cygrad.tensor(_values(dtype)).to(getattr(cygrad, dtype))
    for lo, hi in ((1, 3), (0.8, None), (None, 1.25), (2, 1)):
        got = c.clamp(lo, hi)
        np.testing.assert_array_equal(_host(got), _host(host.clamp(lo, hi)))
        _check(got, t.clamp(lo, hi), dtype)


@pytest.mark.parametrize("dtype", ["uint8", "int64", "float16", "bfloat16", "float32", "float64",
                                   "complex64"])
def test_in_place_with_a_number_matches_pytorch(dtype):
    for name, number in (("add_", 2), ("sub_", 1), ("mul_", 3), ("div_", 4.0), ("pow_", 2)):
        c, t = _pair(dtype)
        want, err = _outcome(lambda: getattr(t, name)(number))
        if err is not None:
            with pytest.raises(err):
                getattr(c, name)(number)
            continue
        ptr = c.data_ptr()
        got = getattr(c, name)(number)
        assert got is c and c.data_ptr() == ptr
        _check(c, want, dtype)


def test_a_half_tensor_keeps_the_number_unrounded_as_pytorch():
    # 1e5 is past float16's range: PyTorch multiplies in float32 with the number as it is
    x = [1e-3, 2e-3, -5e-4]
    for dt in ("float16", "bfloat16"):
        got = cygrad.tensor(x, device="cuda").to(getattr(cygrad, dt)) * 1e5
        want = torch.tensor(x).to(getattr(torch, dt)) * 1e5
        _check(got, want, dt)
        assert np.isfinite(_host(got)).all()


def test_an_int_tensor_with_a_float_gives_the_default_float_dtype(default_dtype_guard):
    x = cygrad.tensor([1, 2, 3], device="cuda")
    assert (x * 0.5).dtype is cygrad.float32
    np.testing.assert_array_equal((x * 0.5).cpu().numpy(), np.array([0.5, 1.0, 1.5], np.float32))
    cygrad.set_default_dtype(cygrad.float64)
    assert (0.5 - x).dtype is cygrad.float64
    np.testing.assert_array_equal((0.5 - x).cpu().numpy(), [-0.5, -1.5, -2.5])


def test_strided_and_broadcast_operands_with_a_number():
    base = np.arange(24, dtype=np.float32).reshape(4, 6)
    x = cygrad.tensor(base, device="cuda")
    for view, ref in ((x.t(), base.T), (x[:, ::2], base[:, ::2]), (x[1], base[1]),
                      (x[0, 0], base[0, 0]), (x.expand(2, 4, 6), np.broadcast_to(base, (2, 4, 6)))):
        np.testing.assert_array_equal((2.0 - view).cpu().numpy(), 2.0 - ref)
        np.testing.assert_array_equal((view / 4).cpu().numpy(), ref / np.float32(4))
    y = cygrad.tensor(base, device="cuda")
    y[:, 1::2].mul_(10)             # in place on a strided view
    want = base.copy()
    want[:, 1::2] *= 10
    np.testing.assert_array_equal(y.cpu().numpy(), want)


def test_a_number_is_one_launch_without_a_fill(emulated, monkeypatch):
    names = launched(emulated, monkeypatch)
    x = cygrad.ones(5, device="cuda")
    h = x.half()
    del names[:]
    x * 0.5
    1 - x
    x.pow_(2)
    h * 0.5             # a half tensor: no casts to and from float32 either
    x > 0
    x.clamp(0, 1)
    assert names == ["cg_mul_f32_number", "cg_sub_f32_number", "cg_pow_f32_number",
                     "cg_mul_f16_number", "cg_gt_f32_number", "cg_maximum_f32_number",
                     "cg_minimum_f32_number"]


def test_gradients_through_number_ops_match_the_cpu():
    rng = np.random.default_rng(2)
    v = rng.uniform(0.5, 2.0, (3, 4))
    grads = []
    for device in ("cpu", "cuda"):
        x = cygrad.tensor(v, device=device, requires_grad=True)
        loss = ((2.0 - x) * 0.5 + 3 / x + 2 ** x + x ** 3).sum()
        loss.backward()
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)
