"""Fused pointwise and distance ops: ``addcmul``/``addcdiv`` (and their in-place
forms), ``cdist`` and ``Tensor.sum_to_size``.

Examples
--------
>>> import cygrad
>>> x = cygrad.ones(3)
>>> cygrad.addcmul(x, cygrad.tensor([1., 2., 3.]), cygrad.tensor([2., 2., 2.]), value=0.5).tolist()
[2.0, 3.0, 4.0]
"""
import math
import numbers

from .._core import tensor as _C
from .._core import dtype as _dt
from .._core.tensor import TensorBase
from .._tensor import tensor_method
from ..autograd.function import Function
from ..autograd.forward_ad import saved_for_jvp
from ..autograd.inplace import apply_inplace
from ._argcheck import not_tensor
from .indexing import where
from .shape.broadcasting import broadcast_shapes

__all__ = ["addcmul", "addcdiv", "cdist"]


def _add_terms(*terms):
    present = [t for t in terms if t is not None]
    if not present:
        return None
    total = present[0]
    for t in present[1:]:
        total = total + t
    return total


# ----------------------------------------------------------------------- addcmul / addcdiv

class Addcmul(Function):
    """``input + value * tensor1 * tensor2``, computed as PyTorch's CPU kernel does
    (``(value * tensor1) * tensor2``, then the sum) in the common dtype."""
    _node_name = "AddcmulBackward0"

    @staticmethod
    def forward(ctx, input, tensor1, tensor2, value):
        ctx.save_for_backward(tensor1, tensor2)
        ctx.value = value
        return input + _scaled(tensor1, value) * tensor2

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        return (grad if need[0] else None,
                grad * _scaled(t2, ctx.value).conj() if need[1] else None,
                grad * _scaled(t1, ctx.value).conj() if need[2] else None,
                None)

    @staticmethod
    def jvp(ctx, ti, t1d, t2d, _):
        t1, t2 = saved_for_jvp(ctx)
        v = ctx.value
        return _add_terms(ti, _scaled(t1d, v) * t2 if t1d is not None else None,
                          _scaled(t1, v) * t2d if t2d is not None else None)


class Addcdiv(Function):
    """``input + value * tensor1 / tensor2`` (``(value * tensor1) / tensor2`` as in
    PyTorch's CPU kernel)."""
    _node_name = "AddcdivBackward0"

    @staticmethod
    def forward(ctx, input, tensor1, tensor2, value):
        ctx.save_for_backward(tensor1, tensor2)
        ctx.value = value
        return input + _scaled(tensor1, value) / tensor2

    @staticmethod
    def backward(ctx, grad):
        t1, t2 = ctx.saved_tensors
        need = ctx.needs_input_grad
        grad_t1 = grad * _scaled(t2.reciprocal(), ctx.value).conj() if need[1] else None
        grad_t2 = -grad * (_scaled(t1, ctx.value) / (t2 * t2)).conj() if need[2] else None
        return grad if need[0] else None, grad_t1, grad_t2, None

    @staticmethod
    def jvp(ctx, ti, t1d, t2d, _):
        t1, t2 = saved_for_jvp(ctx)
        v = ctx.value
        return _add_terms(ti, _scaled(t1d, v) / t2 if t1d is not None else None,
                          -_scaled(t1, v) * t2d / (t2 * t2) if t2d is not None else None)


def _scaled(t, value):
    # value == 1 is exact either way; skipping it saves a pass.
    return t if value == 1 else t * value


def _integral(dt):
    # is_floating_point is False for complex dtypes too (as in PyTorch): "integral"
    # (bool included) needs both tests.
    return not dt.is_floating_point and not dt.is_complex


def _pointwise_args(opname, input, tensor1, tensor2, value):
    for name, t in (("input", input), ("tensor1", tensor1), ("tensor2", tensor2)):
        if not isinstance(t, TensorBase):
            raise TypeError(f"{opname}(): argument '{name}' must be Tensor, not "
                            f"{type(t).__name__}")
    if isinstance(value, TensorBase):
        value = value.item()
    if not isinstance(value, numbers.Number):
        raise TypeError(f"{opname}(): argument 'value' must be Number, not "
                        f"{type(value).__name__}")
    dt = _C.result_type(input, tensor1, tensor2)
    if _integral(dt):
        # PyTorch converts the scalar to the tensors' type (0.5 -> 0 for integers);
        # a complex dtype keeps a complex value as it is.
        value = bool(value) if dt is _dt.bool_ else int(value)
    return [t if t.dtype is dt else t.to(dt) for t in (input, tensor1, tensor2)], value


def _finish_out(result, out, opname):
    if out is None:
        return result
    if not isinstance(out, TensorBase):
        raise TypeError(f"{opname}(): argument 'out' must be Tensor, not {type(out).__name__}")
    if tuple(out.shape) != tuple(result.shape):
        out.resize_(tuple(result.shape))
    out.copy_(result)
    return out


@tensor_method
def addcmul(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 * tensor2``, broadcast together (``torch.addcmul``).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addcmul(cygrad.zeros(2), cygrad.tensor([1., 2.]), cygrad.tensor([3., 4.])).tolist()
    [3.0, 8.0]
    """
    (input, tensor1, tensor2), value = _pointwise_args("addcmul", input, tensor1, tensor2, value)
    return _finish_out(Addcmul.apply(input, tensor1, tensor2, value), out, "addcmul")


_INT_ADDCDIV = ("Integer division with addcdiv is no longer supported, and in a future  release "
                "addcdiv will perform a true division of tensor1 and tensor2. The historic "
                "addcdiv behavior can be implemented as (input + value * torch.trunc(tensor1 / "
                "tensor2)).to(input.dtype) for integer inputs and as (input + value * tensor1 / "
                "tensor2) for float inputs. The future addcdiv behavior is just the latter "
                "implementation: (input + value * tensor1 / tensor2), for all dtypes.")


def _check_addcdiv(tensor1, tensor2):
    if isinstance(tensor1, TensorBase) and isinstance(tensor2, TensorBase) and \
            _integral(tensor1.dtype) and _integral(tensor2.dtype):
        raise RuntimeError(_INT_ADDCDIV)


@tensor_method
def addcdiv(input, tensor1, tensor2, *, value=1, out=None):
    """``input + value * tensor1 / tensor2``, broadcast together (``torch.addcdiv``);
    integer ``tensor1`` and ``tensor2`` are refused, as in PyTorch.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addcdiv(cygrad.ones(2), cygrad.tensor([1., 2.]), cygrad.tensor([4., 4.]), value=2).tolist()
    [1.5, 2.0]
    """
    _check_addcdiv(tensor1, tensor2)
    (input, tensor1, tensor2), value = _pointwise_args("addcdiv", input, tensor1, tensor2, value)
    return _finish_out(Addcdiv.apply(input, tensor1, tensor2, value), out, "addcdiv")


def _inplace(self, cls, opname, tensor1, tensor2, value):
    """``self`` op= ``value * tensor1 (* or /) tensor2``: ``cls``'s Function applied in
    place, after PyTorch's checks that the result fits ``self``."""
    if not isinstance(self, TensorBase):
        raise not_tensor(self, opname)
    (_, tensor1, tensor2), value = _pointwise_args(opname, self, tensor1, tensor2, value)
    shape = broadcast_shapes(tuple(self.shape), tuple(tensor1.shape), tuple(tensor2.shape))
    if tuple(shape) != tuple(self.shape):
        raise RuntimeError(f"output with shape {list(self.shape)} doesn't match the broadcast "
                           f"shape {list(shape)}")
    dt = tensor1.dtype      # (the common dtype: _pointwise_args converted to it)
    if dt is not self.dtype and not _C._can_cast(dt, self.dtype):
        raise RuntimeError(f"result type {_C._torch_type_name(dt)} can't be cast to "
                           f"the desired output type {_C._torch_type_name(self.dtype)}")
    return apply_inplace(cls, self, tensor1, tensor2, value)


@tensor_method
def addcmul_(self, tensor1, tensor2, *, value=1):
    """In-place ``addcmul``: ``self += value * tensor1 * tensor2``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2).addcmul_(cygrad.tensor([1., 2.]), cygrad.tensor([2., 2.])).tolist()
    [3.0, 5.0]
    """
    return _inplace(self, Addcmul, "addcmul_", tensor1, tensor2, value)


@tensor_method
def addcdiv_(self, tensor1, tensor2, *, value=1):
    """In-place ``addcdiv``: ``self += value * tensor1 / tensor2``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2).addcdiv_(cygrad.tensor([1., 2.]), cygrad.tensor([2., 2.])).tolist()
    [1.5, 2.0]
    """
    _check_addcdiv(tensor1, tensor2)
    return _inplace(self, Addcdiv, "addcdiv_", tensor1, tensor2, value)


# ----------------------------------------------------------------------- sum_to_size

@tensor_method
def sum_to_size(self, *size):
    """Sum this tensor down to ``size``, which must broadcast to this tensor's shape:
    leading dims are summed away, dims of size 1 in ``size`` are summed keeping them.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2, 3).sum_to_size(1, 3).tolist()
    [[2.0, 2.0, 2.0]]
    >>> cygrad.ones(2, 3).sum_to_size(3).tolist()
    [2.0, 2.0, 2.0]
    """
    if len(size) == 1 and isinstance(size[0], (tuple, list)):
        size = tuple(size[0])
    for s in size:
        if isinstance(s, bool) or not isinstance(s, numbers.Integral):
            raise TypeError(f"sum_to_size(): argument 'size' must be tuple of ints, but found "
                            f"element of type {type(s).__name__}")
    size = tuple(int(s) for s in size)
    shape = tuple(self.shape)
    lead = len(shape) - len(size)
    if lead < 0 or any(s != n and s != 1 for s, n in zip(size, shape[lead:])):
        raise RuntimeError(f"size {{{list(size)}}} is not expandable to size {{{list(shape)}}}.")
    result = self
    if lead:
        result = result.sum(tuple(range(lead)))
    squeezed = tuple(i for i, s in enumerate(size) if s == 1 and result.shape[i] != 1)
    if squeezed:
        result = result.sum(squeezed, keepdim=True)
    return result


# ----------------------------------------------------------------------- cdist

_COMPUTE_MODES = ("use_mm_for_euclid_dist_if_necessary", "use_mm_for_euclid_dist",
                  "donot_use_mm_for_euclid_dist")


def _euclid_by_mm(x1, x2):
    """Euclidean distances from ``|a|^2 + |b|^2 - 2 a.b`` (one matrix product, as
    PyTorch computes them for larger inputs); clamped at 0 against rounding."""
    sq1 = (x1 * x1).sum(-1, keepdim=True)
    sq2 = (x2 * x2).sum(-1).unsqueeze(-2)
    return (sq1 + sq2 - 2 * (x1 @ x2.transpose(-1, -2))).clamp(min=0).sqrt()


def _p_dist(diff, p):
    """The p-norm over the last dim of the pairwise differences."""
    a = diff.abs()
    if p == 0:
        return (a != 0).sum(-1).to(diff.dtype)
    if p == 1:
        return a.sum(-1)
    if p == 2:
        return (a * a).sum(-1).sqrt()
    if math.isinf(p):
        return a.amax(-1)
    return a.pow(p).sum(-1).pow(1.0 / p)


def _dist_slope(diff, dist, p):
    """d dist / d diff for every pair and coordinate (0 where the distance is 0,
    the subgradient PyTorch uses)."""
    d = dist.unsqueeze(-1)
    zero = diff * 0
    if p == 0:
        return zero
    if p == 1:
        return diff.sign()
    if math.isinf(p):
        return where(diff.abs() == d, diff.sign(), zero)
    if p == 2:
        return where(d == 0, zero, diff / where(d == 0, zero + 1, d))
    safe_d = where(d == 0, zero + 1, d)
    slope = diff.sign() * (diff.abs() / safe_d).pow(p - 1)
    return where((d == 0) | (diff == 0), zero, slope)


class Cdist(Function):
    """Pairwise p-norm distances between the rows of ``x1`` and ``x2``."""
    _node_name = "CdistBackward0"

    @staticmethod
    def forward(ctx, x1, x2, p, use_mm):
        ctx.save_for_backward(x1, x2)
        ctx.p = p
        if use_mm:
            return _euclid_by_mm(x1, x2)
        return _p_dist(x1.unsqueeze(-2) - x2.unsqueeze(-3), p)

    @staticmethod
    def backward(ctx, grad):
        x1, x2 = ctx.saved_tensors
        p = ctx.p
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        weighted = grad.unsqueeze(-1) * _dist_slope(diff, _p_dist(diff, p), p)
        need = ctx.needs_input_grad
        return (weighted.sum(-2) if need[0] else None,
                -weighted.sum(-3) if need[1] else None, None, None)

    @staticmethod
    def jvp(ctx, t1, t2, _p, _mm):
        x1, x2 = saved_for_jvp(ctx)
        p = ctx.p
        diff = x1.unsqueeze(-2) - x2.unsqueeze(-3)
        slope = _dist_slope(diff, _p_dist(diff, p), p)
        tangent = _add_terms(t1.unsqueeze(-2) if t1 is not None else None,
                             -t2.unsqueeze(-3) if t2 is not None else None)
        return (slope * tangent).sum(-1)


def cdist(x1, x2, p=2.0, compute_mode="use_mm_for_euclid_dist_if_necessary"):
    """Distances between each row of ``x1`` (``B x P x M``) and each row of ``x2``
    (``B x R x M``), as a ``B x P x R`` tensor (batch dims broadcast), in the p-norm
    (``p`` >= 0, ``inf`` allowed).

    ``compute_mode`` picks, for ``p = 2``, between the direct difference and the
    matrix-product formula, as in PyTorch (by default the product when P or R
    exceeds 25).

    Examples
    --------
    >>> import cygrad
    >>> a = cygrad.tensor([[0.0, 0.0], [3.0, 4.0]])
    >>> cygrad.cdist(a, a).tolist()
    [[0.0, 5.0], [5.0, 0.0]]
    >>> cygrad.cdist(a, a, p=1).tolist()
    [[0.0, 7.0], [7.0, 0.0]]
    """
    for t in (x1, x2):
        if not isinstance(t, TensorBase):
            raise not_tensor(t, "cdist")
    if x1.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X1 got: {x1.dim()}D")
    if x2.dim() < 2:
        raise RuntimeError(f"cdist only supports at least 2D tensors, X2 got: {x2.dim()}D")
    if x1.shape[-1] != x2.shape[-1]:
        raise RuntimeError(f"X1 and X2 must have the same number of columns. X1: "
                           f"{x1.shape[-1]} X2: {x2.shape[-1]}")
    for name, t in (("X1", x1), ("X2", x2)):
        if not t.dtype.is_floating_point:
            raise RuntimeError(f"cdist only supports floating-point dtypes, {name} got: "
                               f"{_C._torch_type_name(t.dtype)}")
    if x1.dtype is not x2.dtype:
        raise RuntimeError(f"expected scalar type {_C._torch_type_name(x1.dtype)} but found "
                           f"{_C._torch_type_name(x2.dtype)}")
    if not isinstance(p, numbers.Real) or p < 0:
        raise RuntimeError("cdist only supports non-negative p values")
    if compute_mode is None:
        compute_mode = _COMPUTE_MODES[0]
    if compute_mode not in _COMPUTE_MODES:
        raise ValueError(f"{compute_mode} is not a valid value for compute_mode")
    p = float(p)
    big = x1.shape[-2] > 25 or x2.shape[-2] > 25
    use_mm = p == 2 and (compute_mode == _COMPUTE_MODES[1] or
                         (compute_mode == _COMPUTE_MODES[0] and big))
    return Cdist.apply(x1, x2, p, use_mm)
