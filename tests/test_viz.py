"""cygrad.viz: the pictures' numbers checked against independent references
(NumPy's as_strided and byte_bounds, np.broadcast_shapes, PyTorch's messages,
the engine's real execution order seen through hooks)."""
import numpy as np
import pytest

import cygrad

matplotlib = pytest.importorskip("matplotlib", reason="cygrad.viz draws with matplotlib "
                                 "(the test extra installs it)")
matplotlib.use("Agg")

try:
    from numpy.lib.array_utils import byte_bounds
except ImportError:                 # NumPy < 2
    byte_bounds = np.byte_bounds


# ---------------------------------------------------------------------------- strides

def _views():
    x = cygrad.arange(24.0)
    return {
        "contiguous 2-d": x.view(4, 6),
        "transpose": x.view(4, 6).t(),
        "slice with steps": x.view(4, 6)[1:, ::2],
        "stride-0 expand": cygrad.arange(3.0).view(3, 1).expand(3, 4),
        "new leading dim": cygrad.arange(3.0).expand(2, 3),
        "negative stride 1-d": x[::-1],
        "negative stride 2-d": x.view(4, 6)[::-2, 1::3],
        "0-d": x[5],
        "1-d": x[3:9],
        "3-d permuted": x.view(2, 3, 4).permute(2, 0, 1),
        "3-d sliced": x.view(2, 3, 4)[:, ::-1, 1:3],
        "empty": x[4:4],
    }


@pytest.mark.parametrize("name", list(_views()))
def test_strides_layout_matches_numpy_as_strided(name):
    t = _views()[name]
    lay = cygrad.viz.strides_layout(t)
    # Independent reference: a NumPy array whose element k holds k, viewed with the same
    # geometry (strides in bytes) by as_strided; every element is its own storage index.
    base = np.arange(lay.storage_size, dtype=np.int64)
    item = base.itemsize
    ref = np.lib.stride_tricks.as_strided(base[t.storage_offset():], tuple(t.shape),
                                          tuple(s * item for s in t.stride()))
    np.testing.assert_array_equal(lay.indices, ref)
    assert lay.indices.shape == tuple(t.shape)
    if ref.size:
        lo, hi = byte_bounds(ref)
        start = base.__array_interface__["data"][0]
        assert lay.touched[0] == (lo - start) // item
        assert lay.touched[-1] == (hi - start) // item - 1
    # the values cygrad reads are the storage values at those indices
    assert list(lay.view_values) == [lay.storage_values[k] for k in ref.ravel()]
    assert lay.contiguous == t.is_contiguous()


def test_strides_layout_known_facts():
    # hand-derived: x.view(2, 3)[:, ::-1] starts at the last element of row 0
    lay = cygrad.viz.strides_layout(cygrad.arange(6.0).view(2, 3)[:, ::-1])
    assert (lay.offset, lay.strides) == (2, (3, -1))
    assert lay.indices.tolist() == [[2, 1, 0], [5, 4, 3]]
    assert lay.caption() == ("shape (2, 3)   strides (3, -1)   offset 2   not contiguous   "
                             "storage: 6 x float32")
    e = cygrad.viz.strides_layout(cygrad.arange(3.0).view(3, 1).expand(3, 4))
    assert e.strides == (1, 0) and e.touched == (0, 1, 2)


@pytest.mark.parametrize("name", ["transpose", "negative stride 2-d", "0-d", "3-d sliced",
                                  "stride-0 expand", "empty"])
def test_strides_figure_labels_every_cell_with_its_storage_index(name, tmp_path):
    t = _views()[name]
    path = tmp_path / "s.png"
    fig = cygrad.viz.strides(t, path=path, name=name)
    texts = [x.get_text() for x in fig.axes[0].texts]
    labels = sorted(int(s[2:]) for s in texts if s.startswith("s="))
    lay = cygrad.viz.strides_layout(t)
    assert labels == sorted(lay.indices.ravel().tolist())
    captions = [x for x in texts if x.startswith("shape ")]
    assert len(captions) == 1 and captions[0].split() == lay.caption().split()
    assert fig.axes[0].get_title() == name
    assert path.read_bytes()[:8] == b"\x89PNG\r\n\x1a\n"
    if t.dim() >= 3:            # one panel per leading index
        assert "[0, :, :]" in texts and "[1, :, :]" in texts


def test_strides_saves_svg_and_refuses_unknown_extension(tmp_path):
    t = cygrad.arange(4.0)
    cygrad.viz.strides(t, path=tmp_path / "s.svg")
    assert b"<svg" in (tmp_path / "s.svg").read_bytes()[:400]
    with pytest.raises(ValueError, match="png"):
        cygrad.viz.strides(t, path=tmp_path / "s.bmp")


def test_strides_bad_input():
    with pytest.raises(TypeError, match="Tensor"):
        cygrad.viz.strides_layout(np.arange(3))
    with pytest.raises(ValueError, match="at most"):
        cygrad.viz.strides(cygrad.zeros(20, 20))


# -------------------------------------------------------------------------- broadcast

@pytest.mark.parametrize("a, b", [((3, 1), (4,)), ((2, 1, 3), (5, 1)), ((1,), (2, 3)),
                                  ((4, 5), (4, 5)), ((), (2,)), ((6, 1, 1), (1, 7, 1))])
def test_broadcast_layout_matches_numpy(a, b):
    lay = cygrad.viz.broadcast_layout(a, b)
    assert lay.result == np.broadcast_shapes(a, b)
    n = len(lay.result)
    for shape, padded, stretched, st in zip((a, b), lay.shapes, lay.stretched, lay.strides):
        assert tuple(s for s in padded if s is not None) == shape
        assert padded[n - len(shape):] == shape        # right-aligned
        # a dim is stretched exactly where NumPy's broadcast view reads with stride 0
        # but the operand did not already have stride 0 there (size 1 or missing)
        ref = np.broadcast_to(np.zeros(shape, dtype=np.int8), lay.result)
        for d in range(n):
            grows = padded[d] in (None, 1) and lay.result[d] != 1
            assert stretched[d] == grows
            if grows:
                assert ref.strides[d] == 0 and st[d] == 0


def test_broadcast_layout_strides_are_those_of_expand():
    a = cygrad.ones(2, 1, 3)
    b = cygrad.ones(6)[::2].view(1, 3)        # non-contiguous: its own strides are used
    lay = cygrad.viz.broadcast_layout(a, b)
    assert lay.strides[0] == a.expand(*lay.result).stride()
    assert lay.strides[1] == b.expand(*lay.result).stride()


def test_broadcast_error_is_pytorchs():
    torch = pytest.importorskip("torch", reason="compares the message with PyTorch's")
    with pytest.raises(RuntimeError) as ref:
        torch.ones(2, 3) + torch.ones(4)
    with pytest.raises(RuntimeError) as got:
        cygrad.viz.broadcast((2, 3), (4,))
    assert str(got.value) == str(ref.value)


def test_broadcast_figure(tmp_path):
    fig = cygrad.viz.broadcast(cygrad.ones(3, 1), (4,), path=tmp_path / "b.png",
                               names=("x", "y"))
    texts = [t.get_text() for t in fig.axes[0].texts]
    assert "x" in texts and "y" in texts and "result" in texts
    assert texts.count("→4, stride 0") == 1 and texts.count("→3, stride 0") == 1
    assert "(1)" in texts                       # y has no dim 0
    assert (tmp_path / "b.png").stat().st_size > 1000
    with pytest.raises(TypeError, match="shape"):
        cygrad.viz.broadcast("ab", (2,))


# ------------------------------------------------------------------------------ graph

def _graph_example():
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    w = cygrad.tensor([3.0, 4.0], requires_grad=True)
    return x, w, ((x * w).sin() + x).sum()


def _need_dot():
    reason = cygrad.viz.graphviz_available()
    if reason is not None and "package" in reason:
        pytest.skip("the graphviz Python package is not installed")
    if reason is not None:
        pytest.skip("Graphviz's dot binary is not installed")


def test_graph_renders_svg_and_png_through_graphviz(tmp_path):
    _need_dot()
    x, w, z = _graph_example()
    src = cygrad.viz.graph(z, path=tmp_path / "g.svg", params={"x": x, "w": w})
    svg = (tmp_path / "g.svg").read_text()
    for name in ("SumBackward0", "AddBackward0", "SinBackward0", "MulBackward0"):
        assert name in svg and name in src.source
    assert ">x<" in svg and ">w<" in svg
    cygrad.viz.graph(z, path=tmp_path / "g", format="png")
    assert (tmp_path / "g.png").read_bytes()[:4] == b"\x89PNG"


def test_graph_dot_and_text_files_need_no_graphviz(tmp_path, monkeypatch):
    import sys
    monkeypatch.setitem(sys.modules, "graphviz", None)      # the package is "missing"
    x, w, z = _graph_example()
    cygrad.viz.graph(z, path=tmp_path / "g.dot", params={"x": x, "w": w})
    dot = (tmp_path / "g.dot").read_text()
    assert dot.startswith("digraph backward_graph {")
    # one node statement per graph node: output oval + 4 ops + 2 leaves
    labels = [line for line in dot.splitlines() if "[label=" in line and "_s" not in
              line.split("[")[0] and "_freed" not in line]
    assert len(labels) == 7
    cygrad.viz.graph(z, path=tmp_path / "g.txt", params={"x": x, "w": w})
    text = (tmp_path / "g.txt").read_text()
    assert text.splitlines()[1] == "└── SumBackward0 ()"


def test_graph_falls_back_to_ascii_without_the_package(monkeypatch, tmp_path):
    import sys
    monkeypatch.setitem(sys.modules, "graphviz", None)
    x, w, z = _graph_example()
    with pytest.warns(UserWarning, match='pip install "cygrad\\[viz\\]"'):
        out = cygrad.viz.graph(z, params={"x": x, "w": w})
    assert isinstance(out, str)
    lines = out.splitlines()
    assert lines[0] == "output ()"
    assert [ln.strip("│ ├└─") .split()[0] for ln in lines[1:5]] == \
        ["SumBackward0", "AddBackward0", "SinBackward0", "MulBackward0"]
    assert sum("AccumulateGrad" in ln for ln in lines) == 3     # x twice (marked), w once
    with pytest.raises(ImportError, match="cygrad\\[viz\\]"):
        cygrad.viz.graph(z, path=tmp_path / "g.png")


def test_graph_falls_back_to_ascii_without_dot(monkeypatch, tmp_path):
    graphviz = pytest.importorskip("graphviz", reason="simulates a missing dot with the package")

    def no_dot(*args, **kwargs):
        raise graphviz.ExecutableNotFound(["dot", "-V"])
    monkeypatch.setattr(graphviz, "version", no_dot)
    _, _, z = _graph_example()
    with pytest.warns(UserWarning, match="dot program is not installed"):
        out = cygrad.viz.graph(z.grad_fn)
    assert out.splitlines()[0] == "SumBackward0 ()"       # a node is its own root
    with pytest.raises(RuntimeError, match="dot program"):
        cygrad.viz.graph(z, path=tmp_path / "g.svg")


def test_graph_bad_input():
    with pytest.raises(TypeError, match="grad_fn node"):
        cygrad.viz.graph("not a tensor")
    _, _, z = _graph_example()
    with pytest.raises(ValueError, match="format"):
        cygrad.viz.graph(z, path="g", format="s;vg")


# ----------------------------------------------------------------- backward, step by step

def _hooked_order(loss, leaves):
    """The engine's real execution order, observed independently of the trace: a
    post-hook on every graph node, and a post-accumulate hook on every leaf."""
    order, seen, stack = [], set(), [loss.grad_fn]
    while stack:
        node = stack.pop()
        if node is None or node in seen:
            continue
        seen.add(node)
        if node.name() != "AccumulateGrad":
            node.register_hook(lambda gi, go, node=node: order.append(node))
        stack.extend(c for c, _ in node.next_functions)
    for leaf in leaves:
        leaf.register_post_accumulate_grad_hook(lambda t: order.append(t))
    return order


def _mlp():
    cygrad.manual_seed(0)
    x = cygrad.randn(4, 3)
    w1 = cygrad.randn(3, 5, requires_grad=True)
    b1 = cygrad.zeros(5, requires_grad=True)
    w2 = cygrad.randn(5, 1, requires_grad=True)
    loss = ((x @ w1 + b1).tanh() @ w2).pow(2).mean()
    return loss, {"w1": w1, "b1": b1, "w2": w2}


def test_animation_frames_follow_the_engines_order(tmp_path):
    loss, params = _mlp()
    observed = _hooked_order(loss, params.values())
    anim = cygrad.viz.animate_backward(loss, path=tmp_path / "b.gif", params=params)
    run = anim.run
    drawn = []
    for s in run.steps:
        node = run.nodes[s.node]
        drawn.append(node.variable if s.kind == "accumulate" else node)
    assert len(drawn) == len(observed)
    assert all(a is b for a, b in zip(drawn, observed))
    # one frame per executed node, plus the start and end frames
    assert anim.frame_count == len(observed) + 2
    from PIL import Image
    with Image.open(tmp_path / "b.gif") as im:
        assert im.n_frames == len(observed) + 2
    # the gradients it shows are the ones that landed in .grad
    for s in run.steps:
        if s.kind == "accumulate":
            leaf = run.nodes[s.node].variable
            (g,) = s.grads_in
            assert g.shape == tuple(leaf.shape)
            np.testing.assert_allclose(g.values, leaf.grad.reshape(-1)[:len(g.values)].tolist(),
                                       rtol=1e-6)


def test_animation_shows_freed_buffers_and_summed_grads(tmp_path):
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    y = (x * x).exp().sum()          # x reaches MulBackward0 twice; Exp and Mul save tensors
    anim = cygrad.viz.animate_backward(y, path=tmp_path / "b.html", params={"x": x})
    run = anim.run
    kinds = [(run.labels[s.node].split()[0], s.kind) for s in run.steps]
    assert kinds == [("SumBackward0", "run"), ("ExpBackward0", "run"),
                     ("MulBackward0", "run"), ("x", "accumulate")]
    assert run.steps[1].freed == "freed 1 saved tensor: (2,)"
    assert run.steps[2].freed == "freed 2 saved tensors: (2,) (2,)"
    assert "sum of 2 incoming grads" in run.steps[3].note
    # x.grad = d/dx sum(exp(x^2)) = 2x exp(x^2), by hand
    np.testing.assert_allclose(x.grad.tolist(), [2 * np.exp(1.0), 4 * np.exp(4.0)], rtol=1e-5)
    html = (tmp_path / "b.html").read_text()
    assert html.count("data:image/png;base64") == anim.frame_count == 6
    with pytest.raises(ValueError, match="gif"):
        cygrad.viz.animate_backward((x * 2).sum(), path=tmp_path / "b.mp4")


def test_trace_table_matches_hooks():
    loss, params = _mlp()
    observed = _hooked_order(loss, params.values())
    t = cygrad.viz.trace_table(loss, params=params)
    names = [g[0].node for g in t.steps()]
    assert names == ["AccumulateGrad" if isinstance(o, cygrad.Tensor) else o.name()
                     for o in observed]
    assert names.count("AccumulateGrad") == 3 and names[0] == "MeanBackward0"
    table = str(t)
    assert table.splitlines()[0].split("|")[0].strip() == "step"
    assert "w1.grad = grad" in table and "freed" in table


# ------------------------------------------------------------------------ docs/viz.md

def test_docs_viz_page_prints_what_it_says(tmp_path, monkeypatch):
    """Every ```python block of docs/viz.md runs (in page order, one namespace); its
    output is its ``# -> `` lines, or else the plain ``` block right after it."""
    import contextlib
    import io
    import os
    import re
    from test_docs_tensor import DOCS, _expected
    _need_dot()
    with open(os.path.join(DOCS, "viz.md"), encoding="utf-8") as f:
        page = f.read()
    blocks = re.findall(r"^```python\n(.*?)^```\n(?:\n```\n(.*?)^```)?", page, flags=re.S | re.M)
    assert len(blocks) >= 6
    monkeypatch.chdir(tmp_path)                 # the examples write their pictures here
    namespace = {"cygrad": cygrad}
    for i, (code, shown) in enumerate(blocks):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(code, f"docs/viz.md block {i}", "exec"), namespace)
        want = _expected(code) or shown.splitlines()
        assert out.getvalue().splitlines() == want, f"block {i}:\n{code}"
    for rel in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", page):
        assert os.path.isfile(os.path.join(DOCS, rel)), rel
