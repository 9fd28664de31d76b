"""The Optimizer base class: parameter groups, checks, zero_grad, closures, state dicts."""
import copy
import warnings

import numpy as np
import pytest

import cygrad
from cygrad.optim import SGD, Adam, Adagrad, LBFGS, Optimizer
from optim_problems import CONFIGS, X0_QUAD, config_id, quadratic, rosenbrock


def leaf(values, dtype=cygrad.float64):
    return cygrad.tensor(values, dtype=dtype, requires_grad=True)


def _steps(opt, x, n, problem=quadratic):
    for _ in range(n):
        opt.zero_grad()
        problem(cygrad, x).backward()
        opt.step()


@pytest.mark.parametrize("cfg", CONFIGS, ids=config_id)
def test_state_dict_round_trip_continues_identically(cfg):
    name, kw = cfg
    cls = getattr(cygrad.optim, name)
    x = leaf(X0_QUAD)
    opt = cls([x], **kw)
    _steps(opt, x, 7)
    snapshot = copy.deepcopy(opt.state_dict())
    x_resumed = leaf(x.detach().tolist())
    _steps(opt, x, 8)

    opt2 = cls([x_resumed])             # default hyper-parameters: the loaded ones must win
    opt2.load_state_dict(snapshot)
    _steps(opt2, x_resumed, 8)
    if name == "NAdam":
        # as in PyTorch, loading casts the float32 'mu_product' to the parameter's
        # dtype (only 'step' is exempt), so the float64 continuation differs by rounding
        np.testing.assert_allclose(x_resumed.tolist(), x.tolist(), rtol=1e-11)
        assert opt2.state[x_resumed]["mu_product"].dtype == cygrad.float64
    else:
        assert x_resumed.tolist() == x.tolist()
    assert opt2.param_groups[0]["lr"] == kw["lr"]


def test_lbfgs_state_dict_round_trip_continues_identically():
    def run(opt, x, n):
        def closure():
            opt.zero_grad()
            loss = rosenbrock(cygrad, x)
            loss.backward()
            return loss
        for _ in range(n):
            opt.step(closure)

    x = leaf([-1.5, 2.0])
    opt = LBFGS([x], max_iter=3, history_size=4, line_search_fn="strong_wolfe")
    run(opt, x, 2)
    snapshot = copy.deepcopy(opt.state_dict())
    x2 = leaf(x.detach().tolist())
    run(opt, x, 2)
    opt2 = LBFGS([x2])
    opt2.load_state_dict(snapshot)
    run(opt2, x2, 2)
    assert x2.tolist() == x.tolist()


def test_state_dict_format_matches_torch():
    torch = pytest.importorskip("torch")

    def build(lib):
        a, b, c = (lib.ones(2, dtype=lib.float64, requires_grad=True) for _ in range(3))
        opt = lib.optim.Adam([{"params": [a, b]}, {"params": [c], "lr": 0.5}], lr=0.1)
        (a.sum() + c.sum()).backward()
        opt.step()
        return opt.state_dict()

    mine, theirs = build(cygrad), build(torch)
    assert mine["param_groups"] == theirs["param_groups"]
    assert list(mine["state"]) == list(theirs["state"]) == [0, 2]
    for pid in (0, 2):
        assert list(mine["state"][pid]) == list(theirs["state"][pid])
        for key, value in mine["state"][pid].items():
            assert value.dtype.name == str(theirs["state"][pid][key].dtype).split(".")[-1]
            np.testing.assert_allclose(value.tolist(), theirs["state"][pid][key].tolist())


def test_load_state_dict_casts_buffers_to_param_dtype_but_not_step():
    x = leaf([1.0, 2.0])
    opt = Adam([x], lr=0.1)
    x.sum().backward()
    opt.step()
    sd = copy.deepcopy(opt.state_dict())
    y = leaf([1.0, 2.0], dtype=cygrad.float32)
    opt2 = Adam([y])
    opt2.load_state_dict(sd)
    assert opt2.state[y]["exp_avg"].dtype == cygrad.float32
    assert opt2.state[y]["step"].dtype == sd["state"][0]["step"].dtype


def test_load_state_dict_checks_groups_and_changes_nothing_on_error():
    a, b = leaf([1.0]), leaf([2.0])
    sd = SGD([a, b], lr=0.1).state_dict()
    opt = SGD([a], lr=0.7)
    with pytest.raises(ValueError, match="doesn't match the size of optimizer's group"):
        opt.load_state_dict(sd)
    two = SGD([{"params": [a]}, {"params": [b]}], lr=0.1).state_dict()
    with pytest.raises(ValueError, match="different number of parameter groups"):
        opt.load_state_dict(two)
    assert opt.param_groups[0]["lr"] == 0.7


def test_param_group_checks():
    a = leaf([1.0])
    with pytest.raises(TypeError, match="iterable of Tensors or dicts"):
        SGD(a, lr=0.1)
    with pytest.raises(ValueError, match="empty parameter list"):
        SGD([], lr=0.1)
    with pytest.raises(TypeError, match="ordered collections"):
        SGD([{"params": {a}}], lr=0.1)
    with pytest.raises(TypeError, match="optimizer can only optimize Tensors, but one of the "
                                        "params is int"):
        SGD([1], lr=0.1)
    with pytest.raises(ValueError, match="can't optimize a non-leaf Tensor"):
        SGD([a * 2], lr=0.1)
    opt = SGD([a], lr=0.1)
    with pytest.raises(ValueError, match="more than one parameter group"):
        opt.add_param_group({"params": [a]})
    with pytest.raises(TypeError, match="param_group must be a dict"):
        opt.add_param_group([a])
    with pytest.warns(UserWarning, match="duplicate parameters"):
        SGD([leaf([1.0])] * 2, lr=0.1)


def test_required_hyperparameter_and_defaults():
    class NeedsLr(Optimizer):
        def __init__(self, params):
            super().__init__(params, {"lr": cygrad.optim.optimizer.required, "momentum": 0.5})

    a, b = leaf([1.0]), leaf([2.0])
    with pytest.raises(ValueError, match="didn't specify a value of required optimization "
                                         "parameter lr"):
        NeedsLr([a])
    opt = NeedsLr([{"params": [a], "lr": 0.1}])
    opt.add_param_group({"params": b, "lr": 0.2, "momentum": 0.9})
    assert [(g["lr"], g["momentum"]) for g in opt.param_groups] == [(0.1, 0.5), (0.2, 0.9)]
    with pytest.raises(NotImplementedError):
        a.sum().backward()
        opt.step()


def test_named_parameters_are_recorded():
    a, b = leaf([1.0]), leaf([2.0])
    opt = SGD([("w", a), ("b", b)], lr=0.1)
    assert opt.param_groups[0]["param_names"] == ["w", "b"]
    assert opt.state_dict()["param_groups"][0]["param_names"] == ["w", "b"]
    with pytest.raises(ValueError, match="Some param names are missing"):
        SGD([("w", leaf([1.0])), leaf([2.0])], lr=0.1)
    with pytest.raises(ValueError, match="cannot add param group without names"):
        opt.add_param_group({"params": [leaf([3.0])]})


@pytest.mark.parametrize("kwargs,message", [
    (dict(lr=-1.0), "Invalid learning rate: -1.0"),
    (dict(lr=0.1, momentum=-0.5), "Invalid momentum value: -0.5"),
    (dict(lr=0.1, weight_decay=-1), "Invalid weight_decay value: -1"),
    (dict(lr=0.1, nesterov=True), "Nesterov momentum requires a momentum and zero dampening"),
    (dict(lr=0.1, momentum=0.9, dampening=0.1, nesterov=True), "Nesterov momentum requires"),
])
def test_sgd_argument_errors(kwargs, message):
    with pytest.raises(ValueError, match=message):
        SGD([leaf([1.0])], **kwargs)


@pytest.mark.parametrize("name,kwargs,message", [
    ("Adam", dict(betas=(1.0, 0.9)), "Invalid beta parameter at index 0: 1.0"),
    ("AdamW", dict(betas=(0.9, -0.1)), "Invalid beta parameter at index 1: -0.1"),
    ("Adam", dict(eps=-1e-8), "Invalid epsilon value"),
    ("RMSprop", dict(alpha=-0.1), "Invalid alpha value: -0.1"),
    ("Adagrad", dict(lr_decay=-1), "Invalid lr_decay value: -1"),
    ("Adagrad", dict(initial_accumulator_value=-1), "Invalid initial_accumulator_value value"),
    ("Adadelta", dict(rho=1.1), "Invalid rho value: 1.1"),
    ("Adamax", dict(betas=(0.9, 1.0)), "Invalid beta parameter at index 1: 1.0"),
    ("NAdam", dict(momentum_decay=-1.0), "Invalid momentum_decay value: -1.0"),
    ("LBFGS", dict(lr=-1), "Invalid learning rate: -1"),
])
def test_argument_errors_match_torch(name, kwargs, message):
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        getattr(cygrad.optim, name)([leaf([1.0])], **kwargs)
    torch = pytest.importorskip("torch")
    with pytest.raises(ValueError, match=message.replace("(", r"\(")):
        getattr(torch.optim, name)([torch.ones(1, requires_grad=True)], **kwargs)


def test_zero_grad_and_closure():
    x = leaf([3.0, -1.0])
    opt = SGD([x], lr=0.1)
    calls = []

    def closure():
        calls.append(cygrad.is_grad_enabled())
        opt.zero_grad()
        loss = (x * x).sum()
        loss.backward()
        return loss

    with cygrad.no_grad():      # the closure still runs with gradients on
        loss = opt.step(closure)
    assert calls == [True] and loss.item() == 10.0
    np.testing.assert_allclose(x.tolist(), [2.4, -0.8])
    assert x.grad is not None
    opt.zero_grad(set_to_none=False)
    assert x.grad.tolist() == [0.0, 0.0] and not x.grad.requires_grad
    opt.zero_grad()
    assert x.grad is None
    before = x.tolist()
    opt.step()                  # no gradient: nothing moves
    assert x.tolist() == before


def test_step_does_not_record_autograd_history():
    x = leaf([1.0, 2.0])
    opt = Adam([x], lr=0.1)
    (x * x).sum().backward()
    opt.step()
    assert x.grad_fn is None and x.is_leaf and x.requires_grad
    assert all(not t.requires_grad for t in opt.state[x].values())


def test_adagrad_state_exists_before_first_step():
    x = leaf([1.0, 2.0])
    opt = Adagrad([x], initial_accumulator_value=0.3)
    assert opt.state[x]["sum"].tolist() == [0.3, 0.3]
    assert opt.state[x]["step"].item() == 0.0


def test_repr_lists_groups():
    opt = SGD([leaf([1.0])], lr=0.1, momentum=0.9)
    text = repr(opt)
    assert text.startswith("SGD (\nParameter Group 0\n") and "    momentum: 0.9" in text


def test_state_is_a_defaultdict_keyed_by_param():
    x = leaf([1.0])
    opt = SGD([x], lr=0.1)
    assert opt.state[x] == {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert len(opt.state_dict()["state"]) == 1
