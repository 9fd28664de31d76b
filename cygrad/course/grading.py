"""Grade an assignment: run its lesson's tests against the copy and score each exercise.

The tests run in a fresh Python subprocess whose working directory is the copy and
whose ``sys.path`` starts with it (``PYTHONPATH`` cleared), so ``import cygrad`` gets
the student's package; the subprocess prints where cygrad came from and stops if it is
not the copy. An exercise is complete when at least one of its tests ran and none
failed; a skipped test (PyTorch not installed, say) counts neither way.

Examples
--------
A grading run takes a few seconds (a fresh interpreter and pytest), so this one is
shown, not run here::

    >>> from cygrad.course.assignment import make_assignment
    >>> from cygrad.course.grading import check
    >>> _ = make_assignment("graph", "hw05")                     # doctest: +SKIP
    >>> check("hw05", echo=False).complete                       # doctest: +SKIP
    False
"""
import json
import os
import subprocess
import sys
import tempfile
from dataclasses import dataclass, field
from pathlib import Path

from ._pytest_runner import matches
from .assignment import MANIFEST, test_files
from .catalogue import lesson as find_lesson

__all__ = ["check", "Score", "Report"]

_RUNNER = Path(__file__).with_name("_pytest_runner.py")


@dataclass
class Score:
    """One exercise's tally: tests passed, failed and skipped, and the first failure.

    Examples
    --------
    >>> from cygrad.course.grading import Score
    >>> Score(passed=3).complete
    True
    """
    passed: int = 0
    failed: int = 0
    skipped: int = 0
    first_failure: str = ""

    @property
    def complete(self):
        """Did the exercise's tests run, and all pass?"""
        return self.passed > 0 and self.failed == 0


@dataclass
class Report:
    """The grade of one copy: per-exercise scores and what the run printed.

    Examples
    --------
    >>> from cygrad.course.grading import Report, Score
    >>> Report("05_graph", {"count-dependencies": Score(passed=2)}).complete
    True
    """
    lesson: str
    scores: dict = field(default_factory=dict)
    cygrad_file: str = ""
    output: str = ""

    @property
    def complete(self):
        """Is every exercise complete?"""
        return bool(self.scores) and all(s.complete for s in self.scores.values())


def check(out, *, echo=True, timeout=600):
    """Grade the assignment in folder ``out``; print the scores when ``echo``.

    Examples
    --------
    >>> from cygrad.course.grading import check
    >>> check("/nonexistent/folder", echo=False)
    Traceback (most recent call last):
    ...
    FileNotFoundError: /nonexistent/folder/course.json not found: is this a folder made by make-assignment?
    """
    out = Path(out).resolve()
    manifest_path = out / MANIFEST
    if not manifest_path.is_file():
        raise FileNotFoundError(f"{manifest_path} not found: is this a folder made by "
                                "make-assignment?")
    manifest = json.loads(manifest_path.read_text())
    les = find_lesson(manifest["lesson"])
    patterns = [t for ex in les.exercises for t in ex.tests]
    env = {k: v for k, v in os.environ.items() if k not in ("PYTHONPATH", "PYTHONHOME")}
    env["PYTHONDONTWRITEBYTECODE"] = "1"        # leave the student's folder as it was
    with tempfile.TemporaryDirectory() as tmp:
        results_path = Path(tmp) / "results.json"
        cmd = [sys.executable, str(_RUNNER), str(out), str(results_path), json.dumps(patterns),
               *test_files(les)]
        try:
            proc = subprocess.run(cmd, cwd=out, env=env, capture_output=True, text=True,
                                  timeout=timeout)
            output = proc.stdout + proc.stderr
        except subprocess.TimeoutExpired as e:
            output = f"the tests ran past {timeout} s and were stopped\n" + str(e.stdout or "")
        results = json.loads(results_path.read_text()) if results_path.exists() else {}
    report = Report(les.name, cygrad_file=results.get("cygrad_file", ""), output=output)
    outcomes = results.get("tests", {})
    for ex in les.exercises:
        score = report.scores[ex.id] = Score()
        for nodeid, result in outcomes.items():
            if any(matches(nodeid, p) for p in ex.tests):
                kind = result["outcome"]
                setattr(score, kind, getattr(score, kind) + 1)
                if kind == "failed" and not score.first_failure:
                    score.first_failure = f"{nodeid}: {result['message']}"
    if echo:
        _print(report, out)
    return report


def _print(report, out):
    print(f"grading {out} (lesson {report.lesson})")
    print(f"cygrad imported from {report.cygrad_file or '(the run did not get that far)'}")
    if not any(s.passed + s.failed + s.skipped for s in report.scores.values()):
        print(report.output[-3000:])
    width = max(len(k) for k in report.scores)
    for ex, s in report.scores.items():
        verdict = "complete" if s.complete else "NOT complete"
        extra = f", {s.skipped} skipped" if s.skipped else ""
        print(f"  {ex:<{width}}  {s.passed:3d} passed, {s.failed:3d} failed{extra}  {verdict}")
        if s.first_failure:
            print(f"  {'':<{width}}  first failure: {s.first_failure[:300]}")
    done = sum(s.complete for s in report.scores.values())
    print(f"score: {done}/{len(report.scores)} exercises complete")
