"""Learning-rate schedulers against PyTorch's learning-rate (and momentum) sequences."""
import copy
import math
import warnings

import numpy as np
import pytest

import cygrad
from cygrad.optim import SGD
from cygrad.optim import lr_scheduler as cy_sched

STEPS = 30


class Scale:
    """A callable object (not a function), so LambdaLR saves its __dict__."""

    def __init__(self, rate):
        self.rate = rate

    def __call__(self, epoch):
        return self.rate ** epoch


# name -> (optimizer name, optimizer kwargs, builder(sched_module, optimizer))
SCHEDULERS = {
    "StepLR": ("SGD", {}, lambda m, o: m.StepLR(o, step_size=4, gamma=0.5)),
    "MultiStepLR": ("SGD", {}, lambda m, o: m.MultiStepLR(o, [3, 7, 7, 20], gamma=0.3)),
    "ExponentialLR": ("SGD", {}, lambda m, o: m.ExponentialLR(o, gamma=0.9)),
    "CosineAnnealingLR": ("SGD", {}, lambda m, o: m.CosineAnnealingLR(o, T_max=8, eta_min=0.01)),
    "CosineAnnealingWarmRestarts": (
        "SGD", {}, lambda m, o: m.CosineAnnealingWarmRestarts(o, T_0=3, T_mult=2, eta_min=1e-3)),
    "LambdaLR": ("SGD", {}, lambda m, o: m.LambdaLR(o, [lambda e: 1 / (1 + e), Scale(0.95)])),
    "MultiplicativeLR": ("SGD", {}, lambda m, o: m.MultiplicativeLR(o, lambda e: 0.97)),
    "LinearLR": ("SGD", {}, lambda m, o: m.LinearLR(o, start_factor=0.2, end_factor=0.9,
                                                    total_iters=10)),
    "ConstantLR": ("SGD", {}, lambda m, o: m.ConstantLR(o, factor=0.25, total_iters=6)),
    "OneCycleLR": ("SGD", {"momentum": 0.9},
                   lambda m, o: m.OneCycleLR(o, max_lr=[1.0, 0.5], total_steps=STEPS + 1)),
    "OneCycleLR-three-phase-linear-adam": (
        "Adam", {}, lambda m, o: m.OneCycleLR(o, max_lr=0.3, epochs=4, steps_per_epoch=8,
                                              three_phase=True, anneal_strategy="linear")),
    "CyclicLR": ("SGD", {"momentum": 0.9},
                 lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=[0.1, 0.2], step_size_up=4,
                                         step_size_down=3, mode="triangular2")),
    "CyclicLR-exp-range-adam": (
        "Adam", {}, lambda m, o: m.CyclicLR(o, base_lr=0.01, max_lr=0.1, step_size_up=5,
                                            mode="exp_range", gamma=0.97)),
    "SequentialLR": ("SGD", {}, lambda m, o: m.SequentialLR(
        o, [m.LinearLR(o, start_factor=0.1, total_iters=5), m.ExponentialLR(o, gamma=0.9),
            m.StepLR(o, step_size=3)], milestones=[5, 15])),
    "ChainedScheduler": ("SGD", {}, lambda m, o: m.ChainedScheduler(
        [m.ConstantLR(o, factor=0.5, total_iters=5), m.ExponentialLR(o, gamma=0.9),
         m.CosineAnnealingLR(o, T_max=10)])),
}


def _optimizer(lib, name, kwargs):
    a = lib.zeros(2, requires_grad=True)
    b = lib.zeros(1, requires_grad=True)
    return getattr(lib.optim, name)([{"params": [a]}, {"params": [b], "lr": 0.05}], lr=0.1,
                                    **kwargs)


def _momenta(opt):
    return [g["betas"][0] if "betas" in g else g.get("momentum") for g in opt.param_groups]


def _trace(lib, key, steps=STEPS):
    opt_name, opt_kwargs, build = SCHEDULERS[key]
    opt = _optimizer(lib, opt_name, opt_kwargs)
    sched = build(lib.optim.lr_scheduler, opt)
    lrs, moms = [sched.get_last_lr()], [_momenta(opt)]
    for _ in range(steps):
        opt.step()
        sched.step()
        lrs.append(sched.get_last_lr())
        moms.append(_momenta(opt))
    return np.array(lrs, dtype=float), np.array(moms, dtype=float), sched, opt


@pytest.mark.parametrize("key", sorted(SCHEDULERS))
def test_lr_sequence_matches_torch(key):
    torch = pytest.importorskip("torch")
    lrs, moms, _, opt = _trace(cygrad, key)
    t_lrs, t_moms, _, t_opt = _trace(torch, key)
    np.testing.assert_allclose(lrs, t_lrs, rtol=1e-12, atol=1e-15)
    np.testing.assert_allclose(moms, t_moms, rtol=1e-12)
    assert [g["lr"] for g in opt.param_groups] == pytest.approx(
        [g["lr"] for g in t_opt.param_groups], rel=1e-12)
    assert len(np.unique(lrs[:, 0])) >= 2     # the schedule does change the rate


@pytest.mark.parametrize("key", sorted(SCHEDULERS))
def test_state_dict_round_trip_resumes_the_schedule(key):
    opt_name, opt_kwargs, build = SCHEDULERS[key]
    full, _, _, _ = _trace(cygrad, key)
    opt = _optimizer(cygrad, opt_name, opt_kwargs)
    sched = build(cy_sched, opt)
    for _ in range(12):
        opt.step()
        sched.step()
    opt_state = copy.deepcopy(opt.state_dict())
    sched_state = copy.deepcopy(sched.state_dict())

    opt2 = _optimizer(cygrad, opt_name, opt_kwargs)
    sched2 = build(cy_sched, opt2)
    sched2.load_state_dict(sched_state)
    opt2.load_state_dict(opt_state)     # after the scheduler, as PyTorch's docs say
    resumed = []
    for _ in range(STEPS - 12):
        opt2.step()
        sched2.step()
        resumed.append(sched2.get_last_lr())
    np.testing.assert_allclose(np.array(resumed, dtype=float), full[13:], rtol=1e-12)


def test_initial_lr_and_last_epoch():
    opt = SGD([cygrad.zeros(1, requires_grad=True)], lr=0.4)
    sched = cy_sched.StepLR(opt, step_size=2, gamma=0.5)
    assert opt.param_groups[0]["initial_lr"] == 0.4 and sched.last_epoch == 0
    assert sched.base_lrs == [0.4]
    opt.step()
    sched.step()
    assert sched.last_epoch == 1
    fresh = SGD([cygrad.zeros(1, requires_grad=True)], lr=0.4)
    with pytest.raises(KeyError, match="initial_lr"):
        cy_sched.StepLR(fresh, step_size=2, last_epoch=5)
    # resuming: initial_lr is there, the schedule continues from last_epoch + 1
    opt.param_groups[0]["lr"] = 0.1
    resumed = cy_sched.ExponentialLR(opt, gamma=0.5, last_epoch=3)
    assert resumed.last_epoch == 4 and resumed.base_lrs == [0.4]
    assert resumed.get_last_lr() == [0.1]      # the initial step of a resume keeps the rate
    opt.step()
    resumed.step()
    assert resumed.get_last_lr() == [0.05]


def test_resuming_with_last_epoch_matches_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        opt.param_groups[0]["initial_lr"] = 2.0
        out = []
        for cls, kw in [("CosineAnnealingLR", dict(T_max=10)), ("StepLR", dict(step_size=3)),
                        ("LinearLR", dict(total_iters=8)),
                        ("CosineAnnealingWarmRestarts", dict(T_0=4))]:
            sched = getattr(lib.optim.lr_scheduler, cls)(opt, last_epoch=5, **kw)
            out.append(sched.get_last_lr()[0])
            opt.step()
            sched.step()
            out.append(sched.get_last_lr()[0])
        return out

    np.testing.assert_allclose(run(cygrad), run(torch), rtol=1e-12)


def test_explicit_epoch_uses_closed_form_like_torch():
    torch = pytest.importorskip("torch")

    def run(lib):
        opt = lib.optim.SGD([lib.zeros(1, requires_grad=True)], lr=1.0)
        scheds = [lib.optim.lr_scheduler.StepLR(opt, step_size=3, gamma=0.5),
                  lib.optim.lr_scheduler.CosineAnnealingWarmRestarts(opt, T_0=2, T_mult=2)]
        out = []
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            for s in scheds:
                for epoch in [4, 9, 2, 7.5]:
                    opt.step()
                    s.step(int(epoch) if s is scheds[0] else epoch)
                    out.append(s.get_last_lr()[0])
        return out

    np.testing.assert_allclose(run(cygrad), run(torch), rtol=1e-12)


def test_reduce_lr_on_plateau_matches_torch():
    torch = pytest.importorskip("torch")
    metrics = [5, 4, 4.1, 4.0, 4.2, 3.9, 3.9, 3.95, 4, 4, 4, 2, 2, 2, 2, 2, 2, 2, 2, 2]

    def run(lib, **kw):
        opt = lib.optim.SGD([{"params": [lib.zeros(1, requires_grad=True)]},
                             {"params": [lib.zeros(1, requires_grad=True)], "lr": 0.02}],
                            lr=0.1)
        sched = lib.optim.lr_scheduler.ReduceLROnPlateau(opt, **kw)
        out = []
        for m in metrics:
            sched.step(m)
            out.append(sched.get_last_lr())
        return np.array(out), sched

    for kw in [dict(patience=1, factor=0.5),
               dict(mode="max", patience=2, cooldown=2, threshold_mode="abs", threshold=0.05,
                    min_lr=[0.01, 0.015]),
               dict(patience=0, factor=0.1, min_lr=0.001, eps=1e-4)]:
        mine, sched = run(cygrad, **kw)
        theirs, t_sched = run(torch, **kw)
        np.testing.assert_allclose(mine, theirs, rtol=1e-12)
        assert (sched.best, sched.num_bad_epochs, sched.cooldown_counter) == (
            t_sched.best, t_sched.num_bad_epochs, t_sched.cooldown_counter)


def test_reduce_lr_on_plateau_state_dict_round_trip():
    opt = SGD([cygrad.zeros(1, requires_grad=True)], lr=1.0)
    sched = cy_sched.ReduceLROnPlateau(opt, mode="max", patience=1, factor=0.5)
    for m in [1, 2, 2, 2]:
        sched.step(m)
    saved = copy.deepcopy(sched.state_dict())
    opt2 = SGD([cygrad.zeros(1, requires_grad=True)], lr=opt.param_groups[0]["lr"])
    sched2 = cy_sched.ReduceLROnPlateau(opt2)
    sched2.load_state_dict(saved)
    for s in (sched, sched2):
        for m in [2, 2, 3, 3, 3]:
            s.step(m)
    assert sched2.get_last_lr() == sched.get_last_lr() == [0.125]


def test_argument_errors():
    opt = SGD([cygrad.zeros(1, requires_grad=True)], lr=1.0)
    with pytest.raises(TypeError, match="is not an Optimizer"):
        cy_sched.StepLR(object(), step_size=1)
    with pytest.raises(ValueError, match="Factor should be < 1.0."):
        cy_sched.ReduceLROnPlateau(opt, factor=1.0)
    with pytest.raises(ValueError, match="mode foo is unknown!"):
        cy_sched.ReduceLROnPlateau(opt, mode="foo")
    with pytest.raises(ValueError, match="Expected positive integer T_0"):
        cy_sched.CosineAnnealingWarmRestarts(opt, T_0=0)
    with pytest.raises(ValueError, match="Constant multiplicative factor"):
        cy_sched.ConstantLR(opt, factor=2.0)
    with pytest.raises(ValueError, match="Starting multiplicative factor"):
        cy_sched.LinearLR(opt, start_factor=0)
    with pytest.raises(ValueError, match="total_steps OR"):
        cy_sched.OneCycleLR(opt, max_lr=1.0)
    with pytest.raises(ValueError, match="Expected 1 lr_lambdas, but got 2"):
        cy_sched.LambdaLR(opt, [lambda e: 1, lambda e: 1])
    with pytest.raises(ValueError, match="must support momentum or beta1"):
        cy_sched.CyclicLR(cygrad.optim.Adagrad([cygrad.zeros(1, requires_grad=True)]),
                          base_lr=0.1, max_lr=1.0)
    with pytest.raises(ValueError, match="number of milestones"):
        cy_sched.SequentialLR(opt, [cy_sched.StepLR(opt, 1)], milestones=[3])
    with pytest.raises(ValueError, match="does not support `ReduceLROnPlateau`"):
        cy_sched.ChainedScheduler([cy_sched.ReduceLROnPlateau(opt)])
    one = cy_sched.OneCycleLR(opt, max_lr=1.0, total_steps=2)
    opt.step()
    one.step()
    one.step()
    with pytest.raises(ValueError, match="Tried to step 3 times"):
        one.step()


def test_warns_when_scheduler_steps_before_optimizer():
    opt = SGD([cygrad.zeros(1, requires_grad=True)], lr=1.0)
    sched = cy_sched.StepLR(opt, step_size=1)
    with pytest.warns(UserWarning, match=r"before `optimizer.step\(\)`"):
        sched.step()
    opt2 = SGD([cygrad.zeros(1, requires_grad=True)], lr=1.0)
    sched2 = cy_sched.StepLR(opt2, step_size=1)
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        opt2.step()
        sched2.step()
        assert sched2.get_last_lr() == [0.1]


def test_calling_get_lr_outside_step_warns():
    opt = SGD([cygrad.zeros(1, requires_grad=True)], lr=1.0)
    sched = cy_sched.ExponentialLR(opt, gamma=0.5)
    with pytest.warns(UserWarning, match="please use `get_last_lr\\(\\)`"):
        sched.get_lr()


def test_cosine_annealing_closed_form():
    opt = SGD([cygrad.zeros(1, requires_grad=True)], lr=0.5)
    sched = cy_sched.CosineAnnealingLR(opt, T_max=7, eta_min=0.05)
    for t in range(1, 15):
        opt.step()
        sched.step()
        want = 0.05 + 0.45 * (1 + math.cos(math.pi * t / 7)) / 2
        assert sched.get_last_lr()[0] == pytest.approx(want, rel=1e-12)
