"""Reductions, scans, sorting and softmax (``cygrad/ops/reduction.py``): the cases the
generated op-table tests do not reach — NaN propagation, numerical stability, sort
stability, ``out=``, named-tuple results, dim handling and error types — checked
against NumPy for values and PyTorch for semantics."""
import math
import pickle
import warnings

import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")

NAN, INF = float("nan"), float("inf")


def cy(a):
    return cygrad.from_numpy(np.array(a, copy=True))


def th(a):
    return torch.from_numpy(np.array(a, copy=True))


def assert_same(actual, expected, atol=1e-6, rtol=1e-5):
    """cygrad result(s) vs torch result(s): same dtype, shape and values (NaN == NaN)."""
    acts = list(actual) if isinstance(actual, tuple) else [actual]
    exps = list(expected) if isinstance(expected, tuple) else [expected]
    assert len(acts) == len(exps)
    for a, e in zip(acts, exps):
        assert a.dtype.name == str(e.dtype).replace("torch.", "")
        assert tuple(a.shape) == tuple(e.shape)
        e_np = e.to(torch.float64).numpy() if e.dtype == torch.bfloat16 else e.numpy()
        a_np = a.numpy()
        if a_np.dtype.kind in "biu":
            np.testing.assert_array_equal(a_np, e_np)
        else:
            np.testing.assert_allclose(a_np.astype(np.float64), e_np.astype(np.float64),
                                       atol=atol, rtol=rtol, equal_nan=True)


def cy_kwargs(kwargs):
    """torch dtypes in kwargs -> the cygrad dtype of the same name."""
    return {k: getattr(cygrad, str(v).replace("torch.", "")) if isinstance(v, torch.dtype) else v
            for k, v in kwargs.items()}


def both(name, a, *args, **kwargs):
    """Run ``name`` on cygrad and torch with the same array input."""
    return (getattr(cygrad, name)(cy(a), *args, **cy_kwargs(kwargs)),
            getattr(torch, name)(th(a), *args, **kwargs))


def error_of(fn):
    try:
        fn()
    except Exception as e:          # noqa: BLE001 - the type is what we compare
        return e
    return None


def same_error(name, a, *args, **kwargs):
    """cygrad raises an instance of the exception type torch raises."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        t_err = error_of(lambda: getattr(torch, name)(th(a), *args, **kwargs))
        c_err = error_of(lambda: getattr(cygrad, name)(cy(a), *args, **cy_kwargs(kwargs)))
    assert t_err is not None, f"torch accepted {name}{args}{kwargs}"
    assert c_err is not None, f"cygrad accepted {name}{args}{kwargs}; torch raised {t_err!r}"
    assert isinstance(c_err, type(t_err)), f"torch {t_err!r}, cygrad {c_err!r}"
    return c_err


# ---------------------------------------------------------------------------
# dims, aliases, dtypes
# ---------------------------------------------------------------------------
X234 = np.arange(24, dtype=np.float32).reshape(2, 3, 4) / 7 - 1


@pytest.mark.parametrize("name", ["sum", "mean", "amax", "amin", "logsumexp", "all", "any",
                                  "nansum", "nanmean"])
@pytest.mark.parametrize("dim", [0, -1, (0, 2), [2, 1], (-3, -1, 1)])
@pytest.mark.parametrize("keepdim", [False, True])
def test_multi_dim_reductions_match_torch(name, dim, keepdim):
    assert_same(*both(name, X234, dim, keepdim))


@pytest.mark.parametrize("name", ["var", "std", "norm"])
@pytest.mark.parametrize("dim", [0, -1, (0, 2), [2, 1]])
def test_var_std_norm_dims_match_torch(name, dim):
    assert_same(*both(name, X234, dim=dim, keepdim=True))
    assert_same(*both(name, X234, dim=dim))


def test_numpy_aliases():
    x = cy(X234)
    for name in ("sum", "mean", "amax", "var", "all", "max", "argmax"):
        fn = getattr(cygrad, name)
        expected = fn(x, 1, keepdim=True)
        got = fn(x, axis=1, keepdims=True)
        for g, e in zip(got if isinstance(got, tuple) else (got,),
                        expected if isinstance(expected, tuple) else (expected,)):
            np.testing.assert_array_equal(g.numpy(), e.numpy())
    assert x.sum(axis=(0, 2)).shape == (3,)


def test_dim_errors_match_torch():
    same_error("sum", X234, 3)
    same_error("sum", X234, (0, 0))
    same_error("amax", X234, (1, -2))
    same_error("mean", X234, 1.5)
    same_error("max", X234, (0,))          # max takes one int dim
    same_error("cumsum", X234, 5)


@pytest.mark.parametrize("name,args", [("sum", (0,)), ("sum", (-1,)), ("mean", ((0,),)),
                                       ("max", (0,)), ("min", (-1, True)), ("argmax", (0,)),
                                       ("amax", (0,)), ("cumsum", (0,)), ("cumprod", (-1,)),
                                       ("softmax", (0,)), ("log_softmax", (-1,)),
                                       ("sort", (0,)), ("argsort", (-1,)), ("logsumexp", (0,)),
                                       ("var", (0,)), ("norm", (2, 0)), ("prod", (0,))])
def test_zero_dim_input_takes_dim_0_and_minus_1(name, args):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")          # var of one element warns in both
        assert_same(*both(name, np.float32(2.5), *args))
    bad = (2, 1) if name == "norm" else (1,) + args[1:]     # norm's dim is its 2nd arg
    same_error(name, np.float32(2.5), *bad)


@pytest.mark.parametrize("np_dt", [np.bool_, np.uint8, np.int8, np.int16, np.int32, np.int64])
def test_sum_prod_cumsum_of_integers_give_int64(np_dt):
    a = (np.arange(12) % 5 + 1).astype(np_dt).reshape(3, 4)
    for name, args in (("sum", ()), ("sum", (1,)), ("prod", ()), ("prod", (0,)),
                       ("cumsum", (1,)), ("cumprod", (0,))):
        c, t = both(name, a, *args)
        assert c.dtype == cygrad.int64
        assert_same(c, t)


def test_int8_sum_does_not_overflow_and_int64_wraps_like_torch():
    a = np.full(100, 127, np.int8)
    assert cygrad.sum(cy(a)).item() == 12700
    big = np.array([2 ** 62, 2 ** 62, 2 ** 62], np.int64)
    assert_same(*both("sum", big))


def test_dtype_kwarg_converts_first():
    a = np.array([[1.5, 2.5], [-1.7, 3.9]], np.float32)
    assert_same(cygrad.sum(cy(a), dtype=cygrad.int64), torch.sum(th(a), dtype=torch.int64))
    assert_same(cygrad.prod(cy(a), 1, dtype=cygrad.int32), torch.prod(th(a), 1, dtype=torch.int32))
    assert_same(cygrad.cumsum(cy(a), 1, dtype=cygrad.int32),
                torch.cumsum(th(a), 1, dtype=torch.int32))
    assert_same(cygrad.mean(cy(a.astype(np.int64)), dtype=cygrad.float64),
                torch.mean(th(a.astype(np.int64)), dtype=torch.float64))


def test_mean_of_integers_raises_like_torch():
    err = same_error("mean", np.arange(4))
    assert str(err) == ("mean(): could not infer output dtype. Input dtype must be either a "
                        "floating point or complex dtype. Got: Long")
    same_error("mean", np.arange(4.0), dtype=torch.int64)


@pytest.mark.parametrize("np_dt,name", [(np.float16, "float16"), (None, "bfloat16")])
def test_half_types_accumulate_in_float32(np_dt, name):
    # 3000 x 0.1 in float16 arithmetic stalls at 256; a float32 accumulator gets 300
    ones = np.full(3000, 0.1, np.float32)
    c = cygrad.tensor(ones).to(getattr(cygrad, name))
    t = torch.tensor(ones).to(getattr(torch, name))
    for fn in (lambda m, x: m.sum(x), lambda m, x: m.mean(x) * 3000,
               lambda m, x: m.cumsum(x, 0)[-1], lambda m, x: m.norm(x) ** 2):
        got, exp = fn(cygrad, c), fn(torch, t)
        assert got.dtype == getattr(cygrad, name)
        assert abs(got.to(cygrad.float64).item() - exp.to(torch.float64).item()) <= 0.02 * 300


# ---------------------------------------------------------------------------
# empty reductions
# ---------------------------------------------------------------------------
E = np.zeros((2, 0), np.float32)


def test_empty_reductions_with_identity_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for name, args in (("sum", ()), ("sum", (1,)), ("prod", (1,)), ("mean", ()),
                           ("mean", (1,)), ("all", (1,)), ("any", (1,)), ("logsumexp", (1,)),
                           ("count_nonzero", (1,)), ("cumsum", (1,)), ("var", (1,)),
                           ("norm", ()), ("softmax", (1,)), ("sort", (1,)), ("amax", (0,)),
                           ("max", (0,)), ("argmax", (0,)), ("median", ())):
            assert_same(*both(name, E, *args))


@pytest.mark.parametrize("name,args", [("max", ()), ("min", ()), ("max", (1,)), ("min", (-1,)),
                                       ("amax", ()), ("amax", (1,)), ("amin", (-1,)),
                                       ("argmax", ()), ("argmin", (1,)), ("median", (1,)),
                                       ("mode", (1,)), ("kthvalue", (1, 1)),
                                       ("norm", (INF,)), ("norm", (-INF, 1)), ("norm", (-1,))])
def test_empty_reductions_without_identity_raise_like_torch(name, args):
    same_error(name, E, *args)


def test_empty_max_message():
    with pytest.raises(IndexError, match=r"max\(\): Expected reduction dim 1 to have non-zero"):
        cygrad.max(cy(E), 1)
    with pytest.raises(RuntimeError, match="Specify the reduction dim"):
        cy(E).max()


# ---------------------------------------------------------------------------
# NaN propagation
# ---------------------------------------------------------------------------
NAN_ROWS = np.array([[1.0, NAN, 3.0, NAN], [4.0, 2.0, 8.0, 0.0], [NAN, 5.0, -1.0, 7.0]],
                    np.float32)


@pytest.mark.parametrize("name,args", [("max", ()), ("min", ()), ("max", (1,)), ("min", (1,)),
                                       ("amax", (1,)), ("amin", (0,)), ("argmax", (1,)),
                                       ("argmin", (1,)), ("argmax", ()), ("median", ()),
                                       ("median", (1,)), ("kthvalue", (4, 1)), ("sort", (1,)),
                                       ("sort", (1, True)), ("argsort", (0,)), ("topk", (2,)),
                                       ("logsumexp", (1,)), ("cumsum", (1,)), ("sum", (1,)),
                                       ("norm", (INF, 1)), ("unique", ())])
def test_nan_propagation_matches_torch(name, args):
    assert_same(*both(name, NAN_ROWS, *args))


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_max_method_fast_path_propagates_nan(dt):
    c = cygrad.tensor([1.0, NAN, 3.0]).to(getattr(cygrad, dt))
    assert math.isnan(c.max().to(cygrad.float32).item())
    assert math.isnan(c.amax().to(cygrad.float32).item())
    assert math.isnan(cygrad.min(c).to(cygrad.float32).item())
    assert c.argmax().item() == 1


# ---------------------------------------------------------------------------
# numerical stability
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("dt", ["float32", "float64", "float16", "bfloat16"])
@pytest.mark.parametrize("shift", [1000.0, -1000.0, 0.0])
def test_softmax_family_is_stable_on_large_inputs(dt, shift):
    if dt in ("float16", "bfloat16") and shift:
        shift = math.copysign(60000.0 if dt == "float16" else 1e30, shift)
    base = np.array([[0.0, 1.0, 2.0, 3.0], [-5.0, 0.0, 5.0, 0.5]])
    a = base + shift
    c = cygrad.tensor(a).to(getattr(cygrad, dt))
    t = torch.tensor(a).to(getattr(torch, dt))
    tol = {"float32": 1e-5, "float64": 1e-12, "float16": 2e-3, "bfloat16": 2e-2}[dt]
    for name in ("softmax", "log_softmax"):
        got = getattr(cygrad, name)(c, 1)
        assert np.isfinite(got.to(cygrad.float64).numpy()).all()
        assert_same(got, getattr(torch, name)(t, 1), atol=tol, rtol=tol)
    got = cygrad.logsumexp(c, 1)
    assert np.isfinite(got.to(cygrad.float64).numpy()).all()
    assert_same(got, torch.logsumexp(t, 1), atol=tol, rtol=tol)


def test_softmax_values_vs_numpy_at_1000():
    a = np.array([1000.0, 1001.0, 1002.0])
    expected = np.exp(a - a.max()) / np.exp(a - a.max()).sum()
    np.testing.assert_allclose(cygrad.softmax(cy(a), 0).numpy(), expected, rtol=1e-12)
    np.testing.assert_allclose(cygrad.logsumexp(cy(a), 0).item(),
                               1002 + np.log(np.exp(-2) + np.exp(-1) + 1), rtol=1e-12)


def test_infinite_inputs_match_torch():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for row in ([-INF, -INF], [INF, 1.0], [INF, -INF], [-INF, 2.0], [NAN, 1.0]):
            a = np.array([row, [0.0, 1.0]], np.float32)
            for name in ("softmax", "log_softmax", "logsumexp"):
                assert_same(*both(name, a, 1))
    assert cygrad.logsumexp(cy([-INF, -INF]), 0).item() == -INF


def test_logsumexp_of_integers_is_float():
    assert_same(*both("logsumexp", np.arange(6).reshape(2, 3), 1))
    assert_same(*both("logsumexp", np.array([True, False]), 0))


def test_softmax_function_needs_dim():
    # torch.softmax has no implicit dim (only nn.functional.softmax keeps that rule)
    x = X234[0]
    with pytest.raises(TypeError):
        torch.softmax(th(x), None)
    with pytest.raises(TypeError):
        cygrad.softmax(cy(x), None)


def test_softmax_dtype_kwarg_and_int_error():
    a = np.arange(6).reshape(2, 3)
    assert_same(*both("softmax", a, 1, dtype=torch.float64))
    assert_same(cygrad.log_softmax(cy(a.astype(np.float32)), 1, dtype=cygrad.float64),
                torch.log_softmax(th(a.astype(np.float32)), 1, dtype=torch.float64))
    same_error("softmax", a, 1)


# ---------------------------------------------------------------------------
# variance / std
# ---------------------------------------------------------------------------
def test_var_std_signatures_match_torch():
    x = X234
    assert_same(*both("var", x, 1, True))               # legacy (dim, unbiased)
    assert_same(*both("var", x, 1, False, True))        # legacy (dim, unbiased, keepdim)
    assert_same(*both("std", x, True))                   # legacy (unbiased)
    assert_same(*both("std", x, unbiased=False))
    assert_same(*both("var", x, (0, 2), correction=0))
    assert_same(*both("var", x, 1, correction=0.5))
    assert_same(*both("var_mean", x, 1, keepdim=True))
    assert_same(*both("std_mean", x, (0, 1), correction=2))
    assert type(cygrad.var_mean(cy(x))) is tuple
    same_error("var", np.arange(4))


def test_var_with_no_degrees_of_freedom_warns_and_matches_torch():
    for a, kw in ((np.array([1.0]), {}), (np.array([1.0, 2.0]), {"correction": 3})):
        with pytest.warns(UserWarning, match="degrees of freedom"):
            c = cygrad.var(cy(a), **kw)
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            assert_same(c, torch.var(th(a), **kw))


def test_var_is_accurate_with_a_large_offset():
    # a one-pass E[x^2] - E[x]^2 would cancel catastrophically here
    a = 1e8 + np.array([4.0, 7.0, 13.0, 16.0])
    assert cygrad.var(cy(a)).item() == pytest.approx(np.var(a, ddof=1), rel=1e-9)


# ---------------------------------------------------------------------------
# norm
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("p", [2, 1, 0, 3, 0.5, -1, -2, INF, -INF, "fro"])
@pytest.mark.parametrize("dim", [None, 1, (0, 1)])
def test_norm_orders_match_torch(p, dim):
    a = np.array([[3.0, -4.0, 0.0], [1.0, 2.0, -2.0]], np.float32)
    assert_same(*both("norm", a, p, dim), atol=1e-5)


def test_matrix_norms_and_dtype_match_torch():
    a = X234
    assert_same(*both("norm", a, "nuc", (1, 2)), atol=1e-5)
    assert_same(*both("norm", a[0], "nuc"), atol=1e-5)
    assert_same(*both("norm", a, "fro", (0, 2), True), atol=1e-5)
    assert_same(cygrad.norm(cy(a), dtype=cygrad.float64), torch.norm(th(a), dtype=torch.float64))
    same_error("norm", a, "fro", (0, 1, 2))
    same_error("norm", a, "nuc")
    same_error("norm", a, "bad")
    same_error("norm", np.arange(3))


# ---------------------------------------------------------------------------
# max / min forms and named tuples
# ---------------------------------------------------------------------------
def test_max_three_forms():
    x = X234
    assert_same(*both("max", x))
    assert_same(*both("max", x, 1))
    assert_same(*both("min", x, dim=-1, keepdim=True))
    other = np.linspace(-1, 1, 4).astype(np.float32)
    assert_same(cygrad.max(cy(x), cy(other)), torch.max(th(x), th(other)))
    assert_same(cy(x).min(cy(other)), th(x).min(th(other)))


def test_return_types_are_named_tuples():
    r = cygrad.max(cy(X234), 1)
    assert isinstance(r, tuple) and isinstance(r, cygrad.return_types.max)
    values, indices = r
    assert values is r.values and indices is r.indices and r[0] is values
    assert type(r).__module__ == "cygrad.return_types"
    assert type(cygrad.sort(cy(X234))).__name__ == "sort"
    assert isinstance(cygrad.topk(cy(X234), 2), cygrad.return_types.topk)
    assert repr(cygrad.return_types.min(1, 2)) == "cygrad.return_types.min(\nvalues=1,\nindices=2)"
    # the classes live in a real module, so they pickle by name
    assert pickle.loads(pickle.dumps(cygrad.return_types.max(1, 2))) == (1, 2)


def test_max_ties_pick_the_first_index_like_torch():
    a = np.array([[2, 5, 5, 1], [7, 7, 7, 7]], np.int64)
    assert_same(*both("max", a, 1))
    assert_same(*both("min", a, 0))
    assert_same(*both("argmax", a, 1))
    assert_same(*both("argmin", a))


def test_argmax_flat_and_bool_error():
    assert_same(*both("argmax", X234, keepdim=True))
    assert_same(*both("argmin", X234[:, ::-1]))
    same_error("argmax", np.array([True, False]))


# ---------------------------------------------------------------------------
# non-contiguous inputs
# ---------------------------------------------------------------------------
def _views():
    base = np.arange(60, dtype=np.float64).reshape(3, 4, 5) * 0.37 % 5 - 2
    t = cy(base)
    yield "transposed", t.permute(2, 0, 1), base.transpose(2, 0, 1)
    yield "flipped", t[::-1], base[::-1]
    yield "strided", t[:, ::2, 1::2], base[:, ::2, 1::2]
    yield "expanded", cy(base[0, 0]).unsqueeze(0).expand(3, 5), np.broadcast_to(base[0, 0], (3, 5))


@pytest.mark.parametrize("kind,view,ref", list(_views()),
                         ids=lambda v: v if isinstance(v, str) else "")
def test_noncontiguous_inputs(kind, view, ref):
    assert not view.is_contiguous()
    np.testing.assert_allclose(cygrad.sum(view, (0, -1)).numpy(), ref.sum(axis=(0, -1)))
    np.testing.assert_allclose(view.sum().item(), ref.sum())
    np.testing.assert_allclose(view.mean(1).numpy(), ref.mean(1))
    np.testing.assert_allclose(view.var(0).numpy(), ref.var(0, ddof=1), rtol=1e-10)
    np.testing.assert_array_equal(view.amax(-1).numpy(), ref.max(-1))
    np.testing.assert_array_equal(view.argmax().item(), ref.argmax())
    np.testing.assert_array_equal(view.max(0).indices.numpy(), ref.argmax(0))
    np.testing.assert_allclose(view.cumsum(1).numpy(), ref.cumsum(1))
    np.testing.assert_array_equal(view.sort(0, stable=True).indices.numpy(),
                                  np.argsort(ref, 0, kind="stable"))
    np.testing.assert_allclose(view.softmax(1).numpy(),
                               np.exp(ref) / np.exp(ref).sum(1, keepdims=True))
    np.testing.assert_array_equal(cygrad.unique(view).numpy(), np.unique(ref))
    np.testing.assert_array_equal(view.count_nonzero(0).numpy(), np.count_nonzero(ref, 0))


# ---------------------------------------------------------------------------
# sorting and selection
# ---------------------------------------------------------------------------
def test_sort_is_stable_in_both_directions():
    rng = np.random.default_rng(0)
    a = rng.integers(0, 4, size=(5, 40))
    asc = cygrad.sort(cy(a), 1)
    np.testing.assert_array_equal(asc.indices.numpy(), np.argsort(a, 1, kind="stable"))
    desc = cygrad.sort(cy(a), 1, descending=True)
    expected = np.array([sorted(range(40), key=lambda i: -row[i]) for row in a])   # stable
    np.testing.assert_array_equal(desc.indices.numpy(), expected)
    np.testing.assert_array_equal(desc.values.numpy(), np.take_along_axis(a, expected, 1))
    t = torch.sort(th(a), dim=1, descending=True, stable=True)
    assert_same(tuple(desc), tuple(t))
    assert_same(cygrad.argsort(cy(a), 0, descending=True, stable=True),
                torch.argsort(th(a), dim=0, descending=True, stable=True))


@pytest.mark.parametrize("dt", ["bool", "uint8", "int8", "float16", "bfloat16"])
def test_sort_small_dtypes_match_torch(dt):
    a = np.array([[3, 0, 1, 1, 0, 2], [1, 1, 0, 3, 3, 2]], np.float32)
    c = cygrad.tensor(a).to(getattr(cygrad, dt))
    t = torch.tensor(a).to(getattr(torch, dt))
    for desc in (False, True):
        assert_same(tuple(cygrad.sort(c, 1, desc, stable=True)),
                    tuple(torch.sort(t, dim=1, descending=desc, stable=True)))


def test_topk_matches_torch_and_gathers_its_values():
    rng = np.random.default_rng(1)
    a = rng.permutation(60).reshape(3, 4, 5).astype(np.float32)
    for args in ((3,), (2, 0), (1, 1, False), (5, -1, True, True), (0,)):
        assert_same(*both("topk", a, *args))
    same_error("topk", a, 6)
    same_error("topk", a, -1)
    tied = np.array([1, 3, 3, 2, 3])
    r = cygrad.topk(cy(tied), 2)
    assert r.values.tolist() == [3, 3]
    assert len(set(r.indices.tolist())) == 2 and (tied[r.indices.numpy()] == 3).all()


def test_unique_matches_torch():
    a = np.array([[3, 1, 2], [1, 3, 3], [0, 1, 2]])
    for kw in ({}, {"return_inverse": True}, {"return_counts": True},
               {"return_inverse": True, "return_counts": True},
               {"dim": 0, "return_inverse": True, "return_counts": True},
               {"dim": 1, "return_counts": True}):
        assert_same(*both("unique", a, **kw))
    assert_same(*both("unique", np.float32(3.0), return_inverse=True, return_counts=True))
    # every NaN is its own value, as in torch
    assert_same(*both("unique", np.array([NAN, 1.0, NAN, 1.0]), return_counts=True))
    bf = cygrad.tensor([2.0, 1.0, 2.0, 0.5]).to(cygrad.bfloat16)
    got = cygrad.unique(bf)
    assert got.dtype == cygrad.bfloat16 and got.to(cygrad.float32).tolist() == [0.5, 1.0, 2.0]


def test_median_kthvalue_mode_match_torch():
    # distinct values: with ties torch's median/kthvalue index is unspecified
    a = np.array([[4.0, 1.0, 3.0, 2.0], [5.0, 9.0, 7.0, 8.0], [1.5, 6.0, 2.5, 0.0]], np.float32)
    assert_same(*both("median", a))
    assert_same(*both("median", a, 1))
    assert_same(*both("median", a, 0, True))
    assert_same(*both("kthvalue", a, 3, 1))
    assert_same(*both("kthvalue", a, 1, 0, True))
    same_error("kthvalue", a, 5)
    same_error("kthvalue", a, 0)
    m = np.array([[2, 1, 2, 1, 3], [0, 0, 4, 4, 4]])
    assert_same(*both("mode", m))
    assert_same(*both("mode", m, 0, True))


# ---------------------------------------------------------------------------
# out=
# ---------------------------------------------------------------------------
def test_out_follows_torch_dtype_rules():
    x = np.arange(6, dtype=np.float32).reshape(2, 3) + 0.5
    # sum/prod/cumsum compute in out's dtype (the input is converted first)
    for name, args in (("sum", (0,)), ("prod", (0,)), ("cumsum", (0,))):
        shape = (2, 3) if name == "cumsum" else (3,)
        c_out = cygrad.empty(shape, dtype=cygrad.int64)
        t_out = torch.empty(shape, dtype=torch.int64)
        v0 = c_out._version
        r = getattr(cygrad, name)(cy(x), *args, out=c_out)
        getattr(torch, name)(th(x), *args, out=t_out)
        assert r is c_out and c_out._version > v0
        assert_same(c_out, t_out)
    # max/amax/argmax want exactly the result dtype; all wants bool; logsumexp a float
    def pair(dtype_name):
        return (cygrad.empty(3, dtype=getattr(cygrad, dtype_name)),
                torch.empty(3, dtype=getattr(torch, dtype_name)))

    f64, i64 = pair("float64"), pair("int64")
    for name, args, out_c, out_t in (
            ("max", (0,), (f64[0], i64[0]), (f64[1], i64[1])),
            ("argmax", (0,)) + pair("int32"),
            ("amax", (0,)) + f64,
            ("all", (0,)) + pair("float32"),
            ("logsumexp", (0,)) + i64,
            ("sum", (0,)) + pair("float32")):          # with dtype=float64 below
        kw = {"dtype": torch.float64} if name == "sum" else {}
        t_err = error_of(lambda: getattr(torch, name)(th(x), *args, out=out_t, **kw))
        kw = {"dtype": cygrad.float64} if name == "sum" else {}
        c_err = error_of(lambda: getattr(cygrad, name)(cy(x), *args, out=out_c, **kw))
        assert isinstance(t_err, RuntimeError) and isinstance(c_err, RuntimeError), name


def test_out_pairs_for_max_and_sort():
    x = X234
    vals, idx = cygrad.empty(2, 4), cygrad.empty(2, 4, dtype=cygrad.int64)
    r = cygrad.max(cy(x), 1, out=(vals, idx))
    assert r.values is vals and r.indices is idx
    assert_same(r, torch.max(th(x), 1))
    vals, idx = cygrad.empty(2, 3, 4), cygrad.empty(2, 3, 4, dtype=cygrad.int64)
    r = cygrad.sort(cy(x), 1, True, out=(vals, idx))
    assert r.values is vals
    assert_same(r, torch.sort(th(x), 1, True))


# ---------------------------------------------------------------------------
# method forms and argument checks
# ---------------------------------------------------------------------------
def test_method_forms_exist():
    x = cy(X234)
    for name in ("sum", "mean", "prod", "max", "min", "amax", "amin", "argmax", "argmin", "var",
                 "std", "norm", "logsumexp", "all", "any", "cumsum", "cumprod", "softmax",
                 "log_softmax", "sort", "argsort", "topk", "unique", "count_nonzero", "median",
                 "kthvalue", "mode", "nansum", "nanmean", "aminmax"):
        assert callable(getattr(x, name)), name
    assert_same(x.topk(2, dim=1), th(X234).topk(2, dim=1))
    assert_same(x.cumprod(dim=2), th(X234).cumprod(dim=2))
    assert_same(x.logsumexp((0, 1)), th(X234).logsumexp((0, 1)))


def test_non_tensor_input_is_a_type_error():
    for name in ("sum", "mean", "max", "sort", "softmax"):
        with pytest.raises(TypeError):
            getattr(cygrad, name)([1.0, 2.0], 0)


def test_tensor_sum_method_falls_back_to_python_paths():
    x = cy(X234)
    np.testing.assert_allclose(x.permute(2, 1, 0).sum().item(), X234.sum(), rtol=1e-6)
    np.testing.assert_allclose(x.sum(1).numpy(), X234.sum(1), rtol=1e-6)
    assert x.sum(dtype=cygrad.float64).dtype == cygrad.float64
    assert cy(np.arange(4)).sum().dtype == cygrad.int64


def test_bool_inputs_rejected_where_torch_rejects_them():
    b = np.array([[True, False, True], [False, False, True]])
    same_error("median", b)
    same_error("median", b, 1)
    same_error("kthvalue", b, 1)
    same_error("topk", b, 1)
    assert_same(*both("sort", b, 1))
    assert_same(*both("mode", b, 1))


@pytest.mark.parametrize("dt", ["float32", "float16", "bfloat16"])
def test_nan_ignoring_reductions(dt):
    a = np.array([[1.0, NAN, 2.0], [NAN, NAN, NAN]], np.float32)
    c = cygrad.from_numpy(a.copy()).to(getattr(cygrad, dt))
    t = torch.from_numpy(a.copy()).to(getattr(torch, dt))
    assert_same(cygrad.nansum(c, 1), torch.nansum(t, 1))
    assert_same(cygrad.nanmean(c, 1), torch.nanmean(t, 1))


def test_random_shapes_and_dims_vs_numpy():
    """Property: for random shapes, dim sets and keepdim, sum/amax/mean/argmax/cumsum of
    a (possibly transposed) view agree with NumPy."""
    hyp = pytest.importorskip("hypothesis", reason="hypothesis not installed")
    st = hyp.strategies

    @hyp.given(shape=st.lists(st.integers(1, 4), min_size=1, max_size=4),
               data=st.data(), keepdim=st.booleans(), transpose=st.booleans())
    def check(shape, data, keepdim, transpose):
        a = np.random.default_rng(len(shape)).standard_normal(shape)
        x = cy(a)
        if transpose:
            x, a = x.permute(*reversed(range(a.ndim))), a.transpose()
        dims = tuple(data.draw(st.sets(st.integers(0, a.ndim - 1), min_size=1)))
        np.testing.assert_allclose(cygrad.sum(x, dims, keepdim).numpy(),
                                   a.sum(axis=dims, keepdims=keepdim), rtol=1e-12)
        np.testing.assert_allclose(cygrad.mean(x, dims, keepdim).numpy(),
                                   a.mean(axis=dims, keepdims=keepdim), rtol=1e-12)
        np.testing.assert_array_equal(cygrad.amax(x, dims, keepdim).numpy(),
                                      a.max(axis=dims, keepdims=keepdim))
        d = dims[0]
        np.testing.assert_array_equal(cygrad.argmax(x, d, keepdim).numpy(),
                                      a.argmax(axis=d, keepdims=keepdim))
        np.testing.assert_allclose(cygrad.cumsum(x, d).numpy(), a.cumsum(axis=d), rtol=1e-12)

    check()


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_large_mean_is_the_row_sum_divided(dtype):
    # a full mean, or one over the last dim, of a contiguous float tensor is the
    # core's row sum divided by n (backend_cpu/reduction.py; other single dims:
    # tests/test_column_reductions.py)
    x = np.random.default_rng(7).standard_normal((300, 1000)).astype(dtype)
    t = cygrad.tensor(x)
    tol = dict(rtol=1e-5, atol=1e-6) if dtype == np.float32 else dict(rtol=1e-12, atol=1e-13)
    assert t.mean().item() == (t.sum() / x.size).item()
    np.testing.assert_array_equal(t.mean(1).numpy(), (t.sum(1) / 1000).numpy())
    np.testing.assert_allclose(t.mean().item(), x.astype(np.float64).mean(), **tol)
    np.testing.assert_allclose(t.mean(-1, keepdim=True).numpy(),
                               x.astype(np.float64).mean(-1, keepdims=True), **tol)
    np.testing.assert_allclose(t.mean(0).numpy(), x.astype(np.float64).mean(0), **tol)
    np.testing.assert_allclose(t.mean((0, 1), keepdim=True).numpy(),
                               x.astype(np.float64).mean(keepdims=True), **tol)
    np.testing.assert_allclose(t[:, ::3].mean(1).numpy(), x[:, ::3].astype(np.float64).mean(1),
                               **tol)
