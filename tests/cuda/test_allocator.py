"""The caching device allocator against a fake driver (tests/cuda/fake_driver.py).

Expected values come from the tests' own arithmetic on the request sizes and
the documented rules (512-byte rounding, 2 MiB small segments, large segments
rounded to 2 MiB, split thresholds), never from the allocator itself.
"""
import os
import sys

import pytest

import cygrad.cuda as cuda
from cygrad.cuda.allocator import Block, record_stream
from cygrad.cuda.memory import allocate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import FakeDriver, installed  # noqa: E402

KiB, MiB, GiB = 1 << 10, 1 << 20, 1 << 30


@pytest.fixture
def fake():
    with installed(FakeDriver(capacity=4 * GiB)) as d:
        yield d


def ceil_to(n, m):
    return -(-n // m) * m


def stat(key):
    return cuda.memory_stats()[key]


# ---- rounding, pools, splitting ---------------------------------------------------

@pytest.mark.parametrize("nbytes", [1, 511, 512, 513, 1000, 4096, 100_000, MiB])
def test_small_requests_round_to_512_and_share_a_2mib_segment(fake, nbytes):
    a = allocate(nbytes)
    b = allocate(nbytes)
    rounded = max(512, ceil_to(nbytes, 512))
    assert (a.size, b.size, a.requested) == (rounded, rounded, nbytes)
    # both carved from one 2 MiB segment, the second right after the first
    # (unless the first took the whole segment's worth of splittable space)
    expected_segments = 1 if 2 * rounded <= 2 * MiB else 2
    assert fake.total_raw_allocs == expected_segments
    assert stat("reserved_bytes.small_pool.current") == expected_segments * 2 * MiB
    assert stat("reserved_bytes.large_pool.current") == 0
    if expected_segments == 1:
        assert b.ptr == a.ptr + rounded
    assert cuda.memory_allocated() == 2 * rounded


@pytest.mark.parametrize("nbytes", [MiB + 1, 3 * MiB + 5, 4 * MiB, 7 * MiB + 512, 100 * MiB])
def test_large_requests_use_segments_rounded_to_2mib(fake, nbytes):
    blk = allocate(nbytes)
    rounded = ceil_to(nbytes, 512)
    segment = ceil_to(rounded, 2 * MiB)
    # the remainder is split off only when more than 1 MiB is left
    expected_size = rounded if segment - rounded > MiB else segment
    assert blk.size == expected_size
    assert fake.memory[blk.ptr][1] == segment
    assert stat("segment.large_pool.current") == 1
    assert stat("reserved_bytes.large_pool.current") == segment
    assert stat("allocated_bytes.large_pool.current") == expected_size
    assert stat("segment.small_pool.current") == 0


def test_split_and_merge_reuse_without_driver_calls(fake):
    x = allocate(8 * MiB)
    base = x.ptr
    x.free()
    a = allocate(3 * MiB)                  # splits the cached 8 MiB block: 3 + 5
    b = allocate(5 * MiB)                  # takes the 5 MiB remainder
    assert (a.ptr, b.ptr) == (base, base + 3 * MiB)
    assert fake.total_raw_allocs == 1
    a.free()
    assert stat("inactive_split.large_pool.current") == 1
    assert stat("inactive_split_bytes.large_pool.current") == 3 * MiB
    b.free()                               # merges with a: one free 8 MiB block again
    assert stat("inactive_split.large_pool.current") == 0
    c = allocate(8 * MiB)
    assert (c.ptr, c.size) == (base, 8 * MiB)
    assert fake.total_raw_allocs == 1 and fake.total_raw_frees == 0
    c.free()
    cuda.empty_cache()
    assert fake.total_raw_frees == 1 and fake.memory == {}
    assert cuda.memory_reserved() == 0


def test_small_pool_merges_three_neighbours(fake):
    a, b, c = (allocate(512) for _ in range(3))
    assert (b.ptr - a.ptr, c.ptr - b.ptr) == (512, 512)
    a.free()
    c.free()                               # c merges with the segment's tail
    assert stat("inactive_split.small_pool.current") == 2
    assert stat("inactive_split_bytes.small_pool.current") == 2 * MiB - 512
    cuda.empty_cache()                     # b still holds the segment
    assert fake.total_raw_frees == 0
    b.free()                               # everything merges into the whole segment
    assert stat("inactive_split.small_pool.current") == 0
    whole = allocate(MiB)                  # the merged block, from its start, no driver call
    assert whole.ptr == a.ptr and fake.total_raw_allocs == 1
    whole.free()
    cuda.empty_cache()
    assert fake.total_raw_frees == 1 and fake.memory == {}


def test_a_block_is_freed_once(fake):
    a = allocate(1000)
    a.free()
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        a.free()
    b = allocate(1000)                     # reuses a's memory under a new handle
    assert b.ptr == a.ptr
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        a.free()                           # the stale handle cannot free b's memory
    assert cuda.memory_allocated() == 1024
    b.free()


def test_zero_and_bad_sizes(fake):
    z = allocate(0)
    assert (z.ptr, z.size) == (0, 0)
    z.free()
    assert fake.total_raw_allocs == 0 and cuda.memory_allocated() == 0
    with pytest.raises(ValueError, match="non-negative"):
        allocate(-1)
    with pytest.raises(TypeError, match="int"):
        allocate(1.5)
    with pytest.raises(TypeError, match="int"):
        allocate(True)
    import numpy as np
    blk = allocate(np.int64(600))
    assert (blk.size, blk.requested, type(blk.requested)) == (1024, 600, int)
    blk.free()


# ---- the training loop ----------------------------------------------------------

def test_second_iteration_of_a_training_loop_makes_no_raw_allocation(fake):
    params = [allocate(n) for n in (4 * MiB, 16 * KiB, 9 * MiB, 2 * KiB)]

    def iteration():
        # forward: activations of a few sizes, kept until backward
        acts = [allocate(n) for n in (6 * MiB, 300 * KiB, 6 * MiB, 40 * KiB, 12 * MiB + 100)]
        tmp = allocate(2 * MiB + 1)
        tmp.free()
        # backward: gradients, then activations freed in reverse order
        grads = [allocate(p.requested) for p in params]
        for a in reversed(acts):
            a.free()
        workspace = allocate(20 * MiB)
        workspace.free()
        for g in grads:
            g.free()

    iteration()
    first = fake.total_raw_allocs
    reserved = cuda.memory_reserved()
    assert first > 0
    for _ in range(2):
        iteration()
        assert fake.total_raw_allocs == first
        assert fake.total_raw_frees == 0
        assert cuda.memory_reserved() == reserved
    assert cuda.memory_allocated() == sum(p.size for p in params)


# ---- out of memory --------------------------------------------------------------

def test_oom_retry_succeeds_when_the_cache_was_the_problem(fake):
    blocks = [allocate(GiB) for _ in range(3)]
    for b in blocks:
        b.free()                           # three cached 1 GiB segments, none merges
    assert cuda.memory_reserved() == 3 * GiB
    big = allocate(2 * GiB)                # no cached block fits; 3 + 2 > 4 GiB
    assert big.size == 2 * GiB
    assert stat("num_alloc_retries") == 1 and stat("num_ooms") == 0
    assert fake.total_raw_frees == 3
    assert cuda.memory_reserved() == 2 * GiB


def test_oom_error_reports_the_numbers_and_the_allocator_still_works(fake):
    kept = allocate(3 * GiB)
    small = allocate(512)                  # reserves a 2 MiB small segment
    with pytest.raises(cuda.OutOfMemoryError) as info:
        allocate(2 * GiB)
    err = info.value
    assert isinstance(err, RuntimeError)
    free = 4 * GiB - 3 * GiB - 2 * MiB
    assert (err.requested, err.total, err.free) == (2 * GiB, 4 * GiB, free)
    assert (err.allocated, err.reserved) == (3 * GiB + 512, 3 * GiB + 2 * MiB)
    msg = str(err)
    for part in ("CUDA out of memory. Tried to allocate 2.00 GiB.",
                 "GPU 0 has a total capacity of 4.00 GiB of which 1022.00 MiB is free;",
                 "3.00 GiB is in use, by cygrad and any other user.",
                 "3.00 GiB is allocated by cygrad",
                 "2.00 MiB is reserved by cygrad but unallocated"):
        assert part in msg
    assert stat("num_alloc_retries") == 1 and stat("num_ooms") == 1
    # the failed request left no trace
    assert cuda.memory_allocated() == 3 * GiB + 512
    kept.free()
    again = allocate(2 * GiB)              # splits the cached 3 GiB block: no driver call
    assert again.ptr == kept.ptr and fake.total_raw_allocs == 2
    again.free()
    small.free()


# ---- statistics -------------------------------------------------------------------

def test_stats_and_peaks_follow_a_scripted_sequence(fake):
    # the script's own arithmetic: sizes after rounding and the segments they need
    a_req, b_req, c_req, d_req = 1000, 4 * MiB, 6 * MiB + 100, 2 * MiB
    a_sz, b_sz, c_sz, d_sz = 1024, 4 * MiB, 6 * MiB + 512, 2 * MiB
    seg_small, seg_b, seg_c = 2 * MiB, 4 * MiB, 8 * MiB

    a, b, c = allocate(a_req), allocate(b_req), allocate(c_req)
    s = cuda.memory_stats()
    assert s["allocated_bytes.all.current"] == a_sz + b_sz + c_sz
    assert s["allocated_bytes.small_pool.current"] == a_sz
    assert s["allocated_bytes.large_pool.current"] == b_sz + c_sz
    assert s["requested_bytes.all.current"] == a_req + b_req + c_req
    assert s["reserved_bytes.all.current"] == seg_small + seg_b + seg_c
    assert s["segment.all.current"] == 3 and s["allocation.all.current"] == 3
    assert s["active.all.current"] == 3
    # a's and c's segments keep their remainders as cached splits
    assert s["inactive_split.all.current"] == 2
    assert s["inactive_split_bytes.all.current"] == (seg_small - a_sz) + (seg_c - c_sz)
    assert s["num_device_alloc"] == 3

    b.free()
    d = allocate(d_req)                    # best fit: b's 4 MiB block, split 2 + 2
    assert d.ptr == b.ptr and d.size == d_sz
    peak_alloc = a_sz + b_sz + c_sz
    now = a_sz + c_sz + d_sz
    s = cuda.memory_stats()
    assert s["allocated_bytes.all.current"] == now
    assert s["allocated_bytes.all.peak"] == peak_alloc
    assert s["allocated_bytes.all.allocated"] == a_sz + b_sz + c_sz + d_sz
    assert s["allocated_bytes.all.freed"] == b_sz
    assert s["allocation.all.allocated"] == 4 and s["allocation.all.freed"] == 1
    assert s["inactive_split_bytes.large_pool.current"] == (seg_c - c_sz) + (seg_b - d_sz)
    assert cuda.max_memory_allocated() == peak_alloc
    assert cuda.max_memory_reserved() == seg_small + seg_b + seg_c

    cuda.reset_peak_memory_stats()
    assert cuda.max_memory_allocated() == now
    cuda.empty_cache()                     # every segment is partly in use: nothing to give
    assert cuda.memory_reserved() == seg_small + seg_b + seg_c

    for blk in (a, c, d):
        blk.free()
    cuda.empty_cache()
    s = cuda.memory_stats()
    assert s["reserved_bytes.all.current"] == 0 and s["segment.all.freed"] == 3
    assert s["reserved_bytes.all.peak"] == seg_small + seg_b + seg_c
    assert s["num_device_free"] == 3
    assert s["allocated_bytes.all.current"] == 0
    assert s["allocated_bytes.all.freed"] == a_sz + b_sz + c_sz + d_sz
    assert s["requested_bytes.all.freed"] == a_req + b_req + c_req + d_req

    cuda.reset_accumulated_memory_stats()
    s = cuda.memory_stats()
    assert s["allocated_bytes.all.allocated"] == s["allocated_bytes.all.freed"] == 0
    assert s["num_device_alloc"] == 0
    assert s["allocated_bytes.all.peak"] == now      # peaks are not accumulated stats


def test_memory_stats_keys_are_pytorchs(fake):
    allocate(10).free()
    keys = set(cuda.memory_stats())
    for name in ("allocated_bytes", "reserved_bytes", "segment", "active", "active_bytes",
                 "allocation", "inactive_split", "inactive_split_bytes", "requested_bytes"):
        for pool in ("all", "small_pool", "large_pool"):
            for field in ("current", "peak", "allocated", "freed"):
                assert f"{name}.{pool}.{field}" in keys
    assert {"num_alloc_retries", "num_ooms"} <= keys
    assert list(cuda.memory_stats()) == sorted(keys)


# ---- streams --------------------------------------------------------------------

def test_pools_are_per_stream(fake):
    s1 = cuda.Stream()
    a = allocate(4 * KiB, stream=s1)
    assert a.stream == s1
    a.free()
    b = allocate(4 * KiB)                  # default stream: a's block is not reused
    assert b.ptr != a.ptr and fake.total_raw_allocs == 2
    c = allocate(4 * KiB, stream=s1)       # s1 gets its block back, no driver call
    assert c.ptr == a.ptr and fake.total_raw_allocs == 2
    b.free()
    c.free()


def test_record_stream_delays_reuse_until_the_other_stream_is_done(fake):
    s2 = cuda.Stream()
    a = allocate(4 * KiB)
    fake.hold(s2.handle)                   # s2 has work queued that uses a
    record_stream(a, s2)
    a.free()
    assert cuda.memory_allocated() == 0
    assert stat("active_bytes.all.current") == 4 * KiB     # still in use on s2
    b = allocate(4 * KiB)
    assert b.ptr != a.ptr
    fake.release(s2.handle)                # s2's work is done
    c = allocate(4 * KiB)
    assert c.ptr == a.ptr
    assert fake.total_raw_allocs == 1
    recorded = [args for call, _, args in fake.log if call == "event_record"]
    assert len(recorded) == 1 and recorded[0][1] is s2.handle
    for blk in (b, c):
        blk.free()


def test_record_stream_on_its_own_stream_changes_nothing(fake):
    a = allocate(4 * KiB)
    record_stream(a, cuda.current_stream())
    a.free()
    assert allocate(4 * KiB).ptr == a.ptr
    assert not [c for c, _, _ in fake.log if c == "event_record"]


def test_empty_cache_waits_for_pending_blocks(fake):
    s2 = cuda.Stream()
    a = allocate(4 * KiB)
    fake.hold(s2.handle)
    record_stream(a, s2)
    a.free()
    cuda.empty_cache()
    assert stat("num_sync_all_streams") == 1
    assert fake.total_raw_frees == 1 and cuda.memory_reserved() == 0
    assert stat("active.all.current") == 0


def test_record_stream_checks_its_block(fake):
    with pytest.raises(TypeError, match="Block"):
        record_stream("not a block", cuda.current_stream())
    a = allocate(512)
    a.free()
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        record_stream(a, cuda.current_stream())
    assert isinstance(a, Block)


def test_caching_allocator_alloc_and_delete(fake):
    ptr = cuda.caching_allocator_alloc(3000)
    assert isinstance(ptr, int) and cuda.memory_allocated() == 3072
    cuda.caching_allocator_delete(ptr)
    assert cuda.memory_allocated() == 0
    with pytest.raises(RuntimeError, match="invalid device pointer"):
        cuda.caching_allocator_delete(ptr)
    assert cuda.caching_allocator_alloc(100) == ptr and fake.total_raw_allocs == 1


def test_memory_summary_shows_the_stats(fake):
    a = allocate(3 * MiB)
    text = cuda.memory_summary()
    assert "device ID 0" in text
    row = next(line for line in text.splitlines() if line.startswith("| Allocated memory"))
    assert row.split("|")[2].strip() == "4.00 MiB"        # 3 MiB in a 4 MiB segment, unsplit
    assert "from small pool" not in cuda.memory_summary(abbreviated=True)
    a.free()


def test_random_sequences_keep_blocks_disjoint_and_the_books_balanced(fake, rng):
    streams = [cuda.current_stream(), cuda.Stream()]
    live = []
    sizes = [1, 700, 4 * KiB, 100 * KiB, MiB, MiB + 1, 3 * MiB, 9 * MiB + 7]
    for step in range(400):
        if live and rng.random() < 0.45:
            blk = live.pop(int(rng.integers(len(live))))
            if rng.random() < 0.2:
                record_stream(blk, streams[1 - streams.index(blk.stream)])
            blk.free()
        else:
            n = sizes[int(rng.integers(len(sizes)))]
            live.append(allocate(n, stream=streams[int(rng.integers(2))]))
        if step % 50 == 0:
            fake.synchronize()              # lets blocks waiting on events be reused
        # live blocks lie inside raw segments and never overlap
        spans = sorted((b.ptr, b.ptr + b.size) for b in live)
        assert all(e0 <= s1 for (_, e0), (s1, _) in zip(spans, spans[1:]))
        assert all(any(base <= s and e <= base + seg[1] for base, seg in fake.memory.items())
                   for s, e in spans)
        # a block is its rounded request, plus at most 1 MiB of unsplit remainder if large
        for b in live:
            rounded = max(512, ceil_to(b.requested, 512))
            assert b.size == rounded if rounded <= MiB else 0 <= b.size - rounded <= MiB
        assert cuda.memory_allocated() == sum(b.size for b in live)
        assert cuda.memory_reserved() == sum(seg[1] for seg in fake.memory.values())
    for blk in live:
        blk.free()
    cuda.empty_cache()
    assert fake.memory == {} and cuda.memory_reserved() == 0
    assert fake.total_raw_allocs == fake.total_raw_frees


def test_threads_share_the_allocator_safely(fake):
    import threading
    errors = []

    def worker(seed):
        import numpy as np
        r = np.random.default_rng(seed)
        held = []
        try:
            for _ in range(1000):
                if held and r.random() < 0.5:
                    held.pop(int(r.integers(len(held)))).free()
                else:
                    held.append(allocate(int(r.choice([600, 5000, 3 * MiB]))))
            for b in held:
                b.free()
        except Exception as e:          # reported below: a thread's failure must fail the test
            errors.append(e)
    threads = [threading.Thread(target=worker, args=(i,)) for i in range(4)]
    saved = sys.getswitchinterval()
    sys.setswitchinterval(1e-6)         # switch threads often, inside the allocator's calls
    try:
        for t in threads:
            t.start()
        for t in threads:
            t.join()
    finally:
        sys.setswitchinterval(saved)
    assert errors == []
    s = cuda.memory_stats()
    assert s["allocated_bytes.all.current"] == 0 and s["allocation.all.current"] == 0
    assert s["allocation.all.allocated"] == s["allocation.all.freed"] > 0
    cuda.empty_cache()
    assert fake.memory == {} and cuda.memory_reserved() == 0


def test_memory_fraction_limits_what_the_allocator_reserves(fake):
    assert cuda.get_per_process_memory_fraction() == 1.0
    cuda.set_per_process_memory_fraction(0.5)             # 2 GiB of the 4 GiB device
    assert cuda.get_per_process_memory_fraction() == 0.5
    a, b = allocate(GiB), allocate(GiB)
    a.free()
    b.free()                               # two cached 1 GiB segments: the limit is reached
    c = allocate(GiB + GiB // 2)           # fits only once the cache is given back
    assert stat("num_alloc_retries") == 1 and fake.total_raw_frees == 2
    with pytest.raises(cuda.OutOfMemoryError) as info:
        allocate(GiB)                      # 1.5 + 1 GiB > 2 GiB, though the device has room
    assert "cygrad may reserve 2.00 GiB of it (set_per_process_memory_fraction)" in str(info.value)
    assert fake.total_raw_allocs == 3      # the refused request never reached the driver
    c.free()
    cuda.set_per_process_memory_fraction(1.0)
    assert allocate(3 * GiB).size == 3 * GiB
    with pytest.raises(TypeError, match="must be `float`"):
        cuda.set_per_process_memory_fraction(1)
    with pytest.raises(ValueError, match="Allowed range: 0~1"):
        cuda.set_per_process_memory_fraction(1.5)


def test_nested_stats_and_backend(fake):
    allocate(1000)
    nested = cuda.memory_stats_as_nested_dict()
    assert nested["allocated_bytes"]["small_pool"]["current"] == 1024
    assert nested["segment"]["all"]["peak"] == 1 and nested["num_ooms"] == 0
    assert cuda.get_allocator_backend() == "native"
