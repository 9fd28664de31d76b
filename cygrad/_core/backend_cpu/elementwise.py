"""CPU kernels of the elementwise family.

The core's elementwise ops (``add``, ``sin``, ``eq`` ...) are rows of the C
dispatcher (``ElementwiseOp`` descriptors in ``cygrad/_core/tensor_dispatch.pxi``:
dtype rules and a C loop each). Every row is registered here as that
primitive's 'cpu' entry of the kernel table, ``fn(out, a, b)`` or ``fn(out, x)``
writing into ``out``, the same shape as a 'cuda' entry; the dispatcher itself
runs the row's C loop directly for CPU tensors (the CPU entry's fast path) and
sends other devices' tensors to their entries. The other kernels below are not
rows of the C dispatcher. The special functions' rows
(``cygrad/_core/special_table.py``) are registered the same way.

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> kernel("nan_to_num", "cpu")(cygrad.tensor([float("nan"), 1.0]), 0.0, None, None).tolist()
[0.0, 1.0]
>>> out = cygrad.empty(2)
>>> kernel("hypot", "cpu")(out, cygrad.tensor([3.0, 5.0]), cygrad.tensor([4.0, 12.0])).tolist()
[5.0, 13.0]
"""
import ml_dtypes
import numpy as np

from ..dispatch import register
from ..tensor import ELEMENTWISE_OPS, binary_op, unary_op


def _row_entry(op):
    """The kernel-table entry of one C-dispatcher row: ``out[...] = op(a, b)``."""
    if op.arity == 2:
        def run(out, a, b):
            return binary_op(op, a, b, out=out)
    else:
        def run(out, x):
            return unary_op(op, x, out=out)
    run.__name__ = f"cpu_{op.name}"
    run.__doc__ = f"out[...] = {op.name}(...) through the C dispatcher's row (CPU)."
    return run


def _register_rows():
    # the core's rows and the special functions' rows (cygrad/_core/special_table.py)
    from ..special_table import ROWS as SPECIAL_ROWS
    for op in (*ELEMENTWISE_OPS.values(), *SPECIAL_ROWS.values()):
        register(op.name, "cpu")(_row_entry(op))


_register_rows()


@register("nan_to_num", "cpu")
def nan_to_num(input, nan, posinf, neginf):
    """A copy of ``input`` with NaN/+inf/-inf replaced (None: the dtype's largest or
    smallest finite value); a complex tensor has each part replaced, as PyTorch does;
    integer and bool tensors are copied unchanged."""
    res = input.clone()
    if input.is_complex():
        arr = res.numpy(force=True)
        for part in (arr.real, arr.imag):       # writable views of res's two parts
            info = np.finfo(part.dtype)
            np.nan_to_num(part, copy=False, nan=nan,
                          posinf=float(info.max) if posinf is None else posinf,
                          neginf=float(info.min) if neginf is None else neginf)
        return res
    if not input.is_floating_point():
        return res
    arr = res.numpy(force=True)
    info = ml_dtypes.finfo(arr.dtype)     # np.finfo does not know bfloat16
    posinf = float(info.max) if posinf is None else posinf
    neginf = float(info.min) if neginf is None else neginf
    with np.errstate(over="ignore"):       # a replacement beyond the dtype becomes inf
        if arr.dtype in (np.float16, np.float32, np.float64):
            np.nan_to_num(arr, copy=False, nan=nan, posinf=posinf, neginf=neginf)
        else:
            # NumPy's nan_to_num rejects bfloat16: replace through masks instead
            nan_mask, pos_mask, neg_mask = np.isnan(arr), np.isposinf(arr), np.isneginf(arr)
            arr[nan_mask] = nan
            arr[pos_mask] = posinf
            arr[neg_mask] = neginf
    return res
