"""Pooling, unpooling, interpolation and padding layers: values, indices and gradients
against PyTorch over grids of kernel/stride/padding/dilation/ceil_mode, gradcheck and
gradgradcheck in float64, layer reprs and error messages."""
import itertools
import warnings

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad import nn
from cygrad.autograd import gradcheck, gradgradcheck


def _run(torch, cy_fn, th_fn, a, rng, atol=1e-10):
    """Values (and indices, for a tuple result) and the input gradient vs PyTorch."""
    tx = torch.tensor(a, requires_grad=True)
    cx = cygrad.tensor(a, requires_grad=True)
    th, cy = th_fn(tx), cy_fn(cx)
    tv, cv = (th[0], cy[0]) if isinstance(th, tuple) else (th, cy)
    assert tuple(cv.shape) == tuple(tv.shape)
    np.testing.assert_allclose(cv.detach().numpy(), tv.detach().numpy(), atol=atol)
    if isinstance(th, tuple):
        np.testing.assert_array_equal(cy[1].numpy(), th[1].numpy())
    g = rng.standard_normal(tuple(tv.shape)).astype(a.dtype)
    tv.backward(torch.tensor(g))
    cv.backward(cygrad.tensor(g))
    np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy(), atol=atol * 10)


MAX_GRID = list(itertools.product([1, 2, 3], [None, 1, 2], [0, 1], [1, 2], [False, True]))


@pytest.mark.parametrize("k, s, p, d, ceil", MAX_GRID)
def test_max_pool2d_grid(rng, k, s, p, d, ceil):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3, 7, 8))
    kw = dict(kernel_size=k, stride=s, padding=p, dilation=d, ceil_mode=ceil, return_indices=True)
    if p > (d * (k - 1) + 1) // 2:
        with pytest.raises(RuntimeError) as theirs:
            torch.nn.functional.max_pool2d(torch.tensor(a), **kw)
        with pytest.raises(RuntimeError) as ours:
            F.max_pool2d(cygrad.tensor(a), **kw)
        assert str(ours.value) == str(theirs.value)
        return
    _run(torch, lambda x: F.max_pool2d(x, **kw), lambda x: torch.nn.functional.max_pool2d(x, **kw),
         a, rng)


AVG_GRID = list(itertools.product([1, 2, 3], [None, 2], [0, 1], [False, True], [False, True],
                                  [None, 3]))


@pytest.mark.parametrize("k, s, p, ceil, include, div", AVG_GRID)
def test_avg_pool2d_grid(rng, k, s, p, ceil, include, div):
    torch = pytest.importorskip("torch")
    if 2 * p > k:
        return                          # invalid; covered by test_error_messages_match_torch
    a = rng.standard_normal((2, 3, 7, 8))
    kw = dict(kernel_size=k, stride=s, padding=p, ceil_mode=ceil, count_include_pad=include,
              divisor_override=div)
    _run(torch, lambda x: F.avg_pool2d(x, **kw), lambda x: torch.nn.functional.avg_pool2d(x, **kw),
         a, rng)


@pytest.mark.parametrize("k, s, p, ceil", list(itertools.product([2, 3], [None, 2], [0, 1], [False, True])))
def test_pool1d(rng, k, s, p, ceil):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3, 9))
    tf = torch.nn.functional
    _run(torch, lambda x: F.max_pool1d(x, k, s, p, ceil_mode=ceil, return_indices=True),
         lambda x: tf.max_pool1d(x, k, s, p, ceil_mode=ceil, return_indices=True), a, rng)
    _run(torch, lambda x: F.avg_pool1d(x, k, s, p, ceil_mode=ceil),
         lambda x: tf.avg_pool1d(x, k, s, p, ceil_mode=ceil), a, rng)


def test_pool3d_and_unbatched(rng):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    a = rng.standard_normal((1, 2, 5, 6, 4))
    _run(torch, lambda x: F.max_pool3d(x, 2, ceil_mode=True, return_indices=True),
         lambda x: tf.max_pool3d(x, 2, ceil_mode=True, return_indices=True), a, rng)
    _run(torch, lambda x: F.avg_pool3d(x, 3, 2, 1), lambda x: tf.avg_pool3d(x, 3, 2, 1), a, rng)
    b = rng.standard_normal((3, 6, 5))
    _run(torch, lambda x: F.max_pool2d(x, 2, return_indices=True),
         lambda x: tf.max_pool2d(x, 2, return_indices=True), b, rng)
    _run(torch, lambda x: F.avg_pool2d(x, 2, 1), lambda x: tf.avg_pool2d(x, 2, 1), b, rng)


@pytest.mark.parametrize("size", [1, 2, 3, (4, 5), (7, 8), (None, 3), (10, 11)])
def test_adaptive_pool2d(rng, size):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    a = rng.standard_normal((2, 3, 7, 8))
    _run(torch, lambda x: F.adaptive_avg_pool2d(x, size),
         lambda x: tf.adaptive_avg_pool2d(x, size), a, rng)
    _run(torch, lambda x: F.adaptive_max_pool2d(x, size, True),
         lambda x: tf.adaptive_max_pool2d(x, size, True), a, rng)


@pytest.mark.parametrize("size", [1, 2, 4, 9, 12])
def test_adaptive_pool1d_and_3d(rng, size):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    a = rng.standard_normal((2, 3, 9))
    _run(torch, lambda x: F.adaptive_avg_pool1d(x, size), lambda x: tf.adaptive_avg_pool1d(x, size),
         a, rng)
    _run(torch, lambda x: F.adaptive_max_pool1d(x, size, True),
         lambda x: tf.adaptive_max_pool1d(x, size, True), a, rng)
    b = rng.standard_normal((1, 2, 5, 6, 4))
    _run(torch, lambda x: F.adaptive_avg_pool3d(x, (2, size, 3)),
         lambda x: tf.adaptive_avg_pool3d(x, (2, size, 3)), b, rng)


def test_max_pool_ties_nan_and_non_contiguous(rng):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    ties = np.array([[[[1.0, 1.0, 2.0, 2.0], [1.0, 0.0, 2.0, 2.0]]]])
    nan = np.array([[[[1.0, np.nan, 3.0, np.nan], [np.nan, 0.0, 1.0, 2.0]]]])
    for a in (ties, nan):
        got = F.max_pool2d(cygrad.tensor(a), 2, return_indices=True)
        want = tf.max_pool2d(torch.tensor(a), 2, return_indices=True)
        np.testing.assert_array_equal(got[0].numpy(), want[0].numpy())
        np.testing.assert_array_equal(got[1].numpy(), want[1].numpy())
    a = rng.standard_normal((4, 3, 6, 5))
    got = F.max_pool2d(cygrad.tensor(a).transpose(0, 1)[:, :, ::2], 2, 1)
    want = tf.max_pool2d(torch.tensor(a).transpose(0, 1)[:, :, ::2], 2, 1)
    np.testing.assert_array_equal(got.numpy(), want.numpy())


def test_max_pool_gradient_with_inf_upstream():
    # The mask product in the gradient must not turn 0 * inf into NaN elsewhere.
    x = cygrad.tensor([[[[1.0, 2.0], [3.0, 4.0]]]], requires_grad=True)
    F.max_pool2d(x, 2).backward(cygrad.tensor([[[[float("inf")]]]]))
    assert x.grad.flatten().tolist() == [0.0, 0.0, 0.0, float("inf")]


def test_max_unpool_matches_torch(rng):
    torch = pytest.importorskip("torch")
    tf = torch.nn.functional
    for shape, size in (((2, 3, 4, 6), None), ((2, 3, 5, 5), (5, 5))):
        v, i = tf.max_pool2d(torch.tensor(rng.standard_normal(shape)), 2, return_indices=True)
        got = F.max_unpool2d(cygrad.tensor(v.numpy()), cygrad.tensor(i.numpy()), 2,
                             output_size=size)
        np.testing.assert_array_equal(got.numpy(), tf.max_unpool2d(v, i, 2, output_size=size).numpy())
    with pytest.raises(RuntimeError, match="Found an invalid max index"):
        F.max_unpool2d(cygrad.tensor(v.numpy()), cygrad.tensor(i.numpy()), 2)
    v, i = tf.max_pool1d(torch.tensor(rng.standard_normal((2, 7))), 2, return_indices=True)
    got = F.max_unpool1d(cygrad.tensor(v.numpy()), cygrad.tensor(i.numpy()), 2)
    np.testing.assert_array_equal(got.numpy(), tf.max_unpool1d(v, i, 2).numpy())


def _leaf(rng, *shape):
    return cygrad.tensor(rng.standard_normal(shape), requires_grad=True)


@pytest.mark.parametrize("fn", [
    lambda t: F.max_pool2d(t, 3, 2, 1, ceil_mode=True),
    lambda t: F.max_pool2d(t, 2, 1, dilation=2),
    lambda t: F.avg_pool2d(t, 3, 2, 1, ceil_mode=True, count_include_pad=False),
    lambda t: F.avg_pool2d(t, 2, divisor_override=3),
    lambda t: F.adaptive_avg_pool2d(t, (3, 4)),
    lambda t: F.adaptive_max_pool2d(t, (3, 4)),
    lambda t: F.interpolate(t, size=(4, 7), mode="bilinear"),
    lambda t: F.interpolate(t, scale_factor=1.5, mode="bicubic", align_corners=True),
    lambda t: F.interpolate(t, size=(7, 4), mode="nearest"),
], ids=["max", "max_dilated", "avg_ceil", "avg_divisor", "adaptive_avg", "adaptive_max",
        "bilinear", "bicubic", "nearest"])
def test_gradcheck_and_gradgradcheck(rng, fn):
    x = _leaf(rng, 2, 2, 5, 6)
    assert gradcheck(fn, (x,), check_forward_ad=True)
    assert gradgradcheck(fn, (x,))


def test_node_names():
    x = cygrad.ones(1, 2, 4, 4, requires_grad=True)
    names = {F.max_pool2d(x, 2): "MaxPool2DWithIndicesBackward0",
             F.avg_pool2d(x, 2): "AvgPool2DBackward0",
             F.adaptive_avg_pool2d(x, 3): "AdaptiveAvgPool2DBackward0",
             F.adaptive_max_pool2d(x, 3): "AdaptiveMaxPool2DBackward0",
             F.interpolate(x, scale_factor=2): "UpsampleNearest2DBackward0",
             F.interpolate(x, scale_factor=2, mode="bilinear"): "UpsampleBilinear2DBackward0"}
    for out, name in names.items():
        assert type(out.grad_fn).__name__ == name


INTERP = [(1, "nearest"), (1, "linear"), (2, "nearest"), (2, "bilinear"), (2, "bicubic"),
          (3, "trilinear"), (2, "area"), (2, "nearest-exact"), (3, "nearest")]
SIZES = [dict(size=3), dict(size=11), dict(scale_factor=2), dict(scale_factor=0.5),
         dict(scale_factor=1.7), dict(scale_factor=1.7, recompute_scale_factor=True)]


@pytest.mark.parametrize("n, mode", INTERP)
@pytest.mark.parametrize("dtype", [np.float32, np.float64])
def test_interpolate_matches_torch(rng, n, mode, dtype):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((2, 3) + (5, 7, 4)[:n]).astype(dtype)
    corners = [None] if mode in ("nearest", "area", "nearest-exact") else [False, True]
    atol = 1e-5 if dtype == np.float32 else 1e-10
    for kw, ac in itertools.product(SIZES, corners):
        _run(torch, lambda x: F.interpolate(x, mode=mode, align_corners=ac, **kw),
             lambda x: torch.nn.functional.interpolate(x, mode=mode, align_corners=ac, **kw),
             a, rng, atol=atol)


BAD_CALLS = [
    lambda m, T: m.max_pool2d(T.ones(1, 2, 6, 6), 3, padding=2),
    lambda m, T: m.max_pool2d(T.ones(1, 2, 6, 6), 3, stride=0),
    lambda m, T: m.max_pool2d(T.ones(1, 2, 6, 6), 7),
    lambda m, T: m.max_pool2d(T.ones(1, 2, 6, 6), 2, dilation=0),
    lambda m, T: m.max_pool2d(T.ones(1, 0, 4, 4), 2),
    lambda m, T: m.max_pool2d(T.ones(1, 2, 6, 6), (2, 2, 2)),
    lambda m, T: m.max_pool1d(T.ones(6), 2),
    lambda m, T: m.avg_pool2d(T.ones(1, 2, 6, 6), 3, padding=2),
    lambda m, T: m.avg_pool2d(T.ones(1, 2, 6, 6), 7),
    lambda m, T: m.avg_pool1d(T.ones(1, 2, 6, 6), 2),
    lambda m, T: m.avg_pool2d(T.ones(1, 2, 6, 6), 2, divisor_override=0),
    lambda m, T: m.adaptive_avg_pool2d(T.ones(6), 2),
    lambda m, T: m.adaptive_avg_pool2d(T.ones(1, 2, 6, 6), (2,)),
    lambda m, T: m.adaptive_max_pool2d(T.ones(6), 2),
    lambda m, T: m.interpolate(T.ones(1, 2, 6, 6), scale_factor=2, mode="linear"),
    lambda m, T: m.interpolate(T.ones(1, 2, 6, 6), scale_factor=2, mode="foo"),
    lambda m, T: m.interpolate(T.ones(1, 2, 6, 6)),
    lambda m, T: m.interpolate(T.ones(1, 2, 6, 6), size=3, scale_factor=2),
    lambda m, T: m.interpolate(T.ones(1, 2, 6, 6), size=3, align_corners=True),
    lambda m, T: m.interpolate(T.ones(1, 2, 6, 6), size=(3, 3, 3)),
]


@pytest.mark.parametrize("i", range(len(BAD_CALLS)))
def test_error_messages_match_torch(i):
    torch = pytest.importorskip("torch")
    with pytest.raises(Exception) as theirs:
        BAD_CALLS[i](torch.nn.functional, torch)
    with pytest.raises(type(theirs.value)) as ours:
        BAD_CALLS[i](F, cygrad)
    assert str(ours.value) == str(theirs.value)


LAYERS = [
    ("MaxPool2d", (3,), dict(stride=2, padding=1, ceil_mode=True), (2, 3, 7, 8)),
    ("MaxPool1d", (2,), dict(), (2, 3, 7)),
    ("AvgPool2d", (3,), dict(stride=2, padding=1, count_include_pad=False), (2, 3, 7, 8)),
    ("AvgPool1d", (3,), dict(stride=2), (2, 3, 7)),
    ("AdaptiveAvgPool2d", ((3, None),), dict(), (2, 3, 7, 8)),
    ("AdaptiveMaxPool2d", (3,), dict(), (2, 3, 7, 8)),
    ("AdaptiveAvgPool1d", (3,), dict(), (2, 3, 7)),
    ("AdaptiveMaxPool1d", (4,), dict(), (2, 3, 7)),
    ("Upsample", (), dict(scale_factor=2, mode="bilinear"), (2, 3, 4, 5)),
    ("Upsample", (), dict(size=(3, 4), mode="bicubic", align_corners=True), (2, 3, 4, 5)),
    ("UpsamplingNearest2d", (), dict(scale_factor=2), (2, 3, 4, 5)),
    ("UpsamplingBilinear2d", (), dict(size=5), (2, 3, 4, 5)),
    ("ZeroPad2d", ((1, 0, 2, 1),), dict(), (2, 3, 4, 5)),
    ("ConstantPad1d", (2, 3.5), dict(), (2, 3, 4)),
    ("ReflectionPad2d", (2,), dict(), (2, 3, 4, 5)),
    ("ReplicationPad1d", ((1, 3),), dict(), (2, 3, 4)),
    ("CircularPad2d", (1,), dict(), (2, 3, 4, 5)),
]


@pytest.mark.parametrize("name, args, kw, shape", LAYERS)
def test_layers_match_torch(rng, name, args, kw, shape):
    torch = pytest.importorskip("torch")
    theirs = getattr(torch.nn, name)(*args, **kw)
    ours = getattr(nn, name)(*args, **kw)
    assert repr(ours) == repr(theirs)
    assert list(ours.state_dict()) == list(theirs.state_dict()) == []
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")       # torch's deprecation note on Upsampling*2d
        _run(torch, ours, theirs, rng.standard_normal(shape), rng)


def test_max_unpool_layers_and_return_indices(rng):
    torch = pytest.importorskip("torch")
    a = rng.standard_normal((1, 2, 4, 6))
    v, i = nn.MaxPool2d(2, return_indices=True)(cygrad.tensor(a))
    tv, ti = torch.nn.MaxPool2d(2, return_indices=True)(torch.tensor(a))
    np.testing.assert_array_equal(i.numpy(), ti.numpy())
    ours, theirs = nn.MaxUnpool2d(2), torch.nn.MaxUnpool2d(2)
    assert repr(ours) == repr(theirs)
    np.testing.assert_array_equal(ours(v, i).numpy(), theirs(tv, ti).numpy())


@pytest.mark.parametrize("kw", [dict(kernel_size=3, stride=2, padding=1, ceil_mode=True,
                                     count_include_pad=False),
                                dict(kernel_size=2, stride=1, padding=1, count_include_pad=True),
                                dict(kernel_size=2, divisor_override=3)])
def test_avg_pool2d_runs_on_the_im2col_kernel(kw):
    # float32/64 CPU average pooling goes through the C im2col/col2im kernels
    from cygrad.nn._ops.pooling import AvgPoolColumns
    x = cygrad.tensor(np.random.default_rng(1).standard_normal((2, 3, 7, 6)),
                      dtype=cygrad.float64, requires_grad=True)
    y = F.avg_pool2d(x, **kw)
    node = y.grad_fn if "divisor_override" not in kw else y.grad_fn.next_functions[0][0]
    assert type(node)._forward_cls is AvgPoolColumns
    assert gradcheck(lambda t: F.avg_pool2d(t, **kw), (x,))
    assert gradgradcheck(lambda t: F.avg_pool2d(t, **kw), (x,))
    torch = pytest.importorskip("torch")
    ref = torch.nn.functional.avg_pool2d(torch.from_numpy(x.detach().numpy()), **kw)
    np.testing.assert_allclose(y.detach().numpy(), ref.numpy(), rtol=1e-12, atol=1e-12)
