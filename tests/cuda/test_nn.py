"""The nn family's CUDA kernels (cuda_src/nn.cu, conv.cu; cygrad/cuda/ops/nn.py) on the
emulated GPU in strict mode (or a real one: tests/cuda/family_driver.py): each
primitive against its CPU kernel and NumPy, with non-contiguous inputs, masks,
weights, padding and the error cases; then the nn layers and functions end to
end, forward and backward, against the same run on the CPU, checking through a
spy that the CUDA kernels did the work.
"""
import contextlib
import math
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn as nn
import cygrad.nn.functional as F
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_driver import family_driver  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")

FLOATS = [cygrad.float32, cygrad.float64]


@pytest.fixture(scope="module", autouse=True)
def driver():
    with family_driver() as d:
        cygrad.zeros(1, device="cuda")             # registers the 'cuda' kernels
        yield d


def host(t):
    return t.detach().cpu().numpy()


def tol(dtype):
    return dict(rtol=2e-5, atol=2e-6) if dtype is cygrad.float32 else dict(rtol=1e-12, atol=1e-13)


def cuda_kernel(name):
    return dispatch.kernel(name, "cuda")


def cpu_kernel(name):
    return dispatch.kernel(name, "cpu")


def on_both(*arrays, dtype):
    """Each NumPy array as a CPU tensor and as a CUDA tensor of ``dtype``."""
    cpu = [None if a is None else cygrad.tensor(a, dtype=dtype) for a in arrays]
    return cpu, [None if t is None else t.cuda() for t in cpu]


@contextlib.contextmanager
def spy(*names):
    """Count the calls of the 'cuda' kernels ``names`` (restored afterwards)."""
    counts = dict.fromkeys(names, 0)
    saved = {}
    for name in names:
        fn = dispatch._TABLE[(name, "cuda")]
        dts = dispatch._DTYPES.get((name, "cuda"))
        saved[name] = (fn, dts)

        def wrapper(*a, _fn=fn, _name=name, **k):
            counts[_name] += 1
            return _fn(*a, **k)
        dispatch.register(name, "cuda", dtypes=dts)(wrapper)
    try:
        yield counts
    finally:
        for name, (fn, dts) in saved.items():
            dispatch.register(name, "cuda", dtypes=dts)(fn)


def np_softmax(a, axis):
    e = np.exp(a - a.max(axis=axis, keepdims=True))
    return e / e.sum(axis=axis, keepdims=True)


# ------------------------------------------------------------------ softmax family

@pytest.mark.parametrize("dtype", FLOATS)
# (the last two: 40 and 64 rows between a row's elements, the one-thread-per-row kernels)
@pytest.mark.parametrize("shape,dim", [((4, 37), 1), ((3, 5, 6), 1), ((3, 5, 6), 0), ((300,), 0),
                                       ((3, 7, 40), 1), ((5, 64), 0)])
def test_softmax_and_backward_match_cpu_and_numpy(shape, dim, dtype):
    rng = np.random.default_rng(0)
    a, g = rng.standard_normal(shape) * 3, rng.standard_normal(shape)
    (xc, gc), (xg, gg) = on_both(a, g, dtype=dtype)
    for log in (False, True):
        y = cuda_kernel("softmax")(xg, dim, dtype, log)
        assert y.is_cuda and y.dtype is dtype
        want = np_softmax(a, dim)
        np.testing.assert_allclose(host(y), np.log(want) if log else want, **tol(dtype))
        yc = cpu_kernel("softmax")(xc, dim, dtype, log)
        np.testing.assert_allclose(host(y), yc.numpy(), **tol(dtype))
        dx = cuda_kernel("softmax_backward")(y, gg, dim, log, 0.5)
        want_dx = cpu_kernel("softmax_backward")(yc, gc, dim, log, 0.5)
        np.testing.assert_allclose(host(dx), want_dx.numpy(), **tol(dtype))


def test_softmax_non_contiguous_half_and_scalar_inputs():
    a = np.random.default_rng(1).standard_normal((6, 40)).astype(np.float32)
    xg = cygrad.tensor(a.T.copy()).cuda().t()            # a transposed view
    np.testing.assert_allclose(host(cuda_kernel("softmax")(xg, 1, cygrad.float32, False)),
                               np_softmax(a, 1), rtol=1e-5, atol=1e-6)
    for dt, eps in ((cygrad.float16, 2.0 ** -10), (cygrad.bfloat16, 2.0 ** -7)):
        xc = cygrad.tensor(a, dtype=dt)
        stored = xc.float().numpy()                      # the input as the half type holds it
        for dim, log in ((1, True), (0, False)):         # (dim 0: one thread per row)
            h = cuda_kernel("softmax")(xc.cuda(), dim, dt, log)   # stored as dt, computed in float
            assert h.dtype is dt
            ref = np_softmax(stored, dim)
            ref = np.log(ref) if log else ref
            got = host(h).astype(np.float32)
            np.testing.assert_allclose(got, ref, rtol=eps, atol=eps * 0.1)
            np.testing.assert_allclose(got, cpu_kernel("softmax")(xc, dim, dt, log).float().numpy(),
                                       rtol=eps, atol=eps * 0.1)
    assert host(cuda_kernel("softmax")(cygrad.tensor(2.0).cuda(), 0, cygrad.float32, False)) == 1.0
    big = np.array([[1000.0, 1000.0, -np.inf], [0.0, np.nan, 1.0]])
    y = host(cuda_kernel("softmax")(cygrad.tensor(big).cuda(), 1, cygrad.float64, False))
    np.testing.assert_array_equal(y[0], [0.5, 0.5, 0.0])
    assert np.isnan(y[1]).all()                          # a NaN spreads over its row, as on the CPU


@pytest.mark.parametrize("dtype", FLOATS)
def test_attention_softmax_masks_and_causal(dtype):
    rng = np.random.default_rng(2)
    s = rng.standard_normal((2, 3, 5, 7))
    mask = rng.standard_normal((5, 7))
    mask[1, :] = -np.inf                                 # a row with no key left: zeros
    full = rng.standard_normal((2, 1, 5, 7))
    (sc,), (sg,) = on_both(s, dtype=dtype)
    for m in (None, mask, full):
        for causal in (False, True):
            mc = None if m is None else cygrad.tensor(m, dtype=dtype)
            mg = None if mc is None else mc.cuda()
            got = cuda_kernel("attention_softmax")(sg, 0.7, causal, mg)
            want = cpu_kernel("attention_softmax")(sc, 0.7, causal, mc)
            np.testing.assert_allclose(host(got), want.numpy(), **tol(dtype))
    # against NumPy: the causal mask keeps keys j <= i
    keep = np.tril(np.ones((5, 7), bool))
    ref = np_softmax(np.where(keep, s * 0.7, -np.inf), -1)
    np.testing.assert_allclose(host(cuda_kernel("attention_softmax")(sg, 0.7, True, None)), ref,
                               **tol(dtype))
    row = host(cuda_kernel("attention_softmax")(sg, 1.0, False, cygrad.tensor(mask, dtype=dtype).cuda()))
    assert (row[:, :, 1, :] == 0).all()


# ------------------------------------------------------------------ layer norm, GELU

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("affine", [(True, True), (True, False), (False, False)])
def test_layer_norm_forward_and_backward(dtype, affine):
    rng = np.random.default_rng(3)
    rows, n = 70, 45
    a, g = rng.standard_normal((rows, n)) * 2 + 1, rng.standard_normal((rows, n))
    w = rng.standard_normal(n) if affine[0] else None
    b = rng.standard_normal(n) if affine[1] else None
    (xc, gc, wc, bc), (xg, gg, wg, bg) = on_both(a, g, w, b, dtype=dtype)
    y, mean, rstd = cuda_kernel("layer_norm")(xg, n, wg, bg, 1e-5)
    mu, var = a.mean(1, keepdims=True), a.var(1, keepdims=True)
    ref = (a - mu) / np.sqrt(var + 1e-5) * (1 if w is None else w) + (0 if b is None else b)
    np.testing.assert_allclose(host(y), ref, **tol(dtype))
    np.testing.assert_allclose(host(mean), mu[:, 0], **tol(dtype))
    np.testing.assert_allclose(host(rstd), 1 / np.sqrt(var[:, 0] + 1e-5), **tol(dtype))
    yc, mc, rc = cpu_kernel("layer_norm")(xc, n, wc, bc, 1e-5)
    for need in ((True, True, True), (True, False, False), (False, True, False), (False, False, True)):
        got = cuda_kernel("layer_norm_backward")(gg, xg, mean, rstd, wg, *need)
        want = cpu_kernel("layer_norm_backward")(gc, xc, mc, rc, wc, *need)
        for gt, wt_, asked in zip(got, want, need):
            assert (gt is None) == (not asked)
            if asked:
                np.testing.assert_allclose(host(gt), wt_.numpy(), rtol=tol(dtype)["rtol"] * 10,
                                           atol=tol(dtype)["atol"] * 10)


@pytest.mark.parametrize("dtype", FLOATS)
def test_gelu_exact_and_tanh(dtype):
    a = np.linspace(-6, 6, 1001).reshape(7, 143)
    g = np.cos(a)
    (xc, gc), (xg, gg) = on_both(a, g, dtype=dtype)
    erf = np.vectorize(math.erf)
    ref = {False: 0.5 * a * (1 + erf(a / math.sqrt(2))),
           True: 0.5 * a * (1 + np.tanh(math.sqrt(2 / math.pi) * (a + 0.044715 * a ** 3)))}
    for approx in (False, True):
        y = cuda_kernel("gelu")(xg, approx)
        np.testing.assert_allclose(host(y), ref[approx], **tol(dtype))
        np.testing.assert_allclose(host(cuda_kernel("gelu_backward")(gg, xg, approx)),
                                   cpu_kernel("gelu_backward")(gc, xc, approx).numpy(), **tol(dtype))
    xt = cygrad.tensor(a.T.copy(), dtype=dtype).cuda().t()   # non-contiguous
    np.testing.assert_allclose(host(cuda_kernel("gelu")(xt, False)), ref[False], **tol(dtype))


# ------------------------------------------------------------------ cross entropy

@pytest.mark.parametrize("dtype", FLOATS)
@pytest.mark.parametrize("weighted", [False, True])
@pytest.mark.parametrize("eps", [0.0, 0.2])
def test_cross_entropy_forward_and_backward(dtype, weighted, eps):
    rng = np.random.default_rng(4)
    R, C = 9, 300
    a = rng.standard_normal((R, C)) * 4
    t = rng.integers(0, C, R)
    t[3] = -100                                          # ignored
    w = rng.random(C) + 0.5 if weighted else None
    (xc, wc), (xg, wg) = on_both(a, w, dtype=dtype)
    tc = cygrad.tensor(t)
    loss, lse, wt = cuda_kernel("cross_entropy")(xg, tc.cuda(), wg, -100, eps)
    lse_ref = np.log(np.exp(a - a.max(1, keepdims=True)).sum(1)) + a.max(1)
    np.testing.assert_allclose(host(lse), lse_ref, **tol(dtype))
    want = cpu_kernel("cross_entropy")(xc, tc, wc, -100, eps)
    for got, ref in zip((loss, lse, wt), want):
        np.testing.assert_allclose(host(got), ref.numpy(), **tol(dtype))
    assert host(loss)[3] == 0 and host(wt)[3] == 0
    for scale in (np.array([0.25]), rng.standard_normal(R)):
        sc = cygrad.tensor(scale, dtype=dtype)
        dx = cuda_kernel("cross_entropy_backward")(xg, lse, tc.cuda(), wg, -100, eps, sc.cuda())
        ref = cpu_kernel("cross_entropy_backward")(xc, want[1], tc, wc, -100, eps, sc)
        np.testing.assert_allclose(host(dx), ref.numpy(), **tol(dtype))


def test_cross_entropy_bad_target_raises_index_error_like_the_cpu():
    # (the error comes from the call on the emulated GPU, at the next synchronize on a
    # real one: docs/cuda.md, "The nn family")
    x = cygrad.zeros(4, 3, device="cuda")
    for bad in (3, -1):
        t = cygrad.tensor([0, 2, bad, 7]).cuda()          # the first bad row is reported
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds."):
            cuda_kernel("cross_entropy")(x, t, None, -100, 0.0)
            cygrad.cuda.synchronize()
        with pytest.raises(IndexError, match=f"Target {bad} is out of bounds."):
            cuda_kernel("cross_entropy_backward")(x, cygrad.zeros(4, device="cuda"), t, None, -100,
                                                  0.0, cygrad.ones(1, device="cuda"))
            cygrad.cuda.synchronize()
    with pytest.raises(IndexError, match="Target 5 is out of bounds."):
        F.cross_entropy(x, cygrad.tensor([0, 5, 1, 1]).cuda())
        cygrad.cuda.synchronize()
    with pytest.raises(RuntimeError, match="same device.*cuda:0 and cpu"):
        F.cross_entropy(x, cygrad.tensor([0, 1, 1, 1]))
    with pytest.raises(RuntimeError, match="same device.*cuda:0 and cpu"):
        cuda_kernel("layer_norm")(x, 3, cygrad.ones(3), None, 1e-5)
    with pytest.raises(RuntimeError, match="expected a cygrad.float32 tensor, got cygrad.float64"):
        cuda_kernel("gelu_backward")(x.double(), x, False)


# ------------------------------------------------------------------ windows

GEOMETRIES = [  # (input shape, kernel, dilation, pads, stride)
    ((2, 3, 11), (3,), (2,), (1,), (2,)),
    ((2, 3, 7, 6), (3, 2), (1, 2), (1, 0), (2, 1)),
    ((1, 2, 4, 5, 3), (2, 3, 2), (1, 1, 1), (1, 1, 0), (1, 2, 1)),
]


def out_size(size, k, d, p, s):
    return tuple((n + 2 * pp - dd * (kk - 1) - 1) // ss + 1 for n, kk, dd, pp, ss in zip(size, k, d, p, s))


def im2col_ref(a, k, d, p, s, o, cm):
    """The CPU kernel's columns of ``a`` (a complex array: of its two float64 parts)."""
    if np.iscomplexobj(a):
        return im2col_ref(a.real, k, d, p, s, o, cm) + 1j * im2col_ref(a.imag, k, d, p, s, o, cm)
    return cpu_kernel("im2col")(cygrad.tensor(a), k, d, p, s, o, cm).numpy()


@pytest.mark.parametrize("geom", GEOMETRIES)
@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64, cygrad.int64, cygrad.float16,
                                   cygrad.bool, cygrad.int32, cygrad.complex128])
def test_im2col_every_width_matches_cpu(geom, dtype):
    shape, k, d, p, s = geom
    o = out_size(shape[2:], k, d, p, s)
    rng = np.random.default_rng(5)
    a = rng.integers(-9, 9, shape)
    if dtype is cygrad.complex128:
        a = a + 1j * rng.integers(-9, 9, shape)
    xg = cygrad.tensor(a).to(dtype).cuda()
    ref = cygrad.tensor(a).to(dtype).numpy()            # the values as dtype holds them
    for cm in (False, True):
        got = cuda_kernel("im2col")(xg, k, d, p, s, o, cm)
        want = im2col_ref(ref if dtype is cygrad.complex128 else a, k, d, p, s, o, cm)
        want = want.astype(ref.dtype)
        assert got.is_cuda and got.dtype is dtype and tuple(got.shape) == want.shape
        if cm:       # (N, C*K, L) viewed on a (C*K, N, L) buffer: compare the buffers
            got, want = got.permute(1, 0, 2), want.transpose(1, 0, 2)
            assert got.is_contiguous()
        np.testing.assert_array_equal(host(got), want)
    # a non-contiguous input (transposed batch and channel dims), read through its strides
    xt = cygrad.tensor(np.ascontiguousarray(np.swapaxes(a, 0, 1))).to(dtype).cuda().transpose(0, 1)
    np.testing.assert_array_equal(host(cuda_kernel("im2col")(xt, k, d, p, s, o)),
                                  im2col_ref(ref if dtype is cygrad.complex128 else a, k, d, p, s,
                                             o, False).astype(ref.dtype))


def test_unfold_of_complex128_on_the_cpu_is_its_parts_unfolded():
    """The CPU kernel copies elements of at most 8 bytes: complex128 takes the tensor path
    (it used to read 16-byte elements as 8-byte ones)."""
    a = np.arange(24.0).reshape(1, 2, 3, 4)
    b = a[:, ::-1].copy() - 5
    got = F.unfold(cygrad.tensor(a + 1j * b), 2, padding=1).numpy()
    want = F.unfold(cygrad.tensor(a), 2, padding=1).numpy() + 1j * F.unfold(cygrad.tensor(b), 2,
                                                                          padding=1).numpy()
    np.testing.assert_array_equal(got, want)


@pytest.mark.parametrize("geom", GEOMETRIES)
@pytest.mark.parametrize("dtype", FLOATS)
def test_col2im_and_max_pool_match_cpu(geom, dtype):
    shape, k, d, p, s = geom
    o = out_size(shape[2:], k, d, p, s)
    rng = np.random.default_rng(6)
    n, c = shape[:2]
    cols = rng.standard_normal((n, c * math.prod(k), math.prod(o)))
    colsc = cygrad.tensor(cols, dtype=dtype)
    colsg = cygrad.tensor(np.ascontiguousarray(cols.transpose(2, 1, 0)), dtype=dtype).cuda() \
        .permute(2, 1, 0)                               # any strides
    got = cuda_kernel("col2im")(colsg, c, shape[2:], k, d, p, s, o)
    want = cpu_kernel("col2im")(colsc, c, shape[2:], k, d, p, s, o)
    np.testing.assert_allclose(host(got), want.numpy(), **tol(dtype))
    a = rng.standard_normal(shape)
    a.reshape(-1)[::7] = a.reshape(-1)[3]                # ties: the first maximum wins
    a.reshape(-1)[5] = np.nan                            # a NaN always wins
    (xc,), (xg,) = on_both(a, dtype=dtype)
    pads = tuple(min(pp, kk // 2) for pp, kk in zip(p, k))
    o2 = out_size(shape[2:], k, d, pads, s)
    v, i = cuda_kernel("max_pool_nd")(xg, k, d, pads, s, o2)
    vc, ic = cpu_kernel("max_pool_nd")(xc, k, d, pads, s, o2)
    np.testing.assert_array_equal(host(v), vc.numpy())
    np.testing.assert_array_equal(host(i), ic.numpy())
    g = rng.standard_normal(tuple(v.shape))
    (gc,), (gg,) = on_both(g, dtype=dtype)
    np.testing.assert_allclose(host(cuda_kernel("max_pool_nd_backward")(gg, i, shape[2:])),
                               cpu_kernel("max_pool_nd_backward")(gc, ic, shape[2:]).numpy(),
                               **tol(dtype))


def test_window_errors_and_unsupported_dtypes():
    g = cygrad.ones(1, 1, 2, device="cuda")
    with pytest.raises(RuntimeError, match="outside the plane"):
        cuda_kernel("max_pool_nd_backward")(g, cygrad.tensor([[[0, 4]]]).cuda(), (3,))
    with pytest.raises(TypeError, match="int64"):
        cuda_kernel("max_pool_nd_backward")(g, cygrad.tensor([[[0, 1]]], dtype=cygrad.int32).cuda(), (3,))
    with pytest.raises(RuntimeError, match="do not match"):
        cuda_kernel("col2im")(cygrad.ones(1, 3, 3, device="cuda"), 1, (4,), (2,), (1,), (0,), (1,), (3,))
    with pytest.raises(RuntimeError, match="spatial"):
        cuda_kernel("im2col")(cygrad.ones(2, 2, device="cuda"), (1,), (1,), (0,), (1,), (2,))
    for name, args in (("gelu", (False,)), ("layer_norm", (2, None, None, 1e-5))):
        x = cygrad.ones(2, 2, dtype=cygrad.float16).cuda()
        with pytest.raises(NotImplementedError, match=f"'cuda'.*'{name}'.*float16"):
            cuda_kernel(name)(x, *args)
    # other dtypes are not taken by lookup: the ops keep their composed path for them
    assert dispatch.lookup("gelu", "cuda", cygrad.float16) is None
    assert dispatch.lookup("softmax_backward", "cuda", cygrad.bfloat16) is None


# ------------------------------------------------------------------ end to end

def run_net(device, dtype):
    cygrad.manual_seed(0)
    conv = nn.Conv2d(3, 8, 3, padding=1).to(dtype)
    norm = nn.LayerNorm(8 * 4 * 4).to(dtype)
    head = nn.Linear(8 * 4 * 4, 10, bias=False).to(dtype)
    x = cygrad.randn(4, 3, 8, 8, dtype=dtype)
    target = cygrad.tensor([1, 9, 0, 3])
    for m in (conv, norm, head):
        m.to(device)
    x = x.to(device).requires_grad_()
    h = nn.MaxPool2d(2)(conv(x))
    h = nn.GELU(approximate="tanh")(norm(h.reshape(4, -1)))
    logits = head(h)
    loss = F.cross_entropy(logits, target.to(device), label_smoothing=0.1)
    probs = F.softmax(logits, dim=1)
    (loss + (probs * probs).sum()).backward()
    return [loss, probs, x.grad, conv.weight.grad, conv.bias.grad, norm.weight.grad,
            norm.bias.grad, head.weight.grad]


@pytest.mark.parametrize("dtype", FLOATS)
def test_conv_pool_norm_gelu_xent_net_forward_and_backward_on_cuda_match_cpu(dtype):
    used = ("im2col", "col2im", "max_pool_nd", "max_pool_nd_backward", "layer_norm",
            "layer_norm_backward", "gelu", "gelu_backward", "cross_entropy",
            "cross_entropy_backward", "softmax", "softmax_backward")
    with spy(*used) as calls:
        got = run_net("cuda", dtype)
    assert all(calls[name] for name in used if name != "col2im"), calls
    want = run_net("cpu", dtype)
    for g, w in zip(got, want):
        assert g.is_cuda
        np.testing.assert_allclose(host(g), host(w), rtol=tol(dtype)["rtol"] * 10,
                                   atol=tol(dtype)["atol"] * 10)


@pytest.mark.parametrize("causal,masked", [(False, False), (True, False), (False, True)])
def test_scaled_dot_product_attention_on_cuda_matches_cpu(causal, masked):
    rng = np.random.default_rng(7)
    q, k, v = (rng.standard_normal(s) for s in ((2, 3, 5, 8), (2, 3, 6, 8), (2, 3, 6, 4)))
    # an additive float mask (a bool one needs masked_fill, not a kernel of this family)
    mask = np.where(rng.random((5, 6)) > 0.3, rng.standard_normal((5, 6)), -np.inf) if masked else None

    def run(device):
        qq, kk, vv = (cygrad.tensor(a, dtype=cygrad.float64, device=device, requires_grad=True)
                      for a in (q, k, v))
        m = None if mask is None else cygrad.tensor(mask, dtype=cygrad.float64, device=device)
        out = F.scaled_dot_product_attention(qq, kk, vv, attn_mask=m, is_causal=causal)
        (out * out).sum().backward()
        return out, qq.grad, kk.grad, vv.grad
    with spy("attention_softmax", "softmax_backward") as calls:
        got = run("cuda")
    assert calls == {"attention_softmax": 1, "softmax_backward": 1}
    for g, w in zip(got, run("cpu")):
        np.testing.assert_allclose(host(g), host(w), rtol=1e-11, atol=1e-12)


def test_conv_family_and_pooling_on_cuda_match_cpu():
    rng = np.random.default_rng(8)
    x = rng.standard_normal((2, 4, 6, 6))
    w1, w3, wt = (rng.standard_normal(s) for s in ((4, 2, 3), (3, 4, 2, 2, 1), (4, 2, 3, 3)))

    def W(a, t):
        return cygrad.tensor(a, dtype=t.dtype, device=t.device)
    cases = [
        lambda t: F.conv1d(t.reshape(2, 4, 36), W(w1, t), padding=2, dilation=2, groups=2),
        lambda t: F.conv3d(t.reshape(2, 4, 6, 3, 2), W(w3, t), stride=(2, 1, 1)),
        lambda t: F.conv_transpose2d(t, W(wt, t), stride=2),
        lambda t: F.max_pool3d(t.reshape(2, 4, 6, 3, 2), 2, ceil_mode=True),
        lambda t: F.avg_pool2d(t, 3, stride=2, padding=1),
        lambda t: F.fold(F.unfold(t, 2, padding=1), (6, 6), 2, padding=1),
    ]
    for case in cases:
        res = []
        for d in ("cpu", "cuda"):
            t = cygrad.tensor(x, dtype=cygrad.float64, device=d, requires_grad=True)
            y = case(t)
            (y * y).sum().backward()
            res.append((host(y), host(t.grad)))
        for a, b in zip(*res):
            np.testing.assert_allclose(a, b, rtol=1e-11, atol=1e-11)


def test_realistic_sizes():
    """A transformer block's rows (64 x 512) and a small CNN layer (N=8, 16 -> 32 channels,
    16 x 16): forward and backward on CUDA against the CPU, float32."""
    rng = np.random.default_rng(9)
    a = rng.standard_normal((64, 512)).astype(np.float32)
    res = []
    for d in ("cpu", "cuda"):
        cygrad.manual_seed(1)
        norm = nn.LayerNorm(512).to(d)
        x = cygrad.tensor(a, device=d, requires_grad=True)
        y = F.gelu(norm(x))
        loss = F.cross_entropy(y, (cygrad.arange(64) * 7).to(d))
        loss.backward()
        res.append([host(loss), host(x.grad), host(norm.weight.grad)])
    for u, v in zip(*res):
        np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-6)
    img = rng.standard_normal((8, 16, 16, 16)).astype(np.float32)
    res = []
    for d in ("cpu", "cuda"):
        cygrad.manual_seed(2)
        conv = nn.Conv2d(16, 32, 3, padding=1).to(d)
        x = cygrad.tensor(img, device=d, requires_grad=True)
        y = nn.MaxPool2d(2)(conv(x))
        y.sum().backward()
        res.append([host(y), host(x.grad), host(conv.weight.grad)])
    for u, v in zip(*res):
        np.testing.assert_allclose(u, v, rtol=1e-4, atol=1e-4)


@pytest.mark.parametrize("reduction", ["mean", "sum", "none"])
def test_cross_entropy_reductions_and_spatial_targets_on_cuda_match_cpu(reduction):
    rng = np.random.default_rng(10)
    x = rng.standard_normal((3, 5, 4, 2))                # (N, C, d1, d2)
    t = rng.integers(0, 5, (3, 4, 2))
    t[0, 1, 1] = 2
    w = rng.random(5) + 0.5

    def run(device):
        xx = cygrad.tensor(x, dtype=cygrad.float64, device=device, requires_grad=True)
        loss = F.cross_entropy(xx, cygrad.tensor(t).to(device), cygrad.tensor(w).to(device),
                               ignore_index=2, reduction=reduction, label_smoothing=0.05)
        (loss * loss).sum().backward()
        return loss, xx.grad
    with spy("cross_entropy", "cross_entropy_backward") as calls:
        got = run("cuda")
    assert calls == {"cross_entropy": 1, "cross_entropy_backward": 1}
    for g, w_ in zip(got, run("cpu")):
        assert g.is_cuda
        np.testing.assert_allclose(host(g), host(w_), rtol=1e-12, atol=1e-13)


@pytest.mark.parametrize("dtype", FLOATS)
def test_linear_with_bias_on_the_device_matches_the_cpu(dtype):
    """``linear_bias`` (the product with the bias in its epilogue) through nn.Linear on 2-D and 3-D
    inputs, forward and backward, against the same layer on the CPU."""
    rng = np.random.default_rng(3)
    lin = nn.Linear(24, 40).to(dtype)
    x = cygrad.tensor(rng.standard_normal((2, 7, 24)), dtype=dtype)
    for inp in (x, x[0]):
        outs = []
        for dev in ("cpu", "cuda"):
            layer = nn.Linear(24, 40).to(dtype)
            layer.load_state_dict(lin.state_dict())
            layer = layer.to(dev)
            xi = inp.detach().to(dev).clone().requires_grad_()
            y = layer(xi)
            (y * y).sum().backward()
            outs.append([host(t) for t in (y, xi.grad, layer.weight.grad, layer.bias.grad)])
        tol = dict(rtol=1e-5, atol=1e-4) if dtype is cygrad.float32 else dict(rtol=1e-10, atol=1e-10)
        for got, want in zip(outs[1], outs[0]):
            np.testing.assert_allclose(got, want, **tol)
    cx = cygrad.zeros(3, 24, dtype=dtype, device="cuda")
    assert dispatch.kernel("linear_bias", "cuda")(cx, lin.weight.cuda(), lin.bias.cuda()).device.type == "cuda"
