"""Measure, per kernel family, the size from which two threads beat one.

Usage::

    python bench/thresholds.py            # prints a table and the suggested thresholds
    python bench/thresholds.py --apply    # also uses them for the rest of this process

For each family (binary, cheap unary and copies, transcendental unary, reductions)
and each size, the op is timed with one thread and with all threads (the family's
threshold lowered to 1 so the pool is used), as the minimum over repeats of the
mean of several calls. The suggested threshold is the smallest size from which
the threaded time is at most ``--gain`` times the serial one at that size and
every larger one. Indexing (masks, gathers) runs in NumPy, single-threaded, so
it has no threshold. Run it on a quiet machine: another busy process makes the
threaded times, and so the thresholds, meaningless (the load is printed).

Examples
--------
>>> from thresholds import crossover
>>> crossover([(1000, 1.0, 1.2), (2000, 2.0, 1.5), (4000, 4.0, 2.5)], gain=0.9)
2000
"""
import argparse
import os
import sys
import timeit

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
if HERE not in sys.path:
    sys.path.insert(0, HERE)

SIZES = [1 << p for p in range(14, 23)]


def family_ops(cygrad):
    """(family, description, make inputs(n), op) for each kernel family."""
    def vec(n):
        return (cygrad.tensor(np.random.default_rng(0).random(n, dtype=np.float32)),)

    def pair(n):
        return vec(n) + vec(n)

    return [
        ("binary", "a + b", pair, lambda a, b: a + b),
        ("unary_cheap", "a.clone() (copy)", vec, lambda a: a.clone()),
        ("unary_math", "a.exp()", vec, lambda a: a.exp()),
        ("reduce", "a.sum()", vec, lambda a: a.sum()),
    ]


def best_time(fn, args, repeat):
    timer = timeit.Timer(lambda: fn(*args))
    once = timer.timeit(number=1)
    number = max(1, min(2000, int(0.005 / max(once, 1e-9))))
    return min(timer.repeat(repeat=repeat, number=number)) / number


def crossover(rows, gain):
    """Smallest size from which threaded <= gain * serial at it and every larger size.

    ``rows`` are ``(size, serial_seconds, threaded_seconds)`` in increasing size;
    None when threads never pay.
    """
    found = None
    for size, serial, threaded in reversed(rows):
        if threaded <= gain * serial:
            found = size
        else:
            break
    return found


def measure(cygrad, repeat, gain, write=print):
    from cygrad._core import tensor as C
    threads = cygrad.get_num_threads()
    saved = C._get_parallel_min()
    suggested = {}
    try:
        for family, desc, make, op in family_ops(cygrad):
            write(f"{family} ({desc}):")
            rows = []
            for n in SIZES:
                args = make(n)
                C._set_parallel_min(family, 1)
                cygrad.set_num_threads(1)
                serial = best_time(op, args, repeat)
                cygrad.set_num_threads(threads)
                threaded = best_time(op, args, repeat)
                rows.append((n, serial, threaded))
                write(f"  {n:>9,}  1 thread {serial * 1e6:9.1f} us   {threads} threads "
                      f"{threaded * 1e6:9.1f} us   ratio {threaded / serial:5.2f}")
            C._set_parallel_min(family, saved[family])
            suggested[family] = crossover(rows, gain)
    finally:
        cygrad.set_num_threads(threads)
        for family, n in saved.items():
            C._set_parallel_min(family, n)
    return suggested


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--repeat", type=int, default=15, help="repeats per timing (min taken)")
    p.add_argument("--gain", type=float, default=0.8,
                   help="threads must take at most this fraction of the serial time")
    p.add_argument("--apply", action="store_true", help="use the suggestions in this process")
    args = p.parse_args(argv)
    import cygrad
    if cygrad.get_num_threads() < 2:
        sys.exit("thresholds: only one thread available; nothing to measure")
    print(f"load average before: {os.getloadavg()[0]:.2f} on {os.cpu_count()} cores")
    suggested = measure(cygrad, args.repeat, args.gain)
    print(f"load average after: {os.getloadavg()[0]:.2f}")
    print("suggested thresholds (elements; None: threads never paid up to "
          f"{SIZES[-1]:,}):")
    for family, n in suggested.items():
        print(f"  {family:<12} {n if n is None else f'{n:,}'}")
    if args.apply:
        from cygrad._core import tensor as C
        for family, n in suggested.items():
            C._set_parallel_min(family, n or (1 << 62))
    return suggested


if __name__ == "__main__":
    main()
