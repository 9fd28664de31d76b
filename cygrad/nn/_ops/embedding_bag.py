"""``embedding_bag``: sums, means or maxima of bags of embedding rows.

The rows are looked up once with ``Embedding`` (so ``padding_idx`` and
``scale_grad_by_freq`` act on the table's gradient exactly as in ``embedding``),
then reduced per bag with existing differentiable ops: ``sum`` and ``mean`` are
one ``index_add`` of the (weighted) rows into their bags, ``max`` lays the bags
out as a padded ``(bags, longest bag, dim)`` block and takes ``max`` over it, whose
gradient goes to the row that won in each column. Nothing here needs its own
backward.
"""
from ..._core.dtype import bool_, int32, int64
from ...ops.creation import arange, full, zeros
from ...ops.shape import cat
from .sparse import Embedding, _padding_index, _renorm_

__all__ = ["embedding_bag"]

_MODES = {"sum": 0, "mean": 1, "max": 2}


def _check_index_dtype(t, what):
    if t.dtype not in (int64, int32):
        raise RuntimeError(
            f"Expected tensor for argument #1 '{what}' to have one of the following scalar "
            f"types: Long, Int; but got {t.type()} instead (while checking arguments for "
            "embedding_bag)")


def _bags(flat, offsets, include_last_offset):
    """Bag of each index (``offset2bag``), the number of bags and the kept length."""
    n = flat.numel()
    offsets = offsets.to(int64)
    if offsets.numel() and offsets[0].item() != 0:
        raise RuntimeError("offsets[0] has to be 0, i.e., the first sequence in the mini-batch "
                           f"has to start from position 0. However, got {offsets[0].item()}")
    if include_last_offset:
        if offsets.numel() < 1:
            raise RuntimeError("include_last_offset: number of offset should be at least 1")
        starts, end = offsets[:-1], min(offsets[-1].item(), n)
    else:
        starts, end = offsets, n
    nb = starts.numel()
    if nb and (starts[-1].item() > end or bool(starts[1:].lt(starts[:-1]).any())):
        raise RuntimeError("offsets must be non-decreasing and at most the number of indices")
    sizes = cat([starts[1:], full((1,), end, dtype=int64)]) - starts if nb else starts
    return arange(nb).repeat_interleave(sizes), nb, end, starts


def _max_bags(rows, bag, starts, nb, end, keep, flat):
    """Per-bag column maxima of ``rows`` (``keep`` false rows take no part) and the
    table row each maximum came from."""
    d = rows.size(1)
    pos = arange(end) - starts.index_select(0, bag)
    longest = int(pos.max().item()) + 1 if end else 0
    if longest == 0:
        return zeros(nb, d, dtype=rows.dtype), zeros(nb, d, dtype=int64)
    slot = bag * longest + pos
    if keep is not None:
        slot = slot.masked_fill(keep.logical_not(), nb * longest)   # an extra, discarded slot
    # slot -> which row fills it (``end`` = the -inf filler row)
    src = full((nb * longest + 1,), end, dtype=int64).index_put_((slot,), arange(end))[:-1]
    filler = full((1, d), float("-inf"), dtype=rows.dtype)
    block = cat([rows, filler]).index_select(0, src).reshape(nb, longest, d)
    values, which = block.max(1)
    empty = src.reshape(nb, longest).eq(end).all(1).unsqueeze(1)
    table_rows = cat([flat.to(int64), zeros(1, dtype=int64)]).index_select(0, src)
    winners = table_rows.reshape(nb, longest).gather(1, which)
    return values.masked_fill(empty, 0.0), winners.masked_fill(empty, 0)


def _embedding_bag(weight, input, offsets, scale_grad_by_freq, mode, per_sample_weights,
                   include_last_offset, padding_idx):
    """The shared body of ``F.embedding_bag`` and ``torch.embedding_bag`` on 1-D input:
    ``(output, offset2bag, bag_size, max_indices)``."""
    flat = input
    bag, nb, end, starts = _bags(flat, offsets, include_last_offset)
    if end < flat.numel():
        flat = flat[:end]
    num = weight.size(0)
    if flat.numel():
        bad = flat.lt(0).logical_or(flat.ge(num))
        if bool(bad.any()):
            at = int(bad.to(int64).argmax().item())
            raise RuntimeError(f"Index {at} of input takes value {flat[at].item()} which is not "
                               f"in the valid range [0, {num})")
    rows = Embedding.apply(weight, flat, padding_idx, scale_grad_by_freq)
    keep = flat.ne(padding_idx) if padding_idx is not None else None
    idx_dtype = input.dtype
    if mode == "max":
        out, winners = _max_bags(rows, bag, starts, nb, end, keep, flat)
    else:
        if per_sample_weights is not None:
            rows = rows * per_sample_weights[:end].unsqueeze(1)
        if keep is not None:
            rows = rows.masked_fill(keep.logical_not().unsqueeze(1), 0.0)
        out = zeros(nb, weight.size(1), dtype=rows.dtype,
                    device=weight.device).index_add(0, bag, rows)
    counts = zeros(nb, dtype=int64).index_add_(
        0, bag, (keep if keep is not None else full((end,), True, dtype=bool_)).to(int64))
    if mode == "mean":
        out = out / counts.clamp(min=1).to(out.dtype).unsqueeze(1)
    # the auxiliary outputs as PyTorch's CPU kernel gives them
    if mode == "sum":
        aux = (bag.to(idx_dtype), zeros(nb, dtype=idx_dtype), zeros(nb, dtype=idx_dtype))
    elif mode == "mean":
        aux = (bag.to(idx_dtype), counts.to(idx_dtype), counts.to(idx_dtype))
    else:
        aux = (bag.to(idx_dtype), counts.to(idx_dtype), winners.to(idx_dtype))
    return (out,) + aux


def embedding_bag(input, weight, offsets=None, max_norm=None, norm_type=2,
                  scale_grad_by_freq=False, mode="mean", sparse=False, per_sample_weights=None,
                  include_last_offset=False, padding_idx=None):
    """Sums, means or maxima of bags of rows of ``weight``, as
    ``torch.nn.functional.embedding_bag``.

    A 2-D ``input`` of shape ``(B, N)`` is ``B`` bags of ``N`` indices each
    (``offsets`` must be ``None``). A 1-D ``input`` is cut into bags at ``offsets``
    (bag ``b`` is ``input[offsets[b]:offsets[b+1]]``, the last bag runs to the end,
    or with ``include_last_offset=True`` to ``offsets[-1]``, which then ends the
    last bag rather than starting one). Empty bags give zeros. ``per_sample_weights``
    (the shape of ``input``, ``mode="sum"`` only) scales each looked-up row. Entries
    equal to ``padding_idx`` are left out of their bag (a bag's mean divides by the
    entries kept) and give the table no gradient. ``max_norm`` renormalises the
    looked-up rows of ``weight`` in place first, as in ``embedding``. ``sparse``
    gradients are not supported.

    Returns a ``(B, embedding_dim)`` tensor.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> w = cygrad.tensor([[1.0, 0.0], [0.0, 2.0], [3.0, 4.0]])
    >>> F.embedding_bag(cygrad.tensor([0, 1, 2]), w, cygrad.tensor([0, 2]), mode="sum").tolist()
    [[1.0, 2.0], [3.0, 4.0]]
    >>> F.embedding_bag(cygrad.tensor([[0, 2], [1, 1]]), w, mode="max").tolist()
    [[3.0, 4.0], [0.0, 2.0]]
    """
    _check_index_dtype(input, "indices")
    if weight.dim() != 2:
        raise ValueError(f"weight has to be a 2D Tensor, but got Tensor of dimension "
                         f"{weight.dim()}")
    if per_sample_weights is not None and tuple(input.shape) != tuple(per_sample_weights.shape):
        raise ValueError(f"embedding_bag: If per_sample_weights ({per_sample_weights.shape}) is "
                         f"not None, then it must have the same shape as the input "
                         f"({input.shape})")
    if input.dim() == 2:
        if offsets is not None:
            raise ValueError("if input is 2D, then offsets has to be None, as input is treated "
                             "is a mini-batch of fixed length sequences. However, found offsets "
                             f"of type {type(offsets)}")
        offsets = arange(0, input.numel(), input.size(1), dtype=input.dtype)
        input = input.reshape(-1)
        if per_sample_weights is not None:
            per_sample_weights = per_sample_weights.reshape(-1)
    elif input.dim() == 1:
        if offsets is None:
            raise ValueError("offsets has to be a 1D Tensor but got None")
        if offsets.dim() != 1:
            raise ValueError("offsets has to be a 1D Tensor")
    else:
        raise ValueError(f"input has to be 1D or 2D Tensor, but got Tensor of dimension "
                         f"{input.dim()}")
    _check_index_dtype(offsets, "offsets")
    if mode not in _MODES:
        raise ValueError("mode has to be one of sum, mean or max")
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    if per_sample_weights is not None and mode != "sum":
        raise NotImplementedError(
            "embedding_bag: per_sample_weights was not None. per_sample_weights is only "
            f"supported for mode='sum' (got mode='{mode}'). Please open a feature request "
            "on GitHub.")
    if sparse:
        raise NotImplementedError("embedding_bag: sparse gradients are not supported by cygrad")
    padding_idx = _padding_index(padding_idx, weight.size(0))
    return _embedding_bag(weight, input, offsets, scale_grad_by_freq, mode, per_sample_weights,
                          include_last_offset, padding_idx)[0]
