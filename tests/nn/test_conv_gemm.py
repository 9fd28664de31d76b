"""The fused convolution kernels ``conv2d_gemm``, ``conv2d_gemm_weight`` and
``conv2d_gemm_input`` (``cygrad/_core/cpu/conv_gemm.c``) against PyTorch: the layer size of the
benchmark, images split into several row blocks, stride/dilation/groups on a
strided input, several threads, their argument checks, and which route
``F.conv2d`` takes (the fused kernels, or the im2col route under create_graph).
"""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad._core import dispatch
from cygrad.autograd import gradcheck, gradgradcheck
from cygrad.nn._ops import conv as conv_ops

torch = pytest.importorskip("torch", reason="the kernels are compared with PyTorch's conv2d")


NAMES = ("conv2d_gemm", "conv2d_gemm_weight", "conv2d_gemm_input")


def _kernels():
    found = [dispatch.lookup(name, "cpu", cygrad.float32) for name in NAMES]
    if any(k is None for k in found):
        pytest.skip("no ILP64 OpenBLAS connected: the fused kernels are not registered")
    return found


def _torch_grads(x, w, b, dy, **kw):
    """PyTorch's output, weight gradient and input gradient for output gradient ``dy``."""
    tx, tw = torch.tensor(x, requires_grad=True), torch.tensor(w, requires_grad=True)
    out = torch.nn.functional.conv2d(tx, tw, None if b is None else torch.tensor(b), **kw)
    out.backward(torch.tensor(dy))
    return out.detach().numpy(), tw.grad.numpy(), tx.grad.numpy()


def _check(x, w, b, stride=(1, 1), padding=(0, 0), dilation=(1, 1), groups=1, cx=None,
           atol=1e-10, rtol=1e-7):
    fwd, wgt, inp = _kernels()
    rng = np.random.default_rng(1)
    kw = dict(stride=stride, padding=padding, dilation=dilation, groups=groups)
    ref = torch.nn.functional.conv2d(torch.tensor(x), torch.tensor(w), **kw)
    dy = rng.standard_normal(tuple(ref.shape)).astype(x.dtype)
    want_y, want_gw, want_gx = _torch_grads(x, w, b, dy, **kw)
    cx = cygrad.tensor(x) if cx is None else cx
    y = fwd(cx, cygrad.tensor(w), None if b is None else cygrad.tensor(b), stride, padding,
            dilation, groups, tuple(ref.shape[2:]))
    gw = wgt(cx, cygrad.tensor(dy), w.shape, stride, padding, dilation, groups)
    gx = inp(cygrad.tensor(dy), cygrad.tensor(w), x.shape[2:], stride, padding, dilation, groups)
    assert y.is_contiguous() and gw.is_contiguous() and gx.is_contiguous()
    np.testing.assert_allclose(y.numpy(), want_y, atol=atol, rtol=rtol)
    np.testing.assert_allclose(gw.numpy(), want_gw, atol=atol * 100, rtol=rtol * 10)
    np.testing.assert_allclose(gx.numpy(), want_gx, atol=atol, rtol=rtol)


def test_benchmark_layer_float32():
    rng = np.random.default_rng(0)
    x = rng.standard_normal((32, 16, 32, 32)).astype(np.float32)
    w = (rng.standard_normal((32, 16, 3, 3)) * 0.1).astype(np.float32)
    b = rng.standard_normal(32).astype(np.float32)
    _check(x, w, b, padding=(1, 1), atol=2e-5, rtol=1e-4)


def test_row_blocks_and_threads():
    # 8 channels x 9 offsets x 90 columns x 8 bytes per output row: the image's columns
    # (4.6 MB) go through the buffer in several row blocks, split over 2 threads
    rng = np.random.default_rng(0)
    x = rng.standard_normal((3, 8, 90, 90))
    w = rng.standard_normal((5, 8, 3, 3))
    old = cygrad.get_num_threads()
    try:
        for threads in (1, 2):
            cygrad.set_num_threads(threads)
            _check(x, w, rng.standard_normal(5), padding=(1, 1))
    finally:
        cygrad.set_num_threads(old)


def test_stride_dilation_groups_on_a_strided_input():
    rng = np.random.default_rng(0)
    big = rng.standard_normal((2, 7, 6, 22))
    view = cygrad.tensor(big).transpose(2, 3)[:, 1:, ::2, :]       # (2, 6, 11, 6), strided
    x = np.ascontiguousarray(big.transpose(0, 1, 3, 2)[:, 1:, ::2, :])
    assert not view.is_contiguous()
    _check(x, rng.standard_normal((4, 3, 2, 3)), None, stride=(2, 1), padding=(1, 2),
           dilation=(2, 1), groups=2, cx=view)


def test_argument_errors():
    fwd, wgt, inp = _kernels()
    x, w = cygrad.ones(1, 2, 4, 4), cygrad.ones(3, 2, 3, 3)
    with pytest.raises(RuntimeError, match="contiguous"):
        fwd(x, w.transpose(2, 3), None, (1, 1), (0, 0), (1, 1), 1, (2, 2))
    with pytest.raises(RuntimeError, match="groups"):
        fwd(x, w, None, (1, 1), (0, 0), (1, 1), 2, (2, 2))
    with pytest.raises(RuntimeError, match="bias"):
        fwd(x, w, cygrad.ones(2), (1, 1), (0, 0), (1, 1), 1, (2, 2))
    with pytest.raises(RuntimeError, match="at least 1"):
        fwd(x, w, None, (0, 1), (0, 0), (1, 1), 1, (2, 2))
    with pytest.raises(TypeError, match="float32 and float64"):
        fwd(x.long(), w.long(), None, (1, 1), (0, 0), (1, 1), 1, (2, 2))
    with pytest.raises(RuntimeError, match="gradient"):       # 2 channels for 3 filters
        wgt(x, cygrad.ones(1, 2, 2, 2), (3, 2, 3, 3), (1, 1), (0, 0), (1, 1), 1)
    with pytest.raises(RuntimeError, match="gradient"):
        wgt(x, cygrad.ones(1, 3, 2, 2).transpose(2, 3), (3, 2, 3, 3), (1, 1), (0, 0), (1, 1),
            1)
    with pytest.raises(RuntimeError, match="3 channels"):
        inp(cygrad.ones(1, 2, 2, 2), w, (4, 4), (1, 1), (0, 0), (1, 1), 1)
    with pytest.raises(RuntimeError, match="contiguous"):
        inp(cygrad.ones(1, 3, 2, 2), w.transpose(2, 3), (4, 4), (1, 1), (0, 0), (1, 1), 1)


def test_empty_sizes():
    fwd, wgt, inp = _kernels()
    geo = ((1, 1), (1, 1), (1, 1), 1)
    # no window positions, no images, no input channels
    assert fwd(cygrad.ones(2, 3, 2, 2), cygrad.ones(4, 3, 3, 3), None, *geo, (0, 2)).shape \
        == (2, 4, 0, 2)
    assert fwd(cygrad.ones(0, 3, 2, 2), cygrad.ones(4, 3, 3, 3), None, *geo, (2, 2)).shape \
        == (0, 4, 2, 2)
    y = fwd(cygrad.ones(1, 0, 2, 2), cygrad.ones(2, 0, 3, 3), cygrad.tensor([1.0, 2.0]), *geo,
            (2, 2))
    assert y[0, :, 0, 0].tolist() == [1.0, 2.0] and y[0, 1].tolist() == [[2.0, 2.0]] * 2
    gw = wgt(cygrad.ones(2, 3, 2, 2), cygrad.ones(2, 4, 0, 2), (4, 3, 3, 3), *geo)
    assert gw.abs().sum().item() == 0.0 and gw.shape == (4, 3, 3, 3)
    gx = inp(cygrad.ones(2, 4, 0, 2), cygrad.ones(4, 3, 3, 3), (2, 2), *geo)
    assert gx.abs().sum().item() == 0.0 and gx.shape == (2, 3, 2, 2)


class _Spy:
    """Counts the calls of the 'cpu' kernels of the fused primitives."""

    def __init__(self):
        self.calls = {}
        self.saved = {}

    def __enter__(self):
        for name in NAMES:
            fn, dts = dispatch._TABLE[(name, "cpu")], dispatch._DTYPES.get((name, "cpu"))
            self.saved[name] = (fn, dts)
            self.calls[name] = 0

            def wrapper(*a, _fn=fn, _name=name, **k):
                self.calls[_name] += 1
                return _fn(*a, **k)
            dispatch.register(name, "cpu", dtypes=dts)(wrapper)
        return self.calls

    def __exit__(self, *exc):
        for name, (fn, dts) in self.saved.items():
            dispatch.register(name, "cpu", dtypes=dts)(fn)


def test_conv2d_routes():
    _kernels()
    x = cygrad.randn(2, 8, 6, 6, dtype=cygrad.float64)
    w = cygrad.randn(4, 8, 3, 3, dtype=cygrad.float64, requires_grad=True)
    with _Spy() as calls:
        F.conv2d(x, w, padding=1).sum().backward()
    assert calls == {"conv2d_gemm": 1, "conv2d_gemm_weight": 1, "conv2d_gemm_input": 0}
    x.requires_grad_()
    with _Spy() as calls:
        F.conv2d(x, w, padding=1).sum().backward()
    assert calls == {"conv2d_gemm": 1, "conv2d_gemm_weight": 1, "conv2d_gemm_input": 1}
    # double backward needs recorded gradients: the im2col route
    with _Spy() as calls:
        gx, gw = cygrad.autograd.grad(F.conv2d(x, w, padding=1).pow(2).sum(), (x, w),
                                      create_graph=True)
    assert calls == {"conv2d_gemm": 1, "conv2d_gemm_weight": 0, "conv2d_gemm_input": 0}
    assert gx.requires_grad and gw.requires_grad
    # conv_transpose2d runs forwards on the input gradient's kernel
    with _Spy() as calls:
        F.conv_transpose2d(x.detach(), cygrad.randn(8, 8, 3, 3, dtype=cygrad.float64))
    assert calls == {"conv2d_gemm": 0, "conv2d_gemm_weight": 0, "conv2d_gemm_input": 1}
    # 3-d convolutions have no fused kernel
    with _Spy() as calls:
        F.conv3d(x.unsqueeze(2), w.unsqueeze(2))
    assert sum(calls.values()) == 0
    # few columns per product (3 channels x 9 offsets) and groups: the im2col route
    for shape, groups in (((4, 3, 3, 3), 1), ((4, 4, 3, 3), 2)):
        with _Spy() as calls:
            F.conv2d(x[:, :shape[1] * groups], cygrad.randn(shape, dtype=cygrad.float64),
                     groups=groups)
        assert sum(calls.values()) == 0


# (conv, input shape, weight shape, kwargs): small enough for gradcheck, with the
# fused route forced on (the ops take it only for 64 columns or more, groups=1)
FORCED = [
    ("conv2d", (2, 4, 5, 4), (4, 2, 3, 2), dict(stride=(2, 1), padding=(1, 0),
                                                 dilation=(1, 2), groups=2)),
    ("conv2d", (1, 2, 5, 5), (2, 2, 2, 2), dict(padding="same")),
    ("conv1d", (2, 3, 7), (2, 3, 3), dict(stride=2, padding=1)),
    ("conv_transpose2d", (1, 2, 3, 3), (2, 3, 2, 2), dict(stride=2, padding=1,
                                                          output_padding=1)),
]


@pytest.mark.parametrize("name, xs, ws, kw", FORCED)
def test_forced_fused_route_matches_torch_and_gradchecks(monkeypatch, name, xs, ws, kw):
    _kernels()
    monkeypatch.setattr(conv_ops, "_fused_pays", lambda g, weight_shape: True)
    rng = np.random.default_rng(3)
    xn, wn = rng.standard_normal(xs), rng.standard_normal(ws)
    bn = rng.standard_normal(ws[1] * kw.get("groups", 1) if "transpose" in name else ws[0])
    x, w, b = (cygrad.tensor(a, requires_grad=True) for a in (xn, wn, bn))
    tx, tw, tb = (torch.tensor(a, requires_grad=True) for a in (xn, wn, bn))
    fn, tfn = getattr(F, name), getattr(torch.nn.functional, name)
    with _Spy() as calls, __import__("warnings").catch_warnings():
        __import__("warnings").simplefilter("ignore")     # torch's 'same' + even kernel note
        out, want = fn(x, w, b, **kw), tfn(tx, tw, tb, **kw)
        g = rng.standard_normal(tuple(want.shape))
        out.backward(cygrad.tensor(g))
        want.backward(torch.tensor(g))
    assert all(calls.values()), calls
    np.testing.assert_allclose(out.detach().numpy(), want.detach().numpy(), atol=1e-10)
    for c, t in ((x, tx), (w, tw), (b, tb)):
        np.testing.assert_allclose(c.grad.numpy(), t.grad.numpy(), atol=1e-10)
    f = lambda *a: fn(*a, **kw)     # noqa: E731
    x, w, b = (t.detach().requires_grad_() for t in (x, w, b))
    assert gradcheck(f, (x, w, b), check_forward_ad=True)
    assert gradgradcheck(f, (x, w, b))
