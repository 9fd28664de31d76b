"""Gradients of the joining / copying / view functions (``cygrad/ops/shape.py``).

Each op is checked with ``gradcheck`` (finite differences, float64) on small inputs,
including transposed, strided and reversed views; cat/stack/pad (and the other
Functions) also with ``gradgradcheck``.  A table of cases is compared with PyTorch's
gradients and node names, and each ``jvp`` is checked against finite differences and
reverse mode.  The view functions (``transpose``, ``narrow``...) are differentiable
through the core's generic view node; they are verified here, not reimplemented.
"""
import numpy as np
import pytest

import cygrad
from grad_helpers import leaf, torch_copy, check_jvp, _forward_ad_supported
from cygrad.autograd import gradcheck, gradgradcheck
from cygrad.ops import shape as S
from cygrad.ops.indexing import IndexAdd
from cygrad.ops.shape import pad

torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
TF = torch.nn.functional


@pytest.fixture
def rng():
    return np.random.default_rng(4321)


# ---------------------------------------------------------------------------
# gradcheck on every op (cygrad function, shapes, layout)
# ---------------------------------------------------------------------------
def _cat_legacy(a, b):
    # a 1-D empty tensor is skipped by cat whatever the others' shape
    return cygrad.cat([a, cygrad.zeros(0, dtype=cygrad.float64), b], 1)


GRAD_CASES = [
    ("cat", lambda a, b: cygrad.cat([a, b], 1), [(2, 3), (2, 2)]),
    ("cat_neg_dim", lambda a, b: cygrad.cat((a, b, a), -3), [(1, 2, 3), (2, 2, 3)]),
    ("cat_legacy_empty", _cat_legacy, [(2, 3), (2, 1)]),
    ("cat_empty_grad_input", lambda a, b: cygrad.cat([a, b]), [(0,), (3,)]),
    ("concat", lambda a, b: cygrad.concat([a, b], 0), [(2, 3), (1, 3)]),
    ("concatenate", lambda a, b: cygrad.concatenate([a, b], 1), [(2, 3), (2, 1)]),
    ("stack", lambda a, b: cygrad.stack([a, b, a], 1), [(2, 3), (2, 3)]),
    ("stack_last", lambda a, b: cygrad.stack([a, b], -1), [(2, 3), (2, 3)]),
    ("hstack_1d", lambda a, b: cygrad.hstack([a, b]), [(3,), (2,)]),
    ("hstack", lambda a, b: cygrad.hstack([a, b]), [(2, 3), (2, 1)]),
    ("vstack", lambda a, b: cygrad.vstack([a, b]), [(3,), (2, 3)]),
    ("row_stack", lambda a, b: cygrad.row_stack([a, b]), [(2, 3), (1, 3)]),
    ("dstack", lambda a, b: cygrad.dstack([a, b]), [(2, 3), (2, 3)]),
    ("column_stack", lambda a, b: cygrad.column_stack([a, b]), [(3,), (3, 2)]),
    ("flip", lambda a: cygrad.flip(a, [0, 2]), [(2, 3, 2)]),
    ("flip_method", lambda a: a.flip([-1]), [(2, 3)]),
    ("fliplr", cygrad.fliplr, [(2, 3)]),
    ("flipud", cygrad.flipud, [(3, 2)]),
    ("roll", lambda a: cygrad.roll(a, (1, -2), (0, 1)), [(3, 4)]),
    ("roll_same_dim_twice", lambda a: cygrad.roll(a, (1, 3), (1, 1)), [(2, 3)]),
    ("roll_flat", lambda a: cygrad.roll(a, 4), [(2, 3)]),
    ("rot90", lambda a: cygrad.rot90(a), [(2, 3)]),
    ("rot90_k2", lambda a: cygrad.rot90(a, 2, (1, 2)), [(2, 3, 2)]),
    ("rot90_k3", lambda a: cygrad.rot90(a, 3, (2, 0)), [(2, 3, 2)]),
    ("rot90_kneg", lambda a: cygrad.rot90(a, -1), [(2, 3)]),
    ("rot90_k0", lambda a: cygrad.rot90(a, 4), [(2, 3)]),
    ("repeat", lambda a: a.repeat(2, 3), [(2, 2)]),
    ("repeat_new_dims", lambda a: a.repeat(2, 1, 2), [(3,)]),
    ("repeat_zero", lambda a: a.repeat(0, 2), [(2, 2)]),
    ("tile", lambda a: cygrad.tile(a, (2,)), [(2, 3)]),
    ("tile_more_dims", lambda a: cygrad.tile(a, (2, 1, 2)), [(2, 3)]),
    ("repeat_interleave", lambda a: cygrad.repeat_interleave(a, 2, 1), [(2, 3)]),
    ("repeat_interleave_flat", lambda a: cygrad.repeat_interleave(a, 2), [(2, 3)]),
    ("repeat_interleave_tensor",
     lambda a: cygrad.repeat_interleave(a, cygrad.tensor([2, 0, 3]), dim=0), [(3, 2)]),
    ("repeat_interleave_0d", lambda a: cygrad.repeat_interleave(a, 3), [()]),
    ("tril", cygrad.tril, [(3, 4)]),
    ("tril_diag", lambda a: cygrad.tril(a, -1), [(2, 3, 3)]),
    ("triu", lambda a: cygrad.triu(a, 1), [(3, 4)]),
    ("tril_inplace", lambda a: (a * 1).tril_(1), [(3, 4)]),
    ("triu_inplace", lambda a: (a * 1).triu_(), [(2, 3, 3)]),
    ("broadcast_to", lambda a: cygrad.broadcast_to(a, (2, 3, 2)), [(3, 1)]),
    ("broadcast_tensors", lambda a, b: cygrad.broadcast_tensors(a, b), [(3, 1), (2, 1, 4)]),
    ("atleast_1d", lambda a: cygrad.atleast_1d(a), [()]),
    ("atleast_2d", lambda a, b: cygrad.atleast_2d(a, b), [(3,), ()]),
    ("atleast_3d", lambda a, b: cygrad.atleast_3d([a, b]), [(3,), (2, 3)]),
    ("meshgrid_ij", lambda a, b: cygrad.meshgrid(a, b, indexing="ij"), [(3,), (2,)]),
    ("meshgrid_xy", lambda a, b, c: cygrad.meshgrid(a, b, c, indexing="xy"), [(3,), (2,), ()]),
    ("reshape", lambda a: cygrad.reshape(a, (3, 2)), [(2, 3)]),
    ("ravel", cygrad.ravel, [(2, 3)]),
    ("transpose", lambda a: cygrad.transpose(a, 0, 2), [(2, 3, 2)]),
    ("swapaxes", lambda a: cygrad.swapaxes(a, 0, 1), [(2, 3)]),
    ("swapdims", lambda a: cygrad.swapdims(a, 1, 0), [(2, 3)]),
    ("permute", lambda a: cygrad.permute(a, (2, 0, 1)), [(2, 3, 2)]),
    ("squeeze", lambda a: cygrad.squeeze(a), [(2, 1, 3)]),
    ("squeeze_dim", lambda a: cygrad.squeeze(a, 1), [(2, 1, 3)]),
    ("unsqueeze", lambda a: cygrad.unsqueeze(a, -1), [(2, 3)]),
    ("flatten", lambda a: cygrad.flatten(a, 1), [(2, 3, 2)]),
    ("unflatten", lambda a: cygrad.unflatten(a, 1, (2, 2)), [(3, 4)]),
    ("movedim", lambda a: cygrad.movedim(a, 0, -1), [(2, 3, 2)]),
    ("moveaxis", lambda a: cygrad.moveaxis(a, (0, 1), (1, 0)), [(2, 3)]),
    ("narrow", lambda a: cygrad.narrow(a, 1, 1, 2), [(2, 4)]),
    ("select", lambda a: cygrad.select(a, 0, -1), [(3, 2)]),
    ("diagonal", lambda a: cygrad.diagonal(a, 1, 0, 2), [(3, 2, 4)]),
    ("as_strided", lambda a: cygrad.as_strided(a.contiguous(), (2, 2), (1, 2), 1), [(6,)]),
    ("unbind", lambda a: cygrad.unbind(a, 1), [(2, 3)]),
    ("split", lambda a: cygrad.split(a, [1, 3], 1), [(2, 4)]),
    ("tensor_split", lambda a: cygrad.tensor_split(a, 3, 1), [(2, 5)]),
    ("hsplit", lambda a: cygrad.hsplit(a, 2), [(2, 4)]),
    ("vsplit", lambda a: cygrad.vsplit(a, [1]), [(3, 2)]),
    ("dsplit", lambda a: cygrad.dsplit(a, 2), [(1, 2, 4)]),
    ("chunk", lambda a: cygrad.chunk(a, 2, 0), [(3, 2)]),
    ("t", cygrad.t, [(2, 3)]),
    ("clone", cygrad.clone, [(2, 3)]),
    ("pad_constant", lambda a: pad(a, (1, 2)), [(2, 3)]),
    ("pad_constant_value_crop", lambda a: pad(a, (1, -1, -1, 2), value=2.5), [(2, 3, 3)]),
    ("pad_constant_3d", lambda a: pad(a, (1, 0, 0, 1, 2, 1)), [(2, 2, 2)]),
]
for _mode in ("reflect", "replicate", "circular"):
    GRAD_CASES += [
        (f"pad_{_mode}_1d", lambda a, m=_mode: pad(a, (2, 1), mode=m), [(2, 3)]),
        (f"pad_{_mode}_2d", lambda a, m=_mode: pad(a, (1, 2, 2, 1), mode=m), [(1, 3, 3)]),
        (f"pad_{_mode}_3d", lambda a, m=_mode: pad(a, (1, 1, 0, 1, 1, 0), mode=m), [(1, 2, 2, 3)]),
        (f"pad_{_mode}_crop", lambda a, m=_mode: pad(a, (-1, 1), mode=m), [(1, 2, 4)]),
    ]
GRAD_IDS = [c[0] for c in GRAD_CASES]


@pytest.mark.parametrize("layout", ["contig", "T", "neg"])
@pytest.mark.parametrize("name,fn,shapes", GRAD_CASES, ids=GRAD_IDS)
def test_gradcheck(rng, name, fn, shapes, layout):
    xs = [leaf(rng, *s, layout=layout) for s in shapes]
    assert gradcheck(fn, tuple(xs))


GRADGRAD = ["cat", "cat_legacy_empty", "stack", "hstack", "flip", "roll", "roll_flat", "rot90",
            "repeat", "tile", "repeat_interleave_tensor", "tril_diag", "triu_inplace",
            "pad_constant", "pad_constant_value_crop", "pad_reflect_2d", "pad_replicate_1d",
            "pad_circular_2d", "pad_reflect_crop", "broadcast_to", "meshgrid_xy"]


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(rng, name):
    _, fn, shapes = GRAD_CASES[GRAD_IDS.index(name)]
    xs = [leaf(rng, *s, layout="T") for s in shapes]
    assert gradgradcheck(fn, tuple(xs))


# ---------------------------------------------------------------------------
# against PyTorch: gradients and node names
# ---------------------------------------------------------------------------
TORCH_CASES = [
    ("cat", lambda m, a, b: m.cat([a, b], 1), [(2, 3), (2, 2)], "CatBackward0"),
    ("stack", lambda m, a, b: m.stack([a, b], 1), [(2, 3), (2, 3)], "StackBackward0"),
    ("hstack", lambda m, a, b: m.hstack([a, b]), [(2, 3), (2, 1)], "CatBackward0"),
    ("column_stack", lambda m, a, b: m.column_stack([a, b]), [(3,), (3,)], "CatBackward0"),
    ("flip", lambda m, a: m.flip(a, [0, 1]), [(2, 3)], "FlipBackward0"),
    ("roll", lambda m, a: m.roll(a, (1, 2), (0, 1)), [(3, 4)], "RollBackward0"),
    ("roll_flat", lambda m, a: m.roll(a, 5), [(3, 4)], "RollBackward0"),
    ("rot90", lambda m, a: m.rot90(a, 3, (0, 1)), [(3, 4)], "Rot90Backward0"),
    ("repeat", lambda m, a: a.repeat(2, 1, 3), [(3, 2)], "RepeatBackward0"),
    ("tile", lambda m, a: m.tile(a, (2, 2)), [(3, 2)], "RepeatBackward0"),
    ("repeat_interleave", lambda m, a: m.repeat_interleave(a, m.tensor([1, 0, 3]), dim=0),
     [(3, 2)], "IndexSelectBackward0"),
    ("tril", lambda m, a: m.tril(a, 1), [(3, 4)], "TrilBackward0"),
    ("triu", lambda m, a: m.triu(a, -1), [(3, 4)], "TriuBackward0"),
    ("tril_", lambda m, a: (a * 1).tril_(), [(3, 4)], "TrilBackward0"),
    ("triu_", lambda m, a: (a * 1).triu_(), [(3, 4)], "TriuBackward0"),
    ("pad_constant", None, [(2, 3, 4)], "ConstantPadNdBackward0"),
    ("pad_reflect", None, [(2, 3, 4)], "ReflectionPad2DBackward0"),
    ("pad_replicate", None, [(2, 3, 4)], "ReplicationPad2DBackward0"),
    ("pad_circular", None, [(2, 3, 4)], None),   # PyTorch builds it from slices (CopySlices)
]


def _pad_fn(mode):
    def fn(m, a):
        f = pad if m is cygrad else TF.pad
        if mode == "constant":
            return f(a, (1, -1, 2, 0), value=1.5)
        return f(a, (2, 1, 1, 2), mode=mode)
    return fn


@pytest.mark.parametrize("name,fn,shapes,node", TORCH_CASES, ids=[c[0] for c in TORCH_CASES])
def test_grads_match_torch(rng, name, fn, shapes, node):
    fn = fn or _pad_fn(name.split("_")[1])
    xs = [leaf(rng, *s, layout="T") for s in shapes]
    ts = [torch_copy(x) for x in xs]
    out, tout = fn(cygrad, *xs), fn(torch, *ts)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy(), rtol=1e-12)
    if node is not None:
        assert out.grad_fn.name() == tout.grad_fn.name() == node
    u = rng.standard_normal(tuple(tout.shape))
    grads = cygrad.autograd.grad(out, xs, cygrad.from_numpy(u))
    tgrads = torch.autograd.grad(tout, ts, torch.from_numpy(u))
    for g, tg in zip(grads, tgrads):
        np.testing.assert_allclose(g.numpy(), tg.numpy(), rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("mode", ["reflect", "replicate", "circular"])
@pytest.mark.parametrize("amounts", [(-1, 3), (3, -1), (2, -1), (-2, -1), (-1, 1, 2, -1)])
def test_pad_with_negative_amounts_matches_torch(rng, mode, amounts):
    # PyTorch's rule: reflect mirrors the whole dim then crops; the others crop first.
    x = leaf(rng, 1, 3, 4)
    tx = torch_copy(x)
    out, tout = pad(x, amounts, mode=mode), TF.pad(tx, amounts, mode=mode)
    np.testing.assert_allclose(out.detach().numpy(), tout.detach().numpy())
    u = rng.standard_normal(tuple(tout.shape))
    out.backward(cygrad.from_numpy(u))
    tout.backward(torch.from_numpy(u))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy(), rtol=1e-12, atol=1e-12)


def test_cat_promotes_and_converts_grads_back(rng):
    # float32 and float64 inputs: the result is float64, each gradient has its input's dtype
    a = leaf(rng, 2, 2, dtype=np.float32)
    b = leaf(rng, 3, 2)
    out = cygrad.cat([a, b])
    assert out.dtype == cygrad.float64
    u = rng.standard_normal((5, 2))
    out.backward(cygrad.from_numpy(u))
    assert a.grad.dtype == cygrad.float32 and b.grad.dtype == cygrad.float64
    ta, tb = torch_copy(a), torch_copy(b)
    torch.cat([ta, tb]).backward(torch.from_numpy(u))
    np.testing.assert_allclose(a.grad.numpy(), ta.grad.numpy(), rtol=1e-6)
    np.testing.assert_allclose(b.grad.numpy(), tb.grad.numpy(), rtol=1e-12)


def test_cat_with_integer_input_only_float_gets_grad(rng):
    a = leaf(rng, 2)
    ints = cygrad.tensor([1, 2, 3])
    out = cygrad.stack([cygrad.cat([a, ints])[:2], a])
    assert out.grad_fn.name() == "StackBackward0"
    assert gradcheck(lambda x: cygrad.cat([x, ints]), (a,))


def test_stack_and_cat_of_views_of_one_tensor(rng):
    # the same memory reaches cat twice (as itself and as a transposed view)
    x = leaf(rng, 3, 3)
    assert gradcheck(lambda a: cygrad.cat([a, a.t(), a[::2]], 0), (x,))
    assert gradcheck(lambda a: cygrad.stack([a, a.t()]), (x,))


# ---------------------------------------------------------------------------
# in-place tril_/triu_
# ---------------------------------------------------------------------------
def test_tril_inplace_on_a_view_updates_the_base_history(rng):
    def fn(a):
        b = a * 1
        b[1:].tril_()
        return b
    x = leaf(rng, 3, 4)
    assert gradcheck(fn, (x,))
    tx = torch_copy(x)
    tb = tx * 1
    tb[1:].tril_()
    out = fn(x)
    np.testing.assert_allclose(out.detach().numpy(), tb.detach().numpy())
    u = rng.standard_normal((3, 4))
    out.backward(cygrad.from_numpy(u))
    tb.backward(torch.from_numpy(u))
    np.testing.assert_allclose(x.grad.numpy(), tx.grad.numpy())


def test_tril_inplace_on_a_leaf_that_requires_grad_raises_like_torch(rng):
    x = leaf(rng, 3, 3)
    before = x.detach().clone()
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        x.tril_()
    np.testing.assert_array_equal(x.detach().numpy(), before.numpy())   # untouched
    with pytest.raises(RuntimeError, match="leaf Variable that requires grad"):
        torch_copy(x).tril_()
    with cygrad.no_grad():
        x.triu_()          # allowed without grad mode, as in PyTorch
    np.testing.assert_array_equal(x.detach().numpy(), np.triu(before.numpy()))


def test_tril_inplace_saved_value_is_checked(rng):
    # y = x * x saves x; zeroing x in place afterwards must make backward fail
    x = leaf(rng, 3, 3)
    h = x * 1
    y = h * h
    h.tril_()
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


# ---------------------------------------------------------------------------
# out= with autograd
# ---------------------------------------------------------------------------
@pytest.mark.parametrize("fn", [lambda m, x, o: m.cat([x, x], out=o),
                                lambda m, x, o: m.stack([x, x], out=o),
                                lambda m, x, o: m.tril(x, out=o)],
                         ids=["cat", "stack", "tril"])
def test_out_with_requires_grad_raises_like_torch(rng, fn):
    x = leaf(rng, 2, 2)
    with pytest.raises(RuntimeError, match="out=... arguments don't support automatic"):
        fn(cygrad, x, cygrad.empty(0, dtype=cygrad.float64))
    with pytest.raises(RuntimeError):
        fn(torch, torch_copy(x), torch.empty(0, dtype=torch.float64))


def test_no_graph_under_no_grad(rng):
    x = leaf(rng, 2, 3)
    with cygrad.no_grad():
        for out in (cygrad.cat([x, x]), cygrad.flip(x, [0]), pad(x, (1, 1), mode="reflect"),
                    x.repeat(2, 1), cygrad.tril(x)):
            assert out.grad_fn is None and not out.requires_grad


# ---------------------------------------------------------------------------
# jvp: forward mode against finite differences and reverse mode
# ---------------------------------------------------------------------------


def test_cat_jvp(rng):
    fn = lambda a, b, c: cygrad.cat([a, b, c], 1)            # noqa: E731
    check_jvp(rng, fn, S.Cat, lambda a, b, c: (1, [3, 1, 2], a, b, c), [(2, 3), (2, 1), (2, 2)])
    check_jvp(rng, fn, S.Cat, lambda a, b, c: (1, [3, 1, 2], a, b, c), [(2, 3), (2, 1), (2, 2)],
              which=[1])


def test_stack_jvp(rng):
    fn = lambda a, b: cygrad.stack([a, b], 2)                # noqa: E731
    check_jvp(rng, fn, S.Stack, lambda a, b: (2, a, b), [(2, 3), (2, 3)])
    check_jvp(rng, fn, S.Stack, lambda a, b: (2, a, b), [(2, 3), (2, 3)], which=[0])


@pytest.mark.parametrize("name,fn,cls,make_args,shape", [
    ("flip", lambda a: cygrad.flip(a, [0, 2]), S.Flip, lambda a: (a, (0, 2)), (2, 3, 2)),
    ("roll", lambda a: cygrad.roll(a, (1, -1), (0, 1)), S.Roll, lambda a: (a, (1, -1), (0, 1)),
     (3, 4)),
    ("roll_flat", lambda a: cygrad.roll(a, 2), S.Roll, lambda a: (a, (2,), None), (3, 4)),
    ("rot90", lambda a: cygrad.rot90(a, 1, (0, 1)), S.Rot90, lambda a: (a, 1, (0, 1)), (3, 4)),
    ("repeat", lambda a: a.repeat(2, 1, 2), S.Repeat, lambda a: (a, (2, 1, 2)), (3, 2)),
    ("tril", lambda a: cygrad.tril(a, -1), S.Tril, lambda a: (a, -1), (3, 4)),
    ("triu", lambda a: cygrad.triu(a, 1), S.Triu, lambda a: (a, 1), (3, 4)),
    ("pad_constant", lambda a: pad(a, (1, -1, 0, 2), value=3.0), S.ConstantPadNd,
     lambda a: (a, [(2, 1, -1), (1, 0, 2)], 3.0), (2, 3, 4)),
    ("pad_reflect", lambda a: pad(a, (2, 1, 1, 1), mode="reflect"), S._pad_function("reflect", 2),
     lambda a: (a, [(2, S._pad_source(4, 2, 1, "reflect")),
                    (1, S._pad_source(3, 1, 1, "reflect"))]), (2, 3, 4)),
    ("pad_circular", lambda a: pad(a, (2, -1), mode="circular"), S._pad_function("circular", 1),
     lambda a: (a, [(2, S._pad_source(4, 2, -1, "circular"))]), (2, 3, 4)),
    ("repeat_interleave", lambda a: cygrad.repeat_interleave(a, cygrad.tensor([2, 0, 1]), 0),
     S.RepeatInterleave, lambda a: (a, 0, cygrad.tensor([0, 0, 2])), (3, 2)),
])
def test_single_input_jvp(rng, name, fn, cls, make_args, shape):
    check_jvp(rng, fn, cls, make_args, [shape])


def test_index_add_jvp(rng):
    # the adjoint of repeat_interleave / reflect padding (shared with cygrad.index_add)
    index, base = cygrad.tensor([1, 1, 0, 2]), cygrad.zeros(2, 3, dtype=cygrad.float64)
    check_jvp(rng, lambda g: cygrad.index_add(base, 1, index, g), IndexAdd,
              lambda g: (base, 1, index, g, 1), [(2, 4)])


@pytest.mark.skipif(not _forward_ad_supported(),
                    reason="the core has no forward-mode switch (_set_fw_grad_enabled) yet")
def test_cat_and_flip_jvp_through_forward_ad(rng):
    from cygrad.autograd import forward_ad as fwAD
    a, b = rng.standard_normal((2, 3)), rng.standard_normal((1, 3))
    va = rng.standard_normal((2, 3))
    with fwAD.dual_level():
        x = fwAD.make_dual(cygrad.from_numpy(a), cygrad.from_numpy(va))
        out = cygrad.flip(cygrad.cat([x, cygrad.from_numpy(b)]), [0])
        tangent = fwAD.unpack_dual(out).tangent
    expected = np.concatenate([va, np.zeros((1, 3))])[::-1]
    np.testing.assert_allclose(tangent.numpy(), expected)
