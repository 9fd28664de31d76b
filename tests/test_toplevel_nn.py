"""The ``torch.`` top-level forms of nn ops (``cygrad/nn/_toplevel.py``) take PyTorch's
top-level signatures and give PyTorch's values, tuples and gradients."""
import numpy as np
import pytest

import cygrad

torch = pytest.importorskip("torch", reason="the top-level forms are checked against PyTorch")

RNG = np.random.default_rng(0)


def arr(*shape):
    return RNG.standard_normal(shape)


def both(a):
    return cygrad.from_numpy(np.array(a).copy()), torch.from_numpy(np.array(a).copy())


def close(c, t, atol=1e-10):
    if isinstance(t, (tuple, list)):
        assert len(c) == len(t)
        for a, b in zip(c, t):
            close(a, b, atol)
        return
    assert tuple(c.shape) == tuple(t.shape)
    np.testing.assert_allclose(c.numpy(), t.detach().numpy(), atol=atol, rtol=1e-7)


def run(name, *args, **kwargs):
    """Call ``name`` under cygrad and torch with the arrays in ``args`` converted."""
    cargs = [cygrad.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in args]
    targs = [torch.from_numpy(a.copy()) if isinstance(a, np.ndarray) else a for a in args]
    return getattr(cygrad, name)(*cargs, **kwargs), getattr(torch, name)(*targs, **kwargs)


X4 = arr(2, 4, 4, 6)
CASES = [
    ("conv1d", (arr(2, 3, 7), arr(4, 3, 3), arr(4)), {"stride": 2, "padding": 1}),
    ("conv2d", (arr(1, 2, 5, 5), arr(3, 2, 3, 3)), {}),
    ("conv3d", (arr(1, 2, 4, 4, 4), arr(2, 2, 2, 2, 2)), {}),
    ("conv_transpose1d", (arr(1, 2, 5), arr(2, 3, 3)), {"stride": 2}),
    ("conv_transpose2d", (arr(1, 2, 3, 3), arr(2, 3, 2, 2)), {}),
    ("conv_transpose3d", (arr(1, 2, 2, 2, 2), arr(2, 1, 2, 2, 2)), {}),
    ("convolution", (arr(1, 2, 5, 5), arr(3, 2, 3, 3), None, [1, 1], [1, 1], [1, 1], False,
                     [0, 0], 1), {}),
    ("convolution", (arr(1, 2, 5), arr(2, 3, 3), None, [2], [0], [1], True, [1], 1), {}),
    ("conv_tbc", (arr(6, 2, 3), arr(3, 3, 4), arr(4), 1), {}),
    ("layer_norm", (X4, [4, 6], arr(4, 6), arr(4, 6)), {}),
    ("group_norm", (X4, 2, arr(4), arr(4)), {}),
    ("batch_norm", (X4, arr(4), arr(4), None, None, True, 0.1, 1e-5, False), {}),
    ("instance_norm", (X4, arr(4), arr(4), None, None, True, 0.1, 1e-5, False), {}),
    ("rms_norm", (X4, [6], arr(6)), {}),
    ("rms_norm", (X4, [4, 6]), {"eps": 1e-3}),
    ("dropout", (X4, 0.5, False), {}),
    ("alpha_dropout", (X4, 0.5, False), {}),
    ("feature_dropout", (X4, 0.5, False), {}),
    ("feature_alpha_dropout", (X4, 0.5, False), {}),
    ("celu", (X4, 0.7), {}),
    ("selu", (X4,), {}),
    ("rrelu", (X4, 0.2, 0.4), {}),
    ("threshold", (X4, 0.1, -3.0), {}),
    ("prelu", (X4, np.abs(arr(4))), {}),
    ("hardshrink", (X4, 0.7), {}),
    ("pixel_shuffle", (X4, 2), {}),
    ("pixel_unshuffle", (X4, 2), {}),
    ("channel_shuffle", (X4, 2), {}),
    ("native_channel_shuffle", (X4, 4), {}),
    ("pdist", (arr(5, 3),), {}),
    ("pdist", (arr(4, 3), 1.0), {}),
    ("pairwise_distance", (arr(4, 3), arr(4, 3), 1.5), {}),
    ("cosine_similarity", (arr(4, 3), arr(4, 3), 0), {}),
    ("bilinear", (arr(4, 3), arr(4, 2), arr(5, 3, 2), arr(5)), {}),
    ("cosine_embedding_loss", (arr(4, 3), arr(4, 3), np.array([1.0, -1, 1, -1]), 0.2, 2), {}),
    ("hinge_embedding_loss", (arr(4), np.array([1.0, -1, 1, -1]), 0.5, 0), {}),
    ("margin_ranking_loss", (arr(4), arr(4), np.array([1.0, -1, 1, -1]), 0.1), {}),
    ("margin_ranking_loss", (arr(4), arr(4), np.array([1.0, -1, 1, -1]), 0.1, 1), {}),
    ("hinge_embedding_loss", (arr(4), np.array([1.0, -1, 1, -1])), {}),
    ("binary_cross_entropy_with_logits", (arr(4), np.abs(arr(4)) % 1), {}),
    ("triplet_margin_loss", (arr(4, 3), arr(4, 3), arr(4, 3)), {}),
    ("triplet_margin_loss", (arr(4, 3), arr(4, 3), arr(4, 3), 1.0, 1.0, 1e-6, True, 2), {}),
    ("poisson_nll_loss", (arr(4), np.abs(arr(4)), True, True, 1e-8, 1), {}),
    ("kl_div", (arr(4), arr(4), 0), {"log_target": True}),
    ("kl_div", (arr(4), np.abs(arr(4))), {}),
    ("binary_cross_entropy_with_logits", (arr(4), np.abs(arr(4)) % 1, np.abs(arr(4)),
                                          np.abs(arr(4)), 2), {}),
    ("max_pool1d", (arr(2, 3, 8), 3), {}),
    ("max_pool1d", (arr(2, 3, 8), 3, 1, 1), {}),
    ("max_pool1d_with_indices", (arr(2, 3, 8), 2), {}),
    ("max_pool2d", (X4, 2), {}),
    ("max_pool3d", (arr(1, 2, 4, 4, 4), 2, 1), {}),
    ("avg_pool1d", (arr(2, 3, 8), 3), {"count_include_pad": False, "padding": 1}),
    ("adaptive_avg_pool1d", (arr(2, 3, 8), 3), {}),
    ("adaptive_max_pool1d", (arr(2, 3, 8), 3), {}),
    ("constant_pad_nd", (X4, [1, 2, -1, 0], 2.5), {}),
    ("native_layer_norm", (X4, [4, 6], arr(4, 6), arr(4, 6), 1e-5), {}),
    ("native_batch_norm", (X4, arr(4), arr(4), None, None, True, 0.1, 1e-5), {}),
    ("native_batch_norm", (X4, arr(4), arr(4), np.zeros(4), np.ones(4), False, 0.1, 1e-5), {}),
    ("native_group_norm", (X4, arr(4), arr(4), 2, 4, 24, 2, 1e-5), {}),
    ("gru_cell", (arr(2, 3), arr(2, 4), arr(12, 3), arr(12, 4), arr(12), arr(12)), {}),
    ("rnn_tanh_cell", (arr(2, 3), arr(2, 4), arr(4, 3), arr(4, 4)), {}),
    ("rnn_relu_cell", (arr(2, 3), arr(2, 4), arr(4, 3), arr(4, 4), arr(4), arr(4)), {}),
]


@pytest.mark.parametrize("name,args,kwargs", CASES,
                         ids=[f"{c[0]}-{i}" for i, c in enumerate(CASES)])
def test_values_match_torch(name, args, kwargs):
    c, t = run(name, *args, **kwargs)
    close(c, t)


@pytest.mark.parametrize("name,args", [
    ("conv2d", (arr(1, 2, 5, 5), arr(3, 2, 3, 3))),
    ("layer_norm", (X4, [6], arr(6), arr(6))),
    ("kl_div", (arr(4), np.abs(arr(4)), 2)),
    ("pdist", (arr(4, 3),)),
    ("pixel_shuffle", (X4, 2)),
    ("rms_norm", (X4, [6], arr(6))),
])
def test_gradients_match_torch(name, args):
    cargs = [cygrad.from_numpy(a.copy()).requires_grad_() if isinstance(a, np.ndarray) else a
             for a in args]
    targs = [torch.from_numpy(a.copy()).requires_grad_() if isinstance(a, np.ndarray) else a
             for a in args]
    c, t = getattr(cygrad, name)(*cargs), getattr(torch, name)(*targs)
    g = arr(*t.shape)
    c.backward(cygrad.from_numpy(g.copy()))
    t.backward(torch.from_numpy(g.copy()))
    for a, b in zip(cargs, targs):
        if isinstance(b, torch.Tensor):
            close(a.grad, b.grad, atol=1e-9)


def test_lstm_cell_takes_the_pair():
    x, h, c, wi, wh = arr(2, 3), arr(2, 4), arr(2, 4), arr(16, 3), arr(16, 4)
    hc = [cygrad.from_numpy(h.copy()), cygrad.from_numpy(c.copy())]
    ht = [torch.from_numpy(h.copy()), torch.from_numpy(c.copy())]
    out = cygrad.lstm_cell(cygrad.from_numpy(x.copy()), hc, cygrad.from_numpy(wi.copy()),
                           cygrad.from_numpy(wh.copy()))
    ref = torch.lstm_cell(torch.from_numpy(x.copy()), ht, torch.from_numpy(wi.copy()),
                          torch.from_numpy(wh.copy()))
    close(out, ref)


def test_embedding_takes_the_weight_first():
    w = arr(5, 3)
    idx = np.array([[0, 4], [2, 2]])
    c, t = run("embedding", w, idx)
    close(c, t)
    c, t = run("embedding", w, idx, 2)
    close(c, t)


def test_inplace_forms_modify_their_input():
    for name, args in (("celu_", ()), ("selu_", ()), ("threshold_", (0.0, 1.0)),
                       ("rrelu_", (0.3, 0.3))):
        c, t = both(arr(3, 4))
        out_c, out_t = getattr(cygrad, name)(c, *args), getattr(torch, name)(t, *args)
        assert out_c is c
        close(c, out_t)


def test_training_dropouts_drop_as_torch_does():
    x = np.ones((200, 8, 3))
    for name in ("dropout", "feature_dropout", "alpha_dropout", "feature_alpha_dropout"):
        c = getattr(cygrad, name)(cygrad.from_numpy(x.copy()), 0.5, True).numpy()
        t = getattr(torch, name)(torch.from_numpy(x.copy()), 0.5, True).numpy()
        assert sorted(np.unique(c).round(6)) == sorted(np.unique(t).round(6)), name
        if name.startswith("feature"):
            # whole channels: constant over the last dim
            assert (c == c[..., :1]).all()
    x = cygrad.ones(1000)
    out, mask = cygrad.native_dropout(x, 0.25, True)
    assert mask.dtype == cygrad.bool
    np.testing.assert_allclose(out.numpy(), mask.numpy() / 0.75, rtol=1e-6)
    assert 0.6 < mask.numpy().mean() < 0.9


def test_errors_have_torch_types():
    x = cygrad.ones(2, 3, 4, 4)
    with pytest.raises(RuntimeError):
        cygrad.pixel_shuffle(x, 3)
    with pytest.raises(RuntimeError):
        torch.pixel_shuffle(torch.ones(2, 3, 4, 4), 3)
    with pytest.raises(RuntimeError):
        cygrad.pdist(cygrad.ones(2, 3, 4))
    with pytest.raises(RuntimeError):
        torch.pdist(torch.ones(2, 3, 4))
