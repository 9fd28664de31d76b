"""The backward pass, step by step: ``trace_table(loss)`` and ``animate_backward(loss)``.

Both run ``loss.backward()`` inside :class:`cygrad.autograd.trace`, which records
the engine's events as it works. ``trace_table`` returns that record (print it for
the table); ``animate_backward`` turns it into an animation of the graph: one frame
before the pass, one per executed node (the node lights up, the gradients it sends
appear on its edges, a leaf's ``.grad`` fills, its saved tensors are freed), and
one after.
"""
import os
from dataclasses import dataclass, field

from ..autograd import graph as _graph
from ..autograd.trace import trace as _trace
from . import _mpl

__all__ = ["trace_table", "backward_steps", "animate_backward", "BackwardStep"]


def trace_table(loss, gradient=None, params=None, retain_graph=None):
    """Run ``loss.backward()`` and return the engine's step-by-step record.

    Parameters
    ----------
    loss : Tensor
        What to differentiate.
    gradient : Tensor, optional
        As in ``Tensor.backward`` (needed when ``loss`` is not a scalar).
    params : mapping of str to Tensor, optional
        Names for leaves, used in the table.
    retain_graph : bool, optional
        As in ``Tensor.backward``.

    Returns
    -------
    cygrad.autograd.trace
        ``print()`` it for the table: one row per engine step with the node, the
        shapes and first values of its incoming and outgoing gradients, and notes
        (contributions summed, ``.grad`` accumulated, saved tensors freed); its
        ``events`` hold the same facts as data.

    Examples
    --------
    >>> import cygrad
    >>> w = cygrad.tensor([1.0, 2.0], requires_grad=True)
    >>> t = cygrad.viz.trace_table((w * w).sum(), params={"w": w})
    >>> [s[0].node for s in t.steps()]
    ['SumBackward0', 'MulBackward0', 'AccumulateGrad']
    """
    with _trace(params=params) as t:
        loss.backward(gradient, retain_graph=retain_graph)
    return t


@dataclass
class BackwardStep:
    """One engine step: a node called (``kind="run"``) or a leaf's ``.grad`` updated
    (``kind="accumulate"``).

    Attributes
    ----------
    index : int
        The step number, from 1.
    node : int
        Position of the node in ``BackwardRun.nodes``.
    kind : str
        ``"run"`` or ``"accumulate"``.
    grads_in, grads_out : tuple
        Summaries (shape and first values) of the gradients in and out.
    freed : str
        Which saved tensors were released after the call ("" if none).
    note : str
        The trace's note for the step.

    Examples
    --------
    >>> BackwardStep(1, 0, "run").kind
    'run'
    """
    index: int
    node: int
    kind: str
    grads_in: tuple = ()
    grads_out: tuple = ()
    freed: str = ""
    note: str = ""


@dataclass
class BackwardRun:
    """A backward pass recorded for drawing: the graph and the steps, in order.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0], requires_grad=True)
    >>> run = cygrad.viz.backward_steps(x.exp().sum())
    >>> [run.labels[s.node].split()[0] for s in run.steps]
    ['SumBackward0', 'ExpBackward0', 'leaf']
    """
    nodes: list
    labels: list
    edges: list                  # (parent index, child index)
    steps: list
    saved: list = field(default_factory=list)   # per node: held saved tensors before the pass
    trace: object = field(repr=False, default=None)


def _label(node, names):
    if getattr(node, "variable", None) is not None and node.name() == "AccumulateGrad":
        return f"{_graph._leaf_name(node, names)} {_graph._output_shapes(node)}"
    return f"{node.name()}\n{_graph._output_shapes(node)}".rstrip()


def backward_steps(loss, gradient=None, params=None, retain_graph=None):
    """Walk ``loss``'s graph, run its backward pass under a trace, and pair every
    engine step with its node.

    Parameters
    ----------
    loss, gradient, params, retain_graph
        As in :func:`trace_table`.

    Returns
    -------
    BackwardRun

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([2.0], requires_grad=True)
    >>> run = cygrad.viz.backward_steps((a * a).sum(), params={"a": a})
    >>> [(s.index, s.kind) for s in run.steps]
    [(1, 'run'), (2, 'run'), (3, 'accumulate')]
    """
    names = _graph._param_names(params)
    _, nodes, edges = _graph._walk(loss)
    pos = {node: i for i, node in enumerate(nodes)}
    saved = [bool(_graph.saved_info(n)) for n in nodes]    # before backward frees them
    t = trace_table(loss, gradient=gradient, params=params, retain_graph=retain_graph)
    by_id = {nid: node for node, nid in t._node_ids.items()}
    steps = []
    for group in t.steps():
        node = by_id.get(group[0].node_id)
        if node not in pos:          # e.g. a node of a hook's own backward: not drawn
            continue
        first = group[0]
        step = BackwardStep(len(steps) + 1, pos[node], first.kind,
                            grads_in=first.grads_in, note=first.note)
        for e in group[1:]:
            if e.kind == "done":
                step.grads_out = e.grads_out
            elif e.kind == "release":
                step.freed = e.note
            if e.note and e.kind != "release":
                step.note = "; ".join(x for x in (step.note, e.note) if x)
        steps.append(step)
    return BackwardRun(nodes=nodes, labels=[_label(n, names) for n in nodes],
                       edges=[(pos[a], pos[b]) for a, b, _ in edges], steps=steps,
                       saved=saved, trace=t)


# --------------------------------------------------------------------------- layout

def _layers(n, edges):
    """Depth of each node: the longest path from a root, so every node sits below
    all the nodes that send it a gradient."""
    depth = [0] * n
    children = [[] for _ in range(n)]
    indeg = [0] * n
    for a, b in edges:
        children[a].append(b)
        indeg[b] += 1
    ready = [i for i in range(n) if indeg[i] == 0]
    while ready:                    # topological order (the graph has no cycles)
        i = ready.pop()
        for c in children[i]:
            depth[c] = max(depth[c], depth[i] + 1)
            indeg[c] -= 1
            if indeg[c] == 0:
                ready.append(c)
    return depth


def _positions(n, edges):
    depth = _layers(n, edges)
    rows = {}
    for i in range(n):
        rows.setdefault(depth[i], []).append(i)
    parents = [[] for _ in range(n)]
    for a, b in edges:
        parents[b].append(a)
    xy = {}
    for d in sorted(rows):
        row = rows[d]
        if d > 0:   # order a row by where its parents are, to limit crossings
            row.sort(key=lambda i: sum(xy[p][0] for p in parents[i]) / max(len(parents[i]), 1))
        for k, i in enumerate(row):
            xy[i] = ((k - (len(row) - 1) / 2) * 3.2, -d * 1.9)
    return xy


# ------------------------------------------------------------------------- drawing

def _summary(grads):
    return ", ".join("None" if g is None else str(g) for g in grads) or "-"


def animate_backward(loss, path=None, gradient=None, params=None, retain_graph=None,
                     interval=900):
    """Animate ``loss.backward()``: nodes light up in the order the engine runs them.

    Frame 0 shows the graph before the pass (saved tensors held). Then one frame
    per executed node: the running node is yellow and the nodes that already ran
    are green; the gradients a node sends appear on its outgoing edges (shape and
    first values); a leaf shows the gradient added to its ``.grad``; a node's
    saved tensors turn grey when freed. The last frame shows the finished pass.

    Parameters
    ----------
    loss, gradient, params, retain_graph
        As in :func:`trace_table`; the backward pass really runs (``.grad`` fills).
    path : str or os.PathLike, optional
        ``.gif`` (matplotlib's Pillow writer) or ``.html`` (``to_jshtml``, a page
        with play controls).
    interval : int
        Milliseconds per frame.

    Returns
    -------
    matplotlib.animation.FuncAnimation
        With ``.run`` (the :class:`BackwardRun`: nodes and steps in order) and
        ``.frame_count`` (number of steps + 2). In Jupyter, display it with
        ``IPython.display.HTML(anim.to_jshtml())``.

    Examples
    --------
    >>> import cygrad, os, tempfile
    >>> x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    >>> path = os.path.join(tempfile.mkdtemp(), "backward.gif")
    >>> anim = cygrad.viz.animate_backward((x * x).sum(), path, params={"x": x})
    >>> anim.frame_count, [s.kind for s in anim.run.steps]
    (5, ['run', 'run', 'accumulate'])
    """
    if path is not None:
        ext = os.path.splitext(os.fspath(path))[1].lower()
        if ext not in (".gif", ".html"):
            raise ValueError(f"animate_backward() writes .gif or .html, not {ext or path!r}")
    _mpl.require()
    from matplotlib.animation import FuncAnimation, PillowWriter
    run = backward_steps(loss, gradient=gradient, params=params, retain_graph=retain_graph)
    xy = _positions(len(run.nodes), run.edges)
    xs = [p[0] for p in xy.values()] or [0]
    ys = [p[1] for p in xy.values()] or [0]
    width, height = max(xs) - min(xs) + 4.2, max(ys) - min(ys) + 4.4
    fig = _mpl.new_figure(min(max(6.5, width * 1.2), 18), min(max(4.0, height * 0.72), 12))
    fig.subplots_adjust(left=0.02, right=0.98, top=0.92, bottom=0.02)
    ax = fig.add_subplot()
    nframes = len(run.steps) + 2
    saved = run.saved

    def draw(frame):
        ax.clear()
        ax.axis("off")
        ax.set_xlim(min(xs) - 2.1, max(xs) + 2.1)
        ax.set_ylim(min(ys) - 2.6, max(ys) + 1.2)
        done = run.steps[:frame] if frame <= len(run.steps) else run.steps
        current = run.steps[frame - 1] if 1 <= frame <= len(run.steps) else None
        ran = {s.node for s in done}
        sent = {}
        for s in done:
            if s.grads_out:
                kids = [b for a, b in run.edges if a == s.node]
                node = run.nodes[s.node]
                kid_grads = [g for (c, _), g in zip(node.next_functions or (), s.grads_out)
                             if c is not None]
                for b, g in zip(kids, kid_grads):
                    sent[(s.node, b)] = g
        freed = {s.node for s in done if s.freed}
        for a, b in run.edges:
            (x0, y0), (x1, y1) = xy[a], xy[b]
            g = sent.get((a, b))
            active = current is not None and current.node == a and g is not None
            ax.annotate("", xy=(x1, y1 + 0.42), xytext=(x0, y0 - 0.42),
                        arrowprops=dict(arrowstyle="-|>", lw=2.2 if active else 1.0,
                                        color="#e65100" if active else
                                        ("#2e7d32" if g is not None else "#9e9e9e")))
            if g is not None:
                # near the sender on long edges, so labels of different edges do not meet
                # beside the edge, on the side it leans to, so edges leaving one
                # node keep their labels apart
                f = min(0.5, 0.95 / max(abs(y1 - y0), 1e-9))
                ax.annotate(str(g), xy=(x0 + f * (x1 - x0), y0 + f * (y1 - y0)),
                            xytext=(-4 if x1 < x0 else 4, 0), textcoords="offset points",
                            fontsize=7, ha="right" if x1 < x0 else "left", va="center",
                            color="#e65100" if active else "#2e7d32")
        for i, node in enumerate(run.nodes):
            x, y = xy[i]
            is_leaf = node.name() == "AccumulateGrad"
            face = ("#fff176" if current is not None and current.node == i else
                    "#a5d6a7" if i in ran else ("#bbdefb" if is_leaf else "white"))
            ax.text(x, y, run.labels[i], ha="center", va="center", fontsize=9,
                    bbox=dict(boxstyle="round,pad=0.35", fc=face, ec="black",
                              lw=2 if current is not None and current.node == i else 1))
            if saved[i]:
                gone = i in freed
                ax.annotate("saved: freed" if gone else "saved tensors", xy=(x, y),
                            xytext=(48, 0), textcoords="offset points", fontsize=7,
                            ha="left", va="center",
                            color="#9e9e9e" if gone else "#e65100")
            if is_leaf and i in ran:
                g = next(s.grads_in for s in done if s.node == i)
                ax.text(x, y - 0.62, f".grad ← {_summary(g)}", fontsize=6.5, ha="center",
                        va="top", color="#1565c0")
        if frame == 0:
            title = f"before backward: {len(run.nodes)} nodes, none run yet"
            detail = "gradients flow from the output (top) to the leaves (bottom)"
        elif current is not None:
            name = run.labels[current.node].split()[0]
            title = f"step {current.index}/{len(run.steps)}: {name}"
            if current.kind == "accumulate":
                detail = f"grad in {_summary(current.grads_in)}; {current.note}"
            else:
                detail = (f"grads in {_summary(current.grads_in)}   ->   "
                          f"grads out {_summary(current.grads_out)}")
                extra = "; ".join(x for x in (current.note, current.freed) if x)
                if extra:
                    detail += "\n" + extra
        else:
            title = f"backward done: {len(run.steps)} steps"
            detail = "every leaf's .grad is filled; saved tensors freed unless retain_graph"
        ax.set_title(title, fontsize=11, family="monospace")
        ax.text((min(xs) + max(xs)) / 2, min(ys) - 1.25, detail, ha="center", va="top",
                fontsize=8, family="monospace")
        return []

    anim = FuncAnimation(fig, draw, frames=nframes, interval=interval, blit=False,
                         repeat=True)
    anim.run = run
    anim.frame_count = nframes
    if path is not None:
        path = os.fspath(path)
        if path.lower().endswith(".gif"):
            anim.save(path, writer=PillowWriter(fps=max(1, round(1000 / interval))), dpi=90)
        else:
            with open(path, "w", encoding="utf-8") as f:
                f.write(anim.to_jshtml())
    return anim
