"""The 'cuda' kernels of cygrad/cuda/ops/rnn.py on the emulated GPU (strict mode): the
recurrent step kernels of cuda_src/rnn.cu against the CPU kernels of the same
primitives and NumPy, the nn layers' forward and backward on the device against the
CPU, ``mm_small`` and ``einsum`` against NumPy, and the argument checks.
"""
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.nn as nn
from cygrad._core import dispatch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from emulated_gpu import emulated, needs_cxx  # noqa: E402,F401  (the fixture)

pytestmark = needs_cxx

DTYPES = [cygrad.float32, cygrad.float64]


def host(t):
    return t.detach().cpu().numpy()


def _tol(dtype):
    return dict(rtol=1e-5, atol=1e-6) if dtype is cygrad.float32 else dict(rtol=1e-12, atol=1e-13)


def _rand(rng, shape, dtype):
    return cygrad.tensor(rng.standard_normal(shape), dtype=dtype)


# ---- the step kernels against the CPU kernels of the same primitives ----------------

# name: (widths of the arguments in units of H (None: an optional input), output positions)
STEPS = {
    "lstm_step": ((4, 4, 1, 4, 1, 1, 1), (3, 4, 5, 6)),
    "lstm_step_backward": ((None, None, 1, 4, 1, 1, 4), (2, 6)),
    "gru_step": ((3, 3, 1, 3, 1, 1), (3, 4, 5)),
    "gru_step_backward": ((None, None, 3, 1, 1, 3, 3, 1), (5, 6, 7)),
    "elman_step": ((1, 1, 1), (2,)),
    "elman_step_backward": ((None, None, 1, 1), (3,)),
}


def _step_args(name, n, hs, dtype, rng, present):
    widths, outs = STEPS[name]
    args = []
    for i, w in enumerate(widths):
        if w is None and not present:
            args.append(None)
        elif i in outs:
            args.append(cygrad.full((n, (w or 1) * hs), 7.0, dtype=dtype))
        else:
            x = rng.standard_normal((n, (w or 1) * hs))
            if name.endswith("backward") and i == widths.index(3 if "gru" in name else
                                                               (4 if "lstm" in name else 1)):
                x = 1 / (1 + np.exp(-x))      # activations lie in (0, 1)
            args.append(cygrad.tensor(x, dtype=dtype))
    if name.startswith("lstm_step_backward"):
        args[2] = _rand(rng, (n, hs), dtype)            # dc is read and written
    return args


# relu: the Elman steps' flag; present: whether the backward steps' optional inputs are given
CASES = [(name, relu, present) for name in sorted(STEPS)
         for relu in ((False, True) if name.startswith("elman") else (False,))
         for present in ((True, False) if name.endswith("backward") else (True,))]


@pytest.mark.parametrize("dtype", DTYPES)
@pytest.mark.parametrize("name,relu,present", CASES)
def test_step_kernel_matches_cpu_kernel(name, dtype, relu, present):
    rng = np.random.default_rng(abs(hash((name, relu, present))) % 2**32)
    n, hs = 3, 37              # n * hs = 111: not a multiple of the block
    cpu_args = _step_args(name, n, hs, dtype, rng, present)
    gpu_args = [None if a is None else a.cuda() for a in cpu_args]
    extra = (relu,) if name.startswith("elman") else ()
    want = dispatch.kernel(name, "cpu")(*cpu_args, *extra)
    got = dispatch.kernel(name, "cuda")(*gpu_args, *extra)
    assert got.is_cuda
    np.testing.assert_allclose(host(got), want.numpy(), **_tol(dtype))
    for i in STEPS[name][1] + ((2,) if name == "lstm_step_backward" else ()):
        np.testing.assert_allclose(host(gpu_args[i]), cpu_args[i].numpy(), **_tol(dtype))


def test_lstm_step_against_numpy():
    rng = np.random.default_rng(0)
    n, hs = 2, 5
    gh, gx, cp = (rng.standard_normal(s) for s in ((n, 4 * hs), (n, 4 * hs), (n, hs)))
    t = [cygrad.tensor(v).cuda() for v in (gh, gx, cp)]
    a, c, tc, h = (cygrad.empty(n, w * hs, dtype=cygrad.float64, device="cuda")
                   for w in (4, 1, 1, 1))
    dispatch.kernel("lstm_step", "cuda")(*t, a, c, tc, h)
    pre = gh + gx
    sig = 1 / (1 + np.exp(-pre))
    i, f, g, o = sig[:, :hs], sig[:, hs:2 * hs], np.tanh(pre[:, 2 * hs:3 * hs]), sig[:, 3 * hs:]
    cv = f * cp + i * g
    np.testing.assert_allclose(host(c), cv, rtol=1e-12)
    np.testing.assert_allclose(host(h), o * np.tanh(cv), rtol=1e-12)


def test_step_checks_raise_like_the_cpu_kernel():
    lstm = dispatch.kernel("lstm_step", "cuda")
    mk = lambda *s, **kw: cygrad.zeros(*s, device="cuda", **kw)   # noqa: E731
    with pytest.raises(RuntimeError, match="expected an"):
        lstm(mk(2, 5), mk(2, 5), mk(2, 1), mk(2, 4), mk(2, 1), mk(2, 1), mk(2, 1))
    with pytest.raises(RuntimeError, match="expected shape"):
        lstm(mk(2, 4), mk(2, 4), mk(3, 1), mk(2, 4), mk(2, 1), mk(2, 1), mk(2, 1))
    with pytest.raises(RuntimeError, match="contiguous"):
        lstm(mk(2, 4), mk(4, 2).t(), mk(2, 1), mk(2, 4), mk(2, 1), mk(2, 1), mk(2, 1))
    shared = mk(2, 1)
    with pytest.raises(RuntimeError, match="overlaps"):
        lstm(mk(2, 4), mk(2, 4), shared, mk(2, 4), shared, mk(2, 1), mk(2, 1))
    with pytest.raises(RuntimeError, match="float32"):
        lstm(mk(2, 4), mk(2, 4, dtype=cygrad.float64), mk(2, 1), mk(2, 4), mk(2, 1), mk(2, 1),
             mk(2, 1))
    with pytest.raises(RuntimeError, match="CUDA tensors"):
        lstm(cygrad.zeros(2, 4), mk(2, 4), mk(2, 1), mk(2, 4), mk(2, 1), mk(2, 1), mk(2, 1))
    with pytest.raises(NotImplementedError, match="'elman_step'.*int64.*cuda"):
        dispatch.kernel("elman_step", "cuda")(mk(2, 3, dtype=cygrad.int64),
                                               mk(2, 3, dtype=cygrad.int64),
                                               mk(2, 3, dtype=cygrad.int64), False)
    # other dtypes take the layers' composition of ops (as on the CPU)
    assert dispatch.lookup("gru_step", cygrad.device("cuda"), cygrad.float16) is None


# ---- the layers on the device ---------------------------------------------------------

def _run_layer(cls, device, kwargs, x, h0):
    cygrad.manual_seed(1)
    m = cls(x.shape[-1], h0.shape[-1], dtype=x.dtype, **kwargs).to(device)
    xd = x.to(device).requires_grad_()
    hd = h0.to(device).requires_grad_()
    state = (hd, (hd * 0.5).detach()) if cls is nn.LSTM else hd
    out, hn = m(xd, state)
    hn = hn[0] if cls is nn.LSTM else hn
    ((out * out).sum() + hn.sum()).backward()
    return out, xd.grad, hd.grad, [p.grad for p in m.parameters()]


@pytest.mark.parametrize("cls,kwargs", [
    (nn.LSTM, {}), (nn.GRU, {}), (nn.RNN, {}), (nn.RNN, {"nonlinearity": "relu"}),
    (nn.GRU, {"bias": False})])
@pytest.mark.parametrize("dtype", DTYPES)
def test_layer_forward_backward_on_cuda_matches_cpu(cls, kwargs, dtype):
    rng = np.random.default_rng(2)
    x, h0 = _rand(rng, (4, 3, 5), dtype), _rand(rng, (1, 3, 6), dtype)
    got = _run_layer(cls, "cuda", kwargs, x, h0)
    want = _run_layer(cls, "cpu", kwargs, x, h0)
    tol = dict(rtol=1e-4, atol=1e-5) if dtype is cygrad.float32 else dict(rtol=1e-10, atol=1e-12)
    assert got[0].is_cuda and all(g.is_cuda for g in got[3])
    assert type(got[0].grad_fn).__name__ in ("LSTMLayerBackward", "GRULayerBackward",
                                             "RNNLayerBackward")
    for g, w in zip((got[0], got[1], got[2], *got[3]), (want[0], want[1], want[2], *want[3])):
        np.testing.assert_allclose(host(g), w.detach().numpy(), **tol)


def test_realistic_lstm_on_cuda_matches_cpu():
    rng = np.random.default_rng(3)
    x = _rand(rng, (12, 8, 32), cygrad.float32)
    h0 = _rand(rng, (1, 8, 48), cygrad.float32)
    got = _run_layer(nn.LSTM, "cuda", {}, x, h0)
    want = _run_layer(nn.LSTM, "cpu", {}, x, h0)
    for g, w in zip((got[0], got[1], *got[3]), (want[0], want[1], *want[3])):
        np.testing.assert_allclose(host(g), w.detach().numpy(), rtol=2e-4, atol=2e-4)


# ---- mm_small and einsum -----------------------------------------------------------------

@pytest.mark.parametrize("dtype", DTYPES)
def test_mm_small(dtype):
    rng = np.random.default_rng(5)
    a, b = rng.standard_normal((5, 7)), rng.standard_normal((7, 3))
    fn = dispatch.kernel("mm_small", "cuda")
    got = fn(cygrad.tensor(a, dtype=dtype).cuda(), cygrad.tensor(b, dtype=dtype).cuda())
    assert got.is_cuda and got.dtype is dtype
    np.testing.assert_allclose(host(got), a @ b, **_tol(dtype))
    assert fn(cygrad.ones(2, 3, device="cuda").t(), cygrad.ones(2, 3, device="cuda")) is None
    assert fn(cygrad.ones(2, 3, device="cuda", dtype=cygrad.int64),
              cygrad.ones(3, 2, device="cuda", dtype=cygrad.int64)) is None
    assert host(fn(cygrad.ones(2, 0, device="cuda"), cygrad.ones(0, 3, device="cuda"))).tolist() \
        == [[0.0] * 3] * 2


EINSUMS = [
    ("ij,jk->ik", [(3, 4), (4, 5)]),
    ("bij,bjk->bik", [(2, 3, 4), (2, 4, 5)]),
    ("ij->ji", [(3, 4)]),
    ("ii->i", [(4, 4)]),
    ("ij->", [(3, 4)]),
    ("i,j->ij", [(3,), (4,)]),
    ("ijk,kl,lm->im", [(2, 3, 4), (4, 5), (5, 2)]),
    ("bhqd,bhkd->bhqk", [(2, 2, 3, 4), (2, 2, 5, 4)]),
    ("ij,ij->i", [(3, 4), (3, 4)]),
    ("...ij,...jk", [(2, 3, 4), (4, 5)]),
    ("ij,kj,k->i", [(3, 4), (2, 4), (2,)]),
    ("ij,j->ij", [(3, 1), (4,)]),
]


@pytest.mark.parametrize("eq,shapes", EINSUMS)
@pytest.mark.parametrize("dtype", DTYPES)
def test_einsum_on_cuda_against_numpy_and_its_gradient(eq, shapes, dtype):
    rng = np.random.default_rng(6)
    arrays = [rng.standard_normal(s) for s in shapes]
    cpu = [cygrad.tensor(a, dtype=dtype, requires_grad=True) for a in arrays]
    gpu = [cygrad.tensor(a, dtype=dtype).cuda().requires_grad_() for a in arrays]
    got = cygrad.einsum(eq, *gpu)
    want = cygrad.einsum(eq, *cpu)
    assert got.is_cuda and got.dtype is dtype
    np.testing.assert_allclose(host(got), np.einsum(eq, *arrays), **_tol(dtype))
    (got * got).sum().backward()
    (want * want).sum().backward()
    for g, c in zip(gpu, cpu):
        np.testing.assert_allclose(host(g.grad), c.grad.numpy(), **_tol(dtype))


def test_einsum_half_and_integer():
    a = cygrad.tensor([[1.0, 2.0], [3.0, 4.0]], dtype=cygrad.float16)
    got = cygrad.einsum("ij,jk->ik", a.cuda(), a.cuda())
    assert got.is_cuda and got.dtype is cygrad.float16
    assert host(got).tolist() == [[7.0, 10.0], [15.0, 22.0]]
    i = cygrad.tensor([[1, 2], [3, 4]], device="cuda")
    with pytest.raises(NotImplementedError, match="'einsum'.*int64.*cuda"):
        cygrad.einsum("ij,jk->ik", i, i)
