"""Throughput of the emulated CUDA driver (docs/cuda.md quotes its output).

Run from the repository root: ``python bench/cuda_emulator.py``. Prints the
elements per second of cuda_src/elementwise.cu's ``cg_add_f32`` on 1M floats
(with a grid-stride launch of 1024 x 256 threads, and with one thread per
element) and the launches per second of an empty kernel; medians of 5 runs.

Examples
--------
>>> import importlib.util
>>> importlib.util.find_spec("numpy") is not None
True
"""
import pathlib
import statistics
import sys
import time

import numpy as np

ROOT = pathlib.Path(__file__).resolve().parents[1]


def _median_time(fn, repeat=5):
    times = []
    for _ in range(repeat):
        t = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t)
    return statistics.median(times)


def main():
    sys.path.insert(0, str(ROOT))
    from cygrad.cuda._driver.emulated import EmulatedDriver
    d = EmulatedDriver()
    add = d.load_module(ROOT / "cuda_src" / "elementwise.cu").get_function("cg_add_f32")
    empty = d.load_module(ROOT / "tests" / "cuda" / "emu_kernels.cu").get_function("empty_kernel")
    n = 1 << 20
    a = np.random.default_rng(0).random(n, dtype=np.float32)
    pa, pb, po = (d.mem_alloc(4 * n) for _ in range(3))
    d.memcpy_htod(pa, a)
    d.memcpy_htod(pb, a)
    for label, grid in (("grid-stride, 1024 x 256 threads", 1024), ("one thread per element", n // 256)):
        d.launch(add, (grid,), (256,), [n, po, pa, pb])
        t = _median_time(lambda: d.launch(add, (grid,), (256,), [n, po, pa, pb]))
        print(f"cg_add_f32 on {n} floats, {label}: {n / t / 1e6:.1f} M elements/s ({t * 1e3:.1f} ms)")
    out = np.empty(n, np.float32)
    d.memcpy_dtoh(out, po)
    assert np.array_equal(out, a + a)
    reps = 2000
    t = _median_time(lambda: [d.launch(empty, (1,), (1,), []) for _ in range(reps)])
    print(f"empty kernel, 1 block of 1 thread: {reps / t:,.0f} launches/s")
    t = _median_time(lambda: [d.launch(empty, (1,), (256,), []) for _ in range(reps // 10)])
    print(f"empty kernel, 1 block of 256 threads: {reps // 10 / t:,.0f} launches/s")


if __name__ == "__main__":
    main()
