"""matplotlib, imported only when a picture is drawn, and saving by file extension.

``import cygrad`` must not import matplotlib (it is slow to import and an optional
dependency): every drawing function calls :func:`require` first.
"""
import os

_EXTRA_HINT = 'pip install "cygrad[viz]"'

COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
TOUCHED = "#fff2cc"      # storage cells the view reads
UNTOUCHED = "#eeeeee"
STRETCHED = "#ffcc80"    # broadcast (stride-0) dims
HIGHLIGHT = "#d62728"


def require():
    """Import matplotlib, or raise an ImportError that names the extra to install.

    Examples
    --------
    >>> from cygrad.viz import _mpl
    >>> callable(_mpl.require)
    True
    """
    try:
        import matplotlib  # noqa: F401
    except ImportError as err:
        raise ImportError(f"cygrad.viz needs matplotlib to draw pictures: {_EXTRA_HINT} "
                          "(or pip install matplotlib)") from err
    from matplotlib.figure import Figure
    from matplotlib.backends.backend_agg import FigureCanvasAgg
    return Figure, FigureCanvasAgg


def new_figure(width, height):
    """A Figure not registered with pyplot (no global state, no GUI backend needed).

    Examples
    --------
    >>> from cygrad.viz._mpl import new_figure
    >>> fig = new_figure(2, 1)  # doctest: +SKIP
    """
    Figure, FigureCanvasAgg = require()
    fig = Figure(figsize=(width, height))
    FigureCanvasAgg(fig)        # lets savefig and animations render without pyplot
    return fig


def save(fig, path, dpi=110):
    """Save ``fig`` to ``path``; the format comes from the extension (.png, .svg, .pdf).

    Examples
    --------
    >>> from cygrad.viz._mpl import save
    >>> callable(save)
    True
    """
    if path is None:
        return
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if ext not in (".png", ".svg", ".pdf"):
        raise ValueError(f"cannot save a figure as {ext or 'a file without extension'!r}: "
                         "use a .png, .svg or .pdf path")
    fig.savefig(path, dpi=dpi, bbox_inches="tight", facecolor="white")


def fmt_value(v):
    """A short label for one element: integers without ``.0``, floats with 3 digits.

    Examples
    --------
    >>> fmt_value(2.0), fmt_value(0.125), fmt_value(True)
    ('2', '0.125', 'True')
    """
    if isinstance(v, bool):
        return str(v)
    if isinstance(v, float):
        if v == v and abs(v) < 1e6 and v == int(v):
            return str(int(v))
        return f"{v:.3g}"
    if isinstance(v, complex):
        return f"{v.real:.2g}{v.imag:+.2g}j"
    return str(v)
