"""The CUDA driver for real GPUs, through PyCUDA.

Modules are compiled by ``nvcc`` to a cubin for the device's architecture
(``-arch=sm_XY``); when this nvcc cannot target it, to PTX for the newest
virtual architecture nvcc knows that is not newer than the device, which the
driver compiles at load. Results are cached on disk under
``$CYGRAD_CACHE_DIR/cuda_nvcc/`` (default ``~/.cache/cygrad/cuda_nvcc/``), keyed by
the source, the architecture and nvcc's version, and loaded with
``pycuda.driver.module_from_buffer``.

The driver works in each device's primary context
(``Device(i).retain_primary_context()``, the context the CUDA runtime and other
libraries share), never ``pycuda.autoinit``'s private one. Kernel arguments are
checked against the kernel's parsed signature (:mod:`.signature`) and packed
into one parameter buffer at the offsets the C ABI gives them
(:func:`param_buffer_format`), which ``Function._launch_kernel`` hands to
``cuLaunchKernel``; a PyCUDA without that method gets NumPy scalars of exactly
the parameter's types through ``Function.__call__``.

Examples
--------
>>> from cygrad.cuda._driver.pycuda_driver import PyCudaDriver
>>> PyCudaDriver.name
'pycuda'
"""
import atexit
import bisect
import hashlib
import os
import pathlib
import re
import shutil
import struct
import subprocess
import tempfile
import threading

from ..._core.launch_fast import PlanBase
from .base import Driver, DriverError, Kernel, Module
from . import signature

__all__ = ["PyCudaDriver", "find_nvcc", "cache_dir"]

_EMU_DIR = pathlib.Path(__file__).parent / "emu"
_NVCC_FLAGS = ("-std=c++17",)
# struct codes of the scalar parameter types (little-endian, sizes fixed)
_CODES = {"int8": "b", "uint8": "B", "int16": "h", "uint16": "H", "int32": "i", "uint32": "I",
          "int64": "q", "uint64": "Q", "float32": "f", "float64": "d", "bool": "?"}
#: alignment assumed for a by-value struct parameter: the kernels' structs hold 64-bit fields
STRUCT_ALIGN = 8
# allocations a launch plan checks pointers against before searching (a small CNN's
# training step uses 7)
_HOT_RANGES = 8


def param_buffer_format(params, struct_sizes):
    """The ``struct`` format of a kernel's parameter buffer, as ``cuLaunchKernel`` reads it
    (``CU_LAUNCH_PARAM_BUFFER_POINTER``): each parameter at the offset the C ABI gives it,
    with explicit padding. ``struct_sizes`` gives the byte size of each by-value struct
    parameter, in order.

    Examples
    --------
    >>> from cygrad.cuda._driver.signature import Param
    >>> from cygrad.cuda._driver.pycuda_driver import param_buffer_format
    >>> param_buffer_format((Param("n", "int", "int", "int32"), Param("x", "float*", "pointer", None)), ())
    '<i4xQ'
    """
    fmt, offset, sizes = ["<"], 0, iter(struct_sizes)
    for p in params:
        if p.kind == "pointer":
            code, size, align = "Q", 8, 8
        elif p.kind == "struct":
            size = next(sizes)
            code, align = f"{size}s", STRUCT_ALIGN
        else:
            code = _CODES[p.dtype]
            size = align = struct.calcsize("<" + code)
        pad = -offset % align
        if pad:
            fmt.append(f"{pad}x")
        fmt.append(code)
        offset += pad + size
    return "".join(fmt)


def find_nvcc():
    """``nvcc``: from the PATH, ``$CUDA_HOME/bin`` or ``/usr/local/cuda/bin``; None if absent.

    Examples
    --------
    >>> from cygrad.cuda._driver.pycuda_driver import find_nvcc
    >>> find_nvcc() is None or find_nvcc().endswith("nvcc")
    True
    """
    found = shutil.which("nvcc")
    if found:
        return found
    for root in (os.environ.get("CUDA_HOME"), os.environ.get("CUDA_PATH"), "/usr/local/cuda"):
        if root and os.path.isfile(os.path.join(root, "bin", "nvcc")):
            return os.path.join(root, "bin", "nvcc")
    return None


def cache_dir():
    """Where compiled cubins/PTX are kept: ``$CYGRAD_CACHE_DIR/cuda_nvcc`` or
    ``~/.cache/cygrad/cuda_nvcc``.

    Examples
    --------
    >>> from cygrad.cuda._driver.pycuda_driver import cache_dir
    >>> cache_dir().name
    'cuda_nvcc'
    """
    root = os.environ.get("CYGRAD_CACHE_DIR")
    base = pathlib.Path(root) if root else pathlib.Path.home() / ".cache" / "cygrad"
    return base / "cuda_nvcc"


class PyCudaKernel(Kernel):
    """A kernel of a module loaded through PyCUDA.

    Examples
    --------
    >>> from cygrad.cuda._driver.pycuda_driver import PyCudaKernel
    >>> PyCudaKernel.__mro__[1].__name__
    'Kernel'
    """

    def __init__(self, name, params, function):
        self.name = name
        self.params = params
        self.param_types = tuple(p.type for p in params)
        self.function = function
        # PyCUDA's Function._launch_kernel(grid, block, buffer, shared, stream) is
        # cuLaunchKernel itself; Function.__call__ rebuilds the buffer in Python from
        # NumPy scalars and first calls the deprecated cuFuncSetBlockShape, tens of
        # microseconds a launch. Absent (a PyCUDA without it): the __call__ path.
        self.launch_kernel = getattr(function, "_launch_kernel", None)
        self._structs = [i for i, p in enumerate(params) if p.kind == "struct"]
        self._packers = {}      # struct parameter sizes -> struct.Struct of the buffer

    def pack(self, values):
        """The parameter buffer of checked ``values`` (see :func:`param_buffer_format`)."""
        sizes = tuple(len(values[i]) for i in self._structs)
        packer = self._packers.get(sizes)
        if packer is None:
            packer = self._packers[sizes] = struct.Struct(param_buffer_format(self.params, sizes))
        return packer.pack(*values)

    def __repr__(self):
        return f"<pycuda kernel {self.name}({', '.join(self.param_types)})>"


class PyCudaModule(Module):
    """A compiled ``.cu`` file loaded with ``module_from_buffer``.

    Examples
    --------
    >>> from cygrad.cuda._driver.pycuda_driver import PyCudaModule
    >>> 'get_function' in dir(PyCudaModule)
    True
    """

    def __init__(self, path, module, kernels, image_path):
        self.path = str(path)
        self.module = module
        self.image_path = str(image_path)
        self._params = kernels
        self._kernels = {}

    def get_function(self, name):
        if name not in self._kernels:
            if name not in self._params:
                raise KeyError(f"{self.path} has no extern \"C\" __global__ kernel named {name!r}")
            self._kernels[name] = PyCudaKernel(name, self._params[name], self.module.get_function(name))
        return self._kernels[name]


class PyCudaDriver(Driver):
    """CUDA through PyCUDA (see the module docstring).

    Parameters
    ----------
    cuda : module, optional
        The ``pycuda.driver`` module (tests pass a stand-in); imported when omitted.

    Examples
    --------
    >>> from cygrad.cuda._driver.pycuda_driver import PyCudaDriver
    >>> callable(PyCudaDriver.launch)
    True
    """
    name = "pycuda"

    def __init__(self, cuda=None):
        if cuda is None:
            import pycuda.driver as cuda
        self._cuda = cuda
        cuda.init()
        self._lock = threading.RLock()
        self._contexts = {}         # device index -> retained primary context
        self._local = threading.local()
        self._allocations = {}      # pointer -> (DeviceAllocation, size); keeps it alive
        self._bases = []            # sorted pointers, for interior pointers
        self._external = {}         # pointer -> size: device memory imported through DLPack
        self._external_bases = []
        self._modules = {}
        self._arch = {}
        # (first, last, first, last, ...) pointers of the allocations launch arguments
        # were last found in, the latest first, at most _HOT_RANGES of them: launch
        # plans check a pointer against them before searching (see _LaunchPlan); a
        # step's tensors live in a few segments of the caching allocator
        self._hot = ()
        # PyCUDA complains at exit about contexts left on the stack: pop ours
        atexit.register(self._release)

    def _release(self):
        """Pop the primary context this thread pushed (run at exit)."""
        if getattr(self._local, "index", None) is not None:
            self._local.index = None
            try:
                self._cuda.Context.pop()
            except Exception:   # at interpreter exit the driver may already be gone
                pass

    # -- devices -------------------------------------------------------------
    def device_count(self):
        return int(self._cuda.Device.count())

    def _device(self, index):
        count = self.device_count()
        if not 0 <= int(index) < count:
            raise DriverError(f"pycuda driver: invalid device ordinal {index} ({count} device(s))")
        return self._cuda.Device(int(index))

    def get_device_properties(self, index):
        dev = self._device(index)
        attr = self._cuda.device_attribute
        major, minor = dev.compute_capability()
        return {"name": dev.name(), "total_memory": int(dev.total_memory()), "major": int(major),
                "minor": int(minor),
                "multi_processor_count": int(dev.get_attribute(attr.MULTIPROCESSOR_COUNT)),
                "warp_size": int(dev.get_attribute(attr.WARP_SIZE)),
                "max_threads_per_block": int(dev.get_attribute(attr.MAX_THREADS_PER_BLOCK)),
                "max_shared_memory_per_block": int(dev.get_attribute(attr.MAX_SHARED_MEMORY_PER_BLOCK))}

    def activate(self, index):
        index = int(index)
        with self._lock:
            if index not in self._contexts:
                self._contexts[index] = self._device(index).retain_primary_context()
            ctx = self._contexts[index]
        current = getattr(self._local, "index", None)
        if current == index:
            return
        if current is not None:
            self._cuda.Context.pop()
        ctx.push()
        self._local.index = index

    def _ensure(self):
        if getattr(self._local, "index", None) is None:
            self.activate(0)

    def current_device(self):
        """The index activated on this thread (device 0 once anything ran)."""
        self._ensure()
        return self._local.index

    def synchronize(self):
        self._ensure()
        self._call("synchronize", self._cuda.Context.synchronize)

    def _call(self, what, fn, *args):
        try:
            return fn(*args)
        except self._cuda.Error as e:
            raise DriverError(f"pycuda driver: {what} failed: {e}") from e

    # -- memory --------------------------------------------------------------
    def mem_alloc(self, nbytes):
        self._ensure()
        try:
            alloc = self._cuda.mem_alloc(int(nbytes))
        except self._cuda.MemoryError as e:
            raise MemoryError(f"pycuda driver: out of memory allocating {nbytes} bytes: {e}") from e
        except self._cuda.Error as e:
            raise DriverError(f"pycuda driver: mem_alloc({nbytes}) failed: {e}") from e
        ptr = int(alloc)
        with self._lock:
            self._allocations[ptr] = (alloc, int(nbytes))
            bisect.insort(self._bases, ptr)
        return ptr

    def mem_free(self, ptr):
        with self._lock:
            entry = self._allocations.pop(ptr, None) if isinstance(ptr, int) else None
            if entry is None:
                raise DriverError(f"pycuda driver: mem_free of {ptr!r}, which is not a pointer returned "
                                  "by mem_alloc (or was already freed)")
            self._bases.pop(bisect.bisect_left(self._bases, ptr))
            self._hot = ()
        self._call("mem_free", entry[0].free)

    def register_external(self, ptr, nbytes):
        # memory another library allocated in this process's context (DLPack import):
        # launches accept pointers into it until unregister_external
        with self._lock:
            size, count = self._external.get(ptr, (0, 0))
            if not count:
                bisect.insort(self._external_bases, ptr)
            self._external[ptr] = (max(int(nbytes), size), count + 1)

    def unregister_external(self, ptr):
        with self._lock:
            size, count = self._external.get(ptr, (0, 0))
            if count > 1:
                self._external[ptr] = (size, count - 1)
            elif count == 1:
                del self._external[ptr]
                self._external_bases.pop(bisect.bisect_left(self._external_bases, ptr))
                self._hot = ()

    def mem_get_info(self):
        self._ensure()
        free, total = self._call("mem_get_info", self._cuda.mem_get_info)
        return int(free), int(total)

    def memcpy_htod(self, dst, src, stream=None):
        self._ensure()
        if stream is None:
            self._call("memcpy_htod", self._cuda.memcpy_htod, int(dst), src)
        else:
            self._call("memcpy_htod_async", self._cuda.memcpy_htod_async, int(dst), src, stream)

    def memcpy_dtoh(self, dst, src, stream=None):
        self._ensure()
        if stream is None:
            self._call("memcpy_dtoh", self._cuda.memcpy_dtoh, dst, int(src))
        else:
            self._call("memcpy_dtoh_async", self._cuda.memcpy_dtoh_async, dst, int(src), stream)

    def memcpy_dtod(self, dst, src, nbytes, stream=None):
        self._ensure()
        if stream is None:
            self._call("memcpy_dtod", self._cuda.memcpy_dtod, int(dst), int(src), int(nbytes))
        else:
            self._call("memcpy_dtod_async", self._cuda.memcpy_dtod_async, int(dst), int(src),
                       int(nbytes), stream)

    def memset_d8(self, ptr, value, nbytes, stream=None):
        self._ensure()
        if stream is None:
            self._call("memset_d8", self._cuda.memset_d8, int(ptr), int(value) & 0xFF, int(nbytes))
        else:
            self._call("memset_d8_async", self._cuda.memset_d8_async, int(ptr), int(value) & 0xFF,
                       int(nbytes), stream)

    # -- streams and events --------------------------------------------------
    def stream_create(self):
        self._ensure()
        return self._call("stream_create", self._cuda.Stream)

    def stream_synchronize(self, stream):
        self._ensure()
        if stream is None:      # the legacy default stream: everything before it
            self._call("synchronize", self._cuda.Context.synchronize)
        else:
            self._call("stream_synchronize", stream.synchronize)

    def stream_query(self, stream):
        self._ensure()
        if stream is None:      # PyCUDA has no handle for the default stream: ask an event
            event = self._call("event_create", self._cuda.Event, self._cuda.event_flags.DISABLE_TIMING)
            self._call("event_record", event.record)
            return bool(self._call("event_query", event.query))
        return bool(self._call("stream_query", stream.is_done))

    def stream_wait_event(self, stream, event):
        self._ensure()
        if stream is None:
            # PyCUDA cannot make the default stream wait on the device; the host
            # waits instead, which orders the same work, only more strictly.
            self._call("event_synchronize", event.synchronize)
        else:
            self._call("stream_wait_event", stream.wait_for_event, event)

    def event_create(self, enable_timing=False):
        self._ensure()
        flags = 0 if enable_timing else self._cuda.event_flags.DISABLE_TIMING
        return self._call("event_create", self._cuda.Event, flags)

    def event_record(self, event, stream=None):
        self._ensure()
        self._call("event_record", event.record, stream)

    def event_synchronize(self, event):
        self._call("event_synchronize", event.synchronize)

    def event_query(self, event):
        return bool(self._call("event_query", event.query))

    def event_elapsed_time(self, start, end):
        return float(self._call("event_elapsed_time", start.time_till, end))

    # -- kernels -------------------------------------------------------------
    def _target(self):
        """The current device's architecture as nvcc spells it (``"80"`` for sm_80)."""
        index = self.current_device()
        if index not in self._arch:
            major, minor = self._cuda.Device(index).compute_capability()
            self._arch[index] = f"{major}{minor}"
        return self._arch[index]

    def load_module(self, source_path):
        self._ensure()
        path = pathlib.Path(source_path).resolve()
        arch = self._target()
        with self._lock:
            key = (path, arch)
            stamp = path.stat().st_mtime_ns
            if key in self._modules and self._modules[key][0] == stamp:
                return self._modules[key][1]
            module = self._compile_and_load(path, arch)
            self._modules[key] = (stamp, module)
            return module

    def _compile_and_load(self, path, arch):
        nvcc = find_nvcc()
        if nvcc is None:
            raise DriverError(f"pycuda driver: cannot build {path}: nvcc not found "
                              "(put the CUDA toolkit's bin on PATH or set CUDA_HOME)")
        kernels = signature.parse_kernels(signature.preprocess(
            path, defines=("CG_EMU_SIGNATURES",), include_dirs=(_EMU_DIR, path.parent)))
        if not kernels:
            raise DriverError(f"pycuda driver: {path} has no extern \"C\" __global__ kernel")
        source = path.read_bytes()
        version = subprocess.run([nvcc, "--version"], capture_output=True, text=True).stdout
        key = hashlib.sha256()
        for part in (source, *(h.read_bytes() for h in signature.local_includes(path)),
                     arch.encode(), version.encode(), " ".join(_NVCC_FLAGS).encode()):
            key.update(hashlib.sha256(part).digest())
        out_dir = cache_dir()
        out_dir.mkdir(parents=True, exist_ok=True)
        stem = f"{path.stem}-sm_{arch}-{key.hexdigest()[:24]}"
        cached = [p for p in (out_dir / f"{stem}.cubin", out_dir / f"{stem}.ptx") if p.exists()]
        image = cached[0] if cached else self._compile(nvcc, path, arch, out_dir, stem)
        module = self._call(f"loading {image}", self._cuda.module_from_buffer, image.read_bytes())
        return PyCudaModule(path, module, kernels, image)

    @staticmethod
    def _compile(nvcc, path, arch, out_dir, stem):
        with tempfile.TemporaryDirectory(dir=out_dir) as tmp:
            cubin = pathlib.Path(tmp, stem + ".cubin")
            cmd = [nvcc, "-cubin", f"-arch=sm_{arch}", *_NVCC_FLAGS, f"-I{path.parent}", "-o",
                   str(cubin), str(path)]
            proc = subprocess.run(cmd, capture_output=True, text=True)
            if proc.returncode == 0:
                os.replace(cubin, out_dir / cubin.name)
                return out_dir / cubin.name
            # This nvcc may predate the device: PTX for the newest older architecture
            # it knows, which the driver JIT-compiles for the device.
            listed = subprocess.run([nvcc, "--list-gpu-arch"], capture_output=True, text=True).stdout
            known = sorted(int(a) for a in re.findall(r"compute_(\d+)", listed) if int(a) <= int(arch))
            if not known:
                raise DriverError(f"pycuda driver: nvcc cannot compile {path} for sm_{arch} "
                                  f"({' '.join(cmd)}):\n{proc.stderr.strip()[-4000:]}")
            ptx = pathlib.Path(tmp, stem + ".ptx")
            cmd2 = [nvcc, "-ptx", f"-arch=compute_{known[-1]}", *_NVCC_FLAGS, f"-I{path.parent}", "-o",
                    str(ptx), str(path)]
            proc2 = subprocess.run(cmd2, capture_output=True, text=True)
            if proc2.returncode != 0:
                raise DriverError(f"pycuda driver: compiling {path} failed ({' '.join(cmd2)}):\n"
                                  f"{proc2.stderr.strip()[-4000:]}")
            os.replace(ptx, out_dir / ptx.name)
            return out_dir / ptx.name

    def _device_pointer(self, value):
        if isinstance(value, bool):
            return None
        try:
            ptr = int(value.__index__())
        except (AttributeError, TypeError):
            try:
                ptr = int(value)            # a pycuda DeviceAllocation
            except (TypeError, ValueError):
                return None
        if ptr == 0:
            return 0
        with self._lock:
            i = bisect.bisect_right(self._bases, ptr) - 1
            if i >= 0 and ptr <= self._bases[i] + self._allocations[self._bases[i]][1]:
                self._remember(self._bases[i], self._bases[i] + self._allocations[self._bases[i]][1])
                return ptr
            i = bisect.bisect_right(self._external_bases, ptr) - 1
            if i >= 0 and ptr <= self._external_bases[i] + self._external[self._external_bases[i]][0]:
                return ptr
        return None

    def _in_allocation(self, ptr):
        """Is the int ``ptr`` a pointer :meth:`_device_pointer` accepts? Allocations
        are searched without the lock (a launch plan asks on every launch); a list
        changed meanwhile by another thread, NULL and imported memory take the
        locked search."""
        bases = self._bases
        i = bisect.bisect_right(bases, ptr) - 1
        if i >= 0:
            try:
                base = bases[i]
                end = base + self._allocations[base][1]
            except (IndexError, KeyError):
                return self._device_pointer(ptr) is not None
            if ptr <= end:
                self._remember(base, end)
                return True
        return self._device_pointer(ptr) is not None

    def _remember(self, base, end):
        """Put allocation [base, end] first in ``_hot`` (a new tuple: launches on other
        threads read the old one unlocked)."""
        hot = self._hot
        for j in range(0, len(hot), 2):
            if hot[j] == base:
                hot = hot[:j] + hot[j + 2:]
                break
        self._hot = ((base, end) + hot)[:2 * _HOT_RANGES]

    def launcher(self, kernel, grid, block, shared_mem=0):
        if not isinstance(kernel, PyCudaKernel) or kernel.launch_kernel is None:
            return super().launcher(kernel, grid, block, shared_mem)
        return _LaunchPlan(self, kernel, grid, block, shared_mem)

    def launch(self, kernel, grid, block, args, shared_mem=0, stream=None):
        import numpy as np
        if not isinstance(kernel, PyCudaKernel):
            raise TypeError(f"pycuda driver: {kernel!r} is not a kernel of a PyCUDA module")
        grid = tuple(int(g) for g in grid) + (1,) * (3 - len(tuple(grid)))
        block = tuple(int(b) for b in block) + (1,) * (3 - len(tuple(block)))
        values = signature.check_args(kernel.name, kernel.params, args, self._device_pointer)
        if kernel.launch_kernel is not None:
            buf = kernel.pack(values)
            self._ensure()
            self._call(f"launching {kernel.name}", kernel.launch_kernel, grid, block, buf,
                       int(shared_mem), stream)
            return
        packed = []
        for p, v in zip(kernel.params, values):
            if p.kind == "pointer":
                packed.append(np.uintp(v))
            elif p.kind == "struct":
                packed.append(np.void(v))
            else:
                packed.append(np.dtype(p.dtype).type(v))
        self._ensure()
        self._call(f"launching {kernel.name}", lambda: kernel.function(
            *packed, block=block, grid=grid, shared=int(shared_mem), stream=stream))


class _LaunchPlan(PlanBase):
    """A launch plan of the PyCUDA driver (:meth:`PyCudaDriver.launcher`): one kernel,
    grid, block and shared memory size.

    Its first launch goes through :meth:`PyCudaDriver.launch`, which checks every
    argument against the kernel's signature; that fixes the plan's argument types
    (their Python types and struct parameters' byte sizes) and its parameter buffer
    layout. A later launch whose arguments have the same types is packed straight
    into the buffer (compiled: ``cygrad/_core/launch_fast.pyx``): integer ranges are
    checked by the packing, each pointer against the allocation the last pointer was
    found in (else by the driver's search), so only a call with other types, a
    pointer outside device memory or an out-of-range value takes the full check
    again (:meth:`_full`), which raises its TypeError.
    """
    __slots__ = ()

    def __init__(self, driver, kernel, grid, block, shared_mem):
        super().__init__()
        self.driver, self.kernel = driver, kernel
        self.grid = tuple(int(g) for g in grid) + (1,) * (3 - len(tuple(grid)))
        self.block = tuple(int(b) for b in block) + (1,) * (3 - len(tuple(block)))
        self.shared = int(shared_mem)
        self.pointers = tuple(i for i, p in enumerate(kernel.params) if p.kind == "pointer")

    def _canonical(self, args):
        """Do ``args`` have the one Python type per parameter kind that packing
        checks as fully as :func:`signature.check_args` does?"""
        want = {"pointer": (int,), "int": (int,), "float": (float, int), "bool": (bool,),
                "struct": (bytes,)}
        return all(type(a) in want[p.kind] for p, a in zip(self.kernel.params, args))

    def _failed(self, error):
        return DriverError(f"pycuda driver: launching {self.kernel.name} failed: {error}")

    def _full(self, args, stream):
        types = tuple(map(type, args))
        # the first launch, or arguments the fast path cannot vouch for: the full check
        self.driver.launch(self.kernel, self.grid, self.block, args, self.shared, stream)
        if self.types is None and self._canonical(args):
            structs = tuple((i, len(args[i])) for i, p in enumerate(self.kernel.params)
                            if p.kind == "struct")
            self.packer = struct.Struct(param_buffer_format(self.kernel.params,
                                                            [n for _, n in structs]))
            self.structs = structs
            self.types = types
