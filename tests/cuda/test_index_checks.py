"""Index checks that read an error flag back from the device (emulated GPU), and the
ones skipped (docs/cuda.md, "Host cost per op"): max pooling's backward on the
indices its forward made, and cross entropy's backward on the target its forward
checked, launch without a flag and read nothing back, as long as nothing has
written the indices since; any other indices are checked, and bad ones raise
PyTorch's errors. Gradients against the CPU run."""
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx


@pytest.fixture
def reads(emulated, monkeypatch):
    """The device-to-host copies made from now on (each one waits for the device)."""
    count = []
    original = emulated.memcpy_dtoh

    def counted(*args, **kwargs):
        count.append(1)
        return original(*args, **kwargs)
    monkeypatch.setattr(emulated, "memcpy_dtoh", counted)
    return count


def _pool_step(device, data):
    x = cygrad.tensor(data, device=device, requires_grad=True)
    out, idx = F.max_pool2d(x, 2, return_indices=True)
    return x, out, idx


def test_max_pool_backward_reads_nothing_back_for_its_own_indices(reads):
    data = np.random.default_rng(0).standard_normal((2, 3, 6, 6))
    x, out, _ = _pool_step("cuda", data)
    g = cygrad.tensor(np.arange(out.numel(), dtype=np.float64).reshape(out.shape), device="cuda")
    del reads[:]
    out.backward(g)
    assert reads == []
    xc, outc, _ = _pool_step("cpu", data)
    outc.backward(g.cpu())
    np.testing.assert_array_equal(x.grad.cpu().numpy(), xc.grad.numpy())


def test_max_pool_indices_written_since_are_checked_again(reads):
    from cygrad._core import dispatch
    backward = dispatch.kernel("max_pool_nd_backward", "cuda")
    x = cygrad.tensor(np.random.default_rng(1).standard_normal((1, 1, 4, 4)), device="cuda")
    _, idx = F.max_pool2d(x, 2, return_indices=True)
    g = cygrad.ones(1, 1, 2, 2, dtype=cygrad.float64, device="cuda")
    del reads[:]
    backward(g, idx, (4, 4))
    assert reads == []
    idx.reshape(-1)[:1].fill_(16)                   # in place, through a view: outside the plane
    with pytest.raises(RuntimeError, match="outside the plane"):
        backward(g, idx, (4, 4))
    assert len(reads) == 1
    # the same indices against a smaller plane than they were made for: checked
    _, idx = F.max_pool2d(x, 2, return_indices=True)
    with pytest.raises(RuntimeError, match="outside the plane"):
        backward(g, idx, (2, 2))
    # a copy of good indices is another tensor: checked, and right
    res = backward(g, idx.clone(), (4, 4))
    np.testing.assert_array_equal(res.cpu().numpy().reshape(-1)[idx.cpu().numpy().reshape(-1)],
                                  np.ones(4))


def test_cross_entropy_checks_the_target_once_per_forward_and_backward(reads):
    rng = np.random.default_rng(2)
    logits = rng.standard_normal((8, 5))
    target = rng.integers(0, 5, 8)
    grads = []
    for device in ("cpu", "cuda"):
        x = cygrad.tensor(logits, device=device, requires_grad=True)
        t = cygrad.tensor(target, device=device)
        del reads[:]
        loss = F.cross_entropy(x, t)
        assert len(reads) == (1 if device == "cuda" else 0)       # the forward's check
        loss.backward()
        assert len(reads) == (1 if device == "cuda" else 0)       # none in the backward
        grads.append(x.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12)


def test_a_target_written_after_the_forward_is_checked_in_the_backward():
    x = cygrad.zeros(4, 3, device="cuda", requires_grad=True)
    t = cygrad.tensor([0, 2, 1, 1]).cuda()
    loss = F.cross_entropy(x, t)
    t[2:3].fill_(7)                                 # in place, after the forward's check
    with pytest.raises(IndexError, match="Target 7 is out of bounds."):
        loss.backward()
    # another ignore_index or class count than the forward's: checked
    from cygrad._core import dispatch
    backward = dispatch.kernel("cross_entropy_backward", "cuda")
    t = cygrad.tensor([0, 2, 1, 1]).cuda()
    F.cross_entropy(x, t)
    with pytest.raises(IndexError, match="Target 2 is out of bounds."):
        backward(x[:, :2].contiguous(), cygrad.zeros(4, device="cuda"), t, None, -100, 0.0,
                 cygrad.ones(1, device="cuda"))


def test_a_bad_target_is_never_taken_as_checked():
    x = cygrad.zeros(4, 3, device="cuda")
    t = cygrad.tensor([0, 5, 1, 1]).cuda()
    for _ in range(2):                              # the failed check vouches for nothing
        with pytest.raises(IndexError, match="Target 5 is out of bounds."):
            F.cross_entropy(x, t)
