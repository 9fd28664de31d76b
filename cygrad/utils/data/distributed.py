"""``DistributedSampler``: each rank reads its own share of a dataset.

The indices (shuffled with ``seed + epoch`` if ``shuffle``) are padded by repeating
the first ones, or cut (``drop_last``), to a multiple of the number of ranks; rank
``r`` then takes every ``num_replicas``-th index starting at ``r``. Together the
ranks see each index once per epoch (plus the padding). The split is PyTorch's; the
shuffled order comes from cygrad's own generator, so it is reproducible from the
seed but not the same permutation as PyTorch's.
"""
import math

from ... import random as _random
from .sampler import Sampler

__all__ = ["DistributedSampler"]


class DistributedSampler(Sampler):
    """Restrict data loading to one rank's part of the dataset.

    Parameters
    ----------
    dataset : Dataset
        A map-style dataset (with ``len``).
    num_replicas : int, optional
        The number of ranks (default: the default process group's size).
    rank : int, optional
        This rank (default: from the default process group).
    shuffle : bool, optional
        Shuffle the indices each epoch (default True); call :meth:`set_epoch` at the
        start of every epoch, or every epoch uses the same order.
    seed : int, optional
        The shuffle's seed; must be the same on every rank.
    drop_last : bool, optional
        Cut the tail so every rank gets the same number of indices without padding.

    Examples
    --------
    >>> from cygrad.utils.data import DistributedSampler
    >>> [list(DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False)) for r in (0, 1)]
    [[0, 2, 4], [1, 3, 0]]
    >>> [list(DistributedSampler(range(5), num_replicas=2, rank=r, shuffle=False, drop_last=True))
    ...  for r in (0, 1)]
    [[0, 2], [1, 3]]
    """

    def __init__(self, dataset, num_replicas=None, rank=None, shuffle=True, seed=0,
                 drop_last=False):
        if num_replicas is None or rank is None:
            from ... import distributed as dist
            if not dist.is_available():
                raise RuntimeError("Requires distributed package to be available")
            if num_replicas is None:
                num_replicas = dist.get_world_size()
            if rank is None:
                rank = dist.get_rank()
        if rank >= num_replicas or rank < 0:
            raise ValueError(f"Invalid rank {rank}, rank should be in the interval "
                             f"[0, {num_replicas - 1}]")
        self.dataset = dataset
        self.num_replicas = num_replicas
        self.rank = rank
        self.epoch = 0
        self.drop_last = drop_last
        n = len(dataset)
        if drop_last and n % num_replicas != 0:
            self.num_samples = math.ceil((n - num_replicas) / num_replicas)
        else:
            self.num_samples = math.ceil(n / num_replicas)
        self.total_size = self.num_samples * num_replicas
        self.shuffle = shuffle
        self.seed = seed

    def __iter__(self):
        n = len(self.dataset)
        if self.shuffle:
            g = _random.Generator().manual_seed(self.seed + self.epoch)
            indices = _random.randperm(n, generator=g).tolist()
        else:
            indices = list(range(n))
        if not self.drop_last:
            padding = self.total_size - len(indices)
            if padding <= len(indices):
                indices += indices[:padding]
            else:
                indices += (indices * math.ceil(padding / len(indices)))[:padding]
        else:
            indices = indices[:self.total_size]
        assert len(indices) == self.total_size
        mine = indices[self.rank:self.total_size:self.num_replicas]
        return iter(mine)

    def __len__(self):
        return self.num_samples

    def set_epoch(self, epoch):
        """Set the epoch, which seeds the shuffle: call it before each epoch's iteration.

        Parameters
        ----------
        epoch : int

        Examples
        --------
        >>> s = DistributedSampler(range(8), num_replicas=2, rank=0, seed=1)
        >>> s.set_epoch(3)
        >>> sorted(s) == sorted(set(s))
        True
        """
        self.epoch = epoch
