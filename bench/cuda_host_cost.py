"""Host (CPU) cost of cygrad's CUDA ops with the kernel launches stubbed out.

Small models on a GPU are launch-bound: what limits them is the Python and C work
on the host between two kernel launches, not the GPU. This script measures that
work without a GPU: it installs cygrad's PyCUDA driver (the code path that runs
on a real GPU) over the recording stand-in for ``pycuda`` that the tests use
(``tests/cuda/fake_pycuda.py``, whose ``_launch_kernel`` only records the call)
and a stand-in ``nvcc`` (``tests/cuda/fake_nvcc.py``), so every op goes through
the dispatcher, the launch helpers, the caching allocator and the driver's
argument packing, and stops where ``cuLaunchKernel`` would be called. Nothing is
computed: the figures are host CPU time only, never GPU time.

For each case it reports the CPU time (``time.process_time``, the minimum over
repeats of the mean over a loop) per call, the kernel launches per call, and the
same code on CPU tensors for comparison. Cases: a 100-element float32 ``add``,
``relu`` and ``sum``; a 128x784 @ 784x256 ``matmul``; one training step of the
MLP 784-256-128-10 b128 (forward, MSE, backward, SGD ``step``, ``zero_grad``)
and of the small CNN b64 of ``bench/models.py`` (cross entropy, Adam).

Run from the repository root: ``python bench/cuda_host_cost.py [--repeat 7]
[--profile CASE]``; ``--profile add`` prints cProfile's top functions of one case
instead of the table.

Examples
--------
>>> fmt_us(12.345e-6)
'12.3'
>>> fmt_us(None)
'-'
"""
import argparse
import contextlib
import os
import pathlib
import sys
import tempfile
import time

import numpy as np

HERE = pathlib.Path(__file__).resolve().parent
ROOT = HERE.parent
for p in (str(ROOT), str(HERE), str(ROOT / "tests" / "cuda")):
    if p not in sys.path:
        sys.path.insert(0, p)

import cygrad  # noqa: E402

TITLE = "cygrad CUDA ops: host cost, launches stubbed (CPU time per call, no GPU work)"


def fmt_us(seconds):
    """Seconds as microseconds with one decimal, or '-'.

    Examples
    --------
    >>> fmt_us(1e-6)
    '1.0'
    """
    return "-" if seconds is None else f"{seconds * 1e6:.1f}"


class _Patch:
    """The part of pytest's monkeypatch that fake_pycuda.install uses, undone on exit."""

    def __init__(self):
        self._undo = []

    def setitem(self, mapping, key, value):
        self._undo.append((mapping, key, mapping.get(key, _Patch)))
        mapping[key] = value

    def undo(self):
        for mapping, key, old in reversed(self._undo):
            if old is _Patch:
                mapping.pop(key, None)
            else:
                mapping[key] = old


def _zero_read(dst, src, stream=None):
    np.asarray(dst).reshape(-1).view(np.uint8)[:] = 0


@contextlib.contextmanager
def stubbed_gpu():
    """cygrad's PyCUDA driver over the recording fake ``pycuda`` and a fake ``nvcc``;
    yields the fake ``pycuda.driver`` module (its ``calls`` list records launches)."""
    import fake_pycuda
    from cygrad import cuda
    from cygrad.cuda import _driver, _runtime
    from cygrad.cuda._driver.pycuda_driver import PyCudaDriver
    patch = _Patch()
    saved_env = {k: os.environ.get(k) for k in ("PATH", "FAKE_NVCC_LOG", "CYGRAD_CACHE_DIR")}
    saved_driver = _driver._driver
    with tempfile.TemporaryDirectory() as tmp:
        nvcc = pathlib.Path(tmp, "nvcc")
        nvcc.write_text(f'#!/bin/sh\nexec "{sys.executable}" '
                        f'"{ROOT / "tests" / "cuda" / "fake_nvcc.py"}" "$@"\n')
        nvcc.chmod(0o755)
        os.environ["PATH"] = f"{tmp}{os.pathsep}{os.environ.get('PATH', '')}"
        os.environ["FAKE_NVCC_LOG"] = str(pathlib.Path(tmp, "nvcc.log"))
        os.environ["CYGRAD_CACHE_DIR"] = str(pathlib.Path(tmp, "cache"))
        fake = fake_pycuda.install(patch, memory=16 << 30, launch_kernel=True)
        # reads from the device (a flag an op checks) give zeros: nothing was computed
        fake.memcpy_dtoh = fake.memcpy_dtoh_async = _zero_read
        try:
            _driver._set_driver(PyCudaDriver())
            _runtime._reset()
            cuda._initialized = False
            yield fake
        finally:
            _driver._set_driver(saved_driver)
            _runtime._reset()
            cuda._initialized = False
            patch.undo()
            for k, v in saved_env.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v


# ---- the cases: each builds its inputs on a device and returns a no-argument call

def _case_add(device):
    a = cygrad.randn(100, device=device)
    b = cygrad.randn(100, device=device)
    return lambda: a + b


def _case_relu(device):
    a = cygrad.randn(100, device=device)
    return lambda: cygrad.relu(a)


def _case_sum(device):
    a = cygrad.randn(100, device=device)
    return lambda: a.sum()


def _case_matmul(device):
    a = cygrad.randn(128, 784, device=device)
    b = cygrad.randn(784, 256, device=device)
    return lambda: a @ b


def _mlp(device):
    nn = cygrad.nn
    cygrad.manual_seed(0)
    model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                          nn.Linear(128, 10)).to(device)
    opt = cygrad.optim.SGD(model.parameters(), lr=0.01)
    rng = np.random.default_rng(0)
    x = cygrad.tensor(rng.standard_normal((128, 784)).astype(np.float32), device=device)
    y = cygrad.tensor(rng.standard_normal((128, 10)).astype(np.float32), device=device)

    def step():
        loss = cygrad.nn.functional.mse_loss(model(x), y)
        loss.backward()
        opt.step()
        opt.zero_grad()
    return step


def _cnn(device):
    import models
    work = models.build("cnn", cygrad, seed=0, device=device)
    return work.step


CASES = (("add", "add, 100 float32", _case_add), ("relu", "relu, 100 float32", _case_relu),
         ("sum", "sum, 100 float32", _case_sum),
         ("matmul", "matmul 128x784 @ 784x256", _case_matmul),
         ("mlp", "MLP 784-256-128-10 b128 SGD step", _mlp),
         ("cnn", "small CNN b64 Adam step", _cnn))


def _time(fn, repeat, budget=0.05):
    """Min over ``repeat`` rounds of the CPU time per call (loop sized to ``budget`` s)."""
    for _ in range(3):
        fn()
    loops, t0 = 0, time.process_time()
    while time.process_time() - t0 < budget / 5:
        fn()
        loops += 1
    loops = max(1, loops * 5)
    best = None
    for _ in range(repeat):
        t0 = time.process_time()
        for _ in range(loops):
            fn()
        t = (time.process_time() - t0) / loops
        best = t if best is None else min(best, t)
    return best


def _launches(fake, fn):
    """Kernel launches of one call of ``fn`` on the stubbed GPU."""
    fn()
    del fake.calls[:]
    fn()
    n = sum(1 for c in fake.calls if c[0] in ("Function._launch_kernel", "Function.__call__"))
    del fake.calls[:]
    return n


def _skipped(e):
    return f"skipped ({type(e).__name__}: {str(e).splitlines()[0][:70]})"


def run(repeat, write=print):
    """Print the table (see the module docstring)."""
    import platform
    write(TITLE)
    write(f"  python {platform.python_version()}, {_cpu_name()}; min of {repeat} rounds")
    write(f"  {'case':<34}{'cuda us':>10}{'launches':>10}{'cpu us':>10}")
    rows = {}
    for key, label, make in CASES:
        cpu = None
        try:
            cpu = _time(make("cpu"), repeat)
        except Exception as e:      # a case CPU tensors cannot run: say so
            write(f"  {label:<34} cpu {_skipped(e)}")
        rows[key] = [label, None, None, cpu]
    with stubbed_gpu() as fake:
        for key, label, make in CASES:
            try:
                fn = make("cuda")
                rows[key][2] = _launches(fake, fn)
                rows[key][1] = _time(lambda: (fn(), fake.calls.clear()), repeat)
            except Exception as e:
                write(f"  {label:<34} cuda {_skipped(e)}")
    for label, t_cuda, launches, t_cpu in rows.values():
        write(f"  {label:<34}{fmt_us(t_cuda):>10}{'-' if launches is None else launches:>10}"
              f"{fmt_us(t_cpu):>10}")
    return rows


def _cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or "unknown CPU"


def profile(case, seconds=2.0, top=30):
    """cProfile's top functions (by internal time) of ``case`` on the stubbed GPU."""
    import cProfile
    import pstats
    make = {key: mk for key, _, mk in CASES}[case]
    with stubbed_gpu() as fake:
        fn = make("cuda")
        for _ in range(3):
            fn()
        prof = cProfile.Profile()
        t0 = time.process_time()
        prof.enable()
        while time.process_time() - t0 < seconds:
            fn()
            fake.calls.clear()
        prof.disable()
    pstats.Stats(prof).sort_stats("tottime").print_stats(top)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repeat", type=int, default=7)
    parser.add_argument("--profile", choices=[c[0] for c in CASES])
    args = parser.parse_args(argv)
    if args.profile:
        profile(args.profile)
    else:
        run(args.repeat)


if __name__ == "__main__":
    main()
