"""The ``addmm`` family: ``beta * input + alpha * product(x, y)`` for addmm, addmv,
baddbmm, addbmm and addr, one ``_ScaledProductSum`` Function with each product's
gradients.
"""
import numbers

from ..._core import tensor as _C
from ..._core.tensor import TensorBase
from ..._tensor import tensor_method
from ...autograd.function import Function
from ...autograd.forward_ad import saved_for_jvp
from ...autograd.inplace import apply_inplace
from ..creation import tensor
from .._argcheck import check_scalar_fits, not_tensor
from ._common import _add_terms, _check_not_bool, _cname, _into_out, _scale, _tname
from .products import bmm, matmul, mm, mv, outer, _size_at

__all__ = ["addmm", "addmv", "addbmm", "baddbmm", "addr", "addmv_"]


# ----------------------------------------------------------------------- add* family

def _scaled_sum(input, product, beta, alpha):
    """``beta * input + alpha * product``; with ``beta == 0`` the input is ignored
    (NaNs in it do not propagate), as PyTorch documents."""
    ops = _C.ELEMENTWISE_OPS
    if input.shape != product.shape:
        # input only broadcasts to the product's shape, never the other way round;
        # expand raises PyTorch's error for anything else.
        input = input.expand(product.shape)
    if alpha != 1:
        product = _C.binary_op(ops["mul"], product, alpha)
    if beta == 0:
        return product
    scaled = input if beta == 1 else _C.binary_op(ops["mul"], input, beta)
    return _C.binary_op(ops["add"], scaled, product)


def _conj_scalar(v):
    # Python complex scalars conjugate; real ones (int, float, bool) are their own.
    return v.conjugate() if isinstance(v, complex) else v


class _ScaledProductSum(Function):
    """``beta * input + alpha * product(x, y)`` for a product linear in ``x`` and in
    ``y``.  Each subclass names its ``product`` and the product's gradients
    ``grad_x(g, x, y)``, ``grad_y(g, x, y)`` (conjugate transposes, so that complex
    factors get the conjugate Wirtinger gradient); the rest is shared:

    * ``input`` gets ``conj(beta) * g`` (the engine sums it down to input's broadcast
      shape);
    * ``x`` and ``y`` get the product's gradients of ``conj(alpha) * g``.

    The conjugates because the gradient is the conjugate Wirtinger one (as for
    every complex op here): for real scalars they are the scalars themselves.
    """

    @staticmethod
    def forward(ctx, input, x, y, beta, alpha):
        cls = type(ctx)._forward_cls
        ctx.save_for_backward(x, y)
        ctx.beta, ctx.alpha = beta, alpha
        return _scaled_sum(input, cls.product(x, y), beta, alpha)

    @staticmethod
    def backward(ctx, grad):
        cls = type(ctx)._forward_cls
        x, y = ctx.saved_tensors
        need = ctx.needs_input_grad
        g = _scale(grad, _conj_scalar(ctx.alpha))
        return (_scale(grad, _conj_scalar(ctx.beta)) if need[0] else None,
                cls.grad_x(g, x, y) if need[1] else None,
                cls.grad_y(g, x, y) if need[2] else None, None, None)

    @staticmethod
    def jvp(ctx, t_input, tx, ty, _beta, _alpha):
        cls = type(ctx)._forward_cls
        x, y = saved_for_jvp(ctx)
        product = _add_terms(cls.product(tx, y) if tx is not None else None,
                             cls.product(x, ty) if ty is not None else None)
        return _add_terms(_scale(t_input, ctx.beta) if t_input is not None else None,
                          _scale(product, ctx.alpha) if product is not None else None)


class Addmm(_ScaledProductSum):
    _node_name = "AddmmBackward0"
    product = staticmethod(lambda x, y: mm(x, y))
    grad_x = staticmethod(lambda g, x, y: mm(g, y.mH))
    grad_y = staticmethod(lambda g, x, y: mm(x.mH, g))


class Addmv(_ScaledProductSum):
    _node_name = "AddmvBackward0"
    product = staticmethod(lambda x, y: mv(x, y))
    grad_x = staticmethod(lambda g, x, y: outer(g, y.conj()))
    grad_y = staticmethod(lambda g, x, y: mv(x.mH, g))


class Baddbmm(_ScaledProductSum):
    _node_name = "BaddbmmBackward0"
    product = staticmethod(lambda x, y: bmm(x, y))
    grad_x = staticmethod(lambda g, x, y: bmm(g, y.mH))
    grad_y = staticmethod(lambda g, x, y: bmm(x.mH, g))


class Addbmm(_ScaledProductSum):
    # sum_i x_i @ y_i: each batch gets mm's gradients of the same g.
    _node_name = "AddbmmBackward0"
    product = staticmethod(lambda x, y: _batch_product_sum(x, y))
    grad_x = staticmethod(lambda g, x, y: matmul(g, y.mH))
    grad_y = staticmethod(lambda g, x, y: matmul(x.mH, g))


class Addr(_ScaledProductSum):
    _node_name = "AddrBackward0"
    product = staticmethod(lambda x, y: outer(x, y))
    grad_x = staticmethod(lambda g, x, y: mv(g, y.conj()))
    grad_y = staticmethod(lambda g, x, y: mv(g.mT, x.conj()))


# The names PyTorch gives the two factors of each op (its error messages use them).
_FACTOR_NAMES = {"addmm": ("mat1", "mat2"), "addmv": ("mat", "vec"), "addr": ("vec1", "vec2"),
                 "baddbmm": ("batch1", "batch2"), "addbmm": ("batch1", "batch2")}


def _check_add_dtypes(opname, input, x, y):
    """addmm & co. multiply without promoting: all three dtypes must agree (addr
    promotes, like an elementwise op)."""
    if opname in ("addmm", "addbmm"):
        if x.dtype is not y.dtype:
            raise RuntimeError(f"mat1 and mat2 must have the same dtype, but got "
                               f"{_tname(x.dtype)} and {_tname(y.dtype)}")
        if input.dtype is not y.dtype:
            raise RuntimeError(f"self and mat2 must have the same dtype, but got "
                               f"{_tname(input.dtype)} and {_tname(y.dtype)}")
    elif input.dtype is not x.dtype or x.dtype is not y.dtype:
        if opname == "addmv":
            raise RuntimeError(f"addmv input tensors must have the same dtype, but got "
                               f"{_tname(input.dtype)}, {_tname(x.dtype)}, and {_tname(y.dtype)}")
        if opname == "baddbmm":
            _check_baddbmm_dtypes(input, x, y)


def _check_baddbmm_dtypes(input, batch1, batch2):
    """PyTorch compares input with batch1 first, then picks the kernel by that dtype
    (none for bool), and only the kernel compares batch2."""
    if input.dtype is not batch1.dtype:
        raise RuntimeError(f"Input dtypes must be the same, got: input {_cname(input.dtype)}, "
                           f"batch1: {_cname(batch1.dtype)}, batch2: {_cname(batch2.dtype)}")
    _check_not_bool(batch1.dtype, "baddbmm")
    raise RuntimeError(f"expected scalar type {_tname(batch1.dtype)} but found "
                       f"{_tname(batch2.dtype)}")


def _add_scalars(opname, dtype, beta, alpha):
    """``beta`` and ``alpha`` as the op will use them on a result of ``dtype``.

    They must fit ``dtype``.  An integer result takes them converted to integers
    (truncated: ``addmm`` of int8 with ``beta=0.5`` ignores ``input``) -- except in
    ``addr``, which refuses a float for an integral result."""
    scalars = []
    for name, value in (("beta", beta), ("alpha", alpha)):
        if not isinstance(value, numbers.Number):
            raise TypeError(f"{opname}(): argument '{name}' must be Number, not "
                            f"{type(value).__name__}")
        check_scalar_fits(value, dtype)
        if not dtype.is_floating_point and not dtype.is_complex \
                and not isinstance(value, numbers.Integral):
            if opname == "addr":
                raise RuntimeError(f"For integral input tensors, argument {name} must not be "
                                   f"a floating point number.")
            value = int(value.real)
        scalars.append(value)
    return scalars


# The shape of each op's product, for the in-place forms (whose input must have it).
_PRODUCT_SHAPE = {"addmm": lambda x, y: (x.shape[0], y.shape[1]),
                  "addmv": lambda x, y: (x.shape[0],),
                  "baddbmm": lambda x, y: (x.shape[0], x.shape[1], y.shape[2]),
                  "addbmm": lambda x, y: (x.shape[1], y.shape[2]),
                  "addr": lambda x, y: (x.shape[0], y.shape[0])}


def _add_product(fn, opname, input, x, y, beta, alpha, out, check_shapes=None, inplace=False):
    """Shared body of addmm, addmv, baddbmm, addbmm and addr: PyTorch's argument
    checks (``check_shapes(x, y)`` for the op's own), then
    ``beta * input + alpha * product(x, y)``, written into ``input`` if ``inplace``
    (which must then have the product's shape and a dtype the result casts to)."""
    if not isinstance(input, TensorBase):
        raise not_tensor(input, opname)
    for position, (name, value) in enumerate(zip(_FACTOR_NAMES[opname], (x, y)), 2):
        if not isinstance(value, TensorBase):
            raise not_tensor(value, opname, name, position)
    if check_shapes is not None:
        check_shapes(x, y)
    _check_add_dtypes(opname, input, x, y)
    dtype = _C.result_type(input, x, y) if opname == "addr" else x.dtype
    beta, alpha = _add_scalars(opname, dtype, beta, alpha)
    if opname == "addr":
        # The product is taken in the promoted dtype: integer vectors times a float
        # alpha must not turn into the default float dtype.
        x, y = x.to(dtype), y.to(dtype)
    if inplace:
        shape = _PRODUCT_SHAPE[opname](x, y)
        if tuple(input.shape) != shape:
            raise RuntimeError(f"{opname}_: the input of shape {list(input.shape)} cannot hold "
                               f"the result of shape {list(shape)} (in-place ops do not "
                               f"broadcast their input)")
        if dtype is not input.dtype and not _C._can_cast(dtype, input.dtype):
            raise RuntimeError(f"result type {_tname(dtype)} can't be cast to the desired "
                               f"output type {_tname(input.dtype)}")
        if opname == "baddbmm" and _overlapping_dims(input):
            return _baddbmm_into_expanded(input, x, y, beta, alpha)
        return apply_inplace(fn, input, x, y, beta, alpha)
    res = fn.apply(input, x, y, beta, alpha)
    return res if out is None else _into_out(out, res, opname, same_dtype=False)


def _overlapping_dims(t):
    """The dims where several elements of ``t`` share memory (stride 0, from expand)."""
    return [d for d, (n, st) in enumerate(zip(t.shape, t.stride())) if st == 0 and n > 1]


def _baddbmm_into_expanded(input, batch1, batch2, beta, alpha):
    """``baddbmm_`` on an expanded ``input``, as PyTorch computes it: PyTorch does not
    refuse the aliased output but writes it batch by batch, element by element, each
    write ``beta * (what the previous write left) + alpha * product``.  For a memory
    location written ``K`` times, in the row-major order of the aliased dims, that is
    ``beta**K * initial + sum_p beta**(K-1-p) * alpha * product_p``."""
    dims = _overlapping_dims(input)
    if _C.is_grad_enabled() and any(t.requires_grad for t in (input, batch1, batch2)):
        raise RuntimeError("unsupported operation: more than one element of the written-to "
                           "tensor refers to a single memory location. Please clone() the "
                           "tensor before performing the operation.")
    product = baddbmm(input, batch1, batch2, beta=0, alpha=alpha)  # (input ignored)
    K = 1
    for d in dims:
        K *= input.shape[d]
    wshape = [input.shape[d] if d in dims else 1 for d in range(input.dim())]
    weights = tensor([beta ** (K - 1 - p) for p in range(K)], dtype=product.dtype,
                     device=product.device).reshape(wshape)
    written = (product * weights).sum(dim=dims, keepdim=True)
    target = input
    for d in dims:
        target = target.narrow(d, 0, 1)
    if beta != 0:       # (beta == 0 ignores the input, NaNs included)
        written = written + target * beta ** K
    target.copy_(written)
    return input


@tensor_method
def addmm(input, mat1, mat2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat1 @ mat2)``, ``input`` broadcasting to the result.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addmm(cygrad.ones(3), cygrad.ones(2, 4), cygrad.ones(4, 3)).tolist()
    [[5.0, 5.0, 5.0], [5.0, 5.0, 5.0]]
    """
    return _add_product(Addmm, "addmm", input, mat1, mat2, beta, alpha, out)


@tensor_method
def addmv(input, mat, vec, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * (mat @ vec)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addmv(cygrad.zeros(2), cygrad.ones(2, 3), cygrad.ones(3)).tolist()
    [3.0, 3.0]
    """
    return _add_product(Addmv, "addmv", input, mat, vec, beta, alpha, out,
                        lambda m, v: _check_addmv_ranks(input, m, v))


def _check_addmv_ranks(input, mat, vec):
    if mat.dim() != 2 or vec.dim() != 1 or input.dim() > 1:
        raise RuntimeError(f"vector + matrix @ vector expected, got {input.dim()}, "
                           f"{mat.dim()}, {vec.dim()}")


@tensor_method
def baddbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * bmm(batch1, batch2)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.baddbmm(cygrad.zeros(1), cygrad.ones(2, 2, 3), cygrad.ones(2, 3, 2)).shape
    cygrad.Size([2, 2, 2])
    """
    return _add_product(Baddbmm, "baddbmm", input, batch1, batch2, beta, alpha, out,
                        _check_batches)


@tensor_method
def addbmm(input, batch1, batch2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * sum_i(batch1[i] @ batch2[i])``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.addbmm(cygrad.zeros(2, 2), cygrad.ones(3, 2, 4), cygrad.ones(3, 4, 2)).tolist()
    [[12.0, 12.0], [12.0, 12.0]]
    """
    return _add_product(Addbmm, "addbmm", input, batch1, batch2, beta, alpha, out,
                        _check_same_batches)


def _check_batches(batch1, batch2):
    """Both factors of baddbmm/addbmm are 3-D.  PyTorch reads the result's sizes
    (``batch1.size(0)``, ``batch1.size(1)``, ``batch2.size(2)``) before checking the
    ranks: a factor of too few dims is an IndexError."""
    _size_at(batch1, 0)                 # (raises PyTorch's IndexError on too few dims)
    _size_at(batch1, 1)
    _size_at(batch2, 2)
    if batch1.dim() != 3:
        raise RuntimeError("batch1 must be a 3D tensor")
    if batch2.dim() != 3:
        raise RuntimeError("batch2 must be a 3D tensor")


def _check_same_batches(batch1, batch2):
    _check_batches(batch1, batch2)
    if batch1.shape[0] != batch2.shape[0]:
        raise RuntimeError(f"batch1 and batch2 must have same number of batches, got "
                           f"{batch1.shape[0]} and {batch2.shape[0]}")


def _batch_product_sum(batch1, batch2):
    """``sum_i batch1[i] @ batch2[i]`` as one matrix product:
    [A_0 .. A_b] (n x b*k) @ [B_0; ..; B_b] (b*k x m)."""
    b, n, k = batch1.shape
    m = batch2.shape[2]
    wide = batch1.permute(1, 0, 2).reshape(n, b * k)
    tall = batch2.reshape(b * k, m)
    return mm(wide, tall)


@tensor_method
def addr(input, vec1, vec2, *, beta=1, alpha=1, out=None):
    """``beta * input + alpha * outer(vec1, vec2)``.

    Examples
    --------
    >>> import cygrad
    >>> v, w = cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 3.0])
    >>> cygrad.addr(cygrad.zeros(2, 2), v, w).tolist()
    [[1.0, 3.0], [2.0, 6.0]]
    """
    return _add_product(Addr, "addr", input, vec1, vec2, beta, alpha, out)


@tensor_method
def addmm_(input, mat1, mat2, *, beta=1, alpha=1):
    """In-place :func:`addmm`: ``input = beta * input + alpha * (mat1 @ mat2)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2, 2).addmm_(cygrad.ones(2, 3), cygrad.ones(3, 2)).tolist()
    [[4.0, 4.0], [4.0, 4.0]]
    """
    return _add_product(Addmm, "addmm", input, mat1, mat2, beta, alpha, None, inplace=True)


@tensor_method
def addmv_(input, mat, vec, *, beta=1, alpha=1):
    """In-place :func:`addmv`: ``input = beta * input + alpha * (mat @ vec)``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.ones(2).addmv_(cygrad.ones(2, 3), cygrad.ones(3)).tolist()
    [4.0, 4.0]
    """
    return _add_product(Addmv, "addmv", input, mat, vec, beta, alpha, None,
                        lambda m, v: _check_addmv_ranks(input, m, v), inplace=True)


@tensor_method
def baddbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place :func:`baddbmm`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 2, 2).baddbmm_(cygrad.ones(2, 2, 3), cygrad.ones(2, 3, 2))[0].tolist()
    [[3.0, 3.0], [3.0, 3.0]]
    """
    return _add_product(Baddbmm, "baddbmm", input, batch1, batch2, beta, alpha, None,
                        _check_batches, inplace=True)


@tensor_method
def addbmm_(input, batch1, batch2, *, beta=1, alpha=1):
    """In-place :func:`addbmm`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 2).addbmm_(cygrad.ones(3, 2, 4), cygrad.ones(3, 4, 2)).tolist()
    [[12.0, 12.0], [12.0, 12.0]]
    """
    return _add_product(Addbmm, "addbmm", input, batch1, batch2, beta, alpha, None,
                        _check_same_batches, inplace=True)


@tensor_method
def addr_(input, vec1, vec2, *, beta=1, alpha=1):
    """In-place :func:`addr`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.zeros(2, 2).addr_(cygrad.tensor([1.0, 2.0]), cygrad.tensor([1.0, 3.0])).tolist()
    [[1.0, 3.0], [2.0, 6.0]]
    """
    return _add_product(Addr, "addr", input, vec1, vec2, beta, alpha, None, inplace=True)
