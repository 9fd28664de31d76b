"""``gather``, ``scatter``, ``scatter_add`` and ``take_along_dim``: reads and writes
along one dim at the positions an index tensor of the same rank gives.

:func:`_scatter_into` is the kernel of the whole scatter family (``scatter_reduce``
included); the gradient of a gather is a scatter-add and that of a scatter a gather.

Examples
--------
>>> import cygrad
>>> x = cygrad.tensor([[1, 2], [3, 4]])
>>> cygrad.gather(x, 1, cygrad.tensor([[1], [0]])).tolist()
[[2], [3]]
"""
import math
import warnings

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from .._argcheck import bool_arg, int_arg
from ._common import (NUMBER_TYPES, _broadcast_shapes, _check_no_internal_overlap,
                      _check_out_dtype, _dim, _finish, _first_out_of_bounds, _fits,
                      _index_array, _k, _require_tensor, _scalar_array, _shape_str, _tname)
from ._autograd import (_apply_inplace, _keep_mask, _no_out, _pad_to, _target, _written,
                        _zeros)

__all__ = ["gather", "scatter", "scatter_add", "take_along_dim"]


def _check_same_ndim(input, index, what):
    if max(input.dim(), 1) != max(index.dim(), 1):
        raise RuntimeError(f"Index tensor must have the same number of dimensions as {what} tensor")


def _along(shape):
    """``shape`` seen as at least 1-D (PyTorch treats 0-dim tensors as 1-D in
    gather/scatter)."""
    shape = tuple(shape)
    return shape or (1,)


def _gather_checks(input, dim, index, out):
    """PyTorch's checks of ``gather``, in its order, the bounds of the indices
    included: the wrapped dim."""
    _require_tensor(index, "gather", "index", 3)
    dim = _dim(dim, input.dim())
    _check_out_dtype(out, input.dtype)
    if index.numel() == 0:      # PyTorch checks nothing more for an empty index
        return dim
    _index_array(index, "gather")
    _check_same_ndim(input, index, "input")
    a1, i1 = _along(input.shape), _along(index.shape)
    for d in range(len(a1)):
        if d != dim and i1[d] > a1[d]:
            raise RuntimeError(f"Size does not match at dimension {d} expected index "
                               f"{_shape_str(index.shape)} to be no larger than self "
                               f"{_shape_str(input.shape)} apart from dimension {dim}")
    bad = _first_out_of_bounds(index, 0, a1[dim])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                           f"{a1[dim]}")
    return dim


class Gather(Function):
    """``gather``; backward scatter-adds the gradient back (repeated indices add up)."""
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        ctx.dim, ctx.shape = dim, tuple(x.shape)
        ctx.save_for_backward(index)
        result = _C._empty(tuple(index.shape), x.dtype, x.device)
        if index.numel() == 0:
            return result
        return _k("gather", x)(x, dim, index, result)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return scatter_add(_zeros(ctx.shape, grad.dtype, grad.device), ctx.dim, index, grad), None, None

    @staticmethod
    def jvp(ctx, tx, *_):
        return gather(tx, ctx.dim, _fwad.saved_for_jvp(ctx)[0])


@tensor_method
def gather(input, dim, index, *, sparse_grad=False, out=None):
    """Values of ``input`` along ``dim`` picked by ``index``:
    ``out[i][j] = input[index[i][j]][j]`` for ``dim=0`` (NumPy's ``take_along_axis``).

    ``index`` has ``input``'s number of dims and is no larger than ``input`` on the other
    dims; the result has ``index``'s shape.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2], [3, 4]])
    >>> cygrad.gather(x, 1, cygrad.tensor([[0, 0], [1, 0]])).tolist()
    [[1, 1], [4, 3]]
    """
    _require_tensor(input, "gather", "input", 1)
    dim = int_arg(dim, "gather", "dim", 2)
    bool_arg(sparse_grad, "gather", "sparse_grad")
    _no_out(out, "gather", input)
    return _finish(Gather.apply(input, _gather_checks(input, dim, index, out), index), out)


def _scatter_into(self, dim, index, src, value, reduce=None, include_self=True):
    """The kernel shared by the scatter family: writes into ``self`` in place.

    ``reduce``: None (plain writes), "add"/"sum", "multiply"/"prod", "mean", "amax",
    "amin"; every write to a repeated position counts.
    """
    dim = _dim(dim, self.dim())
    if src is not None and src.dtype != self.dtype:
        raise RuntimeError("scatter(): Expected self.dtype to be equal to src.dtype")
    if value is not None:
        value = _scalar_array(_fits(value, self.dtype), self.dtype)
    if reduce == "mean" and self.dtype == _dt.bool_:
        raise NotImplementedError("\"scatter_gather_tensor_cpu_reduce_mean\" not implemented for "
                                  "'Bool'")
    if index.numel() == 0:      # PyTorch checks nothing more for an empty index
        return self
    _index_array(index, "scatter")
    _check_same_ndim(self, index, "self")
    if src is not None:
        if 0 < src.dim() < index.dim() and src.numel():
            # PyTorch reads a non-empty src's size along each of index's dims before it
            # compares the numbers of dims: the first missing one is out of range
            n = src.dim()
            raise IndexError(f"Dimension out of range (expected to be in range of [{-n}, "
                             f"{n - 1}], but got {n})")
        _check_same_ndim(src, index, "src")
    a1, i1 = _along(self.shape), _along(index.shape)
    s1 = None if src is None else _along(src.shape)
    too_big = any(d != dim and i1[d] > a1[d] for d in range(len(a1)))
    if s1 is not None:
        too_big = too_big or any(i1[d] > s1[d] for d in range(len(a1)))
    if too_big:
        msg = (f"Expected index {_shape_str(index.shape)} to be no larger than self "
               f"{_shape_str(self.shape)} apart from dimension {dim}")
        if s1 is not None:
            msg += f" and to be no larger size than src {_shape_str(src.shape)}"
        raise RuntimeError(msg)
    if reduce in ("amax", "amin") and self.dtype.is_complex:
        # complex numbers have no order: PyTorch's dtype dispatch refuses them here,
        # after the shape checks and before the index values are read
        raise NotImplementedError(f'"scatter_gather_tensor_{self.device.type}_reduce_{reduce}" '
                                  f"not implemented for '{_C._torch_type_name(self.dtype)}'")
    bad = _first_out_of_bounds(index, 0, a1[dim])
    if bad is not None:
        raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                           f"{a1[dim]}")
    return _k("scatter", self)(self, dim, index, src, value, reduce, include_self)


_warned = {"scatter_reduce": False}


_SCATTER_REDUCE_WARNING = ("The reduce argument of cygrad.scatter with Tensor src is deprecated "
                           "and will be removed in a future release. Use cygrad.scatter_reduce "
                           "instead for more reduction options.")


class _Unset:
    """The default of ``scatter``'s ``reduce``: PyTorch's signature gives it none, so an
    explicit ``reduce=None`` is an error there, unlike leaving it out."""
    __slots__ = ()

    def __repr__(self):
        return "<no reduce>"


_NO_REDUCE = _Unset()


def _scatter_reduce_arg(reduce, src, opname):
    if reduce is _NO_REDUCE:
        return None
    if not isinstance(reduce, str):
        raise TypeError(f"{opname}() received an invalid combination of arguments: argument "
                        f"'reduce' must be str, not {type(reduce).__name__}")
    if reduce not in ("add", "multiply"):
        raise RuntimeError("reduce argument must be either add or multiply.")
    if src is not None and not _warned["scatter_reduce"]:
        _warned["scatter_reduce"] = True       # once per process, as PyTorch
        warnings.warn(_SCATTER_REDUCE_WARNING, UserWarning, stacklevel=3)
    return reduce


def _scatter_args(opname, input, dim, index, src, inplace, src_required=False):
    """PyTorch's parser for ``(input, dim, index, src)`` of the scatter family: ``dim``
    as an int (a method's positions count after ``self``). ``src=None``: not checked,
    unless ``src_required`` (``scatter_add``, ``scatter_reduce``: no value overload)."""
    first = 1 if inplace else 2
    _require_tensor(input, opname, "input", 1)
    dim = int_arg(dim, opname, "dim", first)
    _require_tensor(index, opname, "index", first + 1)
    if src is not None or src_required:
        _require_tensor(src, opname, "src", first + 2)
    return dim


def _split_src_value(src, value, opname):
    if src is not None and value is not None:
        raise TypeError(f"{opname}() got both 'src' and 'value'")
    if isinstance(src, TensorBase):
        return src, None
    if src is None and value is None:
        raise TypeError(f"{opname}() missing required argument 'src' or 'value'")
    value = src if value is None else value
    if isinstance(value, TensorBase):
        return value, None
    if not isinstance(value, NUMBER_TYPES):
        raise TypeError(f"{opname}(): argument 'value' must be Number, not {type(value).__name__}")
    return None, value


class Scatter(Function):
    """``scatter`` with a ``src`` tensor. Backward: the overwritten places of ``input``
    get no gradient; ``src`` gets the gradient of the places its values went to."""
    _node_name = "ScatterBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, dim, index, src):
        out = _scatter_into(_target(ctx, x), dim, index, src, None)
        ctx.dim, ctx.shape, ctx.src_shape = dim, tuple(x.shape), tuple(src.shape)
        ctx.save_for_backward(index)
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return (_scattered_cleared(grad, ctx.dim, index) if ctx.needs_input_grad[0] else None,
                None, None,
                _pad_to(gather(grad, ctx.dim, index), ctx.src_shape)
                if ctx.needs_input_grad[3] else None)

    @staticmethod
    def jvp(ctx, tx, _, __, ts):
        index = _fwad.saved_for_jvp(ctx)[0]
        if ts is None:
            return None if tx is None else scatter(tx, ctx.dim, index, 0)
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype, ts.device)
        return scatter(base, ctx.dim, index, ts)


class ScatterValue(Scatter):
    """``scatter`` with a number: the written places of ``input`` get no gradient."""
    _node_name = "ScatterBackward1"

    @staticmethod
    def forward(ctx, x, dim, index, value):
        out = _scatter_into(_target(ctx, x), dim, index, None, value)
        ctx.dim = dim
        ctx.save_for_backward(index)
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return _scattered_cleared(grad, ctx.dim, index), None, None, None

    @staticmethod
    def jvp(ctx, tx, *_):
        return scatter(tx, ctx.dim, _fwad.saved_for_jvp(ctx)[0], 0)


class ScatterWithReduce(Function):
    """``scatter(..., reduce=...)``: PyTorch defines no derivative for it (use
    ``scatter_reduce``); the error comes when the gradient is needed, as in PyTorch."""
    _node_name = "NotImplemented"
    inplace = False

    @staticmethod
    def forward(ctx, x, dim, index, src, value, reduce):
        return _written(ctx, x, _scatter_into(_target(ctx, x), dim, index, src, value, reduce))

    @staticmethod
    def backward(ctx, grad):
        raise RuntimeError("derivative for aten::scatter is not implemented")


class ScatterInplace(Scatter):
    """``scatter_`` with a ``src`` tensor: :class:`Scatter` writing into ``x``."""
    _node_name = "ScatterBackward0"
    inplace = True


class ScatterValueInplace(ScatterValue):
    """``scatter_`` with a number: :class:`ScatterValue` writing into ``x``."""
    _node_name = "ScatterBackward1"
    inplace = True


class ScatterWithReduceInplace(ScatterWithReduce):
    """``scatter_(..., reduce=...)``: :class:`ScatterWithReduce` writing into ``x``."""
    _node_name = "NotImplemented"
    inplace = True


def _scattered_cleared(grad, dim, index):
    """``grad`` with the places ``index`` writes to (along ``dim``) set to zero."""
    return grad * _keep_mask(grad.shape, grad.dtype,
                             lambda m: _scatter_into(m, dim, index, None, 0), grad.device)


def _scatter_apply(input, dim, index, src, value, reduce, inplace):
    """``scatter(_)`` through the Function its arguments call for (in its in-place
    form when ``inplace``)."""
    if reduce is not None:
        cls = ScatterWithReduceInplace if inplace else ScatterWithReduce
        args = (dim, index, src, value, reduce)
    elif src is not None:
        cls, args = (ScatterInplace if inplace else Scatter), (dim, index, src)
    else:
        cls, args = (ScatterValueInplace if inplace else ScatterValue), (dim, index, value)
    return _apply_inplace(cls, input, *args) if inplace else cls.apply(input, *args)


@tensor_method
def scatter_(input, dim, index, src=None, *, value=None, reduce=_NO_REDUCE):
    """In place: write ``src`` (a tensor) or ``value`` (a number) into ``input`` at the
    positions ``index`` gives along ``dim`` (the inverse of :func:`gather`):
    ``self[index[i][j]][j] = src[i][j]`` for ``dim=0``.

    ``reduce='add'`` or ``'multiply'`` combines with the existing values instead (repeated
    indices all count). Without ``reduce``, which of several writes to one place wins is
    unspecified (here: the last).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 3)
    >>> x.scatter_(1, cygrad.tensor([[2], [0]]), 1.0).tolist()
    [[0.0, 0.0, 1.0], [1.0, 0.0, 0.0]]
    """
    dim = _scatter_args("scatter_", input, dim, index, None, inplace=True)
    src, value = _split_src_value(src, value, "scatter_")
    reduce = _scatter_reduce_arg(reduce, src, "scatter_")
    _check_no_internal_overlap(input)
    return _scatter_apply(input, dim, index, src, value, reduce, inplace=True)


@tensor_method
def scatter(input, dim, index, src=None, *, value=None, reduce=_NO_REDUCE, out=None):
    """Out-of-place :meth:`Tensor.scatter_`: a copy of ``input`` with ``src``/``value``
    written at ``index`` along ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> src = cygrad.tensor([[1.0, 2.0, 3.0]])
    >>> cygrad.scatter(cygrad.zeros(2, 3), 0, cygrad.tensor([[1, 0, 1]]), src).tolist()
    [[0.0, 2.0, 0.0], [1.0, 0.0, 3.0]]
    """
    dim = _scatter_args("scatter", input, dim, index, None, inplace=False)
    src, value = _split_src_value(src, value, "scatter")
    reduce = _scatter_reduce_arg(reduce, src, "scatter")
    _no_out(out, "scatter", input, src)
    _check_out_dtype(out, input.dtype)
    return _finish(_scatter_apply(input, dim, index, src, value, reduce, inplace=False), out)


class ScatterAdd(Function):
    """``scatter_add``: ``input``'s gradient passes unchanged; ``src`` gets the
    gradient of the places its values were added to."""
    _node_name = "ScatterAddBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, dim, index, src):
        out = _scatter_into(_target(ctx, x), dim, index, src, None, "add")
        ctx.dim, ctx.shape, ctx.src_shape = dim, tuple(x.shape), tuple(src.shape)
        ctx.save_for_backward(index)
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_src = None
        if ctx.needs_input_grad[3]:
            grad_src = _pad_to(gather(grad, ctx.dim, index), ctx.src_shape)
        return grad, None, None, grad_src

    @staticmethod
    def jvp(ctx, tx, _, __, ts):
        if ts is None:
            return tx
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype, ts.device)
        return scatter_add(base, ctx.dim, _fwad.saved_for_jvp(ctx)[0], ts)


class ScatterAddInplace(ScatterAdd):
    """``scatter_add_``: :class:`ScatterAdd` writing into ``x``."""
    _node_name = "ScatterAddBackward0"
    inplace = True


@tensor_method
def scatter_add_(input, dim, index, src):
    """In place: add ``src`` into ``input`` at ``index`` along ``dim``; repeated indices
    all add up. ``self[index[i][j]][j] += src[i][j]`` for ``dim=0``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(3)
    >>> x.scatter_add_(0, cygrad.tensor([0, 0, 2]), cygrad.tensor([1.0, 2.0, 3.0])).tolist()
    [3.0, 0.0, 3.0]
    """
    dim = _scatter_args("scatter_add_", input, dim, index, src, inplace=True,
                        src_required=True)
    _check_no_internal_overlap(input)
    return _apply_inplace(ScatterAddInplace, input, dim, index, src)


@tensor_method
def scatter_add(input, dim, index, src, *, out=None):
    """Out-of-place :meth:`Tensor.scatter_add_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.scatter_add(cygrad.zeros(2), 0, cygrad.tensor([1, 1]), cygrad.ones(2)).tolist()
    [0.0, 2.0]
    """
    dim = _scatter_args("scatter_add", input, dim, index, src, inplace=False,
                        src_required=True)
    _no_out(out, "scatter_add", input, src)
    _check_out_dtype(out, input.dtype)
    return _finish(ScatterAdd.apply(input, dim, index, src), out)


@tensor_method
def take_along_dim(input, indices, dim=None, *, out=None):
    """Values of ``input`` at ``indices`` along ``dim`` (NumPy's ``take_along_axis``).

    ``input`` and ``indices`` broadcast against each other on every dim but ``dim``;
    negative indices count from the end. With ``dim=None`` both are flattened.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[10, 30, 20], [60, 40, 50]])
    >>> cygrad.take_along_dim(x, cygrad.tensor([[1], [0]]), dim=1).tolist()
    [[30], [60]]
    """
    _require_tensor(input, "take_along_dim", "input", 1)
    _require_tensor(indices, "take_along_dim", "indices", 2)
    if dim is None:
        # PyTorch flattens with ``view``: an input that cannot be viewed flat is an error
        return gather(input.view(-1), 0, indices.view(-1), out=out)
    dim = int_arg(dim, "take_along_dim", "dim")
    if input.dim() != indices.dim():
        raise RuntimeError(f"take_along_dim(): input and indices should have the same number of "
                           f"dimensions, but got {input.dim()} dimensions for input, and "
                           f"{indices.dim()} dimensions for indices")
    if indices.dtype != _dt.int64:
        raise RuntimeError(f"take_along_dim(): dtype of indices should be Long but got "
                           f"{_tname(indices.dtype)}")
    dim = _dim(dim, input.dim())
    if input.dim() == 0:
        # PyTorch reads the size of ``dim`` from the 0-dim indices
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    _check_out_dtype(out, input.dtype)
    ishape, xshape = list(input.shape), list(indices.shape)
    ishape[dim] = xshape[dim] = 1
    common = list(_broadcast_shapes(ishape, xshape))
    size = input.shape[dim]
    out_shape = common[:dim] + [indices.shape[dim]] + common[dim + 1:]
    if math.prod(out_shape):
        bad = _first_out_of_bounds(indices, -size, size)
        if bad is not None:
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size {size}")
    _no_out(out, "take_along_dim", input)
    wide = tuple(common[:dim] + [size] + common[dim + 1:])
    return _finish(TakeAlongDim.apply(input, dim, indices, wide, tuple(out_shape)), out)


class TakeAlongDim(Function):
    """``take_along_dim``: a gather from ``x`` broadcast to ``wide`` (``indices``
    broadcast too, off ``dim``; negative indices count from the end). As in PyTorch,
    it is the node of a gather: backward scatter-adds the gradient into zeros of the
    broadcast shape, and the engine sums the broadcast dims back to ``x``'s shape."""
    _node_name = "GatherBackward0"

    @staticmethod
    def forward(ctx, x, dim, indices, wide, shape):
        ctx.dim, ctx.wide = dim, wide
        ctx.save_for_backward(indices)
        result = _C._empty(shape, x.dtype, x.device)
        return _k("gather_broadcast", x)(x, dim, indices, result)

    @staticmethod
    def backward(ctx, grad):
        indices, = ctx.saved_tensors
        size = ctx.wide[ctx.dim]
        positions = (indices + (indices < 0).to(indices.dtype) * size).expand(tuple(grad.shape))
        grad_x = scatter_add(_zeros(ctx.wide, grad.dtype, grad.device), ctx.dim, positions.contiguous(), grad)
        return grad_x, None, None, None, None

    @staticmethod
    def jvp(ctx, tx, *_):
        return take_along_dim(tx, _fwad.saved_for_jvp(ctx)[0], ctx.dim)
