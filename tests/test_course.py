"""The course (issue "See and teach"): every lesson script runs, the exercise markers
in the source match the catalogue, and an assignment made from a lesson fails
``check`` while the unblanked answer key passes it.

Grading runs in subprocesses, as an instructor would run it. By default two lessons
are graded (optim and graph, whose test selections are quick); the others take the
same code path and are graded with ``CYGRAD_COURSE_ALL=1`` (about 5 s each).
"""
import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

pytestmark = pytest.mark.needs_checkout

from cygrad.course import LESSONS, lesson
from cygrad.course.assignment import make_assignment
from cygrad.course.regions import MARKER, blank, find_regions

ROOT = Path(__file__).resolve().parents[1]
ALL = os.environ.get("CYGRAD_COURSE_ALL") == "1"
GRADED = [les.slug for les in LESSONS if les.exercises and (ALL or les.slug in ("optim", "graph"))]
ENV = {**os.environ, "CYGRAD_NUM_THREADS": "1", "OMP_NUM_THREADS": "1"}


def _run(args, cwd=ROOT, timeout=240):
    return subprocess.run([sys.executable, *args], cwd=cwd, env=ENV, capture_output=True,
                          text=True, timeout=timeout)


# ------------------------------------------------------------------------ the lessons

@pytest.mark.parametrize("les", LESSONS, ids=[les.name for les in LESSONS])
def test_lesson_script_runs(les):
    proc = _run([les.script], timeout=120)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-2000:]
    assert "== 1." in proc.stdout          # it printed its first section


def test_ten_lessons_in_the_issue_order():
    assert [les.slug for les in LESSONS] == [
        "chain_rule", "tensors", "strides_views", "broadcasting", "graph",
        "backward_engine", "functions", "nn", "optim", "gpu_kernels"]


# ------------------------------------------------------------------------ the markers

def _marked_files():
    return [p for p in (ROOT / "cygrad").rglob("*.py")
            if "# course: " in p.read_text() and p.parent.name != "course"]


def test_markers_balanced_and_match_the_catalogue():
    in_source = {}
    for path in _marked_files():
        text = path.read_text()
        regions = find_regions(text, str(path))       # raises on unbalanced markers
        marker_lines = [line for line in text.split("\n") if "# course:" in line]
        assert all(MARKER.match(line) for line in marker_lines), f"malformed marker in {path}"
        assert len(marker_lines) == 2 * len(regions)
        for r in regions:
            assert r.exercise not in in_source, f"{r.exercise} marked twice"
            in_source[r.exercise] = str(path.relative_to(ROOT))
    in_catalogue = {ex.id: ex.path for les in LESSONS for ex in les.exercises}
    assert in_source == in_catalogue


def test_every_grading_test_file_exists():
    for les in LESSONS:
        for ex in les.exercises:
            for t in ex.tests:
                assert (ROOT / t.split("::")[0]).is_file(), t


@pytest.mark.parametrize("bad, why", [
    ("def f():\n    # course: begin a\n    return 1\n", "never ended"),
    ("def f():\n    # course: end a\n", "without a matching begin"),
    ("def f():\n    # course: begin a\n    # course: begin b\n    x = 1\n"
     "    # course: end b\n    # course: end a\n", "do not nest"),
    ("# course: begin a\nx = 1\n# course: end a\n", "not inside a function"),
    ("def f():\n    # course: begin a\n    yield 1\n    # course: end a\n", "yield"),
])
def test_bad_regions_are_refused(bad, why):
    with pytest.raises(ValueError, match=why):
        find_regions(bad)


def test_blank_keeps_signature_docstring_and_markers():
    src = ('def f(x):\n    """Doc."""\n    y = 1\n    # course: begin e\n    y = x * 2\n'
           '    y += 1\n    # course: end e\n    return y\n')
    out = blank(src, {"e": "double it"})
    assert out == ('def f(x):\n    """Doc."""\n    y = 1\n    # course: begin e\n'
                   "    raise NotImplementedError('exercise e: double it')\n"
                   '    # course: end e\n    return y\n')
    namespace = {}
    exec(compile(out, "<blanked>", "exec"), namespace)
    with pytest.raises(NotImplementedError, match="exercise e: double it"):
        namespace["f"](3)


# ------------------------------------------------------------------------ assignments

@pytest.fixture(scope="module")
def assignments(tmp_path_factory):
    made = {}
    for slug in GRADED:
        base = tmp_path_factory.mktemp(slug)
        made[slug] = (base / "student", base / "key")
        make_assignment(slug, made[slug][0])
        make_assignment(slug, made[slug][1], solution=True)
    return made


def _files(folder):
    return {str(p.relative_to(folder)) for p in folder.rglob("*")
            if p.is_file() and "__pycache__" not in p.parts}


@pytest.mark.parametrize("slug", GRADED)
def test_only_the_lessons_regions_change(assignments, slug):
    student, _ = assignments[slug]
    les = lesson(slug)
    blanked = {ex.path for ex in les.exercises}
    package = {f for f in _files(student) if f.startswith("cygrad/")}
    assert package == {f for f in _files(ROOT) if f.startswith("cygrad/")}
    for rel in sorted(package - blanked):
        assert (student / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
    for rel in [les.script] + [f for f in _files(student) if f.startswith("tests/")]:
        assert (student / rel).read_bytes() == (ROOT / rel).read_bytes(), rel
    for rel in blanked:
        original, copy = (ROOT / rel).read_text(), (student / rel).read_text()
        ids = {ex.id for ex in les.exercises if ex.path == rel}
        kept = original.split("\n")
        for r in reversed([r for r in find_regions(original) if r.exercise in ids]):
            hint = next(ex.hint for ex in les.exercises if ex.id == r.exercise)
            kept[r.begin + 1:r.end] = [f"{r.indent}raise NotImplementedError("
                                       f"{'exercise ' + r.exercise + ': ' + hint!r})"]
        assert copy.split("\n") == kept


@pytest.mark.parametrize("slug", GRADED)
def test_manifest(assignments, slug):
    student, key = assignments[slug]
    manifest = json.loads((student / "course.json").read_text())
    assert manifest["lesson"] == lesson(slug).name and manifest["blanked"] is True
    assert manifest["exercises"] == [ex.id for ex in lesson(slug).exercises]
    assert manifest["check"].endswith(f"check {student}")
    assert json.loads((key / "course.json").read_text())["blanked"] is False


@pytest.mark.parametrize("slug", GRADED)
def test_blanked_copy_imports_and_raises_the_hint(assignments, slug):
    student, _ = assignments[slug]
    modules = sorted({ex.path[:-3].replace("/", ".") for ex in lesson(slug).exercises})
    code = ("import importlib, cygrad; print(cygrad.__file__); "
            + "; ".join(f"importlib.import_module({m!r})" for m in modules))
    proc = _run(["-c", code], cwd=student)
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout.strip() == str(student / "cygrad" / "__init__.py")


@pytest.mark.parametrize("slug", GRADED)
def test_check_fails_the_blanked_copy_and_passes_the_original(assignments, slug):
    student, key = assignments[slug]
    # both gradings at once: each is mostly interpreter and pytest start-up
    runs = [subprocess.Popen([sys.executable, "-m", "cygrad.course", "check", str(folder)],
                             cwd=ROOT, env=ENV, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                             text=True) for folder in (student, key)]
    outputs = [p.communicate(timeout=240) for p in runs]
    failed, passed = (subprocess.CompletedProcess(p.args, p.returncode, out, err)
                      for p, (out, err) in zip(runs, outputs))
    for proc, folder in ((failed, student), (passed, key)):
        # the tests ran against the copy's cygrad, not this checkout's
        assert f"cygrad imported from {folder / 'cygrad' / '__init__.py'}" in proc.stdout
    assert failed.returncode == 1, failed.stdout + failed.stderr
    n = len(lesson(slug).exercises)
    assert f"score: 0/{n} exercises complete" in failed.stdout
    assert "NotImplementedError: exercise" in failed.stdout
    assert passed.returncode == 0, passed.stdout + passed.stderr
    assert f"score: {n}/{n} exercises complete" in passed.stdout


def test_check_refuses_a_copy_without_its_own_cygrad(assignments, tmp_path):
    student, _ = assignments["optim"]
    (tmp_path / "course.json").write_text((student / "course.json").read_text())
    proc = _run(["-m", "cygrad.course", "check", str(tmp_path)])
    assert proc.returncode == 1
    assert "score: 0/2" in proc.stdout
    assert ("refusing to grade" in proc.stdout) or ("No module named 'cygrad'" in proc.stdout)


def test_cli_errors_are_short(capsys, tmp_path):
    from cygrad.course.__main__ import main
    assert main(["make-assignment", "no_such_lesson", str(tmp_path / "a")]) == 2
    assert "no lesson 'no_such_lesson'" in capsys.readouterr().err
    assert main(["make-assignment", "gpu_kernels", str(tmp_path / "b")]) == 2
    assert "has no exercises" in capsys.readouterr().err
    (tmp_path / "c").mkdir()
    (tmp_path / "c" / "f").write_text("")
    assert main(["make-assignment", "optim", str(tmp_path / "c")]) == 2
    assert "not empty" in capsys.readouterr().err
    assert not (tmp_path / "a").exists() and not (tmp_path / "b").exists()
