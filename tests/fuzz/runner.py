"""The parent process: runs cases in child processes and counts what happened.

A batch of cases goes to one child (``worker.py``), which reports each case's
start and verdict on a pipe.  If the child dies in a case, that case is a
``crash`` (the signal and the tail of its stderr, a faulthandler traceback,
are kept); if a case gives no verdict within ``case_timeout`` seconds the
child is killed and the case is a ``hang``.  Either way a fresh child picks
up the batch after the culprit, so one bad case costs one restart.
"""
from __future__ import annotations

import json
import os
import select
import signal
import subprocess
import sys
import tempfile
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor

from .compare import FAILURE_KINDS
from .generate import make_case

TESTS_DIR = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
REPO_DIR = os.path.dirname(TESTS_DIR)
KNOWN_FAILURES = os.path.join(os.path.dirname(os.path.abspath(__file__)), "known_failures.json")
STARTUP_TIMEOUT = 120.0


class WorkerStartError(RuntimeError):
    """The child process died or stalled before running its first case."""


def _spawn(batch_file, start, use_torch, stderr_file):
    read_fd, write_fd = os.pipe()
    code = (f"import sys; sys.path.insert(0, {TESTS_DIR!r}); from fuzz.worker import main; "
            f"main({batch_file!r}, {start}, {write_fd}, {use_torch})")
    env = dict(os.environ, OMP_NUM_THREADS="1", PYTHONFAULTHANDLER="1")
    proc = subprocess.Popen([sys.executable, "-c", code], cwd=REPO_DIR, pass_fds=(write_fd,),
                            stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                            stderr=stderr_file, env=env)
    os.close(write_fd)
    return proc, read_fd


def _stderr_tail(stderr_file, limit=1500):
    stderr_file.flush()
    stderr_file.seek(0)
    text = stderr_file.read().decode("utf-8", "replace")
    stderr_file.seek(0)
    stderr_file.truncate()
    # faulthandler's traceback, without the list of loaded extension modules after it
    start = text.rfind("Fatal Python error")
    text = text[start:] if start >= 0 else text
    text = text.split("\nExtension modules:")[0]
    return text[-limit:]


def _run_child(batch_file, start, use_torch, case_timeout, results):
    """Run cases from ``start`` until the child finishes, crashes or hangs;
    return the index to resume from (None when the batch is done)."""
    with tempfile.TemporaryFile() as err:
        proc, fd = _spawn(batch_file, start, use_torch, err)
        buf = b""
        current = None
        deadline = time.monotonic() + STARTUP_TIMEOUT
        try:
            while True:
                timeout = max(0.0, deadline - time.monotonic())
                ready, _, _ = select.select([fd], [], [], timeout)
                if not ready:
                    proc.kill()
                    proc.wait()
                    if current is None:
                        raise WorkerStartError("fuzz worker did not start:\n" + _stderr_tail(err))
                    results[current] = {"kind": "hang", "detail": f"no verdict in {case_timeout:g} s",
                                        "types": "", "index": current}
                    return current + 1
                chunk = os.read(fd, 65536)
                if not chunk:
                    proc.wait()
                    rc = proc.returncode
                    if current is None:
                        raise WorkerStartError(f"fuzz worker failed (rc {rc}):\n" + _stderr_tail(err))
                    if current in results and rc == 0:
                        return None
                    sig = signal.Signals(-rc).name if rc < 0 else f"exit status {rc}"
                    results[current] = {"kind": "crash", "detail": sig, "types": "",
                                        "index": current, "stderr": _stderr_tail(err)}
                    return current + 1
                buf += chunk
                *lines, buf = buf.split(b"\n")
                for line in lines:
                    tag, _, rest = line.decode().partition(" ")
                    if tag == "S":
                        current = int(rest)
                        deadline = time.monotonic() + case_timeout
                    elif tag == "R":
                        verdict = json.loads(rest)
                        results[verdict["index"]] = verdict
                    elif tag == "D":
                        proc.wait()
                        return None
        finally:
            os.close(fd)
            if proc.poll() is None:
                proc.kill()
                proc.wait()


def run_cases(cases, *, use_torch=True, case_timeout=20.0):
    """Verdicts for ``cases`` (a list of case dicts), in order."""
    with tempfile.NamedTemporaryFile("w", suffix=".jsonl", delete=False) as f:
        for case in cases:
            f.write(json.dumps(case) + "\n")
        batch_file = f.name
    results = {}
    try:
        start = 0
        failed_starts = 0
        while start is not None and start < len(cases):
            try:
                start = _run_child(batch_file, start, use_torch, case_timeout, results)
            except WorkerStartError:
                # e.g. the extension being rebuilt in this tree at that moment
                failed_starts += 1
                if failed_starts > 3:
                    raise
                time.sleep(20.0)
    finally:
        os.unlink(batch_file)
    out = []
    for i, case in enumerate(cases):
        verdict = dict(results.get(i, {"kind": "harness_error", "detail": "no verdict", "types": ""}))
        verdict["case"] = case
        verdict["class"] = class_key(case, verdict)
        out.append(verdict)
    return out


def class_key(case, verdict) -> str:
    """Failures are deduplicated by op, verdict kind and exception types."""
    key = f"{verdict['kind']} {case['op']}"
    return f"{key} {verdict['types']}" if verdict.get("types") else key


def is_failure(verdict) -> bool:
    return verdict["kind"] in FAILURE_KINDS or verdict["kind"] == "harness_error"


def reproducer(case) -> str:
    return ("import numpy as np, cygrad as T\nfrom math import inf, nan\n"
            + case["cy"] + "\nprint(out)")


def campaign(seed=0, *, n_cases=None, minutes=None, batch=400, jobs=1, use_torch=True,
             case_timeout=20.0, progress=None):
    """Cases ``seed:0, seed:1, ...`` until ``n_cases`` are run or ``minutes`` pass."""
    stop_at = None if minutes is None else time.monotonic() + 60.0 * minutes
    verdicts = []
    next_index = 0

    def one_batch(first):
        size = batch if n_cases is None else min(batch, n_cases - first)
        cases = [make_case(seed, first + i) for i in range(size)]
        return run_cases(cases, use_torch=use_torch, case_timeout=case_timeout)

    with ThreadPoolExecutor(max_workers=jobs) as pool:
        while True:
            if n_cases is not None and next_index >= n_cases:
                break
            if stop_at is not None and time.monotonic() >= stop_at:
                break
            firsts = []
            for _ in range(jobs):
                if n_cases is not None and next_index >= n_cases:
                    break
                firsts.append(next_index)
                next_index += batch if n_cases is None else min(batch, n_cases - next_index)
            for result in pool.map(one_batch, firsts):
                verdicts.extend(result)
            if progress:
                progress(verdicts)
    return verdicts


def summarise(verdicts):
    """(counts per kind, {class: [count, first verdict]})."""
    counts = Counter(v["kind"] for v in verdicts)
    classes = {}
    for v in verdicts:
        if is_failure(v):
            entry = classes.setdefault(v["class"], [0, v])
            entry[0] += 1
    return counts, classes


def format_summary(verdicts, elapsed=None) -> str:
    counts, classes = summarise(verdicts)
    lines = [f"cases run: {len(verdicts)}" + (f" in {elapsed:.0f} s" if elapsed else "")]
    for kind in ("ok", "limit", "unchecked") + FAILURE_KINDS + ("harness_error",):
        if counts.get(kind):
            lines.append(f"  {kind:<16} {counts[kind]}")
    if classes:
        lines.append(f"failure classes: {len(classes)}")
        for key, (n, _) in sorted(classes.items()):
            lines.append(f"  {n:>6}  {key}")
    return "\n".join(lines)


def failure_record(v) -> dict:
    case = v["case"]
    return {"class": v["class"], "id": case["id"], "op": case["op"], "mode": case["mode"],
            "kind": v["kind"], "detail": v.get("detail", ""), "types": v.get("types", ""),
            "cygrad": v.get("cy_outcome"), "reference": v.get("ref_outcome"),
            "stderr": v.get("stderr"), "reproducer": reproducer(case), "torch": case.get("th"),
            "case": case}


def _case_of_record(record) -> dict:
    """The case behind a failure record (older records carry only the reproducer)."""
    if "case" in record:
        return record["case"]
    body = record["reproducer"].split("\n")[2:-1]      # drop the imports and the print
    return {"id": record["id"], "op": record["op"], "mode": record["mode"],
            "cy": "\n".join(body), "th": record.get("torch"), "np": None, "ref": None,
            "values": True, "tol_dtype": None}


def refresh_known(path=KNOWN_FAILURES, case_timeout=20.0):
    """Re-run every known failure: drop the fixed ones, re-file those whose class
    changed.  Returns (removed, renamed) class names."""
    known = load_known(path)
    verdicts = run_cases([e["case"] for e in known.values()], case_timeout=case_timeout)
    entries, removed, renamed = {}, [], []
    for key, v in zip(known, verdicts):
        if not is_failure(v):
            removed.append(key)
            continue
        if v["class"] != key:
            renamed.append(f"{key} -> {v['class']}")
        entries.setdefault(v["class"], [1, v])
    write_known(entries, path)
    return removed, renamed


def check_known(ops, path=KNOWN_FAILURES, case_timeout=20.0):
    """Re-run the known failures of the ops named in ``ops`` without writing the file.
    Returns (key, verdict) pairs; a verdict that is no longer a failure means fixed."""
    known = {k: e for k, e in load_known(path).items() if e["case"]["op"] in ops}
    verdicts = run_cases([e["case"] for e in known.values()], case_timeout=case_timeout)
    return list(zip(known, verdicts))


def pin_failures(records, path=KNOWN_FAILURES, case_timeout=20.0):
    """Add the failure classes of ``records`` (JSONL records of a campaign) that still
    fail the same way to the known-failures file; hangs are left out (each would cost
    the CI run its timeout).  Returns the classes added."""
    known = load_known(path)
    candidates = {}
    for record in records:
        if record["kind"] != "hang" and record["class"] not in known:
            candidates.setdefault(record["class"], _case_of_record(record))
    verdicts = run_cases(list(candidates.values()), case_timeout=case_timeout)
    added = {}
    for key, v in zip(candidates, verdicts):
        if v["class"] == key:
            added[key] = [1, v]
    entries = {key: [1, {"case": e["case"], "cy_outcome": e.get("cygrad"),
                         "ref_outcome": e.get("reference")}] for key, e in known.items()}
    entries.update(added)
    write_known(entries, path)
    return sorted(added)


def load_known(path=KNOWN_FAILURES) -> dict:
    with open(path) as f:
        return json.load(f)["classes"]


def write_known(classes, path=KNOWN_FAILURES):
    """Rewrite the known-failures file from a summary's classes."""
    out = {}
    for key, (n, v) in sorted(classes.items()):
        case = v["case"]
        out[key] = {"reproducer": case["cy"], "cygrad": v.get("cy_outcome") or v.get("detail"),
                    "reference": v.get("ref_outcome"), "case": case}
    with open(path, "w") as f:
        json.dump({"note": "Failure classes the seeded fuzz run may find (tests/test_fuzz_seeded.py). "
                           "This list may only shrink: fix a class, then delete its entry.",
                   "classes": out}, f, indent=1, sort_keys=True)
        f.write("\n")
