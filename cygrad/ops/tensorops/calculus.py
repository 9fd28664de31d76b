"""Finite differences and integrals: ``diff``, ``gradient``, ``trapezoid``/``trapz``,
``cumulative_trapezoid``.  Each is a composition of slicing, arithmetic and sums,
so its gradient comes from those ops' Functions.
"""
from ..._core.dtype import bool_ as _bool
from ..._tensor import tensor_method
from ..reduction import cumsum, sum as _sum
from ..reduction._common import _check_tensor, _single_dim
from ..shape import cat

__all__ = ["diff", "gradient", "trapezoid", "trapz", "cumulative_trapezoid"]


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


def _gradient_spacing(input, spacing, dims):
    """One spacing per dim of ``dims``: a number, or a 1-D tensor of coordinates."""
    if not isinstance(spacing, (list, tuple)):
        return [spacing] * len(dims)
    if len(spacing) != len(dims):
        what = (f"'self.dim() = {input.dim()}', since dim argument was not given"
                if len(dims) == input.dim() else f"'dim' = {len(dims)}")
        raise RuntimeError(f"torch.gradient expected spacing to be unspecified, a scalar, or a "
                           f"list of length equal to {what}, but got a list of length "
                           f"{len(spacing)}")
    for s in spacing:
        if hasattr(s, "dim") and s.dim() != 1:
            raise RuntimeError("torch.gradient expected each tensor to be on the same device "
                               "and 1-dimensional")
    return list(spacing)


def _gradient_along(f, d, h, edge_order):
    """The derivative along ``d`` by central differences inside and one-sided ones
    (first or second order) at the two ends, for a spacing ``h`` (number or
    coordinates), as ``numpy.gradient`` computes it."""
    n = f.shape[d]

    def part(start, length):
        return f.narrow(d, start, length)

    if not hasattr(h, "dim"):
        h = float(h)
        inner = (part(2, n - 2) - part(0, n - 2)) / (2.0 * h)
        if edge_order == 1:
            first = (part(1, 1) - part(0, 1)) / h
            last = (part(n - 1, 1) - part(n - 2, 1)) / h
        else:
            first = (-1.5 * part(0, 1) + 2.0 * part(1, 1) - 0.5 * part(2, 1)) / h
            last = (0.5 * part(n - 3, 1) - 2.0 * part(n - 2, 1) + 1.5 * part(n - 1, 1)) / h
        return cat([first, inner, last], d)
    shape = [1] * f.dim()

    def coef(t):
        shape[d] = t.shape[0]
        return t.reshape(tuple(shape))

    dx = diff(h.to(f.dtype) if f.is_floating_point() else h * 1.0)
    hs, hd = coef(dx[:-1]), coef(dx[1:])
    inner = (hs * hs * part(2, n - 2) + (hd * hd - hs * hs) * part(1, n - 2)
             - hd * hd * part(0, n - 2)) / (hs * hd * (hs + hd))
    if edge_order == 1:
        first = (part(1, 1) - part(0, 1)) / dx[0]
        last = (part(n - 1, 1) - part(n - 2, 1)) / dx[-1]
    else:
        a, b = dx[0], dx[1]
        first = (-(2 * a + b) / (a * (a + b)) * part(0, 1) + (a + b) / (a * b) * part(1, 1)
                 - a / (b * (a + b)) * part(2, 1))
        a, b = dx[-2], dx[-1]
        last = (b / (a * (a + b)) * part(n - 3, 1) - (a + b) / (a * b) * part(n - 2, 1)
                + (a + 2 * b) / (b * (a + b)) * part(n - 1, 1))
    return cat([first, inner, last], d)


def gradient(input, *, spacing=1, dim=None, edge_order=1):
    """The derivative of ``input`` along each dim of ``dim`` (all by default), by
    second-order central differences inside and ``edge_order`` (1 or 2) one-sided
    differences at the ends, as ``torch.gradient``; ``spacing`` is a number, one
    number per dim, or one 1-D tensor of coordinates per dim.  Returns a tuple with
    one tensor per dim.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.gradient(cygrad.tensor([1.0, 4.0, 9.0, 16.0]))[0].tolist()
    [3.0, 4.0, 6.0, 7.0]
    >>> cygrad.gradient(cygrad.tensor([1.0, 4.0, 9.0]), spacing=2.0, edge_order=2)[0].tolist()
    [1.0, 2.0, 3.0]
    """
    _check_tensor(input, "gradient")
    if edge_order not in (1, 2):
        raise RuntimeError("torch.gradient only supports edge_order=1 and edge_order=2.")
    if dim is None:
        dims = list(range(input.dim()))
    else:
        dims = [_single_dim(input, d, "gradient")
                for d in (dim if isinstance(dim, (list, tuple)) else [dim])]
    hs = _gradient_spacing(input, spacing, dims)
    for d in dims:
        if input.shape[d] < edge_order + 1:
            raise RuntimeError("torch.gradient expected each dimension size to be at least "
                               "edge_order+1")
    # integer inputs give floating results through the true divisions
    return tuple(_gradient_along(input, d, h, edge_order) for d, h in zip(dims, hs))
