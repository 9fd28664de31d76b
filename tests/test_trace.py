"""Tests of cygrad.autograd.trace: recording the backward engine's events."""
import doctest
import sys

import numpy as np
import pytest

import cygrad
from cygrad.autograd import trace

trace_module = sys.modules["cygrad.autograd.trace"]


def values(summary):
    return np.array(summary.values)


def test_leaf_used_twice_is_accumulated_once_with_the_sum():
    xs = np.array([1.0, 2.0, -3.0], dtype=np.float32)
    x = cygrad.tensor(xs, requires_grad=True)
    y = x * x
    with trace(params={"x": x}) as t:
        y.backward(cygrad.ones_like(y))
    assert [(e.step, e.node, e.kind) for e in t.events] == [
        (1, "MulBackward0", "run"), (1, "MulBackward0", "done"), (1, "MulBackward0", "release"),
        (2, "AccumulateGrad", "accumulate")]
    run, done, release, acc = t.events
    np.testing.assert_array_equal(values(run.grads_in[0]), np.ones(3))
    # one gradient per use of x, each x * 1 ...
    assert len(done.grads_out) == 2
    for g in done.grads_out:
        np.testing.assert_allclose(values(g), xs)
    # ... summed by the engine before the single accumulation
    np.testing.assert_allclose(values(acc.grads_in[0]), 2 * xs)
    np.testing.assert_allclose(values(acc.grads_in[0]), x.grad.numpy())
    assert acc.leaf == "x"
    assert "sum of 2 incoming grads" in acc.note and "x.grad = grad" in acc.note
    assert release.note == "freed 2 saved tensors: (3,) (3,)"


def test_values_and_order_match_torch():
    torch = pytest.importorskip("torch", reason="PyTorch reference not installed")
    xs = np.array([0.5, -1.0, 2.0])
    ws = np.array([1.5, 0.25, -2.0])
    x = cygrad.tensor(xs, requires_grad=True)
    w = cygrad.tensor(ws, requires_grad=True)
    z = (x * w).sin() + x
    with trace(params={"x": x, "w": w}) as t:
        z.backward(cygrad.ones_like(z))

    tx = torch.tensor(xs, requires_grad=True)
    tw = torch.tensor(ws, requires_grad=True)
    tz = (tx * tw).sin() + tx
    tz.backward(torch.ones_like(tz))

    runs = [e.node for e in t.events if e.kind == "run"]
    assert runs == ["AddBackward0", "SinBackward0", "MulBackward0"]
    acc = {e.leaf: e for e in t.events if e.kind == "accumulate"}
    assert set(acc) == {"x", "w"}
    np.testing.assert_allclose(values(acc["x"].grads_in[0]), tx.grad.numpy())
    np.testing.assert_allclose(values(acc["w"].grads_in[0]), tw.grad.numpy())
    assert "sum of 2 incoming grads" in acc["x"].note and "sum" not in acc["w"].note
    sin_done = next(e for e in t.events if e.node == "SinBackward0" and e.kind == "done")
    np.testing.assert_allclose(values(sin_done.grads_out[0]), np.cos(xs * ws))
    # the add saved nothing; sin saved its input, mul both operands
    notes = {e.node: e.note for e in t.events if e.kind == "release"}
    assert notes == {"AddBackward0": "", "SinBackward0": "freed 1 saved tensor: (3,)",
                     "MulBackward0": "freed 2 saved tensors: (3,) (3,)"}


def test_topological_order_on_a_diamond():
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    a = x.exp()
    b = a.sin()
    c = a.cos()
    d = b * c
    with trace() as t:
        d.backward(cygrad.ones_like(d))
    runs = [e.node for e in t.events if e.kind == "run"]
    assert runs[0] == "MulBackward0" and runs[-1] == "ExpBackward0"
    assert sorted(runs[1:3]) == ["CosBackward0", "SinBackward0"]
    exp_run = next(e for e in t.events if e.node == "ExpBackward0" and e.kind == "run")
    assert exp_run.note == "sum of 2 incoming grads"
    # every event of a step is about one node
    for group in t.steps():
        assert len({(e.node, e.node_id) for e in group}) == 1


def test_retain_graph_releases_nothing_and_second_accumulation_adds():
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    y = x.exp()
    with trace() as t:
        y.backward(cygrad.ones_like(y), retain_graph=True)
        y.backward(cygrad.ones_like(y))
    kinds = [e.kind for e in t.events]
    assert kinds == ["run", "done", "accumulate", "run", "done", "release", "accumulate"]
    notes = [e.note for e in t.events if e.kind == "accumulate"]
    assert notes == ["leaf.grad = grad", "leaf.grad += grad"]
    assert [e.step for e in t.events] == [1, 1, 2, 3, 3, 3, 4]


def test_observer_restored_and_nesting():
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)

    def backward():
        y = x.exp()
        y.backward(cygrad.ones_like(y))

    with trace() as outer:
        backward()
        with trace() as inner:
            backward()
        backward()
    # the inner trace passes events on to the outer one
    assert len(inner.events) == 4 and len(outer.events) == 12
    backward()                      # after exit nothing is recorded
    assert len(outer.events) == 12 and len(inner.events) == 4


def test_observer_restored_after_an_error():
    x = cygrad.tensor([1.0], requires_grad=True)
    with pytest.raises(ValueError):
        with trace() as t:
            raise ValueError("boom")
    y = x.exp()
    y.backward(cygrad.ones_like(y))
    assert t.events == []


def test_trace_cannot_be_entered_twice():
    t = trace()
    with t:
        with pytest.raises(RuntimeError, match="already active"):
            t.__enter__()


def test_create_graph_backward_is_traced_without_recording():
    x = cygrad.tensor([2.0], requires_grad=True)
    y = x * x * x
    with trace() as t:
        (g,) = cygrad.autograd.grad(y, x, cygrad.ones_like(y), create_graph=True)
    assert g.requires_grad and g.item() == 12.0
    assert [e.kind for e in t.events].count("run") == 2


def test_table_format():
    x = cygrad.tensor(np.arange(5.0, dtype=np.float32), requires_grad=True)
    w = cygrad.tensor(np.full(5, 0.5, dtype=np.float32), requires_grad=True)
    y = x * w * x
    with trace(params={"x": x}) as t:
        y.backward(cygrad.ones_like(y))
    text = t.table()
    assert str(t) == text
    lines = text.splitlines()
    assert [c.strip() for c in lines[0].split("|")] == ["step", "node", "grads in",
                                                        "grads out", "note"]
    # fixed width: every separator sits in the same column on every line
    bars = [i for i, ch in enumerate(lines[0]) if ch == "|"]
    for line in lines[2:]:
        assert [i for i, ch in enumerate(line) if ch == "|"] == bars
    assert [i for i, ch in enumerate(lines[1]) if ch == "+"] == bars
    # 5 elements, 3 shown, then an ellipsis
    assert "(5,) [1, 1, 1, …]" in text
    # same-named nodes are numbered; named leaves are labelled; unnamed ones are not
    assert "MulBackward0 #1" in text and "MulBackward0 #2" in text
    assert "AccumulateGrad (x)" in text and "leaf.grad = grad" in text
    step_cells = [line.split("|")[0].strip() for line in lines[2:]]
    assert [s for s in step_cells if s] == ["1", "2", "3", "4"]


def test_max_values_and_special_values():
    x = cygrad.tensor([0.0, 1.0], requires_grad=True)
    y = x.log()
    with trace(max_values=1) as t:
        y.backward(cygrad.ones_like(y))
    done = next(e for e in t.events if e.kind == "done")
    assert str(done.grads_out[0]) == "(2,) [inf, …]"
    assert done.grads_out[0].numel == 2 and done.grads_out[0].dtype == "float32"


def test_empty_trace():
    with trace() as t:
        pass
    assert "no backward pass ran" in t.table()
    assert repr(t) == "<cygrad.autograd.trace: 0 events>"


def test_docstring_examples():
    flags = doctest.ELLIPSIS | doctest.NORMALIZE_WHITESPACE
    result = doctest.testmod(trace_module, optionflags=flags)
    assert result.attempted > 0 and result.failed == 0


def test_node_ids_stay_unique_when_graphs_are_freed():
    x = cygrad.tensor([1.0, 2.0], requires_grad=True)
    with trace(params=(p for p in [("x", x)])) as t:    # any iterable of pairs
        for op in ("exp", "sin", "cos"):
            y = getattr(x, op)()
            y.backward(cygrad.ones_like(y))
            del y                   # the graph (and its nodes) are freed here
    ids = {e.node: e.node_id for e in t.events if e.kind == "run"}
    assert set(ids) == {"ExpBackward0", "SinBackward0", "CosBackward0"}
    assert len(set(ids.values())) == 3
    assert [e.leaf for e in t.events if e.kind == "accumulate"] == ["x", "x", "x"]
