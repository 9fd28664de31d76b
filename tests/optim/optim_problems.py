"""Shared test problems for the optimizer tests: written once against the
PyTorch API, so the same function runs on cygrad and on torch tensors."""
import numpy as np

X0_QUAD = [1.0, -1.5, 2.0, 0.5]
A_QUAD = [1.0, 2.0, 0.5, 3.0]
B_QUAD = [0.3, -0.2, 0.1, 0.0]


def quadratic(lib, x):
    """0.5 * sum(a x^2) + b.x, gradient a x + b (lib is cygrad or torch)."""
    a = lib.tensor(A_QUAD, dtype=lib.float64)
    b = lib.tensor(B_QUAD, dtype=lib.float64)
    return 0.5 * (a * x * x).sum() + (b * x).sum()


def quadratic_grad_np(x):
    return np.array(A_QUAD) * x + np.array(B_QUAD)


def rosenbrock(lib, x):
    return (1 - x[0]) ** 2 + 100 * (x[1] - x[0] ** 2) ** 2


def run_trajectory(lib, opt_name, kwargs, problem, x0, steps, groups=None):
    """Parameters after each of ``steps`` optimizer steps, as float64 NumPy arrays."""
    x = lib.tensor(x0, dtype=lib.float64, requires_grad=True)
    opt = getattr(lib.optim, opt_name)([x], **kwargs)
    out = []
    for _ in range(steps):
        opt.zero_grad()
        problem(lib, x).backward()
        opt.step()
        out.append(np.array(x.detach().tolist()))
    return np.array(out)


# (optimizer, keyword arguments): every option of every optimizer appears at least once
CONFIGS = [
    ("SGD", dict(lr=0.05)),
    ("SGD", dict(lr=0.05, momentum=0.9, dampening=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.8, nesterov=True, weight_decay=0.1)),
    ("SGD", dict(lr=0.05, momentum=0.5, maximize=True)),
    ("Adam", dict(lr=0.1)),
    ("Adam", dict(lr=0.1, betas=(0.8, 0.9), amsgrad=True, weight_decay=0.05)),
    ("Adam", dict(lr=0.1, maximize=True, eps=1e-3)),
    ("AdamW", dict(lr=0.1, weight_decay=0.1)),
    ("AdamW", dict(lr=0.1, weight_decay=0.1, amsgrad=True)),
    ("RMSprop", dict(lr=0.01)),
    ("RMSprop", dict(lr=0.01, alpha=0.9, centered=True, momentum=0.9, weight_decay=0.1)),
    ("RMSprop", dict(lr=0.01, momentum=0.5, maximize=True)),
    ("Adagrad", dict(lr=0.1)),
    ("Adagrad", dict(lr=0.1, lr_decay=0.01, weight_decay=0.1, initial_accumulator_value=0.2)),
    ("Adadelta", dict(lr=1.0)),
    ("Adadelta", dict(lr=0.5, rho=0.8, weight_decay=0.1, maximize=True)),
    ("Adamax", dict(lr=0.05)),
    ("Adamax", dict(lr=0.05, betas=(0.8, 0.9), weight_decay=0.1)),
    ("NAdam", dict(lr=0.05)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, momentum_decay=0.01)),
    ("NAdam", dict(lr=0.05, weight_decay=0.1, decoupled_weight_decay=True, maximize=True)),
]


def config_id(cfg):
    name, kw = cfg
    return name + "-" + "-".join(f"{k}={v}" for k, v in kw.items())
