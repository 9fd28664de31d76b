"""Samplers: the order in which a DataLoader asks a map-style dataset for indices.

Random samplers draw from a cygrad :class:`~cygrad.Generator`: pass ``generator=`` for
a stream of its own, or leave it out to draw a fresh seed from the default generator
each epoch (so ``cygrad.manual_seed`` makes shuffling reproducible). The numbers are
cygrad's own stream, not PyTorch's: the same seed gives a different (but equally
reproducible) order than in PyTorch.
"""
import itertools
import numbers

from ... import random as _random
from ..._core import dtype as _dt
from ...ops.creation import as_tensor, empty

__all__ = ["Sampler", "SequentialSampler", "RandomSampler", "SubsetRandomSampler",
           "WeightedRandomSampler", "BatchSampler"]


def _is_int(x):
    return isinstance(x, numbers.Integral) and not isinstance(x, bool)


class Sampler:
    """Base class: subclasses define ``__iter__`` over indices (and ``__len__`` if known).

    Examples
    --------
    >>> from cygrad.utils.data import Sampler
    >>> class EvensFirst(Sampler):
    ...     def __init__(self, n):
    ...         self.n = n
    ...     def __iter__(self):
    ...         return iter([*range(0, self.n, 2), *range(1, self.n, 2)])
    ...     def __len__(self):
    ...         return self.n
    >>> list(EvensFirst(5))
    [0, 2, 4, 1, 3]
    """

    def __init__(self, data_source=None):
        pass

    def __iter__(self):
        raise NotImplementedError


class SequentialSampler(Sampler):
    """``0, 1, ..., len(data_source) - 1``.

    Examples
    --------
    >>> from cygrad.utils.data import SequentialSampler
    >>> list(SequentialSampler("abc"))
    [0, 1, 2]
    """

    def __init__(self, data_source):
        self.data_source = data_source

    def __iter__(self):
        return iter(range(len(self.data_source)))

    def __len__(self):
        return len(self.data_source)


def _fresh_generator():
    # One draw from the default stream seeds this epoch's private generator.
    seed = int(empty((), dtype=_dt.int64).random_().item())
    return _random.Generator().manual_seed(seed)


class RandomSampler(Sampler):
    """Indices in random order: a permutation (repeated if ``num_samples`` is larger than
    the dataset), or with ``replacement=True`` independent uniform draws.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.data import RandomSampler
    >>> order = list(RandomSampler(range(5), generator=cygrad.Generator().manual_seed(0)))
    >>> sorted(order)
    [0, 1, 2, 3, 4]
    >>> len(list(RandomSampler(range(5), replacement=True, num_samples=12)))
    12
    """

    def __init__(self, data_source, replacement=False, num_samples=None, generator=None):
        self.data_source = data_source
        self.replacement = replacement
        self._num_samples = num_samples
        self.generator = generator
        if not isinstance(replacement, bool):
            raise TypeError(
                f"replacement should be a boolean value, but got replacement={replacement}")
        if not isinstance(self.num_samples, int) or self.num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={self.num_samples}")

    @property
    def num_samples(self):
        """How many indices one pass yields (default: the dataset's length)."""
        return len(self.data_source) if self._num_samples is None else self._num_samples

    def __iter__(self):
        n = len(self.data_source)
        g = self.generator if self.generator is not None else _fresh_generator()
        want = self.num_samples
        if self.replacement:
            # In chunks, so a huge num_samples never materialises at once.
            while want > 0:
                k = min(want, 32)
                yield from _random.randint(high=n, size=(k,), dtype=_dt.int64, generator=g).tolist()
                want -= k
        else:
            for _ in range(want // n):
                yield from _random.randperm(n, generator=g).tolist()
            if want % n:
                yield from _random.randperm(n, generator=g).tolist()[:want % n]

    def __len__(self):
        return self.num_samples


class SubsetRandomSampler(Sampler):
    """The given ``indices`` in random order (without replacement).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.data import SubsetRandomSampler
    >>> s = SubsetRandomSampler([10, 20, 30], generator=cygrad.Generator().manual_seed(1))
    >>> sorted(s), len(s)
    ([10, 20, 30], 3)
    """

    def __init__(self, indices, generator=None):
        self.indices = indices
        self.generator = generator

    def __iter__(self):
        kwargs = {} if self.generator is None else {"generator": self.generator}
        for i in _random.randperm(len(self.indices), **kwargs).tolist():
            yield self.indices[i]

    def __len__(self):
        return len(self.indices)


class WeightedRandomSampler(Sampler):
    """``num_samples`` indices of ``range(len(weights))``, index ``i`` drawn with
    probability proportional to ``weights[i]``; without replacement an index comes out
    at most once.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.utils.data import WeightedRandomSampler
    >>> s = WeightedRandomSampler([0.0, 1.0, 0.0], 4, generator=cygrad.Generator().manual_seed(0))
    >>> list(s)
    [1, 1, 1, 1]
    """

    def __init__(self, weights, num_samples, replacement=True, generator=None):
        if not _is_int(num_samples) or num_samples <= 0:
            raise ValueError("num_samples should be a positive integer value, but got "
                             f"num_samples={num_samples}")
        if not isinstance(replacement, bool):
            raise ValueError(
                f"replacement should be a boolean value, but got replacement={replacement}")
        w = as_tensor(weights, dtype=_dt.float64)
        if w.dim() != 1:
            raise ValueError("weights should be a 1d sequence but given weights have shape "
                             f"{tuple(w.shape)}")
        self.weights = w
        self.num_samples = num_samples
        self.replacement = replacement
        self.generator = generator

    def __iter__(self):
        kwargs = {} if self.generator is None else {"generator": self.generator}
        drawn = _random.multinomial(self.weights, self.num_samples, self.replacement, **kwargs)
        yield from drawn.tolist()

    def __len__(self):
        return self.num_samples


class BatchSampler(Sampler):
    """Group the indices of ``sampler`` into lists of ``batch_size`` (the last one shorter
    unless ``drop_last``).

    Examples
    --------
    >>> from cygrad.utils.data import BatchSampler, SequentialSampler
    >>> list(BatchSampler(SequentialSampler(range(7)), batch_size=3, drop_last=False))
    [[0, 1, 2], [3, 4, 5], [6]]
    >>> len(BatchSampler(range(7), batch_size=3, drop_last=True))
    2
    """

    def __init__(self, sampler, batch_size, drop_last):
        if not _is_int(batch_size) or batch_size <= 0:
            raise ValueError("batch_size should be a positive integer value, but got "
                             f"batch_size={batch_size}")
        if not isinstance(drop_last, bool):
            raise ValueError(f"drop_last should be a boolean value, but got drop_last={drop_last}")
        self.sampler = sampler
        self.batch_size = batch_size
        self.drop_last = drop_last

    def __iter__(self):
        it = iter(self.sampler)
        while True:
            batch = list(itertools.islice(it, self.batch_size))
            if not batch or (self.drop_last and len(batch) < self.batch_size):
                return
            yield batch

    def __len__(self):
        if self.drop_last:
            return len(self.sampler) // self.batch_size
        return (len(self.sampler) + self.batch_size - 1) // self.batch_size
