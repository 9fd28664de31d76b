"""The 'cuda' kernel of ``linear_bias``, the affine map of ``nn.Linear`` with its bias.

The CPU entry adds the bias inside its BLAS blocks; here it is the tiled product
(the CUDA ``matmul_into``) followed by one broadcast add of the bias, two
launches, as the composed ops would make. A GEMM with the bias in its epilogue
would save the second launch; it is not written yet.

Examples
--------
>>> from cygrad.cuda.ops import linear
>>> linear.PRIMITIVES
('linear_bias',)
"""
from ..._core import dispatch
from ..._core import tensor as _C

#: the primitives this module gives a 'cuda' kernel
PRIMITIVES = ("linear_bias",)


def linear_bias(x, weight, bias):
    """``x @ weight.T + bias`` of a 2-D ``x``, a 2-D ``weight`` and a 1-D ``bias`` on
    one CUDA device, in a new tensor; None for an empty product (as the CPU entry:
    the caller then computes it the composed way).

    Examples
    --------
    >>> from cygrad.cuda.ops.linear import linear_bias
    >>> callable(linear_bias)
    True
    """
    out = _C._empty((x.shape[0], weight.shape[0]), x.dtype, x.device)
    if out.numel() == 0 or x.shape[1] == 0:
        return None
    dispatch.kernel("matmul_into", "cuda")(x, weight.t(), out)
    out.add_(bias)
    return out


def register():
    """Register this module's kernel as the 'cuda' entry of the kernel table.

    Examples
    --------
    >>> from cygrad.cuda.ops import linear
    >>> callable(linear.register)
    True
    """
    dispatch.register("linear_bias", "cuda", dtypes=("float32", "float64"))(linear_bias)
