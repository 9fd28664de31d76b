"""Failures end every rank with an error instead of hanging: a killed rank, a rank that
never joins, and collectives called before ``init_process_group``."""
import os
import re
import subprocess
import sys
import time

import pytest

import cygrad
import cygrad.distributed as dist
from _harness import HERE, launch, mpi_or_skip


# 1,000 floats go the non-blocking road, 100,000 (400 KB) the communication thread's.
SIZES = pytest.mark.parametrize("numel", [1000, 100_000], ids=["small", "large"])


def _run_failing(mode, numel):
    mpi_or_skip()
    start = time.monotonic()
    proc = launch([os.path.join(HERE, "fail_worker.py"), mode, str(numel)], 2, timeout=120)
    return proc, time.monotonic() - start


def _caught(proc):
    m = re.search(r"rank 0 caught DistBackendError after ([0-9.]+) s: (.*)", proc.stdout)
    assert m, f"rank 0 did not report the error\nstdout:\n{proc.stdout}\nstderr:\n{proc.stderr}"
    return float(m.group(1)), m.group(2)


@SIZES
def test_a_killed_rank_fails_the_others_with_an_error(numel):
    proc, wall = _run_failing("killed", numel)
    took, msg = _caught(proc)
    assert "another rank died" in msg, msg
    assert took < 30
    assert proc.returncode != 0
    assert wall < 60


@SIZES
def test_a_rank_that_never_joins_times_out(numel):
    proc, wall = _run_failing("hung", numel)
    took, msg = _caught(proc)
    assert "timed out after 1 s" in msg and "did not join" in msg, msg
    assert 1.0 <= took < 10
    assert proc.returncode != 0
    # rank 1 would sleep 8 s more: the job was ended at rank 0's exit, not waited for
    assert wall < 60


_NOT_INIT = "Default process group has not been initialized"


@pytest.mark.parametrize("call", [
    lambda: dist.get_rank(),
    lambda: dist.get_world_size(),
    lambda: dist.all_reduce(cygrad.ones(2)),
    lambda: dist.broadcast(cygrad.ones(2), src=0),
    lambda: dist.barrier(),
    lambda: dist.new_group([0]),
    lambda: dist.destroy_process_group(),
], ids=["get_rank", "get_world_size", "all_reduce", "broadcast", "barrier", "new_group",
        "destroy_process_group"])
def test_calls_before_init_raise_pytorchs_error(call):
    assert not dist.is_initialized()
    with pytest.raises(ValueError, match=_NOT_INIT):
        call()


def test_import_does_not_start_mpi():
    code = ("import sys, cygrad, cygrad.distributed as d, cygrad.nn.parallel, "
            "cygrad.utils.data; print(d.is_available(), 'mpi4py.MPI' in sys.modules)")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120).stdout.split()
    assert out[1] == "False"


def test_a_program_started_alone_is_a_group_of_one():
    mpi_or_skip()
    code = ("import cygrad, cygrad.distributed as dist\n"
            "dist.init_process_group('mpi')\n"
            "t = cygrad.arange(3.0); dist.all_reduce(t, op=dist.ReduceOp.AVG)\n"
            "print(dist.get_rank(), dist.get_world_size(), t.tolist())\n"
            "try:\n    dist.init_process_group('mpi')\n"
            "except ValueError as e:\n    print(e)\n"
            "dist.destroy_process_group(); print(dist.is_initialized())\n")
    proc = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                          timeout=120)
    assert proc.returncode == 0, proc.stderr
    lines = proc.stdout.splitlines()
    assert lines[0] == "0 1 [0.0, 1.0, 2.0]"
    assert lines[1] == "trying to initialize the default process group twice!"
    assert lines[2] == "False"


def test_unknown_and_gpu_backends_are_refused():
    with pytest.raises(ValueError, match="unknown backend"):
        dist.init_process_group("tcp")
    with pytest.raises(RuntimeError, match="NCCL backend needs CUDA"):
        dist.init_process_group("nccl")
    assert not dist.is_initialized()
