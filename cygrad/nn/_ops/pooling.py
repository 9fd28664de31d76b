"""Pooling: ``max_pool1d/2d/3d``, ``avg_pool1d/2d/3d``, adaptive average and max
pooling, ``max_unpool1d/2d``.

Max pooling runs the device's ``max_pool_nd`` kernel (C on the CPU) when it has one
for the dtype. The fallback reads the (``-inf``-padded) input through one strided
slice per kernel offset (``_sliding.window_slices``): the maximum is a chain of
``maximum`` over those ``prod(kernel)`` views, and the window-local position of the
maximum (the first one, as PyTorch) comes from comparing each view with it. Either
way the op keeps each maximum's position in the flattened spatial plane; the
gradient adds each output gradient there (``_MaxSpread``: the
``max_pool_nd_backward`` kernel, or a ``scatter_add``), and its adjoint, the gather
``_MaxGather``, gives the jvp and the double backward.

Average pooling and adaptive average pooling are separable weighted sums along each
spatial dim (``_taps.py``). The 1-d ops are the 2-d ones on a height-1 input, as in
PyTorch.
"""
import math

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ...autograd.function import Function
from ...ops.creation import arange, full, tensor, zeros
from ...ops.elementwise import maximum
from . import _sliding as S
from ._taps import taps_function

__all__ = ["max_pool1d", "max_pool2d", "max_pool3d", "avg_pool1d", "avg_pool2d", "avg_pool3d",
           "adaptive_avg_pool1d", "adaptive_avg_pool2d", "adaptive_avg_pool3d",
           "adaptive_max_pool1d", "adaptive_max_pool2d", "max_unpool1d", "max_unpool2d",
           "max_pool1d_with_indices", "max_pool2d_with_indices",
           "adaptive_max_pool1d_with_indices", "adaptive_max_pool2d_with_indices"]

_LEAD = (slice(None), slice(None))


class _Windows:
    """A pooling grid: ``kernel``, ``stride``, ``dilation``, ``pads`` (``(before, after)``)
    over an input of spatial ``size`` with ``out`` windows per dim."""
    __slots__ = ("kernel", "stride", "dilation", "pads", "size", "out")

    def __init__(self, kernel, stride, dilation, pads, size, out):
        self.kernel, self.stride, self.dilation = kernel, stride, dilation
        self.pads, self.size, self.out = pads, size, out

    def slices(self):
        return S.window_slices(self.kernel, self.dilation, self.stride, self.out)

    def padded(self, x, value):
        if not any(b or a for b, a in self.pads):
            return x
        shape = tuple(x.shape[:2]) + tuple(s + b + a for s, (b, a) in zip(self.size, self.pads))
        res = full(shape, value, dtype=x.dtype, device=x.device)
        S.crop(res, self.pads, self.size).copy_(x)
        return res


def _gather_plane(x, idx):
    """``x`` (``(N, C, *size)``) at the flattened-plane positions ``idx`` (``(N, C, *out)``)."""
    n, c = idx.shape[:2]
    return x.reshape(n, c, -1).gather(2, idx.reshape(n, c, -1)).reshape(idx.shape)


def _spread_plane(g, idx, size):
    """The adjoint of :func:`_gather_plane`: a zero ``(N, C, *size)`` tensor with each
    ``g[n, c, o]`` added at plane position ``idx[n, c, o]``."""
    fast = dispatch.lookup("max_pool_nd_backward", g.device, g.dtype)
    if fast is not None:
        return fast(g, idx, size)
    n, c = g.shape[:2]
    flat = zeros((n, c, math.prod(size)), dtype=g.dtype, device=g.device)
    res = flat.scatter_add(2, idx.reshape(n, c, -1), g.reshape(n, c, -1))
    return res.reshape((n, c) + tuple(size))


class _MaxGather(Function):
    """Linear in its input; the adjoint of :class:`_MaxSpread`."""

    @staticmethod
    def forward(ctx, x, idx, size):
        ctx.idx, ctx.size = idx, size
        return _gather_plane(x, idx)

    @staticmethod
    def backward(ctx, grad):
        return _MaxSpread.apply(grad, ctx.idx, ctx.size), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _gather_plane(t, ctx.idx)


class _MaxSpread(Function):
    """Max pooling's gradient map (output gradients to their maxima)."""
    _node_name = "MaxPool2DWithIndicesBackwardBackward0"

    @staticmethod
    def forward(ctx, g, idx, size):
        ctx.idx, ctx.size = idx, size
        return _spread_plane(g, idx, size)

    @staticmethod
    def backward(ctx, grad):
        return _MaxGather.apply(grad, ctx.idx, ctx.size), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _spread_plane(t, ctx.idx, ctx.size)


def _window_max(x, w):
    """``(values, arg)``: each window's maximum and its offset in the window (row-major
    over the kernel; the first maximum, or the last NaN as PyTorch)."""
    low = float("-inf") if x.dtype.is_floating_point else _int_min(x.dtype)
    xp = w.padded(x, low)
    views = [xp[_LEAD + where] for _, where in w.slices()]
    best = views[0]
    for v in views[1:]:
        best = maximum(best, v)
    if best is views[0]:
        best = best.contiguous()
    # Offsets from last to first, so the first offset holding the maximum wins.
    k = len(views)
    arg = full(tuple(best.shape), k - 1, dtype=_int64(), device=x.device)
    for a in range(k - 2, -1, -1):
        hit = views[a] == best
        arg = arg - hit * (arg - a)
    if best.dtype.is_floating_point and bool(best.isnan().any()):
        for a, v in enumerate(views):          # PyTorch keeps the last NaN of a window
            arg = arg.where(~v.isnan(), full((), a, dtype=arg.dtype, device=arg.device))
    return best, arg


def _int64():
    return _dt.int64


def _int_min(dtype):
    bits = {"int8": 8, "int16": 16, "int32": 32, "int64": 64}.get(dtype.name)
    return -(2 ** (bits - 1)) if bits else 0      # unsigned and bool: 0 is the least


class MaxPool(Function):
    """Max pooling over the spatial dims of ``(N, C, *spatial)``; returns the values and
    the positions of the maxima in the flattened spatial plane (not differentiable).

    The device's ``max_pool_nd`` kernel computes both when it has one for the dtype;
    otherwise the window views above do, and the offsets become plane positions."""
    _node_name = "MaxPool2DWithIndicesBackward0"

    @staticmethod
    def forward(ctx, input, w):
        fast = dispatch.lookup("max_pool_nd", input.device, input.dtype)
        if fast is not None:
            values, idx = fast(input, w.kernel, w.dilation, tuple(b for b, _ in w.pads),
                               w.stride, w.out)
        else:
            values, arg = _window_max(input, w)
            idx = _plane_indices(arg, w)
        ctx.idx, ctx.size = idx, w.size
        ctx.mark_non_differentiable(idx)
        # the indices never get a gradient: no zeros made for them (a fill kernel
        # per pooling layer and step on a GPU)
        ctx.set_materialize_grads(False)
        return values, idx

    @staticmethod
    def backward(ctx, grad, _unused):
        if grad is None:            # only the indices were used
            return None, None
        return _MaxSpread.apply(grad, ctx.idx, ctx.size), None

    @staticmethod
    def jvp(ctx, t, _w):
        return _gather_plane(t, ctx.idx), None


class _MaxPool3D(MaxPool):
    _node_name = "MaxPool3DWithIndicesBackward0"


def _plane_indices(arg, w):
    """Window offsets -> PyTorch's indices: positions in the flattened (unpadded) plane."""
    n = len(w.size)
    idx = None
    rem = arg
    plane_stride = [math.prod(w.size[i + 1:]) for i in range(n)]
    for i in range(n):
        inner = math.prod(w.kernel[i + 1:])
        k_i = rem // inner if inner > 1 else rem
        rem = rem - k_i * inner if inner > 1 else rem
        pos = arange(w.out[i], dtype=arg.dtype, device=arg.device) * w.stride[i] - w.pads[i][0]
        pos = pos.reshape((-1,) + (1,) * (n - 1 - i)) + k_i * w.dilation[i]
        term = pos * plane_stride[i]
        idx = term if idx is None else idx + term
    return idx


# ----------------------------------------------------------------------- argument checks

def _check_input(input, n, opname, allow_empty_batch=True):
    if not isinstance(input, TensorBase):
        raise TypeError(f"{opname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    ok = input.dim() in (n + 1, n + 2) and all(s > 0 for s in input.shape[input.dim() - n - 1:])
    if not ok:
        shape = "[" + ", ".join(str(s) for s in input.shape) + "]"
        raise RuntimeError(f"Expected {n + 1}D or {n + 2}D (batch mode) tensor with optional 0 "
                           f"dim batch size for input, but got:{shape}")
    return (input, False) if input.dim() == n + 2 else (input.unsqueeze(0), True)


def _pool_tuple(value, n, name, opname):
    if isinstance(value, int) and not isinstance(value, bool):
        return (value,) * n
    values = tuple(value)
    if len(values) == 1:
        values = values * n
    if len(values) != n:
        raise RuntimeError(f"{opname}: {name} must either be a single int, or a tuple of "
                           f"{['', 'one', 'two', 'three'][n]} ints")
    return values


def _pool_out(size, k, s, p, d, ceil):
    span = size + 2 * p - d * (k - 1) - 1
    o = (-(-span // s) if ceil else span // s) + 1
    if ceil and (o - 1) * s >= size + p:
        o -= 1        # the last window must start inside the input or its left padding
    return o


# A layer pools with the same shapes and arguments every step: the windows depend on
# those alone, so those of plain arguments (_sliding.plain) are kept per input shape
# and arguments; only windows that passed every check are kept.
_WINDOWS = {}
_MAX_WINDOWS = 1024


def _windows(x, n, kernel_size, stride, padding, dilation, ceil_mode, opname):
    key = None
    if type(ceil_mode) is bool and S.plain(kernel_size, stride, padding, dilation):
        key = (n, x.shape, kernel_size, stride, padding, dilation, ceil_mode)
        hit = _WINDOWS.get(key)
        if hit is not None:
            return hit
    w = _check_windows(x, n, kernel_size, stride, padding, dilation, ceil_mode, opname)
    if key is not None:
        if len(_WINDOWS) >= _MAX_WINDOWS:
            _WINDOWS.clear()
        _WINDOWS[key] = w
    return w


def _check_windows(x, n, kernel_size, stride, padding, dilation, ceil_mode, opname):
    kernel = _pool_tuple(kernel_size, n, "kernel_size", opname)
    stride = kernel if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else _pool_tuple(stride, n, "stride", opname)
    padding = _pool_tuple(padding, n, "padding", opname)
    dilation = _pool_tuple(dilation, n, "dilation", opname)
    if any(k <= 0 for k in kernel):
        raise RuntimeError(f"kernel size should be greater than zero, but got "
                           f"{' '.join(f'k{i}: {k}' for i, k in enumerate(kernel))}")
    if any(s == 0 for s in stride):
        raise RuntimeError("stride should not be zero")
    if any(s < 0 for s in stride):
        raise RuntimeError("stride should be greater than zero")
    if any(d <= 0 for d in dilation):
        names = ("dilationH", "dilationW") if n == 2 else tuple(f"dilation{i}" for i in range(n))
        raise RuntimeError("dilation should be greater than zero, but got "
                           + " ".join(f"{a}: {v}" for a, v in zip(names, dilation)))
    for k, p, d in zip(kernel, padding, dilation):
        if p < 0 or p > (d * (k - 1) + 1) // 2:
            raise RuntimeError(f"pad should be at most half of effective kernel size, but got "
                               f"pad={p}, kernel_size={k} and dilation={d}")
    size = tuple(x.shape[2:])
    out = tuple(_pool_out(s, k, t, p, d, ceil_mode)
                for s, k, t, p, d in zip(size, kernel, stride, padding, dilation))
    if any(o <= 0 for o in out):
        c = x.shape[1]
        raise RuntimeError(f"Given input size: ({'x'.join(map(str, (c,) + size))}). Calculated "
                           f"output size: ({'x'.join(map(str, (c,) + out))}). Output size is too "
                           "small")
    # Right padding reaches the end of the last window (ceil_mode may need more than
    # ``padding``, a short last stride less).
    pads = tuple((p, max(0, (o - 1) * t + d * (k - 1) + 1 - s - p))
                 for s, k, t, p, d, o in zip(size, kernel, stride, padding, dilation, out))
    return _Windows(kernel, stride, dilation, pads, size, out)


# ----------------------------------------------------------------------- max pooling

def _max_pool(input, n, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
              opname):
    x, unbatched = _check_input(input, n, opname)
    w = _windows(x, n, kernel_size, stride, padding, dilation, ceil_mode, opname)
    values, idx = (_MaxPool3D if n == 3 else MaxPool).apply(x, w)
    if unbatched:
        values = values.squeeze(0)
    if not return_indices:
        return values
    return values, (idx.squeeze(0) if unbatched else idx)


def max_pool2d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """2-D max pooling over ``(N, C, H, W)`` (or ``(C, H, W)``).

    ``stride`` defaults to ``kernel_size``; ``padding`` (at most half the kernel) pads
    with ``-inf``; ``ceil_mode`` keeps a last partial window. With
    ``return_indices=True`` also returns, for each output, the position of its maximum
    in the flattened ``H * W`` plane (what ``max_unpool2d`` takes).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.max_pool2d(x, 2)[0, 0].tolist()
    [[5.0, 7.0], [13.0, 15.0]]
    >>> F.max_pool2d(x, 2, return_indices=True)[1][0, 0].tolist()
    [[5, 7], [13, 15]]
    """
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     "max_pool2d")


def max_pool2d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool2d`` returning ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.max_pool2d_with_indices(cygrad.arange(4.0).reshape(1, 2, 2), 2)[1].tolist()
    [[[3]]]
    """
    return _max_pool(input, 2, kernel_size, stride, padding, dilation, ceil_mode, True,
                     "max_pool2d")


def max_pool3d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """3-D max pooling over ``(N, C, D, H, W)``; see :func:`max_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.max_pool3d(cygrad.arange(8.0).reshape(1, 1, 2, 2, 2), 2).flatten().tolist()
    [7.0]
    """
    return _max_pool(input, 3, kernel_size, stride, padding, dilation, ceil_mode, return_indices,
                     "max_pool3d")


def _check_1d(input, opname, what="Expected 2D or 3D (batch mode) tensor with optional 0 dim "
                                  "batch size for input, but got:"):
    if not isinstance(input, TensorBase):
        raise TypeError(f"{opname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dim() not in (2, 3) or input.shape[-1] == 0:
        shape = "[" + ", ".join(str(s) for s in input.shape) + "]"
        raise RuntimeError(f"{opname}: {what}{shape}")


def _one(value, name):
    """A 1-d op's argument as the width of a 2-d one."""
    if isinstance(value, int) and not isinstance(value, bool):
        return value
    values = tuple(value)
    if len(values) != 1:
        raise RuntimeError(f"{name} must be a single int, or a tuple of one int")
    return values[0]


def max_pool1d(input, kernel_size, stride=None, padding=0, dilation=1, ceil_mode=False,
               return_indices=False):
    """1-D max pooling over ``(N, C, L)`` (or ``(C, L)``); see :func:`max_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.max_pool1d(cygrad.tensor([[1.0, 3.0, 2.0, 0.0, 5.0]]), 2, ceil_mode=True).tolist()
    [[3.0, 2.0, 5.0]]
    """
    _check_1d(input, "max_pool1d")
    stride = None if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else (1, _one(stride, "stride"))
    res = _max_pool(input.unsqueeze(-2), 2, (1, _one(kernel_size, "kernel_size")), stride,
                    (0, _one(padding, "padding")), (1, _one(dilation, "dilation")), ceil_mode,
                    return_indices, "max_pool1d")
    if return_indices:
        return res[0].squeeze(-2), res[1].squeeze(-2)
    return res.squeeze(-2)


def max_pool1d_with_indices(input, kernel_size, stride=None, padding=0, dilation=1,
                            ceil_mode=False, return_indices=True):
    """``max_pool1d`` returning ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.max_pool1d_with_indices(cygrad.tensor([[1.0, 3.0]]), 2)[1].tolist()
    [[1]]
    """
    return max_pool1d(input, kernel_size, stride, padding, dilation, ceil_mode, True)


# ----------------------------------------------------------------------- average pooling

def _avg_taps(size, k, s, p, out, count_include_pad, divisor):
    """Per-dim taps of average pooling; ``divisor`` (None: per-window counts)."""
    index, weight = [], []
    for o in range(out):
        start = o * s - p
        end = min(start + k, size + p)
        pool = end - start
        lo, hi = max(start, 0), min(end, size)
        div = 1 if divisor is not None else (pool if count_include_pad else max(hi - lo, 1))
        row_i, row_w = [], []
        for t in range(k):
            pos = start + t
            inside = lo <= pos < hi
            row_i.append(min(max(pos, lo), max(hi - 1, 0)))
            row_w.append(1.0 / div if inside else 0.0)
        index.append(row_i)
        weight.append(row_w)
    return index, weight


def _taps_tensors(index, weight, like):
    idx = tensor(index, dtype=_int64(), device=like.device)
    w = None if weight is None else tensor(weight, dtype=like.dtype, device=like.device)
    return idx, w


class AvgPoolColumns(Function):
    """Average pooling on the C im2col kernel: each window's sum (positions outside
    the input read as 0) times its ``1/divisor``, which is separable per dim.

    Linear in its input: backward spreads ``grad * scale`` over each window with the
    C col2im kernel (:class:`~cygrad.nn._ops.conv.Col2Im`), jvp applies the same map
    to the tangent."""
    _node_name = "AvgPool2DBackward0"

    @staticmethod
    def forward(ctx, x, geom, scale):
        from .conv import Im2Col
        kernel, pads, stride, out = geom
        ctx.geom, ctx.scale, ctx.size = geom, scale, (x.shape[1], tuple(x.shape[2:]))
        cols = Im2Col.apply(x, kernel, (1,) * len(kernel), pads, stride, out)
        sums = cols.reshape(x.shape[0], x.shape[1], math.prod(kernel), -1).sum(2)
        return (sums * scale).reshape(tuple(x.shape[:2]) + out)

    @staticmethod
    def backward(ctx, grad):
        from .conv import Col2Im
        kernel, pads, stride, out = ctx.geom
        channels, size = ctx.size
        k = math.prod(kernel)
        g = (grad.reshape(grad.shape[0], channels, 1, -1) * ctx.scale)
        g = g.expand(grad.shape[0], channels, k, g.shape[-1]).reshape(grad.shape[0], channels * k, -1)
        return (Col2Im.apply(g, channels, size, kernel, (1,) * len(kernel), pads, stride, out,
                             True), None, None)

    @staticmethod
    def jvp(ctx, tangent, *_):
        return AvgPoolColumns.apply(tangent, ctx.geom, ctx.scale)


class AvgPool3DColumns(AvgPoolColumns):
    """3-d average pooling (PyTorch's node name differs)."""
    _node_name = "AvgPool3DBackward0"


def _avg_pool_columns(x, w, per_dim):
    scale = None
    for _, weight in per_dim:          # the window's 1/divisor is its non-zero tap weight
        axis = tensor([max(row) for row in weight], dtype=x.dtype, device=x.device)
        scale = axis if scale is None else (scale.unsqueeze(-1) * axis).reshape(-1)
    geom = (tuple(w.kernel), tuple(w.pads), tuple(w.stride), tuple(w.out))
    cls = AvgPool3DColumns if len(w.out) == 3 else AvgPoolColumns
    return cls.apply(x, geom, scale)


def _avg_pool(input, n, kernel_size, stride, padding, ceil_mode, count_include_pad,
              divisor_override, opname):
    x, unbatched = _check_input(input, n, opname)
    w = _windows(x, n, kernel_size, stride, padding, 1, ceil_mode, opname)
    if divisor_override is not None and divisor_override == 0:
        raise RuntimeError("divisor must be not zero")
    per_dim = [_avg_taps(w.size[i], w.kernel[i], w.stride[i], w.pads[i][0], w.out[i],
                         count_include_pad, divisor_override) for i in range(n)]
    if dispatch.lookup("im2col", x.device, x.dtype) is not None and x.numel() and all(w.out):
        out = _avg_pool_columns(x, w, per_dim)
    else:
        taps = [_taps_tensors(index, weight, x) for index, weight in per_dim]
        out = taps_function(f"AvgPool{n}DBackward0").apply(x, taps)
    if divisor_override is not None:
        out = out / divisor_override
    return out.squeeze(0) if unbatched else out


def avg_pool2d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """2-D average pooling over ``(N, C, H, W)`` (or ``(C, H, W)``).

    The divisor is the window size including zero padding (``count_include_pad``),
    or only the input elements it covers, or ``divisor_override``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.avg_pool2d(x, 2)[0, 0].tolist()
    [[2.5, 4.5], [10.5, 12.5]]
    >>> F.avg_pool2d(cygrad.ones(1, 1, 2, 2), 2, padding=1, count_include_pad=False)[0, 0].tolist()
    [[1.0, 1.0], [1.0, 1.0]]
    """
    return _avg_pool(input, 2, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool2d")


def avg_pool3d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True, divisor_override=None):
    """3-D average pooling over ``(N, C, D, H, W)``; see :func:`avg_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.avg_pool3d(cygrad.arange(8.0).reshape(1, 1, 2, 2, 2), 2).flatten().tolist()
    [3.5]
    """
    return _avg_pool(input, 3, kernel_size, stride, padding, ceil_mode, count_include_pad,
                     divisor_override, "avg_pool3d")


def avg_pool1d(input, kernel_size, stride=None, padding=0, ceil_mode=False,
               count_include_pad=True):
    """1-D average pooling over ``(N, C, L)`` (or ``(C, L)``); see :func:`avg_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.avg_pool1d(cygrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2).tolist()
    [[2.0, 1.0]]
    """
    if not isinstance(input, TensorBase):
        raise TypeError(f"avg_pool1d(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2 to 3 dimensions, but got {input.dim()}-dimensional "
                           "tensor for argument #1 'self' (while checking arguments for "
                           "avg_pool1d)")
    stride = None if stride is None or (not isinstance(stride, int) and len(stride) == 0) \
        else (1, _one(stride, "stride"))
    return _avg_pool(input.unsqueeze(-2), 2, (1, _one(kernel_size, "kernel_size")), stride,
                     (0, _one(padding, "padding")), ceil_mode, count_include_pad, None,
                     "avg_pool1d").squeeze(-2)


# ----------------------------------------------------------------------- adaptive pooling

def _adaptive_bounds(size, out):
    """PyTorch's adaptive windows: ``[floor(o*size/out), ceil((o+1)*size/out))``."""
    return [((o * size) // out, -(-((o + 1) * size) // out)) for o in range(out)]


def _adaptive_size(output_size, x, n, opname):
    if isinstance(output_size, int) and not isinstance(output_size, bool):
        sizes = (output_size,) * n
    else:
        sizes = tuple(output_size)
        if len(sizes) != n:
            raise RuntimeError(f"{opname}: output_size must be {n}")
    # None keeps the input's size along that dim.
    sizes = tuple(x.shape[x.dim() - n + i] if s is None else int(s) for i, s in enumerate(sizes))
    if any(s < 0 for s in sizes):
        raise RuntimeError(f"{opname}: elements of output_size must be greater than or equal to 0 "
                           f"but received {list(sizes)}")
    return sizes


def _check_adaptive_input(input, n, opname, colon=""):
    if not isinstance(input, TensorBase):
        raise TypeError(f"{opname}(): argument 'input' (position 1) must be Tensor, not "
                        f"{type(input).__name__}")
    if input.dim() not in (n + 1, n + 2):
        shape = "[" + ", ".join(str(s) for s in input.shape) + "]"
        raise RuntimeError(f"{opname}(): Expected {n + 1}D or {n + 2}D tensor, but "
                           f"got{colon} {shape}")
    for d in range(1, input.dim()):
        if input.shape[d] == 0:
            raise RuntimeError(f"{opname}(): Expected input to have non-zero size for non-batch "
                               f"dimensions, but input has sizes {list(input.shape)} with "
                               f"dimension {d} being empty")


def _adaptive_avg(input, output_size, n, opname):
    _check_adaptive_input(input, n, opname)
    sizes = _adaptive_size(output_size, input, n, opname)
    spatial = tuple(input.shape[input.dim() - n:])
    if all(s == 1 for s in sizes):
        # A global average: a mean (PyTorch does the same).
        return input.mean(tuple(range(input.dim() - n, input.dim())), keepdim=True)
    taps = []
    for size, out in zip(spatial, sizes):
        if size == out:
            taps.append(None)
            continue
        bounds = _adaptive_bounds(size, out)
        width = max((e - s for s, e in bounds), default=1)
        index = [[min(s + t, e - 1) for t in range(width)] for s, e in bounds]
        weight = [[1.0 / (e - s) if s + t < e else 0.0 for t in range(width)] for s, e in bounds]
        taps.append(_taps_tensors(index, weight, input))
    return taps_function(f"AdaptiveAvgPool{n}DBackward0").apply(input, taps)


def adaptive_avg_pool2d(input, output_size):
    """Average pooling to a fixed output size ``(oH, oW)`` (``None`` keeps that dim).

    Output cell ``i`` averages input rows ``floor(i*H/oH)`` to ``ceil((i+1)*H/oH) - 1``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.adaptive_avg_pool2d(x, 2)[0, 0].tolist()
    [[2.5, 4.5], [10.5, 12.5]]
    >>> F.adaptive_avg_pool2d(x, 1).flatten().tolist()
    [7.5]
    """
    return _adaptive_avg(input, output_size, 2, "adaptive_avg_pool2d")


def adaptive_avg_pool1d(input, output_size):
    """Average pooling of ``(N, C, L)`` to length ``output_size``; see
    :func:`adaptive_avg_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.adaptive_avg_pool1d(cygrad.tensor([[1.0, 2.0, 3.0, 4.0, 5.0]]), 2).tolist()
    [[2.0, 4.0]]
    """
    if not isinstance(input, TensorBase) or input.dim() not in (2, 3):
        _check_adaptive_input(input, 1, "adaptive_avg_pool1d")
    size = _one(output_size, "output_size")
    return _adaptive_avg(input.unsqueeze(-2), (1, size), 2, "adaptive_avg_pool1d").squeeze(-2)


def adaptive_avg_pool3d(input, output_size):
    """Average pooling of ``(N, C, D, H, W)`` to a fixed size; see :func:`adaptive_avg_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.adaptive_avg_pool3d(cygrad.ones(1, 2, 3, 4, 5), (1, 2, 2)).shape
    cygrad.Size([1, 2, 1, 2, 2])
    """
    return _adaptive_avg(input, output_size, 3, "adaptive_avg_pool3d")


class AdaptiveMaxPool(Function):
    """Max over irregular windows: the input is gathered into ``(..., window)`` rows
    (short windows repeat their last element, which cannot change the maximum), and
    the indices (into the flattened plane) carry the gradient back by ``scatter_add``."""
    _node_name = "AdaptiveMaxPool2DBackward0"

    @staticmethod
    def forward(ctx, input, table, out):
        n, c = input.shape[:2]
        plane = input.reshape(n, c, -1)
        rows = plane.index_select(2, table.reshape(-1)).reshape((n, c) + out + (table.shape[-1],))
        values, arg = rows.max(-1)
        idx = table.expand((n, c) + tuple(table.shape)).gather(-1, arg.unsqueeze(-1)).squeeze(-1)
        ctx.idx, ctx.shape = idx, tuple(input.shape)
        ctx.mark_non_differentiable(idx)
        return values, idx

    @staticmethod
    def backward(ctx, grad, _unused):
        n, c = ctx.shape[:2]
        flat = zeros((n, c, math.prod(ctx.shape[2:])), dtype=grad.dtype, device=grad.device)
        res = flat.scatter_add(2, ctx.idx.reshape(n, c, -1), grad.reshape(n, c, -1))
        return res.reshape(ctx.shape), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        n, c = ctx.shape[:2]
        picked = t.reshape(n, c, -1).gather(2, ctx.idx.reshape(n, c, -1))
        return picked.reshape(ctx.idx.shape), None


def _adaptive_max(input, output_size, n, return_indices, opname):
    _check_adaptive_input(input, n, opname, ":")
    sizes = _adaptive_size(output_size, input, n, opname)
    x, unbatched = (input, False) if input.dim() == n + 2 else (input.unsqueeze(0), True)
    spatial = tuple(x.shape[2:])
    per_dim = []
    for size, out in zip(spatial, sizes):
        bounds = _adaptive_bounds(size, out)
        width = max((e - s for s, e in bounds), default=1)
        per_dim.append([[min(s + t, e - 1) for t in range(width)] for s, e in bounds])
    # table[o..., t]: the flattened-plane position of tap t (row-major over the
    # per-dim taps) of output cell o.
    table = None
    for i, rows in enumerate(per_dim):
        stride = math.prod(spatial[i + 1:])
        t = tensor(rows, dtype=_int64(), device=x.device) * stride    # (out_i, w_i)
        if table is None:
            table = t
            continue
        k = table.dim() // 2
        # table is (o_0..o_{k-1}, w_0..w_{k-1}); combine with (o_k, w_k).
        a = table.reshape(tuple(table.shape[:k]) + (1,) + tuple(table.shape[k:]) + (1,))
        b = t.reshape((1,) * k + (t.shape[0],) + (1,) * k + (t.shape[1],))
        table = a + b
    k = table.dim() // 2
    table = table.reshape(tuple(table.shape[:k]) + (-1,)).contiguous()
    if any(s == 0 for s in sizes):
        values = zeros(tuple(x.shape[:2]) + sizes, dtype=x.dtype, device=x.device)
        idx = zeros(tuple(x.shape[:2]) + sizes, dtype=_int64(), device=x.device)
    else:
        values, idx = AdaptiveMaxPool.apply(x, table, sizes)
    if unbatched:
        values, idx = values.squeeze(0), idx.squeeze(0)
    return (values, idx) if return_indices else values


def adaptive_max_pool2d(input, output_size, return_indices=False):
    """Max pooling to a fixed output size ``(oH, oW)``; windows as in
    :func:`adaptive_avg_pool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> F.adaptive_max_pool2d(x, 2)[0, 0].tolist()
    [[5.0, 7.0], [13.0, 15.0]]
    >>> F.adaptive_max_pool2d(x, 1, return_indices=True)[1].flatten().tolist()
    [15]
    """
    return _adaptive_max(input, output_size, 2, return_indices, "adaptive_max_pool2d")


def adaptive_max_pool2d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool2d`` returning ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.adaptive_max_pool2d_with_indices(cygrad.ones(1, 2, 2), 1)[1].tolist()
    [[[0]]]
    """
    return _adaptive_max(input, output_size, 2, True, "adaptive_max_pool2d")


def adaptive_max_pool1d(input, output_size, return_indices=False):
    """Max pooling of ``(N, C, L)`` to length ``output_size``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.adaptive_max_pool1d(cygrad.tensor([[1.0, 5.0, 2.0, 4.0, 3.0]]), 2).tolist()
    [[5.0, 4.0]]
    """
    if not isinstance(input, TensorBase) or input.dim() not in (2, 3):
        _check_adaptive_input(input, 1, "adaptive_max_pool1d", ":")
    size = _one(output_size, "output_size")
    res = _adaptive_max(input.unsqueeze(-2), (1, size), 2, return_indices, "adaptive_max_pool1d")
    if return_indices:
        return res[0].squeeze(-2), res[1].squeeze(-2)
    return res.squeeze(-2)


def adaptive_max_pool1d_with_indices(input, output_size, return_indices=True):
    """``adaptive_max_pool1d`` returning ``(values, indices)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.adaptive_max_pool1d_with_indices(cygrad.tensor([[1.0, 5.0]]), 1)[1].tolist()
    [[1]]
    """
    return adaptive_max_pool1d(input, output_size, True)


# ----------------------------------------------------------------------- unpooling

def _max_unpool(input, indices, n, kernel_size, stride, padding, output_size, opname):
    kernel = _pool_tuple(kernel_size, n, "kernel_size", opname)
    stride = kernel if stride is None else _pool_tuple(stride, n, "stride", opname)
    padding = _pool_tuple(padding, n, "padding", opname)
    if indices.shape != input.shape:
        raise RuntimeError(f"Expected shape of indices to be same as that of the input tensor "
                           f"({list(input.shape)}) but got indices tensor with shape: "
                           f"{list(indices.shape)}")
    spatial = tuple(input.shape[input.dim() - n:])
    default = tuple((s - 1) * t - 2 * p + k for s, t, p, k in zip(spatial, stride, padding, kernel))
    if output_size is None:
        out = default
    else:
        out = tuple(output_size)[-n:]
        for o, d, t in zip(out, default, stride):
            if not d - t < o < d + t:
                raise ValueError(f"invalid output_size \"{list(out)}\" (dim {out.index(o)} must be "
                                 f"between {d - t} and {d + t})")
    lead = tuple(input.shape[:input.dim() - n])
    bad = (indices < 0) | (indices >= math.prod(out))
    if bool(bad.any()):
        raise RuntimeError(f"Found an invalid max index: {indices[bad].flatten()[0].item()} "
                           f"(output volumes are of size {'x'.join(map(str, out))})")
    flat = zeros(lead + (math.prod(out),), dtype=input.dtype, device=input.device)
    res = flat.scatter(-1, indices.reshape(lead + (-1,)), input.reshape(lead + (-1,)))
    return res.reshape(lead + out)


def max_unpool2d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool2d``: each value goes back to the position
    ``indices`` recorded; everything else is zero.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(16.0).reshape(1, 1, 4, 4)
    >>> v, i = F.max_pool2d(x, 2, return_indices=True)
    >>> F.max_unpool2d(v, i, 2)[0, 0].tolist()[1]
    [0.0, 5.0, 0.0, 7.0]
    """
    return _max_unpool(input, indices, 2, kernel_size, stride, padding, output_size,
                       "max_unpool2d")


def max_unpool1d(input, indices, kernel_size, stride=None, padding=0, output_size=None):
    """The partial inverse of ``max_pool1d``; see :func:`max_unpool2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> v, i = F.max_pool1d(cygrad.tensor([[1.0, 3.0, 2.0, 0.0]]), 2, return_indices=True)
    >>> F.max_unpool1d(v, i, 2).tolist()
    [[0.0, 3.0, 2.0, 0.0]]
    """
    return _max_unpool(input, indices, 1, kernel_size, stride, padding, output_size,
                       "max_unpool1d")
