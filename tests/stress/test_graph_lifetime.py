"""Graphs freed in every order: a tensor or node outliving what it points to is a crash, one
kept alive by a forgotten reference is a leak.

Tensors are not tracked by Python's cyclic GC (cygrad keeps graphs acyclic so reference
counting frees them), so each child process runs with ``gc.disable()`` and checks through
weak references that everything is dead right after ``del``; only the cases where a user's
hook closes a cycle need ``gc.collect()``.
"""
import pytest

from stress._util import run_in_subprocess

# Prepended to every child: the LiveTensors helper and a NumPy-checked two-op graph.
PRELUDE = """
import gc, random, weakref
import numpy as np
import cygrad
from stress._util import LiveTensors
gc.disable()
A = np.linspace(-1.0, 1.0, 300)

def graph(live):
    x = live.track(cygrad.tensor(A, requires_grad=True))
    h = live.track(x.sin())
    y = live.track((h * x).sum())
    return x, h, y

def check_grad(x):
    np.testing.assert_allclose(x.grad.numpy(), np.cos(A) * A + np.sin(A), rtol=1e-12)
"""


def run(code):
    run_in_subprocess(PRELUDE + code)


@pytest.mark.parametrize("backward", [False, True])
def test_delete_in_every_order(backward):
    run(f"""
import itertools
for order in itertools.permutations("xhy"):
    live = LiveTensors()
    x, h, y = graph(live)
    if {backward}:
        y.backward()
        check_grad(x)
        live.track(x.grad)
    for name in order:
        del globals()[name]
    assert live.count() == 0, (order, live.count())
""")


def test_delete_intermediates_then_backward():
    # The graph must keep what backward needs (saved tensors) even when the user dropped
    # every Python reference to the intermediate results.
    run("""
live = LiveTensors()
x = live.track(cygrad.tensor(A, requires_grad=True))
a = live.track(x.exp())
b = live.track(a * x)
c = live.track(b.tanh())
y = live.track(c.sum())
del a, b, c
y.backward()
e = np.exp(A)
t = np.tanh(e * A)
np.testing.assert_allclose(x.grad.numpy(), (1 - t**2) * (e * A + e), rtol=1e-12)
del y
assert live.count() == 1      # only x
del x
assert live.count() == 0
""")


def test_leaf_deleted_before_backward():
    # The graph refers to a leaf's AccumulateGrad only weakly back to the leaf: with the
    # leaf gone there is no .grad to fill, and backward must not touch freed memory.
    run("""
live = LiveTensors()
x, h, y = graph(live)
w = live.track(cygrad.tensor(A, requires_grad=True))
z = (y + (w * 2).sum())
del x, h
z.backward()
np.testing.assert_array_equal(w.grad.numpy(), np.full(A.size, 2.0))
del y, z, w
assert live.count() == 0
""")


def test_retain_graph_twice_then_free():
    run("""
live = LiveTensors()
x, h, y = graph(live)
y.backward(retain_graph=True)
y.backward(retain_graph=True)
y.backward()
np.testing.assert_allclose(x.grad.numpy(), 3 * (np.cos(A) * A + np.sin(A)), rtol=1e-12)
try:
    y.backward()
except RuntimeError:
    pass
else:
    raise AssertionError("a fourth backward through freed saved tensors must raise")
del x, h, y
assert live.count() == 0
""")


def test_double_backward_then_free():
    run("""
live = LiveTensors()
x = live.track(cygrad.tensor(A, requires_grad=True))
y = live.track((x ** 3).sum())
g, = cygrad.autograd.grad(y, x, create_graph=True)
live.track(g)
(g * g).sum().backward()           # d/dx sum((3x^2)^2) = 36 x^3
np.testing.assert_allclose(g.detach().numpy(), 3 * A**2, rtol=1e-12)
np.testing.assert_allclose(x.grad.numpy(), 36 * A**3, rtol=1e-12, atol=1e-15)
live.track(x.grad)
del g, y
del x
assert live.count() == 0, live.count()

# create_graph into .grad: .grad has a grad_fn pointing into the graph of its own leaf
x = live.track(cygrad.tensor(A, requires_grad=True))
(x ** 3).sum().backward(create_graph=True)
gx = live.track(x.grad)
gx.sum().backward()
np.testing.assert_allclose(x.grad.detach().numpy(), 3 * A**2 + 6 * A, rtol=1e-12, atol=1e-15)
live.track(x.grad)
del gx, x
assert live.count() == 0, live.count()
""")


def test_hook_closures_keeping_other_tensors():
    # Hooks that hold references to other tensors (no cycle): all freed by refcounting.
    run("""
live = LiveTensors()
x, h, y = graph(live)
scale = live.track(cygrad.full((A.size,), 2.0, dtype=cygrad.float64))
seen = []
h.register_hook(lambda g: g * scale)
x.register_hook(lambda g: seen.append(g.clone()) or g)
h.retain_grad()
y.backward()
np.testing.assert_allclose(h.grad.numpy(), 2 * A, rtol=1e-12)   # retain_grad runs after hooks
np.testing.assert_allclose(x.grad.numpy(), 2 * A * np.cos(A) + np.sin(A), rtol=1e-12)
np.testing.assert_allclose(seen[0].numpy(), x.grad.numpy(), rtol=0)
live.track(h.grad); live.track(seen[0])
del x, h, y, scale, seen
assert live.count() == 0, live.count()
""")


# Hooks whose closure refers back to the tensor they hang on (directly or through its node).
SELF_HOOKS = {
    "leaf": "x.register_hook(lambda g: g + 0 * x.detach())",
    "intermediate": "h.register_hook(lambda g: g + 0 * h.detach())",
    "post_accumulate": "x.register_post_accumulate_grad_hook(lambda t: x)",
    "node_hook": "h.grad_fn.register_hook(lambda grad_inputs, grad_outputs: (h,) and None)",
    "node_prehook": "h.grad_fn.register_prehook(lambda grad_outputs: (h,) and None)",
}


@pytest.mark.parametrize("where", sorted(SELF_HOOKS))
@pytest.mark.parametrize("backward", [False, True])
def test_hook_closure_referring_to_its_tensor_is_collected(where, backward):
    # A hook closure that refers back to its own tensor is a reference cycle: the GC
    # (not refcounting) must free it, and the graph behind it, with it.
    run(f"""
live = LiveTensors()
def make():
    x = live.track(cygrad.tensor(A, requires_grad=True))
    h = live.track(x.sin())
    {SELF_HOOKS[where]}
    y = live.track((h * x).sum())
    if {backward}:
        y.backward()
        check_grad(x)
        live.track(x.grad)
make()
gc.collect()
assert live.count() == 0, live.count()
""")


# A random program over 1-D tensors, run in cygrad and, for the gradients, by a reverse
# pass written out in NumPy; then every Python reference is dropped in a random order,
# with backward() at a random point in between.
RANDOM_GRAPHS = """
OPS = {
    "add": (2, lambda a, b: a + b, lambda g, a, b: (g, g)),
    "sub": (2, lambda a, b: a - b, lambda g, a, b: (g, -g)),
    "mul": (2, lambda a, b: a * b, lambda g, a, b: (g * b, g * a)),
    "sin": (1, lambda a: a.sin(), lambda g, a: (g * np.cos(a),)),
    "tanh": (1, lambda a: a.tanh(), lambda g, a: (g * (1 - np.tanh(a) ** 2),)),
    "half": (1, lambda a: a * 0.5, lambda g, a: (g * 0.5,)),
    "view": (1, lambda a: a.view(-1), lambda g, a: (g,)),
    "flip2": (1, lambda a: a.reshape(2, -1).t().reshape(-1),
              lambda g, a: (g.reshape(-1, 2).T.reshape(-1),)),
}
NP_FWD = {"sin": np.sin, "tanh": np.tanh, "half": lambda a: a * 0.5, "view": lambda a: a,
          "flip2": lambda a: a.reshape(2, -1).T.reshape(-1)}

def one(seed, n):
    rng = random.Random(seed)
    nprng = np.random.default_rng(seed)
    live = LiveTensors()
    env, vals, tape = {}, [], []
    for i in range(3):
        v = nprng.uniform(-1, 1, n)
        env[f"t{i}"] = live.track(cygrad.tensor(v, requires_grad=True))
        vals.append(v)
    for k in range(3, 3 + rng.randrange(4, 14)):
        op = rng.choice(sorted(OPS))
        arity, fwd, _ = OPS[op]
        args = [rng.randrange(k) for _ in range(arity)]
        tape.append((op, args))
        env[f"t{k}"] = live.track(fwd(*[env[f"t{a}"] for a in args]))
        v = [vals[a] for a in args]
        vals.append(v[0] + v[1] if op == "add" else v[0] - v[1] if op == "sub" else
                    v[0] * v[1] if op == "mul" else NP_FWD[op](v[0]))
    last = len(vals) - 1
    env["root"] = live.track((env[f"t{last}"] * env[f"t{last}"]).sum())
    grads = [np.zeros(n) for _ in vals]
    grads[last] = 2 * vals[last]
    for k in range(last, 2, -1):
        op, args = tape[k - 3]
        for a, g in zip(args, OPS[op][2](grads[k], *[vals[a] for a in args])):
            grads[a] = grads[a] + g
    names = sorted(env)
    rng.shuffle(names)
    at = rng.randrange(len(names))          # run backward after deleting this many
    used = {last}
    for k in range(last, 2, -1):
        if k in used:
            used.update(tape[k - 3][1])
    leaf_grads = {}
    for i, name in enumerate(names):
        if i == at and "root" in env:
            env["root"].backward()
            for j in range(3):
                if f"t{j}" in env:
                    leaf_grads[j] = env[f"t{j}"].grad
        del env[name]
    for j, g in leaf_grads.items():
        if j not in used:
            assert g is None, (seed, j)
            continue
        live.track(g)
        np.testing.assert_allclose(g.numpy(), grads[j], rtol=1e-10, atol=1e-12, err_msg=f"seed {seed}")
        CHECKED.append(seed)
    g = None
    del leaf_grads
    assert live.count() == 0, (seed, live.count())

CHECKED = []
for seed in range(SEEDS):
    one(seed, SIZE)
assert len(CHECKED) > SEEDS // 2, len(CHECKED)     # most programs did check gradients
"""


@pytest.mark.parametrize("size", [2, 256, 258, 4096])
def test_random_graphs_deleted_in_random_order(size):
    run(f"SEEDS, SIZE = 150, {size}\n" + RANDOM_GRAPHS)
