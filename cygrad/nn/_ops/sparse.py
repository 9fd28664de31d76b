"""Embedding lookup: ``embedding``.

The forward pass is a row gather (``index_select``) and the backward pass the
matching scatter-add (``index_add_``) of the output gradient's rows into a zero
gradient for the table, both single kernels over all indices (the scatter-add is the
C loop of ``cygrad/_core/cpu/scatter.c``).
"""
from ...autograd.function import Function
from ...autograd.grad_mode import no_grad
from ..._core.dtype import int32, int64
from ...ops.creation import ones, zeros

__all__ = ["embedding", "Embedding"]


class Embedding(Function):
    """``out[..., :] = weight[input[...], :]``.  The table's gradient sums the rows of
    ``grad`` that picked each index; ``padding_idx`` rows get none, and with
    ``scale_grad_by_freq`` each row is divided by how often its index occurs."""
    _node_name = "EmbeddingBackward0"

    @staticmethod
    def forward(ctx, weight, input, padding_idx, scale_grad_by_freq):
        flat = input.reshape(-1)
        ctx.shape = tuple(weight.shape)
        ctx.padding_idx = padding_idx
        ctx.scale = scale_grad_by_freq
        ctx.out_shape = tuple(input.shape) + (weight.size(1),)
        ctx.save_for_backward(flat)
        return weight.index_select(0, flat).reshape(ctx.out_shape)

    @staticmethod
    def backward(ctx, grad):
        flat, = ctx.saved_tensors
        rows = grad.reshape(flat.numel(), ctx.shape[1])
        if ctx.scale:
            counts = zeros(ctx.shape[0], dtype=rows.dtype).index_add_(
                0, flat, ones(flat.numel(), dtype=rows.dtype))
            rows = rows / counts.index_select(0, flat).unsqueeze(1)
        if ctx.padding_idx is not None:
            rows = rows.masked_fill(flat.eq(ctx.padding_idx).unsqueeze(1), 0.0)
        # in place into a fresh zero table: the out-of-place form would copy it first
        gw = zeros(ctx.shape, dtype=grad.dtype, device=grad.device).index_add_(0, flat, rows)
        return gw, None, None, None

    @staticmethod
    def jvp(ctx, tw, *unused):
        flat = ctx._to_save[0] if ctx._to_save is not None else ctx.saved_tensors[0]
        return tw.index_select(0, flat).reshape(ctx.out_shape)


def _padding_index(padding_idx, num_embeddings):
    """``padding_idx`` checked against the table's rows and made non-negative."""
    if padding_idx is None:
        return None
    if padding_idx >= 0:
        assert padding_idx < num_embeddings, "Padding_idx must be within num_embeddings"
        return padding_idx
    assert padding_idx >= -num_embeddings, "Padding_idx must be within num_embeddings"
    return num_embeddings + padding_idx


def _renorm_(weight, input, max_norm, norm_type):
    """Scale the rows of ``weight`` that ``input`` picks so that their ``norm_type``-norm
    is at most ``max_norm`` (in place, not recorded), as PyTorch's ``embedding_renorm_``."""
    with no_grad():
        w = weight.detach()
        rows = input.reshape(-1).unique()
        picked = w.index_select(0, rows)
        norms = picked.norm(norm_type, dim=1)
        scale = (max_norm / (norms + 1e-7)).clamp(max=1.0)
        w.index_copy_(0, rows, picked * scale.unsqueeze(1))


def embedding(input, weight, padding_idx=None, max_norm=None, norm_type=2.0,
              scale_grad_by_freq=False, sparse=False):
    """Look up rows of ``weight`` (``(num_embeddings, embedding_dim)``) by the integer
    indices in ``input``, as ``torch.nn.functional.embedding``; the result has shape
    ``input.shape + (embedding_dim,)``.

    ``padding_idx`` rows receive no gradient; ``max_norm`` renormalises the looked-up
    rows of ``weight`` in place first.  ``sparse`` gradients are not supported
    (the gradient is dense).

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> w = cygrad.tensor([[0.0, 0.0], [1.0, 2.0], [3.0, 4.0]])
    >>> F.embedding(cygrad.tensor([[2, 1], [1, 1]]), w).tolist()
    [[[3.0, 4.0], [1.0, 2.0]], [[1.0, 2.0], [1.0, 2.0]]]
    """
    if input.dtype not in (int64, int32):
        raise RuntimeError(
            "Expected tensor for argument #1 'indices' to have one of the following scalar "
            f"types: Long, Int; but got {input.type()} instead (while checking arguments "
            "for embedding)")
    if weight.dim() != 2:
        raise RuntimeError("'weight' must be 2-D")
    padding_idx = _padding_index(padding_idx, weight.size(0))
    if sparse:
        raise NotImplementedError("embedding: sparse gradients are not supported by cygrad")
    if max_norm is not None:
        _renorm_(weight, input, max_norm, norm_type)
    return Embedding.apply(weight, input, padding_idx, scale_grad_by_freq)
