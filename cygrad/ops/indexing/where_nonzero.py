"""``where`` (choose between two tensors by a condition), ``nonzero`` and
``argwhere`` (positions of the non-zero elements).

Examples
--------
>>> import cygrad
>>> cygrad.nonzero(cygrad.tensor([0, 3, 0, 4])).tolist()
[[1], [3]]
"""
from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd import forward_ad as _fwad
from ...autograd.function import Function
from .._argcheck import bool_arg, check_scalar_fits
from ._common import BOOL_TYPES, NUMBER_TYPES, _broadcast_shapes, _finish, _k, \
    _require_tensor, _tname
from ._autograd import _no_out

__all__ = ["where", "nonzero", "argwhere"]


@tensor_method
def nonzero(input, *, out=None, as_tuple=False):
    """Positions of the non-zero elements of ``input``.

    ``as_tuple=False``: an int64 tensor of shape ``(n, input.dim())``, one row per
    element in row-major order. ``as_tuple=True``: one 1-D int64 tensor per dim, as
    NumPy's ``nonzero`` (a 0-dim input counts as 1-D).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[0, 1], [2, 0]])
    >>> cygrad.nonzero(x).tolist()
    [[0, 1], [1, 0]]
    >>> [t.tolist() for t in cygrad.nonzero(x, as_tuple=True)]
    [[0, 1], [1, 0]]
    """
    _require_tensor(input, "nonzero", "input", 1)
    if bool_arg(as_tuple, "nonzero", "as_tuple"):
        return _k("nonzero", input)(input, True)
    if isinstance(out, TensorBase) and out.dtype != _dt.int64:
        raise RuntimeError(f"nonzero: Expected out tensor to have scalar type Long but got scalar "
                           f"type {_tname(out.dtype)}")
    return _finish(_k("nonzero", input)(input, False), out)


@tensor_method
def argwhere(input):
    """Same as ``nonzero(input)``: an ``(n, input.dim())`` int64 tensor of positions.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.argwhere(cygrad.tensor([0, 3, 0, 4])).tolist()
    [[1], [3]]
    """
    return nonzero(input)


def _number_dtype(x):
    """The dtype a ``where`` branch given as a number has on its own (promotion treats
    it as a weak type next to a tensor)."""
    if isinstance(x, BOOL_TYPES):
        return _dt.bool_
    if isinstance(x, NUMBER_TYPES) and hasattr(x, "dtype"):      # a NumPy scalar
        return _dt.as_dtype(x.dtype)
    if isinstance(x, int):
        return _dt.int64
    if isinstance(x, float):
        return _dt.get_default_dtype()
    raise TypeError(f"where(): expected Tensor or Number, got {type(x).__name__}")


_OPERAND_TYPES = (TensorBase,) + NUMBER_TYPES


def _where_result(condition, input, other):
    """The empty result of ``where``: its broadcast shape and promoted dtype, after
    PyTorch's checks of the numbers among ``input``/``other``."""
    tx, ty = isinstance(input, TensorBase), isinstance(other, TensorBase)
    if tx and ty:
        shape = _broadcast_shapes(tuple(condition.shape), tuple(input.shape),
                                  tuple(other.shape))
        return _C._empty(shape, _C.result_type(input, other), input.device)
    for x in (input, other):
        if not isinstance(x, _OPERAND_TYPES):
            _number_dtype(x)        # refuses what is no number
    if tx or ty:
        dtype = _C.result_type(input, other)
        like = input if tx else other
    else:
        # two numbers: both count as 0-dim tensors of their default dtypes
        dtype = _C.result_type(_C.zeros((), dtype=_number_dtype(input)),
                               _C.zeros((), dtype=_number_dtype(other)))
        like = condition
    # A number must fit the result (PyTorch's checked cast), except that a half type
    # takes any float through float (too big is inf); no Python int past 64 bits can
    # be read at all.
    half = dtype in (_dt.float16, _dt.bfloat16)
    for x in (input, other):
        if isinstance(x, NUMBER_TYPES) and not isinstance(x, BOOL_TYPES):
            check_scalar_fits(x, _dt.float64 if half else dtype)
    shape = condition.shape
    wide = input if tx else other if ty else None
    if wide is not None and wide.shape != shape:
        shape = _broadcast_shapes(tuple(shape), tuple(wide.shape))
    return _C._empty(tuple(shape), dtype, like.device)


class Where(Function):
    """``where``: each branch gets the gradient where it was chosen, zero elsewhere
    (summed over broadcasting by the engine)."""
    _node_name = "WhereBackward0"

    @staticmethod
    def forward(ctx, condition, x, y):
        ctx.save_for_backward(condition)
        shape = condition.shape
        if (isinstance(x, TensorBase) and isinstance(y, TensorBase) and x.dtype is y.dtype
                and x.shape == shape and y.shape == shape):
            # the common case, which needs no promotion, broadcasting or number checks
            if x.is_cpu:
                result = _k("where_small", x)(condition, x, y)
                if result is not None:
                    return result
            result = _C._empty(tuple(shape), x.dtype, x.device)
        else:
            result = _where_result(condition, x, y)
        return _k("where_select", result)(result, condition, x, y)

    @staticmethod
    def backward(ctx, grad):
        condition, = ctx.saved_tensors
        return (None,
                where(condition, grad, 0.0) if ctx.needs_input_grad[1] else None,
                where(condition, 0.0, grad) if ctx.needs_input_grad[2] else None)

    @staticmethod
    def jvp(ctx, _, tx, ty):
        if tx is None and ty is None:
            return None
        condition = _fwad.saved_for_jvp(ctx)[0]
        return where(condition, 0.0 if tx is None else tx, 0.0 if ty is None else ty)


_CONDITION_DTYPES = (_dt.bool_, _dt.uint8)


def where(condition, input=None, other=None, *, out=None):
    """``input`` where ``condition`` is True, else ``other`` (all three broadcast).

    ``input``/``other`` may be Python numbers; the result dtype follows type promotion
    (``cygrad.result_type``). ``where(condition)`` is ``nonzero(condition, as_tuple=True)``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, -2.0, 3.0])
    >>> cygrad.where(x > 0, x, 0).tolist()
    [1.0, 0.0, 3.0]
    >>> cygrad.where(x > 0)[0].tolist()
    [0, 2]
    """
    if input is None and other is None:
        return nonzero(condition, as_tuple=True)
    if input is None or other is None:
        raise TypeError("where() expected 1 or 3 arguments (condition, input, other)")
    if not isinstance(condition, TensorBase):
        raise TypeError(f"where(): argument 'condition' must be Tensor, not "
                        f"{type(condition).__name__}")
    if condition.dtype not in _CONDITION_DTYPES:
        raise RuntimeError(f"where expected condition to be a boolean tensor, but got a tensor "
                           f"with dtype {_tname(condition.dtype)}")
    condition, input, other = _C.scalars_to_device(condition, input, other)
    if out is None:
        return Where.apply(condition, input, other)
    # only where(Tensor, Tensor, Tensor) has an out= overload in PyTorch
    _require_tensor(input, "where", "input", 2)
    _require_tensor(other, "where", "other", 3)
    _no_out(out, "where", input, other)
    result = Where.apply(condition, input, other)
    if isinstance(out, TensorBase) and out.dtype != result.dtype:
        raise RuntimeError(f"Expected out type to be {_tname(result.dtype)} but got "
                           f"{_tname(out.dtype)}")
    return _finish(result, out)


@tensor_method(name="where")
def _where_method(self, condition, other):
    """``self`` where ``condition`` is True, else ``other``
    (``cygrad.where(condition, self, other)``).

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1, -2])
    >>> x.where(x > 0, 0).tolist()
    [1, 0]
    """
    return where(condition, self, other)
