"""The benchmark cases, each declared once for every library.

Inputs are float32. Each callable is what a user would write, so every call
allocates its own output (``a + b``, not ``np.add(a, b, out=...)``).

Examples
--------
>>> from cases import make_cases
>>> [c.name for c in make_cases(quick=True)][:3]
['a + b', 'a * b', 'a.sum()']
"""
import numpy as np

SMALL = "small ops on 100 float32 (time per call)"


def _optional(name):
    try:
        return __import__(name)
    except ImportError:
        return None


def _uniform(rng, shape, low=-2.0, high=2.0):
    return (rng.random(shape, dtype=np.float32) * (high - low) + low).astype(np.float32)


def _numpy_sigmoid(a):
    # NumPy has no sigmoid; this is the fastest plain-NumPy form that still
    # allocates one output per call: four passes over a single buffer.
    out = np.negative(a)
    np.exp(out, out=out)
    out += 1
    return np.reciprocal(out, out=out)


def make_cases(quick=False):
    """All cases, with smaller large-op sizes when ``quick``.

    Examples
    --------
    >>> from cases import make_cases
    >>> len(make_cases()) == len(make_cases(quick=True))
    True
    """
    import cygrad
    torch = _optional("torch")

    n_big = 1_000_000 if quick else 10_000_000
    rows = 1024 if quick else 4096
    matmul_sizes = (64, 256, 512) if quick else (256, 1024, 2048)
    big = f"{n_big / 1e6:g}M float32 elementwise and reductions"
    two_d = f"{rows}x{rows} float32: row sums and broadcasting"

    def small(rng):
        return (_uniform(rng, 100), _uniform(rng, 100))

    def one_small(rng):
        return (_uniform(rng, 100),)

    def vec(rng):
        return (_uniform(rng, n_big),)

    def vec_pair(rng):
        return (_uniform(rng, n_big), _uniform(rng, n_big))

    def positive_vec(rng):
        # sums of values in [0, 1): no cancellation, so float32 results are comparable
        return (rng.random(n_big, dtype=np.float32),)

    def matrix(rng):
        return (rng.random((rows, rows), dtype=np.float32),)

    def matrix_row(rng):
        return (_uniform(rng, (rows, rows)), _uniform(rng, rows))

    def matrix_col(rng):
        return (_uniform(rng, (rows, rows)), _uniform(rng, (rows, 1)))

    def square_pair(size):
        return lambda rng: (rng.random((size, size), dtype=np.float32),
                            rng.random((size, size), dtype=np.float32))

    def per_lib(cy, npy, th):
        ops = {"cygrad": cy, "numpy": npy}
        if torch is not None:
            ops["torch"] = th
        return ops

    from harness import Case

    exp_ops = per_lib(lambda a: a.exp(), np.exp, lambda a: a.exp())
    cases = [
        Case("a + b", SMALL, small, same=lambda a, b: a + b, timing="per_call"),
        Case("a * b", SMALL, small, same=lambda a, b: a * b, timing="per_call"),
        Case("a.sum()", SMALL, one_small, same=lambda a: a.sum(), timing="per_call"),
        Case("a.exp()", SMALL, one_small, ops=exp_ops, timing="per_call"),
        Case("a[3:50]", SMALL, one_small, same=lambda a: a[3:50], timing="per_call"),
        Case("a.reshape(10, 10)", SMALL, one_small, same=lambda a: a.reshape(10, 10),
             timing="per_call"),
        Case("zeros(100)", SMALL, lambda rng: (),
             ops=per_lib(lambda: cygrad.zeros(100), lambda: np.zeros(100, np.float32),
                         lambda: torch.zeros(100)),
             timing="per_call"),

        Case("add  a + b", big, vec_pair, same=lambda a, b: a + b),
        Case("mul  a * b", big, vec_pair, same=lambda a, b: a * b),
        Case("exp", big, vec, ops=exp_ops),
        Case("tanh", big, vec, ops=per_lib(lambda a: a.tanh(), np.tanh, lambda a: a.tanh())),
        Case("sigmoid", big, vec,
             ops=per_lib(lambda a: a.sigmoid(), _numpy_sigmoid, lambda a: a.sigmoid()),
             note="NumPy has no sigmoid: timed as 1/(1+exp(-a)) in one buffer"),
        Case("sum", big, positive_vec, same=lambda a: a.sum(), rtol=1e-3),
        Case("max", big, vec, same=lambda a: a.max()),

        Case("x.sum(1)", two_d, matrix, same=lambda x: x.sum(1), rtol=1e-3),
        Case(f"({rows},{rows}) + ({rows},)", two_d, matrix_row, same=lambda x, r: x + r),
        Case(f"({rows},{rows}) + ({rows},1)", two_d, matrix_col, same=lambda x, c: x + c),
    ]
    # Autograd: the same small ops on inputs that require grad (the graph is recorded
    # on every call), and forward + backward of a 100-op chain.
    grad = "autograd: small ops on 100 float32 with requires_grad=True (time per call)"
    autograd_ops = [("a + b", small, lambda a, b: a + b), ("a * b", small, lambda a, b: a * b),
                    ("a.sum()", one_small, lambda a: a.sum()), ("a.exp()", one_small, lambda a: a.exp()),
                    ("a[3:50]", one_small, lambda a: a[3:50]),
                    ("a.reshape(10, 10)", one_small, lambda a: a.reshape(10, 10))]
    for name, setup, fn in autograd_ops:
        cases.append(Case(name + " (grad)", grad, setup,
                          ops=per_lib(fn, None, fn), requires_grad=True, timing="per_call"))

    def chain(a):
        x = a
        for _ in range(25):
            x = x * 1.01
            x = x + 0.1
            x = x.tanh()
            x = x.sin()
        x.sum().backward()

    cases.append(Case("chain of 100 ops: forward + backward", "autograd: 100-op chain "
                      "(mul, add, tanh, sin) on 100 float32", one_small,
                      ops=per_lib(chain, None, chain), requires_grad=True))
    for size in matmul_sizes:
        cases.append(Case(f"matmul {size}x{size} @ {size}x{size}", "matrix products (float32)",
                          square_pair(size), same=lambda a, b: a @ b, rtol=1e-3, atol=1e-3))
    cases += loop_cases(cygrad, torch, quick)
    return cases


def loop_cases(cygrad, torch, quick=False):
    """Training loops (bench/loops.py), each quiet and with one busy process beside it.

    Examples
    --------
    >>> import cygrad
    >>> from cases import loop_cases
    >>> [c.busy for c in loop_cases(cygrad, None, quick=True)]
    [0, 0, 0, 1, 1, 1]
    """
    import functools

    import loops
    from harness import Case

    steps = 20 if quick else 100

    def each(fn, numpy_fn=None):
        ops = {"cygrad": functools.partial(fn, cygrad, steps=steps)}
        if numpy_fn is not None:
            ops["numpy"] = functools.partial(numpy_fn, steps=steps)
        if torch is not None:
            ops["torch"] = functools.partial(fn, torch, steps=steps)
        return ops

    loops_ = [
        ("two-layer net, raw tensor ops", loops.two_layer_inputs,
         each(loops.two_layer_raw, loops.two_layer_raw_numpy)),
        ("two-layer net, autograd", loops.two_layer_inputs, each(loops.two_layer_autograd)),
        ("MLP 784-128-64-10, autograd", loops.mlp_inputs, each(loops.mlp_step)),
    ]
    cases = []
    for busy, label in ((0, "quiet"), (1, "1 busy process beside it")):
        group = f"training loops, {steps} steps per call ({label})"
        suffix = "" if busy == 0 else " [busy]"
        for name, setup, ops in loops_:
            cases.append(Case(name + suffix, group, setup, ops=ops, busy=busy, rtol=1e-3))
    return cases
