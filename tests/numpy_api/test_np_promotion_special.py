"""The standard's type promotion table, checked against NumPy's, and the IEEE special
cases of elementwise functions that the standard prescribes."""
import itertools
import math

import numpy as np
import pytest

import cygrad
import cygrad.numpy as cnp

DTYPES = [cnp.bool, cnp.int8, cnp.int16, cnp.int32, cnp.int64, cnp.uint8, cnp.float16,
          cnp.float32, cnp.float64]


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)),
                         ids=lambda d: d.name if hasattr(d, "name") else str(d))
def test_result_type_matches_numpy(a, b):
    expected = np.promote_types(a.np_dtype, b.np_dtype)
    assert cnp.result_type(a, b).np_dtype == expected
    # and the arithmetic really produces it
    x = cnp.ones(2, dtype=a)
    y = cnp.ones(2, dtype=b)
    if a is cnp.bool and b is cnp.bool:
        assert cnp.logical_and(x, y).dtype is cnp.bool
    else:
        assert cnp.multiply(x, y).np_dtype == expected if hasattr(cnp.multiply(x, y), "np_dtype") \
            else cnp.multiply(x, y).dtype.np_dtype == expected


def test_standard_table_entries():
    # rows of the standard's table that PyTorch's promotion answers differently
    assert cnp.result_type(cnp.int64, cnp.float32) is cnp.float64
    assert cygrad.result_type(cygrad.ones(1, dtype=cygrad.int64),
                              cygrad.ones(1, dtype=cygrad.float32)) is cygrad.float32
    assert cnp.result_type(cnp.uint8, cnp.int8) is cnp.int16
    assert cnp.result_type(cnp.uint8, cnp.int64) is cnp.int64
    assert cnp.result_type(cnp.int16, cnp.float16) is cnp.float32


@pytest.mark.parametrize("dtype", DTYPES, ids=lambda d: d.name)
@pytest.mark.parametrize("scalar", [True, 3, 2.5])
def test_python_scalars_follow_numpy(dtype, scalar):
    expected = np.result_type(np.ones(1, dtype.np_dtype), scalar)
    assert cnp.result_type(dtype, scalar).np_dtype == expected
    x = cnp.ones(3, dtype=dtype)
    if dtype is not cnp.bool or isinstance(scalar, bool):
        assert (cnp.multiply(x, scalar)).dtype.np_dtype == (np.ones(3, dtype.np_dtype) * scalar).dtype


def test_scalar_out_of_range_raises_as_numpy():
    with pytest.raises(OverflowError):
        cnp.add(cnp.ones(2, dtype=cnp.int8), 300)
    with pytest.raises(OverflowError):
        np.add(np.ones(2, np.int8), 300)


@pytest.mark.parametrize("a,b", list(itertools.product(DTYPES, DTYPES)),
                         ids=lambda d: d.name if hasattr(d, "name") else str(d))
def test_can_cast_matches_numpy_safe_casting(a, b):
    assert cnp.can_cast(a, b) == np.can_cast(a.np_dtype, b.np_dtype, casting="safe")


def test_isdtype_finfo_iinfo():
    assert cnp.isdtype(cnp.uint8, "unsigned integer") and not cnp.isdtype(cnp.uint8, "signed integer")
    assert cnp.isdtype(cnp.float32, ("integral", "real floating"))
    assert not cnp.isdtype(cnp.bool, "numeric")
    with pytest.raises(ValueError):
        cnp.isdtype(cnp.int8, "integer")
    for dt in (cnp.float16, cnp.float32, cnp.float64):
        f, ref = cnp.finfo(dt), np.finfo(dt.np_dtype)
        assert (f.bits, f.eps, f.max, f.min, f.smallest_normal) == (
            ref.bits, float(ref.eps), float(ref.max), float(ref.min), float(ref.smallest_normal))
    for dt in (cnp.int8, cnp.int16, cnp.int32, cnp.int64, cnp.uint8):
        i, ref = cnp.iinfo(dt), np.iinfo(dt.np_dtype)
        assert (i.bits, i.min, i.max) == (ref.bits, ref.min, ref.max)
    with pytest.raises(ValueError):
        cnp.finfo(cnp.int32)


def _val(t):
    return t.item()


def _same_float(a, b):
    if math.isnan(b):
        return math.isnan(a)
    return a == b and math.copysign(1, a) == math.copysign(1, b)


NAN, INF = math.nan, math.inf
# (function name, args, expected): each expected value is what the standard's
# special-case list (2024.12) prescribes
SPECIAL = [
    ("sqrt", (-0.0,), -0.0), ("sqrt", (-1.0,), NAN), ("sqrt", (INF,), INF),
    ("log", (0.0,), -INF), ("log", (-0.0,), -INF), ("log", (-1.0,), NAN), ("log", (1.0,), 0.0),
    ("log1p", (-1.0,), -INF), ("log1p", (-0.0,), -0.0), ("log2", (0.0,), -INF),
    ("log10", (INF,), INF), ("exp", (-INF,), 0.0), ("expm1", (-0.0,), -0.0), ("expm1", (-INF,), -1.0),
    ("sign", (NAN,), NAN), ("sign", (-0.0,), 0.0), ("sign", (0.0,), 0.0),
    ("sin", (-0.0,), -0.0), ("sin", (INF,), NAN), ("tan", (-0.0,), -0.0), ("cos", (INF,), NAN),
    ("tanh", (-0.0,), -0.0), ("tanh", (INF,), 1.0), ("sinh", (-INF,), -INF), ("cosh", (-INF,), INF),
    ("asinh", (-0.0,), -0.0), ("asinh", (-INF,), -INF), ("acosh", (0.5,), NAN), ("acosh", (1.0,), 0.0),
    ("acosh", (INF,), INF), ("atanh", (1.0,), INF), ("atanh", (-1.0,), -INF), ("atanh", (-0.0,), -0.0),
    ("atanh", (2.0,), NAN), ("asin", (-0.0,), -0.0), ("acos", (2.0,), NAN), ("atan", (-INF,), -math.pi / 2),
    ("floor", (-0.0,), -0.0), ("ceil", (-0.5,), -0.0), ("trunc", (-0.5,), -0.0), ("round", (-0.5,), -0.0),
    ("round", (2.5,), 2.0), ("abs", (-0.0,), 0.0), ("square", (NAN,), NAN), ("cbrt", (-0.0,), -0.0),
    ("cbrt", (-INF,), -INF),
    ("maximum", (NAN, 1.0), NAN), ("maximum", (1.0, NAN), NAN), ("minimum", (NAN, 1.0), NAN),
    ("floor_divide", (1.0, 0.0), INF), ("floor_divide", (-1.0, 0.0), -INF),
    ("floor_divide", (0.0, 0.0), NAN), ("remainder", (1.0, 0.0), NAN), ("remainder", (INF, 2.0), NAN),
    ("divide", (1.0, -0.0), -INF), ("divide", (0.0, 0.0), NAN),
    ("pow", (NAN, 0.0), 1.0), ("pow", (1.0, NAN), 1.0), ("pow", (-0.0, -3.0), -INF),
    ("pow", (0.0, -2.0), INF), ("pow", (-1.0, INF), 1.0),
    ("atan2", (0.0, -0.0), math.pi), ("atan2", (-0.0, -0.0), -math.pi), ("atan2", (-0.0, 0.0), -0.0),
    ("atan2", (INF, INF), math.pi / 4), ("hypot", (INF, NAN), INF), ("hypot", (NAN, -INF), INF),
    ("logaddexp", (-INF, -INF), -INF), ("logaddexp", (INF, INF), INF), ("logaddexp", (NAN, 1.0), NAN),
    ("logaddexp", (INF, -INF), INF), ("copysign", (2.0, -0.0), -2.0), ("copysign", (-2.0, 0.0), 2.0),
    ("nextafter", (0.0, -1.0), -5e-324), ("nextafter", (1.0, NAN), NAN), ("nextafter", (2.0, 2.0), 2.0),
    ("signbit", (-0.0,), True), ("signbit", (0.0,), False), ("signbit", (-NAN,), True),
]


@pytest.mark.parametrize("name,args,expected", SPECIAL,
                         ids=[f"{n}{a}" for n, a, _ in SPECIAL])
def test_special_cases(name, args, expected):
    ours = getattr(cnp, name)(*[cnp.asarray([a]) for a in args]).item()
    assert _same_float(float(ours), float(expected)), f"{name}{args} = {ours}, expected {expected}"
    with np.errstate(all="ignore"):
        ref = getattr(np, name)(*[np.asarray([a]) for a in args]).item()
    assert _same_float(float(ref), float(expected)), "NumPy disagrees: the expected value is wrong"


def test_integer_division_by_zero_gives_zero_as_numpy():
    a, b = np.array([7, -7, 0]), np.array([0, 0, 0])
    with np.errstate(all="ignore"):
        for name in ("floor_divide", "remainder", "fmod"):
            ref = getattr(np, name)(a, b)
            np.testing.assert_array_equal(getattr(cnp, name)(cnp.asarray(a), cnp.asarray(b)).numpy(), ref)


def test_errors_as_numpy():
    with pytest.raises(ValueError):
        cnp.pow(cnp.asarray([2]), cnp.asarray([-1]))
    with pytest.raises(ValueError):
        cnp.squeeze(cnp.ones((2, 1)), axis=0)
    with pytest.raises(ValueError):
        cnp.max(cnp.ones((0,)))
    with pytest.raises(ValueError):
        cnp.asarray([1.0, 2.0], dtype=cnp.float32, copy=False)
    with pytest.raises(IndexError):
        cnp.take(cnp.ones(3), cnp.asarray([3]))
    with pytest.raises(TypeError):
        cnp.bitwise_and(cnp.ones(2), cnp.ones(2))
    with pytest.raises(ValueError):
        cnp.nonzero(cnp.asarray(1.0))


def test_namespace_metadata():
    assert cnp.__array_api_version__ == "2024.12"
    assert (cnp.e, cnp.pi, cnp.inf) == (math.e, math.pi, math.inf) and math.isnan(cnp.nan)
    assert cnp.newaxis is None
    x = cnp.ones((2, 3))
    assert x[:, cnp.newaxis].shape == (2, 1, 3)
    info = cnp.__array_namespace_info__()
    assert set(info.capabilities()) == {"boolean indexing", "data-dependent shapes", "max dimensions"}
    assert info.default_dtypes()["real floating"] is cnp.asarray([1.0]).dtype
    assert info.default_dtypes()["integral"] is cnp.asarray([1]).dtype
    assert info.default_device() in info.devices()
    assert set(info.dtypes(kind="numeric")) == {"int8", "int16", "int32", "int64", "uint8",
                                                "float32", "float64", "complex64", "complex128"}


def test_asarray_copy_semantics():
    a = np.arange(3.0)
    shared = cnp.asarray(a, copy=False)
    a[0] = 9.0
    assert shared[0].item() == 9.0
    copied = cnp.asarray(a, copy=True)
    a[1] = 7.0
    assert copied[1].item() == 1.0
    t = cnp.asarray([1.0, 2.0])
    assert cnp.asarray(t) is t
    assert cnp.asarray(t, copy=True) is not t
    assert cnp.astype(t, cnp.float64, copy=False) is t
