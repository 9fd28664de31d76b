"""Op-table rows for the plumbing ops: the ``*_copy`` functions, ``narrow_copy``,
``Tensor.unfold``, the split variants, ``rsub`` and ``fill``
(``cygrad/ops/view_copies.py``, ``cygrad/ops/creation_extras.py``). References are
NumPy: each ``*_copy`` is its view taken with NumPy indexing, copied.

All are built from differentiable view ops, ``clone``, ``sub`` and ``fill_``; their
nodes are those ops' Functions (in the shape, view and elementwise families).
"""
import numpy as np
from numpy.lib.stride_tricks import sliding_window_view

import cygrad

from .core import ALL, ErrorInput, OpInfo, SampleInput, binary_samples, make_array

DTYPES = (cygrad.bool, cygrad.uint8, cygrad.int64, cygrad.float32, cygrad.float64,
          cygrad.bfloat16)
AUTOGRAD_DEFAULTS = {"supports_autograd": True}


def _samples(cases):
    def samples(op_info, dtype, rng):
        return [SampleInput(make_array(shape, dtype, rng), args, dict(kwargs), name=name)
                for name, (shape, args, kwargs) in cases.items()]
    return samples


def _row(name, ref, cases, **kw):
    return OpInfo(name, getattr(cygrad, name), ref, dtypes=DTYPES, sample_inputs=_samples(cases),
                  **kw)


def _slice_ref(a, dim=0, start=None, end=None, step=1):
    return a[(slice(None),) * (dim % a.ndim) + (slice(start, end, step),)]


def _unfold_ref(a, dimension, size, step):
    if a.ndim == 0:
        return a.reshape(1)[:size]
    win = sliding_window_view(a, size, axis=dimension)
    return win[(slice(None),) * (dimension % a.ndim) + (slice(None, None, step),)]


def _split_ref(a, split_size, dim=0):
    n = a.shape[dim]
    cuts = list(range(split_size, n, split_size)) if isinstance(split_size, int) \
        else list(np.cumsum(split_size)[:-1])
    return tuple(np.split(a, cuts, axis=dim))


def _squeeze_ref(a, dim=None):
    if dim is None:
        return np.squeeze(a)
    return np.squeeze(a, axis=dim) if a.shape[dim] == 1 else a


def _diag_ref(a, offset=0, dim1=0, dim2=1):
    return np.diagonal(a, offset, dim1, dim2)


def _slice_errors(op_info, rng):
    a = make_array((4,), cygrad.float32, rng)
    return [ErrorInput(SampleInput(a, (0, 0, 3, 0), name="step0"), RuntimeError,
                       "slice step must be positive")]


def _unfold_errors(op_info, rng):
    a = make_array((4,), cygrad.float32, rng)
    return [ErrorInput(SampleInput(a, (0, 5, 1), name="too_big"), RuntimeError,
                       "maximum size for tensor at dimension 0 is 4 but size is 5"),
            ErrorInput(SampleInput(a, (0, 2, 0), name="step0"), RuntimeError, "step is 0")]


def _split_sizes_errors(op_info, rng):
    a = make_array((4,), cygrad.float32, rng)
    return [ErrorInput(SampleInput(a, ([1, 2],), name="sum"), RuntimeError,
                       "split_with_sizes expects split_sizes to sum exactly to 4")]


OPS = [
    _row("view_copy", lambda a, size: a.reshape(size),
         {"matrix": ((2, 6), ((3, 4),), {}), "infer": ((2, 3, 2), ((-1, 2),), {})},
         check_noncontiguous=False),      # (view of a non-contiguous input is an error)
    _row("permute_copy", lambda a, dims: np.transpose(a, dims),
         {"3d": ((2, 3, 4), ((2, 0, 1),), {}), "2d": ((3, 2), ((1, 0),), {})}),
    _row("expand_copy", lambda a, size: np.broadcast_to(a, [n if n != -1 else m for n, m in
                                                             zip(size, (1,) * (len(size) - a.ndim) + a.shape)]),
         {"row": ((1, 3), ((2, 3),), {}), "new_dim": ((3,), ((2, -1),), {})},
         check_zero_size=False),          # (expanding a size-0 dim to 2 is an error)
    _row("t_copy", lambda a: a.T, {"matrix": ((2, 3), (), {}), "vector": ((3,), (), {})}),
    _row("transpose_copy", lambda a, d0, d1: np.swapaxes(a, d0, d1),
         {"3d": ((2, 3, 4), (0, 2), {}), "neg": ((2, 3), (-1, 0), {})}),
    _row("unsqueeze_copy", lambda a, dim: np.expand_dims(a, dim),
         {"front": ((2, 3), (0,), {}), "back": ((2, 3), (-1,), {})}),
    _row("squeeze_copy", _squeeze_ref,
         {"all": ((2, 1, 3, 1), (), {}), "dim": ((2, 1, 3), (1,), {})}, check_zero_size=False),
    _row("select_copy", lambda a, dim, index: np.take(a, index, axis=dim),
         {"dim1": ((2, 3), (1, 2), {}), "neg": ((3, 2), (0, -1), {})}, check_zero_size=False),
    _row("slice_copy", _slice_ref,
         {"step": ((6, 2), (0, 1, None, 2), {}), "neg_start": ((3, 5), (1, -3), {}),
          "clamped": ((4,), (0, 1, 100), {})}, error_inputs=_slice_errors),
    _row("diagonal_copy", _diag_ref,
         {"square": ((3, 3), (), {}), "offset": ((3, 4), (1,), {}), "3d": ((2, 3, 3), (0, 1, 2), {})}),
    _row("as_strided_copy", lambda a, size, stride, off=0: np.lib.stride_tricks.as_strided(
             a.ravel()[off:], size, [s * a.itemsize for s in stride]),
         {"window": ((6,), ((2, 3), (1, 1)), {}), "offset": ((6,), ((2, 2), (2, 1), 1), {})},
         check_noncontiguous=False, check_zero_size=False),   # (geometry is absolute)
    _row("unfold_copy", _unfold_ref,
         {"step2": ((7,), (0, 3, 2), {}), "dim1": ((2, 5), (1, 2, 1), {})}, error_inputs=_unfold_errors,
         check_zero_size=False),
    OpInfo("unfold", lambda a, *args: a.unfold(*args), _unfold_ref, dtypes=DTYPES,
           sample_inputs=_samples({"step2": ((7,), (0, 3, 2), {}), "dim0": ((4, 3), (0, 2, 1), {}),
                                   "scalar": ((), (0, 1, 1), {})}),
           torch_name="Tensor.unfold", error_inputs=_unfold_errors, check_zero_size=False),
    _row("narrow_copy", lambda a, dim, start, length: np.take(a, range(start, start + length), axis=dim),
         {"dim0": ((5, 2), (0, 1, 3), {}), "dim1": ((2, 4), (1, 2, 2), {})}, method="narrow_copy",
         check_zero_size=False),
    _row("alias_copy", lambda a: a.copy(), {"matrix": ((2, 3), (), {})}),
    _row("split_copy", _split_ref, {"even": ((6, 2), (2,), {}), "rest": ((5,), (2,), {})}),
    _row("split_with_sizes", _split_ref, {"dim0": ((6, 2), ([1, 5],), {}), "dim1": ((2, 5), ([2, 3], 1), {})},
         method="split_with_sizes", error_inputs=_split_sizes_errors, check_zero_size=False),
    _row("split_with_sizes_copy", _split_ref, {"dim0": ((6,), ([2, 4],), {})}, check_zero_size=False),
    _row("unsafe_split", _split_ref, {"even": ((4, 2), (2,), {})}, method="unsafe_split"),
    _row("unsafe_chunk", lambda a, chunks, dim=0: tuple(np.array_split(a, chunks, axis=dim)),
         {"even": ((4, 3), (2,), {}), "dim1": ((2, 4), (2, 1), {})}, method="unsafe_chunk",
         check_zero_size=False),
    _row("unbind_copy", lambda a, dim=0: tuple(np.moveaxis(a, dim, 0)),
         {"dim0": ((3, 2), (), {}), "dim1": ((2, 3), (1,), {})}, check_zero_size=False),
    _row("detach_copy", lambda a: a.copy(), {"matrix": ((2, 3), (), {})}, supports_autograd=False),
    OpInfo("rsub", cygrad.rsub, lambda a, b, alpha=1: b - alpha * a,
           dtypes=(cygrad.uint8, cygrad.int64, cygrad.float32, cygrad.float64, cygrad.bfloat16),
           sample_inputs=lambda op_info, dtype, rng: binary_samples(op_info, dtype, rng, scalars=False)),
    OpInfo("fill", cygrad.fill, lambda a, value: np.full_like(a, value), dtypes=ALL,
           sample_inputs=_samples({"one": ((2, 3), (1,), {}), "zero": ((4,), (0,), {})})),
]
