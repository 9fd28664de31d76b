"""A CUDA storage gives its block back from a finalizer, and the garbage collector
can run one in the middle of any allocation of the same thread, also in the middle
of an allocator call (found by the op table's CUDA run, tests/cuda/test_opinfo_cuda.py:
pools corrupted, IndexError/KeyError in ``_FreeList.remove``). Such a re-entrant
free must wait until the interrupted call is done."""
import os
import sys

import pytest

import cygrad.cuda as cuda
from cygrad.cuda.memory import allocate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import FakeDriver, installed  # noqa: E402

MiB = 1 << 20


@pytest.fixture
def fake():
    with installed(FakeDriver(capacity=1 << 30)) as d:
        yield d


def test_a_free_reentering_from_inside_a_free_is_done_after_it(fake):
    a, b, c = allocate(512), allocate(512), allocate(512)     # adjacent in one small segment
    assert (b.ptr, c.ptr) == (a.ptr + 512, a.ptr + 1024)
    alloc = a._owner
    b.free()                                                   # cached between a and c
    uncache = alloc._uncache
    reentered = []

    def finalize_then_uncache(block):
        # a's free is about to take b out of its pool to merge it; a finalizer the
        # collector ran here would free c, which merges b too
        if not reentered:
            reentered.append(True)
            c.free()
        return uncache(block)

    alloc._uncache = finalize_then_uncache
    try:
        a.free()
    finally:
        alloc._uncache = uncache
    assert reentered
    stats = cuda.memory_stats()
    assert stats["allocation.all.current"] == 0 and cuda.memory_allocated() == 0
    # a, b, c and the rest merged back into the whole 2 MiB segment
    assert stats["inactive_split.all.current"] == 0
    whole = allocate(MiB)
    assert whole.ptr == a.ptr and fake.total_raw_allocs == 1
