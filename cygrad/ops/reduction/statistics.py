"""Variance and standard deviation: ``var``, ``std``, ``var_mean``, ``std_mean``,
with PyTorch's three call forms (``dim, unbiased, keepdim``; ``dim, *, correction``;
the legacy ``unbiased`` alone).
"""
import math
import numbers
import warnings

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._argcheck import bool_arg, check_scalar_fits
from ._common import (numpy_keywords, _check_tensor, _emit, _kernel, _keepdim, _no_overload,
                      _parse_dims, _reduced_count, _require_float, _UNSET, _user_stacklevel,
                      _wrap_dims)
from ._autograd import _mask, _no_out, _Reduced, _saved
from .sums import mean


def _correction(opname, correction):
    """``correction`` as a number (any real; an int must fit PyTorch's Scalar)."""
    if correction is None:
        return 1
    if type(correction) is float or (type(correction) is int and -2**63 <= correction < 2**63):
        return correction           # the common cases, fit without further checks
    if isinstance(correction, numbers.Integral):
        return int(check_scalar_fits(correction, _dt.float64))
    if isinstance(correction, numbers.Complex):
        return correction.real
    raise TypeError(f"{opname}(): argument 'correction' must be Number, not "
                    f"{type(correction).__name__}")


def _var_args(input, dim, unbiased, correction, keepdim, out, opname):
    """``(dims, correction, keepdim)`` from var/std's arguments, refused where they
    match none of PyTorch's three overloads: ``(dim, unbiased, keepdim, out)``,
    ``(dim=None, *, correction, keepdim, out)`` and the legacy ``(unbiased)``."""
    _check_tensor(input, opname)
    if isinstance(dim, bool):          # var(x, True): the legacy ``unbiased`` overload
        if unbiased is not _UNSET or correction is not None or keepdim is not False \
                or out is not None:
            raise _no_overload(opname, (input, dim, unbiased, keepdim))
        dim, unbiased = None, dim
    elif unbiased is not _UNSET:
        bool_arg(unbiased, opname, "unbiased")
        if correction is not None:
            raise TypeError(f"{opname}(): pass either 'unbiased' or 'correction', not both")
        if dim is _UNSET and (keepdim is not False or out is not None):
            # without dim only the legacy (input, unbiased) form takes unbiased
            raise _no_overload(opname, (input, unbiased, keepdim))
    dim = _parse_dims(None if dim is _UNSET else dim, opname)
    keepdim = _keepdim(keepdim, opname)
    corr = (1 if unbiased else 0) if unbiased is not _UNSET else _correction(opname, correction)
    if not input.dtype.is_complex:
        _require_float(input, opname, f"{opname} only support floating point and complex dtypes"
                       if opname.endswith("_mean") else
                       "std and var only support floating point and complex dtypes")
    dims = _wrap_dims(input, dim)
    if out is not None and input.dtype.name in ("float16", "bfloat16") \
            and getattr(out, "dtype", input.dtype) is not input.dtype:
        _refuse_half_to_single(input, dims)
    return dims, corr, keepdim


def _refuse_half_to_single(input, dims):
    """PyTorch's CPU var/std has no kernel writing a half-precision input's variance
    into a wider ``out=`` when the result is a single element (its "all" path)."""
    kept = 1
    for d, size in enumerate(input.shape):
        if dims is not None and d not in dims:
            kept *= size
    if kept == 1:
        raise RuntimeError(f"std_var_all: Unsupported dtype {_C._torch_type_name(input.dtype)}")


def _var_and_mean(input, dims, corr, keepdim, opname, take_sqrt=False):
    """(variance, mean) as tensors of the input's dtype; the standard deviation in
    place of the variance when ``take_sqrt``."""
    n = _reduced_count(input, dims)
    dof = n - corr
    if not dof > 0:             # also a NaN correction: no degrees of freedom, as PyTorch
        dof = 0
        warnings.warn(f"{opname}(): degrees of freedom is <= 0. Correction should be strictly "
                      f"less than the reduction factor (input numel divided by output numel).",
                      UserWarning, stacklevel=_user_stacklevel())
    return _kernel("var_mean", input)(input, dims, keepdim, n, dof,
                                      take_sqrt)


def _var_backward(grad, x, red, corr):
    """Gradient of the variance: ``2 (x_i - mean) / (n - correction)`` per element,
    times the output's gradient (written with cygrad ops: twice differentiable).

    The same formula holds for complex ``x`` under PyTorch's convention (the
    gradient of a real result is ``dL/dRe + i dL/dIm``): the variance is the real
    part's plus the imaginary part's."""
    dof = red.count - corr
    centered = x - mean(x, red.axes, keepdim=True)
    return red.unreduce(grad) * centered * (2.0 / dof if dof else math.inf)


def _var_jvp(t, x, red, corr):
    dof = red.count - corr
    centered = x - mean(x, red.axes, keepdim=True)
    # a complex tangent moves the real variance by Re(conj(centered) * t)
    moved = (centered.conj() * t).real if x.is_complex() else centered * t
    return red.sum(moved) * (2.0 / dof if dof else math.inf)


def _over_twice(grad, std):
    """``grad / (2 std)``, taken as 0 where ``std`` is 0 (a constant slice has no
    direction to move in: PyTorch's choice too)."""
    zero = _mask(std.detach() == 0, std.dtype)
    return grad / (2 * (std + zero)) * (1 - zero)


@tensor_method
@numpy_keywords(cast_dtype=True)
def var(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None, out=None):
    """Variance over ``dim``: ``sum((x - mean)^2) / (N - correction)``.

    ``correction=1`` (the default) is Bessel's unbiased estimate, ``0`` the population
    variance; the legacy ``unbiased`` bool means ``correction = int(unbiased)``. The
    variance of complex values is real: ``sum(|x - mean|^2) / (N - correction)``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 2.0, 3.0], [2.0, 4.0, 6.0]])
    >>> cygrad.var(x, dim=1).tolist()
    [1.0, 4.0]
    >>> x.var(1, correction=0, keepdim=True).shape
    cygrad.Size([2, 1])
    >>> cygrad.var(cygrad.tensor([1 + 1j, 3 - 1j]))
    tensor(4.)
    """
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, out, "var")
    _no_out(out, "var", input)
    result = Var.apply(input, dims, corr, keepdim)
    return result if out is None else _emit(result, result.dtype, out, "var")


class Var(Function):
    """``var``; see ``_var_backward``."""
    _node_name = "VarBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        ctx.save_for_backward(input)
        return _var_and_mean(input, dims, corr, keepdim, "var")[0]

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return _var_backward(grad, x, ctx.red, ctx.corr), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return _var_jvp(t, _saved(ctx)[0], ctx.red, ctx.corr)


@tensor_method
@numpy_keywords(cast_dtype=True)
def std(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None, out=None):
    """Standard deviation over ``dim``: the square root of ``var``.

    Its gradient is taken as 0 where the result is 0.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.std(cygrad.tensor([2.0, 4.0, 6.0])).item()
    2.0
    """
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, out, "std")
    _no_out(out, "std", input)
    result = Std.apply(input, dims, corr, keepdim)
    return result if out is None else _emit(result, result.dtype, out, "std")


class Std(Function):
    """``std = sqrt(var)``: d std = d var / (2 std)."""
    _node_name = "StdBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        result, _ = _var_and_mean(input, dims, corr, keepdim, "std", True)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        return _var_backward(_over_twice(grad, result), x, ctx.red, ctx.corr), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        return _over_twice(_var_jvp(t, x, ctx.red, ctx.corr), result)


@numpy_keywords
def var_mean(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None):
    """``(var, mean)`` over ``dim`` in one pass (a plain tuple, as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> v, m = cygrad.var_mean(cygrad.tensor([1.0, 2.0, 3.0]))
    >>> v.item(), m.item()
    (1.0, 2.0)
    """
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, None, "var_mean")
    return VarMean.apply(input, dims, corr, keepdim)


class VarMean(Function):
    """``(var, mean)``: the gradients of both parts add up."""
    _node_name = "VarMeanBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        ctx.save_for_backward(input)
        return _var_and_mean(input, dims, corr, keepdim, "var_mean")

    @staticmethod
    def backward(ctx, grad_var, grad_mean):
        x, = ctx.saved_tensors
        red = ctx.red
        grad = _var_backward(grad_var, x, red, ctx.corr) + red.expand(grad_mean / red.count)
        return grad, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        red = ctx.red
        return _var_jvp(t, _saved(ctx)[0], red, ctx.corr), mean(t, red.axes, red.keepdim)


@numpy_keywords
def std_mean(input, dim=_UNSET, unbiased=_UNSET, keepdim=False, *, correction=None):
    """``(std, mean)`` over ``dim`` (a plain tuple, as in PyTorch).

    Examples
    --------
    >>> import cygrad
    >>> s, m = cygrad.std_mean(cygrad.tensor([2.0, 4.0, 6.0]))
    >>> s.item(), m.item()
    (2.0, 4.0)
    """
    dims, corr, keepdim = _var_args(input, dim, unbiased, correction, keepdim, None, "std_mean")
    return StdMean.apply(input, dims, corr, keepdim)


class StdMean(Function):
    """``(std, mean)``: the gradients of both parts add up."""
    _node_name = "StdMeanBackward0"

    @staticmethod
    def forward(ctx, input, dims, corr, keepdim):
        ctx.red, ctx.corr = _Reduced(input, dims, keepdim), corr
        result, mu = _var_and_mean(input, dims, corr, keepdim, "std_mean", True)
        ctx.save_for_backward(input, result)
        return result, mu

    @staticmethod
    def backward(ctx, grad_std, grad_mean):
        x, result = ctx.saved_tensors
        red = ctx.red
        grad = (_var_backward(_over_twice(grad_std, result), x, red, ctx.corr)
                + red.expand(grad_mean / red.count))
        return grad, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        red = ctx.red
        return (_over_twice(_var_jvp(t, x, red, ctx.corr), result),
                mean(t, red.axes, red.keepdim))
