"""Edge cases of the fused kernels (softmax, cross entropy, layer norm, GELU,
attention) against PyTorch; the op table (``tests/opinfo/fused.py``) has the
values, gradients and forward mode of the ordinary samples."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F

torch = pytest.importorskip("torch", reason="the references are PyTorch's functions")
TF = torch.nn.functional


def _pair(a, requires_grad=True):
    return (cygrad.tensor(a, requires_grad=requires_grad),
            torch.tensor(a, requires_grad=requires_grad))


def _close(c, t, tol=1e-5):
    np.testing.assert_allclose(c.detach().numpy(), t.detach().numpy(), rtol=tol, atol=tol)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_every_target_ignored(reduction):
    x = np.random.default_rng(0).standard_normal((4, 3)).astype(np.float32)
    t = np.full(4, -100)
    cx, tx = _pair(x)
    c = F.cross_entropy(cx, cygrad.tensor(t), reduction=reduction)
    r = TF.cross_entropy(tx, torch.tensor(t), reduction=reduction)
    np.testing.assert_array_equal(c.detach().numpy(), r.detach().numpy())   # nan for mean
    c.sum().backward()
    r.sum().backward()
    np.testing.assert_array_equal(cx.grad.numpy(), tx.grad.numpy())        # zeros


def test_cross_entropy_realistic_size_and_byte_targets():
    rng = np.random.default_rng(1)
    x = rng.standard_normal((1024, 65)).astype(np.float32) * 3
    t = rng.integers(0, 65, 1024)
    t[::7] = 3
    cx, tx = _pair(x)
    c = F.cross_entropy(cx, cygrad.tensor(t), ignore_index=3, label_smoothing=0.1)
    r = TF.cross_entropy(tx, torch.tensor(t), ignore_index=3, label_smoothing=0.1)
    _close(c, r)
    c.backward()
    r.backward()
    _close(cx.grad, tx.grad)
    tb = t.astype(np.uint8)
    _close(F.cross_entropy(cx, cygrad.tensor(tb)), TF.cross_entropy(tx, torch.tensor(tb)))


def test_softmax_rows_of_minus_inf_and_nan():
    x = np.array([[-np.inf, -np.inf, -np.inf], [0.0, np.nan, 1.0], [np.inf, 0.0, 1.0],
                  [-np.inf, 0.0, 2.0]], np.float32)
    for cf, tf in ((cygrad.softmax, torch.softmax), (cygrad.log_softmax, torch.log_softmax)):
        np.testing.assert_array_equal(cf(cygrad.tensor(x), 1).numpy(),
                                      tf(torch.tensor(x), 1).numpy())


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_softmax_of_masked_and_widely_spread_rows(dtype):
    # exp's arguments below about -87 (float32) / -708 (float64) and -inf take a
    # clamped path in the C kernel (libmvec's vector exp is slow there); rows masked
    # only in the middle of a batch take the unclamped path: both must be right.
    rng = np.random.default_rng(2)
    x = rng.standard_normal((6, 4, 64, 64)).astype(dtype) * 4
    causal = np.triu(np.ones((64, 64), bool), 1)
    x[:2, :, causal] = -np.inf                       # first rows of the batch masked
    x[3, 1, 7, ::3] = -np.inf                        # one row in the middle
    low = -100.0 if dtype == np.float32 else -720.0
    x[4, :, :, 5] = low                              # exp(x - max) subnormal or 0
    x[4, :, 9, :] = np.linspace(low * 1.2, 0, 64)    # a whole row across the band
    x[5, 2, 3, 4] = np.nan
    for cf, tf in ((cygrad.softmax, torch.softmax), (cygrad.log_softmax, torch.log_softmax)):
        c, r = cf(cygrad.tensor(x), -1).numpy(), tf(torch.tensor(x), -1).numpy()
        np.testing.assert_array_equal(np.isnan(c), np.isnan(r))
        rtol = 1e-5 if dtype == np.float32 else 1e-12
        # softmax: results below the dtype's smallest normal number may be flushed to
        # 0; log_softmax: (x - max) - log(sum) cancels near 0, so an absolute tolerance
        atol = np.finfo(dtype).tiny * 1.5 if cf is cygrad.softmax else rtol
        np.testing.assert_allclose(c, r, rtol=rtol, atol=atol)
        if cf is cygrad.softmax:
            assert (c[np.isneginf(x)] == 0).all()        # masked keys: exactly 0


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("rows", [1, 2, 3])
def test_softmax_of_long_rows_with_one_far_value(dtype, rows):
    # the clamp check scans whole rows 16 elements at a time (two accumulators)
    # then a tail: a value far below the max in either accumulator's lanes or in
    # the tail must send its row to the clamped path, and every row must be right
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    rng = np.random.default_rng(5)
    n = 50_003
    low = -100.0 if dtype == np.float32 else -720.0
    for where in (3, 8 + 5, n - 2):            # first accumulator, second, tail
        x = rng.standard_normal((rows, n)).astype(dtype)
        x[rows - 1, where] = low
        x[0, where // 2] = -np.inf
        for cf, tf in ((cygrad.softmax, torch.softmax), (cygrad.log_softmax, torch.log_softmax)):
            c, r = cf(cygrad.tensor(x), -1).numpy(), tf(torch.tensor(x), -1).numpy()
            rtol = 1e-5 if dtype == np.float32 else 1e-12
            atol = np.finfo(dtype).tiny * 1.5 if cf is cygrad.softmax else rtol
            np.testing.assert_allclose(c, r, rtol=rtol, atol=atol)
            if cf is cygrad.softmax:
                assert c[0, where // 2] == 0 and c[rows - 1, where] == 0


def test_attention_with_a_minus_inf_mask_at_realistic_size():
    rng = np.random.default_rng(3)
    q, k, v = (rng.standard_normal((4, 4, 128, 32)).astype(np.float32) for _ in range(3))
    mask = np.zeros((128, 128), np.float32)
    mask[np.triu(np.ones((128, 128), bool), 1)] = -np.inf
    mask[:, 100:] = -np.inf
    cs, ts = [cygrad.tensor(a) for a in (q, k, v)], [torch.tensor(a) for a in (q, k, v)]
    c = F.scaled_dot_product_attention(*cs, attn_mask=cygrad.tensor(mask))
    r = TF.scaled_dot_product_attention(*ts, attn_mask=torch.tensor(mask))
    _close(c, r)


def _sdpa_pair(shapes, seed=0, dtype=np.float32):
    rng = np.random.default_rng(seed)
    arrays = [rng.standard_normal(s).astype(dtype) for s in shapes]
    pairs = [_pair(a) for a in arrays]
    return [p[0] for p in pairs], [p[1] for p in pairs]


def _check_sdpa(cs, ts, tol=1e-5, **kw):
    ckw = {k: (cygrad.tensor(v.numpy()) if isinstance(v, torch.Tensor) else v)
           for k, v in kw.items()}
    c = F.scaled_dot_product_attention(*cs, **ckw)
    r = TF.scaled_dot_product_attention(*ts, **kw)
    assert type(c.grad_fn).__name__ == "ScaledDotProductAttentionBackward0"
    _close(c, r, tol)
    g = np.random.default_rng(5).standard_normal(tuple(r.shape)).astype(r.detach().numpy().dtype)
    gc = cygrad.autograd.grad(c, cs, cygrad.tensor(g))
    gt = torch.autograd.grad(r, ts, torch.tensor(g))
    for a, b in zip(gc, gt):
        _close(a, b, tol)


def test_sdpa_fully_masked_rows_give_zeros_as_pytorch():
    cs, ts = _sdpa_pair([(2, 4, 3), (2, 5, 3), (2, 5, 2)])
    keep = np.ones((4, 5), bool)
    keep[1] = False
    _check_sdpa(cs, ts, attn_mask=torch.tensor(keep))
    fmask = np.zeros((4, 5), np.float32)
    fmask[2] = -np.inf
    _check_sdpa(cs, ts, attn_mask=torch.tensor(fmask))


@pytest.mark.parametrize("mask_shape", [(2, 1, 4, 5), (1, 5), (3, 4, 5), (2, 3, 1, 5)])
def test_sdpa_broadcast_masks(mask_shape):
    cs, ts = _sdpa_pair([(2, 3, 4, 6), (2, 3, 5, 6), (2, 3, 5, 2)], seed=2)
    rng = np.random.default_rng(3)
    _check_sdpa(cs, ts, attn_mask=torch.tensor(rng.random(mask_shape) < 0.8))
    _check_sdpa(cs, ts, attn_mask=torch.tensor(rng.standard_normal(mask_shape).astype(np.float32)))


def test_sdpa_transformer_shape_causal_float64():
    cs, ts = _sdpa_pair([(32, 4, 32, 16)] * 3, seed=4, dtype=np.float64)
    _check_sdpa(cs, ts, tol=1e-10, is_causal=True)


def test_sdpa_other_paths_still_agree():
    # half precision and dropout take the composed path; its result is still PyTorch's
    rng = np.random.default_rng(6)
    q = rng.standard_normal((2, 3, 4)).astype(np.float32)
    c = F.scaled_dot_product_attention(*(cygrad.tensor(q, dtype=cygrad.bfloat16),) * 3,
                                       is_causal=True)
    r = TF.scaled_dot_product_attention(*(torch.tensor(q, dtype=torch.bfloat16),) * 3,
                                        is_causal=True)
    np.testing.assert_allclose(c.float().numpy(), r.float().numpy(), atol=2e-2)
    cygrad.manual_seed(0)
    out = F.scaled_dot_product_attention(*(cygrad.tensor(q),) * 3, dropout_p=0.5)
    assert out.shape == (2, 3, 4) and np.isfinite(out.numpy()).all()


def test_layer_norm_and_gelu_realistic_sizes():
    rng = np.random.default_rng(7)
    x = rng.standard_normal((32, 32, 64)).astype(np.float32)
    w, b = rng.standard_normal(64).astype(np.float32), rng.standard_normal(64).astype(np.float32)
    (cx, tx), (cw, tw), (cb, tb) = _pair(x), _pair(w), _pair(b)
    c = F.layer_norm(cx, (64,), cw, cb)
    r = TF.layer_norm(tx, (64,), tw, tb)
    _close(c, r, 1e-4)
    g = rng.standard_normal(x.shape).astype(np.float32)
    for a, e in zip(cygrad.autograd.grad(c, (cx, cw, cb), cygrad.tensor(g)),
                    torch.autograd.grad(r, (tx, tw, tb), torch.tensor(g))):
        _close(a, e, 1e-3)
    x = rng.standard_normal((32, 32, 256)).astype(np.float32) * 3
    for approximate in ("none", "tanh"):
        cx, tx = _pair(x)
        c, r = F.gelu(cx, approximate=approximate), TF.gelu(tx, approximate=approximate)
        _close(c, r)
        c.backward(cygrad.ones_like(c))
        r.backward(torch.ones_like(r))
        _close(cx.grad, tx.grad)


def test_results_do_not_depend_on_the_thread_count():
    rng = np.random.default_rng(8)
    # above 2^19 elements: where the fused kernels start splitting rows over the pool
    x = cygrad.tensor(rng.standard_normal((2056, 256)).astype(np.float32), requires_grad=True)
    w = cygrad.tensor(rng.standard_normal(256).astype(np.float32), requires_grad=True)
    t = cygrad.tensor(rng.integers(0, 256, 2056))
    before = cygrad.get_num_threads()

    def run():
        x.grad = w.grad = None
        y = F.layer_norm(x, (256,), w)
        loss = F.cross_entropy(F.gelu(y), t) + cygrad.softmax(y, 0).square().sum()
        loss.backward()
        return loss.detach().numpy(), x.grad.numpy().copy(), w.grad.numpy().copy()

    try:
        cygrad.set_num_threads(1)
        one = run()
        cygrad.set_num_threads(2)
        two = run()
    finally:
        cygrad.set_num_threads(before)
    for a, b in zip(one, two):
        np.testing.assert_array_equal(a, b)


def test_double_backward_through_the_fused_ops():
    rng = np.random.default_rng(9)
    x = cygrad.tensor(rng.standard_normal((3, 4)), requires_grad=True)
    t = cygrad.tensor(rng.integers(0, 4, 3))

    def f(x):
        return (F.cross_entropy(x, t, label_smoothing=0.1) + F.gelu(x).sum()
                + F.layer_norm(x, (4,)).square().sum() + cygrad.log_softmax(x, 1).sum())
    assert cygrad.autograd.gradgradcheck(f, (x,))
