"""Regression tests for the array-API conformance fixes of ``cygrad.numpy``: each
checks the standard's text (its special-case tables, result dtypes and shapes),
NumPy where NumPy agrees, and that ``cygrad``'s own functions keep PyTorch's
answer where the two differ (docs/numpy.md, "What differs from NumPy")."""
import math
import warnings

import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp

INF, NAN = math.inf, math.nan


def _same(got, want):
    """Equal values with equal signs of zero, NaN equal to NaN (complex: per part)."""
    if isinstance(want, complex):
        return _same(got.real, want.real) and _same(got.imag, want.imag)
    if math.isnan(want):
        return math.isnan(got)
    return got == want and math.copysign(1, got) == math.copysign(1, want)


# ------------------------------------------------------------------ floor_divide

# (x1, x2, the standard's result) for an infinite operand: its floor(x1 / x2) rows
FLOOR_DIVIDE_CASES = [
    (INF, 3.0, INF), (INF, -3.0, -INF), (-INF, 3.0, -INF), (-INF, -3.0, INF),
    (2.5, INF, 0.0), (2.5, -INF, -0.0), (-2.5, INF, -0.0), (-2.5, -INF, 0.0),
    (0.0, INF, 0.0), (-0.0, INF, -0.0), (0.0, -INF, -0.0), (-0.0, -INF, 0.0),
    (INF, INF, NAN), (-INF, INF, NAN), (NAN, INF, NAN), (INF, NAN, NAN),
    # finite operands: unchanged, NumPy's values
    (7.0, 2.0, 3.0), (-7.0, 2.0, -4.0), (7.0, -0.0, -INF), (0.0, 0.0, NAN),
]


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_floor_divide_infinite_operands_follow_the_standard(dtype):
    x1 = cnp.asarray([c[0] for c in FLOOR_DIVIDE_CASES], dtype=getattr(cnp, dtype))
    x2 = cnp.asarray([c[1] for c in FLOOR_DIVIDE_CASES], dtype=getattr(cnp, dtype))
    got = cnp.floor_divide(x1, x2)
    assert got.dtype == getattr(cnp, dtype)
    for (a, b, want), g in zip(FLOOR_DIVIDE_CASES, got.tolist()):
        assert _same(g, want), (a, b, g, want)
    # a Python number as the divisor takes the same path
    assert _same(cnp.floor_divide(cnp.asarray([-2.5]), INF).item(), -0.0)
    assert _same(cnp.floor_divide(cnp.asarray([INF]), 2.0).item(), INF)


def test_floor_divide_finite_values_match_numpy():
    rng = np.random.default_rng(0)
    a = rng.standard_normal(200) * 10
    b = rng.standard_normal(200)
    np.testing.assert_array_equal(cnp.floor_divide(cnp.asarray(a), cnp.asarray(b)).numpy(),
                                  np.floor_divide(a, b))
    # integers: NumPy's 0 for a zero divisor is kept
    assert cnp.floor_divide(cnp.asarray([7, -7]), cnp.asarray([2, 0])).tolist() == [3, 0]


def test_cygrad_floor_divide_keeps_pytorchs_nan():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for cygrad's own op")
    a, b = [INF, 2.5, -2.5], [3.0, -INF, INF]
    want = torch.floor_divide(torch.tensor(a, dtype=torch.float64),
                              torch.tensor(b, dtype=torch.float64)).tolist()
    got = cygrad.floor_divide(cygrad.tensor(a, dtype=cygrad.float64),
                              cygrad.tensor(b, dtype=cygrad.float64)).tolist()
    assert all(_same(g, w) for g, w in zip(got, want)), (got, want)
    assert math.isnan(got[0]) and got[1] == -1.0


# ------------------------------------------------------------------ complex expm1

# the standard's table for complex expm1 (a = real part, b = imaginary part); for
# the cases whose sign of a zero part is unspecified only the rest is checked
EXPM1_CASES = [
    (complex(0.0, 0.0), complex(0.0, 0.0), True),
    (complex(-0.0, 0.0), complex(0.0, 0.0), True),   # "0 + 0j" for either zero (NumPy: -0)
    (complex(0.0, -0.0), complex(0.0, -0.0), True),   # expm1(conj(z)) == conj(expm1(z))
    (complex(1.0, INF), complex(NAN, NAN), True),
    (complex(1.0, NAN), complex(NAN, NAN), True),
    (complex(INF, 0.0), complex(INF, 0.0), True),
    (complex(-INF, 1.0), complex(0.0 * math.cos(1.0) - 1.0, 0.0 * math.sin(1.0)), True),
    (complex(INF, 1.0), complex(INF, INF), True),
    (complex(-INF, INF), complex(-1.0, 0.0), False),
    (complex(INF, INF), complex(INF, NAN), False),
    (complex(-INF, NAN), complex(-1.0, 0.0), False),
    (complex(INF, NAN), complex(INF, NAN), False),
    (complex(NAN, 0.0), complex(NAN, 0.0), True),
    (complex(NAN, 1.0), complex(NAN, NAN), True),
    (complex(NAN, NAN), complex(NAN, NAN), True),
]


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_expm1_special_cases_follow_the_standard(dtype):
    z = cnp.asarray([c[0] for c in EXPM1_CASES], dtype=getattr(cnp, dtype))
    got = cnp.expm1(z)
    assert got.dtype == getattr(cnp, dtype)
    for (x, want, signed), g in zip(EXPM1_CASES, got.tolist()):
        if signed:
            assert _same(g, want), (x, g, want)
        else:
            assert _same(abs(g.real) if want.real == 0 else g.real, abs(want.real)
                         if want.real == 0 else want.real), (x, g, want)
            imag_ok = math.isnan(g.imag) if math.isnan(want.imag) else abs(g.imag) == abs(want.imag)
            assert imag_ok, (x, g, want)


def test_complex_expm1_finite_values_match_numpy_and_real_is_unchanged():
    rng = np.random.default_rng(1)
    z = rng.standard_normal(50) + 1j * rng.standard_normal(50)
    z[:5] *= 1e-9   # where expm1 is more accurate than exp - 1
    np.testing.assert_allclose(cnp.expm1(cnp.asarray(z)).numpy(), np.expm1(z), rtol=1e-14)
    x = np.array([-INF, -1e-10, 0.0, 1.0, INF, NAN])
    np.testing.assert_allclose(cnp.expm1(cnp.asarray(x)).numpy(), np.expm1(x), rtol=1e-15)
    assert cnp.expm1([0, 1]).dtype == cnp.float64


def test_complex_expm1_is_differentiable():
    z = cnp.asarray([0.5 + 0.25j, -1.0 + 2.0j]).requires_grad_()
    assert cygrad.autograd.gradcheck(cnp.expm1, (z,))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
def test_complex_tanh_special_cases_follow_the_standard(dtype):
    # the standard's table (the rows with an unspecified sign are left out)
    cases = [(complex(0.0, 0.0), complex(0.0, 0.0)), (complex(1.0, INF), complex(NAN, NAN)),
             (complex(0.0, INF), complex(0.0, NAN)), (complex(1.0, NAN), complex(NAN, NAN)),
             (complex(0.0, NAN), complex(0.0, NAN)), (complex(INF, 1.0), complex(1.0, 0.0)),
             (complex(NAN, 0.0), complex(NAN, 0.0)), (complex(NAN, 1.0), complex(NAN, NAN)),
             (complex(NAN, NAN), complex(NAN, NAN)), (complex(-0.0, INF), complex(-0.0, NAN)),
             (complex(-INF, 1.0), complex(-1.0, 0.0))]
    got = cnp.tanh(cnp.asarray([c[0] for c in cases], dtype=getattr(cnp, dtype))).tolist()
    for (x, want), g in zip(cases, got):
        assert _same(g, want), (x, g, want)


# ------------------------------------------------------------ result dtypes

@pytest.mark.parametrize("dtype", ["uint8", "int8", "int16", "int32"])
def test_sum_prod_and_scans_with_dtype_return_that_dtype(dtype):
    dt = getattr(cnp, dtype)
    x = cnp.asarray([3, 100, 2], dtype=dt)
    a = np.array([3, 100, 2], dtype=dtype)
    for got, want in [(cnp.sum(x, dtype=dt), np.sum(a, dtype=dtype)),
                      (cnp.prod(x, dtype=dt), np.prod(a, dtype=dtype)),
                      (cnp.sum(x.reshape(1, 3), axis=1, dtype=dt),
                       np.sum(a.reshape(1, 3), axis=1, dtype=dtype)),
                      (cnp.cumulative_sum(x, dtype=dt), np.cumulative_sum(a, dtype=dtype)),
                      (cnp.cumulative_prod(x, dtype=dt, include_initial=True),
                       np.cumulative_prod(a, dtype=dtype, include_initial=True))]:
        assert got.dtype == dt
        np.testing.assert_array_equal(got.numpy(), want)   # wrapped as NumPy wraps
    # without dtype= integers still accumulate in int64
    assert cnp.sum(x).dtype == cnp.int64


def test_vecdot_keeps_the_promoted_integer_dtype():
    x = cnp.asarray([[3, 200], [1, 2]], dtype=cnp.uint8)
    got = cnp.vecdot(x, x)
    assert got.dtype == cnp.uint8
    a = np.array([[3, 200], [1, 2]], dtype=np.uint8)
    np.testing.assert_array_equal(got.numpy(), np.vecdot(a, a))
    assert cnp.vecdot(x, cnp.asarray([1, 1], dtype=cnp.int8)).dtype == cnp.int16


def test_any_all_of_uint8_are_bool():
    x = cnp.asarray([[0, 3], [0, 0]], dtype=cnp.uint8)
    for fn in (cnp.any, cnp.all):
        for axis in (None, 0, 1, ()):
            got = fn(x, axis=axis)
            assert got.dtype == cnp.bool
            want = getattr(np, fn.__name__)(x.numpy(), axis=axis)
            np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("fn", ["var", "std"])
@pytest.mark.parametrize("correction", [0, 1])
def test_var_std_over_no_axis_keep_the_shape(fn, correction):
    a = np.array([[1.0, INF], [2.0, -3.0]])
    got = getattr(cnp, fn)(cnp.asarray(a), axis=(), correction=correction, keepdims=True)
    with np.errstate(all="ignore"), warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # NumPy's "degrees of freedom <= 0"
        want = getattr(np, fn)(a, axis=(), ddof=correction, keepdims=True)
    assert tuple(got.shape) == want.shape
    np.testing.assert_array_equal(got.numpy(), want)


# ------------------------------------------------------------ creation, shapes

@pytest.mark.parametrize("args", [(0, 1, -1), (5, 1, 2), (1.0, 0.0, 0.5), (3, 3, 1), (-2, -5, 1)])
def test_arange_with_a_step_away_from_stop_is_empty(args):
    got = cnp.arange(*args)
    want = np.arange(*args)
    assert got.shape == (0,) and got.dtype.name == want.dtype.name


def test_cygrad_arange_still_raises_like_pytorch():
    with pytest.raises(RuntimeError, match="inconsistent with step sign"):
        cygrad.arange(0, 1, -1)


@pytest.mark.parametrize("start,stop,num", [(0.0, 1.0, 3), (-1e300, 1e300, 7), (1e15, 1e15 + 9, 10),
                                            (5.0, -3.0, 1), (0.0, 1.0, 0)])
def test_linspace_without_endpoint_is_the_start_of_one_with_it(start, stop, num):
    got = cnp.linspace(start, stop, num, endpoint=False)
    want = cnp.linspace(start, stop, num + 1, endpoint=True)[:num]
    np.testing.assert_array_equal(got.numpy(), want.numpy())
    np.testing.assert_allclose(got.numpy(), np.linspace(start, stop, num, endpoint=False),
                               rtol=1e-15)


def test_broadcast_arrays_of_0d_arrays():
    a, = cnp.broadcast_arrays(cnp.asarray(False))
    assert a.shape == () and a.item() is False
    b, c = cnp.broadcast_arrays(cnp.asarray(1.0), cnp.asarray(2))
    assert b.shape == c.shape == ()
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for cygrad's own op")
    assert cygrad.broadcast_tensors(cygrad.tensor(3))[0].shape == \
        torch.broadcast_tensors(torch.tensor(3))[0].shape


def test_reshape_to_many_dimensions():
    x = cnp.asarray(True)
    got = cnp.reshape(x, (1,) * 40)
    assert got.shape == (1,) * 40 and got.item() is True
    assert cnp.reshape(cnp.arange(6), (1,) * 30 + (2, 3)).shape == np.arange(6).reshape(
        (1,) * 30 + (2, 3)).shape


def test_vecdot_does_not_broadcast_the_contracted_axis():
    with pytest.raises(ValueError):
        np.vecdot(np.zeros(0), np.zeros(1))         # NumPy refuses it too
    for shapes in [((0,), (1,)), ((2, 3), (1,)), ((3, 2), (3, 1))]:
        with pytest.raises(ValueError, match="contracted axis"):
            cnp.vecdot(cnp.zeros(shapes[0]), cnp.zeros(shapes[1]))
    a = np.random.default_rng(3).standard_normal((4, 3, 2))
    b = np.random.default_rng(4).standard_normal((3, 2))
    np.testing.assert_allclose(cnp.vecdot(cnp.asarray(a), cnp.asarray(b), axis=-2).numpy(),
                               np.vecdot(a, b, axis=-2))


@pytest.mark.parametrize("dtype", ["complex64", "complex128"])
@pytest.mark.parametrize("index", ["mask", "indices"])
def test_writing_complex_numbers_through_an_advanced_index(dtype, index):
    # was a TypeError (and a real number was truncated to an integer)
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for indexing writes")
    for value in [2 + 1j, 1.5, -1.5j, 3]:
        x = cygrad.zeros(3, dtype=getattr(cygrad, dtype))
        y = torch.zeros(3, dtype=getattr(torch, dtype))
        if index == "mask":
            x[cygrad.tensor([True, False, True])] = value
            y[torch.tensor([True, False, True])] = value
        else:
            x[cygrad.tensor([0, 2])] = value
            y[torch.tensor([0, 2])] = value
        assert x.tolist() == y.tolist()
    e = cnp.zeros(0, dtype=getattr(cnp, dtype))
    e[cnp.zeros(0, dtype=cnp.bool)] = 0j
    assert e.shape == (0,)


def test_clip_with_a_number_and_an_array_bound():
    # cygrad.clamp takes two numbers or two tensors (PyTorch's overloads); clip mixes
    cases = [(np.asarray(0, dtype=np.uint8), 0, np.asarray([], dtype=np.uint8)),
             (np.asarray([1.0, 5.0, -3.0]), np.zeros(3), 2.0),
             (np.asarray([1, 5, -3]), -1, np.asarray(4)),
             (np.asarray(7), np.asarray(2), np.asarray([3, 9]))]
    for x, lo, hi in cases:
        conv = (lambda b: cnp.asarray(b) if isinstance(b, np.ndarray) else b)
        got = cnp.clip(cnp.asarray(x), min=conv(lo), max=conv(hi))
        want = np.clip(x, lo, hi)
        assert got.dtype.name == x.dtype.name and tuple(got.shape) == want.shape
        np.testing.assert_array_equal(got.numpy(), want)
