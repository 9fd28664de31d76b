"""The host path's caches (docs/cuda.md, "Host cost per op"): launch plans per
(kernel, grid, block), the PyCUDA driver's argument checks once per plan, the
elementwise launches' geometries per shapes and strides, and the allocator's
statistics counters in C (cygrad/_core/alloc_stats.pyx)."""
import os
import random
import sys

import numpy as np
import pytest

import cygrad
from cygrad._core.alloc_stats import AllocStats
from cygrad.cuda import kernels as _k
from cygrad.cuda._driver import signature

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from fake_driver import installed  # noqa: E402
from emulated_gpu import launched  # noqa: E402  (a helper, not the fixture)
from .test_pycuda_driver import TEST_KERNELS, TypedArgs, env, make  # noqa: E402,F401

needs_cxx = pytest.mark.skipif(signature.find_cxx() is None,
                               reason="reading kernel signatures runs the host C preprocessor")

TYPED = [-3, 7, -2**40, 2**63, 1.5, 2.5, True]


def _counting_check_args(monkeypatch):
    calls = []
    original = signature.check_args

    def counted(*args, **kwargs):
        calls.append(args[0])
        return original(*args, **kwargs)
    monkeypatch.setattr(signature, "check_args", counted)
    return calls


# ---- the PyCUDA driver's launch plans (over the recording fake pycuda)

@needs_cxx
def test_a_plan_checks_its_first_launch_then_packs_the_same_buffer(monkeypatch, env):
    cuda, d = make(monkeypatch, launch_kernel=True)
    k = d.load_module(TEST_KERNELS).get_function("typed_args")
    out = d.mem_alloc(64)
    s = d.stream_create()
    checks = _counting_check_args(monkeypatch)
    plan = d.launcher(k, (2, 1), (32,), shared_mem=128)
    plan(TYPED + [out + 8], s)
    plan([5, 0, 2**62, 1, -1.0, 1e300, False, out + 16], s)
    assert checks == ["typed_args"]                 # the second launch was packed directly
    launches = [c[1] for c in cuda.calls if c[0] == "Function._launch_kernel"]
    assert len(launches) == 2
    for (name, grid, block, buf, shared, stream), ref in zip(
            launches, [TypedArgs(*TYPED, out + 8), TypedArgs(5, 0, 2**62, 1, -1.0, 1e300, False, out + 16)]):
        assert (name, grid, block, shared, stream) == ("typed_args", (2, 1, 1), (32, 1, 1), 128, s)
        assert buf == bytes(ref)[:len(buf)]
    # d.launch with the same arguments gives the same buffer (the reference path)
    d.launch(k, (2, 1), (32,), [5, 0, 2**62, 1, -1.0, 1e300, False, out + 16], shared_mem=128, stream=s)
    assert cuda.calls[-1][1][3] == launches[1][3]
    # pointers into other allocations, NULL and imported memory pass without the full check
    other = d.mem_alloc(1 << 20)
    d.register_external(0x5000_0000, 4096)
    del checks[:]
    for ptr in (other + 100, out, 0, 0x5000_0000 + 8, other):
        plan(TYPED + [ptr], s)
        assert cuda.calls[-1][1][3][-8:] == ptr.to_bytes(8, "little")
    assert checks == []


@needs_cxx
def test_a_plan_refuses_what_the_full_check_refuses(monkeypatch, env):
    cuda, d = make(monkeypatch, launch_kernel=True)
    k = d.load_module(TEST_KERNELS).get_function("typed_args")
    out = d.mem_alloc(64)
    plan = d.launcher(k, (1,), (32,))
    plan(TYPED + [out], None)                       # fixes the plan's types
    before = len(cuda.calls)
    bad = [
        (TYPED + [out + (1 << 20)], "needs a device pointer"),      # outside every allocation
        (TYPED + [1.0], "needs a device pointer"),
        ([2**31] + TYPED[1:] + [out], "out of range"),              # int32 overflow
        ([-1, -1] + TYPED[2:] + [out], "out of range"),             # unsigned
        (TYPED[:6] + [2, out], "needs a bool"),
        (TYPED[:4] + ["x"] + TYPED[5:] + [out], "needs a real number"),
        (TYPED, "takes 8 argument"),
    ]
    for args, message in bad:
        with pytest.raises(TypeError, match=message):
            plan(args, None)
    assert len(cuda.calls) == before                # nothing was launched
    # memory given back to the driver is refused too (the plan's remembered range is dropped)
    d.mem_free(out)
    with pytest.raises(TypeError, match="needs a device pointer"):
        plan(TYPED + [out], None)


@needs_cxx
def test_a_plan_remembers_several_allocations_and_refuses_the_gaps(monkeypatch, env):
    from cygrad.cuda._driver import pycuda_driver
    cuda, d = make(monkeypatch, launch_kernel=True)
    k = d.load_module(TEST_KERNELS).get_function("typed_args")
    n = pycuda_driver._HOT_RANGES
    blocks = [d.mem_alloc(4096) for _ in range(n + 2)]
    plan = d.launcher(k, (1,), (32,))
    plan(TYPED + [blocks[0]], None)                 # fixes the plan's types
    searches = []
    original = d._in_allocation

    def counted(ptr):
        searches.append(ptr)
        return original(ptr)
    monkeypatch.setattr(d, "_in_allocation", counted)
    recent = blocks[:n]
    for _ in range(2):                              # the second round finds every one remembered
        del searches[:]
        for b in recent:
            plan(TYPED + [b + 4096], None)          # (the last byte's address still counts)
    assert searches == []
    plan(TYPED + [0], None)                         # NULL: no search either
    assert searches == []
    # more allocations than remembered: each is searched, and found
    for b in blocks:
        plan(TYPED + [b + 8], None)
        assert cuda.calls[-1][1][3][-8:] == (b + 8).to_bytes(8, "little")
    # between two remembered allocations, or past the last one: refused
    gaps = [b + 4097 for b in blocks if all(not o <= b + 4097 <= o + 4096 for o in blocks)]
    assert gaps
    for ptr in gaps:
        with pytest.raises(TypeError, match="needs a device pointer"):
            plan(TYPED + [ptr], None)
    # memory given back is forgotten with the rest of the remembered allocations
    d.mem_free(blocks[-1])
    assert d._hot == ()
    with pytest.raises(TypeError, match="needs a device pointer"):
        plan(TYPED + [blocks[-1] + 8], None)
    plan(TYPED + [blocks[0]], None)


@needs_cxx
def test_a_plan_packs_by_value_structs_of_its_size(monkeypatch, env):
    from .test_pycuda_driver import ELEMENTWISE, Geometry
    cuda, d = make(monkeypatch, launch_kernel=True)
    k = d.load_module(ELEMENTWISE).get_function("cg_add_f32_strided")
    p = d.mem_alloc(64)
    g = bytes(Geometry(1))
    plan = d.launcher(k, (1,), (64,))
    checks = _counting_check_args(monkeypatch)
    plan([16, g, p, p + 4, p + 8], None)
    plan([8, g, p, p, p], None)
    assert checks == ["cg_add_f32_strided"]
    assert cuda.calls[-1][1][3][:8] == (8).to_bytes(8, "little")
    # a struct of another size than the plan's takes the full path, as d.launch does
    plan([8, g[:-8], p, p, p], None)
    assert checks == ["cg_add_f32_strided"] * 2
    d.launch(k, (1,), (64,), [8, g[:-8], p, p, p])
    assert cuda.calls[-1][1][3] == cuda.calls[-2][1][3] and len(cuda.calls[-1][1][3]) == 8 + 512 + 3 * 8


# ---- kernels.launch and the elementwise geometries, on the emulated GPU

@pytest.fixture(scope="module")
def emulated():
    from cygrad.cuda._driver.emulated import EmulatedDriver
    if signature.find_cxx() is None:
        pytest.skip("the emulated CUDA driver needs a host C++ compiler")
    with installed(EmulatedDriver(memory=64 << 20, strict=True)) as d:
        cygrad.zeros(1, device="cuda")
        yield d


_launched = launched          # (the names of the kernels the emulated driver launches)


def test_kernels_launch_keeps_one_plan_per_kernel_grid_and_block(emulated, monkeypatch):
    launches = _launched(emulated, monkeypatch)
    a = cygrad.arange(10, dtype=cygrad.float32, device="cuda")
    b = cygrad.ones(10, dtype=cygrad.float32, device="cuda")
    _k._plans.clear()
    (a + b).cpu()
    plans = dict(_k._plans)
    (a + b).cpu()
    assert _k._plans == plans                       # the same plans, reused
    (cygrad.arange(5000, dtype=cygrad.float32, device="cuda") + 1).cpu()   # another grid
    assert len(_k._plans) > len(plans)
    # the emulator's plans check every launch (its strict mode sees each one); the
    # number 1 is the kernel's argument (no fill of a 0-d tensor)
    assert launches.count("cg_add_f32_strided") == 2
    assert launches.count("cg_add_f32_number") == 1
    assert launches.count("cg_fill_f32_strided") == 1           # (ones)


CASES = [
    ("contiguous", lambda x, y: (x, y)),
    ("transposed", lambda x, y: (x.t(), y.t())),
    ("broadcast row", lambda x, y: (x, y[:1])),
    ("broadcast column", lambda x, y: (x, y[:, :1])),
    ("strided slice", lambda x, y: (x[:, ::2], y[:, 1::2])),
    ("scalar", lambda x, y: (x, y[0, 0])),
]


@pytest.mark.parametrize("dtype", [cygrad.float32, cygrad.float64, cygrad.int64])
def test_elementwise_results_stay_right_across_cached_geometries(emulated, dtype):
    from cygrad.cuda.ops import elementwise
    rng = np.random.default_rng(0)
    xs = (rng.standard_normal((6, 8)) * 10).astype(dtype.np_dtype)
    ys = (rng.standard_normal((6, 8)) * 10).astype(dtype.np_dtype)
    x, y = cygrad.tensor(xs, device="cuda"), cygrad.tensor(ys, device="cuda")
    xn, yn = xs.copy(), ys.copy()
    views = {"contiguous": (xn, yn), "transposed": (xn.T, yn.T), "broadcast row": (xn, yn[:1]),
             "broadcast column": (xn, yn[:, :1]), "strided slice": (xn[:, ::2], yn[:, 1::2]),
             "scalar": (xn, yn[0, 0])}
    for name, view in CASES:
        a, b = view(x, y)
        for _ in range(2):          # the second run takes the cached geometry
            got = (a * b + a).cpu().numpy()
            ref = views[name][0] * views[name][1] + views[name][0]
            np.testing.assert_array_equal(got, ref, err_msg=name)
        r = a * b
        key = (r.shape, r.stride(), (a.shape, a.stride()), (b.shape, b.stride()))
        assert key in elementwise._geometries, name


def test_a_geometry_is_not_reused_for_other_strides(emulated):
    from cygrad.cuda.ops import elementwise
    base = cygrad.arange(16, dtype=cygrad.float32, device="cuda").reshape(4, 4)
    out1 = base + 0.0
    out2 = base.t() + 0.0
    np.testing.assert_array_equal(out1.cpu().numpy(), np.arange(16, dtype=np.float32).reshape(4, 4))
    np.testing.assert_array_equal(out2.cpu().numpy(), np.arange(16, dtype=np.float32).reshape(4, 4).T)
    # (the number 0.0 is the kernel's argument, not an operand of the geometry)
    k1 = ((4, 4), (4, 1), ((4, 4), (4, 1)))
    k2 = ((4, 4), (4, 1), ((4, 4), (1, 4)))
    assert k1 in elementwise._geometries and k2 in elementwise._geometries
    assert elementwise._geometries[k1][1] != elementwise._geometries[k2][1]


def test_gradients_through_cached_launches_match_the_cpu(emulated):
    rng = np.random.default_rng(1)
    w = rng.standard_normal((5, 3))
    xs = rng.standard_normal((4, 5))
    grads = []
    for device in ("cpu", "cuda"):
        wt = cygrad.tensor(w, device=device, requires_grad=True)
        x = cygrad.tensor(xs, device=device)
        for _ in range(2):      # twice: the second pass runs on cached plans and geometries
            wt.grad = None
            loss = ((x @ wt).relu() * 2.0 + x.sum(1, keepdim=True)).sum()
            loss.backward()
        grads.append(wt.grad.cpu().numpy())
    np.testing.assert_allclose(grads[1], grads[0], rtol=1e-12, atol=1e-12)


# ---- the allocator's statistics counters

def _reference_update(fields, small, changes):
    """The statistics rule written out in Python (the allocator's before the C counters)."""
    cur, peak, inc, dec = fields
    for stat, delta in changes:
        for i in (3 * stat, 3 * stat + (1 if small else 2)):
            cur[i] += delta
            if delta > 0:
                inc[i] += delta
                peak[i] = max(peak[i], cur[i])
            else:
                dec[i] -= delta


def test_alloc_stats_follow_the_reference_rule():
    rnd = random.Random(0)
    n = 9
    stats = AllocStats(n)
    ref = [[0] * (3 * n) for _ in range(4)]
    for step in range(2000):
        changes = [(rnd.randrange(n), rnd.randint(-3 * 2**20, 3 * 2**20)) for _ in range(rnd.randint(0, 6))]
        small = rnd.random() < 0.5
        stats.update(small, *changes)
        _reference_update(ref, small, changes)
        if step == 1000:
            stats.reset_peak()
            ref[1] = list(ref[0])
        if step == 1500:
            stats.reset_accumulated()
            ref[2], ref[3] = [0] * (3 * n), [0] * (3 * n)
    assert stats.fields() == ref
    assert [stats.current(i) for i in range(3 * n)] == ref[0]


def test_alloc_stats_refuse_unknown_entries():
    stats = AllocStats(2)
    with pytest.raises(IndexError):
        stats.update(True, (2, 1))
    with pytest.raises(IndexError):
        stats.current(6)
    with pytest.raises(ValueError):
        AllocStats(0)


# ---- a leaf's first gradient on the device is kept, not copied (the engine's _can_steal)

def test_a_leafs_device_gradient_is_kept_without_a_copy(emulated, monkeypatch):
    rng = np.random.default_rng(2)
    x = cygrad.tensor(rng.standard_normal((4, 3)), device="cuda")
    w = cygrad.tensor(rng.standard_normal((3, 2)), device="cuda", requires_grad=True)
    loss = (x @ w).sum()
    names = _launched(emulated, monkeypatch)
    loss.backward()
    assert not [n for n in names if n.startswith("cg_copy")], names
    np.testing.assert_allclose(w.grad.cpu().numpy(),
                               x.cpu().numpy().T @ np.ones((4, 2)), rtol=1e-12)
    # a gradient that a hook also keeps is copied, as on the CPU
    kept = []
    w2 = cygrad.tensor(rng.standard_normal((3, 2)), device="cuda", requires_grad=True)
    w2.register_hook(lambda g: kept.append(g))
    (x @ w2).sum().backward()
    assert w2.grad is not kept[0] and w2.grad.data_ptr() != kept[0].data_ptr()
    np.testing.assert_array_equal(w2.grad.cpu().numpy(), kept[0].cpu().numpy())
