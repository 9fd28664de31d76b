"""cygrad.distributed: data-parallel training over MPI, with PyTorch's API.

Processes are the ranks of an MPI job (started by ``python -m cygrad.distributed.run
-n N script.py``, or a site's ``mpirun``/``srun``); communication is MPI's, through
``mpi4py`` (the ``distributed`` extra installs both from PyPI). cygrad writes no
transport of its own: each collective hands the tensor's own memory to one
non-blocking MPI call.

- process groups (``process_group.py``): :func:`init_process_group`,
  :func:`new_group`, :func:`get_rank`, :func:`get_world_size` ...
- collectives (``collectives.py``): :func:`all_reduce`, :func:`broadcast`,
  :func:`all_gather` ... with ``async_op=True`` returning a :class:`Work`
  (``work.py``: the one wait loop, with the group's timeout).
- every collective first checks that all ranks call the same thing on tensors of the
  same shape and dtype (``_consistency.py``).
- ``cygrad.nn.parallel.DistributedDataParallel`` and
  ``cygrad.utils.data.DistributedSampler`` build on these.

``import cygrad.distributed`` does not start MPI: :func:`init_process_group` does.
See ``docs/distributed.md``.
"""
from .errors import DistError, DistBackendError
from .reduce_op import ReduceOp
from .process_group import (Backend, GroupMember, ProcessGroup, default_pg_timeout,
                            destroy_process_group, get_backend, get_global_rank, get_group_rank,
                            get_process_group_ranks, get_rank, get_world_size, group,
                            init_process_group, is_available, is_initialized, is_mpi_available,
                            new_group)
from .work import Work
from .collectives import (all_gather, all_gather_into_tensor, all_gather_object, all_reduce,
                          barrier, broadcast, broadcast_object_list, gather, irecv, isend, recv,
                          reduce, reduce_scatter_tensor, scatter, send)

__all__ = ["DistError", "DistBackendError", "ReduceOp", "Backend", "GroupMember", "ProcessGroup",
           "default_pg_timeout", "destroy_process_group", "get_backend", "get_global_rank",
           "get_group_rank", "get_process_group_ranks", "get_rank", "get_world_size", "group",
           "init_process_group", "is_available", "is_initialized", "is_mpi_available", "new_group",
           "Work", "all_gather", "all_gather_into_tensor", "all_gather_object", "all_reduce",
           "barrier", "broadcast", "broadcast_object_list", "gather", "irecv", "isend", "recv",
           "reduce", "reduce_scatter_tensor", "scatter", "send"]
