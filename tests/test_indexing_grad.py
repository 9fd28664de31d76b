"""Gradients of the indexing ops (the ``cygrad/ops/indexing`` package).

Three independent references:

* finite differences: ``cygrad.autograd.gradcheck`` / ``gradgradcheck`` in float64;
* PyTorch: the same program run with ``torch`` in place of ``cygrad`` (every program
  below is written against the shared API, ``L`` being either module) must give the
  same values, the same gradients for a random output gradient, and the same
  ``grad_fn`` name;
* for forward mode, each Function's ``jvp`` against central differences of its forward.
"""
import numpy as np
import pytest

import cygrad
from cygrad._core import tensor as _C
from cygrad.autograd import forward_ad as fwAD
from cygrad.autograd.gradcheck import gradcheck, gradgradcheck
from cygrad.ops import indexing as I


def _torch():
    return pytest.importorskip("torch", reason="PyTorch reference not installed")


RNG = np.random.default_rng(20240611)
A = RNG.standard_normal((3, 4))                 # the usual input
B = RNG.standard_normal((2, 4))                 # a src / source / values operand
S0 = RNG.standard_normal(())                    # a 0-dim value
A3 = RNG.standard_normal((3, 2, 4))
IDX2 = [[0, 2, 2, 1], [0, 0, 0, 0]]             # repeats along dim 0 (accumulation)
# src values with zeros: one alone at its place, two sharing a place, one meeting a 0 in self
B_ZEROS = np.array([[0.0, 1.5, 0.0, -2.0], [0.7, 0.0, 0.0, 1.1]])
A_ZERO = A.copy()
A_ZERO[0, 3] = 0.0


def assign(y, index, value):
    """``y[index] = value`` as an expression (returns y)."""
    y[index] = value
    return y


def inplace(method, *args, **kwargs):
    """A program running ``y.<method>(*args, *inputs, **kwargs)`` on the intermediate
    ``y = x * 2``: callables in ``args`` get the library module (to build index tensors
    with it), and the program's inputs after ``x`` follow them (src, values...)."""
    def program(L, x, *rest):
        y = x * 2
        extra = [a(L) if callable(a) else a for a in args]
        out = getattr(y, method)(*extra, *rest, **kwargs)
        assert out is y
        return y
    return program


def idx(values):
    return lambda L: L.tensor(values)


def write_into_view(L, x, v):
    """``y[1:, 1:][[0, 1], [2, 0]] = v * 3`` on an intermediate ``y``, then use ``y``."""
    y = x * 2
    w = y[1:, 1:]
    w[[0, 1], [2, 0]] = v * 3
    return y * 1


def view_op(method, *args):
    def program(L, x, *rest):
        y = x * 3
        getattr(y[1:, 1:], method)(*[a(L) if callable(a) else a for a in args], *rest)
        return y
    return program


def value_only(L, v):
    """Only the written value requires grad; the target is a plain zeros tensor."""
    y = L.zeros(3, 4, dtype=L.float64)
    y[L.tensor([2, 0])] = v
    return y * 1


# name -> (program(L, *inputs), input arrays, gradcheck?, torch?)
# gradcheck is off where a non-accumulating write repeats an index (the last write wins,
# so finite differences see one value; PyTorch's convention, followed here, gives the
# gradient to every repeated value); torch is off where PyTorch itself fails.
CASES = {
    # t[idx]
    "getitem_repeats": (lambda L, x: x[L.tensor([0, 2, 0, -1])], [A], True, True),
    "getitem_2d_index_then_slice": (lambda L, x: x[L.tensor([[0, 2], [0, 0]]), 1:], [A],
                                    True, True),
    "getitem_mask": (lambda L, x: x[x > 0], [A], True, True),
    "getitem_separated": (lambda L, x: x[L.tensor([0, 0]), :, L.tensor([1, -1])], [A3], True, True),
    "getitem_int_and_list": (lambda L, x: x[1, [3, 3, 0]], [A], True, True),
    "getitem_noncontig": (lambda L, x: x.t()[L.tensor([3, 0, 3])], [A], True, True),
    "getitem_bool_scalar": (lambda L, x: x[True], [A], True, True),
    # t[idx] = v on intermediates, t.index_put
    "setitem_nonleaf": (lambda L, x, z: assign(x * 2, (slice(None), L.tensor([0, 2])), z * 3),
                        [A, B[:1, :2]], True, True),
    "setitem_repeats": (lambda L, x, z: assign(x * 2, (L.tensor([0, 0]),), z), [A, B], False, True),
    "setitem_mask_scalar_tensor": (lambda L, x, z: assign(x * 1, (x > 0,), z), [A, S0], True, True),
    "setitem_number": (lambda L, x: assign(x * 1, (L.tensor([1]),), 5.0), [A], True, True),
    "setitem_view_of_intermediate": (write_into_view, [A, B[0, :2]], True, True),
    "setitem_value_only": (value_only, [B[:, :4]], True, True),
    "setitem_noncontig": (lambda L, x, z: assign(x.t() * 1, (L.tensor([0, 3]),), z),
                          [A, B[:, :3]], True, True),
    "index_put": (lambda L, x, v: x.index_put((L.tensor([0, 2]), L.tensor([1, 1])), v),
                  [A, B[0, :2]], True, True),
    "index_put_accumulate": (lambda L, x, v: x.index_put((L.tensor([0, 0]), L.tensor([1, 1])),
                                                         v, accumulate=True),
                             [A, B[0, :2]], True, True),
    "index_put_broadcast_value": (lambda L, x, v: x.index_put((L.tensor([0, 0]),), v,
                                                              accumulate=True),
                                  [A, B[:1]], True, True),
    "index_put_": (inplace("index_put_", lambda L: (L.tensor([1, 1]),), accumulate=True),
                   [A, B[0]], True, True),
    "index_put_no_accumulate_": (inplace("index_put_", lambda L: (L.tensor([2, 0]),)),
                                 [A, B[0]], True, True),
    # select / gather / scatter
    "index_select": (lambda L, x: x.index_select(1, L.tensor([3, 0, 3])), [A], True, True),
    "index_select_noncontig": (lambda L, x: x[:, ::2].index_select(0, L.tensor([2, 2])), [A],
                               True, True),
    "gather": (lambda L, x: x.gather(0, L.tensor(IDX2)), [A], True, True),
    "gather_small_index": (lambda L, x: x.gather(1, L.tensor([[3], [3]])), [A], True, True),
    "scatter_src": (lambda L, x, s: x.scatter(0, L.tensor([[0, 2, 1, 1]]), s), [A, B[:1]],
                    True, True),
    "scatter_src_larger_than_index": (lambda L, x, s: x.scatter(0, L.tensor([[0, 2, 1]]), s),
                                      [A, B], True, False),
    "scatter_value": (lambda L, x: x.scatter(1, L.tensor([[0], [3], [3]]), 1.5), [A], True, True),
    "scatter_": (inplace("scatter_", 0, idx([[0, 2, 1, 1]])), [A, B[:1]], True, True),
    "scatter_value_": (inplace("scatter_", 1, idx([[0], [3], [3]]), 2.0), [A], True, True),
    "scatter_add": (lambda L, x, s: x.scatter_add(0, L.tensor(IDX2), s), [A, B], True, True),
    "scatter_add_src_larger": (lambda L, x, s: x.scatter_add(0, L.tensor([[0, 2, 2]]), s),
                               [A, B], True, False),
    "scatter_add_": (inplace("scatter_add_", 0, idx(IDX2)), [A, B], True, True),
    "take": (lambda L, x: x.take(L.tensor([[0, 11], [-1, 0]])), [A], True, True),
    "take_along_dim": (lambda L, x: L.take_along_dim(x, L.tensor([[0], [2], [-1]]), 1), [A],
                       True, True),
    "take_along_dim_broadcast": (lambda L, x: L.take_along_dim(
        x, L.tensor([[0, 1, 1], [2, 2, -1]]).reshape(2, 1, 3), 2), [A[None]], True, True),
    "take_along_dim_flat": (lambda L, x: L.take_along_dim(x, L.tensor([0, 5, 5])), [A], True, True),
    "put": (lambda L, x, s: x.put(L.tensor([0, 5, -1]), s), [A, B[0, :3]], True, True),
    "put_repeats": (lambda L, x, s: x.put(L.tensor([0, 5, 5]), s), [A, B[0, :3]], False, True),
    "put_accumulate": (lambda L, x, s: x.put(L.tensor([0, 5, 5]), s, accumulate=True),
                       [A, B[0, :3]], True, True),
    "put_": (inplace("put_", idx([1, 7])), [A, B[0, :2]], True, True),
    # index_fill / index_copy / index_add
    "index_fill": (lambda L, x: x.index_fill(1, L.tensor([0, -1, 0]), 3.0), [A], True, True),
    "index_fill_tensor_value": (lambda L, x, v: x.index_fill(1, L.tensor([0, 3, 0]), v),
                                [A, S0], True, True),
    # PyTorch's backward for the value fails on negative indices (it index_selects them)
    "index_fill_tensor_value_negative": (lambda L, x, v: x.index_fill(1, L.tensor([0, -1]), v),
                                         [A, S0], True, False),
    "index_fill_": (inplace("index_fill_", 0, idx([1]), 2.0), [A], True, True),
    "index_copy": (lambda L, x, s: x.index_copy(0, L.tensor([2, 0]), s), [A, B], True, True),
    "index_copy_": (inplace("index_copy_", 0, idx([2, 0])), [A, B], True, True),
    "index_add": (lambda L, x, s: x.index_add(0, L.tensor([2, 2]), s, alpha=2.5), [A, B],
                  True, True),
    "index_add_": (inplace("index_add_", 1, idx([2, 0, 2])), [A, RNG.standard_normal((3, 3))],
                   True, True),
    "index_add_into_view": (view_op("index_add_", 0, idx([0, 0])), [A, B[:, 1:]], True, True),
    # masks and where
    "masked_fill": (lambda L, x: x.masked_fill(L.tensor([True, False, False, True]), 2.0), [A],
                    True, True),
    "masked_fill_tensor_value": (lambda L, x, v: x.masked_fill(L.tensor([[True], [False], [True]]),
                                                               v),
                                 [A, S0], True, True),
    "masked_fill_broadcast_input": (lambda L, x: x.masked_fill(
        L.tensor([True, False, False, True] * 3).reshape(3, 1, 4), 2.0), [A[0]], True, True),
    "masked_fill_": (inplace("masked_fill_", idx([True, False, True, False])), [A, S0], True, True),
    "masked_fill_into_view": (lambda L, x: _masked_fill_view(L, x), [A], True, True),
    "masked_select": (lambda L, x: x.masked_select(x > 0), [A], True, True),
    "masked_select_broadcast": (lambda L, x: x.masked_select(L.tensor([[True], [False], [True]])),
                                [A[0]], True, True),
    "where": (lambda L, x, y: L.where(x > 0, x, y), [A, B[:1]], True, True),
    "where_both_broadcast": (lambda L, x, y: L.where(L.tensor([[True], [False], [True]]), x, y),
                             [A[0], B[:, :1][:1]], True, True),
    "where_scalar_branch": (lambda L, x: L.where(x > 0, 0.5, x), [A], True, True),
    "where_noncontig": (lambda L, x, y: L.where(x.t() > 0, x.t(), y[::2]),
                        [A, RNG.standard_normal((8, 3))],
                        True, True),
}


def _masked_fill_view(L, x):
    y = x * 3
    w = y[1:, 1:]
    w.masked_fill_(w > 0, 0.5)
    return y


# scatter_reduce: every reduction, with and without self, repeated indices, zeros for prod
for _r in ("sum", "mean", "amax", "amin", "prod"):
    for _inc in (True, False):
        CASES[f"scatter_reduce_{_r}_{'self' if _inc else 'noself'}"] = (
            (lambda r, inc: lambda L, x, s: x.scatter_reduce(0, L.tensor(IDX2), s, r,
                                                             include_self=inc))(_r, _inc),
            [A, B], True, True)
CASES["scatter_reduce_prod_zeros_self"] = (
    lambda L, x, s: x.scatter_reduce(0, L.tensor([[0, 0, 2, 0], [0, 1, 2, 0]]), s, "prod"),
    [A_ZERO, B_ZEROS], True, True)
CASES["scatter_reduce_prod_zeros_noself"] = (
    lambda L, x, s: x.scatter_reduce(0, L.tensor([[0, 0, 2, 0], [0, 1, 2, 0]]), s, "prod",
                                     include_self=False), [A_ZERO, B_ZEROS], True, True)
# a single zero of src at each place, one of them meeting a zero of the input
CASES["scatter_reduce_prod_lone_zeros"] = (
    lambda L, x, s: x.scatter_reduce(0, L.tensor([[0, 0, 2, 0], [0, 1, 1, 0]]), s, "prod"),
    [A_ZERO, B_ZEROS], True, True)
CASES["scatter_reduce_amax_ties"] = (
    lambda L, x, s: x.scatter_reduce(1, L.tensor([[0, 0, 1]]), s, "amax"),
    [np.array([[1.0, 5.0, 2.0]]), np.array([[1.0, 1.0, 4.0]])], True, True)
CASES["scatter_reduce_prod_"] = (inplace("scatter_reduce_", 0, idx(IDX2), reduce="prod"),
                                 [A, B], True, True)
CASES["scatter_reduce_amax_noself_"] = (inplace("scatter_reduce_", 0, idx(IDX2), reduce="amax",
                                                include_self=False), [A, B], True, True)

# the ties case has kinks: finite differences are only one-sided there
_NO_GRADCHECK = {"scatter_reduce_amax_ties"}


def _inputs(arrays):
    return [cygrad.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items()
                                        if c[2] and n not in _NO_GRADCHECK))
def test_gradcheck(name):
    program, arrays, _, _ = CASES[name]
    assert gradcheck(lambda *xs: program(cygrad, *xs), _inputs(arrays))


@pytest.mark.parametrize("name", sorted(n for n, c in CASES.items() if c[3]))
def test_matches_torch(name):
    torch = _torch()
    program, arrays, _, _ = CASES[name]
    ours = _inputs(arrays)
    theirs = [torch.tensor(np.array(a, dtype=np.float64), requires_grad=True) for a in arrays]
    out, ref = program(cygrad, *ours), program(torch, *theirs)
    np.testing.assert_allclose(out.detach().numpy(), ref.detach().numpy(), rtol=1e-12, atol=1e-12)
    assert type(out.grad_fn).__name__ == type(ref.grad_fn).__name__
    seed = RNG.standard_normal(tuple(ref.shape))
    out.backward(cygrad.tensor(seed))
    ref.backward(torch.tensor(seed))
    for mine, want in zip(ours, theirs):
        np.testing.assert_allclose(mine.grad.numpy(), want.grad.numpy(), rtol=1e-12, atol=1e-12)


GRADGRAD = ["getitem_repeats", "getitem_mask", "getitem_separated", "index_select", "gather",
            "where", "where_scalar_branch", "setitem_nonleaf", "scatter_add", "masked_select",
            "take", "index_add", "scatter_reduce_prod_self", "scatter_reduce_prod_lone_zeros",
            "where_both_broadcast", "masked_fill_tensor_value", "index_fill_tensor_value",
            "index_put_broadcast_value"]


@pytest.mark.parametrize("name", GRADGRAD)
def test_gradgradcheck(name):
    program, arrays, _, _ = CASES[name]
    assert gradgradcheck(lambda *xs: program(cygrad, *xs), _inputs(arrays))


# ----------------------------------------------------------------- specific behaviours

def test_repeated_indices_accumulate():
    x = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    y = x[cygrad.tensor([0, 2, 0, 0])]
    y.backward(cygrad.tensor([1.0, 10.0, 100.0, 1000.0]))
    expected = np.zeros(3)
    np.add.at(expected, [0, 2, 0, 0], [1.0, 10.0, 100.0, 1000.0])
    np.testing.assert_array_equal(x.grad.numpy(), expected)


def test_noncontiguous_leaves():
    # leaves whose own memory is laid out column-major and with a negative stride
    x = cygrad.from_numpy(np.asfortranarray(A)).requires_grad_(True)
    s = cygrad.from_numpy(B[:, ::-1]).requires_grad_(True)
    assert not x.is_contiguous() and not s.is_contiguous()
    assert gradcheck(lambda a: a[cygrad.tensor([2, 0, 2])], (x,))
    assert gradcheck(lambda a, b: a.scatter_add(0, cygrad.tensor(IDX2), b), (x, s))
    assert gradcheck(lambda a, b: cygrad.where(a[:2] > 0, a[:2], b), (x, s))


def test_setitem_on_leaf_raises_like_torch():
    torch = _torch()
    for lib in (cygrad, torch):
        x = lib.tensor(A, requires_grad=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                               "in an in-place operation"):
            x[lib.tensor([0])] = 1.0
        with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
            x[1:][lib.tensor([0])] = 1.0
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x.index_put_((lib.tensor([0]),), lib.tensor(1.0, dtype=lib.float64), accumulate=True)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x.scatter_(0, lib.tensor([[0]]), 2.0)
        with pytest.raises(RuntimeError, match="a leaf Variable that requires grad"):
            x.masked_fill_(x > 0, 0.0)
        with lib.no_grad():
            x[lib.tensor([0])] = 7.0         # allowed without grad mode
        assert x[0, 0].item() == 7.0


def test_saved_tensor_modified_by_setitem():
    torch = _torch()
    for lib in (cygrad, torch):
        x = lib.tensor(A, requires_grad=True)
        y = x * 2
        z = y * y                  # saves y
        y[lib.tensor([0])] = 0.0   # ... which is then written to
        with pytest.raises(RuntimeError, match="modified by an inplace operation"):
            z.backward(lib.ones_like(z))


def test_saved_index_modified_in_place():
    x = cygrad.tensor(A, requires_grad=True)
    index = cygrad.tensor([0, 2])
    y = x.index_select(0, index)
    index[0] = 1
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.backward(cygrad.ones_like(y))


def test_index_tensor_changed_after_getitem_does_not_change_gradient():
    x = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    index = cygrad.tensor([0, 0])
    y = x[index]
    index[1] = 2                # the plan kept its own copy of the positions
    y.backward(cygrad.ones_like(y))
    assert x.grad.tolist() == [2.0, 0.0, 0.0]


def test_setitem_rebases_history_and_versions():
    x = cygrad.tensor(A, requires_grad=True)
    y = x * 2
    before = y._version
    y[cygrad.tensor([0, 2])] = 1.0
    assert y._version == before + 1
    assert y.grad_fn.name() == "IndexPutBackward0"
    base = x * 3
    view = base[1:]
    view[cygrad.tensor([0])] = 2.0
    assert base.grad_fn.name() == "CopySlices"
    assert view.grad_fn.name() == "AsStridedBackward0"


def test_view_of_untracked_base_becomes_tracked_like_torch():
    torch = _torch()
    grads = []
    for lib in (cygrad, torch):
        w = lib.tensor([1.0, 2.0], dtype=lib.float64, requires_grad=True)
        base = lib.zeros(3, 3, dtype=lib.float64)
        view = base[1]
        view[lib.tensor([0, 2])] = w * 3
        assert type(base.grad_fn).__name__ == "CopySlices"
        assert view.requires_grad and type(view.grad_fn).__name__ == "AsStridedBackward0"
        (view * lib.tensor([1.0, 10.0, 100.0], dtype=lib.float64)).backward(
            lib.ones(3, dtype=lib.float64))
        grads.append(w.grad.tolist())
    assert grads[0] == grads[1]


def test_scatter_with_reduce_has_no_derivative_like_torch():
    torch = _torch()
    for lib in (cygrad, torch):
        x = lib.tensor(A, requires_grad=True)
        y = x.scatter(0, lib.tensor([[0, 1]]), 2.0, reduce="add")
        assert y.grad_fn is not None
        with pytest.raises(RuntimeError, match="derivative for aten::scatter is not implemented"):
            y.backward(lib.ones_like(y))


@pytest.mark.parametrize("call", [
    lambda L, x: L.index_select(x, 0, L.tensor([0]), out=L.empty(1, 4, dtype=L.float64)),
    lambda L, x: L.gather(x, 0, L.tensor([[0]]), out=L.empty(1, 1, dtype=L.float64)),
    lambda L, x: L.where(x > 0, x, L.zeros(3, 4, dtype=L.float64),
                         out=L.empty(3, 4, dtype=L.float64)),
    lambda L, x: L.masked_select(x, x > 0, out=L.empty(0, dtype=L.float64)),
])
def test_out_with_grad_raises_like_torch(call):
    torch = _torch()
    for lib in (cygrad, torch):
        with pytest.raises(RuntimeError, match="don't support automatic differentiation"):
            call(lib, lib.tensor(A, requires_grad=True))


def test_scatter_reduce_prod_double_backward_with_shared_zeros_raises_like_torch():
    torch = _torch()
    program = CASES["scatter_reduce_prod_zeros_self"][0]
    for lib in (cygrad, torch):
        x, s = (lib.tensor(a, dtype=lib.float64, requires_grad=True) for a in (A_ZERO, B_ZEROS))
        out = program(lib, x, s)
        first = lib.autograd.grad(out, (x, s), lib.ones_like(out), create_graph=True)
        with pytest.raises(RuntimeError, match="Double backward is unsupported for src when >1 "
                                               "zeros in src are scattered"):
            lib.autograd.grad(first[1], (x, s), lib.ones_like(first[1]), allow_unused=True)


def test_nonzero_and_argwhere_are_not_differentiable():
    x = cygrad.tensor(A, requires_grad=True)
    for result in (x.nonzero(), cygrad.argwhere(x), *cygrad.where(x > 0)):
        assert result.dtype == cygrad.int64 and not result.requires_grad


def test_no_graph_without_grad_mode():
    x = cygrad.tensor(A, requires_grad=True)
    with cygrad.no_grad():
        for y in (x[cygrad.tensor([0])], x.gather(0, cygrad.tensor(IDX2)),
                  cygrad.where(x > 0, x, 0.0), x.masked_fill(x > 0, 1.0)):
            assert y.grad_fn is None and not y.requires_grad


def test_index_put_accumulate_with_basic_only_index():
    # a 0-dim integer index is a basic index: the accumulation targets a 1-element view
    x = cygrad.zeros(3)
    x.index_put_((cygrad.tensor(1),), cygrad.tensor(2.0), accumulate=True)
    x.index_put_((cygrad.tensor(1),), cygrad.tensor(2.0), accumulate=True)
    assert x.tolist() == [0.0, 4.0, 0.0]


# ------------------------------------------------------------------------ forward mode

def _jvp_vs_finite_differences(cls, args, diff):
    """``cls.jvp`` at ``args`` along random tangents of the arguments in ``diff``,
    against central differences of ``cls.forward`` along the same direction."""
    tangents = [cygrad.tensor(RNG.standard_normal(tuple(args[i].shape))) if i in diff else None
                for i in range(len(args))]

    def forward(step):
        ctx = cls._backward_cls.__new__(cls._backward_cls)
        # as the engine sets it: the differentiated arguments require grad
        ctx.needs_input_grad = tuple(i in diff for i in range(len(args)))
        moved = [a + step * t if t is not None else a for a, t in zip(args, tangents)]
        return ctx, cls.forward(ctx, *moved)

    ctx, _ = forward(0.0)
    got = cls.jvp(ctx, *tangents)
    eps = 1e-6
    want = (forward(eps)[1].numpy() - forward(-eps)[1].numpy()) / (2 * eps)
    got = np.zeros_like(want) if got is None else np.broadcast_to(got.numpy(), want.shape)
    np.testing.assert_allclose(got, want, atol=1e-6)


def _f64(a):
    return cygrad.tensor(np.array(a, dtype=np.float64))


_X, _S, _V = _f64(A), _f64(B), _f64(S0)
_PLAN = I._plan_index(_X, (cygrad.tensor([0, 2, 0]), slice(1, None))).owned()
_T = cygrad.tensor
JVP_CASES = [
    (I.Index, (_X, _PLAN), {0}),
    (I.IndexScatter, (_f64(RNG.standard_normal((3, 3))), _PLAN, (3, 4)), {0}),
    (I.IndexPut, (_X, _S[0, :3], _PLAN, False, False), {0, 1}),
    (I.IndexPut, (_X, _S[0, :3], _PLAN, False, True), {0, 1}),
    (I.IndexPut, (_X, _S[0, :3], _PLAN, False, False), {1}),
    (I.IndexPut, (_X, 2.0, _PLAN, False, False), {0}),
    (I.IndexSelect, (_X, 1, _T([3, 0, 3])), {0}),
    (I.Gather, (_X, 0, _T(IDX2)), {0}),
    (I.Scatter, (_X, 0, _T([[0, 2, 1, 1]]), _S), {0, 3}),
    (I.Scatter, (_X, 0, _T([[0, 2, 1, 1]]), _S), {3}),
    (I.ScatterValue, (_X, 0, _T([[0, 2, 1, 1]]), 2.0), {0}),
    (I.ScatterAdd, (_X, 0, _T(IDX2), _S), {0, 3}),
    (I.ScatterAdd, (_X, 0, _T(IDX2), _S), {3}),
    *[(I.ScatterReduce, (_X, 0, _T(IDX2), _S, r, inc), {0, 3})
      for r in ("sum", "mean", "amax", "amin", "prod") for inc in (True, False)],
    (I.ScatterReduce, (_f64(A_ZERO), 0, _T([[0, 0, 2, 0], [0, 1, 2, 0]]), _f64(B_ZEROS), "prod",
                       True), {0, 3}),
    (I.Take, (_X, _T([[0, 11], [-1, 0]])), {0}),
    (I.Put, (_X, _T([0, 5, 7]), _S[0, :3], False), {0, 2}),
    (I.Put, (_X, _T([0, 5, 7]), _S[0, :3], False), {0}),
    (I.Put, (_X, _T([0, 5, 5]), _S[0, :3], True), {0, 2}),
    (I.IndexFill, (_X, 1, _T([0, -1]), 2.0), {0}),
    (I.IndexFillTensor, (_X, 1, _T([0, -1]), _V), {0, 3}),
    (I.IndexFillTensor, (_X, 1, _T([0, -1]), _V), {3}),
    (I.IndexCopy, (_X, 0, _T([2, 0]), _S), {0, 3}),
    (I.IndexCopy, (_X, 0, _T([2, 0]), _S), {0}),
    (I.IndexAdd, (_X, 0, _T([2, 2]), _S, 2.5), {0, 3}),
    (I.IndexAdd, (_X, 0, _T([2, 2]), _S, 2.5), {3}),
    (I.MaskedFill, (_X, _T([True, False, False, True]), 2.0), {0}),
    (I.MaskedFillTensor, (_X[0], _T([[True], [False]]), _V), {0, 2}),
    (I.MaskedSelect, (_X[0], _T([[True], [False], [True]])), {0}),
    (I.Where, (_T([[True], [False], [True]]), _X, _S[:1]), {1, 2}),
    (I.Where, (_T([[True], [False], [True]]), _X, 0.5), {1}),
    (I._Pad, (_S, (3, 5)), {0}),
]


@pytest.mark.parametrize("case", range(len(JVP_CASES)),
                         ids=[f"{c.__name__}-{i}" for i, (c, _, _) in enumerate(JVP_CASES)])
def test_function_jvp(case):
    cls, args, diff = JVP_CASES[case]
    _jvp_vs_finite_differences(cls, args, diff)


@pytest.mark.skipif(not hasattr(_C, "_set_fw_grad_enabled"),
                    reason="this build's core lacks the forward-grad switch forward_ad needs")
@pytest.mark.parametrize("name", ["getitem_repeats", "gather", "where", "scatter_add",
                                  "masked_fill_tensor_value", "setitem_nonleaf", "put_accumulate"])
def test_forward_ad_matches_reverse(name):
    program, arrays, _, _ = CASES[name]
    tangents = [RNG.standard_normal(np.shape(a)) for a in arrays]
    with fwAD.dual_level():
        duals = [fwAD.make_dual(_f64(a), _f64(t)) for a, t in zip(arrays, tangents)]
        jvp = fwAD.unpack_dual(program(cygrad, *duals)).tangent.numpy()
    # J @ v from reverse mode, one output element at a time
    inputs = _inputs(arrays)
    out = program(cygrad, *inputs)
    expected = np.zeros(out.numel())
    for j in range(out.numel()):
        onehot = np.zeros(out.numel())
        onehot[j] = 1.0
        grads = cygrad.autograd.grad(out, inputs, _f64(onehot.reshape(tuple(out.shape))),
                                     retain_graph=True, allow_unused=True)
        expected[j] = sum(float((g.numpy() * t).sum()) for g, t in zip(grads, tangents)
                          if g is not None)
    np.testing.assert_allclose(jvp, expected.reshape(tuple(out.shape)), atol=1e-10)
