"""bench/models.py runs the same PyTorch-style model code on both libraries: two training
steps from the same weights and batch must give PyTorch's losses (issue 16)."""
import os
import sys

import numpy as np
import pytest

pytestmark = pytest.mark.needs_checkout   # imports bench/, which the wheel does not carry

BENCH = os.path.join(os.path.dirname(os.path.dirname(os.path.abspath(__file__))), "bench")
sys.path.insert(0, BENCH)
import models  # noqa: E402

torch = pytest.importorskip("torch", reason="the reference losses come from PyTorch")


@pytest.mark.parametrize("name", models.MODELS)
def test_two_steps_match_pytorch(name):
    cy, th = models.build_pair(name, small=True, seed=3)
    for step in range(2):
        got = float(cy.step().item())
        want = float(th.step().item())
        # float32 models; the second step also checks the optimizer's update
        np.testing.assert_allclose(got, want, rtol=2e-4, atol=1e-5,
                                   err_msg=f"{name}: step {step}")


def test_profile_option_prints_top_ops(capsys):
    models.profile("mlp_lm", steps=2, top=5)
    out = capsys.readouterr().out
    assert "Self CPU" in out and " mm " in out      # the two products lead an MLP step
    assert "tottime" in out                          # then cProfile's table
