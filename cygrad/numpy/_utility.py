"""Utility and comparison functions: ``all``, ``any``, ``isclose``, ``allclose``,
``array_equal``, ``nan_to_num``.

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.all(cnp.asarray([[1, 0], [1, 1]]), axis=0).tolist()
[True, False]
"""
import builtins

import cygrad
from . import _dtypes as D
from ._helpers import tensor, operands, axes_arg

__all__ = ["all", "any", "isclose", "allclose", "array_equal", "nan_to_num"]


def _logical_reduce(fn, x, axis, keepdims):
    x = tensor(x)
    if x.dtype is D.uint8:
        # cygrad's (PyTorch's) all/any keep uint8; the standard's result is bool
        x = x != 0
    axes = axes_arg(axis, x.dim())
    if axes == ():
        return x != 0
    if axes is None:
        res = fn(x)
        return res.reshape((1,) * x.dim()) if keepdims else res
    return fn(x, dim=axes, keepdim=keepdims)


def all(x, /, axis=None, out=None, keepdims=False):
    """Whether every element along ``axis`` is true (non-zero).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.all(cnp.asarray([1.0, float("nan")])).item()
    True
    """
    res = _logical_reduce(cygrad.all, x, axis, keepdims)
    if out is not None:
        out.copy_(res)
        return out
    return res


def any(x, /, axis=None, out=None, keepdims=False):
    """Whether some element along ``axis`` is true (non-zero).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.any(cnp.asarray([[0, 0], [0, 1]]), axis=1).tolist()
    [False, True]
    """
    res = _logical_reduce(cygrad.any, x, axis, keepdims)
    if out is not None:
        out.copy_(res)
        return out
    return res


def isclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """``|a - b| <= atol + rtol * |b|`` elementwise (NumPy's asymmetric test); equal
    infinities are close.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.isclose(cnp.asarray([1.0, 1.1]), 1.0).tolist()
    [True, False]
    """
    x, y = operands(a, b)
    if not x.dtype.is_floating_point:
        x, y = x.to(D.DEFAULT_FLOAT), y.to(D.DEFAULT_FLOAT)
    x, y = x.detach(), y.detach()
    finite = x.isfinite() & y.isfinite()
    close = (x - y).abs() <= atol + rtol * y.abs()
    res = cygrad.where(finite, close, x == y)
    if equal_nan:
        res = res | (x.isnan() & y.isnan())
    return res


def allclose(a, b, rtol=1e-05, atol=1e-08, equal_nan=False):
    """Whether every pair is ``isclose``: a Python bool.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.allclose(cnp.asarray([1.0, 2.0]), [1.0, 2.0 + 1e-9])
    True
    """
    return builtins.bool(isclose(a, b, rtol=rtol, atol=atol, equal_nan=equal_nan).all())


def array_equal(a1, a2, equal_nan=False):
    """Whether both arrays have one shape and equal elements: a Python bool.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.array_equal(cnp.asarray([1, 2]), [1, 2]), cnp.array_equal([1], [1, 1])
    (True, False)
    """
    x, y = tensor(a1), tensor(a2)
    if tuple(x.shape) != tuple(y.shape):
        return False
    x, y = operands(x, y)
    eq = x == y
    if equal_nan and x.dtype.is_floating_point:
        eq = eq | (x.isnan() & y.isnan())
    return builtins.bool(eq.all())


def nan_to_num(x, copy=True, nan=0.0, posinf=None, neginf=None):
    """NaN to ``nan``, infinities to the largest finite values (or ``posinf``/``neginf``).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.nan_to_num(cnp.asarray([float("nan"), 1.0])).tolist()
    [0.0, 1.0]
    """
    x = tensor(x)
    if x.dtype.is_complex:
        # NumPy replaces in each component
        return cygrad.complex(nan_to_num(cygrad.real(x), nan=nan, posinf=posinf, neginf=neginf),
                              nan_to_num(cygrad.imag(x), nan=nan, posinf=posinf, neginf=neginf))
    if not x.dtype.is_floating_point:
        return x.clone() if copy else x
    return cygrad.nan_to_num(x, nan=nan, posinf=posinf, neginf=neginf)
