"""The 'cuda' kernel of ``linear_bias``, the affine map of ``nn.Linear`` with its bias.

One launch of ``matmul.cu``'s tiled product with the bias in its epilogue
(``cg_matmul_bias_<dtype>``): each element of the product gets its column's bias
added before it is stored, one launch and one pass over the output fewer than the
product followed by a broadcast add of the bias (the composed ops), and the same
value in float32, float64, complex64 and complex128. In float16 and bfloat16 the
bias is added in float to the float sum and the total rounded once, as PyTorch's
cuBLAS epilogue does (the composed ops round the product first). ``x`` and
``weight`` are read through their strides (``weight.t()`` is not copied), as by
``matmul_into``.

Examples
--------
>>> from cygrad.cuda.ops import linear
>>> linear.PRIMITIVES
('linear_bias',)
"""
from ..._core import dispatch
from ..._core import tensor as _C
from .. import kernels as _k
from ..tensors import _same_device

#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = ("linear_bias",)


def linear_bias(x, weight, bias):
    """``x @ weight.T + bias`` of a 2-D ``x``, a 2-D ``weight`` and a 1-D ``bias`` on
    one CUDA device, in a new tensor; None for an empty product or operands whose
    sizes or dtypes do not agree (as the CPU entry: the caller then computes it the
    composed way, whose checks raise PyTorch's errors).

    Examples
    --------
    >>> from cygrad.cuda.ops.linear import linear_bias
    >>> callable(linear_bias)
    True
    """
    _same_device(x, weight, bias)
    sfx = _k.product_suffix("linear_bias", x.dtype)
    m, k = x.shape
    n = weight.shape[0]
    if (weight.shape[1] != k or bias.dim() != 1 or bias.shape[0] != n
            or weight.dtype is not x.dtype or bias.dtype is not x.dtype):
        return None
    if m == 0 or n == 0 or k == 0:
        return None
    out = _C._empty((m, n), x.dtype, x.device)
    ws = weight.stride()
    # weight.T read in place: its (row, col) steps are weight's (col, row) steps
    strides = _k.mm_strides((0, *x.stride()), (0, ws[1], ws[0]), (0, n, 1))
    grid = (-(-n // _k.MM_BLOCK_TILE), -(-m // _k.MM_BLOCK_TILE), 1)
    _k.launch(x.device.index, "matmul.cu", f"cg_matmul_bias_{sfx}", grid, (_k.TILE, _k.TILE, 1),
              (1, m, n, k, out.data_ptr(), x.data_ptr(), weight.data_ptr(), strides,
               bias.data_ptr(), bias.stride(0)))
    return out


def register():
    """Register this module's kernel as the 'cuda' entry of the kernel table.

    Examples
    --------
    >>> from cygrad.cuda.ops import linear
    >>> callable(linear.register)
    True
    """
    dispatch.register("linear_bias", "cuda", dtypes=_k.PRODUCT_DTYPES)(linear_bias)
