"""cygrad.multiprocessing: share_memory_/is_shared, tensors crossing processes through
shared memory (fork and spawn), the pickling rules (checked against
torch.multiprocessing's), the re-exported API, segment cleanup, and the Hogwild
example."""
import multiprocessing as std_mp
import os
import runpy

import numpy as np
import pytest

import cygrad
import cygrad.multiprocessing as mp
from cygrad.multiprocessing import _shm
from multiprocessing.reduction import ForkingPickler

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))


def _add_one(t, done):
    t += 1
    done.set()


def _recv_add_and_reply(inbox, outbox):
    t = inbox.get()
    t.mul_(2)
    outbox.put(("ok", t.is_shared()))


def _make_and_send(outbox, release):
    t = cygrad.arange(4.0)
    outbox.put(t)
    release.wait(10)        # keep the tensor (and its segment name) until it is taken


def test_reexports_the_multiprocessing_api():
    for name in std_mp.__all__:
        assert getattr(mp, name) is getattr(std_mp, name), name
    assert set(std_mp.__all__) <= set(mp.__all__)
    assert mp.get_sharing_strategy() in mp.get_all_sharing_strategies()
    with pytest.raises(AssertionError):
        mp.set_sharing_strategy("file_descriptor_that_does_not_exist")


@pytest.mark.parametrize("make", [
    lambda: cygrad.arange(12.0).reshape(3, 4),
    lambda: cygrad.arange(12.0).reshape(3, 4).t(),                      # transposed
    lambda: cygrad.arange(12, dtype=cygrad.int32).reshape(3, 4)[1:, ::2],  # offset, strided
    lambda: cygrad.arange(3.0).expand(4, 3),                              # stride 0
    lambda: cygrad.from_numpy(np.arange(6.0)[::-1]),                      # negative stride
    lambda: cygrad.zeros(0, 3),
    lambda: cygrad.tensor(2.5),
    lambda: cygrad.tensor([True, False]),
])
def test_share_memory_keeps_values_geometry_and_identity(make):
    t = make()
    before, shape, stride, dtype = t.tolist(), t.shape, t.stride(), t.dtype
    assert not t.is_shared()
    assert t.share_memory_() is t
    assert t.is_shared()
    assert (t.tolist(), t.shape, t.stride(), t.dtype) == (before, shape, stride, dtype)
    again = t.data_ptr()
    t.share_memory_()               # already shared: nothing moves
    assert t.data_ptr() == again


def test_share_memory_keeps_autograd_identity_like_torch():
    torch = pytest.importorskip("torch")
    ours, theirs = cygrad.ones(3, requires_grad=True), torch.ones(3, requires_grad=True)
    ours.share_memory_()
    theirs.share_memory_()
    assert (ours.is_leaf, ours.requires_grad) == (theirs.is_leaf, theirs.requires_grad)
    (ours * ours).sum().backward()
    (theirs * theirs).sum().backward()
    assert ours.grad.tolist() == theirs.grad.tolist()
    assert ours.is_shared() and not ours.grad.is_shared()


def test_pickling_moves_a_tensor_to_shared_memory_like_torch():
    torch = pytest.importorskip("torch")
    theirs = torch.arange(3.0)
    ForkingPickler.dumps(theirs)
    ours = cygrad.arange(3.0)
    payload = ForkingPickler.dumps(ours)
    assert ours.is_shared() == theirs.is_shared() is True
    assert len(payload) < 400                 # a name and a geometry, not the values
    back = ForkingPickler.loads(payload)
    back[1] = 10.0
    assert ours.tolist() == [0.0, 10.0, 2.0]


def test_pickling_a_non_leaf_that_requires_grad_is_refused_like_torch():
    torch = pytest.importorskip("torch")
    with pytest.raises(RuntimeError) as theirs:
        ForkingPickler.dumps(torch.ones(2, requires_grad=True) * 2)
    with pytest.raises(RuntimeError) as ours:
        ForkingPickler.dumps(cygrad.ones(2, requires_grad=True) * 2)
    assert str(ours.value) == str(theirs.value)


def test_parameters_stay_parameters():
    p = cygrad.nn.Parameter(cygrad.ones(2))
    q = ForkingPickler.loads(ForkingPickler.dumps(p))
    assert type(q) is type(p) and q.requires_grad and p.is_shared()


def test_shared_tensor_inherited_by_fork_child():
    ctx = mp.get_context("fork")
    t = cygrad.zeros(5).share_memory_()
    done = ctx.Event()
    proc = ctx.Process(target=_add_one, args=(t, done))
    proc.start()
    proc.join(10)
    assert proc.exitcode == 0 and done.is_set()
    assert t.tolist() == [1.0] * 5


def test_private_tensor_is_not_shared_with_fork_child():
    ctx = mp.get_context("fork")
    t = cygrad.zeros(3)
    proc = ctx.Process(target=_add_one, args=(t, ctx.Event()))
    proc.start()
    proc.join(10)
    assert proc.exitcode == 0 and t.tolist() == [0.0] * 3     # copy-on-write, as in torch


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_tensor_sent_through_a_queue_is_the_same_memory(method):
    ctx = mp.get_context(method)
    inbox, outbox = ctx.Queue(), ctx.Queue()
    proc = ctx.Process(target=_recv_add_and_reply, args=(inbox, outbox))
    proc.start()
    t = cygrad.arange(4.0)          # made after the child started: only the queue links them
    inbox.put(t)
    assert outbox.get(timeout=30) == ("ok", True)
    proc.join(10)
    assert proc.exitcode == 0
    assert t.tolist() == [0.0, 2.0, 4.0, 6.0] and t.is_shared()


def test_tensor_made_in_a_child_reaches_the_parent():
    ctx = mp.get_context("fork")
    outbox, release = ctx.Queue(), ctx.Event()
    proc = ctx.Process(target=_make_and_send, args=(outbox, release))
    proc.start()
    t = outbox.get(timeout=10)
    release.set()
    proc.join(10)
    assert t.tolist() == [0.0, 1.0, 2.0, 3.0] and t.is_shared()
    # The child made the segment and exited: its name is gone, the memory stays mapped.
    assert _shm.leftovers(proc.pid) == []
    t += 1
    assert t.tolist() == [1.0, 2.0, 3.0, 4.0]


def test_segment_name_removed_when_the_tensor_dies():
    t = cygrad.ones(100).share_memory_()
    name = _shm.find(t.untyped_storage().data_ptr()).name
    assert os.path.exists(os.path.join(_shm.SHM_DIR, name))
    view = t[10:20]
    del t                           # freed by reference counting, no gc pass needed
    assert os.path.exists(os.path.join(_shm.SHM_DIR, name))      # a view keeps it alive
    assert view.is_shared()
    del view
    assert not os.path.exists(os.path.join(_shm.SHM_DIR, name))


def test_received_copy_never_removes_the_senders_name():
    t = cygrad.ones(4).share_memory_()
    name = _shm.find(t.untyped_storage().data_ptr()).name
    ctx = mp.get_context("fork")
    proc = ctx.Process(target=_add_one, args=(t, ctx.Event()))
    proc.start()
    proc.join(10)
    assert os.path.exists(os.path.join(_shm.SHM_DIR, name))
    assert t.tolist() == [2.0] * 4


@pytest.mark.xfail(strict=True, reason="cygrad's core cannot swap the memory under views "
                                       "made before share_memory_() (PyTorch moves the storage)")
def test_views_made_before_share_memory_follow_like_torch():
    base = cygrad.zeros(4)
    view = base[1:3]
    base.share_memory_()
    assert view.is_shared()


def test_forked_child_is_single_threaded():
    ctx = mp.get_context("fork")
    q = ctx.SimpleQueue()
    proc = ctx.Process(target=lambda: q.put(cygrad.get_num_threads()))
    proc.start()
    proc.join(10)
    assert q.get() == 1


def test_hogwild_example_learns():
    # The parent never trains: its weights are right only if the workers' updates
    # landed in its (shared) parameters.
    result = runpy.run_path(os.path.join(ROOT, "examples", "hogwild.py"), run_name="hogwild")
    w, b, w_true, b_true = result["main"](processes=2, steps=150)
    np.testing.assert_allclose(w.detach().numpy(), w_true.numpy(), atol=0.1)
    assert abs(b.item() - b_true) < 0.1
