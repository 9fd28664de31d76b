"""Sliding-window geometry shared by convolution, unfold/fold and pooling.

A window op over the spatial dims of an ``(N, C, *spatial)`` tensor is described by
``kernel``, ``dilation``, ``stride`` and per-dim ``pads`` (``(before, after)`` pairs,
so the asymmetric padding of ``padding='same'`` with an even kernel fits too).

* :func:`im2col` lays every window out as a column: ``(N, C * prod(kernel), L)``
  where ``L = prod(out)`` is the number of window positions. It is an ``as_strided``
  *view* of the padded input (no copy: the window's offset ``k`` along a dim is a
  step of ``dilation * stride_of_dim`` elements, its position ``o`` a step of
  ``stride * stride_of_dim``) followed by one ``reshape`` that makes it contiguous.
* :func:`col2im` is its adjoint: the columns are added back onto the positions they
  were read from. For each of the ``prod(kernel)`` offsets, one strided slice of the
  output receives one whole ``(N, C, *out)`` slab, so the loop runs over kernel
  offsets only (9 tensor ops for a 3x3 kernel), never over the batch or pixels.

These helpers are plain tensor code (no autograd); the Functions in ``conv.py`` and
``pooling.py`` wrap them with their gradients. They are the fallback: where the
device has ``im2col``/``col2im`` kernels for the dtype (the CPU's, in
``cygrad/_core/cpu/conv.c``: ``im2col`` for every dtype, ``col2im`` for float32 and
float64), the Functions call those instead.
"""
import itertools
import math
import numbers

from ...ops.creation import zeros

__all__ = ["ntuple", "plain", "out_size", "pad_zero", "crop", "im2col", "col2im"]


def ntuple(value, n, name, opname=None):
    """``value`` as a tuple of ``n`` ints: an int is repeated, a 1-sequence broadcast.

    Examples
    --------
    >>> from cygrad.nn._ops._sliding import ntuple
    >>> ntuple(3, 2, "stride"), ntuple([2], 2, "stride"), ntuple((1, 2), 2, "stride")
    ((3, 3), (2, 2), (1, 2))
    """
    if isinstance(value, numbers.Integral) and not isinstance(value, bool):
        return (int(value),) * n
    try:
        values = tuple(value)
    except TypeError:
        raise TypeError(f"{opname or 'op'}(): argument '{name}' must be tuple of ints, "
                        f"not {type(value).__name__}") from None
    if len(values) == 1:
        values = values * n
    if len(values) != n or not all(isinstance(v, numbers.Integral) and not isinstance(v, bool)
                                   for v in values):
        raise RuntimeError(f"expected {name} to be a single integer value or a list of {n} "
                           f"values to match the convolution dimensions, but got "
                           f"{name}={list(values)}")
    return tuple(int(v) for v in values)


def plain(*values):
    """Whether every value is None, an int, a str or a tuple of ints, of exactly those
    types (no bool, no int-like object, no list): values whose ``==`` and hash are
    their value's, so what the window ops compute from them can be kept per value.

    Examples
    --------
    >>> from cygrad.nn._ops._sliding import plain
    >>> plain(1, (2, 2), "same", None), plain(True), plain([1, 1]), plain((1.0, 1))
    (True, False, False, False)
    """
    for v in values:
        t = type(v)
        if t is tuple:
            for e in v:
                if type(e) is not int:
                    return False
        elif t is not int and t is not str and v is not None:
            return False
    return True


def out_size(size, kernel, stride, pad_total, dilation):
    """Number of window positions along one dim (floor mode).

    Examples
    --------
    >>> from cygrad.nn._ops._sliding import out_size
    >>> out_size(32, 3, 1, 2, 1), out_size(7, 3, 2, 0, 2)
    (32, 2)
    """
    return (size + pad_total - dilation * (kernel - 1) - 1) // stride + 1


def pad_zero(x, pads):
    """``x`` (``(N, C, *spatial)``) inside a zero border of ``pads`` (``(before, after)``
    per spatial dim); ``x`` itself when there is no padding.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops._sliding import pad_zero
    >>> pad_zero(cygrad.ones(1, 1, 2), ((1, 0),)).tolist()
    [[[0.0, 1.0, 1.0]]]
    """
    if not any(b or a for b, a in pads):
        return x
    shape = tuple(x.shape[:2]) + tuple(s + b + a for s, (b, a) in zip(x.shape[2:], pads))
    res = zeros(shape, dtype=x.dtype, device=x.device)
    crop(res, pads, x.shape[2:]).copy_(x)
    return res


def crop(x, pads, size):
    """The view of ``x`` without its ``pads`` border (``size``: the inner spatial size).

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops._sliding import crop
    >>> crop(cygrad.arange(5.0).reshape(1, 1, 5), ((1, 2),), (2,)).tolist()
    [[[1.0, 2.0]]]
    """
    if not any(b or a for b, a in pads):
        return x
    return x[(slice(None), slice(None)) + tuple(slice(b, b + s) for (b, _), s in zip(pads, size))]


def _window_view(xp, kernel, dilation, stride, out):
    """``(N, C, *kernel, *out)`` view of the padded input: element ``[n, c, k..., o...]``
    is ``xp[n, c, o * stride + k * dilation]`` (per dim)."""
    # course: begin window-view
    st = xp.stride()
    sizes = tuple(xp.shape[:2]) + tuple(kernel) + tuple(out)
    steps = (st[0], st[1]) + tuple(s * d for s, d in zip(st[2:], dilation)) \
        + tuple(s * t for s, t in zip(st[2:], stride))
    return xp._as_strided_any(sizes, steps, xp.storage_offset())
    # course: end window-view


def im2col(xp, kernel, dilation, stride, out):
    """Columns ``(N, C * prod(kernel), prod(out))`` of the padded input ``xp``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops._sliding import im2col
    >>> im2col(cygrad.arange(4.0).reshape(1, 1, 4), (2,), (1,), (2,), (2,)).tolist()
    [[[0.0, 2.0], [1.0, 3.0]]]
    """
    n, c = xp.shape[:2]
    view = _window_view(xp, kernel, dilation, stride, out)
    return view.reshape(n, c * math.prod(kernel), math.prod(out))


def window_slices(kernel, dilation, stride, out):
    """For each kernel offset (row-major), the spatial slices of the padded input that
    the offset reads at every window position."""
    for offs in itertools.product(*(range(k) for k in kernel)):
        yield offs, tuple(slice(o * d, o * d + s * (n - 1) + 1, s)
                          for o, d, s, n in zip(offs, dilation, stride, out))


def col2im(cols, channels, padded, kernel, dilation, stride, out):
    """The adjoint of :func:`im2col`: a zero ``(N, channels, *padded)`` tensor with every
    column entry added back where ``im2col`` read it.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops._sliding import col2im
    >>> col2im(cygrad.ones(1, 2, 3), 1, (4,), (2,), (1,), (1,), (3,)).tolist()
    [[[1.0, 2.0, 2.0, 1.0]]]
    """
    n = cols.shape[0]
    res = zeros((n, channels) + tuple(padded), dtype=cols.dtype, device=cols.device)
    if res.numel() == 0 or cols.numel() == 0:
        return res
    slabs = cols.reshape((n, channels) + tuple(kernel) + tuple(out))
    lead = (slice(None), slice(None))
    for offs, where in window_slices(kernel, dilation, stride, out):
        res[lead + where].add_(slabs[lead + offs])
    return res
