"""PyTorch's argument rules in the shape functions (cygrad/ops/shape): bools and
floats where an int is due, ints beyond 64 bits, a bare int where a list is due,
``SymInt`` lists holding the reserved values below -2**62, and the exception
types of the semantic checks the fuzzer found out of order.

Each case states the exception type PyTorch raises; ``test_torch_agrees`` makes
the same call on torch where it is installed.
"""
from math import inf, nan

import numpy as np
import pytest

import cygrad

BIG = 2 ** 63            # one past int64: PyTorch cannot read it
SYMINT_TAG = -2 ** 62 - 1  # fits int64, but c10::SymInt reserves it


def _x(T, *shape, dtype=None):
    n = int(np.prod(shape)) if shape else 1
    return T.arange(n, dtype=dtype or T.float32).reshape(shape)


def _pad(T):
    return T.nn.functional.pad


CASES = [
    # joining: dim must be an int
    ("cat dim bool", lambda T: T.cat([_x(T, 2)], dim=False), TypeError),
    ("cat dim None", lambda T: T.cat([_x(T, 2), _x(T)], dim=None), TypeError),
    ("concat dim bool", lambda T: T.concat([_x(T, 2)], dim=True), TypeError),
    ("concatenate dim float", lambda T: T.concatenate([_x(T, 2)], 0.0), TypeError),
    ("stack dim bool", lambda T: T.stack([_x(T, 2), _x(T, 2, 3)], dim=False), TypeError),
    ("meshgrid non-tensor", lambda T: T.meshgrid(_x(T, 2), 3, indexing="ij"), TypeError),
    ("meshgrid indexing int", lambda T: T.meshgrid(_x(T, 2), _x(T, 3), indexing=3), TypeError),
    # splitting
    ("chunk chunks nan", lambda T: T.chunk(_x(T, 6, 2), nan), TypeError),
    ("chunk chunks big", lambda T: T.chunk(_x(T, 6, 2), BIG), ValueError),
    ("chunk dim bool", lambda T: T.chunk(_x(T, 6, 2), 2, True), TypeError),
    ("split size big", lambda T: T.split(_x(T, 5, 2), BIG), ValueError),
    ("split size bool", lambda T: T.split(_x(T, 5, 2), False), TypeError),
    ("split sizes dim bool", lambda T: T.split(_x(T, 5, 3), [1, 4], True), TypeError),
    ("split sizes tensor", lambda T: T.split(_x(T, 5), T.tensor([1, 4])), TypeError),
    ("split sizes symint", lambda T: T.split(_x(T, 5), [SYMINT_TAG, 5]), RuntimeError),
    ("tensor_split big", lambda T: T.tensor_split(_x(T, 7, 5), BIG), ValueError),
    ("tensor_split str", lambda T: T.tensor_split(_x(T, 7, 2), "x"), TypeError),
    ("tensor_split bool", lambda T: T.tensor_split(_x(T, 7, 2), True), TypeError),
    ("tensor_split dim bool", lambda T: _x(T, 2).tensor_split(2, True), TypeError),
    ("tensor_split dim float on 0-d", lambda T: _x(T).tensor_split(2, 1.5), TypeError),
    ("tensor_split float tensor",
     lambda T: T.tensor_split(_x(T, 5), T.tensor([1.0, 2.0])), RuntimeError),
    ("tensor_split int32 tensor",
     lambda T: T.tensor_split(_x(T, 5), T.tensor([1, 2], dtype=T.int32)), RuntimeError),
    ("hsplit bool", lambda T: T.hsplit(_x(T, 6), True), TypeError),
    ("hsplit zero", lambda T: T.hsplit(_x(T, 6), 0), RuntimeError),
    ("hsplit str", lambda T: T.hsplit(_x(T, 6), "x"), TypeError),
    ("hsplit big", lambda T: T.hsplit(_x(T, 6), BIG), ValueError),
    ("vsplit bool", lambda T: T.vsplit(_x(T, 4, 2), True), TypeError),
    ("vsplit big", lambda T: T.vsplit(_x(T, 4, 2), BIG), ValueError),
    ("dsplit bool", lambda T: T.dsplit(_x(T, 1, 2, 4), False), TypeError),
    ("dsplit big", lambda T: T.dsplit(_x(T, 1, 2, 4), 2 * BIG), ValueError),
    ("unbind dim bool", lambda T: T.unbind(_x(T, 2, 3), True), TypeError),
    # view functions
    ("transpose non-tensor", lambda T: T.transpose(2 * BIG, -1, 0), TypeError),
    ("swapaxes non-tensor", lambda T: T.swapaxes(7, 0, 2), TypeError),
    ("swapaxes axis bool", lambda T: T.swapaxes(_x(T, 2, 3), 0, True), TypeError),
    ("select dim bool", lambda T: T.select(_x(T, 4, 3), False, 2), TypeError),
    ("select non-tensor", lambda T: T.select(256, 1, 2), TypeError),
    ("select index big", lambda T: T.select(_x(T, 3, 4), 1, BIG), ValueError),
    ("narrow non-tensor", lambda T: T.narrow(256, 1, 1, 3), TypeError),
    ("narrow start bool", lambda T: T.narrow(_x(T, 3, 5), 1, False, 3), TypeError),
    ("diagonal offset inf", lambda T: T.diagonal(_x(T, 2, 3, 3), inf, 1, 2), TypeError),
    ("diagonal offset big", lambda T: T.diagonal(_x(T, 2, 3, 3), 2 * BIG, 1, 2), ValueError),
    ("movedim bool", lambda T: T.movedim(_x(T, 5, 3), True, -1), TypeError),
    ("movedim int and list", lambda T: T.movedim(_x(T, 2, 3), 0, [1]), TypeError),
    ("moveaxis big", lambda T: T.moveaxis(_x(T, 1, 1, 1), 2 ** 31, BIG), ValueError),
    ("squeeze dim None", lambda T: T.squeeze(_x(T, 1, 3), None), TypeError),
    ("unsqueeze dim bool", lambda T: T.unsqueeze(_x(T, 3), False), TypeError),
    ("flatten end_dim float", lambda T: T.flatten(_x(T, 2, 3), 0, 1.5), TypeError),
    ("unflatten dim bool", lambda T: T.unflatten(_x(T, 12), False, (-1, 4)), TypeError),
    ("unflatten non-tensor", lambda T: T.unflatten(5, 1, (2, 3)), TypeError),
    ("unflatten sizes int", lambda T: T.unflatten(_x(T, 6), 0, 6), TypeError),
    ("permute int", lambda T: T.permute(_x(T, 2, 5, 3), 2 ** 32), TypeError),
    ("reshape int", lambda T: T.reshape(_x(T, 6), -BIG), TypeError),
    ("broadcast_to int", lambda T: T.broadcast_to(_x(T, 6), 6), TypeError),
    ("as_strided stride float", lambda T: T.as_strided(_x(T, 4), (2,), (1.0,)), TypeError),
    # copying ops
    ("flip non-tensor", lambda T: T.flip(1e300, [0, -1]), TypeError),
    ("flip method float", lambda T: _x(T, 5, 3).flip((1.5,)), TypeError),
    ("flip method big", lambda T: _x(T, 2, 3).flip((BIG,)), TypeError),
    ("flip method bool", lambda T: _x(T, 3).flip(True), TypeError),
    ("roll shifts bool", lambda T: T.roll(_x(T, 5), False, (0, 0)), TypeError),
    ("roll dims bool", lambda T: T.roll(_x(T, 3, 4), -1, True), TypeError),
    ("roll shift big", lambda T: T.roll(_x(T, 2, 3), 2 * BIG, -1), ValueError),
    ("roll shift inf", lambda T: T.roll(_x(T, 5), (1, inf), (0, 0)), TypeError),
    ("roll shift str", lambda T: T.roll(_x(T, 3, 4), (1, "x"), (0, 1)), TypeError),
    ("roll shift symint", lambda T: T.roll(_x(T, 5), (SYMINT_TAG, 2), (0, 0)), RuntimeError),
    ("roll no shifts", lambda T: T.roll(_x(T, 5), ()), RuntimeError),
    ("rot90 k nan", lambda T: T.rot90(_x(T, 3, 4), nan), TypeError),
    ("rot90 k big", lambda T: T.rot90(_x(T, 3, 4), 2 * BIG), ValueError),
    ("rot90 dims inf", lambda T: T.rot90(_x(T, 2, 3, 4), 1, (-inf, 2)), TypeError),
    ("repeat bool", lambda T: _x(T, 2, 1).repeat(True), TypeError),
    ("repeat overflow", lambda T: _x(T, 4).repeat((4, 2 ** 62)), RuntimeError),
    ("tile non-tensor", lambda T: T.tile(1, (2, 1, 2)), TypeError),
    ("tile float", lambda T: _x(T).tile((2.5,)), TypeError),
    ("tile nan", lambda T: T.tile(_x(T, 3), (2, nan, 2)), TypeError),
    ("tile function int", lambda T: T.tile(_x(T, 2, 3), 2), TypeError),
    ("tile overflow", lambda T: _x(T, 1, 4, 3).tile((12, 2 ** 62)), RuntimeError),
    ("tile method int overflow", lambda T: _x(T, 2, 3).tile(2 ** 62), RuntimeError),
    ("repeat_interleave repeats bool",
     lambda T: T.repeat_interleave(_x(T, 2, 3), False, dim=-1), TypeError),
    ("repeat_interleave repeats inf",
     lambda T: T.repeat_interleave(_x(T, 2, 3), inf, dim=-1), TypeError),
    ("repeat_interleave repeats nan",
     lambda T: T.repeat_interleave(_x(T, 2, 3), nan, dim=0), TypeError),
    ("repeat_interleave int16 repeats",
     lambda T: T.repeat_interleave(_x(T, 3, 2), T.tensor([1, -2, 3], dtype=T.int16), dim=0),
     NotImplementedError),
    ("repeat_interleave 0-d with dim",
     lambda T: T.repeat_interleave(_x(T), T.tensor([1, 0, 2]), dim=0), IndexError),
    ("repeat_interleave 0-d with dim -1",
     lambda T: T.repeat_interleave(_x(T), T.tensor([2]), dim=-1), IndexError),
    ("repeat_interleave overflow",
     lambda T: T.repeat_interleave(_x(T, 3, 4), 2 ** 62), RuntimeError),
    ("repeat_interleave output_size bool",
     lambda T: T.repeat_interleave(_x(T, 2), 2, output_size=True), TypeError),
    ("tril diagonal float", lambda T: T.tril(_x(T, 3, 3), 1.5), TypeError),
    ("tril diagonal nan", lambda T: T.tril(_x(T, 3, 3), diagonal=nan), TypeError),
    ("triu diagonal bool", lambda T: T.triu(_x(T, 3, 3), True), TypeError),
    ("triu_ diagonal float", lambda T: _x(T, 3, 3).triu_(0.5), TypeError),
    # pad
    ("pad non-tensor", lambda T: _pad(T)(7, (1, 2)), TypeError),
    ("pad bool", lambda T: _pad(T)(_x(T, 2, 3), (False, 0, 2, 1)), TypeError),
    ("pad -inf", lambda T: _pad(T)(_x(T, 2, 3, 4), (-inf, 1, 1, 0, 2, 2)), TypeError),
    ("pad value tuple", lambda T: _pad(T)(_x(T, 2, 3), (1, 1), value=()), TypeError),
    ("pad value complex", lambda T: _pad(T)(_x(T, 2, 3), (1, 1), value=1j), TypeError),
    ("pad mode int", lambda T: _pad(T)(_x(T, 2, 3), (1, 1), mode=3), TypeError),
    ("pad int", lambda T: _pad(T)(_x(T, 2, 3), 2), TypeError),
    ("pad overflow", lambda T: _pad(T)(_x(T, 2, 3), (1, 0, 2 ** 63 - 1, 1)), RuntimeError),
    ("pad negative size", lambda T: _pad(T)(_x(T, 2, 3), (-2, -2)), RuntimeError),
    ("pad symint", lambda T: _pad(T)(_x(T, 2, 3), (SYMINT_TAG, 1)), RuntimeError),
    # a method's only size beyond 64 bits fails as the varargs list it is
    ("repeat one size big", lambda T: _x(T, 2, 3).repeat(BIG), TypeError),
    ("tile one size big", lambda T: _x(T, 2).tile(2 ** 64), TypeError),
    ("tile second size big", lambda T: _x(T, 2).tile(1, BIG), TypeError),
    ("repeat one bool", lambda T: _x(T, 2).repeat(True), TypeError),
    # only the one-tensor overload goes without repeats, and it takes no dim
    ("repeat_interleave None repeats with dim",
     lambda T: T.repeat_interleave(T.ones(2, 3), None, dim=1), TypeError),
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


# What the parsing must still accept (the method forms take ints as varargs,
# numbers of other kinds are fine where PyTorch takes them), checked against NumPy.

def test_flip_and_tile_methods_take_varargs():
    a = np.arange(6).reshape(2, 3)
    x = cygrad.tensor(a)
    assert x.flip(0, 1).tolist() == np.flip(a, (0, 1)).tolist()
    assert x.flip(1).tolist() == np.flip(a, 1).tolist()
    assert x.tile(2).tolist() == np.tile(a, 2).tolist()
    assert x.tile(2, 1, 2).tolist() == np.tile(a, (2, 1, 2)).tolist()
    assert x.repeat(np.int64(2), 1).tolist() == np.tile(a, (2, 1)).tolist()
    assert x.flip(dims=[0]).tolist() == np.flip(a, 0).tolist()
    assert x.tile(dims=(2,)).tolist() == np.tile(a, 2).tolist()
    assert x.repeat(repeats=(1, 2)).tolist() == np.tile(a, (1, 2)).tolist()


def test_roll_with_empty_dims_rolls_the_flattened_tensor():
    a = np.arange(12).reshape(3, 4)
    assert cygrad.roll(cygrad.tensor(a), -1, []).tolist() == np.roll(a, -1).tolist()


def test_roll_of_an_empty_tensor_ignores_the_dims():
    # PyTorch returns a copy before it looks at the dims
    x = cygrad.zeros((0, 3, 0))
    assert cygrad.roll(x, 0, 4).shape == (0, 3, 0)


def test_roll_and_rot90_gradients_with_extreme_counts():
    # the backward negates the shift / count: that must not leave the int64 range
    x = cygrad.arange(5, dtype=cygrad.float64).requires_grad_()
    y = cygrad.roll(x, 2 ** 63 - 1, 0)
    assert y.tolist() == np.roll(np.arange(5.0), (2 ** 63 - 1) % 5).tolist()
    (y * cygrad.arange(5, dtype=cygrad.float64)).sum().backward()
    assert x.grad.tolist() == np.roll(np.arange(5.0), -((2 ** 63 - 1) % 5)).tolist()
    m = cygrad.arange(4, dtype=cygrad.float64).reshape(2, 2).requires_grad_()
    r = cygrad.rot90(m, -2 ** 63)
    (r * cygrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=cygrad.float64)).sum().backward()
    assert r.tolist() == np.rot90(np.arange(4.0).reshape(2, 2), -2 ** 63 % 4).tolist()
    assert m.grad.tolist() == np.rot90(np.array([[1.0, 2.0], [3.0, 4.0]]), 2 ** 63 % 4).tolist()


def test_number_kinds_still_accepted():
    a = np.arange(6.0).reshape(2, 3)
    x = cygrad.tensor(a)
    assert cygrad.tril(x, np.int64(0)).tolist() == np.tril(a).tolist()
    assert cygrad.select(x, cygrad.tensor(1), 0).tolist() == a[:, 0].tolist()
    assert cygrad.narrow(x, 1, cygrad.tensor(1), 2).tolist() == a[:, 1:3].tolist()
    padded = cygrad.nn.functional.pad(x, (1, 0), value=cygrad.tensor(7.0))
    assert padded.tolist() == np.pad(a, ((0, 0), (1, 0)), constant_values=7.0).tolist()
    assert cygrad.squeeze(cygrad.zeros(1, 2, 1), (0, 2)).shape == (2,)
    assert [p.tolist() for p in cygrad.tensor_split(x, cygrad.tensor([1]), 1)] == \
        [a[:, :1].tolist(), a[:, 1:].tolist()]


def test_zero_dim_tensor_repeats_and_tiles_empty_sizes():
    x = cygrad.tensor(np.int16(6))
    for y in (x.repeat(()), x.tile(())):
        assert y.shape == () and y.dtype is cygrad.int16 and y.item() == 6
        assert y.data_ptr() != x.data_ptr()       # a copy, not the input
