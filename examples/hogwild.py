"""Hogwild!: several processes train one model at once, without locks.

The model's parameters are moved to shared memory (``model.share_memory()``); each
worker process is forked with the same model object, so its parameters are the same
memory. Every worker runs its own SGD loop on its own random mini-batches and writes
its updates straight into the shared parameters; the others see them at once. The
updates race, and for sparse-enough problems that does no harm (Recht et al., 2011).

The task is a linear regression y = x @ w_true + b_true + noise; after training the
shared model's weights are close to w_true in the parent process, which never ran a
single step itself.

    python examples/hogwild.py --processes 4 --steps 300
"""
import argparse
import time

import cygrad
import cygrad.multiprocessing as mp
from cygrad import nn, optim

FEATURES = 8


def make_data(n, seed=0):
    g = cygrad.Generator().manual_seed(seed)
    w_true = cygrad.randn(FEATURES, generator=g)
    b_true = 0.5
    x = cygrad.randn(n, FEATURES, generator=g)
    y = x @ w_true + b_true + 0.01 * cygrad.randn(n, generator=g)
    return x, y.unsqueeze(1), w_true, b_true


def train(rank, model, x, y, steps, lr, batch_size):
    """One Hogwild worker: plain SGD on its own mini-batches, writing into shared memory."""
    cygrad.manual_seed(1000 + rank)
    opt = optim.SGD(model.parameters(), lr=lr)
    for _ in range(steps):
        idx = cygrad.randint(0, x.shape[0], (batch_size,))
        loss = ((model(x[idx]) - y[idx]) ** 2).mean()
        opt.zero_grad()
        loss.backward()
        opt.step()


def main(processes=4, steps=300, lr=0.05, batch_size=32):
    """Train with ``processes`` Hogwild workers; returns the learned and true weights."""
    x, y, w_true, b_true = make_data(2048)
    model = nn.Linear(FEATURES, 1)
    model.share_memory()
    # fork: the children get this very model object (its parameters in shared memory),
    # the data copy-on-write, and nothing has to be pickled.
    ctx = mp.get_context("fork")
    workers = [ctx.Process(target=train, args=(rank, model, x, y, steps, lr, batch_size))
               for rank in range(processes)]
    for p in workers:
        p.start()
    for p in workers:
        p.join()
        if p.exitcode != 0:
            raise RuntimeError(f"worker {p.pid} failed with exit code {p.exitcode}")
    return model.weight[0], model.bias[0], w_true, b_true


if __name__ == "__main__":
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--processes", type=int, default=4)
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    start = time.perf_counter()
    w, b, w_true, b_true = main(args.processes, args.steps)
    err = (w - w_true).abs().max().item()
    print(f"{args.processes} processes x {args.steps} steps in {time.perf_counter() - start:.2f} s")
    print(f"max |w - w_true| = {err:.4f}, b = {b.item():.4f} (true {b_true})")
