"""cygrad.nn.parallel: ``DistributedDataParallel`` (data parallelism over MPI ranks).

See ``docs/distributed.md``.
"""
from .distributed import DistributedDataParallel

__all__ = ["DistributedDataParallel"]
