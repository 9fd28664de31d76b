"""Separable "tap" maps: average pooling, adaptive average pooling and interpolation.

Along one spatial dim, each of these ops computes every output position ``o`` as a
weighted sum of a few input positions, its *taps*: ``y[o] = sum_t w[o, t] *
x[idx[o, t]]`` (``idx``/``w``: ``(O, T)``). Over several dims the op is the product of
the per-dim maps, so it is applied one dim at a time:

* nearest interpolation: one tap, no weight (a plain gather: exact, no ``0 * inf``);
* linear interpolation: two taps with weights ``1 - lambda`` and ``lambda``; bicubic
  four;
* average pooling: ``kernel`` taps of weight ``1 / divisor`` (taps falling in the
  padding get weight 0); adaptive pooling: as many taps as its widest window.

The adjoint map (the gradient) sends ``w[o, t] * g[o]`` back to ``idx[o, t]`` with one
``index_add`` per dim. Both directions are written with differentiable ops
(``index_select``, ``index_add``, ``*``, ``+``), so :class:`Taps` has double backward
for free. Its subclasses only carry PyTorch's node names.
"""
from ...autograd.function import Function
from ...ops.creation import zeros
from ...ops.shape import cat

__all__ = ["Taps", "taps_function", "apply_taps"]


def _along(x, d, index, weight, t):
    """Tap ``t`` of every output position along dim ``d``."""
    v = x.index_select(d, index[:, t])
    if weight is None:
        return v
    return v * weight[:, t].reshape((-1,) + (1,) * (x.dim() - 1 - d))


def apply_taps(x, taps):
    """The forward map: ``taps`` holds ``(index, weight)`` (or None: identity) for each
    of the last ``len(taps)`` dims.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.nn._ops._taps import apply_taps
    >>> idx = cygrad.tensor([[0, 1], [1, 2]])
    >>> w = cygrad.tensor([[0.5, 0.5], [0.5, 0.5]])
    >>> apply_taps(cygrad.tensor([[2.0, 4.0, 8.0]]), [(idx, w)]).tolist()
    [[3.0, 6.0]]
    """
    first = x.dim() - len(taps)
    for i, tap in enumerate(taps):
        if tap is None:
            continue
        index, weight = tap
        d = first + i
        y = _along(x, d, index, weight, 0)
        for t in range(1, index.shape[1]):
            y = y + _along(x, d, index, weight, t)
        x = y
    return x


def _adjoint(g, taps, sizes):
    """The adjoint map: each output gradient goes back to its taps, weighted."""
    first = g.dim() - len(taps)
    for i in reversed(range(len(taps))):
        if taps[i] is None:
            continue
        index, weight = taps[i]
        d = first + i
        n_taps = index.shape[1]
        if weight is None:
            parts = [g] * n_taps
        else:
            shape = (-1,) + (1,) * (g.dim() - 1 - d)
            parts = [g * weight[:, t].reshape(shape) for t in range(n_taps)]
        src = parts[0] if n_taps == 1 else cat(parts, d)
        flat_index = index.t().reshape(-1)       # tap-major, matching cat's order
        shape = list(g.shape)
        shape[d] = sizes[i]
        g = zeros(shape, dtype=g.dtype, device=g.device).index_add(d, flat_index, src)
    return g


class Taps(Function):
    """A separable tap map over the last dims; its gradient is the adjoint map and its
    tangent the map itself (it is linear)."""

    @staticmethod
    def forward(ctx, input, taps):
        ctx.taps = taps
        ctx.sizes = tuple(input.shape[input.dim() - len(taps):])
        out = apply_taps(input, taps)
        return out.clone() if out is input else out

    @staticmethod
    def backward(ctx, grad):
        return _TapsAdjoint.apply(grad, ctx.taps, ctx.sizes), None

    @staticmethod
    def jvp(ctx, tangent, _taps):
        return apply_taps(tangent, ctx.taps)


class _TapsAdjoint(Function):
    """The adjoint of :class:`Taps` (the gradient of a gradient is the map again)."""

    @staticmethod
    def forward(ctx, grad, taps, sizes):
        ctx.taps = taps
        return _adjoint(grad, taps, sizes)

    @staticmethod
    def backward(ctx, grad):
        return Taps.apply(grad, ctx.taps), None, None

    @staticmethod
    def jvp(ctx, tangent, _taps, sizes):
        return _adjoint(tangent, ctx.taps, sizes)


_BY_NAME = {}


def taps_function(node_name):
    """The :class:`Taps` subclass whose node is called ``node_name`` (one per name)."""
    cls = _BY_NAME.get(node_name)
    if cls is None:
        cls = type(Taps)(node_name.replace("Backward0", ""), (Taps,), {"_node_name": node_name})
        _BY_NAME[node_name] = cls
    return cls
