"""``cygrad.numpy``: NumPy's and the Python array API standard's (2024.12) functions
on cygrad tensors, differentiable.

Change ``import numpy as np`` to ``import cygrad.numpy as np`` and the arrays become
cygrad tensors: call ``.backward()`` on a result to get gradients. Type promotion
and special values follow the array API standard (and NumPy where the standard is
silent), not PyTorch: ``int64 + float32`` is float64 here. Defaults are NumPy's
(float64, int64). See ``docs/numpy.md`` for what differs from NumPy.

Examples
--------
>>> import cygrad.numpy as np
>>> w = np.asarray([1.0, -2.0], copy=True).requires_grad_()
>>> loss = np.sum(np.square(w - np.asarray([0.5, 0.5])))
>>> loss.backward()
>>> w.grad.tolist()
[1.0, -5.0]
"""
import builtins as _builtins
import math as _math

import cygrad as _cygrad
from . import _dtypes
from ._dtypes import (bool, int8, int16, int32, int64, uint8, float16, bfloat16, float32,  # noqa: F401
                      float64, complex64, complex128, finfo, iinfo, isdtype, result_type, can_cast)
from ._helpers import asarray  # noqa: F401
from ._creation import *  # noqa: F401,F403
from ._elementwise import *  # noqa: F401,F403
from ._statistical import *  # noqa: F401,F403
from ._manipulation import *  # noqa: F401,F403
from ._searching import *  # noqa: F401,F403
from ._sorting import *  # noqa: F401,F403
from ._sets import *  # noqa: F401,F403
from ._indexing import *  # noqa: F401,F403
from ._utility import *  # noqa: F401,F403
from ._info import __array_namespace_info__  # noqa: F401
from . import linalg, random, fft  # noqa: F401
from .linalg import matmul, outer, tensordot, vecdot, matrix_transpose  # noqa: F401
from ._helpers import tensor as _tensor, operands as _operands

__array_api_version__ = "2024.12"

e = _math.e
pi = _math.pi
inf = _math.inf
nan = _math.nan
newaxis = None

ndarray = _cygrad.Tensor


def astype(x, dtype, /, *, copy=True, device=None):
    """``x`` converted to ``dtype``; ``copy=False`` returns ``x`` itself when nothing
    changes. Stays in the autograd graph.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> x = cnp.asarray([1.7, -1.7])
    >>> cnp.astype(x, cnp.int32).tolist()
    [1, -1]
    >>> cnp.astype(x, cnp.float64, copy=False) is x
    True
    """
    dt = _dtypes.as_dtype(dtype)
    out = x if dt is x.dtype else x.to(dt)
    if device is not None:
        out = out.to(_cygrad.device(device) if isinstance(device, str) else device)
    if copy and out is x:
        out = x.clone()
    return out


def einsum(subscripts, /, *operands):
    """Einstein summation (``"ij,jk->ik"``), operands promoted to a common dtype.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.einsum("ij,ij->i", cnp.ones((2, 3)), cnp.ones((2, 3))).tolist()
    [3.0, 3.0]
    """
    ops = [_tensor(o) for o in operands]
    dt = result_type(*ops)
    return _cygrad.einsum(subscripts, *[o.to(dt) for o in ops])


def dot(a, b):
    """NumPy's ``dot``: scalars multiply, 1-D inner product, 2-D matrix product, and
    ``sum(a[..., :] * b[..., :, :])`` over the last/second-to-last axes otherwise.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.dot(cnp.asarray([1, 2]), cnp.asarray([3, 4])).item()
    11
    """
    x, y = _operands(a, b)
    if x.dim() == 0 or y.dim() == 0:
        return x * y
    if y.dim() == 1:
        return _cygrad.tensordot(x, y, dims=([x.dim() - 1], [0]))
    return _cygrad.tensordot(x, y, dims=([x.dim() - 1], [y.dim() - 2]))


def inner(a, b):
    """Sum of products over the last axes.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.inner(cnp.asarray([[1, 2]]), cnp.asarray([[3, 4]])).tolist()
    [[11]]
    """
    x, y = _operands(a, b)
    if x.dim() == 0 or y.dim() == 0:
        return x * y
    return _cygrad.tensordot(x, y, dims=([x.dim() - 1], [y.dim() - 1]))


def trace(a, offset=0, axis1=0, axis2=1, dtype=None):
    """NumPy's ``trace``: sum along a diagonal of ``axis1``/``axis2``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.trace(cnp.eye(3)).item()
    3.0
    """
    d = _cygrad.diagonal(_tensor(a), offset=offset, dim1=axis1, dim2=axis2)
    return sum(d, axis=-1, dtype=dtype)


def diag(v, k=0):
    """A diagonal of a 2-D array, or a 2-D array with ``v`` on its ``k``-th diagonal.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.diag(cnp.asarray([1, 2])).tolist()
    [[1, 0], [0, 2]]
    """
    v = _tensor(v)
    if v.dim() == 2:
        return _cygrad.diagonal(v, offset=k)
    if v.dim() != 1:
        raise ValueError("Input must be 1- or 2-d.")
    n = v.shape[0] + _builtins.abs(k)
    out = zeros((n, n), dtype=v.dtype)
    rows = arange(v.shape[0]) + _builtins.max(-k, 0)
    cols = arange(v.shape[0]) + _builtins.max(k, 0)
    return out.index_put((rows, cols), v)


def shape(a):
    """The shape of ``a`` as a tuple.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.shape(cnp.ones((2, 3)))
    (2, 3)
    """
    return tuple(_tensor(a).shape)


def size(a):
    """The number of elements of ``a``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.size(cnp.ones((2, 3)))
    6
    """
    return _tensor(a).numel()


def ndim(a):
    """The number of dimensions of ``a``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.ndim(cnp.ones((2, 3)))
    2
    """
    return _tensor(a).dim()
