"""``optimizer.step()`` time, cygrad against PyTorch, on three parameter sets.

- ``gpt``: the ~50 parameter tensors of a 4-layer, 64-wide GPT-style transformer
  (vocabulary 256, context 128), AdamW;
- ``mlp``: the 10 tensors of a 5-layer MLP (512-1024-1024-1024-512-1000), SGD
  with momentum 0.9;
- ``big``: one 10M-element parameter, Adam.

Each library gets the same float32 parameters and gradients (the gradients stay
fixed, so only the step is timed). cygrad runs its default (fused kernel) and
``foreach=False`` (the per-parameter for-loop it had before the kernel);
PyTorch runs its CPU default (the for-loop) and ``fused=True``. Repetitions are
interleaved (cygrad, torch, cygrad, torch, ...) and the median of each is
reported; both libraries use cygrad's thread count.

Run from the repository root: ``python bench/optim_step.py [--repeat 15]`` (the
cygrad of the checkout it lives in comes first on ``sys.path``).

Examples
--------
>>> from optim_step import shapes
>>> len(shapes("gpt")), len(shapes("mlp")), shapes("big")
(53, 10, [(10000000,)])
"""
import argparse
import os
import statistics
import sys
import time

import numpy as np


def shapes(kind):
    """The parameter shapes of one benchmark set.

    Examples
    --------
    >>> from optim_step import shapes
    >>> shapes("mlp")[:2]
    [(1024, 512), (1024,)]
    """
    if kind == "gpt":
        d, vocab, ctx = 64, 256, 128
        out = [(vocab, d), (ctx, d)]
        for _ in range(4):
            out += [(d,), (d,), (3 * d, d), (3 * d,), (d, d), (d,),
                    (d,), (d,), (4 * d, d), (4 * d,), (d, 4 * d), (d,)]
        return out + [(d,), (d,), (vocab, d)]
    if kind == "mlp":
        widths = [512, 1024, 1024, 1024, 512, 1000]
        out = []
        for i, o in zip(widths, widths[1:]):
            out += [(o, i), (o,)]
        return out
    if kind == "big":
        return [(10_000_000,)]
    raise ValueError(kind)


CASES = {
    "gpt": ("AdamW", dict(lr=1e-3, weight_decay=0.1)),
    "mlp": ("SGD", dict(lr=0.01, momentum=0.9)),
    "big": ("Adam", dict(lr=1e-3)),
}


def _params(lib, arrays, grads):
    ps = []
    for a, g in zip(arrays, grads):
        p = lib.tensor(a.copy(), requires_grad=True)
        p.grad = lib.tensor(g.copy())
        ps.append(p)
    return ps


def _time_steps(opt, n):
    t0 = time.perf_counter()
    for _ in range(n):
        opt.step()
    return (time.perf_counter() - t0) / n


def run(kind, repeat, variants):
    """Median seconds per step of each variant, interleaved."""
    rng = np.random.default_rng(0)
    arrays = [rng.standard_normal(s).astype(np.float32) for s in shapes(kind)]
    grads = [rng.standard_normal(s).astype(np.float32) for s in shapes(kind)]
    name, kw = CASES[kind]
    opts = {}
    for label, (lib, extra) in variants.items():
        opts[label] = getattr(lib.optim, name)(_params(lib, arrays, grads), **kw, **extra)
    numel = sum(a.size for a in arrays)
    n = max(1, int(2_000_000 // numel))          # steps per timing: ~a few ms at least
    for opt in opts.values():
        _time_steps(opt, 2)                      # state allocation, warm caches
    times = {label: [] for label in opts}
    for _ in range(repeat):
        for label, opt in opts.items():
            times[label].append(_time_steps(opt, n))
    return {label: statistics.median(ts) for label, ts in times.items()}


def main(argv=None):
    root = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if root not in sys.path:
        sys.path.insert(0, root)
    import cygrad
    import torch
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--repeat", type=int, default=15)
    parser.add_argument("--cases", default="gpt,mlp,big")
    args = parser.parse_args(argv)
    torch.set_num_threads(cygrad.get_num_threads())
    print(f"cygrad from {os.path.dirname(cygrad.__file__)}, torch {torch.__version__}, "
          f"threads: {cygrad.get_num_threads()} for both")
    variants = {
        "cygrad default (fused)": (cygrad, {}),
        "cygrad foreach=False (before)": (cygrad, {"foreach": False}),
        "torch default (for-loop)": (torch, {}),
        "torch fused=True": (torch, {"fused": True}),
    }
    for kind in args.cases.split(","):
        res = run(kind, args.repeat, variants)
        base = res["torch default (for-loop)"]
        print(f"\n{kind}: {CASES[kind][0]}, {len(shapes(kind))} tensors, "
              f"{sum(int(np.prod(s)) for s in shapes(kind)):,} elements")
        for label, t in res.items():
            print(f"  {label:<31} {t * 1e3:9.3f} ms   {t / base:6.2f}x torch default")


if __name__ == "__main__":
    main()
