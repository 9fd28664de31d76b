"""Fetchers: given what the sampler chose (an index, a list of indices, or nothing for
an iterable dataset), read the samples and collate them. The same code runs in the main
process and in workers.

Examples
--------
>>> from cygrad.utils.data._fetch import make_fetcher
>>> f = make_fetcher(["a", "b", "c"], auto_collation=True, collate_fn=list, drop_last=False)
>>> f.fetch([2, 0])
['c', 'a']
"""
from .dataset import IterableDataset

__all__ = ["make_fetcher", "MapFetcher", "IterableFetcher"]


class MapFetcher:
    """Reads ``dataset[i]`` (or one ``dataset.__getitems__(batch)`` call when the dataset
    has it) and collates."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.dataset = dataset
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn

    def fetch(self, index):
        if self.auto_collation:
            many = getattr(self.dataset, "__getitems__", None)
            data = many(index) if many else [self.dataset[i] for i in index]
        else:
            data = self.dataset[index]
        return self.collate_fn(data)


class IterableFetcher:
    """Reads the next ``len(batch)`` items of the dataset's stream and collates; raises
    StopIteration when the stream is done (or only a short batch is left and
    ``drop_last``)."""

    def __init__(self, dataset, auto_collation, collate_fn, drop_last):
        self.stream = iter(dataset)
        self.auto_collation = auto_collation
        self.collate_fn = collate_fn
        self.drop_last = drop_last
        self.ended = False

    def fetch(self, index):
        if self.ended:
            raise StopIteration
        if not self.auto_collation:
            return self.collate_fn(next(self.stream))
        data = []
        for _ in index:
            try:
                data.append(next(self.stream))
            except StopIteration:
                self.ended = True
                break
        if not data or (self.drop_last and len(data) < len(index)):
            raise StopIteration
        return self.collate_fn(data)


def make_fetcher(dataset, auto_collation, collate_fn, drop_last):
    """The fetcher for ``dataset``'s kind (map-style or iterable)."""
    kind = IterableFetcher if isinstance(dataset, IterableDataset) else MapFetcher
    return kind(dataset, auto_collation, collate_fn, drop_last)
