"""Op-table rows of the scatter-add paths that ``tests/opinfo/indexing.py`` leaves
out: the embedding lookup (its backward is the row scatter-add of
``cygrad/_core/cpu/scatter.c``) and ``index_put`` with ``accumulate=True`` (one index
array, several neighbouring ones, separated ones, a bool mask, negative indices).
References are NumPy's ``take`` and ``np.add.at``; gradients are checked by
gradcheck/gradgradcheck in float64 (``tests/test_autograd_ops.py``).
"""
import numpy as np

import cygrad
import cygrad.nn.functional as F

from .core import ALL_NUMERIC, FLOATS, ErrorInput, OpInfo, SampleInput, make_array

AUTOGRAD_DEFAULTS = {"supports_autograd": True}


def _idx(values):
    return np.asarray(values, dtype=np.int64)


# ---------------------------------------------------------------- embedding

def _embedding_ref(idx, weight, padding_idx=None, scale_grad_by_freq=False):
    return np.take(weight, idx, axis=0)


def _embedding_samples(op_info, dtype, rng, padding=False):
    w = make_array((7, 3), dtype, rng)
    repeats = _idx([[0, 2, 2], [6, 0, 2]])
    if padding:
        return [
            SampleInput(_idx([4, 4, 4, 1]), (w,), {"padding_idx": 4}, name="padding_idx"),
            SampleInput(repeats, (w,), {"padding_idx": -1}, name="negative_padding_idx"),
            SampleInput(repeats, (w,), {"scale_grad_by_freq": True}, name="scale_grad_by_freq"),
        ]
    return [
        SampleInput(repeats, (w,), name="repeats"),
        SampleInput(_idx(3), (w,), name="0d_index"),
    ]


def _padding_samples(op_info, dtype, rng):
    return _embedding_samples(op_info, dtype, rng, padding=True)


# The padding row gets no gradient by definition, and scale_grad_by_freq divides each
# row's gradient by its count (in PyTorch too): finite differences disagree on purpose.
# tests/test_scatter_kernels.py checks these gradients against np.add.at and PyTorch.
_PADDING_SKIPS = {t: "padding_idx and scale_grad_by_freq change the gradient by "
                     "definition, unlike finite differences; tests/test_scatter_kernels.py "
                     "checks them"
                  for t in ("test_gradcheck", "test_gradcheck_noncontiguous",
                            "test_gradgradcheck")}


def _embedding_errors(op_info, rng):
    w = np.zeros((4, 2), dtype=np.float32)
    return [
        ErrorInput(SampleInput(_idx([1, 4]), (w,), name="out_of_range"), IndexError,
                   "index out of range in self"),
        ErrorInput(SampleInput(np.array([1.0, 2.0]), (w,), name="float_index"), RuntimeError,
                   "Expected tensor for argument #1 'indices'"),
    ]


# ---------------------------------------------------------------- index_put(accumulate=True)

def _layout(indices, layout):
    """The index tuple: the arrays first ("front"), split by a full slice ("gap": NumPy
    and PyTorch then put the broadcast index dims first), or after one ("after_slice")."""
    if layout == "front":
        return tuple(indices)
    if layout == "gap":
        return (indices[0], slice(None), indices[1])
    return (slice(None),) + tuple(indices)


def _index_put_add_ref(x, values, *indices, layout="front"):
    out = x.copy()
    index = _layout(indices, layout)
    if len(index) == 1 and index[0].dtype == np.bool_:
        index = np.nonzero(index[0])
    np.add.at(out, index, values)
    return out


def _index_put_add(x, values, *indices, layout="front"):
    """``index_put_(x.clone(), index, values, accumulate=True)`` (see :func:`_layout`)."""
    return cygrad.index_put_(x.clone(), _layout(indices, layout), values, accumulate=True)


def _index_put_samples(op_info, dtype, rng):
    x = make_array((4, 3, 5), dtype, rng)
    return [
        SampleInput(x, (make_array((6, 3, 5), dtype, rng), _idx([0, 3, 0, -1, 2, 0])),
                    name="one_array_repeats_negative"),
        SampleInput(x, (make_array((2, 2, 5), dtype, rng), _idx([[1, 1], [3, -4]]),
                        _idx([[2, 2], [0, 2]])), name="two_arrays"),
        SampleInput(x, (make_array((3,), dtype, rng), _idx([1, 1, 2]), _idx([4, 4, 0])),
                    {"layout": "gap"}, name="separated_arrays"),
        SampleInput(x, (make_array((4, 2), dtype, rng), _idx([2, 2]), _idx([1, 1])),
                    {"layout": "after_slice"}, name="after_slice"),
        SampleInput(x, (make_array((5,), dtype, rng), _idx([[0, 0, 1, 2, 0]]).reshape(-1)),
                    {"layout": "after_slice"}, name="inner_dim"),
        SampleInput(x, (make_array((3, 5), dtype, rng),
                        np.array([[True, False, True], [False, False, False],
                                  [False, True, False], [False, False, False]])),
                    name="mask"),
        SampleInput(x, (make_array((), dtype, rng), _idx([3, 3, 3])), name="broadcast_value"),
    ]


OPS = [
    OpInfo("embedding", F.embedding, _embedding_ref, dtypes=FLOATS,
           sample_inputs=_embedding_samples, torch_name="nn.functional.embedding",
           error_inputs=_embedding_errors, check_zero_size=False),
    OpInfo("embedding", F.embedding, _embedding_ref, dtypes=FLOATS,
           sample_inputs=_padding_samples, torch_name="nn.functional.embedding",
           check_zero_size=False, variant="modified_grad", skips=_PADDING_SKIPS),
    OpInfo("index_put_accumulate", _index_put_add, _index_put_add_ref, dtypes=ALL_NUMERIC,
           sample_inputs=_index_put_samples, torch_name="", check_zero_size=False),
]
