"""Optimizer trajectories against PyTorch's: same problem, same hyper-parameters, float64."""
import numpy as np
import pytest

import cygrad
from optim_problems import CONFIGS, X0_QUAD, config_id, quadratic, rosenbrock, run_trajectory

PROBLEMS = [(quadratic, X0_QUAD), (rosenbrock, [-1.2, 1.0])]


@pytest.mark.parametrize("problem,x0", PROBLEMS, ids=["quadratic", "rosenbrock"])
@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_twenty_steps_match_torch(cfg, problem, x0):
    torch = pytest.importorskip("torch")
    name, kw = cfg
    got = run_trajectory(cygrad, name, kw, problem, x0, 20)
    want = run_trajectory(torch, name, kw, problem, x0, 20)
    np.testing.assert_allclose(got, want, rtol=1e-10, atol=1e-12)


@pytest.mark.parametrize("cfg", [c for c in CONFIGS if c[0] in ("SGD", "Adam", "RMSprop")],
                         ids=config_id)
def test_float32_params_match_torch(cfg):
    torch = pytest.importorskip("torch")
    name, kw = cfg

    def run(lib):
        x = lib.tensor(X0_QUAD, dtype=lib.float32, requires_grad=True)
        opt = getattr(lib.optim, name)([x], **kw)
        for _ in range(10):
            opt.zero_grad()
            (x * x * lib.tensor(2.0)).sum().backward()
            opt.step()
        return np.array(x.detach().tolist())

    np.testing.assert_allclose(run(cygrad), run(torch), rtol=1e-5, atol=1e-6)


def test_param_groups_with_own_hyperparameters_match_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        a = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.Adam([{"params": [a]}, {"params": [b], "lr": 0.3, "amsgrad": True}],
                             lr=0.05)
        for _ in range(15):
            opt.zero_grad()
            (((a - 1) ** 2).sum() + (b ** 4).sum()).backward()
            opt.step()
        return np.array(a.detach().tolist() + b.detach().tolist())

    np.testing.assert_allclose(run(cygrad), run(torch), rtol=1e-10)


def test_params_without_grad_are_skipped_like_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        a = lib.tensor([1.0, -2.0], dtype=lib.float64, requires_grad=True)
        b = lib.tensor([0.5, 3.0], dtype=lib.float64, requires_grad=True)
        opt = lib.optim.SGD([a, b], lr=0.1, momentum=0.9, weight_decay=0.1)
        for i in range(6):
            opt.zero_grad()
            loss = (a ** 2).sum() + ((b ** 2).sum() if i % 2 else 0.0)
            loss.backward()
            opt.step()
        return np.array(a.detach().tolist() + b.detach().tolist()), len(opt.state)

    (x1, n1), (x2, n2) = run(cygrad), run(torch)
    np.testing.assert_allclose(x1, x2, rtol=1e-12)
    assert n1 == n2


def _lbfgs_run(lib, line_search_fn, steps, history_size=100):
    x = lib.tensor([-1.5, 2.0], dtype=lib.float64, requires_grad=True)
    opt = lib.optim.LBFGS([x], lr=1, max_iter=20, history_size=history_size,
                          line_search_fn=line_search_fn)

    def closure():
        opt.zero_grad()
        loss = rosenbrock(lib, x)
        loss.backward()
        return loss

    losses = [opt.step(closure).item() for _ in range(steps)]
    state = opt.state[x]
    return np.array(x.detach().tolist()), losses, state["func_evals"], state["n_iter"]


@pytest.mark.parametrize("history_size", [100, 3])
def test_lbfgs_strong_wolfe_converges_on_rosenbrock_like_torch(history_size):
    torch = pytest.importorskip("torch")
    x, losses, evals, iters = _lbfgs_run(cygrad, "strong_wolfe", 5, history_size)
    tx, tlosses, tevals, titers = _lbfgs_run(torch, "strong_wolfe", 5, history_size)
    np.testing.assert_allclose(x, [1.0, 1.0], atol=1e-5)   # stops on tolerance_change
    np.testing.assert_allclose(x, tx, rtol=1e-7, atol=1e-9)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-6, atol=1e-12)
    assert (evals, iters) == (tevals, titers)


def test_lbfgs_fixed_step_matches_torch():
    torch = pytest.importorskip("torch")
    x, losses, evals, iters = _lbfgs_run(cygrad, None, 2)
    tx, tlosses, tevals, titers = _lbfgs_run(torch, None, 2)
    # 40 fixed-step iterations amplify last-bit differences of pow/sum between the two
    # libraries' builds (seen on an AMD EPYC: 5.5e-12 on a coordinate of 0.005, i.e.
    # relative 1.1e-9); the iterates are O(1), so an absolute 1e-11 is the same strictness.
    np.testing.assert_allclose(x, tx, rtol=1e-9, atol=1e-11)
    np.testing.assert_allclose(losses, tlosses, rtol=1e-9)
    assert (evals, iters) == (tevals, titers)


def test_lbfgs_rejects_unknown_line_search():
    x = cygrad.tensor([1.0], requires_grad=True)
    opt = cygrad.optim.LBFGS([x], line_search_fn="armijo")

    def closure():
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss

    with pytest.raises(RuntimeError, match="only 'strong_wolfe' is supported"):
        opt.step(closure)
