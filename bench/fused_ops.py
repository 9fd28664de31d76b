"""Per-call time of the transformer's fused ops against PyTorch, forward and
forward + backward, at the shapes of the char GPT of issue 16 (4 layers, 4 heads,
64 wide, block 32, batch 32).

Both libraries run in this process on the same thread count, with repetitions
interleaved (cygrad, torch, cygrad, torch ...); each figure is the median over
the repetitions of the mean time of a batch of calls. Run from the repository
root (``python bench/fused_ops.py``); ``--reps`` and ``--calls`` set the sizes.

Examples
--------
>>> import fused_ops
>>> sorted(fused_ops.CASES)[:2]
['cross_entropy (1024, 65)', 'gelu (32, 32, 256)']
"""
import argparse
import statistics
import time

import numpy as np


def _causal_masked(rng):
    x = rng.standard_normal((32, 4, 32, 32)).astype(np.float32)
    x[..., np.triu(np.ones((32, 32), bool), 1)] = -np.inf
    return x


def _cases():
    import cygrad
    import cygrad.nn.functional as F
    import torch
    import torch.nn.functional as TF

    rng = np.random.default_rng(0)
    f32 = np.float32
    data = {
        "softmax (32, 4, 32, 32)": ([rng.standard_normal((32, 4, 32, 32)).astype(f32)],
                                    lambda x: cygrad.softmax(x, -1), lambda x: torch.softmax(x, -1)),
        # minGPT's attention: masked_fill(-inf) above the diagonal, then softmax
        "softmax causal-masked (32, 4, 32, 32)": ([_causal_masked(rng)],
                                                  lambda x: cygrad.softmax(x, -1),
                                                  lambda x: torch.softmax(x, -1)),
        "log_softmax (32, 4, 32, 32)": ([rng.standard_normal((32, 4, 32, 32)).astype(f32)],
                                        lambda x: cygrad.log_softmax(x, -1),
                                        lambda x: torch.log_softmax(x, -1)),
        "cross_entropy (1024, 65)": ([rng.standard_normal((1024, 65)).astype(f32),
                                      rng.integers(0, 65, 1024)],
                                     F.cross_entropy, TF.cross_entropy),
        "layer_norm (32, 32, 64)": ([rng.standard_normal((32, 32, 64)).astype(f32),
                                     rng.standard_normal(64).astype(f32),
                                     rng.standard_normal(64).astype(f32)],
                                    lambda x, w, b: F.layer_norm(x, (64,), w, b),
                                    lambda x, w, b: TF.layer_norm(x, (64,), w, b)),
        "gelu (32, 32, 256)": ([rng.standard_normal((32, 32, 256)).astype(f32)], F.gelu, TF.gelu),
        "sdpa causal (32, 4, 32, 16)": ([rng.standard_normal((32, 4, 32, 16)).astype(f32)
                                         for _ in range(3)],
                                        lambda q, k, v: F.scaled_dot_product_attention(
                                            q, k, v, is_causal=True),
                                        lambda q, k, v: TF.scaled_dot_product_attention(
                                            q, k, v, is_causal=True)),
    }
    return data


CASES = ("softmax (32, 4, 32, 32)", "softmax causal-masked (32, 4, 32, 32)",
         "log_softmax (32, 4, 32, 32)", "cross_entropy (1024, 65)", "layer_norm (32, 32, 64)", "gelu (32, 32, 256)", "sdpa causal (32, 4, 32, 16)")


def _inputs(lib, arrays, grad):
    out = []
    for a in arrays:
        t = lib.tensor(a)
        if grad and a.dtype.kind == "f":
            t.requires_grad_(True)
        out.append(t)
    return out


def _timer(fn, args, backward, calls):
    def run():
        start = time.perf_counter()
        for _ in range(calls):
            y = fn(*args)
            if backward:
                y.sum().backward()
        return (time.perf_counter() - start) / calls
    return run


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--reps", type=int, default=15)
    p.add_argument("--calls", type=int, default=20)
    args = p.parse_args(argv)
    import cygrad
    import torch
    torch.set_num_threads(cygrad.get_num_threads())
    print(f"cygrad {cygrad.__file__}, threads {cygrad.get_num_threads()} (torch: "
          f"{torch.get_num_threads()}); median of {args.reps} interleaved reps of "
          f"{args.calls} calls")
    print(f"{'op':38s} {'mode':8s} {'cygrad us':>10s} {'torch us':>10s} {'ratio':>7s}")
    cases = _cases()
    for name in CASES:
        arrays, cy_fn, th_fn = cases[name]
        for backward in (False, True):
            runs = [_timer(cy_fn, _inputs(cygrad, arrays, backward), backward, args.calls),
                    _timer(th_fn, _inputs(torch, arrays, backward), backward, args.calls)]
            for r in runs:          # warm up
                r()
            times = ([], [])
            for _ in range(args.reps):
                for i, r in enumerate(runs):
                    times[i].append(r())
            c, t = (statistics.median(x) * 1e6 for x in times)
            print(f"{name:38s} {'fwd+bwd' if backward else 'fwd':8s} {c:10.1f} {t:10.1f} "
                  f"{c / t:7.2f}")


if __name__ == "__main__":
    main()
