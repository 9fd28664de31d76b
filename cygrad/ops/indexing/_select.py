"""The kernel behind ``where`` and ``masked_fill``: ``res[...] = x if cond else y``
on NumPy views, elements chosen one by one by a boolean condition.

NumPy's masked copy (``np.copyto(..., where=)``, and ``np.where``) branches on every
element: with a mask that is not sorted, a branch mispredicted half the time costs
~10 ns per element, 20-50x the cost of a multiply.  Above a few thousand elements
the choice is made without branches instead, on the bits of the values:
``y ^ ((x ^ y) * cond)`` over integers of the elements' width picks ``x``'s bits where
``cond`` is 1 and ``y``'s where it is 0, exactly (NaN payloads, -0.0 and all).

Examples
--------
>>> import numpy as np
>>> from cygrad.ops.indexing._select import select_into
>>> res = np.empty(4, np.float32)
>>> select_into(res, np.array([True, False, True, False]), np.float32(1), np.arange(4.0))
>>> res.tolist()
[1.0, 1.0, 1.0, 3.0]
"""
import numpy as np

from ..._core import tensor as _C
from ..._core import dtype as _dt

# Below this many elements the branchy copy is as fast and needs no scratch buffer.
BLEND_MIN = 2048

_BITS = {1: (np.int8, _dt.int8), 2: (np.int16, _dt.int16), 4: (np.int32, _dt.int32),
         8: (np.int64, _dt.int64)}


def select_into(res, cond, x, y=None):
    """Write ``where(cond, x, y)`` into the NumPy array ``res``.

    ``cond`` is a bool array, ``x`` and ``y`` arrays (0-d for numbers); all broadcast
    to ``res``'s shape and are cast to its dtype as by ``casting="unsafe"``.
    ``y=None`` means ``res`` already holds ``y`` (an in-place masked fill).

    Examples
    --------
    >>> import numpy as np
    >>> from cygrad.ops.indexing._select import select_into
    >>> res = np.arange(3)
    >>> select_into(res, np.array([False, True, False]), np.asarray(9))
    >>> res.tolist()
    [0, 9, 2]
    """
    if res.size == 0:
        return
    bits = _BITS.get(res.dtype.itemsize) if res.size >= BLEND_MIN else None
    if bits is None:
        if y is not None:
            np.copyto(res, y, casting="unsafe")
        np.copyto(res, x, casting="unsafe", where=cond)
        return
    np_int, dt_int = bits
    y = res if y is None else y.astype(res.dtype, copy=False)
    yi = y.view(np_int)
    # scratch from cygrad's allocator: a fresh NumPy buffer of this size costs page faults
    tmp = _C._ndarray(_C._empty(res.shape, dt_int, _C.CPU))
    np.bitwise_xor(x.astype(res.dtype, copy=False).view(np_int), yi, out=tmp)
    np.multiply(tmp, cond, out=tmp)
    np.bitwise_xor(yi, tmp, out=res.view(np_int))
