"""Four threads at once: kernels release the GIL on large inputs, so threads really overlap
inside cygrad's C code (and its OpenMP loops), on shared and on separate tensors.

Each test runs in a child process: a race that corrupts memory crashes the child only.
"""
from stress._util import run_in_subprocess

PRELUDE = """
import threading
import numpy as np
import cygrad

N = 10**6

def in_threads(work, n=4):
    # start together (barrier) so the kernels overlap; re-raise the first error
    barrier = threading.Barrier(n)
    errors = []
    def run(k):
        try:
            barrier.wait()
            work(k)
        except BaseException as e:
            errors.append(e)
    threads = [threading.Thread(target=run, args=(k,)) for k in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise errors[0]
"""


def test_large_ops_on_shared_and_separate_tensors():
    run_in_subprocess(PRELUDE + """
rng = np.random.default_rng(0)
a = rng.uniform(-1, 1, N)
shared = cygrad.tensor(a)
results = {}

def work(k):
    own_np = rng_k = np.random.default_rng(k + 1).uniform(-1, 1, N)
    own = cygrad.tensor(own_np)
    for it in range(5):
        # shared input, read by all threads at once
        s = (shared.exp() * (k + 1) + shared.sin()).sum().item()
        np.testing.assert_allclose(s, (np.exp(a) * (k + 1) + np.sin(a)).sum(), rtol=1e-9)
        # separate tensors, written in place
        own.mul_(0.5).add_(shared)
        own_np = own_np * 0.5 + a
        m = (own @ shared).item()
        np.testing.assert_allclose(m, own_np @ a, rtol=1e-9)
    results[k] = own

in_threads(work)
for k in range(4):
    expect = np.random.default_rng(k + 1).uniform(-1, 1, N)
    for it in range(5):
        expect = expect * 0.5 + a
    np.testing.assert_allclose(results[k].numpy(), expect, rtol=1e-12)
np.testing.assert_array_equal(shared.numpy(), a)     # nobody wrote into the shared input
""")


def test_concurrent_backward_into_one_shared_leaf():
    # Each thread runs backward through its own graph into the same leaf: every
    # contribution must land in x.grad exactly once (none lost to a race on
    # "x.grad is None" or to two in-place adds overlapping).
    run_in_subprocess(PRELUDE + """
for trial in range(10):
    x = cygrad.ones(N, dtype=cygrad.float64, requires_grad=True)
    def work(k):
        for it in range(4):
            (x * float(k + 1)).sum().backward()
    in_threads(work)
    np.testing.assert_array_equal(x.grad.numpy(), np.full(N, 4.0 * (1 + 2 + 3 + 4)))
""", timeout=300)


def test_threads_training_separate_models():
    # Grad mode is per thread: one thread's no_grad() (the SGD step) must not stop
    # another thread's forward from being recorded.
    run_in_subprocess(PRELUDE + """
def work(k):
    rng = np.random.default_rng(k)
    X = rng.standard_normal((64, 300))
    w_np = np.zeros(300)
    target = rng.standard_normal(300)
    w = cygrad.zeros(300, dtype=cygrad.float64, requires_grad=True)
    x = cygrad.tensor(X)
    t = cygrad.tensor(X @ target)
    for it in range(300):
        loss = ((x @ w - t) ** 2).mean()
        loss.backward()
        with cygrad.no_grad():
            w -= 0.01 * w.grad
        w.grad = None
        w_np -= 0.01 * (2 * X.T @ (X @ w_np - X @ target) / 64)
    np.testing.assert_allclose(w.detach().numpy(), w_np, rtol=1e-8, atol=1e-12)
in_threads(work)
""", timeout=300)


def test_products_cut_across_the_pool_from_several_threads():
    # Products from 2^20 multiply-adds are cut into blocks that the pool computes
    # (cygrad/_core/gemm.pyx); with four Python threads only one holds the pool at a
    # time and the others compute their blocks themselves. Thousands of products,
    # every result checked.
    run_in_subprocess(PRELUDE + """
from cygrad._core import gemm
cygrad.set_num_threads(2)
rng = np.random.default_rng(5)
shapes = [(32, 128, 512), (300, 70, 60), (96, 64, 200)]     # 2.1M, 1.3M, 1.2M multiply-adds
mats = [(rng.standard_normal((m, k)), rng.standard_normal((k, n))) for m, k, n in shapes]
refs = [a @ b for a, b in mats]
before = gemm.counters()["split"]

def work(k):
    ts = [(cygrad.tensor(a), cygrad.tensor(b)) for a, b in mats]
    for it in range(300):
        j = (it + k) % len(ts)
        a, b = ts[j]
        out = a @ b
        np.testing.assert_allclose(out.numpy(), refs[j], rtol=1e-10, atol=1e-10)
        if it % 50 == 0:        # a transposed operand and a column-major result
            o = cygrad.empty(b.shape[1], a.shape[0], dtype=a.dtype).t()
            cygrad.matmul(a.t().contiguous().t(), b, out=o)
            np.testing.assert_allclose(o.numpy(), refs[j], rtol=1e-10, atol=1e-10)

in_threads(work)
assert gemm.counters()["split"] > before
""", timeout=600)


def test_mid_size_jobs_with_both_threads_on_one_core():
    # Both pool threads pinned to one core: a worker is descheduled mid-chunk
    # whenever the caller runs, the situation the pool's stall detection is for
    # (cpu/parallel.c). Thousands of fused rows and batched products of the sizes
    # that split only while the pool is not contended; every result checked.
    run_in_subprocess(PRELUDE + """
import os
from cygrad._core import tensor as C
os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
cygrad.set_num_threads(2)
F = cygrad.nn.functional
rng = np.random.default_rng(6)
x = rng.standard_normal((256, 300)).astype(np.float32)
q = rng.standard_normal((128, 32, 16)).astype(np.float32)
sm = np.exp(x - x.max(-1, keepdims=True)); sm /= sm.sum(-1, keepdims=True)
qq = q @ q.transpose(0, 2, 1)
tx, tq = cygrad.tensor(x), cygrad.tensor(q)
for it in range(1500):
    C._set_pool_contended(it % 3 == 0)      # both paths, whatever the detector says
    np.testing.assert_allclose(F.softmax(tx, -1).numpy(), sm, rtol=1e-5, atol=1e-7)
    np.testing.assert_allclose((tq @ tq.transpose(1, 2)).numpy(), qq, rtol=1e-4, atol=1e-4)
C._set_pool_contended(False)
print("stalls", C._pool_contention()[1])
""", timeout=600)
