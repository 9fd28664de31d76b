"""Rebuild the figures of docs/tensor.md and docs/viz.md: ``python docs/make_figures.py``.

The stride figures are ``cygrad.viz.strides`` pictures: every arrow is placed
from the strides and storage offset that cygrad itself reports, so a change to
the view code shows up here as a different picture. The dimension-merging
figure of the elementwise kernels is drawn here. Needs matplotlib and, for the
backward graph, Graphviz (``pip install -e ".[docs]"``).
"""
import itertools
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import Rectangle  # noqa: E402

import cygrad  # noqa: E402
from cygrad.viz._mpl import COLORS  # noqa: E402

IMG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "img")
CELL = 0.86          # drawn cell size (1.0 apart)


def geometry(view):
    return (f"shape {tuple(view.shape)}, stride {view.stride()}, "
            f"offset {view.storage_offset()}")


def save(fig, name):
    path = os.path.join(IMG, name)
    cygrad.viz._mpl.save(fig, path)
    print("wrote", os.path.join("docs", "img", name))


def finish(fig, ax, name, xlim, ylim):
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.savefig(os.path.join(IMG, name), dpi=110, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    print("wrote", os.path.join("docs", "img", name))


def fig_transpose():
    # one storage, two views of it side by side
    a = cygrad.arange(6.0).view(2, 3)
    fig = cygrad.viz._mpl.new_figure(13, 4.6)
    left, right = fig.subplots(1, 2)
    cygrad.viz.strides(a, name="a", ax=left)
    cygrad.viz.strides(a.t(), name="a.t()", ax=right)
    save(fig, "tensor_transpose.png")


def fig_slice():
    x = cygrad.arange(12.0)
    save(cygrad.viz.strides(x.view(3, 4)[1:, ::2], name="x.view(3, 4)[1:, ::2]"),
         "tensor_slice.png")


def fig_expand():
    x = cygrad.arange(3.0)
    save(cygrad.viz.strides(x.view(3, 1).expand(3, 4), name="x.view(3, 1).expand(3, 4)"),
         "tensor_expand.png")


def fig_negative():
    x = cygrad.arange(6.0)
    save(cygrad.viz.strides(x.view(2, 3)[:, ::-1], name="x.view(2, 3)[:, ::-1]"),
         "tensor_negative_stride.png")


def merge_dims(shape, strides_per_operand):
    """The dimension merging of cg_iter_init in cygrad/_core/cpu/elementwise.c:
    drop size-1 dims, then, from the innermost dim out, fold dim d into the merged
    dim inside it when stride[d] == inner stride * inner size for every operand."""
    kept = [d for d in range(len(shape)) if shape[d] != 1]
    if not kept:
        return [1], [[0] for _ in strides_per_operand]
    sh = [shape[kept[-1]]]
    st = [[s[kept[-1]]] for s in strides_per_operand]
    for d in reversed(kept[:-1]):
        if all(s[d] == m[0] * sh[0] for s, m in zip(strides_per_operand, st)):
            sh[0] *= shape[d]
        else:
            sh.insert(0, shape[d])
            for s, m in zip(strides_per_operand, st):
                m.insert(0, s[d])
    return sh, st


def draw_runs(ax, y, n, view, title):
    """Color each inner-loop run of ``view`` (after merging) on a storage strip of n."""
    sh, (st,) = merge_dims(tuple(view.shape), [view.stride()])
    # A single operand merges exactly when cygrad can view it with the merged shape.
    assert view.view(*sh).stride() == tuple(st), (sh, st)
    inner = sh[-1]
    outer_shape = sh[:-1]
    runs = []
    for o in itertools.product(*[range(s) for s in outer_shape]):
        start = view.storage_offset() + sum(i * s for i, s in zip(o, st[:-1]))
        runs.append([start + j * st[-1] for j in range(inner)])
    cell_run = {k: i for i, run in enumerate(runs) for k in run}
    for k in range(n):
        if k in cell_run:
            face = COLORS[cell_run[k] % len(COLORS)]
            alpha = 0.55
        else:
            face, alpha = "#eeeeee", 1.0
        ax.add_patch(Rectangle((k - CELL / 2, y - CELL / 2), CELL, CELL, facecolor=face,
                               alpha=alpha, edgecolor="black", lw=1))
        ax.text(k, y, str(k), ha="center", va="center", fontsize=10)
    ax.text(-0.8, y + 1.05, title, ha="left", va="bottom", fontsize=12, family="monospace")
    loops = " x ".join(map(str, sh[:-1])) or "1"
    ax.text(-0.8, y + 0.55, f"merged: shape {tuple(sh)}, stride {tuple(st)}  ->  "
            f"{len(runs)} run(s) of {inner} (outer loop {loops}, inner loop {inner})",
            ha="left", va="bottom", fontsize=11)


def fig_merge():
    a = cygrad.arange(24.0).view(2, 3, 4)
    fig, ax = plt.subplots(figsize=(12, 5.6))
    draw_runs(ax, 4.4, 24, a, f"a = arange(24).view(2, 3, 4):  {geometry(a)}")
    b = a[:, :, :2]
    draw_runs(ax, 0.6, 24, b, f"a[:, :, :2]:  {geometry(b)}")
    ax.text(-0.8, -0.9, "Each color is one call of the inner loop (consecutive storage "
            "cells, stride 1); grey cells are not touched.", ha="left", va="top", fontsize=11)
    finish(fig, ax, "tensor_merge_dims.png", (-1.0, 24.0), (-1.6, 6.4))


def fig_viz():
    """The examples of docs/viz.md."""
    save(cygrad.viz.strides(cygrad.arange(24.0).view(2, 3, 4)[:, ::-1, 1:3],
                            name="x.view(2, 3, 4)[:, ::-1, 1:3]"), "viz_strides_3d.png")
    save(cygrad.viz.broadcast(cygrad.ones(2, 1, 3), cygrad.ones(5, 1)), "viz_broadcast.png")
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    w = cygrad.tensor([3.0, 4.0], requires_grad=True)
    z = ((x * w).sin() + x).sum()
    params = {"x": x, "w": w}
    cygrad.viz.graph(z, os.path.join(IMG, "viz_graph.svg"), params=params)
    cygrad.viz.animate_backward(z, os.path.join(IMG, "viz_backward.gif"), params=params,
                                interval=1200)
    print("wrote docs/img/viz_graph.svg, docs/img/viz_backward.gif")


def main():
    os.makedirs(IMG, exist_ok=True)
    fig_viz()
    fig_transpose()
    fig_slice()
    fig_expand()
    fig_negative()
    fig_merge()


if __name__ == "__main__":
    main()
