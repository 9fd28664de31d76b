"""Writing one tensor into a view of another: ``diagonal_scatter``,
``select_scatter``, ``slice_scatter``, ``as_strided_scatter`` (one ``Function``,
:class:`ScatterIntoView`, parametrized by the view), ``masked_scatter`` and
``index_reduce`` (compositions of ``where``/``take`` and ``scatter_reduce``), the
in-place ``fill_diagonal_``, and the strided view ``Tensor.unfold``.
"""
from ..._core import tensor as _C
from ..._tensor import Tensor, tensor_method
from ...autograd.function import Function
from ..reduction import cumsum
from ..reduction._common import _check_tensor, _single_dim
from ..indexing import take, where
from ..indexing._common import _broadcast_shapes
from ..._core.dtype import bool_, int32, int64

__all__ = ["diagonal_scatter", "select_scatter", "slice_scatter", "as_strided_scatter",
           "masked_scatter", "index_reduce"]


def _fresh(t):
    """A contiguous tensor with its own storage at offset 0 (``as_strided`` offsets
    count from the storage's start)."""
    f = t.contiguous()
    return f.clone() if (f is t or f.storage_offset() != 0) else f


class ScatterIntoView(Function):
    """``out = input`` with ``view(out)`` replaced by ``src``.  The gradient of
    ``input`` is the output gradient with the view zeroed (this same op with a zero
    ``src``); the gradient of ``src`` is the view of the output gradient.  Both are
    built from differentiable ops, so they can be differentiated again."""
    _node_name = "ScatterIntoViewBackward0"

    @staticmethod
    def forward(ctx, x, src, view):
        ctx.view = view
        return _scatter_into_view(x, src, view)

    @staticmethod
    def backward(ctx, grad):
        view = ctx.view
        part = view(_fresh(grad))
        zero = part.new_zeros(tuple(part.shape))
        return view.function.apply(grad, zero, view), part, None

    @staticmethod
    def jvp(ctx, tx, ts, _):
        if tx is None and ts is None:
            return None
        view = ctx.view
        if tx is None:
            from ..creation import zeros
            tx = zeros(view.shape, dtype=ts.dtype)
        if ts is None:
            part = view(_fresh(tx))
            ts = part.new_zeros(tuple(part.shape))
        return _scatter_into_view(tx, ts, view)


def _scatter_into_view(x, src, view):
    out = _fresh(x.detach())
    view(out).copy_(src.detach())
    return out


class _View:
    """A view of a tensor, as a callable the Function keeps (it also knows the input's
    shape, which forward mode needs when only ``src`` has a tangent)."""

    def __init__(self, shape, fn, function):
        self.shape = shape
        self.fn = fn
        self.function = function

    def __call__(self, t):
        return self.fn(t)


class DiagonalScatter(ScatterIntoView):
    """``diagonal_scatter``."""
    _node_name = "DiagonalScatterBackward0"


class SelectScatter(ScatterIntoView):
    """``select_scatter``."""
    _node_name = "SelectScatterBackward0"


class SliceScatter(ScatterIntoView):
    """``slice_scatter``."""
    _node_name = "SliceScatterBackward0"


class AsStridedScatter(ScatterIntoView):
    """``as_strided_scatter``."""
    _node_name = "AsStridedScatterBackward0"


def _scatter(opname, input, src, fn, fresh=False):
    _check_tensor(input, opname)
    _check_tensor(src, opname)
    part = fn(_fresh(input.detach()) if fresh else input)
    if tuple(part.shape) != tuple(src.shape):
        raise RuntimeError(f"expected src to have a size equal to the slice of self. src size "
                           f"= {list(src.shape)}, slice size = {list(part.shape)}")
    cls = _FUNCTIONS[opname]
    return cls.apply(input, src.to(input.dtype), _View(tuple(input.shape), fn, cls))


_FUNCTIONS = {"diagonal_scatter": DiagonalScatter, "select_scatter": SelectScatter,
              "slice_scatter": SliceScatter, "as_strided_scatter": AsStridedScatter}


@tensor_method
def diagonal_scatter(input, src, offset=0, dim1=0, dim2=1):
    """``input`` with its diagonal (as :func:`cygrad.diagonal` takes it) replaced by
    ``src``, as ``torch.diagonal_scatter``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diagonal_scatter(cygrad.zeros(2, 2), cygrad.ones(2)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return _scatter("diagonal_scatter", input, src,
                    lambda t: t.diagonal(offset, dim1, dim2))


@tensor_method
def select_scatter(input, src, dim, index):
    """``input`` with ``input.select(dim, index)`` replaced by ``src``, as
    ``torch.select_scatter``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.select_scatter(cygrad.zeros(2, 2), cygrad.ones(2), 0, 1).tolist()
    [[0.0, 0.0], [1.0, 1.0]]
    """
    return _scatter("select_scatter", input, src, lambda t: t.select(dim, index))


@tensor_method
def slice_scatter(input, src, dim=0, start=None, end=None, step=1):
    """``input`` with the slice ``start:end:step`` along ``dim`` replaced by ``src``,
    as ``torch.slice_scatter``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.slice_scatter(cygrad.zeros(4), cygrad.ones(2), start=0, step=2).tolist()
    [1.0, 0.0, 1.0, 0.0]
    """
    _check_tensor(input, "slice_scatter")
    if input.dim() == 0:
        raise IndexError("slice() cannot be applied to a 0-dim tensor.")
    d = _single_dim(input, dim, "slice_scatter")
    if step is None:
        step = 1
    if step <= 0:
        raise RuntimeError("slice step must be positive")
    key = (slice(None),) * d + (slice(start, end, step),)
    return _scatter("slice_scatter", input, src, lambda t: t[key])


@tensor_method
def as_strided_scatter(input, src, size, stride, storage_offset=None):
    """``input`` (taken as contiguous) with ``as_strided(size, stride,
    storage_offset)`` of it replaced by ``src``, as ``torch.as_strided_scatter``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.as_strided_scatter(cygrad.zeros(2, 2), cygrad.ones(2), (2,), (3,)).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    off = 0 if storage_offset is None else storage_offset
    size, stride = tuple(size), tuple(stride)
    _check_tensor(input, "as_strided_scatter")
    # the view is only ever taken of fresh contiguous tensors (see ScatterIntoView)
    return _scatter("as_strided_scatter", input, src,
                    lambda t: t.as_strided(size, stride, off), fresh=True)


def _masked_scatter_args(opname, input, mask, source):
    _check_tensor(input, opname)
    _check_tensor(mask, opname)
    _check_tensor(source, opname)
    if mask.dtype != bool_:
        raise RuntimeError(f"masked_scatter_ only supports boolean masks, but got mask with "
                           f"dtype {str(mask.dtype).split('.')[-1].capitalize()}")


def _masked_scatter_values(input, mask, source):
    """``where(mask, source's next unused value, input)``, with ``mask`` and ``input``
    already of one shape: the k-th True takes ``source.flatten()[k]``."""
    count = int(mask.sum().item()) if mask.numel() else 0
    if count > source.numel():
        raise RuntimeError("Number of elements of source < number of ones in mask")
    if count == 0:
        return input.clone()
    pos = (cumsum(mask.reshape(-1), 0) - 1).clamp(min=0).reshape(tuple(mask.shape))
    return where(mask, take(source, pos).to(input.dtype), input)


@tensor_method
def masked_scatter(input, mask, source):
    """``input`` with the places where ``mask`` is True filled, in row-major order, with
    the first values of ``source``, as ``torch.masked_scatter`` (``mask`` and ``input``
    broadcast together).

    Examples
    --------
    >>> import cygrad
    >>> m = cygrad.tensor([True, False, True])
    >>> cygrad.masked_scatter(cygrad.zeros(3), m, cygrad.tensor([5.0, 6.0])).tolist()
    [5.0, 0.0, 6.0]
    """
    _masked_scatter_args("masked_scatter", input, mask, source)
    shape = _broadcast_shapes(tuple(input.shape), tuple(mask.shape))
    return _masked_scatter_values(input.expand(shape), mask.expand(shape), source)


@tensor_method
def masked_scatter_(input, mask, source):
    """In-place :func:`masked_scatter`; ``mask`` must broadcast to ``input``'s shape.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 2)
    >>> x.masked_scatter_(cygrad.tensor([True, False]), cygrad.tensor([1.0, 2.0])).tolist()
    [[1.0, 0.0], [2.0, 0.0]]
    """
    _masked_scatter_args("masked_scatter_", input, mask, source)
    m = mask.expand(tuple(input.shape))
    return input.copy_(_masked_scatter_values(input, m, source))


_INDEX_REDUCES = ("prod", "mean", "amax", "amin")


def _index_reduce_index(opname, input, dim, index, source, reduce, include_self):
    """Check ``index_reduce``'s arguments as PyTorch does and return ``(dim, index
    expanded to source's shape)``, the form ``scatter_reduce`` takes."""
    _check_tensor(input, opname)
    _check_tensor(index, opname)
    _check_tensor(source, opname)
    if reduce not in _INDEX_REDUCES:
        raise RuntimeError(f"index_reduce(): Expected reduce to be one of prod, mean, amax or "
                           f"amin but got {reduce}.")
    d = _single_dim(input, dim, opname)
    if index.dim() > 1:
        raise IndexError(f"{opname}_(): Index is supposed to be a vector, but got dim: "
                         f"{index.dim()}")
    if index.dtype not in (int64, int32):
        raise RuntimeError(f"{opname}_(): Expected dtype int32/int64 for index")
    n_src = source.shape[d] if source.dim() else 1
    if index.numel() != n_src:
        raise RuntimeError(f"{opname}_(): Number of indices ({index.numel()}) should be equal "
                           f"to source.size(dim): ({n_src}), for dim: {d}")
    rest = [s for i, s in enumerate(input.shape) if i != d]
    if source.dim() != input.dim() or [s for i, s in enumerate(source.shape) if i != d] != rest:
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {list(input.shape)} "
                           f"source.shape = {list(source.shape)}")
    if input.dtype.is_complex:
        _index_reduce_complex(input, d, index, reduce, include_self)
    # (PyTorch's index_reduce takes no negative index, unlike index_add)
    if index.numel() and (int(index.min().item()) < 0
                          or int(index.max().item()) >= input.shape[d]):
        raise IndexError("index out of range in self")
    idx = index.reshape(-1).to(int64)
    shape = [1] * max(source.dim(), 1)
    shape[d] = idx.numel()
    return d, idx.reshape(shape).expand(tuple(source.shape) if source.dim() else (1,))


def _index_reduce_complex(input, d, index, reduce, include_self):
    """Raise where PyTorch's ``index_reduce`` refuses a complex ``input``: its kernels
    that leave ``input`` out, and those of a 0-dim or 1-D ``input``, dispatch over the
    real dtypes only (whatever the index holds, even nothing); a multi-dim ``input``
    is reduced slice by slice, where ``prod`` and ``mean`` compute and ``amax``/``amin``
    call ``maximum``/``minimum``, which refuse complex at the first index (after that
    index's bounds check)."""
    kernel = None
    if not include_self:
        kernel = "index_reduce_func_exclude_input_init"
    elif input.dim() <= 1:
        kernel = "index_func_"
    elif reduce in ("amax", "amin") and index.numel():
        first = int(index.reshape(-1)[0].item())
        if 0 <= first < input.shape[d]:
            kernel = f"{'maximum' if reduce == 'amax' else 'minimum'}_{input.device.type}"
    if kernel is not None:
        raise NotImplementedError(f'"{kernel}" not implemented for '
                                  f"'{_C._torch_type_name(input.dtype)}'")


@tensor_method
def index_reduce(input, dim, index, source, reduce, *, include_self=True):
    """Reduce the slices of ``source`` along ``dim`` into the slices of ``input`` that
    ``index`` names, with ``reduce`` = ``"prod"``, ``"mean"``, ``"amax"`` or ``"amin"``,
    as ``torch.index_reduce`` (``include_self=False`` leaves ``input``'s values out
    where a slice is reached).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.ones(3)
    >>> cygrad.index_reduce(x, 0, cygrad.tensor([0, 0]), cygrad.tensor([2.0, 3.0]), "prod").tolist()
    [6.0, 1.0, 1.0]
    """
    d, idx = _index_reduce_index("index_reduce", input, dim, index, source, reduce,
                                 include_self)
    return input.scatter_reduce(d, idx, source.to(input.dtype), reduce,
                                include_self=include_self)


@tensor_method
def index_reduce_(input, dim, index, source, reduce, *, include_self=True):
    """In-place :func:`index_reduce`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2)
    >>> x.index_reduce_(0, cygrad.tensor([1, 1]), cygrad.tensor([2.0, 3.0]), "amax").tolist()
    [0.0, 3.0]
    """
    d, idx = _index_reduce_index("index_reduce", input, dim, index, source, reduce,
                                 include_self)
    return input.scatter_reduce_(d, idx, source.to(input.dtype), reduce,
                                 include_self=include_self)


def fill_diagonal_(input, fill_value, wrap=False):
    """Fill the main diagonal of ``input`` (2-D, or all dims of one length) with
    ``fill_value`` in place, as ``Tensor.fill_diagonal_``; with ``wrap=True`` a tall
    matrix's diagonal starts again after every ``ncols + 1`` rows.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 3).fill_diagonal_(1.0).tolist()
    [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]
    """
    _check_tensor(input, "fill_diagonal_")
    if not isinstance(fill_value, (int, float, complex)):
        raise TypeError(f"fill_diagonal_(): argument 'fill_value' (position 1) must be "
                        f"Number, not {type(fill_value).__name__}")
    if input.dim() < 2:
        raise RuntimeError("dimensions must larger than 1")
    shape = tuple(input.shape)
    if input.dim() > 2 and len(set(shape)) != 1:
        raise RuntimeError("all dimensions of input must be of equal length")
    from ..creation import arange, full
    h, w = shape[0], shape[1]
    if input.dim() == 2 and wrap and h > w:
        flat = arange(0, h * w, w + 1)
        idx = (flat // w, flat % w)
    else:
        k = arange(min(shape))
        idx = (k,) * input.dim()
    if idx[0].numel() == 0:
        return input
    return input.index_put_(idx, full((), fill_value, dtype=input.dtype))


# (Tensor.unfold is in ops/view_copies.py)
for _name, _fn in (("fill_diagonal_", fill_diagonal_),):
    if not _C._core_defines(_name):
        setattr(Tensor, _name, _fn)
