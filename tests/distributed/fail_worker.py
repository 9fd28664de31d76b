"""Jobs that go wrong on purpose: ``fail_worker.py killed|hung NUMEL``.

- ``killed``: rank 1 is killed (SIGKILL) while rank 0 waits in an all-reduce.
- ``hung``: rank 1 sleeps instead of joining; rank 0's all-reduce has a 1 s timeout.

``NUMEL`` float32 elements: small all-reduces are MPI's non-blocking calls tested by
the caller, large ones (from ``work.THREAD_BYTES``) blocking calls on the
communication thread; both roads must fail the same way.

Rank 0 prints what it caught and how long it took; ``test_failures.py`` reads it.
"""
import os
import signal
import sys
import time
from datetime import timedelta

import cygrad
import cygrad.distributed as dist


def main(mode, numel):
    dist.init_process_group("mpi", timeout=timedelta(seconds=1 if mode == "hung" else 60))
    rank = dist.get_rank()
    t = cygrad.ones(numel)
    dist.all_reduce(t)                     # everyone is up and talking
    if rank == 1:
        if mode == "killed":
            time.sleep(0.3)                # let rank 0 enter the collective first
            os.kill(os.getpid(), signal.SIGKILL)
        time.sleep(8)
        return
    start = time.monotonic()
    try:
        dist.all_reduce(t)
    except dist.DistBackendError as e:
        print(f"rank 0 caught {type(e).__name__} after {time.monotonic() - start:.2f} s: {e}",
              flush=True)
        sys.exit(3)
    print("rank 0: the all-reduce completed, which it must not", flush=True)


if __name__ == "__main__":
    main(sys.argv[1], int(sys.argv[2]))
