"""Broadcasting and dimension-adding views: ``broadcast_shapes``,
``broadcast_tensors``, ``broadcast_to``, ``atleast_1d/2d/3d`` and ``meshgrid``.

All results are views (``expand``/``reshape`` of the inputs), so autograd needs
nothing here: the core records the views.
"""
import numbers

from ..._core import tensor as _C
from ..._core.tensor import TensorBase
from .._argcheck import int_list_arg, not_tensor
from ._common import _check_devices, _tensor_seq


def broadcast_shapes(*shapes):
    """The shape tensors of these shapes broadcast to (without making tensors).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.broadcast_shapes((2, 1), (3,))
    cygrad.Size([2, 3])
    """
    norm = []
    for s in shapes:
        s = (int(s),) if isinstance(s, numbers.Integral) else tuple(int(x) for x in s)
        if any(x < 0 for x in s):
            raise ValueError("Attempting to broadcast a dimension with negative length!")
        norm.append(s)
    # course: begin broadcast-shapes
    ndim = max((len(s) for s in norm), default=0)
    result = [1] * ndim
    for i, s in enumerate(norm):
        for k in range(1, len(s) + 1):
            size = s[-k]
            if size == 1 or size == result[-k]:
                continue
            if result[-k] == 1:
                result[-k] = size
            else:
                raise RuntimeError(f"Attempting to broadcast a dimension of length {size} at -{k}! "
                                   f"Mismatching argument at index {i} had {s}; but expected shape "
                                   f"should be broadcastable to {result}")
    return _C.Size(result)
    # course: end broadcast-shapes


def _broadcast_pair_error(shapes):
    """PyTorch's elementwise message for the first mismatching pair of shapes."""
    acc = shapes[0]
    for s in shapes[1:]:
        n = max(len(acc), len(s))
        a = (1,) * (n - len(acc)) + tuple(acc)
        b = (1,) * (n - len(s)) + tuple(s)
        for i, (x, y) in enumerate(zip(a, b)):
            if x != y and x != 1 and y != 1:
                raise RuntimeError(f"The size of tensor a ({x}) must match the size of tensor b "
                                   f"({y}) at non-singleton dimension {i}")
        acc = tuple(y if x == 1 else x for x, y in zip(a, b))
    return acc


def broadcast_tensors(*tensors):
    """Views of the tensors expanded to their common broadcast shape.

    Examples
    --------
    >>> import cygrad
    >>> a, b = cygrad.broadcast_tensors(cygrad.zeros(2, 1), cygrad.zeros(3))
    >>> a.shape, b.shape
    (cygrad.Size([2, 3]), cygrad.Size([2, 3]))
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    if not tensors:
        return ()
    _tensor_seq(tensors, "broadcast_tensors")
    shape = _broadcast_pair_error([tuple(x.shape) for x in tensors])
    # (a tuple, not unpacked: the 0-d shape () must still name a size)
    return tuple(x.expand(shape) for x in tensors)


def broadcast_to(input, size):
    """A view of ``input`` broadcast to ``size`` (``Tensor.expand``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.broadcast_to(cygrad.tensor([1, 2]), (2, 2)).tolist()
    [[1, 2], [1, 2]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "broadcast_to")
    return input.expand(int_list_arg(size, "broadcast_to", "size", 2, allow_int=False))


def _atleast(args, fn, opname):
    seq = tuple(args[0]) if len(args) == 1 and isinstance(args[0], (list, tuple)) else args
    for x in seq:
        if not isinstance(x, TensorBase):
            raise not_tensor(x, opname, "tensors", None)
    if len(args) == 1 and not isinstance(args[0], (list, tuple)):
        return fn(args[0])
    return tuple(fn(x) for x in seq)


def atleast_1d(*tensors):
    """Each tensor as a view with at least 1 dim (0-dim -> shape (1,)).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.atleast_1d(cygrad.full((), 5.0)).shape
    cygrad.Size([1])
    """
    return _atleast(tensors, lambda x: x.reshape(1) if x.dim() == 0 else x, "atleast_1d")


def atleast_2d(*tensors):
    """Each tensor as a view with at least 2 dims: 1-D (n,) becomes (1, n).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.atleast_2d(cygrad.zeros(3)).shape
    cygrad.Size([1, 3])
    """
    def to2(x):
        if x.dim() == 0:
            return x.reshape(1, 1)
        return x.unsqueeze(0) if x.dim() == 1 else x
    return _atleast(tensors, to2, "atleast_2d")


def atleast_3d(*tensors):
    """Each tensor as a view with at least 3 dims: (n,) -> (1, n, 1), (m, n) -> (m, n, 1).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.atleast_3d(cygrad.zeros(2, 3)).shape
    cygrad.Size([2, 3, 1])
    """
    def to3(x):
        if x.dim() == 0:
            return x.reshape(1, 1, 1)
        if x.dim() == 1:
            return x.unsqueeze(0).unsqueeze(-1)
        return x.unsqueeze(-1) if x.dim() == 2 else x
    return _atleast(tensors, to3, "atleast_3d")


def meshgrid(*tensors, indexing=None):
    """Coordinate grids from 1-D tensors: with ``indexing="ij"`` (the default) output
    ``k`` varies along dim ``k``; ``"xy"`` swaps the first two dims (Cartesian, as
    NumPy's default).  The outputs are expanded views.

    Examples
    --------
    >>> import cygrad
    >>> x, y = cygrad.meshgrid(cygrad.tensor([1, 2]), cygrad.tensor([3, 4, 5]))
    >>> x.shape, x[:, 0].tolist(), y[0].tolist()
    (cygrad.Size([2, 3]), [1, 2], [3, 4, 5])
    """
    if len(tensors) == 1 and isinstance(tensors[0], (list, tuple)):
        tensors = tuple(tensors[0])
    tensors = _tensor_seq(tensors, "meshgrid")
    indexing = "ij" if indexing is None else indexing
    if not isinstance(indexing, str):
        raise TypeError(f"meshgrid(): argument 'indexing' must be str, not "
                        f"{type(indexing).__name__}")
    if indexing not in ("ij", "xy"):
        raise RuntimeError(f'torch.meshgrid: indexing must be one of "xy" or "ij", but received: '
                           f'{indexing}')
    if not tensors:
        raise RuntimeError("meshgrid expects a non-empty TensorList")
    for x in tensors:
        if x.dim() > 1:
            raise RuntimeError(f"torch.meshgrid: Expected 0D or 1D tensor in the tensor list but "
                               f"got a {x.dim()}D tensor of shape {list(x.shape)}")
        if x.dtype is not tensors[0].dtype:
            raise RuntimeError("meshgrid expects all tensors to have the same dtype")
    _check_devices(list(tensors))
    swap = indexing == "xy" and len(tensors) >= 2
    order = list(range(len(tensors)))
    if swap:
        order[0], order[1] = 1, 0
    # Output dim j holds tensor order[j].
    shape = [tensors[k].numel() for k in order]
    grids = []
    for k, x in enumerate(tensors):
        where = order.index(k)
        view_shape = [1] * len(tensors)
        view_shape[where] = -1
        grids.append(x.reshape(view_shape).expand(*shape))
    return tuple(grids)
