"""Cross entropy's target check read back without making the host wait
(``cygrad.cuda.kernels.check_later``, docs/cuda.md "Host cost per op"): on a driver
whose kernels may still be queued when the launch returns, the kernel's flag is
read at the next copy to the host or ``synchronize``, which raises PyTorch's
IndexError there. Here the emulated GPU (strict mode) is told it is not
synchronous, so the flags wait as on a real GPU; its kernels have still written
them. Gradients against the CPU run; the read-backs counted."""
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.cuda as cuda
import cygrad.nn.functional as F
from cygrad.cuda import kernels

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)
from .test_index_checks import reads  # noqa: E402,F401  (the fixture: reads counted)

pytestmark = needs_cxx


@pytest.fixture
def waiting(reads, emulated, monkeypatch):
    """``reads`` (device-to-host copies counted), with the emulated GPU taken as
    asynchronous: its flags wait as on a real GPU."""
    monkeypatch.setattr(emulated, "synchronous", False)
    yield reads
    del kernels._later[:]


SYNC_POINTS = {
    "item": lambda loss: loss.item(),
    "cpu": lambda loss: loss.cpu(),
    "synchronize": lambda loss: cuda.synchronize(),
    "stream": lambda loss: cuda.current_stream().synchronize(),
    "event": lambda loss: cuda.current_stream().record_event().synchronize(),
}


@pytest.mark.parametrize("point", list(SYNC_POINTS))
def test_a_bad_target_raises_at_the_next_point_the_host_waits(waiting, point):
    x = cygrad.zeros(4, 3, device="cuda", requires_grad=True)
    t = cygrad.tensor([0, 5, 1, 7]).cuda()
    del waiting[:]
    loss = F.cross_entropy(x, t)                        # no wait, no error yet
    assert waiting == [] and len(kernels._later) == 1
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        SYNC_POINTS[point](loss)
    assert kernels._later == []
    assert np.isfinite(loss.item())                     # reported once; the device still works
    # the target the failed check vouched for is forgotten: its backward checks again
    del waiting[:]
    loss.backward()
    assert waiting == [] and len(kernels._later) == 1
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        x.grad.cpu()


def test_a_training_step_waits_for_nothing_until_its_loss_is_read(waiting):
    rng = np.random.default_rng(0)
    logits, target = rng.standard_normal((8, 5)), rng.integers(0, 5, 8)
    got = []
    for device in ("cpu", "cuda"):
        x = cygrad.tensor(logits, device=device, requires_grad=True)
        t = cygrad.tensor(target, device=device)
        del waiting[:]
        loss = F.cross_entropy(x, t)
        loss.backward()                                 # the forward's check covers it
        if device == "cuda":
            assert waiting == [] and len(kernels._later) == 1
        value = loss.item()
        if device == "cuda":
            assert len(waiting) == 2 and kernels._later == []     # the flag, then the loss
        got.append((value, x.grad.cpu().numpy()))
    assert got[1][0] == pytest.approx(got[0][0], rel=1e-12)
    np.testing.assert_allclose(got[1][1], got[0][1], rtol=1e-12)


def test_past_the_limit_the_oldest_check_is_read(waiting, monkeypatch):
    monkeypatch.setattr(kernels, "_LATER_MAX", 2)
    x = cygrad.zeros(4, 3, device="cuda")
    t = cygrad.tensor([0, 1, 2, 1]).cuda()
    bad = cygrad.tensor([0, 1, 2, 3]).cuda()
    del waiting[:]
    F.cross_entropy(x, bad)
    F.cross_entropy(x, t)
    assert waiting == [] and len(kernels._later) == 2
    with pytest.raises(IndexError, match="Target 3 is out of bounds."):
        F.cross_entropy(x, t)                           # the third: the oldest is read now
    assert len(kernels._later) == 2
    kernels.run_checks()
    assert kernels._later == []


def test_checks_of_a_driver_no_longer_installed_are_dropped(waiting):
    flag = cygrad.ones(1, dtype=cygrad.int64, device="cuda")
    seen = []
    kernels._later.append((object(), flag, seen.append))      # another driver's
    kernels._later.append((emulated_driver(), flag, seen.append))
    del waiting[:]
    kernels.run_checks()
    assert seen == [1] and len(waiting) == 1 and kernels._later == []


def emulated_driver():
    from cygrad.cuda import _runtime
    return _runtime.driver()
