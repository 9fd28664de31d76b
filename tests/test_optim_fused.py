"""The fused SGD / Adam / AdamW steps (``cygrad/_core/cpu/optim.c``, the default for
float32/float64 contiguous CPU parameters) against PyTorch's for-loop, a NumPy
re-implementation of the update rules, and cygrad's own for-loop
(``foreach=False``); version counters, PyTorch's errors for ``fused=True``, and
state dicts both ways."""
import copy

import numpy as np
import pytest

import cygrad
from cygrad._core import optim_kernels

SHAPES = [(4, 3), (5,), (2, 3, 2)]
STEPS = 20

CONFIGS = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1, weight_decay=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.05)),
    ("Adam", dict(lr=0.05, betas=(0.8, 0.9), amsgrad=True, weight_decay=0.05)),
    ("Adam", dict(lr=0.05, maximize=True, eps=1e-3, betas=(0.3, 0.99))),  # lerp's other side
    ("AdamW", dict(lr=0.05, weight_decay=0.1)),
    ("AdamW", dict(lr=0.05, weight_decay=0.1, amsgrad=True)),
]
TOL = {"float32": dict(rtol=2e-5, atol=2e-6), "float64": dict(rtol=1e-11, atol=1e-13)}


def _cid(cfg):
    return cfg[0] + "-" + "-".join(f"{k}={v}" for k, v in cfg[1].items())


def _inits(seed=0):
    rng = np.random.default_rng(seed)
    return [rng.standard_normal(s) for s in SHAPES], [rng.standard_normal(s) for s in SHAPES]


def _loss(ps, targets):
    # a sum of shifted quartic bowls: gradients change with the parameters each step
    total = 0
    for p, t in zip(ps, targets):
        d = p - t
        total = total + (d * d).sum() + 0.1 * (d * d * d * d).sum()
    return total


def _trajectory(lib, name, kw, dtype, steps=STEPS, seed=0, state_from=None):
    x0, t0 = _inits(seed)
    dt = getattr(lib, dtype)
    ps = [lib.tensor(x, dtype=dt, requires_grad=True) for x in x0]
    targets = [lib.tensor(t, dtype=dt) for t in t0]
    opt = getattr(lib.optim, name)(ps, **kw)
    sign = -1 if kw.get("maximize") else 1      # maximize climbs -loss: bounded as well
    out = []
    for _ in range(steps):
        opt.zero_grad()
        (sign * _loss(ps, targets)).backward()
        opt.step()
        out.append(np.concatenate([np.array(p.detach().tolist()).ravel() for p in ps]))
    return np.array(out), opt, ps


def numpy_steps(name, kw, dtype, steps=STEPS, seed=0):
    """The update rules written out in NumPy, in the parameters' dtype."""
    x0, t0 = _inits(seed)
    dt = np.dtype(dtype)
    xs = [x.astype(dt) for x in x0]
    ts = [t.astype(dt) for t in t0]
    lr, wd = kw["lr"], kw.get("weight_decay", 0.0)
    states = [{} for _ in xs]
    out = []
    for step in range(1, steps + 1):
        for i, (x, t) in enumerate(zip(xs, ts)):
            d = x - t
            g = 2 * d + dt.type(0.4) * d * d * d     # maximize: of -loss, negated back
            s = states[i]
            if name == "SGD":
                mom, damp = kw.get("momentum", 0.0), kw.get("dampening", 0.0)
                g = g + dt.type(wd) * x
                if mom:
                    s["b"] = g.copy() if step == 1 else dt.type(mom) * s["b"] + dt.type(1 - damp) * g
                    g = g + dt.type(mom) * s["b"] if kw.get("nesterov") else s["b"]
                xs[i] = x - dt.type(lr) * g
            else:
                b1, b2 = kw.get("betas", (0.9, 0.999))
                if name == "AdamW":
                    x = x * dt.type(1 - lr * wd)
                else:
                    g = g + dt.type(wd) * x
                s["m"] = dt.type(b1) * s.get("m", 0) + dt.type(1 - b1) * g
                s["v"] = dt.type(b2) * s.get("v", 0) + dt.type(1 - b2) * g * g
                v = s["v"]
                if kw.get("amsgrad"):
                    s["vmax"] = v = np.maximum(s.get("vmax", v), v)
                denom = np.sqrt(v) / dt.type((1 - b2 ** step) ** 0.5) + dt.type(kw.get("eps", 1e-8))
                xs[i] = x - dt.type(lr / (1 - b1 ** step)) * (s["m"] / denom)
        out.append(np.concatenate([x.ravel() for x in xs]))
    return np.array(out)


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=_cid)
def test_default_and_fused_match_numpy_rules(cfg, dtype):
    name, kw = cfg
    want = numpy_steps(name, kw, dtype)
    for extra in ({}, {"fused": True}):
        got, _, _ = _trajectory(cygrad, name, dict(kw, **extra), dtype)
        np.testing.assert_allclose(got, want, **TOL[dtype])
    assert not np.allclose(got[-1], got[0])


@pytest.mark.parametrize("dtype", ["float32", "float64"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=_cid)
def test_fused_matches_torch_for_loop(cfg, dtype):
    torch = pytest.importorskip("torch", reason="PyTorch is the reference trajectory")
    name, kw = cfg
    want, topt, _ = _trajectory(torch, name, kw, dtype)
    got, opt, _ = _trajectory(cygrad, name, dict(kw, fused=True), dtype)
    np.testing.assert_allclose(got, want, **TOL[dtype])
    # same state keys, buffers equal to PyTorch's
    sd, tsd = opt.state_dict(), topt.state_dict()
    assert sd["state"].keys() == tsd["state"].keys()
    for k, st in sd["state"].items():
        assert list(st) == list(tsd["state"][k])
        for key, value in st.items():
            np.testing.assert_allclose(np.array(value.tolist()), tsd["state"][k][key].numpy(),
                                       **TOL[dtype])


@pytest.mark.parametrize("cfg", CONFIGS, ids=_cid)
def test_fused_and_for_loop_agree(cfg):
    name, kw = cfg
    for dtype in ("float32", "float64"):
        fused, _, _ = _trajectory(cygrad, name, kw, dtype)
        loop, _, _ = _trajectory(cygrad, name, dict(kw, foreach=False), dtype)
        np.testing.assert_allclose(fused, loop, **TOL[dtype])


def test_parameters_the_kernel_does_not_take_use_the_for_loop():
    # a float16 parameter and a non-contiguous one step beside fused ones, as in PyTorch
    torch = pytest.importorskip("torch", reason="PyTorch is the reference")
    rng = np.random.default_rng(3)
    a, b, c = rng.standard_normal((3, 4)), rng.standard_normal((4, 3)), rng.standard_normal(5)
    res = []
    for lib in (cygrad, torch):
        pa = lib.tensor(a, dtype=lib.float32, requires_grad=True)
        pb = lib.tensor(b, dtype=lib.float64).t().detach().requires_grad_()   # not contiguous
        pc = lib.tensor(c, dtype=lib.float16, requires_grad=True)
        opt = lib.optim.Adam([pa, pb, pc], lr=0.1)
        for _ in range(3):
            opt.zero_grad()
            ((pa * pa).sum() + (pb * pa.double()).sum() + (pc.float() ** 2).sum()).backward()
            opt.step()
        res.append([np.array(p.detach().float().tolist()) for p in (pa, pb, pc)])
    for got, want in zip(*res):
        np.testing.assert_allclose(got, want, rtol=2e-3, atol=1e-3)


def test_threaded_step_equals_serial_step():
    # 100K elements: several of the kernel's chunks; the result must not depend on them
    rng = np.random.default_rng(1)
    x0, g0 = rng.standard_normal(100_003), rng.standard_normal(100_003)
    outs = []
    for parallel_min in (1 << 60, 1):
        old = optim_kernels._set_parallel_min(parallel_min)
        try:
            p = cygrad.tensor(x0, dtype=cygrad.float32, requires_grad=True)
            opt = cygrad.optim.AdamW([p], lr=0.01, amsgrad=True)
            for _ in range(3):
                p.grad = cygrad.tensor(g0, dtype=cygrad.float32)
                opt.step()
            outs.append(np.array(p.detach().tolist()))
        finally:
            optim_kernels._set_parallel_min(old)
    np.testing.assert_array_equal(outs[0], outs[1])


@pytest.mark.parametrize("name, kw, buffers", [
    ("SGD", dict(lr=0.1, momentum=0.9), ["momentum_buffer"]),
    ("Adam", dict(lr=0.1, amsgrad=True), ["step", "exp_avg", "exp_avg_sq", "max_exp_avg_sq"]),
])
def test_step_bumps_version_counters(name, kw, buffers):
    p = cygrad.randn(3, 2, requires_grad=True)
    opt = getattr(cygrad.optim, name)([p], **kw)
    (p * p).sum().backward()
    opt.step()
    before = {k: opt.state[p][k]._version for k in buffers}
    y = p * p                         # saves p for backward
    v = p._version
    (p * 3).sum().backward()
    opt.step()
    assert p._version == v + 1
    assert all(opt.state[p][k]._version > before[k] for k in buffers)
    with pytest.raises(RuntimeError, match="modified by an inplace operation"):
        y.sum().backward()


def test_fused_true_refuses_what_pytorch_refuses():
    w = cygrad.zeros(2, dtype=cygrad.complex64, requires_grad=True)
    for cls in (cygrad.optim.SGD, cygrad.optim.Adam, cygrad.optim.AdamW):
        opt = cls([w], lr=0.1, fused=True)
        w.grad = cygrad.ones(2, dtype=cygrad.complex64)
        with pytest.raises(RuntimeError, match="`fused=True` requires all the params to be "
                                               "floating point Tensors"):
            opt.step()
        with pytest.raises(RuntimeError, match="`fused` and `foreach` cannot be `True` together"):
            cls([cygrad.zeros(1, requires_grad=True)], lr=0.1, fused=True, foreach=True)
        with pytest.raises(RuntimeError, match="`fused` does not support `differentiable`"):
            cls([cygrad.zeros(1, requires_grad=True)], lr=0.1, fused=True, differentiable=True)


def test_fused_errors_have_pytorchs_types():
    torch = pytest.importorskip("torch", reason="PyTorch gives the expected exception types")
    w = torch.zeros(2, dtype=torch.complex64, requires_grad=True)
    opt = torch.optim.Adam([w], lr=0.1, fused=True)
    w.grad = torch.ones(2, dtype=torch.complex64)
    with pytest.raises(RuntimeError, match="`fused=True` requires all the params"):
        opt.step()
    with pytest.raises(RuntimeError, match="cannot be `True` together"):
        torch.optim.SGD([torch.zeros(1, requires_grad=True)], lr=0.1, fused=True, foreach=True)


def _continue(opt, ps, dtype, steps=4):
    """Steps 5..8 of a trajectory from a loaded optimizer (no maximize configs here)."""
    _, t0 = _inits(0)
    targets = [cygrad.tensor(t, dtype=getattr(cygrad, dtype)) for t in t0]
    out = []
    for _ in range(steps):
        opt.zero_grad()
        _loss(ps, targets).backward()
        opt.step()
        out.append(np.concatenate([np.array(p.detach().tolist()).ravel() for p in ps]))
    return np.array(out)


@pytest.mark.parametrize("cfg", [CONFIGS[1], CONFIGS[5], CONFIGS[8]], ids=_cid)
def test_state_dict_round_trip_continues_the_trajectory(cfg):
    name, kw = cfg
    full, _, _ = _trajectory(cygrad, name, kw, "float64", steps=8)
    _, opt, ps = _trajectory(cygrad, name, kw, "float64", steps=4)
    saved = copy.deepcopy(opt.state_dict())
    assert saved["param_groups"][0]["fused"] is None and saved["param_groups"][0]["foreach"] is None
    fresh = [p.detach().clone().requires_grad_() for p in ps]
    opt2 = getattr(cygrad.optim, name)(fresh, **kw)
    opt2.load_state_dict(saved)
    np.testing.assert_allclose(_continue(opt2, fresh, "float64"), full[4:], rtol=1e-13, atol=1e-15)


@pytest.mark.parametrize("cfg", [CONFIGS[2], CONFIGS[5], CONFIGS[7]], ids=_cid)
def test_loading_a_pytorch_state_dict(cfg):
    torch = pytest.importorskip("torch", reason="the state dict comes from PyTorch")
    name, kw = cfg
    kw = dict(kw, fused=True)
    want, _, _ = _trajectory(torch, name, kw, "float32", steps=8)
    _, topt, tps = _trajectory(torch, name, kw, "float32", steps=4)
    tsd = topt.state_dict()
    sd = {"state": {k: {key: cygrad.tensor(v.numpy()) for key, v in st.items()}
                    for k, st in tsd["state"].items()},
          "param_groups": copy.deepcopy(tsd["param_groups"])}
    ps = [cygrad.tensor(p.detach().numpy(), requires_grad=True) for p in tps]
    opt = getattr(cygrad.optim, name)(ps, **kw)
    opt.load_state_dict(sd)
    if name != "SGD":
        assert opt.state[ps[0]]["step"].dtype == cygrad.float32 and opt.state[ps[0]]["step"].item() == 4
    np.testing.assert_allclose(_continue(opt, ps, "float32"), want[4:], **TOL["float32"])
