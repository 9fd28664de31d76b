"""``docs/api_coverage.md`` tells the truth: every name it calls covered exists in
cygrad (read from the page alone, no PyTorch needed), its counts add up, and, with
PyTorch installed, it is what ``python -m cygrad.api_coverage`` writes today."""
import importlib
import os
import re
import subprocess
import sys

import pytest

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
PAGE = os.path.join(ROOT, "docs", "api_coverage.md")
_ROW = re.compile(r"^\| `(\w+)` \| (covered|missing|excluded \((.+)\)) \|$")
_SIDE = re.compile(r"cygrad's side: ([\w.]+?)\.$", re.M)


def _sections():
    """{namespace: (cygrad side, {name: status})} from the page's "Every name" part."""
    with open(PAGE, encoding="utf-8") as f:
        text = f.read()
    part = text.split("\n## Every name\n", 1)[1]
    out = {}
    for block in part.split("\n### ")[1:]:
        key, body = block.split("\n", 1)
        side = _SIDE.search(body).group(1)
        rows = {m.group(1): m.group(2) for m in map(_ROW.match, body.splitlines()) if m}
        out[key.strip()] = (side, rows)
    return out, text


def _resolve(side):
    """``cygrad.nn.functional`` -> the module; ``cygrad.Tensor`` -> the class."""
    parts = side.split(".")
    for cut in range(len(parts), 0, -1):
        try:
            obj = importlib.import_module(".".join(parts[:cut]))
        except ImportError:
            continue
        for attr in parts[cut:]:
            obj = getattr(obj, attr, None)
        return obj
    return None


def test_every_name_the_page_calls_covered_exists_in_cygrad():
    sections, _ = _sections()
    assert {"Tensor", "torch", "linalg", "special", "fft", "nn.functional", "nn.init",
            "distributions", "func", "utils.checkpoint"} <= set(sections)
    absent = []
    for key, (side, rows) in sections.items():
        covered = [n for n, status in rows.items() if status == "covered"]
        obj = _resolve(side)
        absent += [f"{key}.{n}" for n in covered if obj is None or not hasattr(obj, n)]
    assert sum(len(rows) for _, rows in sections.values()) > 1500
    assert not absent, f"docs/api_coverage.md says covered, cygrad lacks: {absent}"


def test_the_page_counts_add_up():
    sections, text = _sections()
    table = text.split("\n## Summary\n", 1)[1].split("\n## ", 1)[0]
    for key, (side, rows) in sections.items():
        m = re.search(rf"^\| {re.escape(key)} \| (\d+) \| (\d+) \| (\d+) \| (\d+) \| ([\d.]+)% \|$",
                      table, re.M)
        assert m, key
        total, excluded, applicable, covered = map(int, m.groups()[:4])
        statuses = list(rows.values())
        assert total == len(rows)
        assert covered == statuses.count("covered")
        assert excluded == sum(s.startswith("excluded") for s in statuses)
        assert applicable == covered + statuses.count("missing")
        assert float(m.group(5)) == pytest.approx(100.0 * covered / applicable if applicable else 100.0, abs=0.05)


def test_every_exclusion_names_its_category_and_reason():
    sections, text = _sections()
    reasons = text.split("\n## Deliberate exclusions\n", 1)[1].split("\n## Every name\n", 1)[0]
    titles = set(re.findall(r"^### (.+)$", reasons, re.M))
    for key, (side, rows) in sections.items():
        for name, status in rows.items():
            if status.startswith("excluded"):
                title = status[len("excluded ("):-1]
                assert title in titles, (key, name, title)
                assert f"`{'torch' if key == 'torch' else key}.{name}`" in reasons, (key, name)


def test_the_page_is_current():
    pytest.importorskip("torch", reason="the page is regenerated from the installed PyTorch")
    from cygrad.api_coverage import coverage
    from cygrad.api_coverage.report import markdown
    import torch
    expected = markdown(coverage(), torch.__version__.split("+")[0])
    with open(PAGE, encoding="utf-8") as f:
        assert f.read() == expected, ("docs/api_coverage.md is out of date: run "
                                      "python -m cygrad.api_coverage")


def test_every_exclusion_rule_matches_a_pytorch_name():
    pytest.importorskip("torch", reason="the rules are checked against PyTorch's names")
    from cygrad.api_coverage import NAMESPACES, EXCLUSIONS, pytorch_names
    names = [(ns.key, n) for ns in NAMESPACES for n in pytorch_names(ns)]
    for rule in EXCLUSIONS:
        assert any(rule.matches(k, n) for k, n in names), f"rule {rule.key} matches nothing"


def test_script_prints_summary_and_checks(tmp_path, capsys):
    pytest.importorskip("torch", reason="the script reads PyTorch's names")
    from cygrad.api_coverage.__main__ import main
    out = tmp_path / "page.md"
    assert main(["--output", str(out)]) == 0
    printed = capsys.readouterr().out
    assert printed.splitlines()[0].split() == ["namespace", "PyTorch", "names", "excluded",
                                               "applicable", "covered", "covered", "%"]
    assert "overall" in printed and out.read_text().startswith("# PyTorch API coverage")
    assert main(["--output", str(out), "--check"]) == 0
    assert "is current" in capsys.readouterr().out
    out.write_text("stale\n")
    assert main(["--output", str(out), "--check"]) == 1
    assert "out of date" in capsys.readouterr().out


def test_script_without_pytorch_says_so(tmp_path):
    code = ("import sys; sys.modules['torch'] = None\n"
            "from cygrad.api_coverage.__main__ import main\n"
            f"sys.exit(main(['--output', {str(tmp_path / 'x.md')!r}]))")
    run = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True)
    assert run.returncode == 2
    assert "needs it installed" in run.stderr and not (tmp_path / "x.md").exists()
