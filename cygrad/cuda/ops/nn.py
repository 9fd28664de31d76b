"""The 'cuda' kernels of the nn primitives: softmax and log_softmax, the attention
softmax, layer norm, GELU and cross entropy (``cuda_src/nn.cu``), and the
sliding-window primitives of convolution and pooling (``cuda_src/conv.cu``).

Each function has the signature and return convention of the 'cpu' kernel of
the same primitive (``cygrad/_core/backend_cpu/fused.py``, ``conv.py`` and
``reduction.py``'s ``softmax``), so the ops reach them through the kernel table
without knowing the device. They compute float32 and float64 (``im2col``, which
only moves elements, every dtype; ``softmax`` also float16 and bfloat16, stored
as such and computed in float32); another dtype raises ``NotImplementedError``
naming the primitive, the dtype and the device.

Row kernels run one block per row with a block sized to the row (32 to 256
threads); a bad class index or pooling index is reported by the kernel through
a one-element flag that is read back, as PyTorch's device-side checks are:
pooling's at once, cross entropy's without making the host wait
(``kernels.check_later``: at the next copy to the host or ``synchronize``
where the device may still be working).

Examples
--------
>>> from cygrad.cuda.ops import nn
>>> "layer_norm" in nn.PRIMITIVES and "im2col" in nn.PRIMITIVES
True
"""
import math
import struct
import weakref

from ..._core import dispatch
from ..._core import dtype as _dt
from ..._core import tensor as _C
from ..._core.backend_cpu.fused import _tile_mask
from .. import kernels as _k
from ..tensors import _same_device

#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = ("softmax", "softmax_backward", "attention_softmax", "layer_norm",
              "layer_norm_backward", "gelu", "gelu_backward", "cross_entropy",
              "cross_entropy_backward", "im2col", "col2im", "max_pool_nd", "max_pool_nd_backward",
              "sum_ratio")

_FLOATS = ("float32", "float64")
# im2col moves elements by width
_WIDTHS = {1: "u8", 2: "u16", 4: "u32", 8: "u64", 16: "u128"}
# softmax's storage-only dtypes (computed in float32)
_HALVES = {"float16": "f16", "bfloat16": "bf16"}
_MAX_SP = 14                                # conv.cu's CG_MAX_SP
_WINDOW = struct.Struct("<i4x" + "q" * (2 + 6 * _MAX_SP + _MAX_SP + 2))
_ROW_THREADS = 256


def _sfx(primitive, dt):
    sfx = _k.suffix(dt.name)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive '{primitive}' for dtype {dt} "
                                  "(the CUDA kernels cover float32 and float64)")
    return sfx


def _ptr(t):
    return 0 if t is None else t.data_ptr()


def _row_block(n):
    """Threads of a row kernel's block: the row length rounded up to a warp, 32 to 256."""
    return (max(32, min(_ROW_THREADS, -(-n // 32) * 32)), 1, 1)


def _row_grid(rows):
    return (max(1, min(rows, _k.MAX_BLOCKS)), 1, 1)


def _launch(t, file, name, grid, block, args):
    _k.launch(t.device.index, file, name, grid, block, args)


def _same(x, other, what):
    """``other`` (None, or a tensor of ``x``'s device and dtype) made contiguous."""
    if other is None:
        return None
    _same_device(x, other)
    if other.dtype is not x.dtype:
        raise RuntimeError(f"{what}: expected a {x.dtype} tensor, got {other.dtype}")
    return other.contiguous()


def _zeros(shape, dt, device):
    # (the driver's memset: no fill kernel to launch)
    return _k.zero_fill(_C._empty(tuple(shape), dt, device))


# ----------------------------------------------------------------------- softmax

# From this many rows between a row's elements (the softmax dim not the last), one
# thread per row reads coalesced (neighbouring threads, neighbouring elements)
# where a block per row would not.
_COLS_FROM = 32


def _layout(inner):
    return "_cols" if inner >= _COLS_FROM else ""


def _softmax_geometry(rows, n, inner):
    """(grid, block) of the row kernel, or of the one-thread-per-row kernel."""
    if inner >= _COLS_FROM:
        return _k.grid_1d(rows), (_k.BLOCK, 1, 1)
    return _row_grid(rows), _row_block(n)

def softmax(x, d, dt, log):
    """softmax (log_softmax when ``log``) of ``x`` along dim ``d`` in dtype ``dt``.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import softmax
    >>> callable(softmax)
    True
    """
    if x.dtype is not dt:
        x = x.to(dt)
    sfx = _HALVES.get(dt.name) or _sfx("softmax", dt)
    x = x.contiguous()
    shape = tuple(x.shape)
    y = _C._empty(shape, dt, x.device)
    n = shape[d] if shape else 1
    inner = math.prod(shape[d + 1:]) if shape else 1
    rows = x.numel() // n if n else 0
    if rows:
        _launch(x, "nn.cu", f"cg_softmax_fwd{_layout(inner)}_{sfx}",
                *_softmax_geometry(rows, n, inner),
                (rows, n, inner, x.data_ptr(), y.data_ptr(), int(bool(log))))
    return y


def softmax_backward(y, g, d, log, scale=1.0):
    """Input gradient of softmax (``log``: log_softmax) along ``d`` from the output
    ``y`` and its gradient ``g``, times ``scale``.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import softmax_backward
    >>> callable(softmax_backward)
    True
    """
    sfx = _sfx("softmax_backward", y.dtype)
    y = y.contiguous()
    g = _same(y, g, "softmax_backward")
    if g.numel() != y.numel():
        raise RuntimeError("softmax_backward: grad and output differ in size")
    shape = tuple(y.shape)
    dx = _C._empty(shape, y.dtype, y.device)
    n = shape[d] if shape else 1
    inner = math.prod(shape[d + 1:]) if shape else 1
    rows = y.numel() // n if n else 0
    if rows:
        _launch(y, "nn.cu", f"cg_softmax_bwd{_layout(inner)}_{sfx}",
                *_softmax_geometry(rows, n, inner),
                (rows, n, inner, y.data_ptr(), g.data_ptr(), dx.data_ptr(), int(bool(log)),
                 float(scale)))
    return dx


def attention_softmax(scores, scale, causal, mask):
    """``softmax(scores * scale + mask)`` over the last dim, keys after the query
    dropped when ``causal``; rows with no key left give zeros.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import attention_softmax
    >>> callable(attention_softmax)
    True
    """
    sfx = _sfx("attention_softmax", scores.dtype)
    if scores.dim() < 2:
        raise RuntimeError("attention_softmax: scores must be at least 2-D")
    scores = scores.contiguous()
    shape = tuple(scores.shape)
    L, S = shape[-2], shape[-1]
    rows = scores.numel() // S if S else 0
    mrows = 1
    if mask is not None:
        mask = _tile_mask(_same(scores, mask, "attention_softmax"), shape)
        mrows = mask.shape[0]
    p = _C._empty(shape, scores.dtype, scores.device)
    if rows:
        _launch(scores, "nn.cu", f"cg_attn_softmax_{sfx}", _row_grid(rows), _row_block(S),
                (rows, L, S, scores.data_ptr(), p.data_ptr(), float(scale), int(bool(causal)),
                 _ptr(mask), mrows))
    return p


# ----------------------------------------------------------------------- layer norm

def layer_norm(x, n, weight, bias, eps):
    """``(y, mean, rstd)``: layer norm over the trailing ``n`` elements of each row,
    ``mean``/``rstd`` one per row (shape (rows,)).

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import layer_norm
    >>> callable(layer_norm)
    True
    """
    sfx = _sfx("layer_norm", x.dtype)
    x = x.contiguous()
    weight, bias = _same(x, weight, "layer_norm"), _same(x, bias, "layer_norm")
    rows = x.numel() // n if n else 0
    y = _C._empty(tuple(x.shape), x.dtype, x.device)
    mean = _C._empty((rows,), x.dtype, x.device)
    rstd = _C._empty((rows,), x.dtype, x.device)
    if rows:
        _launch(x, "nn.cu", f"cg_layer_norm_fwd_{sfx}", _row_grid(rows), _row_block(n),
                (rows, n, x.data_ptr(), _ptr(weight), _ptr(bias), float(eps), y.data_ptr(),
                 mean.data_ptr(), rstd.data_ptr()))
    return y, mean, rstd


def layer_norm_backward(g, x, mean, rstd, weight, need_dx, need_dw, need_db):
    """``(dx, dweight, dbias)`` (None where not asked) of layer norm.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import layer_norm_backward
    >>> callable(layer_norm_backward)
    True
    """
    sfx = _sfx("layer_norm_backward", x.dtype)
    x = x.contiguous()
    g, mean, rstd = (_same(x, t, "layer_norm_backward") for t in (g, mean, rstd))
    weight = _same(x, weight, "layer_norm_backward")
    rows = mean.numel()
    n = x.numel() // rows if rows else 0
    if g.numel() != x.numel() or rstd.numel() != rows:
        raise RuntimeError("layer_norm_backward: operands differ in size")
    dx = _C._empty(tuple(x.shape), x.dtype, x.device) if need_dx else None
    dw = _C._empty((n,), x.dtype, x.device) if need_dw else None
    db = _C._empty((n,), x.dtype, x.device) if need_db else None
    if dx is not None and rows:
        _launch(x, "nn.cu", f"cg_layer_norm_bwd_dx_{sfx}", _row_grid(rows), _row_block(n),
                (rows, n, g.data_ptr(), x.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                 _ptr(weight), dx.data_ptr()))
    if (dw is not None or db is not None) and n:
        grid = (max(1, min(-(-n // 32), _k.MAX_BLOCKS)), 1, 1)
        _launch(x, "nn.cu", f"cg_layer_norm_bwd_wb_{sfx}", grid, (32, 8, 1),
                (rows, n, g.data_ptr(), x.data_ptr(), mean.data_ptr(), rstd.data_ptr(),
                 _ptr(dw), _ptr(db)))
    return dx, dw, db


# ----------------------------------------------------------------------- GELU

def gelu(x, tanh_approx):
    """GELU, exact or (``tanh_approx``) the tanh approximation.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import gelu
    >>> callable(gelu)
    True
    """
    sfx = _sfx("gelu", x.dtype)
    x = x.contiguous()
    y = _C._empty(tuple(x.shape), x.dtype, x.device)
    n = x.numel()
    if n:
        _launch(x, "nn.cu", f"cg_gelu_fwd_{sfx}", _k.grid_1d(n), (_k.BLOCK, 1, 1),
                (n, x.data_ptr(), y.data_ptr(), int(bool(tanh_approx))))
    return y


def gelu_backward(g, x, tanh_approx):
    """``g * gelu'(x)``.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import gelu_backward
    >>> callable(gelu_backward)
    True
    """
    sfx = _sfx("gelu_backward", x.dtype)
    x = x.contiguous()
    g = _same(x, g, "gelu_backward")
    if g.numel() != x.numel():
        raise RuntimeError("gelu_backward: grad and input differ in size")
    dx = _C._empty(tuple(x.shape), x.dtype, x.device)
    n = x.numel()
    if n:
        _launch(x, "nn.cu", f"cg_gelu_bwd_{sfx}", _k.grid_1d(n), (_k.BLOCK, 1, 1),
                (n, g.data_ptr(), x.data_ptr(), dx.data_ptr(), int(bool(tanh_approx))))
    return dx


# ----------------------------------------------------------------------- indices known good

# Index tensors whose values a kernel here made or checked, with what they are good
# for and the version they had: a later kernel reading the same tensor at the same
# version skips its range check, so it neither fills an error flag nor waits for the
# device to read it back (max pooling's backward on the forward's indices, cross
# entropy's backward on the target its forward checked). Keyed by id(), held by weak
# reference: a tensor's equality is elementwise, so it cannot be a dictionary key.
_known_good = {}


def _vouch(t, what):
    """Remember that ``t``'s values, at its current version, are good for ``what``."""
    key = id(t)

    def forget(ref, key=key):
        if _known_good.get(key, (None,))[0] is ref:
            _known_good.pop(key, None)
    _known_good[key] = (weakref.ref(t, forget), t._version, what)


def _unvouch(t):
    """Forget what was vouched for ``t`` (its check found bad values)."""
    entry = _known_good.get(id(t))
    if entry is not None and entry[0]() is t:
        _known_good.pop(id(t), None)


def _vouched(t, what):
    """Are ``t``'s values known good for ``what`` (and unwritten since)?"""
    entry = _known_good.get(id(t))
    return (entry is not None and entry[0]() is t and entry[1] == t._version
            and entry[2] == what)


# ----------------------------------------------------------------------- cross entropy

def _xent_operands(x, target, weight, what):
    if x.dim() != 2 or target.numel() != x.shape[0]:
        raise RuntimeError(f"{what}: expected (R, C) logits and R targets")
    _same_device(x, target)
    if target.dtype is not _dt.int64:
        raise RuntimeError(f"{what}: expected int64 targets, got {target.dtype}")
    return x.contiguous(), target.contiguous(), _same(x, weight, what)


def _check_targets(bad, target, given=None):
    """Have the kernel's report read back without waiting (``kernels.check_later``):
    0, or R - r for the first row r whose target is out of range, which raises
    IndexError (and unvouches ``given``) where it is read."""
    def report(code):
        if code:
            if given is not None:
                _unvouch(given)
            row = target.shape[0] - code
            raise IndexError(f"Target {int(target[row].item())} is out of bounds.")
    _k.check_later(bad, report)


def cross_entropy(x, target, weight, ignore_index, eps):
    """Per-row cross entropy of (R, C) logits and R class indices: ``(loss, lse,
    wt)``. An index out of range raises IndexError, read back without waiting
    for the device: at once on a device whose kernels have run when the launch
    returns (the emulated GPU), else at the next copy to the host or
    ``synchronize`` (``kernels.check_later``).

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import cross_entropy
    >>> callable(cross_entropy)
    True
    """
    sfx = _sfx("cross_entropy", x.dtype)
    given = target
    x, target, weight = _xent_operands(x, target, weight, "cross_entropy")
    R, C = x.shape
    loss, lse, wt = (_C._empty((R,), x.dtype, x.device) for _ in range(3))
    if R:
        what = ("classes", C, int(ignore_index))
        checked = not _vouched(given, what)
        bad = _zeros((1,), _dt.int64, x.device) if checked else None
        _launch(x, "nn.cu", f"cg_xent_fwd_{sfx}", _row_grid(R), _row_block(C),
                (R, C, x.data_ptr(), target.data_ptr(), _ptr(weight), int(ignore_index),
                 float(eps), loss.data_ptr(), lse.data_ptr(), wt.data_ptr(), _ptr(bad)))
        if checked:
            # vouched now, so the backward on this target launches unchecked; a bad
            # target unvouches it where its flag is read
            _vouch(given, what)
            _check_targets(bad, target, given)
    return loss, lse, wt


def cross_entropy_backward(x, lse, target, weight, ignore_index, eps, scale):
    """Gradient of the per-row losses with respect to the (R, C) logits, each row
    times ``scale`` (one element, or one per row).

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import cross_entropy_backward
    >>> callable(cross_entropy_backward)
    True
    """
    sfx = _sfx("cross_entropy_backward", x.dtype)
    given = target
    x, target, weight = _xent_operands(x, target, weight, "cross_entropy_backward")
    lse, scale = _same(x, lse, "cross_entropy_backward"), _same(x, scale, "cross_entropy_backward")
    R, C = x.shape
    if scale.numel() not in (1, R):
        raise RuntimeError("cross_entropy_backward: scale must have 1 or R elements")
    dx = _C._empty((R, C), x.dtype, x.device)
    if R:
        # (the forward's target, unwritten since: checked there, not again)
        checked = not _vouched(given, ("classes", C, int(ignore_index)))
        bad = _zeros((1,), _dt.int64, x.device) if checked else None
        _launch(x, "nn.cu", f"cg_xent_bwd_{sfx}", _row_grid(R), _row_block(C),
                (R, C, x.data_ptr(), lse.data_ptr(), target.data_ptr(), _ptr(weight),
                 int(ignore_index), float(eps), scale.data_ptr(), 0 if scale.numel() == 1 else 1,
                 dx.data_ptr(), _ptr(bad)))
        if checked:
            _check_targets(bad, target)
    return dx


def sum_ratio(a, w):
    """``(sum(a) / sum(w), sum(w))`` as 0-d tensors of two 1-D tensors of one
    dtype: cross entropy's mean over the counted weight, one launch (it was two
    sums and a division).

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import sum_ratio
    >>> callable(sum_ratio)
    True
    """
    sfx = _sfx("sum_ratio", a.dtype)
    w = _same(a, w, "sum_ratio")
    a = a.contiguous()
    if a.dim() != 1 or tuple(w.shape) != tuple(a.shape):
        raise RuntimeError(f"sum_ratio: expected two 1-D tensors of one length, got "
                           f"{list(a.shape)} and {list(w.shape)}")
    ratio, denom = _C._empty((), a.dtype, a.device), _C._empty((), a.dtype, a.device)
    _launch(a, "nn.cu", f"cg_sum_ratio_{sfx}", (1, 1, 1), _row_block(a.shape[0]),
            (a.shape[0], a.data_ptr(), w.data_ptr(), ratio.data_ptr(), denom.data_ptr()))
    return ratio, denom


# ----------------------------------------------------------------------- windows

def _ints(values, n, name, what, low):
    vals = tuple(int(v) for v in values)
    if len(vals) != n or any(v < low for v in vals):
        raise RuntimeError(f"{what}: {name} must be {n} values of at least {low}, got {list(vals)}")
    return vals


_windows = {}           # the arguments of _window -> its bytes (a layer's every step)
_MAX_WINDOWS = 1024


def _window(n, c, size, kernel, dilation, pads, stride, out, strides, what):
    """The bytes of conv.cu's cg_window, kept per arguments (checked once)."""
    try:
        key = (n, c, tuple(size), tuple(kernel), tuple(dilation), tuple(pads), tuple(stride),
               tuple(out), tuple(strides), what)
        hit = _windows.get(key)
    except TypeError:           # (an argument that does not hash: not kept)
        return _pack_window(n, c, size, kernel, dilation, pads, stride, out, strides, what)
    if hit is None:
        hit = _pack_window(n, c, size, kernel, dilation, pads, stride, out, strides, what)
        # kept for plain ints only (a number-like object could change its value)
        if all(type(v) is int for part in key[2:-1] for v in part) and type(n) is type(c) is int:
            if len(_windows) >= _MAX_WINDOWS:
                _windows.clear()
            _windows[key] = hit
    return hit


def _pack_window(n, c, size, kernel, dilation, pads, stride, out, strides, what):
    nsp = len(size)
    if not 1 <= nsp <= _MAX_SP:
        raise RuntimeError(f"{what}: expected 1 to {_MAX_SP} spatial dims, got {nsp}")
    fields = [_ints(size, nsp, "size", what, 0), _ints(kernel, nsp, "kernel", what, 1),
              _ints(dilation, nsp, "dilation", what, 1), _ints(pads, nsp, "pads", what, 0),
              _ints(stride, nsp, "stride", what, 1), _ints(out, nsp, "out", what, 0)]
    size, kernel, dilation, pads, stride, out = fields
    pad = [0] * (_MAX_SP - nsp)
    xs = list(strides) + [0] * (_MAX_SP + 2 - len(strides))
    return _WINDOW.pack(nsp, n, c, *size, *pad, *kernel, *pad, *dilation, *pad, *stride, *pad,
                        *pads, *pad, *out, *pad, *xs)


def im2col(x, kernel, dilation, pads, stride, out, channel_major=False):
    """Window columns of ``x`` (``(N, C, *size)``, any strides):
    ``(N, C * prod(kernel), prod(out))``, positions in the padding zero;
    ``channel_major`` lays it out as ``(C * prod(kernel), N, prod(out))`` and
    returns the permuted view.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import im2col
    >>> callable(im2col)
    True
    """
    sfx = _WIDTHS.get(x.dtype.itemsize)
    if sfx is None:
        raise NotImplementedError(f"no 'cuda' kernel for primitive 'im2col' for dtype {x.dtype}")
    if x.dim() < 3:
        raise RuntimeError(f"im2col: expected an (N, C, *spatial) tensor, got {x.dim()} dims")
    shape = tuple(x.shape)
    w = _window(shape[0], shape[1], shape[2:], kernel, dilation, pads, stride, out, x.stride(),
                "im2col")
    ck, L = shape[1] * math.prod(kernel), math.prod(out)
    res = _C._empty((ck, shape[0], L) if channel_major else (shape[0], ck, L), x.dtype, x.device)
    total = res.numel()
    if total:
        _launch(x, "conv.cu", f"cg_im2col_{sfx}", _k.grid_1d(total), (_k.BLOCK, 1, 1),
                (total, w, x.data_ptr(), res.data_ptr(), int(bool(channel_major))))
    return res.permute(1, 0, 2) if channel_major else res


def col2im(cols, channels, size, kernel, dilation, pads, stride, out):
    """The adjoint of :func:`im2col`: ``(N, channels * prod(kernel), prod(out))``
    columns (any strides) summed onto a contiguous ``(N, channels, *size)`` tensor.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import col2im
    >>> callable(col2im)
    True
    """
    sfx = _sfx("col2im", cols.dtype)
    size = tuple(int(s) for s in size)
    if cols.dim() != 3 or channels < 0:
        raise RuntimeError(f"col2im: expected (N, C * prod(kernel), L) columns, got shape "
                           f"{list(cols.shape)}")
    n = cols.shape[0]
    want = (n, channels * math.prod(kernel), math.prod(out))
    if tuple(cols.shape) != want:
        raise RuntimeError(f"col2im: columns of shape {list(cols.shape)} do not match the "
                           f"geometry (expected {list(want)})")
    w = _window(n, channels, size, kernel, dilation, pads, stride, out, (), "col2im")
    res = _C._empty((n, channels) + size, cols.dtype, cols.device)
    total = res.numel()
    if total:
        cs = cols.stride()
        _launch(cols, "conv.cu", f"cg_col2im_{sfx}", _k.grid_1d(total), (_k.BLOCK, 1, 1),
                (total, w, cols.data_ptr(), cs[0], cs[1], cs[2], res.data_ptr()))
    return res


def max_pool_nd(x, kernel, dilation, pads, stride, out):
    """Max pooling of ``x`` (``(N, C, *size)``, any strides): ``(values, indices)``,
    both ``(N, C, *out)``; an index is the position of the window's maximum in the
    flattened ``size`` plane (the first maximum; a NaN always wins).

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import max_pool_nd
    >>> callable(max_pool_nd)
    True
    """
    sfx = _sfx("max_pool_nd", x.dtype)
    if x.dim() < 3:
        raise RuntimeError(f"max_pool: expected an (N, C, *spatial) tensor, got {x.dim()} dims")
    shape = tuple(x.shape)
    w = _window(shape[0], shape[1], shape[2:], kernel, dilation, pads, stride, out, x.stride(),
                "max_pool")
    oshape = shape[:2] + tuple(int(o) for o in out)
    values = _C._empty(oshape, x.dtype, x.device)
    idx = _C._empty(oshape, _dt.int64, x.device)
    total = values.numel()
    if total:
        _launch(x, "conv.cu", f"cg_max_pool_{sfx}", _k.grid_1d(total), (_k.BLOCK, 1, 1),
                (total, w, x.data_ptr(), values.data_ptr(), idx.data_ptr()))
    _vouch(idx, ("plane", math.prod(shape[2:])))       # (every index lies in [0, P))
    return values, idx


def max_pool_nd_backward(grad, idx, size):
    """Max pooling's gradient: a contiguous ``(N, C, *size)`` zero tensor with each
    ``grad[n, c, o]`` added at plane position ``idx[n, c, o]``; an index outside the
    plane raises ``RuntimeError``.

    Examples
    --------
    >>> from cygrad.cuda.ops.nn import max_pool_nd_backward
    >>> callable(max_pool_nd_backward)
    True
    """
    sfx = _sfx("max_pool_nd_backward", grad.dtype)
    if idx.dtype is not _dt.int64:
        raise TypeError(f"max_pool_backward: indices must be int64, got {idx.dtype}")
    if grad.dim() < 3 or tuple(grad.shape) != tuple(idx.shape) or idx.device != grad.device:
        raise RuntimeError(f"max_pool_backward: gradient {list(grad.shape)} and indices "
                           f"{list(idx.shape)} must have one (N, C, *out) shape on one device")
    size = tuple(int(s) for s in size)
    # (max_pool_nd's indices, unwritten since, lie in the plane: no check)
    checked = not _vouched(idx, ("plane", math.prod(size)))
    grad, idx = grad.contiguous(), idx.contiguous()
    shape = tuple(grad.shape)
    res = _zeros(shape[:2] + size, grad.dtype, grad.device)
    total = grad.numel()
    if total:
        bad = _zeros((1,), _dt.int32, grad.device) if checked else None
        _launch(grad, "conv.cu", f"cg_max_pool_bwd_{sfx}", _k.grid_1d(total), (_k.BLOCK, 1, 1),
                (total, math.prod(shape[2:]), math.prod(size), grad.data_ptr(), idx.data_ptr(),
                 res.data_ptr(), _ptr(bad)))
        if checked and int(bad.item()):
            raise RuntimeError(f"max_pool_backward: an index lies outside the plane of "
                               f"{math.prod(size)} elements")
    return res


def register():
    """Register this module's kernels as the 'cuda' entries of the kernel table,
    with the dtypes the CPU entries cover (the ops take their composed path for
    the others).

    Examples
    --------
    >>> from cygrad.cuda.ops import nn
    >>> sorted(nn.PRIMITIVES)[:3]
    ['attention_softmax', 'col2im', 'cross_entropy']
    """
    reg = dispatch.register
    reg("softmax", "cuda")(softmax)
    for name in ("softmax_backward", "attention_softmax", "layer_norm", "layer_norm_backward",
                 "gelu", "gelu_backward", "cross_entropy", "cross_entropy_backward", "col2im",
                 "max_pool_nd", "max_pool_nd_backward", "sum_ratio"):
        reg(name, "cuda", dtypes=_FLOATS)(globals()[name])
    reg("im2col", "cuda")(im2col)
