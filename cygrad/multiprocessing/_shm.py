"""Named shared-memory segments: the one place cygrad creates, maps and unlinks them.

A segment is a file in ``/dev/shm`` (a RAM-backed file system on Linux; another
temporary directory elsewhere), mapped with ``mmap``. Tensors live in it through
``cygrad.from_numpy`` on a NumPy array over the mapping, so the tensor's storage keeps
the mapping alive and nothing is copied when a segment changes hands: another process
maps the same file by name.

Who unlinks the name (the mapping itself stays valid after that in every process that
has it):

- a segment made by ``Tensor.share_memory_()`` belongs to the process that made it: the
  name goes when that process frees the memory, or at interpreter exit;
- a segment made to carry one DataLoader batch is *handed off*: the receiving process
  unlinks the name as soon as it has mapped it. If it is never sent, its maker unlinks
  it when the memory is freed; names left by a worker that died are removed by the
  loader (``remove_leftovers``).

Names are ``cygrad_<pid>_<counter>_<random>``: the maker's pid in the name is what lets
a loader find what a dead worker left behind.

Examples
--------
>>> from cygrad.multiprocessing import _shm
>>> seg, flat = _shm.create(64)
>>> flat[:3] = 7
>>> other = _shm.attach(seg.name, 64)
>>> other is flat, int(other[2])     # the same process gets its existing mapping
(True, 7)
"""
import atexit
import itertools
import mmap
import os
import secrets
import tempfile
import weakref
from multiprocessing import util as mp_util

import numpy as np

__all__ = ["create", "attach", "find", "remove_leftovers", "leftovers", "SHM_DIR"]

SHM_DIR = "/dev/shm" if os.path.isdir("/dev/shm") else tempfile.gettempdir()
_PREFIX = "cygrad_"
_counter = itertools.count()
# name -> Segment, for every segment mapped in this process and still alive.
_live = {}


class Segment:
    """What this process knows about one mapped segment (not the memory itself)."""

    __slots__ = ("name", "nbytes", "address", "maker_pid", "handoff", "sent", "named", "_array")

    def __init__(self, name, nbytes, address, maker_pid, handoff, array):
        self.name = name
        self.nbytes = nbytes
        self.address = address
        self.maker_pid = maker_pid
        # A handed-off segment is unlinked by its receiver; until it is sent, by its maker.
        self.handoff = handoff
        self.sent = False
        # False once the name is unlinked: the memory is still shared with whoever mapped
        # it, but no new process can reach it.
        self.named = True
        self._array = weakref.ref(array)

    def made_here(self):
        """Whether this process made the segment (so it decides when the name goes)."""
        return self.maker_pid == os.getpid()

    def _maker_unlinks(self):
        return self.named and self.made_here() and not (self.handoff and self.sent)

    def array(self):
        """The flat ``uint8`` array over the whole mapping, or None once it is freed."""
        return self._array()

    def __repr__(self):
        return f"Segment({self.name!r}, {self.nbytes} bytes)"


def _path(name):
    return os.path.join(SHM_DIR, name)


def _unlink(name):
    try:
        os.unlink(_path(name))
    except FileNotFoundError:
        pass


def _on_free(seg):
    # Runs when the mapping is garbage (every array and tensor over it is gone). A forked
    # child frees its inherited copies too: only the maker unlinks.
    if _live.get(seg.name) is seg:
        del _live[seg.name]
    if seg._maker_unlinks():
        _unlink(seg.name)


def _exit_cleanup():
    for seg in list(_live.values()):
        if seg._maker_unlinks():
            seg.named = False
            _unlink(seg.name)


_hooked_pid = None


def _hook_exit():
    # atexit covers the main process; multiprocessing children leave through os._exit
    # after running multiprocessing's own finalizers, so register there too.
    global _hooked_pid
    if _hooked_pid != os.getpid():
        _hooked_pid = os.getpid()
        atexit.register(_exit_cleanup)
        mp_util.Finalize(None, _exit_cleanup, exitpriority=0)


def _map(name, fd, nbytes, maker_pid, handoff):
    mm = mmap.mmap(fd, nbytes)
    flat = np.frombuffer(mm, dtype=np.uint8)
    address = flat.__array_interface__["data"][0]
    seg = _live[name] = Segment(name, nbytes, address, maker_pid, handoff, flat)
    weakref.finalize(mm, _on_free, seg).atexit = False
    return flat


def create(nbytes, *, handoff=False):
    """Make a new segment of ``nbytes`` bytes (at least 1) and map it; ``handoff`` marks
    it as meant for one receiver, who unlinks its name.

    Returns ``(segment, flat)``: the :class:`Segment` record and a ``uint8`` array over
    the whole mapping. Raises ``RuntimeError`` (not a later bus error) when the
    shared-memory file system has no room.

    Examples
    --------
    >>> from cygrad.multiprocessing import _shm
    >>> seg, flat = _shm.create(10)
    >>> flat.shape, seg.name.startswith("cygrad_")
    ((10,), True)
    """
    nbytes = max(int(nbytes), 1)
    pid = os.getpid()
    _hook_exit()
    name = f"{_PREFIX}{pid}_{next(_counter)}_{secrets.token_hex(4)}"
    fd = os.open(_path(name), os.O_RDWR | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        # Reserve the pages now: on a full tmpfs a plain ftruncate succeeds and the first
        # write to the mapping kills the process with SIGBUS.
        if hasattr(os, "posix_fallocate"):
            os.posix_fallocate(fd, 0, nbytes)
        else:
            os.ftruncate(fd, nbytes)
        flat = _map(name, fd, nbytes, pid, handoff)
    except OSError as e:
        _unlink(name)
        raise RuntimeError(f"could not allocate {nbytes} bytes of shared memory in {SHM_DIR} "
                           f"({e.strerror}); it may be full or too small (on Docker, raise "
                           "--shm-size)") from e
    except BaseException:
        _unlink(name)
        raise
    finally:
        os.close(fd)
    return _live[name], flat


def attach(name, nbytes, *, unlink=False):
    """Map the segment ``name`` (made by any process); ``unlink`` removes its name once
    mapped (the receiver's job for a handed-off segment).

    A segment already mapped in this process is returned as is, so tensors received
    twice share one mapping.

    Examples
    --------
    >>> from cygrad.multiprocessing import _shm
    >>> seg, flat = _shm.create(8)
    >>> _shm.attach(seg.name, 8) is flat
    True
    """
    seg = _live.get(name)
    if seg is not None:
        flat = seg.array()
        if flat is not None:
            if unlink:
                seg.named = False
                _unlink(name)
            return flat
    try:
        fd = os.open(_path(name), os.O_RDWR)
    except FileNotFoundError:
        raise RuntimeError(
            f"shared memory segment {name!r} no longer exists: the process that sent the "
            "tensor freed it (or exited) before this process received it. Keep a reference "
            "to a shared tensor in the sender until the receiver has it.") from None
    try:
        flat = _map(name, fd, nbytes, _maker_pid(name), False)
    finally:
        os.close(fd)
        if unlink:
            _unlink(name)
    if unlink:
        _live[name].named = False
    return flat


def _maker_pid(name):
    return int(name[len(_PREFIX):].split("_", 1)[0])


def find(address):
    """The live :class:`Segment` holding ``address`` in this process, or None.

    Examples
    --------
    >>> from cygrad.multiprocessing import _shm
    >>> seg, flat = _shm.create(16)
    >>> _shm.find(flat.__array_interface__["data"][0] + 4) is seg
    True
    """
    for seg in list(_live.values()):      # a finalizer may remove one meanwhile
        if seg.address <= address < seg.address + seg.nbytes:
            return seg
    return None


def leftovers(pid=None):
    """Names of cygrad segments present in the shared-memory directory (made by ``pid``,
    or by anyone).

    Examples
    --------
    >>> import os
    >>> from cygrad.multiprocessing import _shm
    >>> seg, flat = _shm.create(4)
    >>> seg.name in _shm.leftovers(os.getpid())
    True
    """
    prefix = _PREFIX if pid is None else f"{_PREFIX}{pid}_"
    try:
        return sorted(n for n in os.listdir(SHM_DIR) if n.startswith(prefix))
    except FileNotFoundError:
        return []


def remove_leftovers(pid):
    """Unlink every segment name made by process ``pid`` (which must be dead: its names
    can no longer reach anyone, and mappings already made stay valid).

    Examples
    --------
    >>> from cygrad.multiprocessing import _shm
    >>> _shm.remove_leftovers(2 ** 22 + 12345)   # a pid that made nothing: no-op
    0
    """
    names = leftovers(pid)
    for name in names:
        _unlink(name)
    return len(names)
