"""cygrad.profiler: what is recorded, the table, the Chrome trace, schedules.

References are independent of the profiler: node names come from ``grad_fn.name()``,
byte counts from the tensor sizes, schedules from ``torch.profiler.schedule``, and
nesting is checked on the exported JSON alone.
"""
import gzip
import json
import os
import re
import threading
import warnings

import pytest

import cygrad
from cygrad._core.tensor import TensorBase
from cygrad.profiler import (ProfilerAction, ProfilerActivity, profile, record_function,
                             schedule, tensorboard_trace_handler)


def names(prof):
    return [e.name for e in prof.events()]


def test_ops_and_backward_nodes_are_recorded_with_their_node_names():
    x = cygrad.randn(5, 5, requires_grad=True)
    with profile() as prof:
        y = x.mm(x).exp()
        loss = y.sum()
        expected_nodes = [loss.grad_fn.name(), y.grad_fn.name(), y.grad_fn.next_functions[0][0].name()]
        loss.backward()
    got = names(prof)
    for op in ("mm", "exp", "sum"):
        assert op in got
    for node in expected_nodes + ["AccumulateGrad"]:
        assert node in got, (node, got)
    # backward nodes run after every forward op, in the engine's order
    assert got.index("SumBackward0") > got.index("sum")
    assert got.index("ExpBackward0") > got.index("SumBackward0")
    assert got.index("MmBackward0") > got.index("ExpBackward0")


def test_operators_and_functions_are_named_as_ops():
    a, b = cygrad.ones(3), cygrad.ones(3)
    with profile() as prof:
        a + b
        a * 2
        -a
        cygrad.exp(a)
        a[1:]
        cygrad.nn.functional.relu(a)
    got = names(prof)
    assert got[:6] == ["add", "mul", "neg", "exp", "__getitem__", "relu"]


def test_nothing_stays_patched_after_profiling():
    before = dict(cygrad.Tensor.__dict__)
    exp, relu = cygrad.exp, cygrad.nn.functional.relu
    with pytest.raises(ZeroDivisionError):
        with profile():
            assert cygrad.exp is not exp     # swapped while recording
            1 / 0
    assert dict(cygrad.Tensor.__dict__) == before
    assert cygrad.exp is exp and cygrad.nn.functional.relu is relu
    assert type(cygrad.ones(2) + cygrad.ones(2)) is cygrad.Tensor


def test_children_lie_inside_their_parent_and_self_time_excludes_them():
    x = cygrad.randn(8, 8)
    with profile() as prof:
        with record_function("outer"):
            with record_function("inner"):
                x.exp()
            x.sin()
    outer = next(e for e in prof.events() if e.name == "outer")
    assert [c.name for c in outer.cpu_children] == ["inner", "sin"]
    for c in outer.cpu_children:
        assert outer.start_ns <= c.start_ns <= c.end_ns <= outer.end_ns
        assert c.cpu_parent is outer
    child_total = sum(c.cpu_time_total for c in outer.cpu_children)
    assert outer.self_cpu_time_total == pytest.approx(outer.cpu_time_total - child_total)


def test_record_function_as_decorator_and_outside_a_profiler():
    @record_function("my_fn")
    def f(t):
        return t * 2

    f(cygrad.ones(2))                        # no profiler: nothing happens
    with profile() as prof:
        f(cygrad.ones(2))
        f(cygrad.ones(2))
    assert names(prof).count("my_fn") == 2
    mine = [e for e in prof.events() if e.name == "my_fn"]
    assert all(e.cat == "user_annotation" and [c.name for c in e.cpu_children] == ["mul"]
               for e in mine)
    assert cygrad.autograd.profiler.record_function is record_function


def test_key_averages_counts_groups_and_table_columns():
    with profile(record_shapes=True) as prof:
        for n in (2, 2, 3):
            cygrad.ones(n).exp()
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["exp"].count == 3 and rows["ones"].count == 3
    assert rows["exp"].cpu_time == pytest.approx(rows["exp"].cpu_time_total / 3)
    by_shape = [(r.key, r.input_shapes, r.count)
                for r in prof.key_averages(group_by_input_shape=True) if r.key == "exp"]
    assert sorted(by_shape) == [("exp", [[2]], 2), ("exp", [[3]], 1)]
    table = prof.key_averages(group_by_input_shape=True).table(sort_by="count", row_limit=10)
    header = table.splitlines()[1]
    for col in ("Name", "Self CPU %", "Self CPU", "CPU total %", "CPU total",
                "CPU time avg", "# of Calls", "Input Shapes"):
        assert col in header
    assert "CPU Mem" not in header
    assert table.rstrip().splitlines()[-1].startswith("Self CPU time total:")
    # a row's percentage is its self time over the sum of all self times
    total = sum(e.self_cpu_time_total for e in prof.events())
    line = next(l for l in table.splitlines() if l.split()[:1] == ["exp"] and "[[2]]" in l)
    row = next(r for r in prof.key_averages(group_by_input_shape=True)
               if r.key == "exp" and r.input_shapes == [[2]])
    assert line.split()[1] == f"{100 * row.self_cpu_time_total / total:.2f}%"


def test_table_sorting_and_row_limit():
    x = cygrad.randn(64, 64)
    with profile() as prof:
        x.mm(x)
        x.neg()
        x.neg()
    t = prof.key_averages().table(sort_by="count", row_limit=1)
    body = t.splitlines()[3:-2]
    assert len(body) == 1 and body[0].split()[0] == "neg"
    totals = [r.cpu_time_total for r in prof.key_averages()]
    first = prof.key_averages().table(sort_by="cpu_time_total").splitlines()[3].split()[0]
    assert first == max(prof.key_averages(), key=lambda r: r.cpu_time_total).key
    assert max(totals) > 0
    with pytest.raises(AttributeError, match="cannot sort by"):
        prof.key_averages().table(sort_by="nonsense")


def test_memory_events_count_the_bytes_of_each_storage():
    with profile(profile_memory=True) as prof:
        t = cygrad.empty(1000, dtype=cygrad.float32)       # 4000 bytes, a small block
        del t
    empty = next(e for e in prof.events() if e.name == "empty")
    assert empty.self_cpu_memory_usage == 4000
    mem = prof.events().memory_events
    assert [m.nbytes for m in mem if abs(m.nbytes) == 4000][:2] == [4000, -4000]
    rows = {r.key: r for r in prof.key_averages()}
    assert rows["[memory]"].self_cpu_memory_usage == -4000    # freed outside every op
    table = prof.key_averages().table()
    assert "CPU Mem" in table and "Self CPU Mem" in table and "3.91 Kb" in table


def _check_laminar(spans):
    """Spans on one thread either nest or are disjoint (a proper call tree)."""
    spans = sorted(spans, key=lambda e: (e["ts"], -e["dur"]))
    open_ends = []
    for e in spans:
        start, end = e["ts"], e["ts"] + e["dur"]
        while open_ends and start >= open_ends[-1] - 1e-3:
            open_ends.pop()
        if open_ends:
            assert end <= open_ends[-1] + 1e-3, e
        open_ends.append(end)


def test_chrome_trace_structure_and_nesting(tmp_path):
    x = cygrad.randn(4, 4, requires_grad=True)
    with profile(record_shapes=True, profile_memory=True) as prof:
        with record_function("step"):
            (x @ x).relu().sum().backward()
    path = tmp_path / "trace.json"
    prof.export_chrome_trace(str(path))
    trace = json.loads(path.read_text())
    events = trace["traceEvents"]
    spans = [e for e in events if e["ph"] == "X"]
    assert spans and all({"name", "cat", "ts", "dur", "pid", "tid", "args"} <= e.keys()
                         for e in spans)
    assert {e["cat"] for e in spans} == {"cpu_op", "user_annotation"}
    by_tid = {}
    for e in spans:
        by_tid.setdefault(e["tid"], []).append(e)
    for tid_spans in by_tid.values():
        _check_laminar(tid_spans)
    step = next(e for e in spans if e["name"] == "step")
    inside = [e["name"] for e in spans if e is not step and e["tid"] == step["tid"]
              and step["ts"] <= e["ts"] and e["ts"] + e["dur"] <= step["ts"] + step["dur"] + 1e-3]
    assert {"matmul", "relu", "MmBackward0", "AccumulateGrad"} <= set(inside)
    mm = next(e for e in spans if e["name"] == "matmul")
    assert mm["args"]["Input Dims"] == [[4, 4], [4, 4]]
    mem = [e for e in events if e["name"] == "[memory]"]
    assert mem and all(e["ph"] == "i" and "Bytes" in e["args"] for e in mem)
    meta = [e for e in events if e["ph"] == "M"]
    assert {"process_name", "thread_name"} <= {e["name"] for e in meta}


def test_gzip_trace_and_tensorboard_handler(tmp_path):
    calls = []
    handler = tensorboard_trace_handler(str(tmp_path / "tb"), worker_name="w0", use_gzip=True)
    with profile(on_trace_ready=lambda p: (calls.append(1), handler(p))):
        cygrad.ones(3).exp()
    assert calls == [1]
    (name,) = os.listdir(tmp_path / "tb")
    assert re.fullmatch(r"w0\.\d+\.pt\.trace\.json\.gz", name)
    with gzip.open(tmp_path / "tb" / name, "rt") as f:
        assert any(e["name"] == "exp" for e in json.load(f)["traceEvents"])


@pytest.mark.parametrize("kw", [dict(wait=1, warmup=1, active=2, repeat=1),
                                dict(wait=0, warmup=2, active=1, repeat=0),
                                dict(wait=2, warmup=1, active=3, repeat=2, skip_first=3),
                                dict(wait=3, warmup=1, active=1, skip_first=2, skip_first_wait=1)])
def test_schedule_matches_torch(kw):
    torch = pytest.importorskip("torch", reason="torch.profiler.schedule is the reference")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours, theirs = schedule(**kw), torch.profiler.schedule(**kw)
    assert [ours(i).name for i in range(30)] == [theirs(i).name for i in range(30)]
    with pytest.raises(AssertionError):
        schedule(wait=0, warmup=0, active=0)


def _run_steps(prof_cls, tensor_fn, sched, steps):
    """Per finished recording: its distinct event names and its number of steps."""
    ready = []

    def on_ready(p):
        got = [e.name for e in p.events()]
        ready.append((sorted(set(got) - {"aten::empty", "aten::fill_"}),
                      got.count("ProfilerStep*")))
    with prof_cls(schedule=sched, on_trace_ready=on_ready) as p:
        for _ in range(steps):
            tensor_fn()
            p.step()
    return ready


def test_schedule_drives_recording_like_torch(tmp_path):
    torch = pytest.importorskip("torch", reason="torch.profiler is the reference")
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        ours = _run_steps(profile, lambda: cygrad.ones(2).exp(),
                          schedule(wait=1, warmup=1, active=2, repeat=2), 10)
        theirs = _run_steps(torch.profiler.profile, lambda: torch.ones(2).exp(),
                            torch.profiler.schedule(wait=1, warmup=1, active=2, repeat=2), 10)
    assert [(names_, n) for names_, n in theirs] == [
        (["ProfilerStep*", "aten::exp", "aten::ones"], 2)] * 2
    assert ours == [(["ProfilerStep*", "exp", "ones"], 2)] * 2
    # the trace names each step by its number, as PyTorch's does
    with profile(schedule=schedule(wait=0, warmup=1, active=2, repeat=1)) as p:
        for _ in range(4):
            p.step()
    p.export_chrome_trace(str(tmp_path / "t.json"))
    steps = [e["name"] for e in json.loads((tmp_path / "t.json").read_text())["traceEvents"]
             if e["name"].startswith("ProfilerStep")]
    assert steps == ["ProfilerStep#1", "ProfilerStep#2"]


def test_cuda_activity_without_a_device_warns_and_records_cpu():
    if cygrad.cuda.is_available():
        pytest.skip("a CUDA device is present: the request is honoured")
    with pytest.warns(UserWarning, match="CUDA is not available"):
        prof = profile(activities=[ProfilerActivity.CPU, ProfilerActivity.CUDA])
    assert prof.activities == {ProfilerActivity.CPU}
    with prof:
        cygrad.ones(2).exp()
    assert "exp" in names(prof)
    assert all(e.device_time_total == 0 for e in prof.events())


def test_with_stack_records_the_call_site(tmp_path):
    with profile(with_stack=True) as prof:
        cygrad.ones(2).exp()                                  # THIS LINE
    exp = next(e for e in prof.events() if e.name == "exp")
    here = os.path.basename(__file__)
    assert here in exp.stack[0] and "test_with_stack_records_the_call_site" in exp.stack[0]
    path = tmp_path / "stacks.txt"
    prof.export_stacks(str(path))
    line = next(l for l in path.read_text().splitlines() if l.rsplit(" ", 1)[0].endswith(";exp"))
    assert int(line.rsplit(" ", 1)[1]) >= 0


def test_ops_on_other_threads_get_their_own_track():
    def work():
        cygrad.ones(3).sin()
    with profile() as prof:
        cygrad.ones(3).cos()
        th = threading.Thread(target=work)
        th.start()
        th.join()
    threads = {e.name: e.thread for e in prof.events()}
    assert threads["sin"] == th.ident and threads["cos"] == threading.get_ident()


def test_misuse_raises_like_torch():
    with profile():
        with pytest.raises(RuntimeError, match="already enabled"):
            with profile():
                pass
    with pytest.raises(AssertionError):
        profile().events()
    with pytest.raises(NotImplementedError):
        profile(with_flops=True)
    with pytest.raises(TypeError):
        profile(activities=["cpu"])


def test_optimizer_step_is_named_as_in_torch():
    p = cygrad.nn.Parameter(cygrad.ones(3))
    opt = cygrad.optim.SGD([p], lr=0.1)
    p.sum().backward()
    with profile() as prof:
        opt.step()
        opt.zero_grad()
    got = names(prof)
    assert "Optimizer.step#SGD.step" in got and "Optimizer.zero_grad#SGD.zero_grad" in got
    assert ProfilerAction.RECORD.value == 2


def test_timeline_picture(tmp_path):
    pytest.importorskip("matplotlib", reason="plot_timeline draws with matplotlib")
    from cygrad.profiler import plot_timeline
    x = cygrad.randn(4, 4, requires_grad=True)
    with profile() as prof:
        with record_function("step"):
            (x * 2).sum().backward()
    path = tmp_path / "timeline.png"
    fig = plot_timeline(prof, str(path))
    assert path.stat().st_size > 1000
    labels = [t.get_text() for t in fig.axes[0].get_yticklabels()]
    assert labels == ["host thread 1"]
