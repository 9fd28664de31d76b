"""Run cuda_src/sort.cu and cuda_src/random.cu on a real GPU, through CuPy (no cygrad
driver needed), and check them against NumPy; prints one JSON line of results.

The kernels taking no struct argument are driven the way cygrad/cuda/ops/sort.py and
random.py drive them: row sorts (bitonic chunks, then merge passes), kth/mode on
sorted rows, the one-block scan, raw Philox words against the published known
answers, and multinomial sampling with replacement. Timings use CUDA events.

Usage (a machine with a GPU and CuPy): ``python bench/cuda_sortrandom_gpu.py``
"""
import json
import pathlib
import time

import numpy as np

try:
    import cupy as cp
except ImportError:                    # pragma: no cover - a GPU machine's tool
    raise SystemExit("needs CuPy and a GPU")

SRC = pathlib.Path(__file__).resolve().parents[1] / "cuda_src"
CHUNK = 2048
results = {"device": cp.cuda.runtime.getDeviceProperties(0)["name"].decode()}


def module(name):
    t = time.time()
    m = cp.RawModule(code=(SRC / name).read_text(), options=("-std=c++17",))
    m.compile()
    results[f"compile_{name}_s"] = round(time.time() - t, 2)
    return m


sort_mod, rand_mod = module("sort.cu"), module("random.cu")
i64 = np.int64


def sort_rows(x, desc, sfx):
    rows, n = x.shape
    vals = cp.empty_like(x)
    idx = cp.empty((rows, n), cp.int64)
    threads = min(512, max(32, (1 << (min(n, CHUNK) - 1).bit_length()) // 2))
    sort_mod.get_function(f"cg_sort_chunks_{sfx}")(
        (-(-n // CHUNK), rows, 1), (threads, 1, 1), (i64(rows), i64(n), i64(0), x, vals, idx,
                                                     np.int32(desc)))
    w = CHUNK
    ov, oi = cp.empty_like(vals), cp.empty_like(idx)
    while w < n:
        blocks = min(4096, -(-(rows * n) // 256))
        sort_mod.get_function(f"cg_merge_pass_{sfx}")(
            (blocks, 1, 1), (256, 1, 1), (i64(rows), i64(n), i64(w), vals, idx, ov, oi,
                                          np.int32(desc)))
        vals, ov, idx, oi = ov, vals, oi, idx
        w *= 2
    return vals, idx


def ref_order(a, desc):
    ranks = np.unique(a.reshape(-1), return_inverse=True)[1].reshape(a.shape)
    return np.argsort(-ranks if desc else ranks, axis=-1, kind="stable")


rng = np.random.default_rng(0)
checks = {}
for shape, dt, sfx in [((1000, 37), np.float32, "f32"), ((8, 2048), np.float64, "f64"),
                       ((3, 100_000), np.float32, "f32"), ((5, 5000), np.int64, "i64"),
                       ((7, 3000), np.float16, "f16"), ((1, 1), np.float32, "f32")]:
    a = rng.integers(0, 50, size=shape).astype(dt)
    if np.dtype(dt).kind == "f":
        a[a == 7] = np.nan
    for desc in (0, 1):
        v, i = sort_rows(cp.asarray(a), desc, sfx)
        want = ref_order(a.astype(np.float64), desc)
        ok = np.array_equal(cp.asnumpy(i), want) and np.array_equal(
            cp.asnumpy(v), np.take_along_axis(a, want, 1), equal_nan=True)
        checks[f"sort_{sfx}_{shape[0]}x{shape[1]}_desc{desc}"] = bool(ok)

# kthvalue (median) and mode on sorted rows
a = rng.integers(0, 9, size=(300, 101)).astype(np.float64)
v, i = sort_rows(cp.asarray(a), 0, "f64")
ov, oi = cp.empty(300, cp.float64), cp.empty(300, cp.int64)
sort_mod.get_function("cg_kth_f64")((2, 1, 1), (256, 1, 1), (i64(300), i64(101), i64(-1), v, i, ov, oi))
order = np.argsort(a, axis=1, kind="stable")[:, 50]
checks["median"] = bool(np.array_equal(cp.asnumpy(oi), order))
sort_mod.get_function("cg_mode_f64")((2, 1, 1), (256, 1, 1), (i64(300), i64(101), v, i, ov, oi))
mode_ok = True
for r in range(300):
    vals, counts = np.unique(a[r], return_counts=True)
    best = vals[np.argmax(counts)]
    mode_ok &= cp.asnumpy(ov)[r] == best and cp.asnumpy(oi)[r] == np.flatnonzero(a[r] == best)[-1]
checks["mode"] = bool(mode_ok)

# the one-block scan
flags = rng.integers(0, 2, size=1_000_003).astype(np.int64)
d = cp.asarray(flags)
sort_mod.get_function("cg_scan_i64")((1, 1, 1), (1024, 1, 1), (i64(flags.size), d))
checks["scan_1e6"] = bool(np.array_equal(cp.asnumpy(d), np.cumsum(flags)))

# Philox known answers (Random123's kat_vectors, counter words 2-3 zero)
words = cp.empty(4, cp.uint32)
rand_mod.get_function("cg_philox_words")((1, 1, 1), (32, 1, 1),
                                         (i64(4), words, np.uint64(0), np.uint64(0), np.uint32(0)))
checks["philox_kat0"] = cp.asnumpy(words).tolist() == [0x6627E8D5, 0xE169C58D, 0xBC57AC4C,
                                                        0x9B00DBD8]
rand_mod.get_function("cg_philox_words")(
    (1, 1, 1), (32, 1, 1), (i64(4), words, np.uint64((1 << 64) - 1), np.uint64((1 << 64) - 1),
                            np.uint32(0)))
# counter (ff.., ff.., 0, 0) is not the KAT's; check only determinism against a second run
w1 = cp.asnumpy(words).copy()
rand_mod.get_function("cg_philox_words")(
    (3, 1, 1), (64, 1, 1), (i64(4), words, np.uint64((1 << 64) - 1), np.uint64((1 << 64) - 1),
                            np.uint32(0)))
checks["philox_grid_independent"] = cp.asnumpy(words).tolist() == w1.tolist()

# multinomial with replacement
probs = cp.asarray(np.array([[0.1, 0.2, 0.7, 0.0], [1, 1, 1, 1]], np.float32))
cdf = cp.empty((2, 4), cp.float64)
k = 200_000
out = cp.empty((2, k), cp.int64)
rand_mod.get_function("cg_multinomial_rep_f32")((2, 1, 1), (256, 1, 1),
                                                (i64(2), i64(4), i64(k), probs, cdf, out,
                                                 np.uint64(1), np.uint64(0)))
freq = [np.bincount(r, minlength=4) / k for r in cp.asnumpy(out)]
checks["multinomial_rep"] = bool(np.allclose(freq[0], [0.1, 0.2, 0.7, 0], atol=0.005)
                                 and np.allclose(freq[1], 0.25, atol=0.005))
results["checks"] = checks
results["all_ok"] = all(checks.values())


def timed(fn, reps=5):
    fn()
    cp.cuda.runtime.deviceSynchronize()
    s, e = cp.cuda.Event(), cp.cuda.Event()
    s.record()
    for _ in range(reps):
        fn()
    e.record()
    e.synchronize()
    return round(cp.cuda.get_elapsed_time(s, e) / reps, 3)


for shape in [(1, 1 << 20), (1000, 1024), (4096, 128)]:
    x = cp.random.standard_normal(shape, dtype=cp.float32)
    results[f"ms_sort_f32_{shape[0]}x{shape[1]}"] = timed(lambda: sort_rows(x, 0, "f32"))
    results[f"ms_cupy_sort_f32_{shape[0]}x{shape[1]}"] = timed(lambda: cp.sort(x, axis=1))
print(json.dumps(results))
