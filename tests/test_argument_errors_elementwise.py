"""PyTorch's argument rules in the elementwise ops (the cygrad/ops/elementwise/ package) and
the factories (cygrad/ops/creation.py): Python ints beyond 64 bits, numbers that
do not fit the target dtype, two numbers where a tensor is due, dtype rules of
lerp/clamp/float_power/round/nan_to_num, ragged data for ``tensor()``, and the
order of the range checks of arange/linspace/logspace.

Each error case states the exception type PyTorch raises; ``test_torch_agrees``
makes the same call on torch where it is installed.  The value cases compare
with NumPy where NumPy computes the same thing, and with torch otherwise.
"""
from math import inf, nan

import numpy as np
import pytest

import cygrad

BIG = 2 ** 64            # PyTorch cannot read it as a number at all
U64 = 2 ** 63            # fits uint64, not int64


def _x(T, *shape, dtype=None):
    n = int(np.prod(shape)) if shape else 1
    return (T.arange(n, dtype=T.float64) * 0.37 - 1).reshape(shape).to(dtype or T.float32)


def _i(T, *shape, dtype=None):
    n = int(np.prod(shape)) if shape else 1
    return (T.arange(n) % 7 - 3).reshape(shape).to(dtype or T.int64)


CASES = [
    # numbers PyTorch cannot read
    ("add int too big", lambda T: T.add(_x(T, 3), BIG), OverflowError),
    ("sub number first too big", lambda T: T.sub(BIG, _x(T, 3)), OverflowError),
    ("div too big", lambda T: T.div(_x(T, 3, dtype=T.float16), BIG), OverflowError),
    ("true_divide too big", lambda T: T.true_divide(_x(T, 3), 2 ** 70), OverflowError),
    ("subtract bf16 too big", lambda T: T.subtract(_x(T, 3, dtype=T.bfloat16), 2 ** 70),
     OverflowError),
    ("fmod too big", lambda T: T.fmod(_x(T, 3), 2 ** 70), OverflowError),
    ("pow too big", lambda T: T.pow(_x(T, 3), BIG), OverflowError),
    ("float_power too big", lambda T: T.float_power(_i(T, 3), BIG), OverflowError),
    ("bitwise_or float too big", lambda T: T.bitwise_or(_x(T, 3), BIG), OverflowError),
    ("clamp bound too big", lambda T: T.clamp(_x(T, 3), min=2 ** 70, max=1.5), OverflowError),
    ("clip bound too big", lambda T: T.clip(_x(T, 3, dtype=T.float16), max=2 ** 70),
     OverflowError),
    ("lerp weight too big", lambda T: T.lerp(_x(T, 2), _x(T, 2), 2 ** 70), OverflowError),
    ("add alpha too big", lambda T: T.add(_i(T, 3), 1, alpha=BIG), OverflowError),
    ("linspace end too big", lambda T: T.linspace(-inf, BIG, 5), OverflowError),
    ("logspace end too big", lambda T: T.logspace(0.0, BIG, 0, dtype=T.int64), OverflowError),
    ("linspace before steps check", lambda T: T.linspace(BIG, 0.0, -1), OverflowError),
    ("arange too big", lambda T: T.arange(BIG), OverflowError),
    ("full_like too big", lambda T: T.full_like(_x(T, 2), 2 ** 70), OverflowError),
    ("scalar_tensor too big", lambda T: T.scalar_tensor(BIG, dtype=T.bfloat16), OverflowError),
    # an integer scalar wrapped into the dtype can become a zero divisor
    ("floor_divide wraps to zero", lambda T: T.floor_divide(_i(T, 3, dtype=T.uint8), 2 ** 31),
     RuntimeError),
    ("remainder wraps to zero", lambda T: T.remainder(_i(T, 3, dtype=T.int8), 256), RuntimeError),
    ("fmod wraps to zero", lambda T: T.fmod(_i(T, 3, dtype=T.int16), 2 ** 31), RuntimeError),
    # two numbers where a tensor is due
    ("bitwise_and two numbers", lambda T: T.bitwise_and(-129, 3), TypeError),
    ("bitwise_left_shift two numbers", lambda T: T.bitwise_left_shift(7, 3), TypeError),
    ("bitwise_xor two floats", lambda T: T.bitwise_xor(nan, 2.5), TypeError),
    ("remainder two numbers", lambda T: T.remainder(7, 3), TypeError),
    ("float_power two numbers", lambda T: T.float_power(1e30, 2), TypeError),
    ("pow two numbers", lambda T: T.pow(1.5, 2), TypeError),
    ("round a number", lambda T: T.round(False), TypeError),
    ("round a big number", lambda T: T.round(U64), TypeError),
    ("float_power str", lambda T: T.float_power(_x(T, 2), "x"), TypeError),
    # argument kinds
    ("div rounding_mode int", lambda T: T.div(_x(T, 2), _x(T, 2), rounding_mode=3), TypeError),
    ("allclose equal_nan float", lambda T: T.allclose(_x(T, 2), _x(T, 2), equal_nan=1.5),
     TypeError),
    ("isclose equal_nan int", lambda T: T.isclose(_x(T, 2), _x(T, 2), equal_nan=1), TypeError),
    ("clamp number and tensor", lambda T: T.clamp(_x(T, 3), True, _x(T, 3)), TypeError),
    ("lerp number end", lambda T: T.lerp(_x(T, 3), inf, _x(T, 3)), TypeError),
    ("lerp bool end", lambda T: T.lerp(_x(T, 3), False, 0.25), TypeError),
    ("round decimals float", lambda T: T.round(_x(T, 2), decimals=2.5), TypeError),
    ("round decimals bool", lambda T: T.round(_x(T, 2), decimals=True), TypeError),
    ("round decimals beyond int64", lambda T: T.round(_x(T, 2), decimals=U64), ValueError),
    ("linspace float steps", lambda T: T.linspace(-0.0, True, 2.5), TypeError),
    ("logspace float steps", lambda T: T.logspace(2 ** 53, 2 ** 31, 2.5, dtype=T.int8),
     TypeError),
    ("full_like str", lambda T: T.full_like(_x(T, 2), "x", dtype=T.int32), TypeError),
    ("full_like dtype int", lambda T: T.full_like(_x(T, 2), 2.5, dtype=0), TypeError),
    ("ones_like dtype bool", lambda T: T.ones_like(_i(T, 2), dtype=False), TypeError),
    ("eye m beyond int64", lambda T: T.eye(-100, U64), ValueError),
    ("eye n float", lambda T: T.eye(2.5), TypeError),
    # dtype rules
    ("pow exponent beyond int64", lambda T: T.pow(_i(T, 3, dtype=T.uint8), U64), RuntimeError),
    ("pow exponent beyond int8", lambda T: T.pow(_i(T, 3, dtype=T.int8), 1000), RuntimeError),
    ("pow exponent beyond half", lambda T: T.pow(_x(T, 3, dtype=T.float16), 1e10), RuntimeError),
    ("add alpha float on ints", lambda T: T.add(_i(T, 3), _i(T, 3), alpha=1.5), RuntimeError),
    ("add alpha bool on floats", lambda T: T.add(_x(T, 3), _x(T, 3), alpha=True), RuntimeError),
    ("add alpha beyond int8", lambda T: T.add(_i(T, 3, dtype=T.int8), 1, alpha=1000),
     RuntimeError),
    ("sub bool with alpha", lambda T: T.sub(_i(T, 3, dtype=T.uint8), _i(T, 3, dtype=T.bool),
                                            alpha=2), RuntimeError),
    ("clamp out dtype", lambda T: T.clamp(_i(T, 3), -2, 5, out=_x(T, 3, dtype=T.float64)),
     RuntimeError),
    ("float_power out dtype", lambda T: T.float_power(_i(T, 3, dtype=T.uint8),
                                                      _i(T, 3, dtype=T.uint8),
                                                      out=_x(T, 3, dtype=T.bfloat16)),
     RuntimeError),
    ("lerp end dtype", lambda T: T.lerp(_x(T, 2, dtype=T.float16), _x(T, 2), 0.5), RuntimeError),
    ("lerp weight dtype", lambda T: T.lerp(_x(T, 2), _x(T, 2), _x(T, 2, dtype=T.float64)),
     RuntimeError),
    ("lerp weight beyond float", lambda T: T.lerp(_x(T, 2), _x(T, 2), 1e300), RuntimeError),
    ("lerp int8", lambda T: T.lerp(_i(T, 2, dtype=T.int8), _i(T, 2, dtype=T.int8), 0.5),
     NotImplementedError),
    ("lerp bool", lambda T: T.lerp(_i(T, 2, dtype=T.bool), _i(T, 2, dtype=T.bool), 0.5),
     NotImplementedError),
    ("nan_to_num out dtype", lambda T: T.nan_to_num(_i(T, 3, dtype=T.int32),
                                                    out=_i(T, 3, dtype=T.int8)), RuntimeError),
    ("round decimals bool tensor", lambda T: T.round(_i(T, 3, dtype=T.bool), decimals=-1),
     NotImplementedError),
    ("round decimals int8", lambda T: T.round(_i(T, 3, dtype=T.int8), decimals=1),
     NotImplementedError),
    ("round decimals out dtype", lambda T: T.round(_x(T, 3), decimals=1,
                                                   out=_x(T, 3, dtype=T.float16)), RuntimeError),
    # numbers that do not fit the target dtype
    ("tensor value beyond int32", lambda T: T.tensor([[-2 ** 63]], dtype=T.int32), RuntimeError),
    ("tensor nan into int8", lambda T: T.tensor([nan], dtype=T.int8), RuntimeError),
    ("tensor int beyond int64", lambda T: T.tensor(U64), ValueError),
    ("tensor nested int beyond int64", lambda T: T.tensor([[BIG], [BIG]]), ValueError),
    ("tensor too big for int8", lambda T: T.tensor(BIG, dtype=T.int8), ValueError),
    ("tensor ragged", lambda T: T.tensor([[1, 2], [3]]), ValueError),
    ("tensor list for a number", lambda T: T.tensor([1, [1, 2, 3]]), TypeError),
    ("tensor number for a list", lambda T: T.tensor([[1, 2], 3]), TypeError),
    ("tensor inf into int16 before ragged",
     lambda T: T.tensor([[300, -inf, [1, 2]], [300, -inf, [1, 2]]], dtype=T.int16), RuntimeError),
    ("tensor str", lambda T: T.tensor("ab"), TypeError),
    ("scalar_tensor nan into int32", lambda T: T.scalar_tensor(nan, dtype=T.int32), RuntimeError),
    ("scalar_tensor inf into uint8", lambda T: T.scalar_tensor(inf, dtype=T.uint8), RuntimeError),
    ("scalar_tensor beyond float", lambda T: T.scalar_tensor(1e300), RuntimeError),
    ("full_like two float16 elements", lambda T: T.full_like(_x(T, 2, dtype=T.float16), 7e4),
     RuntimeError),
    ("linspace end beyond float", lambda T: T.linspace(False, 1e300, 5), RuntimeError),
    ("logspace 1 step beyond int8", lambda T: T.logspace(2 ** 63 - 1, U64, 1, dtype=T.int8),
     RuntimeError),
    # arange's checks, in PyTorch's order
    ("arange bool", lambda T: T.arange(-0.5, dtype=T.bool), NotImplementedError),
    ("arange bool before nan", lambda T: T.arange(nan, dtype=T.bool), NotImplementedError),
    ("arange bool before sign", lambda T: T.arange(1, -0.5, 2 ** 62, dtype=T.bool),
     NotImplementedError),
    ("arange step zero before nan", lambda T: T.arange(-0.5, nan, 0, dtype=T.int64),
     RuntimeError),
    ("arange infinite end", lambda T: T.arange(2.5, inf), RuntimeError),
    ("arange sign before int64 overflow", lambda T: T.arange(1e30, 0, 1, dtype=T.uint8),
     RuntimeError),
    ("arange int64 overflow", lambda T: T.arange(1e30, 1e30, -1, dtype=T.uint8), RuntimeError),
    ("arange int64 fractional step", lambda T: T.arange(0, 3, 0.5, dtype=T.int64), ValueError),
    ("linspace bool", lambda T: T.linspace(2 ** 31, 256, 5, dtype=T.bool), NotImplementedError),
    ("logspace bool", lambda T: T.logspace(1e-30, -1, 5, dtype=T.bool), NotImplementedError),
    # the parser reads every argument before any value or dtype check
    ("lerp int8 weight too big", lambda T: T.lerp(_i(T, 2, dtype=T.int8),
                                                  _i(T, 2, dtype=T.int8), 2 ** 70), OverflowError),
    ("linspace float steps before big start", lambda T: T.linspace(2 ** 64, -0.5, 2.5),
     TypeError),
    ("randint float high before negative size", lambda T: T.randint(2.5, (0, -2)), TypeError),
    ("randint big high before negative size", lambda T: T.randint(2 ** 63, (2, -1)), ValueError),
    ("arange storage overflows", lambda T: T.arange(2.5, 2 ** 62, dtype=T.float64),
     RuntimeError),
    # two numbers are two tensors to PyTorch: 2**63 is a uint64 one, promoting with nothing
    ("multiply 2**63 by an int", lambda T: T.multiply(U64, 3), RuntimeError),
    ("divide 2**63 by an int", lambda T: T.divide(U64, 3), RuntimeError),
    ("mul 2**63 by a bool", lambda T: T.mul(U64, True), RuntimeError),
    ("floor_divide 2**63 by an int", lambda T: T.floor_divide(U64, 2), RuntimeError),
    ("lerp out of another dtype", lambda T: T.lerp(_x(T, 3, dtype=T.float64),
                                                   _x(T, 3, dtype=T.float64),
                                                   _x(T, 3, dtype=T.float64),
                                                   out=T.zeros(0)), RuntimeError),
    ("clamp number bounds out of another dtype",
     lambda T: T.clamp(_i(T, 3), 0, 1, out=T.zeros(0, dtype=T.int16)), RuntimeError),
    ("clamp tensor bound float into int out",
     lambda T: T.clamp(_x(T, 3), _i(T, 3), None, out=T.zeros(0, dtype=T.int16)), RuntimeError),
]


@pytest.mark.parametrize("name,call,exc", CASES, ids=[c[0] for c in CASES])
def test_cygrad_raises(name, call, exc):
    with pytest.raises(exc):
        call(cygrad)


@pytest.mark.parametrize("name,call,exc", CASES, ids=[c[0] for c in CASES])
def test_torch_agrees(name, call, exc):
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        call(torch)


# Results PyTorch returns where cygrad used to raise or differ; compared with torch.
VALUE_CASES = [
    ("mul int32 wraps the scalar", lambda T: T.mul(_i(T, 4, dtype=T.int32), 2 ** 31)),
    ("multiply int32 by int64 max", lambda T: T.multiply(_i(T, 4, dtype=T.int32), 2 ** 63 - 1)),
    ("int64 plus 2**63", lambda T: T.add(_i(T, 3), U64)),
    ("bitwise_and int8 and 2**63", lambda T: T.bitwise_and(_i(T, 3, dtype=T.int8), U64)),
    ("pow int64 base 2**63", lambda T: T.pow(U64, _i(T, 3).abs())),
    ("pow bool to True", lambda T: T.pow(_i(T, 4, dtype=T.bool), True)),
    ("pow bool to False", lambda T: T.pow(_i(T, 4, dtype=T.bool), False)),
    ("isclose huge atol on int8", lambda T: T.isclose(_i(T, 4, dtype=T.int8),
                                                      _i(T, 4, dtype=T.int8).flip(0),
                                                      rtol=0.0, atol=2 ** 70)),
    ("isclose int8 difference does not wrap",
     lambda T: T.isclose(T.tensor([100, -100], dtype=T.int8),
                         T.tensor([-100, 100], dtype=T.int8), atol=100)),
    ("allclose huge rtol", lambda T: T.allclose(_i(T, 4, dtype=T.uint8),
                                                _i(T, 4, dtype=T.uint8).flip(0),
                                                rtol=2 ** 70, atol=1.5)),
    ("round huge decimals", lambda T: T.round(_x(T, 4), decimals=2 ** 32)),
    ("round bfloat16 decimals", lambda T: T.round(_x(T, 3, 4, dtype=T.bfloat16) * 7.3,
                                                  decimals=1)),
    ("round float16 negative decimals", lambda T: T.round(_x(T, 6, dtype=T.float16) * 77,
                                                          decimals=-1)),
    ("div trunc bfloat16 in float32",
     lambda T: T.div(T.tensor([2.15625, 2.25, 2.4375], dtype=T.bfloat16),
                     T.tensor([0.1328125], dtype=T.bfloat16), rounding_mode="trunc")),
    ("lerp float16 scalar weight", lambda T: T.lerp(_x(T, 5, dtype=T.float16),
                                                    _x(T, 5, dtype=T.float16).flip(0) * 3, 0.7)),
    ("lerp 0-d weight of another dtype", lambda T: T.lerp(_x(T, 3), _x(T, 3).flip(0),
                                                          T.tensor(0.7, dtype=T.float64))),
    ("clamp 0-d tensor and number", lambda T: T.clamp(_x(T, 4), T.tensor(0.0), 1)),
    ("nan_to_num_ on expanded ints",
     lambda T: T.tensor([[5], [4]], dtype=T.uint8).expand((2, 3)).nan_to_num_()),
    ("tensor ragged but empty", lambda T: T.tensor([[], [], [1, 2, 3]], dtype=T.float32)),
    ("tensor 2**64 as bfloat16", lambda T: T.tensor(BIG, dtype=T.bfloat16)),
    ("scalar_tensor 2**63 as bfloat16", lambda T: T.scalar_tensor(U64, dtype=T.bfloat16)),
    # one element of float16/bfloat16 is filled by rounding, without the range check
    ("scalar_tensor int64 max as float16",
     lambda T: T.scalar_tensor(2 ** 63 - 1, dtype=T.float16)),
    ("scalar_tensor rounds down into float16", lambda T: T.scalar_tensor(65519, dtype=T.float16)),
    ("full_like one bfloat16 element", lambda T: T.full_like(_x(T, 1, dtype=T.bfloat16), 1e39)),
    ("arange int8 length from floats", lambda T: T.arange(1, 2.5, dtype=T.int8)),
    ("arange int64 length from ints", lambda T: T.arange(1, 2.5, dtype=T.int64)),
    ("arange int16 fractional step", lambda T: T.arange(3.7, 0.2, -1.5, dtype=T.int16)),
    ("arange int32 wraps int64 values", lambda T: T.arange(-2 ** 63, 2 ** 63 - 1, 2 ** 62,
                                                            dtype=T.int32)),
    ("linspace one float16 step rounds to inf",
     lambda T: T.linspace(-2 ** 63, 0.0, 1, dtype=T.float16)),
    ("logspace one bfloat16 step rounds", lambda T: T.logspace(40, 0, 1, dtype=T.bfloat16)),
    ("linspace one step keeps start", lambda T: T.linspace(2 ** 63 - 1, 1e300, 1, dtype=T.int64)),
    ("linspace uint8 wraps start", lambda T: T.linspace(-100, 100, 5, dtype=T.uint8)),
    ("linspace float32 infinite step", lambda T: T.linspace(-3e38, 3e38, 5)),
    ("logspace int64 wrapping difference", lambda T: T.logspace(300, -2 ** 63, 5,
                                                                dtype=T.int64)),
    ("logspace int8 overflowing powers", lambda T: T.logspace(0, 3, 4, dtype=T.int8)),
    ("eye numpy int", lambda T: T.eye(np.int64(2))),
    ("floor_divide two numbers", lambda T: T.floor_divide(1e-30, 3)),
    ("floor_divide two ints", lambda T: T.floor_divide(-7, 2)),
    # comparisons, fmod and remainder read a number in a float16/bfloat16 tensor's dtype
    ("greater float16 than a number rounding to inf",
     lambda T: T.greater(T.tensor([nan, inf, -inf, 1.0], dtype=T.float16), 1e30)),
    ("le bfloat16 and a number rounding up",
     lambda T: T.le(T.tensor([1.0, 2.0, 3.0], dtype=T.bfloat16), 1.001)),
    ("fmod float16 by a number rounding to 0",
     lambda T: T.fmod(_x(T, 4, dtype=T.float16), 1e-30)),
    ("fmod_ float16 by a number rounding to 0",
     lambda T: _x(T, 4, dtype=T.float16).fmod_(1e-30)),
    ("ge_ bfloat16 than a number rounding down",
     lambda T: T.tensor([1.0, 2.0], dtype=T.bfloat16).ge_(1.001)),
    ("remainder float16 by a number rounding to 0",
     lambda T: T.remainder(_x(T, 4, dtype=T.float16), 1e-30)),
    # floor division reads a first-place number in the tensor's dtype, a second one in float32
    ("div floor number over float16", lambda T: T.div(2 ** 31, _x(T, 4, dtype=T.float16) + 0.1,
                                                      rounding_mode="floor")),
    ("floor_divide number over float16", lambda T: T.floor_divide(7e4, _x(T, 4, dtype=T.float16))),
    ("floor_divide float16 by a tiny number",
     lambda T: T.floor_divide(_x(T, 4, dtype=T.float16), 1e-30)),
    # the Tensor overload of clamp casts into any out it can
    ("clamp tensor bounds into an int16 out",
     lambda T: T.clamp(_i(T, 3, 4) * 2, _i(T, 4), _i(T, 3, 1) + 1, out=T.zeros(0, dtype=T.int16))),
]


def _plain(r):
    if isinstance(r, bool):
        return r
    return str(r.dtype).rsplit(".", 1)[-1], list(r.shape), np.asarray(r.float().tolist()
                                                                     if r.dtype.is_floating_point
                                                                     else r.tolist())


@pytest.mark.parametrize("name,call", VALUE_CASES, ids=[c[0] for c in VALUE_CASES])
def test_same_result_as_torch(name, call):
    torch = pytest.importorskip("torch")
    got, want = _plain(call(cygrad)), _plain(call(torch))
    if isinstance(want, bool):
        assert got == want
        return
    assert got[:2] == want[:2]
    np.testing.assert_array_equal(got[2], want[2])


# The same rules against NumPy, which wraps and converts like C.

def test_integer_scalar_wraps_into_the_tensor_dtype():
    a = np.array([1, 2, 3], dtype=np.int8)
    x = cygrad.tensor(a)
    assert cygrad.add(x, 1000).tolist() == (a + np.int8(1000 - 1024)).tolist()
    assert cygrad.mul(x, 2 ** 31 + 3).tolist() == (a * np.int8(3)).tolist()
    assert cygrad.add(x, 1000).dtype == cygrad.int8


def test_tensor_wraps_negative_ints_into_uint8_only_down_to_minus_255():
    assert cygrad.tensor([-1, -255], dtype=cygrad.uint8).tolist() == \
        np.array([-1, -255]).astype(np.uint8).tolist()
    with pytest.raises(RuntimeError):
        cygrad.tensor([-256], dtype=cygrad.uint8)


def test_tensor_truncates_floats_into_ints():
    data = [[2.7, -2.7], [126.9, -127.5]]   # in range before truncation, as c10 checks
    assert cygrad.tensor(data, dtype=cygrad.int8).tolist() == \
        np.array(data).astype(np.int8).tolist()


def test_arange_integer_values_count_from_truncated_bounds():
    # the length comes from the float bounds, the values from the bounds cut to ints
    got = cygrad.arange(-0.5, 3, 0.5, dtype=cygrad.int32).tolist()
    assert got == [0] * int(np.ceil((3 + 0.5) / 0.5))
    assert cygrad.arange(0.5, 3, dtype=cygrad.int32).tolist() == \
        np.arange(0, int(np.ceil(2.5))).tolist()
