"""Draw the backward graph of a tensor (a teaching tool).

After a forward pass, every tensor that requires grad points at the node that made
it (``tensor.grad_fn``); each node points at the nodes that made its inputs
(``node.next_functions``). That chain of nodes *is* the backward pass waiting to
run. This module turns it into a picture:

* ``to_dot(tensor)`` returns Graphviz DOT text (no dependency needed);
* ``render(tensor, "graph.svg")`` runs Graphviz's ``dot`` program on it;
* ``to_text(tensor)`` prints the same graph as an indented tree in the terminal.

Arrows go the way the engine walks: from a node to its ``next_functions``, i.e. from
the output back towards the leaves — the direction gradients flow.

Examples
--------
>>> import cygrad
>>> from cygrad.autograd import graph
>>> x = cygrad.tensor([1.0, 2.0], requires_grad=True)
>>> y = (x * x).exp()
>>> print(graph.to_text(y, params={"x": x}))
output (2,)
└── ExpBackward0 (2,)  [saved: (2,) float32 v0]
    └── MulBackward0 (2,)  [saved: (2,) float32 v0, (2,) float32 v0]
        ├── x (2,)  AccumulateGrad
        └── x (2,)  AccumulateGrad  (see above)
"""
import os
import shutil
import subprocess

from .._core import engine as _E
from .._core.tensor import TensorBase

__all__ = ["to_dot", "render", "to_text"]

# Colours: output tensor green, leaves blue, saved tensors orange.
_ROOT_STYLE = 'shape=oval, fillcolor="#c8e6c9"'
_LEAF_STYLE = 'shape=oval, fillcolor="#bbdefb"'
_SAVED_STYLE = 'shape=note, fontsize=8, fillcolor="#ffe0b2"'
_FREED_STYLE = 'shape=note, fontsize=8, fillcolor="#eeeeee", fontcolor="#757575"'


# ------------------------------------------------------------------- node information

def _shape_str(shape):
    return str(tuple(shape))


def _output_shapes(node):
    """The shapes of the tensors ``node``'s forward produced, as text."""
    if isinstance(node, _E.AccumulateGrad):
        return _shape_str(node.variable.shape)
    meta = getattr(node, "_output_meta", None)
    if not meta:
        return ""
    return " ".join(_shape_str(m[0]) if m is not None else "None" for m in meta)


def saved_info(node):
    """What ``node`` keeps for its backward: a tuple with one ``(shape, dtype, version)``
    (or None for an empty slot) per saved tensor, or None if they were already freed.

    ``version`` is the tensor's version counter at the time it was saved."""
    if getattr(node, "_saved_released", False):
        return None
    try:
        return tuple(node._saved_tensors_info)
    except AttributeError:
        pass
    # Older engines could not read their SavedTensor objects from Python: unpack the
    # saved tensors instead (same shapes and dtypes; the version is the current one,
    # which equals the saved one whenever unpacking succeeds).
    if not getattr(node, "_saved", None):
        return ()
    try:
        tensors = node.saved_tensors
    except RuntimeError:            # modified in place since it was saved
        return tuple(None if s is None else ("?", None, None) for s in node._saved)
    return tuple(None if t is None else (tuple(t.shape), t.dtype, t._version) for t in tensors)


def _saved_label(info):
    shape, dtype, version = info
    if shape == "?":
        return "modified in place"
    return f"{_shape_str(shape)} {dtype.name if dtype is not None else ''} v{version}"


def _param_names(params):
    """``id(tensor) -> name`` for a mapping (or iterable of pairs) of named tensors."""
    if params is None:
        return {}
    items = params.items() if hasattr(params, "items") else params
    return {id(t): str(name) for name, t in items}


def _roots(tensor):
    """What to draw from: one tensor, a sequence of them, or a graph node (``grad_fn``)."""
    roots = list(tensor) if isinstance(tensor, (list, tuple)) else [tensor]
    for t in roots:
        if not isinstance(t, (TensorBase, _E.Node)):
            raise TypeError("expected a Tensor or a sequence of Tensors, got "
                            f"{type(t).__name__} (a grad_fn node also works)")
    return roots


def _root_edge(root):
    """``(node, output_nr)`` where a root's gradient goes; a node is its own root."""
    return (root, 0) if isinstance(root, _E.Node) else _E._gradient_edge(root)


def _walk(tensor):
    """Breadth-first walk from ``tensor``'s node, without recursion.

    Returns ``(roots, nodes, edges)``: ``roots`` is a list of ``(tensor, node,
    output_nr)``; ``nodes`` lists the graph nodes in visit order (which fixes their
    ids); ``edges`` lists ``(node, next_node, output_nr)``."""
    roots, order, edges = [], [], []
    seen = set()
    for t in _roots(tensor):
        node, nr = _root_edge(t)
        if isinstance(t, TensorBase):     # a node given directly gets no output oval
            roots.append((t, node, nr))
        if node is not None and node not in seen:
            seen.add(node)
            order.append(node)
    i = 0
    while i < len(order):
        node = order[i]
        i += 1
        for child, nr in (node.next_functions or ()):
            if child is None:        # an input that needs no gradient
                continue
            edges.append((node, child, nr))
            if child not in seen:
                seen.add(child)
                order.append(child)
    return roots, order, edges


def _leaf_name(node, names):
    var = node.variable
    return names.get(id(var), "leaf")


# ------------------------------------------------------------------------------ DOT text

def _q(text):
    """A DOT string literal."""
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"').replace("\n", "\\n") + '"'


def to_dot(tensor, params=None, show_saved=True):
    """Graphviz DOT text of the backward graph of ``tensor``.

    Parameters
    ----------
    tensor : Tensor, sequence of Tensor, or grad_fn node
        The output(s) whose history to draw.
    params : mapping of str to Tensor, optional
        Names for leaf tensors, e.g. ``dict(model.named_parameters())``; a leaf found
        in it (by identity) is labelled with its name, other leaves with ``leaf``.
    show_saved : bool
        Draw the tensors each node saved for backward as small attached notes
        (shape, dtype, version at save time), or "freed" once backward released them.

    Returns
    -------
    str
        DOT text; node ids (``n0``, ``n1``, ...) follow a breadth-first visit from the
        output, so the same graph always gives the same text.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.graph import to_dot
    >>> w = cygrad.tensor([1.0, 2.0], requires_grad=True)
    >>> dot = to_dot(w.exp(), params={"w": w})
    >>> print(dot.splitlines()[0])
    digraph backward_graph {
    >>> "ExpBackward0" in dot and '"w\\\\n(2,)"' in dot
    True
    """
    names = _param_names(params)
    roots, order, edges = _walk(tensor)
    ids = {node: f"n{i + len(roots)}" for i, node in enumerate(order)}
    lines = ["digraph backward_graph {",
             '  graph [rankdir=TB, fontname="Helvetica"];',
             '  node [shape=box, style="filled,rounded", fillcolor=white, '
             'fontname="Helvetica", fontsize=10];',
             '  edge [fontname="Helvetica", fontsize=8];']
    for i, (t, node, nr) in enumerate(roots):
        name = names.get(id(t), "output" if len(roots) == 1 else f"output {i}")
        label = f"{name}\n{_shape_str(t.shape)}"
        if node is None:
            label += "\n(does not require grad)"
        lines.append(f"  n{i} [label={_q(label)}, {_ROOT_STYLE}];")
        if node is not None:
            lines.append(f"  n{i} -> {ids[node]}{_edge_attr(node, nr)};")
    for node in order:
        nid = ids[node]
        if isinstance(node, _E.AccumulateGrad):
            label = f"{_leaf_name(node, names)}\n{_output_shapes(node)}"
            lines.append(f"  {nid} [label={_q(label)}, {_LEAF_STYLE}, "
                         f"tooltip=\"AccumulateGrad\"];")
            continue
        label = f"{node.name()}\n{_output_shapes(node)}".rstrip()
        lines.append(f"  {nid} [label={_q(label)}];")
        if show_saved:
            lines.extend(_saved_lines(node, nid))
    for node, child, nr in edges:
        lines.append(f"  {ids[node]} -> {ids[child]}{_edge_attr(child, nr)};")
    lines.append("}")
    return "\n".join(lines) + "\n"


def _edge_attr(child, nr):
    """Label an edge with the output it carries when ``child`` made several."""
    if len(getattr(child, "_output_meta", None) or ()) > 1:
        return f" [label={_q(f'output {nr}')}]"
    return ""


def _saved_lines(node, nid):
    info = saved_info(node)
    if info is None:
        return [f"  {nid}_freed [label=\"saved tensors freed\", {_FREED_STYLE}];",
                f"  {nid} -> {nid}_freed [style=dashed, arrowhead=none];",
                f"  {{rank=same; {nid}; {nid}_freed;}}"]
    out = []
    for k, item in enumerate(info):
        if item is None:            # a slot saved as None (e.g. a Python number operand)
            continue
        label = "saved\n" + _saved_label(item)
        out.append(f"  {nid}_s{k} [label={_q(label)}, {_SAVED_STYLE}];")
        out.append(f"  {nid} -> {nid}_s{k} [style=dashed, arrowhead=none];")
    if out:     # keep the notes beside their node rather than a level below
        out.append("  {rank=same; " + nid + "; " +
                   "; ".join(f"{nid}_s{k}" for k, item in enumerate(info) if item is not None)
                   + ";}")
    return out


# ----------------------------------------------------------------------------- rendering

def render(tensor, filename, format="svg", params=None, show_saved=True):
    """Draw the backward graph of ``tensor`` into an image file with Graphviz.

    Parameters
    ----------
    tensor : Tensor, sequence of Tensor, or grad_fn node
    filename : str or os.PathLike
        Output path; ``.<format>`` is appended when it has no extension.
    format : str
        Any output format ``dot`` knows: ``"svg"``, ``"png"``, ``"pdf"``...
    params, show_saved
        As in ``to_dot``.

    Returns
    -------
    str
        The path written.

    Raises
    ------
    RuntimeError
        If Graphviz's ``dot`` program is not installed (``to_dot`` works without it),
        or if ``dot`` fails.

    Examples
    --------
    >>> import cygrad, shutil, tempfile, os
    >>> from cygrad.autograd.graph import render
    >>> x = cygrad.tensor([1.0], requires_grad=True)
    >>> if shutil.which("dot"):
    ...     path = render(x.exp(), os.path.join(tempfile.mkdtemp(), "g"))
    ...     path.endswith("g.svg")
    ... else:
    ...     True
    True
    """
    if not str(format).isalnum():
        raise ValueError(f"render(): invalid format {format!r}")
    exe = shutil.which("dot")
    if exe is None:
        raise RuntimeError(
            "render() needs Graphviz's `dot` program, which is not installed (not found on "
            "PATH). Install Graphviz (Debian/Ubuntu: `apt-get install graphviz`; macOS: "
            "`brew install graphviz`; conda: `conda install graphviz`), or use "
            "cygrad.autograd.graph.to_dot(tensor), which returns the DOT text without it.")
    path = os.fspath(filename)
    if not os.path.splitext(path)[1]:
        path = f"{path}.{format}"
    proc = subprocess.run([exe, f"-T{format}", "-o", path],
                          input=to_dot(tensor, params, show_saved).encode(),
                          capture_output=True)
    if proc.returncode != 0:
        raise RuntimeError(f"render(): Graphviz's dot failed (exit code {proc.returncode}): "
                           f"{proc.stderr.decode(errors='replace').strip()}")
    return path


# ------------------------------------------------------------------------------ text tree

def to_text(tensor, params=None, show_saved=True, max_depth=40):
    """The backward graph of ``tensor`` as an indented tree (for terminals and docs).

    A node reached a second time (a tensor used twice) is printed once and marked
    ``(see above)`` afterwards, so the tree stays the size of the graph. Branches
    deeper than ``max_depth`` levels are cut (indentation would grow with the
    square of a long chain); ``max_depth=None`` prints everything.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.autograd.graph import to_text
    >>> a = cygrad.tensor([1.0, 2.0], requires_grad=True)
    >>> print(to_text(a.sin() + 1, params={"a": a}, show_saved=False))
    output (2,)
    └── AddBackward0 (2,)
        └── SinBackward0 (2,)
            └── a (2,)  AccumulateGrad
    """
    names = _param_names(params)
    lines = []
    printed = set()
    roots = _roots(tensor)
    for i, t in enumerate(roots):
        node, _ = _root_edge(t)
        if isinstance(t, TensorBase):
            name = names.get(id(t), "output" if len(roots) == 1 else f"output {i}")
            lines.append(f"{name} {_shape_str(t.shape)}" + ("" if node is not None
                                                             else "  (does not require grad)"))
            if node is None:
                continue
            stack = [(node, "", True, 1)]
        else:                       # a grad_fn node: it heads its own tree
            stack = [(node, None, True, 1)]
        # explicit stack of (node, prefix, is_last) instead of recursion
        while stack:
            node, prefix, last, depth = stack.pop()
            branch = "└── " if last else "├── "
            if prefix is None:      # the top of a tree started at a node
                prefix, branch = "", ""
            if max_depth is not None and depth > max_depth:
                lines.append(f"{prefix}{branch}… (deeper nodes not shown)")
                continue
            text = _node_text(node, names, show_saved)
            if node in printed:     # already shown with its inputs
                lines.append(f"{prefix}{branch}{text}  (see above)")
                continue
            lines.append(f"{prefix}{branch}{text}")
            printed.add(node)
            children = [c for c, _ in (node.next_functions or ()) if c is not None]
            inner = prefix + ("" if not branch else "    " if last else "│   ")
            for k in range(len(children) - 1, -1, -1):
                stack.append((children[k], inner, k == len(children) - 1, depth + 1))
    return "\n".join(lines)


def _node_text(node, names, show_saved):
    if isinstance(node, _E.AccumulateGrad):
        return f"{_leaf_name(node, names)} {_output_shapes(node)}  AccumulateGrad"
    text = f"{node.name()} {_output_shapes(node)}".rstrip()
    if show_saved:
        info = saved_info(node)
        if info is None:
            text += "  [saved: freed]"
        else:
            items = [_saved_label(s) for s in info if s is not None]
            if items:
                text += "  [saved: " + ", ".join(items) + "]"
    return text
