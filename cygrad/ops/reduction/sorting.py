"""Sorting and selection: ``sort``, ``argsort``, ``msort``, ``topk``, ``median``,
``kthvalue``, ``mode``, ``unique``.  Sorts are stable; NaN sorts as the largest value.
"""
from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._tensor import tensor_method
from .._argcheck import bool_arg, int_arg
from ._common import (_UNSET, _check_tensor, _emit, _emit_pair, _kernel, _keepdim,
                      _KthvalueResult, _MedianResult, _ModeResult, _single_dim, _SortResult,
                      _TopkResult)
from ._autograd import _no_out, _Selection, _TieSplit


def _no_complex_sort(input, what):
    if input.dtype.is_complex:       # (PyTorch's message, leading space included)
        raise RuntimeError(f" {what} does not support complex dtypes on CPU")


@tensor_method
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
    if _C.needs_autograd(input):
        _no_out(out, "sort")
        return _SortResult(*Sort.apply(input, dim, descending))
    return _sort(input, dim, descending, out)


def _sort(input, dim, descending, out=None):
    d = _single_dim(input, dim, "sort")
    values, idx = _kernel("sort", input)(input, d, descending)
    return _emit_pair(_SortResult, values, idx, input.dtype, out, "sort")


class Sort(_Selection):
    """``sort``: each sorted value's gradient goes back to the position it came from."""
    _node_name = "SortBackward0"

    @staticmethod
    def forward(ctx, input, dim, descending):
        values, indices = _sort(input, dim, descending)
        return Sort._selected(ctx, input, values, indices, _single_dim(input, dim, "sort"), False)


@tensor_method
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
    if _C.needs_autograd(input):
        _no_out(out, "msort")
        return Sort.apply(input, 0, False)[0]
    values, _ = _kernel("sort", input)(input, 0, False)
    return _emit(values, input.dtype, out, "msort", exact=True)


@tensor_method
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
    if _C.needs_autograd(input):
        _no_out(out, "topk")
        return _TopkResult(*Topk.apply(input, k, dim, largest, sorted))
    return _topk(input, k, dim, largest, sorted, out)


def _topk(input, k, dim, largest, sorted, out=None):
    if input.dtype == _dt.bool_:
        raise RuntimeError("topk does not support bool dtypes on CPU")
    d = _single_dim(input, dim, "topk")
    if not 0 <= k <= (input.shape[d] if input.dim() else 1):
        raise RuntimeError("selected index k out of range")
    values, idx = _kernel("topk", input)(input, k, d, largest)
    return _emit_pair(_TopkResult, values, idx, input.dtype, out, "topk")


class Topk(_Selection):
    """``topk``: each value's gradient goes back to the position it came from."""
    _node_name = "TopkBackward0"

    @staticmethod
    def forward(ctx, input, k, dim, largest, sorted):
        values, indices = _topk(input, k, dim, largest, sorted)
        return Topk._selected(ctx, input, values, indices, _single_dim(input, dim, "topk"), False)


def _no_bool(input, opname):
    if input.dtype == _dt.bool_:
        raise NotImplementedError(f'"{opname}_cpu" not implemented for \'Bool\'')


def _select_sorted(input, dim, keepdim, opname, k):
    """Shared body of median/kthvalue: the element at sorted position ``k`` along
    ``dim`` (``k`` None: the lower median, a NaN-holding row's first NaN)."""
    d = _single_dim(input, dim, opname)
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")
    return _kernel("kthvalue", input)(input, d, keepdim, k)


@tensor_method
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
    if _C.needs_autograd(input):
        _no_out(out, "median")
        if dim is None:
            return MedianAll.apply(input)
        return _MedianResult(*MedianDim.apply(input, dim, keepdim))
    return _median(input, dim, keepdim, out)


def _median(input, dim, keepdim, out=None):
    if dim is None:
        values, _ = _kernel("kthvalue", input)(input.reshape(-1), 0, False, None)
        # (the NaN of an empty input converts into out's dtype)
        return _emit(values, input.dtype, out, "median", exact=input.numel() != 0)
    values, idx = _select_sorted(input, dim, keepdim, "median", None)
    return _emit_pair(_MedianResult, values, idx, input.dtype, out, "median")


class MedianAll(_TieSplit):
    """``median()`` of the whole tensor: like ``max()``, the gradient is split evenly
    among the elements equal to the median (PyTorch's rule)."""
    _node_name = "MedianBackward0"

    @staticmethod
    def forward(ctx, input):
        return MedianAll._chosen(ctx, input, None, False, _median(input, None, False))


class MedianDim(_Selection):
    """``median(dim)``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "MedianBackward1"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        values, indices = _median(input, dim, keepdim)
        d = _single_dim(input, dim, "median")
        return MedianDim._selected(ctx, input, values, indices, d, not keepdim)


@tensor_method
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
    k = int_arg(k, "kthvalue", "k", 2)
    _keepdim(keepdim, "kthvalue")
    _single_dim(input, dim, "kthvalue")     # a bad dim is reported before a bool input
    if input.dim() != 0 and input.numel() != 0:
        # (PyTorch takes a 0-d input's value, or fails on an empty one, without a kernel)
        _no_bool(input, "kthvalue")
    if _C.needs_autograd(input):
        _no_out(out, "kthvalue")
        return _KthvalueResult(*Kthvalue.apply(input, k, dim, keepdim))
    return _kthvalue(input, k, dim, keepdim, out)


def _kthvalue(input, k, dim, keepdim, out=None):
    d = _single_dim(input, dim, "kthvalue")
    size = 1 if input.dim() == 0 else input.shape[d]
    if size == 0:
        raise IndexError(f"kthvalue(): Expected reduction dim {d} to have non-zero size.")
    if not 1 <= k <= size:
        raise RuntimeError(f"kthvalue(): selected number k out of range for dimension {d}")
    values, idx = _select_sorted(input, d, keepdim, "kthvalue", k - 1)
    return _emit_pair(_KthvalueResult, values, idx, input.dtype, out, "kthvalue")


class Kthvalue(_Selection):
    """``kthvalue``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "KthvalueBackward0"

    @staticmethod
    def forward(ctx, input, k, dim, keepdim):
        values, indices = _kthvalue(input, k, dim, keepdim)
        d = _single_dim(input, dim, "kthvalue")
        return Kthvalue._selected(ctx, input, values, indices, d, not keepdim)


@tensor_method
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
    _keepdim(keepdim, "mode")
    if _C.needs_autograd(input):
        _no_out(out, "mode")
        return _ModeResult(*Mode.apply(input, dim, keepdim))
    return _mode(input, dim, keepdim, out)


def _mode(input, dim, keepdim, out=None):
    d = _single_dim(input, dim, "mode")
    if input.dim() and input.shape[d] == 0:
        raise IndexError(f"mode(): Expected reduction dim {d} to have non-zero size.")
    values, indices = _kernel("mode", input)(input, d, keepdim)
    return _emit_pair(_ModeResult, values, indices, input.dtype, out, "mode")


class Mode(_Selection):
    """``mode``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "ModeBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        values, indices = _mode(input, dim, keepdim)
        return Mode._selected(ctx, input, values, indices, _single_dim(input, dim, "mode"),
                              not keepdim)


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
