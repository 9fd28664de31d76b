"""Extremes: ``max``, ``min``, ``amax``, ``amin``, ``aminmax``, ``argmax``, ``argmin``.

NaN propagates (it counts as larger than every number).  ``max()``/``amax`` split
their gradient among tied elements; ``max(dim)`` sends it to ``indices``.
"""
import numbers

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from .._argcheck import bool_arg, int_arg
from ..elementwise.binary import Maximum, Minimum
from ._common import (numpy_keywords, _AminmaxResult, _check_nonempty, _check_tensor, _emit,
                      _emit_pair, _kernel, _keepdim, _MaxResult, _MinResult, _no_overload,
                      _parse_dims, _refuse_complex, _single_dim, _UNSET, _wrap_dims)
from ._autograd import _no_out, _Reduced, _saved, _Selection, _tie_weights, _TieSplit


def _extreme_entry(input, dim, keepdim, out, opname):
    """Shared body of max/min: PyTorch's three call forms, told apart and checked,
    then the Function of the form: ``MaxAll``/``MaxDim``/``MaxOther`` (``Min...``)."""
    largest = opname == "max"
    if dim is _UNSET or isinstance(dim, TensorBase):
        if keepdim is not False:                # only max(input, dim) takes keepdim
            raise _no_overload(opname, (input, dim, keepdim))
        if dim is _UNSET:
            dim = None
    elif dim is None:
        raise _no_overload(opname, (input, dim))
    else:
        bool_arg(keepdim, opname, "keepdim")
    if isinstance(dim, TensorBase):
        # max(input, other): the elementwise maximum, through the core's elementwise
        # dispatcher like every binary op (it broadcasts, fills out=, and applies
        # MaxOther when autograd must record)
        return _C.binary_op(_MAX_OTHER if largest else _MIN_OTHER, input, dim, out)
    _refuse_complex(input, opname, opname + "_all" if dim is None else None)
    _no_out(out, opname, input)
    if dim is None:
        _check_nonempty(input, None, opname)
        result = (MaxAll if largest else MinAll).apply(input)
        return result if out is None else _emit(result, input.dtype, out, opname, exact=True)
    d = _single_dim(input, dim, opname)
    _check_nonempty(input, (d,), opname)
    values, indices = (MaxDim if largest else MinDim).apply(input, d, keepdim)
    return _emit_pair(_MaxResult if largest else _MinResult, values, indices, input.dtype, out,
                      opname)


@tensor_method
@numpy_keywords
def max(input, dim=_UNSET, keepdim=False, *, out=None):
    """Largest element; or ``(values, indices)`` along ``dim``; or, given a tensor
    ``other`` in place of ``dim``, the elementwise maximum.

    NaN propagates: a row holding NaN has max NaN and the NaN's index.  Gradients:
    ``max()`` splits its gradient evenly among tied maxima; along ``dim`` it goes to
    the element at ``indices``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    >>> x.max().item()
    7.0
    >>> values, indices = cygrad.max(x, dim=1)
    >>> values.tolist(), indices.tolist()
    ([5.0, 7.0], [1, 0])
    >>> cygrad.max(x, cygrad.tensor(4.0)).tolist()
    [[4.0, 5.0, 4.0], [7.0, 4.0, 4.0]]
    """
    _check_tensor(input, "max")
    return _extreme_entry(input, dim, keepdim, out, "max")


@tensor_method
@numpy_keywords
def min(input, dim=_UNSET, keepdim=False, *, out=None):
    """Smallest element; or ``(values, indices)`` along ``dim``; or, given a tensor
    ``other`` in place of ``dim``, the elementwise minimum.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 5.0, 2.0], [7.0, 0.0, 3.0]])
    >>> x.min().item()
    0.0
    >>> cygrad.min(x, 0).indices.tolist()
    [0, 1, 0]
    """
    _check_tensor(input, "min")
    return _extreme_entry(input, dim, keepdim, out, "min")


class MaxAll(_TieSplit):
    """``max()`` of the whole tensor (NaN propagates)."""
    _node_name = "MaxBackward1"

    @staticmethod
    def forward(ctx, input):
        result = _kernel("reduce_extreme", input)(input, None, False, True)
        return MaxAll._chosen(ctx, input, None, False, result)


class MinAll(_TieSplit):
    """``min()`` of the whole tensor (NaN propagates)."""
    _node_name = "MinBackward1"

    @staticmethod
    def forward(ctx, input):
        result = _kernel("reduce_extreme", input)(input, None, False, False)
        return MinAll._chosen(ctx, input, None, False, result)


class MaxDim(_Selection):
    """``max(dim)``: each value's gradient goes to the element ``indices`` names.

    ``forward(input, d, keepdim)`` with ``d`` wrapped; a NaN wins, with the first
    NaN's index."""
    _node_name = "MaxBackward0"

    @staticmethod
    def forward(ctx, input, d, keepdim):
        values, indices = _kernel("extreme_dim", input)(input, d, keepdim, True)
        return MaxDim._selected(ctx, input, values, indices, d, not keepdim)


class MinDim(_Selection):
    """``min(dim)``: each value's gradient goes to the element ``indices`` names."""
    _node_name = "MinBackward0"

    @staticmethod
    def forward(ctx, input, d, keepdim):
        values, indices = _kernel("extreme_dim", input)(input, d, keepdim, False)
        return MinDim._selected(ctx, input, values, indices, d, not keepdim)


class MaxOther(Maximum):
    """``max(input, other)``: the elementwise maximum with broadcasting.  PyTorch
    records it as ``maximum`` (hence the node's name), and so does this class:
    forward, backward and jvp are ``Maximum``'s (the larger operand gets the
    gradient, ties split it)."""
    _node_name = "MaximumBackward0"


class MinOther(Minimum):
    """``min(input, other)``: the elementwise minimum, recorded as ``minimum`` (see
    ``MaxOther``)."""
    _node_name = "MinimumBackward0"


def _dispatcher_row(function):
    """A row of the core's elementwise dispatcher that computes exactly as the row
    of the op ``function`` inherits (``maximum``, ``minimum``) and names
    ``function`` as the Function to apply when grad is needed."""
    op = function.op
    row = _C.ElementwiseOp(op.name, op.arity, op.c_op, op.ufunc, op.result, op.inputs,
                           op.zero_check, op.out_rule)
    row.function = function
    return row


_MAX_OTHER, _MIN_OTHER = _dispatcher_row(MaxOther), _dispatcher_row(MinOther)


def _amax_amin_entry(input, dim, keepdim, out, opname):
    """Shared body of amax/amin: arguments checked once, then ``Amax``/``Amin``."""
    _refuse_complex(input, opname, opname[1:] + "_values_cpu")
    dim, keepdim = _parse_dims(dim, opname), _keepdim(keepdim, opname)
    _no_out(out, opname, input)
    if type(dim) is tuple and input.numel() == 0 and input.dim() > 0:
        # PyTorch looks for an empty reduced dim before it looks for a repeated one
        _check_nonempty(input, [_C._wrap(d, input.dim()) for d in dim], opname)
    dims = _wrap_dims(input, dim)
    _check_nonempty(input, dims, opname, dim if isinstance(dim, numbers.Integral) else None)
    if out is not None and isinstance(out, TensorBase) and out.dtype != input.dtype:
        raise RuntimeError(f"Expected the dtype for input and out to match, but got "
                           f"{_C._torch_type_name(input.dtype)} for input's dtype and "
                           f"{_C._torch_type_name(out.dtype)} for out's dtype.")
    result = (Amax if opname == "amax" else Amin).apply(input, dims, keepdim)
    return result if out is None else _emit(result, input.dtype, out, opname)


@tensor_method
@numpy_keywords
def amax(input, dim=(), keepdim=False, *, out=None):
    """Largest value over ``dim`` (an int or a tuple; ``()`` means every dim).

    The gradient is split evenly among tied maxima.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 5], [7, 0]])
    >>> cygrad.amax(x, 0).tolist()
    [7, 5]
    >>> x.amax((0, 1)).item()
    7
    """
    _check_tensor(input, "amax")
    if out is None:
        # the method's C path where it applies; it comes back to _amax_entry otherwise
        return TensorBase.amax(input, dim, keepdim)
    return _amax_amin_entry(input, dim, keepdim, out, "amax")


def _amax_entry(input, dim=(), keepdim=False, out=None):
    """``amax`` when the core's C fast path does not apply (registered with the core)."""
    return _amax_amin_entry(input, dim, keepdim, out, "amax")


@tensor_method
@numpy_keywords
def amin(input, dim=(), keepdim=False, *, out=None):
    """Smallest value over ``dim`` (an int or a tuple; ``()`` means every dim).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.amin(cygrad.tensor([[1, 5], [7, 0]]), 1).tolist()
    [1, 0]
    """
    _check_tensor(input, "amin")
    if out is None:
        return TensorBase.amin(input, dim, keepdim)
    return _amax_amin_entry(input, dim, keepdim, out, "amin")


def _amin_entry(input, dim=(), keepdim=False, out=None):
    """``amin`` when the core's C fast path does not apply (registered with the core)."""
    return _amax_amin_entry(input, dim, keepdim, out, "amin")


class Amax(_TieSplit):
    """``amax``: the gradient is shared evenly by the tied maxima of each slice.

    ``forward(input, dims, keepdim)`` with ``dims`` wrapped and sorted (None: all)."""
    _node_name = "AmaxBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim):
        result = _kernel("reduce_extreme", input)(input, dims, keepdim, True)
        return Amax._chosen(ctx, input, dims, keepdim, result, False)


class Amin(_TieSplit):
    """``amin``: the gradient is shared evenly by the tied minima of each slice."""
    _node_name = "AminBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim):
        result = _kernel("reduce_extreme", input)(input, dims, keepdim, False)
        return Amin._chosen(ctx, input, dims, keepdim, result, False)


@tensor_method
@numpy_keywords
def aminmax(input, *, dim=None, keepdim=False, out=None):
    """``(min, max)`` in one call, over ``dim`` or every element.

    Examples
    --------
    >>> import cygrad
    >>> r = cygrad.aminmax(cygrad.tensor([3, 1, 4]))
    >>> r.min.item(), r.max.item()
    (1, 4)
    """
    _check_tensor(input, "aminmax")
    _refuse_complex(input, "aminmax", "aminmax_cpu")
    keepdim = _keepdim(keepdim, "aminmax")
    _no_out(out, "aminmax", input)
    d = None if dim is None else _single_dim(input, dim, "aminmax")
    dims = None if d is None or input.dim() == 0 else (d,)
    _check_nonempty(input, dims, "aminmax")
    lo, hi = Aminmax.apply(input, dims, keepdim)
    if out is None:
        return _AminmaxResult(lo, hi)
    return _AminmaxResult(_emit(lo, input.dtype, out[0], "aminmax", exact=True),
                          _emit(hi, input.dtype, out[1], "aminmax", exact=True))


class Aminmax(Function):
    """Both results split their gradients among their ties, like amin and amax.

    ``forward(input, dims, keepdim)``: ``dims`` is None (all) or one wrapped dim, ``(d,)``."""
    _node_name = "AminmaxBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim):
        lo, hi = _kernel("aminmax", input)(input, dims, keepdim)
        ctx.red = _Reduced(input, dims, keepdim)
        ctx.save_for_backward(input, lo, hi)
        return lo, hi

    @staticmethod
    def backward(ctx, grad_min, grad_max):
        x, lo, hi = ctx.saved_tensors
        red = ctx.red
        return (red.unreduce(grad_min) * _tie_weights(x, lo, red, False)
                + red.unreduce(grad_max) * _tie_weights(x, hi, red, False)), None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        x, lo, hi = _saved(ctx)
        red = ctx.red
        return (red.sum(t * _tie_weights(x, lo, red, False)),
                red.sum(t * _tie_weights(x, hi, red, False)))


def _arg_extreme(input, dim, keepdim, out, opname):
    if dim is not None and type(dim) is not int:
        dim = int_arg(dim, opname, "dim")       # the parser's TypeError comes first
    _keepdim(keepdim, opname)
    _refuse_complex(input, opname)
    if input.dtype == _dt.bool_:
        raise RuntimeError(f"{opname}(): does not support bool input")
    if dim is None:
        if input.numel() == 0:
            raise IndexError(f"{opname}(): Expected reduction dim to be specified for "
                             f"input.numel() == 0.")
        d = None
    else:
        d = _single_dim(input, dim, opname)
        if input.dim() and input.shape[d] == 0:
            raise IndexError(f"{opname}(): Expected reduction dim {d} to have non-zero size.")
    res = _kernel("arg_extreme", input)(input, d, bool(keepdim), opname == "argmax")
    return _emit(res, _dt.int64, out, opname, exact=True)


@tensor_method
@numpy_keywords
def argmax(input, dim=None, keepdim=False, *, out=None):
    """Index of the largest element (of the flattened tensor when ``dim`` is None).

    The first maximum wins ties; a NaN counts as the maximum.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1.0, 9.0], [7.0, 3.0]])
    >>> x.argmax().item()
    1
    >>> cygrad.argmax(x, dim=0).tolist()
    [1, 0]
    """
    _check_tensor(input, "argmax")
    return _arg_extreme(input, dim, keepdim, out, "argmax")


@tensor_method
@numpy_keywords
def argmin(input, dim=None, keepdim=False, *, out=None):
    """Index of the smallest element (of the flattened tensor when ``dim`` is None).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.argmin(cygrad.tensor([[1.0, 9.0], [7.0, 3.0]]), dim=1).tolist()
    [0, 1]
    """
    _check_tensor(input, "argmin")
    return _arg_extreme(input, dim, keepdim, out, "argmin")
