"""Convolutions and poolings keep their checked geometry per shapes and plain arguments
(``conv._GEOMETRIES``, ``pooling._WINDOWS``): a repeated call reuses it, and calls
that differ in anything the checks read (a shape, a dtype, an argument's value or
type) still get their own values, and their own errors, as PyTorch's."""
import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad.nn._ops import conv as conv_ops
from cygrad.nn._ops import pooling as pool_ops
from cygrad.nn._ops._sliding import plain


def _torch():
    return pytest.importorskip("torch")


@pytest.fixture(autouse=True)
def _empty_caches():
    conv_ops._GEOMETRIES.clear()
    pool_ops._WINDOWS.clear()
    yield


def _error(call):
    with pytest.raises(Exception) as err:
        call()
    return type(err.value), str(err.value)


def _raises_like(torch, cy_call, th_call, kept_call):
    """cygrad raises the exception type PyTorch raises for the same call, with the
    same message whether or not ``kept_call`` has been kept before."""
    conv_ops._GEOMETRIES.clear()
    pool_ops._WINDOWS.clear()
    fresh = _error(cy_call)
    kept_call()
    kept_call()
    assert _error(cy_call) == fresh
    assert fresh[0] is _error(th_call)[0]


def test_plain_values():
    assert plain(1, (2, 3), "same", None, ())
    for v in (True, (1, True), [1, 1], 1.0, (1.0, 2), np.int64(2), (np.int64(1),)):
        assert not plain(v), v


@pytest.mark.parametrize("kw", [dict(stride=1, padding=1), dict(stride=2, padding=(1, 0)),
                                dict(padding="same", dilation=2), dict(padding="valid"),
                                dict(stride=(1, 2), padding=1, groups=2)])
def test_conv2d_repeated_calls_match_torch(rng, kw):
    torch = _torch()
    a = rng.standard_normal((2, 4, 7, 6))
    w = rng.standard_normal((6, 4 // kw.get("groups", 1), 3, 3))
    b = rng.standard_normal(6)
    tw, tb = torch.tensor(w, requires_grad=True), torch.tensor(b, requires_grad=True)
    cw, cb = cygrad.tensor(w, requires_grad=True), cygrad.tensor(b, requires_grad=True)
    for x in (a, a[0], a * 2):              # batched, unbatched (another key), batched again
        ref = torch.nn.functional.conv2d(torch.tensor(x), tw, tb, **kw)
        got = F.conv2d(cygrad.tensor(x), cw, cb, **kw)
        assert tuple(got.shape) == tuple(ref.shape)
        np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), atol=1e-10)
        ref.sum().backward()
        got.sum().backward()
    np.testing.assert_allclose(cw.grad.numpy(), tw.grad.numpy(), atol=1e-9)
    np.testing.assert_allclose(cb.grad.numpy(), tb.grad.numpy(), atol=1e-9)
    assert len(conv_ops._GEOMETRIES) == 2       # one per input shape, reused the third time


def test_conv1d_and_conv3d_share_no_geometry(rng):
    torch = _torch()
    for n, shape in ((1, (2, 3, 9)), (3, (1, 2, 5, 4, 6))):
        a = rng.standard_normal(shape)
        w = rng.standard_normal((4, shape[1]) + (3,) * n)
        th = getattr(torch.nn.functional, f"conv{n}d")
        cy = getattr(F, f"conv{n}d")
        for _ in range(2):
            ref = th(torch.tensor(a), torch.tensor(w), None, 1, 1)
            got = cy(cygrad.tensor(a), cygrad.tensor(w), None, 1, 1)
            np.testing.assert_allclose(got.numpy(), ref.numpy(), atol=1e-10)


def test_conv2d_errors_after_a_kept_call(rng):
    torch = _torch()
    a = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    w = rng.standard_normal((3, 4, 3, 3)).astype(np.float32)
    b = rng.standard_normal(3).astype(np.float32)
    ta, tw, tb = torch.tensor(a), torch.tensor(w), torch.tensor(b)
    ca, cw, cb = cygrad.tensor(a), cygrad.tensor(w), cygrad.tensor(b)
    kept = lambda: F.conv2d(ca, cw, cb, 1, 1)     # noqa: E731
    tf = torch.nn.functional.conv2d
    cases = [
        # (cygrad call, torch call): one thing changed against the kept call
        (lambda: F.conv2d(ca, cw.double(), cb, 1, 1), lambda: tf(ta, tw.double(), tb, 1, 1)),
        (lambda: F.conv2d(ca, cw, cb.double(), 1, 1), lambda: tf(ta, tw, tb.double(), 1, 1)),
        (lambda: F.conv2d(ca, cw, cb, 1.0, 1), lambda: tf(ta, tw, tb, 1.0, 1)),
        (lambda: F.conv2d(ca, cw, cb, 1, -1), lambda: tf(ta, tw, tb, 1, -1)),
        (lambda: F.conv2d(ca, cw, cb, 0, 1), lambda: tf(ta, tw, tb, 0, 1)),
        (lambda: F.conv2d(ca, cw, cb, 1, 1, 1, 2), lambda: tf(ta, tw, tb, 1, 1, 1, 2)),
        (lambda: F.conv2d(ca, cw, cb, 2, "same"), lambda: tf(ta, tw, tb, 2, "same")),
        (lambda: F.conv2d(ca, cw, cb, 1, "full"), lambda: tf(ta, tw, tb, 1, "full")),
        (lambda: F.conv2d(ca[:, :3], cw, cb, 1, 1), lambda: tf(ta[:, :3], tw, tb, 1, 1)),
        (lambda: F.conv2d(ca, cw, cb[:2], 1, 1), lambda: tf(ta, tw, tb[:2], 1, 1)),
        (lambda: F.conv2d(ca[..., :1, :1], cw, cb, 1, 0),
         lambda: tf(ta[..., :1, :1], tw, tb, 1, 0)),
        (lambda: F.conv2d(a, cw, cb, 1, 1), lambda: tf(a, tw, tb, 1, 1)),
    ]
    for cy_call, th_call in cases:
        _raises_like(torch, cy_call, th_call, kept)
    # the kept call still runs, and only it was kept
    np.testing.assert_allclose(F.conv2d(ca, cw, cb, 1, 1).numpy(),
                               tf(ta, tw, tb, 1, 1).numpy(), atol=1e-5)
    assert len(conv_ops._GEOMETRIES) == 1


def test_int_like_arguments_are_not_kept(rng):
    torch = _torch()
    a = rng.standard_normal((1, 2, 5, 5))
    w = rng.standard_normal((2, 2, 3, 3))
    ref = torch.nn.functional.conv2d(torch.tensor(a), torch.tensor(w), None, 2, 1)
    got = F.conv2d(cygrad.tensor(a), cygrad.tensor(w), None, np.int64(2), [1, 1])
    np.testing.assert_allclose(got.numpy(), ref.numpy(), atol=1e-10)
    assert len(conv_ops._GEOMETRIES) == 0


@pytest.mark.parametrize("kw", [dict(kernel_size=2), dict(kernel_size=3, stride=2, padding=1),
                                dict(kernel_size=(2, 3), stride=(1, 2), dilation=2)])
def test_max_pool2d_repeated_calls_match_torch(rng, kw):
    torch = _torch()
    a = rng.standard_normal((2, 3, 9, 8))
    for ceil in (False, True, False):
        for x in (a, a[0]):
            tx = torch.tensor(x, requires_grad=True)
            cx = cygrad.tensor(x, requires_grad=True)
            ref, ti = torch.nn.functional.max_pool2d(tx, ceil_mode=ceil, return_indices=True,
                                                     **kw)
            got, ci = F.max_pool2d(cx, ceil_mode=ceil, return_indices=True, **kw)
            np.testing.assert_allclose(got.detach().numpy(), ref.detach().numpy(), atol=1e-12)
            np.testing.assert_array_equal(ci.numpy(), ti.numpy())
            ref.sum().backward()
            got.sum().backward()
            np.testing.assert_allclose(cx.grad.numpy(), tx.grad.numpy(), atol=1e-12)
    assert len(pool_ops._WINDOWS) == 4          # two input shapes, two ceil modes


def test_avg_pool2d_repeated_calls_match_torch(rng):
    torch = _torch()
    a = rng.standard_normal((2, 3, 7, 7))
    for _ in range(2):
        for kw in (dict(kernel_size=3, stride=2, padding=1), dict(kernel_size=2)):
            ref = torch.nn.functional.avg_pool2d(torch.tensor(a), **kw)
            got = F.avg_pool2d(cygrad.tensor(a), **kw)
            np.testing.assert_allclose(got.numpy(), ref.numpy(), atol=1e-12)


def test_max_pool2d_errors_after_a_kept_call(rng):
    torch = _torch()
    a = rng.standard_normal((1, 2, 6, 6))
    ta, ca = torch.tensor(a), cygrad.tensor(a)
    kept = lambda: F.max_pool2d(ca, 2)            # noqa: E731
    tf = torch.nn.functional.max_pool2d
    cases = [
        (lambda: F.max_pool2d(ca, 2, padding=2), lambda: tf(ta, 2, padding=2)),
        (lambda: F.max_pool2d(ca, 2, stride=0), lambda: tf(ta, 2, stride=0)),
        (lambda: F.max_pool2d(ca, 2, dilation=0), lambda: tf(ta, 2, dilation=0)),
        (lambda: F.max_pool2d(ca, 7), lambda: tf(ta, 7)),
        (lambda: F.max_pool2d(ca, 0), lambda: tf(ta, 0)),
    ]
    for cy_call, th_call in cases:
        _raises_like(torch, cy_call, th_call, kept)
    assert len(pool_ops._WINDOWS) == 1
