"""Manipulation functions: joining, splitting, reshaping, reordering and padding.

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.concat([cnp.asarray([1, 2]), cnp.asarray([3.0])]).tolist()
[1.0, 2.0, 3.0]
>>> [t.tolist() for t in cnp.unstack(cnp.asarray([[1, 2], [3, 4]]), axis=1)]
[[1, 3], [2, 4]]
"""
import operator

import numpy as _np

import cygrad
from cygrad._core import fastpath as _fast
from . import _dtypes as D
from ._helpers import tensor, normalize_axis, axes_arg

__all__ = ["broadcast_arrays", "broadcast_to", "concat", "concatenate", "expand_dims", "flip",
           "moveaxis", "permute_dims", "transpose", "swapaxes", "repeat", "reshape", "ravel", "roll",
           "squeeze", "stack", "tile", "unstack", "split", "array_split", "hstack", "vstack",
           "column_stack", "atleast_1d", "atleast_2d", "pad", "diff", "matrix_transpose", "append"]


def _same_dtype(arrays):
    arrays = [tensor(a) for a in arrays]
    if not arrays:
        raise ValueError("need at least one array")
    first = arrays[0].dtype
    for a in arrays:
        if a.dtype is not first:
            break
    else:
        return arrays       # the common case: nothing to promote
    dt = D.result_type(*arrays)
    return [a if a.dtype is dt else a.to(dt) for a in arrays]


def broadcast_arrays(*arrays):
    """Broadcast arrays against each other; a list of (view) arrays.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> [a.shape for a in cnp.broadcast_arrays(cnp.ones((2, 1)), cnp.ones(3))]
    [cygrad.Size([2, 3]), cygrad.Size([2, 3])]
    """
    return list(cygrad.broadcast_tensors(*[tensor(a) for a in arrays]))


def broadcast_to(x, /, shape):
    """A broadcast (view) of ``x`` with ``shape``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.broadcast_to(cnp.asarray([1, 2]), (2, 2)).tolist()
    [[1, 2], [1, 2]]
    """
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    return cygrad.broadcast_to(tensor(x), shape)


def concat(arrays, /, *, axis=0):
    """Join arrays along ``axis`` (``None``: flatten first), promoting dtypes.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.concat([cnp.ones((1, 2)), cnp.zeros((1, 2))], axis=None).tolist()
    [1.0, 1.0, 0.0, 0.0]
    """
    res = _fast.cat(arrays, axis)
    if res is not None:
        return res
    arrays = _same_dtype(arrays)
    if axis is None:
        return cygrad.cat([a.reshape(-1) for a in arrays])
    if arrays[0].dim() == 0:
        raise ValueError("zero-dimensional arrays cannot be concatenated")
    return cygrad.cat(arrays, dim=normalize_axis(axis, arrays[0].dim()))


def concatenate(arrays, axis=0, out=None, *, dtype=None):
    """NumPy's name for ``concat``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.concatenate((cnp.asarray([1]), cnp.asarray([2]))).tolist()
    [1, 2]
    """
    if dtype is None and out is None:
        res = _fast.cat(arrays, axis)
        if res is not None:
            return res
    res = concat(arrays, axis=axis)
    if dtype is not None:
        res = res.to(D.as_dtype(dtype))
    if out is not None:
        out.copy_(res)
        return out
    return res


def append(arr, values, axis=None):
    """``values`` appended to ``arr`` (flattened when ``axis`` is None).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.append(cnp.asarray([1, 2]), [3]).tolist()
    [1, 2, 3]
    """
    return concat([arr, values], axis=axis)


def stack(arrays, /, *, axis=0):
    """Join arrays along a new ``axis``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.stack([cnp.asarray([1, 2]), cnp.asarray([3, 4])], axis=1).tolist()
    [[1, 3], [2, 4]]
    """
    arrays = _same_dtype(arrays)
    return cygrad.stack(arrays, dim=normalize_axis(axis, arrays[0].dim() + 1))


def unstack(x, /, *, axis=0):
    """Split ``x`` along ``axis`` into a tuple of arrays (views).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> len(cnp.unstack(cnp.ones((3, 2))))
    3
    """
    x = tensor(x)
    return tuple(cygrad.unbind(x, dim=normalize_axis(axis, x.dim())))


def expand_dims(x, /, axis=0):
    """Insert size-1 axes at ``axis`` (an int, or NumPy's tuple).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.expand_dims(cnp.ones(3), axis=-1).shape
    cygrad.Size([3, 1])
    """
    x = tensor(x)
    axes = axis if isinstance(axis, (tuple, list)) else (axis,)
    ndim = x.dim() + len(axes)
    axes = sorted(normalize_axis(a, ndim) for a in axes)
    if len(set(axes)) != len(axes):
        raise ValueError("repeated axis")
    for a in axes:
        x = x.unsqueeze(a)
    return x


def squeeze(x, /, axis=None):
    """Remove size-1 axes; naming an axis whose size is not 1 raises ``ValueError``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.squeeze(cnp.ones((1, 3, 1)), axis=0).shape
    cygrad.Size([3, 1])
    """
    x = tensor(x)
    if axis is None:
        return x.squeeze()
    axes = axes_arg(axis, x.dim())
    for a in axes:
        if x.shape[a] != 1:
            raise ValueError("cannot select an axis to squeeze out which has size not equal to one")
    shape = [s for i, s in enumerate(x.shape) if i not in axes]
    return x.reshape(shape)


def flip(x, /, *, axis=None):
    """Reverse the order of elements along ``axis`` (None: all axes).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.flip(cnp.asarray([[1, 2], [3, 4]]), axis=1).tolist()
    [[2, 1], [4, 3]]
    """
    x = tensor(x)
    axes = axes_arg(axis, x.dim())
    return cygrad.flip(x, dims=tuple(range(x.dim())) if axes is None else axes)


def moveaxis(x, source, destination, /):
    """Move axes to new positions; the others keep their order.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.moveaxis(cnp.ones((2, 3, 4)), 0, -1).shape
    cygrad.Size([3, 4, 2])
    """
    x = tensor(x)
    src = axes_arg(source, x.dim())
    dst = axes_arg(destination, x.dim())
    if len(src) != len(dst):
        raise ValueError("`source` and `destination` arguments must have the same number of elements")
    return cygrad.movedim(x, src, dst)


def permute_dims(x, /, axes):
    """Permute the axes of ``x`` (a view).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.permute_dims(cnp.ones((2, 3, 4)), (2, 0, 1)).shape
    cygrad.Size([4, 2, 3])
    """
    x = tensor(x)
    return x.permute(*[normalize_axis(a, x.dim()) for a in axes])


def transpose(a, axes=None):
    """NumPy's ``transpose``: reverse the axes, or permute them by ``axes``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.transpose(cnp.ones((2, 3))).shape
    cygrad.Size([3, 2])
    """
    a = tensor(a)
    return permute_dims(a, tuple(range(a.dim()))[::-1] if axes is None else axes)


def matrix_transpose(x, /):
    """Transpose the last two axes (a view).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.matrix_transpose(cnp.ones((5, 2, 3))).shape
    cygrad.Size([5, 3, 2])
    """
    x = tensor(x)
    if x.dim() < 2:
        raise ValueError("matrix_transpose needs an array with at least 2 dimensions")
    return x.transpose(-1, -2)


def swapaxes(a, axis1, axis2):
    """Interchange two axes (a view).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.swapaxes(cnp.ones((2, 3, 4)), 0, 2).shape
    cygrad.Size([4, 3, 2])
    """
    a = tensor(a)
    return a.transpose(normalize_axis(axis1, a.dim()), normalize_axis(axis2, a.dim()))


def reshape(x, /, shape, *, copy=None):
    """A new shape for the same data; a view when possible. ``copy=False`` raises
    ``ValueError`` where a copy would be needed.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.reshape(cnp.arange(6), (2, -1)).tolist()
    [[0, 1, 2], [3, 4, 5]]
    """
    x = tensor(x)
    shape = (shape,) if isinstance(shape, int) else tuple(shape)
    if copy is False:
        try:
            return x.view(*shape)
        except RuntimeError:
            raise ValueError("reshape(copy=False) would have to copy this array") from None
    out = x.reshape(shape)
    return out.clone() if copy else out


def ravel(a):
    """The flattened array (a view when possible).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.ravel(cnp.ones((2, 2))).shape
    cygrad.Size([4])
    """
    return tensor(a).reshape(-1)


def roll(x, /, shift, *, axis=None):
    """Roll elements along ``axis`` (None: over the flattened array).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.roll(cnp.asarray([1, 2, 3]), 1).tolist()
    [3, 1, 2]
    """
    x = tensor(x)
    if axis is None:
        return cygrad.roll(x.reshape(-1), shift).reshape(x.shape)
    axes = axes_arg(axis, x.dim())
    shifts = tuple(shift) if isinstance(shift, (tuple, list)) else (shift,) * len(axes)
    return cygrad.roll(x, shifts, axes)


def repeat(x, repeats, /, *, axis=None):
    """Repeat each element ``repeats`` times (an int or an int array) along ``axis``
    (None: over the flattened array).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.repeat(cnp.asarray([1, 2]), 2).tolist()
    [1, 1, 2, 2]
    """
    x = tensor(x)
    if axis is None:
        x, axis = x.reshape(-1), 0
    reps = repeats if isinstance(repeats, int) else tensor(repeats).to(D.int64)
    return cygrad.repeat_interleave(x, reps, dim=normalize_axis(axis, x.dim()))


def tile(x, repetitions, /):
    """Repeat the whole array ``repetitions`` times per axis.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.tile(cnp.asarray([1, 2]), 2).tolist()
    [1, 2, 1, 2]
    """
    reps = (repetitions,) if isinstance(repetitions, int) else tuple(repetitions)
    return cygrad.tile(tensor(x), reps)


def array_split(ary, indices_or_sections, axis=0):
    """Split into sub-arrays; ``N`` sections need not divide the axis (NumPy's rule:
    the first ``size % N`` parts get one extra element).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> [p.tolist() for p in cnp.array_split(cnp.arange(5), 3)]
    [[0, 1], [2, 3], [4]]
    """
    ary = tensor(ary)
    axis = normalize_axis(axis, ary.dim())
    if isinstance(indices_or_sections, int):
        if indices_or_sections <= 0:
            raise ValueError("number sections must be larger than 0.")
        n, k = ary.shape[axis], indices_or_sections
        each, extra = divmod(n, k)
        sizes = [each + 1] * extra + [each] * (k - extra)
        bounds = _np.cumsum([0] + sizes)
    else:
        bounds = [0] + [min(max(operator.index(i), 0), ary.shape[axis])
                        for i in indices_or_sections] + [ary.shape[axis]]
    return [ary.narrow(axis, int(lo), max(int(hi) - int(lo), 0))
            for lo, hi in zip(bounds[:-1], bounds[1:])]


def split(ary, indices_or_sections, axis=0):
    """Split into equal sections (``ValueError`` if they do not divide) or at indices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> [p.tolist() for p in cnp.split(cnp.arange(4), [1])]
    [[0], [1, 2, 3]]
    """
    ary = tensor(ary)
    if isinstance(indices_or_sections, int):
        if ary.shape[normalize_axis(axis, ary.dim())] % indices_or_sections:
            raise ValueError("array split does not result in an equal division")
    return array_split(ary, indices_or_sections, axis)


def atleast_1d(*arys):
    """Arrays with at least one dimension.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.atleast_1d(cnp.asarray(3.0)).shape
    cygrad.Size([1])
    """
    res = [tensor(a) if tensor(a).dim() >= 1 else tensor(a).reshape(1) for a in arys]
    return res[0] if len(res) == 1 else res


def atleast_2d(*arys):
    """Arrays with at least two dimensions (1-D ones become rows).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.atleast_2d(cnp.ones(3)).shape
    cygrad.Size([1, 3])
    """
    res = []
    for a in arys:
        a = tensor(a)
        res.append(a.reshape((1,) * (2 - a.dim()) + tuple(a.shape)) if a.dim() < 2 else a)
    return res[0] if len(res) == 1 else res


def hstack(tup):
    """Stack horizontally (along axis 1, or 0 for 1-D arrays).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.hstack([cnp.asarray([1]), cnp.asarray([2, 3])]).tolist()
    [1, 2, 3]
    """
    arrs = [atleast_1d(a) for a in tup]
    return concat(arrs, axis=0 if arrs[0].dim() == 1 else 1)


def vstack(tup):
    """Stack vertically (rows).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.vstack([cnp.asarray([1, 2]), cnp.asarray([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """
    return concat([atleast_2d(a) for a in tup], axis=0)


def column_stack(tup):
    """Stack 1-D arrays as columns.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.column_stack([cnp.asarray([1, 2]), cnp.asarray([3, 4])]).tolist()
    [[1, 3], [2, 4]]
    """
    cols = []
    for a in tup:
        a = tensor(a)
        cols.append(a.reshape(-1, 1) if a.dim() < 2 else a)
    return concat(cols, axis=1)


def _pad_index(n, before, after, mode):
    i = _np.arange(-before, n + after)
    if mode == "edge":
        return _np.clip(i, 0, n - 1)
    if mode == "wrap":
        return i % n
    if mode in ("reflect", "symmetric"):
        period = 2 * n - 2 if mode == "reflect" else 2 * n
        if period == 0:
            return _np.zeros_like(i)
        j = i % period
        return _np.where(j < n, j, period - j - (0 if mode == "reflect" else 1))
    raise ValueError(f"mode {mode!r} is not supported")


def pad(array, pad_width, mode="constant", *, constant_values=0):
    """Pad with ``mode`` ``"constant"``, ``"edge"``, ``"reflect"``, ``"symmetric"`` or
    ``"wrap"``; ``pad_width`` as NumPy (int, ``(before, after)`` or one pair per axis).
    Differentiable: the padding is made of the input's own elements or constants.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.pad(cnp.asarray([1, 2]), (1, 2)).tolist()
    [0, 1, 2, 0, 0]
    >>> cnp.pad(cnp.asarray([1, 2, 3]), 2, mode="reflect").tolist()
    [3, 2, 1, 2, 3, 2, 1]
    """
    x = tensor(array)
    widths = _np.broadcast_to(_np.asarray(pad_width, dtype=_np.int64), (x.dim(), 2))
    if (widths < 0).any():
        raise ValueError("index can't contain negative values")
    for axis, (before, after) in enumerate(widths.tolist()):
        if before == 0 and after == 0:
            continue
        if mode == "constant":
            cv = _np.broadcast_to(_np.asarray(constant_values), (x.dim(), 2))[axis]
            parts = []
            for width, value in ((before, cv[0]), (None, None), (after, cv[1])):
                if width is None:
                    parts.append(x)
                elif width:
                    shape = list(x.shape)
                    shape[axis] = width
                    parts.append(cygrad.full(shape, value.item(), dtype=x.dtype))
            x = cygrad.cat(parts, dim=axis)
        else:
            idx = _pad_index(x.shape[axis], before, after, mode)
            x = cygrad.index_select(x, axis, cygrad.from_numpy(_np.ascontiguousarray(idx)))
    return x


def diff(x, /, *, axis=-1, n=1, prepend=None, append=None):
    """The ``n``-th discrete difference along ``axis``, optionally with values prepended
    or appended first.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.diff(cnp.asarray([1, 4, 9, 16]), n=2).tolist()
    [2, 2]
    """
    x = tensor(x)
    axis = normalize_axis(axis, x.dim())
    def edge(extra):
        e = tensor(extra)
        if e.dim() == 0:
            shape = list(x.shape)
            shape[axis] = 1
            e = cygrad.broadcast_to(e, shape)
        return e

    parts = ([edge(prepend)] if prepend is not None else []) + [x] + (
        [edge(append)] if append is not None else [])
    if len(parts) > 1:
        x = concat(parts, axis=axis)
    for _ in range(n):
        m = x.shape[axis]
        hi, lo = x.narrow(axis, 1, max(m - 1, 0)), x.narrow(axis, 0, max(m - 1, 0))
        x = cygrad.logical_xor(hi, lo) if x.dtype is D.bool else hi - lo
    return x
