"""complex64 / complex128 through the core: dtypes and promotion, creation, kernels,
views, printing, DLPack and autograd (PyTorch's conjugate-Wirtinger convention).

Values are checked against NumPy, behaviour and messages against torch where it is
installed, gradients with gradcheck (complex inputs perturbed along 1 and i)."""
import math

import numpy as np
import pytest

import cygrad
from cygrad.autograd import gradcheck

C64, C128 = cygrad.complex64, cygrad.complex128


def _rand_complex(shape, dtype=np.complex128, seed=0):
    rng = np.random.default_rng(seed)
    return (rng.standard_normal(shape) + 1j * rng.standard_normal(shape)).astype(dtype)


def _leaf(arr):
    return cygrad.tensor(arr).requires_grad_(True)


@pytest.fixture
def default_float64():
    cygrad.set_default_dtype(cygrad.float64)
    yield
    cygrad.set_default_dtype(cygrad.float32)


# ------------------------------------------------------------------------ dtypes

def test_dtype_objects():
    assert cygrad.cfloat is C64 and cygrad.cdouble is C128
    assert C64.is_complex and not C64.is_floating_point and C64.itemsize == 8
    assert C128.itemsize == 16 and C128.to_numpy() == np.complex128
    assert not cygrad.float32.is_complex
    assert cygrad.float32.to_complex() is C64 and cygrad.float64.to_complex() is C128
    assert C64.to_real() is cygrad.float32 and C128.to_real() is cygrad.float64
    assert cygrad.int32.to_real() is cygrad.int32
    with pytest.raises(RuntimeError, match="Unknown Complex ScalarType for Int"):
        cygrad.int32.to_complex()
    assert cygrad.tensor([1j]).is_complex() and not cygrad.tensor([1.0]).is_complex()
    assert cygrad.is_complex(cygrad.zeros(2, dtype=C128))
    assert cygrad.zeros(1, dtype=complex).dtype is C128     # as torch: complex -> complex128


_NAMES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64", "complex64", "complex128"]


def test_promote_types_and_can_cast_match_torch():
    torch = pytest.importorskip("torch")
    for a in _NAMES:
        for b in ("complex64", "complex128"):
            for x, y in ((a, b), (b, a)):
                got = cygrad.promote_types(getattr(cygrad, x), getattr(cygrad, y)).name
                assert got == str(torch.promote_types(getattr(torch, x), getattr(torch, y)))[6:]
                assert (cygrad.can_cast(getattr(cygrad, x), getattr(cygrad, y))
                        == torch.can_cast(getattr(torch, x), getattr(torch, y)))


@pytest.mark.parametrize("dtype", ["bool", "int32", "int64", "bfloat16", "float32", "float64",
                                   "complex64", "complex128"])
def test_result_type_with_complex_operands_matches_torch(dtype):
    torch = pytest.importorskip("torch")
    ours = cygrad.ones(2, dtype=getattr(cygrad, dtype))
    theirs = torch.ones(2, dtype=getattr(torch, dtype))
    cases = [(1j, 1j), (cygrad.tensor(1j, dtype=C128), torch.tensor(1j, dtype=torch.complex128)),
             (cygrad.tensor(1j, dtype=C64), torch.tensor(1j, dtype=torch.complex64)),
             (cygrad.ones(2, dtype=C64), torch.ones(2, dtype=torch.complex64))]
    for o, t in cases:
        assert cygrad.result_type(ours, o).name == str(torch.result_type(theirs, t))[6:]


def test_python_complex_uses_the_default_complex_dtype(default_float64):
    assert cygrad.tensor([1j]).dtype is C128
    assert cygrad.result_type(cygrad.tensor([1, 2]), 1j) is C128
    assert repr(cygrad.tensor([1j])) == "tensor([0.+1.j])"        # the default: no suffix


# ---------------------------------------------------------------------- creation

def test_tensor_from_python_complex():
    t = cygrad.tensor([[1 + 2j, 3], [True, 2.5]])
    assert t.dtype is C64
    np.testing.assert_array_equal(t.numpy(), np.array([[1 + 2j, 3], [1, 2.5]], np.complex64))
    assert cygrad.tensor(1 - 1j).item() == 1 - 1j
    assert cygrad.tensor([1j], dtype=C128).dtype is C128
    with pytest.raises(TypeError, match="must be real number, not complex"):
        cygrad.tensor([1j], dtype=cygrad.float32)


def test_numpy_interop_shares_memory():
    a = _rand_complex((3, 2), np.complex64)
    t = cygrad.from_numpy(a)
    assert t.dtype is C64
    t[0, 0] = 5 - 5j
    assert a[0, 0] == 5 - 5j
    assert t.numpy() is not a and np.shares_memory(t.numpy(), a)
    np.testing.assert_array_equal(np.asarray(t), a)
    assert np.asarray(t, dtype=np.complex128).dtype == np.complex128


@pytest.mark.parametrize("dtype", [C64, C128])
def test_factories(dtype):
    np.testing.assert_array_equal(cygrad.zeros(2, 3, dtype=dtype).numpy(), np.zeros((2, 3)))
    np.testing.assert_array_equal(cygrad.ones(2, dtype=dtype).numpy(), np.ones(2))
    assert cygrad.empty(4, dtype=dtype).dtype is dtype
    np.testing.assert_array_equal(cygrad.full((2,), 1 - 2j, dtype=dtype).numpy(), [1 - 2j] * 2)
    assert cygrad.zeros(2, dtype=dtype).numpy().dtype == dtype.to_numpy()
    assert cygrad.full((2,), 1j).dtype is C64                   # inferred from the value


def test_randn_complex_distribution():
    z = cygrad.randn(20000, dtype=C64, generator=cygrad.Generator().manual_seed(3))
    assert z.dtype is C64
    parts = cygrad.view_as_real(z).numpy()
    # each part N(0, 1/2): E|z|^2 = 1
    assert abs(parts.var(axis=0) - 0.5).max() < 0.03
    assert abs(np.mean(np.abs(z.numpy()) ** 2) - 1) < 0.05


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_randn_and_rand_complex_match_torch(dtype):
    torch = pytest.importorskip("torch")
    for n in (3, 40):          # PyTorch's scalar and vectorised paths
        torch.manual_seed(7)
        cygrad.manual_seed(7)
        np.testing.assert_array_equal(cygrad.randn(n, dtype=getattr(cygrad, dtype)).numpy(),
                                      torch.randn(n, dtype=getattr(torch, dtype)).numpy())
    torch.manual_seed(1)
    cygrad.manual_seed(1)
    np.testing.assert_array_equal(cygrad.rand(5, dtype=getattr(cygrad, dtype)).numpy(),
                                  torch.rand(5, dtype=getattr(torch, dtype)).numpy())


def test_complex_and_polar():
    re, im = np.array([1.0, -2.0, 0.5]), np.array([[0.25], [3.0]])
    z = cygrad.complex(cygrad.tensor(re, dtype=cygrad.float32),
                       cygrad.tensor(im, dtype=cygrad.float32))          # broadcasts
    assert z.dtype is C64 and z.shape == (2, 3)
    np.testing.assert_allclose(z.numpy(), re + 1j * im, rtol=1e-6)
    z = cygrad.complex(cygrad.tensor(re, dtype=cygrad.float64),
                       cygrad.tensor(re[::-1].copy(), dtype=cygrad.float64))
    assert z.dtype is C128
    r, th = np.array([2.0, 0.5]), np.array([0.3, -2.0])
    p = cygrad.polar(cygrad.tensor(r, dtype=cygrad.float64), cygrad.tensor(th, dtype=cygrad.float64))
    np.testing.assert_allclose(p.numpy(), r * np.exp(1j * th), rtol=1e-12)
    with pytest.raises(RuntimeError, match="Expected both inputs to be Half, Float or Double"):
        cygrad.complex(cygrad.tensor([1]), cygrad.tensor([2]))
    with pytest.raises(RuntimeError, match="Expected object of scalar type Float but got "
                                           "scalar type Double for second argument"):
        cygrad.complex(cygrad.tensor([1.0]), cygrad.tensor([2.0], dtype=cygrad.float64))


# --------------------------------------------------------------------- views

def test_view_as_real_and_complex_are_views():
    a = _rand_complex((2, 3), np.complex64)
    z = cygrad.from_numpy(a)
    r = cygrad.view_as_real(z)
    assert r.dtype is cygrad.float32 and r.shape == (2, 3, 2) and r.stride() == (6, 2, 1)
    assert r.data_ptr() == z.data_ptr()
    np.testing.assert_array_equal(r.numpy(), np.stack([a.real, a.imag], -1))
    r[1, 2, 1] = 9.0
    assert a[1, 2].imag == 9.0
    back = cygrad.view_as_complex(r)
    assert back.dtype is C64 and back.data_ptr() == z.data_ptr()
    np.testing.assert_array_equal(back.numpy(), a)
    # a transposed complex tensor: doubled strides, last stride 1
    assert cygrad.view_as_real(z.t()).stride() == (2, 6, 1)
    assert cygrad.view_as_complex(cygrad.zeros(2, 3, 2, dtype=cygrad.float64)[:, ::2]).stride() == (3, 2)


def test_view_as_errors_match_torch():
    torch = pytest.importorskip("torch")
    cases = [(lambda m: m.view_as_real(m.ones(3)), None),
             (lambda m: m.view_as_complex(m.ones(3, dtype=m.int32)), "scalar type: Int"),
             (lambda m: m.view_as_complex(m.ones(3)), None),
             (lambda m: m.view_as_complex(m.ones(3, 2).t().contiguous().t()), None),
             (lambda m: m.view_as_complex(m.ones(3, 3)[:, 1:]), None),
             (lambda m: m.view_as_complex(m.ones(3, 4)[:, 1:3]), None),
             (lambda m: m.view_as_complex(m.ones(())), None)]
    for f, fragment in cases:
        with pytest.raises(Exception) as theirs:
            f(torch)
        with pytest.raises(type(theirs.value)) as ours:
            f(cygrad)
        if fragment is None:
            assert str(ours.value) == str(theirs.value)
        else:
            assert fragment in str(ours.value)


def test_real_imag_are_write_through_views():
    a = _rand_complex((3, 4))
    z = cygrad.from_numpy(a.copy())
    re, im = z.real, z.imag
    assert re.dtype is cygrad.float64 and re.stride() == (8, 2)
    np.testing.assert_array_equal(re.numpy(), a.real)
    np.testing.assert_array_equal(im.numpy(), a.imag)
    re[0] = 1.0
    im.mul_(2)
    np.testing.assert_array_equal(z.numpy()[0].real, np.ones(4))
    np.testing.assert_array_equal(z.numpy().imag, 2 * a.imag)
    zt = cygrad.from_numpy(a.copy()).t()[1:]            # a non-contiguous view
    np.testing.assert_array_equal(zt.imag.numpy(), a.T[1:].imag)
    z.imag = cygrad.zeros(4, dtype=cygrad.float64)      # the property setter copies in
    assert (z.imag == 0).all()
    x = cygrad.tensor([1.0, 2.0])
    assert x.real is x
    with pytest.raises(RuntimeError, match="imag is not implemented for tensors with non-complex"):
        x.imag
    assert cygrad.isreal(cygrad.tensor([1 + 0j, 1j])).tolist() == [True, False]
    assert cygrad.isreal(x).tolist() == [True, True]


def test_view_dtype_across_complex_sizes():
    z = cygrad.tensor([1 + 2j, 3 - 4j])
    assert z.view(cygrad.float32).tolist() == [1.0, 2.0, 3.0, -4.0]
    assert z.view(cygrad.float64).shape == (2,)


# -------------------------------------------------------------------- kernels

@pytest.mark.parametrize("op", ["add", "sub", "mul", "div", "pow", "eq", "ne"])
@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_binary_values(op, dtype):
    a, b = _rand_complex((3, 4), dtype, 1), _rand_complex((4,), dtype, 2)
    got = getattr(cygrad, op)(cygrad.tensor(a), cygrad.tensor(b)).numpy()
    ref = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide,
           "pow": np.power, "eq": np.equal, "ne": np.not_equal}[op](a, b)
    assert got.dtype == ref.dtype
    np.testing.assert_allclose(got, ref, rtol=1e-5 if dtype == np.complex64 else 1e-12)


def test_mixed_promotion_values():
    x32 = cygrad.tensor([1.5, -2.0])
    x64 = cygrad.tensor([1.5, -2.0], dtype=cygrad.float64)
    z64 = cygrad.tensor([1 + 1j, 2 - 1j])
    assert (x32 + z64).dtype is C64
    assert (x64 * z64).dtype is C128
    np.testing.assert_allclose((x64 * z64).numpy(), np.array([1.5, -2]) * np.array([1 + 1j, 2 - 1j]))
    assert (x32 * 1j).dtype is C64 and (x64 + 2j).dtype is C128
    np.testing.assert_allclose((x32 * 1j).numpy(), [1.5j, -2j])
    assert (cygrad.tensor([1, 2]) * 1j).tolist() == [1j, 2j]
    assert (1j - z64).tolist() == [-1 + 0j, -2 + 2j]
    z = z64.clone()
    z += 1
    assert z.tolist() == [2 + 1j, 3 - 1j]
    with pytest.raises(RuntimeError, match="result type ComplexFloat can't be cast to the "
                                           "desired output type Float"):
        x32 += z64


@pytest.mark.parametrize("name", ["neg", "exp", "exp2", "expm1", "log", "log2", "log10", "log1p",
                                  "sqrt", "rsqrt", "sin", "cos", "tan", "asin", "acos", "atan",
                                  "sinh", "cosh", "tanh", "sigmoid", "reciprocal", "square"])
def test_unary_values(name):
    a = _rand_complex((5,), np.complex128, 3)
    ref = {"neg": -a, "exp": np.exp(a), "exp2": 2 ** a, "expm1": np.expm1(a), "log": np.log(a),
           "log2": np.log2(a), "log10": np.log10(a), "log1p": np.log1p(a), "sqrt": np.sqrt(a),
           "rsqrt": 1 / np.sqrt(a), "sin": np.sin(a), "cos": np.cos(a), "tan": np.tan(a),
           "asin": np.arcsin(a), "acos": np.arccos(a), "atan": np.arctan(a), "sinh": np.sinh(a),
           "cosh": np.cosh(a), "tanh": np.tanh(a), "sigmoid": 1 / (1 + np.exp(-a)),
           "reciprocal": 1 / a, "square": a * a}[name]
    got = getattr(cygrad, name)(cygrad.tensor(a)).numpy()
    assert got.dtype == np.complex128
    np.testing.assert_allclose(got, ref, rtol=1e-12)


def test_abs_angle_sgn_conj():
    a = np.array([3 + 4j, -1 - 1j, 0j, -2 + 0j], np.complex64)
    z = cygrad.tensor(a)
    assert z.abs().dtype is cygrad.float32
    np.testing.assert_allclose(z.abs().numpy(), np.abs(a))
    assert cygrad.angle(z).dtype is cygrad.float32
    np.testing.assert_allclose(cygrad.angle(z).numpy(), np.angle(a), rtol=1e-6)
    np.testing.assert_allclose(z.sgn().numpy(), [0.6 + 0.8j, (-1 - 1j) / math.sqrt(2), 0, -1],
                               rtol=1e-6)
    np.testing.assert_array_equal(z.conj().numpy(), np.conj(a))
    np.testing.assert_array_equal(cygrad.conj_physical(z).numpy(), np.conj(a))
    assert not z.conj().is_conj() and z.conj().resolve_conj().dtype is C64
    x = cygrad.tensor([-1.0, 0.0, 2.0])
    assert x.conj() is x
    np.testing.assert_allclose(cygrad.angle(x).numpy(), [np.pi, 0, 0])
    assert cygrad.angle(cygrad.tensor([-1, 1])).dtype is cygrad.float32
    m = cygrad.tensor([[1j, 2 + 1j]])
    assert m.mH.tolist() == m.adjoint().tolist() == m.H.tolist() == [[-1j], [2 - 1j]]


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_reductions(dtype):
    a = _rand_complex((3, 4), dtype, 4)
    z = cygrad.tensor(a)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose(z.sum().numpy(), a.sum(), rtol=tol)
    np.testing.assert_allclose(z.sum(1).numpy(), a.sum(1), rtol=tol)
    np.testing.assert_allclose(z.mean(0).numpy(), a.mean(0), rtol=tol)
    np.testing.assert_allclose(z.prod(1).numpy(), a.prod(1), rtol=tol)
    assert z.sum().dtype.to_numpy() == dtype and z.prod().dtype.to_numpy() == dtype


@pytest.mark.parametrize("dtype", [np.complex64, np.complex128])
def test_matmul_and_dots(dtype):
    a, b = _rand_complex((2, 3, 4), dtype, 5), _rand_complex((4, 5), dtype, 6)
    tol = 1e-5 if dtype == np.complex64 else 1e-12
    np.testing.assert_allclose((cygrad.tensor(a) @ cygrad.tensor(b)).numpy(), a @ b, rtol=tol)
    u, v = _rand_complex((4,), dtype, 7), _rand_complex((4,), dtype, 8)
    np.testing.assert_allclose(cygrad.dot(cygrad.tensor(u), cygrad.tensor(v)).numpy(),
                               np.dot(u, v), rtol=tol)
    np.testing.assert_allclose(cygrad.vdot(cygrad.tensor(u), cygrad.tensor(v)).numpy(),
                               np.vdot(u, v), rtol=tol)


_UNSUPPORTED = [
    ("lt", lambda m, z: z < z), ("gt", lambda m, z: m.gt(z, 1)), ("max", lambda m, z: z.max()),
    ("min", lambda m, z: z.min()), ("amax", lambda m, z: z.amax()),
    ("maximum", lambda m, z: m.maximum(z, z)), ("floor", lambda m, z: m.floor(z)),
    ("round", lambda m, z: m.round(z)), ("clamp", lambda m, z: m.clamp(z, 0, 1)),
    ("sign", lambda m, z: m.sign(z)), ("relu", lambda m, z: m.relu(z)),
    ("erf", lambda m, z: m.erf(z)), ("floor_divide", lambda m, z: z // 2),
    ("remainder", lambda m, z: m.remainder(z, z)), ("atan2", lambda m, z: m.atan2(z, z)),
    ("bitwise_and", lambda m, z: m.bitwise_and(z, z)), ("invert", lambda m, z: ~z),
    ("argmax", lambda m, z: z.argmax()), ("sort", lambda m, z: m.sort(z)),
    ("index", lambda m, z: [1, 2][z[0]]), ("float", lambda m, z: float(z[0])),
]


@pytest.mark.parametrize("name,f", _UNSUPPORTED, ids=[n for n, _ in _UNSUPPORTED])
def test_unsupported_ops_raise_like_torch(name, f):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        f(torch, torch.tensor([1 + 2j, 3 - 1j]))
    with pytest.raises(type(theirs.value)):
        f(cygrad, cygrad.tensor([1 + 2j, 3 - 1j]))


def test_refusals_without_torch():
    z = cygrad.tensor([1 + 2j])
    with pytest.raises(NotImplementedError, match="\"lt_cpu\" not implemented for 'ComplexFloat'"):
        z < z
    with pytest.raises(NotImplementedError, match="torch.sgn"):
        z.sign()
    with pytest.raises(RuntimeError, match="maximum not implemented for complex tensors."):
        cygrad.maximum(z, z)
    with pytest.raises(RuntimeError, match="only Tensors of floating point"):
        cygrad.tensor([1]).requires_grad_(True)


def test_casts():
    z = cygrad.tensor([1.5 + 2j])
    assert z.to(C128).dtype is C128 and z.cdouble().dtype is C128
    assert cygrad.tensor([1.0]).cfloat().tolist() == [1 + 0j]
    with pytest.warns(UserWarning, match="discards the imaginary part"):
        assert z.float().tolist() == [1.5]
    assert complex(cygrad.tensor(2 - 1j)) == 2 - 1j
    assert float(cygrad.tensor(2 + 0j)) == 2.0
    assert z.type() == "cygrad.ComplexFloatTensor"


# -------------------------------------------------------------------- printing

_PRINTED = [
    [1 + 2j, -3.5 - 1j, 0j],
    [[1e10 + 1j, 2]],
    1 + 1j,
    [1.5 + 2.25j, 3j],
    [float("nan") + 1j, complex(float("nan"), float("inf"))],
    [complex(i, -i / 3) for i in range(12)],
    [],
]


@pytest.mark.parametrize("data", _PRINTED, ids=range(len(_PRINTED)))
@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_repr_matches_torch(data, dtype):
    torch = pytest.importorskip("torch")
    ours = repr(cygrad.tensor(data, dtype=getattr(cygrad, dtype)))
    theirs = repr(torch.tensor(data, dtype=getattr(torch, dtype)))
    assert ours == theirs.replace("torch.", "cygrad.")


def test_repr_of_grad_requiring_complex_matches_torch():
    torch = pytest.importorskip("torch")
    ours = repr(cygrad.tensor([1 + 1j], requires_grad=True) * 2)
    theirs = repr(torch.tensor([1 + 1j], requires_grad=True) * 2)
    assert ours == theirs


# ----------------------------------------------------------------------- DLPack

def test_dlpack_round_trip_with_numpy():
    a = _rand_complex((2, 3), np.complex64)
    t = cygrad.from_dlpack(a)
    assert t.dtype is C64 and t.data_ptr() == a.ctypes.data
    back = np.from_dlpack(cygrad.from_numpy(a.astype(np.complex128)))
    assert back.dtype == np.complex128
    np.testing.assert_array_equal(back, a)


def test_dlpack_round_trip_with_torch():
    torch = pytest.importorskip("torch")
    z = cygrad.tensor([[1 + 2j, 3 - 4j]], dtype=C128)
    tz = torch.from_dlpack(z)
    assert tz.dtype == torch.complex128 and tz.data_ptr() == z.data_ptr()
    back = cygrad.from_dlpack(torch.tensor([1j, 2], dtype=torch.complex64))
    assert back.dtype is C64 and back.tolist() == [1j, 2 + 0j]


# --------------------------------------------------------------------- autograd

def _check(f, *arrays):
    return gradcheck(f, tuple(_leaf(a) for a in arrays), check_batched_grad=True)


_Z = _rand_complex((3,), seed=11)
_W = _rand_complex((3,), seed=12)
_GRADCHECKS = {
    "mul": (lambda a, b: a * b, _Z, _W),
    "div": (lambda a, b: a / b, _Z, _W),
    "exp": (lambda a: a.exp(), _Z),
    "sin_log": (lambda a: a.sin() * a.log(), _Z),
    "pow": (lambda a: a ** 3 + a.sqrt(), _Z),
    "abs": (lambda a: a.abs(), _Z),
    "sum": (lambda a: (a * a).sum(), _Z),
    "mean_prod": (lambda a: a.mean() * a.prod(), _Z),
    "matmul": (lambda a, b: a @ b, _rand_complex((2, 3), seed=13), _rand_complex((3, 2), seed=14)),
    "matvec": (lambda a, b: a @ b, _rand_complex((2, 3), seed=15), _W),
    "dot": (lambda a, b: cygrad.dot(a, b), _Z, _W),
    "real": (lambda a: a.real * 2, _Z),
    "imag": (lambda a: (a * a).imag, _Z),
    "angle": (lambda a: a.angle(), _Z),
    "conj": (lambda a: a.conj() * a, _Z),
    "sgn": (lambda a: a.sgn(), _Z),
    "view_as_real": (lambda a: cygrad.view_as_real(a * a), _Z),
    "scalar": (lambda a: a * (2 - 1j) + 1j, _Z),
}


@pytest.mark.parametrize("name", sorted(_GRADCHECKS))
def test_gradcheck_complex(name):
    f, *arrays = _GRADCHECKS[name]
    assert _check(f, *arrays)


def test_gradcheck_real_to_complex_and_back():
    x = np.array([0.3, -1.2, 2.0])
    assert _check(lambda r, t: cygrad.polar(r, t), np.abs(x) + 0.5, x)
    assert _check(lambda r, i: cygrad.complex(r, i).exp().abs(), x, x[::-1].copy())
    assert _check(lambda r: cygrad.view_as_complex(r.reshape(3, 1) * cygrad.ones(3, 2,
                                                   dtype=cygrad.float64)), x)
    assert _check(lambda r: (r * (1 + 2j)).exp().real, x)


def test_gradcheck_catches_a_wrong_complex_formula():
    class Wrong(cygrad.autograd.Function):     # forgets the conj of exp' = exp
        @staticmethod
        def forward(ctx, z):
            y = z.exp()
            ctx.save_for_backward(y)
            return y

        @staticmethod
        def backward(ctx, g):
            y, = ctx.saved_tensors
            return g * y
    z = _leaf(_Z)
    assert not gradcheck(Wrong.apply, (z,), raise_exception=False)
    with pytest.raises(RuntimeError, match=r"/ input\[\d,1\]"):
        gradcheck(Wrong.apply, (z,))


def test_gradients_match_torch():
    torch = pytest.importorskip("torch")

    def run(m, leaf):
        z = leaf(_Z)
        w = leaf(_W)
        loss = ((z * w.conj()).abs() + (z / w).angle() + z.exp().real - (z @ w).imag).sum()
        loss.backward()
        return z.grad, w.grad

    ours = run(cygrad, lambda a: cygrad.tensor(a, requires_grad=True))
    theirs = run(torch, lambda a: torch.tensor(a, requires_grad=True))
    for o, t in zip(ours, theirs):
        np.testing.assert_allclose(o.numpy(), t.numpy(), rtol=1e-12)


def test_backward_rules():
    z = cygrad.tensor([3 + 4j], dtype=C128, requires_grad=True)
    z.abs().sum().backward()
    assert z.grad.tolist() == [0.6 + 0.8j]
    z.grad = None
    z.imag.sum().backward()
    assert z.grad.tolist() == [1j]
    with pytest.raises(RuntimeError, match="grad can be implicitly created only for real scalar"):
        (z * 2).sum().backward()
    x = cygrad.tensor([1.0, 2.0], dtype=cygrad.float64, requires_grad=True)
    (x * (1 + 1j)).abs().sum().backward()
    assert x.grad.dtype is cygrad.float64          # a real input's gradient is real
    np.testing.assert_allclose(x.grad.numpy(), [math.sqrt(2)] * 2)
    assert z.real.grad_fn.name() == "SelectBackward0"
    assert cygrad.view_as_real(z).grad_fn.name() == "ViewAsRealBackward0"


# ------------------------------------------------------------- the rest of the API

def test_statistics_and_norms_are_real():
    a = _rand_complex((3, 4), seed=21)
    z = cygrad.tensor(a)
    assert z.var().dtype is cygrad.float64
    np.testing.assert_allclose(z.var().numpy(), np.var(a, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(z.std(1).numpy(), np.std(a, axis=1, ddof=1), rtol=1e-12)
    np.testing.assert_allclose(z.norm().numpy(), np.linalg.norm(a), rtol=1e-12)
    np.testing.assert_allclose(cygrad.norm(z, p=1, dim=0).numpy(), np.abs(a).sum(0), rtol=1e-12)
    assert _check(lambda t: t.var(0), a[:2, :2].copy())
    assert _check(lambda t: t.norm(), a[0])


def test_isclose_compares_both_parts():
    z = cygrad.tensor([1 + 2j, 3j])
    assert cygrad.isclose(z, z + 1e-7j).tolist() == [True, True]
    assert cygrad.isclose(z, z + 1e-3j).tolist() == [False, False]


def test_scalar_arguments_may_be_complex():
    z = cygrad.tensor([1 + 1j, 2], dtype=C128)
    np.testing.assert_allclose(cygrad.add(z, z, alpha=2j).numpy(), z.numpy() * (1 + 2j))
    np.testing.assert_allclose(cygrad.pow(z, 0.5 + 1j).numpy(), z.numpy() ** (0.5 + 1j))
    np.testing.assert_allclose(cygrad.pow(z, -2).numpy(), z.numpy() ** -2.0)
    np.testing.assert_allclose(cygrad.add(z, z, alpha=0.5).numpy(), 1.5 * z.numpy())
    with pytest.raises(RuntimeError, match="For non-complex input tensors, argument alpha"):
        cygrad.add(cygrad.ones(2), cygrad.ones(2), alpha=1j)
    with pytest.raises(RuntimeError, match="In-place abs is not supported for complex tensors."):
        z.clone().abs_()
    x = cygrad.tensor([1.0])
    with pytest.raises(RuntimeError, match="value cannot be converted to type float"):
        x[0] = 1j


def test_inplace_equals_out_of_place():
    rng = np.random.default_rng(5)
    for _ in range(50):      # NumPy's 0-d complex64 loops round differently in place
        a, b = (np.asarray(rng.standard_normal() + 1j * rng.standard_normal(), np.complex64)
                for _ in range(2))
        x, y = cygrad.from_numpy(a.copy()), cygrad.from_numpy(b.copy())
        expected = (x * y).numpy()
        x.mul_(y)
        assert x.numpy() == expected


def test_save_load_and_pickle(tmp_path):
    import pickle
    z = cygrad.tensor([[1 + 2j, 3 - 1j]], dtype=C128)
    path = tmp_path / "z.pt"
    cygrad.save({"z": z, "z64": z.to(C64)}, path)
    back = cygrad.load(path)
    assert back["z"].dtype is C128 and back["z"].tolist() == z.tolist()
    assert back["z64"].dtype is C64
    assert pickle.loads(pickle.dumps(z)).tolist() == z.tolist()


def test_module_to_complex():
    m = cygrad.nn.Linear(2, 2).to(C64)
    assert m.weight.dtype is C64 and m.weight.requires_grad
    y = m(cygrad.tensor([[1j, 1]]))
    y.abs().sum().backward()
    assert m.weight.grad.dtype is C64


@pytest.mark.parametrize("name", ["mul", "exp", "abs", "matmul", "real", "angle", "conj",
                                  "view_as_real"])
def test_forward_mode_matches_finite_differences(name):
    f, *arrays = _GRADCHECKS[name]
    assert gradcheck(f, tuple(_leaf(a) for a in arrays), check_forward_ad=True)
