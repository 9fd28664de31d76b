"""Each optimizer's first three steps against the update rule written out in NumPy."""
import numpy as np
import pytest

import cygrad
from optim_problems import (CONFIGS, X0_QUAD, config_id, quadratic, quadratic_grad_np,
                            run_trajectory)


def _f32(v):
    # PyTorch (and cygrad) keep NAdam's running product of momenta in a float32 scalar
    return float(np.float32(v))


def numpy_steps(name, kw, x0, steps):
    """The update rules from the PyTorch documentation, one NumPy line per formula."""
    x = np.array(x0, dtype=np.float64)
    lr = kw.get("lr")
    wd = kw.get("weight_decay", 0.0)
    maximize = kw.get("maximize", False)
    s = {}
    out = []
    for t in range(1, steps + 1):
        g = quadratic_grad_np(x)
        if maximize:
            g = -g
        if name == "SGD":
            mom, damp = kw.get("momentum", 0.0), kw.get("dampening", 0.0)
            g = g + wd * x
            if mom:
                s["b"] = g.copy() if t == 1 else mom * s["b"] + (1 - damp) * g
                g = g + mom * s["b"] if kw.get("nesterov") else s["b"]
            x = x - lr * g
        elif name in ("Adam", "AdamW"):
            b1, b2 = kw.get("betas", (0.9, 0.999))
            eps = kw.get("eps", 1e-8)
            if name == "AdamW":
                x = x * (1 - lr * kw.get("weight_decay", 1e-2))
            else:
                g = g + wd * x
            s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
            s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
            v = s["v"]
            if kw.get("amsgrad"):
                s["vmax"] = np.maximum(s.get("vmax", 0), s["v"])
                v = s["vmax"]
            mhat = s["m"] / (1 - b1 ** t)
            x = x - lr * mhat / (np.sqrt(v) / np.sqrt(1 - b2 ** t) + eps)
        elif name == "RMSprop":
            alpha, eps, mom = kw.get("alpha", 0.99), kw.get("eps", 1e-8), kw.get("momentum", 0)
            g = g + wd * x
            s["v"] = alpha * s.get("v", 0) + (1 - alpha) * g * g
            v = s["v"]
            if kw.get("centered"):
                s["gavg"] = alpha * s.get("gavg", 0) + (1 - alpha) * g
                v = v - s["gavg"] ** 2
            step = g / (np.sqrt(v) + eps)
            if mom:
                s["b"] = mom * s.get("b", 0) + step
                step = s["b"]
            x = x - lr * step
        elif name == "Adagrad":
            eps = kw.get("eps", 1e-10)
            g = g + wd * x
            s.setdefault("sum", np.full_like(x, kw.get("initial_accumulator_value", 0.0)))
            clr = lr / (1 + (t - 1) * kw.get("lr_decay", 0.0))
            s["sum"] = s["sum"] + g * g
            x = x - clr * g / (np.sqrt(s["sum"]) + eps)
        elif name == "Adadelta":
            rho, eps = kw.get("rho", 0.9), kw.get("eps", 1e-6)
            g = g + wd * x
            s["v"] = rho * s.get("v", 0) + (1 - rho) * g * g
            delta = np.sqrt(s.get("u", 0) + eps) / np.sqrt(s["v"] + eps) * g
            s["u"] = rho * s.get("u", 0) + (1 - rho) * delta * delta
            x = x - lr * delta
        elif name == "Adamax":
            b1, b2 = kw.get("betas", (0.9, 0.999))
            eps = kw.get("eps", 1e-8)
            g = g + wd * x
            s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
            s["u"] = np.maximum(b2 * s.get("u", 0), np.abs(g) + eps)
            x = x - lr / (1 - b1 ** t) * s["m"] / s["u"]
        elif name == "NAdam":
            b1, b2 = kw.get("betas", (0.9, 0.999))
            eps, psi = kw.get("eps", 1e-8), kw.get("momentum_decay", 4e-3)
            if kw.get("decoupled_weight_decay"):
                x = x * (1 - lr * wd)
            else:
                g = g + wd * x
            mu = b1 * (1 - 0.5 * 0.96 ** (t * psi))
            mu_next = b1 * (1 - 0.5 * 0.96 ** ((t + 1) * psi))
            s["prod"] = _f32(s.get("prod", 1.0) * _f32(mu))
            s["m"] = b1 * s.get("m", 0) + (1 - b1) * g
            s["v"] = b2 * s.get("v", 0) + (1 - b2) * g * g
            denom = np.sqrt(s["v"] / (1 - b2 ** t)) + eps
            x = (x - lr * (1 - mu) / (1 - s["prod"]) * g / denom
                 - lr * mu_next / (1 - s["prod"] * mu_next) * s["m"] / denom)
        out.append(x.copy())
    return np.array(out)


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_three_steps_match_numpy(cfg):
    name, kw = cfg
    # The for-loop path (the course's exercises); tests/test_optim_fused.py checks
    # the fused kernels that SGD, Adam and AdamW take by default.
    got = run_trajectory(cygrad, name, dict(kw, foreach=False), quadratic, X0_QUAD, 3)
    want = numpy_steps(name, kw, X0_QUAD, 3)
    np.testing.assert_allclose(got, want, rtol=1e-12, atol=1e-14)
    assert not np.allclose(got[-1], X0_QUAD)     # the parameters did move
