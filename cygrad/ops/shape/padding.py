"""``pad`` (``cygrad.nn.functional.pad``): constant, reflect, replicate and
circular padding of the last dims; negative amounts crop.

Constant padding fills a new tensor and copies the (cropped) input into its
middle; its gradient crops the border back off.  The copying modes are a gather
along each padded dim (``_pad_source`` says which input slice each output slice
copies) whose gradient adds every output element back onto its source.
"""
from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ..._core.tensor import TensorBase
from ...autograd.function import Function
from .._argcheck import float_arg, int_list_arg, not_tensor, symint_list_arg
from ._common import _INT64_MAX, _add_slices, _gather


_COPY_PAD_MODES = ("reflect", "replicate", "circular")


def pad(input, pad, mode="constant", value=None):
    """Pad the last dims: ``pad = (left, right)`` for the last dim, then
    ``(top, bottom)`` for the one before, and so on (PyTorch's order, reversed from
    NumPy's).  Negative amounts crop.  Modes: ``"constant"`` (``value``, default 0),
    ``"reflect"``, ``"replicate"``, ``"circular"``.

    Not exported as ``cygrad.pad`` (PyTorch has no ``torch.pad``): it is
    ``cygrad.nn.functional.pad``.

    Examples
    --------
    >>> import cygrad
    >>> from cygrad.ops.shape import pad
    >>> pad(cygrad.tensor([[1, 2]]), (1, 0), value=9).tolist()
    [[9, 1, 2]]
    >>> pad(cygrad.tensor([[1, 2, 3]]), (-1, 1)).tolist()
    [[2, 3, 0]]
    >>> pad(cygrad.tensor([[[1., 2., 3.]]]), (2, 0), mode="reflect").tolist()
    [[[3.0, 2.0, 1.0, 2.0, 3.0]]]
    """
    if not isinstance(input, TensorBase):
        raise not_tensor(input, "pad")
    amounts = int_list_arg(pad, "pad", "pad", 2, allow_int=False)
    if not isinstance(mode, str):
        raise TypeError(f"pad(): argument 'mode' (position 3) must be str, not "
                        f"{type(mode).__name__}")
    if value is not None:
        float_arg(value, "pad", "value", 4)
    symint_list_arg(amounts)
    if len(amounts) % 2:
        raise RuntimeError("Padding length must be divisible by 2")
    if len(amounts) // 2 > input.dim():
        raise RuntimeError(f"Padding length should be less than or equal to two times the input "
                           f"dimension but got padding length {len(amounts)} and input of "
                           f"dimension {input.dim()}")
    # (dim, before, after) for each padded dim, last dim first.
    widths = _pad_widths(input, amounts)
    if mode == "constant":
        value = 0 if value is None else value
        for d, before, after in widths:
            if not 0 <= input.shape[d] + before + after <= _INT64_MAX:
                raise RuntimeError(f"The input size {input.shape[d]}, plus negative padding "
                                   f"{before} and {after} resulted in a negative output size, "
                                   f"which is invalid. Check dimension {d} of your input.")
        return ConstantPadNd.apply(input, widths, value)
    if mode not in _COPY_PAD_MODES:
        raise NotImplementedError(f"Unrecognised padding mode {mode}")
    if value is not None:
        raise RuntimeError(f'Padding mode "{mode}" doesn\'t take in value argument')
    return _pad_copying(input, widths, mode)


def _pad_widths(input, amounts):
    return [(input.dim() - 1 - i, amounts[2 * i], amounts[2 * i + 1])
            for i in range(len(amounts) // 2)]


class ConstantPadNd(Function):
    """Constant padding adds elements that do not depend on the input and crops
    (negative amounts) elements that vanish: the gradient is the output gradient
    padded by the opposite amounts (the border cropped, the cropped part zero), and
    the tangent is padded with zeros.  ``widths``: ``(dim, before, after)`` for each
    padded dim (``pad``'s amounts paired with their dims)."""
    _node_name = "ConstantPadNdBackward0"

    @staticmethod
    def forward(ctx, input, widths, value):
        ctx.widths = widths
        return _pad_constant(input, widths, value)

    @staticmethod
    def backward(ctx, grad):
        opposite = [(d, -before, -after) for d, before, after in ctx.widths]
        return ConstantPadNd.apply(grad, opposite, 0), None, None

    @staticmethod
    def jvp(ctx, tangent, _widths, _value):
        return ConstantPadNd.apply(tangent, ctx.widths, 0)


def _crop_negative(input, widths):
    """Apply the negative pad amounts as crops (narrow views)."""
    for d, before, after in widths:
        if before >= 0 and after >= 0:
            continue
        start = max(-before, 0)
        length = input.shape[d] - start - max(-after, 0)
        if length < 0:
            raise RuntimeError("narrow(): length must be non-negative.")
        input = input.narrow(d, start, length)
    return input


def _pad_constant(input, widths, value):
    core = _crop_negative(input, widths)
    shape = list(core.shape)
    for d, before, after in widths:
        shape[d] += max(before, 0) + max(after, 0)
    if type(value) is int and value == 0:       # (the common case, and the cheapest fill)
        res = _C.zeros(tuple(shape), dtype=input.dtype, device=input.device)
    else:
        res = _C._empty(tuple(shape), input.dtype, input.device)
        res.fill_(value)
    inner = res
    for d, before, _ in widths:
        inner = inner.narrow(d, max(before, 0), core.size(d))
    if inner.numel():
        _C._copy_into(inner, core)
    return res


def _pad_copying(input, widths, mode):
    n = len(widths)
    if not (n + 1 <= input.dim() <= n + 2):
        raise NotImplementedError(
            f"Padding size {2 * n} is not supported for {input.dim()}D input tensor.\n"
            "Supported combinations for non-constant padding:\n"
            "  - 2D or 3D input: padding size = 2 (pads last dimension)\n"
            "  - 3D or 4D input: padding size = 4 (pads last 2 dimensions)\n"
            "  - 4D or 5D input: padding size = 6 (pads last 3 dimensions)")
    for d, before, after in widths:
        size = input.shape[d]
        if mode == "reflect" and (before >= size or after >= size):
            raise RuntimeError(f"Argument #4: Padding size should be less than the corresponding "
                               f"input dimension, but got: padding ({before}, {after}) at "
                               f"dimension {d} of input {list(input.shape)}")
        if mode == "circular" and (before > size or after > size):
            raise RuntimeError("Padding value causes wrapping around more than once.")
    sources = [(d, _pad_source(input.shape[d], before, after, mode)) for d, before, after in widths]
    return _pad_function(mode, len(widths)).apply(input, sources)


def _pad_source(size, before, after, mode):
    """For each position along a padded dim, the input position it copies.

    Negative amounts crop.  As in PyTorch, ``reflect`` mirrors the whole dim and then
    crops, while ``replicate`` and ``circular`` crop first and pad what is left."""
    if mode != "reflect" and size - max(-after, 0) - max(-before, 0) <= 0:
        raise RuntimeError(f"{mode} padding: the negative padding ({before}, {after}) leaves no "
                           f"element of a dimension of size {size}")
    return kernel("pad_source", "cpu")(mode, size, before, after)


def _gather_along(input, sources):
    for d, source in sources:
        input = _gather(input, d, source)
    return input


class _PadCopies(Function):
    """reflect/replicate/circular padding: along each padded dim every output slice
    copies one input slice (``_pad_source``): the padded tensor is a gather along each
    dim, and the gradient adds each output element back onto the element it copied
    (``index_add``, dim by dim)."""

    @staticmethod
    def forward(ctx, input, sources):
        ctx.sources = [(d, source, input.shape[d]) for d, source in sources]
        return _gather_along(input, sources)

    @staticmethod
    def backward(ctx, grad):
        for d, source, size in ctx.sources:
            grad = _add_slices(grad, d, source, size)
        return grad, None

    @staticmethod
    def jvp(ctx, tangent, _sources):
        # linear: the tangent is padded the same way
        sources = [(d, source) for d, source, _ in ctx.sources]
        return type(ctx)._forward_cls.apply(tangent, sources)


_PAD_NODE_NAMES = {"reflect": "ReflectionPad{}DBackward0",
                   "replicate": "ReplicationPad{}DBackward0",
                   "circular": "CircularPad{}DBackward0"}
_PAD_FUNCTIONS = {}


def _pad_function(mode, n):
    """The ``_PadCopies`` subclass for ``mode`` over ``n`` dims: one Function each,
    only so that the node has PyTorch's name (``ReflectionPad2DBackward0``)."""
    key = (mode, n)
    if key not in _PAD_FUNCTIONS:
        name = _PAD_NODE_NAMES[mode].format(n)
        _PAD_FUNCTIONS[key] = type(_PadCopies)(name.replace("Backward0", ""), (_PadCopies,),
                                               {"_node_name": name})
    return _PAD_FUNCTIONS[key]
