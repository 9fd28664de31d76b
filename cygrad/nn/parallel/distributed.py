"""``DistributedDataParallel``: one model replica per process, gradients averaged.

Each rank runs the same model on its own slice of the batch. At construction every
rank's parameters and buffers are replaced by rank 0's (so all replicas start equal);
during backward the gradients are averaged over the ranks by the :class:`Reducer`
(``_reducer.py``), bucket by bucket while backward is still running; the optimizer
step then does the same update everywhere and the replicas stay equal.
"""
import contextlib

import numpy as np

from ... import distributed as dist
from ...autograd.grad_mode import is_grad_enabled
from ...distributed import process_group as _pg
from ...distributed._buffers import array, check_tensor
from ...ops.creation import from_numpy
from ..modules.module import Module
from ._reducer import Reducer

__all__ = ["DistributedDataParallel"]


def broadcast_coalesced(tensors, src, group):
    """Broadcast ``tensors`` from ``src``: one collective per dtype, over a flat copy."""
    by_dtype = {}
    for t in tensors:
        by_dtype.setdefault(t.dtype, []).append(t)
    for ts in by_dtype.values():
        flat = np.concatenate([array(t).reshape(-1) for t in ts]).view(np.uint8)
        dist.broadcast(from_numpy(flat), src=src, group=group)
        if dist.get_rank() != src:
            offset = 0
            for t in ts:
                a = array(t).reshape(-1)
                n = a.nbytes
                a.view(np.uint8)[...] = flat[offset:offset + n]
                t._bump_version()
                offset += n


def _verify_same_model(named, pg):
    """Every rank must wrap the same parameters: compare names, shapes and dtypes."""
    mine = [(n, tuple(p.shape), str(p.dtype)) for n, p in named]
    everyone = [None] * pg.size()
    dist.all_gather_object(everyone, mine, group=pg)
    for r, theirs in enumerate(everyone):
        if theirs == mine:
            continue
        if len(theirs) != len(mine):
            raise RuntimeError(f"DDP expects same model across all ranks, but rank "
                               f"{pg.rank()} has {len(mine)} params, while rank {pg.ranks[r]} has "
                               f"inconsistent {len(theirs)} params.")
        a, b = next((a, b) for a, b in zip(mine, theirs) if a != b)
        raise RuntimeError(f"DDP expects same model across all ranks, but parameter {a[0]} is "
                           f"{a[2]} {a[1]} on rank {pg.rank()} and {b[0]} is {b[2]} {b[1]} on "
                           f"rank {pg.ranks[r]}.")


class DistributedDataParallel(Module):
    """Data parallelism over the ranks of a process group, as PyTorch's.

    Wrap the model after :func:`cygrad.distributed.init_process_group`; give each rank
    its own part of the data (:class:`cygrad.utils.data.DistributedSampler`). Gradients
    are averaged over the ranks during ``backward()``, so the optimizer step is the
    same everywhere.

    Parameters
    ----------
    module : Module
        The model (on the CPU).
    device_ids, output_device, dim
        Accepted for PyTorch compatibility; must be None (or ``dim=0``) on the CPU.
    broadcast_buffers : bool, optional
        Copy rank 0's buffers (BatchNorm statistics...) to every rank at each forward.
    process_group : ProcessGroup, optional
        Default: the default group.
    bucket_cap_mb : float, optional
        Size of a gradient bucket (default 25 MiB; the first is at most 1 MiB).
    find_unused_parameters : bool, optional
        Look through the forward's graph for parameters that will get no gradient, so
        the reduction does not wait for them. Off by default (it costs a graph walk).
    check_reduction : bool, optional
        Deprecated in PyTorch; ignored.
    gradient_as_bucket_view : bool, optional
        Make each ``.grad`` a view into its bucket (no copy back after the all-reduce).
    static_graph : bool, optional
        Accepted for PyTorch compatibility.

    Examples
    --------
    >>> import cygrad, cygrad.distributed as dist
    >>> from cygrad.nn.parallel import DistributedDataParallel as DDP
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> model = DDP(cygrad.nn.Linear(4, 2))        # doctest: +SKIP
    >>> model(cygrad.randn(8, 4)).sum().backward() # doctest: +SKIP
    >>> model.module.weight.grad.shape             # doctest: +SKIP
    cygrad.Size([2, 4])
    """

    def __init__(self, module, device_ids=None, output_device=None, dim=0, broadcast_buffers=True,
                 process_group=None, bucket_cap_mb=None, find_unused_parameters=False,
                 check_reduction=False, gradient_as_bucket_view=False, static_graph=False):
        super().__init__()
        if not isinstance(module, Module):
            raise TypeError(f"DistributedDataParallel: module must be an nn.Module, got "
                            f"{type(module).__name__}")
        if device_ids not in (None, []) or output_device is not None:
            raise ValueError("DistributedDataParallel device_ids and output_device arguments only "
                             "work with single-device/multiple-device GPU modules; cygrad's "
                             "modules are on the CPU: leave them None")
        if dim != 0:
            raise ValueError("DistributedDataParallel: only dim=0 is supported")
        pg = _pg.resolve(process_group)
        if pg is _pg.GroupMember.NON_GROUP_MEMBER:
            raise ValueError("DistributedDataParallel: this rank is not in process_group")
        named = [(n, p) for n, p in module.named_parameters() if p.requires_grad]
        if not named:
            raise RuntimeError("DistributedDataParallel is not needed when a module doesn't have "
                               "any parameter that requires a gradient.")
        for n, p in named:
            check_tensor(p, "DistributedDataParallel", f"parameter {n}")
        self.module = module
        self.process_group = pg
        self.device_ids = None
        self.broadcast_buffers = broadcast_buffers
        self.find_unused_parameters = find_unused_parameters
        self.gradient_as_bucket_view = gradient_as_bucket_view
        self.static_graph = static_graph
        self.require_backward_grad_sync = True
        self.require_forward_param_sync = True
        self.bucket_cap_mb = 25 if bucket_cap_mb is None else bucket_cap_mb
        self._src = pg.ranks[0]
        _verify_same_model(named, pg)
        state = [p for _, p in module.named_parameters()] + [b for _, b in module.named_buffers()]
        broadcast_coalesced(state, self._src, pg)
        self.reducer = Reducer(named, pg, self.bucket_cap_mb, find_unused_parameters,
                               gradient_as_bucket_view)

    def forward(self, *inputs, **kwargs):
        """Run the wrapped module, arming the gradient reduction for its backward.

        Examples
        --------
        >>> out = model(cygrad.randn(8, 4))            # doctest: +SKIP
        """
        sync = is_grad_enabled() and self.require_backward_grad_sync
        if sync:
            self.reducer.check_finished()
        buffers = [b for _, b in self.module.named_buffers()]
        if self.broadcast_buffers and self.require_forward_param_sync and buffers:
            broadcast_coalesced(buffers, self._src, self.process_group)
        out = self.module(*inputs, **kwargs)
        if sync:
            self.reducer.prepare_for_backward(out)
        return out

    @contextlib.contextmanager
    def no_sync(self):
        """Skip the gradient all-reduce for backward passes of forwards run inside.

        Gradients accumulate locally; the first forward/backward outside the context
        averages the accumulated gradients.

        Examples
        --------
        >>> with model.no_sync():                      # doctest: +SKIP
        ...     model(x1).sum().backward()             # local accumulation only
        >>> model(x2).sum().backward()                 # doctest: +SKIP
        """
        old = self.require_backward_grad_sync
        self.require_backward_grad_sync = False
        try:
            yield
        finally:
            self.require_backward_grad_sync = old

    def __getstate__(self):
        raise TypeError("DistributedDataParallel cannot be pickled: save model.module.state_dict()")

    def extra_repr(self):
        return f"bucket_cap_mb={self.bucket_cap_mb}, world_size={self.process_group.size()}"
