"""Argument errors of the indexing ops (gather/scatter family, index_*, masks, where,
take, put, nonzero): each case must raise PyTorch's exception type.

Regression tests for the fuzz failure classes of ``cygrad/ops/indexing`` (issue 6).
Every case is written once against a library ``L`` and run on cygrad; where PyTorch
is installed the same call must raise the same type there.
"""
import warnings

import numpy as np
import pytest

import cygrad


def _expanded(L):
    """A (5, 3) view whose rows all share one memory row."""
    return L.zeros(1, 3).expand(5, 3)


def _long(L, values):
    return L.tensor(values, dtype=L.int64)


def _fill_through_uint8_mask(L):
    """``x[:, uint8 mask] = number``: PyTorch's masked_fill_ path, which wants a bool mask."""
    x = L.zeros(2, 3)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", UserWarning)      # the deprecated uint8 index
        x[:, L.tensor([1, 0, 1], dtype=L.uint8)] = 5.0
    return x


def _put_one_uint8_through_mask(L):
    """``x[bool mask] = one-element value of another dtype``: written as a number."""
    x = L.zeros(2, 3, dtype=L.float64)
    x[L.tensor([True, False])] = L.full((1,), 7, dtype=L.uint8)
    return x


CASES = {
    # a non-tensor input
    "gather_input": (TypeError, lambda L: L.gather(1e300, 1, _long(L, [[0]]))),
    "index_select_input": (TypeError, lambda L: L.index_select(-9, 0, _long(L, [0]))),
    "index_add_input": (TypeError, lambda L: L.index_add(255, 0, _long(L, [0]), L.ones(1))),
    "index_fill_input": (TypeError, lambda L: L.index_fill(300, 0, _long(L, [0]), 2.5)),
    "masked_select_input": (TypeError, lambda L: L.masked_select(0, L.tensor([True]))),
    "put_input": (TypeError, lambda L: L.put(0, _long(L, [0]), L.ones(1))),
    "scatter_input": (TypeError, lambda L: L.scatter(1, 0, _long(L, [0]), L.ones(1))),
    "scatter_add_input": (TypeError, lambda L: L.scatter_add(1, 0, _long(L, [0]), L.ones(1))),
    "scatter_reduce_input": (TypeError, lambda L: L.scatter_reduce(2.0, 0, _long(L, [0]),
                                                                   L.ones(1), "sum")),
    "take_along_dim_input": (TypeError, lambda L: L.take_along_dim(255, _long(L, [0]), dim=0)),
    "take_input": (TypeError, lambda L: L.take(1, _long(L, [0]))),
    "index_put_input": (TypeError, lambda L: L.index_put(1, (_long(L, [0]),), L.ones(1))),
    # a bool or float where an int dim belongs
    "gather_bool_dim": (TypeError, lambda L: L.gather(L.zeros(3), False, _long(L, [0]))),
    "index_select_bool_dim": (TypeError, lambda L: L.index_select(L.zeros(2, 3), True,
                                                                  _long(L, [0]))),
    "scatter_add_bool_dim": (TypeError, lambda L: L.scatter_add(L.zeros(3), False,
                                                                _long(L, [0]), L.ones(1))),
    "index_copy_bool_dim": (TypeError, lambda L: L.index_copy(L.zeros(5, 3), True,
                                                              _long(L, [1]), L.ones(5, 1))),
    "index_fill__bool_dim": (TypeError, lambda L: L.zeros(3).index_fill_(False, _long(L, [0]),
                                                                         1)),
    "take_along_dim_bool_dim": (TypeError, lambda L: L.take_along_dim(L.zeros(3, 4),
                                                                      _long(L, [[1]]), dim=True)),
    "take_along_dim_float_dim": (TypeError, lambda L: L.take_along_dim(L.zeros(3, 4),
                                                                       _long(L, [[1]]), dim=1.0)),
    # bool and str arguments
    "nonzero_as_tuple_str": (TypeError, lambda L: L.nonzero(L.zeros(2), as_tuple="x")),
    "nonzero_as_tuple_int": (TypeError, lambda L: L.nonzero(L.zeros(2), as_tuple=1)),
    "gather_sparse_grad_int": (TypeError, lambda L: L.gather(L.zeros(3), 0, _long(L, [0]),
                                                             sparse_grad=1)),
    "put_accumulate_str": (TypeError, lambda L: L.put(L.zeros(3), _long(L, [0]), L.ones(1),
                                                      accumulate="x")),
    "index_put__accumulate_str": (TypeError, lambda L: L.zeros(3).index_put_(
        (_long(L, [0]),), L.ones(1), accumulate="x")),
    "index_put_number_values": (TypeError, lambda L: L.index_put(L.zeros(3), (_long(L, [0]),),
                                                                 1.0)),
    "scatter_reduce_include_self_str": (TypeError, lambda L: L.scatter_reduce(
        L.zeros(3), 0, _long(L, [0]), L.ones(1), "prod", include_self="x")),
    "scatter_reduce_reduce_int": (TypeError, lambda L: L.scatter_reduce(
        L.zeros(3), 0, _long(L, [0]), L.ones(1), 3)),
    "scatter_explicit_reduce_none": (TypeError, lambda L: L.scatter(
        L.zeros(3), 0, _long(L, [0]), L.ones(1), reduce=None)),
    "index_add_alpha_list": (TypeError, lambda L: L.index_add(L.zeros(3), 0, _long(L, [0]),
                                                              L.ones(1), alpha=[1, 2])),
    # fill values that are not numbers, or do not fit the dtype
    "index_fill_none": (TypeError, lambda L: L.index_fill(L.zeros(3), 0, _long(L, [0]), None)),
    "index_fill_tuple": (TypeError, lambda L: L.index_fill(L.zeros(3), 0, _long(L, [0]), ())),
    "masked_fill_none": (TypeError, lambda L: L.masked_fill(L.zeros(3), L.ones(3) > 0, None)),
    "masked_fill_tuple": (TypeError, lambda L: L.masked_fill(L.zeros(3), L.ones(3) > 0, ())),
    "index_fill_half_overflow": (RuntimeError, lambda L: L.index_fill(
        L.zeros(3, dtype=L.float16), 0, _long(L, [0]), 2147483648)),
    "masked_fill_half_overflow": (RuntimeError, lambda L: L.masked_fill(
        L.zeros((), dtype=L.float16), L.tensor(True), 1e308)),
    "masked_fill_tensor_value_overflow": (RuntimeError, lambda L: L.masked_fill(
        L.zeros(3, dtype=L.int32), L.ones(3) > 0, L.tensor(2 ** 40))),
    "masked_fill_int_beyond_64_bits": (OverflowError, lambda L: L.masked_fill(
        L.zeros((), dtype=L.int16), L.tensor(True), 2 ** 64)),
    "masked_fill_complex": (RuntimeError, lambda L: L.masked_fill(L.zeros(3), L.ones(3) > 0,
                                                                  1 + 1j)),
    "scatter_value_beyond_64_bits": (OverflowError, lambda L: L.scatter(
        L.zeros(3, dtype=L.int8), 0, _long(L, [0]), 2 ** 64)),
    "scatter_value_float_overflow": (RuntimeError, lambda L: L.scatter(
        L.zeros(3), 0, _long(L, [0]), 1e300)),
    "index_add_alpha_overflow": (RuntimeError, lambda L: L.index_add(
        L.zeros(3, dtype=L.int8), 0, _long(L, [0]), L.ones(1, dtype=L.int8), alpha=300)),
    # dims are wrapped before the index is looked at
    "scatter_dim_out_of_range": (IndexError, lambda L: L.scatter(
        L.zeros(2), -2, L.zeros(2, 5, 4, dtype=L.int64), 3)),
    "scatter_add_dim_out_of_range_0d": (IndexError, lambda L: L.scatter_add(
        L.zeros(()), 1, L.zeros(2, 3, dtype=L.int64), L.ones(3, 4))),
    "scatter_reduce_dim_out_of_range_0d": (IndexError, lambda L: L.scatter_reduce(
        L.zeros(()), 1, L.zeros(3, 5, dtype=L.int64), L.ones(3, 5), "sum", include_self=False)),
    # index_add_ / index_copy_ shape rules, in PyTorch's order
    "index_add_dim_beyond_source": (RuntimeError, lambda L: L.index_add(
        L.zeros(2, 3, 2), 2, _long(L, [1]), L.ones(1))),
    "index_add_dim_beyond_0d_source": (RuntimeError, lambda L: L.index_add(
        L.zeros(4, 3), 1, _long(L, [0, 1, 2]), L.ones(()))),
    "index_add_count": (RuntimeError, lambda L: L.index_add(
        L.zeros(5, 3), 0, _long(L, [1, 2]), L.ones(1, 3))),
    "index_add_slice_shape": (RuntimeError, lambda L: L.index_add(
        L.zeros(5, 3), 0, _long(L, [1, 2]), L.ones(2, 2))),
    "index_add_1d_out_of_range": (IndexError, lambda L: L.index_add(
        L.zeros(5), 0, _long(L, [-7]), L.ones(1))),
    "index_add_2d_out_of_range": (RuntimeError, lambda L: L.index_add(
        L.zeros(5, 3), 0, _long(L, [7]), L.ones(1, 3))),
    "index_copy_slice_shape_first": (RuntimeError, lambda L: L.index_copy(
        L.zeros(3, 4), 0, _long(L, [2, 0]), L.ones(3, 2))),
    "index_copy_dimensionality": (IndexError, lambda L: L.index_copy(
        L.zeros(5, 5), 0, _long(L, [4]), L.ones(1))),
    "index_copy_scalar_source": (IndexError, lambda L: L.index_copy(
        L.zeros(5, 3), 0, _long(L, [1, 2]), L.ones(()))),
    "index_copy_int32_index": (RuntimeError, lambda L: L.index_copy(
        L.zeros(5, 3), 0, L.tensor([1], dtype=L.int32), L.ones(1, 3))),
    # out= of another dtype
    "index_add_out_dtype": (RuntimeError, lambda L: L.index_add(
        L.zeros(3), 0, _long(L, [0]), L.ones(1), out=L.zeros(3, dtype=L.float16))),
    "scatter_add_out_dtype": (RuntimeError, lambda L: L.scatter_add(
        L.zeros(3, dtype=L.int16), 0, _long(L, [0]), L.ones(1, dtype=L.int16),
        out=L.zeros(3, dtype=L.uint8))),
    "scatter_reduce_out_dtype": (RuntimeError, lambda L: L.scatter_reduce(
        L.zeros(3, dtype=L.float16), 0, _long(L, [0]), L.ones(1, dtype=L.float16), "mean",
        out=L.zeros(3, dtype=L.bfloat16))),
    "scatter_out_dtype": (RuntimeError, lambda L: L.scatter(
        L.zeros(3), 0, _long(L, [0]), 1.0, out=L.zeros(3, dtype=L.float64))),
    "take_along_dim_out_dtype": (RuntimeError, lambda L: L.take_along_dim(
        L.zeros(3, 4, dtype=L.uint8), _long(L, [[1]]), dim=0, out=L.zeros(1, dtype=L.int8))),
    "where_out_dtype": (RuntimeError, lambda L: L.where(
        L.tensor(False), L.tensor(1, dtype=L.int8), L.tensor(2, dtype=L.int8),
        out=L.zeros(2, dtype=L.bfloat16))),
    "where_out_with_number_other": (TypeError, lambda L: L.where(
        L.tensor([True]), L.ones(1), 3, out=L.zeros(1))),
    "where_out_with_number_input": (TypeError, lambda L: L.where(
        L.tensor([True]), 2, L.ones(1), out=L.zeros(1))),
    # in-place writes into a tensor whose elements share memory
    "index_copy__expanded": (RuntimeError, lambda L: _expanded(L).index_copy_(
        0, _long(L, [1]), L.ones(1, 3))),
    "index_add__expanded": (RuntimeError, lambda L: _expanded(L).index_add_(
        0, _long(L, [1]), L.ones(1, 3))),
    "put__expanded": (RuntimeError, lambda L: _expanded(L).put_(
        _long(L, [1]), L.ones(1), accumulate=True)),
    "scatter__expanded": (RuntimeError, lambda L: _expanded(L).scatter_(
        0, _long(L, [[1]]), L.ones(1, 1), reduce="multiply")),
    "scatter_add__expanded": (RuntimeError, lambda L: _expanded(L).scatter_add_(
        0, _long(L, [[1]]), L.ones(1, 1))),
    "scatter_reduce__expanded": (RuntimeError, lambda L: _expanded(L).scatter_reduce_(
        0, _long(L, [[1]]), L.ones(1, 1), "sum")),
    # fuzz classes of issue 6: the number `other` of an in-place binary op
    "hypot__number": (TypeError, lambda L: L.ones(1, 4).expand(3, 4).hypot_(2.5)),
    "logical_or__number": (TypeError, lambda L: L.ones(3, 1).expand(3, 4).logical_or_(3)),
    "logical_xor__number": (TypeError, lambda L: L.ones(1, 4).expand(3, 4).logical_xor_(3)),
    # take_along_dim flattens with view; a 0-dim input has no dim to take along
    "take_along_dim_flat_not_viewable": (RuntimeError, lambda L: L.take_along_dim(
        L.zeros(4, 3).transpose(1, 0), _long(L, [5, 8]))),
    "take_along_dim_0dim_dim": (IndexError, lambda L: L.take_along_dim(
        L.tensor(1.0), _long(L, 0), 0)),
    "take_along_dim_0dim_negative_dim": (IndexError, lambda L: L.take_along_dim(
        L.tensor(1.0), _long(L, 0), -1)),
    "take_along_dim_ndim_before_dtype": (RuntimeError, lambda L: L.take_along_dim(
        L.tensor(1.0), L.tensor(0, dtype=L.int32), 0)),
    # an integer number must fit the integer result of where
    "where_number_overflows_uint8": (RuntimeError, lambda L: L.where(
        L.tensor([True, False]), L.ones(2, dtype=L.uint8), 1099511627776)),
    "where_number_overflows_int8": (RuntimeError, lambda L: L.where(
        L.tensor([True, False]), L.ones(2, dtype=L.int8), -129)),
    # the error types of PyTorch's CPU kernels
    "index_add_last_dim_alpha": (IndexError, lambda L: L.index_add(
        L.zeros(2, 3, 2), 2, _long(L, 8), L.ones(2, 3, 1), alpha=2)),
    "index_add_middle_dim": (IndexError, lambda L: L.index_add(
        L.zeros(2, 3, 2), 1, _long(L, [9]), L.ones(2, 1, 2))),
    "index_add_first_dim": (RuntimeError, lambda L: L.index_add(
        L.zeros(2, 3, 2), 0, _long(L, [9]), L.ones(1, 3, 2))),
    "index_select_empty_input": (RuntimeError, lambda L: L.index_select(
        L.zeros(2, 0, dtype=L.float16), 0, _long(L, [2]))),
    "index_select_empty_dim": (RuntimeError, lambda L: L.index_select(
        L.zeros(2, 0), 1, _long(L, [0]))),
    "index_select_1d_empty": (IndexError, lambda L: L.index_select(L.zeros(0), 0, _long(L, [2]))),
    # t[idx] = v: the value's dtype is checked before the index values
    "setitem_dtype_before_bounds": (RuntimeError, lambda L: L.zeros(1, 1, 5, 3, dtype=L.bfloat16)
                                    .__setitem__((None, slice(-1, 1), [-5]),
                                                 L.zeros(1, 1, 5, 3))),
    "setitem_shape_before_dtype": (RuntimeError, lambda L: L.zeros(2, 3).__setitem__(
        ([5],), L.ones(4, dtype=L.int64))),
    "setitem_empty_dim_before_value_shape": (IndexError, lambda L: L.zeros(0, 0, 3).__setitem__(
        ([0],), L.ones(2))),
    "getitem_two_ellipses_too_many": (IndexError, lambda L: L.zeros(2, 3)[..., ..., [0, 1]]),
    # fuzz classes of the 76k-case campaign (seed 9090)
    "index_add_0d_source_one_index": (RuntimeError, lambda L: L.index_add(
        L.zeros(3, dtype=L.uint8), -1, _long(L, [-1]), L.tensor(4, dtype=L.uint8))),
    "index_add_0d_into_0d_no_index": (IndexError, lambda L: L.index_add(
        L.tensor(1.0), 0, L.zeros(0, dtype=L.int64), L.tensor(2.0))),
    "index_select_0d_count_before_bounds": (RuntimeError, lambda L: L.index_select(
        L.tensor(3), -1, _long(L, [1, -2]))),
    "where_int_past_64_bits": (OverflowError, lambda L: L.where(L.tensor([True]), L.ones(1),
                                                                2 ** 70)),
    "where_float_past_float32": (RuntimeError, lambda L: L.where(L.tensor([True]), 2, 1e300)),
    "setitem_number_through_uint8_mask": (RuntimeError, _fill_through_uint8_mask),
}


@pytest.mark.parametrize("name", sorted(CASES))
def test_raises(name):
    error, call = CASES[name]
    with pytest.raises(error):
        call(cygrad)


@pytest.mark.parametrize("name", sorted(CASES))
def test_torch_raises_the_same(name):
    torch = pytest.importorskip("torch")
    error, call = CASES[name]
    with pytest.raises(error):
        call(torch)


# Calls PyTorch accepts (cygrad used to refuse or to differ): same dtype, shape and values.
ACCEPTED = {
    # an empty index skips the shape checks of gather/scatter
    "gather_empty_index_other_ndim": lambda L: L.gather(L.arange(5.0), 0,
                                                        L.zeros(0, 3, 3, dtype=L.int64)),
    "gather_empty_float_index": lambda L: L.gather(L.arange(5.0), 0, L.zeros(0, 2)),
    "scatter_empty_index_other_ndim": lambda L: L.scatter(L.arange(24.0).reshape(3, 2, 4), -2,
                                                          L.zeros(0, 1, dtype=L.int64), 2.5),
    "scatter_reduce_empty_index": lambda L: L.scatter_reduce(
        L.arange(12.0).reshape(4, 3), 1, L.zeros(0, dtype=L.int64), L.ones(3, 5), "mean",
        include_self=False),
    # out-of-place ops copy an expanded input first
    "scatter_expanded": lambda L: L.scatter(_expanded(L), 0, _long(L, [[1]]), 1.0),
    "index_copy_expanded": lambda L: L.index_copy(_expanded(L), 0, _long(L, [1]), L.ones(1, 3)),
    "put_expanded": lambda L: L.put(_expanded(L), _long(L, [1, 4]), L.ones(2)),
    # Scalar arguments: a 0-dim tensor alpha; inf and wrapping negatives fit
    "index_add_tensor_alpha": lambda L: L.index_add(L.zeros(3), 0, _long(L, [0, 0]),
                                                    L.ones(2), alpha=L.tensor(3.0)),
    "index_fill_half_inf": lambda L: L.index_fill(L.zeros(3, dtype=L.float16), 0,
                                                  _long(L, [1]), float("inf")),
    "index_fill_uint8_wraps": lambda L: L.index_fill(L.zeros(3, dtype=L.uint8), 0,
                                                     _long(L, [0]), -200),
    "masked_fill_bool_any_number": lambda L: L.masked_fill(L.zeros(3, dtype=L.bool),
                                                           L.tensor([True, False, True]), 5),
    "where_number_branches": lambda L: L.where(L.tensor([True, False]), 2.5, 3),
    "where_out_same_dtype": lambda L: L.where(L.tensor([True, False]),
                                              L.ones(2, dtype=L.int8),
                                              L.full((2,), 7, dtype=L.int16),
                                              out=L.zeros(2, dtype=L.int16)),
    # fuzz classes of issue 6
    "getitem_two_ellipses_0dim": lambda L: L.tensor(1.5)[..., ..., True],
    "getitem_ellipsis_twice": lambda L: L.arange(6.0).reshape(2, 3)[..., [0, 1], ...],
    "index_fill_empty_input": lambda L: L.index_fill(L.zeros(2, 0), 0,
                                                     _long(L, [1099511627776]), 1),
    "index_add_empty_input": lambda L: L.index_add(L.zeros(2, 0), 0, _long(L, [8]), L.ones(1, 0)),
    "where_uint8_wraps_negative": lambda L: L.where(L.tensor([True, False]),
                                                    L.ones(2, dtype=L.uint8), -1),
    "take_along_dim_flat_int32": lambda L: L.take_along_dim(
        L.arange(6.0).reshape(2, 3), L.tensor([4], dtype=L.int32)),
    "setitem_one_element_other_dtype_mask": _put_one_uint8_through_mask,
}

# NumPy's answer for each accepted call (the value reference).
EXPECTED = {
    "gather_empty_index_other_ndim": np.zeros((0, 3, 3), dtype=np.float32),
    "gather_empty_float_index": np.zeros((0, 2), dtype=np.float32),
    "scatter_empty_index_other_ndim": np.arange(24.0, dtype=np.float32).reshape(3, 2, 4),
    "scatter_reduce_empty_index": np.arange(12.0, dtype=np.float32).reshape(4, 3),
    "scatter_expanded": np.array([[0, 0, 0], [1, 0, 0], [0, 0, 0], [0, 0, 0], [0, 0, 0]],
                                 dtype=np.float32),
    "index_copy_expanded": np.array([[0], [1], [0], [0], [0]], dtype=np.float32).repeat(3, 1),
    "put_expanded": np.array([0, 1, 0, 0, 1] + [0] * 10, dtype=np.float32).reshape(5, 3),
    "index_add_tensor_alpha": np.array([6, 0, 0], dtype=np.float32),
    "index_fill_half_inf": np.array([0, np.inf, 0], dtype=np.float16),
    "index_fill_uint8_wraps": np.array([56, 0, 0], dtype=np.uint8),
    "masked_fill_bool_any_number": np.array([True, False, True]),
    "where_number_branches": np.array([2.5, 3.0], dtype=np.float32),
    "where_out_same_dtype": np.array([1, 7], dtype=np.int16),
    "getitem_two_ellipses_0dim": np.array([1.5], dtype=np.float32),
    "getitem_ellipsis_twice": np.arange(6.0, dtype=np.float32).reshape(2, 3)[:, [0, 1]],
    "index_fill_empty_input": np.zeros((2, 0), dtype=np.float32),
    "index_add_empty_input": np.zeros((2, 0), dtype=np.float32),
    "where_uint8_wraps_negative": np.array([1, 255], dtype=np.uint8),
    "take_along_dim_flat_int32": np.array([4.0], dtype=np.float32),
    "setitem_one_element_other_dtype_mask": np.array([[7, 7, 7], [0, 0, 0]], dtype=np.float64),
}


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_accepted(name):
    result = ACCEPTED[name](cygrad).numpy()
    expected = EXPECTED[name]
    assert result.dtype == expected.dtype and result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


@pytest.mark.parametrize("name", sorted(ACCEPTED))
def test_torch_accepts_the_same(name):
    torch = pytest.importorskip("torch")
    result = ACCEPTED[name](torch).numpy()
    expected = EXPECTED[name]
    assert result.dtype == expected.dtype and result.shape == expected.shape
    np.testing.assert_array_equal(result, expected)


def test_index_add_of_a_0d_source_into_a_vector_is_an_index_error():
    def call(T):
        T.index_add(T.zeros(3), -1, T.tensor([2, 1]), T.tensor(1.0))
    with pytest.raises(IndexError):
        call(cygrad)
    torch = pytest.importorskip("torch")
    with pytest.raises(IndexError):
        call(torch)


# Several ``...`` in one index: PyTorch moves its dim on past each of them.  The core
# sends such an index to cygrad.ops.indexing (its hooks are called here directly, so
# the reading is checked whichever path the core takes).
ELLIPSES = [
    ((3,), (Ellipsis, Ellipsis, None)),                       # IndexError
    ((3, 5, 4, 3), (Ellipsis, Ellipsis, None)),               # IndexError
    ((2, 3, 3), (Ellipsis, Ellipsis, slice(None, None, 2), slice(None))),
    ((3, 2, 3), (slice(None, None, 2), Ellipsis, Ellipsis, None, Ellipsis, slice(None))),
    ((2, 3, 4), (Ellipsis, Ellipsis, 0, slice(1, None))),     # IndexError
    ((2, 3), (Ellipsis, Ellipsis)),
]


def _index_twice(L, shape, index, getitem):
    x = L.arange(float(np.prod(shape))).reshape(shape)
    if getitem is not None:
        return getitem(x, index).numpy()
    return x[index].numpy()


@pytest.mark.parametrize("shape,index", ELLIPSES)
def test_several_ellipses_as_pytorch(shape, index):
    from cygrad.ops.indexing.advanced import _getitem_hook, _setitem_hook
    torch = pytest.importorskip("torch")
    try:
        expected = _index_twice(torch, shape, index, None)
    except IndexError:
        with pytest.raises(IndexError):
            _index_twice(cygrad, shape, index, _getitem_hook)
        with pytest.raises(IndexError):
            _setitem_hook(cygrad.zeros(shape), index, 1.0)
        return
    np.testing.assert_array_equal(_index_twice(cygrad, shape, index, _getitem_hook), expected)
    x, y = torch.zeros(shape), cygrad.zeros(shape)
    x[index] = 1.0
    _setitem_hook(y, index, 1.0)
    np.testing.assert_array_equal(y.numpy(), x.numpy())
