"""Score ``cygrad.numpy`` on the array API conformance suite (data-apis/array-api-tests).

Runs the suite's pytest session against this checkout's ``cygrad.numpy`` and prints
how many tests passed, failed and were skipped, then each failure (and, with
``--show-skips``, each skip) with its first error line. The suite is not vendored:
point ``--suite`` (or ``ARRAY_API_TESTS_DIR``) at a checkout of it, with its
``array-api`` submodule; without one the script prints how to get it.

Usage::

    python bench/array_api_conformance.py --suite /path/to/array-api-tests
    python bench/array_api_conformance.py --suite ... --max-examples 20    # quicker
    python bench/array_api_conformance.py --suite ... -- -k floor_divide   # pytest args

The defaults are those of docs/numpy.md's figures: the suite's default of 100
Hypothesis examples per test, ``--disable-deadline`` (a loaded machine would turn
timing into failures), the standard version ``cygrad.numpy`` declares (2024.12).

Examples
--------
>>> summary = {"passed": 1340, "failed": 14, "skipped": 14}
>>> score_line(summary)
'1340 passed, 14 failed, 14 skipped of 1368 tests'
"""
import argparse
import os
import subprocess
import sys
import tempfile
import xml.etree.ElementTree as ET

REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))

HOW_TO_GET = """\
The array API test suite was not found{where}. Get it (and its spec submodule) with

    git clone --recursive https://github.com/data-apis/array-api-tests
    python -m pip install ndindex pytest-json-report    # its other requirements

(the figures in docs/numpy.md used commit {commit}), then run

    python bench/array_api_conformance.py --suite array-api-tests
"""
SUITE_COMMIT = "55fcc60"


def score_line(summary):
    """One line: passed, failed and skipped counts of all tests."""
    total = sum(summary.values())
    return (f"{summary['passed']} passed, {summary['failed']} failed, "
            f"{summary['skipped']} skipped of {total} tests")


def read_junit(path):
    """The outcome counts and the non-passing tests' ``(kind, name, first line)``."""
    summary = {"passed": 0, "failed": 0, "skipped": 0}
    problems = []
    for case in ET.parse(path).getroot().iter("testcase"):
        kind = "passed"
        for child in case:
            if child.tag in ("failure", "error"):
                kind = "failed"
            elif child.tag == "skipped":
                kind = "skipped"
            if kind != "passed":
                text = (child.get("message") or child.text or "").strip().splitlines()
                problems.append((kind, case.get("name"), text[0][:160] if text else ""))
                break
        summary[kind] += 1
    return summary, problems


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--suite", default=os.environ.get("ARRAY_API_TESTS_DIR"),
                        help="checkout of data-apis/array-api-tests (or ARRAY_API_TESTS_DIR)")
    parser.add_argument("--max-examples", type=int, default=100,
                        help="Hypothesis examples per test (the suite's default: 100)")
    parser.add_argument("--show-skips", action="store_true", help="list skipped tests too")
    parser.add_argument("pytest_args", nargs="*", help="extra pytest arguments, after --")
    args = parser.parse_args(argv)

    suite = args.suite
    if not suite or not os.path.isdir(os.path.join(suite, "array_api_tests")):
        print(HOW_TO_GET.format(where=f" at {suite!r}" if suite else "", commit=SUITE_COMMIT))
        return 2
    if not os.listdir(os.path.join(suite, "array-api")):
        print(f"{suite}/array-api is empty: run `git submodule update --init` in the suite.")
        return 2

    env = dict(os.environ, ARRAY_API_TESTS_MODULE="cygrad.numpy")
    env["PYTHONPATH"] = os.pathsep.join(p for p in (REPO, env.get("PYTHONPATH")) if p)
    with tempfile.TemporaryDirectory() as tmp:
        junit = os.path.join(tmp, "junit.xml")
        cmd = [sys.executable, "-m", "pytest", "array_api_tests", "-q", "-p", "no:cacheprovider",
               "--disable-deadline", f"--max-examples={args.max_examples}",
               f"--junitxml={junit}", *args.pytest_args]
        print("running:", " ".join(cmd), f"(in {suite}, ARRAY_API_TESTS_MODULE=cygrad.numpy)",
              flush=True)
        subprocess.run(cmd, cwd=suite, env=env, stdout=subprocess.DEVNULL)
        if not os.path.exists(junit):
            print("pytest wrote no report: run the command above by hand to see why")
            return 1
        summary, problems = read_junit(junit)
    print(score_line(summary))
    for kind, name, line in problems:
        if kind == "failed" or args.show_skips:
            print(f"  {kind.upper():7s} {name}\n          {line}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
