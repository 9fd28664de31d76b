"""``cygrad.utils.data``: datasets, samplers and the ``DataLoader``, as
``torch.utils.data``.

Examples
--------
>>> import cygrad
>>> from cygrad.utils.data import DataLoader, TensorDataset
>>> ds = TensorDataset(cygrad.arange(6.0).reshape(3, 2))
>>> [x.shape for (x,) in DataLoader(ds, batch_size=2)]
[cygrad.Size([2, 2]), cygrad.Size([1, 2])]
"""
from .dataset import (ChainDataset, ConcatDataset, Dataset, IterableDataset, StackDataset,
                      Subset, TensorDataset, random_split)
from .sampler import (BatchSampler, RandomSampler, Sampler, SequentialSampler,
                      SubsetRandomSampler, WeightedRandomSampler)
from ._collate import collate, default_collate, default_collate_fn_map, default_convert
from ._worker import WorkerInfo, get_worker_info
from .dataloader import DataLoader
from .distributed import DistributedSampler

__all__ = ["Dataset", "IterableDataset", "TensorDataset", "StackDataset", "ConcatDataset",
           "ChainDataset", "Subset", "random_split", "Sampler", "SequentialSampler",
           "RandomSampler", "SubsetRandomSampler", "WeightedRandomSampler", "BatchSampler",
           "DataLoader", "DistributedSampler", "collate", "default_collate", "default_convert",
           "default_collate_fn_map", "get_worker_info", "WorkerInfo"]
