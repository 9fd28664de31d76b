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


def _type_cases(T):
    """Calls that must raise the same exception type in cygrad and PyTorch."""
    x = T.zeros(3, 4)
    i2 = T.zeros(2, 2, dtype=T.int64)
    s = T.zeros(2, 2, 4)
    return {
        "index_add_2d_index": (IndexError, lambda: T.index_add(x, 0, i2, s)),
        "index_add_inplace_2d_index": (IndexError, lambda: x.clone().index_add_(0, i2, s)),
        "index_copy_2d_index": (IndexError, lambda: T.index_copy(x, 0, i2, s)),
        "scatter_reduce_not_str": (TypeError, lambda: T.scatter(x, 0, i2, 1.0, reduce=3)),
        "masked_fill_bool_mask": (TypeError, lambda: T.masked_fill(x, True, 1.0)),
        "masked_fill_int_mask": (TypeError, lambda: T.masked_fill(x, 1, 1.0)),
        "masked_fill_inplace_bool_mask": (TypeError, lambda: x.clone().masked_fill_(True, 1.0)),
        "stack_dim_before_sizes": (IndexError, lambda: T.stack([T.zeros(2), T.zeros(3)], dim=5)),
        "tril_diagonal_overflow": (ValueError, lambda: T.tril(x, 1 << 63)),
        "movedim_number": (TypeError, lambda: T.movedim(False, 0, -1)),
    }


TYPE_CASES = sorted(_type_cases(cygrad))


@pytest.mark.parametrize("name", TYPE_CASES)
def test_exception_type_like_torch(name):
    expected, call = _type_cases(cygrad)[name]
    with pytest.raises(expected):
        call()
    torch = pytest.importorskip("torch")
    expected, call = _type_cases(torch)[name]
    with pytest.raises(expected):
        call()


@pytest.mark.parametrize("diagonal", [-(1 << 63), (1 << 63) - 1, -5, 7])
def test_tril_triu_far_diagonals(diagonal):
    np = pytest.importorskip("numpy")
    x = cygrad.ones(3, 4)
    k = min(max(diagonal, -100), 100)      # NumPy's own tri() overflows at the int64 ends
    np.testing.assert_array_equal(cygrad.tril(x, diagonal).numpy(), np.tril(np.ones((3, 4)), k))
    np.testing.assert_array_equal(cygrad.triu(x, diagonal).numpy(), np.triu(np.ones((3, 4)), k))


@pytest.mark.parametrize("start,end,steps", [
    (float("nan"), 2.5, 5), (0.0, float("nan"), 4), (-float("inf"), 0.0, 3),
    (-float("inf"), -float("inf"), 1), (0, 10, 6), (2.0, -3.0, 7)])
def test_linspace_logspace_special_ends_like_torch(start, end, steps):
    torch = pytest.importorskip("torch")
    np = pytest.importorskip("numpy")
    for name in ("linspace", "logspace"):
        got = getattr(cygrad, name)(start, end, steps).numpy().astype(np.float64)
        want = getattr(torch, name)(start, end, steps).numpy().astype(np.float64)
        np.testing.assert_allclose(got, want, rtol=1e-6, equal_nan=True, err_msg=name)


def test_linspace_of_impossible_length_is_a_runtime_error():
    with pytest.raises(RuntimeError):
        cygrad.linspace(0, 1, 1 << 62, dtype=cygrad.int64)
    with pytest.raises(RuntimeError):
        cygrad.logspace(0, 1, 1 << 62)


@pytest.mark.parametrize("sections", [1 << 31, 1 << 32, 1 << 62])
def test_tensor_split_into_impossibly_many_sections_raises_at_once(sections):
    # it used to build one view per section: a hang, then an out-of-memory kill
    with pytest.raises(RuntimeError):
        cygrad.tensor_split(cygrad.zeros(7, 2), sections)


def test_tensor_split_impossible_sections_like_torch():
    # only the size no allocator can attempt: PyTorch may really build 2**31 results
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        torch.tensor_split(torch.zeros(7, 2), 1 << 62)


@pytest.mark.parametrize("n", [0, 2])
def test_index_select_of_a_scalar_needs_exactly_one_index(n):
    # with an empty index this returned uninitialised memory
    with pytest.raises(RuntimeError, match="only 1 value"):
        cygrad.index_select(cygrad.tensor(1.0), 0, cygrad.zeros(n, dtype=cygrad.int64))
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="only 1 value"):
        torch.index_select(torch.tensor(1.0), 0, torch.zeros(n, dtype=torch.int64))


def test_index_select_of_a_scalar_with_one_index():
    assert cygrad.index_select(cygrad.tensor(2.5), 0, cygrad.tensor([0])).item() == 2.5


@pytest.mark.parametrize("base_shape", [(1, 2, 3), (4, 1, 3), (4, 2, 1), (1, 1, 1)])
@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, 2.0), (0, 1)])
def test_baddbmm_inplace_on_an_expanded_input_matches_torch(base_shape, beta, alpha):
    # cygrad refused the aliased output; PyTorch writes it batch by batch, element by
    # element, each write reading what the previous one left
    torch = pytest.importorskip("torch")
    import numpy as np
    rng = np.random.default_rng(7)
    s, b1, b2 = rng.standard_normal(base_shape), rng.standard_normal((4, 2, 5)), \
        rng.standard_normal((4, 5, 3))
    if beta == 0:
        s[..., 0] = np.nan          # beta == 0 ignores the input, NaNs included
    expected = torch.from_numpy(s.copy()).expand(4, 2, 3).baddbmm_(
        torch.from_numpy(b1), torch.from_numpy(b2), beta=beta, alpha=alpha)
    x = cygrad.from_numpy(s.copy())
    got = x.expand(4, 2, 3).baddbmm_(cygrad.from_numpy(b1), cygrad.from_numpy(b2),
                                     beta=beta, alpha=alpha)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(x.numpy(), expected.numpy()[tuple(slice(0, n) for n in base_shape)],
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("name", ["unsafe_split", "split_copy"])
@pytest.mark.parametrize("split_size", [(0, 0), [2, 2], 1.5, True])
def test_unsafe_split_and_split_copy_take_one_int(name, split_size):
    # only split has the list-of-sizes overload: these raised split_with_sizes's
    # RuntimeError where PyTorch's argument parser raises TypeError
    with pytest.raises(TypeError, match="split_size"):
        getattr(cygrad, name)(cygrad.zeros(4), split_size)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError, match="split_size"):
        getattr(torch, name)(torch.zeros(4), split_size)


def test_view_copy_of_an_expanded_input_copies_like_torch():
    # no view of shape (-1, 2) describes this input: view() refuses, view_copy copies
    import numpy as np
    x = np.random.default_rng(3).standard_normal((2, 1, 2))
    got = cygrad.view_copy(cygrad.from_numpy(x.copy()).expand(2, 3, 2), (-1, 2))
    np.testing.assert_array_equal(got.numpy(), np.broadcast_to(x, (2, 3, 2)).reshape(6, 2))
    with pytest.raises(RuntimeError, match="invalid for input of size 12"):
        cygrad.view_copy(cygrad.from_numpy(x.copy()).expand(2, 3, 2), (5,))
    torch = pytest.importorskip("torch")
    np.testing.assert_array_equal(
        torch.view_copy(torch.from_numpy(x.copy()).expand(2, 3, 2), (-1, 2)).numpy(), got.numpy())


@pytest.mark.parametrize("name", ["quantile", "nanquantile"])
@pytest.mark.parametrize("dtype", ["int32", "float64"])
@pytest.mark.parametrize("q", [None, "0.5", [0.5]])
def test_quantile_q_of_the_wrong_type_is_a_type_error_before_the_dtype_check(name, dtype, q):
    with pytest.raises(TypeError):
        getattr(cygrad, name)(cygrad.zeros(4, 2, dtype=getattr(cygrad, dtype)), q, dim=0)
    torch = pytest.importorskip("torch")
    with pytest.raises(TypeError):
        getattr(torch, name)(torch.zeros(4, 2, dtype=getattr(torch, dtype)), q, dim=0)
