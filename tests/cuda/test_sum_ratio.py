"""``sum_ratio`` (emulated GPU): cross entropy's mean over the counted weight in one
launch, against NumPy and the CPU kernel; the mean cross entropy's launches, value
and gradient against the CPU run, with ignored targets and all targets ignored."""
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad._core import dispatch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, launched, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
@pytest.mark.parametrize("n", [1, 7, 300, 2000])
def test_sum_ratio_matches_numpy_and_the_cpu_kernel(dtype, n):
    rng = np.random.default_rng(n)
    a = rng.standard_normal(n).astype(dtype.np_dtype)
    w = rng.uniform(0.0, 2.0, n).astype(dtype.np_dtype)
    ratio, denom = dispatch.kernel("sum_ratio", "cuda")(cygrad.tensor(a, device="cuda"),
                                                       cygrad.tensor(w, device="cuda"))
    assert ratio.shape == () and denom.shape == () and ratio.dtype is dtype
    rtol = 1e-5 if dtype is cygrad.float32 else 1e-12
    np.testing.assert_allclose(denom.cpu().item(), w.astype(np.float64).sum(), rtol=rtol)
    np.testing.assert_allclose(ratio.cpu().item(), a.astype(np.float64).sum() / w.sum(),
                               rtol=rtol * 10, atol=rtol)
    cr, cd = dispatch.kernel("sum_ratio", "cpu")(cygrad.tensor(a), cygrad.tensor(w))
    np.testing.assert_allclose(ratio.cpu().item(), cr.item(), rtol=rtol * 10, atol=rtol)
    np.testing.assert_allclose(denom.cpu().item(), cd.item(), rtol=rtol)


def test_sum_ratio_errors_and_zero_weight():
    k = dispatch.kernel("sum_ratio", "cuda")
    ratio, denom = k(cygrad.zeros(3, device="cuda"), cygrad.zeros(3, device="cuda"))
    assert np.isnan(ratio.cpu().item()) and denom.cpu().item() == 0     # every target ignored
    ratio, _ = k(cygrad.ones(3, device="cuda"), cygrad.zeros(3, device="cuda"))
    assert ratio.cpu().item() == np.inf
    with pytest.raises(RuntimeError, match="1-D"):
        k(cygrad.ones(2, 3, device="cuda"), cygrad.ones(2, 3, device="cuda"))
    with pytest.raises(RuntimeError, match="expected a cygrad.float32 tensor"):
        k(cygrad.ones(3, device="cuda"), cygrad.ones(3, dtype=cygrad.float64, device="cuda"))
    with pytest.raises(RuntimeError, match="1-D"):
        dispatch.kernel("sum_ratio", "cpu")(cygrad.ones(3), cygrad.ones(4))


@pytest.mark.parametrize("targets", [[0, 4, -100, 2, 1, -100], [-100] * 6])
def test_mean_cross_entropy_is_one_launch_after_the_rows(emulated, monkeypatch, targets):
    rng = np.random.default_rng(3)
    logits = rng.standard_normal((6, 5))
    weight = rng.uniform(0.5, 2.0, 5)
    results = []
    for device in ("cpu", "cuda"):
        x = cygrad.tensor(logits, device=device, requires_grad=True)
        t = cygrad.tensor(targets, device=device)
        w = cygrad.tensor(weight, device=device)
        names = launched(emulated, monkeypatch)
        loss = F.cross_entropy(x, t, weight=w)
        if device == "cuda":
            assert names == ["cg_xent_fwd_f64", "cg_sum_ratio_f64"]
        loss.backward()
        results.append((loss.cpu().item(), x.grad.cpu().numpy()))
    (lc, gc), (lg, gg) = results
    if all(v == -100 for v in targets):
        assert np.isnan(lc) and np.isnan(lg)
    else:
        np.testing.assert_allclose(lg, lc, rtol=1e-12)
        np.testing.assert_allclose(gg, gc, rtol=1e-12, atol=1e-15)
