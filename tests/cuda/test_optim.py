"""The fused optimizer steps on CUDA (cuda_src/optim.cu, cygrad/cuda/ops/optim.py) on the
emulated GPU in strict mode (or a real one: tests/cuda/family_driver.py): SGD
(momentum, Nesterov, dampening, weight decay, maximize), Adam (weight decay,
amsgrad, maximize) and AdamW steps of CUDA parameters against the same steps
of CPU parameters (the CPU fused kernel) and against a NumPy transcription of
PyTorch's update; which parameters the CUDA kernel takes
(``fused_optim_fusable``); and the errors of bad arguments.
"""
import contextlib
import os
import sys

import numpy as np
import pytest

import cygrad
import cygrad.optim as optim
from cygrad._core import dispatch
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from family_driver import family_driver  # noqa: E402

pytestmark = pytest.mark.skipif(signature.find_cxx() is None,
                                reason="the emulated CUDA driver needs a host C++ compiler")


@pytest.fixture(scope="module", autouse=True)
def driver():
    with family_driver() as d:
        cygrad.zeros(1, device="cuda")
        yield d


def host(t):
    return t.detach().cpu().numpy()


@contextlib.contextmanager
def counting(name):
    """Count the calls of the 'cuda' kernel ``name`` (restored afterwards)."""
    fn = dispatch._TABLE[(name, "cuda")]
    calls = []

    def wrapper(*a, **k):
        calls.append(len(a[0]))
        return fn(*a, **k)
    dispatch.register(name, "cuda")(wrapper)
    try:
        yield calls
    finally:
        dispatch.register(name, "cuda")(fn)


SHAPES = [(3, 4), (1000,), (2, 3, 5)]


def train(device, dtype, make, steps=4):
    """``steps`` steps of the optimizer ``make`` gives on three parameters whose
    gradients are fixed random tensors; the parameters and the state afterwards."""
    rng = np.random.default_rng(0)
    params = [cygrad.tensor(rng.standard_normal(s), dtype=dtype, device=device, requires_grad=True)
              for s in SHAPES]
    grads = [[rng.standard_normal(s) for s in SHAPES] for _ in range(steps)]
    opt = make(params)
    for gs in grads:
        for p, g in zip(params, gs):
            p.grad = cygrad.tensor(g, dtype=dtype, device=device)
        opt.step()
    return params, opt


OPTIMIZERS = {
    "sgd-momentum": lambda p: optim.SGD(p, lr=0.1, momentum=0.9),
    "sgd-nesterov-wd": lambda p: optim.SGD(p, lr=0.05, momentum=0.8, nesterov=True,
                                           weight_decay=0.01),
    "sgd-dampening-maximize": lambda p: optim.SGD(p, lr=0.1, momentum=0.9, dampening=0.3,
                                                  maximize=True),
    "sgd-plain": lambda p: optim.SGD(p, lr=0.2),
    "adam": lambda p: optim.Adam(p, lr=0.01),
    "adam-amsgrad-wd-maximize": lambda p: optim.Adam(p, lr=0.02, betas=(0.8, 0.9), amsgrad=True,
                                                     weight_decay=0.1, maximize=True),
    "adamw": lambda p: optim.AdamW(p, lr=0.01, weight_decay=0.1),
    "adamw-amsgrad-fused": lambda p: optim.AdamW(p, lr=0.01, amsgrad=True, fused=True),
}


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64])
@pytest.mark.parametrize("name", sorted(OPTIMIZERS))
def test_steps_on_cuda_match_cpu_steps(name, dtype):
    make = OPTIMIZERS[name]
    kernel = "fused_sgd_" if name.startswith("sgd") else "fused_adam_"
    with counting(kernel) as calls:
        got, opt_g = train("cuda", dtype, make)
    assert calls == [3] * 4                   # one fused call per step, for all three parameters
    want, opt_c = train("cpu", dtype, make)
    tol = dict(rtol=1e-6, atol=1e-7) if dtype is cygrad.float32 else dict(rtol=1e-14, atol=1e-15)
    for g, w in zip(got, want):
        assert g.is_cuda
        np.testing.assert_allclose(host(g), host(w), **tol)
        sg, sc = opt_g.state[g], opt_c.state[w]
        assert sorted(sg) == sorted(sc)
        for key in sg:
            if key == "step":
                assert sg[key].item() == sc[key].item() == 4
            else:
                assert sg[key].is_cuda
                np.testing.assert_allclose(host(sg[key]), host(sc[key]), **tol)


def test_adam_matches_numpy_transcription_of_pytorch():
    rng = np.random.default_rng(1)
    p0, gs = rng.standard_normal(50), [rng.standard_normal(50) for _ in range(3)]
    lr, b1, b2, eps, wd = 0.01, 0.9, 0.99, 1e-8, 0.05
    p = cygrad.tensor(p0, dtype=cygrad.float64, device="cuda", requires_grad=True)
    opt = optim.AdamW([p], lr=lr, betas=(b1, b2), eps=eps, weight_decay=wd)
    ref, m, v = p0.copy(), np.zeros(50), np.zeros(50)
    for t, g in enumerate(gs, 1):
        p.grad = cygrad.tensor(g, dtype=cygrad.float64, device="cuda")
        opt.step()
        ref *= 1 - lr * wd
        m = b1 * m + (1 - b1) * g
        v = b2 * v + (1 - b2) * g * g
        ref -= lr / (1 - b1 ** t) * m / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)
    np.testing.assert_allclose(host(p), ref, rtol=1e-13, atol=1e-15)


def test_sgd_momentum_matches_numpy():
    rng = np.random.default_rng(2)
    p0, gs = rng.standard_normal(20), [rng.standard_normal(20) for _ in range(3)]
    p = cygrad.tensor(p0, dtype=cygrad.float64, device="cuda", requires_grad=True)
    opt = optim.SGD([p], lr=0.1, momentum=0.9, nesterov=True)
    ref, buf = p0.copy(), None
    for g in gs:
        p.grad = cygrad.tensor(g, dtype=cygrad.float64, device="cuda")
        opt.step()
        buf = g.copy() if buf is None else 0.9 * buf + g
        ref -= 0.1 * (g + 0.9 * buf)
    np.testing.assert_allclose(host(p), ref, rtol=1e-14, atol=1e-15)


def test_a_group_mixing_cpu_and_cuda_parameters_uses_each_devices_kernel():
    a = cygrad.tensor([1.0, 2.0], requires_grad=True)
    b = cygrad.tensor([1.0, 2.0], device="cuda", requires_grad=True)
    opt = optim.SGD([a, b], lr=0.5, momentum=0.5)
    with counting("fused_sgd_") as calls:
        for _ in range(2):
            a.grad = cygrad.tensor([1.0, -1.0])
            b.grad = cygrad.tensor([1.0, -1.0], device="cuda")
            opt.step()
    assert calls == [1, 1]                    # the CUDA kernel got only b
    np.testing.assert_array_equal(host(b), host(a))
    np.testing.assert_allclose(host(a), [1.0 - 0.5 - 0.75, 2.0 + 0.5 + 0.75])


def test_fusable_on_cuda():
    fusable = dispatch.kernel("fused_optim_fusable", "cuda")
    p = cygrad.zeros(2, 3, device="cuda")
    assert fusable(p, cygrad.ones(2, 3, device="cuda"), cygrad.ones(2, 3, device="cuda"))
    assert not fusable(p, cygrad.ones(2, 3))                                 # CPU gradient
    assert not fusable(p, cygrad.ones(3, 2, device="cuda").t())              # not contiguous
    assert not fusable(p, cygrad.ones(2, 3, device="cuda", dtype=cygrad.float64))
    assert not fusable(p, cygrad.ones(6, device="cuda"))                     # other shape
    assert not fusable(cygrad.zeros(2, 3), cygrad.ones(2, 3))                # a CPU parameter
    h = cygrad.zeros(2, dtype=cygrad.float16).cuda()
    assert not fusable(h, h)
    assert not fusable(p, None)


def test_steps_on_the_device_and_bad_arguments():
    adam = dispatch.kernel("fused_adam_", "cuda")
    sgd = dispatch.kernel("fused_sgd_", "cuda")
    p, g = cygrad.tensor([1.0], device="cuda"), cygrad.tensor([4.0], device="cuda")
    m, v, step = cygrad.zeros(1, device="cuda"), cygrad.zeros(1, device="cuda"), \
        cygrad.zeros((), device="cuda")
    version = p._version
    adam([p], [g], [m], [v], [None], [step], 0.1, 0.9, 0.999, 1e-8, 0.0, False, False, False)
    assert step.is_cuda and step.item() == 1.0
    assert round(p.item(), 4) == 0.9 and p._version > version     # (the first step moves by lr)
    with pytest.raises(RuntimeError, match="gradient"):
        sgd([p], [cygrad.tensor([1.0])], [None], [False], 0.1, 0.0, 0.0, 0.0, False, False)
    with pytest.raises(RuntimeError, match="parameter"):
        sgd([cygrad.tensor([1.0])], [g], [None], [False], 0.1, 0.0, 0.0, 0.0, False, False)
    with pytest.raises(RuntimeError, match="momentum buffer"):
        sgd([p], [g], [None], [True], 0.1, 0.0, 0.9, 0.0, False, False)
    with pytest.raises(ValueError, match="differ in length"):
        sgd([p], [g, g], [None], [False], 0.1, 0.0, 0.0, 0.0, False, False)
    with pytest.raises(RuntimeError, match="step"):
        adam([p], [g], [m], [v], [None], [cygrad.zeros(2)], 0.1, 0.9, 0.999, 1e-8, 0.0, False,
             False, False)
