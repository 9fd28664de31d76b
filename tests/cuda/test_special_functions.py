"""The special functions of cuda_src/special_functions.cu on the emulated GPU
(cygrad/cuda/ops/special.py): Bessel J/Y/K, spherical_bessel_j0, airy_ai,
igamma/igammac and the twelve orthogonal polynomials, against the CPU kernel of
the same primitive on a wide grid of values with the edge cases (0, -0,
negative, huge, subnormal, +-inf, NaN; degrees 0, 1, large, negative, NaN,
fractional), against SciPy where it has the function, and igamma's gradient.

The emulated driver is installed for this module only (strict mode: guard pages
and divergence checks); its library of special_functions.cu is cached on disk.
"""
import os
import sys

import numpy as np
import pytest

import cygrad
from cygrad._core.special_table import POLYNOMIALS
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

UNARY = ["bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "modified_bessel_k0",
         "modified_bessel_k1", "scaled_modified_bessel_k0", "scaled_modified_bessel_k1",
         "spherical_bessel_j0", "airy_ai"]
INF, NAN = float("inf"), float("nan")
# the CPU computes both dtypes in double and rounds once, as the kernels do: one
# float32 ulp covers a last-bit difference of the double result
RTOL = {"float64": 1e-13, "float32": 2.0 ** -23}


@pytest.fixture(scope="module", autouse=True)
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    with installed(EmulatedDriver(memory=256 << 20, strict=True)) as d:
        yield d


def _fn(name):
    return getattr(cygrad.special, name, None) or getattr(cygrad, name)


def _tensor(values, dtype):
    """``values`` rounded to ``dtype`` (to +-inf beyond float32's range) as a CPU tensor."""
    with np.errstate(over="ignore"):
        return cygrad.tensor(np.asarray(values, np.float64).astype(dtype))


def _both(name, *args):
    """The op's result on the CPU and on 'cuda' (read back), as NumPy arrays."""
    cpu = _fn(name)(*args)
    dev = _fn(name)(*[a.cuda() if isinstance(a, cygrad.Tensor) else a for a in args])
    assert dev.device.type == "cuda" and dev.dtype == cpu.dtype and dev.shape == cpu.shape
    return cpu.numpy(), dev.cpu().numpy()


def _assert_same(cpu, dev, dtype):
    np.testing.assert_allclose(dev, cpu, rtol=RTOL[dtype], atol=0, equal_nan=True)


def _unary_grid():
    edges = [0.0, -0.0, 1.0, -1.0, 1.5, -7.0, 1e-300, 5e-324, -5e-324, 1e300, -1e300,
             745.0, 900.0, INF, -INF, NAN]
    rng = np.random.default_rng(0)
    return np.concatenate([edges, np.linspace(-40, 40, 321), np.geomspace(1e-8, 2e3, 120),
                           -np.geomspace(1e-8, 2e3, 60), rng.uniform(-10, 10, 100)])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", UNARY)
def test_unary_matches_cpu(name, dtype):
    x = _tensor(_unary_grid(), dtype)
    cpu, dev = _both(name, x)
    _assert_same(cpu, dev, dtype)


def _degrees():
    return np.array([0, 1, 2, 3, 5, 6, 7, 8, 9, 10, 20, 50, 200, 1500, -1, -3, 2.7, -0.5,
                     NAN, 1e20, -1e20, INF])


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", POLYNOMIALS)
def test_polynomials_match_cpu(name, dtype):
    # every x against every degree (broadcast), x around each family's interval
    x = np.concatenate([[0.0, -0.0, 1.0, -1.0, 0.5, 2.0, -3.0, 1e10, -1e200, INF, -INF, NAN],
                        np.linspace(-1.3, 1.3, 27), np.linspace(-6, 12, 19)])
    cpu, dev = _both(name, _tensor(x, dtype)[:, None], _tensor(_degrees(), dtype))
    _assert_same(cpu, dev, dtype)
    # the degree as a Python number (cast to a 0-d tensor on the device)
    cpu, dev = _both(name, _tensor(x, dtype), 4)
    _assert_same(cpu, dev, dtype)


def _gamma_grid():
    a = np.array([0.0, 1e-10, 0.05, 0.2, 0.2000001, 0.5, 1.0, 2.5, 10.0, 100.0, 1e4, 1e6,
                  -1.0, INF, NAN])
    x = np.array([0.0, 1e-12, 0.01, 0.3, 1.0, 1.2, 3.0, 11.0, 99.0, 150.0, 1e4, 1e6,
                  -0.5, INF, NAN])
    return a[:, None], x[None, :]


@pytest.mark.parametrize("dtype", ["float64", "float32"])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_matches_cpu(name, dtype):
    a, x = _gamma_grid()
    cpu, dev = _both(name, _tensor(a, dtype), _tensor(x, dtype))
    _assert_same(cpu, dev, dtype)
    assert dev.dtype == np.dtype(dtype)       # result=_SAME: the input's dtype


def test_values_against_scipy():
    sps = pytest.importorskip("scipy.special", reason="SciPy is the independent reference")
    x = np.linspace(0.05, 25, 97)
    xs = np.linspace(-12, 6, 91)
    n = np.arange(0, 12)
    t = np.linspace(-0.95, 0.95, 13)
    cases = [
        ("bessel_j0", (xs,), sps.j0(xs)), ("bessel_j1", (xs,), sps.j1(xs)),
        ("bessel_y0", (x,), sps.y0(x)), ("bessel_y1", (x,), sps.y1(x)),
        ("modified_bessel_k0", (x,), sps.k0(x)), ("modified_bessel_k1", (x,), sps.k1(x)),
        ("scaled_modified_bessel_k0", (x,), sps.k0e(x)),
        ("scaled_modified_bessel_k1", (x,), sps.k1e(x)),
        ("spherical_bessel_j0", (xs,), sps.spherical_jn(0, xs)),
        ("airy_ai", (xs,), sps.airy(xs)[0]),
        ("igamma", (x[:, None], x[None, ::8]), sps.gammainc(x[:, None], x[None, ::8])),
        ("igammac", (x[:, None], x[None, ::8]), sps.gammaincc(x[:, None], x[None, ::8])),
        ("chebyshev_polynomial_t", (t[:, None], n), sps.eval_chebyt(n, t[:, None])),
        ("chebyshev_polynomial_u", (t[:, None], n), sps.eval_chebyu(n, t[:, None])),
        ("shifted_chebyshev_polynomial_t", (t[:, None], n), sps.eval_sh_chebyt(n, t[:, None])),
        ("hermite_polynomial_h", (t[:, None], n), sps.eval_hermite(n, t[:, None])),
        ("hermite_polynomial_he", (t[:, None], n), sps.eval_hermitenorm(n, t[:, None])),
        ("laguerre_polynomial_l", (t[:, None], n), sps.eval_laguerre(n, t[:, None])),
        ("legendre_polynomial_p", (t[:, None], n), sps.eval_legendre(n, t[:, None])),
    ]
    for name, args, ref in cases:
        dev = _fn(name)(*[cygrad.tensor(np.asarray(a, np.float64)).cuda() for a in args])
        # absolute part: values near the functions' zeros
        np.testing.assert_allclose(dev.cpu().numpy(), ref, rtol=1e-10, atol=1e-13, err_msg=name)


def test_strided_and_broadcast_operands():
    base = cygrad.tensor(np.linspace(-3, 5, 96).reshape(8, 12))
    view = base.cuda().t()[::2]                                 # (6, 8), non-contiguous
    expected = cygrad.special.airy_ai(base.t()[::2]).numpy()
    np.testing.assert_array_equal(cygrad.special.airy_ai(view).cpu().numpy(), expected)
    n = cygrad.tensor([[0.0], [3.0], [7.0]])                    # (3, 1) against (6, 8)
    out = cygrad.special.hermite_polynomial_h(view[None] / 4, n[:, :, None].cuda())
    ref = cygrad.special.hermite_polynomial_h(base.t()[::2][None] / 4, n[:, :, None])
    assert out.shape == (3, 6, 8)
    np.testing.assert_array_equal(out.cpu().numpy(), ref.numpy())
    # out= into a non-contiguous CUDA tensor of a wider dtype
    target = cygrad.zeros(8, 6, dtype=cygrad.float64, device="cuda").t()
    cygrad.special.modified_bessel_k1(view.float().abs() + 0.5, out=target)
    np.testing.assert_allclose(target.cpu().numpy(),
                               cygrad.special.modified_bessel_k1(base.t()[::2].float().abs() + 0.5)
                               .double().numpy(), rtol=0)


def test_integer_inputs_promote_to_the_default_float():
    k = cygrad.tensor([1, 2, 5, 40])
    cpu, dev = _both("scaled_modified_bessel_k0", k)
    assert dev.dtype == np.float32
    _assert_same(cpu, dev, "float32")
    cpu, dev = _both("legendre_polynomial_p", cygrad.tensor([0.25, -0.5]), cygrad.tensor([3, 10]))
    _assert_same(cpu, dev, "float32")


@pytest.mark.parametrize("name", ["airy_ai", "bessel_y1", "laguerre_polynomial_l"])
def test_half_dtypes_raise_not_implemented(name):
    x = cygrad.ones(3, dtype=cygrad.bfloat16, device="cuda")
    args = (x,) if "polynomial" not in name else (x, x)
    message = f"'{name}' for dtype cygrad.bfloat16 on device cuda"
    with pytest.raises(NotImplementedError, match=message):
        _fn(name)(*args)
    with pytest.raises(NotImplementedError):                    # the CPU's type too
        _fn(name)(*[a.cpu() for a in args])


@pytest.mark.parametrize("dtype,ulp", [("float16", 2.0 ** -10), ("bfloat16", 2.0 ** -7)])
@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_half_dtypes(name, dtype, ulp):
    # the CPU rounds the double result to the half dtype directly, the kernel through
    # float: at most one ulp of the half dtype apart (only next to a tie)
    a, x = _gamma_grid()
    dt = getattr(cygrad, dtype)
    with np.errstate(over="ignore"):                            # (1e6 is inf in float16)
        a, x = cygrad.tensor(a).to(dt), cygrad.tensor(x).to(dt)
    cpu, dev = _both(name, a, x)
    assert dev.dtype == cpu.dtype
    np.testing.assert_allclose(dev.astype(np.float64), cpu.astype(np.float64), rtol=ulp, atol=0,
                               equal_nan=True)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_gradient_with_respect_to_x(name):
    a = cygrad.tensor([0.1, 0.5, 2.0, 7.5, 30.0], dtype=cygrad.float64)
    x0 = np.array([0.05, 0.7, 2.5, 6.0, 33.0])
    grads = []
    for device in ("cpu", "cuda"):
        x = cygrad.tensor(x0, device=device, requires_grad=True)
        _fn(name)(a.to(device), x).sum().backward()
        assert x.grad.device.type == device
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-13)
    # d/dx P(a, x) = x^(a-1) e^-x / Gamma(a), the same for Q but negative
    from math import exp, lgamma, log
    dens = np.array([exp((ai - 1) * log(xi) - xi - lgamma(ai)) for ai, xi in zip(a.tolist(), x0)])
    np.testing.assert_allclose(grads[1], dens if name == "igamma" else -dens, rtol=1e-12)


def test_realistic_size():
    # one larger case: 64k elements through the slowest kernel (K1's integral) and a
    # polynomial with a per-element degree
    rng = np.random.default_rng(1)
    x = cygrad.tensor(rng.uniform(0.01, 60, (256, 256)), dtype=cygrad.float32)
    cpu, dev = _both("modified_bessel_k1", x)
    _assert_same(cpu, dev, "float32")
    n = cygrad.tensor(rng.integers(-2, 40, (256, 256)).astype(np.float32))
    cpu, dev = _both("chebyshev_polynomial_u", x / 60, n)
    _assert_same(cpu, dev, "float32")
