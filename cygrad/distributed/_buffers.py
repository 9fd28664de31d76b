"""Tensors as MPI buffers, without copies.

A CPU tensor that is contiguous *is* a buffer: its NumPy view (``detach().numpy()``,
zero-copy) goes to MPI as it is. Two cases need a temporary:

- ``float16`` and ``bfloat16`` have no MPI datatype. Collectives that only move data
  send their bytes; reductions add them up in ``float32`` and round once at the end
  (more accurate than summing in half precision step by step).
- ``all_gather`` into a *list* of separate tensors receives into one block first.
"""
import numpy as np

from .._core import dtype as _dt

_HALF = (_dt.float16, _dt.bfloat16)


def check_tensor(t, name, arg="tensor"):
    """The checks PyTorch makes before a tensor may take part in a collective."""
    from .._tensor import Tensor
    if not isinstance(t, Tensor):
        raise TypeError(f"{name}: {arg} must be a cygrad.Tensor, got {type(t).__name__}")
    if t.device.type != "cpu":
        raise RuntimeError(f"{name}: {arg} is on {t.device}; cygrad.distributed (MPI backend) "
                           "communicates CPU tensors only")
    if not t.is_contiguous():
        raise ValueError(f"{name}: Tensors must be contiguous ({arg} has shape {tuple(t.shape)} "
                         f"and strides {tuple(t.stride())}; call .contiguous() first)")


def check_tensor_list(ts, name, arg, like=None):
    """A list argument: each tensor checked, and (with ``like``) of its shape and dtype."""
    if not isinstance(ts, (list, tuple)):
        raise TypeError(f"{name}: {arg} must be a list of tensors, got {type(ts).__name__}")
    for i, t in enumerate(ts):
        check_tensor(t, name, f"{arg}[{i}]")
        if like is not None and (tuple(t.shape) != tuple(like.shape) or t.dtype != like.dtype):
            raise ValueError(f"{name}: {arg}[{i}] is {t.dtype} {tuple(t.shape)} but the tensor is "
                             f"{like.dtype} {tuple(like.shape)}; they must match")


def array(t):
    """The tensor's memory as a NumPy array (zero-copy)."""
    return t.detach().numpy()


def raw(t):
    """The tensor's memory as bytes for MPI (zero-copy): for data that is only moved."""
    return array(t).reshape(-1).view(np.uint8)


def reducible(t):
    """``(buffer, finish)`` for a reduction: the tensor itself, or for half precision a
    float32 copy; ``finish()`` writes the result back (and bumps the version)."""
    a = array(t).reshape(-1)
    if t.dtype in _HALF:
        wide = a.astype(np.float32)

        def finish():
            a[...] = wide.astype(a.dtype)
            t._bump_version()
        return wide, finish

    def finish():
        t._bump_version()
    return a, finish
