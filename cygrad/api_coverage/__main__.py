"""``python -m cygrad.api_coverage [--output PATH] [--check]``: print the summary table
and write the coverage document (default ``docs/api_coverage.md`` of this checkout)."""
import argparse
import os
import sys

from . import coverage, _torch
from .report import markdown, summary_text

DEFAULT = os.path.join(os.path.dirname(os.path.dirname(os.path.dirname(
    os.path.abspath(__file__)))), "docs", "api_coverage.md")


def main(argv=None):
    parser = argparse.ArgumentParser(prog="python -m cygrad.api_coverage",
                                     description="Compare cygrad's names with PyTorch's.")
    parser.add_argument("--output", default=DEFAULT, help="where to write the Markdown page")
    parser.add_argument("--check", action="store_true",
                        help="write nothing; exit 1 if the page differs from a fresh run")
    args = parser.parse_args(argv)
    try:
        torch = _torch()
    except ImportError as exc:
        print(exc, file=sys.stderr)
        return 2
    reports = coverage()
    text = markdown(reports, torch.__version__.split("+")[0])
    print(summary_text(reports))
    if args.check:
        try:
            with open(args.output, encoding="utf-8") as f:
                current = f.read() == text
        except FileNotFoundError:
            current = False
        print(f"{args.output} is {'current' if current else 'out of date'}")
        return 0 if current else 1
    with open(args.output, "w", encoding="utf-8") as f:
        f.write(text)
    print(f"wrote {args.output}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
