"""The C sliding-window kernels (cygrad/_core/cpu/conv.c through
cygrad._core.conv_kernels) against the tensor-op fallback of the ops that use them
(cygrad/nn/_ops/_sliding.py, pooling.py) and against NumPy: values, layouts,
strided inputs, geometry (stride, padding, dilation), dtypes, sizes above 256,
threads, a long loop, and errors raised as Python exceptions."""
import math

import numpy as np
import pytest

import cygrad
import cygrad.nn.functional as F
from cygrad._core import conv_kernels as K
from cygrad._core import dispatch
from cygrad.nn._ops import _sliding as S
from cygrad.nn._ops import pooling as P

# (input shape, kernel, dilation, pads (before; after = same), stride)
GEOMETRIES = [
    ((2, 3, 11), (3,), (2,), (2,), (3,)),
    ((2, 3, 7, 9), (3, 2), (1, 2), (1, 1), (2, 1)),
    ((1, 2, 5, 6), (3, 3), (1, 1), (1, 1), (1, 1)),
    ((2, 2, 4, 5, 6), (2, 3, 2), (1, 1, 2), (1, 0, 1), (1, 2, 1)),
    ((1, 1, 4, 4), (4, 4), (1, 1), (0, 0), (1, 1)),
    ((3, 1, 2, 300), (2, 5), (1, 3), (1, 2), (1, 7)),
]


def _rand(shape, dtype="float64", seed=0):
    rng = np.random.default_rng(seed)
    return cygrad.tensor(rng.standard_normal(shape).astype(dtype))


def _out(shape, kernel, dilation, pads, stride):
    return tuple(S.out_size(s, k, t, 2 * p, d)
                 for s, k, t, p, d in zip(shape[2:], kernel, stride, pads, dilation))


def _ref_im2col(x, kernel, dilation, pads, stride, out):
    both = tuple((p, p) for p in pads)
    return S.im2col(S.pad_zero(x, both), kernel, dilation, stride, out)


def _ref_col2im(cols, channels, size, kernel, dilation, pads, stride, out):
    both = tuple((p, p) for p in pads)
    padded = tuple(s + 2 * p for s, p in zip(size, pads))
    return S.crop(S.col2im(cols, channels, padded, kernel, dilation, stride, out), both, size)


@pytest.mark.parametrize("geom", GEOMETRIES)
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_im2col_col2im_match_fallback(geom, dtype):
    shape, kernel, dilation, pads, stride = geom
    out = _out(shape, kernel, dilation, pads, stride)
    x = _rand(shape, dtype)
    ref = _ref_im2col(x, kernel, dilation, pads, stride, out)
    for cm in (False, True):
        got = K.im2col(x, kernel, dilation, pads, stride, out, cm)
        assert got.dtype == x.dtype and tuple(got.shape) == tuple(ref.shape)
        np.testing.assert_array_equal(got.numpy(), ref.numpy())
    cols = _rand(tuple(ref.shape), dtype, seed=1)
    ref_img = _ref_col2im(cols, shape[1], shape[2:], kernel, dilation, pads, stride, out)
    got_img = K.col2im(cols, shape[1], shape[2:], kernel, dilation, pads, stride, out)
    assert got_img.is_contiguous()
    tol = 1e-5 if dtype == "float32" else 1e-12
    np.testing.assert_allclose(got_img.numpy(), ref_img.numpy(), rtol=tol, atol=tol)


def test_channel_major_layout():
    x = _rand((3, 2, 5, 5))
    cols = K.im2col(x, (2, 2), (1, 1), (0, 0), (1, 1), (4, 4), True)
    # (N, C*K, L) seen through a (C*K, N, L) buffer
    assert cols.stride() == (16, 3 * 16, 1)
    assert cols.transpose(0, 1).is_contiguous()
    std = K.im2col(x, (2, 2), (1, 1), (0, 0), (1, 1), (4, 4))
    assert std.is_contiguous()
    np.testing.assert_array_equal(cols.numpy(), std.numpy())


def test_col2im_takes_strided_columns():
    x = _rand((2, 3, 6, 7))
    geom = ((3, 3), (1, 1), (1, 1), (2, 1), (3, 7))
    cols = _rand((2, 27, 21), seed=3)
    ref = _ref_col2im(cols, 3, (6, 7), *geom)
    for view in (cols.transpose(0, 1).contiguous().transpose(0, 1),        # channel-major
                 _rand((27, 2, 21), seed=3).transpose(0, 1),                # another permutation
                 cols.transpose(1, 2).contiguous().transpose(1, 2),        # positions strided
                 _rand((2, 27, 42), seed=4)[:, :, ::2],                     # a step along L
                 cols[:, :, :].contiguous()):
        want = _ref_col2im(view.contiguous(), 3, (6, 7), *geom)
        got = K.col2im(view, 3, (6, 7), *geom)
        np.testing.assert_allclose(got.numpy(), want.numpy(), rtol=1e-12, atol=1e-12)
    # zero strides (an expanded gradient)
    ones = cygrad.ones(()).to(cygrad.float64).expand(2, 27, 21)
    got = K.col2im(ones, 3, (6, 7), *geom)
    want = _ref_col2im(ones.contiguous(), 3, (6, 7), *geom)
    np.testing.assert_allclose(got.numpy(), want.numpy())
    del x, ref


def test_negative_strides():
    # from_numpy keeps a reversed array's negative strides (zero-copy)
    rng = np.random.default_rng(7)
    for shape, kernel, dilation, pads, stride in (((2, 3, 6, 7), (3, 3), (1, 2), (1, 2), (2, 1)),
                                                  ((1, 2, 4, 5, 6), (2, 3, 2), (2, 1, 1),
                                                   (1, 1, 0), (1, 2, 2))):
        arr = rng.standard_normal(shape)[:, :, ::-1, ..., ::-1]
        x = cygrad.from_numpy(arr)
        assert min(x.stride()) < 0
        out = _out(shape, kernel, dilation, pads, stride)
        want = _ref_im2col(cygrad.tensor(np.ascontiguousarray(arr)), kernel, dilation, pads,
                           stride, out)
        for cm in (False, True):
            got = K.im2col(x, kernel, dilation, pads, stride, out, cm)
            np.testing.assert_array_equal(got.numpy(), want.numpy())
        v, i = K.max_pool(x, kernel, dilation, pads, stride, out)
        rv, ri = K.max_pool(cygrad.tensor(np.ascontiguousarray(arr)), kernel, dilation, pads,
                            stride, out)
        np.testing.assert_array_equal(v.numpy(), rv.numpy())
        np.testing.assert_array_equal(i.numpy(), ri.numpy())


def test_im2col_non_contiguous_inputs():
    base = _rand((4, 6, 9, 10))
    views = [base.transpose(0, 1),                 # channels first in memory
             base[:, ::2, 1::2, ::3],              # steps in every dim
             base.permute(0, 2, 3, 1).contiguous().permute(0, 3, 1, 2),  # channels last
             base[:1, :1].expand(3, 2, 9, 10)]     # zero strides
    for v in views:
        out = _out(tuple(v.shape), (3, 2), (1, 1), (1, 0), (2, 1))
        want = _ref_im2col(v.contiguous(), (3, 2), (1, 1), (1, 0), (2, 1), out)
        got = K.im2col(v, (3, 2), (1, 1), (1, 0), (2, 1), out)
        np.testing.assert_array_equal(got.numpy(), want.numpy())


@pytest.mark.parametrize("dtype", ["float16", "bfloat16", "int64", "int32", "int16", "uint8",
                                   "bool"])
def test_im2col_moves_any_dtype(dtype):
    x = (_rand((2, 3, 5, 4)) * 50).to(getattr(cygrad, dtype))
    out = _out((2, 3, 5, 4), (2, 3), (1, 1), (1, 1), (1, 2))
    got = K.im2col(x, (2, 3), (1, 1), (1, 1), (1, 2), out, True)
    want = _ref_im2col(x, (2, 3), (1, 1), (1, 1), (1, 2), out)
    assert got.dtype == x.dtype
    assert got.to(cygrad.float64).tolist() == want.to(cygrad.float64).tolist()


def _ref_max_pool(x, w):
    values, arg = P._window_max(x, w)
    return values, P._plane_indices(arg, w)


def _windows(shape, kernel, stride, padding, dilation, ceil):
    x = cygrad.empty(shape)
    return P._windows(x, len(kernel), kernel, stride, padding, dilation, ceil, "test")


@pytest.mark.parametrize("shape,kernel,stride,padding,dilation,ceil", [
    ((2, 3, 8, 8), (2, 2), (2, 2), (0, 0), (1, 1), False),
    ((2, 3, 9, 7), (3, 3), (2, 1), (1, 1), (1, 1), True),
    ((1, 2, 10, 11), (3, 2), (3, 2), (1, 1), (2, 3), True),
    ((2, 2, 5, 6, 7), (2, 3, 2), (1, 2, 2), (1, 1, 0), (1, 1, 2), False),
    ((1, 2, 1, 700), (1, 5), (1, 3), (0, 2), (1, 1), True),
])
@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool_matches_fallback(shape, kernel, stride, padding, dilation, ceil, dtype):
    w = _windows(shape, kernel, stride, padding, dilation, ceil)
    x = _rand(shape, dtype)
    want_v, want_i = _ref_max_pool(x, w)
    pads = tuple(b for b, _ in w.pads)
    got_v, got_i = K.max_pool(x, w.kernel, w.dilation, pads, w.stride, w.out)
    np.testing.assert_array_equal(got_v.numpy(), want_v.numpy())
    np.testing.assert_array_equal(got_i.numpy(), want_i.numpy())
    assert got_i.dtype == cygrad.int64
    # strided input
    xt = x.transpose(-1, -2).contiguous().transpose(-1, -2)
    v2, i2 = K.max_pool(xt, w.kernel, w.dilation, pads, w.stride, w.out)
    np.testing.assert_array_equal(v2.numpy(), want_v.numpy())
    np.testing.assert_array_equal(i2.numpy(), want_i.numpy())


def test_max_pool_ties_nan_and_inf_follow_pytorch():
    torch = pytest.importorskip("torch")
    inf, nan = float("inf"), float("nan")
    rows = [[1.0, 1.0, 0.0, 2.0, 2.0, -inf, -inf, -inf, 3.0],
            [nan, 1.0, 5.0, nan, nan, 0.0, -inf, nan, 1.0]]
    data = np.array(rows, dtype=np.float32).reshape(1, 2, 1, 9)
    for kwargs in ({"kernel_size": (1, 2)}, {"kernel_size": (1, 3), "stride": 1, "padding": (0, 1)},
                   {"kernel_size": (1, 3), "stride": 2, "ceil_mode": True}):
        v, i = F.max_pool2d(cygrad.tensor(data), return_indices=True, **kwargs)
        tv, ti = torch.nn.functional.max_pool2d(torch.from_numpy(data), return_indices=True,
                                                **kwargs)
        np.testing.assert_array_equal(v.numpy(), tv.numpy())
        np.testing.assert_array_equal(i.numpy(), ti.numpy())


@pytest.mark.parametrize("dtype", ["float32", "float64"])
def test_max_pool_backward_is_a_scatter_add(dtype):
    rng = np.random.default_rng(5)
    size = (6, 7)
    idx = rng.integers(0, 42, (2, 3, 4, 5))
    g = rng.standard_normal((2, 3, 4, 5)).astype(dtype)
    want = np.zeros((2, 3, 42), dtype)
    for n in range(2):
        for c in range(3):
            np.add.at(want[n, c], idx[n, c].ravel(), g[n, c].ravel())
    got = K.max_pool_backward(cygrad.tensor(g), cygrad.tensor(idx), size)
    np.testing.assert_allclose(got.numpy().reshape(2, 3, 42), want, rtol=1e-6)
    # strided gradient and indices
    gt = cygrad.tensor(np.ascontiguousarray(g.transpose(1, 0, 2, 3))).transpose(0, 1)
    it = cygrad.tensor(np.ascontiguousarray(idx.transpose(1, 0, 2, 3))).transpose(0, 1)
    got2 = K.max_pool_backward(gt, it, size)
    np.testing.assert_allclose(got2.numpy(), got.numpy())


def test_threads_and_chunking_give_the_same_result():
    x = _rand((4, 6, 33, 35), "float32")
    old_min, old_threads = K._get_parallel_min(), cygrad.get_num_threads()
    results = []
    try:
        for threads, pmin in ((1, 1 << 40), (2, 1), (2, 1 << 40)):
            cygrad.set_num_threads(threads)
            K._set_parallel_min(pmin)
            cols = K.im2col(x, (3, 3), (1, 1), (1, 1), (1, 1), (33, 35), True)
            img = K.col2im(cols, 6, (33, 35), (3, 3), (1, 1), (1, 1), (1, 1), (33, 35))
            v, i = K.max_pool(x, (2, 2), (1, 1), (0, 0), (2, 2), (16, 17))
            back = K.max_pool_backward(v, i, (33, 35))
            results.append([t.numpy().copy() for t in (cols, img, v, i, back)])
    finally:
        cygrad.set_num_threads(old_threads)
        K._set_parallel_min(old_min)
    for other in results[1:]:
        for a, b in zip(results[0], other):
            np.testing.assert_array_equal(a, b)


def test_long_loop_is_stable():
    x = _rand((2, 3, 6, 5))
    cols0 = K.im2col(x, (3, 3), (1, 1), (1, 1), (1, 1), (6, 5), True)
    img0 = K.col2im(cols0, 3, (6, 5), (3, 3), (1, 1), (1, 1), (1, 1), (6, 5))
    v0, i0 = K.max_pool(x, (2, 2), (1, 1), (1, 0), (2, 2), (4, 2))
    for _ in range(1000):
        cols = K.im2col(x, (3, 3), (1, 1), (1, 1), (1, 1), (6, 5), True)
        img = K.col2im(cols, 3, (6, 5), (3, 3), (1, 1), (1, 1), (1, 1), (6, 5))
        v, i = K.max_pool(x, (2, 2), (1, 1), (1, 0), (2, 2), (4, 2))
        K.max_pool_backward(v, i, (6, 5))
    assert cols.tolist() == cols0.tolist() and img.tolist() == img0.tolist()
    assert v.tolist() == v0.tolist() and i.tolist() == i0.tolist()


def test_ops_use_the_table_and_fall_back_for_other_dtypes():
    assert dispatch.lookup("im2col", "cpu", cygrad.float16) is K.im2col
    assert dispatch.lookup("col2im", "cpu", cygrad.float32) is K.col2im
    assert dispatch.lookup("col2im", "cpu", cygrad.float16) is None
    assert dispatch.lookup("max_pool_nd", "cpu", cygrad.int64) is None
    assert dispatch.lookup("max_pool_nd", "mps", cygrad.float32) is None    # (CUDA has one)
    # int max pooling runs the fallback; it must agree with the float kernel
    x = (_rand((2, 3, 7, 8)) * 100).to(cygrad.int64)
    v, i = F.max_pool2d(x, 3, stride=2, padding=1, return_indices=True)
    fv, fi = F.max_pool2d(x.to(cygrad.float64), 3, stride=2, padding=1, return_indices=True)
    assert v.dtype == cygrad.int64
    assert v.tolist() == fv.to(cygrad.int64).tolist() and i.tolist() == fi.tolist()
    # float16 fold runs the fallback col2im; float32 the kernel
    cols = _rand((1, 12, 16), "float32")
    half = F.fold(cols.half(), (5, 5), 2)
    full = F.fold(cols, (5, 5), 2)
    np.testing.assert_allclose(half.float().numpy(), full.numpy(), rtol=1e-2, atol=1e-2)


def test_max_pool_gradient_through_the_kernel():
    x = _rand((1, 2, 5, 6)).requires_grad_()
    assert cygrad.autograd.gradcheck(lambda t: F.max_pool2d(t, 2, stride=1, padding=1), (x,))
    assert cygrad.autograd.gradgradcheck(lambda t: F.max_pool2d(t, 2, stride=2), (x,))


# ----------------------------------------------------------------------- errors

def _g2():
    return ((3, 3), (1, 1), (1, 1), (1, 1), (4, 4))


@pytest.mark.parametrize("call,exc,match", [
    (lambda: K.im2col(cygrad.ones(4, 4), *_g2()), RuntimeError, "spatial"),
    (lambda: K.im2col(cygrad.ones(1, 1, 4, 4), (3,), (1, 1), (1, 1), (1, 1), (4, 4)),
     RuntimeError, "kernel must have 2 values"),
    (lambda: K.im2col(cygrad.ones(1, 1, 4, 4), (3, 3), (1, 1), (-1, 1), (1, 1), (4, 4)),
     RuntimeError, "pads must be at least 0"),
    (lambda: K.im2col(cygrad.ones(1, 1, 4, 4), (3, 3), (1, 1), (1, 1), (0, 1), (4, 4)),
     RuntimeError, "stride must be at least 1"),
    (lambda: K.im2col(cygrad.ones(1, 1, 4, 4), (3, 3), (1, 1), (1, 1), (1, 1), 4),
     TypeError, "out must be a tuple"),
    (lambda: K.im2col(cygrad.ones(1, 1, 4, 4), (3, 3), (1, 1), (1, 1), (1, 1), (1 << 62, 4)),
     RuntimeError, "at least 0"),
    (lambda: K.im2col(cygrad.ones(1, 1, 4, 4), (3, 3), (1, 1), (1, 1), (1 << 61, 1), (4, 4)),
     RuntimeError, "too large"),
    (lambda: K.im2col(None, *_g2()), TypeError, "x"),
    (lambda: K.col2im(cygrad.ones(1, 9, 15), 1, (4, 4), *_g2()), RuntimeError, "do not match"),
    (lambda: K.col2im(cygrad.ones(1, 9, 16).long(), 1, (4, 4), *_g2()), TypeError, "int64"),
    (lambda: K.col2im(cygrad.ones(9, 16), 1, (4, 4), *_g2()), RuntimeError, "columns"),
    (lambda: K.col2im(cygrad.ones(1, 9, 16), 1, (4, -4), *_g2()), RuntimeError, "size"),
    (lambda: K.max_pool(cygrad.ones(1, 1, 4, 4).long(), *_g2()), TypeError, "int64"),
    (lambda: K.max_pool_backward(cygrad.ones(1, 1, 2), cygrad.tensor([[[0, 5]]]), (5,)),
     RuntimeError, "outside the plane"),
    (lambda: K.max_pool_backward(cygrad.ones(1, 1, 2), cygrad.tensor([[[0, -1]]]), (5,)),
     RuntimeError, "outside the plane"),
    (lambda: K.max_pool_backward(cygrad.ones(1, 1, 2), cygrad.tensor([[[0.0, 1.0]]]), (5,)),
     TypeError, "int64"),
    (lambda: K.max_pool_backward(cygrad.ones(1, 1, 2), cygrad.tensor([[[0, 1, 2]]]), (5,)),
     RuntimeError, "shape"),
    (lambda: K.max_pool_backward(cygrad.ones(1, 1, 2), cygrad.tensor([[[0, 1]]]), (5, 5)),
     RuntimeError, "values"),
])
def test_bad_arguments_raise(call, exc, match):
    with pytest.raises(exc, match=match):
        call()


def test_empty_tensors():
    cols = K.im2col(cygrad.ones(0, 3, 4, 4), *_g2())
    assert tuple(cols.shape) == (0, 27, 16)
    img = K.col2im(cygrad.ones(0, 27, 16), 3, (4, 4), *_g2())
    assert tuple(img.shape) == (0, 3, 4, 4)
    v, i = K.max_pool(cygrad.ones(2, 0, 4, 4), (2, 2), (1, 1), (0, 0), (2, 2), (2, 2))
    assert tuple(v.shape) == (2, 0, 2, 2) and tuple(i.shape) == (2, 0, 2, 2)
    assert math.prod(K.max_pool_backward(v, i, (4, 4)).shape) == 0
