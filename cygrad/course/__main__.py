"""``python -m cygrad.course``: list the lessons, make an assignment, grade one.

Examples
--------
>>> from cygrad.course.__main__ import main
>>> main(["list"])  # doctest: +ELLIPSIS
01_chain_rule  Scalars and the chain rule
...
0
"""
import argparse
import sys

from .catalogue import LESSONS

__all__ = ["main"]


def _list(args):
    for les in LESSONS:
        print(f"{les.name:<{max(len(x.name) for x in LESSONS)}}  {les.title}")
        for ex in les.exercises:
            print(f"    {ex.id}  ({ex.path})")
    return 0


def _make(args):
    from .assignment import make_assignment
    manifest = make_assignment(args.lesson, args.out, solution=args.solution)
    what = "answer key (nothing blanked)" if args.solution else "assignment"
    print(f"{manifest['lesson']} {what} written to {args.out}")
    for ex in manifest["exercises"]:
        print(f"    {ex}  in {manifest['files'][ex]}")
    print(f"lesson script: {manifest['script']}")
    print(f"grade it with: {manifest['check']}")
    return 0


def _check(args):
    from .grading import check
    return 0 if check(args.out, timeout=args.timeout).complete else 1


def main(argv=None):
    """Run the command line on ``argv`` (default ``sys.argv[1:]``); return the exit code.

    Examples
    --------
    >>> from cygrad.course.__main__ import main
    >>> main(["make-assignment", "tensors", "/tmp/never-written"])  # prints why, to stderr
    2
    """
    parser = argparse.ArgumentParser(prog="python -m cygrad.course",
                                     description="cygrad's course: lessons, assignments, grading")
    sub = parser.add_subparsers(dest="command", required=True)
    sub.add_parser("list", help="the lessons and their exercises").set_defaults(run=_list)
    make = sub.add_parser("make-assignment",
                          help="copy cygrad with a lesson's exercises blanked")
    make.add_argument("lesson", help="number, name or NN_name of the lesson")
    make.add_argument("out", help="new (or empty) folder to write the assignment into")
    make.add_argument("--solution", action="store_true",
                      help="blank nothing: an answer key that check must pass")
    make.set_defaults(run=_make)
    chk = sub.add_parser("check", help="grade an assignment folder with the lesson's tests")
    chk.add_argument("out", help="a folder written by make-assignment")
    chk.add_argument("--timeout", type=float, default=600,
                     help="seconds before the tests are stopped (default 600)")
    chk.set_defaults(run=_check)
    args = parser.parse_args(argv)
    try:
        return args.run(args)
    except (KeyError, ValueError, FileNotFoundError, FileExistsError) as e:
        # a wrong lesson name or folder is the user's slip, not a crash: no traceback
        print(f"{parser.prog}: error: {e.args[0] if e.args else e}", file=sys.stderr)
        return 2


if __name__ == "__main__":
    sys.exit(main())
