"""One entry path per indexing op (issue 8).

* Every public indexing op computes through its ``Function``: with or without grad,
  its ``forward`` runs exactly once per call (no second, "no-grad" forward).
* An in-place op (``index_add_``, ``masked_fill_``, ``t[idx] = v``...) is the in-place
  form of the op's Function: its forward writes into the input and marks it dirty,
  so the engine makes the node the input's new ``grad_fn``. A view's base records the
  write as ``CopySlices``, as for any in-place op on a view.

References: PyTorch (the same program with ``torch`` for ``cygrad``, skipped per test
when it is not installed), finite differences (``gradcheck``, float64) and NumPy.
"""
import numpy as np
import pytest

import cygrad
from cygrad.autograd import forward_ad as fwAD
from cygrad.autograd.gradcheck import gradcheck
from cygrad.ops import indexing as I
from entry_helpers import count_forward_calls


def _torch():
    return pytest.importorskip("torch", reason="PyTorch reference not installed")


RNG = np.random.default_rng(8008)
X = RNG.standard_normal((4, 3))


def _t(L, values, **kw):
    return L.tensor(values, **kw)


# name -> (apply the in-place op to y (4x3 float64) with the library L and an operand
# src that requires grad (or None), src's values or None, the Function class recorded)
OPS = {
    "index_add_": (lambda L, y, s: y.index_add_(0, _t(L, [2, 0, 2]), s, alpha=1.5),
                   RNG.standard_normal((3, 3)), I.IndexAddInplace),
    "index_copy_": (lambda L, y, s: y.index_copy_(0, _t(L, [3, 1]), s),
                    RNG.standard_normal((2, 3)), I.IndexCopyInplace),
    "index_fill_": (lambda L, y, s: y.index_fill_(1, _t(L, [0, 2]), 2.5), None,
                    I.IndexFillInplace),
    "index_fill_tensor_": (lambda L, y, s: y.index_fill_(1, _t(L, [2]), s),
                           np.array(0.75), I.IndexFillTensorInplace),
    "masked_fill_": (lambda L, y, s: y.masked_fill_(_t(L, [True, False, True]), -1.0), None,
                     I.MaskedFillInplace),
    "masked_fill_tensor_": (lambda L, y, s: y.masked_fill_(_t(L, [[False], [True], [True],
                                                                  [False]]), s),
                            np.array(-0.5), I.MaskedFillTensorInplace),
    "scatter_": (lambda L, y, s: y.scatter_(0, _t(L, [[3, 0, 1]]), s),
                 RNG.standard_normal((1, 3)), I.ScatterInplace),
    "scatter_value_": (lambda L, y, s: y.scatter_(1, _t(L, [[2], [0], [1], [1]]), 4.0), None,
                       I.ScatterValueInplace),
    "scatter_add_": (lambda L, y, s: y.scatter_add_(0, _t(L, [[0, 0, 3], [1, 0, 3]]), s),
                     RNG.standard_normal((2, 3)), I.ScatterAddInplace),
    "scatter_reduce_prod_": (lambda L, y, s: y.scatter_reduce_(0, _t(L, [[0, 0, 3], [1, 0, 3]]),
                                                               s, "prod"),
                             RNG.standard_normal((2, 3)), I.ScatterReduceInplace),
    "scatter_reduce_amax_": (lambda L, y, s: y.scatter_reduce_(1, _t(L, [[0, 0], [2, 1], [1, 1],
                                                                         [0, 2]]),
                                                               s, "amax", include_self=False),
                             RNG.standard_normal((4, 2)), I.ScatterReduceInplace),
    "put_": (lambda L, y, s: y.put_(_t(L, [0, 11, -2]), s), RNG.standard_normal(3),
             I.PutInplace),
    "put_accumulate_": (lambda L, y, s: y.put_(_t(L, [5, 5, 0]), s, accumulate=True),
                        RNG.standard_normal(3), I.PutInplace),
    "index_put_accumulate_": (lambda L, y, s: y.index_put_((_t(L, [1, 1]), _t(L, [0, 2])), s,
                                                           accumulate=True),
                              RNG.standard_normal(2), I.IndexPutInplace),
    "setitem_": (lambda L, y, s: y.__setitem__((_t(L, [3, 0, 1]), _t(L, [1, 2, 2])), s) or y,
                 RNG.standard_normal(3), I.IndexPutInplace),
    "setitem_mask_": (lambda L, y, s: y.__setitem__(_t(L, [False, True, True, False]), 9.0)
                      or y, None, I.IndexPutInplace),
}

# a weight that makes every element's gradient different
W = RNG.standard_normal((4, 3))


def _program(L, name, leaf, src, view):
    """``y = leaf * 2`` (or a view of it), the in-place op on it, then a scalar that
    uses every element of the tensor written to (the base, for a view)."""
    op = OPS[name][0]
    y = leaf * 2
    if view:
        # the op writes into rows 1: of a larger intermediate, through a view
        base = L.cat([leaf[:1] * 5, y])
        target = base[1:]
        out = op(L, target, src)
        assert out is target
        return base, (base[1:] * L.tensor(W, dtype=L.float64)).sum() + base[0].sum()
    out = op(L, y, src)
    assert out is y
    return y, (y * L.tensor(W, dtype=L.float64)).sum()


def _leaves(L, name):
    src = OPS[name][1]
    leaf = L.tensor(X, dtype=L.float64, requires_grad=True)
    s = None if src is None else L.tensor(src, dtype=L.float64, requires_grad=True)
    return leaf, s


@pytest.mark.parametrize("view", [False, True], ids=["tensor", "view"])
@pytest.mark.parametrize("name", sorted(OPS))
def test_inplace_matches_torch(name, view):
    torch = _torch()
    results = []
    for L in (cygrad, torch):
        leaf, src = _leaves(L, name)
        written, loss = _program(L, name, leaf, src, view)
        loss.backward()
        results.append((written.detach().numpy().copy(), type(written.grad_fn).__name__,
                        leaf.grad.numpy().copy(), None if src is None else src.grad.numpy().copy()))
    (value, node, g_leaf, g_src), (t_value, t_node, t_leaf, t_src) = results
    np.testing.assert_allclose(value, t_value, rtol=1e-12, atol=1e-12)
    assert node == t_node
    np.testing.assert_allclose(g_leaf, t_leaf, rtol=1e-12, atol=1e-12)
    if g_src is not None:
        np.testing.assert_allclose(g_src, t_src, rtol=1e-12, atol=1e-12)


# writes whose finite differences see one value per place (no repeated plain writes)
GRADCHECKED = sorted(set(OPS) - {"scatter_reduce_amax_"})


@pytest.mark.parametrize("view", [False, True], ids=["tensor", "view"])
@pytest.mark.parametrize("name", GRADCHECKED)
def test_inplace_gradcheck(name, view):
    leaf, src = _leaves(cygrad, name)
    inputs = (leaf,) if src is None else (leaf, src)
    assert gradcheck(lambda *xs: _program(cygrad, name, xs[0], xs[1] if len(xs) > 1 else None,
                                          view)[1], inputs)


@pytest.mark.parametrize("name", sorted(OPS))
def test_inplace_node_is_the_function_marked_dirty(name):
    op, src_values, cls = OPS[name]
    leaf, src = _leaves(cygrad, name)
    y = leaf * 2
    version = y._version
    out = op(cygrad, y, src)
    assert out is y
    assert y._version == version + 1
    node = y.grad_fn
    assert type(node)._forward_cls is cls and cls.inplace
    # the in-place form is the op's own Function: same node name, backward and jvp
    parent = cls.__mro__[1]
    assert not parent.inplace and type(node).__name__ == parent._backward_cls.__name__
    assert cls.backward is parent.backward and cls.jvp is parent.jvp
    # the node continues y's history: its first edge is the multiplication
    assert type(node.next_functions[0][0]).__name__ == "MulBackward0"


@pytest.mark.parametrize("name", sorted(OPS))
def test_inplace_without_grad_mode_writes_a_leaf_and_records_nothing(name):
    op, _, _ = OPS[name]
    leaf, src = _leaves(cygrad, name)
    expected = _numpy_result(name)
    with cygrad.no_grad():
        version = leaf._version
        out = op(cygrad, leaf, src)
    assert out is leaf and leaf._version == version + 1
    assert leaf.grad_fn is None and leaf.requires_grad and leaf.is_leaf
    np.testing.assert_allclose(leaf.detach().numpy(), expected, rtol=1e-12)


def _numpy_result(name):
    """The op's result on ``X``, by NumPy (an independent reference)."""
    op, src, _ = OPS[name]
    x = X.copy()
    if name == "index_add_":
        np.add.at(x, [2, 0, 2], 1.5 * src)
    elif name == "index_copy_":
        x[[3, 1]] = src
    elif name == "index_fill_":
        x[:, [0, 2]] = 2.5
    elif name == "index_fill_tensor_":
        x[:, 2] = src
    elif name == "masked_fill_":
        x[:, [0, 2]] = -1.0
    elif name == "masked_fill_tensor_":
        x[[1, 2]] = src
    elif name == "scatter_":
        x[[3, 0, 1], [0, 1, 2]] = src[0]
    elif name == "scatter_value_":
        x[[0, 1, 2, 3], [2, 0, 1, 1]] = 4.0
    elif name == "scatter_add_":
        np.add.at(x, ([0, 0, 3, 1, 0, 3], [0, 1, 2, 0, 1, 2]), src.reshape(-1))
    elif name == "scatter_reduce_prod_":
        np.multiply.at(x, ([0, 0, 3, 1, 0, 3], [0, 1, 2, 0, 1, 2]), src.reshape(-1))
    elif name == "scatter_reduce_amax_":
        rows, cols = [0, 0, 1, 1, 2, 2, 3, 3], [0, 0, 2, 1, 1, 1, 0, 2]
        reached = np.full(x.shape, -np.inf)
        np.maximum.at(reached, (rows, cols), src.reshape(-1))
        x = np.where(np.isfinite(reached), reached, x)
    elif name == "put_":
        x.reshape(-1)[[0, 11, -2]] = src
    elif name == "put_accumulate_":
        np.add.at(x.reshape(-1), [5, 5, 0], src)
    elif name == "index_put_accumulate_":
        np.add.at(x, ([1, 1], [0, 2]), src)
    elif name == "setitem_":
        x[[3, 0, 1], [1, 2, 2]] = src
    elif name == "setitem_mask_":
        x[[1, 2]] = 9.0
    return x


@pytest.mark.parametrize("name", sorted(OPS))
def test_inplace_values_match_numpy(name):
    op, src, _ = OPS[name]
    y = cygrad.tensor(X, dtype=cygrad.float64)
    s = None if src is None else cygrad.tensor(src, dtype=cygrad.float64)
    op(cygrad, y, s)
    np.testing.assert_allclose(y.numpy(), _numpy_result(name), rtol=1e-12)


@pytest.mark.parametrize("name", sorted(OPS))
def test_inplace_on_a_leaf_that_requires_grad_is_refused_before_writing(name):
    op, _, _ = OPS[name]
    leaf, src = _leaves(cygrad, name)
    with pytest.raises(RuntimeError, match="a leaf Variable that requires grad is being used "
                                           "in an in-place operation"):
        op(cygrad, leaf, src)
    with pytest.raises(RuntimeError, match="a view of a leaf Variable that requires grad"):
        op(cygrad, leaf[:, :], src)
    assert leaf._version == 0
    np.testing.assert_array_equal(leaf.detach().numpy(), X)


def test_a_failed_inplace_op_writes_nothing_and_keeps_the_version():
    y = cygrad.tensor(X)
    for bad in (lambda: y.index_add_(0, cygrad.tensor([0, 4]), cygrad.ones(2, 3, dtype=y.dtype)),
                lambda: y.scatter_(0, cygrad.tensor([[5, 0, 0]]), 1.0),
                lambda: y.masked_fill_(cygrad.tensor([True, False]), 1.0),
                lambda: y.put_(cygrad.tensor([12]), cygrad.ones(1, dtype=y.dtype))):
        with pytest.raises((RuntimeError, IndexError)):
            bad()
    assert y._version == 0
    np.testing.assert_array_equal(y.numpy(), X)


@pytest.mark.parametrize("name", sorted(OPS))
def test_inplace_write_invalidates_the_saved_tensors_of_earlier_nodes(name):
    op, _, _ = OPS[name]
    leaf, src = _leaves(cygrad, name)
    y = leaf * 2
    product = y * leaf                      # saves y, whose version is then 1 ahead
    op(cygrad, y, src)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        product.backward(cygrad.ones_like(product))
    y.sum().backward()                      # the op's own node is intact
    assert leaf.grad is not None


@pytest.mark.parametrize("name", ["index_add_", "masked_fill_", "setitem_", "scatter_"])
def test_a_retained_gradient_follows_the_write_like_torch(name):
    torch = _torch()
    grads = []
    for L in (cygrad, torch):
        leaf, src = _leaves(L, name)
        y = leaf * 2
        y.retain_grad()
        OPS[name][0](L, y, src)
        (y * y).sum().backward()            # y's gradient is 2 * y: its value after the write
        grads.append(y.grad.numpy().copy())
        np.testing.assert_allclose(grads[-1], 2 * y.detach().numpy(), rtol=1e-12)
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


def test_view_of_an_untracked_base_becomes_tracked_like_torch():
    torch = _torch()
    grads = []
    for L in (cygrad, torch):
        src = L.tensor([[1.0, 2.0, 3.0]], dtype=L.float64, requires_grad=True)
        base = L.zeros(3, 3, dtype=L.float64)
        view = base[1:]
        view.index_add_(0, L.tensor([1]), src * 2)
        assert type(base.grad_fn).__name__ == "CopySlices" and view.requires_grad
        (base * L.tensor(W[:3], dtype=L.float64)).sum().backward()
        grads.append(src.grad.numpy().copy())
    np.testing.assert_allclose(grads[0], grads[1], rtol=1e-12)


@pytest.mark.parametrize("view", [False, True], ids=["tensor", "view"])
@pytest.mark.parametrize("name", ["index_add_", "masked_fill_tensor_", "scatter_reduce_prod_",
                                  "put_", "setitem_", "index_copy_"])
def test_inplace_forward_mode_matches_out_of_place(name, view):
    """The tangent an in-place op gives equals that of the same op on a copy."""
    op, src_values, _ = OPS[name]
    tx = RNG.standard_normal(X.shape)
    ts = None if src_values is None else RNG.standard_normal(np.shape(src_values))

    def tangent(in_place):
        with fwAD.dual_level():
            x = fwAD.make_dual(cygrad.tensor(X), cygrad.tensor(tx))
            s = None if ts is None else fwAD.make_dual(cygrad.tensor(src_values, dtype=x.dtype),
                                                       cygrad.tensor(ts))
            # the op's target: x's values in a tensor of their own, or as rows 1: of one
            y = cygrad.cat([x[:1] * 5, x]) if view else x * 1
            target = y[1:] if view else y
            if in_place:
                op(cygrad, target, s)
            else:
                # the reference: the op on a copy, put together again out of place
                part = target.clone()
                op(cygrad, part, s)
                y = cygrad.cat([y[:1], part]) if view else part
            return fwAD.unpack_dual(y).tangent.numpy()

    np.testing.assert_allclose(tangent(True), tangent(False), rtol=1e-12)


# ------------------------------------------------------ one forward per call, always

CALLS = [
    (I.IndexSelect, lambda x: x.index_select(0, cygrad.tensor([1, 0]))),
    (I.Gather, lambda x: x.gather(1, cygrad.tensor([[0], [2], [1], [1]]))),
    (I.Scatter, lambda x: x.scatter(0, cygrad.tensor([[1, 2, 0]]), x[:1])),
    (I.ScatterValue, lambda x: x.scatter(0, cygrad.tensor([[1, 2, 0]]), 2.0)),
    (I.ScatterWithReduce, lambda x: x.scatter(0, cygrad.tensor([[1, 2, 0]]), 2.0,
                                              reduce="add")),
    (I.ScatterAdd, lambda x: x.scatter_add(0, cygrad.tensor([[1, 2, 0]]), x[:1])),
    (I.ScatterReduce, lambda x: x.scatter_reduce(0, cygrad.tensor([[1, 2, 0]]), x[:1], "sum")),
    (I.Take, lambda x: x.take(cygrad.tensor([0, -1]))),
    (I.TakeAlongDim, lambda x: cygrad.take_along_dim(x, cygrad.tensor([[0], [2], [1], [1]]), 1)),
    (I.Put, lambda x: x.put(cygrad.tensor([0, 3]), x[0, :2])),
    (I.IndexFill, lambda x: x.index_fill(1, cygrad.tensor([0]), 1.0)),
    (I.IndexCopy, lambda x: x.index_copy(0, cygrad.tensor([1]), x[:1])),
    (I.IndexAdd, lambda x: x.index_add(0, cygrad.tensor([1]), x[:1])),
    (I.MaskedFill, lambda x: x.masked_fill(x > 0, 0.0)),
    (I.MaskedSelect, lambda x: x.masked_select(x > 0)),
    (I.Where, lambda x: cygrad.where(x > 0, x, 0.0)),
    (I.Index, lambda x: x[cygrad.tensor([0, 2])]),
    (I.Index, lambda x: x[x > 0]),
    (I.IndexAddInplace, lambda x: x.index_add_(0, cygrad.tensor([1]), x[:1].clone())),
    (I.IndexFillInplace, lambda x: x.index_fill_(0, cygrad.tensor([1]), 2.0)),
    (I.IndexCopyInplace, lambda x: x.index_copy_(0, cygrad.tensor([1]), x[:1].clone())),
    (I.MaskedFillInplace, lambda x: x.masked_fill_(x > 0, 0.0)),
    (I.ScatterInplace, lambda x: x.scatter_(0, cygrad.tensor([[1]]), x[:1, :1].clone())),
    (I.ScatterAddInplace, lambda x: x.scatter_add_(0, cygrad.tensor([[1]]), x[:1, :1].clone())),
    (I.ScatterReduceInplace, lambda x: x.scatter_reduce_(0, cygrad.tensor([[1]]),
                                                         x[:1, :1].clone(), "prod")),
    (I.PutInplace, lambda x: x.put_(cygrad.tensor([1]), x[0, :1].clone())),
    (I.IndexPutInplace, lambda x: x.__setitem__(cygrad.tensor([1]), 3.0)),
]


@pytest.mark.parametrize("grad", [False, True], ids=["no_grad", "grad"])
@pytest.mark.parametrize("case", range(len(CALLS)),
                         ids=[f"{cls.__name__}-{i}" for i, (cls, _) in enumerate(CALLS)])
def test_every_call_runs_its_functions_forward_once(case, grad, monkeypatch):
    cls, call = CALLS[case]
    calls = count_forward_calls(monkeypatch, cls)
    x = cygrad.tensor(X, requires_grad=grad)
    call(x * 1)
    assert len(calls) == 1


# ------------------------------------------------------------- the CPU kernels' paths

@pytest.mark.parametrize("layout", ["contiguous", "offset", "transposed"])
def test_take_and_put_on_any_layout_match_numpy(layout):
    """take/put read a contiguous tensor as its own flat view and any other through
    unravelled positions: both address the row-major order of the tensor's values."""
    base = RNG.standard_normal((5, 4))
    views = {"contiguous": lambda t: t[1:], "offset": lambda t: t[2:, :],
             "transposed": lambda t: t.T}
    index, src = [0, -1, 7, 7, 3], RNG.standard_normal(5)
    t = views[layout](cygrad.tensor(base))
    want = views[layout](base.copy())
    np.testing.assert_array_equal(t.take(cygrad.tensor(index)).numpy(),
                                  np.ascontiguousarray(want).reshape(-1)[index])
    t.put_(cygrad.tensor(index), cygrad.tensor(src), accumulate=True)
    flat = np.ascontiguousarray(want).reshape(-1)
    np.add.at(flat, index, src)
    np.testing.assert_allclose(t.numpy(), flat.reshape(want.shape), rtol=1e-12)
    t.put_(cygrad.tensor([1, -2]), cygrad.tensor([5.0, 6.0], dtype=cygrad.float64))
    flat[[1, -2]] = [5.0, 6.0]
    np.testing.assert_array_equal(t.numpy(), flat.reshape(want.shape))


@pytest.mark.parametrize("dtype", ["float32", "float16", "int32", "uint8", "bool"])
@pytest.mark.parametrize("mask_shape", [(3, 4), (4,), (3, 1)])
def test_small_masked_fill_and_where_match_numpy(dtype, mask_shape):
    x = (RNG.standard_normal((3, 4)) * 10).astype(dtype)
    mask = RNG.random(mask_shape) < 0.5
    value = True if dtype == "bool" else 3
    t = cygrad.from_numpy(x.copy())
    want = np.where(mask, np.asarray(value, dtype), x)
    np.testing.assert_array_equal(t.masked_fill(cygrad.from_numpy(mask), value).numpy(), want)
    t.masked_fill_(cygrad.from_numpy(mask), value)
    np.testing.assert_array_equal(t.numpy(), want)
    other = (RNG.standard_normal((3, 4)) * 10).astype(dtype)
    np.testing.assert_array_equal(
        cygrad.where(cygrad.from_numpy(mask), cygrad.from_numpy(x), cygrad.from_numpy(other))
        .numpy(), np.where(mask, x, other))


@pytest.mark.parametrize("n", [1, 5, 16, 17, 1000])
def test_index_bounds_are_checked_for_few_and_many_indices(n):
    """Up to a few indices the bounds are read from a list, beyond with reductions:
    both find the first index out of range, in C order."""
    x = cygrad.tensor(RNG.standard_normal(7))
    good = RNG.integers(0, 7, n)
    np.testing.assert_array_equal(x.index_select(0, cygrad.tensor(good)).numpy(),
                                  x.numpy()[good])
    for bad_value in (7, -1):
        bad = good.copy()
        bad[n // 2] = bad_value
        with pytest.raises(IndexError, match="index out of range in self"):
            x.index_select(0, cygrad.tensor(bad))
        with pytest.raises(IndexError, match=f"index {bad_value if bad_value > 0 else -8} is "
                                             "out of bounds for dimension 0 with size 7"):
            x[cygrad.tensor(np.where(np.arange(n) == n // 2, bad_value if bad_value > 0 else -8,
                                     good))]
        with pytest.raises(RuntimeError, match=f"index {bad_value} is out of bounds for "
                                               "dimension 0 with size 7"):
            x.gather(0, cygrad.tensor(bad))
