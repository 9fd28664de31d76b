"""A fake CUDA driver for the allocator and device-API tests.

It implements :class:`cygrad.cuda._driver.Driver` over host memory, with a
configurable capacity and device count, and records what the layers above it
do: raw allocations and frees (per device), which device was current for each
call, stream waits. Device memory is bookkeeping only (bytes are created on
first copy), so a 4 GiB device costs nothing.

Time is simulated: ``advance(ms)`` moves the device clock, and an event records
the clock when recorded, so elapsed times are exact. ``hold(stream)`` makes a
stream "busy": events recorded on it stay incomplete until ``release(stream)``,
a synchronize, or a wait on one of them.
"""
import contextlib
import itertools
import threading

import cygrad.cuda as cuda
from cygrad.cuda import _driver, _runtime
from cygrad.cuda._driver import Driver, DriverError

SEGMENT_ALIGN = 1 << 21


class FakeStream:
    def __init__(self, device, ident):
        self.device, self.ident, self.busy = device, ident, False
        self.events = []

    def __repr__(self):
        return f"FakeStream(device={self.device}, id={self.ident})"


class FakeEvent:
    def __init__(self, device, timing):
        self.device, self.timing = device, timing
        self.time = None
        self.done = True


class FakeDriver(Driver):
    name = "fake"

    def __init__(self, capacity=4 << 30, devices=1, name="Fake GPU", major=8, minor=0, sms=108):
        self.capacity, self.devices = capacity, devices
        self.props = dict(name=name, total_memory=capacity, major=major, minor=minor,
                          multi_processor_count=sms, warp_size=32, max_threads_per_block=1024,
                          max_shared_memory_per_block=48 << 10)
        self.used = [0] * devices
        self.memory = {}                    # ptr -> [device, size, bytearray or None]
        self.raw_allocs = [0] * devices
        self.raw_frees = [0] * devices
        self.log = []                       # (call, device, args) of stream/event calls
        self.clock_ms = 0.0
        self._next_ptr = 1 << 40
        self._ids = itertools.count(1)
        self._defaults = [FakeStream(d, 0) for d in range(devices)]
        self._streams = []                  # the created (non-default) streams
        self._tls = threading.local()

    # -- helpers for tests ----------------------------------------------------
    @property
    def total_raw_allocs(self):
        return sum(self.raw_allocs)

    @property
    def total_raw_frees(self):
        return sum(self.raw_frees)

    def advance(self, ms):
        self.clock_ms += ms

    def _stream(self, handle):
        return self._defaults[self._current()] if handle is None else handle

    def hold(self, handle):
        self._stream(handle).busy = True

    def release(self, handle):
        s = self._stream(handle)
        s.busy = False
        for ev in s.events:
            ev.done = True
        s.events = []

    # -- devices ---------------------------------------------------------------
    def _current(self):
        dev = getattr(self._tls, "device", None)
        if dev is None:
            raise DriverError("fake driver: no device activated on this thread")
        return dev

    def device_count(self):
        return self.devices

    def get_device_properties(self, index):
        if not 0 <= index < self.devices:
            raise DriverError(f"fake driver: no device {index}")
        return dict(self.props)

    def activate(self, index):
        if not 0 <= index < self.devices:
            raise DriverError(f"fake driver: no device {index}")
        self._tls.device = index

    def synchronize(self):
        dev = self._current()
        for s in [self._defaults[dev]] + [s for s in self._streams if s.device == dev]:
            self.release(s)

    # -- memory ----------------------------------------------------------------
    def mem_alloc(self, nbytes):
        dev = self._current()
        if self.used[dev] + nbytes > self.capacity:
            raise MemoryError(f"fake driver: out of memory allocating {nbytes} bytes")
        ptr = self._next_ptr
        # segments far apart, so an allocator bug that runs past one is visible
        self._next_ptr += -(-nbytes // SEGMENT_ALIGN) * SEGMENT_ALIGN + SEGMENT_ALIGN
        self.memory[ptr] = [dev, nbytes, None]
        self.used[dev] += nbytes
        self.raw_allocs[dev] += 1
        return ptr

    def mem_free(self, ptr):
        dev = self._current()
        if ptr not in self.memory:
            raise DriverError(f"fake driver: mem_free of unknown pointer {ptr:#x}")
        owner, nbytes, _ = self.memory[ptr]
        if owner != dev:
            raise DriverError(f"fake driver: pointer of device {owner} freed on device {dev}")
        del self.memory[ptr]
        self.used[dev] -= nbytes
        self.raw_frees[dev] += 1

    def mem_get_info(self):
        dev = self._current()
        return self.capacity - self.used[dev], self.capacity

    def _bytes(self, ptr, nbytes):
        for base, entry in self.memory.items():
            if base <= ptr and ptr + nbytes <= base + entry[1]:
                if entry[2] is None:
                    entry[2] = bytearray(entry[1])
                return entry[2], ptr - base
        raise DriverError(f"fake driver: {nbytes} bytes at {ptr:#x} are not allocated")

    def memcpy_htod(self, dst, src, stream=None):
        buf, off = self._bytes(dst, src.nbytes)
        buf[off:off + src.nbytes] = src.tobytes()

    def memcpy_dtoh(self, dst, src, stream=None):
        buf, off = self._bytes(src, dst.nbytes)
        dst.reshape(-1).view("u1")[:] = memoryview(buf)[off:off + dst.nbytes]

    def memcpy_dtod(self, dst, src, nbytes, stream=None):
        sbuf, soff = self._bytes(src, nbytes)
        dbuf, doff = self._bytes(dst, nbytes)
        dbuf[doff:doff + nbytes] = sbuf[soff:soff + nbytes]

    def memset_d8(self, ptr, value, nbytes, stream=None):
        buf, off = self._bytes(ptr, nbytes)
        buf[off:off + nbytes] = bytes([value]) * nbytes

    # -- streams and events ----------------------------------------------------
    def stream_create(self):
        s = FakeStream(self._current(), next(self._ids))
        self._streams.append(s)
        self.log.append(("stream_create", s.device, ()))
        return s

    def stream_synchronize(self, stream):
        self.release(stream)

    def stream_query(self, stream):
        return not self._stream(stream).busy

    def stream_wait_event(self, stream, event):
        self.log.append(("stream_wait_event", self._current(), (self._stream(stream), event)))

    def event_create(self, enable_timing=False):
        return FakeEvent(self._current(), enable_timing)

    def event_record(self, event, stream=None):
        s = self._stream(stream)
        if s.device != self._current() or event.device != s.device:
            raise DriverError("fake driver: event or stream of another device")
        event.time = self.clock_ms
        event.done = not s.busy
        if s.busy:
            s.events.append(event)
        self.log.append(("event_record", s.device, (event, s)))

    def event_synchronize(self, event):
        if not event.done:
            for s in self._defaults + self._streams:
                if event in s.events:
                    self.release(s)

    def event_query(self, event):
        return event.done

    def event_elapsed_time(self, start, end):
        if not (start.timing and end.timing):
            raise DriverError("fake driver: event created without timing")
        if not (start.done and end.done):
            raise DriverError("fake driver: event not ready")
        return end.time - start.time

    # -- kernels ---------------------------------------------------------------
    def load_module(self, source_path):
        raise NotImplementedError("the fake driver runs no kernels")

    def launch(self, kernel, grid, block, args, shared_mem=0, stream=None):
        raise NotImplementedError("the fake driver runs no kernels")


@contextlib.contextmanager
def installed(driver):
    """Make ``driver`` the process's CUDA driver for the block, with fresh CUDA state."""
    saved = _driver._driver
    _driver._set_driver(driver)
    _runtime._reset()
    cuda._initialized = False
    try:
        yield driver
    finally:
        _driver._set_driver(saved)
        _runtime._reset()
        cuda._initialized = False
