"""CPU entries of the fused primitives: the transformer's hot ops as one C pass
each way (``cygrad/_core/cpu/fused.c`` through ``fused_kernels``), for float32 and
float64. The ops look them up by dtype (``dispatch.lookup``) and keep their
composed path for other dtypes and devices.

Examples
--------
>>> import cygrad
>>> from cygrad._core.dispatch import kernel
>>> y = kernel("gelu", "cpu")(cygrad.tensor([0.0, 1.0]), False)
>>> [round(v, 4) for v in y.tolist()]
[0.0, 0.8413]
"""
from .. import fused_kernels as _K
from ..dispatch import register


def _c(t):
    return None if t is None else t.contiguous()


@register("softmax_backward", "cpu", dtypes=("float32", "float64"))
def softmax_backward(y, g, d, log, scale=1.0):
    """Input gradient of softmax (``log``: log_softmax) along ``d`` from the
    output ``y`` and the output's gradient ``g``, times ``scale``."""
    dx = _K.softmax_backward(y.contiguous(), g.contiguous(), d, log, scale)
    return dx if y.dim() else dx.reshape(())


@register("attention_softmax", "cpu", dtypes=("float32", "float64"))
def attention_softmax(scores, scale, causal, mask):
    """``softmax(scores * scale + mask)`` over the last dim, keys after the query
    dropped when ``causal``; rows with no key left give zeros. ``mask``: None or a
    float tensor that broadcasts against ``scores``."""
    scores = scores.contiguous()
    if mask is not None:
        mask = _tile_mask(mask, tuple(scores.shape))
    return _K.attn_softmax(scores, scale, causal, mask)


def _tile_mask(mask, shape):
    """The mask as contiguous (M, S) rows such that score row ``r`` uses row
    ``r % M``: the smallest trailing block of ``shape`` the mask varies over."""
    nd = len(shape)
    mshape = (1,) * (nd - mask.dim()) + tuple(mask.shape)
    # dims from the first one (counting from the left) where the mask is not
    # broadcast; every dim after it is materialised
    first = nd - 2
    for i in range(nd - 2):
        if mshape[i] != 1:
            first = i
            break
    block = shape[first:]
    rows = 1
    for s in block[:-1]:
        rows *= s
    m = mask.reshape(mshape[first - nd:] if first else mshape).expand(block)
    return m.contiguous().reshape(rows, shape[-1])


@register("layer_norm", "cpu", dtypes=("float32", "float64"))
def layer_norm(x, n, weight, bias, eps):
    """``(y, mean, rstd)``: layer norm over the trailing ``n`` elements of each
    row, ``mean``/``rstd`` one per row (shape (rows,))."""
    return _K.layer_norm_forward(x.contiguous(), n, _c(weight), _c(bias), eps)


@register("layer_norm_backward", "cpu", dtypes=("float32", "float64"))
def layer_norm_backward(g, x, mean, rstd, weight, need_dx, need_dw, need_db):
    """``(dx, dweight, dbias)`` (None where not asked) of layer norm."""
    return _K.layer_norm_backward(g.contiguous(), x.contiguous(), mean, rstd, _c(weight),
                                  need_dx, need_dw, need_db)


@register("gelu", "cpu", dtypes=("float32", "float64"))
def gelu(x, tanh_approx):
    """GELU, exact or (``tanh_approx``) the tanh approximation."""
    y = _K.gelu_forward(x.contiguous(), tanh_approx)
    return y if x.dim() else y.reshape(())


@register("gelu_backward", "cpu", dtypes=("float32", "float64"))
def gelu_backward(g, x, tanh_approx):
    """``g * gelu'(x)``."""
    dx = _K.gelu_backward(g.contiguous(), x.contiguous(), tanh_approx)
    return dx if x.dim() else dx.reshape(())


@register("cross_entropy", "cpu", dtypes=("float32", "float64"))
def cross_entropy(x, target, weight, ignore_index, eps):
    """Per-row cross entropy of (R, C) logits and R class indices: ``(loss, lse,
    wt)`` (loss with label smoothing ``eps``; the row's logsumexp; its target's
    weight, 0 where ignored). An index out of range raises IndexError."""
    return _K.cross_entropy_forward(x.contiguous(), target.contiguous(), _c(weight),
                                    ignore_index, eps)


@register("sum_ratio", "cpu", dtypes=("float32", "float64"))
def sum_ratio(a, w):
    """``(sum(a) / sum(w), sum(w))`` as 0-d tensors of two 1-D tensors of one dtype
    (cross entropy's mean over the counted weight; the sums and division the CPU's
    reductions and elementwise division do)."""
    if a.dim() != 1 or tuple(w.shape) != tuple(a.shape) or w.dtype is not a.dtype:
        raise RuntimeError(f"sum_ratio: expected two 1-D tensors of one length and dtype, got "
                           f"{list(a.shape)} {a.dtype} and {list(w.shape)} {w.dtype}")
    denom = w.sum()
    return a.sum() / denom, denom


@register("cross_entropy_backward", "cpu", dtypes=("float32", "float64"))
def cross_entropy_backward(x, lse, target, weight, ignore_index, eps, scale):
    """Gradient of the per-row losses with respect to the (R, C) logits, each row
    times ``scale`` (one element, or one per row)."""
    return _K.cross_entropy_backward(x.contiguous(), lse.contiguous(), target.contiguous(),
                                     _c(weight), ignore_index, eps, scale.contiguous())
