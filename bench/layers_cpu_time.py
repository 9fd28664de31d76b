"""conv2d, max_pool2d and the recurrent layers against PyTorch, forward + backward,
timed so that a loaded machine distorts the ratio as little as possible.

Both libraries run in this process on the same thread count, their calls
interleaved (cygrad, torch, cygrad, ...), and each side's median is reported.
With one thread (the default) the timer is the calling thread's CPU time
(``time.thread_time``): both libraries then compute on the calling thread, and
time spent waiting for a core that other processes hold is not counted. With
more threads the timer is the wall clock, which such waits do distort.

For the convolutions a third column times PyTorch with oneDNN switched off
(``torch.backends.mkldnn.flags(enabled=False)``: its own im2col + GEMM path),
which shows what oneDNN's convolutions are worth on this machine.

Usage::

    python bench/layers_cpu_time.py             # one thread, thread CPU time
    python bench/layers_cpu_time.py --threads 2 # wall clock
    python bench/layers_cpu_time.py -k lstm     # only cases whose name contains "lstm"
"""
import argparse
import statistics
import time

import numpy as np


def _cases(cygrad, torch):
    cF, tF = cygrad.nn.functional, torch.nn.functional
    rng = np.random.default_rng(0)

    def pair(shape):
        a = rng.standard_normal(shape).astype(np.float32)
        return cygrad.tensor(a, requires_grad=True), torch.tensor(a, requires_grad=True)

    def conv(n, ci, co, size, pad):
        (xc, xt), (wc, wt), (bc, bt) = pair((n, ci, size, size)), pair((co, ci, 3, 3)), pair((co,))
        return (lambda: cF.conv2d(xc, wc, bc, padding=pad).sum().backward(),
                lambda: tF.conv2d(xt, wt, bt, padding=pad).sum().backward())

    def pool():
        xc, xt = pair((32, 32, 32, 32))
        return (lambda: cF.max_pool2d(xc, 2).sum().backward(),
                lambda: tF.max_pool2d(xt, 2).sum().backward())

    def recurrent(kind, inputs, hidden):
        mc, mt = getattr(cygrad.nn, kind)(inputs, hidden), getattr(torch.nn, kind)(inputs, hidden)
        with torch.no_grad():
            for name, p in mt.named_parameters():
                p.copy_(torch.from_numpy(getattr(mc, name).detach().numpy().copy()))
        xc, xt = pair((32, 32, inputs))
        return (lambda: mc(xc)[0].sum().backward(), lambda: mt(xt)[0].sum().backward())

    return [("conv2d N32 16->32 32x32 k3 pad 1", lambda: conv(32, 16, 32, 32, 1), True),
            ("conv2d N64 3->16 28x28 k3", lambda: conv(64, 3, 16, 28, 0), True),
            ("max_pool2d 2x2 (32, 32, 32, 32)", pool, False),
            ("LSTM(128, 128) seq 32 batch 32", lambda: recurrent("LSTM", 128, 128), False),
            ("GRU(128, 128) seq 32 batch 32", lambda: recurrent("GRU", 128, 128), False),
            ("RNN(65, 128) tanh seq 32 batch 32", lambda: recurrent("RNN", 65, 128), False)]


def _median_pair(fns, clock, reps):
    for f in fns:
        f()
    times = [[] for _ in fns]
    for _ in range(reps):
        for f, acc in zip(fns, times):
            t0 = clock()
            f()
            acc.append(clock() - t0)
    return [statistics.median(t) * 1e3 for t in times]


def main(argv=None):
    """Print one row per case: milliseconds per call and the cygrad/torch ratio.

    Examples
    --------
    >>> callable(main)
    True
    """
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--threads", type=int, default=1)
    p.add_argument("--reps", type=int, default=21)
    p.add_argument("-k", "--filter", default="")
    args = p.parse_args(argv)
    import torch

    import cygrad
    cygrad.set_num_threads(args.threads)
    torch.set_num_threads(args.threads)
    clock = time.thread_time if args.threads == 1 else time.perf_counter
    print(f"{args.threads} thread(s), timer: "
          f"{'thread CPU time' if args.threads == 1 else 'wall clock'}, median of {args.reps}")
    print(f"{'case (forward + backward)':36s} {'cygrad':>9s} {'torch':>9s} {'ratio':>6s}"
          f" {'torch w/o oneDNN':>17s}")
    for name, make, conv in _cases(cygrad, torch):
        if args.filter.lower() not in name.lower():
            continue
        fc, ft = make()
        fns = [fc, ft]
        if conv:
            def no_onednn(ft=ft):
                with torch.backends.mkldnn.flags(enabled=False):
                    ft()
            fns.append(no_onednn)
        ms = _median_pair(fns, clock, args.reps)
        extra = f" {ms[2]:14.2f} ms" if conv else ""
        print(f"{name:36s} {ms[0]:6.2f} ms {ms[1]:6.2f} ms {ms[0] / ms[1]:5.2f}x{extra}",
              flush=True)


if __name__ == "__main__":
    main()
