"""Op-table rows for the ``cygrad/ops/indexing`` package (gather/scatter family, masks, where).

References are written independently of the implementation: explicit loops over
index positions for gather/scatter, plain NumPy (``np.take``, ``np.take_along_axis``,
``np.add.at``, ``np.where``, ``np.argwhere``) elsewhere. Samples that write to one
place twice (where PyTorch leaves the order unspecified) only appear in rows that
accumulate (``reduce='add'``, ``scatter_add``, ``index_add``, ``put(accumulate=True)``).
``index_put`` and ``t[idx]`` with mixed index tuples are tested in tests/test_indexing.py.
"""
import numpy as np

import cygrad

from .core import (ALL, ALL_NUMERIC, ErrorInput, OpInfo, SampleInput, make_array, np_dtype,
                   python_scalar_for)


# ---------------------------------------------------------------------------
# helpers
# ---------------------------------------------------------------------------
def _make(shape, dtype, rng, low=None, high=None):
    # np.asarray: make_array returns a NumPy scalar, not an array, for 0-d bool shapes
    return np.asarray(make_array(shape, dtype, rng, low, high))


def _idx(values):
    return np.asarray(values, dtype=np.int64)


def _random_index(shape, size, rng, low=0):
    return rng.integers(low, size, size=shape).astype(np.int64)


def _distinct_index(shape, dim, size, rng):
    """An index of ``shape`` whose lines along ``dim`` hold distinct values < size
    (so a scatter never writes one place twice)."""
    shape = tuple(shape)
    moved = (shape[dim],) + shape[:dim] + shape[dim + 1:]
    out = np.empty(moved, dtype=np.int64)
    for p in np.ndindex(*moved[1:]):
        out[(slice(None),) + p] = rng.permutation(size)[:shape[dim]]
    return np.moveaxis(out, 0, dim).copy()


def _at_least_1d(a):
    return a.reshape(1) if a.ndim == 0 else a


def _with_zeros(a, rng, fraction=0.4):
    a = a.copy()
    a[rng.random(a.shape) < fraction] = 0
    return a


def _cast_scalar(value, dtype):
    return np.asarray(value).astype(dtype)


# ---------------------------------------------------------------------------
# references
# ---------------------------------------------------------------------------
def _index_select_ref(a, dim, index):
    if a.ndim == 0:
        return a.copy()
    return np.take(a, index.reshape(-1), axis=dim)


def _gather_ref(a, dim, index):
    a1, i1 = _at_least_1d(a), _at_least_1d(index)
    out = np.empty(i1.shape, dtype=a.dtype)
    for p in np.ndindex(*i1.shape):
        q = list(p)
        q[dim] = i1[p]
        out[p] = a1[tuple(q)]
    return out.reshape(index.shape)


def _scatter_ref(a, dim, index, src=None, *, value=None, reduce=None):
    out = a.copy()
    o1, i1 = _at_least_1d(out), _at_least_1d(index)
    if isinstance(src, np.ndarray):
        s1 = _at_least_1d(src)
    else:
        value = src if value is None else value
        s1 = None
    for p in np.ndindex(*i1.shape):
        q = list(p)
        q[dim] = i1[p]
        q = tuple(q)
        v = s1[p] if s1 is not None else _cast_scalar(value, a.dtype)
        if reduce is None:
            o1[q] = v
        elif reduce == "add":
            o1[q] = o1[q] + v
        else:
            o1[q] = o1[q] * v
    return out


def _scatter_add_ref(a, dim, index, src):
    return _scatter_ref(a, dim, index, src, reduce="add")


def _scatter_reduce_ref(a, dim, index, src, reduce, include_self=True):
    """Gather every value sent to each place, then reduce each group."""
    out = a.copy()
    o1, i1, s1 = _at_least_1d(out), _at_least_1d(index), _at_least_1d(src)
    groups = {}
    for p in np.ndindex(*i1.shape):
        q = list(p)
        q[dim] = i1[p]
        groups.setdefault(tuple(q), []).append(s1[p])
    for q, values in groups.items():
        values = np.array(([o1[q]] if include_self else []) + values)
        if reduce == "sum":
            r = values.sum()
        elif reduce == "prod":
            r = values.prod()
        elif reduce == "amax":
            r = values.max()
        elif reduce == "amin":
            r = values.min()
        elif a.dtype.kind in "iu":          # integer mean rounds down
            r = int(values.astype(np.int64).sum()) // len(values)
        else:
            r = values.astype(np.float64).mean()
        o1[q] = r
    return out


def _masked_fill_ref(a, mask, value):
    a_b, m_b = np.broadcast_arrays(a, mask)
    return np.where(m_b, _cast_scalar(value, a.dtype), a_b)


def _masked_select_ref(a, mask):
    a_b, m_b = np.broadcast_arrays(a, mask)
    return a_b[m_b]


def _take_along_dim_ref(a, indices, dim=None):
    return np.take_along_axis(a, indices, axis=dim)


def _moved_copy(a, dim):
    out = a.copy()
    return out, np.moveaxis(_at_least_1d(out), dim, 0)


def _index_fill_ref(a, dim, index, value):
    out, moved = _moved_copy(a, dim)
    moved[index.reshape(-1)] = _cast_scalar(value, a.dtype)
    return out


def _index_copy_ref(a, dim, index, source):
    out, moved = _moved_copy(a, dim)
    moved[index.reshape(-1)] = np.moveaxis(_at_least_1d(source), dim, 0)
    return out


def _index_add_ref(a, dim, index, source, alpha=1):
    out, moved = _moved_copy(a, dim)
    add = np.moveaxis(_at_least_1d(source), dim, 0) * _cast_scalar(alpha, a.dtype)
    np.add.at(moved, index.reshape(-1), add.astype(a.dtype))
    return out


def _put_ref(a, index, source, accumulate=False):
    out = a.copy()
    flat = out.reshape(-1)
    if accumulate:
        np.add.at(flat, index.reshape(-1), source.reshape(-1))
    else:
        flat[index.reshape(-1)] = source.reshape(-1)
    return out


def _nonzero_tuple_ref(a, as_tuple):
    return np.nonzero(np.atleast_1d(a))


# ---------------------------------------------------------------------------
# samples
# ---------------------------------------------------------------------------
def _index_select_samples(op_info, dtype, rng):
    mat = _make((3, 4), dtype, rng)
    return [
        SampleInput(_make((5,), dtype, rng), (0, _idx([4, 0, 0, 2])), name="vec"),
        SampleInput(mat, (1, _idx([3, 1])), name="mat_dim1"),
        SampleInput(mat, (-2, _idx([2, 2, 0, 1, 0])), name="mat_dim0_repeats"),
        SampleInput(_make((2, 3, 4), dtype, rng), (2, _idx([1])), name="3d"),
        SampleInput(mat, (1, _idx(2)), name="0d_index"),
        SampleInput(mat, (0, _idx([])), name="empty_index"),
        SampleInput(_make((), dtype, rng), (0, _idx([0])), name="0d_input"),
    ]


def _index_select_errors(op_info, rng):
    mat = _make((3, 4), cygrad.float32, rng)
    return [
        ErrorInput(SampleInput(mat, (0, _idx([3]))), IndexError, "index out of range in self"),
        ErrorInput(SampleInput(mat, (0, _idx([[0]])), name="2d_index"), IndexError,
                   "Index is supposed to be a vector"),
        ErrorInput(SampleInput(mat, (0, np.array([0.0])), name="float_index"), RuntimeError,
                   "Expected dtype int32 or int64 for index"),
        ErrorInput(SampleInput(mat, (2, _idx([0])), name="bad_dim"), IndexError,
                   "Dimension out of range"),
    ]


def _gather_samples(op_info, dtype, rng):
    mat = _make((3, 4), dtype, rng)
    return [
        SampleInput(_make((5,), dtype, rng), (0, _random_index((7,), 5, rng)), name="vec"),
        SampleInput(mat, (1, _random_index((3, 6), 4, rng)), name="mat_dim1_wider"),
        SampleInput(mat, (0, _random_index((2, 2), 3, rng)), name="mat_dim0_smaller"),
        SampleInput(mat, (-1, _random_index((3, 4), 4, rng)), name="same_shape"),
        SampleInput(_make((2, 3, 4), dtype, rng), (1, _random_index((2, 5, 3), 3, rng)),
                    name="3d"),
        SampleInput(_make((), dtype, rng), (0, _idx(0)), name="0d"),
    ]


def _gather_errors(op_info, rng):
    mat = _make((2, 2), cygrad.float32, rng)
    return [
        ErrorInput(SampleInput(mat, (1, _idx([[0, 2]])), name="out_of_bounds"), RuntimeError,
                   "index 2 is out of bounds for dimension 1 with size 2"),
        ErrorInput(SampleInput(mat, (1, _idx([[0, -1]])), name="negative"), RuntimeError,
                   "index -1 is out of bounds for dimension 1 with size 2"),
        ErrorInput(SampleInput(mat, (0, _idx([[0, 0, 1], [1, 0, 1]])), name="too_wide"),
                   RuntimeError, r"Size does not match at dimension 1 expected index \[2, 3\] "
                                 r"to be no larger than self \[2, 2\] apart from dimension 0"),
        ErrorInput(SampleInput(mat, (1, _idx([0, 1])), name="ndim"), RuntimeError,
                   "same number of dimensions"),
        ErrorInput(SampleInput(mat, (1, np.zeros((2, 2))), name="float_index"), RuntimeError,
                   "int32/int64"),
    ]


def _scatter_samples(op_info, dtype, rng, *, reduce=None, use_value=False, repeats=False):
    """``repeats``: indices may repeat (only for rows that accumulate)."""
    kwargs = {} if reduce is None else {"reduce": reduce}
    repeats = repeats or reduce is not None
    low, high = (-2, 3) if reduce == "multiply" else (None, None)

    def index(shape, dim, size):
        if not repeats:
            return _distinct_index(shape, dim, size, rng)
        return _random_index(shape, size, rng)

    def src(shape):
        if use_value:
            return python_scalar_for(dtype)
        return _make(shape, dtype, rng, low, high)

    return [
        SampleInput(_make((5,), dtype, rng, low, high), (0, index((3,), 0, 5), src((4,))),
                    dict(kwargs), name="vec"),
        SampleInput(_make((3, 4), dtype, rng, low, high),
                    (1, index((2, 3), 1, 4), src((3, 4))), dict(kwargs), name="mat_dim1"),
        SampleInput(_make((3, 4), dtype, rng, low, high),
                    (0, index((3, 4), 0, 3), src((3, 4))), dict(kwargs), name="mat_dim0"),
        SampleInput(_make((2, 3, 4), dtype, rng, low, high),
                    (-2, index((2, 2, 4), 1, 3), src((2, 3, 4))), dict(kwargs), name="3d"),
        SampleInput(_make((), dtype, rng, low, high), (0, _idx(0), src(())), dict(kwargs),
                    name="0d"),
    ]


def _scatter_errors(op_info, rng):
    a = np.zeros((2, 3), dtype=np.float32)
    src = np.ones((2, 3), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (1, _idx([[0, 3]]), src), name="out_of_bounds"),
                   RuntimeError, "index 3 is out of bounds for dimension 1 with size 3"),
        ErrorInput(SampleInput(a, (1, _idx([[0, -1]]), src), name="negative"),
                   RuntimeError, "index -1 is out of bounds"),
        ErrorInput(SampleInput(a, (1, _idx([[0, 1, 2]]), src[:, :2]), name="src_too_small"),
                   RuntimeError, "to be no larger size than src"),
        ErrorInput(SampleInput(a, (0, _idx([[0, 1, 0, 1]]), src), name="index_too_wide"),
                   RuntimeError, "apart from dimension 0"),
        ErrorInput(SampleInput(a, (1, _idx([[0]]), src.astype(np.float64)), name="src_dtype"),
                   RuntimeError, "Expected self.dtype to be equal to src.dtype"),
        ErrorInput(SampleInput(a, (1, _idx([[0]]), src), {"reduce": "max"}, name="reduce"),
                   RuntimeError, "reduce argument must be either add or multiply"),
        ErrorInput(SampleInput(a, (1, _idx([0]), src), name="ndim"),
                   RuntimeError, "same number of dimensions as self"),
    ]


def _scatter_reduce_samples(op_info, dtype, rng, *, reduce):
    low, high = (-2, 3) if reduce == "prod" else (None, None)
    out = []
    for include_self in (True, False):
        kwargs = {"include_self": include_self}
        tag = "" if include_self else "_exclude_self"
        out += [
            SampleInput(_make((5,), dtype, rng, low, high),
                        (0, _random_index((6,), 5, rng), _make((6,), dtype, rng, low, high),
                         reduce), dict(kwargs), name="vec" + tag),
            SampleInput(_make((3, 4), dtype, rng, low, high),
                        (1, _random_index((3, 5), 4, rng), _make((3, 5), dtype, rng, low, high),
                         reduce), dict(kwargs), name="mat_dim1" + tag),
            SampleInput(_make((3, 4), dtype, rng, low, high),
                        (1, _random_index((2, 3), 4, rng), _make((3, 5), dtype, rng, low, high),
                         reduce), dict(kwargs), name="small_index" + tag),
            SampleInput(_make((2, 3, 4), dtype, rng, low, high),
                        (0, _random_index((3, 3, 4), 2, rng),
                         _make((3, 3, 4), dtype, rng, low, high), reduce), dict(kwargs),
                        name="3d" + tag),
        ]
    return out


def _scatter_reduce_errors(op_info, rng):
    a = np.zeros((2, 3), dtype=np.float32)
    src = np.ones((2, 3), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (1, _idx([[0]]), src, "add"), name="reduce_name"),
                   RuntimeError, "reduce argument must be either sum, prod, mean, amax or amin, "
                                 "got add"),
        ErrorInput(SampleInput(a, (1, _idx([[0]]), src.astype(np.float64), "sum"), name="dtype"),
                   RuntimeError, "Expected self.dtype to be equal to src.dtype"),
        ErrorInput(SampleInput(a, (1, _idx([[3]]), src, "amax"), name="out_of_bounds"),
                   RuntimeError, "index 3 is out of bounds for dimension 1 with size 3"),
    ]


def _masked_fill_samples(op_info, dtype, rng, *, tensor_value=False):
    value = python_scalar_for(dtype)
    if tensor_value:
        value = np.asarray(value, dtype=np_dtype(dtype))
    mat = _make((3, 4), dtype, rng)
    return [
        SampleInput(mat, (rng.random((3, 4)) < 0.5, value), name="same_shape"),
        SampleInput(mat, (np.array([True, False, False, True]), value), name="row_mask"),
        SampleInput(_make((4,), dtype, rng), (rng.random((2, 4)) < 0.5, value),
                    name="mask_broadcasts_input"),
        SampleInput(_make((), dtype, rng), (np.array(True), value), name="0d"),
    ]


def _masked_fill_errors(op_info, rng):
    a = np.zeros((2, 3), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (np.array([1, 0, 1], dtype=np.int32), 1.0), name="int_mask"),
                   RuntimeError, "only supports boolean masks"),
        ErrorInput(SampleInput(a, (np.array([True, False]), 1.0), name="shape"),
                   RuntimeError, "must match the size"),
        ErrorInput(SampleInput(a, (np.array([True, False, True]), np.array([1.0, 2.0],
                                                                          dtype=np.float32)),
                               name="value_1d"),
                   RuntimeError, "only supports a 0-dimensional value tensor"),
    ]


def _masked_select_samples(op_info, dtype, rng):
    mat = _make((3, 4), dtype, rng)
    return [
        SampleInput(mat, (rng.random((3, 4)) < 0.5,), name="same_shape"),
        SampleInput(mat, (np.array([True, False, True, True]),), name="row_mask"),
        SampleInput(_make((4,), dtype, rng), (rng.random((2, 4)) < 0.5,), name="broadcast"),
        SampleInput(mat, (np.zeros((3, 4), dtype=bool),), name="none"),
        SampleInput(_make((), dtype, rng), (np.array(True),), name="0d"),
    ]


def _masked_select_errors(op_info, rng):
    a = np.zeros((2, 3), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (np.array([1, 0, 1], dtype=np.uint8),), name="byte_mask"),
                   RuntimeError, "expected BoolTensor for mask"),
        ErrorInput(SampleInput(a, (np.array([True, False]),), name="shape"),
                   RuntimeError, "must match the size"),
    ]


def _where_samples(op_info, dtype, rng, scalars=False):
    """Tensor branches only (the out= overload); ``scalars=True``: Python-number branches,
    which PyTorch accepts only without ``out=``."""
    if scalars:
        return [
            SampleInput(rng.random((3, 4)) < 0.5, (_make((3, 4), dtype, rng),
                                                   python_scalar_for(dtype)), name="py_scalar"),
            SampleInput(rng.random((3, 4)) < 0.5, (2, _make((3, 4), dtype, rng)),
                        name="py_int_first"),
        ]
    other_dtype = cygrad.float64 if dtype != cygrad.float64 else cygrad.int32
    return [
        SampleInput(rng.random((3, 4)) < 0.5, (_make((3, 4), dtype, rng),
                                               _make((3, 4), dtype, rng)), name="same"),
        SampleInput(rng.random((4,)) < 0.5, (_make((3, 4), dtype, rng),
                                             _make((3, 1), dtype, rng)), name="broadcast"),
        SampleInput(rng.random((2, 1, 4)) < 0.5, (_make((3, 1), dtype, rng),
                                                  _make((), dtype, rng)), name="broadcast3"),
        SampleInput(rng.random((3, 4)) < 0.5, (_make((3, 4), dtype, rng),
                                               _make((3, 4), other_dtype, rng)),
                    name="mixed_dtypes"),
        SampleInput(np.array(False), (_make((), dtype, rng), _make((), dtype, rng)),
                    name="0d"),
    ]


def _where_errors(op_info, rng):
    a = np.zeros((2, 3), dtype=np.float32)
    return [
        ErrorInput(SampleInput(np.array([1, 0, 1], dtype=np.int32), (a, a), name="int_cond"),
                   RuntimeError, "where expected condition to be a boolean tensor"),
        ErrorInput(SampleInput(np.array([True, False]), (a, a), name="shape"),
                   RuntimeError, "must match the size"),
    ]


def _nonzero_samples(op_info, dtype, rng, *, kwargs=None):
    kwargs = dict(kwargs or {})
    return [SampleInput(_with_zeros(_make(shape, dtype, rng), rng), kwargs=dict(kwargs),
                        name=name)
            for name, shape in (("vec", (7,)), ("mat", (3, 4)), ("3d", (2, 3, 2)))] + [
        SampleInput(np.ones((), dtype=np_dtype(dtype)), kwargs=dict(kwargs), name="0d_true"),
        SampleInput(np.zeros((), dtype=np_dtype(dtype)), kwargs=dict(kwargs), name="0d_false"),
        SampleInput(np.zeros((2, 3), dtype=np_dtype(dtype)), kwargs=dict(kwargs), name="none"),
    ]


def _take_along_dim_samples(op_info, dtype, rng):
    mat = _make((3, 4), dtype, rng)
    return [
        SampleInput(mat, (_random_index((3, 2), 4, rng),), {"dim": 1}, name="dim1"),
        SampleInput(mat, (_random_index((5, 4), 3, rng),), {"dim": 0}, name="dim0_longer"),
        SampleInput(mat, (_random_index((1, 6), 4, rng),), {"dim": -1}, name="broadcast_index"),
        SampleInput(_make((3, 1), dtype, rng), (_random_index((3, 2), 1, rng),), {"dim": 0},
                    name="broadcast_input"),
        SampleInput(mat, (_random_index((3, 2), 4, rng, low=-4),), {"dim": 1}, name="negative"),
        SampleInput(mat, (_random_index((5,), 12, rng),), name="flat"),
    ]


def _take_along_dim_errors(op_info, rng):
    a = np.zeros((2, 3), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (_idx([0, 6]),), name="flat_out_of_bounds"), RuntimeError,
                   "index 6 is out of bounds for dimension 0 with size 6"),
        ErrorInput(SampleInput(a, (_idx([[0, 1]]),), {"dim": 0}, name="broadcast"), RuntimeError,
                   "must match the size"),
        ErrorInput(SampleInput(a, (_idx([0]),), {"dim": 1}, name="ndim"), RuntimeError,
                   "same number of dimensions"),
        ErrorInput(SampleInput(a, (np.array([[1]], dtype=np.int32),), {"dim": 1}, name="int32"),
                   RuntimeError, "dtype of indices should be Long but got Int"),
    ]


def _take_samples(op_info, dtype, rng):
    mat = _make((3, 4), dtype, rng)
    return [
        SampleInput(mat, (_random_index((5,), 12, rng, low=-12),), name="flat"),
        SampleInput(mat, (_random_index((2, 3), 12, rng),), name="2d_index"),
        SampleInput(_make((), dtype, rng), (_idx([0, -1, 0]),), name="0d_input"),
        SampleInput(_make((5,), dtype, rng), (_idx(3),), name="0d_index"),
    ]


def _take_errors(op_info, rng):
    a = np.zeros((2, 3), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (_idx([6]),), name="out_of_range"), IndexError,
                   "out of range: tried to access index 6 on a tensor of 6 elements."),
        ErrorInput(SampleInput(a, (_idx([-7]),), name="negative"), IndexError,
                   "tried to access index -7"),
    ]


def _index_fill_samples(op_info, dtype, rng, *, tensor_value=False):
    value = python_scalar_for(dtype)
    if tensor_value:
        value = np.asarray(value, dtype=np_dtype(dtype))
    return [
        SampleInput(_make((3, 4), dtype, rng), (1, _idx([0, -1]), value), name="mat"),
        SampleInput(_make((5,), dtype, rng), (0, _idx([4, 4, 1]), value), name="vec"),
        SampleInput(_make((2, 3, 4), dtype, rng), (-2, _idx(1), value), name="0d_index"),
    ]


def _index_fill_errors(op_info, rng):
    a = np.zeros((3, 4), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (1, _idx([0, 4]), 1.0), name="out_of_bounds"), IndexError,
                   "index 4 is out of bounds for dimension 1 with size 4"),
        ErrorInput(SampleInput(a, (1, np.array([0], dtype=np.int32), 1.0), name="int32"),
                   IndexError, "Expected dtype int64 for index"),
    ]


def _index_copy_samples(op_info, dtype, rng):
    return [
        SampleInput(_make((3, 4), dtype, rng),
                    (1, _idx([3, 0]), _make((3, 2), dtype, rng)), name="mat_dim1"),
        SampleInput(_make((3, 4), dtype, rng),
                    (0, _idx([2, 0, 1]), _make((3, 4), dtype, rng)), name="permute_rows"),
        SampleInput(_make((5,), dtype, rng), (0, _idx([4]), _make((1,), dtype, rng)),
                    name="vec"),
    ]


def _index_copy_errors(op_info, rng):
    a = np.zeros((3, 4), dtype=np.float32)
    src = np.ones((3, 2), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (1, _idx([0, 4]), src), name="out_of_bounds"), IndexError,
                   "index 4 is out of bounds for dimension 1 with size 4"),
        ErrorInput(SampleInput(a, (1, _idx([0, 1, 2]), src), name="count"), IndexError,
                   "Number of indices"),
        ErrorInput(SampleInput(a, (1, _idx([0, 1]), src.astype(np.float64)), name="dtype"),
                   RuntimeError, "same dtype"),
    ]


def _index_add_samples(op_info, dtype, rng, *, alpha=None):
    kwargs = {} if alpha is None else {"alpha": alpha}
    return [
        SampleInput(_make((3, 4), dtype, rng),
                    (1, _idx([0, 0, 3]), _make((3, 3), dtype, rng)), dict(kwargs),
                    name="mat_repeats"),
        SampleInput(_make((5,), dtype, rng), (0, _idx([1, 4]), _make((2,), dtype, rng)),
                    dict(kwargs), name="vec"),
        SampleInput(_make((2, 3, 2), dtype, rng),
                    (2, _idx([1]), _make((2, 3, 1), dtype, rng)), dict(kwargs), name="3d"),
    ]


def _index_add_errors(op_info, rng):
    a = np.zeros((3, 4), dtype=np.float32)
    src = np.ones((3, 2), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (1, _idx([0, -1]), src), name="negative"), RuntimeError,
                   "index -1 is out of bounds for dimension 1 with size 4"),
        ErrorInput(SampleInput(a, (1, _idx([0, 1]), src.astype(np.float64)), name="dtype"),
                   RuntimeError, "must have the same scalar type"),
    ]


def _put_samples(op_info, dtype, rng, *, accumulate=False):
    kwargs = {"accumulate": True} if accumulate else {}
    idx = _random_index((6,), 12, rng, low=-12) if accumulate else \
        _idx(rng.permutation(12)[:6] - rng.integers(0, 2, 6) * 12)
    return [
        SampleInput(_make((3, 4), dtype, rng), (idx, _make((6,), dtype, rng)),
                    dict(kwargs), name="mat"),
        SampleInput(_make((5,), dtype, rng), (_idx([[1], [3]]), _make((2, 1), dtype, rng)),
                    dict(kwargs), name="2d_index"),
    ]


def _put_errors(op_info, rng):
    a = np.zeros((3, 4), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (_idx([12]), np.ones(1, dtype=np.float32)), name="range"),
                   IndexError, "out of range: tried to access index 12 on a tensor of 12 elements"),
        ErrorInput(SampleInput(a, (_idx([0, 1]), np.ones(3, dtype=np.float32)), name="numel"),
                   IndexError, "Expected source and index to have the same number of elements"),
        ErrorInput(SampleInput(a, (_idx([0]), np.ones(1, dtype=np.float64)), name="dtype"),
                   RuntimeError, "same dtype"),
    ]


def _getitem(t, index, pre=(), post=()):
    return t[pre + (index,) + post]


def _getitem_samples(op_info, dtype, rng):
    mat = _make((3, 4), dtype, rng)
    cube = _make((2, 3, 4), dtype, rng)
    return [
        SampleInput(mat, (_random_index((5,), 3, rng, low=-3),), name="rows"),
        SampleInput(mat, (_random_index((2, 2), 4, rng),), {"pre": (slice(None),)},
                    name="cols_2d_index"),
        SampleInput(mat, (rng.random((3, 4)) < 0.5,), name="full_mask"),
        SampleInput(mat, (rng.random(3) < 0.5,), {"post": (slice(None, None, -2),)},
                    name="row_mask_neg_step"),
        SampleInput(cube, (_idx([1, 0]),), {"pre": (Ellipsis,), "post": ()}, name="ellipsis"),
        SampleInput(cube, (_idx([2, 0, 1]),), {"pre": (slice(None), None)},
                    name="after_none"),
        SampleInput(cube, (_idx([1, 0]),), {"post": (None, _idx([2, 0]))},
                    name="separated_by_none"),
        SampleInput(cube, (_idx([[1], [0]]),), {"post": (slice(1, None), _idx([3, 0, 1]))},
                    name="separated_by_slice"),
    ]


def _getitem_ref(a, index, pre=(), post=()):
    return a[pre + (index,) + post]


def _getitem_errors(op_info, rng):
    a = np.zeros((5,), dtype=np.float32)
    return [
        ErrorInput(SampleInput(a, (_idx([7]),), name="out_of_bounds"), IndexError,
                   "index 7 is out of bounds for dimension 0 with size 5"),
        ErrorInput(SampleInput(a, (np.array([True, False, True]),), name="mask_shape"),
                   IndexError, r"The shape of the mask \[3\] at index 0 does not match the shape "
                               r"of the indexed tensor \[5\] at index 0"),
    ]


# ---------------------------------------------------------------------------
# the rows
# ---------------------------------------------------------------------------
def _variant(f, **options):
    def samples(op_info, dtype, rng):
        return f(op_info, dtype, rng, **options)
    return samples


# Differentiable in every argument that holds values, unless a row says otherwise: index
# results (nonzero, argwhere) and scatter's legacy reduce= (torch: "not implemented").
AUTOGRAD_DEFAULTS = {"supports_autograd": True}

OPS = [
    OpInfo("index_select", cygrad.index_select, _index_select_ref, dtypes=ALL,
           sample_inputs=_index_select_samples, method="index_select", supports_out=True,
           error_inputs=_index_select_errors),
    OpInfo("gather", cygrad.gather, _gather_ref, dtypes=ALL, sample_inputs=_gather_samples,
           method="gather", supports_out=True, error_inputs=_gather_errors),
    OpInfo("scatter", cygrad.scatter, _scatter_ref, dtypes=ALL, sample_inputs=_scatter_samples,
           method="scatter", inplace="scatter_", supports_out=True,
           error_inputs=_scatter_errors),
    OpInfo("scatter", cygrad.scatter, _scatter_ref, dtypes=ALL,
           sample_inputs=_variant(_scatter_samples, use_value=True), method="scatter",
           inplace="scatter_", supports_out=True, variant="value"),
    OpInfo("scatter", cygrad.scatter, _scatter_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_variant(_scatter_samples, reduce="add"), method="scatter",
           inplace="scatter_", variant="reduce_add", supports_autograd=False),
    OpInfo("scatter", cygrad.scatter, _scatter_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_variant(_scatter_samples, reduce="multiply"), method="scatter",
           inplace="scatter_", variant="reduce_multiply", supports_autograd=False),
    OpInfo("scatter_add", cygrad.scatter_add, _scatter_add_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_variant(_scatter_samples, repeats=True), method="scatter_add",
           inplace="scatter_add_", supports_out=True),
] + [
    OpInfo("scatter_reduce", cygrad.scatter_reduce, _scatter_reduce_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_variant(_scatter_reduce_samples, reduce=reduce), method="scatter_reduce",
           inplace="scatter_reduce_", supports_out=True, variant=reduce,
           error_inputs=_scatter_reduce_errors if reduce == "sum" else None)
    for reduce in ("sum", "prod", "mean", "amax", "amin")
] + [
    OpInfo("masked_fill", cygrad.masked_fill, _masked_fill_ref, dtypes=ALL,
           sample_inputs=_masked_fill_samples, method="masked_fill", inplace="masked_fill_",
           error_inputs=_masked_fill_errors),
    OpInfo("masked_fill", cygrad.masked_fill, _masked_fill_ref, dtypes=ALL,
           sample_inputs=_variant(_masked_fill_samples, tensor_value=True), method="masked_fill",
           inplace="masked_fill_", variant="tensor_value"),
    OpInfo("masked_select", cygrad.masked_select, _masked_select_ref, dtypes=ALL,
           sample_inputs=_masked_select_samples, method="masked_select", supports_out=True,
           error_inputs=_masked_select_errors),
    OpInfo("where", cygrad.where, np.where, dtypes=ALL, sample_inputs=_where_samples,
           supports_out=True, error_inputs=_where_errors),
    OpInfo("where", cygrad.where, np.where, dtypes=ALL,
           sample_inputs=_variant(_where_samples, scalars=True), variant="scalars"),
    OpInfo("nonzero", cygrad.nonzero, np.argwhere, dtypes=ALL, sample_inputs=_nonzero_samples,
           method="nonzero", supports_out=True, supports_autograd=False),
    OpInfo("nonzero", cygrad.nonzero, _nonzero_tuple_ref, dtypes=ALL,
           sample_inputs=_variant(_nonzero_samples, kwargs={"as_tuple": True}),
           method="nonzero", variant="as_tuple", supports_autograd=False),
    OpInfo("argwhere", cygrad.argwhere, np.argwhere, dtypes=ALL, sample_inputs=_nonzero_samples,
           method="argwhere", supports_autograd=False),
    OpInfo("take_along_dim", cygrad.take_along_dim, _take_along_dim_ref, dtypes=ALL,
           sample_inputs=_take_along_dim_samples, method="take_along_dim", supports_out=True,
           error_inputs=_take_along_dim_errors),
    OpInfo("take", cygrad.take, np.take, dtypes=ALL, sample_inputs=_take_samples, method="take",
           error_inputs=_take_errors),
    OpInfo("index_fill", cygrad.index_fill, _index_fill_ref, dtypes=ALL,
           sample_inputs=_index_fill_samples, method="index_fill", inplace="index_fill_",
           error_inputs=_index_fill_errors),
    OpInfo("index_fill", cygrad.index_fill, _index_fill_ref, dtypes=ALL,
           sample_inputs=_variant(_index_fill_samples, tensor_value=True), method="index_fill",
           inplace="index_fill_", variant="tensor_value"),
    OpInfo("index_copy", cygrad.index_copy, _index_copy_ref, dtypes=ALL,
           sample_inputs=_index_copy_samples, method="index_copy", inplace="index_copy_",
           error_inputs=_index_copy_errors),
    OpInfo("index_add", cygrad.index_add, _index_add_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_index_add_samples, method="index_add", inplace="index_add_",
           supports_out=True, error_inputs=_index_add_errors),
    OpInfo("index_add", cygrad.index_add, _index_add_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_variant(_index_add_samples, alpha=2), method="index_add",
           inplace="index_add_", supports_out=True, variant="alpha"),
    OpInfo("put", cygrad.put, _put_ref, dtypes=ALL, sample_inputs=_put_samples, method="put",
           inplace="put_", error_inputs=_put_errors),
    OpInfo("put", cygrad.put, _put_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_variant(_put_samples, accumulate=True), method="put", inplace="put_",
           variant="accumulate"),
    OpInfo("getitem", _getitem, _getitem_ref, dtypes=ALL, sample_inputs=_getitem_samples,
           torch_name="", error_inputs=_getitem_errors),
]
