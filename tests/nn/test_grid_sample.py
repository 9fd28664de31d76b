"""F.affine_grid and F.grid_sample against PyTorch: values and the gradients of input,
grid and theta for every mode / padding_mode / align_corners, 2-D and 3-D; gradcheck,
gradgradcheck and forward mode in float64; errors and the align_corners warning."""
import warnings

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad.autograd import gradcheck, gradgradcheck

from ._torch_helpers import close

torch = pytest.importorskip("torch", reason="PyTorch is the reference for grid_sample")
TF = torch.nn.functional


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("padding_mode", ["zeros", "border", "reflection"])
@pytest.mark.parametrize("mode", ["bilinear", "nearest", "bicubic"])
@pytest.mark.parametrize("shapes", [((2, 3, 4, 5), (2, 6, 7, 2)),
                                    ((1, 2, 3, 4, 5), (1, 2, 3, 4, 3))], ids=["2d", "3d"])
def test_grid_sample_matches_torch(rng, shapes, mode, padding_mode, align_corners):
    if mode == "bicubic" and len(shapes[0]) == 5:
        pytest.skip("PyTorch has bicubic for 4-D input only (the error is tested below)")
    x = rng.standard_normal(shapes[0])
    g = rng.uniform(-1.6, 1.6, shapes[1])     # well outside [-1, 1] too
    xc, gc = cygrad.tensor(x, requires_grad=True), cygrad.tensor(g, requires_grad=True)
    xt, gt = torch.tensor(x, requires_grad=True), torch.tensor(g, requires_grad=True)
    yc = F.grid_sample(xc, gc, mode, padding_mode, align_corners)
    yt = TF.grid_sample(xt, gt, mode, padding_mode, align_corners)
    close(yc, yt, atol=1e-12)
    go = rng.standard_normal(tuple(yt.shape))
    yc.backward(cygrad.tensor(go))
    yt.backward(torch.tensor(go))
    close(xc.grad, xt.grad, atol=1e-12)
    close(gc.grad, gt.grad, atol=1e-10)


def test_grid_sample_float32_noncontiguous_matches_torch(rng):
    x = rng.standard_normal((2, 3, 8, 6)).astype(np.float32)
    g = rng.uniform(-1.1, 1.1, (2, 5, 4, 2)).astype(np.float32)
    xc = cygrad.tensor(x).transpose(2, 3)           # non-contiguous (2, 3, 6, 8)
    gc = cygrad.tensor(g).transpose(1, 2)           # non-contiguous (2, 4, 5, 2)
    yc = F.grid_sample(xc, gc, align_corners=False)
    yt = TF.grid_sample(torch.tensor(x).transpose(2, 3), torch.tensor(g).transpose(1, 2),
                        align_corners=False)
    assert yc.dtype == cygrad.float32
    close(yc, yt, atol=1e-5)


@pytest.mark.parametrize("mode,padding_mode", [("bilinear", "zeros"), ("bilinear", "border"),
                                               ("bilinear", "reflection"),
                                               ("bicubic", "reflection")])
def test_grid_sample_gradcheck(rng, mode, padding_mode):
    x = cygrad.tensor(rng.standard_normal((1, 2, 3, 4)), requires_grad=True)
    g = cygrad.tensor(rng.uniform(-1.2, 1.2, (1, 2, 3, 2)), requires_grad=True)

    def fn(x, g):
        return F.grid_sample(x, g, mode, padding_mode, align_corners=False)
    assert gradcheck(fn, (x, g), check_forward_ad=True)
    assert gradgradcheck(fn, (x, g))


@pytest.mark.parametrize("align_corners", [False, True])
@pytest.mark.parametrize("size,theta_shape", [([2, 3, 4, 5], (2, 2, 3)),
                                              ([2, 1, 3, 4, 5], (2, 3, 4)),
                                              ([1, 1, 1, 3], (1, 2, 3))])
def test_affine_grid_matches_torch(rng, size, theta_shape, align_corners):
    t = rng.standard_normal(theta_shape)
    tc, tt = cygrad.tensor(t, requires_grad=True), torch.tensor(t, requires_grad=True)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")            # unit-size grids warn in both
        yc, yt = F.affine_grid(tc, size, align_corners), TF.affine_grid(tt, size, align_corners)
    close(yc, yt, atol=1e-12)
    go = rng.standard_normal(tuple(yt.shape))
    yc.backward(cygrad.tensor(go))
    yt.backward(torch.tensor(go))
    close(tc.grad, tt.grad, atol=1e-12)


def test_spatial_transformer_end_to_end_gradcheck(rng):
    x = cygrad.tensor(rng.standard_normal((1, 1, 4, 4)), requires_grad=True)
    theta = cygrad.tensor([[[0.9, 0.1, 0.05], [-0.2, 1.1, 0.1]]], dtype=cygrad.float64,
                          requires_grad=True)

    def fn(x, theta):
        return F.grid_sample(x, F.affine_grid(theta, [1, 1, 3, 3], False), align_corners=False)
    assert gradcheck(fn, (x, theta), check_forward_ad=True)


def test_align_corners_none_warns_like_torch():
    x, g = cygrad.ones(1, 1, 2, 2), cygrad.zeros(1, 1, 1, 2)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.grid_sample(x, g)
    with pytest.warns(UserWarning, match="align_corners=False since 1.3.0"):
        F.affine_grid(cygrad.zeros(1, 2, 3), [1, 1, 2, 2])


@pytest.mark.parametrize("call", [
    lambda m, F: F.grid_sample(m.ones(2, 3, 4, 5), m.zeros(2, 6, 7, 2), mode="x",
                               align_corners=False),
    lambda m, F: F.grid_sample(m.ones(2, 3, 4, 5), m.zeros(2, 6, 7, 2), padding_mode="x",
                               align_corners=False),
    lambda m, F: F.grid_sample(m.ones(2, 3, 4, 5), m.zeros(1, 6, 7, 2), align_corners=False),
    lambda m, F: F.grid_sample(m.ones(2, 3, 4, 5), m.zeros(2, 6, 7, 1), align_corners=False),
    lambda m, F: F.grid_sample(m.ones(3, 4, 5), m.zeros(2, 6, 7, 2), align_corners=False),
    lambda m, F: F.grid_sample(m.ones(2, 3, 4, 5, 1), m.zeros(2, 6, 7, 2), align_corners=False),
    lambda m, F: F.grid_sample(m.ones(1, 1, 2, 2, 2), m.zeros(1, 1, 1, 1, 3), mode="bicubic",
                               align_corners=False),
    lambda m, F: F.affine_grid(m.zeros(2, 2, 3), [2, 3, 4, 5, 6], align_corners=False),
    lambda m, F: F.affine_grid(m.zeros(2, 2, 3, dtype=m.int32), [2, 3, 4, 5],
                               align_corners=False),
    lambda m, F: F.affine_grid(m.zeros(2, 2, 3), [2, 3, 4], align_corners=False),
    lambda m, F: F.affine_grid(m.zeros(2, 2, 3), [3, 3, 4, 5], align_corners=False),
], ids=["mode", "padding_mode", "batch", "grid_last_dim", "input_rank", "rank_mismatch",
        "bicubic_3d", "theta_shape", "theta_dtype", "size_rank", "size_batch"])
def test_errors_match_torch(call):
    with pytest.raises(Exception) as et:
        call(torch, TF)
    with pytest.raises(et.type):
        call(cygrad, F)
