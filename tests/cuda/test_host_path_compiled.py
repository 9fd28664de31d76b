"""The compiled host path (docs/cuda.md, "Host cost per op"): the allocator's blocks,
free lists, malloc and free (cygrad/_core/alloc_fast.pyx), the owner of a storage's
block, and the launch plans' repeated launch and kernels.launch
(cygrad/_core/launch_fast.pyx). The allocator's rules themselves are checked by
test_allocator*.py, the plans' by test_host_path.py; here what compiling changed:
object lifetimes, threads and the fall-backs to the Python paths."""
import gc
import os
import sys
import threading

import pytest

import cygrad.cuda as cuda
from cygrad._core.alloc_fast import DeviceAllocation, FreeList
from cygrad._core.launch_fast import PlanBase
from cygrad.cuda import _runtime
from cygrad.cuda.allocator import Block
from cygrad.cuda.memory import allocate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import FakeDriver, installed  # noqa: E402


@pytest.fixture
def fake():
    with installed(FakeDriver(capacity=1 << 30, devices=2)) as d:
        yield d


def test_a_storage_owner_in_a_garbage_cycle_gives_its_block_back(fake):
    gc.collect()
    before = cuda.memory_allocated()
    owner = DeviceAllocation(allocate(3000))
    assert cuda.memory_allocated() == before + 3072
    cycle = [owner]
    cycle.append(cycle)             # reachable only from itself once the names go
    del owner, cycle
    gc.collect()
    assert cuda.memory_allocated() == before


def test_a_storage_owner_frees_its_block_once(fake):
    owner = DeviceAllocation(allocate(512))
    block = owner.block
    del owner
    assert cuda.memory_allocated() == 0
    with pytest.raises(RuntimeError, match="freed twice"):
        block.free()


def test_free_refuses_what_is_not_a_block_and_stale_blocks(fake):
    alloc = _runtime.allocator(0)
    with pytest.raises(TypeError, match="Block"):
        alloc.free("not a block")
    a = allocate(512)
    a.free()
    b = allocate(512)               # the same memory, a new Block object
    assert b.ptr == a.ptr and b is not a
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        a.free()
    assert cuda.memory_allocated() == 512
    b.free()
    zero = allocate(0)
    assert zero.ptr == 0 and zero.size == 0
    zero.free()                     # owns nothing: nothing to give back


def test_malloc_checks_its_size_as_before(fake):
    alloc = _runtime.allocator(0)
    stream = cuda.current_stream()
    with pytest.raises(TypeError, match="bool"):
        alloc.malloc(True, stream)
    with pytest.raises(TypeError, match="float"):
        alloc.malloc(1.5, stream)
    with pytest.raises(ValueError, match="non-negative"):
        alloc.malloc(-1, stream)
    import numpy as np
    blk = alloc.malloc(np.int64(700), stream)
    assert (blk.size, blk.requested) == (1024, 700)
    blk.free()


def test_free_list_orders_by_size_then_pointer():
    class B:
        def __init__(self, size, ptr):
            self.size, self.ptr = size, ptr
    pool = FreeList()
    blocks = [B(1024, 0x3000), B(512, 0x9000), B(1024, 0x1000), B(4096, 0x5000)]
    for b in blocks:
        pool.add(b)
    assert pool.keys == sorted((b.size, b.ptr) for b in blocks)
    assert pool.best_fit(600) is blocks[2] and pool.best_fit(4097) is None
    pool.remove(blocks[2])
    assert pool.best_fit(600) is blocks[0] and len(pool.blocks) == 3


def test_blocks_keep_their_python_attributes():
    b = Block(None, 0x1000, 512, None, True)
    assert (b.ptr, b.size, b.requested, b.device, b.is_split) == (0x1000, 512, 0, None, False)
    b2 = Block(None, 0x1200, 512, None, True, prev=b)
    b._next = b2
    assert b.is_split and b2.is_split and "free" in repr(b)


def test_a_thread_that_never_set_a_device_launches_on_device_0(fake):
    cuda.set_device(1)
    try:
        seen = []
        t = threading.Thread(target=lambda: seen.append(_runtime._current()))
        t.start()
        t.join()
        assert seen == [0] and _runtime._current() == 1
    finally:
        cuda.set_device(0)


def test_a_plan_without_fixed_types_or_other_arguments_takes_the_full_check():
    class Plan(PlanBase):
        def _full(self, args, stream):
            calls.append((args, stream))
    calls = []
    p = Plan()
    p((1, 2), "s")                  # no types fixed yet
    p.types = (int, int)
    p((1, 2.0), "s")                # another type
    p([1, 2, 3], "s")               # another count
    assert calls == [((1, 2), "s"), ((1, 2.0), "s"), ([1, 2, 3], "s")]
