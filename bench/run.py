"""Benchmark cygrad against NumPy and PyTorch (CPU) in one run.

Usage::

    python bench/run.py            # full sizes (a minute or two)
    python bench/run.py --quick    # small sizes, fewer repeats (seconds)
    python bench/run.py -k matmul  # only cases whose name contains "matmul"
    python bench/run.py --busy 1   # every case with one busy process beside it

Prints one row per case: the time of one call for each library, then the ratios
cygrad/NumPy and cygrad/PyTorch (below 1.00x: cygrad is faster). Also writes
the numbers and the machine description to ``bench/results/latest.json``.
A cygrad op that does not exist yet shows as "n/a (not implemented)".
"""
import argparse
import dataclasses
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import harness  # noqa: E402
from cases import make_cases  # noqa: E402

DEFAULT_JSON = os.path.join(HERE, "results", "latest.json")


def parse_args(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true",
                   help="smaller large-op sizes and fewer calls/repeats")
    p.add_argument("-k", "--filter", default="",
                   help="run only cases whose name contains this text")
    p.add_argument("--libs", default=",".join(harness.LIBRARY_ORDER),
                   help="comma-separated libraries to run (default: %(default)s)")
    p.add_argument("--json", default=DEFAULT_JSON,
                   help="where to write the results (default: bench/results/latest.json; "
                        "'' to skip)")
    p.add_argument("--no-progress", action="store_true", help="no tqdm progress bar")
    p.add_argument("--busy", type=int, default=0,
                   help="run every case with this many busy processes beside it (cases "
                        "marked '1 busy process' always have one)")
    return p.parse_args(argv)


def config_for(quick):
    if quick:
        return harness.Config(number=10_000, repeat=3, large_repeat=3)
    return harness.Config(number=100_000, repeat=5, large_repeat=7)


def run(cases, libs, config, write=print, show_progress=True):
    """Run ``cases`` and print the table; returns the results."""
    table = harness.Table(libs, write)
    bar = harness.progress(cases, total=len(cases), enabled=show_progress)
    table.write = write if bar is cases else harness.writer_for(bar)
    table.header()
    results = []
    for case in bar:
        result = harness.run_case(case, libs, config)
        results.append(result)
        table.row(result)
    table.write = write
    table.footnotes(results)
    return results


def main(argv=None):
    args = parse_args(argv)
    names = [n.strip() for n in args.libs.split(",") if n.strip()]
    libs = harness.available_libraries(names)
    if "cygrad" not in libs:
        try:
            import cygrad  # noqa: F401  (only to show why it failed)
        except ImportError as exc:
            sys.exit(f"bench: cygrad does not import ({exc}); install it first: pip install -e .")
    missing = [n for n in names if n not in libs]
    cases = [c for c in make_cases(quick=args.quick) if args.filter in c.name]
    if args.busy:
        cases = [dataclasses.replace(c, busy=max(c.busy, args.busy)) for c in cases]
    config = config_for(args.quick)

    env = harness.environment(libs)
    print(f"cygrad benchmarks{' (--quick)' if args.quick else ''}")
    harness.describe_environment(env)
    if missing:
        print(f"not installed, skipped: {', '.join(missing)}")
    print(f"timing: min of {config.repeat} x {config.number:,} calls for small ops "
          f"(harness call overhead subtracted); min of {config.large_repeat} repeats for "
          f"large ops; every call allocates its own output")
    if args.busy:
        print(f"every case runs with {args.busy} busy process(es) beside it")
    print()
    results = run(cases, libs, config, show_progress=not args.no_progress)
    after = harness.load_average()
    print(f"\nload average (1 min) after the run: {after}")
    warning = harness.load_warning(after, env["cores"])
    if warning:
        print(warning)
    if args.json:
        harness.write_json(args.json, env, config, results, args.quick)
        print(f"results written to {os.path.relpath(args.json)}")
    return results


if __name__ == "__main__":
    main()
