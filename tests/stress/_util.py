"""Helpers for the stress suite: run code in a child interpreter, count live tensors, read RSS.

A memory bug in the core is a segfault or an abort, which would kill pytest and hide
every later test; code that may crash runs in a child process instead, where a crash is
an ordinary test failure that names the signal and shows the child's output (and, in the
sanitizer stage, the AddressSanitizer/UBSan report the child wrote).
"""
import glob
import os
import signal
import subprocess
import sys
import textwrap
import weakref

# The tree the tests belong to: a child process imports this cygrad, not an installed one
# (the sanitizer stage runs these tests in a scratch copy built with ASan).
REPO_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def _describe_exit(code):
    if code < 0:
        try:
            return f"killed by {signal.Signals(-code).name}"
        except ValueError:
            return f"killed by signal {-code}"
    return f"exit status {code}"


def _sanitizer_reports(pid):
    """Reports that ASan/UBSan wrote for process ``pid`` (log_path=<dir>/asan -> asan.<pid>)."""
    where = os.environ.get("CYGRAD_SANITIZER_REPORTS")
    if not where:
        return ""
    texts = []
    for path in sorted(glob.glob(os.path.join(where, f"*.{pid}"))):
        with open(path, errors="replace") as f:
            texts.append(f"--- {os.path.basename(path)}\n{f.read()}")
    return "\n".join(texts)


def run_in_subprocess(code, timeout=120):
    """Run ``code`` (dedented) in a fresh interpreter that imports this tree's cygrad.

    Returns the child's stdout. Fails the calling test when the child crashes, raises or
    times out, with the child's output in the message.

    Examples
    --------
    >>> run_in_subprocess("import cygrad; print(cygrad.ones(3).sum().item())")
    '3.0\\n'
    """
    env = dict(os.environ)
    # tests/ too, so the child can import this helper module (``from stress._util import ...``)
    path = [REPO_ROOT, os.path.join(REPO_ROOT, "tests"), env.get("PYTHONPATH")]
    env["PYTHONPATH"] = os.pathsep.join(filter(None, path))
    proc = subprocess.Popen([sys.executable, "-c", textwrap.dedent(code)], cwd=REPO_ROOT, env=env,
                            stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    try:
        out, err = proc.communicate(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        out, err = proc.communicate()
        raise AssertionError(f"child process timed out after {timeout} s\n"
                             f"--- stdout\n{out}\n--- stderr\n{err}") from None
    reports = _sanitizer_reports(proc.pid)
    if proc.returncode != 0 or reports:
        raise AssertionError(f"child process failed: {_describe_exit(proc.returncode)}\n"
                             f"--- stdout\n{out[-4000:]}\n--- stderr\n{err[-8000:]}\n{reports}")
    return out


class LiveTensors:
    """Weak references to tensors, to count how many are still alive.

    Examples
    --------
    >>> import cygrad
    >>> live = LiveTensors()
    >>> x = live.track(cygrad.ones(2))
    >>> live.count()
    1
    >>> del x
    >>> live.count()
    0
    """

    def __init__(self):
        self._refs = []

    def track(self, t):
        self._refs.append(weakref.ref(t))
        return t

    def count(self):
        return sum(r() is not None for r in self._refs)


def rss_bytes():
    """Resident set size of this process (Linux), from /proc/self/statm.

    Examples
    --------
    >>> rss_bytes() > 0
    True
    """
    with open("/proc/self/statm") as f:
        resident_pages = int(f.read().split()[1])
    return resident_pages * os.sysconf("SC_PAGE_SIZE")
