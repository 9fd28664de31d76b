"""``python -m tests.fuzz --minutes N`` (from the repository root): a fuzz campaign.

Prints a summary table (cases run, verdicts per kind, failure classes) and
writes every failure, with a reproducer, to ``--out`` (JSONL).  See
docs/fuzzing.md.
"""
import argparse
import json
import os
import sys
import time

from .runner import campaign, failure_record, format_summary, is_failure, summarise, write_known


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m tests.fuzz", description=__doc__)
    parser.add_argument("--minutes", type=float, default=None, help="run for this long")
    parser.add_argument("--cases", type=int, default=None, help="run this many cases")
    parser.add_argument("--seed", type=int, default=int(time.time()) % 100000,
                        help="campaign seed (case i of seed s is always the same case)")
    parser.add_argument("--batch", type=int, default=400, help="cases per child process")
    parser.add_argument("--jobs", type=int, default=1, help="child processes at once")
    parser.add_argument("--timeout", type=float, default=20.0, help="seconds before a case is a hang")
    parser.add_argument("--no-torch", action="store_true",
                        help="judge against the op table's NumPy references only")
    parser.add_argument("--out", default="fuzz_failures.jsonl", help="JSONL of failures")
    parser.add_argument("--write-known", action="store_true",
                        help="rewrite tests/fuzz/known_failures.json from this run's classes")
    args = parser.parse_args(argv)
    if args.minutes is None and args.cases is None:
        args.minutes = 1.0
    started = time.monotonic()

    def progress(verdicts):
        counts, classes = summarise(verdicts)
        bad = sum(n for n, _ in classes.values())
        print(f"[{time.monotonic() - started:6.0f} s] {len(verdicts)} cases, {bad} failures "
              f"in {len(classes)} classes, {counts.get('crash', 0)} crashes, "
              f"{counts.get('hang', 0)} hangs", file=sys.stderr, flush=True)

    print(f"seed {args.seed}", file=sys.stderr)
    verdicts = campaign(args.seed, n_cases=args.cases, minutes=args.minutes, batch=args.batch,
                        jobs=args.jobs, use_torch=not args.no_torch, case_timeout=args.timeout,
                        progress=progress)
    with open(args.out, "w") as f:
        for v in verdicts:
            if is_failure(v):
                f.write(json.dumps(failure_record(v)) + "\n")
    print(f"seed {args.seed}")
    print(format_summary(verdicts, time.monotonic() - started))
    print(f"failures written to {os.path.abspath(args.out)}")
    if args.write_known:
        write_known(summarise(verdicts)[1])


if __name__ == "__main__":
    main()
