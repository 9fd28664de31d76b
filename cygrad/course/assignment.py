"""Make an assignment: a copy of cygrad with one lesson's exercises blanked.

The copy holds the whole ``cygrad`` package (compiled extensions included, so it
imports), the lesson's script, and the test files that grade it with the test
support they import (``tests/conftest.py``, the helper modules beside the test files,
the op table in ``tests/opinfo``). Only the lesson's regions change; every other file
is copied byte for byte. ``course.json`` records the lesson, its exercises and the
command that grades the copy.

Examples
--------
>>> import os, tempfile
>>> from cygrad.course.assignment import make_assignment
>>> with tempfile.TemporaryDirectory() as tmp:
...     manifest = make_assignment("optim", os.path.join(tmp, "hw"))
>>> manifest["exercises"]
['sgd-update', 'adam-update']
"""
import json
import os
import shutil
from pathlib import Path

from .catalogue import lesson as find_lesson
from .regions import blank, find_regions

__all__ = ["make_assignment", "repo_root", "MANIFEST", "test_files"]

MANIFEST = "course.json"
_SKIP = shutil.ignore_patterns("__pycache__", "*.pyc", ".pytest_cache", ".hypothesis")


def repo_root():
    """The source checkout this cygrad was imported from (it must hold ``tests/``
    and ``examples/course/``: an installed wheel has neither).

    Examples
    --------
    >>> from cygrad.course.assignment import repo_root
    >>> (repo_root() / "examples" / "course").is_dir()
    True
    """
    root = Path(__file__).resolve().parents[2]
    if not (root / "tests").is_dir() or not (root / "examples" / "course").is_dir():
        raise FileNotFoundError(
            f"{root} is not a cygrad source checkout (no tests/ or examples/course/): "
            "the course tool needs the repository, e.g. `pip install -e .` from a clone")
    return root


def test_files(les):
    """The test files (repository-relative) that grade lesson ``les``.

    Examples
    --------
    >>> from cygrad.course.assignment import test_files
    >>> from cygrad.course.catalogue import lesson
    >>> test_files(lesson("graph"))
    ['tests/course/test_lesson05_graph.py', 'tests/test_autograd_ops.py']
    """
    return sorted({t.split("::")[0] for ex in les.exercises for t in ex.tests})


def _support_files(root, tests):
    """Non-test files the graded test files import: every ``*.py`` that is not a
    ``test_*.py`` in each of their folders up to ``tests/``, plus ``tests/opinfo``."""
    wanted = set()
    for t in tests:
        folder = (root / t).parent
        while True:
            wanted.update(p for p in folder.glob("*.py") if not p.name.startswith("test_"))
            if folder == root / "tests":
                break
            folder = folder.parent
    return sorted(str(p.relative_to(root)) for p in wanted)


def _copy(root, out, rel):
    dest = out / rel
    dest.parent.mkdir(parents=True, exist_ok=True)
    shutil.copy2(root / rel, dest)


def make_assignment(lesson, out, *, solution=False):
    """Write lesson ``lesson``'s assignment into the new folder ``out`` and return its
    manifest. With ``solution=True`` nothing is blanked (an answer key, which
    ``check`` must grade as fully passing).

    Examples
    --------
    >>> import os, tempfile
    >>> from cygrad.course.assignment import make_assignment
    >>> with tempfile.TemporaryDirectory() as tmp:
    ...     key = make_assignment(9, os.path.join(tmp, "key"), solution=True)
    >>> key["blanked"]
    False
    """
    les = find_lesson(lesson)
    if not les.exercises:
        raise ValueError(f"lesson {les.name} has no exercises to blank (it is read and run, "
                         "not graded)")
    root, out = repo_root(), Path(out)
    if out.exists() and any(out.iterdir()):
        raise FileExistsError(f"{out} exists and is not empty")
    out.mkdir(parents=True, exist_ok=True)
    shutil.copytree(root / "cygrad", out / "cygrad", ignore=_SKIP)
    tests = test_files(les)
    for rel in [les.script] + tests + _support_files(root, tests):
        _copy(root, out, rel)
    shutil.copytree(root / "tests" / "opinfo", out / "tests" / "opinfo", ignore=_SKIP,
                    dirs_exist_ok=True)
    if not solution:
        hints = {ex.id: ex.hint for ex in les.exercises}
        for path in sorted({ex.path for ex in les.exercises}):
            text = (root / path).read_text()
            ids = {ex.id for ex in les.exercises if ex.path == path}
            found = {r.exercise for r in find_regions(text, path)}
            if not ids <= found:
                raise ValueError(f"{path} has no region for {sorted(ids - found)}")
            (out / path).write_text(blank(text, hints, only=ids))
    manifest = {
        "lesson": les.name,
        "title": les.title,
        "blanked": not solution,
        "exercises": [ex.id for ex in les.exercises],
        "files": {ex.id: ex.path for ex in les.exercises},
        "hints": {ex.id: ex.hint for ex in les.exercises},
        "script": les.script,
        "check": f"python -m cygrad.course check {os.fspath(out)}",
    }
    (out / MANIFEST).write_text(json.dumps(manifest, indent=2) + "\n")
    return manifest
