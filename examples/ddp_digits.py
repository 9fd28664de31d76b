"""Data-parallel training of the digits network on several processes (MPI).

The training loop of ``train_digits.py``, made data-parallel the PyTorch way:

* ``dist.init_process_group("mpi")`` joins the processes the launcher started;
* ``DistributedSampler`` gives each rank its own share of every epoch's batches;
* ``DistributedDataParallel`` starts every replica from rank 0's weights and
  averages the gradients over the ranks during ``backward()``, so the optimizer
  steps keep the replicas identical;
* rank 0 saves the checkpoint, every rank loads it back after a barrier, and the
  accuracy is averaged over the ranks with ``all_reduce``.

Run it on two processes (needs ``pip install -e ".[distributed,examples]"``)::

    python -m cygrad.distributed.run -n 2 examples/ddp_digits.py

``--epochs`` and ``--steps`` make it shorter (the tests train a few steps only).
"""
import argparse
import os
import sys
import tempfile

import cygrad as torch  # porting from PyTorch: this line was `import torch`
import cygrad.distributed as dist
from cygrad import nn
from cygrad.nn.parallel import DistributedDataParallel as DDP
from cygrad.utils.data import DataLoader, DistributedSampler

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from train_digits import build_model, load_digits_datasets  # noqa: E402


def main(argv=None):
    p = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    p.add_argument("--epochs", type=int, default=8)
    p.add_argument("--steps", type=int, default=None, help="stop each epoch after this many steps")
    p.add_argument("--checkpoint", default=None, help="where rank 0 saves the model")
    args = p.parse_args(argv)

    dist.init_process_group("mpi")
    rank, world = dist.get_rank(), dist.get_world_size()
    torch.manual_seed(0)
    train, test = load_digits_datasets()
    sampler = DistributedSampler(train, shuffle=True, seed=0)
    loader = DataLoader(train, batch_size=64 // world, sampler=sampler)
    model = DDP(build_model())
    opt = torch.optim.Adam(model.parameters(), lr=3e-3)
    loss_fn = nn.CrossEntropyLoss()

    for epoch in range(args.epochs):
        sampler.set_epoch(epoch)          # a new shuffle each epoch, the same on every rank
        model.train()
        for step, (x, y) in enumerate(loader):
            if args.steps is not None and step >= args.steps:
                break
            opt.zero_grad()
            loss = loss_fn(model(x), y)
            loss.backward()
            opt.step()
        if rank == 0:
            print(f"epoch {epoch + 1}: last loss {loss.item():.4f}", flush=True)

    path = args.checkpoint or os.path.join(tempfile.gettempdir(), "ddp_digits.pt")
    if rank == 0:
        torch.save(model.module.state_dict(), path)
    dist.barrier()                        # the file is complete before anyone reads it
    restored = build_model()
    restored.load_state_dict(torch.load(path))

    # Each rank scores its share of the test set; all_reduce adds the counts up.
    shard = DataLoader(test, batch_size=128, sampler=DistributedSampler(test, shuffle=False))
    counts = torch.zeros(2, dtype=torch.int64)
    restored.eval()
    with torch.no_grad():
        for x, y in shard:
            counts += torch.tensor([int((restored(x).argmax(1) == y).sum()), len(y)])
    dist.all_reduce(counts)
    if rank == 0:
        correct, total = counts.tolist()
        print(f"test accuracy on {world} ranks: {correct / total:.2%} ({correct}/{total})")
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
