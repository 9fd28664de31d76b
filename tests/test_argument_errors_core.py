"""PyTorch's argument rules in the core (tensor.pyx): bool dims, out= dtypes of
integer-preserving unary ops, numbers stored into tensors (setitem, fill_, full),
factories without a size, view(), mT and repeated ellipses.

Each case states the exception type PyTorch raises; where torch is installed
the same call is made on torch to show the reference agrees.
"""
import math

import numpy as np
import pytest

import cygrad


def _both(fn_cy, fn_th, exc):
    with pytest.raises(exc):
        fn_cy(cygrad)
    try:
        import torch
    except ImportError:
        return
    with pytest.raises(exc):
        fn_th(torch)


@pytest.mark.parametrize("call", [
    lambda T, x: x.size(True),
    lambda T, x: x.transpose(True, 0),
    lambda T, x: x.flatten(True),
    lambda T, x: x.unsqueeze(False),
])
def test_bool_dim_is_a_type_error(call):
    _both(lambda T: call(T, T.ones(2, 3)), lambda T: call(T, T.ones(2, 3)), TypeError)


@pytest.mark.parametrize("name", ["abs", "neg", "floor", "ceil", "trunc", "sign", "round",
                                  "frac", "bitwise_not"])
def test_integer_preserving_unary_out_needs_exact_dtype(name):
    src = "int64" if name == "bitwise_not" else "float32"
    dst = "int32" if name == "bitwise_not" else "float64"

    def call(T):
        getattr(T, name)(T.ones(3, dtype=getattr(T, src)), out=T.empty(3, dtype=getattr(T, dst)))
    _both(call, call, RuntimeError)
    # the same dtype is fine, and the value is right
    x = cygrad.tensor([-1.5, 2.25, 0.5], dtype=getattr(cygrad, src)) if src == "float32" \
        else cygrad.tensor([1, -2, 3])
    o = cygrad.empty(3, dtype=getattr(cygrad, src))
    getattr(cygrad, name)(x, out=o)
    np.testing.assert_array_equal(o.numpy(), getattr(cygrad, name)(x).numpy())


@pytest.mark.parametrize("name", ["isnan", "isinf", "isfinite", "relu"])
def test_ops_without_out(name):
    def call(T):
        getattr(T, name)(T.ones(3), out=T.empty(3, dtype=T.bool))
    _both(call, call, TypeError)


def test_casting_unary_out_still_casts():
    o = cygrad.empty(3, dtype=cygrad.float64)
    cygrad.exp(cygrad.tensor([0.0, 1.0, 2.0]), out=o)
    np.testing.assert_allclose(o.numpy(), np.exp([0.0, 1.0, 2.0]), rtol=1e-6)


@pytest.mark.parametrize("dtype,value,exc", [
    ("uint8", 300, RuntimeError), ("int32", 2 ** 31, RuntimeError),
    ("int64", 1e30, RuntimeError), ("uint8", math.nan, RuntimeError),
    ("int32", 2 ** 64, ValueError), ("float32", 2 ** 63, ValueError),
    ("float32", 1e300, RuntimeError),
])
def test_setitem_number_that_does_not_fit(dtype, value, exc):
    def call(T):
        x = T.zeros(3, dtype=getattr(T, dtype))
        x[0] = value
    _both(call, call, exc)


def test_setitem_into_half_types_overflows_to_inf():
    # PyTorch stores a number into float16/bfloat16 through float: no overflow error
    for dtype in (cygrad.float16, cygrad.bfloat16):
        x = cygrad.zeros(2, dtype=dtype)
        x[0] = 1e300
        assert math.isinf(x[0].item()) and x[1].item() == 0


def test_setitem_value_checked_before_the_index():
    # PyTorch converts the number first: the overflow wins over "too many indices"
    def call(T):
        x = T.zeros(2, dtype=T.int32)
        x[0, 1] = 2 ** 31
    _both(call, call, RuntimeError)


def test_setitem_wraps_like_a_c_cast_where_pytorch_allows():
    x = cygrad.zeros(3, dtype=cygrad.uint8)
    x[...] = -129                     # unsigned types take -max..-1, wrapped
    assert x.tolist() == [127, 127, 127]
    y = cygrad.zeros(2, dtype=cygrad.int8)
    y[1] = -128
    assert y.tolist() == [0, -128]


@pytest.mark.parametrize("dtype,value,exc", [
    ("int8", 1000, RuntimeError), ("float32", 1e300, RuntimeError),
    ("int64", math.inf, RuntimeError),
])
def test_fill_number_that_does_not_fit(dtype, value, exc):
    _both(lambda T: T.zeros(2, dtype=getattr(T, dtype)).fill_(value),
          lambda T: T.zeros(2, dtype=getattr(T, dtype)).fill_(value), exc)


@pytest.mark.parametrize("args,kwargs,exc", [
    ((5, 1.0), {}, TypeError),                                   # size must be a sequence
    (((2,), 2 ** 64), {"dtype": "float32"}, OverflowError),
    (((2,), 300), {"dtype": "uint8"}, RuntimeError),
    (((2,), math.nan), {"dtype": "int64"}, RuntimeError),
    (((2,), 65519.0), {"dtype": "float16"}, RuntimeError),
    (((2,), -0.5), {"dtype": "uint8"}, RuntimeError),      # only integers wrap into unsigned
    (((2,), -256), {"dtype": "uint8"}, RuntimeError),
])
def test_full_argument_errors(args, kwargs, exc):
    def call(T):
        kw = {k: getattr(T, v) for k, v in kwargs.items()}
        T.full(*args, **kw)
    _both(call, call, exc)


def test_full_of_zero_elements_with_a_huge_dim():
    t = cygrad.full((0, 1 << 62), math.inf, dtype=cygrad.float16)
    assert t.shape == (0, 1 << 62) and t.numel() == 0


@pytest.mark.parametrize("name", ["ones", "zeros", "empty"])
def test_factories_need_a_size(name):
    _both(lambda T: getattr(T, name)(dtype=T.float32),
          lambda T: getattr(T, name)(dtype=T.float32), TypeError)
    assert getattr(cygrad, name)(()).shape == ()


def test_view_without_a_shape():
    _both(lambda T: T.ones(1).view(), lambda T: T.ones(1).view(), TypeError)


def test_mT_of_0d_and_1d():
    x = cygrad.tensor(3.0)
    assert x.mT.item() == 3.0 and x.mT.shape == ()
    _both(lambda T: T.ones(3).mT, lambda T: T.ones(3).mT, RuntimeError)


def test_several_ellipses_are_accepted():
    x = cygrad.arange(6).reshape(2, 3)
    np.testing.assert_array_equal(x[..., ...].numpy(), x.numpy())
    y = cygrad.zeros(4, dtype=cygrad.int16)
    y[..., ...] = cygrad.tensor(2.7, dtype=cygrad.float64)
    assert y.tolist() == [2, 2, 2, 2]


@pytest.mark.parametrize("src,dst,shape", [("float32", "int8", (2, 16)), ("float32", "float64", (2, 2)),
                                           ("int16", "float32", (2, 2)), ("float64", "int32", (2, 8))])
def test_view_dtype_across_item_sizes(src, dst, shape):
    a = np.arange(8, dtype=src).reshape(2, 4)
    v = cygrad.from_numpy(a).view(getattr(cygrad, dst))
    assert tuple(v.shape) == shape
    np.testing.assert_array_equal(v.numpy(), a.view(dst))


def test_view_dtype_errors():
    _both(lambda T: T.ones(2, 4, dtype=T.float16)[:, 1:3].view(T.float32),
          lambda T: T.ones(2, 4, dtype=T.float16)[:, 1:3].view(T.float32), RuntimeError)
    _both(lambda T: T.ones(4, 2).t().view(T.int8), lambda T: T.ones(4, 2).t().view(T.int8),
          RuntimeError)
    _both(lambda T: T.tensor(1.0).view(T.int8), lambda T: T.tensor(1.0).view(T.int8), RuntimeError)


@pytest.mark.parametrize("method", ["sum", "amax", "amin"])
def test_keepdim_must_be_bool_on_the_fast_path(method):
    _both(lambda T: getattr(T.ones(2, 3), method)(1, keepdim=2),
          lambda T: getattr(T.ones(2, 3), method)(1, keepdim=2), TypeError)


def test_array_namespace():
    x = cygrad.ones(2)
    assert x.__array_namespace__() is cygrad.numpy
    with pytest.raises(ValueError):
        x.__array_namespace__(api_version="1999.01")
    assert x.to_device("cpu").device == x.device
