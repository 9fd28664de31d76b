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


# clamp promotes over its bounds and checks that number bounds fit the result dtype
CLAMP_CASES = [
    ("uint8", [3, 200], {"min": -1.5, "max": 1.5}),
    ("int16", [-1, 4], {"min": -2, "max": float("nan")}),
    ("int32", [1, 2], {"min": 1.5}),
    ("bool", [True, False], {"min": 0.5}),
    ("uint8", [3, 200], {"min": -1}),
    ("int64", [5, -5], {"min": 0}),
    ("float32", [1.0, 5.0], {"min": -float("inf"), "max": 2}),
    ("float16", [1.0, 5.0], {"max": 65504.0}),
]
CLAMP_ERRORS = [
    ("uint8", [3, 200], {"max": 300}),
    ("float16", [1.0, 2.0], {"min": 1e6}),
    ("int8", [1], {"min": -129}),
    ("bool", [True], {"min": False}),
]


@pytest.mark.parametrize("dtype,values,bounds", CLAMP_CASES)
def test_clamp_result_dtype_and_values_like_torch(dtype, values, bounds):
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    got = cygrad.clamp(cygrad.tensor(values, dtype=getattr(cygrad, dtype)), **bounds)
    want = torch.clamp(torch.tensor(values, dtype=getattr(torch, dtype)), **bounds)
    assert got.dtype.name == str(want.dtype).split(".")[-1]
    np.testing.assert_array_equal(np.asarray(got.tolist(), dtype=np.float64),
                                  np.asarray(want.tolist(), dtype=np.float64))


def test_clamp_float_bound_on_int_tensor_is_float():
    got = cygrad.clamp(cygrad.tensor([0, 9], dtype=cygrad.uint8), min=-1.5, max=1.5)
    assert got.dtype == cygrad.float32 and got.tolist() == [0.0, 1.5]


@pytest.mark.parametrize("dtype,values,bounds", CLAMP_ERRORS)
def test_clamp_bound_out_of_range_raises(dtype, values, bounds):
    expected = NotImplementedError if dtype == "bool" else RuntimeError
    with pytest.raises(expected):
        cygrad.clamp(cygrad.tensor(values, dtype=getattr(cygrad, dtype)), **bounds)
    torch = pytest.importorskip("torch")
    with pytest.raises(expected):
        torch.clamp(torch.tensor(values, dtype=getattr(torch, dtype)), **bounds)


def test_inplace_clamp_refuses_a_float_bound_on_an_int_tensor():
    x = cygrad.tensor([1, 5])
    with pytest.raises(RuntimeError, match="can't be cast"):
        x.clamp_(min=1.5)
    assert x.tolist() == [1, 5]
    assert cygrad.tensor([1, 5]).clamp_(min=2).tolist() == [2, 5]
