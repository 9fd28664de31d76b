"""cygrad.numpy with complex64/complex128: the promotion table with complex against
NumPy, dtype functions, elementwise values and the standard's special cases (IEEE
zeros, infinities and NaNs in either component) against NumPy, reductions,
vecdot/matmul/norms, gradients."""
import itertools
import math

import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp
from cygrad.autograd import gradcheck

DTYPES = ["bool", "int8", "int16", "int32", "int64", "uint8", "float16", "float32", "float64",
          "complex64", "complex128"]
COMPLEX = ["complex64", "complex128"]


# ---------------------------------------------------------------------- dtypes

@pytest.mark.parametrize("a,b", [p for p in itertools.product(DTYPES, COMPLEX)])
def test_promotion_table_with_complex_matches_numpy(a, b):
    want = np.result_type(np.dtype(a), np.dtype(b)).name
    assert cnp.result_type(getattr(cnp, a), getattr(cnp, b)).name == want
    assert cnp.result_type(getattr(cnp, b), getattr(cnp, a)).name == want
    assert cnp.can_cast(getattr(cnp, a), getattr(cnp, b)) == np.can_cast(np.dtype(a), np.dtype(b))
    x = cnp.ones(2, dtype=getattr(cnp, a))
    y = cnp.ones(2, dtype=getattr(cnp, b))
    assert cnp.add(x, y).dtype.name == want


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("scalar", [1, 1.5, 2j])
def test_python_scalars_with_arrays_match_numpy(dt, scalar):
    if dt == "bool" and not isinstance(scalar, complex):
        pytest.skip(reason="bool with int/float scalars is covered by test_np_promotion_special")
    want = (np.ones(2, dtype=dt) * scalar).dtype.name
    assert cnp.result_type(getattr(cnp, dt), scalar).name == want
    got = cnp.multiply(cnp.ones(2, dtype=getattr(cnp, dt)), scalar)
    assert got.dtype.name == want
    np.testing.assert_allclose(got.numpy(), np.ones(2, dtype=dt) * scalar)


def test_dtype_functions():
    assert cnp.isdtype(cnp.complex64, "complex floating")
    assert cnp.isdtype(cnp.complex128, "numeric")
    assert not cnp.isdtype(cnp.complex64, "real floating")
    assert not cnp.isdtype(cnp.float64, "complex floating")
    assert cnp.isdtype(cnp.complex64, ("integral", "complex floating"))
    for c, r in [(cnp.complex64, np.float32), (cnp.complex128, np.float64)]:
        f, want = cnp.finfo(c), np.finfo(r)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (
            want.bits, float(want.eps), float(want.max), float(want.min), float(want.smallest_normal))
        assert f.dtype is c.to_real()
    with pytest.raises(ValueError):
        cnp.iinfo(cnp.complex64)
    info = cnp.__array_namespace_info__()
    assert list(info.dtypes(kind="complex floating")) == ["complex64", "complex128"]
    assert info.default_dtypes()["complex floating"] is cnp.complex128
    assert cnp.asarray(1j).dtype is cnp.complex128 and cnp.asarray(1j).item() == 1j
    assert cnp.asarray([1, 2.5j], dtype=cnp.complex64).tolist() == [1 + 0j, 2.5j]
    assert cnp.astype(cnp.asarray([1.5]), cnp.complex64).dtype is cnp.complex64


# --------------------------------------------------------------- elementwise values

SPECIAL = [0.0, -0.0, 1.5, -2.0, math.inf, -math.inf, math.nan]
GRID = np.array([complex(a, b) for a in SPECIAL for b in SPECIAL + [0.7, -3.0]])
NP_NAME = {"asin": "arcsin", "acos": "arccos", "atan": "arctan", "asinh": "arcsinh",
           "acosh": "arccosh", "atanh": "arctanh", "pow": "power"}


def _same(got, want):
    """Equal with NaN equal to NaN and the signs of zeros compared, componentwise; a
    few ulps of tolerance on finite values (libm-level differences)."""
    for part in (np.real, np.imag):
        g, w = part(got), part(want)
        both_nan = np.isnan(g) & np.isnan(w)
        exact = (g == w) & (np.signbit(g) == np.signbit(w))
        with np.errstate(invalid="ignore"):        # inf - inf where both are infinite
            close = np.isfinite(w) & (np.abs(g - w) <= 1e-14 * np.abs(w)) & (w != 0)
        ok = both_nan | exact | close
        assert ok.all(), list(zip(GRID[~ok], got[~ok], want[~ok]))


@pytest.mark.parametrize("name", ["exp", "expm1", "log", "log1p", "log2", "log10", "sqrt", "sin",
                                  "cos", "tan", "sinh", "cosh", "tanh", "asin", "acos", "atan",
                                  "asinh", "acosh", "atanh", "square", "reciprocal", "negative",
                                  "positive", "conj"])
def test_unary_special_cases_match_numpy(name):
    with np.errstate(all="ignore"):
        want = getattr(np, NP_NAME.get(name, name))(GRID)
        if name == "expm1":
            # NumPy's expm1 gives NaN + NaN j for every non-finite part and -0 + 0j at
            # -0 + 0j; the standard's table is C99's exp(z) - 1 there
            # (test_np_conformance.py checks its rows)
            want = np.where(np.isfinite(GRID) & (GRID != 0), want, np.exp(GRID) - 1)
    got = getattr(cnp, name)(cnp.asarray(GRID)).numpy()
    assert got.dtype == want.dtype
    _same(got, want)


@pytest.mark.parametrize("name", ["abs", "real", "imag", "isnan", "isinf", "isfinite"])
def test_real_valued_results_match_numpy(name):
    with np.errstate(all="ignore"):
        want = getattr(np, name)(GRID)
    got = getattr(cnp, name)(cnp.asarray(GRID)).numpy()
    assert got.dtype == want.dtype
    np.testing.assert_array_equal(got, want)
    np.testing.assert_array_equal(np.signbit(got), np.signbit(want))


def test_standard_special_values():
    # a few entries of the standard's tables, spelled out
    c = cnp.asarray
    assert cnp.exp(c([complex(0.0, 0.0)])).item() == 1 + 0j
    z = cnp.sqrt(c([complex(-0.0, 0.0)])).numpy()[0]
    assert z == 0 and not np.signbit(z.real) and not np.signbit(z.imag)
    z = cnp.log(c([complex(-0.0, 0.0)])).numpy()[0]
    assert z.real == -math.inf and z.imag == math.pi
    z = cnp.sqrt(c([complex(1.0, math.inf)])).numpy()[0]
    assert z.real == math.inf and z.imag == math.inf
    z = cnp.exp(c([complex(-math.inf, math.nan)])).numpy()[0]
    assert z == 0


def test_sign_is_z_over_abs_with_the_standards_nan_rule():
    with np.errstate(all="ignore"):
        quotient = GRID / np.abs(GRID)
    want = np.where(GRID == 0, 0j, quotient)
    # the standard: a NaN component gives NaN + NaN j (NumPy 2 answers +-1 for inf + nan j)
    want = np.where(np.isnan(GRID.real) | np.isnan(GRID.imag), complex(math.nan, math.nan), want)
    got = cnp.sign(cnp.asarray(GRID)).numpy()
    finite = np.isfinite(GRID)
    _same_where(got[finite], want[finite])
    assert np.isnan(got[np.isnan(GRID)]).all()


def _same_where(got, want):
    np.testing.assert_allclose(got, want, rtol=1e-15, atol=0)


@pytest.mark.parametrize("name", ["add", "subtract", "multiply", "divide", "pow", "equal",
                                  "not_equal"])
@pytest.mark.parametrize("dt", COMPLEX)
def test_binary_values_match_numpy(name, dt):
    rng = np.random.default_rng(3)
    a = (rng.standard_normal((3, 4)) + 1j * rng.standard_normal((3, 4))).astype(dt)
    b = (rng.standard_normal(4) + 1j * rng.standard_normal(4)).astype(dt)
    b[1] = a[0, 1]                            # some equal pairs for equal/not_equal
    want = getattr(np, NP_NAME.get(name, name))(a, b)
    got = getattr(cnp, name)(cnp.asarray(a), cnp.asarray(b)).numpy()
    assert got.dtype == want.dtype
    tol = 1e-5 if dt == "complex64" else 1e-12
    np.testing.assert_allclose(got, want, rtol=tol, atol=tol)
    # mixed with a real array and a Python complex scalar
    r = rng.standard_normal(4).astype(np.float32)
    np.testing.assert_allclose(getattr(cnp, name)(cnp.asarray(a), cnp.asarray(r)).numpy(),
                               getattr(np, NP_NAME.get(name, name))(a, r), rtol=tol, atol=tol)
    np.testing.assert_allclose(getattr(cnp, name)(cnp.asarray(a), 0.5 - 2j).numpy(),
                               getattr(np, NP_NAME.get(name, name))(a, 0.5 - 2j), rtol=tol, atol=tol)


def test_round_rounds_both_components():
    z = np.array([1.25 + 2.55j, -0.5 - 1.5j])
    np.testing.assert_array_equal(cnp.round(cnp.asarray(z), decimals=1).numpy(), np.round(z, 1))
    np.testing.assert_array_equal(cnp.round(cnp.asarray(z)).numpy(), np.round(z))


# ------------------------------------------------------------ reductions and linalg

_rng = np.random.default_rng(11)
Z = _rng.standard_normal((3, 4)) + 1j * _rng.standard_normal((3, 4))
W = _rng.standard_normal((4, 2)) + 1j * _rng.standard_normal((4, 2))


@pytest.mark.parametrize("name", ["sum", "prod", "mean"])
@pytest.mark.parametrize("axis", [None, 0, 1])
def test_reductions(name, axis):
    got = getattr(cnp, name)(cnp.asarray(Z), axis=axis)
    want = getattr(np, name)(Z, axis=axis)
    assert got.numpy().dtype == want.dtype
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


def test_vecdot_conjugates_first_argument_and_matmul():
    v = Z[0]
    np.testing.assert_allclose(cnp.vecdot(cnp.asarray(Z), cnp.asarray(v)).numpy(), np.vecdot(Z, v))
    np.testing.assert_allclose(cnp.linalg.vecdot(cnp.asarray(Z), cnp.asarray(v)).numpy(),
                               np.sum(np.conj(Z) * v, axis=-1))
    np.testing.assert_allclose(cnp.matmul(cnp.asarray(Z), cnp.asarray(W)).numpy(), Z @ W)
    np.testing.assert_allclose(cnp.matmul(cnp.asarray(Z), cnp.asarray(W.real)).numpy(), Z @ W.real)


@pytest.mark.parametrize("ord", [None, 1, 2, math.inf, -math.inf, 0, 3])
def test_vector_norm_is_real(ord):
    got = cnp.linalg.vector_norm(cnp.asarray(Z), axis=1, ord=2 if ord is None else ord)
    want = np.linalg.vector_norm(Z, axis=1, ord=2 if ord is None else ord)
    assert got.numpy().dtype == want.dtype == np.float64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)


@pytest.mark.parametrize("ord", ["fro", "nuc", 1, -1, 2, -2, math.inf, -math.inf])
def test_matrix_norm_and_norm_are_real(ord):
    got = cnp.linalg.matrix_norm(cnp.asarray(Z), ord=ord)
    want = np.linalg.matrix_norm(Z, ord=ord)
    assert got.numpy().dtype == np.float64
    np.testing.assert_allclose(got.numpy(), want, rtol=1e-12)
    np.testing.assert_allclose(cnp.linalg.norm(cnp.asarray(Z)).numpy(), np.linalg.norm(Z))


# ------------------------------------------------------------------------- gradients

def _leaf(a):
    return cygrad.from_numpy(np.array(a, dtype=np.complex128)).requires_grad_()


@pytest.mark.parametrize("name", ["exp", "log", "sqrt", "sin", "tanh", "asin", "asinh", "acosh",
                                  "atanh", "square", "abs", "real", "imag", "conj", "sign"])
def test_gradcheck_unary(name):
    x = _leaf([0.3 + 0.4j, -1.2 + 0.7j, 0.8 - 0.5j])
    assert gradcheck(getattr(cnp, name), (x,))


def test_gradcheck_products_and_norms():
    a, b = _leaf(Z[:2, :3]), _leaf(W[:3])
    assert gradcheck(cnp.matmul, (a, b))
    assert gradcheck(lambda p, q: cnp.vecdot(p, q.T[:1]), (a, b))
    assert gradcheck(lambda p: cnp.linalg.vector_norm(p, axis=1), (a,))
    assert gradcheck(lambda p: cnp.linalg.matrix_norm(p), (a,))
    assert gradcheck(lambda p, q: cnp.divide(p, q.T[:1]) + cnp.pow(p, 2), (a, b))
    assert gradcheck(lambda p: cnp.sum(p, axis=0) * cnp.mean(p), (a,))
