"""The PyCUDA driver (cygrad/cuda/_driver/pycuda_driver.py) against a recording
fake ``pycuda`` (fake_pycuda.py) and a fake ``nvcc`` (fake_nvcc.py); one test uses
the real nvcc when it is installed. Also get_driver()'s choice and messages."""
import ctypes
import os
import pathlib
import shutil
import sys

import numpy as np
import pytest

from cygrad.cuda import _driver
from cygrad.cuda._driver import DriverError, signature

from . import fake_pycuda

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parents[1]
ELEMENTWISE = ROOT / "cuda_src" / "elementwise.cu"
TEST_KERNELS = HERE / "emu_kernels.cu"

needs_cxx = pytest.mark.skipif(signature.find_cxx() is None,
                               reason="reading kernel signatures runs the host C preprocessor")


@pytest.fixture
def env(monkeypatch, tmp_path):
    """A fake nvcc first on PATH, a private cache dir; returns the nvcc log path."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    nvcc = bin_dir / "nvcc"
    nvcc.write_text(f'#!/bin/sh\nexec "{sys.executable}" "{HERE / "fake_nvcc.py"}" "$@"\n')
    nvcc.chmod(0o755)
    log = tmp_path / "nvcc.log"
    log.write_text("")
    monkeypatch.setenv("PATH", f"{bin_dir}{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("FAKE_NVCC_LOG", str(log))
    monkeypatch.setenv("CYGRAD_CACHE_DIR", str(tmp_path / "cache"))
    monkeypatch.delenv("CUDA_HOME", raising=False)
    return log


def make(monkeypatch, **kw):
    from cygrad.cuda._driver.pycuda_driver import PyCudaDriver
    cuda = fake_pycuda.install(monkeypatch, **kw)
    return cuda, PyCudaDriver()


def names(cuda):
    return [c[0] for c in cuda.calls]


def test_uses_the_primary_context_never_autoinit(monkeypatch):
    cuda, d = make(monkeypatch, count=2)
    assert names(cuda) == ["init"]                       # nothing touches a device before use
    d.mem_alloc(100)
    assert names(cuda)[1:4] == ["Device.retain_primary_context", "Context.push", "mem_alloc"]
    assert cuda.calls[1][1] == (0,)
    d.activate(1)
    assert names(cuda)[-3:] == ["Device.retain_primary_context", "Context.pop", "Context.push"]
    d.activate(1)                                        # already current: no call
    d.activate(0)                                        # retained once, pushed again
    assert names(cuda).count("Device.retain_primary_context") == 2
    assert "Device.make_context" not in names(cuda) and "pycuda.autoinit" not in sys.modules
    with pytest.raises(DriverError, match="invalid device ordinal 2"):
        d.activate(2)
    d._release()                                         # what runs at exit
    assert names(cuda)[-1] == "Context.pop"
    props = d.get_device_properties(0)
    assert props == {"name": "Fake GPU", "total_memory": 1 << 30, "major": 8, "minor": 0,
                     "multi_processor_count": 108, "warp_size": 32, "max_threads_per_block": 1024,
                     "max_shared_memory_per_block": 49152}


def test_memory_calls_and_errors(monkeypatch):
    cuda, d = make(monkeypatch, memory=4096)
    p = d.mem_alloc(1024)
    host = np.zeros(4)
    s = d.stream_create()
    d.memcpy_htod(p, host)
    d.memcpy_htod(p + 8, host[:2], stream=s)
    d.memcpy_dtoh(host, p)
    d.memcpy_dtoh(host, p, stream=s)
    d.memcpy_dtod(p + 64, p, 32)
    d.memcpy_dtod(p + 64, p, 32, stream=s)
    d.memset_d8(p, 0x1FF, 16)
    d.memset_d8(p, 7, 16, stream=s)
    def arr(a):         # an array by where its data is and its shape
        return ("array", a.__array_interface__["data"][0], a.shape)

    got = [(c[0], tuple(arr(a) if isinstance(a, np.ndarray) else a for a in c[1]))
           for c in cuda.calls if c[0].startswith("mem") and c[0] != "mem_alloc"]
    assert got == [("memcpy_htod", (p, arr(host))), ("memcpy_htod_async", (p + 8, arr(host[:2]), s)),
                   ("memcpy_dtoh", (arr(host), p)), ("memcpy_dtoh_async", (arr(host), p, s)),
                   ("memcpy_dtod", (p + 64, p, 32)), ("memcpy_dtod_async", (p + 64, p, 32, s)),
                   ("memset_d8", (p, 0xFF, 16)), ("memset_d8_async", (p, 7, 16, s))]
    assert d.mem_get_info() == (4096 - 1024, 4096)
    with pytest.raises(MemoryError, match="out of memory allocating 8192 bytes"):
        d.mem_alloc(8192)
    with pytest.raises(DriverError, match="not a pointer returned by mem_alloc"):
        d.mem_free(p + 8)
    d.mem_free(p)
    assert cuda.calls[-1] == ("DeviceAllocation.free", (p,), {})
    with pytest.raises(DriverError, match="already freed"):
        d.mem_free(p)


def test_streams_and_events(monkeypatch):
    cuda, d = make(monkeypatch)
    s = d.stream_create()
    timed, untimed = d.event_create(enable_timing=True), d.event_create()
    assert (timed.flags, untimed.flags) == (0, cuda.event_flags.DISABLE_TIMING)
    d.event_record(timed, s)
    d.stream_wait_event(s, timed)
    d.stream_wait_event(None, timed)          # the default stream: the host waits instead
    assert d.stream_query(s) and d.event_query(timed)
    d.stream_synchronize(s)
    d.stream_synchronize(None)
    d.synchronize()
    assert d.event_elapsed_time(timed, untimed) == 2.5
    n = names(cuda)
    assert n[n.index("Event.record"):] == [
        "Event.record", "Stream.wait_for_event", "Event.synchronize", "Stream.is_done", "Event.query",
        "Stream.synchronize", "Context.synchronize", "Context.synchronize", "Event.time_till"]
    assert cuda.calls[-1][1] == (timed, untimed)


@needs_cxx
def test_launch_passes_numpy_scalars_of_the_parsed_types(monkeypatch, env):
    cuda, d = make(monkeypatch)
    m = d.load_module(TEST_KERNELS)
    k = m.get_function("typed_args")
    out = d.mem_alloc(56)
    s = d.stream_create()
    d.launch(k, (2, 1), (32,), [-3, 7, -2**40, 2**63, 1.5, 2.5, True, out + 8], shared_mem=128, stream=s)
    name, args, kwargs = cuda.calls[-1]
    assert name == "Function.__call__" and args[0] == "typed_args"
    assert [type(a) for a in args[1:]] == [np.int32, np.uint32, np.int64, np.uint64, np.float32, np.float64,
                                           np.bool_, np.uintp]
    assert [a.item() for a in args[1:]] == [-3, 7, -2**40, 2**63, 1.5, 2.5, True, out + 8]
    assert kwargs == {"block": (32, 1, 1), "grid": (2, 1, 1), "shared": 128, "stream": s}
    before = len(cuda.calls)
    with pytest.raises(TypeError, match="kernel typed_args: parameter 'u' .*out of range"):
        d.launch(k, (1,), (1,), [0, -1, 0, 0, 0.0, 0.0, False, out])
    with pytest.raises(TypeError, match="parameter 'out' .*device pointer of this driver"):
        d.launch(k, (1,), (1,), [0, 0, 0, 0, 0.0, 0.0, False, 0xDEAD])
    assert len(cuda.calls) == before                     # nothing reached PyCUDA


class TypedArgs(ctypes.Structure):
    """typed_args's parameters as the C ABI lays them out (the reference for the buffer)."""
    _fields_ = [("i", ctypes.c_int), ("u", ctypes.c_uint), ("ll", ctypes.c_longlong),
                ("ull", ctypes.c_ulonglong), ("f", ctypes.c_float), ("d", ctypes.c_double),
                ("flag", ctypes.c_bool), ("out", ctypes.c_void_p)]


@needs_cxx
def test_launch_kernel_gets_the_c_abi_parameter_buffer(monkeypatch, env):
    cuda, d = make(monkeypatch, launch_kernel=True)
    k = d.load_module(TEST_KERNELS).get_function("typed_args")
    out = d.mem_alloc(56)
    s = d.stream_create()
    d.launch(k, (2, 1), (32,), [-3, 7, -2**40, 2**63, 1.5, 2.5, True, out + 8], shared_mem=128, stream=s)
    name, args, _ = cuda.calls[-1]
    assert name == "Function._launch_kernel" and args[0] == "typed_args"
    grid, block, buf, shared, stream = args[1:]
    assert (grid, block, shared, stream) == ((2, 1, 1), (32, 1, 1), 128, s)
    ref = bytes(TypedArgs(-3, 7, -2**40, 2**63, 1.5, 2.5, True, out + 8))
    assert buf == ref[:len(buf)] and len(buf) == TypedArgs.out.offset + 8
    # nothing else reached PyCUDA for the launch (no deprecated cuFuncSetBlockShape)
    assert "Function.__call__" not in names(cuda)


class Geometry(ctypes.Structure):
    _fields_ = [("ndim", ctypes.c_int), ("shape", ctypes.c_longlong * 16),
                ("stride_out", ctypes.c_longlong * 16), ("stride_a", ctypes.c_longlong * 16),
                ("stride_b", ctypes.c_longlong * 16)]


@needs_cxx
def test_struct_argument_goes_as_numpy_void(monkeypatch, env):
    cuda, d = make(monkeypatch)
    m = d.load_module(ELEMENTWISE)
    p = d.mem_alloc(64)
    g = Geometry(1)
    d.launch(m.get_function("cg_add_f32_strided"), (1,), (64,), [16, g, p, p, p])
    args = cuda.calls[-1][1][1:]
    assert type(args[1]) is np.void and bytes(args[1]) == bytes(g) and len(bytes(g)) == 520
    assert type(args[0]) is np.int64


@needs_cxx
def test_struct_argument_in_the_parameter_buffer(monkeypatch, env):
    class Params(ctypes.Structure):
        _fields_ = [("n", ctypes.c_longlong), ("geo", Geometry), ("out", ctypes.c_void_p),
                    ("a", ctypes.c_void_p), ("b", ctypes.c_void_p)]
    cuda, d = make(monkeypatch, launch_kernel=True)
    m = d.load_module(ELEMENTWISE)
    p = d.mem_alloc(64)
    g = Geometry(1)
    g.shape[0] = 16
    d.launch(m.get_function("cg_add_f32_strided"), (1,), (64,), [16, g, p, p + 4, p + 8])
    buf = cuda.calls[-1][1][3]
    assert buf == bytes(Params(16, g, p, p + 4, p + 8))


@needs_cxx
def test_nvcc_cache_arch_and_ptx_fallback(monkeypatch, env):
    cuda, d = make(monkeypatch, capability=(8, 6))
    m = d.load_module(ELEMENTWISE)
    log = env.read_text().splitlines()
    assert sum("-cubin" in line for line in log) == 1
    assert any("-cubin -arch=sm_86" in line for line in log)
    image = cuda.calls[-1][1][0]
    assert image.startswith(b"fake cubin for sm_86")
    assert pathlib.Path(m.image_path).parent == pathlib.Path(os.environ["CYGRAD_CACHE_DIR"]) / "cuda_nvcc"
    # a second driver (a new process, in effect) takes the cubin from the disk cache
    cuda2, d2 = make(monkeypatch, capability=(8, 6))
    d2.load_module(ELEMENTWISE)
    assert sum("-cubin" in line for line in env.read_text().splitlines()) == 1
    assert [c for c in cuda2.calls if c[0] == "module_from_buffer"][0][1][0] == image
    # another architecture is another cache entry; an nvcc too old for it falls back to PTX
    monkeypatch.setenv("FAKE_NVCC_MAX_ARCH", "90")
    cuda3, d3 = make(monkeypatch, capability=(10, 0))
    m3 = d3.load_module(ELEMENTWISE)
    assert m3.image_path.endswith(".ptx")
    assert [c for c in cuda3.calls if c[0] == "module_from_buffer"][0][1][0].startswith(
        b"fake ptx for compute_90")
    k = m3.get_function("cg_add_f32")
    assert k.param_types == ("cg_index", "float*", "const float*", "const float*")
    with pytest.raises(KeyError, match="cg_nope"):
        m3.get_function("cg_nope")


@needs_cxx
@pytest.mark.skipif(shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"),
                    reason="the real nvcc is not installed")
def test_real_nvcc_builds_a_loadable_cubin(monkeypatch, tmp_path):
    if shutil.which("nvcc") is None:
        monkeypatch.setenv("PATH", f"/usr/local/cuda/bin{os.pathsep}{os.environ.get('PATH', '')}")
    monkeypatch.setenv("CYGRAD_CACHE_DIR", str(tmp_path))
    cuda, d = make(monkeypatch, capability=(7, 5))
    d.load_module(ROOT / "cuda_src" / "reduce.cu")
    image = [c for c in cuda.calls if c[0] == "module_from_buffer"][0][1][0]
    assert image[:4] == b"\x7fELF"                        # a cubin is an ELF image


def test_get_driver_without_cuda_names_the_missing_part(monkeypatch):
    import cygrad.cuda
    monkeypatch.setattr(_driver, "_driver", None)
    monkeypatch.setattr(_driver, "_want_emulator", False)
    monkeypatch.delenv("CYGRAD_CUDA", raising=False)
    monkeypatch.setitem(sys.modules, "pycuda", None)     # import pycuda fails
    with pytest.raises(RuntimeError, match=r"PyCUDA is not installed.*CYGRAD_CUDA=emulate.*"
                                           r"cygrad.cuda.use_emulator\(\)"):
        _driver.get_driver()
    fake_pycuda.install(monkeypatch, count=0)
    with pytest.raises(RuntimeError, match=r"no CUDA device.*CYGRAD_CUDA=emulate"):
        _driver.get_driver()
    cuda = fake_pycuda.install(monkeypatch, count=1)
    d = _driver.get_driver()
    assert d.name == "pycuda" and _driver.get_driver() is d and names(cuda)[0] == "init"
    with pytest.raises(RuntimeError, match="pycuda driver is already in use"):
        cygrad.cuda.use_emulator()


# ---- the signature parser both drivers share ------------------------------------

def test_parse_kernels_reads_types_as_declared():
    src = '''
    typedef long long idx_t;
    typedef idx_t count_t;
    using real = double;
    struct geom { int n; };
    __global__ void not_extern_c(int x) {}
    extern "C" __global__ void __launch_bounds__(256) a(count_t n, const float* __restrict__ x,
                                                        float * y, unsigned long long m, real s,
                                                        geom g, bool flag, int v[], unsigned char c) {}
    extern "C" __global__ void b(void) {}
    extern "C" __global__ void c(int, const double*) {}
    '''
    k = signature.parse_kernels(src)
    assert sorted(k) == ["a", "b", "c"]
    assert [(p.name, p.type, p.kind, p.dtype) for p in k["a"]] == [
        ("n", "count_t", "int", "int64"), ("x", "const float*", "pointer", "uint64"),
        ("y", "float*", "pointer", "uint64"), ("m", "unsigned long long", "int", "uint64"),
        ("s", "real", "float", "float64"), ("g", "geom", "struct", None), ("flag", "bool", "bool", "bool"),
        ("v", "int*", "pointer", "uint64"), ("c", "unsigned char", "int", "uint8")]
    assert k["b"] == ()
    assert [(p.name, p.type) for p in k["c"]] == [("arg0", "int"), ("arg1", "const double*")]


def test_check_args_accepts_numpy_scalars_and_names_the_parameter():
    ps = signature.parse_kernels('extern "C" __global__ void k(int n, float s, bool b, float* p) {}')["k"]
    assert signature.check_args("k", ps, [np.int64(3), np.float32(0.5), np.bool_(True), 64],
                                lambda v: v if v == 64 else None) == [3, 0.5, True, 64]
    with pytest.raises(TypeError, match=r"kernel k: parameter 'p' \(float\*\) needs a device pointer"):
        signature.check_args("k", ps, [1, 1.0, False, 65], lambda v: v if v == 64 else None)
    with pytest.raises(TypeError, match=r"kernel k\(int n, float s, bool b, float\* p\) takes 4"):
        signature.check_args("k", ps, [1], lambda v: None)
