"""``ctc_loss``: connectionist temporal classification.

The forward (alpha) recursion over the extended label sequence (a blank between
and around the targets) runs in log space with ``logsumexp``, one step per input
frame, for the whole batch at once; the loss's gradient is autograd's pass back
through those steps, which equals the textbook alpha-beta gradient. Impossible
paths carry a large negative finite log-probability rather than ``-inf`` so that
``logsumexp``'s gradient stays finite; a loss that only such paths reach is
reported as ``inf``, as PyTorch does.
"""
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ...ops.creation import full, tensor, zeros
from ...ops.shape import cat, stack
from .loss import _check_reduction

__all__ = ["ctc_loss"]

_NEG = -1e30        # log of "impossible"; finite so that logsumexp's gradient stays finite


def _lengths(value, what):
    if isinstance(value, TensorBase):
        return [int(v) for v in value.reshape(-1).tolist()]
    if isinstance(value, int):
        return [value]
    return [int(v) for v in value]


def _padded_targets(targets, target_lengths, batch):
    """Targets as a ``(batch, max length)`` list of lists."""
    if targets.dim() == 2:
        rows = targets.to(_dt.int64).tolist()
        return [row[:n] for row, n in zip(rows, target_lengths)]
    flat = targets.to(_dt.int64).reshape(-1).tolist()
    rows, start = [], 0
    for n in target_lengths:
        rows.append(flat[start:start + n])
        start += n
    return rows


def ctc_loss(log_probs, targets, input_lengths, target_lengths, blank=0, reduction="mean",
             zero_infinity=False):
    """The CTC loss, as ``torch.nn.functional.ctc_loss``.

    ``log_probs`` is ``(T, N, C)`` (or ``(T, C)`` unbatched): log-probabilities of the
    ``C`` classes, ``blank`` included, per frame. ``targets`` is ``(N, S)`` padded or
    1-D (all target sequences concatenated), with class indices other than
    ``blank``. ``input_lengths`` and ``target_lengths`` (``N`` each; tensors or
    sequences) give each sample's frame count (at most ``T``) and target length.
    The loss of a sample is ``-log p(target | input)``, summed over all alignments;
    ``reduction="mean"`` divides each by its target length (at least 1) and averages
    over the batch. With ``zero_infinity=True`` impossible samples (``inf`` loss)
    give 0 and no gradient.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> lp = cygrad.full((2, 1, 2), 0.5).log()   # two frames, blank or class 1 each
    >>> round(F.ctc_loss(lp, cygrad.tensor([[1]]), [2], [1], reduction="sum").item(), 4)
    0.2877
    """
    _check_reduction(reduction)
    unbatched = log_probs.dim() == 2
    if unbatched:
        log_probs = log_probs.unsqueeze(1)
        if targets.dim() == 1:
            targets = targets.unsqueeze(0)
    if log_probs.dim() != 3:
        raise RuntimeError(f"ctc_loss: expected log_probs to be 2-D or 3-D, got "
                           f"{log_probs.dim()}-D")
    if not log_probs.dtype.is_floating_point:
        raise RuntimeError(f"ctc_loss: expected floating log_probs, got {log_probs.dtype}")
    T, N, C = log_probs.shape
    ilens, tlens = _lengths(input_lengths, "input"), _lengths(target_lengths, "target")
    if len(ilens) != N:
        raise RuntimeError("input_lengths must be of size batch_size")
    if len(tlens) != N:
        raise RuntimeError("target_lengths must be of size batch_size")
    if not 0 <= blank < C:
        raise RuntimeError("blank must be in label range")
    for n in ilens:
        if n > T or n < 0:
            raise RuntimeError(f"Expected input_lengths to have value at {'most' if n > T else 'least'} "
                               f"{T if n > T else 0}, but got value {n} (while checking arguments "
                               "for ctc_loss_allocate_outputs)")
    for n in tlens:
        if n < 0:
            raise RuntimeError(f"Expected target_lengths to have value at least 0, but got value "
                               f"{n} (while checking arguments for ctc_loss_allocate_outputs)")
    if targets.dim() == 2 and tlens and max(tlens) > targets.size(1):
        raise RuntimeError(f"Expected tensor to have size at least {max(tlens)} at dimension 1, "
                           f"but got size {targets.size(1)} for argument #2 'targets' (while "
                           "checking arguments for ctc_loss_allocate_outputs)")
    rows = _padded_targets(targets, tlens, N)
    S = max(tlens) if tlens else 0
    L = 2 * S + 1
    ext_rows, skip_rows = [], []
    for row in rows:
        for c in row:
            if not 0 <= c < C:
                raise RuntimeError(f"ctc_loss: target index {c} is out of range [0, {C})")
        ext = [blank] * L
        ext[1:2 * len(row):2] = row
        ext_rows.append(ext)
        skip_rows.append([s >= 2 and ext[s] != blank and ext[s] != ext[s - 2] for s in range(L)])
    dev, dt = log_probs.device, log_probs.dtype
    ext = tensor(ext_rows, dtype=_dt.int64, device=dev).reshape(N, L)
    no_skip = tensor(skip_rows, dtype=_dt.bool_, device=dev).reshape(N, L).logical_not()
    emit = log_probs.gather(2, ext.unsqueeze(0).expand(T, N, L))          # (T, N, L)
    neg1 = full((N, 1), _NEG, dtype=dt, device=dev)
    neg2 = full((N, 2), _NEG, dtype=dt, device=dev)
    # before the first frame: all probability on "nothing emitted yet" (position 0)
    alpha = cat([zeros(N, 1, dtype=dt, device=dev), full((N, L - 1), _NEG, dtype=dt,
                                                           device=dev)], 1)
    running = tensor(ilens, dtype=_dt.int64, device=dev)
    for t in range(max(ilens) if ilens else 0):
        stay = alpha
        step = cat([neg1, alpha[:, :-1]], 1)
        skip = cat([neg2, alpha[:, :-2]], 1).masked_fill(no_skip, _NEG) if L > 2 else neg1.expand(N, L)
        new = stack([stay, step, skip], 0).logsumexp(0) + emit[t]
        alpha = new.where(running.gt(t).unsqueeze(1), alpha)
    last = tensor([2 * n for n in tlens], dtype=_dt.int64, device=dev).unsqueeze(1)
    ends = cat([alpha.gather(1, last),
                alpha.gather(1, (last - 1).clamp(min=0)).masked_fill(last.eq(0), _NEG)], 1)
    loss = -ends.logsumexp(1)
    impossible = loss.detach().gt(-_NEG / 2)
    loss = loss.masked_fill(impossible, 0.0 if zero_infinity else float("inf"))
    if reduction == "mean":
        denom = tensor([max(n, 1) for n in tlens], dtype=dt, device=dev)
        loss = (loss / denom).mean()
    elif reduction == "sum":
        loss = loss.sum()
    elif unbatched:
        loss = loss.squeeze(0)
    return loss
