"""Set functions: the standard's ``unique_all``, ``unique_counts``,
``unique_inverse``, ``unique_values`` (named tuples, sorted values, NaNs kept
distinct as the standard asks), NumPy's ``unique`` and ``isin``.

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.unique_counts(cnp.asarray([3, 1, 3]))
UniqueCountsResult(values=tensor([1, 3]), counts=tensor([1, 2]))
"""
from collections import namedtuple

import cygrad
from . import _dtypes as D
from ._helpers import tensor, operands

__all__ = ["unique_all", "unique_counts", "unique_inverse", "unique_values", "unique", "isin"]

UniqueAllResult = namedtuple("UniqueAllResult", ["values", "indices", "inverse_indices", "counts"])
UniqueCountsResult = namedtuple("UniqueCountsResult", ["values", "counts"])
UniqueInverseResult = namedtuple("UniqueInverseResult", ["values", "inverse_indices"])


def _unique(x):
    x = tensor(x)
    values, inverse, counts = cygrad.unique(x.reshape(-1), sorted=True, return_inverse=True,
                                            return_counts=True)
    return x, values, inverse, counts


def _first_indices(inverse, k):
    n = inverse.numel()
    positions = cygrad.arange(n, dtype=D.int64)
    start = cygrad.full((k,), n, dtype=D.int64)
    return cygrad.scatter_reduce(start, 0, inverse, positions, reduce="amin", include_self=True)


def unique_all(x, /):
    """Sorted unique values, the index of each one's first occurrence (in the flattened
    array), the inverse indices (shaped like ``x``) and the counts.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> r = cnp.unique_all(cnp.asarray([[2, 1], [2, 5]]))
    >>> r.values.tolist(), r.indices.tolist(), r.inverse_indices.tolist(), r.counts.tolist()
    ([1, 2, 5], [1, 0, 3], [[1, 0], [1, 2]], [1, 2, 1])
    """
    x, values, inverse, counts = _unique(x)
    return UniqueAllResult(values, _first_indices(inverse, values.numel()),
                           inverse.reshape(x.shape), counts)


def unique_counts(x, /):
    """Sorted unique values and how often each occurs.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.unique_counts(cnp.asarray([1, 1, 2])).counts.tolist()
    [2, 1]
    """
    _, values, _, counts = _unique(x)
    return UniqueCountsResult(values, counts)


def unique_inverse(x, /):
    """Sorted unique values and, shaped like ``x``, where each element went.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.unique_inverse(cnp.asarray([5, 3, 5])).inverse_indices.tolist()
    [1, 0, 1]
    """
    x, values, inverse, _ = _unique(x)
    return UniqueInverseResult(values, inverse.reshape(x.shape))


def unique_values(x, /):
    """Sorted unique values.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.unique_values(cnp.asarray([3, 1, 3])).tolist()
    [1, 3]
    """
    return _unique(x)[1]


def unique(ar, return_index=False, return_inverse=False, return_counts=False):
    """NumPy's ``unique`` (flattened; ``return_inverse`` shaped like ``ar``, as NumPy 2).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> vals, idx = cnp.unique(cnp.asarray([4, 2, 4]), return_index=True)
    >>> vals.tolist(), idx.tolist()
    ([2, 4], [1, 0])
    """
    x, values, inverse, counts = _unique(ar)
    extra = []
    if return_index:
        extra.append(_first_indices(inverse, values.numel()))
    if return_inverse:
        extra.append(inverse.reshape(x.shape))
    if return_counts:
        extra.append(counts)
    return (values, *extra) if extra else values


def isin(element, test_elements, invert=False):
    """Whether each element of ``element`` is in ``test_elements``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.isin(cnp.asarray([1, 2, 3]), [2, 3]).tolist()
    [False, True, True]
    """
    e, t = operands(tensor(element), tensor(test_elements))
    found = (e.reshape(-1, 1) == t.reshape(1, -1)).any(dim=1).reshape(e.shape)
    return ~found if invert else found
