"""How a worker's batch reaches the main process: through shared memory, not a pipe.

The worker pickles its batch with :class:`BatchPickler`. Every tensor in it is written
as a *description* (segment name, byte offset, dtype, shape, strides): a tensor that
``default_collate`` already stacked into a fresh segment goes as it is, any other tensor
is first copied into a new segment. Only those descriptions, a few hundred bytes, go
through the result queue. :func:`loads` in the main process maps each segment, builds
the tensor over it with ``cygrad.from_numpy`` (no copy) and unlinks the name at once:
from then on the memory lives exactly as long as the tensors over it.

A tensor that is already shared and belongs to another process (say, one the main
process shared before forking the workers) is described by name and not unlinked.

Examples
--------
>>> import cygrad
>>> from cygrad.utils.data import _transport
>>> data = _transport.dumps({"x": cygrad.arange(3.0), "label": "a"})
>>> len(data) < 300            # descriptions only
True
>>> batch = _transport.loads(data)
>>> batch["x"].tolist(), batch["x"].is_shared()
([0.0, 1.0, 2.0], True)
"""
import io
import pickle

from ..._core.tensor import TensorBase
from ...multiprocessing import reductions

__all__ = ["BatchPickler", "dumps", "loads"]


def _rebuild(cls, meta, handoff, requires_grad):
    return reductions.restore_type(cls, reductions.rebuild(meta, unlink=handoff), requires_grad)


class BatchPickler(pickle.Pickler):
    """A pickler that sends tensors as shared-memory segment descriptions."""

    def __init__(self, file):
        super().__init__(file, protocol=pickle.HIGHEST_PROTOCOL)
        self.handed_off = []    # segments whose names the receiver will unlink
        self._copies = []       # keeps copies mapped until they are marked as sent

    def reducer_override(self, obj):
        if isinstance(obj, TensorBase):
            return self._reduce_tensor(obj)
        return NotImplemented

    def _reduce_tensor(self, t):
        reductions.check_leaf(t)
        seg = reductions.segment_of(t)
        handoff = True
        if seg is not None and seg.named and seg.handoff and seg.made_here() and not seg.sent:
            self.handed_off.append(seg)
            src = t
        elif seg is not None and seg.named and not seg.handoff and not seg.made_here():
            handoff = False
            src = t
        else:
            seg, src = reductions._new_segment_copy(t, handoff=True)
            self.handed_off.append(seg)
            self._copies.append(src)
        return (_rebuild, (type(t), reductions.describe(src, seg), handoff, t.requires_grad))

    def mark_sent(self):
        """After a successful dump: the receiver now owns the handed-off names."""
        for seg in self.handed_off:
            seg.sent = True
        self._copies.clear()


def dumps(obj):
    """``obj`` pickled with its tensors in shared memory (see the module docstring)."""
    buf = io.BytesIO()
    pickler = BatchPickler(buf)
    pickler.dump(obj)
    pickler.mark_sent()
    return buf.getvalue()


def loads(data):
    """The object :func:`dumps` pickled, its tensors mapped from shared memory."""
    return pickle.loads(data)
