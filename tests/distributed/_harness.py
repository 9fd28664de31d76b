"""Running test programs on several MPI ranks from pytest.

A *checks module* holds ``check_*(rank, size, ctx)`` functions. ``rank_worker.py``
runs them all, in one order on every rank, under ``python -m
cygrad.distributed.run -n N``, and writes each rank's results (``"ok"`` or the
traceback) to ``OUTDIR/rank<r>.json``; pytest reads those files and reports each
check as a test. One MPI launch serves a whole module of checks, since starting a job
costs about a second.
"""
import json
import os
import subprocess
import sys

import pytest

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))


def mpi_or_skip():
    """Skip (saying why) where MPI cannot be installed; otherwise return nothing."""
    try:
        import mpi4py  # noqa: F401  (only the package: importing mpi4py.MPI would start MPI here)
    except ImportError:
        pytest.skip("MPI cannot be used here: mpi4py is not installed (the 'distributed' "
                    "extra installs it with Open MPI from PyPI)")
    from cygrad.distributed.run import find_mpiexec
    try:
        find_mpiexec()
    except SystemExit as e:
        pytest.skip(f"MPI cannot be used here: {e}")


def check_names(module):
    return sorted(n for n in dir(module) if n.startswith("check_"))


def launch(args, n, timeout=240, env=None):
    """Run ``python -m cygrad.distributed.run -n N ARGS``; the CompletedProcess."""
    full_env = dict(os.environ if env is None else env)
    full_env["PYTHONPATH"] = os.pathsep.join([ROOT, HERE, full_env.get("PYTHONPATH", "")])
    full_env.setdefault("CYGRAD_NUM_THREADS", "1")
    cmd = [sys.executable, "-m", "cygrad.distributed.run", "-n", str(n), *args]
    return subprocess.run(cmd, capture_output=True, text=True, timeout=timeout, env=full_env,
                          cwd=ROOT)


def run_checks(module_name, n, outdir, timeout=240):
    """Run every check of ``module_name`` on ``n`` ranks; ``{rank: {check: result}}``."""
    proc = launch([os.path.join(HERE, "rank_worker.py"), module_name, str(outdir)], n, timeout)
    results = {}
    for r in range(n):
        path = os.path.join(outdir, f"rank{r}.json")
        if os.path.exists(path):
            with open(path) as f:
                results[r] = json.load(f)
    if len(results) != n:
        raise AssertionError(f"the job of {n} ranks did not report from every rank (exit code "
                             f"{proc.returncode})\nstdout:\n{proc.stdout[-4000:]}\n"
                             f"stderr:\n{proc.stderr[-4000:]}")
    return results


def assert_check(results, name):
    failures = {r: res.get(name, "did not run") for r, res in results.items()
                if res.get(name) != "ok"}
    assert not failures, "\n".join(f"rank {r}: {msg}" for r, msg in failures.items())
