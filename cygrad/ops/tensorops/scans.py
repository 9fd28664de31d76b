"""Running extremes and log-sum-exp scans (``cummax``, ``cummin``, ``logcumsumexp``)
and the in-place ``cumsum_``/``cumprod_``.
"""
from ..._tensor import tensor_method
from ...autograd.function import Function, once_differentiable
from ..reduction import cumsum, cumprod
from ..reduction._autograd import _saved
from ..reduction._common import _check_tensor, _kernel, _result_type, _single_dim

__all__ = ["cummax", "cummin", "logcumsumexp"]

_CummaxResult = _result_type("cummax")
_CumminResult = _result_type("cummin")


class CumExtreme(Function):
    """Each output is one input element (the one at ``indices``): the gradient goes
    back there, summed where an element stays the extreme for several outputs."""
    _node_name = "CummaxBackward0"

    @staticmethod
    def forward(ctx, input, d, largest):
        values, indices = _kernel("cum_extreme", input)(input, d, largest)
        ctx.d, ctx.indices = d, indices
        ctx.mark_non_differentiable(indices)
        return values, indices

    @staticmethod
    def backward(ctx, grad, _unused):
        if grad.dim() == 0:
            return grad, None, None
        return grad.new_zeros(tuple(grad.shape)).scatter_add(ctx.d, ctx.indices, grad), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return (t if t.dim() == 0 else t.gather(ctx.d, ctx.indices)), None


def _cum_extreme(input, dim, largest, opname, result):
    _check_tensor(input, opname)
    d = _single_dim(input, dim, opname)
    if input.is_complex():
        raise RuntimeError(f"{opname}(): not implemented for complex tensors")
    if input.dim() == 0:
        return result(input.clone(), _zero_index(input))
    values, indices = CumExtreme.apply(input, d, largest)
    return result(values, indices)


def _zero_index(input):
    from ..creation import zeros
    from ..._core.dtype import int64
    return zeros((), dtype=int64, device=input.device)


@tensor_method
def cummax(input, dim):
    """Running maximum along ``dim`` and the index where it was (last) reached, as
    ``torch.cummax``; returns ``(values, indices)``.  A NaN, once met, stays.

    Examples
    --------
    >>> import cygrad
    >>> v, i = cygrad.cummax(cygrad.tensor([1.0, 3.0, 2.0, 3.0]), 0)
    >>> v.tolist(), i.tolist()
    ([1.0, 3.0, 3.0, 3.0], [0, 1, 1, 3])
    """
    return _cum_extreme(input, dim, True, "cummax", _CummaxResult)


@tensor_method
def cummin(input, dim):
    """Running minimum along ``dim`` and its index, as ``torch.cummin``.

    Examples
    --------
    >>> import cygrad
    >>> v, i = cygrad.cummin(cygrad.tensor([3.0, 1.0, 2.0]), 0)
    >>> v.tolist(), i.tolist()
    ([3.0, 1.0, 1.0], [0, 1, 1])
    """
    return _cum_extreme(input, dim, False, "cummin", _CumminResult)


@tensor_method
def logcumsumexp(input, dim):
    """``log(cumsum(exp(input), dim))`` computed without overflow, as
    ``torch.logcumsumexp``.

    Examples
    --------
    >>> import cygrad
    >>> [round(v, 4) for v in cygrad.logcumsumexp(cygrad.tensor([0.0, 0.0, 1000.0]), 0).tolist()]
    [0.0, 0.6931, 1000.0]
    """
    _check_tensor(input, "logcumsumexp")
    d = _single_dim(input, dim, "logcumsumexp")
    if not input.is_floating_point():
        raise NotImplementedError("\"logcumsumexp_out_cpu\" not implemented for "
                           f"'{str(input.dtype).replace('cygrad.', '').capitalize()}'")
    if input.dim() == 0:
        return Logcumsumexp.apply(input.reshape(1), 0).reshape(())
    return Logcumsumexp.apply(input, d)


def _flip(t, d):
    return t.flip(d)


def _log_part(mask, v):
    """``log(v)`` where ``mask``, ``-inf`` elsewhere; the log never sees a zero, so
    its derivative (double backward) stays finite."""
    from ..indexing import where
    safe = where(mask, v, v.new_ones(()))
    return where(mask, safe.log(), v.new_full((), float("-inf")))


def _signed_log_scan(v, shift, d, reverse):
    """``sum`` over each prefix (suffix when ``reverse``) of ``v * exp(shift)``, kept in
    log space per sign of ``v`` so that nothing overflows: returns the pair of log
    sums of the positive and negative parts."""
    pos = _log_part(v > 0, v) + shift
    neg = _log_part(v < 0, -v) + shift
    if reverse:
        return (_flip(logcumsumexp(_flip(pos, d), d), d),
                _flip(logcumsumexp(_flip(neg, d), d), d))
    return logcumsumexp(pos, d), logcumsumexp(neg, d)


class Logcumsumexp(Function):
    """``out_i = log sum_{k<=i} exp(x_k)``: ``d out_i / d x_k = exp(x_k - out_i)``
    (``k <= i``).  Both directions are sums of signed terms, taken in log space
    per sign (PyTorch's way), so they neither overflow nor lose the small terms."""
    _node_name = "LogcumsumexpBackward0"

    @staticmethod
    def forward(ctx, input, d):
        out = _kernel("logcumsumexp", input)(input, d)
        ctx.d = d
        ctx.save_for_backward(input, out)
        return out

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        # (double backward through the log-space split is not supported yet: the
        # graph of this formula gave wrong second derivatives, so it is refused)
        x, out = ctx.saved_tensors
        # grad_k = sum_{i>=k} g_i exp(x_k - out_i)
        lp, ln = _signed_log_scan(grad, -out, ctx.d, True)
        return (lp + x).exp() - (ln + x).exp(), None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, out = _saved(ctx)
        # dout_i = sum_{k<=i} t_k exp(x_k - out_i)
        lp, ln = _signed_log_scan(t, x, ctx.d, False)
        return (lp - out).exp() - (ln - out).exp()


@tensor_method(name="cumsum_")
def cumsum_(input, dim, *, dtype=None):
    """In-place :func:`cygrad.cumsum`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, 2.0, 3.0])
    >>> x.cumsum_(0) is x, x.tolist()
    (True, [1.0, 3.0, 6.0])
    """
    return input.copy_(cumsum(input, dim, dtype=dtype))


@tensor_method(name="cumprod_")
def cumprod_(input, dim, *, dtype=None):
    """In-place :func:`cygrad.cumprod`.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, 2.0, 3.0])
    >>> x.cumprod_(0) is x, x.tolist()
    (True, [1.0, 2.0, 6.0])
    """
    return input.copy_(cumprod(input, dim, dtype=dtype))
