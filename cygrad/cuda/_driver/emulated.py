"""The emulated CUDA driver: device memory in host memory, kernels compiled for the host.

Each ``.cu`` file is compiled by the host C++ compiler together with
``emu/cuda_emu.h`` (CUDA's device language on the host) and a generated launch
trampoline per kernel into a shared library, cached on disk under
``$CYGRAD_CACHE_DIR/cuda_emu/`` (default ``~/.cache/cygrad/cuda_emu/``) and keyed
by the source, both emulation headers and the compiler's version, then loaded
with ctypes. Blocks run one after another on the launching thread; the threads
of a block are fibers that switch at ``__syncthreads()`` and warp operations.

Device pointers are opaque ints at or above ``2**60``, never host addresses; the
driver maps them to host buffers and checks every pointer argument and every
copy against its table of allocations.

Every call runs to completion before it returns (streams keep their order
because nothing is ever left queued); events take the wall-clock time at which
they are recorded.

Environment
    ``CYGRAD_CUDA_EMU_MEMORY``: the device's size, bytes or with a K/M/G suffix
    (default 4G). ``CYGRAD_CUDA_EMU_STRICT=1``: strict mode (guard pages around
    every allocation, barrier divergence and bad shuffle lanes raise
    :class:`~cygrad.cuda._driver.base.DriverError`). ``CXX``: the compiler.

Examples
--------
>>> from cygrad.cuda._driver.emulated import EmulatedDriver
>>> d = EmulatedDriver(memory=1 << 20)
>>> d.mem_get_info()
(1048576, 1048576)
"""
import bisect
import ctypes
import hashlib
import mmap
import os
import pathlib
import re
import signal
import subprocess
import tempfile
import threading
import time

from .base import Driver, DriverError, Kernel, Module
from . import signature

__all__ = ["EmulatedDriver", "parse_memory_size", "cache_dir"]

_EMU_DIR = pathlib.Path(__file__).parent / "emu"
_HEADERS = ("cuda_emu.h", "cuda_emu_launch.h")
_CXX_FLAGS = ("-x", "c++", "-std=c++17", "-O1", "-fPIC", "-shared", "-fvisibility=hidden",
              "-fno-strict-aliasing", "-w")
_HANDLE_BASE = 1 << 60          # far above any user-space address of x86-64 or arm64
_HANDLE_ALIGN = 512
_HANDLE_GAP = 1 << 16           # a pointer past one allocation is never inside the next
_DEFAULT_MEMORY = 4 << 30
_MAX_SHARED = 48 * 1024
# A kernel library keeps its scheduler in globals and the fault handler is per
# process, so launches of every emulated driver run one at a time.
_LAUNCH_LOCK = threading.Lock()
_EXTERN_SHARED = re.compile(
    r"extern\s+__shared__\s+(?:__align__\s*\([^()]*\)\s*)?([^;\[\]]*?)\s*([A-Za-z_]\w*)\s*\[\s*\]\s*;")


def parse_memory_size(text):
    """Bytes from ``"4G"``, ``"512M"``, ``"64K"`` or a plain number of bytes.

    Examples
    --------
    >>> from cygrad.cuda._driver.emulated import parse_memory_size
    >>> parse_memory_size("2G"), parse_memory_size("4096")
    (2147483648, 4096)
    """
    m = re.fullmatch(r"\s*(\d+)\s*([KMGT]?)i?B?\s*", str(text), re.IGNORECASE)
    if not m or int(m.group(1)) <= 0:
        raise ValueError(f"CYGRAD_CUDA_EMU_MEMORY must be a positive size such as 4G or 1073741824, "
                         f"got {text!r}")
    return int(m.group(1)) << {"": 0, "K": 10, "M": 20, "G": 30, "T": 40}[m.group(2).upper()]


def cache_dir():
    """Where compiled kernel libraries are kept: ``$CYGRAD_CACHE_DIR/cuda_emu`` or
    ``~/.cache/cygrad/cuda_emu``.

    Examples
    --------
    >>> from cygrad.cuda._driver.emulated import cache_dir
    >>> cache_dir().name
    'cuda_emu'
    """
    root = os.environ.get("CYGRAD_CACHE_DIR")
    base = pathlib.Path(root) if root else pathlib.Path.home() / ".cache" / "cygrad"
    return base / "cuda_emu"


class _Config(ctypes.Structure):
    # mirrors cg_emu::Config in emu/cuda_emu.h
    _fields_ = [("grid", ctypes.c_uint * 3), ("block", ctypes.c_uint * 3),
                ("shared_bytes", ctypes.c_ulonglong), ("strict", ctypes.c_int),
                ("fault_addr", ctypes.c_ulonglong), ("fault_signal", ctypes.c_int),
                ("error", ctypes.c_char * 512)]


_CTYPES = {"int8": ctypes.c_int8, "int16": ctypes.c_int16, "int32": ctypes.c_int32,
           "int64": ctypes.c_int64, "uint8": ctypes.c_uint8, "uint16": ctypes.c_uint16,
           "uint32": ctypes.c_uint32, "uint64": ctypes.c_uint64, "float32": ctypes.c_float,
           "float64": ctypes.c_double, "bool": ctypes.c_bool}
_SIZES = {k: ctypes.sizeof(v) for k, v in _CTYPES.items()}


class _Libc:
    """mmap/mprotect/munmap for strict mode's guard pages."""

    def __init__(self):
        libc = ctypes.CDLL(None, use_errno=True)
        self.mmap = libc.mmap
        self.mmap.restype = ctypes.c_void_p
        self.mmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int, ctypes.c_int,
                              ctypes.c_int, ctypes.c_long]
        self.mprotect = libc.mprotect
        self.mprotect.argtypes = [ctypes.c_void_p, ctypes.c_size_t, ctypes.c_int]
        self.munmap = libc.munmap
        self.munmap.argtypes = [ctypes.c_void_p, ctypes.c_size_t]


class _Allocation:
    __slots__ = ("handle", "size", "host", "keep", "map_base", "map_len", "guards")

    def __init__(self, handle, size, host, keep=None, map_base=0, map_len=0, guards=()):
        self.handle, self.size, self.host, self.keep = handle, size, host, keep
        self.map_base, self.map_len, self.guards = map_base, map_len, guards


class _EmuStream:
    __slots__ = ("driver", "id")

    def __init__(self, driver, ident):
        self.driver, self.id = driver, ident

    def __repr__(self):
        return f"<emulated stream {self.id}>"


class _EmuEvent:
    __slots__ = ("driver", "timing", "time")

    def __init__(self, driver, timing):
        self.driver, self.timing, self.time = driver, bool(timing), None

    def __repr__(self):
        return f"<emulated event recorded={self.time is not None}>"


class EmuKernel(Kernel):
    """A kernel of an emulated module: its parameters and its launch entry point.

    Examples
    --------
    >>> from cygrad.cuda._driver.emulated import EmuKernel
    >>> issubclass(EmuKernel, __import__("cygrad").cuda._driver.Kernel)
    True
    """

    def __init__(self, name, params, entry, module, sizes):
        self.name = name
        self._sizes = sizes
        self.params = params
        self.param_types = tuple(p.type for p in params)
        self._entry = entry
        self.module = module

    def __repr__(self):
        return f"<emulated kernel {self.name}({', '.join(self.param_types)})>"


class EmuModule(Module):
    """A ``.cu`` file compiled for the host and loaded with ctypes.

    Examples
    --------
    >>> from cygrad.cuda._driver.emulated import EmuModule
    >>> 'get_function' in dir(EmuModule)
    True
    """

    def __init__(self, path, library_path, kernels):
        self.path = str(path)
        self.library_path = str(library_path)
        self._kernels = kernels

    def get_function(self, name):
        try:
            return self._kernels[name]
        except KeyError:
            raise KeyError(f"{self.path} has no extern \"C\" __global__ kernel named {name!r}") from None

    @property
    def kernel_names(self):
        """Names of the module's kernels, sorted."""
        return sorted(self._kernels)


def _compiler_version(cxx):
    proc = subprocess.run([cxx, "--version"], capture_output=True, text=True)
    return proc.stdout.strip()


def _rewrite_extern_shared(text):
    """``extern __shared__ T name[];`` becomes a pointer to the dynamic shared buffer
    (same number of lines, so compiler messages keep the source's line numbers)."""
    def repl(m):
        t, name = m.group(1).strip(), m.group(2)
        return (f"{t}* const {name} = reinterpret_cast<{t}*>(::cg_emu::dynamic_shared);"
                + "\n" * m.group(0).count("\n"))
    return _EXTERN_SHARED.sub(repl, text)


class EmulatedDriver(Driver):
    """A CUDA driver that runs kernels on the host (see the module docstring).

    Parameters
    ----------
    memory : int, optional
        Device size in bytes (default ``CYGRAD_CUDA_EMU_MEMORY`` or 4 GiB).
    strict : bool, optional
        Strict mode (default ``CYGRAD_CUDA_EMU_STRICT=1``).
    cxx : str, optional
        C++ compiler (default ``$CXX`` or ``g++``).

    Examples
    --------
    >>> import numpy as np
    >>> from cygrad.cuda._driver.emulated import EmulatedDriver
    >>> d = EmulatedDriver()
    >>> p = d.mem_alloc(16)
    >>> d.memcpy_htod(p, np.arange(4, dtype=np.float32))
    >>> out = np.empty(4, np.float32); d.memcpy_dtoh(out, p); out.tolist()
    [0.0, 1.0, 2.0, 3.0]
    >>> d.mem_free(p)
    """
    name = "emulated"
    synchronous = True      # (nothing is ever queued)

    def __init__(self, memory=None, strict=None, cxx=None):
        if memory is None:
            env = os.environ.get("CYGRAD_CUDA_EMU_MEMORY")
            memory = parse_memory_size(env) if env else _DEFAULT_MEMORY
        if strict is None:
            strict = os.environ.get("CYGRAD_CUDA_EMU_STRICT", "0") not in ("", "0")
        self.total_memory = int(memory)
        self.strict = bool(strict)
        self._cxx = cxx
        self._lock = threading.RLock()
        self._allocs = {}           # handle -> _Allocation
        self._bases = []            # sorted handles, for interior pointers
        self._next_handle = _HANDLE_BASE
        self._used = 0
        self._libc = _Libc() if self.strict else None
        self._page = os.sysconf("SC_PAGE_SIZE")
        self._streams = 0
        self._modules = {}

    # -- devices -------------------------------------------------------------
    def device_count(self):
        return 1

    def _check_device(self, index):
        if index != 0:
            raise DriverError(f"emulated driver: invalid device ordinal {index} (it has one device, 0)")

    def get_device_properties(self, index):
        self._check_device(index)
        return {"name": "cygrad emulated GPU" + (" (strict)" if self.strict else ""),
                "total_memory": self.total_memory, "major": 8, "minor": 0,
                "multi_processor_count": 1, "warp_size": 32, "max_threads_per_block": 1024,
                "max_shared_memory_per_block": _MAX_SHARED}

    def activate(self, index):
        self._check_device(index)

    def synchronize(self):
        """Nothing is ever queued: every call finished before it returned."""

    # -- memory --------------------------------------------------------------
    def mem_alloc(self, nbytes):
        nbytes = int(nbytes)
        if nbytes < 0:
            raise DriverError(f"emulated driver: mem_alloc of a negative size ({nbytes})")
        charged = -(-nbytes // _HANDLE_ALIGN) * _HANDLE_ALIGN
        with self._lock:
            if self._used + charged > self.total_memory:
                raise MemoryError(
                    f"emulated driver: out of memory allocating {nbytes} bytes "
                    f"({self.total_memory - self._used} of {self.total_memory} bytes free)")
            alloc = self._host_alloc(nbytes)
            alloc.handle = self._next_handle
            self._next_handle += charged + _HANDLE_GAP
            self._allocs[alloc.handle] = alloc
            bisect.insort(self._bases, alloc.handle)
            self._used += charged
            return alloc.handle

    def _host_alloc(self, nbytes):
        if not self.strict:
            buf = (ctypes.c_char * (nbytes + 256))()
            host = (ctypes.addressof(buf) + 255) & ~255
            return _Allocation(0, nbytes, host, keep=buf)
        # strict: the data ends where a PROT_NONE page begins, another guards the front
        page, libc = self._page, self._libc
        data = -(-nbytes // 16) * 16
        pages = -(-data // page)
        length = (pages + 2) * page
        base = libc.mmap(None, length, mmap.PROT_READ | mmap.PROT_WRITE,
                         mmap.MAP_PRIVATE | mmap.MAP_ANONYMOUS, -1, 0)
        if base in (None, ctypes.c_void_p(-1).value):
            raise MemoryError(f"emulated driver: mmap of {length} bytes failed "
                              f"(errno {ctypes.get_errno()})")
        back = base + (pages + 1) * page
        libc.mprotect(base, page, 0)        # PROT_NONE (0 everywhere; the mmap module lacks it)
        libc.mprotect(back, page, 0)
        return _Allocation(0, nbytes, back - data, map_base=base, map_len=length,
                           guards=((base, base + page), (back, back + page)))

    def mem_free(self, ptr):
        with self._lock:
            alloc = self._allocs.pop(ptr, None) if isinstance(ptr, int) else None
            if alloc is None:
                raise DriverError(f"emulated driver: mem_free of {_hex(ptr)}, which is not a pointer "
                                  "returned by mem_alloc (or was already freed)")
            self._bases.pop(bisect.bisect_left(self._bases, ptr))
            self._used -= -(-alloc.size // _HANDLE_ALIGN) * _HANDLE_ALIGN
            if alloc.map_len:
                self._libc.munmap(alloc.map_base, alloc.map_len)

    def mem_get_info(self):
        return self.total_memory - self._used, self.total_memory

    def register_external(self, ptr, nbytes):
        # the emulator's memory is its own: only ranges of its own allocations (a
        # cygrad CUDA tensor exported and imported again) can come back
        alloc = self._find(ptr)
        if alloc is None or ptr + nbytes > alloc.handle + alloc.size:
            raise DriverError(f"emulated driver: {ptr:#x} (+{nbytes} bytes) is not emulated device "
                              "memory; memory of a real GPU cannot be imported into the emulator")

    def unregister_external(self, ptr):
        pass

    def _find(self, ptr):
        """The allocation holding device pointer ``ptr`` (one past its end included)."""
        if isinstance(ptr, bool) or not isinstance(ptr, int):
            try:
                ptr = ptr.__index__()
            except (AttributeError, TypeError):
                return None
        i = bisect.bisect_right(self._bases, ptr) - 1
        if i < 0:
            return None
        alloc = self._allocs[self._bases[i]]
        return alloc if ptr <= alloc.handle + alloc.size else None

    def _host_range(self, ptr, nbytes, what):
        alloc = self._find(ptr)
        if alloc is None:
            raise DriverError(f"emulated driver: {what}: {_hex(ptr)} is not a device pointer of "
                              "this driver (never allocated, or freed)")
        off = int(ptr) - alloc.handle
        if nbytes < 0 or off + nbytes > alloc.size:
            raise DriverError(f"emulated driver: {what}: {nbytes} bytes at {_hex(ptr)} run past the end "
                              f"of its allocation ({alloc.size} bytes at {_hex(alloc.handle)})")
        return alloc.host + off

    def _check_stream(self, stream):
        if stream is not None and not (isinstance(stream, _EmuStream) and stream.driver is self):
            raise TypeError(f"emulated driver: {stream!r} is not a stream of this driver")

    @staticmethod
    def _host_array(arr, what, writeable=False):
        try:
            contiguous = arr.flags["C_CONTIGUOUS"]
            address, nbytes = arr.ctypes.data, arr.nbytes
        except AttributeError:
            raise TypeError(f"emulated driver: {what} needs a NumPy array, got {type(arr).__name__}") from None
        if not contiguous:
            raise ValueError(f"emulated driver: {what} needs a C-contiguous array")
        if writeable and not arr.flags["WRITEABLE"]:
            raise ValueError(f"emulated driver: {what} needs a writeable array")
        return address, nbytes

    def memcpy_htod(self, dst, src, stream=None):
        self._check_stream(stream)
        address, nbytes = self._host_array(src, "memcpy_htod")
        with self._lock:
            ctypes.memmove(self._host_range(dst, nbytes, "memcpy_htod"), address, nbytes)

    def memcpy_dtoh(self, dst, src, stream=None):
        self._check_stream(stream)
        address, nbytes = self._host_array(dst, "memcpy_dtoh", writeable=True)
        with self._lock:
            ctypes.memmove(address, self._host_range(src, nbytes, "memcpy_dtoh"), nbytes)

    def memcpy_dtod(self, dst, src, nbytes, stream=None):
        self._check_stream(stream)
        nbytes = int(nbytes)
        with self._lock:
            d = self._host_range(dst, nbytes, "memcpy_dtod destination")
            s = self._host_range(src, nbytes, "memcpy_dtod source")
            ctypes.memmove(d, s, nbytes)

    def memset_d8(self, ptr, value, nbytes, stream=None):
        self._check_stream(stream)
        nbytes = int(nbytes)
        with self._lock:
            ctypes.memset(self._host_range(ptr, nbytes, "memset_d8"), int(value) & 0xFF, nbytes)

    # -- streams and events --------------------------------------------------
    def stream_create(self):
        self._streams += 1
        return _EmuStream(self, self._streams)

    def stream_synchronize(self, stream):
        self._check_stream(stream)

    def stream_query(self, stream):
        self._check_stream(stream)
        return True

    def stream_wait_event(self, stream, event):
        self._check_stream(stream)
        self._check_event(event)

    def _check_event(self, event):
        if not (isinstance(event, _EmuEvent) and event.driver is self):
            raise TypeError(f"emulated driver: {event!r} is not an event of this driver")

    def event_create(self, enable_timing=False):
        return _EmuEvent(self, enable_timing)

    def event_record(self, event, stream=None):
        self._check_event(event)
        self._check_stream(stream)
        event.time = time.perf_counter()

    def event_synchronize(self, event):
        self._check_event(event)

    def event_query(self, event):
        self._check_event(event)
        return True

    def event_elapsed_time(self, start, end):
        for e in (start, end):
            self._check_event(e)
            if not e.timing:
                raise DriverError("emulated driver: event_elapsed_time needs events created with "
                                  "enable_timing=True")
            if e.time is None:
                raise DriverError("emulated driver: event_elapsed_time of an event that was never recorded")
        return (end.time - start.time) * 1000.0

    # -- kernels -------------------------------------------------------------
    def load_module(self, source_path):
        path = pathlib.Path(source_path).resolve()
        with self._lock:
            if path in self._modules and self._modules[path][0] == path.stat().st_mtime_ns:
                return self._modules[path][1]
            module = self._compile_and_load(path)
            self._modules[path] = (path.stat().st_mtime_ns, module)
            return module

    def _compile_and_load(self, path):
        cxx = self._cxx or signature.find_cxx()
        if cxx is None:
            raise DriverError("emulated driver: no C++ compiler found to build the kernels "
                              "(install g++ or set CXX)")
        source = path.read_text()
        kernels = signature.parse_kernels(signature.preprocess(
            path, cxx, defines=("CYGRAD_CUDA_EMU=1", "CG_EMU_SIGNATURES"), include_dirs=(_EMU_DIR, path.parent)))
        if not kernels:
            raise DriverError(f"emulated driver: {path} has no extern \"C\" __global__ kernel")
        key = hashlib.sha256()
        for part in (source.encode(), *((_EMU_DIR / h).read_bytes() for h in _HEADERS),
                     *(h.read_bytes() for h in signature.local_includes(path)),
                     _compiler_version(cxx).encode(), " ".join(_CXX_FLAGS).encode(),
                     " ".join(sorted(kernels)).encode()):
            key.update(hashlib.sha256(part).digest())
        out_dir = cache_dir()
        out_dir.mkdir(parents=True, exist_ok=True)
        library = out_dir / f"{path.stem}-{key.hexdigest()[:24]}.so"
        if not library.exists():
            self._compile(cxx, path, source, kernels, library)
        lib = ctypes.CDLL(str(library))
        loaded = {}
        for name, params in kernels.items():
            entry = getattr(lib, f"cg_emu_launch_{name}")
            entry.argtypes = [ctypes.POINTER(_Config), ctypes.POINTER(ctypes.c_void_p)]
            entry.restype = ctypes.c_int
            sizes = self._check_sizes(path, name, params, getattr(lib, f"cg_emu_params_{name}"))
            loaded[name] = EmuKernel(name, params, entry, None, sizes)
        module = EmuModule(path, library, loaded)
        module._lib = lib
        for k in loaded.values():
            k.module = module
        return module

    @staticmethod
    def _compile(cxx, path, source, kernels, library):
        wrapper = ['#include "cuda_emu.h"', f'#line 1 "{path}"', _rewrite_extern_shared(source),
                   '#include "cuda_emu_launch.h"']
        wrapper += [f"CG_EMU_TRAMPOLINE({name})" for name in sorted(kernels)]
        with tempfile.TemporaryDirectory(dir=library.parent) as tmp:
            cpp = pathlib.Path(tmp, path.stem + ".emu.cpp")
            cpp.write_text("\n".join(wrapper) + "\n")
            out = pathlib.Path(tmp, library.name)
            cmd = [cxx, *_CXX_FLAGS, f"-I{_EMU_DIR}", f"-I{path.parent}", str(cpp), "-o", str(out)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode != 0:
                raise DriverError(f"emulated driver: compiling {path} for the host failed "
                                  f"({' '.join(cmd)}):\n{proc.stderr.strip()[-4000:]}")
            os.replace(out, library)

    @staticmethod
    def _check_sizes(path, name, params, sizes_fn):
        sizes_fn.argtypes = [ctypes.POINTER(ctypes.c_longlong), ctypes.c_int]
        sizes_fn.restype = ctypes.c_int
        buf = (ctypes.c_longlong * 64)()
        n = sizes_fn(buf, 64)
        if n != len(params):
            raise DriverError(f"emulated driver: {path}: kernel {name} has {n} parameters, but "
                              f"{len(params)} were read from its source")
        for p, size in zip(params, buf[:n]):
            expect = 8 if p.kind == "pointer" else _SIZES.get(p.dtype)
            if expect is not None and expect != size:
                raise DriverError(f"emulated driver: {path}: kernel {name}: parameter {p.name} "
                                  f"({p.type}) is {size} bytes, not the {expect} its type suggests")
        return list(buf[:n])

    def _device_pointer(self, value):
        if isinstance(value, bool):
            return None
        try:
            ptr = value.__index__()
        except (AttributeError, TypeError):
            return None
        if ptr == 0:
            return 0
        alloc = self._find(ptr)
        return None if alloc is None else alloc.host + (ptr - alloc.handle)

    def launch(self, kernel, grid, block, args, shared_mem=0, stream=None):
        if not isinstance(kernel, EmuKernel):
            raise TypeError(f"emulated driver: {kernel!r} is not a kernel of an emulated module")
        self._check_stream(stream)
        grid, block = _dims(kernel.name, "grid", grid), _dims(kernel.name, "block", block)
        threads = block[0] * block[1] * block[2]
        if threads > 1024 or block[2] > 64:
            raise DriverError(f"emulated driver: kernel {kernel.name}: block {block} has {threads} threads "
                              "(at most 1024, and at most 64 in z)")
        if grid[0] > 2**31 - 1 or grid[1] > 65535 or grid[2] > 65535:
            raise DriverError(f"emulated driver: kernel {kernel.name}: grid {grid} is too large")
        if not 0 <= int(shared_mem) <= _MAX_SHARED:
            raise DriverError(f"emulated driver: kernel {kernel.name}: {shared_mem} bytes of dynamic "
                              f"shared memory (at most {_MAX_SHARED})")
        with self._lock:
            values = signature.check_args(kernel.name, kernel.params, args, self._device_pointer)
            cells = []
            for p, v, size in zip(kernel.params, values, kernel._sizes):
                if p.kind == "struct" and len(v) != size:
                    raise TypeError(f"kernel {kernel.name}: parameter '{p.name}' ({p.type}) is {size} "
                                    f"bytes, got {len(v)}")
                if p.kind == "pointer":
                    cells.append(ctypes.c_void_p(v))
                elif p.kind == "struct":
                    cells.append(ctypes.create_string_buffer(v, len(v)))
                else:
                    cells.append(_CTYPES[p.dtype](v))
            argv = (ctypes.c_void_p * max(1, len(cells)))(*[ctypes.addressof(c) for c in cells])
            cfg = _Config((ctypes.c_uint * 3)(*grid), (ctypes.c_uint * 3)(*block), int(shared_mem),
                          int(self.strict), 0, 0, b"")
            with _LAUNCH_LOCK:
                rc = kernel._entry(ctypes.byref(cfg), argv)
            if rc == 1:
                raise DriverError(f"kernel {kernel.name}: {cfg.error.decode(errors='replace')}")
            if rc == 2:
                raise DriverError(f"kernel {kernel.name}: {self._describe_fault(cfg)}")

    def _describe_fault(self, cfg):
        addr, sig = cfg.fault_addr, cfg.fault_signal
        if sig == signal.SIGFPE:
            return "arithmetic fault (SIGFPE: integer division by zero?)"
        for alloc in self._allocs.values():
            for lo, hi in alloc.guards:
                if lo <= addr < hi:
                    end = alloc.host + alloc.size
                    side = (f"{addr - end} bytes past the end" if addr >= end
                            else f"{alloc.host - addr} bytes before the start")
                    return (f"out-of-bounds device access: {side} of the allocation of {alloc.size} "
                            f"bytes at {_hex(alloc.handle)}")
        return (f"illegal memory access at host address {addr:#x} ({signal.Signals(sig).name}); "
                "set CYGRAD_CUDA_EMU_STRICT=1 to find out-of-bounds accesses")


def _dims(kernel, what, value):
    try:
        dims = tuple(int(v) for v in value)
    except TypeError:
        raise TypeError(f"kernel {kernel}: {what} must be a tuple of 1 to 3 ints, got {value!r}") from None
    if not 1 <= len(dims) <= 3 or min(dims) < 1:
        raise DriverError(f"emulated driver: kernel {kernel}: {what} {value!r} must have 1 to 3 "
                          "positive sizes")
    return dims + (1,) * (3 - len(dims))


def _hex(ptr):
    return f"{ptr:#x}" if isinstance(ptr, int) else repr(ptr)
