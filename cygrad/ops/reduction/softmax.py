"""Exponential normalisations: ``softmax``, ``log_softmax`` and ``logsumexp``, all
computed stably (the max is subtracted before ``exp``).
"""
import warnings

import numpy as np

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._quiet import quiet
from ._common import (_acc_np, _axes, _check_tensor, _dims, _emit, _keepdim, _parse_dims,
                      _single_dim, _squeeze, _wrap)
from ._autograd import _no_out, _Reduced, _saved
from .sums import sum


def _softmax_dim(input, dim, opname):
    """``dim``, or PyTorch's old implicit choice (with its deprecation warning)."""
    _check_tensor(input, opname)
    if dim is None:
        dim = 0 if input.dim() in (0, 1, 3) else 1
        warnings.warn(f"Implicit dimension choice for {opname} has been deprecated. Change "
                      f"the call to include dim=X as an argument.", UserWarning, stacklevel=3)
    return dim


def _softmax_setup(input, dim, dtype, opname):
    """(float NumPy array to work on, dim, result dtype)."""
    d = _single_dim(input, dim, opname)
    dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{opname}_kernel_impl" not implemented for '
                                  f"'{_C._torch_type_name(dt)}'")
    a = _C._ndarray(input).astype(_acc_np(dt), copy=False)
    return (a.reshape(1) if input.dim() == 0 else a), d, dt


@tensor_method
def softmax(input, dim=None, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably (the max along ``dim``
    is subtracted first, so large inputs do not overflow).

    ``dtype`` converts the input first.  Leaving out ``dim`` warns and picks one
    the way PyTorch's old implicit rule did.

    Examples
    --------
    >>> import cygrad
    >>> p = cygrad.softmax(cygrad.tensor([[1000.0, 1000.0], [0.0, 0.0]]), dim=1)
    >>> p.tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    dim = _softmax_dim(input, dim, "softmax")
    if _C.needs_autograd(input):
        return Softmax.apply(input, dim, dtype)
    return _softmax(input, dim, dtype)


def _softmax(input, dim, dtype):
    a, d, dt = _softmax_setup(input, dim, dtype, "softmax")
    with quiet():
        e = np.exp(a - np.max(a, axis=d, keepdims=True, initial=-np.inf))
        res = e / np.sum(e, axis=d, keepdims=True)
    return _wrap(res.reshape(input.shape), dt)


class Softmax(Function):
    """With ``y = softmax(x)``: ``dy_i/dx_j = y_i (delta_ij - y_j)``, so the gradient is
    ``y * (g - sum(g * y))``."""
    _node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.d = _single_dim(input, dim, "softmax")
        y = _softmax(input, dim, dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return y * (grad - sum(grad * y, ctx.d, keepdim=True)), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        y, = _saved(ctx)
        return y * (t - sum(y * t, ctx.d, keepdim=True))


@tensor_method
def log_softmax(input, dim=None, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably as
    ``(x - max) - log(sum(exp(x - max)))``.

    Examples
    --------
    >>> import cygrad
    >>> y = cygrad.log_softmax(cygrad.tensor([1000.0, 1000.0]), dim=0)
    >>> [round(v, 4) for v in y.tolist()]
    [-0.6931, -0.6931]
    """
    dim = _softmax_dim(input, dim, "log_softmax")
    if _C.needs_autograd(input):
        return LogSoftmax.apply(input, dim, dtype)
    return _log_softmax(input, dim, dtype)


def _log_softmax(input, dim, dtype):
    a, d, dt = _softmax_setup(input, dim, dtype, "log_softmax")
    with quiet():
        shifted = a - np.max(a, axis=d, keepdims=True, initial=-np.inf)
        res = shifted - np.log(np.sum(np.exp(shifted), axis=d, keepdims=True))
    return _wrap(res.reshape(input.shape), dt)


class LogSoftmax(Function):
    """With ``y = log_softmax(x)``: ``dy_i/dx_j = delta_ij - exp(y_j)``, so the gradient is
    ``g - exp(y) * sum(g)``."""
    _node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, dim, dtype):
        ctx.d = _single_dim(input, dim, "log_softmax")
        y = _log_softmax(input, dim, dtype)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        return grad - y.exp() * sum(grad, ctx.d, keepdim=True), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        y, = _saved(ctx)
        return t - sum(y.exp() * t, ctx.d, keepdim=True)


@tensor_method
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed stably: the max is
    subtracted before ``exp`` and added back after ``log``.

    Integer inputs give the default float dtype; a row of only ``-inf`` gives
    ``-inf``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1000.0, 1000.0], dtype=cygrad.float64)
    >>> round(cygrad.logsumexp(x, 0).item(), 4)
    1000.6931
    """
    _check_tensor(input, "logsumexp")
    if dim is None:
        raise TypeError("logsumexp(): argument 'dim' (position 2) must be tuple of ints, "
                        "not NoneType")
    dim, keepdim = _parse_dims(dim, "logsumexp"), _keepdim(keepdim, "logsumexp")
    if _C.needs_autograd(input):
        _no_out(out, "logsumexp")
        return Logsumexp.apply(input, dim, keepdim)
    return _logsumexp(input, dim, keepdim, out)


def _logsumexp(input, dim, keepdim, out=None):
    dims = _dims(input, dim, "logsumexp")
    dt = input.dtype if input.dtype.is_floating_point else _dt.get_default_dtype()
    if isinstance(out, TensorBase) and not out.dtype.is_floating_point:
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, "
                           f"but got: {_C._torch_type_name(out.dtype)}")
    acc = _acc_np(dt)
    axes = _axes(input, dims)
    with quiet():
        a = _C._ndarray(input).astype(acc, copy=False)
        shift = np.max(a, axis=axes, keepdims=True, initial=-np.inf)
        # An infinite max cannot be subtracted (inf - inf is NaN); shift by 0 there.
        shift = np.where(np.isinf(shift), acc.type(0), shift)
        res = np.log(np.sum(np.exp(a - shift), axis=axes, keepdims=True)) + shift
    res = res.reshape(()) if axes is None and not keepdim else _squeeze(res, axes, keepdim)
    return _emit(res, dt, out, "logsumexp")


class Logsumexp(Function):
    """``d logsumexp / d x_i = exp(x_i - logsumexp)``: the slice's softmax."""
    _node_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, input, dim, keepdim):
        ctx.red = _Reduced(input, _dims(input, dim, "logsumexp"), keepdim)
        result = _logsumexp(input, dim, keepdim)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        red = ctx.red
        return red.unreduce(grad) * (x - red.unreduce(result)).exp(), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        red = ctx.red
        return red.sum(t * (x - red.unreduce(result)).exp())
