"""``interpolate`` (and ``upsample``): nearest, nearest-exact, linear, bilinear,
bicubic, trilinear and area resizing, with PyTorch's source-index rules.

Every mode is separable: along each spatial dim, output position ``o`` reads a few
input positions with fixed weights (``_taps.py``). The positions and weights are
computed with cygrad ops in the input's floating dtype, as PyTorch computes them in
the input's precision, so that floor() lands on the same index. ``area`` is
``adaptive_avg_pool``.
"""
import math

from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ...ops.creation import arange
from ...ops.shape import stack
from ._taps import taps_function
from .pooling import adaptive_avg_pool1d, adaptive_avg_pool2d, adaptive_avg_pool3d

__all__ = ["interpolate", "upsample", "upsample_nearest", "upsample_bilinear"]

_MODES = ("nearest", "linear", "bilinear", "bicubic", "trilinear", "area", "nearest-exact")
_DIMS = {"linear": 1, "bilinear": 2, "bicubic": 2, "trilinear": 3}
_NODE = {"nearest": "UpsampleNearest{}DBackward0",
         "nearest-exact": "UpsampleNearestExact{}DBackward0",
         "linear": "UpsampleLinear1DBackward0", "bilinear": "UpsampleBilinear2DBackward0",
         "bicubic": "UpsampleBicubic2DBackward0", "trilinear": "UpsampleTrilinear3DBackward0"}
_CUBIC_A = -0.75


def _positions(out, dtype, device):
    return arange(out, dtype=dtype, device=device)


def _nearest_taps(size, out, scale, exact, dtype, device):
    # PyTorch: scale = 1/scale_factor if given, else size/out, in float32; then
    # src = min(floor(dst * scale), size - 1) (nearest-exact: (dst + 0.5) * scale).
    s = (1.0 / scale) if scale else size / out
    dst = _positions(out, _dt.float32, device)
    if exact:
        dst = dst + 0.5
    src = (dst * s).floor().to(_dt.int64).clamp(max=size - 1)
    return src.reshape(out, 1), None


def _linear_scale(size, out, align_corners, scale):
    if align_corners:
        return (size - 1) / (out - 1) if out > 1 else 0.0
    return (1.0 / scale) if scale else size / out


def _linear_taps(size, out, align_corners, scale, dtype, device):
    s = _linear_scale(size, out, align_corners, scale)
    dst = _positions(out, dtype, device)
    src = dst * s if align_corners else (((dst + 0.5) * s) - 0.5).clamp(min=0)
    i0 = src.floor()
    lam1 = (src - i0).clamp(max=1)
    i0 = i0.to(_dt.int64).clamp(max=size - 1)
    i1 = (i0 + 1).clamp(max=size - 1)
    return stack([i0, i1], 1), stack([1 - lam1, lam1], 1)


def _cubic_taps(size, out, align_corners, scale, dtype, device):
    s = _linear_scale(size, out, align_corners, scale)
    dst = _positions(out, dtype, device)
    src = dst * s if align_corners else ((dst + 0.5) * s) - 0.5      # no clamp for cubic
    i = src.floor()
    t = src - i
    a = _CUBIC_A

    def near(x):       # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):        # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a

    weights = stack([far(t + 1), near(t), near(1 - t), far(2 - t)], 1)
    base = i.to(_dt.int64)
    index = stack([(base + k).clamp(0, size - 1) for k in (-1, 0, 1, 2)], 1)
    return index, weights


def _size_list(value, n, what):
    if isinstance(value, (list, tuple)):
        if len(value) != n:
            return None
        return list(value)
    return [value] * n


def interpolate(input, size=None, scale_factor=None, mode="nearest", align_corners=None,
                recompute_scale_factor=None, antialias=False):
    """Resize ``(N, C, *spatial)`` to ``size`` or by ``scale_factor`` (PyTorch's rules).

    Modes: ``'nearest'``, ``'nearest-exact'``, ``'linear'`` (3-D input),
    ``'bilinear'``/``'bicubic'`` (4-D), ``'trilinear'`` (5-D) and ``'area'``.
    ``align_corners`` (interpolating modes only) maps the corner pixels' centres onto
    each other; otherwise pixels are areas and the source of output ``o`` is
    ``(o + 0.5) * in / out - 0.5``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[[1.0, 2.0]]])
    >>> F.interpolate(x, scale_factor=2).tolist()
    [[[1.0, 1.0, 2.0, 2.0]]]
    >>> F.interpolate(x, size=4, mode="linear").tolist()
    [[[1.0, 1.25, 1.75, 2.0]]]
    >>> F.interpolate(x, size=3, mode="linear", align_corners=True).tolist()
    [[[1.0, 1.5, 2.0]]]
    """
    if not isinstance(input, TensorBase):
        raise TypeError(f"interpolate(): argument 'input' must be Tensor, not "
                        f"{type(input).__name__}")
    n = input.dim() - 2
    if mode in ("nearest", "area", "nearest-exact"):
        if align_corners is not None:
            raise ValueError("align_corners option can only be set with the interpolating modes: "
                             "linear | bilinear | bicubic | trilinear")
    elif align_corners is None:
        align_corners = False
    if antialias:
        raise NotImplementedError("interpolate(): antialias=True is not supported by cygrad")
    if mode not in _MODES or n not in (1, 2, 3):
        raise NotImplementedError(f"Input Error: Only 3D, 4D and 5D input Tensors supported (got "
                                  f"{input.dim()}D) for the modes: nearest | linear | bilinear | "
                                  f"bicubic | trilinear | lanczos | area | nearest-exact "
                                  f"(got {mode})")
    if mode in _DIMS and _DIMS[mode] != n:
        raise NotImplementedError(f"Got {input.dim()}D input, but {mode} mode needs "
                                  f"{_DIMS[mode] + 2}D input")
    spatial = list(input.shape[2:])
    if size is not None and scale_factor is not None:
        raise ValueError("only one of size or scale_factor should be defined")
    if size is not None:
        sizes = _size_list(size, n, "size")
        if sizes is None:
            raise ValueError(f"Input and output must have the same number of spatial dimensions, "
                             f"but got input with spatial dimensions of {spatial} and output size "
                             f"of {size}. Please provide input tensor in (N, C, d1, d2, ...,dK) "
                             f"format and output size in (o1, o2, ...,oK) format.")
        sizes = [int(s) for s in sizes]
        scales = [None] * n
    elif scale_factor is not None:
        scales = _size_list(scale_factor, n, "scale_factor")
        if scales is None:
            raise ValueError(f"Input and scale_factor must have the same number of spatial "
                             f"dimensions, but got input with spatial dimensions of {spatial} "
                             f"and scale_factor of shape {scale_factor}. Please provide input "
                             f"tensor in (N, C, d1, d2, ...,dK) format and scale_factor in "
                             f"(s1, s2, ...,sK) format.")
        scales = [float(s) for s in scales]
        sizes = [int(math.floor(float(s * f))) for s, f in zip(spatial, scales)]
        if recompute_scale_factor:
            scales = [None] * n
    else:
        raise ValueError("either size or scale_factor should be defined")
    if any(s <= 0 for s in sizes):
        raise RuntimeError(f"Input and output sizes should be greater than 0, but got input "
                           f"({', '.join(map(str, spatial))}) and output "
                           f"({', '.join(map(str, sizes))})")
    if mode == "area":
        pool = {1: adaptive_avg_pool1d, 2: adaptive_avg_pool2d, 3: adaptive_avg_pool3d}[n]
        return pool(input, sizes if n > 1 else sizes[0])
    if not input.dtype.is_floating_point and mode != "nearest":
        raise NotImplementedError(f"\"upsample_{mode}\" not implemented for "
                                  f"'{input.dtype.name}'")
    dtype = input.dtype if input.dtype.is_floating_point else _dt.float32
    device = input.device
    taps = []
    for size_i, out_i, scale_i in zip(spatial, sizes, scales):
        if mode in ("nearest", "nearest-exact"):
            if size_i == out_i:
                taps.append(None)
                continue
            exact = mode == "nearest-exact"
            taps.append(_nearest_taps(size_i, out_i, scale_i, exact, dtype, device))
        elif mode == "bicubic":
            taps.append(_cubic_taps(size_i, out_i, align_corners, scale_i, dtype, device))
        else:
            taps.append(_linear_taps(size_i, out_i, align_corners, scale_i, dtype, device))
    node = _NODE[mode].format(n)
    return taps_function(node).apply(input, taps)


def upsample(input, size=None, scale_factor=None, mode="nearest", align_corners=None):
    """Deprecated alias of :func:`interpolate` (as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.upsample(cygrad.ones(1, 1, 2), scale_factor=2).shape
    cygrad.Size([1, 1, 4])
    """
    return interpolate(input, size, scale_factor, mode, align_corners)


def upsample_nearest(input, size=None, scale_factor=None):
    """``interpolate(..., mode='nearest')``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.upsample_nearest(cygrad.ones(1, 1, 2, 2), scale_factor=2).shape
    cygrad.Size([1, 1, 4, 4])
    """
    return interpolate(input, size, scale_factor, mode="nearest")


def upsample_bilinear(input, size=None, scale_factor=None):
    """``interpolate(..., mode='bilinear', align_corners=True)`` (PyTorch's legacy choice).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> F.upsample_bilinear(cygrad.ones(1, 1, 2, 2), size=3).shape
    cygrad.Size([1, 1, 3, 3])
    """
    return interpolate(input, size, scale_factor, mode="bilinear", align_corners=True)
