"""Draw how a tensor view maps onto its storage: ``cygrad.viz.strides(t)``.

A tensor is a flat storage plus ``(shape, strides, offset)``: element ``idx`` lives
in storage cell ``offset + sum(idx[d] * strides[d])``. The picture has three parts:

* the **storage row**: every cell of the storage, the ones this view reads
  highlighted, the offset cell outlined in red;
* the **view**: one cell per element, showing its value, its index and the
  storage cell it reads (``s=k``); 0-d and 1-d tensors are one row, 2-d a grid,
  3-d and more a row of 2-d slices;
* a **caption**: shape, strides, offset, contiguity and the storage size.

Every number comes from the tensor itself (``shape``, ``stride()``,
``storage_offset()`` and its storage), so transposes, slices with steps,
stride-0 ``expand`` views and negative strides are drawn as they really are.
"""
from dataclasses import dataclass

import numpy as np

from . import _mpl

__all__ = ["strides", "strides_layout", "StridesLayout"]

# Drawing more cells than this makes an unreadable picture.
MAX_ELEMENTS = 256
MAX_STORAGE = 48
CELL = 0.86      # drawn cell size; cells sit 1.0 apart in the storage row
GAP = 1.3        # distance between view cells


@dataclass(frozen=True)
class StridesLayout:
    """Where every element of a view lives in its storage (what :func:`strides` draws).

    Attributes
    ----------
    shape, strides : tuple of int
        The view's shape and strides (in elements).
    offset : int
        ``storage_offset()``.
    storage_size : int
        Number of elements in the whole storage.
    indices : numpy.ndarray
        Integer array of ``shape``: the storage cell each element reads.
    touched : tuple of int
        The distinct storage cells the view reads, ascending.
    contiguous : bool
        ``is_contiguous()``.
    storage_values : tuple
        The storage's elements, as Python scalars.
    view_values : tuple
        The view's elements in row-major order, as Python scalars.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.viz import strides_layout
    >>> lay = strides_layout(cygrad.arange(6.0).view(2, 3).t())
    >>> lay.strides, lay.indices.tolist()
    ((1, 3), [[0, 3], [1, 4], [2, 5]])
    """
    shape: tuple
    strides: tuple
    offset: int
    storage_size: int
    indices: np.ndarray
    touched: tuple
    contiguous: bool
    storage_values: tuple
    view_values: tuple
    dtype: str

    def caption(self, wrap=False):
        """One line of text: shape, strides, offset, contiguity, storage size
        (two lines, the geometry first, with ``wrap=True``).

        Examples
        --------
        >>> import cygrad
        >>> print(cygrad.viz.strides_layout(cygrad.zeros(2, 3)).caption())
        shape (2, 3)   strides (3, 1)   offset 0   contiguous   storage: 6 x float32
        """
        cont = "contiguous" if self.contiguous else "not contiguous"
        return (f"shape {self.shape}   strides {self.strides}   offset {self.offset}"
                + ("\n" if wrap else "   ")
                + f"{cont}   storage: {self.storage_size} x {self.dtype}")


def _check_tensor(t):
    from .._core.tensor import TensorBase
    if not isinstance(t, TensorBase):
        raise TypeError(f"expected a Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise RuntimeError("cygrad.viz.strides() reads the storage on the CPU: call .cpu() first")


def strides_layout(t):
    """Compute, without drawing, which storage cell each element of ``t`` reads.

    Parameters
    ----------
    t : Tensor
        Any CPU tensor (a view or not).

    Returns
    -------
    StridesLayout

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.arange(6.0)
    >>> lay = cygrad.viz.strides_layout(x.view(2, 3)[:, ::-1])
    >>> lay.offset, lay.strides, lay.indices.tolist()
    (2, (3, -1), [[2, 1, 0], [5, 4, 3]])
    """
    _check_tensor(t)
    shape = tuple(t.shape)
    st = tuple(t.stride())
    offset = t.storage_offset()
    size = t.untyped_storage().size() // t.element_size()
    # offset + sum_d i_d * stride_d, over the whole index grid at once
    idx = np.full(shape, offset, dtype=np.int64)
    for d, (n, s) in enumerate(zip(shape, st)):
        axis = np.arange(n, dtype=np.int64) * s
        idx = idx + axis.reshape((n,) + (1,) * (len(shape) - d - 1))
    flat = t.detach().as_strided((size,), (1,), 0)
    return StridesLayout(shape=shape, strides=st, offset=offset, storage_size=size,
                         indices=idx, touched=tuple(sorted(set(idx.ravel().tolist()))),
                         contiguous=t.is_contiguous(), storage_values=tuple(flat.tolist()),
                         view_values=tuple(t.detach().reshape(-1).tolist()),
                         dtype=t.dtype.name if hasattr(t.dtype, "name") else str(t.dtype))


def _storage_window(lay):
    """The storage cells to draw: all of them, or the touched range when it is long."""
    if lay.storage_size <= MAX_STORAGE:
        return 0, lay.storage_size
    if not lay.touched:
        return 0, 0
    lo, hi = max(0, lay.touched[0] - 1), min(lay.storage_size, lay.touched[-1] + 2)
    if hi - lo > MAX_STORAGE:
        raise ValueError(f"the view spans {hi - lo} storage cells; cygrad.viz.strides() draws "
                         f"at most {MAX_STORAGE}: draw a smaller view")
    return lo, hi


def _slices(shape):
    """Split an n-d shape into 2-d panels: (leading index, rows, cols)."""
    if len(shape) == 0:
        return [((), 1, 1)]
    if len(shape) == 1:
        return [((), 1, shape[0])]
    lead = shape[:-2]
    return [(i, shape[-2], shape[-1]) for i in np.ndindex(*lead)] if lead else \
        [((), shape[0], shape[1])]


def strides(t, path=None, name="t", arrows=None, ax=None):
    """Draw ``t``'s storage, its view of it, and its shape/strides/offset.

    Parameters
    ----------
    t : Tensor
        A CPU tensor of at most 256 elements whose storage (or the part of it the
        view spans) is at most 48 elements.
    path : str or os.PathLike, optional
        Save the figure there; ``.png``, ``.svg`` or ``.pdf`` by extension.
    name : str
        The tensor's name in the title, e.g. ``"x.t()"``.
    arrows : bool, optional
        Draw an arrow from every element to its storage cell. Default: when the
        tensor has at most 24 elements.
    ax : matplotlib.axes.Axes, optional
        Draw into this axes (to combine several views in one figure).

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    ValueError
        If the tensor or its storage span is too large to draw legibly.

    Examples
    --------
    >>> import cygrad
    >>> fig = cygrad.viz.strides(cygrad.arange(6.0).view(2, 3).t(), name="a.t()")
    >>> fig.axes[0].get_title()
    'a.t()'
    """
    lay = strides_layout(t)
    numel = int(np.prod(lay.shape, dtype=np.int64))
    if numel > MAX_ELEMENTS:
        raise ValueError(f"cygrad.viz.strides() draws at most {MAX_ELEMENTS} elements; "
                         f"this tensor has {numel}: draw a slice of it")
    lo, hi = _storage_window(lay)
    if arrows is None:
        arrows = numel <= 24
    panels = _slices(lay.shape)
    panel_w = [GAP * (c - 1) + CELL for _, _, c in panels]
    rows = max(r for _, r, _ in panels)
    view_w = sum(panel_w) + GAP * (len(panels) - 1)
    width = max(view_w, hi - lo)
    store_x0 = (width - (hi - lo)) / 2 - lo       # x of storage cell k is store_x0 + k
    grid_bottom = 2.4 if arrows else 1.7
    grid_top = grid_bottom + GAP * (rows - 1)
    panel_title = len(lay.shape) >= 3

    if ax is None:
        fig = _mpl.new_figure(min(max(4.0, 0.62 * width + 2.4), 22),
                              min(max(2.5, 0.62 * (grid_top + 3.6) + 0.4), 16))
        ax = fig.add_subplot()
    else:
        fig = ax.figure
    from matplotlib.patches import FancyArrowPatch, Rectangle

    def box(x, y, face, edge="black", lw=1.2, ls="-"):
        ax.add_patch(Rectangle((x - CELL / 2, y - CELL / 2), CELL, CELL, facecolor=face,
                               edgecolor=edge, lw=lw, ls=ls, zorder=3))

    # storage row
    touched = set(lay.touched)
    for k in range(lo, hi):
        x = store_x0 + k
        box(x, 0, _mpl.TOUCHED if k in touched else _mpl.UNTOUCHED)
        ax.text(x, 0, _mpl.fmt_value(lay.storage_values[k]), ha="center", va="center",
                fontsize=11, zorder=4)
        ax.text(x, -0.68, str(k), ha="center", va="center", fontsize=8, color="#555555")
    if lo <= lay.offset < hi and numel:
        x = store_x0 + lay.offset
        ax.add_patch(Rectangle((x - CELL / 2 - 0.06, -CELL / 2 - 0.06), CELL + 0.12,
                               CELL + 0.12, fill=False, edgecolor=_mpl.HIGHLIGHT, lw=2.4,
                               zorder=5))
        ax.text(x, -1.05, "offset", ha="center", va="center", fontsize=8,
                color=_mpl.HIGHLIGHT)
    left = min(store_x0 + lo, 0) - 0.7
    ax.text(left, 0, "storage", ha="right", va="center", fontsize=10, style="italic")
    ax.text(left, -0.68, "index", ha="right", va="center", fontsize=8, color="#555555")
    if lo > 0:
        ax.text(store_x0 + lo - 0.75, 0, "…", ha="center", va="center", fontsize=12)
    if hi < lay.storage_size:
        ax.text(store_x0 + hi - 0.25, 0, "…", ha="center", va="center", fontsize=12)

    # the view, panel by panel
    values = np.array(lay.view_values, dtype=object).reshape(lay.shape) if numel else None
    x_start = (width - view_w) / 2
    for (lead, nrows, ncols), w in zip(panels, panel_w):
        if panel_title:
            ax.text(x_start + w / 2, grid_top + 0.75,
                    "[" + ", ".join(map(str, lead)) + ", :, :]", ha="center",
                    va="bottom", fontsize=9, family="monospace")
        for r in range(nrows):
            for c in range(ncols):
                if len(lay.shape) == 0:
                    idx = ()
                elif len(lay.shape) == 1:
                    idx = (c,)
                else:
                    idx = tuple(lead) + (r, c)
                k = int(lay.indices[idx])
                x, y = x_start + GAP * c, grid_top - GAP * r
                color = _mpl.COLORS[r % len(_mpl.COLORS)]
                box(x, y, "white", edge=color, lw=2)
                ax.text(x, y + 0.05, _mpl.fmt_value(values[idx]), ha="center",
                        va="center", fontsize=11, zorder=4)
                ax.text(x, y + 0.31, "[" + ",".join(map(str, idx)) + "]", ha="center",
                        va="center", fontsize=6, color="#666666", zorder=4)
                ax.text(x, y - 0.3, f"s={k}", ha="center", va="center", fontsize=7,
                        color=color, zorder=4)
                if arrows and lo <= k < hi:
                    ax.add_patch(FancyArrowPatch(
                        (x, y - CELL / 2), (store_x0 + k, CELL / 2), arrowstyle="-|>",
                        mutation_scale=10, color=color, lw=1.1, alpha=0.7, zorder=1,
                        shrinkA=0, shrinkB=1))
        x_start += w + GAP

    ax.set_title(name, fontsize=12, family="monospace")
    # a 9-point monospace character is about 0.17 cell wide at this scale
    caption = lay.caption(wrap=len(lay.caption()) * 0.17 > width + 3)
    ax.text(width / 2 - 0.5, -1.6, caption, ha="center", va="top", fontsize=9,
            family="monospace", linespacing=1.5)
    ax.set_xlim(left - 1.6, width + 0.2)
    ax.set_ylim(-2.1 - 0.45 * caption.count("\n"), grid_top + (1.3 if panel_title else 0.7))
    ax.set_aspect("equal")
    ax.axis("off")
    _mpl.save(fig, path)
    return fig
