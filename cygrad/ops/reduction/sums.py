"""Sums and products: ``sum``, ``nansum``, ``mean``, ``nanmean``, ``prod``.

Integer and bool inputs of ``sum``/``prod`` accumulate into int64; float16 and
bfloat16 accumulate in float32 and are rounded once at the end.
"""
from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._argcheck import int_arg
from ..creation import eye, ones
from ._common import (numpy_keywords, _UNSET, _accumulate_dtype, _check_tensor, _dims, _emit,
                      _kernel, _keepdim, _parse_dims, _reduced_count, _wrap_dims)
from ._autograd import _mask, _no_out, _Reduced, _saved


@tensor_method
@numpy_keywords
def sum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum of all elements, or over ``dim`` (an int or a tuple of ints).

    Bool and integer tensors sum into int64 unless ``dtype`` says otherwise; with
    ``dtype`` the input is converted first.  An empty reduction gives 0.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2, 3], [4, 5, 6]])
    >>> cygrad.sum(x, dim=0).tolist()
    [5, 7, 9]
    >>> x.sum((0, 1), keepdim=True).tolist()
    [[21]]
    """
    _check_tensor(input, "sum")
    keepdim = _keepdim(keepdim, "sum")
    if out is None:
        # Through the method so cygrad.sum(x) and x.sum() share the C fast path (and
        # its rounding); the method comes back to _sum_entry for everything else.
        return TensorBase.sum(input, dim, keepdim, dtype=dtype)
    return _sum_entry(input, dim, keepdim, dtype, out)


def _sum_entry(input, dim=None, keepdim=False, dtype=None, out=None):
    """``sum`` wherever the core's C fast path does not apply (registered with the
    core): the arguments checked once, then ``Sum``."""
    if keepdim is not True and keepdim is not False:
        _keepdim(keepdim, "sum")
    if out is not None:
        _no_out(out, "sum", input)
    dims = _dims(input, dim, "sum")
    dt = _accumulate_dtype(input, dtype, out, "sum")
    result = (Sum if dim is None else SumDim).apply(input, dims, keepdim, dt)
    return result if out is None else _emit(result, dt, out, "sum")


_C_SUMMED = frozenset((_dt.float32, _dt.float64))


class Sum(Function):
    """Every summed element has derivative 1: its gradient is the output's gradient,
    broadcast back over the summed dims.

    ``forward(input, dims, keepdim, dt)``: ``dims`` wrapped and sorted (None: every
    dim), ``dt`` the result dtype.
    """
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim, dt):
        ctx.red, ctx.dtype = _Reduced(input, dims, keepdim), dt
        # A full sum, or one over the last dim, of a contiguous float32/float64 CPU
        # tensor is the core's C row reduction, reached through Tensor.sum; anything
        # else is the reduce_sum kernel.  The test repeats the conditions of the core's
        # C path (_reduce_fast in _core/tensor.pyx) exactly: where that path declines,
        # Tensor.sum hands the call back to Sum, and so to this forward.
        if dims is None:
            c_rows = not keepdim
        else:
            c_rows = len(dims) == 1 and dims[0] == input.dim() - 1
        if c_rows and dt in _C_SUMMED and input.dtype is dt and input.is_contiguous() \
                and input.numel() and input.device.type == "cpu":
            return TensorBase.sum(input, None if dims is None else dims[0], keepdim)
        return _kernel("reduce_sum", input)(input, dims, keepdim, dt)

    @staticmethod
    def backward(ctx, grad):
        return ctx.red.expand(grad), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return sum(t, ctx.red.axes, ctx.red.keepdim, dtype=ctx.dtype)


class SumAll(Function):
    """``x.sum()`` of a tensor that requires grad (the core applies it directly): the
    gradient of every element is the output's gradient."""
    _node_name = "SumBackward0"

    @staticmethod
    def forward(ctx, input):
        ctx.shape = input.shape
        # the core's C kernel; where it does not apply, Tensor.sum hands over to Sum
        return input.sum()

    @staticmethod
    def backward(ctx, grad):
        return grad.expand(ctx.shape)

    @staticmethod
    def jvp(ctx, t):
        return t.sum()




class SumDim(Sum):
    """``sum`` over given dims (PyTorch's second overload, hence the node's name)."""
    _node_name = "SumBackward1"


def _not_nan(x):
    """1 where ``x`` is a number, 0 where it is NaN (a constant of x's dtype)."""
    x = x.detach()
    return _mask(x == x, x.dtype)


@tensor_method
@numpy_keywords
def nansum(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Sum treating NaN as zero.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nansum(cygrad.tensor([1.0, float("nan"), 2.0])).item()
    3.0
    """
    _check_tensor(input, "nansum")
    _no_complex_nan(input)
    _keepdim(keepdim, "nansum")
    _no_out(out, "nansum", input)
    dims = _dims(input, dim, "nansum")
    dt = _accumulate_dtype(input, dtype, out, "nansum")
    result = Nansum.apply(input, dims, keepdim, dt)
    return result if out is None else _emit(result, dt, out, "nansum")


def _no_complex_nan(input):
    # PyTorch's message for both (nanmean is nansum over a count)
    if input.dtype.is_complex:
        raise RuntimeError(f"nansum on {input.device.type.upper()} does not support complex "
                           f"inputs")


class Nansum(Function):
    """Like ``sum``, but a NaN element (counted as 0) gets no gradient."""
    _node_name = "NansumBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim, dt):
        ctx.red = _Reduced(input, dims, keepdim)
        ctx.save_for_backward(input)
        return _kernel("reduce_nansum", input)(input, dims, keepdim, dt)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx.red.expand(grad) * _not_nan(x), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return ctx.red.sum(t * _not_nan(_saved(ctx)[0]))


def _mean_dtype(input, dtype, opname):
    if dtype is not None:
        dt = _dt.as_dtype(dtype)
        if not (dt.is_floating_point or dt.is_complex):
            raise RuntimeError(f"{opname}(): could not infer output dtype. Optional dtype must "
                               f"be either a floating point or complex dtype. Got: "
                               f"{_C._torch_type_name(dt)}")
        return dt
    if not (input.dtype.is_floating_point or input.dtype.is_complex):
        raise RuntimeError(f"{opname}(): could not infer output dtype. Input dtype must be "
                           f"either a floating point or complex dtype. Got: "
                           f"{_C._torch_type_name(input.dtype)}")
    return input.dtype


@tensor_method
@numpy_keywords
def mean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Arithmetic mean of all elements, or over ``dim``.

    Needs a floating point input (or ``dtype``); the mean of nothing is NaN.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 2.0], [3.0, 5.0]])
    >>> x.mean().item()
    2.75
    >>> cygrad.mean(x, dim=1).tolist()
    [1.5, 4.0]
    """
    _check_tensor(input, "mean")
    dim, keepdim = _parse_dims(dim, "mean"), _keepdim(keepdim, "mean")
    dt = _mean_dtype(input, dtype, "mean")       # PyTorch checks the dtype before the dims
    _no_out(out, "mean", input)
    dims = _wrap_dims(input, dim)
    result = (Mean if dim is None else MeanDim).apply(input, dims, keepdim, dt)
    return result if out is None else _emit(result, dt, out, "mean")


class Mean(Function):
    """Each element contributes ``1/n`` of the mean of its ``n``-element slice."""
    _node_name = "MeanBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim, dt):
        ctx.red, ctx.dtype = _Reduced(input, dims, keepdim), dt
        return _kernel("reduce_mean", input)(input, dims, keepdim, dt,
                                             _reduced_count(input, dims))

    @staticmethod
    def backward(ctx, grad):
        return ctx.red.expand(grad / ctx.red.count), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return mean(t, ctx.red.axes, ctx.red.keepdim, dtype=ctx.dtype)


class MeanDim(Mean):
    """``mean`` over given dims (PyTorch's second overload)."""
    _node_name = "MeanBackward1"


@tensor_method
@numpy_keywords
def nanmean(input, dim=None, keepdim=False, *, dtype=None, out=None):
    """Mean of the non-NaN elements (NaN where there are none).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.nanmean(cygrad.tensor([1.0, float("nan"), 3.0])).item()
    2.0
    """
    _check_tensor(input, "nanmean")
    _no_complex_nan(input)
    dim, keepdim = _parse_dims(dim, "nanmean"), _keepdim(keepdim, "nanmean")
    dt = _mean_dtype(input, dtype, "nanmean")
    _no_out(out, "nanmean", input)
    dims = _wrap_dims(input, dim)
    result = Nanmean.apply(input, dims, keepdim, dt)
    return result if out is None else _emit(result, dt, out, "nanmean")


class Nanmean(Function):
    """Each number in a slice with ``k`` numbers contributes ``1/k``; NaNs nothing."""
    _node_name = "NanmeanBackward0"

    @staticmethod
    def _weights(x, red):
        valid = _not_nan(x)
        # an all-NaN slice: 0/0, NaN as in PyTorch
        return valid / _kernel("reduce_sum", valid)(valid, red.axes, True, x.dtype)

    @staticmethod
    def forward(ctx, input, dims, keepdim, dt):
        ctx.red = _Reduced(input, dims, keepdim)
        ctx.save_for_backward(input)
        return _kernel("reduce_nanmean", input)(input, dims, keepdim, dt)

    @staticmethod
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx.red.unreduce(grad) * Nanmean._weights(x, ctx.red), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return ctx.red.sum(t * Nanmean._weights(_saved(ctx)[0], ctx.red))


@tensor_method
@numpy_keywords
def prod(input, dim=_UNSET, keepdim=False, *, dtype=None, out=None):
    """Product of all elements, or over ``dim``.

    Bool and integer tensors multiply into int64; an empty product is 1.
    ``dim`` is a single int, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2], [3, 4]])
    >>> x.prod().item()
    24
    >>> cygrad.prod(x, 1).tolist()
    [2, 12]
    """
    _check_tensor(input, "prod")
    keepdim = _keepdim(keepdim, "prod")
    if dim is _UNSET:
        dim = None
    else:       # PyTorch's prod has no dim-list overload, and an explicit None matches none
        dim = int_arg(dim, "prod", "dim")
    _no_out(out, "prod", input)
    dims = _wrap_dims(input, dim)
    dt = _accumulate_dtype(input, dtype, out, "prod")
    result = (Prod if dim is None else ProdDim).apply(input, dims, keepdim, dt)
    return result if out is None else _emit(result, dt, out, "prod")


def _omit_each(r):
    """``(..., n) -> (..., n, n)``: row ``k`` is ``r`` with its element ``k`` replaced
    by 1 (differentiable; used where zeros rule out dividing by an element)."""
    diag = eye(r.shape[-1], dtype=r.dtype)
    return r.unsqueeze(-2) * (1 - diag) + diag


def _prod_others(x, result, red):
    """For each element of ``x``, the product of the other elements of its slice: the
    derivative of ``prod``.

    Without zeros it is ``result / x``.  With zeros (one zero: only that element gets
    a nonzero derivative; two or more: none does) it is computed directly: by a
    kernel, or, when the formula must itself be differentiable (double backward), as the
    product of each slice with one element at a time replaced by 1 (O(n^2) memory,
    as PyTorch does in that case).
    """
    if not red.dims:                            # 0-d input: prod(x) = x
        return ones((), dtype=x.dtype)
    if not (x.detach() == 0).any():
        return red.unreduce(result) / x
    if _C.is_grad_enabled() and x.requires_grad:
        return red.unrows(prod(_omit_each(red.rows(x)), -1))
    rows = red.rows(x.detach())
    return red.unrows(_kernel("exclusive_products", rows)(rows))


class Prod(Function):
    """The derivative of a product by one factor is the product of the others."""
    _node_name = "ProdBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim, dt):
        ctx.red = _Reduced(input, dims, keepdim)
        result = _kernel("reduce_prod", input)(input, dims, keepdim, dt)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        x, result = ctx.saved_tensors
        # conj: the product is holomorphic in each factor (PyTorch's complex convention)
        return (ctx.red.unreduce(grad) * _prod_others(x, result, ctx.red).conj(),
                None, None, None)

    @staticmethod
    def jvp(ctx, t, *unused):
        x, result = _saved(ctx)
        return ctx.red.sum(t * _prod_others(x, result, ctx.red))


class ProdDim(Prod):
    """``prod`` over a dim (PyTorch's second overload)."""
    _node_name = "ProdBackward1"
