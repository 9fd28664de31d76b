"""Sorting and selection: ``sort``, ``argsort``, ``msort``, ``topk``, ``median``,
``kthvalue``, ``mode``, ``unique``.  Sorts are stable; NaN sorts as the largest value.
"""
from ..._core import dtype as _dt
from ..._tensor import tensor_method
from .._argcheck import bool_arg, int_arg
from ._common import (numpy_keywords, _UNSET, _check_tensor, _emit, _emit_pair, _kernel, _keepdim,
                      _refuse_complex, _KthvalueResult, _MedianResult, _ModeResult, _single_dim, _SortResult,
                      _TopkResult)
from ._autograd import _no_out, _Selection, _TieSplit


def _no_complex_sort(input, what):
    if input.dtype.is_complex:       # (PyTorch's message, leading space included)
        raise RuntimeError(f" {what} does not support complex dtypes on CPU")


@tensor_method
@numpy_keywords
def sort(input, dim=-1, descending=False, *, stable=False, out=None):
    """Sort along ``dim``; returns ``(values, indices)``.

    The sort is always stable (equal elements keep their order, also when
    ``descending``); NaN sorts as larger than every number.

    Examples
    --------
    >>> import cygrad
    >>> values, indices = cygrad.sort(cygrad.tensor([3, 1, 2, 1]))
    >>> values.tolist(), indices.tolist()
    ([1, 1, 2, 3], [1, 3, 2, 0])
    >>> cygrad.tensor([3, 1, 2]).sort(descending=True).values.tolist()
    [3, 2, 1]
    """
    _check_tensor(input, "sort")
    _no_complex_sort(input, "Sort")
    bool_arg(descending, "sort", "descending")
    if stable is not None:
        bool_arg(stable, "sort", "stable")
    _no_out(out, "sort", input)
    values, indices = Sort.apply(input, _single_dim(input, dim, "sort"), descending)
    return _emit_pair(_SortResult, values, indices, input.dtype, out, "sort")


class Sort(_Selection):
    """``sort``: each sorted value's gradient goes back to the position it came from.

    ``forward(input, d, descending)`` with ``d`` wrapped."""
    _node_name = "SortBackward0"

    @staticmethod
    def forward(ctx, input, d, descending):
        values, indices = _kernel("sort", input)(input, d, descending)
        return Sort._selected(ctx, input, values, indices, d, False)


@tensor_method
@numpy_keywords
def argsort(input, dim=-1, descending=False, stable=False):
    """Indices that sort ``input`` along ``dim`` (stable, NaN last when ascending).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.argsort(cygrad.tensor([3.0, 1.0, 2.0])).tolist()
    [1, 2, 0]
    """
    _check_tensor(input, "argsort")
    _no_complex_sort(input, "Sort")
    bool_arg(descending, "argsort", "descending")
    bool_arg(stable, "argsort", "stable")
    d = _single_dim(input, dim, "argsort")
    return _kernel("sort", input)(input, d, descending, False)


@tensor_method
def msort(input, *, out=None):
    """Sort along the first dim (values only).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.msort(cygrad.tensor([[2, 1], [1, 3]])).tolist()
    [[1, 1], [2, 3]]
    """
    _check_tensor(input, "msort")
    _no_complex_sort(input, "Sort")
    _no_out(out, "msort", input)
    values, _ = Sort.apply(input, 0, False)
    return values if out is None else _emit(values, input.dtype, out, "msort", exact=True)


@tensor_method
@numpy_keywords
def topk(input, k, dim=-1, largest=True, sorted=True, *, out=None):
    """The ``k`` largest (or smallest) elements along ``dim``: ``(values, indices)``.

    Results come sorted (largest first when ``largest``); NaN counts as the
    largest value.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.topk(cygrad.tensor([1.0, 5.0, 3.0, 4.0]), 2)
    >>> r.values.tolist(), r.indices.tolist()
    ([5.0, 4.0], [1, 3])
    """
    _check_tensor(input, "topk")
    _no_complex_sort(input, "topk")
    k = int_arg(k, "topk", "k", 2)
    bool_arg(largest, "topk", "largest")
    bool_arg(sorted, "topk", "sorted")
    _no_out(out, "topk", input)
    if input.dtype == _dt.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _single_dim(input, dim, "topk")
    if not 0 <= k <= (input.shape[d] if input.dim() else 1):
        raise RuntimeError("selected index k out of range")
    values, indices = Topk.apply(input, k, d, largest)
    return _emit_pair(_TopkResult, values, indices, input.dtype, out, "topk")


class Topk(_Selection):
    """``topk``: each value's gradient goes back to the position it came from.

    ``forward(input, k, d, largest)`` with ``d`` wrapped; the results always come
    sorted."""
    _node_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, input, k, d, largest):
        values, indices = _kernel("topk", input)(input, k, d, largest)
        return Topk._selected(ctx, input, values, indices, d, False)


def _no_bool(input, opname):
    if input.dtype == _dt.bool_:
        raise NotImplementedError(f'"{opname}_cpu" not implemented for \'Bool\'')


def _nonempty_dim(input, dim, opname):
    """``dim`` wrapped, refused where the input has no element along it."""
    d = _single_dim(input, dim, opname)
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")
    return d


@tensor_method
@numpy_keywords
def median(input, dim=_UNSET, keepdim=False, *, out=None):
    """The lower median (no averaging of the two middle values); with ``dim``,
    ``(values, indices)``.  NaN propagates: a row holding NaN has median NaN.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[4.0, 1.0, 3.0, 2.0], [5.0, 9.0, 7.0, 8.0]])
    >>> x.median().item()
    4.0
    >>> cygrad.median(x, dim=1).values.tolist()
    [2.0, 7.0]
    """
    _check_tensor(input, "median")
    if dim is _UNSET:               # median(x) is the whole tensor's; median(x, None) is refused
        dim = None
    else:
        int_arg(dim, "median", "dim", 2)
    _keepdim(keepdim, "median")
    _no_bool(input, "median")       # (after the argument types, as PyTorch's parser)
    _refuse_complex(input, "median",
                    f"median_{input.device.type}" if dim is None else "median_out")
    _no_out(out, "median", input)
    if dim is None:
        result = MedianAll.apply(input)
        # (the NaN of an empty input converts into out's dtype)
        return result if out is None else _emit(result, input.dtype, out, "median",
                                                exact=input.numel() != 0)
    values, indices = MedianDim.apply(input, _nonempty_dim(input, dim, "median"), keepdim)
    return _emit_pair(_MedianResult, values, indices, input.dtype, out, "median")


class MedianAll(_TieSplit):
    """``median()`` of the whole tensor, the lower median: like ``max()``, the gradient
    is split evenly among the elements equal to the median (PyTorch's rule)."""
    _node_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, input):
        result, _ = _kernel("kthvalue", input)(input.reshape(-1), 0, False, None)
        return MedianAll._chosen(ctx, input, None, False, result)


class MedianDim(_Selection):
    """``median(dim)``: each value's gradient goes to the element ``indices`` names.

    ``forward(input, d, keepdim)`` with ``d`` wrapped; a NaN-holding row's median is
    its first NaN."""
    _node_name = "MedianBackward1"

    @staticmethod
    def forward(ctx, input, d, keepdim):
        values, indices = _kernel("kthvalue", input)(input, d, keepdim, None)
        return MedianDim._selected(ctx, input, values, indices, d, not keepdim)


@tensor_method
@numpy_keywords
def kthvalue(input, k, dim=-1, keepdim=False, *, out=None):
    """The ``k``-th smallest element (1-based) along ``dim``: ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.kthvalue(cygrad.tensor([5.0, 1.0, 4.0, 2.0]), 2)
    >>> r.values.item(), r.indices.item()
    (2.0, 3)
    """
    _check_tensor(input, "kthvalue")
    _refuse_complex(input, "kthvalue", f"kthvalue_{input.device.type}")
    k = int_arg(k, "kthvalue", "k", 2)
    _keepdim(keepdim, "kthvalue")
    _single_dim(input, dim, "kthvalue")     # a bad dim is reported before a bool input
    if input.dim() != 0 and input.numel() != 0:
        # (PyTorch takes a 0-d input's value, or fails on an empty one, without a kernel)
        _no_bool(input, "kthvalue")
    _no_out(out, "kthvalue", input)
    d = _nonempty_dim(input, dim, "kthvalue")
    if not 1 <= k <= (input.shape[d] if input.dim() else 1):
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, indices = Kthvalue.apply(input, k, d, keepdim)
    return _emit_pair(_KthvalueResult, values, indices, input.dtype, out, "kthvalue")


class Kthvalue(_Selection):
    """``kthvalue``: each value's gradient goes to the element ``indices`` names.

    ``forward(input, k, d, keepdim)``: ``k`` counts from 1, ``d`` is wrapped."""
    _node_name = "KthvalueBackward0"

    @staticmethod
    def forward(ctx, input, k, d, keepdim):
        values, indices = _kernel("kthvalue", input)(input, d, keepdim, k - 1)
        return Kthvalue._selected(ctx, input, values, indices, d, not keepdim)


@tensor_method
@numpy_keywords
def mode(input, dim=-1, keepdim=False, *, out=None):
    """Most frequent value along ``dim`` (the smallest among equally frequent ones)
    and the index of its last occurrence: ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.mode(cygrad.tensor([2, 1, 2, 1, 3]))
    >>> r.values.item(), r.indices.item()
    (1, 3)
    """
    _check_tensor(input, "mode")
    _refuse_complex(input, "mode", f"mode_{input.device.type}")
    keepdim = _keepdim(keepdim, "mode")
    _no_out(out, "mode", input)
    values, indices = Mode.apply(input, _nonempty_dim(input, dim, "mode"), keepdim)
    return _emit_pair(_ModeResult, values, indices, input.dtype, out, "mode")


class Mode(_Selection):
    """``mode``: each value's gradient goes to the element ``indices`` names.

    ``forward(input, d, keepdim)`` with ``d`` wrapped."""
    _node_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, input, d, keepdim):
        values, indices = _kernel("mode", input)(input, d, keepdim)
        return Mode._selected(ctx, input, values, indices, d, not keepdim)


@tensor_method
def unique(input, sorted=True, return_inverse=False, return_counts=False, dim=None):
    """The distinct elements (or, with ``dim``, distinct slices along ``dim``), in
    ascending order.

    ``return_inverse`` adds, for each input element, the index of its value in the
    result; ``return_counts`` adds how often each value occurs.  NaNs are all
    distinct, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> values, inverse, counts = cygrad.unique(cygrad.tensor([3, 1, 3, 2]),
    ...                                         return_inverse=True, return_counts=True)
    >>> values.tolist(), inverse.tolist(), counts.tolist()
    ([1, 2, 3], [2, 0, 2, 1], [1, 1, 2])
    """
    _check_tensor(input, "unique")
    _refuse_complex(input, "unique", "unique")
    for name, flag in (("sorted", sorted), ("return_inverse", return_inverse),
                       ("return_counts", return_counts)):
        bool_arg(flag, "unique", name)
    d = None if dim is None else _single_dim(input, dim, "unique")
    values, inverse, counts = _kernel("unique", input)(input, d)
    result = [values]
    if return_inverse:
        result.append(inverse)
    if return_counts:
        result.append(counts)
    return result[0] if len(result) == 1 else tuple(result)
