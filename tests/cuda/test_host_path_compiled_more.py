"""The sixth cut of the compiled host path (docs/cuda.md, "Host cost per op"):
the free lists' C arrays and the core's empty hook with the current stream
(cygrad/_core/alloc_fast.pyx), and the CUDA fused optimizers' compiled checks and
host step counters (cygrad/_core/optim_kernels.pyx). The free list against a
model of the tuple lists it replaced; the empty hook against the Python path's
cases (the device, the driver, the stream, the thread); the checks against the
Python rule they replace and the errors it names; a parameter whose dtype or
device changes between steps against the same steps on the CPU."""
import bisect
import os
import random
import sys
import threading

import numpy as np
import pytest

import cygrad
import cygrad.cuda as cuda
from cygrad._core import optim_kernels
from cygrad._core.alloc_fast import FreeList
from cygrad.cuda import _runtime
from cygrad.cuda.ops import optim as cuda_optim
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import FakeDriver, installed  # noqa: E402


@pytest.fixture
def fake():
    with installed(FakeDriver(capacity=1 << 30, devices=2)) as d:
        yield d


class B:
    def __init__(self, size, ptr):
        self.size, self.ptr = size, ptr


# ---- the free list ------------------------------------------------------------

def test_free_list_agrees_with_a_sorted_list_of_tuples():
    rng = random.Random(0)
    pool, keys, blocks = FreeList(), [], {}
    live = []
    for step in range(3000):
        op = rng.random()
        if op < 0.5 or not live:
            # few sizes and pointers beyond 2**63: equal sizes ordered by pointer
            b = B(512 * rng.randint(1, 6), rng.choice([0, 1 << 63, 1 << 40]) + 512 * step)
            pool.add(b)
            bisect.insort(keys, (b.size, b.ptr))
            blocks[(b.size, b.ptr)] = b
            live.append(b)
        elif op < 0.8:
            b = live.pop(rng.randrange(len(live)))
            pool.remove(b)
            keys.remove((b.size, b.ptr))
            del blocks[(b.size, b.ptr)]
        else:
            size = 512 * rng.randint(0, 7)
            i = bisect.bisect_left(keys, (size, -1))
            want = blocks[keys[i]] if i < len(keys) else None
            assert pool.best_fit(size) is want
    assert pool.keys == keys and len(pool) == len(keys)
    assert pool.blocks == blocks


def test_free_list_refuses_a_block_it_does_not_hold_and_stays_unchanged():
    pool = FreeList()
    a, b = B(1024, 0x1000), B(2048, 0x2000)
    pool.add(a)
    pool.add(b)
    with pytest.raises(KeyError):
        pool.remove(B(1024, 0x1800))
    with pytest.raises(KeyError):
        pool.remove(B(4096, 0x1000))
    assert pool.keys == [(1024, 0x1000), (2048, 0x2000)]
    pool.remove(a)
    pool.remove(b)
    assert pool.keys == [] and pool.best_fit(1) is None
    with pytest.raises(KeyError):
        pool.remove(a)


def test_a_size_beyond_any_block_is_out_of_memory(fake):
    # (2**70 bytes does not fit the free list's C keys: no block, then the OOM error)
    cygrad.empty(10, device="cuda")
    alloc = _runtime._allocators[0]
    assert FreeList().best_fit(1 << 70) is None
    with pytest.raises(cuda.OutOfMemoryError, match="CUDA out of memory"):
        alloc.malloc(1 << 70, cuda.current_stream())


# ---- the empty hook and the current stream -------------------------------------

def _block_of(t):
    alloc = _runtime._allocators[t.device.index]
    return alloc._live[t.data_ptr()]


def test_allocations_follow_the_device_asked_for(fake):
    sizes = {0: [], 1: []}
    for idx in (0, 1, 1, 0, 1):
        t = cygrad.empty(100 * (idx + 1), device=f"cuda:{idx}")
        assert t.device == cygrad.device("cuda", idx)
        sizes[idx].append(t)
    for idx, ts in sizes.items():
        assert cuda.memory_allocated(idx) == sum(_block_of(t).size for t in ts) > 0
    del sizes, ts, t
    assert cuda.memory_allocated(0) == cuda.memory_allocated(1) == 0


def test_plain_cuda_follows_the_current_device(fake):
    a = cygrad.empty(10, device="cuda")
    cuda.set_device(1)
    try:
        b = cygrad.empty(10, device="cuda")
        c = cygrad.empty(10, device="cuda")
    finally:
        cuda.set_device(0)
    d = cygrad.empty(10, device="cuda")
    assert [t.device.index for t in (a, b, c, d)] == [0, 1, 1, 0]


def test_allocations_use_this_threads_current_stream(fake):
    t0 = cygrad.empty(10, device="cuda")
    s = cuda.Stream()
    with cuda.stream(s):
        t1 = cygrad.empty(10, device="cuda")
        seen = []
        th = threading.Thread(
            target=lambda: seen.append(_block_of(cygrad.empty(10, device="cuda")).stream))
        th.start()
        th.join()
    t2 = cygrad.empty(10, device="cuda")
    default = cuda.default_stream()
    assert _block_of(t0).stream is default and _block_of(t2).stream is default
    assert _block_of(t1).stream is s
    assert seen == [default]        # another thread: its own current stream, the default
    assert cuda.current_stream() is default


def test_a_new_driver_gets_its_own_allocations():
    with installed(FakeDriver(capacity=1 << 30)) as first:
        a = cygrad.empty(1000, device="cuda")
        assert first.raw_allocs[0] == 1
        with installed(FakeDriver(capacity=1 << 30)) as second:
            b = cygrad.empty(1000, device="cuda")
            assert second.raw_allocs[0] == 1 and first.raw_allocs[0] == 1
            assert second.used[0] > 0
            del b
        del a


def test_a_zero_size_tensor_and_a_storage_kept_by_a_view(fake):
    z = cygrad.empty(0, device="cuda")
    assert z.numel() == 0 and cuda.memory_allocated() == 512     # one byte's block
    del z
    v = cygrad.empty(64, device="cuda")[8:16]
    assert cuda.memory_allocated() == 512
    del v
    assert cuda.memory_allocated() == 0


# ---- the fused optimizers' checks ------------------------------------------------

def _python_rule(param, *others):
    # the interpreted check the compiled one replaced (cuda/ops/optim.py's _ok)
    if not isinstance(param, cygrad.Tensor) or param.device.type != "cuda":
        return False
    if param.dtype.name not in ("float32", "float64") or not cuda_optim._ok(param, param):
        return False
    return all(cuda_optim._ok(t, param) for t in others)


def _e(*shape, dtype=cygrad.float32, device="cuda:0"):
    # (empty: the fake driver runs no kernels)
    return cygrad.empty(*shape, dtype=dtype, device=device)


def test_fusable_agrees_with_the_python_rule(fake):
    p = _e(3, 4)
    cands = [_e(3, 4), _e(4, 3).t(), _e(3, 4, device="cuda:1"), cygrad.zeros(3, 4),
             _e(3, 4, dtype=cygrad.float64), _e(12), _e(3, 4, 1), _e(3, 8)[:, ::2], None,
             np.zeros((3, 4), np.float32)]
    params = [p, _e(3, 4, dtype=cygrad.float64), _e(3, 4, dtype=cygrad.float16),
              _e(3, 4, dtype=cygrad.int64), cygrad.zeros(3, 4), p.t(),
              _e(3, 4, device="cuda:1"), _e(()), "p"]
    for q in params:
        for c in cands:
            assert cuda_optim.fusable(q, c) == _python_rule(q, c), (q, c)
        assert cuda_optim.fusable(q) == _python_rule(q)
        assert cuda_optim.fusable(q, cands[0], cands[0]) == _python_rule(q, cands[0], cands[0])


@pytest.mark.parametrize("bad, match", [
    ("param_half", "a parameter must be a float32 or float64 CUDA tensor"),
    ("param_strided", "a parameter must be a C-contiguous"),
    ("grad_cpu", "a gradient must be"), ("exp_avg_shape", "exp_avg must be"),
    ("exp_avg_sq_dtype", "exp_avg_sq must be"), ("max_strided", "max_exp_avg_sq must be"),
    ("step_int", "'step' must be a one-element"), ("step_two", "'step' must be a one-element"),
])
def test_adam_kernel_names_the_first_bad_argument(fake, bad, match):
    z = _e
    n = 2
    ps = [z(2, 3) for _ in range(n)]
    cols = {k: [z(2, 3) for _ in range(n)] for k in ("g", "m", "v", "x")}
    steps = [cygrad.tensor(0.0) for _ in range(n)]
    # the second parameter's argument is bad: the first parameter passes, and no
    # step counter is advanced before the error
    if bad.startswith("param"):
        ps[1] = z(2, 3, dtype=cygrad.float16) if bad == "param_half" else z(3, 2).t()
    else:
        {"grad_cpu": lambda: cols["g"].__setitem__(1, cygrad.zeros(2, 3)),
         "exp_avg_shape": lambda: cols["m"].__setitem__(1, z(3, 2)),
         "exp_avg_sq_dtype": lambda: cols["v"].__setitem__(1, z(2, 3, dtype=cygrad.float64)),
         "max_strided": lambda: cols["x"].__setitem__(1, z(3, 2).t()),
         "step_int": lambda: steps.__setitem__(1, cygrad.tensor(0)),
         "step_two": lambda: steps.__setitem__(1, cygrad.zeros(2))}[bad]()
    before = [s.item() for s in steps if s.numel() == 1]
    with pytest.raises(RuntimeError, match=match):
        cuda_optim.adam_(ps, cols["g"], cols["m"], cols["v"], cols["x"], steps, 0.1, 0.9,
                         0.999, 1e-8, 0.0, True, False, False)
    assert [s.item() for s in steps if s.numel() == 1] == before      # nothing advanced


def test_sgd_kernel_errors(fake):
    p, g = _e(4), _e(4)
    with pytest.raises(RuntimeError, match="a momentum buffer must be"):
        cuda_optim.sgd_([p], [g], [_e(5)], [False], 0.1, 0.0, 0.9, 0.0, False, False)
    with pytest.raises(RuntimeError, match="a gradient must be"):
        cuda_optim.sgd_([p], [_e(4, dtype=cygrad.float64)], [None], [False], 0.1, 0.0, 0.0,
                        0.0, False, False)


def test_advance_host_steps_matches_fill():
    vals = [0.0, 3.0, float(2 ** 24), 2.0 ** 53]
    for dt in (cygrad.float32, cygrad.float64):
        steps = [cygrad.tensor(v, dtype=dt) for v in vals] + [cygrad.zeros(1, 1, dtype=dt)]
        ref = [s.clone() for s in steps]
        versions = [s._version for s in steps]
        got = optim_kernels.advance_host_steps(steps)
        for r in ref:
            r.fill_(float(r.item()) + 1.0)
        assert got == [r.item() for r in ref] == [s.item() for s in steps]
        assert [s._version for s in steps] == [v + 1 for v in versions]


def test_advance_host_steps_changes_nothing_it_cannot_take(fake):
    for odd in (cygrad.tensor(1), cygrad.zeros(2), cygrad.tensor(1.0, requires_grad=True),
                _e(()), cygrad.tensor(1.0, dtype=cygrad.float16)):
        steps = [cygrad.tensor(5.0), odd]
        assert optim_kernels.advance_host_steps(steps) is None
        assert steps[0].item() == 5.0 and steps[0]._version == 0


# ---- on the emulated GPU: a parameter changing between steps ----------------------

@pytest.fixture(scope="module")
def emulated():
    if signature.find_cxx() is None:
        pytest.skip("the emulated CUDA driver needs a host C++ compiler")
    from family_driver import family_driver
    with family_driver() as d:
        yield d


@pytest.mark.parametrize("make", [
    lambda ps: cygrad.optim.Adam(ps, lr=0.1),
    lambda ps: cygrad.optim.SGD(ps, lr=0.1, momentum=0.9),
], ids=["adam", "sgd"])
def test_a_parameter_whose_dtype_or_device_changes_is_still_caught(emulated, make):
    rng = np.random.default_rng(0)
    w0 = [rng.standard_normal(s).astype(np.float32) for s in ((3, 4), (5,))]
    grads = [rng.standard_normal(s) for s in ((3, 4), (5,))]
    results = {}
    for device in ("cpu", "cuda"):
        ps = [cygrad.tensor(w, device=device, requires_grad=True) for w in w0]
        opt = make(ps)
        for step in range(4):
            if step == 2:
                # between steps, in place: one parameter to float64, and the other
                # (with its state) to the host
                # (its state too: PyTorch's Adam refuses float32 buffers then)
                ps[0].data = ps[0].data.double()
                ps[1].data = ps[1].data.cpu()
                for p, move in ((ps[0], lambda v: v.double()), (ps[1], lambda v: v.cpu())):
                    state = opt.state[p]
                    for k, v in list(state.items()):
                        if k != "step":
                            state[k] = move(v)
            for p, g in zip(ps, grads):
                p.grad = cygrad.tensor(g, dtype=p.dtype, device=p.device)
            opt.step()
        results[device] = [(p.dtype, p.device.type, p.detach().cpu().numpy()) for p in ps]
    (d0, t0, r0), (d1, t1, r1) = results["cuda"]
    assert (d0, t0, d1, t1) == (cygrad.float64, "cuda", cygrad.float32, "cpu")
    for (_, _, got), (_, _, want) in zip(results["cuda"], results["cpu"]):
        np.testing.assert_allclose(got, want, rtol=1e-6, atol=1e-7)


def test_a_launch_still_initialises_and_activates_what_it_needs(emulated):
    # launch_fast reads the runtime's state instead of calling _runtime.driver():
    # whatever that call would do must still happen
    a = cygrad.arange(6.0, device="cuda")
    cuda._initialized = False
    b = a * 2.0
    assert cuda.is_initialized()
    out = []
    th = threading.Thread(target=lambda: out.append((a + b).cpu().tolist()))
    th.start()
    th.join()
    assert out == [[0.0, 3.0, 6.0, 9.0, 12.0, 15.0]]
    assert b.cpu().tolist() == [0.0, 2.0, 4.0, 6.0, 8.0, 10.0]
