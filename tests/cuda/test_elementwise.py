"""The elementwise family on the emulated GPU (cygrad/cuda/ops/elementwise.py,
cuda_src/elementwise_math.cu): every op of the core's elementwise table in every
dtype its CUDA kernel covers, against the CPU result of the same op on the same
values; casts between all dtypes; where, masked_fill, nan_to_num, frexp,
tril/triu; broadcasting, strides, in-place ops, out= and autograd.

The emulated driver is installed for this module only (strict mode: guard pages
and divergence checks); its library of elementwise_math.cu is cached on disk.
"""
import os
import sys
import warnings

import numpy as np
import pytest

import cygrad
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        yield d


@pytest.fixture(scope="module")
def ew(emulated):
    cygrad.zeros(1, device="cuda")           # installs the CUDA entries of the table
    from cygrad.cuda.ops import elementwise
    return elementwise


def host(t):
    return t.cpu().numpy()


ALL = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
       "float64", "complex64", "complex128"]
POSITIVE = {"log", "log2", "log10", "sqrt", "rsqrt", "log1p", "lgamma", "digamma"}
UNIT = {"asin", "acos", "atanh", "erfinv"}


def _values(name, dtype, shape, rng, second=False):
    """NumPy values of ``dtype`` in the op's domain (ints kept small, divisors nonzero)."""
    dt = getattr(cygrad, dtype)
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if not (dt.is_floating_point or dt.is_complex):
        if name in ("bitwise_left_shift", "bitwise_right_shift") and second:
            v = rng.integers(0, 6, shape)
        elif name in ("floor_divide", "remainder", "fmod") and second:
            v = rng.choice([-3, -2, -1, 1, 2, 5], shape) if dtype != "uint8" else rng.integers(1, 6, shape)
        elif name == "pow":
            v = rng.integers(-2 if second and dtype != "uint8" else 0, 4, shape)
        else:
            v = rng.integers(0 if dtype == "uint8" else -9, 10, shape)
        return v.astype(dt.np_dtype)
    if name == "zeta":
        lo, hi = (0.5, 2.0) if second else (1.1, 4.0)
    elif name in POSITIVE or (second and name in ("xlogy", "xlog1py")):
        lo, hi = (0.1, 3.0)
    elif name in UNIT:
        lo, hi = (-0.9, 0.9)
    elif name == "ndtri":
        lo, hi = (0.001, 0.999)
    elif name == "acosh":
        lo, hi = (1.1, 3.0)
    elif name == "pow" and not second:
        lo, hi = (0.5, 2.0)
    else:
        lo, hi = (-2.0, 2.0)
    v = rng.uniform(lo, hi, shape)
    if dt.is_complex:
        v = v + 1j * rng.uniform(-1.0, 1.0, shape)
    return v.astype(dt.np_dtype) if dtype != "bfloat16" else v


def _public(name):
    return getattr(cygrad, name, None) or getattr(cygrad.special, name)


def _tensor(values, dtype):
    return cygrad.tensor(values, dtype=getattr(cygrad, dtype))


def _tolerance(dtype):
    return {"float16": 2e-2, "bfloat16": 2e-2, "float32": 2e-5, "complex64": 2e-4}.get(dtype, 1e-10)


def _check(got, want, dtype):
    assert got.is_cuda and got.dtype is want.dtype and got.shape == want.shape
    g, w = host(got), want.numpy()
    if g.dtype.kind in "biu":
        np.testing.assert_array_equal(g, w)
    else:
        tol = _tolerance(dtype)
        np.testing.assert_allclose(g.astype(w.dtype if w.dtype.kind == "c" else np.float64),
                                   w.astype(w.dtype if w.dtype.kind == "c" else np.float64),
                                   rtol=tol, atol=tol, equal_nan=True)


def _unary_cases(ew):
    return [(name, dtype) for name, dtypes in ew.UNARY_DTYPES.items() for dtype in dtypes]


def test_every_unary_op_in_every_dtype_matches_the_cpu(ew):
    """Every unary op x each dtype its kernel covers, read through a transposed
    (non-contiguous) view, against the CPU op on the same values."""
    rng = np.random.default_rng(0)
    done = 0
    for name, dtype in _unary_cases(ew):
        x = _tensor(_values(name, dtype, (5, 3), rng), dtype).t()
        fn = _public(name)
        want = fn(x)
        try:
            _check(fn(x.cuda()), want, dtype)
        except AssertionError as e:
            raise AssertionError(f"{name} {dtype}: {e}") from None
        done += 1
    assert done > 250


def test_every_binary_op_in_every_dtype_matches_the_cpu_with_broadcasting(ew):
    """Every binary op x each dtype: a (3, 1, 4) operand against a transposed
    (5, 4) one, and a Python number as the second operand."""
    rng = np.random.default_rng(1)
    done = 0
    for name, dtypes in ew.BINARY_DTYPES.items():
        if name == "polygamma":          # (its order n is a number: test_polygamma_and_zeta)
            continue
        fn = _public(name)
        for dtype in dtypes:
            a = _tensor(_values(name, dtype, (3, 1, 4), rng), dtype)
            b = _tensor(_values(name, dtype, (4, 5), rng, second=True), dtype).t()
            try:
                _check(fn(a.cuda(), b.cuda()), fn(a, b), dtype)
                number = b[0, 0].item()
                if name == "pow" and not (b.dtype.is_floating_point or b.dtype.is_complex):
                    number = abs(number)        # (an integer base to a negative number raises)
                try:
                    want = fn(a, number)
                except TypeError:               # (logical_and ... take tensors only)
                    with pytest.raises(TypeError):
                        fn(a.cuda(), number)
                    continue
                _check(fn(a.cuda(), number), want, dtype)
            except AssertionError as e:
                raise AssertionError(f"{name} {dtype}: {e}") from None
            finally:
                done += 1
    assert done > 200


@pytest.mark.parametrize("name", ["maximum", "minimum", "fmax", "fmin", "eq", "lt", "atan2"])
def test_nan_handling(name):
    nan = float("nan")
    a = cygrad.tensor([nan, 1.0, nan, -2.0, 0.0])
    b = cygrad.tensor([1.0, nan, nan, 3.0, -0.0])
    fn = getattr(cygrad, name)
    _check(fn(a.cuda(), b.cuda()), fn(a, b), "float32")


def test_nan_inf_and_signed_zero_in_unary_ops():
    nan = float("nan")
    for t in (cygrad.isnan, cygrad.isinf, cygrad.isfinite, cygrad.sign, cygrad.relu,
              cygrad.signbit, cygrad.isposinf, cygrad.special.entr, cygrad.digamma):
        v = cygrad.tensor([nan, float("inf"), -float("inf"), -0.0, 2.0, -3.0, 0.0])
        _check(t(v.cuda()), t(v), "float32")


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_bessel_i_in_both_regimes(dtype):
    """The power series (|x| <= 30) and the asymptotic series beyond, and +-inf."""
    x = cygrad.tensor([0.0, 1e-3, -4.0, 29.5, 30.5, -45.0, 80.0, 720.0, float("inf"), float("nan")],
                      dtype=getattr(cygrad, dtype))
    tol = 2e-6 if dtype == "float32" else 1e-13
    for name in ("i0", "i0e", "i1", "i1e"):
        fn = getattr(cygrad.special, name)
        np.testing.assert_allclose(host(fn(x.cuda())), fn(x).numpy(), rtol=tol, atol=0,
                                   equal_nan=True, err_msg=name)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfcx_ndtri_log_ndtr_tails(dtype):
    dt = getattr(cygrad, dtype)
    tol = 2e-5 if dtype == "float32" else 1e-12
    cases = {
        "erfcx": [-5.0, -1.0, 0.0, 0.3, 5.0, 8.9, 9.5, 20.0, 30.0, 1e5, float("nan")],
        "ndtri": [0.0, 1e-30, 1e-10, 0.01, 0.05, 0.3, 0.5, 0.97, 1 - 1e-6, 1.0, 1.5],
        "log_ndtr": [-40.0, -5.0, -1.5, -1.0, 0.0, 3.0, 10.0],
    }
    for name, values in cases.items():
        x = cygrad.tensor(values, dtype=dt)
        fn = getattr(cygrad.special, name)
        np.testing.assert_allclose(host(fn(x.cuda())), fn(x).numpy(), rtol=tol, atol=0,
                                   equal_nan=True, err_msg=name)


def test_polygamma_and_zeta():
    x = cygrad.tensor([0.3, 1.0, 2.5, 7.0, -1.5, 30.0], dtype=cygrad.float64)
    for n in (0, 1, 2, 3):
        np.testing.assert_allclose(host(cygrad.polygamma(n, x.cuda())), cygrad.polygamma(n, x).numpy(),
                                   rtol=1e-11)
    s = cygrad.tensor([1.0, 0.5, 2.0, 3.5, float("inf"), 2.0])
    q = cygrad.tensor([1.0, 1.0, -2.0, 0.25, 1.0, 3.0])
    _check(cygrad.special.zeta(s.cuda(), q.cuda()), cygrad.special.zeta(s, q), "float32")
    # digamma's gradient is polygamma(1, x), on the device
    xs = []
    for device in ("cpu", "cuda"):
        t = cygrad.tensor([0.5, 2.0], dtype=cygrad.float64, device=device, requires_grad=True)
        t.digamma().sum().backward()
        xs.append(t.grad.cpu().numpy())
    np.testing.assert_allclose(xs[1], xs[0], rtol=1e-11)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_erfinv_over_its_range(dtype):
    """erfinv from the centre to the tails (1 - |y| down to 1e-6 and 1e-12), and +-1."""
    dt = getattr(cygrad, dtype)
    tail = [1 - 1e-6, -(1 - 1e-6)] + ([1 - 1e-12] if dtype == "float64" else [])
    y = cygrad.tensor([0.0, 1e-8, 0.3, -0.5, 0.51, 0.9, -0.99, 0.9999, 1.0, -1.0, 1.5] + tail, dtype=dt)
    tol = 3e-6 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(host(cygrad.erfinv(y.cuda())), cygrad.erfinv(y).numpy(),
                               rtol=tol, atol=0, equal_nan=True)


def test_casts_between_all_dtypes(ew):
    values = [0, 1, 2, 3, 5, 100, -3]
    for src in ALL:
        dsrc = getattr(cygrad, src)
        vals = [v for v in values if not (src == "uint8" and v < 0)]
        x = cygrad.tensor(vals, dtype=dsrc) if src != "bool" else cygrad.tensor([True, False, True])
        xc = x.cuda()
        for dst in ALL:
            ddst = getattr(cygrad, dst)
            with warnings.catch_warnings(record=True) as caught:
                warnings.simplefilter("always")
                got = xc.to(ddst)
            if dsrc.is_complex and not ddst.is_complex:
                assert any("discards the imaginary part" in str(w.message) for w in caught)
            with warnings.catch_warnings():
                warnings.simplefilter("ignore")
                want = x.to(ddst)
            assert got.is_cuda and got.dtype is ddst
            np.testing.assert_array_equal(host(got), want.numpy(), err_msg=f"{src} -> {dst}")
    # a strided source, and the 'copy_cast' entry itself
    m = cygrad.arange(12, dtype=cygrad.int32).reshape(3, 4)
    out = cygrad.empty(4, 3, dtype=cygrad.float64, device="cuda")
    assert dispatch.kernel("copy_cast", "cuda")(m.cuda().t(), out) is out
    np.testing.assert_array_equal(host(out), m.numpy().T.astype(np.float64))


def test_fill_every_dtype_strided():
    for name in ALL:
        dt = getattr(cygrad, name)
        z = cygrad.zeros(3, 4, dtype=dt, device="cuda")
        value = True if name == "bool" else (2 - 1j) if dt.is_complex else 7
        z[:, 1].fill_(value)
        want = cygrad.zeros(3, 4, dtype=dt)
        want[:, 1].fill_(value)
        np.testing.assert_array_equal(host(z), want.numpy(), err_msg=name)


def test_in_place_and_out_arguments():
    rng = np.random.default_rng(2)
    v, w = rng.standard_normal((3, 4)), rng.standard_normal(4)
    x = cygrad.tensor(v, device="cuda")
    x.add_(cygrad.tensor(w, device="cuda"))
    x.sin_()
    x[:, 0].mul_(2.0)                             # in place through a strided view
    want = np.sin(v + w)
    want[:, 0] *= 2
    np.testing.assert_allclose(host(x), want, rtol=1e-6)
    # out= of a wider dtype: the float32 result is cast into it on the device
    out = cygrad.empty(3, 4, dtype=cygrad.float64, device="cuda")
    a = cygrad.tensor(v, dtype=cygrad.float32, device="cuda")
    cygrad.mul(a, a, out=out)
    np.testing.assert_allclose(host(out), (v.astype(np.float32) ** 2).astype(np.float64), rtol=1e-6)
    # comparisons write bool; mixed dtypes promote (int + float)
    i = cygrad.tensor([1, 2, 3], device="cuda")
    f = cygrad.tensor([0.5, 2.0, 4.0], device="cuda")
    assert host(i < f).tolist() == [False, False, True]
    assert (i + f).dtype is cygrad.float32 and host(i + f).tolist() == [1.5, 4.0, 7.0]
    assert host(i.float().floor_divide(2)).tolist() == [0.0, 1.0, 1.0]
    h = cygrad.tensor([0.0, 1.0], dtype=cygrad.float16, device="cuda")
    assert host(h * 1e10).tolist() == [0.0, float("inf")]     # computed in float32, as on the CPU
    np.testing.assert_allclose(host(i.sin()), np.sin([1.0, 2.0, 3.0]), rtol=1e-6)   # int -> float
    # a copy between overlapping views reads the source before writing
    r = cygrad.arange(6, dtype=cygrad.int16)
    rc = r.cuda()
    rc[1:] = rc[:-1]
    r[1:] = r[:-1]
    assert host(rc).tolist() == r.tolist()


def test_integer_division_by_zero_raises_the_cpu_error():
    a = cygrad.tensor([4, 5, 6], device="cuda")
    b = cygrad.tensor([1, 0, 2], device="cuda")
    for fn in (cygrad.floor_divide, cygrad.remainder, cygrad.fmod):
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(a, b)
        with pytest.raises(RuntimeError, match="ZeroDivisionError"):
            fn(a.cpu(), b.cpu())
    assert host(cygrad.floor_divide(a, cygrad.tensor([2, -2, 4], device="cuda"))).tolist() == [2, -3, 1]


def test_unsupported_dtype_raises_not_implemented_by_name():
    h = cygrad.tensor([0.5, 1.0], device="cuda", dtype=cygrad.float16)
    with pytest.raises(NotImplementedError, match="'nextafter' for dtype cygrad.float16 on device cuda"):
        cygrad.nextafter(h, h)
    with pytest.raises(NotImplementedError, match="'airy_ai' for dtype cygrad.float16 on device cuda"):
        cygrad.special.airy_ai(h)


def test_where_masked_fill_and_selection_kernels():
    rng = np.random.default_rng(3)
    cond = rng.standard_normal((3, 4)) > 0
    x, y = rng.standard_normal((3, 4)), rng.standard_normal(4)
    c, tx, ty = cygrad.tensor(cond), cygrad.tensor(x), cygrad.tensor(y)
    for args in ((c, tx, ty), (c, tx, 2.5), (c, -1.0, ty), (c.t(), tx.t(), 0)):
        got = cygrad.where(*[a.cuda() if isinstance(a, cygrad.Tensor) else a for a in args])
        _check(got, cygrad.where(*args), "float64")
    mask = cygrad.tensor(cond[0])                           # broadcast over rows
    _check(tx.cuda().masked_fill(mask.cuda(), 9.0), tx.masked_fill(mask, 9.0), "float64")
    t = tx.clone().cuda()
    t.masked_fill_(mask.cuda(), cygrad.tensor(-4.0))         # a 0-d value tensor on the host
    np.testing.assert_array_equal(host(t), tx.masked_fill(mask, -4.0).numpy())
    u8 = cygrad.tensor(cond.astype(np.uint8), device="cuda")
    out = cygrad.empty(3, 4, device="cuda", dtype=cygrad.float64)
    dispatch.kernel("where_select", "cuda")(out, u8, tx.cuda(), 0.0)
    np.testing.assert_array_equal(host(out), np.where(cond, x, 0.0))
    small = dispatch.kernel("where_small", "cuda")(c.cuda(), tx.cuda(), tx.cuda() * 2)
    np.testing.assert_array_equal(host(small), np.where(cond, x, 2 * x))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
def test_nan_to_num_and_frexp(dtype):
    dt = getattr(cygrad, dtype)
    v = cygrad.tensor([float("nan"), float("inf"), -float("inf"), 0.0, -3.5, 1e-3, 12.0], dtype=dt)
    for kwargs in ({}, {"nan": 1.0, "posinf": 2.0, "neginf": -2.0}):
        np.testing.assert_array_equal(host(cygrad.nan_to_num(v.cuda(), **kwargs)).astype(np.float64),
                                      cygrad.nan_to_num(v, **kwargs).numpy().astype(np.float64))
    m, e = cygrad.frexp(v.cuda())
    wm, we = cygrad.frexp(v)
    assert m.dtype is dt and e.dtype is cygrad.int32
    np.testing.assert_array_equal(host(m).astype(np.float64), wm.numpy().astype(np.float64))
    np.testing.assert_array_equal(host(e), we.numpy())
    ints = cygrad.tensor([1, 2], device="cuda")
    assert host(cygrad.nan_to_num(ints)).tolist() == [1, 2]


@pytest.mark.parametrize("dtype", ["bool", "int16", "float32", "int64", "complex128"])
def test_tril_triu(dtype):
    dt = getattr(cygrad, dtype)
    x = cygrad.ones(2, 3, 5, dtype=dt)
    for diagonal in (-1, 0, 2):
        np.testing.assert_array_equal(host(x.cuda().tril(diagonal)), x.tril(diagonal).numpy())
        np.testing.assert_array_equal(host(x.cuda().transpose(1, 2).triu(diagonal)),
                                      x.transpose(1, 2).triu(diagonal).numpy())


def test_round_scalar():
    fn = dispatch.kernel("round_scalar", "cuda")
    cpu = dispatch.kernel("round_scalar", "cpu")
    for value, dt in ((70000.0, cygrad.float16), (1.0 / 3, cygrad.bfloat16), (0.1, cygrad.float32)):
        assert fn(value, dt) == cpu(value, dt)


def test_gradients_through_sin_pow_and_where():
    rng = np.random.default_rng(4)
    v, w = rng.uniform(0.5, 2.0, (3, 4)), rng.standard_normal((3, 4))
    grads = []
    for device in ("cpu", "cuda"):
        x = cygrad.tensor(v, device=device, requires_grad=True)
        y = cygrad.tensor(w, device=device, requires_grad=True)
        out = cygrad.where(x > 1.0, x.sin() * y, x.pow(y)) + x ** 2.5
        out.sum().backward()
        grads.append((x.grad, y.grad))
    (gx, gy), (cx, cy) = grads
    assert cx.is_cuda and cy.is_cuda
    np.testing.assert_allclose(host(cx), gx.numpy(), rtol=1e-10)
    np.testing.assert_allclose(host(cy), gy.numpy(), rtol=1e-10)


def test_a_realistic_size():
    """A (256, 1024) float32 batch: broadcast add of a bias, then a GELU-like chain."""
    rng = np.random.default_rng(5)
    x = cygrad.tensor(rng.standard_normal((256, 1024)), dtype=cygrad.float32)
    b = cygrad.tensor(rng.standard_normal(1024), dtype=cygrad.float32)

    def chain(t, bias):
        h = t + bias
        return h * 0.5 * (1.0 + (h * 0.7978845608 * (1.0 + 0.044715 * h * h)).tanh())
    np.testing.assert_allclose(host(chain(x.cuda(), b.cuda())), chain(x, b).numpy(),
                               rtol=1e-5, atol=1e-6)
