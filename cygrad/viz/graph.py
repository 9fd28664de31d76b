"""Render the backward graph through the ``graphviz`` package: ``cygrad.viz.graph``.

The graph's DOT text comes from :mod:`cygrad.autograd.graph` (which needs nothing);
this module hands it to the `graphviz <https://graphviz.readthedocs.io>`_ Python
package, which runs Graphviz's ``dot`` program to make SVG or PNG and shows
inline in Jupyter. Without the package or the program, it falls back to the
ASCII tree of :func:`cygrad.autograd.graph.to_text`.
"""
import os
import warnings

from ..autograd import graph as _graph

__all__ = ["graph", "graphviz_available"]

_TEXT_EXT = {".txt": "text", ".dot": "dot", ".gv": "dot"}


def graphviz_available():
    """Why the graphviz route cannot be used: None when it can, else the reason.

    Returns
    -------
    str or None
        None if the ``graphviz`` package imports and Graphviz's ``dot`` program runs.

    Examples
    --------
    >>> from cygrad.viz import graphviz_available
    >>> graphviz_available() is None or "graphviz" in graphviz_available().lower()
    True
    """
    try:
        import graphviz
    except ImportError:
        return ('the graphviz Python package is not installed: pip install "cygrad[viz]" '
                "(or pip install graphviz)")
    try:
        graphviz.version()
    except (graphviz.ExecutableNotFound, OSError, RuntimeError):
        return ("Graphviz's dot program is not installed (Debian/Ubuntu: apt-get install "
                "graphviz; macOS: brew install graphviz; conda: conda install graphviz)")
    return None


def graph(tensor_or_grad_fn, path=None, format=None, params=None, show_saved=True):
    """Draw the backward graph of a tensor (or starting at a ``grad_fn`` node).

    Parameters
    ----------
    tensor_or_grad_fn : Tensor, sequence of Tensor, or grad_fn node
        Where the graph starts (the output the gradient flows back from).
    path : str or os.PathLike, optional
        Write the picture there. The format comes from ``format``, else from the
        extension (``.svg``, ``.png``, ``.pdf``...); a path without extension gets
        ``.svg``. ``.dot``/``.gv`` write the DOT text and ``.txt`` the ASCII tree;
        neither needs Graphviz.
    format : str, optional
        Output format for ``dot`` (overrides the extension).
    params : mapping of str to Tensor, optional
        Names for leaves, e.g. ``dict(model.named_parameters())``.
    show_saved : bool
        Show each node's saved tensors (or that backward freed them).

    Returns
    -------
    graphviz.Source or str
        The graph as a ``graphviz.Source`` (displays as SVG in Jupyter; ``.source``
        is the DOT text). When the ``graphviz`` package or the ``dot`` program is
        missing: the ASCII tree as a ``str``, with a warning saying what to install.

    Raises
    ------
    ImportError, RuntimeError
        If ``path`` asks for an image and the ``graphviz`` package (ImportError) or
        the ``dot`` program (RuntimeError) is missing.

    Examples
    --------
    >>> import cygrad, warnings
    >>> x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    >>> y = (x * 2).sum()
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     g = cygrad.viz.graph(y, params={"x": x})
    >>> "SumBackward0" in (g if isinstance(g, str) else g.source)
    True
    """
    dot = _graph.to_dot(tensor_or_grad_fn, params=params, show_saved=show_saved)
    target, fmt = _target(path, format)
    if fmt in ("text", "dot"):
        text = dot if fmt == "dot" else _graph.to_text(tensor_or_grad_fn, params=params,
                                                      show_saved=show_saved)
        with open(target, "w", encoding="utf-8") as f:
            f.write(text if text.endswith("\n") else text + "\n")
    reason = graphviz_available()
    if reason is not None and fmt in ("text", "dot"):     # nothing missing was asked for
        return _graph.to_text(tensor_or_grad_fn, params=params, show_saved=show_saved)
    if reason is not None:
        if target is not None:
            exc = ImportError if "package" in reason else RuntimeError
            raise exc(f"cygrad.viz.graph() cannot write {os.fspath(target)!r}: {reason}. "
                      "A .dot or .txt path works without it.")
        warnings.warn(f"cygrad.viz.graph(): {reason}; returning the graph as text",
                      stacklevel=2)
        return _graph.to_text(tensor_or_grad_fn, params=params, show_saved=show_saved)
    import graphviz
    src = graphviz.Source(dot)
    if target is not None and fmt not in ("text", "dot"):
        data = src.pipe(format=fmt)
        with open(target, "wb") as f:
            f.write(data)
    return src


def _target(path, format):
    """The file to write and its format, from ``path`` and ``format``."""
    if path is None:
        return None, None
    path = os.fspath(path)
    ext = os.path.splitext(path)[1].lower()
    if format is None:
        if ext in _TEXT_EXT:
            return path, _TEXT_EXT[ext]
        format = ext[1:] if ext else "svg"
    if not str(format).isalnum():
        raise ValueError(f"cygrad.viz.graph(): invalid format {format!r}")
    if not ext:
        path = f"{path}.{format}"
    return path, str(format).lower()
