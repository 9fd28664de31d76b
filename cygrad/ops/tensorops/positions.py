"""Positions of elements: ``nonzero_static`` (``nonzero`` padded or cut to a fixed
number of rows) and ``unravel_index`` (flat indices to coordinates); also the
top-level ``index_put_``.  None of them is differentiable (they return indices),
except ``index_put_``, which is ``Tensor.index_put_``.
"""
from ..._core.dtype import int64
from ..._tensor import tensor_method
from ..indexing import nonzero
from ..indexing.advanced import index_put_
from ..reduction._common import _check_tensor
from ..shape import cat

__all__ = ["nonzero_static", "unravel_index", "index_put_"]


@tensor_method
def nonzero_static(input, *, size, fill_value=-1):
    """The indices of the nonzero elements, one row each (as :func:`cygrad.nonzero`),
    cut to ``size`` rows or padded to it with rows of ``fill_value``, as
    ``torch.nonzero_static``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nonzero_static(cygrad.tensor([0, 3, 5]), size=3).tolist()
    [[1], [2], [-1]]
    """
    _check_tensor(input, "nonzero_static")
    if not isinstance(size, int) or isinstance(size, bool):
        raise TypeError(f"nonzero_static(): argument 'size' must be int, not "
                        f"{type(size).__name__}")
    if size < 0:
        raise RuntimeError(f"nonzero_static: 'size' must be an non-negative integer, but got "
                           f"size: {size}")
    nz = nonzero(input)
    if nz.shape[0] >= size:
        return nz[:size].contiguous()
    from ..creation import full
    pad = full((size - nz.shape[0], nz.shape[1]), fill_value, dtype=int64, device=input.device)
    return cat([nz, pad], 0)


def unravel_index(indices, shape):
    """The coordinates, in a tensor of ``shape`` (row-major), of each flat index in
    ``indices``: a tuple of one int64 tensor per dim, each shaped like ``indices``,
    as ``torch.unravel_index`` (which reduces an index modulo the size, so ``-1`` is
    the last element).

    Examples
    --------
    >>> import cygrad
    >>> rows, cols = cygrad.unravel_index(cygrad.tensor([4, 5]), (2, 3))
    >>> rows.tolist(), cols.tolist()
    ([1, 1], [1, 2])
    """
    if not hasattr(indices, "dtype"):
        raise AttributeError(f"'{type(indices).__name__}' object has no attribute 'is_complex'")
    if indices.dtype.is_floating_point or indices.is_complex() or str(indices.dtype) == \
            "cygrad.bool":
        raise TypeError(f"expected 'indices' to be integer dtype, but got {indices.dtype}")
    dims = (shape,) if isinstance(shape, int) else tuple(shape)
    if any(not isinstance(n, int) for n in dims):
        raise TypeError("expected 'shape' to be int or sequence of ints")
    if any(n < 0 for n in dims):
        raise ValueError("'shape' cannot have negative values, but got "
                         f"{tuple(dims)}")
    rest = indices.to(int64)
    coords = []
    for n in reversed(dims):
        if n == 0:
            coords.append(rest * 0)
            continue
        coords.append(rest.remainder(n))
        rest = rest.div(n, rounding_mode="floor")
    return tuple(reversed(coords))
