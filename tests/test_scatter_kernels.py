"""The C scatter loop (cygrad/_core/cpu/scatter.c via scatter_kernels.pyx) behind
index_add, scatter_add / scatter_reduce, index_put / put with accumulate, and the
backward passes of embedding, gather and advanced indexing.

NumPy's ``np.add.at`` (an independent implementation, unbuffered, in index order)
is the reference for sums; PyTorch for the other reductions, the embedding options
and the error types.
"""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad._core import scatter_kernels as sk
from cygrad.autograd import gradcheck

torch = pytest.importorskip("torch", reason="PyTorch is the reference for reductions and errors")

RNG = np.random.default_rng(1234)
FLOAT_AND_INT = [np.float32, np.float64, np.int32, np.int64, np.int16, np.int8, np.uint8]


def _values(shape, npdt):
    if np.dtype(npdt).kind == "f":
        return RNG.standard_normal(shape).astype(npdt)
    return RNG.integers(0, 50, shape).astype(npdt)


def _index_add_ref(target, dim, index, source):
    out = np.moveaxis(target.copy(), dim, 0)
    np.add.at(out, index, np.moveaxis(source, dim, 0))
    return np.moveaxis(out, 0, dim)


# ---------------------------------------------------------------- index_add

@pytest.mark.parametrize("npdt", FLOAT_AND_INT)
@pytest.mark.parametrize("dim", [0, 1, 2])
def test_index_add_matches_add_at(npdt, dim):
    shape = (5, 6, 7)
    x = _values(shape, npdt)
    index = RNG.integers(0, shape[dim], 9)         # 9 values out of <= 7: repeats
    sshape = list(shape)
    sshape[dim] = 9
    src = _values(tuple(sshape), npdt)
    got = cygrad.from_numpy(x.copy()).index_add_(dim, cygrad.from_numpy(index),
                                                 cygrad.from_numpy(src))
    np.testing.assert_array_equal(got.numpy(), _index_add_ref(x, dim, index, src))


def test_index_add_noncontiguous_target_source_int32_index_alpha():
    base = RNG.standard_normal((8, 10))
    x = cygrad.from_numpy(base.copy())
    target = x.t()[::2]                             # (5, 8), strides (2, 10)
    src_full = RNG.standard_normal((4, 15))
    src = cygrad.from_numpy(src_full)[:, ::3]      # (4, 5): strided
    index = np.array([7, 0, 7, 3], dtype=np.int32)
    target.index_add_(1, cygrad.from_numpy(index), src.t(), alpha=2.0)
    expected = base.T[::2].copy()
    np.add.at(expected.T, index, 2.0 * src_full[:, ::3])
    np.testing.assert_allclose(target.numpy(), expected, rtol=0, atol=1e-12)
    ref = base.copy()
    ref.T[::2] = expected
    np.testing.assert_allclose(x.numpy(), ref, rtol=0, atol=1e-12)


def test_index_add_empty_index_and_empty_target():
    x = cygrad.ones(3, 4)
    x.index_add_(0, cygrad.tensor([], dtype=cygrad.int64), cygrad.ones(0, 4))
    assert x.tolist() == [[1.0] * 4] * 3
    y = cygrad.ones(0, 4)
    y.index_add_(1, cygrad.tensor([1, 1]), cygrad.ones(0, 2))
    assert tuple(y.shape) == (0, 4)


def test_index_add_realistic_embedding_gradient_is_exact():
    """vocab 5000, dim 256, 4,096 indices: the same float32 sums as np.add.at, bit for
    bit (both add in index order)."""
    vocab, dim, n = 5000, 256, 4096
    index = RNG.integers(0, vocab, n)
    grad = RNG.standard_normal((n, dim)).astype(np.float32)
    w = cygrad.zeros(vocab, dim, requires_grad=True)
    F.embedding(cygrad.from_numpy(index), w).backward(cygrad.from_numpy(grad))
    expected = np.zeros((vocab, dim), np.float32)
    np.add.at(expected, index, grad)
    np.testing.assert_array_equal(w.grad.numpy(), expected)


# ---------------------------------------------------------------- scatter / scatter_reduce

@pytest.mark.parametrize("npdt", FLOAT_AND_INT)
@pytest.mark.parametrize("dim", [0, 1])
def test_scatter_add_matches_add_at(npdt, dim):
    x = _values((6, 5), npdt)
    index = RNG.integers(0, x.shape[dim], (4, 3))  # smaller than x off dim too
    src = _values((5, 4), npdt)
    got = cygrad.from_numpy(x.copy()).scatter_add_(dim, cygrad.from_numpy(index),
                                                   cygrad.from_numpy(src))
    pos = list(np.indices(index.shape, sparse=True))
    pos[dim] = index
    expected = x.copy()
    np.add.at(expected, tuple(pos), src[:4, :3])
    np.testing.assert_array_equal(got.numpy(), expected)


def test_scatter_add_noncontiguous_operands():
    x = cygrad.zeros(7, 6, dtype=cygrad.float64).t()    # (6, 7), transposed
    index = cygrad.from_numpy(RNG.integers(0, 7, (6, 10)))[:, ::2]
    src = cygrad.from_numpy(RNG.standard_normal((10, 6))).t()[:, :5]
    x.scatter_add_(1, index, src)
    expected = np.zeros((6, 7))
    pos = list(np.indices((6, 5), sparse=True))
    pos[1] = index.numpy()
    np.add.at(expected, tuple(pos), src.numpy())
    np.testing.assert_allclose(x.numpy(), expected, rtol=0, atol=1e-12)


@pytest.mark.parametrize("reduce", ["sum", "prod", "mean", "amax", "amin"])
@pytest.mark.parametrize("include_self", [True, False])
@pytest.mark.parametrize("npdt", [np.float32, np.float64, np.int32, np.int64])
def test_scatter_reduce_matches_torch(reduce, include_self, npdt):
    x = _values((4, 6), npdt)
    index = RNG.integers(0, 6, (4, 9))
    src = _values((4, 9), npdt)
    if reduce == "prod" and np.dtype(npdt).kind == "f":
        src = src * 0.5 + 1.0
    if reduce in ("amax", "amin") and np.dtype(npdt).kind == "f":
        src[1, 2] = np.nan                          # NaN wins, as in PyTorch
    got = cygrad.from_numpy(x.copy()).scatter_reduce_(
        1, cygrad.from_numpy(index), cygrad.from_numpy(src), reduce, include_self=include_self)
    expected = torch.from_numpy(x.copy()).scatter_reduce_(
        1, torch.from_numpy(index), torch.from_numpy(src), reduce, include_self=include_self)
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=1e-6, equal_nan=True)


def test_scatter_reduce_half_and_bool_stay_correct_on_numpy():
    """float16 (no C loop: NumPy's ufunc.at) gives PyTorch's answer too."""
    x = RNG.standard_normal((3, 5)).astype(np.float16)
    index = RNG.integers(0, 5, (3, 7))
    src = RNG.standard_normal((3, 7)).astype(np.float16)
    assert not sk.supports("add", np.dtype(np.float16))
    got = cygrad.from_numpy(x.copy()).scatter_add_(1, cygrad.from_numpy(index),
                                                   cygrad.from_numpy(src))
    expected = torch.from_numpy(x.copy()).scatter_add_(1, torch.from_numpy(index),
                                                       torch.from_numpy(src))
    np.testing.assert_allclose(got.numpy(), expected.numpy(), rtol=2e-3, atol=2e-3)


# ---------------------------------------------------------------- index_put / put

@pytest.mark.parametrize("flip", [False, True])
def test_index_put_accumulate_two_arrays_negative_indices(flip):
    """Two index arrays become element offsets; a view with negative strides (from
    NumPy) makes them negative."""
    base = RNG.standard_normal((5, 4))
    arr = base[::-1, ::-1] if flip else base
    before = arr.copy()
    x = cygrad.from_numpy(arr)
    rows = np.array([0, -1, 0, 2])
    cols = np.array([3, 3, 3, -4])
    vals = RNG.standard_normal(4)
    x.index_put_((cygrad.from_numpy(rows), cygrad.from_numpy(cols)),
                 cygrad.from_numpy(vals), accumulate=True)
    np.add.at(before, (rows, cols), vals)
    np.testing.assert_allclose(x.numpy(), before, rtol=0, atol=1e-12)


def test_put_accumulate_noncontiguous_target():
    base = RNG.standard_normal((4, 6))
    x = cygrad.from_numpy(base.copy())
    target = x.t()                                  # (6, 4): flat order differs from memory
    index = np.array([0, 5, 5, -1, 23, 5])
    vals = RNG.standard_normal(6)
    target.put_(cygrad.from_numpy(index), cygrad.from_numpy(vals), accumulate=True)
    expected = base.T.copy()
    np.add.at(expected.reshape(-1), index, vals)
    np.testing.assert_allclose(target.numpy(), expected, rtol=0, atol=1e-12)


# ---------------------------------------------------------------- backward passes

def test_embedding_backward_padding_and_frequency_match_torch():
    index = np.array([[1, 4, 4], [0, 4, 1]])
    w0 = RNG.standard_normal((6, 3))
    g = RNG.standard_normal((2, 3, 3))
    for kwargs in ({}, {"padding_idx": 4}, {"padding_idx": -2}, {"scale_grad_by_freq": True},
                   {"padding_idx": 1, "scale_grad_by_freq": True}):
        w = cygrad.from_numpy(w0.copy()).requires_grad_()
        F.embedding(cygrad.from_numpy(index), w, **kwargs).backward(cygrad.from_numpy(g))
        wt = torch.from_numpy(w0.copy()).requires_grad_()
        torch.nn.functional.embedding(torch.from_numpy(index), wt, **kwargs).backward(
            torch.from_numpy(g))
        np.testing.assert_allclose(w.grad.numpy(), wt.grad.numpy(), rtol=1e-12, atol=1e-12,
                                   err_msg=str(kwargs))


def test_embedding_module_backward_matches_add_at():
    emb = cygrad.nn.Embedding(10, 4)
    index = RNG.integers(0, 10, (8, 3))
    g = RNG.standard_normal((8, 3, 4)).astype(np.float32)
    emb(cygrad.from_numpy(index)).backward(cygrad.from_numpy(g))
    expected = np.zeros((10, 4), np.float32)
    np.add.at(expected, index.reshape(-1), g.reshape(-1, 4))
    np.testing.assert_array_equal(emb.weight.grad.numpy(), expected)


def test_gather_and_getitem_backward_match_add_at():
    x = cygrad.zeros(5, 4, requires_grad=True)
    index = RNG.integers(0, 5, (7, 4))
    g = RNG.standard_normal((7, 4)).astype(np.float32)
    cygrad.gather(x, 0, cygrad.from_numpy(index)).backward(cygrad.from_numpy(g))
    expected = np.zeros((5, 4), np.float32)
    np.add.at(expected, (index, np.arange(4)), g)
    np.testing.assert_array_equal(x.grad.numpy(), expected)

    y = cygrad.zeros(5, 4, requires_grad=True)
    rows = np.array([4, -1, 0, 4, 2])
    y[cygrad.from_numpy(rows)].backward(cygrad.from_numpy(g[:5]))
    expected = np.zeros((5, 4), np.float32)
    np.add.at(expected, rows, g[:5])
    np.testing.assert_array_equal(y.grad.numpy(), expected)


def test_overlapping_view_backward_matches_add_at():
    """unfold with step < size: elements shared by windows get every window's gradient."""
    x = cygrad.zeros(7, dtype=cygrad.float64, requires_grad=True)
    windows = x.unfold(0, 3, 2)                     # (3, 3), overlapping
    g = RNG.standard_normal((3, 3))
    windows.backward(cygrad.from_numpy(g))
    expected = np.zeros(7)
    np.add.at(expected, (np.arange(3)[:, None] * 2 + np.arange(3)).reshape(-1), g.reshape(-1))
    np.testing.assert_allclose(x.grad.numpy(), expected, rtol=0, atol=1e-12)


def test_gradcheck_through_the_scatter_paths():
    w = cygrad.from_numpy(RNG.standard_normal((5, 3))).requires_grad_()
    index = cygrad.tensor([[0, 4, 4], [1, 0, 4]])
    assert gradcheck(lambda w: F.embedding(index, w), (w,))
    x = cygrad.from_numpy(RNG.standard_normal((4, 3))).requires_grad_()
    s = cygrad.from_numpy(RNG.standard_normal((5, 3))).requires_grad_()
    rows = cygrad.tensor([3, 0, 3, 3, 1])
    assert gradcheck(lambda x, s: cygrad.index_add(x, 0, rows, s, alpha=1.5), (x, s))
    cols = cygrad.tensor([[2, 2, 0], [1, 2, 2], [0, 0, 0], [1, 1, 1]])
    s2 = cygrad.from_numpy(RNG.standard_normal((4, 3))).requires_grad_()
    assert gradcheck(lambda x, s: cygrad.scatter_add(x, 1, cols, s), (x, s2))


# ---------------------------------------------------------------- determinism

def test_same_bits_for_any_thread_count():
    """Every element gets its updates in index order on one thread: float32 sums with
    many repeats come out bit-identical with 1 and 2 threads."""
    old_threads, old_min = cygrad.get_num_threads(), sk._get_parallel_min()
    index = RNG.integers(0, 50, 3000)
    src = RNG.standard_normal((3000, 64)).astype(np.float32)
    sidx = RNG.integers(0, 40, (300, 64))
    results = []
    try:
        sk._set_parallel_min(1)                     # use the pool even for small work
        for n in (1, 2):
            cygrad.set_num_threads(n)
            a = cygrad.zeros(50, 64).index_add_(0, cygrad.from_numpy(index),
                                                cygrad.from_numpy(src))
            b = cygrad.zeros(40, 64).scatter_add_(0, cygrad.from_numpy(sidx),
                                                  cygrad.from_numpy(src[:300]))
            results.append((a.numpy().copy(), b.numpy().copy()))
    finally:
        sk._set_parallel_min(old_min)
        cygrad.set_num_threads(old_threads)
    for one, two in zip(*results):
        np.testing.assert_array_equal(one, two)
    expected = np.zeros((50, 64), np.float32)
    np.add.at(expected, index, src)
    np.testing.assert_array_equal(results[0][0], expected)


# ---------------------------------------------------------------- errors

def _both(fn):
    """The exception types cygrad and torch raise for fn(lib) (None: no error)."""
    types = []
    for lib in (cygrad, torch):
        try:
            fn(lib)
            types.append(None)
        except Exception as e:      # noqa: BLE001  (the type is what is compared)
            types.append(type(e))
    return types


@pytest.mark.parametrize("case", [
    lambda L: L.zeros(3, 4).index_add_(0, L.tensor([0, 3]), L.ones(2, 4)),
    lambda L: L.zeros(3, 4).index_add_(1, L.tensor([0, 9], dtype=L.int32), L.ones(3, 2)),
    lambda L: L.zeros(3, 4).index_add_(0, L.tensor([0.0, 1.0]), L.ones(2, 4)),
    lambda L: L.zeros(3, 4).index_add_(0, L.tensor([0, 1]), L.ones(2, 5)),
    lambda L: L.zeros(3, 4).scatter_add_(0, L.tensor([[0, 3]]), L.ones(1, 2)),
    lambda L: L.zeros(3, 4).scatter_add_(0, L.tensor([[0.0, 1.0]]), L.ones(1, 2)),
    lambda L: L.zeros(3, 4).scatter_add_(0, L.tensor([[0, 1]]), L.ones(2)),
    lambda L: L.zeros(3, 4).scatter_reduce_(1, L.tensor([[0, 4]]), L.ones(1, 2), "amax"),
    lambda L: L.zeros(3, 4).index_put_((L.tensor([0, 3]),), L.ones(2, 4), accumulate=True),
    lambda L: L.zeros(3, 4).index_put_((L.tensor([0, 1]),), L.ones(3, 4), accumulate=True),
    lambda L: L.zeros(5).put_(L.tensor([5]), L.ones(1), accumulate=True),
    lambda L: L.nn.functional.embedding(L.tensor([0, 7]), L.ones(7, 2)),
], ids=["index_add_range", "index_add_range_int32", "index_add_float_index",
        "index_add_shape", "scatter_add_range", "scatter_add_float_index", "scatter_add_ndim",
        "scatter_reduce_range", "index_put_range", "index_put_shape", "put_range",
        "embedding_range"])
def test_errors_have_torch_types(case):
    got, expected = _both(case)
    assert expected is not None and got is expected


def test_kernel_checks_its_own_arguments():
    """The wrapper checks before releasing the GIL, whatever the caller checked."""
    t = np.zeros((3, 4), np.float32)
    with pytest.raises(IndexError, match="index 3 is out of bounds for dimension 0 with size 3"):
        sk.scatter_("add", t, 0, np.array([[0], [3]]), np.ones((2, 4), np.float32),
                    opname="index_add_")
    with pytest.raises(IndexError, match="index -4"):
        sk.scatter_("add", t, 0, np.array([[-4]]), np.ones((1, 4), np.float32), wrap=True)
    with pytest.raises(TypeError, match="int32 or int64"):
        sk.scatter_("add", t, 0, np.array([[0.0]]), np.ones((1, 4), np.float32))
    with pytest.raises(TypeError, match="dtype"):
        sk.scatter_("add", t, 0, np.array([[0]]), np.ones((1, 4), np.float64))
    with pytest.raises(ValueError, match="do not fit"):
        sk.scatter_("add", t, 0, np.array([[0]]), np.ones((1, 5), np.float32))
    with pytest.raises(ValueError, match="read-only"):
        ro = np.zeros((3, 4), np.float32)
        ro.flags.writeable = False
        sk.scatter_("add", ro, 0, np.array([[0]]), np.ones((1, 4), np.float32))
    assert not t.any()                              # nothing written by a refused call


def test_index_sharing_memory_with_the_target_is_read_before_the_writes():
    """An int64 tensor used as its own index: the index is read as it was, never as
    the loop's writes change it (which could point outside the target). (PyTorch
    refuses this call with "unsupported operation"; cygrad does not check that yet.)"""
    values = np.array([1, 0, 2, 1])
    x = cygrad.from_numpy(values.copy())
    x.index_add_(0, x, cygrad.tensor([100, 200, 300, 400]))
    expected = values.copy()
    np.add.at(expected, values, [100, 200, 300, 400])
    assert x.tolist() == expected.tolist()
    t = np.array([[1, 0, 2]])
    sk.scatter_("add", t, 1, t, np.full((1, 3), 50))      # the kernel itself copies
    assert t.tolist() == [[51, 50, 52]]


def test_index_add_complex_alpha_gradient_is_conjugate():
    # source's gradient is conj(alpha) * grad (PyTorch 2.13 uses alpha and fails this)
    from cygrad.autograd import gradcheck, gradgradcheck
    rng = np.random.default_rng(3)
    idx = cygrad.tensor([2, 0, 2])

    def cplx(*shape):
        return cygrad.tensor(rng.standard_normal(shape) + 1j * rng.standard_normal(shape),
                             requires_grad=True)
    x, s = cplx(4, 3), cplx(3, 3)
    f = lambda x, s: cygrad.index_add(x, 0, idx, s, alpha=1.5 + 2j)
    assert gradcheck(f, (x, s), eps=1e-6, atol=1e-8)
    assert gradgradcheck(f, (x, s), eps=1e-6, atol=1e-8)
