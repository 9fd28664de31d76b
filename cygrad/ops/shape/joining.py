"""Joining tensors: ``cat`` (and its aliases ``concat``/``concatenate``),
``stack`` and the NumPy-style ``hstack``/``vstack``/``dstack``/``column_stack``.

``cat`` and ``stack`` check their arguments and call their Function (``Cat``,
``Stack``), whose forward allocates the output once and copies each input into its
slice of it: CPU inputs of one dtype in one "cat" kernel call, others with
``_C._copy_into(out.narrow(...), x)`` (the copy kernel converts dtypes and follows
strides, so no input is copied first).  ``out=`` gets the result copied in.  The
backward hands each input its slice of the output gradient (views); the jvp joins
the tangents the same way.
"""
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ...autograd.function import Function
from .._argcheck import int_arg
from ._common import (_check_devices, _tensor_seq, _write_out,
                      _zero_tangents)
from .broadcasting import atleast_1d, atleast_2d, atleast_3d


def _is_legacy_empty(x):
    # PyTorch still accepts (and skips) 1-D empty tensors in cat, whatever the others' shape.
    return x.dim() == 1 and x.shape[0] == 0


def cat(tensors, dim=0, *, out=None):
    """Join tensors along an existing dim; dtypes are promoted as in PyTorch.

    All tensors need the same number of dims and the same sizes except along
    ``dim``; 1-D empty tensors are skipped (PyTorch's legacy rule).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.cat([cygrad.zeros(2, 1), cygrad.ones(2, 2)], dim=1).tolist()
    [[0.0, 1.0, 1.0], [0.0, 1.0, 1.0]]
    >>> cygrad.cat([cygrad.tensor([1, 2]), cygrad.tensor([0.5])]).dtype
    cygrad.float32
    """
    return _cat(tensors, dim, out, "cat")


def concat(tensors, dim=0, *, out=None):
    """Alias of :func:`cat`.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.concat([cygrad.tensor([1]), cygrad.tensor([2, 3])]).tolist()
    [1, 2, 3]
    """
    return _cat(tensors, dim, out, "concat")


def concatenate(tensors, dim=0, *, out=None):
    """Alias of :func:`cat` (NumPy's name).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.concatenate([cygrad.zeros(1, 2), cygrad.ones(1, 2)], 1).tolist()
    [[0.0, 0.0, 1.0, 1.0]]
    """
    return _cat(tensors, dim, out, "concatenate")


def _fast_layout(tensors, dim):
    """``cat``'s layout, ``(dim wrapped, each tensor's size along it)``, for CPU
    tensors of one dtype and rank with equal sizes off ``dim``, all checks in one
    loop; None when the call is anything else (the general checks then run, and
    raise PyTorch's errors)."""
    if type(tensors) is not list and type(tensors) is not tuple or not tensors:
        return None
    ref = tensors[0]
    if not isinstance(ref, TensorBase) or type(dim) is not int:
        return None
    shape, dt = tuple(ref.shape), ref.dtype
    nd = len(shape)
    d = dim + nd if dim < 0 else dim
    if not 0 <= d < nd:
        return None
    if nd == 1:
        for x in tensors:
            if not isinstance(x, TensorBase) or x.dtype is not dt or not x.is_cpu or x.dim() != 1:
                return None
        return d, [x.size(0) for x in tensors]
    before, after = shape[:d], shape[d + 1:]
    sizes = []
    for x in tensors:
        if not isinstance(x, TensorBase) or x.dtype is not dt or not x.is_cpu:
            return None
        s = tuple(x.shape)
        if len(s) != nd or s[:d] != before or s[d + 1:] != after:
            return None
        sizes.append(s[d])
    return d, sizes


def _checked_layout(tensors, dim, opname):
    """PyTorch's checks of ``cat``'s arguments; the layout ``(dim wrapped, each
    tensor's size along it)``, None for a skipped 1-D empty tensor."""
    if type(dim) is not int:
        dim = int_arg(dim, opname, "dim")
    if not tensors:
        raise ValueError(f"torch.{opname}(): expected a non-empty list of Tensors")
    for i, x in enumerate(tensors):
        if x.dim() == 0:
            raise RuntimeError(f"zero-dimensional tensor (at position {i}) cannot be concatenated")
    _check_devices(tensors)
    kept = [(i, x) for i, x in enumerate(tensors) if not _is_legacy_empty(x)]
    if not kept:
        return 0, [None] * len(tensors)
    ref = kept[0][1]
    d = _C._wrap(dim, ref.dim())
    for i, x in kept:
        if x.dim() != ref.dim():
            raise RuntimeError(f"Tensors must have same number of dimensions: got {ref.dim()} "
                               f"and {x.dim()}")
        for k in range(ref.dim()):
            if k != d and x.shape[k] != ref.shape[k]:
                raise RuntimeError(f"Sizes of tensors must match except in dimension {d}. "
                                   f"Expected size {ref.shape[k]} but got size {x.shape[k]} for "
                                   f"tensor number {i} in the list.")
    return d, [None if _is_legacy_empty(x) else x.size(d) for x in tensors]


def _cat(tensors, dim, out, opname):
    layout = _fast_layout(tensors, dim) if out is None else None
    if layout is None:
        tensors = _tensor_seq(tensors, opname)
        layout = _checked_layout(tensors, dim, opname)
    res = Cat.apply(*layout, *tensors)
    return res if out is None else _write_out(out, res, "cat")


_cat_cpu = None
try:
    _cat_small = kernel("cat_small", "cpu")
except NotImplementedError:      # (a CPU backend without it)
    _cat_small = None


def _cat_kernel():
    """The CPU "cat" kernel (inputs of ``res``'s dtype), looked up once: this is
    the fast path of small cats."""
    global _cat_cpu
    if _cat_cpu is None:
        _cat_cpu = kernel("cat", "cpu")
    return _cat_cpu


def _joined(tensors, d, sizes):
    """The checked ``tensors`` (``sizes``: along ``d``, None for a skipped 1-D empty
    tensor) one after the other along ``d``, in a new tensor of their promoted dtype."""
    dtype = tensors[0].dtype
    one_dtype = True
    for x in tensors:
        if x.dtype is not dtype:
            dtype, one_dtype = _C.result_type(*tensors), False
            break
    if None in sizes:
        kept = [x for x, n in zip(tensors, sizes) if n is not None]
        if not kept:
            return _C._empty((0,), dtype, tensors[0].device)
        sizes = [n for n in sizes if n is not None]
    else:
        kept = tensors
    if one_dtype and _cat_small is not None:
        res = _cat_small(kept, d)       # small contiguous inputs: the core's C loop
        if res is not None:
            return res
    shape = tuple(kept[0].shape)
    total = sum(sizes)
    res = _C._empty(shape[:d] + (total,) + shape[d + 1:], dtype, kept[0].device)
    if one_dtype and res.is_cpu:
        if total and res.numel():
            _cat_kernel()(res, kept, d)
        return res
    if one_dtype:
        # another device's own kernel (the copy hook would cast through the host)
        if total and res.numel():
            kernel("cat", res.device.type)(res, kept, d)
        return res
    offset = 0
    for x, n in zip(kept, sizes):
        _C._copy_into(res.narrow(d, offset, n), x)
        offset += n
    return res


class Cat(Function):
    """``cat``: each input's gradient is its slice of the output gradient (a view);
    the tangent is the inputs' tangents joined the same way.  ``sizes``: each
    input's size along ``dim``, None for a skipped 1-D empty tensor (PyTorch's legacy
    rule), as ``cat``'s checks found them.  Inputs of other dtypes get their
    gradients converted back by the engine."""
    _node_name = "CatBackward0"

    @staticmethod
    def forward(ctx, dim, sizes, *tensors):
        ctx.dim, ctx.sizes = dim, sizes
        return _joined(tensors, dim, sizes)

    @staticmethod
    def backward(ctx, grad):
        grads, offset = [None, None], 0
        for n in ctx.sizes:
            if n is None:       # a skipped tensor: an empty gradient
                grads.append(_C._empty((0,), grad.dtype, grad.device))
                continue
            grads.append(grad.narrow(ctx.dim, offset, n))
            offset += n
        return tuple(grads)

    @staticmethod
    def jvp(ctx, _dim, _sizes, *tangents):
        d, sizes = ctx.dim, ctx.sizes
        known = [t for t, n in zip(tangents, sizes) if t is not None and n is not None]
        if not known:
            return None         # every tangent is zero, or of a skipped tensor
        ref = tuple(known[0].shape)
        tangents = [t if t is not None else
                    _C.zeros(ref[:d] + (n,) + ref[d + 1:] if n is not None else (0,),
                             dtype=known[0].dtype, device=known[0].device)
                    for t, n in zip(tangents, sizes)]
        return Cat.apply(d, sizes, *tangents)


def stack(tensors, dim=0, *, out=None):
    """Join equally shaped tensors along a new dim ``dim``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.stack([cygrad.zeros(2), cygrad.ones(2)], dim=1).tolist()
    [[0.0, 1.0], [0.0, 1.0]]
    """
    tensors = _tensor_seq(tensors, "stack")
    if type(dim) is not int:
        dim = int_arg(dim, "stack", "dim")
    if not tensors:
        raise RuntimeError("stack expects a non-empty TensorList")
    ref = tensors[0]
    d = _C._wrap(dim, ref.dim() + 1)        # PyTorch checks the dim before the sizes
    shape = ref.shape
    for i, x in enumerate(tensors[1:], 1):
        if x.shape != shape:
            raise RuntimeError(f"stack expects each tensor to be equal size, but got "
                               f"{list(shape)} at entry 0 and {list(x.shape)} at entry {i}")
    _check_devices(tensors)
    res = Stack.apply(d, *tensors)
    return res if out is None else _write_out(out, res, "stack")


def _stacked(tensors, d):
    """The checked, equally shaped ``tensors`` as slices ``0, 1, ...`` of a new dim
    ``d`` of a new tensor (their promoted dtype)."""
    ref = tensors[0]
    shape = tuple(ref.shape)
    res = _C._empty(shape[:d] + (len(tensors),) + shape[d:], _C.result_type(*tensors),
                    ref.device)
    for i, x in enumerate(tensors):
        _C._copy_into(res.select(d, i), x)
    return res


class Stack(Function):
    """``stack``: input ``i`` gets slice ``i`` of the output gradient along the new dim."""
    _node_name = "StackBackward0"

    @staticmethod
    def forward(ctx, dim, *tensors):
        ctx.dim = dim
        ctx.shape = tensors[0].shape
        return _stacked(tensors, dim)

    @staticmethod
    def backward(ctx, grad):
        return (None,) + tuple(grad.unbind(ctx.dim))

    @staticmethod
    def jvp(ctx, _dim, *tangents):
        tangents = _zero_tangents(tangents, [ctx.shape] * len(tangents))
        return None if tangents is None else Stack.apply(ctx.dim, *tangents)


def hstack(tensors, *, out=None):
    """Join along the second dim (the first for 1-D tensors).

    Examples
    --------
    >>> import cygrad
    >>> cygrad.hstack([cygrad.tensor([1, 2]), cygrad.tensor([3])]).tolist()
    [1, 2, 3]
    """
    tensors = atleast_1d(_tensor_seq(tensors, "hstack", nonempty=True))
    return cat(tensors, 0 if tensors and tensors[0].dim() == 1 else 1, out=out)


def vstack(tensors, *, out=None):
    """Join along the first dim, 1-D tensors counting as rows.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.vstack([cygrad.tensor([1, 2]), cygrad.tensor([3, 4])]).tolist()
    [[1, 2], [3, 4]]
    """
    return cat(atleast_2d(_tensor_seq(tensors, "vstack", nonempty=True)), 0, out=out)


row_stack = vstack


def dstack(tensors, *, out=None):
    """Join along the third dim (depth), after making every tensor at least 3-D.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.dstack([cygrad.tensor([1, 2]), cygrad.tensor([3, 4])]).shape
    cygrad.Size([1, 2, 2])
    """
    return cat(atleast_3d(_tensor_seq(tensors, "dstack", nonempty=True)), 2, out=out)


def column_stack(tensors, *, out=None):
    """Join as columns: 0-D and 1-D tensors become (n, 1) columns, then ``hstack``.

    Examples
    --------
    >>> import cygrad
    >>> cygrad.column_stack([cygrad.tensor([1, 2]), cygrad.tensor([3, 4])]).tolist()
    [[1, 3], [2, 4]]
    """
    tensors = _tensor_seq(tensors, "column_stack", nonempty=True)
    cols = [x.reshape(x.numel(), 1) if x.dim() <= 1 else x for x in tensors]
    return cat(cols, 1, out=out)
