"""Run pytest on an assignment copy: the grading subprocess of ``check``.

Started by path (``python _pytest_runner.py OUT RESULTS PATTERNS ARGS...``) with the
copy as working directory. It puts the copy first on ``sys.path``, refuses to go on
unless ``import cygrad`` finds the copy's package (not the installed one), keeps
only the tests whose node ids match the exercises' patterns, and writes each test's
outcome to the RESULTS JSON file. It imports nothing of cygrad itself.

Examples
--------
>>> from cygrad.course._pytest_runner import matches
>>> matches("tests/test_ops.py::test_a[SGD-lr=1]", "tests/test_ops.py::test_a[SGD-*")
True
>>> matches("tests/test_ops.py::test_a[x]", "tests/test_ops.py::test_a"), matches("tests/test_ops.py::test_ab", "tests/test_ops.py::test_a")
(True, False)
"""
import json
import os
import re
import sys


def matches(nodeid, pattern):
    """Does node id ``nodeid`` belong to ``pattern``? ``*`` matches anything; a pattern
    without one also covers the parametrized cases of the test it names."""
    if "*" in pattern:
        regex = ".*".join(re.escape(part) for part in pattern.split("*"))
        return re.fullmatch(regex, nodeid) is not None
    return nodeid == pattern or nodeid.startswith(pattern + "[") or \
        nodeid.startswith(pattern + "::")


class _Grader:
    """pytest plugin: select the exercises' tests and record every outcome."""

    def __init__(self, patterns):
        self.patterns = patterns
        self.outcomes = {}

    def pytest_collection_modifyitems(self, config, items):
        keep = [i for i in items if any(matches(i.nodeid, p) for p in self.patterns)]
        dropped = [i for i in items if i not in keep]
        if dropped:
            config.hook.pytest_deselected(items=dropped)
        items[:] = keep

    def pytest_runtest_logreport(self, report):
        previous = self.outcomes.get(report.nodeid, {"outcome": "passed", "message": ""})
        if report.failed:
            lines = (report.longreprtext or "").strip().splitlines()
            self.outcomes[report.nodeid] = {"outcome": "failed",
                                            "message": re.sub(r"^E\s+", "", lines[-1]) if lines
                                            else report.when}
        elif report.skipped and previous["outcome"] != "failed":
            self.outcomes[report.nodeid] = {"outcome": "skipped", "message": ""}
        elif report.when == "call" and previous["outcome"] == "passed":
            self.outcomes[report.nodeid] = previous


def main(argv):
    out, results, patterns, args = os.path.realpath(argv[0]), argv[1], json.loads(argv[2]), argv[3:]
    sys.path[0:1] = [out]           # replaces this script's own folder
    import cygrad
    where = os.path.realpath(cygrad.__file__)
    print(f"cygrad imported from {where}", flush=True)
    if not where.startswith(out + os.sep):
        print(f"refusing to grade: cygrad did not come from the copy in {out}", flush=True)
        return 3
    import pytest
    grader = _Grader(patterns)
    code = pytest.main(["-q", "-p", "no:cacheprovider", "--tb=line", f"--rootdir={out}",
                        f"--confcutdir={out}"] + args, plugins=[grader])
    with open(results, "w") as f:
        json.dump({"exit_code": int(code), "cygrad_file": where, "tests": grader.outcomes}, f)
    return int(code)


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
