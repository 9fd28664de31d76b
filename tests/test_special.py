"""cygrad.special and the elementwise math functions beside it: the whole
``torch.special`` namespace exists, accuracy over wide ranges (poles, negative
arguments, large magnitudes, NaN/inf) against SciPy, the derivatives PyTorch has
and the ones it refuses, and the argument orders and errors the op table's rows
do not reach."""
import math

import numpy as np
import pytest

import cygrad
from cygrad import special as S
from cygrad.autograd import gradcheck, gradgradcheck

try:
    import torch
except ImportError:
    torch = None

# every public name of torch.special in PyTorch 2.13
TORCH_SPECIAL = [
    "airy_ai", "bessel_j0", "bessel_j1", "bessel_y0", "bessel_y1", "chebyshev_polynomial_t",
    "chebyshev_polynomial_u", "chebyshev_polynomial_v", "chebyshev_polynomial_w", "digamma",
    "entr", "erf", "erfc", "erfcx", "erfinv", "exp2", "expit", "expm1", "gammainc", "gammaincc",
    "gammaln", "hermite_polynomial_h", "hermite_polynomial_he", "i0", "i0e", "i1", "i1e",
    "laguerre_polynomial_l", "legendre_polynomial_p", "log1p", "log_ndtr", "log_softmax",
    "logit", "logsumexp", "modified_bessel_i0", "modified_bessel_i1", "modified_bessel_k0",
    "modified_bessel_k1", "multigammaln", "ndtr", "ndtri", "polygamma", "psi", "round",
    "scaled_modified_bessel_k0", "scaled_modified_bessel_k1", "shifted_chebyshev_polynomial_t",
    "shifted_chebyshev_polynomial_u", "shifted_chebyshev_polynomial_v",
    "shifted_chebyshev_polynomial_w", "sinc", "softmax", "spherical_bessel_j0", "xlog1py",
    "xlogy", "zeta"]

TOP_LEVEL = ["lgamma", "digamma", "polygamma", "mvlgamma", "erfinv", "i0", "i0_", "igamma",
             "igammac", "logit", "logit_", "xlogy", "xlogy_", "sinc", "sinc_", "heaviside",
             "logaddexp", "logaddexp2", "copysign", "nextafter", "ldexp", "ldexp_", "frexp", "gcd",
             "gcd_", "lcm", "lcm_", "deg2rad", "deg2rad_", "rad2deg", "rad2deg_", "fix", "fix_",
             "signbit", "isposinf", "isneginf", "clamp_min", "clamp_min_", "clamp_max",
             "clamp_max_", "hardshrink"]
METHODS = ["lgamma", "lgamma_", "digamma", "digamma_", "polygamma", "polygamma_", "mvlgamma",
           "mvlgamma_", "erfinv", "erfinv_", "i0", "i0_", "igamma", "igamma_", "igammac",
           "igammac_", "logit", "logit_", "xlogy", "xlogy_", "sinc", "sinc_", "heaviside",
           "heaviside_", "logaddexp", "logaddexp2", "copysign", "copysign_", "nextafter",
           "nextafter_", "ldexp", "ldexp_", "frexp", "gcd", "gcd_", "lcm", "lcm_", "deg2rad",
           "deg2rad_", "rad2deg", "rad2deg_", "fix", "fix_", "signbit", "isposinf", "isneginf",
           "sgn_", "clamp_min", "clamp_min_", "clamp_max", "clamp_max_", "hardshrink"]


def test_every_torch_special_name_exists():
    assert sorted(S.__all__) == sorted(TORCH_SPECIAL)
    missing = [n for n in TORCH_SPECIAL if not callable(getattr(S, n, None))]
    assert not missing
    if torch is not None:
        theirs = {n for n in dir(torch.special) if not n.startswith("_")
                  and callable(getattr(torch.special, n))
                  and not isinstance(getattr(torch.special, n), type)}   # (torch.Tensor)
        assert theirs <= set(TORCH_SPECIAL), theirs - set(TORCH_SPECIAL)


def test_top_level_names_and_methods_exist():
    assert not [n for n in TOP_LEVEL if not callable(getattr(cygrad, n, None))]
    assert not [n for n in METHODS if not callable(getattr(cygrad.Tensor, n, None))]


def test_aliases_are_the_same_functions():
    assert S.psi is S.digamma is cygrad.digamma
    assert S.gammaln is cygrad.lgamma
    assert S.multigammaln is cygrad.mvlgamma
    assert S.expit is cygrad.sigmoid
    for name in ("erf", "erfc", "exp2", "expm1", "log1p", "round", "erfinv", "i0", "sinc",
                 "xlogy", "logit", "polygamma", "softmax", "log_softmax", "logsumexp"):
        assert getattr(S, name) is getattr(cygrad, name), name


# ------------------------------------------------------------------ accuracy vs SciPy

def _sps():
    return pytest.importorskip("scipy.special", reason="SciPy is the reference for the "
                                                       "special functions")


WIDE = np.concatenate([np.linspace(-30, 30, 1201), [0.0, -0.0, 1e-300, -1e-300, 1e-8, 50.0,
                                                     170.5, 700.0, 1e5, -1e5, -3.0, -2.5]])
POSITIVE = np.concatenate([np.logspace(-300, 2.7, 800), [1e-5, 0.5, 1.0, 2.0, 700.0]])
UNIT = np.concatenate([np.linspace(-1, 1, 801)[1:-1], [1e-300, -1e-300, 1 - 1e-15, -1 + 1e-15,
                                                        0.9, 0.9000001]])
PROB = np.concatenate([np.linspace(0, 1, 801)[1:-1], [1e-300, 1e-100, 1e-20, 1 - 1e-15]])

# (function, scipy name, domain, rtol): rtol from one run of these grids, rounded up
ACCURACY = [
    (cygrad.lgamma, "gammaln", WIDE, 1e-10),
    (cygrad.digamma, "psi", WIDE, 1e-8),
    (cygrad.erfinv, "erfinv", UNIT, 1e-13),
    (S.ndtri, "ndtri", PROB, 1e-13),
    (S.ndtr, "ndtr", WIDE, 1e-12),
    (S.log_ndtr, "log_ndtr", WIDE, 1e-12),
    (S.erfcx, "erfcx", WIDE, 1e-12),
    (S.entr, "entr", WIDE, 1e-14),
    (cygrad.i0, "i0", WIDE[np.abs(WIDE) < 700], 1e-13),
    (S.i0e, "i0e", WIDE, 1e-13),
    (S.i1, "i1", WIDE[np.abs(WIDE) < 700], 1e-13),
    (S.i1e, "i1e", WIDE, 1e-13),
    (S.modified_bessel_k0, "k0", POSITIVE, 1e-13),
    (S.modified_bessel_k1, "k1", POSITIVE, 1e-13),
    (S.scaled_modified_bessel_k0, "k0e", POSITIVE, 1e-13),
    (S.scaled_modified_bessel_k1, "k1e", POSITIVE, 1e-13),
    (S.bessel_j0, "j0", WIDE[np.abs(WIDE) < 1e4], 1e-9),
    (S.bessel_j1, "j1", WIDE[np.abs(WIDE) < 1e4], 1e-9),
    (S.bessel_y0, "y0", POSITIVE[POSITIVE < 1e4], 1e-9),
    (S.bessel_y1, "y1", POSITIVE[POSITIVE < 1e4], 1e-9),
]


@pytest.mark.parametrize("fn,name,domain,rtol", ACCURACY, ids=[a[1] for a in ACCURACY])
def test_accuracy_over_wide_ranges(fn, name, domain, rtol):
    sps = _sps()
    with np.errstate(all="ignore"):
        expected = getattr(sps, name)(domain)
    actual = fn(cygrad.from_numpy(domain.copy())).numpy()
    # oscillating functions: relative error is measured against the function's scale there
    atol = 1e-14 if name in ("j0", "j1", "y0", "y1") else 0.0
    np.testing.assert_allclose(actual, expected, rtol=rtol, atol=atol, equal_nan=True)


def test_airy_over_both_branches():
    sps = _sps()
    x = np.concatenate([np.linspace(-40, 10, 2001), [100.0, 110.0]])
    expected = sps.airy(x)[0]
    actual = S.airy_ai(cygrad.from_numpy(x.copy())).numpy()
    # near the zeros of Ai (x < 0) the relative error is meaningless: also an absolute bound
    np.testing.assert_allclose(actual, expected, rtol=1e-8, atol=1e-10)


def test_two_argument_functions_against_scipy():
    sps = _sps()
    a = np.array([0.05, 0.5, 1.0, 2.0, 5.0, 10.0, 30.0, 100.0, 1000.0])[:, None]
    x = np.array([1e-3, 0.1, 0.5, 1.0, 2.0, 5.0, 10.0, 31.0, 120.0, 1100.0])[None, :]
    ta, tx = cygrad.from_numpy(np.broadcast_to(a, (9, 10)).copy()), cygrad.from_numpy(x.copy())
    np.testing.assert_allclose(S.gammainc(ta, tx).numpy(), sps.gammainc(a, x), rtol=1e-10,
                               atol=1e-300)
    np.testing.assert_allclose(S.gammaincc(ta, tx).numpy(), sps.gammaincc(a, x), rtol=1e-10,
                               atol=1e-300)
    s = np.array([1.1, 1.5, 2.0, 3.0, 7.5, 20.0, 60.0])[:, None]
    q = np.array([-2.5, -0.5, 0.01, 0.5, 1.0, 3.0, 50.0, 1e4])[None, :]
    ts = cygrad.from_numpy(np.broadcast_to(s, (7, 8)).copy())
    np.testing.assert_allclose(S.zeta(ts, cygrad.from_numpy(q.copy())).numpy(), sps.zeta(s, q),
                               rtol=1e-12)
    xs = np.array([-3.7, -0.5, 0.05, 0.5, 1.0, 2.5, 10.0, 200.0])
    for n in (0, 1, 2, 5, 12):
        np.testing.assert_allclose(cygrad.polygamma(n, cygrad.from_numpy(xs.copy())).numpy(),
                                   sps.polygamma(n, xs), rtol=1e-10)


def test_upper_incomplete_gamma_for_tiny_a_keeps_its_relative_precision():
    sps = _sps()
    a = np.array([1e-300, 1e-20, 1e-10, 1e-3, 0.1, 0.2])[:, None]
    x = np.array([1e-10, 0.1, 0.5, 1.0, 1.15])[None, :]
    ta = cygrad.from_numpy(np.broadcast_to(a, (6, 5)).copy())
    np.testing.assert_allclose(S.gammaincc(ta, cygrad.from_numpy(x.copy())).numpy(),
                               sps.gammaincc(a, x), rtol=1e-12)


def test_polynomials_of_high_degree_against_scipy():
    sps = _sps()
    x = np.linspace(-0.99, 0.99, 41)
    for n in (20, 51):
        tx, tn = cygrad.from_numpy(x.copy()), float(n)
        np.testing.assert_allclose(S.chebyshev_polynomial_t(tx, tn).numpy(),
                                   sps.eval_chebyt(n, x), atol=1e-12)
        np.testing.assert_allclose(S.chebyshev_polynomial_u(tx, tn).numpy(),
                                   sps.eval_chebyu(n, x), atol=1e-10)
        np.testing.assert_allclose(S.legendre_polynomial_p(tx, tn).numpy(),
                                   sps.eval_legendre(n, x), atol=1e-12)
        np.testing.assert_allclose(S.hermite_polynomial_he(tx, tn).numpy(),
                                   sps.eval_hermitenorm(n, x), rtol=1e-10)


def test_large_array_goes_through_the_pool_with_the_same_result():
    sps = _sps()
    x = cygrad.from_numpy(np.random.default_rng(0).uniform(0.01, 50, 200_000))
    before = cygrad.get_num_threads()
    try:
        cygrad.set_num_threads(1)
        one = cygrad.lgamma(x).numpy()
        cygrad.set_num_threads(3)
        three = cygrad.lgamma(x).numpy()
    finally:
        cygrad.set_num_threads(before)
    np.testing.assert_array_equal(one, three)
    np.testing.assert_allclose(one, sps.gammaln(x.numpy()), rtol=1e-12)


def test_float32_is_the_float64_value_rounded():
    x = np.linspace(0.1, 8, 101)
    for fn in (cygrad.lgamma, cygrad.digamma, S.i1e, S.ndtr):
        f64 = fn(cygrad.from_numpy(x.astype(np.float32).astype(np.float64))).numpy()
        f32 = fn(cygrad.from_numpy(x.astype(np.float32))).numpy()
        assert f32.dtype == np.float32
        np.testing.assert_array_equal(f32, f64.astype(np.float32))


# --------------------------------------------------------------------- vs PyTorch

@pytest.mark.skipif(torch is None, reason="PyTorch reference not installed")
def test_polygamma_matches_torch_argument_order_and_values():
    x = np.array([-2.5, -0.5, 0.0, 0.3, 1.0, 4.0, 25.0])
    for n in (0, 1, 2, 4):
        ours = cygrad.polygamma(n, cygrad.from_numpy(x.copy())).numpy()
        theirs = torch.polygamma(n, torch.from_numpy(x.copy())).numpy()
        np.testing.assert_allclose(ours, theirs, rtol=1e-8, equal_nan=True)
        np.testing.assert_allclose(cygrad.from_numpy(x.copy()).polygamma(n).numpy(), ours)
    assert cygrad.polygamma(1, cygrad.tensor([1, 2])).dtype == cygrad.float32
    with pytest.raises(RuntimeError, match="negative n"):
        cygrad.polygamma(-1, cygrad.tensor([1.0]))


@pytest.mark.skipif(torch is None, reason="PyTorch reference not installed")
def test_special_values_match_torch():
    vals = np.array([0.0, -0.0, np.inf, -np.inf, np.nan, -1.0, -2.0, -2.5, 0.5, 1e-300, 710.0])
    ours_t, theirs_t = cygrad.from_numpy(vals.copy()), torch.from_numpy(vals.copy())
    for name in ("digamma", "erfinv", "i0", "i0e", "i1", "i1e", "ndtri", "log_ndtr", "erfcx",
                 "entr", "sinc", "bessel_j0", "bessel_y1", "modified_bessel_k0",
                 "scaled_modified_bessel_k1", "airy_ai", "spherical_bessel_j0", "gammaln"):
        ours = getattr(S, name)(ours_t).numpy()
        theirs = getattr(torch.special, name)(theirs_t).numpy()
        # (the NaN/inf positions are the point; PyTorch's airy_ai(-2.5) is 2e-6 off SciPy's)
        np.testing.assert_allclose(ours, theirs, rtol=1e-5, atol=1e-300, equal_nan=True,
                                   err_msg=name)


# ------------------------------------------------------------------ derivatives

def _x(values):
    return cygrad.tensor(values, dtype=cygrad.float64, requires_grad=True)


@pytest.mark.parametrize("name", ["igamma", "igammac"])
def test_incomplete_gamma_gradient_in_x_and_refused_in_a(name):
    fn = getattr(cygrad, name)
    a = cygrad.tensor([0.5, 2.0, 7.0], dtype=cygrad.float64)
    x = _x([0.3, 2.5, 6.0])
    assert gradcheck(lambda t: fn(a, t), (x,))
    assert gradgradcheck(lambda t: fn(a, t), (x,))
    y = fn(_x([1.0, 2.0]), cygrad.tensor([1.0, 1.0], dtype=cygrad.float64))
    with pytest.raises(NotImplementedError, match=f"derivative for '{name}: input' is not implemented"):
        y.sum().backward()


def test_zeta_gradient_in_q_and_refused_in_s():
    s = cygrad.tensor([2.0, 3.5], dtype=cygrad.float64)
    assert gradcheck(lambda q: S.zeta(s, q), (_x([0.7, 2.0]),))
    y = S.zeta(_x([2.0]), 1.0)
    with pytest.raises(NotImplementedError, match="derivative for 'zeta' is not implemented"):
        y.sum().backward()


def test_in_place_forms_record_their_derivatives():
    x = _x([0.7, 1.5, 3.0])
    y = x * 1.0
    y.polygamma_(1)
    y.sum().backward()
    sps = pytest.importorskip("scipy.special", reason="SciPy is the polygamma reference")
    np.testing.assert_allclose(x.grad.numpy(), sps.polygamma(2, [0.7, 1.5, 3.0]), rtol=1e-10)
    x = _x([0.2, 0.6])
    y = x * 1.0
    y.logit_(eps=0.3)
    y.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), [0.0, 1 / (0.6 * 0.4)])


def test_frexp_mantissa_gradient_and_int32_exponent():
    x = _x([3.0, -0.3, 100.0])
    m, e = cygrad.frexp(x)
    assert e.dtype == cygrad.int32 and e.grad_fn is None
    m.sum().backward()
    np.testing.assert_allclose(x.grad.numpy(), 2.0 ** -e.numpy().astype(float))


def test_functions_without_derivatives_give_no_history():
    x = _x([0.5, 1.5])
    for fn in (S.bessel_j0, S.airy_ai, S.modified_bessel_i0, S.spherical_bessel_j0):
        assert fn(x).grad_fn is None
    assert S.chebyshev_polynomial_t(x, 3).grad_fn is None


# ---------------------------------------------------------------- errors and rules

def test_mvlgamma_checks_and_in_place():
    # PyTorch 2.13 has no domain check: below (p-1)/2 the sum of lgammas is returned
    sps = _sps()
    assert cygrad.mvlgamma(cygrad.tensor([0.9], dtype=cygrad.float64), 3).item() == pytest.approx(
        sum(sps.gammaln(0.9 - i / 2) for i in range(3)) + 1.5 * math.log(math.pi))
    with pytest.raises(RuntimeError, match="greater than or equal to 1"):
        cygrad.mvlgamma(cygrad.tensor([3.0]), 0)
    with pytest.raises(RuntimeError, match="may not be a boolean"):
        cygrad.mvlgamma(cygrad.tensor([True]), 1)
    t = cygrad.tensor([2.5, 4.0], dtype=cygrad.float64)
    expected = cygrad.mvlgamma(t, 2).tolist()
    assert t.mvlgamma_(2) is t and t.tolist() == expected
    with pytest.raises(RuntimeError, match="can't be cast"):
        cygrad.tensor([3, 4]).mvlgamma_(2)


def test_integer_rules():
    assert cygrad.lgamma(cygrad.tensor([1, 2, 3])).dtype == cygrad.float32
    assert cygrad.xlogy(cygrad.tensor([1, 2]), cygrad.tensor([2, 3])).dtype == cygrad.float32
    assert cygrad.copysign(cygrad.tensor([1, 2]), -1.0).tolist() == [-1.0, -2.0]
    with pytest.raises(RuntimeError, match="can't be cast"):
        cygrad.tensor([1, 2]).lgamma_()
    with pytest.raises(NotImplementedError, match="igamma_cpu"):
        cygrad.igamma(cygrad.tensor([1, 2]), cygrad.tensor([1, 2]))
    with pytest.raises(NotImplementedError, match="gcd_cpu"):
        cygrad.gcd(cygrad.tensor([True]), cygrad.tensor([False]))
    assert cygrad.gcd(cygrad.tensor([-12, 0], dtype=cygrad.int32),
                      cygrad.tensor([18, 0], dtype=cygrad.int32)).tolist() == [6, 0]
    with pytest.raises(RuntimeError, match="different dtypes"):
        cygrad.heaviside(cygrad.tensor([1.0]), cygrad.tensor([1.0], dtype=cygrad.float64))
    with pytest.raises(RuntimeError, match="different dtypes"):
        cygrad.heaviside(cygrad.tensor([1.0]), cygrad.tensor([1.0]), out=cygrad.empty(1).double())
    with pytest.raises(RuntimeError, match="non-boolean outputs"):
        cygrad.signbit(cygrad.tensor([1.0]), out=cygrad.empty(1))
    with pytest.raises(NotImplementedError, match="hardshrink_cpu"):
        cygrad.tensor([1, 2]).hardshrink()


def test_number_operands_where_pytorch_takes_only_tensors():
    t = cygrad.tensor([1.0, 2.0])
    for fn in (cygrad.igamma, cygrad.igammac, S.gammainc, S.gammaincc, cygrad.logaddexp,
               cygrad.logaddexp2, cygrad.nextafter, cygrad.heaviside, cygrad.ldexp):
        with pytest.raises(TypeError):
            fn(t, 2.0)
    with pytest.raises(TypeError):
        cygrad.gcd(cygrad.tensor([4]), 2)
    with pytest.raises(TypeError):
        cygrad.copysign(2.0, t)
    # these have Scalar overloads in PyTorch
    assert cygrad.copysign(t, -1.0).tolist() == [-1.0, -2.0]
    assert S.zeta(2.0, t).shape == (2,) and cygrad.xlogy(2.0, t).shape == (2,)


def test_half_and_complex_refusals():
    with pytest.raises(NotImplementedError, match="\"bessel_j0_cpu\" not implemented for 'Half'"):
        S.bessel_j0(cygrad.tensor([1.0], dtype=cygrad.float16))
    with pytest.raises(NotImplementedError, match="not implemented for 'ComplexFloat'"):
        cygrad.lgamma(cygrad.tensor([1.0], dtype=cygrad.complex64))
    with pytest.raises(RuntimeError, match="isposinf does not support complex"):
        cygrad.isposinf(cygrad.tensor([1.0], dtype=cygrad.complex64))
    assert cygrad.lgamma(cygrad.tensor([3.0], dtype=cygrad.bfloat16)).dtype == cygrad.bfloat16


def test_logit_eps_and_out():
    x = cygrad.tensor([0.0, 0.25, 1.0])
    assert cygrad.logit(x, eps=0.25).tolist() == pytest.approx([-math.log(3), -math.log(3),
                                                                math.log(3)])
    out = cygrad.empty(3, dtype=cygrad.float64)
    assert cygrad.logit(x, out=out) is out
    assert out.tolist()[1] == pytest.approx(-math.log(3))
