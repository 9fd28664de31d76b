"""One entry path per reduction (issue 8): each public op checks its arguments and
calls its ``Function``'s ``apply`` whether or not grad is needed, so the forward that
runs without grad is the one that runs with it.

* the Function's ``forward`` runs exactly once per call, with and without grad;
* values with and without grad are the same bits, and match NumPy, over layouts and
  dtypes that take the core's C row sums and those that do not (a wrong guess of
  which sums the C path takes would recurse: ``Sum.forward`` hands those to
  ``Tensor.sum``);
* ``max(input, other)``/``min(input, other)`` record this family's ``MaxOther``/
  ``MinOther`` under PyTorch's node names, with PyTorch's gradients and ``out=``
  behaviour;
* ``out=`` is filled after the op computes, and refused up front with grad.
"""
import importlib
import warnings

import numpy as np
import pytest

import cygrad
from cygrad.ops import reduction as R
from entry_helpers import count_forward_calls

extrema, scans, softmax_module, sorting, statistics, sums = (
    importlib.import_module(f"cygrad.ops.reduction.{m}")
    for m in ("extrema", "scans", "softmax", "sorting", "statistics", "sums"))

F32, F64 = cygrad.float32, cygrad.float64


def _x(shape=(3, 4), dtype=F64, seed=0):
    rng = np.random.default_rng(seed)
    return cygrad.tensor(rng.uniform(-2, 2, size=shape), dtype=dtype)


# (id, call, Function whose forward must run once).  Not here: a full sum, or a sum,
# amax or amin over one dim, of a contiguous float tensor without grad, which the
# core's C reductions answer by themselves (a fast path of the array layer; the
# strided cases below take the Function).
FORWARD_CASES = [
    ("sum_dim0_strided", lambda x: x[:, ::2].sum(0), R.SumDim),
    ("sum_last_strided", lambda x: x.t().sum(-1), R.SumDim),
    ("sum_dtype", lambda x: cygrad.sum(x, dtype=F64), R.Sum),
    ("sum_keepdim", lambda x: x.sum(keepdim=True), R.Sum),
    ("nansum", lambda x: x.nansum(1), R.Nansum),
    ("mean", lambda x: x.mean(1), R.MeanDim),
    ("mean_all", lambda x: x.mean(), R.Mean),
    ("nanmean", lambda x: x.nanmean(0), R.Nanmean),
    ("prod", lambda x: x.prod(1), R.ProdDim),
    ("prod_all", lambda x: x.prod(), R.Prod),
    ("max_dim", lambda x: x.max(1), R.MaxDim),
    ("min_dim", lambda x: x.min(0), R.MinDim),
    ("max_all_strided", lambda x: x.t().max(), R.MaxAll),
    ("min_all_strided", lambda x: x.t().min(), R.MinAll),
    ("amax_dim0_strided", lambda x: x[:, ::2].amax(0), R.Amax),
    ("amin_dims", lambda x: x.amin((0, 1)), R.Amin),
    ("aminmax", lambda x: x.aminmax(dim=1), R.Aminmax),
    ("var", lambda x: x.var(1), R.Var),
    ("std", lambda x: x.std(), R.Std),
    ("var_mean", lambda x: cygrad.var_mean(x, 0), R.VarMean),
    ("std_mean", lambda x: cygrad.std_mean(x, 1), R.StdMean),
    ("norm", lambda x: x.norm(), R.Norm),
    ("norm_p1_dim", lambda x: x.norm(1, dim=1), R.Norm),
    ("norm_nuc", lambda x: x.norm("nuc"), R.NuclearNorm),
    ("cumsum", lambda x: x.cumsum(0), R.Cumsum),
    ("cumprod", lambda x: x.cumprod(1), R.Cumprod),
    ("softmax", lambda x: x.softmax(1), R.Softmax),
    ("log_softmax", lambda x: x.log_softmax(0), R.LogSoftmax),
    ("logsumexp", lambda x: x.logsumexp(1), R.Logsumexp),
    ("sort", lambda x: x.sort(1), R.Sort),
    ("msort", lambda x: cygrad.msort(x), R.Sort),
    ("topk", lambda x: x.topk(2), R.Topk),
    ("median_all", lambda x: x.median(), R.MedianAll),
    ("median_dim", lambda x: x.median(1), R.MedianDim),
    ("kthvalue", lambda x: x.kthvalue(2, 0), R.Kthvalue),
    ("mode", lambda x: x.mode(1), R.Mode),
]


@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("case", FORWARD_CASES, ids=[c[0] for c in FORWARD_CASES])
def test_forward_runs_once_with_or_without_grad(case, requires_grad, monkeypatch):
    _, call, cls = case
    calls = count_forward_calls(monkeypatch, cls)
    x = _x().requires_grad_(requires_grad)
    out = call(x)
    first = out if isinstance(out, cygrad.Tensor) else out[0]
    assert len(calls) == 1, f"{cls.__name__}.forward ran {len(calls)} times"
    assert (first.grad_fn is not None) == requires_grad
    if requires_grad:
        assert type(first.grad_fn)._forward_cls is cls


def _layouts(shape, dtype):
    """The same values laid out contiguously, strided, transposed, and as a 0-d or
    empty tensor where the shape says so."""
    base = _x(shape, F64, seed=1)
    arr = base.numpy()
    yield "contiguous", cygrad.tensor(arr, dtype=dtype)
    if len(shape) == 2:
        wide = np.zeros((shape[0], 2 * shape[1]))
        wide[:, ::2] = arr
        yield "strided", cygrad.tensor(wide, dtype=dtype)[:, ::2]
        yield "transposed", cygrad.tensor(np.ascontiguousarray(arr.T), dtype=dtype).t()


SUM_CALLS = [
    ("all", lambda x: x.sum(), lambda a: a.sum()),
    ("dim0", lambda x: x.sum(0), lambda a: a.sum(0)),
    ("last", lambda x: x.sum(-1), lambda a: a.sum(-1)),
    ("last_keepdim", lambda x: x.sum(1, keepdim=True), lambda a: a.sum(1, keepdims=True)),
    ("all_keepdim", lambda x: x.sum(keepdim=True), lambda a: a.sum(keepdims=True)),
    ("tuple_last", lambda x: x.sum((1,)), lambda a: a.sum(1)),
    ("both", lambda x: x.sum((0, 1)), lambda a: a.sum((0, 1))),
    ("to_f64", lambda x: x.sum(1, dtype=F64), lambda a: a.sum(1)),
]


SUM_PARAMS = [pytest.param(call, shape, id=f"{call[0]}-{shape}")
              for call in SUM_CALLS for shape in [(5, 7), (0, 3), (4,)]
              if len(shape) == 2 or call[0] in ("all", "last", "all_keepdim")]


@pytest.mark.parametrize("dtype", [F32, F64, cygrad.float16], ids=str)
@pytest.mark.parametrize("call, shape", SUM_PARAMS)
def test_sum_same_with_and_without_grad(call, shape, dtype):
    _, fn, ref = call
    for layout, x in _layouts(shape, dtype):
        plain = fn(x)
        tracked = fn(x.detach().requires_grad_(True))
        assert tracked.grad_fn is not None, layout
        np.testing.assert_array_equal(plain.numpy(), tracked.detach().numpy(), err_msg=layout)
        expected = ref(x.to(F64).numpy())
        tol = 1e-2 if dtype == cygrad.float16 else 1e-5
        np.testing.assert_allclose(plain.to(F64).numpy(), expected, rtol=tol, atol=tol,
                                   err_msg=layout)


def test_sum_of_a_0d_tensor_with_grad():
    x = cygrad.tensor(2.5, dtype=F32, requires_grad=True)
    for call in (lambda t: t.sum(), lambda t: t.sum(0), lambda t: t.sum(-1, keepdim=True),
                 lambda t: t.sum(keepdim=True)):
        y = call(x)
        assert y.item() == 2.5 and y.grad_fn is not None


def test_full_sum_with_grad_of_strided_and_integer_cast_inputs():
    """``x.sum()`` with grad goes through ``SumAll`` in the core; where its C kernel
    does not apply (strided input) the forward hands over to ``Sum``."""
    x = _x((4, 6), F32).requires_grad_(True)
    y = x.t().sum()
    np.testing.assert_allclose(y.item(), x.detach().numpy().sum(), rtol=1e-5)
    y.backward()
    np.testing.assert_array_equal(x.grad.numpy(), np.ones((4, 6), np.float32))


GRAD_VALUE_CALLS = [
    ("mean0", lambda x: x.mean(0)), ("amax0", lambda x: x.amax(0)),
    ("max_all", lambda x: x.max()), ("max1", lambda x: x.max(1)[0]),
    ("softmax", lambda x: x.softmax(0)), ("cumsum", lambda x: x.cumsum(1)),
    ("norm", lambda x: x.norm(dim=0)), ("var", lambda x: x.var(0)),
    ("sort", lambda x: x.sort(0)[0]), ("logsumexp", lambda x: x.logsumexp(0)),
]


@pytest.mark.parametrize("call", GRAD_VALUE_CALLS, ids=[c[0] for c in GRAD_VALUE_CALLS])
def test_values_same_with_and_without_grad(call):
    _, fn = call
    for layout, x in _layouts((5, 7), F32):
        plain = fn(x)
        tracked = fn(x.detach().requires_grad_(True))
        np.testing.assert_array_equal(plain.numpy(), tracked.detach().numpy(), err_msg=layout)


# --------------------------------------------------------------- max(input, other)

@pytest.mark.parametrize("opname", ["max", "min"])
def test_binary_max_min_node_and_gradients_match_torch(opname):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = np.array([[1.0, 5.0, 2.0], [3.0, 3.0, -1.0]])
    b = np.array([2.0, 5.0, -1.0])                     # broadcast, with ties
    ca = cygrad.tensor(a, requires_grad=True)
    cb = cygrad.tensor(b, requires_grad=True)
    ta = torch.tensor(a, requires_grad=True)
    tb = torch.tensor(b, requires_grad=True)
    cy = getattr(cygrad, opname)(ca, cb)
    th = getattr(torch, opname)(ta, tb)
    assert cy.grad_fn.name() == th.grad_fn.name()
    cls = type(cy.grad_fn)._forward_cls
    assert cls is (R.MaxOther if opname == "max" else R.MinOther)
    assert cls.__module__ == extrema.__name__
    g = np.arange(6.0).reshape(2, 3)
    cy.backward(cygrad.tensor(g))
    th.backward(torch.tensor(g))
    np.testing.assert_array_equal(cy.detach().numpy(), th.detach().numpy())
    np.testing.assert_array_equal(ca.grad.numpy(), ta.grad.numpy())
    np.testing.assert_array_equal(cb.grad.numpy(), tb.grad.numpy())


def test_binary_max_method_form_and_forward_mode():
    import cygrad.autograd.forward_ad as fwAD
    a, b = _x((2, 3), seed=4), _x((2, 3), seed=5)
    np.testing.assert_array_equal(a.max(b).numpy(), np.maximum(a.numpy(), b.numpy()))
    ta = cygrad.tensor(np.ones((2, 3)))
    with fwAD.dual_level():
        y = cygrad.min(fwAD.make_dual(a, ta), b)
        tangent = fwAD.unpack_dual(y).tangent
    np.testing.assert_array_equal(tangent.numpy(), (a.numpy() < b.numpy()) * 1.0)


def test_binary_max_out_matches_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a, b = _x((3,), F32, seed=6), _x((3,), F32, seed=7)
    ta, tb = torch.from_numpy(a.numpy()), torch.from_numpy(b.numpy())
    out = cygrad.empty(3, dtype=F64)
    assert cygrad.max(a, b, out=out) is out
    np.testing.assert_array_equal(out.numpy(), torch.max(ta, tb).double().numpy())
    with pytest.raises(RuntimeError) as cy_err:
        cygrad.max(a, b, out=cygrad.empty(3, dtype=cygrad.int64))
    with pytest.raises(RuntimeError) as th_err:
        torch.max(ta, tb, out=torch.empty(3, dtype=torch.int64))
    assert str(cy_err.value) == str(th_err.value)
    with pytest.raises(RuntimeError) as cy_err:
        cygrad.min(a.detach().requires_grad_(True), b, out=cygrad.empty(3))
    with pytest.raises(RuntimeError) as th_err:
        torch.min(ta.clone().requires_grad_(True), tb, out=torch.empty(3))
    assert str(cy_err.value) == str(th_err.value)
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        out = cygrad.max(a, b, out=cygrad.empty(2))
    assert tuple(out.shape) == (3,) and any("resized" in str(w.message) for w in caught)


# --------------------------------------------------------------------------- out=

OUT_CASES = [
    ("sum", lambda x, out: cygrad.sum(x, 1, out=out), lambda a: a.sum(1)),
    ("mean", lambda x, out: cygrad.mean(x, 0, out=out), lambda a: a.mean(0)),
    ("amax", lambda x, out: cygrad.amax(x, 1, out=out), lambda a: a.max(1)),
    ("cumsum", lambda x, out: cygrad.cumsum(x, 0, out=out), lambda a: a.cumsum(0)),
    ("logsumexp", lambda x, out: cygrad.logsumexp(x, 1, out=out),
     lambda a: np.log(np.exp(a).sum(1))),
    ("norm", lambda x, out: cygrad.norm(x, 2, 1, out=out), lambda a: np.sqrt((a * a).sum(1))),
    ("var", lambda x, out: cygrad.var(x, 1, out=out), lambda a: a.var(1, ddof=1)),
]


@pytest.mark.parametrize("case", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_out_is_filled_after_the_op_and_refused_with_grad(case):
    _, call, ref = case
    x = _x((3, 4))
    expected = ref(x.numpy())
    out = cygrad.empty(expected.shape, dtype=F64)
    version = out._version
    assert call(x, out) is out
    np.testing.assert_allclose(out.numpy(), expected, rtol=1e-12)
    assert out._version > version
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic "
                                           "differentiation"):
        call(x.requires_grad_(True), cygrad.empty(expected.shape, dtype=F64))


def test_sort_out_pair_after_the_op():
    x = _x((3, 4))
    values, indices = cygrad.empty(3, 4, dtype=F64), cygrad.empty(3, 4, dtype=cygrad.int64)
    r = cygrad.sort(x, 1, out=(values, indices))
    assert r.values is values and r.indices is indices
    np.testing.assert_array_equal(values.numpy(), np.sort(x.numpy(), 1))
    np.testing.assert_array_equal(indices.numpy(), np.argsort(x.numpy(), 1, kind="stable"))


@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "grad"])
def test_degrees_of_freedom_warning_points_at_the_caller(requires_grad):
    x = _x((1, 3)).requires_grad_(requires_grad)
    with pytest.warns(UserWarning, match="degrees of freedom") as caught:
        cygrad.var(x, 0)
    assert caught[0].filename == __file__


def test_modules_hold_their_functions():
    """Each Function lives in the module of its family (what test_function_class
    checks for every op-table row, here also for the classes no row reaches)."""
    for module, names in [(sums, ["Sum", "SumAll", "SumDim", "Mean", "Prod"]),
                          (extrema, ["MaxOther", "MinOther", "Amax", "Aminmax"]),
                          (statistics, ["Var", "StdMean"]), (scans, ["Cumsum"]),
                          (softmax_module, ["Softmax", "Logsumexp"]),
                          (sorting, ["Sort", "Topk"])]:
        for name in names:
            assert getattr(module, name).__module__ == module.__name__
