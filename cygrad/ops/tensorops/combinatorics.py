"""Index generators and products: ``cartesian_prod``, ``combinations``,
``tril_indices``, ``triu_indices``.  The products select from their inputs with
differentiable indexing; the index generators build int64 tensors.
"""
import itertools

from ..._core.dtype import int64
from ..creation import tensor as _tensor
from ..shape import stack

__all__ = ["cartesian_prod", "combinations", "tril_indices", "triu_indices"]


def cartesian_prod(*tensors):
    """Every combination of one element of each 1-D tensor, as rows of a
    ``(prod of sizes, len(tensors))`` tensor (a single tensor is returned as is), as
    ``torch.cartesian_prod``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cartesian_prod(cygrad.tensor([1, 2]), cygrad.tensor([3, 4])).tolist()
    [[1, 3], [1, 4], [2, 3], [2, 4]]
    """
    for t in tensors:
        if t.dim() != 1:
            raise RuntimeError(f"Expect a 1D vector, but got shape {list(t.shape)}")
    if len(tensors) == 1:
        return tensors[0]
    rows = list(itertools.product(*(range(t.shape[0]) for t in tensors)))
    cols = []
    for j, t in enumerate(tensors):
        idx = _tensor([r[j] for r in rows], dtype=int64, device=t.device)
        cols.append(t.index_select(0, idx))
    return stack(cols, 1)


def combinations(input, r=2, with_replacement=False):
    """The length-``r`` combinations of a 1-D tensor's elements (as
    ``itertools.combinations``, or ``combinations_with_replacement``), as
    ``torch.combinations``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.combinations(cygrad.tensor([1, 2, 3])).tolist()
    [[1, 2], [1, 3], [2, 3]]
    """
    if input.dim() != 1:
        raise RuntimeError(f"Expect a 1D vector, but got shape {list(input.shape)}")
    if r < 0:
        raise RuntimeError(f"Expect a non-negative number, but got {r}")
    if r == 0:
        return input.new_zeros((0,))
    gen = itertools.combinations_with_replacement if with_replacement else \
        itertools.combinations
    rows = list(gen(range(input.shape[0]), r))
    if not rows:
        return input.new_zeros((0, r))
    cols = [input.index_select(0, _tensor([c[j] for c in rows], dtype=int64,
                                          device=input.device)) for j in range(r)]
    return stack(cols, 1)


def _tri_indices(row, col, offset, lower, dtype, device):
    if row < 0 or col < 0:
        raise RuntimeError(f"row must be non-negative, got{row}" if row < 0 else
                           f"col must be non-negative, got{col}")
    pairs = [(i, j) for i in range(row) for j in range(col)
             if ((j - i <= offset) if lower else (j - i >= offset))]
    dt = int64 if dtype is None else dtype
    if not pairs:
        return _tensor([[], []], dtype=dt, device=device)
    return _tensor([[p[0] for p in pairs], [p[1] for p in pairs]], dtype=dt, device=device)


def tril_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the lower triangle (on and below diagonal
    ``offset``) of a ``row x col`` matrix, in row-major order, as ``torch.tril_indices``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tril_indices(3, 3).tolist()
    [[0, 1, 1, 2, 2, 2], [0, 0, 1, 0, 1, 2]]
    """
    return _tri_indices(row, col, offset, True, dtype, device)


def triu_indices(row, col, offset=0, *, dtype=None, device=None, layout=None):
    """The ``(2, N)`` coordinates of the upper triangle (on and above diagonal
    ``offset``) of a ``row x col`` matrix, as ``torch.triu_indices``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.triu_indices(3, 3, 1).tolist()
    [[0, 0, 1], [1, 2, 2]]
    """
    return _tri_indices(row, col, offset, False, dtype, device)
