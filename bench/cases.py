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
        Case("x.sum(0)", two_d, matrix, same=lambda x: x.sum(0), rtol=1e-3),
        Case("x.amax(0)", two_d, matrix,
             ops=per_lib(lambda x: x.amax(0), lambda x: x.max(axis=0), lambda x: x.amax(0))),
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
    cases.extend(_product_layout_cases(cygrad, torch, per_lib))
    cases.extend(small_op_cases(cygrad, torch))
    cases.extend(_numpy_api_cases())
    cases.extend(_recurrent_cases(cygrad, torch))
    cases.extend(_conv_cases(cygrad, torch))
    cases.extend(_scatter_cases(cygrad, torch))
    cases.extend(_training_cases(cygrad, torch, quick))
    cases += loop_cases(cygrad, torch, quick)
    return cases


def _product_layout_cases(cygrad, torch, per_lib):
    """A transformer's products (float32): attention scores on (B, H, T, D) views of
    one (B, T, 3C) projection, a batch folded into one GEMM, linear's backward."""
    from harness import Case
    group = "matrix products of views and batches (float32)"
    B, T, H, D = 32, 32, 4, 16
    C = H * D

    def scores(x):
        q, k, _ = x.split(C, dim=2)
        q = q.view(B, T, H, D).transpose(1, 2)
        k = k.view(B, T, H, D).transpose(1, 2)
        return q @ k.transpose(-2, -1)

    def arrays(*shapes):
        return lambda rng: tuple(_uniform(rng, s) for s in shapes)

    return [
        Case("q @ k^T, (32,4,32,16) views", group, arrays((B, T, 3 * C)),
             ops=per_lib(scores, None, scores), rtol=1e-3, atol=1e-3),
        Case("(32,32,64) @ w.T, w (256,64)", group, arrays((B, T, C), (256, C)),
             same=lambda x, w: x @ w.T, rtol=1e-3, atol=1e-3),
        Case("g.T @ x, (1024,256).T @ (1024,64)", group, arrays((B * T, 256), (B * T, C)),
             same=lambda g, x: g.T @ x, rtol=1e-3, atol=1e-3),
        Case("bmm (64,128,128)", group, arrays((64, 128, 128), (64, 128, 128)),
             same=lambda a, b: a @ b, rtol=1e-3, atol=1e-3),
    ]


def small_op_cases(cygrad, torch):
    """Small calls beyond arithmetic (selection, joining, reductions along a dim, a
    small matrix product), then where/masked_fill on 100k elements with a random mask
    beside the mask multiply they compete with.

    Examples
    --------
    >>> import cygrad
    >>> from cases import small_op_cases
    >>> [c.name for c in small_op_cases(cygrad, None)][:3]
    ['where(c, a, b)', 'cat([a, b])', 'x.amax(dim=1)']
    """
    from harness import Case
    small = "small ops beyond arithmetic: 100 float32, or 10x10 (time per call)"
    medium = "selection on 1000x100 float32 with a random mask"

    def per_lib(cy, npy, th):
        ops = {"cygrad": cy, "numpy": npy}
        if torch is not None:
            ops["torch"] = th
        return ops

    def masked(shape):
        def setup(rng):
            a = _uniform(rng, shape)
            return rng.random(shape) < 0.5, a, _uniform(rng, shape)
        return setup

    def one(rng):
        return (_uniform(rng, 100),)

    def two(rng):
        return (_uniform(rng, 100), _uniform(rng, 100))

    def mat(rng):
        return (_uniform(rng, (10, 10)),)

    def mat8(rng):
        return (_uniform(rng, (8, 8)),)

    zero = np.float32(0)
    where_ops = per_lib(lambda c, a, b: cygrad.where(c, a, b), np.where,
                        lambda c, a, b: torch.where(c, a, b))
    fill_ops = per_lib(lambda c, a, b: a.masked_fill(c, 0.0), lambda c, a, b: np.where(c, zero, a),
                       lambda c, a, b: a.masked_fill(c, 0.0))
    return [
        Case("where(c, a, b)", small, masked(100), ops=where_ops, timing="per_call"),
        Case("cat([a, b])", small, two, timing="per_call",
             ops=per_lib(lambda a, b: cygrad.cat([a, b]), lambda a, b: np.concatenate([a, b]),
                         lambda a, b: torch.cat([a, b]))),
        Case("x.amax(dim=1)", small, mat, timing="per_call",
             ops=per_lib(lambda x: cygrad.amax(x, dim=1), lambda x: x.max(axis=1),
                         lambda x: torch.amax(x, dim=1))),
        # values and indices in every library (the values are what is compared)
        Case("x.max(dim=1)", small, mat, timing="per_call",
             ops=per_lib(lambda x: x.max(dim=1).values,
                         lambda x: (x.argmax(axis=1), x.max(axis=1))[1],
                         lambda x: x.max(dim=1).values)),
        Case("x.mean(0)", small, mat, timing="per_call",
             ops=per_lib(lambda x: x.mean(0), lambda x: x.mean(0), lambda x: x.mean(0))),
        Case("a.std()", small, one, timing="per_call",
             ops=per_lib(lambda a: a.std(), lambda a: a.std(ddof=1), lambda a: a.std())),
        Case("clamp(a, -1, 1)", small, one, timing="per_call",
             ops=per_lib(lambda a: cygrad.clamp(a, -1.0, 1.0), lambda a: np.clip(a, -1.0, 1.0),
                         lambda a: torch.clamp(a, -1.0, 1.0))),
        Case("a.masked_fill(c, 0)", small, masked(100), ops=fill_ops, timing="per_call"),
        Case("x @ x (8x8)", small, mat8, same=lambda x: x @ x, timing="per_call"),
        Case("where(c, a, b)  [1000x100]", medium, masked((1000, 100)), ops=where_ops),
        Case("a.masked_fill(c, 0)  [1000x100]", medium, masked((1000, 100)), ops=fill_ops),
        Case("a * c  (mask multiply)  [1000x100]", medium, masked((1000, 100)),
             same=lambda c, a, b: a * c),
    ]


def _numpy_api_cases():
    """bench/numpy_api.py's cases (cygrad.numpy vs NumPy), in the main table too."""
    import numpy_api
    return numpy_api.make_cases()


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


def _recurrent_cases(cygrad, torch):
    """Recurrent training steps (issues 9 and 16), forward + backward with the same
    weights in every library: ``nn.LSTM(128, 128)`` and ``nn.GRU(128, 128)`` over a
    (32, 32, 128) float32 sequence, ``nn.RNN(65, 128)`` (tanh) over (32, 32, 65)."""
    from harness import Case
    seq, batch, size = 32, 32, 128
    rng = np.random.default_rng(1)
    bound = 1 / np.sqrt(size)
    cases = []
    for kind, gates, inputs in (("LSTM", 4, size), ("GRU", 3, size), ("RNN", 1, 65)):
        weights = {name: _uniform(rng, shape, -bound, bound) for name, shape in (
            ("weight_ih_l0", (gates * size, inputs)), ("weight_hh_l0", (gates * size, size)),
            ("bias_ih_l0", (gates * size,)), ("bias_hh_l0", (gates * size,)))}
        cy = getattr(cygrad.nn, kind)(inputs, size)
        cy.load_state_dict({k: cygrad.tensor(v) for k, v in weights.items()})
        ops = {"cygrad": lambda x, m=cy: m(x)[0].sum().backward()}
        if torch is not None:
            th = getattr(torch.nn, kind)(inputs, size)
            th.load_state_dict({k: torch.from_numpy(v.copy()) for k, v in weights.items()})
            ops["torch"] = lambda x, m=th: m(x)[0].sum().backward()
        cases.append(Case(f"{kind}({inputs}, {size}) seq {seq} batch {batch}: forward + backward",
                          "recurrent layers (float32)",
                          lambda rng, n=inputs: (_uniform(rng, (seq, batch, n)),),
                          ops=ops, requires_grad=True))
    return cases


def _conv_cases(cygrad, torch):
    """A CNN's two workhorses (issue 9), forward + backward on float32: ``conv2d``
    (N=32, 16 -> 32 channels, 32x32, 3x3, padding 1) and 2x2 ``max_pool2d``."""
    from harness import Case
    group = "convolution and pooling: forward + backward (float32)"

    def conv_inputs(rng):
        return (_uniform(rng, (32, 16, 32, 32)), _uniform(rng, (32, 16, 3, 3), -0.1, 0.1),
                _uniform(rng, (32,), -0.1, 0.1))

    def conv(F):
        return lambda x, w, b: F.conv2d(x, w, b, padding=1).sum().backward()

    def pool(F):
        return lambda x: F.max_pool2d(x, 2).sum().backward()

    libs = {"cygrad": cygrad.nn.functional}
    if torch is not None:
        libs["torch"] = torch.nn.functional
    return [Case("conv2d N32 16->32 32x32 k3 pad1", group, conv_inputs,
                 ops={k: conv(F) for k, F in libs.items()}, requires_grad=True),
            Case("max_pool2d 2x2 N32 C16 32x32", group,
                 lambda rng: (_uniform(rng, (32, 16, 32, 32)),),
                 ops={k: pool(F) for k, F in libs.items()}, requires_grad=True)]


def _scatter_cases(cygrad, torch):
    """Scatter-adds (cpu/scatter.c): ``index_add`` of 1,536 rows into (1000, 64), the
    embedding gradient's shape, and ``scatter_add`` into (512, 64) along dim 0; NumPy
    is ``np.add.at`` on a copy.  ``bench/scatter.py`` times the backward passes."""
    from harness import Case
    group = "scatter-adds (float32, out of place)"

    def rows(rng):
        return (np.zeros((1000, 64), np.float32), rng.integers(0, 1000, 1536),
                _uniform(rng, (1536, 64)))

    def grid(rng):
        return (np.zeros((512, 64), np.float32), rng.integers(0, 512, (512, 64)),
                _uniform(rng, (512, 64)))

    def np_index_add(x, i, s):
        out = x.copy()
        np.add.at(out, i, s)
        return out

    def np_scatter_add(x, i, s):
        out = x.copy()
        np.add.at(out, (i, np.arange(i.shape[1])), s)
        return out

    def index_add(x, i, s):
        return x.index_add(0, i, s)

    def scatter_add(x, i, s):
        return x.scatter_add(0, i, s)

    def libs(cy, npy):
        ops = {"cygrad": cy, "numpy": npy}
        if torch is not None:
            ops["torch"] = cy
        return ops
    return [Case("index_add (1000,64) dim 0, 1536 rows", group, rows,
                 ops=libs(index_add, np_index_add)),
            Case("scatter_add (512,64) dim 0", group, grid, ops=libs(scatter_add, np_scatter_add))]


def _same_weights(models, rng):
    """Give every library's copy of a model the same random float32 weights."""
    first = next(iter(models.values()))
    weights = {k: _uniform(rng, tuple(v.shape), -0.1, 0.1) for k, v in first.state_dict().items()}
    for lib, model in models.items():
        model.load_state_dict({k: lib.from_numpy(v.copy()) for k, v in weights.items()})


def mlp(T):
    """The bench's MLP, 784-256-128-10, built with library ``T`` (cygrad or torch)."""
    nn = T.nn
    return nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                         nn.Linear(128, 10))


def cnn(T):
    """The bench's small CNN (c16-pool-c32-pool-fc on 1x28x28), built with library ``T``."""
    nn = T.nn
    return nn.Sequential(nn.Conv2d(1, 16, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Conv2d(16, 32, 3, padding=1), nn.ReLU(), nn.MaxPool2d(2),
                         nn.Flatten(), nn.Linear(32 * 7 * 7, 10))


def _training_cases(cygrad, torch, quick):
    """Whole training steps (issue 9): an MLP with SGD, a small CNN with Adam,
    DataLoader throughput with two workers, and the peak memory of a process
    that imports the library and trains the MLP."""
    from harness import Case
    group = "training (float32): one step = zero_grad, forward, loss, backward, step"
    libs = {"cygrad": cygrad} if torch is None else {"cygrad": cygrad, "torch": torch}
    rng = np.random.default_rng(2)

    def step_ops(build, make_opt, x, y):
        models = {T: build(T) for T in libs.values()}
        _same_weights(models, rng)
        ops = {}
        for name, T in libs.items():
            model, xs, ys = models[T], T.from_numpy(x.copy()), T.from_numpy(y.copy())
            opt, loss_fn = make_opt(T, model), T.nn.CrossEntropyLoss()

            def step(model=model, opt=opt, loss_fn=loss_fn, xs=xs, ys=ys):
                opt.zero_grad()
                loss_fn(model(xs), ys).backward()
                opt.step()
            ops[name] = step
        return ops

    labels = lambda n: rng.integers(0, 10, n).astype(np.int64)  # noqa: E731
    cases = [
        # setup gives no inputs and requires_grad marks a case NumPy has no column for
        Case("MLP 784-256-128-10 batch 128, SGD", group, lambda r: (),
             ops=step_ops(mlp, lambda T, m: T.optim.SGD(m.parameters(), lr=0.01, momentum=0.9),
                          _uniform(rng, (128, 784)), labels(128)), requires_grad=True),
        Case("CNN c16-pool-c32-pool-fc 1x28x28 batch 64, Adam", group, lambda r: (),
             ops=step_ops(cnn, lambda T, m: T.optim.Adam(m.parameters(), lr=1e-3),
                          _uniform(rng, (64, 1, 28, 28)), labels(64)), requires_grad=True),
    ]

    # DataLoader: one epoch over a TensorDataset, two persistent workers (started
    # by the warm-up call, so the timing is the batches' transport, not start-up).
    # Built on first call: make_cases() should not allocate the data set.
    n = 1024 if quick else 4096
    loaders = {}

    def epoch(name):
        def run():
            if name not in loaders:
                import cygrad.utils.data
                T = libs[name]
                data = torch.utils.data if name == "torch" else cygrad.utils.data
                images, targets = _uniform(rng, (n, 3, 32, 32)), labels(n)
                ds = data.TensorDataset(T.from_numpy(images), T.from_numpy(targets))
                loaders[name] = data.DataLoader(ds, batch_size=128, shuffle=True,
                                                num_workers=2, persistent_workers=True)
            for _ in loaders[name]:
                pass
        return run
    cases.append(Case(f"DataLoader 2 workers: epoch of {n} x (3,32,32), batch 128", group,
                      lambda r: (), ops={name: epoch(name) for name in libs},
                      requires_grad=True,
                      note="time per epoch (persistent workers); throughput ratio = 1 / cy/torch"))

    # Peak RSS: a fresh process imports the library and trains the MLP for 100
    # steps; its time is what the table shows, its peak RSS goes in the note.
    rss = {}
    rss_case = Case("process: import + 100 MLP steps (peak RSS in note)", group, lambda r: (),
                    requires_grad=True)

    def in_subprocess(name):
        def run():
            import subprocess
            import sys
            out = subprocess.run([sys.executable, "-c", _RSS_SCRIPT, name], check=True,
                                 capture_output=True, text=True).stdout
            rss[name] = int(out.split()[-1]) / 1024          # KiB -> MiB
            rss_case.note = "peak RSS " + ", ".join(f"{k} {v:.0f} MiB" for k, v in rss.items())
        return run
    rss_case.ops = {name: in_subprocess(name) for name in libs}
    cases.append(rss_case)
    return cases


_RSS_SCRIPT = """
import resource, sys
T = __import__(sys.argv[1])
nn = T.nn
model = nn.Sequential(nn.Linear(784, 256), nn.ReLU(), nn.Linear(256, 128), nn.ReLU(),
                      nn.Linear(128, 10))
opt = T.optim.SGD(model.parameters(), lr=0.01)
x, y = T.randn(128, 784), T.randint(0, 10, (128,))
for _ in range(100):
    opt.zero_grad()
    nn.functional.cross_entropy(model(x), y).backward()
    opt.step()
try:
    # VmHWM: this process's own peak. ru_maxrss is not: on Linux it carries the
    # peak of the (large) benchmark process that forked this one across exec.
    with open("/proc/self/status") as f:
        print(next(line.split()[1] for line in f if line.startswith("VmHWM:")))
except OSError:
    print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)
"""
