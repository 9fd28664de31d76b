"""Advanced indexing (``t[idx]``, ``t[idx] = v``, ``index_put_``) and the indexing ops.

Values are checked against NumPy on the same arrays (property tests draw random
shapes and index tuples mixing int arrays, bool masks, slices, None, Ellipsis and
Python bools); semantics where PyTorch differs from NumPy (a plain int is applied
first, as a view) and error types/messages are checked against PyTorch when it is
installed. The op-table rows for the functions are in ``tests/opinfo/indexing.py``.
"""
import inspect
import warnings

import numpy as np
import pytest
from hypothesis import given, strategies as st

import cygrad
from cygrad.ops import indexing as indexing_ops

try:
    import torch
except ImportError:
    torch = None

requires_torch = pytest.mark.skipif(torch is None, reason="PyTorch reference not installed")


def _t(a):
    """A cygrad tensor with its own copy of ``a``."""
    return cygrad.from_numpy(np.array(a, copy=True))


def _torch_error(fn):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        try:
            fn()
        except Exception as e:      # noqa: BLE001 - the type and message are compared
            return e
    return None


# ---------------------------------------------------------------------------
# random index tuples
# ---------------------------------------------------------------------------
@st.composite
def index_case(draw, ints_with_advanced=False, zero_dim_tensors=False, negative_steps=True):
    """``(array, index)``: a small array of distinct values (so a wrong position shows)
    and an index tuple over it. Index arrays are kept in bounds; broadcasting mismatches
    and too many indices are left in (both sides must then raise IndexError)."""
    shape = tuple(draw(st.lists(st.integers(0, 4), min_size=0, max_size=4)))
    a = np.arange(1, int(np.prod(shape)) + 1, dtype=np.float32).reshape(shape)
    kinds = ["slice", "slice", "array", "mask", "none", "bool", "int", "ellipsis"]
    index, d, seen_ellipsis = [], 0, False
    for _ in range(draw(st.integers(1, 4))):
        kind = draw(st.sampled_from(kinds))
        remaining = len(shape) - d
        if kind in ("slice", "array", "mask", "int") and remaining == 0:
            kind = "none"
        if kind == "ellipsis" and seen_ellipsis:
            kind = "none"
        n = shape[d] if remaining else 0
        if kind == "slice":
            start = draw(st.none() | st.integers(-5, 5))
            stop = draw(st.none() | st.integers(-5, 5))
            step = draw(st.none() | st.integers(-3 if negative_steps else 1, 3).filter(bool))
            index.append(slice(start, stop, step))
            d += 1
        elif kind == "array":
            ishape = tuple(draw(st.lists(st.integers(1, 3), min_size=1, max_size=2)))
            if n == 0:
                ishape = (0,)
            values = draw(st.lists(st.integers(-n, max(n - 1, -n)), min_size=int(np.prod(ishape)),
                                   max_size=int(np.prod(ishape))))
            index.append(np.array(values, dtype=np.int64).reshape(ishape))
            d += 1
        elif kind == "mask":
            k = draw(st.integers(1, remaining))
            mshape = shape[d:d + k]
            bits = draw(st.lists(st.booleans(), min_size=int(np.prod(mshape)),
                                 max_size=int(np.prod(mshape))))
            index.append(np.array(bits, dtype=bool).reshape(mshape))
            d += k
        elif kind == "none":
            index.append(None)
        elif kind == "bool":
            index.append(draw(st.booleans()))
        elif kind == "ellipsis":
            seen_ellipsis = True
            index.append(Ellipsis)
            d += draw(st.integers(0, remaining))     # dims it stands for, at least
        elif kind == "int" and n > 0:
            value = draw(st.integers(-n, n - 1))
            index.append(np.array(value) if zero_dim_tensors and draw(st.booleans()) else value)
            d += 1
    if seen_ellipsis:
        # spell out the trailing dims, so the ellipsis stands for exactly the dims drawn
        index.extend([slice(None)] * (len(shape) - d))
    if not ints_with_advanced and any(isinstance(i, (np.ndarray, bool)) for i in index):
        # NumPy treats an int next to an advanced index as advanced too; PyTorch applies
        # it first as a view. The NumPy comparison leaves that mix to the torch test.
        index = [slice(None) if isinstance(i, int) and not isinstance(i, bool) else i
                 for i in index]
        # Likewise a bare True/False: PyTorch inserts its dim where it stands, NumPy
        # moves it to the front when it is not the only advanced index. Keep one bool
        # alone, or none beside index arrays; the torch test covers the rest.
        n_bools = sum(isinstance(i, bool) for i in index)
        arrays = any(isinstance(i, np.ndarray) for i in index)
        if arrays or n_bools > 1:
            index = [None if isinstance(i, bool) else i for i in index]
    return a, tuple(index)


def _as_cygrad_index(index, form):
    """The same index with arrays as cygrad tensors (``form`` 0), lists (1) or ndarrays (2)."""
    def convert(i):
        if not isinstance(i, np.ndarray):
            return i
        if form == 0 or i.ndim == 0:
            return _t(i)
        return i.tolist() if form == 1 and i.ndim == 1 and i.size else i
    return tuple(convert(i) for i in index)


def _as_torch_index(index):
    return tuple(torch.from_numpy(np.array(i)) if isinstance(i, np.ndarray) else i for i in index)


def _numpy_outcome(fn):
    try:
        return fn(), None
    except IndexError as e:
        return None, e


@given(index_case(), st.integers(0, 2))
def test_getitem_matches_numpy(case, form):
    a, index = case
    expected, err = _numpy_outcome(lambda: a[index])
    t = _t(a)
    if err is not None:
        with pytest.raises(IndexError):
            t[_as_cygrad_index(index, form)]
        return
    result = t[_as_cygrad_index(index, form)]
    assert tuple(result.shape) == expected.shape
    np.testing.assert_array_equal(result.numpy(), expected)


@requires_torch
@given(index_case(ints_with_advanced=True, zero_dim_tensors=True, negative_steps=False))
def test_getitem_matches_torch(case):
    """Including ints mixed with advanced indices, where PyTorch's rule is not NumPy's
    (PyTorch has no negative slice steps; cygrad follows NumPy there)."""
    a, index = case
    tt = torch.from_numpy(a.copy())
    expected = None
    err = _torch_error(lambda: tt[_as_torch_index(index)])
    if err is None:
        expected = tt[_as_torch_index(index)].numpy()
    t = _t(a)
    if err is not None:
        with pytest.raises(type(err)):
            t[_as_cygrad_index(index, 0)]
        return
    result = t[_as_cygrad_index(index, 0)]
    assert tuple(result.shape) == expected.shape
    np.testing.assert_array_equal(result.numpy(), expected)


@given(index_case(), st.data())
def test_setitem_matches_numpy(case, data):
    a, index = case
    target_shape = _numpy_outcome(lambda: a[index])[0]
    if target_shape is None:
        return
    target_shape = target_shape.shape
    # a value that broadcasts to the indexed shape: a scalar or a trailing part with 1s
    if data.draw(st.booleans()):
        value = data.draw(st.sampled_from([-1.5, 7, True]))
        cy_value = value
    else:
        k = data.draw(st.integers(0, len(target_shape)))
        tail = target_shape[len(target_shape) - k:]
        vshape = tuple(s if data.draw(st.booleans()) else 1 for s in tail)
        value = -np.arange(int(np.prod(vshape)), dtype=np.float32).reshape(vshape) - 1
        cy_value = _t(value)
    expected = a.copy()
    expected[index] = value
    base = a.copy()
    t = cygrad.from_numpy(base)
    v0 = t._version
    t[_as_cygrad_index(index, data.draw(st.integers(0, 2)))] = cy_value
    np.testing.assert_array_equal(base, expected)       # written in place, through the view
    assert t._version == v0 + 1


# ---------------------------------------------------------------------------
# semantics
# ---------------------------------------------------------------------------
def test_advanced_getitem_copies_basic_indexing_views():
    base = np.arange(12.0).reshape(3, 4)
    t = cygrad.from_numpy(base)
    fancy = t[[0, 2]]
    fancy[0, 0] = 100
    masked = t[t > 5]
    masked[0] = 100
    assert base[0, 0] == 0 and base[1, 2] == 6
    view = t[1:, ::2]
    view[0, 0] = 100
    assert base[1, 0] == 100


def test_zero_dim_int_tensor_index_is_a_view_like_an_int():
    base = np.arange(12.0).reshape(3, 4)
    t = cygrad.from_numpy(base)
    row = t[cygrad.full((), 1, dtype=cygrad.int64)]
    assert tuple(row.shape) == (4,)
    row[0] = -1
    assert base[1, 0] == -1


def test_int_with_advanced_index_is_applied_first():
    """PyTorch: ``a[0, :, [0, 1]]`` is ``a[0][:, [0, 1]]`` (NumPy would move the
    broadcast dim first and give shape (2, 3))."""
    a = np.arange(24.0).reshape(2, 3, 4)
    t = _t(a)
    np.testing.assert_array_equal(t[0, :, [0, 1]].numpy(), a[0][:, [0, 1]])
    np.testing.assert_array_equal(t[:, [0, 1], 0].numpy(), a[:, :, 0][:, [0, 1]])
    np.testing.assert_array_equal(t[[1, 0], :, 2].numpy(), a[:, :, 2][[1, 0], :])


def test_advanced_dims_placement_rule():
    a = np.arange(120.0).reshape(2, 3, 4, 5)
    t = _t(a)
    i, j = np.array([[0], [1]]), np.array([2, 0, 1])
    cases = [(slice(None), i, j), (i, slice(None), j), (i, j, slice(None), slice(1, 3)),
             (Ellipsis, i, j), (i, None, j), (slice(None), i, None, j)]
    for index in cases:
        got = t[_as_cygrad_index(index, 0)]
        np.testing.assert_array_equal(got.numpy(), a[index], err_msg=str(index))


def test_python_bools_as_indices():
    a = np.arange(6.0).reshape(2, 3)
    t = _t(a)
    for index in [True, False, (True, 1), (Ellipsis, False), (True, [0, 1]), ([1, 0], True)]:
        np.testing.assert_array_equal(t[index].numpy(), a[index], err_msg=str(index))
    t[False] = 5.0
    np.testing.assert_array_equal(t.numpy(), a)
    t[True] = 5.0
    assert (t.numpy() == 5).all()


def test_zero_dim_tensor():
    t = cygrad.full((), 3.0)
    assert tuple(t[True].shape) == (1,)
    assert tuple(t[cygrad.full((), False)].shape) == (0,)
    with pytest.raises(IndexError, match="too many indices for tensor of dimension 0"):
        t[[0]]


def test_index_forms_agree():
    a = np.arange(20.0).reshape(4, 5)
    t = _t(a)
    expected = a[[3, -1, 0]]
    for index in ([3, -1, 0], np.array([3, -1, 0]),
                  cygrad.tensor([3, -1, 0]), cygrad.tensor([3, -1, 0], dtype=cygrad.int32)):
        np.testing.assert_array_equal(t[index].numpy(), expected, err_msg=repr(index))
    mask = a[:, 0] > 6
    for index in (mask, mask.tolist(), _t(mask)):
        np.testing.assert_array_equal(t[index].numpy(), a[mask])
    # a list holding tensors, and PyTorch's reading of a list holding slices as a tuple
    np.testing.assert_array_equal(t[[cygrad.full((), 1, dtype=cygrad.int64), 2]].numpy(), a[[1, 2]])
    np.testing.assert_array_equal(t[[slice(None), [0, 4]]].numpy(), a[:, [0, 4]])


def test_uint8_tensor_is_a_deprecated_mask():
    a = np.arange(3.0)
    with pytest.warns(UserWarning, match="uint8 is now deprecated"):
        got = _t(a)[cygrad.tensor([1, 0, 1], dtype=cygrad.uint8)]
    np.testing.assert_array_equal(got.numpy(), [0.0, 2.0])


def test_float_sequences_truncate_like_torch():
    a = np.arange(5.0)
    np.testing.assert_array_equal(_t(a)[[1.0, 3.7]].numpy(), a[[1, 3]])


def test_noncontiguous_getitem_and_setitem():
    base = np.arange(48.0).reshape(6, 8)
    ref = base.copy()
    t = cygrad.from_numpy(base)
    view = t[::2, 1::2].transpose(0, 1)          # (4, 3), strides (2, 16)
    ref_view = ref[::2, 1::2].T
    assert not view.is_contiguous()
    rows = np.array([3, 0, -1])
    np.testing.assert_array_equal(view[rows].numpy(), ref_view[rows])
    np.testing.assert_array_equal(view[ref_view > 20].numpy(), ref_view[ref_view > 20])
    view[rows, 1:] = -cygrad.ones(2, dtype=cygrad.float64)
    ref_view[rows, 1:] = -1
    view[view > 40] = 0.5
    ref_view[ref_view > 40] = 0.5
    np.testing.assert_array_equal(base, ref)
    flipped = t[::-1]
    flipped[[0, 1], [0, 1]] = 9.0
    ref[::-1][[0, 1], [0, 1]] = 9.0
    np.testing.assert_array_equal(base, ref)


def test_setitem_value_that_overlaps_the_target():
    base = np.arange(5.0)
    t = cygrad.from_numpy(base)
    t[[4, 3, 2, 1, 0]] = t
    np.testing.assert_array_equal(base, [4.0, 3.0, 2.0, 1.0, 0.0])
    t[[1, 2, 3]] = t[:3]           # the value is a view of the memory being written
    np.testing.assert_array_equal(base, [4.0, 4.0, 3.0, 2.0, 0.0])


def test_setitem_broadcasts_value_and_casts_scalars():
    t = cygrad.zeros(3, 4, dtype=cygrad.int64)
    t[:, [0, 2]] = cygrad.tensor([[1], [2], [3]])
    t[[0]] = 7.9                          # truncates, as torch
    t[[[1]], [[3]]] = cygrad.tensor([[[5]]])     # leading 1s of the value are dropped
    expected = np.zeros((3, 4), np.int64)
    expected[:, [0, 2]] = [[1], [2], [3]]
    expected[0] = 7
    expected[1, 3] = 5
    np.testing.assert_array_equal(t.numpy(), expected)
    u = cygrad.zeros(2, dtype=cygrad.uint8)
    u[[0]] = -1                           # wraps, as torch
    assert u.tolist() == [255, 0]
    with pytest.raises(RuntimeError, match="value cannot be converted to type uint8_t"):
        u[[0]] = 300


def test_setitem_with_repeated_indices_writes_one_of_the_values():
    t = cygrad.zeros(3)
    t[[0, 0, 0]] = cygrad.tensor([1.0, 2.0, 3.0])
    assert t.tolist()[0] in (1.0, 2.0, 3.0) and t.tolist()[1:] == [0.0, 0.0]


def test_setitem_on_empty_selection_bumps_version_once():
    t = cygrad.zeros(2, 3)
    v0 = t._version
    t[t > 1] = 5.0
    t[[]] = 1.0
    assert t._version == v0 + 2
    assert (t.numpy() == 0).all()


def test_zero_size():
    a = np.zeros((0, 3), np.float32)
    t = _t(a)
    assert tuple(t[[]].shape) == (0, 3)
    assert tuple(t[:, [2, 0]].shape) == (0, 2)
    assert tuple(t[:, [5]].shape) == (0, 1)       # nothing is read, so nothing is checked (torch)
    assert tuple(t[t > 0].shape) == (0,)
    with pytest.raises(IndexError, match="index is out of bounds for dimension with size 0"):
        t[[0]]
    t[:, [1]] = 1.0


# ---------------------------------------------------------------------------
# errors vs PyTorch
# ---------------------------------------------------------------------------
_GETITEM_ERRORS = {
    "oob_first": ((5,), lambda m: ([7],)),
    "oob_negative": ((2, 3, 4), lambda m: (slice(None), [-7])),
    "oob_second_array": ((2, 3, 4), lambda m: ([0], [7])),
    "oob_first_position_wins": ((2, 3, 4), lambda m: ([0, 5], slice(None), [9, 0])),
    "oob_after_int": ((2, 3, 4), lambda m: (0, [9])),
    "oob_after_bool": ((2, 3, 4), lambda m: (True, slice(None), [9])),
    "mask_shape": ((2, 3, 4), lambda m: (m([True, False, True]),)),
    "mask_shape_dim1": ((2, 3, 4), lambda m: (slice(None), m([True, False]))),
    "mask_after_int": ((2, 3, 4), lambda m: (0, m([True]))),
    "mask_after_none": ((2, 3, 4), lambda m: (None, m([True]))),
    "broadcast": ((2, 3, 4), lambda m: ([0, 1], [0, 1, 2])),
    "broadcast_with_mask": ((2, 3, 4), lambda m: (m([[True, False, True], [True, True, False]]),
                                                   [0, 1, 2])),
    "too_many": ((2, 3, 4), lambda m: ([0, 1], [0, 1], [0, 1], [0])),
    "size_0_dim": ((2, 0), lambda m: ([0], [0])),
    "float_tensor": ((3,), lambda m: (m([0.5]),)),
    "float_scalar": ((3,), lambda m: (1.5,)),
}


@requires_torch
@pytest.mark.parametrize("name", sorted(_GETITEM_ERRORS))
def test_getitem_errors_match_torch(name):
    shape, make = _GETITEM_ERRORS[name]
    a = np.arange(int(np.prod(shape)), dtype=np.float32).reshape(shape)
    t_err = _torch_error(lambda: torch.from_numpy(a)[make(torch.tensor)])
    assert t_err is not None
    with pytest.raises(type(t_err)) as info:
        _t(a)[make(cygrad.tensor)]
    assert str(info.value) == str(t_err)


@requires_torch
@pytest.mark.parametrize("name,shape,dtype,index,value", [
    ("dtype", (5,), "int64", [0, 1], ("tensor", [1.5, 2.5], "float32")),
    ("dtype_0d", (5,), "float32", [0], ("tensor", 1, "int64")),
    ("shape", (5,), "int64", [0, 1], ("tensor", [3, 4, 5], "int64")),
    ("shape_2d", (2, 3), "float32", (slice(None), [0, 2]),
     ("tensor", [[1.0, 2.0, 3.0]], "float32")),
    ("empty_mask", (2, 3), "float32", "all_false", ("tensor", [1.0, 2.0], "float32")),
    ("oob", (5,), "int64", [7], ("scalar", 1, None)),
    ("str_value", (5,), "float32", [0], ("scalar", "a", None)),
    ("nan_into_int", (3,), "int64", [0], ("scalar", float("nan"), None)),
])
def test_setitem_errors_match_torch(name, shape, dtype, index, value):
    def run(lib, make):
        x = lib.zeros(shape, dtype=getattr(lib, dtype))
        idx = x == 1 if index == "all_false" else index
        kind, data, vdtype = value
        v = make(data, dtype=getattr(lib, vdtype)) if kind == "tensor" else data
        x[idx] = v
    t_err = _torch_error(lambda: run(torch, torch.tensor))
    assert t_err is not None
    with pytest.raises(type(t_err)) as info:
        run(cygrad, cygrad.tensor)
    if name != "str_value":             # the type name differs (torch.FloatTensor)
        assert str(info.value) == str(t_err)


def test_masked_setitem_casts_a_zero_dim_value_like_torch():
    t = cygrad.zeros(3)
    t[t == 0] = cygrad.full((), 2, dtype=cygrad.int64)
    assert t.tolist() == [2.0, 2.0, 2.0]


@requires_torch
@pytest.mark.parametrize("call", [
    lambda m, a: m.index_select(a, 1, m.tensor([0, 4])),
    lambda m, a: m.index_select(a, 0, m.tensor([0, 1]).float()),
    lambda m, a: m.gather(a, 1, m.tensor([[0, 4]])),
    lambda m, a: m.gather(a, 1, m.tensor([[0], [0], [0], [0]])),
    lambda m, a: m.scatter(a, 1, m.tensor([[0, 4]]), 1.0),
    lambda m, a: m.scatter(a, 1, m.tensor([[0]]), m.ones(1, 1, dtype=m.float64)),
    lambda m, a: m.scatter_add(a, 1, m.tensor([[0]]), 1.0),
    lambda m, a: m.masked_fill(a, m.tensor([1, 0, 0, 1]), 1.0),
    lambda m, a: m.masked_fill(a, m.tensor([True, False, False, True]), m.ones(2)),
    lambda m, a: m.masked_select(a, m.ones(2, 4, dtype=m.bool)),
    lambda m, a: m.where(m.tensor([1, 0, 0, 1]), a, a),
    lambda m, a: m.take(a, m.tensor([12])),
    lambda m, a: m.take(a, m.tensor([1], dtype=m.int32)),
    lambda m, a: m.take_along_dim(a, m.tensor([[0, 1, 2], [0, 1, 2]]), dim=1),
    lambda m, a: m.index_select(a, 0, m.tensor([3])),
    lambda m, a: a.clone().put_(m.tensor([12]), m.ones(1)),
    lambda m, a: a.clone().index_fill_(1, m.tensor([[0]]), 1.0),
    lambda m, a: a.clone().index_copy_(1, m.tensor([0, 4]), m.ones(3, 2)),
    lambda m, a: a.clone().index_copy_(1, m.tensor([0, 1]), m.ones(2, 2)),
    lambda m, a: a.clone().index_add_(0, m.tensor([3]), m.ones(1, 4)),
    lambda m, a: a.clone().masked_fill_(m.ones(2, 3, 4, dtype=m.bool), 1.0),
])
def test_function_errors_match_torch(call):
    a = np.zeros((3, 4), np.float32)
    t_err = _torch_error(lambda: call(torch, torch.from_numpy(a.copy())))
    assert t_err is not None, "the case must be an error in torch"
    with pytest.raises(type(t_err)) as info:
        call(cygrad, _t(a))
    assert isinstance(info.value, type(t_err))


@requires_torch
def test_error_messages_match_torch_exactly():
    """Messages that do not name the library, word for word."""
    a = np.zeros((2, 2), np.float32)
    calls = [
        lambda m, x: m.gather(x, 0, m.tensor([[0, 0, 1], [1, 0, 1]])),
        lambda m, x: m.gather(x, 1, m.tensor([[0, 2]])),
        lambda m, x: m.scatter(x, 1, m.tensor([[0, 1, 0]]), m.ones(2, 2)),
        lambda m, x: m.masked_fill(x, m.tensor([True, False]), m.ones(2)),
        lambda m, x: m.take(x, m.tensor([-5])),
        lambda m, x: x.clone().index_fill_(0, m.tensor([2]), 1.0),
        lambda m, x: m.index_select(x, 0, m.tensor([[0]])),
    ]
    for call in calls:
        t_err = _torch_error(lambda: call(torch, torch.from_numpy(a.copy())))
        with pytest.raises(type(t_err)) as info:
            call(cygrad, _t(a))
        assert str(info.value) == str(t_err)


# ---------------------------------------------------------------------------
# functions: what the op table does not cover
# ---------------------------------------------------------------------------
def test_index_put_accumulate_counts_repeats(rng):
    a = rng.standard_normal((4, 3)).astype(np.float32)
    rows, cols = np.array([0, 0, 3, 0]), np.array([1, 1, 2, 1])
    vals = rng.standard_normal(4).astype(np.float32)
    expected = a.copy()
    np.add.at(expected, (rows, cols), vals)
    t = _t(a)
    v0 = t._version
    result = t.index_put_((_t(rows), _t(cols)), _t(vals), accumulate=True)
    assert result is t and t._version == v0 + 1
    np.testing.assert_allclose(t.numpy(), expected, rtol=1e-6)
    # None stands for a full slice; the out-of-place form leaves the input alone
    expected2 = a.copy()
    expected2[:, [2, 0]] = 1.0
    out = cygrad.index_put(_t(a), (None, _t(np.array([2, 0]))), cygrad.full((), 1.0))
    np.testing.assert_array_equal(out.numpy(), expected2)
    bool_rows = np.array([True, False, True, False])
    expected3 = a.copy()
    expected3[bool_rows] += 2.0
    out = cygrad.index_put(_t(a), (_t(bool_rows),), cygrad.full((), 2.0), accumulate=True)
    np.testing.assert_allclose(out.numpy(), expected3, rtol=1e-6)


@pytest.mark.filterwarnings("ignore:The reduce argument")
def test_scatter_accumulates_repeats_in_place():
    t = cygrad.ones(2, 3)
    idx = cygrad.tensor([[0, 0, 0], [2, 2, 1]])
    src = cygrad.tensor([[1.0, 2.0, 3.0], [4.0, 5.0, 6.0]])
    t.scatter_(1, idx, src, reduce="add")
    np.testing.assert_array_equal(t.numpy(), [[7.0, 1.0, 1.0], [1.0, 7.0, 10.0]])
    t.scatter_(1, idx, 2.0, reduce="multiply")
    np.testing.assert_array_equal(t.numpy(), [[56.0, 1.0, 1.0], [1.0, 14.0, 40.0]])


def test_where_single_argument_and_method(rng):
    a = rng.integers(-2, 3, (3, 4))
    t = _t(a)
    got = cygrad.where(t > 0)
    assert len(got) == 2 and all(g.dtype == cygrad.int64 for g in got)
    for g, e in zip(got, np.nonzero(a > 0)):
        np.testing.assert_array_equal(g.numpy(), e)
    np.testing.assert_array_equal(t.where(t > 0, -t).numpy(), np.where(a > 0, a, -a))
    assert cygrad.where(t > 0, 1.0, 0).dtype == cygrad.float32
    assert cygrad.where(t > 0, True, False).dtype == cygrad.bool
    assert cygrad.where(t > 0, t.int(), 5).dtype == cygrad.int32


def test_nonzero_as_tuple_of_0d_and_empty():
    (i,) = cygrad.nonzero(cygrad.full((), 3.0), as_tuple=True)
    assert i.tolist() == [0]
    empty = cygrad.nonzero(cygrad.zeros(2, 0))
    assert tuple(empty.shape) == (0, 2) and empty.dtype == cygrad.int64


def test_out_is_resized_with_a_warning():
    x = cygrad.arange(6.0).reshape(2, 3)
    out = cygrad.zeros(5)
    with pytest.warns(UserWarning, match="was resized"):
        result = cygrad.index_select(x, 1, cygrad.tensor([2, 0]), out=out)
    assert result is out and out.tolist() == [[2.0, 0.0], [5.0, 3.0]]
    with pytest.raises(RuntimeError, match="same scalar type"):
        cygrad.index_select(x, 1, cygrad.tensor([0]), out=cygrad.zeros(2, 1, dtype=cygrad.float64))


def test_inplace_ops_write_through_noncontiguous_views(rng):
    base = rng.standard_normal((4, 6)).astype(np.float32)
    ref = base.copy()
    t = cygrad.from_numpy(base)
    view = t[:, ::2].t()                                   # (3, 4), not contiguous
    ref_view = ref[:, ::2].T
    view.masked_fill_(view > 0, 0.0)
    ref_view[ref_view > 0] = 0.0
    view.index_fill_(1, cygrad.tensor([3]), -7.0)
    ref_view[:, 3] = -7.0
    view.scatter_(0, cygrad.tensor([[2, 0, 1, 2]]), 5.0)
    ref_view[[2, 0, 1, 2], [0, 1, 2, 3]] = 5.0
    view.put_(cygrad.tensor([0, -1]), cygrad.tensor([1.0, 2.0]))
    ref_view[0, 0], ref_view[-1, -1] = 1.0, 2.0
    np.testing.assert_array_equal(base, ref)


# ---------------------------------------------------------------------------
# API surface
# ---------------------------------------------------------------------------
def test_every_function_has_a_row_a_torch_counterpart_and_examples():
    from opinfo.indexing import OPS
    rows = {op.name for op in OPS}
    for name in indexing_ops.__all__:
        fn = getattr(cygrad, name)
        assert fn is getattr(indexing_ops, name)
        assert "Examples" in (fn.__doc__ or ""), name
        assert name in rows or name == "index_put", f"{name} has no op-table row"
        if torch is not None:
            assert hasattr(torch, name), name
    for method in ("scatter_", "scatter_add_", "masked_fill_", "index_fill_", "index_copy_",
                   "index_add_", "put_", "index_put_", "where"):
        assert callable(getattr(cygrad.Tensor, method)), method
        if torch is not None:
            assert hasattr(torch.Tensor, method), method


@requires_torch
def test_signatures_match_torch_docs():
    """Parameter names PyTorch documents (keyword use must port unchanged)."""
    expected = {
        "index_select": ["input", "dim", "index", "out"],
        "gather": ["input", "dim", "index", "sparse_grad", "out"],
        "scatter_add": ["input", "dim", "index", "src", "out"],
        "masked_fill": ["input", "mask", "value"],
        "masked_select": ["input", "mask", "out"],
        "take_along_dim": ["input", "indices", "dim", "out"],
        "nonzero": ["input", "out", "as_tuple"],
        "where": ["condition", "input", "other", "out"],
    }
    for name, params in expected.items():
        assert list(inspect.signature(getattr(cygrad, name)).parameters) == params, name


def test_scatter_reduce_with_tensor_src_warns_once(monkeypatch):
    monkeypatch.setitem(indexing_ops._warned, "scatter_reduce", False)
    x, idx, src = cygrad.zeros(3), cygrad.tensor([0, 0]), cygrad.ones(2)
    with pytest.warns(UserWarning, match="Use cygrad.scatter_reduce"):
        x.scatter_(0, idx, src, reduce="add")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        x.scatter_(0, idx, src, reduce="add")
        x.scatter_(0, idx, 2.0, reduce="multiply")      # a number value never warned
    assert x.tolist() == [16.0, 0.0, 0.0]          # (2 + 2) * 2 * 2


@pytest.mark.parametrize("dt", ["complex64", "complex128"])
def test_complex_fill_values_into_complex_tensors_match_torch(dt):
    # a complex number fits a complex tensor (c10's checked_convert refuses it only
    # for real dtypes)
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    a = np.array([[1 + 1j, 2 - 1j], [0.5j, -3]], dtype=dt)
    mask = np.array([[True, False], [False, True]])
    idx = np.array([1])
    x, t = cygrad.tensor(a), torch.from_numpy(a.copy())
    cases = [
        (x.masked_fill(cygrad.tensor(mask), 3 + 4j), t.masked_fill(torch.from_numpy(mask), 3 + 4j)),
        (x.index_fill(1, cygrad.tensor(idx), -2j), t.index_fill(1, torch.from_numpy(idx), -2j)),
        (x.scatter(0, cygrad.tensor([[1, 0]]), 1 - 1j),
         t.scatter(0, torch.tensor([[1, 0]]), 1 - 1j)),
    ]
    for got, want in cases:
        np.testing.assert_array_equal(got.numpy(), want.numpy())
    # a real tensor still refuses a complex value, with PyTorch's error type
    with pytest.raises(RuntimeError, match="cannot be converted"):
        cygrad.tensor([1.0]).masked_fill(cygrad.tensor([True]), 1j)


def test_complex_scatter_value_into_a_real_tensor_is_refused_like_torch():
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    with pytest.raises(RuntimeError) as theirs:
        torch.tensor([1.0, 2.0]).scatter(0, torch.tensor([1]), 1j)
    with pytest.raises(RuntimeError) as ours:
        cygrad.tensor([1.0, 2.0]).scatter(0, cygrad.tensor([1]), 1j)
    assert str(ours.value) == str(theirs.value)
