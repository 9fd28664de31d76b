"""CPU kernels of the shape family (``cygrad/ops/shape``): joining, gathering
slices along a dim, the index lists of ``repeat_interleave`` and the copying pad
modes, and zeroing outside a triangle.

The ops have checked every argument; these kernels only compute.  NumPy works on
zero-copy views of the tensors' memory (``_ndarray``).

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> kernel("repeat_index", "cpu")(cygrad.tensor([2, 0, 1])).tolist()
[0, 0, 2]
"""
import numpy as np

from .. import fastpath as _fastpath
from .. import tensor as _C
from ..dispatch import register


@register("cat_small", "cpu")
def cat_small(tensors, dim):
    """A new tensor of the contiguous CPU ``tensors`` (one dtype and rank) joined
    along ``dim``, by the core's C loop for small inputs; None where that does not
    apply (the caller then allocates and uses ``cat``).

    Examples
    --------
    >>> import cygrad
    >>> cat_small([cygrad.ones(1), cygrad.zeros(2)], 0).tolist()
    [1.0, 0.0, 0.0]
    """
    return _fastpath.cat(tensors, dim)


@register("cat", "cpu")
def cat(out, tensors, dim):
    """Write the CPU tensors ``tensors`` (all of ``out``'s dtype) one after the other
    along ``dim`` into ``out``: one NumPy call, no temporary.

    Examples
    --------
    >>> import cygrad
    >>> out = cygrad.empty(3)
    >>> _ = cat(out, [cygrad.ones(1), cygrad.zeros(2)], 0)
    >>> out.tolist()
    [1.0, 0.0, 0.0]
    """
    np.concatenate([_C._ndarray(x) for x in tensors], axis=dim, out=_C._ndarray(out))
    return out


@register("gather_slices", "cpu")
def gather_slices(input, dim, index):
    """A new tensor made of ``input``'s slices along ``dim`` at the positions of the
    1-D int64 tensor ``index`` (valid, non-negative positions).

    Examples
    --------
    >>> import cygrad
    >>> gather_slices(cygrad.tensor([[1, 2], [3, 4]]), 1, cygrad.tensor([1, 1, 0])).tolist()
    [[2, 2, 1], [4, 4, 3]]
    """
    shape = list(input.shape)
    shape[dim] = index.shape[0]
    res = _C._empty(tuple(shape), input.dtype, input.device)
    if res.numel():
        np.take(_C._ndarray(input), _C._ndarray(index), axis=dim, out=_C._ndarray(res))
    return res


@register("repeat_index", "cpu")
def repeat_index(counts):
    """``0..n-1`` with ``i`` repeated ``counts[i]`` times, for a 1-D int64 tensor of
    non-negative counts whose sum fits in memory.

    Examples
    --------
    >>> import cygrad
    >>> repeat_index(cygrad.tensor([1, 3])).tolist()
    [0, 1, 1, 1]
    """
    counts = np.asarray(_C._ndarray(counts), dtype=np.int64)
    return _C.from_numpy(np.repeat(np.arange(counts.size, dtype=np.int64), counts))


@register("pad_source", "cpu")
def pad_source(mode, size, before, after):
    """For each position along a dim of ``size`` padded by ``before``/``after``
    elements in ``mode`` (``reflect``, ``replicate`` or ``circular``), the input
    position it copies, as a 1-D int64 tensor.  Negative amounts crop: ``reflect``
    mirrors the whole dim and then crops, the others crop first (the op has checked
    that something is left).

    Examples
    --------
    >>> pad_source("reflect", 3, 2, 1).tolist()
    [2, 1, 0, 1, 2, 1]
    >>> pad_source("circular", 3, 1, 1).tolist()
    [2, 0, 1, 2, 0]
    """
    if mode == "reflect":            # mirror around the first and last element
        pos = np.abs(np.arange(-before, size + after, dtype=np.int64))
        return _C.from_numpy(np.where(pos >= size, 2 * (size - 1) - pos, pos))
    start, stop = max(-before, 0), size - max(-after, 0)
    pos = np.arange(-max(before, 0), stop - start + max(after, 0), dtype=np.int64)
    if mode == "replicate":          # repeat the edge element
        return _C.from_numpy(start + np.clip(pos, 0, stop - start - 1))
    return _C.from_numpy(start + pos % (stop - start))   # circular: wrap around


@register("triangle_zero", "cpu")
def triangle_zero(t, diagonal, lower):
    """Zero, in place, the elements of ``t`` (over its last two dims) outside the
    lower triangle ``j <= i + diagonal`` (``lower``) or the upper one
    ``j >= i + diagonal``.

    Examples
    --------
    >>> import cygrad
    >>> t = cygrad.ones(2, 2, dtype=cygrad.int64)
    >>> triangle_zero(t, 0, True).tolist()
    [[1, 0], [1, 1]]
    """
    if t.numel():
        n, m = t.shape[-2], t.shape[-1]
        below = np.tri(n, m, k=diagonal if lower else diagonal - 1, dtype=bool)
        view = _C._ndarray(t)
        np.copyto(view, np.zeros((), view.dtype), where=below if not lower else ~below)
    return t
