"""Gradients of the matrix products (``cygrad/ops/linalg/products.py``).

Every backward is checked with ``gradcheck`` (finite differences, float64) on small
inputs, including transposed, strided and reversed (negative-stride) views and
broadcast batch dims; the products used in networks also with ``gradgradcheck``
(their backward is itself differentiable).  A few cases are compared with PyTorch's
gradients and node names, and each ``jvp`` is checked against finite differences and
against reverse mode (``<u, J v> == <J^T u, v>``).
"""
import numpy as np
import pytest

import cygrad
from grad_helpers import leaf, torch_copy, check_jvp, _forward_ad_supported
from cygrad.autograd import gradcheck, gradgradcheck
from cygrad.ops import linalg as L

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")

F64 = cygrad.float64


@pytest.fixture
def rng():
    return np.random.default_rng(1234)


# ---------------------------------------------------------------------------
# matmul: every rank rule, strided operands, broadcast batch dims
# ---------------------------------------------------------------------------
MATMUL_CASES = [
    ((4,), (4,), "DotBackward0"),
    ((3, 4), (4,), "MvBackward0"),
    ((4,), (4, 5), "MatmulBackward0"),
    ((3, 4), (4, 5), "MmBackward0"),
    ((2, 3, 4), (4,), "MatmulBackward0"),
    ((4,), (2, 4, 5), "MatmulBackward0"),
    ((2, 3, 4), (4, 5), "MatmulBackward0"),
    ((3, 4), (2, 4, 5), "MatmulBackward0"),
    ((2, 3, 4), (2, 4, 5), "MatmulBackward0"),
    ((2, 1, 3, 4), (3, 4, 2), "MatmulBackward0"),
    ((1, 3, 4), (2, 4, 2), "MatmulBackward0"),
    ((0, 4), (4, 3), "MmBackward0"),
    ((2, 3, 0), (0, 2), "MatmulBackward0"),
]


@pytest.mark.parametrize("layout", ["contig", "T", "strided", "neg"])
@pytest.mark.parametrize("sa,sb,node", MATMUL_CASES,
                         ids=[f"{a}@{b}" for a, b, _ in MATMUL_CASES])
def test_matmul_gradcheck(rng, sa, sb, node, layout):
    a, b = leaf(rng, *sa, layout=layout), leaf(rng, *sb, layout=layout)
    out = a @ b
    assert out.grad_fn.name() == node
    assert gradcheck(cygrad.matmul, (a, b))


@pytest.mark.parametrize("sa,sb", [((3, 4), (4, 2)), ((4,), (4,)), ((3, 4), (4,)),
                                   ((4,), (4, 2)), ((2, 1, 3, 4), (3, 4, 2)),
                                   ((2, 3, 4), (4, 2)), ((3, 4), (2, 4, 2))])
def test_matmul_gradgradcheck(rng, sa, sb):
    a, b = leaf(rng, *sa, layout="T"), leaf(rng, *sb)
    assert gradgradcheck(cygrad.matmul, (a, b))


def test_matmul_one_operand_needs_grad(rng):
    a = leaf(rng, 2, 3, 4)
    b = cygrad.from_numpy(rng.standard_normal((4, 2)))
    assert gradcheck(lambda x: x @ b, (a,))
    assert gradcheck(lambda y: b.mT @ y, (leaf(rng, 2, 4, 3),))


def test_rmatmul_and_matmul_dunders(rng):
    a, b = leaf(rng, 3, 4), leaf(rng, 4, 2)
    assert gradcheck(lambda x, y: x @ y, (a, b))
    assert gradcheck(lambda x, y: type(y).__rmatmul__(y, x), (a, b))


def test_matmul_broadcast_grads_match_torch(rng):
    # a is shared by the batch of b (and b's batch dim of 1 broadcasts against a's):
    # both gradients are sums over the broadcast dims.
    a, b = leaf(rng, 2, 1, 3, 4), leaf(rng, 5, 4, 2, layout="T")
    u = rng.standard_normal((2, 5, 3, 2))
    (a @ b).backward(cygrad.from_numpy(u))
    ta, tb = torch_copy(a), torch_copy(b)
    (ta @ tb).backward(torch.from_numpy(u))
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12, atol=1e-12)
    assert a.grad.shape == a.shape and b.grad.shape == b.shape


@pytest.mark.parametrize("sa,sb", [((4,), (2, 4, 3)), ((2, 3, 4), (4,)), ((5, 3, 4), (4, 2))])
def test_matmul_vector_and_folded_grads_match_torch(rng, sa, sb):
    a, b = leaf(rng, *sa), leaf(rng, *sb, layout="neg")
    out = a @ b
    u = rng.standard_normal(tuple(out.shape))
    out.backward(cygrad.from_numpy(u))
    ta, tb = torch_copy(a), torch_copy(b)
    (ta @ tb).backward(torch.from_numpy(u))
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-12, atol=1e-12)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_matmul_float32_grads_keep_dtype(rng):
    a = cygrad.from_numpy(rng.standard_normal((3, 4)).astype(np.float32)).requires_grad_()
    b = cygrad.from_numpy(rng.standard_normal((2, 4, 5)).astype(np.float32)).requires_grad_()
    (a @ b).sum().backward()
    assert a.grad.dtype == cygrad.float32 and b.grad.dtype == cygrad.float32
    ta, tb = torch_copy(a), torch_copy(b)
    (ta @ tb).sum().backward()
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-5, atol=1e-5)


# ---------------------------------------------------------------------------
# mm, bmm, mv, dot, vdot, outer, inner, tensordot
# ---------------------------------------------------------------------------
def test_mm_bmm_mv_dot_gradcheck(rng):
    assert gradcheck(cygrad.mm, (leaf(rng, 3, 4, layout="T"), leaf(rng, 4, 2, layout="strided")))
    assert gradcheck(cygrad.bmm, (leaf(rng, 2, 3, 4, layout="T"), leaf(rng, 2, 4, 2, layout="neg")))
    assert gradcheck(cygrad.mv, (leaf(rng, 3, 4, layout="T"), leaf(rng, 4, layout="strided")))
    assert gradcheck(cygrad.dot, (leaf(rng, 4, layout="neg"), leaf(rng, 4, layout="strided")))
    assert gradcheck(cygrad.vdot, (leaf(rng, 4), leaf(rng, 4)))


def test_mm_bmm_gradgradcheck(rng):
    assert gradgradcheck(cygrad.mm, (leaf(rng, 3, 4, layout="T"), leaf(rng, 4, 2)))
    assert gradgradcheck(cygrad.bmm, (leaf(rng, 2, 3, 4), leaf(rng, 2, 4, 2, layout="T")))
    assert gradgradcheck(cygrad.mv, (leaf(rng, 3, 4), leaf(rng, 4)))
    assert gradgradcheck(cygrad.dot, (leaf(rng, 4), leaf(rng, 4)))


@pytest.mark.parametrize("name,shapes,node", [
    ("mm", [(3, 4), (4, 2)], "MmBackward0"),
    ("bmm", [(2, 3, 4), (2, 4, 2)], "BmmBackward0"),
    ("mv", [(3, 4), (4,)], "MvBackward0"),
    ("dot", [(4,), (4,)], "DotBackward0"),
    ("vdot", [(4,), (4,)], "VdotBackward0"),
    ("outer", [(3,), (4,)], "MulBackward0"),
])
def test_product_grads_and_node_names_match_torch(rng, name, shapes, node):
    xs = [leaf(rng, *s) for s in shapes]
    ts = [torch_copy(x) for x in xs]
    out, tout = getattr(cygrad, name)(*xs), getattr(torch, name)(*ts)
    assert out.grad_fn.name() == tout.grad_fn.name() == node
    u = rng.standard_normal(tuple(out.shape))
    grads = cygrad.autograd.grad(out, xs, cygrad.from_numpy(u))
    tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(u))
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12, atol=1e-12)


def test_outer_inner_tensordot_gradcheck(rng):
    assert gradcheck(cygrad.outer, (leaf(rng, 3, layout="neg"), leaf(rng, 4)))
    assert gradcheck(cygrad.ger, (leaf(rng, 3), leaf(rng, 2)))
    assert gradcheck(cygrad.inner, (leaf(rng, 2, 4, layout="T"), leaf(rng, 3, 4)))
    assert gradcheck(cygrad.inner, (leaf(rng, 4), leaf(rng, 2, 4)))
    assert gradcheck(cygrad.inner, (leaf(rng), leaf(rng, 2, 3)))
    assert gradcheck(lambda a, b: cygrad.tensordot(a, b, dims=2),
                     (leaf(rng, 2, 3, 4, layout="T"), leaf(rng, 3, 4, 2)))
    assert gradcheck(lambda a, b: cygrad.tensordot(a, b, dims=([0, 2], [2, 0])),
                     (leaf(rng, 2, 3, 4, layout="neg"), leaf(rng, 4, 5, 2)))
    assert gradcheck(lambda a, b: cygrad.tensordot(a, b, dims=0), (leaf(rng, 2), leaf(rng, 3)))
    # a size-1 contracted dim broadcasts against the other side
    assert gradcheck(lambda a, b: cygrad.tensordot(a, b, dims=([1], [0])),
                     (leaf(rng, 2, 1), leaf(rng, 3, 2)))


def test_tensordot_grads_match_torch(rng):
    a, b = leaf(rng, 2, 3, 4, layout="T"), leaf(rng, 4, 5, 2)
    ta, tb = torch_copy(a), torch_copy(b)
    out = cygrad.tensordot(a, b, dims=([0, 2], [2, 0]))
    tout = torch.tensordot(ta, tb, dims=([0, 2], [2, 0]))
    u = rng.standard_normal(tuple(tout.shape))
    grads = cygrad.autograd.grad(out, (a, b), cygrad.from_numpy(u))
    tgrads = torch.autograd.grad(tout, (ta, tb), torch.from_numpy(u))
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12, atol=1e-12)


# ---------------------------------------------------------------------------
# einsum
# ---------------------------------------------------------------------------
EINSUM_CASES = [
    ("ij,jk->ik", [(2, 3), (3, 4)]),
    ("ij,jk", [(2, 3), (3, 4)]),                  # implicit output
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 2)]),
    ("ii->i", [(3, 3)]),                          # diagonal
    ("ii", [(3, 3)]),                             # trace
    ("iji->j", [(3, 2, 3)]),                      # diagonal across non-adjacent dims
    ("iij,jk->ik", [(3, 3, 2), (2, 4)]),          # repeated label in one operand of two
    ("ij->", [(2, 3)]),
    ("ijk->kj", [(2, 3, 4)]),                     # label summed inside one operand
    ("ij,kl->", [(2, 3), (1, 2)]),                # every label summed
    ("i,j,k->ijk", [(2,), (3,), (2,)]),
    ("ij,jk,kl->il", [(2, 3), (3, 4), (4, 2)]),
    ("ij,ij->i", [(3, 1), (3, 4)]),               # a size-1 dim broadcasts against the label
    ("...ij,...jk", [(2, 1, 3, 2), (4, 2, 3)]),   # ellipsis with broadcast batch dims
    ("...ii->...i", [(2, 3, 3)]),
    ("b...,b...->b", [(2, 3, 2), (2, 3, 2)]),
    ("i...->", [(2, 3)]),                         # ellipsis dims summed away
]


@pytest.mark.parametrize("layout", ["contig", "T"])
@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_gradcheck(rng, eq, shapes, layout):
    xs = [leaf(rng, *s, layout=layout) for s in shapes]
    assert gradcheck(lambda *ops: cygrad.einsum(eq, *ops), tuple(xs))


@pytest.mark.parametrize("eq,shapes", EINSUM_CASES, ids=[c[0] for c in EINSUM_CASES])
def test_einsum_grads_match_torch(rng, eq, shapes):
    xs = [leaf(rng, *s) for s in shapes]
    ts = [torch_copy(x) for x in xs]
    out, tout = cygrad.einsum(eq, *xs), torch.einsum(eq, *ts)
    u = rng.standard_normal(tuple(tout.shape))
    grads = cygrad.autograd.grad(out, xs, cygrad.from_numpy(u))
    tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(u))
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("eq,shapes", [("ij,jk->ik", [(2, 3), (3, 2)]), ("ii->i", [(3, 3)]),
                                       ("...ij,...jk", [(2, 1, 3, 2), (2, 2, 3)]),
                                       ("ijk->kj", [(2, 3, 2)]),
                                       ("ij,ij->i", [(3, 1), (3, 2)])])
def test_einsum_gradgradcheck(rng, eq, shapes):
    xs = [leaf(rng, *s) for s in shapes]
    assert gradgradcheck(lambda *ops: cygrad.einsum(eq, *ops), tuple(xs))


def test_einsum_list_and_sublist_forms_gradcheck(rng):
    a, b = leaf(rng, 2, 3), leaf(rng, 3, 2, layout="T")
    assert gradcheck(lambda x, y: cygrad.einsum("ij,jk->ik", [x, y]), (a, b))
    assert gradcheck(lambda x, y: cygrad.einsum(x, [0, 1], y, [1, 2], [0, 2]), (a, b))


def test_einsum_only_some_operands_need_grad(rng):
    a = leaf(rng, 2, 3)
    b = cygrad.from_numpy(rng.standard_normal((3, 4)))
    out = cygrad.einsum("ij,jk->ik", a, b)
    assert out.grad_fn.name() == "EinsumBackward0"
    assert gradcheck(lambda x: cygrad.einsum("ij,jk->ik", x, b), (a,))


# ---------------------------------------------------------------------------
# addmm family (alpha / beta)
# ---------------------------------------------------------------------------
ADD_CASES = [
    ("addmm", [(4,), (3, 2), (2, 4)], "AddmmBackward0"),
    ("addmm", [(3, 4), (3, 2), (2, 4)], "AddmmBackward0"),
    ("addmv", [(3,), (3, 2), (2,)], "AddmvBackward0"),
    ("baddbmm", [(1, 3, 4), (2, 3, 2), (2, 2, 4)], "BaddbmmBackward0"),
    ("addbmm", [(3, 4), (2, 3, 2), (2, 2, 4)], "AddbmmBackward0"),
    ("addr", [(3, 1), (3,), (4,)], "AddrBackward0"),
]
ADD_IDS = [f"{name}{shapes[0]}" for name, shapes, _ in ADD_CASES]


@pytest.mark.parametrize("beta,alpha", [(1, 1), (0.5, -2.0), (0, 3.0)])
@pytest.mark.parametrize("name,shapes,node", ADD_CASES, ids=ADD_IDS)
def test_add_family_gradcheck(rng, name, shapes, node, beta, alpha):
    xs = [leaf(rng, *s, layout="T" if len(s) >= 2 else "neg") for s in shapes]
    fn = getattr(cygrad, name)
    out = fn(*xs, beta=beta, alpha=alpha)
    assert out.grad_fn.name() == node
    assert gradcheck(lambda *a: fn(*a, beta=beta, alpha=alpha), tuple(xs))


@pytest.mark.parametrize("name,shapes,node", ADD_CASES, ids=ADD_IDS)
def test_add_family_grads_match_torch(rng, name, shapes, node):
    xs = [leaf(rng, *s) for s in shapes]
    ts = [torch_copy(x) for x in xs]
    out = getattr(cygrad, name)(*xs, beta=0.5, alpha=2.0)
    tout = getattr(torch, name)(*ts, beta=0.5, alpha=2.0)
    assert tout.grad_fn.name() == node
    u = rng.standard_normal(tuple(tout.shape))
    grads = cygrad.autograd.grad(out, xs, cygrad.from_numpy(u))
    tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(u))
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12, atol=1e-12)


def test_addmm_gradgradcheck(rng):
    xs = (leaf(rng, 4), leaf(rng, 3, 2), leaf(rng, 2, 4))
    assert gradgradcheck(lambda *a: cygrad.addmm(*a, beta=0.5, alpha=2.0), xs)


def test_method_forms(rng):
    a, b = leaf(rng, 3, 4), leaf(rng, 4, 2)
    assert a.mm(b).grad_fn.name() == "MmBackward0"
    assert a.matmul(b).grad_fn.name() == "MmBackward0"
    assert gradcheck(lambda x, y: x.addmm(x[:, :2], y, beta=2), (leaf(rng, 3, 3), leaf(rng, 2, 3)))


# ---------------------------------------------------------------------------
# out= with autograd, no-grad fast path
# ---------------------------------------------------------------------------
# (tensordot and inner are not here: PyTorch copies their result into out with a
# recorded copy_, and so does cygrad: tests/test_shape_linalg_entry.py)
@pytest.mark.parametrize("name,shapes", [("mm", [(2, 3), (3, 2)]), ("matmul", [(2, 3), (3,)]),
                                         ("bmm", [(1, 2, 3), (1, 3, 2)]), ("dot", [(3,), (3,)])])
def test_out_with_requires_grad_raises_like_torch(rng, name, shapes):
    xs = [leaf(rng, *s) for s in shapes]
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        getattr(cygrad, name)(*xs, out=cygrad.empty(0, dtype=F64))
    ts = [torch_copy(x) for x in xs]
    with pytest.raises(RuntimeError):
        getattr(torch, name)(*ts, out=torch.empty(0, dtype=torch.float64))


def test_no_graph_without_requires_grad_or_under_no_grad(rng):
    a, b = leaf(rng, 3, 4), leaf(rng, 4, 2)
    with cygrad.no_grad():
        assert (a @ b).grad_fn is None and not (a @ b).requires_grad
    plain = a.detach() @ b.detach()
    assert plain.grad_fn is None and not plain.requires_grad


# ---------------------------------------------------------------------------
# jvp: forward mode against finite differences and reverse mode
# ---------------------------------------------------------------------------


@pytest.mark.parametrize("sa,sb", [((3, 4), (4,)), ((4,), (2, 4, 3)), ((2, 1, 3, 4), (3, 4, 2)),
                                   ((2, 3, 4), (4, 2))])
def test_matmul_jvp(rng, sa, sb):
    shape = tuple(np.matmul(np.zeros(sa), np.zeros(sb)).shape)
    check_jvp(rng, cygrad.matmul, L.Matmul, lambda a, b: (a, b, shape), [sa, sb])
    check_jvp(rng, cygrad.matmul, L.Matmul, lambda a, b: (a, b, shape), [sa, sb], which=[1])


def test_mm_bmm_mv_dot_jvp(rng):
    check_jvp(rng, cygrad.mm, L.Mm, lambda a, b: (a, b), [(3, 4), (4, 2)])
    check_jvp(rng, cygrad.mm, L.Mm, lambda a, b: (a, b), [(3, 4), (4, 2)], which=[0])
    check_jvp(rng, cygrad.bmm, L.Bmm, lambda a, b: (a, b), [(2, 3, 4), (2, 4, 2)])
    check_jvp(rng, cygrad.mv, L.Mv, lambda a, b: (a, b), [(3, 4), (4,)])
    check_jvp(rng, cygrad.dot, L.Dot, lambda a, b: (a, b), [(4,), (4,)])
    check_jvp(rng, cygrad.vdot, L.Vdot, lambda a, b: (a, b), [(4,), (4,)], which=[1])


def test_einsum_jvp(rng):
    # Einsum's Function sees operands in the plain form (distinct, full-size labels).
    # (its third argument: the labels' sizes, the result's dtype and the one the
    # contraction runs in)
    plan = ({"i": 2, "j": 3, "k": 4}, cygrad.float64, None)
    check_jvp(rng, lambda a, b: cygrad.einsum("ij,jk->ik", a, b), L.Einsum,
              lambda a, b: ((("i", "j"), ("j", "k")), ("i", "k"), plan, a, b), [(2, 3), (3, 4)])
    check_jvp(rng, lambda a, b, c: cygrad.einsum("i,j,k->ik", a, b, c), L.Einsum,
              lambda a, b, c: ((("i",), ("j",), ("k",)), ("i", "k"), plan, a, b, c),
              [(2,), (3,), (4,)], which=[0, 2])


@pytest.mark.parametrize("name,cls,shapes", [
    ("addmm", L.Addmm, [(4,), (3, 2), (2, 4)]),
    ("addmv", L.Addmv, [(3,), (3, 2), (2,)]),
    ("baddbmm", L.Baddbmm, [(1, 3, 4), (2, 3, 2), (2, 2, 4)]),
    ("addbmm", L.Addbmm, [(3, 4), (2, 3, 2), (2, 2, 4)]),
    ("addr", L.Addr, [(3, 4), (3,), (4,)]),
])
def test_add_family_jvp(rng, name, cls, shapes):
    fn = getattr(cygrad, name)
    check_jvp(rng, lambda i, x, y: fn(i, x, y, beta=0.5, alpha=-2.0), cls,
              lambda i, x, y: (i, x, y, 0.5, -2.0), shapes)
    check_jvp(rng, lambda i, x, y: fn(i, x, y, beta=0.5, alpha=-2.0), cls,
              lambda i, x, y: (i, x, y, 0.5, -2.0), shapes, which=[0])


@pytest.mark.skipif(not _forward_ad_supported(),
                    reason="the core has no forward-mode switch (_set_fw_grad_enabled) yet")
def test_matmul_jvp_through_forward_ad(rng):
    from cygrad.autograd import forward_ad as fwAD
    a, b = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 2))
    va, vb = rng.standard_normal((2, 3, 4)), rng.standard_normal((4, 2))
    with fwAD.dual_level():
        out = fwAD.make_dual(cygrad.from_numpy(a), cygrad.from_numpy(va)) @ \
            fwAD.make_dual(cygrad.from_numpy(b), cygrad.from_numpy(vb))
        tangent = fwAD.unpack_dual(out).tangent
    np.testing.assert_allclose(tangent.numpy(), va @ b + a @ vb, rtol=1e-12, atol=1e-12)
