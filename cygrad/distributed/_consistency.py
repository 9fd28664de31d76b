"""Every rank must call the same collective on tensors of the same shape and dtype.

MPI itself does not check: a rank that reduces 4 floats while another reduces 5
gets a truncation error at best, a wrong answer or a hang at worst. So before each
collective the ranks compare a *fingerprint* of what they are about to do (the
collective, dtype, shape, reduce op, root) with one small all-reduce: the maximum of
``(f, -f)`` over the ranks equals ``(f, -f)`` itself only if every rank has the same
``f``. When they differ, every rank sees it at once, they exchange readable
descriptions, and each raises one RuntimeError naming what every rank called.

The check costs one tiny extra all-reduce per collective (a few microseconds on one
machine); ``CYGRAD_DISTRIBUTED_CHECKS=0`` in the environment turns it off.
``DistributedDataParallel`` compares its parameters' shapes once at construction
and posts its gradient buckets without it.
"""
import os

import numpy as np

from ._mpi import mpi
from .work import post

ENABLED = os.environ.get("CYGRAD_DISTRIBUTED_CHECKS", "1") != "0"

_KINDS = ("barrier", "all_reduce", "reduce", "broadcast", "all_gather", "all_gather_into_tensor",
          "reduce_scatter_tensor", "gather", "scatter", "broadcast_object_list",
          "all_gather_object", "ddp")
_DTYPES = ("bool", "uint8", "int8", "int16", "int32", "int64", "float16", "bfloat16", "float32",
           "float64", "complex64", "complex128")
_OPS = (None, "SUM", "AVG", "PRODUCT", "MIN", "MAX", "BAND", "BOR", "BXOR")


_cache = {}


def _fingerprint(kind, tensor, op, root):
    """``(f, -f)`` for this call, and a buffer for the ranks' maximum of it (cached: the
    same calls repeat every training step)."""
    key = (kind, None if tensor is None else tensor.dtype,
           None if tensor is None else tuple(tensor.shape), op, root)
    hit = _cache.get(key)
    if hit is not None:
        return hit
    if tensor is None:
        dt, shape = -1, ()
    else:
        dt, shape = _DTYPES.index(str(tensor.dtype).split(".")[-1]), key[2]
    # hash() of a tuple of ints is the same in every process (only str/bytes hashing is
    # randomised), so it stands for the whole shape.
    f = np.array([_KINDS.index(kind), dt, len(shape), hash(shape) & ((1 << 62) - 1),
                  _OPS.index(None if op is None else op.name), root], dtype=np.int64)
    hit = (np.concatenate([f, -f]), np.empty(2 * len(f), np.int64))
    if len(_cache) < 1024:
        _cache[key] = hit
    return hit


def _describe(kind, tensor, op, root):
    what = kind
    if tensor is not None:
        what += f"({tensor.dtype} {tuple(tensor.shape)}"
        what += f", op={op.name}" if op is not None else ""
        what += f", root={root}" if root >= 0 else ""
        what += ")"
    return what


def check_same(group, kind, tensor=None, op=None, root=-1):
    """Raise RuntimeError on every rank if the ranks disagree about this collective."""
    if not ENABLED:
        return
    both, seen = _fingerprint(kind, tensor, op, root)
    post(group, kind, "Allreduce", (both, seen, mpi().MAX), both.nbytes).wait()
    if seen.tobytes() == both.tobytes():
        return
    calls = group.comm.allgather(_describe(kind, tensor, op, root))
    lines = "; ".join(f"rank {group.ranks[i]}: {c}" for i, c in enumerate(calls))
    raise RuntimeError(f"Detected mismatch between collectives on ranks: {lines}. Every rank "
                       "must call the same collective on tensors of the same shape and dtype.")

