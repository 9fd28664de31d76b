"""CPU kernels of the elementwise family that are not rows of the C dispatcher.

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> kernel("nan_to_num", "cpu")(cygrad.tensor([float("nan"), 1.0]), 0.0, None, None).tolist()
[0.0, 1.0]
"""
import ml_dtypes
import numpy as np

from ..dispatch import register


@register("nan_to_num", "cpu")
def nan_to_num(input, nan, posinf, neginf):
    """A copy of ``input`` with NaN/+inf/-inf replaced (None: the dtype's largest or
    smallest finite value); integer and bool tensors are copied unchanged."""
    res = input.clone()
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
