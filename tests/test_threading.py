"""The threading policy: one thread budget for cygrad's kernels and the BLAS.

Results must not depend on the thread count: elementwise ops and whole-row
reductions are computed element by element the same way whatever thread runs
them, and reductions of a few long rows are split by the row length alone, so
1 and 2 threads give identical bits. The parallel thresholds are lowered here
so small inputs (fast tests) take the pooled path.
"""
import multiprocessing
import os
import subprocess
import sys
import threading
import time

import numpy as np
import pytest

import cygrad
from cygrad import _threading
from cygrad._core import tensor as C


@pytest.fixture
def restore_threads():
    old = cygrad.get_num_threads()
    yield
    cygrad.set_num_threads(old)


@pytest.fixture
def pooled(restore_threads):
    """Every kernel family uses the pool from one element on."""
    saved = C._get_parallel_min()
    for family in saved:
        C._set_parallel_min(family, 1)
    yield
    for family, n in saved.items():
        C._set_parallel_min(family, n)


def _blas_threads():
    threadpoolctl = pytest.importorskip("threadpoolctl")
    # NumPy's own BLAS only: torch or SciPy, imported by other tests, bring their own
    # BLAS libraries, which cygrad does not drive.
    pools = [p for p in threadpoolctl.threadpool_info()
             if p["user_api"] == "blas" and "numpy" in p["filepath"]]
    if not pools:
        pytest.skip(reason="NumPy's BLAS is not visible to threadpoolctl here")
    return {p["num_threads"] for p in pools}


def test_set_num_threads_round_trips(restore_threads):
    for n in (1, 3, 2):
        cygrad.set_num_threads(n)
        assert cygrad.get_num_threads() == n


@pytest.mark.parametrize("bad", [0, -1, 1.5, "2", True])
def test_set_num_threads_rejects_non_positive_ints(bad, restore_threads):
    with pytest.raises(RuntimeError):
        cygrad.set_num_threads(bad)


def test_set_num_threads_sets_blas_too(restore_threads):
    cygrad.set_num_threads(1)
    assert _blas_threads() == {1}
    cygrad.set_num_threads(2)
    assert _blas_threads() == {2}


def test_small_product_leaves_blas_thread_count_as_set(restore_threads):
    cygrad.set_num_threads(2)
    a = cygrad.ones(8, 8)
    (a @ a).sum()
    assert _blas_threads() == {2}


def test_small_products_use_one_blas_thread():
    assert _threading.blas_threads_for(64 * 1000 * 100) == 1
    assert _threading.blas_threads_for(_threading.BLAS_PARALLEL_MIN) == _threading._blas_threads


@pytest.mark.skipif(not os.path.isdir("/proc/self/task"), reason="needs Linux /proc")
def test_kernels_use_the_set_number_of_threads():
    # In a fresh process: pool workers (named cygrad-pool) are created on first
    # use, n - 1 of them.
    code = (
        "import os, cygrad\n"
        "from cygrad._core import tensor as C\n"
        "C._set_parallel_min('unary_math', 1)\n"
        "def count():\n"
        "    return sum(open(f'/proc/self/task/{t}/comm').read().strip() == 'cygrad-pool'\n"
        "               for t in os.listdir('/proc/self/task'))\n"
        "cygrad.set_num_threads(1)\n"
        "a = cygrad.rand(1 << 16)\n"
        "before = count(); a.exp(); one = count()\n"
        "cygrad.set_num_threads(3); a.exp(); three = count()\n"
        "print(one - before, three - before)\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "2"]


def test_pool_counters_count_jobs_run_across_threads(pooled):
    # a job the pool runs on two threads counts once; on one thread, never
    a = cygrad.rand(1 << 16)
    cygrad.set_num_threads(1)
    before = C._pool_counters()
    a.exp()
    assert C._pool_counters()["jobs"] == before["jobs"]
    cygrad.set_num_threads(2)
    a.exp()
    after = C._pool_counters()
    assert after["jobs"] == before["jobs"] + 1
    assert after["wakeups"] - before["wakeups"] in (0, 1)
    assert after["wait_ms"] >= before["wait_ms"]


def _both(fn, *arrays):
    """fn on cygrad tensors with 1 and with 2 threads, as NumPy arrays."""
    results = []
    for n in (1, 2):
        cygrad.set_num_threads(n)
        results.append(np.asarray(fn(*[cygrad.tensor(a) for a in arrays]).numpy()))
    return results


def test_elementwise_identical_for_1_and_2_threads(pooled):
    rng = np.random.default_rng(0)
    a = rng.standard_normal((300, 500)).astype(np.float32)
    b = rng.standard_normal((300, 500)).astype(np.float32)
    col = rng.standard_normal((300, 1)).astype(np.float32)
    cases = [
        (lambda x, y: x * y + x, (a, b), a * b + a),
        (lambda x, y: x.t() - y.t(), (a, b), a.T - b.T),              # strided
        (lambda x, c: x / c, (a, col), a / col),                      # broadcast
        (lambda x: x.exp(), (a,), np.exp(a)),
        (lambda x: x.tanh(), (a.ravel(),), np.tanh(a.ravel())),       # one long run
        (lambda x: x.t().clone(), (a,), a.T.copy()),                  # copy of a view
    ]
    for fn, args, ref in cases:
        one, two = _both(fn, *args)
        np.testing.assert_array_equal(one, two)
        np.testing.assert_allclose(one, ref, rtol=1e-6, atol=1e-6)


@pytest.mark.parametrize("shape", [(200_001,), (3, 100_000), (500, 400)])
def test_reductions_identical_for_1_and_2_threads(shape, pooled):
    a = np.random.default_rng(1).standard_normal(shape).astype(np.float32)
    for fn, ref in [(lambda x: x.sum(-1), a.astype(np.float64).sum(-1)),
                    (lambda x: x.amax(-1), a.max(-1)), (lambda x: x.amin(-1), a.min(-1))]:
        one, two = _both(fn, a)
        np.testing.assert_array_equal(one, two)
        np.testing.assert_allclose(one, ref, rtol=1e-5, atol=1e-3)


def test_reduction_nan_propagates_from_any_piece(pooled):
    a = np.ones(200_000, np.float32)
    a[150_000] = np.nan
    for n in (1, 2):
        cygrad.set_num_threads(n)
        assert np.isnan(cygrad.tensor(a).amax().item())
        assert np.isnan(cygrad.tensor(a).sum().item())


def test_threaded_results_match_the_default_thresholds(restore_threads):
    # Above the measured thresholds (no lowering): the 1- and 2-thread paths agree.
    a = np.random.default_rng(2).standard_normal(1 << 20).astype(np.float32)
    one, two = _both(lambda x: (x * 2 + 1).exp().sum(), a)
    np.testing.assert_array_equal(one, two)


def test_python_threads_share_the_pool(pooled):
    # Two callers at once: one gets the pool, the other runs its chunks itself.
    a = np.random.default_rng(3).standard_normal(1 << 17).astype(np.float32)
    t = cygrad.tensor(a)
    cygrad.set_num_threads(1)
    expected = (t * 3).exp().numpy()
    np.testing.assert_allclose(expected, np.exp(a * np.float32(3)), rtol=1e-6)
    cygrad.set_num_threads(2)
    errors = []

    def work():
        for _ in range(20):
            if not np.array_equal((t * 3).exp().numpy(), expected):
                errors.append("mismatch")

    threads = [threading.Thread(target=work) for _ in range(3)]
    for th in threads:
        th.start()
    for th in threads:
        th.join()
    assert errors == []


def _child_threads(queue):
    import cygrad as cg
    queue.put(cg.get_num_threads())


@pytest.mark.parametrize("method", ["fork", "spawn"])
def test_worker_processes_start_single_threaded(method, restore_threads):
    if method not in multiprocessing.get_all_start_methods():
        pytest.skip(reason=f"no {method} start method on this platform")
    cygrad.set_num_threads(2)
    ctx = multiprocessing.get_context(method)
    queue = ctx.Queue()
    proc = ctx.Process(target=_child_threads, args=(queue,))
    proc.start()
    got = queue.get(timeout=60)
    proc.join(timeout=60)
    assert got == 1
    assert cygrad.get_num_threads() == 2          # the parent keeps its own


def test_worker_init_hook(restore_threads):
    _threading.worker_init()
    assert cygrad.get_num_threads() == 1
    _threading.worker_init(2)
    assert cygrad.get_num_threads() == 2


def test_forked_child_can_compute_in_parallel_again(pooled):
    # The parent used the pool; the child must not wait on the parent's workers.
    if "fork" not in multiprocessing.get_all_start_methods():
        pytest.skip(reason="no fork start method on this platform")
    cygrad.set_num_threads(2)
    (cygrad.rand(1 << 16) * 2).sum()
    code_ok = os.fork()
    if code_ok == 0:
        try:
            cygrad.set_num_threads(2)
            x = cygrad.ones(1 << 17)
            os._exit(0 if (x * 2).sum().item() == 2 * (1 << 17) else 1)
        except BaseException:
            os._exit(2)
    _, status = os.waitpid(code_ok, 0)
    assert os.waitstatus_to_exitcode(status) == 0


def test_interop_threads_set_once():
    code = ("import cygrad\n"
            "assert cygrad.get_num_interop_threads() >= 1\n"
            "try:\n"
            "    cygrad.set_num_interop_threads(3)\n"
            "except RuntimeError:\n"
            "    print('raised')\n")
    # reading it first fixes it, as in PyTorch once parallel work has started
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "raised"
    code = ("import cygrad\n"
            "cygrad.set_num_interop_threads(3)\n"
            "print(cygrad.get_num_interop_threads())\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=60)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"


def test_env_sets_the_initial_count():
    env = dict(os.environ, CYGRAD_NUM_THREADS="3")
    out = subprocess.run([sys.executable, "-c", "import cygrad; print(cygrad.get_num_threads())"],
                         capture_output=True, text=True, timeout=60, env=env)
    assert out.returncode == 0, out.stderr
    assert out.stdout.strip() == "3"


def test_info_reports_the_policy():
    policy = _threading.policy()
    assert policy["num_threads"] == cygrad.get_num_threads()
    assert set(policy["parallel_min"]) == {"binary", "unary_cheap", "unary_math", "reduce"}
    from cygrad.info import collect, format_report
    assert "intra-op (cygrad's kernels and BLAS together)" in format_report(collect())


# ---- contention: mid-sized jobs take the pool only while no worker stalled lately

def test_pool_contention_state_round_trips():
    try:
        C._set_pool_contended(True)
        contended, stalls = C._pool_contention()
        assert contended is True and stalls >= 0
        C._set_pool_contended(False)
        assert C._pool_contention()[0] is False
    finally:
        C._set_pool_contended(False)


_BUSY = "import time\nt = time.time() + 20\nwhile time.time() < t: pass\n"


def test_a_preempted_caller_marks_the_pool_contended():
    # With two spinning processes on each core, the thread calling the kernels is
    # preempted every few milliseconds: the pool then keeps mid-sized jobs on one
    # thread (cpu/parallel.c), with no stall needed. Results do not change.
    ncores = os.cpu_count() or 1
    busy = [subprocess.Popen([sys.executable, "-c", _BUSY]) for _ in range(2 * ncores)]
    x = cygrad.randn(1 << 16)
    ref = (x * 2.0).numpy()
    try:
        C._set_preemption_check(True)
        C._set_pool_contended(False)
        before = C._pool_preemptions()
        deadline = time.monotonic() + 10
        while C._pool_preemptions() == before and time.monotonic() < deadline:
            np.testing.assert_array_equal((x * 2.0).numpy(), ref)
        assert C._pool_preemptions() > before
        assert C._pool_contention()[0] is True
    finally:
        for p in busy:
            p.kill()
            p.wait()
        C._set_preemption_check(False)
        C._set_pool_contended(False)


_COUNT_WORKERS = (
    "import os, numpy as np, cygrad\n"
    "from cygrad._core import tensor as C\n"
    "def workers():\n"
    "    return sum(open(f'/proc/self/task/{t}/comm').read().strip() == 'cygrad-pool'\n"
    "               for t in os.listdir('/proc/self/task'))\n")


@pytest.mark.parametrize("op", [
    # a GELU of 2^16 elements: a fused row kernel between the quiet (2^15) and the
    # contended (2^19) thresholds
    "cygrad.nn.functional.gelu(x)",
    # 128 products of 32x16x32 (2M multiply-adds in all): between the quiet (2^20)
    # and the contended (2^24) batch thresholds
    "x.view(128, 32, 16) @ x.view(128, 16, 32)",
])
def test_mid_size_jobs_use_the_pool_only_while_it_is_not_contended(op):
    # Pool workers start on first use (x is made on one thread), so the count of
    # threads named cygrad-pool says whether the op took the pool.
    code = _COUNT_WORKERS + (
        "cygrad.set_num_threads(1)\n"
        "x = cygrad.randn(1 << 16)\n"
        "cygrad.set_num_threads(2)\n"
        "C._set_preemption_check(False)\n"      # only the state set here decides
        "C._set_pool_contended(True)\n"
        f"a = {op}\n"
        "contended = workers()\n"
        "C._set_pool_contended(False)\n"
        f"b = {op}\n"
        "print(contended, workers(), bool((a == b).all()))\n")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         timeout=120)
    assert out.returncode == 0, out.stderr
    assert out.stdout.split() == ["0", "1", "True"]


def test_fused_rows_identical_quiet_contended_and_one_thread(restore_threads):
    # 300 x 333 (about 2^16.6 elements): split over the pool only when quiet.
    rng = np.random.default_rng(4)
    x = cygrad.tensor(rng.standard_normal((300, 333)).astype(np.float32))
    F = cygrad.nn.functional

    def run():
        return [F.softmax(x, -1).numpy().copy(), F.gelu(x).numpy().copy(),
                F.layer_norm(x, (333,)).numpy().copy(), F.log_softmax(x, -1).numpy().copy()]

    results = []
    try:
        for threads, contended in ((1, False), (2, False), (2, True)):
            cygrad.set_num_threads(threads)
            C._set_pool_contended(contended)
            results.append(run())
    finally:
        C._set_pool_contended(False)
    for one, other in zip(results[0], results[1] + results[2]):
        np.testing.assert_array_equal(one, other)
    ref = np.exp(x.numpy() - x.numpy().max(-1, keepdims=True))
    np.testing.assert_allclose(results[1][0], ref / ref.sum(-1, keepdims=True), rtol=1e-5)
