"""DataLoader with worker processes: the same batches as in the main process, batches
carried through shared memory, errors and dead workers reported (never a hang),
timeouts, iterable-dataset sharding, seeding, persistent workers, and no leftover
processes or /dev/shm segments."""
import gc
import os
import random
import signal
import time

import numpy as np
import pytest

import cygrad
from cygrad.multiprocessing import _shm
from cygrad.utils.data import DataLoader, Dataset, IterableDataset, TensorDataset, get_worker_info
from cygrad.utils.data._worker import numpy_seed


class Squares(Dataset):
    def __init__(self, n=16):
        self.n = n

    def __len__(self):
        return self.n

    def __getitem__(self, i):
        return {"x": cygrad.full((4,), float(i * i)), "i": i, "name": f"s{i}"}


class FailsAt(Dataset):
    """Raises ValueError for one index (a marker the traceback must show)."""

    def __init__(self, bad):
        self.bad = bad

    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == self.bad:
            raise ValueError(f"marker: cannot load sample {i}")
        return i


class KeyErrorAt(FailsAt):
    def __getitem__(self, i):
        return {}["no such key"] if i == self.bad else i


class KillsItself(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        if i == 5:
            os.kill(os.getpid(), signal.SIGKILL)
        return i


class Slow(Dataset):
    def __len__(self):
        return 4

    def __getitem__(self, i):
        if i == 2:
            time.sleep(3)
        return i


class WhoAmI(Dataset):
    def __len__(self):
        return 8

    def __getitem__(self, i):
        info = get_worker_info()
        return {"id": info.id, "seed": info.seed, "pid": os.getpid(),
                "py": random.random(), "np": float(np.random.rand()),
                "cg": cygrad.rand(()).item(), "threads": cygrad.get_num_threads()}


class Sharded(IterableDataset):
    def __init__(self, n):
        self.n = n

    def __iter__(self):
        info = get_worker_info()
        if info is None:
            return iter(range(self.n))
        return iter(range(info.id, self.n, info.num_workers))


def _pids(it):
    return [w.pid for w in it._workers]


def _assert_clean(pids):
    """Workers reaped (no zombies) and no segment names left by them or by us."""
    gc.collect()
    for pid in pids:
        with pytest.raises(ChildProcessError):
            os.waitpid(pid, os.WNOHANG)
        assert _shm.leftovers(pid) == []
    assert _shm.leftovers(os.getpid()) == []


@pytest.mark.parametrize("shuffle", [False, True])
def test_workers_give_the_same_batches_as_the_main_process(shuffle):
    def run(workers):
        g = cygrad.Generator().manual_seed(11)
        loader = DataLoader(Squares(), batch_size=3, shuffle=shuffle, generator=g,
                            num_workers=workers)
        return [(b["x"].tolist(), b["i"].tolist(), b["name"]) for b in loader]

    assert run(2) == run(0)


def test_batches_arrive_through_shared_memory(rng):
    a = rng.standard_normal((64, 256))
    loader = DataLoader(TensorDataset(cygrad.from_numpy(a)), batch_size=32, num_workers=2)
    it = iter(loader)
    (batch,) = next(it)
    np.testing.assert_array_equal(batch.numpy(), a[:32])
    assert batch.is_shared()
    # The batch's memory is a mapping of a /dev/shm file whose name is already removed:
    # the worker wrote it, this process mapped it; no copy came through a pipe.
    address = batch.data_ptr()
    with open("/proc/self/maps") as f:
        maps = [line.split() for line in f]
    hits = [m for m in maps if int(m[0].split("-")[0], 16) <= address < int(m[0].split("-")[1], 16)]
    assert len(hits) == 1
    assert os.path.basename(hits[0][5]).startswith("cygrad_") and hits[0][6] == "(deleted)"
    pids = _pids(it)
    del it, batch
    _assert_clean(pids)


def test_batch_payload_is_a_description_not_the_data(rng):
    from cygrad.utils.data import _transport
    big = cygrad.from_numpy(rng.standard_normal((256, 256)))
    payload = _transport.dumps([big, {"y": big[0]}])
    assert len(payload) < 1000 < big.numel()
    x, d = _transport.loads(payload)
    np.testing.assert_array_equal(x.numpy(), big.numpy())
    np.testing.assert_array_equal(d["y"].numpy(), big[0].numpy())
    assert x.is_shared() and d["y"].is_shared()
    del x, d
    gc.collect()
    assert _shm.leftovers(os.getpid()) == []


def test_worker_error_is_reraised_with_its_traceback():
    it = iter(DataLoader(FailsAt(bad=3), batch_size=2, num_workers=2))
    assert next(it).tolist() == [0, 1]
    with pytest.raises(ValueError) as err:
        next(it)
    msg = str(err.value)
    assert "Caught ValueError in DataLoader worker process 1" in msg
    assert "Original Traceback" in msg and "in __getitem__" in msg
    assert "marker: cannot load sample 3" in msg
    pids = _pids(it)
    del it, err                     # the traceback refers to the iterator
    _assert_clean(pids)


def test_worker_key_error_keeps_the_traceback_readable():
    with pytest.raises(KeyError) as err:
        list(DataLoader(KeyErrorAt(bad=0), batch_size=2, num_workers=1))
    assert "Caught KeyError in DataLoader worker process 0.\nOriginal Traceback" in str(err.value)


def test_worker_init_fn_error_and_worker_info():
    def bad_init(worker_id):
        raise OSError(f"init failed in {worker_id}")

    with pytest.raises(OSError, match="init failed in 0"):
        list(DataLoader(range(4), num_workers=1, worker_init_fn=bad_init))


def test_killed_worker_raises_promptly():
    start = time.monotonic()
    it = iter(DataLoader(KillsItself(), batch_size=2, num_workers=2))
    with pytest.raises(RuntimeError) as err:
        list(it)
    assert time.monotonic() - start < 5
    msg = str(err.value)
    assert "exited unexpectedly" in msg and "worker 0" in msg
    assert "SIGKILL" in msg and "exit code -9" in msg
    _assert_clean(_pids(it))


def test_timeout():
    start = time.monotonic()
    it = iter(DataLoader(Slow(), batch_size=1, num_workers=1, timeout=0.3))
    assert next(it).tolist() == [0]
    assert next(it).tolist() == [1]
    with pytest.raises(RuntimeError, match=r"DataLoader timed out after 0.3 seconds"):
        next(it)
    assert time.monotonic() - start < 2.5
    _assert_clean(_pids(it))


def test_iterable_dataset_sharding_matches_torch():
    torch = pytest.importorskip("torch")

    class TSharded(torch.utils.data.IterableDataset):
        def __iter__(self):
            info = torch.utils.data.get_worker_info()
            return iter(range(info.id, 11, info.num_workers))

    theirs = [b.tolist() for b in torch.utils.data.DataLoader(TSharded(), batch_size=2,
                                                              num_workers=2)]
    ours = [b.tolist() for b in DataLoader(Sharded(11), batch_size=2, num_workers=2)]
    assert ours == theirs
    assert sorted(i for b in ours for i in b) == list(range(11))


def test_worker_seeds_and_info():
    g = cygrad.Generator().manual_seed(5)
    base_seed = int(cygrad.empty((), dtype=cygrad.int64).random_(generator=g).item())
    loader = DataLoader(WhoAmI(), batch_size=None, num_workers=2,
                        generator=cygrad.Generator().manual_seed(5))
    rows = list(loader)
    assert {r["id"] for r in rows} == {0, 1}
    for r in rows[:2]:          # each worker's first sample: fresh generators
        seed = base_seed + r["id"]
        assert r["seed"] == seed
        assert r["py"] == random.Random(seed).random()
        assert r["cg"] == cygrad.rand((), generator=cygrad.Generator().manual_seed(seed)).item()
        assert r["np"] == np.random.RandomState(numpy_seed(base_seed, r["id"])).rand()
        assert r["threads"] == 1
    assert rows[0]["np"] != rows[1]["np"]


def test_persistent_workers_survive_epochs():
    loader = DataLoader(WhoAmI(), batch_size=4, num_workers=2, persistent_workers=True)
    pids1 = sorted(set(p for b in loader for p in b["pid"].tolist()))
    pids2 = sorted(set(p for b in loader for p in b["pid"].tolist()))
    assert pids1 == pids2 and len(pids1) == 2
    it = iter(loader)              # an epoch left half read, then a fresh one
    next(it)
    assert sum(len(b["id"]) for b in loader) == 8
    stream = DataLoader(Sharded(6), batch_size=2, num_workers=2, persistent_workers=True)
    assert [b.tolist() for b in stream] == [b.tolist() for b in stream] == \
        [[0, 2], [1, 3], [4], [5]]
    pids = _pids(loader._iterator) + _pids(stream._iterator)
    del loader, stream, it
    _assert_clean(pids)


def test_abandoned_iterator_shuts_down_cleanly():
    it = iter(DataLoader(Squares(64), batch_size=2, num_workers=2, prefetch_factor=4))
    next(it)
    time.sleep(0.2)                 # let the workers fill the queue with unread batches
    pids = _pids(it)
    del it
    _assert_clean(pids)


def test_spawn_context():
    loader = DataLoader(Squares(6), batch_size=3, num_workers=1, multiprocessing_context="spawn")
    assert [b["i"].tolist() for b in loader] == [[0, 1, 2], [3, 4, 5]]


def test_persistent_workers_left_running_at_interpreter_exit_leave_nothing(tmp_path):
    import subprocess
    import sys
    script = tmp_path / "exit_with_workers.py"
    script.write_text(
        "import time, cygrad\n"
        "from cygrad.utils.data import DataLoader, TensorDataset\n"
        "ds = TensorDataset(cygrad.randn(256, 64))\n"
        "loader = DataLoader(ds, batch_size=8, num_workers=2, persistent_workers=True,\n"
        "                    prefetch_factor=4)\n"
        "it = iter(loader)\n"
        "next(it)\n"
        "time.sleep(0.3)       # unread batches wait in the queue\n"
        "print(' '.join(str(w.pid) for w in it._workers))\n")
    out = subprocess.run([sys.executable, str(script)], capture_output=True, text=True,
                         timeout=60, check=True)
    pids = [int(p) for p in out.stdout.split()]
    assert len(pids) == 2 and out.stderr == ""
    for pid in pids:
        assert _shm.leftovers(pid) == []
