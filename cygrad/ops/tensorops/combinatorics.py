"""Index generators and products: ``cartesian_prod``, ``combinations``,
``tril_indices``, ``triu_indices``.  The products select from their inputs with
differentiable indexing; the index generators build int64 tensors.
"""
import itertools

from ..._core.dtype import int64
from ..creation import tensor as _tensor
from ..shape import stack

__all__ = ["cartesian_prod", "combinations"]  # (tril_indices/triu_indices: ops/creation_extras.py)


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
