"""Which fused kernel (``cygrad/_core/backend_cpu/fused.py``) an op may use.

Examples
--------
>>> import cygrad
>>> from cygrad.nn._ops._fused import fused_kernel
>>> fused_kernel("gelu", cygrad.zeros(2)) is not None
True
>>> fused_kernel("gelu", cygrad.zeros(2, dtype=cygrad.float16)) is None
True
"""
from ..._core.dispatch import lookup


def fused_kernel(name, *tensors):
    """The kernel of primitive ``name`` for the tensors given (None skipped), or None
    when they differ in dtype or device or the table has no such kernel for them:
    the op then runs its composed path."""
    first = None
    for t in tensors:
        if t is None:
            continue
        if first is None:
            first = t
        elif t.dtype is not first.dtype or t.device != first.device:
            return None
    return lookup(name, first.device.type, first.dtype)
