"""Argument errors of the reductions and matrix products, as PyTorch raises them
(``cygrad/ops/reduction``, ``cygrad/ops/linalg``): regressions of the fuzzer's
pinned failure classes.  Each case asserts cygrad's exception type and, where
torch is installed, that torch raises the same type for the same call."""
import math
import warnings

import numpy as np
import pytest

import cygrad

RNG = np.random.default_rng(0)
X234 = RNG.uniform(-2, 2, (2, 3, 4))
I8 = np.array([[1, 2], [3, 4]], dtype=np.int8)
BATCH = RNG.uniform(-2, 2, (2, 2, 2))


def _pair(a, dtype=None):
    """The same array as a cygrad and a torch tensor (torch None when absent)."""
    try:
        import torch
    except ImportError:
        torch = None
    c = cygrad.tensor(a) if dtype is None else cygrad.tensor(a, dtype=getattr(cygrad, dtype))
    t = None
    if torch is not None:
        t = torch.tensor(a) if dtype is None else torch.tensor(a, dtype=getattr(torch, dtype))
    return c, t


def _raises_like_torch(exc, call, *arrays):
    """``call(lib, *tensors)`` raises ``exc`` in cygrad and (if installed) in torch."""
    pairs = [_pair(*a) if isinstance(a, tuple) else _pair(a) for a in arrays]
    with pytest.raises(exc):
        call(cygrad, *(c for c, _ in pairs))
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        call(torch, *(t for _, t in pairs))


def _same_as_torch(call, *arrays):
    """``call`` succeeds in both libraries with equal dtype, shape and values."""
    pairs = [_pair(*a) if isinstance(a, tuple) else _pair(a) for a in arrays]
    got = call(cygrad, *(c for c, _ in pairs))
    torch = pytest.importorskip("torch")
    want = call(torch, *(t for _, t in pairs))
    assert got.dtype.name == str(want.dtype).replace("torch.", "")
    np.testing.assert_allclose(got.numpy().astype(np.float64),
                               want.numpy().astype(np.float64), rtol=1e-5, atol=1e-6)


# --------------------------------------------------------------------- keepdim & flags
KEEPDIM_CALLS = {
    "sum": lambda T, x, k: T.sum(x, dim=1, keepdim=k),
    "nansum": lambda T, x, k: T.nansum(x, dim=(-1, 0), keepdim=k),
    "mean": lambda T, x, k: T.mean(x, dim=(-1, 0), keepdim=k),
    "nanmean": lambda T, x, k: T.nanmean(x, dim=1, keepdim=k),
    "prod": lambda T, x, k: T.prod(x, 1, keepdim=k),
    "amax": lambda T, x, k: T.amax(x, dim=(-1, 0), keepdim=k),
    "amin": lambda T, x, k: T.amin(x, dim=(-1, 0), keepdim=k),
    "aminmax": lambda T, x, k: T.aminmax(x, dim=-1, keepdim=k),
    "max": lambda T, x, k: T.max(x, 1, keepdim=k),
    "argmax": lambda T, x, k: T.argmax(x, keepdim=k),
    "all": lambda T, x, k: T.all(x, dim=1, keepdim=k),
    "any": lambda T, x, k: T.any(x, dim=1, keepdim=k),
    "logsumexp": lambda T, x, k: T.logsumexp(x, dim=(-1, 0), keepdim=k),
    "median": lambda T, x, k: T.median(x, 0, keepdim=k),
    "kthvalue": lambda T, x, k: T.kthvalue(x, 1, 0, k),
    "mode": lambda T, x, k: T.mode(x, 1, k),
    "std": lambda T, x, k: T.std(x, 1, True, k),
    "var": lambda T, x, k: T.var(x, 1, True, k),
    "norm": lambda T, x, k: T.norm(x, 3, (0, 2), k),
}


@pytest.mark.parametrize("name", sorted(KEEPDIM_CALLS))
@pytest.mark.parametrize("keepdim", [2, 1.5, None, "x"], ids=["int", "float", "None", "str"])
def test_keepdim_must_be_bool(name, keepdim):
    call = KEEPDIM_CALLS[name]
    _raises_like_torch(TypeError, lambda T, x: call(T, x, keepdim), X234)


def test_keepdim_bool_still_works():
    _same_as_torch(lambda T, x: T.sum(x, dim=1, keepdim=True), X234)
    _same_as_torch(lambda T, x: T.amax(x, dim=(0, 2), keepdim=False), X234)


@pytest.mark.parametrize("call", [
    lambda T, x: T.sort(x, 1, None),
    lambda T, x: T.sort(x, stable=1),
    lambda T, x: T.argsort(x, 1, 1.5),
    lambda T, x: T.argsort(x, stable=None),
    lambda T, x: T.topk(x, 2, 0, "x"),
    lambda T, x: T.topk(x, 2, sorted=1),
    lambda T, x: T.unique(x, return_inverse=None),
    lambda T, x: T.unique(x, return_counts=1),
], ids=["sort_descending", "sort_stable", "argsort_descending", "argsort_stable",
        "topk_largest", "topk_sorted", "unique_inverse", "unique_counts"])
def test_bool_flags_must_be_bool(call):
    _raises_like_torch(TypeError, call, X234)


# --------------------------------------------------------------------- dims and ints
@pytest.mark.parametrize("call", [
    lambda T, x: T.amin(x, dim=(0, 2 ** 64)),
    lambda T, x: T.nanmean(x, dim=(2 ** 64, 2)),
    lambda T, x: T.var_mean(x, (0, 2 ** 63)),
    lambda T, x: T.std_mean(x, (2 ** 64, 2)),
    lambda T, x: T.norm(x, "fro", (0, 2 ** 63)),
    lambda T, x: T.sum(x, (0, 1.5)),
    lambda T, x: T.logsumexp(x, None),
], ids=["amin", "nanmean", "var_mean", "std_mean", "norm", "sum_float", "logsumexp_none"])
def test_bad_dim_list_is_a_type_error(call):
    _raises_like_torch(TypeError, call, X234)


@pytest.mark.parametrize("call", [
    lambda T, x: T.topk(x, 2 ** 64, -1),
    lambda T, x: T.kthvalue(x, 2 ** 64),
    lambda T, x: T.cumsum(x, 2 ** 64),
    lambda T, x: T.sum(x, 2 ** 64),
], ids=["topk_k", "kthvalue_k", "cumsum_dim", "sum_dim"])
def test_int_beyond_64_bits_is_a_value_error(call):
    _raises_like_torch(ValueError, call, X234)


@pytest.mark.parametrize("call", [
    lambda T, x: T.topk(x, (0, 0)),
    lambda T, x: T.kthvalue(x, None),
    lambda T, x: T.kthvalue(x, True),
    lambda T, x: T.cumsum(x, True),
    lambda T, x: T.aminmax(x, dim=True),
    lambda T, x: T.prod(x, dim=(0, 1)),
    lambda T, x: T.prod(x, dim=[]),
    lambda T, x: T.max(x, None),
    lambda T, x: T.min(x, dim=None, keepdim=True),
    lambda T, x: T.max(x, keepdim=True),
], ids=["topk_tuple", "kthvalue_none", "kthvalue_bool", "cumsum_bool", "aminmax_bool",
        "prod_tuple", "prod_empty_list", "max_none", "min_none", "max_keepdim_only"])
def test_wrong_int_argument_is_a_type_error(call):
    _raises_like_torch(TypeError, call, X234)


def test_bool_after_the_first_dim_reads_as_an_int():
    # PyTorch's parser checks only a dim list's first element for int-ness
    _same_as_torch(lambda T, x: T.sum(x, dim=(-1, False), keepdim=True), X234)
    _same_as_torch(lambda T, x: T.std(x, (0, True)), X234)
    _raises_like_torch(TypeError, lambda T, x: T.sum(x, dim=(True, 0)), X234)


def test_dtype_is_checked_before_dims():
    _raises_like_torch(RuntimeError, lambda T, x: T.mean(x, dim=(0, 2)), (I8,))
    _raises_like_torch(RuntimeError, lambda T, x: T.nanmean(x, dim=-2 ** 63), (I8,))
    _raises_like_torch(IndexError, lambda T, x: T.kthvalue(x, 1, 2 ** 63 - 1), (I8 > 0,))


# --------------------------------------------------------------------- all/any dim=[]
@pytest.mark.parametrize("name", ["all", "any"])
@pytest.mark.parametrize("keepdim", [False, True])
def test_all_any_empty_dim_list_reduces_nothing(name, keepdim):
    a = RNG.uniform(-1, 1, (5,)) > 0
    _same_as_torch(lambda T, x: getattr(T, name)(x, dim=[], keepdim=keepdim), a)
    _same_as_torch(lambda T, x: getattr(T, name)(x, dim=()), X234)


# --------------------------------------------------------------------- var & std
@pytest.mark.parametrize("call", [
    lambda T, x: T.var(x, unbiased=False, out=T.empty(0)),
    lambda T, x: T.std(x, unbiased=True, keepdim=True),
    lambda T, x: T.var_mean(x, True, True, True),
    lambda T, x: T.std(x, unbiased=None),
    lambda T, x: T.std_mean(x, unbiased="x"),
    lambda T, x: T.var(x, 0, None),
    lambda T, x: T.std(x, 1, True, 1.5),
    lambda T, x: T.var(x, 1, correction="x"),
], ids=["unbiased_out", "unbiased_keepdim", "legacy_extra", "unbiased_none", "unbiased_str",
        "unbiased_positional_none", "keepdim_float", "correction_str"])
def test_var_std_argument_combinations(call):
    _raises_like_torch(TypeError, call, X234)


def test_var_std_argument_type_errors_come_before_the_dtype_check():
    _raises_like_torch(TypeError, lambda T, x: T.std(x, unbiased=None), (I8,))
    _raises_like_torch(ValueError, lambda T, x: T.std_mean(x, 2 ** 64), (I8,))


def test_var_correction_beyond_64_bits_overflows():
    _raises_like_torch(OverflowError, lambda T, x: T.var(x, 0, correction=2 ** 64), X234)


def test_var_overloads_that_exist_still_work():
    _same_as_torch(lambda T, x: T.var(x, None, False, out=T.empty(0)), X234)
    _same_as_torch(lambda T, x: T.var(x, 0, unbiased=False, out=T.empty(0)), X234)
    _same_as_torch(lambda T, x: T.std(x, unbiased=False), X234)
    _same_as_torch(lambda T, x: T.var(x, True), X234)


@pytest.mark.parametrize("correction", [math.nan, math.inf, 2 ** 63, 1.5, -1])
def test_var_correction_values_match_torch(correction):
    # a correction with no degrees of freedom left divides by 0 (NaN included)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        _same_as_torch(lambda T, x: T.std(x, 0, correction=correction), X234)


# --------------------------------------------------------------------- norm
def test_norm_p_none_is_frobenius():
    _same_as_torch(lambda T, x: T.norm(x, None), X234)


def test_nuclear_norm_refuses_half_precision():
    for dt in ("float16", "bfloat16"):
        _raises_like_torch(RuntimeError, lambda T, x: T.norm(x, "nuc", (1, 2)), (X234, dt))


# --------------------------------------------------------------------- add* family
ADD_CALLS = {
    "addmm": lambda T, i, m, v, b, **kw: T.addmm(i, m, m, **kw),
    "addmv": lambda T, i, m, v, b, **kw: T.addmv(i[0], m, v, **kw),
    "addr": lambda T, i, m, v, b, **kw: T.addr(i, v, v, **kw),
    "baddbmm": lambda T, i, m, v, b, **kw: T.baddbmm(b, b, b, **kw),
    "addbmm": lambda T, i, m, v, b, **kw: T.addbmm(i, b, b, **kw),
}
ADD_ARRAYS = (BATCH[0], BATCH[0], BATCH[0, 0], BATCH)


@pytest.mark.parametrize("name", sorted(ADD_CALLS))
@pytest.mark.parametrize("kw, exc", [
    ({"alpha": 2 ** 70}, OverflowError), ({"beta": 2 ** 64}, OverflowError),
    ({"alpha": 1e308}, RuntimeError), ({"beta": 1e308}, RuntimeError),
    ({"beta": "x"}, TypeError), ({"alpha": None}, TypeError),
], ids=["alpha_big_int", "beta_big_int", "alpha_1e308", "beta_1e308", "beta_str", "alpha_none"])
def test_add_family_scalars_must_fit(name, kw, exc):
    call = ADD_CALLS[name]
    arrays = [(a, "float32") for a in ADD_ARRAYS]
    _raises_like_torch(exc, lambda T, i, m, v, b: call(T, i, m, v, b, **kw), *arrays)


@pytest.mark.parametrize("name", ["addmm", "addmv", "baddbmm", "addbmm", "addr"])
@pytest.mark.parametrize("number", [2.5, 9223372036854775808, math.inf])
def test_add_family_input_must_be_a_tensor(name, number):
    def call(T, m, v, b):
        fn = getattr(T, name)
        args = {"addmm": (m, m), "addmv": (m, v), "baddbmm": (b, b), "addbmm": (b, b),
                "addr": (v, v)}[name]
        return fn(number, *args)
    _raises_like_torch(TypeError, call, *ADD_ARRAYS[1:])


@pytest.mark.parametrize("name", ["addmm", "addmv", "baddbmm", "addbmm"])
def test_add_family_refuses_mixed_dtypes(name):
    call = ADD_CALLS[name]
    arrays = [(ADD_ARRAYS[0], "bfloat16"), (ADD_ARRAYS[1], "float64"),
              (ADD_ARRAYS[2], "float64"), (ADD_ARRAYS[3], "float64")]
    if name == "baddbmm":
        arrays[3] = (ADD_ARRAYS[3], "float32")
        call = lambda T, i, m, v, b: T.baddbmm(b, b.double(), b.double())   # noqa: E731
    _raises_like_torch(RuntimeError, call, *arrays)


@pytest.mark.parametrize("name", ["addmm", "addmv", "baddbmm", "addbmm"])
@pytest.mark.parametrize("kw", [{"beta": 0.5}, {"alpha": 2.0}, {"alpha": -1e-320, "beta": 2.0}])
def test_add_family_integer_inputs_keep_their_dtype(name, kw):
    # PyTorch converts float alpha/beta to the integer dtype (truncating)
    call = ADD_CALLS[name]
    ints = (np.array([[1, -2], [3, 4]]), np.array([[2, 1], [-1, 3]]), np.array([1, -2]),
            np.array([[[1, 2], [3, 4]], [[0, -1], [2, 1]]]))
    _same_as_torch(lambda T, i, m, v, b: call(T, i, m, v, b, **kw),
                   *[(a, "int16") for a in ints])


def test_addr_refuses_a_float_scalar_for_integers():
    v = np.array([1, 2], dtype=np.uint8)
    _raises_like_torch(RuntimeError, lambda T, i, x: T.addr(i, x, x, alpha=3.0),
                       (np.ones((2, 2), np.uint8),), (v,))


@pytest.mark.parametrize("name", ["baddbmm", "addbmm"])
def test_batch2_of_too_few_dims_is_an_index_error(name):
    call = lambda T, i, b, v: getattr(T, name)(i, b, v)     # noqa: E731
    inp = BATCH if name == "baddbmm" else BATCH[0]
    _raises_like_torch(IndexError, call, (inp, "float32"), (BATCH, "float32"),
                       (BATCH[0, 0], "float32"))


# --------------------------------------------------------------------- products
def test_empty_bool_products_need_no_kernel():
    empty = np.zeros((0, 3), bool)
    _same_as_torch(lambda T, m, v: T.mv(m, v), empty, np.ones(3, bool))
    _same_as_torch(lambda T, a, b: T.mm(a, b), empty, np.ones((3, 2), bool))


def test_bool_bmm_is_not_implemented_before_the_dtype_mismatch():
    _raises_like_torch(NotImplementedError, lambda T, a, b: T.bmm(a, b),
                       (BATCH > 0,), (BATCH, "float16"))


def test_einsum_argument_errors():
    _raises_like_torch(ValueError, lambda T, x: T.einsum("ij->ji", []), BATCH[0])
    _raises_like_torch(ValueError, lambda T, x: T.einsum("ij->ji"), BATCH[0])
    _raises_like_torch(TypeError, lambda T, x: T.einsum(255, x, x), BATCH[0])


@pytest.mark.parametrize("eq, shapes", [
    ("ij,jk->ik", ((4, 1), (3, 4))),       # j broadcast: PyTorch sums it away (int64)
    ("ij,jk->ik", ((2, 3), (3, 4))),       # a product: the dtype stays
    ("i,j->", ((3,), (4,))),
    ("ij,kl->ik", ((2, 3), (2, 3))),
    ("ij,jk->ik", ((2, 1), (1, 3))),
    ("ij->i", ((2, 3),)),
])
def test_einsum_integer_result_dtype_matches_torch(eq, shapes):
    arrays = [(RNG.integers(-3, 4, s), "int32") for s in shapes]
    _same_as_torch(lambda T, *ops: T.einsum(eq, *ops), *arrays)


@pytest.mark.parametrize("dims", [math.nan, 1.0, "x", None])
def test_tensordot_bad_dims_is_a_runtime_error(dims):
    _raises_like_torch(RuntimeError, lambda T, a, b: T.tensordot(a, b, dims=dims),
                       BATCH[0], BATCH[0])


# --------------------------------------------------------------------- fuzz classes, round 2
# softmax/log_softmax without an int dim, median's dim type before its dtype, norm's
# dim as a list argument, size reads of mv/baddbmm/addbmm before rank checks,
# tensordot's pairwise dim checks and dims=0 with a 0-d operand, NaN tolerances.
def _raises_both(exc, build):
    """``build(module)`` raises ``exc`` under cygrad and, where installed, under torch."""
    with pytest.raises(exc):
        build(cygrad)
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        build(torch)


@pytest.mark.parametrize("name", ["softmax", "log_softmax"])
@pytest.mark.parametrize("dim", [None, 1.0, True])
def test_softmax_function_needs_an_int_dim(name, dim):
    _raises_both(TypeError, lambda T: getattr(T, name)(T.ones(2, 3), dim))
    _raises_both(TypeError, lambda T: getattr(T.ones(2, 3), name)(dim))


def test_softmax_implicit_dim_rule_of_nn_functional():
    from cygrad.ops.reduction.softmax import implicit_dim
    with pytest.warns(UserWarning, match="Implicit dimension choice"):
        dims = [implicit_dim(cygrad.zeros((2,) * n), "softmax") for n in range(5)]
    assert dims == [0, 0, 1, 0, 1]


@pytest.mark.parametrize("dim", [1.5, None, True])
def test_median_dim_type_checked_before_bool_dtype(dim):
    _raises_both(TypeError, lambda T: T.median(T.tensor(False), dim))
    _raises_both(TypeError, lambda T: T.median(T.ones(3), dim))


def test_median_without_dim_and_bool_input():
    x = np.array([3.0, 1.0, 2.0, 5.0])
    assert cygrad.median(cygrad.tensor(x)).item() == np.sort(x)[1]
    _raises_both(NotImplementedError, lambda T: T.median(T.tensor([True, False])))


@pytest.mark.parametrize("dim", [2**64, [2**64], 1.5])
def test_norm_dim_is_a_list_argument(dim):
    _raises_both(TypeError, lambda T: T.norm(T.ones(4, 3), -math.inf, dim))


def test_norm_int_dim_values():
    x = np.arange(12.0).reshape(4, 3) - 5
    got = cygrad.norm(cygrad.tensor(x), 2, 1)
    np.testing.assert_allclose(got.numpy(), np.sqrt((x * x).sum(1)), rtol=1e-6)


@pytest.mark.parametrize("mat, vec", [((), (3,)), ((), (2, 3))])
def test_mv_of_a_scalar_matrix_is_an_index_error(mat, vec):
    _raises_both(IndexError, lambda T: T.mv(T.ones(mat), T.ones(vec)))


@pytest.mark.parametrize("mat, vec", [((3,), (3,)), ((2, 3), ()), ((2, 2, 3), (3,))])
def test_mv_rank_errors(mat, vec):
    _raises_both(RuntimeError, lambda T: T.mv(T.ones(mat), T.ones(vec)))


@pytest.mark.parametrize("b1, b2, exc", [
    ((2,), (2, 2, 2), IndexError), ((), (2, 2, 2), IndexError),
    ((2, 2, 2), (2,), IndexError), ((2, 2, 2), (), IndexError),
    ((2, 2, 2), (2, 2), IndexError), ((2, 2), (2, 2, 2), RuntimeError)])
def test_baddbmm_reads_result_sizes_before_ranks(b1, b2, exc):
    _raises_both(exc, lambda T: T.baddbmm(T.ones(2, 2, 2), T.ones(b1), T.ones(b2)))


def test_addbmm_short_batch1_is_an_index_error():
    _raises_both(IndexError, lambda T: T.addbmm(T.ones(2, 2), T.ones(2), T.ones(2, 2, 2)))


def test_tensordot_checks_pairs_in_order():
    _raises_both(RuntimeError, lambda T: T.tensordot(
        T.ones(5, 2, dtype=T.int32), T.ones(4, 3, dtype=T.int32), dims=([0, 2], [1, 0])))


def test_tensordot_with_a_scalar_and_no_contraction():
    a = np.arange(6.0).reshape(2, 3)
    got = cygrad.tensordot(cygrad.tensor(a), cygrad.tensor(2.5, dtype=cygrad.float64), dims=0)
    np.testing.assert_allclose(got.numpy(), np.tensordot(a, 2.5, axes=0))


@pytest.mark.parametrize("name", ["allclose", "isclose"])
@pytest.mark.parametrize("rtol, atol", [(0.0, math.nan), (math.nan, 0.0), (-1.0, 0.0),
                                        (0.0, -1.0)])
def test_close_refuses_negative_or_nan_tolerances(name, rtol, atol):
    _raises_both(RuntimeError, lambda T: getattr(T, name)(
        T.ones(3, dtype=T.int8), T.ones(3, dtype=T.int8), rtol=rtol, atol=atol))


# Second campaign: addmv's ranks, input expanding (never broadcasting) to the add*
# product, addr promoting before alpha, baddbmm's dtype check order, norm's p as a
# Scalar, prod(dim=None), var/std of half into a wider single-element out=, kthvalue
# of a 0-d bool.
def test_addmv_refuses_input_of_two_dims():
    _raises_both(RuntimeError, lambda T: T.addmv(T.zeros(1, 2), T.zeros(2, 2), T.zeros(2)))


def test_addmv_refuses_wrong_factor_ranks():
    _raises_both(RuntimeError, lambda T: T.addmv(T.zeros(2), T.zeros(2, 2, 2), T.zeros(2)))


@pytest.mark.parametrize("op, shapes", [
    ("addr", [(2, 3), (2,), (1,)]),
    ("addmm", [(3, 2), (2, 2), (2, 2)]),
    ("baddbmm", [(3, 2, 2), (2, 2, 2), (2, 2, 2)]),
])
def test_input_must_expand_to_product(op, shapes):
    # the product never broadcasts up to the input's shape
    _raises_both(RuntimeError, lambda T: getattr(T, op)(*[T.zeros(s) for s in shapes]))


def test_addr_promotes_before_scaling():
    a = np.array([[1.5, -2.25, 3.0], [0.5, 4.0, -1.0]])
    v, w = np.array([-1, -2]), np.array([3, 0, 3])
    res = cygrad.addr(cygrad.tensor(a, dtype=cygrad.bfloat16), cygrad.tensor(v),
                      cygrad.tensor(w), alpha=3.0)
    assert res.dtype is cygrad.bfloat16
    expected = a + 3.0 * np.outer(v, w)
    np.testing.assert_allclose(res.float().numpy(), expected, rtol=1e-2)
    torch = pytest.importorskip("torch")
    ref = torch.addr(torch.tensor(a, dtype=torch.bfloat16), torch.tensor(v), torch.tensor(w),
                     alpha=3.0)
    assert ref.dtype is torch.bfloat16
    np.testing.assert_array_equal(res.float().numpy(), ref.float().numpy())


@pytest.mark.parametrize("dtypes, exc", [
    (("bool", "bool", "float64"), NotImplementedError),
    (("bool", "bool", "bool"), NotImplementedError),
    (("float32", "bool", "float64"), RuntimeError),
    (("float32", "float32", "bool"), RuntimeError),
])
def test_baddbmm_dtype_checks_in_torch_order(dtypes, exc):
    def make(T):
        return T.baddbmm(*[T.zeros(2, 2, 2, dtype=getattr(T, d)) for d in dtypes])
    _raises_both(exc, make)


@pytest.mark.parametrize("p", [2**64, 2**70, -2**70])
def test_norm_p_beyond_64_bits_is_overflow(p):
    # parsed as a Scalar before the (bool) input is looked at
    _raises_both(OverflowError, lambda T: T.norm(T.ones(3, dtype=T.bool), p))


def test_norm_p_at_uint64_edge_is_accepted():
    x = np.array([1.0, 1.0])
    assert cygrad.norm(cygrad.tensor(x), 2**63).item() == pytest.approx(1.0)


@pytest.mark.parametrize("call", [
    lambda T, x: T.prod(x, dim=None),
    lambda T, x: T.prod(x, None, False),
    lambda T, x: x.prod(dim=None),
])
def test_prod_refuses_explicit_none_dim(call):
    _raises_both(TypeError, lambda T: call(T, T.ones(2, 3)))


def test_prod_without_dim_still_reduces_all():
    x = np.array([[1.0, 2.0], [3.0, 4.0]])
    assert cygrad.prod(cygrad.tensor(x)).item() == np.prod(x)


@pytest.mark.parametrize("shape, dim, out_dtype", [
    ((5,), 0, "float32"),
    ((3, 1), 0, "float32"),
    ((), None, "float64"),
])
@pytest.mark.parametrize("opname", ["std", "var"])
def test_var_std_of_half_into_wider_single_element_out(opname, shape, dim, out_dtype):
    def make(T):
        out = T.empty(0, dtype=getattr(T, out_dtype))
        x = T.ones(shape, dtype=T.float16)
        return getattr(T, opname)(x, out=out) if dim is None else \
            getattr(T, opname)(x, dim, out=out)
    _raises_both(RuntimeError, make)


def test_var_of_half_into_wider_out_over_a_dim_works():
    x = np.array([[1.0, 2.0], [3.0, 5.0], [4.0, 0.5]])
    out = cygrad.empty(0)
    cygrad.var(cygrad.tensor(x, dtype=cygrad.float16), 0, out=out)
    np.testing.assert_allclose(out.numpy(), np.var(x, axis=0, ddof=1), rtol=1e-3)


@pytest.mark.parametrize("make_input", [
    lambda T: T.tensor(True),
    lambda T: T.tensor(False),
])
def test_kthvalue_of_zero_dim_bool(make_input):
    values, indices = cygrad.kthvalue(make_input(cygrad), 1)
    assert values.dtype is cygrad.bool and indices.item() == 0
    torch = pytest.importorskip("torch")
    ref = torch.kthvalue(make_input(torch), 1)
    assert values.item() == ref.values.item()


def test_kthvalue_of_bool_vector_is_not_implemented():
    _raises_both(NotImplementedError, lambda T: T.kthvalue(T.ones(3, dtype=T.bool), 1))


@pytest.mark.parametrize("eq, shapes, dtypes", [
    ("i,j->ij", [(3,), (2,)], ["bool", "float16"]),
    ("i,i->i", [(2,), (2,)], ["float32", "float64"]),
    ("ij,k->k", [(2, 3), (2,)], ["int32", "float32"]),
    ("i,j,k->ijk", [(2,), (2,), (2,)], ["int8", "uint8", "bool"]),
])
def test_einsum_promotes_without_a_matrix_product(eq, shapes, dtypes):
    arrays = [np.arange(int(np.prod(s))).reshape(s) % 3 for s in shapes]
    operands = [cygrad.tensor(a, dtype=getattr(cygrad, d)) for a, d in zip(arrays, dtypes)]
    res = cygrad.einsum(eq, *operands)
    np.testing.assert_allclose(res.double().numpy(),
                               np.einsum(eq, *[op.double().numpy() for op in operands]))
    torch = pytest.importorskip("torch")
    ref = torch.einsum(eq, *[torch.tensor(a, dtype=getattr(torch, d))
                             for a, d in zip(arrays, dtypes)])
    assert str(res.dtype).split(".")[-1] == str(ref.dtype).split(".")[-1]


def test_einsum_mixed_dtypes_with_a_contraction_still_refused():
    _raises_both(RuntimeError, lambda T: T.einsum("ij,jk->ik", T.ones(2, 2),
                                                  T.ones(2, 2, dtype=T.float64)))


def test_einsum_promoted_gradient_keeps_each_dtype():
    a = cygrad.ones(2, requires_grad=True)
    b = cygrad.ones(3, dtype=cygrad.float64, requires_grad=True)
    cygrad.einsum("i,j->ij", a, b).sum().backward()
    assert a.grad.dtype is cygrad.float32 and b.grad.dtype is cygrad.float64
    np.testing.assert_allclose(a.grad.numpy(), [3.0, 3.0])
