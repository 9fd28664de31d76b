"""F.linear_cross_entropy against PyTorch's: values and gradients of input, weight and
bias for class-index and probability targets, K-dimensional weights, unbatched input,
ignore_index, class weights and label smoothing; gradcheck; errors."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close

torch = pytest.importorskip("torch", reason="PyTorch is the reference")


def _run(lib, fn, arrays, target, kwargs):
    ts = [lib.tensor(a, requires_grad=True) if a is not None else None for a in arrays]
    x, w, b = ts
    out = fn(x, w, target, linear_bias=b, **kwargs)
    return out, [t for t in ts if t is not None]


@pytest.mark.parametrize("case", ["indices", "probabilities", "k_dim", "unbatched",
                                  "ignore_weight_smoothing", "no_bias_none"])
def test_matches_torch(rng, case):
    n, f, c = 4, 3, 5
    x, w, b = rng.standard_normal((n, f)), rng.standard_normal((c, f)), rng.standard_normal(c)
    tgt, kwargs = rng.integers(0, c, n), {}
    if case == "probabilities":
        tgt = rng.dirichlet(np.ones(c), n)
    elif case == "k_dim":
        w, b = rng.standard_normal((c, 2, f)), rng.standard_normal((c, 2))
        tgt = rng.integers(0, c, (n, 2))
    elif case == "unbatched":
        x, tgt = x[0], np.array(tgt[0])
    elif case == "ignore_weight_smoothing":
        tgt[1] = 2
        kwargs = {"ignore_index": 2, "weight": "w", "label_smoothing": 0.1}
    elif case == "no_bias_none":
        b, kwargs = None, {"reduction": "none"}
    cw = rng.uniform(0.5, 2, c)
    outs = []
    for lib, fn in ((cygrad, F.linear_cross_entropy),
                    (torch, torch.nn.functional.linear_cross_entropy)):
        kw = dict(kwargs)
        if kw.get("weight") == "w":
            kw["weight"] = lib.tensor(cw)
        out, leaves = _run(lib, fn, (x, w, b), lib.tensor(tgt), kw)
        out.sum().backward()
        outs.append((out, leaves))
    (yc, lc), (yt, lt) = outs
    assert tuple(yc.shape) == tuple(yt.shape)
    close(yc, yt, atol=1e-12)
    for a, b_ in zip(lc, lt):
        close(a.grad, b_.grad, atol=1e-12)


def test_gradcheck(rng):
    x = cygrad.tensor(rng.standard_normal((3, 2)), requires_grad=True)
    w = cygrad.tensor(rng.standard_normal((4, 2)), requires_grad=True)
    t = cygrad.tensor([0, 3, 1])

    def fn(x, w):
        return F.linear_cross_entropy(x, w, t, label_smoothing=0.2)
    assert gradcheck(fn, (x, w), check_forward_ad=True)
    assert gradgradcheck(fn, (x, w))


@pytest.mark.parametrize("call", [
    lambda m, F: F.linear_cross_entropy(m.zeros(2, 2, 3), m.zeros(4, 3), m.zeros(2, dtype=m.int64)),
    lambda m, F: F.linear_cross_entropy(m.zeros(2, 3), m.zeros(4, 2), m.zeros(2, dtype=m.int64)),
    lambda m, F: F.linear_cross_entropy(m.zeros(2, 3), m.zeros(4, 3), m.zeros(2, dtype=m.int64),
                                        linear_bias=m.zeros(3)),
    lambda m, F: F.linear_cross_entropy(m.zeros(3), m.zeros(4, 2, 3), m.zeros((), dtype=m.int64)),
    lambda m, F: F.linear_cross_entropy(m.zeros(2, 3), m.zeros(4, 3), m.zeros(2, 4),
                                        ignore_index=0),
], ids=["input_rank", "in_features", "bias_shape", "k_dim_unbatched", "ignore_with_probs"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as et:
        call(torch, torch.nn.functional)
    with pytest.raises(et.type):
        call(cygrad, F)
