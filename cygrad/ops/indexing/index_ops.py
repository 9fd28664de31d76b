"""The ``index_*`` ops: whole slices along one dim picked by a 1-D index
(``index_select``) or written there (``index_fill``, ``index_copy``, ``index_add``).

Examples
--------
>>> import cygrad
>>> cygrad.index_select(cygrad.arange(6).reshape(2, 3), 1, cygrad.tensor([2])).tolist()
[[2], [5]]
"""
import math

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from .._argcheck import int_arg
from ._common import (_INDEX_DTYPES, _check_no_internal_overlap, _check_out_dtype, _dim,
                      _fill_arg, _fill_value, _finish, _first_out_of_bounds, _fits, _index_array,
                      _k, _number_arg, _require_tensor, _shape_str, _tname)
from ._autograd import _apply_inplace, _keep_mask, _no_out, _target, _written, _zeros

__all__ = ["index_select", "index_fill", "index_copy", "index_add"]


def _index_select_checks(input, dim, index, out):
    """PyTorch's checks of ``index_select``, in its order, the bounds of the indices
    included (so that the kernel reads nothing out of range): the wrapped dim."""
    if not isinstance(index, TensorBase):
        _require_tensor(index, "index_select", "index", 3)
    if index.dtype not in _INDEX_DTYPES:
        raise RuntimeError("index_select(): Expected dtype int32 or int64 for index")
    if index.dim() > 1:
        raise IndexError("index_select(): Index is supposed to be a vector")
    ndim = input.dim()
    dim = _dim(dim, ndim)
    if out is not None:
        _check_out_dtype(out, input.dtype, "index_select(): self and result must have the "
                                           "same scalar type")
    n = index.numel()
    if ndim == 0:
        if n != 1:
            # a 0-d result needs exactly one index (counted before any bound, as PyTorch
            # does); none used to return uninitialised memory
            raise RuntimeError(f"index_select(): Index to scalar can have only 1 value, got "
                               f"{n} value(s)")
        size = 1
    else:
        size = input.shape[dim]
        if size == 0 and n and ndim > 1:
            raise RuntimeError("index_select(): self indexing axis dim should be positive")
    bad = _first_out_of_bounds(index, 0, size) if n else None
    if bad is not None:
        if ndim > 1 and (dim == 1 or input.numel() == 0):
            # PyTorch's CPU kernel for dim 1 (and for an empty input) has its own
            # check, with its own error type
            raise RuntimeError(f"INDICES element is out of DATA bounds, id={bad} axis_dim={size}")
        raise IndexError("index out of range in self")
    return dim


class IndexSelect(Function):
    """``index_select``; backward adds the gradient's slices back at their places."""
    _node_name = "IndexSelectBackward0"

    @staticmethod
    def forward(ctx, x, dim, index):
        shape = tuple(x.shape)
        ctx.dim, ctx.shape = dim, shape
        ctx.save_for_backward(index)
        if shape:
            shape = shape[:dim] + (index.numel(),) + shape[dim + 1:]
        return _k("index_select", x)(x, dim, index, _C._empty(shape, x.dtype, x.device))

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        return index_add(_zeros(ctx.shape, grad.dtype, grad.device), ctx.dim, index, grad), None, None

    @staticmethod
    def jvp(ctx, tx, *_):
        return index_select(tx, ctx.dim, _fwad.saved_for_jvp(ctx)[0])


@tensor_method
def index_select(input, dim, index, *, out=None):
    """The slices of ``input`` along ``dim`` at positions ``index`` (a 1-D int tensor).

    Equivalent to NumPy's ``take(input, index, axis=dim)``; negative indices are an error.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.arange(6).reshape(2, 3)
    >>> cygrad.index_select(x, 1, cygrad.tensor([2, 0])).tolist()
    [[2, 0], [5, 3]]
    """
    if not isinstance(input, TensorBase):
        _require_tensor(input, "index_select", "input", 1)
    dim = int_arg(dim, "index_select", "dim", 2)
    if out is None:
        return IndexSelect.apply(input, _index_select_checks(input, dim, index, None), index)
    _no_out(out, "index_select", input)
    return _finish(IndexSelect.apply(input, _index_select_checks(input, dim, index, out), index),
                   out)


def _index_vector(index, opname, dtypes, dtype_msg, error=RuntimeError):
    _index_array(index, opname, dtypes, dtype_msg, error)
    if index.dim() > 1:
        # PyTorch's wording and type differ per op
        if opname == "index_add_":
            raise IndexError(f"index_add_(): Index is supposed to be a vector, but got dim: "
                             f"{index.dim()} with type: {_tname(index.dtype)} and size: "
                             f"{list(index.shape)}")
        raise RuntimeError("Index has to be a vector/scalar")
    return index


def _out_of_bounds(message, size):
    """An index outside a dim: IndexError, but RuntimeError along a size-0 dim (where
    PyTorch fails building the view of the slice before it checks the index)."""
    return (RuntimeError if size == 0 else IndexError)(message)


def _index_fill_kernel(input, dim, index, value):
    _require_tensor(index, "index_fill_", "index", 2)
    _index_vector(index, "index_fill_", (_dt.int64,),
                  "index_fill_(): Expected dtype int64 for index.", IndexError)
    dim = _dim(dim, input.dim())
    fill = _fill_value(value, input.dtype, "index_fill_")
    shape = tuple(input.shape) or (1,)
    size = shape[dim]
    if not math.prod(shape[:dim] + shape[dim + 1:]):
        return input        # PyTorch's kernel visits nothing, so checks nothing
    bad = _first_out_of_bounds(index, -size, size)
    if bad is not None:
        raise _out_of_bounds(f"index {bad} is out of bounds for dimension {dim} with size {size}",
                             size)
    return _k("index_fill", input)(input, dim, index, fill)


def _clear_slices(mask, dim, index):
    """Zero the slices of ``mask`` at ``index`` (checked already) along ``dim``."""
    _k("index_fill", mask)(mask, _dim(dim, mask.dim()), index, 0)


class IndexFill(Function):
    """``index_fill`` with a number: the filled slices get no gradient."""
    _node_name = "IndexFillBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, dim, index, value):
        out = _index_fill_kernel(_target(ctx, x), dim, index, value)
        ctx.dim, ctx.shape, ctx.dtype = dim, tuple(x.shape), x.dtype
        ctx.save_for_backward(index)
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        keep = _keep_mask(grad.shape, grad.dtype, lambda m: _clear_slices(m, ctx.dim, index), grad.device)
        # a 0-dim value tensor gets the gradient of every filled place (the engine sums it)
        grad_value = grad * (1 - keep) if ctx.needs_input_grad[3] else None
        return grad * keep if ctx.needs_input_grad[0] else None, None, None, grad_value

    @staticmethod
    def jvp(ctx, tx, _, __, tv):
        if tx is None and tv is None:
            return None
        base = tx if tx is not None else _zeros(ctx.shape, ctx.dtype, tv.device)
        return index_fill(base, ctx.dim, _fwad.saved_for_jvp(ctx)[0], 0 if tv is None else tv)


class IndexFillTensor(IndexFill):
    """``index_fill`` with a 0-dim tensor value (which gets a gradient too)."""
    _node_name = "IndexFillBackward1"


class IndexFillInplace(IndexFill):
    """``index_fill_`` with a number: :class:`IndexFill` writing into ``x``."""
    _node_name = "IndexFillBackward0"
    inplace = True


class IndexFillTensorInplace(IndexFillTensor):
    """``index_fill_`` with a 0-dim tensor value: :class:`IndexFillTensor` writing
    into ``x``."""
    _node_name = "IndexFillBackward1"
    inplace = True


def _index_fill_function(value, inplace=False):
    if isinstance(value, TensorBase):
        return IndexFillTensorInplace if inplace else IndexFillTensor
    return IndexFillInplace if inplace else IndexFill


@tensor_method
def index_fill_(input, dim, index, value):
    """In place: fill the slices of ``input`` at positions ``index`` along ``dim`` with
    ``value`` (a number or a 0-dim tensor). Negative indices count from the end.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 3)
    >>> x.index_fill_(1, cygrad.tensor([0, -1]), 7.0).tolist()
    [[7.0, 0.0, 7.0], [7.0, 0.0, 7.0]]
    """
    dim = int_arg(dim, "index_fill_", "dim", 1)
    _fill_arg(value, "index_fill_")
    return _apply_inplace(_index_fill_function(value, inplace=True), input, dim, index, value)


@tensor_method
def index_fill(input, dim, index, value):
    """Out-of-place :meth:`Tensor.index_fill_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.index_fill(cygrad.zeros(3), 0, cygrad.tensor([1]), 2.0).tolist()
    [0.0, 2.0, 0.0]
    """
    _require_tensor(input, "index_fill", "input", 1)
    dim = int_arg(dim, "index_fill", "dim", 2)
    _fill_arg(value, "index_fill")
    return _index_fill_function(value).apply(input, dim, index, value)


def _slices(t, dim):
    """The shape of ``t`` without ``dim`` (a 0-dim tensor has none)."""
    shape = tuple(t.shape)
    return shape[:dim] + shape[dim + 1:] if shape else ()


def _index_copy_checks(input, dim, index, source):
    """PyTorch's checks of ``index_copy_``, in its order: ``(dim, index array)``."""
    _require_tensor(index, "index_copy_", "index", 2)
    _require_tensor(source, "index_copy_", "source", 3)
    dim = _dim(dim, input.dim())
    if index.dim() > 1:
        raise IndexError(f"index_copy_(): Index should have dimension 1 or 0 (got {index.dim()})")
    n = index.numel()
    if source.dim() == 0 and n != 1:
        raise IndexError(f"index_copy_(): When source is scalar, index should have one element "
                         f"(got {n})")
    if source.dim() != input.dim() and source.dim() != 0 and input.dim() != 0:
        raise IndexError(f"index_copy_(): When source and destination are not scalars, their "
                         f"dimensionality must match. Source dimensionality ({source.dim()}), "
                         f"destination dimensionality ({input.dim()})")
    if index.dtype != _dt.int64:
        raise RuntimeError(f"index_copy_(): Expected a long tensor for index, but got "
                           f"{_tname(index.dtype)}")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_copy_(): self and source expected to have the same dtype, but "
                           f"got (self) {_tname(input.dtype)} and (source) {_tname(source.dtype)}")
    if _slices(input, dim) != _slices(source, dim):
        raise RuntimeError(f"index_copy_(): Source/destination tensor must have same slice "
                           f"shapes. Destination slice shape: {_shape_str(_slices(input, dim))} at "
                           f"dimension {dim} and source slice shape: "
                           f"{_shape_str(_slices(source, dim))} at dimension 0.")
    if source.dim() and n != source.shape[dim]:
        raise IndexError(f"index_copy_(): Number of indices ({n}) should be equal to "
                         f"source.size(dim) ({source.shape[dim]})")
    return dim


def _index_copy_kernel(input, dim, index, source):
    dim = _index_copy_checks(input, dim, index, source)
    size = input.shape[dim] if input.dim() else 1
    bad = _first_out_of_bounds(index, 0, size)
    if bad is not None:
        if not input.numel() + source.numel():
            return input        # nothing to write: PyTorch's kernel checks nothing
        raise _out_of_bounds(f"index_copy_(): index {bad} is out of bounds for dimension {dim} "
                             f"with size {size}", size)
    return _k("index_copy", input)(input, dim, index, source)


class IndexCopy(Function):
    """``index_copy``: the overwritten slices of ``input`` get no gradient; ``source``
    gets the gradient of the slices it went to."""
    _node_name = "IndexCopyBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, dim, index, source):
        out = _index_copy_kernel(_target(ctx, x), dim, index, source)
        ctx.dim, ctx.shape, ctx.source_shape = dim, tuple(x.shape), tuple(source.shape)
        ctx.save_for_backward(index)
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_x = grad_source = None
        if ctx.needs_input_grad[0]:
            grad_x = grad * _keep_mask(grad.shape, grad.dtype,
                                       lambda m: _clear_slices(m, ctx.dim, index), grad.device)
        if ctx.needs_input_grad[3]:
            grad_source = index_select(grad, ctx.dim, index).reshape(ctx.source_shape)
        return grad_x, None, None, grad_source

    @staticmethod
    def jvp(ctx, tx, _, __, ts):
        index = _fwad.saved_for_jvp(ctx)[0]
        if ts is None and tx is None:
            return None
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype, ts.device)
        if ts is None:
            ts = _zeros(ctx.source_shape, tx.dtype, tx.device)
        return index_copy(base, ctx.dim, index, ts)


class IndexCopyInplace(IndexCopy):
    """``index_copy_``: :class:`IndexCopy` writing into ``x``."""
    _node_name = "IndexCopyBackward0"
    inplace = True


@tensor_method
def index_copy_(input, dim, index, source):
    """In place: copy the slices of ``source`` into ``input`` along ``dim`` at positions
    ``index``: ``self[:, index[i]] = source[:, i]`` for ``dim=1``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(2, 3)
    >>> x.index_copy_(1, cygrad.tensor([2, 0]), cygrad.tensor([[1.0, 2.0], [3.0, 4.0]])).tolist()
    [[2.0, 0.0, 1.0], [4.0, 0.0, 3.0]]
    """
    dim = int_arg(dim, "index_copy_", "dim", 1)
    _check_no_internal_overlap(input)
    return _apply_inplace(IndexCopyInplace, input, dim, index, source)


@tensor_method
def index_copy(input, dim, index, source):
    """Out-of-place :meth:`Tensor.index_copy_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.index_copy(cygrad.zeros(3), 0, cygrad.tensor([2]), cygrad.tensor([5.0])).tolist()
    [0.0, 0.0, 5.0]
    """
    _require_tensor(input, "index_copy", "input", 1)
    dim = int_arg(dim, "index_copy", "dim", 2)
    return IndexCopy.apply(input, dim, index, source)


def _index_add_checks(input, dim, index, source):
    """PyTorch's checks of ``index_add_``, in its order: ``(dim, index array)``."""
    _require_tensor(index, "index_add_", "index", 2)
    _require_tensor(source, "index_add_", "source", 3)
    dim = _dim(dim, input.dim())
    idx = _index_vector(index, "index_add_", _INDEX_DTYPES,
                        "index_add_(): Expected dtype int32/int64 for index")
    if source.dtype != input.dtype:
        raise RuntimeError(f"index_add_(): self ({_tname(input.dtype)}) and source "
                           f"({_tname(source.dtype)}) must have the same scalar type")
    if dim != 0 and dim >= source.dim():
        raise RuntimeError(f"index_add_(): Indexing dim {dim} is out of bounds of the source "
                           f"tensor with dim {source.dim()}")
    if source.dim() == 0 and idx.numel() != 1:
        # PyTorch counts a 0-d source as one slice; any other count makes it ask the
        # source for its size along dim
        raise IndexError(f"Dimension specified as {dim} but tensor has no dimensions")
    size = source.shape[dim] if source.dim() else 1
    if idx.numel() != size:
        raise RuntimeError(f"index_add_(): Number of indices ({idx.numel()}) should be equal to "
                           f"source.size(dim): ({size}), for dim: {dim}")
    if source.dim() != input.dim() or _slices(source, dim) != _slices(input, dim):
        raise RuntimeError(f"source tensor shape must match self tensor shape, excluding the "
                           f"specified dimension. Got self.shape = {_shape_str(input.shape)} "
                           f"source.shape = {_shape_str(source.shape)}")
    return dim, idx


def _index_add_kernel(input, dim, index, source, alpha):
    dim, idx = _index_add_checks(input, dim, index, source)
    ndim = input.dim()
    if ndim > 1 and (idx.numel() == 0 or input.numel() == 0):
        return input        # PyTorch's kernel visits nothing, so checks nothing
    size = input.shape[dim] if ndim else 1
    bad = _first_out_of_bounds(idx, 0, size)
    if bad is not None:
        # PyTorch adds along the first or last dim with scatter_add (its error) when
        # alpha is 1, the index int64 and the other dims equal; else its own loop
        if (ndim > 1 and dim in (0, ndim - 1) and alpha == 1 and idx.dtype == _dt.int64
                and _slices(source, dim) == _slices(input, dim)):
            raise RuntimeError(f"index {bad} is out of bounds for dimension {dim} with size "
                               f"{size}")
        raise IndexError("index out of range in self")
    return _k("index_add", input)(input, dim, idx, source, alpha)


class IndexAdd(Function):
    """``index_add``: ``input``'s gradient passes unchanged; ``source`` gets
    ``conj(alpha)`` times the gradient of the slices it was added to (the conjugate:
    gradients of complex functions are conjugate Wirtinger derivatives, as for ``mul``;
    PyTorch 2.13 multiplies by ``alpha`` itself, which finite differences refute)."""
    _node_name = "IndexAddBackward0"
    inplace = False

    @staticmethod
    def forward(ctx, x, dim, index, source, alpha):
        out = _index_add_kernel(_target(ctx, x), dim, index, source, alpha)
        ctx.dim, ctx.alpha, ctx.shape = dim, alpha, tuple(x.shape)
        ctx.source_shape = tuple(source.shape)
        ctx.save_for_backward(index)
        return _written(ctx, x, out)

    @staticmethod
    def backward(ctx, grad):
        index, = ctx.saved_tensors
        grad_source = None
        if ctx.needs_input_grad[3]:
            grad_source = index_select(grad, ctx.dim, index).reshape(ctx.source_shape)
            if ctx.alpha != 1:
                grad_source = grad_source * ctx.alpha.conjugate()
        return grad, None, None, grad_source, None

    @staticmethod
    def jvp(ctx, tx, _, __, ts, ___):
        if ts is None:
            return tx
        base = tx if tx is not None else _zeros(ctx.shape, ts.dtype, ts.device)
        return index_add(base, ctx.dim, _fwad.saved_for_jvp(ctx)[0], ts, alpha=ctx.alpha)


class IndexAddInplace(IndexAdd):
    """``index_add_``: :class:`IndexAdd` writing into ``x``."""
    _node_name = "IndexAddBackward0"
    inplace = True


@tensor_method
def index_add_(input, dim, index, source, *, alpha=1):
    """In place: add ``alpha * source`` into the slices of ``input`` at ``index`` along
    ``dim``; repeated indices all add up.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.zeros(3)
    >>> x.index_add_(0, cygrad.tensor([0, 0]), cygrad.tensor([1.0, 2.0])).tolist()
    [3.0, 0.0, 0.0]
    """
    dim = int_arg(dim, "index_add_", "dim", 1)
    alpha = _fits(_number_arg(alpha, "index_add_", "alpha"), input.dtype)
    _check_no_internal_overlap(input)
    return _apply_inplace(IndexAddInplace, input, dim, index, source, alpha)


@tensor_method
def index_add(input, dim, index, source, *, alpha=1, out=None):
    """Out-of-place :meth:`Tensor.index_add_`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.index_add(cygrad.ones(2), 0, cygrad.tensor([1]), cygrad.tensor([2.0])).tolist()
    [1.0, 3.0]
    """
    _require_tensor(input, "index_add", "input", 1)
    dim = int_arg(dim, "index_add", "dim", 2)
    alpha = _fits(_number_arg(alpha, "index_add", "alpha"), input.dtype)
    _no_out(out, "index_add", input, source)
    _check_out_dtype(out, input.dtype)
    return _finish(IndexAdd.apply(input, dim, index, source, alpha), out)
