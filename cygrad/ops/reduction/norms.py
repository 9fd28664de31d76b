"""``norm``: vector p-norms, the Frobenius and the nuclear norm, as ``torch.norm``.
"""
import math
import numbers

from ..._core import tensor as _C
from ..._core import dtype as _dt
from ..._tensor import tensor_method
from ...autograd.function import Function, once_differentiable
from .._argcheck import int_list_arg, number_arg
from ._common import (_check_tensor, _emit, _kernel, _keepdim, _parse_dims,
                      _reduced_count, _wrap_dims)
from ._autograd import _mask, _no_out, _Reduced, _saved, _tie_weights


@tensor_method
def norm(input, p="fro", dim=None, keepdim=False, out=None, dtype=None):
    """Vector or matrix norm, as ``torch.norm``.

    ``p`` is a number (``inf``, ``-inf``, ``0`` counts nonzeros, any other value gives
    ``sum(|x|^p)^(1/p)``), ``'fro'`` (the 2-norm of the elements) or ``'nuc'`` (sum
    of singular values over a 2-tuple ``dim``, or of a 2-D input).  ``dtype``
    converts the input before computing.  Where a vector norm is not differentiable
    (at 0, at ties of the inf-norms) its gradient is PyTorch's subgradient.

    Examples
    --------
    >>> import cygrad
    >>> x = cygrad.tensor([[3.0, -4.0], [0.0, 0.0]])
    >>> x.norm().item()
    5.0
    >>> cygrad.norm(x, p=1, dim=1).tolist()
    [7.0, 0.0]
    >>> cygrad.norm(x, p=float("inf")).item()
    4.0
    """
    _check_tensor(input, "norm")
    if input.is_complex():          # the norm of complex values is the norm of |z|
        dt = None if dtype is None else _dt.as_dtype(dtype).to_real()
        return norm(input.abs(), p, dim, keepdim, out=out, dtype=dt)
    if p is None:
        p = "fro"
    elif not isinstance(p, str):
        p = number_arg(p, "norm", "p", 2)   # (an int beyond 64 bits: OverflowError first)
    # torch.norm hands linalg_vector_norm a dim *list* (an int becomes [dim]): a bool is
    # not read as an int there, an int beyond int64 fails to unpack as a list element
    if isinstance(dim, numbers.Integral):
        dim = (dim,)
    elif dim is not None and not isinstance(dim, (tuple, list)):
        dim = int_list_arg(dim, "linalg_vector_norm", "dim", 3, allow_int=False)
    dim = _parse_dims(dim, "linalg_vector_norm")
    keepdim = _keepdim(keepdim, "linalg_vector_norm")
    dt = input.dtype if dtype is None else _dt.as_dtype(dtype)
    if not (input.dtype.is_floating_point and dt.is_floating_point):
        bad = input.dtype if not input.dtype.is_floating_point else dt
        raise RuntimeError(f"linalg.vector_norm: Expected a floating point or complex tensor "
                           f"as input. Got {_C._torch_type_name(bad)}")
    if isinstance(p, str):
        if p not in ("fro", "nuc"):
            raise RuntimeError(f"linalg.matrix_norm: Order {p} not supported.")
        if p == "nuc" or (dim is not None and len(dim) > 2):
            # a matrix norm: 'nuc' ('fro' over more than two dims: _matrix_dims refuses it)
            if p == "nuc" and input.dim() < 2:
                raise RuntimeError("linalg.matrix_norm: The input tensor A must have at least "
                                   "2 dimensions.")
            _no_out(out, "norm", input)
            dims = _matrix_dims(input, dim, dt)
            result = NuclearNorm.apply(input, dims, keepdim, dt)
            return result if out is None else _emit(result, dt, out, "norm", exact=True)
        p = 2
    p = float(p)
    _no_out(out, "norm", input)
    dims = _wrap_dims(input, dim)
    if (p < 0 or math.isinf(p)) and _reduced_count(input, dims) == 0:
        where = "tensor" if dims is None else f"dimension {dim}"
        raise RuntimeError(f"linalg.vector_norm cannot compute the {p:g} norm on an empty "
                           f"{where} because the operation does not have an identity")
    result = Norm.apply(input, p, dims, keepdim, dt)
    return result if out is None else _emit(result, dt, out, "norm", exact=True)


def _norm_weights(x, norm, p, red):
    """``d ||x||_p / d x_i`` for every element ``x_i`` (written with cygrad ops).

    Where the norm is not differentiable this is PyTorch's choice of subgradient:
    0 at ``x_i = 0`` for p = 1 and p < 1, 0 for a whole slice whose norm is 0, and
    for p = +-inf the gradient split evenly among the elements whose ``|x_i|`` is
    the norm.  (The 0-"norm" counts nonzeros: it has no gradient at all.)
    """
    if p == 1:
        return x.sign()
    if math.isinf(p):
        return x.sign() * _tie_weights(x.abs(), norm, red)
    n = red.unreduce(norm)
    zero = _mask(n.detach() == 0, n.dtype)
    if p == 2:
        return x / (n + zero) * (1 - zero)
    if p < 1:
        # |x|^(p-1) is infinite at x = 0: that element gets 0
        x_zero = _mask(x.detach() == 0, x.dtype)
        return x.sign() * (x.abs() + x_zero) ** (p - 1) * (1 - x_zero) * n ** (1 - p)
    return x.sign() * x.abs() ** (p - 1) / (n + zero) ** (p - 1) * (1 - zero)


class Norm(Function):
    """Vector p-norms over ``dims``; see ``_norm_weights`` for the derivative.

    ``forward(input, p, dims, keepdim, dt)``: ``p`` a float, ``dims`` wrapped and
    sorted (None: every dim), ``dt`` the dtype computed in."""
    _node_name = "LinalgVectorNormBackward0"

    @staticmethod
    def forward(ctx, input, p, dims, keepdim, dt):
        ctx.red, ctx.p = _Reduced(input, dims, keepdim), p
        result = _kernel("vector_norm", input)(input, p, dims, keepdim, dt)
        ctx.save_for_backward(input, result)
        return result

    @staticmethod
    def backward(ctx, grad):
        if ctx.p == 0:                          # a count: no gradient (as in PyTorch)
            return None, None, None, None, None
        x, result = ctx.saved_tensors
        weights = _norm_weights(x, result, ctx.p, ctx.red)
        return ctx.red.unreduce(grad) * weights, None, None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        if ctx.p == 0:
            return None
        x, result = _saved(ctx)
        return ctx.red.sum(t * _norm_weights(x, result, ctx.p, ctx.red))


def _matrix_dims(input, dim, dt):
    """The two wrapped dims a matrix norm reduces (its rows and columns), checked with
    the dtype ``dt`` it computes in."""
    if dt.name in ("float16", "bfloat16"):
        raise RuntimeError(f"linalg.matrix_norm: Low precision dtypes not supported. "
                           f"Got {_C._torch_type_name(dt)}")
    if dim is None:
        dim = (-2, -1) if input.dim() == 2 else tuple(range(input.dim()))
    if isinstance(dim, numbers.Integral) or len(dim) != 2:
        shown = " ".join(str(d) for d in ((dim,) if isinstance(dim, numbers.Integral) else dim))
        raise RuntimeError(f"linalg.matrix_norm: dim must be a 2-tuple. Got {shown}")
    dims = tuple(_C._wrap(d, input.dim()) for d in dim)
    if dims[0] == dims[1]:
        raise RuntimeError(f"linalg.matrix_norm: dims must be different. Got ({dim[0]}, {dim[1]})")
    return dims


def _nuclear_weights(x, dims):
    """``U V^T`` of each matrix of ``x`` (over ``dims``), from its SVD ``U S V^T``."""
    return _kernel("nuclear_weights", x)(x.detach(), dims)


class NuclearNorm(Function):
    """``norm(p='nuc')``: the sum of the singular values of each matrix over two dims.

    With ``x = U S V^T``, ``d sum(S) = tr(U^T dx V)``: the gradient is ``U V^T`` (a
    subgradient where singular values vanish).  Only once differentiable: a second
    derivative would need the derivative of the SVD itself.

    ``forward(input, dims, keepdim, dt)``: ``dims`` the two wrapped dims.
    """
    _node_name = "NuclearNormBackward0"

    @staticmethod
    def forward(ctx, input, dims, keepdim, dt):
        ctx.dims, ctx.red = dims, _Reduced(input, dims, keepdim)
        ctx.save_for_backward(input)
        return _kernel("matrix_norm", input)(input, "nuc", dims, keepdim, dt)

    @staticmethod
    @once_differentiable
    def backward(ctx, grad):
        x, = ctx.saved_tensors
        return ctx.red.unreduce(grad) * _nuclear_weights(x, ctx.dims), None, None, None

    @staticmethod
    def jvp(ctx, t, *unused):
        return ctx.red.sum(t * _nuclear_weights(_saved(ctx)[0], ctx.dims))
