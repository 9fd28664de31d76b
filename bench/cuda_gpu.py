"""cygrad's CUDA backend on a GPU, against PyTorch (cuBLAS, cuDNN) on the same GPU.

Run from the repository root: ``python bench/cuda_gpu.py``. Without a GPU that
cygrad can use (PyCUDA, the NVIDIA driver and a device) it prints ``no CUDA
device`` with the reason and exits 0. ``--emulate`` runs the same cases on the
emulated GPU (the CPU) at small sizes and labels every line "emulator (CPU), not
GPU speed": that checks the script, it measures nothing about GPUs (the
emulator's own throughput is ``bench/cuda_emulator.py``'s).

Cases (``--cases`` picks some):

=========  ===========================================================================
bandwidth  elementwise ``add`` of float32 vectors in GB/s (bytes read and written),
           against a device-to-device copy (``copy_``) measured the same way
matmul     float32 ``a @ b`` of n x n matrices (n = 1024, 2048, 4096) in TFLOP/s,
           against PyTorch's cuBLAS when ``torch.cuda`` works, else CuPy's, else
           "no reference"
launch     a 100-element ``add`` followed by a synchronize: the cost of one small call
models     median ms per training step (and steps/s) of the same model code on both
           libraries, from the same weights and batch: MLP 784-256-128-10 b128 SGD,
           small CNN b64 Adam, conv2d N32 16->32 32x32 forward + backward,
           LSTM(128, 128) seq 32 b32 SGD, 4-layer 64-wide char transformer b32 T32
           AdamW (``bench/models.py``'s definitions); the ratio is cygrad / PyTorch
first      the CNN's first and second training steps against the later ones, with the
           caching allocator's raw device allocations (``num_device_alloc``) in each
=========  ===========================================================================

Timing: ``synchronize()`` then ``time.perf_counter()`` around each timed round;
medians over rounds. A case that needs an op without a CUDA kernel prints
``skipped: <the NotImplementedError's message>``.

Examples
--------
>>> fmt_ratio(1.0, 2.0)
'0.50x'
>>> fmt_ratio(1.0, None)
'no reference'
"""
import argparse
import math
import os
import statistics
import sys
import time

import numpy as np

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
# the checkout's cygrad first (run as a script, sys.path[0] is bench/, and another
# cygrad may be installed)
ROOT = os.path.dirname(HERE)
if ROOT not in sys.path:
    sys.path.insert(0, ROOT)
import models  # noqa: E402

EMU_LABEL = "emulator (CPU), not GPU speed"
CASES = ("bandwidth", "matmul", "launch", "models", "first")


# ---- the libraries ----------------------------------------------------------------------

class Lib:
    """One library on its device (``"cuda"``): its module, how to synchronize, its name."""

    def __init__(self, name, T, sync, device="cuda"):
        self.name, self.T, self.sync, self.device = name, T, sync, device

    def time(self, fn, rounds=7, inner=1, warmup=2):
        """Median seconds of one ``fn()`` call: ``rounds`` rounds of ``inner`` calls,
        each round between a synchronize and a synchronize."""
        for _ in range(warmup):
            fn()
        self.sync()
        times = []
        for _ in range(rounds):
            t = time.perf_counter()
            for _ in range(inner):
                fn()
            self.sync()
            times.append((time.perf_counter() - t) / inner)
        return statistics.median(times)


def cygrad_lib(emulate):
    """cygrad on 'cuda', or (None, why) when it has no device."""
    import cygrad
    if emulate:
        cygrad.cuda._driver.use_emulator()
    try:
        cygrad.cuda.init()
        if not emulate and cygrad.cuda._driver.get_driver().name == "emulated":
            # (CYGRAD_CUDA=emulate in the environment): never report the CPU as a GPU
            return None, "CYGRAD_CUDA=emulate selects the emulated GPU; run with --emulate for it"
        if cygrad.cuda.device_count() < 1:
            return None, "the driver reports no device"
    except RuntimeError as e:
        return None, str(e)
    return Lib("cygrad", cygrad, cygrad.cuda.synchronize), None


def reference_lib(emulate):
    """PyTorch on 'cuda' when it works there, else None (the emulator has none)."""
    if emulate:
        return None
    try:
        import torch
    except ImportError:
        return None
    if not torch.cuda.is_available():
        return None
    return Lib(f"torch {torch.__version__}", torch, torch.cuda.synchronize)


def cupy_matmul():
    """CuPy's ``a @ b`` timer when CuPy sees a device, else None."""
    try:
        import cupy
        if cupy.cuda.runtime.getDeviceCount() < 1:
            return None
    except Exception:          # noqa: BLE001 - any CuPy failure means no reference
        return None
    return Lib(f"cupy {cupy.__version__}", cupy, lambda: cupy.cuda.Device().synchronize())


def fmt_ratio(mine, ref):
    """``mine / ref`` as '1.23x', or 'no reference'.

    Examples
    --------
    >>> fmt_ratio(3.0, 2.0)
    '1.50x'
    """
    return "no reference" if ref is None else f"{mine / ref:.2f}x"


class Report:
    """Prints lines, each labelled when the run is emulated."""

    def __init__(self, emulate, write=print):
        self.emulate, self.write = emulate, write

    def __call__(self, line=""):
        if self.emulate and line:
            line = f"{line}  [{EMU_LABEL}]"
        self.write(line)

    def skipped(self, what, err):
        self(f"{what}: skipped: {err}")


def _attempt(report, what, fn):
    """fn(); a missing CUDA kernel prints 'skipped: ...' instead."""
    try:
        return fn()
    except NotImplementedError as e:
        report.skipped(what, e)
        return None


# ---- the cases ------------------------------------------------------------------------

def case_bandwidth(cy, ref, report, small):
    n = 1 << (18 if small else 26)
    mib = 4 * n / 2 ** 20
    report(f"bandwidth: float32 vectors of {n} elements ({mib:.0f} MiB each); GB/s counts "
           "bytes read and written")
    for lib in (cy, ref):
        if lib is None:
            continue
        T = lib.T
        a = T.ones(n, device=lib.device)
        b = T.ones(n, device=lib.device)
        c = T.empty(n, device=lib.device)

        def add():
            T.add(a, b, out=c)

        def copy():
            c.copy_(a)
        inner = 2 if small else 20
        t_add = _attempt(report, f"  {lib.name} add", lambda: lib.time(add, inner=inner))
        t_copy = _attempt(report, f"  {lib.name} copy_", lambda: lib.time(copy, inner=inner))
        if t_add is None or t_copy is None:
            continue
        gb_add, gb_copy = 3 * 4 * n / t_add / 1e9, 2 * 4 * n / t_copy / 1e9
        report(f"  {lib.name:<14} add {gb_add:9.1f} GB/s   copy_ {gb_copy:9.1f} GB/s   "
               f"add/copy {gb_add / gb_copy:.2f}")


def case_matmul(cy, ref, report, small):
    sizes = (64, 128) if small else (1024, 2048, 4096)
    other = ref or cupy_matmul()
    ref_name = other.name if other else "no reference"
    if other is not None and other.T.__name__ == "torch":
        # PyTorch's float32 products use TF32 only when allowed (off by default)
        ref_name += f" (allow_tf32={other.T.backends.cuda.matmul.allow_tf32})"
    report(f"matmul: float32 n x n @ n x n, TFLOP/s (2 n^3 flops); reference: {ref_name}")
    rng = np.random.default_rng(0)
    for n in sizes:
        x = rng.standard_normal((n, n)).astype(np.float32)
        times = {}
        for lib in (cy, other):
            if lib is None:
                continue
            T = lib.T
            if T.__name__ == "cupy":
                a, b = T.asarray(x), T.asarray(x)
            else:
                a, b = T.tensor(x, device=lib.device), T.tensor(x, device=lib.device)
            times[lib.name] = _attempt(report, f"  {lib.name} n={n}",
                                       lambda: lib.time(lambda: a @ b, rounds=5,
                                                        inner=1 if small else 10))
        t_cy = times.get(cy.name)
        t_ref = times.get(other.name) if other else None
        if t_cy is None:
            continue
        tf = lambda t: 2 * n ** 3 / t / 1e12      # noqa: E731
        ref_txt = f"{tf(t_ref):.3g} TFLOP/s" if t_ref else "no reference"
        report(f"  n={n:<5} cygrad {tf(t_cy):.3g} TFLOP/s   reference {ref_txt}   "
               f"time ratio cygrad/reference {fmt_ratio(t_cy, t_ref)}")


def case_launch(cy, ref, report, small):
    report("launch: a 100-element float32 add, then synchronize (us per call)")
    results = {}
    for lib in (cy, ref):
        if lib is None:
            continue
        T = lib.T
        a = T.ones(100, device=lib.device)
        b = T.ones(100, device=lib.device)

        def call():
            a + b
            lib.sync()
        results[lib.name] = _attempt(report, f"  {lib.name}",
                                     lambda: lib.time(call, inner=20 if small else 1000))
    t_cy = results.get(cy.name)
    t_ref = results.get(ref.name) if ref else None
    if t_cy is not None:
        ref_txt = f"{t_ref * 1e6:.1f} us" if t_ref else "no reference"
        report(f"  cygrad {t_cy * 1e6:.1f} us   torch {ref_txt}   ratio {fmt_ratio(t_cy, t_ref)}")


def mlp(T):
    """MLP 784-256-128-10 with ReLUs (written once for either library)."""
    nn = T.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def build_mlp(T, weights, device, small, seed=0):
    """MLP 784-256-128-10, batch 128 (8 when small), cross entropy, SGD(lr=0.01)."""
    rng = np.random.default_rng(seed)
    b = 8 if small else 128
    x = rng.standard_normal((b, 784)).astype(np.float32)
    y = rng.integers(0, 10, (b,))
    model = mlp(T)
    model.load_state_dict({k: T.tensor(v) for k, v in weights.items()})
    model.to(device)
    opt = T.optim.SGD(model.parameters(), lr=0.01)
    return models.Workload(T, model, [T.tensor(x, device=device), T.tensor(y, device=device)],
                           models._lm_step(opt))


def _mlp_weights(seed=0):
    try:
        import torch as T
    except ImportError:
        import cygrad as T
    T.manual_seed(seed)
    return {k: v.detach().cpu().numpy().copy() for k, v in mlp(T).state_dict().items()}


MODEL_CASES = (("MLP 784-256-128-10 b128 SGD", "mlp"), ("small CNN b64 Adam", "cnn"),
               ("conv2d N32 16->32 32x32 fwd+bwd", "conv2d"), ("LSTM(128,128) seq32 b32", "lstm"),
               ("char transformer 4x64 b32 T32 AdamW", "transformer"))


def workload(name, lib, small, weights):
    if name == "mlp":
        return build_mlp(lib.T, weights, lib.device, small)
    return models.build(name, lib.T, small=small, seed=0, weights=weights, device=lib.device)


def case_models(cy, ref, report, small):
    report("models: median ms per training step (steps/s); same code, weights and batch"
           + (" (small sizes, not the ones named)" if small else ""))
    report(f"  {'model':<38}{'cygrad ms':>11}{'steps/s':>9}{'torch ms':>11}{'steps/s':>9}"
           f"{'cygrad/torch':>14}")
    for label, name in MODEL_CASES:
        weights = _mlp_weights() if name == "mlp" else models._reference_weights(name, small, 0)
        ms = {}
        for lib in (cy, ref):
            if lib is None:
                continue
            work = _attempt(report, f"  {label} ({lib.name})",
                            lambda: workload(name, lib, small, weights))
            if work is None:
                break
            t = _attempt(report, f"  {label} ({lib.name})",
                         lambda: lib.time(work.step, rounds=3 if small else 30, warmup=2))
            if t is None:
                break
            ms[lib.name] = t * 1e3
        t_cy = ms.get(cy.name)
        if t_cy is None:
            continue
        t_ref = ms.get(ref.name) if ref else None
        ref_txt = f"{t_ref:11.2f}{1e3 / t_ref:9.0f}" if t_ref else f"{'-':>11}{'-':>9}"
        report(f"  {label:<38}{t_cy:11.2f}{1e3 / t_cy:9.0f}{ref_txt}{fmt_ratio(t_cy, t_ref):>14}")


def case_first(cy, ref, report, small):
    import cygrad
    steps = 4 if small else 12
    report(f"first: the small CNN's training steps 1, 2 and 3-{steps} (cygrad): time and the "
           "caching allocator's raw device allocations (num_device_alloc) in each")

    def run():
        weights = models._reference_weights("cnn", small, 0)
        work = workload("cnn", cy, small, weights)
        cygrad.cuda.synchronize()
        cygrad.cuda.empty_cache()      # (the cases before left cached blocks to reuse)
        allocs = [cygrad.cuda.memory_stats().get("num_device_alloc", 0)]
        times = []
        for _ in range(steps):
            t = time.perf_counter()
            work.step()
            cygrad.cuda.synchronize()
            times.append(time.perf_counter() - t)
            allocs.append(cygrad.cuda.memory_stats()["num_device_alloc"])
        new = [b - a for a, b in zip(allocs, allocs[1:])]
        # step 2 still allocates: the optimizer's state, made at the end of step 1,
        # stays alive through it
        report(f"  step 1 {times[0] * 1e3:.2f} ms, {new[0]} raw allocations; "
               f"step 2 {times[1] * 1e3:.2f} ms, {new[1]}; steps 3-{steps} median "
               f"{statistics.median(times[2:]) * 1e3:.2f} ms, {sum(new[2:])} in all")
    _attempt(report, "  first vs later", run)


RUNNERS = {"bandwidth": case_bandwidth, "matmul": case_matmul, "launch": case_launch,
           "models": case_models, "first": case_first}


def main(argv=None, write=print):
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument("--emulate", action="store_true",
                   help="run on the emulated GPU (the CPU), small sizes; not GPU speed")
    p.add_argument("--cases", nargs="+", choices=CASES, default=list(CASES))
    args = p.parse_args(argv)
    report = Report(args.emulate, write)
    cy, why = cygrad_lib(args.emulate)
    if cy is None:
        write(f"no CUDA device ({why})")
        return 0
    import cygrad
    ref = reference_lib(args.emulate)
    report(f"device: {cygrad.cuda.get_device_name()}; reference: "
           f"{ref.name if ref else 'no reference'}")
    small = args.emulate
    for name in args.cases:
        RUNNERS[name](cy, ref, report, small)
    return 0


if __name__ == "__main__":
    sys.exit(main())
