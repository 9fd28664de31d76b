"""``examples/ddp_digits.py`` runs on two ranks as its docstring says (a few steps)."""
import os
import re

import pytest

from _harness import ROOT, launch, mpi_or_skip


def test_ddp_digits_example_runs_on_two_ranks(tmp_path):
    mpi_or_skip()
    pytest.importorskip("sklearn", reason="the example's digits come from scikit-learn")
    proc = launch([os.path.join(ROOT, "examples", "ddp_digits.py"), "--epochs", "2",
                   "--steps", "5", "--checkpoint", str(tmp_path / "ckpt.pt")], 2, timeout=180)
    assert proc.returncode == 0, proc.stdout[-2000:] + proc.stderr[-3000:]
    assert (tmp_path / "ckpt.pt").exists()
    m = re.search(r"test accuracy on 2 ranks: ([0-9.]+)% \((\d+)/360\)", proc.stdout)
    assert m, proc.stdout
    assert float(m.group(1)) > 20.0       # after 10 steps: twice chance (10%); seeded, so stable
