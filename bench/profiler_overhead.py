"""What cygrad.profiler costs per op: 10,000 small adds with and without an
active profiler (min of 5 alternating runs each).

    python bench/profiler_overhead.py
"""
import time

import cygrad
from cygrad.profiler import profile

N = 10000
a, b = cygrad.ones(4), cygrad.ones(4)


def per_op_us(fn):
    start = time.perf_counter()
    for _ in range(N):
        fn()
    return (time.perf_counter() - start) / N * 1e6


def main():
    for label, fn in (("a + b", lambda: a + b), ("cygrad.add(a, b)", lambda: cygrad.add(a, b))):
        off, on = [], []
        for _ in range(5):
            off.append(per_op_us(fn))
            with profile():
                on.append(per_op_us(fn))
        print(f"{label:18s} off {min(off):.3f} us/op   profiling {min(on):.3f} us/op   "
              f"overhead {min(on) - min(off):.3f} us/op")
    with profile(record_shapes=True, profile_memory=True):
        full = per_op_us(lambda: a + b)
    print(f"{'a + b':18s} with record_shapes and profile_memory: {full:.3f} us/op")


if __name__ == "__main__":
    main()
