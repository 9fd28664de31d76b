"""``quantile``, ``nanquantile`` and ``nanmedian``.

Each sorts along the reduced dim (NaN sorts last) and picks or interpolates the
sorted values, so the gradient flows back through the sort's Function to the
elements picked.
"""
import numbers

from ..._core.dtype import int64
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ..creation import tensor as _tensor
from ..indexing import where
from ..reduction import sort
from ..reduction._common import _check_tensor, _refuse_complex, _result_type, _single_dim

__all__ = ["quantile", "nanquantile", "nanmedian"]

_NanmedianResult = _result_type("nanmedian")
_MODES = ("linear", "lower", "higher", "midpoint", "nearest")


def _quantile(input, q, dim, keepdim, interpolation, ignore_nan, opname):
    _check_tensor(input, opname)
    if not isinstance(q, (TensorBase, numbers.Real)):
        # PyTorch's argument parser (Tensor or float q) refuses it before any dtype check
        raise TypeError(f"{opname}(): argument 'q' must be Tensor or float, not "
                        f"{type(q).__name__}")
    if not isinstance(keepdim, bool):
        raise TypeError(f"{opname}(): argument 'keepdim' must be bool, not "
                        f"{type(keepdim).__name__}")
    if input.dtype.name not in ("float32", "float64"):
        raise RuntimeError(f"{opname}() input tensor must be either float or double dtype")
    if input.numel() == 0:
        raise RuntimeError(f"{opname}() input tensor must be non-empty")
    if interpolation not in _MODES:
        raise ValueError(f"{opname}() interpolation must be one of linear, lower, higher, "
                         f"midpoint or nearest. Got {interpolation}")
    scalar_q = not hasattr(q, "dim")
    qt = _tensor([float(q)], dtype=input.dtype, device=input.device) if scalar_q else q
    if not scalar_q:
        if qt.dim() > 1:
            raise RuntimeError(f"{opname}() q must be a scalar or 1D tensor")
        if qt.dtype != input.dtype:
            raise RuntimeError(f"{opname}() q tensor must be same dtype as the input tensor")
        qt = qt.reshape(-1)
    if bool(((qt < 0) | (qt > 1)).any()):
        raise RuntimeError(f"{opname}() q values must be in the range [0, 1]")
    x = input.reshape(-1) if dim is None else input.movedim(_single_dim(input, dim, opname), -1)
    if x.dim() == 0:
        x = x.reshape(1)
    values = sort(x, -1)[0]
    n = x.shape[-1]
    isnan = values.detach().isnan()
    valid = (~isnan).sum(-1, keepdim=True) if ignore_nan else None
    count = valid if ignore_nan else values.new_full(tuple(values.shape[:-1]) + (1,), n)
    rank = qt * (count.to(values.dtype) - 1).clamp(min=0.0)    # (..., Q)
    lo = rank.detach().floor().to(int64)
    hi = rank.detach().ceil().to(int64)
    v_lo, v_hi = values.gather(-1, lo), values.gather(-1, hi)
    if interpolation == "linear":
        out = v_lo + (v_hi - v_lo) * (rank - lo.to(rank.dtype))
    elif interpolation == "lower":
        out = v_lo
    elif interpolation == "higher":
        out = v_hi
    elif interpolation == "midpoint":
        out = (v_lo + v_hi) / 2
    else:
        out = values.gather(-1, rank.detach().round().to(int64))
    nan = out.new_full((), float("nan"))
    if ignore_nan:
        out = where(valid == 0, nan, out)
    else:
        out = where(isnan.any(-1, keepdim=True), nan, out)
    out = out.movedim(-1, 0)                         # (Q, ...)
    if keepdim:
        if dim is None:
            out = out.reshape((out.shape[0],) + (1,) * input.dim())
        else:
            out = out.unsqueeze(_single_dim(input, dim, opname) + 1)
    return out[0] if scalar_q else out


@tensor_method
def quantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """The ``q``-th quantiles of ``input`` along ``dim`` (all elements if None), as
    ``torch.quantile``; ``q`` a float or 1-D tensor (then its dim comes first).  A
    row holding NaN gives NaN.  ``interpolation`` picks between the two nearest
    sorted values: ``linear``, ``lower``, ``higher``, ``midpoint`` or ``nearest``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.quantile(cygrad.tensor([1.0, 2.0, 3.0, 4.0]), 0.5).item()
    2.5
    >>> cygrad.quantile(cygrad.tensor([1.0, 2.0, 3.0, 4.0]), 0.5, interpolation="lower").item()
    2.0
    """
    res = _quantile(input, q, dim, keepdim, interpolation, False, "quantile")
    return res if out is None else out.copy_(res)


@tensor_method
def nanquantile(input, q, dim=None, keepdim=False, *, interpolation="linear", out=None):
    """:func:`quantile` ignoring NaN (a row of only NaN gives NaN), as
    ``torch.nanquantile``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nanquantile(cygrad.tensor([1.0, float("nan"), 3.0]), 0.5).item()
    2.0
    """
    res = _quantile(input, q, dim, keepdim, interpolation, True, "nanquantile")
    return res if out is None else out.copy_(res)


@tensor_method
def nanmedian(input, dim=None, keepdim=False):
    """The lower median ignoring NaN, as ``torch.nanmedian``: of all elements, or
    along ``dim`` as ``(values, indices)``.  A row of only NaN gives NaN (its index
    is one of the NaN's, not necessarily the one PyTorch reports).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nanmedian(cygrad.tensor([1.0, float("nan"), 3.0, 2.0])).item()
    2.0
    >>> v, i = cygrad.nanmedian(cygrad.tensor([[2.0, float("nan"), 1.0]]), 1)
    >>> v.tolist(), i.tolist()
    ([1.0], [2])
    """
    _check_tensor(input, "nanmedian")
    _refuse_complex(input, "nanmedian", f"median_{input.device.type}")
    if dim is None:
        x = input.reshape(-1)
        if x.numel() == 0:
            return input.new_full((), float("nan"))
        return nanmedian(x, 0)[0]
    d = _single_dim(input, dim, "nanmedian")
    x = input.movedim(d, -1) if input.dim() else input.reshape(1)
    if x.shape[-1] == 0:
        raise IndexError("nanmedian(): Expected reduction dim 0 to have non-zero size.")
    values, order = sort(x, -1)
    isnan = values.detach().isnan() if input.is_floating_point() else None
    valid = x.shape[-1] - (isnan.sum(-1, keepdim=True) if isnan is not None else 0)
    k = ((valid - 1).clamp(min=0) // 2) if hasattr(valid, "dim") else \
        order.new_full(tuple(order.shape[:-1]) + (1,), (valid - 1) // 2)
    v, i = values.gather(-1, k), order.gather(-1, k)
    v, i = v.squeeze(-1), i.squeeze(-1)
    if input.dim() == 0:
        return _NanmedianResult(v.reshape(()), i.reshape(()))
    if keepdim:
        v, i = v.unsqueeze(d), i.unsqueeze(d)
    return _NanmedianResult(v, i)
