"""The 'cuda' kernels of the fused convolution primitives ``conv2d_gemm``,
``conv2d_gemm_weight`` and ``conv2d_gemm_input`` (the CPU ones are
``cygrad/_core/cpu/conv_gemm.c``).

On the GPU there is no cache-sized buffer to keep the window columns in, so each
is the CUDA ``im2col`` kernel followed by one batched product on the tiled
``matmul_into`` kernel (``cuda/ops/nn.py``, ``cuda/tensors.py``), or that product
followed by ``col2im`` for the input gradient, the bias added
and the weight gradient summed over the batch by the CUDA elementwise and
reduction kernels: the same arithmetic as the ops' im2col route, behind the
signatures of the CPU kernels.

Examples
--------
>>> from cygrad.cuda.ops import conv
>>> conv.PRIMITIVES
('conv2d_gemm', 'conv2d_gemm_weight', 'conv2d_gemm_input')
"""
import math

from ..._core import dispatch
from ..._core import tensor as _C
from ..tensors import _same_device

#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = ("conv2d_gemm", "conv2d_gemm_weight", "conv2d_gemm_input")

_FLOATS = ("float32", "float64")


def _kernel(name):
    # through the table, as the ops' im2col route reaches them
    return dispatch.kernel(name, "cuda")


def _check(x, other, what, groups):
    _same_device(x, other)
    if other.dtype is not x.dtype:
        raise RuntimeError(f"{what}: expected a {x.dtype} tensor, got {other.dtype}")
    if x.dim() != 4 or groups < 1 or x.shape[1] % groups:
        raise RuntimeError(f"{what}: expected a 4-d input whose {x.shape[1] if x.dim() else 0} "
                           f"channels split into {groups} groups")


def conv2d_gemm(x, weight, bias, stride, pads, dilation, groups, out):
    """``conv2d(x, weight, bias)``: ``(N, C, H, W)`` input, ``(Cout, C / groups, kH,
    kW)`` weight, optional ``(Cout,)`` bias, ``pads`` before each spatial dim; the
    contiguous ``(N, Cout, *out)`` result.

    Examples
    --------
    >>> from cygrad.cuda.ops.conv import conv2d_gemm
    >>> callable(conv2d_gemm)
    True
    """
    _check(x, weight, "conv2d_gemm", groups)
    n, cout = x.shape[0], weight.shape[0]
    if weight.dim() != 4 or cout % groups or weight.shape[1] * groups != x.shape[1]:
        raise RuntimeError(f"conv2d_gemm: weight {list(weight.shape)} and groups={groups} do "
                           f"not fit an input of {x.shape[1]} channels")
    cols = _kernel("im2col")(x, tuple(weight.shape[2:]), dilation, pads, stride, out)
    ck, L = cols.shape[1], cols.shape[2]
    res = _C._empty((n, groups, cout // groups, L), x.dtype, x.device)
    if res.numel():
        _kernel("matmul_into")(weight.contiguous().reshape(groups, cout // groups, ck // groups),
                    cols.reshape(n, groups, ck // groups, L), res)
    res = res.reshape((n, cout) + tuple(out))
    if bias is not None:
        _check(x, bias, "conv2d_gemm", groups)
        res.add_(bias.reshape(cout, *(1,) * len(out)))
    return res


def conv2d_gemm_weight(x, grad, weight_shape, stride, pads, dilation, groups):
    """The weight gradient of :func:`conv2d_gemm` for the output gradient ``grad``
    (``(N, Cout, oH, oW)``): a contiguous ``weight_shape`` tensor.

    Examples
    --------
    >>> from cygrad.cuda.ops.conv import conv2d_gemm_weight
    >>> callable(conv2d_gemm_weight)
    True
    """
    _check(x, grad, "conv2d_gemm_weight", groups)
    weight_shape = tuple(int(s) for s in weight_shape)
    n, cout, L = grad.shape[0], weight_shape[0], math.prod(grad.shape[2:])
    cols = _kernel("im2col")(x, weight_shape[2:], dilation, pads, stride, tuple(grad.shape[2:]))
    ckg = cols.shape[1] // groups
    prods = _C._empty((n, groups, cout // groups, ckg), x.dtype, x.device)
    if prods.numel():
        _kernel("matmul_into")(grad.contiguous().reshape(n, groups, cout // groups, L),
                    cols.reshape(n, groups, ckg, L).transpose(2, 3), prods)
    return prods.sum(0).reshape(weight_shape)


def conv2d_gemm_input(grad, weight, size, stride, pads, dilation, groups):
    """The input gradient of :func:`conv2d_gemm` for the output gradient ``grad``
    (``(N, Cout, oH, oW)``): a contiguous ``(N, C, *size)`` tensor.

    Examples
    --------
    >>> from cygrad.cuda.ops.conv import conv2d_gemm_input
    >>> callable(conv2d_gemm_input)
    True
    """
    _same_device(grad, weight)
    if weight.dtype is not grad.dtype or grad.dim() != 4 or weight.dim() != 4 \
            or groups < 1 or weight.shape[0] % groups or grad.shape[1] != weight.shape[0]:
        raise RuntimeError(f"conv2d_gemm_input: gradient {list(grad.shape)} and weight "
                           f"{list(weight.shape)} (groups={groups}) do not fit")
    n, cout, cg = grad.shape[0], weight.shape[0], weight.shape[1]
    kernel, L = tuple(weight.shape[2:]), math.prod(grad.shape[2:])
    ckg = cg * math.prod(kernel)
    cols = _C._empty((n, groups, ckg, L), grad.dtype, grad.device)
    if cols.numel():
        _kernel("matmul_into")(
            weight.contiguous().reshape(groups, cout // groups, ckg).transpose(1, 2),
            grad.contiguous().reshape(n, groups, cout // groups, L), cols)
    return _kernel("col2im")(cols.reshape(n, groups * ckg, L), cg * groups, size, kernel,
                             dilation, pads, stride, tuple(grad.shape[2:]))


def register():
    """Register the three kernels as 'cuda' entries of the kernel table (float32,
    float64, as on the CPU).

    Examples
    --------
    >>> from cygrad.cuda.ops import conv
    >>> callable(conv.register)
    True
    """
    for name in PRIMITIVES:
        dispatch.register(name, "cuda", dtypes=_FLOATS)(globals()[name])
