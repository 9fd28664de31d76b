"""The launcher's command line and DistributedSampler's partition (no MPI job needed
for most of these; one test runs a script under a bare ``mpiexec``, as a site would)."""
import os
import subprocess
import sys
import types

import pytest

import cygrad
from cygrad.distributed import run as launcher
from cygrad.utils.data import DistributedSampler
from _harness import ROOT, mpi_or_skip


def _opts(n, program="train.py", args=(), module=False):
    return types.SimpleNamespace(nproc=n, program=program, args=list(args), module=module,
                                 mpiexec=None, mpi_arg=[])


def test_command_for_open_mpi_as_root_and_oversubscribed():
    mpi_or_skip()
    cores = len(os.sched_getaffinity(0))
    argv, env = launcher.build_command(_opts(cores + 2, args=["--lr", "0.1"]), environ={})
    assert argv[1:3] == ["-n", str(cores + 2)]
    assert "--oversubscribe" in argv
    assert argv[argv.index("--with-ft") + 1] == "ulfm"
    assert argv[-6:] == [sys.executable, "-m", "cygrad.distributed.run", "train.py", "--lr", "0.1"]
    if os.geteuid() == 0:
        assert env["OMPI_ALLOW_RUN_AS_ROOT"] == "1" and env["OMPI_ALLOW_RUN_AS_ROOT_CONFIRM"] == "1"
    assert env["CYGRAD_NUM_THREADS"] == "1"


def test_threads_per_rank_and_user_settings_win():
    mpi_or_skip()
    cores = len(os.sched_getaffinity(0))
    _, env = launcher.build_command(_opts(1), environ={})
    assert env["CYGRAD_NUM_THREADS"] == str(cores)
    _, env = launcher.build_command(_opts(2), environ={"OMP_NUM_THREADS": "3"})
    assert "CYGRAD_NUM_THREADS" not in env


def test_inside_an_mpi_job_is_detected():
    assert launcher.inside_mpi_job({"OMPI_COMM_WORLD_SIZE": "2"})
    assert launcher.inside_mpi_job({"PMI_SIZE": "4"})
    assert launcher.inside_mpi_job({"SLURM_PROCID": "0", "SLURM_NTASKS": "8"})
    assert not launcher.inside_mpi_job({"SLURM_PROCID": "0", "SLURM_NTASKS": "1"})
    assert not launcher.inside_mpi_job({})


def test_the_same_command_runs_under_a_sites_own_mpiexec(tmp_path):
    mpi_or_skip()
    script = tmp_path / "hello.py"
    script.write_text("import sys, cygrad.distributed as dist\n"
                      "dist.init_process_group('mpi')\n"
                      "print('rank', dist.get_rank(), 'of', dist.get_world_size(), sys.argv[1:])\n")
    mpiexec = launcher.find_mpiexec()
    env = dict(os.environ, PYTHONPATH=ROOT, OMPI_ALLOW_RUN_AS_ROOT="1",
               OMPI_ALLOW_RUN_AS_ROOT_CONFIRM="1")
    proc = subprocess.run([mpiexec, "-n", "2", sys.executable, "-m", "cygrad.distributed.run",
                           "-n", "2", str(script), "x"], capture_output=True, text=True,
                          timeout=120, env=env)
    assert proc.returncode == 0, proc.stderr
    assert sorted(proc.stdout.splitlines()) == ["rank 0 of 2 ['x']", "rank 1 of 2 ['x']"]


def test_a_failing_rank_fails_the_launch(tmp_path):
    mpi_or_skip()
    script = tmp_path / "fail.py"
    script.write_text("import cygrad.distributed as dist, sys\n"
                      "dist.init_process_group('mpi')\n"
                      "sys.exit(5 if dist.get_rank() == 1 else 0)\n")
    proc = subprocess.run([sys.executable, "-m", "cygrad.distributed.run", "-n", "2", str(script)],
                          capture_output=True, text=True, timeout=120,
                          env=dict(os.environ, PYTHONPATH=ROOT))
    assert proc.returncode != 0
    assert "failed" in proc.stderr


def test_bad_process_count_is_refused():
    with pytest.raises(SystemExit, match="at least 1"):
        launcher.main(["-n", "0", "x.py"])


@pytest.mark.parametrize("n", [1, 7, 10, 11, 64])
@pytest.mark.parametrize("replicas", [1, 2, 3, 4])
@pytest.mark.parametrize("drop_last", [False, True])
def test_sampler_matches_pytorch_without_shuffle(n, replicas, drop_last):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference for the split")
    from torch.utils.data import DistributedSampler as TorchSampler
    for rank in range(replicas):
        ours = DistributedSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        theirs = TorchSampler(range(n), replicas, rank, shuffle=False, drop_last=drop_last)
        assert list(ours) == list(theirs)
        assert len(ours) == len(theirs)
    del torch


@pytest.mark.parametrize("n,replicas", [(12, 3), (1000, 4), (10, 2)])
def test_shuffled_shares_partition_the_dataset(n, replicas):
    shares = [list(DistributedSampler(range(n), replicas, r, seed=7)) for r in range(replicas)]
    assert sorted(sum(shares, [])) == list(range(n))          # each index exactly once
    again = [list(DistributedSampler(range(n), replicas, r, seed=7)) for r in range(replicas)]
    assert shares == again                                    # same seed, same order on every rank
    s = DistributedSampler(range(n), replicas, 0, seed=7)
    s.set_epoch(1)
    assert list(s) != shares[0]                               # a new epoch, a new order


def test_sampler_pads_and_drops_as_documented():
    shares = [list(DistributedSampler(range(10), 4, r, seed=1)) for r in range(4)]
    assert all(len(s) == 3 for s in shares)
    flat = sum(shares, [])
    assert sorted(set(flat)) == list(range(10)) and len(flat) == 12    # 2 padded repeats
    dropped = [list(DistributedSampler(range(10), 4, r, seed=1, drop_last=True)) for r in range(4)]
    assert all(len(s) == 2 for s in dropped) and len(set(sum(dropped, []))) == 8


def test_sampler_arguments():
    with pytest.raises(ValueError, match="Invalid rank 2"):
        DistributedSampler(range(4), num_replicas=2, rank=2)
    with pytest.raises(ValueError, match="Default process group has not been initialized"):
        DistributedSampler(range(4))
    loader = cygrad.utils.data.DataLoader(cygrad.utils.data.TensorDataset(cygrad.arange(8.0)),
                                          batch_size=2,
                                          sampler=DistributedSampler(range(8), 2, 1, shuffle=False))
    assert [b[0].tolist() for b in loader] == [[1.0, 3.0], [5.0, 7.0]]

