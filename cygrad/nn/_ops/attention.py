"""Attention: ``scaled_dot_product_attention`` and the multi-head attention forward
pass behind ``nn.MultiheadAttention``.

Both are compositions of differentiable ops (batched ``matmul``, ``softmax``,
``masked_fill``), so autograd differentiates them with no formula of their own:
the softmax already has a fused backward, and the products are single BLAS calls.
"""
import math

from ..._core.dtype import bool_
from ...ops.creation import ones, zeros
from ...ops.linalg import baddbmm, bmm
from ...ops.shape import cat
from ...ops.reduction import softmax
from .dropout import dropout

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _causal_keep(L, S, device):
    """True where query ``i`` may attend to key ``j`` (``j <= i``)."""
    return ones(L, S, dtype=bool_, device=device).tril()


def scaled_dot_product_attention(query, key, value, attn_mask=None, dropout_p=0.0,
                                 is_causal=False, scale=None, enable_gqa=False):
    """``softmax(q @ k^T * scale + mask) @ v``, as
    ``torch.nn.functional.scaled_dot_product_attention``.

    ``query`` is ``(..., L, E)``, ``key`` ``(..., S, E)``, ``value`` ``(..., S, Ev)``.
    A boolean ``attn_mask`` marks the pairs that *may* attend (False: masked out);
    a float mask is added to the scores.  ``is_causal`` masks keys after each
    query.  ``scale`` defaults to ``1/sqrt(E)``.  ``dropout_p`` is applied to the
    attention weights whenever it is non-zero (pass 0 in evaluation).  With
    ``enable_gqa`` the key/value heads (dim -3) are repeated to match the query's.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> q = k = cygrad.eye(2).unsqueeze(0)
    >>> v = cygrad.tensor([[[1.0], [3.0]]])
    >>> [round(x, 4) for x in F.scaled_dot_product_attention(q, k, v, is_causal=True)
    ...  .reshape(-1).tolist()]
    [1.0, 2.3395]
    """
    if query.dim() < 2 or key.dim() < 2 or value.dim() < 2:
        raise RuntimeError("scaled_dot_product_attention: query, key and value must be at "
                           "least 2-D")
    if query.size(-1) != key.size(-1):
        raise RuntimeError(f"scaled_dot_product_attention: the last dims of query "
                           f"({query.size(-1)}) and key ({key.size(-1)}) must match")
    if is_causal and attn_mask is not None:
        raise RuntimeError("_scaled_dot_product_attention: Explicit attn_mask should not be set "
                           "when is_causal=True")
    L, S = query.size(-2), key.size(-2)
    if enable_gqa and query.dim() >= 3 and key.size(-3) != query.size(-3):
        reps = query.size(-3) // key.size(-3)
        key = key.repeat_interleave(reps, dim=-3)
        value = value.repeat_interleave(reps, dim=-3)
    factor = 1.0 / math.sqrt(query.size(-1)) if scale is None else scale
    scores = (query * factor).matmul(key.transpose(-2, -1))
    if is_causal:
        scores = scores.masked_fill(_causal_keep(L, S, query.device).logical_not(), -math.inf)
    elif attn_mask is not None:
        if attn_mask.dtype is bool_:
            scores = scores.masked_fill(attn_mask.logical_not(), -math.inf)
        else:
            scores = scores + attn_mask
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    return weights.matmul(value)


def _canonical_mask(mask, name, dtype):
    """A mask where True means *masked out* (MultiheadAttention's convention) as an
    additive float mask; float masks pass through."""
    if mask is None:
        return None
    if mask.dtype is bool_:
        return zeros(tuple(mask.shape), dtype=dtype, device=mask.device).masked_fill(mask,
                                                                                     -math.inf)
    if not mask.dtype.is_floating_point:
        raise AssertionError(f"only bool and floating types of {name} are supported")
    return mask


def _in_projection(query, key, value, E, in_proj_weight, in_proj_bias, q_w, k_w, v_w):
    """Query/key/value projections; one ``(L*N, E) @ (E, 3E)`` product for
    self-attention with packed weights."""
    if in_proj_weight is not None and query is key and key is value:
        qkv = query.matmul(in_proj_weight.t())
        if in_proj_bias is not None:
            qkv = qkv + in_proj_bias
        return qkv[..., :E], qkv[..., E:2 * E], qkv[..., 2 * E:]
    if in_proj_weight is not None:
        q_w, k_w, v_w = in_proj_weight[:E], in_proj_weight[E:2 * E], in_proj_weight[2 * E:]
    b_q = b_k = b_v = None
    if in_proj_bias is not None:
        b_q, b_k, b_v = in_proj_bias[:E], in_proj_bias[E:2 * E], in_proj_bias[2 * E:]
    out = []
    for x, w, b in ((query, q_w, b_q), (key, k_w, b_k), (value, v_w, b_v)):
        y = x.matmul(w.t())
        out.append(y if b is None else y + b)
    return tuple(out)


def multi_head_attention_forward(query, key, value, embed_dim_to_check, num_heads,
                                 in_proj_weight, in_proj_bias, bias_k, bias_v, add_zero_attn,
                                 dropout_p, out_proj_weight, out_proj_bias, training=True,
                                 key_padding_mask=None, need_weights=True, attn_mask=None,
                                 use_separate_proj_weight=False, q_proj_weight=None,
                                 k_proj_weight=None, v_proj_weight=None, static_k=None,
                                 static_v=None, average_attn_weights=True, is_causal=False):
    """Multi-head attention on ``(L, N, E)`` inputs (or unbatched ``(L, E)``), as
    ``torch.nn.functional.multi_head_attention_forward``; returns ``(output,
    weights)`` with ``weights`` None unless ``need_weights``.

    Masks follow PyTorch's MultiheadAttention convention: a boolean ``attn_mask``
    (``(L, S)`` or ``(N*num_heads, L, S)``) or ``key_padding_mask`` (``(N, S)``) is
    True where attention is *not* allowed; float masks are added to the scores.

    Examples
    --------
    >>> import cygrad
    >>> import cygrad.nn.functional as F
    >>> E = 4
    >>> x = cygrad.randn(3, 2, E)
    >>> out, w = F.multi_head_attention_forward(
    ...     x, x, x, E, 2, cygrad.randn(3 * E, E), cygrad.zeros(3 * E), None, None, False,
    ...     0.0, cygrad.randn(E, E), cygrad.zeros(E))
    >>> out.shape, w.shape
    (cygrad.Size([3, 2, 4]), cygrad.Size([2, 3, 3]))
    """
    batched = query.dim() == 3
    if not batched:
        if query.dim() != 2:
            raise AssertionError(f"query should be unbatched 2D or batched 3D tensor but "
                                 f"received {query.dim()}-D query tensor")
        query, key, value = query.unsqueeze(1), key.unsqueeze(1), value.unsqueeze(1)
        if key_padding_mask is not None:
            key_padding_mask = key_padding_mask.unsqueeze(0)
    tgt_len, bsz, E = query.shape
    src_len = key.size(0)
    if E != embed_dim_to_check:
        raise AssertionError(f"was expecting embedding dimension of {embed_dim_to_check}, but "
                             f"got {E}")
    if is_causal and attn_mask is None:
        raise RuntimeError("Need attn_mask if specifying the is_causal hint. You may use the "
                           "Transformer module method `generate_square_subsequent_mask` to "
                           "create this mask.")
    head_dim = E // num_heads
    if head_dim * num_heads != E:
        raise AssertionError(f"embed_dim {E} not divisible by num_heads {num_heads}")
    if use_separate_proj_weight:
        in_proj_weight = None
    q, k, v = _in_projection(query, key, value, E, in_proj_weight, in_proj_bias,
                             q_proj_weight, k_proj_weight, v_proj_weight)
    attn_mask = _canonical_mask(attn_mask, "attn_mask", q.dtype)
    key_padding_mask = _canonical_mask(key_padding_mask, "key_padding_mask", q.dtype)
    if attn_mask is not None:
        if attn_mask.dim() == 2:
            if tuple(attn_mask.shape) != (tgt_len, src_len):
                raise RuntimeError(f"The shape of the 2D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(tgt_len, src_len)}.")
            attn_mask = attn_mask.unsqueeze(0)
        elif attn_mask.dim() == 3:
            if tuple(attn_mask.shape) != (bsz * num_heads, tgt_len, src_len):
                raise RuntimeError(f"The shape of the 3D attn_mask is {attn_mask.shape}, but "
                                   f"should be {(bsz * num_heads, tgt_len, src_len)}.")
        else:
            raise RuntimeError(f"attn_mask's dimension {attn_mask.dim()} is not supported")
    if bias_k is not None and bias_v is not None:
        k = cat([k, bias_k.expand(1, bsz, E)])
        v = cat([v, bias_v.expand(1, bsz, E)])
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    q = q.reshape(tgt_len, bsz * num_heads, head_dim).transpose(0, 1)
    k = (static_k if static_k is not None
         else k.reshape(k.size(0), bsz * num_heads, head_dim).transpose(0, 1))
    v = (static_v if static_v is not None
         else v.reshape(v.size(0), bsz * num_heads, head_dim).transpose(0, 1))
    if add_zero_attn:
        k = cat([k, zeros(bsz * num_heads, 1, head_dim, dtype=k.dtype, device=k.device)], 1)
        v = cat([v, zeros(bsz * num_heads, 1, head_dim, dtype=v.dtype, device=v.device)], 1)
        attn_mask = _pad_last(attn_mask)
        key_padding_mask = _pad_last(key_padding_mask)
    src_len = k.size(1)
    if key_padding_mask is not None:
        if tuple(key_padding_mask.shape) != (bsz, src_len):
            raise AssertionError(f"expecting key_padding_mask shape of {(bsz, src_len)}, but "
                                 f"got {key_padding_mask.shape}")
        kpm = key_padding_mask.reshape(bsz, 1, 1, src_len).expand(
            bsz, num_heads, 1, src_len).reshape(bsz * num_heads, 1, src_len)
        attn_mask = kpm if attn_mask is None else attn_mask + kpm
    if not training:
        dropout_p = 0.0
    q = q * (1.0 / math.sqrt(head_dim))
    kt = k.transpose(-2, -1)
    scores = bmm(q, kt) if attn_mask is None else baddbmm(
        attn_mask.expand(bsz * num_heads, tgt_len, src_len), q, kt)
    weights = softmax(scores, -1)
    if dropout_p > 0.0:
        weights = dropout(weights, dropout_p, True)
    out = bmm(weights, v).transpose(0, 1).reshape(tgt_len * bsz, E)
    out = out.matmul(out_proj_weight.t())
    if out_proj_bias is not None:
        out = out + out_proj_bias
    out = out.reshape(tgt_len, bsz, E)
    if not need_weights:
        return (out if batched else out.squeeze(1)), None
    weights = weights.reshape(bsz, num_heads, tgt_len, src_len)
    if average_attn_weights:
        weights = weights.mean(1)
    if not batched:
        return out.squeeze(1), weights.squeeze(0)
    return out, weights


def _pad_last(mask):
    """One more (unmasked) key column for the extra key of ``bias_k``/``add_zero_attn``."""
    if mask is None:
        return None
    pad = zeros(tuple(mask.shape[:-1]) + (1,), dtype=mask.dtype, device=mask.device)
    return cat([mask, pad], -1)
