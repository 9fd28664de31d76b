"""Convolutions (``conv1d/2d/3d``, ``conv_transpose1d/2d/3d``) and ``unfold``/``fold``.

Every convolution here is two matrix products and the window rearrangements of
``_sliding.py``. Take the *image* side of a convolution (``Ci`` channels on a
spatial grid) and its *patch* side (``Cp`` channels, one value per window
position); the weight always has shape ``(Cp, Ci / groups, *kernel)``:

* ``conv`` maps image to patches: ``cols = im2col(image)`` (``(N, Ci*K, L)``),
  then ``patches = W @ cols`` with ``W`` as a ``(Cp, Ci*K)`` matrix (one per group);
* its adjoint maps patches to image: ``image = col2im(W^T @ patches)``;
* the weight gradient is ``patches @ cols^T``, summed over the batch.

``conv_transpose`` is the adjoint map used forwards, so a convolution and its
transpose share these three pieces, only swapping which is forward and which is
backward (as PyTorch's ``ConvolutionBackward0`` node does). For 1-d and 2-d
convolutions of one group with enough columns, the three maps run as the device's
fused kernels instead (``conv2d_gemm``, ``conv2d_gemm_weight``,
``conv2d_gemm_input``: im2col and product per cache-sized block, see "fused
kernels" below) whenever no graph of the backward is recorded.  ``Im2Col`` and
``Col2Im`` are Functions (each the other's gradient), so the backward pass is built
from differentiable ops and double backward works. They run the device's
``im2col``/``col2im`` kernels (:mod:`cygrad._core.dispatch`) when it has them for the
dtype, and the tensor-op versions of ``_sliding.py`` otherwise.
"""
import math
import numbers

from ..._core import dispatch
from ..._core.tensor import TensorBase
from ...autograd.forward_ad import saved_for_jvp
from ...autograd.function import Function
from ...autograd.grad_mode import is_grad_enabled
from ...ops.linalg import matmul
from . import _sliding as S

__all__ = ["conv1d", "conv2d", "conv3d", "conv_transpose1d", "conv_transpose2d",
           "conv_transpose3d", "unfold", "fold"]


# ----------------------------------------------------------------------- im2col / col2im

class Im2Col(Function):
    """``(N, C, *spatial)`` -> ``(N, C * prod(kernel), prod(blocks))`` window columns
    (``F.unfold``); ``blocks`` is the grid of window positions. ``channel_major``
    asks for the memory layout ``(C * prod(kernel), N, prod(blocks))`` (a permuted
    view; a hint, which the fallback ignores).

    Linear in its input: the gradient is :class:`Col2Im` of the output gradient and
    the tangent is the same map applied to the input tangent."""
    _node_name = "Im2ColBackward0"

    @staticmethod
    def forward(ctx, input, kernel, dilation, pads, stride, blocks, channel_major=False):
        ctx.geom = (tuple(input.shape[2:]), kernel, dilation, pads, stride, blocks)
        ctx.channels, ctx.channel_major = input.shape[1], channel_major
        fast = dispatch.lookup("im2col", input.device, input.dtype)
        if fast is not None:
            return fast(input, kernel, dilation, tuple(b for b, _ in pads), stride, blocks,
                        channel_major)
        return S.im2col(S.pad_zero(input, pads), kernel, dilation, stride, blocks)

    @staticmethod
    def backward(ctx, grad):
        return (Col2Im.apply(grad, ctx.channels, *ctx.geom, False),) + (None,) * 6

    @staticmethod
    def jvp(ctx, tangent, *unused):
        return Im2Col.apply(tangent, *ctx.geom[1:], ctx.channel_major)


class Col2Im(Function):
    """Window columns back onto a ``(N, C, *size)`` grid, overlaps summed (``F.fold``).

    The adjoint of :class:`Im2Col`; ``compact`` makes the result contiguous (a
    cropped view of the padded buffer otherwise, which is fine for a gradient)."""
    _node_name = "Col2ImBackward0"

    @staticmethod
    def forward(ctx, cols, channels, size, kernel, dilation, pads, stride, blocks, compact):
        ctx.geom = (kernel, dilation, pads, stride, blocks)
        ctx.args = (channels, size)
        fast = dispatch.lookup("col2im", cols.device, cols.dtype)
        if fast is not None:
            return fast(cols, channels, size, kernel, dilation, tuple(b for b, _ in pads), stride,
                        blocks)
        padded = tuple(s + b + a for s, (b, a) in zip(size, pads))
        res = S.crop(S.col2im(cols, channels, padded, kernel, dilation, stride, blocks), pads, size)
        return res.contiguous() if compact else res

    @staticmethod
    def backward(ctx, grad):
        return (Im2Col.apply(grad, *ctx.geom),) + (None,) * 8

    @staticmethod
    def jvp(ctx, tangent, *unused):
        return Col2Im.apply(tangent, *ctx.args, *ctx.geom, True)


# ----------------------------------------------------------------------- the three maps

class _Geometry:
    """Everything about a convolution but its tensors: ``image`` is the spatial size
    of the image side, ``patches`` the grid of window positions."""
    __slots__ = ("kernel", "stride", "pads", "dilation", "groups", "image", "patches",
                 "transposed")

    def __init__(self, kernel, stride, pads, dilation, groups, image, patches, transposed):
        self.kernel, self.stride, self.pads = kernel, stride, pads
        self.dilation, self.groups = dilation, groups
        self.image, self.patches, self.transposed = image, patches, transposed

    def im2col(self, image):
        return Im2Col.apply(image, self.kernel, self.dilation, self.pads, self.stride,
                            self.patches)


# Each map is a batch of per-image products, (Cp, Ci*K) @ (Ci*K, L) for each of the
# N images (one per group). The columns of one image stay in cache for its product,
# and the result is (N, Cp, L) in memory: the output's own layout, with no
# transposing copy of the output or of its gradient. Measured against one
# (Cp, Ci*K) @ (Ci*K, N*L) product over the whole batch (one thread, 2-core AMD EPYC,
# fwd+bwd): conv2d N32 16->32 32x32 12.1 vs 14.3 ms, N64 3->16 28x28 1.9 vs 3.2 ms,
# N64 1->16 28x28 1.0 vs 1.7 ms, N64 16->32 14x14 equal. The batched product loops
# over BLAS calls with the GIL released, or splits the images over cygrad's pool
# when the batch is large (cygrad/_core/gemm.pyx).


def _to_patches(image, weight, g, cols=None):
    """conv: ``(N, Ci, *image)`` -> ``(N, Cp, *patches)`` (``cols``: ``im2col(image)`` if
    already known), contiguous."""
    n = image.shape[0]
    cp = weight.shape[0]
    if cols is None:
        cols = g.im2col(image)
    w = weight.reshape(g.groups, cp // g.groups, math.prod(weight.shape[1:]))
    res = matmul(w, cols.reshape(n, g.groups, cols.shape[1] // g.groups, cols.shape[2]))
    return res.reshape((n, cp) + g.patches)


def _to_image(patches, weight, g, compact):
    """The adjoint of :func:`_to_patches`: ``(N, Cp, *patches)`` -> ``(N, Ci, *image)``."""
    n, cp = patches.shape[:2]
    ci = weight.shape[1] * g.groups
    positions = math.prod(g.patches)
    w = weight.reshape(g.groups, cp // g.groups, math.prod(weight.shape[1:])).transpose(1, 2)
    cols = matmul(w, patches.reshape(n, g.groups, cp // g.groups, positions))
    cols = cols.reshape(n, ci * math.prod(g.kernel), positions)
    return Col2Im.apply(cols, ci, g.image, g.kernel, g.dilation, g.pads, g.stride, g.patches,
                        compact)


def _weight_grad(image, patches, weight_shape, g, cols=None):
    """``d<patches, conv(image)>/dW``: ``patches @ cols^T`` summed over the batch."""
    n, cp = patches.shape[:2]
    if cols is None:
        cols = g.im2col(image)
    positions = cols.shape[2]
    # Batched products on the transposed view, then a sum over the small
    # (N, Cp, Ci*K) result: no transposing copy of the large columns.
    p = patches.reshape(n, g.groups, cp // g.groups, positions)
    c = cols.reshape(n, g.groups, cols.shape[1] // g.groups, positions)
    # (reshaped before the sum, so that the sum makes the gradient in the weight's
    # shape: a fresh tensor the engine keeps as .grad, where a view would be copied)
    return matmul(p, c.transpose(2, 3)).reshape((n, *weight_shape)).sum(0)


# ----------------------------------------------------------------------- fused kernels

# A 1-d or 2-d convolution can run as the device's fused kernels instead:
# ``conv2d_gemm`` unfolds each image's windows block by block into a cache-sized
# buffer and multiplies it there (cygrad/_core/cpu/conv_gemm.c), ``conv2d_gemm_weight``
# does the same for the weight gradient, accumulating over the batch, and
# ``conv2d_gemm_input`` multiplies the output gradient block by block and folds the
# result onto the image (the input gradient, and conv_transpose's forward). None keeps
# the whole batch's columns: the backward unfolds the input again, which costs less
# than streaming 19 MB of saved columns back from memory (conv2d N32 16->32 32x32).
# They are not differentiable themselves, so a backward under create_graph takes the
# im2col route. A device or dtype without them (lookup gives None) takes it too.

# The fused route wins where each image's product is a real one. Measured against
# the im2col route (one thread, 2-core AMD EPYC, forward + weight gradient, float32)
# it lost with a per-group product of few columns: depthwise N32 32ch 32x32 6.7 vs
# 57 ms, groups=4 10.3 vs 18.1 ms, N32 3->16 32x32 (27 columns) 1.1 vs 2.0 ms,
# N64 1->16 28x28 0.8 vs 1.9 ms, and 1x1 kernels (no windows to unfold) 2.1 vs 2.4 ms.
_FUSED_MIN_COLUMNS = 64


def _fused_pays(g, weight_shape):
    """Whether the fused kernels beat the im2col route for this geometry (tests
    force it to check the kernels through small float64 cases)."""
    window = math.prod(g.kernel)
    return g.groups == 1 and window > 1 and weight_shape[1] * window >= _FUSED_MIN_COLUMNS


def _fused(name, g, t, weight_shape):
    """The device's fused 2-d kernel ``name`` for ``g``, tensors like ``t`` and a weight
    of ``weight_shape``, or None (no kernel, or a shape the im2col route runs faster)."""
    if len(g.kernel) > 2 or not _fused_pays(g, weight_shape):
        return None
    return dispatch.lookup(name, t.device, t.dtype)


def _as_2d(t, g):
    """A 1-d convolution's ``(N, C, L)`` tensor as ``(N, C, 1, L)``; 2-d ones as they are."""
    return t.unsqueeze(2) if len(g.kernel) == 1 else t


def _geometry_2d(g):
    """``(stride, pads before, dilation)`` with a leading height dim for 1-d."""
    pads = tuple(b for b, _ in g.pads)
    if len(g.kernel) == 1:
        return (1,) + g.stride, (0,) + pads, (1,) + g.dilation
    return g.stride, pads, g.dilation


def _fused_conv(image, weight, bias, g):
    """``conv(image, weight) + bias`` by the fused kernel, or None without one."""
    fast = _fused("conv2d_gemm", g, image, weight.shape)
    if fast is None:
        return None
    stride, pads, dilation = _geometry_2d(g)
    out = g.patches if len(g.kernel) == 2 else (1,) + g.patches
    res = fast(_as_2d(image, g), _as_2d(weight, g).contiguous(),
               None if bias is None else bias.contiguous(), stride, pads, dilation, g.groups, out)
    return res.squeeze(2) if len(g.kernel) == 1 else res


def _fused_weight_grad(image, patches, weight_shape, g):
    """:func:`_weight_grad` by the fused kernel (``patches`` contiguous), or None."""
    fast = _fused("conv2d_gemm_weight", g, image, weight_shape)
    if fast is None:
        return None
    stride, pads, dilation = _geometry_2d(g)
    shape = tuple(weight_shape) if len(g.kernel) == 2 else \
        tuple(weight_shape[:2]) + (1,) + tuple(weight_shape[2:])
    gw = fast(_as_2d(image, g), _as_2d(patches, g), shape, stride, pads, dilation, g.groups)
    return gw.reshape(weight_shape)


def _fused_image(patches, weight, g):
    """:func:`_to_image` by the fused kernel (contiguous), or None without one."""
    fast = _fused("conv2d_gemm_input", g, patches, weight.shape)
    if fast is None:
        return None
    stride, pads, dilation = _geometry_2d(g)
    size = g.image if len(g.kernel) == 2 else (1,) + g.image
    res = fast(_as_2d(patches, g).contiguous(), _as_2d(weight, g).contiguous(), size, stride,
               pads, dilation, g.groups)
    return res.squeeze(2) if len(g.kernel) == 1 else res


def _bias_shape(bias, ndim):
    return bias.reshape((bias.shape[0],) + (1,) * ndim)


class Convolution(Function):
    """``conv`` or ``conv_transpose`` with bias; see the module docstring.

    For a convolution ``y = P(x, W) + b`` (``P`` = :func:`_to_patches`):
    ``dx = P^T(dy, W)``, ``dW = dy @ cols(x)^T``, ``db = sum(dy)``; a transposed
    convolution is ``y = P^T(x, W) + b`` with the roles of ``P`` and ``P^T`` swapped.
    All three are linear in each argument, so the jvp is the forward map applied to
    one tangent at a time."""
    _node_name = "ConvolutionBackward0"

    @staticmethod
    def forward(ctx, input, weight, bias, g):
        ctx.g = g
        ctx.has_bias = bias is not None
        ctx.save_for_backward(input, weight)
        ctx.cols = None
        if g.transposed:
            out = _fused_image(input, weight, g)
            if out is None:
                out = _to_image(input, weight, g, True)
        elif (out := _fused_conv(input, weight, bias, g)) is not None:
            ctx.out_shape = tuple(out.shape)
            return out
        else:
            cols = g.im2col(input)
            if ctx.needs_input_grad[1]:
                # Kept for the weight gradient (unless it must be differentiable, see
                # backward): one im2col instead of two per training step.
                ctx.cols = cols
            out = _to_patches(input, weight, g, cols)
        ctx.out_shape = tuple(out.shape)
        if bias is not None:
            b = _bias_shape(bias, out.dim() - 2)
            # Out of place on a view: the sum is the contiguous result, in one pass.
            out = out.add_(b) if out.is_contiguous() else out + b
        elif not out.is_contiguous():
            out = out.contiguous()
        return out

    @staticmethod
    def backward(ctx, grad):
        input, weight = ctx.saved_tensors
        g = ctx.g
        need_x, need_w, need_b = ctx.needs_input_grad[:3]
        gx = gw = gb = None
        # contiguous: an expanded gradient (zero strides, from .sum()) is not a
        # layout BLAS can take
        grad = grad.contiguous()
        # Under create_graph the gradients must be recorded tensor ops, differentiable
        # in the saved tensors: no fused kernels, and no columns saved without a graph.
        graph = is_grad_enabled()
        if g.transposed:
            if need_x:
                gx = None if graph else _fused_conv(grad, weight, None, g)
                if gx is None:
                    gx = _to_patches(grad, weight, g)
            if need_w:
                gw = None if graph else _fused_weight_grad(grad, input.contiguous(),
                                                           weight.shape, g)
                if gw is None:
                    gw = _weight_grad(grad, input, weight.shape, g)
        else:
            if need_x:
                gx = None if graph else _fused_image(grad, weight, g)
                if gx is None:
                    gx = _to_image(grad, weight, g, False)
            if need_w:
                gw = None if graph or ctx.cols is not None else \
                    _fused_weight_grad(input, grad, weight.shape, g)
                if gw is None:
                    gw = _weight_grad(input, grad, weight.shape, g, None if graph else ctx.cols)
        ctx.cols = None
        if need_b and ctx.has_bias:
            gb = grad.sum([0] + list(range(2, grad.dim())))
        return gx, gw, gb, None

    @staticmethod
    def jvp(ctx, tx, tw, tb, _g):
        input, weight = saved_for_jvp(ctx)
        g = ctx.g

        def apply(x, w):
            return _to_image(x, w, g, True) if g.transposed else _to_patches(x, w, g)

        out = None
        if tx is not None:
            out = apply(tx, weight)
        if tw is not None:
            term = apply(input, tw)
            out = term if out is None else out + term
        if tb is not None:
            term = _bias_shape(tb, len(g.kernel))
            out = term.expand(ctx.out_shape) if out is None else out + term
        return out


# ----------------------------------------------------------------------- argument checks

def _check_tensor(x, name, opname):
    if not isinstance(x, TensorBase):
        raise TypeError(f"{opname}(): argument '{name}' (position "
                        f"{ {'input': 1, 'weight': 2, 'bias': 3}[name] }) must be Tensor, "
                        f"not {type(x).__name__}")


def _check_int(value, name, opname):
    if isinstance(value, bool) or not isinstance(value, numbers.Integral):
        raise TypeError(f"{opname}(): argument '{name}' must be int, not {type(value).__name__}")
    if not -2 ** 63 <= int(value) < 2 ** 63:
        # PyTorch's argument parser reads an int64 and raises this for anything wider
        raise ValueError("Overflow when unpacking long long")
    return int(value)


def _size_str(shape):
    return "[" + ", ".join(str(s) for s in shape) + "]"


def _batched(input, n, opname):
    """``input`` with a batch dim, and whether one was added (unbatched input)."""
    if input.dim() == n + 2:
        return input, False
    if input.dim() == n + 1:
        return input.unsqueeze(0), True
    raise RuntimeError(f"Expected {n + 1}D (unbatched) or {n + 2}D (batched) input to {opname}, "
                       f"but got input of size: {_size_str(input.shape)}")


def _check_weight_and_bias(input, weight, bias, groups, n, transposed):
    if weight.dim() != n + 2:
        raise RuntimeError(f"Expected {n + 2}-dimensional weight for {n}-d convolution, but got "
                           f"weight of size {_size_str(weight.shape)}")
    if weight.dtype is not input.dtype:
        raise RuntimeError(f"expected scalar type {_scalar_name(input.dtype)} but found "
                           f"{_scalar_name(weight.dtype)}")
    if groups <= 0:
        raise RuntimeError("non-positive groups is not supported")
    if weight.shape[0] == 0:
        raise RuntimeError(f"Given groups={groups}, expected weight to be at least 1 at dimension "
                           f"0, but got weight of size {_size_str(weight.shape)} instead")
    if weight.shape[0] % groups:
        raise RuntimeError(f"Given groups={groups}, expected weight to be divisible by {groups} at "
                           f"dimension 0, but got weight of size [{_size_str(weight.shape)}] "
                           f"instead")
    channels = weight.shape[0] if transposed else weight.shape[1] * groups
    if input.shape[1] != channels:
        head = f"Given transposed=1, weight" if transposed else f"Given groups={groups}, weight"
        raise RuntimeError(f"{head} of size {_size_str(weight.shape)}, expected "
                           f"input{_size_str(input.shape)} to have {channels} channels, but got "
                           f"{input.shape[1]} channels instead")
    if bias is not None:
        out_channels = weight.shape[1] * groups if transposed else weight.shape[0]
        if bias.dim() != 1 or bias.shape[0] != out_channels:
            raise RuntimeError(f"Given weight of size {_size_str(weight.shape)}, expected bias to "
                               f"be 1-dimensional with {out_channels} elements, but got bias of "
                               f"size {_size_str(bias.shape)} instead")
        if bias.dtype is not input.dtype:
            raise RuntimeError(f"Input type ({_c_name(input.dtype)}) and bias type "
                               f"({_c_name(bias.dtype)}) should be the same")


_SCALAR_NAMES = {"float32": "Float", "float64": "Double", "float16": "Half",
                 "bfloat16": "BFloat16", "int64": "Long", "int32": "Int", "int16": "Short",
                 "int8": "Char", "uint8": "Byte", "bool": "Bool"}


def _scalar_name(dtype):
    return _SCALAR_NAMES.get(dtype.name, dtype.name)


def _c_name(dtype):
    return {"Float": "float", "Double": "double", "Long": "long"}.get(_scalar_name(dtype),
                                                                     _scalar_name(dtype))


def _check_positive(values, name, what):
    if any(v <= 0 for v in values):
        raise RuntimeError(f"{what} should be greater than zero, but got {list(values)}"
                           if name == "dilation" else f"non-positive {name} is not supported")


def _same_pads(kernel, dilation):
    """PyTorch's ``padding='same'``: total ``d*(k-1)``, the odd one on the right."""
    return tuple((d * (k - 1) // 2, d * (k - 1) - d * (k - 1) // 2)
                 for k, d in zip(kernel, dilation))


def _common_args(input, weight, bias, stride, dilation, groups, n, opname):
    """The checks conv and conv_transpose share: ``(x, unbatched, stride, dilation, groups)``."""
    _check_tensor(input, "input", opname)
    _check_tensor(weight, "weight", opname)
    if bias is not None:
        _check_tensor(bias, "bias", opname)
    groups = _check_int(groups, "groups", opname)
    x, unbatched = _batched(input, n, opname)
    stride = S.ntuple(stride, n, "stride", opname)
    dilation = S.ntuple(dilation, n, "dilation", opname)
    _check_positive(stride, "stride", "stride")
    _check_positive(dilation, "dilation", "dilation")
    return x, unbatched, stride, dilation, groups


# A layer calls its convolution with the same shapes and arguments every step: the
# checks and the geometry below depend on those alone, so the result of a call whose
# arguments are plain values (_sliding.plain) is kept per shapes, dtypes and arguments.
# Only a call that passed every check is kept, so each error is still raised.
_GEOMETRIES = {}
_MAX_GEOMETRIES = 1024


def _conv(input, weight, bias, stride, padding, dilation, groups, n, opname):
    key = None
    if isinstance(input, TensorBase) and isinstance(weight, TensorBase) \
            and (bias is None or isinstance(bias, TensorBase)) \
            and S.plain(stride, padding, dilation, groups):
        key = (n, input.shape, input.dtype, weight.shape, weight.dtype,
               None if bias is None else (bias.shape, bias.dtype), stride, padding, dilation,
               groups)
        hit = _GEOMETRIES.get(key)
        if hit is not None:
            unbatched, g = hit
            out = Convolution.apply(input.unsqueeze(0) if unbatched else input, weight, bias, g)
            return out.squeeze(0) if unbatched else out
    x, unbatched, g = _conv_geometry(input, weight, bias, stride, padding, dilation, groups, n,
                                     opname)
    if key is not None:
        if len(_GEOMETRIES) >= _MAX_GEOMETRIES:
            _GEOMETRIES.clear()
        _GEOMETRIES[key] = (unbatched, g)
    out = Convolution.apply(x, weight, bias, g)
    return out.squeeze(0) if unbatched else out


def _conv_geometry(input, weight, bias, stride, padding, dilation, groups, n, opname):
    """The checks of a convolution's arguments: ``(x, unbatched, _Geometry)``."""
    x, unbatched, stride, dilation, groups = _common_args(input, weight, bias, stride, dilation,
                                                          groups, n, opname)
    _check_weight_and_bias(x, weight, bias, groups, n, False)
    kernel = tuple(weight.shape[2:])
    if isinstance(padding, str):
        if padding == "valid":
            pads = ((0, 0),) * n
        elif padding == "same":
            if any(s != 1 for s in stride):
                raise RuntimeError("padding='same' is not supported for strided convolutions")
            pads = _same_pads(kernel, dilation)
        else:
            raise RuntimeError(f"Invalid padding string: '{padding}'")
    else:
        padding = S.ntuple(padding, n, "padding", opname)
        if any(p < 0 for p in padding):
            raise RuntimeError("negative padding is not supported")
        pads = tuple((p, p) for p in padding)
    size = tuple(x.shape[2:])
    padded = tuple(s + b + a for s, (b, a) in zip(size, pads))
    if any(p < d * (k - 1) + 1 for p, k, d in zip(padded, kernel, dilation)):
        reach = (d * (k - 1) + 1 for k, d in zip(kernel, dilation))
        raise RuntimeError(f"Calculated padded input size per channel: "
                           f"({' x '.join(map(str, padded))}). Kernel size: "
                           f"({' x '.join(map(str, reach))}). "
                           "Kernel size can't be greater than actual input size")
    out = tuple(S.out_size(p, k, t, 0, d) for p, k, t, d in zip(padded, kernel, stride, dilation))
    return x, unbatched, _Geometry(kernel, stride, pads, dilation, groups, size, out, False)


def _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation, n,
                    opname):
    if isinstance(padding, str):
        raise TypeError(f"{opname}(): argument 'padding' must be tuple of ints, not str")
    x, unbatched, stride, dilation, groups = _common_args(input, weight, bias, stride, dilation,
                                                          groups, n, opname)
    padding = S.ntuple(padding, n, "padding", opname)
    output_padding = S.ntuple(output_padding, n, "output_padding", opname)
    if any(p < 0 for p in padding):
        raise RuntimeError("negative padding is not supported")
    if any(p < 0 for p in output_padding):
        raise RuntimeError("negative output_padding is not supported")
    if any(op >= s and op >= d for op, s, d in zip(output_padding, stride, dilation)):
        names = ("height", "width") if n == 2 else ("depth", "height", "width")[3 - n:] \
            if n <= 3 else tuple(str(i) for i in range(n))
        detail = " ".join(f"output_padding_{a}: {v}" for a, v in zip(names, output_padding)) + " " \
            + " ".join(f"stride_{a}: {v}" for a, v in zip(names, stride)) + " " \
            + " ".join(f"dilation_{a}: {v}" for a, v in zip(names, dilation))
        raise RuntimeError(f"output padding must be smaller than either stride or dilation, but "
                           f"got {detail}")
    _check_weight_and_bias(x, weight, bias, groups, n, True)
    kernel = tuple(weight.shape[2:])
    size = tuple(x.shape[2:])
    image = tuple((s - 1) * t - 2 * p + d * (k - 1) + op + 1 for s, t, p, d, k, op
                  in zip(size, stride, padding, dilation, kernel, output_padding))
    if any(s <= 0 for s in image):
        raise RuntimeError(f"Given input size per channel: ({' x '.join(map(str, size))}). "
                           f"Calculated output size per channel: "
                           f"({' x '.join(map(str, image))}). Output size is too small")
    # output_padding adds rows after the last window's reach; col2im leaves them zero.
    pads = tuple((p, p) for p in padding)
    g = _Geometry(kernel, stride, pads, dilation, groups, image, size, True)
    out = Convolution.apply(x, weight, bias, g)
    return out.squeeze(0) if unbatched else out


# ----------------------------------------------------------------------- public functions

def conv1d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """1-D convolution (cross-correlation, as in PyTorch) over ``(N, C_in, L)``.

    ``weight`` is ``(C_out, C_in / groups, kW)``; ``padding`` is an int, a 1-tuple,
    ``'valid'`` (none) or ``'same'`` (output length = input length, stride 1 only).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[[1.0, 2.0, 3.0, 4.0]]])
    >>> F.conv1d(x, cygrad.tensor([[[1.0, -1.0]]])).tolist()
    [[[-1.0, -1.0, -1.0]]]
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 1, "conv1d")


def conv2d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """2-D convolution over ``(N, C_in, H, W)`` (or unbatched ``(C_in, H, W)``).

    ``weight`` is ``(C_out, C_in / groups, kH, kW)`` and ``bias`` ``(C_out,)``.
    ``stride``, ``padding`` and ``dilation`` are ints or pairs; ``padding`` may also
    be ``'valid'`` or ``'same'``. Computed as ``im2col`` copies and matrix products
    (per block of output rows in cache on the CPU, or one batched product per group);
    the gradient node is ``ConvolutionBackward0``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.ones(1, 1, 3, 3)
    >>> F.conv2d(x, cygrad.ones(1, 1, 2, 2), padding=1)[0, 0].tolist()
    [[1.0, 2.0, 2.0, 1.0], [2.0, 4.0, 4.0, 2.0], [2.0, 4.0, 4.0, 2.0], [1.0, 2.0, 2.0, 1.0]]
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 2, "conv2d")


def conv3d(input, weight, bias=None, stride=1, padding=0, dilation=1, groups=1):
    """3-D convolution over ``(N, C_in, D, H, W)``; see :func:`conv2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.conv3d(cygrad.ones(1, 2, 3, 3, 3), cygrad.ones(4, 2, 2, 2, 2)).shape
    cygrad.Size([1, 4, 2, 2, 2])
    """
    return _conv(input, weight, bias, stride, padding, dilation, groups, 3, "conv3d")


def conv_transpose1d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 1-D convolution (the gradient of ``conv1d`` with respect to its input).

    ``weight`` is ``(C_in, C_out / groups, kW)``; the output length is
    ``(L - 1) * stride - 2 * padding + dilation * (kW - 1) + output_padding + 1``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.conv_transpose1d(cygrad.tensor([[[1.0, 2.0]]]), cygrad.ones(1, 1, 2)).tolist()
    [[[1.0, 3.0, 2.0]]]
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           1, "conv_transpose1d")


def conv_transpose2d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 2-D convolution ("deconvolution") over ``(N, C_in, H, W)``.

    ``weight`` is ``(C_in, C_out / groups, kH, kW)``. Computed as ``W^T @ x`` and
    one ``col2im`` (the adjoint of ``conv2d``'s ``im2col``).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> y = F.conv_transpose2d(cygrad.ones(1, 1, 2, 2), cygrad.ones(1, 1, 2, 2), stride=2)
    >>> y.shape, y.sum().item()
    (cygrad.Size([1, 1, 4, 4]), 16.0)
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           2, "conv_transpose2d")


def conv_transpose3d(input, weight, bias=None, stride=1, padding=0, output_padding=0, groups=1,
                     dilation=1):
    """Transposed 3-D convolution over ``(N, C_in, D, H, W)``; see :func:`conv_transpose2d`.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.conv_transpose3d(cygrad.ones(1, 2, 2, 2, 2), cygrad.ones(2, 3, 2, 2, 2)).shape
    cygrad.Size([1, 3, 3, 3, 3])
    """
    return _conv_transpose(input, weight, bias, stride, padding, output_padding, groups, dilation,
                           3, "conv_transpose3d")


def _window_args(kernel_size, dilation, padding, stride, opname):
    kernel = S.ntuple(kernel_size, 2, "kernel_size", opname)
    dilation = S.ntuple(dilation, 2, "dilation", opname)
    padding = S.ntuple(padding, 2, "padding", opname)
    stride = S.ntuple(stride, 2, "stride", opname)
    for name, values, low in (("kernel", kernel, 1), ("dilation", dilation, 1),
                              ("stride", stride, 1), ("padding", padding, 0)):
        if any(v < low for v in values):
            what = "greater than zero" if low else "non-negative"
            raise RuntimeError(f"{name} should be {what}, but got {name}_height: {values[0]} "
                               f"{name}_width: {values[1]}")
    return kernel, dilation, tuple((p, p) for p in padding), stride


def unfold(input, kernel_size, dilation=1, padding=0, stride=1):
    """Extract sliding windows (im2col): ``(N, C, H, W)`` -> ``(N, C * kH * kW, L)``.

    Column ``l`` holds the window at the ``l``-th position (row-major); its rows run
    over channels, then kernel rows, then kernel columns. ``(C, H, W)`` input gives
    ``(C * kH * kW, L)``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.arange(9.0).reshape(1, 1, 3, 3)
    >>> F.unfold(x, 2).tolist()
    [[[0.0, 1.0, 3.0, 4.0], [1.0, 2.0, 4.0, 5.0], [3.0, 4.0, 6.0, 7.0], [4.0, 5.0, 7.0, 8.0]]]
    """
    _check_tensor(input, "input", "unfold")
    if input.dim() not in (3, 4):
        raise NotImplementedError(f"Input Error: Only 3D or 4D input Tensors are supported "
                                  f"(got {input.dim()}D)")
    kernel, dilation, pads, stride = _window_args(kernel_size, dilation, padding, stride, "unfold")
    x = input if input.dim() == 4 else input.unsqueeze(0)
    size = tuple(x.shape[2:])
    blocks = tuple(S.out_size(s, k, t, b + a, d)
                   for s, k, t, (b, a), d in zip(size, kernel, stride, pads, dilation))
    if any(b < 1 for b in blocks):
        raise RuntimeError(f"Given input with spatial size ({size[0]}, {size[1]}), "
                           f"kernel_size=({kernel[0]}, {kernel[1]}), dilation=({dilation[0]}, "
                           f"{dilation[1]}), padding=({pads[0][0]}, {pads[1][0]}), calculated "
                           f"shape of the array of sliding blocks as ({blocks[0]}, {blocks[1]}), "
                           f"but its components must be at least one.")
    cols = Im2Col.apply(x, kernel, dilation, pads, stride, blocks)
    return cols if input.dim() == 4 else cols.squeeze(0)


def fold(input, output_size, kernel_size, dilation=1, padding=0, stride=1):
    """Sum sliding-window columns back into an image (col2im), the adjoint of :func:`unfold`:
    ``(N, C * kH * kW, L)`` -> ``(N, C, *output_size)``; overlapping entries add up.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.fold(cygrad.ones(1, 4, 4), (3, 3), 2)[0, 0].tolist()
    [[1.0, 2.0, 1.0], [2.0, 4.0, 2.0], [1.0, 2.0, 1.0]]
    """
    _check_tensor(input, "input", "fold")
    if input.dim() not in (2, 3):
        raise RuntimeError(f"Expected 2D or 3D (batch mode) tensor for input with possibly 0 batch "
                           f"size and non-zero dimensions for input, but got: "
                           f"{_size_str(input.shape)}")
    size = S.ntuple(output_size, 2, "output_size", "fold")
    kernel, dilation, pads, stride = _window_args(kernel_size, dilation, padding, stride, "fold")
    x = input if input.dim() == 3 else input.unsqueeze(0)
    k = kernel[0] * kernel[1]
    if x.shape[1] % k:
        raise RuntimeError(f"Expected size of input's dimension 1 to be divisible by the product "
                           f"of kernel_size, but got input.size(1)={x.shape[1]} and "
                           f"kernel_size=({kernel[0]}, {kernel[1]}).")
    blocks = tuple(S.out_size(s, kk, t, b + a, d)
                   for s, kk, t, (b, a), d in zip(size, kernel, stride, pads, dilation))
    if any(b < 1 for b in blocks) or x.shape[2] != blocks[0] * blocks[1]:
        raise RuntimeError(f"Given output_size=({size[0]}, {size[1]}), kernel_size=({kernel[0]}, "
                           f"{kernel[1]}), dilation=({dilation[0]}, {dilation[1]}), "
                           f"padding=({pads[0][0]}, {pads[1][0]}), stride=({stride[0]}, "
                           f"{stride[1]}), expected size of input's dimension 2 to match the "
                           f"calculated number of sliding blocks {blocks[0]} * {blocks[1]} = "
                           f"{blocks[0] * blocks[1]}, but got input.size(2)={x.shape[2]}.")
    res = Col2Im.apply(x, x.shape[1] // k, size, kernel, dilation, pads, stride, blocks, True)
    return res if input.dim() == 3 else res.squeeze(0)
