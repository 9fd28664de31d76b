"""Exercise regions in the source: find the ``# course:`` markers and blank them.

An exercise is a run of lines between two comment lines::

    # course: begin sgd-update
    ...the code a student writes...
    # course: end sgd-update

The markers are plain comments, so they change nothing when the code runs. Blanking
replaces the lines between them (the markers stay, to show where to write) with one
``raise NotImplementedError("exercise <id>: <hint>")`` at the begin marker's
indentation. A region must lie inside a function body, so a blanked module still
imports: the ``raise`` runs only when the exercise's code is called.

Examples
--------
>>> from cygrad.course.regions import blank, find_regions
>>> src = '''def double(x):
...     # course: begin double
...     return 2 * x
...     # course: end double
... '''
>>> [(r.exercise, r.begin, r.end) for r in find_regions(src)]
[('double', 1, 3)]
>>> print(blank(src, {"double": "multiply by two"}), end="")
def double(x):
    # course: begin double
    raise NotImplementedError('exercise double: multiply by two')
    # course: end double
"""
import ast
import re
from dataclasses import dataclass

__all__ = ["Region", "find_regions", "blank", "MARKER"]

MARKER = re.compile(r"^(?P<indent>[ \t]*)# course: (?P<kind>begin|end) (?P<id>[A-Za-z0-9_.-]+)[ \t]*$")


@dataclass(frozen=True)
class Region:
    """One exercise region: ``begin`` and ``end`` are the 0-based line numbers of its
    two marker lines; ``indent`` is the begin marker's leading whitespace.

    Examples
    --------
    >>> from cygrad.course.regions import Region
    >>> Region("sgd-update", 10, 25, "        ").end
    25
    """
    exercise: str
    begin: int
    end: int
    indent: str


def find_regions(text, filename="<source>"):
    """The regions marked in ``text``, in order; ValueError if the markers are
    unbalanced, nested, or a region is not inside a function body.

    Examples
    --------
    >>> from cygrad.course.regions import find_regions
    >>> find_regions("x = 1\\n")
    []
    """
    regions, open_ = [], None
    for n, line in enumerate(text.split("\n")):
        m = MARKER.match(line)
        if m is None:
            continue
        ex = m.group("id")
        if m.group("kind") == "begin":
            if open_ is not None:
                raise ValueError(f"{filename}:{n + 1}: 'begin {ex}' inside region "
                                 f"'{open_[0]}' (regions do not nest)")
            open_ = (ex, n, m.group("indent"))
        else:
            if open_ is None or open_[0] != ex:
                raise ValueError(f"{filename}:{n + 1}: 'end {ex}' without a matching begin")
            regions.append(Region(ex, open_[1], n, open_[2]))
            open_ = None
    if open_ is not None:
        raise ValueError(f"{filename}:{open_[1] + 1}: region '{open_[0]}' is never ended")
    if regions:
        _check_inside_functions(text, regions, filename)
    return regions


def _check_inside_functions(text, regions, filename):
    """Each region's code must belong to one function (so the module imports when it is
    blanked) and hold no ``yield`` (blanking it would turn a generator into a function)."""
    tree = ast.parse(text, filename)
    functions = [node for node in ast.walk(tree)
                 if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef))]
    for r in regions:
        first, last = r.begin + 2, r.end         # 1-based lines strictly between markers
        if not any(f.body[0].lineno <= first and last <= f.end_lineno for f in functions):
            raise ValueError(f"{filename}:{r.begin + 1}: region '{r.exercise}' is not inside "
                             f"a function body")
        for node in ast.walk(tree):
            if isinstance(node, (ast.Yield, ast.YieldFrom)) and first <= node.lineno <= last:
                raise ValueError(f"{filename}:{node.lineno}: region '{r.exercise}' holds a "
                                 f"yield; blanking it would change what the function is")


def blank(text, hints, only=None):
    """``text`` with the regions named in ``only`` (default: all) blanked; ``hints``
    maps an exercise id to the hint its ``raise`` carries. Lines outside those
    regions are returned unchanged.

    Examples
    --------
    >>> from cygrad.course.regions import blank
    >>> blank("a = 1\\n", {})
    'a = 1\\n'
    """
    lines = text.split("\n")
    for r in reversed(find_regions(text)):
        if only is not None and r.exercise not in only:
            continue
        message = f"exercise {r.exercise}: {hints.get(r.exercise, 'write this part')}"
        lines[r.begin + 1:r.end] = [f"{r.indent}raise NotImplementedError({message!r})"]
    return "\n".join(lines)
