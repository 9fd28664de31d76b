"""Collation: turning a list of samples into one batch (``default_collate``), and
turning NumPy data in an unbatched sample into tensors (``default_convert``).

Both follow the sample's structure: a dict of samples becomes a dict of batches, a
namedtuple a namedtuple, a tuple or list a list (a list subclass keeps its type), and
the leaves become tensors with a new first dimension. The rules are PyTorch's, so a
dataset written for ``torch.utils.data`` batches the same way here.

Inside a DataLoader worker, a batch of tensors is stacked straight into a new
shared-memory segment, which then travels to the main process by name (see
``docs/data.md``); in the main process it is an ordinary ``stack``.
"""
import collections.abc
import copy
import re

import numpy as np

from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import Tensor
from ...ops.creation import as_tensor, tensor
from ...ops.shape import stack
from . import _worker

__all__ = ["collate", "default_collate", "default_convert", "default_collate_fn_map",
           "collate_tensor_fn"]

# NumPy dtypes that are text or Python objects, never numbers: bytes, str, object.
_TEXT_OR_OBJECT = re.compile(r"[SaUO]")
_ERR = "default_collate: batch must contain tensors, numpy arrays, numbers, dicts or lists; found {}"


def _rebuild_like(elem, items):
    """A container of ``elem``'s kind holding ``items`` (a dict of values for a mapping,
    a list for a sequence); a plain dict or list if the type cannot be rebuilt."""
    if isinstance(elem, collections.abc.Mapping):
        try:
            if isinstance(elem, collections.abc.MutableMapping):
                # copy.copy keeps extra attributes (e.g. an OrderedDict subclass's state).
                out = copy.copy(elem)
                out.update(items)
                return out
            return type(elem)(items)
        except TypeError:
            return dict(items)
    try:
        if isinstance(elem, collections.abc.MutableSequence):
            out = copy.copy(elem)
            for i, v in enumerate(items):
                out[i] = v
            return out
        return type(elem)(items)
    except TypeError:
        return list(items)


def collate(batch, *, collate_fn_map=None):
    """Collate ``batch`` (a list of samples) following the samples' structure, using
    ``collate_fn_map`` (``{type or tuple of types: fn(batch, *, collate_fn_map)}``) for
    the leaves. A type is looked up exactly first, then by ``isinstance`` in order.

    Examples
    --------
    >>> from cygrad.utils.data import collate
    >>> collate([{"a": "x"}, {"a": "y"}], collate_fn_map={str: lambda b, **kw: "".join(b)})
    {'a': 'xy'}
    """
    elem = batch[0]
    kind = type(elem)
    if collate_fn_map is not None:
        if kind in collate_fn_map:
            return collate_fn_map[kind](batch, collate_fn_map=collate_fn_map)
        for key, fn in collate_fn_map.items():
            if isinstance(elem, key):
                return fn(batch, collate_fn_map=collate_fn_map)
    if isinstance(elem, collections.abc.Mapping):
        return _rebuild_like(elem, {k: collate([d[k] for d in batch], collate_fn_map=collate_fn_map)
                                    for k in elem})
    if isinstance(elem, tuple) and hasattr(elem, "_fields"):       # a namedtuple
        return kind(*(collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)))
    if isinstance(elem, collections.abc.Sequence):
        size = len(elem)
        if any(len(e) != size for e in batch):
            raise RuntimeError("each element in list of batch should be of equal size")
        columns = [collate(s, collate_fn_map=collate_fn_map) for s in zip(*batch)]
        if isinstance(elem, tuple):
            return columns       # PyTorch returns a list for tuples; kept for compatibility
        return _rebuild_like(elem, columns)
    raise TypeError(_ERR.format(kind))


def collate_tensor_fn(batch, *, collate_fn_map=None):
    """Stack tensors along a new first dim; in a DataLoader worker, into shared memory."""
    elem = batch[0]
    out = None
    if _worker.get_worker_info() is not None:
        from ...multiprocessing.reductions import empty_shared
        out = empty_shared((len(batch), *elem.shape), elem.dtype, handoff=True)
    return stack(batch, 0, out=out)


def _collate_ndarray(batch, *, collate_fn_map=None):
    if _TEXT_OR_OBJECT.search(batch[0].dtype.str) is not None:
        raise TypeError(_ERR.format(batch[0].dtype))
    return collate([as_tensor(b) for b in batch], collate_fn_map=collate_fn_map)


def _collate_numpy_scalar(batch, *, collate_fn_map=None):
    # Through one array so the scalars' own dtype (e.g. int32) is kept.
    return as_tensor(np.asarray(batch))


def _collate_float(batch, *, collate_fn_map=None):
    return tensor(batch, dtype=_dt.float64)


def _collate_int(batch, *, collate_fn_map=None):
    return tensor(batch)


def _collate_text(batch, *, collate_fn_map=None):
    return batch


default_collate_fn_map = {
    Tensor: collate_tensor_fn,
    np.ndarray: _collate_ndarray,
    (np.bool_, np.number, np.object_): _collate_numpy_scalar,
    float: _collate_float,
    int: _collate_int,
    str: _collate_text,
    bytes: _collate_text,
}


def default_collate(batch):
    """Put a list of samples together into a batch: tensors, NumPy arrays and numbers
    become one tensor with a new first dimension (Python floats as float64, ints as
    int64, bools as bool); strings are left as they come (a list of them, or a tuple
    for a field of tuple or list samples); dicts, namedtuples, tuples and lists are
    collated field by field (a tuple becomes a list).

    Examples
    --------
    >>> import collections
    >>> from cygrad.utils.data import default_collate
    >>> default_collate([0, 1, 2])
    tensor([0, 1, 2])
    >>> default_collate([{"x": 1.5, "name": "a"}, {"x": 2.0, "name": "b"}])
    {'x': tensor([1.5000, 2.0000], dtype=cygrad.float64), 'name': ['a', 'b']}
    >>> Point = collections.namedtuple("Point", "x y")
    >>> default_collate([Point(0, 1), Point(2, 3)])
    Point(x=tensor([0, 2]), y=tensor([1, 3]))
    >>> default_collate([(0, "a"), (1, "b")])
    [tensor([0, 1]), ('a', 'b')]
    """
    return collate(batch, collate_fn_map=default_collate_fn_map)


def default_convert(data):
    """Turn the NumPy arrays and NumPy scalars in one sample into tensors, following
    its structure (as :func:`default_collate`, without adding a batch dimension). The
    loader's default ``collate_fn`` when automatic batching is off (``batch_size=None``).

    Examples
    --------
    >>> import numpy as np
    >>> from cygrad.utils.data import default_convert
    >>> default_convert({"a": np.array([1, 2], dtype=np.int32), "b": 3})
    {'a': tensor([1, 2], dtype=cygrad.int32), 'b': 3}
    >>> default_convert((np.float64(0.5), "x"))
    [tensor(0.5000, dtype=cygrad.float64), 'x']
    """
    kind = type(data)
    if isinstance(data, TensorBase):
        return data
    if kind.__module__ == "numpy" and kind.__name__ not in ("str_", "bytes_", "string_"):
        if isinstance(data, np.ndarray) and _TEXT_OR_OBJECT.search(data.dtype.str) is not None:
            return data
        return as_tensor(data)
    if isinstance(data, collections.abc.Mapping):
        return _rebuild_like(data, {k: default_convert(data[k]) for k in data})
    if isinstance(data, tuple) and hasattr(data, "_fields"):
        return kind(*(default_convert(d) for d in data))
    if isinstance(data, tuple):
        return [default_convert(d) for d in data]
    if isinstance(data, collections.abc.Sequence) and not isinstance(data, (str, bytes)):
        return _rebuild_like(data, [default_convert(d) for d in data])
    return data
