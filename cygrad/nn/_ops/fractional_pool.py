"""Fractional max pooling (Graham, 2014): ``fractional_max_pool2d`` / ``3d``.

Each (sample, channel) plane gets its own pseudo-random window starts along each
spatial dim, computed from one uniform number per dim as PyTorch does
(``start[i] = int((i + u) * a) - int(u * a)`` with ``a = (in - k) / (out - 1)``,
the last window ending at the input's edge), in the input's precision so that the
truncations agree. The windows' elements are read with ``gather`` on the
flattened planes, one read per kernel offset, and ``max`` over the offsets picks
each output and its index; the gradient is ``max``'s and ``gather``'s.
"""
import math
from itertools import product

from ..._core import dtype as _dt
from ...autograd.grad_mode import no_grad
from ...ops.creation import arange, empty
from ...ops.shape import cat, stack

__all__ = ["fractional_max_pool2d", "fractional_max_pool2d_with_indices",
           "fractional_max_pool3d", "fractional_max_pool3d_with_indices"]


def _tuple(value, k, what):
    if value is None:
        return None
    if isinstance(value, (int, float)):
        return (value,) * k
    value = tuple(value)
    if len(value) != k:
        raise RuntimeError(f"{what} must either be a single value or a tuple of {k} values")
    return value


def _starts(u, size, out, kernel):
    """Window starts ``(..., out)`` along one dim from uniforms ``u`` ``(...)``."""
    if out == 1:
        return (u * 0).to(_dt.int64).unsqueeze(-1) + (size - kernel)
    alpha = (size - kernel) / (out - 1)
    i = arange(out - 1, dtype=u.dtype, device=u.device)
    first = ((i + u.unsqueeze(-1)) * alpha).to(_dt.int64) - (u * alpha).to(_dt.int64).unsqueeze(-1)
    last = (u * 0).to(_dt.int64).unsqueeze(-1) + (size - kernel)
    return cat([first, last], -1)


def _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                         _random_samples, k):
    name = f"fractional_max_pool{k}d"
    if input.dim() < k + 1 and _random_samples is None and input.dim() > 0:
        # PyTorch fails here reading the channel count (size(-(k + 1))) for its draw
        d = input.dim()
        raise IndexError(f"Dimension out of range (expected to be in range of [-{d}, {d - 1}], "
                         f"but got -{k + 1})")
    if input.dim() not in (k + 1, k + 2):
        raise RuntimeError(f"{name}(): Expected {k + 1}D or {k + 2}D tensor, but got: "
                           f"{list(input.shape)}")
    kernel = _tuple(kernel_size, k, "kernel_size")
    if output_size is None and output_ratio is None:
        raise ValueError(f"{name} requires specifying either an output_size or an output_ratio")
    spatial = list(input.shape[-k:])
    if output_size is None:
        ratio = _tuple(output_ratio, k, "output_ratio")
        for r in ratio:
            if not 0 < r < 1:
                raise ValueError(f"output_ratio must be between 0 and 1 (got {output_ratio})")
        output_size = [int(s * r) for s, r in zip(spatial, ratio)]
    out = list(_tuple(output_size, k, "output_size"))
    unbatched = input.dim() == k + 1
    x = input.unsqueeze(0) if unbatched else input
    n, c = x.size(0), x.size(1)
    for d in range(k):
        if out[d] + kernel[d] - 1 > spatial[d]:
            raise RuntimeError(f"{name}(): pool size {kernel[d]} too large relative to input "
                               f"size {spatial[d]} for output size {out[d]}")
    if _random_samples is None:
        _random_samples = empty((n, c, k), dtype=input.dtype, device=input.device).uniform_()
    elif tuple(_random_samples.shape) != (n, c, k):
        raise RuntimeError(f"{name}(): expected _random_samples of shape {[n, c, k]}, got "
                           f"{list(_random_samples.shape)}")
    with no_grad():
        u = _random_samples.to(input.dtype)
        # PyTorch's uniform j drives spatial dim: W, H (2-D); T, H, W (3-D)
        which = [1, 0] if k == 2 else [0, 1, 2]
        starts = [_starts(u.select(2, which[d]), spatial[d], out[d], kernel[d])
                  for d in range(k)]
        strides = [math.prod(spatial[d + 1:]) for d in range(k)]
        offsets = []
        for off in product(*[range(kk) for kk in kernel]):
            flat = None
            for d in range(k):
                view = [n, c] + [1] * k
                view[2 + d] = out[d]
                part = ((starts[d] + off[d]) * strides[d]).reshape(view)
                flat = part if flat is None else flat + part
            offsets.append(flat.expand([n, c] + out).reshape(n, c, -1))
    planes = x.reshape(n, c, -1)
    vals = stack([planes.gather(2, idx) for idx in offsets], 0)
    values, which_off = vals.max(0)
    values = values.reshape([n, c] + out)
    if unbatched:
        values = values.squeeze(0)
    if not return_indices:
        return values
    with no_grad():
        indices = stack(offsets, 0).gather(0, which_off.unsqueeze(0)).squeeze(0)
        indices = indices.reshape([n, c] + out)
        if unbatched:
            indices = indices.squeeze(0)
    return values, indices


def fractional_max_pool2d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool2d` returning ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> v, i = F.fractional_max_pool2d_with_indices(x, 2, output_size=1)
    >>> v.tolist(), i.tolist()
    ([[[[15.0]]]], [[[[15]]]])
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, True,
                                _random_samples, 2)


def fractional_max_pool2d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling over ``(N, C, H, W)`` or ``(C, H, W)`` input, as
    ``torch.nn.functional.fractional_max_pool2d``.

    Windows of ``kernel_size`` start at pseudo-random, increasing positions so that
    the output is ``output_size`` (or ``int(input size * output_ratio)``); each
    plane draws its own positions from ``_random_samples`` (``(N, C, 2)`` uniforms
    in [0, 1); drawn with ``cygrad.rand`` when not given, which follows PyTorch's
    generator, so the same seed gives the same windows). ``return_indices`` also
    returns each maximum's flat index in its input plane.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(25.0).reshape(1, 1, 5, 5)
    >>> u = cygrad.full((1, 1, 2), 0.5)
    >>> F.fractional_max_pool2d(x, 2, output_size=3, _random_samples=u).tolist()
    [[[[6.0, 8.0, 9.0], [16.0, 18.0, 19.0], [21.0, 23.0, 24.0]]]]
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                                _random_samples, 2)


def fractional_max_pool3d_with_indices(input, kernel_size, output_size=None, output_ratio=None,
                                       return_indices=False, _random_samples=None):
    """:func:`fractional_max_pool3d` returning ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(8.0).reshape(1, 1, 2, 2, 2)
    >>> v, i = F.fractional_max_pool3d_with_indices(x, 2, output_size=1)
    >>> v.tolist(), i.tolist()
    ([[[[[7.0]]]]], [[[[[7]]]]])
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, True,
                                _random_samples, 3)


def fractional_max_pool3d(input, kernel_size, output_size=None, output_ratio=None,
                          return_indices=False, _random_samples=None):
    """Fractional max pooling over ``(N, C, T, H, W)`` or ``(C, T, H, W)`` input, as
    ``torch.nn.functional.fractional_max_pool3d``; see :func:`fractional_max_pool2d`
    (``_random_samples`` is ``(N, C, 3)``).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(27.0).reshape(1, 1, 3, 3, 3)
    >>> F.fractional_max_pool3d(x, 2, output_size=1).tolist()
    [[[[[26.0]]]]]
    """
    return _fractional_max_pool(input, kernel_size, output_size, output_ratio, return_indices,
                                _random_samples, 3)
