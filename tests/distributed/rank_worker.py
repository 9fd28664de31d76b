"""One rank of a test job: ``rank_worker.py CHECKS_MODULE OUTDIR`` (see ``_harness.py``)."""
import importlib
import json
import os
import sys
import traceback
from datetime import timedelta

import cygrad.distributed as dist


def main():
    module_name, outdir = sys.argv[1], sys.argv[2]
    module = importlib.import_module(module_name)
    dist.init_process_group("mpi", timeout=timedelta(seconds=60))
    rank, size = dist.get_rank(), dist.get_world_size()
    ctx = {"outdir": outdir}
    results = {}
    broken = False
    for name in sorted(n for n in dir(module) if n.startswith("check_")):
        if broken:
            results[name] = "not run: the process group broke in an earlier check"
            continue
        try:
            getattr(module, name)(rank, size, ctx)
            results[name] = "ok"
        except Exception:
            results[name] = traceback.format_exc()
        try:
            # Keep the ranks in step, so one rank's failure cannot shift the next check.
            dist.barrier()
        except dist.DistBackendError:
            broken = True
    with open(os.path.join(outdir, f"rank{rank}.json"), "w") as f:
        json.dump(results, f)
    if broken:
        sys.exit(1)
    dist.destroy_process_group()


if __name__ == "__main__":
    main()
