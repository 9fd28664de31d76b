"""Channel rearrangements: ``pixel_shuffle``, ``pixel_unshuffle``, ``channel_shuffle``.

Each is one reshape, one permute and one reshape, so autograd records the view
Functions and the copy; the gradient is the inverse rearrangement.
"""
from ..._core.tensor import TensorBase

__all__ = ["pixel_shuffle", "pixel_unshuffle", "channel_shuffle", "native_channel_shuffle"]


def _check_input(input, opname):
    if not isinstance(input, TensorBase):
        raise TypeError(f"{opname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")


def _check_factor(input, factor, opname, what):
    _check_input(input, opname)
    if input.dim() < 3:
        raise RuntimeError(f"{opname} expects input to have at least 3 dimensions, but got "
                           f"input with {input.dim()} dimension(s)")
    if factor <= 0:
        raise RuntimeError(f"{opname} expects a positive {what}, but got {factor}")


def pixel_shuffle(input, upscale_factor):
    """``(*, C * r**2, H, W) -> (*, C, H * r, W * r)`` with ``r = upscale_factor``, as
    ``torch.nn.functional.pixel_shuffle``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.pixel_shuffle(cygrad.arange(4.0).reshape(1, 4, 1, 1), 2)[0, 0].tolist()
    [[0.0, 1.0], [2.0, 3.0]]
    """
    r = upscale_factor
    _check_factor(input, r, "pixel_shuffle", "upscale_factor")
    *lead, c, h, w = input.shape
    if c % (r * r):
        raise RuntimeError("pixel_shuffle expects its input's 'channel' dimension to be "
                           f"divisible by the square of upscale_factor, but input.size(-3)={c} "
                           f"is not divisible by {r * r}")
    k = len(lead)
    x = input.reshape(tuple(lead) + (c // (r * r), r, r, h, w))
    x = x.permute(tuple(range(k)) + (k, k + 3, k + 1, k + 4, k + 2))
    return x.reshape(tuple(lead) + (c // (r * r), h * r, w * r))


def pixel_unshuffle(input, downscale_factor):
    """``(*, C, H * r, W * r) -> (*, C * r**2, H, W)``: the inverse of
    :func:`pixel_shuffle`, as ``torch.nn.functional.pixel_unshuffle``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.pixel_unshuffle(cygrad.arange(4.0).reshape(1, 1, 2, 2), 2).flatten().tolist()
    [0.0, 1.0, 2.0, 3.0]
    """
    r = downscale_factor
    _check_factor(input, r, "pixel_unshuffle", "downscale_factor")
    *lead, c, h, w = input.shape
    if h % r or w % r:
        which = ("height", h) if h % r else ("width", w)
        raise RuntimeError(f"pixel_unshuffle expects {which[0]} to be divisible by "
                           f"downscale_factor, but input.size({-2 if h % r else -1})={which[1]} "
                           f"is not divisible by {r}")
    if input.numel() == 0:
        return input.clone()    # PyTorch returns an empty input unchanged in shape
    k = len(lead)
    x = input.reshape(tuple(lead) + (c, h // r, r, w // r, r))
    x = x.permute(tuple(range(k)) + (k, k + 2, k + 4, k + 1, k + 3))
    return x.reshape(tuple(lead) + (c * r * r, h // r, w // r))


def channel_shuffle(input, groups):
    """Interleave the channels of ``(N, C, *)`` across ``groups`` (``C`` viewed as
    ``(groups, C // groups)`` and transposed), as
    ``torch.nn.functional.channel_shuffle``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.channel_shuffle(cygrad.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    _check_input(input, "channel_shuffle")
    if input.dim() < 3:
        raise RuntimeError("channel_shuffle expects input to have at least 3 dimensions, but "
                           f"got input with sizes {list(input.shape)}")
    if groups <= 0:
        raise RuntimeError(f"Number of groups to divide channels in must be positive. Value of "
                           f"groups:{groups}")
    n, c, *rest = input.shape
    if c % groups:
        raise RuntimeError(f"Number of channels must be divisible by groups. Got {c} channels "
                           f"and {groups} groups.")
    x = input.reshape((n, groups, c // groups) + tuple(rest)).transpose(1, 2)
    return x.reshape(tuple(input.shape))


def native_channel_shuffle(input, groups):
    """:func:`channel_shuffle` (PyTorch's name for its native kernel).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.native_channel_shuffle(cygrad.arange(4.0).reshape(1, 4, 1), 2).flatten().tolist()
    [0.0, 2.0, 1.0, 3.0]
    """
    return channel_shuffle(input, groups)
