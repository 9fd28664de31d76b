"""The caching allocator's state as C fields (``alloc_fast.AllocatorState``, the base
class of ``CachingAllocator``) against a fake driver: the pools of the last stream
kept beside ``_pools`` never outlive the pools in it (a stream's pools given back
by ``empty_cache`` are made anew, and what is freed later is found and given back
again), alternating streams keep their own blocks, and the fields keep their types.
Expected values come from the documented rules (512-byte rounding, 2 MiB small
segments), not from the allocator."""
import os
import sys
import threading

import pytest

import cygrad.cuda as cuda
from cygrad.cuda.memory import allocate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import FakeDriver, installed  # noqa: E402

KiB, MiB = 1 << 10, 1 << 20


@pytest.fixture
def fake():
    with installed(FakeDriver(capacity=1 << 30)) as d:
        yield d


def test_a_stream_whose_pools_were_given_back_gets_new_ones(fake):
    a = allocate(4 * KiB)
    alloc = a._owner
    stream = a.stream
    a.free()
    cuda.empty_cache()                                   # the segment and its pool go back
    assert cuda.memory_reserved() == 0 and fake.total_raw_frees == 1
    assert (True, stream) not in alloc._pools
    b = allocate(4 * KiB)                                # a new segment, a new pool
    assert fake.total_raw_allocs == 2
    b.free()
    # the block freed now is in the pool that _pools holds, so empty_cache finds it
    pool = alloc._pools[(True, stream)]
    assert [blk.size for blk in pool.blocks.values()] == [2 * MiB]
    cuda.empty_cache()
    assert cuda.memory_reserved() == 0 and fake.total_raw_frees == 2


def test_alternating_streams_reuse_their_own_blocks(fake):
    s1, s2 = cuda.Stream(), cuda.Stream()
    firsts = {}
    for round_ in range(3):
        for s in (s1, s2, None):
            blk = allocate(4 * KiB, stream=s)
            if round_ == 0:
                firsts[s] = blk.ptr
            assert blk.ptr == firsts[s]                 # each stream's own cached block
            blk.free()
    assert fake.total_raw_allocs == 3                    # one small segment per stream
    stats = cuda.memory_stats()
    assert stats["allocation.all.current"] == 0 and stats["allocation.all.allocated"] == 9
    assert stats["segment.small_pool.current"] == 3


def test_the_fields_keep_their_types_and_the_lock_is_the_allocators(fake):
    a = allocate(512)
    alloc = a._owner
    assert type(alloc._lock) is type(threading.RLock())
    assert alloc._depth == 0 and alloc._deferred == [] and alloc._pending == []
    assert alloc._live == {a.ptr: a}
    with pytest.raises(TypeError):
        alloc._pools = []
    with pytest.raises(TypeError):
        alloc._stats = {}
    with alloc._critical:                                # the Python side takes the same lock
        assert alloc._depth == 1
        held = []
        t = threading.Thread(target=lambda: held.append(alloc._lock.acquire(timeout=0.05)))
        t.start()
        t.join()
        assert held == [False]                           # another thread waits for it
    a.free()
    assert alloc._depth == 0 and cuda.memory_allocated() == 0
