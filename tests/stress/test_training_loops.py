"""Training-style loops: the same small graph built, run backward and freed thousands of times.

Each loop runs in a child process (``run_in_subprocess``): a use-after-free in the core
shows up as a crash there, not as a dead test session.
"""
import pytest

from stress._util import run_in_subprocess


@pytest.mark.parametrize("n", [1, 255, 256, 257, 1000])
def test_exp_sum_backward_loop(n):
    # Issue 6's reproducer: a few thousand of these crashed the interpreter once n
    # crossed 256 (CPython caches small ints below 257, which hid a reference-count bug
    # in the node metadata).
    run_in_subprocess(f"""
        import math
        import numpy as np
        import cygrad
        n = {n}
        for i in range(3000):
            x = cygrad.ones(n, requires_grad=True)
            x.exp().sum().backward()
            if i % 500 == 0:
                np.testing.assert_allclose(x.grad.numpy(), np.full(n, math.e, np.float32), rtol=1e-6)
        np.testing.assert_allclose(x.grad.numpy(), np.full(n, math.e, np.float32), rtol=1e-6)
        assert tuple(x.grad.shape) == (n,)
    """)


@pytest.mark.parametrize("shape", [(257,), (3, 300), (2, 1, 260)])
def test_shapes_above_small_int_cache(shape):
    # Node metadata stores shapes: dims of 257 and more are real int objects, not the
    # interpreter's cached ones, so a refcount slip on them is a use-after-free.
    run_in_subprocess(f"""
        import numpy as np
        import cygrad
        shape = {shape!r}
        a = np.random.default_rng(0).standard_normal(shape)
        for i in range(2000):
            x = cygrad.tensor(a, requires_grad=True)
            y = (x * x).reshape(-1)[1:].sum()
            y.backward()
        expect = 2 * a
        expect.reshape(-1)[0] = 0
        np.testing.assert_allclose(x.grad.numpy(), expect, rtol=1e-12)
        assert tuple(x.grad.shape) == shape
    """)


def test_mlp_manual_sgd_matches_numpy():
    # A two-layer perceptron trained for 2000 steps with plain SGD, once with cygrad's
    # autograd and once with a NumPy forward/backward written out by hand: same weights.
    run_in_subprocess("""
        import numpy as np
        import cygrad

        rng = np.random.default_rng(7)
        X = rng.standard_normal((32, 8))
        Y = np.sin(X @ rng.standard_normal((8, 1)))
        W1 = rng.standard_normal((8, 16)) * 0.3
        b1 = np.zeros(16)
        W2 = rng.standard_normal((16, 1)) * 0.3
        b2 = np.zeros(1)
        lr, steps = 0.05, 2000

        params = [cygrad.tensor(p, requires_grad=True) for p in (W1, b1, W2, b2)]
        x, y = cygrad.tensor(X), cygrad.tensor(Y)
        losses = []
        for step in range(steps):
            w1, c1, w2, c2 = params
            h = (x @ w1 + c1).tanh()
            loss = ((h @ w2 + c2 - y) ** 2).mean()
            loss.backward()
            with cygrad.no_grad():
                for p in params:
                    p -= lr * p.grad
                    # both ways of clearing a gradient, so both paths are exercised
                    if step % 2:
                        p.grad = None
                    else:
                        p.grad.zero_()
            losses.append(loss.item())

        np_losses = []
        for step in range(steps):
            z = X @ W1 + b1
            h = np.tanh(z)
            r = h @ W2 + b2 - Y
            np_losses.append(np.mean(r ** 2))
            g = 2 * r / r.size
            gW2, gb2 = h.T @ g, g.sum(0)
            gz = (g @ W2.T) * (1 - h ** 2)
            gW1, gb1 = X.T @ gz, gz.sum(0)
            W1, b1, W2, b2 = W1 - lr * gW1, b1 - lr * gb1, W2 - lr * gW2, b2 - lr * gb2

        np.testing.assert_allclose(losses, np_losses, rtol=1e-9)
        for p, ref in zip(params, (W1, b1, W2, b2)):
            np.testing.assert_allclose(p.detach().numpy(), ref, rtol=1e-9, atol=1e-12)
        assert losses[-1] < 0.5 * losses[0], (losses[0], losses[-1])
    """)


def test_retain_graph_loop_accumulates():
    # One graph, backward 500 times with retain_graph: gradients accumulate, nothing is
    # freed early, and the graph is freed once at the end.
    run_in_subprocess("""
        import numpy as np
        import cygrad
        a = np.linspace(-1, 1, 300)
        x = cygrad.tensor(a, requires_grad=True)
        y = (x.sin() * x).sum()
        for i in range(500):
            y.backward(retain_graph=True)
        np.testing.assert_allclose(x.grad.numpy(), 500 * (np.cos(a) * a + np.sin(a)), rtol=1e-10)
        del y
        x.grad = None
        (x.sin() * x).sum().backward()
        np.testing.assert_allclose(x.grad.numpy(), np.cos(a) * a + np.sin(a), rtol=1e-12)
    """)
