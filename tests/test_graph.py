"""Tests of cygrad.autograd.graph: DOT text, text tree and rendering of backward graphs."""
import doctest
import os
import re
import shutil

import pytest

import cygrad
from cygrad.autograd import graph


# --------------------------------------------------------------------------- helpers

_NODE = re.compile(r'^\s*(n\d+(?:_\w+)?) \[label="((?:[^"\\]|\\.)*)"(.*)\];$')
_EDGE = re.compile(r'^\s*(n\d+(?:_\w+)?) -> (n\d+(?:_\w+)?)(?: \[(.*)\])?;$')


def parse(dot):
    """``nodes``: id -> (label with real newlines, attributes); ``edges``: list of
    (src, dst, attributes), in the order they appear."""
    nodes, edges = {}, []
    for line in dot.splitlines():
        m = _NODE.match(line)
        if m:
            label = m.group(2).replace("\\n", "\n").replace('\\"', '"')
            nodes[m.group(1)] = (label, m.group(3))
            continue
        m = _EDGE.match(line)
        if m:
            edges.append((m.group(1), m.group(2), m.group(3) or ""))
    return nodes, edges


def graph_nodes(nodes):
    """The graph (non-saved) node ids, in numeric order."""
    ids = [k for k in nodes if "_" not in k]
    return sorted(ids, key=lambda k: int(k[1:]))


def small_graph():
    x = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    w = cygrad.tensor([0.5, -1.0, 2.0], requires_grad=True)
    z = (x * w * x).exp()
    return x, w, z


# ------------------------------------------------------------------------------ to_dot

def test_node_names_follow_torch_graph():
    """A breadth-first walk of torch's graph for the same computation visits nodes of
    the same names in the same order as our DOT numbering."""
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    x, w, z = small_graph()
    nodes, _ = parse(graph.to_dot(z, params={"x": x, "w": w}, show_saved=False))
    ours = []
    for k in graph_nodes(nodes)[1:]:          # n0 is the output tensor itself
        label, attrs = nodes[k]
        ours.append("AccumulateGrad" if "AccumulateGrad" in attrs else label.split("\n")[0])

    tx = torch.tensor([1.0, 2.0, 3.0], requires_grad=True)
    tw = torch.tensor([0.5, -1.0, 2.0], requires_grad=True)
    tz = (tx * tw * tx).exp()
    order, seen = [tz.grad_fn], {tz.grad_fn}
    i = 0
    while i < len(order):
        for child, _ in order[i].next_functions:
            if child is not None and child not in seen:
                seen.add(child)
                order.append(child)
        i += 1
    assert ours == [n.name().split("::")[-1] for n in order]   # torch::autograd::AccumulateGrad


def test_labels_shapes_and_edges():
    x, w, z = small_graph()
    nodes, edges = parse(graph.to_dot(z, params={"x": x, "w": w}))
    ids = graph_nodes(nodes)
    labels = [nodes[k][0] for k in ids]
    assert labels == ["output\n(3,)", "ExpBackward0\n(3,)", "MulBackward0\n(3,)",
                      "MulBackward0\n(3,)", "x\n(3,)", "w\n(3,)"]
    # leaves are drawn differently from op nodes
    assert "shape=oval" in nodes["n4"][1] and "shape=oval" not in nodes["n2"][1]
    graph_edges = [(a, b) for a, b, _ in edges if "_" not in b]
    # x is an input of both multiplications: two edges into its leaf node
    assert graph_edges == [("n0", "n1"), ("n1", "n2"), ("n2", "n3"), ("n2", "n4"),
                           ("n3", "n4"), ("n3", "n5")]


def test_leaves_without_names_show_shape():
    a = cygrad.ones((2, 3), requires_grad=True)
    b = cygrad.ones(3, requires_grad=True)
    nodes, _ = parse(graph.to_dot(a * b, show_saved=False))
    labels = sorted(lab for lab, _ in nodes.values())
    assert labels == ["MulBackward0\n(2, 3)", "leaf\n(2, 3)", "leaf\n(3,)", "output\n(2, 3)"]


def test_params_any_mapping_or_pairs():
    x, w, z = small_graph()
    by_pairs = graph.to_dot(z, params=[("x", x), ("w", w)])
    assert by_pairs == graph.to_dot(z, params={"x": x, "w": w})
    # identity, not equality: an equal tensor that is not the leaf gets no name
    other = cygrad.tensor([1.0, 2.0, 3.0], requires_grad=True)
    nodes, _ = parse(graph.to_dot(z, params={"other": other}))
    assert not any(lab.startswith("other") for lab, _ in nodes.values())


def test_deterministic_text():
    dots = []
    for _ in range(2):
        x, w, z = small_graph()
        dots.append(graph.to_dot(z, params={"x": x, "w": w}))
    assert dots[0] == dots[1]


def test_saved_tensors_drawn_and_freed():
    x, w, z = small_graph()
    nodes, edges = parse(graph.to_dot(z))
    saved = {k: v[0] for k, v in nodes.items() if "_s" in k}
    # exp saves its output; each multiplication saves both operands
    assert sorted(saved) == ["n1_s0", "n2_s0", "n2_s1", "n3_s0", "n3_s1"]
    assert all(lab == "saved\n(3,) float32 v0" for lab in saved.values())
    assert ("n1", "n1_s0", "style=dashed, arrowhead=none") in edges

    z.backward(cygrad.ones_like(z))
    nodes, _ = parse(graph.to_dot(z))
    assert not any("_s" in k for k in nodes)
    assert sorted(k for k in nodes if k.endswith("_freed")) == ["n1_freed", "n2_freed", "n3_freed"]

    nodes, _ = parse(graph.to_dot(z, show_saved=False))
    assert not any("_" in k for k in nodes)


def test_saved_version_is_the_version_at_save_time():
    x = cygrad.tensor([1.0, -2.0], requires_grad=True)
    a = x * 1
    a.add_(1)                      # a is now at version 1
    b = a.sin()                    # sin saves its input a
    nodes, _ = parse(graph.to_dot(b))
    assert nodes["n1"][0] == "SinBackward0\n(2,)"
    assert nodes["n1_s0"][0] == "saved\n(2,) float32 v1"


def test_number_operand_is_not_drawn_as_saved():
    x = cygrad.tensor([1.0, 2.0], requires_grad=True, dtype=cygrad.float64)
    nodes, _ = parse(graph.to_dot(x * 2.0))
    assert [lab for k, (lab, _) in nodes.items() if "_s" in k] == ["saved\n(2,) float64 v0"]


def test_root_that_is_a_leaf_or_needs_no_grad():
    x = cygrad.tensor([1.0], requires_grad=True)
    nodes, edges = parse(graph.to_dot(x, params={"x": x}))
    assert nodes["n0"][0] == "x\n(1,)" and nodes["n1"][0] == "x\n(1,)"
    assert edges == [("n0", "n1", "")]
    c = cygrad.tensor([1.0, 2.0])
    nodes, edges = parse(graph.to_dot(c * 2))
    assert list(nodes) == ["n0"] and "does not require grad" in nodes["n0"][0]
    assert edges == []


def test_several_outputs_label_edges():
    class Split2(cygrad.autograd.Function):
        @staticmethod
        def forward(ctx, x):
            return x * 2, x * 3

        @staticmethod
        def backward(ctx, g1, g2):
            return g1 * 2 + g2 * 3

    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    a, b = Split2.apply(x)
    nodes, edges = parse(graph.to_dot([a.exp(), b]))
    ids = graph_nodes(nodes)
    labels = {nodes[k][0] for k in ids}
    assert {"output 0\n(2,)", "output 1\n(2,)", "Split2Backward\n(2,) (2,)"} <= labels
    split = next(k for k in ids if nodes[k][0].startswith("Split2Backward"))
    into_split = sorted(attrs for _, dst, attrs in edges if dst == split)
    # the root b is output 1 of Split2; exp's input a is output 0
    assert into_split == ['label="output 0"', 'label="output 1"']


def test_long_chain_without_recursion():
    x = cygrad.tensor([1.0], requires_grad=True)
    y = x
    for _ in range(20000):
        y = y * 1.0001
    dot = graph.to_dot(y, params={"x": x})
    nodes, edges = parse(dot)
    assert sum(1 for k in nodes if "_" not in k) == 20002       # output + 20000 ops + x
    text = graph.to_text(y)
    assert "deeper nodes not shown" in text
    del y


def test_rejects_non_tensors():
    with pytest.raises(TypeError, match="expected a Tensor or a sequence of Tensors, got int"):
        graph.to_dot(3)
    with pytest.raises(TypeError, match="got NoneType"):
        graph.to_text([cygrad.ones(1), None])


def test_labels_are_escaped():
    x = cygrad.tensor([1.0], requires_grad=True)
    dot = graph.to_dot(x.exp(), params={'we"ird\\name': x})      # name: we"ird\name
    assert r'n2 [label="we\"ird\\name\n(1,)"' in dot


# ------------------------------------------------------------------------------ to_text

def test_text_tree():
    x, w, z = small_graph()
    text = graph.to_text(z, params={"x": x, "w": w}, show_saved=False)
    assert text.splitlines() == [
        "output (3,)",
        "└── ExpBackward0 (3,)",
        "    └── MulBackward0 (3,)",
        "        ├── MulBackward0 (3,)",
        "        │   ├── x (3,)  AccumulateGrad",
        "        │   └── w (3,)  AccumulateGrad",
        "        └── x (3,)  AccumulateGrad  (see above)",
    ]


# ------------------------------------------------------------------------------- render

def test_render_without_dot_raises(monkeypatch, tmp_path):
    monkeypatch.setenv("PATH", str(tmp_path))          # an empty directory: no `dot`
    assert shutil.which("dot") is None
    x = cygrad.tensor([1.0], requires_grad=True)
    with pytest.raises(RuntimeError, match=r"Graphviz's `dot` program, which is not installed"
                                           r"(.|\n)*to_dot"):
        graph.render(x.exp(), tmp_path / "g.svg")
    assert not (tmp_path / "g.svg").exists()


@pytest.mark.skipif(shutil.which("dot") is None,
                    reason="Graphviz's `dot` is not installed (apt-get install graphviz)")
def test_render_svg(tmp_path):
    x, w, z = small_graph()
    path = graph.render(z, tmp_path / "graph", params={"x": x, "w": w})
    assert path == os.path.join(str(tmp_path), "graph.svg")
    svg = open(path, encoding="utf-8").read()
    assert "<svg" in svg and "ExpBackward0" in svg and "MulBackward0" in svg
    # the explicit extension is kept
    png = graph.render(z, tmp_path / "g.png", format="png")
    with open(png, "rb") as f:
        assert f.read(8) == b"\x89PNG\r\n\x1a\n"


def test_render_rejects_bad_format(tmp_path):
    x = cygrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError, match="invalid format"):
        graph.render(x.exp(), tmp_path / "g", format="svg; rm")


def test_docstring_examples():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(graph, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0
