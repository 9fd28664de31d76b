"""Attention: ``scaled_dot_product_attention`` and the multi-head attention forward
pass behind ``nn.MultiheadAttention``.

``scaled_dot_product_attention`` on float32/float64 CPU tensors is one Function,
:class:`ScaledDotProductAttention`: the score and value products go straight to
the ``matmul_into`` primitive and the scale, mask (causal, boolean or additive)
and softmax are one kernel (``attention_softmax``), so no ``(L, S)`` mask tensor
is built for ``is_causal``. Other dtypes, dropout, a mask that requires grad or
batch dims that broadcast take the composed path (batched ``matmul``,
``masked_fill``, ``softmax``), as does the multi-head forward.
"""
import math

from ..._core import tensor as _C
from ..._core.dispatch import kernel
from ..._core.dtype import bool_
from ...autograd.function import Function
from ...ops.creation import empty, ones, zeros
from ...ops.linalg import baddbmm, bmm
from ...ops.shape import cat
from ...ops.reduction import softmax, sum as _sum
from ._fused import fused_kernel
from .dropout import dropout

__all__ = ["scaled_dot_product_attention", "multi_head_attention_forward"]


def _product(a, b):
    """``a @ b`` of two CPU batches with equal batch dims, into a fresh tensor."""
    out = empty(tuple(a.shape[:-1]) + (b.shape[-1],), dtype=a.dtype, device=a.device)
    return kernel("matmul_into", a.device.type)(a, b, out)


def _masked_scores(q, k, mask, scale, causal):
    """``q @ k^T * scale`` with the mask applied, by differentiable ops."""
    scores = q.matmul(k.transpose(-2, -1)) * scale
    if causal:
        L, S = q.size(-2), k.size(-2)
        return scores.masked_fill(_causal_keep(L, S, q.device).logical_not(), -math.inf)
    return scores if mask is None else scores + mask


class ScaledDotProductAttention(Function):
    """``softmax(q @ k^T * scale + mask) @ v`` with ``mask`` None or an additive
    float mask and ``causal`` masking keys after each query; a row left with no key
    gives zeros (PyTorch's safe softmax).

    Backward, with ``P`` the saved probabilities: ``dv = P^T g``, ``dP = g v^T``,
    ``dS = scale * P * (dP - sum(dP * P))`` (one kernel), ``dq = dS k``,
    ``dk = dS^T q``. Under ``create_graph=True`` the same formulas run on a ``P``
    recomputed by differentiable ops."""
    _node_name = "ScaledDotProductAttentionBackward0"

    @staticmethod
    def forward(ctx, q, k, v, mask, scale, causal):
        scores = _product(q, k.transpose(-2, -1))
        p = kernel("attention_softmax", q.device.type)(scores, scale, causal, mask)
        ctx.scale, ctx.causal, ctx.mask, ctx.p = scale, causal, mask, p
        ctx.save_for_backward(q, k, v)
        return _product(p, v)

    @staticmethod
    def backward(ctx, g):
        q, k, v = ctx.saved_tensors
        scale = ctx.scale
        if _C.is_grad_enabled():
            p = softmax(_masked_scores(q, k, ctx.mask, scale, ctx.causal), -1)
            p = p.masked_fill(p.isnan(), 0.0)       # rows with every key masked
            dp = g.matmul(v.transpose(-2, -1))
            ds = p * (dp - _sum(dp * p, -1, keepdim=True)) * scale
            return (ds.matmul(k), ds.transpose(-2, -1).matmul(q),
                    p.transpose(-2, -1).matmul(g), None, None, None)
        p = ctx.p
        g = g.to(q.dtype)
        needs = ctx.needs_input_grad
        dv = _product(p.transpose(-2, -1), g) if needs[2] else None
        dq = dk = None
        if needs[0] or needs[1]:
            dp = _product(g, v.transpose(-2, -1))
            ds = kernel("softmax_backward", q.device.type)(p, dp, p.dim() - 1, False, scale)
            dq = _product(ds, k) if needs[0] else None
            dk = _product(ds.transpose(-2, -1), q) if needs[1] else None
        return dq, dk, dv, None, None, None

    @staticmethod
    def jvp(ctx, tq, tk, tv, *unused):
        q, k, v = ctx.saved_tensors
        p = ctx.p
        ds = None
        if tq is not None:
            ds = tq.matmul(k.transpose(-2, -1))
        if tk is not None:
            term = q.matmul(tk.transpose(-2, -1))
            ds = term if ds is None else ds + term
        out = None
        if ds is not None:
            ds = ds * ctx.scale
            out = (p * (ds - _sum(p * ds, -1, keepdim=True))).matmul(v)
        if tv is not None:
            term = p.matmul(tv)
            out = term if out is None else out + term
        return out


def _fits(mask, shape):
    """Does ``mask`` broadcast to ``shape`` without growing it?"""
    if mask.dim() > len(shape):
        return False
    return all(m in (1, s) for m, s in zip(tuple(mask.shape)[::-1], shape[::-1]))


def _fused_attention(query, key, value, attn_mask, is_causal, factor):
    """The fused Function's result, or None where the composed path must run."""
    if fused_kernel("attention_softmax", query, key, value) is None:
        return None
    batch = tuple(query.shape[:-2])
    if (tuple(key.shape[:-2]) != batch or tuple(value.shape[:-2]) != batch
            or key.size(-2) != value.size(-2)
            or query.numel() == 0 or key.numel() == 0 or value.numel() == 0):
        return None
    mask = None
    if attn_mask is not None:
        shape = batch + (query.size(-2), key.size(-2))
        if not _fits(attn_mask, shape):
            return None
        if attn_mask.dtype is bool_:
            mask = zeros(tuple(attn_mask.shape), dtype=query.dtype,
                         device=query.device).masked_fill(attn_mask.logical_not(), -math.inf)
        elif attn_mask.dtype is query.dtype and not attn_mask.requires_grad:
            mask = attn_mask
        else:
            return None
    return ScaledDotProductAttention.apply(query, key, value, mask, float(factor),
                                           bool(is_causal))


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
    if dropout_p == 0.0:
        out = _fused_attention(query, key, value, attn_mask, is_causal, factor)
        if out is not None:
            return out
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
