"""The strided select loop behind ``where`` and ``masked_fill`` (``fastpath.select_into``):
every broadcast, stride and dtype against NumPy's ``np.where``."""
import struct

import numpy as np
import pytest

import cygrad
from cygrad._core import fastpath

DTYPES = [np.bool_, np.int8, np.int16, np.float16, np.int32, np.float32, np.int64, np.float64]


def _values(rng, shape, dt):
    if dt == np.bool_:
        return rng.random(shape) > 0.5
    return (rng.standard_normal(shape) * 50).astype(dt)


@pytest.mark.parametrize("dt", DTYPES)
@pytest.mark.parametrize("out_shape,cond_shape,x_shape,y_shape", [
    ((32, 4, 32, 32), (1, 1, 32, 32), (32, 4, 32, 32), (32, 4, 32, 32)),  # the causal mask
    ((5, 7), (7,), (5, 1), (5, 7)),
    ((3, 4, 5), (3, 1, 5), (4, 5), (3, 4, 1)),
    ((6, 5), (6, 1), (), (6, 5)),
    ((300, 257), (300, 257), (257,), ()),                                   # dims above 256
    ((2, 1, 3), (2, 1, 3), (1,), (2, 1, 3)),
])
def test_where_matches_numpy(dt, out_shape, cond_shape, x_shape, y_shape):
    rng = np.random.default_rng(0)
    c, x, y = (rng.random(cond_shape) > 0.4, _values(rng, x_shape, dt), _values(rng, y_shape, dt))
    got = cygrad.where(cygrad.tensor(c), cygrad.tensor(x), cygrad.tensor(y))
    np.testing.assert_array_equal(got.numpy(), np.where(c, x, y))


@pytest.mark.parametrize("dt", [np.float32, np.float64, np.int64, np.int8])
def test_strided_operands_and_output(dt):
    rng = np.random.default_rng(1)
    base = _values(rng, (40, 60), dt)
    x = cygrad.tensor(base)[::2, 1::3]             # row and column steps
    y = cygrad.tensor(_values(rng, (20, 40), dt)).t()[::2, :]   # transposed, stepped
    c = cygrad.tensor(rng.random((20, 20)) > 0.5).t()
    out = cygrad.zeros(20, 40, dtype=x.dtype).t()[::2, :].t()  # a strided target, (20, 20)
    assert not out.is_contiguous()
    assert fastpath.select_into(out, c, x, y)
    np.testing.assert_array_equal(out.numpy(), np.where(c.numpy(), x.numpy(), y.numpy()))


def test_scalar_bytes_operands():
    c = cygrad.tensor([[True, False], [False, True]])
    out = cygrad.empty(2, 2, dtype=cygrad.float64)
    assert fastpath.select_into(out, c, struct.pack("d", 1.5), struct.pack("d", -2.0))
    assert out.tolist() == [[1.5, -2.0], [-2.0, 1.5]]
    assert fastpath.select_into(out, c, struct.pack("f", 1.5), None) is None   # wrong width


def test_declines_what_it_cannot_do():
    c = cygrad.tensor([True, False])
    x = cygrad.arange(4.0)
    assert fastpath.select_into(cygrad.empty(2, dtype=cygrad.complex128), c,
                                cygrad.ones(2, dtype=cygrad.complex128), None) is None
    assert fastpath.select_into(cygrad.empty(3), c, x[:3], x[:3]) is None      # shapes
    assert fastpath.select_into(x[1:3], c, x[0:2], x[2:4]) is None            # overlap
    assert fastpath.select_into(cygrad.empty(2), c.to(cygrad.uint8), x[:2], x[:2]) is None


def test_overlapping_operands_still_give_numpys_answer():
    x = cygrad.arange(8.0)
    c = cygrad.tensor([True, False, True, False, True, False, True])
    got = cygrad.where(c, x[1:], x[:-1])           # each operand a shifted view of x
    want = np.where(c.numpy(), np.arange(1.0, 8.0), np.arange(7.0))
    np.testing.assert_array_equal(got.numpy(), want)


@pytest.mark.parametrize("value", [float("-inf"), 0.0, 3, -1e30])
def test_masked_fill_broadcast_mask_and_in_place(value):
    rng = np.random.default_rng(2)
    a = rng.standard_normal((8, 3, 16, 16)).astype(np.float32)
    mask = np.triu(np.ones((16, 16), bool), 1)[None, None]
    want = np.where(mask, np.float32(value), a)
    np.testing.assert_array_equal(cygrad.tensor(a).masked_fill(cygrad.tensor(mask), value).numpy(),
                                  want)
    t = cygrad.tensor(a)
    t.masked_fill_(cygrad.tensor(mask), value)
    np.testing.assert_array_equal(t.numpy(), want)


def test_masked_fill_with_a_tensor_value_of_another_dtype():
    a = cygrad.zeros(3, 4, dtype=cygrad.int32)
    got = a.masked_fill(cygrad.tensor([True, False, True, False]), cygrad.tensor(7.9))
    np.testing.assert_array_equal(got.numpy(), np.where([[True, False, True, False]] * 3, 7, 0))


def test_masked_fill_gradient_through_the_loop():
    x = cygrad.randn(4, 6, dtype=cygrad.float64, requires_grad=True)
    mask = cygrad.tensor(np.arange(6) % 2 == 0)
    assert cygrad.autograd.gradcheck(lambda t: t.masked_fill(mask, 0.5) * t, (x,))


def test_sixty_four_dims():
    shape = (2,) + (1,) * 62 + (3,)
    rng = np.random.default_rng(3)
    c, x = rng.random(shape) > 0.5, rng.standard_normal(shape)
    got = cygrad.where(cygrad.tensor(c), cygrad.tensor(x), -1.0)
    np.testing.assert_array_equal(got.numpy(), np.where(c, x, -1.0))
