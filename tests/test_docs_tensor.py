"""docs/tensor.md stays true: its examples run and print what the page says.

Convention of the page: every code cell (```{code-cell} ipython3, which the
documentation build also executes and shows the output of) is run, in page order, in one
namespace (so a later block may use names from an earlier one). Inside a block, a
line ``# -> text`` states one line the code above it prints; the lines a block
prints must be exactly its ``# -> `` lines, in order. A block with no ``# -> ``
lines must print nothing. The figures the page shows (``![...](img/...)``) must
exist in docs/img; they are rebuilt with ``python docs/make_figures.py``, which
needs matplotlib, so this test only checks that the files are there.
"""
import contextlib
import io
import os
import re

DOCS = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "docs")
PAGE = os.path.join(DOCS, "tensor.md")
EXPECT = "# -> "


def _page():
    with open(PAGE, encoding="utf-8") as f:
        return f.read()


def _blocks():
    return re.findall(r"^```\{code-cell\} ipython3\n(.*?)^```", _page(), flags=re.S | re.M)


def _expected(block):
    return [line.strip()[len(EXPECT):] for line in block.splitlines()
            if line.strip().startswith(EXPECT)]


def test_page_has_examples():
    blocks = _blocks()
    assert len(blocks) >= 8
    assert sum(len(_expected(b)) for b in blocks) >= 30


def test_examples_print_what_the_page_says():
    namespace = {"__name__": "docs_tensor"}
    for i, block in enumerate(_blocks()):
        out = io.StringIO()
        with contextlib.redirect_stdout(out):
            exec(compile(block, f"docs/tensor.md block {i}", "exec"), namespace)
        got = out.getvalue().splitlines()
        assert got == _expected(block), f"block {i}:\n{block}"


def test_expectation_parser_notices_a_wrong_line():
    block = "print(1 + 1)\n# -> 3\n"
    out = io.StringIO()
    with contextlib.redirect_stdout(out):
        exec(block, {})
    assert out.getvalue().splitlines() != _expected(block)


def test_every_figure_exists():
    images = re.findall(r"!\[[^\]]*\]\(([^)]+)\)", _page())
    assert len(images) >= 5
    for rel in images:
        assert rel.startswith("img/") and rel.endswith(".png"), rel
        path = os.path.join(DOCS, rel)
        assert os.path.isfile(path), f"missing figure {rel}; run python docs/make_figures.py"
        with open(path, "rb") as f:
            assert f.read(8) == b"\x89PNG\r\n\x1a\n", rel


def test_every_figure_is_made_by_the_script():
    assert "docs/make_figures.py" in _page()
    with open(os.path.join(DOCS, "make_figures.py"), encoding="utf-8") as f:
        script = f.read()
    for rel in re.findall(r"!\[[^\]]*\]\(([^)]+)\)", _page()):
        assert f'"{os.path.basename(rel)}"' in script, rel
