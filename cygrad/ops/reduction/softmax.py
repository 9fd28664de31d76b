"""Exponential normalisations: ``softmax``, ``log_softmax`` and ``logsumexp``, all
computed stably (the max is subtracted before ``exp``).
"""
import warnings

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ..._core.dispatch import lookup
from ...autograd.function import Function
from .._argcheck import int_arg
from ._common import (numpy_keywords, _check_tensor, _emit, _kernel, _keepdim, _parse_dims,
                      _wrap_dims)
from ._autograd import _no_out, _Reduced, _saved
from .sums import sum


def _softmax_args(input, dim, dtype, opname):
    """softmax/log_softmax's checked arguments: (wrapped dim, dtype computed in).

    ``dim`` is checked as PyTorch's parser checks ``torch.softmax``'s: an int, None
    included in what it refuses (only ``nn.functional`` has the implicit choice)."""
    _check_tensor(input, opname)
    if type(dim) is not int:
        dim = int_arg(dim, opname, "dim", 2)
    d = _C._wrap(dim, input.dim())
    dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
    if not dt.is_floating_point:
        raise NotImplementedError(f'"{opname}_kernel_impl" not implemented for '
                                  f"'{_C._torch_type_name(dt)}'")
    return d, dt


def implicit_dim(input, opname, stacklevel=3):
    """PyTorch's old implicit ``dim`` of ``nn.functional.softmax``/``log_softmax``
    called without one (0 for 0-, 1- and 3-d inputs, else 1), with its deprecation
    warning.

    Examples
    --------
    >>> import warnings, cygrad
    >>> from cygrad.ops.reduction.softmax import implicit_dim
    >>> with warnings.catch_warnings():
    ...     warnings.simplefilter("ignore")
    ...     implicit_dim(cygrad.zeros(2, 3), "softmax")
    1
    """
    warnings.warn(f"Implicit dimension choice for {opname} has been deprecated. Change "
                  f"the call to include dim=X as an argument.", UserWarning, stacklevel=stacklevel)
    return 0 if input.dim() in (0, 1, 3) else 1


def _fused_backward(y, grad, d, log):
    """The gradient by the one-pass kernel (float32/float64), or None where the
    composed formula must run: other dtypes, devices without the kernel, and
    ``create_graph=True``, whose gradient must itself be differentiable."""
    if _C.is_grad_enabled() or grad.dtype is not y.dtype:
        return None
    k = lookup("softmax_backward", y.device.type, y.dtype)
    return None if k is None else k(y, grad, d, log)


@tensor_method
@numpy_keywords
def softmax(input, dim, dtype=None):
    """``exp(x) / sum(exp(x))`` along ``dim``, computed stably (the max along ``dim``
    is subtracted first, so large inputs do not overflow).

    ``dtype`` converts the input first.  ``dim`` is required (as in ``torch.softmax``;
    ``nn.functional.softmax`` keeps the old implicit choice, see ``implicit_dim``).

    Examples
    --------
    >>> import cygrad
    >>> p = cygrad.softmax(cygrad.tensor([[1000.0, 1000.0], [0.0, 0.0]]), dim=1)
    >>> p.tolist()
    [[0.5, 0.5], [0.5, 0.5]]
    """
    d, dt = _softmax_args(input, dim, dtype, "softmax")
    return Softmax.apply(input, d, dt)


class Softmax(Function):
    """With ``y = softmax(x)``: ``dy_i/dx_j = y_i (delta_ij - y_j)``, so the gradient is
    ``y * (g - sum(g * y))``.

    ``forward(input, d, dt)``: ``d`` the wrapped dim, ``dt`` the dtype computed in."""
    _node_name = "SoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, d, dt):
        ctx.d = d
        y = _kernel("softmax", input)(input, d, dt, False)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        fused = _fused_backward(y, grad, ctx.d, False)
        if fused is not None:
            return fused, None, None
        return y * (grad - sum(grad * y, ctx.d, keepdim=True)), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        y, = _saved(ctx)
        return y * (t - sum(y * t, ctx.d, keepdim=True))


@tensor_method
@numpy_keywords
def log_softmax(input, dim, dtype=None):
    """``log(softmax(x))`` along ``dim``, computed stably as
    ``(x - max) - log(sum(exp(x - max)))``.

    Examples
    --------
    >>> import cygrad
    >>> y = cygrad.log_softmax(cygrad.tensor([1000.0, 1000.0]), dim=0)
    >>> [round(v, 4) for v in y.tolist()]
    [-0.6931, -0.6931]
    """
    d, dt = _softmax_args(input, dim, dtype, "log_softmax")
    return LogSoftmax.apply(input, d, dt)


class LogSoftmax(Function):
    """With ``y = log_softmax(x)``: ``dy_i/dx_j = delta_ij - exp(y_j)``, so the gradient is
    ``g - exp(y) * sum(g)``."""
    _node_name = "LogSoftmaxBackward0"

    @staticmethod
    def forward(ctx, input, d, dt):
        ctx.d = d
        y = _kernel("softmax", input)(input, d, dt, True)
        ctx.save_for_backward(y)
        return y

    @staticmethod
    def backward(ctx, grad):
        y, = ctx.saved_tensors
        fused = _fused_backward(y, grad, ctx.d, True)
        if fused is not None:
            return fused, None, None
        return grad - y.exp() * sum(grad, ctx.d, keepdim=True), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        y, = _saved(ctx)
        return t - sum(y.exp() * t, ctx.d, keepdim=True)


@tensor_method
@numpy_keywords
def logsumexp(input, dim, keepdim=False, *, out=None):
    """``log(sum(exp(input)))`` over ``dim``, computed stably: the max is
    subtracted before ``exp`` and added back after ``log``.

    Integer inputs give the default float dtype; a row of only ``-inf`` gives
    ``-inf``. A complex input gives a complex result (the max of the real parts
    is the shift), as in PyTorch.

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
    _no_out(out, "logsumexp", input)
    dims = _wrap_dims(input, dim)
    dt = (input.dtype if input.dtype.is_floating_point or input.dtype.is_complex
          else _dt.get_default_dtype())
    if (isinstance(out, TensorBase) and not out.dtype.is_floating_point
            and not out.dtype.is_complex):
        raise RuntimeError(f"logsumexp(): Expected floating point type for result tensor, "
                           f"but got: {_C._torch_type_name(out.dtype)}")
    result = Logsumexp.apply(input, dims, keepdim, dt)
    return result if out is None else _emit(result, dt, out, "logsumexp")


class Logsumexp(Function):
    """``d logsumexp / d x_i = exp(x_i - logsumexp)``: the slice's softmax.

    ``forward(input, dims, keepdim, dt)``: ``dims`` wrapped and sorted, ``dt`` the
    result dtype."""
    _node_name = "LogsumexpBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim, dt):
        ctx.red = _Reduced(input, dims, keepdim)
        result = _kernel("logsumexp", input)(input, dims, keepdim, dt)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        red = ctx.red
        softmax = (x - red.unreduce(result)).exp()
        if softmax.dtype.is_complex:     # a holomorphic function: the conjugate derivative
            softmax = softmax.conj()
        return red.unreduce(grad) * softmax, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        red = ctx.red
        return red.sum(t * (x - red.unreduce(result)).exp())
