"""Boolean reductions and counting: ``all``, ``any``, ``count_nonzero``.
"""
from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ._common import (numpy_keywords, _check_tensor, _dims, _emit, _kernel, _keepdim, _parse_dims,
                      _wrap_dims)


def _all_any(input, dim, keepdim, out, opname):
    _check_tensor(input, opname)
    dim, keepdim = _parse_dims(dim, opname), _keepdim(keepdim, opname)
    # Unlike sum's, all/any's empty dim list reduces nothing (an elementwise test).
    dims = () if dim == () else _wrap_dims(input, dim)
    # uint8 keeps its dtype, a leftover of PyTorch's pre-bool days
    dt = _dt.uint8 if input.dtype == _dt.uint8 else _dt.bool_
    if isinstance(out, TensorBase) and out.dtype not in (_dt.bool_, _dt.uint8):
        raise RuntimeError(f"{opname} only supports bool tensor for result, got: "
                           f"{_C._torch_type_name(out.dtype)}")
    res = _kernel("all_any", input)(input, dims, keepdim, opname == "all", dt)
    return _emit(res, dt, out, opname)


@tensor_method
@numpy_keywords
def all(input, dim=None, keepdim=False, *, out=None):
    """True when every element (over ``dim``) is nonzero; an empty reduction is True.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[1, 0], [2, 3]])
    >>> cygrad.all(x).item()
    False
    >>> x.all(dim=1).tolist()
    [False, True]
    """
    return _all_any(input, dim, keepdim, out, "all")


@tensor_method
@numpy_keywords
def any(input, dim=None, keepdim=False, *, out=None):
    """True when some element (over ``dim``) is nonzero; an empty reduction is False.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[0, 0], [2, 0]])
    >>> x.any().item()
    True
    >>> cygrad.any(x, 1).tolist()
    [False, True]
    """
    return _all_any(input, dim, keepdim, out, "any")


@tensor_method
@numpy_keywords
def count_nonzero(input, dim=None):
    """Number of nonzero elements, over ``dim`` (int or tuple) or the whole tensor.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[0, 1, 2], [3, 0, 0]])
    >>> cygrad.count_nonzero(x).item()
    3
    >>> x.count_nonzero(dim=0).tolist()
    [1, 1, 1]
    """
    _check_tensor(input, "count_nonzero")
    dims = _dims(input, dim, "count_nonzero")
    return _kernel("count_nonzero", input)(input, dims)
