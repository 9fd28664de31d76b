"""``affine_grid`` and ``grid_sample``: spatial transformers.

``affine_grid`` is one batched matrix product of a fixed base grid with
``theta``. ``grid_sample`` turns the grid's [-1, 1] coordinates into input
positions (with PyTorch's ``align_corners`` and ``padding_mode`` rules), then
reads the 2 (bilinear), 1 (nearest) or 4 (bicubic) neighbours along each spatial dim with
``gather`` on the flattened input and weights them. Everything is composed from
differentiable ops: the input's gradient is ``gather``'s scatter-add, the grid's
flows through the corner weights (and through the reflections and clamps of the
padding modes), and the integer corner positions are computed without history.
"""
import warnings
from itertools import product

from ..._core import dtype as _dt
from ...autograd.grad_mode import no_grad
from ...ops.creation import linspace, ones
from ...ops.shape import stack

__all__ = ["affine_grid", "grid_sample"]

_ALIGN_WARNING = ("Default grid_sample and affine_grid behavior has changed to "
                  "align_corners=False since 1.3.0. Please specify align_corners=True if the "
                  "old behavior is desired. See the documentation of grid_sample for details.")


def _align(align_corners):
    if align_corners is None:
        warnings.warn(_ALIGN_WARNING, UserWarning, stacklevel=3)
        return False
    return bool(align_corners)


def _base_coords(n, align_corners, dtype, device):
    """The [-1, 1] coordinates of ``n`` pixel centres (or corners with ``align_corners``)."""
    if n == 1:       # PyTorch puts a lone pixel at 0 either way
        return linspace(0.0, 0.0, 1, dtype=dtype, device=device)
    c = linspace(-1.0, 1.0, n, dtype=dtype, device=device)
    return c if align_corners else c * ((n - 1) / n)


def affine_grid(theta, size, align_corners=None):
    """The sampling grid of a batch of affine maps, as ``torch.nn.functional.affine_grid``.

    ``theta`` is ``(N, 2, 3)`` for ``size = (N, C, H, W)`` (the grid is
    ``(N, H, W, 2)``, last dim ``(x, y)``) or ``(N, 3, 4)`` for ``size = (N, C, D, H,
    W)`` (grid ``(N, D, H, W, 3)``). Each output position's normalised coordinates,
    with a 1 appended, are multiplied by ``theta``. ``align_corners`` as in
    :func:`grid_sample` (``None`` means ``False``, with PyTorch's warning).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> theta = cygrad.tensor([[[1.0, 0.0, 0.0], [0.0, 1.0, 0.0]]])
    >>> F.affine_grid(theta, [1, 1, 2, 2], align_corners=True).tolist()
    [[[[-1.0, -1.0], [1.0, -1.0]], [[-1.0, 1.0], [1.0, 1.0]]]]
    """
    align_corners = _align(align_corners)
    if not theta.dtype.is_floating_point:
        raise ValueError(f"Expected theta to have floating point type, but got {theta.dtype}")
    size = [int(s) for s in size]
    if len(size) not in (4, 5):
        raise NotImplementedError(
            "affine_grid only supports 4D and 5D sizes, for 2D and 3D affine transforms, "
            f"respectively. Got size {size}.")
    k = len(size) - 2
    if theta.dim() != 3 or tuple(theta.shape[1:]) != (k, k + 1):
        raise ValueError(f"Expected a batch of {k}D affine matrices of shape Nx{k}x{k + 1} for "
                         f"size {size}. Got {theta.shape}.")
    if theta.size(0) != size[0]:
        raise RuntimeError(f"Expected size for first two dimensions of batch2 tensor to be: "
                           f"[{size[0]}, {k + 1}] but got: [{theta.size(0)}, {k + 1}].")
    if min(size[2:]) <= 0:
        raise ValueError(f"Expected non-zero, positive output size. Got {size}")
    spatial = size[2:]
    if align_corners and min(spatial) == 1:
        warnings.warn("Since version 1.3.0, affine_grid behavior has changed for unit-size grids "
                      "when align_corners=True. This is not an intended use case of affine_grid. "
                      "See the documentation of affine_grid for details.", UserWarning,
                      stacklevel=2)
    with no_grad():
        # x varies along the last spatial dim, y (and z) along the ones before it
        axes = [_base_coords(n, align_corners, theta.dtype, theta.device) for n in spatial]
        points = 1
        for n in spatial:
            points *= n
        cols = []
        for j in range(k):                   # column j holds coordinate j (x, y, z)
            d = k - 1 - j                     # ... which varies along spatial dim d
            view = [1] * k
            view[d] = spatial[d]
            cols.append(axes[d].reshape(view).expand(spatial).reshape(points))
        cols.append(ones(points, dtype=theta.dtype, device=theta.device))
        base = stack(cols, 1)                 # (points, k + 1)
    grid = base.unsqueeze(0).matmul(theta.transpose(1, 2))
    return grid.reshape([size[0]] + spatial + [k])


def _unnormalize(coord, n, align_corners):
    if align_corners:
        return (coord + 1) * ((n - 1) / 2)
    return ((coord + 1) * n - 1) / 2


def _reflect(coord, twice_low, twice_high):
    """Fold ``coord`` back into ``[twice_low / 2, twice_high / 2]`` by reflections."""
    if twice_low == twice_high:
        return coord * 0
    low, span = twice_low / 2, (twice_high - twice_low) / 2
    dist = (coord - low).abs()
    with no_grad():
        flips = (dist / span).floor()
        even = flips.remainder(2).eq(0)
    extra = dist - flips * span
    return (extra + low).where(even, span - extra + low)


def _pad(x, n, padding_mode, align_corners):
    """Input position ``x`` along a dim of size ``n`` moved inside by ``padding_mode``
    (``zeros`` leaves it: out-of-range reads give 0)."""
    if padding_mode == "border":
        x = x.clamp(0, n - 1)
    elif padding_mode == "reflection":
        x = _reflect(x, 0, 2 * (n - 1)) if align_corners else _reflect(x, -1, 2 * n - 1)
        x = x.clamp(0, n - 1)
    return x


_CUBIC_A = -0.75     # PyTorch's (and OpenCV's) cubic convolution coefficient


def _cubic_weights(t):
    """Weights of the taps at -1, 0, 1, 2 for a point at fraction ``t`` past tap 0."""
    a = _CUBIC_A

    def near(x):                  # |x| <= 1
        return ((a + 2) * x - (a + 3)) * x * x + 1

    def far(x):                   # 1 < |x| < 2
        return ((a * x - 5 * a) * x + 8 * a) * x - 4 * a
    return [far(t + 1), near(t), near(1 - t), far(2 - t)]


def _check_grid_sample(input, grid, mode, padding_mode):
    if mode not in ("bilinear", "nearest", "bicubic"):
        raise ValueError("nn.functional.grid_sample(): expected mode to be 'bilinear', "
                         f"'nearest' or 'bicubic', but got: '{mode}'")
    if padding_mode not in ("zeros", "border", "reflection"):
        raise ValueError("nn.functional.grid_sample(): expected padding_mode to be 'zeros', "
                         f"'border', or 'reflection', but got: '{padding_mode}'")
    if input.dim() != grid.dim() or input.dim() not in (4, 5) or input.size(0) != grid.size(0):
        if input.dim() in (4, 5) and input.dim() == grid.dim():
            raise RuntimeError(
                "grid_sampler(): expected grid and input to have same batch size, but got "
                f"input with sizes {list(input.shape)} and grid with sizes {list(grid.shape)}")
        raise RuntimeError(
            "grid_sampler(): expected 4D or 5D input and grid with same number of dimensions, "
            f"but got input with sizes {list(input.shape)} and grid with sizes "
            f"{list(grid.shape)}")
    k = input.dim() - 2
    if grid.size(-1) != k:
        raise RuntimeError(f"grid_sampler(): expected grid to have size {k} in last dimension, "
                           f"but got grid with sizes {list(grid.shape)}")
    if input.dtype != grid.dtype:
        raise RuntimeError(f"grid_sampler(): expected input and grid to have the same dtype, "
                           f"but got input {input.dtype} and grid {grid.dtype}")
    if mode == "bicubic" and k != 2:
        raise RuntimeError("grid_sampler(): bicubic interpolation only supports 4D input")
    if not input.dtype.is_floating_point:
        raise RuntimeError(f"grid_sampler(): expected a floating input, got {input.dtype}")


def grid_sample(input, grid, mode="bilinear", padding_mode="zeros", align_corners=None):
    """Sample ``input`` at the normalised positions in ``grid``, as
    ``torch.nn.functional.grid_sample``.

    ``input`` is ``(N, C, H, W)`` with ``grid`` ``(N, H_out, W_out, 2)``, or
    ``(N, C, D, H, W)`` with ``grid`` ``(N, D_out, H_out, W_out, 3)``; the grid's
    last dim is ``(x, y[, z])`` in [-1, 1], x along the input's width. ``mode`` is
    ``"bilinear"`` (trilinear for 5-D), ``"nearest"`` or ``"bicubic"`` (4-D only; 4
    taps per dim, PyTorch's cubic convolution with a = -0.75). ``padding_mode`` says what is read outside the input: ``"zeros"``,
    ``"border"`` (the nearest edge value) or ``"reflection"``. With
    ``align_corners=True`` -1 and 1 are the centres of the corner pixels, otherwise
    their outer edges (``None`` means ``False``, with PyTorch's warning). The
    result is ``(N, C, H_out, W_out)`` (or ``(N, C, D_out, H_out, W_out)``),
    differentiable with respect to ``input`` and ``grid``.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> x = cygrad.tensor([[[[0.0, 10.0]]]])
    >>> F.grid_sample(x, cygrad.tensor([[[[0.0, 0.0]]]]), align_corners=True).tolist()
    [[[[5.0]]]]
    """
    align_corners = _align(align_corners)
    _check_grid_sample(input, grid, mode, padding_mode)
    n, c = input.size(0), input.size(1)
    spatial = list(input.shape[2:])
    k = len(spatial)
    out_spatial = list(grid.shape[1:-1])
    points = 1
    for s in out_spatial:
        points *= s
    g = grid.reshape(n, points, k)
    # source position along spatial dim d (grid coordinate k - 1 - d)
    raw = [_unnormalize(g.select(2, k - 1 - d), spatial[d], align_corners) for d in range(k)]
    flat = input.reshape(n, c, -1)
    strides = [1] * k
    for d in range(k - 2, -1, -1):
        strides[d] = strides[d + 1] * spatial[d + 1]
    if mode == "bicubic":
        # PyTorch pads each of the 4 taps' positions, not the sampled coordinate
        taps = []
        for d, x in enumerate(raw):
            with no_grad():
                lo = x.floor()
                pos = [_pad(lo + (i - 1), spatial[d], padding_mode, align_corners)
                       for i in range(4)]
            taps.append(list(zip(pos, _cubic_weights(x - lo))))
    else:
        src = [_pad(x, spatial[d], padding_mode, align_corners) for d, x in enumerate(raw)]
        if mode == "nearest":
            with no_grad():
                taps = [[(s.round(), None)] for s in src]
        else:
            taps = []
            for s in src:
                with no_grad():
                    lo = s.floor()
                frac = s - lo
                taps.append([(lo, 1 - frac), (lo + 1, frac)])
    out = None
    for corner in product(*taps):
        with no_grad():
            valid = None
            index = None
            for d, (pos, _) in enumerate(corner):
                inside = pos.ge(0).logical_and(pos.le(spatial[d] - 1))
                valid = inside if valid is None else valid.logical_and(inside)
                part = pos.clamp(0, spatial[d] - 1).to(_dt.int64) * strides[d]
                index = part if index is None else index + part
        vals = flat.gather(2, index.unsqueeze(1).expand(n, c, points))
        weight = valid.to(input.dtype)
        for _, w in corner:
            if w is not None:
                weight = weight * w
        term = vals * weight.unsqueeze(1)
        out = term if out is None else out + term
    if mode == "nearest" and grid.requires_grad:
        # PyTorch gives the grid a zero gradient (not none) for nearest sampling; rounding
        # has a zero derivative, and nan_to_num keeps inf coordinates from making 0 * inf
        out = out + raw[0].round().mul(0).nan_to_num(0.0).unsqueeze(1)
    return out.reshape([n, c] + out_spatial)
