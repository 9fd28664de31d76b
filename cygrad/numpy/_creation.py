"""Creation functions of the array API standard (and NumPy's common extras).

Defaults are NumPy's: a float fill or range gives float64, an int one int64.

Examples
--------
>>> import cygrad.numpy as cnp
>>> cnp.zeros((2, 2)).dtype
cygrad.float64
>>> cnp.arange(3)
tensor([0, 1, 2])
"""
import builtins
import operator

import cygrad
from . import _dtypes as D
from ._helpers import asarray, tensor, _device_arg

__all__ = ["arange", "asarray", "array", "empty", "empty_like", "eye", "identity", "from_dlpack",
           "full", "full_like", "linspace", "logspace", "meshgrid", "ones", "ones_like", "tril",
           "triu", "zeros", "zeros_like", "copy"]


def _shape(shape):
    if isinstance(shape, (tuple, list)):
        return tuple(operator.index(s) for s in shape)
    return (operator.index(shape),)


def _dt(dtype, default=D.DEFAULT_FLOAT):
    return default if dtype is None else D.as_dtype(dtype)


def _like_dt(x, dtype):
    return x.dtype if dtype is None else D.as_dtype(dtype)


def array(obj, dtype=None, *, copy=True, device=None):
    """NumPy's ``array``: ``asarray`` that copies by default.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> a = cnp.asarray([1.0]); b = cnp.array(a); b[0] = 5.0
    >>> a.tolist()
    [1.0]
    """
    return asarray(obj, dtype=dtype, device=device, copy=copy)


def copy(x, /):
    """A copy of ``x`` that stays in the autograd graph.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.copy(cnp.asarray([1, 2])).tolist()
    [1, 2]
    """
    return tensor(x).clone()


def arange(start, /, stop=None, step=1, *, dtype=None, device=None):
    """Evenly spaced values in ``[start, stop)``; float64 if any argument is a float.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.arange(1, 2, 0.25).tolist()
    [1.0, 1.25, 1.5, 1.75]
    """
    if stop is None:
        start, stop = 0, start
    if dtype is None:
        is_float = builtins.any(isinstance(v, builtins.float) for v in (start, stop, step))
        dtype = D.DEFAULT_FLOAT if is_float else D.DEFAULT_INT
    if step != 0 and (stop - start) * step <= 0:
        # a step pointing away from stop gives no values (the standard, NumPy);
        # cygrad.arange raises there, as PyTorch's
        return cygrad.empty(0, dtype=D.as_dtype(dtype), device=_device_arg(device))
    return cygrad.arange(start, stop, step, dtype=D.as_dtype(dtype), device=_device_arg(device))


def empty(shape, *, dtype=None, device=None):
    """An uninitialized array (float64 by default).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.empty((2, 3)).shape
    cygrad.Size([2, 3])
    """
    return cygrad.empty(_shape(shape), dtype=_dt(dtype), device=_device_arg(device))


def zeros(shape, *, dtype=None, device=None):
    """An array of zeros (float64 by default).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.zeros(2).tolist()
    [0.0, 0.0]
    """
    return cygrad.zeros(_shape(shape), dtype=_dt(dtype), device=_device_arg(device))


def ones(shape, *, dtype=None, device=None):
    """An array of ones (float64 by default).

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.ones((1, 2), dtype=cnp.int8).tolist()
    [[1, 1]]
    """
    return cygrad.ones(_shape(shape), dtype=_dt(dtype), device=_device_arg(device))


def full(shape, fill_value, *, dtype=None, device=None):
    """An array filled with ``fill_value``; the dtype follows the fill value's kind.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.full(2, 7).dtype, cnp.full(2, True).dtype
    (cygrad.int64, cygrad.bool)
    """
    if dtype is None:
        dtype = D.result_type(fill_value)
    return cygrad.full(_shape(shape), fill_value, dtype=D.as_dtype(dtype),
                       device=_device_arg(device))


def _like_device(x, device):
    return x.device if device is None else _device_arg(device)


def empty_like(x, /, *, dtype=None, device=None):
    """An uninitialized array shaped like ``x``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.empty_like(cnp.ones(3, dtype=cnp.int8)).dtype
    cygrad.int8
    """
    return cygrad.empty(x.shape, dtype=_like_dt(x, dtype), device=_like_device(x, device))


def zeros_like(x, /, *, dtype=None, device=None):
    """Zeros shaped like ``x``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.zeros_like(cnp.ones(2)).tolist()
    [0.0, 0.0]
    """
    return cygrad.zeros(x.shape, dtype=_like_dt(x, dtype), device=_like_device(x, device))


def ones_like(x, /, *, dtype=None, device=None):
    """Ones shaped like ``x``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.ones_like(cnp.zeros(2), dtype=cnp.int64).tolist()
    [1, 1]
    """
    return cygrad.ones(x.shape, dtype=_like_dt(x, dtype), device=_like_device(x, device))


def full_like(x, /, fill_value, *, dtype=None, device=None):
    """``fill_value`` shaped like ``x``, in ``x``'s dtype unless ``dtype`` is given.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.full_like(cnp.zeros(2, dtype=cnp.int32), 3).tolist()
    [3, 3]
    """
    return cygrad.full(x.shape, fill_value, dtype=_like_dt(x, dtype), device=_like_device(x, device))


def eye(n_rows, n_cols=None, /, *, k=0, dtype=None, device=None):
    """Ones on the ``k``-th diagonal of an ``n_rows x n_cols`` matrix.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.eye(2, 3, k=1).tolist()
    [[0.0, 1.0, 0.0], [0.0, 0.0, 1.0]]
    """
    n_cols = n_rows if n_cols is None else n_cols
    dt = _dt(dtype)
    out = cygrad.zeros((n_rows, n_cols), dtype=dt, device=_device_arg(device))
    if -n_rows < k < n_cols:
        out.diagonal(offset=k).fill_(1)
    return out


def identity(n, dtype=None, *, device=None):
    """NumPy's ``identity``: ``eye(n)``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.identity(2).tolist()
    [[1.0, 0.0], [0.0, 1.0]]
    """
    return eye(n, dtype=dtype, device=device)


def from_dlpack(x, /, *, device=None, copy=None):
    """A tensor sharing memory with a DLPack-capable object.

    Examples
    --------
    >>> import numpy as np, cygrad.numpy as cnp
    >>> cnp.from_dlpack(np.arange(3.0)).tolist()
    [0.0, 1.0, 2.0]
    """
    out = cygrad.from_dlpack(x)
    if copy:
        out = out.clone()
    return out if device is None else out.to(_device_arg(device))


def linspace(start, stop, /, num, *, dtype=None, device=None, endpoint=True):
    """``num`` evenly spaced values from ``start`` to ``stop``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.linspace(0, 1, 4, endpoint=False).tolist()
    [0.0, 0.25, 0.5, 0.75]
    """
    num = operator.index(num)
    if num < 0:
        raise ValueError(f"Number of samples, {num}, must be non-negative.")
    dt = _dt(dtype)
    dev = _device_arg(device)
    if endpoint:
        return cygrad.linspace(start, stop, num, dtype=D.DEFAULT_FLOAT, device=dev).to(dt)
    # the first num of num + 1 points: the same values as endpoint=True gives (the
    # standard asks for exactly that)
    return cygrad.linspace(start, stop, num + 1, dtype=D.DEFAULT_FLOAT, device=dev)[:num].to(dt)


def logspace(start, stop, num=50, endpoint=True, base=10.0, dtype=None):
    """``base ** linspace(start, stop, num)``.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.logspace(0, 2, 3).tolist()
    [1.0, 10.0, 100.0]
    """
    exps = linspace(start, stop, num, endpoint=endpoint)
    return cygrad.pow(base, exps).to(_dt(dtype))


def meshgrid(*arrays, indexing="xy"):
    """Coordinate matrices from 1-D arrays (``indexing="xy"`` or ``"ij"``); a list.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> X, Y = cnp.meshgrid(cnp.arange(3), cnp.arange(2))
    >>> X.shape
    cygrad.Size([2, 3])
    """
    if indexing not in ("xy", "ij"):
        raise ValueError("Valid values for `indexing` are 'xy' and 'ij'.")
    arrays = [tensor(a).reshape(-1) for a in arrays]
    if not arrays:
        return []
    from ._elementwise import _common
    dt = _common(arrays)
    return list(cygrad.meshgrid(*[a.to(dt) for a in arrays], indexing=indexing))


def tril(x, /, *, k=0):
    """The lower triangle of (a stack of) matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.tril(cnp.ones((2, 2))).tolist()
    [[1.0, 0.0], [1.0, 1.0]]
    """
    return cygrad.tril(tensor(x), diagonal=k)


def triu(x, /, *, k=0):
    """The upper triangle of (a stack of) matrices.

    Examples
    --------
    >>> import cygrad.numpy as cnp
    >>> cnp.triu(cnp.ones((2, 2)), k=1).tolist()
    [[0.0, 1.0], [0.0, 0.0]]
    """
    return cygrad.triu(tensor(x), diagonal=k)
