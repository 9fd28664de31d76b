"""Helpers shared by the distributions: broadcasting parameters, probabilities and
logits, float limits, lazily computed attributes.

Examples
--------
>>> import cygrad
>>> from cygrad.distributions.utils import broadcast_all, probs_to_logits
>>> a, b = broadcast_all(cygrad.zeros(3), 1.0)
>>> b.tolist()
[1.0, 1.0, 1.0]
>>> [round(v, 4) for v in probs_to_logits(cygrad.tensor([0.25, 0.5]), is_binary=True).tolist()]
[-1.0986, 0.0]
"""
import numbers
from functools import update_wrapper

import cygrad

__all__ = ["broadcast_all", "logits_to_probs", "probs_to_logits", "clamp_probs",
           "lazy_property", "tril_matrix_to_vec", "vec_to_tril_matrix", "finfo_eps",
           "finfo_tiny"]

# Float limits per dtype (cygrad has no ``finfo`` yet; these are IEEE constants).
_EPS = {"float16": 2.0 ** -10, "bfloat16": 2.0 ** -7, "float32": 2.0 ** -23,
        "float64": 2.0 ** -52}
_TINY = {"float16": 2.0 ** -14, "bfloat16": 2.0 ** -126, "float32": 2.0 ** -126,
         "float64": 2.0 ** -1022}


def _dtype_name(dtype):
    return str(dtype).split(".")[-1]


def finfo_eps(dtype):
    """Machine epsilon of a floating dtype (``torch.finfo(dtype).eps``).

    Examples
    --------
    >>> import cygrad
    >>> finfo_eps(cygrad.float32)
    1.1920928955078125e-07
    """
    return _EPS[_dtype_name(dtype)]


def finfo_tiny(dtype):
    """Smallest positive normal number of a floating dtype (``torch.finfo(dtype).tiny``).

    Examples
    --------
    >>> import cygrad
    >>> finfo_tiny(cygrad.float64)
    2.2250738585072014e-308
    """
    return _TINY[_dtype_name(dtype)]


def is_tensor(x):
    return isinstance(x, cygrad.Tensor)


def broadcast_all(*values):
    """Broadcast tensors and numbers to one shape; numbers become tensors of the
    first tensor's dtype and device (the default dtype if there is none).

    Raises ``ValueError`` for anything else, as PyTorch does.

    Examples
    --------
    >>> import cygrad
    >>> [t.shape for t in broadcast_all(cygrad.zeros(2, 1), cygrad.zeros(3))]
    [cygrad.Size([2, 3]), cygrad.Size([2, 3])]
    """
    if not all(is_tensor(v) or isinstance(v, numbers.Number) for v in values):
        raise ValueError("Input arguments must all be instances of numbers.Number, "
                         "torch.Tensor or objects implementing __torch_function__.")
    if not all(is_tensor(v) for v in values):
        like = next((v for v in values if is_tensor(v)), None)
        opts = ({"dtype": like.dtype, "device": like.device} if like is not None
                else {"dtype": cygrad.get_default_dtype()})
        values = [v if is_tensor(v) else cygrad.tensor(v, **opts) for v in values]
    shape = cygrad.broadcast_shapes(*(v.shape for v in values))
    # tensors already of the broadcast shape are returned as they are
    return [v if v.shape == shape else v.expand(shape) for v in values]


def _standard_normal(shape, dtype, device):
    return cygrad.empty(shape, dtype=dtype, device=device).normal_()


def _sum_rightmost(value, dim):
    """Sum out the ``dim`` rightmost dims of ``value``."""
    if dim == 0:
        return value
    return value.reshape(value.shape[:value.dim() - dim] + (-1,)).sum(-1)


def logits_to_probs(logits, is_binary=False):
    """Probabilities from logits: a sigmoid for binary ones, else a softmax over the
    last dim.

    Examples
    --------
    >>> import cygrad
    >>> logits_to_probs(cygrad.tensor([0.0, 0.0])).tolist()
    [0.5, 0.5]
    """
    if is_binary:
        return cygrad.sigmoid(logits)
    return cygrad.softmax(logits, dim=-1)


def clamp_probs(probs):
    """Clamp probabilities into ``[eps, 1 - eps]`` of their dtype, so logs stay finite.

    Examples
    --------
    >>> import cygrad
    >>> clamp_probs(cygrad.tensor([0.0, 1.0], dtype=cygrad.float64)).tolist()
    [2.220446049250313e-16, 0.9999999999999998]
    """
    eps = finfo_eps(probs.dtype)
    return probs.clamp(min=eps, max=1 - eps)


def probs_to_logits(probs, is_binary=False):
    """Logits from probabilities (log-odds for binary ones, else the logs of the
    clamped probabilities).

    Examples
    --------
    >>> import cygrad
    >>> probs_to_logits(cygrad.tensor([0.5]), is_binary=True).tolist()
    [0.0]
    """
    ps_clamped = clamp_probs(probs)
    if is_binary:
        return cygrad.log(ps_clamped) - cygrad.log1p(-ps_clamped)
    return cygrad.log(ps_clamped)


class lazy_property:
    """A property computed on first access and then stored on the instance; on the
    class it acts as ``constraints.dependent_property`` for ``arg_constraints``.

    Examples
    --------
    >>> class A:
    ...     @lazy_property
    ...     def x(self):
    ...         print("computed")
    ...         return 1
    >>> a = A()
    >>> a.x
    computed
    1
    >>> a.x
    1
    """

    def __init__(self, wrapped):
        self.wrapped = wrapped
        update_wrapper(self, wrapped)

    def __get__(self, instance, obj_type=None):
        if instance is None:
            return _lazy_property_and_property(self.wrapped)
        with cygrad.enable_grad():
            value = self.wrapped(instance)
        setattr(instance, self.wrapped.__name__, value)
        return value


class _lazy_property_and_property(lazy_property, property):
    def __init__(self, wrapped):
        property.__init__(self, wrapped)


def tril_matrix_to_vec(mat, diag=0):
    """The lower triangle (with ``diag`` diagonals above or below) of the last two
    dims, read row by row into a vector.

    Examples
    --------
    >>> import cygrad
    >>> tril_matrix_to_vec(cygrad.tensor([[1., 2.], [3., 4.]])).tolist()
    [1.0, 3.0, 4.0]
    """
    n = mat.shape[-1]
    if not -n <= diag < n:
        raise ValueError(f"diag ({diag}) provided is outside [{-n}, {n - 1}].")
    keep = cygrad.ones(n, n, dtype=cygrad.bool).tril(diag)
    return mat[..., keep]


def vec_to_tril_matrix(vec, diag=0):
    """Inverse of :func:`tril_matrix_to_vec`: a vector filled row by row into the
    lower triangle of a square matrix (zeros elsewhere).

    Examples
    --------
    >>> import cygrad
    >>> vec_to_tril_matrix(cygrad.tensor([1., 3., 4.])).tolist()
    [[1.0, 0.0], [3.0, 4.0]]
    """
    # n is the root of n * (n + 1) / 2 + diag * n - (diag * (diag + 1)) / 2 == length
    length = vec.shape[-1]
    n = round((-(1 + 2 * diag) + ((1 + 2 * diag) ** 2 + 8 * length
                                  + 4 * abs(diag) * (diag + 1)) ** 0.5) / 2)
    keep = cygrad.ones(n, n, dtype=cygrad.bool).tril(diag)
    if int(keep.sum().item()) != length:
        raise ValueError(f"The size of last dimension is {length} which cannot be "
                         f"expressed as the lower triangular part of a square D x D matrix.")
    flat_index = cygrad.arange(n * n)[keep.reshape(-1)]
    out = vec.new_zeros(vec.shape[:-1] + (n * n,))
    index = flat_index.expand(vec.shape[:-1] + (length,))
    out = out.scatter(-1, index, vec)
    return out.reshape(vec.shape[:-1] + (n, n))
