"""scaled_dot_product_attention, MultiheadAttention and the Transformer layers against
PyTorch with copied weights (dropout 0 / eval for determinism); gradcheck of sdpa and
of multi-head attention in float64; masks, state_dict keys, errors."""
import contextlib
import warnings

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close, copy_state


@contextlib.contextmanager
def _nowarn():
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        yield


def _pair(torch, a):
    return cygrad.tensor(a), torch.tensor(a)


@pytest.mark.parametrize("kwargs", [{}, {"is_causal": True}, {"scale": 0.3}, {"mask": "bool"},
                                    {"mask": "float"}])
def test_sdpa_matches_torch(rng, kwargs):
    torch = pytest.importorskip("torch")
    q, k, v = (rng.standard_normal(s) for s in [(2, 3, 4, 5), (2, 3, 6, 5), (2, 3, 6, 2)])
    kwargs = dict(kwargs)
    mask = kwargs.pop("mask", None)
    cargs, targs = dict(kwargs), dict(kwargs)
    if mask == "bool":
        m = rng.random((4, 6)) > 0.3
        m[:, 0] = True                            # no fully masked row
        cargs["attn_mask"], targs["attn_mask"] = _pair(torch, m)
    elif mask == "float":
        cargs["attn_mask"], targs["attn_mask"] = _pair(torch, rng.standard_normal((3, 4, 6)))
    qc, kc, vc = (cygrad.tensor(a, requires_grad=True) for a in (q, k, v))
    qt, kt, vt = (torch.tensor(a, requires_grad=True) for a in (q, k, v))
    oc = F.scaled_dot_product_attention(qc, kc, vc, **cargs)
    ot = torch.nn.functional.scaled_dot_product_attention(qt, kt, vt, **targs)
    close(oc, ot, atol=1e-12)
    g = rng.standard_normal(tuple(ot.shape))
    oc.backward(cygrad.tensor(g))
    ot.backward(torch.tensor(g))
    for a, b in ((qc, qt), (kc, kt), (vc, vt)):
        close(a.grad, b.grad, atol=1e-10)


def test_sdpa_gradcheck(rng):
    args = tuple(cygrad.tensor(rng.standard_normal(s), requires_grad=True)
                 for s in [(2, 3, 4), (2, 5, 4), (2, 5, 3)])
    assert gradcheck(F.scaled_dot_product_attention, args, check_forward_ad=True)
    assert gradgradcheck(F.scaled_dot_product_attention, args)
    causal = lambda q, k, v: F.scaled_dot_product_attention(q, k, v, is_causal=True)  # noqa
    assert gradcheck(causal, args)


def test_sdpa_dropout_and_gqa(rng):
    torch = pytest.importorskip("torch")
    q, k, v = (rng.standard_normal(s) for s in [(1, 4, 3, 2), (1, 2, 5, 2), (1, 2, 5, 2)])
    oc = F.scaled_dot_product_attention(*map(cygrad.tensor, (q, k, v)), enable_gqa=True)
    ot = torch.nn.functional.scaled_dot_product_attention(*map(torch.tensor, (q, k, v)),
                                                          enable_gqa=True)
    close(oc, ot, atol=1e-12)
    cygrad.manual_seed(0)
    ones = cygrad.ones(1, 200, 4)
    out = F.scaled_dot_product_attention(ones, ones, cygrad.ones(1, 200, 1), dropout_p=0.5)
    # each output is (kept weights)/(1-p): its mean over 200 rows is 1 +- a few %
    assert abs(out.mean().item() - 1) < 0.1 and out.std().item() > 0.05
    with pytest.raises(RuntimeError, match="Explicit attn_mask should not be set"):
        F.scaled_dot_product_attention(ones, ones, ones, attn_mask=cygrad.ones(200, 200),
                                       is_causal=True)


MHA_CONFIGS = [dict(), dict(batch_first=True), dict(kdim=3, vdim=7), dict(bias=False),
               dict(add_bias_kv=True, add_zero_attn=True)]


@pytest.mark.parametrize("config", MHA_CONFIGS)
def test_multihead_attention_matches_torch(rng, config):
    torch = pytest.importorskip("torch")
    c, t = nn.MultiheadAttention(8, 2, **config), torch.nn.MultiheadAttention(8, 2, **config)
    copy_state(c, t)
    bf = config.get("batch_first", False)
    L, S, N = 5, 4, 3
    shp = (lambda n, d: (N, n, d)) if bf else (lambda n, d: (n, N, d))
    q = rng.standard_normal(shp(L, 8)).astype(np.float32)
    k = rng.standard_normal(shp(S, config.get("kdim", 8))).astype(np.float32)
    v = rng.standard_normal(shp(S, config.get("vdim", 8))).astype(np.float32)
    kpm = np.zeros((N, S), bool)
    kpm[0, 1] = kpm[2, 3] = True
    am = rng.random((L, S)) > 0.8
    am[:, 0] = False
    for extra in [{}, {"key_padding_mask": kpm, "attn_mask": am},
                  {"attn_mask": rng.standard_normal((L, S)).astype(np.float32)},
                  {"average_attn_weights": False}, {"need_weights": False}]:
        qc, qt = cygrad.tensor(q, requires_grad=True), torch.tensor(q, requires_grad=True)
        ec = {a: cygrad.tensor(b) if isinstance(b, np.ndarray) else b for a, b in extra.items()}
        et = {a: torch.tensor(b) if isinstance(b, np.ndarray) else b for a, b in extra.items()}
        oc, wc = c(qc, cygrad.tensor(k), cygrad.tensor(v), **ec)
        ot, wt = t(qt, torch.tensor(k), torch.tensor(v), **et)
        close(oc, ot)
        assert (wc is None) == (wt is None)
        if wt is not None:
            close(wc, wt)
        oc.sum().backward()
        ot.sum().backward()
        close(qc.grad, qt.grad, atol=1e-4)
    for (n, p), tp in zip(c.named_parameters(), t.parameters()):
        close(p.grad, tp.grad, atol=1e-3)


def test_multihead_self_attention_unbatched_and_3d_mask(rng):
    torch = pytest.importorskip("torch")
    c, t = nn.MultiheadAttention(6, 3), torch.nn.MultiheadAttention(6, 3)
    copy_state(c, t)
    x = rng.standard_normal((4, 6)).astype(np.float32)
    for a, b in zip(c(*[cygrad.tensor(x)] * 3), t(*[torch.tensor(x)] * 3)):
        close(a, b)
    x3 = rng.standard_normal((4, 2, 6)).astype(np.float32)
    m = rng.standard_normal((6, 4, 4)).astype(np.float32)
    xc, xt = cygrad.tensor(x3), torch.tensor(x3)
    for a, b in zip(c(xc, xc, xc, attn_mask=cygrad.tensor(m)),
                    t(xt, xt, xt, attn_mask=torch.tensor(m))):
        close(a, b)


def test_multihead_attention_gradcheck(rng):
    m = nn.MultiheadAttention(4, 2).double()
    x = cygrad.tensor(rng.standard_normal((3, 2, 4)), requires_grad=True)
    assert gradcheck(lambda x: m(x, x, x)[0], (x,))


def test_multihead_attention_dropout_train_eval(rng):
    cygrad.manual_seed(0)
    m = nn.MultiheadAttention(8, 2, dropout=0.5)
    x = cygrad.tensor(rng.standard_normal((5, 2, 8)).astype(np.float32))
    w_train = m(x, x, x)[1]
    m.eval()
    w_eval = m(x, x, x)[1]
    np.testing.assert_allclose(w_eval.sum(-1).detach().numpy(), 1, atol=1e-5)
    assert not np.allclose(w_train.detach().numpy(), w_eval.detach().numpy())


def test_multihead_state_dict_keys_and_init():
    torch = pytest.importorskip("torch")
    for config in MHA_CONFIGS:
        assert list(nn.MultiheadAttention(8, 2, **config).state_dict()) == \
            list(torch.nn.MultiheadAttention(8, 2, **config).state_dict())
    m = nn.MultiheadAttention(64, 4)
    w = m.in_proj_weight.detach().numpy()
    bound = np.sqrt(6 / (64 + 192))                     # xavier_uniform_ on (192, 64)
    assert w.min() >= -bound and w.max() <= bound and w.std() > 0.5 * bound
    assert (m.in_proj_bias.detach().numpy() == 0).all()
    assert (m.out_proj.bias.detach().numpy() == 0).all()
    with pytest.raises(AssertionError, match="embed_dim must be divisible by num_heads"):
        nn.MultiheadAttention(5, 2)


@pytest.mark.parametrize("kwargs", [dict(), dict(norm_first=True, activation="gelu"),
                                    dict(batch_first=True), dict(activation=F.relu, bias=False)])
def test_encoder_layer_matches_torch(rng, kwargs):
    torch = pytest.importorskip("torch")
    tkw = dict(kwargs)
    if callable(kwargs.get("activation")):
        tkw["activation"] = torch.nn.functional.relu
    c = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **kwargs).eval()
    t = torch.nn.TransformerEncoderLayer(8, 2, 16, dropout=0.0, **tkw).eval()
    copy_state(c, t)
    x = rng.standard_normal((5, 3, 8)).astype(np.float32)
    mask = nn.Transformer.generate_square_subsequent_mask(3 if kwargs.get("batch_first") else 5)
    kpm = np.zeros((3, 5), bool)
    kpm[1, 4] = True
    close(c(cygrad.tensor(x)), t(torch.tensor(x)))
    close(c(cygrad.tensor(x), src_mask=mask), t(torch.tensor(x), src_mask=torch.tensor(mask.numpy())))
    if not kwargs.get("batch_first"):
        close(c(cygrad.tensor(x), src_key_padding_mask=cygrad.tensor(kpm)),
              t(torch.tensor(x), src_key_padding_mask=torch.tensor(kpm)))


def test_encoder_and_decoder_stacks_match_torch(rng):
    torch = pytest.importorskip("torch")
    with _nowarn():     # PyTorch warns about nested tensors with norm_first layers
        t_enc = torch.nn.TransformerEncoder(torch.nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2,
                                            norm=torch.nn.LayerNorm(8), enable_nested_tensor=False)
    c_enc = nn.TransformerEncoder(nn.TransformerEncoderLayer(8, 2, 16, 0.0), 2, norm=nn.LayerNorm(8))
    copy_state(c_enc, t_enc)
    assert c_enc.layers[0] is not c_enc.layers[1]          # deep copies
    src = rng.standard_normal((6, 2, 8)).astype(np.float32)
    close(c_enc(cygrad.tensor(src)), t_enc(torch.tensor(src)))
    t_dec = torch.nn.TransformerDecoder(torch.nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2)
    c_dec = nn.TransformerDecoder(nn.TransformerDecoderLayer(8, 2, 16, 0.0), 2)
    copy_state(c_dec, t_dec)
    tgt = rng.standard_normal((4, 2, 8)).astype(np.float32)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    close(c_dec(cygrad.tensor(tgt), cygrad.tensor(src), tgt_mask=mask, tgt_is_causal=True),
          t_dec(torch.tensor(tgt), torch.tensor(src), tgt_mask=torch.tensor(mask.numpy()),
                tgt_is_causal=True))


@pytest.mark.parametrize("norm_first", [False, True])
def test_decoder_layer_and_transformer_match_torch(rng, norm_first):
    torch = pytest.importorskip("torch")
    c = nn.TransformerDecoderLayer(8, 2, 16, 0.0, norm_first=norm_first)
    t = torch.nn.TransformerDecoderLayer(8, 2, 16, 0.0, norm_first=norm_first)
    copy_state(c, t)
    tgt = rng.standard_normal((4, 2, 8)).astype(np.float32)
    mem = rng.standard_normal((6, 2, 8)).astype(np.float32)
    mm = rng.standard_normal((4, 6)).astype(np.float32)
    close(c(cygrad.tensor(tgt), cygrad.tensor(mem), memory_mask=cygrad.tensor(mm)),
          t(torch.tensor(tgt), torch.tensor(mem), memory_mask=torch.tensor(mm)))
    with _nowarn():
        tt = torch.nn.Transformer(8, 2, 1, 1, 16, 0.0, norm_first=norm_first)
    ct = nn.Transformer(8, 2, 1, 1, 16, 0.0, norm_first=norm_first)
    copy_state(ct, tt)
    mask = nn.Transformer.generate_square_subsequent_mask(4)
    close(ct(cygrad.tensor(mem), cygrad.tensor(tgt), tgt_mask=mask),
          tt(torch.tensor(mem), torch.tensor(tgt), tgt_mask=torch.tensor(mask.numpy())))


def test_generate_square_subsequent_mask_matches_torch():
    torch = pytest.importorskip("torch")
    m = nn.Transformer.generate_square_subsequent_mask(5, dtype=cygrad.float64)
    assert m.dtype == cygrad.float64
    np.testing.assert_array_equal(m.numpy(),
                                  torch.nn.Transformer.generate_square_subsequent_mask(5).numpy())


def test_encoder_layer_dropout_train_eval_and_bad_activation(rng):
    layer = nn.TransformerEncoderLayer(8, 2, 16, dropout=0.5)
    x = cygrad.tensor(rng.standard_normal((5, 2, 8)).astype(np.float32))
    layer.eval()
    close(layer(x), layer(x), atol=0)
    layer.train()
    assert not np.allclose(layer(x).detach().numpy(), layer(x).detach().numpy())
    with pytest.raises(RuntimeError, match="activation should be relu/gelu, not tanh"):
        nn.TransformerEncoderLayer(8, 2, activation="tanh")
