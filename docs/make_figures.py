"""Rebuild the figures of docs/tensor.md: ``python docs/make_figures.py``.

Every arrow is placed from the strides and storage offset that cygrad itself
reports (``.stride()``, ``.storage_offset()``), and the script asserts that the
value drawn in each logical cell is the value cygrad reads there, so a change
to the view code shows up here as a failed assertion or a different picture.
Needs matplotlib (``pip install -e ".[docs]"``).
"""
import itertools
import os

import matplotlib

matplotlib.use("Agg")
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.patches import FancyArrowPatch, Rectangle  # noqa: E402

import cygrad  # noqa: E402

IMG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "img")
COLORS = ["#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#8c564b"]
MEM_Y = 0.0          # memory strip row
CELL = 0.86          # drawn cell size (1.0 apart)


def storage_index(view, idx):
    """Where logical element ``idx`` of ``view`` lives: offset + sum(i * stride)."""
    return view.storage_offset() + sum(i * s for i, s in zip(idx, view.stride()))


def geometry(view):
    return (f"shape {tuple(view.shape)}, stride {view.stride()}, "
            f"offset {view.storage_offset()}")


def draw_memory(ax, values, used=(), label="storage", y=MEM_Y):
    for k, v in enumerate(values):
        face = "#fff2cc" if k in used else "#eeeeee"
        ax.add_patch(Rectangle((k - CELL / 2, y - CELL / 2), CELL, CELL,
                               facecolor=face, edgecolor="black", lw=1.2, zorder=3))
        ax.text(k, y, f"{v:g}", ha="center", va="center", fontsize=13, zorder=4)
        ax.text(k, y - 0.7, str(k), ha="center", va="center", fontsize=9, color="#555555")
    ax.text(-0.9, y, label, ha="right", va="center", fontsize=11, style="italic")
    ax.text(-0.9, y - 0.7, "index", ha="right", va="center", fontsize=9, color="#555555")


def draw_view(ax, values, view, name, top, below=False, gap=1.35):
    """Draw ``view`` as a grid whose first row sits at y=``top`` (rows go down) and an
    arrow from each element to the storage cell holding it. ``below``: the grid is
    under the storage strip, so its title goes underneath."""
    rows, cols = (tuple(view.shape) if view.ndim == 2 else (1, view.shape[0]))
    x0 = (len(values) - 1) / 2 - gap * (cols - 1) / 2
    flat = view.reshape(rows, cols).tolist()
    used = set()
    for r, c in itertools.product(range(rows), range(cols)):
        idx = (r, c) if view.ndim == 2 else (c,)
        k = storage_index(view, idx)
        assert values[k] == flat[r][c], (name, idx, k)   # the drawing matches cygrad
        used.add(k)
        x, y = x0 + gap * c, top - gap * r
        color = COLORS[r % len(COLORS)]
        ax.add_patch(Rectangle((x - CELL / 2, y - CELL / 2), CELL, CELL, zorder=3,
                               facecolor="white", edgecolor=color, lw=2))
        ax.text(x, y - 0.1, f"{flat[r][c]:g}", ha="center", va="center", fontsize=13,
                zorder=4)
        ax.text(x, y + 0.27, "[" + ",".join(map(str, idx)) + "]", ha="center",
                va="center", fontsize=7, color="#666666", zorder=4)
        end = (k, MEM_Y + CELL / 2) if not below else (k, MEM_Y - CELL / 2 - 0.45)
        ax.add_patch(FancyArrowPatch((x, y), end, arrowstyle="-|>", mutation_scale=12,
                                     color=color, lw=1.4, alpha=0.85, zorder=1,
                                     shrinkA=0, shrinkB=1))
    cx = x0 + gap * (cols - 1) / 2
    if below:
        ax.text(cx, top - gap * (rows - 1) - 0.75, f"{name}:  {geometry(view)}",
                ha="center", va="top", fontsize=12, family="monospace")
    else:
        ax.text(cx, top + 0.75, f"{name}:  {geometry(view)}", ha="center", va="bottom",
                fontsize=12, family="monospace")
    return used


def finish(fig, ax, name, xlim, ylim):
    ax.set_xlim(*xlim)
    ax.set_ylim(*ylim)
    ax.set_aspect("equal")
    ax.axis("off")
    fig.savefig(os.path.join(IMG, name), dpi=110, bbox_inches="tight", facecolor="white")
    plt.close(fig)
    print("wrote", os.path.join("docs", "img", name))


def fig_transpose():
    a = cygrad.arange(6.0).view(2, 3)
    values = a.reshape(-1).tolist()
    fig, ax = plt.subplots(figsize=(9, 7.2))
    used = draw_view(ax, values, a, "a", top=4.2)
    used |= draw_view(ax, values, a.t(), "a.t()", top=-2.4, below=True)
    draw_memory(ax, values, used)
    ax.text(2.5, -6.6, "a.t() swaps the strides: one step along a.t()'s rows is 1 cell, "
            "along its columns 3 cells.\nSame storage, no copy.", ha="center", va="top",
            fontsize=11)
    finish(fig, ax, "tensor_transpose.png", (-3.2, 6.6), (-7.8, 5.6))


def fig_slice():
    x = cygrad.arange(12.0)
    v = x.view(3, 4)[1:, ::2]
    values = x.tolist()
    fig, ax = plt.subplots(figsize=(11, 4.6))
    used = draw_view(ax, values, x.view(3, 4)[1:, ::2], "x.view(3, 4)[1:, ::2]", top=3.2)
    draw_memory(ax, values, used, label="x")
    ax.text(5.5, -1.4, f"offset {v.storage_offset()} = 1 row skipped x row stride 4;   "
            f"column stride {v.stride(1)} = 1 x step 2", ha="center", va="top", fontsize=11)
    finish(fig, ax, "tensor_slice.png", (-2.6, 11.6), (-2.2, 4.4))


def fig_expand():
    x = cygrad.arange(3.0)
    e = x.view(3, 1).expand(3, 4)
    values = x.tolist()
    fig, ax = plt.subplots(figsize=(8, 7.2))
    used = draw_view(ax, values, e, "x.view(3, 1).expand(3, 4)", top=5.4)
    draw_memory(ax, values, used, label="x")
    ax.text(1.0, -1.4, "stride 0 along dim 1: all four elements of a row read one cell",
            ha="center", va="top", fontsize=11)
    finish(fig, ax, "tensor_expand.png", (-3.2, 5.2), (-2.2, 6.6))


def fig_negative():
    x = cygrad.arange(6.0)
    r = x.view(2, 3)[:, ::-1]
    values = x.tolist()
    fig, ax = plt.subplots(figsize=(9, 5.8))
    used = draw_view(ax, values, r, "x.view(2, 3)[:, ::-1]", top=4.4)
    draw_memory(ax, values, used, label="x")
    ax.text(2.5, -1.4, f"offset {r.storage_offset()} points at the last element of row 0; "
            f"stride {r.stride(1)} walks back", ha="center", va="top", fontsize=11)
    finish(fig, ax, "tensor_negative_stride.png", (-2.6, 7.0), (-2.2, 5.6))


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


def main():
    os.makedirs(IMG, exist_ok=True)
    fig_transpose()
    fig_slice()
    fig_expand()
    fig_negative()
    fig_merge()


if __name__ == "__main__":
    main()
