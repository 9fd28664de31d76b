"""Process groups: who takes part in a collective.

The default group (``WORLD``) is every process of the MPI job; :func:`new_group`
makes a sub-group. A group wraps its own MPI communicator, duplicated from
``MPI.COMM_WORLD`` so that a program's own mpi4py traffic never mixes with
cygrad's. Ranks given to collectives (``src``, ``dst``) are *global* ranks, as in
PyTorch; each group translates them to its own numbering.
"""
import atexit
import os
import warnings
from datetime import timedelta

from ._mpi import mpi, mpi4py_installed
from .errors import DistBackendError
from .work import drain, start_comm_thread, timeout_seconds

__all__ = ["ProcessGroup", "GroupMember", "group", "Backend", "is_available", "is_mpi_available",
           "init_process_group", "destroy_process_group", "is_initialized", "get_rank",
           "get_world_size", "new_group", "get_backend", "get_process_group_ranks",
           "get_global_rank", "get_group_rank", "default_pg_timeout"]

default_pg_timeout = timedelta(minutes=30)     # PyTorch's default for CPU backends

_NOT_INITIALIZED = ("Default process group has not been initialized, please make sure to call "
                    "init_process_group.")


class Backend(str):
    """Backend names. cygrad has one: ``"mpi"`` (``"gloo"`` is accepted and runs over MPI).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.Backend.MPI
    'mpi'
    """
    MPI = "mpi"
    GLOO = "gloo"
    NCCL = "nccl"


class ProcessGroup:
    """A set of processes that run collectives together, over one MPI communicator.

    Made by :func:`init_process_group` (the default group) and :func:`new_group`; not
    constructed directly.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> dist.group.WORLD.size() == dist.get_world_size()   # doctest: +SKIP
    True
    """

    def __init__(self, comm, ranks, timeout, name, oversubscribed=False):
        self.comm = comm
        self.oversubscribed = oversubscribed  # more ranks than cores on this machine
        self.ranks = list(ranks)              # global rank of each group rank
        self._global_to_group = {g: i for i, g in enumerate(self.ranks)}
        self.timeout = timeout                # seconds
        self.name = name
        self.broken = None                    # why the group can no longer be used

    def rank(self):
        """This process's rank in the group."""
        return self.comm.Get_rank()

    def size(self):
        """How many processes the group has."""
        return len(self.ranks)

    def group_rank(self, global_rank, name, arg):
        """The group rank of ``global_rank``, or a ValueError naming the argument."""
        if isinstance(global_rank, bool) or not isinstance(global_rank, int):
            raise TypeError(f"{name}: {arg} must be an int rank, got {global_rank!r}")
        r = self._global_to_group.get(global_rank)
        if r is None:
            raise ValueError(f"{name}: {arg}={global_rank} is not a rank of the group "
                             f"(its global ranks are {self.ranks})")
        return r

    def mark_broken(self, why):
        if self.broken is None:
            self.broken = why

    def check_usable(self, name):
        if self.broken is not None:
            raise DistBackendError(f"{name}: the process group cannot be used after an earlier "
                                   f"failure ({self.broken}); destroy it and exit")

    def __repr__(self):
        return f"<ProcessGroup {self.name} ranks={self.ranks}>"


class _NonGroupMember:
    def __repr__(self):
        return "GroupMember.NON_GROUP_MEMBER"


class GroupMember:
    """``GroupMember.WORLD`` (the default group once initialised) and
    ``GroupMember.NON_GROUP_MEMBER`` (what :func:`new_group` returns on ranks outside it).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.GroupMember.NON_GROUP_MEMBER
    GroupMember.NON_GROUP_MEMBER
    """
    WORLD = None
    NON_GROUP_MEMBER = _NonGroupMember()


class group:
    """``dist.group.WORLD``: the default group (None before :func:`init_process_group`).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.group.WORLD is None or isinstance(dist.group.WORLD, dist.ProcessGroup)
    True
    """
    WORLD = None


_groups = []          # every live group, the default first, for destroy_process_group()
_atexit_registered = False


def _set_world(pg):
    GroupMember.WORLD = pg
    group.WORLD = pg


def is_available():
    """True if cygrad can run distributed: mpi4py is installed (it is not imported here,
    since importing it starts MPI).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> isinstance(dist.is_available(), bool)
    True
    """
    return mpi4py_installed()


def is_mpi_available():
    """True if the MPI backend is available (cygrad's only backend).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.is_mpi_available() == dist.is_available()
    True
    """
    return mpi4py_installed()


def is_initialized():
    """True once :func:`init_process_group` has run (and until it is destroyed).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> isinstance(dist.is_initialized(), bool)
    True
    """
    return GroupMember.WORLD is not None


def world():
    """The default group, or PyTorch's ValueError if there is none yet."""
    if GroupMember.WORLD is None:
        raise ValueError(_NOT_INITIALIZED)
    return GroupMember.WORLD


def resolve(grp):
    """The group a collective's ``group=`` argument names (None: the default)."""
    if grp is None or grp is GroupMember.WORLD:
        return world()
    if grp is GroupMember.NON_GROUP_MEMBER:
        world()
        return grp
    if not isinstance(grp, ProcessGroup):
        raise TypeError(f"group must be a ProcessGroup made by new_group() (or None), got {grp!r}")
    if grp not in _groups:
        raise ValueError(f"{grp!r} has been destroyed")
    return grp


def _check_backend(backend):
    name = None if backend is None else str(backend).lower()
    if name in (None, "mpi", "cpu:mpi"):
        return
    if name in ("gloo", "cpu:gloo"):
        warnings.warn("cygrad.distributed runs every backend over MPI: backend='gloo' uses MPI",
                      stacklevel=3)
        return
    if "nccl" in name:
        raise RuntimeError("cygrad.distributed: the NCCL backend needs CUDA devices, which "
                           "cygrad does not support yet; use backend='mpi'")
    raise ValueError(f"cygrad.distributed: unknown backend {backend!r}; cygrad has 'mpi'")


def _finalize_safely():
    # A broken group may leave a collective half done; MPI_Finalize would then wait for
    # a peer that never comes. Abort instead, so every rank ends (as PyTorch's watchdog
    # takes a process down after a failed collective).
    for pg in _groups:
        if pg.broken is not None:
            import sys
            sys.stderr.write(f"cygrad.distributed: aborting the MPI job at exit ({pg.broken})\n")
            sys.stderr.flush()
            mpi().COMM_WORLD.Abort(1)


def init_process_group(backend=None, init_method=None, timeout=None, world_size=-1, rank=-1,
                       store=None, group_name="", pg_options=None, device_id=None):
    """Join the job's processes into the default process group.

    The processes are those of the MPI job this program runs in: start it with
    ``python -m cygrad.distributed.run -n N script.py`` (or a site's ``mpirun``/``srun``).
    A program started alone is a group of one.

    Parameters
    ----------
    backend : str, optional
        ``"mpi"`` (the default and only backend; ``"gloo"`` is accepted and runs over MPI).
    init_method : str, optional
        Ignored apart from ``"env://"``: MPI already knows the processes.
    timeout : datetime.timedelta, optional
        How long a collective may wait for the other ranks (default 30 minutes).
    world_size, rank : int, optional
        If given, must agree with what MPI reports.
    store, group_name, pg_options, device_id
        Accepted for PyTorch compatibility; ``store`` must be None.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> dist.get_rank(), dist.get_world_size()     # doctest: +SKIP
    (0, 2)
    """
    global _atexit_registered
    if GroupMember.WORLD is not None:
        raise ValueError("trying to initialize the default process group twice!")
    _check_backend(backend)
    if store is not None:
        raise ValueError("cygrad.distributed: store= is not supported (MPI finds the processes)")
    limit = timeout_seconds(default_pg_timeout if timeout is None else timeout)
    MPI = mpi()
    comm = MPI.COMM_WORLD.Dup()
    comm.Set_errhandler(MPI.ERRORS_RETURN)    # errors become Python exceptions, not aborts
    size, me = comm.Get_size(), comm.Get_rank()
    if world_size not in (-1, None) and world_size != size:
        comm.Free()
        raise ValueError(f"init_process_group: world_size={world_size} but the MPI job has {size} "
                         "process(es); start it with python -m cygrad.distributed.run -n "
                         f"{world_size} (or mpirun -n {world_size})")
    if rank not in (-1, None) and rank != me:
        comm.Free()
        raise ValueError(f"init_process_group: rank={rank} but MPI gave this process rank {me}")
    env_size = os.environ.get("WORLD_SIZE")
    if world_size in (-1, None) and env_size and env_size.isdigit() and int(env_size) != size:
        comm.Free()
        raise ValueError(f"init_process_group: WORLD_SIZE={env_size} in the environment but the "
                         f"MPI job has {size} process(es); start the program with "
                         f"python -m cygrad.distributed.run -n {env_size} script.py")
    local = comm.Split_type(MPI.COMM_TYPE_SHARED)
    local_rank, local_size = local.Get_rank(), local.Get_size()
    local.Free()
    # torchrun's variables, for scripts that read them (LOCAL_RANK picks a device, say).
    for key, value in (("RANK", me), ("WORLD_SIZE", size), ("LOCAL_RANK", local_rank),
                       ("LOCAL_WORLD_SIZE", local_size)):
        os.environ[key] = str(value)
    pg = ProcessGroup(comm, range(size), limit, group_name or "WORLD",
                      oversubscribed=local_size > (os.cpu_count() or 1))
    _groups.insert(0, pg)
    _set_world(pg)
    start_comm_thread()
    if not _atexit_registered:
        atexit.register(_finalize_safely)
        _atexit_registered = True


def destroy_process_group(group=None):
    """Free a process group; with no argument, every group (the default one included).

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> dist.destroy_process_group()               # doctest: +SKIP
    >>> dist.is_initialized()                      # doctest: +SKIP
    False
    """
    if group is GroupMember.NON_GROUP_MEMBER:
        return
    if group is None or group is GroupMember.WORLD:
        world()
        doomed = list(_groups)
    else:
        doomed = [resolve(group)]
    for pg in doomed:
        # A broken group's communicator may be mid-collective: it stays listed, and the
        # exit handler aborts the job instead of freeing it.
        if pg.broken is None:
            drain(pg, "destroy_process_group")
            pg.comm.Free()
            _groups.remove(pg)
    if group is None or group is GroupMember.WORLD:
        _set_world(None)


def get_rank(group=None):
    """This process's rank in ``group`` (default: the default group); -1 if not a member.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> dist.get_rank()                            # doctest: +SKIP
    0
    """
    pg = resolve(group)
    return -1 if pg is GroupMember.NON_GROUP_MEMBER else pg.rank()


def get_world_size(group=None):
    """How many processes ``group`` has (default: the default group); -1 if not a member.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> dist.get_world_size()                      # doctest: +SKIP
    2
    """
    pg = resolve(group)
    return -1 if pg is GroupMember.NON_GROUP_MEMBER else pg.size()


def get_backend(group=None):
    """The backend of ``group``: always ``"mpi"``.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> dist.init_process_group("mpi")             # doctest: +SKIP
    >>> dist.get_backend()                         # doctest: +SKIP
    'mpi'
    """
    resolve(group)
    return Backend.MPI


def get_process_group_ranks(group):
    """The global ranks of ``group``'s members, in group-rank order.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> g = dist.new_group([0, 1])                 # doctest: +SKIP
    >>> dist.get_process_group_ranks(g)            # doctest: +SKIP
    [0, 1]
    """
    pg = resolve(group)
    if pg is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("get_process_group_ranks: this rank is not a member of the group")
    return list(pg.ranks)


def get_global_rank(group, group_rank):
    """The global rank of ``group_rank`` in ``group``.

    Examples
    --------
    >>> g = dist.new_group([1])                    # doctest: +SKIP
    >>> dist.get_global_rank(g, 0)                 # doctest: +SKIP
    1
    """
    ranks = get_process_group_ranks(group)
    if not 0 <= group_rank < len(ranks):
        raise ValueError(f"get_global_rank: group rank {group_rank} is out of range for a group "
                         f"of {len(ranks)}")
    return ranks[group_rank]


def get_group_rank(group, global_rank):
    """The rank within ``group`` of the process with ``global_rank``.

    Examples
    --------
    >>> g = dist.new_group([1])                    # doctest: +SKIP
    >>> dist.get_group_rank(g, 1)                  # doctest: +SKIP
    0
    """
    pg = resolve(group)
    if pg is GroupMember.NON_GROUP_MEMBER:
        raise ValueError("get_group_rank: this rank is not a member of the group")
    return pg.group_rank(global_rank, "get_group_rank", "global_rank")


def new_group(ranks=None, timeout=None, backend=None, pg_options=None,
              use_local_synchronization=False, group_desc=None):
    """A process group of some of the ranks (every rank of the job must call it, with the
    same ``ranks``, as in PyTorch).

    Parameters
    ----------
    ranks : list of int, optional
        Global ranks of the members (default: all).
    timeout : datetime.timedelta, optional
        The group's collective timeout (default: the default group's).
    backend, pg_options, use_local_synchronization, group_desc
        Accepted for PyTorch compatibility (``backend`` as in :func:`init_process_group`).

    Returns
    -------
    ProcessGroup or GroupMember.NON_GROUP_MEMBER
        The latter on ranks outside the group.

    Examples
    --------
    >>> import cygrad.distributed as dist
    >>> evens = dist.new_group([0, 2])             # doctest: +SKIP
    """
    pg_world = world()
    _check_backend(backend)
    size = pg_world.size()
    members = list(range(size)) if ranks is None else sorted(set(ranks))
    for r in members:
        if isinstance(r, bool) or not isinstance(r, int) or not 0 <= r < size:
            raise ValueError(f"new_group: rank {r!r} is out of range for a job of {size} processes")
    limit = pg_world.timeout if timeout is None else timeout_seconds(timeout)
    if pg_world.rank() not in members:
        return GroupMember.NON_GROUP_MEMBER
    MPI = mpi()
    drain(pg_world, "new_group")      # creating a communicator is a collective on the parent
    sub = pg_world.comm.Get_group().Incl(members)
    comm = pg_world.comm.Create_group(sub)
    sub.Free()
    comm.Set_errhandler(MPI.ERRORS_RETURN)
    pg = ProcessGroup(comm, members, limit, group_desc or f"group{len(_groups)}",
                      pg_world.oversubscribed)
    _groups.append(pg)
    return pg
