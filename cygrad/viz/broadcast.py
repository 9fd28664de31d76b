"""Draw how two shapes broadcast: ``cygrad.viz.broadcast(a, b)``.

Broadcasting lines the shapes up on the right; a missing dim counts as size 1,
and a size-1 dim is stretched to the other operand's size by giving it stride 0
(``expand``), so no data is copied. The picture shows both shapes right-aligned,
marks each stretched dim with the stride it gets (0), and shows the result shape.
"""
import numbers
import operator
from dataclasses import dataclass

from . import _mpl

__all__ = ["broadcast", "broadcast_layout", "BroadcastLayout"]


@dataclass(frozen=True)
class BroadcastLayout:
    """How two shapes line up (what :func:`broadcast` draws).

    Attributes
    ----------
    shapes : tuple of tuple
        Each operand's shape, left-padded with ``None`` for the dims it lacks.
    result : tuple of int
        The broadcast shape.
    stretched : tuple of tuple of bool
        Per operand and dim: True where the operand is expanded along that dim
        (a size-1 or missing dim against a larger size), i.e. reads it with stride 0.
    strides : tuple of tuple of int
        Each operand's strides after ``expand(result)`` (0 on stretched dims).

    Examples
    --------
    >>> from cygrad.viz import broadcast_layout
    >>> lay = broadcast_layout((3, 1), (4,))
    >>> lay.shapes, lay.result, lay.strides
    (((3, 1), (None, 4)), (3, 4), ((1, 0), (0, 1)))
    """
    shapes: tuple
    result: tuple
    stretched: tuple
    strides: tuple


def _shape_and_strides(x):
    """A shape and the strides it has: a tensor's own, or contiguous for a bare shape."""
    from .._core.tensor import TensorBase
    if isinstance(x, TensorBase):
        return tuple(x.shape), tuple(x.stride())
    if isinstance(x, numbers.Integral):
        x = (x,)
    try:
        if isinstance(x, (str, bytes)):
            raise TypeError
        shape = tuple(operator.index(s) for s in x)
    except TypeError:
        raise TypeError(f"expected a Tensor or a shape, got {type(x).__name__}") from None
    strides, step = [], 1
    for n in reversed(shape):
        strides.insert(0, step)
        step *= max(n, 1)
    return shape, tuple(strides)


def broadcast_layout(a, b):
    """Line up two shapes (or tensors) as broadcasting does, without drawing.

    Parameters
    ----------
    a, b : Tensor or sequence of int
        A tensor's strides are its own; a bare shape gets contiguous strides.

    Returns
    -------
    BroadcastLayout

    Raises
    ------
    RuntimeError
        With PyTorch's message for ``a + b`` if the shapes do not broadcast.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.viz.broadcast_layout((2, 1, 3), (5, 1)).result
    (2, 5, 3)
    """
    from ..ops.shape.broadcasting import _broadcast_pair_error
    (sa, ta), (sb, tb) = _shape_and_strides(a), _shape_and_strides(b)
    result = tuple(_broadcast_pair_error([sa, sb]))   # raises PyTorch's message
    n = len(result)
    shapes, stretched, strides = [], [], []
    for shape, st in ((sa, ta), (sb, tb)):
        pad = n - len(shape)
        full = (None,) * pad + shape
        shapes.append(full)
        fst = (0,) * pad + st
        stretched.append(tuple((s is None or s == 1) and r != 1
                               for s, r in zip(full, result)))
        # expand's rule: a new dim, or a size-1 dim, is read with stride 0
        strides.append(tuple(0 if (s is None or (s == 1 and r != 1)) else x
                             for s, r, x in zip(full, result, fst)))
    return BroadcastLayout(shapes=tuple(shapes), result=result, stretched=tuple(stretched),
                           strides=tuple(strides))


def broadcast(a, b, path=None, names=("a", "b")):
    """Draw two shapes right-aligned, the dims that get stretched, and the result.

    Parameters
    ----------
    a, b : Tensor or sequence of int
    path : str or os.PathLike, optional
        Save the figure there (``.png``, ``.svg`` or ``.pdf``).
    names : pair of str
        Row labels for ``a`` and ``b``.

    Returns
    -------
    matplotlib.figure.Figure

    Raises
    ------
    RuntimeError
        With PyTorch's message for ``a + b`` if the shapes do not broadcast.

    Examples
    --------
    >>> import cygrad
    >>> fig = cygrad.viz.broadcast(cygrad.ones(3, 1), cygrad.ones(4))
    >>> fig.axes[0].get_title()
    'broadcast (3, 1) with (4,) -> (3, 4)'
    """
    lay = broadcast_layout(a, b)
    n = len(lay.result)
    from matplotlib.patches import Rectangle
    fig = _mpl.new_figure(max(5.5, 1.25 * n + 4.2), 3.9)
    ax = fig.add_subplot()
    w, h = 1.0, 0.7
    rows = [(names[0], lay.shapes[0], lay.stretched[0], lay.strides[0]),
            (names[1], lay.shapes[1], lay.stretched[1], lay.strides[1]),
            ("result", lay.result, (False,) * n, None)]
    for r, (label, shape, stretched, st) in enumerate(rows):
        y = -r * 1.25 - (0.35 if r == 2 else 0)
        ax.text(-0.7, y, label, ha="right", va="center", fontsize=11, family="monospace")
        for d in range(n):
            x = d * 1.2
            size = shape[d]
            if size is None:          # a dim the operand does not have
                face, edge, ls, text = "white", "#9e9e9e", "--", "(1)"
            elif stretched[d]:
                face, edge, ls, text = _mpl.STRETCHED, "black", "-", "1"
            else:
                face, edge, ls = ("#c8e6c9" if r == 2 else "white"), "black", "-"
                text = str(size)
            ax.add_patch(Rectangle((x - w / 2, y - h / 2), w, h, facecolor=face,
                                   edgecolor=edge, ls=ls, lw=1.3))
            ax.text(x, y, text, ha="center", va="center", fontsize=12,
                    color="#757575" if size is None else "black")
            if stretched[d]:
                ax.text(x, y - 0.5, f"→{lay.result[d]}, stride 0", ha="center",
                        va="center", fontsize=7, color="#e65100")
        if st is not None:
            ax.text(n * 1.2 - 0.2, y, f"strides {st}", ha="left", va="center",
                    fontsize=9, color="#555555", family="monospace")
    ax.plot([-0.6, n * 1.2 - 0.6], [-2.05, -2.05], color="black", lw=1)
    for d in range(n):
        ax.text(d * 1.2, 0.6, f"dim {d}", ha="center", va="bottom", fontsize=8,
                color="#555555")
    shape_a = tuple(s for s in lay.shapes[0] if s is not None)
    shape_b = tuple(s for s in lay.shapes[1] if s is not None)
    ax.set_title(f"broadcast {shape_a} with {shape_b} -> {lay.result}", fontsize=11,
                 family="monospace")
    ax.text(-2.2, -3.75, "shapes line up on the right; a missing dim (dashed) counts as 1; "
            "an orange dim is\nstretched by expand: stride 0, every index reads the same "
            "element, nothing is copied", ha="left", va="center", fontsize=8)
    ax.set_xlim(-2.4, n * 1.2 + 3.0)
    ax.set_ylim(-4.2, 1.1)
    ax.set_aspect("equal")
    ax.axis("off")
    _mpl.save(fig, path)
    return fig
