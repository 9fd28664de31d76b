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

from .runner import (campaign, check_known, failure_record, format_summary, is_failure, pin_failures,
                     refresh_known, summarise, write_known)


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
    parser.add_argument("--pin", metavar="JSONL",
                        help="add the still-failing classes of a campaign's failure file to "
                             "tests/fuzz/known_failures.json, then exit")
    parser.add_argument("--refresh-known", action="store_true",
                        help="re-run tests/fuzz/known_failures.json: drop fixed classes, "
                             "re-file changed ones, then exit")
    parser.add_argument("--check-known", metavar="OP[,OP...]",
                        help="re-run the known failures of these ops and print which still "
                             "fail; the file is not changed")
    args = parser.parse_args(argv)
    if args.check_known:
        results = check_known(set(args.check_known.split(",")), case_timeout=args.timeout)
        still = 0
        for key, v in results:
            if is_failure(v):
                still += 1
                now = v["class"] if v["class"] != key else "same class"
                print(f"FAILS  {key}  ({now})\n       cygrad:    {str(v.get('cy_outcome') or v.get('detail'))[:160]}"
                      f"\n       reference: {str(v.get('ref_outcome'))[:160]}")
            else:
                print(f"fixed  {key}")
        print(f"{len(results) - still} of {len(results)} fixed")
        return
    if args.refresh_known:
        removed, renamed = refresh_known(case_timeout=args.timeout)
        print(f"{len(removed)} classes fixed (removed), {len(renamed)} changed class")
        for line in removed + renamed:
            print("  " + line)
        return
    if args.pin:
        with open(args.pin) as f:
            added = pin_failures([json.loads(line) for line in f], case_timeout=args.timeout)
        print(f"{len(added)} classes pinned")
        for key in added:
            print("  " + key)
        return
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
