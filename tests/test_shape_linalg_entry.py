"""One entry path per op (issue 8) for the shape, linalg, complex and activation
families: each public op checks its arguments and calls its ``Function``'s ``apply``
whether or not grad is needed, so the forward that runs without grad is the one that
runs with it.

* the Function's ``forward`` runs exactly once per call, with and without grad, and
  gives the same bits both ways;
* ``out=`` is filled after the op computes: refused with grad (PyTorch's message),
  written through ``copy_`` (recorded) for the composites ``inner``/``tensordot``, as
  PyTorch does;
* the Functions new with this change (``Outer``, ``Inner``, ``Tensordot``,
  ``RepeatInterleave``) give PyTorch's gradients on the cases their generated rows do
  not reach: mixed dtypes, a broadcast contracted dim, integer repeats, forward mode;
  einsum's plain form (diagonals, broadcast dims) keeps PyTorch's result dtypes.
"""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad.autograd import gradcheck, gradgradcheck
from cygrad.nn._ops import activation as A
from cygrad.ops import linalg as L
from cygrad.ops import shape as S
from entry_helpers import count_forward_calls

F64 = cygrad.float64


def _x(shape=(3, 4), seed=0):
    rng = np.random.default_rng(seed)
    return cygrad.tensor(rng.uniform(-2, 2, size=shape), dtype=F64)


# (id, call, Function whose forward must run once)
FORWARD_CASES = [
    ("cat", lambda x: cygrad.cat([x, x[:1]]), S.Cat),
    ("cat_mixed_dtypes", lambda x: cygrad.cat([x, x.float()], 1), S.Cat),
    ("stack", lambda x: cygrad.stack([x, x], 1), S.Stack),
    ("flip", lambda x: x.flip(0, 1), S.Flip),
    ("roll", lambda x: x.roll(1, 0), S.Roll),
    ("roll_flat", lambda x: x.roll(5), S.Roll),
    ("roll_two_dims", lambda x: x.roll((1, -1), (0, 1)), S.Roll),
    ("rot90", lambda x: x.rot90(1, (0, 1)), S.Rot90),
    ("tril", lambda x: x.tril(1), S.Tril),
    ("triu", lambda x: x.triu(-1), S.Triu),
    ("tril_", lambda x: (x * 1).tril_(), S.TrilInplace),
    ("pad_constant", lambda x: F.pad(x, (1, -1, 2, 0), value=0.5), S.ConstantPadNd),
    ("pad_reflect", lambda x: F.pad(x[None], (2, 1), mode="reflect"),
     S._pad_function("reflect", 1)),
    ("repeat", lambda x: x.repeat(2, 1, 3), S.Repeat),
    ("tile", lambda x: x.tile((2,)), S.Repeat),
    ("repeat_interleave", lambda x: x.repeat_interleave(2, 0), S.RepeatInterleave),
    ("repeat_interleave_counts",
     lambda x: x.repeat_interleave(cygrad.tensor([1, 0, 2, 1]), 1), S.RepeatInterleave),
    ("mm", lambda x: x @ x.t(), L.Mm),
    ("matmul_batched", lambda x: x[None] @ x.t(), L.Matmul),
    ("dot", lambda x: x[0].dot(x[1]), L.Dot),
    ("mv", lambda x: x.mv(x[0]), L.Mv),
    ("bmm", lambda x: x[None].bmm(x.t()[None]), L.Bmm),
    ("outer", lambda x: cygrad.outer(x[0], x[1, :3]), L.Outer),
    ("ger", lambda x: x[0].ger(x[1]), L.Outer),
    ("inner", lambda x: cygrad.inner(x, x[:2]), L.Inner),
    ("tensordot", lambda x: cygrad.tensordot(x, x, ([0], [0])), L.Tensordot),
    ("einsum", lambda x: cygrad.einsum("ij,kj->ik", x, x), L.Einsum),
    ("einsum_diagonal", lambda x: cygrad.einsum("ii->i", x[:, :3]), L.Einsum),
    ("addmm", lambda x: cygrad.addmm(x[:, 0], x, x.t(), beta=0.5), L.Addmm),
    ("hardtanh", lambda x: F.hardtanh(x, -1.0, 0.5), A.Hardtanh),
    ("leaky_relu", lambda x: F.leaky_relu(x, 0.2), A.LeakyRelu),
    ("elu", lambda x: F.elu(x), A.Elu),
    ("gelu", lambda x: F.gelu(x, approximate="tanh"), A.Gelu),
    ("silu", lambda x: F.silu(x), A.Silu),
    ("softplus", lambda x: F.softplus(x, beta=2.0), A.Softplus),
    ("hardswish", lambda x: F.hardswish(x), A.Hardswish),
    ("threshold", lambda x: F.threshold(x, 0.1, -1.0), A.Threshold),
]
IDS = [c[0] for c in FORWARD_CASES]


@pytest.mark.parametrize("requires_grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("case", FORWARD_CASES, ids=IDS)
def test_forward_runs_once_with_or_without_grad(case, requires_grad, monkeypatch):
    _, call, cls = case
    calls = count_forward_calls(monkeypatch, cls)
    out = call(_x().requires_grad_(requires_grad))
    assert len(calls) == 1, f"{cls.__name__}.forward ran {len(calls)} times"
    assert (out.grad_fn is not None) == requires_grad
    if requires_grad:
        assert type(out.grad_fn)._forward_cls is cls


@pytest.mark.parametrize("case", FORWARD_CASES, ids=IDS)
def test_same_bits_with_and_without_grad(case):
    _, call, _ = case
    plain = call(_x())
    tracked = call(_x().requires_grad_(True))
    assert plain.grad_fn is None and tracked.grad_fn is not None
    assert plain.dtype == tracked.dtype
    np.testing.assert_array_equal(plain.numpy(), tracked.detach().numpy())


@pytest.mark.parametrize("opname", ["angle", "sgn"])
def test_complex_angle_and_sgn_record_their_function(opname):
    z = cygrad.complex(_x((5,)), _x((5,), seed=1))
    plain = getattr(cygrad, opname)(z)
    tracked = getattr(cygrad, opname)(z.detach().requires_grad_(True))
    assert plain.grad_fn is None
    assert type(tracked.grad_fn)._forward_cls.__module__ == "cygrad.ops.complex"
    np.testing.assert_array_equal(plain.numpy(), tracked.detach().numpy())


# --------------------------------------------------------------------- out=

def _pair():
    return _x((3, 3)), _x((3,), seed=2)


OUT_CASES = [
    ("cat", lambda m, a, v, **kw: m.cat([a, a], **kw)),
    ("stack", lambda m, a, v, **kw: m.stack([a, a], **kw)),
    ("tril", lambda m, a, v, **kw: m.tril(a, **kw)),
    ("triu", lambda m, a, v, **kw: m.triu(a, 1, **kw)),
    ("mm", lambda m, a, v, **kw: m.mm(a, a, **kw)),
    ("matmul", lambda m, a, v, **kw: m.matmul(a[None], a, **kw)),
    ("dot", lambda m, a, v, **kw: m.dot(v, v, **kw)),
    ("mv", lambda m, a, v, **kw: m.mv(a, v, **kw)),
    ("bmm", lambda m, a, v, **kw: m.bmm(a[None], a[None], **kw)),
    ("outer", lambda m, a, v, **kw: m.outer(v, v, **kw)),
    ("addmm", lambda m, a, v, **kw: m.addmm(v, a, a, **kw)),
    ("inner", lambda m, a, v, **kw: m.inner(a, a, **kw)),
    ("tensordot", lambda m, a, v, **kw: m.tensordot(a, a, 1, **kw)),
]


@pytest.mark.parametrize("case", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_out_is_filled_after(case):
    _, call = case
    a, v = _pair()
    out = cygrad.empty(0, dtype=F64)
    version = out._version
    res = call(cygrad, a, v, out=out)
    assert res is out and out._version > version
    np.testing.assert_array_equal(out.numpy(), call(cygrad, a, v).numpy())


@pytest.mark.parametrize("case", OUT_CASES, ids=[c[0] for c in OUT_CASES])
def test_out_with_grad_behaves_as_torch(case):
    """Refused with PyTorch's message, or (inner, tensordot) written through a
    recorded copy whose gradient is PyTorch's."""
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for out= with grad")
    _, call = case
    a, v = _pair()
    ta, tv = (torch.tensor(t.numpy(), requires_grad=True) for t in (a, v))
    a.requires_grad_(True)
    v.requires_grad_(True)
    t_out = torch.empty(0, dtype=torch.float64)
    try:
        expected = call(torch, ta, tv, out=t_out)
    except RuntimeError as e:
        with pytest.raises(RuntimeError) as info:
            call(cygrad, a, v, out=cygrad.empty(0, dtype=F64))
        assert str(info.value) == str(e)
        return
    out = cygrad.empty(0, dtype=F64)
    res = call(cygrad, a, v, out=out)
    assert res is out
    assert out.grad_fn.name() == expected.grad_fn.name().split("::")[-1]   # (torch::autograd::)
    res.sum().backward()
    expected.sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12)


@pytest.mark.parametrize("case", OUT_CASES[:5], ids=[c[0] for c in OUT_CASES[:5]])
def test_out_allowed_without_grad_mode(case):
    _, call = case
    a, v = _pair()
    a.requires_grad_(True)
    out = cygrad.empty(0, dtype=F64)
    with cygrad.no_grad():
        assert call(cygrad, a, v, out=out) is out
    assert out.grad_fn is None


# --------------------------------------------------------- the new Functions

def _leaf(shape, seed=0, dtype=np.float64):
    rng = np.random.default_rng(seed)
    return cygrad.tensor(rng.standard_normal(shape).astype(dtype), requires_grad=True)


GRAD_CASES = [
    ("outer_mixed_dtypes", lambda m, a, b: m.outer(a, b), [((3,), np.float32), ((4,), None)]),
    ("inner_3d", lambda m, a, b: m.inner(a, b), [((2, 3, 4), None), ((5, 4), None)]),
    ("tensordot_broadcast_dim", lambda m, a, b: m.tensordot(a, b, ([1, 2], [0, 2])),
     [((2, 1, 4), None), ((3, 5, 4), None)]),
    ("tensordot_permuted", lambda m, a, b: m.tensordot(a, b, ([2, 0], [0, 1])),
     [((3, 2, 4), None), ((4, 3, 2), None)]),
    ("tensordot_dims0", lambda m, a, b: m.tensordot(a, b, 0), [((2,), None), ((3,), None)]),
    ("repeat_interleave_int", lambda m, a: m.repeat_interleave(a, 3), [((2, 2), None)]),
    ("repeat_interleave_dim", lambda m, a: m.repeat_interleave(a, m.tensor([2, 0, 1]), dim=1),
     [((2, 3), None)]),
]


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_new_functions_grads_match_torch(case):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference gradient")
    _, fn, specs = case
    xs = [_leaf(shape, i, dtype or np.float64) for i, (shape, dtype) in enumerate(specs)]
    ts = [torch.tensor(x.detach().numpy(), requires_grad=True) for x in xs]
    out, t_out = fn(cygrad, *xs), fn(torch, *ts)
    assert str(out.dtype).split(".")[-1] == str(t_out.dtype).split(".")[-1]
    np.testing.assert_allclose(out.detach().numpy(), t_out.detach().numpy(), rtol=1e-6)
    u = np.random.default_rng(9).standard_normal(tuple(out.shape))
    grads = cygrad.autograd.grad(out, xs, cygrad.tensor(u, dtype=out.dtype))
    t_grads = torch.autograd.grad(t_out, ts, torch.tensor(u, dtype=t_out.dtype))
    for g, tg in zip(grads, t_grads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-5, atol=1e-6)


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_new_functions_gradcheck_and_gradgradcheck(case):
    _, fn, specs = case
    xs = tuple(_leaf(shape, i) for i, (shape, _) in enumerate(specs))
    assert gradcheck(lambda *a: fn(cygrad, *a), xs)
    assert gradgradcheck(lambda *a: fn(cygrad, *a), xs)


@pytest.mark.parametrize("case", GRAD_CASES, ids=[c[0] for c in GRAD_CASES])
def test_new_functions_forward_mode_matches_reverse_mode(case):
    """<u, J v> from forward mode equals <J^T u, v> from reverse mode."""
    from cygrad.autograd import forward_ad as fwAD
    _, fn, specs = case
    rng = np.random.default_rng(4)
    xs = [_leaf(shape, i) for i, (shape, _) in enumerate(specs)]
    vs = [cygrad.tensor(rng.standard_normal(tuple(x.shape))) for x in xs]
    with fwAD.dual_level():
        out = fn(cygrad, *[fwAD.make_dual(x.detach(), v) for x, v in zip(xs, vs)])
        jv = fwAD.unpack_dual(out).tangent
    u = cygrad.tensor(rng.standard_normal(tuple(jv.shape)))
    grads = cygrad.autograd.grad(fn(cygrad, *xs), xs, u)
    reverse = sum(float((g * v).sum()) for g, v in zip(grads, vs))
    assert np.isclose(float((jv * u).sum()), reverse, rtol=1e-10, atol=1e-10)


def test_cat_tangent_with_a_skipped_empty_tensor():
    from cygrad.autograd import forward_ad as fwAD
    a, b = _x((2, 3)), _x((1, 3), seed=1)
    va = _x((2, 3), seed=2)
    empty = cygrad.empty(0, dtype=F64)
    with fwAD.dual_level():
        out = cygrad.cat([fwAD.make_dual(a, va), empty, b])
        tangent = fwAD.unpack_dual(out).tangent
    np.testing.assert_array_equal(tangent.numpy(), np.concatenate([va.numpy(), np.zeros((1, 3))]))
    with fwAD.dual_level():           # the empty tensor's own tangent changes nothing
        out = cygrad.cat([a, fwAD.make_dual(empty, cygrad.empty(0, dtype=F64)), b])
        assert fwAD.unpack_dual(out).tangent is None


EINSUM_DTYPE_CASES = [
    ("ij,j->i", [(2, 3), (1,)]),       # a label summed from one operand, broadcast in the other
    ("ii->i", [(3, 3)]),
    ("ii", [(3, 3)]),
    ("ij,ij->ij", [(2, 3), (1, 3)]),
    ("bij,bjk->bik", [(1, 2, 3), (4, 3, 2)]),
]


@pytest.mark.parametrize("dtype", ["int32", "float64"])
@pytest.mark.parametrize("eq, shapes", EINSUM_DTYPE_CASES, ids=[c[0] for c in EINSUM_DTYPE_CASES])
def test_einsum_plain_form_keeps_torch_dtypes_and_values(eq, shapes, dtype):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for einsum dtypes")
    rng = np.random.default_rng(3)
    arrays = [rng.integers(-3, 4, size=s).astype(dtype) for s in shapes]
    out = cygrad.einsum(eq, *[cygrad.tensor(a) for a in arrays])
    expected = torch.einsum(eq, *[torch.tensor(a) for a in arrays])
    assert str(out.dtype).split(".")[-1] == str(expected.dtype).split(".")[-1]
    np.testing.assert_allclose(out.numpy(), expected.numpy())


@pytest.mark.parametrize("eq, shapes", EINSUM_DTYPE_CASES, ids=[c[0] for c in EINSUM_DTYPE_CASES])
def test_einsum_plain_form_gradcheck(eq, shapes):
    xs = tuple(_leaf(s, i) for i, s in enumerate(shapes))
    assert gradcheck(lambda *a: cygrad.einsum(eq, *a), xs)


def test_inplace_triangle_of_a_view_goes_through_the_base():
    x = _leaf((3, 3))
    before = x.detach().numpy().copy()
    base = x * 1
    view = base[:, :2]
    view.tril_()
    assert base.grad_fn.name() == "CopySlices"
    expected = before.copy()
    expected[:, :2] = np.tril(before[:, :2])
    np.testing.assert_array_equal(base.detach().numpy(), expected)
    base.sum().backward()
    kept = np.ones((3, 3))
    kept[:, :2] = np.tril(np.ones((3, 2)))
    np.testing.assert_array_equal(x.grad.numpy(), kept)
