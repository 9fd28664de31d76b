"""Per-call time of the scatter-add paths (embedding backward, ``index_add_``,
``scatter_add_``, ``x[idx]`` backward) for cygrad and PyTorch, in one process.

Run it with the checkout to measure first on ``PYTHONPATH`` (``PYTHONPATH=.``):
otherwise ``import cygrad`` finds whichever cygrad is installed.

Repetitions alternate between the libraries (cygrad, torch, cygrad, torch ...), and
each library's time is the median of its rounds, so load from other processes
hits both alike; both run on cygrad's thread count::

    PYTHONPATH=. python bench/scatter.py            # the cases of docs/performance.md
    PYTHONPATH=. python bench/scatter.py --threads 1 --cpu-time

Examples
--------
>>> from scatter import make_cases
>>> [name for name, _, _ in make_cases()][:1]
['embedding backward  V=1000 D=64 idx (512, 3)']
"""
import argparse
import statistics
import sys
import time

import numpy as np


def _per_call(fn, reps, clock=time.perf_counter):
    t0 = clock()
    for _ in range(reps):
        fn()
    return (clock() - t0) / reps


def _embedding_case(cygrad, torch, rng, vocab, dim, shape):
    idx = rng.integers(0, vocab, shape)
    g = rng.standard_normal(shape + (dim,)).astype(np.float32)
    w0 = rng.standard_normal((vocab, dim)).astype(np.float32)

    def make(lib, fn):
        w = lib.tensor(w0, requires_grad=True)
        out = fn(lib.tensor(idx), w)
        grad = lib.tensor(g)

        def run():
            w.grad = None
            out.backward(grad, retain_graph=True)
        return run
    return (make(cygrad, cygrad.nn.functional.embedding),
            make(torch, torch.nn.functional.embedding))


def _index_backward_case(cygrad, torch, rng, rows, dim, n):
    idx = rng.integers(0, rows, n)
    x0 = rng.standard_normal((rows, dim)).astype(np.float32)
    g = np.ones((n, dim), np.float32)

    def make(lib):
        x = lib.tensor(x0, requires_grad=True)
        out = x[lib.tensor(idx)]
        grad = lib.tensor(g)

        def run():
            x.grad = None
            out.backward(grad, retain_graph=True)
        return run
    return make(cygrad), make(torch)


def make_cases(quick=False):
    """``(name, cygrad callable, torch callable)`` for each case.

    Examples
    --------
    >>> from scatter import make_cases
    >>> len(make_cases())
    7
    """
    import cygrad
    import torch
    rng = np.random.default_rng(0)
    cases = []
    for vocab, dim, shape in ((1000, 64, (512, 3)), (27, 10, (32, 3))):
        cy, th = _embedding_case(cygrad, torch, rng, vocab, dim, shape)
        cases.append((f"embedding backward  V={vocab} D={dim} idx {shape}", cy, th))
    idx = rng.integers(0, 1000, 1536)
    src = rng.standard_normal((1536, 64)).astype(np.float32)
    xs = [lib.zeros(1000, 64) for lib in (cygrad, torch)]
    args = [(lib.tensor(idx), lib.tensor(src)) for lib in (cygrad, torch)]
    cases.append(("index_add_  (1000, 64) dim 0, 1536 indices",
                  lambda: xs[0].index_add_(0, *args[0]), lambda: xs[1].index_add_(0, *args[1])))
    for d in (0, 1):
        idx = rng.integers(0, (512, 64)[d], (512, 64))
        src = rng.standard_normal((512, 64)).astype(np.float32)
        ts = [lib.zeros(512, 64) for lib in (cygrad, torch)]
        a = [(lib.tensor(idx), lib.tensor(src)) for lib in (cygrad, torch)]
        cases.append((f"scatter_add_  (512, 64) dim {d}",
                      (lambda t=ts[0], a=a[0], d=d: t.scatter_add_(d, *a)),
                      (lambda t=ts[1], a=a[1], d=d: t.scatter_add_(d, *a))))
    cy, th = _index_backward_case(cygrad, torch, rng, 1000, 64, 1536)
    cases.append(("x[idx] backward  (1000, 64), 1536 indices", cy, th))
    cy, th = _embedding_case(cygrad, torch, rng, 5000, 256, (4096,))
    cases.append(("embedding backward  V=5000 D=256 idx (4096,)", cy, th))
    return cases


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--quick", action="store_true", help="fewer rounds")
    parser.add_argument("--threads", type=int, default=None,
                        help="cygrad.set_num_threads first (default: cygrad's own count)")
    parser.add_argument("--cpu-time", action="store_true",
                        help="time by the process's CPU time, not the wall clock: steadier on "
                             "a loaded machine, meaningful with --threads 1 only")
    args = parser.parse_args(argv)
    import cygrad
    import torch
    if args.threads:
        cygrad.set_num_threads(args.threads)
    torch.set_num_threads(cygrad.get_num_threads())
    rounds = 5 if args.quick else 21
    clock = time.process_time if args.cpu_time else time.perf_counter
    print(f"threads: {cygrad.get_num_threads()} (both libraries); median of {rounds} "
          f"alternating rounds; {'CPU' if args.cpu_time else 'wall-clock'} time per call")
    print(f"{'case':48s} {'cygrad':>11s} {'torch':>11s} {'ratio':>7s}")
    for name, cy, th in make_cases(args.quick):
        cy(), th()
        reps = max(1, int(0.005 / max(_per_call(cy, 3), _per_call(th, 3), 1e-7)))
        a, b = [], []
        for _ in range(rounds):
            a.append(_per_call(cy, reps, clock))
            b.append(_per_call(th, reps, clock))
        ca, tb = statistics.median(a), statistics.median(b)
        print(f"{name:48s} {ca * 1e6:8.1f} us {tb * 1e6:8.1f} us {ca / tb:7.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
