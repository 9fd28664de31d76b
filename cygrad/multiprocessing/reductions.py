"""Tensors in shared memory: ``Tensor.share_memory_()``, ``Tensor.is_shared()``, and the
pickling rule that sends a tensor to another process as a segment name plus geometry.

A tensor is *shared* when its memory lies in a segment made by :mod:`._shm`. Moving a
tensor there copies its values into a new segment and then points the tensor at it with
``tensor.data = ...``: the tensor keeps its autograd identity (``requires_grad``, leaf
status, hooks), as in PyTorch.

Limitation: PyTorch moves the *storage*, so every view of it follows. cygrad's core has
no way to swap a storage's memory under the views already made from it, so only the
tensor ``share_memory_()`` is called on moves; other views keep the old private memory.
Call ``share_memory_()`` before making views (``nn.Module.share_memory()`` does it for
parameters, which are not views).

Examples
--------
>>> import cygrad
>>> t = cygrad.arange(4.0)
>>> t.is_shared()
False
>>> t.share_memory_().is_shared(), t.tolist()
(True, [0.0, 1.0, 2.0, 3.0])
"""
import numpy as np

from .._core.tensor import from_numpy
from .._tensor import Tensor, tensor_method
from ..autograd import no_grad
from . import _shm

__all__ = ["share_memory_", "is_shared", "empty_shared", "segment_of", "describe",
           "rebuild", "reduce_tensor", "init_reductions"]


def segment_of(tensor):
    """The :class:`_shm.Segment` holding ``tensor``'s memory in this process, or None."""
    return _shm.find(tensor.untyped_storage().data_ptr())


def _span(shape, strides):
    # Lowest and highest element (relative to element [0, ..., 0]) the geometry reaches.
    lo = hi = 0
    if all(n > 0 for n in shape):
        for n, s in zip(shape, strides):
            if s < 0:
                lo += s * (n - 1)
            else:
                hi += s * (n - 1)
    return lo, hi


def _over(flat, byte_offset, dtype, shape, strides):
    """A tensor over segment memory ``flat`` with the given geometry (no copy)."""
    isz = dtype.itemsize
    arr = np.ndarray(tuple(shape), dtype=dtype.np_dtype, buffer=flat, offset=byte_offset,
                     strides=tuple(s * isz for s in strides))
    return from_numpy(arr)


def _new_segment_copy(tensor, handoff):
    """A tensor with ``tensor``'s geometry and values in a new segment."""
    shape, strides, dtype = tuple(tensor.shape), tensor.stride(), tensor.dtype
    isz = dtype.itemsize
    numel = tensor.numel()
    lo, hi = _span(shape, strides)
    count = hi - lo + 1 if numel else 0
    seg, flat = _shm.create(count * isz, handoff=handoff)
    if count:
        # Copy the whole reachable range as one flat run: a geometry with stride 0 (an
        # expanded tensor) cannot be written element by element.
        src = tensor.detach().as_strided((count,), (1,), tensor.storage_offset() + lo)
        with no_grad():
            _over(flat, 0, dtype, (count,), (1,)).copy_(src)
    return seg, _over(flat, -lo * isz, dtype, shape, strides)


@tensor_method
def share_memory_(self):
    """Move this tensor's values to shared memory (in place; no-op if already there).

    A process that receives the tensor afterwards (through a ``cygrad.multiprocessing``
    queue, or by inheriting it with ``fork``) writes to the same memory. Only this
    tensor moves, not other views of its old memory (see the module notes).

    Examples
    --------
    >>> import cygrad
    >>> w = cygrad.zeros(3, requires_grad=True)
    >>> w.share_memory_() is w, w.is_shared(), w.requires_grad
    (True, True, True)
    """
    if not is_shared(self):
        self.data = _new_segment_copy(self, handoff=False)[1]
    return self


@tensor_method
def is_shared(self):
    """Whether this tensor's memory is in shared memory.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2).is_shared()
    False
    """
    return segment_of(self) is not None


def empty_shared(shape, dtype, *, handoff=False):
    """A new contiguous tensor in its own segment (values uninitialised: zeros).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.multiprocessing.reductions import empty_shared
    >>> t = empty_shared((2, 3), cygrad.float32)
    >>> t.shape, t.is_shared()
    (cygrad.Size([2, 3]), True)
    """
    shape = tuple(shape)
    strides, step = [], 1
    for n in reversed(shape):
        strides.append(step)
        step *= max(n, 1)
    strides.reverse()
    numel = 1
    for n in shape:
        numel *= n
    _, flat = _shm.create(numel * dtype.itemsize, handoff=handoff)
    return _over(flat, 0, dtype, shape, strides)


def describe(tensor, seg):
    """The picklable description of ``tensor`` inside segment ``seg``:
    ``(name, segment bytes, byte offset of element [0...], dtype, shape, strides)``."""
    return (seg.name, seg.nbytes, tensor.data_ptr() - seg.address, tensor.dtype,
            tuple(tensor.shape), tuple(tensor.stride()))


def rebuild(meta, unlink=False):
    """The tensor ``describe`` described, mapped from its segment (no copy)."""
    name, nbytes, byte_offset, dtype, shape, strides = meta
    return _over(_shm.attach(name, nbytes, unlink=unlink), byte_offset, dtype, shape, strides)


def check_leaf(tensor):
    """PyTorch's refusal to send a tensor that is part of an autograd graph."""
    if tensor.requires_grad and not tensor.is_leaf:
        raise RuntimeError(
            "Cowardly refusing to serialize non-leaf tensor which requires_grad, since "
            "autograd does not support crossing process boundaries.  If you just want to "
            "transfer the data, call detach() on the tensor before serializing (e.g., "
            "putting it on the queue).")


def restore_type(cls, tensor, requires_grad):
    """``tensor`` as an instance of ``cls`` (a Tensor subclass such as a Parameter)."""
    if cls is not Tensor:
        obj = Tensor.__new__(cls)
        obj.data = tensor
        tensor = obj
    if requires_grad:
        tensor.requires_grad_(True)
    return tensor


def _rebuild_shared(cls, meta, requires_grad):
    return restore_type(cls, rebuild(meta), requires_grad)


def reduce_tensor(tensor):
    """Pickle ``tensor`` for another process as a segment name and geometry, moving it
    to shared memory first (in place) if it is not there yet, as PyTorch does.

    Examples
    --------
    >>> import cygrad
    >>> from multiprocessing.reduction import ForkingPickler
    >>> t = cygrad.arange(3.0)
    >>> u = ForkingPickler.loads(ForkingPickler.dumps(t))
    >>> t.is_shared(), u.tolist()
    (True, [0.0, 1.0, 2.0])
    >>> u[0] = 9.0               # the same memory
    >>> t[0].item()
    9.0
    """
    check_leaf(tensor)
    seg = segment_of(tensor)
    if seg is None or not seg.named:
        # Not shared, or shared under a name that is gone (a received DataLoader batch):
        # a new segment this process owns.
        tensor.data = _new_segment_copy(tensor, handoff=False)[1]
        seg = segment_of(tensor)
    return (_rebuild_shared, (type(tensor), describe(tensor, seg), tensor.requires_grad))


def _subclasses(cls):
    for sub in cls.__subclasses__():
        yield sub
        yield from _subclasses(sub)


def init_reductions():
    """Register :func:`reduce_tensor` with ``multiprocessing``'s pickler for
    ``cygrad.Tensor`` and its subclasses defined so far (``nn.Parameter``...).

    Pickling looks reducers up by exact type: a Tensor subclass defined after this call
    is sent by value (copied) until ``init_reductions()`` runs again.
    """
    from multiprocessing.reduction import ForkingPickler
    for cls in (Tensor, *_subclasses(Tensor)):
        ForkingPickler.register(cls, reduce_tensor)

