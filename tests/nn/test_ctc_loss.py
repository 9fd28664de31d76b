"""F.ctc_loss, nn.CTCLoss and torch.ctc_loss against PyTorch: losses and gradients for
padded and concatenated targets, each reduction, short inputs, empty targets,
impossible alignments with and without zero_infinity, unbatched input; gradcheck and
gradgradcheck in float64; errors."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close

torch = pytest.importorskip("torch", reason="PyTorch is the reference for ctc_loss")

T, N, C = 7, 3, 5
TARGETS = [[1, 2, 2], [3, 1, 0], [4, 0, 0]]
LENGTHS = [  # (input_lengths, target_lengths)
    ([7, 5, 7], [3, 2, 1]),
    ([7, 2, 4], [3, 2, 0]),      # an input exactly as long as its target; an empty target
    ([3, 6, 1], [3, 1, 0]),      # [1, 2, 2] needs 4 frames: impossible, loss inf
]


@pytest.mark.parametrize("zero_infinity", [False, True])
@pytest.mark.parametrize("reduction", ["none", "mean", "sum"])
@pytest.mark.parametrize("lengths", range(len(LENGTHS)))
@pytest.mark.parametrize("concatenated", [False, True], ids=["padded", "concatenated"])
def test_matches_torch(rng, lengths, reduction, zero_infinity, concatenated):
    il, tl = LENGTHS[lengths]
    x = rng.standard_normal((T, N, C))
    tg = [v for row, n in zip(TARGETS, tl) for v in row[:n]] if concatenated else TARGETS
    xc, xt = cygrad.tensor(x, requires_grad=True), torch.tensor(x, requires_grad=True)
    lc = F.ctc_loss(xc.log_softmax(2), cygrad.tensor(tg), il, tl, reduction=reduction,
                    zero_infinity=zero_infinity)
    lt = torch.nn.functional.ctc_loss(xt.log_softmax(2), torch.tensor(tg), il, tl,
                                      reduction=reduction, zero_infinity=zero_infinity)
    assert tuple(lc.shape) == tuple(lt.shape)
    close(lc, lt, atol=1e-10)
    if np.isfinite(lt.detach().numpy()).all():
        lc.sum().backward()
        lt.sum().backward()
        close(xc.grad, xt.grad, atol=1e-10)


def test_unbatched_tensor_lengths_and_blank_match_torch(rng):
    x = rng.standard_normal((6, 4))
    kw = {"blank": 3, "reduction": "none"}
    lc = F.ctc_loss(cygrad.tensor(x).log_softmax(1), cygrad.tensor([0, 2, 2]), cygrad.tensor(6),
                    cygrad.tensor(3), **kw)
    lt = torch.nn.functional.ctc_loss(torch.tensor(x).log_softmax(1), torch.tensor([0, 2, 2]),
                                      torch.tensor(6), torch.tensor(3), **kw)
    assert lc.shape == ()
    close(lc, lt, atol=1e-10)


def test_module_and_top_level_match_torch(rng):
    x = rng.standard_normal((T, N, C)).astype(np.float32)
    il, tl = LENGTHS[0]
    lc = nn.CTCLoss(blank=0)(cygrad.tensor(x).log_softmax(2), cygrad.tensor(TARGETS), il, tl)
    lt = torch.nn.CTCLoss(blank=0)(torch.tensor(x).log_softmax(2), torch.tensor(TARGETS), il, tl)
    assert lc.dtype == cygrad.float32
    close(lc, lt, atol=1e-5)
    lc = cygrad.ctc_loss(cygrad.tensor(x), cygrad.tensor(TARGETS), il, tl, 0, 2)
    lt = torch.ctc_loss(torch.tensor(x), torch.tensor(TARGETS), il, tl, 0, 2)
    close(lc, lt, atol=1e-4)


def test_gradcheck(rng):
    il, tl = [4, 3], [2, 1]
    tg = cygrad.tensor([[1, 1], [2, 0]])
    x = cygrad.tensor(rng.standard_normal((4, 2, 3)), requires_grad=True)

    def fn(x):
        return F.ctc_loss(x.log_softmax(2), tg, il, tl, reduction="none")
    assert gradcheck(fn, (x,), check_forward_ad=True)
    assert gradgradcheck(fn, (x,))


@pytest.mark.parametrize("call", [
    lambda m, F, lp: F.ctc_loss(lp, m.tensor([[1, 2, 2], [3, 0, 0]]), [8, 4], [3, 1]),
    lambda m, F, lp: F.ctc_loss(lp, m.tensor([[1, 2, 2], [3, 0, 0]]), [5, 4], [4, 1]),
    lambda m, F, lp: F.ctc_loss(lp, m.tensor([[1, 2, 2], [3, 0, 0]]), [5, 4], [3, 1], blank=4),
    lambda m, F, lp: F.ctc_loss(lp, m.tensor([[1, 2, 2], [3, 0, 0]]), [5], [3, 1]),
    lambda m, F, lp: F.ctc_loss(lp, m.tensor([[1, 2, 2], [3, 0, 0]]), [5, 4], [-1, 1]),
    lambda m, F, lp: F.ctc_loss(lp, m.tensor([[1, 2, 2], [3, 0, 0]]), [5, 4], [3, 1],
                                reduction="x"),
], ids=["input_too_long", "target_too_long", "blank_range", "lengths_size", "negative_length",
        "reduction"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as et:
        call(torch, torch.nn.functional, torch.zeros(7, 2, 4))
    with pytest.raises(et.type):
        call(cygrad, F, cygrad.zeros(7, 2, 4))
