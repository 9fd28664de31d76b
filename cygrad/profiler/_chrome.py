"""``export_chrome_trace``: the recording as Chrome's Trace Event Format (the JSON
that Perfetto, ``chrome://tracing`` and TensorBoard's profiler plugin open).

Host spans are complete events (``"ph": "X"``, ``ts``/``dur`` in microseconds since
the recording began) on the process's pid with one tid per thread; memory events are
instant events named ``[memory]``; device work, when a device backend reports it,
goes to a separate process (one per device) with one tid per stream.
"""
import gzip
import json
import os
import sys

__all__ = ["export_chrome_trace", "trace_dict"]


def _us(ns, base):
    return round((ns - base) / 1000.0, 3)


def trace_dict(events):
    """The trace of ``events`` (an EventList) as a Python dict."""
    base = events._base_ns
    pid = os.getpid()
    threads = {}
    for ev in events:
        threads.setdefault(ev.thread, len(threads) + 1)
    for m in events.memory_events:
        threads.setdefault(m.thread, len(threads) + 1)
    out = []
    for ev in events:
        args = {"External id": ev.id}
        if ev.input_shapes is not None:
            args["Input Dims"] = ev.input_shapes
            args["Input type"] = ev.input_dtypes
        if ev.stack:
            args["Call stack"] = ";".join(ev.stack)
        if ev.record_args is not None:
            args["Args"] = ev.record_args
        out.append({"ph": "X", "cat": ev.cat, "name": ev.trace_name or ev.name, "pid": pid,
                    "tid": threads[ev.thread], "ts": _us(ev.start_ns, base),
                    "dur": round((ev.end_ns - ev.start_ns) / 1000.0, 3), "args": args})
    for m in events.memory_events:
        out.append({"ph": "i", "s": "t", "cat": "cpu_instant_event", "name": "[memory]",
                    "pid": pid, "tid": threads[m.thread], "ts": _us(m.ts_ns, base),
                    "args": {"Total Allocated": m.total_allocated, "Bytes": m.nbytes,
                             "Addr": m.address, "Device Type": 0, "Device Id": -1}})
    devices = set()
    for d in events.device_events:
        devices.add(d.device)
        out.append({"ph": "X", "cat": "kernel", "name": d.name, "pid": f"device {d.device}",
                    "tid": f"stream {d.stream}", "ts": _us(d.start_ns, base),
                    "dur": round((d.end_ns - d.start_ns) / 1000.0, 3),
                    "args": {"correlation": d.correlation_id, "device": d.device,
                             "stream": d.stream}})
    # parents before their children: by start, then longest first
    out.sort(key=lambda e: (e["ts"], -e.get("dur", 0)))
    meta = [{"ph": "M", "name": "process_name", "pid": pid, "tid": 0,
             "args": {"name": os.path.basename(sys.executable) or "python"}},
            {"ph": "M", "name": "process_labels", "pid": pid, "tid": 0,
             "args": {"labels": "CPU"}}]
    for ident, tid in threads.items():
        meta.append({"ph": "M", "name": "thread_name", "pid": pid, "tid": tid,
                     "args": {"name": f"thread {tid} ({ident})"}})
        meta.append({"ph": "M", "name": "thread_sort_index", "pid": pid, "tid": tid,
                     "args": {"sort_index": tid}})
    for dev in sorted(devices):
        meta.append({"ph": "M", "name": "process_name", "pid": f"device {dev}", "tid": 0,
                     "args": {"name": f"device {dev}"}})
    return {"schemaVersion": 1, "deviceProperties": [], "displayTimeUnit": "ms",
            "baseTimeNanoseconds": getattr(events, "_base_epoch_ns", 0),
            "traceEvents": meta + out}


def export_chrome_trace(events, path):
    """Write ``events`` as a Chrome trace to ``path`` (gzip-compressed if the name
    ends in ``.gz``)."""
    data = json.dumps(trace_dict(events))
    if str(path).endswith(".gz"):
        with gzip.open(path, "wt", encoding="utf-8") as f:
            f.write(data)
    else:
        with open(path, "w", encoding="utf-8") as f:
            f.write(data)
