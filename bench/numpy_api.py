"""Benchmark ``cygrad.numpy`` against NumPy: the same call on small arrays.

Each case calls one function through ``cygrad.numpy`` on cygrad tensors and the
same function through ``numpy`` on NumPy arrays (100 float32 or complex64, 10x10
matrices, FFT signals of 64 and 1024 points), so the ratio is the namespace's
per-call cost: argument checks, the standard's type promotion and the op itself. The cases go through the harness of ``run.py``
(results compared with NumPy's before timing).

Usage::

    python bench/numpy_api.py            # 100,000 calls x 5 repeats per case
    python bench/numpy_api.py --quick    # 10,000 calls x 3

Examples
--------
>>> from numpy_api import make_cases
>>> [c.name for c in make_cases()][:3]
['add(a, b)', 'multiply(a, 2.0)', 'exp(a)']
"""
import argparse
import os
import sys

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

import harness  # noqa: E402
import run as bench_run  # noqa: E402

GROUP = "cygrad.numpy vs numpy: one call on 100 float32 (or 10x10, or an FFT signal) (time per call)"


def _uniform(rng, shape):
    return (rng.random(shape, dtype=np.float32) * 4 - 2).astype(np.float32)


def _complex(rng, shape):
    return (_uniform(rng, shape) + 1j * _uniform(rng, shape)).astype(np.complex64)


def make_cases():
    """The cases: a dozen common NumPy calls, then complex64 arithmetic and the FFTs
    (64 and 1024 points), each spelled the same for both modules.

    Examples
    --------
    >>> from numpy_api import make_cases
    >>> len(make_cases())
    24
    """
    import cygrad.numpy as cnp

    def one(rng):
        return (_uniform(rng, 100),)

    def two(rng):
        return (_uniform(rng, 100), _uniform(rng, 100))

    def mat(rng):
        return (_uniform(rng, (10, 10)),)

    def ctwo(rng):
        return (_complex(rng, 100), _complex(rng, 100))

    def cmat(rng):
        return (_complex(rng, (10, 10)),)

    def signal(n, make):
        return lambda rng: (make(rng, n),)

    def spd(rng):
        a = rng.random((10, 10)).astype(np.float32)
        return (a @ a.T + 10 * np.eye(10, dtype=np.float32),)

    calls = [
        ("add(a, b)", two, lambda m, a, b: m.add(a, b)),
        ("multiply(a, 2.0)", one, lambda m, a: m.multiply(a, 2.0)),
        ("exp(a)", one, lambda m, a: m.exp(a)),
        ("sqrt(abs(a))", one, lambda m, a: m.sqrt(m.abs(a))),
        ("maximum(a, b)", two, lambda m, a, b: m.maximum(a, b)),
        ("where(a > 0, a, b)", two, lambda m, a, b: m.where(a > 0, a, b)),
        ("sum(a)", one, lambda m, a: m.sum(a)),
        ("mean(x, axis=0)", mat, lambda m, x: m.mean(x, axis=0)),
        ("std(a)", one, lambda m, a: m.std(a)),
        ("max(x, axis=1)", mat, lambda m, x: m.max(x, axis=1)),
        ("clip(a, -1, 1)", one, lambda m, a: m.clip(a, -1, 1)),
        ("concatenate([a, b])", two, lambda m, a, b: m.concatenate([a, b])),
        ("matmul(x, x)", mat, lambda m, x: m.matmul(x, x)),
        ("linalg.solve(x, x)", spd, lambda m, x: m.linalg.solve(x, x)),
        ("complex64 add(z, w)", ctwo, lambda m, z, w: m.add(z, w)),
        ("complex64 multiply(z, w)", ctwo, lambda m, z, w: m.multiply(z, w)),
        ("complex64 abs(z)", ctwo, lambda m, z, w: m.abs(z)),
        ("complex64 matmul(z, z)", cmat, lambda m, z: m.matmul(z, z)),
    ]
    for n in (64, 1024):
        calls += [
            (f"fft.fft(z) {n} complex64", signal(n, _complex), lambda m, z: m.fft.fft(z)),
            (f"fft.rfft(a) {n} float32", signal(n, _uniform), lambda m, a: m.fft.rfft(a)),
            (f"fft.ifft(z) {n} complex64", signal(n, _complex), lambda m, z: m.fft.ifft(z)),
        ]
    cases = []
    for name, setup, call in calls:
        ops = {"cygrad": lambda *a, call=call: call(cnp, *a),
               "numpy": lambda *a, call=call: call(np, *a)}
        cases.append(harness.Case(name, GROUP, setup, ops=ops, timing="per_call",
                                  rtol=1e-4, atol=1e-3 if name.startswith("fft") else 1e-5))
    return cases


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--quick", action="store_true", help="10,000 calls x 3 repeats per case")
    args = p.parse_args(argv)
    libs = harness.available_libraries(["cygrad", "numpy"])
    config = bench_run.config_for(args.quick)
    harness.describe_environment(harness.environment(libs))
    print(f"timing: min of {config.repeat} x {config.number:,} calls (harness overhead subtracted)\n")
    return bench_run.run(make_cases(), libs, config, show_progress=False)


if __name__ == "__main__":
    main()
