"""NumPy's method spellings on ``Tensor``, for NumPy code run on ``cygrad.numpy`` arrays.

``astype`` and ``copy`` are NumPy's methods that PyTorch lacks; ``ravel``/``flatten``
take NumPy's ``order``, and ``item`` its indices (``TensorBase.item`` in the core).
The reductions' ``axis``/``keepdims``/``ddof``/``out``/``dtype`` keywords are read by
``numpy_keywords`` in ``cygrad/ops/reduction/_common.py`` (and the core's ``sum``,
``amax``, ``amin``).  Where NumPy and PyTorch give one spelling two meanings,
PyTorch's stays (``std``'s default correction, ``flatten`` returning a view); the
differences table of ``docs/numpy.md`` lists them.

Importing this module installs the methods on ``cygrad.Tensor``.
"""
import numpy as np

from ._core.dtype import as_dtype, bool_
from ._tensor import tensor_method

_ORDERS = ("C", "F", "A", "K")
_CASTINGS = ("no", "equiv", "safe", "same_kind", "unsafe")


def numpy_order_flat(x, order, opname):
    """``x``'s elements as a 1-D tensor in NumPy's ``order``: ``'C'`` (row-major), ``'F'``
    (column-major); ``'A'`` and ``'K'`` mean ``'F'`` for a column-major tensor that is
    not also row-major, else ``'C'``.  A view when the layout allows, as ``reshape``.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 2], [3, 4]])
    >>> x.flatten("F").tolist(), x.ravel(order="C").tolist()
    ([1, 3, 2, 4], [1, 2, 3, 4])
    """
    if not isinstance(order, str) or order.upper() not in _ORDERS:
        raise ValueError(f"{opname}(): order must be one of 'C', 'F', 'A', or 'K' "
                         f"(got {order!r})")
    order = order.upper()
    reversed_dims = x.permute(*range(x.dim() - 1, -1, -1))
    if order == "F" or (order in ("A", "K") and not x.is_contiguous()
                        and reversed_dims.is_contiguous()):
        x = reversed_dims
    return x.reshape(-1)


@tensor_method
def ravel(self, order="C"):
    """The elements as a 1-D tensor (a view when the layout allows), as ``torch.ravel``;
    NumPy's ``order`` (``'C'``, ``'F'``, ``'A'``, ``'K'``) is accepted too.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([[1, 2], [3, 4]]).ravel("F").tolist()
    [1, 3, 2, 4]
    """
    return numpy_order_flat(self, order, "ravel")


def _kind(dt):
    """NumPy's order of kinds: bool < integer < floating < complex."""
    if dt.is_complex:
        return 3
    if dt.is_floating_point:
        return 2
    return 0 if dt is bool_ else 1


def _castable(src, dst, casting):
    """NumPy's casting rules between two cygrad dtypes."""
    if casting == "unsafe":
        return True
    if casting in ("no", "equiv"):
        return src is dst
    if casting == "safe":
        return bool(np.can_cast(src.np_dtype, dst.np_dtype, "safe"))
    return _kind(dst) >= _kind(src)       # same_kind: never down a kind


@tensor_method
def astype(self, dtype, order="K", casting="unsafe", subok=True, copy=True):
    """NumPy's ``a.astype(dtype)``: the values cast to ``dtype`` (a cygrad or NumPy
    dtype, or its name), as ``self.to(dtype)``.

    ``copy=False`` returns ``self`` when the dtype already matches; ``casting`` follows
    NumPy's rules (``'unsafe'``, the default, allows any cast); ``order`` and ``subok``
    are accepted for NumPy's sake (the result keeps ``self``'s layout, and is a Tensor).
    The cast is differentiable, as ``to``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.tensor([1.7, -2.2]).astype("int32").tolist()
    [1, -2]
    >>> x = cygrad.ones(2)
    >>> x.astype(cygrad.float32, copy=False) is x
    True
    """
    dt = as_dtype(dtype)
    if not isinstance(order, str) or order.upper() not in _ORDERS:
        raise ValueError(f"astype(): order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    if casting not in _CASTINGS:
        raise ValueError(f"casting must be one of {', '.join(repr(c) for c in _CASTINGS)}")
    if not _castable(self.dtype, dt, casting):
        raise TypeError(f"Cannot cast array data from {self.dtype.np_dtype!r} to "
                        f"{dt.np_dtype!r} according to the rule {casting!r}")
    if not copy and dt is self.dtype:
        return self
    return self.to(dt, copy=True)


@tensor_method
def copy(self, order="C"):
    """NumPy's ``a.copy()``: a new tensor with the same values (``'C'``: contiguous;
    ``'K'``/``'A'``/``'F'``: the same, as cygrad tensors are made row-major).  Like
    ``clone``, it stays on the autograd graph.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([1.0, 2.0])
    >>> y = x.copy(); y[0] = 5.0
    >>> x.tolist()
    [1.0, 2.0]
    """
    if not isinstance(order, str) or order.upper() not in _ORDERS:
        raise ValueError(f"copy(): order must be one of 'C', 'F', 'A', or 'K' (got {order!r})")
    return self.clone().contiguous()

