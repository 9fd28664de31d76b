"""Fewer launches per training step (docs/cuda.md, "Host cost per op"): batched
products read size-1 and broadcast batch dims in place, sums over non-leading
dims read their input through its strides, gradients made by a reduction become
a leaf's ``.grad`` without a copy, ``Linear``'s bias gradient is one
reduction, max pooling's indices get no zero gradient, and zeroed outputs are
the driver's memsets. Each case checks the kernels launched and the values against the
same computation on CPU tensors.
"""
import os
import sys

import numpy as np
import pytest

import cygrad

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)
from .test_host_path import _launched  # noqa: E402

pytestmark = needs_cxx


@pytest.fixture
def launched(emulated, monkeypatch):
    """The names of the kernels the emulated driver launches from now on."""
    return _launched(emulated, monkeypatch)


def _copies(names):
    return [n for n in names if n.startswith(("cg_copy", "cg_cast"))]


def _rand(rng, *shape, dtype=np.float64):
    return rng.standard_normal(shape).astype(dtype)


# ---- batched products: one launch, operands read in place

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("a_shape,b_shape", [
    ((1, 4, 3), (5, 1, 3, 6)),          # conv's forward: weight broadcast, a size-1 group dim
    ((5, 1, 4, 3), (5, 1, 3, 6)),
    ((2, 3, 4, 3), (3, 6)),             # two dense batch dims and a broadcast matrix
    ((2, 1, 4, 3), (1, 3, 3, 6)),       # broadcast on both sides: no single step, copies
])
def test_batched_matmul_reads_foldable_batch_dims_in_place(launched, dtype, a_shape, b_shape):
    rng = np.random.default_rng(0)
    a, b = _rand(rng, *a_shape, dtype=dtype), _rand(rng, *b_shape, dtype=dtype)
    ca, cb = cygrad.tensor(a, device="cuda"), cygrad.tensor(b, device="cuda")
    del launched[:]
    got = (ca @ cb).cpu().numpy()
    ref = (cygrad.tensor(a) @ cygrad.tensor(b)).numpy()
    np.testing.assert_allclose(got, ref, rtol=1e-5 if dtype == np.float32 else 1e-12, atol=1e-5)
    np.testing.assert_allclose(got, np.matmul(a, b), rtol=1e-4, atol=1e-4)
    foldable = a_shape != (2, 1, 4, 3)
    assert launched.count("cg_matmul_" + ("f32" if dtype == np.float32 else "f64")) == 1
    assert bool(_copies(launched)) is not foldable, launched


def test_batched_matmul_of_transposed_batches(launched):
    rng = np.random.default_rng(1)
    a = _rand(rng, 3, 2, 4, 5)
    b = _rand(rng, 2, 3, 5, 4)
    ca = cygrad.tensor(a, device="cuda")
    cb = cygrad.tensor(b, device="cuda").transpose(0, 1)       # batch dims out of order
    del launched[:]
    got = (ca @ cb).cpu().numpy()
    np.testing.assert_allclose(got, np.matmul(a, b.transpose(1, 0, 2, 3)), rtol=1e-12)
    assert _copies(launched)        # (3, 2) batches of b have no single step: made dense first


# ---- sums through strides, results as fresh tensors

@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("shape,dims", [
    ((6, 5, 4), (0,)), ((6, 5, 4), (0, 2)), ((3, 4), (0,)), ((7, 2, 3, 3), (0, 2, 3)),
    ((6, 5, 4), (2,)), ((6, 5, 4), None),
])
def test_sums_read_their_input_in_place(launched, dtype, shape, dims):
    rng = np.random.default_rng(2)
    x = _rand(rng, *shape, dtype=dtype)
    cx = cygrad.tensor(x, device="cuda")
    del launched[:]
    res = cx.sum() if dims is None else cx.sum(list(dims))
    assert not _copies(launched), launched
    assert res._base is None and res.is_contiguous()
    ref = x.sum() if dims is None else x.sum(axis=dims)
    tol = 1e-5 if dtype == np.float32 else 1e-12
    np.testing.assert_allclose(res.cpu().numpy(), ref, rtol=tol, atol=tol)
    keep = cx.sum(list(dims or range(len(shape))), keepdim=True)
    assert tuple(keep.shape) == np.sum(x, axis=dims, keepdims=True).shape


def test_a_sum_of_a_transposed_input(launched):
    rng = np.random.default_rng(3)
    x = _rand(rng, 40, 300)
    cx = cygrad.tensor(x, device="cuda").t()         # (300, 40), row r strided by 1
    del launched[:]
    np.testing.assert_allclose(cx.sum(1).cpu().numpy(), x.sum(0), rtol=1e-12)
    np.testing.assert_allclose(cx.sum(0).cpu().numpy(), x.sum(1), rtol=1e-12)
    assert not _copies(launched), launched


# ---- training steps: the parameters' gradients kept without copies

def _step(device, params, model, x, y):
    model.zero_grad()
    loss = cygrad.nn.functional.cross_entropy(model(x.to(device)), y.to(device))
    loss.backward()
    return [p.grad.cpu().numpy() for p in params]


def test_conv_and_linear_gradients_launch_no_copies(launched):
    nn = cygrad.nn
    cygrad.manual_seed(0)
    model = nn.Sequential(nn.Conv2d(2, 4, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                          nn.Conv2d(4, 3, 3), nn.Flatten(), nn.Linear(3 * 2 * 2, 5))
    rng = np.random.default_rng(4)
    x = cygrad.tensor(_rand(rng, 6, 2, 8, 8))
    y = cygrad.tensor(rng.integers(0, 5, size=6))
    model.double()
    ref = _step("cpu", list(model.parameters()), model, x, y)
    model.to("cuda")
    _step("cuda", list(model.parameters()), model, x, y)       # (plans and caches made)
    del launched[:]
    got = _step("cuda", list(model.parameters()), model, x, y)
    assert not _copies(launched), launched
    # one fill: the loss's seed gradient; the pooling indices get no zeros, and the
    # pooling and cross-entropy kernels' zeroed outputs and flags are memsets
    assert [n for n in launched if n.startswith("cg_fill")] == ["cg_fill_f64_strided"], launched
    for g, r in zip(got, ref):
        np.testing.assert_allclose(g, r, rtol=1e-10, atol=1e-12)


def test_linear_bias_gradient_is_one_reduction(launched):
    rng = np.random.default_rng(5)
    w = _rand(rng, 7, 3)
    b = _rand(rng, 7)
    x = _rand(rng, 9, 3)
    g = _rand(rng, 9, 7)
    grads = []
    for device in ("cpu", "cuda"):
        cw = cygrad.tensor(w, device=device, requires_grad=True)
        cb = cygrad.tensor(b, device=device, requires_grad=True)
        out = cygrad.nn.functional.linear(cygrad.tensor(x, device=device), cw, cb)
        del launched[:]
        out.backward(cygrad.tensor(g, device=device))
        grads.append((cw.grad.cpu().numpy(), cb.grad.cpu().numpy()))
    assert not [n for n in launched if n.startswith(("cg_fill", "cg_copy"))], launched
    np.testing.assert_allclose(grads[1][1], g.sum(0), rtol=1e-12)
    np.testing.assert_allclose(grads[1][0], grads[0][0], rtol=1e-12)
    np.testing.assert_allclose(grads[1][1], grads[0][1], rtol=1e-12)


def test_zero_fill_is_a_memset_on_the_current_stream(emulated, launched, monkeypatch):
    from cygrad.cuda import kernels
    seen = []
    original = emulated.memset_d8

    def recorded(ptr, value, nbytes, stream=None):
        seen.append((value, nbytes, stream))
        return original(ptr, value, nbytes, stream)
    monkeypatch.setattr(emulated, "memset_d8", recorded)
    junk = cygrad.full((5, 3), 7.0, dtype=cygrad.float64, device="cuda")
    del junk                        # (the next block of this size may hold the 7s)
    del launched[:]
    s = cygrad.cuda.Stream()
    with cygrad.cuda.stream(s):
        t = kernels.zero_fill(cygrad.empty((5, 3), dtype=cygrad.float64, device="cuda"))
    np.testing.assert_array_equal(t.cpu().numpy(), np.zeros((5, 3)))
    assert seen == [(0, 5 * 3 * 8, s.handle)]
    assert not [n for n in launched if n.startswith("cg_fill")], launched
    i = kernels.zero_fill(cygrad.empty(4, dtype=cygrad.int32, device="cuda"))
    assert i.cpu().tolist() == [0, 0, 0, 0]
    assert kernels.zero_fill(cygrad.empty(0, device="cuda")).numel() == 0 and len(seen) == 2


# ---- the fused optimizer steps: several parameters per launch

def _state(rng, shapes, dtypes, device):
    return [cygrad.tensor(rng.standard_normal(s), dtype=dt, device=device)
            for s, dt in zip(shapes, dtypes)]


SHAPES = [(3, 4), (1000,), (0,), (2, 3, 5), (7,), (1,), (300,), (4, 4), (5,), (2, 2), (9,)]
DTYPES = [cygrad.float32 if i % 3 else cygrad.float64 for i in range(len(SHAPES))]


def _copies_of(ts, device):
    return [None if t is None else t.to(device, copy=True) for t in ts]


@pytest.mark.parametrize("amsgrad,decoupled", [(False, False), (True, True)])
def test_adam_steps_several_parameters_per_launch(launched, amsgrad, decoupled):
    rng = np.random.default_rng(6)
    ps, gs, ms = (_state(rng, SHAPES, DTYPES, "cpu") for _ in range(3))
    vs = [v.abs() for v in _state(rng, SHAPES, DTYPES, "cpu")]
    xs = [v * 2 for v in vs] if amsgrad else [None] * len(SHAPES)
    # each parameter its own step count: its own bias corrections
    steps = [cygrad.tensor(float(i % 4), dtype=cygrad.float32) for i in range(len(SHAPES))]
    args = (1e-2, 0.9, 0.99, 1e-8, 0.1, amsgrad, True, decoupled)
    state = {dev: [_copies_of(ts, dev) for ts in (ps, gs, ms, vs, xs)] +
             [[s.clone() for s in steps]] for dev in ("cpu", "cuda")}
    for dev in ("cpu", "cuda"):
        del launched[:]
        cygrad._core.dispatch.kernel("fused_adam_", dev)(*state[dev], *args)
    # float32 and float64 parameters (one launch each): 7 and 3 nonempty, at most 8 a launch
    assert sorted(launched) == ["cg_adam_multi_f32", "cg_adam_multi_f64"], launched
    for got, want in zip(state["cuda"][:5], state["cpu"][:5]):
        for g, w in zip(got, want):
            if w is not None:
                tol = 1e-6 if w.dtype is cygrad.float32 else 1e-14
                np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=tol, atol=tol)
    assert [s.item() for s in state["cuda"][5]] == [s.item() for s in state["cpu"][5]]


@pytest.mark.parametrize("momentum,nesterov", [(0.0, False), (0.9, True)])
def test_sgd_steps_several_parameters_per_launch(launched, momentum, nesterov):
    rng = np.random.default_rng(7)
    shapes = SHAPES + [(3,)] * 8                    # 18 float32 params: runs of 8, 8 and 2
    dtypes = [cygrad.float32] * len(shapes)
    ps, gs, bs = (_state(rng, shapes, dtypes, "cpu") for _ in range(3))
    first = [i % 2 == 0 for i in range(len(shapes))]
    args = (0.1, 0.01, momentum, 0.2, nesterov, False)
    state = {dev: [_copies_of(ts, dev) for ts in (ps, gs, bs)] for dev in ("cpu", "cuda")}
    for dev in ("cpu", "cuda"):
        del launched[:]
        cygrad._core.dispatch.kernel("fused_sgd_", dev)(*state[dev], first, *args)
    assert launched == ["cg_sgd_multi_f32"] * 3, launched
    for got, want in zip(state["cuda"], state["cpu"]):
        for g, w in zip(got, want):
            np.testing.assert_allclose(g.cpu().numpy(), w.numpy(), rtol=1e-6, atol=1e-6)


def test_a_parameter_named_twice_is_updated_twice_in_order(launched):
    p = cygrad.tensor([1.0, 2.0, 3.0], dtype=cygrad.float64)
    g = cygrad.tensor([0.5, -1.0, 2.0], dtype=cygrad.float64)
    b = cygrad.zeros(3, dtype=cygrad.float64)
    res = {}
    for dev in ("cpu", "cuda"):
        pd, gd, bd = p.to(dev, copy=True), g.to(dev, copy=True), b.to(dev, copy=True)
        del launched[:]
        cygrad._core.dispatch.kernel("fused_sgd_", dev)([pd, pd], [gd, gd], [bd, bd],
                                                        [True, False], 0.1, 0.0, 0.9, 0.0,
                                                        False, False)
        res[dev] = (pd.cpu().numpy(), bd.cpu().numpy())
    assert launched == ["cg_sgd_f64"] * 2, launched       # one after the other, not one launch
    np.testing.assert_allclose(res["cuda"][0], res["cpu"][0], rtol=1e-14)
    np.testing.assert_allclose(res["cuda"][1], res["cpu"][1], rtol=1e-14)


# ---- reads to the host: straight into the host tensor's memory where layouts agree

@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int64, np.int32, np.bool_])
def test_reads_to_the_host(dtype):
    rng = np.random.default_rng(8)
    x = (rng.standard_normal((5, 7)) * 10).astype(dtype)
    cx = cygrad.tensor(x, device="cuda")
    np.testing.assert_array_equal(cx.cpu().numpy(), x)                 # dense: one copy
    np.testing.assert_array_equal(cx.t().cpu().numpy(), x.T)           # strided: the general way
    np.testing.assert_array_equal(cx[1:3, 2].cpu().numpy(), x[1:3, 2])
    assert cx[2, 3].item() == x[2, 3].item()
    assert cx[:0].cpu().numpy().shape == (0, 7)
    host = cygrad.zeros((5, 7), dtype=cygrad.float64)
    host.copy_(cx)                                                     # with a cast
    np.testing.assert_array_equal(host.numpy(), x.astype(np.float64))


def test_sub_negates_only_for_an_operand_that_wants_a_gradient(launched):
    rng = np.random.default_rng(9)
    x, y = _rand(rng, 4, 3), _rand(rng, 4, 3)
    for x_grad, y_grad in [(True, False), (False, True), (True, True)]:
        cx = cygrad.tensor(x, device="cuda", requires_grad=x_grad)
        cy = cygrad.tensor(y, device="cuda", requires_grad=y_grad)
        loss = cygrad.nn.functional.mse_loss(cx, cy)
        del launched[:]
        loss.backward()
        assert launched.count("cg_neg_f64_strided") == int(y_grad), launched
        d = 2 * (x - y) / x.size
        if x_grad:
            np.testing.assert_allclose(cx.grad.cpu().numpy(), d, rtol=1e-12)
        if y_grad:
            np.testing.assert_allclose(cy.grad.cpu().numpy(), -d, rtol=1e-12)


def test_window_geometries_are_kept_and_bad_ones_refused_every_time():
    from cygrad.cuda.ops import nn as cnn
    x = cygrad.arange(2 * 3 * 5 * 5, dtype=cygrad.float64, device="cuda").reshape(2, 3, 5, 5)
    ref = cygrad.arange(2 * 3 * 5 * 5, dtype=cygrad.float64).reshape(2, 3, 5, 5)
    cnn._windows.clear()
    for _ in range(2):
        got = cnn.im2col(x, (2, 2), (1, 1), (0, 0), (1, 1), (4, 4))
        want = cygrad.nn.functional.unfold(ref, 2)
        np.testing.assert_array_equal(got.cpu().numpy(), want.numpy())
    assert len(cnn._windows) == 1
    # the transposed input: other strides, another geometry
    got = cnn.im2col(x.transpose(2, 3), (2, 2), (1, 1), (0, 0), (1, 1), (4, 4))
    np.testing.assert_array_equal(got.cpu().numpy(),
                                  cygrad.nn.functional.unfold(ref.transpose(2, 3), 2).numpy())
    assert len(cnn._windows) == 2
    for _ in range(2):
        with pytest.raises(RuntimeError, match="kernel must be 2 values of at least 1"):
            cnn.im2col(x, (0, 2), (1, 1), (0, 0), (1, 1), (4, 4))
    assert len(cnn._windows) == 2
