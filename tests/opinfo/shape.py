"""Op-table rows for ``cygrad/ops/shape.py``: joining (cat, stack...), flip/roll,
repeat/tile, tril/triu, pad, broadcasting helpers, meshgrid and the function forms of
the views.  References are NumPy; where PyTorch and NumPy name or order things
differently (``Tensor.repeat`` is ``np.tile``, ``pad`` lists dims last-first), the
reference translates.

The joining ops take a list of tensors, which the harness does not convert, so their
rows call a small wrapper and skip the automatic torch comparison
(``torch_name=""``); ``tests/test_shape.py`` compares them with PyTorch directly.
"""
import numpy as np

import cygrad
from cygrad.ops import shape as shape_ops

from .core import ALL, ErrorInput, OpInfo, SampleInput, make_array

# Views and ops built from other ops (hstack is cat, tile is repeat) are dtype-blind
# beyond what their building blocks test: a few representative dtypes suffice.
# float64 too: gradients are checked in float64
VIEW_DTYPES = (cygrad.bool, cygrad.uint8, cygrad.int64, cygrad.float32, cygrad.float64,
               cygrad.bfloat16)


def _arr(shape, dtype, rng):
    return make_array(shape, dtype, rng)


def _samples(cases):
    """sample_inputs from {name: (input shape, args, kwargs)}; a shape inside ``args``
    given as ``("arr", shape)`` becomes another array of the same dtype."""
    def samples(op_info, dtype, rng):
        out = []
        for name, (shape, args, kwargs) in cases.items():
            args = tuple(_arr(a[1], dtype, rng) if isinstance(a, tuple) and a and a[0] == "arr"
                         else a for a in args)
            out.append(SampleInput(_arr(shape, dtype, rng), args, dict(kwargs), name=name))
        return out
    return samples


# ---------------------------------------------------------------------------
# joining (list-taking ops, wrapped)
# ---------------------------------------------------------------------------
def _pair(fn):
    def op(a, b, **kwargs):
        return fn([a, b], **kwargs)
    op.__name__ = fn.__name__
    return op


_CAT_CASES = {
    "dim1": ((2, 3), (("arr", (2, 4)),), {"dim": 1}),
    "dim0": ((2, 3), (("arr", (1, 3)),), {}),
    "dim_neg": ((2, 2, 3), (("arr", (2, 2, 1)),), {"dim": -1}),
    "vectors": ((3,), (("arr", (4,)),), {}),
}
_STACK_CASES = {
    "dim0": ((2, 3), (("arr", (2, 3)),), {}),
    "dim_last": ((2, 3), (("arr", (2, 3)),), {"dim": 2}),
    "dim_neg": ((2, 3), (("arr", (2, 3)),), {"dim": -2}),
    "vectors": ((4,), (("arr", (4,)),), {"dim": 1}),
}
_HV_CASES = {
    "vectors": ((3,), (("arr", (3,)),), {}),
    "matrices": ((2, 3), (("arr", (2, 3)),), {}),
    "3d": ((2, 3, 2), (("arr", (2, 3, 2)),), {}),
}


def _cat_errors(op_info, rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    return [
        ErrorInput(SampleInput(a, (rng.standard_normal((3, 3)).astype(np.float32),), {"dim": 1},
                               name="size"), RuntimeError,
                   "Sizes of tensors must match except in dimension 1. Expected size 2 but got "
                   "size 3 for tensor number 1 in the list."),
        ErrorInput(SampleInput(a, (a[0].copy(),), name="ndim"), RuntimeError,
                   "Tensors must have same number of dimensions: got 2 and 1"),
        ErrorInput(SampleInput(a, (a.copy(),), {"dim": 2}, name="dim"), IndexError,
                   "Dimension out of range"),
    ]


def _stack_errors(op_info, rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    return [ErrorInput(SampleInput(a, (a.T.copy(),), name="size"), RuntimeError,
                       r"stack expects each tensor to be equal size, but got \[2, 3\] at entry 0 "
                       r"and \[3, 2\] at entry 1")]


# ---------------------------------------------------------------------------
# flip / roll / rot90
# ---------------------------------------------------------------------------
def _flip_ref(a, dims):
    return np.flip(a, axis=tuple(dims)) if len(dims) else a.copy()


def _roll_ref(a, shifts, dims=None):
    return np.roll(a, shifts, axis=dims)


def _rot90_ref(a, k=1, dims=(0, 1)):
    return np.rot90(a, k, axes=tuple(dims))


def _flip_errors(op_info, rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    return [ErrorInput(SampleInput(a, ([0, 0],), name="repeated"), RuntimeError,
                       "dim 0 appears multiple times in the list of dims"),
            ErrorInput(SampleInput(a, ([2],), name="range"), IndexError, "Dimension out of range")]


def _roll_errors(op_info, rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    return [ErrorInput(SampleInput(a, ((1, 2), (0,)), name="align"), RuntimeError,
                       "shifts and dimensions must align")]


# ---------------------------------------------------------------------------
# repeat / tile / repeat_interleave
# ---------------------------------------------------------------------------
def _repeat_ref(a, *reps):
    if len(reps) == 1 and isinstance(reps[0], (tuple, list)):
        reps = tuple(reps[0])
    return np.tile(a, reps)


def _repeat_errors(op_info, rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    return [ErrorInput(SampleInput(a, (2,), name="too_few"), RuntimeError,
                       "Number of dimensions of repeat dims can not be smaller")]


def _repeat_interleave_samples(op_info, dtype, rng):
    return [
        SampleInput(_arr((2, 3), dtype, rng), (2,), name="flat"),
        SampleInput(_arr((2, 3), dtype, rng), (3,), {"dim": 1}, name="dim1"),
        SampleInput(_arr((3, 2), dtype, rng), (np.array([1, 0, 2], dtype=np.int64),), {"dim": 0},
                    name="counts"),
        SampleInput(_arr((2, 3), dtype, rng), (np.array([2], dtype=np.int64),), {"dim": -1},
                    name="one_count"),
    ]


def _repeat_interleave_ref(a, repeats, dim=None):
    return np.repeat(a, repeats, axis=dim)


def _repeat_interleave_errors(op_info, rng):
    a = rng.standard_normal((2, 3)).astype(np.float32)
    return [
        ErrorInput(SampleInput(a, (np.array([1, 2], dtype=np.int64),), {"dim": 1}, name="count"),
                   RuntimeError, "repeats must have the same size as input along dim"),
        ErrorInput(SampleInput(a, (np.array([1, -2], dtype=np.int64),), {"dim": 0},
                               name="negative"), RuntimeError, "repeats can not be negative"),
        ErrorInput(SampleInput(a, (np.array([1.0, 2.0], dtype=np.float32),), {"dim": 0},
                               name="float_counts"), NotImplementedError),
    ]


# ---------------------------------------------------------------------------
# tril / triu
# ---------------------------------------------------------------------------
_TRI_CASES = {
    "square": ((4, 4), (), {}),
    "wide_above": ((3, 5), (1,), {}),
    "tall_below": ((5, 3), (-1,), {}),
    "batched": ((2, 3, 4), (), {"diagonal": 2}),
    "far": ((3, 3), (-5,), {}),
}


def _tri_errors(op_info, rng):
    return [ErrorInput(SampleInput(np.ones(3, np.float32), name="vector"), RuntimeError,
                       "input tensor must have at least 2 dimensions")]


# ---------------------------------------------------------------------------
# pad
# ---------------------------------------------------------------------------
_NP_MODES = {"reflect": "reflect", "replicate": "edge", "circular": "wrap"}


def _pad_ref(a, pad, mode="constant", value=None):
    """PyTorch's pad in NumPy: crop the negative amounts, then np.pad the rest."""
    n = len(pad) // 2
    crop = [slice(None)] * a.ndim
    widths = [(0, 0)] * a.ndim
    for i in range(n):
        d = a.ndim - 1 - i
        before, after = pad[2 * i], pad[2 * i + 1]
        start, stop = max(-before, 0), a.shape[d] - max(-after, 0)
        if stop < start:
            raise ValueError(f"pad: cropping {-before}, {-after} from a dim of size {a.shape[d]}")
        crop[d] = slice(start, stop)
        widths[d] = (max(before, 0), max(after, 0))
    a = a[tuple(crop)]
    if mode == "constant":
        return np.pad(a, widths, constant_values=np.array(0 if value is None else value).astype(a.dtype))
    return np.pad(a, widths, mode=_NP_MODES[mode])


def _pad_samples(op_info, dtype, rng):
    s = [
        SampleInput(_arr((2, 3), dtype, rng), ((1, 2),), name="last_dim"),
        SampleInput(_arr((2, 3), dtype, rng), ((1, 0, 2, 1),), name="two_dims"),
        SampleInput(_arr((2, 3, 4), dtype, rng), ((0, 1, 1, 0, 2, 2),), name="three_dims"),
        SampleInput(_arr((3, 4), dtype, rng), ((-1, 2, 1, -2),), name="negative_crops"),
        SampleInput(_arr((2, 3), dtype, rng), ((1, 1),), {"value": True if dtype == cygrad.bool else 5},
                    name="value"),
    ]
    if dtype.is_floating_point:
        s += [SampleInput(_arr((2, 2, 4), dtype, rng), ((2, 3),), {"mode": "reflect"}, name="reflect"),
              SampleInput(_arr((2, 3, 4), dtype, rng), ((1, 2, 2, 1),), {"mode": "replicate"},
                          name="replicate_2d"),
              SampleInput(_arr((1, 2, 3), dtype, rng), ((3, 2),), {"mode": "circular"},
                          name="circular"),
              SampleInput(_arr((2, 3, 3), dtype, rng), ((2, 2, 1, 1),), {"mode": "reflect"},
                          name="reflect_2d")]
    return s


def _pad_errors(op_info, rng):
    a = rng.standard_normal((1, 2, 3)).astype(np.float32)
    return [
        ErrorInput(SampleInput(a, ((1,),), name="odd"), RuntimeError, "divisible by 2"),
        ErrorInput(SampleInput(a, ((1,) * 8,), name="too_long"), RuntimeError,
                   "Padding length should be less than or equal to two times the input dimension"),
        ErrorInput(SampleInput(a, ((3, 3),), {"mode": "reflect"}, name="reflect_too_wide"),
                   RuntimeError, "Padding size should be less than the corresponding input dimension"),
        ErrorInput(SampleInput(a, ((4, 3),), {"mode": "circular"}, name="circular_wrap"),
                   RuntimeError, "wrapping around more than once"),
        ErrorInput(SampleInput(a, ((-2, -2),), name="crop_too_much"), RuntimeError),
    ]


# ---------------------------------------------------------------------------
# broadcasting, atleast, meshgrid
# ---------------------------------------------------------------------------
def _broadcast_tensors_ref(*arrays):
    return tuple(np.broadcast_arrays(*arrays))


def _meshgrid_samples(op_info, dtype, rng):
    return [
        SampleInput(_arr((2,), dtype, rng), (_arr((3,), dtype, rng),), {"indexing": "ij"}, name="ij"),
        SampleInput(_arr((2,), dtype, rng), (_arr((3,), dtype, rng),), {"indexing": "xy"}, name="xy"),
        SampleInput(_arr((2,), dtype, rng), (_arr((3,), dtype, rng), _arr((4,), dtype, rng)),
                    {"indexing": "xy"}, name="three_xy"),
        SampleInput(_arr((), dtype, rng), (_arr((3,), dtype, rng),), {"indexing": "ij"},
                    name="scalar"),
    ]


def _meshgrid_ref(*arrays, indexing="xy"):
    return tuple(np.meshgrid(*arrays, indexing=indexing))


def _atleast_samples(op_info, dtype, rng):
    return [SampleInput(_arr(s, dtype, rng), name=n)
            for n, s in {"0d": (), "1d": (3,), "2d": (2, 3), "3d": (2, 3, 2)}.items()]


# ---------------------------------------------------------------------------
# function forms of views
# ---------------------------------------------------------------------------
def _split_ref(a, size_or_sections, dim=0):
    n = a.shape[dim]
    if isinstance(size_or_sections, int):
        cuts = list(range(size_or_sections, n, size_or_sections))
    else:
        cuts = list(np.cumsum(size_or_sections)[:-1])
    return tuple(np.split(a, cuts, axis=dim))


def _chunk_ref(a, chunks, dim=0):
    if a.shape[dim] == 0:
        return (a,) * chunks           # torch: `chunks` empty pieces, not one
    step = -(-a.shape[dim] // chunks)
    return _split_ref(a, max(step, 1), dim)


def _narrow_ref(a, dim, start, length):
    idx = [slice(None)] * a.ndim
    idx[dim] = slice(start, start + length)
    return a[tuple(idx)]


def _unflatten_ref(a, dim, sizes):
    return a.reshape(a.shape[:dim] + tuple(sizes) + a.shape[dim + 1:])


def _flatten_ref(a, start_dim=0, end_dim=-1):
    if a.ndim == 0:
        return a.reshape(1)
    end = end_dim % a.ndim
    merged = int(np.prod(a.shape[start_dim:end + 1]))
    return a.reshape(a.shape[:start_dim] + (merged,) + a.shape[end + 1:])


def _squeeze_ref(a, dim=None):
    if dim is None:
        return np.squeeze(a)
    return np.squeeze(a, axis=dim) if a.shape[dim] == 1 else a


def _tensor_split_ref(a, sections, dim=0):
    return tuple(np.array_split(a, sections, axis=dim))


def _view_row(name, ref, cases, method=None, **kw):
    return OpInfo(name, getattr(cygrad, name), ref, dtypes=VIEW_DTYPES,
                  sample_inputs=_samples(cases), method=method, **kw)


# Views and shape ops move values around: all differentiable.
AUTOGRAD_DEFAULTS = {"supports_autograd": True}

OPS = [
    OpInfo("cat", _pair(cygrad.cat), lambda a, b, dim=0: np.concatenate([a, b], axis=dim),
           dtypes=ALL, sample_inputs=_samples(_CAT_CASES), torch_name="",
           error_inputs=_cat_errors),
    OpInfo("stack", _pair(cygrad.stack), lambda a, b, dim=0: np.stack([a, b], axis=dim),
           dtypes=ALL, sample_inputs=_samples(_STACK_CASES), torch_name="",
           error_inputs=_stack_errors),
    OpInfo("hstack", _pair(cygrad.hstack), lambda a, b: np.hstack([a, b]), dtypes=VIEW_DTYPES,
           sample_inputs=_samples(_HV_CASES), torch_name=""),
    OpInfo("vstack", _pair(cygrad.vstack), lambda a, b: np.vstack([a, b]), dtypes=VIEW_DTYPES,
           sample_inputs=_samples(_HV_CASES), torch_name=""),
    OpInfo("dstack", _pair(cygrad.dstack), lambda a, b: np.dstack([a, b]), dtypes=VIEW_DTYPES,
           sample_inputs=_samples(_HV_CASES), torch_name=""),
    OpInfo("column_stack", _pair(cygrad.column_stack), lambda a, b: np.column_stack([a, b]),
           dtypes=VIEW_DTYPES, sample_inputs=_samples(_HV_CASES), torch_name=""),
    OpInfo("flip", cygrad.flip, _flip_ref, dtypes=ALL, method="flip",
           sample_inputs=_samples({"one": ((3, 4), ([0],), {}), "both": ((3, 4), ([0, -1],), {}),
                                   "middle": ((2, 3, 4), ([1],), {}), "none": ((3,), ([],), {})}),
           error_inputs=_flip_errors),
    OpInfo("fliplr", cygrad.fliplr, np.fliplr, dtypes=VIEW_DTYPES, method="fliplr",
           sample_inputs=_samples({"mat": ((3, 4), (), {}), "3d": ((2, 3, 2), (), {})})),
    OpInfo("flipud", cygrad.flipud, np.flipud, dtypes=VIEW_DTYPES, method="flipud",
           sample_inputs=_samples({"vec": ((5,), (), {}), "mat": ((3, 4), (), {})})),
    OpInfo("roll", cygrad.roll, _roll_ref, dtypes=ALL, method="roll",
           sample_inputs=_samples({
               "flat": ((3, 4), (1,), {}),
               "dim": ((3, 4), (-1, 1), {}),
               "two_dims": ((3, 4), ((1, -2), (0, 1)), {}),
               "big_shift": ((3, 4), (5,), {"dims": 1}),
               "same_dim_twice": ((5,), ((1, 2), (0, 0)), {}),
               "3d": ((2, 3, 4), (2, -1), {})}),
           error_inputs=_roll_errors),
    OpInfo("rot90", cygrad.rot90, _rot90_ref, dtypes=VIEW_DTYPES, method="rot90",
           sample_inputs=_samples({"k1": ((3, 4), (), {}), "k2": ((3, 4), (2,), {}),
                                   "k3": ((3, 4), (3,), {}), "k_neg": ((3, 4), (-1,), {}),
                                   "dims12": ((2, 3, 4), (1, (1, 2)), {})})),
    OpInfo("repeat", cygrad.Tensor.repeat, _repeat_ref, dtypes=ALL, method="repeat",
           torch_name="Tensor.repeat",
           sample_inputs=_samples({"same_rank": ((2, 3), (2, 2), {}),
                                   "new_dims": ((2, 3), (2, 1, 3), {}),
                                   "tuple": ((3,), ((2, 2),), {}),
                                   "zero": ((2, 3), (0, 2), {}),
                                   "scalar": ((), (3,), {})}),
           error_inputs=_repeat_errors),
    OpInfo("tile", cygrad.tile, np.tile, dtypes=VIEW_DTYPES, method="tile",
           sample_inputs=_samples({"same_rank": ((2, 3), ((2, 2),), {}),
                                   "short": ((2, 3), ((2,),), {}),
                                   "long": ((3,), ((2, 1, 2),), {})})),
    OpInfo("repeat_interleave", cygrad.repeat_interleave, _repeat_interleave_ref, dtypes=ALL,
           method="repeat_interleave", sample_inputs=_repeat_interleave_samples,
           error_inputs=_repeat_interleave_errors),
    OpInfo("tril", cygrad.tril, lambda a, diagonal=0: np.tril(a, diagonal), dtypes=ALL, method="tril", inplace="tril_",
           supports_out=True, sample_inputs=_samples(_TRI_CASES), error_inputs=_tri_errors),
    OpInfo("triu", cygrad.triu, lambda a, diagonal=0: np.triu(a, diagonal), dtypes=ALL, method="triu", inplace="triu_",
           supports_out=True, sample_inputs=_samples(_TRI_CASES), error_inputs=_tri_errors),
    OpInfo("pad", shape_ops.pad, _pad_ref, dtypes=ALL, sample_inputs=_pad_samples,
           torch_name="nn.functional.pad", error_inputs=_pad_errors),
    OpInfo("broadcast_to", cygrad.broadcast_to, np.broadcast_to, dtypes=VIEW_DTYPES,
           method="broadcast_to",
           sample_inputs=_samples({"row": ((3,), ((2, 3),), {}), "col": ((2, 1), ((2, 4),), {}),
                                   "new_dims": ((1, 3), ((2, 2, 3),), {})})),
    OpInfo("broadcast_tensors", cygrad.broadcast_tensors, _broadcast_tensors_ref,
           dtypes=VIEW_DTYPES,
           sample_inputs=_samples({"row_col": ((2, 1), (("arr", (3,)),), {}),
                                   "same": ((2, 3), (("arr", (2, 3)),), {}),
                                   "three": ((4, 1, 1), (("arr", (2, 1)), ("arr", (3,))), {})})),
    OpInfo("atleast_1d", cygrad.atleast_1d, np.atleast_1d, dtypes=VIEW_DTYPES,
           sample_inputs=_atleast_samples),
    OpInfo("atleast_2d", cygrad.atleast_2d, np.atleast_2d, dtypes=VIEW_DTYPES,
           sample_inputs=_atleast_samples),
    OpInfo("atleast_3d", cygrad.atleast_3d, np.atleast_3d, dtypes=VIEW_DTYPES,
           sample_inputs=_atleast_samples),
    OpInfo("meshgrid", cygrad.meshgrid, _meshgrid_ref, dtypes=VIEW_DTYPES,
           sample_inputs=_meshgrid_samples, check_zero_size=False),  # no dim-0 to cut
    _view_row("reshape", np.reshape, {"mat": ((2, 6), ((3, 4),), {}),
                                      "infer": ((2, 3, 2), ((-1, 3),), {})}, "reshape"),
    _view_row("transpose", lambda a, d0, d1: np.swapaxes(a, d0, d1),
              {"mat": ((2, 3), (0, 1), {}), "3d": ((2, 3, 4), (-1, 0), {})}, "transpose"),
    _view_row("swapaxes", lambda a, d0, d1: np.swapaxes(a, d0, d1),
              {"3d": ((2, 3, 4), (0, 2), {})}, "swapaxes"),
    _view_row("permute", lambda a, dims: np.transpose(a, dims),
              {"3d": ((2, 3, 4), ((2, 0, 1),), {})}, "permute"),
    _view_row("squeeze", _squeeze_ref, {"all": ((1, 3, 1), (), {}), "dim": ((1, 3, 1), (2,), {}),
                                        "keep": ((2, 3), (1,), {})}, "squeeze"),
    _view_row("unsqueeze", np.expand_dims, {"front": ((2, 3), (0,), {}),
                                            "back": ((2, 3), (-1,), {})}, "unsqueeze"),
    _view_row("flatten", _flatten_ref, {"all": ((2, 3, 4), (), {}), "tail": ((2, 3, 4), (1,), {}),
                                        "middle": ((2, 3, 4, 2), (1, 2), {})}, "flatten"),
    _view_row("unflatten", _unflatten_ref, {"split": ((2, 6), (1, (2, 3)), {}),
                                            "infer": ((12,), (0, (-1, 4)), {})}, "unflatten"),
    _view_row("ravel", np.ravel, {"mat": ((2, 3), (), {})}, "ravel"),
    _view_row("movedim", np.moveaxis, {"one": ((2, 3, 4), (0, -1), {}),
                                       "two": ((2, 3, 4), ((0, 1), (2, 0)), {})}, "movedim"),
    _view_row("narrow", _narrow_ref, {"cols": ((3, 5), (1, 1, 3), {})}, "narrow"),
    _view_row("select", lambda a, dim, i: np.take(a, i, axis=dim),
              {"col": ((3, 4), (1, 2), {}), "neg": ((3, 4), (1, -1), {})}, "select"),
    _view_row("diagonal", lambda a, offset=0, dim1=0, dim2=1: np.diagonal(a, offset, dim1, dim2),
              {"main": ((3, 4), (), {}), "above": ((3, 4), (1,), {}),
               "batched": ((2, 3, 3), (0, 1, 2), {})}, "diagonal"),
    _view_row("unbind", lambda a, dim=0: tuple(np.moveaxis(a, dim, 0)),
              {"rows": ((3, 2), (), {}), "cols": ((3, 2), (1,), {})}, "unbind"),
    _view_row("split", _split_ref, {"size": ((5, 2), (2,), {}), "sections": ((2, 5), ([1, 4], 1), {})},
              "split"),
    _view_row("chunk", _chunk_ref, {"even": ((6, 2), (3,), {}), "uneven": ((5, 2), (2,), {})},
              "chunk"),
    _view_row("tensor_split", _tensor_split_ref, {"sections": ((7, 2), (3,), {}),
                                                  "indices": ((2, 6), ([1, 4], 1), {})},
              "tensor_split"),
    _view_row("hsplit", np.hsplit, {"mat": ((2, 4), (2,), {}), "vec": ((6,), ([2, 3],), {})},
              "hsplit"),
    _view_row("vsplit", np.vsplit, {"mat": ((4, 2), (2,), {})}, "vsplit"),
    _view_row("dsplit", np.dsplit, {"3d": ((1, 2, 4), ([1],), {})}, "dsplit"),
    _view_row("t", np.transpose, {"mat": ((2, 3), (), {}), "vec": ((3,), (), {})}, "t"),
    _view_row("clone", np.copy, {"mat": ((2, 3), (), {})}, "clone"),
]
