"""Gradients of the reduction family (``cygrad/ops/reduction.py``).

* ``gradcheck`` (float64, central differences) for every differentiable op, over
  several dims / keepdim / negative dims and over contiguous, strided and transposed
  inputs;
* ``gradgradcheck`` for the smooth ones (their backward is written with cygrad ops);
* PyTorch's gradients on the same inputs where the derivative needs a convention:
  ties of max/min/median, zeros of prod/cumprod, norms at 0, std of a constant, NaN;
* each ``jvp`` (forward mode) against ``J v`` with ``J`` built by reverse mode.
"""
import math

import numpy as np
import pytest

import cygrad
from cygrad import autograd
from cygrad._core import tensor as _C
from cygrad.autograd.gradcheck import gradcheck, gradgradcheck
from cygrad.ops import reduction as R

f64 = cygrad.float64
INF = math.inf


# ----------------------------------------------------------------------------- inputs

def _values(shape, seed=0):
    """Distinct values away from 0 (|x| in [0.5, 1.5], random signs): max/sort/median
    are smooth there and prod/norm/cumprod do not divide by anything tiny."""
    rng = np.random.default_rng(seed)
    return rng.uniform(0.5, 1.5, size=shape) * rng.choice([-1.0, 1.0], size=shape)


def _leaf(arr, layout="contiguous"):
    """A float64 leaf requiring grad holding ``arr``, laid out as asked:
    ``strided`` (every other element of a wider buffer) or ``transposed``."""
    arr = np.asarray(arr, dtype=np.float64)
    if layout == "contiguous" or arr.ndim == 0:
        t = cygrad.tensor(arr, dtype=f64)
    elif layout == "strided":
        wide = np.zeros(arr.shape[:-1] + (2 * arr.shape[-1],))
        wide[..., ::2] = arr
        t = cygrad.tensor(wide, dtype=f64)[..., ::2]
    else:
        t = cygrad.tensor(np.ascontiguousarray(np.moveaxis(arr, 0, -1)), dtype=f64)
        t = t.movedim(-1, 0)
    assert np.array_equal(t.numpy(), arr, equal_nan=True)
    assert layout == "contiguous" or arr.ndim == 0 or not t.is_contiguous()
    return t.detach().requires_grad_(True)


LAYOUTS = ["contiguous", "strided", "transposed"]


# ------------------------------------------------------------- gradcheck of every op
# Each case maps a (2, 3, 4) float64 tensor to one output or a tuple of outputs.

GRAD_CASES = {
    "sum": lambda t: t.sum(),
    "sum_dim": lambda t: t.sum(1),
    "sum_neg_keepdim": lambda t: cygrad.sum(t, -1, keepdim=True),
    "sum_tuple": lambda t: t.sum((0, 2)),
    "sum_tuple_keepdim": lambda t: t.sum(dim=(-1, 0), keepdim=True),
    "mean": lambda t: t.mean(),
    "mean_dim": lambda t: t.mean(-2),
    "mean_tuple_keepdim": lambda t: cygrad.mean(t, (0, 1), keepdim=True),
    "nansum": lambda t: cygrad.nansum(t, 1),
    "nanmean": lambda t: cygrad.nanmean(t, (0, 2)),
    "prod": lambda t: t.prod(),
    "prod_dim": lambda t: t.prod(1),
    "prod_neg_keepdim": lambda t: t.prod(-1, keepdim=True),
    "max": lambda t: t.max(),
    "max_dim": lambda t: t.max(1)[0],
    "max_dim_keepdim": lambda t: t.max(-1, keepdim=True).values,
    "min": lambda t: t.min(),
    "min_dim": lambda t: cygrad.min(t, 0).values,
    "max_other": lambda t: cygrad.max(t, t * 0.5 + 0.1),
    "amax": lambda t: t.amax(),
    "amax_tuple": lambda t: t.amax((0, 2)),
    "amin_keepdim": lambda t: cygrad.amin(t, -1, keepdim=True),
    "aminmax": lambda t: tuple(cygrad.aminmax(t)),
    "aminmax_dim": lambda t: tuple(cygrad.aminmax(t, dim=1, keepdim=True)),
    "var": lambda t: t.var(),
    "var_dim": lambda t: t.var(1),
    "var_tuple_corr0": lambda t: t.var((0, 2), correction=0, keepdim=True),
    "var_unbiased_false": lambda t: cygrad.var(t, -1, unbiased=False),
    "std": lambda t: t.std(),
    "std_keepdim": lambda t: t.std(-1, keepdim=True),
    "std_corr2": lambda t: t.std((0, 1), correction=2),
    "var_mean": lambda t: cygrad.var_mean(t, 1),
    "std_mean": lambda t: cygrad.std_mean(t, (0, 2), keepdim=True),
    "norm": lambda t: t.norm(),
    "norm_dim": lambda t: t.norm(dim=1),
    "norm_fro_dims": lambda t: cygrad.norm(t, "fro", dim=(1, 2)),
    "norm_1": lambda t: t.norm(1, dim=-1),
    "norm_inf": lambda t: t.norm(INF, dim=(0, 2)),
    "norm_neg_inf": lambda t: t.norm(-INF, dim=1),
    "norm_3": lambda t: t.norm(3, dim=1),
    "norm_half": lambda t: t.norm(0.5),
    "norm_1_5_keepdim": lambda t: t.norm(1.5, dim=0, keepdim=True),
    "norm_0": lambda t: t.norm(0, dim=1),
    "norm_nuc": lambda t: t.norm("nuc", dim=(2, 0)),
    "norm_nuc_keepdim": lambda t: cygrad.norm(t, "nuc", dim=(1, 2), keepdim=True),
    "logsumexp": lambda t: t.logsumexp(1),
    "logsumexp_tuple_keepdim": lambda t: cygrad.logsumexp(t, (0, 2), keepdim=True),
    "cumsum": lambda t: t.cumsum(0),
    "cumsum_neg": lambda t: cygrad.cumsum(t, -1),
    "cumprod": lambda t: t.cumprod(1),
    "cumprod_neg": lambda t: cygrad.cumprod(t, -1),
    "softmax": lambda t: t.softmax(-1),
    "softmax_0": lambda t: cygrad.softmax(t, 0),
    "log_softmax": lambda t: t.log_softmax(1),
    "sort": lambda t: t.sort(1)[0],
    "sort_descending": lambda t: t.sort(-1, descending=True).values,
    "msort": lambda t: cygrad.msort(t),
    "topk": lambda t: t.topk(2)[0],
    "topk_smallest": lambda t: cygrad.topk(t, 2, dim=1, largest=False).values,
    "median": lambda t: t.median(),
    "median_dim": lambda t: t.median(1)[0],
    "median_keepdim": lambda t: t.median(-1, keepdim=True).values,
    "kthvalue": lambda t: t.kthvalue(2, 1)[0],
    "kthvalue_keepdim": lambda t: cygrad.kthvalue(t, 3, -1, keepdim=True).values,
    "mode": lambda t: t.mode(1)[0],
}


@pytest.mark.parametrize("layout", LAYOUTS)
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_gradcheck(name, layout):
    x = _leaf(_values((2, 3, 4)), layout)
    assert gradcheck(GRAD_CASES[name], (x,))


CASES_0D = {
    "sum": lambda t: t.sum(), "sum_dim": lambda t: t.sum(0), "mean_dim": lambda t: t.mean(-1),
    "prod": lambda t: t.prod(), "max": lambda t: t.max(), "max_dim": lambda t: t.max(0)[0],
    "amax": lambda t: t.amax(), "var": lambda t: t.var(correction=0),
    "norm": lambda t: t.norm(), "norm_inf": lambda t: t.norm(INF),
    "logsumexp": lambda t: t.logsumexp(0), "cumsum": lambda t: t.cumsum(0),
    "cumprod": lambda t: t.cumprod(0), "softmax": lambda t: t.softmax(0),
    "sort": lambda t: t.sort(0)[0], "topk": lambda t: t.topk(1)[0],
    "median": lambda t: t.median(), "median_dim": lambda t: t.median(0)[0],
}


@pytest.mark.parametrize("name", sorted(CASES_0D))
def test_gradcheck_0d(name):
    assert gradcheck(CASES_0D[name], (_leaf(np.array(-0.75)),))


# -------------------------------------------------------------------- gradgradcheck

GRADGRAD_CASES = ["sum", "sum_tuple_keepdim", "mean", "mean_dim", "var_dim",
                  "var_tuple_corr0", "std_keepdim", "var_mean", "std_mean", "norm_dim",
                  "norm_3", "norm_fro_dims", "logsumexp", "softmax", "log_softmax", "cumsum",
                  "prod_dim", "prod", "cumprod", "max_dim", "amax_tuple", "sort", "nansum"]


@pytest.mark.parametrize("name", GRADGRAD_CASES)
def test_gradgradcheck(name):
    x = _leaf(_values((2, 3, 4), seed=1), "strided")
    assert gradgradcheck(GRAD_CASES[name], (x,))


ZEROS = np.array([[1.5, 0.0, -2.0, 0.5],      # one zero
                  [0.0, 3.0, 0.0, 1.25],      # two zeros
                  [0.75, -1.0, 2.0, 0.5]])    # none


@pytest.mark.parametrize("fn", [lambda t: t.prod(1), lambda t: t.prod(0, keepdim=True),
                                lambda t: t[:1].prod(), lambda t: t.prod(),
                                lambda t: t.cumprod(1), lambda t: t.cumprod(0)],
                         ids=["prod_dim", "prod_dim0", "prod_one_zero", "prod_two_zeros",
                              "cumprod", "cumprod_dim0"])
def test_grad_and_gradgrad_with_zeros(fn):
    # One zero, two zeros, a zero first in a cumprod: the derivatives stay exact
    # (no division by the zero), and so do the second derivatives.
    x = _leaf(ZEROS, "transposed")
    assert gradcheck(fn, (x,))
    assert gradgradcheck(fn, (x,))


# ------------------------------------------------ PyTorch's conventions at kinks

def _torch():
    return pytest.importorskip("torch", reason="PyTorch reference not installed")


def _grads_like_torch(fn_c, fn_t, arr, seed=0, double=False):
    """Gradient (and, with ``double``, a Hessian-vector product) of ``fn`` at ``arr``
    for a random grad_output, from cygrad and from PyTorch."""
    torch = _torch()
    x = cygrad.tensor(arr, dtype=f64, requires_grad=True)
    xt = torch.tensor(arr, dtype=torch.float64, requires_grad=True)
    y, yt = fn_c(x), fn_t(xt)
    rng = np.random.default_rng(seed)
    g = rng.standard_normal(tuple(yt.shape))
    gc, = autograd.grad(y, x, cygrad.tensor(g, dtype=f64), create_graph=double)
    gt, = torch.autograd.grad(yt, xt, torch.tensor(g), create_graph=double)
    np.testing.assert_allclose(gc.detach().numpy(), gt.detach().numpy(), rtol=1e-12,
                               atol=1e-12, equal_nan=True)
    if double:
        v = rng.standard_normal(arr.shape)
        hc, = autograd.grad(gc, x, cygrad.tensor(v, dtype=f64))
        ht, = torch.autograd.grad(gt, xt, torch.tensor(v))
        np.testing.assert_allclose(hc.numpy(), ht.numpy(), rtol=1e-12, atol=1e-12)


TIES = np.array([[1.0, 3.0, 3.0, -2.0],
                 [2.0, 2.0, 2.0, 2.0],
                 [5.0, 1.0, 5.0, 5.0]])


@pytest.mark.parametrize("expr", [
    "t.max()", "t.min()", "t.max(1)[0]", "t.min(0)[0]", "t.max(-1, keepdim=True)[0]",
    "t.amax()", "t.amax(1)", "t.amin(0)", "t.amax((0, 1), keepdim=True)",
    "M.aminmax(t).max * 2 + M.aminmax(t).min", "M.aminmax(t, dim=1).max - M.aminmax(t, dim=1).min",
    "t.median()", "t.median(1)[0]", "t.mode(1)[0]",
    "t.sort(dim=1, descending=True, stable=True)[0]", "t.norm(float('inf'), dim=1)",
    "t.norm(-float('inf'))",
])
def test_ties_like_torch(expr):
    # max()/amax/amin/median() split the gradient evenly among tied extremes; the forms
    # with indices send it to the element the indices name (the first extreme).
    torch = _torch()
    _grads_like_torch(lambda t: eval(expr, {"t": t, "M": cygrad}),
                      lambda t: eval(expr, {"t": t, "M": torch}), TIES)


@pytest.mark.parametrize("expr", ["t.prod()", "t[:1].prod()", "t[2:].prod()", "t.prod(1)",
                                  "t.prod(0)", "t.prod(1, keepdim=True)", "t.cumprod(1)",
                                  "t.cumprod(0)", "t.T.cumprod(1)"])
def test_zeros_like_torch(expr):
    # Rows with one zero (only the zero gets a gradient: the product of the others),
    # two zeros (no gradient at all) and none; second derivatives too.
    _grads_like_torch(lambda t: eval(expr), lambda t: eval(expr), ZEROS, double=True)


def test_cumprod_zeros_like_torch_more():
    arr = np.array([[0.0, 2.0, 3.0, 0.0, 4.0], [2.0, 0.0, 0.0, 3.0, 1.5],
                    [1.0, 2.0, 3.0, 4.0, 0.0], [0.0, 0.0, 0.0, 0.0, 0.0]])
    _grads_like_torch(lambda t: t.cumprod(1), lambda t: t.cumprod(1), arr, double=True)


AT_ZERO = np.array([[0.0, 0.0, 0.0], [3.0, -4.0, 0.0], [0.0, 2.0, 0.0]])


@pytest.mark.parametrize("p", [2, 1, INF, -INF, 3, 1.5, 0.5, "fro"])
def test_norm_at_zero_like_torch(p):
    # subgradient 0 where the norm (or the element, for p <= 1) is 0
    _grads_like_torch(lambda t: t.norm(p, dim=1), lambda t: t.norm(p, dim=1), AT_ZERO)
    _grads_like_torch(lambda t: t.norm(p), lambda t: t.norm(p), np.zeros((2, 2)))
    if p in (2, 3, 1.5, "fro"):
        _grads_like_torch(lambda t: t.norm(p), lambda t: t.norm(p), AT_ZERO, double=True)


@pytest.mark.parametrize("p", [2, 3, "fro"])
def test_norm_second_derivative_at_zero_is_zero(p):
    # Undefined there (PyTorch gives NaN); cygrad keeps the subgradient's choice and
    # returns 0 for the all-zero slice, so a Hessian-vector product stays finite.
    x = cygrad.zeros(2, 3, dtype=f64, requires_grad=True)
    g, = autograd.grad(x.norm(p, dim=1), x, cygrad.ones(2, dtype=f64), create_graph=True)
    h, = autograd.grad(g, x, cygrad.tensor(_values((2, 3)), dtype=f64))
    assert np.array_equal(g.detach().numpy(), np.zeros((2, 3)))
    assert np.array_equal(h.numpy(), np.zeros((2, 3)))


def test_norm_0_has_no_gradient_like_torch():
    torch = _torch()
    x = cygrad.tensor(AT_ZERO, dtype=f64, requires_grad=True)
    xt = torch.tensor(AT_ZERO, requires_grad=True)
    assert x.norm(0, dim=1).requires_grad and xt.norm(0, dim=1).requires_grad
    g, = autograd.grad(x.norm(0, dim=1).sum(), x, allow_unused=True)
    gt, = torch.autograd.grad(xt.norm(0, dim=1).sum(), xt, allow_unused=True)
    assert g is None and gt is None


@pytest.mark.parametrize("expr", ["t.std(1)", "t.std()", "M.std_mean(t, 1)[0]"])
def test_std_of_constant_like_torch(expr):
    torch = _torch()
    arr = np.array([[1.0, 1.0, 1.0], [1.0, 2.0, 4.0]])
    for data in (arr, np.ones((2, 3))):
        _grads_like_torch(lambda t: eval(expr, {"t": t, "M": cygrad}),
                          lambda t: eval(expr, {"t": t, "M": torch}), data, double=True)


NANS = np.array([[np.nan, 1.0, 2.0], [1.0, 2.0, 0.5], [np.nan, np.nan, 3.0]])


@pytest.mark.parametrize("expr", ["t.max()", "t.max(1)[0]", "t.amax(1)", "t.amin(0)",
                                  "t.median()", "t.nansum(1)", "t.nanmean(1)", "t.nanmean()",
                                  "t.logsumexp(1)", "t.sort(dim=1, stable=True)[0]"])
def test_nan_like_torch(expr):
    _grads_like_torch(lambda t: eval(expr), lambda t: eval(expr), NANS)


def test_logsumexp_and_softmax_at_infinity_like_torch():
    arr = np.array([[-np.inf, -np.inf, -np.inf], [-np.inf, 1.0, 2.0], [3.0, 1.0, 2.0]])
    for expr in ["t.logsumexp(1)", "t.softmax(1)", "t.log_softmax(1)"]:
        _grads_like_torch(lambda t: eval(expr), lambda t: eval(expr), arr)


def test_empty_reductions_like_torch():
    for expr in ["t.sum(1)", "t.prod(1)", "t.mean(1)", "t.cumprod(1)", "t.cumsum(0)",
                 "t.logsumexp(1)", "t.norm(dim=1)"]:
        _grads_like_torch(lambda t: eval(expr), lambda t: eval(expr), np.zeros((2, 0)))


# ----------------------------------------------------- jvp (forward mode) vs reverse

def _jacobian(fn, x):
    """J[o, i] = d out[o] / d x[i], one reverse pass per output element."""
    out = fn(x)
    rows = []
    for o in range(out.numel()):
        onehot = np.zeros(out.numel())
        onehot[o] = 1
        g, = autograd.grad(out, x, cygrad.tensor(onehot.reshape(tuple(out.shape)), dtype=f64),
                           retain_graph=True, allow_unused=True)
        rows.append(np.zeros(x.numel()) if g is None else g.numpy().reshape(-1))
    return np.array(rows).reshape(out.numel(), x.numel())


def _direct_jvp(cls, x, args, v):
    """Run ``cls.forward`` and ``cls.jvp`` on a fresh ctx, as the forward-AD hook does
    (tangent ``v`` for the tensor argument, None for the others)."""
    node_cls = cls._backward_cls
    ctx = node_cls.__new__(node_cls)
    ctx.needs_input_grad = (False,) * (1 + len(args))
    with cygrad.no_grad():
        cls.forward(ctx, x, *args)
        return cls.jvp(ctx, v, *([None] * len(args)))


JVP_CASES = [
    # (id, public call, Function, forward args after the input, output index, data)
    # (forward arguments as the public function passes them: dims wrapped and sorted,
    # the result dtype resolved)
    ("sum", lambda t: t.sum(1), R.SumDim, ((1,), False, f64), None, None),
    ("sum_all", lambda t: t.sum(), R.Sum, (None, False, f64), None, None),
    ("mean", lambda t: t.mean((0, 1)), R.MeanDim, ((0, 1), False, f64), None, None),
    ("nansum", lambda t: t.nansum(0), R.Nansum, ((0,), False, f64), None, NANS),
    ("nanmean", lambda t: t.nanmean(1), R.Nanmean, ((1,), False, f64), None, NANS),
    ("prod", lambda t: t.prod(1), R.ProdDim, ((1,), False, f64), None, None),
    ("prod_zeros", lambda t: t.prod(1), R.ProdDim, ((1,), False, f64), None, ZEROS),
    ("cumsum", lambda t: t.cumsum(0), R.Cumsum, (0, f64), None, None),
    ("cumprod", lambda t: t.cumprod(1), R.Cumprod, (1, f64), None, None),
    ("cumprod_zeros", lambda t: t.cumprod(1), R.Cumprod, (1, f64), None, ZEROS),
    ("softmax", lambda t: t.softmax(1), R.Softmax, (1, f64), None, None),
    ("log_softmax", lambda t: t.log_softmax(0), R.LogSoftmax, (0, f64), None, None),
    ("logsumexp", lambda t: t.logsumexp(1, keepdim=True), R.Logsumexp, ((1,), True, f64), None,
     None),
    ("max_dim", lambda t: t.max(1)[0], R.MaxDim, (1, False), 0, None),
    ("max_all_ties", lambda t: t.max(), R.MaxAll, (), None, TIES),
    ("amax_ties", lambda t: t.amax(1), R.Amax, ((1,), False), None, TIES),
    ("aminmax_max", lambda t: cygrad.aminmax(t, dim=0).max, R.Aminmax, ((0,), False), 1, TIES),
    ("sort", lambda t: t.sort(1, descending=True)[0], R.Sort, (1, True), 0, None),
    ("topk", lambda t: t.topk(2, 0)[0], R.Topk, (2, 0, True), 0, None),
    ("median_keepdim", lambda t: t.median(1, keepdim=True)[0], R.MedianDim, (1, True), 0,
     None),
    ("var", lambda t: t.var(1), R.Var, ((1,), 1, False), None, None),
    ("std", lambda t: t.std(0, keepdim=True), R.Std, ((0,), 1, True), None, None),
    ("std_mean_std", lambda t: cygrad.std_mean(t, 1)[0], R.StdMean, ((1,), 1, False), 0,
     None),
    ("var_mean_mean", lambda t: cygrad.var_mean(t, 1, correction=0)[1], R.VarMean,
     ((1,), 0, False), 1, None),
    ("norm", lambda t: t.norm(dim=1), R.Norm, (2.0, (1,), False, f64), None, None),
    ("norm_1_at_zero", lambda t: t.norm(1, dim=1), R.Norm, (1.0, (1,), False, f64), None,
     AT_ZERO),
    ("norm_inf", lambda t: t.norm(INF), R.Norm, (INF, None, False, f64), None, None),
    ("norm_3", lambda t: t.norm(3, dim=0), R.Norm, (3.0, (0,), False, f64), None, None),
]


@pytest.mark.parametrize("case", JVP_CASES, ids=[c[0] for c in JVP_CASES])
def test_jvp_matches_reverse_mode(case):
    _, public, cls, args, which, data = case
    arr = _values((3, 4), seed=2) if data is None else data
    x = _leaf(arr)
    v = np.random.default_rng(3).standard_normal(arr.shape)
    tangent = _direct_jvp(cls, x.detach(), args, cygrad.tensor(v, dtype=f64))
    if which is not None:
        tangent = tangent[which]
    expected = _jacobian(public, x) @ v.reshape(-1)
    np.testing.assert_allclose(tangent.numpy().reshape(-1), expected, rtol=1e-12, atol=1e-12,
                               equal_nan=True)


def test_jvp_of_indices_is_none():
    x = cygrad.tensor(_values((3, 4)), dtype=f64)
    t = cygrad.ones(3, 4, dtype=f64)
    for cls, args in [(R.MaxDim, (1, False)), (R.Sort, (0, False)),
                      (R.Kthvalue, (2, 1, False)), (R.Mode, (0, True))]:
        values_t, indices_t = _direct_jvp(cls, x, args, t)
        assert indices_t is None and isinstance(values_t, cygrad.Tensor)


_NO_FORWARD_AD = pytest.mark.skipif(
    not hasattr(_C, "_set_fw_grad_enabled"),
    reason="forward AD needs the core's forward-grad switch, missing in this build "
           "(cygrad._core.tensor._set_fw_grad_enabled)")


@_NO_FORWARD_AD
@pytest.mark.parametrize("layout", ["contiguous", "strided"])
@pytest.mark.parametrize("name", sorted(GRAD_CASES))
def test_forward_ad_matches_reverse_mode(name, layout):
    # Through the public API: a dual input routes every op through its Function's jvp.
    from cygrad.autograd import forward_ad as fwAD
    fn = GRAD_CASES[name]
    arr = _values((2, 3, 4), seed=4)
    v = np.random.default_rng(5).standard_normal(arr.shape)
    with fwAD.dual_level():
        dual = fwAD.make_dual(_leaf(arr, layout).detach(), cygrad.tensor(v, dtype=f64))
        outs = fn(dual)
        outs = outs if isinstance(outs, tuple) else (outs,)
        tangents = [fwAD.unpack_dual(o).tangent for o in outs]
        tangents = [None if t is None else t.numpy().copy() for t in tangents]
    for k, tangent in enumerate(tangents):
        def output_k(t, k=k):
            out = fn(t)
            return out[k] if isinstance(out, tuple) else out
        expected = _jacobian(output_k, _leaf(arr, layout)) @ v.reshape(-1)
        got = np.zeros_like(expected) if tangent is None else tangent.reshape(-1)
        np.testing.assert_allclose(got, expected, rtol=1e-10, atol=1e-12)


# ------------------------------------------------------------------ graph plumbing

@pytest.mark.parametrize("expr", [
    "t.sum()", "t.sum(1)", "t.sum((0, 1))", "M.sum(t)", "t.mean()", "t.mean(0)", "t.prod()",
    "t.prod(1)", "t.max()", "t.max(1)[0]", "t.min()", "t.min(0).values", "t.amax()",
    "t.amin(1)", "t.var()", "t.std(1)", "M.var_mean(t)[0]", "M.std_mean(t, 1)[1]",
    "t.norm()", "t.norm(1, dim=1)", "t.logsumexp(1)", "t.cumsum(0)", "t.cumprod(1)",
    "t.softmax(1)", "t.log_softmax(0)", "t.sort(1)[0]", "M.msort(t)", "t.topk(2)[0]",
    "t.median()", "t.median(1)[0]", "t.kthvalue(2)[0]", "t.mode()[0]", "t.nansum()",
    "M.aminmax(t).min",
])
def test_node_names_match_torch(expr):
    torch = _torch()
    arr = _values((3, 4))
    y = eval(expr, {"t": cygrad.tensor(arr, dtype=f64, requires_grad=True), "M": cygrad})
    yt = eval(expr, {"t": torch.tensor(arr, requires_grad=True), "M": torch})
    assert y.grad_fn.name() == yt.grad_fn.name()


def test_sum_backward_is_an_expand_of_the_gradient():
    x = _leaf(_values((3, 4)))
    g, = autograd.grad(x.sum(), x)
    assert g.stride() == (0, 0) and np.array_equal(g.numpy(), np.ones((3, 4)))
    g, = autograd.grad(x.sum(1), x, cygrad.tensor([1.0, 2.0, 3.0], dtype=f64))
    assert g.stride()[1] == 0
    np.testing.assert_array_equal(g.numpy(), np.repeat([[1.0], [2.0], [3.0]], 4, axis=1))


def test_only_tracked_inputs_build_a_graph():
    x = cygrad.tensor(_values((3, 4)), dtype=f64)
    assert x.sum().grad_fn is None and x.softmax(1).grad_fn is None
    x.requires_grad_(True)
    with cygrad.no_grad():
        assert not x.sum(1).requires_grad and not x.max(0)[0].requires_grad
    assert x.sum().requires_grad and x.sum().grad_fn.name() == "SumBackward0"


def test_indices_and_non_differentiable_ops_never_require_grad():
    x = cygrad.tensor(_values((3, 4)), dtype=f64, requires_grad=True)
    for r in [x.max(1), x.min(0, keepdim=True), x.sort(1), x.topk(2), x.median(1),
              x.kthvalue(2), x.mode(0)]:
        assert r.values.requires_grad and not r.indices.requires_grad
    for y in [x.argmax(), x.argmin(1), (x > 0).all(), x.any(1), cygrad.count_nonzero(x),
              x.argsort(1), cygrad.unique(x)]:
        assert not y.requires_grad and y.grad_fn is None


def test_integer_results_do_not_require_grad():
    x = cygrad.tensor(_values((3, 4)), dtype=f64, requires_grad=True)
    assert not x.sum(dtype=cygrad.int64).requires_grad
    assert not x.cumsum(0, dtype=cygrad.int32).requires_grad


def test_dtype_argument_casts_the_gradient_back():
    x = cygrad.tensor(_values((3, 4)), dtype=cygrad.float32, requires_grad=True)
    for y in [x.sum(dtype=f64), cygrad.mean(x, 1, dtype=f64), x.cumsum(1, dtype=f64),
              x.softmax(1, dtype=f64), x.norm(dim=1, dtype=f64), x.prod(0, dtype=f64)]:
        assert y.dtype == f64
        g, = autograd.grad(y.sum(), x)
        assert g.dtype == cygrad.float32 and g.shape == x.shape


def test_half_precision_backward():
    x = cygrad.tensor([[1.0, 2.0], [3.0, 0.5]], dtype=cygrad.float16, requires_grad=True)
    g, = autograd.grad((x.softmax(1) * x).sum() + x.amax() + x.std(), x)
    assert g.dtype == cygrad.float16
    assert np.all(np.isfinite(g.numpy().astype(np.float32)))


@pytest.mark.parametrize("call", [
    lambda x, o: cygrad.sum(x, out=o), lambda x, o: cygrad.mean(x, out=o),
    lambda x, o: cygrad.prod(x, out=o), lambda x, o: cygrad.amax(x, out=o),
    lambda x, o: cygrad.norm(x, out=o), lambda x, o: cygrad.var(x, out=o),
    lambda x, o: cygrad.logsumexp(x, 0, out=o), lambda x, o: cygrad.max(x, out=o)])
def test_out_with_grad_raises_like_torch(call):
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic "
                                           "differentiation"):
        call(x, cygrad.empty(()))


def test_nuclear_norm_like_torch_and_only_once_differentiable():
    arr = _values((3, 4), seed=6)
    _grads_like_torch(lambda t: t.norm("nuc"), lambda t: t.norm("nuc"), arr)
    x = cygrad.tensor(arr, dtype=f64, requires_grad=True)
    seed = cygrad.tensor(2.0, dtype=f64, requires_grad=True)
    g, = autograd.grad(x.norm("nuc"), x, seed, create_graph=True)
    with pytest.raises(RuntimeError, match="once_differentiable"):
        autograd.grad(g.sum(), seed)


def test_backward_accumulates_into_grad():
    x = cygrad.tensor(_values((2, 3)), dtype=f64, requires_grad=True)
    (x.sum() + x.max() + x.logsumexp(1).sum()).backward()
    a = x.detach().numpy()
    expected = 1 + (a == a.max()) + np.exp(a - np.log(np.exp(a).sum(1, keepdims=True)))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=1e-12)
