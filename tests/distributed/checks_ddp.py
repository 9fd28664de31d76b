"""DistributedDataParallel on N ranks against one process training on the whole batch.

Every rank builds the reference model too, from the same seed, and trains it on the
concatenation of all ranks' batches (the loss is a mean, so the averaged gradients of
the shards equal the gradient of the whole batch). Run by ``test_ddp.py``.
"""
import os

import numpy as np

import cygrad
import cygrad.distributed as dist
from cygrad import nn
from cygrad.nn.parallel import DistributedDataParallel as DDP

PER_RANK = 6


def mlp():
    return nn.Sequential(nn.Linear(12, 300), nn.ReLU(), nn.Linear(300, 16), nn.ReLU(),
                         nn.Linear(16, 4))


def cnn():
    return nn.Sequential(nn.Conv2d(1, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(4, 8, 3, padding=1), nn.ReLU(), nn.Flatten(),
                         nn.Linear(8 * 4 * 4, 3))


def data(size, shape, classes, seed):
    rng = np.random.default_rng(seed)
    x = rng.standard_normal((PER_RANK * size, *shape)).astype(np.float32)
    return x, rng.integers(0, classes, PER_RANK * size)


def shard(a, rank):
    return cygrad.tensor(a[rank * PER_RANK:(rank + 1) * PER_RANK])


def build(make, rank):
    cygrad.manual_seed(100 + rank)         # different on each rank: DDP must replace by rank 0's
    model = make()
    cygrad.manual_seed(100)                # the reference starts from rank 0's weights
    return model, make()


def max_diff(a, b):
    return max(float((p - q).abs().max()) for p, q in zip(a.parameters(), b.parameters()))


def train_and_compare(rank, size, make, shape, classes, make_opt, steps=3, **ddp_kwargs):
    model, ref = build(make, rank)
    ddp = DDP(model, **ddp_kwargs)
    assert max_diff(model, ref) == 0.0, "replicas do not start from rank 0's parameters"
    opt, opt_ref = make_opt(ddp.parameters()), make_opt(ref.parameters())
    loss_fn = nn.CrossEntropyLoss()
    for step in range(steps):
        x, y = data(size, shape, classes, seed=step)
        opt.zero_grad()
        loss_fn(ddp(shard(x, rank)), shard(y, rank)).backward()
        opt.step()
        opt_ref.zero_grad()
        loss_fn(ref(cygrad.tensor(x)), cygrad.tensor(y)).backward()
        opt_ref.step()
    d = max_diff(model, ref)
    assert d < 1e-5, f"after {steps} steps the DDP model differs from single-process by {d}"
    everyone = [None] * size
    dist.all_gather_object(everyone, [p.detach().numpy().copy() for p in model.parameters()])
    for other in everyone:
        for a, b in zip(other, everyone[0]):
            np.testing.assert_array_equal(a, b)      # and the replicas are equal exactly
    return ddp


def check_mlp_sgd_momentum_matches_single_process(rank, size, ctx):
    train_and_compare(rank, size, mlp, (12,), 4,
                      lambda ps: cygrad.optim.SGD(ps, lr=0.1, momentum=0.9),
                      bucket_cap_mb=0.01)          # small buckets: several all-reduces per step


def check_cnn_adam_matches_single_process(rank, size, ctx):
    ddp = train_and_compare(rank, size, cnn, (1, 8, 8), 3,
                            lambda ps: cygrad.optim.Adam(ps, lr=1e-2))
    assert len(ddp.reducer.buckets) == 1           # 25 MiB default: one bucket


def check_gradient_as_bucket_view(rank, size, ctx):
    ddp = train_and_compare(rank, size, mlp, (12,), 4,
                            lambda ps: cygrad.optim.SGD(ps, lr=0.1),
                            gradient_as_bucket_view=True, bucket_cap_mb=0.01)
    for b in ddp.reducer.buckets:
        for i, p in b.params:
            assert p.grad.data_ptr() == b.slots[i].data_ptr()


def check_no_sync_accumulates_then_averages(rank, size, ctx):
    model, ref = build(mlp, rank)
    ddp = DDP(model)
    loss_fn = nn.CrossEntropyLoss()
    (x1, y1), (x2, y2) = data(size, (12,), 4, 1), data(size, (12,), 4, 2)
    with ddp.no_sync():
        loss_fn(ddp(shard(x1, rank)), shard(y1, rank)).backward()
    local = [p.grad.clone() for p in model.parameters()]
    loss_fn(ddp(shard(x2, rank)), shard(y2, rank)).backward()
    for x, y in ((x1, y1), (x2, y2)):
        loss_fn(ref(cygrad.tensor(x)), cygrad.tensor(y)).backward()
    for p, q in zip(model.parameters(), ref.parameters()):
        np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-4, atol=1e-6)
    if size > 1:   # inside no_sync the gradients were this rank's own
        assert any(float((a - p.grad).abs().max()) > 0 for a, p in zip(local, model.parameters()))


class TwoHeads(nn.Module):
    def __init__(self):
        super().__init__()
        self.body = nn.Linear(5, 6)
        self.head_a = nn.Linear(6, 2)
        self.head_b = nn.Linear(6, 2)
        self.never = nn.Linear(6, 2)

    def forward(self, x, use_b):
        h = self.body(x).tanh()
        return self.head_a(h) + self.head_b(h) if use_b else self.head_a(h)


def check_find_unused_parameters(rank, size, ctx):
    cygrad.manual_seed(3)
    model = TwoHeads()
    cygrad.manual_seed(3)
    ref = TwoHeads()
    ddp = DDP(model, find_unused_parameters=True)
    x = data(size, (5,), 2, 9)[0]
    use_b = [r == 0 for r in range(size)]          # head_b is used on rank 0 only
    ddp(shard(x, rank), use_b[rank]).pow(2).mean().backward()
    for r in range(size):
        (ref(shard(x, r), use_b[r]).pow(2).mean() / size).backward()
    assert model.never.weight.grad is None          # unused on every rank: untouched
    for name in ("body", "head_a", "head_b"):
        for p, q in zip(getattr(model, name).parameters(), getattr(ref, name).parameters()):
            np.testing.assert_allclose(p.grad.numpy(), q.grad.numpy(), rtol=1e-5, atol=1e-7)
    ddp(shard(x, rank), use_b[rank]).sum().backward()   # the next iteration is armed again


def check_unused_parameter_without_detection_is_reported(rank, size, ctx):
    cygrad.manual_seed(3)
    ddp = DDP(TwoHeads())
    x = cygrad.randn(4, 5)
    ddp(x, False).sum().backward()         # head_b and never get no gradient: reduction waits
    try:
        ddp(x, False)
    except RuntimeError as e:
        msg = str(e)
        assert "Expected to have finished reduction in the prior iteration" in msg, msg
        assert "head_b.weight" in msg and "never.bias" in msg, msg
    else:
        raise AssertionError("the unfinished reduction was not reported")


def check_buffers_follow_rank_0(rank, size, ctx):
    cygrad.manual_seed(5)
    model = nn.Sequential(nn.Linear(4, 6), nn.BatchNorm1d(6)).eval()   # eval: stats not updated
    ddp = DDP(model)
    with cygrad.no_grad():
        model[1].running_mean.fill_(float(rank + 1))
        model[1].running_var.fill_(float(rank + 2))
    x = cygrad.ones(5, 4)
    out = ddp(x)                        # the forward starts by copying rank 0's buffers
    assert model[1].running_mean.tolist() == [1.0] * 6
    assert model[1].running_var.tolist() == [2.0] * 6
    with cygrad.no_grad():
        h = model[0](x)
    np.testing.assert_allclose(out.detach().numpy(), (h.numpy() - 1.0) / np.sqrt(2.0 + 1e-5)
                               * model[1].weight.detach().numpy() + model[1].bias.detach().numpy(),
                               rtol=1e-5, atol=1e-6)


def check_checkpoint_saved_by_rank_0_loads_everywhere(rank, size, ctx):
    model, _ = build(mlp, rank)
    ddp = DDP(model)
    path = os.path.join(ctx["outdir"], "ddp_checkpoint.pt")
    if rank == 0:
        cygrad.save(ddp.module.state_dict(), path)
    dist.barrier()
    fresh = mlp()
    fresh.load_state_dict(cygrad.load(path))
    assert max_diff(fresh, model) == 0.0
    assert all(k.startswith("module.") for k in ddp.state_dict())


def check_different_models_are_refused(rank, size, ctx):
    if size < 2:
        return
    model = nn.Linear(4, 3 if rank == 0 else 5)
    try:
        DDP(model)
    except RuntimeError as e:
        assert "DDP expects same model across all ranks" in str(e), str(e)
        assert "weight" in str(e)
    else:
        raise AssertionError("different models were accepted")
