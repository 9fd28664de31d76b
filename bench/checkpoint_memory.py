"""Peak host memory and step time of an MLP stack with and without activation checkpointing.

The model: 16 blocks of ``Linear(512, 512) -> GELU`` on a float32 batch of 512
(each block's two activations are 1 MiB each). Three ways to run one training step
(forward, backward): plain, ``checkpoint`` around every block,
``checkpoint_sequential`` with 4 segments, and ``checkpoint`` around every block with
a selective policy that keeps the ``linear`` outputs (``selective``); each runs in its own process, so the peak
of ``cygrad.memory.host_stats()`` (bytes allocated by cygrad's allocator) belongs to
that variant alone. The figure is the peak minus the bytes allocated before the step
(parameters, input): activations kept for backward, temporaries, and the parameters'
gradients (16 MiB, the same for every variant).

Run: ``python bench/checkpoint_memory.py``.

Examples
--------
>>> from checkpoint_memory import measure
>>> peak, seconds = measure("plain", blocks=2, width=32, batch=4)
>>> peak > 0
True
"""
import json
import subprocess
import sys
import time

VARIANTS = ("plain", "checkpoint", "checkpoint_sequential", "selective")


def measure(variant, blocks=16, width=512, batch=512, use_reentrant=False):
    """(peak bytes above the starting point, seconds) of one training step."""
    import cygrad
    from cygrad import nn
    import functools
    from cygrad.utils.checkpoint import (checkpoint, checkpoint_sequential,
                                         create_selective_checkpoint_contexts)
    keep_linear = functools.partial(create_selective_checkpoint_contexts,
                                    [nn.functional.linear])
    cygrad.manual_seed(0)
    model = nn.Sequential(*[nn.Sequential(nn.Linear(width, width), nn.GELU())
                            for _ in range(blocks)])
    x = cygrad.randn(batch, width, requires_grad=True)

    def step():
        if variant == "plain":
            out = model(x)
        elif variant == "checkpoint":
            out = x
            for block in model:
                out = checkpoint(block, out, use_reentrant=use_reentrant)
        elif variant == "selective":
            out = x
            for block in model:
                out = checkpoint(block, out, use_reentrant=False, context_fn=keep_linear)
        else:
            out = checkpoint_sequential(model, 4, x, use_reentrant=use_reentrant)
        out.square().mean().backward()
    # the allocator's peak cannot be reset, so the step measured is the process's first:
    # its peak includes the parameters' .grad (16 MiB here, the same for every variant)
    base = cygrad.memory.host_stats()["allocated_bytes"]
    t = time.perf_counter()
    step()
    seconds = time.perf_counter() - t
    return cygrad.memory.host_stats()["peak_allocated_bytes"] - base, seconds


def main():
    if len(sys.argv) > 1:
        print(json.dumps(measure(sys.argv[1])))
        return
    print(f"{'variant':24s} {'peak MiB':>9s} {'step s':>8s}")
    for v in VARIANTS:
        out = subprocess.run([sys.executable, __file__, v], capture_output=True, text=True,
                             check=True)
        peak, seconds = json.loads(out.stdout)
        print(f"{v:24s} {peak / 2**20:9.1f} {seconds:8.3f}")


if __name__ == "__main__":
    main()
