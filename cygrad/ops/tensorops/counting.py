"""Searching, membership, counting and histograms: ``searchsorted``, ``bucketize``,
``isin``, ``bincount``, ``histc``, ``histogram``, ``unique_consecutive``.  Their
results are indices, booleans or counts (no gradient); each calls its kernel.
"""
from ..._core.dtype import int64, float32, float64
from ..._tensor import tensor_method
from ..creation import linspace, tensor as _tensor
from ..reduction._common import _check_tensor, _kernel, _result_type

__all__ = ["searchsorted", "bucketize", "isin", "bincount", "histc", "histogram",
           "histogramdd", "unique_consecutive"]

_HistogramResult = _result_type("histogram", ("hist", "bin_edges"))
_HistogramddResult = _result_type("histogramdd", ("hist", "bin_edges"))


def _as_tensor(v, like):
    return v if hasattr(v, "dim") else _tensor(v, device=like.device)


def searchsorted(sorted_sequence, input, *, out_int32=False, right=False, side=None,
                 sorter=None, out=None):
    """Indices at which ``input``'s values would be inserted into the innermost dim
    of ``sorted_sequence`` to keep it sorted, as ``torch.searchsorted``
    (``right``/``side="right"``: after equal values).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.searchsorted(cygrad.tensor([1, 3, 5, 7]), cygrad.tensor([3, 6])).tolist()
    [1, 3]
    >>> cygrad.searchsorted(cygrad.tensor([1, 3, 5, 7]), 3, right=True).item()
    2
    """
    _check_tensor(sorted_sequence, "searchsorted")
    if side is not None:
        if side not in ("left", "right"):
            raise RuntimeError(f"torch.searchsorted(): side can only be 'left' or 'right' but "
                               f"got {side}")
        if right and side == "left":
            raise RuntimeError("torch.searchsorted(): side and right can't be set to opposites, "
                               "got side of left while right was True")
        right = side == "right"
    scalar = not hasattr(input, "dim")
    values = _as_tensor(input, sorted_sequence).reshape(1) if scalar else input
    if sorted_sequence.dim() > 1 and (values.dim() != sorted_sequence.dim() or
                                      tuple(values.shape[:-1]) !=
                                      tuple(sorted_sequence.shape[:-1])):
        raise RuntimeError("torch.searchsorted(): boundaries tensor should be 1 dimension or "
                           "the first N-1 dimensions of boundaries tensor and input value "
                           "tensor must match")
    if sorted_sequence.dim() == 0:
        raise RuntimeError("torch.searchsorted(): boundaries tensor should have positive "
                           "dimension, but got 0 dimension")
    res = _kernel("searchsorted", sorted_sequence)(sorted_sequence, values, right, sorter,
                                                   out_int32)
    res = res.reshape(()) if scalar else res
    return res if out is None else out.copy_(res)


@tensor_method
def bucketize(input, boundaries, *, out_int32=False, right=False, out=None):
    """The bucket of each value of ``input`` among the sorted 1-D ``boundaries``, as
    ``torch.bucketize`` (``right=False``: ``boundaries[i-1] < x <= boundaries[i]``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.bucketize(cygrad.tensor([1, 5, 9]), cygrad.tensor([1, 3, 5, 7])).tolist()
    [0, 2, 4]
    """
    if boundaries.dim() != 1:
        raise RuntimeError(f"boundaries tensor must be 1 dimension, but got dim("
                           f"{boundaries.dim()})")
    return searchsorted(boundaries, input, out_int32=out_int32, right=right, out=out)


def isin(elements, test_elements, *, assume_unique=False, invert=False):
    """Whether each element of ``elements`` is in ``test_elements`` (either may be a
    scalar), as ``torch.isin``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.isin(cygrad.tensor([1, 2, 3]), cygrad.tensor([2, 5])).tolist()
    [False, True, False]
    """
    if not hasattr(elements, "dim") and not hasattr(test_elements, "dim"):
        raise TypeError("isin() received an invalid combination of arguments: at least one of "
                        "elements and test_elements must be a Tensor")
    like = elements if hasattr(elements, "dim") else test_elements
    e, t = _as_tensor(elements, like), _as_tensor(test_elements, like)
    res = _kernel("isin", like)(e, t, invert)
    return res.reshape(()) if not hasattr(elements, "dim") else res


@tensor_method
def bincount(input, weights=None, minlength=0):
    """Counts of each value ``0..max(input)`` of a non-negative 1-D integer tensor (or
    sums of ``weights`` at them), at least ``minlength`` of them, as ``torch.bincount``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.bincount(cygrad.tensor([0, 1, 1, 3])).tolist()
    [1, 2, 0, 1]
    """
    _check_tensor(input, "bincount")
    if input.dim() != 1 or input.is_floating_point() or input.is_complex() or \
            input.dtype.name == "bool":
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if minlength < 0:
        raise RuntimeError("minlength should be >= 0")
    if input.numel() and int(input.min()) < 0:
        raise RuntimeError("bincount only supports 1-d non-negative integral inputs.")
    if weights is not None and (weights.dim() != 1 or weights.shape[0] != input.shape[0]):
        raise RuntimeError("weights should be 1-d and have the same length as input")
    if weights is None:
        dt = int64
    else:
        dt = float32 if weights.dtype.name == "float32" else float64
    return _kernel("bincount", input)(input, weights, minlength, dt)


@tensor_method
def histc(input, bins=100, min=0, max=0, *, out=None):
    """Counts of ``input`` in ``bins`` equal bins over ``[min, max]`` (the data's range
    when both are 0; values outside are ignored), as ``torch.histc``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.histc(cygrad.tensor([1.0, 2.0, 1.0]), bins=4, min=0, max=3).tolist()
    [0.0, 2.0, 1.0, 0.0]
    """
    _check_tensor(input, "histc")
    if not input.is_floating_point():
        raise NotImplementedError(f"\"histogram_cpu\" not implemented for "
                                  f"'{input.dtype.name.capitalize()}'")
    if bins <= 0:
        raise RuntimeError("torch.histc: bins must be > 0")
    lo, hi = float(min), float(max)
    if lo > hi:
        raise RuntimeError("torch.histc: max must be larger than min")
    if lo == hi and input.numel():
        lo, hi = float(input.min()), float(input.max())
    if lo == hi:
        lo, hi = lo - 1, hi + 1
    res = _kernel("histc", input)(input, int(bins), lo, hi)
    return res if out is None else out.copy_(res)


@tensor_method
def histogram(input, bins, *, range=None, weight=None, density=False, out=None):
    """Histogram of ``input`` as ``(hist, bin_edges)``, as ``torch.histogram``:
    ``bins`` an int (equal bins over ``range`` or the data's range) or a 1-D tensor
    of increasing edges.

    Examples
    --------
    >>> import cygrad
    >>> h, e = cygrad.histogram(cygrad.tensor([1.0, 2.0, 1.0]), 2)
    >>> h.tolist(), e.tolist()
    ([2.0, 1.0], [1.0, 1.5, 2.0])
    """
    _check_tensor(input, "histogram")
    if not input.is_floating_point():
        raise RuntimeError("torch.histogram: input tensor and bins tensors should have the "
                           "same dtype")
    if hasattr(bins, "dim"):
        edges = bins
    else:
        lo_hi = None if range is None else (float(range[0]), float(range[1]))
        edges = _equal_edges(input, bins, lo_hi, input)
    hist = _kernel("histogramdd", input)(input.reshape(-1, 1), [edges], weight, density)
    return _HistogramResult(hist, edges.clone())


def _equal_edges(column, bins, lo_hi, like):
    if lo_hi is not None:
        lo, hi = lo_hi
    elif column.numel():
        lo, hi = float(column.min()), float(column.max())
    else:
        lo, hi = 0.0, 0.0
    if lo == hi:
        lo, hi = lo - 0.5, hi + 0.5    # numpy's and torch's rule for an empty range
    return linspace(lo, hi, int(bins) + 1, dtype=like.dtype, device=like.device)


def histogramdd(input, bins, *, range=None, weight=None, density=False):
    """Histogram of the points in the rows of ``input`` (shape ``(..., D)``) as
    ``(hist, bin_edges)``, as ``torch.histogramdd``: ``bins`` an int, ``D`` ints
    (equal bins over ``range``, a flat list of ``2 * D`` bounds, or the data's range)
    or ``D`` 1-D tensors of increasing edges.

    Examples
    --------
    >>> import cygrad
    >>> pts = cygrad.tensor([[0.0, 0.0], [1.0, 1.0], [1.0, 0.0]])
    >>> cygrad.histogramdd(pts, bins=2).hist.tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    _check_tensor(input, "histogramdd")
    if input.dim() < 2:
        raise RuntimeError("torch.histogramdd: input tensor should have at least 2 dimensions")
    if not input.is_floating_point():
        raise RuntimeError("torch.histogramdd: input tensor and bins tensors should have the "
                           "same dtype")
    n_dims = input.shape[-1]
    points = input.reshape(-1, n_dims)
    if isinstance(bins, int):
        bins = [bins] * n_dims
    bins = list(bins)
    if len(bins) != n_dims:
        raise RuntimeError(f"torch.histogramdd: expected {n_dims} sequences of bin edges for "
                           f"each of the {n_dims} dimensions of the input, but got "
                           f"{len(bins)}")
    if range is not None and len(range) != 2 * n_dims:
        raise RuntimeError(f"torch.histogramdd: for a {n_dims}-dimensional histogram range "
                           f"should have {2 * n_dims} elements, but got {len(range)}")
    edges = []
    for k, b in enumerate(bins):
        if hasattr(b, "dim"):
            edges.append(b)
            continue
        lo_hi = None if range is None else (float(range[2 * k]), float(range[2 * k + 1]))
        edges.append(_equal_edges(points[:, k], b, lo_hi, input))
    w = None if weight is None else weight.reshape(-1)
    hist = _kernel("histogramdd", input)(points, edges, w, density)
    return _HistogramddResult(hist, tuple(e.clone() for e in edges))


@tensor_method
def unique_consecutive(input, return_inverse=False, return_counts=False, dim=None):
    """Collapse runs of equal consecutive elements (or slices along ``dim``), as
    ``torch.unique_consecutive``; optionally also each element's run index and the
    run lengths.

    Examples
    --------
    >>> import cygrad
    >>> v, c = cygrad.unique_consecutive(cygrad.tensor([1, 1, 2, 2, 3, 1]), return_counts=True)
    >>> v.tolist(), c.tolist()
    ([1, 2, 3, 1], [2, 2, 1, 1])
    """
    _check_tensor(input, "unique_consecutive")
    d = None if dim is None else (dim % input.dim() if input.dim() else 0)
    values, inverse, counts = _kernel("unique_consecutive", input)(input, d)
    if dim is None:
        inverse = inverse.reshape(tuple(input.shape))
    out = (values,)
    if return_inverse:
        out += (inverse,)
    if return_counts:
        out += (counts,)
    return out[0] if len(out) == 1 else out
