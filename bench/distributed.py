"""Data-parallel training and all_reduce: cygrad.distributed against PyTorch DDP (gloo)
and against mpi4py itself, in the same run.

Usage::

    pip install -e ".[distributed,bench]"
    python bench/distributed.py              # 1 and 2 ranks (about a minute)
    python bench/distributed.py --ranks 1 2 4 --steps 30

The driver starts the job itself (``python -m cygrad.distributed.run -n N``) for each
rank count. Every rank runs one thread (cygrad and PyTorch), and trains, in turns,
the same model with cygrad's DistributedDataParallel and with PyTorch's over gloo
(connected on 127.0.0.1), each rank on its own batch of the bench's size (weak
scaling: the global batch grows with the ranks). Printed per model: the median step
time of each library, their ratio, and the scaling efficiency ``t(1 rank) / t(N
ranks)``. Then all_reduce of float32 tensors from 1 KiB to 64 MiB: cygrad (with its
cross-rank check, and without it), mpi4py's own buffer ``Allreduce`` on the same
memory (the floor cygrad's overhead is measured against) and PyTorch's gloo, as
time per call and algorithm bandwidth (bytes / time). Results go to
``bench/results/distributed.json``.
"""
import argparse
import json
import os
import statistics
import subprocess
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
RESULTS = os.path.join(HERE, "results", "distributed.json")
SIZES = [1 << 10, 16 << 10, 256 << 10, 4 << 20, 64 << 20]


def cpu_name():
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    import platform
    return platform.processor() or platform.machine()


if HERE not in sys.path:
    sys.path.insert(0, HERE)
from cases import cnn, mlp  # noqa: E402  (the same models as bench/run.py's training cases)


# ---------------------------------------------------------------- worker (one rank)

MODELS = {
    "MLP 784-256-128-10 b128/rank SGD": (mlp, (128, 784), lambda T, ps: T.optim.SGD(ps, lr=0.01, momentum=0.9)),
    "CNN c16-c32-fc 1x28x28 b64/rank Adam": (cnn, (64, 1, 28, 28), lambda T, ps: T.optim.Adam(ps, lr=1e-3)),
}


def _step_fn(T, ddp_cls, build, shape, make_opt, rank, np):
    T.manual_seed(0)
    model = ddp_cls(build(T))
    opt = make_opt(T, model.parameters())
    rng = np.random.default_rng(rank)
    x = T.from_numpy(rng.random(shape, dtype=np.float32))
    y = T.from_numpy(rng.integers(0, 10, shape[0]).astype(np.int64))
    loss_fn = T.nn.CrossEntropyLoss()

    def step():
        opt.zero_grad()
        loss_fn(model(x), y).backward()
        opt.step()
    return step


def _median_time(fn, steps, barrier):
    times = []
    for _ in range(steps):
        barrier()
        t0 = time.perf_counter()
        fn()
        times.append(time.perf_counter() - t0)
    return times


def worker(steps, rounds):
    import numpy as np
    import torch
    import torch.distributed as tdist
    from mpi4py import MPI

    import cygrad
    import cygrad.distributed as dist
    from cygrad.distributed import _consistency

    cygrad.set_num_threads(1)
    torch.set_num_threads(1)
    dist.init_process_group("mpi")
    rank, size = dist.get_rank(), dist.get_world_size()
    port = [0]
    if rank == 0:
        import socket
        with socket.socket() as s:
            s.bind(("127.0.0.1", 0))
            port = [s.getsockname()[1]]
    dist.broadcast_object_list(port, src=0)
    tdist.init_process_group("gloo", init_method=f"tcp://127.0.0.1:{port[0]}", rank=rank,
                             world_size=size)
    results = {"ranks": size, "models": {}, "all_reduce": {}}

    for name, (build, shape, make_opt) in MODELS.items():
        steps_fns = {
            "cygrad": (_step_fn(cygrad, cygrad.nn.parallel.DistributedDataParallel, build, shape,
                                make_opt, rank, np), dist.barrier),
            "torch": (_step_fn(torch, torch.nn.parallel.DistributedDataParallel, build, shape,
                               make_opt, rank, np), tdist.barrier),
        }
        times = {"cygrad": [], "torch": []}
        for lib, (fn, barrier) in steps_fns.items():
            _median_time(fn, 5, barrier)                     # warm-up
        for _ in range(rounds):                              # interleaved, against drift
            for lib, (fn, barrier) in steps_fns.items():
                times[lib] += _median_time(fn, steps, barrier)
        results["models"][name] = {lib: statistics.median(t) for lib, t in times.items()}

    comm = MPI.COMM_WORLD
    for nbytes in SIZES:
        n = nbytes // 4
        reps = max(5, min(500, int(2e8 // max(nbytes, 1))))
        a = np.ones(n, np.float32)
        t_cy = cygrad.from_numpy(a)
        t_torch = torch.ones(n)
        cases = {
            "cygrad": lambda: dist.all_reduce(t_cy),
            "cygrad (no check)": lambda: dist.all_reduce(t_cy),
            "mpi4py Allreduce": lambda: comm.Allreduce(MPI.IN_PLACE, a),
            "torch gloo": lambda: tdist.all_reduce(t_torch),
        }
        row = {}
        for label, fn in cases.items():
            _consistency.ENABLED = label != "cygrad (no check)"
            for _ in range(3):
                fn()
            comm.Barrier()
            t0 = time.perf_counter()
            for _ in range(reps):
                fn()
            elapsed = (time.perf_counter() - t0) / reps
            row[label] = max(comm.allgather(elapsed))       # the slowest rank's time
        _consistency.ENABLED = True
        results["all_reduce"][nbytes] = row
    tdist.destroy_process_group()
    dist.destroy_process_group()
    if rank == 0:
        print("RESULT " + json.dumps(results), flush=True)


# ---------------------------------------------------------------- driver
def _fmt_time(s):
    return f"{s * 1e6:.1f} µs" if s < 1e-3 else f"{s * 1e3:.2f} ms"


def _fmt_bytes(n):
    return f"{n >> 20} MiB" if n >= 1 << 20 else f"{n >> 10} KiB"


def report(runs, write=print):
    ranks = sorted(runs)
    write("\nTraining step (median per step; each rank its own batch, 1 thread per rank)")
    write(f"{'model':40s} {'ranks':>5s} {'cygrad':>10s} {'torch':>10s} {'ratio':>7s} "
          f"{'cygrad eff':>10s} {'torch eff':>9s}")
    for name in MODELS:
        base = runs[ranks[0]]["models"][name]
        for n in ranks:
            m = runs[n]["models"][name]
            eff = {lib: base[lib] / m[lib] for lib in m}
            write(f"{name:40s} {n:5d} {_fmt_time(m['cygrad']):>10s} {_fmt_time(m['torch']):>10s} "
                  f"{m['cygrad'] / m['torch']:6.2f}x {eff['cygrad']:9.0%} {eff['torch']:9.0%}")
    for n in ranks:
        if n < 2:
            continue
        write(f"\nall_reduce of float32 on {n} ranks (time per call, algorithm bandwidth)")
        labels = list(next(iter(runs[n]["all_reduce"].values())))
        write(f"{'size':>8s} " + " ".join(f"{lab:>24s}" for lab in labels) + "  cygrad/mpi4py")
        for nbytes, row in runs[n]["all_reduce"].items():
            nbytes = int(nbytes)
            cells = [f"{_fmt_time(row[lab])} {nbytes / row[lab] / 1e9:6.2f} GB/s" for lab in labels]
            write(f"{_fmt_bytes(nbytes):>8s} " + " ".join(f"{c:>24s}" for c in cells) +
                  f"  {row['cygrad'] / row['mpi4py Allreduce']:6.2f}x")


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--ranks", type=int, nargs="+", default=[1, 2])
    p.add_argument("--steps", type=int, default=20, help="timed steps per round")
    p.add_argument("--rounds", type=int, default=3, help="interleaved rounds per library")
    p.add_argument("--worker", action="store_true", help=argparse.SUPPRESS)
    args = p.parse_args(argv)
    if args.worker:
        worker(args.steps, args.rounds)
        return 0
    try:
        import torch  # noqa: F401
        import mpi4py  # noqa: F401
    except ImportError as e:
        print(f"bench/distributed.py needs PyTorch and mpi4py: pip install -e \".[distributed,bench]\" ({e})")
        return 1
    print(f"machine: {cpu_name()}, {os.cpu_count()} cores")
    runs = {}
    for n in args.ranks:
        env = dict(os.environ, CYGRAD_NUM_THREADS="1", OMP_NUM_THREADS="1")
        proc = subprocess.run([sys.executable, "-m", "cygrad.distributed.run", "-n", str(n),
                               os.path.abspath(__file__), "--worker", "--steps", str(args.steps),
                               "--rounds", str(args.rounds)], capture_output=True, text=True,
                              env=env)
        line = next((ln for ln in proc.stdout.splitlines() if ln.startswith("RESULT ")), None)
        if proc.returncode != 0 or line is None:
            print(proc.stdout[-3000:], proc.stderr[-3000:])
            return 1
        runs[n] = json.loads(line[len("RESULT "):])
        print(f"ran {n} rank(s)")
    report(runs)
    os.makedirs(os.path.dirname(RESULTS), exist_ok=True)
    with open(RESULTS, "w") as f:
        json.dump({"cpu": cpu_name(), "runs": runs}, f, indent=1)
    print(f"\nwritten to {os.path.relpath(RESULTS)}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
