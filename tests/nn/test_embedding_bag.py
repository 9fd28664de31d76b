"""F.embedding_bag, nn.EmbeddingBag and torch.embedding_bag against PyTorch: values and
the table's gradient for every mode with offsets, 2-D input, include_last_offset,
per_sample_weights, padding_idx, empty bags; gradcheck in float64; errors."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close

torch = pytest.importorskip("torch", reason="PyTorch is the reference for embedding_bag")

CASES = [  # (input, offsets, kwargs)
    ([1, 2, 4, 0, 3, 3], [0, 2, 2, 5], {}),                      # an empty bag
    ([1, 2, 4, 0, 3], [0, 2, 5], {"include_last_offset": True}),
    ([[1, 2, 5], [5, 1, 1]], None, {}),                           # 2-D: fixed-size bags
    ([1, 1, 2, 5, 1, 1], [0, 2, 4], {"padding_idx": 1}),          # bag 0 only padding
    ([1, 1, 2, 5], [0, 1], {"padding_idx": -5}),
]


def _pair(inp, off, w, mode, kwargs, psw=None):
    wc, wt = cygrad.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    oc = None if off is None else cygrad.tensor(off)
    ot = None if off is None else torch.tensor(off)
    pc = None if psw is None else cygrad.tensor(psw)
    pt = None if psw is None else torch.tensor(psw)
    yc = F.embedding_bag(cygrad.tensor(inp), wc, oc, mode=mode, per_sample_weights=pc, **kwargs)
    yt = torch.nn.functional.embedding_bag(torch.tensor(inp), wt, ot, mode=mode,
                                           per_sample_weights=pt, **kwargs)
    return wc, wt, yc, yt


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
@pytest.mark.parametrize("case", range(len(CASES)))
def test_values_and_grad_match_torch(rng, mode, case):
    inp, off, kwargs = CASES[case]
    w = rng.standard_normal((6, 3))
    wc, wt, yc, yt = _pair(inp, off, w, mode, kwargs)
    close(yc, yt, atol=1e-12)
    g = rng.standard_normal(tuple(yt.shape))
    yc.backward(cygrad.tensor(g))
    yt.backward(torch.tensor(g))
    close(wc.grad, wt.grad, atol=1e-12)


def test_scale_grad_by_freq_divides_by_each_index_count(rng):
    # PyTorch 2.13's CPU embedding_bag scales some rows by another index's count
    # (indices [1, 1, 2, 5, 2] give row 5 half its gradient), so the reference is the
    # documented rule: each row's gradient divided by how often its index occurs.
    idx, off = np.array([1, 1, 2, 5, 2]), [0, 1]
    w = cygrad.tensor(rng.standard_normal((6, 3)), requires_grad=True)
    g = rng.standard_normal((2, 3))
    F.embedding_bag(cygrad.tensor(idx), w, cygrad.tensor(off), mode="sum",
                    scale_grad_by_freq=True).backward(cygrad.tensor(g))
    bag = np.array([0, 1, 1, 1, 1])
    want = np.zeros((6, 3))
    counts = np.bincount(idx, minlength=6)
    np.add.at(want, idx, g[bag] / counts[idx][:, None])
    np.testing.assert_allclose(w.grad.numpy(), want, atol=1e-12)


def test_per_sample_weights_grad_matches_torch(rng):
    w = rng.standard_normal((6, 3))
    psw = rng.standard_normal(5)
    pc, pt = cygrad.tensor(psw, requires_grad=True), torch.tensor(psw, requires_grad=True)
    wc, wt = cygrad.tensor(w, requires_grad=True), torch.tensor(w, requires_grad=True)
    idx, off = [1, 2, 4, 0, 2], [0, 3]
    yc = F.embedding_bag(cygrad.tensor(idx), wc, cygrad.tensor(off), mode="sum",
                         per_sample_weights=pc, padding_idx=2)
    yt = torch.nn.functional.embedding_bag(torch.tensor(idx), wt, torch.tensor(off), mode="sum",
                                           per_sample_weights=pt, padding_idx=2)
    close(yc, yt, atol=1e-12)
    g = rng.standard_normal((2, 3))
    yc.backward(cygrad.tensor(g))
    yt.backward(torch.tensor(g))
    close(wc.grad, wt.grad, atol=1e-12)
    close(pc.grad, pt.grad, atol=1e-12)


@pytest.mark.parametrize("mode", ["sum", "mean", "max"])
def test_gradcheck(rng, mode):
    w = cygrad.tensor(rng.standard_normal((5, 3)), requires_grad=True)
    idx, off = cygrad.tensor([0, 4, 2, 2, 1]), cygrad.tensor([0, 2, 2])
    psw = cygrad.tensor(rng.standard_normal(5), requires_grad=True)
    if mode == "sum":
        def fn(w, p):
            return F.embedding_bag(idx, w, off, mode=mode, per_sample_weights=p)
        args = (w, psw)
    else:
        def fn(w):
            return F.embedding_bag(idx, w, off, mode=mode)
        args = (w,)
    assert gradcheck(fn, args, check_forward_ad=True)
    assert gradgradcheck(fn, args)


def test_top_level_tuple_matches_torch(rng):
    w = rng.standard_normal((6, 3))
    idx, off = [1, 2, 4, 0, 3, 1], [0, 2, 2]
    for mode in (0, 1, 2):
        rc = cygrad.embedding_bag(cygrad.tensor(w), cygrad.tensor(idx), cygrad.tensor(off),
                                  False, mode, False, None, False, 1)
        rt = torch.embedding_bag(torch.tensor(w), torch.tensor(idx), torch.tensor(off),
                                 False, mode, False, None, False, 1)
        assert len(rc) == 4
        close(rc[0], rt[0], atol=1e-12)
        for a, b in zip(rc[1:], rt[1:]):
            assert a.tolist() == b.tolist()
            assert str(a.dtype).split(".")[-1] == str(b.dtype).split(".")[-1]


def test_module_and_from_pretrained_match_torch(rng):
    w = rng.standard_normal((6, 3)).astype(np.float32)
    mc = nn.EmbeddingBag.from_pretrained(cygrad.tensor(w), mode="max", padding_idx=0)
    mt = torch.nn.EmbeddingBag.from_pretrained(torch.tensor(w), mode="max", padding_idx=0)
    assert repr(mc) == repr(mt).replace("torch", "cygrad")
    assert mc.weight.requires_grad is False
    x = [[0, 3, 4], [2, 2, 0]]
    close(mc(cygrad.tensor(x)), mt(torch.tensor(x)), atol=0)
    bag = nn.EmbeddingBag(10, 4, mode="sum", padding_idx=3)
    assert bag.weight.requires_grad and bag.weight[3].abs().sum().item() == 0
    out = bag(cygrad.tensor([1, 3, 5]), cygrad.tensor([0, 1]),
              per_sample_weights=cygrad.tensor([2.0, 1.0, 1.0]))
    close(out[0], torch.tensor(2 * bag.weight[1].detach().numpy()), atol=1e-6)


def test_max_norm_renormalises_like_torch(rng):
    w = 3 * rng.standard_normal((6, 3))
    wc, wt = cygrad.tensor(w), torch.tensor(w)
    F.embedding_bag(cygrad.tensor([[0, 2]]), wc, max_norm=1.0)
    torch.nn.functional.embedding_bag(torch.tensor([[0, 2]]), wt, max_norm=1.0)
    close(wc, wt, atol=1e-6)


@pytest.mark.parametrize("call", [
    lambda m, w: m.embedding_bag(m.tensor([[0, 1]]), w, m.tensor([0])),
    lambda m, w: m.embedding_bag(m.tensor([0, 1]), w),
    lambda m, w: m.embedding_bag(m.tensor([0, 1]), w, m.tensor([0]), mode="median"),
    lambda m, w: m.embedding_bag(m.tensor([0.0, 1.0]), w, m.tensor([0])),
    lambda m, w: m.embedding_bag(m.tensor([0, 1]), w, m.tensor([1])),
    lambda m, w: m.embedding_bag(m.tensor([0, 1]), w, m.tensor([0]), mode="mean",
                                 per_sample_weights=m.ones(2, dtype=w.dtype)),
    lambda m, w: m.embedding_bag(m.tensor([0, 1]), w, m.tensor([0]), mode="sum",
                                 per_sample_weights=m.ones(3, dtype=w.dtype)),
    lambda m, w: m.embedding_bag(m.tensor([0, 7]), w, m.tensor([0])),
], ids=["2d_with_offsets", "no_offsets", "bad_mode", "float_indices", "offsets_not_from_0",
        "psw_with_mean", "psw_shape", "index_out_of_range"])
def test_errors_match_torch(call):
    class C:  # the same call spelled for both libraries
        def __init__(self, lib, fmod):
            self.tensor, self.ones, self.embedding_bag = lib.tensor, lib.ones, fmod.embedding_bag
    with pytest.raises(Exception) as et:
        call(C(torch, torch.nn.functional), torch.zeros(5, 2))
    with pytest.raises(et.type):
        call(C(cygrad, F), cygrad.zeros(5, 2))
