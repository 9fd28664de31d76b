"""bench/cuda_host_cost.py (host cost per CUDA op, launches stubbed): its table says
what it measures, counts the launches the fake PyCUDA records, and leaves the
process's CUDA driver as it found it."""
import os
import sys

import pytest

from cygrad.cuda import _driver
from cygrad.cuda._driver import signature

pytestmark = [pytest.mark.needs_checkout,      # runs bench/, which the wheel does not carry
              pytest.mark.skipif(signature.find_cxx() is None,
                                 reason="reading kernel signatures runs the host C preprocessor")]

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "bench"))
import cuda_host_cost  # noqa: E402


def test_the_table_names_host_cost_and_counts_launches(monkeypatch):
    cases = {c[0]: c for c in cuda_host_cost.CASES}
    monkeypatch.setattr(cuda_host_cost, "CASES", (cases["add"], cases["matmul"]))
    monkeypatch.setattr(cuda_host_cost, "_time", lambda fn, repeat: (fn(), 1e-6)[1])
    before = _driver._driver
    lines = []
    rows = cuda_host_cost.run(1, write=lines.append)
    assert "host cost, launches stubbed" in lines[0]
    # one kernel each: the add and the tiled product
    assert rows["add"][2] == 1 and rows["matmul"][2] == 1
    assert rows["add"][1] == rows["add"][3] == 1e-6
    assert _driver._driver is before
    assert "PATH" in os.environ and "FAKE_NVCC_LOG" not in os.environ
