"""A stand-in for ``pycuda`` that records every call, for tests/cuda/test_pycuda_driver.py.

``install(monkeypatch, ...)`` puts a fresh fake into ``sys.modules`` as
``pycuda`` and ``pycuda.driver`` and returns the driver module; its ``calls`` list
holds ``(name, args, kwargs)`` for every call cygrad makes. Device memory is
host memory keyed by fake pointers (distinct from host addresses), so copies
and launches can be checked without a GPU.
"""
import sys
import types


class Error(Exception):
    pass


class MemoryError_(Error):
    pass


class LogicError(Error):
    pass


def install(monkeypatch, count=1, capability=(8, 0), memory=1 << 30, launch_kernel=False):
    """``launch_kernel``: give functions PyCUDA's ``_launch_kernel(grid, block, buffer,
    shared, stream)`` (cuLaunchKernel with a parameter buffer) besides ``__call__``."""
    cuda = types.ModuleType("pycuda.driver")
    calls = []
    state = {"next": 0x7000_0000, "used": 0, "allocs": {}}

    def record(name, *args, **kwargs):
        calls.append((name, args, kwargs))

    cuda.calls = calls
    cuda.Error, cuda.MemoryError, cuda.LogicError = Error, MemoryError_, LogicError
    cuda.init = lambda flags=0: record("init", flags)
    cuda.device_attribute = types.SimpleNamespace(MULTIPROCESSOR_COUNT="mp", WARP_SIZE="ws",
                                                  MAX_THREADS_PER_BLOCK="mt",
                                                  MAX_SHARED_MEMORY_PER_BLOCK="ms")
    cuda.event_flags = types.SimpleNamespace(DISABLE_TIMING=2)

    class Context:
        def __init__(self, device):
            self.device = device

        def push(self):
            record("Context.push", self.device)

        @staticmethod
        def pop():
            record("Context.pop")

        @staticmethod
        def synchronize():
            record("Context.synchronize")

    class Device:
        def __init__(self, index):
            self.index = index

        @staticmethod
        def count():
            return count

        def compute_capability(self):
            return capability

        def name(self):
            return "Fake GPU"

        def total_memory(self):
            return memory

        def get_attribute(self, attr):
            return {"mp": 108, "ws": 32, "mt": 1024, "ms": 49152}[attr]

        def retain_primary_context(self):
            record("Device.retain_primary_context", self.index)
            return Context(self.index)

        def make_context(self, flags=0):
            record("Device.make_context", self.index)
            return Context(self.index)

    class DeviceAllocation:
        def __init__(self, ptr, size):
            self.ptr, self.size = ptr, size

        def __int__(self):
            return self.ptr

        def free(self):
            record("DeviceAllocation.free", self.ptr)
            state["used"] -= self.size

    def mem_alloc(nbytes):
        record("mem_alloc", nbytes)
        if state["used"] + nbytes > memory:
            raise MemoryError_("cuMemAlloc failed: out of memory")
        ptr = state["next"]
        state["next"] += (nbytes + 511) // 512 * 512 + 512
        state["used"] += nbytes
        return DeviceAllocation(ptr, nbytes)

    class Stream:
        def __init__(self, flags=0):
            record("Stream", flags)

        def synchronize(self):
            record("Stream.synchronize", self)

        def is_done(self):
            record("Stream.is_done", self)
            return True

        def wait_for_event(self, event):
            record("Stream.wait_for_event", self, event)

    class Event:
        def __init__(self, flags=0):
            record("Event", flags)
            self.flags = flags
            self.t = None

        def record(self, stream=None):
            record("Event.record", self, stream)
            self.t = 10.0 if self.t is None else self.t

        def synchronize(self):
            record("Event.synchronize", self)

        def query(self):
            record("Event.query", self)
            return True

        def time_till(self, end):
            record("Event.time_till", self, end)
            return 2.5

    class Function:
        def __init__(self, name):
            self.name = name

        def __call__(self, *args, **kwargs):
            record("Function.__call__", self.name, *args, **kwargs)

    class LaunchingFunction(Function):
        def _launch_kernel(self, grid, block, buffer, shared, stream):
            record("Function._launch_kernel", self.name, grid, block, bytes(buffer), shared, stream)

    class SourceModule_:
        def __init__(self, image):
            self.image = image

        def get_function(self, name):
            record("Module.get_function", name)
            return (LaunchingFunction if launch_kernel else Function)(name)

    def module_from_buffer(buffer, options=None, message_handler=None):
        record("module_from_buffer", bytes(buffer))
        return SourceModule_(bytes(buffer))

    cuda.Device, cuda.Context, cuda.Stream, cuda.Event = Device, Context, Stream, Event
    cuda.DeviceAllocation = DeviceAllocation
    cuda.mem_alloc, cuda.module_from_buffer = mem_alloc, module_from_buffer
    cuda.mem_get_info = lambda: (memory - state["used"], memory)
    for name in ("memcpy_htod", "memcpy_htod_async", "memcpy_dtoh", "memcpy_dtoh_async", "memcpy_dtod",
                 "memcpy_dtod_async", "memset_d8", "memset_d8_async"):
        setattr(cuda, name, (lambda n: lambda *a, **k: record(n, *a, **k))(name))

    package = types.ModuleType("pycuda")
    package.driver = cuda
    package.VERSION = (2025, 1)
    monkeypatch.setitem(sys.modules, "pycuda", package)
    monkeypatch.setitem(sys.modules, "pycuda.driver", cuda)
    return cuda
