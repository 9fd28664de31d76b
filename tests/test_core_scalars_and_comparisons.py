"""Comparisons/logical ops of the core (C kernels with a bool result) against NumPy,
for every dtype, NaN, broadcasting and non-contiguous layouts; and Python numbers
beside a tensor (wrapping, overflow, half precision, one-element half fills, clamp
with number bounds) against PyTorch."""
import warnings

import numpy as np
import pytest

import cygrad

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64"]
COMPARISONS = {"eq": np.equal, "ne": np.not_equal, "lt": np.less, "le": np.less_equal,
               "gt": np.greater, "ge": np.greater_equal, "logical_and": np.logical_and,
               "logical_or": np.logical_or, "logical_xor": np.logical_xor}


def _values(rng, dtype, shape):
    """Small values with many ties (so eq/le/ge see equal pairs), zeros (for the
    logical ops) and, for floating dtypes, NaN, infinities and -0.0."""
    np_dtype = getattr(cygrad, dtype).np_dtype
    if dtype == "bool":
        return rng.integers(0, 2, shape).astype(bool)
    if dtype == "uint8":
        return rng.integers(0, 4, shape).astype(np_dtype)
    if dtype.startswith("int"):
        return rng.integers(-2, 3, shape).astype(np_dtype)
    x = rng.integers(-2, 3, shape).astype(np.float64) / 2
    flat = x.reshape(-1)
    specials = [np.nan, np.inf, -np.inf, -0.0]
    picks = rng.choice(flat.size, size=min(flat.size, 2 * len(specials)), replace=False)
    for k, i in enumerate(picks):
        flat[i] = specials[k % len(specials)]
    return x.astype(np_dtype)


def _t(arr):
    return cygrad.from_numpy(np.ascontiguousarray(arr))


def _ref(fn, *args):
    with np.errstate(invalid="ignore"):     # (ml_dtypes warns on NaN comparisons)
        return fn(*args)


def _check(res, expected):
    assert res.dtype is cygrad.bool
    assert tuple(res.shape) == expected.shape
    np.testing.assert_array_equal(res.numpy(), expected)


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_same_shape_contiguous_matches_numpy(name, dtype, rng):
    a, b = _values(rng, dtype, (5, 7)), _values(rng, dtype, (5, 7))
    _check(getattr(cygrad, name)(_t(a), _t(b)), _ref(COMPARISONS[name], a, b))
    # the same tensor on both sides: NaN != NaN
    _check(getattr(cygrad, name)(_t(a), _t(a)), _ref(COMPARISONS[name], a, a))


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name", sorted(COMPARISONS))
def test_broadcast_and_non_contiguous_match_numpy(name, dtype, rng):
    fn, ref = getattr(cygrad, name), COMPARISONS[name]
    a, b = _values(rng, dtype, (4, 1)), _values(rng, dtype, (1, 6))
    _check(fn(_t(a), _t(b)), _ref(ref, a, b))
    base_a, base_b = _values(rng, dtype, (6, 8)), _values(rng, dtype, (8, 6))
    ta = _t(base_a)[::2, ::-1]               # step and negative strides
    tb = _t(base_b).t()[1::2, :]             # transposed, then sliced
    _check(fn(ta, tb), _ref(ref, base_a[::2, ::-1], base_b.T[1::2, :]))
    zero_d = _values(rng, dtype, ())
    _check(fn(ta, _t(zero_d)), _ref(ref, base_a[::2, ::-1], zero_d))


@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32",
                                   "float64"])
def test_operators_with_a_python_number_match_numpy(dtype, rng):
    a = _values(rng, dtype, (3, 5))
    t = _t(a)
    if dtype == "bool":
        scalars = [True, False]
    elif dtype.startswith(("int", "uint")):
        scalars = [1, 0]
    else:
        scalars = [0.5, 0, float("nan"), float("inf")]
    for s in scalars:
        ref = np.asarray(s).astype(a.dtype)      # every scalar here is exact in the dtype
        _check(t > s, _ref(np.greater, a, ref))
        _check(s > t, _ref(np.greater, ref, a))        # reflected: t < s
        _check(t <= s, _ref(np.less_equal, a, ref))
        _check(t == s, _ref(np.equal, a, ref))
        _check(t != s, _ref(np.not_equal, a, ref))
        _check(cygrad.ge(t, s), _ref(np.greater_equal, a, ref))


@pytest.mark.parametrize("dtype", ["bool", "int8", "int64", "bfloat16", "float32", "float64"])
def test_logical_not_matches_numpy(dtype, rng):
    a = _values(rng, dtype, (4, 6))
    _check(cygrad.logical_not(_t(a)), np.logical_not(a))
    _check(cygrad.logical_not(_t(a)[:, ::-2]), np.logical_not(a[:, ::-2]))
    if dtype == "bool":
        _check(~_t(a), ~a)


@pytest.mark.parametrize("name", ["lt", "eq", "logical_xor"])
def test_large_inputs_use_every_path(name, rng):
    """Past the sizes where the kernels release the GIL and split work across threads."""
    a = rng.standard_normal((300, 200)).astype(np.float32)
    b = rng.standard_normal((300, 1)).astype(np.float32)
    a[::7, ::5] = np.nan
    b[::3] = a[::3, :1]
    fn, ref = getattr(cygrad, name), COMPARISONS[name]
    _check(fn(_t(a), _t(b)), _ref(ref, a, b))
    _check(fn(_t(a), _t(a.T.copy()).t()), ref(a, a))
    _check(fn(_t(a), _t(np.float32(0.25))), ref(a, np.float32(0.25)))


def test_comparison_of_tensors_that_require_grad():
    x = cygrad.tensor([-1.0, 0.0, 2.0], requires_grad=True)
    r = x > 0
    assert r.tolist() == [False, False, True]
    assert not r.requires_grad and r.grad_fn is None
    assert (x == x).tolist() == [True, True, True]


def test_comparison_out_argument_of_another_dtype(rng):
    a, b = _values(rng, "float32", (3, 4)), _values(rng, "float32", (3, 4))
    out = cygrad.empty((3, 4), dtype=cygrad.float64)
    cygrad.lt(_t(a), _t(b), out=out)
    np.testing.assert_array_equal(out.numpy(), np.less(a, b).astype(np.float64))
    out_b = cygrad.empty((3, 4), dtype=cygrad.bool)
    cygrad.ne(_t(a), _t(b), out=out_b)
    np.testing.assert_array_equal(out_b.numpy(), np.not_equal(a, b))


# --------------------------------------------------------- Python numbers vs PyTorch

def _tensors(L):
    return {"i32": L.tensor([1, 2], dtype=L.int32), "i64": L.tensor([1, 2]),
            "u8": L.tensor([1, 2], dtype=L.uint8), "i8": L.tensor([1, 2], dtype=L.int8),
            "f32": L.tensor([1.0, 2.0]), "f64": L.tensor([1.0, 2.0], dtype=L.float64),
            "h": L.tensor([0.0, 2.0]).half(), "bf": L.tensor([0.0, 2.0]).bfloat16(),
            "b": L.tensor([True, False]), "i32_0d": L.tensor(1, dtype=L.int32)}


SCALAR_CASES = {
    "int32_mul_wraps": lambda L, T: T["i32"] * 2 ** 31,
    "int32_add_wraps_twice": lambda L, T: T["i32"] + (2 ** 32 + 5),
    "int32_0d_add_wraps": lambda L, T: T["i32_0d"] + 2 ** 40,
    "int64_add_2_63_wraps": lambda L, T: T["i64"] + 2 ** 63,
    "int64_sub_2_63_wraps": lambda L, T: T["i64"] - 2 ** 63,
    "int64_add_2_64_minus_1_wraps": lambda L, T: T["i64"] + (2 ** 64 - 1),
    "int64_add_2_64_overflows": lambda L, T: T["i64"] + 2 ** 64,
    "float_add_2_64_overflows": lambda L, T: T["f32"] + 2 ** 64,
    "float_add_minus_2_64_overflows": lambda L, T: T["f64"] - (-2 ** 64),
    "float_add_minus_2_63_minus_1_overflows": lambda L, T: T["f64"] + (-2 ** 63 - 1),
    "int_gt_minus_2_64_overflows": lambda L, T: T["i64"] > -2 ** 64,
    "float_add_2_63": lambda L, T: T["f32"] + 2 ** 63,
    "int8_mul_wraps": lambda L, T: T["i8"] * 200,
    "uint8_mul_minus_1": lambda L, T: T["u8"] * -1,
    "uint8_floordiv_256": lambda L, T: T["u8"] // 256,
    "uint8_mod_256": lambda L, T: T["u8"] % 256,
    "uint8_floordiv_minus_256": lambda L, T: T["u8"] // -256,
    "uint8_floordiv_256_function": lambda L, T: L.floor_divide(T["u8"], 256),
    "int32_gt_wraps": lambda L, T: T["i32"] > 2 ** 31,
    "int32_eq_wraps": lambda L, T: T["i32"] == 2 ** 32 + 1,
    "int64_gt_2_63": lambda L, T: T["i64"] > 2 ** 63,
    "int64_eq_2_64_minus_1": lambda L, T: T["i64"] == 2 ** 64 - 1,
    "int_lt_2_70_overflows": lambda L, T: T["i32"] < 2 ** 70,
    "uint8_gt_256": lambda L, T: T["u8"] > 256,
    "uint8_gt_minus_1": lambda L, T: T["u8"] > -1,
    "uint8_eq_257_function": lambda L, T: L.eq(T["u8"], 257),
    "float64_gt_2_63": lambda L, T: T["f64"] > 2 ** 63,
    "int_gt_float": lambda L, T: T["i32"] > 2.5,
    "int_mul_float": lambda L, T: T["i32"] * 2.5,
    "bool_add_2_63": lambda L, T: T["b"] + 2 ** 63,
    "bool_gt_2_63": lambda L, T: T["b"] > 2 ** 63,
    "bool_eq_1": lambda L, T: T["b"] == 1,
    "bool_lt_2": lambda L, T: T["b"] < 2,
    "half_mul_1e10": lambda L, T: T["h"] * 1e10,
    "half_mul_1e5": lambda L, T: T["h"] * 1e5,
    "half_add_70000": lambda L, T: T["h"] + 70000,
    "half_gt_70000": lambda L, T: T["h"] > 70000,
    "half_eq_1e10": lambda L, T: T["h"] == 1e10,
    "half_mul_in_place_1e10": lambda L, T: T["h"].mul_(1e10),
    "bfloat16_mul_1e39": lambda L, T: T["bf"] * 1e39,
    "bfloat16_mul_1e30": lambda L, T: T["bf"] * 1e30,
    "float32_mul_1e39": lambda L, T: T["f32"] * 1e39,
    "float32_gt_1e39": lambda L, T: T["f32"] > 1e39,
    "full_one_half_65520": lambda L, T: L.full((1,), 65520, dtype=L.float16),
    "full_one_by_one_half_70000": lambda L, T: L.full((1, 1), 70000.0, dtype=L.float16),
    "full_two_half_65520": lambda L, T: L.full((2,), 65520, dtype=L.float16),
    "full_one_bfloat16_1e39": lambda L, T: L.full((1,), 1e39, dtype=L.bfloat16),
    "full_one_half_2_70": lambda L, T: L.full((1,), 2 ** 70, dtype=L.float16),
    "full_one_float32_1e39": lambda L, T: L.full((1,), 1e39),
    "full_one_int8_300": lambda L, T: L.full((1,), 300, dtype=L.int8),
    "fill_one_half_70000": lambda L, T: L.zeros(1, dtype=L.float16).fill_(70000),
    "fill_0d_half_70000": lambda L, T: L.zeros((), dtype=L.float16).fill_(70000),
    "fill_two_half_70000": lambda L, T: L.zeros(2, dtype=L.float16).fill_(70000),
    "fill_one_bfloat16_1e39": lambda L, T: L.zeros(1, dtype=L.bfloat16).fill_(1e39),
    "fill_one_float32_1e39": lambda L, T: L.zeros(1).fill_(1e39),
    "fill_one_int8_300": lambda L, T: L.zeros(1, dtype=L.int8).fill_(300),
    "clamp_float_numbers": lambda L, T: L.clamp(L.tensor([-2.0, 0.5, float("nan"), 3.0]), -1, 1),
    "clamp_min_above_max": lambda L, T: L.clamp(L.tensor([-2.0, 0.5, 3.0]), 2, 1),
    "clamp_nan_bound": lambda L, T: L.clamp(L.tensor([-2.0, 0.5]), min=float("nan")),
    "clamp_inf_bound": lambda L, T: L.clamp(L.tensor([-2.0, 0.5]), max=-float("inf")),
    "clamp_float32_1e39": lambda L, T: L.clamp(L.tensor([-2.0, 0.5]), -1e39),
    "clamp_int32_numbers": lambda L, T: L.clamp(L.tensor([-9, 0, 9], dtype=L.int32), -3, 4),
    "clamp_int32_2_31": lambda L, T: L.clamp(L.tensor([-9, 9], dtype=L.int32), max=2 ** 31),
    "clamp_int64_float_bound": lambda L, T: L.clamp(L.tensor([-9, 9]), 0.5),
    "clamp_uint8_minus_1": lambda L, T: L.clamp(L.tensor([1, 200], dtype=L.uint8), -1),
    "clip_int64_max_only": lambda L, T: L.tensor([-9, 9]).clip(max=2),
    "clamp_bool": lambda L, T: L.clamp(L.tensor([True, False]), 0, 1),
}


def _outcome(fn):
    try:
        return "ok", fn()
    except Exception as e:  # noqa: BLE001 - the exception is what is compared
        return "raised", e


@pytest.mark.parametrize("name", sorted(SCALAR_CASES))
def test_python_numbers_as_torch(name):
    torch = pytest.importorskip("torch")
    kind_t, expected = _outcome(lambda: SCALAR_CASES[name](torch, _tensors(torch)))
    with warnings.catch_warnings():
        warnings.simplefilter("error")     # no NumPy cast warning may leak
        kind_c, got = _outcome(lambda: SCALAR_CASES[name](cygrad, _tensors(cygrad)))
    if kind_t == "raised":
        assert kind_c == "raised", f"torch raised {expected!r}, cygrad gave {got!r}"
        assert type(got) is type(expected)
        assert str(got).splitlines()[0] == str(expected).splitlines()[0]
        return
    assert kind_c == "ok", f"cygrad raised {got!r}"
    assert str(got.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_array_equal(got.float().numpy() if got.dtype is cygrad.bfloat16 else got.numpy(),
                                  expected.float().numpy() if expected.dtype is torch.bfloat16
                                  else expected.numpy())


CHECK_VALUES = [0, 1, -1, 127, 128, 255, 256, -255, -256, 2 ** 31 - 1, 2 ** 31, 2 ** 63 - 1,
                2 ** 63, 2 ** 64 - 1, 2 ** 64, -2 ** 63, -2 ** 63 - 1, 0.5, -0.5, 65504.0,
                65520.0, 70000.0, 3.4e38, 3.5e38, 1e39, float("nan"), float("inf"),
                -float("inf"), True, np.float32(2.5), np.int64(300)]


@pytest.mark.parametrize("dtype", DTYPES)
def test_check_scalar_fits_as_torch(dtype):
    """Its fast path (a cache of bounds) and full rules agree with what PyTorch lets
    ``torch.full`` store, asked twice so the cached bounds are used."""
    torch = pytest.importorskip("torch")
    from cygrad._core.scalars import check_scalar_fits
    for value in CHECK_VALUES:
        t_kind, t_err = _outcome(lambda: torch.full((2,), value, dtype=getattr(torch, dtype)))
        for _ in range(2):
            c_kind, c_err = _outcome(lambda: check_scalar_fits(value, getattr(cygrad, dtype)))
            assert c_kind == t_kind, (value, t_err, c_err)
            if t_kind == "raised":
                assert type(c_err) is type(t_err), (value, t_err, c_err)
