"""The emulated CUDA driver (cygrad/cuda/_driver/emulated.py) against NumPy.

Kernels come from cuda_src/*.cu and the test-only tests/cuda/emu_kernels.cu;
libraries are compiled once per session into a temporary cache directory.
"""
import ctypes
import os
import pathlib
import shutil
import subprocess

import numpy as np
import pytest

from cygrad.cuda import _driver
from cygrad.cuda._driver import DriverError
from cygrad.cuda._driver import signature

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

ROOT = pathlib.Path(__file__).resolve().parents[2]
ELEMENTWISE = ROOT / "cuda_src" / "elementwise.cu"
REDUCE = ROOT / "cuda_src" / "reduce.cu"
TEST_KERNELS = pathlib.Path(__file__).with_name("emu_kernels.cu")


@pytest.fixture(scope="module")
def cache(tmp_path_factory):
    path = tmp_path_factory.mktemp("cygrad-cache")
    old = os.environ.get("CYGRAD_CACHE_DIR")
    os.environ["CYGRAD_CACHE_DIR"] = str(path)
    yield path
    if old is None:
        del os.environ["CYGRAD_CACHE_DIR"]
    else:
        os.environ["CYGRAD_CACHE_DIR"] = old


@pytest.fixture(scope="module")
def drv(cache):
    from cygrad.cuda._driver.emulated import EmulatedDriver
    return EmulatedDriver(memory=256 << 20, strict=False)


@pytest.fixture(scope="module")
def strict(cache):
    from cygrad.cuda._driver.emulated import EmulatedDriver
    return EmulatedDriver(memory=256 << 20, strict=True)


@pytest.fixture(scope="module")
def elementwise(drv):
    return drv.load_module(ELEMENTWISE)


@pytest.fixture(scope="module")
def reduce(drv):
    return drv.load_module(REDUCE)


@pytest.fixture(scope="module")
def tk(drv):
    return drv.load_module(TEST_KERNELS)


def to_device(d, arr):
    arr = np.ascontiguousarray(arr)
    ptr = d.mem_alloc(arr.nbytes)
    d.memcpy_htod(ptr, arr)
    return ptr


def from_device(d, ptr, shape, dtype):
    out = np.empty(shape, dtype)
    d.memcpy_dtoh(out, ptr)
    return out


# ---- memory ------------------------------------------------------------------

def test_memcpy_round_trips_and_offsets(drv, rng):
    x = rng.standard_normal(1000)
    p = to_device(drv, x)
    assert p >= 1 << 60                       # an opaque handle, not a host address
    np.testing.assert_array_equal(from_device(drv, p, 1000, np.float64), x)
    q = drv.mem_alloc(8000)
    drv.memcpy_dtod(q, p + 8 * 500, 8 * 500)  # interior pointers are valid
    drv.memset_d8(q + 8 * 500, 0, 8 * 500)
    np.testing.assert_array_equal(from_device(drv, q, 1000, np.float64),
                                  np.concatenate([x[500:], np.zeros(500)]))
    drv.memset_d8(q, 0x3F, 3)
    assert from_device(drv, q, 3, np.uint8).tolist() == [0x3F] * 3
    b = to_device(drv, np.arange(7, dtype=np.int8))
    assert from_device(drv, b + 2, 5, np.int8).tolist() == [2, 3, 4, 5, 6]
    for ptr in (p, q, b):
        drv.mem_free(ptr)


def test_bad_pointers_and_ranges_raise(drv):
    p = drv.mem_alloc(64)
    host = np.zeros(8, np.float64)
    with pytest.raises(DriverError, match="run past the end"):
        drv.memcpy_htod(p, np.zeros(9, np.float64))
    with pytest.raises(DriverError, match="run past the end"):
        drv.memcpy_dtoh(host, p + 8)
    with pytest.raises(DriverError, match="run past the end"):
        drv.memcpy_dtod(p, p, 65)
    with pytest.raises(DriverError, match="not a device pointer"):
        drv.memcpy_htod(host.ctypes.data, host)          # a host address is no device pointer
    with pytest.raises(DriverError, match="not a device pointer"):
        drv.memset_d8(12345, 0, 1)
    with pytest.raises(ValueError, match="C-contiguous"):
        drv.memcpy_htod(p, np.zeros((4, 4))[:, 0])
    with pytest.raises(DriverError, match="not a pointer returned by mem_alloc"):
        drv.mem_free(p + 8)
    drv.mem_free(p)
    with pytest.raises(DriverError, match="not a device pointer"):
        drv.memcpy_htod(p, host)                          # freed
    with pytest.raises(DriverError, match="already freed"):
        drv.mem_free(p)


def test_memory_limit_and_env(monkeypatch, cache):
    from cygrad.cuda._driver.emulated import EmulatedDriver
    monkeypatch.setenv("CYGRAD_CUDA_EMU_MEMORY", "1M")
    d = EmulatedDriver()
    assert d.mem_get_info() == (1 << 20, 1 << 20)
    assert d.get_device_properties(0)["total_memory"] == 1 << 20
    a = d.mem_alloc(600_000)
    assert d.mem_get_info()[0] == (1 << 20) - 600_064          # charged in 512-byte units
    with pytest.raises(MemoryError, match="out of memory"):
        d.mem_alloc(600_000)
    d.mem_free(a)
    d.mem_free(d.mem_alloc(600_000))                            # the space came back
    monkeypatch.setenv("CYGRAD_CUDA_EMU_MEMORY", "lots")
    with pytest.raises(ValueError, match="CYGRAD_CUDA_EMU_MEMORY"):
        EmulatedDriver()
    monkeypatch.delenv("CYGRAD_CUDA_EMU_MEMORY")
    assert EmulatedDriver().mem_get_info()[1] == 4 << 30


# ---- kernels of cuda_src ------------------------------------------------------------

BINARY = {"add": np.add, "sub": np.subtract, "mul": np.multiply, "div": np.divide}
UNARY = {"neg": np.negative, "exp": np.exp, "tanh": np.tanh, "sigmoid": lambda x: 1 / (1 + np.exp(-x))}


@pytest.mark.parametrize("dtype,suffix", [(np.float32, "f32"), (np.float64, "f64")])
def test_elementwise_contiguous(drv, elementwise, rng, dtype, suffix):
    n = 1001
    a = rng.standard_normal(n).astype(dtype)
    b = (rng.standard_normal(n) + 3).astype(dtype)
    pa, pb, po = to_device(drv, a), to_device(drv, b), drv.mem_alloc(a.nbytes)
    tol = dict(rtol=2e-6 if dtype == np.float32 else 1e-14, atol=0)
    for name, ref in BINARY.items():
        drv.launch(elementwise.get_function(f"cg_{name}_{suffix}"), (3, 1, 1), (128, 1, 1), [n, po, pa, pb])
        np.testing.assert_allclose(from_device(drv, po, n, dtype), ref(a, b), **tol, err_msg=name)
    for name, ref in UNARY.items():
        drv.launch(elementwise.get_function(f"cg_{name}_{suffix}"), (2, 1, 1), (64, 1, 1), [n, po, pa])
        np.testing.assert_allclose(from_device(drv, po, n, dtype), ref(a), **tol, err_msg=name)


class Geometry(ctypes.Structure):
    _fields_ = [("ndim", ctypes.c_int), ("shape", ctypes.c_longlong * 16),
                ("stride_out", ctypes.c_longlong * 16), ("stride_a", ctypes.c_longlong * 16),
                ("stride_b", ctypes.c_longlong * 16)]


def test_elementwise_strided_struct_argument(drv, elementwise, rng):
    a = rng.standard_normal((3, 4))
    b = rng.standard_normal(4)
    pa, pb, po = to_device(drv, a), to_device(drv, b), drv.mem_alloc(8 * 12)
    g = Geometry(2)
    g.shape[:2] = [3, 4]
    g.stride_out[:2] = [4, 1]
    g.stride_a[:2] = [-4, 1]          # a flipped along rows: pointer at its last row
    g.stride_b[:2] = [0, 1]           # b broadcast over rows
    kernel = elementwise.get_function("cg_mul_f64_strided")
    assert kernel.param_types == ("cg_index", "cg_geometry", "double*", "const double*", "const double*")
    drv.launch(kernel, (1, 1, 1), (5, 1, 1), [12, g, po, pa + 8 * 8, pb])
    np.testing.assert_array_equal(from_device(drv, po, (3, 4), np.float64), a[::-1] * b)
    with pytest.raises(TypeError, match="parameter 'g' .* bytes"):
        drv.launch(kernel, (1,), (5,), [12, b"short", po, pa, pb])


@pytest.mark.parametrize("dtype,suffix", [(np.float32, "f32"), (np.float64, "f64")])
def test_row_reductions(drv, reduce, rng, dtype, suffix):
    rows, cols = 37, 203
    x = rng.standard_normal((rows, cols)).astype(dtype)
    x[5, 17] = np.nan
    px, po = to_device(drv, x), drv.mem_alloc(rows * x.itemsize)
    drv.launch(reduce.get_function(f"cg_sum_rows_{suffix}"), (8, 1, 1), (96, 1, 1), [rows, cols, po, px])
    got = from_device(drv, po, rows, dtype)
    np.testing.assert_allclose(got, x.astype(np.float64).sum(1), rtol=1e-5 if dtype == np.float32 else 1e-12)
    drv.launch(reduce.get_function(f"cg_max_rows_{suffix}"), (8, 1, 1), (256, 1, 1), [rows, cols, po, px])
    np.testing.assert_array_equal(from_device(drv, po, rows, dtype), x.max(1))   # NaN row included
    drv.launch(reduce.get_function(f"cg_sum_rows_{suffix}"), (2, 1, 1), (32, 1, 1), [rows, 0, po, px])
    assert not from_device(drv, po, rows, dtype).any()


# ---- device-language features ------------------------------------------------------

def test_barrier_makes_the_shared_memory_tree_sum_right(drv, tk, rng):
    x = rng.integers(-1000, 1000, (4, 256)).astype(np.int32)
    px, po = to_device(drv, x), drv.mem_alloc(16)
    drv.launch(tk.get_function("barrier_tree_sum"), (4, 1, 1), (256, 1, 1), [po, px])
    assert from_device(drv, po, 4, np.int32).tolist() == x.sum(1).tolist()


def _warp_reference(v, src, delta, width):
    lanes = np.arange(32)
    start = lanes // width * width
    idx = start + src % width
    up = np.where(lanes - delta < start, lanes, lanes - delta)
    down = np.where(lanes + delta >= start + width, lanes, lanes + delta)
    xor = lanes ^ delta
    xor = np.where((xor >= start + width) | (xor < start), lanes, xor)
    ballot = int(sum(1 << i for i in range(32) if v[i] > 0))
    ballot = ballot - (1 << 32) if ballot >= 1 << 31 else ballot
    down1 = np.where(lanes + 1 >= 32, lanes, lanes + 1)
    return np.stack([v[idx], v[up], v[down], v[xor], np.full(32, ballot), np.full(32, int((v > 100).any())),
                     np.full(32, int((v >= 0).all())), np.trunc(v[down1] + 0.5).astype(int)], axis=1)


@pytest.mark.parametrize("src,delta,width", [(5, 1, 32), (37, 3, 8), (2, 2, 4)])
def test_warp_shuffles_and_votes(drv, tk, rng, src, delta, width):
    v = rng.integers(-50, 150, 32).astype(np.int32)
    pv, po = to_device(drv, v), drv.mem_alloc(32 * 8 * 4)
    drv.launch(tk.get_function("warp_ops"), (1, 1, 1), (32, 1, 1), [po, pv, src, delta, width])
    np.testing.assert_array_equal(from_device(drv, po, (32, 8), np.int32), _warp_reference(v, src, delta, width))


def test_atomics_under_contention(drv, tk, rng):
    n, nbins = 5000, 5
    x = rng.integers(0, nbins, n).astype(np.int32)
    ptrs = [to_device(drv, x), to_device(drv, np.zeros(nbins, np.int32)),
            to_device(drv, np.zeros(nbins, np.uint32)), to_device(drv, np.zeros(nbins, np.uint64)),
            to_device(drv, np.zeros(1, np.float32)), to_device(drv, np.zeros(1, np.float64)),
            to_device(drv, np.array([-10**6], np.int32)), to_device(drv, np.array([10**6], np.int32)),
            to_device(drv, np.zeros(1, np.int32))]
    drv.launch(tk.get_function("atomic_histogram"), (3, 1, 1), (128, 1, 1), [n] + ptrs)
    counts = np.bincount(x, minlength=nbins)
    expect_i = counts.copy()
    expect_i[0] += n                                  # the CAS loop's increments
    assert from_device(drv, ptrs[1], nbins, np.int32).tolist() == expect_i.tolist()
    assert from_device(drv, ptrs[2], nbins, np.uint32).tolist() == (2 * counts).tolist()
    assert from_device(drv, ptrs[3], nbins, np.uint64).tolist() == (3 * counts).tolist()
    assert from_device(drv, ptrs[4], 1, np.float32)[0] == float(x.sum())      # exact below 2**24
    assert from_device(drv, ptrs[5], 1, np.float64)[0] == float(x.sum())
    assert from_device(drv, ptrs[6], 1, np.int32)[0] == x.max() * 7 - 3
    assert from_device(drv, ptrs[7], 1, np.int32)[0] == x.min() * 7 - 3
    assert from_device(drv, ptrs[8], 1, np.int32)[0] == 1


def test_dynamic_shared_memory(drv, tk, rng):
    n, block = 300, 64
    x = rng.standard_normal(n).astype(np.float32)
    px, po = to_device(drv, x), to_device(drv, np.zeros(n, np.float32))
    kernel = tk.get_function("dynamic_shared_reverse")
    drv.launch(kernel, (5, 1, 1), (block, 1, 1), [n, po, px], shared_mem=block * 4)
    padded = np.concatenate([x, np.zeros(5 * block - n, np.float32)]).reshape(5, block)[:, ::-1].ravel()
    expect = np.zeros(5 * block, np.float32)
    expect[:] = padded
    np.testing.assert_array_equal(from_device(drv, po, n, np.float32), expect[:n])
    with pytest.raises(DriverError, match="dynamic shared memory"):
        drv.launch(kernel, (1,), (block,), [n, po, px], shared_mem=64 * 1024)


def test_two_dimensional_grid_and_block(drv, tk):
    w, h = 12, 6
    po = drv.mem_alloc(4 * w * h)
    drv.launch(tk.get_function("index_2d"), (3, 2, 1), (4, 3, 1), [w, po])
    y, x = np.mgrid[0:h, 0:w]
    expect = (y % 3) * 4 + (x % 4) + 1000 * ((y // 3) * 3 + x // 4)
    np.testing.assert_array_equal(from_device(drv, po, (h, w), np.int32), expect)


def test_half_and_bfloat16_conversions(drv, tk, rng):
    torch = pytest.importorskip("torch", reason="torch is the bfloat16 reference")
    x = np.concatenate([rng.standard_normal(200) * 10.0 ** rng.integers(-9, 6, 200),
                        [0.0, -0.0, 65504.0, 65520.0, 1e-8, 6e-8, np.inf, -np.inf]]).astype(np.float32)
    n = x.size
    px, ph, pb = to_device(drv, x), drv.mem_alloc(4 * n), drv.mem_alloc(4 * n)
    drv.launch(tk.get_function("half_round_trip"), (1,), (64,), [n, ph, pb, px])
    with np.errstate(over="ignore"):
        np.testing.assert_array_equal(from_device(drv, ph, n, np.float32), x.astype(np.float16).astype(np.float32))
    bf = torch.from_numpy(x).to(torch.bfloat16).float().numpy()
    np.testing.assert_array_equal(from_device(drv, pb, n, np.float32), bf)


# ---- argument checks ---------------------------------------------------------------

def test_argument_types_are_checked(drv, tk):
    k = tk.get_function("typed_args")
    assert k.param_types == ("int", "unsigned", "long long", "unsigned long long", "float", "double",
                             "bool", "double*")
    po = drv.mem_alloc(7 * 8)
    good = [-2**31, 2**32 - 1, -2**63, 2**64 - 1, 1.5, -2.25, True, po]
    drv.launch(k, (1,), (1,), good)
    np.testing.assert_array_equal(from_device(drv, po, 7, np.float64),
                                  [-2**31, 2**32 - 1, -2.0**63, 2.0**64, 1.5, -2.25, 1])
    bad = [(0, 2**31, r"'i' \(int\).*out of range"), (1, -1, r"'u' \(unsigned\).*out of range"),
           (2, 2**63, "'ll'.*out of range"), (0, 1.0, "'i' .*needs an integer"),
           (4, "1", "'f' .*needs a real number"), (5, True, "'d' .*needs a real number"),
           (6, 2, "'flag' .*needs a bool"), (7, 0x1234, "'out' .*needs a device pointer"),
           (7, 1.0, "'out' .*needs a device pointer")]
    for i, value, msg in bad:
        args = list(good)
        args[i] = value
        with pytest.raises(TypeError, match="kernel typed_args: parameter " + msg):
            drv.launch(k, (1,), (1,), args)
    with pytest.raises(TypeError, match=r"typed_args\(.*\) takes 8 argument\(s\), got 7"):
        drv.launch(k, (1,), (1,), good[:7])
    from cygrad.cuda._driver.emulated import EmulatedDriver
    other = EmulatedDriver(memory=1 << 20)
    foreign = other.mem_alloc(64)
    if foreign != po:     # handles of two drivers can coincide; only a distinct one is foreign
        with pytest.raises(TypeError, match="device pointer of this driver"):
            drv.launch(k, (1,), (1,), good[:7] + [foreign])
    with pytest.raises(DriverError, match="1024"):
        drv.launch(k, (1,), (1025,), good)
    with pytest.raises(KeyError, match="no_such"):
        tk.get_function("no_such")


# ---- streams and events ------------------------------------------------------------

def test_stream_order_and_events(drv, elementwise, rng):
    n = 4096
    a = rng.standard_normal(n)
    s1, s2 = drv.stream_create(), drv.stream_create()
    pa, po = drv.mem_alloc(8 * n), drv.mem_alloc(8 * n)
    start, mid, end = (drv.event_create(enable_timing=True) for _ in range(3))
    drv.event_record(start, s1)
    drv.memcpy_htod(pa, a, stream=s1)
    drv.launch(elementwise.get_function("cg_exp_f64"), (4,), (128,), [n, po, pa], stream=s1)
    drv.event_record(mid, s1)
    drv.stream_wait_event(s2, mid)
    drv.launch(elementwise.get_function("cg_neg_f64"), (4,), (128,), [n, po, po], stream=s2)
    drv.event_record(end, s2)
    out = np.empty(n)
    drv.memcpy_dtoh(out, po, stream=s2)
    drv.stream_synchronize(s2)
    assert drv.stream_query(s1) and drv.stream_query(None) and drv.event_query(end)
    drv.event_synchronize(end)
    np.testing.assert_allclose(out, -np.exp(a), rtol=1e-14)
    t1, t2 = drv.event_elapsed_time(start, mid), drv.event_elapsed_time(start, end)
    assert 0 <= t1 <= t2
    with pytest.raises(DriverError, match="enable_timing"):
        drv.event_elapsed_time(drv.event_create(), end)
    with pytest.raises(DriverError, match="never recorded"):
        drv.event_elapsed_time(start, drv.event_create(enable_timing=True))
    with pytest.raises(TypeError, match="not a stream"):
        drv.memcpy_htod(pa, a, stream="s1")


# ---- strict mode -----------------------------------------------------------------

def test_strict_mode_reports_barrier_divergence(strict, drv, tk):
    m = strict.load_module(TEST_KERNELS)
    po = strict.mem_alloc(4 * 64)
    with pytest.raises(DriverError, match=r"kernel strict_barrier_exit: barrier divergence.*"
                                          r"16 thread\(s\).*emu_kernels.cu:\d+ while 16 have exited"):
        strict.launch(m.get_function("strict_barrier_exit"), (1,), (32,), [po])
    with pytest.raises(DriverError, match="kernel strict_barrier_split: barrier divergence.*different"):
        strict.launch(m.get_function("strict_barrier_split"), (1,), (32,), [po])
    # the default mode lets the exited threads count as arrived, as GPUs commonly do
    q = drv.mem_alloc(4 * 32)
    drv.launch(tk.get_function("strict_barrier_exit"), (1,), (32,), [q])
    assert from_device(drv, q, 32, np.int32).tolist() == [1] * 32


def test_strict_mode_reports_bad_shuffle_lanes(strict):
    m = strict.load_module(TEST_KERNELS)
    po = strict.mem_alloc(4 * 64)
    with pytest.raises(DriverError, match=r"kernel strict_shuffle_inactive: __shfl_sync at .*"
                                          r"names lane 16 .*exited"):
        strict.launch(m.get_function("strict_shuffle_inactive"), (1,), (32,), [po])
    with pytest.raises(DriverError, match=r"strict_shuffle_outside_mask: __shfl_sync .* reads lane 20"):
        strict.launch(m.get_function("strict_shuffle_outside_mask"), (1,), (32,), [po])
    with pytest.raises(DriverError, match="past the last thread"):
        strict.launch(m.get_function("strict_shuffle_inactive"), (1,), (16,), [po])


def test_strict_mode_reports_out_of_bounds_access(strict, drv, tk):
    m = strict.load_module(TEST_KERNELS)
    po = strict.mem_alloc(4 * 64)
    k = m.get_function("strict_out_of_bounds")
    strict.launch(k, (1,), (1,), [63, po])           # the last element is fine
    with pytest.raises(DriverError, match=r"kernel strict_out_of_bounds: out-of-bounds device access: "
                                          r"0 bytes past the end of the allocation of 256 bytes"):
        strict.launch(k, (1,), (1,), [64, po])
    with pytest.raises(DriverError, match="before the start"):
        strict.launch(k, (1,), (1,), [-1025, po])
    strict.launch(k, (1,), (1,), [0, po])            # the driver still works after a fault
    # without strict mode a wild pointer still comes back as an error, not a crash
    with pytest.raises(DriverError, match="illegal memory access"):
        drv.launch(tk.get_function("strict_out_of_bounds"), (1,), (1,), [-2**31, drv.mem_alloc(4)])


# ---- compile cache ---------------------------------------------------------------

def test_compile_cache_is_reused_and_keyed_by_source(cache, tmp_path):
    from cygrad.cuda._driver.emulated import EmulatedDriver
    src = tmp_path / "tiny.cu"
    src.write_text('extern "C" __global__ void tiny(int* out) { out[threadIdx.x] = 7; }\n')
    EmulatedDriver().load_module(src)
    libs = sorted((cache / "cuda_emu").glob("tiny-*.so"))
    assert len(libs) == 1
    stamp = libs[0].stat().st_mtime_ns
    EmulatedDriver().load_module(src)                  # a new driver: the disk cache, no compile
    assert sorted((cache / "cuda_emu").glob("tiny-*.so")) == libs
    assert libs[0].stat().st_mtime_ns == stamp
    src.write_text('extern "C" __global__ void tiny(int* out) { out[threadIdx.x] = 8; }\n')
    d = EmulatedDriver()
    m = d.load_module(src)
    assert len(list((cache / "cuda_emu").glob("tiny-*.so"))) == 2
    p = d.mem_alloc(4)
    d.launch(m.get_function("tiny"), (1,), (1,), [p])
    assert from_device(d, p, 1, np.int32)[0] == 8
    src.write_text('extern "C" __global__ void tiny(int* out) { out[0] = undefined_name; }\n')
    with pytest.raises(DriverError, match="undefined_name"):
        EmulatedDriver().load_module(src)


def test_compile_cache_is_keyed_by_the_headers_a_file_includes(cache, tmp_path):
    # cuda_src/*.cu include cg_common.cuh: a changed header must not load a stale library
    from cygrad.cuda._driver.emulated import EmulatedDriver
    (tmp_path / "value.cuh").write_text("#define TINY_VALUE 5\n")
    src = tmp_path / "hdr.cu"
    src.write_text('#include "value.cuh"\n'
                   'extern "C" __global__ void hdr(int* out) { out[0] = TINY_VALUE; }\n')

    def run():
        d = EmulatedDriver()
        p = d.mem_alloc(4)
        d.launch(d.load_module(src).get_function("hdr"), (1,), (1,), [p])
        return int(from_device(d, p, 1, np.int32)[0])

    assert run() == 5
    (tmp_path / "value.cuh").write_text("#define TINY_VALUE 6\n")
    assert run() == 6
    assert len(list((cache / "cuda_emu").glob("hdr-*.so"))) == 2


@pytest.mark.skipif(shutil.which("nvcc") is None and not os.path.exists("/usr/local/cuda/bin/nvcc"),
                    reason="nvcc is not installed (CI's nvcc stage compiles cuda_src/*.cu)")
@pytest.mark.skipif(signature.find_cxx() is None, reason="nvcc needs a host C++ compiler")
def test_test_kernels_are_valid_cuda(tmp_path):
    nvcc = shutil.which("nvcc") or "/usr/local/cuda/bin/nvcc"
    proc = subprocess.run([nvcc, "-ptx", "-arch=sm_80", "-std=c++17", "-Werror", "all-warnings",
                           "-o", str(tmp_path / "k.ptx"), str(TEST_KERNELS)], capture_output=True, text=True)
    assert proc.returncode == 0, proc.stderr


def test_get_driver_chooses_the_emulator(monkeypatch, cache):
    monkeypatch.setattr(_driver, "_driver", None)
    monkeypatch.setattr(_driver, "_want_emulator", False)
    monkeypatch.setenv("CYGRAD_CUDA", "emulate")
    d = _driver.get_driver()
    assert d.name == "emulated" and _driver.get_driver() is d
    monkeypatch.setattr(_driver, "_driver", None)
    monkeypatch.delenv("CYGRAD_CUDA")
    import cygrad
    cygrad.cuda.use_emulator()
    assert _driver.get_driver().name == "emulated"
