"""PyTorch's argument errors for the Tensor view methods the Cython core implements
(arguments read before any semantic check, int-list rules for shapes), the stride
overflow of new tensors and advanced-indexing errors on empty dims.

Each case builds its inputs with ``L`` (cygrad or torch) so the same call is checked
against PyTorch's exception type where torch is installed; successful calls are
checked against NumPy.
"""
import numpy as np
import pytest

import cygrad

I64 = 2 ** 63


def _x(L, shape=(2, 3), dtype=None):
    return L.zeros(shape, dtype=dtype or L.float32)


CASES = {
    # arguments are read (TypeError / ValueError) before any semantic check
    "chunk_bool_dim": (TypeError, lambda L: _x(L, (0, 3)).chunk(-1, False)),
    "chunk_dim_overflow": (ValueError, lambda L: _x(L, (4, 1, 2)).chunk(0, I64)),
    "chunk_0d": (RuntimeError, lambda L: L.tensor(3).chunk(1, 2 ** 32)),
    "chunk_huge_chunks": (RuntimeError, lambda L: _x(L, (6, 2)).chunk(I64 - 1)),
    "chunk_wraps_to_minus_one": (RuntimeError, lambda L: _x(L, (2, 3)).chunk(I64 - 1)),
    "diagonal_overflow_last": (ValueError, lambda L: _x(L, (2,)).diagonal(-100, 1, I64)),
    "narrow_float_dim": (TypeError, lambda L: _x(L, (5, 2)).narrow(float("inf"), 2 ** 62, -1)),
    "transpose_none": (TypeError, lambda L: _x(L, (5, 4, 5)).transpose(3, None)),
    "transpose_str": (TypeError, lambda L: _x(L).transpose("a", "b")),
    "flatten_str_end": (TypeError, lambda L: _x(L, (5, 5)).flatten(-4, "x")),
    "flatten_0d_wraps": (IndexError, lambda L: L.flatten(L.tensor(3), 1)),
    "movedim_int_bool": (TypeError, lambda L: _x(L, (2,)).movedim(2, False)),
    "movedim_bool_list": (TypeError, lambda L: L.tensor(1.0).movedim(True, [])),
    "movedim_overflow": (ValueError, lambda L: _x(L, (1, 1, 1)).movedim(2 ** 31, I64)),
    "movedim_repeated_dst": (RuntimeError, lambda L: L.movedim(_x(L, (3, 2, 4)), (0, 1), (0, 0))),
    "movedim_repeated_src": (RuntimeError, lambda L: _x(L).movedim((0, -2), (0, 1))),
    "select_bool_index": (TypeError, lambda L: _x(L).select(0, True)),
    # shapes: PyTorch's int-list rules
    "reshape_bool": (TypeError, lambda L: L.tensor(3).reshape(True)),
    "reshape_float": (TypeError, lambda L: _x(L).reshape(6.0)),
    "view_bool_first": (TypeError, lambda L: _x(L).view(True, 2)),
    "view_float_in_tuple": (TypeError, lambda L: _x(L).view((2, 3.5))),
    "view_below_symint": (RuntimeError, lambda L: _x(L).view(-2 ** 63)),
    "expand_bool": (TypeError, lambda L: L.tensor(3).expand(True)),
    "expand_float": (TypeError, lambda L: _x(L, (3, 5, 3)).expand((2.5,))),
    "broadcast_to_bool": (TypeError, lambda L: _x(L, (1,)).broadcast_to(True)),
    # missing or misordered semantic checks
    "split_negative_before_dim": (RuntimeError, lambda L: _x(L, (1,))[1:].split(-1, -2)),
    "split_0d": (RuntimeError, lambda L: L.tensor(1.0).split(1)),
    "split_bool_size": (TypeError, lambda L: _x(L).split(True)),
    "split_sizes_float": (TypeError, lambda L: _x(L).split((1, 1.0))),
    "split_sizes_negative": (RuntimeError, lambda L: _x(L).split([3, -1])),
    "squeeze_repeated": (RuntimeError, lambda L: _x(L, (1,)).squeeze((0, 0))),
    "squeeze_repeated_wrapped": (RuntimeError, lambda L: _x(L).squeeze((0, -2))),
    "squeeze_none": (TypeError, lambda L: _x(L).squeeze(None)),
    "squeeze_bool": (TypeError, lambda L: _x(L).squeeze(True)),
    "as_strided_function_negative_stride": (
        RuntimeError, lambda L: L.as_strided(_x(L, (1, 1, 1)), (0,), (-1,), 1)),
    # stride overflow of a new (empty) tensor
    "empty_stride_overflow": (RuntimeError, lambda L: L.empty((2, 0, 2 ** 62, 2))),
    # advanced indexing: an indexed dim of size 0 with a non-empty index
    "getitem_list_on_empty": (IndexError, lambda L: _x(L, (0, 0))[[0, 0]]),
    "getitem_slice_step_zero_first": (
        ValueError, lambda L: _x(L, (4, 4, 5))[L.tensor([5.0, -2.0]), 1:0:1, 0:100:0]),
}


def _setitem_empty_dim(L):
    x = L.zeros((2, 0, 2), dtype=L.bool)
    x[-1:-1, [0, 0], -1] = 300


def _setitem_index_before_dtype(L):
    x = L.zeros((0, 1)).expand((0, 0))
    x[[0], True] = L.tensor([1], dtype=L.int8)


CASES["setitem_empty_dim"] = (IndexError, _setitem_empty_dim)
CASES["setitem_index_before_dtype"] = (IndexError, _setitem_index_before_dtype)


@pytest.mark.parametrize("name", sorted(CASES))
def test_raises(name):
    exc, fn = CASES[name]
    with pytest.raises(exc):
        fn(cygrad)


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_raises_the_same(name):
    torch = pytest.importorskip("torch")
    exc, fn = CASES[name]
    with pytest.raises(exc):
        fn(torch)


# ---- calls that succeed: values against NumPy

def test_int_list_later_bool_reads_as_int():
    a = np.arange(6.0)
    with pytest.raises(RuntimeError):           # [2, 1] does not hold 6 elements
        cygrad.tensor(a).view(2, True)
    np.testing.assert_array_equal(cygrad.tensor(a).reshape(6, True).numpy(), a.reshape(6, 1))
    np.testing.assert_array_equal(cygrad.tensor(a).expand(2, 6).numpy(),
                                  np.broadcast_to(a, (2, 6)))


def test_view_shape_numpy_and_tensor_ints():
    a = np.arange(6.0)
    x = cygrad.tensor(a)
    np.testing.assert_array_equal(x.view(np.int64(2), 3).numpy(), a.reshape(2, 3))
    np.testing.assert_array_equal(x.reshape(cygrad.tensor(6)).numpy(), a)
    np.testing.assert_array_equal(x.reshape([3, -1]).numpy(), a.reshape(3, 2))


def test_movedim_lists_and_numpy_ints():
    a = np.arange(24).reshape(2, 3, 4)
    x = cygrad.tensor(a)
    np.testing.assert_array_equal(x.movedim((0, 1), (2, 0)).numpy(),
                                  np.moveaxis(a, (0, 1), (2, 0)))
    np.testing.assert_array_equal(x.movedim(np.int64(0), -1).numpy(), np.moveaxis(a, 0, -1))
    np.testing.assert_array_equal(x.movedim([2], [0]).numpy(), np.moveaxis(a, 2, 0))


def test_chunk_and_split_values():
    a = np.arange(12).reshape(6, 2)
    x = cygrad.tensor(a)
    parts = x.chunk(4)
    want = np.array_split(a, range(2, 6, 2))
    assert len(parts) == len(want)
    for p, w in zip(parts, want):
        np.testing.assert_array_equal(p.numpy(), w)
    # one chunk when chunks is huge but the size is 1
    (only,) = cygrad.tensor(a[:1]).chunk(I64 - 1)
    np.testing.assert_array_equal(only.numpy(), a[:1])
    # empty dim: `chunks` empty pieces
    assert [tuple(p.shape) for p in cygrad.zeros(0, 2).chunk(3)] == [(0, 2)] * 3
    got = x.split(np.int64(4))
    for p, w in zip(got, np.split(a, [4])):
        np.testing.assert_array_equal(p.numpy(), w)
    got = x.split([1, True, 4], dim=0)       # a later bool reads as an int
    for p, w in zip(got, np.split(a, [1, 2])):
        np.testing.assert_array_equal(p.numpy(), w)


def test_squeeze_list_and_default():
    a = np.zeros((1, 2, 1))
    x = cygrad.tensor(a)
    assert tuple(x.squeeze().shape) == np.squeeze(a).shape
    assert tuple(x.squeeze((0, -1)).shape) == np.squeeze(a, (0, 2)).shape
    assert tuple(x.squeeze([0, True]).shape) == (2, 1)      # [0, 1]: dim 1 is not 1


def test_narrow_select_diagonal_accept_index_likes():
    a = np.arange(12).reshape(3, 4)
    x = cygrad.tensor(a)
    np.testing.assert_array_equal(x.narrow(0, cygrad.tensor(1), 2).numpy(), a[1:3])
    np.testing.assert_array_equal(x.select(np.int32(1), -1).numpy(), a[:, -1])
    np.testing.assert_array_equal(x.diagonal(np.int64(1)).numpy(), np.diagonal(a, 1))


def test_empty_strides_near_the_limit():
    shape = (2, 0, 2 ** 61, 2)
    t = cygrad.empty(shape)
    # contiguous strides: the product of the later sizes, a size 0 counting as 1
    want = tuple(int(np.prod([max(s, 1) for s in shape[i + 1:]], dtype=object))
                 for i in range(len(shape)))
    assert t.stride() == want
    assert t.numel() == 0


def test_setitem_lone_bool():
    a = np.zeros((2, 3))
    x = cygrad.tensor(a)
    x[True] = cygrad.tensor([1, 2, 3])          # int64 into float64: cast, as x[...] = v
    a[...] = [1, 2, 3]
    np.testing.assert_array_equal(x.numpy(), a)
    x[False] = cygrad.tensor([[7.0, 7.0]])       # writes nothing, checks nothing
    np.testing.assert_array_equal(x.numpy(), a)
    e = cygrad.zeros((1, 0, 1), dtype=cygrad.float64)
    e[True] = cygrad.tensor([5])
    assert tuple(e.shape) == (1, 0, 1)


def test_getitem_empty_index_on_empty_dim_is_fine():
    # the index itself is empty: nothing is out of bounds
    x = cygrad.zeros((0, 3))
    got = x[cygrad.tensor([], dtype=cygrad.int64)]
    assert tuple(got.shape) == np.zeros((0, 3))[np.array([], dtype=np.int64)].shape


def test_internal_overlap_check_is_the_cores():
    from cygrad.ops.indexing import _common
    from cygrad._core import tensor as _C
    assert _common._check_no_internal_overlap is _C._check_no_internal_overlap_py
    with pytest.raises(RuntimeError, match="single memory location"):
        cygrad.zeros(1).expand(3).index_copy_(0, cygrad.tensor([0]), cygrad.ones(1))
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError, match="single memory location"):
        torch.zeros(1).expand(3).index_copy_(0, torch.tensor([0]), torch.ones(1))


def test_setitem_number_into_expanded_tensor_is_refused():
    def call(T):
        x = T.zeros(4, 3, 1, 2).expand(4, 3, 2, 2)
        x[:, 1:2, ...] = 0
    with pytest.raises(RuntimeError):
        call(cygrad)
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError):
        call(torch)


def test_setitem_value_with_leading_ones_is_squeezed():
    x = cygrad.zeros(2, 3)
    x[0] = cygrad.ones(1, 3) * 5
    np.testing.assert_array_equal(x.numpy(), [[5, 5, 5], [0, 0, 0]])
    y = cygrad.zeros(1, 1)
    y[-1, 0:-100:2] = cygrad.ones(1, 1)      # an empty target: nothing written
    np.testing.assert_array_equal(y.numpy(), [[0.0]])


def test_full_parses_size_before_value_and_permute_dims_overflow():
    with pytest.raises(TypeError):
        cygrad.full((2, None), 1e300)
    with pytest.raises(OverflowError):
        cygrad.full((2,), 2 ** 64)
    with pytest.raises(TypeError):
        cygrad.ones(2, 3).permute((0, 2 ** 63))


def test_as_strided_method_refuses_negative_strides_but_reversed_views_keep_their_gradients():
    with pytest.raises(RuntimeError, match="Negative strides"):
        cygrad.arange(4.0).as_strided((2,), (-1,), 3)
    x = cygrad.arange(6.0, requires_grad=True)
    y = x[::-1][1:4] * cygrad.tensor([1.0, 2.0, 3.0])      # a negative-stride view in the graph
    y.sum().backward()
    np.testing.assert_array_equal(x.grad.numpy(), [0, 0, 3, 2, 1, 0])   # x[4], x[3], x[2]


@pytest.mark.parametrize("call,exc", [
    (lambda T: T.tensor(3).unbind(True), TypeError),              # dim read before the 0-d check
    (lambda T: T.ones(1).broadcast_to(2 ** 63), TypeError),
    (lambda T: T.ones(1).expand(2 ** 63), TypeError),
])
def test_core_reads_arguments_first(call, exc):
    with pytest.raises(exc):
        call(cygrad)
    torch = pytest.importorskip("torch")
    with pytest.raises(exc):
        call(torch)


def test_empty_factory_with_a_huge_dim():
    t = cygrad.ones(0, 2 ** 62, dtype=cygrad.int16)
    assert tuple(t.shape) == (0, 2 ** 62) and t.numel() == 0


@pytest.mark.parametrize("index", [(Ellipsis, Ellipsis, None), (Ellipsis, 0, Ellipsis),
                                   (0, Ellipsis, Ellipsis, 1)])
def test_several_ellipses_follow_pytorch(index):
    torch = pytest.importorskip("torch")
    a = np.arange(24.0).reshape(2, 3, 4)
    try:
        want = torch.from_numpy(a.copy())[index].numpy()
    except IndexError:
        with pytest.raises(IndexError):
            cygrad.from_numpy(a.copy())[index]
        return
    np.testing.assert_array_equal(cygrad.from_numpy(a.copy())[index].numpy(), want)
