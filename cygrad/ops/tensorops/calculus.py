"""Finite differences and integrals: ``diff``, ``trapezoid``/``trapz``,
``cumulative_trapezoid``.  Each is a composition of slicing, arithmetic and sums,
so its gradient comes from those ops' Functions.
"""
from ..._core.dtype import bool_ as _bool
from ..._tensor import tensor_method
from ..reduction import cumsum, sum as _sum
from ..reduction._common import _check_tensor, _single_dim
from ..shape import cat

__all__ = ["diff", "trapezoid", "trapz", "cumulative_trapezoid"]


@tensor_method
def diff(input, n=1, dim=-1, prepend=None, append=None):
    """The ``n``-th forward difference along ``dim`` (``out[i] = x[i+1] - x[i]``,
    bools by ``!=``), after concatenating ``prepend``/``append``, as ``torch.diff``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.diff(cygrad.tensor([1, 4, 9, 16])).tolist()
    [3, 5, 7]
    >>> cygrad.diff(cygrad.tensor([1.0, 4.0, 9.0]), n=2, prepend=cygrad.tensor([0.0])).tolist()
    [2.0, 2.0]
    """
    _check_tensor(input, "diff")
    if input.dim() == 0:
        raise RuntimeError("diff expects input to be at least one-dimensional")
    if n < 0:
        raise RuntimeError(f"order must be non-negative but got {n}")
    d = _single_dim(input, dim, "diff")
    parts = [t for t in (prepend, input, append) if t is not None]
    x = cat(parts, d) if len(parts) > 1 else input
    for _ in range(n):
        if x.shape[d] == 0:
            break
        hi, lo = x.narrow(d, 1, x.shape[d] - 1), x.narrow(d, 0, x.shape[d] - 1)
        x = (hi != lo) if x.dtype == _bool else hi - lo
    return x


def _spacing(y, x, dx, d):
    """The interval widths along ``d``: from sample points ``x`` or a constant ``dx``."""
    if x is None:
        return dx
    if x.dim() == 1:
        w = diff(x)
        shape = [1] * y.dim()
        shape[d] = w.shape[0]
        return w.reshape(shape)
    return diff(x, dim=d)


@tensor_method
def trapezoid(y, x=None, *, dx=None, dim=-1):
    """Integral of ``y`` along ``dim`` by the trapezoidal rule, at sample points ``x``
    or with spacing ``dx`` (default 1), as ``torch.trapezoid``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.trapezoid(cygrad.tensor([1.0, 2.0, 3.0])).item()
    4.0
    >>> cygrad.trapezoid(cygrad.tensor([1.0, 2.0, 3.0]), cygrad.tensor([0.0, 1.0, 3.0])).item()
    6.5
    """
    _check_tensor(y, "trapezoid")
    if x is not None:
        _check_tensor(x, "trapezoid")
    if x is not None and dx is not None:
        raise TypeError("trapezoid() received an invalid combination of arguments: x and dx")
    d = _single_dim(y, dim, "trapezoid")
    if y.shape[d] == 0:
        return _sum(y, d)
    mid = (y.narrow(d, 1, y.shape[d] - 1) + y.narrow(d, 0, y.shape[d] - 1)) / 2
    return _sum(mid * _spacing(y, x, 1.0 if dx is None else dx, d), d)


def trapz(y, x=None, *, dx=None, dim=-1):
    """Alias of :func:`trapezoid` (``torch.trapz``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.trapz(cygrad.tensor([1.0, 2.0, 3.0]), dx=2.0).item()
    8.0
    """
    return trapezoid(y, x, dx=dx, dim=dim)


def cumulative_trapezoid(y, x=None, *, dx=None, dim=-1):
    """Running trapezoidal integral of ``y`` along ``dim`` (one value fewer than
    ``y``), as ``torch.cumulative_trapezoid``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cumulative_trapezoid(cygrad.tensor([1.0, 2.0, 3.0])).tolist()
    [1.5, 4.0]
    """
    _check_tensor(y, "cumulative_trapezoid")
    if x is not None:
        _check_tensor(x, "cumulative_trapezoid")
    if x is not None and dx is not None:
        raise TypeError("cumulative_trapezoid() received an invalid combination of arguments")
    d = _single_dim(y, dim, "cumulative_trapezoid")
    if y.shape[d] == 0:
        return y.clone()
    mid = (y.narrow(d, 1, y.shape[d] - 1) + y.narrow(d, 0, y.shape[d] - 1)) / 2
    return cumsum(mid * _spacing(y, x, 1.0 if dx is None else dx, d), d)
