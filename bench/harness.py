"""A small benchmark harness: each case is declared once and run for every library.

A :class:`Case` is ``(name, setup, {library: callable})``. ``setup(rng)`` returns
the inputs as NumPy arrays; the harness turns them into each library's own
tensors (a copy, so every library computes on memory it allocated) and times
``callable(*inputs)``. The callable should do what a user writes, e.g.
``lambda a, b: a + b``, so each call allocates its own output.

Two ways of timing, both the minimum over several repeats (the minimum is the
run least disturbed by the rest of the machine):

- ``per_call`` (small ops): ``number`` calls per repeat; the time of one call,
  minus the harness's own call overhead (a no-op function called the same way).
- ``large``: one call per repeat after a warm-up call (several calls when one
  call takes under ~20 ms, so the clock's resolution does not matter).

Before timing, each library's result is compared with NumPy's, so a fast wrong
answer shows up in the table.

Examples
--------
>>> import numpy as np
>>> from harness import Case, Config, run_case, available_libraries
>>> c = Case("a + b", "demo", lambda rng: (np.ones(4, np.float32),) * 2,
...          same=lambda a, b: a + b, timing="per_call")
>>> r = run_case(c, available_libraries(["numpy"]), Config(number=100, repeat=2))
>>> r.times["numpy"] > 0
True
"""
import contextlib
import dataclasses
import datetime
import json
import os
import platform
import subprocess
import sys
import time
import timeit

import numpy as np

NOT_IMPLEMENTED = "n/a (not implemented)"
LIBRARY_ORDER = ("cygrad", "numpy", "torch")


# ---- libraries ------------------------------------------------------------------

@dataclasses.dataclass
class Library:
    """How to move NumPy inputs into a library and its results back out."""
    name: str
    module: object
    convert: object       # np.ndarray -> the library's array (a copy)
    to_numpy: object      # result -> np.ndarray (or a NumPy scalar)

    @property
    def version(self):
        return getattr(self.module, "__version__", "?")


def _cygrad_library():
    import cygrad
    return Library("cygrad", cygrad, lambda a: cygrad.tensor(a),
                   lambda r: np.asarray(r.numpy()) if hasattr(r, "numpy") else np.asarray(r))


def _numpy_library():
    return Library("numpy", np, lambda a: a.copy(), np.asarray)


def _torch_library():
    import torch
    return Library("torch", torch, lambda a: torch.from_numpy(a.copy()),
                   lambda r: r.numpy() if hasattr(r, "numpy") else np.asarray(r))


_FACTORIES = {"cygrad": _cygrad_library, "numpy": _numpy_library, "torch": _torch_library}


def available_libraries(names=LIBRARY_ORDER):
    """The libraries among ``names`` that import here, in table order."""
    libs = {}
    for name in names:
        try:
            libs[name] = _FACTORIES[name]()
        except ImportError:
            pass
    return libs


# ---- cases and results ------------------------------------------------------------

@dataclasses.dataclass
class Case:
    """One benchmark: a name, a group (table section), inputs and one callable per library.

    ``same`` is a callable used for every library without its own entry in ``ops``.
    ``timing`` is ``"per_call"`` (many calls per repeat) or ``"large"`` (one call).
    """
    name: str
    group: str
    setup: object
    ops: dict = dataclasses.field(default_factory=dict)
    same: object = None
    timing: str = "large"
    rtol: float = 1e-4
    atol: float = 1e-5
    note: str = ""
    requires_grad: bool = False   # inputs require grad (autograd cases; NumPy has none)
    busy: int = 0                 # busy processes running beside the timing (see busy_processes)

    def op_for(self, lib_name):
        return self.ops.get(lib_name, self.same)


@dataclasses.dataclass
class Config:
    number: int = 100_000     # calls per repeat, per_call timing
    repeat: int = 5           # repeats per_call timing (min taken)
    large_repeat: int = 7     # repeats for large timing (min taken)
    seed: int = 0


@dataclasses.dataclass
class Result:
    case: Case
    times: dict               # library -> seconds per call, or None
    status: dict              # library -> "" | "n/a (not implemented)" | "error: ..." | "mismatch ..."

    def ratio(self, lib, baseline):
        t, b = self.times.get(lib), self.times.get(baseline)
        if t is None or b is None or b <= 0:
            return None
        return t / b

    def to_json(self):
        return {"name": self.case.name, "group": self.case.group, "timing": self.case.timing,
                "note": self.case.note, "seconds": self.times, "status": self.status,
                "ratio_cygrad_numpy": self.ratio("cygrad", "numpy"),
                "ratio_cygrad_torch": self.ratio("cygrad", "torch")}


def _classify_error(lib_name, exc):
    """Tell a missing op (expected while cygrad grows) from a real failure."""
    msg = str(exc)
    missing = (isinstance(exc, (AttributeError, NotImplementedError))
               or (isinstance(exc, TypeError) and "unsupported operand" in msg)
               or (isinstance(exc, RuntimeError) and "no implementation" in msg))
    if missing:
        return NOT_IMPLEMENTED
    return f"error: {type(exc).__name__}: {msg.splitlines()[0] if msg else ''}"[:200]


def _timer(fn, args):
    """A timeit.Timer calling ``fn(*args)`` with the arguments as local names.

    A statement string (not a closure) keeps the harness's own cost to one
    function call, which :func:`_call_overhead` then measures and subtracts.
    """
    names = [f"x{i}" for i in range(len(args))]
    env = dict(zip(names, args), fn=fn)
    return timeit.Timer(f"fn({', '.join(names)})", globals=env)


def _noop(*args):
    return None


def _call_overhead(nargs, config):
    """Seconds per call spent by the harness itself (calling a do-nothing function)."""
    t = _timer(_noop, (None,) * nargs)
    return min(t.repeat(repeat=config.repeat, number=config.number)) / config.number


def _time(case, fn, args, config):
    timer = _timer(fn, args)
    if case.timing == "per_call":
        best = min(timer.repeat(repeat=config.repeat, number=config.number)) / config.number
        return max(best - _call_overhead(len(args), config), 0.0)
    # Large ops: one call per repeat, unless a call is so short (a small matmul)
    # that the clock's resolution matters; then enough calls for ~20 ms a repeat.
    once = timer.timeit(number=1)
    number = max(1, min(1000, int(0.02 / max(once, 1e-9))))
    return min(timer.repeat(repeat=config.large_repeat, number=number)) / number


def _check(case, lib, result, expected):
    try:
        got = lib.to_numpy(result)
        if np.shape(got) != np.shape(expected):
            return f"mismatch: shape {np.shape(got)} vs NumPy {np.shape(expected)}"
        # a result in a wider dtype would be doing different (slower or faster) work
        if np.asarray(got).dtype != np.asarray(expected).dtype:
            return f"mismatch: dtype {np.asarray(got).dtype} vs NumPy {np.asarray(expected).dtype}"
        # (complex results compare as complex: a cast to float64 would drop their
        # imaginary parts)
        wide = np.result_type(np.asarray(got).dtype, np.asarray(expected).dtype, np.float64)
        if not np.allclose(np.asarray(got, wide), np.asarray(expected, wide),
                           rtol=case.rtol, atol=case.atol, equal_nan=True):
            return "mismatch: values differ from NumPy"
    except Exception as exc:  # a result we cannot even read back is a mismatch too
        return f"mismatch: {type(exc).__name__}: {exc}"
    return ""


def run_case(case, libs, config):
    """Time ``case`` for every library in ``libs``; never raises for a library's failure."""
    rng = np.random.default_rng(config.seed)
    inputs = case.setup(rng)
    expected = None
    if "numpy" in libs and case.op_for("numpy") is not None:
        # on copies: a loop that updates its weights in place must not move the
        # starting point of the libraries timed after it
        expected = case.op_for("numpy")(*(np.copy(x) for x in inputs))
    times, status = {}, {}
    for name, lib in libs.items():
        fn = case.op_for(name)
        times[name], status[name] = None, ""
        if fn is None and (case.requires_grad or name != "cygrad"):
            continue                # NumPy has no autograd: an empty cell, not "n/a"
        if fn is None:
            status[name] = NOT_IMPLEMENTED
            continue
        args = tuple(lib.convert(x) for x in inputs)
        if case.requires_grad:
            args = tuple(a.requires_grad_() for a in args)
        with busy_processes(case.busy):
            try:
                first = fn(*args)      # also the warm-up call
            except Exception as exc:
                status[name] = _classify_error(name, exc)
                continue
            if expected is not None and name != "numpy":
                status[name] = _check(case, lib, first, expected)
            del first
            times[name] = _time(case, fn, args, config)
        del args
    return Result(case, times, status)


@contextlib.contextmanager
def busy_processes(n):
    """Run ``n`` processes that spin on a core each for the duration of the block.

    They stand for "one other busy program on the machine": a timing taken
    inside shows how a library copes when it cannot have every core.

    Examples
    --------
    >>> with busy_processes(1) as procs:
    ...     [p.poll() is None for p in procs]
    [True]
    >>> [p.poll() is not None for p in procs]
    [True]
    """
    procs = [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                              stdin=subprocess.DEVNULL) for _ in range(n)]
    try:
        if procs:
            time.sleep(0.2)    # let them start spinning before anything is timed
        yield procs
    finally:
        for p in procs:
            p.kill()
            p.wait()


# ---- formatting -----------------------------------------------------------------------

def format_time(seconds):
    """Seconds as a short human string: ``'412 ns'``, ``'3.1 µs'``, ``'12.4 ms'``.

    Examples
    --------
    >>> format_time(4.12e-7), format_time(3.1e-6), format_time(0.0124), format_time(2.5)
    ('412 ns', '3.10 µs', '12.4 ms', '2.50 s')
    """
    if seconds is None:
        return "-"
    for unit, scale in (("s", 1.0), ("ms", 1e-3), ("µs", 1e-6)):
        if seconds >= scale:
            value = seconds / scale
            digits = 0 if value >= 100 else 1 if value >= 10 else 2
            return f"{value:.{digits}f} {unit}"
    return f"{seconds * 1e9:.0f} ns"


def format_ratio(r):
    return "-" if r is None else f"{r:.2f}x"


class Table:
    """Prints rows as results arrive (the rows double as progress)."""

    def __init__(self, libs, write=print):
        self.libs = list(libs)
        self.write = write
        self.group = None
        self.has_torch = "torch" in self.libs
        # the cygrad column is wide enough for "n/a (not implemented)"
        lib_widths = [len(NOT_IMPLEMENTED) + 2 if lib == "cygrad" else 12 for lib in self.libs]
        self.widths = [32] + lib_widths + [10] + ([10] if self.has_torch else [])

    def _line(self, cells):
        first, rest = cells[0], cells[1:]
        return f"{first:<{self.widths[0]}}" + "".join(
            f"{c:>{w}}" for c, w in zip(rest, self.widths[1:]))

    def header(self):
        cols = ["case"] + self.libs + ["cy/numpy"] + (["cy/torch"] if self.has_torch else [])
        self.write(self._line(cols))
        self.write("-" * sum(self.widths))

    def row(self, result):
        if result.case.group != self.group:
            self.group = result.case.group
            self.write(self.group)
        cells = ["  " + result.case.name]
        for lib in self.libs:
            status = result.status.get(lib, "")
            if result.times.get(lib) is None:
                if status == "":
                    cells.append("-")          # not applicable (NumPy has no autograd)
                else:
                    cells.append(NOT_IMPLEMENTED if status == NOT_IMPLEMENTED else "error")
            else:
                cells.append(format_time(result.times[lib]) + (" !" if status else ""))
        cells.append(format_ratio(result.ratio("cygrad", "numpy")))
        if self.has_torch:
            cells.append(format_ratio(result.ratio("cygrad", "torch")))
        self.write(self._line(cells))

    def footnotes(self, results):
        notes = []
        for r in results:
            for lib, status in r.status.items():
                if status and status != NOT_IMPLEMENTED:
                    notes.append(f"  {r.case.name} [{lib}]: {status}")
            if r.case.note:
                notes.append(f"  {r.case.name}: {r.case.note}")
        if notes:
            self.write("notes ('!' = result differs from NumPy's; 'error' = the call failed):")
            for n in notes:
                self.write(n)


# ---- environment -----------------------------------------------------------------------

BLAS_ENV_VARS = ("OPENBLAS_CORETYPE", "OPENBLAS_L2_SIZE", "OPENBLAS_NUM_THREADS",
                 "OMP_NUM_THREADS", "MKL_NUM_THREADS")


def cpu_count():
    """Cores this process may run on (what matters for threads), not the host's total."""
    try:
        return len(os.sched_getaffinity(0))
    except AttributeError:
        return os.cpu_count() or 1


def load_average():
    """The 1-minute load average, or None where the OS does not report it."""
    try:
        return round(os.getloadavg()[0], 2)
    except (AttributeError, OSError):
        return None


def load_warning(load, cores):
    """A line to print when other processes compete for the cores, else ''."""
    if load is None or load < cores * 0.75:
        return ""
    return (f"warning: load average {load:.1f} on {cores} cores: other processes are "
            f"competing for the CPU, so multi-threaded timings are unreliable")


def blas_info():
    """The BLAS NumPy uses, as a list of short strings (threadpoolctl when installed)."""
    try:
        from threadpoolctl import threadpool_info
    except ImportError:
        pass
    else:
        # Only BLAS pools: OpenMP runtimes (cygrad's, torch's) are listed too.
        return [f"{p.get('internal_api')} {p.get('version')} ({p.get('num_threads')} threads, "
                f"arch {p.get('architecture')}): {p.get('filepath')}"
                for p in threadpool_info() if p.get("user_api") == "blas"] or ["none loaded"]
    try:
        cfg = np.show_config(mode="dicts")
        blas = cfg["Build Dependencies"]["blas"]
        detail = blas.get("openblas configuration") or ""
        return [f"{blas.get('name')} {blas.get('version')} {detail}".strip()
                + " (from numpy.show_config; install threadpoolctl for thread counts)"]
    except Exception as exc:   # old NumPy without mode="dicts"
        return [f"unknown ({type(exc).__name__}); see numpy.show_config()"]


def environment(libs):
    """Everything that explains the numbers: machine, threads, versions, BLAS."""
    env = {
        "date": datetime.datetime.now().isoformat(timespec="seconds"),
        "python": platform.python_version(),
        "platform": platform.platform(),
        "processor": platform.processor() or platform.machine(),
        "cores": cpu_count(),
        "versions": {name: lib.version for name, lib in libs.items()},
        "blas": blas_info(),
        "blas_env": {k: os.environ.get(k) for k in BLAS_ENV_VARS},
        "load_average_before": load_average(),
    }
    if "cygrad" in libs:
        env["cygrad_threads"] = libs["cygrad"].module.get_num_threads()
    if "torch" in libs:
        env["torch_threads"] = libs["torch"].module.get_num_threads()
    return env


def describe_environment(env, write=print):
    cores = env["cores"]
    write(f"machine: {env['processor']}, {cores} core{'s' if cores != 1 else ''} available "
          f"to this process; {env['platform']}, Python {env['python']}")
    versions = ", ".join(f"{k} {v}" for k, v in env["versions"].items())
    write(f"versions: {versions}")
    threads = [f"cygrad {env['cygrad_threads']}"] if "cygrad_threads" in env else []
    threads.append("NumPy 1 (elementwise/reductions)")
    if "torch_threads" in env:
        threads.append(f"torch {env['torch_threads']}")
    write(f"threads: {', '.join(threads)}")
    for line in env["blas"]:
        write(f"BLAS: {line}")
    shown = ", ".join(f"{k}={v if v is not None else '(unset)'}" for k, v in env["blas_env"].items())
    write(f"BLAS env: {shown}")
    write(f"load average (1 min) before the run: {env['load_average_before']}")
    warning = load_warning(env["load_average_before"], cores)
    if warning:
        write(warning)
    if env["blas_env"].get("OPENBLAS_CORETYPE") or env["blas_env"].get("OPENBLAS_L2_SIZE"):
        write("  note: OPENBLAS_CORETYPE / OPENBLAS_L2_SIZE override OpenBLAS's CPU detection "
              "and can slow NumPy's matmul; unset them for a fair NumPy baseline")


def write_json(path, env, config, results, quick):
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    env = dict(env, load_average_after=load_average())
    data = {"environment": env, "quick": quick, "config": dataclasses.asdict(config),
            "results": [r.to_json() for r in results]}
    with open(path, "w") as f:
        json.dump(data, f, indent=2)
        f.write("\n")


def progress(iterable, total, enabled=True):
    """Wrap ``iterable`` in a tqdm progress bar when tqdm is installed (else unchanged)."""
    if enabled:
        try:
            from tqdm import tqdm
        except ImportError:
            pass
        else:
            return tqdm(iterable, total=total, leave=False, file=sys.stderr)
    return iterable


def writer_for(bar):
    """A print function that does not break a tqdm bar."""
    write = getattr(bar, "write", None)
    if write is None:
        return print
    return lambda s="": write(s, file=sys.stdout)
