"""Regression tests for the memory-safety bugs of issue 6, each fixed in the Cython core.

Each crash-prone case runs in a child process, so a regression shows as a failed test
(with the child's exit signal), not as a dead test run.
"""
import subprocess
import sys
import textwrap

import numpy as np
import pytest

import cygrad


def run_child(code, timeout=120):
    """Run ``code`` in a fresh interpreter; return (returncode, stdout+stderr)."""
    proc = subprocess.run([sys.executable, "-c", textwrap.dedent(code)],
                          capture_output=True, text=True, timeout=timeout)
    return proc.returncode, proc.stdout + proc.stderr


def test_training_loop_above_small_int_cache_does_not_crash():
    # The node's shape tuple held freed ints (dims > 256 are not cached by CPython).
    rc, out = run_child("""
        import cygrad
        for n in (255, 256, 257, 1000, 4099):
            for i in range(1500):
                x = cygrad.ones(n, requires_grad=True)
                x.exp().sum().backward()
            assert x.grad.shape == (n,)
        print("done")
    """)
    assert rc == 0 and "done" in out, out


def test_node_metadata_shape_survives_gc_of_the_output():
    x = cygrad.ones(300, 513, requires_grad=True)
    y = x.exp()
    s = y.sum()
    del y
    junk = [list(range(1000)) for _ in range(50)]    # reuse freed int memory
    s.backward()
    assert x.grad.shape == (300, 513)
    np.testing.assert_allclose(x.grad.numpy(), np.full((300, 513), np.e, np.float32), rtol=1e-6)
    del junk
