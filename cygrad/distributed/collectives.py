"""The collectives and point-to-point calls, with PyTorch's signatures.

Each one checks its arguments, checks that every rank is calling the same thing
(:mod:`._consistency`), posts one non-blocking MPI operation on the tensors' own
memory, and either returns a :class:`~.work.Work` (``async_op=True``) or waits for it.
Results are written into the tensors given, as in PyTorch.
"""
import pickle
import warnings

import numpy as np

from . import process_group as _pg
from ._buffers import array, check_tensor, check_tensor_list, raw, reducible, _HALF
from ._consistency import check_same
from ._mpi import mpi
from .reduce_op import ReduceOp, check_reduce_op, mpi_op
from .work import Work, post

__all__ = ["all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor",
           "reduce_scatter_tensor", "gather", "scatter", "barrier", "send", "recv", "isend",
           "irecv", "broadcast_object_list", "all_gather_object"]


def _member_group(group, name):
    """The group to run on, or None (after PyTorch's warning) on a rank outside it."""
    pg = _pg.resolve(group)
    if pg is _pg.GroupMember.NON_GROUP_MEMBER:
        warnings.warn(f"Running {name} on global rank {_pg.world().rank()} which does not belong "
                      "to the given group.", stacklevel=3)
        return None
    pg.check_usable(name)
    return pg


def _check_async(async_op, name):
    if not isinstance(async_op, bool):
        raise TypeError(f"{name}: async_op must be a bool, got {async_op!r}")


def _submit(work, async_op):
    """The collective's return value: its Work, or None after waiting for it."""
    if async_op:
        return work
    work.wait()
    return None


def _bumped(*tensors):
    def finish():
        for t in tensors:
            t._bump_version()
    return finish


def _rows_into(block, tensors):
    """A finish that copies row ``i`` of a received block into ``tensors[i]``."""
    def finish():
        for row, t in zip(block, tensors):
            raw(t)[...] = row
            t._bump_version()
    return finish


def _check_root_list(pg, root, tensors, like, name, arg, where):
    """``gather_list``/``scatter_list``: one tensor per rank on the root, none elsewhere."""
    if pg.rank() != root:
        if tensors:
            raise ValueError(f"{name}: Argument ``{arg}`` must NOT be specified on "
                             f"non-{where} ranks.")
        return
    if tensors is None:
        raise ValueError(f"{name}: Argument ``{arg}`` must be specified on {where} rank.")
    check_tensor_list(tensors, name, arg, like=like)
    if len(tensors) != pg.size():
        raise ValueError(f"{name}: {arg} has {len(tensors)} tensors but the group has "
                         f"{pg.size()} ranks")


def _divided(buf, n, finish):
    """``finish`` preceded by the division that turns a SUM into ``ReduceOp.AVG``."""
    def avg_finish():
        np.divide(buf, n, out=buf)
        finish()
    return avg_finish


def _wide(t):
    """A reduction's send buffer: the tensor's memory, or a float32 copy for halves."""
    a = array(t).reshape(-1)
    return a.astype(np.float32) if t.dtype in _HALF else a


def all_reduce(tensor, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over all ranks of the group, in place on every rank.

    Parameters
    ----------
    tensor : Tensor
        Contiguous CPU tensor: each rank's input, and the result.
    op : ReduceOp, optional
        ``SUM`` (default), ``AVG``, ``PRODUCT``, ``MIN``, ``MAX``, ``BAND``, ``BOR``, ``BXOR``.
    group : ProcessGroup, optional
        Default: the default group.
    async_op : bool, optional
        Return a :class:`Work` instead of waiting.

    Returns
    -------
    Work or None

    Examples
    --------
    >>> import cygrad, cygrad.distributed as dist
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> t = cygrad.tensor([1.0, 2.0]) * (dist.get_rank() + 1)   # doctest: +SKIP
    >>> dist.all_reduce(t)                         # doctest: +SKIP
    >>> t                                          # doctest: +SKIP
    tensor([3., 6.])
    """
    name = "all_reduce"
    check_tensor(tensor, name)
    check_reduce_op(op, tensor.dtype, name)
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    check_same(pg, name, tensor, op)
    return _submit(post_all_reduce(pg, tensor, op), async_op)


def post_all_reduce(pg, tensor, op=ReduceOp.SUM):
    """Start an all-reduce of a checked tensor, without the cross-rank check; a Work.
    (DistributedDataParallel posts its gradient buckets through this.)"""
    MPI = mpi()
    buf, finish = reducible(tensor)
    if op is ReduceOp.AVG:
        finish = _divided(buf, pg.size(), finish)
    return post(pg, "all_reduce", "Allreduce", (MPI.IN_PLACE, buf, mpi_op(MPI, op, tensor.dtype)),
                buf.nbytes, finish, [tensor])


def reduce(tensor, dst=None, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``tensor`` over the group into rank ``dst``'s ``tensor`` (others keep theirs).

    Parameters
    ----------
    tensor : Tensor
        Each rank's input; the result on ``dst``.
    dst : int
        Global rank that receives the result.
    op : ReduceOp, optional
        As in :func:`all_reduce`.
    group : ProcessGroup, optional
    async_op : bool, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> t = cygrad.ones(2)                         # doctest: +SKIP
    >>> dist.reduce(t, dst=0)                      # doctest: +SKIP
    >>> t if dist.get_rank() == 0 else None        # doctest: +SKIP
    tensor([2., 2.])
    """
    name = "reduce"
    check_tensor(tensor, name)
    check_reduce_op(op, tensor.dtype, name)
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    if dst is None:
        raise TypeError("reduce: dst (the rank that receives the result) is required")
    root = pg.group_rank(dst, name, "dst")
    check_same(pg, name, tensor, op, root)
    MPI = mpi()
    mop = mpi_op(MPI, op, tensor.dtype)
    if pg.rank() == root:
        buf, finish = reducible(tensor)
        args = (MPI.IN_PLACE, buf, mop, root)
        if op is ReduceOp.AVG:
            finish = _divided(buf, pg.size(), finish)
    else:
        buf, finish = _wide(tensor), None
        args = (buf, None, mop, root)
    return _submit(post(pg, name, "Reduce", args, buf.nbytes, finish, [tensor]), async_op)


def broadcast(tensor, src=None, group=None, async_op=False):
    """Copy rank ``src``'s ``tensor`` into ``tensor`` on every rank of the group.

    Parameters
    ----------
    tensor : Tensor
        The data on ``src``; overwritten elsewhere.
    src : int
        Global rank that sends.
    group : ProcessGroup, optional
    async_op : bool, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> t = cygrad.full((2,), float(dist.get_rank()))   # doctest: +SKIP
    >>> dist.broadcast(t, src=0)                   # doctest: +SKIP
    >>> t                                          # doctest: +SKIP
    tensor([0., 0.])
    """
    name = "broadcast"
    check_tensor(tensor, name)
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    if src is None:
        raise TypeError("broadcast: src (the rank that sends) is required")
    root = pg.group_rank(src, name, "src")
    check_same(pg, name, tensor, None, root)
    buf = raw(tensor)
    finish = None if pg.rank() == root else _bumped(tensor)
    return _submit(post(pg, name, "Bcast", (buf, root), buf.nbytes, finish, [tensor]), async_op)


def all_gather(tensor_list, tensor, group=None, async_op=False):
    """Gather every rank's ``tensor`` into ``tensor_list`` on every rank.

    Parameters
    ----------
    tensor_list : list of Tensor
        One tensor per rank, each of ``tensor``'s shape and dtype: rank ``i``'s
        ``tensor`` lands in ``tensor_list[i]``.
    tensor : Tensor
        This rank's contribution.
    group : ProcessGroup, optional
    async_op : bool, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> out = [cygrad.empty(2) for _ in range(dist.get_world_size())]   # doctest: +SKIP
    >>> dist.all_gather(out, cygrad.full((2,), float(dist.get_rank())))  # doctest: +SKIP
    >>> out                                        # doctest: +SKIP
    [tensor([0., 0.]), tensor([1., 1.])]
    """
    name = "all_gather"
    check_tensor(tensor, name)
    check_tensor_list(tensor_list, name, "tensor_list", like=tensor)
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    if len(tensor_list) != pg.size():
        raise ValueError(f"{name}: tensor_list has {len(tensor_list)} tensors but the group has "
                         f"{pg.size()} ranks")
    check_same(pg, name, tensor)
    block = np.empty((pg.size(), tensor.numel() * tensor.element_size()), dtype=np.uint8)
    return _submit(post(pg, name, "Allgather", (raw(tensor), block), block.nbytes,
                        _rows_into(block, tensor_list), tensor_list), async_op)


def all_gather_into_tensor(output_tensor, input_tensor, group=None, async_op=False):
    """Gather every rank's ``input_tensor`` into one tensor, rank by rank along dim 0.

    Parameters
    ----------
    output_tensor : Tensor
        ``world_size`` times the input's size: shape ``(world_size * n0, ...)`` or
        ``(world_size, n0, ...)``.
    input_tensor : Tensor
        This rank's contribution.
    group : ProcessGroup, optional
    async_op : bool, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> out = cygrad.empty(2 * dist.get_world_size())   # doctest: +SKIP
    >>> dist.all_gather_into_tensor(out, cygrad.full((2,), float(dist.get_rank())))   # doctest: +SKIP
    >>> out                                        # doctest: +SKIP
    tensor([0., 0., 1., 1.])
    """
    name = "all_gather_into_tensor"
    check_tensor(output_tensor, name, "output_tensor")
    check_tensor(input_tensor, name, "input_tensor")
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    _check_sized(name, output_tensor, input_tensor, pg.size(), "output_tensor", "input_tensor")
    check_same(pg, name, input_tensor)
    out = raw(output_tensor)
    return _submit(post(pg, name, "Allgather", (raw(input_tensor), out), out.nbytes,
                        _bumped(output_tensor), [output_tensor]), async_op)


def _check_sized(name, big, small, n, big_arg, small_arg):
    if big.dtype != small.dtype:
        raise TypeError(f"{name}: {big_arg} is {big.dtype} but {small_arg} is {small.dtype}; "
                        "they must have the same dtype")
    if big.numel() != n * small.numel():
        raise ValueError(f"{name}: {big_arg} size must be equal to world_size times {small_arg} "
                         f"size ({big_arg} {tuple(big.shape)}, {small_arg} {tuple(small.shape)}, "
                         f"world_size {n})")


def reduce_scatter_tensor(output, input, op=ReduceOp.SUM, group=None, async_op=False):
    """Reduce ``input`` over the group and give rank ``i`` the ``i``-th block of the result.

    Parameters
    ----------
    output : Tensor
        This rank's block of the reduced tensor.
    input : Tensor
        ``world_size`` times ``output``'s size, blocks along dim 0.
    op : ReduceOp, optional
    group : ProcessGroup, optional
    async_op : bool, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> out = cygrad.empty(2)                      # doctest: +SKIP
    >>> dist.reduce_scatter_tensor(out, cygrad.arange(4.0))   # doctest: +SKIP
    >>> out                                        # doctest: +SKIP
    tensor([0., 2.])
    """
    name = "reduce_scatter_tensor"
    check_tensor(output, name, "output")
    check_tensor(input, name, "input")
    check_reduce_op(op, input.dtype, name)
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    _check_sized(name, input, output, pg.size(), "input", "output")
    check_same(pg, name, input, op)
    MPI = mpi()
    buf, finish = reducible(output)
    send = _wide(input)
    if op is ReduceOp.AVG:
        finish = _divided(buf, pg.size(), finish)
    return _submit(post(pg, name, "Reduce_scatter_block", (send, buf, mpi_op(MPI, op, input.dtype)),
                        send.nbytes, finish, [output]), async_op)


def gather(tensor, gather_list=None, dst=None, group=None, async_op=False):
    """Gather every rank's ``tensor`` into ``gather_list`` on rank ``dst``.

    Parameters
    ----------
    tensor : Tensor
        This rank's contribution.
    gather_list : list of Tensor, optional
        On ``dst`` only: one tensor per rank, of ``tensor``'s shape and dtype.
    dst : int, optional
        Global rank that receives (default 0).
    group : ProcessGroup, optional
    async_op : bool, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> me = cygrad.full((2,), float(dist.get_rank()))   # doctest: +SKIP
    >>> out = [cygrad.empty(2) for _ in range(2)] if dist.get_rank() == 0 else None   # doctest: +SKIP
    >>> dist.gather(me, out, dst=0)                # doctest: +SKIP
    """
    name = "gather"
    check_tensor(tensor, name)
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    root = pg.group_rank(0 if dst is None else dst, name, "dst")
    _check_root_list(pg, root, gather_list, tensor, name, "gather_list", "destination")
    check_same(pg, name, tensor, None, root)
    nbytes = pg.size() * tensor.numel() * tensor.element_size()
    if pg.rank() != root:
        return _submit(post(pg, name, "Gather", (raw(tensor), None, root), nbytes), async_op)
    block = np.empty((pg.size(), tensor.numel() * tensor.element_size()), dtype=np.uint8)
    return _submit(post(pg, name, "Gather", (raw(tensor), block, root), nbytes,
                        _rows_into(block, gather_list), gather_list), async_op)


def scatter(tensor, scatter_list=None, src=None, group=None, async_op=False):
    """Send ``scatter_list[i]`` from rank ``src`` to rank ``i``'s ``tensor``.

    Parameters
    ----------
    tensor : Tensor
        Receives this rank's piece.
    scatter_list : list of Tensor, optional
        On ``src`` only: one tensor per rank, of ``tensor``'s shape and dtype.
    src : int, optional
        Global rank that sends (default 0).
    group : ProcessGroup, optional
    async_op : bool, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> out = cygrad.empty(2)                      # doctest: +SKIP
    >>> pieces = [cygrad.full((2,), float(i)) for i in range(2)] if dist.get_rank() == 0 else None   # doctest: +SKIP
    >>> dist.scatter(out, pieces, src=0)           # doctest: +SKIP
    """
    name = "scatter"
    check_tensor(tensor, name)
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    root = pg.group_rank(0 if src is None else src, name, "src")
    _check_root_list(pg, root, scatter_list, tensor, name, "scatter_list", "source")
    block = None
    if pg.rank() == root:
        block = np.concatenate([raw(t) for t in scatter_list]) if tensor.numel() else \
            np.empty(0, np.uint8)
    check_same(pg, name, tensor, None, root)
    out = raw(tensor)
    return _submit(post(pg, name, "Scatter", (block, out, root), out.nbytes * pg.size(),
                        _bumped(tensor), [tensor]), async_op)


def barrier(group=None, async_op=False, device_ids=None):
    """Wait until every rank of the group has reached this call.

    Parameters
    ----------
    group : ProcessGroup, optional
    async_op : bool, optional
    device_ids : list of int, optional
        Accepted for PyTorch compatibility (CPU only).

    Returns
    -------
    Work or None

    Examples
    --------
    >>> dist.barrier()                             # doctest: +SKIP
    """
    name = "barrier"
    _check_async(async_op, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    check_same(pg, name)
    return _submit(post(pg, name, "Barrier", (), 0), async_op)


def _check_tag(tag, name):
    if isinstance(tag, bool) or not isinstance(tag, int) or tag < 0:
        raise ValueError(f"{name}: tag must be a non-negative int, got {tag!r}")


def isend(tensor, dst=None, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` without waiting; returns a :class:`Work`.

    Parameters
    ----------
    tensor : Tensor
        Must not change until the returned Work completes.
    dst : int
        Global rank of the receiver.
    group : ProcessGroup, optional
    tag : int, optional
        Matches the receiver's ``tag``.

    Returns
    -------
    Work or None

    Examples
    --------
    >>> if dist.get_rank() == 0:                   # doctest: +SKIP
    ...     dist.isend(cygrad.ones(3), dst=1).wait()
    """
    name = "isend"
    check_tensor(tensor, name)
    _check_tag(tag, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    if dst is None:
        raise TypeError(f"{name}: dst (the receiving rank) is required")
    peer = pg.group_rank(dst, name, "dst")
    if peer == pg.rank():
        raise ValueError("Invalid destination rank: destination rank should not be the same as "
                         "the rank of the current process.")
    req = pg.comm.Isend(raw(tensor), dest=peer, tag=tag)
    return Work(name, pg, [req], None, [tensor])


def irecv(tensor, src=None, group=None, tag=0):
    """Receive into ``tensor`` from rank ``src`` (any rank if None) without waiting.

    Parameters
    ----------
    tensor : Tensor
        Receives the message; it must be exactly the size that was sent.
    src : int, optional
        Global rank of the sender; None accepts any.
    group : ProcessGroup, optional
    tag : int, optional

    Returns
    -------
    Work or None

    Examples
    --------
    >>> if dist.get_rank() == 1:                   # doctest: +SKIP
    ...     t = cygrad.empty(3); dist.irecv(t, src=0).wait()
    """
    name = "irecv"
    check_tensor(tensor, name)
    _check_tag(tag, name)
    pg = _member_group(group, name)
    if pg is None:
        return None
    MPI = mpi()
    if src is None:
        peer = MPI.ANY_SOURCE
    else:
        peer = pg.group_rank(src, name, "src")
        if peer == pg.rank():
            raise ValueError("Invalid source rank: source rank should not be the same as the "
                             "rank of the current process.")
    buf = raw(tensor)
    status = MPI.Status()
    req = pg.comm.Irecv(buf, source=peer, tag=tag)

    def finish():
        got = status.Get_count(MPI.BYTE)
        if got != buf.nbytes:
            raise RuntimeError(f"recv: rank {pg.ranks[status.Get_source()]} sent {got} bytes but "
                               f"the tensor ({tensor.dtype} {tuple(tensor.shape)}) holds "
                               f"{buf.nbytes}; sender and receiver must use the same shape and dtype")
        tensor._bump_version()
    work = Work(name, pg, [req], finish, [tensor], [status])
    work.source = lambda: pg.ranks[status.Get_source()]
    return work


def send(tensor, dst=None, group=None, tag=0):
    """Send ``tensor`` to rank ``dst`` and wait until it is sent.

    Parameters
    ----------
    tensor : Tensor
    dst : int
        Global rank of the receiver.
    group : ProcessGroup, optional
    tag : int, optional

    Examples
    --------
    >>> if dist.get_rank() == 0:                   # doctest: +SKIP
    ...     dist.send(cygrad.ones(3), dst=1)
    """
    work = isend(tensor, dst, group, tag)
    if work is not None:
        work.wait()


def recv(tensor, src=None, group=None, tag=0):
    """Receive into ``tensor`` from rank ``src`` (any rank if None); returns the sender.

    Parameters
    ----------
    tensor : Tensor
    src : int, optional
        Global rank of the sender; None accepts any.
    group : ProcessGroup, optional
    tag : int, optional

    Returns
    -------
    int
        The sender's global rank (-1 on a rank outside ``group``).

    Examples
    --------
    >>> if dist.get_rank() == 1:                   # doctest: +SKIP
    ...     t = cygrad.empty(3); dist.recv(t, src=0)
    0
    """
    work = irecv(tensor, src, group, tag)
    if work is None:
        return -1
    work.wait()
    return work.source()


def broadcast_object_list(object_list, src=None, group=None, device=None):
    """Replace ``object_list``'s items on every rank by rank ``src``'s (pickled objects).

    Parameters
    ----------
    object_list : list
        The objects on ``src``; on other ranks a list of the same length to fill.
    src : int, optional
        Global rank that sends (default 0).
    group : ProcessGroup, optional
    device : optional
        Accepted for PyTorch compatibility.

    Examples
    --------
    >>> objs = [{"lr": 0.1}] if dist.get_rank() == 0 else [None]   # doctest: +SKIP
    >>> dist.broadcast_object_list(objs, src=0)    # doctest: +SKIP
    >>> objs                                       # doctest: +SKIP
    [{'lr': 0.1}]
    """
    name = "broadcast_object_list"
    if not isinstance(object_list, list):
        raise TypeError(f"{name}: object_list must be a list, got {type(object_list).__name__}")
    pg = _member_group(group, name)
    if pg is None:
        return
    root = pg.group_rank(0 if src is None else src, name, "src")
    check_same(pg, name, None, None, root)
    payload = np.frombuffer(pickle.dumps(list(object_list)), np.uint8) if pg.rank() == root else None
    size = np.array([0 if payload is None else payload.size], np.int64)
    post(pg, name, "Bcast", (size, root), size.nbytes).wait()
    if payload is None:
        payload = np.empty(int(size[0]), np.uint8)
    post(pg, name, "Bcast", (payload, root), payload.nbytes).wait()
    if pg.rank() != root:
        received = pickle.loads(payload.tobytes())
        if len(received) != len(object_list):
            raise ValueError(f"{name}: rank {src} sent {len(received)} objects but object_list "
                             f"here has {len(object_list)}")
        object_list[:] = received


def all_gather_object(object_list, obj, group=None):
    """Fill ``object_list[i]`` with rank ``i``'s ``obj`` (pickled), on every rank.

    Parameters
    ----------
    object_list : list
        Of length ``world_size``; filled in place.
    obj : object
        This rank's object (picklable).
    group : ProcessGroup, optional

    Examples
    --------
    >>> out = [None] * dist.get_world_size()       # doctest: +SKIP
    >>> dist.all_gather_object(out, dist.get_rank() * 10)   # doctest: +SKIP
    >>> out                                        # doctest: +SKIP
    [0, 10]
    """
    name = "all_gather_object"
    pg = _member_group(group, name)
    if pg is None:
        return
    if not isinstance(object_list, list) or len(object_list) != pg.size():
        raise ValueError(f"{name}: object_list must be a list of length {pg.size()} (the group's "
                         "size)")
    check_same(pg, name)
    mine = np.frombuffer(pickle.dumps(obj), np.uint8)
    sizes = np.empty(pg.size(), np.int64)
    post(pg, name, "Allgather", (np.array([mine.size], np.int64), sizes), sizes.nbytes).wait()
    block = np.empty(int(sizes.sum()), np.uint8)
    offsets = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    post(pg, name, "Allgatherv", (mine, [block, sizes, offsets, mpi().BYTE]), block.nbytes).wait()
    for i in range(pg.size()):
        object_list[i] = pickle.loads(block[offsets[i]:offsets[i] + sizes[i]].tobytes())

