"""cygrad.cuda's device, stream, event and seed API against a fake driver, and
what each call does without a driver (tests/cuda/fake_driver.py)."""
import os
import sys

import pytest

import cygrad
import cygrad.cuda as cuda
from cygrad.cuda import _driver
from cygrad.cuda.memory import allocate

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import FakeDriver, installed  # noqa: E402

# c10::default_rng_seed_val, what torch.cuda.initial_seed() gives when never seeded
PYTORCH_DEFAULT_SEED = 67280421310721


@pytest.fixture
def fake():
    with installed(FakeDriver(devices=1)) as d:
        yield d


@pytest.fixture
def fake2():
    with installed(FakeDriver(devices=2, name="Fake GPU 2x", major=9, minor=0, sms=132)) as d:
        yield d


# ---- availability and initialisation --------------------------------------------

def test_available_with_a_driver_and_initialised_on_first_use(fake2):
    assert cuda.is_available() is True
    assert cuda.device_count() == 2
    assert cuda.is_initialized() is False
    assert cuda.current_device() == 0
    assert cuda.is_initialized() is True


def test_init_initialises(fake):
    cuda.init()
    assert cuda.is_initialized()


def test_tensors_say_when_the_backend_is_missing(fake, monkeypatch):
    monkeypatch.setattr(cuda, "_backend_ready", False)
    with pytest.raises(RuntimeError, match="backend is not implemented yet"):
        cygrad.zeros(2, device="cuda")


# ---- devices --------------------------------------------------------------------

def test_set_device_and_device_context(fake2):
    cuda.set_device(1)
    assert cuda.current_device() == 1
    assert fake2._current() == 1                  # the driver was told
    with cuda.device(0):
        assert cuda.current_device() == 0 and fake2._current() == 0
        with cuda.device("cuda:1"):
            assert cuda.current_device() == 1
        assert cuda.current_device() == 0
    assert cuda.current_device() == 1
    cuda.set_device(cygrad.device("cuda", 0))
    assert cuda.current_device() == 0
    cuda.set_device(-1)                            # a no-op, as in PyTorch
    assert cuda.current_device() == 0
    with cuda.device_of(cygrad.zeros(2)):          # a CPU tensor: nothing changes
        assert cuda.current_device() == 0


def test_bad_devices(fake2):
    with pytest.raises(RuntimeError, match="invalid device ordinal 2"):
        cuda.set_device(2)
    with pytest.raises(ValueError, match="Expected a cuda device, but got: cpu"):
        cuda.set_device("cpu")
    with pytest.raises(ValueError, match="Expected"):
        cuda.set_device(1.5)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        cuda.memory_allocated(5)
    with pytest.raises(RuntimeError, match="invalid device ordinal"):
        with cuda.device(3):
            pass
    assert cuda.current_device() == 0


def test_device_properties(fake2):
    p = cuda.get_device_properties(1)
    assert (p.name, p.total_memory, p.major, p.minor, p.multi_processor_count) == \
        ("Fake GPU 2x", 4 << 30, 9, 0, 132)
    assert p.warp_size == 32 and p.shared_memory_per_block == 48 << 10
    assert "multi_processor_count=132" in repr(p)
    assert cuda.get_device_name() == "Fake GPU 2x"
    assert cuda.get_device_capability("cuda:0") == (9, 0)


def test_allocations_go_to_their_device(fake2):
    a = allocate(4096, device=1)
    assert fake2.memory[a.ptr][0] == 1 and fake2.raw_allocs == [0, 1]
    assert cuda.current_device() == 0              # allocating did not move the thread
    assert (cuda.memory_allocated(1), cuda.memory_allocated(0)) == (4096, 0)
    assert cuda.mem_get_info(1) == ((4 << 30) - (2 << 20), 4 << 30)
    assert cuda.mem_get_info(0) == (4 << 30, 4 << 30)
    a.free()
    cuda.empty_cache()                             # freed on device 1, where it lives
    assert fake2.raw_frees == [0, 1]


def test_record_stream_refuses_another_devices_stream(fake2):
    from cygrad.cuda.allocator import record_stream
    a = allocate(512, device=0)
    with pytest.raises(RuntimeError, match="cross-device"):
        record_stream(a, cuda.Stream(device=1))
    a.free()


def test_synchronize_completes_queued_work(fake):
    s = cuda.Stream()
    fake.hold(s.handle)
    assert s.query() is False
    cuda.synchronize()
    assert s.query() is True


# ---- streams ----------------------------------------------------------------------

def test_stream_objects(fake2):
    s = cuda.Stream(priority=-1)
    assert s.priority == -1 and s.device == cygrad.device("cuda:0")
    assert s.device_type == 1 and s.stream_id > 0
    t = cuda.Stream(device=1)
    assert t.device_index == 1 and t != s
    assert cuda.default_stream() == cuda.current_stream()
    assert cuda.default_stream().cuda_stream == 0
    assert cuda.default_stream(1) != cuda.default_stream(0)
    assert len({cuda.default_stream(), cuda.default_stream(), s}) == 2
    with pytest.raises(TypeError):
        cuda.Stream(priority="high")


def test_stream_context_and_set_stream(fake2):
    s = cuda.Stream()
    t = cuda.Stream(device=1)
    with cuda.stream(s):
        assert cuda.current_stream() == s
        with cuda.stream(t):                       # another device: it becomes current
            assert cuda.current_device() == 1 and cuda.current_stream() == t
        assert cuda.current_device() == 0 and cuda.current_stream() == s
        assert cuda.current_stream(1) == cuda.default_stream(1)
    assert cuda.current_stream() == cuda.default_stream()
    cuda.set_stream(t)
    assert cuda.current_device() == 1 and cuda.current_stream() == t
    with cuda.stream(None):
        assert cuda.current_stream() == t


def test_allocations_use_the_current_stream(fake):
    s = cuda.Stream()
    with cuda.stream(s):
        a = allocate(1000)
    assert a.stream == s
    a.free()


def test_query_synchronize_and_waits(fake):
    s1, s2 = cuda.Stream(), cuda.Stream()
    fake.hold(s2.handle)
    assert (s1.query(), s2.query()) == (True, False)
    s1.wait_stream(s2)
    (call, _, (waiter, event)), = [e for e in fake.log if e[0] == "stream_wait_event"]
    assert waiter is s1.handle
    recorded = [args for c, _, args in fake.log if c == "event_record"]
    assert recorded[-1] == (event, s2.handle)
    s2.synchronize()
    assert s2.query() is True


def test_record_event_and_wait_event(fake):
    s = cuda.Stream()
    e = s.record_event()
    assert isinstance(e, cuda.Event) and e.device == cygrad.device("cuda:0")
    cuda.current_stream().wait_event(e)
    waits = [args for c, _, args in fake.log if c == "stream_wait_event"]
    assert waits == [(fake._defaults[0], e.handle)]
    with pytest.raises(TypeError):
        s.wait_event(s)


# ---- events -----------------------------------------------------------------------

def test_event_timing(fake):
    start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
    start.record()
    fake.advance(2.5)
    end.record()
    end.synchronize()
    assert start.elapsed_time(end) == 2.5


def test_event_query_and_synchronize(fake):
    e = cuda.Event()
    assert e.query() is True                       # never recorded
    e.synchronize()
    s = cuda.Stream()
    fake.hold(s.handle)
    e.record(s)
    assert e.query() is False
    e.synchronize()
    assert e.query() is True


def test_event_errors(fake2):
    plain, timed = cuda.Event(), cuda.Event(enable_timing=True)
    with pytest.raises(RuntimeError, match="enable_timing=True"):
        plain.elapsed_time(timed)
    with pytest.raises(RuntimeError, match="must be recorded"):
        timed.elapsed_time(cuda.Event(enable_timing=True))
    timed.record()
    with pytest.raises(RuntimeError, match="does not match"):
        timed.record(cuda.Stream(device=1))
    with pytest.raises(NotImplementedError, match="interprocess"):
        cuda.Event(interprocess=True)


def test_device_and_stream_are_per_thread(fake2):
    import threading
    s = cuda.Stream(device=1)
    cuda.set_stream(s)
    seen = {}

    def worker():
        seen["device"] = cuda.current_device()
        seen["stream"] = cuda.current_stream(1)
        blk = allocate(1000)
        seen["alloc_device"] = fake2.memory[blk.ptr][0]
        blk.free()
    t = threading.Thread(target=worker)
    t.start()
    t.join()
    assert seen == {"device": 0, "stream": cuda.default_stream(1), "alloc_device": 0}
    assert cuda.current_device() == 1 and cuda.current_stream() == s


# ---- seeds ------------------------------------------------------------------------

def test_seeds_are_kept_per_device(fake2):
    assert cuda.initial_seed() == PYTORCH_DEFAULT_SEED
    cuda.manual_seed(7)
    with cuda.device(1):
        assert cuda.initial_seed() == PYTORCH_DEFAULT_SEED
    assert cuda.initial_seed() == 7
    cuda.manual_seed_all(-1)                       # wraps to 64 bits, as in PyTorch
    assert cuda.initial_seed() == 2**64 - 1
    with cuda.device(1):
        assert cuda.initial_seed() == 2**64 - 1
    cuda.seed()
    assert cuda.initial_seed() != 2**64 - 1
    with pytest.raises(RuntimeError, match="expected a long"):
        cuda.manual_seed(1.5)
    with pytest.raises(ValueError, match="Overflow"):
        cuda.manual_seed(2**64)


def test_seeds_set_before_initialisation_apply_at_init():
    with installed(FakeDriver(devices=2)):
        cuda.manual_seed_all(5)
        cuda.manual_seed(11)                       # the current device at init: 0
        assert not cuda.is_initialized()
        assert cuda.initial_seed() == 11
        with cuda.device(1):
            assert cuda.initial_seed() == 5


# ---- without a driver -------------------------------------------------------------

_NEEDS_DRIVER = [
    ("init", lambda: cuda.init()),
    ("current_device", lambda: cuda.current_device()),
    ("set_device", lambda: cuda.set_device(0)),
    ("device", lambda: cuda.device(None)),
    ("get_device_properties", lambda: cuda.get_device_properties()),
    ("get_device_name", lambda: cuda.get_device_name(0)),
    ("synchronize", lambda: cuda.synchronize()),
    ("Stream", lambda: cuda.Stream()),
    ("current_stream", lambda: cuda.current_stream()),
    ("default_stream", lambda: cuda.default_stream()),
    ("Event.record", lambda: cuda.Event().record()),
    ("mem_get_info", lambda: cuda.mem_get_info()),
    ("reset_peak_memory_stats", lambda: cuda.reset_peak_memory_stats()),
    ("memory_summary", lambda: cuda.memory_summary()),
    ("caching_allocator_alloc", lambda: cuda.caching_allocator_alloc(10)),
    ("initial_seed", lambda: cuda.initial_seed()),
    ("set_per_process_memory_fraction", lambda: cuda.set_per_process_memory_fraction(0.5)),
    ("get_per_process_memory_fraction", lambda: cuda.get_per_process_memory_fraction()),
]


@pytest.fixture
def no_driver(monkeypatch):
    """No driver installed, and choosing one fails as on a machine without CUDA."""
    message = "cygrad.cuda: PyCUDA is not installed (stand-in message of the driver selection)"

    def get_driver():
        raise RuntimeError(message)
    with installed(None):
        monkeypatch.setattr(_driver, "get_driver", get_driver)
        monkeypatch.setattr(cuda, "_probe_result", (0, "cygrad.cuda: no CUDA device"))
        yield message


@pytest.mark.parametrize("label,call", _NEEDS_DRIVER, ids=[n for n, _ in _NEEDS_DRIVER])
def test_calls_that_need_a_driver_raise_its_error(no_driver, label, call):
    with pytest.raises(RuntimeError) as info:
        call()
    assert str(info.value) == no_driver, label
    assert cuda.is_initialized() is False


def test_calls_that_need_no_driver(no_driver):
    assert cuda.is_available() is False and cuda.device_count() == 0
    assert cuda.memory_allocated() == cuda.max_memory_reserved() == 0
    assert cuda.memory_stats() == {} and cuda.memory_stats_as_nested_dict() == {}
    cuda.empty_cache()
    cuda.manual_seed(1)
    cuda.manual_seed_all(2)
    cuda.set_stream(None)
    assert cuda.Event().query() is True
    assert cuda.is_initialized() is False


def test_the_emulator_request_is_honoured_by_is_available(monkeypatch):
    with installed(None):
        monkeypatch.setattr(_driver, "_want_emulator", True)
        monkeypatch.setattr(_driver, "get_driver", lambda: FakeDriver(devices=3))
        assert cuda.is_available() is True and cuda.device_count() == 3


# ---- on the emulated driver, where it exists ------------------------------------------

def test_allocator_streams_and_events_on_the_emulated_driver():
    emulated = pytest.importorskip(
        "cygrad.cuda._driver.emulated",
        reason="the emulated driver (cygrad/cuda/_driver/emulated.py) is not in this checkout")
    np = pytest.importorskip("numpy")
    with installed(emulated.EmulatedDriver(memory=64 << 20)) as d:
        assert cuda.is_available() and cuda.get_device_properties().total_memory == 64 << 20
        blk = allocate(4096)
        x = np.arange(1024, dtype=np.float32)
        d.memcpy_htod(blk.ptr, x)
        y = np.empty_like(x)
        d.memcpy_dtoh(y, blk.ptr)
        np.testing.assert_array_equal(x, y)
        s = cuda.Stream()
        start, end = cuda.Event(enable_timing=True), cuda.Event(enable_timing=True)
        start.record(s)
        end.record(s)
        end.synchronize()
        assert start.elapsed_time(end) >= 0.0
        s.wait_stream(cuda.current_stream())
        cuda.synchronize()
        assert s.query()
        blk.free()
        kept = [allocate(20 << 20) for _ in range(3)]
        with pytest.raises(cuda.OutOfMemoryError, match="Tried to allocate 20.00 MiB"):
            allocate(20 << 20)
        for b in kept:
            b.free()
        big = allocate(50 << 20)               # only after the cached 60 MiB go back
        assert cuda.memory_stats()["num_alloc_retries"] == 2
        big.free()
        cuda.empty_cache()
        assert cuda.mem_get_info() == (64 << 20, 64 << 20)
