"""The documentation site's table of contents and its pages agree, and what the pages
and the code's docstrings name exists.

Building the site (``python -m sphinx -W ...``, README.md "Documentation") is CI's
docs stage; this cheap check runs with the tests: every entry of a ``toctree`` in
``docs/`` names a page that exists, and every page in ``docs/`` is reachable from
the root page ``docs/index.md`` through the toctrees (Sphinx would warn about a
page in no toctree, and fail the docs stage).
"""
import os
import re

import pytest

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")

# Pages deliberately left out of every toctree, with the reason.
EXCLUDED = {}

_MD_TOCTREE = re.compile(r"^```\{toctree\}\n(.*?)^```", re.S | re.M)
_RST_TOCTREE = re.compile(r"^\.\. toctree::\n((?:[ \t]+.*\n|\n)*)", re.M)


def _pages():
    """Every source page under docs/, as a docname ('api/index'), without _build."""
    pages = set()
    for here, dirs, files in os.walk(DOCS):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        for name in files:
            stem, ext = os.path.splitext(name)
            if ext in (".md", ".rst"):
                rel = os.path.relpath(os.path.join(here, stem), DOCS)
                pages.add(rel.replace(os.sep, "/"))
    return pages


def _entries(docname):
    """The toctree entries of one page, as docnames."""
    path = os.path.join(DOCS, *docname.split("/"))
    path += ".md" if os.path.exists(path + ".md") else ".rst"
    with open(path, encoding="utf-8") as f:
        text = f.read()
    bodies = _MD_TOCTREE.findall(text) + _RST_TOCTREE.findall(text)
    folder = os.path.dirname(docname)
    entries = []
    for body in bodies:
        for line in body.splitlines():
            line = line.strip()
            if not line or line.startswith(":"):
                continue
            target = line[1:] if line.startswith("/") else (
                f"{folder}/{line}" if folder else line)
            entries.append(target)
    return entries


def test_every_toctree_entry_exists():
    pages = _pages()
    assert "index" in pages and len(pages) > 10      # the walk found the site
    missing = {(page, entry) for page in pages for entry in _entries(page)
               if entry not in pages}
    assert not missing, f"toctree entries naming no page (docname, entry): {missing}"


def test_every_page_is_in_the_toctree():
    pages = _pages()
    seen, todo = {"index"}, ["index"]
    while todo:
        for entry in _entries(todo.pop()):
            if entry in pages and entry not in seen:
                seen.add(entry)
                todo.append(entry)
    orphans = pages - seen - set(EXCLUDED)
    assert not orphans, (f"pages in docs/ that no toctree reaches: {sorted(orphans)}; add them "
                         f"to a toctree in docs/index.md, or to EXCLUDED here with the reason")


def test_the_pages_the_site_promises_are_there():
    # the chapters README.md and docs/index.md announce
    for page in ("getting_started", "pytorch", "numpy", "tensor", "autograd", "custom_function",
                 "nn", "optim", "data", "cuda", "architecture", "api/index"):
        assert page in _pages(), page


# ---- what the pages name exists ----------------------------------------------------

REPO = os.path.dirname(DOCS)

# Names the pages mention on purpose although they do not import here, and why.
ABSENT_ON_PURPOSE = {
    "cygrad.utils.tensorboard": "needs the optional tensorboard package",
    "cygrad.utils.tensorboard.SummaryWriter": "needs the optional tensorboard package",
}


def _markdown_pages():
    pages = [os.path.join(REPO, "README.md")]
    for here, dirs, files in os.walk(DOCS):
        dirs[:] = [d for d in dirs if not d.startswith(("_", "."))]
        pages += [os.path.join(here, f) for f in files if f.endswith(".md")]
    return pages


def _resolves(dotted):
    import importlib
    parts = dotted.split(".")
    for i in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:i]))
        except ImportError:
            continue
        for attr in parts[i:]:
            if not hasattr(obj, attr):
                return False
            obj = getattr(obj, attr)
        return True
    return False


def test_every_cygrad_name_in_the_pages_exists():
    missing = set()
    for page in _markdown_pages():
        with open(page, encoding="utf-8") as f:
            names = set(re.findall(r"`(cygrad(?:\.[A-Za-z_]\w*)+)", f.read()))
        missing |= {(os.path.relpath(page, REPO), n) for n in names
                    if n not in ABSENT_ON_PURPOSE and not _resolves(n)}
    assert not missing, f"names the pages mention that do not exist: {sorted(missing)}"


def _generated(path):
    # C files Cython writes from a .pyx at build time (a sanitizer report quotes them)
    return path.endswith(".c") and os.path.exists(os.path.join(REPO, path[:-2] + ".pyx"))


def _source_files():
    found = []
    for here, dirs, files in os.walk(os.path.join(REPO, "cygrad")):
        dirs[:] = [d for d in dirs if not d.startswith((".", "__"))]
        found += [os.path.join(here, f) for f in files
                  if f.endswith((".py", ".pyx", ".pxi", ".pxd")) or
                  (f.endswith((".c", ".h")) and here.endswith("cpu"))]
    return found


@pytest.mark.needs_checkout
def test_every_source_path_in_the_pages_and_the_code_exists():
    pattern = re.compile(r"\b((?:cygrad|tests|bench|examples|cuda_src)/[\w./-]*\w\.(?:py|pyx|pxi|pxd|c|h|cu|md|sh))\b")
    missing = set()
    for page in _markdown_pages() + _source_files():
        with open(page, encoding="utf-8") as f:
            paths = set(pattern.findall(f.read()))
        missing |= {(os.path.relpath(page, REPO), p) for p in paths
                    if not os.path.exists(os.path.join(REPO, p)) and not _generated(p)}
    assert not missing, f"files the pages name that are not in the repository: {sorted(missing)}"


def test_no_file_cites_a_design_document_outside_the_repository():
    # docs/architecture.md is the project's own architecture page; the code cites it
    outside = "DESIGN" + ".md"
    citing = [os.path.relpath(f, REPO) for f in _markdown_pages() + _source_files()
              if outside in open(f, encoding="utf-8").read()]
    assert not citing, citing
