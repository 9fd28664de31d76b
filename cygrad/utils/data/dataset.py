"""Datasets: the two protocols a DataLoader reads from, and ways to combine them.

A *map-style* dataset (:class:`Dataset`) has ``__getitem__(index)`` and ``__len__``;
the loader asks for indices chosen by a sampler. An *iterable-style* dataset
(:class:`IterableDataset`) has ``__iter__``; the loader just reads the stream, and with
several workers each worker runs its own copy (use :func:`get_worker_info` to give each
worker a different part).

A dataset may also define ``__getitems__(indices)`` returning a list of samples: the
loader then asks for a whole batch in one call.
"""
import bisect
import itertools
import math
import warnings

from ... import random as _random

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split"]


class Dataset:
    """A map-style dataset: subclasses define ``__getitem__`` (and usually ``__len__``).

    ``a + b`` is ``ConcatDataset([a, b])``.

    Examples
    --------
    >>> from cygrad.utils.data import Dataset
    >>> class Squares(Dataset):
    ...     def __len__(self):
    ...         return 4
    ...     def __getitem__(self, i):
    ...         return i * i
    >>> ds = Squares() + Squares()
    >>> len(ds), ds[5]
    (8, 1)
    """

    def __getitem__(self, index):
        raise NotImplementedError("Subclasses of Dataset should implement __getitem__.")

    def __add__(self, other):
        return ConcatDataset([self, other])


class IterableDataset(Dataset):
    """An iterable-style dataset: subclasses define ``__iter__``.

    With ``num_workers > 0`` every worker iterates its own copy; split the work in
    ``__iter__`` (or in ``worker_init_fn``) with :func:`get_worker_info`, or each
    sample comes out once per worker. ``a + b`` is ``ChainDataset([a, b])``.

    Examples
    --------
    >>> from cygrad.utils.data import IterableDataset, get_worker_info
    >>> class Range(IterableDataset):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         info = get_worker_info()
    ...         if info is None:               # in the main process: everything
    ...             return iter(range(self.n))
    ...         return iter(range(info.id, self.n, info.num_workers))
    >>> list(Range(3) + Range(2))
    [0, 1, 2, 0, 1]
    """

    def __iter__(self):
        raise NotImplementedError("Subclasses of IterableDataset should implement __iter__.")

    def __add__(self, other):
        return ChainDataset([self, other])


class TensorDataset(Dataset):
    """Samples are ``tuple(t[i] for t in tensors)``: tensors indexed along their first dim.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.data import TensorDataset
    >>> ds = TensorDataset(cygrad.arange(6).reshape(3, 2), cygrad.tensor([0, 1, 0]))
    >>> x, y = ds[1]
    >>> x.tolist(), y.item(), len(ds)
    ([2, 3], 1, 3)
    """

    def __init__(self, *tensors):
        if any(tensors[0].size(0) != t.size(0) for t in tensors):
            raise AssertionError("Size mismatch between tensors")
        self.tensors = tensors

    def __getitem__(self, index):
        return tuple(t[index] for t in self.tensors)

    def __len__(self):
        return self.tensors[0].size(0)


class StackDataset(Dataset):
    """Datasets of equal length side by side: ``StackDataset(a, b)[i] == (a[i], b[i])``
    and ``StackDataset(x=a, y=b)[i] == {"x": a[i], "y": b[i]}``.

    Examples
    --------
    >>> from cygrad.utils.data import StackDataset
    >>> StackDataset([1, 2], ["a", "b"])[1]
    (2, 'b')
    >>> StackDataset(num=[1, 2], name=["a", "b"])[0]
    {'num': 1, 'name': 'a'}
    """

    def __init__(self, *args, **kwargs):
        if args and kwargs:
            raise ValueError("Supported either ``tuple``- (via ``args``) or ``dict``- (via "
                             "``kwargs``) like input/output, but both types are given.")
        if not args and not kwargs:
            raise ValueError("At least one dataset should be passed")
        parts = list(args) if args else list(kwargs.values())
        self._length = len(parts[0])
        if any(len(d) != self._length for d in parts):
            raise ValueError("Size mismatch between datasets")
        self.datasets = args if args else kwargs

    def __getitem__(self, index):
        if isinstance(self.datasets, dict):
            return {k: d[index] for k, d in self.datasets.items()}
        return tuple(d[index] for d in self.datasets)

    def __getitems__(self, indices):
        def column(d):
            if callable(getattr(d, "__getitems__", None)):
                items = d.__getitems__(indices)
                if len(items) != len(indices):
                    raise ValueError("Nested dataset's output size mismatch. "
                                     f"Expected {len(indices)}, got {len(items)}")
                return items
            return [d[i] for i in indices]

        if isinstance(self.datasets, dict):
            cols = {k: column(d) for k, d in self.datasets.items()}
            return [{k: cols[k][j] for k in cols} for j in range(len(indices))]
        cols = [column(d) for d in self.datasets]
        return [tuple(c[j] for c in cols) for j in range(len(indices))]

    def __len__(self):
        return self._length


class ConcatDataset(Dataset):
    """Map-style datasets one after another.

    Examples
    --------
    >>> from cygrad.utils.data import ConcatDataset
    >>> ds = ConcatDataset([[1, 2], [3, 4, 5]])
    >>> len(ds), ds[2], ds[-1], ds.cumulative_sizes
    (5, 3, 5, [2, 5])
    """

    @staticmethod
    def cumsum(sequence):
        """Running totals of the lengths in ``sequence``."""
        return list(itertools.accumulate(len(d) for d in sequence))

    def __init__(self, datasets):
        self.datasets = list(datasets)
        if not self.datasets:
            raise AssertionError("datasets should not be an empty iterable")
        for d in self.datasets:
            if isinstance(d, IterableDataset):
                raise AssertionError("ConcatDataset does not support IterableDataset")
        self.cumulative_sizes = self.cumsum(self.datasets)

    def __len__(self):
        return self.cumulative_sizes[-1]

    def __getitem__(self, idx):
        if idx < 0:
            if -idx > len(self):
                raise ValueError("absolute value of index should not exceed dataset length")
            idx += len(self)
        which = bisect.bisect_right(self.cumulative_sizes, idx)
        start = self.cumulative_sizes[which - 1] if which else 0
        return self.datasets[which][idx - start]


class ChainDataset(IterableDataset):
    """Iterable datasets one after another, chained lazily.

    Examples
    --------
    >>> from cygrad.utils.data import ChainDataset, IterableDataset
    >>> class Stream(IterableDataset):
    ...     def __init__(self, items):
    ...         self.items = items
    ...     def __iter__(self):
    ...         return iter(self.items)
    ...     def __len__(self):
    ...         return len(self.items)
    >>> ds = ChainDataset([Stream("ab"), Stream("c")])
    >>> list(ds), len(ds)
    (['a', 'b', 'c'], 3)
    """

    def __init__(self, datasets):
        self.datasets = datasets

    def _checked(self):
        for d in self.datasets:
            if not isinstance(d, IterableDataset):
                raise AssertionError("ChainDataset only supports IterableDataset")
            yield d

    def __iter__(self):
        for d in self._checked():
            yield from d

    def __len__(self):
        return sum(len(d) for d in self._checked())


class Subset(Dataset):
    """The samples of ``dataset`` at ``indices``, in that order.

    Examples
    --------
    >>> from cygrad.utils.data import Subset
    >>> s = Subset(["a", "b", "c", "d"], [3, 0])
    >>> len(s), s[0], s.__getitems__([1, 0])
    (2, 'd', ['a', 'd'])
    """

    def __init__(self, dataset, indices):
        self.dataset = dataset
        self.indices = indices
        if (type(self).__getitem__ is not Subset.__getitem__
                and type(self).__getitems__ is Subset.__getitems__):
            raise NotImplementedError(
                f"{type(self).__name__} overrides __getitem__ but not __getitems__. The "
                "DataLoader fetches a Subset's batches through __getitems__, so a subclass "
                "that changes __getitem__ must change __getitems__ too, e.g.\n\n"
                "def __getitems__(self, indices):\n"
                "    return [self.__getitem__(idx) for idx in indices]")

    def __getitem__(self, idx):
        if isinstance(idx, list):
            return self.dataset[[self.indices[i] for i in idx]]
        return self.dataset[self.indices[idx]]

    def __getitems__(self, indices):
        picked = [self.indices[i] for i in indices]
        if callable(getattr(self.dataset, "__getitems__", None)):
            return self.dataset.__getitems__(picked)
        return [self.dataset[i] for i in picked]

    def __len__(self):
        return len(self.indices)


def _lengths_from_fractions(fractions, n):
    lengths = []
    for i, frac in enumerate(fractions):
        if frac < 0 or frac > 1:
            raise ValueError(f"Fraction at index {i} is not between 0 and 1")
        lengths.append(math.floor(n * frac))
    # The items rounding left over go one each to the splits, first to last, round-robin.
    for i in range(n - sum(lengths)):
        lengths[i % len(lengths)] += 1
    for i, length in enumerate(lengths):
        if length == 0:
            warnings.warn(f"Length of split at index {i} is 0. This might result in an empty "
                          "dataset.", stacklevel=3)
    return lengths


def random_split(dataset, lengths, generator=None):
    """Split ``dataset`` at random into non-overlapping :class:`Subset` s.

    ``lengths`` are sizes summing to ``len(dataset)``, or fractions summing to 1 (each
    split gets ``floor(frac * len)`` items, and the remainder is dealt out one by one,
    round-robin). ``generator`` (default: cygrad's default generator) draws the
    permutation, so a seeded generator gives the same split every time.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.data import random_split
    >>> a, b = random_split(range(10), [0.3, 0.7], generator=cygrad.Generator().manual_seed(0))
    >>> len(a), len(b), sorted(list(a) + list(b)) == list(range(10))
    (3, 7, True)
    """
    total = sum(lengths)
    if math.isclose(total, 1) and total <= 1:
        lengths = _lengths_from_fractions(lengths, len(dataset))
    if sum(lengths) != len(dataset):
        raise ValueError("Sum of input lengths does not equal the length of the input dataset!")
    kwargs = {} if generator is None else {"generator": generator}
    perm = _random.randperm(sum(lengths), **kwargs).tolist()
    ends = itertools.accumulate(lengths)
    return [Subset(dataset, perm[end - length:end]) for end, length in zip(ends, lengths)]
