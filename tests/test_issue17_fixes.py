"""Regression tests for the wrong answers and silent no-ops of issue 17's fuzz campaign,
each against PyTorch's result or exception type."""
import math

import numpy as np
import pytest
import torch

import cygrad


def outcome(fn):
    """``fn()``'s result as plain values, or the type of the exception it raised."""
    try:
        r = fn()
    except Exception as e:      # noqa: BLE001 (the type is what is compared)
        return type(e)
    if isinstance(r, tuple):
        return tuple(outcome(lambda v=v: v) for v in r)
    if hasattr(r, "tolist"):
        return (str(r.dtype).split(".")[-1], r.tolist())
    return r


def same(fn, *args_factory):
    """``fn(lib)`` gives the same outcome with cygrad and PyTorch (NaN == NaN)."""
    got, ref = outcome(lambda: fn(cygrad)), outcome(lambda: fn(torch))
    if isinstance(ref, type):
        assert isinstance(got, type) and issubclass(got, ref), (got, ref)
    else:
        np.testing.assert_equal(got, ref)


# --------------------------------------------------------------- in-place, non-tensor

def _inplace_methods():
    names = []
    for n in dir(torch.Tensor):
        if n.endswith("_") and not n.startswith("_") and hasattr(cygrad.Tensor, n):
            names.append(n)
    return sorted(names)


BAD_OTHERS = [None, "a", object()]


@pytest.mark.parametrize("name", _inplace_methods())
def test_inplace_method_never_returns_notimplemented(name):
    """Every in-place method given a non-tensor, non-number: never NotImplemented, and
    a TypeError wherever PyTorch's parser raises one."""
    for bad in BAD_OTHERS:
        x = cygrad.tensor([1.0, 2.0, 3.0])
        try:
            r = getattr(x, name)(bad)
        except Exception as e:      # noqa: BLE001 (the type is compared below)
            got = type(e)
        else:
            assert r is not NotImplemented, (name, bad)
            got = None
        try:
            getattr(torch.tensor([1.0, 2.0, 3.0]), name)(bad)
        except TypeError:
            assert got is not None and issubclass(got, TypeError), (name, bad, got)
        except Exception:       # noqa: BLE001 (PyTorch's other errors: not compared)
            pass


@pytest.mark.parametrize("name", ["add_", "sub_", "mul_", "div_", "true_divide_",
                                  "floor_divide_", "remainder_", "fmod_", "pow_", "eq_",
                                  "lt_", "ge_", "bitwise_and_", "bitwise_or_",
                                  "bitwise_xor_", "atan2_", "hypot_", "float_power_",
                                  "logical_and_", "lerp_"])
@pytest.mark.parametrize("bad", BAD_OTHERS, ids=["None", "str", "object"])
def test_inplace_non_tensor_raises_like_torch(name, bad):
    def call(lib):
        x = lib.tensor([1.0, 2.0, 3.0], dtype=lib.float64)
        getattr(x, name)(bad)
        return x
    same(call)
    x = cygrad.tensor([1.0, 2.0, 3.0])
    with pytest.raises(TypeError):
        getattr(x, name)(bad)
    assert x.tolist() == [1.0, 2.0, 3.0]


@pytest.mark.parametrize("op", ["+=", "-=", "*=", "/=", "//=", "%=", "**=", "&=", "|=", "^=",
                                "<<=", ">>="])
def test_augmented_assignment_with_non_tensor_raises(op):
    for lib in (cygrad, torch):
        x = lib.tensor([1, 2, 3])
        with pytest.raises(TypeError):
            exec(f"x {op} None", {"x": x})
        assert x.tolist() == [1, 2, 3]


# --------------------------------------------------------------- factories, tensor()

@pytest.mark.parametrize("size", [{}, {2: 1}, {2}, b"x", bytearray(b"xy"), "ab", range(2),
                                  np.array([2, 3]), (i for i in [2])])
def test_ones_refuses_non_sequence_sizes(size):
    for lib in (cygrad, torch):
        with pytest.raises(TypeError):
            lib.ones(size)


def test_ones_accepts_what_torch_accepts():
    for size in ([2, 3], (2, 3), torch.Size([2, 3]), np.int64(2)):
        assert tuple(cygrad.ones(size).shape) == tuple(torch.ones(size).shape)
    assert tuple(cygrad.ones(cygrad.tensor(3)).shape) == tuple(torch.ones(torch.tensor(3)).shape)
    with pytest.raises(TypeError):
        cygrad.zeros(cygrad.tensor([2, 3]))
    with pytest.raises(TypeError):
        torch.zeros(torch.tensor([2, 3]))


def test_tensor_of_self_referencing_or_deep_list():
    loop = []
    loop.append(loop)
    deep = [1.0]
    for _ in range(200):
        deep = [deep]
    for data in (loop, deep, [cygrad.tensor(1.0), loop]):
        with pytest.raises(ValueError, match="too many dimensions"):
            cygrad.tensor(data)
    for data in (loop, deep):
        with pytest.raises(ValueError):
            torch.tensor(data)


# --------------------------------------------------------------- values and dtypes

DTYPES = ["bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16",
          "float32", "float64"]


@pytest.mark.parametrize("bound_dtype", DTYPES[1:])
@pytest.mark.parametrize("dtype", ["bool", "uint8", "int32", "int64", "float16", "float32"])
def test_clamp_result_dtype_with_tensor_bounds(dtype, bound_dtype):
    for shape in ((), (3,)):
        for kw in ("min", "max"):
            def call(lib):
                x = lib.tensor([0, 1, 3]).to(getattr(lib, dtype))
                return lib.clamp(x, **{kw: lib.ones(shape, dtype=getattr(lib, bound_dtype))})
            same(call)


def test_clamp_mixed_zero_dim_tensor_and_number():
    def call(lib):
        x = lib.tensor([0, 1, 3], dtype=lib.int16)
        return lib.clamp(x, min=lib.tensor(1.5, dtype=lib.float64), max=2)
    same(call)


@pytest.mark.parametrize("row", [
    [1.0, math.nan, 2.0, 2.0, math.nan, math.nan],
    [math.nan, math.nan, 3.0, 3.0],
    [1.0, math.nan, math.nan, 2.0],
    [math.nan, 1.0, 1.0],
    [math.nan, math.nan],
])
def test_mode_with_nan(row):
    same(lambda lib: lib.mode(lib.tensor([row, row[::-1]]), dim=1)[0])


@pytest.mark.parametrize("base_dtype", ["uint8", "int8", "int16", "int32", "int64"])
@pytest.mark.parametrize("exp_dtype", ["uint8", "int8", "int16", "int32", "int64"])
def test_integer_pow_inplace_with_tensor_exponent(base_dtype, exp_dtype):
    base, ex = [2, 3, -1, 1, 0, 5, 2], [256, 300, 257, 3, 7, 130, 2**31 + 1]

    def call(lib):
        x = lib.tensor(base).to(getattr(lib, base_dtype))
        x.pow_(lib.tensor(ex).to(getattr(lib, exp_dtype)))
        return x
    same(call)


@pytest.mark.parametrize("fn", ["sinh", "cosh"])
def test_sinh_cosh_of_uint8_in_float32(fn):
    # 89: the largest whose sinh/cosh fits float32 (2.2448e38); computed in float32
    def call(lib):
        return getattr(lib, fn)(lib.tensor([0, 1, 88, 89], dtype=lib.uint8))
    got, ref = outcome(lambda: call(cygrad)), outcome(lambda: call(torch))
    assert got[0] == ref[0] == "float32"
    np.testing.assert_allclose(got[1], ref[1], rtol=1e-6)
    assert math.isfinite(got[1][3])


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32"])
@pytest.mark.parametrize("number", [1 << 40, 2049, 2**63 - 1, 1e39, 70000, 1.0001])
def test_comparison_operators_round_the_number_to_the_tensor_dtype(dtype, number):
    ops = [lambda t: t < number, lambda t: number < t, lambda t: t == number,
           lambda t: t != number, lambda t: number >= t, lambda t: t >= number]
    for op in ops:
        same(lambda lib: op(lib.tensor([1.0, 2048.0, 65504.0, math.inf, -math.inf],
                                       dtype=getattr(lib, dtype))))


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "float32", "float64"])
@pytest.mark.parametrize("exponent", [0.5, -0.5])
def test_pow_with_half_exponent(dtype, exponent):
    values = [-0.0, 0.0, -math.inf, math.inf, -4.0, 4.0, math.nan]
    same(lambda lib: lib.pow(lib.tensor(values, dtype=getattr(lib, dtype)), exponent))
    same(lambda lib: lib.tensor(values, dtype=getattr(lib, dtype)) ** exponent)
    same(lambda lib: lib.float_power(lib.tensor(values, dtype=getattr(lib, dtype)), exponent))
    # a 0-d tensor exponent is not a number: no rsqrt there (PyTorch neither)
    same(lambda lib: lib.pow(lib.tensor(values, dtype=getattr(lib, dtype)),
                             lib.tensor(exponent, dtype=getattr(lib, dtype))))


def test_float_power_of_negative_zero():
    same(lambda lib: lib.float_power(lib.tensor(-0.0), -0.5))
    same(lambda lib: lib.float_power(lib.tensor([-0.0]), lib.tensor(-0.5)))
    same(lambda lib: lib.float_power(-0.0, lib.tensor([-0.5])))


# --------------------------------------------------------------- exception types

@pytest.mark.parametrize("name", ["vstack", "hstack", "dstack", "column_stack", "row_stack",
                                  "stack"])
def test_joining_nothing(name):
    same(lambda lib: getattr(lib, name)([]))


@pytest.mark.parametrize("dims", [-1, 0, (0,), 1])
def test_roll_of_zero_dim_tensor_with_dims(dims):
    same(lambda lib: lib.roll(lib.tensor(1.0), 1, dims))
    same(lambda lib: lib.roll(lib.tensor(1.0), 1))


@pytest.mark.parametrize("shape,dim", [((3, 0), 1), ((0, 3), 0), ((0,), 0), ((0, 0), 0)])
def test_index_fill_index_copy_on_size_zero_dim(shape, dim):
    def fill(lib):
        return lib.zeros(*shape).index_fill(dim, lib.tensor([0]), 1.0)

    def copy(lib):
        src = list(shape)
        src[dim] = 1
        return lib.zeros(*shape).index_copy(dim, lib.tensor([0]), lib.zeros(*src))
    same(fill)
    same(copy)
    same(lambda lib: lib.zeros(3, 2).index_fill(1, lib.tensor([5]), 1.0))


@pytest.mark.parametrize("name", ["amax", "amin"])
@pytest.mark.parametrize("shape,dims", [((0, 3), (0, 0)), ((0, 3), (1, 1)), ((2, 3), (0, 0)),
                                        ((3, 0), (1, -1)), ((0, 3), (1, 0, 1))])
def test_amax_amin_repeated_dims(name, shape, dims):
    same(lambda lib: getattr(lib, name)(lib.zeros(*shape), dim=dims))


@pytest.mark.parametrize("number", [math.nan, math.inf, 1.5, 2, True])
def test_number_shifted_by_tensor(number):
    same(lambda lib: number << lib.tensor([1, 2]))
    same(lambda lib: number >> lib.tensor([1, 2]))
    same(lambda lib: lib.tensor([1.0]) << number)
    same(lambda lib: lib.tensor([1, 2]) >> number)


@pytest.mark.parametrize("call", [
    lambda lib: lib.scatter_add(lib.tensor(1.0), 0, lib.tensor(0), None),
    lambda lib: lib.tensor([1.0]).scatter_add_(0, lib.tensor([0]), None),
    lambda lib: lib.scatter_reduce(lib.tensor([1.0]), 0, lib.tensor([0]), None, "sum"),
    lambda lib: lib.argmax(lib.tensor(True), dim=(0, 0)),
    lambda lib: lib.argmin(lib.tensor([True, False]), dim=[]),
], ids=["scatter_add", "scatter_add_", "scatter_reduce", "argmax", "argmin"])
def test_argument_type_errors_come_first(call):
    same(call)
    with pytest.raises(TypeError):
        call(cygrad)


@pytest.mark.parametrize("name", ["scatter", "scatter_add", "scatter_reduce"])
@pytest.mark.parametrize("index_shape,src_shape", [((3, 4), (5,)), ((3, 4), ()), ((3,), (5,)),
                                                   ((3, 4), (3, 4, 2)), ((0, 4), (5,)),
                                                   ((2, 3), (0,))])
def test_scatter_src_with_other_ndim(name, index_shape, src_shape):
    def call(lib):
        args = (lib.zeros(3, 4), 1, lib.zeros(index_shape, dtype=lib.int64),
                lib.zeros(src_shape))
        return getattr(lib, name)(*args, "sum") if name == "scatter_reduce" else \
            getattr(lib, name)(*args)
    same(call)


def test_zero_step_slice_after_two_ellipses():
    same(lambda lib: lib.zeros(4, 3, 5)[..., ..., :-1:0])
    same(lambda lib: lib.zeros(4, 3, 5)[..., 0, ..., ::2])


@pytest.mark.parametrize("dim", [(1, 2), (0, 1), None])
@pytest.mark.parametrize("p", ["nuc", "fro"])
def test_matrix_norm_of_a_vector(p, dim):
    same(lambda lib: lib.norm(lib.zeros(5), p, dim))
