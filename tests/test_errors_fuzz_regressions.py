"""Regressions for wrong exception types the fuzzer (tests/fuzz) found in the
pure-Python op layer.  Each case is checked against PyTorch's exception type
when PyTorch is installed, and against the expected type always."""
import pytest

import cygrad

# (name, args after the non-tensor input): a Python number where the input tensor goes
NON_TENSOR_INPUT = [
    ("clone", ()), ("tril", ()), ("triu", (1,)), ("squeeze", ()), ("unsqueeze", (0,)),
    ("permute", ((0,),)), ("flatten", ()), ("ravel", ()), ("reshape", ((1,),)),
    ("broadcast_to", ((2,),)), ("chunk", (2,)), ("tensor_split", (2,)), ("unbind", ()),
    ("diagonal", ()), ("fliplr", ()), ("flipud", ()), ("roll", (1,)), ("rot90", ()),
    ("t", ()), ("hsplit", (2,)), ("vsplit", (2,)), ("dsplit", (2,)),
    ("repeat_interleave", (2,)), ("zeros_like", ()), ("ones_like", ()), ("empty_like", ()),
    ("full_like", (1.0,)), ("rand_like", ()), ("randn_like", ()), ("randint_like", (5,)),
    ("bernoulli", ()), ("multinomial", (1,)), ("nan_to_num", ()), ("positive", ()),
    ("atleast_1d", ()), ("atleast_2d", ()), ("atleast_3d", ()), ("broadcast_tensors", ()),
    ("equal", (cygrad.ones(1),)), ("isclose", (cygrad.ones(1),)), ("allclose", (cygrad.ones(1),)),
]


def _torch_args(args, torch):
    return tuple(torch.ones(1) if isinstance(a, cygrad.Tensor) else a for a in args)


@pytest.mark.parametrize("name,args", NON_TENSOR_INPUT, ids=[n for n, _ in NON_TENSOR_INPUT])
def test_number_as_input_is_a_type_error(name, args):
    with pytest.raises(TypeError, match="Tensor"):
        getattr(cygrad, name)(1.5, *args)


@pytest.mark.parametrize("name,args", NON_TENSOR_INPUT, ids=[n for n, _ in NON_TENSOR_INPUT])
def test_number_as_input_like_torch(name, args):
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        getattr(torch, name)(1.5, *_torch_args(args, torch))


@pytest.mark.parametrize("name", ["equal", "isclose", "allclose"])
def test_number_as_other_is_a_type_error(name):
    with pytest.raises(TypeError, match="'other' \\(position 2\\) must be Tensor"):
        getattr(cygrad, name)(cygrad.ones(2), True)


def test_broadcast_tensors_names_the_bad_element():
    with pytest.raises(TypeError, match="element 1"):
        cygrad.broadcast_tensors(cygrad.ones(2), [])


def _isclose_errors(T):
    return [lambda: T.isclose(T.ones(3), T.ones(2)),
            lambda: T.allclose(T.ones(3), T.zeros(2, 3, 2)),
            lambda: T.isclose(T.ones(3), T.ones(3, dtype=T.float64)),
            lambda: T.isclose(T.ones(3), T.ones(3, dtype=T.int64)),
            lambda: T.isclose(T.ones(3), T.ones(3), rtol=-1.0),
            lambda: T.isclose(T.ones(3), T.ones(3), atol=-0.5)]


@pytest.mark.parametrize("index", range(6))
def test_isclose_refuses_like_torch(index):
    with pytest.raises(RuntimeError):
        _isclose_errors(cygrad)[index]()
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        _isclose_errors(torch)[index]()


def test_isclose_still_broadcasts():
    got = cygrad.isclose(cygrad.tensor([[1.0, 2.0]]), cygrad.tensor([1.0, 2.5]))
    assert got.tolist() == [[True, False]]
